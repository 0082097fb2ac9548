/*
 * cs_agent.h -- bidder agents behind one ops table (DESIGN §3, STYLE §2-3).
 *
 * An agent instance models one participant (or, for the fragmenter, one
 * deployer controlling K actors).  It acts through the world interface
 * (cs_world_*), which the engine implements: every schedule, cancel or key
 * write becomes a transaction of the scheduler core.  Agents may use doubles
 * and GSL freely; they never see consensus state except through the
 * observation struct.  Each instance has its own RNG stream, and exogenous
 * arrivals must be drawn only from it, so every mechanism sees the same
 * demand (common random numbers, DESIGN §2.7).
 *
 * Ownership: the engine allocates ops->state_size bytes of zeroed state per
 * instance, calls init, and calls fini before freeing it.
 */
#ifndef CS_AGENT_H
#define CS_AGENT_H

#include <gsl/gsl_rng.h>

#include "cs_dist.h"
#include "cs_error.h"
#include "cs_obs.h"
#include "cs_strategy.h"
#include "cs_types.h"

/* The 13 kinds of the catalog, in this order (HDF5 enum values). */
typedef enum cs_agent_kind {
    CS_AK_DEFAULT_GBA = 0,
    CS_AK_PRIORITY_TIER,
    CS_AK_LIQUIDATION_BOT,
    CS_AK_ORACLE,
    CS_AK_HEARTBEAT,
    CS_AK_SUBSCRIPTION,
    CS_AK_SPAMMER,
    CS_AK_FRAGMENTER,
    CS_AK_FP_BEST_RESPONSE,
    CS_AK_WAITING_GAME,
    CS_AK_AFFINE_USER,
    CS_AK_WATCHER,
    CS_AK_DEMAND_CURVE,
    CS_AK__COUNT
} cs_agent_kind;

typedef enum cs_agent_outcome {
    CS_AO_FIRED = 0,       /* fired at delay */
    CS_AO_DEFERRED = 1,    /* lost this block, carried */
    CS_AO_EXPIRED = 2,     /* destroyed: TTL */
    CS_AO_INSUFFICIENT = 3,/* destroyed: insufficient funds */
    CS_AO_REJECTED = 4     /* refused at schedule time (code in err) */
} cs_agent_outcome;

typedef struct cs_world cs_world_t; /* the engine; opaque to agents */

/*
 * Per-agent behaviour knobs of the scenario entry (agents/README.md
 * "Value-aware fees").  All zero = the literal behaviour of the kind.
 */
typedef struct cs_agent_policy {
    int value_aware;   /* cap fees by value at fire time, cancel priced-out timers, elastic
                        * entry, stop when the payer cannot cover a fire */
    uint64_t patience; /* a timer priced out in more than this many consecutive blocks is
                        * cancelled (0: after its first priced-out block) */
    /* The system deployers' opcodes on this agent's timers (CIP-1 rev §12,
     * DESIGN-NOTES N55), applied at the start of the next block; 0 = off. */
    uint64_t sys_cancel_after;  /* SYS_CANCEL_TIMER (48) a timer deferred this many times */
    uint64_t sys_extend_within; /* SYS_EXTEND_TIMER (50) a deferred timer whose TTL ends
                                 * within this many blocks ... */
    uint64_t sys_extend_by;     /* ... to expires_at + this many blocks (>= 2) */
    uint64_t deferred_txs;      /* deferred transactions each of its handlers creates
                                 * (CIP-5 §6.2, DESIGN-NOTES N67) */
} cs_agent_policy_t;

/* Agent instance as the engine holds it. */
typedef struct cs_agent {
    const struct cs_agent_ops *ops; /* kind */
    void *state;                    /* ops->state_size bytes, zeroed */
    const double *params;           /* ops->params values (defaults filled) */
    const cs_dist_t *dists;         /* per parameter: a distribution, kind NONE = the scalar
                                     * applies; NULL = none at all (owned by the scenario) */
    uint32_t index;                 /* global agent index (RNG stream, /actors) */
    uint32_t n_actors;              /* actors this instance controls (>= 1) */
    uint32_t first_actor;           /* index of its first actor in the run */
    gsl_rng *rng;                   /* own PCG64 stream */
    cs_agent_policy_t pol;          /* behaviour knobs (zero = literal kind) */
    const cs_strategy_t *strat;     /* bidding strategy (NULL = the kind's own pricing) */
    struct cs_strat_state *ss;      /* its per-instance state (cs_strategy_attach) */
    int active;                     /* 0 before entry / after exit */
    const char *mc_name;            /* the mechanism name mc was resolved for (cs__agent_mc) */
    int mc;                         /* its family (cs__mclass) */
} cs_agent_t;

