/*
 * cs_mech.c -- the mechanism registry, the ops-table wrappers and the
 * helpers every mechanism shares (workspaces, sorts, per-target counters,
 * exact ratio comparison).  DESIGN §2.4, STYLE §2-3.
 */
#include "cs_mech.h"

#include <stdlib.h>
#include <string.h>

#include "cs_mech_int.h"

/* STYLE §3: one NULL-terminated registry of every mechanism. */
const cs_mech_ops_t *const cs_mech_registry[] = {
    &cs__mech_fifo,
    &cs__mech_fifo_capped,
    &cs__mech_score,
    &cs__mech_bias_vcg,
    &cs__mech_bias_fp,
    &cs__mech_eip1559,
    &cs__mech_gbatip,
    NULL,
};

static const char *const cs__why_names[] = {
    "none",  "budget", "cap",   "block_quota", "actor_quota",
    "funds", "below_basefee", "slice", "reserve",
};
CS_STATIC_ASSERT(sizeof cs__why_names / sizeof cs__why_names[0] == CS_WHY__COUNT,
                 "one name per cs_why");

/* Name of a cs_why value ("budget", "cap", ...); "unknown" when out of
 * range.  Never NULL. */
const char *cs_why_name(int why)
{
    if (why < 0 || why >= (int)CS_WHY__COUNT) return "unknown";
    return cs__why_names[why];
}

/* Registry entry called name, or NULL. */
const cs_mech_ops_t *cs_mech_find(const char *name)
{
    if (name == NULL) return NULL;
    for (size_t i = 0; cs_mech_registry[i] != NULL; i++)
        if (strcmp(cs_mech_registry[i]->name, name) == 0) return cs_mech_registry[i];
    return NULL;
}

/* Write "fifo, fifo-capped, ..." (registry order) into buf, truncating to
 * cap - 1 characters.  Returns buf. */
char *cs_mech_names(char *buf, size_t cap)
{
    size_t len = 0;
    if (cap == 0) return buf;
    buf[0] = '\0';
    for (size_t i = 0; cs_mech_registry[i] != NULL; i++) {
        const char *nm = cs_mech_registry[i]->name;
        const char *parts[2] = {i ? ", " : "", nm};
        for (int k = 0; k < 2; k++) {
            for (const char *s = parts[k]; *s && len + 1 < cap; s++) buf[len++] = *s;
        }
    }
    buf[len] = '\0';
    return buf;
}

/* Allocate the instance state (zeroed ops->state_size bytes) and run
 * init.  On failure nothing stays allocated and m is zeroed.  Returns CS_OK,
 * CS_EINVAL, CS_ENOMEM or init's error. */
int cs_mech_open(cs_mech_t *m, const cs_mech_ops_t *ops, const cs_params_t *p)
{
    if (m == NULL || ops == NULL || ops->clear == NULL || p == NULL) return CS_EINVAL;
    m->ops = NULL;
    m->state = calloc(1, ops->state_size ? ops->state_size : 1);
    if (m->state == NULL) return CS_ENOMEM;
    if (ops->init != NULL) {
        int rc = ops->init(m->state, p);
        if (rc != CS_OK) {
            if (ops->fini != NULL) ops->fini(m->state);
            free(m->state);
            m->state = NULL;
            return rc;
        }
    }
    m->ops = ops;
    return CS_OK;
}

/* Run fini and free the state.  Safe on a zeroed or already closed m. */
void cs_mech_close(cs_mech_t *m)
{
    if (m == NULL) return;
    if (m->ops != NULL && m->ops->fini != NULL && m->state != NULL) m->ops->fini(m->state);
    free(m->state);
    m->state = NULL;
    m->ops = NULL;
}

/* Clear one block.  The mechanism checks every candidate (cycles >= 1,
 * else CS_EINVAL), resets its output fields and runs; *out is zeroed here.
 * At most UINT32_MAX candidates.  Returns CS_OK, CS_EINVAL or the
 * mechanism's error (CS_ENOMEM when its workspace cannot grow); after an
 * error the output fields are unspecified. */
int cs_mech_clear(cs_mech_t *m, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                  cs_clear_out_t *out)
{
    if (m == NULL || m->ops == NULL || ctx == NULL || ctx->p == NULL || out == NULL ||
        (c == NULL && n > 0) || n > (size_t)UINT32_MAX)
        return CS_EINVAL;
    memset(out, 0, sizeof *out);
    return m->ops->clear(m->state, ctx, c, n, out);
}

