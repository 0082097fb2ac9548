/*
 * cs_fairness.h -- the per-identity fairness weight W (CIP-1 rev §8; D12).
 *
 *   recent_executions[i] = fires by identity i over the window
 *   network_median       = lower median of recent_executions over the
 *                          identities with >= 1 fire in the window (0 if none)
 *   ratio[i]             = recent_executions[i] / max(1, network_median),
 *                          clipped to [0, 2]
 *   W(i)                 = clip(2 - ratio[i], w_min, w_max)       (ppm)
 *
 * Identities are uint32_t indices.  Whether an identity is an actor or a
 * deployer (fairness_identity, D12) is the pipeline's mapping: two actors
 * mapped to one index share one W.
 *
 * Window.  FAIRNESS_WINDOW_BLOCKS = W_b = p->fairness_window, fixed at init.
 * During block h the window is the W_b completed blocks h-W_b .. h-1: fires
 * added during block h (CIP-1 rev §3 step 10) are held apart and enter the
 * window at the next cs_fairness_begin_block, which also drops the block
 * that falls out ("rolling decay applied at the start of the next
 * end-of-block step").  So every weight queried during block h is stable
 * and does not depend on the order of that block's fires.  Heights may
 * skip (blocks with no call count as blocks with no fires).
 *
 * State (CIP-1 rev §8 "State").  Each identity with fires in the window
 * has a slot holding its window sum.  The window itself is a log of
 * (identity, fires) entries, one per identity that fired in a block, kept
 * in block order with a small record per block that had fires: 8 bytes per
 * (identity, block) pair in the window instead of a ring of W_b counts per
 * identity.  An identity whose window sum drops to 0 is pruned at
 * begin_block; its next fire creates a fresh entry.
 *
 * Cost.  cs_fairness_begin_block touches only the identities that fired in
 * the block entering the window and those of the blocks leaving it, so a
 * block costs O(f log n) for f such entries and n tracked identities,
 * independent of how many identities are tracked but silent.
 *
 * Median.  Maintained incrementally in two indexed binary heaps over the
 * tracked identities with a positive window sum: a max-heap with the lower
 * ceil(n/2) sums and a min-heap with the rest, so the lower median is the
 * top of the max-heap.  Each sum that changes is re-sifted and the heaps
 * rebalanced (O(log n)); the median is a value, so it does not depend on
 * the order of the updates or on how ties sit in the heaps.  Optional EMA
 * smoothing (CIP-1 rev §8 limitation 2; median_ema, D12): with alpha =
 * p->median_ema in ppm, alpha = 0 means off (the raw median is used);
 * otherwise M_h = alpha*median_h + (1 - alpha)*M_{h-1}, started at the raw
 * median of the first block, kept in fixed point x 10^6 and floored.
 * alpha is the weight on the new observation, as the EMA of the CIP-1 first
 * draft (weight' = (1 - λ)·weight + λ·S).
 *
 * Rounding.  ratio is floor(recent * 10^6 / max(1, M)) in ppm, so W =
 * 2*10^6 - ratio is the exact W rounded up to the next ppm.
 *
 * Ownership: the caller owns the cs_fairness_t object; init allocates
 * nothing, cs_fairness_reserve / add_fire allocate the tables,
 * cs_fairness_free releases them.  begin_block never allocates (add_fire
 * reserves the log room the next begin_block needs); after
 * cs_fairness_reserve(n_ident, n_tracked) with enough room, add_fire
 * allocates only to grow the window log.
 */
#ifndef CS_FAIRNESS_H
#define CS_FAIRNESS_H

#include "cs_error.h"
#include "cs_params.h"
#include "cs_fixed.h"
#include "cs_types.h"

/* One tracked identity. */
typedef struct cs_fair_slot {
    uint32_t ident; /* identity index this slot tracks */
    uint32_t cur;   /* fires in the current block, not yet in the window */
    uint64_t sum;   /* recent_executions: fires over the window */
    uint32_t hpos;  /* heap (bit 31: 1 = upper min-heap) and position; UINT32_MAX if sum = 0 */
} cs_fair_slot_t;

/* One window log entry: fires of one identity in one block. */
typedef struct cs_fair_ent {
    uint32_t ident; /* identity index */
    uint32_t fires; /* its fires in that block (> 0) */
} cs_fair_ent_t;

/* One block with fires in the window log. */
typedef struct cs_fair_blk {
    uint64_t height; /* block height */
    uint64_t end;    /* absolute log index one past its last entry */
} cs_fair_blk_t;

