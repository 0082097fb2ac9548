/*
 * agent_subscription.c -- the "subscription" kind (DESIGN §3; overview
 * spec "Subscription Service"): long-horizon renewals, vesting and escrow
 * releases at a low rate, so that tiers 2 (epoch queue) and 3 (overflow
 * tree) of the calendar queue are exercised (CIP-1 §2.2-2.3).
 *
 * Arrivals: Poisson(rate x demand_mult) per block.  Each arrival draws,
 * in this order, u_class, u_delay (uniforms), a lognormal value and a
 * cycles uniform.  With probability long_frac (u_class < long_frac) the
 * delay lies beyond the tier-2 window,
 *   delay = tier2_blocks + 1 + floor(u_delay x (delay_max - tier2_blocks)),
 * otherwise it is log-uniform within it,
 *   delay = floor(delay_min x (tier2_blocks / delay_min)^u_delay).
 * tier2_blocks should match the scenario's queue (epochs x epoch_blocks,
 * 24 x 3,600 = 86,400 by default).  The request tag is 1 for a long
 * (tier-3) timer, 0 otherwise.
 *
 * Value: slow linear decay (decay_frac of the value per block).  Pricing:
 * the default GBA with the tier hint, or bid_frac x value.
 */
#include <math.h>

#include "cs_agent_int.h"

#define SU_PARAMS(X)                                                                           \
    X(RATE, "rate", 0.02, 0, 10000, "mean arrivals per block (Poisson; times the demand multiplier)") \
    X(DELAY_MIN, "delay_min", 1000, 1, 1e9, "shortest delay in blocks")                         \
    X(TIER2_BLOCKS, "tier2_blocks", 86400, 1, 1e9, "delays above this lie beyond the tier-2 window") \
    X(DELAY_MAX, "delay_max", 400000, 1, 1e9, "longest delay in blocks")                        \
    X(LONG_FRAC, "long_frac", 0.25, 0, 1, "share of timers with a delay beyond tier2_blocks")    \
    X(VALUE, "value", 1e9, 0, 1e15, "mean value of a fire at zero delay, base units (lognormal)") \
    X(VALUE_SIGMA, "value_sigma", 0.5, 0, 5, "log-standard deviation of the value")             \
    X(DECAY_FRAC, "decay_frac", 0.0001, 0, 1, "share of the zero-delay value lost per block of delay") \
    X(DEADLINE, "deadline", 0, 0, 10000000, "value is 0 beyond this delay in blocks; 0 = none")    \
    X(GAS_LIMIT, "gas_limit", 120000, 1, 1e9, "gas limit per fire, cycles")                     \
    X(CYCLES_FRAC, "cycles_frac", 0.5, 0, 1, "mean share of gas_limit the handler uses")        \
    X(CYCLES_JITTER, "cycles_jitter", 0.2, 0, 1, "relative half-width of the uniform noise on cycles used") \
    X(PAYLOAD_LEN, "payload_len", 128, 0, 1048576, "payload bytes (cells metering)")           \
    X(TTL, "ttl", 0, 0, 1e9, "blocks after the due height at which the timer expires; 0 = none") \
    X(BID_FRAC, "bid_frac", 0, 0, 1, "bid mechanisms: bid this share of the value; 0 = no bid")   \
    X(TIER, "tier", 1, 0, 3, "priority tier hint (cs_ptier): 0 standard, 1 economy, 2 fast, 3 urgent")

enum { SU_PARAMS(CS__P_ENUM) P__COUNT };
static const cs_agent_param_t su_params[] = {SU_PARAMS(CS__P_ROW)};
CS_STATIC_ASSERT(sizeof su_params / sizeof su_params[0] == P__COUNT, "one row per parameter");

static const char *const su_dists[] = {"rate", "value", "cycles_frac", NULL};

typedef struct su_state {
    uint64_t arrivals; /* arrivals drawn so far */
    uint64_t rejected; /* schedule calls refused by the world */
} su_state_t;

/* delay_min <= tier2_blocks < delay_max is required. */
static int su_init(cs_agent_t *a, cs_world_t *w)
{
    (void)w;
    const double *p = a->params;
    if (!(p[P_DELAY_MIN] <= p[P_TIER2_BLOCKS] && p[P_TIER2_BLOCKS] < p[P_DELAY_MAX])) return CS_EINVAL;
    return CS_OK;
}

/* The delay of one arrival from its two uniforms (see the file comment). */
static uint64_t su_delay(const double *p, double u_class, double u_delay, int *is_long)
{
    double lo = floor(p[P_DELAY_MIN]), t2 = floor(p[P_TIER2_BLOCKS]), hi = floor(p[P_DELAY_MAX]);
    double d;
    *is_long = u_class < p[P_LONG_FRAC];
    if (*is_long) {
        d = t2 + 1.0 + floor(u_delay * (hi - t2));
        if (d > hi) d = hi;
    } else {
        d = floor(lo * pow(t2 / lo, u_delay));
        if (d < lo) d = lo;
        if (d > t2) d = t2;
    }
    return cs__agent_u64(d);
}

/* Each block: Poisson arrivals with two-class long-horizon delays. */
static void su_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    su_state_t *s = a->state;
    const double *p = a->params;
    int mc = cs__agent_mc(a, o);
    unsigned n = cs__agent_count(a, P_RATE, o);
    for (unsigned i = 0; i < n; i++) {
        cs_timer_req_t q;
        int is_long;
        double u_class = gsl_rng_uniform(a->rng);
        double u_delay = gsl_rng_uniform(a->rng);
        cs__agent_req_zero(&q);
        q.delay = su_delay(p, u_class, u_delay, &is_long);
        q.value = cs__agent_value(a, P_VALUE, P_VALUE_SIGMA);
        cs__agent_cycles_of(a, P_GAS_LIMIT, P_CYCLES_FRAC, P_CYCLES_JITTER, &q);
        q.decay = q.value * p[P_DECAY_FRAC];
        q.deadline = cs__agent_u64(p[P_DEADLINE]);
        q.payload_len = (uint32_t)cs__agent_u64(p[P_PAYLOAD_LEN]);
        q.ttl = cs__agent_u64(p[P_TTL]);
        q.tier = (uint8_t)cs__agent_u64(p[P_TIER]);
        cs__agent_price_default(mc, p[P_BID_FRAC], &q);
        q.tag = (uint32_t)is_long;
        s->arrivals++;
        if (!cs__agent_enters(a, w, o, &q)) continue; /* value-aware: not worth it now */
        if (cs_world_schedule(w, a, &q, NULL) != CS_OK) s->rejected++;
    }
}

const cs_agent_ops_t cs__agent_subscription = {
    .name = "subscription",
    .version = 1,
    .kind = CS_AK_SUBSCRIPTION,
    .state_size = sizeof(su_state_t),
    .params = su_params,
    .n_params = P__COUNT,
    .dist_params = su_dists,
    .init = su_init,
    .on_block = su_on_block,
};
