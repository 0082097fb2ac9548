/*
 * mech_classes.c -- `priority-classes`: Flow's scheduled transactions,
 * three classes with per-slot effort reserves, placed when the call is
 * made (issue 28, DESIGN-NOTES N74; cs_book.h).
 *
 *   - A slot has class_slot_effort effort units, which are the lane's
 *     cycles (N74: x units = floor(x lane / class_slot_effort) cycles):
 *     class_high_reserve for High, class_medium_reserve for Medium, a
 *     class_shared_pool both may use once their reserve is full, and Low
 *     takes up to class_low_max of what the slot has left when it runs.
 *     A call uses at most class_max_effort.
 *   - High must fit its requested slot or is refused; Medium is placed in
 *     the first slot at or after the requested one with room (within the
 *     booking window); Low is not placed: it waits from the requested slot
 *     and runs when a slot has effort left.  A slot also books at most
 *     max_fires_per_block High and Medium calls (the fire cap, N57).
 *   - Fee: the execution fee x the class multiplier.  Every fire pays the
 *     CIP-3 execution fee for what it used (N58), so the booking price is
 *     the premium gas limit x the cycle basefee now x (multiplier - 1);
 *     storage is the schedule cost (N58).
 *   - Low's quote expects it to run once the Low backlog ahead of it has
 *     drained: the cycles of the Low (and unbooked) candidates the last
 *     block left waiting, over class_low_max a block, rounded up, from the
 *     current block -- or at its own slot if that is later -- so that a
 *     caller can weigh Low against a guaranteed class.
 */
#include "cs_book.h"
#include "cs_mech.h"
#include "cs_mech_int.h"

#include <stdlib.h>

/* One slot of the window: cycles of High and Medium booked in it. */
typedef struct cs__cslot {
    uint64_t height;  /* the slot */
    uint64_t high;    /* High cycles booked */
    uint64_t medium;  /* Medium cycles booked */
    uint64_t count;   /* calls booked */
} cs__cslot_t;

typedef struct cs__classes_state {
    cs__ws_t ws;       /* clearing workspace */
    cs__cslot_t *ring; /* slots cur .. cur + W by height % (W + 1) */
    uint64_t nring;    /* W + 1 */
    uint64_t first;    /* lowest slot held; 0 = not open yet */
    uint64_t low_backlog; /* cycles of the Low and unbooked candidates left waiting by the last block */
} cs__classes_state_t;

static int cs__classes_init(void *state, const cs_params_t *p)
{
    cs__classes_state_t *s = state;
    s->nring = p->book_window + 1;
    s->ring = calloc(s->nring, sizeof *s->ring);
    return s->ring ? CS_OK : CS_ENOMEM;
}

static void cs__classes_fini(void *state)
{
    cs__classes_state_t *s = state;
    cs__ws_free(&s->ws);
    free(s->ring);
    s->ring = NULL;
}

/* Hold slots cur .. cur + W (new slots empty). */
static void cs__classes_advance(cs__classes_state_t *s, uint64_t cur)
{
    if (s->first != 0 && cur <= s->first) return;
    uint64_t from = s->first == 0 ? cur : CS_MAX(cur, s->first + s->nring);
    for (uint64_t h = from; h < cur + s->nring; h++) s->ring[h % s->nring] = (cs__cslot_t){.height = h};
    s->first = cur;
}

/* The entry of slot h within the window of cur (cur < h <= cur + W). */
static cs__cslot_t *cs__cslot_at(cs__classes_state_t *s, uint64_t cur, uint64_t h)
{
    if (h <= cur || h >= cur + s->nring) return NULL;
    return &s->ring[h % s->nring];
}

/* Whether g more cycles of class k fit slot e: the class's use beyond its
 * reserve plus the other's must stay within the shared pool; and the
 * slot's call count below the fire cap. */
static int cs__fits(const cs_class_cfg_t *cfg, const cs__cslot_t *e, int k, uint64_t g)
{
    if (cfg->max_fires != 0 && e->count >= cfg->max_fires) return 0;
    uint64_t hi = e->high + (k == CS_BOOK_HIGH ? g : 0);
    uint64_t me = e->medium + (k == CS_BOOK_MEDIUM ? g : 0);
    uint64_t over = (hi > cfg->high ? hi - cfg->high : 0) + (me > cfg->medium ? me - cfg->medium : 0);
    return over <= cfg->shared;
}

