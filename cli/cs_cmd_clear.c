/*
 * cs_cmd_clear.c -- `cowsim clear AUCTION.json [--json]` (DESIGN §5): clear one
 * block's auction with a registered mechanism and show the allocation,
 * priorities, payments, critical bids and why each loser lost.
 *
 * Input (every key is checked; errors name the JSON path):
 *   {
 *     "mechanism": "bias-vcg",            required, a registry name
 *     "height": 100,                      default 0
 *     "params": {...},                    any cs_params names; FP values as
 *                                         real numbers (0.05), U128 as integer
 *                                         or decimal string, ENUM as a word
 *     "basefee_lane": 1000,               default lane_basefee_initial
 *     "basefee_cycle": 0,                 default 0 (D3, additional mode)
 *     "budget_cycles": 2000000,           default lane_timer_cycles
 *     "timers": [{
 *        "id": "...",        64 hex digits (optionally 0x-prefixed) = the
 *                            32-byte id, any other string -> keccak256(string)
 *        "actor": "alice",   string or integer; equal values = same actor
 *        "cycles": 120000,   integer >= 1 (gas limit per fire)
 *        "bid": 5000,                     score, bias-vcg, bias-fp (required)
 *        "max_fee": 2000, "max_priority_fee": 30,  eip1559, gba-tip (required)
 *        "deferrals": 0, "weight": 1.5 (W, real, overrides W(actor)),
 *        "balance": "1e30 as decimal" (default unlimited),
 *        "due_height": (default height), "fifo_rank": (default index),
 *        "sched_height": (default 0)
 *     }, ...]
 *   }
 * Output: per timer (input order in JSON, rank order in the table):
 * selected, rank, priority (mechanism units: bid + Bias for bias-*, the
 * signed score for score, prio_rate * W in ppm for eip1559, the tip for
 * gba-tip), bias (bias-*), prio_rate (eip1559, gba-tip), payment, critical
 * (bias-*), why.  Totals: fired, deferred, cycles used, lane burn (cycles *
 * basefee_lane of fee-mechanism winners), tips (cycles * prio_rate),
 * auction payments, proposer revenue (tips + payments, or 0 and burned
 * when payments_to = burn, D9).  Fees assume the whole gas limit is used
 * (no execution happens here).  Totals are exact: an input whose totals
 * exceed 2^128 - 1, or whose priorities saturate (bias-*: bid + Bias at
 * 2^128 - 1; score: w_bid * bid above 2^125) and so tie, is refused (exit 2).
 * Limits (checked before the memory they govern is reserved): the file is
 * at most 64 MiB, timers[] at most 1,000,000 entries.
 * Exit codes: 0 ok, 2 bad input or usage, 3 unreadable file.
 */
#include "cs_cli.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_error.h"
#include "cs_hmap.h"
#include "cs_json_guard.h"
#include "cs_mech.h"
#include "cs_params.h"
#include "cs_timer.h"

#define CS__MAXERR 64 /* errors reported before giving up */
#define CS__MAX_TEXT (64u << 20) /* bytes of auction JSON, as for scenarios (64 MiB) */
#define CS__MAX_TIMERS 1000000u  /* timers[] entries: each costs a candidate record */

/* Validation state: the error count and what to print them to. */
typedef struct cs__cl {
    int nerr;   /* errors so far */
    FILE *f;    /* stderr */
} cs__cl_t;

