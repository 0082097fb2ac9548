/*
 * test_book_edges.c -- the edges of the schedule-time booking hooks of
 * `slot-booking` and `priority-classes` (core/mech_slot.c,
 * core/mech_classes.c, DESIGN-NOTES N74, issue 28), called through the
 * mechanism's ops table as the engine does:
 *   - the fire cap (max_fires_per_block) refuses a quote and a stale offer;
 *   - book refuses an offer that was refused, is for the current slot or
 *     before, no longer fits, or names no class;
 *   - unbook of a slot outside the window, of a class that is not placed,
 *     and of more cycles than were booked frees nothing it should not, and
 *     keeps the fee less the refund share;
 *   - a class outside Low..High is quoted as Medium; the window moves on
 *     by a jump of more than W blocks.
 * Slot-booking: lane (slot cap) 1,000 cycles, W = 4.  Priority-classes:
 * 35,000 effort units = 35,000 cycles, so the reserves are the numbers
 * of cs_params.h's defaults.
 */
#include <string.h>

#include "cs_book.h"
#include "cs_mech.h"
#include "cs_test.h"

static cs_quote_t quote(cs_mech_t *m, const cs_params_t *p, uint64_t cur, uint64_t want, uint64_t gas, int k)
{
    cs_quote_req_t q = {.want = want, .gas = gas, .klass = (uint8_t)k, .basefee_cycle = 1000};
    cs_quote_t o;
    memset(&o, 0xee, sizeof o);
    CS_CHECK_EQ_U64(m->ops->quote(m->state, p, cur, &q, &o), CS_OK);
    return o;
}

static int book(cs_mech_t *m, const cs_params_t *p, uint64_t cur, const cs_quote_t *q)
{
    return m->ops->book(m->state, p, cur, q);
}

