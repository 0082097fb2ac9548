/*
 * test_mech_gbatip.c -- `gba-tip` (CIP-1 first draft §3-4, D10): the tip
 * order with the EMA-weight tie-break, budget, funds -> defer, below
 * basefee, per-actor budget slices, and the EMA weight update with the
 * starvation floor and the idle decay.
 */
#include <stdlib.h>
#include <string.h>

#include "cs_mech.h"
#include "cs_mech_bias.h"
#include "cs_test.h"

static cs_cand_t mk(uint8_t idb, uint32_t ident, uint64_t cycles, uint64_t max_fee,
                    uint64_t max_prio, uint64_t weight)
{
    cs_cand_t c;
    memset(&c, 0, sizeof c);
    c.slot = idb;
    c.target = ident;
    c.ident = ident;
    c.cycles = cycles;
    c.max_fee = max_fee;
    c.max_prio = max_prio;
    c.weight = weight;
    c.balance = (cs_u128)1 << 62;
    c.id.b[0] = idb;
    return c;
}

static cs_clear_ctx_t ctx_at(const cs_params_t *p, uint64_t h, uint64_t budget)
{
    cs_clear_ctx_t ctx = {.p = p, .height = h, .basefee_lane = 100, .basefee_cycle = 0,
                          .budget_cycles = budget};
    return ctx;
}

/*
 * bf_lane 100, budget 700k, fresh state (weights = cand.weight):
 *   A 0x01 id1 300k: tip min(25, 200-100) = 25, weight 1.5
 *   B 0x02 id2 200k: tip min(40, 125-100) = 25, weight 1.8 -> before A (tie)
 *   C 0x03 id3 100k: tip 30 but balance 100k * (100 + 30) - 1 -> FUNDS
 *   D 0x04 id4 200k: tip min(60, 150-100) = 50 -> first
 *   E 0x05 id5 100k: max_fee 90 < 100 -> BELOW_BASEFEE
 *   F 0x06 id6   1 : tip 1
 * Order D(50), C(30), B(25, w 1.8), A(25, w 1.5), F(1), E(0).
 * D (500k left); C funds; B (300k left); A exactly fills (0); F BUDGET.
 */
static void test_order_budget_funds(void)
{
    cs_params_t p;
    cs_params_default(&p); /* weight clamp [0.5, 2.0] */
    cs_cand_t c[6] = {mk(0x01, 1, 300000, 200, 25, 1500000), mk(0x02, 2, 200000, 125, 40, 1800000),
                      mk(0x03, 3, 100000, 1000, 30, 0),      mk(0x04, 4, 200000, 150, 60, 0),
                      mk(0x05, 5, 100000, 90, 10, 0),        mk(0x06, 6, 1, 1000, 1, 0)};
    c[2].balance = (cs_u128)100000 * 130 - 1;
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("gba-tip"), &p), CS_OK);
    cs_clear_ctx_t ctx = ctx_at(&p, 50, 700000);
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 6, &out), CS_OK);
    CS_CHECK_EQ_U64(c[3].rank, 0);
    CS_CHECK_EQ_U64(c[2].rank, 1);
    CS_CHECK_EQ_U64(c[1].rank, 2);
    CS_CHECK_EQ_U64(c[0].rank, 3);
    CS_CHECK_EQ_U64(c[5].rank, 4);
    CS_CHECK_EQ_U64(c[4].rank, 5);
    CS_CHECK(c[3].selected && c[1].selected && c[0].selected);
    CS_CHECK_EQ_U64(c[2].why, CS_WHY_FUNDS);
    CS_CHECK_EQ_U64(c[4].why, CS_WHY_BELOW_BASEFEE);
    CS_CHECK_EQ_U64(c[5].why, CS_WHY_BUDGET);
    CS_CHECK(c[3].prio_rate == 50 && c[1].prio_rate == 25 && c[0].prio_rate == 25);
    CS_CHECK_EQ_U64(out.cycles_used, 700000);
    CS_CHECK_EQ_U64(out.fired, 3);
    CS_CHECK((cs_mech_ops_t const *)cs_mech_find("gba-tip") != NULL &&
             (cs_mech_find("gba-tip")->flags & CS_MF_DEFER_FUNDS) != 0);
    cs_mech_close(&m);
}

