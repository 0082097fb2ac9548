/*
 * cs_check.c -- regression checks of a run against a stored baseline
 * (DESIGN §5, §2.9; analysis/README.md "Baselines"):
 *
 *   cowsim check --baseline BASELINE.json RUN.h5 [--greedy GREEDY.h5]
 *   cowsim check --bless BASELINE.json RUN.h5 [--abs X] [--rel X]
 *                [--metrics NAME[,NAME...]] [--comment TEXT] [--greedy GREEDY.h5]
 *
 * BASELINE.json is {"scenario": S, "mechanism": M, "seed": N, "comment": C,
 * (N a number below 2^53, or a decimal string),
 * "metrics": {NAME: {"value": V, "abs": A, "rel": R}, ...}}; only
 * "metrics" is required, and each entry needs "value" (a number, or null
 * for a metric that is NaN).  Tolerance = max(abs, rel x |value|); a check
 * passes when |actual - value| <= tolerance, or when both are NaN.
 *
 * Exit codes: 0 every check passed (or a baseline was written), 1 at least
 * one check failed, 2 bad input (usage, malformed baseline, unknown metric,
 * a baseline for another scenario/mechanism/seed, a file that is not a run
 * file), 3 a file that cannot be read or written.
 */
#include "cs_check.h"
#include "cs_exit.h"
#include "cs_json_guard.h"
#include "cs_error.h"
#include "cs_metrics.h"
#include "cs_publish.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CS__BASELINE_MAX (16u << 20) /* largest baseline file read, bytes */

/* One baseline entry. */
typedef struct cs__bent {
    char name[96];  /* metric name */
    double value;   /* baseline value (NaN for null) */
    double abs_tol; /* absolute tolerance, -1 if absent */
    double rel_tol; /* relative tolerance, -1 if absent */
} cs__bent_t;

/* A parsed baseline file. */
typedef struct cs__base {
    char scenario[128];  /* "" if absent */
    char mechanism[64];  /* "" if absent */
    int has_seed;        /* seed present */
    uint64_t seed;       /* run seed */
    char *comment;       /* malloc'd, NULL if absent */
    cs__bent_t *e;       /* entries in file order */
    size_t n;            /* entries */
} cs__base_t;

/* Free what a parsed baseline owns and zero it. */
static void cs__base_free(cs__base_t *b)
{
    free(b->comment);
    free(b->e);
    memset(b, 0, sizeof *b);
}

/* Read a whole file (at most CS__BASELINE_MAX bytes) into a malloc'd,
 * NUL-terminated buffer.  Returns CS_OK, CS_EIO (errno kept) or CS_EPARSE
 * (too large). */
static int cs__slurp(const char *path, char **out)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return CS_EIO;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    int rc = buf ? CS_OK : CS_ENOMEM;
    while (rc == CS_OK) {
        if (n + 1 >= cap) {
            if (cap >= CS__BASELINE_MAX) {
                rc = CS_EPARSE;
                break;
            }
            char *p = realloc(buf, cap * 2);
            if (!p) {
                rc = CS_ENOMEM;
                break;
            }
            buf = p;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) rc = CS_EIO;
            break;
        }
    }
    fclose(f);
    if (rc != CS_OK) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *out = buf;
    return CS_OK;
}

/* A tolerance member: absent (-1), or a finite number >= 0.  Returns 0 or
 * -1 with a message. */
static int cs__tol(const cJSON *ent, const char *key, const char *name, double *out, char *msg, size_t cap)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(ent, key);
    *out = -1;
    if (!t) return 0;
    if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) || t->valuedouble < 0) {
        snprintf(msg, cap, "metrics.%s.%s: must be a number >= 0", name, key);
        return -1;
    }
    *out = t->valuedouble;
    return 0;
}

/*
 * Parse and validate a baseline text into b (caller frees with
 * cs__base_free).  Every error names its JSON path in msg.  require_metrics:
 * an empty "metrics" object is an error.  Returns CS_OK, CS_EPARSE (a bad
 * baseline) or CS_ENOMEM (out of memory, including inside cJSON_Parse on
 * well-formed text: it must not pass for "not valid JSON").
 */
