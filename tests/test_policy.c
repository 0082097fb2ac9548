/*
 * test_policy.c -- per-agent behaviour knobs (agents/README.md "Value-aware
 * fees"): the fire-time fee cap of cs_agent_gba against hand-computed
 * values, and elastic entry keeping the draw pattern (common random
 * numbers) while prices change which arrivals join.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_agent.h"
#include "cs_rng.h"
#include "cs_test.h"

/* ------------------------------------------------------------ mock world */

#define PM_MAX 4096

typedef struct pmock {
    size_t n;                      /* requests */
    double value[PM_MAX];          /* their values */
    uint64_t delay[PM_MAX];        /* their delays */
    cs_timer_req_t last;           /* the last request */
    double balance;                /* balance of every actor */
} pmock_t;

static int pm_schedule(void *impl, cs_agent_t *a, const cs_timer_req_t *q, cs_hash_t *id_out)
{
    (void)a;
    pmock_t *m = impl;
    if (m->n < PM_MAX) {
        m->value[m->n] = q->value;
        m->delay[m->n] = q->delay;
    }
    m->last = *q;
    m->n++;
    memset(id_out, 0, sizeof *id_out);
    return CS_OK;
}
static int pm_cancel(void *impl, cs_agent_t *a, uint32_t actor, const cs_hash_t *id)
{
    (void)impl, (void)a, (void)actor, (void)id;
    return CS_OK;
}
static int pm_write(void *impl, cs_agent_t *a, uint32_t actor, const char *key)
{
    (void)impl, (void)a, (void)actor, (void)key;
    return CS_OK;
}
static uint64_t pm_height(const void *impl)
{
    (void)impl;
    return 1;
}
static double pm_balance(const void *impl, const cs_agent_t *a, uint32_t actor)
{
    (void)a, (void)actor;
    return ((const pmock_t *)impl)->balance;
}
static const cs_world_ops_t pm_ops = {pm_schedule, pm_cancel, pm_write, pm_height, pm_balance};

/* An instance of kind `name` with default parameters on stream (seed, 3). */
static void mk_agent(cs_agent_t *a, const char *name, double *params, int value_aware)
{
    memset(a, 0, sizeof *a);
    a->ops = cs_agent_find(name);
    for (size_t k = 0; k < a->ops->n_params; k++) params[k] = a->ops->params[k].def;
    a->params = params;
    a->n_actors = a->ops->n_actors ? a->ops->n_actors(params) : 1;
    a->rng = cs_rng_stream(4242, 3);
    a->active = 1;
    a->state = calloc(1, a->ops->state_size ? a->ops->state_size : 1);
    a->pol.value_aware = value_aware;
    a->pol.patience = 20;
}

static void rm_agent(cs_agent_t *a)
{
    gsl_rng_free(a->rng);
    free(a->state);
}

/* ------------------------------------------------------------ fee cap */

/*
 * cs_agent_gba: a value-aware priority_tier (no custom GBA) takes the
 * default GBA's fees and caps them; not value-aware it returns 0 (the
 * core's default GBA applies) or the stated fees unchanged.
 */
