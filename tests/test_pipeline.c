/*
 * test_pipeline.c -- the money side of the end-of-block pipeline: an exact
 * eip1559 settlement (pre-charge, execute, refund, burn, tip), the
 * insufficient-funds and TTL paths through the GC lane, a GC budget that
 * runs out and carries over, bid escrow, and the DESIGN §2.6 invariants
 * after every block of a randomized multi-thousand-block run for every
 * registered mechanism.
 */
#include "cs_ledger.h"
#include "cs_sched.h"
#include "cs_test.h"

#include <stdlib.h>
#include <string.h>

static cs_addr_t addr(uint32_t tag)
{
    cs_addr_t a;
    memset(a.b, 0, sizeof a.b);
    a.b[0] = 0xb0;
    a.b[16] = (uint8_t)(tag >> 24);
    a.b[17] = (uint8_t)(tag >> 16);
    a.b[18] = (uint8_t)(tag >> 8);
    a.b[19] = (uint8_t)tag;
    return a;
}

static uint64_t g_used_cycles = 120000, g_used_cells = 400;
static void exec_fixed(void *user, cs_sched_t *s, const cs_delivery_t *d, uint64_t *uc, uint64_t *ue)
{
    (void)user;
    (void)s;
    (void)d;
    *uc = g_used_cycles;
    *ue = g_used_cells;
}

static int step(cs_sched_t *s, cs_block_result_t *r)
{
    int rc = cs_sched_begin_block(s, cs_sched_height(s) + 1);
    if (rc == CS_OK) rc = cs_sched_end_block(s, r);
    return rc;
}

/* A scheduler of mechanism mech for the settlement tests: lane basefee
 * 100 at the start, cycle price 10 and cell price 2, actor addr(tag)
 * funded with balance; *x is a schedule for it at height 2 with gas_limit
 * 200,000 and max_cells 1,000.  p holds the test's other parameters.
 * Schedule and cancel calls cost nothing here, so the balances show the
 * fires alone (their costs are tests/test_costs.c's, N58). */
static cs_sched_t *mech_sched(cs_params_t *p, const char *mech, uint32_t tag, uint64_t balance, cs_sched_args_t *x)
{
    p->lane_basefee_initial = 100;
    p->schedule_cycles = 0;
    p->cancel_cycles = 0;
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, p, mech, 0), CS_OK);
    if (!s) return NULL;
    cs_sched_set_env(s, 10, 2);
    cs_addr_t a = addr(tag);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a, balance), CS_OK);
    memset(x, 0, sizeof *x);
    x->actor = a;
    x->height = 2;
    x->gas_limit = 200000;
    x->max_cells = 1000;
    return s;
}

/* mech_sched under eip1559. */
static cs_sched_t *eip_sched(cs_params_t *p, uint32_t tag, uint64_t balance, cs_sched_args_t *x)
{
    return mech_sched(p, "eip1559", tag, balance, x);
}

/* Block 1: schedule x (due at 2) in one transaction, end the block. */
static void schedule_in_block1(cs_sched_t *s, const cs_sched_args_t *x, cs_block_result_t *r)
{
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, x, NULL, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, r), CS_OK);
}

/* eip_sched on a 1,000,000-cycle lane, balance 10^9, executing with
 * exec_fixed; *x carries explicit fees max_fee 300, max_prio 50. */
static cs_sched_t *settle_sched(cs_params_t *p, uint32_t tag, cs_sched_args_t *x)
{
    p->lane_timer_cycles = 1000000;
    cs_sched_t *s = eip_sched(p, tag, 1000000000, x);
    if (!s) return NULL;
    cs_sched_hooks_t hk = {NULL, exec_fixed, NULL, NULL, NULL};
    cs_sched_set_hooks(s, &hk);
    x->has_fees = 1;
    x->max_fee = 300;
    x->max_prio = 50;
    return s;
}

