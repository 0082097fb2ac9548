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
    double bid[PM_MAX];            /* their bids (0 without one) */
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
        m->bid[m->n] = q->has_bid ? q->bid : 0.0;
    }
    m->last = *q;
    m->n++;
    if (id_out) memset(id_out, 0, sizeof *id_out);
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

/* ------------------------------------------------------------ entry, other kinds */

/* Set parameter name of a (an instance made by mk_agent). */
static void setp(cs_agent_t *a, double *params, const char *name, double v)
{
    for (size_t k = 0; k < a->ops->n_params; k++)
        if (strcmp(a->ops->params[k].name, name) == 0) params[k] = v;
}

/*
 * Drive a for blocks 1..n under eip1559 with CIP-3 basefees cyc (cycle)
 * and 1000 (cell), no tip, the lane basefee lane1 up to block sw and lane2
 * after it.  A pending request is fired (on_outcome FIRED, the handler
 * path) when its due height comes, so a heartbeat keeps ticking.  reqh[i]
 * is the block of request i.  Returns the stream's next output (the draw
 * pattern).
 */
static unsigned long entry_drive(cs_agent_t *a, pmock_t *m, uint64_t n, double cyc, double lane1, double lane2,
                                 uint64_t sw, uint64_t *reqh)
{
    cs_world_t w = {&pm_ops, m};
    uint64_t due = 0;
    for (uint64_t h = 1; h <= n; h++) {
        cs_obs_t o;
        memset(&o, 0, sizeof o);
        o.mechanism = "eip1559";
        o.height = h;
        o.demand_mult = o.vol_mult = 1.0;
        o.basefee_cycle = cyc;
        o.basefee_cell = 1000;
        o.basefee_lane = h <= sw ? lane1 : lane2;
        size_t n0 = m->n;
        a->ops->on_block(a, &w, &o);
        if (m->n > n0) due = h + m->last.delay;
        if (due == h && a->ops->on_outcome) {
            cs_timer_info_t t;
            memset(&t, 0, sizeof t);
            size_t n1 = m->n;
            a->ops->on_outcome(a, &w, &t, CS_AO_FIRED, 0, 0);
            if (m->n > n1) due = h + m->last.delay;
        }
        for (size_t k = n0; k < m->n && k < PM_MAX; k++) reqh[k] = h;
    }
    return gsl_rng_get(a->rng);
}

/* One run of kind with params kv (name, value pairs, NULL-ended). */
typedef struct erun {
    pmock_t m;
    uint64_t reqh[PM_MAX];
    unsigned long next;
} erun_t;

static void entry_run(erun_t *r, const char *kind, const char *const *names, const double *vals, int aware, uint64_t n,
                      double cyc, double lane1, double lane2, uint64_t sw)
{
    double p[64];
    cs_agent_t a;
    mk_agent(&a, kind, p, aware);
    for (size_t i = 0; names[i]; i++) setp(&a, p, names[i], vals[i]);
    memset(&r->m, 0, sizeof r->m);
    r->m.balance = 1e18;
    r->next = entry_drive(&a, &r->m, n, cyc, lane1, lane2, sw, r->reqh);
    rm_agent(&a);
}

/*
 * Heartbeat: period 10, no start spread, value 2e8, 50,000 x 0.5 = 25,000
 * cycles (no jitter), no payload, over 100 blocks with a cycle basefee of
 * 1000.  A tick costs (1000 + lane) x 25,000: at lane 1000, 5e7 < 2e8 (it
 * enters), at lane 10^4, 2.75e8 > 2e8 (it does not).  Literal and cheap:
 * ticks scheduled at 1, 11, ..., 91 (each fire schedules the next, due 10
 * later) = 10.  Expensive: 0 (skipped at 1, 11, 21, ...).  Expensive up to
 * block 50, cheap after: skipped at 1, ..., 41, entered at 51, then 61,
 * 71, 81, 91 = 5, the first at 51.
 */
