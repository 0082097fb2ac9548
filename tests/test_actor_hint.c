/*
 * test_actor_hint.c -- cs_sched_args_t.actor_hint / payer_hint (issue 26):
 * a hint only skips the actor-map search, so every schedule must land on
 * the owner's interned index, and charge the fee payer's account, whatever
 * the hint says: right, another actor's index, past the actors, or given
 * for an address not interned yet.  Expected indices come from
 * cs_sched_actor_index (the map); the payer from the balances a fire moves.
 */
#include <stdio.h>
#include <string.h>

#include "cs_fees.h"
#include "cs_sched.h"
#include "cs_test.h"

#define NACT 4

/* One timer of actor `who` (payer: NULL = itself) due at h + 1 with the
 * given hints, in its own transaction; returns its record slot. */
static uint32_t sched_one(cs_sched_t *s, uint64_t h, const cs_addr_t *who, const cs_addr_t *payer,
                          uint32_t actor_hint, uint32_t payer_hint)
{
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = *who;
    a.fee_payer = payer;
    a.kind = CS_KIND_HEIGHT;
    a.height = h + 1;
    a.gas_limit = 21000;
    a.has_fees = 1;
    a.max_fee = 5000;
    a.max_prio = 100;
    a.actor_hint = actor_hint;
    a.payer_hint = payer_hint;
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    return cs_sched_tx_slot(s, 0);
}

int main(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.lane_timer_cycles = 21000 * 8;
    p.lane_basefee_initial = 1000;
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, "eip1559", 0), CS_OK);
    cs_addr_t who[NACT + 1];
    uint32_t idx[NACT];
    for (int k = 0; k <= NACT; k++) who[k] = cs_test_addr(0x41, (uint8_t)(k + 1));
    for (int k = 0; k < NACT; k++) {
        CS_CHECK_EQ_U64(cs_sched_fund(s, &who[k], (cs_u128)1 << 70), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_actor_index(s, &who[k], &idx[k]), CS_OK);
    }
    /* Owner hints: right, another's, past the end (n + 1 + 5), none; then a
     * new address (who[NACT]) hinted at actor 0's index: it must be
     * interned as a new actor, index NACT (after the four funded). */
    const struct {
        int owner;
        uint32_t hint;
    } own[] = {{2, idx[2] + 1}, {2, idx[1] + 1}, {2, NACT + 6}, {2, 0}, {0, idx[0] + 1}, {NACT, idx[0] + 1}};
    uint64_t h = 1;
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++, h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        uint32_t slot = sched_one(s, h, &who[own[i].owner], NULL, own[i].hint, 0);
        CS_CHECK(slot != CS_NIL);
        uint32_t want = NACT; /* the new address's index */
        if (own[i].owner < NACT) want = idx[own[i].owner];
        if (slot != CS_NIL) CS_CHECK_EQ_U64(cs_sched_record(s, slot)->actor, want);
        cs_block_result_t r;
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    }
    uint32_t fresh;
    CS_CHECK_EQ_U64(cs_sched_actor_index(s, &who[NACT], &fresh), CS_OK);
    CS_CHECK_EQ_U64(fresh, NACT);
    /* Payer hints: actor 1's timer paid by actor 3, the payer hinted right
     * and wrong (actor 1's own index, 0 = none): the fire must charge actor
     * 3 and leave actor 1's balance as it was. */
    const uint32_t phints[3] = {idx[3] + 1, idx[1] + 1, 0};
    for (int i = 0; i < 3; i++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        CS_CHECK(sched_one(s, h, &who[1], &who[3], idx[1] + 1, phints[i]) != CS_NIL);
        cs_block_result_t r;
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        h++;
        cs_u128 b1 = cs_sched_balance(s, idx[1]), b3 = cs_sched_balance(s, idx[3]);
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        CS_CHECK_EQ_U64(r.st.fired, 1);
        CS_CHECK(cs_sched_balance(s, idx[1]) == b1);
        CS_CHECK(cs_sched_balance(s, idx[3]) < b3);
        h++;
    }
    cs_sched_free(s);
    return cs_test_done("actor_hint");
}
