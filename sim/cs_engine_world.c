/*
 * cs_engine_world.c -- the engine's side of the timers and the agents: the
 * per-slot side table and its extras (DESIGN-NOTES N46), the world ops an
 * agent calls (schedule, with the arrival batch; cancel; write a key;
 * height; balance), and the hooks the scheduler core calls at a fire (the
 * handler, the fire-time GBA).  See cs_engine_int.h.
 */
#include "cs_engine_int.h"
#include "cs_engine_output.h"
#include "cs_engine_world.h"

#include "cs_basefee.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ world ops */

#define CS__BIND_AHEAD 8u /* binds ahead cs__batch_flush prefetches a slot's entries */

/* Room for one more element in the array p of n used out of *cap (elem
 * bytes each), doubling from 64: returns the array (moved or not), or
 * NULL when out of memory (p and *cap are then unchanged). */
static void *cs__room(void *p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) return p;
    size_t c = *cap ? *cap * 2 : 64;
    void *q = realloc(p, c * elem);
    if (q) *cap = c;
    return q;
}

/* Make slots [0, n) of the side table usable.  The table follows the
 * scheduler's slot high-water mark: capacity grows by half (untouched pages
 * cost no memory), and only the slots newly in use are zeroed, so a slot
 * below ti_n that never held a timer reads as not live. */
static int cs__ti_reserve(cs_engine_t *e, size_t n)
{
    if (n <= e->ti_n) return CS_OK;
    if (n > e->ti_cap) {
        size_t c = e->ti_cap ? e->ti_cap + e->ti_cap / 2 : 4096;
        if (c < n) c = n;
        cs__tinfo_t *p = realloc(e->ti, c * sizeof *p);
        if (!p) return CS_ENOMEM;
        e->ti = p;
        e->ti_cap = c;
    }
    memset(e->ti + e->ti_n, 0, (n - e->ti_n) * sizeof *e->ti);
    e->ti_n = n;
    return CS_OK;
}

/* A zeroed extras entry for the live timer in slot (which has none), or
 * NULL when out of memory. */
cs__textra_t *cs__ti_extra_new(cs_engine_t *e, uint32_t slot)
{
    uint32_t k;
    if (e->n_tex_free > 0) {
        k = e->tex_free[--e->n_tex_free];
    } else {
        if (e->n_tex == e->tex_cap) {
            /* The free list holds distinct entries, so with capacity
             * tex_cap it never overflows; grown first, like the table. */
            size_t c = e->tex_cap ? e->tex_cap + e->tex_cap / 2 : 1024;
            if (c > (size_t)UINT32_MAX - CS__TI_X0) return NULL;
            uint32_t *nf = realloc(e->tex_free, c * sizeof *nf);
            if (!nf) return NULL;
            e->tex_free = nf;
            cs__textra_t *nx = realloc(e->tex, c * sizeof *nx);
            if (!nx) return NULL;
            e->tex = nx;
            e->tex_cap = c;
        }
        k = (uint32_t)e->n_tex++;
    }
    cs__textra_t *x = &e->tex[k];
    memset(x, 0, sizeof *x);
    e->ti[slot].x = k + CS__TI_X0;
    return x;
}

/* Bind slot (reserved) to a new timer of agent a made from req, first due
 * at due: its side-table slot and, when it needs them, its extras (a value
 * deadline; a value-aware agent's requested fees for the fire-time GBA,
 * which reads them only when the request has fees).  A value-aware timer
 * without either gets its entry when first priced out.  CS_OK or
 * CS_ENOMEM (the slot is then free). */