static int cs__base_parse(const char *text, cs__base_t *b, int require_metrics, char *msg, size_t cap)
{
    memset(b, 0, sizeof *b);
    if (cs_json_nul_check(text, strlen(text), msg, cap) != 0) return CS_EPARSE;
    cJSON *root = cJSON_Parse(text);
    int rc = CS_EPARSE;
    if (!root) {
        if (cs__json_wellformed(text)) {
            snprintf(msg, cap, "out of memory parsing the baseline");
            return CS_ENOMEM;
        }
        snprintf(msg, cap, "not valid JSON (near byte %ld)",
                 cJSON_GetErrorPtr() ? (long)(cJSON_GetErrorPtr() - text) : 0L);
        return CS_EPARSE;
    }
    if (!cJSON_IsObject(root)) {
        snprintf(msg, cap, "(root): must be an object");
        goto out;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, root)
    {
        const char *k = it->string ? it->string : "";
        for (const cJSON *p = root->child; p != it; p = p->next)
            if (p->string && strcmp(p->string, k) == 0) {
                snprintf(msg, cap, "%s: duplicate key", k);
                goto out;
            }
        if (strcmp(k, "scenario") == 0 || strcmp(k, "mechanism") == 0 || strcmp(k, "comment") == 0) {
            if (!cJSON_IsString(it)) {
                snprintf(msg, cap, "%s: must be a string", k);
                goto out;
            }
            if (k[0] == 's') snprintf(b->scenario, sizeof b->scenario, "%s", it->valuestring);
            else if (k[0] == 'm') snprintf(b->mechanism, sizeof b->mechanism, "%s", it->valuestring);
            else if (!(b->comment = strdup(it->valuestring))) {
                snprintf(msg, cap, "out of memory");
                rc = CS_ENOMEM;
                goto out;
            }
        } else if (strcmp(k, "seed") == 0) {
            /* A JSON number is exact only below 2^53 (2^53 + 1 reads as
             * 2^53); larger seeds are written as decimal strings. */
            double d = cJSON_IsNumber(it) ? it->valuedouble : -1;
            int good = 0;
            if (cJSON_IsString(it) && it->valuestring[0] >= '0' && it->valuestring[0] <= '9') {
                char *end;
                errno = 0;
                b->seed = strtoull(it->valuestring, &end, 10);
                good = errno == 0 && *end == '\0';
            } else if (d >= 0 && d <= CS_JSON_INT_MAX && d == floor(d)) {
                b->seed = (uint64_t)d;
                good = 1;
            }
            if (!good) {
                snprintf(msg, cap, "seed: must be an integer in [0, 2^53 - 1] or a decimal string");
                goto out;
            }
            b->has_seed = 1;
        } else if (strcmp(k, "metrics") == 0) {
            if (!cJSON_IsObject(it)) {
                snprintf(msg, cap, "metrics: must be an object");
                goto out;
            }
        } else {
            snprintf(msg, cap, "%s: unknown key (expected scenario, mechanism, seed, comment, metrics)", k);
            goto out;
        }
    }
    const cJSON *mets = cJSON_GetObjectItemCaseSensitive(root, "metrics");
    if (!mets) {
        snprintf(msg, cap, "metrics: missing");
        goto out;
    }
    size_t n = (size_t)cJSON_GetArraySize(mets);
    if (n == 0 && require_metrics) {
        snprintf(msg, cap, "metrics: must hold at least one metric");
        goto out;
    }
    b->e = calloc(n ? n : 1, sizeof *b->e);
    if (!b->e) {
        snprintf(msg, cap, "out of memory");
        rc = CS_ENOMEM;
        goto out;
    }
    cJSON_ArrayForEach(it, mets)
    {
        const char *name = it->string ? it->string : "";
        if (strlen(name) >= sizeof b->e[0].name || cs_metrics_doc(name) == NULL) {
            snprintf(msg, cap, "metrics.%s: unknown metric (see analysis/README.md)", name);
            goto out;
        }
        for (size_t j = 0; j < b->n; j++)
            if (strcmp(b->e[j].name, name) == 0) {
                snprintf(msg, cap, "metrics.%s: duplicate metric", name);
                goto out;
            }
        if (!cJSON_IsObject(it)) {
            snprintf(msg, cap, "metrics.%s: must be an object {\"value\": V, \"abs\": A, \"rel\": R}", name);
            goto out;
        }
        const cJSON *f;
        cJSON_ArrayForEach(f, it)
        {
            const char *fk = f->string ? f->string : "";
            if (strcmp(fk, "value") && strcmp(fk, "abs") && strcmp(fk, "rel")) {
                snprintf(msg, cap, "metrics.%s.%s: unknown key (expected value, abs, rel)", name, fk);
                goto out;
            }
        }
        cs__bent_t *e = &b->e[b->n];
        snprintf(e->name, sizeof e->name, "%s", name);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "value");
        if (cJSON_IsNull(v)) {
            e->value = (double)NAN;
        } else if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
            e->value = v->valuedouble;
        } else {
            snprintf(msg, cap, "metrics.%s.value: %s", name, v ? "must be a number or null" : "missing");
            goto out;
        }
        if (cs__tol(it, "abs", name, &e->abs_tol, msg, cap) != 0) goto out;
        if (cs__tol(it, "rel", name, &e->rel_tol, msg, cap) != 0) goto out;
        b->n++;
    }
    rc = CS_OK;