/*
 * Slices: budget 1M, actor_budget_slice 0.8, weights id1 = 1.0, id2 = 3.0
 * (weight_max 4.0): slice1 = 1M * 0.8 * 1/4 = 200k, slice2 = 600k,
 * shared = 200k.  Tip order a1, a2, b1, b2, a3:
 *   a1 id1 300k: 200k slice + 200k shared >= 300k -> slice1 0, shared 100k
 *   a2 id1 150k: 0 + 100k < 150k but 700k left in all -> SLICE
 *   b1 id2 650k: 600k + 100k -> slice2 0, shared 50k
 *   b2 id2  50k: exactly the shared 50k -> 0 left
 *   a3 id1   1 : nothing left at all -> BUDGET
 */
static void test_slices(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.weight_max = 4000000;
    p.actor_budget_slice = 800000;
    cs_cand_t c[5] = {mk(0x11, 1, 300000, 1000, 50, 1000000), mk(0x12, 1, 150000, 1000, 40, 1000000),
                      mk(0x13, 2, 650000, 1000, 30, 3000000), mk(0x14, 2, 50000, 1000, 20, 3000000),
                      mk(0x15, 1, 1, 1000, 10, 1000000)};
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("gba-tip"), &p), CS_OK);
    cs_clear_ctx_t ctx = ctx_at(&p, 7, 1000000);
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 5, &out), CS_OK);
    CS_CHECK(c[0].selected && c[2].selected && c[3].selected);
    CS_CHECK_EQ_U64(c[1].why, CS_WHY_SLICE);
    CS_CHECK_EQ_U64(c[4].why, CS_WHY_BUDGET);
    CS_CHECK_EQ_U64(out.cycles_used, 1000000);
    cs_mech_close(&m);
}

/*
 * EMA update at h = 100, budget 1M, ema 0.2, clamp [0.5, 2], starvation 10:
 *   X id1 500k tip 40 (max_fee 150), due 98          -> fires (500k left)
 *   Y id2 600k tip 20, due 100, deferrals 9          -> BUDGET
 *   Z id2 100k tip 0,  due 95                        -> fires
 * Block mean tip (40 + 20 + 0) / 3 = 20.
 * id1: T = 40/20 = 2.0 (cap), Q = 0, L = 2/10 = 0.2, U = 500k/1M = 0.5:
 *      S = 1.0 + 0.5 + 0 + 0.1 - 0.5 = 1.1; w = 0.8 * 1.0 + 0.2 * 1.1 = 1.02.
 * id2: mean tip 10 -> T = 0.5; Q = 1/2; late (0 + 5) / 2 = 2 (floor) ->
 *      L = 0.2; U = 0.1: S = 0.25 + 0.5 + 0.25 + 0.1 - 0.1 = 1.0;
 *      w = 1.0, but Y reaches 9 + 1 = 10 deferrals -> floor 2.0.
 * At h = 103 id1 has been idle 2 blocks: deviation 0.02 -> 0.016 -> 0.0128,
 * weight 1.0128.  With equal tips it ranks after a new id3 starting at
 * 1.012801 and before a new id4 starting at 1.012799.
 */
static void test_ema(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.gba_weight_epoch = 1; /* recomputed after every block */
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("gba-tip"), &p), CS_OK);
    cs_cand_t c[3] = {mk(0x21, 1, 500000, 150, 40, 0), mk(0x22, 2, 600000, 1000, 20, 0),
                      mk(0x23, 2, 100000, 1000, 0, 0)};
    c[0].due_height = 98;
    c[1].due_height = 100;
    c[1].deferrals = 9;
    c[2].due_height = 95;
    cs_clear_ctx_t ctx = ctx_at(&p, 100, 1000000);
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 3, &out), CS_OK);
    CS_CHECK(c[0].selected && c[2].selected);
    CS_CHECK_EQ_U64(c[1].why, CS_WHY_BUDGET);
    cs_mech_end_block(&m, &ctx, c, 3, &out);
    CS_CHECK_EQ_U64(cs_mech_gba_weight(&m, 1, 100), 1020000);
    CS_CHECK_EQ_U64(cs_mech_gba_weight(&m, 2, 100), 2000000);
    CS_CHECK_EQ_U64(cs_mech_gba_weight(&m, 9, 100), 0);

    cs_cand_t d[3] = {mk(0x31, 1, 1000, 1000, 7, 0), mk(0x32, 3, 1000, 1000, 7, 1012801),
                      mk(0x33, 4, 1000, 1000, 7, 1012799)};
    /* The weight id1 carries at 103, asked before the clearing (N95's
     * /weights sample): 1.0128; an identity with no EMA weight yet carries
     * its input clamped to [0.5, 2] (0 = 1.0). */
    CS_CHECK_EQ_U64(cs_mech_gba_weight_at(&m, &p, 1, 103, 0), 1012800);
    CS_CHECK_EQ_U64(cs_mech_gba_weight_at(&m, &p, 9, 103, 0), 1000000);
    CS_CHECK_EQ_U64(cs_mech_gba_weight_at(&m, &p, 9, 103, 3000000), 2000000);
    CS_CHECK_EQ_U64(cs_mech_gba_weight_at(&m, &p, 9, 103, 100000), 500000);
    ctx = ctx_at(&p, 103, 1000000);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, d, 3, &out), CS_OK);
    CS_CHECK_EQ_U64(d[1].rank, 0);
    CS_CHECK_EQ_U64(d[0].rank, 1);
    CS_CHECK_EQ_U64(d[2].rank, 2);
    /* Each candidate leaves with the weight the rule used (the fire row's
     * weight_ppm): id1's decayed EMA weight, id3 and id4 their inputs. */
    CS_CHECK_EQ_U64(d[0].weight, 1012800);
    CS_CHECK_EQ_U64(d[1].weight, 1012801);
    CS_CHECK_EQ_U64(d[2].weight, 1012799);
    cs_mech_close(&m);
}