static int cs__ti_set(cs_engine_t *e, uint32_t slot, const cs_agent_t *a, const cs_timer_req_t *req, uint64_t due)
{
    cs__ti_end(e, slot); /* the slot's previous timer, if it ended without a row */
    cs__tinfo_t *ti = &e->ti[slot];
    ti->tag = req->tag;
    ti->fires = 0;
    uint64_t sh = cs_sched_record(e->s, slot)->sched_height;
    int wide_c = req->cycles_used >= CS__TI_WIDE, wide_d = due < sh || due - sh >= CS__TI_WIDE;
    ti->cycles = wide_c ? CS__TI_WIDE : (uint32_t)req->cycles_used;
    ti->due_off = wide_d ? CS__TI_WIDE : (uint32_t)(due - sh);
    ti->value = req->value;
    ti->decay = req->decay;
    ti->deferrals = 0;
    ti->x = CS__TI_LIVE;
    int fees = a->pol.value_aware && req->has_fees;
    int split = req->split_rem != 0 || req->split_due != 0;
    if (req->deadline == 0 && !fees && !wide_c && !wide_d && !split) return CS_OK;
    cs__textra_t *x = cs__ti_extra_new(e, slot);
    if (!x) {
        ti->x = CS__TI_FREE;
        return CS_ENOMEM;
    }
    x->deadline = req->deadline;
    x->cycles = req->cycles_used;
    x->first_due = due;
    x->req_fees = (uint8_t)fees;
    x->req_fee = fees ? req->max_fee : 0;
    x->req_prio = fees ? req->max_prio : 0;
    if (split) {
        x->split_rem = req->split_rem;
        x->split_due = req->split_due ? req->split_due : due;
        x->split_ttl = req->ttl;
        x->split_bid = req->bid;
        x->split_has_bid = (uint8_t)req->has_bid;
        x->split_tier = req->tier;
    }
    return CS_OK;
}

static void cs__bind(cs_engine_t *e, uint32_t slot, const cs_timer_req_t *req, uint32_t agent, uint64_t due);

/*
 * Commit the arrival batch: consecutive schedules of the TX phase that
 * did not ask for their id share one core transaction, so their CIP-5
 * §3.3 ids are derived together at commit (cs_timer_id_many) instead of
 * one permutation at a time.  Merging them is exact: a commit changes
 * nothing a later schedule's validation reads (per-actor counts are
 * pending + staged either way, balances move only with bid escrow, which
 * mechanisms with CS_MF_BID do not batch), and every other world call
 * commits the batch first, so effects keep their order.  Then each
 * landed timer gets its engine record.  CS_OK, or the commit's error
 * (the run stops).
 */
int cs__batch_flush(cs_engine_t *e)
{
    if (!e->batch_open) return CS_OK;
    e->batch_open = 0;
    int rc = cs_sched_tx_commit(e->s);
    for (size_t k = 0; k < e->n_bpend; k++) {
        uint32_t slot = cs_sched_tx_slot(e->s, k);
        /* The landed slots are all over the pool: each bind's first loads
         * (its side-table entry, the record's scheduling height) miss, so
         * they are fetched a few binds ahead. */
        uint32_t ahead = k + CS__BIND_AHEAD < e->n_bpend ? cs_sched_tx_slot(e->s, k + CS__BIND_AHEAD) : CS_NIL;
        if (ahead < e->ti_n) { /* an entry may straddle two lines */
            __builtin_prefetch(&e->ti[ahead], 1);
            __builtin_prefetch((const char *)(&e->ti[ahead] + 1) - 1, 1);
        }
        if (ahead != CS_NIL) {
            const cs_timer_t *t = cs_sched_record(e->s, ahead);
            if (t) __builtin_prefetch(&t->sched_height);
        }
        if (slot != CS_NIL) cs__bind(e, slot, &e->bpend[k].req, e->bpend[k].agent, e->bpend[k].due);
    }
    e->n_bpend = 0;
    if (rc != CS_OK) {
        e->failed = 1;
        cs__seterr(e, "%s scheduling the timers of block %llu", rc == CS_ENOMEM ? "out of memory" : cs_strerror(rc),
                   (unsigned long long)e->h + 1);
    }
    return rc;
}

/* Stage sa in the arrival batch (opening it); on success remember the
 * request for its record.  The core's error otherwise (nothing staged).
 * A batch holds at most CS__BATCH_MAX schedules: a full one is committed
 * first, which is exact for the reason merging is (cs__batch_flush), and
 * keeps the staging arrays small when a block brings 10^5 arrivals. */
static int cs__batch_schedule(cs_engine_t *e, cs_sched_args_t *sa, const cs_timer_req_t *req, uint32_t agent)
{
    if (e->n_bpend >= CS__BATCH_MAX) {
        int rc = cs__batch_flush(e);
        if (rc != CS_OK) return rc;
    }
    if (!e->batch_open) {
        int rc = cs_sched_tx_begin(e->s);
        if (rc != CS_OK) return rc;
        e->batch_open = 1;
    }
    cs__hpend_t *bp = cs__room(e->bpend, &e->cap_bpend, e->n_bpend, sizeof *e->bpend);
    if (!bp) return CS_ENOMEM;
    e->bpend = bp;
    sa->id_at_commit = 1;
    int rc = cs_sched_schedule(e->s, sa, NULL, NULL);
    if (rc != CS_OK) return rc;
    e->bpend[e->n_bpend].req = *req;
    e->bpend[e->n_bpend].agent = agent;
    e->bpend[e->n_bpend].due = sa->height;
    e->bpend[e->n_bpend].booked = 0; /* booking rules do not batch (CS_MF_BID) */
    e->n_bpend++;
    return CS_OK;
}

