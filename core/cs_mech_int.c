/*
 * cs_mech_int.c -- the helpers every mechanism shares (cs_mech_int.h):
 * workspaces, sorts, per-target counters, exact ratio comparison and the
 * monotone sort keys.  DESIGN §2.4.
 */
#include "cs_mech_int.h"

#include <stdlib.h>
#include <string.h>

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
        cs__grow((void **)&w->whyi, cap, sizeof *w->whyi) ||
        cs__grow((void **)&w->cw, cap, sizeof *w->cw) ||
        cs__grow((void **)&w->inv, cap, sizeof *w->inv) ||
        cs__grow((void **)&w->ord, cap, sizeof *w->ord) ||
        cs__grow((void **)&w->tmp, cap, sizeof *w->tmp) ||
        cs__grow((void **)&w->key, cap, sizeof *w->key) ||
        cs__grow((void **)&w->key2, cap, sizeof *w->key2) ||
        cs__grow((void **)&w->key3, cap, sizeof *w->key3) ||
        cs__grow((void **)&w->key4, cap, sizeof *w->key4) ||
        cs__grow((void **)&w->tmp2, cap, sizeof *w->tmp2) ||
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
    free(w->whyi);
    free(w->cw);
    free(w->inv);
    free(w->ord);
    free(w->tmp);
    free(w->key);
    free(w->key2);
    free(w->key3);
    free(w->key4);
    free(w->tmp2);
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

void cs__sort_range(cs__ws_t *w, const cs_cand_t *c, size_t off, size_t n, cs__cmp_fn cmp,
                    const void *ctx)
{
    cs__msort(w->ord + off, w->tmp2 + off, n, c, cmp, ctx);
}

/* Insertion sort of the pairs (tk[i], to[i]) by tk ascending, cmp over the
 * candidates to[] breaking equal tk. */
static void cs__isort_pairs(uint64_t *tk, uint32_t *to, size_t n, const cs_cand_t *c,
                            cs__cmp_fn cmp, const void *ctx)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t xk = tk[i];
        uint32_t xo = to[i];
        size_t j = i;
        while (j > 0 && (xk < tk[j - 1] || (xk == tk[j - 1] && cmp(&c[xo], &c[to[j - 1]], ctx) < 0))) {
            tk[j] = tk[j - 1];
            to[j] = to[j - 1];
            j--;
        }
        tk[j] = xk;
        to[j] = xo;
    }
}

/* Stable merge sort of the pairs (tk, to)[0..n) in the order of
 * cs__isort_pairs, using the scratch pairs (sk, so)[0..n). */
static void cs__msort_pairs(uint64_t *tk, uint32_t *to, uint64_t *sk, uint32_t *so, size_t n,
                            const cs_cand_t *c, cs__cmp_fn cmp, const void *ctx)
{
    if (n <= 16) {
        cs__isort_pairs(tk, to, n, c, cmp, ctx);
        return;
    }
    size_t h = n / 2;
    cs__msort_pairs(tk, to, sk, so, h, c, cmp, ctx);
    cs__msort_pairs(tk + h, to + h, sk + h, so + h, n - h, c, cmp, ctx);
    if (tk[h - 1] < tk[h] || (tk[h - 1] == tk[h] && cmp(&c[to[h - 1]], &c[to[h]], ctx) <= 0))
        return; /* already in order */
    memcpy(sk, tk, n * sizeof *tk);
    memcpy(so, to, n * sizeof *to);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        int right = sk[j] < sk[i] || (sk[j] == sk[i] && cmp(&c[so[j]], &c[so[i]], ctx) < 0);
        size_t f = right ? j++ : i++;
        tk[k] = sk[f];
        to[k++] = so[f];
    }
    for (; i < h; i++, k++) tk[k] = sk[i], to[k] = so[i];
    for (; j < n; j++, k++) tk[k] = sk[j], to[k] = so[j];
}

/* Order one run of equal radix keys, the pairs (tk, ord)[0..n) with
 * tk[k] = tie[ord[k]] already gathered, by tk ascending, cmp breaking
 * equal tie values; so the comparisons read no candidate unless two tie
 * values are equal.  Runs above 16 are split by one most-significant-
 * digit pass over the bits below the highest bit in which their tie
 * values differ (about four per bucket), then each bucket is sorted by
 * insertion, or by merge sort above 16; so the worst case stays
 * O(n log n).  Scratch: sk (u64) and so (u32), n each; hist holds
 * CS__RADIX + 1 counters. */
