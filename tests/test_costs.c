/*
 * test_costs.c -- schedule and cancel costs (CIP-5 §6.1, DESIGN §2.5,
 * DESIGN-NOTES N58): debited from the caller when the call is made, at the
 * CIP-3 basefees, reported per block and per actor; and every fire pays
 * the CIP-3 execution fees under a rule without fees of its own.
 */
#include "cs_ledger.h"
#include "cs_sched.h"
#include "cs_test.h"

#include <string.h>

static cs_addr_t addr(uint8_t tag)
{
    cs_addr_t a;
    memset(a.b, 0, sizeof a.b);
    a.b[0] = 0xc0;
    a.b[19] = tag;
    return a;
}

static cs_sched_args_t args(uint8_t actor, uint64_t height, const char *payload)
{
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = addr(actor);
    a.kind = CS_KIND_HEIGHT;
    a.height = height;
    a.payload = (const uint8_t *)payload;
    a.payload_len = payload ? strlen(payload) : 0;
    a.gas_limit = 40000;
    a.max_cells = 64;
    return a;
}

/*
 * A storm at block 1 under `mech`: n = 237 schedules (one with a 41-byte
 * payload) and m = 113 cancels by actor 7, cycle basefee 1,237 and cell
 * basefee 3.  By hand: schedules 237 x 1,000 x 1,237 + 41 x 3 =
 * 293,169,123; cancels 113 x 500 x 1,237 = 69,890,500.  The actor's
 * balance falls by exactly their sum (bids 0, nothing fires at block 1),
 * the block reports each, and so does the actor.  An actor whose balance
 * is one unit short of a schedule's cost is refused with
 * CS_EINSUFFICIENT_FUNDS and pays nothing.
 */
static void storm(const char *mech)
{
    enum { N = 237, M = 113 };
    cs_params_t p;
    cs_params_default(&p);
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, mech, 0), CS_OK);
    cs_addr_t who = addr(7), poor = addr(8);
    const cs_u128 fund = (cs_u128)5000000000000ull;
    CS_CHECK_EQ_U64(cs_sched_fund(s, &who, fund), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &poor, 1000u * 1237u - 1u), CS_OK);
    cs_sched_set_env(s, 1237, 3);
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    cs_hash_t ids[N];
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    for (int i = 0; i < N; i++) {
        cs_sched_args_t a = args(7, 50 + (uint64_t)i % 9, i == 17 ? "forty-one bytes of payload, metered cells" : NULL);
        CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, &ids[i], NULL), CS_OK);
    }
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    for (int i = 0; i < M; i++) CS_CHECK_EQ_U64(cs_sched_cancel(s, &who, &ids[2 * i], NULL), CS_OK);
    cs_sched_args_t b = args(8, 60, NULL);
    cs_hash_t id8;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &b, &id8, NULL), CS_EINSUFFICIENT_FUNDS);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);

    const cs_u128 sched = (cs_u128)N * 1000u * 1237u + 41u * 3u, cancel = (cs_u128)M * 500u * 1237u;
    CS_CHECK(sched == 293169123u && cancel == 69890500u);
    uint32_t iw, ip;
    CS_CHECK_EQ_U64(cs_sched_actor_index(s, &who, &iw), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_actor_index(s, &poor, &ip), CS_OK);
    CS_CHECK(cs_sched_balance(s, iw) == fund - sched - cancel);
    CS_CHECK(cs_sched_balance(s, ip) == 1000u * 1237u - 1u);
    CS_CHECK(r.st.sched_cost == sched);
    CS_CHECK(r.st.cancel_cost == cancel);
    cs_u128 as, ac;
    cs_sched_actor_costs(s, iw, &as, &ac);
    CS_CHECK(as == sched && ac == cancel);
    cs_sched_actor_costs(s, ip, &as, &ac);
    CS_CHECK(as == 0 && ac == 0);
    /* The costs are burned: conservation holds. */
    char msg[256];
    CS_CHECK_EQ_U64(cs_sched_check_invariants(s, msg, sizeof msg), CS_OK);
    CS_CHECK(cs_sched_ledger(s)->tot.burned == sched + cancel);
    cs_sched_free(s);
}

/*
 * Execution fees under a rule with no fees of its own (fifo-capped): a
 * timer of gas limit 40,000 and 64 cells, due at 3, fires; the handler
 * reports 17,311 cycles and 23 cells.  It pays 17,311 x 1,237 + 23 x 3 =
 * 21,413,776 burned, refunded the rest of its 40,000 x 1,237 + 64 x 3
 * pre-charge.  With execution_fees = none it pays nothing.
 */
static void on_exec(void *user, cs_sched_t *s, const cs_delivery_t *d, uint64_t *uc, uint64_t *ue)
{
    (void)user;
    (void)s;
    (void)d;
    *uc = 17311;
    *ue = 23;
}

static void exec_fee(int none)
{
    cs_params_t p;
    cs_params_default(&p);
    p.schedule_cycles = 0; /* the fire alone */
    if (none) p.execution_fees = CS_EXEC_FEES_NONE;
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, "fifo-capped", 0), CS_OK);
    cs_sched_hooks_t hk = {NULL, on_exec, NULL, NULL, NULL};
    cs_sched_set_hooks(s, &hk);
    cs_addr_t who = addr(9);
    const cs_u128 fund = 100000000u;
    CS_CHECK_EQ_U64(cs_sched_fund(s, &who, fund), CS_OK);
    cs_sched_set_env(s, 1237, 3);
    cs_block_result_t r;
    uint64_t fee = 0;
    for (uint64_t h = 1; h <= 3; h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        if (h == 1) {
            cs_sched_args_t a = args(9, 3, NULL);
            CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
            CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
            CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
        }
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        for (size_t i = 0; i < r.n_rows; i++)
            if (r.rows[i].outcome == CS_OUT_FIRED) fee += (uint64_t)r.rows[i].exec_fee;
    }
    uint64_t want = none ? 0 : 17311u * 1237u + 23u * 3u;
    CS_CHECK_EQ_U64(want, none ? 0 : 21413776u);
    CS_CHECK_EQ_U64(fee, want);
    CS_CHECK_EQ_U64((uint64_t)r.st.exec_fee, want);
    uint32_t iw;
    CS_CHECK_EQ_U64(cs_sched_actor_index(s, &who, &iw), CS_OK);
    CS_CHECK(cs_sched_balance(s, iw) == fund - want);
    cs_sched_free(s);
}

int main(void)
{
    storm("fifo-capped");
    storm("bias-vcg");
    storm("eip1559");
    exec_fee(0);
    exec_fee(1);
    return cs_test_done("costs");
}
