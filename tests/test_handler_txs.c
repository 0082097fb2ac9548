/*
 * test_handler_txs.c -- deferred transactions created by timer handlers
 * (CIP-5 §6.2: "within this budget, the handler may create up to 2
 * deferred transactions (at 100,000 cycles each)"; DESIGN-NOTES N67).
 *
 * Under fifo a handler's budget is 550,000 cycles (CIP-5 §6.2).  Three
 * timers due at 3, cycle basefee 7, cell basefee 0; each handler uses U
 * cycles of its own and asks for R deferred transactions:
 *   A: U 300,000, R 3 -> room for (550,000 - 300,000) / 100,000 = 2, the
 *      cap is 2: 2 created, used 500,000, execution fee 3,500,000;
 *   B: U 400,000, R 2 -> room for 1: 1 created, used 500,000;
 *   C: U 100,000, R 1 -> 1 created, used 200,000, fee 1,400,000.
 * The block reports 4 handler transactions.  With handler_deferred_max 0
 * none is created (used 300,000, 400,000, 100,000), and with
 * handler_deferred_cycles 250,000 A gets 1 (used 550,000), B none, C 1
 * (350,000).  Outside a handler cs_sched_defer_tx refuses (CS_EINVAL).
 */
#include "cs_sched.h"
#include "cs_test.h"

#include <string.h>

static void on_exec(void *user, cs_sched_t *s, const cs_delivery_t *d, uint64_t *uc, uint64_t *ue)
{
    (void)user;
    static const uint64_t U[3] = {300000, 400000, 100000};
    static const int R[3] = {3, 2, 1};
    int i = d->payload[0] - 'A';
    *uc = U[i];
    *ue = 0;
    for (int k = 0; k < R[i]; k++) CS_CHECK_EQ_U64(cs_sched_defer_tx(s), CS_OK);
}

/* Used cycles of A, B, C and the block's handler transactions. */
static void run(uint64_t max, uint64_t per, const uint64_t want[3], uint64_t want_txs)
{
    cs_params_t p;
    cs_params_default(&p);
    p.schedule_cycles = 0;
    p.handler_deferred_max = max;
    p.handler_deferred_cycles = per;
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, "fifo", 0), CS_OK);
    cs_sched_hooks_t hk = {NULL, on_exec, NULL, NULL, NULL};
    cs_sched_set_hooks(s, &hk);
    cs_sched_set_env(s, 7, 0);
    cs_addr_t who = cs_test_addr(0xe1, 1);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &who, 1000000000u), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_defer_tx(s), CS_EINVAL);
    cs_block_result_t r;
    uint64_t used[3] = {0, 0, 0};
    cs_u128 fee = 0;
    for (uint64_t h = 1; h <= 3; h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        if (h == 1) {
            CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
            for (int i = 0; i < 3; i++) {
                cs_sched_args_t a;
                memset(&a, 0, sizeof a);
                a.actor = who;
                a.kind = CS_KIND_HEIGHT;
                a.height = 3;
                a.payload = (const uint8_t *)("ABC" + i);
                a.payload_len = 1;
                CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
            }
            CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
        }
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    }
    CS_CHECK_EQ_U64(r.n_deliv, 3);
    for (size_t k = 0; k < r.n_deliv; k++) {
        int i = r.deliv[k].payload_len == 1 ? r.deliv[k].payload[0] - 'A' : 0;
        for (size_t j = 0; j < r.n_rows; j++)
            if (r.rows[j].slot == r.deliv[k].slot && r.rows[j].outcome == CS_OUT_FIRED) used[i] = r.rows[j].used_cycles;
    }
    for (size_t j = 0; j < r.n_rows; j++) fee += r.rows[j].exec_fee;
    for (int i = 0; i < 3; i++) CS_CHECK_EQ_U64(used[i], want[i]);
    CS_CHECK_EQ_U64(r.st.handler_txs, want_txs);
    CS_CHECK(fee == (cs_u128)7u * (want[0] + want[1] + want[2]));
    CS_CHECK_EQ_U64(cs_sched_defer_tx(s), CS_EINVAL);
    cs_sched_free(s);
}

int main(void)
{
    static const uint64_t dflt[3] = {500000, 500000, 200000}, none[3] = {300000, 400000, 100000},
                          big[3] = {550000, 400000, 350000};
    CS_CHECK_EQ_U64(dflt[0] * 7u, 3500000u);
    run(2, 100000, dflt, 4);
    run(0, 100000, none, 0);
    run(2, 250000, big, 2);
    return cs_test_done("handler_txs");
}
