/*
 * test_mech_bias.c -- `bias-vcg` (spec and critical payments) and `bias-fp`
 * (CIP-5 §9.2-9.5, D5-D7) on hand-computed cases, the dynamic lambda loop
 * (CIP-5 §9.3) on the proxy and on the invariant, and the radix-sorted order on a large instance against a
 * reference sort.
 */
#include <stdlib.h>
#include <string.h>

#include "cs_fixed.h"
#include "cs_mech.h"
#include "cs_mech_bias.h"
#include "cs_test.h"

static cs_cand_t mk(uint8_t idb, uint32_t target, uint64_t cycles, uint64_t bid, uint32_t n)
{
    cs_cand_t c;
    memset(&c, 0, sizeof c);
    c.slot = idb;
    c.target = target;
    c.ident = target;
    c.cycles = cycles;
    c.bid = bid;
    c.deferrals = n;
    c.id.b[CS_ID_LEN - 1] = idb;
    return c;
}

static void clear1(const char *mech, cs_params_t *p, uint64_t budget, cs_cand_t *c, size_t n,
                   cs_clear_out_t *out)
{
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find(mech), p), CS_OK);
    cs_clear_ctx_t ctx = {.p = p, .height = 500, .budget_cycles = budget};
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, n, out), CS_OK);
    cs_mech_close(&m);
}

/*
 * Case 1: budget exactly filled, one timer over the per-fire cap.
 * bias_scale 1000, lambda 0.05: Bias(0) = 1000, Bias(1) = floor(1051.27) =
 * 1051, Bias(2) = floor(1105.17) = 1105, Bias(4) = floor(1221.40) = 1221.
 *   A 0x0a: 100k cycles, bid 50,000, n 0 -> V 51,000, V/c 0.510000
 *   B 0x0b: 200k cycles, bid 90,000, n 2 -> V 91,105, V/c 0.455525
 *   C 0x0c: 300k cycles, bid 900,000, n 0 -> V/c 3.0033 but 300k > cap 250k
 *   D 0x0d: 200k cycles, bid 80,000, n 1 -> V 81,051, V/c 0.405255
 *   E 0x0e: 150k cycles, bid 40,000, n 4 -> V 41,221, V/c 0.274807
 * Order C, A, B, D, E.  Budget 500k: C OVER_CAP; A (400k left); B (200k
 * left); D uses exactly the 200k left; E 150k > 0 -> BUDGET.
 */
static void case1_setup(cs_cand_t *c)
{
    c[0] = mk(0x0a, 1, 100000, 50000, 0);
    c[1] = mk(0x0b, 2, 200000, 90000, 2);
    c[2] = mk(0x0c, 3, 300000, 900000, 0);
    c[3] = mk(0x0d, 4, 200000, 80000, 1);
    c[4] = mk(0x0e, 5, 150000, 40000, 4);
}