static int cs__w_schedule(void *impl, cs_agent_t *a, const cs_timer_req_t *req0, cs_hash_t *id_out)
{
    cs_engine_t *e = impl;
    cs_timer_req_t req = *req0;
    if (!e->split_tail) req.split_rem = req.split_due = 0;
    if (a->ops->bid && !e->split_tail) a->ops->bid(a, &e->obs, &req);
    if (a->strat && !e->split_tail) {
        cs_strategy_bid(a, &e->obs, &req);
        if (req.has_bid && req.value > 0) cs_conv_add(e->conv, a->strat, e->h + 1, req.bid / req.value);
    }
    if (req.actor >= a->n_actors) return CS_EINVAL;
    uint32_t gact = a->first_actor + req.actor;
    uint64_t cur = e->h + 1;
    if (a->pol.value_aware && (cs_sched_mech(e->s)->ops->flags & CS_MF_FEES)) {
        /* A value-aware agent whose payer cannot cover the fire's
         * pre-charge at today's prices (CIP-1 rev §3 step 8 max_cost with
         * the default GBA's headroom) does not send it: it would only be
         * destroyed through the GC lane. */
        const cs_params_t *pp = cs_sched_params(e->s);
        double gl = (double)(req.gas_limit ? req.gas_limit : pp->max_cycles_per_fire);
        double cost = gl * (e->obs.basefee_cycle + (double)pp->gba_headroom / 1e6 * e->obs.basefee_lane) +
                      (double)pp->fifo_fire_cells * e->obs.basefee_cell;
        if (cs__u128d(cs_sched_balance(e->s, e->actors[gact].payer_idx)) < cost) return CS_EINSUFFICIENT_FUNDS;
    }
    /* over_cap split (CIP-1 rev §10: "Actors with handlers that legitimately
     * need >250k cycles can split the work across multiple timer fires";
     * N86): an auction-phase one-shot timer whose work is above the cap
     * runs its first cap's worth now; each fire's handler schedules the
     * rest (cs__hook_execute), due the next block (§4). */
    const cs_params_t *cp = cs_sched_params(e->s);
    unsigned mf = cs_sched_mech(e->s)->ops->flags;
    if (cp->over_cap == CS_OVER_CAP_SPLIT && req.kind == CS_KIND_HEIGHT && (mf & CS_MF_BUDGET) &&
        (mf & (CS_MF_FEES | CS_MF_BID | CS_MF_REFERENCE)) && req.gas_limit > cp->max_cycles_per_fire) {
        uint64_t work = req.cycles_used ? req.cycles_used : req.gas_limit;
        uint64_t piece = work < cp->max_cycles_per_fire ? work : cp->max_cycles_per_fire;
        req.split_rem = work - piece;
        req.gas_limit = cp->max_cycles_per_fire;
        req.cycles_used = piece;
    }
    static const cs_sched_args_t sa_zero; /* copied, not memset: see cs__agent_req_zero */
    cs_sched_args_t sa = sa_zero;
    sa.actor = e->addr[gact];
    sa.actor_hint = gact + 1; /* no actor-map search: the scheduler's index is the actor's (cs_sim_init) */
    /* CIP-1 rev §6 fee_payer (§3 step 4, §13.1): with fee_payer = deployer
     * the deployer is charged every fee, bid escrow and payment. */
    cs_addr_t payer;
    if (e->payer_dep[a->index] && e->actors[gact].payer_idx != gact) {
        payer = *cs_sched_actor_addr(e->s, e->actors[gact].payer_idx);
        sa.fee_payer = &payer;
        sa.payer_hint = e->actors[gact].payer_idx + 1;
    }
    sa.kind = req.kind;
    sa.height = cur + (req.delay ? req.delay : 1);
    sa.every_blocks = req.every_blocks;
    static const uint8_t zeros[4096];
    uint32_t plen = req.payload_len > sizeof zeros ? (uint32_t)sizeof zeros : req.payload_len;
    sa.payload = plen ? zeros : NULL;
    sa.payload_len = plen;
    sa.gas_limit = req.gas_limit;
    sa.expires_at = req.ttl ? sa.height + req.ttl : 0;
    sa.has_bid = req.has_bid;
    sa.bid = cs__d2u(req.bid);
    sa.has_fees = req.has_fees;
    sa.max_fee = cs__d2u(req.max_fee);
    sa.max_prio = cs__d2u(req.max_prio);
    /* A value-aware agent's fees are applied at fire time, capped by what
     * the fire is then worth (cs_agent_gba; CIP-1 rev §7.2 custom GBA) --
     * unless D4 = schedule, where no fire-time GBA runs for timers without
     * fees and the stated ones must stand. */
    if (a->pol.value_aware && (cs_sched_mech(e->s)->ops->flags & CS_MF_FEES) &&
        cs_sched_params(e->s)->default_gba_eval != CS_GBA_EVAL_SCHEDULE)
        sa.has_fees = 0;
    if (cs_sched_mech(e->s)->ops->flags & CS_MF_REFERENCE) {
        /* The reference allocator ranks by true value (never charged). */
        sa.has_bid = 1;
        sa.bid = cs__d2u(req.value);
        sa.has_fees = 0;
    }
    sa.tier_hint = req.tier;
    /* Schedule-time booking (issue 28, cs_engine_book.c): a one-shot timer
     * an agent schedules (from a transaction or a handler) is quoted now
     * and booked at the offer it takes -- due at its slot, the price
     * escrowed as its bid, the class as its tier hint; an interval or
     * watch timer is not booked (class none, no bid).  A refusal is a
     * rejected schedule, counted by reason. */
    cs_quote_t bq;
    int booking = 0;
    uint64_t want = sa.height;
    if (cs_sched_mech(e->s)->ops->flags & CS_MF_BOOK) {
        sa.tier_hint = CS_BOOK_NONE;
        sa.has_bid = 0;
        sa.bid = 0;
        if (req.kind == CS_KIND_HEIGHT) {
            const cs_params_t *pp = cs_sched_params(e->s);
            int rc = cs__book_choose(e, a, &req, want, req.gas_limit ? req.gas_limit : pp->max_cycles_per_fire, &bq);
            if (rc == CS_EBOOKING_REFUSED) {
                e->blk_book_ref[bq.refused < CS_BOOKR__COUNT ? bq.refused : CS_BOOKR_FULL]++;
                e->blk_rejected++;
                return rc;
            }
            if (rc != CS_OK) return rc;
            booking = 1;
            sa.height = bq.slot;
            sa.expires_at = req.ttl ? sa.height + req.ttl : 0;
            sa.has_bid = bq.price > 0;
            sa.bid = bq.price;
            sa.tier_hint = bq.klass;
        }
    }
    const uint8_t *wk[1];
    size_t wl[1];
    if (req.kind == CS_KIND_WATCH) {
        wk[0] = (const uint8_t *)(req.watch_key ? req.watch_key : "");
        wl[0] = strlen((const char *)wk[0]);
        sa.watch_keys = wk;
        sa.watch_key_lens = wl;
        sa.n_watch = 1;
    }
    cs_hash_t id;
    int rc;
    int batched = e->in_arrivals && !e->in_handler && id_out == NULL &&
                  !(cs_sched_mech(e->s)->ops->flags & CS_MF_BID);
    if (batched) {
        rc = cs__batch_schedule(e, &sa, &req, a->index);
    } else if (e->in_handler) {
        rc = cs_sched_schedule(e->s, &sa, &id, NULL);
    } else if ((rc = cs__batch_flush(e)) != CS_OK) {
        return rc;
    } else {
        rc = cs_sched_tx_begin(e->s);
        if (rc != CS_OK) return rc;
        rc = cs_sched_schedule(e->s, &sa, &id, NULL);
        if (rc == CS_OK) rc = cs_sched_tx_commit(e->s);
        else cs_sched_tx_rollback(e->s);
    }
    if (rc == CS_ENOMEM) {
        /* Out of memory is not a rejection the agent could react to: the
         * run stops (exit 3) instead of silently losing the timer. */
        e->failed = 1;
        cs__seterr(e, "out of memory scheduling a timer at block %llu", (unsigned long long)cur);
        return rc;
    }
    if (rc != CS_OK) {
        e->blk_rejected++;
        return rc;
    }
    if (booking && cs_sched_book(e->s, &bq) != CS_OK) {
        /* The offer was made just now and nothing has booked since (a
         * handler's timer books as soon as it is staged, not at its
         * transaction's commit, so the next handler's quote sees it): it
         * cannot fail unless the core is inconsistent. */
        e->failed = 1;
        cs__seterr(e, "a booking quoted at block %llu no longer fits", (unsigned long long)cur);
        return CS_EINVARIANT;
    }
    /* Engine-side record of the timer.  Inside a handler the record lands
     * at commit, so it is found then (cs__bind_pending). */
    e->act_sched[gact]++;
    e->kind_timers[e->agent_kind[a->index]]++;
    e->kind_timers[CS_AK__COUNT]++;
    if (batched) return CS_OK; /* its record is made when the batch commits */
    const cs_timer_t *t = cs_sched_find(e->s, &id);
    if (t == NULL && !e->in_handler) return CS_OK; /* landed and vanished: impossible */
    if (t) {
        uint32_t slot = (uint32_t)(t - cs_sched_record(e->s, 0));
        if (cs__ti_reserve(e, (size_t)slot + 1) != CS_OK || cs__ti_set(e, slot, a, &req, booking ? want : sa.height) != CS_OK ||
            (booking && cs__book_keep(e, slot, &bq, want) != CS_OK)) {
            e->failed = 1; /* the timer landed but its record could not be kept */
            cs__seterr(e, "out of memory at block %llu", (unsigned long long)cur);
            return CS_ENOMEM;
        }
    } else {
        /* Staged inside a handler: remember the request until commit. */
        if (e->n_hpend == e->cap_hpend) {
            size_t c = e->cap_hpend ? e->cap_hpend * 2 : 16;
            void *p = realloc(e->hpend, c * sizeof *e->hpend);
            if (!p) {
                e->failed = 1; /* the staged timer would land without its record */
                cs__seterr(e, "out of memory at block %llu", (unsigned long long)cur);
                return CS_ENOMEM;
            }
            e->hpend = p;
            e->cap_hpend = c;
        }
        e->hpend[e->n_hpend].id = id;
        e->hpend[e->n_hpend].req = req;
        e->hpend[e->n_hpend].agent = a->index;
        e->hpend[e->n_hpend].due = booking ? want : sa.height;
        e->hpend[e->n_hpend].booked = (uint8_t)booking;
        e->hpend[e->n_hpend].want = want;
        if (booking) e->hpend[e->n_hpend].quote = bq;
        e->n_hpend++;
    }
    if (id_out) *id_out = id;
    return CS_OK;
}

