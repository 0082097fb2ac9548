/*
 * test_fee_counters.c -- the scheduler's run counters of the CIP-1 rev §6
 * scheduling-time validation (TimerRejectedBelowBasefee and
 * TimerPriorityClampedAtSchedule, cs_sched_counters) and W(actor) of an
 * identity the fairness table does not track yet (cs_sched_weight, CIP-1
 * rev §8: 2.0 clipped to [w_min, w_max]).  Each schedule is placed on a
 * side of the §6 boundaries: max_fee one unit below the charged lane
 * basefee, equal to it; max_priority equal to max_fee - basefee and one
 * above it.
 */
#include "cs_test.h"

#include "cs_fees.h"
#include "cs_sched.h"

static cs_addr_t g_actor;

/* Schedule a HEIGHT timer due at 5 with the fee fields (max_fee, prio) in
 * its own transaction; the schedule's result. */
static int sched_fees(cs_sched_t *s, uint8_t tag, cs_u128 max_fee, cs_u128 prio)
{
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = g_actor;
    a.kind = CS_KIND_HEIGHT;
    a.height = 5;
    uint8_t id[1] = {tag};
    a.timer_id = id;
    a.timer_id_len = 1;
    a.has_fees = 1;
    a.max_fee = max_fee;
    a.max_prio = prio;
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    int rc = cs_sched_schedule(s, &a, NULL, NULL);
    if (rc == CS_OK) CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    else cs_sched_tx_rollback(s);
    return rc;
}

static void test_counters(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.lane_basefee_initial = 2385;
    p.lane_basefee_min = 7;
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, "eip1559", 0), CS_OK);
    if (s == NULL) return;
    g_actor = cs_test_addr(0xfc, 1);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &g_actor, (cs_u128)1000000000000000000ull), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    cs_u128 L = cs_sched_lane_basefee_charged(s);
    CS_CHECK(L == 2385); /* lane_fee_multiplier 1.0 by default */
    uint64_t clamped = 99, below = 99;
    cs_sched_counters(s, &clamped, &below);
    CS_CHECK_EQ_U64(clamped, 0);
    CS_CHECK_EQ_U64(below, 0);

    CS_CHECK_EQ_U64(sched_fees(s, 1, L - 1, 0), CS_EBELOW_BASEFEE); /* rejected: 1 */
    CS_CHECK_EQ_U64(sched_fees(s, 2, L, 0), CS_OK);                 /* at the basefee */
    CS_CHECK_EQ_U64(sched_fees(s, 3, L + 100, 100), CS_OK);         /* prio = headroom */
    cs_sched_counters(s, &clamped, &below);
    CS_CHECK_EQ_U64(clamped, 0);
    CS_CHECK_EQ_U64(below, 1);
    CS_CHECK_EQ_U64(sched_fees(s, 4, L + 100, 101), CS_OK); /* clamped: 1 */
    CS_CHECK_EQ_U64(sched_fees(s, 5, L, 1), CS_OK);         /* clamped: 2 */
    CS_CHECK_EQ_U64(sched_fees(s, 6, 0, 0), CS_EBELOW_BASEFEE); /* rejected: 2 */
    cs_sched_counters(s, &clamped, &below);
    CS_CHECK_EQ_U64(clamped, 2);
    CS_CHECK_EQ_U64(below, 2);

    /* W of the owner, who has not fired: 2.0, the default upper clip */
    uint32_t idx = UINT32_MAX;
    CS_CHECK_EQ_U64(cs_sched_actor_index(s, &g_actor, &idx), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_weight(s, idx), 2000000);
    cs_sched_free(s);

    /* w_max 1.385: an untracked identity is clipped to it */
    p.w_max = 1385000;
    s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, "eip1559", 0), CS_OK);
    if (s == NULL) return;
    CS_CHECK_EQ_U64(cs_sched_actor_index(s, &g_actor, &idx), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_weight(s, idx), 1385000);
    cs_sched_free(s);
}

int main(void)
{
    test_counters();
    return cs_test_done("fee_counters");
}
