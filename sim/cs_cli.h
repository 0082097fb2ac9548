/*
 * cs_cli.h -- subcommand dispatch for the cowsim binary (DESIGN §5).
 *
 * Each subcommand is a function cs_cmd_<name>(argc, argv) with argv[0] the
 * subcommand name.  Exit codes: 0 ok, 1 check failed, 2 bad input or usage,
 * 3 I/O failure (DESIGN §2.9).
 */
#ifndef CS_CLI_H
#define CS_CLI_H

enum { CS_EXIT_OK = 0, CS_EXIT_CHECK = 1, CS_EXIT_USAGE = 2, CS_EXIT_IO = 3 };

int cs_cli_main(int argc, char **argv);
/* mkdir -p; 0, or -1 with errno (shared by run, sweep and report). */
int cs_mkdirs(const char *path);

int cs_cmd_bench(int argc, char **argv);
int cs_cmd_check(int argc, char **argv);
int cs_cmd_clear(int argc, char **argv);
int cs_cmd_compare(int argc, char **argv);
int cs_cmd_report(int argc, char **argv);
int cs_cmd_run(int argc, char **argv);
int cs_cmd_sweep(int argc, char **argv);
int cs_cmd_validate(int argc, char **argv);

#endif
