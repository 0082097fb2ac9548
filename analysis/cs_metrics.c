/*
 * cs_metrics.c -- the metrics of DESIGN §6 computed from one HDF5 run file
 * (and, for efficiency, the `greedy` run of the same scenario and seed).
 *
 * Every metric is defined in analysis/README.md; the comments below name
 * the definition they implement.  Analysis code may use doubles (DESIGN
 * §2.7); quantiles and moments go through GSL.  Sorts use total orders
 * (STYLE §6): ties are broken by a unique key or the values are equal.
 */
#include "cs_metrics.h"

#include "cs_error.h"
#include "cs_h5.h"
#include "cs_mech.h"
#include "cs_optimum.h"
#include "cs_rng.h"

#include <cjson/cJSON.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(CS_METRIC_KINDS == CS_AGENT_KIND_COUNT, "one metrics column per agent kind");

#define CS__NAN ((double)NAN)
#define CS__MAX_ACTORS 10000000u /* README "Security and limits": 10^7 actors */
#define CS__FULL_UTIL 0.95       /* full_share threshold (analysis/README.md) */

static const char *const cs__m_names[] = {
#define CS__M_NAME(name, doc) #name,
    CS_METRIC_MAP(CS__M_NAME)
#undef CS__M_NAME
};
static const char *const cs__m_docs[] = {
#define CS__M_DOC(name, doc) doc,
    CS_METRIC_MAP(CS__M_DOC)
#undef CS__M_DOC
};
static const char *const cs__km_names[] = {
#define CS__KM_NAME(name, doc) #name,
    CS_KIND_METRIC_MAP(CS__KM_NAME)
#undef CS__KM_NAME
};
static const char *const cs__km_docs[] = {
#define CS__KM_DOC(name, doc) doc,
    CS_KIND_METRIC_MAP(CS__KM_DOC)
#undef CS__KM_DOC
};
_Static_assert(sizeof cs__m_names / sizeof cs__m_names[0] == CS_M__COUNT, "metric names");
_Static_assert(sizeof cs__km_names / sizeof cs__km_names[0] == CS_KM__COUNT, "kind metric names");

/* ------------------------------------------------------------ statistics */

/* Jain's index (sum x)^2 / (n sum x^2); NaN for n == 0 or sum x^2 == 0. */
double cs_stat_jain(const double *x, size_t n)
{
    if (!x || n == 0) return CS__NAN;
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++) {
        s += x[i];
        ss += x[i] * x[i];
    }
    if (!(ss > 0)) return CS__NAN;
    return (s * s) / ((double)n * ss);
}

/* Gini coefficient sum_ij |x_i - x_j| / (2 n^2 mean), computed on a sorted
 * copy as 2 sum_i i x_(i) / (n sum x) - (n + 1) / n (i = 1..n ascending).
 * NaN for n == 0, a zero sum or an allocation failure. */
double cs_stat_gini(const double *x, size_t n)
{
    if (!x || n == 0) return CS__NAN;
    double *y = malloc(n * sizeof *y);
    if (!y) return CS__NAN;
    memcpy(y, x, n * sizeof *y);
    gsl_sort(y, 1, n);
    double s = 0, w = 0;
    for (size_t i = 0; i < n; i++) {
        s += y[i];
        w += (double)(i + 1) * y[i];
    }
    free(y);
    if (!(s != 0)) return CS__NAN;
    double nd = (double)n;
    return 2.0 * w / (nd * s) - (nd + 1.0) / nd;
}

/* GSL quantile of x (sorted in place): (1 - f) x[i] + f x[i+1] with
 * i = floor((n - 1) q), f its fractional part.  NaN when n == 0. */
double cs_stat_quantile(double *x, size_t n, double q)
{
    if (!x || n == 0) return CS__NAN;
    gsl_sort(x, 1, n);
    return gsl_stats_quantile_from_sorted_data(x, 1, n, q);
}

/* Percentile bootstrap of the mean: B resamples of size n drawn with
 * replacement (uniform indices from cs_rng_stream(seed, 0) through
 * gsl_rng_uniform_int), then the GSL quantiles (1 - level)/2 and
 * (1 + level)/2 of the sorted resample means.  NaN bounds when n == 0,
 * B == 0, level outside (0, 1), or (returning CS_ENOMEM) on allocation
 * failure. */
int cs_stat_bootstrap_mean(const double *x, size_t n, unsigned B, double level, uint64_t seed, double *lo,
                           double *hi)
{
    double l = CS__NAN, h = CS__NAN;
    double *means = NULL;
    gsl_rng *r = NULL;
    int rc = CS_OK;
    if (x && n > 0 && B > 0 && level > 0 && level < 1 && n <= 0xffffffffu) {
        means = malloc((size_t)B * sizeof *means);
        r = cs_rng_stream(seed, 0);
        if (!means || !r) rc = CS_ENOMEM;
    }
    if (means && r) {
        for (unsigned b = 0; b < B; b++) {
            double s = 0;
            for (size_t i = 0; i < n; i++) s += x[gsl_rng_uniform_int(r, (unsigned long)n)];
            means[b] = s / (double)n;
        }
        gsl_sort(means, 1, B);
        l = gsl_stats_quantile_from_sorted_data(means, 1, B, (1.0 - level) / 2.0);
        h = gsl_stats_quantile_from_sorted_data(means, 1, B, (1.0 + level) / 2.0);
    }
    free(means);
    if (r) gsl_rng_free(r);
    if (lo) *lo = l;
    if (hi) *hi = h;
    return rc;
}

/* Population variance (divide by n) of x[0..n); NaN for n == 0. */
static double cs__pvar(const double *x, size_t n)
{
    if (n == 0) return CS__NAN;
    double mu = gsl_stats_mean(x, 1, n);
    return gsl_stats_variance_with_fixed_mean(x, 1, n, mu);
}

/* ------------------------------------------------------------ run loading */

typedef struct cs__run {
    cs_h5_reader_t *r;     /* open reader */
    cs_h5_block_t *b;      /* /blocks rows */
    size_t nb;             /* rows in b */
    cs_h5_fire_t *f;       /* /fires rows */
    size_t nf;             /* rows in f */
    cs_h5_timer_t *t;      /* /timers rows */
    size_t nt;             /* rows in t */
    cs_h5_actor_t *a;      /* /actors rows */
    size_t na;             /* rows in a */
    cs_h5_weight_t *w;     /* /weights rows */
    size_t nw;             /* rows in w */
    cs_h5_summary_t *s;    /* /summary rows */
    size_t ns;             /* rows in s */
} cs__run_t;

/* Per-actor aggregates (analysis/README.md "Per-actor quantities"). */
typedef struct cs__act {
    int kind;          /* agent kind, -1 if the actor appears nowhere */
    uint32_t agent;    /* agent instance index */
    uint64_t scheduled;/* timers scheduled (/actors, else /timers rows) */
    double fires;      /* fires (/actors, else /fires rows) */
    double value;      /* sum of fire values */
    double paid;       /* sum paid */
    uint64_t fn;       /* /fires rows of this actor */
    double f_delay;    /* sum of delays over /fires rows */
    double f_bid;      /* sum of bids over /fires rows */
    double f_paid;     /* sum paid over /fires rows */
    double f_value;    /* sum of values over /fires rows */
    uint64_t starved;  /* its timers that came due and never fired (README "jain") */
    double s_bid;      /* sum of /timers.bid over those starved timers */
} cs__act_t;

