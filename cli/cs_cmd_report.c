/*
 * cs_cmd_report.c -- the command line of `cowsim report`: the usage text and
 * cs_cmd_report, which parses the arguments and hands them to
 * cs_report_write (cs_report.h).
 */
#include "cs_cli.h"
#include "cs_metrics.h"
#include "cs_report.h"
#include "cs_steady.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Print the usage text to f. */
static void cs__report_usage(FILE *f)
{
    fprintf(f, "usage: cowsim report RUN.h5|SWEEP.h5|RUNDIR ... [-o DIR] [--ref MECHANISM] [--burn-in N|--no-warmup]\n"
               "  Writes DIR/report.md and PNG plots (drawn by gnuplot) for run files of\n"
               "  `cowsim run` and sweep summaries (sweep.h5) of `cowsim sweep`.\n"
               "  Runs of different mechanisms on the same scenario share axes.\n"
               "  DIR defaults to the directory of the first input.  The gnuplot scripts\n"
               "  (*.gp) and data files (*.dat) stay in DIR.  A sweep with several mechanisms\n"
               "  gets paired differences against --ref (default its first mechanism) on the\n"
               "  same seed, with Student-t and BCa intervals.  Run files get a steady-state\n"
               "  table: warm-up cut by MSER-5 (or --burn-in N, or nothing with --no-warmup),\n"
               "  per-block means with 95 %% batch-means intervals.  One bar chart per fairness\n"
               "  and welfare metric across mechanisms; RUNDIR (a multi-seed run): means over\n"
               "  the seeds with 95 %% t-interval whiskers, and per mechanism on shared axes the\n"
               "  lane basefee and utilisation per block (median over the seeds, 10-90 %% band),\n"
               "  the delay and W(actor) CDFs pooled over the seeds, and what was paid by part.\n"
               "  Tables: 4 significant digits, a unit per row, the best value in bold.\n"
               "  --point P (a point index, or param=value[,...]) with a sweep: per-block\n"
               "  basefee and backlog and the W quantiles of every run of that point\n"
               "  (--series basefee,backlog,w_p10,w_p50,w_p90).\n"
               "  --gap-windows N, --gap-width W: the sample on which a run's bound_gap is measured\n"
               "  (as for compare; default 0 windows: not measured).\n");
}

/* `cowsim report ...`: parse the arguments (the usage text for -h, --help
 * or a bad one) and write the report with cs_report_write. */
int cs_cmd_report(int argc, char **argv)
{
    const char *outdir = NULL, *ref = NULL, *point = NULL, *series = NULL;
    int ss_mode = CS_STEADY_MSER5;
    uint64_t burn_in = 0;
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    size_t nin = 0;
    if (!inputs) {
        fprintf(stderr, "cowsim report: out of memory\n");
        return CS_EXIT_IO;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cs__report_usage(stdout);
            free(inputs);
            return CS_EXIT_OK;
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            outdir = argv[++i];
        } else if (strcmp(a, "--ref") == 0 && i + 1 < argc) {
            ref = argv[++i];
        } else if (strcmp(a, "--point") == 0 && i + 1 < argc) {
            point = argv[++i];
        } else if (strcmp(a, "--series") == 0 && i + 1 < argc) {
            series = argv[++i];
        } else if (cs_steady_arg(argc, argv, &i, &ss_mode, &burn_in) || cs_metrics_gap_arg(argc, argv, &i)) {
            continue;
        } else if (a[0] != '-' || strcmp(a, "-") == 0) {
            inputs[nin++] = a;
        } else {
            fprintf(stderr, "cowsim report: unexpected argument '%s'\n", a);
            cs__report_usage(stderr);
            free(inputs);
            return CS_EXIT_USAGE;
        }
    }
    if (nin == 0 || (series && !point)) {
        if (series && !point) fprintf(stderr, "cowsim report: --series needs --point\n");
        cs__report_usage(stderr);
        free(inputs);
        return CS_EXIT_USAGE;
    }
    cs_report_opts_t opt = {.outdir = outdir, .ref = ref, .point = point, .series = series, .ss_mode = ss_mode,
                            .burn_in = burn_in};
    int rc = cs_report_write(inputs, nin, &opt);
    free(inputs);
    return rc;
}