/* Feedback after settlement (lambda loop, EMA weights); no-op when the
 * mechanism has no end_block hook. */
void cs_mech_end_block(cs_mech_t *m, const cs_clear_ctx_t *ctx, const cs_cand_t *c, size_t n,
                       const cs_clear_out_t *out)
{
    if (m == NULL || m->ops == NULL || m->ops->end_block == NULL) return;
    m->ops->end_block(m->state, ctx, c, n, out);
}

/* ---- shared helpers (cs_mech_int.h) ---- */

/* Grow one array to n elements of size sz; 0 on success. */
static int cs__grow(void **pp, size_t n, size_t sz)
{
    void *q = realloc(*pp, n * sz);
    if (q == NULL) return -1;
    *pp = q;
    return 0;
}

int cs__ws_reserve(cs__ws_t *w, size_t n)
{
    if (n <= w->cap && w->hcap >= 2 * (n ? n : 1)) return CS_OK;
    size_t cap = w->cap ? w->cap : 64;
    while (cap < n) cap *= 2;
    if (cs__grow((void **)&w->rec, cap, sizeof *w->rec) ||
        cs__grow((void **)&w->whyp, cap, sizeof *w->whyp) ||
        cs__grow((void **)&w->inv, cap, sizeof *w->inv) ||
        cs__grow((void **)&w->ord, cap, sizeof *w->ord) ||
        cs__grow((void **)&w->tmp, cap, sizeof *w->tmp) ||
        cs__grow((void **)&w->key, cap, sizeof *w->key) ||
        cs__grow((void **)&w->key2, cap, sizeof *w->key2) ||
        cs__grow((void **)&w->key3, cap, sizeof *w->key3) ||
        cs__grow((void **)&w->aux, cap, sizeof *w->aux) ||
        cs__grow((void **)&w->tie, cap, sizeof *w->tie))
        return CS_ENOMEM;
    if (w->hist == NULL) {
        w->hist = malloc((size_t)CS__RADIX_PASSES * CS__RADIX * sizeof *w->hist);
        if (w->hist == NULL) return CS_ENOMEM;
    }
    size_t hcap = 2 * cap;
    uint32_t *hk = calloc(hcap, sizeof *hk), *hv = calloc(hcap, sizeof *hv),
             *hg = calloc(hcap, sizeof *hg);
    if (hk == NULL || hv == NULL || hg == NULL) {
        free(hk);
        free(hv);
        free(hg);
        return CS_ENOMEM;
    }
    free(w->hkey);
    free(w->hval);
    free(w->hgen);
    w->hkey = hk;
    w->hval = hv;
    w->hgen = hg;
    w->hcap = hcap;
    w->gen = 0;
    w->cap = cap;
    return CS_OK;
}

void cs__ws_free(cs__ws_t *w)
{
    free(w->rec);
    free(w->whyp);
    free(w->inv);
    free(w->ord);
    free(w->tmp);
    free(w->key);
    free(w->key2);
    free(w->key3);
    free(w->aux);
    free(w->tie);
    free(w->hist);
    free(w->hkey);
    free(w->hval);
    free(w->hgen);
    memset(w, 0, sizeof *w);
}

