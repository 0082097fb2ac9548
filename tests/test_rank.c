/*
 * test_rank.c -- the incremental ranking of carried timers (issue 26,
 * DESIGN-NOTES N80-N83) against the full re-ranking, block by block.
 *
 * Two schedulers get the same random history -- schedules (one-shot,
 * interval and watch timers, keys written now and then) with fee caps
 * from a small set (so priorities tie and the timer-id tie-break decides),
 * due heights, TTLs that expire, owner cancels, payers whose funds run
 * out, SYS_EXTEND and SYS_CANCEL, cycle basefee moves (the lane basefee
 * moves by itself at a 50 % target), lane pauses -- one with cs_sched_set_ranking(0) (the
 * reference: every carried timer collected and ranked each block), one
 * with cs_sched_set_ranking(1).  Every block, for every mechanism and
 * five parameter sets: the block totals (due, fired, deferred, expired,
 * insufficient, payments, burn, tips, the scheduler state digest ...),
 * the deliveries (timer id, deliver_id, in order) and the rows must be
 * identical, except that the incremental side may leave out rows of
 * timers that merely stay deferred; those must be counted exactly by the
 * timer's next row (row.silent) or cs_sched_silent.  The test also checks
 * that the incremental side did leave rows out (else it proves nothing).
 *
 * Sizes: three histories of 160 blocks per mechanism and parameter set,
 * and for eip1559, the mechanism that ranks incrementally, one more of
 * 1,000 blocks.  A longer soak, outside the suite (tests/release.sh runs
 * one): CS_TEST_RANK_SEEDS=N histories per mechanism and parameter set,
 * CS_TEST_RANK_BLOCKS=B (default 160, at most 100,000) blocks each, and
 * nothing else; CS_TEST_RANK_MECH=M runs one mechanism alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_fees.h"
#include "cs_sched.h"
#include "cs_test.h"

#define NACT 12
#define NBLK 160         /* blocks a history, unless CS_TEST_RANK_BLOCKS */
#define LONG_BLOCKS 1000 /* eip1559's extra history (main) */
#define MAXIDS 65536

static uint64_t rs;
static uint64_t rnd(void) { return cs_test_rand64(&rs); }
static uint64_t rint_(uint64_t n) { return rnd() % n; }

typedef struct cfg {
    const char *what;
    int mixed_gas;   /* cycles from {10k, 21k, 50k, 70k} instead of 21k for all */
    int gba_some;    /* some timers without fee caps (the default GBA prices them) */
    int w_moves;     /* w_min != w_max */
    uint32_t quota;  /* max_fires_per_block */
    uint64_t floor;  /* lane_basefee_min, or 0 for the default */
} cfg_t;

typedef struct hist {
    cs_hash_t id[MAXIDS];
    uint8_t owner[MAXIDS];
    size_t n;
} hist_t;

static hist_t H;

/* Per slot: deferred rows of the reference the incremental side left out
 * and has not reported yet. */
static uint32_t owed[1 << 18];

/* owed[slot]; a slot beyond it (a soak's history outgrowing the table)
 * fails the check and gets a scratch entry instead. */
static uint32_t *owe(uint32_t slot)
{
    static uint32_t spare;
    int fits = slot < sizeof owed / sizeof owed[0];
    CS_CHECK(fits);
    return fits ? &owed[slot] : &spare;
}

static void row_eq(const cs_cand_row_t *a, const cs_cand_row_t *b)
{
    int same = a->slot == b->slot && a->outcome == b->outcome && a->why == b->why &&
               a->used_cycles == b->used_cycles && a->burn == b->burn && a->tip == b->tip &&
               a->payment == b->payment && a->exec_fee == b->exec_fee && a->lane_burn == b->lane_burn &&
               a->priority == b->priority && a->tip_rate == b->tip_rate && a->weight == b->weight &&
               a->due_height == b->due_height && a->deferrals == b->deferrals && a->max_fee == b->max_fee &&
               a->max_prio == b->max_prio && a->bid == b->bid;
    CS_CHECK(same);
}

