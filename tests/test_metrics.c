/*
 * test_metrics.c -- analysis/cs_metrics.c against values computed by hand
 * from the definitions in analysis/README.md.
 *
 *  1. Statistics: Jain and Gini on hand vectors; J = 1 / (1 + CV^2) on
 *     random data (seed 20261121); quantiles against GSL's own function on
 *     high-entropy data; the bootstrap interval against the normal
 *     approximation and its degenerate cases.
 *  2. A hand-built run file ("tiny", eip1559, seed 11) written with the
 *     sim/cs_h5.h writer: 8 fires over 6 blocks, 12 timers of which 3 are
 *     censored, 6 actors, 2 weight samples.  Every metric is checked against
 *     the hand computation written next to it.
 *  3. efficiency_greedy: the same run against a hand-built greedy file
 *     (0.79), a greedy file against itself (1), mismatched greedy files (NaN
 *     with a note), an unreadable one (CS_EIO), a file made before the
 *     rename (mechanism 'oracle', oracle.h5: DESIGN-NOTES N42).
 *  4. Fallbacks: output.fires = off -> /summary quantiles and the root jain;
 *     an incomplete file; files that are missing or not run files.
 *  5. A real run through the engine (scenarios/minimal.json style, seed
 *     7): Jain equals the engine's, censored equals /summary's; and the
 *     greedy mechanism against itself has efficiency_greedy 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "cs_engine.h"
#include "cs_error.h"
#include "cs_h5.h"
#include "cs_mech.h"
#include "cs_metrics.h"
#include "cs_rng.h"
#include "cs_scenario.h"
#include "cs_test.h"

static char g_dir[256];

/* |a - b| <= tol, reported with both values. */
#define CHECK_NEAR(a, b, tol)                                                                 \
    do {                                                                                      \
        double cs__x = (a), cs__y = (b);                                                      \
        if (fabs(cs__x - cs__y) <= (tol)) cs_test_pass++;                                     \
        else {                                                                                \
            char cs__d[128];                                                                  \
            snprintf(cs__d, sizeof cs__d, "%.17g vs %.17g", cs__x, cs__y);                    \
            cs_test_failed(__FILE__, __LINE__, #a " ~ " #b, cs__d);                           \
        }                                                                                     \
    } while (0)

static double metric(const cs_metrics_t *m, const char *name)
{
    double v = -12345.0;
    if (cs_metrics_get(m, name, &v) != 0) return -12345.0;
    return v;
}

/* ------------------------------------------------------------ statistics */

static void test_stats(void)
{
    /* Jain: (sum x)^2 / (n sum x^2).  [1,1,1,1]: 16 / (4 * 4) = 1;
     * [1,0,0,0]: 1 / (4 * 1) = 0.25. */
    double ones[4] = {1, 1, 1, 1}, one[4] = {1, 0, 0, 0};
    CHECK_NEAR(cs_stat_jain(ones, 4), 1.0, 0);
    CHECK_NEAR(cs_stat_jain(one, 4), 0.25, 0);
    /* Gini: sum_ij |xi - xj| / (2 n^2 mean).  [1,1,1,1]: 0.
     * [1,0,0,0]: ordered pairs with a difference: 6 of |1| -> 6;
     * 2 * 16 * 0.25 = 8 -> 0.75. */
    CHECK_NEAR(cs_stat_gini(ones, 4), 0.0, 1e-15);
    CHECK_NEAR(cs_stat_gini(one, 4), 0.75, 1e-15);
    /* [2,2,1,1,2,0]: pairs (unordered) 2-1: 6 x 1, 2-0: 3 x 2, 1-0: 2 x 1
     * -> 14, ordered 28; 2 * 36 * (8/6) = 96 -> 7/24. */
    double g6[6] = {2, 2, 1, 1, 2, 0};
    CHECK_NEAR(cs_stat_gini(g6, 6), 7.0 / 24.0, 1e-15);
    CS_CHECK(isnan(cs_stat_jain(NULL, 0)));
    CS_CHECK(isnan(cs_stat_gini(ones, 0)));
    double zeros[3] = {0, 0, 0};
    CS_CHECK(isnan(cs_stat_jain(zeros, 3)));
    CS_CHECK(isnan(cs_stat_gini(zeros, 3)));

    /* J = 1 / (1 + CV^2), CV with the population variance, on random
     * lognormal-ish data from a PCG stream (seed 20261121). */
    gsl_rng *r = cs_rng_stream(20261121u, 3);
    for (int rep = 0; rep < 20; rep++) {
        size_t n = 5 + (size_t)gsl_rng_uniform_int(r, 500);
        double x[505], s = 0, ss = 0;
        for (size_t i = 0; i < n; i++) {
            x[i] = exp(3.0 * gsl_rng_uniform(r)) * 2.385;
            s += x[i];
        }
        double mu = s / (double)n;
        for (size_t i = 0; i < n; i++) ss += (x[i] - mu) * (x[i] - mu);
        double cv = sqrt(ss / (double)n) / mu;
        CHECK_NEAR(cs_stat_jain(x, n), 1.0 / (1.0 + cv * cv), 1e-12);
        /* Gini by the O(n^2) pair definition. */
        double pairs = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) pairs += fabs(x[i] - x[j]);
        CHECK_NEAR(cs_stat_gini(x, n), pairs / (2.0 * (double)n * (double)n * mu), 1e-12);
    }

    /* Quantiles: GSL's own function on a sorted copy of high-entropy data. */
    for (int rep = 0; rep < 20; rep++) {
        size_t n = 1 + (size_t)gsl_rng_uniform_int(r, 300);
        double x[301], y[301];
        for (size_t i = 0; i < n; i++) x[i] = y[i] = gsl_rng_uniform(r) * 2385.0 - 17.25;
        gsl_sort(y, 1, n);
        static const double qs[] = {0, 0.1, 0.37, 0.5, 0.95, 0.99, 1};
        for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
            double z[301];
            memcpy(z, x, n * sizeof *z);
            CHECK_NEAR(cs_stat_quantile(z, n, qs[k]), gsl_stats_quantile_from_sorted_data(y, 1, n, qs[k]), 0);
        }
    }
    /* By hand: [7.5, -2.25, 3.125, 10.0] sorted [-2.25, 3.125, 7.5, 10];
     * q = 0.5: (n-1)q = 1.5 -> 3.125 + 0.5 * 4.375 = 5.3125;
     * q = 0.9: 2.7 -> 7.5 + 0.7 * 2.5 = 9.25. */
    double h4[4] = {7.5, -2.25, 3.125, 10.0};
    CHECK_NEAR(cs_stat_quantile(h4, 4, 0.5), 5.3125, 1e-15);
    CHECK_NEAR(cs_stat_quantile(h4, 4, 0.9), 9.25, 1e-12);
    CS_CHECK(isnan(cs_stat_quantile(h4, 0, 0.5)));

    /* Bootstrap of the mean: for n = 400 uniform(0, 2.385) draws the 95%
     * interval is about mean -+ 1.96 sd / sqrt(n); with B = 4000 the
     * percentile bounds match that within 15% of the half-width. */
    double u[400], s = 0, ss = 0;
    for (int i = 0; i < 400; i++) {
        u[i] = gsl_rng_uniform(r) * 2.385;
        s += u[i];
    }
    double mu = s / 400.0;
    for (int i = 0; i < 400; i++) ss += (u[i] - mu) * (u[i] - mu);
    double half = 1.959964 * sqrt(ss / 400.0) / sqrt(400.0);
    double lo, hi, lo2, hi2;
    cs_stat_bootstrap_mean(u, 400, 4000, 0.95, 99, &lo, &hi);
    CHECK_NEAR(lo, mu - half, 0.15 * half);
    CHECK_NEAR(hi, mu + half, 0.15 * half);
    CS_CHECK(lo < mu && mu < hi);
    cs_stat_bootstrap_mean(u, 400, 4000, 0.95, 99, &lo2, &hi2);
    CS_CHECK(lo == lo2 && hi == hi2); /* same seed, same interval */
    cs_stat_bootstrap_mean(u, 400, 4000, 0.95, 100, &lo2, &hi2);
    CS_CHECK(lo != lo2 || hi != hi2); /* another seed, another resample */
    double c3[3] = {4.5, 4.5, 4.5};
    cs_stat_bootstrap_mean(c3, 3, 50, 0.9, 1, &lo, &hi);
    CS_CHECK(lo == 4.5 && hi == 4.5); /* constant data: degenerate interval */
    cs_stat_bootstrap_mean(c3, 0, 50, 0.9, 1, &lo, &hi);
    CS_CHECK(isnan(lo) && isnan(hi));
    cs_stat_bootstrap_mean(c3, 3, 0, 0.9, 1, &lo, &hi);
    CS_CHECK(isnan(lo) && isnan(hi));
    gsl_rng_free(r);
}

