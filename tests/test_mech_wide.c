/*
 * test_mech_wide.c -- `bias-vcg` and `bias-fp` with priorities above
 * 2^64 (DESIGN §4 D6, CIP-5 §9.5 and §9.3), where mech_bias.c leaves its
 * 64-bit arithmetic: the critical bid's quotient V_b * c_a / c_b is formed
 * in 192 bits (cs__muldiv), and the lambda loop shifts the epoch's sums
 * down before it forms a share in ppm.
 *
 *  1. 400 random instances (seed 20261127, at most 10 timers, bids in
 *     [2^64, 2^72), often equal): the allocation equals a reference model
 *     that orders by an exact quotient-and-remainder comparison of V / c
 *     (no product wider than 64 bits), and every winner's cand.critical
 *     equals the least bid with which it still wins, found by bisection
 *     on its own bid against that reference, floored at the reserve.
 *  2. The share loop on one winner whose V is 2^112 (bid 3 * 2^110, Bias
 *     2^110): share = 2^110 / 2^112 = 250,000 ppm, so with lambda 0.05,
 *     gain 0.1 and target 0.2 the next lambda is
 *     0.05 + 0.05 * 0.1 * (0.2 - 0.25) = 0.04975 (49,750,000 ppb); a
 *     share formed as 2^110 * 10^6 in 128 bits would wrap.
 *  3. gba-tip's weights (CIP-1 first draft §3 "Priority Weight") from tips
 *     of 2^110 and 2^111 per cycle (the ratio T is formed after shifting
 *     both sums below 2^100): identity 1 has T = 2^110 / (1.5 x 2^110) =
 *     2/3, identity 2 T = 4/3; both fire (Q = 0), L = 0, U = 1,000 /
 *     50,000 = 0.02, so S_1 = 0.333333 + 0.5 - 0.02 = 0.813333 and S_2 =
 *     0.666666 + 0.5 - 0.02 = 1.146666 (ppm, floored), and with
 *     ema_lambda 0.2 from weight 1: w_1 = 0.8 + 0.2 x 0.813333 = 0.962666,
 *     w_2 = 0.8 + 0.2 x 1.146666 = 1.029333.
 */
#include <stdlib.h>
#include <string.h>

#include "cs_fixed.h"
#include "cs_mech.h"
#include "cs_mech_bias.h"
#include "cs_test.h"
#include "bias_ref.h"

#define NMAX 10

typedef struct inst {
    size_t n;
    cs_cand_t c[NMAX];
    cs_params_t p;
    uint64_t budget;
} inst_t;

static uint64_t g_rng = 20261127ull;

static uint64_t rnd_in(uint64_t lo, uint64_t hi) /* inclusive */
{
    return lo + cs_test_rand64(&g_rng) % (hi - lo + 1);
}

/* 1 when x is ordered before y: V_x / c_x > V_y / c_y, compared as
 * quotient then remainder (r_x * c_y < 2^40), then id ascending. */
static int before(const cs_u128 *v, const cs_cand_t *c, size_t x, size_t y)
{
    cs_u128 qx = v[x] / c[x].cycles, qy = v[y] / c[y].cycles;
    if (qx != qy) return qx > qy;
    cs_u128 rx = (v[x] % c[x].cycles) * c[y].cycles, ry = (v[y] % c[y].cycles) * c[x].cycles;
    if (rx != ry) return rx > ry;
    return memcmp(c[x].id.b, c[y].id.b, sizeof c[x].id.b) < 0;
}

/* Reference allocation: win[i] = 1 when candidate i is selected. */
static void ref_alloc(const inst_t *in, const cs_u128 *bids, int *win)
{
    bias_ref_alloc(&in->p, in->c, bids, in->n, in->budget, before, win);
}

static void gen(inst_t *in)
{
    cs_params_default(&in->p);
    in->n = (size_t)rnd_in(2, NMAX);
    in->budget = rnd_in(50000, 900000);
    in->p.max_fires_per_block = rnd_in(0, 2) ? 0 : rnd_in(1, 6);
    in->p.max_fires_per_actor = rnd_in(0, 2) ? 0 : rnd_in(1, 3);
    in->p.reserve_price = rnd_in(0, 1) ? 0 : (cs_u128)rnd_in(1, 1u << 20) << 50;
    in->p.reserve_mode = rnd_in(0, 1) ? CS_RESERVE_PAYMENT_FLOOR : CS_RESERVE_BID_GATE;
    in->p.lambda = rnd_in(0, 300000000);
    in->p.bias_scale = rnd_in(0, 1) ? 0 : (cs_u128)rnd_in(1, 1000) << 60;
    for (size_t i = 0; i < in->n; i++) {
        cs_cand_t *t = &in->c[i];
        memset(t, 0, sizeof *t);
        t->slot = (uint32_t)i;
        t->target = (uint32_t)rnd_in(0, NMAX / 3);
        t->ident = t->target;
        t->deferrals = (uint32_t)rnd_in(0, 20);
        t->cycles = rnd_in(0, 3) ? rnd_in(1000, 300000) : 100000;
        t->bid = ((cs_u128)1 << 64) + ((cs_u128)rnd_in(0, 255) << 64) + cs_test_rand64(&g_rng);
        if (i > 0 && rnd_in(0, 5) == 0) t->bid = in->c[i - 1].bid; /* equal bids */
        for (size_t b = 0; b < sizeof t->id.b; b++) t->id.b[b] = (uint8_t)cs_test_rand64(&g_rng);
        if (i > 0 && rnd_in(0, 3) == 0) memcpy(t->id.b, in->c[i - 1].id.b, 8); /* equal id prefix */
    }
}

