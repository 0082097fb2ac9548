/*
 * cs_sweep.c -- sweep files and their designs (DESIGN §5 CLI, §7): parse
 * and check a sweep JSON (the format is in cs_sweep.h), expand its grid or
 * Sobol design into points, and give each point's scenario and run id.
 * Running a sweep (worker processes, MPI ranks, resume, the summary file
 * sweep.h5) is the command layer's: cli/cs_cmd_sweep.c.
 */
#include "cs_sweep.h"
#include "cs_sweep_int.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_qrng.h>

#include "cs_json_guard.h"
#include "cs_metrics.h"

/* ------------------------------------------------------------ limits */

#define CS__SW_MAX_TEXT (16u << 20)   /* bytes of a sweep file */
#define CS__SW_MAX_SCN (64u << 20)    /* bytes of a base scenario file */
#define CS__SW_MAX_RUNS 1000000u      /* points x seeds */
#define CS__SW_MAX_PARAMS 40          /* swept paths (GSL's Sobol goes up to dimension 40) */
#define CS__SW_MAX_VALUES 100000u     /* values of one grid path */
#define CS__SW_MAX_SOBOL 1000000u     /* sobol.n */
#define CS__SW_MAX_PATH 256           /* a scenario path (as --set) */
#define CS__SW_MAX_NAME 128           /* sweep name */
#define CS__SW_MAX_STRCOL 256         /* width of a string parameter column */
#define CS__SW_JSON_EXACT 9007199254740992.0 /* 2^53: JSON integers from here on lose precision */

/* Columns of /runs that are not parameters or metrics. */
static const char *const cs__fixed_cols[] = {"run_id", "point", "seed", "mechanism"};

const char *const cs__sweep_metric_names[] = {
#define CS__SW_MNAME(name, doc) #name,
    CS_METRIC_MAP(CS__SW_MNAME)
#undef CS__SW_MNAME
};
_Static_assert(sizeof cs__sweep_metric_names / sizeof cs__sweep_metric_names[0] == CS_M__COUNT, "metric names");

/* ------------------------------------------------------------ the sweep */

/* strdup that reports failure as NULL (callers check). */
static char *cs__sdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Free the sweep and everything it owns.  NULL is a no-op. */
void cs_sweep_free(cs_sweep_t *sw)
{
    if (!sw) return;
    free(sw->name);
    free(sw->text);
    free(sw->base_text);
    for (size_t i = 0; i < sw->n_fixed; i++) free(sw->fixed[i]);
    free(sw->fixed);
    for (size_t i = 0; i < sw->n_mechs; i++) free(sw->mechs[i]);
    free(sw->seeds);
    for (size_t j = 0; j < sw->n_par; j++) {
        cs__sparam_t *p = &sw->par[j];
        free(p->path);
        for (size_t v = 0; v < p->n_values; v++) free(p->vtext[v]);
        free(p->vtext);
        free(p->vnum);
    }
    free(sw->par);
    free(sw->sob);
    free(sw);
}

/* Read a whole file of at most cap bytes into a NUL-terminated malloc'd
 * buffer.  Returns 0, or -1 with errno (EFBIG when larger than cap). */
static int cs__slurp(const char *path, size_t cap, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t n = 0, sz = 65536;
    char *b = malloc(sz + 1);
    if (!b) {
        fclose(f);
        errno = ENOMEM;
        return -1;
    }
    for (;;) {
        if (n == sz) {
            if (sz >= cap + 1) break;
            size_t nsz = sz * 2 > cap + 1 ? cap + 1 : sz * 2;
            char *nb = realloc(b, nsz + 1);
            if (!nb) {
                free(b);
                fclose(f);
                errno = ENOMEM;
                return -1;
            }
            b = nb;
            sz = nsz;
        }
        size_t got = fread(b + n, 1, sz - n, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        errno = EIO;
        return -1;
    }
    if (n > cap) {
        free(b);
        errno = EFBIG;
        return -1;
    }
    b[n] = '\0';
    *out = b;
    *len = n;
    return 0;
}

/* 1 if path is a plausible --set path: [A-Za-z0-9_.[]] only, 1..256 bytes.
 * The scenario loader checks the keys themselves. */
static int cs__path_ok(const char *p)
{
    size_t n = strlen(p);
    if (n == 0 || n > CS__SW_MAX_PATH) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '[' || c == ']'))
            return 0;
    }
    return 1;
}

/* The /runs column of a path: '.', '[' and ']' become '_', runs of '_'
 * collapse to one, a trailing '_' is dropped. */
static void cs__sanitise(const char *path, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; path[i] && o + 1 < cap; i++) {
        char c = path[i];
        if (c == '.' || c == '[' || c == ']') c = '_';
        if (c == '_' && o > 0 && out[o - 1] == '_') continue;
        out[o++] = c;
    }
    while (o > 0 && out[o - 1] == '_') o--;
    out[o] = '\0';
}

/* 1 if name is a fixed /runs column or a run-level metric. */
static int cs__reserved_col(const char *name)
{
    for (size_t i = 0; i < sizeof cs__fixed_cols / sizeof cs__fixed_cols[0]; i++)
        if (strcmp(name, cs__fixed_cols[i]) == 0) return 1;
    for (size_t i = 0; i < CS_M__COUNT; i++)
        if (strcmp(name, cs__sweep_metric_names[i]) == 0) return 1;
    return 0;
}

/* JSON text of x: an integer below 1e21 in full digits (so an integer
 * parameter gets an integer), else the shortest "%.*g" that reads back as
 * x (at most 17 digits). */
