/*
 * test_oom.c -- out of memory in process, in the economic code: every
 * allocation of a mechanism's open and first clearings, of the statistics
 * (batch means, BCa bootstrap, paired intervals) and of the welfare
 * optimum (ILP and Lagrangian), of the metrics and the steady-state
 * figures of a small run file with its greedy run, and of a scheduler's five blocks (HEIGHT, WATCH and
 * INTERVAL timers with payloads, a key write) is made to fail in turn (tests/
 * cs_allocwrap.h, no fork), and each failure must come back as CS_ENOMEM
 * (never as a result, never silently absorbed), with every allocation
 * made so far freed and, where the header promises it, NaN outputs.  The
 * run in which no allocation fails must give the values computed by hand
 * in the comments (SQLite's habit, STYLE.md: every error path on purpose).
 */
#define CS__SET_BITS 14 /* a few hundred live allocations at most */
#include "cs_allocwrap.h"

#include "cs_h5.h"
#include "cs_fees.h"
#include "cs_mech.h"
#include "cs_metrics.h"
#include "cs_optimum.h"
#include "cs_params.h"
#include "cs_sched.h"
#include "cs_stats.h"
#include "cs_steady.h"
#include "cs_test.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#define NC 130 /* candidates: above 64, so the keyed (radix) sorts run */

/* Candidates of one clearing: cycles 1,000 each (budget 50,000 holds 50),
 * bids, fees and balances far above any price, distinct ids. */
static void cands(cs_cand_t *c, size_t n)
{
    memset(c, 0, n * sizeof *c);
    for (size_t i = 0; i < n; i++) {
        c[i].slot = (uint32_t)i;
        c[i].target = (uint32_t)(i % 7);
        c[i].ident = (uint32_t)(i % 7);
        c[i].due_height = 10;
        c[i].sched_height = 1 + i % 5;
        c[i].fifo_rank = i;
        c[i].id.b[0] = (uint8_t)(i * 37);
        c[i].id.b[1] = (uint8_t)i;
        c[i].cycles = 1000;
        c[i].bid = 5000 + 13 * (cs_u128)((i * 29) % NC); /* distinct: 29 is prime to 130 */
        c[i].max_fee = 1000000 + 7 * (cs_u128)i;
        c[i].max_prio = 100 + (cs_u128)((i * 31) % NC);
        c[i].balance = (cs_u128)1 << 60;
        c[i].weight = 1000000;
    }
}

/* One mechanism: open, two clearings (the second reuses the workspace),
 * end of block, close.  Returns the first error; *fired the winners of
 * the last clearing; *in_eob 1 when the allocation that failed was one of
 * an end_block hook's (which returns nothing: gba-tip documents that it
 * then keeps the old weights, mech_gbatip.c). */
static int mech_run(const cs_mech_ops_t *ops, const cs_params_t *p, cs_cand_t *c, uint32_t *fired,
                    int *in_eob)
{
    cs_mech_t m;
    cs_clear_ctx_t ctx = {p, 10, 1, 0, 0, 50000};
    cs_clear_out_t out;
    *fired = 0;
    *in_eob = 0;
    int rc = cs_mech_open(&m, ops, p);
    if (rc != CS_OK) return rc;
    for (int b = 0; b < 2 && rc == CS_OK; b++) {
        cands(c, NC);
        ctx.height = 10 + (uint64_t)b;
        rc = cs_mech_clear(&m, &ctx, c, NC, &out);
        if (rc != CS_OK) break;
        int before = cs_aw_failed();
        cs_mech_end_block(&m, &ctx, c, NC, &out);
        if (!before && cs_aw_failed()) *in_eob = 1;
    }
    if (rc == CS_OK) *fired = out.fired;
    cs_mech_close(&m);
    return rc;
}

