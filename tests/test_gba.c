/* test_gba.c -- default GBA, tiers, p50 tip and scheduling-time validation
 * (CIP-1 rev §6, §7.1-7.3; D4).  Expected values worked by hand beside them. */
#include "cs_test.h"

#include "cs_basefee.h"
#include "cs_gba.h"

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

static cs_gba_ctx_t ctx_example(void)
{
    cs_gba_ctx_t c;
    memset(&c, 0, sizeof c);
    c.trigger_block_height = 4410;
    c.current_block_height = 4413;
    c.basefee_cycle = 7;
    c.basefee_cell = 13;
    c.basefee_lane_timer = 1154;
    c.last_block_cycle_usage = 1125000;
    c.previous_block_p50_priority_tip_per_cycle = 1237;
    c.owner_actor_balance = 5000000;
    return c;
}

static void test_default_gba(void)
{
    cs_params_t p;
    cs_txfee_t t;
    cs_params_default(&p);
    cs_gba_ctx_t c = ctx_example();

    /* CIP-1 rev §7.1, standard tier: max_fee = 2 * 1,154 = 2,308; max_priority = p50 = 1,237;
     * cell fee = basefee_cell = 13; cell priority 0. */
    CS_CHECK_EQ_U64(cs_gba_default(&p, &c, CS_PTIER_STANDARD, &t), CS_OK);
    CHECK_U128(t.max_fee_per_cycle, 2308);
    CHECK_U128(t.max_priority_fee_per_cycle, 1237);
    CHECK_U128(t.max_fee_per_cell, 13);
    CHECK_U128(t.max_priority_fee_per_cell, 0);
    /* §7.3 tiers on max_priority: 0.8 * 1,237 = 989.6 -> 989; 1.5 * 1,237 = 1,855.5 -> 1,855;
     * 2.5 * 1,237 = 3,092.5 -> 3,092.  max_fee is not scaled. */
    CS_CHECK_EQ_U64(cs_gba_default(&p, &c, CS_PTIER_ECONOMY, &t), CS_OK);
    CHECK_U128(t.max_priority_fee_per_cycle, 989);
    CHECK_U128(t.max_fee_per_cycle, 2308);
    CS_CHECK_EQ_U64(cs_gba_default(&p, &c, CS_PTIER_FAST, &t), CS_OK);
    CHECK_U128(t.max_priority_fee_per_cycle, 1855);
    CS_CHECK_EQ_U64(cs_gba_default(&p, &c, CS_PTIER_URGENT, &t), CS_OK);
    CHECK_U128(t.max_priority_fee_per_cycle, 3092);

    /* gba_headroom 1.5: 1.5 * 1,154 = 1,731 */
    p.gba_headroom = 1500000;
    CS_CHECK_EQ_U64(cs_gba_default(&p, &c, CS_PTIER_STANDARD, &t), CS_OK);
    CHECK_U128(t.max_fee_per_cycle, 1731);
    cs_params_default(&p);

    /* Cold start: no fires in the previous block -> p50 = 0 -> priority 0 in every tier. */
    c.previous_block_p50_priority_tip_per_cycle = 0;
    CS_CHECK_EQ_U64(cs_gba_default(&p, &c, CS_PTIER_URGENT, &t), CS_OK);
    CHECK_U128(t.max_priority_fee_per_cycle, 0);

    /* With lane_fee_multiplier 0.8 the context carries the charged basefee:
     * floor(1,154 * 0.8) = 923 -> max_fee = 1,846. */
    p.lane_fee_multiplier = 800000;
    CS_CHECK_EQ_U64(cs_basefee_charged(&p, 1154, &c.basefee_lane_timer), CS_OK);
    CS_CHECK_EQ_U64(cs_gba_default(&p, &c, CS_PTIER_STANDARD, &t), CS_OK);
    CHECK_U128(t.max_fee_per_cycle, 1846);

    /* Errors leave *out untouched. */
    cs_txfee_t before = t;
    CS_CHECK_EQ_U64(cs_gba_default(&p, &c, 4, &t), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_gba_default(&p, &c, -1, &t), CS_EINVAL);
    c.basefee_lane_timer = CS_U128_MAX; /* 2 x (2^128 - 1) */
    CS_CHECK_EQ_U64(cs_gba_default(&p, &c, CS_PTIER_STANDARD, &t), CS_EOVERFLOW);
    c.basefee_lane_timer = 1;
    c.previous_block_p50_priority_tip_per_cycle = CS_U128_MAX; /* 2.5 x (2^128 - 1) */
    CS_CHECK_EQ_U64(cs_gba_default(&p, &c, CS_PTIER_URGENT, &t), CS_EOVERFLOW);
    CS_CHECK(memcmp(&t, &before, sizeof t) == 0);
    /* economy of 2^128 - 1 fits: floor(0.8 * (2^128 - 1)) */
    cs_u128 e;
    CS_CHECK_EQ_U64(cs_gba_apply_tier(&p, CS_PTIER_ECONOMY, CS_U128_MAX, &e), CS_OK);
    CHECK_U128(e, CS_U128_MAX / 5 * 4); /* 2^128 - 1 = 5k exactly, so 0.8x = 4k */
}

