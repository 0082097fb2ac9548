/*
 * cs_scenario_set.c -- `--set PATH=VALUE` overrides: PATH is resolved
 * against the scenario format (every key must exist in it) and VALUE is
 * applied to the parsed JSON tree before validation, so an override is
 * checked like the file itself.
 */
#include "cs_scenario_int.h"
#include "cs_json_guard.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ --set */

/* Nodes of the format, for resolving --set paths. */
typedef enum cs__sn {
    CS__SN_LEAF, CS__SN_TOP, CS__SN_PARAMS, CS__SN_ENV, CS__SN_PROC, CS__SN_AGENTS, CS__SN_AGENT,
    CS__SN_APARAMS, CS__SN_EVENTS, CS__SN_EVENT, CS__SN_OUTPUT, CS__SN_FIRES
} cs__sn;

/* 1 if name is one of names[0..n). */
static int cs__in(const char *name, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return 1;
    return 0;
}

/* The node kind of key name under a node of kind k (ops: the agent kind
 * for CS__SN_APARAMS), or -1 if the format has no such key. */
static int cs__child_kind(int k, const char *name, const cs_agent_ops_t *ops)
{
    switch (k) {
    case CS__SN_TOP:
        if (strcmp(name, "params") == 0) return CS__SN_PARAMS;
        if (strcmp(name, "environment") == 0) return CS__SN_ENV;
        if (strcmp(name, "agents") == 0) return CS__SN_AGENTS;
        if (strcmp(name, "events") == 0) return CS__SN_EVENTS;
        if (strcmp(name, "output") == 0) return CS__SN_OUTPUT;
        return cs__in(name, cs__top_keys, CS__N(cs__top_keys)) ? CS__SN_LEAF : -1;
    case CS__SN_PARAMS:
        return cs_param_find(name) ? CS__SN_LEAF : -1;
    case CS__SN_ENV:
        return cs__in(name, cs__env_keys, CS__N(cs__env_keys)) ? CS__SN_PROC : -1;
    case CS__SN_PROC:
        return cs__in(name, cs__proc_keys, CS__N(cs__proc_keys)) ? CS__SN_LEAF : -1;
    case CS__SN_AGENT:
        if (strcmp(name, "params") == 0) return CS__SN_APARAMS;
        return cs__in(name, cs__agent_keys, CS__N(cs__agent_keys)) ? CS__SN_LEAF : -1;
    case CS__SN_APARAMS:
        for (size_t i = 0; ops && i < ops->n_params; i++)
            if (strcmp(ops->params[i].name, name) == 0) return CS__SN_LEAF;
        return -1;
    case CS__SN_EVENT:
        if (strcmp(name, "params") == 0) return CS__SN_PARAMS;
        return cs__in(name, cs__event_keys, CS__N(cs__event_keys)) ? CS__SN_LEAF : -1;
    case CS__SN_OUTPUT:
        if (strcmp(name, "fires") == 0) return CS__SN_FIRES;
        return cs__in(name, cs__output_keys, CS__N(cs__output_keys)) ? CS__SN_LEAF : -1;
    case CS__SN_FIRES:
        return cs__in(name, cs__fires_keys, CS__N(cs__fires_keys)) ? CS__SN_LEAF : -1;
    default:
        return -1;
    }
}

/* The value of --set: JSON if VALUE parses as one whole JSON value (a long
 * run of digits stays a string so a u64/u128 keeps every digit), else the
 * bare string.  NULL on allocation failure. */
static cJSON *cs__set_value(const char *v)
{
    size_t n = strlen(v), dig = 0;
    while (dig < n && v[dig] >= '0' && v[dig] <= '9') dig++;
    if (!(dig == n && n > 15)) {
        const char *end = NULL;
        cJSON *j = cJSON_ParseWithOpts(v, &end, 1);
        if (j) return j;
    }
    return cJSON_CreateString(v);
}

/*
 * Apply one "PATH=VALUE" to root.  PATH is keys joined by '.', with [i]
 * after "agents" or "events" (the entry must exist).  Every key must exist
 * in the format; missing objects on the way (params, environment, a
 * process, output, output.fires, agents[i].params) are created.  Returns
 * CS_OK, CS_EINVAL with a message in e, or CS_ENOMEM.
 */
