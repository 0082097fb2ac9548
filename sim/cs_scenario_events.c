/*
 * cs_scenario_events.c -- validation of events[]: the event types and the
 * keys each takes, every entry checked in file order, then sorted stably
 * by height, with parameter changes applied and checked in that order
 * (DESIGN §5 "Scenario JSON").
 */
#include "cs_scenario_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ events */

/* Event types in cs_event_type order, with the keys each one takes. */
static const char *const cs__ek_params[] = {"at", "type", "params"};
static const char *const cs__ek_shock[] = {"at", "type", "mult", "duration", "kinds"};
static const char *const cs__ek_pause[] = {"at", "type", "duration"};
static const char *const cs__ek_actor[] = {"at", "type", "agent"};
static const char *const cs__ek_vol[] = {"at", "type", "mult", "duration"};
static const struct {
    const char *name;          /* "type" word */
    const char *const *keys;   /* keys allowed with it */
    size_t n;
} cs__ev_types[] = {
    {"params", cs__ek_params, CS__N(cs__ek_params)},
    {"demand_shock", cs__ek_shock, CS__N(cs__ek_shock)},
    {"lane_pause", cs__ek_pause, CS__N(cs__ek_pause)},
    {"actor_entry", cs__ek_actor, CS__N(cs__ek_actor)},
    {"actor_exit", cs__ek_actor, CS__N(cs__ek_actor)},
    {"volatility", cs__ek_vol, CS__N(cs__ek_vol)},
};
CS_STATIC_ASSERT(CS__N(cs__ev_types) == CS_EV_VOLATILITY + 1, "one row per cs_event_type");

/* An event before sorting: its fields and where it came from. */
typedef struct cs__ev {
    uint64_t at;            /* height */
    size_t idx;             /* position in events[] (stable tie-break, paths) */
    int type;               /* cs_event_type, -1 if invalid */
    double mult;            /* demand_shock / volatility */
    uint64_t duration;      /* demand_shock / volatility / lane_pause */
    uint32_t kinds_mask;    /* demand_shock kinds */
    uint32_t agent;         /* actor_entry / actor_exit */
    const cJSON *params;    /* params: the change, validated in height order */
} cs__ev_t;

/* Order events by (at, file position): a total order, so equal heights keep
 * the file's order (stable). */
