/*
 * test_sidetable.c -- the engine's per-timer side table (sim/cs_engine*.c,
 * DESIGN-NOTES N46) with values too wide for its 32-bit fields: a handler's
 * cycles and the first due height (kept as an offset from the scheduling
 * height) of 2^32 - 1 and more go to the extras table, with value deadlines.
 *
 * No agent of the catalog asks for such timers (gas_limit <= 10^9, delays
 * <= 10^7), so the test drives the real engine (cs_sim_init/step/done, FIFO,
 * fifo_fire_cycles = 2^40) with one heartbeat entry whose ops table is
 * replaced by a scripted agent: it schedules the timers below with their
 * ids, cancels two, and records what the engine reports back to it at each
 * fire (cs_timer_info_t: cycles_used and deadline are read from the side
 * table).  Every expected value is the script's own input: due = the
 * scheduling height + delay, cycles charged = min(cycles, 2^40) (the FIFO
 * per-fire budget, CIP-5 §5.2; the engine caps a handler's use at the
 * delivery's cycles_limit), delay 0 (the lane has room for every fire).
 *
 * A slot a timer leaves is reusable only after the block ends (the core
 * retires it, cs_eob.c): from the next block on after a cancel, from the
 * one after next after a fire.  The script takes each such slot when it is
 * the only free one, so which timer lands in it is known:
 *
 *   block  on_block (cancels first)              fires at the block's end
 *   b0     T0 d=1 c=2^32; T2 d=2^32 c=7
 *          deadline 4; T3 d=2^40 c=2^40+1
 *          deadline 3; T6 d=2^32-2 c=3 (the
 *          widest offset in 32 bits); T7
 *          d=2^32-1 c=3 deadline 6 (the marker
 *          value: extras); T8 due UINT64_MAX c=1;
 *          M1 d=2^32-1 c=3, M2 d=10 c=2^32-1
 *          (the marker values, no deadline)
 *   b1     cancel T2                             T0 (2^32)
 *   b2     N1 d=1 c=11 takes T2's slot
 *          (wide due -> narrow)
 *   b3     W1 d=1 c=2^32+1 deadline 9 takes      N1 (11)
 *          T0's slot (wide cycles -> wide)
 *   b4                                           W1 (2^32+1)
 *   b5     W2 d=2^40+7 c=13 takes N1's slot
 *          (narrow -> wide due)
 *   b6     cancel T7; W3 d=1 c=2^32-1 deadline
 *          5 takes W1's slot (wide -> wide,
 *          an extras entry reused)
 *   b7     N2 d=1 c=2^32-2 takes T7's slot       W3 (2^32-1)
 *          (wide due -> narrow)
 *   b8                                           N2 (2^32-2)
 *   b9     N3 d=1 c=2^40 takes W3's slot
 *          (wide -> wide, without W3's
 *          deadline); N4 d=1 c=2^40+1
 *   b10                                          M2 (2^32-1), N3 (2^40),
 *                                                N4 (2^40 charged)
 *
 * (Names are labels: N and W timers are scheduled after b0.)  At the close
 * T3, T6, T8, M1 and W2 are pending.  Checked: the FIRED reports
 * (cycles_used, deadline, due height, delay, which slot), the /fires rows
 * (cycles charged, due height, delay, height), and one /timers row per
 * timer (outcome, scheduling and first due height, end height, fires,
 * deadline), joined on timer_id; and that each "takes X's slot" is so
 * (cs_sched_find), one slot being free each time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_agent.h"
#include "cs_engine.h"
#include "cs_h5.h"
#include "cs_scenario.h"
#include "cs_sched.h"
#include "cs_test.h"

#define P32 (UINT64_C(1) << 32)
#define P40 (UINT64_C(1) << 40)
#define NBLOCKS 11

/* The script: one row per timer. */
typedef struct st_spec {
    const char *name;
    int at;            /* block index (0 = first block) it is scheduled in */
    uint64_t delay;    /* due = scheduling height + delay; 0: due UINT64_MAX */
    uint64_t cycles;   /* cycles_used of the request */
    uint64_t deadline; /* value deadline, 0 = none */
    int cancel_at;     /* block index it is cancelled in, -1 = never */
    int reuses;        /* index of the timer whose freed slot it must take, -1 = any */
    int fires_at;      /* block index it fires in, -1 = never */
} st_spec_t;

