/*
 * test_strategy_bne.c -- issue 27 item 3's third anchor: first-price
 * learners in a k-unit auction approach the symmetric Bayes-Nash
 * equilibrium (agents/README.md "Strategies", learning_value).
 *
 * The world: n bidders, each round every one draws a fresh value v ~ U[0,
 * V] and schedules one timer (gas limit 1) due in the next block; that
 * block fires the k highest bids, each paying its bid (bias-fp with Bias
 * 0, reserve 0: a k-unit pay-as-bid auction, CIP-5 §9.2, §9.5).  The
 * observation the bidders learn from is filled as the engine fills it
 * (sim/cs_engine.c: thresh the highest deferred bid and its agent,
 * thresh_win the lowest winner's).  The strategy code drives the bids and
 * the learning in process (cs_strat_bid, cs_strat_observe).
 *
 * The equilibrium (unit demand, i.i.d. values): a bidder wins iff its
 * value beats Y, the k-th highest of the other n - 1 values, and the
 * symmetric equilibrium bid is b(v) = E[Y | Y < v].  With values U[0, 1],
 * Y is the (n - k)-th smallest of n - 1 uniforms, density proportional to
 * y^(n-1-k) (1 - y)^(k-1), so b(v) = int_0^v y f / int_0^v f, computed
 * here by Simpson's rule (k = 1: (n - 1) / n x v, checked against the
 * closed form).
 *
 * The check: after 10,000 rounds (Hedge, eta 1, the multipliers 0.3000,
 * 0.3125, ..., 1.0000, 20 buckets) the learned bid function (the mean of
 * each bidder's multipliers in v's bucket, times v, averaged over the
 * bidders) is within 0.03 V of b(v) at the bucket centres v = 0.425,
 * 0.475, ..., 0.975 V.  Why 0.03: the learners play the game whose
 * strategies are one multiplier per bucket on a grid 0.0125 apart, whose
 * equilibrium is not the continuous one -- a bucket's bid is one share of
 * the value where b(v) / v falls by up to 0.03 across a bucket for (8, 3),
 * and neighbouring buckets answer each other's rounding; the worst
 * distance found over five seeds was 0.0275 V, always at (8, 3), whose
 * learners settle on the same multipliers (0.0258 V at (5, 2), 0.0210 V
 * at (4, 1), 0.0223 V at (2, 1): mixed strategies at a finite horizon).
 * Below 0.4 V the win probability P(Y < v) falls under 0.1 for (8, 3) and
 * (4, 1), so the multipliers' payoffs differ by too little there to be
 * learnt within the horizon, and the equilibrium bid matters little.
 * The same check with the due-block learner ("learning": one multiplier
 * for all values, judged against cs_obs_threshold_of, which is the
 * highest deferred bid -- below the price to beat -- when its timer lost
 * but was not the highest deferred) must fail, and the test asserts it
 * does for at least two of the four worlds: over five seeds its worst
 * distance was 0.057-0.060 V at (8, 3) and 0.037-0.046 V at (5, 2), while
 * at (2, 1), where b(v) is a constant share and its judging is exact, it
 * passes (0.004-0.018 V).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "cs_error.h"
#include "cs_rng.h"
#include "cs_scenario.h"
#include "cs_strategy.h"
#include "cs_test.h"

#define NMAX 8
#define VSCALE 1e9    /* values are U[0, VSCALE] base units */
#define ROUNDS 10000  /* auctions a world runs */
#define ETA 1.0       /* Hedge's learning rate */
#define NV 12        /* values checked: 0.425, 0.475, ..., 0.975 V */
#define TOL 0.03      /* |learned - equilibrium| at most TOL x VSCALE */

/* ------------------------------------------------ the equilibrium */

/* The density of Y, the k-th highest of m = n - 1 values U[0, 1], up to
 * its constant: y^(m-k) (1 - y)^(k-1). */
static double y_dens(double y, int n, int k) { return pow(y, n - 1 - k) * pow(1.0 - y, k - 1); }

/* b(v) = E[Y | Y < v] for values U[0, 1] (Simpson's rule, 2,000 panels). */
static double bne(double v, int n, int k)
{
    const int m = 2000;
    double num = 0, den = 0, h = v / m;
    for (int i = 0; i <= m; i++) {
        double y = h * i, w = i == 0 || i == m ? 1.0 : (i % 2 ? 4.0 : 2.0);
        num += w * y * y_dens(y, n, k);
        den += w * y_dens(y, n, k);
    }
    return den > 0 ? num / den : 0.0;
}

/* P(Y < v) for values U[0, 1]: the probability that a value v wins. */
static double p_win(double v, int n, int k)
{
    double tot = 0, part = 0;
    const int m = 2000;
    for (int i = 0; i <= m; i++) {
        double y = (double)i / m, w = i == 0 || i == m ? 1.0 : (i % 2 ? 4.0 : 2.0);
        tot += w * y_dens(y, n, k);
        if (y <= v) part += w * y_dens(y, n, k);
    }
    return part / tot;
}