static void cs__sort_run_tie(uint32_t *ord, uint64_t *tk, size_t n, uint64_t *sk, uint32_t *so,
                             uint32_t *hist, const cs_cand_t *c, cs__cmp_fn cmp, const void *ctx)
{
    if (n <= 16) {
        cs__isort_pairs(tk, ord, n, c, cmp, ctx);
        return;
    }
    uint64_t t0 = tk[0], any = 0;
    for (size_t k = 0; k < n; k++) any |= tk[k] ^ t0;
    if (any == 0) { /* one tie value: the comparator decides */
        cs__msort(ord, so, n, c, cmp, ctx);
        return;
    }
    unsigned hb = 64u - (unsigned)__builtin_clzll(any);            /* differing bits */
    unsigned b = (64u - (unsigned)__builtin_clzll((uint64_t)n)) - 2u; /* ~n/4 buckets */
    if (b > CS__RADIX_BITS) b = CS__RADIX_BITS;
    if (b > hb) b = hb;
    unsigned sh = hb - b;
    uint64_t mask = ((uint64_t)1 << b) - 1;
    size_t nb = (size_t)1 << b;
    memset(hist, 0, (nb + 1) * sizeof *hist);
    for (size_t k = 0; k < n; k++) hist[((tk[k] >> sh) & mask) + 1]++;
    for (size_t d = 0; d < nb; d++) hist[d + 1] += hist[d];
    for (size_t k = 0; k < n; k++) {
        uint32_t pos = hist[(tk[k] >> sh) & mask]++;
        sk[pos] = tk[k];
        so[pos] = ord[k];
    }
    /* hist[d] is now the end of bucket d (the start of bucket d + 1). */
    size_t lo = 0;
    for (size_t d = 0; d < nb; d++) {
        size_t hi = hist[d], m = hi - lo;
        if (m > 16) cs__msort_pairs(sk + lo, so + lo, tk + lo, ord + lo, m, c, cmp, ctx);
        else if (m > 1) cs__isort_pairs(sk + lo, so + lo, m, c, cmp, ctx);
        lo = hi;
    }
    memcpy(ord, so, n * sizeof *ord);
}

/* Order one run of equal radix keys in the packed form that also carries
 * the top tb bits of each tie value (wd[k] = key | tie top << ib | index,
 * the key bits equal across the run): sort the words, which orders them
 * by the tie prefix, by insertion up to 32 words or two LSD passes over
 * the top tbs = min(tb, 2 bitlen(n)) of the tb bits (so the histograms
 * stay near the run's size); write the indices to ord; then only the
 * sub-runs with equal sorted prefixes need the full tie values (gathered
 * into scr) and the comparator (cs__sort_run_tie).  wd, scr, ord: n
 * entries; off is the run's position, for the scratch arrays of w.  tb is
 * 8..22. */
static void cs__sort_run_words(cs__ws_t *w, const cs_cand_t *c, cs__cmp_fn cmp, const void *ctx,
                               uint64_t *wd, uint64_t *scr, uint32_t *ord, size_t n, size_t off,
                               unsigned ib, unsigned tb)
{
    uint64_t im = ((uint64_t)1 << ib) - 1;
    unsigned gsh = ib; /* sub-runs: equal wd >> gsh */
    if (n <= 32) {
        for (size_t i = 1; i < n; i++) {
            uint64_t x = wd[i];
            size_t j = i;
            for (; j > 0 && x < wd[j - 1]; j--) wd[j] = wd[j - 1];
            wd[j] = x;
        }
    } else {
        unsigned lg = 64u - (unsigned)__builtin_clzll((uint64_t)n);
        unsigned tbs = CS_MIN(tb, 2 * lg);
        unsigned b1 = (tbs + 1) / 2, b2 = tbs - b1, sh = ib + tb - tbs;
        gsh = sh;
        uint64_t m1 = ((uint64_t)1 << b1) - 1, m2 = ((uint64_t)1 << b2) - 1;
        uint32_t *h1 = w->hist, *h2 = w->hist + CS__RADIX;
        memset(h1, 0, ((size_t)1 << b1) * sizeof *h1);
        memset(h2, 0, ((size_t)1 << b2) * sizeof *h2);
        for (size_t k = 0; k < n; k++) {
            h1[(wd[k] >> sh) & m1]++;
            h2[(wd[k] >> (sh + b1)) & m2]++;
        }
        uint32_t s1 = 0, s2 = 0;
        for (size_t d = 0; d <= m1; d++) {
            uint32_t x = h1[d];
            h1[d] = s1;
            s1 += x;
        }
        for (size_t d = 0; d <= m2; d++) {
            uint32_t x = h2[d];
            h2[d] = s2;
            s2 += x;
        }
        for (size_t k = 0; k < n; k++) scr[h1[(wd[k] >> sh) & m1]++] = wd[k];
        for (size_t k = 0; k < n; k++) wd[h2[(scr[k] >> (sh + b1)) & m2]++] = scr[k];
    }
    for (size_t k = 0; k < n; k++) ord[k] = (uint32_t)(wd[k] & im);
    /* Equal sorted prefixes: the full tie values, then the comparator. */
    for (size_t k = 0; k < n;) {
        uint64_t t = wd[k] >> gsh;
        size_t e = k + 1;
        while (e < n && (wd[e] >> gsh) == t) e++;
        if (e - k > 1) {
            for (size_t j = k; j < e; j++) scr[j] = w->tie[ord[j]];
            cs__sort_run_tie(ord + k, scr + k, e - k, w->key4 + off + k, w->tmp2 + off + k,
                             w->hist, c, cmp, ctx);
        }
        k = e;
    }
}

