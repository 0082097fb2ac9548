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

#define CS__HI 0x80000000u /* hpos bit: the slot sits in the upper min-heap */

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
    free(f->touched);
    free(f->heap[0]);
    free(f->heap[1]);
    free(f->log);
    free(f->blk);
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

/* Grow the slot tables (slots, touched, both heaps) to n tracked identities.
 * Heap positions carry a flag in bit 31, so n stays below 2^31. */
static int cs__fair_grow_slots(cs_fairness_t *f, uint32_t n)
{
    if (n <= f->cap_slots) return CS_OK;
    uint64_t want = (uint64_t)f->cap_slots * 2u;
    if (want < n) want = n;
    if (want < 8) want = 8;
    if (want > CS__HI) want = CS__HI;
    if (n > want) return CS_ENOMEM;
    cs_fair_slot_t *sl = realloc(f->slots, (size_t)want * sizeof *sl);
    if (sl == NULL) return CS_ENOMEM;
    f->slots = sl;
    uint32_t *t = realloc(f->touched, (size_t)want * sizeof *t);
    if (t == NULL) return CS_ENOMEM;
    f->touched = t;
    for (int k = 0; k < 2; k++) {
        uint32_t *hp = realloc(f->heap[k], (size_t)want * sizeof *hp);
        if (hp == NULL) return CS_ENOMEM;
        f->heap[k] = hp;
    }
    f->cap_slots = (uint32_t)want; /* only now: earlier failures leave caps as they were */
    return CS_OK;
}

/* Grow a ring of absolute indices [head, tail) to hold n elements of size
 * sz: a power-of-2 capacity, elements re-placed at index & (cap - 1). */
static int cs__fair_grow_ring(void **ring, uint64_t *cap, uint64_t head, uint64_t tail, uint64_t n,
                              size_t sz)
{
    if (n <= *cap) return CS_OK;
    uint64_t want = *cap ? *cap : 16;
    while (want < n) {
        if (want > SIZE_MAX / 2 / sz) return CS_ENOMEM;
        want *= 2;
    }
    unsigned char *nr = malloc((size_t)want * sz);
    if (nr == NULL) return CS_ENOMEM;
    const unsigned char *old = *ring;
    for (uint64_t a = head; a < tail; a++)
        memcpy(nr + (size_t)(a & (want - 1)) * sz, old + (size_t)(a & (*cap - 1)) * sz, sz);
    free(*ring);
    *ring = nr;
    *cap = want;
    return CS_OK;
}

int cs_fairness_reserve(cs_fairness_t *f, uint32_t n_ident, uint32_t n_tracked)
{
    if (f->window == 0) return CS_EINVAL;
    int rc = cs__fair_grow_ident(f, n_ident);
    if (rc != CS_OK) return rc;
    return cs__fair_grow_slots(f, n_tracked);
}

/* ---- the two median heaps ---------------------------------------------- */

/* Heap k's order: heap 0 is a max-heap, heap 1 a min-heap of the sums. */
static int cs__fair_above(const cs_fairness_t *f, int k, uint32_t a, uint32_t b)
{
    uint64_t x = f->slots[a].sum, y = f->slots[b].sum;
    return k == 0 ? x > y : x < y;
}

/* Put slot s at position pos of heap k. */
static void cs__fair_hset(cs_fairness_t *f, int k, uint32_t pos, uint32_t s)
{
    f->heap[k][pos] = s;
    f->slots[s].hpos = (k ? CS__HI : 0u) | pos;
}

/* Restore heap k's order around position pos (up, then down). */
static void cs__fair_sift(cs_fairness_t *f, int k, uint32_t pos)
{
    uint32_t *hp = f->heap[k], s = hp[pos], n = f->n_heap[k];
    while (pos > 0) {
        uint32_t up = (pos - 1) / 2;
        if (!cs__fair_above(f, k, s, hp[up])) break;
        cs__fair_hset(f, k, pos, hp[up]);
        pos = up;
    }
    for (;;) {
        uint32_t c = 2 * pos + 1;
        if (c >= n) break;
        if (c + 1 < n && cs__fair_above(f, k, hp[c + 1], hp[c])) c++;
        if (!cs__fair_above(f, k, hp[c], s)) break;
        cs__fair_hset(f, k, pos, hp[c]);
        pos = c;
    }
    cs__fair_hset(f, k, pos, s);
}

