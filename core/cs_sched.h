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
#include "cs_mech.h"
#include "cs_params.h"
#include "cs_queue.h"
#include "cs_timer.h"

typedef struct cs_sched cs_sched_t;

/* Arguments of one schedule call (CIP-5 §4.1, CIP-1 rev §6, CIP-5 CN §7.1). */
typedef struct cs_sched_args {
    cs_addr_t actor;          /* owner; the transaction's sender */
    const cs_addr_t *fee_payer; /* NULL = the owner (CIP-1 rev §6) */
    uint8_t kind;             /* cs_timer_kind */
    uint64_t height;          /* due height (HEIGHT); first due (INTERVAL) */
    uint32_t every_blocks;    /* INTERVAL period, >= 1 */
    const uint8_t *payload;   /* may be NULL when payload_len == 0 */
    size_t payload_len;       /* <= 1 MiB */
    const char *handler;      /* NULL = "handle_timer" or the payload's _handler */
    size_t handler_len;       /* bytes of handler (no NUL needed) */
    const uint8_t *timer_id;  /* NULL = derive (CIP-5 §3.3); else caller's id */
    size_t timer_id_len;      /* <= 256; ids longer than 32 bytes are hashed */
    uint64_t gas_limit;       /* 0 = default per-fire budget */
    uint64_t max_cells;       /* 0 = default */
    uint64_t expires_at;      /* TTL height, 0 = none */
    int has_bid;              /* legacy / auction bid present */
    cs_u128 bid;              /* bid (CIP-5 §9.7) */
    int has_fees;             /* max_fee / max_priority present */
    cs_u128 max_fee;          /* max_fee_per_cycle */
    cs_u128 max_prio;         /* max_priority_fee_per_cycle */
    uint8_t tier_hint;        /* cs_ptier: 0 standard (default), 1 economy, 2 fast, 3 urgent */
    const uint8_t *const *watch_keys; /* STATE_WATCH keys */
    const size_t *watch_key_lens;     /* their lengths */
    size_t n_watch;                   /* number of keys, >= 1 for WATCH */
    uint8_t id_at_commit;     /* derive the id (timer_id NULL) at tx_commit, batched with
                               * the transaction's other new ids; *id_out is then not
                               * written (cs_sched_tx_slot finds the timer) */
} cs_sched_args_t;

/* CIP-5 §5.2: the deferred transaction one fire produces. */
typedef struct cs_delivery {
    cs_hash_t deliver_id;     /* H(h, parent_state_root, timer_id, fire_seq) (CIP-5 CN §10) */
    cs_hash_t origin;         /* 32 zero bytes: system-triggered sentinel */
    cs_hash_t timer_id;       /* the timer */
    cs_addr_t actor;          /* ExecuteActor.actor and the sender */
    const char *handler;      /* ExecuteActor.handler (interned; valid for the run) */
    const uint8_t *payload;   /* ExecuteActor.payload (valid until next end_block) */
    uint32_t payload_len;     /* bytes */
    uint64_t cycles_limit;    /* 550,000 in FIFO (CIP-5 §5.2) or the gas limit */
    uint64_t cells_limit;     /* 550,000 in FIFO or max_cells */
    uint64_t due_height;      /* trigger context */
    uint32_t fire_seq;        /* fire_seq used in deliver_id */
    uint8_t kind;             /* trigger kind */
    uint32_t slot;            /* record slot (valid during the execute hook) */
} cs_delivery_t;

/* Outcome of one candidate in one block. */
typedef enum cs_outcome {
    CS_OUT_FIRED = 0,        /* selected and executed */
    CS_OUT_DEFERRED = 1,     /* lost; carried to h+1 with n += 1 */
    CS_OUT_EXPIRED = 2,      /* TTL passed; destroyed via the GC lane */
    CS_OUT_INSUFFICIENT = 3, /* fee payer < max_cost; destroyed via GC */
    CS_OUT_GC_WAIT = 4,      /* GC budget exhausted; GC carries over */
    CS_OUT_CANCELLED = 5,    /* explicit cancel (timer rows only) */
    CS_OUT_PENDING = 6       /* still queued at the end of a run */
} cs_outcome;