/* One LSD pass: dst[] = src[] stably bucketed by the digit at bit sh,
 * with h[] the digit's histogram (turned into running offsets here). */
static void cs__radix_pass(const uint64_t *src, uint64_t *dst, size_t n, uint32_t *h, unsigned sh)
{
    const uint64_t mask = CS__RADIX - 1;
    uint32_t sum = 0;
    for (unsigned b = 0; b < CS__RADIX; b++) {
        uint32_t x = h[b];
        h[b] = sum;
        sum += x;
    }
    size_t j = 0;
    for (; j + 2 <= n; j += 2) {
        uint64_t x0 = src[j], x1 = src[j + 1];
        dst[h[(x0 >> sh) & mask]++] = x0;
        dst[h[(x1 >> sh) & mask]++] = x1;
    }
    if (j < n) dst[h[(src[j] >> sh) & mask]++] = src[j];
}

/* Fill the packed words pa[0..n) (see cs__sort_core) and the histograms
 * of up to three 11-bit digits of the keys (passes <= 3) or of all
 * passes.  Inlined with constant identity / carry so that each caller's
 * loop does only its own work. */
static inline __attribute__((always_inline)) void
cs__pack(uint64_t *pa, const uint64_t *key, const uint32_t *ord, const uint64_t *tie, size_t n,
         uint64_t m, unsigned ib, unsigned tb, unsigned passes, uint32_t *hist, const int identity,
         const int carry)
{
    enum { BITS = CS__RADIX_BITS, RADIX = CS__RADIX };
    const uint64_t mask = RADIX - 1;
    unsigned kbit = ib + tb;
    if (passes <= 3) {
        uint32_t *h0 = hist, *h1 = hist + RADIX, *h2 = hist + 2 * RADIX;
        uint64_t m1 = passes > 1 ? mask : 0, m2 = passes > 2 ? mask : 0;
        for (size_t j = 0; j < n; j++) {
            uint32_t x = identity ? (uint32_t)j : ord[j];
            uint64_t y = ~key[x] & m;
            uint64_t tt = carry ? (tie[x] >> (64 - tb)) << ib : 0;
            pa[j] = (y << kbit) | tt | x;
            h0[y & mask]++;
            h1[(y >> BITS) & m1]++;
            h2[(y >> (2 * BITS)) & m2]++;
        }
    } else {
        for (size_t j = 0; j < n; j++) {
            uint32_t x = identity ? (uint32_t)j : ord[j];
            uint64_t y = ~key[x] & m;
            uint64_t tt = carry ? (tie[x] >> (64 - tb)) << ib : 0;
            pa[j] = (y << kbit) | tt | x;
            for (unsigned d = 0; d < passes; d++, y >>= BITS) hist[d * RADIX + (y & mask)]++;
        }
    }
}

/* One candidate of a short keyed sort: ~key (so ascending is the key
 * descending), the tie value (0 without use_tie) and its index. */
typedef struct cs__skey {
    uint64_t k;    /* ~key */
    uint64_t t;    /* tie[x], or 0 */
    uint32_t x;    /* candidate index */
} cs__skey_t;

/* Does a come before b: ~key, then tie ascending, then cmp (only when
 * both are equal, so a run of distinct keys reads no candidate).  The
 * common case is computed without a branch on the outcome (the sorts'
 * comparisons are unpredictable). */