/* Queue an operation on the timer in slot for the next block. */
static int cs__pc_op(cs_engine_t *e, const cs_hash_t *id, uint32_t slot, uint32_t op, uint64_t new_exp)
{
    cs__pcancel_t *pc = cs__room(e->pc, &e->cap_pc, e->n_pc, sizeof *e->pc);
    if (!pc) return CS_ENOMEM;
    e->pc = pc;
    e->pc[e->n_pc].id = *id;
    (void)cs__ti_owner(e, slot, &e->pc[e->n_pc].agent, &e->pc[e->n_pc].actor);
    e->pc[e->n_pc].op = op;
    e->pc[e->n_pc].new_expires_at = new_exp;
    e->n_pc++;
    return CS_OK;
}

/* Queue a cancel of the timer in slot for the next block. */
int cs__pc_push(cs_engine_t *e, const cs_hash_t *id, uint32_t slot)
{
    return cs__pc_op(e, id, slot, CS__PC_OWNER, 0);
}

/* CIP-1 rev §12 (N55): the system deployers cancel a timer deferred
 * sys_cancel_after times (SYS_CANCEL_TIMER, opcode 48) or, failing that,
 * extend one whose TTL ends within sys_extend_within blocks by
 * sys_extend_by (SYS_EXTEND_TIMER, opcode 50), at the next block. */
