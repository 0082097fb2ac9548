/*
 * mech_slot.c -- `slot-booking`: Massa's deferred calls, a booking of gas
 * in one future slot at a price fixed when the call is made (issue 28,
 * DESIGN-NOTES N72-N73; cs_book.h).
 *
 *   - A slot has a capacity C of timer cycles (slot_capacity, by default
 *     the lane); a call books g <= C - booked(slot) in a slot within the
 *     booking window (the next W = book_window slots), else it is refused;
 *     a slot also books at most max_fires_per_block calls, so that its
 *     bookings always fit the fire cap every rule faces (N57).
 *   - Price = base(slot) x g + the window's overbooking fee (S = C W,
 *     T = C W / 2, o = cycles booked in the window) + the slot's (S = C,
 *     T = C / 2, o = cycles booked in the slot); the payload's storage is
 *     the CIP-5 §6.1 schedule cost every rule charges (N58), not again here.
 *   - base(slot) is fixed when the slot enters the window, from the
 *     previous slot's base and the window's mean booked cycles against
 *     the target C / 2 (cs_book_base_next).
 *   - A booked call runs in its slot: clearing fires the bookings first.
 *     Cancel frees the slot's cycles; the escrowed price is released.
 */
#include "cs_book.h"
#include "cs_mech.h"
#include "cs_mech_int.h"

#include <stdlib.h>

/* One slot of the window. */
typedef struct cs__slot {
    uint64_t height; /* the slot (block height) */
    uint64_t booked; /* cycles booked in it */
    uint64_t count;  /* calls booked in it */
    cs_u128 base;    /* base price per cycle, fixed when it entered */
} cs__slot_t;

typedef struct cs__slotb_state {
    cs__ws_t ws;      /* clearing workspace */
    cs__slot_t *ring; /* slots cur .. cur + W, by height % (W + 1) */
    uint64_t nring;   /* W + 1 */
    uint64_t first;   /* lowest slot held (cur); 0 = the window is not open yet */
    uint64_t last;    /* highest slot held */
} cs__slotb_state_t;

static int cs__slotb_init(void *state, const cs_params_t *p)
{
    cs__slotb_state_t *s = state;
    s->nring = p->book_window + 1;
    s->ring = calloc(s->nring, sizeof *s->ring);
    return s->ring ? CS_OK : CS_ENOMEM;
}

static void cs__slotb_fini(void *state)
{
    cs__slotb_state_t *s = state;
    cs__ws_free(&s->ws);
    free(s->ring);
    s->ring = NULL;
}

/* The entry of slot h, or NULL when h is not held. */
static cs__slot_t *cs__slot_at(cs__slotb_state_t *s, uint64_t h)
{
    if (s->first == 0 || h < s->first || h > s->last) return NULL;
    return &s->ring[h % s->nring];
}

/* Bring the ring to hold slots cur .. cur + W: drop the slots below cur,
 * then let each new slot enter with its base price fixed from the W slots
 * before it (the window it joins).  The first call opens the window with
 * every slot at slot_base_initial.  W is the window the state was sized
 * for (a later change of book_window is ignored). */
static void cs__slot_advance(cs__slotb_state_t *s, const cs_params_t *p, uint64_t cur)
{
    uint64_t W = s->nring - 1;
    if (s->first == 0) {
        for (uint64_t h = cur; h <= cur + W; h++)
            s->ring[h % s->nring] = (cs__slot_t){.height = h, .base = p->slot_base_initial};
        s->first = cur;
        s->last = cur + W;
        return;
    }
    if (cur <= s->first) return;
    cs_slot_cfg_t cfg;
    cs_book_slot_cfg(p, &cfg);
    while (s->last < cur + W) {
        /* The slot below the new window's range leaves first, so the ring
         * holds exactly the W slots before the one entering. */
        s->first++;
        uint64_t x = s->last + 1, sum = 0;
        for (uint64_t h = x - W; h < x; h++) sum += s->ring[h % s->nring].booked;
        cs_u128 prev = s->ring[s->last % s->nring].base;
        cs_u128 base = cs_book_base_next(prev, sum / W, cfg.cap / 2, p->slot_base_denom, p->slot_base_min_step,
                                         p->slot_base_min, p->slot_base_max);
        s->ring[x % s->nring] = (cs__slot_t){.height = x, .base = base};
        s->last = x;
    }
    if (s->first < cur) s->first = cur; /* after a jump of more than W blocks */
}