static void test_entry_heartbeat(void)
{
    static erun_t r[4];
    static const char *const nm[] = {"period", "start_spread", "value", "gas_limit", "cycles_frac", "cycles_jitter",
                                     "payload_len", NULL};
    static const double v[] = {10, 0, 2e8, 50000, 0.5, 0, 0};
    entry_run(&r[0], "heartbeat", nm, v, 0, 100, 1000, 1e4, 1e4, 100);
    entry_run(&r[1], "heartbeat", nm, v, 1, 100, 1000, 1000, 1000, 100);
    entry_run(&r[2], "heartbeat", nm, v, 1, 100, 1000, 1e4, 1e4, 100);
    entry_run(&r[3], "heartbeat", nm, v, 1, 100, 1000, 1e4, 1000, 50);
    printf("  heartbeat ticks: literal %zu, cheap %zu, expensive %zu, dear then cheap %zu (first at %llu)\n", r[0].m.n,
           r[1].m.n, r[2].m.n, r[3].m.n, (unsigned long long)r[3].reqh[0]);
    CS_CHECK_EQ_U64(r[0].m.n, 10);
    CS_CHECK_EQ_U64(r[1].m.n, 10);
    CS_CHECK_EQ_U64(r[2].m.n, 0);
    CS_CHECK_EQ_U64(r[3].m.n, 5);
    for (size_t k = 0; k < 10; k++) CS_CHECK(r[0].reqh[k] == 1 + 10 * k && r[1].reqh[k] == 1 + 10 * k);
    for (size_t k = 0; k < 5; k++) CS_CHECK(r[3].reqh[k] == 51 + 10 * k);
    CS_CHECK(r[0].next == r[1].next && r[0].next == r[2].next && r[0].next == r[3].next);
}

/*
 * Oracle: every 30 blocks, value 2e9, 150,000 x 0.7 = 105,000 cycles (no
 * jitter), 256 payload bytes, 300 blocks, cycle and cell basefees 1000.  A
 * push costs (1000 + lane) x 105,000 + 256 x 1000: at lane 1000 2.10256e8
 * < 2e9, at lane 2 x 10^4 2.205256e9 > 2e9.  With ph = the literal first
 * delay - 1, mode 1 pushes at block 1 and at 2 + ph + 30 k <= 300:
 * 1 + floor((298 - ph) / 30) + 1 pushes; cheap the same blocks, expensive
 * none, expensive up to 150 then cheap exactly the literal's after 150.
 * Mode 0 (one INTERVAL timer): literal registers at block 1; expensive
 * never; dear then cheap once, at the first push height 2 + ph + 30 k
 * after 150, due 30 blocks later.
 */
