/*
 * test_agent_helpers.c -- the helpers every agent kind draws through
 * (agents/cs_agent.c, cs_agent_int.h), at their edges, against hand
 * values: rounding to [0, 2^62], the cycles model's clip of the used
 * fraction to [0, 1] and its one-cycle floor, the mechanism families,
 * degenerate lognormal and geometric parameters, a distribution draw
 * clipped to the parameter's bounds (NaN to the lower one), a draw that
 * rounds to a zero delay, and the mean an agent reads of a Pareto without
 * one (alpha <= 1: the scalar parameter instead); and the distribution
 * edges test_dist.c leaves out (unweighted empirical, kind NONE); the
 * price a bidder expects per fire, by mechanism family and strategy.
 */
#include "cs_test.h"

#include "cs_agent.h"
#include "cs_agent_int.h"
#include "cs_rng.h"
#include "cs_strategy.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

static void test_round(void)
{
    CS_CHECK_EQ_U64(cs__agent_u64(NAN), 0);
    CS_CHECK_EQ_U64(cs__agent_u64(-2.385), 0);
    CS_CHECK_EQ_U64(cs__agent_u64(0.0), 0);
    CS_CHECK_EQ_U64(cs__agent_u64(2.5), 3);     /* halves away from zero */
    CS_CHECK_EQ_U64(cs__agent_u64(2.4999), 2);
    CS_CHECK_EQ_U64(cs__agent_u64(4611686018427387904.0), (uint64_t)1 << 62);
    CS_CHECK_EQ_U64(cs__agent_u64(1e30), (uint64_t)1 << 62);
    CS_CHECK_EQ_U64(cs__agent_u64(4611686018427386880.0), 4611686018427386880ull); /* 2^62 - 1024 */
    CS_CHECK_EQ_U64(cs__agent_u64(INFINITY), (uint64_t)1 << 62);
}

static void test_cycles(void)
{
    cs_timer_req_t q;
    /* gas 0 -> a gas limit of 1; 0.5 of it rounds to 1 */
    cs__agent_cycles_at(0.5, 0.0, 0.5, 0.0, &q);
    CS_CHECK_EQ_U64(q.gas_limit, 1);
    CS_CHECK_EQ_U64(q.cycles_used, 1);
    /* 0.8 (1 + 0.5 (2 - 1)) = 1.2 -> clipped to 1: the whole limit */
    cs__agent_cycles_at(1.0, 1000.0, 0.8, 0.5, &q);
    CS_CHECK_EQ_U64(q.gas_limit, 1000);
    CS_CHECK_EQ_U64(q.cycles_used, 1000);
    /* 0.8 (1 + 2 (0 - 1)) = -0.8 -> 0 */
    cs__agent_cycles_at(0.0, 1000.0, 0.8, 2.0, &q);
    CS_CHECK_EQ_U64(q.cycles_used, 0);
    /* 0.5 (1 + 0.2 (0.5 - 1)) = 0.45; 2,385 x 0.45 = 1,073.25 -> 1,073 */
    cs__agent_cycles_at(0.25, 2385.0, 0.5, 0.2, &q);
    CS_CHECK_EQ_U64(q.gas_limit, 2385);
    CS_CHECK_EQ_U64(q.cycles_used, 1073);
    /* no draw: centred, 2,385 x 0.3 = 715.5 -> 716 */
    cs__agent_cycles_fixed(2385.4, 0.3, &q);
    CS_CHECK_EQ_U64(q.gas_limit, 2385);
    CS_CHECK_EQ_U64(q.cycles_used, 716);
}

static void test_families(void)
{
    CS_CHECK_EQ_U64(cs__agent_mclass(NULL), CS__MC_NONE);
    CS_CHECK_EQ_U64(cs__agent_mclass("fifo"), CS__MC_NONE);
    CS_CHECK_EQ_U64(cs__agent_mclass("fifo-capped"), CS__MC_NONE);
    CS_CHECK_EQ_U64(cs__agent_mclass("greedy"), CS__MC_NONE);
    CS_CHECK_EQ_U64(cs__agent_mclass("bias-vcg"), CS__MC_BID);
    CS_CHECK_EQ_U64(cs__agent_mclass("bias-fp"), CS__MC_BID);
    CS_CHECK_EQ_U64(cs__agent_mclass("score"), CS__MC_BID);
    CS_CHECK_EQ_U64(cs__agent_mclass("scores"), CS__MC_NONE);
    CS_CHECK_EQ_U64(cs__agent_mclass("eip1559"), CS__MC_FEE);
    CS_CHECK_EQ_U64(cs__agent_mclass("gba-tip"), CS__MC_FEE);
}