out:
    cJSON_Delete(root);
    if (rc != CS_OK) cs__base_free(b);
    return rc;
}

/* Tolerance of an entry: max(abs, rel x |value|), missing parts 0. */
static double cs__tolerance(const cs__bent_t *e)
{
    double a = e->abs_tol > 0 ? e->abs_tol : 0;
    double r = (e->rel_tol > 0 && !isnan(e->value)) ? e->rel_tol * fabs(e->value) : 0;
    return a > r ? a : r;
}

/* A check passes when both are NaN or |actual - value| <= tolerance. */
static int cs__pass(const cs__bent_t *e, double actual)
{
    if (isnan(e->value) || isnan(actual)) return isnan(e->value) && isnan(actual);
    return fabs(actual - e->value) <= cs__tolerance(e);
}

/* Value for printing: %.10g, "NaN" for NaN. */
static const char *cs__num(double v, char *buf, size_t cap)
{
    if (isnan(v)) snprintf(buf, cap, "NaN");
    else snprintf(buf, cap, "%.10g", v);
    return buf;
}

/* The run's identity must match the baseline's fields that are present.
 * Returns 0, or -1 with a message. */
static int cs__identity(const cs__base_t *b, const cs_metrics_t *m, char *msg, size_t cap)
{
    if (b->scenario[0] && strcmp(b->scenario, m->scenario) != 0) {
        snprintf(msg, cap, "scenario: the baseline is for '%s', the run is '%s'", b->scenario, m->scenario);
        return -1;
    }
    if (b->mechanism[0] && strcmp(b->mechanism, m->mechanism) != 0) {
        snprintf(msg, cap, "mechanism: the baseline is for '%s', the run is '%s'", b->mechanism, m->mechanism);
        return -1;
    }
    if (b->has_seed && b->seed != m->seed) {
        snprintf(msg, cap, "seed: the baseline is for seed %llu, the run has seed %llu",
                 (unsigned long long)b->seed, (unsigned long long)m->seed);
        return -1;
    }
    return 0;
}

/* Load and parse a baseline file; prints the error and returns the exit
 * status (0 on success). */
static int cs__base_load(const char *path, cs__base_t *b, int require_metrics)
{
    char *text = NULL;
    int rc = cs__slurp(path, &text);
    if (rc == CS_EIO) {
        fprintf(stderr, "cowsim check: cannot read %s: %s\n", path, strerror(errno));
        return CS_EXIT_IO;
    }
    if (rc != CS_OK) {
        fprintf(stderr, "cowsim check: %s: %s\n", path, rc == CS_EPARSE ? "file too large" : cs_strerror(rc));
        return rc == CS_EPARSE ? CS_EXIT_USAGE : CS_EXIT_IO;
    }
    char msg[512];
    rc = cs__base_parse(text, b, require_metrics, msg, sizeof msg);
    free(text);
    if (rc != CS_OK) {
        fprintf(stderr, "cowsim check: %s: %s\n", path, msg);
        return rc == CS_ENOMEM ? CS_EXIT_IO : CS_EXIT_USAGE;
    }
    return CS_EXIT_OK;
}

/* Compute the run's metrics, printing errors and warnings; returns the
 * exit status (0 on success). */