/* ------------------------------------------------------------ hand-built files */

static cs_h5_t *open_file(const char *path, const char *mech, uint64_t seed, const char *scenario)
{
    cs_h5_meta_t meta;
    memset(&meta, 0, sizeof meta);
    meta.cowsim_version = "test";
    meta.git_commit = "test";
    meta.scenario_json = scenario;
    meta.seed = seed;
    meta.mechanism = mech;
    meta.sync_compress = 1;
    int err = 0;
    cs_h5_t *h = cs_h5_create(path, &meta, &err);
    CS_CHECK(h != NULL);
    return h;
}

static cs_h5_fire_t fire(uint64_t h, uint32_t actor, uint32_t agent, int kind, uint64_t due, uint64_t cycles,
                         uint64_t paid, double value)
{
    cs_h5_fire_t f;
    memset(&f, 0, sizeof f);
    f.height = h;
    f.timer_id = h * 1000 + actor;
    f.actor = actor;
    f.agent = agent;
    f.kind = (uint32_t)kind;
    f.due_height = due;
    f.delay = (uint32_t)(h - due);
    f.cycles = cycles;
    f.gas_limit = cycles * 2;
    f.paid = cs_h5_money(paid);
    f.value = value;
    return f;
}

static cs_h5_timer_t timer(uint32_t actor, uint32_t agent, int kind, int outcome, uint32_t fires)
{
    cs_h5_timer_t t;
    memset(&t, 0, sizeof t);
    t.timer_id = 77u * actor + (uint64_t)outcome * 5u + fires;
    t.actor = actor;
    t.agent = agent;
    t.kind = (uint32_t)kind;
    t.outcome = (uint32_t)outcome;
    t.fires = fires;
    return t;
}

static cs_h5_actor_t actor(uint32_t a, uint32_t agent, int kind, uint64_t fires, uint64_t sched, double value,
                           uint64_t paid)
{
    cs_h5_actor_t r;
    memset(&r, 0, sizeof r);
    r.actor = a;
    r.agent = agent;
    r.kind = (uint32_t)kind;
    r.deployer = agent;
    r.fires = fires;
    r.scheduled = sched;
    r.value = value;
    r.paid = cs_h5_money(paid);
    return r;
}

enum { DG = CS_AGENT_KIND_DEFAULT_GBA, FR = CS_AGENT_KIND_FRAGMENTER, SP = CS_AGENT_KIND_SPAMMER,
       OR = CS_AGENT_KIND_ORACLE };

