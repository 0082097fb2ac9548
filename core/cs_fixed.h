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

#endif /* CS_FIXED_H */
