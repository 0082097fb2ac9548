/*
 * cs_strategy.h -- bidding strategies, separate from the arrival models of
 * the agent kinds (agents/README.md "Strategies").
 *
 * A scenario entry may give `strategy`; the loader fills a cs_strategy_t
 * (owned by the scenario) and the engine attaches it to every instance of
 * the entry with cs_strategy_attach (cs_agent.h), which allocates the
 * per-instance state here (cs_strat_new) and hands it the strategy's own
 * random stream (the engine derives it from the seed apart from the arrival
 * stream, so the arrivals stay identical across mechanisms).
 * cs_strategy_detach frees both.  The engine then calls
 *   cs_strategy_observe  once per block before the agent acts (learning),
 *   cs_strategy_bid      on every request before it is scheduled (bid
 *                        mechanisms: sets the bid),
 * and cs_agent_gba applies cs_strategy_fees at fire time (fee mechanisms).
 * Those agent-level calls pass the cs_strat_* functions below what a
 * strategy needs of its agent as values -- the instance index (to tell its
 * own bids from the competition's) and the mechanism family -- so the
 * strategies depend on the observation types (cs_obs.h) only.
 */
#ifndef CS_STRATEGY_H
#define CS_STRATEGY_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "cs_dist.h"
#include "cs_obs.h"

#define CS_STRAT_MAX_GRID 64 /* learning: bid multipliers at most */

typedef enum cs_strategy_kind {
    CS_STRAT_NONE = 0,      /* the kind's own pricing */
    CS_STRAT_FIXED_SHARE,   /* bid share x value */
    CS_STRAT_TRUTHFUL,      /* bid = value */
    CS_STRAT_BEST_RESPONSE, /* outbid the highest competing bid by epsilon, within value */
    CS_STRAT_SHADE,         /* first-price Bayes-Nash bid for n bidders */
    CS_STRAT_LEARNING,      /* Hedge (or EXP3) over a grid of bid multipliers */
    CS_STRAT__COUNT
} cs_strategy_kind;

/* Scenario names, index = cs_strategy_kind (entry 0 unused). */
extern const char *const cs_strategy_names[CS_STRAT__COUNT];

typedef struct cs_strategy {
    int kind;                          /* cs_strategy_kind */
    double share;                      /* fixed_share: share of the value */
    double epsilon;                    /* best_response: increment per fire (bid mechanisms) */
    double epsilon_prio;               /* best_response: over the competing tip, per cycle (fee mechanisms) */
    int fee_p50;                       /* best_response, fee mechanisms: 1 = outbid the p50 tip, 0 = the
                                        * first excluded competitor (cs_strategy_fees) */
    uint32_t n;                        /* shade: bidders (>= 2) */
    double eta;                        /* learning: Hedge / EXP3 learning rate */
    int bandit;                        /* learning: 1 = EXP3 (bandit feedback), 0 = Hedge */
    double grid[CS_STRAT_MAX_GRID];    /* learning: multipliers in [0, 1] */
    size_t n_grid;                     /* learning: number of multipliers (>= 2) */
} cs_strategy_t;

/* A strategy's per-instance state (opaque; cs_strat_new). */
struct cs_strat_state;

/* The kind named name, or CS_STRAT_NONE. */
int cs_strategy_find(const char *name);

/*
 * The state of strategy s for one bidder, in *out, with its own stream rng,
 * whose ownership passes to the call (freed on every path); vd is the value
 * distribution the bidder knows (shade keeps a shallow copy; the other
 * kinds ignore it, and it may be NULL for them).  s NULL or kind NONE: *out = NULL and CS_OK.  Returns
 * CS_OK or CS_ENOMEM (*out = NULL).  cs_strat_free releases it (NULL: no-op).
 */
int cs_strat_new(const cs_strategy_t *s, const cs_dist_t *vd, gsl_rng *rng, struct cs_strat_state **out);
void cs_strat_free(struct cs_strat_state *ss);

/* Start of a block: a learner updates its weights from the previous
 * block's outcome (full information or bandit feedback).  self is the
 * bidder's agent instance, mc the mechanism family (cs__mclass) of
 * o->mechanism.  No-op without a learning strategy or under CS__MC_NONE. */
void cs_strat_observe(const cs_strategy_t *s, struct cs_strat_state *ss, uint32_t self, int mc,
                      const cs_obs_t *o);

/* Bid mechanisms (mc == CS__MC_BID): set q's bid by the strategy (no-op
 * otherwise or without a strategy). */
void cs_strat_bid(const cs_strategy_t *s, struct cs_strat_state *ss, uint32_t self, int mc, const cs_obs_t *o,
                  cs_timer_req_t *q);

/* Fee mechanisms at fire time: 1 with the strategy's max_fee / max_prio
 * for timer t (its fire_* fields filled), 0 when s is NULL. */
int cs_strat_fees(const cs_strategy_t *s, struct cs_strat_state *ss, uint32_t self, const cs_timer_info_t *t,
                  const cs_obs_t *o, double *max_fee, double *max_prio);

/* Learning: the current probabilities of the grid multipliers into p (at
 * most cap entries); returns the number of multipliers (0 if s is not a
 * learning strategy or cap is too small). */
size_t cs_strat_probs(const cs_strategy_t *s, const struct cs_strat_state *ss, double *p, size_t cap);

/* The first-price Bayes-Nash bid of a bidder with value v among n bidders
 * whose values are iid with distribution d:
 *   beta(v) = v - (1 / F(v)^(n-1)) x integral_lo^v F(x)^(n-1) dx
 * (uniform on [a, b]: a + (n - 1)(v - a) / n; constant: v). */
double cs_strategy_shade(const cs_dist_t *d, uint32_t n, double v);

#endif /* CS_STRATEGY_H */
