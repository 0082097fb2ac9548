/*
 * test_agents.c -- the bidder agents (DESIGN §3): the registry, the
 * default value model, one behaviour test per kind, determinism and common
 * random numbers, and agents/README.md against the parameter tables.
 *
 * Agents run against a mock world (struct mock below) implementing
 * cs_world_ops_t: it records every schedule request, key write and cancel,
 * checks the request contract (delay >= 1, cycles_used <= gas_limit, actor
 * in range, WATCH <=> key, INTERVAL => every_blocks, ...), and has a fake
 * height and balance.  Generators come from cs_rng_stream(seed, index).
 * Where a kind draws random numbers, the expected requests are computed by
 * a reference model in this file that draws from a second generator on the
 * same stream and applies the documented formulas (agents/README.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "cs_agent.h"
#include "cs_h5.h"
#include "cs_rng.h"
#include "cs_test.h"
#include "cs_timer.h"

/* ------------------------------------------------------------ mock world */

typedef struct mreq {
    cs_timer_req_t q;  /* the request as scheduled; watch_key set to NULL (see key) */
    int has_key;       /* the request had a watch key */
    char key[48];      /* copy of the watch key */
    uint64_t height;   /* world height at the call */
    cs_hash_t id;      /* id handed back */
    int resolved;      /* the driver reported a final outcome */
} mreq_t;

typedef struct mwrite {
    uint32_t actor;    /* writing actor */
    char key[48];      /* key written */
    uint64_t height;   /* world height at the call */
} mwrite_t;

typedef struct mock {
    uint64_t h;            /* height returned by the world */
    double bal;            /* balance of every actor */
    int fail;              /* nonzero: schedule returns this code and records nothing */
    mreq_t *r;             /* accepted requests */
    size_t nr, capr;
    mwrite_t *wr;          /* key writes */
    size_t nw, capw;
    size_t attempts;       /* schedule calls, accepted or not */
    size_t ncancel;        /* cancel calls */
    uint64_t next_id;      /* id counter */
    long bad;              /* request-contract violations */
} mock_t;

static int m_schedule(void *impl, cs_agent_t *a, const cs_timer_req_t *q, cs_hash_t *id_out)
{
    mock_t *m = impl;
    m->attempts++;
    if (q->delay < 1) m->bad++;
    if (q->gas_limit < 1 || q->cycles_used > q->gas_limit) m->bad++;
    if (q->actor >= a->n_actors) m->bad++;
    if (q->kind > CS_KIND_WATCH) m->bad++;
    if ((q->kind == CS_KIND_WATCH) != (q->watch_key != NULL)) m->bad++;
    if (q->kind == CS_KIND_INTERVAL && q->every_blocks < 1) m->bad++;
    if (q->kind != CS_KIND_INTERVAL && q->every_blocks != 0) m->bad++;
    if (q->has_bid && q->has_fees) m->bad++;
    if (q->bid < 0 || q->max_fee < 0 || q->max_prio < 0 || q->value < 0 || q->decay < 0) m->bad++;
    if (q->tier > 3) m->bad++;
    if (m->fail) return m->fail;
    if (m->nr == m->capr) {
        m->capr = m->capr ? 2 * m->capr : 256;
        m->r = realloc(m->r, m->capr * sizeof *m->r);
        if (!m->r) abort();
    }
    mreq_t *e = &m->r[m->nr++];
    memset(e, 0, sizeof *e);
    e->q = *q;
    if (q->watch_key) {
        e->has_key = 1;
        snprintf(e->key, sizeof e->key, "%s", q->watch_key);
    }
    e->q.watch_key = NULL; /* the agent's buffer is not ours to keep */
    e->height = m->h;
    m->next_id++;
    for (int i = 0; i < 8; i++) e->id.b[i] = (uint8_t)(m->next_id >> (56 - 8 * i));
    if (id_out) *id_out = e->id;
    return CS_OK;
}

static int m_cancel(void *impl, cs_agent_t *a, uint32_t actor, const cs_hash_t *id)
{
    mock_t *m = impl;
    (void)a;
    (void)actor;
    (void)id;
    m->ncancel++;
    return CS_OK;
}

static int m_write_key(void *impl, cs_agent_t *a, uint32_t actor, const char *key)
{
    mock_t *m = impl;
    if (actor >= a->n_actors || key == NULL) m->bad++;
    if (m->nw == m->capw) {
        m->capw = m->capw ? 2 * m->capw : 256;
        m->wr = realloc(m->wr, m->capw * sizeof *m->wr);
        if (!m->wr) abort();
    }
    mwrite_t *e = &m->wr[m->nw++];
    e->actor = actor;
    snprintf(e->key, sizeof e->key, "%s", key ? key : "");
    e->height = m->h;
    return CS_OK;
}

static uint64_t m_height(const void *impl) { return ((const mock_t *)impl)->h; }

static double m_balance(const void *impl, const cs_agent_t *a, uint32_t actor)
{
    (void)a;
    (void)actor;
    return ((const mock_t *)impl)->bal;
}

static const cs_world_ops_t mock_ops = {m_schedule, m_cancel, m_write_key, m_height, m_balance};

static void mock_init(mock_t *m, cs_world_t *w)
{
    memset(m, 0, sizeof *m);
    m->bal = 1e18;
    w->ops = &mock_ops;
    w->impl = m;
}