/* Add slot s to heap k. */
static void cs__fair_hpush(cs_fairness_t *f, int k, uint32_t s)
{
    uint32_t pos = f->n_heap[k]++;
    cs__fair_hset(f, k, pos, s);
    cs__fair_sift(f, k, pos);
}

/* Remove the slot at position pos of heap k and return it. */
static uint32_t cs__fair_hdel(cs_fairness_t *f, int k, uint32_t pos)
{
    uint32_t s = f->heap[k][pos], last = --f->n_heap[k];
    if (pos != last) {
        cs__fair_hset(f, k, pos, f->heap[k][last]);
        cs__fair_sift(f, k, pos);
    }
    f->slots[s].hpos = UINT32_MAX;
    return s;
}

/* Re-establish |heap 0| = ceil(n/2) and max(heap 0) <= min(heap 1) after
 * one sum was inserted, removed or changed in place. */
static void cs__fair_balance(cs_fairness_t *f)
{
    while (f->n_heap[0] > f->n_heap[1] + 1u) cs__fair_hpush(f, 1, cs__fair_hdel(f, 0, 0));
    while (f->n_heap[1] > f->n_heap[0]) cs__fair_hpush(f, 0, cs__fair_hdel(f, 1, 0));
    if (f->n_heap[0] > 0 && f->n_heap[1] > 0 && cs__fair_above(f, 1, f->heap[1][0], f->heap[0][0])) {
        uint32_t a = cs__fair_hdel(f, 0, 0), b = cs__fair_hdel(f, 1, 0);
        cs__fair_hpush(f, 0, b);
        cs__fair_hpush(f, 1, a);
    }
}

/* Slot s's sum changed from old: move it in, out of or within the heaps. */
static void cs__fair_resum(cs_fairness_t *f, uint32_t s, uint64_t old)
{
    cs_fair_slot_t *sl = &f->slots[s];
    if (old == 0) {
        int k = f->n_heap[0] > 0 && sl->sum > f->slots[f->heap[0][0]].sum;
        cs__fair_hpush(f, k, s);
    } else {
        int k = (sl->hpos & CS__HI) != 0;
        uint32_t pos = sl->hpos & ~CS__HI;
        if (sl->sum == 0) (void)cs__fair_hdel(f, k, pos);
        else cs__fair_sift(f, k, pos);
    }
    cs__fair_balance(f);
}

/* ---- window ------------------------------------------------------------ */

/* Remove slot i by moving the last slot into its place.  Called only by
 * begin_block after the touched list was consumed, so no slot has fires in
 * the current block. */
static void cs__fair_prune(cs_fairness_t *f, uint32_t i)
{
    uint32_t last = f->n_slots - 1;
    f->slot_of[f->slots[i].ident] = UINT32_MAX;
    if (i != last) {
        cs_fair_slot_t *m = &f->slots[last];
        if (m->hpos != UINT32_MAX) f->heap[(m->hpos & CS__HI) != 0][m->hpos & ~CS__HI] = i;
        f->slots[i] = *m;
        f->slot_of[f->slots[i].ident] = i;
    }
    f->n_slots = last;
}

/*
 * CIP-1 rev §8: network_median = median of recent_executions across actors
 * with >= 1 fire in window (0 if none); lower median for even counts
 * (DESIGN §2.4): the top of the lower heap.  Then the optional EMA (D12).
 */
static void cs__fair_median(cs_fairness_t *f)
{
    f->median = f->n_heap[0] == 0 ? 0 : f->slots[f->heap[0][0]].sum;

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
    /* The denominator of every W until the next median (cs__weight_of). */
    cs_u128 denom = CS_MAX(f->median_fp, (cs_u128)CS__S);
    if (denom <= UINT64_MAX) cs_fixed_div_set(&f->wdiv, (uint64_t)denom);
    else f->wdiv.d = 0;
}