/* One row per candidate looked at in a block. */
typedef struct cs_cand_row {
    uint32_t slot;            /* record slot (valid until the next end_block) */
    uint8_t outcome;          /* cs_outcome */
    uint8_t why;              /* cs_why for deferrals */
    uint64_t used_cycles;     /* cycles the handler used (fired) */
    cs_u128 burn;             /* base units burned for this fire */
    cs_u128 tip;              /* priority tips to the proposer */
    cs_u128 payment;          /* auction payment */
    cs_u128 priority;         /* mechanism's sort key */
    cs_u128 tip_rate;         /* priority tip per cycle paid (fee mechanisms) */
    uint64_t weight;          /* W(actor) ppm at clearing */
    uint64_t due_height;      /* height the timer became due */
    uint32_t deferrals;       /* n before this block */
    cs_u128 max_fee, max_prio;/* fee parameters used (fee mechanisms) */
    cs_u128 bid;              /* bid at clearing (bid mechanisms) */
} cs_cand_row_t;

/* Per-block totals (one /blocks row). */
typedef struct cs_block_stats {
    uint64_t height;
    uint64_t due, fired, deferred, expired, insufficient, cancelled, scheduled;
    uint64_t gc_destroyed, gc_backlog;
    uint64_t lane_cycles, gc_cycles, eob_cycles; /* eob: all fired cycles (fifo spike) */
    uint64_t sched_cycles;                       /* metering of schedule/cancel (CIP-5 §6.1) */
    uint64_t delay_sum;                          /* sum of fire delays (h - due) */
    cs_u128 basefee_lane;                        /* basefee used this block */
    cs_u128 burn, tips, payments;
    cs_u128 p50_tip;                             /* previous-block p50 for next block */
    cs_queue_stats_t tiers;
    cs_hash_t digest;                            /* scheduler state digest for h */
} cs_block_stats_t;

typedef struct cs_block_result {
    cs_block_stats_t st;        /* totals */
    cs_delivery_t *deliv;       /* materialized deliveries, execution order */
    size_t n_deliv;
    cs_cand_row_t *rows;        /* every candidate examined */
    size_t n_rows;
} cs_block_result_t;

/*
 * Hooks into the world outside the core (the simulator's agents, or a
 * validator's VM).  Every hook may be NULL.
 *   execute: run a fired handler inside its own transaction (the hook may
 *            call cs_sched_schedule/cancel/write_key: the pipeline opens
 *            and commits the deferred transaction around it).  Returns the
 *            cycles and cells actually used (clamped to the limits).
 *   gba:     custom GBA for a timer at fire time (CIP-1 rev §7.2); returns
 *            1 with fees filled, or 0 to use the default GBA.
 */
typedef struct cs_gba_ctx_pub {
    uint64_t trigger_block_height;  /* CIP-1 rev §7.2 */
    uint64_t current_block_height;
    cs_u128 basefee_cycle, basefee_cell, basefee_lane_timer;
    uint64_t last_block_cycle_usage;
    cs_u128 p50_tip;
    cs_u128 owner_balance;
    cs_u128 dflt_max_fee, dflt_max_prio; /* what the default GBA (§7.1, tier §7.3) would return */
} cs_gba_ctx_pub_t;

typedef struct cs_sched_hooks {
    void *user;
    void (*execute)(void *user, cs_sched_t *s, const cs_delivery_t *d, uint64_t *used_cycles,
                    uint64_t *used_cells);
    int (*gba)(void *user, const cs_timer_t *t, const cs_gba_ctx_pub_t *ctx, cs_u128 *max_fee,
               cs_u128 *max_prio);
} cs_sched_hooks_t;

/* Create a scheduler at height `height` (the last finished block). */
int cs_sched_alloc(cs_sched_t **out, const cs_params_t *p, const char *mechanism,
                   uint64_t height);
void cs_sched_free(cs_sched_t *s);
void cs_sched_set_hooks(cs_sched_t *s, const cs_sched_hooks_t *h);

/* Replace parameters between blocks (governance, SYS_UPDATE_TIMER_CONFIG).
 * Queue geometry (ring_size, epoch_blocks, epochs) cannot change. */
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

