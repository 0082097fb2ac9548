/*
 * test_mech_eip1559.c -- the CIP-1 revised timer lane: prio_rate =
 * min(max_prio, max_fee - basefee_lane), priority = prio_rate * W, the
 * (timer_id, schedule_block) tie-break, the greedy lane fill with the
 * per-fire cap, the funds check in both lane_basefee_mode values (D3),
 * below-basefee, and the quotas.
 */
#include <stdlib.h>
#include <string.h>

#include "cs_mech.h"
#include "cs_test.h"

static cs_cand_t mk(uint8_t idb, uint32_t target, uint64_t cycles, uint64_t max_fee,
                    uint64_t max_prio, uint64_t weight, uint64_t balance)
{
    cs_cand_t c;
    memset(&c, 0, sizeof c);
    c.slot = idb;
    c.target = target;
    c.ident = target;
    c.cycles = cycles;
    c.max_fee = max_fee;
    c.max_prio = max_prio;
    c.weight = weight;
    c.balance = balance;
    c.id.b[0] = idb;
    return c;
}

static void run(cs_params_t *p, uint64_t budget, cs_cand_t *c, size_t n, cs_clear_out_t *out)
{
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("eip1559"), p), CS_OK);
    cs_clear_ctx_t ctx = {.p = p, .height = 10, .basefee_lane = 100, .basefee_cycle = 7,
                          .budget_cycles = budget};
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, n, out), CS_OK);
    cs_mech_close(&m);
}

/*
 * basefee_lane 100, basefee_cycle 7, budget 600k, cap 250k.
 *   A 0x01 200k: min(30, 150-100) = 30, W 1.0 -> 30e6; pre-charge
 *        200k * (100 + 7 + 30) = 27,400,000 > balance 27,399,999 -> FUNDS
 *   B 0x02 250k (= cap, allowed): min(40, 120-100) = 20, W 2.0 -> 40e6;
 *        250k * (100 + 7 + 20) = 31,750,000 = balance -> ok
 *   C 0x03 100k: max_fee 99 < 100 -> BELOW_BASEFEE, priority 0
 *   D 0x04 260k: min(60, 100) = 60, W 1.5 -> 90e6; 260k > cap -> OVER_CAP
 *   E 0x05 150k: min(15, 30) = 15, W 0 = 1.0 -> 15e6
 *   F 0x06 200k: min(10, 400) = 10 -> 10e6
 *   G 0x07   1 : min(9, 5) = 5 -> 5e6
 * Order D, B, A, E, F, G, C.  additional: D cap; B (350k left); A funds;
 * E (200k left); F exactly fills (0 left); G 1 > 0 -> BUDGET.
 */
static void setup1(cs_cand_t *c)
{
    c[0] = mk(0x01, 1, 200000, 150, 30, 1000000, 27399999);
    c[1] = mk(0x02, 2, 250000, 120, 40, 2000000, 31750000);
    c[2] = mk(0x03, 3, 100000, 99, 50, 1000000, 1u << 30);
    c[3] = mk(0x04, 4, 260000, 200, 60, 1500000, 1u << 30);
    c[4] = mk(0x05, 5, 150000, 130, 15, 0, 1u << 30);
    c[5] = mk(0x06, 6, 200000, 500, 10, 1000000, 1u << 30);
    c[6] = mk(0x07, 7, 1, 105, 9, 1000000, 1u << 30);
}

