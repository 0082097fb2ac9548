/*
 * test_agent_helpers.c -- the helpers every agent kind draws through
 * (agents/cs_agent.c, cs_agent_int.h), at their edges, against hand
 * values: rounding to [0, 2^62], the cycles model's clip of the used
 * fraction to [0, 1] and its one-cycle floor, the mechanism families,
 * degenerate lognormal and geometric parameters, a distribution draw
 * clipped to the parameter's bounds (NaN to the lower one), a draw that
 * rounds to a zero delay, and the mean an agent reads of a Pareto without
 * one (alpha <= 1: the scalar parameter instead).
 */
#include "cs_test.h"

#include "cs_agent.h"
#include "cs_agent_int.h"
#include "cs_rng.h"

#include <gsl/gsl_rng.h>
#include <math.h>

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
    {"x", 15.0, 10.0, 20.0, "a bounded parameter"},
    {"d", 3.0, 0.0, 1000.0, "a delay"},
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

int main(void)
{
    test_round();
    test_cycles();
    test_families();
    test_draws();
    return cs_test_done("agent_helpers");
}
