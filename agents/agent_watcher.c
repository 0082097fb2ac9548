/*
 * agent_watcher.c -- the "watcher" kind (DESIGN §3): STATE_WATCH timers on
 * state keys that other agents' transactions modify (CIP-5 CN §8: a watch
 * fires when watch_keys meets ModifiedKeySet(h); CIP-5 §9.8 phase 6).
 *
 * Keys are named "key:<n>" with n in 0 .. keys-1, a key space shared by
 * every watcher instance, so one instance's writes trigger the others'
 * watches.  Each block, in this order:
 *   1. Poisson(rate x demand_mult) new watches; each draws a key uniform
 *      (n = floor(u x keys)), a lognormal value and a cycles uniform, and
 *      schedules a WATCH timer on that key (delay 1: it may fire from the
 *      next block on).  A watch stays registered and fires at every
 *      modification of its key until its TTL (1,000 blocks by default) ends it;
 *   2. Poisson(write_rate x demand_mult) key writes as actor 0; each draws a
 *      key uniform the same way.
 * A pure writer has rate 0 and write_rate > 0; a pure watcher the reverse.
 * The draws never depend on outcomes.
 *
 * Value: value - value x decay_frac x delay (delay counted from the block
 * the key was modified), 0 beyond deadline.  Pricing: the default GBA with
 * the tier hint, or bid_frac x value.
 */
#include <math.h>
#include <stdio.h>

#include "cs_agent_int.h"
#include "cs_timer.h"

#define WA_PARAMS(X)                                                                           \
    X(RATE, "rate", 0.05, 0, 10000, "mean new watches per block (Poisson; times the demand multiplier)") \
    X(KEYS, "keys", 16, 1, 1e6, "size of the shared key space key:0 .. key:<keys-1>")          \
    X(WRITE_RATE, "write_rate", 0, 0, 10000, "mean key writes per block (Poisson; times the demand multiplier)") \
    X(VALUE, "value", 5e8, 0, 1e15, "mean value of a fire at zero delay, base units (lognormal)") \
    X(VALUE_SIGMA, "value_sigma", 0.5, 0, 5, "log-standard deviation of the value")             \
    X(DECAY_FRAC, "decay_frac", 0.01, 0, 1, "share of the zero-delay value lost per block of delay") \
    X(DEADLINE, "deadline", 0, 0, 10000000, "value is 0 beyond this delay in blocks; 0 = none")    \
    X(GAS_LIMIT, "gas_limit", 80000, 1, 1e9, "gas limit per fire, cycles")                      \
    X(CYCLES_FRAC, "cycles_frac", 0.6, 0, 1, "mean share of gas_limit the handler uses")        \
    X(CYCLES_JITTER, "cycles_jitter", 0.2, 0, 1, "relative half-width of the uniform noise on cycles used") \
    X(PAYLOAD_LEN, "payload_len", 32, 0, 1048576, "payload bytes (cells metering)")            \
    X(TTL, "ttl", 1000, 0, 1e9, "blocks after the due height at which an unfired watch expires; 0 = none") \
    X(BID_FRAC, "bid_frac", 0, 0, 1, "bid mechanisms: bid this share of the value; 0 = no bid")   \
    X(TIER, "tier", 0, 0, 3, "priority tier hint (cs_ptier): 0 standard, 1 economy, 2 fast, 3 urgent")

enum { WA_PARAMS(CS__P_ENUM) P__COUNT };
static const cs_agent_param_t wa_params[] = {WA_PARAMS(CS__P_ROW)};
CS_STATIC_ASSERT(sizeof wa_params / sizeof wa_params[0] == P__COUNT, "one row per parameter");

static const char *const wa_dists[] = {"rate", "write_rate", "value", "cycles_frac", NULL};

typedef struct wa_state {
    char key[32];       /* the key of the current request or write */
    uint64_t watches;   /* watches scheduled (request tags) */
    uint64_t writes;    /* key writes made */
    uint64_t rejected;  /* schedule or write calls refused by the world */
} wa_state_t;

/* Draw a key index and format "key:<n>" into s->key. */
static void wa_key(cs_agent_t *a, wa_state_t *s)
{
    double nk = floor(a->params[P_KEYS]);
    double u = gsl_rng_uniform(a->rng);
    uint64_t k = (uint64_t)floor(u * (nk >= 1.0 ? nk : 1.0));
    snprintf(s->key, sizeof s->key, "key:%llu", (unsigned long long)k);
}

/* Each block: new watches, then key writes (see the file comment). */
static void wa_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    wa_state_t *s = a->state;
    const double *p = a->params;
    int mc = cs__agent_mc(a, o);
    unsigned n = cs__agent_count(a, P_RATE, o);
    for (unsigned i = 0; i < n; i++) {
        cs_timer_req_t q;
        cs__agent_req_zero(&q);
        wa_key(a, s);
        q.kind = (uint8_t)CS_KIND_WATCH; /* CIP-5 CN §8 STATE_WATCH */
        q.watch_key = s->key;            /* copied by the world during the call */
        q.delay = 1;
        q.value = cs__agent_value(a, P_VALUE, P_VALUE_SIGMA);
        cs__agent_cycles_of(a, P_GAS_LIMIT, P_CYCLES_FRAC, P_CYCLES_JITTER, &q);
        q.decay = q.value * p[P_DECAY_FRAC];
        q.deadline = cs__agent_u64(p[P_DEADLINE]);
        q.payload_len = (uint32_t)cs__agent_u64(p[P_PAYLOAD_LEN]);
        q.ttl = cs__agent_u64(p[P_TTL]);
        q.tier = (uint8_t)cs__agent_u64(p[P_TIER]);
        cs__agent_price_default(mc, p[P_BID_FRAC], &q);
        q.tag = (uint32_t)s->watches++;
        if (!cs__agent_enters(a, w, o, &q)) continue; /* value-aware: not worth it now */
        if (cs_world_schedule(w, a, &q, NULL) != CS_OK) s->rejected++;
    }
    unsigned m = cs__agent_count(a, P_WRITE_RATE, o);
    for (unsigned i = 0; i < m; i++) {
        wa_key(a, s);
        s->writes++;
        if (cs_world_write_key(w, a, 0, s->key) != CS_OK) s->rejected++;
    }
}

const cs_agent_ops_t cs__agent_watcher = {
    .name = "watcher",
    .version = 1,
    .kind = CS_AK_WATCHER,
    .state_size = sizeof(wa_state_t),
    .params = wa_params,
    .n_params = P__COUNT,
    .dist_params = wa_dists,
    .on_block = wa_on_block,
};