static void test_entry_oracle(void)
{
    static erun_t r[4];
    static const char *const nm[] = {"mode", "every_blocks", "value", "gas_limit", "cycles_frac", "cycles_jitter",
                                     "payload_len", NULL};
    double v[] = {1, 30, 2e9, 150000, 0.7, 0, 256};
    entry_run(&r[0], "oracle", nm, v, 0, 300, 1000, 2e4, 2e4, 300);
    entry_run(&r[1], "oracle", nm, v, 1, 300, 1000, 1000, 1000, 300);
    entry_run(&r[2], "oracle", nm, v, 1, 300, 1000, 2e4, 2e4, 300);
    entry_run(&r[3], "oracle", nm, v, 1, 300, 1000, 2e4, 1000, 150);
    uint64_t ph = r[0].m.delay[0] - 1;
    size_t want = 1 + (size_t)((298 - ph) / 30) + 1, after = 0;
    for (size_t k = 0; k < r[0].m.n; k++) after += r[0].reqh[k] > 150;
    printf("  oracle mode 1 (phase %llu): literal %zu pushes (want %zu), cheap %zu, expensive %zu, dear then cheap %zu "
           "(want %zu)\n",
           (unsigned long long)ph, r[0].m.n, want, r[1].m.n, r[2].m.n, r[3].m.n, after);
    CS_CHECK_EQ_U64(r[0].m.n, want);
    CS_CHECK_EQ_U64(r[1].m.n, want);
    CS_CHECK_EQ_U64(r[2].m.n, 0);
    CS_CHECK_EQ_U64(r[3].m.n, after);
    for (size_t k = 0; k < r[1].m.n; k++) CS_CHECK(r[1].reqh[k] == r[0].reqh[k]);
    for (size_t k = 0; k < r[3].m.n; k++) CS_CHECK(r[3].reqh[k] == r[0].reqh[r[0].m.n - after + k]);
    CS_CHECK(r[0].next == r[1].next && r[0].next == r[2].next && r[0].next == r[3].next);
    v[0] = 0; /* mode 0 */
    entry_run(&r[0], "oracle", nm, v, 0, 300, 1000, 2e4, 2e4, 300);
    entry_run(&r[2], "oracle", nm, v, 1, 300, 1000, 2e4, 2e4, 300);
    entry_run(&r[3], "oracle", nm, v, 1, 300, 1000, 2e4, 1000, 150);
    ph = r[0].m.delay[0] - 1;
    uint64_t g = 2 + ph;
    while (g <= 150) g += 30;
    printf("  oracle mode 0: literal %zu registration, expensive %zu, dear then cheap %zu at block %llu (want %llu)\n",
           r[0].m.n, r[2].m.n, r[3].m.n, (unsigned long long)r[3].reqh[0], (unsigned long long)g);
    CS_CHECK(r[0].m.n == 1 && r[0].reqh[0] == 1);
    CS_CHECK_EQ_U64(r[2].m.n, 0);
    CS_CHECK(r[3].m.n == 1 && r[3].reqh[0] == g && r[3].m.delay[0] == 30 && r[3].m.last.kind == r[0].m.last.kind);
    CS_CHECK(r[0].next == r[2].next && r[0].next == r[3].next);
}

/*
 * Liquidation bot, always turbulent (regime0 1, p_down 0, sigma_high
 * 0.003), liq_ratio 0.97, checks of 200,000 x 0.7 = 140,000 cycles (no
 * jitter), 128 payload bytes, 2000 blocks, cycle and cell basefees 1000.
 * A check is worth 2e10 at risk >= check_risk, 1e9 (routine share 0.05)
 * otherwise, and costs (1000 + lane) x 140,000 + 128,000: lane 1000
 * 2.80128e8 (both enter: the literal's checks exactly), lane 10^4
 * 1.540128e9 (only the risky ones: every check is worth 2e10, and at
 * least as many as the literal's risky ones -- a skipped routine check
 * never delays a risky one by the cooldown), lane 2 x 10^5 2.8140128e10
 * (none).
 */
static void test_entry_liquidation(void)
{
    static erun_t r[4];
    static const char *const nm[] = {"regime0", "p_down", "sigma_high", "liq_ratio", "cycles_jitter", NULL};
    static const double v[] = {1, 0, 0.003, 0.97, 0};
    entry_run(&r[0], "liquidation_bot", nm, v, 0, 2000, 1000, 2e5, 2e5, 2000);
    entry_run(&r[1], "liquidation_bot", nm, v, 1, 2000, 1000, 1000, 1000, 2000);
    entry_run(&r[2], "liquidation_bot", nm, v, 1, 2000, 1000, 1e4, 1e4, 2000);
    entry_run(&r[3], "liquidation_bot", nm, v, 1, 2000, 1000, 2e5, 2e5, 2000);
    size_t risky = 0, routine = 0, mid_low = 0;
    for (size_t k = 0; k < r[0].m.n; k++) {
        risky += r[0].m.value[k] == 2e10;
        routine += r[0].m.value[k] == 1e9;
    }
    for (size_t k = 0; k < r[2].m.n; k++) mid_low += r[2].m.value[k] != 2e10;
    printf("  liquidation checks: literal %zu (%zu risky, %zu routine), cheap %zu, lane 1e4 %zu (%zu below 2e10), "
           "expensive %zu\n",
           r[0].m.n, risky, routine, r[1].m.n, r[2].m.n, mid_low, r[3].m.n);
    CS_CHECK(risky > 0 && routine > 0 && risky + routine == r[0].m.n && r[0].m.n < PM_MAX);
    CS_CHECK_EQ_U64(r[1].m.n, r[0].m.n);
    int same = 1;
    for (size_t k = 0; k < r[1].m.n; k++) same = same && r[1].reqh[k] == r[0].reqh[k] && r[1].m.value[k] == r[0].m.value[k];
    CS_CHECK(same);
    CS_CHECK(mid_low == 0 && r[2].m.n >= risky);
    CS_CHECK_EQ_U64(r[3].m.n, 0);
    CS_CHECK(r[0].next == r[1].next && r[0].next == r[2].next && r[0].next == r[3].next);
}

