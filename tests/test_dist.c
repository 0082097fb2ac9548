/*
 * test_dist.c -- distributions of agent quantities (agents/cs_dist.h): the
 * sample moments of every family against closed forms written out here,
 * the scenario form and its error messages, and the agents drawing from
 * them (agents/README.md "Distributions").
 *
 * Moment checks: 10^6 draws from the stream cs_rng_stream(20261124, k);
 * the sample mean must lie within 4 standard errors sqrt(var / N) of the
 * closed-form mean, and the sample variance within 4 standard errors
 * sqrt((m4 - s^4) / N) of the closed-form variance, with m4 the sample
 * fourth central moment (the variance estimator's own error).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_agent.h"
#include "cs_dist.h"
#include "cs_rng.h"
#include "cs_scenario.h"
#include "cs_test.h"

#define N_DRAWS 1000000

/* Draw N_DRAWS from d and compare mean and variance with (mu, var), both
 * computed by hand by the caller. */
static void moments(const char *what, cs_dist_t *d, double mu, double var, uint64_t stream)
{
    CS_CHECK(cs_dist_prepare(d) == 0);
    gsl_rng *r = cs_rng_stream(20261124, stream);
    double *x = malloc(N_DRAWS * sizeof *x);
    CS_CHECK(r != NULL && x != NULL);
    if (!r || !x) return;
    double s1 = 0;
    size_t n_off = 0; /* draws differing from mu (a constant never does) */
    for (size_t i = 0; i < N_DRAWS; i++) {
        x[i] = cs_dist_draw(d, r);
        s1 += x[i];
        n_off += x[i] != mu;
    }
    double m = s1 / N_DRAWS, s2 = 0, s4 = 0;
    for (size_t i = 0; i < N_DRAWS; i++) {
        double e = (x[i] - m) * (x[i] - m);
        s2 += e;
        s4 += e * e;
    }
    double v = s2 / (N_DRAWS - 1), m4 = s4 / N_DRAWS;
    double se_m = sqrt(var / N_DRAWS), se_v = sqrt(fabs(m4 - v * v) / N_DRAWS);
    double cm, cv;
    CS_CHECK(cs_dist_moments(d, &cm, &cv) == 0);
    int ok_cf = fabs(cm - mu) <= 1e-9 * fabs(mu) + 1e-12 && fabs(cv - var) <= 1e-9 * var + 1e-12;
    int ok_m = var == 0 ? n_off == 0 : fabs(m - mu) <= 4 * se_m;
    int ok_v = var == 0 ? n_off == 0 : fabs(v - var) <= 4 * se_v;
    if (!ok_cf || !ok_m || !ok_v)
        fprintf(stderr, "  %s: mean %.9g (closed %.9g, cs_dist_moments %.9g, se %.3g), var %.9g (closed %.9g, %.9g, se %.3g)\n",
                what, m, mu, cm, se_m, v, var, cv, se_v);
    else
        printf("  %-28s mean %.6g (|z| = %.2f)  var %.6g (|z| = %.2f)\n", what, m, var ? fabs(m - mu) / se_m : 0, v,
               var ? fabs(v - var) / se_v : 0);
    CS_CHECK(ok_cf);
    CS_CHECK(ok_m);
    CS_CHECK(ok_v);
    free(x);
    gsl_rng_free(r);
    cs_dist_clear(d);
}

