/*
 * test_strategy_wait.c -- strategies that can wait for Bias (issue 27;
 * agents/README.md "Strategies", CIP-5 §9.2-9.5):
 *   1. cs_strat_wait_fire against a brute-force walk over the deferral
 *      count n (Bias(n) = bias0 e^(n lambda) evaluated block by block) and
 *      the critical payment found by bisection, on 2,000 random cases;
 *   2. cs_strat_wait_best (wait_response) against the best of 2,001 bids
 *      on a grid, each judged by the brute-force walk, and two cases by
 *      hand;
 *   3. an auction world with one fire a block and a fixed rival in every
 *      fourth block, where the learner's timers are due (light load,
 *      lambda 0.05): learning_wait, which may wait, earns more than the
 *      best due-block-only bid (computed by hand), and under bias-vcg ends
 *      with no profitable deviation among 10^4 bids, waiting included.
 *      The same checks run with learning ("due-block", today's learner)
 *      and must fail: the test asserts they do.  3b runs a random version
 *      of that world in the engine: learning_wait earns more a fire;
 *   4. the scenario form; 5. no bid strictly between 0 and the reserve,
 *      none above the value less the execution fee.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "cs_agent.h"
#include "cs_engine.h"
#include "cs_error.h"
#include "cs_rng.h"
#include "cs_scenario.h"
#include "cs_strategy.h"
#include "cs_test.h"

/* ------------------------------------------------ 1. the fire height */

/* Brute force: the first n in 0 .. horizon at which (b + bias0 e^(n
 * lambda)) / c > T (and b >= reserve under the gate), or UINT64_MAX. */
static uint64_t bf_fire(const cs_strat_wait_env_t *e, double b)
{
    if (e->gate && b < e->reserve) return UINT64_MAX;
    for (uint64_t n = 0; n <= e->horizon; n++)
        if ((b + e->bias0 * exp((double)n * e->lambda)) / e->c > e->T) return n;
    return UINT64_MAX;
}

/* Brute force: the least bid that still fires at delay n (bisection on
 * the priority test), floored at the reserve, never above b (N59). */
static double bf_critical(const cs_strat_wait_env_t *e, double b, uint64_t n)
{
    double lo = -1e18, hi = b; /* hi fires, lo does not */
    double bias = e->bias0 * exp((double)n * e->lambda);
    if ((lo + bias) / e->c > e->T) return 0.0;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if ((mid + bias) / e->c > e->T) hi = mid;
        else lo = mid;
    }
    double cr = hi > e->reserve ? hi : e->reserve;
    cr = cr < b ? cr : b;
    return cr > 0.0 ? cr : 0.0;
}

/* The brute-force utility of bid b (value at the fire height less payment
 * and fee, 0 if it never fires). */
static double bf_utility(const cs_strat_wait_env_t *e, double b)
{
    uint64_t n = bf_fire(e, b);
    if (n == UINT64_MAX) return 0.0;
    double pay = e->first_price ? b : bf_critical(e, b, n);
    double v = (e->deadline && n > e->deadline) ? 0.0 : e->v - e->decay * (double)n;
    return (v > 0.0 ? v : 0.0) - pay - e->fee;
}

/* A random environment from r: thresholds, Bias, reserve and values of
 * "high entropy", about half the timers needing Bias to fire. */
static void rand_env(gsl_rng *r, cs_strat_wait_env_t *e)
{
    memset(e, 0, sizeof *e);
    e->c = 50000.0 + floor(2.5e5 * gsl_rng_uniform(r));
    e->T = gsl_rng_uniform(r) < 0.2 ? 0.0 : 8000.0 * gsl_rng_uniform(r); /* T c up to 2.4e9 */
    e->bias0 = gsl_rng_uniform(r) < 0.5 ? 1.0 : 2.385e7 * gsl_rng_uniform(r);
    e->lambda = gsl_rng_uniform(r) < 0.1 ? 0.0 : 0.5 * gsl_rng_uniform(r);
    e->reserve = gsl_rng_uniform(r) < 0.3 ? 0.0 : 3e8 * gsl_rng_uniform(r);
    e->gate = gsl_rng_uniform(r) < 0.3;
    e->first_price = gsl_rng_uniform(r) < 0.5;
    e->v = 1e8 + 2e9 * gsl_rng_uniform(r);
    e->decay = e->v * 0.02 * gsl_rng_uniform(r);
    e->deadline = gsl_rng_uniform(r) < 0.3 ? (uint64_t)(200 * gsl_rng_uniform(r)) : 0;
    e->lambda = e->lambda > 0 ? e->lambda + 0.01 : 0.0; /* waits within the horizon */
    e->horizon = gsl_rng_uniform(r) < 0.5 ? 1 + (uint64_t)(100 * gsl_rng_uniform(r)) : 300;
    e->fee = 6e7 * gsl_rng_uniform(r);
}