static void mock_free(mock_t *m)
{
    free(m->r);
    free(m->wr);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ test agents */

typedef struct tagent {
    cs_agent_t a;               /* the instance */
    const cs_agent_ops_t *ops;  /* its kind */
    double p[64];               /* parameter values */
} tagent_t;

/* Parameter index by name, or -1. */
static int pidx(const cs_agent_ops_t *ops, const char *name)
{
    for (size_t i = 0; i < ops->n_params; i++)
        if (strcmp(ops->params[i].name, name) == 0) return (int)i;
    return -1;
}

static void ta_new(tagent_t *t, const char *kind)
{
    memset(t, 0, sizeof *t);
    t->ops = cs_agent_find(kind);
    CS_CHECK(t->ops != NULL);
    if (!t->ops) abort();
    CS_CHECK(t->ops->n_params <= 64);
    for (size_t i = 0; i < t->ops->n_params; i++) t->p[i] = t->ops->params[i].def;
}

static void ta_set(tagent_t *t, const char *name, double v)
{
    int i = pidx(t->ops, name);
    CS_CHECK(i >= 0);
    if (i < 0) {
        fprintf(stderr, "no parameter %s in %s\n", name, t->ops->name);
        return;
    }
    CS_CHECK(v >= t->ops->params[i].min && v <= t->ops->params[i].max);
    t->p[i] = v;
}

/* Allocate state and stream (seed, idx) and call init; returns init's code. */
static int ta_start(tagent_t *t, cs_world_t *w, uint64_t seed, uint32_t idx)
{
    t->a.ops = t->ops;
    t->a.state = calloc(1, t->ops->state_size ? t->ops->state_size : 1);
    t->a.params = t->p;
    t->a.index = idx;
    t->a.n_actors = t->ops->n_actors ? t->ops->n_actors(t->p) : 1;
    t->a.first_actor = 0;
    t->a.rng = cs_rng_stream(seed, idx);
    t->a.active = 1;
    return t->ops->init ? t->ops->init(&t->a, w) : CS_OK;
}

static void ta_free(tagent_t *t)
{
    if (t->ops && t->ops->fini) t->ops->fini(&t->a);
    free(t->a.state);
    if (t->a.rng) gsl_rng_free(t->a.rng);
    memset(&t->a, 0, sizeof t->a);
}

/* A plain observation of block h under mechanism mech. */
static cs_obs_t obs_make(const char *mech, uint64_t h)
{
    cs_obs_t o;
    memset(&o, 0, sizeof o);
    o.height = h;
    o.mechanism = mech;
    o.basefee_lane = 1000;
    o.basefee_cycle = 700;
    o.basefee_cell = 3;
    o.p50_tip = 50;
    o.clearing_price = 0;
    o.utilisation = 0.5;
    o.demand_mult = 1.0;
    o.vol_mult = 1.0;
    return o;
}

/* Run on_block for heights from..to with observation *o (height updated). */
static void run(tagent_t *t, cs_world_t *w, mock_t *m, cs_obs_t *o, uint64_t from, uint64_t to)
{
    for (uint64_t h = from; h <= to; h++) {
        m->h = h;
        o->height = h;
        t->ops->on_block(&t->a, w, o);
    }
}

/* Timer info of a recorded request as the engine would report it. */
static cs_timer_info_t info_of(const mreq_t *e)
{
    cs_timer_info_t in;
    memset(&in, 0, sizeof in);
    in.id = e->id;
    in.actor = e->q.actor;
    in.tag = e->q.tag;
    in.due_height = e->height + e->q.delay;
    in.sched_height = e->height;
    in.value = e->q.value;
    in.decay = e->q.decay;
    in.deadline = e->q.deadline;
    in.gas_limit = e->q.gas_limit;
    in.cycles_used = e->q.cycles_used;
    return in;
}

/* Bitwise equality of two recorded requests (watch keys by content),
 * with or without the price fields (bid, max_fee, max_prio). */
static int req_eq(const mreq_t *ex, const mreq_t *ey, int with_price)
{
    const cs_timer_req_t *x = &ex->q, *y = &ey->q;
    if (ex->has_key != ey->has_key || strcmp(ex->key, ey->key) != 0) return 0;
    if (x->actor != y->actor || x->kind != y->kind || x->delay != y->delay ||
        x->every_blocks != y->every_blocks || x->payload_len != y->payload_len ||
        x->gas_limit != y->gas_limit || x->cycles_used != y->cycles_used || x->ttl != y->ttl ||
        x->tier != y->tier || x->value != y->value || x->decay != y->decay ||
        x->deadline != y->deadline || x->tag != y->tag || x->has_bid != y->has_bid ||
        x->has_fees != y->has_fees)
        return 0;
    if (with_price && (x->bid != y->bid || x->max_fee != y->max_fee || x->max_prio != y->max_prio))
        return 0;
    return 1;
}

/* The shared arrival model's cycles (README "cycles model"). */
static uint64_t ref_cycles(double u, double gas, double frac, double jitter)
{
    double f = frac * (1.0 + jitter * (2.0 * u - 1.0));
    if (f < 0) f = 0;
    if (f > 1) f = 1;
    return (uint64_t)llround(gas * f);
}

/* ------------------------------------------------------------ registry */

static void test_registry(void)
{
    char buf[512];
    for (int k = 0; k < CS_AK__COUNT; k++) {
        const cs_agent_ops_t *o = cs_agent_registry[k];
        CS_CHECK(o != NULL);
        CS_CHECK_EQ_U64(o->kind, k);
        CS_CHECK_STR(o->name, cs_agent_kind_names[k]);
        CS_CHECK_STR(o->name, cs_h5_kind_names[k]); /* HDF5 enum values follow cs_agent_kind */
        CS_CHECK(cs_agent_find(o->name) == o);
        CS_CHECK(o->version >= 1);
        CS_CHECK(o->on_block != NULL);
        CS_CHECK(o->state_size > 0);
        CS_CHECK(o->n_params > 0 && o->params != NULL);
        for (size_t i = 0; i < o->n_params; i++) {
            const cs_agent_param_t *p = &o->params[i];
            /* The default is in range, or the parameter's word (below every min). */
            CS_CHECK((p->min <= p->def && p->def <= p->max) || (p->word && p->def == CS_AGENT_PARAM_WORD));
            CS_CHECK(!p->word || !(p->min <= CS_AGENT_PARAM_WORD)); /* no number means the word */
            CS_CHECK(p->doc && p->doc[0]);
            for (size_t j = 0; j < i; j++) CS_CHECK(strcmp(p->name, o->params[j].name) != 0);
        }
    }
    CS_CHECK(cs_agent_find("no_such_kind") == NULL);
    CS_CHECK(cs_agent_find(NULL) == NULL);
    CS_CHECK_STR(cs_agent_names(buf, sizeof buf),
                 "default_gba, priority_tier, liquidation_bot, oracle, heartbeat, subscription, "
                 "spammer, fragmenter, fp_best_response, waiting_game, affine_user, watcher, "
                 "demand_curve");
    /* Truncation keeps a NUL: 12 bytes hold "default_gba" (11) + NUL. */
    CS_CHECK_STR(cs_agent_names(buf, 12), "default_gba");
    CS_CHECK_STR(cs_agent_names(buf, 5), "defa");
}

static void test_value_default(void)
{
    cs_timer_info_t t;
    memset(&t, 0, sizeof t);
    t.value = 2.385e8;
    t.decay = 1.0e6;
    t.deadline = 10;
    CS_CHECK(cs_agent_value_default(&t, 0) == 2.385e8);
    CS_CHECK(cs_agent_value_default(&t, 7) == 2.315e8);  /* 2.385e8 - 7 x 1e6 */
    CS_CHECK(cs_agent_value_default(&t, 10) == 2.285e8); /* at the deadline: still valued */
    CS_CHECK(cs_agent_value_default(&t, 11) == 0.0);     /* past the deadline */
    t.deadline = 0;
    CS_CHECK(cs_agent_value_default(&t, 100) == 1.385e8); /* 2.385e8 - 1e8, no deadline */
    CS_CHECK(cs_agent_value_default(&t, 1000) == 0.0);    /* floored at 0 */
}

/* ------------------------------------------------------------ README */

static void test_readme(void)
{
    const char *src = getenv("CS_SRC");
    char path[1024];
    snprintf(path, sizeof path, "%s/agents/README.md", src ? src : ".");
    FILE *f = fopen(path, "rb");
    CS_CHECK(f != NULL);
    if (!f) return;
    static char text[1 << 18];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    for (int k = 0; k < CS_AK__COUNT; k++) {
        const cs_agent_ops_t *o = cs_agent_registry[k];
        char row[512];
        snprintf(row, sizeof row, "## `%s`", o->name);
        const char *sec = strstr(text, row);
        CS_CHECK(sec != NULL);
        if (sec && o->dist_params) {
            /* The kind's section lists its distribution-valued parameters. */
            size_t u = (size_t)snprintf(row, sizeof row, "- **Distributions:** ");
            for (const char *const *d = o->dist_params; *d && u < sizeof row; d++)
                u += (size_t)snprintf(row + u, sizeof row - u, "%s`%s`", d == o->dist_params ? "" : ", ", *d);
            const char *nx = strstr(sec + 3, "\n## ");
            const char *hit = strstr(sec, row);
            if (!hit || (nx && hit > nx)) cs_test_failed(__FILE__, __LINE__, "README distributions line", row);
            else cs_test_pass++;
            for (const char *const *d = o->dist_params; *d; d++) {
                size_t j = 0;
                while (j < o->n_params && strcmp(o->params[j].name, *d) != 0) j++;
                CS_CHECK(j < o->n_params && cs_agent_param_dist(o, j));
            }
        }
        for (size_t i = 0; i < o->n_params; i++) {
            const cs_agent_param_t *p = &o->params[i];
            char def[40];
            if (p->word && p->def == CS_AGENT_PARAM_WORD) snprintf(def, sizeof def, "\"%s\"", p->word);
            else snprintf(def, sizeof def, "%.10g", p->def);
            snprintf(row, sizeof row, "| `%s` | %s | %.10g | %.10g | %s |", p->name, def, p->min, p->max, p->doc);
            if (!strstr(text, row)) {
                cs_test_failed(__FILE__, __LINE__, "README row", row);
            } else {
                cs_test_pass++;
            }
        }
    }
}

/* ------------------------------------------------------------ default_gba, priority_tier */

/* Reference model of the shared arrival model with default_gba's defaults
 * (delay_mean 20, value 5e8, value_sigma 0.5, decay_frac 0.01, gas 100000,
 * cycles_frac 0.6, jitter 0.2) at `rate`; returns the number of requests
 * and checks each against the agent's. */
static size_t ref_check_arrivals(const mock_t *m, uint64_t seed, uint32_t idx, double rate, uint64_t blocks,
                                 double bid_frac, int mc_bid)
{
    gsl_rng *r = cs_rng_stream(seed, idx);
    size_t j = 0, bad = 0;
    for (uint64_t b = 0; b < blocks; b++) {
        unsigned n = gsl_ran_poisson(r, rate);
        for (unsigned i = 0; i < n; i++, j++) {
            uint64_t d = gsl_ran_geometric(r, 1.0 / 20.0);
            double v = gsl_ran_lognormal(r, log(5e8) - 0.5 * 0.25, 0.5);
            uint64_t c = ref_cycles(gsl_rng_uniform(r), 100000, 0.6, 0.2);
            if (j >= m->nr) {
                bad++;
                continue;
            }
            const cs_timer_req_t *q = &m->r[j].q;
            if (q->delay != d || q->value != v || q->cycles_used != c || q->gas_limit != 100000 ||
                q->decay != v * 0.01 || q->payload_len != 64 || q->ttl != 0 || q->deadline != 0 ||
                m->r[j].height != b + 1)
                bad++;
            if (mc_bid && bid_frac > 0 ? (!q->has_bid || q->bid != bid_frac * v) : q->has_bid) bad++;
        }
    }
    gsl_rng_free(r);
    CS_CHECK_EQ_U64(bad, 0);
    return j;
}

static void test_default_gba(void)
{
    const char *mechs[] = {"eip1559", "gba-tip", "fifo", "bias-vcg"};
    for (int mi = 0; mi < 4; mi++) {
        mock_t m;
        cs_world_t w;
        tagent_t t;
        mock_init(&m, &w);
        ta_new(&t, "default_gba");
        ta_set(&t, "rate", 2.5);
        CS_CHECK_EQ_U64(ta_start(&t, &w, 1001, 3), CS_OK);
        cs_obs_t o = obs_make(mechs[mi], 1);
        run(&t, &w, &m, &o, 1, 300);
        /* Poisson(2.5) x 300 blocks: about 750 requests. */
        CS_CHECK(m.nr > 600 && m.nr < 900);
        size_t nfee = 0, nbid = 0, ntier = 0;
        for (size_t i = 0; i < m.nr; i++) {
            nfee += (size_t)m.r[i].q.has_fees;
            nbid += (size_t)m.r[i].q.has_bid;
            ntier += m.r[i].q.tier != 0;
        }
        /* No fee params, no bid (bid_frac 0), standard tier: the default GBA prices it. */
        CS_CHECK_EQ_U64(nfee, 0);
        CS_CHECK_EQ_U64(nbid, 0);
        CS_CHECK_EQ_U64(ntier, 0);
        CS_CHECK_EQ_U64(ref_check_arrivals(&m, 1001, 3, 2.5, 300, 0, 0), m.nr);
        CS_CHECK_EQ_U64(m.bad, 0);
        ta_free(&t);
        mock_free(&m);
    }
    /* bid_frac 0.25 under a bid mechanism: bid = 0.25 x value exactly. */
    mock_t m;
    cs_world_t w;
    tagent_t t;
    mock_init(&m, &w);
    ta_new(&t, "default_gba");
    ta_set(&t, "rate", 2.5);
    ta_set(&t, "bid_frac", 0.25);
    CS_CHECK_EQ_U64(ta_start(&t, &w, 1001, 3), CS_OK);
    cs_obs_t o = obs_make("bias-fp", 1);
    run(&t, &w, &m, &o, 1, 300);
    CS_CHECK_EQ_U64(ref_check_arrivals(&m, 1001, 3, 2.5, 300, 0.25, 1), m.nr);
    CS_CHECK(m.nr > 0 && m.r[0].q.has_bid == 1 && m.r[0].q.has_fees == 0);
    ta_free(&t);
    mock_free(&m);
}

static void test_priority_tier(void)
{
    for (int tier = 0; tier <= 3; tier++) {
        mock_t m1, m2;
        cs_world_t w1, w2;
        tagent_t t1, t2;
        mock_init(&m1, &w1);
        mock_init(&m2, &w2);
        ta_new(&t1, "priority_tier");
        ta_set(&t1, "rate", 1.7);
        ta_set(&t1, "tier", tier);
        ta_new(&t2, "default_gba");
        ta_set(&t2, "rate", 1.7);
        CS_CHECK_EQ_U64(ta_start(&t1, &w1, 77, 5), CS_OK);
        CS_CHECK_EQ_U64(ta_start(&t2, &w2, 77, 5), CS_OK);
        cs_obs_t o = obs_make("eip1559", 1);
        run(&t1, &w1, &m1, &o, 1, 200);
        run(&t2, &w2, &m2, &o, 1, 200);
        CS_CHECK(m1.nr > 200);
        CS_CHECK_EQ_U64(m1.nr, m2.nr);
        size_t same = 0, carries = 0;
        for (size_t i = 0; i < m1.nr && i < m2.nr; i++) {
            carries += m1.r[i].q.tier == (uint8_t)tier && m1.r[i].q.has_fees == 0;
            mreq_t x = m1.r[i];
            x.q.tier = 0; /* apart from the tier hint it is default_gba's stream */
            same += req_eq(&x, &m2.r[i], 1);
        }
        CS_CHECK_EQ_U64(carries, m1.nr);
        CS_CHECK_EQ_U64(same, m1.nr);
        ta_free(&t1);
        ta_free(&t2);
        mock_free(&m1);
        mock_free(&m2);
    }
    /* The default tier is 2 (fast). */
    tagent_t t;
    ta_new(&t, "priority_tier");
    CS_CHECK(t.p[pidx(t.ops, "tier")] == 2.0);
}

/* ------------------------------------------------------------ liquidation_bot */

/* Reference model of the bot (README): returns the sum of the GBA priority
 * at p50 = 50 (floor 10) over the blocks, and counts checks. */
typedef struct lb_ref {
    double sum_prio;   /* sum over blocks of the fire-time max_prio */
    double sum_bid;    /* sum over blocks of the bid of a value-2e10 check */
    size_t checks;     /* checks scheduled */
    uint64_t check_h[8192]; /* their heights */
    double check_v[8192];   /* their values */
    int check_risky[8192];  /* risk >= check_risk when scheduled */
} lb_ref_t;

static void lb_reference(uint64_t seed, uint32_t idx, double s_lo, double s_hi, double vm, uint64_t blocks,
                         lb_ref_t *out)
{
    gsl_rng *r = cs_rng_stream(seed, idx);
    double logp = log(1000.0), logl = 0;
    int regime = 0, opened = 0, have = 0;
    uint64_t last = 0;
    memset(out, 0, sizeof *out);
    for (uint64_t h = 1; h <= blocks; h++) {
        double ur = gsl_rng_uniform(r);
        double z = gsl_ran_gaussian(r, 1.0);
        unsigned k = gsl_ran_poisson(r, 0.002);
        double zj = gsl_ran_gaussian(r, 1.0);
        (void)gsl_rng_uniform(r);
        if (regime == 0 && ur < 0.002) regime = 1;
        else if (regime == 1 && ur < 0.02) regime = 0;
        double sg = (regime ? s_hi : s_lo) * vm;
        logp += 0.0 - 0.5 * sg * sg + sg * z + (double)k * -0.02 + 0.03 * sqrt((double)k) * zj;
        if (!opened) {
            logl = logp + log(0.9);
            opened = 1;
        }
        double d = logp - logl, risk;
        if (!(d > 0)) risk = 1;
        else if (!(sg * 10.0 > 0)) risk = 0;
        else risk = fmin(1.0, 2.0 * gsl_cdf_ugaussian_P(-d / (sg * 10.0)));
        double mult = risk > 0.9 ? 10.0 : (risk > 0.7 ? 3.0 : 1.0);
        out->sum_prio += 50.0 * mult;
        out->sum_bid += 2e10 * fmin(1.0, 0.05 * mult);
        /* risk-triggered (cooldown 5) or routine (every 30 blocks) */
        if ((risk >= 0.2 && (!have || h - last >= 5)) || h % 30 == 0) {
            if (out->checks < 8192) {
                out->check_h[out->checks] = h;
                out->check_v[out->checks] = risk >= 0.2 ? 2e10 : 2e10 * 0.05;
                out->check_risky[out->checks] = risk >= 0.2;
            }
            out->checks++;
            have = 1;
            last = h;
        }
        if (logp <= logl) logl = logp + log(0.9);
    }
    gsl_rng_free(r);
}

/* One block of the bot at height 1 with one regime and sigma s: returns
 * the GBA's max_prio (p50 50) and, through *nreq, the checks scheduled. */
static double lb_first_block(double s, const char *mech, double *max_fee, size_t *nreq, double *bid)
{
    mock_t m;
    cs_world_t w;
    tagent_t t;
    mock_init(&m, &w);
    ta_new(&t, "liquidation_bot");
    ta_set(&t, "regime0", 1);
    ta_set(&t, "p_up", 0);
    ta_set(&t, "p_down", 0);
    ta_set(&t, "jump_rate", 0);
    ta_set(&t, "sigma_high", s);
    CS_CHECK_EQ_U64(ta_start(&t, &w, 9, 1), CS_OK);
    cs_obs_t o = obs_make(mech, 1);
    run(&t, &w, &m, &o, 1, 1);
    cs_timer_info_t in;
    memset(&in, 0, sizeof in);
    in.value = 2e10;
    in.gas_limit = 200000;
    double mf = -1, mp = -1;
    CS_CHECK(t.ops->gba(&t.a, &in, &o, &mf, &mp) == 1);
    *max_fee = mf;
    *nreq = m.nr;
    cs_timer_req_t q;
    memset(&q, 0, sizeof q);
    q.value = 2e10;
    cs_obs_t ob = obs_make("bias-vcg", 1);
    t.ops->bid(&t.a, &ob, &q);
    *bid = q.has_bid ? q.bid : -1;
    if (m.nr) {
        const cs_timer_req_t *c = &m.r[0].q;
        CS_CHECK_EQ_U64(c->delay, 1);
        CS_CHECK(c->value == 2e10);
        CS_CHECK_EQ_U64(c->deadline, 3);
        CS_CHECK_EQ_U64(c->gas_limit, 200000);
        if (strcmp(mech, "eip1559") == 0) CS_CHECK(c->has_fees == 0 && c->has_bid == 0);
    }
    CS_CHECK_EQ_U64(m.bad, 0);
    ta_free(&t);
    mock_free(&m);
    return mp;
}

static void test_liquidation_bot(void)
{
    double mf, bid;
    size_t n;
    /* At the first block the position opens at L = 0.9 P, so d = ln(1/0.9) =
     * 0.1053605157 and risk = 2 Phi(-d / (sigma sqrt(100))) = erfc(z / sqrt 2):
     *   sigma 0.001: z = 10.536, risk = 5.9e-26 -> normal, x1:   prio 50, fee 2 x 1000 + 50
     *   sigma 0.05:  z = 0.2107, risk = 0.8331  -> aggressive, x3: prio 150, fee 2150
     *   sigma 0.5:   z = 0.0211, risk = 0.9832  -> ultra, x10:     prio 500, fee 2500
     * Bids (bid mechanisms) = 2e10 x min(1, 0.05 x m) = 1e9, 3e9, 1e10 (the
     * middle one as the double 2e10 x (0.05 x 3), since 0.05 x 3 rounds to
     * 0.15000000000000002).
     * A check (risk >= 0.2) is scheduled only in the last two cases. */
    CS_CHECK(lb_first_block(0.001, "eip1559", &mf, &n, &bid) == 50.0);
    CS_CHECK(mf == 2050.0);
    CS_CHECK_EQ_U64(n, 0);
    CS_CHECK(bid == 1e9);
    CS_CHECK(lb_first_block(0.05, "eip1559", &mf, &n, &bid) == 150.0);
    CS_CHECK(mf == 2150.0);
    CS_CHECK_EQ_U64(n, 1);
    CS_CHECK(bid == 2e10 * (0.05 * 3.0) && fabs(bid - 3e9) < 1e-5);
    CS_CHECK(lb_first_block(0.5, "eip1559", &mf, &n, &bid) == 500.0);
    CS_CHECK(mf == 2500.0);
    CS_CHECK_EQ_U64(n, 1);
    CS_CHECK(bid == 1e10);
    /* Under a bid mechanism the scheduled check carries the tiered bid. */
    {
        mock_t m;
        cs_world_t w;
        tagent_t t;
        mock_init(&m, &w);
        ta_new(&t, "liquidation_bot");
        ta_set(&t, "regime0", 1);
        ta_set(&t, "p_up", 0);
        ta_set(&t, "p_down", 0);
        ta_set(&t, "jump_rate", 0);
        ta_set(&t, "sigma_high", 0.05);
        ta_start(&t, &w, 9, 1);
        cs_obs_t o = obs_make("bias-vcg", 1);
        run(&t, &w, &m, &o, 1, 1);
        CS_CHECK_EQ_U64(m.nr, 1);
        if (m.nr) CS_CHECK(m.r[0].q.has_bid == 1 && m.r[0].q.bid == 2e10 * (0.05 * 3.0)); /* ~3e9 */
        ta_free(&t);
        mock_free(&m);
    }

    /* Long runs with regime switching: a calm parameter set (sigma 0.001 /
     * 0.002) against a turbulent one (0.01 / 0.03), same stream.  The
     * priorities, bids and check heights must equal the reference model, and
     * the turbulent bot's average priority and bid must be higher. */
    const double sets[3][3] = {{0.001, 0.002, 1.0}, {0.01, 0.03, 1.0}, {0.001, 0.002, 6.0}};
    double avg_prio[3], avg_bid[3];
    static lb_ref_t ref;
    for (int si = 0; si < 3; si++) {
        mock_t m;
        cs_world_t w;
        tagent_t t;
        mock_init(&m, &w);
        ta_new(&t, "liquidation_bot");
        ta_set(&t, "sigma_low", sets[si][0]);
        ta_set(&t, "sigma_high", sets[si][1]);
        ta_start(&t, &w, 4242, 17);
        double sp = 0, sb = 0;
        const uint64_t B = 20000;
        for (uint64_t h = 1; h <= B; h++) {
            cs_obs_t o = obs_make("eip1559", h);
            o.p50_tip = 50;
            o.vol_mult = sets[si][2];
            m.h = h;
            t.ops->on_block(&t.a, &w, &o);
            cs_timer_info_t in;
            memset(&in, 0, sizeof in);
            in.value = 2e10;
            double mf2, mp2;
            t.ops->gba(&t.a, &in, &o, &mf2, &mp2);
            CS_CHECK(mf2 == 2000.0 + mp2);
            sp += mp2;
            cs_timer_req_t q;
            memset(&q, 0, sizeof q);
            q.value = 2e10;
            cs_obs_t ob = o;
            ob.mechanism = "bias-vcg";
            t.ops->bid(&t.a, &ob, &q);
            sb += q.bid;
        }
        lb_reference(4242, 17, sets[si][0], sets[si][1], sets[si][2], B, &ref);
        CS_CHECK(fabs(sp - ref.sum_prio) <= 1e-9 * ref.sum_prio);
        CS_CHECK(fabs(sb - ref.sum_bid) <= 1e-9 * ref.sum_bid);
        CS_CHECK_EQ_U64(m.nr, ref.checks);
        size_t hbad = 0, cool = 0, routine = 0;
        for (size_t i = 0; i < m.nr && i < 8192; i++) {
            hbad += m.r[i].height != ref.check_h[i] || m.r[i].q.value != ref.check_v[i];
            /* a risk-triggered check comes >= 5 blocks after the previous
             * check unless it falls on the routine grid */
            if (i && m.r[i].height % 30 != 0) cool += m.r[i].height - m.r[i - 1].height < 5;
            routine += !ref.check_risky[i];
        }
        CS_CHECK_EQ_U64(hbad, 0);
        CS_CHECK_EQ_U64(cool, 0);
        CS_CHECK(routine > 0 && routine <= B / 30); /* routine checks: at most one per 30 blocks */
        avg_prio[si] = sp / (double)B;
        avg_bid[si] = sb / (double)B;
        CS_CHECK_EQ_U64(m.bad, 0);
        ta_free(&t);
        mock_free(&m);
    }
    CS_CHECK(avg_prio[1] > avg_prio[0]); /* fees rise with volatility */
    CS_CHECK(avg_bid[1] > avg_bid[0]);   /* bids rise with volatility */
    CS_CHECK(avg_prio[2] > avg_prio[0]); /* and with a volatility event (vol_mult 6) */
    CS_CHECK(avg_prio[0] >= 50.0 && avg_prio[1] <= 500.0);

    /* Value: 2e10 x exp(-0.5 x delay), 0 past the deadline of 3. */
    tagent_t t;
    ta_new(&t, "liquidation_bot");
    t.a.ops = t.ops;
    t.a.params = t.p;
    cs_timer_info_t in;
    memset(&in, 0, sizeof in);
    in.value = 2e10;
    in.deadline = 3;
    CS_CHECK(t.ops->value(&t.a, &in, 0) == 2e10);
    CS_CHECK(fabs(t.ops->value(&t.a, &in, 2) - 7357588823.428846) < 1e-3); /* 2e10 e^-1 */
    CS_CHECK(t.ops->value(&t.a, &in, 4) == 0.0);
}

/* ------------------------------------------------------------ oracle */

static void test_oracle(void)
{
    /* Mode 0: one INTERVAL timer, every_blocks = period, first due after
     * the phase ph = floor(u x 7), u the stream's first uniform. */
    gsl_rng *r = cs_rng_stream(31, 4);
    uint64_t ph = (uint64_t)floor(gsl_rng_uniform(r) * 7.0);
    double u_c = gsl_rng_uniform(r);
    gsl_rng_free(r);
    {
        mock_t m;
        cs_world_t w;
        tagent_t t;
        mock_init(&m, &w);
        ta_new(&t, "oracle");
        ta_set(&t, "every_blocks", 7);
        ta_start(&t, &w, 31, 4);
        cs_obs_t o = obs_make("eip1559", 101);
        run(&t, &w, &m, &o, 101, 300);
        CS_CHECK_EQ_U64(m.nr, 1);
        if (m.nr) {
            const cs_timer_req_t *q = &m.r[0].q;
            CS_CHECK_EQ_U64(q->kind, CS_KIND_INTERVAL);
            CS_CHECK_EQ_U64(q->every_blocks, 7);
            CS_CHECK_EQ_U64(q->delay, 1 + ph);
            CS_CHECK_EQ_U64(m.r[0].height, 101);
            CS_CHECK(q->value == 2e9 && q->decay == 2e9 * 0.05);
            CS_CHECK_EQ_U64(q->deadline, 10);
            CS_CHECK_EQ_U64(q->tier, 2);
            CS_CHECK_EQ_U64(q->gas_limit, 150000);
            CS_CHECK_EQ_U64(q->cycles_used, ref_cycles(u_c, 150000, 0.7, 0.1));
            CS_CHECK(q->has_fees == 0 && q->has_bid == 0);
        }
        ta_free(&t);
        mock_free(&m);
    }
    /* Mode 1: one-shot HEIGHT timers on the same grid 102 + ph + 7k, each
     * scheduled at the block where the previous one is due. */
    {
        mock_t m;
        cs_world_t w;
        tagent_t t;
        mock_init(&m, &w);
        ta_new(&t, "oracle");
        ta_set(&t, "every_blocks", 7);
        ta_set(&t, "mode", 1);
        ta_start(&t, &w, 31, 4);
        cs_obs_t o = obs_make("bias-vcg", 101);
        run(&t, &w, &m, &o, 101, 300);
        /* Scheduled at 101 and at each due height 102 + ph + 7k <= 300. */
        uint64_t expect = 1 + (300 - (102 + ph)) / 7 + 1;
        CS_CHECK_EQ_U64(m.nr, expect);
        size_t bad = 0;
        for (size_t i = 0; i < m.nr; i++) {
            const mreq_t *e = &m.r[i];
            bad += e->q.kind != CS_KIND_HEIGHT || e->q.every_blocks != 0;
            bad += e->height + e->q.delay != 102 + ph + 7 * i;
            if (i) bad += e->height != 102 + ph + 7 * (i - 1);
            bad += !(e->q.has_bid == 1 && e->q.bid == 0.1 * 2e9);
        }
        CS_CHECK_EQ_U64(bad, 0);
        CS_CHECK_EQ_U64(m.bad, 0);
        ta_free(&t);
        mock_free(&m);
    }
}

/* ------------------------------------------------------------ heartbeat */

/* Deliver FIRED to every unresolved request due at h (height h world). */
static void fire_due(tagent_t *t, cs_world_t *w, mock_t *m, uint64_t h)
{
    size_t n = m->nr; /* requests made by the handlers run after this */
    for (size_t i = 0; i < n; i++) {
        mreq_t *e = &m->r[i];
        if (e->resolved || e->height + e->q.delay != h) continue;
        e->resolved = 1;
        cs_timer_info_t in = info_of(e);
        m->h = h;
        t->ops->on_outcome(&t->a, w, &in, CS_AO_FIRED, 0, 0);
    }
}

static void test_heartbeat(void)
{
    gsl_rng *r = cs_rng_stream(5, 8);
    uint64_t spread = (uint64_t)floor(gsl_rng_uniform(r) * 10.0);
    gsl_rng_free(r);
    mock_t m;
    cs_world_t w;
    tagent_t t;
    mock_init(&m, &w);
    ta_new(&t, "heartbeat");
    ta_start(&t, &w, 5, 8);
    cs_obs_t o = obs_make("eip1559", 1);
    for (uint64_t h = 1; h <= 200; h++) {
        run(&t, &w, &m, &o, h, h);
        fire_due(&t, &w, &m, h);
    }
    /* First tick due at 1 + 10 + spread; each fire at F schedules F + 10
     * from the handler (world height F, delay 10). */
    CS_CHECK(m.nr >= 18);
    uint64_t first = 1 + 10 + spread;
    size_t bad = 0;
    for (size_t i = 0; i < m.nr; i++) {
        const mreq_t *e = &m.r[i];
        if (i == 0) {
            bad += e->height != 1 || e->q.delay != 10 + spread;
        } else {
            bad += e->height != first + 10 * (i - 1) || e->q.delay != 10;
        }
        bad += e->q.has_fees || e->q.has_bid || e->q.value != 2e8;
    }
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(m.nr, 1 + (200 - first) / 10 + 1);

    /* A late fire: deferred 3 blocks, fired at due + 3 -> next due + 3 + 10. */
    size_t k = m.nr - 1;
    uint64_t due = m.r[k].height + m.r[k].q.delay;
    for (uint64_t h = 201; h <= due + 3; h++) {
        run(&t, &w, &m, &o, h, h);
        if (h >= due && h < due + 3) {
            cs_timer_info_t in = info_of(&m.r[k]);
            t.ops->on_outcome(&t.a, &w, &in, CS_AO_DEFERRED, h - due, 0);
        }
    }
    CS_CHECK_EQ_U64(m.nr, k + 1); /* nothing new while deferred */
    m.r[k].resolved = 1;
    cs_timer_info_t in = info_of(&m.r[k]);
    m.h = due + 3;
    t.ops->on_outcome(&t.a, &w, &in, CS_AO_FIRED, 3, 0);
    CS_CHECK_EQ_U64(m.nr, k + 2);
    if (m.nr < k + 2) goto out;
    CS_CHECK_EQ_U64(m.r[k + 1].height, due + 3);
    CS_CHECK_EQ_U64(m.r[k + 1].q.delay, 10);

    /* A dropped tick (TTL expiry, reported after its block at world height
     * due2 + 1) restarts at the next block with a tick 10 ahead. */
    uint64_t due2 = due + 13;
    for (uint64_t h = due + 4; h <= due2; h++) run(&t, &w, &m, &o, h, h);
    m.r[k + 1].resolved = 1;
    in = info_of(&m.r[k + 1]);
    m.h = due2 + 1;
    t.ops->on_outcome(&t.a, &w, &in, CS_AO_EXPIRED, 0, 0);
    CS_CHECK_EQ_U64(m.nr, k + 2);
    run(&t, &w, &m, &o, due2 + 1, due2 + 1);
    CS_CHECK_EQ_U64(m.nr, k + 3);
    if (m.nr < k + 3) goto out;
    CS_CHECK_EQ_U64(m.r[k + 2].height, due2 + 1);
    CS_CHECK_EQ_U64(m.r[k + 2].q.delay, 10);

    /* A refused reschedule in the handler retries period blocks later. */
    uint64_t due3 = due2 + 11;
    for (uint64_t h = due2 + 2; h <= due3; h++) run(&t, &w, &m, &o, h, h);
    m.fail = CS_ETOO_MANY_TIMERS;
    m.r[k + 2].resolved = 1;
    in = info_of(&m.r[k + 2]);
    m.h = due3;
    t.ops->on_outcome(&t.a, &w, &in, CS_AO_FIRED, 0, 0);
    m.fail = 0;
    CS_CHECK_EQ_U64(m.nr, k + 3);
    run(&t, &w, &m, &o, due3 + 1, due3 + 9);
    CS_CHECK_EQ_U64(m.nr, k + 3); /* not before due3 + 10 */
    run(&t, &w, &m, &o, due3 + 10, due3 + 10);
    CS_CHECK_EQ_U64(m.nr, k + 4);
    if (m.nr == k + 4) CS_CHECK_EQ_U64(m.r[k + 3].height, due3 + 10);
out:
    CS_CHECK_EQ_U64(m.bad, 0);
    ta_free(&t);
    mock_free(&m);
}

/* ------------------------------------------------------------ subscription */

static void test_subscription(void)
{
    mock_t m;
    cs_world_t w;
    tagent_t t;
    mock_init(&m, &w);
    ta_new(&t, "subscription");
    ta_set(&t, "rate", 2);
    CS_CHECK_EQ_U64(ta_start(&t, &w, 12, 0), CS_OK);
    cs_obs_t o = obs_make("eip1559", 1);
    run(&t, &w, &m, &o, 1, 2000);
    /* Reference: long iff u_class < 0.25; long delay 86401 + floor(u x 313600),
     * short floor(1000 x 86.4^u). */
    gsl_rng *r = cs_rng_stream(12, 0);
    size_t j = 0, bad = 0, nlong = 0, beyond_ring = 0;
    for (int b = 0; b < 2000; b++) {
        unsigned n = gsl_ran_poisson(r, 2.0);
        for (unsigned i = 0; i < n; i++, j++) {
            double uc = gsl_rng_uniform(r), ud = gsl_rng_uniform(r);
            double v = gsl_ran_lognormal(r, log(1e9) - 0.125, 0.5);
            uint64_t c = ref_cycles(gsl_rng_uniform(r), 120000, 0.5, 0.2);
            int lg = uc < 0.25;
            uint64_t d = lg ? (uint64_t)(86401.0 + floor(ud * 313600.0))
                            : (uint64_t)floor(1000.0 * pow(86400.0 / 1000.0, ud));
            if (j >= m.nr) {
                bad++;
                continue;
            }
            const cs_timer_req_t *q = &m.r[j].q;
            bad += q->delay != d || q->value != v || q->cycles_used != c || q->tag != (uint32_t)lg;
            bad += (q->delay > 86400) != lg;
            bad += q->delay < 1000 || q->delay > 400000;
            bad += q->tier != 1;
            nlong += (size_t)lg;
            beyond_ring += q->delay > 4096;
        }
    }
    gsl_rng_free(r);
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(j, m.nr);
    /* About 4,000 timers; the long share is 0.25 +- 4 sd (sd = sqrt(.25 x .75 / n)). */
    double share = (double)nlong / (double)m.nr;
    CS_CHECK(m.nr > 3500 && m.nr < 4500);
    CS_CHECK(fabs(share - 0.25) < 4.0 * sqrt(0.1875 / (double)m.nr));
    CS_CHECK(beyond_ring > nlong); /* tier 2 (short but beyond the ring) is used too */
    CS_CHECK_EQ_U64(m.bad, 0);
    ta_free(&t);
    mock_free(&m);
    /* Inconsistent horizons are refused at init. */
    mock_init(&m, &w);
    ta_new(&t, "subscription");
    ta_set(&t, "delay_min", 100000);
    CS_CHECK_EQ_U64(ta_start(&t, &w, 12, 0), CS_EINVAL);
    ta_free(&t);
    mock_free(&m);
}

/* ------------------------------------------------------------ spammer */

static void test_spammer(void)
{
    mock_t m;
    cs_world_t w;
    tagent_t t;
    mock_init(&m, &w);
    ta_new(&t, "spammer");
    ta_set(&t, "start", 50);
    ta_set(&t, "every", 100);
    ta_set(&t, "burst", 2500);
    ta_set(&t, "actors", 3);
    ta_set(&t, "per_actor_cap", 700);
    ta_start(&t, &w, 1, 1);
    CS_CHECK_EQ_U64(t.a.n_actors, 3);
    cs_obs_t o = obs_make("eip1559", 1);
    o.basefee_lane = 1234;
    run(&t, &w, &m, &o, 1, 200);
    /* Storms at 50 and 150, each min(2500, 3 x 700) = 2100 timers, 700 per
     * actor, all due at storm + 10, max_fee = basefee 1234, no tip. */
    CS_CHECK_EQ_U64(m.nr, 4200);
    size_t per[2][3] = {{0}}, bad = 0;
    for (size_t i = 0; i < m.nr; i++) {
        const mreq_t *e = &m.r[i];
        int s = e->height == 150;
        bad += !(e->height == 50 || e->height == 150);
        bad += e->height + e->q.delay != (s ? 160u : 60u);
        bad += e->q.actor != (i % 2100) % 3;
        bad += !(e->q.has_fees == 1 && e->q.max_fee == 1234.0 && e->q.max_prio == 0.0);
        bad += e->q.gas_limit != 10000 || e->q.cycles_used != 5000 || e->q.value != 1e5;
        if (e->q.actor < 3) per[s][e->q.actor]++;
    }
    CS_CHECK_EQ_U64(bad, 0);
    for (int s = 0; s < 2; s++)
        for (int a = 0; a < 3; a++) CS_CHECK_EQ_U64(per[s][a], 700);
    ta_free(&t);
    mock_free(&m);

    /* One storm, cap not binding: 1000 timers, 334 / 333 / 333; bids are
     * max(min_bid, reserve). */
    for (int c = 0; c < 2; c++) {
        mock_init(&m, &w);
        ta_new(&t, "spammer");
        ta_set(&t, "actors", 3);
        if (c) ta_set(&t, "min_bid", 7000);
        ta_start(&t, &w, 1, 1);
        o = obs_make("bias-vcg", 1);
        o.reserve_price = 5000;
        run(&t, &w, &m, &o, 1, 400);
        CS_CHECK_EQ_U64(m.nr, 1000);
        size_t a0 = 0, bids = 0;
        for (size_t i = 0; i < m.nr; i++) {
            a0 += m.r[i].q.actor == 0;
            bids += m.r[i].q.has_bid && m.r[i].q.bid == (c ? 7000.0 : 5000.0) && m.r[i].height == 100 &&
                    m.r[i].q.delay == 10;
        }
        CS_CHECK_EQ_U64(a0, 334);
        CS_CHECK_EQ_U64(bids, 1000);
        CS_CHECK_EQ_U64(m.bad, 0);
        ta_free(&t);
        mock_free(&m);
    }
}

/* ------------------------------------------------------------ fragmenter */

static void test_fragmenter(void)
{
    mock_t m[3];
    cs_world_t w[3];
    tagent_t t[3];
    const char *kinds[3] = {"fragmenter", "fragmenter", "default_gba"};
    const double ks[3] = {7, 1, 0};
    for (int i = 0; i < 3; i++) {
        mock_init(&m[i], &w[i]);
        ta_new(&t[i], kinds[i]);
        ta_set(&t[i], "rate", 3.3);
        ta_set(&t[i], "bid_frac", 0.1);
        if (ks[i] > 0) ta_set(&t[i], "k", ks[i]);
        ta_start(&t[i], &w[i], 555, 2);
        cs_obs_t o = obs_make("bias-vcg", 1);
        run(&t[i], &w[i], &m[i], &o, 1, 500);
    }
    CS_CHECK_EQ_U64(t[0].a.n_actors, 7);
    CS_CHECK_EQ_U64(t[1].a.n_actors, 1);
    /* Same total demand as one honest actor, dealt round robin over K. */
    CS_CHECK(m[0].nr > 1400);
    CS_CHECK_EQ_U64(m[0].nr, m[1].nr);
    CS_CHECK_EQ_U64(m[0].nr, m[2].nr);
    size_t rr = 0, same = 0, same1 = 0, per[7] = {0};
    for (size_t i = 0; i < m[0].nr && i < m[1].nr && i < m[2].nr; i++) {
        rr += m[0].r[i].q.actor == i % 7;
        if (m[0].r[i].q.actor < 7) per[m[0].r[i].q.actor]++;
        mreq_t x = m[0].r[i];
        x.q.actor = 0;
        same += req_eq(&x, &m[1].r[i], 1) && m[0].r[i].height == m[1].r[i].height;
        same1 += req_eq(&m[1].r[i], &m[2].r[i], 1);
    }
    CS_CHECK_EQ_U64(rr, m[0].nr);
    CS_CHECK_EQ_U64(same, m[0].nr);
    CS_CHECK_EQ_U64(same1, m[0].nr); /* K = 1 is default_gba's stream */
    size_t mn = per[0], mx = per[0];
    for (int a = 1; a < 7; a++) {
        mn = per[a] < mn ? per[a] : mn;
        mx = per[a] > mx ? per[a] : mx;
    }
    CS_CHECK(mx - mn <= 1);
    for (int i = 0; i < 3; i++) {
        CS_CHECK_EQ_U64(m[i].bad, 0);
        ta_free(&t[i]);
        mock_free(&m[i]);
    }
}

/* ------------------------------------------------------------ fp_best_response */

static void test_fp_best_response(void)
{
    mock_t m;
    cs_world_t w;
    tagent_t t;
    mock_init(&m, &w);
    ta_new(&t, "fp_best_response");
    ta_set(&t, "rate", 4);
    ta_set(&t, "value_sigma", 0);
    ta_start(&t, &w, 8, 8);
    /* value exp(ln 5e8) ~ 5e8; epsilon 1e6; reserve 3e6.  Competing bid c
     * rising 1e8 .. 7e8: bid max(3e6, c + 1e6) while c + 1e6 <= 5e8, else
     * the reserve.  Block 9: the agent made the top bid itself (7e8), the
     * best other bid was 2.385e8 -> 2.395e8 (never its own + epsilon).
     * Block 10: a cold start (no candidates, c = 0): epsilon < reserve, so
     * the reserve.  Block 11: c = 1.5e6, c + e = 2.5e6 < reserve -> 3e6.
     * The clearing price (4.4e8 throughout) plays no part. */
    const double cps[] = {1e8, 2.5e8, 4e8, 4.98e8, 4.995e8, 6e8, 7e8, 3e8, 7e8, 0, 1.5e6};
    const double want[] = {1.01e8, 2.51e8, 4.01e8, 4.99e8, 3e6, 3e6, 3e6, 3.01e8, 2.395e8, 3e6, 3e6};
    size_t bad = 0, total = 0;
    for (int i = 0; i < 11; i++) {
        cs_obs_t o = obs_make("bias-vcg", (uint64_t)i + 1);
        o.clearing_price = 4.4e8;
        o.top_bid = cps[i];
        o.top_bid_agent = i == 8 ? t.a.index : i == 9 ? UINT32_MAX : t.a.index + 1;
        o.top_bid_other = i == 8 ? 2.385e8 : 0;
        o.reserve_price = 3e6;
        size_t before = m.nr;
        run(&t, &w, &m, &o, (uint64_t)i + 1, (uint64_t)i + 1);
        for (size_t j = before; j < m.nr; j++) {
            cs_timer_req_t q = m.r[j].q;
            total++;
            bad += !(q.has_bid == 1 && q.bid == want[i] && fabs(q.value - 5e8) < 1e-3);
            t.ops->bid(&t.a, &o, &q); /* the engine applies the hook again: idempotent */
            bad += q.bid != want[i];
        }
    }
    CS_CHECK(total > 20);
    CS_CHECK_EQ_U64(bad, 0);
    /* Fee mechanisms: vpc = 5e8 / 1e5 = 5000 per cycle.
     *   basefee 1000, p50 50:   prio = 50 + 1 = 51,          max_fee = 2 x 1000 + 51 = 2051
     *   basefee 1000, p50 4500: prio capped at 5000 - 1000, max_fee = 2000 + 4000 = 6000
     *   basefee 6000, p50 50:   no room, prio 0,             max_fee = 12000 */
    const double bf[] = {1000, 1000, 6000}, p50[] = {50, 4500, 50};
    const double wp[] = {51, 4000, 0}, wf[] = {2051, 6000, 12000};
    bad = total = 0;
    for (int i = 0; i < 3; i++) {
        cs_obs_t o = obs_make("eip1559", 100 + (uint64_t)i);
        o.basefee_lane = bf[i];
        o.p50_tip = p50[i];
        size_t before = m.nr;
        run(&t, &w, &m, &o, 100 + (uint64_t)i, 100 + (uint64_t)i);
        for (size_t j = before; j < m.nr; j++) {
            const cs_timer_req_t *q = &m.r[j].q;
            total++;
            bad += !(q->has_fees == 1 && q->has_bid == 0 && q->gas_limit == 100000);
            bad += fabs(q->max_prio - wp[i]) > 1e-9 || fabs(q->max_fee - wf[i]) > 1e-9;
            cs_timer_info_t in = info_of(&m.r[j]);
            double mf = -1, mp = -1;
            bad += t.ops->gba(&t.a, &in, &o, &mf, &mp) != 1;
            bad += fabs(mp - wp[i]) > 1e-9 || fabs(mf - wf[i]) > 1e-9;
        }
    }
    CS_CHECK(total > 5);
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(m.bad, 0);
    ta_free(&t);
    mock_free(&m);
}

/* ------------------------------------------------------------ waiting_game */

static void test_waiting_game(void)
{
    const char *mechs[] = {"bias-vcg", "score", "eip1559", "fifo"};
    for (int mi = 0; mi < 4; mi++) {
        mock_t m;
        cs_world_t w;
        tagent_t t;
        mock_init(&m, &w);
        ta_new(&t, "waiting_game");
        ta_set(&t, "rate", 2);
        ta_start(&t, &w, 3, 3);
        cs_obs_t o = obs_make(mechs[mi], 1);
        o.basefee_lane = 1500;
        run(&t, &w, &m, &o, 1, 100);
        CS_CHECK(m.nr > 100);
        size_t bad = 0;
        for (size_t i = 0; i < m.nr; i++) {
            const cs_timer_req_t *q = &m.r[i].q;
            if (mi < 2) bad += !(q->has_bid == 1 && q->bid == 0.0 && q->has_fees == 0);
            else if (mi == 2)
                bad += !(q->has_fees == 1 && q->max_prio == 0.0 && q->max_fee == 3000.0 && q->has_bid == 0);
            else bad += q->has_bid || q->has_fees;
            bad += q->decay != q->value * 0.001; /* slow decay */
        }
        CS_CHECK_EQ_U64(bad, 0);
        CS_CHECK_EQ_U64(m.bad, 0);
        ta_free(&t);
        mock_free(&m);
    }
}

/* ------------------------------------------------------------ affine_user */

/* Run 100 blocks of affine_user (v 1e9, c 1e7, both without noise, rate 3,
 * ema_alpha 1) at utilisation u and clearing price cp; returns requests
 * made and checks the bid and value of each. */
static size_t affine_run(double u, double cp, size_t *arrivals, uint64_t *rng_next)
{
    mock_t m;
    cs_world_t w;
    tagent_t t;
    mock_init(&m, &w);
    ta_new(&t, "affine_user");
    ta_set(&t, "rate", 3);
    ta_set(&t, "value_sigma", 0);
    ta_set(&t, "wait_cost_sigma", 0);
    ta_set(&t, "ema_alpha", 1);
    ta_start(&t, &w, 66, 6);
    cs_obs_t o = obs_make("bias-vcg", 1);
    o.utilisation = u;
    o.clearing_price = cp;
    run(&t, &w, &m, &o, 1, 100);
    /* Arrivals: Poisson(3) per block, four draws each. */
    gsl_rng *r = cs_rng_stream(66, 6);
    size_t n = 0;
    for (int b = 0; b < 100; b++) {
        unsigned k = gsl_ran_poisson(r, 3.0);
        for (unsigned i = 0; i < k; i++) {
            (void)gsl_ran_lognormal(r, 0, 0);
            (void)gsl_ran_lognormal(r, 0, 0);
            (void)gsl_ran_geometric(r, 0.1);
            (void)gsl_rng_uniform(r);
        }
        n += k;
    }
    gsl_rng_free(r);
    *arrivals = n;
    double wait = u / (1 - u);
    size_t bad = 0;
    for (size_t i = 0; i < m.nr; i++) {
        const cs_timer_req_t *q = &m.r[i].q;
        double want = fmin(cp * 1.1, 1e9 - 1e7 * wait);
        bad += fabs(q->value - 1e9) > 1e-3 || fabs(q->decay - 1e7) > 1e-6 || q->deadline != 0;
        bad += !q->has_bid || fabs(q->bid - want) > 1e-3;
    }
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(m.bad, 0);
    *rng_next = gsl_rng_get(t.a.rng);
    size_t nr = m.nr;
    ta_free(&t);
    mock_free(&m);
    return nr;
}

static void test_affine_user(void)
{
    size_t arr;
    uint64_t g1, g2;
    /* Utilisation 0.5: expected wait 0.5 / 0.5 = 1 block.
     *   price 2e9:    1e9 - 1e7 x 1 - 2e9    < 0 -> everyone abstains
     *   price 1e8:    1e9 - 1e7 - 1e8  = 8.9e8 > 0 -> everyone joins, bid 1.1e8
     *   price 9.8e8:  1e9 - 1e7 - 9.8e8 = 1e7  > 0 -> joins, bid min(1.078e9, 9.9e8) = 9.9e8
     *   price 9.95e8: 1e9 - 1e7 - 9.95e8 = -5e6 -> abstains */
    CS_CHECK_EQ_U64(affine_run(0.5, 2e9, &arr, &g1), 0);
    CS_CHECK(arr > 250);
    size_t j = affine_run(0.5, 1e8, &arr, &g2);
    CS_CHECK_EQ_U64(j, arr);
    CS_CHECK_EQ_U64(g1, g2); /* same draws whether or not users join */
    CS_CHECK_EQ_U64(affine_run(0.5, 9.8e8, &arr, &g1), arr);
    CS_CHECK_EQ_U64(affine_run(0.5, 9.95e8, &arr, &g1), 0);
    /* Utilisation 0.9: expected wait 0.9 / 0.1 = 9 blocks.
     *   price 8.5e8: 1e9 - 9e7 - 8.5e8 = 6e7  > 0 -> joins
     *   price 9.5e8: 1e9 - 9e7 - 9.5e8 = -4e7   -> abstains (it would join at u = 0.5) */
    CS_CHECK_EQ_U64(affine_run(0.9, 8.5e8, &arr, &g1), arr);
    CS_CHECK_EQ_U64(affine_run(0.9, 9.5e8, &arr, &g1), 0);
    CS_CHECK_EQ_U64(affine_run(0.5, 9.5e8, &arr, &g1), arr);
}

/* ------------------------------------------------------------ watcher */

static void test_watcher(void)
{
    mock_t m;
    cs_world_t w;
    tagent_t watcher, writer;
    mock_init(&m, &w);
    ta_new(&watcher, "watcher");
    ta_set(&watcher, "rate", 3);
    ta_set(&watcher, "keys", 5);
    ta_new(&writer, "watcher");
    ta_set(&writer, "rate", 0);
    ta_set(&writer, "keys", 5);
    ta_set(&writer, "write_rate", 4);
    ta_start(&watcher, &w, 90, 0);
    ta_start(&writer, &w, 90, 1);
    cs_obs_t o = obs_make("eip1559", 1);
    size_t watches_end[101], writes_end[101];
    for (uint64_t h = 1; h <= 100; h++) {
        run(&watcher, &w, &m, &o, h, h);
        watches_end[h] = m.nr;
        CS_CHECK_EQ_U64(m.nw, h > 1 ? writes_end[h - 1] : 0); /* the watcher writes nothing */
        run(&writer, &w, &m, &o, h, h);
        CS_CHECK_EQ_U64(m.nr, watches_end[h]); /* the writer schedules nothing */
        writes_end[h] = m.nw;
    }
    /* Reference: watcher draws Poisson(3), then (key u, value, cycles u)
     * per watch, then Poisson(0); the writer Poisson(0), then Poisson(4)
     * and a key uniform per write; key n = floor(u x 5). */
    gsl_rng *r0 = cs_rng_stream(90, 0), *r1 = cs_rng_stream(90, 1);
    size_t jw = 0, jk = 0, bad = 0;
    char key[48];
    for (int b = 0; b < 100; b++) {
        unsigned n = gsl_ran_poisson(r0, 3.0);
        for (unsigned i = 0; i < n; i++, jw++) {
            snprintf(key, sizeof key, "key:%d", (int)floor(gsl_rng_uniform(r0) * 5.0));
            double v = gsl_ran_lognormal(r0, log(5e8) - 0.125, 0.5);
            (void)gsl_rng_uniform(r0);
            if (jw >= m.nr) {
                bad++;
                continue;
            }
            const cs_timer_req_t *q = &m.r[jw].q;
            bad += q->kind != CS_KIND_WATCH || !m.r[jw].has_key || strcmp(m.r[jw].key, key) != 0 || q->delay != 1 ||
                   q->ttl != 1000 || q->value != v || m.r[jw].height != (uint64_t)b + 1;
        }
        (void)gsl_ran_poisson(r0, 0.0);
        (void)gsl_ran_poisson(r1, 0.0);
        unsigned k = gsl_ran_poisson(r1, 4.0);
        for (unsigned i = 0; i < k; i++, jk++) {
            snprintf(key, sizeof key, "key:%d", (int)floor(gsl_rng_uniform(r1) * 5.0));
            if (jk >= m.nw) {
                bad++;
                continue;
            }
            bad += strcmp(m.wr[jk].key, key) != 0 || m.wr[jk].actor != 0 || m.wr[jk].height != (uint64_t)b + 1;
        }
    }
    gsl_rng_free(r0);
    gsl_rng_free(r1);
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(jw, m.nr);
    CS_CHECK_EQ_U64(jk, m.nw);
    CS_CHECK(m.nr > 200 && m.nw > 300);
    /* Every key of the space is written and watched, so watches can fire. */
    for (int n = 0; n < 5; n++) {
        snprintf(key, sizeof key, "key:%d", n);
        size_t nw = 0, nwa = 0;
        for (size_t i = 0; i < m.nw; i++) nw += strcmp(m.wr[i].key, key) == 0;
        for (size_t i = 0; i < m.nr; i++) nwa += strcmp(m.r[i].key, key) == 0;
        CS_CHECK(nw > 0 && nwa > 0);
    }
    CS_CHECK_EQ_U64(m.bad, 0);
    ta_free(&watcher);
    ta_free(&writer);
    mock_free(&m);
}

/* ------------------------------------------------------------ demand_curve */

static size_t dc_count(const mock_t *m, uint64_t h)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nr; i++) n += m->r[i].height == h;
    return n;
}