enum { T0, T2, T3, T6, T7, T8, M1, M2, N1, W1, W2, W3, N2, N3, N4, NT };
static const st_spec_t st_spec[NT] = {
    [T0] = {"T0", 0, 1, P32, 0, -1, -1, 1},
    [T2] = {"T2", 0, P32, 7, 4, 1, -1, -1},
    [T3] = {"T3", 0, P40, P40 + 1, 3, -1, -1, -1},
    [T6] = {"T6", 0, P32 - 2, 3, 0, -1, -1, -1},
    [T7] = {"T7", 0, P32 - 1, 3, 6, 6, -1, -1},
    [T8] = {"T8", 0, 0, 1, 0, -1, -1, -1},
    [M1] = {"M1", 0, P32 - 1, 3, 0, -1, -1, -1},
    [M2] = {"M2", 0, 10, P32 - 1, 0, -1, -1, 10},
    [N1] = {"N1", 2, 1, 11, 0, -1, T2, 3},
    [W1] = {"W1", 3, 1, P32 + 1, 9, -1, T0, 4},
    [W2] = {"W2", 5, P40 + 7, 13, 0, -1, N1, -1},
    [W3] = {"W3", 6, 1, P32 - 1, 5, -1, W1, 7},
    [N2] = {"N2", 7, 1, P32 - 2, 0, -1, T7, 8},
    [N3] = {"N3", 9, 1, P40, 0, -1, W3, 10},
    [N4] = {"N4", 9, 1, P40 + 1, 0, -1, -1, 10},
};

/* What happened to each timer, as the agent saw it. */
typedef struct st_seen {
    int scheduled;      /* the schedule call returned CS_OK */
    cs_hash_t id;
    uint64_t sched_h;   /* height of the block it was scheduled in */
    uint64_t due;       /* sched_h + delay (or UINT64_MAX) */
    uint32_t slot;      /* its record slot */
    int fired;          /* FIRED reports */
    uint64_t fire_h;    /* height of the block it fired in */
    cs_timer_info_t info; /* the FIRED report */
    uint64_t fire_delay;
    int cancelled;      /* cancel returned CS_OK */
} st_seen_t;

static st_seen_t st_seen[NT];
static cs_engine_t *st_engine;
static uint64_t st_h0;   /* height of block b0 */
static int st_other;     /* outcomes other than FIRED, unknown tags, failed calls */

static uint32_t st_slot_of(const cs_hash_t *id)
{
    const cs_sched_t *s = cs_sim_sched(st_engine);
    const cs_timer_t *t = cs_sched_find(s, id);
    return t ? (uint32_t)(t - cs_sched_record(s, 0)) : UINT32_MAX;
}

static void st_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    if (st_h0 == 0) st_h0 = o->height;
    int b = (int)(o->height - st_h0);
    for (int i = 0; i < NT; i++) /* cancels first: they free the slots the schedules take */
        if (st_spec[i].cancel_at == b) {
            if (cs_world_cancel(w, a, 0, &st_seen[i].id) == CS_OK) st_seen[i].cancelled = 1;
            else st_other++;
        }
    for (int i = 0; i < NT; i++) {
        const st_spec_t *sp = &st_spec[i];
        if (sp->at != b) continue;
        cs_timer_req_t q;
        memset(&q, 0, sizeof q);
        q.kind = (uint8_t)CS_KIND_HEIGHT;
        q.delay = sp->delay ? sp->delay : UINT64_MAX - o->height; /* due = UINT64_MAX */
        q.cycles_used = sp->cycles;
        q.deadline = sp->deadline;
        q.value = 1e6;
        q.tag = (uint32_t)i;
        st_seen_t *sn = &st_seen[i];
        if (cs_world_schedule(w, a, &q, &sn->id) != CS_OK) {
            fprintf(stderr, "sidetable: %s refused at block %d\n", sp->name, b);
            st_other++;
            continue;
        }
        sn->scheduled = 1;
        sn->sched_h = o->height;
        sn->due = o->height + q.delay;
        sn->slot = st_slot_of(&sn->id);
    }
}

static void st_on_outcome(cs_agent_t *a, cs_world_t *w, const cs_timer_info_t *t, int outcome, uint64_t delay,
                          double paid)
{
    (void)a, (void)paid;
    if (outcome != CS_AO_FIRED || t->tag >= NT) {
        st_other++;
        return;
    }
    st_seen_t *sn = &st_seen[t->tag];
    sn->fired++;
    sn->fire_h = cs_world_height(w);
    sn->info = *t;
    sn->fire_delay = delay;
}

