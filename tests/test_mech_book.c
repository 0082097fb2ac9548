/*
 * test_mech_book.c -- schedule-time booking (issue 28; cs_book.h):
 * `slot-booking` (Massa's deferred calls) and `priority-classes` (Flow's
 * scheduled transactions).  Every expected value is worked out by hand in
 * the comment beside it, from the formulas of the issue:
 *   overbooking(S, T, o, r, P) = P (relu(o + r - T)^2 - relu(o - T)^2) / (S - T)^2
 *   base(next) = base(prev) +- max(base(prev) |avg - target| / (target D), min_step)
 *   class fee  = gas x cycle basefee x (multiplier - 1)   (the execution fee is paid at the fire)
 */
#include <string.h>

#include "cs_book.h"
#include "cs_mech.h"
#include "cs_test.h"

/* Exact 128-bit equality; the low 64 bits are printed when it fails. */
#define CHECK_U128(a, b)                                          \
    do {                                                          \
        cs_u128 a_ = (a), b_ = (b);                               \
        CS_CHECK_EQ_U64((uint64_t)a_, (uint64_t)b_);              \
        CS_CHECK(a_ == b_);                                       \
    } while (0)

static void test_overbooking(void)
{
    /* S = 1000, T = 500, P = 1,000,000: (S - T)^2 = 250,000. */
    /* Below the target: o + r = 400 <= 500 -> 0. */
    CHECK_U128(cs_book_overbooking(1000, 500, 100, 300, 1000000), 0);
    /* Reaching the target exactly: o + r = 500 -> relu(0)^2 = 0. */
    CHECK_U128(cs_book_overbooking(1000, 500, 200, 300, 1000000), 0);
    /* From the target: o = 500, r = 100: 100^2 = 10,000 -> 1e6 x 10,000 / 250,000 = 40,000. */
    CHECK_U128(cs_book_overbooking(1000, 500, 500, 100, 1000000), 40000);
    /* Above: o = 600, r = 150: 250^2 - 100^2 = 52,500 -> 1,000,003 x 52,500 / 250,000
     * = 52,500,157,500 / 250,000 = 210,000.63 -> 210,000. */
    CHECK_U128(cs_book_overbooking(1000, 500, 600, 150, 1000003), 210000);
    /* The whole supply from the target: 500^2 / 500^2 = 1 -> P, also when P x
     * 250,000 needs more than 128 bits (P = 2^127). */
    CHECK_U128(cs_book_overbooking(1000, 500, 500, 500, 1000000), 1000000);
    CHECK_U128(cs_book_overbooking(1000, 500, 500, 500, (cs_u128)1 << 127), (cs_u128)1 << 127);
    /* No room above the target (S <= T): no fee. */
    CHECK_U128(cs_book_overbooking(500, 500, 600, 10, 1000000), 0);
}

static void test_base_steps(void)
{
    /* prev 1000, target 1,000,000, D = 8: target x D = 8,000,000. */
    /* Up: avg 1,500,000, d = 500,000: 1000 x 500,000 / 8e6 = 62.5 -> 62 -> 1062. */
    CHECK_U128(cs_book_base_next(1000, 1500000, 1000000, 8, 1, 1, 1000000000000ull), 1062);
    /* Down: avg 600,000, d = 400,000: 1000 x 400,000 / 8e6 = 50 -> 950. */
    CHECK_U128(cs_book_base_next(1000, 600000, 1000000, 8, 1, 1, 1000000000000ull), 950);
    /* The minimum step: avg 1,000,001: 1000 / 8e6 -> 0 -> 1 -> 1001. */
    CHECK_U128(cs_book_base_next(1000, 1000001, 1000000, 8, 1, 1, 1000000000000ull), 1001);
    /* On target: unchanged. */
    CHECK_U128(cs_book_base_next(1000, 1000000, 1000000, 8, 1, 1, 1000000000000ull), 1000);
    /* Down to the floor: prev 20, avg 0: 20 x 1e6 / 8e6 = 2.5 -> 2 -> 18; with floor 19 -> 19. */
    CHECK_U128(cs_book_base_next(20, 0, 1000000, 8, 1, 1, 1000000000000ull), 18);
    CHECK_U128(cs_book_base_next(20, 0, 1000000, 8, 1, 19, 1000000000000ull), 19);
    /* At the floor: prev 5 = floor, avg 0: step max(0, 1) = 1 -> 4 -> floor 5. */
    CHECK_U128(cs_book_base_next(5, 0, 1000000, 8, 1, 5, 1000000000000ull), 5);
    /* The cap: avg 2,000,000: 1000 x 1e6 / 8e6 = 125 -> 1125 -> cap 1100. */
    CHECK_U128(cs_book_base_next(1000, 2000000, 1000000, 8, 1, 1, 1100), 1100);
}