static void cs__fmt_double(double x, char *buf, size_t cap)
{
    if (x == floor(x) && fabs(x) < 1e21) {
        snprintf(buf, cap, "%.0f", x);
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, x);
        if (strtod(buf, NULL) == x) return;
    }
}

/* "set" keys, "grid"/"sobol.ranges" keys seen so far, for duplicate and
 * overlap checks (small lists, linear search). */
static int cs__dup_key(const cJSON *obj, const cJSON *item)
{
    for (const cJSON *o = obj->child; o && o != item; o = o->next)
        if (o->string && item->string && strcmp(o->string, item->string) == 0) return 1;
    return 0;
}

/* Add a swept path; returns the new entry or NULL on allocation failure. */
static cs__sparam_t *cs__add_param(cs_sweep_t *sw, const char *path)
{
    cs__sparam_t *np = realloc(sw->par, (sw->n_par + 1) * sizeof *np);
    if (!np) return NULL;
    sw->par = np;
    cs__sparam_t *p = &sw->par[sw->n_par];
    memset(p, 0, sizeof *p);
    p->path = cs__sdup(path);
    if (!p->path) return NULL;
    p->numeric = 1;
    sw->n_par++;
    return p;
}

/* Check a design path: syntax, not "seed"/"mechanism", not fixed in set. */
static void cs__check_design_path(const cJSON *root, const char *where, const char *path, cs_errlist_t *e)
{
    if (!cs__path_ok(path)) {
        cs_errlist_add(e, "%s.%s: not a scenario path (keys joined by '.', [i] after agents or events, at most %d bytes)",
                       where, path, CS__SW_MAX_PATH);
        return;
    }
    if (strcmp(path, "seed") == 0)
        cs_errlist_add(e, "%s.seed: vary the seed with \"seeds\", not as a design path", where);
    else if (strcmp(path, "mechanism") == 0)
        cs_errlist_add(e, "%s.mechanism: every run runs all mechanisms; list them in \"mechanisms\"", where);
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(root, "set");
    if (cJSON_IsObject(set) && cJSON_GetObjectItemCaseSensitive(set, path))
        cs_errlist_add(e, "%s.%s: also fixed in set.%s; a path is either fixed or swept", where, path, path);
}

/* Parse "grid": {PATH: [values]}. */
static void cs__parse_grid(cs_sweep_t *sw, const cJSON *root, const cJSON *g, cs_errlist_t *e, int *oom)
{
    if (!cJSON_IsObject(g)) {
        cs_errlist_add(e, "grid: must be an object {PATH: [values]}");
        return;
    }
    if (!g->child) {
        cs_errlist_add(e, "grid: must name at least one path");
        return;
    }
    size_t n = 0;
    for (const cJSON *it = g->child; it; it = it->next) n++;
    if (n > CS__SW_MAX_PARAMS) {
        cs_errlist_add(e, "grid: %zu paths, at most %d", n, CS__SW_MAX_PARAMS);
        return;
    }
    for (const cJSON *it = g->child; it && !*oom; it = it->next) {
        const char *path = it->string;
        if (cs__dup_key(g, it)) {
            cs_errlist_add(e, "grid.%s: duplicate path", path);
            continue;
        }
        cs__check_design_path(root, "grid", path, e);
        if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) == 0) {
            cs_errlist_add(e, "grid.%s: must be a non-empty list of values", path);
            continue;
        }
        size_t nv = (size_t)cJSON_GetArraySize(it);
        if (nv > CS__SW_MAX_VALUES) {
            cs_errlist_add(e, "grid.%s: %zu values, at most %u", path, nv, CS__SW_MAX_VALUES);
            continue;
        }
        cs__sparam_t *p = cs__add_param(sw, path);
        if (!p || !(p->vtext = calloc(nv, sizeof *p->vtext)) || !(p->vnum = calloc(nv, sizeof *p->vnum))) {
            *oom = 1;
            return;
        }
        size_t i = 0;
        for (const cJSON *v = it->child; v; v = v->next, i++) {
            if (cJSON_IsNull(v)) cs_errlist_add(e, "grid.%s[%zu]: null is not a value", path, i);
            if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
                cs_errlist_add(e, "grid.%s[%zu]: must be finite", path, i);
            char *t;
            if (cJSON_IsNumber(v)) {
                char buf[40];
                cs__fmt_double(v->valuedouble, buf, sizeof buf);
                t = cs__sdup(buf);
            } else {
                t = cJSON_PrintUnformatted(v);
            }
            if (!t) {
                *oom = 1;
                return;
            }
            p->vtext[i] = t;
            p->n_values = i + 1;
            if (cJSON_IsNumber(v)) p->vnum[i] = v->valuedouble;
            else if (cJSON_IsBool(v)) p->vnum[i] = cJSON_IsTrue(v) ? 1.0 : 0.0;
            else {
                p->vnum[i] = (double)NAN;
                p->numeric = 0;
            }
            for (size_t k = 0; k < i; k++)
                if (strcmp(p->vtext[k], t) == 0) {
                    cs_errlist_add(e, "grid.%s[%zu]: duplicate of grid.%s[%zu]", path, i, path, k);
                    break;
                }
        }
        if (!p->numeric) {
            /* String column: a string value's characters, other JSON as text. */
            size_t w = 1;
            for (size_t k = 0; k < nv; k++) {
                size_t l = strlen(p->vtext[k]) + 1;
                if (l > w) w = l;
            }
            if (w > CS__SW_MAX_STRCOL) w = CS__SW_MAX_STRCOL;
            p->width = w;
        }
    }
}

