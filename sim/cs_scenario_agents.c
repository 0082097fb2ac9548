/*
 * cs_scenario_agents.c -- validation of agents[]: each entry's kind, count,
 * balance, fee payer, policy, role and activity window, its parameters
 * (numbers or distribution objects) and its bidding strategy, and the
 * run-wide limits on actors and initial balance (DESIGN §5, agents/README.md).
 */
#include "cs_scenario_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_mech.h"

/* ------------------------------------------------------------ agents */

#define CS__MAX_EMPIRICAL 100000 /* values of an empirical distribution */

/* Field names of each distribution family (cs_dist.h), in p[] order. */
static const char *const cs__dist_fields[CS_DIST__COUNT][4] = {
    {NULL}, {"value"}, {"min", "max"}, {"mean", "sigma"}, {"mean"}, {"mean", "sd", "min", "max"},
    {"scale", "shape"}, {NULL},
};

/* The numbers of an empirical "values" or "weights" list into a new array
 * (*out, caller frees); n_want 0 = any length in [1, CS__MAX_EMPIRICAL]. */
static int cs__dist_list(cs__ctx_t *c, const cJSON *j, const char *path, double lo, double hi, size_t n_want,
                         double **out, size_t *n_out)
{
    int n = cJSON_IsArray(j) ? cJSON_GetArraySize(j) : -1;
    if (n < 1 || n > CS__MAX_EMPIRICAL || (n_want && (size_t)n != n_want)) {
        if (n_want)
            cs__err(c, path, "must be a list of %zu numbers (one per value), got %s", n_want,
                    n < 0 ? cs__tname(j) : "a list of another length");
        else
            cs__err(c, path, "must be a list of 1 to %d numbers, got %s", CS__MAX_EMPIRICAL,
                    n < 0 ? cs__tname(j) : "a list of another length");
        return -1;
    }
    double *v = malloc((size_t)n * sizeof *v);
    if (v == NULL) {
        c->oom = 1;
        return -1;
    }
    size_t n0 = c->e->n, i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, j)
    {
        char ip[CS__PATH];
        cs__pidx(ip, path, i);
        if (cs__get_real(c, x, ip, lo, hi, &v[i]) != 0) v[i] = 0;
        i++;
    }
    if (c->e->n != n0) {
        free(v);
        return -1;
    }
    *out = v;
    *n_out = (size_t)n;
    return 0;
}

/*
 * A distribution object {"dist": name, fields...} for agent parameter pr
 * (cs_dist.h, agents/README.md "Distributions").  Every field is required;
 * its support must lie in the parameter's [min, max] where it is bounded,
 * and unbounded families need a scale inside it.  Returns 0 with *d
 * prepared for drawing, -1 after reporting (d then owns nothing).
 */
