/*
 * cs_check.h -- `cowsim check` as a library entry: cs_cmd_check parses its own
 * arguments (argv[0] is "check") and returns an exit status of cs_exit.h.
 * The command table (cli/cs_cli.c) dispatches to it.
 */
#ifndef CS_CHECK_H
#define CS_CHECK_H

int cs_cmd_check(int argc, char **argv);

#endif /* CS_CHECK_H */