static void test_mechanisms(void)
{
    static cs_cand_t c[NC];
    cs_params_t p;
    cs_params_default(&p);
    for (size_t r = 0; cs_mech_registry[r] != NULL; r++) {
        const cs_mech_ops_t *ops = cs_mech_registry[r];
        uint32_t fired = 0;
        int rc = CS_OK, bad = 0, in_eob = 0;
        uint64_t k;
        for (k = 1; k < 1000; k++) {
            cs_aw_reset(k);
            rc = mech_run(ops, &p, c, &fired, &in_eob);
            int failed = cs_aw_failed();
            size_t live = cs_aw_live();
            if (!failed) break;
            if ((rc != CS_ENOMEM && !(rc == CS_OK && in_eob)) || live != 0) {
                if (!bad++)
                    fprintf(stderr, "oom: %s: allocation %llu failed -> rc %d, %zu blocks leaked\n",
                            ops->name, (unsigned long long)k, rc, live);
            }
        }
        cs_aw_reset(0);
        CS_CHECK(k > 1); /* every mechanism allocates its workspace */
        CS_CHECK_EQ_U64(bad, 0);
        CS_CHECK_EQ_U64(rc, CS_OK);
        /* Without failures: 130 candidates of 1,000 cycles under a budget of
         * 50,000 -- every mechanism that faces the budget fires 50; the
         * unbounded fifo reference fires all 130. */
        uint32_t want = (ops->flags & CS_MF_BUDGET) ? 50 : NC;
        if (want != fired) fprintf(stderr, "oom: %s fired %u, expected %u\n", ops->name, fired, want);
        CS_CHECK_EQ_U64(fired, want);
    }
}

/* A mechanism whose init allocates, then fails: cs_mech_open must run
 * its fini (which frees that) and free the state, leaving m zeroed. */
static int g_fini_calls;
typedef struct { void *buf; } fake_state_t;
static int fake_init(void *state, const cs_params_t *p)
{
    (void)p;
    ((fake_state_t *)state)->buf = malloc(64);
    return CS_ERANGE;
}
static int fake_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n, cs_clear_out_t *out)
{
    (void)state, (void)ctx, (void)c, (void)n;
    out->fired = 7;
    return CS_OK;
}
static void fake_fini(void *state)
{
    g_fini_calls++;
    free(((fake_state_t *)state)->buf);
}
static const cs_mech_ops_t fake_ops = {.name = "fake", .version = 1, .state_size = sizeof(fake_state_t), .init = fake_init, .clear = fake_clear, .fini = fake_fini};
static const cs_mech_ops_t fake_noclear = {.name = "fake", .version = 1};
static const cs_mech_ops_t fake_plain = {.name = "fake", .version = 1, .clear = fake_clear};

static void test_mech_open_close(void)
{
    cs_params_t p;
    cs_params_default(&p);
    cs_mech_t m;
    memset(&m, 0x5a, sizeof m);
    cs_aw_reset(0);
    CS_CHECK_EQ_U64(cs_mech_open(&m, &fake_ops, &p), CS_ERANGE); /* init's error, as is */
    CS_CHECK(g_fini_calls == 1 && m.state == NULL && m.ops == NULL);
    CS_CHECK_EQ_U64(cs_aw_live(), 0);
    CS_CHECK_EQ_U64(cs_mech_open(&m, &fake_noclear, &p), CS_EINVAL); /* clear is required */
    CS_CHECK_EQ_U64(cs_mech_open(&m, NULL, &p), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_mech_open(&m, &fake_plain, NULL), CS_EINVAL);
    /* no init, no fini, state_size 0: one byte of state; clear zeroes *out
     * before the hook; bad arguments are refused before it */
    CS_CHECK_EQ_U64(cs_mech_open(&m, &fake_plain, &p), CS_OK);
    cs_clear_ctx_t ctx = {&p, 1, 0, 0, 0, 100};
    cs_clear_out_t out;
    memset(&out, 0xff, sizeof out);
    cs_cand_t c[1];
    memset(c, 0, sizeof c);
    CS_CHECK(cs_mech_clear(&m, &ctx, c, 1, &out) == CS_OK && out.fired == 7 && out.cycles_used == 0 &&
             out.payments == 0);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, NULL, 1, &out), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, NULL, c, 1, &out), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 1, NULL), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, (size_t)UINT32_MAX + 1, &out), CS_EINVAL);
    cs_mech_end_block(&m, &ctx, c, 1, &out); /* no hook: nothing */
    cs_mech_close(&m);
    CS_CHECK(m.state == NULL && m.ops == NULL);
    cs_mech_close(&m); /* closed twice: safe */
    cs_mech_close(NULL);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 1, &out), CS_EINVAL); /* closed */
    CS_CHECK_EQ_U64(cs_aw_live(), 0);
}