/* A kind of two parameters: "x" in [10, 20] (default 15) and "d". */
static const cs_agent_param_t k_params[2] = {
    {"x", 15.0, 10.0, 20.0, "a bounded parameter", NULL},
    {"d", 3.0, 0.0, 1000.0, "a delay", NULL},
};
static const cs_agent_ops_t k_ops = {.name = "helper-test", .params = k_params, .n_params = 2};

static void test_draws(void)
{
    gsl_rng *r = cs_rng_stream(20261127, 1);
    if (r == NULL) {
        CS_CHECK(r != NULL);
        return;
    }
    /* mean <= 0: no value; mean <= 1: the geometric delay is always 1 */
    CS_CHECK(cs__agent_lognormal(r, 0.0, 1.0) == 0.0);
    CS_CHECK(cs__agent_lognormal(r, -2.385, 0.5) == 0.0);
    int ones = 0;
    for (int i = 0; i < 20; i++) ones += cs__agent_geom_delay(r, 0.5) == 1 && cs__agent_geom_delay(r, 1.0) == 1;
    CS_CHECK_EQ_U64(ones, 20);

    double params[2] = {12.0, 4.0}, x = -1;
    cs_dist_t dists[2];
    memset(dists, 0, sizeof dists);
    cs_agent_t a;
    memset(&a, 0, sizeof a);
    a.ops = &k_ops;
    a.params = params;
    a.rng = r;
    /* no distributions at all, then kind NONE: the scalar applies */
    CS_CHECK(cs__agent_dist(&a, 0, &x) == 0 && x == -1);
    CS_CHECK(cs__agent_mean(&a, 0) == 12.0);
    a.dists = dists;
    CS_CHECK(cs__agent_dist(&a, 0, &x) == 0);
    /* constant draws clipped to [10, 20]; NaN to 10 */
    dists[0].kind = CS_DIST_CONSTANT;
    dists[0].p[0] = 5.0;
    CS_CHECK(cs__agent_dist(&a, 0, &x) == 1 && x == 10.0);
    dists[0].p[0] = 25.0;
    CS_CHECK(cs__agent_dist(&a, 0, &x) == 1 && x == 20.0);
    dists[0].p[0] = NAN;
    CS_CHECK(cs__agent_dist(&a, 0, &x) == 1 && x == 10.0);
    dists[0].p[0] = 17.25;
    CS_CHECK(cs__agent_dist(&a, 0, &x) == 1 && x == 17.25);
    CS_CHECK(cs__agent_value(&a, 0, 1) == 17.25);
    CS_CHECK(cs__agent_mean(&a, 0) == 17.25);
    /* a delay drawn as 0.3 rounds to 0: at least one block */
    dists[1].kind = CS_DIST_CONSTANT;
    dists[1].p[0] = 0.3;
    CS_CHECK_EQ_U64(cs__agent_delay(&a, 1), 1);
    dists[1].p[0] = 6.5;
    CS_CHECK_EQ_U64(cs__agent_delay(&a, 1), 7);
    /* Pareto(x_m 2, alpha 3) has mean 3 * 2 / 2 = 3; alpha 0.9 has none:
     * the scalar parameter 12 stands in */
    dists[0].kind = CS_DIST_PARETO;
    dists[0].p[0] = 2.0;
    dists[0].p[1] = 3.0;
    CS_CHECK(fabs(cs__agent_mean(&a, 0) - 3.0) < 1e-12);
    dists[0].p[1] = 0.9;
    CS_CHECK(cs__agent_mean(&a, 0) == 12.0);
    gsl_rng_free(r);
}

/* Distribution edges test_dist.c leaves out: an unweighted empirical (its
 * moments and CDF before and after cs_dist_prepare, a second prepare that
 * keeps the table), an empty one, prepare on another family, kind NONE. */
