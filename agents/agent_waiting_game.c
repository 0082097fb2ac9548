/*
 * agent_waiting_game.c -- the "waiting_game" kind (DESIGN §3): a bidder
 * that bids zero and lets the exponential bias carry its timers to
 * execution, the failure mode of CIP-5 §9.3 ("If bias grows faster than
 * value decays, rational actors would underbid and let bias carry them to
 * execution for free, collapsing the auction into a pure waiting game").
 * Its value decays slowly, which is what makes waiting rational.
 *
 * Demand: default_gba's arrival model (same draws, same order), with a
 * slow default decay.  Pricing:
 *   bid mechanisms: an explicit bid of 0 (has_bid = 1, bid = 0);
 *   fee mechanisms: explicit zero tip, max_prio = 0 and
 *                   max_fee = headroom x basefee_lane (enough to be accepted);
 *   FIFO: no price.
 */
#include "cs_agent_int.h"

#define WG_PARAMS(X)                                                                   \
    CS__ARRIVAL_ROWS(X, 0.5, 10, 5e8, 0.5, 0.001, 0, 100000, 0.6, 64)                  \
    X(HEADROOM, "headroom", 2, 1, 100, "fee mechanisms: max_fee = headroom x basefee_lane, max_prio = 0")

enum { WG_PARAMS(CS__P_ENUM) P__COUNT };
CS_STATIC_ASSERT((int)P_RATE == (int)CS__AR_RATE && (int)P_TTL == (int)CS__AR_TTL, "shared rows come first");

static const cs_agent_param_t wg_params[] = {WG_PARAMS(CS__P_ROW)};
CS_STATIC_ASSERT(sizeof wg_params / sizeof wg_params[0] == P__COUNT, "one row per parameter");

typedef struct wg_state {
    uint64_t arrivals;  /* arrivals drawn so far */
    uint64_t rejected;  /* schedule calls refused by the world */
} wg_state_t;

/* Each block: default_gba's arrivals, every one bidding zero. */
static void wg_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    wg_state_t *s = a->state;
    int mc = cs__agent_mc(a, o);
    unsigned n = cs__agent_count(a, P_RATE, o);
    for (unsigned i = 0; i < n; i++) {
        cs_timer_req_t q;
        cs__agent_arrival(a, &q);
        if (mc == CS__MC_BID) {
            q.has_bid = 1; /* CIP-5 §9.7: bid = 0 relies entirely on bias */
            q.bid = 0.0;
        } else if (mc == CS__MC_FEE) {
            q.has_fees = 1;
            q.max_prio = 0.0;
            q.max_fee = a->params[P_HEADROOM] * o->basefee_lane;
        }
        q.tag = (uint32_t)s->arrivals++;
        if (!cs__agent_enters(a, w, o, &q)) continue; /* value-aware: not worth it now */
        if (cs_world_schedule(w, a, &q, NULL) != CS_OK) s->rejected++;
    }
}

const cs_agent_ops_t cs__agent_waiting_game = {
    .name = "waiting_game",
    .version = 1,
    .kind = CS_AK_WAITING_GAME,
    .state_size = sizeof(wg_state_t),
    .params = wg_params,
    .n_params = P__COUNT,
    .dist_params = cs__arrival_dists,
    .on_block = wg_on_block,
};
