/*
 * cs_sched_int.h -- internals of the scheduler shared by cs_sched.c (store,
 * indices, transactions), cs_eob.c (end-of-block pipeline), cs_fees.c
 * (fees, ledger and fairness glue) and cs_actors.c (the actor table).  Not
 * a public header.  It needs only the scheduler's types
 * (cs_sched_types.h), not its functions (cs_sched.h).
 */
#ifndef CS_SCHED_INT_H
#define CS_SCHED_INT_H

#include <stdlib.h>
#include <string.h>

#include "cs_hmap.h"
#include "cs_ledger.h"
#include "cs_mech.h"
#include "cs_params.h"
#include "cs_queue.h"
#include "cs_rank.h"
#include "cs_sched_types.h"
#include "cs_timer.h"

#define CS_MAX_WATCH_KEYS 16u     /* keys per STATE_WATCH timer (CIP-5 CN §15) */
#define CS_MAX_WATCH_KEY_LEN 256u /* bytes per watch key */

typedef struct cs_actor_rec {
    cs_addr_t addr;    /* 20-byte address */
    uint32_t pending;  /* committed pending timers (CIP-5 §8 per-actor index) */
    uint32_t staged;   /* net timers staged by the open transaction */
    uint64_t nonce;    /* schedule counter used as the id nonce (CIP-5 §3.3) */
    uint32_t deployer; /* fairness identity under fairness_identity=deployer */
    cs_u128 sched_paid;  /* schedule costs debited so far (CIP-5 §6.1, N58) */
    cs_u128 cancel_paid; /* cancel costs debited so far */
} cs_actor_rec_t;

enum { CS__OP_SCHEDULE = 0, CS__OP_CANCEL = 1 };

typedef struct cs__op {
    int type;      /* CS__OP_* */
    uint32_t slot; /* staged index (schedule) or record slot (cancel) */
} cs__op_t;

typedef struct cs__staged {
    cs_timer_hot_t hot; /* the record's hot part as it will be inserted */
    cs_timer_t rec;    /* its cold part */
    cs_timer_money_t money; /* its bid and fee caps (a money entry if nonzero) */
    cs_hash_t *wkeys;  /* hashed watch keys (WATCH) */
    uint32_t n_wkeys;  /* count */
    int cancelled;     /* cancelled later in the same transaction */
    uint64_t nonce;    /* the owner's nonce this schedule used (CIP-5 §3.3) */
    uint8_t id_later;  /* id still to derive (cs_sched_args_t.id_at_commit) */
    uint8_t id_check;  /* derived late: check it is free when it lands */
    uint32_t slot;     /* where it landed at commit, CS_NIL if it did not */
} cs__staged_t;

typedef struct cs__wlist {
    cs_hash_t *keys; /* hashed keys of one watch timer */
    uint32_t n;      /* count */
} cs__wlist_t;

/* Timer accounting (DESIGN §2.6): scheduled = fired_final + expired +
 * insufficient + cancelled + pending. */
typedef struct cs__acct {
    uint64_t scheduled, fired_final, expired, insufficient, cancelled;
    uint64_t fires; /* every fire, intervals and watches included */
} cs__acct_t;

struct cs_fees; /* cs_fees.c */