static void cs__cl_err(cs__cl_t *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Report "cowsim clear: path: message". */
static void cs__cl_err(cs__cl_t *c, const char *path, const char *fmt, ...)
{
    if (c->nerr++ >= CS__MAXERR) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(c->f, "cowsim clear: %s: %s\n", path, msg);
}

/* Canonical decimal (no sign, no leading zero) -> u128; 0 or -1. */
static int cs__dec(const char *s, cs_u128 *out)
{
    if (s[0] == '\0' || (s[0] == '0' && s[1] != '\0')) return -1;
    return cs_u128_parse(s, out);
}

/* A JSON integer (a number with no fraction, below 2^53, or a decimal
 * string) as a u128; 0, -1 when it is none, -2 for a JSON number of 2^53
 * or more (its last digits are lost: 2^53 + 1 reads as 2^53). */
static int cs__json_u128(const cJSON *j, cs_u128 *out)
{
    if (cJSON_IsString(j)) return cs__dec(j->valuestring, out);
    if (!cJSON_IsNumber(j)) return -1;
    double d = j->valuedouble;
    if (!(d >= 0) || floor(d) != d) return -1;
    if (d > CS_JSON_INT_MAX) return -2;
    *out = (cs_u128)(uint64_t)d;
    return 0;
}

/* Read an integer in [lo, hi] at path; reports and returns -1 on error. */
static int cs__get_u64(cs__cl_t *c, const cJSON *j, const char *path, uint64_t lo, uint64_t hi,
                       uint64_t *out)
{
    cs_u128 v;
    int r = cs__json_u128(j, &v);
    if (r == -2) {
        cs__cl_err(c, path, "integers of 2^53 or more lose precision as JSON numbers; give it as a decimal string");
        return -1;
    }
    if (r != 0 || v < lo || v > hi) {
        if (hi == UINT64_MAX)
            cs__cl_err(c, path, "must be an integer >= %llu", (unsigned long long)lo);
        else
            cs__cl_err(c, path, "must be an integer in [%llu, %llu]", (unsigned long long)lo,
                       (unsigned long long)hi);
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

/* Read a u128 amount at path. */
static int cs__get_u128(cs__cl_t *c, const cJSON *j, const char *path, cs_u128 *out)
{
    int r = cs__json_u128(j, out);
    if (r == -2) {
        cs__cl_err(c, path, "integers of 2^53 or more lose precision as JSON numbers; give it as a decimal string");
        return -1;
    }
    if (r != 0) {
        cs__cl_err(c, path, "must be a non-negative integer (number or decimal string)");
        return -1;
    }
    return 0;
}

/* Apply "params": {...} onto p (cs_param_table drives the types). */
static void cs__get_params(cs__cl_t *c, const cJSON *obj, cs_params_t *p)
{
    if (!cJSON_IsObject(obj)) {
        cs__cl_err(c, "params", "must be an object");
        return;
    }
    unsigned char *seen = calloc(cs_param_count, 1);
    if (seen == NULL) {
        cs__cl_err(c, "params", "out of memory");
        return;
    }
    for (const cJSON *it = obj->child; it != NULL; it = it->next) {
        char path[300];
        snprintf(path, sizeof path, "params.%s", it->string);
        const cs_param_desc_t *d = cs_param_find(it->string);
        if (d == NULL) {
            cs__cl_err(c, path, "unknown parameter");
            continue;
        }
        if (seen[d - cs_param_table]++) { /* the first one would be overwritten silently */
            cs__cl_err(c, path, "duplicate key");
            continue;
        }
        char *f = (char *)p + d->offset;
        switch (d->kind) {
        case CS_PK_U64: {
            uint64_t v;
            if (cs__get_u64(c, it, path, d->min, d->max, &v) == 0) memcpy(f, &v, sizeof v);
            break;
        }
        case CS_PK_FP: {
            double lo = (double)d->min / (double)d->scale, hi = (double)d->max / (double)d->scale;
            if (!cJSON_IsNumber(it) || !(it->valuedouble >= lo) || !(it->valuedouble <= hi)) {
                cs__cl_err(c, path, "must be a number in [%g, %g]", lo, hi);
                break;
            }
            uint64_t v = (uint64_t)llround(it->valuedouble * (double)d->scale);
            if (v < d->min) v = d->min;
            if (v > d->max) v = d->max;
            memcpy(f, &v, sizeof v);
            break;
        }
        case CS_PK_U128: {
            cs_u128 v;
            if (cs__get_u128(c, it, path, &v) == 0) memcpy(f, &v, sizeof v);
            break;
        }
        case CS_PK_ENUM: {
            int k = cJSON_IsString(it) ? cs_param_choice(d, it->valuestring) : -1;
            if (k < 0) {
                cs__cl_err(c, path, "must be one of %s", d->choices);
                break;
            }
            uint32_t v = (uint32_t)k;
            memcpy(f, &v, sizeof v);
            break;
        }
        }
    }
    free(seen);
}

/* Timer id from a string: 64 hex digits (optional 0x) or keccak256(s). */
static void cs__get_id(const char *s, cs_hash_t *id)
{
    const char *h = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? s + 2 : s;
    int hex = strlen(h) == 2 * CS_ID_LEN;
    for (size_t i = 0; hex && h[i]; i++)
        if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f') ||
              (h[i] >= 'A' && h[i] <= 'F')))
            hex = 0;
    if (!hex) {
        cs_keccak256(s, strlen(s), id->b);
        return;
    }
    for (size_t i = 0; i < CS_ID_LEN; i++) {
        unsigned v = 0;
        for (int k = 0; k < 2; k++) {
            char ch = h[2 * i + (size_t)k];
            unsigned d = ch <= '9' ? (unsigned)(ch - '0') : (unsigned)((ch | 0x20) - 'a' + 10);
            v = v * 16 + d;
        }
        id->b[i] = (uint8_t)v;
    }
}

static const char *const cs__top_keys[] = {"mechanism",     "height",        "params", "basefee_lane",
                                           "basefee_cycle", "budget_cycles", "timers"};
static const char *const cs__timer_keys[] = {"id",      "actor",     "cycles",     "bid",
                                             "max_fee", "max_priority_fee", "deferrals", "weight",
                                             "balance", "due_height", "fifo_rank", "sched_height"};
_Static_assert(sizeof cs__top_keys / sizeof cs__top_keys[0] <= 32 &&
                   sizeof cs__timer_keys / sizeof cs__timer_keys[0] <= 32,
               "cs__check_keys keeps one bit per key");

/* Index of key in the list, or -1. */
static int cs__key_index(const char *key, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (key[0] == keys[i][0] && strcmp(key, keys[i]) == 0) return (int)i;
    return -1;
}

/*
 * Check every key of obj (at path, "" for the root) against keys[0..n)
 * (n <= 32): an unknown key and a known key given a second time are
 * reported (the getters read the first one only, so "bid":5, "bid":999
 * would clear with 5, unlike every other loader).  Linear in the keys.
 */
static void cs__check_keys(cs__cl_t *c, const cJSON *obj, const char *path, const char *const *keys, size_t n)
{
    uint32_t seen = 0;
    for (const cJSON *it = obj->child; it != NULL; it = it->next) {
        int k = cs__key_index(it->string, keys, n);
        if (k >= 0 && !(seen & (1u << k))) {
            seen |= 1u << k;
            continue;
        }
        /* (the path only for a message: a snprintf per key was a quarter
         * of clear's time at 10^6 timers) */
        char fp[300];
        if (path[0]) snprintf(fp, sizeof fp, "%s.%s", path, it->string);
        else snprintf(fp, sizeof fp, "%s", it->string);
        cs__cl_err(c, fp, k < 0 ? "unknown key" : "duplicate key");
    }
}

/* One parsed auction. */
typedef struct cs__auction {
    const cs_mech_ops_t *ops;  /* mechanism */
    cs_params_t p;             /* parameters */
    cs_clear_ctx_t ctx;        /* block context */
    cs_cand_t *c;              /* candidates, input order */
    size_t n;                  /* candidates */
    char **actor;              /* interned actor names */
    size_t n_actor;            /* distinct actors */
    char **idtext;             /* the id strings as given */
    cs__hmap_t actor_map;      /* hash of an actor name -> its index in actor[] */
    cs__hmap_t id_map;         /* hash of a timer id -> index of the first timer with it */
} cs__auction_t;

static void cs__auction_free(cs__auction_t *a)
{
    for (size_t i = 0; i < a->n_actor; i++) free(a->actor[i]);
    for (size_t i = 0; i < a->n && a->idtext; i++) free(a->idtext[i]);
    free(a->actor);
    free(a->idtext);
    free(a->c);
    cs__hmap_free(&a->actor_map);
    cs__hmap_free(&a->id_map);
}

/* FNV-1a over n bytes, finished with cs__mix64 (the map keys by the low
 * bits; every hit is compared in full, so a collision costs time only). */
static uint64_t cs__hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return cs__mix64(h);
}

