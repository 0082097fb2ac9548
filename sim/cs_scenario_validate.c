/*
 * cs_scenario_validate.c -- the scenario format and the walk over one
 * document: the key tables of every object, the top-level fields (name,
 * seed, seeds, blocks, mechanism), the environment processes and output;
 * cs__top walks the whole document and hands params, agents[] and
 * events[] to their own pieces (DESIGN §5 "Scenario JSON",
 * scenarios/schema.json).
 */
#include "cs_scenario_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_mech.h"

/* ------------------------------------------------------------ the format */

/* Environment process types, with the keys each one takes. */
static const char *const cs__pk_const[] = {"type", "value"};
static const char *const cs__pk_piece[] = {"type", "points", "value"};
static const char *const cs__pk_walk[] = {"type", "value", "sigma", "min", "max"};
static const struct {
    const char *name;          /* "type" word */
    const char *const *keys;   /* keys allowed with it */
    size_t n;
} cs__proc_types[] = {
    {"constant", cs__pk_const, CS__N(cs__pk_const)},
    {"piecewise", cs__pk_piece, CS__N(cs__pk_piece)},
    {"random_walk", cs__pk_walk, CS__N(cs__pk_walk)},
};

/* ------------------------------------------------------------ top-level fields */

/* name: a slug [A-Za-z0-9_-][A-Za-z0-9._-]{0,127}; it names results/<name>. */
static void cs__name(cs__ctx_t *c, const cJSON *j)
{
    const char *s;
    if (cs__get_str(c, j, "name", CS__MAX_NAME, &s) != 0) return;
    for (size_t i = 0; s[i]; i++) {
        char ch = s[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                 ch == '-' || (ch == '.' && i > 0);
        if (!ok) {
            cs__err(c, "name", "must use only letters, digits, '_', '-' and '.' (not first): it names the output directory");
            return;
        }
    }
    c->s->name = cs__dup(c, s);
}

/* Check one mechanism name; returns its registry entry or NULL. */
static const cs_mech_ops_t *cs__mech_one(cs__ctx_t *c, const cJSON *j, const char *path)
{
    char b1[80], list[512];
    if (!cJSON_IsString(j)) {
        cs__err(c, path, "must be a mechanism name, got %s", cs__tname(j));
        return NULL;
    }
    const cs_mech_ops_t *m = cs_mech_find(j->valuestring);
    if (m == NULL)
        cs__err(c, path, "unknown mechanism \"%s\" (%s)", cs__clean(j->valuestring, b1, sizeof b1),
                cs_mech_unknown_hint(j->valuestring, list, sizeof list));
    return m;
}

/* mechanism: a name or a list of 1..CS_MAX_MECHS distinct names. */
static void cs__mechanism(cs__ctx_t *c, const cJSON *j)
{
    cs_scenario_t *s = c->s;
    if (cJSON_IsString(j)) {
        const cs_mech_ops_t *m = cs__mech_one(c, j, "mechanism");
        if (m) s->mechs[s->n_mechs++] = m->name;
        return;
    }
    if (!cJSON_IsArray(j)) {
        cs__err(c, "mechanism", "must be a mechanism name or a list of names, got %s", cs__tname(j));
        return;
    }
    size_t n = (size_t)cJSON_GetArraySize(j);
    if (n == 0 || n > CS_MAX_MECHS) {
        cs__err(c, "mechanism", "must list 1 to %d mechanisms, got %zu", CS_MAX_MECHS, n);
        return;
    }
    size_t i = 0;
    const cJSON *ch;
    cJSON_ArrayForEach(ch, j)
    {
        char p[CS__PATH];
        cs__pidx(p, "mechanism", i++);
        const cs_mech_ops_t *m = cs__mech_one(c, ch, p);
        if (m == NULL) continue;
        size_t k = 0;
        while (k < s->n_mechs && strcmp(s->mechs[k], m->name) != 0) k++;
        if (k < s->n_mechs) cs__err(c, p, "duplicate mechanism \"%s\"", m->name);
        else s->mechs[s->n_mechs++] = m->name;
    }
}

/* ------------------------------------------------------------ environment */

/* Piecewise breakpoints: a list of 1..CS__MAX_POINTS [height, value]
 * pairs with strictly ascending integer heights. */
static void cs__points(cs__ctx_t *c, const cJSON *j, const char *path, cs_proc_t *p)
{
    if (!cJSON_IsArray(j)) {
        cs__err(c, path, "must be a list of [height, value] pairs, got %s", cs__tname(j));
        return;
    }
    size_t n = (size_t)cJSON_GetArraySize(j);
    if (n == 0 || n > CS__MAX_POINTS) {
        cs__err(c, path, "must hold 1 to %d points, got %zu", CS__MAX_POINTS, n);
        return;
    }
    p->at_h = malloc(n * sizeof *p->at_h);
    p->at_v = malloc(n * sizeof *p->at_v);
    if (!p->at_h || !p->at_v) {
        c->oom = 1;
        return;
    }
    size_t i = 0;
    int ok = 1;
    uint64_t prev = 0;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, j)
    {
        char pp[CS__PATH], ph[CS__PATH], pv[CS__PATH];
        cs__pidx(pp, path, i);
        if (!cJSON_IsArray(pt) || cJSON_GetArraySize(pt) != 2) {
            cs__err(c, pp, "must be a [height, value] pair, got %s", cs__tname(pt));
            ok = 0;
            i++;
            continue;
        }
        cs__pidx(ph, pp, 0);
        cs__pidx(pv, pp, 1);
        uint64_t h;
        double v;
        int okh = cs__get_uint(c, pt->child, ph, 0, CS__MAX_BLOCKS, &h) == 0;
        int okv = cs__get_real(c, pt->child->next, pv, 0, CS__MAX_FEE, &v) == 0;
        if (okh && i > 0 && h <= prev) {
            cs__err(c, ph, "heights must be strictly ascending (previous %llu, got %llu)", (unsigned long long)prev,
                    (unsigned long long)h);
            okh = 0;
        }
        if (okh) prev = h;
        if (okh && okv) {
            p->at_h[i] = (double)h;
            p->at_v[i] = v;
        } else {
            ok = 0;
        }
        i++;
    }
    if (ok) p->n_pts = n;
}