struct cs_sched {
    cs_params_t p;            /* parameters in force */
    uint64_t height;          /* last finished block */
    uint64_t cur;             /* block being built (== height between blocks) */
    cs_timer_hot_t *hot;      /* record pool, hot parts (cs_timer.h) */
    cs_timer_t *pool;         /* record pool, cold parts, same slots */
    size_t pool_n, pool_cap;  /* high water, capacity */
    cs_timer_money_t *money;  /* money table: bids, fee caps, TTLs, payers, handlers (cs_timer.h) */
    uint32_t *money_free;     /* free money entries (capacity money_cap) */
    size_t n_money, money_cap, n_money_free; /* high water, capacity, free */
    uint32_t *free_slots;     /* free stack (capacity pool_cap); sorted now and
                               * then so the lowest slots are taken first (N107) */
    uint32_t *lfree;          /* the logical free stack beside it, never sorted (N107) */
    uint32_t *lid;            /* per slot: the logical slot of its live record (N107) */
    size_t n_free;            /* entries in free_slots, and in lfree */
    int sparse_slots;         /* 1: the free stack is never sorted (cs_sched_set_dense) */
    uint32_t *retired;        /* slots freed this block, released after execution */
    size_t n_retired, retired_cap;
    size_t free_hw, retired_hw, money_free_hw; /* high-water marks of the three lists (cs_sched_mem) */
    uint64_t next_rank;       /* next fifo_rank */
    uint64_t n_pending;       /* live records */
    cs__hmap_t id_map;        /* id prefix -> slot (CIP-5 §3.2 timer store) */
    cs__hmap_t actor_map;     /* address key -> actor index */
    cs_actor_rec_t *actors;
    size_t n_actors, actors_cap;
    char **handlers;          /* interned handler names; 0 = handle_timer */
    size_t n_handlers, handlers_cap;
    cs_queue_t *q;            /* height index (CIP-1 §2) */
    cs__hmap_t watch_map;     /* key hash prefix -> slot (CIP-5 CN §6.2) */
    cs__wlist_t *wlists;
    size_t n_wlists, wlists_cap;
    uint32_t *wfree;
    size_t n_wfree, wfree_cap;
    cs_hash_t *modkeys;       /* ModifiedKeySet(h), hashed */
    size_t n_modkeys, modkeys_cap, tx_modkeys0;
    int tx_open;              /* a transaction is open */
    int in_fire;              /* a fire's handler is running (execute hook) */
    uint32_t fire_defer_req;  /* deferred transactions it asked for (N67) */
    int paused;               /* lane paused: nothing fires */
    cs__op_t *ops;            /* the open transaction's side effects */
    size_t n_ops, ops_cap;
    cs__staged_t *staged;     /* staged schedules */
    size_t n_staged, staged_cap;
    size_t n_id_later;        /* staged schedules whose id is still to derive */
    size_t n_landed;          /* schedules of the last committed transaction */
    uint64_t n_caller_ids;    /* schedules ever made with a caller's id */
    uint32_t *carry;          /* deferred timers (losers), record qpos = index */
    size_t n_carry, carry_cap;
    uint32_t *gcq;            /* timers awaiting the GC lane */
    size_t n_gcq, gcq_cap, gcq_head;
    cs__hmap_t mailbox;       /* deliver_id prefix -> mbox index, this height */
    cs_hash_t *mbox_ids;
    size_t n_mbox, mbox_cap;
    cs_mech_t mech;           /* the mechanism instance */
    int mech_open;
    cs_mech_t mech_next;      /* the run's mechanism before activation_height (mech is fifo) */
    int mech_next_open;
    cs_sched_hooks_t hooks;   /* outside world */
    cs__acct_t acct;          /* timer accounting */
    cs_hash_t digest;         /* state digest of the last block = parent root */
    uint64_t setsum[4];       /* additive multiset hash of pending (id, height): 256-bit sum,
                               * limb 0 least significant; its bytes in memory order are hashed */
    /* per-block scratch, sized up front and reused */
    cs_slotvec_t due;
    cs_cand_t *cands;
    size_t cands_cap;
    cs_cand_row_t *rows;
    size_t rows_cap;
    cs_delivery_t *deliv;
    size_t deliv_cap;
    uint32_t *crow;           /* candidate -> row index */
    size_t crow_cap;
    uint32_t *order;          /* mechanism rank -> candidate index */
    size_t order_cap;
    uint8_t *rsel;            /* mechanism rank -> that candidate is selected */
    size_t rsel_cap;
    uint8_t *cfired;          /* candidate -> it fired (its row's outcome is FIRED) */
    size_t cfired_cap;
    uint32_t *trig;           /* candidate slots of this block */
    size_t trig_cap;
    uint8_t *cmark;           /* carry index -> taken by the ranking this block (cs__rank_take),
                               * all zero between blocks */
    size_t cmark_cap;
    cs__rank_t rank;          /* persistent ranking of carried timers (cs_rank.h, N80) */
    int rank_on;              /* cs_sched_set_ranking: the incremental path is allowed */
    int rank_blk;             /* this block takes the incremental path */
    size_t rank_silent;       /* members deferred without a row this block */
    uint64_t blk_sched_cycles, blk_scheduled, blk_cancelled;
    cs_u128 blk_sched_cost, blk_cancel_cost; /* schedule / cancel costs debited this block (N58) */
    size_t n_rows_last;       /* rows of the block being settled */
    /* The timers' phase of the block (steps 3-8, cs_eob.c), which runs
     * before the block's transactions under gba-tip's first-draft order
     * (N69) and is finished by cs_sched_end_block: */
    uint64_t eob_done;        /* height whose timers' phase has run (0 = none) */
    int eob_rc;               /* its result: CS_OK, or the error that stopped it */
    int eob_oom;              /* it ran to the end but lost state (CS_ENOMEM later) */
    size_t eob_nc, eob_nd;    /* its live candidates, deliveries */
    cs_block_stats_t eob_st;  /* its totals */
    cs_clear_ctx_t eob_ctx;   /* its clearing context and output, for step 9 */
    cs_clear_out_t eob_out;
    struct cs_fees *fees;     /* fees, ledger, fairness state */
};