static void test_eip1559_settlement(void)
{
    cs_params_t p;
    cs_params_default(&p);
    cs_sched_args_t x;
    cs_sched_t *s = settle_sched(&p, 1, &x);
    if (!s) return;
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &x, NULL, NULL), CS_OK);
    /* CIP-1 rev §6: max_fee below the lane basefee (100) is refused. */
    x.max_fee = 99;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &x, NULL, NULL), CS_EBELOW_BASEFEE);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    /* Block 1 used no lane cycles: cip1 rule, u = 0 -> clip(-1) = -0.125,
     * 100 * 0.875 = 87.5 -> floor 87 for block 2. */
    CS_CHECK(cs_sched_lane_basefee(s) == 87);
    CS_CHECK_EQ_U64(step(s, &r), CS_OK);
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK_EQ_U64(r.rows[0].outcome, CS_OUT_FIRED);
    /* prio = min(50, 300 - 87) = 50 per cycle.
     * max_cost = 200,000 * (10 + 87 + 50) + 1,000 * 2 = 29,402,000
     * actual   = 120,000 * 147 + 400 * 2 = 17,640,800
     * burn     = 120,000 * (10 + 87) + 400 * 2 = 11,640,800; tip = 6,000,000 */
    CS_CHECK(r.rows[0].burn == 11640800);
    CS_CHECK(r.rows[0].tip == 6000000);
    CS_CHECK(r.rows[0].tip_rate == 50);
    CS_CHECK(cs_sched_balance(s, 0) == (cs_u128)1000000000 - 17640800);
    const cs_ledger_t *l = cs_sched_ledger(s);
    CS_CHECK(l->tot.burned == 11640800);
    CS_CHECK(l->tot.proposer == 6000000);
    CS_CHECK(l->tot.escrow == 0);
    char msg[256];
    CS_CHECK_EQ_U64(cs_sched_check_invariants(s, msg, sizeof msg), CS_OK);
    /* Block 2 used 120,000 of 1,000,000 lane cycles: u = 0.12 -> -0.125,
     * floor(87 * 0.875) = floor(76.125) = 76. */
    CS_CHECK(cs_sched_lane_basefee(s) == 76);
    cs_sched_free(s);
}

/* Lane fee multiplier 0.8 under both scopes (CIP-1 rev §5; N25, N38): the
 * same block-2 fire as test_eip1559_settlement.  The lane basefee
 * trajectory is the rule's alone (100 -> 87 -> 76 either way); users pay
 * floor(87 * 0.8) = floor(69.6) = 69 of lane basefee, and under scope fire
 * floor(10 * 0.8) = 8 instead of 10 of cycle basefee. */
