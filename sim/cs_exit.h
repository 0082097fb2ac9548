/*
 * cs_exit.h -- the process exit statuses every cowsim command returns
 * (DESIGN §2.9), in one place so that the command layer (cli/) and the
 * libraries whose functions end a command (scenario validation, compare,
 * check, report, bench) agree on them.
 *
 *   0  ok
 *   1  a check failed (an invariant, a regression, a failed run in a sweep)
 *   2  bad input or usage
 *   3  I/O failure (the message names the path)
 */
#ifndef CS_EXIT_H
#define CS_EXIT_H

enum { CS_EXIT_OK = 0, CS_EXIT_CHECK = 1, CS_EXIT_USAGE = 2, CS_EXIT_IO = 3 };

#endif /* CS_EXIT_H */
