/*
 * cs_strategy_int.h -- what the files of the strategy module share
 * (cs_strategy.c, cs_strategy_value.c); nothing outside agents/ includes
 * it.
 */
#ifndef CS_STRATEGY_INT_H
#define CS_STRATEGY_INT_H

#include "cs_strategy.h"

/* A bid mechanism's bid b of a timer worth vnet after its execution fee:
 * at most vnet, and never strictly between 0 and r (raised to r when the
 * timer can afford it, else 0; cs_strategy.c). */
double cs__strat_bid_floor(double b, double vnet, double r);

/* learning_value's state (cs_strategy_value.c): per value bucket, the log
 * weights of the grid, and the rounds awaiting their block's outcome. */
typedef struct cs__sv cs__sv_t;

/* The state of s (kind learning_value) for a bidder who knows the value
 * distribution vd (NULL: one bucket), in *out.  CS_OK or CS_ENOMEM (*out
 * NULL).  cs__sv_free releases it (NULL: no-op). */
int cs__sv_new(const cs_strategy_t *s, const cs_dist_t *vd, cs__sv_t **out);
void cs__sv_free(cs__sv_t *sv);

/* Bid mechanisms: the bid for request q under o, a multiplier drawn with
 * the uniform u from the weights of q's value bucket, times the value
 * less the execution fee fee, floored as cs__strat_bid_floor; the round is
 * recorded and judged when the block after its due block starts. */
double cs__sv_bid(const cs_strategy_t *s, cs__sv_t *sv, double u, const cs_obs_t *o, const cs_timer_req_t *q,
                  double fee);

/* Bid mechanisms: the start of a block judges the rounds due in the
 * previous one (cs_strategy_value.c). */
void cs__sv_observe(const cs_strategy_t *s, cs__sv_t *sv, uint32_t self, const cs_obs_t *o);

/* The probabilities of the grid in the bucket of value v, into p
 * (s->n_grid entries). */
void cs__sv_probs(const cs_strategy_t *s, const cs__sv_t *sv, double v, double *p);

#endif /* CS_STRATEGY_INT_H */
