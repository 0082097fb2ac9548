/*
 * cs_exit.h -- the process exit statuses every cowsim command returns
 * (DESIGN §2.9), in one place so that the command layer (cli/) and the
 * libraries whose functions end a command (scenario validation, compare,
 * check, report, bench) agree on them.  README "Exit statuses" has the same
 * table.
 *
 *   0  ok
 *   1  a check failed (an invariant, a regression, a failed run in a sweep)
 *   2  bad input or usage: arguments, a scenario / sweep / auction /
 *      baseline JSON that fails validation, a file that is not a cowsim
 *      file at all (not HDF5, or HDF5 without cowsim's format_version)
 *   3  I/O failure: a path that cannot be opened, read or written (the
 *      message names the path), or out of memory
 *   4  corrupt input: a cowsim HDF5 file whose bytes fail a checksum, whose
 *      layout cannot be read, or whose tables disagree with its root
 *      totals (cross-checks; the message says "corrupt" and names the file)
 */
#ifndef CS_EXIT_H
#define CS_EXIT_H

#include <unistd.h>

#include "cs_error.h"

enum { CS_EXIT_OK = 0, CS_EXIT_CHECK = 1, CS_EXIT_USAGE = 2, CS_EXIT_IO = 3, CS_EXIT_CORRUPT = 4 };

/* The exit status of a command that failed reading or loading its input
 * with error code rc (rc != CS_OK): the table above. */
static inline int cs_exit_of(int rc)
{
    if (rc == CS_ECORRUPT) return CS_EXIT_CORRUPT;
    if (rc == CS_EIO || rc == CS_ENOMEM) return CS_EXIT_IO;
    return CS_EXIT_USAGE;
}

/* End a forked child with status st: _exit (no atexit handlers, no stdio
 * flush).  In a coverage build (tests/coverage.sh defines CS_COVERAGE) the
 * child first writes its gcov counters, which _exit skips, so the lines
 * children run -- the HDF5 sandbox's reads, the sweep's workers -- count. */
#ifdef CS_COVERAGE
void __gcov_dump(void);
/* 1 while a child writes its counters: libgcov's allocations are then not
 * the program's (tests/cs_allocwrap.h lets them through uncounted, so an
 * injected failure never lands in libgcov).  Defined in cs_h5_sandbox.c. */
extern volatile int cs_cov_dumping;
#define cs_child_exit(st) (cs_cov_dumping = 1, __gcov_dump(), _exit(st))
#else
#define cs_child_exit(st) _exit(st)
#endif

#endif /* CS_EXIT_H */
