/*
 * cs_dist.h -- distributions of the random quantities of agents (value,
 * waiting cost, delay, cycles share, arrival count): the scenario form
 * {"dist": "<name>", ...} (agents/README.md "Distributions").
 *
 * A cs_dist_t is filled by the scenario loader and owned by it: the loader
 * calls cs_dist_prepare once the fields are set and cs_dist_clear when it
 * frees the scenario.  Agents only draw from it, always through GSL and
 * always from their own stream, so a distribution never touches another
 * agent's numbers (common random numbers, DESIGN §2.7).
 */
#ifndef CS_DIST_H
#define CS_DIST_H

#include <stddef.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "cs_draw.h"

/* The families, in the order of cs_dist_names. */
typedef enum cs_dist_kind {
    CS_DIST_NONE = 0,     /* not a distribution: the scalar parameter applies */
    CS_DIST_CONSTANT,     /* p[0] = value */
    CS_DIST_UNIFORM,      /* p[0] = min, p[1] = max (min <= max) */
    CS_DIST_LOGNORMAL,    /* p[0] = mean > 0, p[1] = sigma (log-sd) >= 0 */
    CS_DIST_EXPONENTIAL,  /* p[0] = mean > 0 */
    CS_DIST_NORMAL_TRUNC, /* p[0] = mean, p[1] = sd > 0, p[2] = min < p[3] = max */
    CS_DIST_PARETO,       /* p[0] = scale x_m > 0, p[1] = shape alpha > 0 */
    CS_DIST_EMPIRICAL,    /* values[n] with weights[n] (NULL = equal) */
    CS_DIST__COUNT
} cs_dist_kind;

/* Scenario names ("constant", ...), index = cs_dist_kind (entry 0 unused). */
extern const char *const cs_dist_names[CS_DIST__COUNT];

typedef struct cs_dist {
    int kind;                  /* cs_dist_kind */
    double p[4];               /* family parameters, see cs_dist_kind */
    double *values;            /* EMPIRICAL: n values (owned, malloc) */
    double *weights;           /* EMPIRICAL: n weights >= 0 or NULL (owned) */
    size_t n;                  /* EMPIRICAL: number of values */
    gsl_ran_discrete_t *table; /* EMPIRICAL: lookup table (cs_dist_prepare) */
    double *sorted;            /* EMPIRICAL: the n values ascending (cs_dist_prepare) */
    double *cum;               /* EMPIRICAL: cum[i] = P(X <= sorted[i]) (cs_dist_prepare) */
} cs_dist_t;

/* The kind named name, or CS_DIST_NONE when no family has that name. */
int cs_dist_find(const char *name);

/* Build what drawing and the CDF need (the empirical lookup table, sorted
 * values and cumulative probabilities).  Returns 0, or -1 when out of
 * memory (d is then still safe to cs_dist_clear). */
int cs_dist_prepare(cs_dist_t *d);

/* Free what d owns and zero it. */
void cs_dist_clear(cs_dist_t *d);

/*
 * One draw.  Variates taken from r: constant none; uniform, exponential,
 * normal_trunc (inverse CDF), pareto and empirical exactly one uniform;
 * lognormal one Gaussian (GSL's polar method, which itself rejects a
 * varying number of uniforms -- the count depends on the stream only).
 */
double cs_dist_draw(const cs_dist_t *d, gsl_rng *r);

/* cs_dist_draw with the constant and the uniform drawn inline (the same
 * variates: cs_draw.h). */
static inline double cs_dist_draw_inline(const cs_dist_t *d, gsl_rng *r)
{
    if (d->kind == CS_DIST_UNIFORM) return cs_draw_flat(r, d->p[0], d->p[1]);
    if (d->kind == CS_DIST_CONSTANT) return d->p[0];
    return cs_dist_draw(d, r);
}

/* Closed-form mean and variance.  Returns 0, or -1 when a moment is
 * infinite (pareto with shape <= 1 for the mean, <= 2 for the variance). */
int cs_dist_moments(const cs_dist_t *d, double *mean, double *var);

/* The CDF P(X <= x) of d. */
double cs_dist_cdf(const cs_dist_t *d, double x);

/* Support [*lo, *hi] of d (hi = +inf for unbounded families). */
void cs_dist_support(const cs_dist_t *d, double *lo, double *hi);

#endif /* CS_DIST_H */