/* t_{2, 0.975} = 0.95 sqrt(2 / (4 * 0.975 * 0.025)) (the closed form for two
 * degrees of freedom) and t_{10, 0.975} (the regularised incomplete beta
 * inverted with mpmath at 30 digits). */
#define T2_975 4.302652729749464
#define T10_975 2.22813885198627475

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

static void test_stats(void)
{
    double x[12], y[12], mean = 0, lo = 0, hi = 0;
    for (int i = 0; i < 12; i++) {
        x[i] = i + 1;               /* 1..12 */
        y[i] = (i + 1) * (i % 3);   /* 0, 2, 6, 0, 5, 12, 0, 8, 18, 0, 11, 24 */
    }
    /* batch means of 1..12 in 3 batches: 2.5, 6.5, 10.5; mean 6.5, s = 4,
     * half width t_{2,.975} * 4 / sqrt(3). */
    int fails = 0, rc = CS_OK;
    for (uint64_t k = 1; k < 50; k++) {
        cs_aw_reset(k);
        rc = cs_stat_batch_means(x, 12, 3, 0.95, &mean, &lo, &hi);
        if (!cs_aw_failed()) break;
        fails++;
        CS_CHECK_EQ_U64(rc, CS_ENOMEM);
        CS_CHECK(isnan(mean) && isnan(lo) && isnan(hi));
        CS_CHECK_EQ_U64(cs_aw_live(), 0);
    }
    CS_CHECK_EQ_U64(fails, 1);
    CS_CHECK(rc == CS_OK && near(mean, 6.5) && near(hi - mean, T2_975 * 4 / sqrt(3.0)) &&
             near(mean - lo, T2_975 * 4 / sqrt(3.0)));

    /* BCa of twelve equal values: [3.25, 3.25] (cs_stats.h); any
     * allocation failing: ENOMEM and lo = hi = NaN. */
    double e[12];
    for (int i = 0; i < 12; i++) e[i] = 3.25;
    fails = 0;
    for (uint64_t k = 1; k < 50; k++) {
        cs_aw_reset(k);
        lo = hi = 0;
        rc = cs_stat_bca_mean(x, 12, 200, 0.9, 7, &lo, &hi);
        if (!cs_aw_failed()) break;
        fails++;
        CS_CHECK(rc == CS_ENOMEM && isnan(lo) && isnan(hi));
        CS_CHECK_EQ_U64(cs_aw_live(), 0);
    }
    CS_CHECK(fails >= 1);
    /* the resample means of 1..12 lie in [1, 12] around 6.5 */
    CS_CHECK(rc == CS_OK && lo > 1 && lo < 6.5 && hi > 6.5 && hi < 12);
    cs_aw_reset(0);
    CS_CHECK(cs_stat_bca_mean(e, 12, 200, 0.9, 7, &lo, &hi) == CS_OK && lo == 3.25 && hi == 3.25);

    /* cs_stat_ci drops NaN: x with x[3] = NaN has 11 values summing 74,
     * mean 74/11; cs_stat_paired of (x, y) over the same 11 pairs. */
    cs_stat_ci_t ci;
    double xn[12];
    memcpy(xn, x, sizeof xn);
    xn[3] = NAN;
    fails = 0;
    for (uint64_t k = 1; k < 50; k++) {
        cs_aw_reset(k);
        rc = cs_stat_ci(xn, 12, 0.95, 3, &ci);
        if (!cs_aw_failed()) break;
        fails++;
        CS_CHECK_EQ_U64(rc, CS_ENOMEM);
        CS_CHECK_EQ_U64(cs_aw_live(), 0);
    }
    CS_CHECK(fails >= 2); /* the finite values, then the bootstrap */
    CS_CHECK(rc == CS_OK && ci.n == 11 && near(ci.mean, 74.0 / 11));
    /* d = x - y over i != 3: 1, 0, -3, -6, 7, 0, -9, 10, 0, -12 and 0
     * (74 - 86 = -12), mean -12/11. */
    fails = 0;
    for (uint64_t k = 1; k < 50; k++) {
        cs_aw_reset(k);
        memset(&ci, 0, sizeof ci);
        rc = cs_stat_paired(xn, y, 12, 0.95, 3, &ci);
        if (!cs_aw_failed()) break;
        fails++;
        CS_CHECK_EQ_U64(rc, CS_ENOMEM);
        CS_CHECK_EQ_U64(cs_aw_live(), 0);
    }
    CS_CHECK(fails >= 2);
    CS_CHECK(rc == CS_OK && ci.n == 11 && near(ci.mean, -12.0 / 11));
    /* its t half width: t_{10} times the sample sd of the 11 differences
     * (computed below) over sqrt(11) */
    double d[11], s = 0, ss = 0;
    for (int i = 0, j = 0; i < 12; i++)
        if (i != 3) d[j++] = x[i] - y[i];
    for (int j = 0; j < 11; j++) s += d[j];
    for (int j = 0; j < 11; j++) ss += (d[j] - s / 11) * (d[j] - s / 11);
    CS_CHECK(near(ci.t_hi - ci.mean, T10_975 * sqrt(ss / 10) / sqrt(11.0)));
    cs_aw_reset(0);
}

