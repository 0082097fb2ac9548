/*
 * test_mech_score.c -- the CIP-5 CN §9 score rule: score formula with the
 * D8 minus sign, the §9.2 total order (round-robin cursor, due_height,
 * target, timer_id), the §9.3 / §18 quotas, the lane budget (DESIGN-NOTES
 * N57; score_budget = none is the CN text), and the §19 test vector 3.
 */
#include <stdlib.h>
#include <string.h>

#include "cs_mech.h"
#include "cs_test.h"

static cs_cand_t mk(uint8_t idb, uint32_t target, uint64_t due, uint64_t rank, uint64_t bid)
{
    cs_cand_t c;
    memset(&c, 0, sizeof c);
    c.slot = idb;
    c.target = target;
    c.ident = target;
    c.due_height = due;
    c.fifo_rank = rank;
    c.bid = bid;
    c.cycles = 1000u + idb;
    c.id.b[CS_ID_LEN - 1] = idb;
    return c;
}

/* The lane budget run() hands the mechanism (ample unless a test sets it). */
static uint64_t g_budget = UINT64_MAX;

static int run(cs_mech_t *m, cs_params_t *p, uint64_t h, cs_cand_t *c, size_t n,
               cs_clear_out_t *out)
{
    cs_clear_ctx_t ctx = {.p = p, .height = h, .budget_cycles = g_budget};
    return cs_mech_clear(m, &ctx, c, n, out);
}

static cs_i128 score_of(const cs_cand_t *c)
{
    return (cs_i128)(c->priority - ((cs_u128)1 << 127));
}

/* CIP-5 CN §19 vector 3: MAX_FIRES_PER_BLOCK = 2, three candidates; the
 * third is not delivered, and in the next block (age + 1) it ranks first. */
static void test_vector3(void)
{
    cs_params_t p;
    cs_params_default(&p); /* w_age 1, w_bid 1, w_fifo 0 */
    p.max_fires_per_block = 2;
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("score"), &p), CS_OK);
    /* h = 200, all due 200: scores = bids 5, 4, 3. */
    cs_cand_t c[3] = {mk(0x0a, 1, 200, 1, 5), mk(0x0b, 2, 200, 2, 4), mk(0x0c, 3, 200, 3, 3)};
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(run(&m, &p, 200, c, 3, &out), CS_OK);
    CS_CHECK(c[0].selected && c[1].selected);
    CS_CHECK_EQ_U64(c[2].selected, 0);
    CS_CHECK_EQ_U64(c[2].why, CS_WHY_BLOCK_QUOTA);
    CS_CHECK_EQ_U64(c[2].rank, 2);
    CS_CHECK_EQ_U64(out.fired, 2);
    CS_CHECK_EQ_U64(out.payments, 5 + 4); /* score_payment = bid */
    /* h = 201: the carried timer (age 1: score 1 + 3 = 4) against two new
     * ones due 201 with bid 3 (score 3): it ranks first and fires. */
    cs_cand_t d[3] = {mk(0x0d, 4, 201, 4, 3), c[2], mk(0x0e, 5, 201, 5, 3)};
    CS_CHECK_EQ_U64(run(&m, &p, 201, d, 3, &out), CS_OK);
    CS_CHECK_EQ_U64(d[1].rank, 0);
    CS_CHECK(score_of(&d[1]) == 4);
    CS_CHECK(d[1].selected);
    /* d[0] and d[2] tie at 3 (rr 0, due 201): target 4 < 5 -> d[0] second. */
    CS_CHECK_EQ_U64(d[0].rank, 1);
    CS_CHECK(d[0].selected);
    CS_CHECK_EQ_U64(d[2].why, CS_WHY_BLOCK_QUOTA);
    cs_mech_close(&m);
}

/* Equal scores: the round-robin cursor puts every target's first timer
 * before any second one; then due_height, target, timer_id. */