/* Parse "sobol": {"n", "ranges", "integer"}. */
static void cs__parse_sobol(cs_sweep_t *sw, const cJSON *root, const cJSON *s, cs_errlist_t *e, int *oom)
{
    if (!cJSON_IsObject(s)) {
        cs_errlist_add(e, "sobol: must be an object {\"n\", \"ranges\", \"integer\"}");
        return;
    }
    for (const cJSON *it = s->child; it; it = it->next)
        if (strcmp(it->string, "n") != 0 && strcmp(it->string, "ranges") != 0 && strcmp(it->string, "integer") != 0)
            cs_errlist_add(e, "sobol.%s: unknown key (valid: n, ranges, integer)", it->string);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(s, "n");
    if (!n) cs_errlist_add(e, "sobol.n: required");
    else if (!cJSON_IsNumber(n) || n->valuedouble != floor(n->valuedouble) || n->valuedouble < 1 ||
             n->valuedouble > CS__SW_MAX_SOBOL)
        cs_errlist_add(e, "sobol.n: must be an integer in [1, %u]", CS__SW_MAX_SOBOL);
    else sw->n_points = (size_t)n->valuedouble;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(s, "ranges");
    if (!r) {
        cs_errlist_add(e, "sobol.ranges: required");
        return;
    }
    if (!cJSON_IsObject(r) || !r->child) {
        cs_errlist_add(e, "sobol.ranges: must be a non-empty object {PATH: [lo, hi]}");
        return;
    }
    size_t d = 0;
    for (const cJSON *it = r->child; it; it = it->next) d++;
    if (d > CS__SW_MAX_PARAMS) {
        cs_errlist_add(e, "sobol.ranges: %zu paths, at most %d (gsl_qrng_sobol's largest dimension)", d,
                       CS__SW_MAX_PARAMS);
        return;
    }
    for (const cJSON *it = r->child; it; it = it->next) {
        const char *path = it->string;
        if (cs__dup_key(r, it)) {
            cs_errlist_add(e, "sobol.ranges.%s: duplicate path", path);
            continue;
        }
        cs__check_design_path(root, "sobol.ranges", path, e);
        const cJSON *lo = cJSON_GetArrayItem(it, 0), *hi = cJSON_GetArrayItem(it, 1);
        if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2 || !cJSON_IsNumber(lo) || !cJSON_IsNumber(hi) ||
            !isfinite(lo->valuedouble) || !isfinite(hi->valuedouble)) {
            cs_errlist_add(e, "sobol.ranges.%s: must be [lo, hi], two finite numbers", path);
            continue;
        }
        if (!(lo->valuedouble < hi->valuedouble)) {
            cs_errlist_add(e, "sobol.ranges.%s: lo must be < hi, got [%g, %g]", path, lo->valuedouble,
                           hi->valuedouble);
            continue;
        }
        cs__sparam_t *p = cs__add_param(sw, path);
        if (!p) {
            *oom = 1;
            return;
        }
        p->lo = lo->valuedouble;
        p->hi = hi->valuedouble;
    }
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(s, "integer");
    if (in) {
        if (!cJSON_IsArray(in)) {
            cs_errlist_add(e, "sobol.integer: must be a list of paths named in sobol.ranges");
        } else {
            size_t i = 0;
            for (const cJSON *it = in->child; it; it = it->next, i++) {
                if (!cJSON_IsString(it)) {
                    cs_errlist_add(e, "sobol.integer[%zu]: must be a path (string)", i);
                    continue;
                }
                cs__sparam_t *p = NULL;
                for (size_t j = 0; j < sw->n_par; j++)
                    if (strcmp(sw->par[j].path, it->valuestring) == 0) p = &sw->par[j];
                if (!p) {
                    if (!cJSON_GetObjectItemCaseSensitive(r, it->valuestring))
                        cs_errlist_add(e, "sobol.integer[%zu]: %s is not a path of sobol.ranges", i,
                                       it->valuestring);
                    continue;
                }
                if (p->integer) {
                    cs_errlist_add(e, "sobol.integer[%zu]: %s listed twice", i, it->valuestring);
                    continue;
                }
                if (p->lo != floor(p->lo) || p->hi != floor(p->hi) || fabs(p->lo) >= CS__SW_JSON_EXACT ||
                    fabs(p->hi) >= CS__SW_JSON_EXACT)
                    cs_errlist_add(e, "sobol.ranges.%s: an integer path needs integer bounds, got [%g, %g]",
                                   it->valuestring, p->lo, p->hi);
                p->integer = 1;
            }
        }
    }
}

/* Scale the unit Sobol coordinate u to path p's range. */
static double cs__sobol_scale(const cs__sparam_t *p, double u)
{
    if (p->integer) {
        /* Each integer of [lo, hi] covers an equal share of [0, 1). */
        double v = floor(p->lo + u * (p->hi - p->lo + 1.0));
        return v > p->hi ? p->hi : v;
    }
    return p->lo + u * (p->hi - p->lo);
}

/* Fill sw->sob with the first n_points Sobol points (gsl_qrng_sobol of
 * dimension n_par), scaled.  Returns 0 or -1 (allocation). */
static int cs__sobol_points(cs_sweep_t *sw)
{
    sw->sob = malloc(sw->n_points * sw->n_par * sizeof *sw->sob);
    double *u = malloc(sw->n_par * sizeof *u);
    gsl_qrng *q = gsl_qrng_alloc(gsl_qrng_sobol, (unsigned)sw->n_par);
    if (!sw->sob || !u || !q) {
        free(u);
        if (q) gsl_qrng_free(q);
        return -1;
    }
    for (size_t i = 0; i < sw->n_points; i++) {
        gsl_qrng_get(q, u);
        for (size_t j = 0; j < sw->n_par; j++) sw->sob[i * sw->n_par + j] = cs__sobol_scale(&sw->par[j], u[j]);
    }
    gsl_qrng_free(q);
    free(u);
    return 0;
}

