/* cs_ledger.c -- checked-arithmetic ledger and timer tally (DESIGN §2.6). */
#include "cs_ledger.h"

#include "cs_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cs_ledger_dest cs_ledger_dest_of(uint32_t payments_to)
{
    /* D9: tips and auction payments go to the proposer unless payments_to = burn. */
    return payments_to == CS_PAY_PROPOSER ? CS_DEST_PROPOSER : CS_DEST_BURN;
}

void cs_ledger_init(cs_ledger_t *l)
{
    memset(l, 0, sizeof *l);
}

void cs_ledger_free(cs_ledger_t *l)
{
    free(l->bal);
    free(l->esc);
    memset(l, 0, sizeof *l);
}

/*
 * Grow both arrays to hold at least n accounts, zeroing the new ones, and
 * set l->n = max(l->n, n).  On allocation failure returns CS_ENOMEM and
 * leaves every observable field unchanged (a successful realloc of the
 * first array only changes capacity, never contents).
 */
int cs_ledger_reserve(cs_ledger_t *l, uint32_t n)
{
    if (n <= l->n) return CS_OK;
    if (n > l->cap) {
        uint64_t want = l->cap ? (uint64_t)l->cap * 2u : 16u;
        if (want < n) want = n;
        if (want > UINT32_MAX) want = UINT32_MAX;
        size_t bytes = (size_t)want * sizeof(cs_u128);
        cs_u128 *b = realloc(l->bal, bytes);
        if (b == NULL) return CS_ENOMEM;
        l->bal = b;
        cs_u128 *e = realloc(l->esc, bytes);
        if (e == NULL) return CS_ENOMEM; /* bal grew, contents intact */
        l->esc = e;
        l->cap = (uint32_t)want;
    }
    memset(l->bal + l->n, 0, (size_t)(n - l->n) * sizeof(cs_u128));
    memset(l->esc + l->n, 0, (size_t)(n - l->n) * sizeof(cs_u128));
    l->n = n;
    return CS_OK;
}

/* Make account a exist (a == UINT32_MAX cannot: the count would not fit). */
static int cs__ledger_touch(cs_ledger_t *l, uint32_t a)
{
    if (a == UINT32_MAX) return CS_EINVAL;
    return cs_ledger_reserve(l, a + 1u);
}

cs_u128 cs_ledger_balance(const cs_ledger_t *l, uint32_t a)
{
    return a < l->n ? l->bal[a] : 0;
}

cs_u128 cs_ledger_escrowed(const cs_ledger_t *l, uint32_t a)
{
    return a < l->n ? l->esc[a] : 0;
}

/* Credit amt to a, adding it to *total.  Checks both sums before growing
 * the table so a failure changes nothing. */
static int cs__ledger_credit_new(cs_ledger_t *l, uint32_t a, cs_u128 amt, cs_u128 *total)
{
    cs_u128 nb, nt;
    if (cs_u128_add(cs_ledger_balance(l, a), amt, &nb) != 0) return CS_EOVERFLOW;
    if (cs_u128_add(*total, amt, &nt) != 0) return CS_EOVERFLOW;
    int rc = cs__ledger_touch(l, a);
    if (rc != CS_OK) return rc;
    l->bal[a] = nb;
    *total = nt;
    return CS_OK;
}

int cs_ledger_fund(cs_ledger_t *l, uint32_t a, cs_u128 amt)
{
    return cs__ledger_credit_new(l, a, amt, &l->tot.initial);
}

int cs_ledger_mint(cs_ledger_t *l, uint32_t a, cs_u128 amt)
{
    return cs__ledger_credit_new(l, a, amt, &l->tot.minted);
}

int cs_ledger_transfer(cs_ledger_t *l, uint32_t from, uint32_t to, cs_u128 amt)
{
    cs_u128 nf, nt;
    if (cs_u128_sub(cs_ledger_balance(l, from), amt, &nf) != 0) return CS_EINSUFFICIENT_FUNDS;
    if (from == to) return CS_OK;
    if (cs_u128_add(cs_ledger_balance(l, to), amt, &nt) != 0) return CS_EOVERFLOW;
    int rc = cs__ledger_touch(l, to);
    if (rc != CS_OK) return rc;
    if (amt == 0) return CS_OK; /* from may be a never-credited index */
    l->bal[from] = nf;
    l->bal[to] = nt;
    return CS_OK;
}