static void stats_eq(const cs_block_stats_t *a, const cs_block_stats_t *b)
{
    CS_CHECK_EQ_U64(a->due, b->due);
    CS_CHECK_EQ_U64(a->fired, b->fired);
    CS_CHECK_EQ_U64(a->deferred, b->deferred);
    CS_CHECK_EQ_U64(a->expired, b->expired);
    CS_CHECK_EQ_U64(a->insufficient, b->insufficient);
    CS_CHECK_EQ_U64(a->cancelled, b->cancelled);
    CS_CHECK_EQ_U64(a->gc_destroyed, b->gc_destroyed);
    CS_CHECK_EQ_U64(a->gc_backlog, b->gc_backlog);
    CS_CHECK_EQ_U64(a->lane_cycles, b->lane_cycles);
    CS_CHECK_EQ_U64(a->eob_cycles, b->eob_cycles);
    CS_CHECK_EQ_U64(a->delay_sum, b->delay_sum);
    CS_CHECK(a->basefee_lane == b->basefee_lane && a->burn == b->burn && a->tips == b->tips &&
             a->payments == b->payments && a->exec_fee == b->exec_fee && a->lane_burn == b->lane_burn &&
             a->p50_tip == b->p50_tip);
    CS_CHECK(memcmp(a->digest.b, b->digest.b, sizeof a->digest.b) == 0);
}