/* CIP-1 rev §3 step 10: the rolling decay at the start of the end-of-block step. */
int cs_fairness_begin_block(cs_fairness_t *f, uint64_t h)
{
    if (f->window == 0) return CS_EINVAL;
    if (f->started) {
        if (h <= f->height) return CS_EINVAL;
        /* Block f->height enters the window: one log entry per identity
         * that fired (room reserved by add_fire). */
        if (f->n_touched > 0) {
            for (uint32_t k = 0; k < f->n_touched; k++) {
                cs_fair_slot_t *sl = &f->slots[f->touched[k]];
                cs_fair_ent_t *e = &f->log[f->log_tail++ & (f->cap_log - 1)];
                e->ident = sl->ident;
                e->fires = sl->cur;
                uint64_t old = sl->sum;
                sl->sum += sl->cur;
                sl->cur = 0;
                cs__fair_resum(f, f->touched[k], old);
            }
            f->n_touched = 0;
            cs_fair_blk_t *b = &f->blk[f->blk_tail++ & (f->cap_blk - 1)];
            b->height = f->height;
            b->end = f->log_tail;
        }
        /* Blocks below h - W leave the window [h-W, h-1] (heights may skip,
         * so a gap longer than the window empties it). */
        while (f->blk_head < f->blk_tail) {
            const cs_fair_blk_t *b = &f->blk[f->blk_head & (f->cap_blk - 1)];
            if (b->height + f->window >= h) break;
            for (; f->log_head < b->end; f->log_head++) {
                const cs_fair_ent_t *e = &f->log[f->log_head & (f->cap_log - 1)];
                uint32_t i = f->slot_of[e->ident];
                uint64_t old = f->slots[i].sum;
                f->slots[i].sum -= e->fires;
                cs__fair_resum(f, i, old);
                /* CIP-1 rev §8 eviction: zero fires in the entire window -> pruned */
                if (f->slots[i].sum == 0) cs__fair_prune(f, i);
            }
            f->blk_head++;
        }
    }
    f->started = 1;
    f->height = h;
    cs__fair_median(f);
    return CS_OK;
}

/* First fire of slot i in this block: reserve the log entry and, for the
 * block's first identity, the block record begin_block will write. */
static int cs__fair_touch(cs_fairness_t *f, uint32_t i)
{
    uint64_t used = f->log_tail - f->log_head;
    int rc = cs__fair_grow_ring((void **)&f->log, &f->cap_log, f->log_head, f->log_tail,
                                used + f->n_touched + 1u, sizeof *f->log);
    if (rc != CS_OK) return rc;
    if (f->n_touched == 0) {
        rc = cs__fair_grow_ring((void **)&f->blk, &f->cap_blk, f->blk_head, f->blk_tail,
                                f->blk_tail - f->blk_head + 1u, sizeof *f->blk);
        if (rc != CS_OK) return rc;
    }
    f->touched[f->n_touched++] = i;
    return CS_OK;
}

int cs_fairness_add_fire(cs_fairness_t *f, uint32_t ident)
{
    if (!f->started || ident == UINT32_MAX) return CS_EINVAL;
    if (ident < f->n_ident && f->slot_of[ident] != UINT32_MAX) {
        uint32_t i = f->slot_of[ident];
        cs_fair_slot_t *s = &f->slots[i];
        if (s->cur == UINT32_MAX) return CS_EOVERFLOW;
        if (s->cur == 0) {
            int rc = cs__fair_touch(f, i);
            if (rc != CS_OK) return rc;
        }
        s->cur++;
        return CS_OK;
    }
    /* next fire re-creates a fresh entry (CIP-1 rev §8) */
    int rc = cs__fair_grow_ident(f, ident + 1u);
    if (rc != CS_OK) return rc;
    rc = cs__fair_grow_slots(f, f->n_slots + 1u);
    if (rc != CS_OK) return rc;
    uint32_t i = f->n_slots;
    rc = cs__fair_touch(f, i);
    if (rc != CS_OK) return rc;
    f->n_slots++;
    f->slots[i].ident = ident;
    f->slots[i].cur = 1;
    f->slots[i].sum = 0;
    f->slots[i].hpos = UINT32_MAX;
    f->slot_of[ident] = i;
    return CS_OK;
}

