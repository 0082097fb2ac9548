/*
 * cs_agent.c -- the agent registry (STYLE §3), the default value model and
 * the helpers shared by the agent kinds (cs_agent_int.h).
 */
#include "cs_agent.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "cs_agent_int.h"
#include "cs_draw.h"
#include "cs_timer.h"

/* The registry, in cs_agent_kind order (entry i has kind i). */
const cs_agent_ops_t *const cs_agent_registry[] = {
    &cs__agent_default_gba,      &cs__agent_priority_tier, &cs__agent_liquidation_bot,
    &cs__agent_oracle,           &cs__agent_heartbeat,     &cs__agent_subscription,
    &cs__agent_spammer,          &cs__agent_fragmenter,    &cs__agent_fp_best_response,
    &cs__agent_waiting_game,     &cs__agent_affine_user,   &cs__agent_watcher,
    &cs__agent_demand_curve,
};
CS_STATIC_ASSERT(sizeof cs_agent_registry / sizeof cs_agent_registry[0] == CS_AK__COUNT,
                 "one registry entry per agent kind");

/* The kind names in enum order (HDF5 enum values, DESIGN §5); they equal
 * the registry names and sim/cs_h5_layout.c's cs_h5_kind_names (checked in
 * tests/test_agents.c). */
const char *const cs_agent_kind_names[] = {
    "default_gba", "priority_tier",    "liquidation_bot", "oracle",      "heartbeat",
    "subscription", "spammer",         "fragmenter",      "fp_best_response",
    "waiting_game", "affine_user",     "watcher",         "demand_curve",
};
CS_STATIC_ASSERT(sizeof cs_agent_kind_names / sizeof cs_agent_kind_names[0] == CS_AK__COUNT,
                 "one name per agent kind");

/* Return the registry entry named name, or NULL when none has that name. */
const cs_agent_ops_t *cs_agent_find(const char *name)
{
    if (name == NULL) return NULL;
    for (size_t i = 0; i < CS_AK__COUNT; i++)
        if (strcmp(cs_agent_registry[i]->name, name) == 0) return cs_agent_registry[i];
    return NULL;
}

/*
 * Write the registry names, in enum order and separated by ", ", into buf
 * (always NUL-terminated when cap > 0; silently truncated to cap - 1
 * bytes).  Returns buf.  For "unknown agent kind" messages.
 */
char *cs_agent_names(char *buf, size_t cap)
{
    size_t used = 0;
    if (buf == NULL || cap == 0) return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < CS_AK__COUNT && used + 1 < cap; i++) {
        int n = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", cs_agent_registry[i]->name);
        if (n < 0) break;
        used += (size_t)n;
    }
    return buf;
}

/*
 * Default value model (DESIGN §3): value - decay * delay, floored at 0, and
 * 0 once delay exceeds a nonzero deadline (a fire at exactly the deadline
 * still counts).
 */
double cs_agent_value_linear(double value, double decay, uint64_t deadline, uint64_t delay)
{
    if (deadline != 0 && delay > deadline) return 0.0;
    double v = value - decay * (double)delay;
    return v > 0.0 ? v : 0.0;
}

double cs_agent_value_default(const cs_timer_info_t *t, uint64_t delay)
{
    return cs_agent_value_linear(t->value, t->decay, t->deadline, delay);
}

/* Index of parameter name of a's kind, or -1. */
static int cs__agent_param(const cs_agent_t *a, const char *name)
{
    for (size_t k = 0; k < a->ops->n_params; k++)
        if (strcmp(a->ops->params[k].name, name) == 0) return (int)k;
    return -1;
}

/* Parameter name of a's kind: its mean (distribution or scalar), or 0. */
static double cs__agent_pmean(const cs_agent_t *a, const char *name)
{
    int k = cs__agent_param(a, name);
    return k >= 0 ? cs__agent_mean(a, (size_t)k) : 0.0;
}

double cs_agent_fire_price(const cs_agent_t *a, const cs_obs_t *o)
{
    int mc = cs__agent_mclass(o->mechanism);
    double cyc = cs__agent_pmean(a, "gas_limit") * cs__agent_pmean(a, "cycles_frac");
    double cells = cs__agent_pmean(a, "payload_len") * o->basefee_cell;
    if (mc == CS__MC_FEE) return (o->basefee_cycle + o->basefee_lane + o->p50_tip) * cyc + cells;
    if (mc == CS__MC_BID) {
        double share = cs__agent_pmean(a, "bid_frac");
        if (a->strat) share = a->strat->kind == CS_STRAT_FIXED_SHARE ? a->strat->share : 1.0;
        double b = share * cs__agent_pmean(a, "value");
        return b > o->reserve_price ? b : o->reserve_price;
    }
    return o->basefee_cycle * cyc + cells;
}