static int cs__slotb_quote(void *state, const cs_params_t *p, uint64_t cur, const cs_quote_req_t *q,
                           cs_quote_t *out)
{
    cs__slotb_state_t *s = state;
    cs_slot_cfg_t cfg;
    cs_book_slot_cfg(p, &cfg);
    cs__slot_advance(s, p, cur);
    *out = (cs_quote_t){.klass = CS_BOOK_HIGH, .slot = q->want, .expect = q->want, .gas = q->gas};
    cs__slot_t *e = q->want > cur ? cs__slot_at(s, q->want) : NULL;
    if (q->gas > cfg.cap) {
        out->refused = CS_BOOKR_TOO_LARGE;
        return CS_OK;
    }
    if (e == NULL) {
        out->refused = CS_BOOKR_WINDOW;
        return CS_OK;
    }
    if (e->booked + q->gas > cfg.cap || (cfg.max_fires != 0 && e->count >= cfg.max_fires)) {
        out->refused = CS_BOOKR_FULL;
        return CS_OK;
    }
    uint64_t win = 0;
    for (uint64_t h = cur + 1; h <= cur + cfg.window && h <= s->last; h++) win += s->ring[h % s->nring].booked;
    out->base = e->base;
    cs_u128 price = cs__sat_mul64(q->gas, e->base);
    price = cs__sat_add(price, cs_book_overbooking(cfg.cap * cfg.window, cfg.cap * cfg.window / 2, win, q->gas,
                                                   cfg.p_global));
    price = cs__sat_add(price, cs_book_overbooking(cfg.cap, cfg.cap / 2, e->booked, q->gas, cfg.p_slot));
    out->price = price;
    return CS_OK;
}

static int cs__slotb_book(void *state, const cs_params_t *p, uint64_t cur, const cs_quote_t *q)
{
    cs__slotb_state_t *s = state;
    cs_slot_cfg_t cfg;
    cs_book_slot_cfg(p, &cfg);
    cs__slot_advance(s, p, cur);
    cs__slot_t *e = q->refused == CS_BOOKR_OK && q->slot > cur ? cs__slot_at(s, q->slot) : NULL;
    if (e == NULL || e->booked + q->gas > cfg.cap || (cfg.max_fires != 0 && e->count >= cfg.max_fires))
        return CS_EBOOKING_REFUSED;
    e->booked += q->gas;
    e->count++;
    return CS_OK;
}

/* Cancel: the slot's cycles are free again; the rule keeps the price less
 * slot_cancel_refund of it (0 refunded by default: the fee is kept). */
static cs_u128 cs__slotb_unbook(void *state, const cs_params_t *p, uint64_t slot, uint8_t klass, uint64_t gas,
                                cs_u128 price)
{
    cs__slotb_state_t *s = state;
    cs__slot_t *e = cs__slot_at(s, slot);
    if (e != NULL && klass == CS_BOOK_HIGH) {
        e->booked = e->booked > gas ? e->booked - gas : 0;
        if (e->count) e->count--;
    }
    return price - cs__muldiv_ppm(price, p->slot_cancel_refund);
}

static cs_u128 cs__slotb_base(void *state, const cs_params_t *p, uint64_t slot)
{
    cs__slotb_state_t *s = state;
    (void)p;
    cs__slot_t *e = cs__slot_at(s, slot);
    return e ? e->base : 0;
}

/* Clear block h: its bookings, then the rest from the lane's leftover. */
static int cs__slotb_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                           cs_clear_out_t *out)
{
    cs__slotb_state_t *s = state;
    cs__slot_advance(s, ctx->p, ctx->height);
    return cs__book_clear(&s->ws, ctx, c, n, out, UINT64_MAX);
}

const cs_mech_ops_t cs__mech_slot_booking = {
    .name = "slot-booking",
    .version = 1,
    .state_size = sizeof(cs__slotb_state_t),
    .flags = CS_MF_BID | CS_MF_BUDGET | CS_MF_BOOK,
    .init = cs__slotb_init,
    .clear = cs__slotb_clear,
    .end_block = NULL,
    .fini = cs__slotb_fini,
    .quote = cs__slotb_quote,
    .book = cs__slotb_book,
    .unbook = cs__slotb_unbook,
    .slot_base = cs__slotb_base,
};
