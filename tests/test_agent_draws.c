/*
 * test_agent_draws.c -- the agents' own geometric and Poisson draws
 * (cs__agent_geometric, cs__agent_poisson; issue 26: they keep log(1 - p)
 * and e^-mu between calls) give, from the same stream, the same variates
 * as GSL's gsl_ran_geometric and gsl_ran_poisson, the independent
 * reference: two generators on one stream, one drawn through each, must
 * agree on every variate and end in the same state.  Parameters change
 * from call to call (so a kept logarithm or exponential of another
 * parameter would be caught), and cover p = 1, tiny and near-1 p, mu = 0,
 * and mu on both sides of 10 (GSL's own reduction above it).
 *
 * Issue 26 point 3: the inline draws of agents/cs_draw.h (the uniform, the
 * positive uniform, the flat distribution, cs_dist_draw_inline) against
 * GSL's own calls on a second generator of the same stream, also for a
 * generator of another GSL type (the fallback); cs__agent_u64 against
 * llround on halves, near-halves and random doubles of every magnitude;
 * and the mechanism family an agent keeps (cs__agent_mc) following the
 * name it is shown.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <string.h>

#include "cs_agent.h"
#include "cs_agent_int.h"
#include "cs_rng.h"
#include "cs_test.h"

#define N_DRAWS 20000

static void test_geometric(void)
{
    static const double ps[] = {0.1, 1.0 / 3.0, 0.5, 0.999, 1e-6, 1.0, 0.7311, 0.1};
    const size_t np = sizeof ps / sizeof ps[0];
    gsl_rng *a = cs_rng_stream(2385, 7), *b = cs_rng_stream(2385, 7);
    CS_CHECK(a != NULL && b != NULL);
    long diff = 0;
    for (int i = 0; i < N_DRAWS; i++) {
        /* Runs of one p (the kept logarithm is used) and changes between them. */
        double p = ps[(size_t)(i / 3) % np];
        unsigned x = cs__agent_geometric(a, p), y = gsl_ran_geometric(b, p);
        if (x != y) diff++;
    }
    CS_CHECK_EQ_U64(diff, 0);
    CS_CHECK_EQ_U64(gsl_rng_get(a), gsl_rng_get(b)); /* the same number of uniforms */
    gsl_rng_free(a);
    gsl_rng_free(b);
}

static void test_poisson(void)
{
    static const double mus[] = {1.0, 0.0, 0.002, 2.385, 9.99, 10.0, 10.5, 37.2, 1.0, 5e-9};
    const size_t nm = sizeof mus / sizeof mus[0];
    gsl_rng *a = cs_rng_stream(2385, 11), *b = cs_rng_stream(2385, 11);
    CS_CHECK(a != NULL && b != NULL);
    long diff = 0, sum = 0;
    for (int i = 0; i < N_DRAWS; i++) {
        double mu = mus[(size_t)(i / 3) % nm];
        unsigned x = cs__agent_poisson(a, mu), y = gsl_ran_poisson(b, mu);
        if (x != y) diff++;
        sum += x;
    }
    CS_CHECK_EQ_U64(diff, 0);
    CS_CHECK(sum > 0);
    CS_CHECK_EQ_U64(gsl_rng_get(a), gsl_rng_get(b));
    gsl_rng_free(a);
    gsl_rng_free(b);
}

/* The inline uniforms of r against GSL's on s (the same stream): every
 * value bit for bit, and the same state after. */
static void check_uniforms(gsl_rng *r, gsl_rng *s)
{
    static const double lo[] = {0.0, -2.385, 1e9, -4.2e14, 7.0};
    static const double hi[] = {4.2e14, 2.385, 1e9, 3.0, -7.5};
    long diff = 0;
    for (int i = 0; i < N_DRAWS; i++) {
        double x, y;
        switch (i % 3) {
        case 0:
            x = cs_draw_uniform(r);
            y = gsl_rng_uniform(s);
            break;
        case 1:
            x = cs_draw_uniform_pos(r);
            y = gsl_rng_uniform_pos(s);
            break;
        default:
            x = cs_draw_flat(r, lo[i % 5], hi[i % 5]);
            y = gsl_ran_flat(s, lo[i % 5], hi[i % 5]);
            break;
        }
        if (memcmp(&x, &y, sizeof x) != 0) diff++;
    }
    CS_CHECK_EQ_U64(diff, 0);
    CS_CHECK_EQ_U64(gsl_rng_get(r), gsl_rng_get(s));
}

