/*
 * cs_engine_output.c -- rows the engine writes while the run goes: the
 * flush of the row buffers to the HDF5 writer, the /timers row of each
 * timer that ends (with its value model) and /identities.  The /blocks,
 * /fires and /weights rows are filled in the block loop and /actors and
 * /summary at the close, in cs_engine.c.
 */
#include "cs_engine_int.h"
#include "cs_engine_output.h"
#include "cs_fixed.h"
#include "cs_ledger.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ output */

int cs__flush_rows(cs_engine_t *e)
{
    if (!e->h5) {
        e->nrb = e->nrf = e->nrt = 0;
        return CS_OK;
    }
    int rc = CS_OK;
    uint64_t t0 = cs__now_ns();
    if (e->nrb && cs_h5_append_blocks(e->h5, e->rb, e->nrb) != CS_OK) rc = CS_EIO;
    if (e->nrf && cs_h5_append_fires(e->h5, e->rf, e->nrf) != CS_OK) rc = CS_EIO;
    if (e->nrt && cs_h5_append_timers(e->h5, e->rt, e->nrt) != CS_OK) rc = CS_EIO;
    e->h5_ns += cs__now_ns() - t0;
    e->nrb = e->nrf = e->nrt = 0;
    if (rc != CS_OK) cs__seterr(e, "cannot write %s: %s", e->opts.out_path, cs_h5_last_error());
    return rc;
}

/* See cs_engine_output.h. */
void *cs__row_begin(cs_engine_t *e, cs_h5_ds ds, int *direct)
{
    size_t room = 0;
    void *p = e->h5 ? cs_h5_row_next(e->h5, ds, &room) : NULL;
    if (p) {
        *direct = room == 1 ? 2 : 1;
        return p;
    }
    *direct = 0;
    size_t *n = ds == CS_H5_FIRES ? &e->nrf : &e->nrt;
    if (*n == CS__ROWBUF && cs__flush_rows(e) != CS_OK) return NULL;
    return ds == CS_H5_FIRES ? (void *)&e->rf[e->nrf++] : (void *)&e->rt[e->nrt++];
}

/* See cs_engine_output.h. */
int cs__row_end(cs_engine_t *e, cs_h5_ds ds, int direct)
{
    if (!direct) return CS_OK;
    uint64_t t0 = direct == 2 ? cs__now_ns() : 0; /* the row fills a chunk: it is written now */
    int rc = cs_h5_row_commit(e->h5, ds);
    if (direct == 2) e->h5_ns += cs__now_ns() - t0;
    if (rc != CS_OK) {
        e->failed = 1;
        cs__seterr(e, "cannot write %s: %s", e->opts.out_path, cs_h5_last_error());
    }
    return rc;
}

/*
 * The value-model columns of a /timers row: the agent's value of a fire
 * at delay d in the closed form v(d) = max(0, value e^(-decay_rate d) -
 * decay d), 0 past a nonzero deadline (analysis/cs_optimum.h).  Agents
 * without their own value function use the linear default, which is this
 * form with rate 0, bit for bit.  For an agent with its own, the rate is
 * fitted from v(0) and v(1) (decay 0) and checked at further delays;
 * decay_rate is NaN when the form does not reproduce it within 1e-9 of v(0).
 */
static void cs__value_model(const cs_engine_t *e, uint32_t slot, const cs_timer_t *t, cs_h5_timer_t *r)
{
    const cs__tinfo_t *ti = &e->ti[slot];
    uint32_t ag;
    (void)cs__ti_owner(e, slot, &ag, NULL);
    const cs_agent_t *a = &e->agents[ag];
    uint64_t deadline = cs__ti_deadline(e, slot);
    r->deadline = deadline;
    r->value = ti->value;
    r->decay = ti->decay;
    r->decay_rate = 0;
    if (!a->ops->value) return;
    cs_timer_info_t in = cs__info(e, slot, t);
    double v0 = cs__value(e, a, &in, 0), v1 = cs__value(e, a, &in, 1);
    r->value = v0;
    r->decay = 0;
    r->decay_rate = v0 > 0 && v1 > 0 ? log(v0 / v1) : v0 > 0 ? (double)NAN : 0;
    static const uint64_t probe[] = {2, 3, 5, 10, 30, 100};
    for (size_t i = 0; i < sizeof probe / sizeof probe[0] + 2 && !isnan(r->decay_rate); i++) {
        uint64_t d = i < sizeof probe / sizeof probe[0] ? probe[i] : deadline + (i - sizeof probe / sizeof probe[0]);
        double want = cs__value(e, a, &in, d), got = 0;
        if (!(deadline != 0 && d > deadline)) got = v0 * exp(-r->decay_rate * (double)d);
        if (fabs(got - want) > 1e-9 * (v0 > 1 ? v0 : 1)) r->decay_rate = (double)NAN;
    }
}