static inline int cs__skey_before(const cs__skey_t *a, const cs__skey_t *b, const cs_cand_t *c,
                                  cs__cmp_fn cmp, const void *ctx)
{
    int ke = a->k == b->k;
    if (__builtin_expect(ke && a->t == b->t, 0)) return cmp(&c[a->x], &c[b->x], ctx) < 0;
    return (a->k < b->k) | (ke & (a->t < b->t));
}

#define CS__SMALL_SORT 64 /* cs__sort_core sorts up to this many without radix passes */

/* cs__sort_core for n <= CS__SMALL_SORT: the same order (the key's and
 * tie's contracts make (key desc, tie asc, cmp) exactly cmp's order),
 * by insertion sort of runs of 8 and merges, on a copy of the keys on the
 * stack, so the comparator (an indirect call reading two candidates)
 * runs only for equal (key, tie) pairs.  A radix pass would cost more than
 * the sort itself at this size (its histograms alone are 2,048 counters). */
static void cs__sort_small(cs__ws_t *w, const cs_cand_t *c, size_t n, cs__cmp_fn cmp, const void *ctx,
                           int use_tie, int identity)
{
    cs__skey_t buf[2][CS__SMALL_SORT];
    cs__skey_t *a = buf[0], *b = buf[1];
    uint32_t *ord = w->ord;
    for (size_t j = 0; j < n; j++) {
        uint32_t x = identity ? (uint32_t)j : ord[j];
        a[j].k = ~w->key[x];
        a[j].t = use_tie ? w->tie[x] : 0;
        a[j].x = x;
    }
    enum { RUN = 8 };
    for (size_t s = 0; s < n; s += RUN) {
        size_t e = s + RUN < n ? s + RUN : n;
        for (size_t i = s + 1; i < e; i++) {
            cs__skey_t v = a[i];
            size_t j = i;
            for (; j > s && cs__skey_before(&v, &a[j - 1], c, cmp, ctx); j--) a[j] = a[j - 1];
            a[j] = v;
        }
    }
    for (size_t width = RUN; width < n; width *= 2) {
        for (size_t s = 0; s < n; s += 2 * width) {
            size_t m = s + width < n ? s + width : n, e = s + 2 * width < n ? s + 2 * width : n;
            size_t i = s, j = m, k = s;
            if (m < e && !cs__skey_before(&a[m], &a[m - 1], c, cmp, ctx)) { /* already in order */
                memcpy(b + s, a + s, (e - s) * sizeof *a);
                continue;
            }
            while (i < m && j < e) { /* the pick by address and index arithmetic, not a branch */
                size_t tj = (size_t)cs__skey_before(&a[j], &a[i], c, cmp, ctx);
                const cs__skey_t *p = tj ? &a[j] : &a[i];
                b[k++] = *p;
                j += tj;
                i += 1 - tj;
            }
            while (i < m) b[k++] = a[i++];
            while (j < e) b[k++] = a[j++];
        }
        cs__skey_t *t = a;
        a = b;
        b = t;
    }
    for (size_t j = 0; j < n; j++) ord[j] = a[j].x;
}

/* The radix sort behind cs__sort_keyed_desc and cs__sort_keyed_desc_id:
 * identity = 1 sorts the indices 0..n-1 (w->ord is output only); diff is
 * (OR of the keys) ^ (AND of the keys), computed here when have_diff = 0;
 * carry_tie = 1 lets the packed words carry the top bits of tie[] (worth
 * it only when those bits vary, as a timer-id prefix does). */