static int cs__run_metrics(const char *run, const char *greedy, cs_metrics_t *m)
{
    char obuf[4096], err[1024];
    const char *op = greedy ? greedy : cs_metrics_find_greedy(run, obuf, sizeof obuf);
    int rc = cs_metrics_compute(run, op, m, err, sizeof err);
    if (rc != CS_OK && rc != CS_ENOMEM && !greedy && op) {
        /* A greedy.h5 found beside the run but unusable: say so and go on
         * without it -- if the run alone computes.  Out of memory is never
         * "unusable": it would silently drop efficiency and poa. */
        char err2[1024];
        int rc2 = cs_metrics_compute(run, NULL, m, err2, sizeof err2);
        if (rc2 == CS_OK) fprintf(stderr, "cowsim check: warning: ignoring %s: %s\n", op, err);
        else memcpy(err, err2, sizeof err);
        rc = rc2;
    }
    if (rc != CS_OK) {
        fprintf(stderr, "cowsim check: %s\n", err);
        return cs_exit_of(rc);
    }
    if (m->v[CS_M_complete] != 1.0)
        fprintf(stderr, "cowsim check: warning: %s is an incomplete run (complete = 0)\n", run);
    if (m->note[0]) fprintf(stderr, "cowsim check: note: %s: %s\n", run, m->note);
    return CS_EXIT_OK;
}

/* --baseline: print one line per check; 0 all pass, 1 a regression. */
int cs_check_baseline(const char *bpath, const char *run, const char *greedy)
{
    cs__base_t b;
    int st = cs__base_load(bpath, &b, 1);
    if (st != CS_EXIT_OK) return st;
    cs_metrics_t m;
    st = cs__run_metrics(run, greedy, &m);
    char msg[512];
    if (st == CS_EXIT_OK && cs__identity(&b, &m, msg, sizeof msg) != 0) {
        fprintf(stderr, "cowsim check: %s against %s: %s\n", run, bpath, msg);
        st = CS_EXIT_USAGE;
    }
    if (st != CS_EXIT_OK) {
        cs__base_free(&b);
        return st;
    }
    printf("cowsim check: %s against %s (scenario %s, mechanism %s, seed %llu)\n", run, bpath,
           m.scenario[0] ? m.scenario : "?", m.mechanism, (unsigned long long)m.seed);
    char bench[400];
    cs_metrics_benchmark_text(&m, bench, sizeof bench);
    printf("efficiency and poa vs %s\n", bench);
    printf("%-32s %16s %16s %16s  %s\n", "metric", "baseline", "actual", "tolerance", "result");
    size_t fails = 0;
    for (size_t i = 0; i < b.n; i++) {
        const cs__bent_t *e = &b.e[i];
        double actual = (double)NAN;
        cs_metrics_get(&m, e->name, &actual);
        int ok = cs__pass(e, actual);
        char bv[32], av[32], tv[32];
        printf("%-32s %16s %16s %16s  %s\n", e->name, cs__num(e->value, bv, sizeof bv),
               cs__num(actual, av, sizeof av), cs__num(cs__tolerance(e), tv, sizeof tv), ok ? "PASS" : "FAIL");
        if (!ok) fails++;
    }
    printf("%zu check%s: %zu passed, %zu failed\n", b.n, b.n == 1 ? "" : "s", b.n - fails, fails);
    cs__base_free(&b);
    return fails ? CS_EXIT_CHECK : CS_EXIT_OK;
}

/* Shortest "%.*g" text (15 to 17 digits) that reads back as exactly v:
 * cJSON's own printer accepts an approximate round trip, so baselines and
 * JSON output format their numbers here. */
static void cs__exact_num(double v, char *buf, size_t cap)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

/* Add a JSON number (exact, see above) or null (for NaN/inf).  Returns 0,
 * or -1 when out of memory (nothing added). */
static int cs__add_num(cJSON *o, const char *k, double v)
{
    char buf[40];
    if (isnan(v) || isinf(v)) return cJSON_AddNullToObject(o, k) ? 0 : -1;
    cs__exact_num(v, buf, sizeof buf);
    return cJSON_AddRawToObject(o, k, buf) ? 0 : -1;
}

/* Write text to path atomically: path.tmp, then cs_publish_commit (fsync,
 * rename, fsync of the directory; DESIGN-NOTES N48).  Returns CS_OK,
 * CS_ENOMEM (nothing written), or CS_EIO with errno. */