/*
 * The "tiny" run (see the header comment).  Actors: a0, a1 default_gba
 * (agents 0, 1); a2, a3 fragmenter (one instance, agent 2); a4 spammer
 * (agent 3); a5 oracle-kind (agent 4, never fires).
 *
 *   fire  h  actor kind  due delay cycles paid  paid/cycle value
 *   F1    1  a0    DG    1   0     100    1000  10         5000
 *   F2    2  a1    DG    1   1     200    2400  12         4000
 *   F3    2  a2    FR    2   0     100    1500  15         3000
 *   F4    4  a0    DG    2   2     100    1200  12         2000
 *   F5    4  a3    FR    1   3     50     800   16         1000
 *   F6    5  a4    SP    5   0     100    900   9          100
 *   F7    6  a4    SP    1   5     100    1100  11         100
 *   F8    6  a1    DG    3   3     10     200   20         600
 */
static void write_tiny(const char *path, int fires_off, int complete, int with_proposer)
{
    cs_h5_t *h = open_file(path, "eip1559", 11, "{\"name\": \"tiny\", \"seed\": 11}");
    if (!h) return;
    if (fires_off) CS_CHECK_EQ_U64(cs_h5_set_fires_mode(h, CS_H5_FIRES_OFF, 0), CS_OK);
    /* Blocks: basefee_lane, utilisation, fired, burn, tips, payments. */
    static const uint64_t bf[6] = {100, 112, 98, 98, 110, 90};
    static const double ut[6] = {0.25, 0.96, 0.0, 0.5, 0.125, 0.95};
    static const uint32_t fired[6] = {1, 2, 0, 2, 1, 2};
    static const uint64_t burn[6] = {800, 3000, 0, 1600, 700, 1000};
    static const uint64_t tips[6] = {200, 900, 0, 400, 200, 300};
    static const uint64_t pay[6] = {0, 0, 0, 0, 50, 0};
    /* CIP-5 §9.3 slack (NaN: no deferred candidate). */
    const double slack[6] = {(double)NAN, 2.385, -1.5, (double)NAN, -4.25, 0.0};
    cs_h5_block_t b[6];
    memset(b, 0, sizeof b);
    for (int i = 0; i < 6; i++) {
        b[i].height = (uint64_t)i + 1;
        b[i].bias_slack = slack[i];
        b[i].basefee_lane = cs_h5_money(bf[i]);
        b[i].utilisation = ut[i];
        b[i].fired = fired[i];
        b[i].burn = cs_h5_money(burn[i]);
        b[i].tips = cs_h5_money(tips[i]);
        b[i].payments = cs_h5_money(pay[i]);
    }
    CS_CHECK_EQ_U64(cs_h5_append_blocks(h, b, 6), CS_OK);
    cs_h5_fire_t f[8] = {
        fire(1, 0, 0, DG, 1, 100, 1000, 5000), fire(2, 1, 1, DG, 1, 200, 2400, 4000),
        fire(2, 2, 2, FR, 2, 100, 1500, 3000), fire(4, 0, 0, DG, 2, 100, 1200, 2000),
        fire(4, 3, 2, FR, 1, 50, 800, 1000),   fire(5, 4, 3, SP, 5, 100, 900, 100),
        fire(6, 4, 3, SP, 1, 100, 1100, 100),  fire(6, 1, 1, DG, 3, 10, 200, 600),
    };
    CS_CHECK_EQ_U64(cs_h5_append_fires(h, f, 8), CS_OK);
    /* Timers: 7 fired one-shots, a3's interval timer pending after 1 fire
     * (not censored), a5 pending with no fire, a0 expired, a4 insufficient
     * (censored: 3), a1 cancelled (not censored). */
    cs_h5_timer_t t[12] = {
        timer(0, 0, DG, CS_H5_OUTCOME_FIRED, 1),        timer(1, 1, DG, CS_H5_OUTCOME_FIRED, 1),
        timer(2, 2, FR, CS_H5_OUTCOME_FIRED, 1),        timer(0, 0, DG, CS_H5_OUTCOME_FIRED, 1),
        timer(4, 3, SP, CS_H5_OUTCOME_FIRED, 1),        timer(4, 3, SP, CS_H5_OUTCOME_FIRED, 1),
        timer(1, 1, DG, CS_H5_OUTCOME_FIRED, 1),        timer(3, 2, FR, CS_H5_OUTCOME_PENDING, 1),
        timer(5, 4, OR, CS_H5_OUTCOME_PENDING, 0),      timer(0, 0, DG, CS_H5_OUTCOME_EXPIRED, 0),
        timer(4, 3, SP, CS_H5_OUTCOME_INSUFFICIENT, 0), timer(1, 1, DG, CS_H5_OUTCOME_CANCELLED, 0),
    };
    CS_CHECK_EQ_U64(cs_h5_append_timers(h, t, 12), CS_OK);
    /* Actors: fires, scheduled, value, paid (sums of the fires above). */
    cs_h5_actor_t a[6] = {
        actor(0, 0, DG, 2, 3, 7000, 2200), actor(1, 1, DG, 2, 3, 4600, 2600), actor(2, 2, FR, 1, 1, 3000, 1500),
        actor(3, 2, FR, 1, 1, 1000, 800),  actor(4, 3, SP, 2, 3, 200, 2000),  actor(5, 4, OR, 0, 1, 0, 0),
    };
    CS_CHECK_EQ_U64(cs_h5_append_actors(h, a, 6), CS_OK);
    /* Weights: height 6 written before height 3 (the reader must group). */
    cs_h5_weight_t w[7] = {
        {6, 0, 1000000, 0, 0}, {6, 2, 1600000, 0, 0}, {6, 1, 1000000, 0, 0}, {3, 3, 1250000, 0, 0},
        {3, 0, 1000000, 0, 0}, {3, 2, 2000000, 0, 0}, {3, 1, 1500000, 0, 0},
    };
    CS_CHECK_EQ_U64(cs_h5_append_weights(h, w, 7), CS_OK);
    /* Summary (used only by the fires = off fallback): all and default_gba. */
    cs_h5_summary_t s[2];
    memset(s, 0, sizeof s);
    s[0].kind = CS_AGENT_KIND_ALL;
    s[0].fires = 8;
    s[0].delay_p50 = 1;
    s[0].delay_p95 = 5;
    s[0].delay_p99 = 5;
    s[0].delay_max = 5;
    s[1].kind = DG;
    s[1].fires = 4;
    s[1].delay_p50 = 1;
    s[1].delay_p99 = 3;
    s[1].delay_max = 3;
    CS_CHECK_EQ_U64(cs_h5_append_summary(h, s, 2), CS_OK);
    if (fires_off) CS_CHECK_EQ_U64(cs_h5_attr_f64(h, "jain", 0.777), CS_OK);
    if (with_proposer) CS_CHECK_EQ_U64(cs_h5_attr_f64(h, "proposer", 1234.5), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_close(h, complete), CS_OK);
}

