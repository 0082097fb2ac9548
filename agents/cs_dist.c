/*
 * cs_dist.c -- distributions of agent quantities (cs_dist.h), drawn through
 * GSL from the caller's stream.
 */
#include "cs_dist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_math.h>

#include "cs_draw.h"

const char *const cs_dist_names[CS_DIST__COUNT] = {
    "", "constant", "uniform", "lognormal", "exponential", "normal_trunc", "pareto", "empirical",
};

int cs_dist_find(const char *name)
{
    if (name == NULL) return CS_DIST_NONE;
    for (int k = 1; k < CS_DIST__COUNT; k++)
        if (strcmp(cs_dist_names[k], name) == 0) return k;
    return CS_DIST_NONE;
}

/* (value, weight) pairs ordered by value, for the empirical CDF. */
typedef struct cs__dist_vw {
    double v, w;
} cs__dist_vw_t;

static int cs__dist_vw_cmp(const void *a, const void *b)
{
    double x = ((const cs__dist_vw_t *)a)->v, y = ((const cs__dist_vw_t *)b)->v;
    return (x > y) - (x < y);
}

int cs_dist_prepare(cs_dist_t *d)
{
    if (d->kind != CS_DIST_EMPIRICAL || d->table != NULL) return 0;
    size_t n = d->n ? d->n : 1;
    double *w = malloc(n * sizeof *w);
    cs__dist_vw_t *vw = malloc(n * sizeof *vw);
    d->sorted = malloc(n * sizeof *d->sorted);
    d->cum = malloc(n * sizeof *d->cum);
    if (w && vw && d->sorted && d->cum) {
        double sw = 0;
        for (size_t i = 0; i < d->n; i++) {
            w[i] = d->weights ? d->weights[i] : 1.0;
            vw[i].v = d->values[i];
            vw[i].w = w[i];
            sw += w[i];
        }
        qsort(vw, d->n, sizeof *vw, cs__dist_vw_cmp); /* equal values: any order, same sums */
        double acc = 0;
        for (size_t i = 0; i < d->n; i++) {
            acc += vw[i].w;
            d->sorted[i] = vw[i].v;
            d->cum[i] = acc / sw;
        }
        d->table = gsl_ran_discrete_preproc(d->n, w);
    }
    free(w);
    free(vw);
    return d->table ? 0 : -1;
}

void cs_dist_clear(cs_dist_t *d)
{
    if (d == NULL) return;
    free(d->values);
    free(d->weights);
    if (d->table) gsl_ran_discrete_free(d->table);
    free(d->sorted);
    free(d->cum);
    memset(d, 0, sizeof *d);
}

/*
 * Truncated normal by inversion: one uniform u mapped into the CDF range of
 * [min, max].  Above the mean the upper-tail functions are used, so a
 * window far in the right tail keeps its precision.
 */
static double cs__dist_ntrunc(const cs_dist_t *d, double u)
{
    double mu = d->p[0], sd = d->p[1];
    double al = (d->p[2] - mu) / sd, be = (d->p[3] - mu) / sd;
    double z;
    if (al >= 0.0) {
        double qa = gsl_cdf_ugaussian_Q(al), qb = gsl_cdf_ugaussian_Q(be);
        z = gsl_cdf_ugaussian_Qinv(qa - u * (qa - qb));
    } else {
        double pa = gsl_cdf_ugaussian_P(al), pb = gsl_cdf_ugaussian_P(be);
        z = gsl_cdf_ugaussian_Pinv(pa + u * (pb - pa));
    }
    double x = mu + sd * z;
    if (x < d->p[2]) x = d->p[2]; /* rounding at the edges */
    if (x > d->p[3]) x = d->p[3];
    return x;
}

double cs_dist_draw(const cs_dist_t *d, gsl_rng *r)
{
    switch (d->kind) {
    case CS_DIST_CONSTANT: return d->p[0];
    case CS_DIST_UNIFORM: return cs_draw_flat(r, d->p[0], d->p[1]);
    case CS_DIST_LOGNORMAL: {
        /* Mean-parametrised: zeta = ln(mean) - sigma^2 / 2, so E = mean. */
        double s = d->p[1];
        return gsl_ran_lognormal(r, log(d->p[0]) - 0.5 * s * s, s);
    }
    case CS_DIST_EXPONENTIAL: return gsl_ran_exponential(r, d->p[0]);
    case CS_DIST_NORMAL_TRUNC: return cs__dist_ntrunc(d, cs_draw_uniform(r));
    case CS_DIST_PARETO: return gsl_ran_pareto(r, d->p[1], d->p[0]);
    case CS_DIST_EMPIRICAL: return d->values[gsl_ran_discrete(r, d->table)];
    default: return 0.0;
    }
}

