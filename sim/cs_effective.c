/*
 * cs_effective.c -- the effective scenario of one run (cs_effective.h).
 */
#include "cs_effective.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Replace (or add) key of object o with v; v is freed on failure.
 * Returns 0, or -1 when v is NULL or cJSON cannot add it. */
static int cs__put(cJSON *o, const char *key, cJSON *v)
{
    if (!v) return -1;
    int ok = cJSON_HasObjectItem(o, key) ? cJSON_ReplaceItemInObjectCaseSensitive(o, key, v)
                                         : cJSON_AddItemToObject(o, key, v);
    if (!ok) {
        cJSON_Delete(v);
        return -1;
    }
    return 0;
}

/* An exact unsigned integer (a JSON number written from its decimal text). */
static cJSON *cs__u64(uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%" PRIu64, v);
    return cJSON_CreateRaw(b);
}

/* A base-unit amount as a decimal string (the schema's u128 form). */
static cJSON *cs__u128(cs_u128 v)
{
    char b[48];
    return cJSON_CreateString(cs_u128_fmt(v, b));
}

/* The object at key of o, created (or replacing a non-object) when needed. */
static cJSON *cs__obj(cJSON *o, const char *key)
{
    cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsObject(x)) return x;
    x = cJSON_CreateObject();
    return cs__put(o, key, x) == 0 ? x : NULL;
}

/* Every core parameter of p into object o (core/cs_params.h kinds). */
static int cs__params(cJSON *o, const cs_params_t *p)
{
    for (size_t i = 0; i < cs_param_count; i++) {
        const cs_param_desc_t *d = &cs_param_table[i];
        const char *at = (const char *)p + d->offset;
        cJSON *v = NULL;
        if (d->kind == CS_PK_U128) {
            cs_u128 x;
            memcpy(&x, at, sizeof x);
            v = cs__u128(x);
        } else if (d->kind == CS_PK_ENUM) {
            uint32_t x;
            char buf[64];
            memcpy(&x, at, sizeof x);
            v = cJSON_CreateString(cs_param_choice_name(d, x, buf, sizeof buf));
        } else {
            uint64_t x;
            memcpy(&x, at, sizeof x);
            v = d->kind == CS_PK_FP ? cJSON_CreateNumber((double)x / (double)d->scale) : cs__u64(x);
        }
        if (cs__put(o, d->name, v) != 0) return -1;
    }
    return 0;
}

/* Environment process p as {type, value, ...}; a given object is kept (it
 * already holds everything a piecewise or random walk needs). */
static int cs__proc(cJSON *env, const char *key, const cs_proc_t *p)
{
    cJSON *x = cJSON_GetObjectItemCaseSensitive(env, key);
    if (cJSON_IsObject(x)) return 0;
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "type", "constant") || !cJSON_AddNumberToObject(o, "value", p->value)) {
        cJSON_Delete(o);
        return -1;
    }
    return cs__put(env, key, o);
}

/* agents[i] of the scenario into object o. */
static int cs__agent(cJSON *o, const cs_scn_agent_t *a)
{
    if (cs__put(o, "kind", cJSON_CreateString(a->ops->name)) != 0 || cs__put(o, "count", cs__u64(a->count)) != 0 ||
        cs__put(o, "balance", cs__u128(a->balance)) != 0 ||
        cs__put(o, "fee_payer", cJSON_CreateString(a->fee_payer_deployer ? "deployer" : "self")) != 0 ||
        cs__put(o, "enter_at", cs__u64(a->enter_at)) != 0 || cs__put(o, "exit_at", cs__u64(a->exit_at)) != 0 ||
        cs__put(o, "value_aware", cJSON_CreateBool(a->pol.value_aware)) != 0 ||
        cs__put(o, "patience", cs__u64(a->pol.patience)) != 0 ||
        cs__put(o, "sys_cancel_after", cs__u64(a->pol.sys_cancel_after)) != 0 ||
        cs__put(o, "sys_extend_within", cs__u64(a->pol.sys_extend_within)) != 0 ||
        cs__put(o, "deferred_txs", cs__u64(a->pol.deferred_txs)) != 0 ||
        (a->pol.sys_extend_by && cs__put(o, "sys_extend_by", cs__u64(a->pol.sys_extend_by)) != 0))
        return -1;
    if (a->deployer && cs__put(o, "deployer", cJSON_CreateString(a->deployer)) != 0) return -1;
    cJSON *pr = cs__obj(o, "params");
    if (!pr) return -1;
    for (size_t k = 0; k < a->ops->n_params; k++) {
        const char *name = a->ops->params[k].name;
        if (cJSON_HasObjectItem(pr, name)) continue; /* as given: a value or a distribution object */
        if (a->ops->params[k].word && a->params[k] == CS_AGENT_PARAM_WORD) {
            if (!cJSON_AddStringToObject(pr, name, a->ops->params[k].word)) return -1; /* the word it stands for */
        } else if (!cJSON_AddNumberToObject(pr, name, a->params[k])) {
            return -1;
        }
    }
    return 0;
}

char *cs_effective_json(const cs_scenario_t *s, const char *mechanism, uint64_t seed)
{
    cJSON *root = s->text ? cJSON_Parse(s->text) : NULL;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        root = cJSON_CreateObject();
    }
    char *out = NULL;
    cJSON *params = root ? cs__obj(root, "params") : NULL;
    cJSON *env = root ? cs__obj(root, "environment") : NULL;
    cJSON *outp = root ? cs__obj(root, "output") : NULL;
    cJSON *agents = root ? cJSON_GetObjectItemCaseSensitive(root, "agents") : NULL;
    if (!params || !env || !outp || !cJSON_IsArray(agents) || (size_t)cJSON_GetArraySize(agents) != s->n_agents)
        goto done;
    if (cs__put(root, "seed", cs__u64(seed)) != 0 || cs__put(root, "blocks", cs__u64(s->blocks)) != 0 ||
        cs__put(root, "mechanism", cJSON_CreateString(mechanism ? mechanism : "")) != 0 ||
        cs__params(params, &s->params) != 0 || cs__proc(env, "basefee_cycle", &s->basefee_cycle) != 0 ||
        cs__proc(env, "basefee_cell", &s->basefee_cell) != 0)
        goto done;
    for (size_t i = 0; i < s->n_agents; i++) {
        cJSON *a = cJSON_GetArrayItem(agents, (int)i);
        if (!cJSON_IsObject(a) || cs__agent(a, &s->agents[i]) != 0) goto done;
    }
    cJSON *fires = NULL;
    if (s->output.fires == CS_FIRES_SAMPLE) {
        fires = cJSON_CreateObject();
        if (fires && cs__put(fires, "sample", cs__u64(s->output.sample_every)) != 0) {
            cJSON_Delete(fires);
            fires = NULL;
        }
    } else {
        fires = cJSON_CreateString(s->output.fires == CS_FIRES_OFF ? "off" : "all");
    }
    if (cs__put(outp, "fires", fires) != 0 || cs__put(outp, "flush_every", cs__u64(s->output.flush_every)) != 0 ||
        cs__put(outp, "weights_every", cs__u64(s->output.weights_every)) != 0)
        goto done;
    out = cJSON_PrintUnformatted(root);
done:
    cJSON_Delete(root);
    return out;
}