/* Parse "seeds". */
static void cs__parse_seeds(cs_sweep_t *sw, const cJSON *s, cs_errlist_t *e, int *oom)
{
    if (cJSON_IsArray(s)) {
        size_t n = (size_t)cJSON_GetArraySize(s);
        if (n == 0 || n > CS__SW_MAX_RUNS) {
            cs_errlist_add(e, "seeds: must list 1 to %u seeds", CS__SW_MAX_RUNS);
            return;
        }
        if (!(sw->seeds = calloc(n, sizeof *sw->seeds))) {
            *oom = 1;
            return;
        }
        size_t i = 0;
        for (const cJSON *it = s->child; it; it = it->next, i++) {
            if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) || it->valuedouble < 0 ||
                it->valuedouble >= CS__SW_JSON_EXACT) {
                cs_errlist_add(e, "seeds[%zu]: must be an integer in [0, 2^53 - 1] (a JSON number of 2^53 or more loses its last digits)", i);
                continue;
            }
            sw->seeds[i] = (uint64_t)it->valuedouble;
            for (size_t k = 0; k < i; k++)
                if (sw->seeds[k] == sw->seeds[i] && cJSON_IsNumber(cJSON_GetArrayItem(s, (int)k))) {
                    cs_errlist_add(e, "seeds[%zu]: duplicate of seeds[%zu] (%llu)", i, k,
                                   (unsigned long long)sw->seeds[i]);
                    break;
                }
        }
        sw->n_seeds = n;
        return;
    }
    if (cJSON_IsObject(s)) {
        for (const cJSON *it = s->child; it; it = it->next)
            if (strcmp(it->string, "count") != 0 && strcmp(it->string, "start") != 0)
                cs_errlist_add(e, "seeds.%s: unknown key (valid: count, start)", it->string);
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(s, "count");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(s, "start");
        double start = 1;
        int ok = 1;
        if (!c || !cJSON_IsNumber(c) || c->valuedouble != floor(c->valuedouble) || c->valuedouble < 1 ||
            c->valuedouble > CS__SW_MAX_RUNS) {
            cs_errlist_add(e, "seeds.count: %s", c ? "must be an integer in [1, 1000000]" : "required");
            ok = 0;
        }
        if (st && (!cJSON_IsNumber(st) || st->valuedouble != floor(st->valuedouble) || st->valuedouble < 0 ||
                   st->valuedouble >= CS__SW_JSON_EXACT)) {
            cs_errlist_add(e, "seeds.start: must be an integer in [0, 2^53 - 1] (a JSON number of 2^53 or more loses its last digits)");
            ok = 0;
        } else if (st) {
            start = st->valuedouble;
        }
        if (!ok) return;
        size_t n = (size_t)c->valuedouble;
        if (!(sw->seeds = calloc(n, sizeof *sw->seeds))) {
            *oom = 1;
            return;
        }
        for (size_t i = 0; i < n; i++) sw->seeds[i] = (uint64_t)start + i;
        sw->n_seeds = n;
        return;
    }
    cs_errlist_add(e, "seeds: must be a list of integers or {\"count\": N, \"start\": S}");
}

/* Parse "mechanisms". */
static void cs__parse_mechs(cs_sweep_t *sw, const cJSON *m, cs_errlist_t *e, int *oom)
{
    if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) == 0 || cJSON_GetArraySize(m) > CS_MAX_MECHS) {
        cs_errlist_add(e, "mechanisms: must be a list of 1 to %d mechanism names", CS_MAX_MECHS);
        return;
    }
    size_t i = 0;
    for (const cJSON *it = m->child; it; it = it->next, i++) {
        if (!cJSON_IsString(it)) {
            cs_errlist_add(e, "mechanisms[%zu]: must be a mechanism name (string)", i);
            continue;
        }
        if (!cs_mech_find(it->valuestring)) {
            char names[512];
            cs_errlist_add(e, "mechanisms[%zu]: unknown mechanism '%.64s' (%s)", i, it->valuestring,
                           cs_mech_unknown_hint(it->valuestring, names, sizeof names));
            continue;
        }
        /* Every registered name fits the /runs mechanism column
         * (CS__SW_MECH_W - 1 bytes): tests/test_sweep_errors.c checks the
         * registry, so a known name needs no length check here. */
        int dup = 0;
        for (size_t k = 0; k < sw->n_mechs; k++)
            if (strcmp(sw->mechs[k], it->valuestring) == 0) dup = 1;
        if (dup) {
            cs_errlist_add(e, "mechanisms[%zu]: '%s' listed twice", i, it->valuestring);
            continue;
        }
        if (!(sw->mechs[sw->n_mechs] = cs__sdup(it->valuestring))) {
            *oom = 1;
            return;
        }
        sw->n_mechs++;
    }
}

/* Column names of the swept paths: sanitise, avoid reserved names, and
 * reject two paths that map to one column. */
static void cs__columns(cs_sweep_t *sw, const char *where, cs_errlist_t *e)
{
    for (size_t j = 0; j < sw->n_par; j++) {
        cs__sparam_t *p = &sw->par[j];
        char c[264];
        cs__sanitise(p->path, c, sizeof c);
        if (cs__reserved_col(c)) snprintf(p->column, sizeof p->column, "param_%s", c);
        else snprintf(p->column, sizeof p->column, "%s", c);
        for (size_t k = 0; k < j; k++)
            if (strcmp(sw->par[k].column, p->column) == 0)
                cs_errlist_add(e, "%s.%s: /runs column '%s' is also the column of %s", where, p->path, p->column,
                               sw->par[k].path);
    }
}