static void test_case1(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.bias_scale = 1000;
    p.lambda = 50000000; /* 0.05 */
    p.max_cycles_per_fire = 250000;
    cs_cand_t c[5];
    cs_clear_out_t out;

    /* spec: runner-up E (C is over the cap, not "excluded");
     * A pays 40,000 - 1,000 = 39,000; B 40,000 - 1,105 = 38,895;
     * D 40,000 - 1,051 = 38,949 (all below their bids). */
    p.vcg_payment = CS_VCG_SPEC;
    case1_setup(c);
    clear1("bias-vcg", &p, 500000, c, 5, &out);
    CS_CHECK(c[0].priority == 51000 && c[1].priority == 91105 && c[3].priority == 81051 &&
             c[4].priority == 41221);
    CS_CHECK_EQ_U64(c[2].rank, 0);
    CS_CHECK_EQ_U64(c[0].rank, 1);
    CS_CHECK_EQ_U64(c[1].rank, 2);
    CS_CHECK_EQ_U64(c[3].rank, 3);
    CS_CHECK_EQ_U64(c[4].rank, 4);
    CS_CHECK_EQ_U64(c[2].why, CS_WHY_OVER_CAP);
    CS_CHECK_EQ_U64(c[4].why, CS_WHY_BUDGET);
    CS_CHECK(c[0].selected && c[1].selected && c[3].selected);
    CS_CHECK_EQ_U64(out.cycles_used, 500000);
    CS_CHECK_EQ_U64(out.fired, 3);
    CS_CHECK_EQ_U64(out.deferred, 2);
    CS_CHECK_EQ_U64(c[0].payment, 39000);
    CS_CHECK_EQ_U64(c[1].payment, 38895);
    CS_CHECK_EQ_U64(c[3].payment, 38949);
    CS_CHECK_EQ_U64(out.payments, 39000 + 38895 + 38949);
    /* lambda-loop observables: Bias 1000 + 1105 + 1051 = 3156;
     * V 51,000 + 91,105 + 81,051 = 223,156. */
    CS_CHECK_EQ_U64(out.bias_prio, 3156);
    CS_CHECK_EQ_U64(out.total_prio, 223156);
    /* Critical bids (identical in every mode):
     *   A: E needs 150k - 0 = 150k > 100k, no blocker -> 0 (A still fits
     *      last: B, D leave 100k, E misses, A takes it).
     *   B: blocker E; least V with V/200k >= 41,221/150k (id 0b < 0e):
     *      ceil(41,221 * 200,000 / 150,000) = ceil(54,961.33) = 54,962;
     *      minus Bias 1,105 = 53,857.
     *   D: same threshold V 54,962 minus Bias 1,051 = 53,911. */
    CS_CHECK_EQ_U64(c[0].critical, 0);
    CS_CHECK_EQ_U64(c[1].critical, 53857);
    CS_CHECK_EQ_U64(c[3].critical, 53911);
    CS_CHECK_EQ_U64(c[4].critical, 0);

    p.vcg_payment = CS_VCG_CRITICAL;
    case1_setup(c);
    clear1("bias-vcg", &p, 500000, c, 5, &out);
    CS_CHECK_EQ_U64(c[0].payment, 0);
    CS_CHECK_EQ_U64(c[1].payment, 53857);
    CS_CHECK_EQ_U64(c[3].payment, 53911);
    CS_CHECK_EQ_U64(out.payments, 53857 + 53911);

    case1_setup(c);
    clear1("bias-fp", &p, 500000, c, 5, &out);
    CS_CHECK_EQ_U64(c[0].payment, 50000);
    CS_CHECK_EQ_U64(c[1].payment, 90000);
    CS_CHECK_EQ_U64(c[3].payment, 80000);
    CS_CHECK_EQ_U64(c[1].critical, 53857);
    CS_CHECK_EQ_U64(out.payments, 220000);
}

/*
 * Case 2: a priority tie, the block and actor quotas and the reserve.
 * lambda 0 -> Bias = bias_scale = 10 for every n.  reserve 500,
 * max_fires_per_block 3, max_fires_per_actor 1, budget 1M.
 *   P 0x01 t1 100k bid 2,990 -> V 3,000 -> 0.03
 *   Q 0x02 t2 200k bid 5,990 -> V 6,000 -> 0.03 (tie with P: id 01 first)
 *   R 0x03 t1  50k bid 1,990 -> V 2,000 -> 0.04
 *   S 0x04 t3 100k bid   400 -> below reserve -> RESERVE
 *   T 0x05 t4 100k bid 1,490 -> V 1,500 -> 0.015
 *   U 0x06 t5 100k bid   990 -> V 1,000 -> 0.01
 * Order R, P, Q, T, U, S.  R wins (t1: 1); P ACTOR_QUOTA; Q wins; T wins
 * (3 fires); U BLOCK_QUOTA; S RESERVE.  The reserve is read as a bid gate
 * here (reserve_mode = bid-gate, N16); the default reading is case 2b's.
 */
static void case2_setup(cs_cand_t *c)
{
    c[0] = mk(0x01, 1, 100000, 2990, 3);
    c[1] = mk(0x02, 2, 200000, 5990, 0);
    c[2] = mk(0x03, 1, 50000, 1990, 9);
    c[3] = mk(0x04, 3, 100000, 400, 1);
    c[4] = mk(0x05, 4, 100000, 1490, 2);
    c[5] = mk(0x06, 5, 100000, 990, 0);
}