static void test_fill_funds_cap(void)
{
    cs_params_t p;
    cs_params_default(&p); /* lane_basefee_mode additional, cap 250k */
    cs_cand_t c[7];
    cs_clear_out_t out;
    setup1(c);
    run(&p, 600000, c, 7, &out);
    CS_CHECK(c[0].priority == 30000000 && c[1].priority == 40000000 && c[2].priority == 0 &&
             c[3].priority == 90000000 && c[4].priority == 15000000 &&
             c[5].priority == 10000000 && c[6].priority == 5000000);
    CS_CHECK_EQ_U64(c[3].rank, 0);
    CS_CHECK_EQ_U64(c[1].rank, 1);
    CS_CHECK_EQ_U64(c[0].rank, 2);
    CS_CHECK_EQ_U64(c[4].rank, 3);
    CS_CHECK_EQ_U64(c[5].rank, 4);
    CS_CHECK_EQ_U64(c[6].rank, 5);
    CS_CHECK_EQ_U64(c[2].rank, 6);
    CS_CHECK_EQ_U64(c[3].why, CS_WHY_OVER_CAP);
    CS_CHECK_EQ_U64(c[0].why, CS_WHY_FUNDS);
    CS_CHECK_EQ_U64(c[2].why, CS_WHY_BELOW_BASEFEE);
    CS_CHECK_EQ_U64(c[6].why, CS_WHY_BUDGET);
    CS_CHECK(c[1].selected && c[4].selected && c[5].selected);
    CS_CHECK(c[1].prio_rate == 20 && c[4].prio_rate == 15 && c[5].prio_rate == 10);
    CS_CHECK(c[2].prio_rate == 0);
    CS_CHECK_EQ_U64(out.cycles_used, 600000); /* 250k + 150k + 200k */
    CS_CHECK_EQ_U64(out.fired, 3);
    CS_CHECK_EQ_U64(out.deferred, 4);
    CS_CHECK(out.payments == 0);

    /* replace (D3): A's pre-charge is 200k * (100 + 30) = 26,000,000 <=
     * 27,399,999, so A wins: B (350k left), A (150k), E exactly fills (0),
     * F and G -> BUDGET. */
    p.lane_basefee_mode = CS_LANE_REPLACE;
    setup1(c);
    run(&p, 600000, c, 7, &out);
    CS_CHECK(c[1].selected && c[0].selected && c[4].selected);
    CS_CHECK_EQ_U64(c[5].why, CS_WHY_BUDGET);
    CS_CHECK_EQ_U64(c[6].why, CS_WHY_BUDGET);
    CS_CHECK_EQ_U64(out.cycles_used, 600000); /* 250k + 200k + 150k */
}

/* Equal effective priority: P 0x20 rate 10 * W 2.0 = 20e6 and Q 0x10 rate
 * 20 * W 1.0 = 20e6 tie; timer_id 0x10.. < 0x20.. puts Q first and the
 * 100k budget takes only Q. */
static void test_tie(void)
{
    cs_params_t p;
    cs_params_default(&p);
    cs_cand_t c[2] = {mk(0x20, 1, 100000, 1000, 10, 2000000, 1u << 30),
                      mk(0x10, 2, 100000, 1000, 20, 1000000, 1u << 30)};
    c[0].sched_height = 1; /* the schedule_block key is never reached */
    c[1].sched_height = 9;
    cs_clear_out_t out;
    run(&p, 100000, c, 2, &out);
    CS_CHECK(c[0].priority == c[1].priority);
    CS_CHECK_EQ_U64(c[1].rank, 0);
    CS_CHECK_EQ_U64(c[0].rank, 1);
    CS_CHECK(c[1].selected);
    CS_CHECK_EQ_U64(c[0].why, CS_WHY_BUDGET);
}

/* Quotas (CIP-5 §9.4 caps applied to the lane): per actor 1, per block 2.
 *   X 0x31 t1 rate min(50, 900) = 50 -> first, fires
 *   Y 0x32 t1 rate 40 -> ACTOR_QUOTA
 *   Z 0x33 t2 rate 30 -> fires (2 of 2)
 *   V 0x34 t3 rate 20 -> BLOCK_QUOTA */
