/* test_basefee.c -- lane basefee rules (CIP-1 rev §5; D2, D3).
 *
 * Defaults: L = LANE_TIMER_CYCLES = 2,000,000, t = 0.5, m = d = 0.125,
 * additive_step = 10, lane_basefee_min = 1.  Each expected value is worked
 * by hand beside it: dev = (u - t)/t, then the rule, then the rounding of
 * cs_basefee.h (floor; an exact increase is at least +1; floor at min).
 * The three trajectories were also replayed with exact rationals
 * (Python fractions) as an independent check. */
#include "cs_test.h"

#include "cs_basefee.h"

#define CHECK_U128(a, b)                                                                 \
    do {                                                                                 \
        cs_u128 cs__x = (a), cs__y = (b);                                                \
        if (cs__x == cs__y) cs_test_pass++;                                              \
        else {                                                                           \
            char cs__bx[48], cs__by[48], cs__d[112];                                     \
            snprintf(cs__d, sizeof cs__d, "%s != %s", cs_u128_fmt(cs__x, cs__bx),        \
                     cs_u128_fmt(cs__y, cs__by));                                        \
            cs_test_failed(__FILE__, __LINE__, #a " == " #b, cs__d);                     \
        }                                                                                \
    } while (0)

/* Cycles used for u = 0.6, 0.4, 0, 1, 0.53, 0.5, 0.5625, 0.45 of 2,000,000. */
static const uint64_t seq[8] = {1200000, 800000, 0, 2000000, 1060000, 1000000, 1125000, 900000};

static void run(const cs_params_t *p, cs_u128 start, const uint64_t want[8], int line)
{
    cs_u128 b = start;
    for (int i = 0; i < 8; i++) {
        cs_u128 nb = 0;
        int rc = cs_basefee_next(p, b, seq[i], &nb);
        if (rc != CS_OK || nb != want[i]) {
            char d[96];
            snprintf(d, sizeof d, "step %d: rc %d, got %llu want %llu (called from line %d)", i,
                     rc, (unsigned long long)nb, (unsigned long long)want[i], line);
            cs_test_failed(__FILE__, __LINE__, "trajectory", d);
        } else {
            cs_test_pass++;
        }
        b = nb;
    }
}

static void test_cip1(void)
{
    cs_params_t p;
    cs_params_default(&p);
    CS_CHECK_EQ_U64(p.basefee_rule, CS_BASEFEE_CIP1);
    /* CIP-1 rev §5: b * (1 + clip((u - 0.5)/0.5, -0.125, +0.125)) from 1,000:
     * u=0.6    dev=+0.2 saturates -> 1000 * 1.125  = 1125
     * u=0.4    dev=-0.2 saturates -> 1125 * 0.875  = 984.375   -> 984
     * u=0      dev=-1   saturates -> 984 * 0.875   = 861
     * u=1      dev=+1   saturates -> 861 * 1.125   = 968.625   -> 968
     * u=0.53   dev=+0.06          -> 968 * 1.06    = 1026.08   -> 1026
     * u=0.5    dev=0              -> 1026
     * u=0.5625 dev=+0.125 (edge)  -> 1026 * 1.125  = 1154.25   -> 1154
     * u=0.45   dev=-0.1           -> 1154 * 0.9    = 1038.6    -> 1038 */
    static const uint64_t want[8] = {1125, 984, 861, 968, 1026, 1026, 1154, 1038};
    run(&p, 1000, want, __LINE__);

    cs_u128 nb;
    /* Just below the saturation point u = 0.5625: cycles 1,124,999 give
     * dev = 124,999/1,000,000 -> 1000 * 1.124999 = 1124.999 -> 1124 (not 1125). */
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 1124999, &nb), CS_OK);
    CHECK_U128(nb, 1124);
    /* Lower edge u = 0.4375 (875,000): dev = -0.125 -> 1000 * 0.875 = 875;
     * one cycle more (875,001): dev = -0.124999 -> 875.001 -> 875 as well. */
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 875000, &nb), CS_OK);
    CHECK_U128(nb, 875);
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 875001, &nb), CS_OK);
    CHECK_U128(nb, 875);
    /* Rounding: 7 * 1.125 = 7.875 is an exact increase, so >= 8 (floor would
     * leave it stuck at 7 forever); 7 * 0.875 = 6.125 -> 6. */
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 7, 2000000, &nb), CS_OK);
    CHECK_U128(nb, 8);
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 7, 0, &nb), CS_OK);
    CHECK_U128(nb, 6);
    /* Floor at lane_basefee_min: 1 * 0.875 = 0.875 -> 0 -> min 1. */
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1, 0, &nb), CS_OK);
    CHECK_U128(nb, 1);
    p.lane_basefee_min = 900; /* 1000 * 0.875 = 875 -> 900 */
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 0, &nb), CS_OK);
    CHECK_U128(nb, 900);
    p.lane_basefee_min = 1;
    /* u above 1 is clipped: 5,000,000 cycles count as u = 1 -> 1000 * 1.125 */
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 5000000, &nb), CS_OK);
    CHECK_U128(nb, 1125);
    /* Generalised target t = 0.25: u = 0.26 -> dev = 0.04 -> 1040;
     * u = 0.3 -> dev = 0.2 -> clip 0.125 -> 1125. */
    p.target_utilisation = 250000;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 520000, &nb), CS_OK);
    CHECK_U128(nb, 1040);
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 600000, &nb), CS_OK);
    CHECK_U128(nb, 1125);
    /* m = 0 freezes the basefee even above target (no +1 bump). */
    p.target_utilisation = 500000;
    p.basefee_max_change = 0;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 2000000, &nb), CS_OK);
    CHECK_U128(nb, 1000);
}

