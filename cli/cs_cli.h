/*
 * cs_cli.h -- subcommand dispatch for the cowsim binary (DESIGN §5).
 *
 * Each subcommand is a function cs_cmd_<name>(argc, argv) with argv[0] the
 * subcommand name, defined in cli/cs_cmd_<name>.c: it parses the command
 * line and calls the libraries below (analysis/, bench/, sim/).  Exit
 * statuses: sim/cs_exit.h.
 */
#ifndef CS_CLI_H
#define CS_CLI_H

#include "cs_exit.h"

/* The cowsim entry point: tunes the allocator (cs_malloc_tune), then runs
 * the subcommand argv[1]; returns the exit status. */
int cs_cli_main(int argc, char **argv);
/* Fixes glibc's mmap threshold at CS_MMAP_THRESHOLD bytes (DESIGN-NOTES
 * N46).  Returns 1 when set; 0 where the allocator is not glibc's (or a
 * sanitizer's, whose mallopt refuses). */
int cs_malloc_tune(void);
#define CS_MMAP_THRESHOLD (256 * 1024)

int cs_cmd_bench(int argc, char **argv);
int cs_cmd_check(int argc, char **argv);
int cs_cmd_clear(int argc, char **argv);
int cs_cmd_compare(int argc, char **argv);
int cs_cmd_report(int argc, char **argv);
int cs_cmd_run(int argc, char **argv);
int cs_cmd_sweep(int argc, char **argv);
int cs_cmd_validate(int argc, char **argv);

#endif