static void test_fire(void)
{
    gsl_rng *r = cs_rng_stream(20261127, 1);
    size_t bad_n = 0, bad_pay = 0, waited = 0;
    for (int i = 0; i < 2000; i++) {
        cs_strat_wait_env_t e;
        rand_env(r, &e);
        double b = gsl_rng_uniform(r) < 0.3 ? 0.0 : e.T * e.c * 1.2 * gsl_rng_uniform(r);
        double pay;
        uint64_t n = cs_strat_wait_fire(&e, b, &pay), want = bf_fire(&e, b);
        if (n != want) bad_n++;
        if (n != UINT64_MAX && n > 0) waited++;
        if (n != UINT64_MAX && n == want) {
            double wp = e.first_price ? b : bf_critical(&e, b, n);
            if (fabs(pay - wp) > 1e-6 * (1.0 + wp)) bad_pay++;
        }
    }
    printf("  wait_fire: 2000 cases (%zu fire after waiting), %zu heights and %zu payments differ from brute force\n",
           waited, bad_n, bad_pay);
    CS_CHECK_EQ_U64(bad_n, 0);
    CS_CHECK_EQ_U64(bad_pay, 0);
    CS_CHECK(waited > 200);
    gsl_rng_free(r);
}

/* ------------------------------------------------ 2. the best response */

static void test_best(void)
{
    gsl_rng *r = cs_rng_stream(20261127, 2);
    size_t worse = 0, between = 0, over = 0, waits = 0;
    double worst = 0;
    for (int i = 0; i < 300; i++) {
        cs_strat_wait_env_t e;
        rand_env(r, &e);
        double b = cs_strat_wait_best(&e), ub = bf_utility(&e, b);
        if (b > 0 && b < e.reserve) between++;
        if (b > e.v - e.fee && b > 0) over++;
        if (b == 0 && bf_fire(&e, 0) > 0 && bf_fire(&e, 0) != UINT64_MAX) waits++;
        /* The best bid on a grid of 2,001 over [0, v - fee] plus 0; bids
         * strictly between 0 and the reserve are not allowed. */
        double top = e.v - e.fee, best = bf_utility(&e, 0.0);
        for (int k = 1; k <= 2000 && top > 0; k++) {
            double x = top * k / 2000.0;
            if (x < e.reserve) continue;
            double u = bf_utility(&e, x);
            if (u > best) best = u;
        }
        if (e.reserve > 0 && e.reserve <= top && bf_utility(&e, e.reserve) > best) best = bf_utility(&e, e.reserve);
        if (ub < best - 1e-6 * e.v) {
            if (getenv("CS_DEBUG"))
                fprintf(stderr, "T %g c %g S %g lam %g r %g gate %d fp %d v %g d %g dl %llu hz %llu fee %g: b %g u %g best %g n(b) %llu\n",
                        e.T, e.c, e.bias0, e.lambda, e.reserve, e.gate, e.first_price, e.v, e.decay,
                        (unsigned long long)e.deadline, (unsigned long long)e.horizon, e.fee, b, ub, best,
                        (unsigned long long)bf_fire(&e, b));
            worse++;
            if (best - ub > worst) worst = best - ub;
        }
    }
    printf("  wait_response: 300 cases, %zu below the best grid bid (worst by %g), %zu wait for Bias, "
           "%zu bids between 0 and the reserve, %zu above value - fee\n",
           worse, worst, waits, between, over);
    CS_CHECK_EQ_U64(worse, 0);
    CS_CHECK_EQ_U64(between, 0);
    CS_CHECK_EQ_U64(over, 0);
    CS_CHECK(waits > 10);
    /* By hand: T c = 1e6, bias0 1, lambda 0.05, first price, no reserve,
     * v = 5e8, fee 6e7.  Bid 0 fires when e^(0.05 n) > 1e6, n > 276.31:
     * n = 277.  With decay 1e5 a block waiting costs 2.77e7 > the 1e6 it
     * takes to fire now (T c - bias0 + 1 = 1,000,000): bid 1e6.  With
     * decay 1e3 waiting costs 277,000 < 1e6: bid 0. */
    cs_strat_wait_env_t h = {.T = 10.0, .c = 1e5, .bias0 = 1.0, .lambda = 0.05, .first_price = 1,
                             .v = 5e8, .decay = 1e5, .horizon = 100000, .fee = 6e7};
    CS_CHECK(cs_strat_wait_best(&h) == 1e6);
    CS_CHECK(fabs(cs_strat_wait_utility(&h, 1e6) - (5e8 - 1e6 - 6e7)) < 1e-3);
    h.decay = 1e3;
    double pay;
    CS_CHECK(cs_strat_wait_best(&h) == 0.0);
    CS_CHECK_EQ_U64(cs_strat_wait_fire(&h, 0.0, &pay), 277);
    CS_CHECK(fabs(cs_strat_wait_utility(&h, 0.0) - (5e8 - 277e3 - 6e7)) < 1e-3);
    /* A TTL of 200 blocks: the wait is cut off, so it bids to fire now. */
    h.horizon = 200;
    CS_CHECK(cs_strat_wait_best(&h) == 1e6);
    gsl_rng_free(r);
}

