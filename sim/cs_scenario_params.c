/*
 * cs_scenario_params.c -- the scenario's "params" object (and a params
 * event's): each core parameter read against its descriptor (core/
 * cs_params.h) with its JSON path in every error, then the checks across
 * parameters.  Used by the top-level walk (cs_scenario_validate.c) and by
 * the events (cs_scenario_events.c).
 */
#include "cs_scenario_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_mech.h"

/* Parameters fixed for a whole run: the queue geometry (cs_sched_set_params
 * refuses to change it), the fairness window and the basefee window (their
 * rings are sized once), and when parameter changes take effect. */
static const char *const cs__fixed_params[] = {"ring_size",      "epoch_blocks", "epochs", "fairness_window",
                                               "basefee_window", "param_changes", "activation_height"};

/* The exact decimal value of v / scale (scale a power of ten), trailing
 * zeros dropped: cs__fmtfix(1, 1000000) = "0.000001". */
static const char *cs__fmtfix(uint64_t v, uint64_t scale, char *buf, size_t cap)
{
    if (scale <= 1) {
        snprintf(buf, cap, "%llu", (unsigned long long)v);
        return buf;
    }
    int digits = 0;
    for (uint64_t s = scale; s > 1; s /= 10) digits++;
    uint64_t ip = v / scale, fp = v % scale;
    if (fp == 0) {
        snprintf(buf, cap, "%llu", (unsigned long long)ip);
        return buf;
    }
    char frac[24];
    size_t fl = (size_t)CS_MIN(digits, 20);
    frac[fl] = '\0';
    for (size_t k = fl; k > 0; k--) {
        frac[k - 1] = (char)('0' + (int)(fp % 10));
        fp /= 10;
    }
    while (fl > 0 && frac[fl - 1] == '0') frac[--fl] = '\0';
    snprintf(buf, cap, "%llu.%s", (unsigned long long)ip, frac);
    return buf;
}

/*
 * One parameter value per its cs_param_table row (core/cs_params.h):
 * U64 an integer in [min, max]; FP a real x stored as round(x * scale),
 * which must land in [min, max] (the limits are reported in real units);
 * U128 an amount (number or decimal string); ENUM one of the choice words.
 */
static void cs__param_value(cs__ctx_t *c, const cJSON *j, const char *path, const cs_param_desc_t *d, cs_params_t *p)
{
    char *f = (char *)p + d->offset;
    char b1[48], b2[48], b3[48];
    switch (d->kind) {
    case CS_PK_U64: {
        uint64_t v;
        if (cs__get_uint(c, j, path, d->min, d->max, &v) == 0) memcpy(f, &v, sizeof v);
        break;
    }
    case CS_PK_FP: {
        if (!cJSON_IsNumber(j)) {
            cs__err(c, path, "must be a number, got %s", cs__tname(j));
            break;
        }
        double x = j->valuedouble;
        if (!isfinite(x)) {
            cs__err(c, path, "must be a finite number (the literal overflows a double)");
            break;
        }
        double sx = x * (double)d->scale;
        double r = round(sx);
        if (!(r >= (double)d->min && r <= (double)d->max)) {
            cs__err(c, path, "must be in [%s, %s], got %s", cs__fmtfix(d->min, d->scale, b1, sizeof b1),
                    cs__fmtfix(d->max, d->scale, b2, sizeof b2), cs__fmtd(x, b3, sizeof b3));
            break;
        }
        uint64_t v = (uint64_t)r;
        memcpy(f, &v, sizeof v);
        break;
    }
    case CS_PK_U128: {
        cs_u128 v;
        if (cs__get_u128(c, j, path, d->min, d->max, &v) == 0) memcpy(f, &v, sizeof v);
        break;
    }
    case CS_PK_ENUM: {
        int k = cJSON_IsString(j) ? cs_param_choice(d, j->valuestring) : -1;
        if (k < 0) {
            char list[256];
            size_t n = 0;
            for (const char *s = d->choices; *s && n + 3 < sizeof list; s++) {
                if (*s == '|') {
                    list[n++] = ',';
                    list[n++] = ' ';
                } else {
                    list[n++] = *s;
                }
            }
            list[n] = '\0';
            if (cJSON_IsString(j))
                cs__err(c, path, "must be one of: %s; got \"%s\"", list, cs__clean(j->valuestring, b1, sizeof b1));
            else
                cs__err(c, path, "must be one of: %s; got %s", list, cs__tname(j));
            break;
        }
        uint32_t v = (uint32_t)k;
        memcpy(f, &v, sizeof v);
        break;
    }
    }
}

/*
 * A "params" object: every key a cs_param_table name, each value applied
 * on top of *p.  In an event (in_event), the run-fixed parameters are
 * refused and at least one parameter must be given.
 */