static void test_demand_curve(void)
{
    mock_t m;
    cs_world_t w;
    tagent_t t;
    mock_init(&m, &w);
    ta_new(&t, "demand_curve");
    ta_set(&t, "base_rate", 1.5);
    ta_set(&t, "elasticity", 2);
    ta_start(&t, &w, 2, 2);
    /* basefee 1000 of p_max 4000: f = (1 - 0.25)^2 = 0.5625, x = 1.5 x 0.5625
     * = 0.84375 per block.  Carry: 0.84375 -> 0 (c .84375); 1.6875 -> 1 (.6875);
     * 1.53125 -> 1 (.53125); 1.375 -> 1 (.375); 1.21875 -> 1 (.21875);
     * 1.0625 -> 1 (.0625); 0.90625 -> 0; 1.75 -> 1 (.75). */
    const size_t want[8] = {0, 1, 1, 1, 1, 1, 0, 1};
    cs_obs_t o = obs_make("eip1559", 1);
    run(&t, &w, &m, &o, 1, 8);
    for (uint64_t h = 1; h <= 8; h++) CS_CHECK_EQ_U64(dc_count(&m, h), want[h - 1]);
    CS_CHECK_EQ_U64(m.nr, 6);
    /* At or above p_max there is no demand (carry .75 stays below 1). */
    o.basefee_lane = 4000;
    run(&t, &w, &m, &o, 9, 12);
    o.basefee_lane = 5000;
    run(&t, &w, &m, &o, 13, 16);
    CS_CHECK_EQ_U64(m.nr, 6);
    /* Price 0 and demand_mult 2: x = 1.5 x 2 + .75 = 3.75 -> 3 (c .75), then 3.75 -> 3. */
    o.basefee_lane = 0;
    o.demand_mult = 2;
    run(&t, &w, &m, &o, 17, 18);
    CS_CHECK_EQ_U64(dc_count(&m, 17), 3);
    CS_CHECK_EQ_U64(dc_count(&m, 18), 3);
    size_t bad = 0;
    for (size_t i = 0; i < m.nr; i++) {
        const cs_timer_req_t *q = &m.r[i].q;
        bad += q->delay != 5 || q->gas_limit != 100000 || q->cycles_used != 60000 || q->value != 5e8 ||
               q->has_fees || q->has_bid;
    }
    CS_CHECK_EQ_U64(bad, 0);
    /* It never touches its stream: the next output is the stream's first. */
    gsl_rng *r = cs_rng_stream(2, 2);
    CS_CHECK_EQ_U64(gsl_rng_get(t.a.rng), gsl_rng_get(r));
    gsl_rng_free(r);
    CS_CHECK_EQ_U64(m.bad, 0);
    ta_free(&t);
    mock_free(&m);

    /* Bid mechanisms (auto source): clearing 3e8 of p_max 4e8, elasticity 1:
     * f = 0.25, x = 2 x 0.25 = 0.5 -> 0, 1, 0, 1, ...; bid 0.5 x 5e8. */
    mock_init(&m, &w);
    ta_new(&t, "demand_curve");
    ta_start(&t, &w, 2, 2);
    o = obs_make("bias-vcg", 1);
    o.clearing_price = 3e8;
    run(&t, &w, &m, &o, 1, 10);
    CS_CHECK_EQ_U64(m.nr, 5);
    for (uint64_t h = 1; h <= 10; h++) CS_CHECK_EQ_U64(dc_count(&m, h), h % 2 == 0);
    CS_CHECK(m.nr && m.r[0].q.has_bid == 1 && m.r[0].q.bid == 2.5e8);
    ta_free(&t);
    mock_free(&m);
    /* Source 1 forces the lane basefee even under a bid mechanism: f = 0.75. */
    mock_init(&m, &w);
    ta_new(&t, "demand_curve");
    ta_set(&t, "price_source", 1);
    ta_start(&t, &w, 2, 2);
    run(&t, &w, &m, &o, 1, 4); /* x = 2 x 0.75 = 1.5 -> 1, 2, 1, 2 */
    CS_CHECK_EQ_U64(m.nr, 6);
    ta_free(&t);
    mock_free(&m);
}

