/*
 * test_rank_switch.c -- the engine's switch to the full re-ranking in the
 * middle of a run (cs_sim_full_ranking, what `bench backlog` times as the
 * baseline of its standing-backlog workload after the warm-up) leaves every
 * output as it was.
 *
 * The scenario (cs_test_flood_scenario) is bench/backlog.json scaled down to 300 affine_user actors
 * and a lane of 143 timers (about the workload's proportions) with the
 * default lane basefee start of 1,000 per cycle: the start-up flood leaves
 * a standing backlog of due-but-deferred timers whose fee caps stay below
 * the basefee.  It runs three ways under eip1559:
 *   A  incremental ranking throughout (the default);
 *   B  full re-ranking throughout (switched before the first block);
 *   C  incremental for the first K blocks, then full re-ranking;
 *   D  the two alternating every ALT_EVERY blocks from block ALT_FROM on,
 *      as `bench backlog`'s paired segments do (cs_sim_ranking): each
 *      return to the incremental path rebuilds the ranking from the
 *      carried timers, mid-backlog.
 * Every dataset of the three files must be identical byte for byte (the
 * rows of /timers carry each timer's deferrals, so deferrals the
 * incremental path counted without a row and lost at the switch would show).
 * The test also checks that run D's last incremental segment deferred
 * timers without a row again (the rebuilt ranking was taken), that run C's incremental part did defer timers
 * without a row (cs_sched_silent > 0 for some live timer at block K, else
 * the switch proves nothing) and that the backlog at K is a standing one
 * (more carried timers than the lane holds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_engine.h"
#include "cs_scenario.h"
#include "cs_sched.h"
#include "cs_test.h"

#define LANE_TIMERS 143u
#define BLOCKS 360u
#define SWITCH_AT 240u
#define ALT_FROM 120u  /* run D: full re-ranking at ALT_FROM, back at ALT_FROM + ALT_EVERY, ... */
#define ALT_EVERY 30u
#define ALT_CHECK 350u /* D: within its last incremental segment (330-360) */


/* Live timers of s deferred without a row so far. */
static uint64_t silent_timers(const cs_sched_t *s)
{
    uint64_t k = 0;
    size_t np = cs_sched_pool_size(s);
    for (size_t i = 0; i < np; i++)
        if ((cs_sched_hot(s, (uint32_t)i)->flags & CS_TF_LIVE) && cs_sched_silent(s, (uint32_t)i) > 0) k++;
    return k;
}

/* Run the scenario into path, switching to the full re-ranking before
 * block at + 1 (at = UINT32_MAX: never), or with alt, alternating from
 * ALT_FROM on (full first).  *silent and *carried: what the scheduler
 * holds after block SWITCH_AT (before a switch there); *silent_late: the
 * live timers deferred without a row after block ALT_CHECK. */
static int run(const char *path, uint32_t at, int alt, uint64_t *silent, uint64_t *carried, uint64_t *silent_late)
{
    cs_scenario_t *scn = NULL;
    char txt[2048];
    cs_engine_t *e = cs_test_engine_text(cs_test_flood_scenario(txt, sizeof txt, "rank-switch", BLOCKS), "eip1559", path, &scn);
    if (e == NULL) return -1;
    int rc;
    for (;;) {
        if (cs_sim_height(e) == SWITCH_AT) {
            *silent = silent_timers(cs_sim_sched(e));
            *carried = cs_sched_carried(cs_sim_sched(e));
        }
        if (cs_sim_height(e) == ALT_CHECK) *silent_late = silent_timers(cs_sim_sched(e));
        if (cs_sim_height(e) == at) cs_sim_full_ranking(e);
        if (alt && cs_sim_height(e) >= ALT_FROM && (cs_sim_height(e) - ALT_FROM) % ALT_EVERY == 0)
            cs_sim_ranking(e, (cs_sim_height(e) - ALT_FROM) / ALT_EVERY % 2 == 0);
        if ((rc = cs_sim_step(e)) != CS_OK) break;
    }
    cs_run_stats_t st;
    int drc = cs_sim_done(e, rc == CS_EINTERRUPTED, &st);
    cs_scenario_free(scn);
    return drc == CS_OK && rc == CS_EINTERRUPTED && st.blocks == BLOCKS ? 0 : -1;
}

int main(void)
{
    const char *dir = cs_test_tmpdir();
    char pa[4096], pb[4096], pc[4096], pd[4096];
    snprintf(pa, sizeof pa, "%s/rank-switch-a.h5", dir);
    snprintf(pb, sizeof pb, "%s/rank-switch-b.h5", dir);
    snprintf(pc, sizeof pc, "%s/rank-switch-c.h5", dir);
    snprintf(pd, sizeof pd, "%s/rank-switch-d.h5", dir);
    uint64_t sil_a = 0, car_a = 0, sil_b = 0, car_b = 0, sil_c = 0, car_c = 0, sil_d = 0, car_d = 0;
    uint64_t late_a = 0, late_b = 0, late_c = 0, late_d = 0;
    CS_CHECK_EQ_U64(run(pa, UINT32_MAX, 0, &sil_a, &car_a, &late_a), 0);
    CS_CHECK_EQ_U64(run(pb, 0, 0, &sil_b, &car_b, &late_b), 0);
    CS_CHECK_EQ_U64(run(pc, SWITCH_AT, 0, &sil_c, &car_c, &late_c), 0);
    CS_CHECK_EQ_U64(run(pd, UINT32_MAX, 1, &sil_d, &car_d, &late_d), 0);
    /* D took the rebuilt ranking in its last incremental segment (C, full
     * by then, did not). */
    CS_CHECK(late_d > 0);
    CS_CHECK(late_a > 0);
    CS_CHECK_EQ_U64(late_c, 0);
    CS_CHECK_EQ_U64(car_d, car_a);
    /* The incremental path was taken before the switch, and not by B. */
    CS_CHECK(sil_c > 0);
    CS_CHECK_EQ_U64(sil_c, sil_a);
    CS_CHECK_EQ_U64(sil_b, 0);
    /* A standing backlog at the switch, the same in every run. */
    CS_CHECK(car_a > LANE_TIMERS);
    CS_CHECK_EQ_U64(car_b, car_a);
    CS_CHECK_EQ_U64(car_c, car_a);
    size_t na = 0, nb = 0, nc = 0;
    size_t nd = 0;
    char *a = cs_test_datasets(pa, &na), *b = cs_test_datasets(pb, &nb), *c = cs_test_datasets(pc, &nc);
    char *d = cs_test_datasets(pd, &nd);
    CS_CHECK(a != NULL && b != NULL && c != NULL && d != NULL);
    if (a && b && c && d) {
        CS_CHECK_EQ_U64(nb, na);
        CS_CHECK_EQ_U64(nc, na);
        CS_CHECK_EQ_U64(nd, na);
        CS_CHECK(nb == na && memcmp(a, b, na) == 0);
        CS_CHECK(nc == na && memcmp(a, c, na) == 0);
        CS_CHECK(nd == na && memcmp(a, d, na) == 0);
    }
    printf("rank_switch: %llu carried and %llu deferred without a row at block %u; %llu in D's last "
           "incremental segment at block %u; %zu bytes of datasets\n",
           (unsigned long long)car_a, (unsigned long long)sil_a, SWITCH_AT, (unsigned long long)late_d, ALT_CHECK, na);
    free(d);
    free(a);
    free(b);
    free(c);
    remove(pa);
    remove(pb);
    remove(pc);
    remove(pd);
    return cs_test_done("rank_switch");
}
