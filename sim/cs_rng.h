/*
 * cs_rng.h -- PCG64 with the DXSM output function, as a GSL generator
 * (DESIGN §2.7-2.8).
 *
 * Generator, GSL type and stream derivation: agents/cs_draw.h, where the
 * agents can step their own streams inline (issue 26 point 3); this
 * header keeps the names the simulator and the tests use.  The output is
 * bit-for-bit numpy's PCG64DXSM (checked in tests/test_rng.c against numpy
 * 1.24.2 with the raw state and inc set explicitly).
 *
 * GSL type cs_rng_pcg64dxsm: name "pcg64dxsm", min 0, max 2^64 - 1 (this
 * needs a 64-bit unsigned long), get = the full 64-bit output, get_double
 * = (x >> 11) * 2^-53, in [0, 1).  Every gsl_ran_* distribution can draw
 * from it.  gsl_rng_set(r, seed) (and gsl_rng_alloc, which uses
 * gsl_rng_default_seed) seeds exactly as cs_rng_stream(seed, 0).
 *
 * Stream derivation (cs_rng_stream, DESIGN §2.7 per-agent streams): the
 * keccak256 of "cowsim-rng", seed and stream (cs_pcg_derive, cs_draw.h).
 * Distinct (seed, stream) pairs give unrelated (state, increment) pairs,
 * hence independent sequences.
 *
 * Ownership: generators come from gsl_rng_alloc / cs_rng_stream and are
 * released by the caller with gsl_rng_free.
 */
#ifndef CS_RNG_H
#define CS_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "cs_draw.h"
#include "cs_types.h"

#define CS_RNG_MULT CS_PCG_MULT /* PCG "cheap multiplier" (numpy PCG64DXSM) */

/* The generator state behind gsl_rng.state for cs_rng_pcg64dxsm. */
typedef cs_pcg_t cs_rng_state_t;

/* The PCG64-DXSM generator type (cs_pcg_gsl_type, agents/cs_draw.h). */
extern const gsl_rng_type *cs_rng_pcg64dxsm;

/*
 * Set the raw (state, inc) of a cs_rng_pcg64dxsm generator.  inc must be
 * odd (it is a programming error otherwise, caught by CS_ASSERT).  The
 * next output is DXSM(state), matching numpy's
 * bit_generator.state = {'state': {'state': state, 'inc': inc}, ...}.
 */
void cs_rng_set_state(gsl_rng *r, cs_u128 state, cs_u128 inc);

/*
 * Allocate a cs_rng_pcg64dxsm generator seeded for (seed, stream) by the
 * derivation above.  Returns NULL if allocation fails (GSL's error handler
 * runs first; the default handler aborts).  The caller frees it with
 * gsl_rng_free.
 */
gsl_rng *cs_rng_stream(uint64_t seed, uint64_t stream);

/* Fill st with the derived (state, inc) for (seed, stream); no allocation. */
static inline void cs_rng_derive(uint64_t seed, uint64_t stream, cs_rng_state_t *st)
{
    cs_pcg_derive(seed, stream, st);
}

/* One PCG64-DXSM step on st: return DXSM(state), then advance the LCG. */
static inline uint64_t cs_rng_next(cs_rng_state_t *st) { return cs_pcg_next(st); }

/*
 * Fast path: the next 64-bit output of r, which must be a
 * cs_rng_pcg64dxsm generator.  Same sequence as gsl_rng_get(r) without the
 * indirect call.
 */
static inline uint64_t cs_rng_u64(gsl_rng *r)
{
    CS_ASSERT(r->type == cs_rng_pcg64dxsm);
    return cs_rng_next((cs_rng_state_t *)r->state);
}

#endif /* CS_RNG_H */