static int cs__dist(cs__ctx_t *c, const cJSON *j, const char *path, const cs_agent_param_t *pr, cs_dist_t *d)
{
    char p[CS__PATH], b1[80], b2[48], b3[48], list[200];
    size_t n0 = c->e->n;
    memset(d, 0, sizeof *d);
    list[0] = '\0';
    for (int k = 1; k < CS_DIST__COUNT; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k > 1 ? ", " : "", cs_dist_names[k]);
    const cJSON *nm = cs__item(j, "dist");
    cs__pkey(p, path, "dist");
    if (nm == NULL || !cJSON_IsString(nm)) {
        cs__err(c, p, "required: a distribution name (one of %s)", list);
        return -1;
    }
    int kind = cs_dist_find(nm->valuestring);
    if (kind == CS_DIST_NONE) {
        cs__err(c, p, "unknown distribution \"%s\" (valid: %s)", cs__clean(nm->valuestring, b1, sizeof b1), list);
        return -1;
    }
    d->kind = kind;
    const char *keys[6] = {"dist"};
    size_t nk = 1;
    if (kind == CS_DIST_EMPIRICAL) {
        keys[nk++] = "values";
        keys[nk++] = "weights";
    }
    for (int f = 0; f < 4 && cs__dist_fields[kind][f]; f++) keys[nk++] = cs__dist_fields[kind][f];
    char what[48];
    snprintf(what, sizeof what, " for dist %s", cs_dist_names[kind]);
    cs__keys(c, j, path, keys, nk, 1, what);
    for (int f = 0; f < 4 && cs__dist_fields[kind][f]; f++) {
        const cJSON *x = cs__item(j, cs__dist_fields[kind][f]);
        cs__pkey(p, path, cs__dist_fields[kind][f]);
        if (x == NULL) cs__err(c, p, "required for dist %s", cs_dist_names[kind]);
        else cs__get_real(c, x, p, -1e300, 1e300, &d->p[f]);
    }
    if (kind == CS_DIST_EMPIRICAL) {
        const cJSON *x = cs__item(j, "values");
        cs__pkey(p, path, "values");
        if (x == NULL) cs__err(c, p, "required for dist empirical");
        else if (cs__dist_list(c, x, p, pr->min, pr->max, 0, &d->values, &d->n) == 0) {
            x = cs__item(j, "weights");
            cs__pkey(p, path, "weights");
            double sw = 0;
            if (x && cs__dist_list(c, x, p, 0, 1e300, d->n, &d->weights, &d->n) == 0) {
                for (size_t i = 0; i < d->n; i++) sw += d->weights[i];
                if (!(sw > 0) || !isfinite(sw)) cs__err(c, p, "must have a positive finite sum");
            }
        }
    }
    if (c->e->n != n0) {
        cs_dist_clear(d);
        return -1;
    }
    /* Family constraints, then the support against the parameter's bounds. */
    const double *q = d->p;
    switch (kind) {
    case CS_DIST_UNIFORM:
        if (q[0] > q[1]) cs__err(c, path, "min (%s) must be <= max (%s)", cs__fmtd(q[0], b2, sizeof b2), cs__fmtd(q[1], b3, sizeof b3));
        break;
    case CS_DIST_LOGNORMAL:
        cs__pkey(p, path, "mean");
        if (!(q[0] > 0)) cs__err(c, p, "must be > 0, got %s", cs__fmtd(q[0], b2, sizeof b2));
        cs__pkey(p, path, "sigma");
        if (!(q[1] >= 0 && q[1] <= 5)) cs__err(c, p, "must be in [0, 5], got %s", cs__fmtd(q[1], b2, sizeof b2));
        break;
    case CS_DIST_EXPONENTIAL:
        cs__pkey(p, path, "mean");
        if (!(q[0] > 0)) cs__err(c, p, "must be > 0, got %s", cs__fmtd(q[0], b2, sizeof b2));
        break;
    case CS_DIST_NORMAL_TRUNC:
        cs__pkey(p, path, "sd");
        if (!(q[1] > 0)) cs__err(c, p, "must be > 0, got %s", cs__fmtd(q[1], b2, sizeof b2));
        else if (q[2] >= q[3])
            cs__err(c, path, "min (%s) must be < max (%s)", cs__fmtd(q[2], b2, sizeof b2), cs__fmtd(q[3], b3, sizeof b3));
        else if ((q[2] - q[0]) / q[1] > 30 || (q[3] - q[0]) / q[1] < -30)
            cs__err(c, path, "[min, max] lies more than 30 sd from the mean (probability below 1e-190)");
        break;
    case CS_DIST_PARETO:
        cs__pkey(p, path, "scale");
        if (!(q[0] > 0)) cs__err(c, p, "must be > 0, got %s", cs__fmtd(q[0], b2, sizeof b2));
        cs__pkey(p, path, "shape");
        if (!(q[1] > 0)) cs__err(c, p, "must be > 0, got %s", cs__fmtd(q[1], b2, sizeof b2));
        break;
    default: break;
    }
    if (c->e->n == n0) {
        double lo, hi;
        cs_dist_support(d, &lo, &hi);
        double scale = kind == CS_DIST_LOGNORMAL || kind == CS_DIST_EXPONENTIAL ? q[0] : lo;
        if (lo < pr->min || (isfinite(hi) && hi > pr->max) || scale > pr->max)
            cs__err(c, path, "support [%s, %s] must lie in the parameter's range [%s, %s]", cs__fmtd(lo, b1, sizeof b1),
                    isfinite(hi) ? cs__fmtd(hi, b2, sizeof b2) : "inf", cs__fmtd(pr->min, b3, sizeof b3),
                    cs__fmtd(pr->max, list, sizeof list));
    }
    if (c->e->n != n0) {
        cs_dist_clear(d);
        return -1;
    }
    if (cs_dist_prepare(d) != 0) {
        c->oom = 1;
        cs_dist_clear(d);
        return -1;
    }
    return 0;
}