/* Merge sort of a[0..n) using scratch t[0..n). */
static void cs__msort(uint32_t *a, uint32_t *t, size_t n, const cs_cand_t *c, cs__cmp_fn cmp,
                      const void *ctx)
{
    if (n < 2) return;
    if (n <= 12) { /* insertion sort for short runs */
        for (size_t i = 1; i < n; i++) {
            uint32_t x = a[i];
            size_t j = i;
            while (j > 0 && cmp(&c[x], &c[a[j - 1]], ctx) < 0) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    cs__msort(a, t, h, c, cmp, ctx);
    cs__msort(a + h, t + h, n - h, c, cmp, ctx);
    if (cmp(&c[a[h - 1]], &c[a[h]], ctx) <= 0) return; /* already in order */
    memcpy(t, a, n * sizeof *a);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) a[k++] = cmp(&c[t[j]], &c[t[i]], ctx) < 0 ? t[j++] : t[i++];
    while (i < h) a[k++] = t[i++];
    while (j < n) a[k++] = t[j++];
}

void cs__sort(cs__ws_t *w, const cs_cand_t *c, size_t n, cs__cmp_fn cmp, const void *ctx)
{
    cs__msort(w->ord, w->tmp, n, c, cmp, ctx);
}

/* Merge sort of a[0..n) by tie[] ascending, cmp breaking equal ties. */
static void cs__msort_tie(uint32_t *a, uint32_t *t, size_t n, const uint64_t *tie,
                          const cs_cand_t *c, cs__cmp_fn cmp, const void *ctx)
{
    if (n < 2) return;
    if (n <= 12) {
        for (size_t i = 1; i < n; i++) {
            uint32_t x = a[i];
            size_t j = i;
            while (j > 0 && (tie[x] < tie[a[j - 1]] ||
                             (tie[x] == tie[a[j - 1]] && cmp(&c[x], &c[a[j - 1]], ctx) < 0))) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    cs__msort_tie(a, t, h, tie, c, cmp, ctx);
    cs__msort_tie(a + h, t + h, n - h, tie, c, cmp, ctx);
    memcpy(t, a, n * sizeof *a);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        uint32_t x = t[j], y = t[i];
        int first = tie[x] < tie[y] || (tie[x] == tie[y] && cmp(&c[x], &c[y], ctx) < 0);
        a[k++] = first ? t[j++] : t[i++];
    }
    while (i < h) a[k++] = t[i++];
    while (j < n) a[k++] = t[j++];
}

void cs__sort_keyed_desc(cs__ws_t *w, const cs_cand_t *c, size_t n, cs__cmp_fn cmp,
                         const void *ctx, int use_tie)
{
    enum { BITS = CS__RADIX_BITS, PASSES = CS__RADIX_PASSES, RADIX = CS__RADIX };
    const uint64_t mask = RADIX - 1;
    if (n < 2) return;
    uint32_t *oa = w->ord, *ob = w->tmp;
    uint64_t *ka = w->key2, *kb = w->key3;
    /* Descending by key = ascending by ~key. */
    for (size_t j = 0; j < n; j++) ka[j] = ~w->key[oa[j]];
    if (n <= 64) {
        cs__msort(oa, ob, n, c, cmp, ctx);
        return;
    }
    /* Only the digits below the highest bit in which two keys differ. */
    uint64_t any = 0;
    for (size_t j = 0; j < n; j++) any |= ka[j] ^ ka[0];
    unsigned passes = any ? (64u - (unsigned)__builtin_clzll(any) + BITS - 1) / BITS : 0u;
    if (passes > PASSES) passes = PASSES;
    uint32_t *hist = w->hist;
    memset(hist, 0, (size_t)passes * RADIX * sizeof *hist);
    for (size_t j = 0; j < n; j++)
        for (unsigned d = 0; d < passes; d++) hist[d * RADIX + ((ka[j] >> (d * BITS)) & mask)]++;
    for (unsigned d = 0; d < passes; d++) {
        uint32_t *h = hist + (size_t)d * RADIX;
        if (h[(ka[0] >> (d * BITS)) & mask] == n) continue; /* one bucket: skip */
        uint32_t sum = 0;
        for (unsigned b = 0; b < RADIX; b++) {
            uint32_t x = h[b];
            h[b] = sum;
            sum += x;
        }
        for (size_t j = 0; j < n; j++) {
            uint32_t pos = h[(ka[j] >> (d * BITS)) & mask]++;
            kb[pos] = ka[j];
            ob[pos] = oa[j];
        }
        uint64_t *kt = ka;
        ka = kb;
        kb = kt;
        uint32_t *ot = oa;
        oa = ob;
        ob = ot;
    }
    if (oa != w->ord) memcpy(w->ord, oa, n * sizeof *oa);
    /* Runs of equal keys: exact order by cmp (after tie[] with use_tie). */
    uint32_t *ord = w->ord;
    for (size_t s = 0; s < n;) {
        size_t e = s + 1;
        while (e < n && ka[e] == ka[s]) e++;
        if (e - s > 1) {
            if (use_tie) cs__msort_tie(ord + s, w->tmp + s, e - s, w->tie, c, cmp, ctx);
            else cs__msort(ord + s, w->tmp + s, e - s, c, cmp, ctx);
        }
        s = e;
    }
}

void cs__finish(cs__ws_t *w, cs_cand_t *c, size_t n)
{
    for (size_t k = 0; k < n; k++) w->inv[w->ord[k]] = (uint32_t)k;
    for (size_t i = 0; i < n; i++) {
        uint32_t k = w->inv[i];
        uint8_t why = w->whyp[k];
        c[i].rank = k;
        c[i].why = why;
        c[i].selected = why == CS_WHY_NONE;
    }
}

void cs__tcount_reset(cs__ws_t *w)
{
    w->gen++;
    if (w->gen == 0) { /* wrapped: clear the generation tags once */
        memset(w->hgen, 0, w->hcap * sizeof *w->hgen);
        w->gen = 1;
    }
}

uint32_t *cs__tcount(cs__ws_t *w, uint32_t t)
{
    size_t m = w->hcap - 1;
    size_t i = (size_t)((t * 2654435761u) ^ (t >> 16)) & m;
    for (;;) {
        if (w->hgen[i] != w->gen) {
            w->hgen[i] = w->gen;
            w->hkey[i] = t;
            w->hval[i] = 0;
            return &w->hval[i];
        }
        if (w->hkey[i] == t) return &w->hval[i];
        i = (i + 1) & m;
    }
}

/* a * b as three 64-bit limbs, least significant first. */
static void cs__mul_128x64(cs_u128 a, uint64_t b, uint64_t r[3])
{
    cs_u128 p0 = (cs_u128)(uint64_t)a * b;
    cs_u128 p1 = (cs_u128)(uint64_t)(a >> 64) * b;
    cs_u128 t = (p0 >> 64) + (cs_u128)(uint64_t)p1;
    r[0] = (uint64_t)p0;
    r[1] = (uint64_t)t;
    r[2] = (uint64_t)(p1 >> 64) + (uint64_t)(t >> 64);
}

int cs__ratio_cmp(cs_u128 a, uint64_t ca, cs_u128 b, uint64_t cb)
{
    uint64_t x[3], y[3];
    cs__mul_128x64(a, cb, x);
    cs__mul_128x64(b, ca, y);
    for (int k = 2; k >= 0; k--)
        if (x[k] != y[k]) return x[k] > y[k] ? 1 : -1;
    return 0;
}

uint64_t cs__ratio_key(cs_u128 v, uint64_t c)
{
    /* X = floor(v * 2^64 / c) as 192 bits (q << 64 | f) depends on v / c
     * only; the key keeps its bit length and the next 56 bits, which is
     * monotone in X, hence in v / c. */
    cs_u128 q;
    uint64_t f;
    if ((v >> 64) == 0) {
        uint64_t v64 = (uint64_t)v;
        q = v64 / c;
        uint64_t r = v64 % c;
        f = (uint64_t)(((cs_u128)r << 64) / c);
    } else {
        q = v / c;
        uint64_t r = (uint64_t)(v % c);
        f = (uint64_t)(((cs_u128)r << 64) / c);
    }
    uint64_t hi = (uint64_t)(q >> 64), mid = (uint64_t)q;
    unsigned len; /* bit length of X */
    uint64_t top; /* X's leading 64 bits, left aligned (leading one at bit 63) */
    if (hi) {
        unsigned z = (unsigned)__builtin_clzll(hi);
        len = 192 - z;
        top = z ? (hi << z) | (mid >> (64 - z)) : hi;
    } else if (mid) {
        unsigned z = (unsigned)__builtin_clzll(mid);
        len = 128 - z;
        top = z ? (mid << z) | (f >> (64 - z)) : mid;
    } else if (f) {
        unsigned z = (unsigned)__builtin_clzll(f);
        len = 64 - z;
        top = f << z;
    } else {
        return 0;
    }
    return (((uint64_t)len << 56) | ((top << 1) >> 8)) >> CS__KEY_DROP;
}

uint64_t cs__u128_key(cs_u128 v)
{
    uint64_t hi = (uint64_t)(v >> 64), lo = (uint64_t)v, top;
    unsigned len;
    if (hi) {
        unsigned z = (unsigned)__builtin_clzll(hi);
        len = 128 - z;
        top = z ? (hi << z) | (lo >> (64 - z)) : hi;
    } else if (lo) {
        unsigned z = (unsigned)__builtin_clzll(lo);
        len = 64 - z;
        top = lo << z;
    } else {
        return 0;
    }
    return (((uint64_t)len << 56) | ((top << 1) >> 8)) >> CS__KEY_DROP;
}