/* One random block's transactions, applied to both schedulers. */
static void txs(cs_sched_t *s[2], uint64_t h, const cfg_t *c)
{
    /* With a basefee floor, caps one below, at and one above it instead of
     * 500, 900 and 1,000. */
    uint64_t fees[6] = {500, 900, 1000, 1100, 1500, 3000};
    if (c->floor) {
        fees[0] = c->floor - 1;
        fees[1] = c->floor;
        fees[2] = c->floor + 1;
    }
    static const uint64_t prios[5] = {0, 50, 100, 300, 1000};
    static const uint64_t gas[4] = {10000, 21000, 50000, 70000}; /* 70k: over the 60k cap */
    uint64_t bfc = rint_(4), bfl = rint_(3);
    for (int k = 0; k < 2; k++) cs_sched_set_env(s[k], bfc, bfl);
    /* Now and then a payer gets more funds. */
    if (rint_(10) == 0) {
        cs_addr_t who = cs_test_addr(0x26, (uint8_t)rint_(NACT));
        uint64_t amt = 200000000u + rint_(400000000u);
        for (int k = 0; k < 2; k++) CS_CHECK_EQ_U64(cs_sched_fund(s[k], &who, amt), CS_OK);
    }
    /* System opcodes between transactions (CIP-1 rev §12): a TTL moved
     * (a ranked timer's expiry index must follow), a timer cancelled. */
    if (H.n && rint_(4) == 0) {
        size_t j = (size_t)rint_(H.n);
        uint64_t to = rint_(3) == 0 ? 0 : h + 1 + rint_(8);
        int rc[2];
        for (int k = 0; k < 2; k++) rc[k] = cs_sched_sys_extend(s[k], &H.id[j], to);
        CS_CHECK_EQ_U64(rc[0], rc[1]);
    }
    if (H.n && rint_(10) == 0) {
        size_t j = (size_t)rint_(H.n);
        const cs_timer_t *t = cs_sched_find(s[1], &H.id[j]);
        uint32_t slot = t ? (uint32_t)(t - cs_sched_record(s[1], 0)) : 0;
        int rc[2];
        for (int k = 0; k < 2; k++) rc[k] = cs_sched_sys_cancel(s[k], &H.id[j]);
        CS_CHECK_EQ_U64(rc[0], rc[1]);
        if (rc[1] == CS_OK && t != NULL) {
            CS_CHECK_EQ_U64(cs_sched_silent(s[1], slot), *owe(slot));
            *owe(slot) = 0;
        }
    }
    uint64_t ns = rint_(13);
    for (int k = 0; k < 2; k++) CS_CHECK_EQ_U64(cs_sched_tx_begin(s[k]), CS_OK);
    for (uint64_t i = 0; i < ns && H.n < MAXIDS; i++) {
        uint8_t ow = (uint8_t)rint_(NACT);
        cs_sched_args_t a;
        memset(&a, 0, sizeof a);
        a.actor = cs_test_addr(0x26, ow);
        /* Mostly one-shot; some interval timers (rolled forward when
         * they fire, carried when they lose) and watch timers (due when a
         * transaction writes one of their keys). */
        static const uint8_t key0[1] = {'a'}, key1[1] = {'b'};
        static const uint8_t *const keys[2] = {key0, key1};
        static const size_t lens[2] = {1, 1};
        uint64_t kind = rint_(10);
        a.kind = kind == 0 ? CS_KIND_INTERVAL : kind == 1 ? CS_KIND_WATCH : CS_KIND_HEIGHT;
        a.height = h + 1 + rint_(4);
        if (a.kind == CS_KIND_INTERVAL) a.every_blocks = (uint32_t)(2 + rint_(4));
        if (a.kind == CS_KIND_WATCH) {
            a.height = 0;
            a.watch_keys = keys + rint_(2);
            a.watch_key_lens = lens;
            a.n_watch = 1;
        }
        a.gas_limit = c->mixed_gas ? gas[rint_(4)] : 21000;
        a.max_cells = 1 + rint_(3);
        a.expires_at = rint_(3) == 0 ? a.height + 1 + rint_(10) : 0;
        a.has_fees = !(c->gba_some && rint_(25) == 0);
        a.max_fee = fees[rint_(6)];
        a.max_prio = prios[rint_(5)];
        cs_hash_t id;
        int rc[2];
        for (int k = 0; k < 2; k++) rc[k] = cs_sched_schedule(s[k], &a, &id, NULL);
        CS_CHECK_EQ_U64(rc[0], rc[1]);
        if (rc[0] == CS_OK) {
            H.id[H.n] = id;
            H.owner[H.n++] = ow;
        }
    }
    if (rint_(3) == 0) {
        const uint8_t key = rint_(2) ? 'a' : 'b';
        for (int k = 0; k < 2; k++) CS_CHECK_EQ_U64(cs_sched_write_key(s[k], &key, 1), CS_OK);
    }
    /* Owner cancels of earlier timers (pending, carried, or gone). */
    uint32_t gone[4];
    size_t ng = 0;
    for (uint64_t i = 0, nc = H.n ? rint_(3) : 0; i < nc; i++) {
        size_t j = (size_t)rint_(H.n);
        cs_addr_t who = cs_test_addr(0x26, H.owner[j]);
        const cs_timer_t *t = cs_sched_find(s[1], &H.id[j]);
        int rc[2];
        for (int k = 0; k < 2; k++) rc[k] = cs_sched_cancel(s[k], &who, &H.id[j], NULL);
        CS_CHECK_EQ_U64(rc[0], rc[1]);
        if (rc[1] == CS_OK && t != NULL) gone[ng++] = (uint32_t)(t - cs_sched_record(s[1], 0));
    }
    for (int k = 0; k < 2; k++) CS_CHECK_EQ_U64(cs_sched_tx_commit(s[k]), CS_OK);
    /* A cancelled timer's deferrals without a row (its /timers row's). */
    for (size_t i = 0; i < ng; i++) {
        int dup = 0;
        for (size_t q = 0; q < i; q++) dup |= gone[q] == gone[i];
        if (dup || (cs_sched_hot(s[1], gone[i])->flags & CS_TF_LIVE)) continue; /* counted once */
        CS_CHECK_EQ_U64(cs_sched_silent(s[1], gone[i]), *owe(gone[i]));
        *owe(gone[i]) = 0;
    }
}