static void cs__seterr(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cs__note(cs_metrics_t *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* snprintf into the caller's error buffer (which may be NULL). */
static void cs__seterr(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || cap == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

/* Append a sentence to m->note (silently truncated when full). */
static void cs__note(cs_metrics_t *m, const char *fmt, ...)
{
    size_t len = strlen(m->note);
    if (len + 2 >= sizeof m->note) return;
    if (len) {
        m->note[len++] = ' ';
        m->note[len] = '\0';
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->note + len, sizeof m->note - len, fmt, ap);
    va_end(ap);
}

/* Free every table and close the reader; u is zeroed. */
static void cs__run_free(cs__run_t *u)
{
    free(u->b);
    free(u->f);
    free(u->t);
    free(u->a);
    free(u->w);
    free(u->s);
    cs_h5_close_read(u->r);
    memset(u, 0, sizeof *u);
}

/* Open path and read every table.  Returns CS_OK or the reader's code with
 * a message "path: why" in err ("path: out of memory (why)" for
 * CS_ENOMEM, whose reader message need not say so). */
static int cs__run_load(const char *path, cs__run_t *u, char *err, size_t cap)
{
    memset(u, 0, sizeof *u);
    int rc = CS_OK;
    u->r = cs_h5_open_read(path, &rc);
    if (!u->r) {
        const char *why = cs_h5_last_error();
        if (rc == CS_ENOMEM) cs__seterr(err, cap, "%s: out of memory (%s)", path, why && *why ? why : "opening");
        else if (why && *why && strstr(why, path)) cs__seterr(err, cap, "%s", why);
        else cs__seterr(err, cap, "%s: %s", path, why && *why ? why : cs_strerror(rc));
        return rc ? rc : CS_EIO;
    }
    if (rc == CS_OK) rc = cs_h5_read_blocks(u->r, &u->b, &u->nb);
    if (rc == CS_OK) rc = cs_h5_read_fires(u->r, &u->f, &u->nf);
    if (rc == CS_OK) rc = cs_h5_read_timers(u->r, &u->t, &u->nt);
    if (rc == CS_OK) rc = cs_h5_read_actors(u->r, &u->a, &u->na);
    if (rc == CS_OK) rc = cs_h5_read_weights(u->r, &u->w, &u->nw);
    if (rc == CS_OK) rc = cs_h5_read_summary(u->r, &u->s, &u->ns);
    if (rc != CS_OK) {
        const char *why = cs_h5_last_error();
        if (rc == CS_ENOMEM) cs__seterr(err, cap, "%s: out of memory (%s)", path, why && *why ? why : "reading");
        else cs__seterr(err, cap, "%s: %s", path, why && *why ? why : cs_strerror(rc));
        cs__run_free(u);
        return rc;
    }
    /* Kinds are an HDF5 enum; a value outside it means a damaged file. */
    for (size_t i = 0; i < u->nf; i++)
        if (u->f[i].kind >= CS_AGENT_KIND_COUNT || u->f[i].actor >= CS__MAX_ACTORS) rc = CS_EPARSE;
    for (size_t i = 0; i < u->nt; i++)
        if (u->t[i].kind >= CS_AGENT_KIND_COUNT || u->t[i].actor >= CS__MAX_ACTORS) rc = CS_EPARSE;
    for (size_t i = 0; i < u->na; i++)
        if (u->a[i].kind >= CS_AGENT_KIND_COUNT || u->a[i].actor >= CS__MAX_ACTORS ||
            u->a[i].agent >= CS__MAX_ACTORS)
            rc = CS_EPARSE;
    for (size_t i = 0; i < u->ns; i++)
        if (u->s[i].kind > CS_AGENT_KIND_ALL) rc = CS_EPARSE;
    if (rc != CS_OK) {
        cs__seterr(err, cap, "%s: agent kind or actor index out of range in a table", path);
        cs__run_free(u);
    }
    return rc;
}

/* ------------------------------------------------------------ JSON well-formedness */

/* Skip JSON whitespace (RFC 8259 §2: space, tab, LF, CR). */
static const unsigned char *cs__jw_ws(const unsigned char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

/* Four hex digits at p into *u; -1 if any is not a hex digit (the NUL
 * ending the text is not, so this never reads past it). */
static int cs__jw_hex4(const unsigned char *p, unsigned *u)
{
    *u = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = p[i], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return -1;
        *u = *u << 4 | d;
    }
    return 0;
}

/* A string at *pp (on its opening quote): RFC 8259 §7, and a \u escape is
 * a BMP code point outside the surrogates or a high surrogate followed by
 * \u and a low one (cJSON rejects anything else).  Advances *pp past the
 * closing quote; returns 0 or -1. */
static int cs__jw_string(const unsigned char **pp)
{
    const unsigned char *p = *pp + 1;
    for (;;) {
        unsigned c = *p;
        if (c == '"') break;
        if (c < 0x20) return -1; /* a control character, or the end of the text */
        if (c != '\\') {
            p++;
            continue;
        }
        c = p[1];
        if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't') {
            p += 2;
            continue;
        }
        unsigned u, v;
        if (c != 'u' || cs__jw_hex4(p + 2, &u) != 0 || (u >= 0xDC00 && u <= 0xDFFF)) return -1;
        if (u >= 0xD800 && u <= 0xDBFF) {
            if (p[6] != '\\' || p[7] != 'u' || cs__jw_hex4(p + 8, &v) != 0 || v < 0xDC00 || v > 0xDFFF) return -1;
            p += 12;
        } else {
            p += 6;
        }
    }
    *pp = p + 1;
    return 0;
}

/* A number at *pp: RFC 8259 §6 grammar, at most 63 characters (cJSON up
 * to 1.7.15 reads a number through a 64-byte buffer and fails a longer one
 * inside an array or object; later versions take any length, and refusing
 * more here only errs towards "malformed").  Advances *pp; 0 or -1. */
static int cs__jw_number(const unsigned char **pp)
{
    const unsigned char *p = *pp, *s = p;
    if (*p == '-') p++;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9') while (*p >= '0' && *p <= '9') p++;
    else return -1;
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9')) return -1;
        while (*p >= '0' && *p <= '9') p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) return -1;
        while (*p >= '0' && *p <= '9') p++;
    }
    if (p - s > 63) return -1;
    *pp = p;
    return 0;
}

/* A value at *pp (whitespace skipped by the caller), nested `depth`
 * containers deep; arrays and objects may nest at most
 * CJSON_NESTING_LIMIT deep, as in cJSON.  Advances *pp; 0 or -1. */