static void test_quota(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.max_fires_per_actor = 1;
    p.max_fires_per_block = 2;
    cs_cand_t c[4] = {mk(0x31, 1, 1000, 1000, 50, 0, 1u << 30), mk(0x32, 1, 1000, 1000, 40, 0, 1u << 30),
                      mk(0x33, 2, 1000, 1000, 30, 0, 1u << 30), mk(0x34, 3, 1000, 1000, 20, 0, 1u << 30)};
    cs_clear_out_t out;
    run(&p, 2000000, c, 4, &out);
    CS_CHECK(c[0].selected && c[2].selected);
    CS_CHECK_EQ_U64(c[1].why, CS_WHY_ACTOR_QUOTA);
    CS_CHECK_EQ_U64(c[3].why, CS_WHY_BLOCK_QUOTA);
    CS_CHECK_EQ_U64(out.cycles_used, 2000);
}

/* Reference order for the large instance: priority desc, timer_id asc. */
static const cs_cand_t *ref_base;
static int ref_cmp(const void *x, const void *y)
{
    const cs_cand_t *a = &ref_base[*(const uint32_t *)x], *b = &ref_base[*(const uint32_t *)y];
    if (a->priority != b->priority) return a->priority > b->priority ? -1 : 1;
    return memcmp(a->id.b, b->id.b, CS_ID_LEN);
}

/* 5,000 candidates with 6 rates x 3 weights (long runs of equal priority,
 * the radix path with the id-prefix tie array, and ids sharing 8-byte
 * prefixes): ranks equal an exact qsort. */
static void test_large_order(void)
{
    enum { N = 5000 };
    cs_params_t p;
    cs_params_default(&p);
    cs_cand_t *c = calloc(N, sizeof *c);
    uint32_t *ord = calloc(N, sizeof *ord);
    uint64_t st = 7;
    for (uint32_t i = 0; i < N; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = st >> 20;
        c[i] = mk(0, (uint32_t)(r % 50), 1000, 100 + r % 6 * 10, 1000, 1000000 + (r >> 8) % 3 * 500000,
                  (cs_u128)1 << 60);
        for (int b = 0; b < 32; b++) c[i].id.b[b] = (uint8_t)(b < 8 ? (r >> 12) % 4 : (st >> b) ^ i);
    }
    cs_clear_out_t out;
    run(&p, 1000000, c, N, &out);
    for (uint32_t i = 0; i < N; i++) ord[i] = i;
    ref_base = c;
    qsort(ord, N, sizeof *ord, ref_cmp);
    long bad = 0;
    for (uint32_t k = 0; k < N; k++) bad += c[ord[k]].rank != k;
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(out.fired, 1000); /* 1,000-cycle timers, first 1,000 in order */
    free(c);
    free(ord);
}

/* A max_fee equal to the lane basefee (100) is valid (CIP-1 rev §6:
 * max_fee >= basefee): its tip is min(max_prio, 0) = 0, priority 0, and
 * it fires when the lane has room; one unit below loses BELOW_BASEFEE.
 * Pre-charge 1,000 x (7 + 100 + 0) = 107,000 is exactly the balance. */
static void test_fee_at_basefee(void)
{
    cs_params_t p;
    cs_params_default(&p);
    cs_cand_t c[2] = {mk(0x01, 1, 1000, 100, 5, 1000000, 107000), mk(0x02, 2, 1000, 99, 5, 1000000, 1u << 30)};
    cs_clear_out_t out;
    memset(&out, 0, sizeof out);
    run(&p, 600000, c, 2, &out);
    CS_CHECK(c[0].selected && c[0].why == CS_WHY_NONE && c[0].prio_rate == 0 && c[0].priority == 0);
    CS_CHECK(!c[1].selected && c[1].why == CS_WHY_BELOW_BASEFEE);
    CS_CHECK_EQ_U64(out.fired, 1);
}

int main(void)
{
    test_large_order();
    test_fill_funds_cap();
    test_tie();
    test_fee_at_basefee();
    test_quota();
    return cs_test_done("mech_eip1559");
}