/* A slot-booking world: C = 1000 cycles a slot (the lane), W = 4, base
 * 1000, slot penalty 1,000,000, window penalty 10,000,000, 3 calls a slot. */
static void slot_params(cs_params_t *p)
{
    cs_params_default(p);
    p->lane_timer_cycles = 1000;
    p->max_cycles_per_fire = 1000;
    p->book_window = 4;
    p->slot_base_initial = 1000;
    p->slot_penalty = 1000000;
    p->global_penalty = 10000000;
    p->max_fires_per_block = 3;
}

static cs_quote_t quote(cs_mech_t *m, const cs_params_t *p, uint64_t cur, uint64_t want, uint64_t gas, int k)
{
    cs_quote_req_t q = {.want = want, .gas = gas, .klass = (uint8_t)k, .basefee_cycle = 1000};
    cs_quote_t o;
    memset(&o, 0xee, sizeof o);
    CS_CHECK_EQ_U64(m->ops->quote(m->state, p, cur, &q, &o), CS_OK);
    return o;
}

static void book(cs_mech_t *m, const cs_params_t *p, uint64_t cur, const cs_quote_t *q)
{
    CS_CHECK_EQ_U64(q->refused, CS_BOOKR_OK);
    CS_CHECK_EQ_U64(m->ops->book(m->state, p, cur, q), CS_OK);
}

