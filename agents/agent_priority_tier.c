/*
 * agent_priority_tier.c -- the "priority_tier" kind (DESIGN §3): the
 * default_gba user with the SDK's priority_tier_hint (CIP-1 rev §7.3).
 * Under fee mechanisms the default GBA multiplies the previous-block p50
 * tip by the tier's multiplier ({standard 1.0, economy 0.8, fast 1.5,
 * urgent 2.5} by default).  The tier numbering is core/cs_gba.h's
 * cs_ptier: 0 standard, 1 economy, 2 fast, 3 urgent.
 *
 * Arrivals and values are exactly those of default_gba (same draws in the
 * same order); only the tier hint differs.
 */
#include "cs_agent_int.h"
#include "cs_gba.h"

#define PT_PARAMS(X)                                                                   \
    CS__ARRIVAL_ROWS(X, 0.5, 20, 5e8, 0.5, 0.01, 0, 100000, 0.6, 64)                   \
    X(BID_FRAC, "bid_frac", 0, 0, 1, "bid mechanisms: bid this share of the value; 0 = no bid (Bias only)") \
    X(TIER, "tier", 2, 0, 3, "priority tier hint (cs_ptier): 0 standard, 1 economy, 2 fast, 3 urgent")

enum { PT_PARAMS(CS__P_ENUM) P__COUNT };
CS_STATIC_ASSERT((int)P_RATE == (int)CS__AR_RATE && (int)P_TTL == (int)CS__AR_TTL, "shared rows come first");
CS_STATIC_ASSERT(CS_PTIER_STANDARD == 0 && CS_PTIER_ECONOMY == 1 && CS_PTIER_FAST == 2 &&
                     CS_PTIER_URGENT == 3, "tier parameter follows cs_ptier");

static const cs_agent_param_t pt_params[] = {PT_PARAMS(CS__P_ROW)};
CS_STATIC_ASSERT(sizeof pt_params / sizeof pt_params[0] == P__COUNT, "one row per parameter");

typedef struct pt_state {
    uint64_t arrivals;  /* arrivals drawn so far */
    uint64_t rejected;  /* schedule calls refused by the world */
} pt_state_t;

/* Each block: default_gba's arrivals, each carrying the tier hint. */
static void pt_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    pt_state_t *s = a->state;
    int mc = cs__agent_mc(a, o);
    uint8_t tier = (uint8_t)cs__agent_u64(a->params[P_TIER]);
    unsigned n = cs__agent_count(a, P_RATE, o);
    for (unsigned i = 0; i < n; i++) {
        cs_timer_req_t q;
        cs__agent_arrival(a, &q);
        cs__agent_price_default(mc, a->params[P_BID_FRAC], &q);
        q.tier = tier; /* CIP-1 rev §7.3: priority_tier_hint */
        q.tag = (uint32_t)s->arrivals++;
        if (!cs__agent_enters(a, w, o, &q)) continue; /* value-aware: not worth it now */
        if (cs_world_schedule(w, a, &q, NULL) != CS_OK) s->rejected++;
    }
}

const cs_agent_ops_t cs__agent_priority_tier = {
    .name = "priority_tier",
    .version = 1,
    .kind = CS_AK_PRIORITY_TIER,
    .state_size = sizeof(pt_state_t),
    .params = pt_params,
    .n_params = P__COUNT,
    .dist_params = cs__arrival_dists,
    .on_block = pt_on_block,
};
