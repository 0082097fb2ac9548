/*
 * cs_sched_types.h -- the data the scheduler exchanges with its callers and
 * its own parts: the schedule arguments, the deliveries and candidate rows
 * of a block, its totals and the hooks into the world outside the core
 * (CIP-5 §4-5, CIP-1 rev §3, §6-7).  cs_sched.h declares the functions;
 * the money side (cs_fees.h) and the scheduler's internals (cs_sched_int.h)
 * need only these types, so they sit below cs_sched.h.
 *
 * Ownership: as cs_sched.h says (the block result's arrays belong to the
 * scheduler; the args' pointers to the caller).
 */
#ifndef CS_SCHED_TYPES_H
#define CS_SCHED_TYPES_H

#include "cs_queue.h"
#include "cs_timer.h"
#include "cs_types.h"

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
    uint32_t actor_hint;      /* 0, or 1 + actor's index (cs_sched_actor_index): when the
                               * actor at that index has this address the actor map is
                               * not searched (the same index either way) */
    uint32_t payer_hint;      /* the same for fee_payer */
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
    cs_u128 exec_fee;         /* CIP-3 execution fee: used cycles x cycle basefee + used cells x cell basefee (N58) */
    cs_u128 lane_burn;        /* lane basefee x used cycles (CIP-1 rev §5), burned */
    cs_u128 priority;         /* mechanism's sort key */
    cs_u128 tip_rate;         /* priority tip per cycle paid (fee mechanisms) */
    uint64_t weight;          /* W(actor) ppm at clearing */
    uint64_t due_height;      /* height the timer became due */
    uint32_t deferrals;       /* n before this block */
    uint32_t silent;          /* of which deferred without a row (cs_sched_set_ranking) */
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
    cs_u128 exec_fee, lane_burn;                 /* sums of the fires' parts (N58) */
    cs_u128 sched_cost, cancel_cost;             /* schedule and cancel costs debited at h (CIP-5 §6.1, N58) */
    uint64_t handler_txs;                        /* deferred transactions handlers created at h (CIP-5 §6.2, N67) */
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
    /* The cycles and cells the handler of the timer in `slot` will use
     * when it fires now (at most its limits), as execute will report
     * them: gba-tip's first-draft funds rule prices a fire at what it
     * uses before it runs (DESIGN-NOTES N60).  NULL: the limits. */
    void (*usage)(void *user, const cs_sched_t *s, uint32_t slot, uint64_t *cycles, uint64_t *cells);
    /* Told, a few fires ahead, the slot of a timer whose execute may come
     * (a winner, fired or not), so the user can prefetch what execute will
     * read of it, and, with a gba hook, of a candidate whose fees the gba
     * hook may be asked for; it must change nothing.  NULL: not told. */
    void (*ahead)(void *user, uint32_t slot);
} cs_sched_hooks_t;

#endif /* CS_SCHED_TYPES_H */