/*
 * Idle decay below neutral truncates toward zero (the file comment's
 * (1 - ema_lambda) step in integers, done in 64 bits since issue 26).
 * h = 100, budget 1,001,000, ema 0.2, clamp [0.5, 2]:
 *   A 0x41 id5 1,000,000 cycles tip 0  -> fires second
 *   B 0x42 id6     1,000 cycles tip 10 -> fires first
 * Mean tip 5.  id5: T = 0, Q = 0, L = 0, U = floor(10^12 / 1,001,000)
 * = 999,000 ppm: S = 500,000 - 999,000 < 0 -> 0; w = 0.8 x 1.0 = 0.8.
 * At h = 107 id5 has been idle 6 blocks: deviation -200,000 -> -160,000
 * -> -128,000 -> -102,400 -> -81,920 -> -65,536 -> -52,428.8, truncated
 * to -52,428 (flooring would give -52,429): weight 947,572.  With equal
 * tips it ranks after id7 starting at 947,572 with a smaller id (0x50 <
 * 0x51) and before id8 starting at 947,571 (whose id 0x4f is smaller
 * still, so a floored 947,571 would put id8 first).
 */
static void test_decay_below_neutral(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.gba_weight_epoch = 1;
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("gba-tip"), &p), CS_OK);
    cs_cand_t c[2] = {mk(0x41, 5, 1000000, 1000, 0, 0), mk(0x42, 6, 1000, 1000, 10, 0)};
    c[0].due_height = c[1].due_height = 100;
    cs_clear_ctx_t ctx = ctx_at(&p, 100, 1001000);
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 2, &out), CS_OK);
    CS_CHECK(c[0].selected && c[1].selected);
    cs_mech_end_block(&m, &ctx, c, 2, &out);
    CS_CHECK_EQ_U64(cs_mech_gba_weight(&m, 5, 100), 800000);

    cs_cand_t d[3] = {mk(0x51, 5, 1000, 1000, 7, 0), mk(0x50, 7, 1000, 1000, 7, 947572),
                      mk(0x4f, 8, 1000, 1000, 7, 947571)};
    CS_CHECK_EQ_U64(cs_mech_gba_weight_at(&m, &p, 5, 107, 0), 947572);
    ctx = ctx_at(&p, 107, 1000000);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, d, 3, &out), CS_OK);
    CS_CHECK_EQ_U64(d[0].weight, 947572);
    CS_CHECK_EQ_U64(d[1].rank, 0);
    CS_CHECK_EQ_U64(d[0].rank, 1);
    CS_CHECK_EQ_U64(d[2].rank, 2);
    cs_mech_close(&m);
}

