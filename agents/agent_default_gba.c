/*
 * agent_default_gba.c -- the "default_gba" kind (DESIGN §3): a plain user
 * who schedules without fee parameters, so the protocol's default GBA
 * prices each fire (CIP-1 rev §7.1: max_fee = 2 x basefee_lane,
 * max_priority = previous-block p50 tip).
 *
 * Arrivals: Poisson(rate x demand_mult) per block; each arrival draws a
 * geometric delay, a lognormal value and a uniform for its cycles, in that
 * order (cs__agent_arrival), so the draw pattern depends on the stream
 * only (common random numbers, DESIGN §2.7).
 *
 * Bid mechanisms: a bid of bid_frac x value per fire; the default 0 means
 * no bid, relying on Bias alone (CIP-5 §9.7 "bid = 0 rely entirely on
 * bias accumulation").
 */
#include "cs_agent_int.h"

#define DG_PARAMS(X)                                                                   \
    CS__ARRIVAL_ROWS(X, 0.5, 20, 5e8, 0.5, 0.01, 0, 100000, 0.6, 64)                   \
    X(BID_FRAC, "bid_frac", 0, 0, 1, "bid mechanisms: bid this share of the value; 0 = no bid (Bias only)")

enum { DG_PARAMS(CS__P_ENUM) P__COUNT };
CS_STATIC_ASSERT((int)P_RATE == (int)CS__AR_RATE && (int)P_TTL == (int)CS__AR_TTL, "shared rows come first");

static const cs_agent_param_t dg_params[] = {DG_PARAMS(CS__P_ROW)};
CS_STATIC_ASSERT(sizeof dg_params / sizeof dg_params[0] == P__COUNT, "one row per parameter");

typedef struct dg_state {
    uint64_t arrivals;  /* arrivals drawn so far */
    uint64_t rejected;  /* schedule calls refused by the world */
} dg_state_t;

/* Each block: Poisson arrivals of the shared model, priced by the default
 * GBA (fee mechanisms) or bid_frac x value (bid mechanisms). */
static void dg_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    dg_state_t *s = a->state;
    int mc = cs__agent_mc(a, o);
    unsigned n = cs__agent_count(a, P_RATE, o);
    for (unsigned i = 0; i < n; i++) {
        cs_timer_req_t q;
        cs__agent_arrival(a, &q);
        cs__agent_price_default(mc, a->params[P_BID_FRAC], &q);
        q.tag = (uint32_t)s->arrivals++;
        if (!cs__agent_enters(a, w, o, &q)) continue; /* value-aware: not worth it now */
        if (cs_world_schedule(w, a, &q, NULL) != CS_OK) s->rejected++;
    }
}

const cs_agent_ops_t cs__agent_default_gba = {
    .name = "default_gba",
    .version = 1,
    .kind = CS_AK_DEFAULT_GBA,
    .state_size = sizeof(dg_state_t),
    .params = dg_params,
    .n_params = P__COUNT,
    .dist_params = cs__arrival_dists,
    .on_block = dg_on_block,
};
