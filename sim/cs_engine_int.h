/*
 * cs_engine_int.h -- internals shared by the pieces of the engine
 * (cs_engine.c: init, the block loop and the close; cs_engine_world.c: the
 * timer side table, the world ops agents call and the core's hooks;
 * cs_engine_output.c: the rows written while the run goes); not for use
 * outside them.  The engine's state and the small helpers that several
 * pieces call on their per-row paths (static inline, as they were when the
 * engine was one file) are here; each other function's contract is above
 * its definition.
 */
#ifndef CS_ENGINE_INT_H
#define CS_ENGINE_INT_H

#include "cs_converge.h"
#include "cs_sched_book.h"
#include "cs_engine_types.h"
#include "cs_h5.h"
#include "cs_scenario.h"
#include "cs_sched.h"

#include <gsl/gsl_rng.h>
#include <string.h>
#include <time.h>

#define CS__HIST_MAX 65536u /* exact delay histogram range per kind */
#define CS__ROWBUF 4096u    /* rows buffered before an HDF5 append */
#define CS__BATCH_MAX 4096u /* schedules in one arrival batch (cs__batch_schedule) */
#define CS__STRAT_STREAM (UINT64_C(0x57) << 56) /* strategy streams: this | agent index */

/*
 * Engine-side information of one timer, indexed by record slot
 * (DESIGN-NOTES N46).  The owner is not repeated here: the record's
 * interned actor is the engine's actor index (cs_sim_init checks it), and
 * the actor's agent and agent-local index follow from it (cs__ti_owner).
 * What only some timers use -- a value deadline, a value-aware agent's
 * requested fees, the count of blocks a value-aware timer has been priced
 * out, and a handler's cycles or a first due height too far from the
 * scheduling block for 32 bits -- sits in the extras table, with an entry
 * only for the timers that have one of them.
 */
typedef struct cs__tinfo {
    double value, decay;/* value model inputs */
    uint32_t cycles;    /* cycles the handler uses; CS__TI_WIDE: in the extras */
    uint32_t due_off;   /* first due height - the record's sched_height; CS__TI_WIDE: in the extras */
    uint32_t tag;       /* agent tag */
    uint32_t fires;     /* fires so far */
    uint32_t deferrals; /* total deferrals */
    uint32_t x;         /* CS__TI_FREE: no timer of the engine; CS__TI_LIVE: live, no extras
                         * entry; k + CS__TI_X0: live with extras entry k */
} cs__tinfo_t;
CS_STATIC_ASSERT(sizeof(cs__tinfo_t) == 40, "the engine's per-slot side table");
#define CS__TI_FREE 0u /* a zeroed slot reads as holding no timer */
#define CS__TI_LIVE 1u
#define CS__TI_X0 2u
#define CS__TI_WIDE UINT32_MAX /* the 64-bit value is in the extras */

/* The extras of one timer (cs__tinfo_t.x); the others read as all zero. */
typedef struct cs__textra {
    uint64_t deadline;  /* value deadline (delay), 0 = none */
    uint64_t cycles;    /* cycles the handler uses, when cs__tinfo_t.cycles is CS__TI_WIDE */
    uint64_t first_due; /* first due height, when cs__tinfo_t.due_off is CS__TI_WIDE */
    double req_fee, req_prio; /* value-aware, with req_fees: the request's fees, per cycle */
    uint32_t priced_out;/* value-aware: consecutive blocks deferred for price (patience) */
    uint8_t req_fees;   /* value-aware: the request's fees, applied (capped) at fire time */
    uint8_t booked;     /* booked at schedule time (slot-booking, priority-classes) */
    uint32_t book_moved;/* ... that many slots after the one it asked for */
    /* over_cap split (N86): work after this piece, the first piece's due
     * height, and what the handler's tail request repeats */
    uint64_t split_rem, split_due, split_ttl;
    double split_bid;
    uint8_t split_has_bid, split_tier;
    cs_u128 book_price; /* ... at this price (escrowed as its bid) */
} cs__textra_t;

/* A cancel a value-aware agent sends at the start of the next block, or a
 * system deployers' opcode on an agent's timer (N55). */
