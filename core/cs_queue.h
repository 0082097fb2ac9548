/*
 * cs_queue.h -- the tiered calendar queue (CIP-1 §2, DESIGN §2.2).
 *
 * The queue indexes pending timer records that live in the scheduler's
 * pool; it stores 32-bit slots, never copies of records.  It reads a
 * record's height and fifo_rank and owns its tier and qpos fields, all in
 * the 32-byte hot part (cs_timer.h); only the overflow tree reads the id,
 * in the cold part.
 *
 *   tier 1  ring of ring_size buckets, bucket = height % ring_size.  The
 *           ring may be smaller than the horizon it holds (ring 256 with
 *           epoch 360, ring 8 with epoch 3): a bucket then mixes aliased
 *           heights, and collection takes only entries whose height is h.
 *           A timer inserted here waits in a staging array until the next
 *           cs_queue_collect or cs_queue_advance files it in its bucket
 *           (DESIGN-NOTES N49).
 *   tier 2  one bucket per future epoch (epoch = height / epoch_blocks) for
 *           the next `epochs` epochs.
 *   tier 3  overflow treap ordered by (height, timer_id) whose priorities
 *           are taken from the id (itself a keccak hash of the key), so its
 *           shape -- and its Merkle root -- depend only on the set held.
 *           A timer inserted here gets its node at once and is linked
 *           into the treap during the next collection (its walk spread
 *           over the collection's loops), advance or root computation,
 *           whichever comes first (DESIGN-NOTES N49).
 *
 * Maintenance is amortized (DESIGN §2.2): each cs_queue_advance() moves a
 * share of the next epoch's bucket into the ring and a share of the tree's
 * next epoch into tier 2, paced so every migration completes before its
 * deadline, instead of moving a whole epoch in one block.
 *
 * Ownership: cs_queue_alloc returns a queue the caller frees with
 * cs_queue_free.  `hot` and `cold` point at the caller's pointers to the
 * two record arrays, so the caller may reallocate them between calls.
 */
#ifndef CS_QUEUE_H
#define CS_QUEUE_H

#include "cs_error.h"
#include "cs_timer.h"

typedef struct cs_queue cs_queue_t;

typedef struct cs_queue_cfg {
    uint32_t ring_size;    /* tier-1 buckets, >= 1 */
    uint32_t epoch_blocks; /* blocks per epoch, >= 1 */
    uint32_t epochs;       /* future epochs kept in tier 2, >= 1 */
} cs_queue_cfg_t;

/* A growable vector of slots, used for collection output. */
typedef struct cs_slotvec {
    uint32_t *v;  /* malloc'd; owner frees with cs_slotvec_free */
    size_t n;     /* used */
    size_t cap;   /* allocated */
} cs_slotvec_t;
int cs_slotvec_push(cs_slotvec_t *sv, uint32_t slot); /* CS_OK or CS_ENOMEM */
int cs_slotvec_reserve(cs_slotvec_t *sv, size_t cap);
void cs_slotvec_free(cs_slotvec_t *sv);

/* Per-tier counts, for /blocks rows and the benchmark. */
typedef struct cs_queue_stats {
    uint64_t ring, epoch, tree; /* pending entries per tier */
    uint64_t migrated_ring;     /* entries moved tier 2 -> 1 in the last advance */
    uint64_t migrated_epoch;    /* entries moved tier 3 -> 2 in the last advance */
} cs_queue_stats_t;

/*
 * Create a queue whose current height is `height` (nothing at or below it
 * may be inserted).  Returns NULL on bad configuration or no memory.
 */
cs_queue_t *cs_queue_alloc(const cs_queue_cfg_t *cfg, cs_timer_hot_t *const *hot, cs_timer_t *const *cold,
                           uint64_t height);
void cs_queue_free(cs_queue_t *q);

/*
 * Insert slot; the record's height must be > the current height.
 * Returns CS_OK, CS_EHEIGHT_NOT_FUTURE or CS_ENOMEM (queue unchanged).
 */
int cs_queue_insert(cs_queue_t *q, uint32_t slot);

/* Remove a queued slot from whatever tier holds it (cancel).  O(1) in tiers
 * 1-2 (order is restored at collection), O(log n) in tier 3. */
void cs_queue_remove(cs_queue_t *q, uint32_t slot);

/*
 * Start block h (must be current height + 1): file the tier-1 inserts made
 * since the last advance into their ring buckets and run this block's share
 * of epoch maintenance.  Returns CS_OK or CS_ENOMEM (the queue stays valid
 * and the call may be retried).
 */
int cs_queue_advance(cs_queue_t *q, uint64_t h);

/*
 * File the staged tier-1 inserts into their buckets, then take every entry
 * due at exactly the current height out of the queue and append the slots
 * to out in fifo_rank order.  Returns CS_OK or CS_ENOMEM (nothing removed;
 * some staged entries may have been filed, which changes nothing visible).
 */
int cs_queue_collect(cs_queue_t *q, cs_slotvec_t *out);

/* Link the staged tree inserts, recompute dirty tree hashes (once per
 * block) and return the tier-3 root digest; 32 zero bytes for an empty
 * tree. */
void cs_queue_root(cs_queue_t *q, cs_hash_t *root);

void cs_queue_stats(const cs_queue_t *q, cs_queue_stats_t *st);
uint64_t cs_queue_height(const cs_queue_t *q);
uint64_t cs_queue_size(const cs_queue_t *q);
/* Bytes the queue itself holds (buckets, tree nodes), excluding records. */
size_t cs_queue_bytes(const cs_queue_t *q);
/* Depth of the overflow tree, staged inserts linked first (for the balance
 * bound test). */
unsigned cs_queue_tree_depth(cs_queue_t *q);

#endif /* CS_QUEUE_H */
