/*
 * test_rng.c -- PCG64-DXSM as a GSL generator (DESIGN §2.8).
 *
 * Reference outputs come from Debian's python3-numpy 1.24.2
 * (np.random.PCG64DXSM), computed once with:
 *
 *   import numpy as np
 *   def raw(S, I, n):
 *       g = np.random.PCG64DXSM()
 *       g.state = {'bit_generator': 'PCG64DXSM', 'state': {'state': S, 'inc': I},
 *                  'has_uint32': 0, 'uinteger': 0}
 *       return [hex(int(x)) for x in g.random_raw(n)]
 *
 * The stream-derivation vectors were computed independently of cowsim:
 * d = keccak256("cowsim-rng" || seed[8 BE] || stream[8 BE]) with the npm
 * package js-sha3 0.13.0, then in Python
 *   s0 = int(d[:32], 16); inc = int(d[32:], 16) | 1
 *   state = ((s0 + inc) * 0xda942042e4dd58b5 + inc) % 2**128
 * and raw(state, inc, 4) as above.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "cs_rng.h"
#include "cs_test.h"

#define U128(hi, lo) (((cs_u128)(hi) << 64) | (cs_u128)(lo))

static void test_type(void)
{
    gsl_rng *r = gsl_rng_alloc(cs_rng_pcg64dxsm);
    CS_CHECK(r != NULL);
    CS_CHECK_STR(gsl_rng_name(r), "pcg64dxsm");
    CS_CHECK_EQ_U64(gsl_rng_max(r), UINT64_MAX);
    CS_CHECK_EQ_U64(gsl_rng_min(r), 0);
    CS_CHECK_EQ_U64(gsl_rng_size(r), 32);
    gsl_rng_free(r);
}

/* numpy PCG64DXSM random_raw() outputs for explicit (state, inc). */
static void test_numpy_vectors(void)
{
    static const struct {
        uint64_t s_hi, s_lo, i_hi, i_lo;
        uint64_t out[10];
    } v[] = {
        {0x0123456789abcdefu, 0xfedcba9876543210u, 0, 1,
         {0xa5c2f45958c644a2u, 0x009e29c2aa68194bu, 0x22ec941a0538f382u, 0x385d70b01f46e86du,
          0x35f83183b039ff6cu, 0x5a81276469b44be7u, 0x66bdeace4e29e8cfu, 0x09d7a08f746de8c8u,
          0x76a29ba73b4b6da1u, 0xe317f491967a79e6u}},
        {0xd5a7c2e9b4f10836u, 0x22fa9b0c5e7d41a3u, 0x6b3e1f0c9a2d58e7u, 0xb1c4f3a20e9d7c55u,
         {0xd3411b9bfde2caccu, 0xd641ab913c09a7ecu, 0x621f9194275b86a9u, 0xfccb6d8a02ce0747u,
          0xa97a31cb0ad29115u, 0xf82f9292ba06be19u, 0xaccda83b05ca0f25u, 0xac2267d698a5b217u,
          0xf1cf3546e1608f5bu, 0xa07e3426d3d5bb06u}},
        {UINT64_MAX, UINT64_MAX, 0x8000000000000000u, 0x000000000000000bu,
         {0xe4dd58b4ffffe4deu, 0x26e5b83ba1203347u, 0x42a3b45246a0b89bu, 0xadd50810ebf97b21u,
          0x49cfdf1ee1563b8du, 0x003d0adcd3a6190du, 0x100b12020dbb7c60u, 0x9e7b2b5e980a06b7u,
          0xae501ca9ffc8e381u, 0x1f437b188ca3b0b0u}},
        /* state 0: the first output is DXSM(0) = 0 */
        {0, 0, 0x2545f4914f6cdd1du, 1,
         {0x0000000000000000u, 0xcb5b6befc33eb4a7u, 0xfa35630ddedf13f5u, 0xfba03dbde700a1c0u,
          0xb69cc1a88d1de9d1u, 0x65802b19db896ca6u, 0xfe12d2ced29d8c74u, 0x35782ca087bb03b8u,
          0xf45e381cb626082du, 0x5706313395a638c7u}},
    };
    gsl_rng *r = gsl_rng_alloc(cs_rng_pcg64dxsm);
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        cs_rng_set_state(r, U128(v[k].s_hi, v[k].s_lo), U128(v[k].i_hi, v[k].i_lo));
        /* Alternate the GSL entry point and the fast path: one sequence. */
        for (int j = 0; j < 10; j++) {
            uint64_t x = (j & 1) ? cs_rng_u64(r) : (uint64_t)gsl_rng_get(r);
            CS_CHECK_EQ_U64(x, v[k].out[j]);
        }
    }

    /* get_double = (x >> 11) * 2^-53: first output of pair 0 is
     * 0xa5c2f45958c644a2, so uniform * 2^53 must equal 0xa5c2f45958c644a2 >> 11
     * = 0x14b85e8b2b18c8 exactly. */
    cs_rng_set_state(r, U128(v[0].s_hi, v[0].s_lo), 1);
    {
        double u = gsl_rng_uniform(r);
        CS_CHECK(u * 0x1.0p53 == (double)0x14b85e8b2b18c8u);
    }
    /* Pair 3 starts with output 0: gsl_rng_uniform gives exactly 0.0 and
     * gsl_rng_uniform_pos skips it, returning the second output's value
     * 0xcb5b6befc33eb4a7 >> 11 = 0x196b6d7df867d6 (times 2^-53). */
    cs_rng_set_state(r, 0, U128(v[3].i_hi, v[3].i_lo));
    CS_CHECK(gsl_rng_uniform(r) == 0.0);
    cs_rng_set_state(r, 0, U128(v[3].i_hi, v[3].i_lo));
    CS_CHECK(gsl_rng_uniform_pos(r) * 0x1.0p53 == (double)0x196b6d7df867d6u);
    gsl_rng_free(r);
}

