/*
 * test_stats.c -- analysis/cs_stats.c: interval coverage on synthetic
 * metrics with a known mean, MSER-5 on a series with a known change point,
 * batch means, paired differences, and hand-computed small cases.
 */
#include "cs_stats.h"

#include "cs_rng.h"
#include "cs_test.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

/* Hand-computed t interval: x = {2.385, 4.1, 3.0}, mean 3.161666..,
 * s^2 = ((-0.776667)^2 + 0.938333^2 + (-0.161667)^2) / 2 = 0.754908,
 * s = 0.868855, t_{2,0.975} = 4.302653, half = 4.302653 * 0.868855 / sqrt 3
 * = 2.158355. */
static void test_t_small(void)
{
    const double x[] = {2.385, 4.1, 3.0};
    double m, lo, hi;
    cs_stat_t_interval(x, 3, 0.95, &m, &lo, &hi);
    CS_CHECK(NEAR(m, 3.1616666667, 1e-9));
    CS_CHECK(NEAR(hi - m, 2.158355, 2e-6));
    CS_CHECK(NEAR(m - lo, 2.158355, 2e-6));
    cs_stat_t_interval(x, 1, 0.95, &m, &lo, &hi);
    CS_CHECK(m == 2.385 && isnan(lo) && isnan(hi));
}

/* Coverage of the 95 % intervals: R replications of a synthetic metric
 * with known mean mu.  Each replication draws n values from its own
 * PCG64 stream (seed 20261124, stream r).  With R = 2000 the standard error
 * of an estimated coverage near 0.95 is sqrt(0.95 * 0.05 / 2000) = 0.0049,
 * so 93-97 % is about +/- 4 standard errors.
 *
 * t interval: normal values (mu 3.7, sd 2.2), n = 6.  Its coverage is
 * exactly 95 %; a normal-quantile interval (1.96 instead of t_{5} = 2.571)
 * would cover only ~ 89.9 %, outside the band: the test can tell them
 * apart.
 *
 * BCa interval: gamma values (shape 4, scale 0.6, mean 2.4, skewed), n = 60,
 * B = 1000 resamples per replication. */
static void test_coverage(void)
{
    enum { R = 2000 };
    const double level = 0.95;
    unsigned t_cov = 0, b_cov = 0, z_cov = 0;
    double x[60];
    for (unsigned r = 0; r < R; r++) {
        gsl_rng *g = cs_rng_stream(20261124u, r);
        CS_CHECK(g != NULL);
        if (!g) return;
        const double mu_t = 3.7;
        for (int i = 0; i < 6; i++) x[i] = mu_t + gsl_ran_gaussian(g, 2.2);
        double m, lo, hi;
        cs_stat_t_interval(x, 6, level, &m, &lo, &hi);
        t_cov += lo <= mu_t && mu_t <= hi;
        /* The naive z interval of the same sample, for contrast. */
        double half = (hi - m) / 2.570582 * 1.959964;
        z_cov += m - half <= mu_t && mu_t <= m + half;

        const double mu_b = 4 * 0.6;
        for (int i = 0; i < 60; i++) x[i] = gsl_ran_gamma(g, 4.0, 0.6);
        CS_CHECK(cs_stat_bca_mean(x, 60, 1000, level, 1000u + r, &lo, &hi) == 0);
        b_cov += lo <= mu_b && mu_b <= hi;
        gsl_rng_free(g);
    }
    double tc = t_cov / (double)R, bc = b_cov / (double)R, zc = z_cov / (double)R;
    printf("coverage over %d replications: t %.4f, BCa %.4f (z, for contrast, %.4f)\n", R, tc, bc, zc);
    CS_CHECK(tc >= 0.93 && tc <= 0.97);
    CS_CHECK(bc >= 0.93 && bc <= 0.97);
    CS_CHECK(zc < 0.93); /* the band rejects the wrong interval */
}

/* BCa below CS_STAT_BOOT_MIN_N values gives no interval; equal values give
 * [mean, mean]. */
