/*
 * cs_scenario.c -- scenario JSON: loading, validation, --set overrides and
 * the `cowsim validate` command (DESIGN §5 "Scenario JSON").
 *
 * Loading runs in four stages, each bounded before anything is allocated
 * from what the input claims:
 *   1. size and byte checks on the raw text (at most CS__MAX_TEXT bytes,
 *      no NUL byte), then a scan of the raw text for the nesting depth
 *      (at most CS__MAX_DEPTH), so no later walk can recurse deeply;
 *   2. cJSON parses the text;
 *   3. each --set PATH=VALUE is checked against the scenario format and
 *      applied to the tree;
 *   4. one walk validates the tree and fills cs_scenario_t.  It never
 *      stops at the first problem: every error goes to the caller's
 *      cs_errlist_t as "JSON.path: constraint", and the scenario is only
 *      returned when the list stayed empty.
 *
 * The format is documented in scenarios/schema.json; the parts of that
 * schema that come from tables (parameters, mechanisms, agent kinds and
 * their parameters) are printed by `cowsim validate --print-schema-defs`,
 * and tests/test_scenario.c fails when the two drift apart.
 */
#include "cs_scenario.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_randist.h>

#include "cs_exit.h"
#include "cs_mech.h"

/* ------------------------------------------------------------ limits */

#define CS__MAX_TEXT (64u << 20)           /* bytes of scenario JSON (64 MiB) */
#define CS__MAX_DEPTH 32                   /* nesting of objects and lists */
#define CS__MAX_ERRORS 1000                /* messages kept; one more says the rest were cut */
#define CS__MAX_BLOCKS 1000000000ull       /* blocks: [1, 10^9] */
#define CS__MAX_COUNT 1000000ull           /* agents[i].count: [1, 10^6] */
#define CS__MAX_ACTORS 10000000ull         /* actors over all agent entries */
#define CS__MAX_AGENT_ENTRIES 65536        /* entries of agents[] */
#define CS__MAX_EVENTS 100000              /* entries of events[] (each holds a cs_params_t) */
#define CS__MAX_POINTS 1000000             /* breakpoints of one piecewise process */
#define CS__MAX_NAME 128                   /* name, deployer */
#define CS__MAX_DIR 4096                   /* output.dir */
#define CS__MAX_SETS_PATH 256              /* --set PATH length */
#define CS__MAX_WINDOW 1000000000ull       /* durations, flush/weights periods, sample N */
#define CS__MAX_MULT 1e6                   /* demand / volatility multipliers */
#define CS__MAX_FEE 1e18                   /* environment basefees per cycle / cell */
#define CS__JSON_EXACT 9007199254740992.0  /* 2^53: larger JSON integers lose precision */
#define CS__PATH 600                       /* path buffer; keys are cut to 64 bytes */

/* Defaults that are not parameters (documented in scenarios/schema.json). */
#define CS__DEF_BALANCE 1000000000000000000ull /* agents[i].balance: 10^18 base units */
#define CS__DEF_PATIENCE 20                    /* agents[i].patience: blocks priced out before a cancel */
#define CS__MAX_PATIENCE 1000000000ull         /* agents[i].patience: upper bound */
#define CS__DEF_BASEFEE 1000.0                 /* environment basefee_cycle / basefee_cell */
#define CS__DEF_FLUSH 1000                     /* output.flush_every */
#define CS__DEF_WEIGHTS 100                    /* output.weights_every */

/* ------------------------------------------------------------ error list */

/*
 * Append one formatted message.  After CS__MAX_ERRORS messages one final
 * line says that further errors were suppressed and later calls are
 * ignored, so hostile input cannot grow the list without bound.  An
 * allocation failure drops the message (the caller sees the error code).
 */