/* The total a destination adds to, or NULL for an unknown dest. */
static cs_u128 *cs__ledger_sink(cs_ledger_t *l, cs_ledger_dest dest)
{
    switch (dest) {
    case CS_DEST_BURN: return &l->tot.burned;
    case CS_DEST_PROPOSER: return &l->tot.proposer;
    }
    return NULL;
}

int cs_ledger_charge(cs_ledger_t *l, uint32_t a, cs_u128 amt, cs_ledger_dest dest)
{
    cs_u128 *sink = cs__ledger_sink(l, dest);
    cs_u128 nb, ns;
    if (sink == NULL) return CS_EINVAL;
    if (cs_u128_sub(cs_ledger_balance(l, a), amt, &nb) != 0) return CS_EINSUFFICIENT_FUNDS;
    if (cs_u128_add(*sink, amt, &ns) != 0) return CS_EOVERFLOW;
    if (amt == 0) return CS_OK;
    l->bal[a] = nb;
    *sink = ns;
    return CS_OK;
}

int cs_ledger_charge_burn(cs_ledger_t *l, uint32_t a, cs_u128 amt)
{
    return cs_ledger_charge(l, a, amt, CS_DEST_BURN);
}

int cs_ledger_charge_proposer(cs_ledger_t *l, uint32_t a, cs_u128 amt)
{
    return cs_ledger_charge(l, a, amt, CS_DEST_PROPOSER);
}

int cs_ledger_escrow_lock(cs_ledger_t *l, uint32_t a, cs_u128 amt)
{
    cs_u128 nb, ne, nt;
    if (cs_u128_sub(cs_ledger_balance(l, a), amt, &nb) != 0) return CS_EINSUFFICIENT_FUNDS;
    if (cs_u128_add(cs_ledger_escrowed(l, a), amt, &ne) != 0) return CS_EOVERFLOW;
    if (cs_u128_add(l->tot.escrow, amt, &nt) != 0) return CS_EOVERFLOW;
    if (amt == 0) return CS_OK;
    l->bal[a] = nb;
    l->esc[a] = ne;
    l->tot.escrow = nt;
    return CS_OK;
}

int cs_ledger_escrow_release(cs_ledger_t *l, uint32_t a, cs_u128 amt)
{
    return cs_ledger_escrow_settle(l, a, amt, 0, CS_DEST_BURN);
}

int cs_ledger_escrow_pay(cs_ledger_t *l, uint32_t a, cs_u128 amt, cs_ledger_dest dest)
{
    return cs_ledger_escrow_settle(l, a, amt, amt, dest);
}

/*
 * CIP-5 §9.7: the locked bid is consumed by the payment and the rest is
 * refunded.  All sums are checked before anything is written.
 */
int cs_ledger_escrow_settle(cs_ledger_t *l, uint32_t a, cs_u128 locked, cs_u128 payment,
                            cs_ledger_dest dest)
{
    cs_u128 *sink = cs__ledger_sink(l, dest);
    cs_u128 refund, ne, nt, nb, ns;
    if (sink == NULL || payment > locked) return CS_EINVAL;
    refund = locked - payment;
    if (cs_u128_sub(cs_ledger_escrowed(l, a), locked, &ne) != 0) return CS_EINSUFFICIENT_FUNDS;
    if (cs_u128_sub(l->tot.escrow, locked, &nt) != 0) return CS_EINVARIANT;
    if (cs_u128_add(cs_ledger_balance(l, a), refund, &nb) != 0) return CS_EOVERFLOW;
    if (cs_u128_add(*sink, payment, &ns) != 0) return CS_EOVERFLOW;
    if (locked == 0) return CS_OK;
    l->esc[a] = ne;
    l->tot.escrow = nt;
    l->bal[a] = nb;
    *sink = ns;
    return CS_OK;
}

/* r = a*b + c, checked. */
static int cs__mul_add(cs_u128 a, cs_u128 b, cs_u128 c, cs_u128 *r)
{
    cs_u128 m;
    if (cs_u128_mul(a, b, &m) != 0) return -1;
    return cs_u128_add(m, c, r);
}