/* Run steps 3-8 of the current block now (cs_eob.c): the timers' phase,
 * marked done for s->cur first; its result is kept in s->eob_rc. */
int cs__eob_timers(cs_sched_t *s);

/* Unaligned native-endian 64-bit load (hash keys from id and address bytes). */
static inline uint64_t cs__load64(const uint8_t *b)
{
    uint64_t v;
    memcpy(&v, b, 8);
    return v;
}

/* Grow *arr to at least need elements of size elem (capacity from 16,
 * doubling); 0 on success, -1 with *arr untouched when realloc fails. */
static inline int cs__sched_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need) c *= 2;
    void *p = realloc(*arr, c * elem);
    if (!p) return -1;
    *arr = p;
    *cap = c;
    return 0;
}

/* cs_actors.c: the actor table.  cs__actor_intern returns the index of
 * address a, adding it (deployer = itself) when new: CS_OK or CS_ENOMEM;
 * cs__actor_lookup only finds it: CS_OK or CS_ETIMER_NOT_FOUND. */
int cs__actor_intern(cs_sched_t *s, const cs_addr_t *a, uint32_t *out);
int cs__actor_lookup(const cs_sched_t *s, const cs_addr_t *a, uint32_t *out);
/* cs__actor_intern, checking first whether the actor at index hint - 1
 * (hint 0: none) is a: the map lookup is then skipped. */
int cs__actor_intern_hint(cs_sched_t *s, const cs_addr_t *a, uint32_t hint, uint32_t *out);
uint32_t cs__id_lookup(const cs_sched_t *s, const cs_hash_t *id);

/* A zero payload is not copied (DESIGN-NOTES N100): a record whose
 * payload is payload_len zero bytes keeps payload NULL, and whoever reads
 * its bytes (a delivery, the late id derivation) is pointed here instead.
 * Never written; CS_MAX_PAYLOAD bytes, so any payload length fits. */
extern uint8_t cs__zero_payload[CS_MAX_PAYLOAD];

/* The bytes of a payload of len bytes stored at p (NULL: zeros). */
static inline const uint8_t *cs__payload_bytes(const uint8_t *p, uint32_t len)
{
    return p || len == 0 ? p : cs__zero_payload;
}

/* The bid of the record in slot (0 without a money entry). */
static inline cs_u128 cs__rec_bid(const cs_sched_t *s, uint32_t slot)
{
    uint32_t m = s->pool[slot].money;
    return m == CS_NIL ? 0 : s->money[m].bid;
}

