/*
 * agent_heartbeat.c -- the "heartbeat" kind (DESIGN §3): a game tick or
 * keeper that re-schedules itself from its own handler (CIP-5 Appendix B,
 * "Recurring Timer Pattern"; overview spec "Game Loop").
 *
 * At its first active block h0 it schedules one timer due at
 * h0 + period + floor(u x start_spread) (u uniform; the spread keeps many
 * heartbeats from ticking in lockstep).  Whenever a tick fires at height h,
 * its handler (on_outcome FIRED, inside the fire's transaction) schedules
 * the next tick at h + period, exactly as Appendix B's handle_timer does.
 * If a tick is dropped (TTL expiry or insufficient funds, CIP-1 rev §9) the
 * heartbeat restarts at its next block with a tick `period` ahead; if a
 * schedule call is refused, it retries `period` blocks later.
 *
 * Draws: one uniform per block (cycles of the next tick, kept in the
 * state), plus the start uniform (drawn first) at the first block.  The
 * block's uniform is drawn by whichever comes first at that height, its
 * on_block or its handler (under first-draft gba-tip the block's timers
 * run before its transactions, DESIGN-NOTES N69), so the draws and the
 * ticks' cycles are the same in either order (common random numbers).  The
 * schedule itself reacts to fires, so heartbeat is a reactive kind.
 *
 * Value: low; value - value x decay_frac x delay, 0 beyond deadline.
 * Pricing: the default GBA with the tier hint, or bid_frac x value.
 *
 * Elastic entry (value-aware): a tick is scheduled only when its value
 * exceeds the expected cost of a fire at the block's observed prices
 * (cs__agent_enters); a tick not worth it is skipped and, like a refused
 * one, retried `period` blocks later, so the heartbeat pauses while the
 * price is above its value and resumes when it falls.
 */
#include <math.h>

#include "cs_agent_int.h"

#define HB_PARAMS(X)                                                                           \
    X(PERIOD, "period", 10, 1, 10000000, "blocks from a tick's fire to the next tick's due height") \
    X(START_SPREAD, "start_spread", 10, 0, 10000000, "first tick due period + floor(u x start_spread) blocks after start") \
    X(VALUE, "value", 2e8, 0, 1e15, "value of a tick fired at zero delay, base units")           \
    X(DECAY_FRAC, "decay_frac", 0.02, 0, 1, "share of the zero-delay value lost per block of delay") \
    X(DEADLINE, "deadline", 0, 0, 10000000, "value is 0 beyond this delay in blocks; 0 = none")    \
    X(GAS_LIMIT, "gas_limit", 50000, 1, 1e9, "gas limit per fire, cycles")                      \
    X(CYCLES_FRAC, "cycles_frac", 0.5, 0, 1, "mean share of gas_limit the handler uses")        \
    X(CYCLES_JITTER, "cycles_jitter", 0.2, 0, 1, "relative half-width of the uniform noise on cycles used") \
    X(PAYLOAD_LEN, "payload_len", 0, 0, 1048576, "payload bytes (cells metering)")             \
    X(TTL, "ttl", 0, 0, 1e9, "blocks after the due height at which the timer expires; 0 = none") \
    X(BID_FRAC, "bid_frac", 0, 0, 1, "bid mechanisms: bid this share of the value; 0 = no bid")   \
    X(TIER, "tier", 0, 0, 3, "priority tier hint (cs_ptier): 0 standard, 1 economy, 2 fast, 3 urgent")

enum { HB_PARAMS(CS__P_ENUM) P__COUNT };
static const cs_agent_param_t hb_params[] = {HB_PARAMS(CS__P_ROW)};
CS_STATIC_ASSERT(sizeof hb_params / sizeof hb_params[0] == P__COUNT, "one row per parameter");

typedef struct hb_state {
    int started;          /* the first tick was scheduled */
    int live;             /* a tick is pending */
    int mc;               /* mechanism family seen at the last block */
    uint64_t restart_at;  /* when !live: schedule at the first block >= this */
    double u_c;           /* uniform of this block for the next tick's cycles */
    uint64_t u_h;         /* the height u_c was drawn for (0 = none yet) */
    uint64_t ticks;       /* ticks scheduled (request tags) */
    uint64_t restarts;    /* drops recovered from */
    uint64_t rejected;    /* schedule calls refused by the world */
    uint64_t skipped;     /* ticks not worth their price (value-aware) */
    cs_obs_t o;           /* the block's observation (entry from the handler) */
} hb_state_t;

