/*
 * cs_ledger.h -- balances, escrow, burn and proposer revenue, and the
 * timer-accounting tally (DESIGN §2.6; CIP-1 rev §3 step 8, §9; CIP-5 §9.7).
 *
 * Accounts are indexed by uint32_t (the pipeline interns actors and fee
 * payers).  Every amount is an unsigned 128-bit count of base units and all
 * arithmetic is checked: an operation that would overflow returns
 * CS_EOVERFLOW, one that would take more than an account holds returns
 * CS_EINSUFFICIENT_FUNDS, and in both cases (and on every other error) the
 * ledger is left exactly as it was.
 *
 * Value only moves between five places, so conservation holds by
 * construction and cs_ledger_check() can verify it at any time:
 *
 *   Σ balances + escrow + burned + proposer == initial + minted
 *
 * Ownership: the caller owns the cs_ledger_t object (stack or embedded);
 * cs_ledger_init() allocates nothing, cs_ledger_reserve() and any credit to
 * a new account index allocate the account arrays, cs_ledger_free()
 * releases them.  Call cs_ledger_reserve() once with the number of accounts
 * so that the per-block hot path (settlement, escrow) never allocates.
 */
#ifndef CS_LEDGER_H
#define CS_LEDGER_H

#include "cs_error.h"
#include "cs_types.h"

/* Running totals.  initial + minted is all value ever created; the other
 * three plus the balances say where it is now. */
typedef struct cs_ledger_totals {
    cs_u128 initial;  /* Σ amounts credited by cs_ledger_fund (endowments) */
    cs_u128 minted;   /* Σ amounts credited by cs_ledger_mint (issuance in the run) */
    cs_u128 burned;   /* Σ amounts destroyed (basefees; tips/payments if D9 = burn) */
    cs_u128 proposer; /* Σ amounts paid to block proposers (tips, auction payments) */
    cs_u128 escrow;   /* Σ amounts locked in escrow (bias-mechanism bids, CIP-5 §9.7) */
} cs_ledger_totals_t;

typedef struct cs_ledger {
    cs_u128 *bal;           /* spendable balance per account, n entries */
    cs_u128 *esc;           /* amount locked in escrow per account, n entries */
    uint32_t n;             /* accounts in use: indices 0..n-1 */
    uint32_t cap;           /* entries allocated in bal and esc */
    cs_ledger_totals_t tot; /* running totals (read freely; do not write) */
} cs_ledger_t;

/* Where a charge or escrow payment goes. */
typedef enum cs_ledger_dest {
    CS_DEST_BURN = 0,    /* destroyed: adds to tot.burned */
    CS_DEST_PROPOSER = 1 /* block proposer revenue: adds to tot.proposer */
} cs_ledger_dest;

/* The destination for tips and auction payments under payments_to (D9):
 * CS_PAY_PROPOSER -> CS_DEST_PROPOSER, anything else -> CS_DEST_BURN. */
cs_ledger_dest cs_ledger_dest_of(uint32_t payments_to);

/* Make l an empty ledger (no accounts, zero totals).  Never fails. */
void cs_ledger_init(cs_ledger_t *l);
/* Release the account arrays and reset l to empty.  Safe on an empty or
 * already-freed ledger. */
void cs_ledger_free(cs_ledger_t *l);
/* Ensure accounts 0..n-1 exist (new ones have zero balance and escrow).
 * Returns CS_OK, or CS_ENOMEM with l unchanged. */
int cs_ledger_reserve(cs_ledger_t *l, uint32_t n);

/* Balance / escrow of account a; 0 for an index never credited. */
cs_u128 cs_ledger_balance(const cs_ledger_t *l, uint32_t a);
cs_u128 cs_ledger_escrowed(const cs_ledger_t *l, uint32_t a);

/* Credit amt to account a as an initial endowment (adds to tot.initial).
 * Grows the account table if needed.  CS_EOVERFLOW if the balance or the
 * total would overflow, CS_ENOMEM if growing failed; l unchanged then. */
int cs_ledger_fund(cs_ledger_t *l, uint32_t a, cs_u128 amt);
/* The same, counted as issuance during the run (adds to tot.minted). */
int cs_ledger_mint(cs_ledger_t *l, uint32_t a, cs_u128 amt);

/* Move amt from account from to account to (to may be a new index).
 * CS_EINSUFFICIENT_FUNDS if from holds less than amt; CS_EOVERFLOW or
 * CS_ENOMEM as for fund.  from == to is a no-op after the funds check. */
int cs_ledger_transfer(cs_ledger_t *l, uint32_t from, uint32_t to, cs_u128 amt);