static void test_slot_prices(void)
{
    cs_params_t p;
    slot_params(&p);
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("slot-booking"), &p), CS_OK);
    CS_CHECK(m.ops->flags & CS_MF_BOOK);
    /* cur 10: slots 11..14 bookable at base 1000. */
    cs_quote_t q = quote(&m, &p, 10, 11, 300, 0);
    /* 300 x 1000 = 300,000; slot o + r = 300 < 500, window 300 < 2000: no fees. */
    CHECK_U128(q.price, 300000);
    CS_CHECK_EQ_U64(q.slot, 11);
    CS_CHECK_EQ_U64(q.klass, CS_BOOK_HIGH);
    book(&m, &p, 10, &q);
    /* 400 more in slot 11: o = 300, r = 400: relu(200)^2 = 40,000 -> 1e6 x 40,000 / 250,000
     * = 160,000; window 700 < 2000: 0.  400,000 + 160,000 = 560,000. */
    q = quote(&m, &p, 10, 11, 400, 0);
    CHECK_U128(q.price, 560000);
    book(&m, &p, 10, &q);
    /* 301 more: 700 + 301 > 1000: the slot is full. */
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 11, 301, 0).refused, CS_BOOKR_FULL);
    /* 300 more fits exactly: o = 700, r = 300: 500^2 - 200^2 = 210,000 -> 840,000;
     * 300,000 + 840,000 = 1,140,000 (not booked). */
    CHECK_U128(quote(&m, &p, 10, 11, 300, 0).price, 1140000);
    /* Outside the window (slot 15 at cur 10, or the current slot), or above C. */
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 15, 10, 0).refused, CS_BOOKR_WINDOW);
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 10, 10, 0).refused, CS_BOOKR_WINDOW);
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 12, 1001, 0).refused, CS_BOOKR_TOO_LARGE);
    /* A refund share of 25 %: 1,160,000 - 290,000 kept (a slot outside the
     * window frees nothing). */
    p.slot_cancel_refund = 250000;
    CHECK_U128(m.ops->unbook(m.state, &p, 99, CS_BOOK_HIGH, 800, 1160000), 870000);
    p.slot_cancel_refund = 0;
    /* Slot 12: three calls of 10 cycles, then the fire cap (3) refuses a 4th. */
    for (int i = 0; i < 3; i++) {
        q = quote(&m, &p, 10, 12, 10, 0);
        CHECK_U128(q.price, 10000);
        book(&m, &p, 10, &q);
    }
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 12, 10, 0).refused, CS_BOOKR_FULL);
    /* Booking an offer that no longer fits is refused.  Slot 13 empty, 800
     * cycles: base 800,000 + slot fee 1e6 x 300^2 / 250,000 = 360,000; the
     * window holds 730, 730 + 800 < 2000: 1,160,000. */
    q = quote(&m, &p, 10, 13, 800, 0);
    CHECK_U128(q.price, 1160000);
    book(&m, &p, 10, &q);
    CS_CHECK_EQ_U64(m.ops->book(m.state, &p, 10, &q), CS_EBOOKING_REFUSED);
    /* Cancel frees the slot: 1000 more does not fit slot 13 while the 800 is
     * booked; unbooked, it does: base 1000 x 1000 + slot fee 1e6 x 500^2 /
     * 250,000 = 2,000,000; the window holds 730, 730 + 1000 < 2000: no fee. */
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 13, 1000, 0).refused, CS_BOOKR_FULL);
    /* Cancel keeps the fee: with slot_cancel_refund 0 the whole 1,160,000. */
    CHECK_U128(m.ops->unbook(m.state, &p, 13, CS_BOOK_HIGH, 800, 1160000), 1160000);
    CHECK_U128(quote(&m, &p, 10, 13, 1000, 0).price, 2000000);
    /* Step down: at cur 11 slot 15 enters; the 4 slots before it (11..14) hold
     * 700 + 30 + 0 + 0 = 730, avg floor(730 / 4) = 182, target 500, d = 318:
     * 1000 x 318 / (500 x 8) = 79.5 -> 79 -> 921. */
    (void)quote(&m, &p, 11, 12, 10, 0);
    CHECK_U128(m.ops->slot_base(m.state, &p, 15), 921);
    CHECK_U128(m.ops->slot_base(m.state, &p, 14), 1000);
    CHECK_U128(m.ops->slot_base(m.state, &p, 10), 0); /* left the window */
    /* A booking in slot 15 pays its base: 10 x 921 = 9,210. */
    CHECK_U128(quote(&m, &p, 11, 15, 10, 0).price, 9210);
    cs_mech_close(&m);
}

static void test_slot_steps_up(void)
{
    cs_params_t p;
    slot_params(&p);
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("slot-booking"), &p), CS_OK);
    /* 900 in each of slots 11..14 at cur 10.  The 4th (slot 14) sees the
     * window at o = 2700: relu(3600 - 2000)^2 - relu(2700 - 2000)^2 =
     * 2,560,000 - 490,000 = 2,070,000 -> 1e7 x 2,070,000 / 4e6 = 5,175,000; its
     * slot o = 0, r = 900: 400^2 = 160,000 -> 640,000; base 900,000:
     * 6,715,000 in all (the window fee above its target). */
    for (uint64_t h = 11; h <= 14; h++) {
        cs_quote_t q = quote(&m, &p, 10, h, 900, 0);
        if (h == 14) CHECK_U128(q.price, 6715000);
        book(&m, &p, 10, &q);
    }
    /* cur 11: slot 15 enters after 11..14 = 3600, avg 900, d = 400:
     * 1000 x 400 / 4000 = 100 -> 1100.  cur 12: slot 16 after 12..15 = 2700,
     * avg 675, d = 175: 1100 x 175 / 4000 = 48.1 -> 48 -> 1148. */
    (void)quote(&m, &p, 11, 12, 1, 0);
    CHECK_U128(m.ops->slot_base(m.state, &p, 15), 1100);
    (void)quote(&m, &p, 12, 13, 1, 0);
    CHECK_U128(m.ops->slot_base(m.state, &p, 16), 1148);
    /* The floor: with slot_base_min 1140, cur 13 lets slot 17 enter after
     * 13..16 = 1800, avg 450, d = 50: 1148 x 50 / 4000 = 14.35 -> 14 -> 1134
     * -> the floor 1140. */
    p.slot_base_min = 1140;
    (void)quote(&m, &p, 13, 14, 1, 0);
    CHECK_U128(m.ops->slot_base(m.state, &p, 17), 1140);
    cs_mech_close(&m);
}