/* Per-cycle rate: basefee_cycle + basefee_lane + tip_rate, checked. */
static int cs__cycle_rate(const cs_fire_charge_t *c, cs_u128 *r)
{
    cs_u128 s;
    if (cs_u128_add(c->basefee_cycle, c->basefee_lane, &s) != 0) return -1;
    return cs_u128_add(s, c->tip_rate, r);
}

/* CIP-1 rev §3 step 8: max_cost = gas_limit*(basefee + priority) + max_cells*basefee_cell
 * (+ lump-sum payment). */
int cs_ledger_max_cost(const cs_fire_charge_t *c, cs_u128 *out)
{
    cs_u128 rate, cells, total;
    if (cs__cycle_rate(c, &rate) != 0) return CS_EOVERFLOW;
    if (cs__mul_add(c->max_cells, c->basefee_cell, c->lump, &cells) != 0) return CS_EOVERFLOW;
    if (cs__mul_add(c->gas_limit, rate, cells, &total) != 0) return CS_EOVERFLOW;
    *out = total;
    return CS_OK;
}

/*
 * CIP-1 rev §3 step 8: pre-charge max_cost, execute, refund the unused part;
 * burn the basefee part, tip (and lump) to the proposer (D9: or burn).
 * The net effect is applied in one step after every sum has been checked,
 * which is the same end state as pre-charge followed by refund.
 */
int cs_ledger_settle_fire(cs_ledger_t *l, uint32_t payer, const cs_fire_charge_t *c,
                          cs_fire_bill_t *bill)
{
    cs_fire_bill_t b;
    cs_u128 base, pay, burned_after, prop_after;

    if (c->used_cycles > c->gas_limit || c->used_cells > c->max_cells) return CS_EINVAL;
    /* Every field of b is assigned below (no memset: a slow rep stos here). */
    if (cs_ledger_max_cost(c, &b.max_cost) != CS_OK) return CS_EOVERFLOW;
    if (cs_ledger_balance(l, payer) < b.max_cost) return CS_EINSUFFICIENT_FUNDS;

    /* used <= limit, so each part is <= its max_cost term and fits. */
    b.burn_cycle = (cs_u128)c->used_cycles * c->basefee_cycle;
    b.burn_lane = (cs_u128)c->used_cycles * c->basefee_lane;
    b.burn_cell = (cs_u128)c->used_cells * c->basefee_cell;
    b.tip = (cs_u128)c->used_cycles * c->tip_rate;
    b.lump = c->lump;
    base = b.burn_cycle + b.burn_lane + b.burn_cell;
    pay = b.tip + b.lump;
    b.actual = base + pay; /* <= max_cost */
    b.refund = b.max_cost - b.actual;
    if (cs_ledger_dest_of(c->payments_to) == CS_DEST_PROPOSER) {
        b.to_proposer = pay;
        b.burned = base;
    } else {
        b.to_proposer = 0;
        b.burned = b.actual; /* D9 payments_to = burn */
    }

    if (cs_u128_add(l->tot.burned, b.burned, &burned_after) != 0) return CS_EOVERFLOW;
    if (cs_u128_add(l->tot.proposer, b.to_proposer, &prop_after) != 0) return CS_EOVERFLOW;
    if (b.actual != 0) l->bal[payer] -= b.actual; /* balance >= max_cost >= actual > 0 */
    l->tot.burned = burned_after;
    l->tot.proposer = prop_after;
    if (bill != NULL) *bill = b;
    return CS_OK;
}

/*
 * DESIGN §2.6 conservation of value.  The left side is summed with
 * overflow checks: a corrupted ledger whose sum exceeds 2^128 is reported
 * as a violation rather than wrapping to a value that might match.
 */