static void test_eip1559(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.basefee_rule = CS_BASEFEE_EIP1559;
    /* EIP-1559's arithmetic (delta-floor, the default; N50): the change
     * floor(b * |u - 0.5|/0.5 * 0.125) is floored, an increase at least 1:
     * u=0.6    floor(1000 * 0.025)   = 25   -> 1025
     * u=0.4    floor(1025 * 0.025)   = 25   -> 1000
     * u=0      floor(1000 * 0.125)   = 125  -> 875
     * u=1      floor(875 * 0.125)    = 109  -> 984
     * u=0.53   floor(984 * 0.0075)   = 7    -> 991
     * u=0.5                                  -> 991
     * u=0.5625 floor(991 * 0.015625) = 15   -> 1006
     * u=0.45   floor(1006 * 0.0125)  = 12   -> 994 */
    static const uint64_t want_eip[8] = {1025, 1000, 875, 984, 991, 991, 1006, 994};
    run(&p, 1000, want_eip, __LINE__);
    p.eip1559_rounding = CS_EIP_VALUE_FLOOR;
    /* value-floor, b * (1 + 0.125 * (u - 0.5)/0.5) floored, from 1,000:
     * u=0.6    factor 1.025     -> 1025
     * u=0.4    factor 0.975     -> 1025 * 0.975    = 999.375   -> 999
     * u=0      factor 0.875     -> 999 * 0.875     = 874.125   -> 874
     * u=1      factor 1.125     -> 874 * 1.125     = 983.25    -> 983
     * u=0.53   factor 1.0075    -> 983 * 1.0075    = 990.3725  -> 990
     * u=0.5    factor 1         -> 990
     * u=0.5625 factor 1.015625  -> 990 * 1.015625  = 1005.46875 -> 1005
     * u=0.45   factor 0.9875    -> 1005 * 0.9875   = 992.4375  -> 992 */
    static const uint64_t want[8] = {1025, 999, 874, 983, 990, 990, 1005, 992};
    run(&p, 1000, want, __LINE__);
    cs_u128 nb;
    /* t = 0.25, u = 1: dev = 3 -> factor 1 + 0.375 -> 1375 (not clipped). */
    p.target_utilisation = 250000;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 2000000, &nb), CS_OK);
    CHECK_U128(nb, 1375);
}

/* eip1559 from its floor (issue 29), in EIP-1559's integer arithmetic
 * (N50): with d = 1/8 an empty block lowers b by floor(b / 8) and a full
 * block raises it by max(1, floor(b / 8)).  From 1,000, 60 empty blocks
 * reach 7, where floor(7 / 8) = 0 holds it; then full blocks: 7 -> 8 -> ...
 * -> 16 after 9 (one unit each: only the "at least +1" rule lets a basefee
 * below 8 rise), 16 -> 18 at the 10th.  After 200 full blocks:
 * 78,519,052,461 (the same trajectory replayed in Python integers).  The
 * loop beside it is an independent reference: b - b div 8 down, b +
 * max(b div 8, 1) up. */
