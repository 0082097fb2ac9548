/*
 * cs_stats.c -- interval estimates and output analysis (cs_stats.h,
 * analysis/README.md "Statistics").  Distribution functions are GSL's
 * (gsl_cdf_*); the bootstrap stream is cs_rng_stream(seed, 0).
 */
#include "cs_stats.h"

#include "cs_error.h"
#include "cs_rng.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

#define CS__NAN ((double)NAN)

/* Student-t interval of the mean (cs_stats.h). */
void cs_stat_t_interval(const double *x, size_t n, double level, double *mean, double *lo, double *hi)
{
    double m = n ? gsl_stats_mean(x, 1, n) : CS__NAN, l = CS__NAN, h = CS__NAN;
    if (n >= 2 && level > 0 && level < 1) {
        double sd = gsl_stats_sd_m(x, 1, n, m); /* divides by n - 1 */
        double t = gsl_cdf_tdist_Pinv((1.0 + level) / 2.0, (double)(n - 1));
        double half = t * sd / sqrt((double)n);
        l = m - half;
        h = m + half;
    }
    if (mean) *mean = m;
    if (lo) *lo = l;
    if (hi) *hi = h;
}

/* The BCa quantile level for normal quantile z (cs_stats.h). */
static double cs__bca_alpha(double z0, double a, double z)
{
    double s = z0 + z;
    return gsl_cdf_ugaussian_P(z0 + s / (1.0 - a * s));
}

/* BCa bootstrap interval of the mean (cs_stats.h). */
int cs_stat_bca_mean(const double *x, size_t n, unsigned B, double level, uint64_t seed, double *lo,
                     double *hi)
{
    double l = CS__NAN, h = CS__NAN;
    int rc = CS_OK;
    if (lo) *lo = l;
    if (hi) *hi = h;
    if (!x || n < CS_STAT_BOOT_MIN_N || B == 0 || !(level > 0 && level < 1) || n > 0xffffffffu) return CS_OK;
    double m = gsl_stats_mean(x, 1, n);
    /* Jackknife means m_(i) = (n m - x_i) / (n - 1) and the acceleration. */
    double num = 0, den = 0, sum = 0;
    for (size_t i = 0; i < n; i++) sum += x[i];
    double jbar = 0;
    for (size_t i = 0; i < n; i++) jbar += (sum - x[i]) / (double)(n - 1);
    jbar /= (double)n;
    for (size_t i = 0; i < n; i++) {
        double d = jbar - (sum - x[i]) / (double)(n - 1);
        num += d * d * d;
        den += d * d;
    }
    if (den == 0) { /* every value equal: no sampling variation */
        if (lo) *lo = m;
        if (hi) *hi = m;
        return CS_OK;
    }
    double a = num / (6.0 * pow(den, 1.5));
    double *means = malloc((size_t)B * sizeof *means);
    gsl_rng *r = cs_rng_stream(seed, 0);
    if (!means || !r) {
        rc = CS_ENOMEM;
        goto out;
    }
    double below = 0;
    for (unsigned b = 0; b < B; b++) {
        double s = 0;
        for (size_t i = 0; i < n; i++) s += x[gsl_rng_uniform_int(r, (unsigned long)n)];
        means[b] = s / (double)n;
        below += means[b] < m ? 1.0 : means[b] == m ? 0.5 : 0.0;
    }
    gsl_sort(means, 1, B);
    /* Clamp the proportion so z0 stays finite when every resample is on
     * one side of the mean (tiny, heavily tied samples). */
    double p = below / (double)B, pmin = 0.5 / (double)B;
    p = p < pmin ? pmin : p > 1.0 - pmin ? 1.0 - pmin : p;
    double z0 = gsl_cdf_ugaussian_Pinv(p);
    double zl = gsl_cdf_ugaussian_Pinv((1.0 - level) / 2.0), zh = -zl;
    l = gsl_stats_quantile_from_sorted_data(means, 1, B, cs__bca_alpha(z0, a, zl));
    h = gsl_stats_quantile_from_sorted_data(means, 1, B, cs__bca_alpha(z0, a, zh));
out:
    free(means);
    if (r) gsl_rng_free(r);
    if (lo) *lo = rc == CS_OK ? l : CS__NAN;
    if (hi) *hi = rc == CS_OK ? h : CS__NAN;
    return rc;
}