void cs_errlist_add(cs_errlist_t *e, const char *fmt, ...)
{
    if (e->n > CS__MAX_ERRORS) return;
    char *m = NULL;
    if (e->n == CS__MAX_ERRORS) {
        static const char cut[] = "further errors suppressed (limit 1000)";
        m = malloc(sizeof cut);
        if (m) memcpy(m, cut, sizeof cut);
    } else {
        va_list ap;
        va_start(ap, fmt);
        int len = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (len < 0) return;
        m = malloc((size_t)len + 1);
        if (m) {
            va_start(ap, fmt);
            vsnprintf(m, (size_t)len + 1, fmt, ap);
            va_end(ap);
        }
    }
    if (m == NULL) return;
    if (e->n == e->cap) {
        size_t nc = e->cap ? 2 * e->cap : 16;
        char **nm = realloc(e->msg, nc * sizeof *nm);
        if (nm == NULL) {
            free(m);
            return;
        }
        e->msg = nm;
        e->cap = nc;
    }
    e->msg[e->n++] = m;
}

/* Free every message and reset the list to empty (reusable). */
void cs_errlist_free(cs_errlist_t *e)
{
    for (size_t i = 0; i < e->n; i++) free(e->msg[i]);
    free(e->msg);
    e->msg = NULL;
    e->n = e->cap = 0;
}

/* ------------------------------------------------------------ text helpers */

/*
 * Copy s into out (cap >= 72) for use inside a message: at most 64 bytes,
 * control bytes and quotes replaced by '?', and "..." when cut, so one
 * error always stays on one line.  Returns out.
 */
static const char *cs__clean(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n < 64 && n + 4 < cap; s++) {
        unsigned char ch = (unsigned char)*s;
        out[n++] = (ch < 0x20 || ch == 0x7f || ch == '"') ? '?' : (char)ch;
    }
    if (*s && n + 4 < cap) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

/* out = parent.key (or key at the root), key cleaned. */
static void cs__pkey(char *out, const char *parent, const char *key)
{
    char k[80];
    cs__clean(key, k, sizeof k);
    int r = parent[0] ? snprintf(out, CS__PATH, "%s.%s", parent, k) : snprintf(out, CS__PATH, "%s", k);
    if (r < 0) out[0] = '\0';
}

/* out = parent[i]. */
static void cs__pidx(char *out, const char *parent, size_t i)
{
    if (snprintf(out, CS__PATH, "%s[%zu]", parent, i) < 0) out[0] = '\0';
}

/* A double for a message: shortest of %.15g (1.5, 1e+20, -3). */
static const char *cs__fmtd(double x, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.15g", x);
    return buf;
}

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

/* Levenshtein distance of the first 64 bytes of a and b. */
static size_t cs__edit(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64) la = 64;
    if (lb > 64) lb = 64;
    size_t prev[65], cur[65];
    for (size_t j = 0; j <= lb; j++) prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = CS_MIN(sub, CS_MIN(del, ins));
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

/* The name within edit distance 2 of key (first best in table order), or
 * NULL: the "did you mean" hint of unknown-key errors. */
static const char *cs__suggest(const char *key, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t bd = 3, kl = strlen(key);
    for (size_t i = 0; i < n; i++) {
        size_t d = cs__edit(key, names[i]);
        if (d < bd && d < kl) {
            bd = d;
            best = names[i];
        }
    }
    return best;
}

/* names joined with ", " into buf (cut at cap). */
static const char *cs__join(const char *const *names, size_t n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int r = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", names[i]);
        if (r < 0 || (size_t)r >= cap - len) break;
        len += (size_t)r;
    }
    return buf;
}

/* Parse a canonical non-negative decimal (no sign, no leading zero unless
 * "0") into a u128.  Returns 0, or -1 on syntax error or overflow. */
static int cs__parse_dec(const char *s, cs_u128 *out)
{
    if (s[0] == '\0' || (s[0] == '0' && s[1] != '\0')) return -1;
    return cs_u128_parse(s, out);
}

/* ------------------------------------------------------------ the format */

/* Keys of each object of the format (the JSON Schema lists the same). */
static const char *const cs__top_keys[] = {"name",   "description", "seed",   "seeds",  "blocks", "mechanism",
                                           "params", "environment", "agents", "events", "output"};
