/*
 * cs_mech.h -- allocation and payment rules behind one ops table
 * (DESIGN §2.4, STYLE §2-3).
 *
 * A mechanism clears one block: given the candidates that survived
 * lifecycle classification (DESIGN §2.3 step 4), it orders them, selects
 * the winners under the lane budget and caps, and prices each winner.  It
 * does not touch the ledger or the queue: the pipeline (cs_sched) settles
 * what the mechanism decided, so the same clearing code serves the
 * simulator, `cowsim clear` and the benchmarks.
 *
 * Ownership: cs_mech_open allocates the instance state (ops->state_size
 * bytes, plus whatever init allocates); cs_mech_close releases both.
 * Workspaces sized in cs_mech_reserve are reused every block, so clearing
 * does not allocate on the hot path.
 */
#ifndef CS_MECH_H
#define CS_MECH_H

#include "cs_error.h"
#include "cs_params.h"
#include "cs_types.h"

/* Why a candidate did not fire this block (also used for /fires, clear). */
typedef enum cs_why {
    CS_WHY_NONE = 0,     /* selected */
    CS_WHY_BUDGET,       /* lane budget exhausted */
    CS_WHY_OVER_CAP,     /* gas limit above the per-fire cap (CIP-1 rev §10) */
    CS_WHY_BLOCK_QUOTA,  /* MAX_FIRES_PER_BLOCK reached */
    CS_WHY_ACTOR_QUOTA,  /* MAX_FIRES_PER_ACTOR / _TARGET reached */
    CS_WHY_FUNDS,        /* fee payer cannot cover the price */
    CS_WHY_BELOW_BASEFEE,/* max_fee below the lane basefee */
    CS_WHY_SLICE,        /* gba-tip per-actor budget slice used up */
    CS_WHY_RESERVE,      /* bid below reserve_price (bias-*, CIP-5 §9.5) */
    CS_WHY__COUNT
} cs_why;
const char *cs_why_name(int why); /* "budget", "cap", ... */

/* One candidate of one block's clearing. Inputs are filled by the caller;
 * outputs by the mechanism. */
typedef struct cs_cand {
    /* inputs */
    uint32_t slot;         /* caller's handle (record slot or input index) */
    uint32_t target;       /* owner actor index: per-actor caps, round robin */
    uint32_t ident;        /* fairness identity (actor or deployer, D12) */
    uint32_t deferrals;    /* n, blocks deferred so far (CIP-5 §9.2) */
    uint64_t due_height;   /* height the timer became due */
    uint64_t sched_height; /* schedule_block, eip1559 tie-break */
    uint64_t fifo_rank;    /* insertion rank (CIP-5 CN §6.1) */
    cs_hash_t id;          /* timer_id; last key of every total order */
    uint64_t cycles;       /* gas_limit: what the budget reserves */
    cs_u128 bid;           /* bid (score, bias-*), base units per fire */
    cs_u128 max_fee;       /* max_fee_per_cycle (eip1559, gba-tip) */
    cs_u128 max_prio;      /* max_priority_fee_per_cycle */
    cs_u128 balance;       /* fee payer balance available for this fire */
    uint64_t weight;       /* W(actor) in ppm (1e6 = 1.0); 0 means "use 1.0" */
    uint64_t use_cycles;   /* cycles the funds test prices (gba-tip), 0 = cycles */
    uint64_t use_cells;    /* cells the funds test prices (gba-tip) */
    uint8_t klass;         /* booking class (cs_book_class, the record's tier hint): booking
                            * mechanisms only */
    /* outputs */
    uint8_t selected;      /* 1 if it fires this block */
    uint8_t why;           /* cs_why for a loser */
    uint32_t rank;         /* 0-based position in the mechanism's order */
    cs_u128 priority;      /* the sort key actually used (mechanism units) */
    cs_u128 prio_rate;     /* per-cycle priority tip charged (eip1559, gba-tip) */
    cs_u128 payment;       /* lump-sum auction payment (score, bias-*) */
    cs_u128 critical;      /* critical bid (bias-*), else 0 */
} cs_cand_t;

/* Per-block context handed to the mechanism. */
typedef struct cs_clear_ctx {
    const cs_params_t *p;     /* parameters in force this block */
    uint64_t height;          /* h */
    cs_u128 basefee_lane;     /* lane basefee per cycle (CIP-1 rev §5) */
    cs_u128 basefee_cycle;    /* CIP-3 cycle basefee */
    cs_u128 basefee_cell;     /* CIP-3 cell basefee */
    uint64_t budget_cycles;   /* lane cycles available this block */
} cs_clear_ctx_t;

