/*
 * test_steady.c -- steady-state figures of one long run (cs_steady.h,
 * analysis/README.md "Steady state") on a synthetic run file whose
 * transient is known: 2,000 blocks written with the real writer, the
 * backlog (pending) at 500 for the first 300 blocks and 100 + a
 * deterministic wiggle in [-11, 11] after them; every other series flat.
 * MSER-5 must cut at 300 within one batch (5 blocks) and name the backlog;
 * the means and 95 % batch-means intervals are recomputed here by hand
 * arithmetic (sums and the t quantile from a table); --burn-in and
 * --no-warmup cut exactly what they say; errors.
 */
#include "cs_error.h"
#include "cs_h5.h"
#include "cs_steady.h"
#include "cs_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { N = 2000, CP = 300 };

/* The wiggle: (7919 i) mod 23 - 11, a deterministic sequence in [-11, 11]. */
static double wiggle(int i) { return (double)((7919 * i) % 23) - 11.0; }
static double backlog(int i) { return i < CP ? 500.0 : 100.0 + wiggle(i); }

/* Write the synthetic run to path.  Returns 0 on success. */
static int write_run(const char *path)
{
    cs_h5_meta_t m = {0};
    m.cowsim_version = "test";
    m.git_commit = "test";
    m.scenario_json = "{\"name\": \"steady\"}";
    m.seed = 5;
    m.mechanism = "eip1559";
    m.sync_compress = 1;
    int err = 0;
    cs_h5_t *h = cs_h5_create(path, &m, &err);
    if (!h) return -1;
    static cs_h5_block_t b[N];
    memset(b, 0, sizeof b);
    for (int i = 0; i < N; i++) {
        b[i].height = 1 + (uint64_t)i;
        b[i].basefee_lane = cs_h5_money(7);
        b[i].utilisation = 0.5;
        b[i].fired = 10;
        b[i].pending = (uint64_t)backlog(i);
        b[i].burn = cs_h5_money(30); /* paid = 30 + 4 + 0 = 34 a block */
        b[i].tips = cs_h5_money(4);
    }
    int rc = cs_h5_append_blocks(h, b, N);
    /* Two fires a block, of values 3 and 4.625: welfare 7.625 a block. */
    static cs_h5_fire_t f[2 * N];
    memset(f, 0, sizeof f);
    for (int i = 0; i < 2 * N; i++) {
        f[i].height = 1 + (uint64_t)(i / 2);
        f[i].value = i % 2 ? 4.625 : 3.0;
    }
    if (rc == CS_OK) rc = cs_h5_append_fires(h, f, 2 * N);
    int rc2 = cs_h5_close(h, 1);
    return rc == CS_OK && rc2 == CS_OK ? 0 : -1;
}

/* Mean and 95 % batch-means interval of backlog(from .. N-1) by hand: k = 20
 * batches of floor((N - from) / 20) blocks, the remainder dropped at the
 * start; t(19, 0.975) = 2.093024054408263 (Student-t table: 2.093). */
static void hand_bm(int from, double *mean, double *lo, double *hi)
{
    int rest = N - from, bs = rest / 20, start = N - 20 * bs;
    double bm[20], s = 0, ss = 0;
    for (int j = 0; j < 20; j++) {
        double t = 0;
        for (int i = 0; i < bs; i++) t += backlog(start + j * bs + i);
        bm[j] = t / bs;
        s += bm[j];
    }
    double m = s / 20;
    for (int j = 0; j < 20; j++) ss += (bm[j] - m) * (bm[j] - m);
    double half = 2.093024054408263 * sqrt(ss / 19) / sqrt(20.0);
    *mean = m;
    *lo = m - half;
    *hi = m + half;
}

static int close_to(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1); }

/* The --no-warmup / --burn-in N options (cs_steady_arg): a decimal count
 * only (no sign, no suffix, not past 2^64 - 1), the option given once,
 * the index moved past the count; the series names by index. */
static void test_args(void)
{
    char *v[] = {"x", "--burn-in", "250", "--burn-in", "12x", "--burn-in", "-3", "--burn-in",
                 "99999999999999999999", "--no-warmup", "--burn-in"};
    int argc = (int)(sizeof v / sizeof *v), i = 1, mode = CS_STEADY_MSER5;
    uint64_t b = 7;
    CS_CHECK(cs_steady_arg(argc, v, &i, &mode, &b) == 1 && i == 2 && mode == CS_STEADY_BURNIN && b == 250);
    i = 1; /* a second option: refused */
    CS_CHECK(cs_steady_arg(argc, v, &i, &mode, &b) == 0 && i == 1 && b == 250);
    for (int at = 3; at <= 7; at += 2) {
        mode = CS_STEADY_MSER5;
        i = at;
        CS_CHECK(cs_steady_arg(argc, v, &i, &mode, &b) == 0 && i == at && mode == CS_STEADY_MSER5 && b == 250);
    }
    i = 9;
    CS_CHECK(cs_steady_arg(argc, v, &i, &mode, &b) == 1 && i == 9 && mode == CS_STEADY_WHOLE);
    mode = CS_STEADY_MSER5;
    i = 10; /* --burn-in without its count */
    CS_CHECK(cs_steady_arg(argc, v, &i, &mode, &b) == 0 && mode == CS_STEADY_MSER5);
    i = 0; /* not an option */
    CS_CHECK(cs_steady_arg(argc, v, &i, &mode, &b) == 0);
    CS_CHECK_STR(cs_steady_name(0), "basefee");
    CS_CHECK(cs_steady_name(-1) == NULL && cs_steady_name(CS_SS__COUNT) == NULL);
}