/* agents[i].params for kind ops: defaults filled, given values in the
 * kind's [min, max] (or the parameter's word, if it has one, stored as
 * CS_AGENT_PARAM_WORD); a parameter listed in ops->dist_params may instead be
 * a distribution object, which goes to (*dists)[k] (the array of n_params
 * entries is allocated at the first one, so entries without distributions
 * cost nothing; kind NONE for the other parameters).  Returns 0 when every
 * value is valid. */
static int cs__agent_params(cs__ctx_t *c, const cJSON *j, const char *path, const cs_agent_ops_t *ops, double *out,
                            cs_dist_t **dists)
{
    for (size_t k = 0; k < ops->n_params; k++) out[k] = ops->params[k].def;
    if (j == NULL) return 0;
    if (cs__want_obj(c, j, path) != 0) return -1;
    size_t n0 = c->e->n;
    const char **names = malloc((ops->n_params ? ops->n_params : 1) * sizeof *names);
    if (names == NULL) {
        c->oom = 1;
        return -1;
    }
    for (size_t k = 0; k < ops->n_params; k++) names[k] = ops->params[k].name;
    char what[64];
    snprintf(what, sizeof what, " for kind %s", ops->name);
    cs__keys(c, j, path, names, ops->n_params, 1, what);
    free(names);
    const cJSON *ch;
    cJSON_ArrayForEach(ch, j)
    {
        if (!cs__first(j, ch)) continue;
        for (size_t k = 0; k < ops->n_params; k++) {
            if (strcmp(ops->params[k].name, ch->string) != 0) continue;
            char cp[CS__PATH];
            cs__pkey(cp, path, ch->string);
            if (cJSON_IsObject(ch) && cs_agent_param_dist(ops, k)) {
                if (*dists == NULL && (*dists = calloc(ops->n_params, sizeof **dists)) == NULL) {
                    c->oom = 1;
                    return -1;
                }
                cs__dist(c, ch, cp, &ops->params[k], &(*dists)[k]);
            } else if (cJSON_IsObject(ch)) {
                cs__err(c, cp, "must be a number (kind %s takes a distribution object only for its random "
                        "quantities, see agents/README.md), got an object", ops->name);
            } else if (ops->params[k].word && cJSON_IsString(ch)) {
                /* The parameter's word (cs_agent_param_t), held as CS_AGENT_PARAM_WORD. */
                if (strcmp(ch->valuestring, ops->params[k].word) == 0) out[k] = CS_AGENT_PARAM_WORD;
                else
                    cs__err(c, cp, "must be a number in [%.10g, %.10g] or the string \"%s\", got \"%.40s\"",
                            ops->params[k].min, ops->params[k].max, ops->params[k].word, ch->valuestring);
            } else {
                cs__get_real(c, ch, cp, ops->params[k].min, ops->params[k].max, &out[k]);
            }
        }
    }
    return c->e->n == n0 ? 0 : -1;
}

/* Kinds that fix their own pricing by definition: a strategy makes no
 * sense for them (agents/README.md "Strategies"). */
static int cs__strat_kind_ok(const cs_agent_ops_t *o)
{
    return o->kind != CS_AK_SPAMMER && o->kind != CS_AK_WAITING_GAME && o->kind != CS_AK_FP_BEST_RESPONSE &&
           o->kind != CS_AK_DEMAND_CURVE;
}

/*
 * agents[i].strategy: a name, or {"name": ..., fields} (agents/README.md
 * "Strategies").  fixed_share needs share; shade needs a kind whose value
 * follows a distribution it can know (a "value" parameter); the learning
 * grid is 2..CS_STRAT_MAX_GRID multipliers in [0, 1], feedback is "full"
 * (Hedge) or "bandit" (EXP3), eta defaults to sqrt(8 ln K / blocks)
 * (Hedge's rate for a horizon of the run) or sqrt(2 ln K / (K blocks))
 * (EXP3's); learning_value's buckets are 1..CS_STRAT_MAX_BUCKETS (10).
 */
