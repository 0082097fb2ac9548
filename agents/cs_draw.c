/*
 * cs_draw.c -- the PCG64-DXSM generator as a GSL generator type, and the
 * derivation of a stream's state (cs_draw.h; DESIGN §2.7-2.8).
 */
#include "cs_draw.h"

#include <limits.h>
#include <string.h>

#include "cs_timer.h" /* cs_keccak256 */

CS_STATIC_ASSERT(ULONG_MAX == UINT64_MAX, "the pcg64dxsm GSL type needs a 64-bit unsigned long");

/* Read 16 bytes as a big-endian 128-bit integer. */
static cs_u128 cs__be128(const uint8_t *p)
{
    cs_u128 v = 0;
    for (int i = 0; i < 16; i++) v = (v << 8) | p[i];
    return v;
}

/* Derive (state, inc) for (seed, stream); see cs_draw.h for the formula. */
void cs_pcg_derive(uint64_t seed, uint64_t stream, cs_pcg_t *st)
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
    st->state = st->state * (cs_u128)CS_PCG_MULT + st->inc;
}

/* gsl_rng_type.set: seed as stream 0 of seed. */
static void cs__pcg_set(void *vstate, unsigned long seed)
{
    cs_pcg_derive((uint64_t)seed, 0, (cs_pcg_t *)vstate);
}

/* gsl_rng_type.get: the full 64-bit output. */
static unsigned long cs__pcg_get(void *vstate)
{
    return (unsigned long)cs_pcg_next((cs_pcg_t *)vstate);
}

/* gsl_rng_type.get_double: the top 53 bits scaled into [0, 1). */
static double cs__pcg_get_double(void *vstate)
{
    return (double)(cs_pcg_next((cs_pcg_t *)vstate) >> 11) * 0x1.0p-53;
}

const gsl_rng_type cs_pcg_gsl_type = {
    "pcg64dxsm",          /* name */
    0xffffffffffffffffUL, /* max */
    0UL,                  /* min */
    sizeof(cs_pcg_t),     /* size */
    cs__pcg_set,          /* set */
    cs__pcg_get,          /* get */
    cs__pcg_get_double    /* get_double */
};