/* Index of actor name s, interning it (indices in order of first
 * appearance: the mechanisms break ties by target); UINT32_MAX when out of
 * memory.  A hash lookup, so n timers cost O(n), not O(n^2). */
static uint32_t cs__intern(cs__auction_t *a, const char *s)
{
    uint64_t key = cs__hash_bytes(s, strlen(s));
    size_t it = SIZE_MAX;
    for (uint32_t v; (v = cs__hmap_next(&a->actor_map, key, &it)) != CS__HEMPTY;)
        if (strcmp(a->actor[v], s) == 0) return v;
    char *copy = strdup(s);
    if (copy == NULL) return UINT32_MAX;
    if (cs__hmap_put(&a->actor_map, key, (uint32_t)a->n_actor) != 0) {
        free(copy);
        return UINT32_MAX;
    }
    a->actor[a->n_actor] = copy;
    return (uint32_t)a->n_actor++;
}

/* Index of the earlier timer with the id of timer i, or SIZE_MAX after
 * recording timer i as the first with it; *oom set when out of memory. */
static size_t cs__id_seen(cs__auction_t *a, size_t i, int *oom)
{
    uint64_t key = cs__hash_bytes(a->c[i].id.b, CS_ID_LEN);
    size_t it = SIZE_MAX;
    for (uint32_t v; (v = cs__hmap_next(&a->id_map, key, &it)) != CS__HEMPTY;)
        if (memcmp(a->c[v].id.b, a->c[i].id.b, CS_ID_LEN) == 0) return v;
    if (cs__hmap_put(&a->id_map, key, (uint32_t)i) != 0) *oom = 1;
    return SIZE_MAX;
}

/* "timers[i]" into path (at least 32 bytes); returns its length.  By hand:
 * snprintf for every timer and field was a third of clear's time at 10^6
 * timers (issue 25 #5). */
static size_t cs__timer_path(char *path, size_t i)
{
    char d[24];
    size_t nd = 0;
    do {
        d[nd++] = (char)('0' + i % 10);
        i /= 10;
    } while (i);
    memcpy(path, "timers[", 7);
    size_t n = 7;
    while (nd) path[n++] = d[--nd];
    path[n++] = ']';
    path[n] = '\0';
    return n;
}

/* fp = path "." name (fp holds 192 bytes, path is "timers[i]", name a
 * key of cs__timer_keys). */
static void cs__field_path(char *fp, const char *path, size_t plen, const char *name)
{
    size_t nl = strlen(name);
    memcpy(fp, path, plen);
    fp[plen] = '.';
    memcpy(fp + plen + 1, name, nl + 1);
}

/* Which bid fields the mechanism reads: 1 = bid, 2 = fees, 0 = none. */
static int cs__bid_kind(const cs_mech_ops_t *ops)
{
    if (ops->flags & CS_MF_FEES) return 2;
    if (ops->flags & CS_MF_BID) return 1;
    return 0;
}

