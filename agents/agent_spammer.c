/*
 * agent_spammer.c -- the "spammer" kind (DESIGN §3): a timer storm, many
 * cheap timers due at ONE height, up to the caps, optionally spread over
 * many actors (the DoS case of CIP-1 §5 / CIP-1 rev §11, and the
 * "timer-spam" the per-actor weight is meant to resist, CIP-1 rev §8).
 *
 * A storm happens at height `start` and then every `every` blocks (0 = a
 * single storm).  At a storm block h it schedules
 *   n = min(burst, actors x per_actor_cap)
 * HEIGHT timers, all due at h + delay, timer i going to actor i mod actors
 * (round robin), so no actor gets more than per_actor_cap per storm.  The
 * default cap is MAX_TIMERS_PER_ACTOR = 1,024 (CIP-5 §8).
 *
 * Timers are cheap and bid the minimum: under bid mechanisms bid =
 * max(min_bid, reserve_price); under fee mechanisms max_fee =
 * fee_headroom x basefee_lane (the least that passes TimerRejectedBelowBasefee
 * at headroom 1, CIP-1 rev §6) and max_prio = 0.  No random draws: the
 * spammer is deterministic.
 */
#include "cs_agent_int.h"

#define SP_PARAMS(X)                                                                           \
    X(START, "start", 100, 0, 1e12, "height of the first storm")                               \
    X(EVERY, "every", 0, 0, 1e9, "blocks between storms; 0 = a single storm")                  \
    X(BURST, "burst", 1000, 0, 10000000, "timers per storm (before the per-actor cap)")         \
    X(ACTORS, "actors", 1, 1, 100000, "actors the storm is spread over (round robin)")           \
    X(PER_ACTOR_CAP, "per_actor_cap", 1024, 0, 10000000, "at most this many timers per actor per storm") \
    X(DELAY, "delay", 10, 1, 10000000, "every timer of a storm is due this many blocks after it") \
    X(VALUE, "value", 1e5, 0, 1e15, "value of a fire at zero delay, base units (no decay)")     \
    X(GAS_LIMIT, "gas_limit", 10000, 1, 1e9, "gas limit per fire, cycles")                      \
    X(CYCLES_FRAC, "cycles_frac", 0.5, 0, 1, "share of gas_limit the handler uses")             \
    X(PAYLOAD_LEN, "payload_len", 0, 0, 1048576, "payload bytes (cells metering)")             \
    X(TTL, "ttl", 0, 0, 1e9, "blocks after the due height at which the timer expires; 0 = none") \
    X(MIN_BID, "min_bid", 0, 0, 1e15, "bid mechanisms: bid max(min_bid, reserve_price)")        \
    X(FEE_HEADROOM, "fee_headroom", 1, 1, 100, "fee mechanisms: max_fee = fee_headroom x basefee_lane, no tip")

enum { SP_PARAMS(CS__P_ENUM) P__COUNT };
static const cs_agent_param_t sp_params[] = {SP_PARAMS(CS__P_ROW)};
CS_STATIC_ASSERT(sizeof sp_params / sizeof sp_params[0] == P__COUNT, "one row per parameter");

typedef struct sp_state {
    uint64_t storms;    /* storms launched */
    uint64_t sent;      /* timers requested */
    uint64_t rejected;  /* schedule calls refused by the world */
} sp_state_t;

/* Actors controlled: the `actors` parameter. */
static uint32_t sp_n_actors(const double *params)
{
    uint64_t n = cs__agent_u64(params[P_ACTORS]);
    return n ? (uint32_t)n : 1u;
}

/* Whether height h is a storm height. */
static int sp_is_storm(const double *p, uint64_t h)
{
    uint64_t start = cs__agent_u64(p[P_START]), every = cs__agent_u64(p[P_EVERY]);
    if (h == start) return 1;
    return every != 0 && h > start && (h - start) % every == 0;
}

/* At a storm height: n timers at one due height, round robin over actors. */
static void sp_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    sp_state_t *s = a->state;
    const double *p = a->params;
    if (!sp_is_storm(p, o->height)) return;
    int mc = cs__agent_mc(a, o);
    uint64_t actors = sp_n_actors(p);
    uint64_t cap = cs__agent_u64(p[P_PER_ACTOR_CAP]);
    uint64_t n = cs__agent_u64(p[P_BURST]);
    if (n > actors * cap) n = actors * cap;
    cs_timer_req_t q;
    cs__agent_req_zero(&q);
    q.delay = cs__agent_u64(p[P_DELAY]);
    if (q.delay == 0) q.delay = 1;
    cs__agent_cycles_fixed(p[P_GAS_LIMIT], p[P_CYCLES_FRAC], &q);
    q.value = p[P_VALUE];
    q.payload_len = (uint32_t)cs__agent_u64(p[P_PAYLOAD_LEN]);
    q.ttl = cs__agent_u64(p[P_TTL]);
    if (mc == CS__MC_BID) {
        q.has_bid = 1;
        q.bid = p[P_MIN_BID] > o->reserve_price ? p[P_MIN_BID] : o->reserve_price;
    } else if (mc == CS__MC_FEE) {
        q.has_fees = 1; /* CIP-1 rev §6: max_fee >= basefee_lane or rejected */
        q.max_fee = p[P_FEE_HEADROOM] * o->basefee_lane;
        q.max_prio = 0.0;
    }
    s->storms++;
    for (uint64_t i = 0; i < n; i++) {
        q.actor = (uint32_t)(i % actors);
        q.tag = (uint32_t)s->sent++;
        if (cs_world_schedule(w, a, &q, NULL) != CS_OK) s->rejected++;
    }
}

const cs_agent_ops_t cs__agent_spammer = {
    .name = "spammer",
    .version = 2,
    .kind = CS_AK_SPAMMER,
    .state_size = sizeof(sp_state_t),
    .params = sp_params,
    .n_params = P__COUNT,
    .n_actors = sp_n_actors,
    .on_block = sp_on_block,
};