static void test_eip1559_floor_recovery(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.basefee_rule = CS_BASEFEE_EIP1559;
    cs_u128 b = 1000, ref = 1000, nb;
    int agree = 1;
    for (int i = 0; i < 60; i++) {
        CS_CHECK_EQ_U64(cs_basefee_next(&p, b, 0, &nb), CS_OK);
        b = nb;
        ref = ref - ref / 8;
        agree &= b == ref;
    }
    CHECK_U128(b, 7);
    for (int i = 1; i <= 200; i++) {
        CS_CHECK_EQ_U64(cs_basefee_next(&p, b, 2000000, &nb), CS_OK);
        b = nb;
        ref = ref + (ref / 8 > 1 ? ref / 8 : 1);
        agree &= b == ref;
        if (i == 1) CHECK_U128(b, 8);
        if (i == 9) CHECK_U128(b, 16);
        if (i == 10) CHECK_U128(b, 18);
    }
    CS_CHECK(agree);
    CHECK_U128(b, 78519052461u);
    /* The same walk under eip1559_rounding = value-floor (the rounding kept
     * as a knob, N50): the new value floored, at least 1, and an exact
     * increase at least +1.  Down from 1,000: 60 empty blocks reach the
     * floor 1; up: 1 -> 8 after 7 full blocks (one unit each), 16 -> 18 at
     * the 16th, 38,731,107,478 after 200 (the trajectory replayed with
     * Python fractions).  Reference: max(7b div 8, 1) down, max(9b div 8,
     * b + 1) up. */
    p.eip1559_rounding = CS_EIP_VALUE_FLOOR;
    b = ref = 1000;
    for (int i = 0; i < 60; i++) {
        CS_CHECK_EQ_U64(cs_basefee_next(&p, b, 0, &nb), CS_OK);
        b = nb;
        ref = ref * 7 / 8 > 1 ? ref * 7 / 8 : 1;
        agree &= b == ref;
    }
    CHECK_U128(b, 1);
    for (int i = 1; i <= 200; i++) {
        CS_CHECK_EQ_U64(cs_basefee_next(&p, b, 2000000, &nb), CS_OK);
        b = nb;
        ref = ref * 9 / 8 > ref ? ref * 9 / 8 : ref + 1;
        agree &= b == ref;
        if (i == 7) CHECK_U128(b, 8);
        if (i == 16) CHECK_U128(b, 18);
    }
    CS_CHECK(agree);
    CHECK_U128(b, 38731107478u);
    p.eip1559_rounding = CS_EIP_DELTA_FLOOR;
    /* utilisation_H is at most 1 (CIP-1 rev §5): cycles beyond the lane
     * (3 L here) count as a full lane: eip1559 1000 x 1.125 = 1125 (u = 3
     * would give 1000 x (1 + 0.125 x 5) = 1625); additive 1000 + 10 x 1 =
     * 1010 (u = 3: 1050). */
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 6000000, &nb), CS_OK);
    CHECK_U128(nb, 1125);
    p.basefee_rule = CS_BASEFEE_ADDITIVE;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 6000000, &nb), CS_OK);
    CHECK_U128(nb, 1010);
}

static void test_additive(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.basefee_rule = CS_BASEFEE_ADDITIVE;
    /* b + 10 * (u - 0.5)/0.5 from 1,000:
     * u=0.6    +2            -> 1002
     * u=0.4    -2            -> 1000
     * u=0      -10           -> 990
     * u=1      +10           -> 1000
     * u=0.53   +0.6          -> 1000.6, an exact increase -> 1001
     * u=0.5    0             -> 1001
     * u=0.5625 +1.25         -> 1002.25 -> 1002
     * u=0.45   -1            -> 1001 */
    static const uint64_t want[8] = {1002, 1000, 990, 1000, 1001, 1001, 1002, 1001};
    run(&p, 1000, want, __LINE__);
    cs_u128 nb;
    /* u = 0.47: -0.6 -> 999.4 -> floor 999 */
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 940000, &nb), CS_OK);
    CHECK_U128(nb, 999);
    /* a decrease larger than b: 4 - 10 -> 0 -> min 1 */
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 4, 0, &nb), CS_OK);
    CHECK_U128(nb, 1);
}

static void test_errors(void)
{
    cs_params_t p;
    cs_u128 nb = 77;
    cs_params_default(&p);
    /* b = 2^128 - 1 at u = 1: 1.125 b does not fit */
    CS_CHECK_EQ_U64(cs_basefee_next(&p, CS_U128_MAX, 2000000, &nb), CS_EOVERFLOW);
    CHECK_U128(nb, 77); /* untouched */
    /* at u = 0.5 the maximum stays representable */
    CS_CHECK_EQ_U64(cs_basefee_next(&p, CS_U128_MAX, 1000000, &nb), CS_OK);
    CHECK_U128(nb, CS_U128_MAX);
    p.basefee_rule = CS_BASEFEE_EIP1559;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, CS_U128_MAX, 2000000, &nb), CS_EOVERFLOW);
    p.basefee_rule = CS_BASEFEE_ADDITIVE; /* (2^128 - 1) + 10 */
    CS_CHECK_EQ_U64(cs_basefee_next(&p, CS_U128_MAX, 2000000, &nb), CS_EOVERFLOW);
    p.basefee_rule = 7;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 0, &nb), CS_EINVAL);
    cs_params_default(&p);
    p.lane_timer_cycles = 0;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 0, &nb), CS_EINVAL);
    cs_params_default(&p);
    p.target_utilisation = 0;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 0, &nb), CS_EINVAL);
    p.target_utilisation = 1000001;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 0, &nb), CS_EINVAL);
    CHECK_U128(nb, CS_U128_MAX);
}

