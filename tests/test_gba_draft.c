/*
 * test_gba_draft.c -- gba-tip's funds rule as the first CIP-1 draft gives
 * it (§4.1 "Metering and Economics", DESIGN D10, DESIGN-NOTES N60): the
 * GBA's price for the cycles and cells a fire uses is charged at
 * execution, one funds rule in clearing and in charging, and a timer its
 * owner cannot pay is deferred, never destroyed; gba_tip_charge = cip1-rev
 * is the revised text's max_cost pre-charge (CIP-1 rev §3 steps 4, 8);
 * the price base is the cycle basefee with no lane basefee (gba_tip_lane =
 * none, N65), cip1-rev charging the revised lane basefee on top; a block's
 * timers run before its transactions (gba_tip_order = draft, N69),
 * cip1-rev after them.
 *
 * The world, by hand: cycle basefee 1,000, cell basefee 10, lane basefee
 * 0 (initial and floor 0, so the empty blocks keep it 0; lane mode
 * additional), schedule cost 0.  Every timer has gas limit 100,000 and
 * states max_fee 3,000 and max_priority_fee 500, so its tip is
 * min(500, 3,000 - 0) = 500 and its price per cycle 1,000 + 0 + 500 =
 * 1,500.  Its handler uses 60,000 cycles and 20 cells (the usage and
 * execute hooks agree), so one fire costs
 *     60,000 x 1,500 + 20 x 10 = 90,000,200
 * of which 60,000 x 1,000 + 20 x 10 = 60,000,200 is the execution fee
 * (burned) and 60,000 x 500 = 30,000,000 the tip.
 */
#include "cs_fees.h"
#include "cs_mech_bias.h"
#include "cs_sched.h"
#include "cs_test.h"

#include <string.h>

enum { USE_CYC = 60000, USE_CELLS = 20, GAS = 100000 };
#define FIRE_COST ((cs_u128)USE_CYC * 1500u + (cs_u128)USE_CELLS * 10u)

static cs_addr_t addr(uint8_t tag) { return cs_test_addr(0xd1, tag); }

static void on_exec(void *user, cs_sched_t *s, const cs_delivery_t *d, uint64_t *uc, uint64_t *ue)
{
    (void)user;
    (void)s;
    (void)d;
    *uc = USE_CYC;
    *ue = USE_CELLS;
}

static void on_usage(void *user, const cs_sched_t *s, uint32_t slot, uint64_t *cyc, uint64_t *cells)
{
    (void)user;
    (void)s;
    (void)slot;
    *cyc = USE_CYC;
    *cells = USE_CELLS;
}

/* The world of the file comment: lane basefee `lane` (initial and floor),
 * gba_tip_charge cip1-rev when rev_charge, gba_tip_lane cip1-rev when
 * rev_lane. */
static cs_sched_t *world_p(const cs_params_t *p)
{
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, p, "gba-tip", 0), CS_OK);
    cs_sched_hooks_t hk = {NULL, on_exec, NULL, on_usage, NULL};
    cs_sched_set_hooks(s, &hk);
    cs_sched_set_env(s, 1000, 10);
    return s;
}

static cs_sched_t *world(int rev_charge, int rev_lane, uint64_t lane)
{
    cs_params_t p;
    cs_params_default(&p);
    p.schedule_cycles = 0;
    p.lane_basefee_initial = lane;
    p.lane_basefee_min = lane;
    if (rev_charge) p.gba_tip_charge = CS_GBA_CHARGE_REV;
    if (rev_lane) p.gba_tip_lane = CS_GBA_LANE_REV;
    return world_p(&p);
}

/* The arguments of one timer of actor `tag` due at `due` with max_cells
 * `cells`, max_fee `max_fee` and max_priority_fee 500. */
static cs_sched_args_t targs(uint8_t tag, uint64_t due, uint64_t cells, uint64_t max_fee)
{
    /* Every other field zero. */
    return (cs_sched_args_t){.actor = addr(tag), .kind = CS_KIND_HEIGHT, .height = due, .gas_limit = GAS,
                             .max_cells = cells, .has_fees = 1, .max_fee = max_fee, .max_prio = 500};
}

/* Schedule `n` timers of actor `tag` due at `due` (in block 1's
 * transaction) with max_cells `cells` and max_fee `max_fee`. */
