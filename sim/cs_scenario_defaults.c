/*
 * cs_scenario_defaults.c -- defaults and effective values of a scenario:
 * the defaults the validation walk starts from, the value of an
 * environment process at a height, the seed of run i and an agent's
 * strategy under a mechanism, and the table-generated $defs of the schema.
 *
 * The format is documented in scenarios/schema.json; the parts of that
 * schema that come from tables (parameters, mechanisms, agent kinds and
 * their parameters) are printed by `cowsim validate --print-schema-defs`,
 * and tests/test_scenario.c fails when the two drift apart.
 */
#include "cs_scenario_int.h"

#include <stdio.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "cs_mech.h"

/* ------------------------------------------------------------ defaults */

/* Fill the defaults that the walk overwrites. */
void cs__defaults(cs_scenario_t *s)
{
    cs_params_default(&s->params);
    s->basefee_cycle.type = CS_PROC_CONSTANT;
    s->basefee_cycle.value = CS__DEF_BASEFEE;
    s->basefee_cell.type = CS_PROC_CONSTANT;
    s->basefee_cell.value = CS__DEF_BASEFEE;
    s->output.fires = CS_FIRES_ALL;
    s->output.sample_every = 1;
    s->output.flush_every = CS__DEF_FLUSH;
    s->output.weights_every = CS__DEF_WEIGHTS;
}

/* ------------------------------------------------------------ processes */

/*
 * Value at height h (DESIGN D13).  constant: value.  piecewise: the value
 * of the last breakpoint at or below h (value before the first).
 * random_walk: a multiplicative walk x' = clip(x * (1 + sigma * N(0,1)),
 * min, max); the caller keeps the state in *walk_state, which this sets to
 * the start value at h == 0, and calls once per height in increasing
 * order with its own generator r (one gaussian draw per call with h > 0).
 * With walk_state or r NULL the start value is returned.
 */
double cs_proc_value(const cs_proc_t *p, uint64_t h, double *walk_state, gsl_rng *r)
{
    switch (p->type) {
    case CS_PROC_CONSTANT:
        return p->value;
    case CS_PROC_PIECEWISE: {
        double hh = (double)h;
        if (p->n_pts == 0 || hh < p->at_h[0]) return p->value;
        size_t lo = 0, hi = p->n_pts; /* invariant: at_h[lo] <= h, at_h[hi] > h (hi = n: none) */
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (p->at_h[mid] <= hh) lo = mid;
            else hi = mid;
        }
        return p->at_v[lo];
    }
    case CS_PROC_WALK: {
        if (walk_state == NULL || r == NULL) return p->value;
        if (h == 0) {
            *walk_state = p->value;
            return p->value;
        }
        double x = *walk_state * (1.0 + gsl_ran_gaussian(r, p->sigma));
        if (x < p->min) x = p->min;
        if (x > p->max) x = p->max;
        *walk_state = x;
        return x;
    }
    }
    return p->value;
}

/* ------------------------------------------------------------ seeds and strategies */

uint64_t cs_scenario_seed(const cs_scenario_t *s, size_t i)
{
    return s->seed_list ? s->seed_list[i] : s->seed + i;
}

const cs_strategy_t *cs_scn_agent_strategy(const cs_scn_agent_t *sa, const char *mech)
{
    for (size_t i = 0; i < sa->n_strat_by; i++)
        if (strcmp(sa->strat_mech[i], mech) == 0) return &sa->strat_by[i];
    return sa->strat;
}

/* ------------------------------------------------------------ schema defs */

/* The JSON Schema of one cs_param_table row (draft 2020-12). */
static cJSON *cs__schema_param(const cs_param_desc_t *d)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL) return NULL;
    char doc[400];
    switch (d->kind) {
    case CS_PK_U64:
        cJSON_AddStringToObject(o, "type", "integer");
        cJSON_AddNumberToObject(o, "minimum", (double)d->min);
        cJSON_AddNumberToObject(o, "maximum", (double)d->max);
        cJSON_AddNumberToObject(o, "default", (double)d->def);
        snprintf(doc, sizeof doc, "%s", d->doc);
        break;
    case CS_PK_FP:
        cJSON_AddStringToObject(o, "type", "number");
        cJSON_AddNumberToObject(o, "minimum", (double)d->min / (double)d->scale);
        cJSON_AddNumberToObject(o, "maximum", (double)d->max / (double)d->scale);
        cJSON_AddNumberToObject(o, "default", (double)d->def / (double)d->scale);
        snprintf(doc, sizeof doc, "%s; stored as round(x * %llu)", d->doc, (unsigned long long)d->scale);
        break;
    case CS_PK_U128:
        cJSON_AddStringToObject(o, "$ref", "#/$defs/u128");
        cJSON_AddNumberToObject(o, "default", (double)d->def);
        snprintf(doc, sizeof doc, "%s; base units", d->doc);
        break;
    case CS_PK_ENUM: {
        cJSON *en = cJSON_AddArrayToObject(o, "enum");
        char w[64];
        for (uint32_t i = 0; en; i++) {
            cs_param_choice_name(d, i, w, sizeof w);
            if (w[0] == '\0') break;
            cJSON_AddItemToArray(en, cJSON_CreateString(w));
        }
        cJSON_AddStringToObject(o, "default", cs_param_choice_name(d, (uint32_t)d->def, w, sizeof w));
        snprintf(doc, sizeof doc, "%s", d->doc);
        break;
    }
    }
    cJSON_AddStringToObject(o, "description", doc);
    return o;
}

/*
 * The generated part of scenarios/schema.json's $defs, as one object:
 * params, mechanism_name, agent_kind, agent_params_by_kind and one
 * agent_params_<kind> per registered kind.  Caller frees with cJSON_Delete.
 */