void cs__params(cs__ctx_t *c, const cJSON *obj, const char *path, cs_params_t *p, int in_event)
{
    if (cs__want_obj(c, obj, path) != 0) return;
    const char **names = malloc(cs_param_count * sizeof *names);
    if (names == NULL) {
        c->oom = 1;
        return;
    }
    for (size_t i = 0; i < cs_param_count; i++) names[i] = cs_param_table[i].name;
    cs__keys(c, obj, path, names, cs_param_count, 0, "");
    free(names);
    if (in_event && obj->child == NULL) cs__err(c, path, "must change at least one parameter");
    const cJSON *ch;
    cJSON_ArrayForEach(ch, obj)
    {
        const cs_param_desc_t *d = cs_param_find(ch->string);
        if (d == NULL || !cs__first(obj, ch)) continue;
        char cp[CS__PATH];
        cs__pkey(cp, path, ch->string);
        if (in_event) {
            size_t k = 0;
            while (k < CS__N(cs__fixed_params) && strcmp(cs__fixed_params[k], d->name) != 0) k++;
            if (k < CS__N(cs__fixed_params)) {
                cs__err(c, cp, "cannot change during a run (fixed when the scheduler is built)");
                continue;
            }
        }
        cs__param_value(c, ch, cp, d, p);
    }
}

/*
 * Cross-parameter consistency of a complete parameter set, reported at
 * path (the "params" object that produced it).
 */
void cs__params_check(cs__ctx_t *c, const cs_params_t *p, const char *path)
{
    char b1[48], b2[48], b3[48];
    /* CIP-1 rev §8: W = clip(..., w_min, w_max) needs w_min <= w_max. */
    if (p->w_min > p->w_max)
        cs__err(c, path, "w_min (%s) must be <= w_max (%s)", cs__fmtfix(p->w_min, CS_PPM, b1, sizeof b1),
                cs__fmtfix(p->w_max, CS_PPM, b2, sizeof b2));
    /* CIP-1 first draft §3: the gba-tip weight clamp [weight_min, weight_max]. */
    if (p->weight_min > p->weight_max)
        cs__err(c, path, "weight_min (%s) must be <= weight_max (%s)", cs__fmtfix(p->weight_min, CS_PPM, b1, sizeof b1),
                cs__fmtfix(p->weight_max, CS_PPM, b2, sizeof b2));
    /* CIP-5 §9.3: lambda is bounded; the control loop keeps it in [lambda_min, lambda_max]. */
    if (p->lambda_min > p->lambda_max)
        cs__err(c, path, "lambda_min (%s) must be <= lambda_max (%s)", cs__fmtfix(p->lambda_min, CS_PPB, b1, sizeof b1),
                cs__fmtfix(p->lambda_max, CS_PPB, b2, sizeof b2));
    else if (p->lambda < p->lambda_min || p->lambda > p->lambda_max)
        cs__err(c, path, "lambda (%s) must be in [lambda_min, lambda_max] = [%s, %s]",
                cs__fmtfix(p->lambda, CS_PPB, b3, sizeof b3), cs__fmtfix(p->lambda_min, CS_PPB, b1, sizeof b1),
                cs__fmtfix(p->lambda_max, CS_PPB, b2, sizeof b2));
    /* CIP-1 rev §5: the update divides by the target utilisation. */
    if (p->target_utilisation == 0) cs__err(c, path, "target_utilisation must be > 0");
    /* The lane basefee never goes below its floor, so it cannot start there either. */
    if (p->lane_basefee_initial < p->lane_basefee_min)
        cs__err(c, path, "lane_basefee_initial (%s) must be >= lane_basefee_min (%s)",
                cs_u128_fmt(p->lane_basefee_initial, b1), cs_u128_fmt(p->lane_basefee_min, b2));
    /* CIP-1 §2: a tier needs at least one bucket / block / epoch. */
    if (p->ring_size < 1 || p->epoch_blocks < 1 || p->epochs < 1)
        cs__err(c, path, "ring_size, epoch_blocks and epochs must all be >= 1");
    if (p->fairness_window < 1) cs__err(c, path, "fairness_window must be >= 1");
    /* N85: a GC lane shared with the timer lane destroys a timer only when
     * its cost fits in LANE_TIMER_CYCLES (CIP-1 rev §9 gives GC its own lane). */
    if (p->gc_lane == CS_GC_SHARED && p->gc_cycles_per_timer > p->lane_timer_cycles)
        cs__err(c, path,
                "gc_cycles_per_timer (%llu) must be <= lane_timer_cycles (%llu) when gc_lane is \"shared\": "
                "GC takes its cycles from the timer lane, so a larger cost never destroys a timer",
                (unsigned long long)p->gc_cycles_per_timer, (unsigned long long)p->lane_timer_cycles);
}