double cs_obs_competing(const cs_obs_t *o, const cs_agent_t *a) { return cs_obs_competing_of(o, a->index); }

double cs_obs_threshold(const cs_obs_t *o, const cs_agent_t *a) { return cs_obs_threshold_of(o, a->index); }

/* ------------------------------------------------------------ strategy */

/* The value distribution of a's kind as a bidder knows it: the
 * distribution object given for "value", else the default lognormal
 * (value, value_sigma); a parameter the kind lacks counts as 0. */
static void cs__agent_value_dist(const cs_agent_t *a, cs_dist_t *vd)
{
    int kv = cs__agent_param(a, "value"), ks = cs__agent_param(a, "value_sigma");
    memset(vd, 0, sizeof *vd);
    if (kv >= 0 && a->dists && a->dists[kv].kind != CS_DIST_NONE) {
        *vd = a->dists[kv];
    } else {
        vd->kind = CS_DIST_LOGNORMAL;
        vd->p[0] = kv >= 0 ? a->params[kv] : 0.0;
        vd->p[1] = ks >= 0 ? a->params[ks] : 0.0;
    }
}

int cs_strategy_attach(cs_agent_t *a, const cs_strategy_t *s, gsl_rng *rng)
{
    cs_dist_t vd;
    int knows = s != NULL && (s->kind == CS_STRAT_SHADE || s->kind == CS_STRAT_LEARNING_VALUE);
    a->strat = NULL;
    a->ss = NULL;
    if (knows) cs__agent_value_dist(a, &vd); /* only shade and learning_value read it */
    int rc = cs_strat_new(s, knows ? &vd : NULL, rng, &a->ss);
    if (a->ss != NULL) a->strat = s;
    return rc;
}

void cs_strategy_detach(cs_agent_t *a)
{
    cs_strat_free(a->ss);
    a->ss = NULL;
    a->strat = NULL;
}

void cs_strategy_observe(cs_agent_t *a, const cs_obs_t *o)
{
    if (a->strat == NULL) return;
    cs_strat_observe(a->strat, a->ss, a->index, cs__agent_mclass(o->mechanism), o);
}

void cs_strategy_bid(cs_agent_t *a, const cs_obs_t *o, cs_timer_req_t *q)
{
    if (a->strat == NULL) return;
    cs_strat_bid(a->strat, a->ss, a->index, cs__agent_mclass(o->mechanism), o, q);
}

int cs_strategy_fees(cs_agent_t *a, const cs_timer_info_t *t, const cs_obs_t *o, double *max_fee, double *max_prio)
{
    return cs_strat_fees(a->strat, a->ss, a->index, t, o, max_fee, max_prio);
}

size_t cs_strategy_probs(const cs_agent_t *a, double *p, size_t cap)
{
    return cs_strat_probs(a->strat, a->ss, p, cap);
}

/* Fire-time fees with the value cap (cs_agent.h). */
int cs_agent_gba(cs_agent_t *a, const cs_timer_info_t *t, const cs_obs_t *o, double *max_fee, double *max_prio)
{
    /* A strategy's fees replace the kind's; else its custom GBA, else the
     * fees it stated at scheduling. */
    int set = cs_strategy_fees(a, t, o, max_fee, max_prio);
    if (!set && a->ops->gba) set = a->ops->gba(a, t, o, max_fee, max_prio);
    if (!set && t->has_fees) {
        *max_fee = t->max_fee;
        *max_prio = t->max_prio;
        set = 1;
    }
    if (!a->pol.value_aware) return set;
    if (!set) {
        *max_fee = t->dflt_fee;
        *max_prio = t->dflt_prio;
    }
    /* Cost = cycles_used x (cycle rate + lane + tip) + cells x basefee_cell
     * <= cycles_used x (cycle rate + max_fee) + cells x basefee_cell <= value
     * (CIP-1 rev §3 steps 6, 8); floored so rounding to base units cannot
     * exceed it. */
    double b = floor(t->fire_budget);
    if (!(b > 0.0)) b = 0.0;
    if (!(*max_fee <= b)) *max_fee = b;
    if (!(*max_prio <= *max_fee)) *max_prio = *max_fee;
    return 1;
}

/* 1 when parameter k of ops is listed in ops->dist_params. */
int cs_agent_param_dist(const cs_agent_ops_t *ops, size_t k)
{
    if (ops == NULL || ops->dist_params == NULL || k >= ops->n_params) return 0;
    for (const char *const *n = ops->dist_params; *n != NULL; n++)
        if (strcmp(*n, ops->params[k].name) == 0) return 1;
    return 0;
}

/* ---------------------------------------------------------------- helpers */

/* Family of mechanism m: bias-* and score take bids, eip1559 and gba-* take
 * fee params, everything else (fifo, fifo-capped) takes no price. */