static void test_round_robin(void)
{
    cs_params_t p;
    cs_params_default(&p);
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("score"), &p), CS_OK);
    /* h = 100: a1, a2 (target 1), b1 (target 2): due 100, bid 50 -> 50;
     * c1 (target 3): due 99 (age 1), bid 49 -> 50.  Without the cursor the
     * order is c1 (due 99), a1, a2, b1 (target, then id), so the cursors
     * are c1 0, a1 0, a2 1, b1 0, and the full order is c1, a1, b1, a2. */
    cs_cand_t c[4] = {mk(0x02, 1, 100, 7, 50), mk(0x01, 1, 100, 8, 50), mk(0x03, 2, 100, 9, 50),
                      mk(0x04, 3, 99, 10, 49)};
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(run(&m, &p, 100, c, 4, &out), CS_OK);
    CS_CHECK_EQ_U64(c[3].rank, 0); /* c1 */
    CS_CHECK_EQ_U64(c[1].rank, 1); /* a1 (id 01 < 02) */
    CS_CHECK_EQ_U64(c[2].rank, 2); /* b1 */
    CS_CHECK_EQ_U64(c[0].rank, 3); /* a2 */
    for (int i = 0; i < 4; i++) CS_CHECK(score_of(&c[i]) == 50);
    /* No quota, no budget: all fire; payments 50 + 50 + 50 + 49 = 199. */
    CS_CHECK_EQ_U64(out.fired, 4);
    CS_CHECK_EQ_U64(out.payments, 199);
    CS_CHECK_EQ_U64(out.cycles_used, 1002 + 1001 + 1003 + 1004);
    cs_mech_close(&m);
}

/* Weights, the minus sign on fifo_rank (D8), a negative score, the
 * per-target quota and score_payment = none. */
static void test_weights_quota(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.w_age = 2;
    p.w_bid = 1;
    p.w_fifo = 3;
    p.max_fires_per_actor = 1;
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("score"), &p), CS_OK);
    /* h = 50:
     *   x t1: due 45 (age 5), bid 100, rank 10: 10 + 100 - 30 = 80
     *   y t1: due 50 (age 0), bid  90, rank  2:  0 +  90 -  6 = 84
     *   z t1: due 40 (age 10), bid 70, rank 20: 20 +  70 - 60 = 30
     *   v t2: due 55 (age 0, not negative), bid 200, rank 50: 200 - 150 = 50
     *   u t3: due 50, bid 0, rank 30: -90
     * Order y, x, v, z, u; one fire per target: y, v, u fire; x and z lose
     * with ACTOR_QUOTA. */
    cs_cand_t c[5] = {mk(0x11, 1, 45, 10, 100), mk(0x12, 1, 50, 2, 90), mk(0x13, 1, 40, 20, 70),
                      mk(0x14, 2, 55, 50, 200), mk(0x15, 3, 50, 30, 0)};
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(run(&m, &p, 50, c, 5, &out), CS_OK);
    CS_CHECK(score_of(&c[0]) == 80);
    CS_CHECK(score_of(&c[1]) == 84);
    CS_CHECK(score_of(&c[2]) == 30);
    CS_CHECK(score_of(&c[3]) == 50);
    CS_CHECK(score_of(&c[4]) == -90);
    CS_CHECK_EQ_U64(c[1].rank, 0);
    CS_CHECK_EQ_U64(c[0].rank, 1);
    CS_CHECK_EQ_U64(c[3].rank, 2);
    CS_CHECK_EQ_U64(c[2].rank, 3);
    CS_CHECK_EQ_U64(c[4].rank, 4);
    CS_CHECK(c[1].selected && c[3].selected && c[4].selected);
    CS_CHECK_EQ_U64(c[0].why, CS_WHY_ACTOR_QUOTA);
    CS_CHECK_EQ_U64(c[2].why, CS_WHY_ACTOR_QUOTA);
    CS_CHECK_EQ_U64(c[1].payment, 90);
    CS_CHECK_EQ_U64(c[3].payment, 200);
    CS_CHECK_EQ_U64(out.payments, 290);
    cs_mech_close(&m);

    p.score_payment = CS_SCORE_PAY_NONE;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("score"), &p), CS_OK);
    CS_CHECK_EQ_U64(run(&m, &p, 50, c, 5, &out), CS_OK);
    CS_CHECK_EQ_U64(c[3].payment, 0);
    CS_CHECK_EQ_U64(out.payments, 0);
    CS_CHECK_EQ_U64(out.fired, 3);
    cs_mech_close(&m);
}

/* Reference model of the CIP-5 CN §9.2 order for the large instance. */
static const cs_cand_t *ref_c;
static const uint32_t *ref_rr; /* NULL in the first pass */
static int ref_cmp(const void *x, const void *y)
{
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
    const cs_cand_t *a = &ref_c[i], *b = &ref_c[j];
    if (a->priority != b->priority) return a->priority > b->priority ? -1 : 1;
    if (ref_rr && ref_rr[i] != ref_rr[j]) return ref_rr[i] < ref_rr[j] ? -1 : 1;
    if (a->due_height != b->due_height) return a->due_height < b->due_height ? -1 : 1;
    if (a->target != b->target) return a->target < b->target ? -1 : 1;
    return memcmp(a->id.b, b->id.b, CS_ID_LEN);
}

/* The reference order of c[0..n) into ord: qsort without the cursor, the
 * cursor as the rank within the target, qsort again (rr: n entries,
 * cnt: targets entries, both scratch). */