static void test_moments(void)
{
    cs_dist_t d;
    /* constant 2.385: mean 2.385, variance 0 (and no draw taken). */
    memset(&d, 0, sizeof d);
    d.kind = CS_DIST_CONSTANT;
    d.p[0] = 2.385;
    moments("constant 2.385", &d, 2.385, 0, 1);
    /* uniform [3.5e8, 1.25e9]: mean (a+b)/2 = 8e8, var (b-a)^2/12 = (9e8)^2/12 = 6.75e16. */
    memset(&d, 0, sizeof d);
    d.kind = CS_DIST_UNIFORM;
    d.p[0] = 3.5e8;
    d.p[1] = 1.25e9;
    moments("uniform [3.5e8, 1.25e9]", &d, 8e8, 6.75e16, 2);
    /* lognormal mean 5e8, sigma 0.5: var = m^2 (e^0.25 - 1) = 2.5e17 x 0.2840254166877414. */
    memset(&d, 0, sizeof d);
    d.kind = CS_DIST_LOGNORMAL;
    d.p[0] = 5e8;
    d.p[1] = 0.5;
    moments("lognormal 5e8 / 0.5", &d, 5e8, 2.5e17 * 0.2840254166877414, 3);
    /* exponential mean 12.5: var 156.25. */
    memset(&d, 0, sizeof d);
    d.kind = CS_DIST_EXPONENTIAL;
    d.p[0] = 12.5;
    moments("exponential 12.5", &d, 12.5, 156.25, 4);
    /* normal(0.6, 0.2) truncated to [0.2, 1.2]: alpha = -2, beta = 3,
     * phi(-2) = 0.05399096651318806, phi(3) = 0.004431848411938008,
     * Z = Phi(3) - Phi(-2) = 0.9986501019683699 - 0.022750131948179195 = 0.9758999700201907,
     * r = (phi(a) - phi(b)) / Z = 0.04955896810124005 / 0.9758999700201907 = 0.050782845318...,
     * mean = 0.6 + 0.2 r, var = 0.04 [1 + (-2 phi(-2) - 3 phi(3)) / Z - r^2]. */
    {
        double pa = 0.05399096651318806, pb = 0.004431848411938008;
        double z = 0.9986501019683699 - 0.022750131948179195, r = (pa - pb) / z;
        memset(&d, 0, sizeof d);
        d.kind = CS_DIST_NORMAL_TRUNC;
        d.p[0] = 0.6;
        d.p[1] = 0.2;
        d.p[2] = 0.2;
        d.p[3] = 1.2;
        moments("normal_trunc 0.6/0.2 [0.2,1.2]", &d, 0.6 + 0.2 * r, 0.04 * (1.0 + (-2 * pa - 3 * pb) / z - r * r), 5);
    }
    /* pareto scale 1e8, shape 4.5: mean 4.5e8 / 3.5, var 1e16 x 4.5 / (3.5^2 x 2.5). */
    memset(&d, 0, sizeof d);
    d.kind = CS_DIST_PARETO;
    d.p[0] = 1e8;
    d.p[1] = 4.5;
    moments("pareto 1e8 / 4.5", &d, 4.5e8 / 3.5, 1e16 * 4.5 / (12.25 * 2.5), 6);
    /* empirical {1, 2.5, 7} weights {1, 2, 1}: mean (1 + 5 + 7) / 4 = 3.25,
     * var ((2.25)^2 + 2 (0.75)^2 + (3.75)^2) / 4 = (5.0625 + 1.125 + 14.0625) / 4 = 5.0625. */
    memset(&d, 0, sizeof d);
    d.kind = CS_DIST_EMPIRICAL;
    d.n = 3;
    d.values = malloc(3 * sizeof(double));
    d.weights = malloc(3 * sizeof(double));
    if (d.values && d.weights) {
        d.values[0] = 1, d.values[1] = 2.5, d.values[2] = 7;
        d.weights[0] = 1, d.weights[1] = 2, d.weights[2] = 1;
        moments("empirical {1,2.5,7} w {1,2,1}", &d, 3.25, 5.0625, 7);
    }
    /* Infinite moments are reported: pareto shape 1.5 has a mean, no variance. */
    memset(&d, 0, sizeof d);
    d.kind = CS_DIST_PARETO;
    d.p[0] = 2;
    d.p[1] = 1.5;
    double m = 0, v = 0;
    CS_CHECK(cs_dist_moments(&d, &m, &v) == -1);
    CS_CHECK(m == 6.0); /* 1.5 x 2 / 0.5 */
}

/* --------------------------------------------------------- CDF, support */

