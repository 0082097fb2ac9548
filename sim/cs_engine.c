/*
 * cs_engine.c -- the simulation engine: agents, environment and scenario
 * events around the scheduler core, with HDF5 output while the run goes.
 * This file holds the run's life: init, the block loop (cs_sim_step) and
 * the close (cs_sim_done).  The timer side table, the world ops and the
 * core's hooks are in cs_engine_world.c, the /timers and /identities rows
 * in cs_engine_output.c; the engine's state is in cs_engine_int.h.
 */
#include "cs_engine.h"
#include "cs_engine_int.h"
#include "cs_engine_output.h"
#include "cs_engine_world.h"

#include "cs_effective.h"

#include "cs_basefee.h"
#include "cs_fixed.h"
#include "cs_h5.h"
#include "cs_ledger.h"
#include "cs_mech_bias.h"
#include "cs_rng.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CS__AGENT_PF 4u /* agents ahead whose state and stream the TX phase fetches */
#define CS__ROW_PF 8u   /* rows ahead whose timer the block loop fetches */

/* ------------------------------------------------------------ utilities */

/* Keep the highest x (*top, made by *agent) and the highest x of any
 * agent other than *agent (*other): an agent's view of its competitors. */
static void cs__top2(double *top, uint32_t *agent, double *other, double x, uint32_t ag)
{
    if (ag == *agent) {
        if (x > *top) *top = x;
    } else if (*agent == UINT32_MAX || x > *top) {
        if (*agent != UINT32_MAX) *other = *top;
        *top = x;
        *agent = ag;
    } else if (x > *other) {
        *other = x;
    }
}

/* The cycle basefee agents observe: the environment's, or as timer fires are
 * charged it under lane_fee_multiplier_scope = fire (N38). */
static double cs__cycle_obs(const cs_params_t *p, double bc)
{
    cs_u128 c;
    if (p->lane_fee_multiplier_scope != CS_LFM_FIRE) return bc;
    return cs_basefee_cycle_charged(p, cs__d2u(bc), &c) == CS_OK ? cs__u128d(c) : 1e300;
}

/* Actor address: "c0 57" tag, then the run-wide actor index, big-endian. */
static void cs__mkaddr(cs_addr_t *a, uint32_t tag, uint64_t idx)
{
    memset(a, 0, sizeof *a);
    a->b[0] = 0xc0;
    a->b[1] = 0x57;
    a->b[2] = (uint8_t)tag;
    for (int i = 0; i < 8; i++) a->b[19 - i] = (uint8_t)(idx >> (8 * i));
}

/* Grow hs's buckets to cover delay d < CS__HIST_MAX (new ones zero). */
static int cs__hist_grow(cs__hist_t *hs, uint64_t d)
{
    uint32_t c = hs->n_count ? hs->n_count : 64;
    while (c <= d) c *= 2;
    uint64_t *p = realloc(hs->count, (size_t)c * sizeof *p);
    if (!p) return -1;
    memset(p + hs->n_count, 0, (size_t)(c - hs->n_count) * sizeof *p);
    hs->count = p;
    hs->n_count = c;
    return 0;
}

static int cs__hist_add(cs__hist_t *hs, uint64_t d)
{
    if (d < CS__HIST_MAX) {
        if (d >= hs->n_count && cs__hist_grow(hs, d) != 0) return -1;
        hs->count[d]++;
        hs->n++;
        return 0;
    }
    if (hs->n_big == hs->cap_big) {
        size_t c = hs->cap_big ? hs->cap_big * 2 : 64;
        uint64_t *p = realloc(hs->big, c * sizeof *p);
        if (!p) return -1;
        hs->big = p;
        hs->cap_big = c;
    }
    hs->big[hs->n_big++] = d;
    hs->n++;
    return 0;
}

static int cs__cmpu64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Quantile q of the delays: the value at rank ceil(q*n) (nearest-rank). */
static double cs__hist_q(cs__hist_t *hs, double q)
{
    if (hs->n == 0) return 0;
    uint64_t k = (uint64_t)ceil(q * (double)hs->n);
    if (k < 1) k = 1;
    uint64_t acc = 0;
    /* Buckets past n_count were never hit: they hold 0 and cannot reach k. */
    for (uint32_t d = 0; d < hs->n_count; d++) {
        acc += hs->count[d];
        if (acc >= k) return (double)d;
    }
    qsort(hs->big, hs->n_big, sizeof *hs->big, cs__cmpu64);
    uint64_t i = k - acc - 1;
    return i < hs->n_big ? (double)hs->big[i] : (double)hs->big[hs->n_big - 1];
}

/* ------------------------------------------------------------ event heap */

static int cs__ev_less(const cs__ev_t *a, const cs__ev_t *b)
{
    return a->h < b->h || (a->h == b->h && a->seq < b->seq);
}