/* Parse and validate the whole document into a.  Returns the error count. */
static int cs__parse(cs__cl_t *c, const cJSON *root, cs__auction_t *a)
{
    memset(a, 0, sizeof *a);
    cs_params_default(&a->p);
    if (!cJSON_IsObject(root)) {
        cs__cl_err(c, "$", "must be an object");
        return c->nerr;
    }
    cs__check_keys(c, root, "", cs__top_keys, sizeof cs__top_keys / sizeof cs__top_keys[0]);
    const cJSON *mj = cJSON_GetObjectItemCaseSensitive(root, "mechanism");
    char names[512];
    if (!cJSON_IsString(mj)) {
        cs__cl_err(c, "mechanism", "required: one of %s", cs_mech_names(names, sizeof names));
    } else if ((a->ops = cs_mech_find(mj->valuestring)) == NULL) {
        cs__cl_err(c, "mechanism", "unknown mechanism '%s' (%s)", mj->valuestring,
                   cs_mech_unknown_hint(mj->valuestring, names, sizeof names));
    }
    const cJSON *pj = cJSON_GetObjectItemCaseSensitive(root, "params");
    if (pj != NULL) cs__get_params(c, pj, &a->p);
    uint64_t h = 0;
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, "height");
    if (j != NULL) cs__get_u64(c, j, "height", 0, UINT64_MAX, &h);
    a->ctx.height = h;
    a->ctx.basefee_lane = a->p.lane_basefee_initial;
    if ((j = cJSON_GetObjectItemCaseSensitive(root, "basefee_lane")) != NULL)
        cs__get_u128(c, j, "basefee_lane", &a->ctx.basefee_lane);
    if ((j = cJSON_GetObjectItemCaseSensitive(root, "basefee_cycle")) != NULL)
        cs__get_u128(c, j, "basefee_cycle", &a->ctx.basefee_cycle);
    a->ctx.budget_cycles = a->p.lane_timer_cycles;
    if ((j = cJSON_GetObjectItemCaseSensitive(root, "budget_cycles")) != NULL)
        cs__get_u64(c, j, "budget_cycles", 0, UINT64_MAX, &a->ctx.budget_cycles);

    const cJSON *tj = cJSON_GetObjectItemCaseSensitive(root, "timers");
    if (!cJSON_IsArray(tj)) {
        cs__cl_err(c, "timers", "required: a list of timers");
        return c->nerr;
    }
    size_t n = (size_t)cJSON_GetArraySize(tj);
    if (n > CS__MAX_TIMERS) {
        /* Before the per-timer records are reserved. */
        cs__cl_err(c, "timers", "at most %u timers, got %zu", CS__MAX_TIMERS, n);
        return c->nerr;
    }
    a->c = calloc(n ? n : 1, sizeof *a->c);
    a->actor = calloc(n ? n : 1, sizeof *a->actor);
    a->idtext = calloc(n ? n : 1, sizeof *a->idtext);
    if (a->c == NULL || a->actor == NULL || a->idtext == NULL ||
        cs__hmap_init(&a->actor_map, n ? n : 1, CS__HMAP_HALF) != 0 ||
        cs__hmap_init(&a->id_map, n ? n : 1, CS__HMAP_HALF) != 0) {
        cs__cl_err(c, "timers", "out of memory");
        return c->nerr;
    }
    int kind = a->ops ? cs__bid_kind(a->ops) : 0;
    size_t i = 0;
    for (const cJSON *t = tj->child; t != NULL; t = t->next, i++) {
        char path[128], fp[192];
        size_t plen = cs__timer_path(path, i);
        a->n = i + 1;
        cs_cand_t *x = &a->c[i];
        x->slot = (uint32_t)i;
        x->due_height = h;
        x->fifo_rank = i;
        x->balance = CS_U128_MAX;
        if (!cJSON_IsObject(t)) {
            cs__cl_err(c, path, "must be an object");
            continue;
        }
        cs__check_keys(c, t, path, cs__timer_keys, sizeof cs__timer_keys / sizeof cs__timer_keys[0]);
#define CS__FIELD(name) (cs__field_path(fp, path, plen, name), cJSON_GetObjectItemCaseSensitive(t, name))
        if ((j = CS__FIELD("id")) == NULL || !cJSON_IsString(j) || j->valuestring[0] == '\0') {
            cs__cl_err(c, fp, "required: a non-empty string");
        } else {
            cs__get_id(j->valuestring, &x->id);
            a->idtext[i] = strdup(j->valuestring);
            int oom = 0;
            size_t k = a->idtext[i] ? cs__id_seen(a, i, &oom) : SIZE_MAX;
            if (a->idtext[i] == NULL || oom) cs__cl_err(c, fp, "out of memory");
            else if (k != SIZE_MAX) cs__cl_err(c, fp, "duplicate of timers[%zu].id", k);
        }
        j = CS__FIELD("actor");
        if (cJSON_IsString(j) && j->valuestring[0] != '\0') {
            x->target = x->ident = cs__intern(a, j->valuestring);
            if (x->target == UINT32_MAX) cs__cl_err(c, fp, "out of memory");
        } else if (cJSON_IsNumber(j) && j->valuedouble >= 0 && floor(j->valuedouble) == j->valuedouble &&
                   j->valuedouble < 4294967296.0) {
            char buf[32];
            snprintf(buf, sizeof buf, "%.0f", j->valuedouble);
            x->target = x->ident = cs__intern(a, buf);
            if (x->target == UINT32_MAX) cs__cl_err(c, fp, "out of memory");
        } else {
            cs__cl_err(c, fp, "required: a non-empty string or a non-negative integer");
        }
        if ((j = CS__FIELD("cycles")) == NULL) cs__cl_err(c, fp, "required: an integer >= 1");
        else cs__get_u64(c, j, fp, 1, UINT64_MAX, &x->cycles);
        if ((j = CS__FIELD("bid")) != NULL) cs__get_u128(c, j, fp, &x->bid);
        else if (kind == 1) cs__cl_err(c, fp, "required by mechanism %s", a->ops->name);
        if ((j = CS__FIELD("max_fee")) != NULL) cs__get_u128(c, j, fp, &x->max_fee);
        else if (kind == 2) cs__cl_err(c, fp, "required by mechanism %s", a->ops->name);
        if ((j = CS__FIELD("max_priority_fee")) != NULL) cs__get_u128(c, j, fp, &x->max_prio);
        else if (kind == 2) cs__cl_err(c, fp, "required by mechanism %s", a->ops->name);
        uint64_t v;
        if ((j = CS__FIELD("deferrals")) != NULL && cs__get_u64(c, j, fp, 0, UINT32_MAX, &v) == 0)
            x->deferrals = (uint32_t)v;
        if ((j = CS__FIELD("weight")) != NULL) {
            if (!cJSON_IsNumber(j) || !(j->valuedouble > 0) || !(j->valuedouble <= 100))
                cs__cl_err(c, fp, "must be a number in (0, 100]");
            else
                x->weight = (uint64_t)llround(j->valuedouble * (double)CS_PPM);
            if (x->weight == 0 && cJSON_IsNumber(j) && j->valuedouble > 0) x->weight = 1;
        }
        if ((j = CS__FIELD("balance")) != NULL) cs__get_u128(c, j, fp, &x->balance);
        if ((j = CS__FIELD("due_height")) != NULL) cs__get_u64(c, j, fp, 0, UINT64_MAX, &x->due_height);
        if ((j = CS__FIELD("fifo_rank")) != NULL) cs__get_u64(c, j, fp, 0, UINT64_MAX, &x->fifo_rank);
        if ((j = CS__FIELD("sched_height")) != NULL) cs__get_u64(c, j, fp, 0, UINT64_MAX, &x->sched_height);
#undef CS__FIELD
    }
    return c->nerr;
}

