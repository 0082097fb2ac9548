/*
 * cs_strategy.h -- bidding strategies, separate from the arrival models of
 * the agent kinds (agents/README.md "Strategies").
 *
 * A scenario entry may give `strategy`; the loader fills a cs_strategy_t
 * (owned by the scenario) and the engine attaches it to every instance of
 * the entry with cs_strategy_attach, which allocates the per-instance state
 * and takes the strategy's own random stream (the engine derives it from
 * the seed apart from the arrival stream, so the arrivals stay identical
 * across mechanisms).  cs_strategy_detach frees both.  The engine then calls
 *   cs_strategy_observe  once per block before the agent acts (learning),
 *   cs_strategy_bid      on every request before it is scheduled (bid
 *                        mechanisms: sets the bid),
 * and cs_agent_gba applies cs_strategy_fees at fire time (fee mechanisms).
 */
#ifndef CS_STRATEGY_H
#define CS_STRATEGY_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "cs_dist.h"

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

struct cs_agent;
struct cs_obs;
struct cs_timer_req;
struct cs_timer_info;

/* The kind named name, or CS_STRAT_NONE. */
int cs_strategy_find(const char *name);

/*
 * Attach strategy s (NULL or kind NONE: nothing) to agent a with its own
 * stream rng, whose ownership passes to the call (freed on every path).
 * Returns CS_OK or CS_ENOMEM (a then holds nothing to detach).
 */
int cs_strategy_attach(struct cs_agent *a, const cs_strategy_t *s, gsl_rng *rng);
void cs_strategy_detach(struct cs_agent *a);

/* Start of a block (before the agent acts): learning updates its weights
 * from the previous block's competing price (full information). */
void cs_strategy_observe(struct cs_agent *a, const struct cs_obs *o);

/* Bid mechanisms: set q's bid by the strategy (no-op otherwise). */
void cs_strategy_bid(struct cs_agent *a, const struct cs_obs *o, struct cs_timer_req *q);

/* Fee mechanisms at fire time: 1 with the strategy's max_fee / max_prio
 * for timer t (its fire_* fields filled), 0 when it has none. */
int cs_strategy_fees(struct cs_agent *a, const struct cs_timer_info *t, const struct cs_obs *o, double *max_fee,
                     double *max_prio);

/* The first-price Bayes-Nash bid of a bidder with value v among n bidders
 * whose values are iid with distribution d:
 *   beta(v) = v - (1 / F(v)^(n-1)) x integral_lo^v F(x)^(n-1) dx
 * (uniform on [a, b]: a + (n - 1)(v - a) / n; constant: v). */
double cs_strategy_shade(const cs_dist_t *d, uint32_t n, double v);

/* Learning: the current probabilities of the grid multipliers into p (at
 * most cap entries); returns the number of multipliers (0 if none). */
size_t cs_strategy_probs(const struct cs_agent *a, double *p, size_t cap);

#endif /* CS_STRATEGY_H */
