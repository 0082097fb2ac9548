/* cs_fairness.c -- per-identity fairness weight W (CIP-1 rev §8, D12). */
#include "cs_fairness.h"

#include <stdlib.h>
#include <string.h>

#define CS__S ((uint64_t)CS_PPM)

/* ---- selection --------------------------------------------------------- */

/* Exchange a[i] and a[j]. */
static void cs__swap(cs_u128 *a, size_t i, size_t j)
{
    cs_u128 t = a[i];
    a[i] = a[j];
    a[j] = t;
}

/* Insertion sort of a[0..n) ascending (small n only). */
static void cs__isort(cs_u128 *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        cs_u128 v = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

/*
 * Median of medians (Blum, Floyd, Pratt, Rivest, Tarjan): the pivot is the
 * median of the medians of full groups of five, which leaves at most ~7n/10
 * elements on either side, so the loop is O(n) in the worst case.  The
 * three-way partition makes runs of equal values cost nothing extra.
 */
cs_u128 cs__select_u128(cs_u128 *a, size_t n, size_t k)
{
    CS_ASSERT(k < n);
    for (;;) {
        if (n <= 16) {
            cs__isort(a, n);
            return a[k];
        }
        size_t g = 0;
        for (size_t i = 0; i + 5 <= n; i += 5) {
            cs__isort(a + i, 5);
            cs__swap(a, g++, i + 2); /* collect group medians in a[0..g) */
        }
        cs_u128 pivot = cs__select_u128(a, g, g / 2);
        size_t lt = 0, i = 0, gt = n;
        while (i < gt) {
            if (a[i] < pivot) cs__swap(a, lt++, i++);
            else if (a[i] > pivot) cs__swap(a, i, --gt);
            else i++;
        }
        /* a[0..lt) < pivot, a[lt..gt) == pivot, a[gt..n) > pivot */
        if (k < lt) {
            n = lt;
        } else if (k < gt) {
            return pivot;
        } else {
            a += gt;
            k -= gt;
            n -= gt;
        }
    }
}

/* ---- tables ------------------------------------------------------------ */

int cs_fairness_init(cs_fairness_t *f, const cs_params_t *p)
{
    memset(f, 0, sizeof *f);
    if (p->fairness_window == 0 || p->fairness_window > UINT32_MAX) return CS_EINVAL;
    f->window = (uint32_t)p->fairness_window;
    f->w_min = p->w_min;
    f->w_max = p->w_max;
    f->ema = p->median_ema;
    return CS_OK;
}

void cs_fairness_free(cs_fairness_t *f)
{
    free(f->slot_of);
    free(f->slots);
    free(f->counts);
    free(f->work);
    memset(f, 0, sizeof *f);
}

/* Grow slot_of to n entries (new ones untracked). */
static int cs__fair_grow_ident(cs_fairness_t *f, uint32_t n)
{
    if (n <= f->n_ident) return CS_OK;
    uint64_t want = (uint64_t)f->n_ident * 2u;
    if (want < n) want = n;
    if (want > UINT32_MAX) want = UINT32_MAX;
    uint32_t *s = realloc(f->slot_of, (size_t)want * sizeof *s);
    if (s == NULL) return CS_ENOMEM;
    for (uint64_t i = f->n_ident; i < want; i++) s[i] = UINT32_MAX;
    f->slot_of = s;
    f->n_ident = (uint32_t)want;
    return CS_OK;
}

/* Grow the slot tables to hold n tracked identities. */
static int cs__fair_grow_slots(cs_fairness_t *f, uint32_t n)
{
    if (n <= f->cap_slots) return CS_OK;
    uint64_t want = (uint64_t)f->cap_slots * 2u;
    if (want < n) want = n;
    if (want < 8) want = 8;
    if (want > UINT32_MAX) want = UINT32_MAX;
    if (want > SIZE_MAX / sizeof(uint32_t) / f->window) return CS_ENOMEM;
    cs_fair_slot_t *sl = realloc(f->slots, (size_t)want * sizeof *sl);
    if (sl == NULL) return CS_ENOMEM;
    f->slots = sl;
    uint32_t *c = realloc(f->counts, (size_t)want * f->window * sizeof *c);
    if (c == NULL) return CS_ENOMEM;
    f->counts = c;
    cs_u128 *w = realloc(f->work, (size_t)want * sizeof *w);
    if (w == NULL) return CS_ENOMEM;
    f->work = w;
    f->cap_slots = (uint32_t)want; /* only now: earlier failures leave caps as they were */
    return CS_OK;
}

int cs_fairness_reserve(cs_fairness_t *f, uint32_t n_ident, uint32_t n_tracked)
{
    if (f->window == 0) return CS_EINVAL;
    int rc = cs__fair_grow_ident(f, n_ident);
    if (rc != CS_OK) return rc;
    return cs__fair_grow_slots(f, n_tracked);
}

/* The window ring of a slot: window counts, indexed by height % window. */
static uint32_t *cs__ring(const cs_fairness_t *f, uint32_t slot)
{
    return f->counts + (size_t)slot * f->window;
}

/* Remove slot i by moving the last slot into its place. */
static void cs__fair_prune(cs_fairness_t *f, uint32_t i)
{
    uint32_t last = f->n_slots - 1;
    f->slot_of[f->slots[i].ident] = UINT32_MAX;
    if (i != last) {
        f->slots[i] = f->slots[last];
        memcpy(cs__ring(f, i), cs__ring(f, last), (size_t)f->window * sizeof(uint32_t));
        f->slot_of[f->slots[i].ident] = i;
    }
    f->n_slots = last;
}

/*
 * CIP-1 rev §8: network_median = median of recent_executions across actors
 * with >= 1 fire in window (0 if none); lower median for even counts
 * (DESIGN §2.4).  Then the optional EMA (D12).
 */
static void cs__fair_median(cs_fairness_t *f)
{
    size_t n = 0;
    for (uint32_t i = 0; i < f->n_slots; i++)
        if (f->slots[i].sum > 0) f->work[n++] = f->slots[i].sum;
    f->median = n == 0 ? 0 : (uint64_t)cs__select_u128(f->work, n, (n - 1) / 2);

    cs_u128 raw_fp = (cs_u128)f->median * CS__S;
    if (f->ema == 0) {
        f->median_fp = raw_fp;
    } else if (!f->ema_started) {
        f->median_fp = raw_fp;
        f->ema_started = 1;
    } else {
        uint64_t a = CS_MIN(f->ema, CS__S);
        /* M_h = alpha*median_h + (1 - alpha)*M_{h-1}, floored in x10^6 units */
        f->median_fp = ((cs_u128)a * raw_fp + (cs_u128)(CS__S - a) * f->median_fp) / CS__S;
    }
}

/* CIP-1 rev §3 step 10: the rolling decay at the start of the end-of-block step. */
int cs_fairness_begin_block(cs_fairness_t *f, uint64_t h)
{
    if (f->window == 0) return CS_EINVAL;
    if (f->started) {
        if (h <= f->height) return CS_EINVAL;
        uint64_t gap = h - f->height, W = f->window;
        for (uint32_t i = 0; i < f->n_slots; i++) {
            cs_fair_slot_t *s = &f->slots[i];
            uint32_t *ring = cs__ring(f, i);
            if (gap > W) {
                /* even the previous block has left the window [h-W, h-1] */
                memset(ring, 0, (size_t)W * sizeof *ring);
                s->sum = 0;
            } else {
                /* block f->height enters at its position, replacing f->height - W */
                size_t pos = (size_t)(f->height % W);
                s->sum = s->sum - ring[pos] + s->cur;
                ring[pos] = s->cur;
                /* blocks f->height+1 .. h-1 had no fires; they replace blocks < h-W */
                for (uint64_t b = f->height + 1; b < h; b++) {
                    pos = (size_t)(b % W);
                    s->sum -= ring[pos];
                    ring[pos] = 0;
                }
            }
            s->cur = 0;
        }
        /* CIP-1 rev §8 eviction: zero fires in the entire window -> pruned */
        for (uint32_t i = 0; i < f->n_slots;) {
            if (f->slots[i].sum == 0) cs__fair_prune(f, i);
            else i++;
        }
    }
    f->started = 1;
    f->height = h;
    cs__fair_median(f);
    return CS_OK;
}

int cs_fairness_add_fire(cs_fairness_t *f, uint32_t ident)
{
    if (!f->started || ident == UINT32_MAX) return CS_EINVAL;
    if (ident < f->n_ident && f->slot_of[ident] != UINT32_MAX) {
        cs_fair_slot_t *s = &f->slots[f->slot_of[ident]];
        if (s->cur == UINT32_MAX) return CS_EOVERFLOW;
        s->cur++;
        return CS_OK;
    }
    /* next fire re-creates a fresh entry (CIP-1 rev §8) */
    int rc = cs__fair_grow_ident(f, ident + 1u);
    if (rc != CS_OK) return rc;
    if (f->n_slots == UINT32_MAX - 1u) return CS_ENOMEM;
    rc = cs__fair_grow_slots(f, f->n_slots + 1u);
    if (rc != CS_OK) return rc;
    uint32_t i = f->n_slots++;
    f->slots[i].ident = ident;
    f->slots[i].cur = 1;
    f->slots[i].sum = 0;
    memset(cs__ring(f, i), 0, (size_t)f->window * sizeof(uint32_t));
    f->slot_of[ident] = i;
    return CS_OK;
}

uint64_t cs_fairness_recent(const cs_fairness_t *f, uint32_t ident)
{
    if (ident >= f->n_ident || f->slot_of[ident] == UINT32_MAX) return 0;
    return f->slots[f->slot_of[ident]].sum;
}

/* CIP-1 rev §8: ratio = recent / max(1, median) clipped to [0, 2];
 * W = clip(2 - ratio, w_min, w_max). */
uint64_t cs_fairness_weight(const cs_fairness_t *f, uint32_t ident)
{
    cs_u128 recent = cs_fairness_recent(f, ident);
    cs_u128 denom = CS_MAX(f->median_fp, (cs_u128)CS__S); /* max(1, median) x 10^6 */
    cs_u128 ratio = recent * CS__S * CS__S / denom;        /* ppm, floored; < 2^93 */
    if (ratio > 2u * CS__S) ratio = 2u * CS__S;
    uint64_t w = 2u * CS__S - (uint64_t)ratio;
    return CS_MIN(CS_MAX(w, f->w_min), f->w_max);
}

uint64_t cs_fairness_median(const cs_fairness_t *f)
{
    return f->median;
}

cs_u128 cs_fairness_median_fp(const cs_fairness_t *f)
{
    return f->median_fp;
}

uint32_t cs_fairness_count(const cs_fairness_t *f)
{
    return f->n_slots;
}

uint32_t cs_fairness_snapshot(const cs_fairness_t *f, uint32_t *ident, uint64_t *recent,
                              uint64_t *w_ppm, uint32_t cap)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < f->n_ident && k < cap; i++) {
        uint32_t s = f->slot_of[i];
        if (s == UINT32_MAX) continue;
        if (ident != NULL) ident[k] = i;
        if (recent != NULL) recent[k] = f->slots[s].sum;
        if (w_ppm != NULL) w_ppm[k] = cs_fairness_weight(f, i);
        k++;
    }
    return k;
}