int cs__apply_set(cJSON *root, const char *set, cs_errlist_t *e)
{
    char path[CS__MAX_SETS_PATH + 1], shown[80];
    const char *eq = strchr(set, '=');
    if (eq == NULL || eq == set) {
        cs_errlist_add(e, "--set %s: expected PATH=VALUE", cs__clean(set, shown, sizeof shown));
        return CS_EINVAL;
    }
    size_t pl = (size_t)(eq - set);
    if (pl > CS__MAX_SETS_PATH) {
        cs_errlist_add(e, "--set %s: PATH longer than %d bytes", cs__clean(set, shown, sizeof shown),
                       CS__MAX_SETS_PATH);
        return CS_EINVAL;
    }
    memcpy(path, set, pl);
    path[pl] = '\0';
    cs__clean(path, shown, sizeof shown);
    char nulmsg[160];
    if (cs_json_nul_check(eq + 1, strlen(eq + 1), nulmsg, sizeof nulmsg) != 0) {
        cs_errlist_add(e, "--set %s: VALUE has an %s", shown, nulmsg);
        return CS_EINVAL;
    }
    if (!cJSON_IsObject(root)) {
        cs_errlist_add(e, "--set %s: the scenario is not a JSON object", shown);
        return CS_EINVAL;
    }
    cJSON *cur = root;
    int kind = CS__SN_TOP;
    const cs_agent_ops_t *ops = NULL;
    char where[CS__PATH] = "";
    const char *p = path;
    for (;;) {
        char name[72];
        size_t nl = 0;
        while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_') {
            if (nl + 1 < sizeof name) name[nl++] = *p;
            p++;
        }
        name[nl] = '\0';
        int has_idx = 0;
        size_t idx = 0;
        if (*p == '[') {
            const char *q = p + 1;
            while (*q >= '0' && *q <= '9' && idx < 100000000) idx = idx * 10 + (size_t)(*q++ - '0');
            if (q == p + 1 || *q != ']') {
                cs_errlist_add(e, "--set %s: malformed index", shown);
                return CS_EINVAL;
            }
            has_idx = 1;
            p = q + 1;
        }
        if (nl == 0 || (*p != '\0' && *p != '.')) {
            cs_errlist_add(e, "--set %s: malformed PATH (keys joined by '.', with [i] after agents or events)", shown);
            return CS_EINVAL;
        }
        int last = *p == '\0';
        int ck = cs__child_kind(kind, name, ops);
        char here[CS__PATH];
        cs__pkey(here, where, name);
        if (ck < 0) {
            if (kind == CS__SN_APARAMS)
                cs_errlist_add(e, "--set %s: agent kind %s has no parameter '%s'", shown, ops ? ops->name : "?", name);
            else if (kind == CS__SN_PARAMS)
                cs_errlist_add(e, "--set %s: unknown parameter '%s'", shown, name);
            else
                cs_errlist_add(e, "--set %s: %s is not a key of the scenario format", shown, here);
            return CS_EINVAL;
        }
        if (has_idx != (ck == CS__SN_AGENTS || ck == CS__SN_EVENTS) && !(last && !has_idx)) {
            cs_errlist_add(e, "--set %s: %s", shown, has_idx ? "only agents and events take an [index]"
                                                              : "agents and events need an [index] here");
            return CS_EINVAL;
        }
        cJSON *child = cJSON_GetObjectItemCaseSensitive(cur, name);
        if (last && !has_idx) {
            cJSON *val = cs__set_value(eq + 1);
            if (val == NULL) return CS_ENOMEM;
            if (child) {
                /* (ReplaceItemInObject names the new item; ViaPointer would not.) */
                if (!cJSON_ReplaceItemInObjectCaseSensitive(cur, name, val)) {
                    cJSON_Delete(val);
                    return CS_ENOMEM;
                }
            } else if (!cJSON_AddItemToObject(cur, name, val)) {
                cJSON_Delete(val);
                return CS_ENOMEM;
            }
            return CS_OK;
        }
        if (has_idx) {
            if (!cJSON_IsArray(child) || idx >= (size_t)cJSON_GetArraySize(child)) {
                cs_errlist_add(e, "--set %s: %s[%zu] does not exist (%s has %d entries)", shown, here, idx, here,
                               cJSON_IsArray(child) ? cJSON_GetArraySize(child) : 0);
                return CS_EINVAL;
            }
            cJSON *item = cJSON_GetArrayItem(child, (int)idx);
            char hi[CS__PATH];
            cs__pidx(hi, here, idx);
            if (last) {
                cJSON *val = cs__set_value(eq + 1);
                if (val == NULL) return CS_ENOMEM;
                cJSON_ReplaceItemViaPointer(child, item, val);
                return CS_OK;
            }
            if (!cJSON_IsObject(item)) {
                cs_errlist_add(e, "--set %s: %s is not an object", shown, hi);
                return CS_EINVAL;
            }
            kind = ck == CS__SN_AGENTS ? CS__SN_AGENT : CS__SN_EVENT;
            cur = item;
            snprintf(where, sizeof where, "%s", hi);
            p++;
            continue;
        }
        if (ck == CS__SN_APARAMS) {
            const cJSON *k = cJSON_GetObjectItemCaseSensitive(cur, "kind");
            ops = cJSON_IsString(k) ? cs_agent_find(k->valuestring) : NULL;
            if (ops == NULL) {
                cs_errlist_add(e, "--set %s: %s.kind must name a known agent kind first", shown, where);
                return CS_EINVAL;
            }
        }
        if (child == NULL) {
            child = cJSON_CreateObject();
            if (child == NULL) return CS_ENOMEM;
            if (!cJSON_AddItemToObject(cur, name, child)) {
                cJSON_Delete(child);
                return CS_ENOMEM;
            }
        } else if (!cJSON_IsObject(child)) {
            cs_errlist_add(e, "--set %s: %s is %s, not an object", shown, here, cs__tname(child));
            return CS_EINVAL;
        }
        cur = child;
        kind = ck;
        snprintf(where, sizeof where, "%s", here);
        p++;
    }
}
