/*
 * test_fixed.c -- the fixed-point exponential behind Bias(n) (CIP-5 §9.2,
 * D7) against libm's expl (long double, 64-bit mantissa, relative error
 * about 1e-19) over a dense grid of the whole unsaturated range, plus the
 * saturation boundary and run-to-run determinism; and the floor division
 * by an invariant divisor (cs_fixed_div) against the hardware divide.
 */
#include <math.h>

#include "cs_fixed.h"
#include "cs_test.h"

/* u128 -> long double. */
static long double ld(cs_u128 v)
{
    return (long double)(uint64_t)(v >> 64) * 18446744073709551616.0L + (long double)(uint64_t)v;
}

/* |got - scale e^x| <= 1e-9 * scale e^x, or within the floor (got <= exact
 * < got + 1, to long double precision). */
static int close_enough(cs_u128 got, uint64_t x_ppb, cs_u128 scale, long double *worst)
{
    long double x = (long double)x_ppb / 1e9L;
    long double exact = ld(scale) * expl(x);
    long double g = ld(got);
    long double err = fabsl(g - exact);
    if (exact >= 1e12L) {
        long double rel = err / exact;
        if (rel > *worst) *worst = rel;
        return rel <= 1e-9L;
    }
    /* Small values: the floor dominates; require got == floor(exact) up to
     * one ulp of long double around integers. */
    long double fl = floorl(exact * (1.0L + 1e-17L));
    long double fl2 = floorl(exact * (1.0L - 1e-17L));
    return g == fl || g == fl2;
}

/* cs_fixed_div against n / d: divisors at the edges (1, 2, powers of two
 * and their neighbours, 10^6 and W's denominators, near 2^64) and random
 * ones of every bit length, each with numerators at the edges (0, d - 1,
 * d, multiples of d and their neighbours, near 2^64) and random ones. */
static void test_div(void)
{
    uint64_t st = 0x5eed2026112801ull;
    uint64_t ds[320];
    size_t nd = 0;
    static const uint64_t fixed[] = {1, 2, 3, 7, 10, 1000000, 1000001, 999999, 1500000, 48000000000000ull,
                                     UINT64_MAX, UINT64_MAX - 1, UINT64_MAX / 2, UINT64_MAX / 3 + 1};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) ds[nd++] = fixed[i];
    for (unsigned b = 1; b < 64; b++) {
        ds[nd++] = (uint64_t)1 << b;
        ds[nd++] = ((uint64_t)1 << b) - 1;
        ds[nd++] = ((uint64_t)1 << b) + 1;
        ds[nd++] = (cs_test_rand64(&st) >> (64 - b)) | ((uint64_t)1 << (b - 1)); /* b bits */
    }
    size_t bad = 0, checked = 0;
    for (size_t i = 0; i < nd; i++) {
        cs_fixed_div_t v;
        cs_fixed_div_set(&v, ds[i]);
        uint64_t d = ds[i];
        uint64_t ns[16 + 400];
        size_t nn = 0;
        ns[nn++] = 0;
        ns[nn++] = d - 1;
        ns[nn++] = d;
        ns[nn++] = UINT64_MAX;
        ns[nn++] = UINT64_MAX - 1;
        ns[nn++] = UINT64_MAX - UINT64_MAX % d;     /* the largest multiple */
        ns[nn++] = UINT64_MAX - UINT64_MAX % d - 1;
        if (d <= UINT64_MAX / 3) {
            ns[nn++] = 3 * d - 1;
            ns[nn++] = 3 * d;
        }
        for (int k = 0; k < 400; k++) {
            uint64_t r = cs_test_rand64(&st);
            unsigned sh = (unsigned)(cs_test_rand64(&st) % 64);
            uint64_t n = r >> sh;
            if (k % 4 == 0 && d <= UINT64_MAX / 2) n = (n % (UINT64_MAX / d)) * d + (k % 8 == 0 ? d - 1 : 0);
            ns[nn++] = n;
        }
        for (size_t j = 0; j < nn; j++) {
            checked++;
            if (cs_fixed_div(&v, ns[j]) != ns[j] / d) bad++;
        }
    }
    CS_CHECK(checked > 100000);
    CS_CHECK_EQ_U64(bad, 0);
}