static void test_case2(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.bias_scale = 10;
    p.lambda = 0;
    p.reserve_price = 500;
    p.reserve_mode = CS_RESERVE_BID_GATE;
    p.max_fires_per_block = 3;
    p.max_fires_per_actor = 1;
    cs_cand_t c[6];
    cs_clear_out_t out;

    p.vcg_payment = CS_VCG_SPEC;
    case2_setup(c);
    clear1("bias-vcg", &p, 1000000, c, 6, &out);
    CS_CHECK_EQ_U64(c[2].rank, 0);
    CS_CHECK_EQ_U64(c[0].rank, 1);
    CS_CHECK_EQ_U64(c[1].rank, 2);
    CS_CHECK_EQ_U64(c[4].rank, 3);
    CS_CHECK_EQ_U64(c[5].rank, 4);
    CS_CHECK_EQ_U64(c[3].rank, 5);
    CS_CHECK(c[2].selected && c[1].selected && c[4].selected);
    CS_CHECK_EQ_U64(c[0].why, CS_WHY_ACTOR_QUOTA);
    CS_CHECK_EQ_U64(c[5].why, CS_WHY_BLOCK_QUOTA);
    CS_CHECK_EQ_U64(c[3].why, CS_WHY_RESERVE);
    CS_CHECK_EQ_U64(out.cycles_used, 350000);
    /* spec, runner-up P (bid 2,990): 2,990 - 10 = 2,980, floored at 500,
     * capped by the own bid: R min(1,990, 2,980) = 1,990; Q 2,980;
     * T min(1,490, 2,980) = 1,490. */
    CS_CHECK_EQ_U64(c[2].payment, 1990);
    CS_CHECK_EQ_U64(c[1].payment, 2980);
    CS_CHECK_EQ_U64(c[4].payment, 1490);
    /* Critical:
     *   R (t1, 50k): P was excluded while t1 was at its quota, so it blocks
     *     only t1's winners; need 0.  Beat P: V/50k > 3,000/100k strictly
     *     (id 03 > 01): V > 1,500 -> 1,501 - 10 = 1,491 (>= reserve).
     *   Q (200k): blocker U (need 0, block quota).  id 02 < 06: V/200k >=
     *     1,000/100k -> V 2,000 -> 1,990.
     *   T (100k): blocker U; id 05 < 06: V >= 1,000 -> 990. */
    CS_CHECK_EQ_U64(c[2].critical, 1491);
    CS_CHECK_EQ_U64(c[1].critical, 1990);
    CS_CHECK_EQ_U64(c[4].critical, 990);

    p.vcg_payment = CS_VCG_CRITICAL;
    case2_setup(c);
    clear1("bias-vcg", &p, 1000000, c, 6, &out);
    CS_CHECK_EQ_U64(c[2].payment, 1491);
    CS_CHECK_EQ_U64(c[1].payment, 1990);
    CS_CHECK_EQ_U64(c[4].payment, 990);
    CS_CHECK_EQ_U64(out.payments, 1491 + 1990 + 990);

    /* With the reserve at 1,000 the floor binds for T: max(1,000, 990). */
    p.reserve_price = 1000;
    case2_setup(c);
    clear1("bias-vcg", &p, 1000000, c, 6, &out);
    CS_CHECK_EQ_U64(c[4].payment, 1000);
    CS_CHECK_EQ_U64(c[5].why, CS_WHY_RESERVE); /* U's bid 990 < 1,000 */

    /* bias-fp: own bids; a bid below the reserve cannot win. */
    p.reserve_price = 500;
    case2_setup(c);
    clear1("bias-fp", &p, 1000000, c, 6, &out);
    CS_CHECK_EQ_U64(c[2].payment, 1990);
    CS_CHECK_EQ_U64(c[1].payment, 5990);
    CS_CHECK_EQ_U64(c[4].payment, 1490);
    CS_CHECK_EQ_U64(c[3].why, CS_WHY_RESERVE);
}