int cs__sys_note(cs_engine_t *e, const cs_agent_t *a, uint32_t slot, const cs_hash_t *id, uint64_t deferrals,
                 uint64_t h)
{
    if (a->pol.sys_cancel_after && deferrals >= a->pol.sys_cancel_after)
        return cs__pc_op(e, id, slot, CS__PC_SYS_CANCEL, 0);
    if (a->pol.sys_extend_within) {
        uint64_t exp = cs_sched_expires_at(e->s, slot);
        if (exp != 0 && exp >= h && exp - h <= a->pol.sys_extend_within)
            return cs__pc_op(e, id, slot, CS__PC_SYS_EXTEND, exp + a->pol.sys_extend_by);
    }
    return CS_OK;
}

void cs__pc_apply(cs_engine_t *e, const cs__pcancel_t *pc)
{
    const cs_timer_t *t = cs_sched_find(e->s, &pc->id);
    if (t == NULL) return;
    if (pc->op == CS__PC_OWNER) {
        (void)cs__w_cancel(e, &e->agents[pc->agent], pc->actor, &pc->id);
        return;
    }
    if (cs__batch_flush(e) != CS_OK) return;
    uint32_t slot = (uint32_t)(t - cs_sched_record(e->s, 0));
    if (pc->op == CS__PC_SYS_CANCEL) {
        if (cs_sched_sys_cancel(e->s, &pc->id) == CS_OK) {
            cs__book_release(e, slot);
            cs__timer_row(e, slot, CS_H5_OUTCOME_CANCELLED, e->h + 1);
        }
    } else {
        (void)cs_sched_sys_extend(e->s, &pc->id, pc->new_expires_at);
    }
}