static void cs__strategy(cs__ctx_t *c, const cJSON *j, const char *path, const cs_agent_ops_t *ops, cs_strategy_t *s)
{
    static const char *const keys[CS_STRAT__COUNT][5] = {
        {NULL}, {"share"}, {NULL}, {"epsilon", "epsilon_prio", "fee_rule"}, {"n"}, {"eta", "grid", "feedback"},
        {"eta", "grid", "feedback"}, {NULL}, {"eta", "grid", "feedback", "buckets"},
    };
    char p[CS__PATH], b1[80], list[160];
    memset(s, 0, sizeof s[0]);
    list[0] = '\0';
    for (int k = 1; k < CS_STRAT__COUNT; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k > 1 ? ", " : "", cs_strategy_names[k]);
    const cJSON *nm = cJSON_IsObject(j) ? cs__item(j, "name") : j;
    if (cJSON_IsObject(j)) cs__pkey(p, path, "name");
    else snprintf(p, sizeof p, "%s", path);
    if (nm == NULL || !cJSON_IsString(nm)) {
        cs__err(c, p, "must be a strategy name (one of %s)%s, got %s", list,
                cJSON_IsObject(j) ? "" : " or an object with \"name\"", nm ? cs__tname(nm) : "nothing");
        return;
    }
    int kind = cs_strategy_find(nm->valuestring);
    if (kind == CS_STRAT_NONE) {
        cs__err(c, p, "unknown strategy \"%s\" (valid: %s)", cs__clean(nm->valuestring, b1, sizeof b1), list);
        return;
    }
    if (ops && !cs__strat_kind_ok(ops)) {
        cs__err(c, path, "kind %s fixes its own pricing; strategies apply to every other kind", ops->name);
        return;
    }
    s->kind = kind;
    s->epsilon = 1e6;
    s->epsilon_prio = 1;
    s->n = 2;
    s->n_buckets = 10;
    s->n_grid = 20; /* 0.05, 0.10, ..., 1.00 */
    for (size_t k = 0; k < s->n_grid; k++) s->grid[k] = 0.05 * (double)(k + 1);
    if (kind == CS_STRAT_LEARNING_WAIT) { /* 0 (wait for Bias), 0.05, ..., 1.00 */
        s->n_grid = 21;
        for (size_t k = 0; k < s->n_grid; k++) s->grid[k] = 0.05 * (double)k;
    }
    if (kind == CS_STRAT_LEARNING_VALUE) { /* 0.025, 0.050, ..., 1.000: a finer shading */
        s->n_grid = 40;
        for (size_t k = 0; k < s->n_grid; k++) s->grid[k] = 0.025 * (double)(k + 1);
    }
    if (cJSON_IsObject(j)) {
        const char *allowed[6] = {"name"};
        size_t na = 1;
        for (int f = 0; f < 5 && keys[kind][f]; f++) allowed[na++] = keys[kind][f];
        char what[48];
        snprintf(what, sizeof what, " for strategy %s", cs_strategy_names[kind]);
        cs__keys(c, j, path, allowed, na, 1, what);
        const cJSON *x;
        double v;
        uint64_t u;
        if ((x = cs__item(j, "share")) != NULL) {
            cs__pkey(p, path, "share");
            if (cs__get_real(c, x, p, 0, 100, &v) == 0) s->share = v;
        }
        if ((x = cs__item(j, "epsilon")) != NULL) {
            cs__pkey(p, path, "epsilon");
            if (cs__get_real(c, x, p, 0, 1e15, &v) == 0) s->epsilon = v;
        }
        if ((x = cs__item(j, "epsilon_prio")) != NULL) {
            cs__pkey(p, path, "epsilon_prio");
            if (cs__get_real(c, x, p, 0, 1e12, &v) == 0) s->epsilon_prio = v;
        }
        if ((x = cs__item(j, "fee_rule")) != NULL) {
            cs__pkey(p, path, "fee_rule");
            if (cJSON_IsString(x) && strcmp(x->valuestring, "p50") == 0) s->fee_p50 = 1;
            else if (!cJSON_IsString(x) || strcmp(x->valuestring, "threshold") != 0)
                cs__err(c, p, "must be \"threshold\" (outbid the first excluded competitor) or \"p50\" (the "
                              "previous block's median tip)");
        }
        if ((x = cs__item(j, "n")) != NULL) {
            cs__pkey(p, path, "n");
            if (cs__get_uint(c, x, p, 2, 1000000, &u) == 0) s->n = (uint32_t)u;
        }
        if ((x = cs__item(j, "buckets")) != NULL) {
            cs__pkey(p, path, "buckets");
            if (cs__get_uint(c, x, p, 1, CS_STRAT_MAX_BUCKETS, &u) == 0) s->n_buckets = (size_t)u;
        }
        if ((x = cs__item(j, "eta")) != NULL) {
            cs__pkey(p, path, "eta");
            if (cs__get_real(c, x, p, 1e-9, 100, &v) == 0) s->eta = v;
        }
        if ((x = cs__item(j, "feedback")) != NULL) {
            cs__pkey(p, path, "feedback");
            if (cJSON_IsString(x) && strcmp(x->valuestring, "bandit") == 0) s->bandit = 1;
            else if (!cJSON_IsString(x) || strcmp(x->valuestring, "full") != 0)
                cs__err(c, p, "must be \"full\" (Hedge) or \"bandit\" (EXP3)");
        }
        if ((x = cs__item(j, "grid")) != NULL) {
            cs__pkey(p, path, "grid");
            int n = cJSON_IsArray(x) ? cJSON_GetArraySize(x) : -1;
            if (n < 2 || n > CS_STRAT_MAX_GRID) {
                cs__err(c, p, "must be a list of 2 to %d bid multipliers in [0, 1], got %s", CS_STRAT_MAX_GRID,
                        n < 0 ? cs__tname(x) : "a list of another length");
            } else {
                s->n_grid = (size_t)n;
                size_t i = 0;
                const cJSON *g;
                cJSON_ArrayForEach(g, x)
                {
                    char gp[CS__PATH];
                    cs__pidx(gp, p, i);
                    cs__get_real(c, g, gp, 0, 1, &s->grid[i]);
                    i++;
                }
            }
        }
    } else if (kind == CS_STRAT_FIXED_SHARE) {
        cs__err(c, path, "fixed_share needs its share: {\"name\": \"fixed_share\", \"share\": x}");
    }
    if (kind == CS_STRAT_FIXED_SHARE && cJSON_IsObject(j) && cs__item(j, "share") == NULL)
        cs__err(c, path, "fixed_share needs \"share\" (the bid as a share of the value)");
    if (kind == CS_STRAT_SHADE && ops) {
        size_t k = 0;
        while (k < ops->n_params && strcmp(ops->params[k].name, "value") != 0) k++;
        if (k == ops->n_params || ops->kind == CS_AK_LIQUIDATION_BOT)
            cs__err(c, path, "shade needs a value distribution the bidder knows; kind %s has none", ops->name);
    }
    if ((kind == CS_STRAT_LEARNING || kind == CS_STRAT_LEARNING_WAIT || kind == CS_STRAT_LEARNING_VALUE) &&
        s->eta == 0) {
        double T = c->blocks_ok && c->s->blocks ? (double)c->s->blocks : 1.0;
        double K = (double)s->n_grid;
        s->eta = s->bandit ? sqrt(2.0 * log(K) / (K * T)) : sqrt(8.0 * log(K) / T);
    }
}