/* A candidate of class k with timer_id ..idb, target t, due, rank, cycles, bid. */
static cs_cand_t mk(uint8_t idb, uint32_t t, uint64_t due, uint64_t rank, uint64_t cycles, int k, cs_u128 bid)
{
    cs_cand_t c;
    memset(&c, 0, sizeof c);
    c.slot = idb;
    c.target = t;
    c.ident = t;
    c.due_height = due;
    c.fifo_rank = rank;
    c.cycles = cycles;
    c.klass = (uint8_t)k;
    c.bid = bid;
    c.id.b[CS_ID_LEN - 1] = idb;
    return c;
}

static void test_slot_clear(void)
{
    cs_params_t p;
    slot_params(&p);
    p.max_fires_per_block = 0;
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("slot-booking"), &p), CS_OK);
    /* Budget 1000: an unbooked timer due earlier (rank 1) waits behind the
     * bookings (700 + 250) and loses for budget (950 + 100 > 1000); the
     * unbooked 50 fits what is left. */
    cs_cand_t c[4] = {
        mk(1, 1, 10, 1, 100, CS_BOOK_NONE, 0),
        mk(2, 2, 11, 5, 700, CS_BOOK_HIGH, 560000),
        mk(3, 3, 11, 7, 250, CS_BOOK_HIGH, 250000),
        mk(4, 4, 11, 9, 50, CS_BOOK_NONE, 0),
    };
    cs_clear_ctx_t ctx = {.p = &p, .height = 11, .budget_cycles = 1000};
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 4, &out), CS_OK);
    CS_CHECK(c[1].selected && c[2].selected && c[3].selected && !c[0].selected);
    CS_CHECK_EQ_U64(c[0].why, CS_WHY_BUDGET);
    CS_CHECK_EQ_U64(c[1].rank, 0);
    CS_CHECK_EQ_U64(c[2].rank, 1);
    CS_CHECK_EQ_U64(c[0].rank, 2);
    CHECK_U128(c[1].payment, 560000);
    CHECK_U128(c[3].payment, 0);
    CHECK_U128(out.payments, 810000);
    CS_CHECK_EQ_U64(out.cycles_used, 1000);
    cs_mech_close(&m);
}

/* Flow's published numbers with the lane at 35,000 cycles: one effort unit
 * is one cycle, so the reserves are the numbers themselves. */
static void class_params(cs_params_t *p)
{
    cs_params_default(p);
    p->lane_timer_cycles = 35000;
    p->max_cycles_per_fire = 35000;
    p->book_window = 4;
}