/* Text of set value v as "PATH=VALUE" (VALUE: JSON). */
static char *cs__set_string(const char *path, const cJSON *v)
{
    char *t;
    char nb[40];
    if (cJSON_IsNumber(v)) {
        cs__fmt_double(v->valuedouble, nb, sizeof nb);
        t = nb;
    } else if (!(t = cJSON_PrintUnformatted(v))) {
        return NULL;
    }
    size_t n = strlen(path) + strlen(t) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s=%s", path, t);
    if (t != nb) free(t);
    return s;
}

/* Parse "base": a path (resolved against base_dir) or an inline object. */
static void cs__parse_base(cs_sweep_t *sw, const cJSON *b, const char *base_dir, cs_errlist_t *e, int *oom)
{
    if (cJSON_IsObject(b)) {
        if (!(sw->base_text = cJSON_PrintUnformatted(b))) *oom = 1;
        return;
    }
    if (!cJSON_IsString(b) || b->valuestring[0] == '\0') {
        cs_errlist_add(e, "base: must be a scenario file path (string) or an inline scenario object");
        return;
    }
    char path[8192];
    if (b->valuestring[0] == '/' || !base_dir || !base_dir[0])
        snprintf(path, sizeof path, "%s", b->valuestring);
    else
        snprintf(path, sizeof path, "%s/%s", base_dir, b->valuestring);
    size_t len;
    if (cs__slurp(path, CS__SW_MAX_SCN, &sw->base_text, &len) != 0) {
        if (errno == ENOMEM) *oom = 1;
        else if (errno == EFBIG) cs_errlist_add(e, "base: %s is larger than %u bytes", path, CS__SW_MAX_SCN);
        else cs_errlist_add(e, "base: cannot read %s: %s", path, strerror(errno));
    } else if (memchr(sw->base_text, '\0', len)) {
        cs_errlist_add(e, "base: %s contains a NUL byte", path);
    }
}

/* Load the base with the fixed overrides; take the default mechanisms and
 * seed from it.  Errors are prefixed "base: ". */
static int cs__check_base(cs_sweep_t *sw, cs_errlist_t *e)
{
    cs_errlist_t le = {0};
    cs_scenario_t *scn = NULL;
    int rc = cs_scenario_load(sw->base_text, strlen(sw->base_text), (const char *const *)sw->fixed, sw->n_fixed,
                              &scn, &le);
    for (size_t i = 0; i < le.n; i++) cs_errlist_add(e, "base: %s", le.msg[i]);
    cs_errlist_free(&le);
    if (rc != CS_OK) return rc;
    if (sw->n_mechs == 0) {
        for (size_t i = 0; i < scn->n_mechs && i < CS_MAX_MECHS; i++) {
            if (!(sw->mechs[i] = cs__sdup(scn->mechs[i]))) {
                cs_scenario_free(scn);
                return CS_ENOMEM;
            }
            sw->n_mechs = i + 1;
        }
    }
    if (sw->n_seeds == 0) {
        if (!(sw->seeds = malloc(sizeof *sw->seeds))) {
            cs_scenario_free(scn);
            return CS_ENOMEM;
        }
        sw->seeds[0] = scn->seed;
        sw->n_seeds = 1;
    }
    cs_scenario_free(scn);
    return CS_OK;
}

/*
 * Load the base with the fixed overrides and one swept value at a time
 * (every grid value; a Sobol range's lo and hi), so that a bad value is
 * reported once at its JSON path instead of once per design point.
 * Identical messages for one path are reported once.  Returns CS_OK,
 * CS_EINVAL or CS_ENOMEM.
 */
static int cs__check_values(const cs_sweep_t *sw, cs_errlist_t *e)
{
    size_t n0 = e->n, lost0 = e->lost;
    const char **sets = calloc(sw->n_fixed + 1, sizeof *sets);
    if (!sets) return CS_ENOMEM;
    for (size_t i = 0; i < sw->n_fixed; i++) sets[i] = sw->fixed[i];
    for (size_t j = 0; j < sw->n_par; j++) {
        const cs__sparam_t *p = &sw->par[j];
        size_t nv = sw->design == CS_SWEEP_GRID ? p->n_values : 2;
        cs_errlist_t seen = {0};
        for (size_t v = 0; v < nv; v++) {
            char vb[48], where[400];
            const char *val;
            if (sw->design == CS_SWEEP_GRID) {
                val = p->vtext[v];
                snprintf(where, sizeof where, "grid.%s[%zu] (%.64s)", p->path, v, val);
            } else {
                double x = v == 0 ? p->lo : p->hi;
                if (p->integer) snprintf(vb, sizeof vb, "%.0f", x);
                else cs__fmt_double(x, vb, sizeof vb);
                val = vb;
                snprintf(where, sizeof where, "sobol.ranges.%s (%s = %s)", p->path, v == 0 ? "lo" : "hi", vb);
            }
            size_t l = strlen(p->path) + strlen(val) + 2;
            char *one = malloc(l);
            if (!one) {
                cs_errlist_free(&seen);
                free(sets);
                return CS_ENOMEM;
            }
            snprintf(one, l, "%s=%s", p->path, val);
            sets[sw->n_fixed] = one;
            cs_errlist_t le = {0};
            cs_scenario_t *scn = NULL;
            int rc = cs_scenario_load(sw->base_text, strlen(sw->base_text), sets, sw->n_fixed + 1, &scn, &le);
            cs_scenario_free(scn);
            free(one);
            if (rc == CS_ENOMEM) {
                cs_errlist_free(&le);
                cs_errlist_free(&seen);
                free(sets);
                return CS_ENOMEM;
            }
            for (size_t i = 0; i < le.n; i++) {
                int dup = 0;
                for (size_t k = 0; k < seen.n && !dup; k++) dup = strcmp(seen.msg[k], le.msg[i]) == 0;
                if (dup) continue;
                cs_errlist_add(&seen, "%s", le.msg[i]);
                cs_errlist_add(e, "%s: %s", where, le.msg[i]);
            }
            cs_errlist_free(&le);
        }
        cs_errlist_free(&seen);
    }
    free(sets);
    return e->lost > lost0 ? CS_ENOMEM : e->n > n0 ? CS_EINVAL : CS_OK;
}

