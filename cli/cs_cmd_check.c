/*
 * cs_cmd_check.c -- `cowsim check --baseline BASELINE.json RUN.h5` and
 * `cowsim check --bless BASELINE.json RUN.h5 [--abs X] [--rel X]
 * [--metrics A,B,...] [--comment TEXT]`: parses the arguments; the check
 * and the blessing are analysis/cs_check.c's.
 */
#include "cs_check.h"
#include "cs_cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Usage text of `cowsim check` on f. */
static void cs__check_usage(FILE *f)
{
    fprintf(f, "usage: cowsim check --baseline BASELINE.json RUN.h5 [--greedy GREEDY.h5]\n"
               "       cowsim check --bless BASELINE.json RUN.h5 [--abs X] [--rel X] [--metrics A,B,...]\n"
               "                    [--comment TEXT] [--greedy GREEDY.h5]\n"
               "  --baseline: compare every metric of the baseline with the run; exit 1 on a regression.\n"
               "  --bless: write or refresh the baseline from the run (values replaced; tolerances kept\n"
               "  unless --abs/--rel are given; --metrics adds or selects metrics; a new baseline holds\n"
               "  every metric with --rel %g unless told otherwise).\n",
            CS_CHECK_DEFAULT_REL);
}

/* Parse a tolerance option value: a finite number >= 0. */
static int cs__parse_tol(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(d) || d < 0) {
        fprintf(stderr, "cowsim check: %s needs a number >= 0, got '%s'\n", opt, s);
        return -1;
    }
    *out = d;
    return 0;
}

/* `cowsim check`: parse arguments and run --baseline or --bless.  Returns
 * the exit status (0 pass, 1 regression, 2 bad input, 3 I/O). */
int cs_cmd_check(int argc, char **argv)
{
    const char *baseline = NULL, *bless = NULL, *run = NULL, *greedy = NULL, *list = NULL, *comment = NULL;
    double abs_tol = -1, rel_tol = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cs__check_usage(stdout);
            return CS_EXIT_OK;
        } else if (strcmp(a, "--baseline") == 0 && i + 1 < argc) {
            baseline = argv[++i];
        } else if (strcmp(a, "--bless") == 0 && i + 1 < argc) {
            bless = argv[++i];
        } else if (strcmp(a, "--greedy") == 0 && i + 1 < argc) {
            greedy = argv[++i];
        } else if (strcmp(a, "--metrics") == 0 && i + 1 < argc) {
            list = argv[++i];
        } else if (strcmp(a, "--comment") == 0 && i + 1 < argc) {
            comment = argv[++i];
        } else if (strcmp(a, "--abs") == 0 && i + 1 < argc) {
            if (cs__parse_tol(a, argv[++i], &abs_tol) != 0) return CS_EXIT_USAGE;
        } else if (strcmp(a, "--rel") == 0 && i + 1 < argc) {
            if (cs__parse_tol(a, argv[++i], &rel_tol) != 0) return CS_EXIT_USAGE;
        } else if (a[0] != '-' && !run) {
            run = a;
        } else {
            fprintf(stderr, "cowsim check: unexpected argument '%s'\n", a);
            cs__check_usage(stderr);
            return CS_EXIT_USAGE;
        }
    }
    if (!run || (!baseline == !bless)) {
        if (baseline && bless) fprintf(stderr, "cowsim check: give either --baseline or --bless, not both\n");
        cs__check_usage(stderr);
        return CS_EXIT_USAGE;
    }
    if (baseline && (abs_tol >= 0 || rel_tol >= 0 || list || comment)) {
        fprintf(stderr, "cowsim check: --abs, --rel, --metrics and --comment go with --bless\n");
        return CS_EXIT_USAGE;
    }
    if (baseline) return cs_check_baseline(baseline, run, greedy);
    return cs_check_bless(bless, run, greedy, abs_tol, rel_tol, list, comment);
}
