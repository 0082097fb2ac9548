/*
 * cs_fixed.c -- fixed-point e^x for Bias(n) = bias_scale * e^(n * lambda)
 * (CIP-5 §9.2, D7).  Integer arithmetic only (CIP-5 CN §9.1, DESIGN §2.7).
 *
 * Method.  With X = floor(x * 2^64) (x = x_ppb / 1e9), write
 * x = k ln2 + r with 0 <= r < ln2, so e^x = 2^k e^r.  e^r is the Taylor
 * series to degree 20 evaluated by Horner's rule in Q2.62 (the truncation
 * term r^21/21! < 2^-76 for r < ln2), and the result is
 * floor(scale * e^r * 2^k), formed from the exact 192-bit product
 * scale * e^r_q62.  Errors: X to 2^-64 absolute, ln2 to 2^-64 (times
 * k <= 128), r rounded to 2^-62, about 21 Horner roundings of 2^-62 each:
 * well under 2^-58 relative in total.
 */
#include "cs_fixed.h"

#define CS__ONE62 ((uint64_t)1 << 62)
/* floor(ln 2 * 2^64) = 12786308645202655659 (ln 2 * 2^64 = 12786308645202655659.79). */
#define CS__LN2_Q64 ((cs_u128)0xb17217f7d1cf79abull)
/* Above this x_ppb (x >= 100 > 128 ln 2) every nonzero scale saturates. */
#define CS__X_PPB_SAT 100000000000ull

/* (a * b) >> 62 for Q2.62 operands whose product stays below 4. */
static inline uint64_t cs__mul62(uint64_t a, uint64_t b)
{
    return (uint64_t)(((cs_u128)a * b) >> 62);
}

/* e^r in Q2.62 for 0 <= r62 < ln2 * 2^62 (so the result is in [1, 2)). */
static uint64_t cs__exp_small(uint64_t r62)
{
    /* Horner: e^r = 1 + r(1 + r/2(1 + r/3(... (1 + r/20)))). */
    uint64_t t = CS__ONE62;
    for (uint64_t i = 20; i >= 1; i--) t = CS__ONE62 + cs__mul62(r62, t) / i;
    return t;
}

cs_u128 cs_fixed_exp_scaled(uint64_t x_ppb, cs_u128 scale)
{
    if (scale == 0) return 0;
    if (x_ppb >= CS__X_PPB_SAT) return CS_U128_MAX;
    /* X = floor(x * 2^64); x_ppb < 2^37 so x_ppb * 2^64 < 2^101. */
    cs_u128 X = ((cs_u128)x_ppb << 64) / 1000000000u;
    uint64_t k = (uint64_t)(X / CS__LN2_Q64);
    if (k >= 128) return CS_U128_MAX; /* e^x >= 2^128, scale >= 1 */
    uint64_t r64 = (uint64_t)(X - (cs_u128)k * CS__LN2_Q64);
    uint64_t m = cs__exp_small(r64 >> 2); /* e^r in Q2.62, [2^62, 2^63) */
    /* P = scale * m as 192 bits p2:p1:p0. */
    cs_u128 lo = (cs_u128)(uint64_t)scale * m;
    cs_u128 hi = (cs_u128)(uint64_t)(scale >> 64) * m;
    cs_u128 mid = (lo >> 64) + (cs_u128)(uint64_t)hi;
    uint64_t p0 = (uint64_t)lo, p1 = (uint64_t)mid;
    uint64_t p2 = (uint64_t)(hi >> 64) + (uint64_t)(mid >> 64);
    /* result = P * 2^(k - 62). */
    if (k <= 62) {
        unsigned sh = (unsigned)(62 - k); /* 0..62 */
        if (sh == 0) {
            if (p2 != 0) return CS_U128_MAX;
            return ((cs_u128)p1 << 64) | p0;
        }
        if ((p2 >> sh) != 0) return CS_U128_MAX;
        cs_u128 top = ((cs_u128)p2 << 64) | p1; /* bits 64..191 of P */
        return (top << (64 - sh)) | (cs_u128)(p0 >> sh);
    }
    unsigned sh = (unsigned)(k - 62); /* 1..65 */
    if (p2 != 0) return CS_U128_MAX;
    cs_u128 v = ((cs_u128)p1 << 64) | p0;
    if (sh >= 128 || (v >> (128 - sh)) != 0) return CS_U128_MAX;
    return v << sh;
}

cs_u128 cs_fixed_bias(uint32_t n, uint64_t lambda_ppb, cs_u128 scale)
{
    /* CIP-5 §9.2: Bias(n) = e^(n * lambda), scaled by bias_scale (D7). */
    cs_u128 x = (cs_u128)n * lambda_ppb;
    if (x >= CS__X_PPB_SAT) return scale == 0 ? 0 : CS_U128_MAX;
    return cs_fixed_exp_scaled((uint64_t)x, scale);
}