static int cs__ev_push(cs_engine_t *e, uint64_t h, int type, uint32_t idx)
{
    if (e->n_ev == e->cap_ev) {
        size_t c = e->cap_ev ? e->cap_ev * 2 : 32;
        cs__ev_t *p = realloc(e->ev, c * sizeof *p);
        if (!p) return CS_ENOMEM;
        e->ev = p;
        e->cap_ev = c;
    }
    cs__ev_t x = {h, e->ev_seq++, type, idx};
    size_t i = e->n_ev++;
    while (i > 0 && cs__ev_less(&x, &e->ev[(i - 1) / 2])) {
        e->ev[i] = e->ev[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    e->ev[i] = x;
    return CS_OK;
}

static cs__ev_t cs__ev_pop(cs_engine_t *e)
{
    cs__ev_t top = e->ev[0], x = e->ev[--e->n_ev];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const cs__ev_t *b = &x;
        if (l < e->n_ev && cs__ev_less(&e->ev[l], b)) m = l, b = &e->ev[l];
        if (r < e->n_ev && cs__ev_less(&e->ev[r], b)) m = r;
        if (m == i) break;
        e->ev[i] = e->ev[m];
        i = m;
    }
    if (e->n_ev > 0) e->ev[i] = x;
    return top;
}

/* ------------------------------------------------------------ init */

/* Initial balance of one of sa's actors into *out: base units, or
 * {"fires": N} as N x the agent's expected price of a fire at the start
 * (cs_agent_fire_price).  CS_EOVERFLOW when that is 2^128 or more (a
 * saturated balance would pass for the one asked for). */
static int cs__fund(const cs_scn_agent_t *sa, const cs_agent_t *a, const cs_obs_t *o0, cs_u128 *out)
{
    if (!(sa->balance_fires > 0)) {
        *out = sa->balance;
        return CS_OK;
    }
    double x = sa->balance_fires * cs_agent_fire_price(a, o0);
    if (!(x < 0x1p128)) return CS_EOVERFLOW;
    *out = cs__d2u(x);
    return CS_OK;
}

/* Fund one actor (addr) of entry sa; an overflow (of its balance, or of the
 * sum over all actors, cs_ledger_fund) is reported at the entry's JSON
 * path into err, as the scenario's errors are (issue 25 #9). */
static int cs__fund_actor(cs_engine_t *e, const cs_scn_agent_t *sa, const cs_agent_t *a, const cs_obs_t *o0,
                          const cs_addr_t *addr, char *err, size_t errcap)
{
    cs_u128 bal = 0;
    int rc = cs__fund(sa, a, o0, &bal);
    if (rc == CS_OK) rc = cs_sched_fund(e->s, addr, bal);
    if (rc != CS_EOVERFLOW) return rc;
    size_t i = (size_t)(sa - e->scn->agents);
    if (sa->balance_fires > 0)
        snprintf(err, errcap,
                 "agents[%zu].balance.fires: %g fires at the opening price %g of mechanism %s fund more than "
                 "2^128 - 1 base units (one actor, or summed over all actors)",
                 i, sa->balance_fires, cs_agent_fire_price(a, o0), o0->mechanism);
    else
        snprintf(err, errcap, "agents[%zu].balance: the actors' balances sum to more than 2^128 - 1 base units", i);
    return rc;
}

int cs_sim_init(cs_engine_t **out, const cs_scenario_t *scn, const char *mechanism, const cs_sim_opts_t *opts,
                char *err, size_t errcap)
{
    *out = NULL;
    size_t ai = 0;
    cs_engine_t *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errcap, "out of memory");
        return CS_ENOMEM;
    }
    e->scn = scn;
    e->mech = mechanism;
    e->opts = *opts;
    e->world = cs__mkworld(e);
    int rc = cs_sched_alloc(&e->s, &scn->params, mechanism, 0);
    if (rc != CS_OK) {
        snprintf(err, errcap, "mechanism %s: %s", mechanism, cs_strerror(rc));
        free(e);
        return rc;
    }
    cs_sched_hooks_t hk = {e, cs__hook_execute, cs__hook_gba, cs__hook_usage, cs__hook_ahead};
    cs_sched_set_hooks(e->s, &hk);
    rc = CS_ENOMEM;
    /* The opening observation, for balances given in fires. */
    cs_obs_t o0;
    memset(&o0, 0, sizeof o0);
    o0.mechanism = mechanism;
    o0.basefee_lane = cs__u128d(cs_sched_lane_basefee_charged(e->s));
    o0.basefee_cycle = cs__cycle_obs(cs_sched_params(e->s), cs_proc_value(&scn->basefee_cycle, 1, NULL, NULL));
    if (cs_sched_lane_is_cycle(e->s)) { /* N65: as in every block's observation */
        o0.basefee_lane = o0.basefee_cycle;
        o0.basefee_cycle = 0;
    }
    o0.basefee_cell = cs_proc_value(&scn->basefee_cell, 1, NULL, NULL);
    o0.reserve_price = cs__u128d(cs_sched_params(e->s)->reserve_price);
    /* Expand agent entries into instances and actors. */
    size_t n_inst = 0, n_act = 0;
    for (size_t i = 0; i < scn->n_agents; i++) {
        const cs_scn_agent_t *sa = &scn->agents[i];
        uint32_t per = sa->ops->n_actors ? sa->ops->n_actors(sa->params) : 1;
        if (per == 0) per = 1;
        n_inst += sa->count;
        n_act += (size_t)sa->count * per;
    }
    e->agents = calloc(n_inst ? n_inst : 1, sizeof *e->agents);
    e->agent_kind = calloc(n_inst ? n_inst : 1, 1);
    e->demand_mult = calloc(n_inst ? n_inst : 1, sizeof *e->demand_mult);
    e->fee_w = calloc(n_inst ? n_inst : 1, sizeof *e->fee_w);
    e->vol_mult = calloc(n_inst ? n_inst : 1, sizeof *e->vol_mult);
    e->actors = calloc(n_act ? n_act : 1, sizeof *e->actors);
    e->addr = calloc(n_act ? n_act : 1, sizeof *e->addr);
    e->act_agent = calloc(n_act ? n_act : 1, sizeof *e->act_agent);
    e->act_sched = calloc(n_act ? n_act : 1, sizeof *e->act_sched);
    e->payer_dep = calloc(n_inst ? n_inst : 1, 1);
    e->rb = malloc(CS__ROWBUF * sizeof *e->rb);
    e->rf = malloc(CS__ROWBUF * sizeof *e->rf);
    e->rt = malloc(CS__ROWBUF * sizeof *e->rt);
    if (!e->agents || !e->agent_kind || !e->demand_mult || !e->fee_w || !e->vol_mult || !e->actors || !e->addr || !e->act_agent || !e->act_sched || !e->payer_dep || !e->rb ||
        !e->rf || !e->rt)
        goto fail;
    size_t ac = 0;
    for (size_t i = 0; i < scn->n_agents; i++) {
        const cs_scn_agent_t *sa = &scn->agents[i];
        uint32_t per = sa->ops->n_actors ? sa->ops->n_actors(sa->params) : 1;
        if (per == 0) per = 1;
        for (uint32_t c = 0; c < sa->count; c++, ai++) {
            cs_agent_t *a = &e->agents[ai];
            a->ops = sa->ops;
            a->params = sa->params;
            a->dists = sa->dists;
            a->pol = sa->pol;
            a->index = (uint32_t)ai;
            a->n_actors = per;
            a->first_actor = (uint32_t)ac;
            a->active = sa->enter_at == 0 && !(opts->drop_attackers && sa->attacker);
            a->rng = cs_rng_stream(opts->seed, ai);
            e->agent_kind[ai] = (uint8_t)sa->ops->kind;
            e->demand_mult[ai] = 1.0;
            e->fee_w[ai] = 1.0;
            e->vol_mult[ai] = 1.0;
            if (!a->rng) goto fail;
            /* The strategy's own stream, apart from the arrivals (CRN). */
            const cs_strategy_t *st = cs_scn_agent_strategy(sa, mechanism);
            if (st && st->kind != CS_STRAT_NONE &&
                cs_strategy_attach(a, st, cs_rng_stream(opts->seed, CS__STRAT_STREAM | ai)) != CS_OK)
                goto fail;
            if (sa->ops->state_size) {
                a->state = calloc(1, sa->ops->state_size);
                if (!a->state) goto fail;
            }
            for (uint32_t k = 0; k < per; k++, ac++) {
                cs__mkaddr(&e->addr[ac], 1, ac);
                cs__actor_t *act = &e->actors[ac];
                act->agent = (uint32_t)ai;
                e->act_agent[ac] = (uint32_t)ai;
                if ((rc = cs_sched_actor_index(e->s, &e->addr[ac], &act->sched_idx)) != CS_OK) goto fail;
                act->payer_idx = act->sched_idx;
                act->deployer = (uint32_t)ac;
                if (!(sa->fee_payer_deployer && sa->deployer) &&
                    (rc = cs__fund_actor(e, sa, a, &o0, &e->addr[ac], err, errcap)) != CS_OK)
                    goto fund_fail;
            }
            if (a->ops->init && (rc = a->ops->init(a, &e->world)) != CS_OK) {
                snprintf(err, errcap, "agent %zu (%s): init failed: %s", ai, a->ops->name, cs_strerror(rc));
                goto fail_msg;
            }
        }
    }
    e->n_agents = n_inst;
    e->n_actors = n_act;
    /* Issue 26 (N80, N83): the scheduler may defer a carried timer without
     * a row when no agent reads what a deferred row gives -- no strategy
     * (the observed thresholds and top bids), not value-aware (priced-out
     * cancels), no on_outcome, no SYS_CANCEL / SYS_EXTEND policy; the
     * deferral counts come on the timer's next row (row.silent).
     * COWSIM_RANKING=full keeps the full re-ranking (the baseline). */
    {
        int quiet = 1;
        for (size_t i = 0; i < n_inst && quiet; i++) {
            const cs_agent_t *a = &e->agents[i];
            quiet = !a->strat && !a->pol.value_aware && !a->ops->on_outcome && !a->pol.sys_cancel_after &&
                    !a->pol.sys_extend_within;
        }
        const char *rk = getenv("COWSIM_RANKING");
        /* What the core's hooks may skip for every timer of the run: the
         * owner's agent (three dependent loads a fire) is needed only when
         * some agent acts on it.  Agents' ops and policies do not change
         * during a run. */
        e->exec_bare = e->gba_none = 1;
        for (size_t i = 0; i < n_inst; i++) {
            const cs_agent_t *a = &e->agents[i];
            if (a->ops->on_outcome || a->pol.deferred_txs) e->exec_bare = 0;
            if (a->ops->gba || a->pol.value_aware || a->strat) e->gba_none = 0;
        }
        if (e->gba_none) {
            /* Every timer keeps the default GBA: without a hook the core
             * prices it directly, as it does when the hook declines
             * (CIP-1 rev §7.1), instead of building the hook's context and
             * calling it for every candidate. */
            cs_sched_hooks_t bare = {e, cs__hook_execute, NULL, cs__hook_usage, cs__hook_ahead};
            cs_sched_set_hooks(e->s, &bare);
        }
        e->rank_ok = quiet && !(rk && strcmp(rk, "full") == 0);
        cs_sched_set_ranking(e->s, e->rank_ok);
    }
    /* Named deployers after every actor, so a fairness identity (D12) is the
     * actor's own index for actors, and n_actors.. for deployers
     * (/identities). */
    for (size_t i = 0, a0 = 0; i < scn->n_agents; i++) {
        const cs_scn_agent_t *sa = &scn->agents[i];
        uint32_t per = sa->ops->n_actors ? sa->ops->n_actors(sa->params) : 1;
        size_t na = (size_t)sa->count * (per ? per : 1);
        if (sa->deployer) {
            cs_addr_t dep;
            uint32_t di;
            cs__deployer_addr(sa->deployer, &dep);
            if ((rc = cs_sched_actor_index(e->s, &dep, &di)) != CS_OK) goto fail;
            for (size_t k = a0; k < a0 + na; k++) {
                e->actors[k].deployer = di;
                if ((rc = cs_sched_set_deployer(e->s, &e->addr[k], &dep)) != CS_OK) goto fail;
                if (sa->fee_payer_deployer) {
                    e->actors[k].payer_idx = di;
                    e->payer_dep[e->actors[k].agent] = 1;
                    rc = cs__fund_actor(e, sa, &e->agents[e->actors[k].agent], &o0, &dep, err, errcap);
                    if (rc != CS_OK) goto fund_fail;
                }
            }
        }
        a0 += na;
    }
    for (size_t k = 0; k < n_act; k++)
        if (e->actors[k].sched_idx != k) {
            snprintf(err, errcap, "internal error: actor %zu has scheduler identity %u", k,
                     (unsigned)e->actors[k].sched_idx);
            rc = CS_EINVAL;
            goto fail_msg;
        }
    /* Scenario events into the event queue. */
    for (size_t i = 0; i < scn->n_events; i++)
        if ((rc = cs__ev_push(e, scn->events[i].at, (int)scn->events[i].type, (uint32_t)i)) != CS_OK) goto fail;
    for (size_t i = 0; i < scn->n_agents; i++) {
        const cs_scn_agent_t *sa = &scn->agents[i];
        if (sa->enter_at && (rc = cs__ev_push(e, sa->enter_at, 200, (uint32_t)i)) != CS_OK) goto fail;
        if (sa->exit_at && (rc = cs__ev_push(e, sa->exit_at, 201, (uint32_t)i)) != CS_OK) goto fail;
    }
    e->env_rng = cs_rng_stream(opts->seed, UINT64_C(0xe17e000000000000));
    if (!e->env_rng) goto fail;
    if ((rc = cs_conv_new(scn, mechanism, &e->conv)) != CS_OK) goto fail;
    e->walk_cycle = scn->basefee_cycle.value;
    e->walk_cell = scn->basefee_cell.value;
    if (opts->out_path) {
        cs_h5_meta_t meta;
        memset(&meta, 0, sizeof meta);
        meta.cowsim_version = CS_VERSION;
        meta.git_commit = CS_GIT_COMMIT;
        meta.scenario_json = scn->text;
        meta.seed = opts->seed;
        meta.mechanism = mechanism;
        meta.blocks_hint = scn->blocks;
        int herr = 0;
        uint64_t t0 = cs__now_ns();
        e->h5 = cs_h5_create(opts->out_path, &meta, &herr);
        if (!e->h5) {
            snprintf(err, errcap, "cannot create %s: %s", opts->out_path,
                     herr == CS_EIO ? cs_h5_last_error() : cs_strerror(herr));
            rc = CS_EIO;
            goto fail_msg;
        }
        cs_h5_set_fires_mode(e->h5, (cs_h5_fires_mode)scn->output.fires, scn->output.sample_every);
        char *eff = cs_effective_json(scn, mechanism, opts->seed);
        rc = eff ? cs_h5_attr_str(e->h5, "params_effective", eff) : CS_ENOMEM;
        free(eff);
        if (rc == CS_OK && opts->drop_attackers) rc = cs_h5_attr_u64(e->h5, "attackers_removed", 1);
        if (rc == CS_OK) rc = cs__write_idents(e);
        if (rc == CS_OK) rc = cs__write_nmax(e);
        if (rc != CS_OK) {
            snprintf(err, errcap, "cannot write %s: %s", opts->out_path, cs_h5_last_error());
            goto fail_msg;
        }
        e->h5_ns += cs__now_ns() - t0;
    }
    *out = e;
    return CS_OK;