/* Phi by erfc (libm), independent of GSL's Gaussian CDF the code uses. */
static double phi_cdf(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

static void near(double got, double want, const char *what)
{
    if (fabs(got - want) <= 1e-12 + 1e-10 * fabs(want)) cs_test_pass++;
    else {
        char d[128];
        snprintf(d, sizeof d, "%s: got %.17g want %.17g", what, got, want);
        cs_test_failed(__FILE__, __LINE__, "cdf", d);
    }
}

/*
 * cs_dist_cdf and cs_dist_support of every family against closed forms
 * (the best-response and shade strategies price with them):
 *   constant 4:          F = [x >= 4];
 *   uniform [2, 10]:     F(5) = 3/8, 0 below 2, 1 from 10;
 *   lognormal mean 3, sigma 0.5: F(x) = Phi((ln x - ln 3 + 0.125) / 0.5);
 *     sigma 0 is the constant 3;
 *   exponential mean 4:  F(x) = 1 - e^(-x/4);
 *   normal_trunc mean 0, sd 1 on [1, 2] (a window right of the mean, the
 *     upper-tail branch of the draw): F(1.5) = (Phi(1.5) - Phi(1)) /
 *     (Phi(2) - Phi(1)); its mean phi(1) - phi(2) over the same Z =
 *     1.38317...;
 *   pareto x_m 2, alpha 3: F(x) = 1 - (2/x)^3;
 *   empirical {7, 1, 2.5, 2.5} equal weights: F(2.5) = 3/4 (ties share the
 *     last cumulative probability), F(0.9) = 0, F(7) = 1.
 */
static void test_cdf_support(void)
{
    cs_dist_t d;
    double lo, hi;
    memset(&d, 0, sizeof d);
    d.kind = CS_DIST_CONSTANT;
    d.p[0] = 4;
    near(cs_dist_cdf(&d, 3.999), 0, "constant below");
    near(cs_dist_cdf(&d, 4), 1, "constant at");
    cs_dist_support(&d, &lo, &hi);
    CS_CHECK(lo == 4 && hi == 4);
    d.kind = CS_DIST_UNIFORM;
    d.p[0] = 2, d.p[1] = 10;
    near(cs_dist_cdf(&d, 1.5), 0, "uniform below");
    near(cs_dist_cdf(&d, 5), 0.375, "uniform 5");
    near(cs_dist_cdf(&d, 10), 1, "uniform max");
    cs_dist_support(&d, &lo, &hi);
    CS_CHECK(lo == 2 && hi == 10);
    d.kind = CS_DIST_LOGNORMAL;
    d.p[0] = 3, d.p[1] = 0.5;
    near(cs_dist_cdf(&d, 2.2), phi_cdf((log(2.2) - log(3.0) + 0.125) / 0.5), "lognormal 2.2");
    near(cs_dist_cdf(&d, 0), 0, "lognormal 0");
    cs_dist_support(&d, &lo, &hi);
    CS_CHECK(lo == 0 && hi == HUGE_VAL);
    d.p[1] = 0;
    near(cs_dist_cdf(&d, 2.9), 0, "lognormal sigma 0 below");
    near(cs_dist_cdf(&d, 3), 1, "lognormal sigma 0 at");
    d.kind = CS_DIST_EXPONENTIAL;
    d.p[0] = 4;
    near(cs_dist_cdf(&d, 2.385), 1 - exp(-2.385 / 4), "exponential");
    near(cs_dist_cdf(&d, -1), 0, "exponential negative");
    d.kind = CS_DIST_NORMAL_TRUNC;
    d.p[0] = 0, d.p[1] = 1, d.p[2] = 1, d.p[3] = 2;
    double Z = phi_cdf(2) - phi_cdf(1);
    near(cs_dist_cdf(&d, 1.5), (phi_cdf(1.5) - phi_cdf(1)) / Z, "normal_trunc 1.5");
    near(cs_dist_cdf(&d, 1), 0, "normal_trunc min");
    near(cs_dist_cdf(&d, 2), 1, "normal_trunc max");
    cs_dist_support(&d, &lo, &hi);
    CS_CHECK(lo == 1 && hi == 2);
    double m = 0, v = 0, pd1 = exp(-0.5) / sqrt(2 * M_PI), pd2 = exp(-2.0) / sqrt(2 * M_PI);
    CS_CHECK(cs_dist_moments(&d, &m, &v) == 0);
    near(m, (pd1 - pd2) / Z, "normal_trunc right-window mean");
    gsl_rng *r = cs_rng_stream(20261127, 0);
    int inside = r != NULL;
    for (int i = 0; i < 1000 && r; i++) {
        double x = cs_dist_draw(&d, r);
        inside &= x >= 1 && x <= 2;
    }
    CS_CHECK(inside);
    if (r) gsl_rng_free(r);
    d.kind = CS_DIST_PARETO;
    d.p[0] = 2, d.p[1] = 3;
    near(cs_dist_cdf(&d, 5), 1 - pow(0.4, 3), "pareto 5");
    near(cs_dist_cdf(&d, 2), 0, "pareto scale");
    cs_dist_support(&d, &lo, &hi);
    CS_CHECK(lo == 2 && hi == HUGE_VAL);
    d.p[1] = 0.8; /* no mean */
    CS_CHECK(cs_dist_moments(&d, &m, &v) == -1);
    memset(&d, 0, sizeof d);
    d.kind = CS_DIST_EMPIRICAL;
    d.n = 4;
    d.values = malloc(4 * sizeof(double));
    if (!d.values) return;
    d.values[0] = 7, d.values[1] = 1, d.values[2] = 2.5, d.values[3] = 2.5;
    CS_CHECK(cs_dist_prepare(&d) == 0);
    near(cs_dist_cdf(&d, 0.9), 0, "empirical below");
    near(cs_dist_cdf(&d, 2.5), 0.75, "empirical tie");
    near(cs_dist_cdf(&d, 6.99), 0.75, "empirical between");
    near(cs_dist_cdf(&d, 7), 1, "empirical max");
    cs_dist_support(&d, &lo, &hi);
    CS_CHECK(lo == 1 && hi == 7);
    cs_dist_clear(&d);
    cs_dist_clear(NULL);
    CS_CHECK(cs_dist_find(NULL) == CS_DIST_NONE && cs_dist_find("pareto") == CS_DIST_PARETO);
}

/* --------------------------------------------------------- scenario form */

static int has_msg(const cs_errlist_t *e, const char *sub)
{
    for (size_t i = 0; i < e->n; i++)
        if (strstr(e->msg[i], sub) != NULL) return 1;
    return 0;
}

/* Load a one-agent scenario whose params object is params_json. */
static int load_params(const char *kind, const char *params_json, cs_scenario_t **s, cs_errlist_t *e)
{
    char txt[2048];
    snprintf(txt, sizeof txt,
             "{\"name\": \"d\", \"blocks\": 10, \"mechanism\": \"fifo\", \"agents\": "
             "[{\"kind\": \"%s\", \"params\": %s}]}",
             kind, params_json);
    return cs_scenario_load(txt, strlen(txt), NULL, 0, s, e);
}

/* Expect params_json to be refused with a message containing msg. */
static void bad(const char *kind, const char *params_json, const char *msg)
{
    cs_scenario_t *s = NULL;
    cs_errlist_t e = {0};
    int rc = load_params(kind, params_json, &s, &e);
    int ok = rc != CS_OK && s == NULL && has_msg(&e, msg);
    if (!ok) {
        fprintf(stderr, "  expected \"%s\" for %s:\n", msg, params_json);
        for (size_t i = 0; i < e.n; i++) fprintf(stderr, "    %s\n", e.msg[i]);
    }
    CS_CHECK(ok);
    cs_scenario_free(s);
    cs_errlist_free(&e);
}

static void test_scenario_form(void)
{
    cs_scenario_t *s = NULL;
    cs_errlist_t e = {0};
    int rc = load_params("affine_user",
                         "{\"value\": {\"dist\": \"uniform\", \"min\": 2e8, \"max\": 9e8}, "
                         "\"wait_cost\": {\"dist\": \"empirical\", \"values\": [1e6, 3e6], \"weights\": [3, 1]}, "
                         "\"rate\": 0.75}",
                         &s, &e);
    for (size_t i = 0; i < e.n; i++) fprintf(stderr, "  %s\n", e.msg[i]);
    CS_CHECK(rc == CS_OK && s != NULL);
    if (s) {
        const cs_agent_ops_t *o = s->agents[0].ops;
        for (size_t k = 0; k < o->n_params; k++) {
            const char *nm = o->params[k].name;
            int want = strcmp(nm, "value") == 0 ? CS_DIST_UNIFORM
                       : strcmp(nm, "wait_cost") == 0 ? CS_DIST_EMPIRICAL
                                                      : CS_DIST_NONE;
            CS_CHECK(s->agents[0].dists[k].kind == want);
            if (strcmp(nm, "rate") == 0) CS_CHECK(s->agents[0].params[k] == 0.75);
        }
    }
    cs_scenario_free(s);
    cs_errlist_free(&e);

    bad("default_gba", "{\"value\": {\"dist\": \"gamma\"}}",
        "agents[0].params.value.dist: unknown distribution \"gamma\" (valid: constant, uniform, lognormal, "
        "exponential, normal_trunc, pareto, empirical)");
    bad("default_gba", "{\"value\": {\"mean\": 3}}", "agents[0].params.value.dist: required");
    bad("default_gba", "{\"value\": {\"dist\": \"uniform\", \"min\": 5}}",
        "agents[0].params.value.max: required for dist uniform");
    bad("default_gba", "{\"value\": {\"dist\": \"uniform\", \"min\": 5, \"max\": 4}}",
        "agents[0].params.value: min (5) must be <= max (4)");
    bad("default_gba", "{\"value\": {\"dist\": \"uniform\", \"min\": -5, \"max\": 4}}",
        "agents[0].params.value: support [-5, 4] must lie in the parameter's range [0, 1e+15]");
    bad("default_gba", "{\"cycles_frac\": {\"dist\": \"exponential\", \"mean\": 2}}",
        "agents[0].params.cycles_frac: support [0, inf] must lie in the parameter's range [0, 1]");
    bad("default_gba", "{\"value\": {\"dist\": \"exponential\", \"mean\": 0}}",
        "agents[0].params.value.mean: must be > 0, got 0");
    bad("default_gba", "{\"value\": {\"dist\": \"lognormal\", \"mean\": 1e8, \"sigma\": 6}}",
        "agents[0].params.value.sigma: must be in [0, 5], got 6");
    bad("default_gba", "{\"value\": {\"dist\": \"pareto\", \"scale\": 1e8, \"shape\": -1}}",
        "agents[0].params.value.shape: must be > 0, got -1");
    bad("default_gba", "{\"value\": {\"dist\": \"normal_trunc\", \"mean\": 1, \"sd\": 1, \"min\": 3, \"max\": 3}}",
        "agents[0].params.value: min (3) must be < max (3)");
    bad("default_gba", "{\"value\": {\"dist\": \"empirical\", \"values\": []}}",
        "agents[0].params.value.values: must be a list of 1 to 100000 numbers");
    bad("default_gba", "{\"value\": {\"dist\": \"empirical\", \"values\": [1, 2], \"weights\": [1]}}",
        "agents[0].params.value.weights: must be a list of 2 numbers (one per value)");
    bad("default_gba", "{\"value\": {\"dist\": \"empirical\", \"values\": [1, 2], \"weights\": [0, 0]}}",
        "agents[0].params.value.weights: must have a positive finite sum");
    bad("default_gba", "{\"value\": {\"dist\": \"empirical\", \"values\": [1, \"x\"]}}",
        "agents[0].params.value.values[1]: must be a number, got a string");
    bad("default_gba", "{\"value\": {\"dist\": \"constant\", \"value\": 1, \"max\": 3}}",
        "agents[0].params.value.max: unknown key for dist constant (allowed: dist, value)");
    bad("default_gba", "{\"ttl\": {\"dist\": \"constant\", \"value\": 1}}",
        "agents[0].params.ttl: must be a number (kind default_gba takes a distribution object only");
    bad("spammer", "{\"value\": {\"dist\": \"constant\", \"value\": 1}}",
        "agents[0].params.value: must be a number (kind spammer takes a distribution object only");
}

/* ------------------------------------------------------- agents drawing */

/* Mock world: counts schedule calls and keeps the last request. */
typedef struct dmock {
    size_t n;                 /* requests */
    double vmin, vmax, vsum;  /* value statistics */
    uint64_t dmin, dmax;      /* delay range */
    uint64_t used_min, used_max;
} dmock_t;

static int dm_schedule(void *impl, cs_agent_t *a, const cs_timer_req_t *q, cs_hash_t *id_out)
{
    (void)a;
    dmock_t *m = impl;
    if (m->n == 0 || q->value < m->vmin) m->vmin = q->value;
    if (m->n == 0 || q->value > m->vmax) m->vmax = q->value;
    if (m->n == 0 || q->delay < m->dmin) m->dmin = q->delay;
    if (m->n == 0 || q->delay > m->dmax) m->dmax = q->delay;
    if (m->n == 0 || q->cycles_used < m->used_min) m->used_min = q->cycles_used;
    if (m->n == 0 || q->cycles_used > m->used_max) m->used_max = q->cycles_used;
    m->vsum += q->value;
    m->n++;
    if (id_out) memset(id_out, 0, sizeof *id_out);
    return CS_OK;
}
static int dm_cancel(void *impl, cs_agent_t *a, uint32_t actor, const cs_hash_t *id)
{
    (void)impl, (void)a, (void)actor, (void)id;
    return CS_OK;
}
static int dm_write(void *impl, cs_agent_t *a, uint32_t actor, const char *key)
{
    (void)impl, (void)a, (void)actor, (void)key;
    return CS_OK;
}
static uint64_t dm_height(const void *impl)
{
    (void)impl;
    return 1;
}
static double dm_balance(const void *impl, const cs_agent_t *a, uint32_t actor)
{
    (void)impl, (void)a, (void)actor;
    return 1e18;
}
static const cs_world_ops_t dm_ops = {dm_schedule, dm_cancel, dm_write, dm_height, dm_balance};

/*
 * default_gba with rate = constant 3, delay = constant 7, value = uniform
 * [2e8, 6e8], cycles_frac = constant 0.25 over 1000 blocks: exactly 3000
 * requests, every delay 7, values inside [2e8, 6e8] with mean near 4e8
 * (se = 4e8 / sqrt(12 x 3000) = 2.1e6, so within 1e7), every cycles_used
 * round(100000 x 0.25) = 25000 (no jitter with a distribution).
 */
static void test_agent_draws(void)
{
    cs_scenario_t *s = NULL;
    cs_errlist_t e = {0};
    int rc = load_params("default_gba",
                         "{\"rate\": {\"dist\": \"constant\", \"value\": 3}, "
                         "\"delay_mean\": {\"dist\": \"constant\", \"value\": 7}, "
                         "\"value\": {\"dist\": \"uniform\", \"min\": 2e8, \"max\": 6e8}, "
                         "\"cycles_frac\": {\"dist\": \"constant\", \"value\": 0.25}}",
                         &s, &e);
    CS_CHECK(rc == CS_OK && s != NULL);
    if (s == NULL) {
        cs_errlist_free(&e);
        return;
    }
    dmock_t m;
    memset(&m, 0, sizeof m);
    cs_world_t w = {&dm_ops, &m};
    cs_agent_t a;
    memset(&a, 0, sizeof a);
    a.ops = s->agents[0].ops;
    a.params = s->agents[0].params;
    a.dists = s->agents[0].dists;
    a.n_actors = 1;
    a.rng = cs_rng_stream(7, 0);
    a.active = 1;
    a.state = calloc(1, a.ops->state_size);
    cs_obs_t o;
    memset(&o, 0, sizeof o);
    o.mechanism = "fifo";
    o.demand_mult = 1.0;
    for (uint64_t h = 1; h <= 1000; h++) {
        o.height = h;
        a.ops->on_block(&a, &w, &o);
    }
    CS_CHECK_EQ_U64(m.n, 3000);
    CS_CHECK_EQ_U64(m.dmin, 7);
    CS_CHECK_EQ_U64(m.dmax, 7);
    CS_CHECK(m.vmin >= 2e8 && m.vmax <= 6e8);
    CS_CHECK(fabs(m.vsum / 3000 - 4e8) < 1e7);
    CS_CHECK_EQ_U64(m.used_min, 25000);
    CS_CHECK_EQ_U64(m.used_max, 25000);
    /* demand_mult 2 doubles the constant count: round(3 x 2) = 6 a block. */
    o.demand_mult = 2.0;
    size_t n0 = m.n;
    a.ops->on_block(&a, &w, &o);
    CS_CHECK_EQ_U64(m.n - n0, 6);
    gsl_rng_free(a.rng);
    free(a.state);
    cs_scenario_free(s);
    cs_errlist_free(&e);
}

int main(void)
{
    test_moments();
    test_cdf_support();
    test_scenario_form();
    test_agent_draws();
    return cs_test_done("dist");
}