static int cs__classes_quote(void *state, const cs_params_t *p, uint64_t cur, const cs_quote_req_t *q,
                             cs_quote_t *out)
{
    cs__classes_state_t *s = state;
    cs_class_cfg_t cfg;
    cs_book_class_cfg(p, &cfg);
    cs__classes_advance(s, cur);
    int k = q->klass >= CS_BOOK_LOW && q->klass <= CS_BOOK_HIGH ? q->klass : CS_BOOK_MEDIUM;
    *out = (cs_quote_t){.klass = (uint8_t)k, .slot = q->want, .expect = q->want, .gas = q->gas};
    out->price = cs_book_class_price(p, k, q->gas, q->basefee_cycle);
    if (q->gas > cfg.max_call || (k == CS_BOOK_LOW && q->gas > cfg.low)) {
        out->refused = CS_BOOKR_TOO_LARGE;
        return CS_OK;
    }
    if (q->want <= cur || q->want > cur + cfg.window) {
        out->refused = CS_BOOKR_WINDOW;
        return CS_OK;
    }
    if (k == CS_BOOK_LOW) {
        uint64_t drain = cfg.low ? (s->low_backlog + cfg.low - 1) / cfg.low : 0;
        out->expect = CS_MAX(q->want, cur + drain);
        return CS_OK;
    }
    /* High: its slot or nothing.  Medium: the first slot with room. */
    uint64_t last = k == CS_BOOK_HIGH ? q->want : cur + cfg.window;
    for (uint64_t h = q->want; h <= last; h++) {
        if (cs__fits(&cfg, cs__cslot_at(s, cur, h), k, q->gas)) {
            out->slot = out->expect = h;
            return CS_OK;
        }
    }
    out->refused = CS_BOOKR_FULL;
    return CS_OK;
}

static int cs__classes_book(void *state, const cs_params_t *p, uint64_t cur, const cs_quote_t *q)
{
    cs__classes_state_t *s = state;
    cs_class_cfg_t cfg;
    cs_book_class_cfg(p, &cfg);
    cs__classes_advance(s, cur);
    if (q->refused != CS_BOOKR_OK) return CS_EBOOKING_REFUSED;
    if (q->klass == CS_BOOK_LOW) return CS_OK; /* not placed */
    cs__cslot_t *e = cs__cslot_at(s, cur, q->slot);
    if (e == NULL || (q->klass != CS_BOOK_HIGH && q->klass != CS_BOOK_MEDIUM) || !cs__fits(&cfg, e, q->klass, q->gas))
        return CS_EBOOKING_REFUSED;
    if (q->klass == CS_BOOK_HIGH) e->high += q->gas;
    else e->medium += q->gas;
    e->count++;
    return CS_OK;
}

/* Cancel: a High or Medium booking's effort is free again; the rule keeps
 * the fee less class_cancel_refund of it (Flow refunds half). */
static cs_u128 cs__classes_unbook(void *state, const cs_params_t *p, uint64_t slot, uint8_t klass, uint64_t gas,
                                  cs_u128 price)
{
    cs__classes_state_t *s = state;
    cs_u128 kept = price - cs__muldiv_ppm(price, p->class_cancel_refund);
    if (s->first == 0 || slot < s->first || slot >= s->first + s->nring) return kept;
    cs__cslot_t *e = &s->ring[slot % s->nring];
    uint64_t *u = klass == CS_BOOK_HIGH ? &e->high : klass == CS_BOOK_MEDIUM ? &e->medium : NULL;
    if (u == NULL) return kept;
    *u = *u > gas ? *u - gas : 0;
    if (e->count) e->count--;
    return kept;
}

/* Clear block h: High, then Medium bookings, then Low and the unbooked
 * from at most class_low_max of what is left. */
static int cs__classes_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                             cs_clear_out_t *out)
{
    cs__classes_state_t *s = state;
    cs_class_cfg_t cfg;
    cs_book_class_cfg(ctx->p, &cfg);
    cs__classes_advance(s, ctx->height);
    int rc = cs__book_clear(&s->ws, ctx, c, n, out, cfg.low);
    if (rc != CS_OK) return rc;
    s->low_backlog = 0;
    for (size_t i = 0; i < n; i++)
        if (!c[i].selected && c[i].klass != CS_BOOK_HIGH && c[i].klass != CS_BOOK_MEDIUM)
            s->low_backlog += c[i].cycles;
    return CS_OK;
}

const cs_mech_ops_t cs__mech_priority_classes = {
    .name = "priority-classes",
    .version = 1,
    .state_size = sizeof(cs__classes_state_t),
    .flags = CS_MF_BID | CS_MF_BUDGET | CS_MF_BOOK | CS_MF_CLASSES,
    .init = cs__classes_init,
    .clear = cs__classes_clear,
    .end_block = NULL,
    .fini = cs__classes_fini,
    .quote = cs__classes_quote,
    .book = cs__classes_book,
    .unbook = cs__classes_unbook,
    .slot_base = NULL,
};