static int cs__write_file(const char *path, const char *text)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 8);
    if (!tmp) return CS_ENOMEM;
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp", 5);
    FILE *f = cs_publish_fcreate(tmp); /* never through a planted link */
    int ok = f != NULL;
    if (ok) ok = fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0) ok = 0;
    if (ok && cs_publish_commit(-1, tmp, path) != 0) ok = 0;
    if (!ok) {
        int e = errno;
        remove(tmp);
        errno = e;
    }
    free(tmp);
    return ok ? CS_OK : CS_EIO;
}

/* Split a comma-separated list of metric names, checking each.  Entries
 * are appended to *e (grown) unless present.  Returns the exit status
 * (with a message on stderr). */
static int cs__add_list(const char *list, cs__bent_t **e, size_t *n, double abs_tol, double rel_tol)
{
    const char *p = list;
    while (*p) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        char name[96];
        if (len == 0 || len >= sizeof name) {
            fprintf(stderr, "cowsim check: --metrics: bad name '%.*s'\n", (int)len, p);
            return CS_EXIT_USAGE;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        if (!cs_metrics_doc(name)) {
            fprintf(stderr, "cowsim check: --metrics: unknown metric '%s' (see analysis/README.md)\n", name);
            return CS_EXIT_USAGE;
        }
        size_t j = 0;
        while (j < *n && strcmp((*e)[j].name, name) != 0) j++;
        if (j == *n) {
            cs__bent_t *g = realloc(*e, (*n + 1) * sizeof *g);
            if (!g) {
                fprintf(stderr, "cowsim check: out of memory listing the metrics\n");
                return CS_EXIT_IO;
            }
            *e = g;
            memset(&g[j], 0, sizeof g[j]);
            snprintf(g[j].name, sizeof g[j].name, "%s", name);
            g[j].abs_tol = abs_tol;
            g[j].rel_tol = rel_tol;
            if (abs_tol < 0 && rel_tol < 0) g[j].rel_tol = CS_CHECK_DEFAULT_REL;
            (*n)++;
        } else if (abs_tol >= 0 || rel_tol >= 0) {
            (*e)[j].abs_tol = abs_tol;
            (*e)[j].rel_tol = rel_tol;
        }
        p += len;
        if (*p == ',') p++;
    }
    return CS_EXIT_OK;
}

/* The text of a blessed baseline: {scenario, mechanism, seed, comment (the
 * new one, else the old one, else none), metrics: {NAME: {value, abs,
 * rel}}} with b's entries in order, values from m.  Returns the malloc'd
 * text, or NULL when out of memory (every add is checked, so a document
 * is never printed with a member missing). */
static char *cs__bless_text(const cs__base_t *b, const cs_metrics_t *m, const char *comment)
{
    char sb[24];
    snprintf(sb, sizeof sb, "%llu", (unsigned long long)m->seed);
    const char *cm = comment ? comment : b->comment;
    cJSON *root = cJSON_CreateObject();
    int ok = root && cJSON_AddStringToObject(root, "scenario", m->scenario) &&
             cJSON_AddStringToObject(root, "mechanism", m->mechanism) &&
             (m->seed < (1ull << 53) ? cJSON_AddRawToObject(root, "seed", sb) != NULL
                                       : cJSON_AddStringToObject(root, "seed", sb) != NULL) &&
             (!cm || cJSON_AddStringToObject(root, "comment", cm));
    cJSON *mets = ok ? cJSON_AddObjectToObject(root, "metrics") : NULL;
    ok = mets != NULL;
    for (size_t i = 0; ok && i < b->n; i++) {
        const cs__bent_t *e = &b->e[i];
        double v = (double)NAN;
        cs_metrics_get(m, e->name, &v);
        cJSON *o = cJSON_AddObjectToObject(mets, e->name);
        ok = o && cs__add_num(o, "value", v) == 0 && (e->abs_tol < 0 || cs__add_num(o, "abs", e->abs_tol) == 0) &&
             (e->rel_tol < 0 || cs__add_num(o, "rel", e->rel_tol) == 0);
    }
    char *txt = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    return txt;
}

/* --bless: write or refresh the baseline from the run; print what changed
 * once the file is written. */