static int cs__jw_value(const unsigned char **pp, unsigned depth)
{
    const unsigned char *p = *pp;
    if (*p == '"') return cs__jw_string(pp);
    if (*p == '-' || (*p >= '0' && *p <= '9')) return cs__jw_number(pp);
    static const char *const lits[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(lits[i]);
        if (strncmp((const char *)p, lits[i], n) == 0) {
            *pp = p + n;
            return 0;
        }
    }
    if (*p != '[' && *p != '{') return -1;
    if (depth >= CJSON_NESTING_LIMIT) return -1;
    unsigned char close = *p == '[' ? ']' : '}';
    p = cs__jw_ws(p + 1);
    if (*p == close) {
        *pp = p + 1;
        return 0;
    }
    for (;;) {
        if (close == '}') {
            if (*p != '"' || cs__jw_string(&p) != 0) return -1;
            p = cs__jw_ws(p);
            if (*p != ':') return -1;
            p = cs__jw_ws(p + 1);
        }
        if (cs__jw_value(&p, depth + 1) != 0) return -1;
        p = cs__jw_ws(p);
        if (*p == close) break;
        if (*p != ',') return -1;
        p = cs__jw_ws(p + 1);
    }
    *pp = p + 1;
    return 0;
}

/* Is text one well-formed JSON value (whitespace around it allowed)?  See
 * cs_metrics.h. */
int cs__json_wellformed(const char *text)
{
    if (!text) return 0;
    const unsigned char *p = cs__jw_ws((const unsigned char *)text);
    if (cs__jw_value(&p, 0) != 0) return 0;
    return *cs__jw_ws(p) == '\0';
}

/* ------------------------------------------------------------ run identity */

/* The "name" member of a scenario JSON text into out ("" if there is no
 * text or it has no string "name").  Returns CS_OK; CS_ENOMEM when cJSON
 * could not parse well-formed text (out of memory: the name must not
 * silently become ""); CS_ECORRUPT when the text is not JSON: a run file
 * holds the scenario the engine validated, so its text was damaged (a
 * flipped byte there read as scenario "" before). */
static int cs__scenario_name(const char *json, char *out, size_t cap)
{
    out[0] = '\0';
    if (!json || !*json) return CS_OK;
    cJSON *root = cJSON_Parse(json);
    if (!root) return cs__json_wellformed(json) ? CS_ENOMEM : CS_ECORRUPT;
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (cJSON_IsString(nm) && nm->valuestring) snprintf(out, cap, "%s", nm->valuestring);
    cJSON_Delete(root);
    return CS_OK;
}

/* Welfare of a loaded run: sum of /actors value, or of /fires value when
 * the file has no /actors rows (README "welfare"). */
static double cs__welfare(const cs__run_t *u)
{
    double w = 0;
    if (u->na > 0) {
        for (size_t i = 0; i < u->na; i++) w += u->a[i].value;
    } else {
        for (size_t i = 0; i < u->nf; i++) w += u->f[i].value;
    }
    return w;
}

/* Mechanisms whose /fires bid column is the stated bid (CIP-5 §9.7);
 * everywhere else bid_i is what was paid (analysis/README.md). */
static int cs__bid_family(const char *mech)
{
    return strcmp(mech, "bias-vcg") == 0 || strcmp(mech, "bias-fp") == 0 || strcmp(mech, "score") == 0;
}

typedef struct cs__hp {
    uint64_t h;   /* height (or sample height) */
    uint64_t key; /* unique tie-break: row index or identity */
    double v;     /* price or weight */
} cs__hp_t;

/* Order by height, then value, then key: a total order. */
static int cs__hp_cmp(const void *x, const void *y)
{
    const cs__hp_t *a = x, *b = y;
    if (a->h != b->h) return a->h < b->h ? -1 : 1;
    if (a->v != b->v) return a->v < b->v ? -1 : 1;
    return (a->key > b->key) - (a->key < b->key);
}

/* Clearing-price direction reversals (README "reversals"): per height with
 * fires, p_h = min over its fires of paid / max(cycles, 1); successive
 * differences of p over those heights in increasing order, zeros dropped;
 * count adjacent nonzero differences of opposite sign.  Returns -1 on
 * allocation failure. */
static double cs__reversals(const cs_h5_fire_t *f, size_t nf)
{
    if (nf == 0) return 0;
    cs__hp_t *p = malloc(nf * sizeof *p);
    if (!p) return -1;
    for (size_t i = 0; i < nf; i++) {
        p[i].h = f[i].height;
        p[i].key = i;
        p[i].v = f[i].paid.f / (double)(f[i].cycles ? f[i].cycles : 1);
    }
    qsort(p, nf, sizeof *p, cs__hp_cmp);
    double prev = 0, rev = 0;
    int have_prev = 0, last_sign = 0;
    for (size_t i = 0; i < nf; i++) {
        if (i > 0 && p[i].h == p[i - 1].h) continue; /* the first of a height is its minimum */
        double c = p[i].v;
        if (have_prev) {
            double d = c - prev;
            int sg = d > 0 ? 1 : d < 0 ? -1 : 0;
            if (sg != 0) {
                if (last_sign != 0 && sg != last_sign) rev += 1;
                last_sign = sg;
            }
        }
        prev = c;
        have_prev = 1;
    }
    free(p);
    return rev;
}

/* W(actor) percentiles (README "w_p10, w_p50, w_p90"): for each sample
 * height, GSL quantiles q of weight_ppm / 1e6 over the identities sampled
 * there; averaged over sample heights.  out[0..2] for q = 0.1, 0.5, 0.9.
 * Returns -1 on allocation failure. */
static int cs__weights(const cs_h5_weight_t *w, size_t nw, double out[3])
{
    out[0] = out[1] = out[2] = CS__NAN;
    if (nw == 0) return 0;
    cs__hp_t *p = malloc(nw * sizeof *p);
    double *x = malloc(nw * sizeof *x);
    if (!p || !x) {
        free(p);
        free(x);
        return -1;
    }
    for (size_t i = 0; i < nw; i++) {
        p[i].h = w[i].height;
        p[i].key = w[i].ident;
        p[i].v = (double)w[i].weight_ppm / 1e6;
    }
    qsort(p, nw, sizeof *p, cs__hp_cmp);
    static const double qs[3] = {0.10, 0.50, 0.90};
    double acc[3] = {0, 0, 0};
    size_t groups = 0;
    for (size_t i = 0; i < nw;) {
        size_t j = i;
        while (j < nw && p[j].h == p[i].h) {
            x[j - i] = p[j].v; /* already ascending within the height */
            j++;
        }
        for (int k = 0; k < 3; k++) acc[k] += gsl_stats_quantile_from_sorted_data(x, 1, j - i, qs[k]);
        groups++;
        i = j;
    }
    for (int k = 0; k < 3; k++) out[k] = acc[k] / (double)groups;
    free(p);
    free(x);
    return 0;
}

/* Delay quantiles over /fires rows (README "Delay"): all kinds into
 * v[delay_*], and per kind into k[][delay_*].  Returns -1 on allocation
 * failure. */