/* A /timers row for a timer that ended (or is pending at the close). */
void cs__timer_row(cs_engine_t *e, uint32_t slot, int outcome, uint64_t end_h)
{
    if (!cs__ti_live(e, slot)) return;
    const cs_timer_t *t = cs_sched_record(e->s, slot);
    cs__tinfo_t *ti = &e->ti[slot];
    uint32_t ag;
    int direct;
    cs_h5_timer_t *r = cs__row_begin(e, CS_H5_TIMERS, &direct);
    if (!r) {
        e->failed = 1;
        return;
    }
    static const cs_h5_timer_t zero; /* copied, not memset (a rep stos; see cs__agent_req_zero) */
    *r = zero;
    r->timer_id = cs__id64(&t->id);
    r->actor = cs__ti_owner(e, slot, &ag, NULL);
    r->agent = ag;
    r->kind = e->agent_kind[ag];
    r->trigger = cs_sched_hot(e->s, slot)->kind;
    r->outcome = (uint32_t)outcome;
    r->every_blocks = r->trigger == CS_KIND_WATCH ? 0 : t->every_blocks; /* agents give watch timers none */
    r->sched_height = t->sched_height;
    r->due_height = cs__ti_first_due(e, slot);
    r->end_height = end_h;
    r->deferrals = ti->deferrals + cs_sched_silent(e->s, slot); /* and those without a row (N80) */
    r->fires = ti->fires;
    r->gas_limit = t->gas_limit;
    r->expires_at = cs_sched_expires_at(e->s, slot);
    r->bid = cs_h5_money(cs_sched_bid(e->s, slot)); /* for the starved actors of CIP-5 §9.6 (N43) */
    if (ti->x >= CS__TI_X0 && e->tex[ti->x - CS__TI_X0].booked) {
        const cs__textra_t *xt = &e->tex[ti->x - CS__TI_X0];
        r->book_class = cs_sched_hot(e->s, slot)->tier_hint;
        r->book_moved = xt->book_moved;
        r->book_price = cs_h5_money(xt->book_price);
    }
    cs__value_model(e, slot, t, r);
    if (r->fires == 0 && r->due_height <= end_h &&
        (outcome == CS_H5_OUTCOME_PENDING || outcome == CS_H5_OUTCOME_EXPIRED ||
         outcome == CS_H5_OUTCOME_INSUFFICIENT))
        e->actors[r->actor].starved++;
    (void)cs__row_end(e, CS_H5_TIMERS, direct); /* a failure sets e->failed */
    if (outcome != CS_H5_OUTCOME_PENDING) cs__ti_end(e, slot);
}

/* /identities: actors 0..n_actors-1 (ident == actor), then each named
 * deployer once, in order of first appearance (its scheduler index, which
 * the two-pass interning in cs_sim_init makes n_actors, n_actors + 1, ...).
 * Written in pieces so memory does not grow with actors.  CS_OK, CS_EIO or
 * CS_ENOMEM. */
