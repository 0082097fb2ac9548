/*
 * fairness_ref.h -- the reference model for test_fairness.c: the previous
 * implementation of cs_fairness (a ring of W_b counts per identity, every
 * tracked identity visited at each begin_block, the median by selection
 * over all window sums), kept verbatim apart from the names.  It is
 * O(identities) per block, which is why the library moved away from it, and
 * simple enough to trust as a model: the property test checks that the
 * incremental implementation gives the same W, median and sums bit for bit.
 * Included by test_fairness.c only.
 */
#ifndef FAIRNESS_REF_H
#define FAIRNESS_REF_H

#include "cs_fairness.h"

#include <stdlib.h>
#include <string.h>

#define CS__S ((uint64_t)CS_PPM)

typedef struct ref_slot {
    uint32_t ident; /* identity index this slot tracks */
    uint32_t cur;   /* fires in the current block, not yet in the window */
    uint64_t sum;   /* recent_executions: fires over the window */
} ref_slot_t;

typedef struct ref_fair {
    uint32_t window;   /* FAIRNESS_WINDOW_BLOCKS */
    uint64_t w_min;    /* lower clip of W, ppm */
    uint64_t w_max;    /* upper clip of W, ppm */
    uint64_t ema;      /* median_ema, ppm; 0 = off */
    uint32_t *slot_of; /* identity -> slot index, UINT32_MAX if untracked */
    uint32_t n_ident;  /* entries in slot_of */
    ref_slot_t *slots; /* tracked identities, dense */
    uint32_t *counts;  /* ring of slot i: counts[i*window .. (i+1)*window) */
    cs_u128 *work;     /* median workspace */
    uint32_t n_slots;  /* tracked identities */
    uint32_t cap_slots;/* allocated slots */
    uint64_t height;   /* block of the last begin_block */
    int started;       /* begin_block has been called */
    int ema_started;   /* median_fp holds a smoothed value */
    uint64_t median;   /* raw lower median */
    cs_u128 median_fp; /* median in effect, x 10^6 */
} ref_fair_t;

static int ref_init(ref_fair_t *f, const cs_params_t *p)
{
    memset(f, 0, sizeof *f);
    if (p->fairness_window == 0 || p->fairness_window > UINT32_MAX) return CS_EINVAL;
    f->window = (uint32_t)p->fairness_window;
    f->w_min = p->w_min;
    f->w_max = p->w_max;
    f->ema = p->median_ema;
    return CS_OK;
}

static void ref_free(ref_fair_t *f)
{
    free(f->slot_of);
    free(f->slots);
    free(f->counts);
    free(f->work);
    memset(f, 0, sizeof *f);
}

/* Grow slot_of to n entries (new ones untracked). */
static int ref__grow_ident(ref_fair_t *f, uint32_t n)
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
static int ref__grow_slots(ref_fair_t *f, uint32_t n)
{
    if (n <= f->cap_slots) return CS_OK;
    uint64_t want = (uint64_t)f->cap_slots * 2u;
    if (want < n) want = n;
    if (want < 8) want = 8;
    if (want > UINT32_MAX) want = UINT32_MAX;
    if (want > SIZE_MAX / sizeof(uint32_t) / f->window) return CS_ENOMEM;
    ref_slot_t *sl = realloc(f->slots, (size_t)want * sizeof *sl);
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


/* The window ring of a slot: window counts, indexed by height % window. */
static uint32_t *ref__ring(const ref_fair_t *f, uint32_t slot)
{
    return f->counts + (size_t)slot * f->window;
}

/* Remove slot i by moving the last slot into its place. */
static void ref__prune(ref_fair_t *f, uint32_t i)
{
    uint32_t last = f->n_slots - 1;
    f->slot_of[f->slots[i].ident] = UINT32_MAX;
    if (i != last) {
        f->slots[i] = f->slots[last];
        memcpy(ref__ring(f, i), ref__ring(f, last), (size_t)f->window * sizeof(uint32_t));
        f->slot_of[f->slots[i].ident] = i;
    }
    f->n_slots = last;
}

/*
 * CIP-1 rev §8: network_median = median of recent_executions across actors
 * with >= 1 fire in window (0 if none); lower median for even counts
 * (DESIGN §2.4).  Then the optional EMA (D12).
 */
static void ref__median(ref_fair_t *f)
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
static int ref_begin_block(ref_fair_t *f, uint64_t h)
{
    if (f->window == 0) return CS_EINVAL;
    if (f->started) {
        if (h <= f->height) return CS_EINVAL;
        uint64_t gap = h - f->height, W = f->window;
        for (uint32_t i = 0; i < f->n_slots; i++) {
            ref_slot_t *s = &f->slots[i];
            uint32_t *ring = ref__ring(f, i);
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
            if (f->slots[i].sum == 0) ref__prune(f, i);
            else i++;
        }
    }
    f->started = 1;
    f->height = h;
    ref__median(f);
    return CS_OK;
}

static int ref_add_fire(ref_fair_t *f, uint32_t ident)
{
    if (!f->started || ident == UINT32_MAX) return CS_EINVAL;
    if (ident < f->n_ident && f->slot_of[ident] != UINT32_MAX) {
        ref_slot_t *s = &f->slots[f->slot_of[ident]];
        if (s->cur == UINT32_MAX) return CS_EOVERFLOW;
        s->cur++;
        return CS_OK;
    }
    /* next fire re-creates a fresh entry (CIP-1 rev §8) */
    int rc = ref__grow_ident(f, ident + 1u);
    if (rc != CS_OK) return rc;
    if (f->n_slots == UINT32_MAX - 1u) return CS_ENOMEM;
    rc = ref__grow_slots(f, f->n_slots + 1u);
    if (rc != CS_OK) return rc;
    uint32_t i = f->n_slots++;
    f->slots[i].ident = ident;
    f->slots[i].cur = 1;
    f->slots[i].sum = 0;
    memset(ref__ring(f, i), 0, (size_t)f->window * sizeof(uint32_t));
    f->slot_of[ident] = i;
    return CS_OK;
}

static uint64_t ref_recent(const ref_fair_t *f, uint32_t ident)
{
    if (ident >= f->n_ident || f->slot_of[ident] == UINT32_MAX) return 0;
    return f->slots[f->slot_of[ident]].sum;
}

/* CIP-1 rev §8: ratio = recent / max(1, median) clipped to [0, 2];
 * W = clip(2 - ratio, w_min, w_max). */
static uint64_t ref_weight(const ref_fair_t *f, uint32_t ident)
{
    cs_u128 recent = ref_recent(f, ident);
    cs_u128 denom = CS_MAX(f->median_fp, (cs_u128)CS__S); /* max(1, median) x 10^6 */
    cs_u128 ratio = recent * CS__S * CS__S / denom;        /* ppm, floored; < 2^93 */
    if (ratio > 2u * CS__S) ratio = 2u * CS__S;
    uint64_t w = 2u * CS__S - (uint64_t)ratio;
    return CS_MIN(CS_MAX(w, f->w_min), f->w_max);
}

static uint64_t ref_median(const ref_fair_t *f)
{
    return f->median;
}

static cs_u128 ref_median_fp(const ref_fair_t *f)
{
    return f->median_fp;
}

static uint32_t ref_count(const ref_fair_t *f)
{
    return f->n_slots;
}


#endif /* FAIRNESS_REF_H */
