/*
 * agent_demand_curve.c -- the "demand_curve" kind (DESIGN §3): a
 * deterministic aggregate (mean-field) demand that responds to price, for
 * stability analysis of the basefee and clearing-price dynamics.
 *
 * Arrivals in the block being built, from the previous block's price p:
 *   f(p) = (1 - p / p_max)^elasticity  for 0 <= p < p_max,  0 for p >= p_max
 *   x    = base_rate x demand_mult x f(p) + carry
 *   n    = floor(x),  carry = x - n
 * so the count is deterministic and its running sum tracks the integral of
 * the demand curve (the fractional remainder is carried, never rounded
 * away).  The price and its p_max depend on price_source:
 *   0 auto: clearing_price vs price_max_bid under bid mechanisms,
 *           basefee_lane vs price_max_fee otherwise;
 *   1: basefee_lane vs price_max_fee (per cycle);
 *   2: clearing_price vs price_max_bid (per fire).
 * Every timer is identical: due `delay` blocks ahead, value with linear
 * decay, cycles_used = gas_limit x cycles_frac.  Pricing: the default GBA,
 * or bid_frac x value.  The agent draws nothing from its stream.
 *
 * Elastic entry (value-aware): on top of the curve (the share of a
 * population that still wants in at price p), each arrival is scheduled
 * only when its value exceeds the expected cost of a fire at the observed
 * prices (cs__agent_enters), which includes the CIP-3 basefees and tip the
 * curve does not see; the count and its carry are those of the curve.
 */
#include <math.h>

#include "cs_agent_int.h"

#define DC_PARAMS(X)                                                                           \
    X(BASE_RATE, "base_rate", 2, 0, 10000, "arrivals per block at price 0 (times the demand multiplier)") \
    X(PRICE_SOURCE, "price_source", 0, 0, 2, "0 auto, 1 lane basefee (per cycle), 2 clearing price (per fire)") \
    X(PRICE_MAX_FEE, "price_max_fee", 4000, 1e-9, 1e15, "lane basefee per cycle at which demand vanishes") \
    X(PRICE_MAX_BID, "price_max_bid", 4e8, 1e-9, 1e15, "clearing price per fire at which demand vanishes") \
    X(ELASTICITY, "elasticity", 1, 0, 20, "exponent of (1 - p / p_max)")                        \
    X(DELAY, "delay", 5, 1, 10000000, "delay of every timer in blocks")                         \
    X(VALUE, "value", 5e8, 0, 1e15, "value of a fire at zero delay, base units")                \
    X(DECAY_FRAC, "decay_frac", 0.01, 0, 1, "share of the zero-delay value lost per block of delay") \
    X(DEADLINE, "deadline", 0, 0, 10000000, "value is 0 beyond this delay in blocks; 0 = none")    \
    X(GAS_LIMIT, "gas_limit", 100000, 1, 1e9, "gas limit per fire, cycles")                     \
    X(CYCLES_FRAC, "cycles_frac", 0.6, 0, 1, "share of gas_limit the handler uses")             \
    X(PAYLOAD_LEN, "payload_len", 64, 0, 1048576, "payload bytes (cells metering)")            \
    X(TTL, "ttl", 0, 0, 1e9, "blocks after the due height at which the timer expires; 0 = none") \
    X(BID_FRAC, "bid_frac", 0.5, 0, 1, "bid mechanisms: bid this share of the value; 0 = no bid")

enum { DC_PARAMS(CS__P_ENUM) P__COUNT };
static const cs_agent_param_t dc_params[] = {DC_PARAMS(CS__P_ROW)};
CS_STATIC_ASSERT(sizeof dc_params / sizeof dc_params[0] == P__COUNT, "one row per parameter");

typedef struct dc_state {
    double carry;       /* fractional arrivals carried to the next block, [0, 1) */
    uint64_t arrivals;  /* timers requested (request tags) */
    uint64_t rejected;  /* schedule calls refused by the world */
    uint64_t skipped;   /* arrivals not worth their price (value-aware) */
} dc_state_t;

/* Demand share f(p) at price p against p_max (see the file comment). */
static double dc_share(double price, double pmax, double elasticity)
{
    if (price < 0.0) price = 0.0;
    if (!(price < pmax)) return 0.0;
    if (elasticity == 0.0) return 1.0;
    return pow(1.0 - price / pmax, elasticity);
}

/* Each block: the deterministic count from the demand curve. */
static void dc_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    dc_state_t *s = a->state;
    const double *p = a->params;
    int mc = cs__agent_mc(a, o);
    int src = (int)cs__agent_u64(p[P_PRICE_SOURCE]);
    if (src == 0) src = mc == CS__MC_BID ? 2 : 1;
    double f = src == 2 ? dc_share(o->clearing_price, p[P_PRICE_MAX_BID], p[P_ELASTICITY])
                        : dc_share(o->basefee_lane, p[P_PRICE_MAX_FEE], p[P_ELASTICITY]);
    double x = p[P_BASE_RATE] * o->demand_mult * f + s->carry;
    if (!(x > 0.0)) x = 0.0;
    double nf = floor(x);
    s->carry = x - nf;
    uint64_t n = (uint64_t)nf;
    for (uint64_t i = 0; i < n; i++) {
        cs_timer_req_t q;
        cs__agent_req_zero(&q);
        q.delay = cs__agent_u64(p[P_DELAY]);
        if (q.delay == 0) q.delay = 1;
        cs__agent_cycles_fixed(p[P_GAS_LIMIT], p[P_CYCLES_FRAC], &q);
        q.value = p[P_VALUE];
        q.decay = p[P_VALUE] * p[P_DECAY_FRAC];
        q.deadline = cs__agent_u64(p[P_DEADLINE]);
        q.payload_len = (uint32_t)cs__agent_u64(p[P_PAYLOAD_LEN]);
        q.ttl = cs__agent_u64(p[P_TTL]);
        cs__agent_price_default(mc, p[P_BID_FRAC], &q);
        if (!cs__agent_enters(a, w, o, &q)) { /* value-aware: not worth it now */
            s->skipped++;
            continue;
        }
        q.tag = (uint32_t)s->arrivals++;
        if (cs_world_schedule(w, a, &q, NULL) != CS_OK) s->rejected++;
    }
}

const cs_agent_ops_t cs__agent_demand_curve = {
    .name = "demand_curve",
    .version = 2,
    .kind = CS_AK_DEMAND_CURVE,
    .state_size = sizeof(dc_state_t),
    .params = dc_params,
    .n_params = P__COUNT,
    .on_block = dc_on_block,
};
