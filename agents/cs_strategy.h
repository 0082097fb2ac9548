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

#define CS_STRAT_MAX_GRID 64    /* learning: bid multipliers at most */
#define CS_STRAT_MAX_BUCKETS 32 /* learning_value: value buckets at most */

typedef enum cs_strategy_kind {
    CS_STRAT_NONE = 0,      /* the kind's own pricing */
    CS_STRAT_FIXED_SHARE,   /* bid share x value */
    CS_STRAT_TRUTHFUL,      /* bid = value */
    CS_STRAT_BEST_RESPONSE, /* outbid the highest competing bid by epsilon, within value */
    CS_STRAT_SHADE,         /* first-price Bayes-Nash bid for n bidders */
    CS_STRAT_LEARNING,      /* Hedge (or EXP3) over a grid of bid multipliers, each judged in its
                             * timer's due block only (also named "due-block") */
    CS_STRAT_LEARNING_WAIT, /* Hedge (or EXP3) over waiting (bid 0) and bids from the reserve up,
                             * each judged by its utility at the height it would fire (bias-*) */
    CS_STRAT_WAIT_RESPONSE, /* bias-*: the best of bidding now, bidding the reserve and waiting for
                             * Bias, against the last threshold, in closed form (CIP-5 §9.2) */
    CS_STRAT_LEARNING_VALUE, /* Hedge (or EXP3) over bid multipliers per value bucket: a bid
                              * function of the value, judged against the block's true price */
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
    size_t n_buckets;                  /* learning_value: value buckets (1 .. CS_STRAT_MAX_BUCKETS) */
} cs_strategy_t;

/* A strategy's per-instance state (opaque; cs_strat_new). */
struct cs_strat_state;

/* The kind named name (or "due-block", the name of learning that says
 * what it judges), or CS_STRAT_NONE. */
int cs_strategy_find(const char *name);

/*
 * The state of strategy s for one bidder, in *out, with its own stream rng,
 * whose ownership passes to the call (freed on every path); vd is the value
 * distribution the bidder knows (shade and learning_value keep a shallow
 * copy; the other kinds ignore it, and it may be NULL for them;
 * learning_value without one has a single bucket).  s NULL or kind NONE: *out = NULL and CS_OK.  Returns
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

/* Learning (either learner): the current probabilities of the grid
 * multipliers into p (at most cap entries); returns the number of
 * multipliers (0 if s is not a learning strategy or cap is too small). */
size_t cs_strat_probs(const cs_strategy_t *s, const struct cs_strat_state *ss, double *p, size_t cap);

/* As cs_strat_probs, for a timer worth v: learning_value's probabilities
 * in v's value bucket (under bid mechanisms); the other learners' do not
 * depend on v.  The learned bid function is sum_k p[k] grid[k] x v. */
size_t cs_strat_probs_at(const cs_strategy_t *s, const struct cs_strat_state *ss, double v, double *p, size_t cap);

/* The first-price Bayes-Nash bid of a bidder with value v among n bidders
 * whose values are iid with distribution d:
 *   beta(v) = v - (1 / F(v)^(n-1)) x integral_lo^v F(x)^(n-1) dx
 * (uniform on [a, b]: a + (n - 1)(v - a) / n; constant: v). */
double cs_strategy_shade(const cs_dist_t *d, uint32_t n, double v);

/*
 * What a bid of a timer does under bias-vcg / bias-fp against a clearing
 * threshold T (priority per cycle) that stays put: the timer has gas limit
 * c, value v at its due height losing decay a block (0 beyond deadline
 * blocks of delay when deadline > 0), can fire at delays 0 .. horizon, and
 * each fire pays the CIP-3 execution fee fee on top of its payment.
 */
typedef struct cs_strat_wait_env {
    double T;          /* clearing threshold, priority per cycle (cs_obs_threshold_of) */
    double c;          /* gas limit, cycles */
    double bias0;      /* Bias(0) = bias_scale */
    double lambda;     /* Bias(n) = bias0 e^(n lambda) (CIP-5 §9.2) */
    double reserve;    /* reserve price */
    int gate;          /* 1: a bid below the reserve cannot win (bid-gate, N16) */
    int first_price;   /* 1: bias-fp (pay the bid), 0: bias-vcg (pay the critical bid) */
    double v, decay;   /* value at delay 0 and its loss per block of delay */
    uint64_t deadline; /* value 0 beyond this delay (0: none) */
    uint64_t horizon;  /* last delay at which the timer can fire (TTL) */
    double fee;        /* CIP-3 execution fee of the fire */
} cs_strat_wait_env_t;

/*
 * The fewest blocks of deferral n after which bid b fires against env e:
 * the least n >= 0 with (b + bias0 e^(n lambda)) / c > T (CIP-5 §9.2, §9.4:
 * each lost block adds one to n), and b >= reserve under the gate; returns
 * UINT64_MAX when no n <= e->horizon does.  Closed form:
 * n = floor(ln((T c - b) / bias0) / lambda) + 1 when T c - b >= bias0.
 * *pay is what that fire pays for the allocation: the bid (first price) or
 * the critical bid min(b, max(reserve, T c - Bias(n))) (bias-vcg, D6;
 * the reserve floors it, never above the bid, N59).
 */
uint64_t cs_strat_wait_fire(const cs_strat_wait_env_t *e, double b, double *pay);

/* The utility of bid b against e: value at the delay it fires at, less its
 * payment and the execution fee; 0 when it never fires. */
double cs_strat_wait_utility(const cs_strat_wait_env_t *e, double b);

/*
 * The best response of wait_response (agents/README.md "Strategies"):
 * the bid that maximises cs_strat_wait_utility over bids that fire now, the
 * reserve and 0 (wait for Bias).  Between those, the least bid that fires
 * after n deferrals is T c - bias0 e^(n lambda), so the utility
 * v - decay n - fee - (T c - bias0 e^(n lambda)) is convex in n: its
 * stationary point n* = ln(decay / (lambda bias0)) / lambda is a minimum,
 * and the best is at a corner of the delays worth waiting for -- fire now
 * (n = 0), or at the last such delay (the TTL, the deadline or the delay
 * at which the value is gone, where the curve ends), or pay nothing and
 * wait until Bias alone beats T -- or at the reserve, where the payment
 * floor breaks the curve.  Never a bid above v - fee; never one strictly
 * between 0 and the reserve.  Ties go to the earlier candidate in that
 * order.
 */
double cs_strat_wait_best(const cs_strat_wait_env_t *e);

#endif /* CS_STRATEGY_H */
