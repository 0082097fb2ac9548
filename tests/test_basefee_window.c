/* test_basefee_window.c -- the windowed lane basefee rule (basefee_window,
 * DESIGN-NOTES N51): the rule reads the mean utilisation of the last w
 * blocks, each block's lane cycles clipped to L.
 *
 * 1. w = 1 is the eip1559 rule bit for bit (and cip1, additive): random
 *    cycle sequences through the window and through cs_basefee_next.
 * 2. w > 1 on a closed loop with a deterministic demand curve (the lane
 *    cycles of block h are a function of h and of that block's basefee): the
 *    core's path equals a floating-point iteration written here of the same
 *    map, b' = b + max(1, floor(b * (S - nT) / (8 nT))) above target and
 *    b' = b - floor(b * (nT - S) / (8 nT)) below, with S the window's sum
 *    and T = L/2.  Every operand stays below 2^53, so doubles hold them
 *    exactly and the correctly rounded quotient floors to the exact floor.
 *    The path must also differ from w = 1's, so a window that is ignored
 *    fails. */
#include <math.h>

#include "cs_test.h"

#include "cs_basefee.h"

static uint64_t rng_state = 0x5eedba5efee0001ull;

static uint64_t next_u64(void) { return cs_test_rand64(&rng_state); }

static void test_w1(void)
{
    static const uint32_t rules[3] = {CS_BASEFEE_EIP1559, CS_BASEFEE_CIP1, CS_BASEFEE_ADDITIVE};
    long steps = 0, bad = 0;
    for (int r = 0; r < 3; r++) {
        for (int run = 0; run < 10; run++) {
            cs_params_t p;
            cs_basefee_win_t w;
            cs_params_default(&p);
            p.basefee_rule = rules[r];
            p.lane_basefee_min = next_u64() % 3;
            p.lane_timer_cycles = 1000 + next_u64() % 5000000;
            p.target_utilisation = 100000 + next_u64() % 800000;
            CS_CHECK_EQ_U64(p.basefee_window, 1); /* the default */
            if (cs_basefee_win_init(&w, &p) != CS_OK) {
                CS_CHECK(0);
                continue;
            }
            cs_u128 bw = next_u64() % 100000, b1 = bw;
            for (int i = 0; i < 2000; i++) {
                /* uniform on [0, 2T] about the target T (the basefee
                 * wanders without overflowing); some blocks at 0, some
                 * above L (clipped) */
                uint64_t tgt = p.lane_timer_cycles * p.target_utilisation / CS_PPM;
                uint64_t c = next_u64() % (2 * tgt + 1);
                if (i % 17 == 0) c = 0;
                if (i % 23 == 0) c = p.lane_timer_cycles + next_u64() % 1000;
                cs_u128 nw = 0, n1 = 0;
                int rw = cs_basefee_win_step(&w, &p, bw, c, &nw);
                int r1 = cs_basefee_next(&p, b1, c, &n1);
                if (rw != CS_OK || r1 != CS_OK || nw != n1) {
                    if (bad++ == 0)
                        fprintf(stderr, "rule %u run %d step %d: rc %d %d, %llu vs %llu\n", rules[r], run, i, rw, r1,
                                (unsigned long long)nw, (unsigned long long)n1);
                }
                bw = nw;
                b1 = n1;
                steps++;
            }
            cs_basefee_win_free(&w);
        }
    }
    fprintf(stderr, "w = 1: %ld steps, %ld differ from cs_basefee_next\n", steps, bad);
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(steps, 60000);
}

/* Lane cycles demanded in block h at basefee b (L = 2,000,000): a linear
 * curve that vanishes at b = 4,000, plus a shock of L/3 in 12 of every 60
 * blocks; above L is clipped by the rule. */
static uint64_t demand(uint64_t h, uint64_t b)
{
    const uint64_t L = 2000000, P = 4000;
    uint64_t base = (3 * L / 2) * (P - (b < P ? b : P)) / P;
    return base + (h % 60 < 12 ? L / 3 : 0);
}

