/*
 * agent_fp_best_response.c -- the "fp_best_response" kind (DESIGN §3): a
 * programmatic bidder in the repeated auction that best-responds to the
 * previous block (the instability CIP-1 rev §1 point 1 warns about:
 * "programmatic bidders best-respond by underbidding the prior round's
 * clearing price, leading to oscillation").
 *
 * Demand: default_gba's arrival model (same draws, same order).
 *
 * Bid mechanisms (bid hook, idempotent): with c = the competing price, the
 * highest bid of the previous block's candidates that were not its own
 * (cs_obs_competing: it never outbids itself), r the reserve and v the
 * timer's value,
 *   bid = max(r, c + epsilon)  if c + epsilon <= v   (just above the competition),
 *   bid = r                    otherwise             (drop to the reserve).
 * (Version 1 used the previous clearing price, its own winning bid
 * included, so a lone winner raised against itself up to its value, and
 * with r > epsilon it never bid from a cold start.)
 * Fee mechanisms: explicit fee params at scheduling and the same rule
 * again at fire time (custom GBA, CIP-1 rev §7.2), with vpc = v / gas_limit
 * the value per cycle:
 *   max_prio = clip(p50_tip + epsilon_prio, 0, max(0, vpc - basefee_lane)),
 *   max_fee  = headroom x basefee_lane + max_prio.
 * FIFO: no price.
 */
#include "cs_agent_int.h"

#define FP_PARAMS(X)                                                                   \
    CS__ARRIVAL_ROWS(X, 0.5, 5, 5e8, 0.5, 0.01, 0, 100000, 0.6, 64)                    \
    X(EPSILON, "epsilon", 1e6, 0, 1e15, "bid mechanisms: increment over the highest competing bid, per fire") \
    X(EPSILON_PRIO, "epsilon_prio", 1, 0, 1e12, "fee mechanisms: increment over the p50 tip, per cycle") \
    X(HEADROOM, "headroom", 2, 1, 100, "fee mechanisms: max_fee = headroom x basefee_lane + max_prio")

enum { FP_PARAMS(CS__P_ENUM) P__COUNT };
CS_STATIC_ASSERT((int)P_RATE == (int)CS__AR_RATE && (int)P_TTL == (int)CS__AR_TTL, "shared rows come first");

static const cs_agent_param_t fp_params[] = {FP_PARAMS(CS__P_ROW)};
CS_STATIC_ASSERT(sizeof fp_params / sizeof fp_params[0] == P__COUNT, "one row per parameter");

typedef struct fp_state {
    uint64_t arrivals;  /* arrivals drawn so far */
    uint64_t rejected;  /* schedule calls refused by the world */
} fp_state_t;

/* Bid hook: just above the highest competing bid while that stays within
 * the value, floored at the reserve; else the reserve.  Only under bid
 * mechanisms. */
static void fp_bid(cs_agent_t *a, const cs_obs_t *o, cs_timer_req_t *q)
{
    if (cs__agent_mc(a, o) != CS__MC_BID) return;
    double target = cs_obs_competing(o, a) + a->params[P_EPSILON];
    q->has_bid = 1;
    q->bid = target <= q->value ? (target > o->reserve_price ? target : o->reserve_price) : o->reserve_price;
}

/* Explicit fees from the p50 tip, capped by the value per cycle. */
static void fp_fees(const cs_agent_t *a, const cs_obs_t *o, double value, uint64_t gas_limit,
                    double *max_fee, double *max_prio)
{
    double vpc = value / (double)(gas_limit ? gas_limit : 1);
    double room = vpc - o->basefee_lane;
    double prio = o->p50_tip + a->params[P_EPSILON_PRIO];
    if (room < 0.0) room = 0.0;
    if (prio > room) prio = room;
    if (prio < 0.0) prio = 0.0;
    *max_prio = prio;
    *max_fee = a->params[P_HEADROOM] * o->basefee_lane + prio;
}

/* Each block: default_gba's arrivals, priced by best response. */
static void fp_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    fp_state_t *s = a->state;
    int mc = cs__agent_mc(a, o);
    unsigned n = cs__agent_count(a, P_RATE, o);
    for (unsigned i = 0; i < n; i++) {
        cs_timer_req_t q;
        cs__agent_arrival(a, &q);
        if (mc == CS__MC_BID) {
            fp_bid(a, o, &q);
        } else if (mc == CS__MC_FEE) {
            q.has_fees = 1;
            fp_fees(a, o, q.value, q.gas_limit, &q.max_fee, &q.max_prio);
        }
        q.tag = (uint32_t)s->arrivals++;
        if (!cs__agent_enters(a, w, o, &q)) continue; /* value-aware: not worth it now */
        if (cs_world_schedule(w, a, &q, NULL) != CS_OK) s->rejected++;
    }
}

/* Custom GBA at fire time: the same best response on the fire's block. */
static int fp_gba(cs_agent_t *a, const cs_timer_info_t *t, const cs_obs_t *o, double *max_fee,
                  double *max_prio)
{
    fp_fees(a, o, t->value, t->gas_limit, max_fee, max_prio);
    return 1;
}

const cs_agent_ops_t cs__agent_fp_best_response = {
    .name = "fp_best_response",
    .version = 2,
    .kind = CS_AK_FP_BEST_RESPONSE,
    .state_size = sizeof(fp_state_t),
    .params = fp_params,
    .n_params = P__COUNT,
    .dist_params = cs__arrival_dists,
    .on_block = fp_on_block,
    .gba = fp_gba,
    .bid = fp_bid,
};