typedef struct cs__pcancel {
    cs_hash_t id;        /* timer id */
    uint32_t agent;      /* agent instance */
    uint32_t actor;      /* its actor index */
    uint32_t op;         /* CS__PC_OWNER, CS__PC_SYS_CANCEL or CS__PC_SYS_EXTEND */
    uint64_t new_expires_at; /* SYS_EXTEND_TIMER's argument */
} cs__pcancel_t;
enum { CS__PC_OWNER = 0, CS__PC_SYS_CANCEL = 48, CS__PC_SYS_EXTEND = 50 };

/* Per-kind delay histogram (exact quantiles).  The bucket array grows on
 * demand to the largest delay seen (powers of two, at most CS__HIST_MAX),
 * so a short run or a kind that never fires costs next to nothing: eager
 * allocation of every kind's 512 KiB dominated the start of small runs. */
typedef struct cs__hist {
    uint64_t *count;    /* n_count buckets, delays 0..n_count-1 (NULL until used) */
    uint32_t n_count;   /* allocated buckets, a power of two <= CS__HIST_MAX */
    uint64_t *big;      /* delays >= CS__HIST_MAX */
    size_t n_big, cap_big;
    uint64_t n;
} cs__hist_t;

typedef struct cs__actor {
    uint32_t agent;      /* owning agent */
    uint32_t sched_idx;  /* scheduler actor index */
    uint32_t payer_idx;  /* scheduler index of its fee payer (itself or its deployer) */
    uint32_t deployer;   /* deployer id */
    uint64_t fires;      /* (its timers scheduled: cs_engine.act_sched) */
    double value;        /* sum of fire values */
    cs_u128 paid;        /* sum paid, exact */
    double delay_sum;    /* sum of fire delays */
    uint64_t starved;    /* timers that came due and never fired (Jain, analysis/README.md) */
} cs__actor_t;

/* Scenario events and their ends, in a binary heap by (height, seq). */
typedef struct cs__ev {
    uint64_t h, seq;
    int type;            /* cs_event_type, or +100 for the end of a window */
    uint32_t idx;        /* event index */
} cs__ev_t;

/* A schedule made by a handler, bound to its slot after the block. */
typedef struct cs__hpend {
    cs_hash_t id;        /* timer id */
    cs_timer_req_t req;  /* the request */
    uint32_t agent;      /* agent */
    uint64_t due;        /* first due height */
    uint8_t booked;      /* booked at schedule (issue 28): quote and want hold the booking */
    uint64_t want;       /* the slot it asked for */
    cs_quote_t quote;    /* the offer it took */
} cs__hpend_t;