/*
 * agents[i].strategy as {MECHANISM: strategy, ...}: a strategy per
 * mechanism (agents/README.md "Strategies"), e.g. truthful under bias-vcg
 * and shade under bias-fp; a mechanism not named uses the kind's own
 * pricing.  Keys must be mechanism names.
 */
/* 1 if j is the per-mechanism form: an object without "name" with at least
 * one mechanism name as a key (so {"share": 1} still reads as a strategy
 * object missing its name). */
static int cs__strategy_is_by(const cJSON *j)
{
    if (!cJSON_IsObject(j) || cs__item(j, "name") != NULL) return 0;
    const cJSON *ch;
    cJSON_ArrayForEach(ch, j) if (cs_mech_find_any(ch->string)) return 1;
    return 0;
}

static void cs__strategy_by(cs__ctx_t *c, const cJSON *j, const char *path, cs_scn_agent_t *ag)
{
    size_t n = (size_t)cJSON_GetArraySize(j);
    ag->strat_by = calloc(n, sizeof *ag->strat_by);
    ag->strat_mech = calloc(n, sizeof *ag->strat_mech);
    if (!ag->strat_by || !ag->strat_mech) {
        c->oom = 1;
        return;
    }
    const cJSON *ch;
    cJSON_ArrayForEach(ch, j)
    {
        char p[CS__PATH], b1[80], names[512];
        cs__pkey(p, path, ch->string);
        const cs_mech_ops_t *ops = cs_mech_find(ch->string);
        if (ops == NULL) {
            cs__err(c, p, "unknown mechanism \"%s\" (a strategy per mechanism needs mechanism names; %s)",
                    cs__clean(ch->string, b1, sizeof b1), cs_mech_unknown_hint(ch->string, names, sizeof names));
            continue;
        }
        ag->strat_mech[ag->n_strat_by] = ops->name;
        cs__strategy(c, ch, p, ag->ops, &ag->strat_by[ag->n_strat_by++]);
    }
}

