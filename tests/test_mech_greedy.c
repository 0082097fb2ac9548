/*
 * test_mech_greedy.c -- the greedy reference allocator faces the same
 * capacity as the rules it is compared with (DESIGN-NOTES N57): value per
 * cycle descending under the lane budget, the per-fire cap and both
 * quotas (max_fires_per_block, max_fires_per_actor per target).
 */
#include <string.h>

#include "cs_mech.h"
#include "cs_test.h"

static cs_cand_t mk(uint8_t idb, uint32_t target, uint64_t cycles, uint64_t value)
{
    cs_cand_t c;
    memset(&c, 0, sizeof c);
    c.slot = idb;
    c.target = target;
    c.ident = target;
    c.cycles = cycles;
    c.bid = value; /* the true value: the greedy's input */
    c.id.b[CS_ID_LEN - 1] = idb;
    return c;
}

/* Seven timers, by hand.  Densities (value / cycles): t0 9.5, t1 9.0,
 * t2 8.5 (target 1, like t0 and t1), t3 7.25 (over the cap), t4 6.0,
 * t5 5.5, t6 2.0.  Quotas: 2 per actor, 4 a block; budget 10,000 cycles,
 * cap 3,000.  The scan: t0 fires (2,000 used), t1 fires (4,000), t2 loses
 * on the actor quota, t3 over the cap, t4 fires (6,500), t5 (2,600 cycles)
 * fires (9,100): the block quota of 4 is reached, t6 loses on it.  With
 * the quotas off, t2 fires (6,000), t4 (8,500), t5 no longer fits (2,600
 * > 1,500 left: budget) and t6 does (9,500). */
static void test_quotas_by_hand(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.max_cycles_per_fire = 3000;
    p.max_fires_per_actor = 2;
    p.max_fires_per_block = 4;
    cs_cand_t c[7] = {mk(0, 1, 2000, 19000), mk(1, 1, 2000, 18000), mk(2, 1, 2000, 17000), mk(3, 2, 4000, 29000),
                      mk(4, 3, 2500, 15000), mk(5, 4, 2600, 14300), mk(6, 5, 1000, 2000)};
    cs_cand_t d[7];
    memcpy(d, c, sizeof c);
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("greedy"), &p), CS_OK);
    cs_clear_ctx_t ctx = {.p = &p, .height = 10, .budget_cycles = 10000};
    cs_clear_out_t out;
    memset(&out, 0, sizeof out);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 7, &out), CS_OK);
    static const uint8_t sel[7] = {1, 1, 0, 0, 1, 1, 0};
    static const uint8_t why[7] = {CS_WHY_NONE, CS_WHY_NONE, CS_WHY_ACTOR_QUOTA, CS_WHY_OVER_CAP,
                                   CS_WHY_NONE, CS_WHY_NONE, CS_WHY_BLOCK_QUOTA};
    for (int i = 0; i < 7; i++) {
        CS_CHECK_EQ_U64(c[i].selected, sel[i]);
        CS_CHECK_EQ_U64(c[i].why, why[i]);
    }
    CS_CHECK_EQ_U64(out.fired, 4);
    CS_CHECK_EQ_U64(out.cycles_used, 9100);
    /* Quotas off: t0, t1, t2 (6,000), t4 (8,500), t5 loses on the budget,
     * t6 fits (9,500). */
    p.max_fires_per_actor = 0;
    p.max_fires_per_block = 0;
    memset(&out, 0, sizeof out);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, d, 7, &out), CS_OK);
    static const uint8_t sel2[7] = {1, 1, 1, 0, 1, 0, 1};
    for (int i = 0; i < 7; i++) CS_CHECK_EQ_U64(d[i].selected, sel2[i]);
    CS_CHECK_EQ_U64(d[5].why, CS_WHY_BUDGET);
    CS_CHECK_EQ_U64(out.cycles_used, 9500);
    cs_mech_close(&m);
}

int main(void)
{
    test_quotas_by_hand();
    return cs_test_done("mech_greedy");
}
