/*
 * cs_book.h -- schedule-time booking: mechanisms that price and place a
 * timer when it is scheduled, not when it fires (issue 28; DESIGN-NOTES
 * N72-N74).
 *
 * Two chains run on-chain timers this way today, and cowsim compares them
 * with the Cowboy rules on identical demand:
 *   slot-booking      Massa's deferred calls: a call books its gas in one
 *                     future slot at a price fixed now (a per-slot base
 *                     price set by a controller, plus overbooking fees),
 *                     and is guaranteed to run there.
 *   priority-classes  Flow's scheduled transactions: High, Medium and Low
 *                     classes with per-slot effort reserves and a fee that
 *                     is the execution fee times the class multiplier.
 *
 * Protocol between the caller (the engine) and a booking mechanism:
 *   1. cs_sched_quote: what booking `want` would get (slot, class, price)
 *      or why it is refused.  A pure query: nothing changes.
 *   2. The caller (an agent's choice) schedules the timer due at the
 *      quote's slot, with the quote's price as its escrowed bid (CS_MF_BID:
 *      locked at schedule, paid at the fire, released on cancel) and the
 *      quote's class as its tier hint (cs_cand_t.klass at clearing).
 *   3. cs_sched_book records the booking once the schedule has committed;
 *      cs_sched_unbook frees it when the timer is cancelled.
 * Clearing then fires a slot's bookings first (they fit by construction)
 * and whatever was not booked (interval re-fires, watch timers, Low) from
 * what the lane has left, every fire under the
 * lane budget and the fire caps of every other rule (N57), each paying the
 * CIP-3 execution fee at the fire (N58) and its booking price on top.
 *
 * The pricing formulas are exported as pure functions so that tests can
 * check them against hand-computed values.  Integers only.
 */
#ifndef CS_BOOK_H
#define CS_BOOK_H

#include "cs_params.h"
#include "cs_types.h"

/* Booking classes (the record's tier hint under a booking mechanism). */
typedef enum cs_book_class {
    CS_BOOK_NONE = 0,   /* not booked: runs from what the slot has left */
    CS_BOOK_LOW = 1,    /* priority-classes Low: opportunistic, after its slot */
    CS_BOOK_MEDIUM = 2, /* priority-classes Medium: placed in the first slot with room */
    CS_BOOK_HIGH = 3,   /* priority-classes High, or a slot-booking booking: guaranteed */
    CS_BOOK__COUNT
} cs_book_class;
const char *cs_book_class_name(int k); /* "none", "low", "medium", "high" */

/* Why a booking was refused (0 = booked). */
typedef enum cs_book_refusal {
    CS_BOOKR_OK = 0,
    CS_BOOKR_FULL,      /* the slot (or the class's reserve and pool) has no room */
    CS_BOOKR_WINDOW,    /* the slot is beyond the booking window */
    CS_BOOKR_TOO_LARGE, /* the gas is above a slot's capacity or a call's maximum effort */
    CS_BOOKR_DECLINED,  /* the caller stayed out: no offer was worth its price */
    CS_BOOKR__COUNT
} cs_book_refusal;
const char *cs_book_refusal_name(int r); /* "ok", "full", "window", "too_large", "declined" */

/* A booking request at schedule time. */
typedef struct cs_quote_req {
    uint64_t want;          /* requested slot (due height), > the current height */
    uint64_t gas;           /* cycles to book (the gas limit) */
    uint8_t klass;          /* class asked for (priority-classes); ignored by slot-booking */
    cs_u128 basefee_cycle;  /* CIP-3 cycle basefee now (the execution-fee schedule) */
} cs_quote_req_t;

/* The answer. */
typedef struct cs_quote {
    uint8_t refused;        /* cs_book_refusal; CS_BOOKR_OK = an offer */
    uint8_t klass;          /* class of the offer */
    uint64_t slot;          /* slot the timer is due at (Low: the requested one) */
    uint64_t expect;        /* slot it is expected to run at (Low: later, by recent waits) */
    uint64_t gas;           /* cycles booked */
    cs_u128 price;          /* price paid at the fire, escrowed at schedule */
    cs_u128 base;           /* slot-booking: the slot's base price per cycle; else 0 */
} cs_quote_t;

/*
 * Slot overbooking fee (Massa): P * (relu(o + r - T)^2 - relu(o - T)^2) /
 * (S - T)^2, floored, with relu(x) = max(x, 0): zero while the booking
 * stays below the target occupancy T, quadratic above it, P when r takes
 * the whole supply S from T.  S > T required (else 0).  Exact in 256-bit
 * arithmetic; saturates at CS_U128_MAX.
 */
cs_u128 cs_book_overbooking(uint64_t S, uint64_t T, uint64_t o, uint64_t r, cs_u128 P);

/*
 * The base price per cycle of the slot that enters the window (Massa),
 * from the previous slot's base `prev` and the window's mean booked gas
 * `avg` against `target`: with d = |avg - target|,
 *   step = max(prev * d / (target * D), min_step)   when d > 0, else 0,
 * up when avg > target, down otherwise, clamped to [floor, cap]
 * (DESIGN-NOTES N73: the issue's |avg - target| / D read as EIP-1559's
 * relative change, which the base fee it describes follows).
 */
cs_u128 cs_book_base_next(cs_u128 prev, uint64_t avg, uint64_t target, uint64_t denom, cs_u128 min_step,
                          cs_u128 floor, cs_u128 cap);

/* Resolved slot-booking parameters of p for a lane (the defaults of N72). */
typedef struct cs_slot_cfg {
    uint64_t window;        /* W */
    uint64_t cap;           /* C, cycles per slot */
    uint64_t max_fires;     /* fires a slot may book (max_fires_per_block), 0 = no limit */
    cs_u128 p_slot;         /* slot overbooking penalty */
    cs_u128 p_global;       /* window overbooking penalty */
} cs_slot_cfg_t;
void cs_book_slot_cfg(const cs_params_t *p, cs_slot_cfg_t *cfg);

/* Priority-classes effort limits of p in cycles: x effort units are
 * floor(x * lane_timer_cycles / class_slot_effort) cycles (N74). */
typedef struct cs_class_cfg {
    uint64_t window;        /* slots ahead a call may be placed */
    uint64_t high, medium;  /* reserves */
    uint64_t shared;        /* pool shared by High and Medium */
    uint64_t low;           /* most Low takes of what is left */
    uint64_t slot;          /* a slot's effort */
    uint64_t max_call;      /* most cycles of one call */
    uint64_t max_fires;     /* fires a slot may book, 0 = no limit */
} cs_class_cfg_t;
void cs_book_class_cfg(const cs_params_t *p, cs_class_cfg_t *cfg);

/* Priority-classes fee: gas x basefee_cycle x (class multiplier - 1), the
 * class's premium over the execution fee every fire pays (N74). */
cs_u128 cs_book_class_price(const cs_params_t *p, int klass, uint64_t gas, cs_u128 basefee_cycle);

#endif /* CS_BOOK_H */
