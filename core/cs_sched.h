/*
 * cs_sched.h -- the scheduler: timer store, indices, transactions and the
 * end-of-block pipeline (CIP-5 §3-8, CIP-5 CN §5-11, CIP-1 rev §3,
 * DESIGN §2.1-2.3).
 *
 * A cs_sched_t is the whole timer state a validator keeps: the record pool,
 * the id index (CIP-5 §3.2 timer store), the per-actor index that enforces
 * MAX_TIMERS_PER_ACTOR, the tiered calendar queue (height index), the watch
 * index (CIP-5 CN §6.2 IndexWatch), the carry set of deferred timers and
 * the mailbox of materialized deliveries.  One block is driven as
 *
 *     cs_sched_begin_block(s, h)              epoch maintenance (step 1)
 *     cs_sched_tx_begin / schedule / cancel / write_key / tx_commit|rollback
 *                                             TX phase (step 2)
 *     cs_sched_end_block(s, &res)             steps 3-9
 *
 * Ownership: cs_sched_alloc returns an object freed with cs_sched_free.
 * The block result's arrays are owned by the scheduler and stay valid until
 * the next cs_sched_end_block or cs_sched_free.
 */
#ifndef CS_SCHED_H
#define CS_SCHED_H

#include "cs_error.h"
#include "cs_fees.h"
#include "cs_mech.h"
#include "cs_params.h"
#include "cs_queue.h"
#include "cs_sched_types.h"
#include "cs_timer.h"

/* Create a scheduler at height `height` (the last finished block). */
int cs_sched_alloc(cs_sched_t **out, const cs_params_t *p, const char *mechanism,
                   uint64_t height);
void cs_sched_free(cs_sched_t *s);
void cs_sched_set_hooks(cs_sched_t *s, const cs_sched_hooks_t *h);

/* Replace parameters between blocks (governance, SYS_UPDATE_TIMER_CONFIG).
 * Queue geometry (ring_size, epoch_blocks, epochs) and basefee_window
 * (its ring is sized at alloc) cannot change: CS_EINVAL. */
int cs_sched_set_params(cs_sched_t *s, const cs_params_t *p);
const cs_params_t *cs_sched_params(const cs_sched_t *s);

/* Step 1: start block h = height + 1 (epoch maintenance). */
int cs_sched_begin_block(cs_sched_t *s, uint64_t h);

/* Step 2: transactions.  Schedule/cancel/write_key must be inside one.
 * cs_sched_tx_commit applies the staged operations in order (CIP-5 §4.3)
 * and returns CS_OK, CS_ENO_TX without an open transaction, or CS_ENOMEM
 * when a staged schedule could not be inserted for lack of memory: every
 * other operation is still applied, that timer is dropped, and the
 * scheduler stays consistent; a caller must treat the run as failed. */
int cs_sched_tx_begin(cs_sched_t *s);
int cs_sched_tx_commit(cs_sched_t *s);
void cs_sched_tx_rollback(cs_sched_t *s);
/* The record slot where the i-th successful schedule of the last committed
 * transaction landed; CS_NIL if it was cancelled in the transaction or
 * dropped at commit, or i is out of range.  Valid until the next
 * cs_sched_tx_begin. */
uint32_t cs_sched_tx_slot(const cs_sched_t *s, size_t i);
/* Metering of one host call (CIP-5 §6.1). */
typedef struct cs_meter {
    uint64_t cycles; /* schedule 1,000 / cancel 500 by default */
    uint64_t cells;  /* payload bytes written */
} cs_meter_t;

/* Validate and stage a schedule; the id is returned in *id_out and the
 * metering (schedule_cycles + payload cells) in *meter (both may be NULL).
 * Errors leave nothing staged.
 *
 * With a->id_at_commit the CIP-5 §3.3 id is derived at tx_commit, in
 * batches (cs_timer_id_many), instead of now: the same id, from the same
 * nonce.  Its uniqueness check is then made when it lands: derived ids
 * have injective preimages (fixed-width actor, height and nonce, a nonce
 * never reused by its actor, and the total length fixing the payload's),
 * so only a caller's id or a Keccak-256 collision could clash with one.
 * The core therefore derives at once (as without the flag) as soon as any
 * caller's id has been scheduled, and for payloads routed to a custom
 * handler (the record keeps the inner payload, not the hashed one).
 * A clash found at commit drops that timer, and tx_commit returns
 * CS_ETIMER_EXISTS after applying everything else. */
int cs_sched_schedule(cs_sched_t *s, const cs_sched_args_t *a, cs_hash_t *id_out,
                      cs_meter_t *meter);
