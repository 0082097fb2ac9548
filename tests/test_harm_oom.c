/*
 * test_harm_oom.c -- analysis/cs_harm.h out of memory, in process: the
 * pair of runs of tests/data/harm/spam-fifo.json (`run --harm`, made once
 * here) is compared, summarised, written and loaded with every allocation
 * of ours failing in turn (tests/cs_allocwrap.h).  Each failure must come
 * back as CS_ENOMEM with "out of memory" in the message and nothing of
 * ours left allocated (a failure reading fires_mode once passed for a run
 * without every fire, CS_EPARSE; one in harm_summary for a write error);
 * the calls in which nothing fails must give the row tests/test_harm.sh
 * computes by hand (2 honest heartbeats, 10 fires each way, mean delay 1.8
 * blocks with the spammer and 0 without, welfare 1.928e9 and 2e9).
 * (issue 29: coverage of analysis/.)
 */
#define CS__SET_BITS 14
#include "cs_allocwrap.h"

#include "cs_cli.h"
#include "cs_harm.h"
#include "cs_test.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1); }

/* The hand-computed row (tests/test_harm.sh). */
static int row_ok(const cs_harm_t *h)
{
    return strcmp(h->mechanism, "fifo-capped") == 0 && h->seed == 5 && h->honest == 2 && h->paired == 2 &&
           h->fires[0] == 10 && h->fires[1] == 10 && near(h->delay_mean[0], 1.8) && near(h->delay_mean[1], 0) &&
           near(h->welfare[0], 1.928e9) && near(h->welfare[1], 2e9) && near(h->d_delay, 1.8);
}

/* A failure's outcome: CS_ENOMEM (or want_rc), "out of memory" in err,
 * nothing live.  Counts the failure. */
static void failed_ok(int rc, int want_rc, const char *err, const char *what, uint64_t k, long *fails)
{
    (*fails)++;
    size_t live = cs_aw_live();
    int ok = rc == want_rc && strstr(err, "out of memory") != NULL && live == 0;
    if (ok) cs_test_pass++;
    else {
        fprintf(stderr, "%s: allocation %llu failing (caller +0x%lx): rc %d, '%s', %zu left\n", what,
                (unsigned long long)k, (unsigned long)cs_aw_fail_caller(), rc, err, live);
        cs_test_failed(__FILE__, __LINE__, what, NULL);
    }
}

int main(void)
{
    setenv("COWSIM_H5_SANDBOX", "0", 1); /* read in this process: its allocations are the ones failed */
    snprintf(dir, sizeof dir, "%s/cs_harm_oom_%d", cs_test_tmpdir(), (int)getpid());
    mkdir(dir, 0755);
    const char *src = getenv("CS_SRC");
    char scn[512], with[400], without[420], out[400], err[9000];
    snprintf(scn, sizeof scn, "%s/tests/data/harm/spam-fifo.json", src ? src : ".");
    char *argv[] = {"cowsim", "run", scn, "-o", dir, "--harm", "--quiet", NULL};
    int rc = cs_test_cli_quiet(7, argv);
    CS_CHECK_EQ_U64(rc, 0);
    snprintf(with, sizeof with, "%s/fifo-capped.h5", dir);
    CS_CHECK(cs_harm_pair_path(with, without, sizeof without) != NULL);
    snprintf(out, sizeof out, "%s/harm2.h5", dir);

    /* Compare. */
    cs_harm_t h, h0;
    memset(&h0, 0, sizeof h0);
    long fails = 0;
    for (uint64_t k = 1; k < 10000; k++) {
        err[0] = '\0';
        cs_aw_reset(k);
        memset(&h, 0, sizeof h);
        rc = cs_harm_compute(with, without, &h, err, sizeof err);
        if (!cs_aw_failed()) {
            CS_CHECK_EQ_U64(rc, CS_OK);
            CS_CHECK(row_ok(&h));
            h0 = h;
            break;
        }
        failed_ok(rc, CS_ENOMEM, err, "cs_harm_compute", k, &fails);
    }
    printf("harm_oom: cs_harm_compute: %ld allocations failed in turn\n", fails);
    CS_CHECK(fails >= 4);

    /* Summarise two seeds' rows (the same row under seeds 5 and 6). */
    cs_harm_t two[2] = {h0, h0};
    two[1].seed = 6;
    cs_harm_sum_t *sum = NULL;
    size_t nsum = 0;
    fails = 0;
    for (uint64_t k = 1; k < 10000; k++) {
        err[0] = '\0';
        cs_aw_reset(k);
        rc = cs_harm_summarize(two, 2, &sum, &nsum, err, sizeof err);
        if (!cs_aw_failed()) {
            CS_CHECK_EQ_U64(rc, CS_OK);
            /* Two equal seeds: the mean delay with the spammer is 1.8, its interval [1.8, 1.8]. */
            CS_CHECK(nsum == 1 && sum && sum[0].seeds == 2 && near(sum[0].ci[CS_HARM_DELAY_MEAN][CS_HARM_WITH].mean, 1.8));
            break;
        }
        failed_ok(rc, CS_ENOMEM, err, "cs_harm_summarize", k, &fails);
        free(sum);
        sum = NULL;
    }
    printf("harm_oom: cs_harm_summarize: %ld allocations failed in turn\n", fails);
    CS_CHECK(fails >= 1);

    /* Write (CS_EIO on any failure, the message says out of memory); then
     * load what was written back. */
    fails = 0;
    for (uint64_t k = 1; k < 10000; k++) {
        err[0] = '\0';
        cs_aw_reset(k);
        rc = cs_harm_write(out, two, 2, sum, nsum, err, sizeof err);
        if (!cs_aw_failed()) {
            CS_CHECK_EQ_U64(rc, CS_OK);
            break;
        }
        failed_ok(rc, CS_ENOMEM, err, "cs_harm_write", k, &fails);
        CS_CHECK(access(out, F_OK) != 0); /* nothing published */
    }
    printf("harm_oom: cs_harm_write: %ld allocations failed in turn\n", fails);
    CS_CHECK(fails >= 1);
    cs_aw_reset(0);
    free(sum);

    char *paths[1] = {with};
    cs_harm_t *loaded = NULL;
    fails = 0;
    for (uint64_t k = 1; k < 10000; k++) {
        err[0] = '\0';
        cs_aw_reset(k);
        rc = cs_harm_load(paths, 1, &loaded, err, sizeof err);
        if (!cs_aw_failed()) {
            CS_CHECK_EQ_U64(rc, CS_OK);
            CS_CHECK(loaded && row_ok(&loaded[0]));
            break;
        }
        failed_ok(rc, CS_ENOMEM, err, "cs_harm_load", k, &fails);
        free(loaded);
        loaded = NULL;
    }
    printf("harm_oom: cs_harm_load: %ld allocations failed in turn\n", fails);
    CS_CHECK(fails >= 4);
    cs_aw_reset(0);
    free(loaded);
    return cs_test_finish("harm_oom", dir);
}
