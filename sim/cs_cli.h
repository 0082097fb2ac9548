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

/* The cowsim entry point: tunes the allocator (cs_malloc_tune), then runs
 * the subcommand argv[1]; returns the exit status. */
int cs_cli_main(int argc, char **argv);
/* Fixes glibc's mmap threshold at CS_MMAP_THRESHOLD bytes (DESIGN-NOTES
 * N46).  Returns 1 when set; 0 where the allocator is not glibc's (or a
 * sanitizer's, whose mallopt refuses). */
int cs_malloc_tune(void);
#define CS_MMAP_THRESHOLD (256 * 1024)
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