/* Totals over agent entries, for the run-wide limits. */
typedef struct cs__agent_tot {
    uint64_t actors;   /* sum of count * n_actors */
    cs_u128 balance;   /* sum of actors * balance */
    int bal_overflow;  /* balance sum overflowed */
} cs__agent_tot_t;

/* agents[i].<key>: an integer in [lo, CS__MAX_PATIENCE] into *dst when
 * present; returns whether it was. */
static int cs__agent_uint(cs__ctx_t *c, const cJSON *j, const char *path, const char *key, uint64_t lo, uint64_t *dst)
{
    char p[CS__PATH];
    const cJSON *x = cs__item(j, key);
    cs__pkey(p, path, key);
    if (x) cs__get_uint(c, x, p, lo, CS__MAX_PATIENCE, dst);
    return x != NULL;
}

/* One agents[i] entry. */
static void cs__agent(cs__ctx_t *c, const cJSON *j, size_t i, cs_scn_agent_t *ag, cs__agent_tot_t *tot)
{
    char path[CS__PATH], p[CS__PATH], b1[80], list[600];
    cs__pidx(path, "agents", i);
    ag->count = 1;
    ag->balance = (cs_u128)CS__DEF_BALANCE;
    if (cs__want_obj(c, j, path) != 0) return;
    cs__keys(c, j, path, cs__agent_keys, CS__N(cs__agent_keys), 1, "");
    int ok = 1;
    const cJSON *k = cs__item(j, "kind");
    cs__pkey(p, path, "kind");
    if (k == NULL) {
        cs__err(c, p, "required");
    } else if (!cJSON_IsString(k)) {
        cs__err(c, p, "must be an agent kind name, got %s", cs__tname(k));
    } else {
        ag->ops = cs_agent_find(k->valuestring);
        if (ag->ops == NULL)
            cs__err(c, p, "unknown agent kind \"%s\" (valid: %s)", cs__clean(k->valuestring, b1, sizeof b1),
                    cs_agent_names(list, sizeof list));
    }
    uint64_t v;
    const cJSON *x = cs__item(j, "count");
    cs__pkey(p, path, "count");
    if (x) {
        if (cs__get_uint(c, x, p, 1, CS__MAX_COUNT, &v) == 0) ag->count = (uint32_t)v;
        else ok = 0;
    }
    x = cs__item(j, "deployer");
    cs__pkey(p, path, "deployer");
    const char *dep;
    if (x && cs__get_str(c, x, p, CS__MAX_NAME, &dep) == 0) ag->deployer = cs__dup(c, dep);
    x = cs__item(j, "balance");
    cs__pkey(p, path, "balance");
    if (x && cJSON_IsObject(x)) {
        /* {"fires": N}: N fires at the agent's expected price at the start. */
        static const char *const bk[] = {"fires"};
        cs__keys(c, x, p, bk, 1, 1, "");
        const cJSON *fx = cs__item(x, "fires");
        char fp[CS__PATH];
        cs__pkey(fp, p, "fires");
        if (fx == NULL) cs__err(c, fp, "required: the balance as a number of fires");
        else if (cs__get_real(c, fx, fp, 1e-9, 1e12, &ag->balance_fires) != 0) ok = 0;
        ag->balance = 0;
    } else if (x && cs__get_u128(c, x, p, 0, 0, &ag->balance) != 0) {
        ok = 0;
    }
    x = cs__item(j, "fee_payer");
    cs__pkey(p, path, "fee_payer");
    if (x) {
        if (cJSON_IsString(x) && strcmp(x->valuestring, "self") == 0) {
            ag->fee_payer_deployer = 0;
        } else if (cJSON_IsString(x) && strcmp(x->valuestring, "deployer") == 0) {
            ag->fee_payer_deployer = 1;
            if (cs__item(j, "deployer") == NULL)
                cs__err(c, p, "\"deployer\" needs %s.deployer to name the paying deployer", path);
        } else {
            cs__err(c, p, "must be \"self\" or \"deployer\"");
        }
    }
    const cJSON *pj = cs__item(j, "params");
    cs__pkey(p, path, "params");
    if (ag->ops) {
        ag->params = malloc((ag->ops->n_params ? ag->ops->n_params : 1) * sizeof *ag->params);
        if (ag->params == NULL) {
            c->oom = 1;
            return;
        }
        if (cs__agent_params(c, pj, p, ag->ops, ag->params, &ag->dists) != 0) ok = 0;
    } else if (pj) {
        cs__want_obj(c, pj, p); /* its keys cannot be checked without a valid kind */
    }
    /* Value-aware fee behaviour: on by default except for default_gba,
     * which stays the literal spec estimator, and spammer, an attacker
     * whose storm ignores prices (agents/README.md, DESIGN-NOTES N44). */
    ag->pol.value_aware = ag->ops != NULL && ag->ops->kind != CS_AK_DEFAULT_GBA && ag->ops->kind != CS_AK_SPAMMER;
    ag->pol.patience = CS__DEF_PATIENCE;
    x = cs__item(j, "value_aware");
    cs__pkey(p, path, "value_aware");
    if (x) {
        if (!cJSON_IsBool(x)) cs__err(c, p, "must be true or false, got %s", cs__tname(x));
        else if (cJSON_IsTrue(x) && ag->ops != NULL && ag->ops->kind == CS_AK_SPAMMER)
            cs__err(c, p, "a spammer is an attacker: its storm ignores prices and its value is not what a fire "
                          "is worth to it (omit value_aware or set it false)");
        else ag->pol.value_aware = cJSON_IsTrue(x);
    }
    cs__agent_uint(c, j, path, "patience", 0, &ag->pol.patience);
    /* SYS opcodes on this agent's timers (CIP-1 rev §12, N55). */
    cs__agent_uint(c, j, path, "sys_cancel_after", 0, &ag->pol.sys_cancel_after);
    cs__agent_uint(c, j, path, "sys_extend_within", 0, &ag->pol.sys_extend_within);
    if (!cs__agent_uint(c, j, path, "sys_extend_by", 2, &ag->pol.sys_extend_by) && ag->pol.sys_extend_within > 0) {
        cs__pkey(p, path, "sys_extend_within");
        cs__err(c, p, "needs sys_extend_by: the blocks added to the TTL (>= 2)");
    }
    /* Deferred transactions its handlers create (CIP-5 §6.2, N67). */
    cs__agent_uint(c, j, path, "deferred_txs", 0, &ag->pol.deferred_txs);
    /* Who `run --harm` removes (DESIGN-NOTES N44): spammers and fragmenters
     * attack unless told otherwise, every other kind is honest. */
    ag->attacker = ag->ops != NULL && (ag->ops->kind == CS_AK_SPAMMER || ag->ops->kind == CS_AK_FRAGMENTER);
    x = cs__item(j, "role");
    cs__pkey(p, path, "role");
    if (x) {
        if (cJSON_IsString(x) && strcmp(x->valuestring, "attacker") == 0) ag->attacker = 1;
        else if (cJSON_IsString(x) && strcmp(x->valuestring, "honest") == 0) ag->attacker = 0;
        else cs__err(c, p, "must be \"honest\" or \"attacker\"");
    }
    x = cs__item(j, "strategy");
    cs__pkey(p, path, "strategy");
    if (x && cs__strategy_is_by(x)) cs__strategy_by(c, x, p, ag);
    else if (x) {
        ag->strat = calloc(1, sizeof *ag->strat);
        if (ag->strat == NULL) c->oom = 1;
        else cs__strategy(c, x, p, ag->ops, ag->strat);
    }
    x = cs__item(j, "enter_at");
    cs__pkey(p, path, "enter_at");
    uint64_t hi = c->blocks_ok ? c->s->blocks - 1 : CS__MAX_BLOCKS;
    if (x) {
        if (c->blocks_ok && cJSON_IsNumber(x) && isfinite(x->valuedouble) && x->valuedouble >= (double)c->s->blocks &&
            x->valuedouble == floor(x->valuedouble))
            cs__err(c, p, "must be < blocks (%llu), got %.15g", (unsigned long long)c->s->blocks, x->valuedouble);
        else
            cs__get_uint(c, x, p, 0, hi, &ag->enter_at);
    }
    x = cs__item(j, "exit_at");
    cs__pkey(p, path, "exit_at");
    if (x && cs__get_uint(c, x, p, 0, (uint64_t)CS__JSON_EXACT - 1, &ag->exit_at) == 0 && ag->exit_at != 0 &&
        ag->exit_at <= ag->enter_at)
        cs__err(c, p, "must be > enter_at (%llu), got %llu (0 = never exits)", (unsigned long long)ag->enter_at,
                (unsigned long long)ag->exit_at);
    if (!ok || ag->ops == NULL) return;
    /* Run-wide totals: actors this entry controls and their initial money. */
    uint32_t na = ag->ops->n_actors ? ag->ops->n_actors(ag->params) : 1;
    if (na == 0) na = 1;
    uint64_t actors = (uint64_t)ag->count * na;
    tot->actors += actors;
    cs_u128 b;
    if (cs_u128_mul(ag->balance, (cs_u128)actors, &b) != 0 || cs_u128_add(tot->balance, b, &tot->balance) != 0)
        tot->bal_overflow = 1;
}