/* Stream derivation end to end against js-sha3 + numpy (see top). */
static void test_derivation_vectors(void)
{
    static const struct {
        uint64_t seed, stream;
        uint64_t s_hi, s_lo, i_hi, i_lo;
        uint64_t out[4];
    } v[] = {
        {20240917u, 0, 0xd7e6242df375cdd4u, 0x9c8541a642ed330fu, 0x381ea192d2f010dbu,
         0x26122af1058be54du,
         {0x91413e5e4a0b714bu, 0xfc839da4c1a9f717u, 0xf846f257a3440f1eu, 0x51eca89b19d76ee3u}},
        {20240917u, 1, 0x64212c5b1ddf8ffdu, 0x49d474c84a21e523u, 0x51409a1a86c8a073u,
         0x3ff1c75c1cddd9ddu,
         {0x1f722e70c232e511u, 0x91eb04f363a04afau, 0x6bc5c92bac4b53bcu, 0xde3d444b95cb4012u}},
        {7, 3, 0x8cd4718f7cb40255u, 0x04bcc7a0717d2a6cu, 0xd04a32c4367e2457u, 0x06d081ed6481982bu,
         {0x721e39b3d5a66cb1u, 0x0951db443441686du, 0xd1a1ce4ab3b92878u, 0x50e253e45285690au}},
    };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        cs_rng_state_t st;
        gsl_rng *r;
        cs_rng_derive(v[k].seed, v[k].stream, &st);
        CS_CHECK(st.state == U128(v[k].s_hi, v[k].s_lo));
        CS_CHECK(st.inc == U128(v[k].i_hi, v[k].i_lo));
        r = cs_rng_stream(v[k].seed, v[k].stream);
        CS_CHECK(r != NULL);
        for (int j = 0; j < 4; j++) CS_CHECK_EQ_U64(cs_rng_u64(r), v[k].out[j]);
        gsl_rng_free(r);
    }
    /* gsl_rng_set(r, s) seeds as cs_rng_stream(s, 0). */
    {
        gsl_rng *r = gsl_rng_alloc(cs_rng_pcg64dxsm);
        gsl_rng_set(r, 20240917u);
        CS_CHECK_EQ_U64(gsl_rng_get(r), 0x91413e5e4a0b714bu);
        CS_CHECK_EQ_U64(gsl_rng_get(r), 0xfc839da4c1a9f717u);
        gsl_rng_free(r);
    }
}

/* Count positions where the first n outputs of a and b agree. */
static long agreements(gsl_rng *a, gsl_rng *b, int n)
{
    long same = 0;
    for (int i = 0; i < n; i++) same += cs_rng_u64(a) == cs_rng_u64(b);
    return same;
}