/* Decimal of a u128 into buf (40 bytes). */
static const char *cs__u(cs_u128 v, char *buf)
{
    return cs_u128_fmt(v, buf);
}

/* The priority as the mechanism means it, as text (score is signed). */
static const char *cs__prio_text(const cs__auction_t *a, const cs_cand_t *x, char *buf)
{
    if (strcmp(a->ops->name, "score") == 0) {
        cs_u128 off = (cs_u128)1 << 127;
        if (x->priority >= off) return cs_u128_fmt(x->priority - off, buf);
        buf[0] = '-';
        cs_u128_fmt(off - x->priority, buf + 1);
        return buf;
    }
    return cs_u128_fmt(x->priority, buf);
}

/* Totals of the clearing, in base units. */
typedef struct cs__totals {
    cs_u128 burn;      /* lane burn (+ payments when payments_to = burn) */
    cs_u128 tips;      /* cycles * prio_rate of winners */
    cs_u128 payments;  /* auction payments */
    cs_u128 proposer;  /* proposer revenue */
} cs__totals_t;

/*
 * The totals into *t, exactly: every product and sum is checked, and the
 * payments are summed here from the winners' payments (the mechanisms'
 * own total saturates).  Returns NULL, or the name of the first total
 * that exceeds 2^128 - 1 (the caller refuses the input: a wrapped or
 * saturated total would look like a real one).
 */
static const char *cs__totals(const cs__auction_t *a, cs__totals_t *t)
{
    memset(t, 0, sizeof *t);
    int fees = (a->ops->flags & CS_MF_FEES) != 0;
    cs_u128 v;
    for (size_t i = 0; i < a->n; i++) {
        const cs_cand_t *x = &a->c[i];
        if (!x->selected) continue;
        if (cs_u128_add(t->payments, x->payment, &t->payments) != 0) return "payments";
        if (!fees) continue;
        if (cs_u128_mul(x->cycles, a->ctx.basefee_lane, &v) != 0 || cs_u128_add(t->burn, v, &t->burn) != 0)
            return "burn";
        if (cs_u128_mul(x->cycles, x->prio_rate, &v) != 0 || cs_u128_add(t->tips, v, &t->tips) != 0)
            return "tips";
    }
    if (cs_u128_add(t->tips, t->payments, &v) != 0)
        return a->p.payments_to == CS_PAY_BURN ? "burn" : "proposer revenue";
    if (a->p.payments_to == CS_PAY_BURN) {
        if (cs_u128_add(t->burn, v, &t->burn) != 0) return "burn";
    } else {
        t->proposer = v;
    }
    return NULL;
}

/*
 * Priorities that saturate tie timers that differ (issue 25): a bias-*
 * priority bid + Bias(n) at 2^128 - 1, or a score bid with w_bid * bid
 * above 2^125 (CIP-5 CN §9.1: the score caps that term there).  Reports
 * each at its timer's bid and returns the count.
 */