/* ------------------------------------------------ the world */

/*
 * n bidders with strategy st learn for ROUNDS k-unit auctions; returns the
 * largest |learned bid - b(v)| / VSCALE over the checked values, the
 * learned and equilibrium bids at each into lb[] and eb[] (6 each).
 * Round t: its bids are made at height 2t + 1 and due at 2t + 2, whose
 * clearing the observation of height 2t + 3 reports.
 */
static double world(const cs_strategy_t *st, int n, int k, uint64_t seed, double *lb, double *eb)
{
    struct cs_strat_state *ss[NMAX] = {0};
    cs_dist_t vd = {0};
    vd.kind = CS_DIST_UNIFORM;
    vd.p[0] = 0.0;
    vd.p[1] = VSCALE;
    for (int i = 0; i < n; i++) CS_CHECK_EQ_U64(cs_strat_new(st, &vd, cs_rng_stream(seed, 100 + (uint64_t)i), &ss[i]), CS_OK);
    gsl_rng *vr = cs_rng_stream(seed, 1);
    cs_obs_t o;
    memset(&o, 0, sizeof o);
    o.mechanism = "bias-fp";
    o.thresh_agent = o.top_bid_agent = UINT32_MAX;
    o.fires_left = INFINITY;
    o.fire_cycles = 1;
    for (int t = 0; t < ROUNDS; t++) {
        o.height = 2 * (uint64_t)t + 1;
        double bid[NMAX];
        for (int i = 0; i < n; i++) {
            cs_strat_observe(st, ss[i], (uint32_t)i, CS__MC_BID, &o);
            cs_timer_req_t q;
            memset(&q, 0, sizeof q);
            q.delay = 1;
            q.gas_limit = 1;
            q.value = gsl_rng_uniform(vr) * VSCALE;
            cs_strat_bid(st, ss[i], (uint32_t)i, CS__MC_BID, &o, &q);
            bid[i] = q.bid;
        }
        /* Block 2t + 2 fires the k highest bids (ties: the lower index). */
        int won[NMAX] = {0};
        for (int w = 0; w < k && w < n; w++) {
            int best = -1;
            for (int i = 0; i < n; i++)
                if (!won[i] && (best < 0 || bid[i] > bid[best])) best = i;
            won[best] = 1;
        }
        double thr = 0, wmin = -1, top = -1, top_other = 0;
        uint32_t thr_agent = UINT32_MAX, top_agent = UINT32_MAX;
        for (int i = 0; i < n; i++) {
            if (won[i]) {
                if (wmin < 0 || bid[i] < wmin) wmin = bid[i];
            } else if (thr_agent == UINT32_MAX || bid[i] > thr) {
                thr = bid[i];
                thr_agent = (uint32_t)i;
            }
            if (bid[i] > top) {
                top_other = top > 0 ? top : 0;
                top = bid[i];
                top_agent = (uint32_t)i;
            } else if (bid[i] > top_other) {
                top_other = bid[i];
            }
        }
        o.thresh = thr;
        o.thresh_agent = thr_agent;
        o.thresh_win = thr > 0 && wmin > 0 ? wmin : 0; /* as the engine (bid mechanisms) */
        o.top_bid = top;
        o.top_bid_agent = top_agent;
        o.top_bid_other = top_other;
    }
    double worst = 0;
    for (int j = 0; j < NV; j++) {
        double v = (0.425 + 0.05 * j) * VSCALE, p[CS_STRAT_MAX_GRID], mean = 0;
        for (int i = 0; i < n; i++) {
            size_t K = cs_strat_probs_at(st, ss[i], v, p, CS_STRAT_MAX_GRID);
            CS_CHECK_EQ_U64(K, st->n_grid);
            for (size_t g = 0; g < K; g++) mean += p[g] * st->grid[g] * v;
        }
        lb[j] = mean / n;
        eb[j] = bne(v / VSCALE, n, k) * VSCALE;
        double d = fabs(lb[j] - eb[j]) / VSCALE;
        if (d > worst) worst = d;
    }
    for (int i = 0; i < n; i++) cs_strat_free(ss[i]);
    gsl_rng_free(vr);
    return worst;
}

/* Load a one-agent scenario whose strategy is the JSON strat: CS_OK with
 * the loaded strategy in *st, else the loader's code with *errs counting
 * the errors that contain err (NULL: none counted). */
