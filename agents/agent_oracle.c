/*
 * agent_oracle.c -- the "oracle" kind (DESIGN §3; overview spec "Oracle
 * Price Updates"): a periodic price pusher with a medium value and a
 * deadline.
 *
 * Schedule.  At its first active block h0 the oracle draws a phase
 * ph = floor(u x every_blocks) (u uniform) so that many oracles do not push
 * in lockstep; its pushes are due at h0 + 1 + ph + k x every_blocks.
 *   mode 0: one INTERVAL timer (CIP-5 CN §11) with every_blocks, scheduled
 *           at h0 with delay 1 + ph; the core rolls it forward to
 *           fire height + every_blocks after each fire (EOB-5).
 *   mode 1: a one-shot HEIGHT timer per period, scheduled from on_block at
 *           the block where the previous push is due (fixed grid).
 * The oracle is not reactive: it never looks at outcomes, so in mode 0 a
 * dropped INTERVAL timer (TTL, insufficient funds) is not re-registered.
 *
 * Draws: one uniform per block for the cycles of a push scheduled that
 * block, plus the phase uniform (drawn first) at the first block.
 *
 * Value: value - value x decay_frac x delay, 0 beyond deadline.  Pricing:
 * the default GBA with the tier hint (fee mechanisms), bid_frac x value
 * (bid mechanisms).
 *
 * Elastic entry (value-aware): a push is scheduled only when its value
 * exceeds the expected cost of a fire at the observed prices
 * (cs__agent_enters).  Mode 1 skips that period's push; mode 0 registers
 * its INTERVAL timer at the first push height (h0 + 1 + ph + k x
 * every_blocks) at which it is worth it, due every_blocks later.
 */
#include <math.h>

#include "cs_agent_int.h"
#include "cs_timer.h"

#define OR_PARAMS(X)                                                                           \
    X(EVERY_BLOCKS, "every_blocks", 30, 1, 10000000, "push period in blocks")                   \
    X(MODE, "mode", 0, 0, 1, "0 = one INTERVAL timer, 1 = a one-shot timer scheduled each period") \
    X(VALUE, "value", 2e9, 0, 1e15, "value of a push fired at zero delay, base units")          \
    X(DECAY_FRAC, "decay_frac", 0.05, 0, 1, "share of the zero-delay value lost per block of delay") \
    X(DEADLINE, "deadline", 10, 0, 10000000, "value is 0 beyond this delay in blocks; 0 = none")   \
    X(GAS_LIMIT, "gas_limit", 150000, 1, 1e9, "gas limit per fire, cycles")                    \
    X(CYCLES_FRAC, "cycles_frac", 0.7, 0, 1, "mean share of gas_limit the handler uses")        \
    X(CYCLES_JITTER, "cycles_jitter", 0.1, 0, 1, "relative half-width of the uniform noise on cycles used") \
    X(PAYLOAD_LEN, "payload_len", 256, 0, 1048576, "payload bytes (cells metering)")           \
    X(TTL, "ttl", 0, 0, 1e9, "blocks after the due height at which the timer expires; 0 = none") \
    X(BID_FRAC, "bid_frac", 0.1, 0, 1, "bid mechanisms: bid this share of the value; 0 = no bid") \
    X(TIER, "tier", 2, 0, 3, "priority tier hint (cs_ptier): 0 standard, 1 economy, 2 fast, 3 urgent")

enum { OR_PARAMS(CS__P_ENUM) P__COUNT };
static const cs_agent_param_t or_params[] = {OR_PARAMS(CS__P_ROW)};
CS_STATIC_ASSERT(sizeof or_params / sizeof or_params[0] == P__COUNT, "one row per parameter");

typedef struct or_state {
    int started;        /* the first push was scheduled */
    uint64_t next_due;  /* mode 1: due height of the latest scheduled push */
    uint64_t pushes;    /* timers scheduled (request tags) */
    uint64_t rejected;  /* schedule calls refused by the world */
    uint64_t skipped;   /* pushes not worth their price (value-aware) */
    int waiting;        /* mode 0: the INTERVAL timer is not registered yet */
} or_state_t;

/* Schedule one push timer: kind (HEIGHT or INTERVAL), delay, cycles from u.
 * Returns 0 when a value-aware oracle skipped it for its price, else 1. */
static int or_push(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o, int interval, uint64_t delay, double u)
{
    or_state_t *s = a->state;
    const double *p = a->params;
    cs_timer_req_t q;
    cs__agent_req_zero(&q);
    q.kind = (uint8_t)(interval ? CS_KIND_INTERVAL : CS_KIND_HEIGHT);
    q.every_blocks = interval ? (uint32_t)cs__agent_u64(p[P_EVERY_BLOCKS]) : 0;
    q.delay = delay;
    cs__agent_cycles_at(u, p[P_GAS_LIMIT], p[P_CYCLES_FRAC], p[P_CYCLES_JITTER], &q);
    q.value = p[P_VALUE];
    q.decay = p[P_VALUE] * p[P_DECAY_FRAC];
    q.deadline = cs__agent_u64(p[P_DEADLINE]);
    q.payload_len = (uint32_t)cs__agent_u64(p[P_PAYLOAD_LEN]);
    q.ttl = cs__agent_u64(p[P_TTL]);
    q.tier = (uint8_t)cs__agent_u64(p[P_TIER]);
    cs__agent_price_default(cs__agent_mc(a, o), p[P_BID_FRAC], &q);
    if (!cs__agent_enters(a, w, o, &q)) { /* value-aware: not worth it now */
        s->skipped++;
        return 0;
    }
    q.tag = (uint32_t)s->pushes++;
    if (cs_world_schedule(w, a, &q, NULL) != CS_OK) s->rejected++;
    return 1;
}

/* First block: the phase and the first push; later (mode 1, or mode 0
 * before its timer is registered) one push per period, scheduled when the
 * previous one is due. */
static void or_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    or_state_t *s = a->state;
    uint64_t every = cs__agent_u64(a->params[P_EVERY_BLOCKS]);
    int mode = a->params[P_MODE] >= 0.5;
    if (every == 0) every = 1;
    if (!s->started) {
        double u_ph = gsl_rng_uniform(a->rng);
        double u_c = gsl_rng_uniform(a->rng);
        uint64_t ph = (uint64_t)floor(u_ph * (double)every);
        if (ph >= every) ph = every - 1;
        s->started = 1;
        s->next_due = o->height + 1 + ph;
        s->waiting = !or_push(a, w, o, !mode, 1 + ph, u_c) && !mode;
        return;
    }
    double u_c = gsl_rng_uniform(a->rng);
    if ((mode || s->waiting) && o->height >= s->next_due) {
        /* CIP-5 App. B pattern, driven by the clock rather than the handler. */
        while (s->next_due + every <= o->height) s->next_due += every; /* inactive gap */
        s->next_due += every;
        s->waiting = !or_push(a, w, o, !mode, s->next_due - o->height, u_c) && !mode;
    }
}

const cs_agent_ops_t cs__agent_oracle = {
    .name = "oracle",
    .version = 2,
    .kind = CS_AK_ORACLE,
    .state_size = sizeof(or_state_t),
    .params = or_params,
    .n_params = P__COUNT,
    .on_block = or_on_block,
};