static void test_slot(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.lane_timer_cycles = 1000;
    p.max_cycles_per_fire = 1000;
    p.book_window = 4;
    p.max_fires_per_block = 2;
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("slot-booking"), &p), CS_OK);
    /* Fire cap 2: two offers of 100 for slot 11 book, a third is FULL,
     * and an offer made before them (stale) is refused by book. */
    cs_quote_t stale = quote(&m, &p, 10, 11, 100, 0);
    CS_CHECK_EQ_U64(stale.refused, CS_BOOKR_OK);
    for (int i = 0; i < 2; i++) {
        cs_quote_t q = quote(&m, &p, 10, 11, 100, 0);
        CS_CHECK_EQ_U64(book(&m, &p, 10, &q), CS_OK);
    }
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 11, 100, 0).refused, CS_BOOKR_FULL);
    CS_CHECK_EQ_U64(book(&m, &p, 10, &stale), CS_EBOOKING_REFUSED);
    /* A refused offer; an offer for the current slot (10); one that no
     * longer fits (slot 12: 900 booked, then a stale 200). */
    cs_quote_t full = quote(&m, &p, 10, 11, 1, 0);
    CS_CHECK_EQ_U64(book(&m, &p, 10, &full), CS_EBOOKING_REFUSED);
    /* Asked at cur 9 (the window, opened at 10, does not move back), slot
     * 10 is offered; booked at cur 10 it is the current slot: refused. */
    cs_quote_t now = quote(&m, &p, 9, 10, 10, 0);
    CS_CHECK_EQ_U64(now.refused, CS_BOOKR_OK);
    CS_CHECK_EQ_U64(book(&m, &p, 10, &now), CS_EBOOKING_REFUSED);
    cs_quote_t q12 = quote(&m, &p, 10, 12, 200, 0);
    cs_quote_t big = quote(&m, &p, 10, 12, 900, 0);
    CS_CHECK_EQ_U64(book(&m, &p, 10, &big), CS_OK);
    CS_CHECK_EQ_U64(book(&m, &p, 10, &q12), CS_EBOOKING_REFUSED); /* 900 + 200 > 1,000 */
    /* unbook: slot 12 with more than was booked frees it all (a full
     * 1,000 then fits); a Medium class or slot 99 (not held) frees
     * nothing; the default refund is 0, so the whole price is kept;
     * slot_cancel_refund 25 % keeps 750 of 1,000. */
    CS_CHECK(m.ops->unbook(m.state, &p, 12, CS_BOOK_MEDIUM, 900, 1000) == 1000);
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 12, 1000, 0).refused, CS_BOOKR_FULL);
    CS_CHECK(m.ops->unbook(m.state, &p, 99, CS_BOOK_HIGH, 900, 1000) == 1000);
    CS_CHECK(m.ops->unbook(m.state, &p, 12, CS_BOOK_HIGH, 5000, 1000) == 1000);
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 12, 1000, 0).refused, CS_BOOKR_OK);
    /* Its count went 1 -> 0, and a second unbook keeps it at 0: two more
     * bookings still fit under the cap of 2. */
    CS_CHECK(m.ops->unbook(m.state, &p, 12, CS_BOOK_HIGH, 1, 1000) == 1000);
    for (int i = 0; i < 2; i++) {
        cs_quote_t q = quote(&m, &p, 10, 12, 10, 0);
        CS_CHECK_EQ_U64(book(&m, &p, 10, &q), CS_OK);
    }
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 12, 10, 0).refused, CS_BOOKR_FULL);
    p.slot_cancel_refund = 250000;
    CS_CHECK(m.ops->unbook(m.state, &p, 12, CS_BOOK_HIGH, 10, 1000) == 750);
    /* A jump of 90 blocks: the window is 101..104 from cur 100. */
    CS_CHECK_EQ_U64(quote(&m, &p, 100, 100, 10, 0).refused, CS_BOOKR_WINDOW);
    CS_CHECK_EQ_U64(quote(&m, &p, 100, 101, 10, 0).refused, CS_BOOKR_OK);
    CS_CHECK_EQ_U64(quote(&m, &p, 100, 104, 10, 0).refused, CS_BOOKR_OK);
    CS_CHECK_EQ_U64(quote(&m, &p, 100, 105, 10, 0).refused, CS_BOOKR_WINDOW);
    cs_mech_close(&m);
}