/* Take amt from account a and send it to dest (burn or proposer).
 * CS_EINSUFFICIENT_FUNDS / CS_EOVERFLOW / CS_EINVAL (bad dest, or a never
 * credited account with amt > 0 gives CS_EINSUFFICIENT_FUNDS). */
int cs_ledger_charge(cs_ledger_t *l, uint32_t a, cs_u128 amt, cs_ledger_dest dest);
/* Shorthands for cs_ledger_charge. */
int cs_ledger_charge_burn(cs_ledger_t *l, uint32_t a, cs_u128 amt);
int cs_ledger_charge_proposer(cs_ledger_t *l, uint32_t a, cs_u128 amt);

/*
 * Escrow (CIP-5 §9.7: "the bid is locked at scheduling time and refunded
 * (minus payment) or fully consumed").  Escrow is kept per account; the
 * per-timer amount is the caller's record (the timer's bid).
 *   lock:    balance(a) -> escrow(a)           CS_EINSUFFICIENT_FUNDS if short
 *   release: escrow(a)  -> balance(a) (refund) CS_EINSUFFICIENT_FUNDS if
 *            escrow(a) < amt
 *   pay:     escrow(a)  -> dest                same
 *   settle:  pay `payment` to dest and release `locked - payment`, atomically;
 *            CS_EINVAL if payment > locked or dest is unknown.
 * All four leave l unchanged on error; CS_EOVERFLOW if a sum would
 * overflow, CS_EINVARIANT if the escrow total is below an account's
 * escrow (a corrupted ledger).
 */
int cs_ledger_escrow_lock(cs_ledger_t *l, uint32_t a, cs_u128 amt);
int cs_ledger_escrow_release(cs_ledger_t *l, uint32_t a, cs_u128 amt);
int cs_ledger_escrow_pay(cs_ledger_t *l, uint32_t a, cs_u128 amt, cs_ledger_dest dest);
int cs_ledger_escrow_settle(cs_ledger_t *l, uint32_t a, cs_u128 locked, cs_u128 payment,
                            cs_ledger_dest dest);

/*
 * Per-fire fee settlement (CIP-1 rev §3 step 8, extending CIP-5 §6.3).
 * The caller fills the inputs; the rates are per cycle / per cell, in base
 * units.  Which rates apply is the pipeline's decision:
 *   - basefee_cycle: the CIP-3 cycle basefee (0 under lane_basefee_mode =
 *     replace, D3; see cs_basefee_fire_rates);
 *   - basefee_lane:  the charged lane basefee (after lane_fee_multiplier);
 *   - tip_rate:      priority_per_cycle = min(max_prio, max_fee - basefee_lane);
 *   - lump:          a lump-sum payment charged from the balance (score rule
 *                    payments); escrowed bids settle with cs_ledger_escrow_*.
 * Rules, exactly as the spec:
 *   max_cost = gas_limit * (basefee_cycle + basefee_lane + tip_rate)
 *            + max_cells * basefee_cell + lump                (pre-charge)
 *   actual   = used_cycles * (basefee_cycle + basefee_lane + tip_rate)
 *            + used_cells * basefee_cell + lump
 *   refund   = max_cost - actual                    (unused cycles and cells)
 *   burn     = used_cycles * (basefee_cycle + basefee_lane) + used_cells * basefee_cell
 *   tip + lump go to the proposer, or are burned when payments_to = burn (D9).
 * Refunding unused cells as well as unused cycles is our reading: the
 * pre-charge reserves both, and CIP-5 §6.3 refunds what was not consumed.
 */
typedef struct cs_fire_charge {
    uint64_t gas_limit;    /* cycles limit per fire (gas_limit_per_fire) */
    uint64_t max_cells;    /* cells limit per fire (max_cells_per_fire) */
    uint64_t used_cycles;  /* cycles the handler used, <= gas_limit */
    uint64_t used_cells;   /* cells the handler used, <= max_cells */
    cs_u128 basefee_cycle; /* CIP-3 cycle basefee per cycle, burned */
    cs_u128 basefee_lane;  /* charged timer-lane basefee per cycle, burned (CIP-1 rev §5) */
    cs_u128 tip_rate;      /* priority_per_cycle, to payments_to */
    cs_u128 basefee_cell;  /* CIP-3 cell basefee per cell, burned */
    cs_u128 lump;          /* lump-sum payment per fire, to payments_to; 0 if none */
    uint32_t payments_to;  /* CS_PAY_PROPOSER or CS_PAY_BURN (D9) */
} cs_fire_charge_t;

