/* test_min_gas.c -- MIN_GAS_LIMIT_PER_TIMER (params.min_gas_limit_per_timer,
 * CIP-5 CN §13, §15 "gas suicide"): a schedule whose gas limit in force is
 * below it is refused with CS_EGAS_LIMIT_TOO_LOW and leaves nothing staged;
 * at or above it the schedule lands.  The gas limit in force is the stated
 * one, else the mechanism's default budget (CIP-5 §6.2 550,000 under fifo,
 * CIP-1 rev §10 250,000 under the auctions).  0 turns the check off. */
#include "cs_sched.h"
#include "cs_test.h"

#include <string.h>

static int sched(cs_sched_t *s, uint64_t gas_limit, uint64_t h)
{
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor.b[0] = 0x3c;
    a.kind = CS_KIND_HEIGHT;
    a.height = h;
    a.gas_limit = gas_limit;
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    int rc = cs_sched_schedule(s, &a, NULL, NULL);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    return rc;
}

static void run(const char *mech, uint64_t dflt)
{
    cs_params_t p;
    cs_params_default(&p);
    CS_CHECK_EQ_U64(p.min_gas_limit_per_timer, 0);
    p.min_gas_limit_per_timer = 30000;
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, mech, 0), CS_OK);
    if (!s) return;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(sched(s, 29999, 5), CS_EGAS_LIMIT_TOO_LOW);
    CS_CHECK_EQ_U64(sched(s, 1, 5), CS_EGAS_LIMIT_TOO_LOW);
    CS_CHECK_EQ_U64(sched(s, 30000, 5), CS_OK);
    CS_CHECK_EQ_U64(sched(s, 0, 5), CS_OK); /* the default budget, above 30,000 */
    CS_CHECK_EQ_U64(cs_sched_pending(s), 2);
    /* a minimum above the default budget refuses the default */
    p.min_gas_limit_per_timer = dflt + 1;
    CS_CHECK_EQ_U64(cs_sched_set_params(s, &p), CS_OK);
    CS_CHECK_EQ_U64(sched(s, 0, 6), CS_EGAS_LIMIT_TOO_LOW);
    p.min_gas_limit_per_timer = dflt;
    CS_CHECK_EQ_U64(cs_sched_set_params(s, &p), CS_OK);
    CS_CHECK_EQ_U64(sched(s, 0, 6), CS_OK);
    /* 0 = no minimum */
    p.min_gas_limit_per_timer = 0;
    CS_CHECK_EQ_U64(cs_sched_set_params(s, &p), CS_OK);
    CS_CHECK_EQ_U64(sched(s, 1, 6), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_pending(s), 4);
    cs_sched_free(s);
}

int main(void)
{
    run("fifo", 550000);
    run("bias-vcg", 250000);
    run("eip1559", 250000);
    CS_CHECK_STR(cs_strerror(CS_EGAS_LIMIT_TOO_LOW), "gas limit below MIN_GAS_LIMIT_PER_TIMER (CIP-5 CN §13, §15)");
    return cs_test_done("min_gas");
}