/* Draw the uniform of height h unless it has been drawn. */
static void hb_draw(cs_agent_t *a, uint64_t h)
{
    hb_state_t *s = a->state;
    if (s->u_h == h) return;
    s->u_c = gsl_rng_uniform(a->rng);
    s->u_h = h;
}

/* Schedule the next tick `delay` blocks from the world's current height. */
static void hb_tick(cs_agent_t *a, cs_world_t *w, uint64_t delay)
{
    hb_state_t *s = a->state;
    const double *p = a->params;
    hb_draw(a, cs_world_height(w));
    cs_timer_req_t q;
    cs__agent_req_zero(&q);
    q.delay = delay ? delay : 1;
    cs__agent_cycles_at(s->u_c, p[P_GAS_LIMIT], p[P_CYCLES_FRAC], p[P_CYCLES_JITTER], &q);
    q.value = p[P_VALUE];
    q.decay = p[P_VALUE] * p[P_DECAY_FRAC];
    q.deadline = cs__agent_u64(p[P_DEADLINE]);
    q.payload_len = (uint32_t)cs__agent_u64(p[P_PAYLOAD_LEN]);
    q.ttl = cs__agent_u64(p[P_TTL]);
    q.tier = (uint8_t)cs__agent_u64(p[P_TIER]);
    cs__agent_price_default(s->mc, p[P_BID_FRAC], &q);
    if (!cs__agent_enters(a, w, &s->o, &q)) { /* value-aware: not worth it now */
        s->live = 0;
        s->skipped++;
        s->restart_at = s->o.height + cs__agent_u64(p[P_PERIOD]);
        return;
    }
    q.tag = (uint32_t)s->ticks++;
    if (cs_world_schedule(w, a, &q, NULL) == CS_OK) {
        s->live = 1;
    } else {
        s->live = 0;
        s->rejected++;
        s->restart_at = cs_world_height(w) + cs__agent_u64(p[P_PERIOD]);
    }
}

/* First block: the first tick (Appendix B deploy); later, restart a
 * dropped heartbeat when its restart height is reached. */
static void hb_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    hb_state_t *s = a->state;
    uint64_t period = cs__agent_u64(a->params[P_PERIOD]);
    s->mc = cs__agent_mc(a, o);
    s->o = *o;
    if (!s->started) {
        double u_st = gsl_rng_uniform(a->rng);
        hb_draw(a, o->height);
        s->started = 1;
        hb_tick(a, w, period + (uint64_t)floor(u_st * a->params[P_START_SPREAD]));
        return;
    }
    hb_draw(a, o->height);
    if (!s->live && o->height >= s->restart_at) {
        s->restarts++;
        hb_tick(a, w, period);
    }
}

/* The handler: a fired tick schedules the next one period blocks later
 * (CIP-5 Appendix B); a dropped one restarts at the next block. */
static void hb_on_outcome(cs_agent_t *a, cs_world_t *w, const cs_timer_info_t *t, int outcome,
                          uint64_t delay, double paid)
{
    hb_state_t *s = a->state;
    (void)t;
    (void)delay;
    (void)paid;
    switch (outcome) {
    case CS_AO_FIRED:
        s->live = 0;
        hb_tick(a, w, cs__agent_u64(a->params[P_PERIOD]));
        break;
    case CS_AO_EXPIRED:
    case CS_AO_INSUFFICIENT:
        s->live = 0;
        s->restart_at = cs_world_height(w);
        break;
    case CS_AO_REJECTED:
        s->live = 0;
        s->restart_at = cs_world_height(w) + cs__agent_u64(a->params[P_PERIOD]);
        break;
    default: /* DEFERRED: still pending */
        break;
    }
}

const cs_agent_ops_t cs__agent_heartbeat = {
    .name = "heartbeat",
    .version = 2,
    .kind = CS_AK_HEARTBEAT,
    .state_size = sizeof(hb_state_t),
    .params = hb_params,
    .n_params = P__COUNT,
    .on_block = hb_on_block,
    .on_outcome = hb_on_outcome,
};