/*
 * One environment process (D13): a number (constant), or an object with
 * "type" constant {value}, piecewise {points, value = before the first
 * point}, or random_walk {value = start, sigma, min, max}.
 */
static void cs__proc(cs__ctx_t *c, const cJSON *j, const char *path, cs_proc_t *p)
{
    char cp[CS__PATH];
    if (cJSON_IsNumber(j)) {
        double v;
        if (cs__get_real(c, j, path, 0, CS__MAX_FEE, &v) == 0) p->value = v;
        return;
    }
    if (!cJSON_IsObject(j)) {
        cs__err(c, path, "must be a number or a process object, got %s", cs__tname(j));
        return;
    }
    const cJSON *t = cs__item(j, "type");
    int ty = -1;
    if (t == NULL) {
        cs__pkey(cp, path, "type");
        cs__err(c, cp, "required (constant, piecewise or random_walk)");
    } else if (cJSON_IsString(t)) {
        for (int k = 0; k < (int)CS__N(cs__proc_types); k++)
            if (strcmp(cs__proc_types[k].name, t->valuestring) == 0) ty = k;
    }
    if (t != NULL && ty < 0) {
        char b1[80];
        cs__pkey(cp, path, "type");
        if (cJSON_IsString(t))
            cs__err(c, cp, "must be one of: constant, piecewise, random_walk; got \"%s\"",
                    cs__clean(t->valuestring, b1, sizeof b1));
        else
            cs__err(c, cp, "must be one of: constant, piecewise, random_walk; got %s", cs__tname(t));
    }
    if (ty < 0) {
        cs__keys(c, j, path, cs__proc_keys, CS__N(cs__proc_keys), 1, "");
        return;
    }
    char what[48];
    snprintf(what, sizeof what, " for type %s", cs__proc_types[ty].name);
    cs__keys(c, j, path, cs__proc_types[ty].keys, cs__proc_types[ty].n, 1, what);
    p->type = (cs_proc_type)ty;
    const cJSON *v = cs__item(j, "value");
    cs__pkey(cp, path, "value");
    if (ty == CS_PROC_CONSTANT) {
        if (v == NULL) cs__err(c, cp, "required for type constant");
        else cs__get_real(c, v, cp, 0, CS__MAX_FEE, &p->value);
        return;
    }
    if (ty == CS_PROC_PIECEWISE) {
        const cJSON *pts = cs__item(j, "points");
        char pp[CS__PATH];
        cs__pkey(pp, path, "points");
        if (pts == NULL) cs__err(c, pp, "required for type piecewise");
        else cs__points(c, pts, pp, p);
        if (v != NULL) cs__get_real(c, v, cp, 0, CS__MAX_FEE, &p->value);
        else if (p->n_pts > 0) p->value = p->at_v[0];
        return;
    }
    /* random_walk */
    int okv = 0, okb = 1;
    if (v == NULL) cs__err(c, cp, "required for type random_walk (the start value)");
    else okv = cs__get_real(c, v, cp, 0, CS__MAX_FEE, &p->value) == 0;
    const cJSON *sg = cs__item(j, "sigma");
    char sp[CS__PATH];
    cs__pkey(sp, path, "sigma");
    if (sg == NULL) cs__err(c, sp, "required for type random_walk");
    else cs__get_real(c, sg, sp, 0, 1, &p->sigma);
    p->min = 0;
    p->max = CS__MAX_FEE;
    const cJSON *mn = cs__item(j, "min"), *mx = cs__item(j, "max");
    char mp[CS__PATH], xp[CS__PATH];
    cs__pkey(mp, path, "min");
    cs__pkey(xp, path, "max");
    if (mn && cs__get_real(c, mn, mp, 0, CS__MAX_FEE, &p->min) != 0) okb = 0;
    if (mx && cs__get_real(c, mx, xp, 0, CS__MAX_FEE, &p->max) != 0) okb = 0;
    char b1[48], b2[48];
    if (okb && p->min > p->max) {
        cs__err(c, mp, "must be <= max (%s), got %s", cs__fmtd(p->max, b1, sizeof b1), cs__fmtd(p->min, b2, sizeof b2));
        okb = 0;
    }
    if (okb && okv && (p->value < p->min || p->value > p->max))
        cs__err(c, cp, "the start must lie in [min, max] = [%s, %s]", cs__fmtd(p->min, b1, sizeof b1),
                cs__fmtd(p->max, b2, sizeof b2));
}