int main(void)
{
    test_div();
    long double worst = 0;
    long fails = 0, points = 0;
    /* Dense grid 1: scale 2^64 (so the floor is negligible), x in [0, 44] step 0.000497
     * (2^64 e^44 = 2.4e37 < 2^128). */
    cs_u128 s64 = (cs_u128)1 << 64;
    for (uint64_t x = 0; x <= 44000000000ull; x += 497331ull) {
        points++;
        if (!close_enough(cs_fixed_exp_scaled(x, s64), x, s64, &worst)) fails++;
    }
    long double worst_grid1 = worst;
    /* Dense grid 2: scale 1, x in [0, 88.72] (the unsaturated range for scale 1:
     * e^88.72 < 2^128 = e^88.7228...), step 0.000877. */
    for (uint64_t x = 0; x <= 88720000000ull; x += 877011ull) {
        points++;
        if (!close_enough(cs_fixed_exp_scaled(x, 1), x, 1, &worst)) fails++;
    }
    /* Grid 3: n * lambda for the parameter ranges (lambda_ppb <= 1e10) with
     * a large scale 10^18: n in [0, 2000], lambda over 1e-6..10. */
    cs_u128 s18 = (cs_u128)1000000000000000000ull;
    for (uint64_t lam = 1000; lam <= 10000000000ull; lam = lam * 3 + 7) {
        for (uint32_t n = 0; n <= 2000; n += 7) {
            cs_u128 xx = (cs_u128)n * lam;
            if (xx > 46000000000ull) break; /* 1e18 e^46 < 2^128 */
            points++;
            if (!close_enough(cs_fixed_bias(n, lam, s18), (uint64_t)xx, s18, &worst)) fails++;
        }
    }
    printf("fixed: %ld grid points, %ld outside tolerance, worst relative error %.3Le "
           "(%.3Le on the scale-2^64 grid, where the final floor is negligible)\n",
           points, fails, worst, worst_grid1);
    CS_CHECK(worst_grid1 <= 1e-15L);
    CS_CHECK_EQ_U64(fails, 0);
    CS_CHECK(worst <= 1e-9L);
    CS_CHECK(points > 150000);

    /* Exact small cases: e^0 = 1 -> floor(scale); floor(1000 e^0.05) = floor(1051.27) = 1051;
     * floor(10^6 e^1) = floor(2718281.828) = 2718281; floor(7 e^2.5) = floor(85.27) = 85. */
    CS_CHECK(cs_fixed_exp_scaled(0, 12345) == 12345);
    CS_CHECK(cs_fixed_bias(0, 50000000, 1) == 1);
    CS_CHECK(cs_fixed_bias(1, 50000000, 1000) == 1051);
    CS_CHECK(cs_fixed_bias(20, 50000000, 1000000) == 2718281);
    CS_CHECK(cs_fixed_exp_scaled(2500000000ull, 7) == 85);
    /* Scale 0 is 0 everywhere, including the saturating range. */
    CS_CHECK(cs_fixed_exp_scaled(5000000000ull, 0) == 0);
    CS_CHECK(cs_fixed_bias(4000000000u, 10000000000ull, 0) == 0);
    /* Saturation: 128 ln 2 = 88.72283911; x = 88.723 saturates with scale 1,
     * x = 88.722 does not (e^88.722 = 0.99916 * 2^128). */
    CS_CHECK(cs_fixed_exp_scaled(88723000000ull, 1) == CS_U128_MAX);
    CS_CHECK(cs_fixed_exp_scaled(88722000000ull, 1) != CS_U128_MAX);
    CS_CHECK(cs_fixed_exp_scaled(88722000000ull, 2) == CS_U128_MAX);
    /* n * lambda beyond 2^64 ppb saturates without overflow. */
    CS_CHECK(cs_fixed_bias(UINT32_MAX, 10000000000ull, 1) == CS_U128_MAX);
    CS_CHECK(cs_fixed_exp_scaled(UINT64_MAX, 1) == CS_U128_MAX);
    /* Huge scale: 2^127 * e^0.7 = 2.0138 * 2^127 >= 2^128 saturates;
     * 2^127 * e^0.69 = 1.9937 * 2^127 does not; 2^127 * e^0 = 2^127. */
    CS_CHECK(cs_fixed_exp_scaled(700000000ull, (cs_u128)1 << 127) == CS_U128_MAX);
    CS_CHECK(cs_fixed_exp_scaled(690000000ull, (cs_u128)1 << 127) != CS_U128_MAX);
    CS_CHECK(cs_fixed_exp_scaled(690000000ull, (cs_u128)1 << 127) > (cs_u128)1 << 127);
    CS_CHECK(cs_fixed_exp_scaled(0, (cs_u128)1 << 127) == (cs_u128)1 << 127);
    /* Monotone in n over a fine lambda (never decreases). */
    cs_u128 prev = 0;
    int mono = 1;
    for (uint32_t n = 0; n < 100000; n++) {
        cs_u128 b = cs_fixed_bias(n, 777777, s18);
        if (b < prev) mono = 0;
        prev = b;
    }
    CS_CHECK(mono);

    /* Determinism: two passes over a pseudo-random set give the same digest. */
    uint64_t d1 = 1469598103934665603ull, d2 = d1;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t st = 0x9e3779b97f4a7c15ull, d = 1469598103934665603ull;
        for (int i = 0; i < 200000; i++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t x = (st >> 20) % 90000000000ull;
            cs_u128 v = cs_fixed_exp_scaled(x, (cs_u128)(st >> 40) + 1);
            d = (d ^ (uint64_t)v ^ (uint64_t)(v >> 64)) * 1099511628211ull;
        }
        if (pass == 0) d1 = d;
        else d2 = d;
    }
    CS_CHECK_EQ_U64(d1, d2);
    return cs_test_done("fixed");
}