/* ------------------------------------------------------------ determinism, CRN */

/*
 * Drive an agent for `blocks` blocks under mech.  Variant 0 observes a
 * quiet chain and reports every due timer FIRED; variant 1 observes other
 * prices and utilisation, and reports odd-tagged timers EXPIRED.  Returns
 * the generator's next output after the run.
 */
static uint64_t drive(tagent_t *t, cs_world_t *w, mock_t *m, const char *mech, int variant, uint64_t blocks)
{
    for (uint64_t h = 1; h <= blocks; h++) {
        cs_obs_t o = obs_make(mech, h);
        if (variant) {
            o.basefee_lane = 1800 + (double)h;
            o.p50_tip = (double)(h % 97);
            o.clearing_price = 3e8 + 1e5 * (double)h;
            o.utilisation = 0.93;
            o.last_fired = h % 13;
            o.reserve_price = 77;
        } else {
            o.clearing_price = 1e8;
        }
        m->h = h;
        t->ops->on_block(&t->a, w, &o);
        if (!t->ops->on_outcome) continue;
        size_t n = m->nr;
        for (size_t i = 0; i < n; i++) {
            mreq_t *e = &m->r[i];
            if (e->resolved || e->height + e->q.delay != h) continue;
            e->resolved = 1;
            cs_timer_info_t in = info_of(e);
            int oc = variant && (e->q.tag & 1u) ? CS_AO_EXPIRED : CS_AO_FIRED;
            m->h = oc == CS_AO_FIRED ? h : h + 1;
            t->ops->on_outcome(&t->a, w, &in, oc, 0, 0);
            m->h = h;
        }
    }
    return gsl_rng_get(t->a.rng);
}