static void cs__bind(cs_engine_t *e, uint32_t slot, const cs_timer_req_t *req, uint32_t agent, uint64_t due)
{
    if (cs__ti_reserve(e, (size_t)slot + 1) != CS_OK || cs__ti_set(e, slot, &e->agents[agent], req, due) != CS_OK) {
        e->failed = 1; /* a timer without its record: stop rather than lose its rows */
        cs__seterr(e, "out of memory at block %llu", (unsigned long long)e->h + 1);
    }
}

void cs__bind_pending(cs_engine_t *e)
{
    const cs_timer_t *base = cs_sched_record(e->s, 0);
    for (size_t i = 0; i < e->n_hpend; i++) {
        const cs_timer_t *t = cs_sched_find(e->s, &e->hpend[i].id);
        if (!t) continue;
        uint32_t slot = (uint32_t)(t - base);
        cs__bind(e, slot, &e->hpend[i].req, e->hpend[i].agent, e->hpend[i].due);
        if (e->hpend[i].booked && !e->failed && cs__book_keep(e, slot, &e->hpend[i].quote, e->hpend[i].want) != CS_OK) {
            e->failed = 1;
            cs__seterr(e, "out of memory at block %llu", (unsigned long long)e->h + 1);
        }
    }
    e->n_hpend = 0;
}

int cs__w_cancel(void *impl, cs_agent_t *a, uint32_t actor, const cs_hash_t *id)
{
    cs_engine_t *e = impl;
    if (actor >= a->n_actors) return CS_EINVAL;
    int rc = cs__batch_flush(e);
    if (rc != CS_OK) return rc;
    const cs_addr_t *ad = &e->addr[a->first_actor + actor];
    const cs_timer_t *t = cs_sched_find(e->s, id);
    uint32_t slot = t ? (uint32_t)(t - cs_sched_record(e->s, 0)) : CS_NIL;
    if (e->in_handler) {
        rc = cs_sched_cancel(e->s, ad, id, NULL);
    } else {
        rc = cs_sched_tx_begin(e->s);
        if (rc != CS_OK) return rc;
        rc = cs_sched_cancel(e->s, ad, id, NULL);
        if (rc == CS_OK) rc = cs_sched_tx_commit(e->s);
        else cs_sched_tx_rollback(e->s);
    }
    if (rc == CS_OK && slot != CS_NIL && !e->in_handler) {
        cs__book_release(e, slot);
        cs__timer_row(e, slot, CS_H5_OUTCOME_CANCELLED, e->h + 1);
    }
    return rc;
}

static int cs__w_write_key(void *impl, cs_agent_t *a, uint32_t actor, const char *key)
{
    cs_engine_t *e = impl;
    (void)a;
    (void)actor;
    if (e->in_handler) return cs_sched_write_key(e->s, (const uint8_t *)key, strlen(key));
    int rc = cs__batch_flush(e);
    if (rc != CS_OK) return rc;
    rc = cs_sched_tx_begin(e->s);
    if (rc != CS_OK) return rc;
    rc = cs_sched_write_key(e->s, (const uint8_t *)key, strlen(key));
    if (rc == CS_OK) rc = cs_sched_tx_commit(e->s);
    else cs_sched_tx_rollback(e->s);
    return rc;
}