cJSON *cs__schema_defs(void)
{
    cJSON *defs = cJSON_CreateObject();
    if (defs == NULL) return NULL;
    cJSON *pr = cJSON_AddObjectToObject(defs, "params");
    if (pr) {
        cJSON_AddStringToObject(pr, "description",
                                "Scheduler parameters (core/cs_params.h); every key optional, defaults shown");
        cJSON_AddStringToObject(pr, "type", "object");
        cJSON_AddBoolToObject(pr, "additionalProperties", 0);
        cJSON *props = cJSON_AddObjectToObject(pr, "properties");
        for (size_t i = 0; props && i < cs_param_count; i++)
            cJSON_AddItemToObject(props, cs_param_table[i].name, cs__schema_param(&cs_param_table[i]));
    }
    cJSON *mn = cJSON_AddObjectToObject(defs, "mechanism_name");
    cJSON *me = mn ? cJSON_AddArrayToObject(mn, "enum") : NULL;
    for (size_t i = 0; me && cs_mech_registry[i] != NULL; i++)
        cJSON_AddItemToArray(me, cJSON_CreateString(cs_mech_registry[i]->name));
    cJSON *ak = cJSON_AddObjectToObject(defs, "agent_kind");
    cJSON *ae = ak ? cJSON_AddArrayToObject(ak, "enum") : NULL;
    cJSON *by = cJSON_AddObjectToObject(defs, "agent_params_by_kind");
    cJSON *all = by ? cJSON_AddArrayToObject(by, "allOf") : NULL;
    for (int k = 0; k < CS_AK__COUNT; k++) {
        const cs_agent_ops_t *o = cs_agent_find(cs_agent_kind_names[k]);
        if (o == NULL) continue;
        if (ae) cJSON_AddItemToArray(ae, cJSON_CreateString(o->name));
        char dn[96], ref[120];
        snprintf(dn, sizeof dn, "agent_params_%s", o->name);
        snprintf(ref, sizeof ref, "#/$defs/%s", dn);
        cJSON *ap = cJSON_AddObjectToObject(defs, dn);
        if (ap) {
            char desc[160];
            snprintf(desc, sizeof desc, "agents[i].params for kind %s (see agents/README.md)", o->name);
            cJSON_AddStringToObject(ap, "description", desc);
            cJSON_AddStringToObject(ap, "type", "object");
            cJSON_AddBoolToObject(ap, "additionalProperties", 0);
            cJSON *props = cJSON_AddObjectToObject(ap, "properties");
            for (size_t i = 0; props && i < o->n_params; i++) {
                cJSON *q = cJSON_CreateObject();
                if (q == NULL) continue;
                cJSON *num = q;
                const cs_agent_param_t *pa = &o->params[i];
                if (pa->word) {
                    /* A number, or the parameter's word (cs_agent_param_t). */
                    cJSON *any = cJSON_AddArrayToObject(q, "anyOf");
                    num = cJSON_CreateObject();
                    cJSON *wd = cJSON_CreateObject();
                    if (wd) cJSON_AddStringToObject(wd, "const", pa->word);
                    if (any && num) cJSON_AddItemToArray(any, num);
                    if (any && wd) cJSON_AddItemToArray(any, wd);
                    if (num == NULL) num = q;
                } else if (cs_agent_param_dist(o, i)) {
                    /* A number, or a distribution object (agents/README.md). */
                    cJSON *any = cJSON_AddArrayToObject(q, "anyOf");
                    num = cJSON_CreateObject();
                    cJSON *dr = cJSON_CreateObject();
                    if (dr) cJSON_AddStringToObject(dr, "$ref", "#/$defs/dist");
                    if (any && num) cJSON_AddItemToArray(any, num);
                    if (any && dr) cJSON_AddItemToArray(any, dr);
                    if (num == NULL) num = q;
                }
                cJSON_AddStringToObject(num, "type", "number");
                cJSON_AddNumberToObject(num, "minimum", o->params[i].min);
                cJSON_AddNumberToObject(num, "maximum", o->params[i].max);
                if (pa->word && pa->def == CS_AGENT_PARAM_WORD) cJSON_AddStringToObject(q, "default", pa->word);
                else cJSON_AddNumberToObject(q, "default", pa->def);
                cJSON_AddStringToObject(q, "description", o->params[i].doc ? o->params[i].doc : "");
                cJSON_AddItemToObject(props, o->params[i].name, q);
            }
        }
        cJSON *branch = cJSON_CreateObject();
        if (branch && all) {
            cJSON *ifo = cJSON_AddObjectToObject(branch, "if");
            cJSON *ip = ifo ? cJSON_AddObjectToObject(ifo, "properties") : NULL;
            cJSON *ik = ip ? cJSON_AddObjectToObject(ip, "kind") : NULL;
            if (ik) cJSON_AddStringToObject(ik, "const", o->name);
            if (ifo) {
                cJSON *rq = cJSON_AddArrayToObject(ifo, "required");
                if (rq) cJSON_AddItemToArray(rq, cJSON_CreateString("kind"));
            }
            cJSON *th = cJSON_AddObjectToObject(branch, "then");
            cJSON *tp = th ? cJSON_AddObjectToObject(th, "properties") : NULL;
            cJSON *tpp = tp ? cJSON_AddObjectToObject(tp, "params") : NULL;
            if (tpp) cJSON_AddStringToObject(tpp, "$ref", ref);
            cJSON_AddItemToArray(all, branch);
        } else {
            cJSON_Delete(branch);
        }
    }
    return defs;
}