int cs__agent_mclass(const char *m)
{
    /* Agents ask once per block each: one comparison, picked by the first
     * letter, instead of up to four. */
    if (m == NULL) return CS__MC_NONE;
    switch (m[0]) {
    case 'b': return strncmp(m, "bias", 4) == 0 ? CS__MC_BID : CS__MC_NONE;
    case 's': return strcmp(m, "score") == 0 ? CS__MC_BID : CS__MC_NONE;
    case 'e': return strcmp(m, "eip1559") == 0 ? CS__MC_FEE : CS__MC_NONE;
    case 'g': return strncmp(m, "gba", 3) == 0 ? CS__MC_FEE : CS__MC_NONE;
    default: return CS__MC_NONE;
    }
}

/* A zeroed HEIGHT request for actor 0. */
void cs__agent_req_zero(cs_timer_req_t *q)
{
    /* Copied from a zero request rather than memset: GCC makes the memset
     * of 160 bytes a rep stos, whose start-up cost was ~0.5 % of a
     * bench-large run (issue 26); a copy is plain vector moves. */
    static const cs_timer_req_t zero;
    *q = zero;
    q->kind = (uint8_t)CS_KIND_HEIGHT;
}

/* Cycles model without a draw: the jitter is centred (u = 1/2). */
void cs__agent_cycles_fixed(double gas, double frac, cs_timer_req_t *q)
{
    cs__agent_cycles_at(0.5, gas, frac, 0.0, q);
}

/* Lognormal with mean `mean` and log-sd sigma; one draw. */
double cs__agent_lognormal(gsl_rng *r, double mean, double sigma)
{
    double zeta = mean > 0.0 ? log(mean) - 0.5 * sigma * sigma : 0.0;
    double x = gsl_ran_lognormal(r, zeta, sigma);
    return mean > 0.0 ? x : 0.0;
}

/* The caches of cs__agent_geometric and cs__agent_poisson (cs_agent_int.h). */
_Thread_local double cs__geo_p = -1.0, cs__geo_lq = 0.0;
_Thread_local double cs__poi_mu = -1.0, cs__poi_emu = 1.0;

double cs__agent_mean(const cs_agent_t *a, size_t k)
{
    double m, v;
    if (a->dists == NULL || a->dists[k].kind == CS_DIST_NONE) return a->params[k];
    if (cs_dist_moments(&a->dists[k], &m, &v) != 0 && a->dists[k].kind == CS_DIST_PARETO && a->dists[k].p[1] <= 1.0)
        return a->params[k];
    return m;
}

/* Elastic entry (cs_agent_int.h). */
int cs__agent_enters(cs_agent_t *a, const cs_world_t *w, const cs_obs_t *o, const cs_timer_req_t *q)
{
    if (!a->pol.value_aware) return 1;
    int mc = cs__agent_mc(a, o);
    double cyc = (double)q->cycles_used, cells = (double)q->payload_len * o->basefee_cell;
    double e;
    if (mc == CS__MC_FEE) e = (o->basefee_cycle + o->basefee_lane + o->p50_tip) * cyc + cells;
    else if (mc == CS__MC_BID) e = o->reserve_price;
    else e = o->basefee_cycle * cyc + cells;
    if (!(q->value > e)) return 0;
    return cs_world_balance(w, a, q->actor) >= e;
}

const char *const cs__arrival_dists[] = {"rate", "delay_mean", "value", "cycles_frac", NULL};

/* One arrival of the shared model; three draws (delay, value, cycles). */
void cs__agent_arrival(const cs_agent_t *a, cs_timer_req_t *q)
{
    const double *p = a->params;
    cs__agent_req_zero(q);
    q->delay = cs__agent_delay(a, CS__AR_DELAY_MEAN);
    q->value = cs__agent_value(a, CS__AR_VALUE, CS__AR_VALUE_SIGMA);
    cs__agent_cycles_of(a, CS__AR_GAS_LIMIT, CS__AR_CYCLES_FRAC, CS__AR_CYCLES_JITTER, q);
    q->decay = q->value * p[CS__AR_DECAY_FRAC];
    q->deadline = cs__agent_u64(p[CS__AR_DEADLINE]);
    q->payload_len = (uint32_t)cs__agent_u64(p[CS__AR_PAYLOAD_LEN]);
    q->ttl = cs__agent_u64(p[CS__AR_TTL]);
}

/* Default pricing: default GBA under fee mechanisms, bid_frac * value (or
 * no bid) under bid mechanisms, nothing under FIFO. */
void cs__agent_price_default(int mc, double bid_frac, cs_timer_req_t *q)
{
    q->has_fees = 0;
    q->max_fee = q->max_prio = 0.0;
    q->has_bid = 0;
    q->bid = 0.0;
    if (mc == CS__MC_BID && bid_frac > 0.0) {
        q->has_bid = 1;
        q->bid = bid_frac * q->value;
    }
}
