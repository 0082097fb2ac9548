/*
 * cs_book.c -- what the two booking mechanisms share (cs_book.h): the
 * class and refusal names, the Massa pricing formulas, the resolved
 * parameters, the clearing scan, and the scheduler's entry points
 * cs_sched_quote / cs_sched_book / cs_sched_unbook / cs_sched_slot_base.
 * Issue 28, DESIGN-NOTES N72-N74.
 */
#include "cs_book.h"

#include "cs_fees.h"
#include "cs_mech.h"
#include "cs_mech_int.h"
#include "cs_sched_book.h"
#include "cs_sched_int.h"

static const char *const cs__class_names[] = {"none", "low", "medium", "high"};
CS_STATIC_ASSERT(sizeof cs__class_names / sizeof cs__class_names[0] == CS_BOOK__COUNT, "one name per class");
static const char *const cs__refusal_names[] = {"ok", "full", "window", "too_large", "declined"};
CS_STATIC_ASSERT(sizeof cs__refusal_names / sizeof cs__refusal_names[0] == CS_BOOKR__COUNT,
                 "one name per refusal");

/* Name of booking class k; "unknown" out of range. */
const char *cs_book_class_name(int k)
{
    return k >= 0 && k < CS_BOOK__COUNT ? cs__class_names[k] : "unknown";
}

/* Name of refusal r; "unknown" out of range. */
const char *cs_book_refusal_name(int r)
{
    return r >= 0 && r < CS_BOOKR__COUNT ? cs__refusal_names[r] : "unknown";
}

/* floor(a * b / d) with the product in 256 bits (d >= 1); CS_U128_MAX when
 * the quotient does not fit 128 bits. */
static cs_u128 cs__muldiv(cs_u128 a, cs_u128 b, cs_u128 d)
{
    const cs_u128 m64 = ((cs_u128)1 << 64) - 1;
    cs_u128 a0 = a & m64, a1 = a >> 64, b0 = b & m64, b1 = b >> 64;
    cs_u128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    cs_u128 mid = (p00 >> 64) + (p01 & m64) + (p10 & m64);
    cs_u128 lo = (p00 & m64) | (mid << 64);
    cs_u128 hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    if (hi >= d) return CS_U128_MAX;
    /* Long division of (hi, lo) by d, one bit at a time: the remainder
     * stays below d, so doubling it may need 129 bits (tracked in top). */
    cs_u128 r = hi, q = 0;
    for (int i = 127; i >= 0; i--) {
        int top = (int)(r >> 127);
        r = (r << 1) | ((lo >> i) & 1);
        q <<= 1;
        if (top || r >= d) {
            r -= d;
            q |= 1;
        }
    }
    return q;
}

cs_u128 cs__muldiv_ppm(cs_u128 v, uint64_t ppm)
{
    return cs__muldiv(v, ppm, CS_PPM);
}

/* Massa's overbooking fee (cs_book.h). */
cs_u128 cs_book_overbooking(uint64_t S, uint64_t T, uint64_t o, uint64_t r, cs_u128 P)
{
    if (S <= T || P == 0) return 0;
    uint64_t a = o + r > T ? o + r - T : 0; /* relu(o + r - T) */
    uint64_t b = o > T ? o - T : 0;         /* relu(o - T) */
    cs_u128 num = (cs_u128)(a - b) * ((cs_u128)a + b); /* a^2 - b^2 */
    cs_u128 den = (cs_u128)(S - T) * (S - T);
    return cs__muldiv(P, num, den);
}

/* Massa's base price of the slot entering the window (cs_book.h, N73). */
cs_u128 cs_book_base_next(cs_u128 prev, uint64_t avg, uint64_t target, uint64_t denom, cs_u128 min_step,
                          cs_u128 floor, cs_u128 cap)
{
    cs_u128 next = prev;
    if (avg != target && target > 0 && denom > 0) {
        uint64_t d = avg > target ? avg - target : target - avg;
        cs_u128 step = cs__muldiv(prev, d, (cs_u128)target * denom);
        if (step < min_step) step = min_step;
        if (avg > target) next = prev + step < prev ? CS_U128_MAX : prev + step;
        else next = prev > step ? prev - step : 0;
    }
    if (next < floor) next = floor;
    if (cap != 0 && next > cap) next = cap;
    return next;
}

/* N72: C defaults to the lane, the slot penalty to C x the initial base
 * price (the price of a whole slot at that base), the window penalty to
 * ten times the slot penalty. */
void cs_book_slot_cfg(const cs_params_t *p, cs_slot_cfg_t *cfg)
{
    cfg->window = p->book_window;
    cfg->cap = p->slot_capacity ? p->slot_capacity : p->lane_timer_cycles;
    cfg->max_fires = p->max_fires_per_block;
    cfg->p_slot = p->slot_penalty ? p->slot_penalty : cs__sat_mul64(cfg->cap, p->slot_base_initial);
    cfg->p_global = p->global_penalty ? p->global_penalty : cs__sat_mul64(10, cfg->p_slot);
}

/* x effort units in cycles of the lane (N74). */
static uint64_t cs__effort(const cs_params_t *p, uint64_t x)
{
    return (uint64_t)((cs_u128)x * p->lane_timer_cycles / p->class_slot_effort);
}

void cs_book_class_cfg(const cs_params_t *p, cs_class_cfg_t *cfg)
{
    cfg->window = p->book_window;
    cfg->high = cs__effort(p, p->class_high_reserve);
    cfg->medium = cs__effort(p, p->class_medium_reserve);
    cfg->shared = cs__effort(p, p->class_shared_pool);
    cfg->low = cs__effort(p, p->class_low_max);
    cfg->slot = p->lane_timer_cycles;
    cfg->max_call = cs__effort(p, p->class_max_effort);
    cfg->max_fires = p->max_fires_per_block;
}