/* ------------------------------------------------ 3. learners in a world */

/*
 * The world (one fire a block, bias-fp or bias-vcg with critical
 * payments, reserve 0, bias0 1, lambda 0.05, cycle basefee 1,000): in
 * every block h = 4j + 3 the learner (agent 0) schedules a timer due at
 * h + 1, value v = 1e9 losing d = 1e6 a block, gas limit 100,000, 60,000
 * cycles used (execution fee F = 6e7); in every block h = 4j a rival
 * (agent 1) has a fresh timer with bid 4.2e8 and the same gas limit.  The
 * highest priority (bid + Bias(n)) / c fires; the others are deferred (n
 * + 1).  A fire pays its bid (first price) or its critical bid, the least
 * that still beats the highest deferred priority (bias-vcg), and F.  The
 * learner sees the engine's observation: T = the highest deferred
 * priority (the rival's when its own timer was the one deferred: the
 * lowest winner's).
 *
 * By hand: a bid fires in its due block iff it beats 4.2e8, i.e. a grid
 * multiplier m of the value less the fee (9.4e8) with m >= 0.45 -- the
 * best bid a learner judged in the due block only can find, earning
 * v - 0.45 x 9.4e8 - F = 5.17e8 a timer under first price (v - 4.2e8 - F
 * = 5.2e8 under bias-vcg).  A bid below 4.2e8 is deferred to the next
 * block, where nobody competes: it fires at n = 1 with Bias(1) = e^0.05,
 * earning v - d - F - bid; bid 0 earns 9.39e8.  A learner that may wait
 * must earn more than 5.2e8 a timer over the last half of the run.
 */
#define WW_V 1e9
#define WW_D 1e6
#define WW_C 1e5
#define WW_F 6e7
#define WW_RIVAL 4.2e8
#define WW_LAMBDA 0.05
#define WW_TIMERS 1200

typedef struct ww_timer {
    int who;       /* 0 learner, 1 rival */
    double bid;    /* its bid */
    uint64_t due;  /* due height */
    uint64_t seq;  /* creation order (the tie-break, as a timer id) */
} ww_timer_t;

typedef struct ww_rec {
    uint64_t due;              /* the learner's timer */
    double u;                  /* its realised utility */
    double T[8];               /* thresholds it faced at n = 0 .. 7 */
} ww_rec_t;

/* Priority per cycle of timer t at height h. */
static double ww_prio(const ww_timer_t *t, uint64_t h)
{
    return (t->bid + exp((double)(h - t->due) * WW_LAMBDA)) / WW_C;
}

/* One run of the world with the learner's strategy st; the learner's
 * timers in rec (WW_TIMERS of them).  Returns the number recorded. */