/*
 * One agent parameter: scenario key, default, bounds, description, and
 * optionally a word the parameter accepts instead of a number (e.g.
 * affine_user's "expected_wait": "estimate").  The word is held as
 * CS_AGENT_PARAM_WORD, which lies below every parameter's min, so no
 * number in [min, max] can mean it; def may be CS_AGENT_PARAM_WORD when
 * the word is the default.
 */
typedef struct cs_agent_param {
    const char *name;   /* key under agents[i].params */
    double def;         /* default */
    double min, max;    /* inclusive bounds */
    const char *doc;    /* one line, shown in agents/README.md and the schema */
    const char *word;   /* the word accepted instead of a number (NULL: none) */
} cs_agent_param_t;

#define CS_AGENT_PARAM_WORD (-1.0) /* a parameter's value when its word was given */

typedef struct cs_agent_ops {
    const char *name;                   /* registry key, e.g. "heartbeat" */
    int version;                        /* bumped when behaviour changes */
    cs_agent_kind kind;                 /* catalog enum */
    size_t state_size;                  /* bytes of per-instance state */
    const cs_agent_param_t *params;     /* parameter table */
    size_t n_params;
    /* Names of the parameters that also accept a distribution object
     * (cs_dist.h), NULL-terminated; NULL = none. */
    const char *const *dist_params;
    /* Number of actors an instance controls given its params (NULL = 1). */
    uint32_t (*n_actors)(const double *params);
    int (*init)(cs_agent_t *a, cs_world_t *w);
    /* Start of every block while active: arrivals, cancels, key writes. */
    void (*on_block)(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o);
    /* Custom GBA at fire time (CIP-1 rev §7.2); return 1 if it set fees. */
    int (*gba)(cs_agent_t *a, const cs_timer_info_t *t, const cs_obs_t *o, double *max_fee,
               double *max_prio);
    /* Adjust the bid of a request just before it is scheduled (NULL = as given). */
    void (*bid)(cs_agent_t *a, const cs_obs_t *o, cs_timer_req_t *req);
    /* Result of one of its timers; may schedule (a handler rescheduling
     * itself runs here with outcome FIRED, inside the fire's transaction). */
    void (*on_outcome)(cs_agent_t *a, cs_world_t *w, const cs_timer_info_t *t, int outcome,
                       uint64_t delay, double paid);
    /* Value of a fire at the given delay (NULL = linear decay to deadline). */
    double (*value)(const cs_agent_t *a, const cs_timer_info_t *t, uint64_t delay);
    void (*fini)(cs_agent_t *a);
} cs_agent_ops_t;

/* World interface: implemented by the engine (sim/cs_engine_world.c) and by
 * mock worlds in tests.  Calls go through the wrappers below. */
typedef struct cs_world_ops {
    /* Schedule req for agent a; CS_OK with the id in *id_out, or the core's
     * error.  An agent that does not need the id passes NULL: the engine
     * then derives the ids of on_block's schedules in one batch when the
     * block's TX phase ends (the same CIP-5 §3.3 ids; DESIGN-NOTES N47). */
    int (*schedule)(void *impl, cs_agent_t *a, const cs_timer_req_t *req, cs_hash_t *id_out);
    /* Cancel one of a's timers (its actor must own it). */
    int (*cancel)(void *impl, cs_agent_t *a, uint32_t actor, const cs_hash_t *id);
    /* Write a state key as actor (ModifiedKeySet, watch triggers). */
    int (*write_key)(void *impl, cs_agent_t *a, uint32_t actor, const char *key);
    uint64_t (*height)(const void *impl);
    /* Balance that pays one of a's actors' fires, base units as a double:
     * the actor's own, or its deployer's under fee_payer = "deployer"
     * (CIP-1 rev §6, §3 step 4). */
    double (*balance)(const void *impl, const cs_agent_t *a, uint32_t actor);
} cs_world_ops_t;

struct cs_world {
    const cs_world_ops_t *ops; /* implementation */
    void *impl;                /* its state */
};

static inline int cs_world_schedule(cs_world_t *w, cs_agent_t *a, const cs_timer_req_t *req,
                                    cs_hash_t *id_out)
{
    return w->ops->schedule(w->impl, a, req, id_out);
}
static inline int cs_world_cancel(cs_world_t *w, cs_agent_t *a, uint32_t actor, const cs_hash_t *id)
{
    return w->ops->cancel(w->impl, a, actor, id);
}
static inline int cs_world_write_key(cs_world_t *w, cs_agent_t *a, uint32_t actor, const char *key)
{
    return w->ops->write_key(w->impl, a, actor, key);
}
static inline uint64_t cs_world_height(const cs_world_t *w) { return w->ops->height(w->impl); }
static inline double cs_world_balance(const cs_world_t *w, const cs_agent_t *a, uint32_t actor)
{
    return w->ops->balance(w->impl, a, actor);
}