static void test_classes_place(void)
{
    cs_params_t p;
    class_params(&p);
    cs_class_cfg_t cfg;
    cs_book_class_cfg(&p, &cfg);
    CS_CHECK_EQ_U64(cfg.high, 20000);
    CS_CHECK_EQ_U64(cfg.shared, 10000);
    CS_CHECK_EQ_U64(cfg.low, 5000);
    CS_CHECK_EQ_U64(cfg.max_call, 9999);
    /* The default lane (2,000,000): High 20,000 x 2e6 / 35,000 = 1,142,857.1 -> 1,142,857. */
    cs_params_t d;
    cs_params_default(&d);
    cs_book_class_cfg(&d, &cfg);
    CS_CHECK_EQ_U64(cfg.high, 1142857);
    CS_CHECK_EQ_U64(cfg.max_call, 571371); /* 9,999 x 2e6 / 35,000 = 571,371.4 */
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("priority-classes"), &p), CS_OK);
    /* Two Highs of 9,999 fill 19,998 of the reserve; a third takes 9,997 of
     * the shared pool (29,997 - 20,000); a fourth of 5,000 would need 14,997
     * of the 10,000 pool: refused, in its slot only. */
    for (int i = 0; i < 3; i++) {
        cs_quote_t q = quote(&m, &p, 10, 11, 9999, CS_BOOK_HIGH);
        CS_CHECK_EQ_U64(q.slot, 11);
        CHECK_U128(q.price, 89991000); /* 9,999 x 1,000 x (10 - 1) */
        book(&m, &p, 10, &q);
    }
    cs_quote_t q = quote(&m, &p, 10, 11, 5000, CS_BOOK_HIGH);
    CS_CHECK_EQ_U64(q.refused, CS_BOOKR_FULL);
    /* Medium 5,000 fits its own reserve in slot 11 (the pool is not needed). */
    q = quote(&m, &p, 10, 11, 5000, CS_BOOK_MEDIUM);
    CS_CHECK_EQ_U64(q.refused, CS_BOOKR_OK);
    CS_CHECK_EQ_U64(q.slot, 11);
    CHECK_U128(q.price, 20000000); /* 5,000 x 1,000 x (5 - 1) */
    book(&m, &p, 10, &q);
    /* A second Medium 5,000 would put 5,000 + 9,997 = 14,997 in the pool:
     * it moves to slot 12, where it fits. */
    q = quote(&m, &p, 10, 11, 5000, CS_BOOK_MEDIUM);
    CS_CHECK_EQ_U64(q.refused, CS_BOOKR_OK);
    CS_CHECK_EQ_U64(q.slot, 12);
    CS_CHECK_EQ_U64(q.expect, 12);
    /* ... while a High for slot 11 is still refused. */
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 11, 3, CS_BOOK_HIGH).refused, CS_BOOKR_OK); /* 3 more: pool 10,000 */
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 11, 4, CS_BOOK_HIGH).refused, CS_BOOKR_FULL);
    /* Low is not placed: due at the slot it asked for, price 3,000 x 1,000 x (2 - 1). */
    q = quote(&m, &p, 10, 11, 3000, CS_BOOK_LOW);
    CS_CHECK_EQ_U64(q.refused, CS_BOOKR_OK);
    CS_CHECK_EQ_U64(q.slot, 11);
    CHECK_U128(q.price, 3000000);
    /* Above a call's maximum effort, above Low's share, beyond the window. */
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 12, 10000, CS_BOOK_HIGH).refused, CS_BOOKR_TOO_LARGE);
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 12, 5001, CS_BOOK_LOW).refused, CS_BOOKR_TOO_LARGE);
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 15, 10, CS_BOOK_MEDIUM).refused, CS_BOOKR_WINDOW);
    /* Medium with every slot of the window full of High: refused. */
    for (uint64_t h = 12; h <= 14; h++)
        for (int i = 0; i < 3; i++) {
            cs_quote_t b = quote(&m, &p, 10, h, 9999, CS_BOOK_HIGH);
            book(&m, &p, 10, &b);
        }
    /* Slots 12..14: 29,997 High = 9,997 of the pool; Medium 5,001 is 1 over
     * its reserve: 9,998 <= 10,000 fits; Medium 5,004 needs 10,001: refused. */
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 12, 5001, CS_BOOK_MEDIUM).slot, 12);
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 11, 5004, CS_BOOK_MEDIUM).refused, CS_BOOKR_FULL);
    /* Cancel the Medium of slot 11: Flow refunds half the fee, the rule
     * keeps 20,000,000 / 2; a High's 89,991,000 keeps 44,995,500.  Slot 11
     * has room for Medium 5,000 again (its reserve is empty). */
    CHECK_U128(m.ops->unbook(m.state, &p, 11, CS_BOOK_MEDIUM, 5000, 20000000), 10000000);
    CS_CHECK_EQ_U64(quote(&m, &p, 10, 11, 5000, CS_BOOK_MEDIUM).slot, 11);
    p.class_cancel_refund = 500000;
    CHECK_U128(m.ops->unbook(m.state, &p, 99, CS_BOOK_HIGH, 1, 89991000), 44995500);
    cs_mech_close(&m);
}