static int cs__ev_cmp(const void *a, const void *b)
{
    const cs__ev_t *x = a, *y = b;
    if (x->at != y->at) return x->at < y->at ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

/* One events[i] entry into *ev (its params are checked later). */
static void cs__event(cs__ctx_t *c, const cJSON *j, size_t i, cs__ev_t *ev)
{
    char path[CS__PATH], p[CS__PATH], b1[80], list[600];
    cs__pidx(path, "events", i);
    ev->idx = i;
    ev->type = -1;
    ev->mult = 1.0;
    if (cs__want_obj(c, j, path) != 0) return;
    const cJSON *t = cs__item(j, "type");
    cs__pkey(p, path, "type");
    if (t == NULL) {
        cs__err(c, p, "required");
    } else {
        for (int k = 0; k < (int)CS__N(cs__ev_types); k++)
            if (cJSON_IsString(t) && strcmp(cs__ev_types[k].name, t->valuestring) == 0) ev->type = k;
        if (ev->type < 0) {
            if (cJSON_IsString(t))
                cs__err(c, p,
                        "must be one of: params, demand_shock, lane_pause, actor_entry, actor_exit, volatility; "
                        "got \"%s\"",
                        cs__clean(t->valuestring, b1, sizeof b1));
            else
                cs__err(c, p, "must be an event type name, got %s", cs__tname(t));
        }
    }
    if (ev->type < 0) {
        cs__keys(c, j, path, cs__event_keys, CS__N(cs__event_keys), 1, "");
    } else {
        char what[48];
        snprintf(what, sizeof what, " for type %s", cs__ev_types[ev->type].name);
        cs__keys(c, j, path, cs__ev_types[ev->type].keys, cs__ev_types[ev->type].n, 1, what);
    }
    const cJSON *x = cs__item(j, "at");
    cs__pkey(p, path, "at");
    if (x == NULL) {
        cs__err(c, p, "required");
    } else if (c->blocks_ok) {
        if (cJSON_IsNumber(x) && isfinite(x->valuedouble) && x->valuedouble == floor(x->valuedouble) &&
            x->valuedouble >= (double)c->s->blocks)
            cs__err(c, p, "must be < blocks (%llu), got %.15g", (unsigned long long)c->s->blocks, x->valuedouble);
        else
            cs__get_uint(c, x, p, 0, c->s->blocks - 1, &ev->at);
    } else {
        cs__get_uint(c, x, p, 0, CS__MAX_BLOCKS, &ev->at);
    }
    if (ev->type < 0) return;
    int ty = ev->type;
    if (ty == CS_EV_PARAMS) {
        ev->params = cs__item(j, "params");
        cs__pkey(p, path, "params");
        if (ev->params == NULL) cs__err(c, p, "required for type params");
    }
    if (ty == CS_EV_DEMAND_SHOCK || ty == CS_EV_VOLATILITY) {
        x = cs__item(j, "mult");
        cs__pkey(p, path, "mult");
        if (x == NULL) cs__err(c, p, "required for type %s", cs__ev_types[ty].name);
        else cs__get_real(c, x, p, 0, CS__MAX_MULT, &ev->mult);
    }
    if (ty == CS_EV_DEMAND_SHOCK || ty == CS_EV_VOLATILITY || ty == CS_EV_LANE_PAUSE) {
        x = cs__item(j, "duration");
        cs__pkey(p, path, "duration");
        if (x == NULL) cs__err(c, p, "required for type %s", cs__ev_types[ty].name);
        else cs__get_uint(c, x, p, 1, CS__MAX_WINDOW, &ev->duration);
    }
    if (ty == CS_EV_DEMAND_SHOCK && (x = cs__item(j, "kinds")) != NULL) {
        cs__pkey(p, path, "kinds");
        if (!cJSON_IsArray(x) || cJSON_GetArraySize(x) == 0) {
            cs__err(c, p, "must be a non-empty list of agent kinds, got %s", cs__tname(x));
        } else {
            size_t k = 0;
            const cJSON *kn;
            cJSON_ArrayForEach(kn, x)
            {
                char kp[CS__PATH];
                cs__pidx(kp, p, k++);
                const cs_agent_ops_t *o = cJSON_IsString(kn) ? cs_agent_find(kn->valuestring) : NULL;
                if (o == NULL) {
                    if (cJSON_IsString(kn))
                        cs__err(c, kp, "unknown agent kind \"%s\" (valid: %s)",
                                cs__clean(kn->valuestring, b1, sizeof b1), cs_agent_names(list, sizeof list));
                    else
                        cs__err(c, kp, "must be an agent kind name, got %s", cs__tname(kn));
                } else if (ev->kinds_mask & (1u << o->kind)) {
                    cs__err(c, kp, "duplicate kind \"%s\"", o->name);
                } else {
                    ev->kinds_mask |= 1u << o->kind;
                }
            }
        }
    }
    if (ty == CS_EV_ACTOR_ENTRY || ty == CS_EV_ACTOR_EXIT) {
        x = cs__item(j, "agent");
        cs__pkey(p, path, "agent");
        uint64_t a;
        if (x == NULL) {
            cs__err(c, p, "required for type %s (an index into agents)", cs__ev_types[ty].name);
        } else if (cs__get_uint(c, x, p, 0, CS__MAX_AGENT_ENTRIES, &a) == 0) {
            if (c->agents_ok && a >= c->s->n_agents)
                cs__err(c, p, "agents[%llu] does not exist (there are %zu agent entries)", (unsigned long long)a,
                        c->s->n_agents);
            else
                ev->agent = (uint32_t)a;
        }
    }
}

/* events: at most CS__MAX_EVENTS entries, sorted stably by at; parameter
 * changes accumulate in that order from the top-level params. */
void cs__events(cs__ctx_t *c, const cJSON *j)
{
    if (!cJSON_IsArray(j)) {
        cs__err(c, "events", "must be a list of events, got %s", cs__tname(j));
        return;
    }
    size_t n = (size_t)cJSON_GetArraySize(j);
    if (n > CS__MAX_EVENTS) {
        cs__err(c, "events", "must hold at most %d events, got %zu", CS__MAX_EVENTS, n);
        return;
    }
    if (n == 0) return;
    cs__ev_t *ev = calloc(n, sizeof *ev);
    if (ev == NULL) {
        c->oom = 1;
        return;
    }
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, j)
    {
        cs__event(c, e, i, &ev[i]);
        i++;
    }
    qsort(ev, n, sizeof *ev, cs__ev_cmp);
    cs_scenario_t *s = c->s;
    s->events = calloc(n, sizeof *s->events);
    if (s->events == NULL) {
        free(ev);
        c->oom = 1;
        return;
    }
    s->n_events = n;
    cs_params_t cur = s->params;
    for (i = 0; i < n; i++) {
        cs_scn_event_t *o = &s->events[i];
        if (ev[i].type == CS_EV_PARAMS && ev[i].params != NULL) {
            char path[CS__PATH], pp[CS__PATH];
            cs__pidx(path, "events", ev[i].idx);
            cs__pkey(pp, path, "params");
            size_t n0 = c->e->n;
            cs__params(c, ev[i].params, pp, &cur, 1);
            if (c->e->n == n0) cs__params_check(c, &cur, pp);
        }
        o->at = ev[i].at;
        o->type = ev[i].type < 0 ? CS_EV_PARAMS : (cs_event_type)ev[i].type;
        o->params = cur; /* PARAMS: the set after the change; others: the set in force */
        o->mult = ev[i].mult;
        o->duration = ev[i].duration;
        o->kinds_mask = ev[i].kinds_mask;
        o->agent = ev[i].agent;
    }
    free(ev);
}