static int cs__delays(const cs__run_t *u, cs_metrics_t *m)
{
    size_t nf = u->nf;
    m->v[CS_M_delay_p50] = m->v[CS_M_delay_p95] = m->v[CS_M_delay_p99] = m->v[CS_M_delay_max] = CS__NAN;
    if (nf == 0) return 0;
    double *all = malloc(nf * sizeof *all), *byk = malloc(nf * sizeof *byk);
    if (!all || !byk) {
        free(all);
        free(byk);
        return -1;
    }
    size_t cnt[CS_METRIC_KINDS] = {0}, off[CS_METRIC_KINDS], pos[CS_METRIC_KINDS];
    for (size_t i = 0; i < nf; i++) cnt[u->f[i].kind]++;
    size_t o = 0;
    for (int k = 0; k < CS_METRIC_KINDS; k++) {
        off[k] = pos[k] = o;
        o += cnt[k];
    }
    for (size_t i = 0; i < nf; i++) {
        all[i] = (double)u->f[i].delay;
        byk[pos[u->f[i].kind]++] = (double)u->f[i].delay;
    }
    gsl_sort(all, 1, nf);
    m->v[CS_M_delay_p50] = gsl_stats_quantile_from_sorted_data(all, 1, nf, 0.50);
    m->v[CS_M_delay_p95] = gsl_stats_quantile_from_sorted_data(all, 1, nf, 0.95);
    m->v[CS_M_delay_p99] = gsl_stats_quantile_from_sorted_data(all, 1, nf, 0.99);
    m->v[CS_M_delay_max] = all[nf - 1];
    for (int k = 0; k < CS_METRIC_KINDS; k++) {
        if (cnt[k] == 0) continue;
        double *x = byk + off[k];
        gsl_sort(x, 1, cnt[k]);
        m->k[k][CS_KM_delay_p50] = gsl_stats_quantile_from_sorted_data(x, 1, cnt[k], 0.50);
        m->k[k][CS_KM_delay_p99] = gsl_stats_quantile_from_sorted_data(x, 1, cnt[k], 0.99);
        m->k[k][CS_KM_delay_max] = x[cnt[k] - 1];
    }
    free(all);
    free(byk);
    return 0;
}

/* The /summary fallback for delays (README "Fallbacks"). */
static void cs__delays_summary(const cs__run_t *u, cs_metrics_t *m)
{
    m->v[CS_M_delay_p50] = m->v[CS_M_delay_p95] = m->v[CS_M_delay_p99] = m->v[CS_M_delay_max] = CS__NAN;
    for (size_t i = 0; i < u->ns; i++) {
        const cs_h5_summary_t *s = &u->s[i];
        int has = s->fires > 0;
        if (s->kind == CS_AGENT_KIND_ALL) {
            if (!has) continue;
            m->v[CS_M_delay_p50] = s->delay_p50;
            m->v[CS_M_delay_p95] = s->delay_p95;
            m->v[CS_M_delay_p99] = s->delay_p99;
            m->v[CS_M_delay_max] = s->delay_max;
        } else if (has) {
            m->k[s->kind][CS_KM_delay_p50] = s->delay_p50;
            m->k[s->kind][CS_KM_delay_p99] = s->delay_p99;
            m->k[s->kind][CS_KM_delay_max] = s->delay_max;
        }
    }
}

/* A timer that came due by its end and never fired: pending at the close,
 * expired, or dropped for funds (README "jain"). */
static int cs__starved(const cs_h5_timer_t *t)
{
    return t->fires == 0 && t->due_height <= t->end_height &&
           (t->outcome == CS_H5_OUTCOME_PENDING || t->outcome == CS_H5_OUTCOME_EXPIRED ||
            t->outcome == CS_H5_OUTCOME_INSUFFICIENT);
}

/* Build the per-actor table (README "Per-actor quantities").  *acts is
 * malloc'd with *nact entries.  Returns CS_OK or CS_ENOMEM. */
static int cs__actors(const cs__run_t *u, cs__act_t **acts, size_t *nact)
{
    size_t n = 0;
    for (size_t i = 0; i < u->na; i++)
        if ((size_t)u->a[i].actor + 1 > n) n = (size_t)u->a[i].actor + 1;
    for (size_t i = 0; i < u->nf; i++)
        if ((size_t)u->f[i].actor + 1 > n) n = (size_t)u->f[i].actor + 1;
    for (size_t i = 0; i < u->nt; i++)
        if ((size_t)u->t[i].actor + 1 > n) n = (size_t)u->t[i].actor + 1;
    cs__act_t *a = calloc(n ? n : 1, sizeof *a);
    if (!a) return CS_ENOMEM;
    for (size_t i = 0; i < n; i++) a[i].kind = -1;
    for (size_t i = 0; i < u->nf; i++) {
        const cs_h5_fire_t *f = &u->f[i];
        cs__act_t *x = &a[f->actor];
        x->kind = (int)f->kind;
        x->agent = f->agent;
        x->fn++;
        x->f_delay += (double)f->delay;
        x->f_bid += f->bid.f;
        x->f_paid += f->paid.f;
        x->f_value += f->value;
    }
    for (size_t i = 0; i < u->nt; i++)
        if (cs__starved(&u->t[i])) {
            a[u->t[i].actor].starved++;
            a[u->t[i].actor].s_bid += u->t[i].bid.f;
        }
    if (u->na > 0) {
        for (size_t i = 0; i < u->na; i++) {
            const cs_h5_actor_t *r = &u->a[i];
            cs__act_t *x = &a[r->actor];
            x->kind = (int)r->kind;
            x->agent = r->agent;
            x->scheduled = r->scheduled;
            x->fires = (double)r->fires;
            x->value = r->value;
            x->paid = r->paid.f; /* the exact sum, rounded once */
        }
    } else {
        /* A run that never closed: totals from the rows that were flushed. */
        for (size_t i = 0; i < u->nt; i++) {
            cs__act_t *x = &a[u->t[i].actor];
            x->kind = (int)u->t[i].kind;
            x->agent = u->t[i].agent;
            x->scheduled++;
        }
        for (size_t i = 0; i < n; i++) {
            a[i].fires = (double)a[i].fn;
            a[i].value = a[i].f_value;
            a[i].paid = a[i].f_paid;
        }
    }
    *acts = a;
    *nact = n;
    return CS_OK;
}

/* Service per unit paid per agent instance, and attack gain (README
 * "attack_gain").  Returns CS_OK or CS_ENOMEM. */
static int cs__attack(const cs__act_t *a, size_t n, cs_metrics_t *m)
{
    size_t ng = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i].kind >= 0 && (size_t)a[i].agent + 1 > ng) ng = (size_t)a[i].agent + 1;
    typedef struct {
        int kind;          /* kind of the instance, -1 if unused */
        uint64_t scheduled;/* timers scheduled by its actors */
        double fires;      /* fires of its actors */
        double paid;       /* paid by its actors */
    } cs__inst_t;
    cs__inst_t *g = calloc(ng ? ng : 1, sizeof *g);
    if (!g) return CS_ENOMEM;
    for (size_t j = 0; j < ng; j++) g[j].kind = -1;
    for (size_t i = 0; i < n; i++) {
        if (a[i].kind < 0) continue;
        cs__inst_t *x = &g[a[i].agent];
        x->kind = a[i].kind;
        x->scheduled += a[i].scheduled;
        x->fires += a[i].fires;
        x->paid += a[i].paid;
    }
    double sum[CS_METRIC_KINDS] = {0};
    size_t cnt[CS_METRIC_KINDS] = {0};
    double att_sum = 0;
    size_t att_n = 0;
    for (size_t j = 0; j < ng; j++) {
        if (g[j].kind < 0 || g[j].scheduled == 0) continue;
        double s = g[j].fires / (g[j].paid > 1 ? g[j].paid : 1.0);
        sum[g[j].kind] += s;
        cnt[g[j].kind]++;
        if (g[j].kind == CS_AGENT_KIND_FRAGMENTER || g[j].kind == CS_AGENT_KIND_SPAMMER) {
            att_sum += s;
            att_n++;
        }
    }
    for (int k = 0; k < CS_METRIC_KINDS; k++)
        m->k[k][CS_KM_svc_per_paid] = cnt[k] ? sum[k] / (double)cnt[k] : CS__NAN;
    double honest = m->k[CS_AGENT_KIND_DEFAULT_GBA][CS_KM_svc_per_paid];
    m->v[CS_M_attack_gain] = (att_n && honest > 0) ? (att_sum / (double)att_n) / honest : CS__NAN;
    free(g);
    return CS_OK;
}

