/*
 * cs_rng.c -- PCG64-DXSM wrapped as a gsl_rng_type (DESIGN §2.8).  The
 * algorithm, the GSL type's contract and the stream derivation are
 * documented in cs_rng.h.
 */
#include "cs_rng.h"

#include <limits.h>
#include <string.h>

#include "cs_timer.h" /* cs_keccak256 */

CS_STATIC_ASSERT(ULONG_MAX == UINT64_MAX, "cs_rng_pcg64dxsm needs a 64-bit unsigned long");

/* Read 16 bytes as a big-endian 128-bit integer. */
static cs_u128 cs__be128(const uint8_t *p)
{
    cs_u128 v = 0;
    for (int i = 0; i < 16; i++) v = (v << 8) | p[i];
    return v;
}

/* Derive (state, inc) for (seed, stream); see cs_rng.h for the formula. */
void cs_rng_derive(uint64_t seed, uint64_t stream, cs_rng_state_t *st)
{
    static const char tag[] = "cowsim-rng"; /* 10 bytes, no NUL hashed */
    uint8_t in[sizeof tag - 1 + 16], d[32];
    cs_u128 s0;
    memcpy(in, tag, sizeof tag - 1);
    for (int i = 0; i < 8; i++) {
        in[sizeof tag - 1 + i] = (uint8_t)(seed >> (56 - 8 * i));
        in[sizeof tag - 1 + 8 + i] = (uint8_t)(stream >> (56 - 8 * i));
    }
    cs_keccak256(in, sizeof in, d);
    s0 = cs__be128(d);
    st->inc = cs__be128(d + 16) | 1u;
    /* PCG seeding: state = 0; step; state += s0; step. */
    st->state = st->inc;
    st->state += s0;
    st->state = st->state * (cs_u128)CS_RNG_MULT + st->inc;
}

/* gsl_rng_type.set: seed as cs_rng_stream(seed, 0). */
static void cs__rng_set(void *vstate, unsigned long seed)
{
    cs_rng_derive((uint64_t)seed, 0, (cs_rng_state_t *)vstate);
}

/* gsl_rng_type.get: the full 64-bit output. */
static unsigned long cs__rng_get(void *vstate)
{
    return (unsigned long)cs_rng_next((cs_rng_state_t *)vstate);
}

/* gsl_rng_type.get_double: the top 53 bits scaled into [0, 1). */
static double cs__rng_get_double(void *vstate)
{
    return (double)(cs_rng_next((cs_rng_state_t *)vstate) >> 11) * 0x1.0p-53;
}

static const gsl_rng_type cs__pcg64dxsm_type = {
    "pcg64dxsm",            /* name */
    0xffffffffffffffffUL,   /* max */
    0UL,                    /* min */
    sizeof(cs_rng_state_t), /* size */
    cs__rng_set,            /* set */
    cs__rng_get,            /* get */
    cs__rng_get_double      /* get_double */
};

const gsl_rng_type *cs_rng_pcg64dxsm = &cs__pcg64dxsm_type;

/* Set the raw LCG state and odd increment of r (a pcg64dxsm generator). */
void cs_rng_set_state(gsl_rng *r, cs_u128 state, cs_u128 inc)
{
    cs_rng_state_t *st;
    CS_ASSERT(r->type == cs_rng_pcg64dxsm);
    CS_ASSERT((inc & 1u) == 1u);
    st = (cs_rng_state_t *)r->state;
    st->state = state;
    st->inc = inc;
}

/* Allocate a generator for (seed, stream); NULL on allocation failure. */
gsl_rng *cs_rng_stream(uint64_t seed, uint64_t stream)
{
    gsl_rng *r = gsl_rng_alloc(cs_rng_pcg64dxsm);
    if (!r) return NULL;
    cs_rng_derive(seed, stream, (cs_rng_state_t *)r->state);
    return r;
}