/* Parameters that make every kind busy within a short run. */
static void busy(tagent_t *t)
{
    const char *k = t->ops->name;
    if (strcmp(k, "spammer") == 0) {
        ta_set(t, "start", 20);
        ta_set(t, "every", 50);
        ta_set(t, "burst", 40);
        ta_set(t, "actors", 4);
    } else if (strcmp(k, "liquidation_bot") == 0) {
        ta_set(t, "sigma_low", 0.02);
    } else if (strcmp(k, "watcher") == 0) {
        ta_set(t, "rate", 1);
        ta_set(t, "write_rate", 1);
    } else if (strcmp(k, "subscription") == 0) {
        ta_set(t, "rate", 1);
    } else if (strcmp(k, "oracle") == 0) {
        ta_set(t, "mode", 1);
        ta_set(t, "every_blocks", 4);
    } else if (strcmp(k, "heartbeat") == 0) {
        ta_set(t, "period", 3);
    }
}

static void test_determinism(void)
{
    const char *mechs[] = {"fifo", "bias-vcg", "eip1559"};
    /* Non-reactive kinds: their demand ignores outcomes and prices. */
    const int nonreactive[CS_AK__COUNT] = {
        [CS_AK_DEFAULT_GBA] = 1, [CS_AK_PRIORITY_TIER] = 1, [CS_AK_LIQUIDATION_BOT] = 1,
        [CS_AK_ORACLE] = 1,      [CS_AK_SUBSCRIPTION] = 1,  [CS_AK_SPAMMER] = 1,
        [CS_AK_FRAGMENTER] = 1,  [CS_AK_WATCHER] = 1,       [CS_AK_DEMAND_CURVE] = 0,
    };
    for (int k = 0; k < CS_AK__COUNT; k++) {
        for (int mi = 0; mi < 3; mi++) {
            mock_t m[3];
            cs_world_t w[3];
            tagent_t t[3];
            uint64_t next[3];
            for (int i = 0; i < 3; i++) {
                mock_init(&m[i], &w[i]);
                ta_new(&t[i], cs_agent_registry[k]->name);
                busy(&t[i]);
                CS_CHECK_EQ_U64(ta_start(&t[i], &w[i], 2024, 7), CS_OK);
                next[i] = drive(&t[i], &w[i], &m[i], mechs[mi], i == 2, 300);
            }
            /* Same stream, same observations: identical requests and writes. */
            size_t same = 0;
            CS_CHECK_EQ_U64(m[0].nr, m[1].nr);
            for (size_t i = 0; i < m[0].nr && i < m[1].nr; i++)
                same += req_eq(&m[0].r[i], &m[1].r[i], 1) && m[0].r[i].height == m[1].r[i].height;
            CS_CHECK_EQ_U64(same, m[0].nr);
            CS_CHECK_EQ_U64(m[0].nw, m[1].nw);
            for (size_t i = 0; i < m[0].nw && i < m[1].nw; i++)
                CS_CHECK(strcmp(m[0].wr[i].key, m[1].wr[i].key) == 0);
            CS_CHECK(m[0].nr > 0 || k == CS_AK_DEMAND_CURVE);
            /* Every kind draws a fixed pattern: other outcomes and prices
             * leave the stream at the same place. */
            CS_CHECK_EQ_U64(next[0], next[1]);
            CS_CHECK_EQ_U64(next[0], next[2]);
            if (nonreactive[k]) {
                /* Common random numbers: identical demand (prices aside). */
                size_t same2 = 0;
                CS_CHECK_EQ_U64(m[0].nr, m[2].nr);
                for (size_t i = 0; i < m[0].nr && i < m[2].nr; i++)
                    same2 += req_eq(&m[0].r[i], &m[2].r[i], 0) && m[0].r[i].height == m[2].r[i].height;
                CS_CHECK_EQ_U64(same2, m[0].nr);
                CS_CHECK_EQ_U64(m[0].nw, m[2].nw);
            }
            for (int i = 0; i < 3; i++) {
                CS_CHECK_EQ_U64(m[i].bad, 0);
                ta_free(&t[i]);
                mock_free(&m[i]);
            }
        }
    }
}

int main(void)
{
    test_registry();
    test_value_default();
    test_readme();
    test_default_gba();
    test_priority_tier();
    test_liquidation_bot();
    test_oracle();
    test_heartbeat();
    test_subscription();
    test_spammer();
    test_fragmenter();
    test_fp_best_response();
    test_waiting_game();
    test_affine_user();
    test_watcher();
    test_demand_curve();
    test_determinism();
    return cs_test_done("agents");
}