static uint64_t cs__w_height(const void *impl)
{
    const cs_engine_t *e = impl;
    return e->h + 1;
}

/* The fee payer's balance (CIP-1 rev §6): value-aware entry tests it. */
static double cs__w_balance(const void *impl, const cs_agent_t *a, uint32_t actor)
{
    const cs_engine_t *e = impl;
    if (actor >= a->n_actors) return 0;
    return cs__u128d(cs_sched_balance(e->s, e->actors[a->first_actor + actor].payer_idx));
}

static const cs_world_ops_t cs__world_ops = {cs__w_schedule, cs__w_cancel, cs__w_write_key,
                                             cs__w_height, cs__w_balance};

cs_world_t cs__mkworld(cs_engine_t *e)
{
    cs_world_t w = {&cs__world_ops, e};
    return w;
}

/* ------------------------------------------------------------ core hooks */

/* The side-table entry cs__hook_execute and cs__hook_gba read first
 * misses: fetched a few fires ahead (it may straddle two lines). */
void cs__hook_ahead(void *user, uint32_t slot)
{
    const cs_engine_t *e = user;
    if (slot >= e->ti_n) return;
    __builtin_prefetch(&e->ti[slot]);
    __builtin_prefetch((const char *)(&e->ti[slot] + 1) - 1);
}

/* A fire's handler: the agent's on_outcome(FIRED) runs inside the fire's
 * transaction, so a heartbeat can reschedule itself (CIP-5 Appendix B). */
void cs__hook_execute(void *user, cs_sched_t *s, const cs_delivery_t *d, uint64_t *uc, uint64_t *ue)
{
    cs_engine_t *e = user;
    *uc = d->cycles_limit;
    *ue = d->payload_len;
    if (!cs__ti_live(e, d->slot)) return;
    uint64_t cyc = cs__ti_cycles(e, d->slot);
    if (cyc && cyc < *uc) *uc = cyc;
    /* No agent listens and none creates deferred transactions: only a
     * piece of split work has more to do. */
    if (e->exec_bare && !(cs__ti_extra(e, d->slot) && cs__ti_extra(e, d->slot)->split_rem)) return;
    uint32_t ag;
    (void)cs__ti_owner(e, d->slot, &ag, NULL);
    cs_agent_t *a = &e->agents[ag];
    /* CIP-5 §6.2: the deferred transactions its handler creates (N67). */
    for (uint64_t k = 0; k < a->pol.deferred_txs; k++) (void)cs_sched_defer_tx(s);
    const cs__textra_t *x = cs__ti_extra(e, d->slot);
    /* Nothing to tell an agent without on_outcome (most arrivals' kinds),
     * unless the fire is a piece of split work: no timer info then. */
    if (!(x && x->split_rem) && !a->ops->on_outcome) return;
    const cs_timer_t *t = cs_sched_record(e->s, d->slot);
    cs_timer_info_t in = cs__info(e, d->slot, t);
    in.due_height = d->due_height;
    if (x && x->split_rem) {
        /* over_cap split (CIP-1 rev §10, N86): this piece's handler
         * schedules the rest of the work as a new timer due the next block
         * (the same-block prohibition, §4), with the work's bid, TTL, tier
         * and value model; the agent hears of the work when its last
         * piece fires.  A refused tail ends the work here. */
        cs_timer_req_t q;
        memset(&q, 0, sizeof q);
        q.actor = in.actor;
        q.kind = CS_KIND_HEIGHT;
        q.delay = 1;
        q.payload_len = t->payload_len;
        q.gas_limit = x->split_rem;
        q.cycles_used = x->split_rem;
        q.ttl = x->split_ttl;
        q.has_bid = x->split_has_bid;
        q.bid = x->split_bid;
        q.tier = x->split_tier;
        q.value = in.value;
        q.decay = in.decay;
        q.deadline = in.deadline;
        q.tag = in.tag;
        q.split_due = x->split_due;
        e->in_handler = 1;
        e->split_tail = 1;
        (void)cs__w_schedule(e, a, &q, NULL);
        e->split_tail = 0;
        e->in_handler = 0;
        return;
    }
    uint64_t first = x && x->split_due ? x->split_due : d->due_height; /* a split work's delay runs from its first piece */
    e->in_handler = 1;
    a->ops->on_outcome(a, &e->world, &in, CS_AO_FIRED, e->h + 1 - first, 0);
    e->in_handler = 0;
}