/*
 * Case 2b: the reserve floors the payment (reserve_mode = payment-floor,
 * the default; CIP-5 §9.5, §9.7, D14) on an idle lane.  bias_scale
 * 10^6, lambda 0.05, reserve 1,000,000, budget 1,000,000, two timers of
 * 100k cycles: B bids 0 with 20 deferrals (Bias(20) = 10^6 e^1 =
 * 2,718,281), A bids 3,000,000 with none (V = 4,000,000).  Both fit, so
 * both fire whatever the order.  A pays max(reserve, critical 0) =
 * 1,000,000 under critical and spec (no runner-up: the reserve), its bid
 * under first price; B never pays above its bid: 0 under every rule.
 * Under bid-gate B loses with RESERVE (its bid 0 < 1,000,000).
 */
static void test_case2b(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.bias_scale = 1000000;
    p.lambda = 50000000;
    p.reserve_price = 1000000;
    cs_cand_t c[2];
    cs_clear_out_t out;
    static const char *const mech[3] = {"bias-vcg", "bias-vcg", "bias-fp"};
    for (int k = 0; k < 3; k++) {
        p.vcg_payment = k == 0 ? CS_VCG_CRITICAL : CS_VCG_SPEC;
        c[0] = mk(0x0b, 1, 100000, 0, 20);
        c[1] = mk(0x0a, 2, 100000, 3000000, 0);
        memset(&out, 0, sizeof out);
        clear1(mech[k], &p, 1000000, c, 2, &out);
        CS_CHECK(c[0].selected && c[1].selected);
        CS_CHECK_EQ_U64(c[0].payment, 0);
        CS_CHECK_EQ_U64(c[1].payment, k == 2 ? 3000000 : 1000000);
        CS_CHECK_EQ_U64(out.fired, 2);
    }
    p.reserve_mode = CS_RESERVE_BID_GATE;
    c[0] = mk(0x0b, 1, 100000, 0, 20);
    c[1] = mk(0x0a, 2, 100000, 3000000, 0);
    memset(&out, 0, sizeof out);
    clear1("bias-vcg", &p, 1000000, c, 2, &out);
    CS_CHECK_EQ_U64(c[0].selected, 0);
    CS_CHECK_EQ_U64(c[0].why, CS_WHY_RESERVE);
    CS_CHECK(c[1].selected);
}

/* The loop on, lambda and gain as given (ppb, ppm), lambda_min 0.001,
 * lambda_max as given, bias_scale 1000. */
static void loop_params(cs_params_t *p, uint64_t lambda, uint64_t gain, uint64_t lambda_max)
{
    p->lambda_control = CS_LAMBDA_ON;
    p->lambda = lambda;
    p->lambda_gain = gain;
    p->lambda_min = 1000000;
    p->lambda_max = lambda_max;
    p->bias_scale = 1000;
}

/*
 * Case 3: the dynamic lambda loop (CIP-5 §9.3).  epoch_blocks 2, lambda
 * 0.1, target 0.2, gain 0.5, bounds [0.001, 0.095].  One winner per block
 * with n = 0 (Bias = bias_scale = 1000).
 *   Heights 0, 1: bids 1,000 and 3,000 -> V 2,000 and 4,000; at the close
 *   of height 1 share = 2,000 * 1e6 / 6,000 = 333,333 ppm; err = 200,000 -
 *   333,333 = -133,333; delta = 1e8 * 500,000 * -133,333 / 1e12 =
 *   -6,666,650 -> lambda = 93,333,350 ppb.
 *   Heights 2, 3: bids 99,000 -> V 100,000 each; share = 2,000 * 1e6 /
 *   200,000 = 10,000; err 190,000; delta = 93,333,350 * 500,000 * 190,000
 *   / 1e12 = 8,866,668 (trunc of .25) -> 102,200,018 -> clamped to
 *   lambda_max 95,000,000.
 *   Heights 4, 5: no candidates -> unchanged.
 */
