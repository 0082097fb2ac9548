/*
 * cs_engine_book.c -- the agents' side of schedule-time booking (issue 28,
 * core/cs_book.h, DESIGN-NOTES N75): under `slot-booking` and
 * `priority-classes` an agent's timer is quoted when it is scheduled, and
 * the agent accepts an offer, picks another slot or class, or stays out.
 *
 * The choice uses the utility agents use everywhere else: the value of the
 * fire at the delay it will have (the agent's value model, v(d) with d the
 * offer's expected slot less the requested one) less what it pays, here
 * the booking price plus the CIP-3 execution fee of the cycles its handler
 * uses at today's cycle basefee (N58: every fire pays it).
 *   - A value-aware agent, or one with a strategy, takes the offer of
 *     largest expected utility among: the requested slot and the next
 *     slots of the window (slot-booking, up to CS__BOOK_ALT of them); High
 *     in the requested slot, Medium where it is placed, and Low at its
 *     expected slot (priority-classes).  When none is positive it stays
 *     out (refusal "declined").
 *   - Any other agent takes what it asked for: the requested slot
 *     (slot-booking), Medium (priority-classes, the class a caller that
 *     does not choose gets), refused when that does not fit.
 * Every one-shot timer an agent schedules books, from a transaction or
 * from a fire's handler (booked as soon as it is staged); interval
 * re-fires and watch timers are not booked and run from what a slot has
 * left (cs_book.h).
 */
#include "cs_engine_int.h"
#include "cs_engine_world.h"

#include "cs_sched_book.h"

#include <string.h>

#define CS__BOOK_ALT 8 /* slots a choosing agent compares under slot-booking */

/* The utility of offer q for the request: v(expect - want) - price - fee. */
static double cs__offer_utility(const cs_engine_t *e, const cs_agent_t *a, const cs_timer_req_t *req,
                                uint64_t want, const cs_quote_t *q)
{
    cs_timer_info_t in;
    memset(&in, 0, sizeof in);
    in.actor = req->actor;
    in.tag = req->tag;
    in.due_height = q->slot;
    in.sched_height = e->h + 1;
    in.value = req->value;
    in.decay = req->decay;
    in.deadline = req->deadline;
    in.gas_limit = q->gas;
    in.cycles_used = req->cycles_used;
    double v = cs__value(e, a, &in, q->expect - want);
    double fee = (double)(req->cycles_used ? req->cycles_used : q->gas) * e->obs.basefee_cycle;
    return v - cs__u128d(q->price) - fee;
}

int cs__book_choose(cs_engine_t *e, const cs_agent_t *a, const cs_timer_req_t *req, uint64_t want, uint64_t gas,
                    cs_quote_t *chosen)
{
    const cs_params_t *p = cs_sched_params(e->s);
    int classes = (cs_sched_mech(e->s)->ops->flags & CS_MF_CLASSES) != 0;
    int choose = a->pol.value_aware || a->strat != NULL;
    cs_quote_req_t q = {.want = want, .gas = gas, .klass = CS_BOOK_MEDIUM,
                        .basefee_cycle = cs__d2u(e->obs.basefee_cycle)};
    cs_quote_t off;
    int rc = cs_sched_quote(e->s, &q, &off);
    if (rc != CS_OK) return rc;
    *chosen = off;
    if (!choose) return off.refused == CS_BOOKR_OK ? CS_OK : CS_EBOOKING_REFUSED;
    /* Compare the offers; the first refusal's reason stands when none is
     * made (the requested slot's, or High's). */
    int have = 0;
    double best = 0;
    uint8_t why = off.refused;
    size_t n = classes ? 3 : CS__BOOK_ALT;
    for (size_t i = 0; i < n; i++) {
        if (classes) {
            static const uint8_t order[3] = {CS_BOOK_HIGH, CS_BOOK_MEDIUM, CS_BOOK_LOW};
            q.klass = order[i];
            q.want = want;
        } else {
            q.want = want + i;
            if (q.want > e->h + 1 + p->book_window) break;
        }
        if ((rc = cs_sched_quote(e->s, &q, &off)) != CS_OK) return rc;
        if (i == 0) why = off.refused;
        if (off.refused != CS_BOOKR_OK) continue;
        double u = cs__offer_utility(e, a, req, want, &off);
        if (!have || u > best) {
            best = u;
            *chosen = off;
            have = 1;
        }
    }
    if (!have) {
        chosen->refused = why;
        return CS_EBOOKING_REFUSED;
    }
    if (best <= 0) {
        chosen->refused = CS_BOOKR_DECLINED;
        return CS_EBOOKING_REFUSED;
    }
    return CS_OK;
}

/* Free the booking of the timer in slot, just cancelled (core/cs_book.h:
 * the slot's cycles are bookable again; of its escrowed price, released
 * by the cancel, the rule keeps its part, cs_sched_unbook). */
void cs__book_release(cs_engine_t *e, uint32_t slot)
{
    if (!(cs_sched_mech(e->s)->ops->flags & CS_MF_BOOK) || !cs__ti_live(e, slot)) return;
    uint32_t x = e->ti[slot].x;
    if (x < CS__TI_X0 || !e->tex[x - CS__TI_X0].booked) return;
    const cs_timer_hot_t *th = cs_sched_hot(e->s, slot);
    uint32_t owner = cs__ti_owner(e, slot, NULL, NULL);
    (void)cs_sched_unbook(e->s, th->height, th->tier_hint, cs_sched_record(e->s, slot)->gas_limit,
                          e->tex[x - CS__TI_X0].book_price, e->actors[owner].payer_idx);
}

/* Keep the booking of the timer that landed in slot (its /timers columns). */
int cs__book_keep(cs_engine_t *e, uint32_t slot, const cs_quote_t *q, uint64_t want)
{
    uint32_t x = e->ti[slot].x;
    cs__textra_t *xt = x >= CS__TI_X0 ? &e->tex[x - CS__TI_X0] : cs__ti_extra_new(e, slot);
    if (xt == NULL) return CS_ENOMEM;
    xt->booked = 1;
    xt->book_moved = q->slot > want ? (uint32_t)(q->slot - want) : 0;
    xt->book_price = q->price;
    return CS_OK;
}