/* The optimum of the issue 29 example: two blocks of budget 100, jobs
 * (gas 100, value 10) and (gas 60, value 3), both due at 0 and allowed in
 * both blocks, no decay: one block each, welfare 13. */
static void test_optimum(void)
{
    cs_opt_job_t j[2] = {{0, 1, 100, 1, 10, 0, 0, 0}, {0, 1, 60, 2, 3, 0, 0, 0}};
    cs_opt_block_t b[2] = {{100, UINT64_MAX, 0, 0}, {100, UINT64_MAX, 0, 0}};
    cs_opt_problem_t p = {j, 2, 0, b, 2, 0};
    cs_opt_limits_t lim[2] = {{5000, 20000, 1000}, {0, 0, 1000}}; /* ILP; Lagrangian */
    int want_method[2] = {CS_OPT_ILP, CS_OPT_LAGRANGE};
    for (int l = 0; l < 2; l++) {
        cs_opt_result_t r;
        char err[160];
        int fails = 0, rc = CS_OK;
        for (uint64_t k = 1; k < 100; k++) {
            cs_aw_reset(k);
            err[0] = '\0';
            rc = cs_opt_solve(&p, &lim[l], &r, err, sizeof err);
            if (!cs_aw_failed()) break;
            fails++;
            CS_CHECK_EQ_U64(rc, CS_ENOMEM);
            CS_CHECK_EQ_U64(cs_aw_live(), 0);
        }
        cs_aw_reset(0);
        CS_CHECK(fails >= 1);
        CS_CHECK_EQ_U64(rc, CS_OK);
        CS_CHECK_EQ_U64(r.method, want_method[l]);
        /* exact for the ILP; the Lagrangian bound can be no lower than 13
         * and no higher than every job at its best height, 13 */
        CS_CHECK(near(r.welfare, 13));
    }
}

/* Schedule one timer of kind (HEIGHT due at `at`, INTERVAL from `at`
 * every 2, WATCH on k1 and k2) for actor `tag` with a payload. */
static int sched_one(cs_sched_t *s, uint8_t tag, uint8_t kind, uint64_t at)
{
    static const uint8_t *keys[2] = {(const uint8_t *)"k1", (const uint8_t *)"k2"};
    static const size_t lens[2] = {2, 2};
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = cs_test_addr(0x0e, tag);
    a.kind = kind;
    a.height = at;
    a.every_blocks = 2;
    a.payload = (const uint8_t *)"payload of 19 bytes";
    a.payload_len = 19;
    if (kind == CS_KIND_WATCH) {
        a.watch_keys = keys;
        a.watch_key_lens = lens;
        a.n_watch = 2;
    }
    return cs_sched_schedule(s, &a, NULL, NULL);
}

/* The scheduler's script: alloc (eip1559), fund two actors, block 1
 * schedules a HEIGHT timer due at 3, a WATCH on k1/k2 and an INTERVAL
 * from 2 every 2; block 2 writes k1; blocks 3-5 are empty.  Stops at the
 * first error (returned); *fired the fires so far, *inv the invariant
 * check's result after the stop (cs_sched_check_invariants). */
