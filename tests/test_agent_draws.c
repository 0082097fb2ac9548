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
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

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

int main(void)
{
    test_geometric();
    test_poisson();
    return cs_test_done("agent_draws");
}