static size_t ww_run(const cs_strategy_t *st, int vcg, ww_rec_t *rec)
{
    struct cs_strat_state *ss = NULL;
    if (cs_strat_new(st, NULL, cs_rng_stream(20261127, 3), &ss) != CS_OK) return 0;
    ww_timer_t pend[64];
    size_t np = 0, nrec = 0;
    uint64_t seq = 0;
    cs_obs_t o;
    memset(&o, 0, sizeof o);
    o.mechanism = vcg ? "bias-vcg" : "bias-fp";
    o.bias0 = 1.0;
    o.lambda = WW_LAMBDA;
    o.basefee_cycle = 1000.0;
    o.thresh_agent = UINT32_MAX;
    o.top_bid_agent = UINT32_MAX;
    o.demand_mult = 1.0;
    for (uint64_t h = 1; nrec < WW_TIMERS || np > 0; h++) {
        o.height = h;
        cs_strat_observe(st, ss, 0, CS__MC_BID, &o);
        /* The learner's thresholds for its pending records (what it saw). */
        for (size_t i = 0; i < nrec; i++)
            if (h - 1 >= rec[i].due && h - 1 - rec[i].due < 8) rec[i].T[h - 1 - rec[i].due] = cs_obs_threshold_of(&o, 0);
        if (h % 4 == 3 && nrec < WW_TIMERS && np < 62) {
            cs_timer_req_t q;
            memset(&q, 0, sizeof q);
            q.delay = 1;
            q.value = WW_V;
            q.decay = WW_D;
            q.gas_limit = (uint64_t)WW_C;
            q.cycles_used = 60000;
            cs_strat_bid(st, ss, 0, CS__MC_BID, &o, &q);
            pend[np++] = (ww_timer_t){0, q.has_bid ? q.bid : 0.0, h + 1, seq++};
            memset(&rec[nrec], 0, sizeof rec[nrec]);
            rec[nrec++].due = h + 1;
        }
        if (h % 4 == 0) pend[np++] = (ww_timer_t){1, WW_RIVAL, h, seq++};
        /* Clear block h: the highest priority among the due ones fires. */
        size_t w = SIZE_MAX, dfr = SIZE_MAX;
        for (size_t i = 0; i < np; i++) {
            if (pend[i].due > h) continue;
            if (w == SIZE_MAX || ww_prio(&pend[i], h) > ww_prio(&pend[w], h) ||
                (ww_prio(&pend[i], h) == ww_prio(&pend[w], h) && pend[i].seq < pend[w].seq))
                w = i;
        }
        for (size_t i = 0; i < np; i++)
            if (i != w && pend[i].due <= h && (dfr == SIZE_MAX || ww_prio(&pend[i], h) > ww_prio(&pend[dfr], h))) dfr = i;
        o.thresh = dfr == SIZE_MAX ? 0.0 : ww_prio(&pend[dfr], h);
        o.thresh_agent = dfr == SIZE_MAX ? UINT32_MAX : (uint32_t)pend[dfr].who;
        o.thresh_win = dfr == SIZE_MAX || w == SIZE_MAX ? 0.0 : ww_prio(&pend[w], h);
        if (w == SIZE_MAX) continue;
        ww_timer_t t = pend[w];
        pend[w] = pend[--np];
        if (t.who != 0) continue;
        uint64_t n = h - t.due;
        double pay = t.bid;
        if (vcg) { /* critical: the least bid beating the highest deferred priority */
            double th = o.thresh * WW_C - exp((double)n * WW_LAMBDA);
            pay = th > 0 ? (th < t.bid ? th : t.bid) : 0.0;
        }
        for (size_t i = 0; i < nrec; i++)
            if (rec[i].due == t.due) rec[i].u = WW_V - WW_D * (double)n - pay - WW_F;
    }
    cs_strat_free(ss);
    return nrec;
}

/* The learner's mean realised utility a timer over its last half. */
static double ww_tail(const ww_rec_t *rec, size_t n)
{
    double s = 0;
    for (size_t i = n / 2; i < n; i++) s += rec[i].u;
    return s / (double)(n - n / 2);
}

/* Unilateral deviations over the last 300 timers: a fixed bid b for all
 * of them, judged against the thresholds each timer faced (others fixed),
 * with the bias-vcg critical payment.  Returns how many of `tries` bids
 * (b = 0, waiting, then uniform on [0, v)) beat the realised mean by more
 * than 1e-3 v, and the largest gain in *gain. */