static void test_lambda_loop(int queue_epoch)
{
    cs_params_t p;
    cs_params_default(&p);
    CS_CHECK_EQ_U64(p.lambda_epoch, 100); /* N63: first update after block 99 */
    /* The loop's epoch is lambda_epoch, or epoch_blocks when it is 0. */
    if (queue_epoch) {
        p.lambda_epoch = 0;
        p.epoch_blocks = 2;
    } else {
        p.lambda_epoch = 2;
    }
    loop_params(&p, 100000000, 500000, 95000000);
    p.lambda_target = 200000;
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("bias-vcg"), &p), CS_OK);
    CS_CHECK_EQ_U64(cs_mech_lambda(&m), 95000000); /* 0.1 clamped into [0.001, 0.095] */
    cs_mech_close(&m);
    p.lambda_max = 500000000;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("bias-vcg"), &p), CS_OK);
    CS_CHECK_EQ_U64(cs_mech_lambda(&m), 100000000);
    static const uint64_t bids[4] = {1000, 3000, 99000, 99000};
    for (uint64_t h = 0; h < 6; h++) {
        if (h == 2) p.lambda_max = 95000000;
        cs_cand_t c[1] = {mk(0x01, 1, 1000, h < 4 ? bids[h] : 0, 0)};
        cs_clear_ctx_t ctx = {.p = &p, .height = h, .budget_cycles = 2000000};
        cs_clear_out_t out;
        CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, h < 4 ? 1 : 0, &out), CS_OK);
        cs_mech_end_block(&m, &ctx, c, h < 4 ? 1 : 0, &out);
        if (h == 0) CS_CHECK_EQ_U64(cs_mech_lambda(&m), 100000000);
        if (h == 1) CS_CHECK_EQ_U64(cs_mech_lambda(&m), 93333350);
        if (h == 3) CS_CHECK_EQ_U64(cs_mech_lambda(&m), 95000000);
        if (h == 5) CS_CHECK_EQ_U64(cs_mech_lambda(&m), 95000000);
    }
    /* The next clearing uses the loop's lambda: Bias(2) = floor(1000 e^0.19)
     * = floor(1209.25) = 1209. */
    cs_cand_t c[1] = {mk(0x01, 1, 1000, 5, 2)};
    cs_clear_ctx_t ctx = {.p = &p, .height = 6, .budget_cycles = 2000000};
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 1, &out), CS_OK);
    CS_CHECK_EQ_U64(c[0].priority, 5 + 1209);
    cs_mech_close(&m);
    /* Other mechanisms report lambda 0. */
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("fifo"), &p), CS_OK);
    CS_CHECK_EQ_U64(cs_mech_lambda(&m), 0);
    cs_mech_close(&m);
}

/*
 * Case 3b: the loop that targets §9.3's invariant (lambda_controller =
 * invariant, DESIGN-NOTES N70).  lambda_epoch 3 (closes at heights 2, 5,
 * 8, 11), lambda 0.2, gain 0.123457, violation target 0.05, bounds
 * [0.001, 0.5]; one winner a block bidding 7,000 (its bias share would
 * move the proxy loop; here it must not count).  After each block the
 * simulator's report: heights 0, 1 violated, 2 held, 3 violated, 4 held,
 * 5 none, 6, 7 held, 8 violated, 9-11 none.  A close at h counts the
 * reports made before it (the report of h comes after h's clearing):
 *   close 2: reports 0, 1: v = 2/2 = 1,000,000 ppm; err = 50,000 -
 *     1,000,000 = -950,000; delta = 2e8 * 123,457 * -950,000 / 1e12 =
 *     -23,456,830 -> lambda = 176,543,170;
 *   close 5: reports 2, 3, 4: v = floor(1e6 / 3) = 333,333; err =
 *     -283,333; delta = 176,543,170 * 123,457 * -283,333 / 1e12 =
 *     -6,175,381.6, truncated to -6,175,381 -> 170,367,789;
 *   close 8: reports 6, 7 (5 had none): v = 0; err = +50,000; delta =
 *     170,367,789 * 123,457 * 50,000 / 1e12 = 1,051,654.8 -> 1,051,654 ->
 *     171,419,443;
 *   close 11: report 8 only: v = 1e6, err = -950,000: delta = 171,419,443
 *     * 123,457 * -950,000 / 1e12 = -20,104,783.7 -> 151,314,660.
 * Under lambda_controller = share the same reports change nothing: with no
 * winner in the epoch lambda stays 0.2.
 */