/* A greedy-mechanism file (or `mech`) of the given scenario and seed whose
 * actors hold `welfare` in value. */
static void write_greedy(const char *path, const char *mech, uint64_t seed, const char *scen, double welfare)
{
    cs_h5_t *h = open_file(path, mech, seed, scen);
    if (!h) return;
    cs_h5_block_t b[6];
    memset(b, 0, sizeof b);
    for (int i = 0; i < 6; i++) b[i].height = (uint64_t)i + 1;
    CS_CHECK_EQ_U64(cs_h5_append_blocks(h, b, 6), CS_OK);
    cs_h5_actor_t a[2] = {actor(0, 0, DG, 3, 3, welfare * 0.25, 0), actor(1, 1, DG, 3, 3, welfare * 0.75, 0)};
    CS_CHECK_EQ_U64(cs_h5_append_actors(h, a, 2), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_close(h, 1), CS_OK);
}

static void test_tiny(void)
{
    char p[512], err[1024];
    snprintf(p, sizeof p, "%s/tiny.h5", g_dir);
    write_tiny(p, 0, 1, 0);
    cs_metrics_t m;
    int rc = cs_metrics_compute(p, NULL, &m, err, sizeof err);
    CS_CHECK_EQ_U64(rc, CS_OK);
    if (rc != CS_OK) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CS_CHECK_STR(m.mechanism, "eip1559");
    CS_CHECK_STR(m.scenario, "tiny");
    CS_CHECK_EQ_U64(m.seed, 11);
    CS_CHECK_EQ_U64(m.delay_src, CS_METRICS_SRC_FIRES);
    /* The hand-made file has no optimum columns (they read as 0): the
     * optimum is not computed, and the note says why. */
    CS_CHECK(strstr(m.note, "welfare_opt not computed: the file has no /blocks.lane_budget") == m.note);
    CS_CHECK(isnan(metric(&m, "welfare_opt")) && m.opt_method == -1);

    /* Counts: 6 blocks; timers = sum scheduled = 3+3+1+1+3+1 = 12; fires 8;
     * censored = a5 pending + a0 expired + a4 insufficient = 3. */
    CHECK_NEAR(metric(&m, "blocks"), 6, 0);
    CHECK_NEAR(metric(&m, "complete"), 1, 0);
    CHECK_NEAR(metric(&m, "timers"), 12, 0);
    CHECK_NEAR(metric(&m, "fires"), 8, 0);
    CHECK_NEAR(metric(&m, "censored"), 3, 0);
    /* Delays [0,1,0,2,3,0,5,3] sorted 0,0,0,1,2,3,3,5; GSL (n-1)q = 7q:
     * p50 3.5 -> 1 + 0.5 * 1 = 1.5; p95 6.65 -> 3 + 0.65 * 2 = 4.3;
     * p99 6.93 -> 3 + 0.93 * 2 = 4.86; max 5. */
    CHECK_NEAR(metric(&m, "delay_p50"), 1.5, 1e-12);
    CHECK_NEAR(metric(&m, "delay_p95"), 4.3, 1e-12);
    CHECK_NEAR(metric(&m, "delay_p99"), 4.86, 1e-12);
    CHECK_NEAR(metric(&m, "delay_max"), 5, 0);
    /* Per kind.  default_gba delays [0,1,2,3]: p50 1.5, p99 2 + 0.97 = 2.97,
     * max 3; fragmenter [0,3]: p50 1.5, p99 0.99 * 3 = 2.97, max 3;
     * spammer [0,5]: p50 2.5, p99 4.95, max 5; oracle kind: no fire. */
    CHECK_NEAR(metric(&m, "delay_p50.default_gba"), 1.5, 1e-12);
    CHECK_NEAR(metric(&m, "delay_p99.default_gba"), 2.97, 1e-12);
    CHECK_NEAR(metric(&m, "delay_max.default_gba"), 3, 0);
    CHECK_NEAR(metric(&m, "delay_p50.fragmenter"), 1.5, 1e-12);
    CHECK_NEAR(metric(&m, "delay_p99.fragmenter"), 2.97, 1e-12);
    CHECK_NEAR(metric(&m, "delay_p99.spammer"), 4.95, 1e-12);
    CHECK_NEAR(metric(&m, "delay_max.spammer"), 5, 0);
    CS_CHECK(isnan(metric(&m, "delay_p99.oracle")));
    /* Censored per kind: default_gba 1 (a0 expired; a1's cancel is not),
     * spammer 1, oracle 1, fragmenter 0 (a3's pending timer fired once). */
    CHECK_NEAR(metric(&m, "censored.default_gba"), 1, 0);
    CHECK_NEAR(metric(&m, "censored.spammer"), 1, 0);
    CHECK_NEAR(metric(&m, "censored.oracle"), 1, 0);
    CHECK_NEAR(metric(&m, "censored.fragmenter"), 0, 0);
    CHECK_NEAR(metric(&m, "fires.default_gba"), 4, 0);
    CHECK_NEAR(metric(&m, "fires.oracle"), 0, 0);

    /* Revenue: burn 800+3000+1600+700+1000 = 7100; tips 200+900+400+200+300
     * = 2000; payments 50; no root "proposer" -> tips + payments = 2050. */
    CHECK_NEAR(metric(&m, "burn"), 7100, 0);
    CHECK_NEAR(metric(&m, "tips"), 2000, 0);
    CHECK_NEAR(metric(&m, "payments"), 50, 0);
    CHECK_NEAR(metric(&m, "revenue_proposer"), 2050, 0);
    /* Welfare 7000+4600+3000+1000+200 = 15800; paid 2200+2600+1500+800+2000
     * = 9100; utility 6700.  Per kind: default_gba paid 4800, utility 11600
     * - 4800 = 6800; spammer utility 200 - 2000 = -1800. */
    CHECK_NEAR(metric(&m, "welfare"), 15800, 0);
    CHECK_NEAR(metric(&m, "paid"), 9100, 0);
    CHECK_NEAR(metric(&m, "utility"), 6700, 0);
    CHECK_NEAR(metric(&m, "paid.default_gba"), 4800, 0);
    CHECK_NEAR(metric(&m, "utility.default_gba"), 6800, 0);
    CHECK_NEAR(metric(&m, "utility.spammer"), -1800, 0);
    CHECK_NEAR(metric(&m, "utility.fragmenter"), 1700, 0);
    CS_CHECK(isnan(metric(&m, "efficiency")) && isnan(metric(&m, "poa")));

    /* Jain over every actor with a due timer, x_i = served share / (1 +
     * mean delay_i), starved timers = never fired and pending, expired or
     * dropped (all due by their end here): a0 2 fires + 1 expired ->
     * (2/3)/(1+1) = 1/3, a1 1/3 (its cancel does not count), a2 1, a3 1/4,
     * a4 2 fires + 1 insufficient -> (2/3)/(1+2.5) = 4/21, a5 starved 0.
     * Sum = (28+28+84+21+16)/84 = 177/84, sum of squares =
     * (784+784+7056+441+256)/7056 = 9321/7056 -> J = 177^2 / (6 * 9321)
     * = 31329/55926 = 3481/6214. */
    CHECK_NEAR(metric(&m, "jain"), 3481.0 / 6214.0, 1e-14);
    /* Gini over fires of actors that scheduled: [2,2,1,1,2,0] -> 7/24. */
    CHECK_NEAR(metric(&m, "gini"), 7.0 / 24.0, 1e-14);
    /* CIP-5 §9.6 over every actor with a due timer (N43), eip1559: bid_i =
     * paid per fire b = [1100, 1300, 1500, 800, 1000] for a0..a4; u_i =
     * (value - paid) / (fires + starved) = [4800/3, 2000/2, 1500, 200,
     * -1800/3] = [1600, 1000, 1500, 200, -600]; r = u/b = [16/11, 10/13, 1,
     * 1/4, -3/5]; a5 starved under a fee mechanism: r = 0.  Population
     * variance of the six = 5405381/11778624 ~ 0.458914 (exact fractions).
     * efficiency_i = x_i of jain [1/3, 1/3, 1, 1/4, 4/21]; q_i = x_i * bbar /
     * b_i with bbar = 5700/5 = 1140 over a0..a4, a5 q = 0: variance
     * 396147667199/7695367680000 ~ 0.0514787. */
    {
        double r[6] = {16.0 / 11, 10.0 / 13, 1.0, 0.25, -0.6, 0};
        double x[5] = {1.0 / 3, 1.0 / 3, 1.0, 0.25, 4.0 / 21}, bb[5] = {1100, 1300, 1500, 800, 1000};
        double q[6] = {0}, mr = 0, mq = 0, vr = 0, vq = 0;
        for (int i = 0; i < 5; i++) q[i] = x[i] * 1140.0 / bb[i];
        for (int i = 0; i < 6; i++) {
            mr += r[i] / 6;
            mq += q[i] / 6;
        }
        for (int i = 0; i < 6; i++) {
            vr += (r[i] - mr) * (r[i] - mr) / 6;
            vq += (q[i] - mq) * (q[i] - mq) / 6;
        }
        CHECK_NEAR(vr, 5405381.0 / 11778624.0, 1e-15);
        CHECK_NEAR(vq, 396147667199.0 / 7695367680000.0, 1e-15);
        CHECK_NEAR(metric(&m, "var_util_per_bid"), vr, 1e-12);
        CHECK_NEAR(metric(&m, "var_eff_per_bid"), vq, 1e-12);
    }
    /* W: height 3 sorted [1, 1.25, 1.5, 2], (n-1)q = 3q: p10 0.3 -> 1.075,
     * p50 1.5 -> 1.375, p90 2.7 -> 1.5 + 0.7 * 0.5 = 1.85; height 6
     * [1, 1, 1.6], 2q: p10 1, p50 1, p90 1.8 -> 1 + 0.8 * 0.6 = 1.48.
     * Averages 1.0375, 1.1875, 1.665. */
    CHECK_NEAR(metric(&m, "w_p10"), 1.0375, 1e-12);
    CHECK_NEAR(metric(&m, "w_p50"), 1.1875, 1e-12);
    CHECK_NEAR(metric(&m, "w_p90"), 1.665, 1e-12);
    /* Stability: basefee [100,112,98,98,110,90], mean 608/6; population
     * variance (61952 - 608^2/6)/6 = 512/9 -> cv = sqrt(512)/3 / (304/3)
     * = sqrt(512)/304.  util mean (0.25+0.96+0+0.5+0.125+0.95)/6 =
     * 2.785/6; full (>= 0.95): 2 of 6; empty (fired == 0): 1 of 6. */
    CHECK_NEAR(metric(&m, "basefee_mean"), 608.0 / 6.0, 1e-12);
    CHECK_NEAR(metric(&m, "basefee_cv"), sqrt(512.0) / 304.0, 1e-14);
    CHECK_NEAR(metric(&m, "util_mean"), 2.785 / 6.0, 1e-14);
    CHECK_NEAR(metric(&m, "full_share"), 2.0 / 6.0, 1e-15);
    CHECK_NEAR(metric(&m, "empty_share"), 1.0 / 6.0, 1e-15);
    /* Clearing prices (min paid/cycle per height with fires): h1 10,
     * h2 min(12, 15) = 12, h4 min(12, 16) = 12, h5 9, h6 min(11, 20) = 11;
     * differences +2, 0, -3, +2; zeros dropped: + - + -> 2 reversals. */
    CHECK_NEAR(metric(&m, "reversals"), 2, 0);
    /* Attack gain, per agent instance s = fires / max(paid, 1):
     * honest (default_gba agents 0, 1): (2/2200 + 2/2600)/2 = 6/7150;
     * attackers: fragmenter agent 2 (a2+a3) 2/2300, spammer agent 3
     * 2/2000 -> mean 43/46000; gain = (43/46000)/(6/7150) = 307450/276000. */
    CHECK_NEAR(metric(&m, "svc_per_paid.default_gba"), 6.0 / 7150.0, 1e-18);
    CHECK_NEAR(metric(&m, "svc_per_paid.fragmenter"), 2.0 / 2300.0, 1e-18);
    CHECK_NEAR(metric(&m, "svc_per_paid.spammer"), 0.001, 1e-18);
    CHECK_NEAR(metric(&m, "svc_per_paid.oracle"), 0, 0);
    CHECK_NEAR(metric(&m, "attack_gain"), 307450.0 / 276000.0, 1e-12);
    /* §9.3: slacks 2.385, -1.5, -4.25, 0 (two NaN rows left out): 2 of 4
     * below 0; deficit (1.5 + 4.25) / 4 = 1.4375. */
    CHECK_NEAR(metric(&m, "bias_slack_violated"), 0.5, 0);
    CHECK_NEAR(metric(&m, "bias_slack_deficit"), 1.4375, 1e-15);
    CS_CHECK_STR(m.lambda_loop, ""); /* no root lambda_loop in this file */

    /* Flat access: 4 kinds present (default_gba 0, oracle 3, spammer 6,
     * fragmenter 7), in kind order after the run-level metrics. */
    CS_CHECK_EQ_U64(cs_metrics_n(&m), CS_M__COUNT + 4 * CS_KM__COUNT);
    char buf[96];
    CS_CHECK_STR(cs_metrics_name(&m, 0, buf, sizeof buf), "blocks");
    CS_CHECK_STR(cs_metrics_name(&m, CS_M_attack_gain, buf, sizeof buf), "attack_gain");
    CS_CHECK_STR(cs_metrics_name(&m, CS_M__COUNT, buf, sizeof buf), "fires.default_gba");
    CS_CHECK_STR(cs_metrics_name(&m, CS_M__COUNT + CS_KM__COUNT, buf, sizeof buf), "fires.oracle");
    CS_CHECK_STR(cs_metrics_name(&m, CS_M__COUNT + 3 * CS_KM__COUNT + CS_KM_delay_p99, buf, sizeof buf),
                 "delay_p99.fragmenter");
    CS_CHECK_STR(cs_metrics_name(&m, CS_M__COUNT + 4 * CS_KM__COUNT, buf, sizeof buf), "");
    CHECK_NEAR(cs_metrics_value(&m, CS_M__COUNT + 2 * CS_KM__COUNT + CS_KM_delay_p50), 2.5, 1e-12);
    double v;
    CS_CHECK(cs_metrics_get(&m, "bogus", &v) == -1);
    CS_CHECK(cs_metrics_get(&m, "delay_p99.bogus", &v) == -1);
    CS_CHECK(cs_metrics_get(&m, "jain.default_gba", &v) == -1);
    CS_CHECK(cs_metrics_get(&m, "delay_p99.", &v) == -1);
    CS_CHECK(cs_metrics_get(&m, "delay_p99.heartbeat", &v) == 0 && isnan(v)); /* valid, absent kind */
    CS_CHECK(cs_metrics_doc("jain") != NULL && cs_metrics_doc("delay_p99.heartbeat") != NULL);
    CS_CHECK(cs_metrics_doc("nope") == NULL);

    /* Root "proposer" (the ledger total) wins over tips + payments. */
    snprintf(p, sizeof p, "%s/tiny_prop.h5", g_dir);
    write_tiny(p, 0, 1, 1);
    CS_CHECK_EQ_U64(cs_metrics_compute(p, NULL, &m, err, sizeof err), CS_OK);
    CHECK_NEAR(metric(&m, "revenue_proposer"), 1234.5, 0);
}

