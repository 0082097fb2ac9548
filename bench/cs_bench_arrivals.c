/*
 * cs_bench_arrivals.c -- the arrivals-only figure of `cowsim bench
 * backlog` (issue 26 point 3: per-arrival draws and decisions at <= 30 ns
 * on the machine).
 *
 * The agents of bench/backlog.json (2,000 affine_user instances, Poisson(1)
 * potential users each a block, value and waiting cost uniform, a
 * geometric delay) with an expected wait of 10^9 blocks, so every surplus
 * v - c W is negative and nobody joins, are built as the engine builds
 * them (the scenario's parameters and distributions, stream i of the
 * scenario's seed for instance i) and stepped through their on_block
 * against a world that only counts schedule calls, under a fixed
 * eip1559-like observation.  No scheduler, no output: the CPU time of the
 * calling thread over the blocks is the draws and decisions alone.
 * ns_per_arrival divides it by the nominal 2,000 arrivals a block (the
 * Poisson mean, as the backlog benchmark counts them); scheduled must be
 * 0 (the bench fails otherwise).  --quick steps 50 blocks, else 3,000.
 */
#include "cs_bench_arrivals.h"
#include "cs_agent.h"
#include "cs_bench_e2e.h"
#include "cs_rng.h"
#include "cs_scenario.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CS__AR_SCENARIO "bench/backlog.json"
#define CS__AR_PER_BLOCK 2000.0 /* nominal arrivals a block (2,000 users x rate 1) */

/* The world of the bench: schedules are counted, nothing else happens. */
typedef struct cs__ar_world {
    uint64_t scheduled; /* schedule calls */
    uint64_t height;    /* current block */
} cs__ar_world_t;

static int cs__ar_schedule(void *impl, cs_agent_t *a, const cs_timer_req_t *req, cs_hash_t *id_out)
{
    (void)a;
    (void)req;
    ((cs__ar_world_t *)impl)->scheduled++;
    if (id_out) memset(id_out, 0, sizeof *id_out);
    return CS_OK;
}
static int cs__ar_cancel(void *impl, cs_agent_t *a, uint32_t actor, const cs_hash_t *id)
{
    (void)impl, (void)a, (void)actor, (void)id;
    return CS_OK;
}
static int cs__ar_write_key(void *impl, cs_agent_t *a, uint32_t actor, const char *key)
{
    (void)impl, (void)a, (void)actor, (void)key;
    return CS_OK;
}
static uint64_t cs__ar_height(const void *impl) { return ((const cs__ar_world_t *)impl)->height; }
static double cs__ar_balance(const void *impl, const cs_agent_t *a, uint32_t actor)
{
    (void)impl, (void)a, (void)actor;
    return 1e24;
}
static const cs_world_ops_t cs__ar_world_ops = {cs__ar_schedule, cs__ar_cancel, cs__ar_write_key, cs__ar_height,
                                                cs__ar_balance};

/* Release agents [0, n) of ag and the array. */
static void cs__ar_free(cs_agent_t *ag, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (ag[i].ops && ag[i].ops->fini) ag[i].ops->fini(&ag[i]);
        free(ag[i].state);
        if (ag[i].rng) gsl_rng_free(ag[i].rng);
    }
    free(ag);
}

int cs_bench_arrivals(cs_bench_out_t *o, int quick)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", CS_SOURCE_DIR, CS__AR_SCENARIO);
    if (access(path, R_OK) != 0) snprintf(path, sizeof path, "%s", CS__AR_SCENARIO);
    const char *sets[1] = {"agents[0].params.expected_wait=1e9"};
    cs_scenario_t *scn = NULL;
    int rc = cs_bench_load_scenario(path, sets, 1, &scn);
    if (rc != CS_OK) return rc;
    size_t n = 0;
    for (size_t i = 0; i < scn->n_agents; i++) n += scn->agents[i].count;
    cs_agent_t *ag = calloc(n ? n : 1, sizeof *ag);
    cs__ar_world_t wi = {0, 0};
    cs_world_t w = {&cs__ar_world_ops, &wi};
    size_t built = 0;
    rc = ag ? CS_OK : CS_ENOMEM;
    for (size_t i = 0; i < scn->n_agents && rc == CS_OK; i++) {
        const cs_scn_agent_t *sa = &scn->agents[i];
        for (uint32_t c = 0; c < sa->count && rc == CS_OK; c++, built++) {
            cs_agent_t *a = &ag[built];
            a->ops = sa->ops;
            a->params = sa->params;
            a->dists = sa->dists;
            a->pol = sa->pol;
            a->index = (uint32_t)built;
            a->n_actors = 1;
            a->first_actor = (uint32_t)built;
            a->active = 1;
            a->rng = cs_rng_stream(scn->seed, built);
            a->state = sa->ops->state_size ? calloc(1, sa->ops->state_size) : NULL;
            if (!a->rng || (sa->ops->state_size && !a->state)) rc = CS_ENOMEM;
            else if (a->ops->init) rc = a->ops->init(a, &w);
        }
    }
    if (rc != CS_OK) {
        fprintf(stderr, "cowsim bench: arrivals: cannot build the agents: %s\n", cs_strerror(rc));
        if (ag) cs__ar_free(ag, built);
        cs_scenario_free(scn);
        return rc;
    }
    /* A congested eip1559 lane as the agents would see it (affine_user
     * reads the basefee, the tip and the utilisation). */
    cs_obs_t ob;
    memset(&ob, 0, sizeof ob);
    ob.mechanism = "eip1559";
    ob.basefee_lane = 1.5e10;
    ob.p50_tip = 1e9;
    ob.utilisation = 0.5;
    ob.demand_mult = 1.0;
    ob.vol_mult = 1.0;
    ob.fee_weight = 1.0;
    ob.fires_left = 0.0;
    uint64_t blocks = quick ? 50u : 3000u;
    double t0 = cs_bench_cpu_ns();
    for (uint64_t h = 1; h <= blocks; h++) {
        wi.height = h;
        ob.height = h;
        for (size_t i = 0; i < n; i++)
            if (ag[i].ops->on_block) ag[i].ops->on_block(&ag[i], &w, &ob);
    }
    double cpu = cs_bench_cpu_ns() - t0;
    double arrivals = CS__AR_PER_BLOCK * (double)blocks;
    cs_bench_section(o, "arrivals_draws");
    cs_bench_int(o, "agents", n);
    cs_bench_int(o, "blocks", blocks);
    cs_bench_num(o, "arrivals", arrivals);
    cs_bench_int(o, "scheduled", wi.scheduled);
    cs_bench_num(o, "cpu_seconds", cpu * 1e-9);
    cs_bench_num(o, "ns_per_arrival", cpu / arrivals);
    cs_bench_end_section(o);
    cs__ar_free(ag, n);
    cs_scenario_free(scn);
    if (wi.scheduled != 0) {
        fprintf(stderr, "cowsim bench: arrivals: %llu potential users joined (expected none)\n",
                (unsigned long long)wi.scheduled);
        return CS_EINVAL;
    }
    return CS_OK;
}
