/*
 * cs_sched_book.h -- the scheduler's entry points of schedule-time booking
 * (cs_book.h; issue 28).  They forward to the mechanism's quote / book /
 * unbook / slot_base hooks; the caller schedules the timer itself, due at
 * the quote's slot, with the quote's price as its bid and its class as
 * its tier hint, and books once the schedule has committed.
 */
#ifndef CS_SCHED_BOOK_H
#define CS_SCHED_BOOK_H

#include "cs_book.h"
#include "cs_sched_types.h"

/* What booking q in the current block would get (nothing is booked).
 * CS_OK with *out filled (out->refused says whether it is an offer), or
 * CS_EINVAL when the mechanism does not book (CS_MF_BOOK) or q->gas = 0. */
int cs_sched_quote(cs_sched_t *s, const cs_quote_req_t *q, cs_quote_t *out);
/* Record the offer q (made by cs_sched_quote in this block) for a timer
 * just scheduled.  CS_OK, CS_EBOOKING_REFUSED if it no longer fits, or
 * CS_EINVAL. */
int cs_sched_book(cs_sched_t *s, const cs_quote_t *q);
/* Free the booking of a timer just cancelled before its slot (booked in
 * slot, class klass, gas cycles, at price, paid by interned actor payer):
 * the cancel released its escrow; the part of the price the rule keeps
 * (slot_cancel_refund, class_cancel_refund) is debited from payer now,
 * burned and counted as a cancel cost (/blocks and /actors cancel_cost).
 * Returns that part. */
cs_u128 cs_sched_unbook(cs_sched_t *s, uint64_t slot, uint8_t klass, uint64_t gas, cs_u128 price, uint32_t payer);
/* The base price per cycle of slot (slot-booking), 0 when it has none. */
cs_u128 cs_sched_slot_base(cs_sched_t *s, uint64_t slot);

#endif /* CS_SCHED_BOOK_H */