static int sched_script(uint64_t *fired, int *inv)
{
    cs_params_t p;
    cs_params_default(&p);
    cs_sched_t *s = NULL;
    cs_block_result_t r;
    *fired = 0;
    *inv = CS_OK;
    int rc = cs_sched_alloc(&s, &p, "eip1559", 0);
    for (uint8_t t = 1; t <= 2 && rc == CS_OK; t++) {
        cs_addr_t a = cs_test_addr(0x0e, t);
        rc = cs_sched_fund(s, &a, (cs_u128)1000000000000000000ull);
    }
    for (uint64_t h = 1; h <= 5 && rc == CS_OK; h++) {
        rc = cs_sched_begin_block(s, h);
        if (rc == CS_OK && h <= 2) {
            rc = cs_sched_tx_begin(s);
            if (rc == CS_OK && h == 1) rc = sched_one(s, 1, CS_KIND_HEIGHT, 3);
            if (rc == CS_OK && h == 1) rc = sched_one(s, 2, CS_KIND_WATCH, 0);
            if (rc == CS_OK && h == 1) rc = sched_one(s, 1, CS_KIND_INTERVAL, 2);
            if (rc == CS_OK && h == 2) rc = cs_sched_write_key(s, (const uint8_t *)"k1", 2);
            if (rc == CS_OK) rc = cs_sched_tx_commit(s);
            else cs_sched_tx_rollback(s);
        }
        if (rc == CS_OK) rc = cs_sched_end_block(s, &r);
        if (rc == CS_OK) *fired += r.st.fired;
    }
    if (s != NULL && rc != CS_ENOMEM) {
        char msg[256];
        *inv = cs_sched_check_invariants(s, msg, sizeof msg);
    }
    cs_sched_free(s);
    return rc;
}

/* Every allocation of the script failing in turn: the operation that met
 * it returns CS_ENOMEM and the scheduler frees everything -- except one
 * failure end_block absorbs, pinned here so that a new one is noticed:
 * the pre-charge memo of cs__fees_precharge (a cache: settlement computes
 * the charge again).  A mailbox entry cs_sched_mailbox_put cannot store
 * (the delivery is still made, but a second materialization would no
 * longer be recognised) makes end_block return CS_ENOMEM; it used to be
 * absorbed too (2 here before).  The failure-free script
 * fires the INTERVAL at 2 and 4, the WATCH at 2 (k1 written) and the
 * HEIGHT timer at 3: 4 fires, and its invariants hold. */
static void test_sched(void)
{
    uint64_t fired = 0;
    int inv = CS_OK, rc = CS_OK, fails = 0, bad = 0, absorbed = 0;
    for (uint64_t k = 1; k < 5000; k++) {
        cs_aw_reset(k);
        rc = sched_script(&fired, &inv);
        if (!cs_aw_failed()) break;
        fails++;
        if (rc == CS_OK && inv == CS_OK && cs_aw_live() == 0) {
            absorbed++;
            continue;
        }
        if ((rc != CS_ENOMEM || cs_aw_live() != 0) && bad++ < 9)
            fprintf(stderr, "oom: sched: allocation %llu (caller +%#lx) failed -> %s, %zu blocks leaked\n",
                    (unsigned long long)k, (unsigned long)cs_aw_fail_caller(), cs_strerror(rc), cs_aw_live());
    }
    cs_aw_reset(0);
    CS_CHECK(fails > 10);
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(absorbed, 1);
    CS_CHECK_EQ_U64(rc, CS_OK);
    CS_CHECK_EQ_U64(inv, CS_OK);
    CS_CHECK_EQ_U64(fired, 4);
    /* a queue configuration cs_queue_alloc refuses stays an invalid argument */
    cs_params_t p;
    cs_params_default(&p);
    p.epochs = 0;
    cs_sched_t *s = (cs_sched_t *)&p;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, "fifo", 0), CS_EINVAL);
    CS_CHECK(s == NULL);
    CS_CHECK_EQ_U64(cs_aw_live(), 0);
}

/* A small run (blocks blocks of six default_gba users, seed 5) under mech
 * into path; 0 on success. */
static int run_file(const char *mech, int blocks, const char *path)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"name\": \"oom-metrics\", \"seed\": 5, \"blocks\": %d, \"mechanism\": \"%s\","
             " \"params\": {\"lane_timer_cycles\": 300000},"
             " \"agents\": [{\"kind\": \"default_gba\", \"count\": 6, \"params\": {\"rate\": 1.3}}]}",
             blocks, mech);
    return cs_test_run_text(text, mech, path, NULL);
}