static int cs__saturated(cs__cl_t *c, const cs__auction_t *a)
{
    int bad = 0;
    int score = strcmp(a->ops->name, "score") == 0, bias = strncmp(a->ops->name, "bias-", 5) == 0;
    cs_u128 lim = score && a->p.w_bid != 0 ? ((cs_u128)1 << 125) / a->p.w_bid : CS_U128_MAX;
    for (size_t i = 0; i < a->n; i++) {
        const cs_cand_t *x = &a->c[i];
        char fp[64];
        snprintf(fp, sizeof fp, "timers[%zu].bid", i);
        if (bias && x->priority == CS_U128_MAX) {
            cs__cl_err(c, fp, "bid + Bias reaches 2^128 - 1, where priorities saturate into ties; use a smaller bid");
            bad++;
        } else if (score && x->bid > lim) {
            cs__cl_err(c, fp, "w_bid * bid exceeds 2^125, where the score saturates into ties; use a smaller bid");
            bad++;
        }
    }
    return bad;
}

/* Hex of a timer id into buf (65 bytes). */
static const char *cs__hex(const cs_hash_t *id, char *buf)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < CS_ID_LEN; i++) {
        buf[2 * i] = hx[id->b[i] >> 4];
        buf[2 * i + 1] = hx[id->b[i] & 15];
    }
    buf[2 * CS_ID_LEN] = '\0';
    return buf;
}

static int cs__is_bias(const cs__auction_t *a)
{
    return strncmp(a->ops->name, "bias-", 5) == 0;
}

/*
 * The result as JSON, written as it goes (issue 25 #5: a cJSON tree of
 * 10^6 timers and cJSON_Print's copy of it were half of `clear --json`'s
 * time).  The bytes are those cJSON_Print gave: tab indentation, "key":\t,
 * numbers as cJSON prints them, strings escaped as cJSON escapes them
 * (tests/test_clear.sh compares them).
 */
typedef struct cs__jw {
    FILE *f;
    int err;           /* a write failed */
    size_t n;          /* bytes in buf */
    char buf[1 << 16]; /* (one fwrite per 64 KiB, not per piece) */
} cs__jw_t;

static void cs__jw_flush(cs__jw_t *w)
{
    if (w->n && fwrite(w->buf, 1, w->n, w->f) != w->n) w->err = 1;
    w->n = 0;
}

static void cs__jw_raw(cs__jw_t *w, const char *s, size_t n)
{
    if (w->n + n > sizeof w->buf) cs__jw_flush(w);
    if (n > sizeof w->buf) {
        if (fwrite(s, 1, n, w->f) != n) w->err = 1;
        return;
    }
    memcpy(w->buf + w->n, s, n);
    w->n += n;
}

/* A JSON string, escaped as cJSON's print_string_ptr does. */
static void cs__jw_str(cs__jw_t *w, const char *s)
{
    char buf[256];
    size_t n = 0;
    buf[n++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (n + 8 > sizeof buf) {
            cs__jw_raw(w, buf, n);
            n = 0;
        }
        unsigned char ch = *p;
        if (ch >= 32 && ch != '"' && ch != '\\') {
            buf[n++] = (char)ch;
            continue;
        }
        buf[n++] = '\\';
        switch (ch) {
        case '"': buf[n++] = '"'; break;
        case '\\': buf[n++] = '\\'; break;
        case '\b': buf[n++] = 'b'; break;
        case '\f': buf[n++] = 'f'; break;
        case '\n': buf[n++] = 'n'; break;
        case '\r': buf[n++] = 'r'; break;
        case '\t': buf[n++] = 't'; break;
        default: n += (size_t)snprintf(buf + n, sizeof buf - n, "u%04x", ch); break;
        }
    }
    buf[n++] = '"';
    cs__jw_raw(w, buf, n);
}

/* A number as cJSON's print_number writes it: %d when it equals its int
 * (cJSON's valueint saturates at INT_MAX), else %1.15g, or %1.17g when
 * that does not read back as the same double. */
static void cs__jw_num(cs__jw_t *w, double d)
{
    char buf[32];
    int vi = d >= (double)INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
    int n;
    if (isnan(d) || isinf(d)) n = snprintf(buf, sizeof buf, "null");
    else if (d == (double)vi) n = snprintf(buf, sizeof buf, "%d", vi);
    else {
        n = snprintf(buf, sizeof buf, "%1.15g", d);
        if (strtod(buf, NULL) != d) n = snprintf(buf, sizeof buf, "%1.17g", d);
    }
    cs__jw_raw(w, buf, (size_t)n);
}

/* Indentation, the key and ":\t" of a member at depth tabs. */
static void cs__jw_key(cs__jw_t *w, int depth, const char *key)
{
    static const char tabs[] = "\t\t\t\t";
    cs__jw_raw(w, tabs, (size_t)depth);
    cs__jw_str(w, key);
    cs__jw_raw(w, ":\t", 2);
}

/* ",\n" after a member followed by another, "\n" after the last. */
static void cs__jw_end(cs__jw_t *w, int more)
{
    cs__jw_raw(w, more ? ",\n" : "\n", more ? 2 : 1);
}

static void cs__jw_kstr(cs__jw_t *w, int depth, const char *key, const char *v, int more)
{
    cs__jw_key(w, depth, key);
    cs__jw_str(w, v);
    cs__jw_end(w, more);
}

static void cs__jw_knum(cs__jw_t *w, int depth, const char *key, double v, int more)
{
    cs__jw_key(w, depth, key);
    cs__jw_num(w, v);
    cs__jw_end(w, more);
}

/* Print the result as JSON (u128 values as decimal strings); -1 when
 * writing failed. */