static void test_critical(const char *mech)
{
    const cs_mech_ops_t *ops = cs_mech_find(mech);
    CS_CHECK(ops != NULL);
    if (!ops) return;
    long winners = 0, alloc_bad = 0, crit_bad = 0;
    for (int it = 0; it < 400; it++) {
        inst_t in;
        gen(&in);
        cs_u128 bids[NMAX];
        int win[NMAX];
        for (size_t i = 0; i < in.n; i++) bids[i] = in.c[i].bid;
        ref_alloc(&in, bids, win);
        in.p.vcg_payment = CS_VCG_CRITICAL;
        cs_mech_t m;
        CS_CHECK_EQ_U64(cs_mech_open(&m, ops, &in.p), CS_OK);
        cs_cand_t cc[NMAX];
        memcpy(cc, in.c, sizeof cc);
        cs_clear_ctx_t ctx = {.p = &in.p, .height = 1000, .budget_cycles = in.budget};
        cs_clear_out_t out;
        CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, cc, in.n, &out), CS_OK);
        cs_mech_close(&m);
        for (size_t i = 0; i < in.n; i++) {
            if (cc[i].selected != win[i]) alloc_bad++;
            if (!cc[i].selected) continue;
            winners++;
            cs_u128 lo = 0, hi = bids[i], save = bids[i];
            while (lo < hi) {
                cs_u128 mid = lo + (hi - lo) / 2;
                int w2[NMAX];
                bids[i] = mid;
                ref_alloc(&in, bids, w2);
                if (w2[i]) hi = mid;
                else lo = mid + 1;
            }
            bids[i] = save;
            cs_u128 want = lo > in.p.reserve_price ? lo : in.p.reserve_price;
            if (cc[i].critical != want && ++crit_bad < 4) {
                char a[48], b[48];
                fprintf(stderr, "%s instance %d timer %zu: critical %s, bisection %s\n", mech, it, i,
                        cs_u128_fmt(cc[i].critical, a), cs_u128_fmt(want, b));
            }
        }
    }
    printf("mech_wide %s: 400 instances, %ld winners\n", mech, winners);
    CS_CHECK_EQ_U64(alloc_bad, 0);
    CS_CHECK_EQ_U64(crit_bad, 0);
    CS_CHECK(winners > 400);
}

static void test_lambda_wide(void)
{
    const cs_mech_ops_t *ops = cs_mech_find("bias-vcg");
    CS_CHECK(ops != NULL);
    if (!ops) return;
    cs_params_t p;
    cs_params_default(&p);
    p.lambda_control = CS_LAMBDA_ON;
    p.lambda = 50000000;     /* 0.05 */
    p.lambda_gain = 100000;  /* 0.1 */
    p.lambda_target = 200000; /* 0.2 */
    p.lambda_epoch = 1;      /* every block closes an epoch */
    p.bias_scale = (cs_u128)1 << 110;
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, ops, &p), CS_OK);
    cs_cand_t c;
    memset(&c, 0, sizeof c);
    c.cycles = 1000;
    c.bid = (cs_u128)3 << 110; /* deferrals 0: Bias(0) = bias_scale */
    c.id.b[0] = 0x5a;
    cs_clear_ctx_t ctx = {.p = &p, .height = 41, .budget_cycles = 50000};
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, &c, 1, &out), CS_OK);
    CS_CHECK(c.selected);
    cs_mech_end_block(&m, &ctx, &c, 1, &out);
    CS_CHECK_EQ_U64(cs_mech_lambda(&m), 49750000);
    cs_mech_close(&m);
}

static void test_gba_wide(void)
{
    const cs_mech_ops_t *ops = cs_mech_find("gba-tip");
    CS_CHECK(ops != NULL);
    if (!ops) return;
    cs_params_t p;
    cs_params_default(&p);
    p.gba_weight_epoch = 1;
    p.starvation_blocks = 0; /* L = 0 */
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, ops, &p), CS_OK);
    cs_cand_t c[2];
    memset(c, 0, sizeof c);
    for (int i = 0; i < 2; i++) {
        c[i].slot = (uint32_t)i;
        c[i].target = c[i].ident = (uint32_t)(i + 1);
        c[i].due_height = 10;
        c[i].sched_height = 5;
        c[i].cycles = 1000;
        c[i].id.b[0] = (uint8_t)(i + 1);
        c[i].max_prio = (cs_u128)1 << (110 + i);
        c[i].max_fee = (cs_u128)1 << 120;
        c[i].balance = (cs_u128)1 << 127;
    }
    cs_clear_ctx_t ctx = {.p = &p, .height = 10, .budget_cycles = 50000};
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 2, &out), CS_OK);
    CS_CHECK(c[0].selected && c[1].selected);
    cs_mech_end_block(&m, &ctx, c, 2, &out);
    ctx.height = 11;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, NULL, 0, &out), CS_OK); /* the epoch rolls */
    cs_mech_end_block(&m, &ctx, NULL, 0, &out);
    CS_CHECK_EQ_U64(cs_mech_gba_weight(&m, 1, 11), 962666);
    CS_CHECK_EQ_U64(cs_mech_gba_weight(&m, 2, 11), 1029333);
    cs_mech_close(&m);
}

int main(void)
{
    test_gba_wide();
    test_critical("bias-vcg");
    test_critical("bias-fp");
    test_lambda_wide();
    return cs_test_done("mech_wide");
}