int cs_ledger_check(const cs_ledger_t *l, char *msg, size_t cap)
{
    char s1[48], s2[48], s3[48], s4[48], s5[48], s6[48];
    cs_u128 sum_bal = 0, sum_esc = 0, lhs, rhs;
    int over = 0;

    if (msg == NULL) cap = 0;
    if (cap > 0) msg[0] = '\0';
    for (uint32_t i = 0; i < l->n; i++) {
        if (cs_u128_add(sum_bal, l->bal[i], &sum_bal) != 0) over = 1;
        if (cs_u128_add(sum_esc, l->esc[i], &sum_esc) != 0) over = 1;
    }
    if (over) {
        if (cap > 0) snprintf(msg, cap, "ledger: sum of balances or escrows overflows 128 bits");
        return CS_EINVARIANT;
    }
    if (sum_esc != l->tot.escrow) {
        if (cap > 0)
            snprintf(msg, cap, "ledger: per-account escrow sums to %s but the escrow total is %s",
                     cs_u128_fmt(sum_esc, s1), cs_u128_fmt(l->tot.escrow, s2));
        return CS_EINVARIANT;
    }
    if (cs_u128_add(l->tot.initial, l->tot.minted, &rhs) != 0) {
        if (cap > 0)
            snprintf(msg, cap, "ledger: initial %s + minted %s overflows 128 bits",
                     cs_u128_fmt(l->tot.initial, s1), cs_u128_fmt(l->tot.minted, s2));
        return CS_EINVARIANT;
    }
    if (cs_u128_add(sum_bal, l->tot.escrow, &lhs) != 0 ||
        cs_u128_add(lhs, l->tot.burned, &lhs) != 0 ||
        cs_u128_add(lhs, l->tot.proposer, &lhs) != 0 || lhs != rhs) {
        if (cap > 0)
            snprintf(msg, cap,
                     "ledger: balances %s + escrow %s + burned %s + proposer %s != "
                     "initial %s + minted %s",
                     cs_u128_fmt(sum_bal, s1), cs_u128_fmt(l->tot.escrow, s2),
                     cs_u128_fmt(l->tot.burned, s3), cs_u128_fmt(l->tot.proposer, s4),
                     cs_u128_fmt(l->tot.initial, s5), cs_u128_fmt(l->tot.minted, s6));
        return CS_EINVARIANT;
    }
    return CS_OK;
}

int cs_ledger_tally_schedule(cs_tally_t *t)
{
    if (t->scheduled == UINT64_MAX || t->pending == UINT64_MAX) return CS_EOVERFLOW;
    t->scheduled++;
    t->pending++;
    return CS_OK;
}

int cs_ledger_tally_fire(cs_tally_t *t, int terminal)
{
    if (terminal && t->pending == 0) return CS_EINVARIANT;
    if (t->fire_events == UINT64_MAX) return CS_EOVERFLOW;
    t->fire_events++;
    if (terminal) {
        t->fired++;
        t->pending--;
    }
    return CS_OK;
}

int cs_ledger_tally_end(cs_tally_t *t, cs_tally_outcome o)
{
    uint64_t *c;
    switch (o) {
    case CS_TALLY_FIRED: c = &t->fired; break;
    case CS_TALLY_EXPIRED: c = &t->expired; break;
    case CS_TALLY_INSUFFICIENT: c = &t->insufficient; break;
    case CS_TALLY_CANCELLED: c = &t->cancelled; break;
    default: return CS_EINVAL;
    }
    if (t->pending == 0) return CS_EINVARIANT;
    (*c)++;
    t->pending--;
    return CS_OK;
}

/* DESIGN §2.6: scheduled = fired + expired + insufficient + cancelled + pending. */
int cs_ledger_tally_check(const cs_tally_t *t, uint64_t live_pending, char *msg, size_t cap)
{
    /* The right side is summed in 128 bits so corrupted counters cannot wrap
     * into agreement. */
    cs_u128 rhs = (cs_u128)t->fired + t->expired + t->insufficient + t->cancelled + t->pending;
    if (msg != NULL && cap > 0) msg[0] = '\0';
    if (rhs != t->scheduled) {
        if (msg != NULL && cap > 0)
            snprintf(msg, cap,
                     "tally: scheduled %llu != fired %llu + expired %llu + insufficient %llu + "
                     "cancelled %llu + pending %llu",
                     (unsigned long long)t->scheduled, (unsigned long long)t->fired,
                     (unsigned long long)t->expired, (unsigned long long)t->insufficient,
                     (unsigned long long)t->cancelled, (unsigned long long)t->pending);
        return CS_EINVARIANT;
    }
    if (live_pending != UINT64_MAX && live_pending != t->pending) {
        if (msg != NULL && cap > 0)
            snprintf(msg, cap, "tally: pending %llu but the queue holds %llu",
                     (unsigned long long)t->pending, (unsigned long long)live_pending);
        return CS_EINVARIANT;
    }
    return CS_OK;
}