int cs_dist_moments(const cs_dist_t *d, double *mean, double *var)
{
    double m = 0, v = 0;
    switch (d->kind) {
    case CS_DIST_CONSTANT: m = d->p[0]; break;
    case CS_DIST_UNIFORM:
        m = 0.5 * (d->p[0] + d->p[1]);
        v = (d->p[1] - d->p[0]) * (d->p[1] - d->p[0]) / 12.0;
        break;
    case CS_DIST_LOGNORMAL: /* E = mean, Var = mean^2 (e^{sigma^2} - 1) */
        m = d->p[0];
        v = m * m * expm1(d->p[1] * d->p[1]);
        break;
    case CS_DIST_EXPONENTIAL:
        m = d->p[0];
        v = m * m;
        break;
    case CS_DIST_NORMAL_TRUNC: {
        /* alpha, beta standardised bounds, Z = Phi(beta) - Phi(alpha):
         * E = mu + sd (phi(a) - phi(b)) / Z,
         * Var = sd^2 [1 + (a phi(a) - b phi(b)) / Z - ((phi(a) - phi(b)) / Z)^2]. */
        double mu = d->p[0], sd = d->p[1];
        double al = (d->p[2] - mu) / sd, be = (d->p[3] - mu) / sd;
        double pa = exp(-0.5 * al * al) / sqrt(2.0 * M_PI), pb = exp(-0.5 * be * be) / sqrt(2.0 * M_PI);
        double z = al >= 0.0 ? gsl_cdf_ugaussian_Q(al) - gsl_cdf_ugaussian_Q(be)
                             : gsl_cdf_ugaussian_P(be) - gsl_cdf_ugaussian_P(al);
        double r = (pa - pb) / z;
        m = mu + sd * r;
        v = sd * sd * (1.0 + (al * pa - be * pb) / z - r * r);
        break;
    }
    case CS_DIST_PARETO: { /* E = a xm / (a - 1), Var = xm^2 a / ((a - 1)^2 (a - 2)) */
        double xm = d->p[0], a = d->p[1];
        if (a <= 1.0) return -1;
        m = a * xm / (a - 1.0);
        if (a <= 2.0) {
            *mean = m;
            return -1;
        }
        v = xm * xm * a / ((a - 1.0) * (a - 1.0) * (a - 2.0));
        break;
    }
    case CS_DIST_EMPIRICAL: {
        double sw = 0, s1 = 0, s2 = 0;
        for (size_t i = 0; i < d->n; i++) {
            double w = d->weights ? d->weights[i] : 1.0;
            sw += w;
            s1 += w * d->values[i];
        }
        m = s1 / sw;
        for (size_t i = 0; i < d->n; i++) {
            double w = d->weights ? d->weights[i] : 1.0;
            s2 += w * (d->values[i] - m) * (d->values[i] - m);
        }
        v = s2 / sw;
        break;
    }
    default: break;
    }
    *mean = m;
    *var = v;
    return 0;
}

double cs_dist_cdf(const cs_dist_t *d, double x)
{
    const double *q = d->p;
    switch (d->kind) {
    case CS_DIST_CONSTANT: return x < q[0] ? 0.0 : 1.0;
    case CS_DIST_UNIFORM:
        if (x < q[0]) return 0.0;
        if (x >= q[1]) return 1.0;
        return (x - q[0]) / (q[1] - q[0]);
    case CS_DIST_LOGNORMAL:
        if (q[1] == 0.0) return x < q[0] ? 0.0 : 1.0;
        return x <= 0.0 ? 0.0 : gsl_cdf_lognormal_P(x, log(q[0]) - 0.5 * q[1] * q[1], q[1]);
    case CS_DIST_EXPONENTIAL: return x <= 0.0 ? 0.0 : gsl_cdf_exponential_P(x, q[0]);
    case CS_DIST_NORMAL_TRUNC: {
        if (x <= q[2]) return 0.0;
        if (x >= q[3]) return 1.0;
        double pa = gsl_cdf_ugaussian_P((q[2] - q[0]) / q[1]), pb = gsl_cdf_ugaussian_P((q[3] - q[0]) / q[1]);
        return (gsl_cdf_ugaussian_P((x - q[0]) / q[1]) - pa) / (pb - pa);
    }
    case CS_DIST_PARETO: return x <= q[0] ? 0.0 : gsl_cdf_pareto_P(x, q[1], q[0]);
    case CS_DIST_EMPIRICAL: {
        /* The last sorted value <= x (binary search; equal values share the
         * cumulative probability of the last of them). */
        if (d->sorted == NULL || d->n == 0 || x < d->sorted[0]) return 0.0;
        size_t lo = 0, hi = d->n; /* sorted[lo] <= x < sorted[hi] */
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (d->sorted[mid] <= x) lo = mid;
            else hi = mid;
        }
        return d->cum[lo];
    }
    default: return 0.0;
    }
}

void cs_dist_support(const cs_dist_t *d, double *lo, double *hi)
{
    *lo = 0.0;
    *hi = HUGE_VAL;
    switch (d->kind) {
    case CS_DIST_CONSTANT: *lo = *hi = d->p[0]; break;
    case CS_DIST_UNIFORM:
    case CS_DIST_NORMAL_TRUNC:
        *lo = d->p[d->kind == CS_DIST_UNIFORM ? 0 : 2];
        *hi = d->p[d->kind == CS_DIST_UNIFORM ? 1 : 3];
        break;
    case CS_DIST_PARETO: *lo = d->p[0]; break;
    case CS_DIST_EMPIRICAL:
        *lo = HUGE_VAL;
        *hi = -HUGE_VAL;
        for (size_t i = 0; i < d->n; i++) {
            if (d->values[i] < *lo) *lo = d->values[i];
            if (d->values[i] > *hi) *hi = d->values[i];
        }
        break;
    default: break;
    }
}