/* Default value model: value - decay * delay, 0 past the deadline, >= 0. */
double cs_agent_value_default(const cs_timer_info_t *t, uint64_t delay);
/* The same from its three inputs (deadline 0: none), for a caller that has
 * them without a cs_timer_info_t. */
double cs_agent_value_linear(double value, double decay, uint64_t deadline, uint64_t delay);

/*
 * The fee parameters of one of a's timers at fire time (fee mechanisms):
 * the strategy's (cs_strategy_fees) if a has one, else the kind's custom
 * GBA if it has one, else the request's fees or the default GBA; for a value-aware agent max_fee is then capped at
 * floor(t->fire_budget) (>= 0) and max_prio at max_fee, so the fire never
 * costs more than it is worth.  Returns 1 with fees set, 0 for "use the
 * default GBA" (only when not value-aware and nothing else applies).
 */
int cs_agent_gba(cs_agent_t *a, const cs_timer_info_t *t, const cs_obs_t *o, double *max_fee, double *max_prio);

/*
 * The bidding strategy of a (cs_strategy.h), bound to the instance: these
 * hold its state in a->strat and a->ss and hand the strategy what it needs
 * of a as values (a->index and the family of o->mechanism).
 *
 * cs_strategy_attach attaches strategy s (NULL or kind NONE: nothing) to a
 * with its own stream rng, whose ownership passes to the call (freed on
 * every path); shade learns a's value distribution (the distribution
 * object given for "value", else the default lognormal (value,
 * value_sigma)).  Returns CS_OK or CS_ENOMEM (a then holds nothing to
 * detach).  cs_strategy_detach frees the state and the stream.
 */
int cs_strategy_attach(cs_agent_t *a, const cs_strategy_t *s, gsl_rng *rng);
void cs_strategy_detach(cs_agent_t *a);

/* Start of a block (before the agent acts): learning updates its weights
 * from the previous block's competing price (full information). */
void cs_strategy_observe(cs_agent_t *a, const cs_obs_t *o);

/* Bid mechanisms: set q's bid by the strategy (no-op otherwise). */
void cs_strategy_bid(cs_agent_t *a, const cs_obs_t *o, cs_timer_req_t *q);

/* Fee mechanisms at fire time: 1 with the strategy's max_fee / max_prio
 * for timer t (its fire_* fields filled), 0 when it has none. */
int cs_strategy_fees(cs_agent_t *a, const cs_timer_info_t *t, const cs_obs_t *o, double *max_fee, double *max_prio);

/* Learning: the current probabilities of the grid multipliers into p (at
 * most cap entries); returns the number of multipliers (0 if none). */
size_t cs_strategy_probs(const cs_agent_t *a, double *p, size_t cap);

/*
 * The expected cost of one fire of a now, from its parameters and the
 * observation o (agents/README.md "Budgets"): with E[c] = gas_limit x
 * mean(cycles_frac) and the payload's cells,
 *   fee mechanisms  (basefee_cycle + basefee_lane + p50_tip) x E[c] + payload_len x basefee_cell,
 *   bid mechanisms  max(reserve, share x E[value]): share = the fixed_share
 *                   share, 1 for the other strategies, else bid_frac (0 = no bid),
 *   FIFO            basefee_cycle x E[c] + payload_len x basefee_cell.
 * Missing parameters count as 0.
 */
double cs_agent_fire_price(const cs_agent_t *a, const cs_obs_t *o);

/* The competing price a bidder observes: the highest bid of the previous
 * block's candidates that were not its own (o->top_bid_other when a made
 * the top bid itself). */
double cs_obs_competing(const cs_obs_t *o, const cs_agent_t *a);

/* The clearing threshold a bidder must beat: o->thresh, or, when the
 * highest deferred candidate was a's own, the lowest winner o->thresh_win
 * (the one a's timer would have had to displace). */
double cs_obs_threshold(const cs_obs_t *o, const cs_agent_t *a);

/* 1 when parameter k of ops accepts a distribution object. */
int cs_agent_param_dist(const cs_agent_ops_t *ops, size_t k);

/* Registry (STYLE §3). */
extern const cs_agent_ops_t *const cs_agent_registry[];
const cs_agent_ops_t *cs_agent_find(const char *name);
char *cs_agent_names(char *buf, size_t cap);
extern const char *const cs_agent_kind_names[]; /* CS_AK__COUNT names */

#endif /* CS_AGENT_H */