struct cs_engine {
    const cs_scenario_t *scn;
    const char *mech;
    cs_sim_opts_t opts;
    cs_sched_t *s;
    cs_world_t world;
    cs_agent_t *agents;
    size_t n_agents;
    cs__actor_t *actors;
    size_t n_actors;
    uint32_t *act_agent;      /* per actor: its agent (actors[].agent, packed: a fire's
                               * owner is found without touching the actor's statistics) */
    uint64_t *act_sched;      /* per actor: timers scheduled (packed, as act_agent: an
                               * arrival touches no line of cs__actor_t) */
    uint8_t *payer_dep;       /* per agent: its actors' fees are paid by their deployer
                               * (cs__actor_t.payer_idx differs from the actor) */
    cs_addr_t *addr;          /* actor addresses */
    uint8_t *agent_kind;      /* per agent */
    double *demand_mult;      /* per agent */
    double *fee_w;            /* per agent: cs_obs_t.fee_weight */
    double *vol_mult;         /* per agent (volatility events) */
    cs__tinfo_t *ti;          /* per record slot */
    size_t ti_n, ti_cap;      /* slots in use (zeroed or bound), allocated */
    cs__textra_t *tex;        /* extras table (cs__tinfo_t.x) */
    uint32_t *tex_free;       /* free extras entries (capacity tex_cap) */
    size_t n_tex, tex_cap, n_tex_free; /* high water, capacity, free */
    uint64_t h;               /* last finished block */
    cs_obs_t obs;             /* observation for the block being built */
    int in_handler;           /* inside a fire's transaction */
    int split_tail;           /* scheduling a split work's next piece (N86) */
    cs__hpend_t *hpend;       /* schedules made by handlers this block */
    size_t n_hpend, cap_hpend;
    int in_arrivals;          /* agents' on_block calls of the TX phase are running */
    uint8_t exec_bare;        /* no agent has on_outcome or deferred transactions: a fire's
                               * handler needs only its cycles (cs__hook_execute) */
    uint8_t gba_none;         /* no agent has a fire-time GBA of its own (gba hook, value-aware
                               * or a strategy): the core gets no gba hook (cs_sim_init) */
    uint8_t rank_ok;          /* the incremental ranking may run (cs_sim_init: quiet agents,
                               * COWSIM_RANKING not "full"); cs_sim_ranking returns to it */
    int batch_open;           /* the arrival batch's transaction is open */
    cs__hpend_t *bpend;       /* its schedules, in staging order (ids derived at commit) */
    size_t n_bpend, cap_bpend;
    cs__pcancel_t *pc;        /* priced-out timers to cancel next block */
    size_t n_pc, cap_pc;
    cs__ev_t *ev;             /* event heap */
    size_t n_ev, cap_ev;
    uint64_t ev_seq;
    uint32_t pause_depth;     /* active lane pauses */
    gsl_rng *env_rng;         /* environment random walks */
    double walk_cycle, walk_cell;
    /* output */
    cs_h5_t *h5;
    cs_h5_block_t *rb;
    size_t nrb;
    cs_h5_fire_t *rf;
    size_t nrf;
    cs_h5_timer_t *rt;
    size_t nrt;
    uint64_t blk_rejected;
    uint32_t blk_book_ref[CS_BOOKR__COUNT]; /* bookings refused at h, by cs_book_refusal */
    uint64_t slack_blocks;   /* blocks with a CIP-5 §9.3 slack (bias rules, N64) */
    uint64_t slack_violated; /* ... of which the slack was negative */
    cs_conv_t *conv;         /* convergence of the strategic populations (NULL: none) */
    /* a /weights sample's buffers, kept from one sample to the next (at
     * 10^5 identities, allocating them each time cost the kernel as much
     * as filling them) */
    uint32_t *w_id;
    uint64_t *w_rec, *w_w;
    cs_h5_weight_t *w_rows;
    size_t w_cap;
    /* statistics */
    cs__hist_t hist[CS_AK__COUNT + 1];
    uint64_t kind_timers[CS_AK__COUNT + 1], kind_fires[CS_AK__COUNT + 1];
    uint64_t fire_gas;        /* sum of the gas limits of every fire (the load line, N57) */
    double kind_value[CS_AK__COUNT + 1];
    cs_u128 kind_paid[CS_AK__COUNT + 1]; /* exact sums paid */
    double util_sum;
    uint64_t inv_checks;
    uint64_t h5_ns;           /* wall time spent inside cs_h5_* calls */
    int failed;
    char err[512];
};

/* ------------------------------------------------------------ inline helpers */

/* v rounded to the nearest double: below 2^64 by the 64-bit conversion,
 * which rounds the same integer the same way without a library call. */
static inline double cs__u128d(cs_u128 v) { return v >> 64 ? (double)v : (double)(uint64_t)v; }

static inline cs_u128 cs__d2u(double x)
{
    if (!(x > 0)) return 0;
    if (x >= 3.4e38) return CS_U128_MAX;
    return (cs_u128)x;
}

/* Monotonic clock in nanoseconds, for the HDF5 time counter (h5_ns). */
static inline uint64_t cs__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* The timer in slot's extras, or NULL when it has none (all zero). */
static inline const cs__textra_t *cs__ti_extra(const cs_engine_t *e, uint32_t slot)
{
    uint32_t x = e->ti[slot].x;
    return x >= CS__TI_X0 ? &e->tex[x - CS__TI_X0] : NULL;
}

static inline uint64_t cs__ti_deadline(const cs_engine_t *e, uint32_t slot)
{
    const cs__textra_t *x = cs__ti_extra(e, slot);
    return x ? x->deadline : 0;
}

