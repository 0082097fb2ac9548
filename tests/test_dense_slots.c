/*
 * test_dense_slots.c -- sorting the free slots so new records take the
 * lowest first (DESIGN-NOTES N107) changes where records lie in memory and
 * nothing a user sees.
 *
 * The scenario is cs_test_flood_scenario's: bench/backlog.json scaled down
 * to 300 affine_user actors and a lane of 143 timers, with the default
 * lane basefee start, whose start-up flood fills thousands of slots and
 * then drains, leaving a standing backlog scattered through them.  It runs
 * twice under eip1559, with the free stack sorted every 64th block (the
 * default) and never sorted, and every dataset of the two files must be
 * identical byte for byte: /timers ends with a row for each timer still
 * pending, written in logical slot order (cs_sched_slot_order), which an
 * engine walking the physical slots would write in another order here. The
 * test also checks that the sorting moved records (the sorted run's live
 * records sit in lower slots, and some at a slot other than their logical
 * one), else the comparison proves nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_engine.h"
#include "cs_scenario.h"
#include "cs_sched.h"
#include "cs_test.h"

#define BLOCKS 1200u


typedef struct {
    uint64_t live;     /* live records at the close */
    uint64_t moved;    /* of them, at a slot other than their logical one */
    uint64_t max_slot; /* highest slot a live record holds */
    uint64_t pool;     /* slots ever used */
} layout_t;

static int run(const char *path, int dense, layout_t *lay)
{
    cs_scenario_t *scn = NULL;
    char txt[2048];
    cs_engine_t *e = cs_test_engine_text(cs_test_flood_scenario(txt, sizeof txt, "dense-slots", BLOCKS), "eip1559", path, &scn);
    if (e == NULL) return -1;
    cs_sim_dense_slots(e, dense);
    int rc;
    while ((rc = cs_sim_step(e)) == CS_OK) {
    }
    const cs_sched_t *s = cs_sim_sched(e);
    size_t np = cs_sched_pool_size(s);
    uint32_t *order = malloc((np ? np : 1) * sizeof *order);
    memset(lay, 0, sizeof *lay);
    lay->pool = np;
    if (order) {
        CS_CHECK_EQ_U64(cs_sched_slot_order(s, order), np);
        for (size_t l = 0; l < np; l++) {
            if (order[l] == UINT32_MAX) continue;
            lay->live++;
            lay->moved += order[l] != l;
            if (order[l] > lay->max_slot) lay->max_slot = order[l];
        }
    }
    free(order);
    cs_run_stats_t st;
    int drc = cs_sim_done(e, rc == CS_EINTERRUPTED, &st);
    cs_scenario_free(scn);
    return drc == CS_OK && rc == CS_EINTERRUPTED && st.blocks == BLOCKS && order != NULL ? 0 : -1;
}

int main(void)
{
    const char *dir = cs_test_tmpdir();
    char pd[4096], ps[4096];
    snprintf(pd, sizeof pd, "%s/dense-slots-d.h5", dir);
    snprintf(ps, sizeof ps, "%s/dense-slots-s.h5", dir);
    layout_t d, sp;
    CS_CHECK_EQ_U64(run(pd, 1, &d), 0);
    CS_CHECK_EQ_U64(run(ps, 0, &sp), 0);
    /* The same timers are live, in the same number of slots ... */
    CS_CHECK_EQ_U64(d.live, sp.live);
    CS_CHECK_EQ_U64(d.pool, sp.pool);
    /* ... but sorted, they sit lower, hundreds away from their logical
     * slot (those scheduled after the flood; the flood's stuck timers stay
     * where they landed); unsorted, every record is at its logical slot. */
    CS_CHECK(d.live > 1000);
    CS_CHECK(d.moved > 300);
    CS_CHECK(d.max_slot < sp.max_slot);
    CS_CHECK_EQ_U64(sp.moved, 0);
    size_t nd = 0, ns = 0;
    char *a = cs_test_datasets(pd, &nd), *b = cs_test_datasets(ps, &ns);
    CS_CHECK(a != NULL && b != NULL);
    if (a && b) {
        CS_CHECK_EQ_U64(ns, nd);
        CS_CHECK(ns == nd && memcmp(a, b, nd) == 0);
    }
    printf("dense_slots: %llu live records at the close in %llu slots; sorted, %llu moved and the highest at %llu "
           "(unsorted %llu); %zu bytes of datasets\n",
           (unsigned long long)d.live, (unsigned long long)d.pool, (unsigned long long)d.moved,
           (unsigned long long)d.max_slot, (unsigned long long)sp.max_slot, nd);
    free(a);
    free(b);
    remove(pd);
    remove(ps);
    return cs_test_done("dense_slots");
}