static void test_invariant_loop(void)
{
    cs_params_t p;
    cs_params_default(&p);
    CS_CHECK_EQ_U64(p.lambda_controller, CS_LAMBDA_CTL_SHARE);
    CS_CHECK_EQ_U64(p.lambda_violation_target, 50000);
    loop_params(&p, 200000000, 123457, 500000000);
    p.lambda_epoch = 3;
    static const int rep[12] = {1, 1, 0, 1, 0, -1, 0, 0, 1, -1, -1, -1};
    static const uint64_t want[12] = {200000000, 200000000, 176543170, 176543170, 176543170, 170367789,
                                      170367789, 170367789, 171419443, 171419443, 171419443, 151314660};
    for (int ctl = 0; ctl < 2; ctl++) {
        p.lambda_controller = ctl ? CS_LAMBDA_CTL_SHARE : CS_LAMBDA_CTL_INVARIANT;
        cs_mech_t m;
        CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("bias-fp"), &p), CS_OK);
        for (uint64_t h = 0; h < 12; h++) {
            cs_cand_t c[1] = {mk(0x02, 1, 1000, 7000, 0)};
            size_t n = ctl ? 0 : 1;
            cs_clear_ctx_t ctx = {.p = &p, .height = h, .budget_cycles = 2000000};
            cs_clear_out_t out;
            CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, n, &out), CS_OK);
            cs_mech_end_block(&m, &ctx, c, n, &out);
            if (rep[h] >= 0) cs_mech_lambda_observe(&m, rep[h]);
            CS_CHECK_EQ_U64(cs_mech_lambda(&m), ctl ? 200000000 : want[h]);
        }
        cs_mech_close(&m);
    }
}

/* Reference for the large instance: exact order and greedy. */
static const cs_cand_t *ref_base;
static int ref_cmp(const void *x, const void *y)
{
    const cs_cand_t *a = &ref_base[*(const uint32_t *)x], *b = &ref_base[*(const uint32_t *)y];
    cs_u128 l = a->priority * b->cycles, r = b->priority * a->cycles; /* < 2^100 here */
    if (l != r) return l > r ? -1 : 1;
    return memcmp(a->id.b, b->id.b, CS_ID_LEN);
}

/* 5,000 candidates with few distinct (bid, cycles) values, so the radix
 * keys collide a lot: the order must equal an exact qsort and the winners
 * a plain greedy over it. */
static void test_large_order(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.bias_scale = 7;
    p.lambda = 123456789;
    enum { N = 5000 };
    cs_cand_t *c = calloc(N, sizeof *c);
    uint32_t *ord = calloc(N, sizeof *ord);
    uint64_t st = 42;
    for (uint32_t i = 0; i < N; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = st >> 24;
        c[i] = mk(0, (uint32_t)(r % 97), 1000 * (1 + r % 7), (r >> 8) % 5 * 1000, (uint32_t)((r >> 16) % 4));
        for (int b = 0; b < 32; b++) c[i].id.b[b] = (uint8_t)(st >> (b % 8 * 8)) ^ (uint8_t)(i >> (b % 3 * 8));
        c[i].slot = i;
    }
    cs_clear_out_t out;
    clear1("bias-vcg", &p, 1234567, c, N, &out);
    for (uint32_t i = 0; i < N; i++) ord[i] = i;
    ref_base = c;
    qsort(ord, N, sizeof *ord, ref_cmp);
    long bad_rank = 0, bad_sel = 0;
    uint64_t left = 1234567;
    for (uint32_t k = 0; k < N; k++) {
        cs_cand_t *t = &c[ord[k]];
        if (t->rank != k) bad_rank++;
        int win = t->cycles <= left;
        if (win) left -= t->cycles;
        if (win != t->selected) bad_sel++;
        if (t->priority != t->bid + cs_fixed_bias(t->deferrals, p.lambda, p.bias_scale)) bad_sel++;
    }
    CS_CHECK_EQ_U64(bad_rank, 0);
    CS_CHECK_EQ_U64(bad_sel, 0);
    free(c);
    free(ord);
}

int main(void)
{
    test_case1();
    test_case2();
    test_case2b();
    test_lambda_loop(0);
    test_lambda_loop(1);
    test_invariant_loop();
    test_large_order();
    return cs_test_done("mech_bias");
}
