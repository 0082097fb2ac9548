/*
 * cs_effective.h -- the effective scenario of one run: the scenario as
 * loaded (overrides applied) with every default filled in, written as the
 * root attribute params_effective of each run file (README "Output").
 *
 * It is the scenario JSON with: seed (the run's, after --seed), blocks,
 * mechanism (this run's, a string), params (every core parameter of
 * core/cs_params.h: U64 as integers, FP as real numbers, U128 as decimal
 * strings, ENUM as names), environment (both processes), every agents[i]
 * key (count, deployer, balance as a decimal string, fee_payer, enter_at,
 * exit_at, value_aware, patience, and every parameter of the kind: the
 * given value or distribution object, else the default) and output (fires,
 * flush_every, weights_every).  Events are kept as given.
 */
#ifndef CS_EFFECTIVE_H
#define CS_EFFECTIVE_H

#include <stdint.h>

#include "cs_scenario.h"

/* The effective scenario as compact JSON text (malloc'd, caller frees), or
 * NULL when out of memory. */
char *cs_effective_json(const cs_scenario_t *s, const char *mechanism, uint64_t seed);

#endif /* CS_EFFECTIVE_H */