/* agents: a list of 1..CS__MAX_AGENT_ENTRIES entries; run-wide limits on
 * the actor count (CS__MAX_ACTORS) and total initial balance (the ledger
 * sums it in a u128, DESIGN §2.6). */
void cs__agents(cs__ctx_t *c, const cJSON *j)
{
    if (!cJSON_IsArray(j)) {
        cs__err(c, "agents", "must be a list of agent entries, got %s", cs__tname(j));
        return;
    }
    size_t n = (size_t)cJSON_GetArraySize(j);
    if (n == 0 || n > CS__MAX_AGENT_ENTRIES) {
        cs__err(c, "agents", "must hold 1 to %d entries, got %zu", CS__MAX_AGENT_ENTRIES, n);
        return;
    }
    c->s->agents = calloc(n, sizeof *c->s->agents);
    if (c->s->agents == NULL) {
        c->oom = 1;
        return;
    }
    c->s->n_agents = n;
    c->agents_ok = 1;
    cs__agent_tot_t tot = {0, 0, 0};
    size_t i = 0;
    const cJSON *a;
    cJSON_ArrayForEach(a, j)
    {
        cs__agent(c, a, i, &c->s->agents[i], &tot);
        i++;
        if (c->oom) return;
    }
    if (tot.actors > CS__MAX_ACTORS)
        cs__err(c, "agents", "%llu actors in total exceed the limit of %llu", (unsigned long long)tot.actors,
                (unsigned long long)CS__MAX_ACTORS);
    if (tot.bal_overflow) cs__err(c, "agents", "the total initial balance of all actors exceeds 2^128-1");
}