static void test_bca_edges(void)
{
    double x[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    double lo = 0, hi = 0;
    CS_CHECK(cs_stat_bca_mean(x, 9, 500, 0.95, 7, &lo, &hi) == 0);
    CS_CHECK(isnan(lo) && isnan(hi));
    for (int i = 0; i < 12; i++) x[i] = 2.385;
    CS_CHECK(cs_stat_bca_mean(x, 12, 500, 0.95, 7, &lo, &hi) == 0);
    CS_CHECK(lo == hi && NEAR(lo, 2.385, 1e-12));
}

/* MSER-5 on a series whose mean is 10 for the first 400 observations and 0
 * afterwards (noise N(0, 1), n = 4000, seed 99 stream 1).  The stated
 * tolerance: the truncation point is within 10 observations (two batches)
 * of the change point 400.  A series with no warm-up (all N(0, 1)) keeps
 * almost everything: truncation below 5 % of the run. */
static void test_mser5(void)
{
    enum { N = 4000, CP = 400 };
    static double x[N];
    gsl_rng *g = cs_rng_stream(99, 1);
    CS_CHECK(g != NULL);
    if (!g) return;
    for (int i = 0; i < N; i++) x[i] = (i < CP ? 10.0 : 0.0) + gsl_ran_gaussian(g, 1.0);
    double ms;
    size_t d = cs_stat_mser5(x, N, &ms);
    printf("MSER-5 truncation %zu (change point %d)\n", d, CP);
    CS_CHECK(d + 10 >= CP && d <= CP + 10);
    CS_CHECK(isfinite(ms));
    for (int i = 0; i < N; i++) x[i] = gsl_ran_gaussian(g, 1.0);
    d = cs_stat_mser5(x, N, NULL);
    CS_CHECK(d < N / 20);
    gsl_rng_free(g);
    /* Hand case: batches of 5 with means 10, 0, 0, 0 (nb = 4, d <= 2).
     * MSER(0) = (3 * 2.5^2 + 7.5^2) / 16 = 75 / 16; MSER(1) = 0; MSER(2) = 0.
     * The first minimum is d = 1: drop 5 observations. */
    double y[20] = {10, 10, 10, 10, 10};
    CS_CHECK_EQ_U64(cs_stat_mser5(y, 20, &ms), 5);
    CS_CHECK(ms == 0);
    CS_CHECK_EQ_U64(cs_stat_mser5(y, 9, NULL), 0); /* one batch */
}

/* Batch means: x = 0..11 in k = 3 batches of 4: means 1.5, 5.5, 9.5, mean
 * 5.5, s = 4, half = t_{2,0.975} 4.302653 * 4 / sqrt 3 = 9.936551.  With 13
 * values the first is dropped (the end of the run counts). */
static void test_batch_means(void)
{
    double x[13];
    for (int i = 0; i < 12; i++) x[i] = i;
    double m, lo, hi;
    cs_stat_batch_means(x, 12, 3, 0.95, &m, &lo, &hi);
    CS_CHECK(NEAR(m, 5.5, 1e-12));
    CS_CHECK(NEAR(hi - m, 9.936551, 1e-6));
    double z[13] = {100};
    for (int i = 0; i < 12; i++) z[i + 1] = i;
    cs_stat_batch_means(z, 13, 3, 0.95, &m, &lo, &hi);
    CS_CHECK(NEAR(m, 5.5, 1e-12));
    cs_stat_batch_means(x, 12, 1, 0.95, &m, &lo, &hi);
    CS_CHECK(isnan(m) && isnan(lo));
}

/* Paired differences: a - b = {1, 2, 3} over the finite pairs (the NaN
 * pair is dropped): mean 2, s = 1, half = 4.302653 / sqrt 3 = 2.484138. */
static void test_paired(void)
{
    const double a[] = {11, 22, NAN, 33}, b[] = {10, 20, 5, 30};
    cs_stat_ci_t c;
    CS_CHECK(cs_stat_paired(a, b, 4, 0.95, 1, &c) == 0);
    CS_CHECK_EQ_U64(c.n, 3);
    CS_CHECK(NEAR(c.mean, 2, 1e-12));
    CS_CHECK(NEAR(c.t_hi - 2, 2.484138, 2e-6));
    CS_CHECK(isnan(c.b_lo)); /* 3 < CS_STAT_BOOT_MIN_N */
}

/* Arguments outside the domain give NaN, never a number: one value or a
 * level outside (0, 1) for the t interval (the mean stays: x = {2.385}
 * gives 2.385); a NULL sample, B = 0 or a level of 1 for the bootstrap; a
 * run shorter than one value per batch for batch means.  NULL outputs are
 * allowed.  With 2.385, 4.77 (n = 2, level 0.9): mean 3.5775, s =
 * 2.385 / sqrt 2, t_{1,0.95} = 6.3137515: half = t s / sqrt 2 = 6.3137515
 * * 1.1925 = 7.529149. */
static void test_domain(void)
{
    double x[12] = {2.385, 4.77}, m = 0, lo = 0, hi = 0;
    cs_stat_t_interval(x, 1, 0.95, &m, &lo, &hi);
    CS_CHECK(m == 2.385 && isnan(lo) && isnan(hi));
    cs_stat_t_interval(x, 2, 1.0, &m, &lo, &hi);
    CS_CHECK(NEAR(m, 3.5775, 1e-12) && isnan(lo) && isnan(hi));
    cs_stat_t_interval(x, 2, 0.0, NULL, &lo, NULL);
    CS_CHECK(isnan(lo));
    cs_stat_t_interval(x, 2, 0.9, NULL, NULL, &hi);
    CS_CHECK(NEAR(hi - 3.5775, 7.529149, 2e-6));
    cs_stat_t_interval(x, 0, 0.9, &m, NULL, NULL);
    CS_CHECK(isnan(m));
    for (int i = 2; i < 12; i++) x[i] = i;
    CS_CHECK(cs_stat_bca_mean(NULL, 12, 500, 0.95, 7, &lo, &hi) == 0 && isnan(lo) && isnan(hi));
    CS_CHECK(cs_stat_bca_mean(x, 12, 0, 0.95, 7, &lo, &hi) == 0 && isnan(lo) && isnan(hi));
    CS_CHECK(cs_stat_bca_mean(x, 12, 500, 1.0, 7, &lo, NULL) == 0 && isnan(lo));
    CS_CHECK(cs_stat_bca_mean(x, 12, 500, 0.95, 7, NULL, NULL) == 0);
    cs_stat_batch_means(x, 2, 3, 0.95, &m, &lo, &hi); /* 2 values, 3 batches */
    CS_CHECK(isnan(m) && isnan(lo) && isnan(hi));
    cs_stat_batch_means(x, 2, 3, 0.95, NULL, NULL, NULL);
}

/* BCa by the textbook (Efron & Tibshirani, An Introduction to the
 * Bootstrap, §14.3): jackknife means theta_(i), acceleration a =
 * sum (tbar - theta_(i))^3 / (6 (sum (tbar - theta_(i))^2)^(3/2)), bias
 * correction z0 = Phi^-1(share of resampled means below the mean, ties
 * half), alpha_k = Phi(z0 + (z0 + z_k) / (1 - a (z0 + z_k))).  The
 * resamples are drawn as cs_stats.c draws them (stream (seed, 0), one
 * uniform index per value), so the two must agree to rounding. */
static void bca_ref(const double *x, size_t n, unsigned B, double level, uint64_t seed, double *lo, double *hi)
{
    double sum = 0, m, tbar = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i < n; i++) sum += x[i];
    m = sum / (double)n;
    for (size_t i = 0; i < n; i++) tbar += (sum - x[i]) / (double)(n - 1) / (double)n;
    for (size_t i = 0; i < n; i++) {
        double d = tbar - (sum - x[i]) / (double)(n - 1);
        s2 += d * d;
        s3 += d * d * d;
    }
    double a = s3 / (6.0 * s2 * sqrt(s2));
    double *mb = malloc(B * sizeof *mb), below = 0;
    gsl_rng *r = cs_rng_stream(seed, 0);
    if (!mb || !r) {
        free(mb);
        if (r) gsl_rng_free(r);
        *lo = *hi = NAN;
        return;
    }
    for (unsigned b = 0; b < B; b++) {
        double t = 0;
        for (size_t i = 0; i < n; i++) t += x[gsl_rng_uniform_int(r, (unsigned long)n)];
        mb[b] = t / (double)n;
        below += mb[b] < m ? 1.0 : mb[b] == m ? 0.5 : 0.0;
    }
    gsl_sort(mb, 1, B);
    double pb = below / B, pmin = 0.5 / B;
    pb = pb < pmin ? pmin : pb > 1 - pmin ? 1 - pmin : pb;
    double z0 = gsl_cdf_ugaussian_Pinv(pb), zl = gsl_cdf_ugaussian_Pinv((1 - level) / 2);
    *lo = gsl_stats_quantile_from_sorted_data(mb, 1, B, gsl_cdf_ugaussian_P(z0 + (z0 + zl) / (1 - a * (z0 + zl))));
    *hi = gsl_stats_quantile_from_sorted_data(mb, 1, B, gsl_cdf_ugaussian_P(z0 + (z0 - zl) / (1 - a * (z0 - zl))));
    free(mb);
    gsl_rng_free(r);
}

/* A strongly skewed sample (the acceleration matters): the BCa interval
 * equals the textbook reference above. */
static void test_bca_skewed(void)
{
    const double x[12] = {1, 1, 1, 1, 2, 2, 3, 5, 8, 40, 100, 400};
    double lo = 0, hi = 0, rlo, rhi;
    CS_CHECK(cs_stat_bca_mean(x, 12, 2000, 0.95, 29, &lo, &hi) == 0);
    bca_ref(x, 12, 2000, 0.95, 29, &rlo, &rhi);
    printf("BCa of the skewed sample: [%.6f, %.6f], reference [%.6f, %.6f]\n", lo, hi, rlo, rhi);
    CS_CHECK(NEAR(lo, rlo, 1e-9 * fabs(rlo)) && NEAR(hi, rhi, 1e-9 * fabs(rhi)));
}

int main(void)
{
    test_t_small();
    test_coverage();
    test_bca_edges();
    test_domain();
    test_bca_skewed();
    test_mser5();
    test_batch_means();
    test_paired();
    return cs_test_done("stats");
}