/* Index of the timer with this /timers or /fires timer_id (the id's first
 * 8 bytes, big-endian), or -1. */
static int st_by_id(uint64_t id64)
{
    for (int i = 0; i < NT; i++) {
        uint64_t v = 0;
        for (int k = 0; k < 8; k++) v = (v << 8) | st_seen[i].id.b[k];
        if (st_seen[i].scheduled && v == id64) return i;
    }
    return -1;
}

int main(void)
{
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "%s/cs_sidetable_%d", cs_test_tmpdir(), (int)getpid());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/fifo.h5", dir);
    /* One heartbeat actor whose ops become the script; a balance far above
     * what the fires cost, the FIFO per-fire budget at its largest. */
    static const char *text =
        "{\"name\": \"sidetable\", \"seed\": 5, \"blocks\": 11, \"mechanism\": \"fifo\",\n"
        " \"params\": {\"fifo_fire_cycles\": 1099511627776, \"max_cycles_per_fire\": 281474976710656,\n"
        "            \"lane_timer_cycles\": 281474976710656},\n"
        " \"agents\": [{\"kind\": \"heartbeat\", \"count\": 1, \"value_aware\": false,\n"
        "              \"balance\": \"1000000000000000000000000000000\"}]}\n";
    cs_scenario_t *scn = NULL;
    cs_errlist_t errs = {0};
    int rc = cs_scenario_load(text, strlen(text), NULL, 0, &scn, &errs);
    for (size_t i = 0; i < errs.n; i++) fprintf(stderr, "sidetable: scenario: %s\n", errs.msg[i]);
    cs_errlist_free(&errs);
    CS_CHECK_EQ_U64(rc, CS_OK);
    if (rc != CS_OK) return cs_test_done("sidetable");
    cs_agent_ops_t ops = *scn->agents[0].ops; /* heartbeat's name, kind and parameter table */
    ops.init = NULL;
    ops.on_block = st_on_block;
    ops.on_outcome = st_on_outcome;
    ops.gba = NULL;
    ops.bid = NULL;
    ops.value = NULL;
    ops.fini = NULL;
    scn->agents[0].ops = &ops;
    cs_sim_opts_t opts;
    memset(&opts, 0, sizeof opts);
    opts.out_path = path;
    opts.seed = scn->seed;
    opts.check_invariants = 1;
    char err[512];
    rc = cs_sim_init(&st_engine, scn, "fifo", &opts, err, sizeof err);
    if (rc != CS_OK) fprintf(stderr, "sidetable: init: %s\n", err);
    CS_CHECK_EQ_U64(rc, CS_OK);
    if (rc != CS_OK) {
        cs_scenario_free(scn);
        return cs_test_done("sidetable");
    }
    int blocks = 0;
    while ((rc = cs_sim_step(st_engine)) == CS_OK) blocks++;
    CS_CHECK_EQ_U64(rc, CS_EINTERRUPTED);
    CS_CHECK_EQ_U64(blocks, NBLOCKS);
    CS_CHECK_EQ_U64(cs_sim_done(st_engine, rc == CS_EINTERRUPTED, NULL), CS_OK);
    cs_scenario_free(scn);
    CS_CHECK_EQ_U64(st_other, 0);

    /* What the agent was told at each fire, and the slots. */
    for (int i = 0; i < NT; i++) {
        const st_spec_t *sp = &st_spec[i];
        const st_seen_t *sn = &st_seen[i];
        CS_CHECK(sn->scheduled);
        CS_CHECK_EQ_U64(sn->sched_h, st_h0 + (uint64_t)sp->at);
        CS_CHECK_EQ_U64(sn->due, sp->delay ? st_h0 + (uint64_t)sp->at + sp->delay : UINT64_MAX);
        CS_CHECK_EQ_U64(sn->cancelled, sp->cancel_at >= 0);
        CS_CHECK_EQ_U64(sn->fired, sp->fires_at >= 0);
        if (sp->reuses >= 0) {
            if (sn->slot != st_seen[sp->reuses].slot)
                fprintf(stderr, "sidetable: %s in slot %u, not %s's %u\n", sp->name, sn->slot,
                        st_spec[sp->reuses].name, st_seen[sp->reuses].slot);
            CS_CHECK_EQ_U64(sn->slot, st_seen[sp->reuses].slot);
        }
        if (sp->fires_at < 0 || !sn->fired) continue;
        CS_CHECK_EQ_U64(sn->fire_h, st_h0 + (uint64_t)sp->fires_at);
        CS_CHECK_EQ_U64(sn->info.cycles_used, sp->cycles);
        CS_CHECK_EQ_U64(sn->info.deadline, sp->deadline);
        CS_CHECK_EQ_U64(sn->info.due_height, sn->due);
        CS_CHECK_EQ_U64(sn->info.sched_height, sn->sched_h);
        CS_CHECK_EQ_U64(sn->fire_delay, 0);
    }

    /* The file: /fires and /timers. */
    int herr = 0;
    cs_h5_reader_t *r = cs_h5_open_read(path, &herr);
    CS_CHECK(r != NULL);
    if (!r) return cs_test_done("sidetable");
    cs_h5_fire_t *fr = NULL;
    cs_h5_timer_t *tr = NULL;
    size_t nf = 0, nt = 0;
    CS_CHECK_EQ_U64(cs_h5_read_all(r, CS_H5_FIRES, (void **)&fr, &nf), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_read_all(r, CS_H5_TIMERS, (void **)&tr, &nt), CS_OK);
    cs_h5_close_read(r);
    /* Fires: T0, N1, W1, W3, N2, M2, N3, N4. */
    CS_CHECK_EQ_U64(nf, 8);
    int fired_rows[NT] = {0};
    for (size_t k = 0; k < nf; k++) {
        int i = st_by_id(fr[k].timer_id);
        CS_CHECK(i >= 0);
        if (i < 0) continue;
        const st_spec_t *sp = &st_spec[i];
        fired_rows[i]++;
        CS_CHECK_EQ_U64(fr[k].height, st_h0 + (uint64_t)sp->fires_at);
        CS_CHECK_EQ_U64(fr[k].due_height, st_seen[i].due);
        CS_CHECK_EQ_U64(fr[k].delay, 0);
        /* min(cycles, 2^40): N4's 2^40 + 1 is capped at the budget. */
        CS_CHECK_EQ_U64(fr[k].cycles, sp->cycles < P40 ? sp->cycles : P40);
    }
    for (int i = 0; i < NT; i++) CS_CHECK_EQ_U64(fired_rows[i], st_spec[i].fires_at >= 0);
    /* Timers: one row each -- fired, cancelled (ended at their cancel's
     * block) or pending (ended at the close, the last block's height). */
    CS_CHECK_EQ_U64(nt, NT);
    int timer_rows[NT] = {0};
    for (size_t k = 0; k < nt; k++) {
        int i = st_by_id(tr[k].timer_id);
        CS_CHECK(i >= 0);
        if (i < 0) continue;
        const st_spec_t *sp = &st_spec[i];
        timer_rows[i]++;
        uint32_t want = sp->fires_at >= 0    ? CS_H5_OUTCOME_FIRED
                        : sp->cancel_at >= 0 ? CS_H5_OUTCOME_CANCELLED
                                             : CS_H5_OUTCOME_PENDING;
        uint64_t end = sp->fires_at >= 0    ? st_h0 + (uint64_t)sp->fires_at
                       : sp->cancel_at >= 0 ? st_h0 + (uint64_t)sp->cancel_at
                                            : st_h0 + NBLOCKS - 1;
        if (tr[k].due_height != st_seen[i].due)
            fprintf(stderr, "sidetable: %s due_height %llu, want %llu\n", sp->name,
                    (unsigned long long)tr[k].due_height, (unsigned long long)st_seen[i].due);
        CS_CHECK_EQ_U64(tr[k].outcome, want);
        CS_CHECK_EQ_U64(tr[k].sched_height, st_seen[i].sched_h);
        CS_CHECK_EQ_U64(tr[k].due_height, st_seen[i].due);
        CS_CHECK_EQ_U64(tr[k].end_height, end);
        CS_CHECK_EQ_U64(tr[k].fires, sp->fires_at >= 0);
        CS_CHECK_EQ_U64(tr[k].deadline, sp->deadline);
    }
    for (int i = 0; i < NT; i++) CS_CHECK_EQ_U64(timer_rows[i], 1);
    free(fr);
    free(tr);
    unlink(path);
    rmdir(dir);
    return cs_test_done("sidetable");
}
