/*
 * cs_rng.c -- PCG64-DXSM streams as GSL generators (DESIGN §2.8).  The
 * generator type and the derivation live in agents/cs_draw.c; this file
 * names the type for the simulator and allocates the streams.
 */
#include "cs_rng.h"

const gsl_rng_type *cs_rng_pcg64dxsm = &cs_pcg_gsl_type;

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