static int cs__print_json(const cs__auction_t *a, const cs_clear_out_t *out)
{
    char b1[48], b2[80];
    cs__totals_t t;
    cs__totals(a, &t); /* checked by the caller */
    static cs__jw_t w; /* 64 KiB: not on the stack */
    w.f = stdout;
    w.err = 0;
    w.n = 0;
    int bias = cs__is_bias(a), fees = (a->ops->flags & CS_MF_FEES) != 0;
    cs__jw_raw(&w, "{\n", 2);
    cs__jw_kstr(&w, 1, "mechanism", a->ops->name, 1);
    cs__jw_knum(&w, 1, "height", (double)a->ctx.height, 1);
    cs__jw_knum(&w, 1, "budget_cycles", (double)a->ctx.budget_cycles, 1);
    cs__jw_kstr(&w, 1, "basefee_lane", cs__u(a->ctx.basefee_lane, b1), 1);
    cs__jw_key(&w, 1, "timers");
    cs__jw_raw(&w, "[", 1);
    for (size_t i = 0; i < a->n && !w.err; i++) {
        const cs_cand_t *x = &a->c[i];
        cs__jw_raw(&w, "{\n", 2);
        cs__jw_kstr(&w, 3, "id", a->idtext[i], 1);
        cs__jw_kstr(&w, 3, "id_hex", cs__hex(&x->id, b2), 1);
        cs__jw_kstr(&w, 3, "actor", a->actor[x->target], 1);
        cs__jw_key(&w, 3, "selected");
        cs__jw_raw(&w, x->selected ? "true" : "false", x->selected ? 4 : 5);
        cs__jw_end(&w, 1);
        cs__jw_knum(&w, 3, "rank", (double)x->rank, 1);
        cs__jw_knum(&w, 3, "cycles", (double)x->cycles, 1);
        cs__jw_kstr(&w, 3, "priority", cs__prio_text(a, x, b1), 1);
        if (bias) cs__jw_kstr(&w, 3, "bias", cs__u(x->priority - x->bid, b1), 1);
        if (fees) cs__jw_kstr(&w, 3, "prio_rate", cs__u(x->prio_rate, b1), 1);
        cs__jw_kstr(&w, 3, "payment", cs__u(x->payment, b1), 1);
        if (bias) cs__jw_kstr(&w, 3, "critical", cs__u(x->critical, b1), 1);
        cs__jw_key(&w, 3, "why");
        if (x->selected) cs__jw_raw(&w, "null", 4);
        else cs__jw_str(&w, cs_why_name(x->why));
        cs__jw_raw(&w, "\n\t\t}", 4);
        if (i + 1 < a->n) cs__jw_raw(&w, ", ", 2);
    }
    cs__jw_raw(&w, "],\n", 3);
    cs__jw_key(&w, 1, "totals");
    cs__jw_raw(&w, "{\n", 2);
    cs__jw_knum(&w, 2, "fired", out->fired, 1);
    cs__jw_knum(&w, 2, "deferred", out->deferred, 1);
    cs__jw_knum(&w, 2, "cycles_used", (double)out->cycles_used, 1);
    cs__jw_kstr(&w, 2, "burn", cs__u(t.burn, b1), 1);
    cs__jw_kstr(&w, 2, "tips", cs__u(t.tips, b1), 1);
    cs__jw_kstr(&w, 2, "payments", cs__u(t.payments, b1), 1);
    cs__jw_kstr(&w, 2, "proposer_revenue", cs__u(t.proposer, b1), 0);
    cs__jw_raw(&w, "\t}\n}\n", 5);
    cs__jw_flush(&w);
    return w.err || fflush(stdout) != 0 ? -1 : 0;
}

/* Print the human table, in rank order; -1 when out of memory. */
static int cs__print_table(const cs__auction_t *a, const cs_clear_out_t *out)
{
    char b1[48], b2[48], b3[48], b4[80];
    cs__totals_t t;
    cs__totals(a, &t); /* checked by the caller */
    int bias = cs__is_bias(a), fees = (a->ops->flags & CS_MF_FEES) != 0;
    printf("mechanism %s  height %llu  budget %llu cycles  basefee_lane %s\n", a->ops->name,
           (unsigned long long)a->ctx.height, (unsigned long long)a->ctx.budget_cycles,
           cs__u(a->ctx.basefee_lane, b1));
    printf("%4s  %-16s %-10s %10s %22s %16s %16s %s\n", "rank", "id", "actor", "cycles",
           "priority", fees ? "prio_rate" : "payment", bias ? "critical" : "", "outcome");
    uint32_t *by_rank = calloc(a->n ? a->n : 1, sizeof *by_rank);
    if (by_rank == NULL) return -1;
    for (size_t i = 0; i < a->n; i++) by_rank[a->c[i].rank] = (uint32_t)i;
    for (size_t k = 0; k < a->n; k++) {
        const cs_cand_t *x = &a->c[by_rank[k]];
        char idshort[20];
        const char *idt = a->idtext[by_rank[k]];
        size_t il = strlen(idt);
        if (il <= 16) snprintf(idshort, sizeof idshort, "%s", idt);
        else snprintf(idshort, sizeof idshort, "%.6s..%s", idt, idt + il - 8);
        printf("%4zu  %-16s %-10.10s %10llu %22s %16s %16s %s\n", k, idshort, a->actor[x->target],
               (unsigned long long)x->cycles, cs__prio_text(a, x, b1),
               fees ? cs__u(x->prio_rate, b2) : cs__u(x->payment, b2),
               bias ? cs__u(x->critical, b3) : "",
               x->selected ? "FIRE" : cs_why_name(x->why));
    }
    free(by_rank);
    (void)b4;
    printf("fired %u, deferred %u, cycles used %llu of %llu\n", out->fired, out->deferred,
           (unsigned long long)out->cycles_used, (unsigned long long)a->ctx.budget_cycles);
    printf("burn %s  tips %s  payments %s  proposer revenue %s\n", cs__u(t.burn, b1),
           cs__u(t.tips, b2), cs__u(t.payments, b3), cs__u(t.proposer, b4));
    return 0;
}

