/*
 * cs_scenario_parse.c -- the scenario loader's reporting layer: the error
 * list, message text helpers (cleaned keys, JSON paths, numbers) and the
 * typed JSON getters that check one value and report a problem as
 * "JSON.path: constraint" (DESIGN §5 "Scenario JSON").  Shared by every
 * piece of the loader through cs_scenario_int.h.
 */
#include "cs_scenario_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        if (len < 0) {
            e->lost++;
            return;
        }
        m = malloc((size_t)len + 1);
        if (m) {
            va_start(ap, fmt);
            vsnprintf(m, (size_t)len + 1, fmt, ap);
            va_end(ap);
        }
    }
    if (m == NULL) {
        e->lost++;
        return;
    }
    if (e->n == e->cap) {
        size_t nc = e->cap ? 2 * e->cap : 16;
        char **nm = realloc(e->msg, nc * sizeof *nm);
        if (nm == NULL) {
            free(m);
            e->lost++;
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
    e->n = e->cap = e->lost = 0;
}

/* ------------------------------------------------------------ text helpers */

/*
 * Copy s into out (cap >= 72) for use inside a message: at most 64 bytes,
 * control bytes and quotes replaced by '?', and "..." when cut, so one
 * error always stays on one line.  Returns out.
 */
const char *cs__clean(const char *s, char *out, size_t cap)
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
void cs__pkey(char *out, const char *parent, const char *key)
{
    char k[80];
    cs__clean(key, k, sizeof k);
    int r = parent[0] ? snprintf(out, CS__PATH, "%s.%s", parent, k) : snprintf(out, CS__PATH, "%s", k);
    if (r < 0) out[0] = '\0';
}

/* out = parent[i]. */
void cs__pidx(char *out, const char *parent, size_t i)
{
    if (snprintf(out, CS__PATH, "%s[%zu]", parent, i) < 0) out[0] = '\0';
}

/* A double for a message: shortest of %.15g (1.5, 1e+20, -3). */
const char *cs__fmtd(double x, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.15g", x);
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

/* ------------------------------------------------------------ validation */

/* Report "path: message" (path "$" for the document itself). */
void cs__err(cs__ctx_t *c, const char *path, const char *fmt, ...)
{
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cs_errlist_add(c->e, "%s: %s", path[0] ? path : "$", msg);
}

/* What a JSON value is, for "got ..." in messages. */
const char *cs__tname(const cJSON *j)
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
const cJSON *cs__item(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* 1 if child is the first member of its object with its key (later
 * duplicates are reported by cs__keys and otherwise ignored). */
int cs__first(const cJSON *obj, const cJSON *child)
{
    return cs__item(obj, child->string) == child;
}

/*
 * Check every key of obj against names[0..n): an unknown key is reported
 * with the allowed list (list != 0) or a "did you mean" hint, and a key
 * given twice is reported at its second occurrence.  what names the
 * context of an unknown key ("for type constant", or "").
 */
void cs__keys(cs__ctx_t *c, const cJSON *obj, const char *path, const char *const *names, size_t n,
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
int cs__want_obj(cs__ctx_t *c, const cJSON *j, const char *path)
{
    if (cJSON_IsObject(j)) return 0;
    cs__err(c, path, "must be an object, got %s", cs__tname(j));
    return -1;
}

/*
 * A non-negative integer JSON number in [lo, hi].  JSON numbers of 2^53 or
 * more are refused (cJSON holds numbers as doubles, so their last digits are
 * already lost: 2^53 + 1 reads as 2^53); fields that can exceed it also take a decimal string.
 * Returns 0 with *out set, or reports and returns -1.
 */
int cs__get_uint(cs__ctx_t *c, const cJSON *j, const char *path, uint64_t lo, uint64_t hi,
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
    if (x >= CS__JSON_EXACT && (double)hi >= CS__JSON_EXACT) {
        cs__err(c, path, "integers of 2^53 or more lose precision as JSON numbers; give it as a decimal string");
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
 * non-negative integer JSON number (below 2^53) or a decimal string.
 * Negative, fractional, non-canonical or too large values are refused.
 */
int cs__get_u128(cs__ctx_t *c, const cJSON *j, const char *path, cs_u128 lo, cs_u128 hi, cs_u128 *out)
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
        if (x >= CS__JSON_EXACT) {
            cs__err(c, path, "integers of 2^53 or more lose precision as JSON numbers; give it as a decimal string");
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

/* A u64 as a JSON number (below 2^53) or a decimal string (up to 2^64-1). */
int cs__get_u64s(cs__ctx_t *c, const cJSON *j, const char *path, uint64_t *out)
{
    cs_u128 v;
    if (cs__get_u128(c, j, path, 0, (cs_u128)UINT64_MAX, &v) != 0) return -1;
    *out = (uint64_t)v;
    return 0;
}

/* A finite JSON number in [lo, hi]. */
int cs__get_real(cs__ctx_t *c, const cJSON *j, const char *path, double lo, double hi, double *out)
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
int cs__get_str(cs__ctx_t *c, const cJSON *j, const char *path, size_t maxlen, const char **out)
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
char *cs__dup(cs__ctx_t *c, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d == NULL) c->oom = 1;
    else memcpy(d, s, n);
    return d;
}