/* Totals of one clearing. */
typedef struct cs_clear_out {
    uint64_t cycles_used;     /* sum of winners' cycles (reserved) */
    uint32_t fired;           /* winners */
    uint32_t deferred;        /* losers */
    cs_u128 payments;         /* sum of lump-sum payments */
    cs_u128 bias_prio;        /* bias part of winners' priority (lambda loop) */
    cs_u128 total_prio;       /* total winners' priority (lambda loop) */
} cs_clear_out_t;

#define CS_MF_FEES 0x01u      /* charges per-cycle fees from fee_payer (CIP-1 rev §3 step 8) */
#define CS_MF_BID 0x02u       /* uses an escrowed bid (CIP-5 §9.7) */
#define CS_MF_BUDGET 0x04u    /* selects under the lane budget */
#define CS_MF_DEFER_FUNDS 0x08u /* insufficient funds defers instead of GC (D10) */
#define CS_MF_REFERENCE 0x10u /* reference allocator (greedy): bids are true values, never charged */
#define CS_MF_BOOK 0x20u      /* prices and places at schedule time (quote/book hooks, cs_book.h) */
#define CS_MF_CLASSES 0x40u   /* ... by class (priority-classes), not by slot (slot-booking) */

struct cs_quote_req; /* cs_book.h */
struct cs_quote;     /* cs_book.h */

typedef struct cs_mech_ops {
    const char *name;      /* registry key, e.g. "bias-vcg" */
    int version;           /* bumped when results change */
    size_t state_size;     /* bytes of per-instance state */
    unsigned flags;        /* CS_MF_* */
    /* Set up state (zeroed, state_size bytes).  NULL = nothing to do. */
    int (*init)(void *state, const cs_params_t *p);
    /* Order, select and price c[0..n).  Required. */
    int (*clear)(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                 cs_clear_out_t *out);
    /* After settlement: feedback such as the lambda loop or EMA weights.
     * NULL = nothing. */
    void (*end_block)(void *state, const cs_clear_ctx_t *ctx, const cs_cand_t *c, size_t n,
                      const cs_clear_out_t *out);
    /* Free what init allocated.  NULL = nothing. */
    void (*fini)(void *state);
    /* Schedule-time booking (cs_book.h, issue 28); all NULL for the rules
     * that decide at fire time.  quote answers what booking q at height
     * cur (the block whose transactions run) would get, changing nothing
     * but the window it brings up to cur; book records an offer quote made
     * once its timer is scheduled (CS_EBOOKING_REFUSED if it no longer
     * fits); unbook frees a booking (cancel) and returns the part of its
     * price the rule keeps; slot_base is the base price per cycle of a
     * slot in the window (0 when it has none). */
    int (*quote)(void *state, const cs_params_t *p, uint64_t cur, const struct cs_quote_req *q,
                 struct cs_quote *out);
    int (*book)(void *state, const cs_params_t *p, uint64_t cur, const struct cs_quote *q);
    cs_u128 (*unbook)(void *state, const cs_params_t *p, uint64_t slot, uint8_t klass, uint64_t gas, cs_u128 price);
    cs_u128 (*slot_base)(void *state, const cs_params_t *p, uint64_t slot);
} cs_mech_ops_t;

typedef struct cs_mech {
    const cs_mech_ops_t *ops; /* registry entry */
    void *state;              /* owned; state_size bytes */
} cs_mech_t;

/* Registry (STYLE §3): NULL-terminated array of every mechanism. */
extern const cs_mech_ops_t *const cs_mech_registry[];
const cs_mech_ops_t *cs_mech_find(const char *name);
/* "fifo, fifo-capped, score, ..." into buf; returns buf. */
char *cs_mech_names(char *buf, size_t cap);
/* Retired names (DESIGN-NOTES N42: "oracle" is now "greedy"): the new
 * name or NULL; cs_mech_find_any also accepts a retired name (file readers
 * only); cs_mech_unknown_hint writes "valid: ..." (or "renamed 'greedy'
 * ...; valid: ...") for an unknown-name message into buf, returns buf. */
const char *cs_mech_renamed(const char *name);
const cs_mech_ops_t *cs_mech_find_any(const char *name);
char *cs_mech_unknown_hint(const char *name, char *buf, size_t cap);

int cs_mech_open(cs_mech_t *m, const cs_mech_ops_t *ops, const cs_params_t *p);
void cs_mech_close(cs_mech_t *m);
int cs_mech_clear(cs_mech_t *m, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                  cs_clear_out_t *out);
void cs_mech_end_block(cs_mech_t *m, const cs_clear_ctx_t *ctx, const cs_cand_t *c, size_t n,
                       const cs_clear_out_t *out);

#endif /* CS_MECH_H */