/* environment: {basefee_cycle, basefee_cell}. */
static void cs__environment(cs__ctx_t *c, const cJSON *j)
{
    if (cs__want_obj(c, j, "environment") != 0) return;
    cs__keys(c, j, "environment", cs__env_keys, CS__N(cs__env_keys), 1, "");
    const cJSON *b = cs__item(j, "basefee_cycle");
    if (b) cs__proc(c, b, "environment.basefee_cycle", &c->s->basefee_cycle);
    b = cs__item(j, "basefee_cell");
    if (b) cs__proc(c, b, "environment.basefee_cell", &c->s->basefee_cell);
}

/* ------------------------------------------------------------ output */

/* output: {fires: "all" | "off" | {"sample": N}, flush_every, weights_every, dir}. */
static void cs__output(cs__ctx_t *c, const cJSON *j)
{
    cs_scn_output_t *o = &c->s->output;
    if (cs__want_obj(c, j, "output") != 0) return;
    cs__keys(c, j, "output", cs__output_keys, CS__N(cs__output_keys), 1, "");
    const cJSON *f = cs__item(j, "fires");
    uint64_t v;
    if (f != NULL) {
        if (cJSON_IsString(f) && strcmp(f->valuestring, "all") == 0) {
            o->fires = CS_FIRES_ALL;
        } else if (cJSON_IsString(f) && strcmp(f->valuestring, "off") == 0) {
            o->fires = CS_FIRES_OFF;
        } else if (cJSON_IsObject(f)) {
            cs__keys(c, f, "output.fires", cs__fires_keys, CS__N(cs__fires_keys), 1, "");
            const cJSON *sm = cs__item(f, "sample");
            if (sm == NULL) {
                cs__err(c, "output.fires.sample", "required (keep 1 in N fires)");
            } else if (cs__get_uint(c, sm, "output.fires.sample", 1, CS__MAX_WINDOW, &v) == 0) {
                o->fires = CS_FIRES_SAMPLE;
                o->sample_every = (uint32_t)v;
            }
        } else {
            cs__err(c, "output.fires", "must be \"all\", \"off\" or {\"sample\": N}");
        }
    }
    const cJSON *x = cs__item(j, "flush_every");
    if (x && cs__get_uint(c, x, "output.flush_every", 1, CS__MAX_WINDOW, &v) == 0) o->flush_every = v;
    x = cs__item(j, "weights_every");
    if (x && cs__get_uint(c, x, "output.weights_every", 1, CS__MAX_WINDOW, &v) == 0) o->weights_every = v;
    x = cs__item(j, "dir");
    const char *d;
    if (x && cs__get_str(c, x, "output.dir", CS__MAX_DIR, &d) == 0) o->dir = cs__dup(c, d);
}

/* ------------------------------------------------------------ top level */