/* The expiry height of the record in slot (CIP-1 rev §9; 0 = never, as
 * without a money entry). */
static inline uint64_t cs__rec_expires_at(const cs_sched_t *s, uint32_t slot)
{
    uint32_t m = s->pool[slot].money;
    return m == CS_NIL ? 0 : s->money[m].expires_at;
}

/* The fee payer of the record in slot (CIP-1 rev §6; the owner without a
 * money entry). */
static inline uint32_t cs__rec_payer(const cs_sched_t *s, uint32_t slot)
{
    uint32_t m = s->pool[slot].money;
    return m == CS_NIL ? s->pool[slot].actor : s->money[m].fee_payer;
}

/* The interned handler of the record in slot (0 = "handle_timer"). */
static inline uint32_t cs__rec_handler(const cs_sched_t *s, uint32_t slot)
{
    uint32_t m = s->pool[slot].money;
    return m == CS_NIL ? 0 : s->money[m].handler;
}

/* The money entry of the record in slot, or NULL without one. */
static inline cs_timer_money_t *cs__rec_money(const cs_sched_t *s, uint32_t slot)
{
    uint32_t m = s->pool[slot].money;
    return m == CS_NIL ? NULL : &s->money[m];
}

/* Prefetch what the end-of-block loops read of the record in slot (its
 * hot and cold parts) and, once the cold part of the record in slot2 has
 * arrived (it was prefetched earlier in the walk), its money entry.  The
 * candidates of a block sit in slots all over the pool: without this every
 * one costs several cache misses in a row (performance only).  An entry
 * may straddle two lines (the arrays are 16-byte aligned): both ends.  A macro:
 * GCC drops calls to a function that only prefetches, as having no effect. */
#define CS__PREFETCH_REC(s, slot, slot2)                                            \
    do {                                                                           \
        const char *pf_c_ = (const char *)&(s)->pool[(slot)];                      \
        uint32_t pf_m_ = (s)->pool[(slot2)].money;                                 \
        __builtin_prefetch(&(s)->hot[(slot)]);                                     \
        __builtin_prefetch(pf_c_);                                                 \
        __builtin_prefetch(pf_c_ + sizeof(cs_timer_t) - 1);                        \
        if (pf_m_ != CS_NIL) {                                                     \
            __builtin_prefetch(&(s)->money[pf_m_]);                                \
            __builtin_prefetch((const char *)&(s)->money[pf_m_] + sizeof(cs_timer_money_t) - 1); \
        }                                                                          \
    } while (0)
/* Prefetch the ledger entries (balance, escrow) of the payer of the record
 * in slot, whose money entry was prefetched earlier in the walk. */
#define CS__PREFETCH_PAYER(s, slot, bal, esc, n)                                    \
    do {                                                                           \
        uint32_t pf_p_ = cs__rec_payer((s), (slot));                               \
        if (pf_p_ < (n)) {                                                         \
            __builtin_prefetch(&(bal)[pf_p_]);                                     \
            __builtin_prefetch(&(esc)[pf_p_]);                                     \
        }                                                                          \
    } while (0)
#define CS__PF_AHEAD 16u /* slots ahead the record is prefetched; its money entry half as far,
                         * the payer's ledger entries a quarter */

#define CS_TF_INSET 0x10u /* candidate of the block being cleared */
#define CS_TF_GC 0x20u    /* waiting in the GC queue */
#define CS_TF_GC_FUNDS 0x40u /* ... for insufficient funds (else TTL) */

void cs__setsum_update(cs_sched_t *s, uint32_t slot, int add);
void cs__remove_record(cs_sched_t *s, uint32_t slot);
int cs__requeue(cs_sched_t *s, uint32_t slot);
void cs__retired_release(cs_sched_t *s);
void cs__slots_compact(cs_sched_t *s);

#endif /* CS_SCHED_INT_H */