static void test_classes_low(void)
{
    cs_params_t p;
    class_params(&p);
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("priority-classes"), &p), CS_OK);
    cs_clear_out_t out;
    /* Block 11: High 29,997 and Medium 5,000 leave 3 cycles: the Low 3,000
     * (due 10, before them all) waits, the unbooked 3 fits. */
    cs_cand_t c[4] = {
        mk(1, 1, 10, 1, 3000, CS_BOOK_LOW, 3000000),
        mk(2, 2, 11, 2, 29997, CS_BOOK_HIGH, 0),
        mk(3, 3, 11, 3, 5000, CS_BOOK_MEDIUM, 20000000),
        mk(4, 4, 11, 4, 3, CS_BOOK_NONE, 0),
    };
    cs_clear_ctx_t ctx = {.p = &p, .height = 11, .budget_cycles = 35000};
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 4, &out), CS_OK);
    CS_CHECK(!c[0].selected && c[1].selected && c[2].selected && c[3].selected);
    CS_CHECK_EQ_U64(c[0].why, CS_WHY_BUDGET);
    CS_CHECK_EQ_U64(c[2].rank, 1); /* High, Medium, then the rest */
    CHECK_U128(out.payments, 20000000);
    /* Block 12: High 20,000 leaves 15,000, of which Low takes at most 5,000:
     * the Low 3,000 fires (2,000 left of its share), the Low 2,500 waits
     * although the slot has 12,000 left; the Low 2,000 (later rank) fits. */
    cs_cand_t d[4] = {
        mk(1, 1, 10, 1, 3000, CS_BOOK_LOW, 3000000),
        mk(5, 5, 12, 5, 20000, CS_BOOK_HIGH, 0),
        mk(6, 6, 11, 6, 2500, CS_BOOK_LOW, 2500000),
        mk(7, 7, 12, 7, 2000, CS_BOOK_LOW, 2000000),
    };
    ctx.height = 12;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, d, 4, &out), CS_OK);
    CS_CHECK(d[0].selected && d[1].selected && !d[2].selected && d[3].selected);
    CS_CHECK_EQ_U64(d[2].why, CS_WHY_BUDGET);
    CS_CHECK_EQ_U64(out.cycles_used, 25000);
    CHECK_U128(out.payments, 5000000);
    /* The Low backlog is the 2,500 left waiting: ceil(2,500 / 5,000) = 1
     * block, so a Low for slot 13 at cur 12 expects 13 = max(13, 12 + 1). */
    CS_CHECK_EQ_U64(quote(&m, &p, 12, 13, 100, CS_BOOK_LOW).expect, 13);
    /* Block 13: a full High slot leaves the rest waiting: 2,500 + 4,000 Low
     * and 8,000 unbooked = 14,500 cycles, ceil(14,500 / 5,000) = 3 blocks: a Low asking for
     * slot 14 at cur 13 expects 16, one asking for 17 expects 17. */
    cs_cand_t f[4] = {
        mk(8, 8, 13, 8, 35000, CS_BOOK_HIGH, 0),
        mk(6, 6, 11, 6, 2500, CS_BOOK_LOW, 2500000),
        mk(9, 9, 13, 9, 4000, CS_BOOK_LOW, 4000000),
        mk(10, 10, 13, 10, 8000, CS_BOOK_NONE, 0),
    };
    ctx.height = 13;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, f, 4, &out), CS_OK);
    CS_CHECK(f[0].selected && !f[1].selected && !f[2].selected && !f[3].selected);
    CS_CHECK_EQ_U64(quote(&m, &p, 13, 14, 100, CS_BOOK_LOW).expect, 16);
    CS_CHECK_EQ_U64(quote(&m, &p, 13, 17, 100, CS_BOOK_LOW).expect, 17);
    cs_mech_close(&m);
}

static void test_names(void)
{
    CS_CHECK_STR(cs_book_class_name(CS_BOOK_MEDIUM), "medium");
    CS_CHECK_STR(cs_book_refusal_name(CS_BOOKR_WINDOW), "window");
    CS_CHECK_STR(cs_book_refusal_name(99), "unknown");
    /* Fire-time rules have no booking hooks. */
    CS_CHECK(cs_mech_find("bias-vcg")->quote == NULL);
    CS_CHECK(!(cs_mech_find("eip1559")->flags & CS_MF_BOOK));
}

int main(void)
{
    test_overbooking();
    test_base_steps();
    test_slot_prices();
    test_slot_steps_up();
    test_slot_clear();
    test_classes_place();
    test_classes_low();
    test_names();
    return cs_test_done("mech_book");
}