fund_fail:
    if (rc == CS_EOVERFLOW) goto fail_msg; /* cs__fund_actor wrote the message */
fail:
    snprintf(err, errcap, "%s", cs_strerror(rc == CS_OK ? CS_ENOMEM : rc));
fail_msg:
    /* Agent ai may be half built (state and stream allocated, init not run
     * or failed): release it here, cs_sim_done finishes agents [0, ai). */
    if (e->agents && ai < n_inst) {
        free(e->agents[ai].state);
        e->agents[ai].state = NULL;
        if (e->agents[ai].rng) gsl_rng_free(e->agents[ai].rng);
        e->agents[ai].rng = NULL;
        cs_strategy_detach(&e->agents[ai]);
    }
    e->n_agents = ai;
    cs_sim_done(e, 0, NULL);
    return rc == CS_OK ? CS_ENOMEM : rc;
}

/* See cs_engine.h. */
int cs_sim_check_funds(const cs_scenario_t *scn, char *err, size_t errcap)
{
    int fires = 0;
    for (size_t i = 0; i < scn->n_agents; i++) fires |= scn->agents[i].balance_fires > 0;
    if (!fires) return CS_OK;
    for (size_t m = 0; m < scn->n_mechs; m++) {
        cs_sim_opts_t opts = {NULL, scn->seed, 0, 0};
        cs_engine_t *e = NULL;
        int rc = cs_sim_init(&e, scn, scn->mechs[m], &opts, err, errcap);
        if (rc != CS_OK) return rc;
        cs_sim_done(e, 0, NULL);
    }
    return CS_OK;
}

uint64_t cs_sim_height(const cs_engine_t *e) { return e->h; }
const cs_sched_t *cs_sim_sched(const cs_engine_t *e) { return e->s; }
const char *cs_sim_error(const cs_engine_t *e) { return e->err; }

void cs_sim_counts(const cs_engine_t *e, uint64_t *timers, uint64_t *fires)
{
    *timers = e->kind_timers[CS_AK__COUNT];
    *fires = e->kind_fires[CS_AK__COUNT];
}

/* The core's full re-ranking from the next block on (the baseline of bench
 * backlog, N80): the core drops its ranking of the carried timers, which
 * every block does anyway when the incremental path does not apply, so
 * the outcomes are the same. */
void cs_sim_full_ranking(cs_engine_t *e) { cs_sim_ranking(e, 1); }

/* Full re-ranking (full != 0) or back to what cs_sim_init chose from the
 * next block on.  Back on, the core rebuilds its ranking from the carried
 * timers at the next block's gate (cs_eob.c cs__rank_gate), so a run can
 * alternate the two paths (bench backlog's paired segments) with the same
 * outcomes (tests/test_rank_switch.c). */
void cs_sim_ranking(cs_engine_t *e, int full) { cs_sched_set_ranking(e->s, !full && e->rank_ok); }

