/*
 * cs_converge.c -- convergence of a run's strategic populations
 * (cs_converge.h).
 */
#include "cs_converge.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "cs_error.h"

typedef struct cs__conv_pop {
    const cs_strategy_t *st;            /* its strategy (owned by the scenario) */
    uint32_t entry;                     /* scenario entry index */
    double sum[CS_CONV_WINDOWS];        /* prices per window */
    double sq[CS_CONV_WINDOWS];         /* their squares */
    uint64_t n[CS_CONV_WINDOWS];        /* requests per window */
} cs__conv_pop_t;

struct cs_conv {
    const cs_scenario_t *scn;
    uint64_t window;                    /* W, blocks */
    size_t np;
    cs__conv_pop_t pop[];
};

int cs_conv_new(const cs_scenario_t *scn, const char *mech, cs_conv_t **out)
{
    *out = NULL;
    size_t np = 0;
    for (size_t i = 0; i < scn->n_agents; i++)
        if (cs_scn_agent_strategy(&scn->agents[i], mech) != NULL) np++;
    if (np == 0) return CS_OK;
    cs_conv_t *c = calloc(1, sizeof *c + np * sizeof c->pop[0]);
    if (c == NULL) return CS_ENOMEM;
    c->scn = scn;
    c->window = (scn->blocks + CS_CONV_WINDOWS - 1) / CS_CONV_WINDOWS;
    if (c->window == 0) c->window = 1;
    for (size_t i = 0; i < scn->n_agents; i++) {
        const cs_strategy_t *st = cs_scn_agent_strategy(&scn->agents[i], mech);
        if (st == NULL) continue;
        c->pop[c->np].st = st;
        c->pop[c->np++].entry = (uint32_t)i;
    }
    *out = c;
    return CS_OK;
}

void cs_conv_free(cs_conv_t *c) { free(c); }

void cs_conv_add(cs_conv_t *c, const cs_strategy_t *st, uint64_t height, double price)
{
    if (c == NULL || !isfinite(price) || height == 0) return;
    uint64_t j = (height - 1) / c->window;
    if (j >= CS_CONV_WINDOWS) j = CS_CONV_WINDOWS - 1;
    for (size_t p = 0; p < c->np; p++)
        if (c->pop[p].st == st) {
            c->pop[p].sum[j] += price;
            c->pop[p].sq[j] += price * price;
            c->pop[p].n[j]++;
            return;
        }
}

/* The standard error of window j's mean price of p: sd / sqrt(n), 0 with
 * fewer than two requests. */
static double cs__conv_se(const cs__conv_pop_t *p, size_t j)
{
    if (p->n[j] < 2) return 0.0;
    double n = (double)p->n[j], mu = p->sum[j] / n, var = (p->sq[j] - n * mu * mu) / (n - 1.0);
    return var > 0.0 ? sqrt(var / n) : 0.0;
}

/* The verdict of population p (cs_converge.h): *m the last quarter's mean
 * (NAN without a request there), returns the first block it converged at,
 * or 0 when it has not. */
static uint64_t cs__conv_verdict(const cs_conv_t *c, const cs__conv_pop_t *p, double *m)
{
    const size_t q0 = CS_CONV_WINDOWS - CS_CONV_WINDOWS / 4;
    double s = 0;
    uint64_t n = 0;
    for (size_t j = q0; j < CS_CONV_WINDOWS; j++) {
        s += p->sum[j];
        n += p->n[j];
    }
    *m = n ? s / (double)n : (double)NAN;
    if (n == 0) return 0;
    size_t from = CS_CONV_WINDOWS; /* the earliest window from which all are within the tolerance */
    for (size_t j = CS_CONV_WINDOWS; j-- > 0;) {
        double tol = 3.0 * cs__conv_se(p, j) > CS_CONV_TOL ? 3.0 * cs__conv_se(p, j) : CS_CONV_TOL;
        if (p->n[j] && !(fabs(p->sum[j] / (double)p->n[j] - *m) <= tol)) break;
        from = j;
    }
    return from <= q0 ? (uint64_t)from * c->window + 1 : 0;
}

char *cs_conv_json(const cs_conv_t *c)
{
    cJSON *root = cJSON_CreateObject();
    int ok = root != NULL;
    ok = ok && cJSON_AddStringToObject(root, "criterion",
                                       "mean price (bid / value; fee mechanisms: the share of the value max_fee "
                                       "allows) per window; converged when every window of the last quarter is "
                                       "within max(tolerance, 3 standard errors of its mean) of the last "
                                       "quarter's mean; at = the first block of the earliest window from which "
                                       "every later one is") != NULL;
    ok = ok && cJSON_AddNumberToObject(root, "window", c ? (double)c->window : 0) != NULL;
    ok = ok && cJSON_AddNumberToObject(root, "tolerance", CS_CONV_TOL) != NULL;
    cJSON *pops = ok ? cJSON_AddArrayToObject(root, "populations") : NULL;
    ok = ok && pops != NULL;
    for (size_t i = 0; ok && c && i < c->np; i++) {
        const cs__conv_pop_t *p = &c->pop[i];
        cJSON *o = cJSON_CreateObject();
        ok = o != NULL && cJSON_AddItemToArray(pops, o);
        if (!ok) {
            cJSON_Delete(o);
            break;
        }
        double m;
        uint64_t at = cs__conv_verdict(c, p, &m), n = 0;
        for (size_t j = 0; j < CS_CONV_WINDOWS; j++) n += p->n[j];
        ok = cJSON_AddNumberToObject(o, "entry", p->entry) && cJSON_AddStringToObject(o, "kind", c->scn->agents[p->entry].ops->name) &&
             cJSON_AddStringToObject(o, "strategy", cs_strategy_names[p->st->kind]) &&
             cJSON_AddNumberToObject(o, "requests", (double)n) &&
             (isnan(m) ? cJSON_AddNullToObject(o, "final_mean") != NULL : cJSON_AddNumberToObject(o, "final_mean", m) != NULL) &&
             cJSON_AddBoolToObject(o, "converged", at != 0) &&
             (at ? cJSON_AddNumberToObject(o, "at", (double)at) != NULL : cJSON_AddNullToObject(o, "at") != NULL);
        cJSON *ms = ok ? cJSON_AddArrayToObject(o, "means") : NULL, *cs = ok ? cJSON_AddArrayToObject(o, "counts") : NULL;
        cJSON *se = ok ? cJSON_AddArrayToObject(o, "ses") : NULL;
        ok = ok && ms != NULL && cs != NULL && se != NULL;
        for (size_t j = 0; ok && j < CS_CONV_WINDOWS; j++) {
            cJSON *x = p->n[j] ? cJSON_CreateNumber(p->sum[j] / (double)p->n[j]) : cJSON_CreateNull();
            ok = x != NULL && cJSON_AddItemToArray(ms, x);
            if (!ok) cJSON_Delete(x);
            cJSON *y = ok ? cJSON_CreateNumber((double)p->n[j]) : NULL;
            ok = y != NULL && cJSON_AddItemToArray(cs, y);
            if (!ok) cJSON_Delete(y);
            cJSON *z = ok ? cJSON_CreateNumber(cs__conv_se(p, j)) : NULL;
            ok = z != NULL && cJSON_AddItemToArray(se, z);
            if (!ok) cJSON_Delete(z);
        }
    }
    char *txt = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return txt;
}
