/*
 * cs_draw.h -- the generator of the agents' streams, PCG64 with the DXSM
 * output function, and the draws agents take from it inline (DESIGN
 * §2.7-2.8; issue 26 point 3, DESIGN-NOTES N103).
 *
 * The generator lives here, below sim/, so agents can step their own
 * stream without a function-pointer call per variate: sim/cs_rng.h wraps
 * it as a GSL generator type (cs_rng_pcg64dxsm, whose state is a
 * cs_pcg_t) and derives the per-agent streams; agents reach the state
 * through a->rng.  Every draw here takes exactly the outputs, in exactly
 * the order and with exactly the floating-point operations, of the GSL
 * call named next to it, so a stream gives the same variates either way
 * and the two may be mixed freely (tests/test_agent_draws.c compares
 * them).  A generator of another GSL type falls back to GSL itself.
 *
 * Generator.  A 128-bit LCG, state' = state * M + inc (mod 2^128) with the
 * 64-bit "cheap multiplier" M = 0xda942042e4dd58b5, and the DXSM output
 * taken from the state *before* the step:
 *     hi = state >> 64;  lo = (uint64_t)state | 1;
 *     hi ^= hi >> 32;  hi *= M;  hi ^= hi >> 48;  hi *= lo;   -> output
 * (numpy's PCG64DXSM, checked in tests/test_rng.c).
 *
 * Ownership: plain values; the gsl_rng holding a cs_pcg_t is allocated and
 * freed by whoever made it (sim/cs_rng.h).
 */
#ifndef CS_DRAW_H
#define CS_DRAW_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "cs_types.h"

#define CS_PCG_MULT 0xda942042e4dd58b5u /* PCG "cheap multiplier" (numpy PCG64DXSM) */

/* The state of one stream. */
typedef struct cs_pcg {
    cs_u128 state; /* LCG state; the next output is DXSM(state) */
    cs_u128 inc;   /* LCG increment, always odd */
} cs_pcg_t;

/* The GSL generator type whose state is a cs_pcg_t: name "pcg64dxsm",
 * min 0, max 2^64 - 1, get = the 64-bit output, get_double = (x >> 11) *
 * 2^-53; set(seed) derives stream 0 of seed (cs_pcg_derive). */
extern const gsl_rng_type cs_pcg_gsl_type;

/*
 * Derive (state, inc) for (seed, stream):
 *     d   = keccak256("cowsim-rng" || seed[8 BE] || stream[8 BE])  (26 bytes in)
 *     s0  = d[0..15]  read as a big-endian 128-bit integer
 *     inc = d[16..31] read as a big-endian 128-bit integer, | 1
 *     state = (s0 + inc) * M + inc   (mod 2^128)
 * The last line is PCG's own seeding (state = 0; step; state += s0; step),
 * with inc used as given rather than as (initseq << 1) | 1.
 */
void cs_pcg_derive(uint64_t seed, uint64_t stream, cs_pcg_t *st);

/* One PCG64-DXSM step on st: return DXSM(state), then advance the LCG. */
static inline uint64_t cs_pcg_next(cs_pcg_t *st)
{
    uint64_t hi = (uint64_t)(st->state >> 64);
    uint64_t lo = (uint64_t)st->state | 1u;
    hi ^= hi >> 32;
    hi *= (uint64_t)CS_PCG_MULT;
    hi ^= hi >> 48;
    hi *= lo;
    st->state = st->state * (cs_u128)CS_PCG_MULT + st->inc;
    return hi;
}

/* gsl_rng_uniform(r): the next output's top 53 bits scaled into [0, 1). */
static inline double cs_draw_uniform(gsl_rng *r)
{
    if (CS_LIKELY(r->type == &cs_pcg_gsl_type)) return (double)(cs_pcg_next((cs_pcg_t *)r->state) >> 11) * 0x1.0p-53;
    return gsl_rng_uniform(r);
}

/* gsl_rng_uniform_pos(r): uniforms until one is not 0. */
static inline double cs_draw_uniform_pos(gsl_rng *r)
{
    double x;
    do x = cs_draw_uniform(r);
    while (x == 0);
    return x;
}

/* gsl_ran_flat(r, lo, hi): one uniform u, lo (1 - u) + hi u (GSL 2.x's
 * randist/flat.c, the same operations in the same order). */
static inline double cs_draw_flat(gsl_rng *r, double lo, double hi)
{
    double u = cs_draw_uniform(r);
    return lo * (1 - u) + hi * u;
}

#endif /* CS_DRAW_H */