/* Per-actor service of README "jain": served share / (1 + mean delay),
 * 0 for an actor that never fired. */
static double cs__service(const cs__act_t *a)
{
    if (a->fn == 0) return 0.0;
    double fn = (double)a->fn;
    return fn / (fn + (double)a->starved) / (1.0 + a->f_delay / fn);
}

/* Jain over per-actor service and the CIP-5 §9.6 variances (README
 * "jain", "var_util_per_bid", "var_eff_per_bid"), from /fires.  Returns
 * CS_OK or CS_ENOMEM. */
static int cs__fairness_fires(const cs__act_t *a, size_t n, const char *mech, cs_metrics_t *m)
{
    double *x = malloc((n ? n : 1) * sizeof *x), *b = malloc((n ? n : 1) * sizeof *b);
    double *r = malloc((n ? n : 1) * sizeof *r);
    if (!x || !b || !r) {
        free(x);
        free(b);
        free(r);
        return CS_ENOMEM;
    }
    /* Jain over every actor with a due timer: x_i = served share / (1 +
     * mean delay), 0 for a starved actor. */
    size_t nx = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i].fn == 0 && a[i].starved == 0) continue;
        x[nx++] = cs__service(&a[i]);
    }
    m->v[CS_M_jain] = cs_stat_jain(x, nx);
    /* CIP-5 §9.6 over the same actors (README "var_util_per_bid", N43):
     * u_i = utility per due timer, efficiency_i = x_i, b_i = bid (or paid)
     * per fire; a starved actor counts with u_i = efficiency_i = 0 when it
     * offered a price: a starved timer's bid in the bid family, the lane
     * fee under a fee mechanism.  b[] = 0 marks an actor without b_i. */
    int bidfam = cs__bid_family(mech);
    const cs_mech_ops_t *ops = cs_mech_find_any(mech);
    int fees = ops && (ops->flags & CS_MF_FEES);
    size_t nb = 0, nbb = 0;
    double bsum = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i].fn == 0 && a[i].starved == 0) continue;
        double fn = (double)a[i].fn, due = fn + (double)a[i].starved;
        if (a[i].fn == 0) {
            double bi = bidfam ? a[i].s_bid / due : 0;
            if (bidfam ? !(bi > 0) : !fees) continue; /* offered no price */
            x[nb] = 0;
            r[nb] = 0;
            b[nb] = bi;
        } else {
            double bi = (bidfam ? a[i].f_bid : a[i].f_paid) / fn;
            if (!(bi > 0)) continue;
            x[nb] = (a[i].f_value - a[i].f_paid) / due / bi; /* utility per unit bid */
            r[nb] = cs__service(&a[i]);                      /* efficiency_i = x_i of jain */
            b[nb] = bi;
        }
        if (b[nb] > 0) {
            bsum += b[nb];
            nbb++;
        }
        nb++;
    }
    m->v[CS_M_var_util_per_bid] = cs__pvar(x, nb);
    double bbar = nbb ? bsum / (double)nbb : 0;
    for (size_t i = 0; i < nb; i++) r[i] = b[i] > 0 ? r[i] * bbar / b[i] : 0;
    m->v[CS_M_var_eff_per_bid] = cs__pvar(r, nb);
    free(x);
    free(b);
    free(r);
    return CS_OK;
}

/* Gini over per-actor fires of actors that scheduled (README "gini"). */
static int cs__gini(const cs__act_t *a, size_t n, cs_metrics_t *m)
{
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!x) return CS_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i].kind >= 0 && (a[i].scheduled > 0 || a[i].fires > 0)) x[k++] = a[i].fires;
    m->v[CS_M_gini] = cs_stat_gini(x, k);
    /* cs_stat_gini is NaN for n == 0, a zero sum, or when its sorted copy
     * cannot be allocated; the last must not pass for a metric value
     * (`check` would report a regression). */
    double sum = 0;
    for (size_t i = 0; i < k; i++) sum += x[i];
    free(x);
    if (isnan(m->v[CS_M_gini]) && k > 0 && sum != 0) return CS_ENOMEM;
    return CS_OK;
}

/* Stability metrics from /blocks (README "Stability"). */
static int cs__stability(const cs__run_t *u, cs_metrics_t *m)
{
    size_t nb = u->nb;
    m->v[CS_M_basefee_mean] = m->v[CS_M_basefee_cv] = m->v[CS_M_util_mean] = CS__NAN;
    m->v[CS_M_full_share] = m->v[CS_M_empty_share] = CS__NAN;
    if (nb == 0) return CS_OK;
    double *x = malloc(nb * sizeof *x);
    if (!x) return CS_ENOMEM;
    for (size_t i = 0; i < nb; i++) x[i] = u->b[i].basefee_lane.f;
    double mu = gsl_stats_mean(x, 1, nb);
    m->v[CS_M_basefee_mean] = mu;
    m->v[CS_M_basefee_cv] = mu > 0 ? sqrt(gsl_stats_variance_with_fixed_mean(x, 1, nb, mu)) / mu : CS__NAN;
    size_t full = 0, empty = 0;
    for (size_t i = 0; i < nb; i++) {
        x[i] = u->b[i].utilisation;
        if (u->b[i].utilisation >= CS__FULL_UTIL) full++;
        if (u->b[i].fired == 0) empty++;
    }
    m->v[CS_M_util_mean] = gsl_stats_mean(x, 1, nb);
    m->v[CS_M_full_share] = (double)full / (double)nb;
    m->v[CS_M_empty_share] = (double)empty / (double)nb;
    free(x);
    return CS_OK;
}

const char *cs_metrics_fmt(char *buf, size_t cap, double v)
{
    char t[64];
    if (!isfinite(v)) {
        snprintf(buf, cap, "-");
        return buf;
    }
    snprintf(t, sizeof t, "%.4g", v);
    char *e = strchr(t, 'e');
    if (!e) {
        snprintf(buf, cap, "%s", t);
        return buf;
    }
    const char *p = e + 1, *sign = *p == '-' ? "-" : "";
    if (*p == '-' || *p == '+') p++;
    while (*p == '0' && p[1]) p++;
    *e = '\0';
    snprintf(buf, cap, "%se%s%s", t, sign, p);
    return buf;
}

/* CIP-5 §9.3's invariant over the run (README "bias_slack_violated"):
 * over the blocks whose /blocks.bias_slack is a number (a bias rule
 * deferred someone), the share below 0 and the mean of max(0, -slack).
 * NaN without such a block, and for files written before the column (it
 * reads as 0 in every row, which no run with a deferral gives). */