int cs__write_idents(cs_engine_t *e)
{
    enum { PIECE = 1024 };
    cs_h5_ident_t *rows = calloc(PIECE, sizeof *rows);
    if (!rows) return CS_ENOMEM;
    int rc = CS_OK;
    size_t n = 0;
    for (size_t k = 0; k < e->n_actors && rc == CS_OK; k++) {
        memset(&rows[n], 0, sizeof rows[n]);
        rows[n].ident = (uint32_t)k;
        rows[n].kind = CS_H5_IDENT_ACTOR;
        rows[n].actor = (uint32_t)k;
        if (++n == PIECE) {
            rc = cs_h5_append_idents(e->h5, rows, n);
            n = 0;
        }
    }
    uint32_t next = (uint32_t)e->n_actors;
    for (size_t i = 0; i < e->scn->n_agents && rc == CS_OK; i++) {
        const char *name = e->scn->agents[i].deployer;
        cs_addr_t dep;
        uint32_t di;
        if (!name) continue;
        cs__deployer_addr(name, &dep);
        if ((rc = cs_sched_actor_index(e->s, &dep, &di)) != CS_OK || di != next) continue; /* seen */
        next++;
        memset(&rows[n], 0, sizeof rows[n]);
        rows[n].ident = di;
        rows[n].kind = CS_H5_IDENT_DEPLOYER;
        rows[n].actor = UINT32_MAX;
        memcpy(rows[n].name, name, strnlen(name, sizeof rows[n].name)); /* the loader caps names at 128 bytes */
        if (++n == PIECE) {
            rc = cs_h5_append_idents(e->h5, rows, n);
            n = 0;
        }
    }
    if (rc == CS_OK && n) rc = cs_h5_append_idents(e->h5, rows, n);
    free(rows);
    return rc;
}

/* CIP-5 §9.2's N_max of the run (DESIGN-NOTES N62), as root attributes:
 * the competitor's wealth T is the largest balance any account holds when
 * the run starts (nmax_wealth_exact, a decimal string), lambda the
 * parameter's (nmax_lambda, the loop's start when lambda_control is on),
 * S = bias_scale (nmax_bias_scale_exact);
 *   nmax_spec  = ln(T / 3) / lambda, the spec's formula (-1 when T <= 3 or
 *                lambda = 0);
 *   nmax_exact = the least n with Bias(n) > T + Bias(0) under cowsim's
 *                priority (V = bid + Bias(n) per cycle, Bias(n) =
 *                floor(S e^(n lambda)), D7): the deferrals after which a
 *                bid-0 timer outranks a fresh competitor bidding all of T
 *                with the same cycles; UINT64_MAX when no n < 2^32 does.
 * Beside them lambda_loop, the §9.3 loop the run starts with: "off",
 * "share" (the on-chain proxy, N20) or "invariant" (N70).
 * CS_OK or CS_EIO. */
int cs__write_nmax(cs_engine_t *e)
{
    const cs_params_t *p = cs_sched_params(e->s);
    const cs_ledger_t *l = cs_sched_ledger(e->s);
    cs_u128 T = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        cs_u128 b = cs_ledger_balance(l, i);
        if (b > T) T = b;
    }
    cs_u128 need = T + cs_fixed_bias(0, p->lambda, p->bias_scale);
    if (need < T) need = CS_U128_MAX; /* saturate */
    uint64_t exact = UINT64_MAX;
    if (cs_fixed_bias(UINT32_MAX, p->lambda, p->bias_scale) > need) {
        uint64_t lo = 0, hi = UINT32_MAX; /* Bias(hi) > need; find the least such n */
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (cs_fixed_bias((uint32_t)mid, p->lambda, p->bias_scale) > need) hi = mid;
            else lo = mid + 1;
        }
        exact = lo;
    }
    double lam = (double)p->lambda / (double)CS_PPB;
    double spec = T > 3 && p->lambda > 0 ? log(cs__u128d(T) / 3.0) / lam : -1.0;
    char buf[48];
    int rc = cs_h5_attr_str(e->h5, "nmax_wealth_exact", cs_u128_fmt(T, buf));
    if (rc == CS_OK) rc = cs_h5_attr_str(e->h5, "nmax_bias_scale_exact", cs_u128_fmt(p->bias_scale, buf));
    if (rc == CS_OK) rc = cs_h5_attr_f64(e->h5, "nmax_lambda", lam);
    if (rc == CS_OK) rc = cs_h5_attr_f64(e->h5, "nmax_spec", spec);
    if (rc == CS_OK) rc = cs_h5_attr_u64(e->h5, "nmax_exact", exact);
    /* Which §9.3 lambda loop runs (N20, N70): the report names it beside
     * the invariant's violation share. */
    const char *loop = p->lambda_control != CS_LAMBDA_ON                  ? "off"
                       : p->lambda_controller == CS_LAMBDA_CTL_INVARIANT ? "invariant"
                                                                         : "share";
    if (rc == CS_OK) rc = cs_h5_attr_str(e->h5, "lambda_loop", loop);
    return rc == CS_OK ? CS_OK : CS_EIO;
}