/* The metrics of a run with its greedy run: every allocation of
 * cs_metrics_compute (the run, the greedy run, the optimum) failing in
 * turn gives CS_ENOMEM with "out of memory" in the message and frees
 * everything (the HDF5 sandbox's forked checks are off: the failures must
 * happen in this process); the greedy run is five blocks shorter, so the note says the
 * horizons differ and efficiency_greedy = welfare / the greedy welfare. */
static void test_metrics(void)
{
    char dir[256], run[300], gr[300], err[600];
    snprintf(dir, sizeof dir, "%s/cs_oom_test.XXXXXX", cs_test_tmpdir());
    if (!mkdtemp(dir)) {
        CS_CHECK(0);
        return;
    }
    snprintf(run, sizeof run, "%s/run.h5", dir);
    snprintf(gr, sizeof gr, "%s/greedy.h5", dir);
    cs_aw_reset(0);
    CS_CHECK(run_file("eip1559", 30, run) == 0);
    CS_CHECK(run_file("greedy", 25, gr) == 0);
    static cs_metrics_t m, mg;
    cs_h5_set_sandbox(0); /* read here: the failures must be this process's */
    CS_CHECK_EQ_U64(cs_metrics_compute(gr, NULL, &mg, err, sizeof err), CS_OK);
    int fails = 0, bad = 0, rc = CS_OK;
    for (uint64_t k = 1; k < 20000; k++) {
        cs_aw_reset(k);
        err[0] = '\0';
        rc = cs_metrics_compute(run, gr, &m, err, sizeof err);
        if (!cs_aw_failed()) break;
        fails++;
        if ((rc != CS_ENOMEM || strstr(err, "out of memory") == NULL || cs_aw_live() != 0) && !bad++)
            fprintf(stderr, "oom: metrics: allocation %llu failed -> rc %d, %zu blocks leaked: %s\n",
                    (unsigned long long)k, rc, cs_aw_live(), err);
    }
    cs_aw_reset(0);
    CS_CHECK(fails > 10);
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(rc, CS_OK);
    if (rc != CS_OK) fprintf(stderr, "oom: metrics: %s\n", err);
    CS_CHECK(strstr(m.note, "greedy run has 25 blocks, this run 30") != NULL);
    CS_CHECK(m.has_greedy == 1 && mg.v[CS_M_welfare] > 0 &&
             m.v[CS_M_efficiency_greedy] == m.v[CS_M_welfare] / mg.v[CS_M_welfare]);

    /* The steady-state figures of the 30-block run, likewise; then the
     * header's rule for the blocks the means cover: the last 20 x
     * floor((30 - cut) / 20), or all 30 - cut when fewer than 20 remain. */
    static cs_steady_t ss;
    int flags = CS_STEADY_F_FIRES_ALL | CS_STEADY_F_LANE_FEE;
    fails = 0, bad = 0;
    for (uint64_t k = 1; k < 5000; k++) {
        cs_aw_reset(k);
        err[0] = '\0';
        rc = cs_steady_compute(run, flags, CS_STEADY_MSER5, 0, &ss, err, sizeof err);
        if (!cs_aw_failed()) break;
        fails++;
        if ((rc != CS_ENOMEM || strstr(err, "out of memory") == NULL || cs_aw_live() != 0) && !bad++)
            fprintf(stderr, "oom: steady: allocation %llu failed -> rc %d, %zu blocks leaked: %s\n",
                    (unsigned long long)k, rc, cs_aw_live(), err);
    }
    cs_aw_reset(0);
    CS_CHECK(fails >= 2);
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(rc, CS_OK);
    CS_CHECK(ss.blocks == 30 && ss.cut <= 15 && ss.used == (30 - ss.cut >= 20 ? 20 : 30 - ss.cut));
    /* a burn-in of all 30 blocks leaves nothing: CS_EINVAL */
    CS_CHECK_EQ_U64(cs_steady_compute(run, flags, CS_STEADY_BURNIN, 30, &ss, err, sizeof err), CS_EINVAL);
    CS_CHECK(cs_steady_compute(run, flags, CS_STEADY_BURNIN, 29, &ss, err, sizeof err) == CS_OK && ss.cut == 29 &&
             ss.used == 1);
    unlink(run);
    unlink(gr);
    rmdir(dir);
}

int main(void)
{
    test_mechanisms();
    test_mech_open_close();
    test_stats();
    test_optimum();
    test_metrics();
    test_sched();
    return cs_test_done("oom");
}