static void cs__slack(const cs__run_t *u, cs_metrics_t *m)
{
    m->v[CS_M_bias_slack_violated] = m->v[CS_M_bias_slack_deficit] = CS__NAN;
    size_t n = 0, viol = 0, nonzero = 0;
    double deficit = 0;
    for (size_t i = 0; i < u->nb; i++) {
        double x = u->b[i].bias_slack;
        if (isnan(x)) continue;
        n++;
        nonzero += x != 0;
        if (x < 0) {
            viol++;
            deficit -= x;
        }
    }
    if (n == 0 || nonzero == 0) return;
    m->v[CS_M_bias_slack_violated] = (double)viol / (double)n;
    m->v[CS_M_bias_slack_deficit] = deficit / (double)n;
}

static cs_opt_gap_cfg_t cs__gap_cfg = CS_OPT_GAP_DEFAULT; /* cs_metrics_set_gap */

void cs_metrics_set_gap(const struct cs_opt_gap_cfg *cfg)
{
    const cs_opt_gap_cfg_t def = CS_OPT_GAP_DEFAULT;
    cs__gap_cfg = cfg ? *cfg : def;
}

int cs_metrics_gap_arg(int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    int windows = strcmp(a, "--gap-windows") == 0;
    if ((!windows && strcmp(a, "--gap-width") != 0) || *i + 1 >= argc) return 0;
    const char *s = argv[*i + 1];
    char *end;
    if (*s < '0' || *s > '9') return 0;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || errno || x > 1000000 || (!windows && x == 0)) return 0;
    if (windows) cs__gap_cfg.windows = (size_t)x;
    else cs__gap_cfg.width = (size_t)x;
    ++*i;
    return 1;
}

void cs_metrics_benchmark_text(const cs_metrics_t *m, char *buf, size_t cap)
{
    int budget = 0, fcap = 0, quotas = 0;
    const char *under = cs_opt_rules(m->mechanism, &budget, &fcap, &quotas) == 0 && budget
                            ? "under the lane budget, per-fire cap and quotas"
                            : "with no lane budget (unbounded reference)";
    if (m->opt_method < 0) snprintf(buf, cap, "nothing (welfare_opt not computed)");
    else if (cs_opt_exact(m->opt_method))
        snprintf(buf, cap, "the exact optimum %s (%s, %llu variables)", under, cs_opt_method_name(m->opt_method),
                 (unsigned long long)m->opt_vars);
    else if (m->gap_solved > 0)
        snprintf(buf, cap,
                 "an upper bound of the optimum %s (%s, %llu variables; the bound's gap to the exact optimum on "
                 "%llu of %llu sampled windows of %llu blocks: %.2f %%, at most %.2f %% in one)",
                 under, cs_opt_method_name(m->opt_method), (unsigned long long)m->opt_vars,
                 (unsigned long long)m->gap_solved, (unsigned long long)m->gap_windows,
                 (unsigned long long)m->gap_width, 100.0 * m->v[CS_M_bound_gap], 100.0 * m->gap_max);
    else
        snprintf(buf, cap, "an upper bound of the optimum %s (%s, %llu variables; its gap not measured: %llu windows "
                 "sampled, none solved exactly)", under, cs_opt_method_name(m->opt_method),
                 (unsigned long long)m->opt_vars, (unsigned long long)m->gap_windows);
}

const char *cs_metrics_efficiency_vs(const cs_metrics_t *m)
{
    if (m->opt_method < 0) return NULL;
    return cs_opt_exact(m->opt_method) ? "optimum" : "bound";
}

/* The welfare optimum of the run and efficiency, poa (README "Welfare
 * optimum"), and when it is an upper bound its gap on the sampled windows
 * (README "Bound gap").  Not computable (sampled fires, an older file,
 * ...): NaN and a note.  Returns CS_OK, CS_ENOMEM or CS_EINVAL (GLPK
 * failed). */
static int cs__optimum(const cs__run_t *u, int all_fires, cs_metrics_t *m, const char *path, char *err,
                       size_t cap)
{
    m->opt_method = -1;
    m->gap_max = CS__NAN;
    if (!all_fires) {
        cs__note(m, "welfare_opt needs every fire (output.fires = all): efficiency and poa not computed.");
        return CS_OK;
    }
    cs_opt_result_t r;
    cs_opt_problem_t p;
    uint64_t *fired = NULL;
    int usable = 0;
    char why[300] = "";
    int rc = cs_opt_run_problem(m->mechanism, u->b, u->nb, u->f, u->nf, u->t, u->nt, &p, &fired, &usable, why,
                                sizeof why);
    if (rc == CS_OK && usable) rc = cs_opt_solve(&p, NULL, &r, why, sizeof why);
    cs_opt_gap_t g = {0};
    g.gap = CS__NAN;
    if (rc == CS_OK && usable && !cs_opt_exact(r.method))
        rc = cs_opt_gap(&p, fired, r.method, &cs__gap_cfg, &g, NULL, why, sizeof why);
    cs_opt_problem_free(&p, fired);
    if (rc != CS_OK) {
        cs__seterr(err, cap, "%s: welfare optimum: %s", path, rc == CS_ENOMEM ? "out of memory" : why);
        return rc;
    }
    if (!usable) {
        cs__note(m, "welfare_opt not computed: %s.", why);
        return CS_OK;
    }
    double w = m->v[CS_M_welfare];
    m->opt_method = r.method;
    m->opt_vars = r.vars;
    m->v[CS_M_welfare_opt] = r.welfare;
    m->v[CS_M_opt_exact] = cs_opt_exact(r.method) ? 1.0 : 0.0;
    m->v[CS_M_bound_gap] = cs_opt_exact(r.method) ? 0.0 : g.gap;
    m->gap_windows = g.windows;
    m->gap_solved = g.solved;
    m->gap_width = g.width;
    m->gap_max = g.gap_max;
    m->v[CS_M_efficiency] = r.welfare > 0 ? w / r.welfare : CS__NAN;
    m->v[CS_M_poa] = w > 0 ? r.welfare / w : CS__NAN;
    return CS_OK;
}

/* Compare the greedy run with this one and set efficiency and poa
 * (README "efficiency", "poa").  A file that cannot be read is an error;
 * one of another seed or scenario leaves NaN with a note. */