/*
 * Weights recomputed per epoch (CIP-1 first draft §3 step 5e, N61):
 * gba_weight_epoch 4, so blocks 100-103 are weight epoch 25; budget 1M,
 * lane basefee 100, ema 0.2, clamp [0.5, 2], starvation 10.
 *   100: X id1 500k tip 40 (max_fee 150) due 98 -> fires
 *        Y id2 600k tip 20 due 100             -> BUDGET
 *        Z id2 100k tip 0  due 95              -> fires
 *   101: V id1 200k tip 40 due 101 -> fires;  W id2 100k tip 0 due 95 -> fires
 *   102, 103: no candidates.
 * No weight changes inside the epoch; after 103, over the epoch's five
 * candidates (mean tip 100 / 5 = 20):
 *   id1: d 2, f 2, mean tip 40 -> T 2.0; Q 0; late (2 + 0) / 2 = 1 -> L 0.1;
 *        U = 700k / (2 x 1M) = 0.35; S = 1.0 + 0.5 + 0 + 0.05 - 0.35 = 1.2;
 *        w = 0.8 + 0.2 x 1.2 = 1.04.
 *   id2: d 3, f 2, mean tip floor(20 / 3) = 6 -> T 0.3; Q 333,333 ppm;
 *        late (0 + 5 + 6) / 3 = 3 -> L 0.3; U = 200k / 2M = 0.1;
 *        S = 150,000 + 500,000 + 166,666 + 150,000 - 100,000 = 866,666 ppm;
 *        w = floor((0.8e6 x 1e6 + 0.2e6 x 866,666) / 1e6) = 973,333 ppm.
 * At 112 (epoch 28) id1 has been idle two epochs (26, 27): deviation
 * 40,000 -> 32,000 -> 25,600, weight 1,025,600; with equal tips it ranks
 * after a new id3 at 1,025,601 and before a new id4 at 1,025,599.
 */
static void test_epoch(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.gba_weight_epoch = 4;
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("gba-tip"), &p), CS_OK);
    cs_clear_out_t out;
    cs_cand_t a[3] = {mk(0x41, 1, 500000, 150, 40, 0), mk(0x42, 2, 600000, 1000, 20, 0),
                      mk(0x43, 2, 100000, 1000, 0, 0)};
    a[0].due_height = 98;
    a[1].due_height = 100;
    a[2].due_height = 95;
    cs_clear_ctx_t ctx = ctx_at(&p, 100, 1000000);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, a, 3, &out), CS_OK);
    CS_CHECK(a[0].selected && a[2].selected && a[1].why == CS_WHY_BUDGET);
    cs_mech_end_block(&m, &ctx, a, 3, &out);
    CS_CHECK_EQ_U64(cs_mech_gba_weight(&m, 1, 100), 0); /* not recomputed yet */
    cs_cand_t b[2] = {mk(0x44, 1, 200000, 150, 40, 0), mk(0x45, 2, 100000, 1000, 0, 0)};
    b[0].due_height = 101;
    b[1].due_height = 95;
    ctx = ctx_at(&p, 101, 1000000);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, b, 2, &out), CS_OK);
    CS_CHECK(b[0].selected && b[1].selected);
    cs_mech_end_block(&m, &ctx, b, 2, &out);
    for (uint64_t h = 102; h <= 103; h++) {
        CS_CHECK_EQ_U64(cs_mech_gba_weight(&m, 1, h), 0);
        ctx = ctx_at(&p, h, 1000000);
        CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, b, 0, &out), CS_OK);
        cs_mech_end_block(&m, &ctx, b, 0, &out);
    }
    CS_CHECK_EQ_U64(cs_mech_gba_weight(&m, 1, 104), 1040000);
    CS_CHECK_EQ_U64(cs_mech_gba_weight(&m, 2, 104), 973333);
    /* Not gba-tip: no weight of its own. */
    cs_mech_t f;
    CS_CHECK_EQ_U64(cs_mech_open(&f, cs_mech_find("eip1559"), &p), CS_OK);
    CS_CHECK_EQ_U64(cs_mech_gba_weight_at(&f, &p, 1, 104, 1500000), 0);
    cs_mech_close(&f);
    CS_CHECK_EQ_U64(cs_mech_gba_weight_at(&m, &p, 1, 112, 0), 1025600);
    cs_cand_t d[3] = {mk(0x51, 1, 1000, 1000, 7, 0), mk(0x52, 3, 1000, 1000, 7, 1025601),
                      mk(0x53, 4, 1000, 1000, 7, 1025599)};
    ctx = ctx_at(&p, 112, 1000000);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, d, 3, &out), CS_OK);
    CS_CHECK_EQ_U64(d[1].rank, 0);
    CS_CHECK_EQ_U64(d[0].rank, 1);
    CS_CHECK_EQ_U64(d[2].rank, 2);
    cs_mech_close(&m);
}

/* Reference order for the large instance: tip desc, weight desc, id asc
 * (fresh state: the weight is cand.weight, inside the clamp here). */