static size_t ww_deviations(const ww_rec_t *rec, size_t n, size_t tries, double *gain)
{
    gsl_rng *r = cs_rng_stream(20261127, 4);
    size_t from = n - 300, better = 0;
    double real = 0;
    for (size_t i = from; i < n; i++) real += rec[i].u;
    real /= 300.0;
    *gain = -INFINITY;
    for (size_t k = 0; k < tries; k++) {
        double b = k == 0 ? 0.0 : WW_V * gsl_rng_uniform(r), s = 0;
        for (size_t i = from; i < n; i++) {
            cs_strat_wait_env_t e = {.c = WW_C, .bias0 = 1.0, .lambda = WW_LAMBDA, .v = WW_V, .decay = WW_D,
                                     .horizon = 7, .fee = WW_F};
            double u = 0;
            for (uint64_t d = 0; d < 8; d++) {
                e.T = rec[i].T[d];
                double pay;
                /* fires at delay d iff b with Bias(d) beats that block's T */
                if ((b + exp((double)d * WW_LAMBDA)) / WW_C > e.T) {
                    pay = e.T * WW_C - exp((double)d * WW_LAMBDA);
                    pay = pay > 0 ? (pay < b ? pay : b) : 0.0;
                    u = WW_V - WW_D * (double)d - pay - WW_F;
                    break;
                }
            }
            s += u;
        }
        s /= 300.0;
        if (s - real > *gain) *gain = s - real;
        if (s - real > 1e-3 * WW_V) better++;
    }
    gsl_rng_free(r);
    return better;
}

static cs_strategy_t ww_learner(int kind)
{
    cs_strategy_t st;
    memset(&st, 0, sizeof st);
    st.kind = kind;
    st.n_grid = 21; /* 0, 0.05, ..., 1 */
    for (size_t k = 0; k < st.n_grid; k++) st.grid[k] = 0.05 * (double)k;
    st.eta = 1.0;
    return st;
}

static void test_world(void)
{
    static ww_rec_t rec[WW_TIMERS];
    const char *names[2] = {"learning_wait", "due-block"};
    const int kinds[2] = {CS_STRAT_LEARNING_WAIT, CS_STRAT_LEARNING};
    const double due_best[2] = {WW_V - 0.45 * (WW_V - WW_F) - WW_F, WW_V - WW_RIVAL - WW_F}; /* fp, vcg */
    for (int l = 0; l < 2; l++) {
        cs_strategy_t st = ww_learner(kinds[l]);
        size_t n = ww_run(&st, 0, rec);
        double fp = ww_tail(rec, n);
        n = ww_run(&st, 1, rec);
        double vcg = ww_tail(rec, n), gain;
        size_t dev = ww_deviations(rec, n, 10000, &gain);
        printf("  %-13s first price: %.4g a timer (best due-block bid %.4g); bias-vcg: %.4g (%.4g), %zu of 10^4 "
               "deviations gain > 1e-3 v (largest %.4g)\n",
               names[l], fp, due_best[0], vcg, due_best[1], dev, gain);
        CS_CHECK_EQ_U64(n, WW_TIMERS);
        if (l == 0) { /* the learner that may wait: the anchors hold */
            CS_CHECK(fp > due_best[0] + 0.3 * WW_V && fp > 0.9 * (WW_V - WW_D - WW_F));
            CS_CHECK(vcg > due_best[1] + 0.3 * WW_V);
            CS_CHECK_EQ_U64(dev, 0);
        } else { /* today's learner: both anchors fail */
            CS_CHECK(!(fp > due_best[0] + 0.3 * WW_V));
            CS_CHECK(dev > 0);
        }
    }
}

/* ------------------------------------------------ 3b. the same in the engine */

/*
 * The world of 3 in the engine, with random arrivals: bias-fp, one fire a
 * block, reserve 0, lambda 0.05; the learner (a fragmenter with k = 1)
 * and a rival (default_gba bidding 0.42 of its value) each have a timer
 * due in the next block with probability 1/4 a block, value 1e9 losing
 * 1e6 a block, gas limit 100,000 (execution fee about 6e7 a fire).  A
 * learner that bids 0 and waits pays the fee alone, about 9.4e8 a fire
 * after its decay.  The due-block learner (same grid, 0 included) judges
 * a bid-0 timer lost whenever the rival -- or its own timer deferred the
 * block before -- is due with it (about half its due blocks), and so keeps
 * paying 0.05-0.1 of the value to beat its own waiting timers (measured
 * over the last 1,000 blocks: 128 fires at 0, 96 at 0.05 v, 19 at 0.1 v,
 * against 243 at 0 for learning_wait).  Returns the learner's value - paid
 * over `blocks` blocks (NAN on failure) and its fires in *fires.
 */