static void cs__clear_usage(FILE *f)
{
    char names[512];
    fprintf(f,
            "usage: cowsim clear AUCTION.json [--json]\n"
            "  Clears one block's auction and prints the allocation, priorities, payments,\n"
            "  critical bids and why each loser lost (JSON with --json).\n"
            "  mechanisms: %s\n",
            cs_mech_names(names, sizeof names));
}

/* Read a whole file of at most CS__MAX_TEXT bytes; NULL with errno on
 * failure (EFBIG when it is larger: nothing that size is allocated). */
static char *cs__slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf != NULL) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap) break;
        if (cap > CS__MAX_TEXT) { /* CS__MAX_TEXT + 1 bytes read: too large */
            free(buf);
            fclose(f);
            errno = EFBIG;
            return NULL;
        }
        size_t nc = 2 * cap > CS__MAX_TEXT ? CS__MAX_TEXT + 1u : 2 * cap;
        char *nb = realloc(buf, nc + 1);
        if (nb == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap = nc;
    }
    int bad = ferror(f);
    fclose(f);
    if (buf == NULL || bad) {
        free(buf);
        errno = bad ? EIO : ENOMEM;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* `cowsim clear AUCTION.json [--json]`: see the file comment. */
int cs_cmd_clear(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cs__clear_usage(stdout);
            return CS_EXIT_OK;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "cowsim clear: unknown option '%s'\n", argv[i]);
            cs__clear_usage(stderr);
            return CS_EXIT_USAGE;
        } else if (path == NULL) {
            path = argv[i];
        } else {
            fprintf(stderr, "cowsim clear: more than one input file\n");
            return CS_EXIT_USAGE;
        }
    }
    if (path == NULL) {
        cs__clear_usage(stderr);
        return CS_EXIT_USAGE;
    }
    size_t len = 0;
    char *text = cs__slurp(path, &len);
    if (text == NULL && errno == EFBIG) {
        fprintf(stderr, "cowsim clear: %s: larger than the limit of %u bytes\n", path, CS__MAX_TEXT);
        return CS_EXIT_USAGE;
    }
    if (text == NULL) {
        fprintf(stderr, "cowsim clear: %s: %s\n", path, strerror(errno));
        return CS_EXIT_IO;
    }
    char nulmsg[160];
    if (cs_json_nul_check(text, len, nulmsg, sizeof nulmsg) != 0) {
        fprintf(stderr, "cowsim clear: $: %s\n", nulmsg);
        free(text);
        return CS_EXIT_USAGE;
    }
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (root == NULL) {
        const char *at = cJSON_GetErrorPtr();
        size_t off = at && at >= text && at <= text + len ? (size_t)(at - text) : 0;
        fprintf(stderr, "cowsim clear: $: malformed JSON near byte %zu\n", off);
        free(text);
        return CS_EXIT_USAGE;
    }
    cs__cl_t cl = {0, stderr};
    cs__auction_t a;
    int rc = CS_EXIT_OK;
    if (cs__parse(&cl, root, &a) != 0) {
        rc = CS_EXIT_USAGE;
    } else {
        cs_mech_t m;
        cs_clear_out_t out;
        a.ctx.p = &a.p;
        int e = cs_mech_open(&m, a.ops, &a.p);
        if (e == CS_OK) {
            e = cs_mech_clear(&m, &a.ctx, a.c, a.n, &out);
            cs_mech_close(&m);
        }
        cs__totals_t t;
        const char *over = NULL;
        if (e != CS_OK) {
            fprintf(stderr, "cowsim clear: %s\n", cs_strerror(e));
            rc = CS_EXIT_USAGE;
        } else if (cs__saturated(&cl, &a) != 0) {
            rc = CS_EXIT_USAGE;
        } else if ((over = cs__totals(&a, &t)) != NULL) {
            fprintf(stderr, "cowsim clear: totals.%s: exceeds 2^128 - 1 and cannot be shown exactly; use smaller amounts\n",
                    over);
            rc = CS_EXIT_USAGE;
        } else if (json) {
            if (cs__print_json(&a, &out) != 0) {
                fprintf(stderr, "cowsim clear: cannot write the result: %s\n", strerror(errno));
                rc = CS_EXIT_IO;
            }
        } else if (cs__print_table(&a, &out) != 0) {
            fprintf(stderr, "cowsim clear: out of memory writing the result\n");
            rc = CS_EXIT_IO;
        }
    }
    cs__auction_free(&a);
    cJSON_Delete(root);
    free(text);
    return rc;
}