/* Cycles the handler of the timer in slot uses (its request's cycles_used). */
static inline uint64_t cs__ti_cycles(const cs_engine_t *e, uint32_t slot)
{
    uint32_t c = e->ti[slot].cycles;
    return c == CS__TI_WIDE ? e->tex[e->ti[slot].x - CS__TI_X0].cycles : c;
}

/* The first due height of the timer in slot. */
static inline uint64_t cs__ti_first_due(const cs_engine_t *e, uint32_t slot)
{
    uint32_t d = e->ti[slot].due_off;
    if (d == CS__TI_WIDE) return e->tex[e->ti[slot].x - CS__TI_X0].first_due;
    return cs_sched_record(e->s, slot)->sched_height + d;
}

/* Whether slot holds a timer of the engine. */
static inline int cs__ti_live(const cs_engine_t *e, uint32_t slot)
{
    return slot < e->ti_n && e->ti[slot].x != CS__TI_FREE;
}

/* Slots a booked timer moved from the one it asked for (issue 28), 0 for
 * any other: its delay and value count from the requested slot (N75). */
static inline uint64_t cs__ti_moved(const cs_engine_t *e, uint32_t slot)
{
    uint32_t x = e->ti[slot].x;
    return x >= CS__TI_X0 && e->tex[x - CS__TI_X0].booked ? e->tex[x - CS__TI_X0].book_moved : 0;
}

/* The owner of the timer in slot: its engine actor (the record's interned
 * actor, cs_sim_init) and, if asked, that actor's agent and index within
 * the agent. */
static inline uint32_t cs__ti_owner(const cs_engine_t *e, uint32_t slot, uint32_t *agent, uint32_t *local)
{
    uint32_t g = cs_sched_record(e->s, slot)->actor;
    uint32_t ag = e->act_agent[g];
    if (agent) *agent = ag;
    if (local) *local = g - e->agents[ag].first_actor;
    return g;
}

/* Mark slot free, returning its extras entry to the free list. */
static inline void cs__ti_end(cs_engine_t *e, uint32_t slot)
{
    uint32_t x = e->ti[slot].x;
    if (x >= CS__TI_X0) e->tex_free[e->n_tex_free++] = x - CS__TI_X0;
    e->ti[slot].x = CS__TI_FREE;
}

/* The first 8 bytes of an id as a big-endian integer (one load and a byte
 * swap on little-endian hosts). */
static inline uint64_t cs__id64(const cs_hash_t *id)
{
    uint64_t v;
    memcpy(&v, id->b, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#elif !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
    v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | id->b[i];
#endif
    return v;
}

static inline double cs__value(const cs_engine_t *e, const cs_agent_t *a, const cs_timer_info_t *in, uint64_t delay)
{
    (void)e;
    if (a->ops->value) return a->ops->value(a, in, delay);
    return cs_agent_value_default(in, delay);
}

/* ------------------------------------------------------------ cs_engine_int.c */

void cs__seterr(cs_engine_t *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cs__deployer_addr(const char *name, cs_addr_t *dep);
cs_timer_info_t cs__info(const cs_engine_t *e, uint32_t slot, const cs_timer_t *t);

/* ------------------------------------------------------------ cs_engine_book.c */

/* The booking agent a takes for req (requested slot want, gas cycles)
 * under a booking mechanism: CS_OK with the offer in *chosen, or
 * CS_EBOOKING_REFUSED with the reason in chosen->refused; the core's
 * error otherwise. */
int cs__book_choose(cs_engine_t *e, const cs_agent_t *a, const cs_timer_req_t *req, uint64_t want, uint64_t gas,
                    cs_quote_t *chosen);
/* Record the booking of the timer that landed in slot (CS_ENOMEM). */
int cs__book_keep(cs_engine_t *e, uint32_t slot, const cs_quote_t *q, uint64_t want);
/* Free the booking of the timer in slot, just cancelled. */
void cs__book_release(cs_engine_t *e, uint32_t slot);

#endif /* CS_ENGINE_INT_H */