static const cs_cand_t *ref_c;
static int ref_cmp(const void *x, const void *y)
{
    const cs_cand_t *a = &ref_c[*(const uint32_t *)x], *b = &ref_c[*(const uint32_t *)y];
    if (a->prio_rate != b->prio_rate) return a->prio_rate > b->prio_rate ? -1 : 1;
    if (a->weight != b->weight) return a->weight > b->weight ? -1 : 1;
    return memcmp(a->id.b, b->id.b, CS_ID_LEN);
}

/* Clear c[0..n) as gba-tip at h = 3 with a budget of 100,000 cycles (100
 * per candidate: the first 1,000 win) and check every rank and outcome
 * against the reference order. */
static void check_ref(cs_cand_t *c, uint32_t n)
{
    cs_params_t p;
    cs_params_default(&p);
    uint32_t *ord = calloc(n, sizeof *ord);
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("gba-tip"), &p), CS_OK);
    cs_clear_ctx_t ctx = ctx_at(&p, 3, 100000);
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, n, &out), CS_OK);
    cs_mech_close(&m);
    ref_c = c;
    for (uint32_t i = 0; i < n; i++) ord[i] = i;
    qsort(ord, n, sizeof *ord, ref_cmp);
    long bad = 0;
    for (uint32_t k = 0; k < n; k++) bad += c[ord[k]].rank != k || (k < 1000) != c[ord[k]].selected;
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(out.fired, 1000);
    free(ord);
}

/* 3,000 candidates, 20 identities with distinct weights, 5 tips, ids that
 * share long prefixes: ranks equal the reference. */
static void test_large(void)
{
    enum { N = 3000 };
    cs_cand_t *c = calloc(N, sizeof *c);
    uint64_t st = 5;
    for (uint32_t i = 0; i < N; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = st >> 21;
        uint32_t ident = (uint32_t)(r % 20);
        c[i] = mk(0, ident, 100, 1000, 10 * ((r >> 7) % 5), 600000 + 50000ull * (ident % 7));
        for (int b = 0; b < 32; b++) c[i].id.b[b] = (uint8_t)(b < 5 ? (r >> 11) % 2 : (st >> (b % 8 * 8)) ^ i);
    }
    check_ref(c, N);
    free(c);
}

/* 3,000 candidates, 300 identities with weights spread over [0.5, 1.5]
 * (the weight's offset takes ~20 bits), ntips distinct tips, random ids
 * from the seed: the tip of tip number k (0-based) is 7 k + 1, or
 * (k + 1) << shift when shift > 0.  Ranks equal the reference and the
 * first 1,000 (100 cycles each, budget 100,000) win (check_ref). */
static void check_weight_runs(uint64_t st, unsigned ntips, unsigned shift)
{
    enum { N = 3000 };
    cs_cand_t *c = calloc(N, sizeof *c);
    uint64_t wt[300];
    for (int a = 0; a < 300; a++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        wt[a] = 500000 + (st >> 20) % 1000001;
    }
    for (uint32_t i = 0; i < N; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = st >> 17;
        uint32_t ident = (uint32_t)(r % 300);
        uint64_t k = (r >> 9) % ntips;
        c[i] = mk(0, ident, 100, 1000, 0, wt[ident]);
        c[i].max_prio = shift ? (cs_u128)(k + 1) << shift : 7 * k + 1;
        c[i].max_fee = CS_U128_MAX; /* the tip is max_prio */
        c[i].balance = CS_U128_MAX; /* 100 * (100 + tip) never exceeds it */
        for (int b = 0; b < 32; b++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            c[i].id.b[b] = (uint8_t)(st >> 56);
        }
    }
    check_ref(c, N);
    free(c);
}

/* 30 tips 1..204 (runs of about 100 equal tips): the tip's 8 differing
 * bits and the weight's offset form the radix key together, and the
 * runs of equal key are sorted on the carried id prefix.  Seed 31337. */
static void test_weight_runs_seed_31337(void)
{
    check_weight_runs(31337, 30, 0);
}

/* 40 tips far apart (runs of about 75), seed 2718: (a) k * 2^40, which
 * differ in 46 bits, so tip and weight no longer fit one radix key and
 * the weight rides in the tie word; (b) k * 2^66 (above 2^64: the
 * monotone key of the 128-bit tip, the comparator within its runs). */
static void test_wide_tips_seed_2718(void)
{
    check_weight_runs(2718, 40, 40);
    check_weight_runs(2718, 40, 66);
}

int main(void)
{
    test_large();
    test_weight_runs_seed_31337();
    test_wide_tips_seed_2718();
    test_order_budget_funds();
    test_slices();
    test_ema();
    test_decay_below_neutral();
    test_epoch();
    return cs_test_done("mech_gbatip");
}
