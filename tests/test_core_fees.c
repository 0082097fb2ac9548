/*
 * test_core_fees.c -- the scheduler's money and fairness queries of actors
 * it does not know (core/cs_fees.h, through the public API): the balance
 * of an index past the ledger is 0, not a read past it; W(actor) under
 * fairness_identity = deployer is the deployer's W -- for a known actor
 * its deployer's, for an index past the actors the index itself -- and an
 * identity with no fires in the window gets 2 - 0 = 2.0 clipped to w_max
 * (CIP-1 rev §8), here 1.5 (issue 29: coverage of core/).
 */
#include "cs_test.h"

#include "cs_fees.h"
#include "cs_sched.h"

int main(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.w_max = 1500000;
    p.fairness_identity = CS_IDENTITY_DEPLOYER;
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, "fifo", 0), CS_OK);
    if (!s) return cs_test_done("core_fees");
    cs_addr_t a = cs_test_addr(0x5e, 1), dep = cs_test_addr(0x5e, 2);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a, 777), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_set_deployer(s, &a, &dep), CS_OK);
    uint32_t ia = UINT32_MAX, id = UINT32_MAX;
    CS_CHECK_EQ_U64(cs_sched_actor_index(s, &a, &ia), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_actor_index(s, &dep, &id), CS_OK);
    CS_CHECK(ia != id);
    CS_CHECK(cs_sched_balance(s, ia) == 777);
    CS_CHECK(cs_sched_balance(s, id) == 0);        /* interned, never funded */
    CS_CHECK(cs_sched_balance(s, 1000000) == 0);   /* past the ledger */
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_weight(s, ia), 1500000);
    CS_CHECK_EQ_U64(cs_sched_weight(s, 1000000), 1500000);
    /* The same under fairness_identity = actor. */
    p.fairness_identity = CS_IDENTITY_ACTOR;
    CS_CHECK_EQ_U64(cs_sched_set_params(s, &p), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_weight(s, ia), 1500000);
    cs_sched_free(s);
    return cs_test_done("core_fees");
}
