/*
 * test_report_runs.c -- report of three fifo runs (analysis/cs_report_runs.c,
 * cs_report_tables.c), in process: a/fifo.h5 and c/fifo.h5 of scenario ra
 * with seed 3 and b/fifo.h5 of scenario rb (9 blocks, not 8) with seed 4.
 * Labels must be unique (cs_report_int.h): the seed tells b apart, "fifo
 * seed 4"; a and c share mechanism, seed and file name, so they get the
 * shortest path tails that differ, "fifo [a/fifo.h5]" and "fifo
 * [c/fifo.h5]" (both were "fifo [fifo.h5]").  The title says several
 * scenarios, seeds and block counts, and --burn-in 2 is named as the
 * warm-up cut.  Stand-in gnuplot: tests/cs_fakegp.c (CS_FAKEGP) (issue 29).
 */
#include "cs_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void run(const char *sub, const char *name, int blocks, int seed)
{
    char scn[400], out[400], text[300];
    snprintf(scn, sizeof scn, "%s/%s.json", dir, sub);
    snprintf(out, sizeof out, "%s/%s", dir, sub);
    snprintf(text, sizeof text,
             "{\"name\": \"%s\", \"seed\": %d, \"blocks\": %d, \"mechanism\": \"fifo\", "
             "\"agents\": [{\"kind\": \"heartbeat\", \"count\": 2}]}\n",
             name, seed, blocks);
    CS_CHECK(cs_test_spit(scn, (const unsigned char *)text, strlen(text)) == 0);
    char *argv[] = {"cowsim", "run", scn, "-o", out, "--quiet", NULL};
    CS_CHECK_EQ_U64(cs_test_cli_quiet(6, argv), 0);
}

int main(void)
{
    setenv("COWSIM_H5_SANDBOX", "0", 1); /* files read in this process: no helper forked per file */
    snprintf(dir, sizeof dir, "%s/cs_report_runs_%d", cs_test_tmpdir(), (int)getpid());
    mkdir(dir, 0755);
    run("a", "ra", 8, 3);
    run("b", "rb", 9, 4);
    run("c", "ra", 8, 3);
    int gp_ok = cs_test_fake_gnuplot(dir);
    CS_CHECK(gp_ok == 0);
    if (gp_ok != 0) return cs_test_finish("report_runs", dir);
    char fa[300], fb[300], fc[300], rep[300], md[320];
    snprintf(fa, sizeof fa, "%s/a/fifo.h5", dir);
    snprintf(fb, sizeof fb, "%s/b/fifo.h5", dir);
    snprintf(fc, sizeof fc, "%s/c/fifo.h5", dir);
    snprintf(rep, sizeof rep, "%s/rep", dir);
    mkdir(rep, 0755);
    char *argv[] = {"cowsim", "report", fa, fb, fc, "-o", rep, "--burn-in", "2", NULL};
    CS_CHECK_EQ_U64(cs_test_cli_quiet(9, argv), 0);
    snprintf(md, sizeof md, "%s/report.md", rep);
    size_t n = 0;
    char *t = (char *)cs_test_slurp(md, &n);
    CS_CHECK(t != NULL);
    if (!t) return cs_test_finish("report_runs", dir);
    static const char *const want[] = {
        "# cowsim report: several scenarios\n",
        "- seed: several (see the Runs table)\n",
        "- blocks: several (see the Runs table)\n",
        "- mechanisms: fifo [a/fifo.h5], fifo seed 4, fifo [c/fifo.h5]\n",
        "| fifo [a/fifo.h5] | `",
        "| fifo seed 4 | `",
        "| fifo [c/fifo.h5] | `",
        "Warm-up removed by a stated burn-in (`--burn-in`)",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (strstr(t, want[i])) cs_test_pass++;
        else {
            fprintf(stderr, "report.md lacks: %s\n", want[i]);
            cs_test_failed(__FILE__, __LINE__, "report.md text", NULL);
        }
    }
    free(t);
    return cs_test_finish("report_runs", dir);
}