/* Stage a cancel by the owner (CIP-5 §4.1); metering 500 cycles. */
int cs_sched_cancel(cs_sched_t *s, const cs_addr_t *caller, const cs_hash_t *id,
                    cs_meter_t *meter);
/* Record a state-key write (ModifiedKeySet, CIP-5 CN §8.1). */
int cs_sched_write_key(cs_sched_t *s, const uint8_t *key, size_t len);

/* System instructions (CIP-1 rev §12), applied immediately between blocks
 * or inside a transaction's commit: 48 cancel, 50 extend TTL. */
int cs_sched_sys_cancel(cs_sched_t *s, const cs_hash_t *id);
/* (CS_ENOMEM when a timer's first TTL finds no room in the money table.) */
int cs_sched_sys_extend(cs_sched_t *s, const cs_hash_t *id, uint64_t new_expires_at);

/* Lane pause (scenario event): while paused, due timers are collected and
 * carried but none fires; the backlog clears after the pause. */
void cs_sched_set_paused(cs_sched_t *s, int paused);
/* Records are slots 0..cs_sched_pool_size()-1; live ones have CS_TF_LIVE. */
size_t cs_sched_pool_size(const cs_sched_t *s);
/* The live slots in the order the records would occupy without the free
 * stack's sorting (DESIGN-NOTES N107): order[0..pool_size) receives, at
 * each logical position, the slot of the live record that holds it, or
 * UINT32_MAX.  Returns cs_sched_pool_size(s). */
size_t cs_sched_slot_order(const cs_sched_t *s, uint32_t *order);

/* The timers' phase (steps 3-8) of block h ahead of its transactions, when
 * the mechanism delivers timers first: gba-tip under gba_tip_order = draft
 * (CIP-1 first draft §3, DESIGN-NOTES N69); cs_sched_timers_first says
 * so.  Otherwise, or when it already ran, a no-op returning CS_OK.  The
 * first cs_sched_tx_begin of such a block runs it too, and
 * cs_sched_end_block when the block had no transaction; a driver calls it
 * itself, after cs_sched_set_env and before any transaction, so that no
 * caller's code is on the stack when the handlers run.  Returns CS_OK,
 * CS_ETX_OPEN, CS_EINVAL outside a block, or the error that stopped the
 * phase (cs_sched_end_block then returns it too). */
int cs_sched_timers(cs_sched_t *s);
int cs_sched_timers_first(const cs_sched_t *s);

/* Steps 3-9 for the current block (3-8 only if cs_sched_timers has not
 * run them).  Returns CS_OK, or CS_ENOMEM when an
 * allocation failed on the way: the block may be partly applied (timers
 * fired, an interval timer or a handler's new timer lost), the scheduler
 * can still be freed with cs_sched_free, and the run must stop with an
 * error (the engine does: exit 3, DESIGN §2.9). */
int cs_sched_end_block(cs_sched_t *s, cs_block_result_t *res);

/* Lookups. */
const cs_timer_t *cs_sched_find(const cs_sched_t *s, const cs_hash_t *id);
const cs_timer_t *cs_sched_record(const cs_sched_t *s, uint32_t slot);
/* From inside a fire's handler (the execute hook): create one deferred
 * transaction (CIP-5 §6.2, DESIGN-NOTES N67).  When the handler returns,
 * the first handler_deferred_max of its requests that fit what its budget
 * has left after its own cycles are created, each taking
 * handler_deferred_cycles of the budget (they count in the fire's used
 * cycles and its execution fee); the rest fail.  CS_EINVAL outside a
 * handler. */
int cs_sched_defer_tx(cs_sched_t *s);
/* How many of `requested` deferred transactions a handler with cycles
 * limit `limit` that used `used` of its own creates (the rule above). */
uint64_t cs_sched_handler_txs(const cs_sched_t *s, uint64_t limit, uint64_t used, uint64_t requested);
/* The hot part of the record in the same slot (height, fifo_rank, kind,
 * flags, deferrals, fire_seq; cs_timer.h), NULL past the pool. */
const cs_timer_hot_t *cs_sched_hot(const cs_sched_t *s, uint32_t slot);
/* The bid of the record in slot, from the money table (0 when it has none);
 * a finished timer's bid stays readable until its slot is reused. */
cs_u128 cs_sched_bid(const cs_sched_t *s, uint32_t slot);
/* The TTL height of the record in slot (CIP-1 rev §9; 0 = never), from the
 * money table, readable like its bid. */
