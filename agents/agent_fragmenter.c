/*
 * agent_fragmenter.c -- the "fragmenter" kind (DESIGN §3): one deployer
 * splitting its demand across K actors so that each looks "quiet" and
 * keeps W(actor) = 2 (CIP-1 rev §8, known limitation 1, the fragmentation
 * attack).  One instance controls K actors (n_actors = k).
 *
 * Its total demand is exactly that of one honest default_gba actor with
 * the same parameters: the same Poisson(rate x demand_mult) arrivals with
 * the same three draws each (cs__agent_arrival), in the same order.  The
 * j-th arrival (j = 0, 1, ...) goes to actor j mod K, round robin, so with
 * K = 1 the request stream is default_gba's.  Pricing is default_gba's.
 */
#include "cs_agent_int.h"

#define FR_PARAMS(X)                                                                   \
    CS__ARRIVAL_ROWS(X, 0.5, 20, 5e8, 0.5, 0.01, 0, 100000, 0.6, 64)                   \
    X(BID_FRAC, "bid_frac", 0, 0, 1, "bid mechanisms: bid this share of the value; 0 = no bid (Bias only)") \
    X(K, "k", 10, 1, 100000, "actors the deployer's demand is split over (round robin)")

enum { FR_PARAMS(CS__P_ENUM) P__COUNT };
CS_STATIC_ASSERT((int)P_RATE == (int)CS__AR_RATE && (int)P_TTL == (int)CS__AR_TTL, "shared rows come first");

static const cs_agent_param_t fr_params[] = {FR_PARAMS(CS__P_ROW)};
CS_STATIC_ASSERT(sizeof fr_params / sizeof fr_params[0] == P__COUNT, "one row per parameter");

typedef struct fr_state {
    uint64_t arrivals;  /* arrivals drawn so far (round-robin counter) */
    uint64_t rejected;  /* schedule calls refused by the world */
} fr_state_t;

/* Actors controlled: K. */
static uint32_t fr_n_actors(const double *params)
{
    uint64_t k = cs__agent_u64(params[P_K]);
    return k ? (uint32_t)k : 1u;
}

/* Each block: default_gba's arrivals, dealt round robin over K actors. */
static void fr_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    fr_state_t *s = a->state;
    int mc = cs__agent_mc(a, o);
    uint64_t k = fr_n_actors(a->params);
    unsigned n = cs__agent_count(a, P_RATE, o);
    for (unsigned i = 0; i < n; i++) {
        cs_timer_req_t q;
        cs__agent_arrival(a, &q);
        cs__agent_price_default(mc, a->params[P_BID_FRAC], &q);
        q.actor = (uint32_t)(s->arrivals % k);
        q.tag = (uint32_t)s->arrivals++;
        if (!cs__agent_enters(a, w, o, &q)) continue; /* value-aware: not worth it now */
        if (cs_world_schedule(w, a, &q, NULL) != CS_OK) s->rejected++;
    }
}

const cs_agent_ops_t cs__agent_fragmenter = {
    .name = "fragmenter",
    .version = 1,
    .kind = CS_AK_FRAGMENTER,
    .state_size = sizeof(fr_state_t),
    .params = fr_params,
    .n_params = P__COUNT,
    .dist_params = cs__arrival_dists,
    .n_actors = fr_n_actors,
    .on_block = fr_on_block,
};
