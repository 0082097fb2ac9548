/*
 * cs_stats.h -- interval estimates and output analysis for simulation
 * results (analysis/README.md "Statistics"): Student-t and BCa bootstrap
 * intervals of a mean, paired differences across seeds (common random
 * numbers), MSER-5 warm-up truncation and batch means for one long run.
 *
 * All functions are pure: inputs are read-only, outputs go to the pointers
 * given, and a NaN output means "not defined for this input" (too few
 * values).  The bootstrap draws from the PCG64-DXSM stream
 * cs_rng_stream(seed, 0), so the same input and seed give the same
 * interval on every machine.
 */
#ifndef CS_STATS_H
#define CS_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Fewer values than this: no bootstrap interval (NaN) and callers print a
 * warning; the t interval is still given (it needs n >= 2). */
#define CS_STAT_BOOT_MIN_N 10
/* Resamples of the bootstrap used by compare and report. */
#define CS_STAT_BOOT_B 2000u

/* Mean and two-sided Student-t interval mean -/+ t_{n-1,(1+level)/2} s/sqrt(n)
 * with s the sample standard deviation (divide by n - 1).  lo = hi = NaN
 * when n < 2; mean is NaN when n == 0. */
void cs_stat_t_interval(const double *x, size_t n, double level, double *mean, double *lo, double *hi);

/*
 * Bias-corrected and accelerated (BCa) bootstrap interval of the mean
 * (Efron 1987): B resamples of size n; bias correction
 * z0 = Phi^-1((#{m_b < mean} + #{m_b = mean}/2) / B); acceleration from the
 * jackknife means m_(i): a = sum (mbar - m_(i))^3 / (6 (sum (mbar - m_(i))^2)^1.5);
 * the interval is the alpha1 and alpha2 quantiles of the sorted resample
 * means with alpha_k = Phi(z0 + (z0 + z_k) / (1 - a (z0 + z_k))),
 * z_k = Phi^-1((1 -/+ level) / 2).  When every value is equal the interval
 * is [mean, mean].  lo = hi = NaN when n < CS_STAT_BOOT_MIN_N or B == 0.
 * Returns 0, or CS_ENOMEM (lo = hi = NaN).
 */
int cs_stat_bca_mean(const double *x, size_t n, unsigned B, double level, uint64_t seed, double *lo,
                     double *hi);

/*
 * MSER-5 warm-up truncation (White 1997; Franklin & White 2008): x is cut
 * into nb = floor(n / 5) batch means Y_1..Y_nb (a remainder < 5 at the end
 * is dropped); for d = 0..floor(nb / 2)
 *   MSER(d) = sum_{j > d} (Y_j - Ybar_d)^2 / (nb - d)^2
 * and the d with the smallest MSER (the first on ties) is chosen.  Returns
 * the number of observations to drop, 5 d; 0 when n < 10 (fewer than two
 * batches).  *mser (may be NULL) receives MSER(d).
 */
size_t cs_stat_mser5(const double *x, size_t n, double *mser);

/*
 * Batch means of one long (stationary) series: x is cut into k equal
 * batches of floor(n / k) values (the remainder at the start is dropped, so
 * the end of the run always counts), and the t interval of the k batch
 * means is returned.  lo = hi = NaN when k < 2 or a batch would be empty.
 * Returns CS_OK, or CS_ENOMEM (outputs NaN) when the k means cannot be
 * allocated: never a NaN the caller could take for "undefined".
 */
int cs_stat_batch_means(const double *x, size_t n, size_t k, double level, double *mean, double *lo,
                         double *hi);

/* An estimate with its intervals (NaN when undefined). */
typedef struct cs_stat_ci {
    size_t n;          /* values used (finite ones) */
    double mean;       /* sample mean */
    double t_lo, t_hi; /* Student-t interval (n >= 2) */
    double b_lo, b_hi; /* BCa bootstrap interval (n >= CS_STAT_BOOT_MIN_N) */
} cs_stat_ci_t;

/* Mean, t and BCa intervals at `level` of the finite values among x[0..n)
 * (NaN values are dropped).  Returns 0 or CS_ENOMEM. */
int cs_stat_ci(const double *x, size_t n, double level, uint64_t seed, cs_stat_ci_t *out);

/* Paired differences d_i = a_i - b_i over the i where both are finite (the
 * same seed run under two mechanisms: common random numbers), then
 * cs_stat_ci of d.  Returns 0 or CS_ENOMEM. */
int cs_stat_paired(const double *a, const double *b, size_t n, double level, uint64_t seed,
                   cs_stat_ci_t *out);

#endif /* CS_STATS_H */
