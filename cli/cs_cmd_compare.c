/*
 * cs_cmd_compare.c -- `cowsim compare RUN.h5 ... [--csv|--json] [--harm]
 * [--greedy GREEDY.h5] [--burn-in N|--no-warmup]` and `cowsim compare RUNDIR
 * [--ref MECHANISM] [--csv|--json]`: parses the arguments; the tables are
 * analysis/cs_compare.c's (cs_compare_runs).
 */
#include "cs_cli.h"
#include "cs_compare.h"
#include "cs_metrics.h"
#include "cs_steady.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Usage text of `cowsim compare` on f. */
static void cs__compare_usage(FILE *f)
{
    fprintf(f, "usage: cowsim compare RUN.h5 ... [--csv|--json] [--harm] [--greedy GREEDY.h5] [--burn-in N|--no-warmup]\n"
               "                      [--gap-windows N] [--gap-width W]\n"
               "       cowsim compare RUNDIR [--ref MECHANISM] [--csv|--json]\n"
               "  Prints the metrics of analysis/README.md, one column per run, one row per metric.\n"
               "  efficiency and poa compare with the offline welfare optimum of the run's own demand\n"
               "  (exact ILP, or an LP / Lagrangian upper bound: the header, efficiency_vs and opt_exact\n"
               "  say which); for a bound, bound_gap is (bound - exact) / exact on N windows of W blocks\n"
               "  (default 0: not measured; e.g. --gap-windows 2 --gap-width 4) solved both ways.\n"
               "  efficiency_greedy uses --greedy, else a greedy.h5 next to each run.\n"
               "  Then the steady state of each run: MSER-5 cuts the warm-up (--burn-in N: the\n"
               "  first N blocks; --no-warmup: nothing), and per-block basefee, utilisation, fires,\n"
               "  backlog, paid and welfare are averaged over the rest with 95 %% batch-means\n"
               "  intervals.\n"
               "  --harm (text or JSON): then the harm to honest actors of each run against the\n"
               "  <mechanism>.noattack.h5 beside it (cowsim run --harm), and per mechanism across\n"
               "  the runs' seeds the mean with its 95 %% t and BCa (10 seeds or more) intervals.\n"
               "  RUNDIR, a multi-seed run (RUNDIR/seed-<s>/<mechanism>.h5): per metric and mechanism\n"
               "  the mean over seeds with its 95 %% Student-t interval, and the paired difference\n"
               "  to --ref (default: the scenario's first mechanism) on the same seed with t and\n"
               "  BCa bootstrap intervals (no bootstrap below 10 seeds, with a warning).\n"
               "  Exit 2 if a file is not a cowsim run file, 3 if it cannot be read.\n");
}

int cs_cmd_compare(int argc, char **argv)
{
    int fmt = CS_COMPARE_TEXT;
    const char *greedy = NULL, *ref = NULL;
    int harm = 0; /* --harm: the harm table of each run and its .noattack.h5 (cs_harm.h) */
    int ss_mode = CS_STEADY_MSER5;
    uint64_t burn_in = 0;
    char **paths = calloc((size_t)argc + 1, sizeof *paths);
    size_t np = 0;
    if (!paths) {
        fprintf(stderr, "cowsim compare: out of memory\n");
        return CS_EXIT_IO;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cs__compare_usage(stdout);
            free(paths);
            return CS_EXIT_OK;
        } else if (strcmp(a, "--csv") == 0) {
            fmt = CS_COMPARE_CSV;
        } else if (strcmp(a, "--json") == 0) {
            fmt = CS_COMPARE_JSON;
        } else if (strcmp(a, "--greedy") == 0 && i + 1 < argc) {
            greedy = argv[++i];
        } else if (strcmp(a, "--ref") == 0 && i + 1 < argc) {
            ref = argv[++i];
        } else if (strcmp(a, "--harm") == 0) {
            harm = 1;
        } else if (cs_steady_arg(argc, argv, &i, &ss_mode, &burn_in) || cs_metrics_gap_arg(argc, argv, &i)) {
            continue;
        } else if (a[0] != '-' || strcmp(a, "-") == 0) {
            paths[np++] = argv[i];
        } else {
            fprintf(stderr, "cowsim compare: unexpected argument '%s'\n", a);
            cs__compare_usage(stderr);
            free(paths);
            return CS_EXIT_USAGE;
        }
    }
    if (np == 0 || (harm && fmt == CS_COMPARE_CSV)) {
        cs__compare_usage(stderr);
        free(paths);
        return CS_EXIT_USAGE;
    }
    cs_compare_opts_t o = {.fmt = fmt, .greedy = greedy, .ref = ref, .harm = harm, .ss_mode = ss_mode,
                           .burn_in = burn_in, .paths = paths, .n_paths = np};
    int st = cs_compare_runs(&o);
    if (st == CS_COMPARE_USAGE) {
        cs__compare_usage(stderr);
        st = CS_EXIT_USAGE;
    }
    free(paths);
    return st;
}