static void test_fee_cap(void)
{
    double p[64];
    cs_agent_t a;
    mk_agent(&a, "priority_tier", p, 1);
    cs_obs_t o;
    memset(&o, 0, sizeof o);
    o.mechanism = "eip1559";
    cs_timer_info_t t;
    memset(&t, 0, sizeof t);
    t.dflt_fee = 1750;     /* 2 x basefee 875 */
    t.dflt_prio = 45;      /* p50 30 x 1.5 (fast) */
    t.fire_budget = 1234.75;
    double mf = -1, mp = -1;
    CS_CHECK(cs_agent_gba(&a, &t, &o, &mf, &mp) == 1);
    CS_CHECK(mf == 1234 && mp == 45); /* floor(1234.75); the tip fits under it */
    t.fire_budget = 30.5;
    CS_CHECK(cs_agent_gba(&a, &t, &o, &mf, &mp) == 1);
    CS_CHECK(mf == 30 && mp == 30); /* max_prio capped at max_fee */
    t.fire_budget = -17.25;         /* worth less than the cycle basefee alone */
    CS_CHECK(cs_agent_gba(&a, &t, &o, &mf, &mp) == 1);
    CS_CHECK(mf == 0 && mp == 0);
    t.fire_budget = 5000;           /* stated fees below the budget stay as stated */
    t.has_fees = 1;
    t.max_fee = 2385;
    t.max_prio = 7;
    CS_CHECK(cs_agent_gba(&a, &t, &o, &mf, &mp) == 1);
    CS_CHECK(mf == 2385 && mp == 7);
    t.fire_budget = 2000.999;       /* ... and are capped above it */
    CS_CHECK(cs_agent_gba(&a, &t, &o, &mf, &mp) == 1);
    CS_CHECK(mf == 2000 && mp == 7);
    a.pol.value_aware = 0;          /* literal: the stated fees, uncapped */
    CS_CHECK(cs_agent_gba(&a, &t, &o, &mf, &mp) == 1);
    CS_CHECK(mf == 2385 && mp == 7);
    t.has_fees = 0;                 /* literal without fees: the default GBA */
    CS_CHECK(cs_agent_gba(&a, &t, &o, &mf, &mp) == 0);
    rm_agent(&a);
}

/* ------------------------------------------------------------ elastic entry */

/*
 * Three priority_tier instances on the same stream over 400 blocks under
 * eip1559: value-aware at zero prices, value-aware at a lane basefee of
 * 10^4 per cycle (a fire of 60,000 cycles then costs 6e8 against values of
 * mean 5e8), and literal.  All three must leave the stream at the same
 * position (the next 64-bit output equal); the literal one and the
 * zero-price one schedule the same requests (value > 0 = cost); the
 * expensive one only arrivals worth more than their cost, each of which is
 * in the zero-price stream at the same position.  A payer whose balance is
 * below the cost schedules nothing.
 */
static void test_entry_crn(void)
{
    static pmock_t m[4];
    double p[4][64];
    cs_agent_t a[4];
    memset(m, 0, sizeof m);
    for (int i = 0; i < 4; i++) {
        mk_agent(&a[i], "priority_tier", p[i], i != 2);
        m[i].balance = i == 3 ? 1e3 : 1e18;
    }
    for (uint64_t h = 1; h <= 400; h++) {
        for (int i = 0; i < 4; i++) {
            cs_obs_t o;
            memset(&o, 0, sizeof o);
            o.mechanism = "eip1559";
            o.height = h;
            o.demand_mult = 1.0;
            if (i == 1 || i == 3) o.basefee_lane = 1e4;
            cs_world_t w = {&pm_ops, &m[i]};
            a[i].ops->on_block(&a[i], &w, &o);
        }
    }
    unsigned long nx[4];
    for (int i = 0; i < 4; i++) nx[i] = gsl_rng_get(a[i].rng);
    CS_CHECK(nx[0] == nx[1] && nx[0] == nx[2] && nx[0] == nx[3]);
    CS_CHECK(m[0].n == m[2].n && m[0].n > 150); /* Poisson(0.5) x 400 = 200 expected */
    int same = m[0].n == m[2].n;
    for (size_t k = 0; same && k < m[0].n && k < PM_MAX; k++)
        same = m[0].value[k] == m[2].value[k] && m[0].delay[k] == m[2].delay[k];
    CS_CHECK(same);
    /* The expensive stream: the zero-price requests whose value exceeds
     * 1e4 x cycles_used (+ 0 cells, cycle basefee 0), in order. */
    CS_CHECK(m[1].n > 0 && m[1].n < m[0].n);
    size_t j = 0, bad = 0;
    for (size_t k = 0; k < m[0].n && k < PM_MAX; k++) {
        if (j < m[1].n && m[1].value[j] == m[0].value[k]) {
            if (m[0].value[k] <= 1e4 * 48000.0) bad++; /* the least cycles_used: 100000 x 0.6 x 0.8 */
            j++;
        } else if (m[0].value[k] > 1e4 * 72000.0) {
            bad++; /* worth more than the largest cost (100000 x 0.6 x 1.2) but left out */
        }
    }
    CS_CHECK(j == m[1].n && bad == 0);
    CS_CHECK_EQ_U64(m[3].n, 0); /* balance 1e3 < any cost */
    for (int i = 0; i < 4; i++) rm_agent(&a[i]);
}

