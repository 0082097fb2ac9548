/*
 * cs_report.h -- `cowsim report` as a library entry: cs_cmd_report parses
 * its own arguments (argv[0] is "report") and returns an exit status of
 * cs_exit.h.  The command table (cli/cs_cli.c) dispatches to it.
 */
#ifndef CS_REPORT_H
#define CS_REPORT_H

int cs_cmd_report(int argc, char **argv);

#endif /* CS_REPORT_H */