static void test_lane_fee_multiplier_scope(void)
{
    for (int scope = CS_LFM_LANE; scope <= CS_LFM_FIRE; scope++) {
        cs_params_t p;
        cs_params_default(&p);
        p.lane_fee_multiplier = 800000;
        p.lane_fee_multiplier_scope = (uint64_t)scope;
        cs_sched_args_t x;
        cs_sched_t *s = settle_sched(&p, 5, &x);
        if (!s) return;
        cs_block_result_t r;
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
        CS_CHECK(cs_sched_lane_basefee_charged(s) == 80); /* floor(100 * 0.8) */
        CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
        /* §6: max_fee is checked against the charged 80, not the raw 100 */
        x.max_fee = 79;
        CS_CHECK_EQ_U64(cs_sched_schedule(s, &x, NULL, NULL), CS_EBELOW_BASEFEE);
        x.max_fee = 300;
        CS_CHECK_EQ_U64(cs_sched_schedule(s, &x, NULL, NULL), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        CS_CHECK(cs_sched_lane_basefee(s) == 87); /* raw: 100 * 0.875 = 87.5 -> 87 */
        CS_CHECK(cs_sched_lane_basefee_charged(s) == 69);
        CS_CHECK_EQ_U64(step(s, &r), CS_OK);
        CS_CHECK_EQ_U64(r.n_deliv, 1);
        CS_CHECK_EQ_U64(r.rows[0].outcome, CS_OUT_FIRED);
        /* prio = min(50, 300 - 69) = 50 per cycle.
         * lane:  burn = 120,000 * (10 + 69) + 400 * 2 = 9,480,800
         * fire:  burn = 120,000 * (8 + 69) + 400 * 2 = 9,240,800
         * tip = 120,000 * 50 = 6,000,000 in both; paid = burn + tip */
        CS_CHECK(r.rows[0].burn == (scope == CS_LFM_FIRE ? 9240800 : 9480800));
        CS_CHECK(r.rows[0].tip == 6000000);
        CS_CHECK(cs_sched_balance(s, 0) ==
                 (cs_u128)1000000000 - (scope == CS_LFM_FIRE ? 15240800 : 15480800));
        char msg[256];
        CS_CHECK_EQ_U64(cs_sched_check_invariants(s, msg, sizeof msg), CS_OK);
        /* u = 0.12 -> -0.125: floor(87 * 0.875) = 76, the same in both scopes */
        CS_CHECK(cs_sched_lane_basefee(s) == 76);
        cs_sched_free(s);
    }
}

static void test_insufficient_funds(void)
{
    cs_params_t p;
    cs_params_default(&p);
    cs_sched_args_t x;
    cs_sched_t *s = eip_sched(&p, 2, 1000000, &x); /* < max_cost */
    if (!s) return;
    cs_block_result_t r;
    schedule_in_block1(s, &x, &r);
    /* Default GBA at fire: max_fee = 2 * 87, prio = p50 = 0; max_cost =
     * 200,000 * (10 + 87 + 0) + 1,000 * 2 = 19,402,000 > 1,000,000:
     * CIP-1 rev §9 path 3, destroyed through the GC lane. */
    CS_CHECK_EQ_U64(step(s, &r), CS_OK);
    CS_CHECK_EQ_U64(r.n_deliv, 0);
    CS_CHECK_EQ_U64(r.st.insufficient, 1);
    CS_CHECK_EQ_U64(r.st.gc_destroyed, 1);
    CS_CHECK_EQ_U64(cs_sched_pending(s), 0);
    CS_CHECK(cs_sched_balance(s, 0) == 1000000);
    char msg[256];
    CS_CHECK_EQ_U64(cs_sched_check_invariants(s, msg, sizeof msg), CS_OK);
    cs_sched_free(s);
}

/* gba-tip defers a timer whose payer is short instead of destroying it
 * (CIP-1 rev §4.1, D10; CS_MF_DEFER_FUNDS): the same timer and balance as
 * test_insufficient_funds (max_cost 19,402,000 > 1,000,000) stays pending
 * through block 2 with no charge and no GC, and fires in block 3 once the
 * payer is funded with 10^9 more, paying burn + tip out of its balance.
 * The lane was empty in blocks 1 and 2 (cip1 rule, -0.125 each): basefee
 * 100 -> 87 -> floor(76.125) = 76 in block 3, so the burn is
 * 120,000 * (10 + 76) + 400 * 2 = 10,320,800. */
static void test_gbatip_defers_short_funds(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.gba_tip_lane = CS_GBA_LANE_REV; /* the lane basefee above (N65) */
    cs_sched_args_t x;
    cs_sched_t *s = mech_sched(&p, "gba-tip", 6, 1000000, &x);
    if (!s) return;
    cs_sched_hooks_t hk = {NULL, exec_fixed, NULL, NULL, NULL};
    cs_sched_set_hooks(s, &hk);
    cs_block_result_t r;
    schedule_in_block1(s, &x, &r);
    CS_CHECK_EQ_U64(step(s, &r), CS_OK);
    CS_CHECK_EQ_U64(r.n_deliv, 0);
    CS_CHECK_EQ_U64(r.st.insufficient, 0);
    CS_CHECK_EQ_U64(r.st.gc_destroyed, 0);
    CS_CHECK_EQ_U64(r.st.deferred, 1);
    CS_CHECK_EQ_U64(cs_sched_pending(s), 1);
    CS_CHECK(cs_sched_balance(s, 0) == 1000000);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &x.actor, 1000000000), CS_OK);
    CS_CHECK_EQ_U64(step(s, &r), CS_OK);
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK_EQ_U64(r.st.fired, 1);
    CS_CHECK_EQ_U64(cs_sched_pending(s), 0);
    CS_CHECK(r.n_rows == 1 && r.rows[0].outcome == CS_OUT_FIRED && r.rows[0].burn == 10320800 &&
             cs_sched_balance(s, 0) == (cs_u128)1001000000 - r.rows[0].burn - r.rows[0].tip);
    char msg[256];
    CS_CHECK_EQ_U64(cs_sched_check_invariants(s, msg, sizeof msg), CS_OK);
    cs_sched_free(s);
}