static void test_tiers(void)
{
    cs_params_t p;
    cs_params_default(&p);
    CS_CHECK_STR(cs_gba_tier_name(CS_PTIER_ECONOMY), "economy");
    CS_CHECK_STR(cs_gba_tier_name(CS_PTIER_URGENT), "urgent");
    CS_CHECK_STR(cs_gba_tier_name(9), "?");
    CS_CHECK_EQ_U64(cs_gba_tier_parse("fast"), CS_PTIER_FAST);
    CS_CHECK_EQ_U64(cs_gba_tier_parse("standard"), CS_PTIER_STANDARD);
    CS_CHECK(cs_gba_tier_parse("Fast") == -1);
    CS_CHECK_EQ_U64(CS_PTIER_STANDARD, 0); /* a zeroed tier_hint means the default tier */
    CS_CHECK_EQ_U64(cs_gba_tier_multiplier(&p, CS_PTIER_ECONOMY), 800000);
    CS_CHECK_EQ_U64(cs_gba_tier_multiplier(&p, CS_PTIER_STANDARD), 1000000);
    CS_CHECK_EQ_U64(cs_gba_tier_multiplier(&p, CS_PTIER_FAST), 1500000);
    CS_CHECK_EQ_U64(cs_gba_tier_multiplier(&p, CS_PTIER_URGENT), 2500000);
    CS_CHECK_EQ_U64(cs_gba_tier_multiplier(&p, 5), 0);
    /* a retuned fast tier of 1.75: 1.75 * 1,237 = 2,164.75 -> 2,164 */
    cs_u128 r;
    p.tier_fast = 1750000;
    CS_CHECK_EQ_U64(cs_gba_apply_tier(&p, CS_PTIER_FAST, 1237, &r), CS_OK);
    CHECK_U128(r, 2164);
}

static void test_p50(void)
{
    cs_u128 odd[5] = {37, 12, 90, 12, 55};
    cs_u128 even[4] = {40, 10, 30, 20};
    cs_u128 one[1] = {777};
    /* sorted {12, 12, 37, 55, 90}: median 37 */
    CHECK_U128(cs_gba_p50_tip(odd, 5), 37);
    /* sorted {10, 20, 30, 40}: lower median 20 (not 25, not 30) */
    CHECK_U128(cs_gba_p50_tip(even, 4), 20);
    CHECK_U128(cs_gba_p50_tip(one, 1), 777);
    CHECK_U128(cs_gba_p50_tip(NULL, 0), 0); /* nobody fired: 0 */
    /* 21 tips (i * 7) mod 23 for i = 1..21: 7,14,21,5,12,19,3,10,17,1,8,15,22,6,13,
     * 20,4,11,18,2,9, i.e. all of 1..22 except 16 (= 22 * 7 mod 23); the lower
     * median, the 11th smallest of {1..15, 17..22}, is 11. */
    cs_u128 t[21];
    for (int i = 1; i <= 21; i++) t[i - 1] = (cs_u128)((i * 7) % 23);
    CHECK_U128(cs_gba_p50_tip(t, 21), 11);
}

