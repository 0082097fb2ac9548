/*
 * cs_fixed.h -- fixed-point exponential for the exponential bias
 * (CIP-5 §9.2, DESIGN §2.4 and §4 D7).  Integers only: the result is the
 * same on every platform (DESIGN §2.7).
 *
 * Range.  x = x_ppb / 1e9 for any x_ppb >= 0 (so n * lambda for every n
 * that fits a uint32_t and every lambda the parameter table allows,
 * lambda_ppb <= 1e10).  The result floor(scale * e^x) is exact to within a
 * relative error of 2^-58 (about 3.5e-18) plus the final floor, for every
 * value below 2^128; it saturates at CS_U128_MAX when scale * e^x >= 2^128
 * (in particular for every x >= 128 ln 2 = 88.7228... with scale >= 1).
 * scale = 0 gives 0.
 */
#ifndef CS_FIXED_H
#define CS_FIXED_H

#include "cs_types.h"

/* floor(scale * e^(x_ppb / 1e9)), saturating at CS_U128_MAX. */
cs_u128 cs_fixed_exp_scaled(uint64_t x_ppb, cs_u128 scale);

/* Bias(n) = floor(scale * e^(n * lambda_ppb / 1e9)) (CIP-5 §9.2, D7),
 * saturating at CS_U128_MAX. */
cs_u128 cs_fixed_bias(uint32_t n, uint64_t lambda_ppb, cs_u128 scale);

/*
 * Floor division by a divisor that stays the same over many divisions: a
 * multiply by a reciprocal and at most two corrections instead of a
 * hardware divide (about 40 cycles each on the CPUs we run on).  The
 * quotient is exactly floor(n / d) for every n and every d >= 1:
 * m = floor((2^64 - 1) / d) makes q = floor(n m / 2^64) at most floor(n / d)
 * and at least floor(n / d) - 2, and the remainder fixes the rest.
 */
typedef struct cs_fixed_div {
    uint64_t d; /* divisor (>= 1; 0 = not set) */
    uint64_t m; /* floor((2^64 - 1) / d) */
} cs_fixed_div_t;

/* Set v up to divide by d >= 1 (one hardware divide). */
static inline void cs_fixed_div_set(cs_fixed_div_t *v, uint64_t d)
{
    v->d = d;
    v->m = d ? UINT64_MAX / d : 0;
}

/* floor(n / v->d), exactly. */
static inline uint64_t cs_fixed_div(const cs_fixed_div_t *v, uint64_t n)
{
    uint64_t q = (uint64_t)(((cs_u128)n * v->m) >> 64);
    uint64_t r = n - q * v->d; /* n - q d < 3 d: no wrap */
    while (r >= v->d) {
        q++;
        r -= v->d;
    }
    return q;
}

#endif /* CS_FIXED_H */