int main(void)
{
    test_args();
    char path[] = "/tmp/cs_test_steady_XXXXXX";
    int fd = mkstemp(path);
    CS_CHECK(fd >= 0);
    if (fd < 0) return cs_test_done("steady");
    close(fd);
    CS_CHECK(write_run(path) == 0);
    cs_steady_t s;
    char err[512];
    double m, lo, hi;

    /* MSER-5: the cut is the change point within one batch, set by backlog. */
    CS_CHECK_EQ_U64(cs_steady_compute(path, CS_STEADY_F_LANE_FEE, CS_STEADY_MSER5, 0, &s, err, sizeof err), CS_OK);
    printf("MSER-5 cut %llu (change point %d), set by %s\n", (unsigned long long)s.cut, CP,
           s.cut_by >= 0 ? cs_steady_name(s.cut_by) : "-");
    CS_CHECK(s.cut + 5 >= CP && s.cut <= CP + 5);
    CS_CHECK(s.cut_by == CS_SS_backlog);
    CS_CHECK(!s.at_limit);
    CS_CHECK_EQ_U64(s.blocks, N);
    /* Flat series cut nothing: MSER(0) = 0 is the first minimum. */
    CS_CHECK_EQ_U64(s.mser_cut[CS_SS_fires], 0);
    CS_CHECK_EQ_U64(s.mser_cut[CS_SS_basefee], 0);
    hand_bm((int)s.cut, &m, &lo, &hi);
    CS_CHECK(close_to(s.mean[CS_SS_backlog], m) && close_to(s.lo[CS_SS_backlog], lo) &&
             close_to(s.hi[CS_SS_backlog], hi));
    /* The steady backlog is 100 + the wiggle's mean, far from the whole-run 160. */
    CS_CHECK(fabs(s.mean[CS_SS_backlog] - 100.0) < 1.0);
    CS_CHECK_EQ_U64(s.used, (N - s.cut) / 20 * 20);
    /* Flat series: mean = the value, interval of width 0. */
    CS_CHECK(s.mean[CS_SS_fires] == 10 && s.lo[CS_SS_fires] == 10 && s.hi[CS_SS_fires] == 10);
    CS_CHECK(s.mean[CS_SS_utilisation] == 0.5 && s.mean[CS_SS_basefee] == 7 && s.mean[CS_SS_paid] == 34);
    /* No fires-all flag: no welfare series. */
    CS_CHECK(!s.present[CS_SS_welfare] && isnan(s.mean[CS_SS_welfare]));
    /* With it, per-block welfare is the sum of the block's fire values. */
    CS_CHECK_EQ_U64(cs_steady_compute(path, CS_STEADY_F_LANE_FEE | CS_STEADY_F_FIRES_ALL, CS_STEADY_MSER5, 0, &s, err,
                                      sizeof err),
                    CS_OK);
    CS_CHECK(s.present[CS_SS_welfare] && s.mean[CS_SS_welfare] == 7.625 && s.lo[CS_SS_welfare] == 7.625 &&
             s.hi[CS_SS_welfare] == 7.625);

    /* A stated burn-in of 100: the transient's last 200 blocks stay in. */
    CS_CHECK_EQ_U64(cs_steady_compute(path, CS_STEADY_F_LANE_FEE, CS_STEADY_BURNIN, 100, &s, err, sizeof err), CS_OK);
    CS_CHECK_EQ_U64(s.cut, 100);
    CS_CHECK(s.cut_by == -1);
    hand_bm(100, &m, &lo, &hi);
    CS_CHECK(close_to(s.mean[CS_SS_backlog], m) && close_to(s.lo[CS_SS_backlog], lo) &&
             close_to(s.hi[CS_SS_backlog], hi));
    /* 1,900 blocks = 20 x 95: 200 at 500, 1,700 at 100 + wiggle; mean near
     * (200 * 500 + 1700 * 100) / 1900 = 142.1. */
    CS_CHECK(fabs(s.mean[CS_SS_backlog] - 142.1) < 1.0);

    /* --no-warmup: the whole run, 2,000 = 20 x 100 blocks. */
    CS_CHECK_EQ_U64(cs_steady_compute(path, 0, CS_STEADY_WHOLE, 0, &s, err, sizeof err), CS_OK);
    CS_CHECK_EQ_U64(s.cut, 0);
    CS_CHECK_EQ_U64(s.used, N);
    hand_bm(0, &m, &lo, &hi);
    CS_CHECK(close_to(s.mean[CS_SS_backlog], m) && close_to(s.lo[CS_SS_backlog], lo));
    CS_CHECK(!s.present[CS_SS_basefee] && isnan(s.mean[CS_SS_basefee])); /* no lane fee flag */

    /* Errors: a burn-in that leaves nothing; a missing file names it. */
    CS_CHECK_EQ_U64(cs_steady_compute(path, 0, CS_STEADY_BURNIN, N, &s, err, sizeof err), CS_EINVAL);
    CS_CHECK(strstr(err, "burn-in of 2000 blocks") != NULL);
    CS_CHECK(cs_steady_compute("/nonexistent/x.h5", 0, CS_STEADY_MSER5, 0, &s, err, sizeof err) != CS_OK);
    CS_CHECK(strstr(err, "/nonexistent/x.h5") != NULL);
    unlink(path);
    return cs_test_done("steady");
}