static void cs__sort_core(cs__ws_t *w, const cs_cand_t *c, size_t n, cs__cmp_fn cmp,
                          const void *ctx, int use_tie, int identity, int have_diff,
                          uint64_t diff, int carry_tie)
{
    enum { BITS = CS__RADIX_BITS, PASSES = CS__RADIX_PASSES, RADIX = CS__RADIX };
    const uint64_t mask = RADIX - 1;
    uint32_t *ord = w->ord;
    const uint64_t *key = w->key;
    if (identity && n <= CS__SMALL_SORT) /* the radix path below writes ord itself */
        for (size_t j = 0; j < n; j++) ord[j] = (uint32_t)j;
    w->n_eq = 0;
    if (n < 2) return;
    if (n <= CS__SMALL_SORT) {
        w->n_eq = SIZE_MAX; /* no radix pass: runs unknown */
        cs__sort_small(w, c, n, cmp, ctx, use_tie, identity);
        return;
    }
    /* Only the bits in which two keys differ matter: above them all keys
     * agree, so they can be dropped without changing the order. */
    if (!have_diff) {
        uint64_t kor = 0, kand = ~(uint64_t)0;
        for (size_t j = 0; j < n; j++) {
            uint64_t k = key[identity ? j : ord[j]];
            kor |= k;
            kand &= k;
        }
        diff = kor ^ kand;
    }
    unsigned hb = diff ? 64u - (unsigned)__builtin_clzll(diff) : 0u;
    unsigned ib = 64u - (unsigned)__builtin_clzll((uint64_t)(n - 1)); /* index bits */
    unsigned passes = (hb + BITS - 1) / BITS;
    uint32_t *hist = w->hist;
    uint32_t *eqpos = w->tmp; /* positions j whose key equals key(j - 1) */
    size_t eq = 0;
    uint64_t *kfree;   /* a u64 scratch array free after the passes */
    unsigned tb = 0;   /* tie bits carried in the packed words (use_tie) */
    uint64_t *words = NULL; /* the sorted packed words (tb != 0) */
    if (hb + ib <= 64) {
        /* Packed: one word per candidate, (~key's differing bits) << kbit |
         * index, so each pass moves 8 bytes and the index rides along.
         * With use_tie and room to spare, the top tb bits of the tie value
         * ride along too, between the key and the index (kbit = ib + tb):
         * the passes do not sort on them, but runs of equal keys can then
         * be ordered without gathering tie[] from random places. */
        if (use_tie && carry_tie && hb + ib + 8 <= 64) tb = CS_MIN(64 - hb - ib, 22u);
        unsigned kbit = ib + tb;
        const uint64_t *tie = w->tie;
        uint64_t m = hb == 64 ? ~(uint64_t)0 : ((uint64_t)1 << hb) - 1;
        uint64_t *pa = w->key2, *pb = w->key3;
        memset(hist, 0, (size_t)passes * RADIX * sizeof *hist);
        if (identity && tb)
            cs__pack(pa, key, ord, tie, n, m, ib, tb, passes, hist, 1, 1);
        else if (identity)
            cs__pack(pa, key, ord, tie, n, m, ib, 0, passes, hist, 1, 0);
        else if (tb)
            cs__pack(pa, key, ord, tie, n, m, ib, tb, passes, hist, 0, 1);
        else
            cs__pack(pa, key, ord, tie, n, m, ib, 0, passes, hist, 0, 0);
        for (unsigned d = 0; d < passes; d++) {
            uint32_t *h = hist + (size_t)d * RADIX;
            unsigned s = kbit + d * BITS;
            if (h[(pa[0] >> s) & mask] == n) continue; /* one bucket: skip */
            cs__radix_pass(pa, pb, n, h, s);
            uint64_t *t = pa;
            pa = pb;
            pb = t;
        }
        uint64_t im = ((uint64_t)1 << ib) - 1;
        ord[0] = (uint32_t)(pa[0] & im);
        for (size_t j = 1; j < n; j++) {
            ord[j] = (uint32_t)(pa[j] & im);
            eqpos[eq] = (uint32_t)j; /* kept only when the keys are equal */
            eq += (pa[j] >> kbit) == (pa[j - 1] >> kbit);
        }
        kfree = pb;
        words = pa;
    } else {
        /* Keys and indices in separate arrays. */
        uint32_t *oa = ord, *ob = w->tmp;
        uint64_t *ka = w->key2, *kb = w->key3;
        if (passes > PASSES) passes = PASSES;
        memset(hist, 0, (size_t)passes * RADIX * sizeof *hist);
        for (size_t j = 0; j < n; j++) {
            if (identity) oa[j] = (uint32_t)j;
            uint64_t y = ~key[oa[j]];
            ka[j] = y;
            for (unsigned d = 0; d < passes; d++, y >>= BITS) hist[d * RADIX + (y & mask)]++;
        }
        for (unsigned d = 0; d < passes; d++) {
            uint32_t *h = hist + (size_t)d * RADIX;
            unsigned s = d * BITS;
            if (h[(ka[0] >> s) & mask] == n) continue; /* one bucket: skip */
            uint32_t sum = 0;
            for (unsigned b = 0; b < RADIX; b++) {
                uint32_t x = h[b];
                h[b] = sum;
                sum += x;
            }
            for (size_t j = 0; j < n; j++) {
                uint32_t pos = h[(ka[j] >> s) & mask]++;
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
        if (oa != ord) memcpy(ord, oa, n * sizeof *oa);
        for (size_t j = 1; j < n; j++) {
            eqpos[eq] = (uint32_t)j;
            eq += ka[j] == ka[j - 1];
        }
        kfree = kb;
    }
    w->n_eq = eq;
    if (eq == 0) return; /* every key distinct: the radix order is final */
    if (tb != 0) { /* runs of equal keys, tie prefixes at hand */
        for (size_t a = 0; a < eq;) {
            size_t s = eqpos[a] - 1, e = (size_t)eqpos[a] + 1;
            for (a++; a < eq && eqpos[a] == e; a++) e++;
            cs__sort_run_words(w, c, cmp, ctx, words + s, kfree + s, ord + s, e - s, s, ib, tb);
        }
        return;
    }
    /* Runs of equal keys (eqpos lists their positions after the first):
     * exact order by cmp (after tie[] with use_tie).  With use_tie the tie
     * values are first gathered into position order (kfree), in one
     * prefetched pass when the runs are large. */
    int gathered = 0;
    if (use_tie && eq >= n / 16) {
        const uint64_t *tie = w->tie;
        for (size_t j = 0; j < n; j++) {
            if (j + CS__PREFETCH < n) __builtin_prefetch(&tie[ord[j + CS__PREFETCH]]);
            kfree[j] = tie[ord[j]];
        }
        gathered = 1;
    }
    for (size_t a = 0; a < eq;) {
        size_t s = eqpos[a] - 1, e = (size_t)eqpos[a] + 1;
        for (a++; a < eq && eqpos[a] == e; a++) e++;
        if (use_tie) {
            if (!gathered)
                for (size_t j = s; j < e; j++) kfree[j] = w->tie[ord[j]];
            cs__sort_run_tie(ord + s, kfree + s, e - s, w->key4 + s, w->tmp2 + s, hist, c, cmp,
                             ctx);
        } else {
            cs__msort(ord + s, w->tmp2 + s, e - s, c, cmp, ctx);
        }
    }
}

void cs__sort_keyed_desc(cs__ws_t *w, const cs_cand_t *c, size_t n, cs__cmp_fn cmp,
                         const void *ctx, int use_tie)
{
    cs__sort_core(w, c, n, cmp, ctx, use_tie, 0, 0, 0, 0);
}

void cs__sort_keyed_desc_id(cs__ws_t *w, const cs_cand_t *c, size_t n, cs__cmp_fn cmp,
                            const void *ctx, int use_tie, uint64_t diff)
{
    cs__sort_core(w, c, n, cmp, ctx, use_tie, 1, 1, diff, 1);
}

void cs__finish(cs__ws_t *w, cs_cand_t *c, size_t n)
{
    for (size_t k = 0; k < n; k++) w->inv[w->ord[k]] = (uint32_t)k;
    for (size_t i = 0; i < n; i++) {
        cs__prefetch_rank(c, i, n);
        uint32_t k = w->inv[i];
        uint8_t why = w->whyp[k];
        c[i].rank = k;
        c[i].why = why;
        c[i].selected = why == CS_WHY_NONE;
    }
}

void cs__finish_idx(cs__ws_t *w, cs_cand_t *c, size_t n)
{
    const uint32_t *inv = w->inv;
    const uint8_t *why = w->whyi;
    for (size_t i = 0; i < n; i++) {
        c[i].rank = inv[i];
        c[i].why = why[i];
        c[i].selected = why[i] == CS_WHY_NONE;
    }
}

void cs__tcount_reset_max(cs__ws_t *w, uint32_t tmax, size_t n)
{
    cs__tcount_reset(w); /* also empties the hash, whose hval this overwrites */
    if ((size_t)tmax < w->hcap && (size_t)tmax / 4 < n) {
        memset(w->hval, 0, ((size_t)tmax + 1) * sizeof *w->hval);
        w->direct = 1;
    }
}

void cs__tcount_reset(cs__ws_t *w)
{
    w->direct = 0;
    w->gen++;
    if (w->gen == 0) { /* wrapped: clear the generation tags once */
        memset(w->hgen, 0, w->hcap * sizeof *w->hgen);
        w->gen = 1;
    }
}

uint32_t *cs__tcount_hash(cs__ws_t *w, uint32_t t)
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
    if ((v >> 64) == 0 && (uint64_t)v != 0 && (c >> 37) == 0)
        return cs__ratio_key_fast((uint64_t)v, c);
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