/* One history of nblk blocks under mechanism m and parameter set c;
 * returns the rows the incremental side left out. */
static uint64_t run(const char *m, const cfg_t *c, uint64_t seed, uint64_t nblk)
{
    cs_params_t p;
    cs_params_default(&p);
    p.lane_timer_cycles = 105000; /* five timers of 21k */
    p.max_cycles_per_fire = 60000;
    p.lane_basefee_initial = 1000;
    p.w_min = 1000000;
    p.w_max = c->w_moves ? 2000000 : 1000000;
    p.max_fires_per_block = c->quota;
    if (c->floor) p.lane_basefee_min = c->floor;
    cs_sched_t *s[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        if (cs_sched_alloc(&s[k], &p, m, 0) != CS_OK) {
            CS_CHECK(0);
            return 0;
        }
        cs_sched_set_ranking(s[k], k);
    }
    rs = seed;
    H.n = 0;
    memset(owed, 0, sizeof owed);
    for (int a = 0; a < NACT; a++) {
        cs_addr_t who = cs_test_addr(0x26, (uint8_t)a);
        /* A third are rich; the rest run out after a few fires. */
        cs_u128 amt = a % 3 == 0 ? (cs_u128)1 << 90 : (cs_u128)(100000000u + rint_(600000000u));
        for (int k = 0; k < 2; k++) CS_CHECK_EQ_U64(cs_sched_fund(s[k], &who, amt), CS_OK);
    }
    uint64_t left_out = 0;
    int paused = 0;
    for (uint64_t h = 1; h <= nblk; h++) {
        if (rint_(40) == 0) paused = !paused;
        for (int k = 0; k < 2; k++) {
            CS_CHECK_EQ_U64(cs_sched_begin_block(s[k], h), CS_OK);
            cs_sched_set_paused(s[k], paused);
        }
        txs(s, h, c);
        cs_block_result_t r[2];
        for (int k = 0; k < 2; k++) CS_CHECK_EQ_U64(cs_sched_end_block(s[k], &r[k]), CS_OK);
        stats_eq(&r[0].st, &r[1].st);
        CS_CHECK_EQ_U64(r[0].n_deliv, r[1].n_deliv);
        for (size_t i = 0; i < r[0].n_deliv && i < r[1].n_deliv; i++)
            CS_CHECK(memcmp(&r[0].deliv[i].timer_id, &r[1].deliv[i].timer_id, sizeof(cs_hash_t)) == 0 &&
                     memcmp(&r[0].deliv[i].deliver_id, &r[1].deliv[i].deliver_id, sizeof(cs_hash_t)) == 0);
        /* The incremental rows are the reference's in the same order,
         * less deferred ones, which the next row or cs_sched_silent owes. */
        size_t j = 0;
        for (size_t i = 0; i < r[0].n_rows; i++) {
            const cs_cand_row_t *a = &r[0].rows[i];
            if (j < r[1].n_rows && r[1].rows[j].slot == a->slot) {
                const cs_cand_row_t *b = &r[1].rows[j++];
                row_eq(a, b);
                CS_CHECK_EQ_U64(b->silent, *owe(b->slot));
                *owe(b->slot) = 0;
            } else {
                CS_CHECK_EQ_U64(a->outcome, CS_OUT_DEFERRED);
                (*owe(a->slot))++;
                left_out++;
            }
        }
        CS_CHECK_EQ_U64(j, r[1].n_rows);
    }
    /* What the incremental side still owes, slot by slot. */
    size_t np = cs_sched_pool_size(s[1]);
    uint64_t bad = 0;
    CS_CHECK(np <= sizeof owed / sizeof owed[0]);
    for (size_t k = 0; k < np && k < sizeof owed / sizeof owed[0]; k++)
        if ((cs_sched_hot(s[1], (uint32_t)k)->flags & CS_TF_LIVE) && cs_sched_silent(s[1], (uint32_t)k) != owed[k]) bad++;
    CS_CHECK_EQ_U64(bad, 0);
    for (int k = 0; k < 2; k++) cs_sched_free(s[k]);
    return left_out;
}