static void test_validate(void)
{
    cs_params_t p;
    cs_gba_check_t r;
    cs_params_default(&p);
    /* basefee_lane 1,154; headroom max_fee - basefee = 2,308 - 1,154 = 1,154 */
    CS_CHECK_EQ_U64(cs_gba_validate(&p, 1154, 2308, 1000, 0, &r), CS_OK);
    CHECK_U128(r.max_prio, 1000);
    CS_CHECK_EQ_U64(r.clamped, 0);
    CS_CHECK_EQ_U64(r.bid_ignored, 0);
    CS_CHECK_EQ_U64(cs_gba_validate(&p, 1154, 2308, 1154, 0, &r), CS_OK); /* equal: kept */
    CHECK_U128(r.max_prio, 1154);
    CS_CHECK_EQ_U64(r.clamped, 0);
    /* 1,155 > 1,154 -> TimerPriorityClampedAtSchedule(stated 1,155, clamped 1,154) */
    CS_CHECK_EQ_U64(cs_gba_validate(&p, 1154, 2308, 1155, 0, &r), CS_OK);
    CHECK_U128(r.max_prio, 1154);
    CHECK_U128(r.stated, 1155);
    CS_CHECK_EQ_U64(r.clamped, 1);
    /* max_fee = basefee exactly: allowed, priority clamps to 0 */
    CS_CHECK_EQ_U64(cs_gba_validate(&p, 1154, 1154, 5, 0, &r), CS_OK);
    CHECK_U128(r.max_prio, 0);
    CS_CHECK_EQ_U64(r.clamped, 1);
    /* max_fee 1,153 < 1,154 -> TimerRejectedBelowBasefee, *out untouched */
    cs_gba_check_t before = r;
    CS_CHECK_EQ_U64(cs_gba_validate(&p, 1154, 1153, 0, 0, &r), CS_EBELOW_BASEFEE);
    CS_CHECK(memcmp(&r, &before, sizeof r) == 0);
    /* legacy bid: accepted and ignored by default ... */
    CS_CHECK_EQ_U64(cs_gba_validate(&p, 1154, 2308, 1000, 1, &r), CS_OK);
    CS_CHECK_EQ_U64(r.bid_ignored, 1);
    CHECK_U128(r.max_prio, 1000);
    /* ... and TimerArgDeprecated with legacy_bid = reject, checked first. */
    p.legacy_bid = CS_LEGACY_REJECT;
    CS_CHECK_EQ_U64(cs_gba_validate(&p, 1154, 2308, 1000, 1, &r), CS_EARG_DEPRECATED);
    CS_CHECK_EQ_U64(cs_gba_validate(&p, 1154, 1, 1000, 1, &r), CS_EARG_DEPRECATED);
    CS_CHECK_EQ_U64(cs_gba_validate(&p, 1154, 2308, 1000, 0, &r), CS_OK); /* no bid: fine */
    CS_CHECK_EQ_U64(r.bid_ignored, 0);
}

static void test_prio_rate(void)
{
    cs_u128 r = 99;
    /* CIP-1 rev §3 step 6: min(1,237, 2,308 - 1,154 = 1,154) = 1,154 */
    CS_CHECK_EQ_U64(cs_gba_prio_rate(2308, 1237, 1154, &r), CS_OK);
    CHECK_U128(r, 1154);
    /* min(1,000, 1,154) = 1,000 */
    CS_CHECK_EQ_U64(cs_gba_prio_rate(2308, 1000, 1154, &r), CS_OK);
    CHECK_U128(r, 1000);
    /* after one saturated block the basefee is floor(1,154 * 1.125) = 1,298:
     * 2,308 - 1,298 = 1,010 */
    CS_CHECK_EQ_U64(cs_gba_prio_rate(2308, 1237, 1298, &r), CS_OK);
    CHECK_U128(r, 1010);
    r = 99;
    CS_CHECK_EQ_U64(cs_gba_prio_rate(2308, 1237, 2309, &r), CS_EBELOW_BASEFEE);
    CHECK_U128(r, 99);
}

int main(void)
{
    test_default_gba();
    test_tiers();
    test_p50();
    test_validate();
    test_prio_rate();
    return cs_test_done("gba");
}