void cs_sim_dense_slots(cs_engine_t *e, int dense) { cs_sched_set_dense(e->s, dense); }

void cs_sim_mem(const cs_engine_t *e, cs_sim_mem_t *m)
{
    memset(m, 0, sizeof *m);
    cs_sched_mem(e->s, &m->sched);
    m->side_bytes = e->ti_n * sizeof *e->ti;
    m->side_cap_bytes = e->ti_cap * sizeof *e->ti;
    m->extras_bytes = e->n_tex * (sizeof *e->tex + sizeof *e->tex_free);
    m->extras_cap_bytes = e->tex_cap * (sizeof *e->tex + sizeof *e->tex_free);
}

/* Whether agents[i] of the scenario is removed from this run (N44). */
static int cs__removed(const cs_engine_t *e, size_t i)
{
    return e->opts.drop_attackers && i < e->scn->n_agents && e->scn->agents[i].attacker;
}

/* ------------------------------------------------------------ one block */

static void cs__events(cs_engine_t *e, uint64_t h)
{
    const cs_scenario_t *scn = e->scn;
    while (e->n_ev > 0 && e->ev[0].h <= h) {
        cs__ev_t ev = cs__ev_pop(e);
        if (ev.type >= 200) {
            /* Actor entry (200) / exit (201) of agents[ev.idx] (all instances). */
            size_t base = 0;
            for (size_t i = 0; i < ev.idx; i++) base += scn->agents[i].count;
            for (size_t k = 0; k < scn->agents[ev.idx].count; k++)
                e->agents[base + k].active = ev.type == 200 && !cs__removed(e, ev.idx);
            continue;
        }
        const cs_scn_event_t *se = &scn->events[ev.idx];
        int end = ev.type >= 100;
        switch (se->type) {
        case CS_EV_PARAMS: {
            /* CIP-5 CN §13: governance updates take effect at the next
             * epoch (param_changes = epoch, DESIGN-NOTES N54): a change
             * inside an epoch waits for the first block of the next one
             * (epoch k starts at k x epoch_blocks); end marks that wait. */
            const cs_params_t *cur = cs_sched_params(e->s);
            uint64_t E = cur->epoch_blocks;
            if (!end && cur->param_changes == CS_PCHANGE_EPOCH && h % E != 0) {
                if (cs__ev_push(e, (h / E + 1) * E, 100 + (int)se->type, ev.idx) != CS_OK) {
                    e->failed = 1;
                    cs__seterr(e, "out of memory deferring the parameter change at %llu",
                               (unsigned long long)se->at);
                }
                break;
            }
            if (cs_sched_set_params(e->s, &se->params) != CS_OK)
                cs__seterr(e, "events: parameter change at %llu cannot alter the queue geometry",
                           (unsigned long long)se->at);
            break;
        }
        case CS_EV_DEMAND_SHOCK:
        case CS_EV_VOLATILITY:
            for (size_t i = 0; i < e->n_agents; i++) {
                if (se->kinds_mask && !(se->kinds_mask & (1u << e->agent_kind[i]))) continue;
                double *m = se->type == CS_EV_DEMAND_SHOCK ? &e->demand_mult[i] : &e->vol_mult[i];
                *m = end ? 1.0 : se->mult;
            }
            if (!end) cs__ev_push(e, h + (se->duration ? se->duration : 1), 100 + (int)se->type, ev.idx);
            break;
        case CS_EV_LANE_PAUSE:
            if (end) {
                if (e->pause_depth) e->pause_depth--;
            } else {
                e->pause_depth++;
                cs__ev_push(e, h + (se->duration ? se->duration : 1), 100 + (int)se->type, ev.idx);
            }
            break;
        case CS_EV_ACTOR_ENTRY:
        case CS_EV_ACTOR_EXIT: {
            size_t base = 0;
            for (size_t i = 0; i < se->agent && i < scn->n_agents; i++) base += scn->agents[i].count;
            if (se->agent < scn->n_agents)
                for (size_t k = 0; k < scn->agents[se->agent].count; k++)
                    e->agents[base + k].active = se->type == CS_EV_ACTOR_ENTRY && !cs__removed(e, se->agent);
            break;
        }
        }
    }
}

static double cs__kind_sumq(cs_engine_t *e, int k, double q) { return cs__hist_q(&e->hist[k], q); }

/* Make the /weights buffers hold cap rows.  CS_OK, or CS_ENOMEM with
 * every buffer still holding the old capacity. */
static int cs__weights_grow(cs_engine_t *e, size_t cap)
{
    uint32_t *id = realloc(e->w_id, cap * sizeof *id);
    if (id) e->w_id = id;
    uint64_t *rec = realloc(e->w_rec, cap * sizeof *rec);
    if (rec) e->w_rec = rec;
    uint64_t *w = realloc(e->w_w, cap * sizeof *w);
    if (w) e->w_w = w;
    cs_h5_weight_t *rows = realloc(e->w_rows, cap * sizeof *rows);
    if (rows) e->w_rows = rows;
    if (!id || !rec || !w || !rows) return CS_ENOMEM;
    e->w_cap = cap;
    return CS_OK;
}