/* Flow's fee above the execution fee (N74): gas x basefee x (mult - 1). */
cs_u128 cs_book_class_price(const cs_params_t *p, int klass, uint64_t gas, cs_u128 basefee_cycle)
{
    uint64_t mult = klass == CS_BOOK_HIGH ? p->class_mult_high
                  : klass == CS_BOOK_MEDIUM ? p->class_mult_medium
                  : klass == CS_BOOK_LOW ? p->class_mult_low : 0;
    if (mult <= CS_PPM) return 0;
    return cs__muldiv(cs__sat_mul64(gas, basefee_cycle), mult - CS_PPM, CS_PPM);
}

/* ---------------------------------------------------------- clearing */

/* Rank of a class in the clearing order: High, Medium, then the rest. */
static unsigned cs__grp(uint8_t k)
{
    return k == CS_BOOK_HIGH ? 0u : k == CS_BOOK_MEDIUM ? 1u : 2u;
}

/* (group, due_height, fifo_rank, timer_id) ascending. */
static int cs__book_cmp(const cs_cand_t *a, const cs_cand_t *b, const void *ctx)
{
    (void)ctx;
    int r = cs__cmp_u64(cs__grp(a->klass), cs__grp(b->klass));
    if (r) return r;
    r = cs__cmp_u64(a->due_height, b->due_height);
    if (r) return r;
    r = cs__cmp_u64(a->fifo_rank, b->fifo_rank);
    if (r) return r;
    return cs__id_cmp(&a->id, &b->id);
}

int cs__book_clear(cs__ws_t *w, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                   cs_clear_out_t *out, uint64_t low_cap)
{
    const cs_params_t *p = ctx->p;
    int rc = cs__ws_reserve(w, n);
    if (rc != CS_OK) return rc;
    for (size_t i = 0; i < n; i++) {
        if (cs__prep(&c[i]) != CS_OK) return CS_EINVAL;
        w->ord[i] = (uint32_t)i;
    }
    cs__sort(w, c, n, cs__book_cmp, NULL);
    cs__tcount_reset(w);
    uint64_t left = ctx->budget_cycles, low_left = low_cap, fired = 0;
    int actor_q = p->max_fires_per_actor != 0;
    for (size_t k = 0; k < n; k++) {
        cs_cand_t *t = &c[w->ord[k]];
        int low = cs__grp(t->klass) == 2;
        t->priority = 2u - cs__grp(t->klass);
        if (p->max_fires_per_block != 0 && fired >= p->max_fires_per_block) {
            w->whyp[k] = CS_WHY_BLOCK_QUOTA;
            continue;
        }
        uint32_t *cnt = actor_q ? cs__tcount(w, t->target) : NULL;
        if (actor_q && *cnt >= p->max_fires_per_actor) {
            w->whyp[k] = CS_WHY_ACTOR_QUOTA;
            continue;
        }
        if (t->cycles > left || (low && t->cycles > low_left)) {
            w->whyp[k] = CS_WHY_BUDGET;
            continue;
        }
        left -= t->cycles;
        if (low) low_left -= t->cycles;
        if (actor_q) (*cnt)++;
        fired++;
        w->whyp[k] = CS_WHY_NONE;
        t->payment = t->bid; /* the price fixed at schedule (escrowed) */
        out->cycles_used += t->cycles;
        out->payments += t->payment;
    }
    cs__finish(w, c, n);
    out->fired = (uint32_t)fired;
    out->deferred = (uint32_t)(n - fired);
    return CS_OK;
}

/* ------------------------------------------------------ scheduler side */

int cs_sched_quote(cs_sched_t *s, const cs_quote_req_t *q, cs_quote_t *out)
{
    const cs_mech_ops_t *ops = s->mech.ops;
    if (s->mech_next_open || ops == NULL || ops->quote == NULL) return CS_EINVAL;
    if (q->gas == 0) return CS_EINVAL;
    return ops->quote(s->mech.state, &s->p, s->cur, q, out);
}

int cs_sched_book(cs_sched_t *s, const cs_quote_t *q)
{
    const cs_mech_ops_t *ops = s->mech.ops;
    if (s->mech_next_open || ops == NULL || ops->book == NULL) return CS_EINVAL;
    return ops->book(s->mech.state, &s->p, s->cur, q);
}

cs_u128 cs_sched_unbook(cs_sched_t *s, uint64_t slot, uint8_t klass, uint64_t gas, cs_u128 price, uint32_t payer)
{
    const cs_mech_ops_t *ops = s->mech.ops;
    if (s->mech_next_open || ops == NULL || ops->unbook == NULL) return 0;
    cs_u128 kept = ops->unbook(s->mech.state, &s->p, slot, klass, gas, price);
    /* The cancel released the whole escrow; the kept part is debited now,
     * burned and counted as the cancel's cost (N72, N74).  The payer holds
     * it (the released escrow was the price); never more than it has. */
    if (payer >= s->n_actors) return 0;
    cs_u128 bal = cs_sched_balance(s, payer);
    if (kept > bal) kept = bal;
    cs__fees_op_debit(s, payer, kept, 1);
    return kept;
}

cs_u128 cs_sched_slot_base(cs_sched_t *s, uint64_t slot)
{
    const cs_mech_ops_t *ops = s->mech.ops;
    if (s->mech_next_open || ops == NULL || ops->slot_base == NULL) return 0;
    return ops->slot_base(s->mech.state, &s->p, slot);
}