/* Mean of batch j (observations 5j .. 5j + 4) of x. */
static double cs__batch5(const double *x, size_t j)
{
    double s = 0;
    for (size_t i = 0; i < 5; i++) s += x[5 * j + i];
    return s / 5.0;
}

/* MSER-5 truncation point (cs_stats.h).  Walking d from floor(nb / 2) down
 * to 0 and adding batch d to running sums gives every MSER(d) in O(nb):
 * sum_{j > d} (Y_j - Ybar_d)^2 = S2 - S1^2 / k with k = nb - d. */
size_t cs_stat_mser5(const double *x, size_t n, double *mser)
{
    size_t nb = n / 5;
    if (mser) *mser = CS__NAN;
    if (nb < 2) return 0;
    size_t dmax = nb / 2, bestd = 0;
    double s1 = 0, s2 = 0, best = HUGE_VAL;
    for (size_t j = dmax; j < nb; j++) {
        double v = cs__batch5(x, j);
        s1 += v;
        s2 += v * v;
    }
    for (size_t d = dmax + 1; d-- > 0;) {
        if (d < dmax) {
            double v = cs__batch5(x, d);
            s1 += v;
            s2 += v * v;
        }
        double k = (double)(nb - d), ss = s2 - s1 * s1 / k;
        if (ss < 0) ss = 0; /* rounding */
        double msr = ss / (k * k);
        if (msr <= best) { /* <=: the smallest d wins ties */
            best = msr;
            bestd = d;
        }
    }
    if (mser) *mser = best;
    return 5 * bestd;
}

/* Batch means interval (cs_stats.h). */
int cs_stat_batch_means(const double *x, size_t n, size_t k, double level, double *mean, double *lo,
                        double *hi)
{
    if (mean) *mean = CS__NAN;
    if (lo) *lo = CS__NAN;
    if (hi) *hi = CS__NAN;
    if (k < 2 || n / k == 0) return CS_OK;
    size_t bs = n / k, start = n - bs * k;
    double *bm = malloc(k * sizeof *bm);
    if (!bm) return CS_ENOMEM;
    for (size_t j = 0; j < k; j++) {
        double s = 0;
        for (size_t i = 0; i < bs; i++) s += x[start + j * bs + i];
        bm[j] = s / (double)bs;
    }
    cs_stat_t_interval(bm, k, level, mean, lo, hi);
    free(bm);
    return CS_OK;
}

/* Mean with t and BCa intervals of the finite values (cs_stats.h). */
int cs_stat_ci(const double *x, size_t n, double level, uint64_t seed, cs_stat_ci_t *out)
{
    out->n = 0;
    out->mean = out->t_lo = out->t_hi = out->b_lo = out->b_hi = CS__NAN;
    /* calloc: with no finite value nothing is read, but GCC's -O3 cannot
     * see that through cs_stat_t_interval and warns. */
    double *v = calloc(n ? n : 1, sizeof *v);
    if (!v) return CS_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) v[k++] = x[i];
    out->n = k;
    cs_stat_t_interval(v, k, level, &out->mean, &out->t_lo, &out->t_hi);
    int rc = cs_stat_bca_mean(v, k, CS_STAT_BOOT_B, level, seed, &out->b_lo, &out->b_hi);
    free(v);
    return rc;
}

/* Paired differences (cs_stats.h). */
int cs_stat_paired(const double *a, const double *b, size_t n, double level, uint64_t seed,
                   cs_stat_ci_t *out)
{
    double *d = malloc((n ? n : 1) * sizeof *d);
    if (!d) {
        out->n = 0;
        out->mean = out->t_lo = out->t_hi = out->b_lo = out->b_hi = CS__NAN;
        return CS_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) d[i] = a[i] - b[i]; /* NaN when either is NaN: dropped */
    int rc = cs_stat_ci(d, n, level, seed, out);
    free(d);
    return rc;
}