int cs_sim_step(cs_engine_t *e)
{
    if (e->failed) return CS_EIO;
    if (e->h >= e->scn->blocks) return CS_EINTERRUPTED;
    uint64_t h = e->h + 1;
    cs__events(e, h);
    int rc = cs_sched_begin_block(e->s, h);
    if (rc != CS_OK) return rc;
    /* D13: the CIP-3 environment for this block. */
    double bc = cs_proc_value(&e->scn->basefee_cycle, h, &e->walk_cycle, e->env_rng);
    double bl = cs_proc_value(&e->scn->basefee_cell, h, &e->walk_cell, e->env_rng);
    cs_sched_set_env(e->s, cs__d2u(bc), cs__d2u(bl));
    cs_sched_set_paused(e->s, e->pause_depth > 0);
    e->obs.height = h;
    e->obs.mechanism = e->mech;
    e->obs.basefee_lane = cs__u128d(cs_sched_lane_basefee_charged(e->s));
    /* First-draft gba-tip (N65): the price base max_fee must cover is the
     * cycle basefee, and no lane basefee comes on top, so agents see it as
     * the lane's and a cycle basefee of 0 outside it (a fire costs (0 +
     * basefee_lane + tip) per cycle in their estimates, once). */
    e->obs.basefee_cycle = cs_sched_lane_is_cycle(e->s) ? 0 : cs__cycle_obs(cs_sched_params(e->s), bc);
    e->obs.basefee_cell = bl;
    e->obs.p50_tip = cs__u128d(cs_sched_p50_tip(e->s));
    e->obs.reserve_price = cs__u128d(cs_sched_params(e->s)->reserve_price);
    e->obs.bias0 = cs__u128d(cs_fixed_bias(0, cs_sched_params(e->s)->lambda, cs_sched_params(e->s)->bias_scale));
    e->obs.fire_cycles = cs_sched_params(e->s)->max_cycles_per_fire;
    e->obs.lambda = (double)cs_mech_lambda(cs_sched_mech(e->s)) / (double)CS_PPB; /* 0 unless bias-* */
    e->obs.reserve_gate = cs_sched_params(e->s)->reserve_mode == CS_RESERVE_BID_GATE;
    e->obs.paused = e->pause_depth > 0;
    e->blk_rejected = 0;
    memset(e->blk_book_ref, 0, sizeof e->blk_book_ref);
    /* First-draft gba-tip delivers and executes the block's due timers
     * before its transactions (CIP-1 first draft §3, N69): here, with the
     * block's environment set and no agent on the stack. */
    if ((rc = cs_sched_timers(e->s)) != CS_OK) {
        cs__seterr(e, "block %llu: %s", (unsigned long long)h, cs_strerror(rc));
        return rc;
    }

    /* TX phase: first the cancels of timers priced out for longer than
     * their agent's patience (the real, metered cancel path, CIP-5 §6.1)
     * and the system deployers' opcodes (N55), then every active agent
     * acts, in index order. */
    for (size_t i = 0; i < e->n_pc; i++) cs__pc_apply(e, &e->pc[i]);
    e->n_pc = 0;
    e->in_arrivals = 1;
    for (size_t i = 0; i < e->n_agents; i++) {
        cs_agent_t *a = &e->agents[i];
        /* Each agent's state and stream are separate allocations the
         * rest of the block has evicted: fetch them a few agents ahead,
         * the stream's own state (behind its pointer) one step later. */
        if (i + 2 * CS__AGENT_PF < e->n_agents) __builtin_prefetch(&e->agents[i + 2 * CS__AGENT_PF]);
        if (i + CS__AGENT_PF < e->n_agents) {
            const cs_agent_t *b = &e->agents[i + CS__AGENT_PF];
            __builtin_prefetch(b->state, 1);
            __builtin_prefetch(b->rng);
        }
        if (i + CS__AGENT_PF / 2 < e->n_agents && e->agents[i + CS__AGENT_PF / 2].rng)
            __builtin_prefetch(e->agents[i + CS__AGENT_PF / 2].rng->state, 1);
        if (!a->active || !a->ops->on_block) continue;
        e->obs.demand_mult = e->demand_mult[i];
        e->obs.vol_mult = e->vol_mult[i];
        e->obs.fee_weight = e->fee_w[i];
        if (a->strat) cs_strategy_observe(a, &e->obs);
        a->ops->on_block(a, &e->world, &e->obs);
    }
    e->in_arrivals = 0;
    if ((rc = cs__batch_flush(e)) != CS_OK) return rc;
    cs_block_result_t res;
    rc = cs_sched_end_block(e->s, &res);
    if (rc != CS_OK) {
        cs__seterr(e, "block %llu: %s", (unsigned long long)h, cs_strerror(rc));
        return rc;
    }
    e->h = h;
    cs__bind_pending(e);
    unsigned mflags = cs_sched_mech(e->s)->ops->flags;
    double min_pay = -1;
    /* The highest candidate bid, its agent, and the highest of any other
     * agent (cs_obs_t.top_bid*: what a bidder sees of its competitors). */
    double top = 0, top_other = 0, thr = 0, wmin = -1;
    uint32_t top_agent = UINT32_MAX, thr_agent = UINT32_MAX;
    int is_bias = strncmp(e->mech, "bias-", 5) == 0;
    /* CIP-5 §9.3 invariant slack of the block's deferred candidates (N64):
     * Bias as the next clearing computes it (the lambda in force after
     * this block's loop update, the scale). */
    double slack_sum = 0;
    uint64_t slack_n = 0;
    uint64_t slack_lam = is_bias ? cs_mech_lambda(cs_sched_mech(e->s)) : 0;
    cs_u128 slack_scale = cs_sched_params(e->s)->bias_scale;
    /* Fee mechanisms: priority per cycle is tip x W ppm (eip1559) or the tip (gba-tip). */
    int is_fee = (mflags & CS_MF_FEES) != 0, is_eip = strcmp(e->mech, "eip1559") == 0;
    /* Rows: fires, deferrals and the ends of timers. */
    for (size_t i = 0; i < res.n_rows; i++) {
        const cs_cand_row_t *row = &res.rows[i];
        uint32_t slot = row->slot;
        /* Each row's side-table entry and record sit anywhere in their
         * arrays: fetched CS__ROW_PF rows ahead, the misses overlap. */
        if (i + CS__ROW_PF < res.n_rows) {
            uint32_t ahead = res.rows[i + CS__ROW_PF].slot;
            if (ahead < e->ti_n) __builtin_prefetch(&e->ti[ahead], 1);
            __builtin_prefetch(cs_sched_record(e->s, ahead));
        }
        if (i + CS__ROW_PF / 2 < res.n_rows) { /* its record came in: now its actor */
            const cs_cand_row_t *ra = &res.rows[i + CS__ROW_PF / 2];
            /* A row other than a deferral may end its timer: the /timers
             * row reads the core's flags, money entry and silent count. */
            if (ra->outcome != CS_OUT_DEFERRED) cs_sched_prefetch_end(e->s, ra->slot);
            const cs_timer_t *ta = cs_sched_record(e->s, ra->slot);
            if (ta && ta->actor < e->n_actors) {
                __builtin_prefetch(&e->actors[ta->actor], 1); /* 80 bytes: both its lines */
                __builtin_prefetch(&e->actors[ta->actor].starved, 1);
                __builtin_prefetch(&e->agents[e->act_agent[ta->actor]]);
            }
        }
        if (!cs__ti_live(e, slot)) continue;
        cs__tinfo_t *ti = &e->ti[slot];
        ti->deferrals += row->silent; /* deferred without a row meanwhile (N80) */
        const cs_timer_t *t = cs_sched_record(e->s, slot);
        uint32_t ag;
        uint32_t gact = cs__ti_owner(e, slot, &ag, NULL);
        cs_agent_t *a = &e->agents[ag];
        int kind = e->agent_kind[ag];
        /* A booking that moved counts its delay, and so its value, from
         * the slot it asked for (N75); 0 moved otherwise. */
        uint64_t due = row->due_height - cs__ti_moved(e, slot);
        uint64_t delay = h - due;
        if (row->outcome == CS_OUT_DEFERRED || row->outcome == CS_OUT_FIRED) {
            cs__top2(&top, &top_agent, &top_other, cs__u128d(row->bid), ag);
            /* The clearing threshold (cs_obs_t.thresh): losers on the
             * lane budget or the block quota, priority per cycle. */
            double pc = is_bias && t->gas_limit ? cs__u128d(row->priority) / (double)t->gas_limit
                        : is_fee                    ? cs__u128d(row->priority) / (is_eip ? 1e6 : 1.0)
                                                    : 0;
            if (is_eip) e->fee_w[ag] = row->weight ? (double)row->weight / 1e6 : 1.0;
            if (row->outcome == CS_OUT_FIRED) {
                if (wmin < 0 || pc < wmin) wmin = pc;
            } else if ((pc > thr || (is_fee && thr_agent == UINT32_MAX)) &&
                       (row->why == CS_WHY_BUDGET || row->why == CS_WHY_BLOCK_QUOTA)) {
                thr = pc;
                thr_agent = ag;
            }
        }
        if (row->outcome == CS_OUT_DEFERRED) {
            /* The common case under congestion: no timer info needed unless
             * the agent listens (or for the §9.3 slack under a bias rule:
             * the value the timer loses waiting one more block against
             * the Bias it gains, from n = row->deferrals to n + 1). */
            if (is_bias) {
                cs_timer_info_t vi = cs__info(e, slot, t);
                vi.due_height = due;
                double y = cs__value(e, a, &vi, delay) - cs__value(e, a, &vi, delay + 1);
                cs_u128 b0 = cs_fixed_bias(row->deferrals, slack_lam, slack_scale);
                cs_u128 b1 = cs_fixed_bias(row->deferrals + 1, slack_lam, slack_scale);
                slack_sum += y - cs__u128d(b1 - b0);
                slack_n++;
            }
            ti->deferrals++;
            if ((a->pol.sys_cancel_after || a->pol.sys_extend_within) &&
                cs__sys_note(e, a, slot, &t->id, ti->deferrals, h) != CS_OK)
                return CS_ENOMEM;
            if (a->pol.value_aware) {
                /* Priced out: below the basefee, the reserve or the funds;
                 * for a bidder with a strategy under a bid mechanism also
                 * outbid (lost on the lane budget or a quota). */
                int priced = row->why == CS_WHY_BELOW_BASEFEE || row->why == CS_WHY_RESERVE || row->why == CS_WHY_FUNDS ||
                             (a->strat && (mflags & CS_MF_BID) &&
                              (row->why == CS_WHY_BUDGET || row->why == CS_WHY_BLOCK_QUOTA || row->why == CS_WHY_ACTOR_QUOTA));
                cs__textra_t *x = ti->x >= CS__TI_X0 ? &e->tex[ti->x - CS__TI_X0] : NULL;
                if (priced && !x && !(x = cs__ti_extra_new(e, slot))) return CS_ENOMEM;
                if (x) x->priced_out = priced ? x->priced_out + 1 : 0;
                if (priced && x->priced_out == a->pol.patience + 1 && cs__pc_push(e, &t->id, slot) != CS_OK)
                    return CS_ENOMEM;
            }
            if (a->ops->on_outcome) {
                cs_timer_info_t in = cs__info(e, slot, t);
                in.due_height = due;
                a->ops->on_outcome(a, &e->world, &in, CS_AO_DEFERRED, delay, 0);
            }
            continue;
        }
        /* The timer's information (cs__info) is built only for an agent
         * that reads it -- its own value function, on_outcome -- at the
         * row's due height; the linear default value needs only the side
         * table. */
        uint64_t row_due = due;
        if (row->outcome == CS_OUT_FIRED) {
            /* Every rule's paid decomposes into the same parts (N58). */
            cs_u128 paid128 = row->exec_fee + row->lane_burn + row->payment + row->tip;
            double paid = cs__u128d(paid128);
            /* over_cap split (N86): a piece before the last is worth
             * nothing by itself; the last is worth the work's value at the
             * delay since the first piece was due. */
            const cs__textra_t *sx = cs__ti_extra(e, slot);
            if (sx && sx->split_due && !sx->split_rem) {
                due = sx->split_due; /* its row: due and delay of the work */
                delay = h - due;
            }
            int piece = sx && sx->split_rem; /* a split piece before the last: worth 0 */
            double val = 0.0;
            if (!piece && a->ops->value) {
                cs_timer_info_t in = cs__info(e, slot, t);
                in.due_height = row_due;
                val = cs__value(e, a, &in, delay);
            } else if (!piece) { /* cs_agent_value_default */
                val = cs_agent_value_linear(ti->value, ti->decay, cs__ti_deadline(e, slot), delay);
            }
            ti->fires++;
            e->actors[gact].fires++;
            e->actors[gact].delay_sum += (double)delay;
            e->actors[gact].value += val;
            e->actors[gact].paid += paid128;
            e->kind_fires[kind]++;
            e->kind_fires[CS_AK__COUNT]++;
            e->kind_value[kind] += val;
            e->kind_value[CS_AK__COUNT] += val;
            e->kind_paid[kind] += paid128;
            e->kind_paid[CS_AK__COUNT] += paid128;
            e->fire_gas += t->gas_limit;
            if (cs__hist_add(&e->hist[kind], delay) != 0 || cs__hist_add(&e->hist[CS_AK__COUNT], delay) != 0)
                return CS_ENOMEM;
            double per = (mflags & CS_MF_FEES) ? cs__u128d(row->tip_rate) : paid;
            if (min_pay < 0 || per < min_pay) min_pay = per;
            int direct;
            cs_h5_fire_t *f = cs__row_begin(e, CS_H5_FIRES, &direct);
            if (!f) return CS_EIO;
            f->height = h;
            f->timer_id = cs__id64(&t->id);
            f->actor = gact;
            f->agent = ag;
            f->kind = (uint32_t)kind;
            f->delay = (uint32_t)(delay > UINT32_MAX ? UINT32_MAX : delay);
            f->due_height = due;
            f->cycles = row->used_cycles;
            f->gas_limit = t->gas_limit;
            f->bid = cs_h5_money(row->bid); /* settlement releases the record's escrowed bid */
            f->max_fee = cs_h5_money(row->max_fee);
            f->max_prio = cs_h5_money(row->max_prio);
            f->paid = cs_h5_money(paid128);
            f->burn = cs_h5_money(row->burn);
            f->exec_fee = cs_h5_money(row->exec_fee);
            f->lane_burn = cs_h5_money(row->lane_burn);
            f->alloc_payment = cs_h5_money(row->payment);
            f->prio_tip = cs_h5_money(row->tip);
            f->tip = cs_h5_money(row->tip + ((mflags & CS_MF_FEES) ? 0 : (cs_sched_params(e->s)->payments_to == CS_PAY_PROPOSER ? row->payment : 0)));
            f->value = val;
            f->weight_ppm = (uint32_t)(row->weight > UINT32_MAX ? UINT32_MAX : row->weight);
            f->deferrals = row->deferrals;
            if (cs__row_end(e, CS_H5_FIRES, direct) != CS_OK) return CS_EIO;
            if (!(cs_sched_hot(e->s, slot)->flags & CS_TF_LIVE)) cs__timer_row(e, slot, CS_H5_OUTCOME_FIRED, h);
        } else if (row->outcome == CS_OUT_EXPIRED || row->outcome == CS_OUT_INSUFFICIENT) {
            int ao = row->outcome == CS_OUT_EXPIRED ? CS_AO_EXPIRED : CS_AO_INSUFFICIENT;
            cs__timer_row(e, slot, row->outcome == CS_OUT_EXPIRED ? CS_H5_OUTCOME_EXPIRED : CS_H5_OUTCOME_INSUFFICIENT, h);
            if (a->ops->on_outcome) {
                cs_timer_info_t in = cs__info(e, slot, t);
                in.due_height = row_due;
                a->ops->on_outcome(a, &e->world, &in, ao, delay, 0);
            }
        }
    }
    /* Observations for the next block (public data of this one). */
    const cs_block_stats_t *st = &res.st;
    const cs_params_t *p = cs_sched_params(e->s);
    double util = p->lane_timer_cycles ? (double)st->lane_cycles / (double)p->lane_timer_cycles : 0;
    e->util_sum += util;
    e->obs.utilisation = util;
    e->obs.last_fired = st->fired;
    e->obs.clearing_price = min_pay < 0 ? 0 : min_pay;
    e->obs.top_bid = top;
    e->obs.top_bid_agent = top_agent;
    e->obs.top_bid_other = top_other;
    e->obs.thresh = thr;
    e->obs.thresh_agent = thr_agent;
    e->obs.thresh_win = is_fee ? (wmin > 0 ? wmin : 0) : thr > 0 && wmin > 0 ? wmin : 0;
    e->obs.lane_left = p->lane_timer_cycles > st->lane_cycles ? (double)(p->lane_timer_cycles - st->lane_cycles) : 0;
    e->obs.fires_left = p->max_fires_per_block == 0 ? (double)INFINITY
                        : p->max_fires_per_block > st->fired ? (double)(p->max_fires_per_block - st->fired) : 0;
    /* /blocks row. */
    if (e->nrb == CS__ROWBUF && cs__flush_rows(e) != CS_OK) return CS_EIO;
    cs_h5_block_t *b = &e->rb[e->nrb++];
    memset(b, 0, sizeof *b);
    b->height = h;
    b->basefee_lane = cs_h5_money(st->basefee_lane);
    b->basefee_cycle = cs_h5_money(cs__d2u(bc));
    b->basefee_cell = cs_h5_money(cs__d2u(bl));
    b->lane_cycles = st->lane_cycles;
    b->gc_cycles = st->gc_cycles;
    b->eob_cycles = st->eob_cycles + st->gc_cycles;
    b->utilisation = util;
    b->due = (uint32_t)st->due;
    b->fired = (uint32_t)st->fired;
    b->deferred = (uint32_t)st->deferred;
    b->expired = (uint32_t)st->expired;
    b->insufficient = (uint32_t)st->insufficient;
    b->cancelled = (uint32_t)st->cancelled;
    b->scheduled = (uint32_t)st->scheduled;
    b->rejected = (uint32_t)e->blk_rejected;
    b->gc_backlog = st->gc_backlog;
    b->burn = cs_h5_money(st->burn);
    b->tips = cs_h5_money(st->tips);
    b->payments = cs_h5_money(st->payments);
    b->exec_fee = cs_h5_money(st->exec_fee);
    b->lane_burn = cs_h5_money(st->lane_burn);
    b->sched_cost = cs_h5_money(st->sched_cost);
    b->cancel_cost = cs_h5_money(st->cancel_cost);
    b->bias_slack = slack_n ? slack_sum / (double)slack_n : (double)NAN;
    /* Schedule-time booking (issue 28): refusals by reason, the slot's base price. */
    b->book_full = e->blk_book_ref[CS_BOOKR_FULL];
    b->book_window = e->blk_book_ref[CS_BOOKR_WINDOW];
    b->book_too_large = e->blk_book_ref[CS_BOOKR_TOO_LARGE];
    b->book_declined = e->blk_book_ref[CS_BOOKR_DECLINED];
    b->slot_base = cs_h5_money(cs_sched_slot_base(e->s, h));
    if (slack_n) {
        e->slack_blocks++;
        e->slack_violated += b->bias_slack < 0;
        /* The invariant-targeting lambda loop reads it (N70). */
        cs_sched_lambda_observe(e->s, b->bias_slack < 0);
    }
    b->lambda_ppb = cs_mech_lambda(cs_sched_mech(e->s));
    b->p50_tip = cs_h5_money(st->p50_tip);
    b->tier_ring = st->tiers.ring;
    b->tier_epoch = st->tiers.epoch;
    b->tier_tree = st->tiers.tree;
    b->pending = cs_sched_pending(e->s);
    memcpy(b->digest, st->digest.b, 32);
    /* The constraints of this block, for the welfare optimum (analysis/
     * cs_optimum.h): the lane budget (none while paused), CIP-1 rev §10
     * per-fire cap and CIP-5 §9.4 quotas in force at h. */
    b->lane_budget = e->pause_depth ? 0 : p->lane_timer_cycles;
    b->fire_cap = p->max_cycles_per_fire;
    b->quota_block = p->max_fires_per_block > UINT32_MAX ? UINT32_MAX : (uint32_t)p->max_fires_per_block;
    b->quota_actor = p->max_fires_per_actor > UINT32_MAX ? UINT32_MAX : (uint32_t)p->max_fires_per_actor;
    /* /weights every K blocks. */
    if (e->scn->output.weights_every && h % e->scn->output.weights_every == 0 && e->h5) {
        size_t cap = e->n_actors + 64;
        if (cap > UINT32_MAX) cap = UINT32_MAX;
        if (cap > e->w_cap && cs__weights_grow(e, cap) != CS_OK) {
            e->failed = 1; /* a /weights sample would be missing */
            cs__seterr(e, "out of memory sampling /weights at block %llu", (unsigned long long)h);
        } else {
            cs_h5_weight_t *wr = e->w_rows;
            uint32_t n = cs_sched_weights(e->s, e->w_id, e->w_rec, e->w_w, (uint32_t)cap);
            /* the median W uses (the EMA-smoothed one when median_ema > 0) */
            uint32_t med = (uint32_t)cs_sched_fair_median(e->s);
            for (uint32_t k = 0; k < n; k++) {
                wr[k].height = h;
                wr[k].ident = e->w_id[k];
                wr[k].weight_ppm = (uint32_t)e->w_w[k];
                wr[k].fires_in_window = (uint32_t)e->w_rec[k];
                wr[k].median_fires = med;
            }
            uint64_t t0 = cs__now_ns();
            if (n && cs_h5_append_weights(e->h5, wr, n) != CS_OK) e->failed = 1;
            e->h5_ns += cs__now_ns() - t0;
        }
    }
    /* DESIGN §2.6 invariants. */
    if (e->opts.check_invariants) {
        char msg[256];
        e->inv_checks++;
        if (cs_sched_check_invariants(e->s, msg, sizeof msg) != CS_OK) {
            cs__seterr(e, "block %llu: invariant violated: %s", (unsigned long long)h, msg);
            return CS_EINVARIANT;
        }
    }
    if (e->scn->output.flush_every && h % e->scn->output.flush_every == 0) {
        if (cs__flush_rows(e) != CS_OK) return CS_EIO;
        uint64_t t0 = cs__now_ns();
        int frc = e->h5 ? cs_h5_checkpoint(e->h5) : CS_OK;
        e->h5_ns += cs__now_ns() - t0;
        if (frc != CS_OK) {
            cs__seterr(e, "cannot write %s: %s", e->opts.out_path, cs_h5_last_error());
            return CS_EIO;
        }
    }
    if (e->failed) return CS_EIO;
    return CS_OK;
}