static int cs__greedy(const char *opath, const cs__run_t *u, cs_metrics_t *m, char *err, size_t cap)
{
    cs__run_t o;
    int rc = cs__run_load(opath, &o, err, cap);
    if (rc != CS_OK) return rc;
    const cs_h5_info_t *oi = cs_h5_info(o.r), *ri = cs_h5_info(u->r);
    char oname[128];
    if ((rc = cs__scenario_name(oi->scenario_json, oname, sizeof oname)) != CS_OK) {
        cs__run_free(&o);
        cs__seterr(err, cap, rc == CS_ECORRUPT ? "'%s' is corrupt: its scenario text is not JSON"
                                               : "%s: out of memory reading the scenario name", opath);
        return rc;
    }
    /* Files written before DESIGN-NOTES N42 name the greedy `oracle`. */
    const char *mech = cs_mech_renamed(oi->mechanism) ? cs_mech_renamed(oi->mechanism) : oi->mechanism;
    if (strcmp(mech, "greedy") != 0) {
        cs__note(m, "greedy file %s holds mechanism '%s', not 'greedy': efficiency not computed.", opath,
                 oi->mechanism);
    } else if (oi->seed != ri->seed || strcmp(oname, m->scenario) != 0) {
        cs__note(m, "greedy file %s is scenario '%.60s' seed %llu, the run is '%.60s' seed %llu: efficiency not computed.",
                 opath, oname, (unsigned long long)oi->seed, m->scenario, (unsigned long long)ri->seed);
    } else {
        double ow = cs__welfare(&o);
        double w = m->v[CS_M_welfare];
        m->has_greedy = 1;
        m->v[CS_M_efficiency_greedy] = ow > 0 ? w / ow : CS__NAN;
        if (o.nb != u->nb)
            cs__note(m, "greedy run has %zu blocks, this run %zu: efficiency compares unequal horizons.", o.nb,
                     u->nb);
        if (!oi->complete) cs__note(m, "greedy run %s is incomplete.", opath);
    }
    cs__run_free(&o);
    return CS_OK;
}

/* Metrics of one run file; see cs_metrics.h. */
int cs_metrics_compute(const char *path, const char *greedy_path, cs_metrics_t *m, char *err, size_t errcap)
{
    return cs_metrics_compute_conv(path, greedy_path, m, NULL, err, errcap);
}

int cs_metrics_compute_conv(const char *path, const char *greedy_path, cs_metrics_t *m, char **conv, char *err,
                            size_t errcap)
{
    if (conv) *conv = NULL;
    if (err && errcap) err[0] = '\0';
    if (!path || !m) {
        cs__seterr(err, errcap, "cs_metrics_compute: NULL argument");
        return CS_EINVAL;
    }
    memset(m, 0, sizeof *m);
    for (int i = 0; i < CS_M__COUNT; i++) m->v[i] = CS__NAN;
    for (int k = 0; k < CS_METRIC_KINDS; k++)
        for (int j = 0; j < CS_KM__COUNT; j++) m->k[k][j] = CS__NAN;
    cs__run_t u;
    int rc = cs__run_load(path, &u, err, errcap);
    if (rc != CS_OK) return rc;
    const cs_h5_info_t *info = cs_h5_info(u.r);
    snprintf(m->mechanism, sizeof m->mechanism, "%s", info->mechanism ? info->mechanism : "");
    m->seed = info->seed;
    cs__act_t *acts = NULL;
    size_t nact = 0;
    if ((rc = cs__scenario_name(info->scenario_json, m->scenario, sizeof m->scenario)) == CS_ECORRUPT) {
        cs__run_free(&u);
        cs__seterr(err, errcap, "'%s' is corrupt: its scenario text is not JSON", path);
        return rc;
    }
    if (rc != CS_OK) goto oom;
    /* Fires mode (root attributes; a file without them holds every fire).
     * Only an absent or unreadable attribute means the default: out of
     * memory reading one is an error, not "all fires". */
    char *mode = NULL;
    m->fires_mode = CS_H5_FIRES_ALL;
    m->fires_sample_every = 1;
    rc = cs_h5_read_attr_str(u.r, "fires_mode", &mode);
    if (rc == CS_ENOMEM) goto oom;
    if (rc == CS_OK && mode) {
        if (strcmp(mode, "sample") == 0) m->fires_mode = CS_H5_FIRES_SAMPLE;
        else if (strcmp(mode, "off") == 0) m->fires_mode = CS_H5_FIRES_OFF;
    }
    free(mode);
    /* The §9.3 lambda loop the run started with (root lambda_loop, N70). */
    char *loop = NULL;
    rc = cs_h5_read_attr_str(u.r, "lambda_loop", &loop);
    if (rc == CS_ENOMEM) goto oom;
    if (rc == CS_OK && loop) snprintf(m->lambda_loop, sizeof m->lambda_loop, "%s", loop);
    free(loop);
    uint64_t se = 1;
    rc = cs_h5_read_attr_u64(u.r, "fires_sample_every", &se);
    if (rc == CS_ENOMEM) goto oom;
    if (rc == CS_OK) m->fires_sample_every = se;
    int all_fires = m->fires_mode == CS_H5_FIRES_ALL ||
                    (m->fires_mode == CS_H5_FIRES_SAMPLE && m->fires_sample_every == 1);
    m->delay_src = all_fires ? CS_METRICS_SRC_FIRES : CS_METRICS_SRC_SUMMARY;
    if (!info->complete) cs__note(m, "incomplete run (complete = 0): metrics cover the rows written.");

    rc = cs__actors(&u, &acts, &nact);
    if (rc != CS_OK) goto oom;
    if (u.na == 0 && nact > 0)
        cs__note(m, "no /actors rows (the run did not close): per-actor totals from /fires and /timers.");

    /* Counts and totals (README "Counts", "Revenue", "Welfare"). */
    m->v[CS_M_blocks] = (double)u.nb;
    m->v[CS_M_complete] = info->complete ? 1.0 : 0.0;
    double timers = 0, fires = 0, welfare = 0, paid = 0;
    for (size_t i = 0; i < nact; i++) {
        if (acts[i].kind < 0) continue;
        int k = acts[i].kind;
        if (!m->kind_present[k]) {
            m->kind_present[k] = 1;
            m->k[k][CS_KM_fires] = m->k[k][CS_KM_censored] = 0;
            m->k[k][CS_KM_paid] = m->k[k][CS_KM_utility] = 0;
        }
        timers += (double)acts[i].scheduled;
        fires += acts[i].fires;
        welfare += acts[i].value;
        paid += acts[i].paid;
        m->k[k][CS_KM_fires] += acts[i].fires;
        m->k[k][CS_KM_paid] += acts[i].paid;
        m->k[k][CS_KM_utility] += acts[i].value - acts[i].paid;
    }
    m->v[CS_M_timers] = timers;
    m->v[CS_M_fires] = fires;
    m->v[CS_M_welfare] = welfare;
    m->v[CS_M_paid] = paid;
    m->v[CS_M_utility] = welfare - paid;
    /* Censored: timers with no fire that were pending, expired or dropped. */
    double cens = 0;
    for (size_t i = 0; i < u.nt; i++) {
        const cs_h5_timer_t *t = &u.t[i];
        if (t->fires != 0) continue;
        if (t->outcome != CS_H5_OUTCOME_PENDING && t->outcome != CS_H5_OUTCOME_EXPIRED &&
            t->outcome != CS_H5_OUTCOME_INSUFFICIENT)
            continue;
        cens += 1;
        if (m->kind_present[t->kind]) m->k[t->kind][CS_KM_censored] += 1;
    }
    m->v[CS_M_censored] = cens;
    cs_u128 burn = 0, tips = 0, pay = 0; /* exact sums, rounded once */
    for (size_t i = 0; i < u.nb; i++) {
        burn += cs_h5_money_u128(u.b[i].burn);
        tips += cs_h5_money_u128(u.b[i].tips);
        pay += cs_h5_money_u128(u.b[i].payments);
    }
    m->v[CS_M_burn] = (double)burn;
    m->v[CS_M_tips] = (double)tips;
    m->v[CS_M_payments] = (double)pay;
    double prop = 0;
    rc = cs_h5_read_attr_f64(u.r, "proposer", &prop);
    if (rc == CS_ENOMEM) goto oom;
    m->v[CS_M_revenue_proposer] = rc == CS_OK ? prop : (double)(tips + pay);

    /* Delays, Jain, §9.6 variances, reversals: /fires or the fallbacks. */
    if (all_fires) {
        if (cs__delays(&u, m) != 0) goto oom;
        rc = cs__fairness_fires(acts, nact, m->mechanism, m);
        if (rc != CS_OK) goto oom;
        double rv = cs__reversals(u.f, u.nf);
        if (rv < 0) goto oom;
        m->v[CS_M_reversals] = rv;
    } else {
        cs__delays_summary(&u, m);
        double j = 0;
        rc = cs_h5_read_attr_f64(u.r, "jain", &j);
        if (rc == CS_ENOMEM) goto oom;
        if (rc == CS_OK) m->v[CS_M_jain] = j;
        if (m->fires_mode == CS_H5_FIRES_OFF)
            cs__note(m, "output.fires = off: delay quantiles from /summary (nearest rank), jain from the root "
                        "attribute; var_util_per_bid, var_eff_per_bid and reversals not computed.");
        else
            cs__note(m, "output.fires sampled 1/%llu: delay quantiles from /summary (nearest rank), jain from "
                        "the root attribute; var_util_per_bid, var_eff_per_bid and reversals not computed.",
                     (unsigned long long)m->fires_sample_every);
    }
    rc = cs__gini(acts, nact, m);
    if (rc == CS_OK) rc = cs__attack(acts, nact, m);
    if (rc != CS_OK) goto oom;
    double wq[3];
    if (cs__weights(u.w, u.nw, wq) != 0) goto oom;
    m->v[CS_M_w_p10] = wq[0];
    m->v[CS_M_w_p50] = wq[1];
    m->v[CS_M_w_p90] = wq[2];
    if (cs__stability(&u, m) != CS_OK) goto oom;
    cs__slack(&u, m);
    free(acts);
    acts = NULL;
    rc = cs__optimum(&u, all_fires, m, path, err, errcap);
    if (rc != CS_OK) {
        cs__run_free(&u);
        return rc;
    }

    if (greedy_path) {
        rc = cs__greedy(greedy_path, &u, m, err, errcap);
        if (rc != CS_OK) {
            cs__run_free(&u);
            return rc;
        }
    }
    /* The strategic populations' convergence (N77), as written; last, so
     * no error path above holds it. */
    if (conv) {
        rc = cs_h5_read_attr_str(u.r, "convergence", conv);
        if (rc == CS_ENOMEM) goto oom;
        if (rc != CS_OK) *conv = NULL; /* absent */
    }
    cs__run_free(&u);
    return CS_OK;
oom:
    free(acts);
    cs__run_free(&u);
    cs__seterr(err, errcap, "%s: out of memory computing metrics", path);
    return CS_ENOMEM;
}