typedef struct cs_fairness {
    uint32_t window;       /* FAIRNESS_WINDOW_BLOCKS (CIP-1 rev §8) */
    uint64_t w_min;        /* lower clip of W, ppm */
    uint64_t w_max;        /* upper clip of W, ppm */
    uint64_t ema;          /* median_ema: weight on the new median, ppm; 0 = off */
    uint32_t *slot_of;     /* identity -> slot index, UINT32_MAX if untracked */
    uint32_t n_ident;      /* entries in slot_of */
    cs_fair_slot_t *slots; /* tracked identities, dense, n_slots in use */
    uint32_t *touched;     /* slots with cur > 0, n_touched in use */
    uint32_t *heap[2];     /* slot indices: [0] max-heap of the lower half, [1] min-heap */
    uint32_t n_heap[2];    /* entries in each heap */
    uint32_t n_slots;      /* tracked identities */
    uint32_t n_touched;    /* identities that fired in the current block */
    uint32_t cap_slots;    /* allocated slots, touched and heap entries */
    cs_fair_ent_t *log;    /* window log ring, cap_log entries (a power of 2) */
    uint64_t log_head;     /* absolute index of the oldest entry */
    uint64_t log_tail;     /* absolute index one past the newest entry */
    uint64_t cap_log;      /* log ring capacity */
    cs_fair_blk_t *blk;    /* ring of blocks with fires, cap_blk (a power of 2) */
    uint64_t blk_head;     /* absolute index of the oldest block */
    uint64_t blk_tail;     /* absolute index one past the newest block */
    uint64_t cap_blk;      /* block ring capacity */
    uint64_t height;       /* block of the last begin_block */
    int started;           /* begin_block has been called */
    int ema_started;       /* median_fp holds a smoothed value */
    uint64_t median;       /* raw lower median at the last begin_block */
    cs_u128 median_fp;     /* median in effect (smoothed if ema), x 10^6 */
    cs_fixed_div_t wdiv;   /* division by max(1, median) x 10^6 for W, set with the median
                            * (d = 0 while that does not fit 64 bits) */
} cs_fairness_t;

/* Set up f from p (fairness_window, w_min, w_max, median_ema).  Allocates
 * nothing.  CS_EINVAL if fairness_window is 0. */
int cs_fairness_init(cs_fairness_t *f, const cs_params_t *p);
/* Release every table; f is then as after a failed init (call init to reuse). */
void cs_fairness_free(cs_fairness_t *f);
/* Pre-size for identities 0..n_ident-1 and up to n_tracked simultaneously
 * tracked identities.  CS_OK or CS_ENOMEM (f unchanged). */
int cs_fairness_reserve(cs_fairness_t *f, uint32_t n_ident, uint32_t n_tracked);

/*
 * Start block h (CIP-1 rev §3 step 10 decay, §8): move the previous
 * block's fires into the window log, drop the blocks that leave the window
 * [h - window, h - 1], prune identities whose sum is 0, and update the
 * network median (and its EMA) for block h.  O(f log n), see "Cost" above.
 * Never allocates.
 * CS_EINVAL if h is not above the previous block's height.
 */
int cs_fairness_begin_block(cs_fairness_t *f, uint64_t h);

/* Record one fire of identity ident in the current block (CIP-1 rev §3
 * step 10).  CS_EINVAL before the first begin_block or for ident =
 * UINT32_MAX; CS_ENOMEM if a new entry cannot be allocated; CS_EOVERFLOW
 * past 2^32-1 fires of one identity in one block. */
int cs_fairness_add_fire(cs_fairness_t *f, uint32_t ident);

/* W(ident) in ppm for the current block: 2,000,000 for an untracked
 * identity (clipped to [w_min, w_max]). */
uint64_t cs_fairness_weight(const cs_fairness_t *f, uint32_t ident);
/* recent_executions of ident over the window (0 if untracked). */
uint64_t cs_fairness_recent(const cs_fairness_t *f, uint32_t ident);
/* The raw lower median computed at the last begin_block. */
uint64_t cs_fairness_median(const cs_fairness_t *f);
/* The median in effect (EMA-smoothed when median_ema > 0), x 10^6. */
cs_u128 cs_fairness_median_fp(const cs_fairness_t *f);
/* Identities currently tracked (including ones first seen this block). */
uint32_t cs_fairness_count(const cs_fairness_t *f);

/*
 * Enumerate tracked identities in ascending identity order, for sampling
 * the /weights matrix: writes up to cap entries into ident[], recent[] and
 * w_ppm[] (any of them may be NULL) and returns the number written.
 * O(identities ever seen).
 */
uint32_t cs_fairness_snapshot(const cs_fairness_t *f, uint32_t *ident, uint64_t *recent,
                              uint64_t *w_ppm, uint32_t cap);

/*
 * Internal, shared with cs_gba.c: the k-th smallest (0-based) of a[0..n),
 * k < n, by worst-case O(n) selection (median of medians with a three-way
 * partition).  Permutes a.  The result is a value, so it does not depend on
 * the pivot choices and is deterministic.
 */
cs_u128 cs__select_u128(cs_u128 *a, size_t n, size_t k);

#endif /* CS_FAIRNESS_H */