/* Nonzero when environment variable name is set and not empty. */
static int env_set(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && *v != '\0';
}

/* The value of environment variable name, an integer in [1, max], or def
 * when it is unset or empty; a value outside that fails the run. */
static uint64_t env_count(const char *name, uint64_t def, uint64_t max)
{
    if (!env_set(name)) return def;
    const char *v = getenv(name);
    char *end = NULL;
    unsigned long long x = strtoull(v, &end, 10);
    if (*end != '\0' || x < 1 || x > max) {
        fprintf(stderr, "test_rank: %s=%s: want an integer in [1, %llu]\n", name, v, (unsigned long long)max);
        exit(2);
    }
    return (uint64_t)x;
}

int main(void)
{
    /* A soak runs exactly the histories it asks for. */
    int soak = env_set("CS_TEST_RANK_SEEDS") || env_set("CS_TEST_RANK_BLOCKS");
    uint64_t nseed = env_count("CS_TEST_RANK_SEEDS", 3, 1000000);
    uint64_t nblk = env_count("CS_TEST_RANK_BLOCKS", NBLK, 100000);
    const char *only = getenv("CS_TEST_RANK_MECH");
    static const char *mechs[] = {"bias-vcg", "bias-fp", "priority-classes", "eip1559", "fifo",
                                  "fifo-capped", "gba-tip", "greedy", "score", "slot-booking"};
    static const cfg_t cfgs[] = {
        {"uniform cycles", 0, 0, 0, 0, 0},
        {"mixed cycles, block quota 3", 1, 0, 0, 3, 0},
        {"some default-GBA timers", 0, 1, 0, 0, 0},
        {"W moves", 0, 0, 1, 0, 0},
        /* The lane basefee starts at its floor, 1,000, and comes back to
         * it whenever the lane is underused; fee caps of 999, 1,000 and
         * 1,001 put carried timers on both sides of the class boundary
         * max_fee = basefee and on it (cs__rk_class). */
        {"basefee floor = a fee cap", 0, 0, 0, 0, 1000},
    };
    size_t ran = 0;
    for (size_t m = 0; m < sizeof mechs / sizeof mechs[0]; m++) {
        if (env_set("CS_TEST_RANK_MECH") && strcmp(only, mechs[m]) != 0) continue;
        ran++;
        for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
            uint64_t out = 0;
            for (uint64_t seed = 1; seed <= nseed; seed++) out += run(mechs[m], &cfgs[c], 0x9e3779b97f4a7c15ull * seed, nblk);
            if (strcmp(mechs[m], "eip1559") == 0 && !soak) {
                /* The mechanism that ranks incrementally also gets one
                 * history of LONG_BLOCKS: timers carried for hundreds of
                 * blocks, fifteen free-slot sorts (every 64th block,
                 * N107) and the lane basefee's long swings. */
                out += run(mechs[m], &cfgs[c], 0x9e3779b97f4a7c15ull * (nseed + 1), LONG_BLOCKS);
            }
            /* eip1559 with W the same for everyone leaves rows out; every
             * other case takes the full path every block. */
            int inc = strcmp(mechs[m], "eip1559") == 0 && !cfgs[c].w_moves;
            if (inc) CS_CHECK(out > 0);
            else CS_CHECK_EQ_U64(out, 0);
            printf("%-16s %-28s rows left out %llu\n", mechs[m], cfgs[c].what, (unsigned long long)out);
        }
    }
    if (ran == 0) {
        fprintf(stderr, "test_rank: CS_TEST_RANK_MECH=%s names no mechanism of this test\n", only);
        return 2;
    }
    return cs_test_done("rank");
}