static void test_charged_rates_util(void)
{
    cs_params_t p;
    cs_u128 c = 0, cr, lr;
    cs_params_default(&p);
    CS_CHECK_EQ_U64(cs_basefee_charged(&p, 1154, &c), CS_OK); /* x 1.0 */
    CHECK_U128(c, 1154);
    p.lane_fee_multiplier = 800000; /* 1154 * 0.8 = 923.2 -> 923 */
    CS_CHECK_EQ_U64(cs_basefee_charged(&p, 1154, &c), CS_OK);
    CHECK_U128(c, 923);
    p.lane_fee_multiplier = 2000000; /* x 2 of 2^127 does not fit */
    CS_CHECK_EQ_U64(cs_basefee_charged(&p, (cs_u128)1 << 127, &c), CS_EOVERFLOW);
    CHECK_U128(c, 923);

    /* D3: additional charges both, replace drops the cycle basefee. */
    cs_basefee_fire_rates(&p, 7, 923, &cr, &lr);
    CHECK_U128(cr, 7);
    CHECK_U128(lr, 923);
    p.lane_basefee_mode = CS_LANE_REPLACE;
    cs_basefee_fire_rates(&p, 7, 923, &cr, &lr);
    CHECK_U128(cr, 0);
    CHECK_U128(lr, 923);

    cs_params_default(&p);
    CS_CHECK_EQ_U64(cs_basefee_util_ppm(&p, 1234567), 617283); /* 0.6172835 -> floor */
    CS_CHECK_EQ_U64(cs_basefee_util_ppm(&p, 3000000), 1000000); /* clipped to 1 */
    CHECK_U128(cs_basefee_initial(&p), 1000);
    p.lane_basefee_initial = 5;
    p.lane_basefee_min = 10;
    CHECK_U128(cs_basefee_initial(&p), 10); /* max(initial, min) */
}

static void test_muldiv(void)
{
    cs_u128 q = 0, r = 0;
    /* (2^128-1)^2 / (2^128-1) = 2^128-1, remainder 0 */
    CS_CHECK_EQ_U64(cs__muldiv_u128(CS_U128_MAX, CS_U128_MAX, CS_U128_MAX, &q, &r), 0);
    CHECK_U128(q, CS_U128_MAX);
    CHECK_U128(r, 0);
    /* 2^64 * 2^64 / 3 = (2^128 - 1)/3 = 0x5555...55 (32 fives), remainder 1
     * since 2^128 = 4^64 = 1 (mod 3) */
    cs_u128 fives = ((cs_u128)0x5555555555555555ull << 64) | 0x5555555555555555ull;
    CS_CHECK_EQ_U64(cs__muldiv_u128((cs_u128)1 << 64, (cs_u128)1 << 64, 3, &q, &r), 0);
    CHECK_U128(q, fives);
    CHECK_U128(r, 1);
    /* (2^127 + 12,345) * 3e30 / (7e30 + 1): reference values from Python's
     * exact integers: q = 0x36db6db6db6db6db_6db6db6db63c8fba,
     * r = 0x252d7766dd_046bda6989c37046 */
    cs_u128 a = ((cs_u128)1 << 127) + 12345u;
    cs_u128 b = (cs_u128)3000000000000000ull * 1000000000000000ull;
    cs_u128 c = (cs_u128)7000000000000000ull * 1000000000000000ull + 1u;
    CS_CHECK_EQ_U64(cs__muldiv_u128(a, b, c, &q, &r), 0);
    CHECK_U128(q, ((cs_u128)0x36db6db6db6db6dbull << 64) | 0x6db6db6db63c8fbaull);
    CHECK_U128(r, ((cs_u128)0x252d7766ddull << 64) | 0x046bda6989c37046ull);
    /* overflow and division by zero */
    CS_CHECK_EQ_U64(cs__muldiv_u128(CS_U128_MAX, 2, 1, &q, &r), -1);
    CS_CHECK_EQ_U64(cs__muldiv_u128(5, 6, 0, &q, &r), -1);
    CS_CHECK_EQ_U64(cs__muldiv_u128(5, 6, 7, NULL, NULL), 0); /* 30 / 7 */
    CS_CHECK_EQ_U64(cs__muldiv_u128(5, 6, 7, &q, &r), 0);
    CHECK_U128(q, 4);
    CHECK_U128(r, 2);
}

int main(void)
{
    test_cip1();
    test_eip1559();
    test_eip1559_floor_recovery();
    test_additive();
    test_errors();
    test_charged_rates_util();
    test_muldiv();
    return cs_test_done("basefee");
}