static double eng_world(const char *strategy, uint64_t blocks, uint64_t *fires)
{
    char txt[2048];
    snprintf(txt, sizeof txt,
             "{\"name\": \"wait-world\", \"blocks\": %llu, \"mechanism\": \"bias-fp\",\n"
             " \"params\": {\"max_fires_per_block\": 1},\n"
             " \"agents\": [\n"
             "  {\"kind\": \"fragmenter\", \"value_aware\": false, \"strategy\": %s,\n"
             "   \"params\": {\"k\": 1, \"rate\": {\"dist\": \"empirical\", \"values\": [0, 0, 0, 1]},\n"
             "              \"delay_mean\": {\"dist\": \"constant\", \"value\": 1}, \"decay_frac\": 0.001,\n"
             "              \"gas_limit\": 100000, \"value\": {\"dist\": \"constant\", \"value\": 1e9}}},\n"
             "  {\"kind\": \"default_gba\", \"value_aware\": false, \"strategy\": {\"name\": \"fixed_share\", "
             "\"share\": 0.42},\n"
             "   \"params\": {\"rate\": {\"dist\": \"empirical\", \"values\": [0, 0, 0, 1]},\n"
             "              \"delay_mean\": {\"dist\": \"constant\", \"value\": 1}, \"decay_frac\": 0.001,\n"
             "              \"gas_limit\": 100000, \"value\": {\"dist\": \"constant\", \"value\": 1e9}}}]}",
             (unsigned long long)blocks, strategy);
    cs_run_stats_t st;
    if (cs_test_run_seed(txt, "bias-fp", 20261127, &st) != CS_OK) return NAN;
    *fires = st.kind[CS_AK_FRAGMENTER].fires;
    return st.kind[CS_AK_FRAGMENTER].value - st.kind[CS_AK_FRAGMENTER].paid;
}

static void test_engine_world(void)
{
    uint64_t fw = 0, fd = 0;
    double uw = eng_world("{\"name\": \"learning_wait\", \"eta\": 0.5}", 2000, &fw);
    double ud = eng_world("{\"name\": \"due-block\", \"eta\": 0.5, \"grid\": [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, "
                          "0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1]}",
                          2000, &fd);
    printf("  engine, bias-fp: learning_wait %.4g a fire (%llu fires), due-block %.4g a fire (%llu fires)\n",
           uw / (double)fw, (unsigned long long)fw, ud / (double)fd, (unsigned long long)fd);
    CS_CHECK(fw > 400 && fd > 400);
    CS_CHECK(uw / (double)fw > 9.0e8);                  /* v - fee - its decay, less exploration */
    CS_CHECK(uw / (double)fw > ud / (double)fd + 1e7); /* at least 1 % of the value more a fire */
}

/* ------------------------------------------------ 5. reserve and fee */

/* The bid strategy st (n_grid / grid / share / n set by the caller) makes
 * for a request of value v under mechanism mech: reserve 3e8, cycle
 * basefee 1,000, 60,000 cycles used, so the execution fee F is 6e7. */
static double floor_bid(cs_strategy_t st, const char *mech, double v)
{
    cs_dist_t vd;
    memset(&vd, 0, sizeof vd);
    vd.kind = CS_DIST_UNIFORM;
    vd.p[0] = 0;
    vd.p[1] = 1e9;
    struct cs_strat_state *ss = NULL;
    if (cs_strat_new(&st, &vd, cs_rng_stream(20261127, 5), &ss) != CS_OK) return NAN;
    cs_obs_t o;
    memset(&o, 0, sizeof o);
    o.height = 10;
    o.mechanism = mech;
    o.reserve_price = 3e8;
    o.basefee_cycle = 1000;
    o.bias0 = 1;
    o.lambda = 0.05;
    o.thresh_agent = o.top_bid_agent = UINT32_MAX;
    cs_timer_req_t q;
    memset(&q, 0, sizeof q);
    q.delay = 1;
    q.value = v;
    q.gas_limit = 100000;
    q.cycles_used = 60000;
    cs_strat_bid(&st, ss, 0, CS__MC_BID, &o, &q);
    cs_strat_free(ss);
    return q.has_bid ? q.bid : -1.0;
}

/* No bid strictly between 0 and the reserve under bias-*, none above the
 * value less the fee (by hand: v = 5e8, F = 6e7, r = 3e8). */