static void test_precharge_backlog(void)
{
    /* Two due timers of one payer whose balance covers one max_cost but
     * not two: both pass classification (balance >= max_cost each), the
     * first precharge escrows 19,402,000 (as in test_insufficient_funds:
     * 200,000 * (10 + 87 + 0) + 1,000 * 2), leaving 30,000,000 - 19,402,000
     * = 10,598,000 < 19,402,000, so the second fails its precharge after
     * this block's GC run (CIP-1 rev §3 step 8).  It waits in the GC lane:
     * gc_backlog 1 after block 2, destroyed in block 3. */
    cs_params_t p;
    cs_params_default(&p);
    cs_sched_args_t x;
    cs_sched_t *s = eip_sched(&p, 7, 30000000, &x);
    if (!s) return;
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &x, NULL, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &x, NULL, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    CS_CHECK_EQ_U64(step(s, &r), CS_OK); /* block 2 */
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK_EQ_U64(r.st.insufficient, 1);
    CS_CHECK_EQ_U64(r.st.gc_destroyed, 0);
    CS_CHECK_EQ_U64(r.st.gc_backlog, 1);
    CS_CHECK_EQ_U64(cs_sched_pending(s), 1); /* counted until destroyed */
    char msg[256];
    CS_CHECK_EQ_U64(cs_sched_check_invariants(s, msg, sizeof msg), CS_OK);
    CS_CHECK_EQ_U64(step(s, &r), CS_OK); /* block 3 */
    CS_CHECK_EQ_U64(r.st.gc_destroyed, 1);
    CS_CHECK_EQ_U64(r.st.gc_backlog, 0);
    CS_CHECK_EQ_U64(cs_sched_pending(s), 0);
    CS_CHECK_EQ_U64(cs_sched_check_invariants(s, msg, sizeof msg), CS_OK);
    cs_sched_free(s);
}

static void test_gc_budget_carry(void)
{
    /* Five timers expire together; the GC lane takes gc_cycles_per_block /
     * gc_cycles_per_timer = 10,000 / 5,000 = 2 per block: 2, 2, 1. */
    cs_params_t p;
    cs_params_default(&p);
    p.gc_cycles_per_block = 10000;
    p.gc_cycles_per_timer = 5000;
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, "fifo", 0), CS_OK);
    cs_addr_t a = addr(3);
    cs_sched_args_t x;
    memset(&x, 0, sizeof x);
    x.actor = a;
    x.height = 3;
    x.expires_at = 2;
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    for (int i = 0; i < 5; i++) CS_CHECK_EQ_U64(cs_sched_schedule(s, &x, NULL, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    CS_CHECK_EQ_U64(step(s, &r), CS_OK); /* 2 */
    uint64_t want_destroyed[3] = {2, 2, 1}, want_backlog[3] = {3, 1, 0}, want_pending[3] = {3, 1, 0};
    char msg[256];
    for (int k = 0; k < 3; k++) {
        CS_CHECK_EQ_U64(step(s, &r), CS_OK); /* 3, 4, 5 */
        CS_CHECK_EQ_U64(r.st.expired, k == 0 ? 5 : 0);
        CS_CHECK_EQ_U64(r.st.gc_destroyed, want_destroyed[k]);
        CS_CHECK_EQ_U64(r.st.gc_backlog, want_backlog[k]);
        CS_CHECK_EQ_U64(r.st.gc_cycles, want_destroyed[k] * 5000);
        CS_CHECK_EQ_U64(cs_sched_pending(s), want_pending[k]);
        CS_CHECK_EQ_U64(r.n_deliv, 0);
        CS_CHECK_EQ_U64(cs_sched_check_invariants(s, msg, sizeof msg), CS_OK);
    }
    cs_sched_free(s);
}

static void test_bid_escrow(void)
{
    /* CIP-5 §9.7: the bid is locked at scheduling; cancel returns it; a
     * first-price winner pays its bid to the proposer. */
    cs_params_t p;
    cs_params_default(&p);
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, "bias-fp", 0), CS_OK);
    cs_addr_t a = addr(4);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a, 1000000), CS_OK);
    cs_sched_args_t x;
    memset(&x, 0, sizeof x);
    x.actor = a;
    x.height = 3;
    x.gas_limit = 100000;
    x.has_bid = 1;
    x.bid = 300;
    cs_hash_t keep, drop;
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &x, &keep, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &x, &drop, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    const cs_ledger_t *l = cs_sched_ledger(s);
    CS_CHECK(cs_sched_balance(s, 0) == 1000000 - 600);
    CS_CHECK(l->tot.escrow == 600);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_cancel(s, &a, &drop, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    CS_CHECK(cs_sched_balance(s, 0) == 1000000 - 300);
    CS_CHECK(l->tot.escrow == 300);
    /* A bid the balance cannot cover is refused at the call. */
    x.bid = 2000000;
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &x, NULL, NULL), CS_EINSUFFICIENT_FUNDS);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    CS_CHECK_EQ_U64(step(s, &r), CS_OK);
    CS_CHECK_EQ_U64(step(s, &r), CS_OK); /* 3: fires, pays its bid */
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK(r.rows[0].payment == 300);
    CS_CHECK(l->tot.proposer == 300);
    CS_CHECK(l->tot.escrow == 0);
    CS_CHECK(cs_sched_balance(s, 0) == 1000000 - 300);
    char msg[256];
    CS_CHECK_EQ_U64(cs_sched_check_invariants(s, msg, sizeof msg), CS_OK);
    cs_sched_free(s);
}

