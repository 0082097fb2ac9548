/*
 * test_rank_oom.c -- allocation failures on eip1559's incremental ranking
 * path (DESIGN-NOTES N80): every allocation of a short history is made to
 * fail once in turn (tests/cs_allocwrap.h).  A failure must either be
 * reported (a scheduler call returns an error, and the history stops
 * there) or change nothing: the ranking's own allocations fall back to
 * the full path, so every block's digest, fires and deferrals must be the
 * clean run's.  The test also checks that some failures were absorbed
 * that way (else it proves nothing about the fallback).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_allocwrap.h"
#include "cs_fees.h"
#include "cs_sched.h"
#include "cs_test.h"

#define NACT 6
#define NBLK 60

typedef struct blk {
    cs_hash_t digest;
    uint64_t fired, deferred, expired, due, rows;
} blk_t;

static uint64_t rs;
static uint64_t rnd(void) { return cs_test_rand64(&rs); }

/* One history with the incremental ranking on; the blocks' results go to
 * out[].  Returns the number of blocks finished without an error from any
 * scheduler call (NBLK when none failed). */
static int history(blk_t *out)
{
    static const uint64_t fees[5] = {700, 1000, 1200, 1600, 2500};
    static const uint64_t prios[4] = {0, 60, 200, 900};
    cs_params_t p;
    cs_params_default(&p);
    p.lane_timer_cycles = 63000; /* three timers of 21k */
    p.lane_basefee_initial = 1000;
    p.w_min = p.w_max = 1000000;
    cs_sched_t *s = NULL;
    if (cs_sched_alloc(&s, &p, "eip1559", 0) != CS_OK) return -1;
    cs_sched_set_ranking(s, 1);
    rs = 0x2545f4914f6cdd1dull;
    int done = 0;
    for (int a = 0; a < NACT; a++) {
        cs_addr_t who = cs_test_addr(0x27, (uint8_t)a);
        if (cs_sched_fund(s, &who, (cs_u128)1 << 80) != CS_OK) goto out;
    }
    for (uint64_t h = 1; h <= NBLK; h++) {
        if (cs_sched_begin_block(s, h) != CS_OK || cs_sched_tx_begin(s) != CS_OK) goto out;
        for (uint64_t i = 0, ns = rnd() % 8; i < ns; i++) {
            cs_sched_args_t a;
            memset(&a, 0, sizeof a);
            a.actor = cs_test_addr(0x27, (uint8_t)(rnd() % NACT));
            a.kind = CS_KIND_HEIGHT;
            a.height = h + 1 + rnd() % 3;
            a.gas_limit = 21000;
            a.expires_at = rnd() % 3 == 0 ? a.height + 2 + rnd() % 8 : 0;
            a.has_fees = 1;
            a.max_fee = fees[rnd() % 5];
            a.max_prio = prios[rnd() % 4];
            /* Schedule-time validation may refuse it (below the basefee,
         * CIP-1 rev §6): the same in every run.  Out of memory stops. */
        if (cs_sched_schedule(s, &a, NULL, NULL) == CS_ENOMEM) goto out;
        }
        if (cs_sched_tx_commit(s) != CS_OK) goto out;
        cs_block_result_t r;
        if (cs_sched_end_block(s, &r) != CS_OK) goto out;
        out[h - 1] = (blk_t){.digest = r.st.digest, .fired = r.st.fired, .deferred = r.st.deferred,
                             .expired = r.st.expired, .due = r.st.due, .rows = r.n_rows};
        done++;
    }
out:
    cs_sched_free(s);
    return done;
}

int main(void)
{
    static blk_t clean[NBLK], run[NBLK];
    cs_aw_reset(0);
    CS_CHECK_EQ_U64(history(clean), NBLK);
    uint64_t n = cs_aw_count();
    /* The clean history must use the ranking: some block leaves a
     * deferred timer unlooked-at (due counts it, rows do not). */
    uint64_t silent = 0;
    for (int b = 0; b < NBLK; b++) silent += clean[b].due - clean[b].rows;
    CS_CHECK(silent > 0);
    uint64_t absorbed = 0, reported = 0;
    for (uint64_t k = 1; k <= n; k++) {
        cs_aw_reset(k);
        int done = history(run);
        if (!cs_aw_failed()) continue; /* allocation k is not reached this time */
        for (int b = 0; b < done && b < NBLK; b++) {
            int same = memcmp(run[b].digest.b, clean[b].digest.b, sizeof clean[b].digest.b) == 0 &&
                       run[b].fired == clean[b].fired && run[b].deferred == clean[b].deferred &&
                       run[b].expired == clean[b].expired && run[b].due == clean[b].due;
            CS_CHECK(same);
        }
        if (done == NBLK) absorbed++;
        else reported++;
    }
    cs_aw_reset(0);
    printf("rank_oom: %llu allocations, %llu failures absorbed, %llu reported; %llu rows left out\n",
           (unsigned long long)n, (unsigned long long)absorbed, (unsigned long long)reported,
           (unsigned long long)silent);
    CS_CHECK(absorbed > 0);
    CS_CHECK(reported > 0);
    return cs_test_done("rank_oom");
}
