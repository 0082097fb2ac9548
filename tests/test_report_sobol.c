/*
 * test_report_sobol.c -- report of a Sobol sweep (analysis/cs_report_sweep.c):
 * with 13 design points lane_fee_multiplier takes 13 values, more than the
 * 12 lines a plot draws, so the plots against max_fires_per_block show
 * every run as a point (the scatter form) and their data file holds one
 * line per run.  The x column of sweep_params_max_fires_per_block_m1.dat
 * must be the 13 Sobol values of max_fires_per_block (integers in [2, 9]),
 * sorted, as cs_sweep_parse computes them from the same sweep file here
 * (tests/test_sweep_design.c checks those against GSL); the captions name
 * the design's paths (the sobol ranges' keys) and the form.  The stand-in gnuplot is
 * tests/cs_fakegp.c (CS_FAKEGP) (issue 29: coverage of analysis/).
 */
#include "cs_sweep.h"
#include "cs_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* report of sweep file h5 with --point spec: exit 2 and exactly the
 * message want on stderr. */
static void point_refused(const char *dir, const char *h5, const char *spec, const char *want)
{
    char err[400], out[400];
    snprintf(err, sizeof err, "%s/point.err", dir);
    snprintf(out, sizeof out, "%s/rep2", dir);
    mkdir(out, 0755);
    char *argv[] = {"cowsim", "report", (char *)h5, "-o", out, "--point", (char *)spec, NULL};
    fflush(stderr);
    int saved = dup(2), fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    close(fd);
    int rc = cs_test_cli_quiet(7, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    size_t n = 0;
    char *got = (char *)cs_test_slurp(err, &n);
    if (rc == 2 && got && strcmp(got, want) == 0) cs_test_pass++;
    else {
        fprintf(stderr, "--point %s: exit %d, stderr '%s', want '%s'\n", spec, rc, got ? got : "", want);
        cs_test_failed(__FILE__, __LINE__, "--point refused", NULL);
    }
    free(got);
}

int main(void)
{
    setenv("COWSIM_H5_SANDBOX", "0", 1); /* files read in this process: no helper forked per file */
    char dir[256], p[600], q[400], out[400];
    snprintf(dir, sizeof dir, "%s/cs_report_sobol_%d", cs_test_tmpdir(), (int)getpid());
    mkdir(dir, 0755);
    const char *base = "{\"name\": \"sobol-t\", \"seed\": 3, \"blocks\": 8, \"mechanism\": \"eip1559\",\n"
                       " \"agents\": [{\"kind\": \"heartbeat\", \"count\": 2}]}\n";
    const char *sweep = "{\"name\": \"sob\", \"base\": \"base.json\", \"seeds\": [1],\n"
                        " \"sobol\": {\"n\": 13, \"ranges\": {\"params.lane_fee_multiplier\": [0.6, 1.4],\n"
                        " \"params.max_fires_per_block\": [2, 9]}, \"integer\": [\"params.max_fires_per_block\"]}}\n";
    snprintf(p, sizeof p, "%s/base.json", dir);
    CS_CHECK(cs_test_spit(p, (const unsigned char *)base, strlen(base)) == 0);
    snprintf(p, sizeof p, "%s/sweep.json", dir);
    CS_CHECK(cs_test_spit(p, (const unsigned char *)sweep, strlen(sweep)) == 0);
    snprintf(q, sizeof q, "%s/sw", dir);
    char *sw_argv[] = {"cowsim", "sweep", p, "-o", q, "--quiet", NULL};
    CS_CHECK_EQ_U64(cs_test_cli_quiet(6, sw_argv), 0);

    /* gnuplot: the stand-in, first on PATH. */
    int gp_ok = cs_test_fake_gnuplot(dir);
    CS_CHECK(gp_ok == 0);
    if (gp_ok != 0) return cs_test_finish("report_sobol", dir);
    snprintf(p, sizeof p, "%s/sw/sweep.h5", dir);
    snprintf(out, sizeof out, "%s/rep", dir);
    mkdir(out, 0755);
    char *rep_argv[] = {"cowsim", "report", p, "-o", out, NULL};
    CS_CHECK_EQ_U64(cs_test_cli_quiet(5, rep_argv), 0);

    /* The design's values, independently of the report. */
    cs_errlist_t e = {0};
    cs_sweep_t *sw = NULL;
    snprintf(p, sizeof p, "%s/sweep.json", dir);
    CS_CHECK_EQ_U64(cs_sweep_load(p, &sw, &e), CS_OK);
    cs_errlist_free(&e);
    double want[13];
    size_t nw = 0;
    for (size_t i = 0; sw && i < cs_sweep_n_points(sw) && nw < 13; i++) want[nw++] = cs_sweep_point_value(sw, i, 1);
    CS_CHECK_EQ_U64(nw, 13);
    /* --point refused, each with its message: a value of max_fires_per_block
     * that two points share (the first two in point order), an unknown
     * parameter, a value no point has, an index past the points. */
    char h5[400], spec[128], msg[1200];
    snprintf(h5, sizeof h5, "%s/sw/sweep.h5", dir);
    size_t a = 0, b = 0;
    for (size_t i = 0; sw && i < 13 && !b; i++)
        for (size_t j = i + 1; j < 13 && !b; j++)
            if (cs_sweep_point_value(sw, i, 1) == cs_sweep_point_value(sw, j, 1)) a = i, b = j;
    CS_CHECK(b > 0); /* 13 integers in [2, 9]: two share a value */
    snprintf(spec, sizeof spec, "params.max_fires_per_block=%.0f", sw ? cs_sweep_point_value(sw, a, 1) : 0.0);
    snprintf(msg, sizeof msg,
             "cowsim report: --point %s: points %zu and %zu (at least) match; name every swept parameter\n", spec, a, b);
    point_refused(dir, h5, spec, msg);
    snprintf(msg, sizeof msg, "cowsim report: --point nope=1: not a swept parameter of %s\n", h5);
    point_refused(dir, h5, "nope=1", msg);
    snprintf(msg, sizeof msg, "cowsim report: --point params.max_fires_per_block=99: no point of %s matches\n", h5);
    point_refused(dir, h5, "params.max_fires_per_block=99", msg);
    snprintf(msg, sizeof msg, "cowsim report: --point 13: %s has no such point\n", h5);
    point_refused(dir, h5, "13", msg);
    qsort(want, nw, sizeof want[0], cmp_d);
    cs_sweep_free(sw);

    /* The scatter data file: a comment line, then one line per run. */
    snprintf(p, sizeof p, "%s/sweep_params_max_fires_per_block_m1.dat", out);
    FILE *f = fopen(p, "r");
    CS_CHECK(f != NULL);
    size_t n = 0;
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        char *end = NULL;
        double x = strtod(line, &end);
        if (n < nw && end != line && x == want[n]) cs_test_pass++;
        else {
            fprintf(stderr, "data line %zu: %s (want x = %.10g)\n", n, line, n < nw ? want[n] : (double)NAN);
            cs_test_failed(__FILE__, __LINE__, "scatter x", NULL);
        }
        n++;
    }
    if (f) fclose(f);
    CS_CHECK_EQ_U64(n, 13);
    /* report.md: the scatter form's caption and the design's path as the label. */
    snprintf(p, sizeof p, "%s/report.md", out);
    size_t mn = 0;
    unsigned char *md = cs_test_slurp(p, &mn);
    CS_CHECK(md && strstr((char *)md, "against swept params.max_fires_per_block: every run as a point (the other "
                                      "swept parameters take 13 combinations"));
    free(md);
    return cs_test_finish("report_sobol", dir);
}