/* ------------------------------------------------------------ finish */

static void cs__kind_stats(cs_engine_t *e, int k, cs_kind_stats_t *ks)
{
    memset(ks, 0, sizeof *ks);
    ks->timers = e->kind_timers[k];
    ks->fires = e->kind_fires[k];
    ks->value = e->kind_value[k];
    ks->paid = cs__u128d(e->kind_paid[k]);
    ks->delay_p50 = cs__kind_sumq(e, k, 0.50);
    ks->delay_p95 = cs__kind_sumq(e, k, 0.95);
    ks->delay_p99 = cs__kind_sumq(e, k, 0.99);
    ks->delay_max = cs__kind_sumq(e, k, 1.0);
}

int cs_sim_done(cs_engine_t *e, int complete, cs_run_stats_t *st)
{
    if (!e) return CS_OK;
    int rc = CS_OK;
    cs_run_stats_t loc;
    cs_run_stats_t *rs = st ? st : &loc;
    memset(rs, 0, sizeof *rs);
    rs->mechanism = e->mech;
    rs->blocks = e->h;
    rs->complete = complete;
    if (e->s) {
        /* Pending timers at the close, censored per kind. */
        uint64_t censored[CS_AK__COUNT + 1] = {0};
        /* Their rows come in logical slot order (DESIGN-NOTES N107), the
         * same whatever slots the allocator chose.  Without the memory for
         * that order they are written in slot order (the same rows) and
         * the file is not marked complete: its bytes could differ. */
        size_t np = cs_sched_pool_size(e->s);
        uint32_t *order = np ? malloc(np * sizeof *order) : NULL;
        if (order) {
            (void)cs_sched_slot_order(e->s, order);
        } else if (np && e->h5) {
            rc = CS_EIO;
            cs__seterr(e, "out of memory ordering the /timers rows of pending timers in %s", e->opts.out_path);
        }
        for (size_t i = 0; i < np; i++) {
            size_t slot = order ? order[i] : i;
            if (slot >= np || slot >= e->ti_n) continue;
            const cs_timer_hot_t *t = cs_sched_hot(e->s, (uint32_t)slot);
            if (!(t->flags & CS_TF_LIVE) || !cs__ti_live(e, (uint32_t)slot)) continue;
            if (e->ti[slot].fires == 0) {
                uint32_t ag;
                (void)cs__ti_owner(e, (uint32_t)slot, &ag, NULL);
                censored[e->agent_kind[ag]]++;
                censored[CS_AK__COUNT]++;
            }
            cs__timer_row(e, (uint32_t)slot, CS_H5_OUTCOME_PENDING, e->h);
        }
        free(order);
        if (cs__flush_rows(e) != CS_OK) rc = CS_EIO;
        /* Per-kind summary and actors. */
        for (int k = 0; k <= CS_AK__COUNT; k++) {
            cs__kind_stats(e, k, &rs->kind[k]);
            rs->kind[k].censored = censored[k];
        }
        double sx = 0, sxx = 0;
        size_t nx = 0;
        cs_h5_actor_t *ar = malloc((e->n_actors ? e->n_actors : 1) * sizeof *ar);
        for (size_t i = 0; i < e->n_actors; i++) {
            const cs__actor_t *a = &e->actors[i];
            rs->kind[e->agent_kind[a->agent]].actors++;
            rs->kind[CS_AK__COUNT].actors++;
            if (a->fires > 0 || a->starved > 0) {
                /* Jain's index over every actor with a due timer of the
                 * service x = served share / (1 + mean delay), 0 when
                 * starved (analysis/README.md "jain"). */
                double f = (double)a->fires;
                double x = a->fires ? f / (f + (double)a->starved) / (1.0 + a->delay_sum / f) : 0.0;
                sx += x;
                sxx += x * x;
                nx++;
            }
            if (ar) {
                ar[i].actor = (uint32_t)i;
                ar[i].agent = a->agent;
                ar[i].kind = e->agent_kind[a->agent];
                ar[i].deployer = a->deployer;
                ar[i].fires = a->fires;
                ar[i].scheduled = e->act_sched[i];
                ar[i].value = a->value;
                ar[i].paid = cs_h5_money(a->paid);
                ar[i].end_balance = cs_h5_money(cs_sched_balance(e->s, a->sched_idx));
                cs_u128 sc, cc;
                cs_sched_actor_costs(e->s, a->sched_idx, &sc, &cc);
                ar[i].sched_cost = cs_h5_money(sc);
                ar[i].cancel_cost = cs_h5_money(cc);
            }
        }
        rs->jain = nx == 0 ? 1.0 : sxx > 0 ? (sx * sx) / ((double)nx * sxx) : (double)NAN; /* all starved: undefined */
        const cs_ledger_t *lg = cs_sched_ledger(e->s);
        rs->burn = cs__u128d(lg->tot.burned);
        rs->fire_gas = e->fire_gas;
        rs->proposer = cs__u128d(lg->tot.proposer);
        rs->util_mean = e->h ? e->util_sum / (double)e->h : 0;
        rs->basefee_final = cs__u128d(cs_sched_lane_basefee(e->s));
        rs->invariant_checks = e->inv_checks;
        if (e->h5) {
            uint64_t t0 = cs__now_ns();
            if (ar && e->n_actors && cs_h5_append_actors(e->h5, ar, e->n_actors) != CS_OK) rc = CS_EIO;
            if (!ar) {
                rc = CS_EIO; /* /actors would be missing: never mark the file complete */
                cs__seterr(e, "out of memory writing /actors of %s", e->opts.out_path);
            }
            cs_h5_summary_t sr[CS_AK__COUNT + 1];
            size_t ns = 0;
            for (int k = 0; k <= CS_AK__COUNT; k++) {
                const cs_kind_stats_t *ks = &rs->kind[k];
                if (k < CS_AK__COUNT && ks->actors == 0) continue;
                cs_h5_summary_t *r = &sr[ns++];
                r->kind = (uint32_t)k;
                r->actors = ks->actors;
                r->fires = ks->fires;
                r->timers = ks->timers;
                r->delay_p50 = ks->delay_p50;
                r->delay_p95 = ks->delay_p95;
                r->delay_p99 = ks->delay_p99;
                r->delay_max = ks->delay_max;
                r->censored = ks->censored;
                r->value = ks->value;
                r->paid = cs_h5_money(e->kind_paid[k]);
                r->utility = ks->value - ks->paid;
            }
            if (cs_h5_append_summary(e->h5, sr, ns) != CS_OK) rc = CS_EIO;
            cs_h5_attr_u64(e->h5, "blocks", e->h);
            cs_h5_attr_f64(e->h5, "burned", rs->burn);
            cs_h5_attr_f64(e->h5, "proposer", rs->proposer);
            cs_h5_attr_f64(e->h5, "util_mean", rs->util_mean);
            cs_h5_attr_f64(e->h5, "jain", rs->jain);
            /* CIP-5 §9.3: the share of blocks whose invariant slack was
             * negative, over the blocks that had one (N64). */
            cs_h5_attr_u64(e->h5, "bias_slack_blocks", e->slack_blocks);
            cs_h5_attr_f64(e->h5, "bias_slack_violated",
                           e->slack_blocks ? (double)e->slack_violated / (double)e->slack_blocks : (double)NAN);
            /* Exact ledger totals (decimal strings of u128 amounts); DESIGN §2.6
             * conservation: initial + minted = Σ balances + escrow + burned + proposer. */
            char buf[48];
            cs_h5_attr_str(e->h5, "burned_exact", cs_u128_fmt(lg->tot.burned, buf));
            cs_h5_attr_str(e->h5, "proposer_exact", cs_u128_fmt(lg->tot.proposer, buf));
            cs_h5_attr_str(e->h5, "initial_exact", cs_u128_fmt(lg->tot.initial, buf));
            cs_h5_attr_str(e->h5, "minted_exact", cs_u128_fmt(lg->tot.minted, buf));
            cs_h5_attr_str(e->h5, "escrow_exact", cs_u128_fmt(lg->tot.escrow, buf));
            cs_h5_attr_str(e->h5, "paid_exact", cs_u128_fmt(e->kind_paid[CS_AK__COUNT], buf));
            /* Issue 27 item 2: each strategic population's convergence (N77). */
            if (e->conv) {
                char *cj = cs_conv_json(e->conv);
                if (cj == NULL) {
                    rc = CS_ENOMEM; /* never a complete file without it */
                    cs__seterr(e, "out of memory writing the convergence of %s", e->opts.out_path);
                } else if (cs_h5_attr_str(e->h5, "convergence", cj) != CS_OK) {
                    rc = CS_EIO;
                }
                free(cj);
            }
            e->h5_ns += cs__now_ns() - t0;
        }
        free(ar);
    }
    if (e->h5) {
        uint64_t t0 = cs__now_ns();
        if (cs_h5_close(e->h5, complete && rc == CS_OK) != CS_OK) rc = CS_EIO;
        e->h5_ns += cs__now_ns() - t0;
    }
    rs->h5_ns = e->h5_ns;
    if (rc == CS_EIO && e->opts.out_path) cs__seterr(e, "cannot write %s: %s", e->opts.out_path, cs_h5_last_error());
    snprintf(rs->error, sizeof rs->error, "%s", e->err);
    for (size_t i = 0; i < e->n_agents; i++) {
        cs_agent_t *a = &e->agents[i];
        if (a->ops && a->ops->fini && a->state) a->ops->fini(a);
        free(a->state);
        if (a->rng) gsl_rng_free(a->rng);
        cs_strategy_detach(a);
    }
    for (int k = 0; k <= CS_AK__COUNT; k++) {
        free(e->hist[k].count);
        free(e->hist[k].big);
    }
    if (e->env_rng) gsl_rng_free(e->env_rng);
    cs_conv_free(e->conv);
    cs_sched_free(e->s);
    free(e->agents);
    free(e->agent_kind);
    free(e->demand_mult);
    free(e->fee_w);
    free(e->vol_mult);
    free(e->actors);
    free(e->addr);
    free(e->act_agent);
    free(e->act_sched);
    free(e->payer_dep);
    free(e->ti);
    free(e->tex);
    free(e->tex_free);
    free(e->ev);
    free(e->hpend);
    free(e->bpend);
    free(e->pc);
    free(e->w_id);
    free(e->w_rec);
    free(e->w_w);
    free(e->w_rows);
    free(e->rb);
    free(e->rf);
    free(e->rt);
    free(e);
    return rc;
}