static void ref_order(const cs_cand_t *c, uint32_t n, uint32_t *ord, uint32_t *rr, uint32_t *cnt,
                      uint32_t targets)
{
    memset(cnt, 0, targets * sizeof *cnt);
    ref_c = c;
    ref_rr = NULL;
    for (uint32_t i = 0; i < n; i++) ord[i] = i;
    qsort(ord, n, sizeof *ord, ref_cmp);
    for (uint32_t k = 0; k < n; k++) rr[ord[k]] = cnt[c[ord[k]].target]++;
    ref_rr = rr;
    qsort(ord, n, sizeof *ord, ref_cmp);
}

/* 4,000 candidates, 30 targets, few distinct scores (long equal-score runs
 * through the radix path): ranks equal the reference (two qsorts with the
 * cursor computed in between) and the per-target quota is applied in that
 * order. */
static void test_large(void)
{
    enum { N = 4000 };
    cs_params_t p;
    cs_params_default(&p);
    p.w_fifo = 1;
    p.max_fires_per_actor = 40;
    cs_cand_t *c = calloc(N, sizeof *c);
    uint32_t *ord = calloc(N, sizeof *ord), *rr = calloc(N, sizeof *rr), cnt[30] = {0};
    uint64_t st = 99;
    for (uint32_t i = 0; i < N; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = st >> 22;
        c[i] = mk(0, (uint32_t)(r % 30), 1000 - (r >> 5) % 8, (r >> 9) % 5, (r >> 13) % 4 * 3);
        for (int b = 0; b < 32; b++) c[i].id.b[b] = (uint8_t)((st >> (b % 7 * 8)) ^ (i * 31u + (uint32_t)b));
    }
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("score"), &p), CS_OK);
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(run(&m, &p, 1000, c, N, &out), CS_OK);
    cs_mech_close(&m);
    ref_order(c, N, ord, rr, cnt, 30);
    long bad = 0;
    memset(cnt, 0, sizeof cnt);
    for (uint32_t k = 0; k < N; k++) {
        const cs_cand_t *t = &c[ord[k]];
        if (t->rank != k) bad++;
        int win = cnt[t->target] < 40;
        if (win) cnt[t->target]++;
        if (win != t->selected) bad++;
    }
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(out.fired, 30 * 40);
    free(c);
    free(ord);
    free(rr);
}

/* The order and quotas against the two-qsort reference over random blocks
 * that reach every path of the radix clearing, seed 5150: (a) scores near
 * 2^50 with many exact ties (the tie word carries low score bits, L > 0);
 * (b) some bids saturating at 2^125 next to small ones (scores spanning
 * more than 2^64: no tie word, runs of equal score above 16 merge-sorted);
 * (c) 50 candidates (the merge-sort path); (d) due heights spanning 2^40
 * (no tie word); (e) distinct scores with both quotas; (f) no quotas,
 * score_payment = bid, and (g) none, with 5 bids and w_fifo 0 (runs of
 * equal score of hundreds, reordered by cursor); without quotas every
 * candidate wins and the clearing writes all outputs in its first pass
 * (score_budget = none there: the CN text).  Kinds (a) and (e) clear
 * under a lane budget of 1/40 and 1/6 of the candidates' cycles (gas
 * limits 1,000..4,999), below what the quotas admit, so the budget binds (first fit: a later, smaller timer
 * may still fit; N57).  The winners follow the CIP-5 CN §18 loop in the
 * reference order with the budget after the quotas; the payments, the
 * loser reasons and the totals are checked too. */