/* ------------------------------------------------------------ affine_user options */

/*
 * affine_user with the standard EIP-1559 ABM options: expected_wait = 5,
 * fixed_tip = 7 per cycle, value uniform on [1e8, 9e8], wait cost constant
 * 2.385e6, delay constant 3, cycles share constant 0.6 of 100,000, rate 2.
 * Under eip1559 with a constant lane basefee of 4,000 the expected price is
 * (4000 + 7) x 60000 = 2.4042e8 per fire, and a user joins iff
 * v - 2.385e6 x 5 - 2.4042e8 > 0, i.e. v > 2.51345e8, stating max_prio 7 and
 * max_fee v / 60000.  A reference model draws the same stream: Poisson(2)
 * users a block, one uniform each (the constants draw nothing).
 */
static void test_affine_options(void)
{
    const cs_agent_ops_t *ops = cs_agent_find("affine_user");
    double p[64];
    cs_dist_t d[64];
    memset(d, 0, sizeof d);
    for (size_t k = 0; k < ops->n_params; k++) {
        const char *nm = ops->params[k].name;
        p[k] = ops->params[k].def;
        if (strcmp(nm, "rate") == 0) p[k] = 2;
        if (strcmp(nm, "expected_wait") == 0) p[k] = 5;
        if (strcmp(nm, "fixed_tip") == 0) p[k] = 7;
        if (strcmp(nm, "value") == 0) {
            d[k].kind = CS_DIST_UNIFORM;
            d[k].p[0] = 1e8;
            d[k].p[1] = 9e8;
        }
        if (strcmp(nm, "wait_cost") == 0 || strcmp(nm, "delay_mean") == 0 || strcmp(nm, "cycles_frac") == 0) {
            d[k].kind = CS_DIST_CONSTANT;
            d[k].p[0] = strcmp(nm, "wait_cost") == 0 ? 2.385e6 : strcmp(nm, "delay_mean") == 0 ? 3 : 0.6;
        }
    }
    cs_agent_t a;
    memset(&a, 0, sizeof a);
    a.ops = ops;
    a.params = p;
    a.dists = d;
    a.n_actors = 1;
    a.rng = cs_rng_stream(31337, 5);
    a.state = calloc(1, ops->state_size);
    a.active = 1;
    static pmock_t m;
    memset(&m, 0, sizeof m);
    m.balance = 1e18;
    cs_world_t w = {&pm_ops, &m};
    gsl_rng *ref = cs_rng_stream(31337, 5);
    size_t bad = 0, want_n = 0;
    for (uint64_t h = 1; h <= 500; h++) {
        cs_obs_t o;
        memset(&o, 0, sizeof o);
        o.height = h;
        o.mechanism = "eip1559";
        o.demand_mult = 1.0;
        o.basefee_lane = 4000;
        size_t n0 = m.n;
        a.ops->on_block(&a, &w, &o);
        unsigned n = gsl_ran_poisson(ref, 2.0);
        for (unsigned i = 0; i < n; i++) {
            double v = gsl_ran_flat(ref, 1e8, 9e8);
            if (v - 2.385e6 * 5 - (4000.0 + 7.0) * 60000.0 > 0) {
                if (want_n >= PM_MAX || m.value[want_n] != v || m.delay[want_n] != 3) bad++;
                want_n++;
            }
        }
        if (m.n > n0 && (!m.last.has_fees || m.last.max_prio != 7 || m.last.cycles_used != 60000 ||
                         m.last.max_fee != m.last.value / 60000.0))
            bad++;
    }
    CS_CHECK_EQ_U64(m.n, want_n);
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK(want_n > 500 && want_n < 1000); /* P(v > 2.51345e8) = 0.8108 of 1000 users */
    gsl_rng_free(ref);
    gsl_rng_free(a.rng);
    free(a.state);
}

int main(void)
{
    test_affine_options();
    test_fee_cap();
    test_entry_crn();
    return cs_test_done("policy");
}