static void test_streams(void)
{
    /* Determinism: seed 918273645, stream 12, twice -> same 1,000 outputs. */
    gsl_rng *a = cs_rng_stream(918273645u, 12), *b = cs_rng_stream(918273645u, 12);
    CS_CHECK_EQ_U64(agreements(a, b, 1000), 1000);
    gsl_rng_free(a);
    gsl_rng_free(b);

    /* Neighbouring streams and seeds differ: with independent 64-bit
     * outputs, equal values at the same position have probability 2^-64. */
    a = cs_rng_stream(918273645u, 12);
    b = cs_rng_stream(918273645u, 13);
    CS_CHECK_EQ_U64(agreements(a, b, 1000), 0);
    gsl_rng_free(a);
    gsl_rng_free(b);
    a = cs_rng_stream(918273645u, 12);
    b = cs_rng_stream(918273646u, 12);
    CS_CHECK_EQ_U64(agreements(a, b, 1000), 0);
    gsl_rng_free(a);
    gsl_rng_free(b);
    /* Seed and stream are not interchangeable. */
    a = cs_rng_stream(5, 9);
    b = cs_rng_stream(9, 5);
    CS_CHECK_EQ_U64(agreements(a, b, 1000), 0);
    gsl_rng_free(a);
    gsl_rng_free(b);

    /* Derived increments are distinct across 1,000 streams of one seed
     * (so no two streams share an LCG orbit offset trivially), and all odd. */
    {
        enum { NS = 1000 };
        cs_u128 *inc = malloc(NS * sizeof *inc);
        long odd = 0, dup = 0;
        for (int s = 0; s < NS; s++) {
            cs_rng_state_t st;
            cs_rng_derive(31415926u, (uint64_t)s, &st);
            inc[s] = st.inc;
            odd += (long)(st.inc & 1u);
        }
        for (int i = 0; i < NS; i++)
            for (int j = i + 1; j < NS; j++) dup += inc[i] == inc[j];
        CS_CHECK_EQ_U64(odd, NS);
        CS_CHECK_EQ_U64(dup, 0);
        free(inc);
    }

    /* gsl_rng_clone copies the state: the clone continues identically. */
    a = cs_rng_stream(2718281828u, 4);
    for (int i = 0; i < 37; i++) (void)cs_rng_u64(a);
    b = gsl_rng_clone(a);
    CS_CHECK_EQ_U64(agreements(a, b, 100), 100);
    gsl_rng_free(a);
    gsl_rng_free(b);
}

static void test_distributions(void)
{
    gsl_rng *r = cs_rng_stream(424242u, 0);
    enum { N = 100000 };
    double sum = 0.0, lo = 1.0, hi = 0.0;
    long bad = 0;
    for (int i = 0; i < N; i++) {
        double u = gsl_rng_uniform(r);
        if (!(u >= 0.0 && u < 1.0)) bad++;
        sum += u;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    CS_CHECK_EQ_U64(bad, 0);
    /* Mean of U(0,1): 0.5, sd of the mean sqrt(1/12/1e5) = 0.000913;
     * allow 5 sd = 0.0046. */
    CS_CHECK(fabs(sum / N - 0.5) < 0.0046);
    CS_CHECK(lo < 0.001 && hi > 0.999); /* P(fail) = 2 * 0.999^1e5 ~ 1e-43 */

    /* gsl_rng_uniform_int over a full-range generator: values in [0, 7). */
    {
        long counts[7] = {0}, out = 0;
        for (int i = 0; i < 70000; i++) {
            unsigned long k = gsl_rng_uniform_int(r, 7);
            if (k >= 7) out++;
            else counts[k]++;
        }
        CS_CHECK_EQ_U64(out, 0);
        /* Each count ~ Binomial(70000, 1/7): mean 10000, sd 92.6; 5 sd = 463. */
        for (int k = 0; k < 7; k++) CS_CHECK(labs(counts[k] - 10000) < 463);
    }

    /* gsl_ran_poisson(mu = 3.7): mean mu, variance mu.  For 50,000 draws
     * the sd of the sample mean is sqrt(3.7/5e4) = 0.0086 (5 sd = 0.043);
     * the sample variance has sd about sqrt((mu + 2 mu^2)/5e4) = 0.025
     * (5 sd = 0.13). */
    {
        enum { M = 50000 };
        double s = 0.0, s2 = 0.0;
        for (int i = 0; i < M; i++) {
            double k = (double)gsl_ran_poisson(r, 3.7);
            s += k;
            s2 += k * k;
        }
        double mean = s / M, var = s2 / M - mean * mean;
        CS_CHECK(fabs(mean - 3.7) < 0.043);
        CS_CHECK(fabs(var - 3.7) < 0.13);
    }
    gsl_rng_free(r);

    /* Poisson draws are reproducible from the same stream. */
    {
        gsl_rng *a = cs_rng_stream(77u, 5), *b = cs_rng_stream(77u, 5);
        long same = 0;
        for (int i = 0; i < 1000; i++) same += gsl_ran_poisson(a, 12.5) == gsl_ran_poisson(b, 12.5);
        CS_CHECK_EQ_U64(same, 1000);
        gsl_rng_free(a);
        gsl_rng_free(b);
    }
}

int main(void)
{
    test_type();
    test_numpy_vectors();
    test_derivation_vectors();
    test_streams();
    test_distributions();
    return cs_test_done("rng");
}