static void check_block(uint64_t *st, size_t n, uint32_t targets, int kind)
{
    cs_params_t p;
    cs_params_default(&p);
    p.w_fifo = kind == 0 || kind == 1 || kind == 6 ? 0 : 1;
    p.w_bid = kind == 1 ? 1000 : p.w_bid;
    p.max_fires_per_actor = kind == 4 ? 7 : kind == 5 ? 0 : 3;
    p.max_fires_per_block = kind == 4 ? (uint64_t)n / 3 : 0;
    p.score_payment = kind == 6 ? CS_SCORE_PAY_NONE : CS_SCORE_PAY_BID;
    p.score_budget = kind == 5 || kind == 6 ? CS_SCORE_BUDGET_NONE : CS_SCORE_BUDGET_LANE;
    uint64_t total = 0;
    cs_cand_t *c = calloc(n, sizeof *c);
    uint32_t *ord = calloc(n, sizeof *ord), *rr = calloc(n, sizeof *rr);
    uint32_t *cnt = calloc(targets, sizeof *cnt);
    uint64_t h = (uint64_t)1 << 41;
    for (uint32_t i = 0; i < n; i++) {
        *st = *st * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = *st >> 11;
        uint64_t due = kind == 3 ? h - (r % ((uint64_t)1 << 40)) : h - r % 6;
        cs_u128 bid = kind == 0   ? ((cs_u128)(r >> 20) % 300 + 1) << 48
                      : kind == 1 ? (r % 4 == 0 ? (cs_u128)1 << 126 : (cs_u128)((r >> 3) % 7))
                      : kind == 6 ? (cs_u128)((r >> 7) % 5)
                                  : (cs_u128)((r >> 7) % 1000003);
        c[i] = mk(0, (uint32_t)((r >> 30) % targets), due, i * 7 + 3, 0);
        c[i].bid = bid;
        c[i].cycles = 1000 + (r >> 40) % 4000;
        total += c[i].cycles;
        for (int b = 0; b < 32; b++) c[i].id.b[b] = (uint8_t)((*st >> (b % 7 * 8)) ^ (i * 31u + (uint32_t)b));
        if (kind == 2 && i % 3 == 1) c[i].id = c[i - 1].id, c[i].id.b[31] ^= 1; /* long shared prefix */
    }
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("score"), &p), CS_OK);
    cs_clear_out_t out;
    uint64_t budget = kind == 0 ? total / 40 : kind == 4 ? total / 6 : UINT64_MAX, left = budget;
    g_budget = budget;
    CS_CHECK_EQ_U64(run(&m, &p, h, c, n, &out), CS_OK);
    g_budget = UINT64_MAX;
    cs_mech_close(&m);
    ref_order(c, (uint32_t)n, ord, rr, cnt, targets);
    long bad = 0, budget_losers = 0;
    uint64_t fired = 0, cycles = 0;
    cs_u128 paid = 0;
    memset(cnt, 0, targets * sizeof *cnt);
    for (uint32_t k = 0; k < n; k++) {
        const cs_cand_t *t = &c[ord[k]];
        if (t->rank != k) bad++;
        /* A loser: BLOCK_QUOTA once the block is full (checked first),
         * else ACTOR_QUOTA, else BUDGET when its cycles exceed what is left
         * (score_budget = lane). */
        int why = p.max_fires_per_block != 0 && fired >= p.max_fires_per_block      ? CS_WHY_BLOCK_QUOTA
                  : p.max_fires_per_actor != 0 && cnt[t->target] >= p.max_fires_per_actor ? CS_WHY_ACTOR_QUOTA
                  : p.score_budget == CS_SCORE_BUDGET_LANE && t->cycles > left             ? CS_WHY_BUDGET
                                                                                            : CS_WHY_NONE;
        int win = why == CS_WHY_NONE;
        if (win) {
            cnt[t->target]++, fired++;
            if (p.score_budget == CS_SCORE_BUDGET_LANE) left -= t->cycles;
        }
        budget_losers += why == CS_WHY_BUDGET;
        if (win != t->selected) bad++;
        if (t->why != why) bad++;
        /* score_payment: a winner pays its bid (none: 0), a loser 0. */
        cs_u128 pay = win && p.score_payment == CS_SCORE_PAY_BID ? t->bid : 0;
        if (t->payment != pay || t->critical != 0 || t->prio_rate != 0) bad++;
        if (win) { /* the payments total saturates (kind (b): bids of 2^126) */
            cycles += t->cycles;
            paid = paid + pay < paid ? CS_U128_MAX : paid + pay;
        }
    }
    CS_CHECK_EQ_U64(bad, 0);
    /* The budget binds exactly where it is set. */
    CS_CHECK_EQ_U64(budget_losers > 0, budget != UINT64_MAX);
    if (budget != UINT64_MAX) CS_CHECK(cycles <= budget);
    CS_CHECK_EQ_U64(out.fired, fired);
    CS_CHECK_EQ_U64(out.deferred, n - fired);
    CS_CHECK_EQ_U64(out.cycles_used, cycles);
    CS_CHECK(out.payments == paid);
    free(c);
    free(ord);
    free(rr);
    free(cnt);
}

static void test_paths_seed_5150(void)
{
    uint64_t st = 5150;
    check_block(&st, 4000, 40, 0);
    check_block(&st, 3000, 25, 1);
    check_block(&st, 50, 4, 2);
    check_block(&st, 2000, 60, 3);
    check_block(&st, 5000, 300, 4);
    check_block(&st, 4000, 50, 5);
    check_block(&st, 3000, 20, 6);
}

int main(void)
{
    test_large();
    test_paths_seed_5150();
    test_vector3();
    test_round_robin();
    test_weights_quota();
    return cs_test_done("mech_score");
}