uint64_t cs_fairness_recent(const cs_fairness_t *f, uint32_t ident)
{
    if (ident >= f->n_ident || f->slot_of[ident] == UINT32_MAX) return 0;
    return f->slots[f->slot_of[ident]].sum;
}

/* CIP-1 rev §8: ratio = recent / max(1, median) clipped to [0, 2];
 * W = clip(2 - ratio, w_min, w_max): W of an identity with `recent` fires
 * in the window, at the current median. */
static uint64_t cs__weight_of(const cs_fairness_t *f, uint64_t recent)
{
    cs_u128 denom = CS_MAX(f->median_fp, (cs_u128)CS__S); /* max(1, median) x 10^6 */
    cs_u128 ratio;                                         /* ppm, floored; < 2^93 */
    /* The same floor in 64 bits when the operands fit (recent < 2^24 keeps
     * recent x 10^12 below 2^64), the usual case by far: by the median's
     * reciprocal (cs_fixed_div, exact) rather than the 128-bit library
     * call or a hardware divide per candidate. */
    if (recent < ((uint64_t)1 << 24) && denom <= UINT64_MAX)
        ratio = f->wdiv.d == (uint64_t)denom ? cs_fixed_div(&f->wdiv, recent * (CS__S * CS__S)) /* the same floor */
                                             : recent * (CS__S * CS__S) / (uint64_t)denom;
    else
        ratio = (cs_u128)recent * CS__S * CS__S / denom;
    if (ratio > 2u * CS__S) ratio = 2u * CS__S;
    uint64_t w = 2u * CS__S - (uint64_t)ratio;
    return CS_MIN(CS_MAX(w, f->w_min), f->w_max);
}

uint64_t cs_fairness_weight(const cs_fairness_t *f, uint32_t ident)
{
    /* CIP-1 rev §8 clip: with w_min >= w_max, clip(x, w_min, w_max) is
     * w_max whatever x is, so the identity's window need not be read (a
     * cache miss per candidate when W is the same for everyone). */
    if (f->w_min >= f->w_max) return f->w_max;
    return cs__weight_of(f, cs_fairness_recent(f, ident));
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

/* Slots the snapshot requests ahead of the one it reads, and the recent
 * counts below which it keeps each W it computes for the rest of the
 * snapshot (most identities have a few fires in the window). */
#define CS__SNAP_AHEAD 16u
#define CS__SNAP_MEMO 64u
CS_STATIC_ASSERT(CS__SNAP_MEMO <= 64, "one bit of a uint64_t per memo entry");

uint32_t cs_fairness_snapshot(const cs_fairness_t *f, uint32_t *ident, uint64_t *recent,
                              uint64_t *w_ppm, uint32_t cap)
{
    /* W depends on the identity only through its recent count (the median
     * and the clips are fixed during a snapshot), so the W of a small count
     * is computed once: the same value cs_fairness_weight gives, without a
     * divide per identity.  The slots are in no particular order: each is
     * requested CS__SNAP_AHEAD identities before it is read, so their
     * misses overlap. */
    uint64_t memo[CS__SNAP_MEMO];
    uint64_t known = 0; /* bit r: memo[r] holds W(r) */
    uint32_t k = 0, n = f->n_ident;
    for (uint32_t i = 0; i < n && k < cap; i++) {
        if (i + CS__SNAP_AHEAD < n) {
            uint32_t a = f->slot_of[i + CS__SNAP_AHEAD];
            if (a != UINT32_MAX) __builtin_prefetch(&f->slots[a]);
        }
        uint32_t s = f->slot_of[i];
        if (s == UINT32_MAX) continue;
        uint64_t r = f->slots[s].sum;
        if (ident != NULL) ident[k] = i;
        if (recent != NULL) recent[k] = r;
        if (w_ppm != NULL) {
            if (r >= CS__SNAP_MEMO) {
                w_ppm[k] = cs__weight_of(f, r);
            } else {
                if (!(known >> r & 1u)) memo[r] = cs__weight_of(f, r), known |= (uint64_t)1 << r;
                w_ppm[k] = memo[r];
            }
        }
        k++;
    }
    return k;
}