/* Steps 3-9 for the current block.  Returns CS_OK, or CS_ENOMEM when an
 * allocation failed on the way: the block may be partly applied (timers
 * fired, an interval timer or a handler's new timer lost), the scheduler
 * can still be freed with cs_sched_free, and the run must stop with an
 * error (the engine does: exit 3, DESIGN §2.9). */
int cs_sched_end_block(cs_sched_t *s, cs_block_result_t *res);

/* Lookups. */
const cs_timer_t *cs_sched_find(const cs_sched_t *s, const cs_hash_t *id);
const cs_timer_t *cs_sched_record(const cs_sched_t *s, uint32_t slot);
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
    size_t lists_bytes, lists_cap_bytes;  /* free slot stack, retired list, money free list */
} cs_sched_mem_t;
void cs_sched_mem(const cs_sched_t *s, cs_sched_mem_t *m);
uint32_t cs_sched_actor_pending(const cs_sched_t *s, const cs_addr_t *a);
const cs_addr_t *cs_sched_actor_addr(const cs_sched_t *s, uint32_t actor);
const cs_hash_t *cs_sched_digest(const cs_sched_t *s); /* last block's digest */
const cs_mech_t *cs_sched_mech(const cs_sched_t *s);

/* Mailbox (CIP-5 CN §10.2): materialize is idempotent by deliver_id.
 * Returns 1 if added, 0 if the id was already present. */
int cs_sched_mailbox_put(cs_sched_t *s, const cs_hash_t *deliver_id);
size_t cs_sched_mailbox_size(const cs_sched_t *s);

/* Money and fairness (cs_fees.c).  Actors are interned on first use; the
 * ledger account of an actor is its index. */
int cs_sched_actor_index(cs_sched_t *s, const cs_addr_t *a, uint32_t *idx);
int cs_sched_fund(cs_sched_t *s, const cs_addr_t *a, cs_u128 amount);
int cs_sched_set_deployer(cs_sched_t *s, const cs_addr_t *actor, const cs_addr_t *deployer);
cs_u128 cs_sched_balance(const cs_sched_t *s, uint32_t actor);
/* D13: the CIP-3 environment for the next block (the cycle basefee is
 * stored as timer fires are charged it, cs_basefee_cycle_charged, N38). */
void cs_sched_set_env(cs_sched_t *s, cs_u128 basefee_cycle, cs_u128 basefee_cell);
cs_u128 cs_sched_lane_basefee(const cs_sched_t *s);
/* The lane basefee actually charged (lane_fee_multiplier applied, §5). */
cs_u128 cs_sched_lane_basefee_charged(const cs_sched_t *s);
/* The fire-count median W(actor) uses in this block (CIP-1 rev §8, D12). */
uint64_t cs_sched_fair_median(const cs_sched_t *s);
cs_u128 cs_sched_p50_tip(const cs_sched_t *s);
struct cs_ledger;
const struct cs_ledger *cs_sched_ledger(const cs_sched_t *s);
/* W(actor) in ppm for the block being built (CIP-1 rev §8). */
uint64_t cs_sched_weight(const cs_sched_t *s, uint32_t actor);
/* Snapshot of tracked identities: returns the count written (<= cap). */
uint32_t cs_sched_weights(const cs_sched_t *s, uint32_t *ident, uint64_t *recent, uint64_t *w_ppm,
                          uint32_t cap);
/* Run totals of TimerPriorityClampedAtSchedule and TimerRejectedBelowBasefee. */
void cs_sched_counters(const cs_sched_t *s, uint64_t *clamped, uint64_t *rejected_below);
/* DESIGN §2.6 invariants; CS_EINVARIANT with a description in msg. */
int cs_sched_check_invariants(const cs_sched_t *s, char *msg, size_t cap);

/* CIP-5 CN §10.1 / §14: deliver_id = keccak256(h[8 BE] || parent_root || timer_id || fire_seq[4 BE]). */
void cs_deliver_id(uint64_t h, const cs_hash_t *parent_root, const cs_hash_t *timer_id,
                   uint32_t fire_seq, cs_hash_t *out);
/* deliver_id of each of d[0..n) from its timer_id and fire_seq, batched
 * (cs_keccak_permute_many); the same digests as cs_deliver_id. */
void cs_deliver_id_many(uint64_t h, const cs_hash_t *parent_root, cs_delivery_t *d, size_t n);

#endif /* CS_SCHED_H */
