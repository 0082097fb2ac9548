/* cs_cli.c -- subcommand table and top-level usage. */
#include "cs_cli.h"
#include "cs_libm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

typedef struct cs_subcmd {
    const char *name;               /* subcommand word */
    int (*fn)(int argc, char **argv); /* handler; NULL = not built yet */
    const char *summary;            /* one line for --help */
} cs_subcmd_t;

static const cs_subcmd_t cs__cmds[] = {
    {"run", cs_cmd_run, "run a scenario for each mechanism: run SCENARIO.json [-o DIR] ..."},
    {"bench", cs_cmd_bench, "run a benchmark: bench [core|e2e|memory] [--json] [--quick] [--pending N]"},
    {"clear", cs_cmd_clear, "clear one block's auction: clear AUCTION.json [--json]"},
    {"compare", cs_cmd_compare, "metrics side by side: compare RUN.h5 ... [--csv|--json] [--greedy GREEDY.h5]"},
    {"check", cs_cmd_check, "regression check against a baseline: check --baseline BASELINE.json RUN.h5 | --bless ..."},
    {"report", cs_cmd_report, "report with plots: report RUN.h5|SWEEP.h5 ... [-o DIR]"},
    {"sweep", cs_cmd_sweep, "parameter sweep over seeds and a grid or Sobol design: sweep SWEEP.json [-j N] [--resume] [-o DIR]"},
    {"validate", cs_cmd_validate, "check a scenario, report every error: validate SCENARIO.json [--set PATH=VALUE]..."},
};

static void cs__usage(FILE *f)
{
    fprintf(f, "usage: cowsim <command> [options]\n       cowsim --help | --version\n\ncommands:\n");
    for (size_t i = 0; i < sizeof cs__cmds / sizeof cs__cmds[0]; i++)
        fprintf(f, "  %-10s %s\n", cs__cmds[i].name, cs__cmds[i].summary);
}

int cs_malloc_tune(void)
{
#if defined(__GLIBC__)
    /* A run's large arrays grow by realloc.  glibc raises its mmap
     * threshold (up to 32 MiB) whenever a mapped block is freed, after which
     * such arrays come from the heap: realloc copies them (touching every
     * page of the old size, used or not) and the copies they leave behind
     * stay resident as holes; where each array lands then depends on every
     * earlier allocation, HDF5's included (about 100 MB at 10^7 pending
     * timers: `cowsim bench memory`, DESIGN-NOTES N46).  A fixed threshold
     * keeps every block of 256 KiB or more in its own mapping, which realloc
     * moves with mremap and free returns to the system.  (This test needs
     * a C library header included before it: <features.h> defines
     * __GLIBC__.) */
    return mallopt(M_MMAP_THRESHOLD, CS_MMAP_THRESHOLD) == 1;
#else
    return 0;
#endif
}

int cs_cli_main(int argc, char **argv)
{
    (void)cs_malloc_tune();
    if (argc < 2) {
        cs__usage(stderr);
        return CS_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        cs__usage(stdout);
        return CS_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("cowsim %s (%s)\nlibm: %s\n", CS_VERSION, CS_GIT_COMMIT, cs_libm_name());
        return CS_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof cs__cmds / sizeof cs__cmds[0]; i++)
        if (strcmp(argv[1], cs__cmds[i].name) == 0) return cs__cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "cowsim: unknown command '%s'\n", argv[1]);
    cs__usage(stderr);
    return CS_EXIT_USAGE;
}