static void test_greedy(void)
{
    char p[512], o[512], o2[512], o3[512], err[1024];
    snprintf(p, sizeof p, "%s/tiny.h5", g_dir);
    snprintf(o, sizeof o, "%s/greedy_ok.h5", g_dir);
    write_greedy(o, "greedy", 11, "{\"name\": \"tiny\"}", 20000);
    cs_metrics_t m;
    /* efficiency_greedy = 15800 / 20000 = 0.79 (efficiency and poa use the
     * optimum, which this hand-made file cannot give). */
    CS_CHECK_EQ_U64(cs_metrics_compute(p, o, &m, err, sizeof err), CS_OK);
    CHECK_NEAR(metric(&m, "efficiency_greedy"), 0.79, 1e-15);
    CS_CHECK(isnan(metric(&m, "efficiency")) && isnan(metric(&m, "poa")));
    CS_CHECK(m.has_greedy == 1);
    /* The greedy run against itself: welfare 20000 / 20000 = 1 exactly. */
    CS_CHECK_EQ_U64(cs_metrics_compute(o, o, &m, err, sizeof err), CS_OK);
    CS_CHECK(metric(&m, "efficiency_greedy") == 1.0);
    /* Its /blocks.bias_slack reads 0 in every row (as in files written
     * before the column): no §9.3 figures. */
    CS_CHECK(isnan(metric(&m, "bias_slack_violated")) && isnan(metric(&m, "bias_slack_deficit")));
    /* A file written before the rename names the mechanism 'oracle': it is
     * still the greedy reference (N42), 15800 / 25000 = 0.632. */
    snprintf(o2, sizeof o2, "%s/greedy_old.h5", g_dir);
    write_greedy(o2, "oracle", 11, "{\"name\": \"tiny\"}", 25000);
    CS_CHECK_EQ_U64(cs_metrics_compute(p, o2, &m, err, sizeof err), CS_OK);
    CS_CHECK(m.has_greedy == 1);
    CHECK_NEAR(metric(&m, "efficiency_greedy"), 0.632, 1e-15);
    /* Another seed, or not a greedy run: NaN and a note naming the file. */
    snprintf(o2, sizeof o2, "%s/greedy_seed.h5", g_dir);
    write_greedy(o2, "greedy", 12, "{\"name\": \"tiny\"}", 20000);
    CS_CHECK_EQ_U64(cs_metrics_compute(p, o2, &m, err, sizeof err), CS_OK);
    CS_CHECK(isnan(metric(&m, "efficiency_greedy")) && m.has_greedy == 0 && strstr(m.note, "greedy_seed.h5"));
    snprintf(o3, sizeof o3, "%s/greedy_mech.h5", g_dir);
    write_greedy(o3, "fifo", 11, "{\"name\": \"tiny\"}", 20000);
    CS_CHECK_EQ_U64(cs_metrics_compute(p, o3, &m, err, sizeof err), CS_OK);
    CS_CHECK(isnan(metric(&m, "efficiency_greedy")) && strstr(m.note, "not 'greedy'"));
    /* A greedy path that cannot be read is an I/O error naming it. */
    snprintf(o3, sizeof o3, "%s/missing_greedy.h5", g_dir);
    CS_CHECK_EQ_U64(cs_metrics_compute(p, o3, &m, err, sizeof err), CS_EIO);
    CS_CHECK(strstr(err, "missing_greedy.h5") != NULL);
    /* cs_metrics_find_greedy: greedy.h5 beside the run, else a pre-rename
     * oracle.h5, else nothing. */
    char buf[600];
    CS_CHECK(cs_metrics_find_greedy(p, buf, sizeof buf) == NULL);
    char oo[512], og[512];
    snprintf(oo, sizeof oo, "%s/oracle.h5", g_dir);
    write_greedy(oo, "oracle", 11, "{\"name\": \"tiny\"}", 31600);
    CS_CHECK(cs_metrics_find_greedy(p, buf, sizeof buf) != NULL && strcmp(buf, oo) == 0);
    CS_CHECK_EQ_U64(cs_metrics_compute(p, buf, &m, err, sizeof err), CS_OK);
    CHECK_NEAR(metric(&m, "efficiency_greedy"), 0.5, 1e-15); /* 15800 / 31600 */
    snprintf(og, sizeof og, "%s/greedy.h5", g_dir);
    write_greedy(og, "greedy", 11, "{\"name\": \"tiny\"}", 39500);
    CS_CHECK(cs_metrics_find_greedy(p, buf, sizeof buf) != NULL && strcmp(buf, og) == 0);
    CS_CHECK_EQ_U64(cs_metrics_compute(p, buf, &m, err, sizeof err), CS_OK);
    CHECK_NEAR(metric(&m, "efficiency_greedy"), 0.4, 1e-15); /* 15800 / 39500 */
    remove(oo);
    remove(og);
}

