/*
 * cs_compare.h -- `cowsim compare` as a library entry: cs_cmd_compare parses its own
 * arguments (argv[0] is "compare") and returns an exit status of cs_exit.h.
 * The command table (cli/cs_cli.c) dispatches to it.
 */
#ifndef CS_COMPARE_H
#define CS_COMPARE_H

int cs_cmd_compare(int argc, char **argv);

#endif /* CS_COMPARE_H */