static void sched_fee(cs_sched_t *s, uint8_t tag, int n, uint64_t due, uint64_t cells, uint64_t max_fee)
{
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    for (int i = 0; i < n; i++) {
        cs_sched_args_t a = targs(tag, due, cells, max_fee);
        CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
    }
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
}

static void sched(cs_sched_t *s, uint8_t tag, int n, uint64_t due, uint64_t cells)
{
    sched_fee(s, tag, n, due, cells, 3000);
}

static cs_u128 balance_of(cs_sched_t *s, uint8_t tag)
{
    cs_addr_t a = addr(tag);
    uint32_t i;
    CS_CHECK_EQ_U64(cs_sched_actor_index(s, &a, &i), CS_OK);
    return cs_sched_balance(s, i);
}

/*
 * Funds for 1.5 fires a block: actor 1 holds 1.5 x 90,000,200 =
 * 135,000,300 and has two timers due at 3 (max_cells 64).  Each passes the
 * clearing's funds test alone; the first in order fires and pays
 * 90,000,200, the second finds 45,000,100 left and is deferred (why
 * FUNDS), none destroyed.  At 4 it is deferred again (45,000,100 <
 * 90,000,200), still not destroyed.  Funded with 45,000,100 more before 5,
 * it fires there and the balance ends at exactly 0.
 * Under cip1-rev the pre-charge is max_cost = 100,000 x 1,500 + 64 x 10 =
 * 150,000,640 > 135,000,300: both are destroyed at classification (CIP-1
 * rev §3 step 4), the old reading.
 */
static void one_and_a_half(int rev)
{
    cs_sched_t *s = world(rev, 0, 0);
    cs_addr_t a1 = addr(1);
    const cs_u128 fund = FIRE_COST * 3u / 2u;
    CS_CHECK(fund == (cs_u128)135000300u);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a1, fund), CS_OK);
    cs_block_result_t r;
    uint64_t fired[6] = {0}, deferred[6] = {0}, insuff[6] = {0}, funds_why[6] = {0};
    for (uint64_t h = 1; h <= 5; h++) {
        if (h == 5) CS_CHECK_EQ_U64(cs_sched_fund(s, &a1, (cs_u128)45000100u), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        if (h == 1) sched(s, 1, 2, 3, 64);
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        fired[h] = r.st.fired;
        deferred[h] = r.st.deferred;
        insuff[h] = r.st.insufficient;
        for (size_t i = 0; i < r.n_rows; i++)
            if (r.rows[i].outcome == CS_OUT_DEFERRED && r.rows[i].why == CS_WHY_FUNDS) funds_why[h]++;
        if (!rev && h == 3) {
            /* The fired row's parts: execution fee, tip, no lane burn. */
            for (size_t i = 0; i < r.n_rows; i++) {
                if (r.rows[i].outcome != CS_OUT_FIRED) continue;
                CS_CHECK(r.rows[i].exec_fee == (cs_u128)60000200u);
                CS_CHECK(r.rows[i].tip == (cs_u128)30000000u);
                CS_CHECK(r.rows[i].lane_burn == 0);
            }
            CS_CHECK(balance_of(s, 1) == (cs_u128)45000100u);
        }
    }
    if (!rev) {
        CS_CHECK_EQ_U64(fired[3], 1);
        CS_CHECK_EQ_U64(deferred[3], 1);
        CS_CHECK_EQ_U64(funds_why[3], 1);
        CS_CHECK_EQ_U64(fired[4], 0);
        CS_CHECK_EQ_U64(deferred[4], 1);
        CS_CHECK_EQ_U64(funds_why[4], 1);
        CS_CHECK_EQ_U64(fired[5], 1);
        CS_CHECK_EQ_U64(insuff[3] + insuff[4] + insuff[5], 0);
        CS_CHECK(balance_of(s, 1) == 0);
    } else {
        CS_CHECK_EQ_U64(fired[3] + fired[4] + fired[5], 0);
        CS_CHECK_EQ_U64(insuff[3], 2);
        CS_CHECK(balance_of(s, 1) == fund + 45000100u);
    }
    char msg[256];
    CS_CHECK_EQ_U64(cs_sched_check_invariants(s, msg, sizeof msg), CS_OK);
    cs_sched_free(s);
}

/*
 * Whatever its cells limit: actor 2's timer states max_cells 10^9 (a
 * max_cost of 100,000 x 1,500 + 10^10 = 10,150,000,000) and holds exactly
 * 90,000,200: it fires at 3 and ends at 0.  Actor 3's identical timer
 * holds one unit less, 90,000,199: deferred (FUNDS) at 3, not destroyed.
 */