static void test_fallbacks(void)
{
    char p[512], err[1024];
    cs_metrics_t m;
    /* fires = off: /fires is empty; delays come from /summary, jain from the
     * root attribute, the /fires-only metrics are NaN, and the note says so. */
    snprintf(p, sizeof p, "%s/tiny_off.h5", g_dir);
    write_tiny(p, 1, 1, 0);
    CS_CHECK_EQ_U64(cs_metrics_compute(p, NULL, &m, err, sizeof err), CS_OK);
    CS_CHECK_EQ_U64(m.fires_mode, CS_H5_FIRES_OFF);
    CS_CHECK_EQ_U64(m.delay_src, CS_METRICS_SRC_SUMMARY);
    CHECK_NEAR(metric(&m, "delay_p50"), 1, 0);
    CHECK_NEAR(metric(&m, "delay_p95"), 5, 0);
    CHECK_NEAR(metric(&m, "delay_p99.default_gba"), 3, 0);
    CS_CHECK(isnan(metric(&m, "delay_p99.spammer"))); /* no summary row */
    CHECK_NEAR(metric(&m, "jain"), 0.777, 0);
    CS_CHECK(isnan(metric(&m, "reversals")) && isnan(metric(&m, "var_util_per_bid")));
    CHECK_NEAR(metric(&m, "fires"), 8, 0);          /* /actors still complete */
    CHECK_NEAR(metric(&m, "gini"), 7.0 / 24.0, 1e-14); /* from /actors */
    CHECK_NEAR(metric(&m, "censored"), 3, 0);
    CS_CHECK(strstr(m.note, "summary") != NULL);
    /* An incomplete run is computed, flagged, and noted. */
    snprintf(p, sizeof p, "%s/tiny_inc.h5", g_dir);
    write_tiny(p, 0, 0, 0);
    CS_CHECK_EQ_U64(cs_metrics_compute(p, NULL, &m, err, sizeof err), CS_OK);
    CHECK_NEAR(metric(&m, "complete"), 0, 0);
    CHECK_NEAR(metric(&m, "welfare"), 15800, 0);
    CS_CHECK(strstr(m.note, "incomplete") != NULL);
    /* Missing file: CS_EIO naming the path; a text file: CS_EPARSE. */
    snprintf(p, sizeof p, "%s/nope.h5", g_dir);
    CS_CHECK_EQ_U64(cs_metrics_compute(p, NULL, &m, err, sizeof err), CS_EIO);
    CS_CHECK(strstr(err, "nope.h5") != NULL);
    snprintf(p, sizeof p, "%s/text.h5", g_dir);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs("not hdf5\n", f);
        fclose(f);
    }
    CS_CHECK_EQ_U64(cs_metrics_compute(p, NULL, &m, err, sizeof err), CS_EPARSE);
    CS_CHECK(strstr(err, "text.h5") != NULL);
    CS_CHECK_EQ_U64(cs_metrics_compute(NULL, NULL, &m, err, sizeof err), CS_EINVAL);
}

