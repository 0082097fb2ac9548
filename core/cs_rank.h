/*
 * cs_rank.h -- the persistent ranking of carried timers (issue 26, N80):
 * instead of collecting and re-sorting every deferred timer each block,
 * eip1559's carried timers stay in indexed heaps across blocks and each
 * block takes from the top only as many as can change the outcome.
 * Internal to the scheduler (cs_eob.c); see DESIGN-NOTES N80-N82.
 *
 * The order is CIP-1 rev §3 step 7's: effective_priority = W x
 * min(max_priority, max_fee - basefee_lane) descending, then timer_id,
 * then schedule_block ascending; a timer below the basefee has priority 0.
 * With W the same for everyone (w_min = w_max) and fixed fee caps, the
 * basefee only decides which of three classes a timer is in:
 *   U (uncapped, max_fee - max_priority >= basefee): ordered by max_priority;
 *   C (capped, basefee <= max_fee < basefee + max_priority): ordered by
 *     max_fee (its rate max_fee - basefee is a common shift);
 *   B (below, max_fee < basefee): priority 0, ordered by id.
 * Within each class the class order is the rule's order at any basefee,
 * so the three heads merged by the rule's comparator give the exact order.
 * Threshold heaps move timers between classes when the basefee moves;
 * an expiry heap finds expired carried timers when they expire.
 */
#ifndef CS_RANK_H
#define CS_RANK_H

#include <stdint.h>

#include "cs_types.h"

struct cs_sched;

enum {
    CS__RK_ORD_U = 0, /* class U by max_prio desc, id, sched_height */
    CS__RK_ORD_C,     /* class C by max_fee desc, id, sched_height */
    CS__RK_ORD_B,     /* class B by id, sched_height */
    CS__RK_THR_U,     /* class U, min max_fee - max_prio (leaves U when < basefee) */
    CS__RK_THR_C,     /* class C, max max_fee - max_prio (joins U when >= basefee) */
    CS__RK_FEE_C,     /* class C, min max_fee (joins B when < basefee) */
    CS__RK_FEE_B,     /* class B, max max_fee (leaves B when >= basefee) */
    CS__RK_EXP,       /* members with a TTL, min expires_at */
    CS__RK_DUE,       /* this block's eligible due timers, in the rule's order */
    CS__RK_NHEAP
};

/* A heap entry: its keys inline, so sifting reads no timer record. */
typedef struct cs__rk_ent {
    cs_u128 k1;    /* the heap's key (cs_rank.c) */
    uint64_t k2;   /* order heaps: the timer id's first 8 bytes */
    uint32_t slot; /* the member */
} cs__rk_ent_t;

typedef struct cs__rk_heap {
    cs__rk_ent_t *a; /* entries, a[0] the top */
    size_t n, cap;
} cs__rk_heap_t;

typedef struct cs__rank {
    int valid;                      /* the heaps hold every carried timer */
    cs__rk_heap_t h[CS__RK_NHEAP];
    uint32_t *pos[CS__RK_NHEAP];    /* per slot: position in heap k */
    uint8_t *cls;                   /* per slot: 0 not a member, 1 U, 2 C, 3 B */
    uint64_t *since;                /* per slot: first block it was deferred without a row */
    uint32_t *sil;                  /* per slot: silent deferrals not yet reported */
    cs_u128 *mf, *mp;               /* per slot: max_fee, max_prio */
    uint64_t *exp;                  /* per slot: expires_at (0 = never) */
    size_t cap;                     /* slots the per-slot arrays hold */
    size_t n;                       /* members */
    cs_u128 bf;                     /* basefee the classes are for */
    uint64_t gmin, gmax, cmax;      /* bounds over members since the build: cycles, cells */
    cs_u128 fmax;                   /* max max_fee over members since the build */
    uint32_t *acnt;                 /* per account: members it pays for */
    size_t acap;
} cs__rank_t;

/* Release every array. */
void cs__rank_free(cs__rank_t *r);
/* Whether slot can be a member: fixed fee caps below 2^64. */
int cs__rank_indexable(const struct cs_sched *s, uint32_t slot);
/* Add carried timer slot (deferred without a row from block `since` on),
 * classed at r->bf.  CS_OK, or CS_ENOMEM (the caller must then
 * cs__rank_drop). */
int cs__rank_add(struct cs_sched *s, uint32_t slot, uint64_t since);
/* Take slot out of the heaps if it is a member; its silent deferrals up
 * to block `upto` (exclusive) are kept in sil[slot]; returns them. */
uint32_t cs__rank_del(struct cs_sched *s, uint32_t slot, uint64_t upto);
/* Re-class every member whose class changed at basefee bf.  CS_OK, or
 * CS_ENOMEM (the caller must then cs__rank_drop). */
int cs__rank_rebase(struct cs_sched *s, cs_u128 bf);
/* The first member in the rule's order at r->bf, CS_NIL when empty. */
uint32_t cs__rank_top(const struct cs_sched *s);
/* The member with the smallest expires_at, CS_NIL when none has one. */
uint32_t cs__rank_next_expiry(const struct cs_sched *s);
/* The rule's per-cycle rate of slot at r->bf: min(max_prio, max_fee -
 * basefee), 0 below the basefee (CIP-1 rev §3 step 6, W aside). */
cs_u128 cs__rank_rate(const struct cs_sched *s, uint32_t slot);
/* Does slot a come before slot b in the rule's order at r->bf (both with
 * mf/mp set: members, or due timers pushed by cs__rank_due_push)? */
int cs__rank_before(const struct cs_sched *s, uint32_t a, uint32_t b);
/* Put due timer slot (indexable, not a member) in the due heap.  CS_OK or
 * CS_ENOMEM. */
int cs__rank_due_push(struct cs_sched *s, uint32_t slot);
/* The first of the due heap (CS_NIL when empty), and its removal. */
uint32_t cs__rank_due_pop(struct cs_sched *s);
/* Re-read a member's expires_at after SYS_EXTEND (no-op for others). */
void cs__rank_set_expiry(struct cs_sched *s, uint32_t slot);
/* Drop every member (their silent deferrals up to `upto` go to sil[]);
 * members are found through the carry set. */
void cs__rank_drop(struct cs_sched *s, uint64_t upto);

#endif /* CS_RANK_H */