uint64_t cs_sched_expires_at(const cs_sched_t *s, uint32_t slot);
uint64_t cs_sched_height(const cs_sched_t *s);
uint64_t cs_sched_pending(const cs_sched_t *s);
/* Due timers deferred and carried to the next block (the standing backlog). */
uint64_t cs_sched_carried(const cs_sched_t *s);
/* The ranking path of the end of the block (issue 26, DESIGN-NOTES N80):
 * 0 (the default) collects and ranks every carried timer each block; 1
 * lets eip1559 keep its carried timers ranked across blocks, where the
 * outcome is provably the same, and look only at those that can fire,
 * expire or fail: the others are deferred without a row (cs_cand_row_t
 * .silent counts them on the timer's next row).  Set 1 only when the
 * caller needs no row for a timer that merely stays deferred. */
void cs_sched_set_ranking(cs_sched_t *s, int incremental);
/* 1 (the default): every 64th block sorts the free slots so new records
 * take the lowest first (DESIGN-NOTES N107); 0: never, so slots are
 * reused last freed, first taken.  Outputs are the same either way (the
 * rows written at the close follow cs_sched_slot_order); only where the
 * records lie in memory changes.  For tests and measurements. */
void cs_sched_set_dense(cs_sched_t *s, int dense);
/* Blocks timer `slot` was deferred without a row and not yet reported on
 * a row (a pending timer's at the end of a run, a cancelled one's). */
uint32_t cs_sched_silent(const cs_sched_t *s, uint32_t slot);
/* Start fetching what a timer's end reads of slot -- its hot part, its
 * money entry (bid, TTL) and its silent deferrals (cs_sched_silent) --
 * once its cold part is in the cache (it reads the money index there).
 * Changes nothing; performance only. */
void cs_sched_prefetch_end(const cs_sched_t *s, uint32_t slot);
/* Bytes of the timer store's per-timer structures, for `cowsim bench
 * memory`.  A *_bytes figure is what the slots, entries or cells in use
 * span (high-water marks: the pages a run has written); *_cap_bytes is
 * what is allocated (untouched pages of a large allocation cost no RSS). */
typedef struct cs_sched_mem {
    size_t slots, slots_cap;              /* record slots ever used, allocated */
    size_t hot_bytes, hot_cap_bytes;      /* hot parts (cs_timer_hot_t) */
    size_t cold_bytes, cold_cap_bytes;    /* cold parts (cs_timer_t) */
    size_t money_bytes, money_cap_bytes;  /* money table (cs_timer_money_t) */
    size_t id_map_bytes;                  /* id index: every cell is written when allocated */
    size_t queue_bytes;                   /* cs_queue_bytes: buckets, tree nodes, scratch */
    size_t lists_bytes, lists_cap_bytes;  /* free slot stack and its logical mirror, logical
                                           * slots (N107), retired list, money free list */
} cs_sched_mem_t;
void cs_sched_mem(const cs_sched_t *s, cs_sched_mem_t *m);
uint32_t cs_sched_actor_pending(const cs_sched_t *s, const cs_addr_t *a);
const cs_addr_t *cs_sched_actor_addr(const cs_sched_t *s, uint32_t actor);
const cs_hash_t *cs_sched_digest(const cs_sched_t *s); /* last block's digest */
const cs_mech_t *cs_sched_mech(const cs_sched_t *s);
/* The simulator's CIP-5 §9.3 measurement of the block just ended, for the
 * invariant-targeting lambda loop (cs_mech_lambda_observe, N70). */
void cs_sched_lambda_observe(cs_sched_t *s, int violated);

/* Mailbox (CIP-5 CN §10.2): materialize is idempotent by deliver_id.
 * Returns 1 if added, 0 if the id was already present. */
int cs_sched_mailbox_put(cs_sched_t *s, const cs_hash_t *deliver_id);
size_t cs_sched_mailbox_size(const cs_sched_t *s);

/* Money and fairness: cs_fees.h (included above). */

/* CIP-5 CN §10.1 / §14: deliver_id = keccak256(h[8 BE] || parent_root || timer_id || fire_seq[4 BE]). */
void cs_deliver_id(uint64_t h, const cs_hash_t *parent_root, const cs_hash_t *timer_id,
                   uint32_t fire_seq, cs_hash_t *out);
/* deliver_id of each of d[0..n) from its timer_id and fire_seq, batched
 * (cs_keccak_permute_many); the same digests as cs_deliver_id. */
void cs_deliver_id_many(uint64_t h, const cs_hash_t *parent_root, cs_delivery_t *d, size_t n);

#endif /* CS_SCHED_H */