/* ------------------------------------------------------------ engine runs */

/* Run the scenario text under mech into path; returns 0 on success and the
 * engine's Jain and all-kind censored count. */
static int run_engine(const char *text, const char *mech, const char *path, double *jain, uint64_t *cens)
{
    cs_run_stats_t st;
    if (cs_test_run_text(text, mech, path, &st) != 0) return -1;
    *jain = st.jain;
    *cens = st.kind[CS_AK__COUNT].censored;
    return 0;
}

static void test_engine(void)
{
    /* A small congested run: 600 blocks, default_gba users and a storm,
     * lane budget 400k cycles so timers wait (seed 7). */
    static const char *scen =
        "{\"name\": \"metrics-e2e\", \"seed\": 7, \"blocks\": 600, \"mechanism\": \"eip1559\","
        " \"params\": {\"lane_timer_cycles\": 400000, \"fairness_window\": 100},"
        " \"agents\": [{\"kind\": \"default_gba\", \"count\": 6, \"params\": {\"rate\": 1.3, \"ttl\": 40}},"
        "  {\"kind\": \"spammer\", \"count\": 1, \"params\": {\"start\": 200, \"burst\": 300, \"actors\": 3,"
        "   \"ttl\": 30}}],"
        " \"output\": {\"weights_every\": 50}}";
    char p[512], err[1024];
    snprintf(p, sizeof p, "%s/e2e_eip1559.h5", g_dir);
    double jain = 0;
    uint64_t cens = 0;
    CS_CHECK(run_engine(scen, "eip1559", p, &jain, &cens) == 0);
    cs_metrics_t m;
    CS_CHECK_EQ_U64(cs_metrics_compute(p, NULL, &m, err, sizeof err), CS_OK);
    /* The engine's Jain uses the same definition and summation order. */
    CHECK_NEAR(metric(&m, "jain"), jain, 1e-12);
    /* The engine counts pending never-fired timers as censored; the metric
     * adds expired and dropped ones, so it is at least as large. */
    CS_CHECK(metric(&m, "censored") >= (double)cens);
    CS_CHECK(metric(&m, "fires") > 1000 && metric(&m, "delay_p99") > 0);
    CS_CHECK(metric(&m, "w_p90") >= metric(&m, "w_p50") && metric(&m, "w_p50") >= metric(&m, "w_p10"));
    CS_CHECK(metric(&m, "w_p10") >= 1.0 && metric(&m, "w_p90") <= 2.0); /* CIP-1 rev §8: W in [1, 2] */

    char o[512];
    snprintf(o, sizeof o, "%s/e2e_greedy.h5", g_dir);
    CS_CHECK(run_engine(scen, "greedy", o, &jain, &cens) == 0);
    CS_CHECK_EQ_U64(cs_metrics_compute(o, o, &m, err, sizeof err), CS_OK);
    CS_CHECK(metric(&m, "efficiency_greedy") == 1.0);
    /* Its /blocks.bias_slack reads 0 in every row (as in files written
     * before the column): no §9.3 figures. */
    CS_CHECK(isnan(metric(&m, "bias_slack_violated")) && isnan(metric(&m, "bias_slack_deficit")));
    CS_CHECK_EQ_U64(cs_metrics_compute(p, o, &m, err, sizeof err), CS_OK);
    CS_CHECK(m.has_greedy == 1 && metric(&m, "efficiency_greedy") > 0);
    /* Real engine files carry the optimum's columns: welfare <= welfare_opt,
     * efficiency = welfare / welfare_opt, poa its inverse. */
    CS_CHECK(m.opt_method >= 0 && metric(&m, "welfare") <= metric(&m, "welfare_opt") * (1 + 1e-9));
    CHECK_NEAR(metric(&m, "efficiency") * metric(&m, "poa"), 1.0, 1e-12);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/cs_metrics_test.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_stats();
    test_tiny();
    test_greedy();
    test_fallbacks();
    test_engine();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
    return cs_test_done("metrics");
}
