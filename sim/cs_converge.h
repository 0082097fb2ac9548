/*
 * cs_converge.h -- convergence of a run's strategic populations, measured
 * (issue 27 item 2; DESIGN-NOTES N77; analysis/README.md "Convergence").
 *
 * A population is one scenario entry with a strategy under the run's
 * mechanism.  Its price is what each of its requests states as a share of
 * the value: under bid mechanisms the bid / value at scheduling, under fee
 * mechanisms (fire_fixed + fire_cycles x max_fee) / fire_value at fire
 * time (the multiplier k of B(k), agents/README.md "Strategies").  The run
 * is cut into CS_CONV_WINDOWS windows of W = ceil(blocks / CS_CONV_WINDOWS)
 * blocks and each window's mean price is kept.  Criterion: with m the
 * mean price over the last quarter of the windows, a window is close when
 * its mean lies within max(CS_CONV_TOL, 3 se) of m, se the standard error
 * of its mean (sd / sqrt(requests); 0 with fewer than two), so a static
 * strategy whose prices vary with the value is not judged unsettled for
 * its sampling noise.  The population has converged when every window of
 * the last quarter that has a request is close (and at least one has);
 * it converged at the first block of the earliest window from which every
 * later window with a request is close.
 *
 * Ownership: cs_conv_new allocates the tracker (NULL when the run has no
 * strategic population), cs_conv_free releases it; cs_conv_json returns
 * malloc'd text the caller frees.
 */
#ifndef CS_CONVERGE_H
#define CS_CONVERGE_H

#include <stdint.h>

#include "cs_scenario.h"

#define CS_CONV_WINDOWS 20 /* windows over the horizon */
#define CS_CONV_TOL 0.02   /* largest distance of a converged window's mean price from the last quarter's */

typedef struct cs_conv cs_conv_t;

/* The tracker of scn's populations under mechanism mech over its blocks in
 * *out (NULL: none has a strategy).  CS_OK or CS_ENOMEM. */
int cs_conv_new(const cs_scenario_t *scn, const char *mech, cs_conv_t **out);
void cs_conv_free(cs_conv_t *c);

/* One price (a share of the value) stated in block height by a bidder
 * whose strategy is st; ignored when st belongs to no population, c is
 * NULL or the price is not finite. */
void cs_conv_add(cs_conv_t *c, const cs_strategy_t *st, uint64_t height, double price);

/* The verdicts as JSON text (malloc'd; NULL when out of memory):
 *   {"criterion": text, "window": W, "tolerance": CS_CONV_TOL,
 *    "populations": [{"entry": i, "kind": name, "strategy": name,
 *      "requests": n, "final_mean": m or null, "converged": bool,
 *      "at": first block or null, "means": [one per window, null when it
 *      had no request], "counts": [requests per window], "ses": [standard
 *      errors of the means]}, ...]} */
char *cs_conv_json(const cs_conv_t *c);

#endif /* CS_CONVERGE_H */
