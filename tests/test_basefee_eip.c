/* test_basefee_eip.c -- the eip1559 lane basefee rule against EIP-1559's
 * own integer arithmetic (DESIGN-NOTES N50).
 *
 * The reference below is written from the EIP's specification text
 * (expected_base_fee_per_gas in the EIP's block validity rules), with gas
 * used -> lane cycles used, gas target -> t * L, and
 * BASE_FEE_MAX_CHANGE_DENOMINATOR = 8 (basefee_max_change = 0.125):
 *
 *   used == target: b
 *   used >  target: b + max(b * (used - target) // target // 8, 1)
 *   used <  target: b - b * (target - used) // target // 8
 *
 * It uses plain 128-bit integers and none of the core's helpers.  Random
 * cases draw b below 2^64 (with 0 and 1 forced in), the target below 2^40
 * and gas used in [0, 2 * target] (EIP-1559's gas limit is twice its
 * target), so that b * Δ < 2^126 never wraps.  lane_basefee_min is 0: the
 * EIP has no floor. */
#include "cs_test.h"

#include "cs_basefee.h"

static uint64_t rng_state = 0x2385c0ffee1559ull;

static uint64_t next_u64(void) { return cs_test_rand64(&rng_state); }

static cs_u128 eip_ref(cs_u128 b, uint64_t used, uint64_t target)
{
    if (used == target) return b;
    if (used > target) {
        cs_u128 delta = b * (used - target) / target / 8;
        return b + (delta > 1 ? delta : 1);
    }
    return b - b * (target - used) / target / 8;
}

static void fmt_case(char *d, size_t cap, cs_u128 b, uint64_t used, uint64_t target, cs_u128 got,
                     cs_u128 want)
{
    char bb[48], bg[48], bw[48];
    snprintf(d, cap, "b %s used %llu target %llu: got %s want %s", cs_u128_fmt(b, bb),
             (unsigned long long)used, (unsigned long long)target, cs_u128_fmt(got, bg),
             cs_u128_fmt(want, bw));
}

/* One case through cs_basefee_next with L = 2 * target, t = 0.5. */
static int check_case(cs_params_t *p, cs_u128 b, uint64_t used, uint64_t target)
{
    cs_u128 got = 0, want = eip_ref(b, used, target);
    p->lane_timer_cycles = 2 * target;
    int rc = cs_basefee_next(p, b, used, &got);
    if (rc == CS_OK && got == want) {
        cs_test_pass++;
        return 0;
    }
    char d[200];
    fmt_case(d, sizeof d, b, used, target, got, want);
    cs_test_failed(__FILE__, __LINE__, "eip1559 == EIP-1559 reference", d);
    return 1;
}

static void test_random(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.basefee_rule = CS_BASEFEE_EIP1559;
    p.target_utilisation = 500000;
    p.basefee_max_change = 125000;
    p.lane_basefee_min = 0;
    long n = 0, bad = 0, decreases = 0, b01 = 0;
    for (int i = 0; i < 120000; i++) {
        uint64_t r = next_u64();
        uint64_t target = 1 + (next_u64() >> (24 + (r & 15)));   /* 1 .. 2^40 */
        uint64_t used;
        switch ((r >> 4) & 7) {
        case 0: used = 0; break;
        case 1: used = 2 * target; break;
        case 2: used = target; break;
        default: used = next_u64() % (2 * target + 1); break;
        }
        cs_u128 b;
        switch ((r >> 8) & 7) {
        case 0: b = 0; break;
        case 1: b = 1; break;
        case 2: b = next_u64() & 0xff; break;
        default: b = next_u64() >> ((r >> 12) & 63); break;
        }
        if (b <= 1) b01++;
        if (used < target) decreases++;
        bad += check_case(&p, b, used, target);
        n++;
        if (bad > 20) break; /* enough to read */
    }
    fprintf(stderr, "eip1559: %ld random cases (%ld decreases, %ld with b <= 1), %ld differ\n", n,
            decreases, b01, bad);
    CS_CHECK(n >= 100000 && bad == 0);
    CS_CHECK(decreases > 30000 && b01 > 25000);
}

/* The figures: Ethereum's 15 M target, and the edges at b = 0, 1. */
static void test_edges(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.basefee_rule = CS_BASEFEE_EIP1559;
    p.lane_basefee_min = 0;
    /* b = 0, full block: the EIP gives max(0, 1) = 1 (the value floor left 0). */
    check_case(&p, 0, 30000000, 15000000);
    check_case(&p, 0, 0, 15000000);       /* 0 stays 0 */
    check_case(&p, 1, 15000001, 15000000); /* +1 */
    check_case(&p, 1, 0, 15000000);        /* 1 - floor(1/8) = 1 */
    /* 10^9 at 10 M of 15 M: delta = floor(10^9 * 5e6 / 15e6 / 8)
     * = floor(41,666,666.67) = 41,666,666 -> 958,333,334 (the value floor
     * gave 958,333,333). */
    cs_u128 nb = 0;
    p.lane_timer_cycles = 30000000;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000000000, 10000000, &nb), CS_OK);
    CS_CHECK_EQ_U64(nb, 958333334);
    /* the knob keeps the old rounding */
    p.eip1559_rounding = CS_EIP_VALUE_FLOOR;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000000000, 10000000, &nb), CS_OK);
    CS_CHECK_EQ_U64(nb, 958333333);
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 0, 30000000, &nb), CS_OK);
    CS_CHECK_EQ_U64(nb, 0);
    /* lane_basefee_min still floors the result (1 by default) */
    p.eip1559_rounding = CS_EIP_DELTA_FLOOR;
    p.lane_basefee_min = 1;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1, 0, &nb), CS_OK);
    CS_CHECK_EQ_U64(nb, 1);
    /* Another target share, t = 0.25 of L = 4,000,000 (target 1,000,000):
     * u = 1 -> Δ = 3,000,000 -> delta = floor(1000 * 3 * 0.125) = 375. */
    p.target_utilisation = 250000;
    p.lane_timer_cycles = 4000000;
    CS_CHECK_EQ_U64(cs_basefee_next(&p, 1000, 4000000, &nb), CS_OK);
    CS_CHECK_EQ_U64(nb, 1375);
}

int main(void)
{
    test_random();
    test_edges();
    return cs_test_done("basefee_eip");
}