static void cells_limit(void)
{
    cs_sched_t *s = world(0, 0, 0);
    cs_addr_t a2 = addr(2), a3 = addr(3);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a2, FIRE_COST), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a3, FIRE_COST - 1u), CS_OK);
    cs_block_result_t r;
    for (uint64_t h = 1; h <= 3; h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        if (h == 1) {
            sched(s, 2, 1, 3, 1000000000u);
            sched(s, 3, 1, 3, 1000000000u);
        }
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    }
    CS_CHECK_EQ_U64(r.st.fired, 1);
    CS_CHECK_EQ_U64(r.st.deferred, 1);
    CS_CHECK_EQ_U64(r.st.insufficient, 0);
    CS_CHECK(balance_of(s, 2) == 0);
    CS_CHECK(balance_of(s, 3) == FIRE_COST - 1u);
    int seen = 0;
    for (size_t i = 0; i < r.n_rows; i++)
        if (r.rows[i].outcome == CS_OUT_DEFERRED) seen += r.rows[i].why == CS_WHY_FUNDS;
    CS_CHECK_EQ_U64(seen, 1);
    cs_sched_free(s);
}

/*
 * The price base (gba_tip_lane, N65).  Lane basefee pinned at 400 (initial
 * and floor), one timer of actor 4 due at 3 with max_fee 1,200 and
 * max_priority_fee 500, funded amply:
 *   none (the draft): tip = min(500, 1,200 - 1,000) = 200, price 1,000 +
 *     200 = 1,200 a cycle: paid 60,000 x 1,200 + 20 x 10 = 72,000,200 =
 *     execution fee 60,000,200 + tip 12,000,000, no lane burn, and
 *     /blocks' basefee_lane 0;
 *   cip1-rev: tip = min(500, 1,200 - 400) = 500, price 1,000 + 400 + 500 =
 *     1,900: paid 114,000,200 = 60,000,200 + lane burn 24,000,000 + tip
 *     30,000,000, basefee_lane 400.
 */
static void price_base(int rev)
{
    cs_sched_t *s = world(0, rev, 400);
    CS_CHECK_EQ_U64(cs_sched_lane_is_cycle(s), !rev);
    cs_addr_t a4 = addr(4);
    const cs_u128 fund = 1000000000u;
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a4, fund), CS_OK);
    cs_block_result_t r;
    for (uint64_t h = 1; h <= 3; h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        if (h == 1) sched_fee(s, 4, 1, 3, 64, 1200);
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    }
    CS_CHECK_EQ_U64(r.st.fired, 1);
    CS_CHECK(r.st.basefee_lane == (rev ? 400u : 0u));
    const cs_u128 paid = rev ? 114000200u : 72000200u;
    CS_CHECK(balance_of(s, 4) == fund - paid);
    CS_CHECK(r.st.exec_fee == 60000200u);
    CS_CHECK(r.st.lane_burn == (rev ? 24000000u : 0u));
    CS_CHECK(r.st.tips == (rev ? 30000000u : 12000000u));
    cs_sched_free(s);
}

/* One transaction: schedule one timer of actor `tag` due at `due` (id in
 * *id when not NULL) or, with cancel, cancel *id; the call's result. */
static int one_tx(cs_sched_t *s, uint8_t tag, uint64_t due, int cancel, cs_hash_t *id)
{
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    cs_addr_t who = addr(tag);
    cs_sched_args_t a = targs(tag, due, 64, 3000);
    int rc = cancel ? cs_sched_cancel(s, &who, id, NULL) : cs_sched_schedule(s, &a, id, NULL);
    if (rc == CS_OK) CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    else cs_sched_tx_rollback(s);
    return rc;
}