/* splitmix64 for the randomized run. */
static uint64_t rnd(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t g_rng = 1;
static void exec_random(void *user, cs_sched_t *s, const cs_delivery_t *d, uint64_t *uc, uint64_t *ue)
{
    (void)user;
    *uc = rnd(&g_rng) % (d->cycles_limit + 1);
    *ue = rnd(&g_rng) % 2000;
    /* Some handlers reschedule and write keys, inside the fire's transaction. */
    if (rnd(&g_rng) % 4 == 0) {
        cs_sched_args_t x;
        memset(&x, 0, sizeof x);
        x.actor = d->actor;
        x.height = cs_sched_height(s) + 2 + rnd(&g_rng) % 20;
        x.gas_limit = 50000;
        (void)cs_sched_schedule(s, &x, NULL, NULL);
    }
    if (rnd(&g_rng) % 8 == 0) (void)cs_sched_write_key(s, (const uint8_t *)"k", 1);
}

/* DESIGN §2.6: both invariants hold after every block of a randomized run. */
static void random_run(const char *mech, uint64_t seed, uint64_t blocks)
{
    cs_params_t p;
    cs_params_default(&p);
    p.lane_timer_cycles = 600000;
    p.max_fires_per_block = 6;
    p.max_fires_per_actor = 3;
    p.ring_size = 64;
    p.epoch_blocks = 50;
    p.epochs = 3;
    p.gc_cycles_per_block = 15000;
    p.fairness_window = 100;
    p.lane_basefee_initial = 20;
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, mech, 0), CS_OK);
    if (!s) return;
    g_rng = seed ^ 0xabcdef;
    cs_sched_hooks_t hk = {NULL, exec_random, NULL, NULL, NULL};
    cs_sched_set_hooks(s, &hk);
    uint64_t st = seed;
    enum { NA = 24 };
    cs_hash_t ids[512];
    size_t n_ids = 0;
    for (uint32_t i = 0; i < NA; i++) {
        cs_addr_t a = addr(100 + i);
        /* a third of the actors are poor: insufficient funds happen */
        cs_u128 bal = i % 3 == 0 ? (cs_u128)(rnd(&st) % 5000000) : (cs_u128)1000000000000ull;
        CS_CHECK_EQ_U64(cs_sched_fund(s, &a, bal), CS_OK);
        if (i % 4 == 0) {
            cs_addr_t dep = addr(900);
            CS_CHECK_EQ_U64(cs_sched_set_deployer(s, &a, &dep), CS_OK);
        }
    }
    char msg[256];
    uint64_t bad = 0, fired = 0, gc = 0;
    for (uint64_t h = 1; h <= blocks; h++) {
        if (cs_sched_begin_block(s, h) != CS_OK) {
            bad++;
            break;
        }
        cs_sched_set_env(s, 5 + rnd(&st) % 10, 1 + rnd(&st) % 3);
        cs_sched_set_paused(s, h % 500 >= 480);
        uint64_t ntx = rnd(&st) % 6;
        for (uint64_t k = 0; k < ntx; k++) {
            cs_addr_t a = addr(100 + (uint32_t)(rnd(&st) % NA));
            if (cs_sched_tx_begin(s) != CS_OK) continue;
            uint64_t op = rnd(&st) % 10;
            cs_sched_args_t x;
            memset(&x, 0, sizeof x);
            x.actor = a;
            x.gas_limit = 20000 + rnd(&st) % 300000;
            x.height = h + 1 + (rnd(&st) % 10 == 0 ? rnd(&st) % 2000 : rnd(&st) % 40);
            x.expires_at = rnd(&st) % 3 == 0 ? x.height + rnd(&st) % 30 : 0;
            x.has_bid = (int)(rnd(&st) % 2);
            x.bid = rnd(&st) % 100000;
            if (rnd(&st) % 2) {
                x.has_fees = 1;
                x.max_fee = 10 + rnd(&st) % 100;
                x.max_prio = rnd(&st) % 30;
            }
            x.tier_hint = (uint8_t)(rnd(&st) % 4);
            const uint8_t *wk[1] = {(const uint8_t *)"k"};
            size_t wl[1] = {1};
            if (op == 0) {
                x.kind = CS_KIND_INTERVAL;
                x.every_blocks = 1 + (uint32_t)(rnd(&st) % 30);
            } else if (op == 1) {
                x.kind = CS_KIND_WATCH;
                x.watch_keys = wk;
                x.watch_key_lens = wl;
                x.n_watch = 1;
            }
            cs_hash_t id;
            if (op <= 7) {
                if (cs_sched_schedule(s, &x, &id, NULL) == CS_OK && n_ids < 512) ids[n_ids++] = id;
            } else if (op == 8 && n_ids > 0) {
                (void)cs_sched_cancel(s, &a, &ids[rnd(&st) % n_ids], NULL);
            } else {
                (void)cs_sched_write_key(s, (const uint8_t *)"k", 1);
            }
            if (rnd(&st) % 7 == 0) cs_sched_tx_rollback(s);
            else (void)cs_sched_tx_commit(s);
        }
        if (n_ids > 0 && rnd(&st) % 40 == 0) (void)cs_sched_sys_cancel(s, &ids[rnd(&st) % n_ids]);
        if (n_ids > 0 && rnd(&st) % 40 == 0) (void)cs_sched_sys_extend(s, &ids[rnd(&st) % n_ids], h + 50);
        if (n_ids >= 512) n_ids = 0;
        cs_block_result_t r;
        if (cs_sched_end_block(s, &r) != CS_OK) {
            bad++;
            break;
        }
        fired += r.st.fired;
        gc += r.st.gc_destroyed;
        if (cs_sched_check_invariants(s, msg, sizeof msg) != CS_OK) {
            bad++;
            fprintf(stderr, "%s block %llu: %s\n", mech, (unsigned long long)h, msg);
            break;
        }
    }
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK(fired > 100); /* the run did something */
    CS_CHECK(gc > 0);
    printf("  %-12s seed %llu: %llu blocks, %llu fires, %llu GC-destroyed, invariants held\n", mech,
           (unsigned long long)seed, (unsigned long long)blocks, (unsigned long long)fired, (unsigned long long)gc);
    cs_sched_free(s);
}

int main(void)
{
    test_eip1559_settlement();
    test_lane_fee_multiplier_scope();
    test_insufficient_funds();
    test_gbatip_defers_short_funds();
    test_precharge_backlog();
    test_gc_budget_carry();
    test_bid_escrow();
    /* 3,000 blocks; under CS_TEST_SMALL (the sanitizer suite) 1,000, which
     * still pass two lane pauses, every epoch and ring wrap, and far timers
     * coming due. */
    const uint64_t blocks = cs_test_size("blocks", 3000, 1000);
    for (size_t i = 0; cs_mech_registry[i] != NULL; i++) random_run(cs_mech_registry[i]->name, 20261121 + i, blocks);
    return cs_test_done("pipeline");
}