static int load_strat(const char *strat, const char *err, cs_strategy_t *st, size_t *errs)
{
    size_t len = strlen(strat) + 256;
    char *txt = malloc(len);
    if (txt == NULL) return CS_ENOMEM;
    snprintf(txt, len,
             "{\"name\": \"b\", \"blocks\": 100, \"mechanism\": \"bias-fp\", \"agents\": [{\"kind\": "
             "\"default_gba\", \"strategy\": %s}]}",
             strat);
    cs_scenario_t *sc = NULL;
    cs_errlist_t e = {0};
    memset(st, 0, sizeof *st);
    int rc = cs_scenario_load(txt, strlen(txt), NULL, 0, &sc, &e);
    if (rc == CS_OK && sc != NULL && sc->n_agents == 1 && sc->agents[0].strat) *st = *sc->agents[0].strat;
    *errs = 0;
    for (size_t i = 0; err && i < e.n; i++) *errs += strstr(e.msg[i], err) != NULL;
    cs_errlist_free(&e);
    cs_scenario_free(sc);
    free(txt);
    return rc;
}

/* The strategy name as a scenario gives it, with eta, the grid 0.3000,
 * 0.3125, ..., 1.0000 (57 multipliers) and, for learning_value, 20
 * buckets (the due-block learner has none). */
static void strat_of(const char *name, double eta, cs_strategy_t *st)
{
    char txt[1024], grid[800] = "";
    size_t errs;
    for (int g = 0; g <= 56; g++)
        snprintf(grid + strlen(grid), sizeof grid - strlen(grid), "%s%.4f", g ? ", " : "", 0.3 + 0.0125 * g);
    snprintf(txt, sizeof txt, "{\"name\": \"%s\", \"eta\": %g, \"grid\": [%s]%s}", name, eta, grid,
             strcmp(name, "learning_value") == 0 ? ", \"buckets\": 20" : "");
    CS_CHECK_EQ_U64(load_strat(txt, NULL, st, &errs), CS_OK);
}

static void test_bne(void)
{
    static const int nk[4][2] = {{2, 1}, {4, 1}, {5, 2}, {8, 3}};
    /* The reference itself: k = 1 has the closed form (n - 1) / n v. */
    for (int n = 2; n <= 8; n++) CS_CHECK(fabs(bne(0.7, n, 1) - 0.7 * (n - 1) / n) < 1e-9);
    cs_strategy_t lv, db;
    strat_of("learning_value", ETA, &lv);
    strat_of("due-block", ETA, &db);
    CS_CHECK(lv.kind == CS_STRAT_LEARNING_VALUE && lv.n_buckets == 20 && lv.n_grid == 57);
    CS_CHECK(db.kind == CS_STRAT_LEARNING && db.n_grid == 57);
    size_t db_fails = 0;
    for (int c = 0; c < 4; c++) {
        int n = nk[c][0], k = nk[c][1];
        double lb[NV], eb[NV], db_lb[NV], db_eb[NV];
        double wl = world(&lv, n, k, 20261127 + (uint64_t)c, lb, eb);
        double wd = world(&db, n, k, 20261127 + (uint64_t)c, db_lb, db_eb);
        printf("  (n %d, k %d), P(win) at 0.425 V %.2f: learning_value worst %.4f V, due-block worst %.4f V\n", n, k,
               p_win(0.425, n, k), wl, wd);
        printf("    v/V     BNE     learning_value  due-block\n");
        for (int j = 0; j < NV; j++)
            printf("    %.3f  %.4f  %.4f          %.4f\n", 0.425 + 0.05 * j, eb[j] / VSCALE, lb[j] / VSCALE,
                   db_lb[j] / VSCALE);
        CS_CHECK(wl <= TOL);
        db_fails += wd > TOL;
    }
    /* The due-block learner misses the equilibrium where it is not a
     * constant share of the value (k > 1) at least. */
    printf("  due-block outside %.2f V in %zu of 4 worlds\n", TOL, db_fails);
    CS_CHECK(db_fails >= 2);
}

/* The scenario form: learning_value's defaults (40 multipliers 0.025 ..
 * 1.000, 10 buckets) and a bucket count out of range, named by its path. */
static void test_form(void)
{
    cs_strategy_t st;
    size_t errs;
    CS_CHECK_EQ_U64(load_strat("\"learning_value\"", NULL, &st, &errs), CS_OK);
    CS_CHECK(st.kind == CS_STRAT_LEARNING_VALUE && st.n_buckets == 10 && st.n_grid == 40);
    CS_CHECK(st.grid[0] == 0.025 && st.grid[39] == 1.0);
    CS_CHECK(load_strat("{\"name\": \"learning_value\", \"buckets\": 33}", "agents[0].strategy.buckets", &st,
                        &errs) != CS_OK);
    CS_CHECK_EQ_U64(errs, 1);
    CS_CHECK(load_strat("{\"name\": \"learning_value\", \"buckets\": 0}", "agents[0].strategy.buckets", &st,
                        &errs) != CS_OK);
    CS_CHECK_EQ_U64(errs, 1);
}

int main(void)
{
    test_form();
    test_bne();
    return cs_test_done("strategy_bne");
}