/*
 * Timers before the block's transactions (gba_tip_order, DESIGN-NOTES N69;
 * CIP-1 first draft §3: "Deliver Timers & Build Priority Queue", "Execute
 * Prioritized Timers", then "Execute Transactions").  Schedule cost 1,000
 * cycles x 1,000 = 1,000,000; cancel 500 x 1,000 = 500,000.
 * Actor 5 holds FIRE_COST + 1,500,000 = 91,500,200; at 1 it schedules A
 * due at 3 (90,500,200 left).  At 3 a transaction of actor 5 schedules B:
 *   draft: A fires first and pays 90,000,200 (500,000 left); B's schedule
 *     then finds 500,000 < 1,000,000: CS_EINSUFFICIENT_FUNDS, nothing
 *     charged;
 *   cip1-rev: B's schedule pays 1,000,000 first (89,500,200 left), then A
 *     is deferred for funds (89,500,200 < 90,000,200).
 * Actor 6 (10^9) schedules C due at 3 at 1 and cancels it at 3:
 *   draft: C has fired (FIRE_COST) and the cancel finds no timer
 *     (CS_ETIMER_NOT_FOUND, not charged): 10^9 - 1,000,000 - 90,000,200;
 *   cip1-rev: the cancel (500,000) removes C before the timers run:
 *     10^9 - 1,000,000 - 500,000, nothing fires at 3.
 * explicit: the driver calls cs_sched_timers before the transactions, as
 * the engine does, and A's price is already paid then; otherwise the
 * first tx_begin of block 3 runs the timers.
 */
static void order(int rev, int explicit)
{
    cs_params_t p;
    cs_params_default(&p);
    p.lane_basefee_initial = 0;
    p.lane_basefee_min = 0;
    if (rev) p.gba_tip_order = CS_GBA_ORDER_REV;
    cs_sched_t *s = world_p(&p);
    cs_addr_t a5 = addr(5), a6 = addr(6);
    const cs_u128 f6 = 1000000000u;
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a5, FIRE_COST + 1500000u), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a6, f6), CS_OK);
    cs_block_result_t r;
    cs_hash_t idc;
    for (uint64_t h = 1; h <= 3; h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        if (h == 1) {
            CS_CHECK_EQ_U64(one_tx(s, 5, 3, 0, NULL), CS_OK);
            CS_CHECK_EQ_U64(one_tx(s, 6, 3, 0, &idc), CS_OK);
        }
        if (h == 3) {
            CS_CHECK_EQ_U64(cs_sched_timers_first(s), !rev);
            if (explicit) {
                CS_CHECK_EQ_U64(cs_sched_timers(s), CS_OK);
                CS_CHECK(balance_of(s, 5) == (rev ? FIRE_COST + 500000u : (cs_u128)500000u));
            }
            CS_CHECK_EQ_U64(one_tx(s, 5, 9, 0, NULL), rev ? CS_OK : CS_EINSUFFICIENT_FUNDS);
            CS_CHECK_EQ_U64(one_tx(s, 6, 0, 1, &idc), rev ? CS_OK : CS_ETIMER_NOT_FOUND);
        }
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    }
    CS_CHECK_EQ_U64(r.st.fired, rev ? 0 : 2);
    CS_CHECK_EQ_U64(r.st.deferred, rev ? 1 : 0);
    CS_CHECK_EQ_U64(r.st.cancelled, rev ? 1 : 0);
    CS_CHECK(balance_of(s, 5) == (rev ? (cs_u128)89500200u : (cs_u128)500000u));
    CS_CHECK(balance_of(s, 6) == f6 - 1000000u - (rev ? (cs_u128)500000u : FIRE_COST));
    char msg[256];
    CS_CHECK_EQ_U64(cs_sched_check_invariants(s, msg, sizeof msg), CS_OK);
    cs_sched_free(s);
}

/*
 * A watch timer under the two orders (N69): actor 7 registers a watch on
 * key "k7" at 1; a transaction at 3 writes the key.  cip1-rev: the write
 * is in ModifiedKeySet(3) when the timers run, so the watch fires at 3
 * (due 3, delay 0); draft: the timers of 3 ran before the write, so it
 * fires at 4, due 4 (its trigger height), delay 0, paying one fire's
 * price (FIRE_COST).
 */