/* ------------------------------------------------------------ flat access */

/* Number of metrics: run-level, then CS_KM__COUNT per present kind. */
size_t cs_metrics_n(const cs_metrics_t *m)
{
    size_t n = CS_M__COUNT;
    if (!m) return n;
    for (int k = 0; k < CS_METRIC_KINDS; k++)
        if (m->kind_present[k]) n += CS_KM__COUNT;
    return n;
}

/* Locate flat index i: returns -1 for run-level (metric in *j), else the
 * kind (kind metric in *j); -2 when out of range. */
static int cs__locate(const cs_metrics_t *m, size_t i, int *j)
{
    if (i < CS_M__COUNT) {
        *j = (int)i;
        return -1;
    }
    i -= CS_M__COUNT;
    for (int k = 0; k < CS_METRIC_KINDS; k++) {
        if (!m->kind_present[k]) continue;
        if (i < CS_KM__COUNT) {
            *j = (int)i;
            return k;
        }
        i -= CS_KM__COUNT;
    }
    return -2;
}

/* Name of flat metric i into buf ("" if out of range); returns buf. */
const char *cs_metrics_name(const cs_metrics_t *m, size_t i, char *buf, size_t cap)
{
    if (!buf || cap == 0) return buf;
    buf[0] = '\0';
    if (!m) return buf;
    int j = 0, k = cs__locate(m, i, &j);
    if (k == -1) snprintf(buf, cap, "%s", cs__m_names[j]);
    else if (k >= 0) snprintf(buf, cap, "%s.%s", cs__km_names[j], cs_h5_kind_names[k]);
    return buf;
}

/* Value of flat metric i (NaN if out of range). */
double cs_metrics_value(const cs_metrics_t *m, size_t i)
{
    if (!m) return CS__NAN;
    int j = 0, k = cs__locate(m, i, &j);
    if (k == -1) return m->v[j];
    if (k >= 0) return m->k[k][j];
    return CS__NAN;
}

/* Parse a metric name: returns -1 (run-level, *j set), a kind >= 0 (kind
 * metric *j), or -2 if unknown. */
static int cs__parse_name(const char *name, int *j)
{
    if (!name) return -2;
    const char *dot = strchr(name, '.');
    if (!dot) {
        for (int i = 0; i < CS_M__COUNT; i++)
            if (strcmp(name, cs__m_names[i]) == 0) {
                *j = i;
                return -1;
            }
        return -2;
    }
    size_t len = (size_t)(dot - name);
    int k = cs_h5_kind_lookup(dot + 1);
    if (k < 0 || k >= CS_METRIC_KINDS) return -2;
    for (int i = 0; i < CS_KM__COUNT; i++)
        if (strlen(cs__km_names[i]) == len && strncmp(name, cs__km_names[i], len) == 0) {
            *j = i;
            return k;
        }
    return -2;
}

/* Look up a metric by name; see cs_metrics.h. */
int cs_metrics_get(const cs_metrics_t *m, const char *name, double *v)
{
    int j = 0, k = cs__parse_name(name, &j);
    if (k == -2 || !m) return -1;
    double x = k == -1 ? m->v[j] : (m->kind_present[k] ? m->k[k][j] : CS__NAN);
    if (v) *v = x;
    return 0;
}

/* Description of a metric name, or NULL if unknown. */
const char *cs_metrics_doc(const char *name)
{
    int j = 0, k = cs__parse_name(name, &j);
    if (k == -2) return NULL;
    return k == -1 ? cs__m_docs[j] : cs__km_docs[j];
}

/* The greedy.h5 beside run_path (same directory), else the oracle.h5 that
 * runs made before DESIGN-NOTES N42 wrote there, if one exists. */
const char *cs_metrics_find_greedy(const char *run_path, char *buf, size_t cap)
{
    if (!run_path || !buf || cap == 0) return NULL;
    const char *slash = strrchr(run_path, '/');
    static const char *const base[] = {"greedy.h5", "oracle.h5"};
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        int n = slash ? snprintf(buf, cap, "%.*s/%s", (int)(slash - run_path), run_path, base[i])
                      : snprintf(buf, cap, "%s", base[i]);
        if (n < 0 || (size_t)n >= cap) return NULL;
        FILE *f = fopen(buf, "rb");
        if (!f) continue;
        fclose(f);
        return buf;
    }
    return NULL;
}