void cs__hook_usage(void *user, const cs_sched_t *s, uint32_t slot, uint64_t *cycles, uint64_t *cells)
{
    cs_engine_t *e = user;
    const cs_timer_t *t = cs_sched_record(s, slot);
    /* What cs__hook_execute will report: the handler's cycles within the
     * gas limit, the payload's bytes as cells. */
    uint64_t cyc = cs__ti_live(e, slot) ? cs__ti_cycles(e, slot) : 0;
    *cycles = cyc && cyc < t->gas_limit ? cyc : t->gas_limit;
    *cells = t->payload_len;
    /* ... and the deferred transactions its handler creates (N67). */
    uint32_t ag;
    if (!e->exec_bare && cs__ti_live(e, slot)) { /* exec_bare: no agent's handler creates any */
        (void)cs__ti_owner(e, slot, &ag, NULL);
        uint64_t n = cs_sched_handler_txs(s, t->gas_limit, *cycles, e->agents[ag].pol.deferred_txs);
        *cycles += n * cs_sched_params(s)->handler_deferred_cycles;
    }
}

int cs__hook_gba(void *user, const cs_timer_t *t, const cs_gba_ctx_pub_t *ctx, cs_u128 *max_fee,
                 cs_u128 *max_prio)
{
    cs_engine_t *e = user; /* installed only without gba_none (cs_sim_init) */
    const cs_timer_t *base = cs_sched_record(e->s, 0);
    uint32_t slot = (uint32_t)(t - base);
    if (!cs__ti_live(e, slot)) return 0;
    uint32_t ag;
    (void)cs__ti_owner(e, slot, &ag, NULL);
    cs_agent_t *a = &e->agents[ag];
    if (!a->ops->gba && !a->pol.value_aware && !a->strat) return 0;
    cs_timer_info_t in = cs__info(e, slot, t);
    cs_obs_t o = e->obs;
    o.basefee_lane = cs__u128d(ctx->basefee_lane_timer);
    if (a->pol.value_aware || a->strat) {
        /* What the fire is worth now, less what it costs besides max_fee,
         * per cycle its handler uses: the fire is charged used_cycles x
         * (cycle rate + lane + tip) + used_cells x basefee_cell (CIP-1 rev
         * §3 step 8; D3 fire rates), tip <= max_fee - lane, and the agent
         * knows its handler's cycles and cells (the payload). */
        const cs_params_t *p = cs_sched_params(e->s);
        uint64_t now = e->h + 1;
        double v = cs__value(e, a, &in, now > in.due_height ? now - in.due_height : 0);
        cs_u128 cyc_rate = 0, lane_rate = 0;
        cs_basefee_fire_rates(p, ctx->basefee_cycle, ctx->basefee_lane_timer, &cyc_rate, &lane_rate);
        if (cs_sched_lane_is_cycle(e->s)) cyc_rate = 0; /* within max_fee (N65) */
        uint64_t cyc = cs__ti_cycles(e, slot);
        uint64_t uc = cyc && cyc < t->gas_limit ? cyc : t->gas_limit;
        in.fire_value = v;
        in.fire_cycles = uc ? (double)uc : 1.0;
        in.fire_fixed = (double)t->payload_len * cs__u128d(ctx->basefee_cell) + in.fire_cycles * cs__u128d(cyc_rate);
        in.fire_budget = (v - in.fire_fixed) / in.fire_cycles;
        in.dflt_fee = cs__u128d(ctx->dflt_max_fee);
        in.dflt_prio = cs__u128d(ctx->dflt_max_prio);
        const cs__textra_t *x = cs__ti_extra(e, slot); /* max_fee, max_prio are read with has_fees */
        in.has_fees = x ? x->req_fees : 0;
        in.max_fee = x ? x->req_fee : 0;
        in.max_prio = x ? x->req_prio : 0;
    }
    double mf = 0, mp = 0;
    if (!cs_agent_gba(a, &in, &o, &mf, &mp)) return 0;
    if (a->strat && in.fire_value > 0) /* the share of its value the fees allow (N77) */
        cs_conv_add(e->conv, a->strat, e->h + 1, (in.fire_fixed + in.fire_cycles * mf) / in.fire_value);
    *max_fee = cs__d2u(mf);
    *max_prio = cs__d2u(mp);
    return 1;
}