/* What one settlement did (all in base units). */
typedef struct cs_fire_bill {
    cs_u128 max_cost;    /* pre-charged amount */
    cs_u128 actual;      /* amount kept: burn + tip + lump */
    cs_u128 refund;      /* max_cost - actual, returned to the payer */
    cs_u128 burn_cycle;  /* used_cycles * basefee_cycle (burned) */
    cs_u128 burn_lane;   /* used_cycles * basefee_lane (burned; lane telemetry) */
    cs_u128 burn_cell;   /* used_cells * basefee_cell (burned) */
    cs_u128 tip;         /* used_cycles * tip_rate */
    cs_u128 lump;        /* the lump-sum payment */
    cs_u128 to_proposer; /* tip + lump when payments_to = proposer, else 0 */
    cs_u128 burned;      /* everything burned by this fire */
} cs_fire_bill_t;

/* max_cost of c into *out (CIP-1 rev §3 step 8).  The pipeline uses it for
 * lifecycle classification (balance < max_cost -> GC lane, CIP-1 rev §9).
 * CS_EOVERFLOW if it does not fit in 128 bits (*out untouched). */
int cs_ledger_max_cost(const cs_fire_charge_t *c, cs_u128 *out);

/* Settle one fire paid by account payer.  On success fills *bill (if not
 * NULL) and moves the value.  Errors, all leaving l and *bill untouched:
 * CS_EINVAL if used_cycles > gas_limit or used_cells > max_cells;
 * CS_EOVERFLOW if max_cost does not fit (or a total would overflow);
 * CS_EINSUFFICIENT_FUNDS if balance(payer) < max_cost. */
int cs_ledger_settle_fire(cs_ledger_t *l, uint32_t payer, const cs_fire_charge_t *c,
                          cs_fire_bill_t *bill);

/* Verify conservation (Σbalances + escrow + burned + proposer == initial +
 * minted) and that the per-account escrows sum to tot.escrow.  CS_OK, or
 * CS_EINVARIANT with a one-line description of the first mismatch written
 * to msg (NUL-terminated, truncated to cap; msg may be NULL if cap is 0).
 * O(accounts); meant for --check-invariants and tests. */
int cs_ledger_check(const cs_ledger_t *l, char *msg, size_t cap);

/*
 * Timer accounting (DESIGN §2.6): every timer ever scheduled is in exactly
 * one state, so
 *   scheduled == fired + expired + insufficient + cancelled + pending
 * where `fired` counts terminal one-shot completions only.  Interval timers
 * fire many times and stay pending, so each fire is counted in `fire_events`
 * (outside the identity) and only the terminal outcome moves a timer out of
 * `pending`.  The pipeline increments the counters; the struct is plain data
 * (zero it to start).
 */
typedef struct cs_tally {
    uint64_t scheduled;    /* timers accepted by schedule_timer */
    uint64_t fired;        /* one-shot timers that fired and were removed */
    uint64_t expired;      /* destroyed by TTL in the GC lane (CIP-1 rev §9 path 2) */
    uint64_t insufficient; /* destroyed for insufficient funds (path 3) */
    uint64_t cancelled;    /* cancelled by the actor or the validator set (path 4) */
    uint64_t pending;      /* scheduled and not yet in a terminal state */
    uint64_t fire_events;  /* every fire, one-shot or interval (not in the identity) */
} cs_tally_t;

/* Terminal outcomes for cs_ledger_tally_end. */
typedef enum cs_tally_outcome {
    CS_TALLY_FIRED = 0,        /* a one-shot completion (no fire event added) */
    CS_TALLY_EXPIRED = 1,      /* TTL expiry */
    CS_TALLY_INSUFFICIENT = 2, /* insufficient funds */
    CS_TALLY_CANCELLED = 3     /* explicit cancellation */
} cs_tally_outcome;

/* A timer was scheduled: scheduled++, pending++.  CS_EOVERFLOW at 2^64. */
int cs_ledger_tally_schedule(cs_tally_t *t);
/* A timer fired: fire_events++; when terminal (a one-shot timer, or the
 * last fire of an interval), also fired++ and pending--.  CS_EINVARIANT if
 * terminal and nothing is pending (t unchanged). */
int cs_ledger_tally_fire(cs_tally_t *t, int terminal);
/* A pending timer reached terminal outcome o: that counter++, pending--.
 * CS_EINVARIANT if nothing is pending, CS_EINVAL for an unknown o (t
 * unchanged). */
int cs_ledger_tally_end(cs_tally_t *t, cs_tally_outcome o);
/* Verify the identity, and, unless live_pending is UINT64_MAX, that
 * t->pending equals live_pending (the queue's actual count).  CS_OK or
 * CS_EINVARIANT with a description in msg (as for cs_ledger_check). */
int cs_ledger_tally_check(const cs_tally_t *t, uint64_t live_pending, char *msg, size_t cap);

#endif /* CS_LEDGER_H */