static void test_floor(void)
{
    cs_strategy_t st;
    memset(&st, 0, sizeof st);
    st.kind = CS_STRAT_FIXED_SHARE;
    st.share = 0.3; /* 1.5e8 < r <= v - F: the reserve */
    CS_CHECK(floor_bid(st, "bias-fp", 5e8) == 3e8);
    CS_CHECK(floor_bid(st, "score", 5e8) == 1.5e8); /* no reserve under score */
    st.share = 0.95; /* 4.75e8 > v - F = 4.4e8 */
    CS_CHECK(floor_bid(st, "bias-vcg", 5e8) == 4.4e8);
    st.kind = CS_STRAT_TRUTHFUL;
    CS_CHECK(floor_bid(st, "bias-vcg", 5e8) == 4.4e8);
    CS_CHECK(floor_bid(st, "bias-vcg", 3.2e8) == 0.0); /* v - F = 2.6e8 < r: waits */
    CS_CHECK(floor_bid(st, "bias-vcg", 5e7) == 0.0);   /* worth less than its fee */
    st.kind = CS_STRAT_SHADE;
    st.n = 2; /* uniform on [0, 1e9]: v / 2 = 2.5e8 < r */
    CS_CHECK(floor_bid(st, "bias-fp", 5e8) == 3e8);
    st.kind = CS_STRAT_LEARNING_WAIT;
    st.n_grid = 2;
    st.grid[0] = 0.1; /* 4.4e7 < r: the reserve */
    st.grid[1] = 0.2; /* 8.8e7 < r: the reserve */
    st.eta = 1;
    CS_CHECK(floor_bid(st, "bias-fp", 5e8) == 3e8);
    st.grid[0] = 0.0;
    st.grid[1] = 0.0; /* wait */
    CS_CHECK(floor_bid(st, "bias-fp", 5e8) == 0.0);
}

/* ------------------------------------------------ 4. the scenario form */

/* "due-block" is learning; learning_wait's default grid starts at 0 (wait)
 * with 21 actions; wait_response takes no fields. */
static void test_form(void)
{
    static const char *const txt =
        "{\"name\": \"f\", \"blocks\": 100, \"mechanism\": \"bias-fp\", \"agents\": ["
        "{\"kind\": \"default_gba\", \"strategy\": \"due-block\"},"
        "{\"kind\": \"default_gba\", \"strategy\": \"learning_wait\"},"
        "{\"kind\": \"default_gba\", \"strategy\": {\"name\": \"wait_response\"}},"
        "{\"kind\": \"default_gba\", \"strategy\": {\"name\": \"wait_response\", \"eta\": 1}}]}";
    cs_scenario_t *sc = NULL;
    cs_errlist_t e = {0};
    CS_CHECK(cs_scenario_load(txt, strlen(txt), NULL, 0, &sc, &e) != CS_OK);
    int found = 0;
    for (size_t i = 0; i < e.n; i++)
        found += strstr(e.msg[i], "agents[3].strategy") != NULL && strstr(e.msg[i], "eta") != NULL;
    CS_CHECK_EQ_U64(found, 1);
    cs_errlist_free(&e);
    cs_scenario_free(sc);
    sc = NULL;
    const char *cut = strstr(txt, ",{\"kind\": \"default_gba\", \"strategy\": {\"name\": \"wait_response\", \"eta");
    char ok[1024];
    snprintf(ok, sizeof ok, "%.*s]}", (int)(cut - txt), txt);
    CS_CHECK_EQ_U64(cs_scenario_load(ok, strlen(ok), NULL, 0, &sc, &e), CS_OK);
    if (sc != NULL && sc->n_agents == 3 && sc->agents[0].strat && sc->agents[1].strat && sc->agents[2].strat) {
        CS_CHECK(sc->agents[0].strat->kind == CS_STRAT_LEARNING);
        CS_CHECK(sc->agents[1].strat->kind == CS_STRAT_LEARNING_WAIT && sc->agents[1].strat->n_grid == 21 &&
                 sc->agents[1].strat->grid[0] == 0.0 && sc->agents[1].strat->grid[20] == 1.0);
        CS_CHECK(sc->agents[2].strat->kind == CS_STRAT_WAIT_RESPONSE);
    }
    cs_errlist_free(&e);
    cs_scenario_free(sc);
}

int main(void)
{
    test_form();
    test_fire();
    test_best();
    test_world();
    test_engine_world();
    test_floor();
    return cs_test_done("strategy_wait");
}