static void test_uniforms(void)
{
    gsl_rng *a = cs_rng_stream(2385, 13), *b = cs_rng_stream(2385, 13);
    gsl_rng *c = gsl_rng_alloc(gsl_rng_mt19937), *d = gsl_rng_alloc(gsl_rng_mt19937);
    CS_CHECK(a != NULL && b != NULL && c != NULL && d != NULL);
    check_uniforms(a, b);
    gsl_rng_set(c, 2385);
    gsl_rng_set(d, 2385);
    check_uniforms(c, d); /* another GSL type: the fallback to GSL itself */
    /* cs_dist_draw_inline against cs_dist_draw, per family it inlines and
     * one it hands on (exponential). */
    cs_dist_t dd[3];
    memset(dd, 0, sizeof dd);
    dd[0].kind = CS_DIST_UNIFORM;
    dd[0].p[0] = 2.385;
    dd[0].p[1] = 4.2e14;
    dd[1].kind = CS_DIST_CONSTANT;
    dd[1].p[0] = 2.385;
    dd[2].kind = CS_DIST_EXPONENTIAL;
    dd[2].p[0] = 7.5;
    long diff = 0;
    for (int i = 0; i < 3000; i++) {
        double x = cs_dist_draw_inline(&dd[i % 3], a), y = cs_dist_draw(&dd[i % 3], b);
        if (memcmp(&x, &y, sizeof x) != 0) diff++;
    }
    CS_CHECK_EQ_U64(diff, 0);
    CS_CHECK_EQ_U64(gsl_rng_get(a), gsl_rng_get(b));
    gsl_rng_free(a);
    gsl_rng_free(b);
    gsl_rng_free(c);
    gsl_rng_free(d);
}

/* cs__agent_u64 is llround on (0, 2^62). */
static void test_round(void)
{
    long diff = 0;
    /* Halves and their neighbours up to 2^53, where halves stop existing. */
    for (int e = 0; e <= 53; e++) {
        double base = ldexp(1.0, e);
        const double xs[] = {base + 0.5, base - 0.5, base + 1.5};
        for (int j = 0; j < 3; j++) {
            double x = xs[j];
            if (!(x > 0.0)) continue;
            const double ns[] = {x, nextafter(x, 0.0), nextafter(x, INFINITY)};
            for (int k = 0; k < 3; k++)
                if (cs__agent_u64(ns[k]) != (uint64_t)llround(ns[k])) diff++;
        }
    }
    if (cs__agent_u64(0.49999999999999994) != 0) diff++; /* floor(x + 0.5) would give 1 */
    /* Random doubles of every magnitude from 2^-30 to 2^62. */
    gsl_rng *r = cs_rng_stream(2385, 17);
    CS_CHECK(r != NULL);
    for (int i = 0; i < N_DRAWS; i++) {
        double x = ldexp(1.0 + cs_draw_uniform(r), (int)(cs_draw_uniform(r) * 92.0) - 30);
        if (x >= 4611686018427387904.0) continue;
        if (cs__agent_u64(x) != (uint64_t)llround(x)) diff++;
    }
    CS_CHECK_EQ_U64(diff, 0);
    gsl_rng_free(r);
}

/* The family kept in the agent follows the name it is shown. */
static void test_mclass_kept(void)
{
    cs_agent_t a;
    cs_obs_t o;
    memset(&a, 0, sizeof a);
    memset(&o, 0, sizeof o);
    CS_CHECK_EQ_U64(cs__agent_mc(&a, &o), CS__MC_NONE); /* no name */
    o.mechanism = "bias-vcg";
    CS_CHECK_EQ_U64(cs__agent_mc(&a, &o), CS__MC_BID);
    CS_CHECK_EQ_U64(cs__agent_mc(&a, &o), CS__MC_BID);
    o.mechanism = "eip1559";
    CS_CHECK_EQ_U64(cs__agent_mc(&a, &o), CS__MC_FEE);
    o.mechanism = "fifo";
    CS_CHECK_EQ_U64(cs__agent_mc(&a, &o), CS__MC_NONE);
    o.mechanism = NULL;
    CS_CHECK_EQ_U64(cs__agent_mc(&a, &o), CS__MC_NONE);
    o.mechanism = "score";
    CS_CHECK_EQ_U64(cs__agent_mc(&a, &o), CS__MC_BID);
}

int main(void)
{
    test_geometric();
    test_poisson();
    test_uniforms();
    test_round();
    test_mclass_kept();
    return cs_test_done("agent_draws");
}