/*
 * demand_curve on the lane basefee (price_source 1, p_max 4000, base rate
 * 2, elasticity 1), value 5e8, 100,000 x 0.6 = 60,000 cycles, 64 payload
 * bytes, lane basefee 1000: the curve asks 2 x (1 - 1000/4000) = 1.5 a
 * block, 150 over 100 blocks.  A fire costs (cycle + 1000) x 60,000 +
 * 64,000: with a cycle basefee of 1000 1.20064e8 < 5e8 (all 150 enter),
 * with 8000 5.40064e8 > 5e8 (none, though the curve, which sees only the
 * lane basefee, still asks 150: the literal run).
 */
static void test_entry_demand_curve(void)
{
    static erun_t r[3];
    static const char *const nm[] = {"price_source", NULL};
    static const double v[] = {1};
    entry_run(&r[0], "demand_curve", nm, v, 0, 100, 8000, 1000, 1000, 100);
    entry_run(&r[1], "demand_curve", nm, v, 1, 100, 1000, 1000, 1000, 100);
    entry_run(&r[2], "demand_curve", nm, v, 1, 100, 8000, 1000, 1000, 100);
    printf("  demand_curve arrivals: literal %zu, cheap %zu, expensive %zu\n", r[0].m.n, r[1].m.n, r[2].m.n);
    CS_CHECK_EQ_U64(r[0].m.n, 150);
    CS_CHECK_EQ_U64(r[1].m.n, 150);
    CS_CHECK_EQ_U64(r[2].m.n, 0);
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
/* An affine_user instance a on stream (31337, 5) with rate 2, the given
 * expected_wait (CS_AGENT_PARAM_WORD = "estimate"), fixed_tip and
 * ema_alpha, value uniform on [1e8, 9e8], a constant wait cost, delay 3
 * and cycles share 0.6 of 100,000; p and d hold its parameters.  m is
 * cleared with a balance of 1e18; returns a reference stream equal to a's
 * (the caller frees it). */
static gsl_rng *af_setup(cs_agent_t *a, double *p, cs_dist_t *d, double ew, double tip, double alpha, double cost,
                         pmock_t *m)
{
    const cs_agent_ops_t *ops = cs_agent_find("affine_user");
    memset(d, 0, 64 * sizeof *d);
    for (size_t k = 0; k < ops->n_params; k++) {
        const char *nm = ops->params[k].name;
        p[k] = ops->params[k].def;
        if (strcmp(nm, "rate") == 0) p[k] = 2;
        if (strcmp(nm, "expected_wait") == 0) p[k] = ew;
        if (strcmp(nm, "fixed_tip") == 0) p[k] = tip;
        if (strcmp(nm, "ema_alpha") == 0) p[k] = alpha;
        if (strcmp(nm, "value") == 0) {
            d[k].kind = CS_DIST_UNIFORM;
            d[k].p[0] = 1e8;
            d[k].p[1] = 9e8;
        }
        if (strcmp(nm, "wait_cost") == 0 || strcmp(nm, "delay_mean") == 0 || strcmp(nm, "cycles_frac") == 0) {
            d[k].kind = CS_DIST_CONSTANT;
            d[k].p[0] = strcmp(nm, "wait_cost") == 0 ? cost : strcmp(nm, "delay_mean") == 0 ? 3 : 0.6;
        }
    }
    memset(a, 0, sizeof *a);
    a->ops = ops;
    a->params = p;
    a->dists = d;
    a->n_actors = 1;
    a->rng = cs_rng_stream(31337, 5);
    a->state = calloc(1, ops->state_size);
    a->active = 1;
    memset(m, 0, sizeof *m);
    m->balance = 1e18;
    return cs_rng_stream(31337, 5);
}

static void test_affine_options(void)
{
    double p[64];
    cs_dist_t d[64];
    cs_agent_t a;
    static pmock_t m;
    gsl_rng *ref = af_setup(&a, p, d, 5, 7, 0.1, 2.385e6, &m);
    cs_world_t w = {&pm_ops, &m};
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

/*
 * expected_wait under bias-vcg (agents/README.md affine_user): with
 * ema_alpha 1 the expectations are the last observation, utilisation 0.75
 * and clearing price 2e8, and the wait cost is 5e7 a block.  W is then
 * 0.75 / 0.25 = 3 for "estimate", 0 for 0 (a user who will not wait) and 5
 * for 5, and a user with value v joins iff v - 5e7 W - 2e8 > 0, bidding
 * min(2e8 x 1.1, v - 5e7 W): by hand, v > 3.5e8, 2e8 and 4.5e8.  A
 * reference draws the same stream (Poisson(2) users a block, one uniform
 * each) for 300 blocks.
 */
static void test_affine_wait(double ew, double want_w)
{
    double p[64];
    cs_dist_t d[64];
    cs_agent_t a;
    static pmock_t m;
    gsl_rng *ref = af_setup(&a, p, d, ew, 0, 1, 5e7, &m);
    cs_world_t w = {&pm_ops, &m};
    size_t bad = 0, want_n = 0;
    for (uint64_t h = 1; h <= 300; h++) {
        cs_obs_t o;
        memset(&o, 0, sizeof o);
        o.height = h;
        o.mechanism = "bias-vcg";
        o.demand_mult = 1.0;
        o.utilisation = 0.75;
        o.clearing_price = 2e8;
        a.ops->on_block(&a, &w, &o);
        unsigned n = gsl_ran_poisson(ref, 2.0);
        for (unsigned i = 0; i < n; i++) {
            double v = gsl_ran_flat(ref, 1e8, 9e8), room = v - 5e7 * want_w;
            if (room - 2e8 > 0) {
                double bid = room < 2.2e8 ? room : 2.2e8;
                if (want_n >= PM_MAX || m.value[want_n] != v || fabs(m.bid[want_n] - bid) > 1e-6) bad++;
                want_n++;
            }
        }
    }
    CS_CHECK_EQ_U64(m.n, want_n);
    CS_CHECK_EQ_U64(bad, 0);
    /* P(join) = (9e8 - threshold) / 8e8 of about 600 users */
    double share = (9e8 - 2e8 - 5e7 * want_w) / 8e8;
    CS_CHECK(fabs((double)want_n / 600.0 - share) < 0.1);
    gsl_rng_free(ref);
    gsl_rng_free(a.rng);
    free(a.state);
}

int main(void)
{
    test_affine_options();
    test_affine_wait(CS_AGENT_PARAM_WORD, 3); /* "estimate" */
    test_affine_wait(0, 0);                   /* will not wait */
    test_affine_wait(5, 5);
    test_fee_cap();
    test_entry_crn();
    test_entry_heartbeat();
    test_entry_oracle();
    test_entry_liquidation();
    test_entry_demand_curve();
    return cs_test_done("policy");
}