static void test_classes(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.lane_timer_cycles = 35000;
    p.max_cycles_per_fire = 35000;
    p.book_window = 4;
    p.max_fires_per_block = 1;
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("priority-classes"), &p), CS_OK);
    /* Before any quote the window is not open: unbook keeps half the fee
     * (class_cancel_refund 50 %) and frees nothing. */
    CS_CHECK(m.ops->unbook(m.state, &p, 11, CS_BOOK_HIGH, 10, 1001) == 501); /* 1001 - 500 */
    /* Class 7 is quoted as Medium: premium 100 x 1,000 x (5 - 1). */
    cs_quote_t q = quote(&m, &p, 10, 11, 100, 7);
    CS_CHECK_EQ_U64(q.klass, CS_BOOK_MEDIUM);
    CS_CHECK(q.price == 400000);
    /* Fire cap 1: a High books slot 11; a second High is FULL there, a
     * Medium moves on to slot 12; a stale offer for 11 is refused. */
    cs_quote_t h = quote(&m, &p, 10, 11, 100, CS_BOOK_HIGH);
    cs_quote_t h2 = quote(&m, &p, 10, 11, 100, CS_BOOK_HIGH);
    CS_CHECK_EQ_U64(book(&m, &p, 10, &h), CS_OK);
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 11, 100, CS_BOOK_HIGH).refused, CS_BOOKR_FULL);
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 11, 100, CS_BOOK_MEDIUM).slot, 12);
    CS_CHECK_EQ_U64(book(&m, &p, 10, &h2), CS_EBOOKING_REFUSED);
    /* book: a refused offer, a Low offer (not placed: CS_OK, nothing
     * booked), an offer for a slot outside the window, an offer of no class. */
    cs_quote_t r = quote(&m, &p, 10, 11, 100, CS_BOOK_HIGH);
    CS_CHECK_EQ_U64(book(&m, &p, 10, &r), CS_EBOOKING_REFUSED);
    cs_quote_t low = quote(&m, &p, 10, 13, 100, CS_BOOK_LOW);
    CS_CHECK_EQ_U64(book(&m, &p, 10, &low), CS_OK);
    cs_quote_t out = quote(&m, &p, 10, 13, 100, CS_BOOK_HIGH);
    out.slot = 20;
    CS_CHECK_EQ_U64(book(&m, &p, 10, &out), CS_EBOOKING_REFUSED);
    out.slot = 13;
    out.klass = 9;
    CS_CHECK_EQ_U64(book(&m, &p, 10, &out), CS_EBOOKING_REFUSED);
    out.klass = CS_BOOK_HIGH;
    CS_CHECK_EQ_U64(book(&m, &p, 10, &out), CS_OK); /* slot 13 was free: the Low took nothing */
    /* unbook: Low (not placed) frees nothing; High with more than was
     * booked frees slot 11 and its count (a High fits again), twice. */
    CS_CHECK(m.ops->unbook(m.state, &p, 11, CS_BOOK_LOW, 100, 1000) == 500);
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 11, 100, CS_BOOK_HIGH).refused, CS_BOOKR_FULL);
    CS_CHECK(m.ops->unbook(m.state, &p, 11, CS_BOOK_HIGH, 500, 1000) == 500);
    CS_CHECK(m.ops->unbook(m.state, &p, 11, CS_BOOK_HIGH, 500, 1000) == 500);
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 11, 100, CS_BOOK_HIGH).refused, CS_BOOKR_OK);
    cs_mech_close(&m);
}

/* Names out of range; the base price step at the ends of 128 bits. */
static void test_book_math(void)
{
    CS_CHECK_STR(cs_book_class_name(CS_BOOK_HIGH), "high");
    CS_CHECK_STR(cs_book_class_name(-1), "unknown");
    CS_CHECK_STR(cs_book_class_name(CS_BOOK__COUNT), "unknown");
    CS_CHECK_STR(cs_book_refusal_name(CS_BOOKR_WINDOW), "window");
    CS_CHECK_STR(cs_book_refusal_name(-1), "unknown");
    CS_CHECK_STR(cs_book_refusal_name(CS_BOOKR__COUNT), "unknown");
    const cs_u128 max = ~(cs_u128)0, p127 = (cs_u128)1 << 127;
    /* Target 0 or denominator 0: no step. */
    CS_CHECK(cs_book_base_next(777, 5, 0, 8, 1, 0, 0) == 777);
    CS_CHECK(cs_book_base_next(777, 5, 3, 0, 1, 0, 0) == 777);
    /* Up by 2^127 x 4 / 1: the step does not fit 128 bits -> the sum
     * saturates at 2^128 - 1 (no cap). */
    CS_CHECK(cs_book_base_next(p127, 5, 1, 1, 1, 0, 0) == max);
    /* Down by a step >= the price: 0, then the floor 0. */
    CS_CHECK(cs_book_base_next(1, 0, 1, 1, 1, 0, 0) == 0);
    /* A divisor target x denom = (2^64 - 1)(2^63 + 1) >= 2^127 (the long
     * division's 129-bit remainder): the step is floor(prev / (2^63 + 1)),
     * since the factor 2^64 - 1 cancels. */
    uint64_t t = UINT64_MAX, dn = (1ull << 63) + 1;
    cs_u128 prev = p127 + 12345;
    CS_CHECK(cs_book_base_next(prev, 0, t, dn, 1, 0, 0) == prev - prev / dn);
}

int main(void)
{
    test_book_math();
    test_slot();
    test_classes();
    return cs_test_done("book_edges");
}