static const char *const cs__env_keys[] = {"basefee_cycle", "basefee_cell"};
static const char *const cs__proc_keys[] = {"type", "value", "points", "sigma", "min", "max"};
static const char *const cs__agent_keys[] = {"kind",     "count",    "deployer",    "balance", "fee_payer",
                                             "params",   "enter_at", "exit_at",     "value_aware", "patience",
                                             "strategy", "role"};
static const char *const cs__event_keys[] = {"at", "type", "params", "mult", "duration", "kinds", "agent"};
static const char *const cs__output_keys[] = {"fires", "flush_every", "weights_every", "dir"};
static const char *const cs__fires_keys[] = {"sample"};

#define CS__N(a) (sizeof(a) / sizeof((a)[0]))

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

/* Parameters fixed for a whole run: the queue geometry (cs_sched_set_params
 * refuses to change it) and the fairness window (its ring is sized once). */
static const char *const cs__fixed_params[] = {"ring_size", "epoch_blocks", "epochs", "fairness_window"};

/* ------------------------------------------------------------ validation */

/* State of one validation walk. */
typedef struct cs__ctx {
    cs_errlist_t *e;       /* where messages go */
    cs_scenario_t *s;      /* scenario being filled */
    int oom;               /* an allocation failed */
    int blocks_ok;         /* s->blocks is valid (bounds for at / enter_at) */
    int agents_ok;         /* s->n_agents is the real entry count */
} cs__ctx_t;

