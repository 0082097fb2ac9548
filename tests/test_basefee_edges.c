/*
 * test_basefee_edges.c -- core/cs_basefee.c at its limits (CIP-1 rev §5,
 * DESIGN D2): a basefee at 2^128 - 1 that must rise overflows
 * (CS_EOVERFLOW, nothing written) under each rule and rounding, and at the
 * same basefee a fall is exact; the domain refusals (no lane, no target,
 * a target above 100 %, no blocks, more blocks than the window holds,
 * more cycles than n blocks hold, an unknown rule; a window of 0) give
 * CS_EINVAL; the utilisation of a zero lane is 0; the lane fee multiplier
 * overflows at 2^128 - 1 x 2.
 */
#include "cs_basefee.h"
#include "cs_error.h"
#include "cs_test.h"

#define MAX (~(cs_u128)0)

static void params(cs_params_t *p, int rule, int rounding)
{
    cs_params_default(p);
    p->lane_timer_cycles = 1000;
    p->target_utilisation = 500000; /* 50 % */
    p->basefee_rule = rule;
    p->eip1559_rounding = rounding;
    p->lane_basefee_min = 0;
}

static void test_overflow(void)
{
    static const int rules[][2] = {{CS_BASEFEE_CIP1, 0},
                                   {CS_BASEFEE_EIP1559, CS_EIP_DELTA_FLOOR},
                                   {CS_BASEFEE_EIP1559, CS_EIP_VALUE_FLOOR},
                                   {CS_BASEFEE_ADDITIVE, 0}};
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        cs_params_t p;
        params(&p, rules[i][0], rules[i][1]);
        p.additive_step = 1000;
        cs_u128 next = 42;
        /* A full block (1,000 of 1,000, target 500): up. */
        CS_CHECK_EQ_U64(cs_basefee_next(&p, MAX, 1000, &next), CS_EOVERFLOW);
        CS_CHECK(next == 42);
        /* The CIP-1 clip (m = basefee_max_change) and an unclipped rise:
         * 600 of 1,000 is 20 % above the target. */
        CS_CHECK_EQ_U64(cs_basefee_next(&p, MAX, 600, &next), CS_EOVERFLOW);
        /* At the target: unchanged, exactly (no overflow). */
        CS_CHECK_EQ_U64(cs_basefee_next(&p, MAX, 500, &next), CS_OK);
        CS_CHECK(next == MAX);
    }
    /* An empty block at 2^128 - 1 under eip1559 delta-floor (d = 1/8):
     * delta = floor(b x 1 x d / 1) = floor(b / 8), so b - floor(b / 8). */
    cs_params_t p;
    params(&p, CS_BASEFEE_EIP1559, CS_EIP_DELTA_FLOOR);
    p.basefee_max_change = 125000;
    cs_u128 next = 0;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, MAX, 0, &next), CS_OK);
    CS_CHECK(next == MAX - MAX / 8);
    /* The lane fee multiplier 2x at 2^128 - 1: overflow; at 2^126: 2^127. */
    p.lane_fee_multiplier = 2000000;
    CS_CHECK_EQ_U64(cs_basefee_charged(&p, MAX, &next), CS_EOVERFLOW);
    CS_CHECK_EQ_U64(cs_basefee_charged(&p, (cs_u128)1 << 126, &next), CS_OK);
    CS_CHECK(next == (cs_u128)1 << 127);
}

static void test_domain(void)
{
    cs_params_t p;
    cs_u128 next = 7;
    params(&p, CS_BASEFEE_CIP1, 0);
    CS_CHECK_EQ_U64(cs_basefee_next_mean(&p, 100, 0, 0, &next), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_basefee_next_mean(&p, 100, 0, CS_BASEFEE_WINDOW_MAX + 1, &next), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_basefee_next_mean(&p, 100, 2001, 2, &next), CS_EINVAL); /* 2 blocks hold 2,000 */
    CS_CHECK_EQ_U64(cs_basefee_next_mean(&p, 100, 2000, 2, &next), CS_OK);
    p.basefee_rule = 3;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 100, 10, &next), CS_EINVAL);
    params(&p, CS_BASEFEE_CIP1, 0);
    p.target_utilisation = 0;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 100, 10, &next), CS_EINVAL);
    p.target_utilisation = CS_PPM + 1;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 100, 10, &next), CS_EINVAL);
    params(&p, CS_BASEFEE_CIP1, 0);
    p.lane_timer_cycles = 0;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 100, 10, &next), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_basefee_util_ppm(&p, 10), 0);
    /* The refusals left the one result: 2 full blocks, CIP-1 clipped at
     * m = 12.5 %: floor(100 x 1.125) = 112. */
    CS_CHECK(next == 112);
    params(&p, CS_BASEFEE_CIP1, 0);
    CS_CHECK_EQ_U64(cs_basefee_util_ppm(&p, 250), 250000);
    CS_CHECK_EQ_U64(cs_basefee_util_ppm(&p, 5000), 1000000); /* clipped to the lane */
    cs_basefee_win_t w;
    p.basefee_window = 0;
    CS_CHECK_EQ_U64(cs_basefee_win_init(&w, &p), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_basefee_win_step(&w, &p, 100, 10, &next), CS_EINVAL);
    cs_basefee_win_free(&w);
}

int main(void)
{
    test_overflow();
    test_domain();
    return cs_test_done("basefee_edges");
}