/* The float iteration of the windowed EIP-1559 map; returns the path. */
static void float_path(uint64_t w, int blocks, double *path)
{
    const double L = 2000000.0, T = L / 2;
    double ring[64] = {0}, sum = 0, b = 1000.0;
    uint64_t n = 0, pos = 0;
    for (int h = 0; h < blocks; h++) {
        double c = (double)demand((uint64_t)h, (uint64_t)b);
        if (c > L) c = L;
        if (n == w) sum -= ring[pos];
        else n++;
        ring[pos] = c;
        sum += c;
        pos = (pos + 1) % w;
        double nT = (double)n * T;
        if (sum > nT) {
            double delta = floor(b * (sum - nT) / (8.0 * nT));
            b += delta > 1.0 ? delta : 1.0;
        } else if (sum < nT) {
            b -= floor(b * (nT - sum) / (8.0 * nT));
        }
        if (b < 1.0) b = 1.0; /* lane_basefee_min */
        path[h] = b;
    }
}

static void core_path(uint64_t w, int blocks, uint64_t *path)
{
    cs_params_t p;
    cs_basefee_win_t win;
    cs_params_default(&p);
    p.basefee_rule = CS_BASEFEE_EIP1559;
    p.basefee_window = w;
    CS_CHECK_EQ_U64(p.lane_timer_cycles, 2000000);
    if (cs_basefee_win_init(&win, &p) != CS_OK) {
        CS_CHECK(0);
        return;
    }
    cs_u128 b = cs_basefee_initial(&p);
    for (int h = 0; h < blocks; h++) {
        cs_u128 nb = 0;
        CS_CHECK_EQ_U64(cs_basefee_win_step(&win, &p, b, demand((uint64_t)h, (uint64_t)b), &nb), CS_OK);
        b = nb;
        path[h] = (uint64_t)b;
    }
    cs_basefee_win_free(&win);
}

static void test_window_float(void)
{
    enum { B = 600 };
    static uint64_t one[B], core[B];
    static double ref[B];
    static const uint64_t ws[4] = {2, 5, 16, 64};
    core_path(1, B, one);
    for (int k = 0; k < 4; k++) {
        core_path(ws[k], B, core);
        float_path(ws[k], B, ref);
        int same = 1, first = -1, differs = 0;
        for (int h = 0; h < B; h++) {
            if ((double)core[h] != ref[h] && first < 0) first = h;
            if (core[h] != one[h]) differs = 1;
        }
        same = first < 0;
        if (!same)
            fprintf(stderr, "w = %llu: block %d core %llu float %.0f\n", (unsigned long long)ws[k], first,
                    (unsigned long long)core[first], ref[first]);
        CS_CHECK(same);
        CS_CHECK(differs);
        fprintf(stderr, "w = %llu: path of %d blocks equals the float map; basefee at 100, 300, 599: %llu %llu %llu (w = 1: %llu %llu %llu)\n",
                (unsigned long long)ws[k], B, (unsigned long long)core[100], (unsigned long long)core[300],
                (unsigned long long)core[599], (unsigned long long)one[100], (unsigned long long)one[300],
                (unsigned long long)one[599]);
    }
}

static void test_errors(void)
{
    cs_params_t p;
    cs_basefee_win_t w;
    cs_u128 nb = 5;
    cs_params_default(&p);
    p.basefee_window = 0;
    CS_CHECK_EQ_U64(cs_basefee_win_init(&w, &p), CS_EINVAL);
    p.basefee_window = CS_BASEFEE_WINDOW_MAX + 1;
    CS_CHECK_EQ_U64(cs_basefee_win_init(&w, &p), CS_EINVAL);
    /* a sum above n * L, or n = 0, is refused and leaves *next alone */
    CS_CHECK_EQ_U64(cs_basefee_next_mean(&p, 1000, 2 * p.lane_timer_cycles + 1, 2, &nb), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_basefee_next_mean(&p, 1000, 0, 0, &nb), CS_EINVAL);
    CS_CHECK_EQ_U64(nb, 5);
    /* mean of (2,000,000 + 0 + 1,000,000) / 3 = 1,000,000 = target: unchanged
     * under cip1 (the default); with 1,200,000 instead of 1,000,000 the mean
     * is 1,066,666.67, dev = 0.0667 -> 1000 * 1.0667 = 1066.67 -> 1066. */
    CS_CHECK_EQ_U64(cs_basefee_next_mean(&p, 1000, 3000000, 3, &nb), CS_OK);
    CS_CHECK_EQ_U64(nb, 1000);
    CS_CHECK_EQ_U64(cs_basefee_next_mean(&p, 1000, 3200000, 3, &nb), CS_OK);
    CS_CHECK_EQ_U64(nb, 1066);
}

int main(void)
{
    test_w1();
    test_window_float();
    test_errors();
    return cs_test_done("basefee_window");
}