/* "seeds": a count N (the seeds seed, seed + 1, ..., seed + N - 1: see
 * cs_scenario_seed) or a list of distinct u64 seeds, at most CS_MAX_SEEDS.
 * `cowsim run` runs every mechanism once per seed (cli/cs_cmd_run.c). */
static void cs__seeds(cs__ctx_t *c, const cJSON *j, cs_scenario_t *s)
{
    uint64_t n;
    if (cJSON_IsNumber(j)) {
        if (cs__get_uint(c, j, "seeds", 1, CS_MAX_SEEDS, &n) == 0) s->n_seeds = (size_t)n;
        return;
    }
    int m = cJSON_IsArray(j) ? cJSON_GetArraySize(j) : -1;
    if (m < 1 || m > CS_MAX_SEEDS) {
        cs__err(c, "seeds", "must be a seed count in [1, %d] or a list of 1 to %d seeds, got %s", CS_MAX_SEEDS,
                CS_MAX_SEEDS, m < 0 ? cs__tname(j) : "a list of that length");
        return;
    }
    s->seed_list = calloc((size_t)m, sizeof *s->seed_list);
    if (s->seed_list == NULL) {
        c->oom = 1;
        return;
    }
    for (int i = 0; i < m; i++) {
        char p[32];
        snprintf(p, sizeof p, "seeds[%d]", i);
        if (cs__get_u64s(c, cJSON_GetArrayItem(j, i), p, &s->seed_list[i]) != 0) continue;
        for (int k = 0; k < i; k++)
            if (s->seed_list[k] == s->seed_list[i]) {
                cs__err(c, p, "repeats seeds[%d] (%llu): seeds must be distinct", k,
                        (unsigned long long)s->seed_list[i]);
                break;
            }
    }
    s->n_seeds = (size_t)m;
}

/* Validate the whole document into c->s (defaults already in place). */
void cs__top(cs__ctx_t *c, const cJSON *root)
{
    cs_scenario_t *s = c->s;
    if (!cJSON_IsObject(root)) {
        cs__err(c, "", "a scenario must be a JSON object, got %s", cs__tname(root));
        return;
    }
    if (cs__item(root, "base") && !cs__item(root, "agents")) {
        /* One clear message rather than an "unknown key" per sweep key. */
        cs__err(c, "", "this is a sweep file (it has \"base\" and no \"agents\"), not a scenario: run it with "
                       "`cowsim sweep`");
        return;
    }
    cs__keys(c, root, "", cs__top_keys, CS__N(cs__top_keys), 1, "");
    static const char *const required[] = {"name", "blocks", "mechanism", "agents"};
    for (size_t i = 0; i < CS__N(required); i++)
        if (cs__item(root, required[i]) == NULL) cs__err(c, required[i], "required");
    const cJSON *x;
    if ((x = cs__item(root, "name")) != NULL) cs__name(c, x);
    if ((x = cs__item(root, "description")) != NULL && !cJSON_IsString(x))
        cs__err(c, "description", "must be a string, got %s", cs__tname(x));
    if ((x = cs__item(root, "seed")) != NULL) cs__get_u64s(c, x, "seed", &s->seed);
    if ((x = cs__item(root, "seeds")) != NULL) cs__seeds(c, x, s);
    if (s->n_seeds > 1 && !s->seed_list && s->seed > UINT64_MAX - (s->n_seeds - 1))
        cs__err(c, "seeds", "%zu seeds from seed %llu would pass 2^64 - 1 (and wrap to 0)", s->n_seeds,
                (unsigned long long)s->seed);
    if ((x = cs__item(root, "blocks")) != NULL)
        c->blocks_ok = cs__get_uint(c, x, "blocks", 1, CS__MAX_BLOCKS, &s->blocks) == 0;
    if ((x = cs__item(root, "mechanism")) != NULL) cs__mechanism(c, x);
    if ((x = cs__item(root, "params")) != NULL) {
        size_t n0 = c->e->n;
        cs__params(c, x, "params", &s->params, 0);
        if (c->e->n == n0) cs__params_check(c, &s->params, "params");
    }
    if ((x = cs__item(root, "environment")) != NULL) cs__environment(c, x);
    if (c->oom) return;
    if ((x = cs__item(root, "agents")) != NULL) cs__agents(c, x);
    if (c->oom) return;
    if ((x = cs__item(root, "events")) != NULL) cs__events(c, x);
    if ((x = cs__item(root, "output")) != NULL) cs__output(c, x);
}