/* Parse and check a sweep file's text.  See cs_sweep.h. */
int cs_sweep_parse(const char *text, size_t len, const char *base_dir, cs_sweep_t **out, cs_errlist_t *errs)
{
    *out = NULL;
    size_t n0 = errs->n, lost0 = errs->lost;
    if (len > CS__SW_MAX_TEXT) {
        cs_errlist_add(errs, "$: %zu bytes exceed the limit of %u bytes", len, CS__SW_MAX_TEXT);
        return CS_EINVAL;
    }
    if (memchr(text, '\0', len)) {
        cs_errlist_add(errs, "$: NUL byte in the sweep file");
        return CS_EPARSE;
    }
    char nulmsg[160];
    if (cs_json_nul_check(text, len, nulmsg, sizeof nulmsg) != 0) {
        cs_errlist_add(errs, "$: %s", nulmsg);
        return CS_EPARSE;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        size_t off = end && end >= text && end <= text + len ? (size_t)(end - text) : 0, line = 1, col = 1;
        for (size_t i = 0; i < off; i++) {
            if (text[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        cs_errlist_add(errs, "$: malformed JSON at line %zu, column %zu", line, col);
        return CS_EPARSE;
    }
    if (!cJSON_IsObject(root)) {
        cs_errlist_add(errs, "$: a sweep file is a JSON object");
        cJSON_Delete(root);
        return CS_EPARSE;
    }
    if (!cJSON_GetObjectItemCaseSensitive(root, "base") && cJSON_GetObjectItemCaseSensitive(root, "agents")) {
        /* One clear message rather than an "unknown key" per scenario key. */
        cs_errlist_add(errs, "$: this is a scenario file (it has \"agents\" and no \"base\"), not a sweep file: "
                             "run it with `cowsim run`, or name it as the \"base\" of a sweep "
                             "(scenarios/sweep.schema.json)");
        cJSON_Delete(root);
        return CS_EPARSE;
    }
    cs_sweep_t *sw = calloc(1, sizeof *sw);
    int oom = sw == NULL;
    if (sw && !(sw->text = malloc(len + 1))) oom = 1;
    if (!oom) {
        memcpy(sw->text, text, len);
        sw->text[len] = '\0';
    }
    static const char *const keys[] = {"name", "description", "base", "set", "mechanisms", "seeds", "grid", "sobol"};
    for (const cJSON *it = root->child; it && !oom; it = it->next) {
        int known = 0;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (strcmp(it->string, keys[k]) == 0) known = 1;
        if (!known)
            cs_errlist_add(errs, "%s: unknown key (valid: name, description, base, set, mechanisms, seeds, grid, sobol)",
                           it->string);
        else if (cs__dup_key(root, it))
            cs_errlist_add(errs, "%s: given twice", it->string);
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (oom) {
    } else if (!name) {
        cs_errlist_add(errs, "name: required");
    } else if (!cJSON_IsString(name) || name->valuestring[0] == '\0' || strlen(name->valuestring) > CS__SW_MAX_NAME ||
               strchr(name->valuestring, '/')) {
        cs_errlist_add(errs, "name: must be a non-empty string of at most %d bytes without '/'", CS__SW_MAX_NAME);
    } else if (!(sw->name = cs__sdup(name->valuestring))) {
        oom = 1;
    }
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (desc && !cJSON_IsString(desc)) cs_errlist_add(errs, "description: must be a string");
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(root, "base");
    if (!oom) {
        if (!base) cs_errlist_add(errs, "base: required (a scenario file path or an inline scenario object)");
        else cs__parse_base(sw, base, base_dir, errs, &oom);
    }
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(root, "set");
    size_t n_set0 = errs->n;
    if (set && !oom) {
        if (!cJSON_IsObject(set)) {
            cs_errlist_add(errs, "set: must be an object {PATH: VALUE}");
        } else {
            size_t n = 0;
            for (const cJSON *it = set->child; it; it = it->next) n++;
            if (n > 0 && !(sw->fixed = calloc(n, sizeof *sw->fixed))) oom = 1;
            for (const cJSON *it = set->child; it && !oom; it = it->next) {
                if (cs__dup_key(set, it)) {
                    cs_errlist_add(errs, "set.%s: duplicate path", it->string);
                    continue;
                }
                if (!cs__path_ok(it->string)) {
                    cs_errlist_add(errs, "set.%s: not a scenario path (keys joined by '.', [i] after agents or events)",
                                   it->string);
                    continue;
                }
                if (cJSON_IsNull(it)) {
                    cs_errlist_add(errs, "set.%s: null is not a value", it->string);
                    continue;
                }
                if (strcmp(it->string, "seed") == 0) {
                    cs_errlist_add(errs, "set.seed: give the seeds in \"seeds\"");
                    continue;
                }
                if (!(sw->fixed[sw->n_fixed] = cs__set_string(it->string, it))) oom = 1;
                else sw->n_fixed++;
            }
        }
    }
    int set_ok = errs->n == n_set0;
    const cJSON *mechs = cJSON_GetObjectItemCaseSensitive(root, "mechanisms");
    if (mechs && !oom) cs__parse_mechs(sw, mechs, errs, &oom);
    const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(root, "seeds");
    if (seeds && !oom) cs__parse_seeds(sw, seeds, errs, &oom);
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(root, "grid");
    const cJSON *sobol = cJSON_GetObjectItemCaseSensitive(root, "sobol");
    if (grid && sobol) {
        cs_errlist_add(errs, "$: give either grid or sobol, not both");
    } else if (grid && !oom) {
        sw->design = CS_SWEEP_GRID;
        cs__parse_grid(sw, root, grid, errs, &oom);
        cs__columns(sw, "grid", errs);
    } else if (sobol && !oom) {
        sw->design = CS_SWEEP_SOBOL;
        cs__parse_sobol(sw, root, sobol, errs, &oom);
        cs__columns(sw, "sobol.ranges", errs);
    } else if (!oom) {
        sw->design = CS_SWEEP_SINGLE;
        sw->n_points = 1;
    }
    cJSON_Delete(root);
    int rc = CS_OK;
    /* The base with the fixed overrides, and then each swept value alone,
     * whenever they could be read: their errors come with the sweep file's. */
    if (!oom && sw->base_text && set_ok) {
        rc = cs__check_base(sw, errs);
        if (rc == CS_OK) rc = cs__check_values(sw, errs);
        if (rc == CS_ENOMEM) oom = 1;
    }
    rc = CS_OK;
    if (oom || errs->lost > lost0) rc = CS_ENOMEM; /* a lost message is an error not reported */
    else if (errs->n > n0) rc = CS_EINVAL;
    if (rc == CS_OK && sw->design == CS_SWEEP_GRID) {
        /* Points: the product of the value counts; the last path varies fastest. */
        size_t np = 1;
        for (size_t j = sw->n_par; j-- > 0;) {
            sw->par[j].stride = np;
            if (np > CS__SW_MAX_RUNS / sw->par[j].n_values) {
                np = CS__SW_MAX_RUNS + 1u;
                break;
            }
            np *= sw->par[j].n_values;
        }
        sw->n_points = np;
    }
    if (rc == CS_OK && (sw->n_points > CS__SW_MAX_RUNS || sw->n_points * sw->n_seeds > CS__SW_MAX_RUNS)) {
        cs_errlist_add(errs, "$: the design has more than %u runs (points x seeds)", CS__SW_MAX_RUNS);
        rc = CS_EINVAL;
    }
    if (rc == CS_OK && sw->n_mechs == 0) {
        cs_errlist_add(errs, "mechanisms: the base scenario names no mechanism");
        rc = CS_EINVAL;
    }
    if (rc == CS_OK && sw->design == CS_SWEEP_SOBOL && cs__sobol_points(sw) != 0) rc = CS_ENOMEM;
    if (rc != CS_OK) {
        cs_sweep_free(sw);
        return rc;
    }
    *out = sw;
    return CS_OK;
}

/* Read and parse a sweep file.  See cs_sweep.h. */
int cs_sweep_load(const char *path, cs_sweep_t **out, cs_errlist_t *errs)
{
    *out = NULL;
    char *text;
    size_t len;
    if (cs__slurp(path, CS__SW_MAX_TEXT, &text, &len) != 0) {
        if (errno == ENOMEM) return CS_ENOMEM;
        if (errno == EFBIG) {
            cs_errlist_add(errs, "$: larger than %u bytes", CS__SW_MAX_TEXT);
            return CS_EINVAL;
        }
        cs_errlist_add(errs, "cannot read: %s", strerror(errno));
        return CS_EIO;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir) dir[1] = '\0';
    else if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    int rc = cs_sweep_parse(text, len, dir, out, errs);
    free(text);
    return rc;
}

/* ------------------------------------------------------------ accessors */

const char *cs_sweep_name(const cs_sweep_t *sw) { return sw->name; }
const char *cs_sweep_text(const cs_sweep_t *sw) { return sw->text; }
const char *cs_sweep_base_text(const cs_sweep_t *sw) { return sw->base_text; }
cs_sweep_design cs_sweep_design_of(const cs_sweep_t *sw) { return sw->design; }
size_t cs_sweep_n_points(const cs_sweep_t *sw) { return sw->n_points; }
size_t cs_sweep_n_seeds(const cs_sweep_t *sw) { return sw->n_seeds; }
size_t cs_sweep_n_runs(const cs_sweep_t *sw) { return sw->n_points * sw->n_seeds; }
size_t cs_sweep_n_mechs(const cs_sweep_t *sw) { return sw->n_mechs; }
const char *cs_sweep_mech(const cs_sweep_t *sw, size_t i) { return i < sw->n_mechs ? sw->mechs[i] : NULL; }
uint64_t cs_sweep_seed(const cs_sweep_t *sw, size_t i) { return i < sw->n_seeds ? sw->seeds[i] : 0; }
size_t cs_sweep_n_params(const cs_sweep_t *sw) { return sw->n_par; }
const char *cs_sweep_param_path(const cs_sweep_t *sw, size_t j) { return j < sw->n_par ? sw->par[j].path : NULL; }
const char *cs_sweep_param_column(const cs_sweep_t *sw, size_t j) { return j < sw->n_par ? sw->par[j].column : NULL; }
int cs_sweep_param_numeric(const cs_sweep_t *sw, size_t j) { return j < sw->n_par ? sw->par[j].numeric : 0; }

/* Value of path j at point p (see cs_sweep.h). */
double cs_sweep_point_value(const cs_sweep_t *sw, size_t p, size_t j)
{
    if (p >= sw->n_points || j >= sw->n_par) return (double)NAN;
    if (sw->design == CS_SWEEP_SOBOL) return sw->sob[p * sw->n_par + j];
    const cs__sparam_t *q = &sw->par[j];
    return q->vnum[(p / q->stride) % q->n_values];
}

/* Text of path j at point p: the grid value's JSON (owned by the sweep) or
 * the Sobol value formatted into buf (at least 40 bytes). */
const char *cs__sweep_point_text(const cs_sweep_t *sw, size_t p, size_t j, char *buf, size_t cap)
{
    const cs__sparam_t *q = &sw->par[j];
    if (sw->design == CS_SWEEP_SOBOL) {
        double v = sw->sob[p * sw->n_par + j];
        if (q->integer) snprintf(buf, cap, "%.0f", v);
        else cs__fmt_double(v, buf, cap);
        return buf;
    }
    return q->vtext[(p / q->stride) % q->n_values];
}

/* See cs_sweep.h. */
const char *cs_sweep_point_text(const cs_sweep_t *sw, size_t p, size_t j, char *buf, size_t cap)
{
    if (p >= sw->n_points || j >= sw->n_par || !buf || cap < 40) return NULL;
    return cs__sweep_point_text(sw, p, j, buf, cap);
}

/* The override list of point p as malloc'd "PATH=VALUE" strings; *n set.
 * NULL on allocation failure.  Free with cs__sets_free. */
static char **cs__sets_alloc(const cs_sweep_t *sw, size_t p, size_t *n)
{
    size_t k = sw->n_fixed + sw->n_par;
    char **s = calloc(k ? k : 1, sizeof *s);
    if (!s) return NULL;
    for (size_t i = 0; i < sw->n_fixed; i++)
        if (!(s[i] = cs__sdup(sw->fixed[i]))) goto fail;
    for (size_t j = 0; j < sw->n_par; j++) {
        char buf[40];
        const char *t = cs__sweep_point_text(sw, p, j, buf, sizeof buf);
        size_t l = strlen(sw->par[j].path) + strlen(t) + 2;
        if (!(s[sw->n_fixed + j] = malloc(l))) goto fail;
        snprintf(s[sw->n_fixed + j], l, "%s=%s", sw->par[j].path, t);
    }
    *n = k;
    return s;
fail:
    for (size_t i = 0; i < k; i++) free(s[i]);
    free(s);
    return NULL;
}

static void cs__sets_free(char **s, size_t n)
{
    for (size_t i = 0; s && i < n; i++) free(s[i]);
    free(s);
}

/* Load point p's scenario with the given seed.  See cs_sweep.h. */
int cs_sweep_point_scenario(const cs_sweep_t *sw, size_t p, uint64_t seed, cs_scenario_t **out, cs_errlist_t *errs)
{
    *out = NULL;
    if (p >= sw->n_points) return CS_EINVAL;
    size_t n;
    char **sets = cs__sets_alloc(sw, p, &n);
    if (!sets) return CS_ENOMEM;
    int rc = cs_scenario_load(sw->base_text, strlen(sw->base_text), (const char *const *)sets, n, out, errs);
    cs__sets_free(sets, n);
    if (rc == CS_OK) (*out)->seed = seed;
    return rc;
}

/* "p=v, q=w" description of point p (cut to cap). */
static void cs__point_label(const cs_sweep_t *sw, size_t p, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t j = 0; j < sw->n_par && o + 1 < cap; j++) {
        char buf[40];
        int w = snprintf(out + o, cap - o, "%s%s=%s", j ? ", " : "", sw->par[j].path,
                         cs__sweep_point_text(sw, p, j, buf, sizeof buf));
        if (w < 0) break;
        o += (size_t)w;
    }
    if (o + 1 >= cap && cap > 4) memcpy(out + cap - 4, "...", 4);
}

/* Validate every point's scenario.  See cs_sweep.h. */
int cs_sweep_check(const cs_sweep_t *sw, cs_errlist_t *errs)
{
    size_t n0 = errs->n, lost0 = errs->lost;
    for (size_t p = 0; p < sw->n_points; p++) {
        cs_errlist_t le = {0};
        cs_scenario_t *scn = NULL;
        int rc = cs_sweep_point_scenario(sw, p, sw->seeds[0], &scn, &le);
        if (rc == CS_ENOMEM) {
            cs_errlist_free(&le);
            return CS_ENOMEM;
        }
        if (rc != CS_OK) {
            char label[256];
            cs__point_label(sw, p, label, sizeof label);
            for (size_t i = 0; i < le.n; i++) cs_errlist_add(errs, "point %zu (%s): %s", p, label, le.msg[i]);
            if (le.n == 0) cs_errlist_add(errs, "point %zu (%s): %s", p, label, cs_strerror(rc));
        }
        cs_errlist_free(&le);
        cs_scenario_free(scn);
    }
    return errs->lost > lost0 ? CS_ENOMEM : errs->n > n0 ? CS_EINVAL : CS_OK;
}

/* run_id of run r: "r" and r in at least four digits. */
char *cs_sweep_run_id(const cs_sweep_t *sw, size_t r, char *buf, size_t cap)
{
    (void)sw;
    snprintf(buf, cap, "r%04zu", r);
    return buf;
}