static void test_dist_edges(void)
{
    cs_dist_t d;
    double m = -1, v = -1;
    memset(&d, 0, sizeof d);
    d.kind = CS_DIST_UNIFORM;
    d.p[0] = 1, d.p[1] = 2;
    CS_CHECK(cs_dist_prepare(&d) == 0 && d.table == NULL && d.sorted == NULL);
    d.kind = CS_DIST_NONE;
    CS_CHECK(cs_dist_draw(&d, NULL) == 0.0 && cs_dist_cdf(&d, 5.0) == 0.0);
    CS_CHECK(cs_dist_moments(&d, &m, &v) == 0 && m == 0.0 && v == 0.0);

    /* {1, 4, 4, 7}, equal weights: mean 4, variance (9 + 0 + 0 + 9) / 4 */
    memset(&d, 0, sizeof d);
    d.kind = CS_DIST_EMPIRICAL;
    d.n = 4;
    d.values = malloc(4 * sizeof *d.values);
    if (d.values == NULL) return;
    d.values[0] = 7, d.values[1] = 4, d.values[2] = 1, d.values[3] = 4;
    CS_CHECK(cs_dist_moments(&d, &m, &v) == 0 && m == 4.0 && v == 4.5);
    CS_CHECK(cs_dist_cdf(&d, 5.0) == 0.0); /* not prepared: no table to read */
    CS_CHECK(cs_dist_prepare(&d) == 0 && d.table != NULL);
    const void *t = d.table;
    CS_CHECK(cs_dist_prepare(&d) == 0 && (const void *)d.table == t);
    CS_CHECK(cs_dist_cdf(&d, 0.5) == 0.0 && cs_dist_cdf(&d, 1.0) == 0.25 && cs_dist_cdf(&d, 4.0) == 0.75 &&
             cs_dist_cdf(&d, 6.5) == 0.75 && cs_dist_cdf(&d, 7.0) == 1.0);
    cs_dist_clear(&d);
    CS_CHECK(d.values == NULL && d.table == NULL && d.kind == CS_DIST_NONE);
    d.kind = CS_DIST_EMPIRICAL; /* no values */
    CS_CHECK(cs_dist_cdf(&d, 1.0) == 0.0);
    cs_dist_clear(NULL);
}

/* The price a bidder expects to pay for one fire (cs_agent_fire_price):
 * under a bid mechanism the bid share of the mean value, at least the
 * reserve; a fixed_share strategy's share replaces bid_frac, any other
 * strategy bids the whole value.  The kind below has no gas_limit,
 * cycles_frac nor payload_len, so a fee mechanism's and fifo's price is 0. */
static const cs_agent_param_t p_params[2] = {
    {"value", 1.0, 0.0, 1e18, "mean value", NULL},
    {"bid_frac", 0.5, 0.0, 1.0, "bid share", NULL},
};
static const char *const p_dist[] = {"value", NULL};
static const cs_agent_ops_t p_ops = {.name = "price-test", .params = p_params, .n_params = 2,
                                     .dist_params = p_dist};

static void test_price_and_names(void)
{
    double params[2] = {2385.0, 0.5};
    cs_agent_t a;
    memset(&a, 0, sizeof a);
    a.ops = &p_ops;
    a.params = params;
    cs_obs_t o;
    memset(&o, 0, sizeof o);
    o.mechanism = "bias-vcg";
    o.reserve_price = 1000;
    CS_CHECK(cs_agent_fire_price(&a, &o) == 1192.5);
    o.reserve_price = 1500;
    CS_CHECK(cs_agent_fire_price(&a, &o) == 1500);
    cs_strategy_t st;
    memset(&st, 0, sizeof st);
    st.kind = CS_STRAT_FIXED_SHARE;
    st.share = 0.25;
    a.strat = &st;
    o.reserve_price = 500;
    CS_CHECK(cs_agent_fire_price(&a, &o) == 596.25);
    st.kind = CS_STRAT_TRUTHFUL;
    CS_CHECK(cs_agent_fire_price(&a, &o) == 2385);
    o.mechanism = "eip1559";
    o.basefee_lane = 7;
    o.basefee_cycle = 3;
    CS_CHECK(cs_agent_fire_price(&a, &o) == 0.0);
    o.mechanism = "fifo";
    CS_CHECK(cs_agent_fire_price(&a, &o) == 0.0);

    CS_CHECK(cs_agent_param_dist(&p_ops, 0) == 1 && cs_agent_param_dist(&p_ops, 1) == 0);
    CS_CHECK(cs_agent_param_dist(&p_ops, 2) == 0 && cs_agent_param_dist(NULL, 0) == 0);
    CS_CHECK(cs_agent_param_dist(&k_ops, 0) == 0); /* no dist_params list */

    char full[1024], small[8];
    cs_agent_names(full, sizeof full);
    CS_CHECK(strncmp(full, cs_agent_registry[0]->name, strlen(cs_agent_registry[0]->name)) == 0);
    CS_CHECK(cs_agent_names(small, sizeof small) == small && strlen(small) == 7 && strncmp(full, small, 7) == 0);
    CS_CHECK(cs_agent_names(NULL, 8) == NULL);
    small[0] = 'x';
    CS_CHECK(cs_agent_names(small, 0) == small && small[0] == 'x');
}

int main(void)
{
    test_round();
    test_cycles();
    test_families();
    test_draws();
    test_dist_edges();
    test_price_and_names();
    return cs_test_done("agent_helpers");
}