/* Report "path: message" (path "$" for the document itself). */
static void cs__err(cs__ctx_t *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cs__err(cs__ctx_t *c, const char *path, const char *fmt, ...)
{
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cs_errlist_add(c->e, "%s: %s", path[0] ? path : "$", msg);
}

/* What a JSON value is, for "got ..." in messages. */
static const char *cs__tname(const cJSON *j)
{
    if (cJSON_IsObject(j)) return "an object";
    if (cJSON_IsArray(j)) return "a list";
    if (cJSON_IsString(j)) return "a string";
    if (cJSON_IsNumber(j)) return "a number";
    if (cJSON_IsBool(j)) return "a boolean";
    if (cJSON_IsNull(j)) return "null";
    return "an invalid value";
}

/* The first member of obj named key (exact case), or NULL. */
static const cJSON *cs__item(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* 1 if child is the first member of its object with its key (later
 * duplicates are reported by cs__keys and otherwise ignored). */
static int cs__first(const cJSON *obj, const cJSON *child)
{
    return cs__item(obj, child->string) == child;
}

/*
 * Check every key of obj against names[0..n): an unknown key is reported
 * with the allowed list (list != 0) or a "did you mean" hint, and a key
 * given twice is reported at its second occurrence.  what names the
 * context of an unknown key ("for type constant", or "").
 */
static void cs__keys(cs__ctx_t *c, const cJSON *obj, const char *path, const char *const *names, size_t n,
                     int list, const char *what)
{
    const cJSON *ch;
    cJSON_ArrayForEach(ch, obj)
    {
        char p[CS__PATH];
        cs__pkey(p, path, ch->string);
        size_t k = 0;
        while (k < n && strcmp(names[k], ch->string) != 0) k++;
        if (k == n) {
            if (list) {
                char buf[600];
                cs__err(c, p, "unknown key%s (allowed: %s)", what, cs__join(names, n, buf, sizeof buf));
            } else {
                const char *hint = cs__suggest(ch->string, names, n);
                if (hint) cs__err(c, p, "unknown key%s (did you mean '%s'?)", what, hint);
                else cs__err(c, p, "unknown key%s", what);
            }
        } else if (!cs__first(obj, ch)) {
            cs__err(c, p, "duplicate key");
        }
    }
}

/* Require an object; report "must be an object" otherwise. */
static int cs__want_obj(cs__ctx_t *c, const cJSON *j, const char *path)
{
    if (cJSON_IsObject(j)) return 0;
    cs__err(c, path, "must be an object, got %s", cs__tname(j));
    return -1;
}

/*
 * A non-negative integer JSON number in [lo, hi].  JSON numbers above 2^53
 * are refused (cJSON holds numbers as doubles, so their last digits are
 * already lost); fields that can exceed it also take a decimal string.
 * Returns 0 with *out set, or reports and returns -1.
 */
static int cs__get_uint(cs__ctx_t *c, const cJSON *j, const char *path, uint64_t lo, uint64_t hi,
                        uint64_t *out)
{
    char b1[48];
    if (!cJSON_IsNumber(j)) {
        cs__err(c, path, "must be an integer, got %s", cs__tname(j));
        return -1;
    }
    double x = j->valuedouble;
    if (!isfinite(x)) {
        cs__err(c, path, "must be a finite number (the literal overflows a double)");
        return -1;
    }
    if (x != floor(x)) {
        cs__err(c, path, "must be an integer, got %s", cs__fmtd(x, b1, sizeof b1));
        return -1;
    }
    if (x > CS__JSON_EXACT && (double)hi > CS__JSON_EXACT) {
        cs__err(c, path, "integers above 2^53 lose precision as JSON numbers; give it as a decimal string");
        return -1;
    }
    if (x < (double)lo || x > (double)hi) {
        cs__err(c, path, "must be in [%llu, %llu], got %s", (unsigned long long)lo, (unsigned long long)hi,
                cs__fmtd(x, b1, sizeof b1));
        return -1;
    }
    *out = (uint64_t)x;
    return 0;
}

/*
 * An unsigned 128-bit amount in [lo, hi] (hi 0 = up to 2^128-1): a
 * non-negative integer JSON number (at most 2^53) or a decimal string.
 * Negative, fractional, non-canonical or too large values are refused.
 */
static int cs__get_u128(cs__ctx_t *c, const cJSON *j, const char *path, cs_u128 lo, cs_u128 hi, cs_u128 *out)
{
    cs_u128 v;
    char b1[48], b2[48], b3[48];
    if (cJSON_IsString(j)) {
        if (cs__parse_dec(j->valuestring, &v) != 0) {
            const char *s = j->valuestring;
            size_t k = 0;
            while (s[k] >= '0' && s[k] <= '9') k++;
            if (s[k] == '\0' && k > 0 && s[0] != '0')
                cs__err(c, path, "must be at most 2^128-1 = 340282366920938463463374607431768211455");
            else
                cs__err(c, path, "must be a decimal string of digits without sign or leading zeros, got \"%s\"",
                        cs__clean(s, b1, sizeof b1));
            return -1;
        }
    } else if (cJSON_IsNumber(j)) {
        double x = j->valuedouble;
        if (!isfinite(x)) {
            cs__err(c, path, "must be a finite number (the literal overflows a double)");
            return -1;
        }
        if (x < 0) {
            cs__err(c, path, "must be >= 0, got %s", cs__fmtd(x, b1, sizeof b1));
            return -1;
        }
        if (x != floor(x)) {
            cs__err(c, path, "must be an integer, got %s", cs__fmtd(x, b1, sizeof b1));
            return -1;
        }
        if (x > CS__JSON_EXACT) {
            cs__err(c, path, "integers above 2^53 lose precision as JSON numbers; give it as a decimal string");
            return -1;
        }
        v = (cs_u128)(uint64_t)x;
    } else {
        cs__err(c, path, "must be an integer or a decimal string, got %s", cs__tname(j));
        return -1;
    }
    if (v < lo || (hi != 0 && v > hi)) {
        if (hi != 0)
            cs__err(c, path, "must be in [%s, %s], got %s", cs_u128_fmt(lo, b1), cs_u128_fmt(hi, b2),
                    cs_u128_fmt(v, b3));
        else
            cs__err(c, path, "must be >= %s, got %s", cs_u128_fmt(lo, b1), cs_u128_fmt(v, b3));
        return -1;
    }
    *out = v;
    return 0;
}

/* A u64 as a JSON number (at most 2^53) or a decimal string (up to 2^64-1). */
static int cs__get_u64s(cs__ctx_t *c, const cJSON *j, const char *path, uint64_t *out)
{
    cs_u128 v;
    if (cs__get_u128(c, j, path, 0, (cs_u128)UINT64_MAX, &v) != 0) return -1;
    *out = (uint64_t)v;
    return 0;
}

/* A finite JSON number in [lo, hi]. */
static int cs__get_real(cs__ctx_t *c, const cJSON *j, const char *path, double lo, double hi, double *out)
{
    char b1[48], b2[48], b3[48];
    if (!cJSON_IsNumber(j)) {
        cs__err(c, path, "must be a number, got %s", cs__tname(j));
        return -1;
    }
    double x = j->valuedouble;
    if (!isfinite(x)) {
        cs__err(c, path, "must be a finite number (the literal overflows a double)");
        return -1;
    }
    if (x < lo || x > hi) {
        cs__err(c, path, "must be in [%s, %s], got %s", cs__fmtd(lo, b1, sizeof b1), cs__fmtd(hi, b2, sizeof b2),
                cs__fmtd(x, b3, sizeof b3));
        return -1;
    }
    *out = x;
    return 0;
}

/* A string of 1..maxlen bytes without control characters.  *out points
 * into the tree. */
static int cs__get_str(cs__ctx_t *c, const cJSON *j, const char *path, size_t maxlen, const char **out)
{
    if (!cJSON_IsString(j)) {
        cs__err(c, path, "must be a string, got %s", cs__tname(j));
        return -1;
    }
    const char *s = j->valuestring;
    size_t n = strlen(s);
    if (n == 0 || n > maxlen) {
        cs__err(c, path, "must be 1 to %zu bytes long, got %zu", maxlen, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
            cs__err(c, path, "must not contain control characters");
            return -1;
        }
    *out = s;
    return 0;
}

/* strdup that records an allocation failure. */
static char *cs__dup(cs__ctx_t *c, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d == NULL) c->oom = 1;
    else memcpy(d, s, n);
    return d;
}

/* ------------------------------------------------------------ params */

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
static void cs__params(cs__ctx_t *c, const cJSON *obj, const char *path, cs_params_t *p, int in_event)
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
static void cs__params_check(cs__ctx_t *c, const cs_params_t *p, const char *path)
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
}

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
 * kind's [min, max]; a parameter listed in ops->dist_params may instead be
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
            } else if (cJSON_IsObject(ch))
                cs__err(c, cp, "must be a number (kind %s takes a distribution object only for its random "
                        "quantities, see agents/README.md), got an object", ops->name);
            else
                cs__get_real(c, ch, cp, ops->params[k].min, ops->params[k].max, &out[k]);
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
 * (EXP3's).
 */
static void cs__strategy(cs__ctx_t *c, const cJSON *j, const char *path, const cs_agent_ops_t *ops, cs_strategy_t *s)
{
    static const char *const keys[CS_STRAT__COUNT][5] = {
        {NULL}, {"share"}, {NULL}, {"epsilon", "epsilon_prio", "fee_rule"}, {"n"}, {"eta", "grid", "feedback"},
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
    s->n_grid = 20; /* 0.05, 0.10, ..., 1.00 */
    for (size_t k = 0; k < s->n_grid; k++) s->grid[k] = 0.05 * (double)(k + 1);
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
    if (kind == CS_STRAT_LEARNING && s->eta == 0) {
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
    x = cs__item(j, "patience");
    cs__pkey(p, path, "patience");
    if (x) cs__get_uint(c, x, p, 0, CS__MAX_PATIENCE, &ag->pol.patience);
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
    if (x && cs__get_uint(c, x, p, 0, (uint64_t)CS__JSON_EXACT, &ag->exit_at) == 0 && ag->exit_at != 0 &&
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
static void cs__agents(cs__ctx_t *c, const cJSON *j)
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

/* ------------------------------------------------------------ events */

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
static void cs__events(cs__ctx_t *c, const cJSON *j)
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
static void cs__top(cs__ctx_t *c, const cJSON *root)
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

/* ------------------------------------------------------------ raw text checks */

/* One open container in the depth scan. */
typedef struct cs__frame {
    int obj;        /* 1 object, 0 list */
    size_t idx;     /* list: index of the current element */
    char key[72];   /* object: the current key (cleaned, cut) */
} cs__frame_t;

/*
 * Scan the raw text for the nesting depth before any parse or walk.  At
 * the first container opened deeper than CS__MAX_DEPTH, report its JSON
 * path and return -1.  Malformed text is left to the parser.
 */
static int cs__depth_scan(const char *t, size_t len, cs_errlist_t *e)
{
    cs__frame_t fr[CS__MAX_DEPTH];
    size_t d = 0;
    int expect_key = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = t[i];
        if (ch == '"') {
            size_t j = i + 1;
            while (j < len && t[j] != '"') j += t[j] == '\\' ? 2 : 1;
            if (d > 0 && fr[d - 1].obj && expect_key) {
                char raw[72];
                size_t n = CS_MIN(j - i - 1, sizeof raw - 1);
                if (j > len) n = 0;
                memcpy(raw, t + i + 1, n);
                raw[n] = '\0';
                cs__clean(raw, fr[d - 1].key, sizeof fr[d - 1].key);
                expect_key = 0;
            }
            i = j;
            continue;
        }
        if (ch == '{' || ch == '[') {
            if (d == CS__MAX_DEPTH) {
                char path[CS__MAX_DEPTH * 80 + 8];
                size_t pl = 0;
                path[0] = '\0';
                for (size_t k = 0; k < d; k++) {
                    int r = fr[k].obj ? snprintf(path + pl, sizeof path - pl, "%s%s", pl ? "." : "", fr[k].key)
                                      : snprintf(path + pl, sizeof path - pl, "[%zu]", fr[k].idx);
                    if (r < 0 || (size_t)r >= sizeof path - pl) break;
                    pl += (size_t)r;
                }
                cs_errlist_add(e, "%s: nesting depth exceeds the limit of %d", pl ? path : "$", CS__MAX_DEPTH);
                return -1;
            }
            fr[d].obj = ch == '{';
            fr[d].idx = 0;
            fr[d].key[0] = '\0';
            d++;
            expect_key = ch == '{';
        } else if (ch == '}' || ch == ']') {
            if (d > 0) d--;
            expect_key = 0;
        } else if (ch == ',' && d > 0) {
            if (fr[d - 1].obj) expect_key = 1;
            else fr[d - 1].idx++;
        }
    }
    return 0;
}

/* Line and column (1-based) of byte offset off in t. */
static void cs__linecol(const char *t, size_t off, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (t[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

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
static int cs__apply_set(cJSON *root, const char *set, cs_errlist_t *e)
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

/* ------------------------------------------------------------ load / free */

/* Fill the defaults that the walk overwrites. */
static void cs__defaults(cs_scenario_t *s)
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

/*
 * Parse, override, validate.  See cs_scenario.h.  Errors already in errs
 * are kept; the result depends only on the errors this call adds.
 */
int cs_scenario_load(const char *json_text, size_t len, const char *const *sets, size_t n_sets,
                     cs_scenario_t **out, cs_errlist_t *errs)
{
    *out = NULL;
    size_t n0 = errs->n;
    if (len > CS__MAX_TEXT) {
        cs_errlist_add(errs, "$: %zu bytes exceed the limit of %u bytes", len, CS__MAX_TEXT);
        return CS_EINVAL;
    }
    const char *nul = memchr(json_text, '\0', len);
    if (nul != NULL) {
        cs_errlist_add(errs, "$: NUL byte at offset %zu", (size_t)(nul - json_text));
        return CS_EPARSE;
    }
    if (cs__depth_scan(json_text, len, errs) != 0) return CS_EPARSE;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json_text, len, &end, 0);
    if (root != NULL) {
        while (end < json_text + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) end++;
        if (end < json_text + len) {
            size_t line, col;
            cs__linecol(json_text, (size_t)(end - json_text), &line, &col);
            cs_errlist_add(errs, "$: unexpected text after the JSON value at line %zu, column %zu", line, col);
            cJSON_Delete(root);
            return CS_EPARSE;
        }
    } else {
        size_t off = end && end >= json_text && end <= json_text + len ? (size_t)(end - json_text) : 0;
        size_t line, col;
        cs__linecol(json_text, off, &line, &col);
        if (len == 0) cs_errlist_add(errs, "$: empty document");
        else cs_errlist_add(errs, "$: malformed JSON at line %zu, column %zu", line, col);
        return CS_EPARSE;
    }
    for (size_t i = 0; i < n_sets; i++) {
        if (cs__apply_set(root, sets[i], errs) == CS_ENOMEM) {
            cJSON_Delete(root);
            return CS_ENOMEM;
        }
    }
    cs_scenario_t *s = calloc(1, sizeof *s);
    if (s == NULL) {
        cJSON_Delete(root);
        return CS_ENOMEM;
    }
    cs__defaults(s);
    if (n_sets > 0) {
        s->text = cJSON_PrintUnformatted(root);
    } else if ((s->text = malloc(len + 1)) != NULL) {
        memcpy(s->text, json_text, len);
        s->text[len] = '\0';
    }
    cs__ctx_t c = {errs, s, s->text == NULL, 0, 0};
    if (!c.oom) cs__top(&c, root);
    cJSON_Delete(root);
    if (c.oom) {
        cs_scenario_free(s);
        return CS_ENOMEM;
    }
    if (errs->n > n0) {
        cs_scenario_free(s);
        return CS_EINVAL;
    }
    *out = s;
    return CS_OK;
}

/*
 * Read path (at most CS__MAX_TEXT bytes, checked on the file size before
 * reading, and again while reading for pipes) and load it.  I/O problems
 * return CS_EIO with a message that has no JSON path.
 */
int cs_scenario_load_file(const char *path, const char *const *sets, size_t n_sets, cs_scenario_t **out,
                          cs_errlist_t *errs)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        cs_errlist_add(errs, "cannot open: %s", strerror(errno));
        return CS_EIO;
    }
    struct stat st;
    size_t cap = 1 << 16;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        if ((uint64_t)st.st_size > CS__MAX_TEXT) {
            cs_errlist_add(errs, "file size %llu bytes exceeds the limit of %u bytes",
                           (unsigned long long)st.st_size, CS__MAX_TEXT);
            fclose(f);
            return CS_EINVAL;
        }
        cap = (size_t)st.st_size + 1;
    }
    char *buf = malloc(cap);
    size_t n = 0;
    int rc = CS_OK;
    while (buf != NULL) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n > CS__MAX_TEXT) {
            cs_errlist_add(errs, "more than %u bytes: exceeds the size limit", CS__MAX_TEXT);
            rc = CS_EINVAL;
            break;
        }
        if (n == cap) {
            size_t nc = cap * 2 > CS__MAX_TEXT + 2u ? CS__MAX_TEXT + 2u : cap * 2;
            char *nb = realloc(buf, nc);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap = nc;
        }
    }
    if (buf == NULL) {
        fclose(f);
        return CS_ENOMEM;
    }
    if (rc == CS_OK && ferror(f)) {
        cs_errlist_add(errs, "cannot read: %s", strerror(errno));
        rc = CS_EIO;
    }
    fclose(f);
    if (rc == CS_OK) rc = cs_scenario_load(buf, n, sets, n_sets, out, errs);
    free(buf);
    return rc;
}

/* Free a scenario and everything it owns; NULL is a no-op. */
void cs_scenario_free(cs_scenario_t *s)
{
    if (s == NULL) return;
    free(s->seed_list);
    free(s->name);
    free(s->text);
    if (s->agents) {
        for (size_t i = 0; i < s->n_agents; i++) {
            free(s->agents[i].deployer);
            free(s->agents[i].params);
            if (s->agents[i].dists)
                for (size_t k = 0; k < s->agents[i].ops->n_params; k++) cs_dist_clear(&s->agents[i].dists[k]);
            free(s->agents[i].dists);
            free(s->agents[i].strat);
            free(s->agents[i].strat_by);
            free(s->agents[i].strat_mech);
        }
        free(s->agents);
    }
    free(s->events);
    free(s->basefee_cycle.at_h);
    free(s->basefee_cycle.at_v);
    free(s->basefee_cell.at_h);
    free(s->basefee_cell.at_v);
    free(s->output.dir);
    free(s);
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
static cJSON *cs__schema_defs(void)
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
                if (cs_agent_param_dist(o, i)) {
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
                cJSON_AddNumberToObject(q, "default", o->params[i].def);
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

/* ------------------------------------------------------------ the command */

/* Usage text of `cowsim validate`. */
static void cs__validate_usage(FILE *f)
{
    fprintf(f,
            "usage: cowsim validate SCENARIO.json [--set PATH=VALUE]...\n"
            "       cowsim validate --print-schema-defs\n\n"
            "Checks a scenario and reports every error as FILE: JSON.path: constraint.\n"
            "  --set PATH=VALUE    override a value before validation (PATH like params.lambda,\n"
            "                      agents[0].count, seed; VALUE is JSON, or else a string)\n"
            "  --print-schema-defs print the table-generated $defs of scenarios/schema.json\n"
            "Exit status: 0 valid, 2 invalid input or usage, 3 out of memory.\n");
}

/* `cowsim validate` (DESIGN §5).  argv[0] is "validate". */
int cs_cmd_validate(int argc, char **argv)
{
    const char *file = NULL;
    const char **sets = calloc((size_t)(argc > 0 ? argc : 1), sizeof *sets);
    size_t n_sets = 0;
    if (sets == NULL) {
        fprintf(stderr, "cowsim validate: out of memory\n");
        return CS_EXIT_IO;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cs__validate_usage(stdout);
            free(sets);
            return CS_EXIT_OK;
        } else if (strcmp(a, "--print-schema-defs") == 0) {
            free(sets);
            cJSON *d = cs__schema_defs();
            char *txt = d ? cJSON_Print(d) : NULL;
            cJSON_Delete(d);
            if (txt == NULL) {
                fprintf(stderr, "cowsim validate: out of memory\n");
                return CS_EXIT_IO;
            }
            printf("%s\n", txt);
            free(txt);
            return CS_EXIT_OK;
        } else if (strcmp(a, "--set") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cowsim validate: --set needs PATH=VALUE\n");
                cs__validate_usage(stderr);
                free(sets);
                return CS_EXIT_USAGE;
            }
            sets[n_sets++] = argv[++i];
        } else if (strncmp(a, "--set=", 6) == 0) {
            sets[n_sets++] = a + 6;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "cowsim validate: unknown option '%s'\n", a);
            cs__validate_usage(stderr);
            free(sets);
            return CS_EXIT_USAGE;
        } else if (file != NULL) {
            fprintf(stderr, "cowsim validate: one scenario at a time ('%s' and '%s')\n", file, a);
            cs__validate_usage(stderr);
            free(sets);
            return CS_EXIT_USAGE;
        } else {
            file = a;
        }
    }
    if (file == NULL) {
        cs__validate_usage(stderr);
        free(sets);
        return CS_EXIT_USAGE;
    }
    cs_errlist_t errs = {0};
    cs_scenario_t *s = NULL;
    int rc = cs_scenario_load_file(file, sets, n_sets, &s, &errs);
    free(sets);
    if (rc == CS_OK) {
        unsigned long long n = 0;
        for (size_t i = 0; i < s->n_agents; i++) n += s->agents[i].count;
        printf("ok: %s (%llu blocks, %llu agents, mechanisms: ", s->name, (unsigned long long)s->blocks, n);
        for (size_t i = 0; i < s->n_mechs; i++) printf("%s%s", i ? ", " : "", s->mechs[i]);
        printf(")\n");
        cs_scenario_free(s);
        cs_errlist_free(&errs);
        return CS_EXIT_OK;
    }
    for (size_t i = 0; i < errs.n; i++) fprintf(stderr, "%s: %s\n", file, errs.msg[i]);
    if (rc == CS_ENOMEM) fprintf(stderr, "%s: %s\n", file, cs_strerror(rc));
    cs_errlist_free(&errs);
    return rc == CS_ENOMEM ? CS_EXIT_IO : CS_EXIT_USAGE;
}

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