int cs_check_bless(const char *bpath, const char *run, const char *greedy, double abs_tol, double rel_tol,
                   const char *list, const char *comment)
{
    cs__base_t b;
    memset(&b, 0, sizeof b);
    int exists = 0;
    FILE *probe = fopen(bpath, "rb");
    if (probe) {
        fclose(probe);
        exists = 1;
        int st = cs__base_load(bpath, &b, 0);
        if (st != CS_EXIT_OK) return st;
    }
    cs_metrics_t m;
    int st = cs__run_metrics(run, greedy, &m);
    if (st == CS_EXIT_OK && m.v[CS_M_complete] != 1.0) {
        fprintf(stderr, "cowsim check: %s is incomplete; refusing to bless a baseline from it\n", run);
        st = CS_EXIT_USAGE;
    }
    char msg[512];
    if (st == CS_EXIT_OK && exists && cs__identity(&b, &m, msg, sizeof msg) != 0) {
        fprintf(stderr, "cowsim check: %s: %s (remove the file to bless it afresh)\n", bpath, msg);
        st = CS_EXIT_USAGE;
    }
    if (st != CS_EXIT_OK) {
        cs__base_free(&b);
        return st;
    }
    /* Entries: the existing ones (tolerances overridden by --abs/--rel
     * unless --metrics names which), then --metrics, or every metric of the
     * run for a new baseline without --metrics. */
    if (!list && (abs_tol >= 0 || rel_tol >= 0))
        for (size_t i = 0; i < b.n; i++) {
            b.e[i].abs_tol = abs_tol;
            b.e[i].rel_tol = rel_tol;
        }
    if (list) {
        st = cs__add_list(list, &b.e, &b.n, abs_tol, rel_tol);
    } else if (!exists) {
        size_t n = cs_metrics_n(&m);
        char *all = calloc(n, 96);
        if (!all) {
            fprintf(stderr, "cowsim check: out of memory listing the metrics\n");
            st = CS_EXIT_IO;
        } else {
            size_t len = 0;
            for (size_t i = 0; i < n; i++) {
                char buf[96];
                len += (size_t)snprintf(all + len, 96 * n - len, "%s%s", i ? "," : "",
                                        cs_metrics_name(&m, i, buf, sizeof buf));
            }
            st = cs__add_list(all, &b.e, &b.n, abs_tol, rel_tol);
            free(all);
        }
    }
    if (st != CS_EXIT_OK) {
        cs__base_free(&b);
        return st;
    }
    /* The document is built whole -- every add checked -- before anything
     * is written or printed: a baseline missing a key after an allocation
     * failure would be a different baseline. */
    char *txt = cs__bless_text(&b, &m, comment);
    if (!txt) {
        cs__base_free(&b);
        fprintf(stderr, "cowsim check: out of memory writing %s\n", bpath);
        return CS_EXIT_IO;
    }
    int wr = cs__write_file(bpath, txt);
    free(txt);
    if (wr != CS_OK) {
        if (wr == CS_ENOMEM) fprintf(stderr, "cowsim check: out of memory writing %s\n", bpath);
        else fprintf(stderr, "cowsim check: cannot write %s: %s\n", bpath, strerror(errno));
        cs__base_free(&b);
        return CS_EXIT_IO;
    }
    size_t changed = 0;
    for (size_t i = 0; exists && i < b.n; i++) {
        const cs__bent_t *e = &b.e[i];
        double v = (double)NAN;
        cs_metrics_get(&m, e->name, &v);
        if ((isnan(v) && isnan(e->value)) || v == e->value) continue;
        char ov[40], nv[40];
        if (isnan(e->value)) snprintf(ov, sizeof ov, "null");
        else cs__exact_num(e->value, ov, sizeof ov);
        if (isnan(v)) snprintf(nv, sizeof nv, "null");
        else cs__exact_num(v, nv, sizeof nv);
        printf("  %-32s %24s -> %s\n", e->name, ov, nv);
        changed++;
    }
    printf("cowsim check: blessed %s from %s: %zu metric%s%s", bpath, run, b.n, b.n == 1 ? "" : "s",
           exists ? "" : " (new baseline)\n");
    if (exists) printf(", %zu value%s changed\n", changed, changed == 1 ? "" : "s");
    cs__base_free(&b);
    return CS_EXIT_OK;
}
