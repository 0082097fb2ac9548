/*
 * test_block_counts.c -- a block's scheduled and cancelled counts
 * (cs_block_stats_t, /blocks.scheduled and /blocks.cancelled) include
 * what its timers' handlers did, in either block order (DESIGN-NOTES
 * N96): under the transactions-first order of CIP-1 rev §3 (fifo,
 * eip1559, ...) the handlers run after the transactions, and the counts
 * used to be read before them.
 *
 * The world, by hand: actor 1 schedules timer A (payload 'A') due at 3 and
 * timer D due at 9 in block 1's transaction.  A's handler, at 3, schedules
 * timer B due at 5 and cancels D.  B's handler does nothing.  So the
 * counts are: block 1 scheduled 2; block 3 scheduled 1, cancelled 1; every
 * other block 0; over the run 3 scheduled = 2 fired + 1 cancelled.  (A
 * timer scheduled and cancelled in the same transaction never lands and is
 * counted in neither, CIP-5 §4.3.)
 */
#include "cs_sched.h"
#include "cs_test.h"

#include <string.h>

static cs_addr_t g_who;
static cs_hash_t g_d; /* timer D's id */

static cs_sched_args_t args(uint64_t due, const char *payload)
{
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = g_who;
    a.kind = CS_KIND_HEIGHT;
    a.height = due;
    a.gas_limit = 50000;
    a.payload = (const uint8_t *)payload;
    a.payload_len = 1;
    return a;
}

static void on_exec(void *user, cs_sched_t *s, const cs_delivery_t *d, uint64_t *uc, uint64_t *ue)
{
    (void)user;
    *uc = 1000;
    *ue = 0;
    if (d->payload_len != 1 || d->payload[0] != 'A') return;
    cs_sched_args_t b = args(5, "B");
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &b, NULL, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_cancel(s, &g_who, &g_d, NULL), CS_OK);
}

static void run(const char *mech)
{
    cs_params_t p;
    cs_params_default(&p);
    p.schedule_cycles = 0;
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, mech, 0), CS_OK);
    if (s == NULL) return;
    cs_sched_hooks_t hk = {NULL, on_exec, NULL, NULL, NULL};
    cs_sched_set_hooks(s, &hk);
    cs_sched_set_env(s, 1, 0);
    g_who = cs_test_addr(0xe7, 1);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &g_who, (cs_u128)1000000000000u), CS_OK);
    uint64_t sched[8] = {0}, canc[8] = {0}, fired = 0;
    for (uint64_t h = 1; h <= 7; h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        if (h == 1) {
            CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
            cs_sched_args_t a = args(3, "A"), d = args(9, "D");
            CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
            CS_CHECK_EQ_U64(cs_sched_schedule(s, &d, &g_d, NULL), CS_OK);
            CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
        }
        cs_block_result_t r;
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        sched[h] = r.st.scheduled;
        canc[h] = r.st.cancelled;
        fired += r.st.fired;
    }
    for (uint64_t h = 1; h <= 7; h++) {
        CS_CHECK_EQ_U64(sched[h], h == 1 ? 2 : h == 3 ? 1 : 0);
        CS_CHECK_EQ_U64(canc[h], h == 3 ? 1 : 0);
    }
    CS_CHECK_EQ_U64(fired, 2);
    cs_sched_free(s);
}

int main(void)
{
    run("fifo");
    run("eip1559");
    run("gba-tip"); /* timers first (N69): the counts were right before */
    return cs_test_done("block_counts");
}
