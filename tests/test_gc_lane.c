/*
 * test_gc_lane.c -- the GC lane shared with the timer lane, the
 * counterfactual of CIP-1 rev §9's isolated TIMER_GC_CYCLES (gc_lane,
 * DESIGN-NOTES N85), against values computed by hand.
 *
 * Setup: LANE_TIMER_CYCLES 100,000, fifo-capped (first fit in FIFO order
 * under the lane budget, no fees), gc_cycles_per_timer 10,000.  In block 1
 * E timers due at 3 with expires_at 2 (so they expire at 3 and go to the
 * GC lane) and then 4 live timers of 25,000 cycles due at 3.
 *
 * Isolated (gc_cycles_per_block 30,000, E = 5): block 3 destroys 3 (30,000
 * GC cycles, backlog 2) and fires all 4 (100,000 lane cycles); block 4
 * destroys 2 and fires nothing.
 * Shared (same): block 3's GC takes 30,000 of the lane first, the auction
 * gets 70,000: 2 fire (50,000; a third would need 75,000); the lane did
 * 80,000.  Block 4: GC 20,000, budget 80,000, the other 2 fire: lane 70,000.
 * Shared with gc_cycles_per_block 250,000 > the lane (E = 12): GC is
 * clamped to the lane's 100,000: 10 destroyed, nothing fires, lane
 * 100,000, backlog 2; block 4: GC 20,000, 3 fire (75,000 <= 80,000), lane
 * 95,000; block 5: the last fires, lane 25,000.
 * The scenario loader refuses gc_lane "shared" with gc_cycles_per_timer
 * above lane_timer_cycles, naming params and both values.
 */
#include <string.h>

#include "cs_sched.h"
#include "cs_scenario.h"
#include "cs_test.h"

static cs_addr_t addr(uint8_t tag)
{
    cs_addr_t a;
    memset(&a, 0, sizeof a);
    a.b[19] = tag;
    return a;
}

static int step(cs_sched_t *s, cs_block_result_t *r)
{
    int rc = cs_sched_begin_block(s, cs_sched_height(s) + 1);
    if (rc == CS_OK) rc = cs_sched_end_block(s, r);
    return rc;
}

/* Per block 3, 4, 5: GC destroyed, GC cycles, fired, lane cycles, backlog. */
typedef struct {
    uint64_t destroyed, gc, fired, lane, backlog;
} want_t;

static void run_case(int shared, uint64_t gc_block, int n_expiring, const want_t want[3])
{
    cs_params_t p;
    cs_params_default(&p);
    p.lane_timer_cycles = 100000;
    p.gc_cycles_per_block = gc_block;
    p.gc_cycles_per_timer = 10000;
    p.gc_lane = shared ? CS_GC_SHARED : CS_GC_ISOLATED;
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, "fifo-capped", 0), CS_OK);
    cs_sched_args_t x;
    memset(&x, 0, sizeof x);
    cs_addr_t a = addr(7);
    x.actor = a;
    x.height = 3;
    x.gas_limit = 25000;
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    x.expires_at = 2;
    for (int i = 0; i < n_expiring; i++) CS_CHECK_EQ_U64(cs_sched_schedule(s, &x, NULL, NULL), CS_OK);
    x.expires_at = 0;
    for (int i = 0; i < 4; i++) CS_CHECK_EQ_U64(cs_sched_schedule(s, &x, NULL, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    CS_CHECK_EQ_U64(step(s, &r), CS_OK); /* 2 */
    char msg[256];
    for (int k = 0; k < 3; k++) {
        CS_CHECK_EQ_U64(step(s, &r), CS_OK); /* 3, 4, 5 */
        CS_CHECK_EQ_U64(r.st.gc_destroyed, want[k].destroyed);
        CS_CHECK_EQ_U64(r.st.gc_cycles, want[k].gc);
        CS_CHECK_EQ_U64(r.st.fired, want[k].fired);
        CS_CHECK_EQ_U64(r.st.lane_cycles, want[k].lane);
        CS_CHECK_EQ_U64(r.st.gc_backlog, want[k].backlog);
        CS_CHECK_EQ_U64(cs_sched_check_invariants(s, msg, sizeof msg), CS_OK);
    }
    cs_sched_free(s);
}

static void test_isolated(void)
{
    const want_t w[3] = {{3, 30000, 4, 100000, 2}, {2, 20000, 0, 0, 0}, {0, 0, 0, 0, 0}};
    run_case(0, 30000, 5, w);
}

static void test_shared(void)
{
    const want_t w[3] = {{3, 30000, 2, 80000, 2}, {2, 20000, 2, 70000, 0}, {0, 0, 0, 0, 0}};
    run_case(1, 30000, 5, w);
}

static void test_shared_clamped(void)
{
    const want_t w[3] = {{10, 100000, 0, 100000, 2}, {2, 20000, 3, 95000, 0}, {0, 0, 1, 25000, 0}};
    run_case(1, 250000, 12, w);
}

static void test_loader(void)
{
    const char *t = "{\"name\": \"gc\", \"blocks\": 10, \"mechanism\": \"fifo-capped\","
                    " \"agents\": [{\"kind\": \"heartbeat\"}],"
                    " \"params\": {\"gc_lane\": \"shared\", \"lane_timer_cycles\": 4000, \"gc_cycles_per_timer\": 5000}}";
    cs_errlist_t e = {0};
    cs_scenario_t *s = NULL;
    CS_CHECK_EQ_U64(cs_scenario_load(t, strlen(t), NULL, 0, &s, &e), CS_EINVAL);
    CS_CHECK(s == NULL);
    CS_CHECK_EQ_U64(e.n, 1);
    CS_CHECK(e.n == 1 && strstr(e.msg[0], "params: gc_cycles_per_timer (5000) must be <= lane_timer_cycles (4000) "
                                          "when gc_lane is \"shared\"") != NULL);
    cs_errlist_free(&e);
    /* The same costs with the isolated lane (the default) load. */
    const char *ok = "{\"name\": \"gc\", \"blocks\": 10, \"mechanism\": \"fifo-capped\","
                     " \"agents\": [{\"kind\": \"heartbeat\"}],"
                     " \"params\": {\"lane_timer_cycles\": 4000, \"gc_cycles_per_timer\": 5000}}";
    CS_CHECK_EQ_U64(cs_scenario_load(ok, strlen(ok), NULL, 0, &s, &e), CS_OK);
    CS_CHECK_EQ_U64(e.n, 0);
    cs_scenario_free(s);
    cs_errlist_free(&e);
}

int main(void)
{
    test_isolated();
    test_shared();
    test_shared_clamped();
    test_loader();
    return cs_test_done("gc_lane");
}