static void watch_order(int rev)
{
    cs_params_t p;
    cs_params_default(&p);
    p.schedule_cycles = 0;
    p.lane_basefee_initial = 0;
    p.lane_basefee_min = 0;
    if (rev) p.gba_tip_order = CS_GBA_ORDER_REV;
    cs_sched_t *s = world_p(&p);
    cs_addr_t a7 = addr(7);
    const cs_u128 fund = 1000000000u;
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a7, fund), CS_OK);
    static const uint8_t key[] = "k7";
    const uint8_t *wk[1] = {key};
    size_t wl[1] = {2};
    cs_block_result_t r;
    uint64_t fired_at = 0, due = 0;
    for (uint64_t h = 1; h <= 5; h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
        if (h == 1) {
            cs_sched_args_t a = targs(7, 0, 64, 3000);
            a.kind = CS_KIND_WATCH;
            a.watch_keys = wk;
            a.watch_key_lens = wl;
            a.n_watch = 1;
            CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
        }
        if (h == 3) CS_CHECK_EQ_U64(cs_sched_write_key(s, key, 2), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        for (size_t i = 0; i < r.n_rows; i++)
            if (r.rows[i].outcome == CS_OUT_FIRED) {
                fired_at = h;
                due = r.rows[i].due_height;
            }
    }
    CS_CHECK_EQ_U64(fired_at, rev ? 3 : 4);
    CS_CHECK_EQ_U64(due, rev ? 3 : 4);
    CS_CHECK(balance_of(s, 7) == fund - FIRE_COST);
    cs_sched_free(s);
}

/*
 * The weights a gba-tip run records are the rule's (DESIGN-NOTES N95).
 * Weight epoch 1, so the EMA weight is recomputed after every block.
 * Actors 1 and 2 each have one timer due at 3 (funded for ten fires); both
 * fire at 3.  Neither has fired before, so each enters the clearing with
 * W = clip(2 - 0, 1, 2) = 2.0 (CIP-1 rev §8), clamped to gba-tip's
 * [0.5, 2]: the fire rows carry 2,000,000.  After block 3 each identity's
 * EMA weight is (first draft §3 "Priority Weight"): T = 500 / 500 = 1,
 * Q = 0, L = 0 (fired when due), U = 100,000 / 2,000,000 = 0.05, so
 * S = 0.5 + 0.5 + 0 + 0 - 0.05 = 0.95 and w = 0.8 x 2.0 + 0.2 x 0.95 =
 * 1.79; the /weights snapshot (cs_sched_weights) reports 1,790,000 for
 * both, not the fairness module's W.
 */
static void recorded_weights(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.schedule_cycles = 0;
    p.gba_weight_epoch = 1;
    cs_sched_t *s = world_p(&p);
    cs_addr_t a1 = addr(1), a2 = addr(2);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a1, FIRE_COST * 10u), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a2, FIRE_COST * 10u), CS_OK);
    cs_block_result_t r;
    uint64_t w_in[2] = {0, 0}, w_row[2] = {0, 0};
    for (uint64_t h = 1; h <= 3; h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        if (h == 1) {
            sched(s, 1, 1, 3, 64);
            sched(s, 2, 1, 3, 64);
        }
        if (h == 3)
            for (uint8_t k = 0; k < 2; k++) {
                uint32_t i;
                cs_addr_t a = addr((uint8_t)(k + 1));
                CS_CHECK_EQ_U64(cs_sched_actor_index(s, &a, &i), CS_OK);
                uint64_t w = cs_sched_weight(s, i);
                w_in[k] = w < p.weight_min ? p.weight_min : w > p.weight_max ? p.weight_max : w;
            }
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        if (h == 3) {
            CS_CHECK_EQ_U64(r.st.fired, 2);
            for (size_t j = 0; j < r.n_rows && j < 2; j++) w_row[j] = r.rows[j].weight;
        }
    }
    CS_CHECK_EQ_U64(w_in[0], 2000000);
    CS_CHECK_EQ_U64(w_in[1], 2000000);
    CS_CHECK_EQ_U64(w_row[0], 2000000);
    CS_CHECK_EQ_U64(w_row[1], 2000000);
    uint32_t ident[8];
    uint64_t recent[8], w[8];
    uint32_t n = cs_sched_weights(s, ident, recent, w, 8);
    CS_CHECK_EQ_U64(n, 2);
    for (uint32_t k = 0; k < n && k < 8; k++) {
        CS_CHECK_EQ_U64(w[k], 1790000);
        CS_CHECK_EQ_U64(cs_mech_gba_weight(cs_sched_mech(s), ident[k], 3), 1790000);
    }
    cs_sched_free(s);
}

int main(void)
{
    one_and_a_half(0);
    one_and_a_half(1);
    cells_limit();
    price_base(0);
    price_base(1);
    order(0, 0);
    order(0, 1);
    order(1, 0);
    order(1, 1);
    watch_order(0);
    watch_order(1);
    recorded_weights();
    return cs_test_done("gba_draft");
}
