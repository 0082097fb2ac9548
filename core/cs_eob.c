/*
 * cs_eob.c -- the end-of-block pipeline, steps 3-9 of DESIGN §2.3
 * (CIP-1 rev §3, CIP-5 §5, CIP-5 CN §5, §8-11).
 */
#include "cs_sched.h"
#include "cs_fees.h"
#include "cs_mech_int.h"
#include "cs_sched_int.h"

#include <stdlib.h>
#include <string.h>

static int cs__grow2(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *p = realloc(*arr, c * elem);
    if (!p) return -1;
    *arr = p;
    *cap = c;
    return 0;
}
#define CS__GROW(arr, cap, need) cs__grow2((void **)&(arr), &(cap), (need), sizeof *(arr))


/* Zero objects the per-candidate records start from (cs__timers_phase). */
static const cs_cand_row_t cs__zero_row;
static const cs_cand_t cs__zero_cand;
static const cs_delivery_t cs__zero_deliv;

/* Put a record that left its queue tier back in the queue (interval roll). */
int cs__requeue(cs_sched_t *s, uint32_t slot)
{
    return cs_queue_insert(s->q, slot);
}

static void cs__carry_add(cs_sched_t *s, uint32_t slot)
{
    cs_timer_hot_t *t = &s->hot[slot];
    if (t->flags & CS_TF_CARRIED) return;
    t->flags |= CS_TF_CARRIED;
    t->qpos = (uint32_t)s->n_carry;
    s->carry[s->n_carry++] = slot;
}

static void cs__carry_del(cs_sched_t *s, uint32_t slot)
{
    cs_timer_hot_t *t = &s->hot[slot];
    if (!(t->flags & CS_TF_CARRIED)) return;
    (void)cs__rank_del(s, slot, s->cur);
    uint32_t i = t->qpos, last = s->carry[--s->n_carry];
    s->carry[i] = last;
    s->hot[last].qpos = i;
    t->flags &= (uint8_t)~CS_TF_CARRIED;
    t->qpos = CS_NIL;
}

/* Whether block s->cur may take the incremental path (N80-N82): the
 * caller allows it, eip1559 clears, W is the same for everyone (w_min =
 * w_max, CIP-1 rev §8 clip), no per-actor quota, the lane runs, the
 * revised charge; members have fixed fee caps (cs__rank_indexable), so
 * the GBA hook never prices them; then the ranking holds every carried timer (built here
 * if it does not) and every member's payer passes the funds test. */
static int cs__rank_gate(cs_sched_t *s)
{
    cs__rank_t *r = &s->rank;
    int ok = s->rank_on && s->mech.ops == &cs__mech_eip1559 && !s->paused && s->p.w_min == s->p.w_max &&
             s->p.max_fires_per_actor == 0 && !cs__fees_draft_lane(s) && !cs__fees_defers(s);
    if (ok && !r->valid) {
        for (size_t i = 0; i < s->n_carry && ok; i++) ok = cs__rank_indexable(s, s->carry[i]);
        r->bf = cs_sched_lane_basefee_charged(s);
        for (size_t i = 0; i < s->n_carry && ok; i++) ok = cs__rank_add(s, s->carry[i], s->cur) == CS_OK;
        r->valid = ok;
        if (!ok) cs__rank_drop(s, s->cur);
    }
    if (ok && cs__rank_rebase(s, cs_sched_lane_basefee_charged(s)) != CS_OK) ok = 0;
    if (ok && !cs__fees_rank_funded(s)) ok = 0;
    if (!ok && r->valid) cs__rank_drop(s, s->cur);
    return ok;
}

/* qsort order of slots by their index in s->carry (qsort passes no
 * context: the scheduler, in a thread-local so schedulers on other
 * threads do not interfere). */
static _Thread_local const cs_sched_t *cs__qs_sched;
static int cs__qpos_cmp(const void *a, const void *b)
{
    uint32_t qa = cs__qs_sched->hot[*(const uint32_t *)a].qpos, qb = cs__qs_sched->hot[*(const uint32_t *)b].qpos;
    return (qa > qb) - (qa < qb);
}

/* Put the n carried slots v[0..n) in carry order (their qpos, the index in
 * s->carry, distinct).  When the carry set is not much larger than n, by
 * marking their indices and one pass over the carry set (O(n_carry), no
 * comparisons); else, or when the marks cannot be allocated, by qsort. */
static void cs__carry_order(cs_sched_t *s, uint32_t *v, size_t n)
{
    if (n < 2) return;
    size_t old = s->cmark_cap;
    if (s->n_carry <= 16 * n && CS__GROW(s->cmark, s->cmark_cap, s->n_carry) == 0 && s->cmark_cap > old)
        memset(s->cmark + old, 0, s->cmark_cap - old); /* the marks start clear */
    if (s->n_carry > 16 * n || s->cmark_cap < s->n_carry) {
        cs__qs_sched = s;
        qsort(v, n, sizeof *v, cs__qpos_cmp);
        return;
    }
    for (size_t i = 0; i < n; i++) s->cmark[s->hot[v[i]].qpos] = 1;
    size_t k = 0;
    for (size_t i = 0; i < s->n_carry && k < n; i++) {
        if (!s->cmark[i]) continue;
        s->cmark[i] = 0;
        v[k++] = s->carry[i];
    }
}

/* Incremental step 3 (N80): the members that expired and, walking the
 * rule's order over the members and this block's eligible due timers
 * merged, the members met before the eligible cycles walked exceed the
 * lane budget (or their count the block quota), or before only members
 * below the basefee are left.  Writes the members taken to s->trig in
 * carry order (the full path's row order) and returns their count; *gmax
 * gets the largest cycles of an eligible timer walked, *proof whether
 * members that could fire are left (then N80's cycles condition must
 * hold). */
static size_t cs__rank_take(cs_sched_t *s, uint64_t *gmax, int *proof)
{
    cs__rank_t *r = &s->rank;
    uint64_t h = s->cur;
    cs_u128 lane = cs_sched_lane_basefee_charged(s);
    uint64_t budget = s->p.lane_timer_cycles, cap = s->p.max_cycles_per_fire, bq = s->p.max_fires_per_block;
    size_t n = 0;
    *gmax = 0;
    /* CIP-1 rev §9: expired (h > expires_at) members leave by the GC lane. */
    for (uint32_t x; (x = cs__rank_next_expiry(s)) != CS_NIL && h > r->exp[x];) {
        (void)cs__rank_del(s, x, h);
        s->trig[n++] = x;
    }
    /* A due timer counts when it surely competes for the budget: fixed
     * caps, not expired, within the cap, not below the basefee, and a
     * payer who passes every funds test (CIP-1 rev §3 steps 4, 7, 8). */
    r->h[CS__RK_DUE].n = 0;
    /* With members only below the basefee, none can fire: no walk. */
    size_t nd = r->h[CS__RK_ORD_U].n + r->h[CS__RK_ORD_C].n > 0 ? s->due.n : 0;
    for (size_t i = 0; i < nd; i++) {
        uint32_t x = s->due.v[i];
        if (i + CS__PF_AHEAD < nd) CS__PREFETCH_REC(s, s->due.v[i + CS__PF_AHEAD], s->due.v[i + CS__PF_AHEAD / 2]);
        if (!cs__rank_indexable(s, x)) continue;
        const cs_timer_money_t *m = cs__rec_money(s, x);
        if ((m->expires_at != 0 && h > m->expires_at) || s->pool[x].gas_limit > cap || m->max_fee < lane ||
            !cs__fees_surely_funded(s, x))
            continue;
        if (cs__rank_due_push(s, x) != CS_OK) break; /* fewer counted: still exact, only more taken */
    }
    uint64_t sum = 0, cnt = 0;
    uint32_t d = cs__rank_due_pop(s);
    /* Members below the basefee (class B) cannot fire at any budget: once
     * only they are left, the rest of the ranking need not be looked at. */
    while (sum <= budget && (bq == 0 || cnt <= bq)) {
        uint32_t m = r->h[CS__RK_ORD_U].n + r->h[CS__RK_ORD_C].n > 0 ? cs__rank_top(s) : CS_NIL;
        uint32_t x;
        if (m != CS_NIL && (d == CS_NIL || cs__rank_before(s, m, d))) {
            x = m;
            (void)cs__rank_del(s, x, h);
            s->trig[n++] = x;
            if (r->mf[x] < lane || s->pool[x].gas_limit > cap) continue; /* cannot take budget */
        } else if (d != CS_NIL) {
            x = d;
            d = cs__rank_due_pop(s);
        } else {
            break;
        }
        uint64_t g = s->pool[x].gas_limit;
        if (g > *gmax) *gmax = g;
        sum += g;
        cnt++;
    }
    *proof = r->h[CS__RK_ORD_U].n + r->h[CS__RK_ORD_C].n > 0;
    /* Carry order: qpos is the index in s->carry (distinct). */
    cs__carry_order(s, s->trig, n);
    return n;
}

/* Step 3: the candidate set -- carried timers, timers due at h, and watch
 * timers whose keys meet ModifiedKeySet(h), deduplicated by timer (the
 * CIP-5 CN §8.2 (target, timer_id) key: one record per timer). */
static int cs__collect(cs_sched_t *s, size_t *n_out)
{
    s->due.n = 0;
    int rc = cs_queue_collect(s->q, &s->due);
    if (rc != CS_OK) return rc;
    size_t need = s->n_carry + s->due.n + s->n_modkeys * 4 + 1;
    if (CS__GROW(s->trig, s->trig_cap, need) != 0) return CS_ENOMEM;
    size_t n = 0;
    s->rank_blk = cs__rank_gate(s);
    s->rank_silent = 0;
    uint64_t gmax = 0;
    int proof = 0;
    if (s->rank_blk) {
        n = cs__rank_take(s, &gmax, &proof);
    } else {
        for (size_t i = 0; i < s->n_carry; i++) s->trig[n++] = s->carry[i];
    }
    size_t n_taken = n;
    for (size_t i = 0; i < s->due.n; i++) s->trig[n++] = s->due.v[i];
    for (size_t i = 0; i < n; i++) s->hot[s->trig[i]].flags |= CS_TF_INSET;
    for (size_t k = 0; k < s->n_modkeys; k++) {
        uint64_t key;
        memcpy(&key, s->modkeys[k].b, 8);
        size_t it = SIZE_MAX;
        for (uint32_t slot; (slot = cs__hmap_next(&s->watch_map, key, &it)) != CS__HEMPTY;) {
            cs_timer_hot_t *th = &s->hot[slot];
            const cs_timer_t *t = &s->pool[slot];
            /* Every carried timer is a candidate of the full path; on
             * the incremental path the ones left ranked are too. */
            if (th->flags & (CS_TF_INSET | CS_TF_GC | CS_TF_CARRIED)) continue;
            /* CIP-5 CN §5: a timer created in this block does not fire in it. */
            if (t->sched_height >= s->cur) continue;
            /* Confirm the full key, not just the prefix. */
            const cs__wlist_t *w = &s->wlists[t->wkeys];
            int hit = 0;
            for (uint32_t j = 0; j < w->n && !hit; j++)
                hit = memcmp(w->keys[j].b, s->modkeys[k].b, CS_ID_LEN) == 0;
            if (!hit) continue;
            if (CS__GROW(s->trig, s->trig_cap, n + 1) != 0) return CS_ENOMEM;
            th->flags |= CS_TF_INSET;
            /* CIP-5 CN §8.2, §9.3: a watch timer is due in the block its key
             * is modified; that trigger height stays its due height while
             * it is deferred (it is carried, so not re-triggered), so its
             * delay and age grow as a height timer's do. */
            cs__setsum_update(s, slot, 0);
            th->height = s->cur;
            cs__setsum_update(s, slot, 1);
            s->trig[n++] = slot;
        }
    }
    if (s->rank_blk && proof) {
        /* N80's proof needs the cycles of every eligible timer walked at
         * most the least of the members left (then one the budget turned
         * away leaves less than any of them can use); else the full path. */
        if (gmax > s->rank.gmin) {
            cs__rank_drop(s, s->cur);
            s->rank_blk = 0;
            if (CS__GROW(s->trig, s->trig_cap, s->n_carry + n - n_taken + 1) != 0) return CS_ENOMEM;
            memmove(s->trig + s->n_carry, s->trig + n_taken, (n - n_taken) * sizeof *s->trig);
            for (size_t i = 0; i < s->n_carry; i++) {
                s->trig[i] = s->carry[i];
                s->hot[s->carry[i]].flags |= CS_TF_INSET;
            }
            n = s->n_carry + n - n_taken;
        }
    }
    s->rank_silent = s->rank_blk ? s->rank.n : 0;
    /* No sort here: each mechanism imposes its own total order (fifo and
     * fifo-capped order by (due height, fifo_rank) themselves), and the
     * candidate order is itself deterministic. */
    *n_out = n;
    return CS_OK;
}

/* GC lane (CIP-1 rev §9, D11): destroy queued expired / insolvent timers
 * under gc_cycles_per_block; the rest wait for the next block. */
static void cs__gc_run(cs_sched_t *s, cs_block_stats_t *st)
{
    /* N85: a GC lane shared with the timer lane takes its cycles from
     * LANE_TIMER_CYCLES, before the auction and still at most
     * gc_cycles_per_block; the isolated lane (CIP-1 rev §9) has its own. */
    uint64_t budget = s->p.gc_cycles_per_block, per = s->p.gc_cycles_per_timer;
    if (s->p.gc_lane == CS_GC_SHARED && budget > s->p.lane_timer_cycles) budget = s->p.lane_timer_cycles;
    uint64_t used = 0;
    while (s->gcq_head < s->n_gcq && used + per <= budget) {
        uint32_t slot = s->gcq[s->gcq_head++];
        cs_timer_hot_t *t = &s->hot[slot];
        if (!(t->flags & CS_TF_LIVE) || !(t->flags & CS_TF_GC)) continue; /* cancelled meanwhile */
        used += per;
        /* Accounting counts the timer when it is destroyed, so a timer
         * waiting in the GC queue is still pending (DESIGN §2.6). */
        if (t->flags & CS_TF_GC_FUNDS) s->acct.insufficient++;
        else s->acct.expired++;
        cs__fees_on_destroy(s, slot);
        cs__remove_record(s, slot);
        st->gc_destroyed++;
    }
    if (s->gcq_head == s->n_gcq) s->gcq_head = s->n_gcq = 0;
    st->gc_cycles = used;
    st->gc_backlog = s->n_gcq - s->gcq_head;
}

static int cs__gc_push(cs_sched_t *s, uint32_t slot, int funds)
{
    if (CS__GROW(s->gcq, s->gcq_cap, s->n_gcq + 1) != 0) return CS_ENOMEM;
    s->gcq[s->n_gcq++] = slot;
    s->hot[slot].flags |= (uint8_t)(CS_TF_GC | (funds ? CS_TF_GC_FUNDS : 0));
    return CS_OK;
}

/* Compute the state digest for h (DESIGN §2.3 step 9): it commits to the
 * height, the parent digest, the pending multiset, the overflow tree root
 * and the counters, and is the parent_state_root of block h + 1. */
static void cs__digest(cs_sched_t *s, uint64_t h, cs_block_stats_t *st)
{
    cs_keccak_ctx c;
    uint8_t b[8];
    cs_hash_t root;
    cs_queue_root(s->q, &root);
    cs_keccak_init(&c);
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(h >> (56 - 8 * i));
    cs_keccak_update(&c, b, 8);
    cs_keccak_update(&c, s->digest.b, 32);
    cs_keccak_update(&c, s->setsum, 32); /* the limbs' bytes, as stored */
    cs_keccak_update(&c, root.b, 32);
    uint64_t cnt[3] = {s->n_pending, s->n_carry, s->n_gcq - s->gcq_head};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 8; i++) b[i] = (uint8_t)(cnt[k] >> (56 - 8 * i));
        cs_keccak_update(&c, b, 8);
    }
    cs_keccak_final(&c, s->digest.b);
    st->digest = s->digest;
}

int cs_sched_timers_first(const cs_sched_t *s)
{
    /* CIP-1 first draft §3: "Deliver Timers & Build Priority Queue" and
     * "Execute Prioritized Timers" come before "Execute Transactions";
     * CIP-1 rev §3 (steps 3, then 5-9) and CIP-5 §5.1 put the
     * transactions first ("Block ordering Tx-then-Timer"). */
    return (s->mech.ops->flags & CS_MF_DEFER_FUNDS) && s->p.gba_tip_order == CS_GBA_ORDER_DRAFT;
}

int cs_sched_timers(cs_sched_t *s)
{
    if (s->tx_open) return CS_ETX_OPEN;
    if (s->cur != s->height + 1) return CS_EINVAL;
    if (!cs_sched_timers_first(s) || s->eob_done == s->cur) return CS_OK;
    return cs__eob_timers(s);
}

/* Steps 3-8 of the current block: collect, classify, clear, settle,
 * materialize, carry the losers, execute the winners.  Its totals go to
 * s->eob_st; cs_sched_end_block finishes the block from them.  Returns
 * CS_OK, or the error that stopped it part way (the block must not be
 * finished then). */
static int cs__timers_phase(cs_sched_t *s)
{
    uint64_t h = s->cur;
    cs_block_stats_t *st = &s->eob_st;
    memset(st, 0, sizeof *st);
    const cs_mech_ops_t *ops = s->mech.ops;

    /* Slots retired during the previous block are reusable now that its
     * deliveries have been consumed. */
    cs__retired_release(s);
    /* The id map after a flood of timers has drained (N106): lookups are
     * by the whole id, so its walk order does not matter; out of memory it
     * stays as it is. */
    (void)cs__hmap_fit(&s->id_map);
    /* Every 64 blocks the lowest free slots go to the top of the free
     * stack (N107); the same blocks in every run, after the release above. */
    if ((h & 63u) == 0 && !s->sparse_slots) cs__slots_compact(s);
    /* Step 3: collect candidates. */
    size_t n = 0;
    int rc = cs__collect(s, &n);
    if (rc != CS_OK) return rc;
    /* Writes made by this block's handlers count toward ModifiedKeySet(h+1). */
    s->n_modkeys = 0;
    st->due = n + s->rank_silent; /* the members left ranked were due too */
    if (CS__GROW(s->cands, s->cands_cap, n + 1) != 0 || CS__GROW(s->rows, s->rows_cap, n + 1) != 0 ||
        CS__GROW(s->crow, s->crow_cap, n + 1) != 0 || CS__GROW(s->order, s->order_cap, n + 1) != 0 ||
        CS__GROW(s->rsel, s->rsel_cap, n + 1) != 0 || CS__GROW(s->cfired, s->cfired_cap, n + 1) != 0 ||
        CS__GROW(s->deliv, s->deliv_cap, n + 1) != 0 || CS__GROW(s->gcq, s->gcq_cap, s->n_gcq + n + 1) != 0)
        return CS_ENOMEM;

    /* Step 4: lifecycle classification (CIP-1 rev §3 step 4, §9). */
    size_t nc = 0, nr = 0;
    const cs_u128 *lbal, *lesc;
    uint32_t nacc;
    cs__fees_ledger_arrays(s, &lbal, &lesc, &nacc);
    for (size_t i = 0; i < n; i++) {
        uint32_t slot = s->trig[i];
        if (i + CS__PF_AHEAD < n) {
            uint32_t ahead = s->trig[i + CS__PF_AHEAD];
            CS__PREFETCH_REC(s, ahead, s->trig[i + CS__PF_AHEAD / 2]);
            if (ahead < s->rank.cap) __builtin_prefetch(&s->rank.sil[ahead]);
            CS__PREFETCH_PAYER(s, s->trig[i + CS__PF_AHEAD / 4], lbal, lesc, nacc);
            /* A fire-time GBA hook reads what the world keeps of the timer. */
            if (s->hooks.gba && s->hooks.ahead) s->hooks.ahead(s->hooks.user, s->trig[i + CS__PF_AHEAD / 4]);
        }
        cs_timer_hot_t *th = &s->hot[slot];
        const cs_timer_t *t = &s->pool[slot];
        th->flags &= (uint8_t)~CS_TF_INSET;
        uint64_t due = th->height; /* a watch timer's trigger height (cs__collect) */
        uint32_t sil = 0;
        if (slot < s->rank.cap && (sil = s->rank.sil[slot]) != 0) {
            /* Blocks it was deferred without a row (N80): n grew by one each. */
            th->deferrals += sil;
            s->rank.sil[slot] = 0;
        }
        cs_cand_row_t *row = &s->rows[nr++];
        /* Every other field zero: copied from a zero object (vector moves;
         * a compound literal or memset becomes a slow rep stos here). */
        *row = cs__zero_row;
        row->slot = slot;
        row->due_height = due;
        row->deferrals = th->deferrals;
        row->silent = sil;
        /* Path 2: TTL expired -> GC lane. */
        uint64_t exp = cs__rec_expires_at(s, slot);
        if (exp != 0 && h > exp) {
            cs__carry_del(s, slot);
            row->outcome = CS_OUT_EXPIRED;
            st->expired++;
            (void)cs__gc_push(s, slot, 0); /* cannot fail: room reserved above */
            continue;
        }
        cs_cand_t *c = &s->cands[nc];
        *c = cs__zero_cand; /* as the row above */
        c->slot = slot;
        c->target = t->actor;
        c->deferrals = th->deferrals;
        c->due_height = due;
        c->sched_height = t->sched_height;
        c->fifo_rank = th->fifo_rank;
        c->id = t->id;
        c->bid = cs__rec_bid(s, slot);
        c->klass = th->tier_hint;
        rc = cs__fees_classify(s, slot, c);
        if (rc == CS_EINSUFFICIENT_FUNDS && !cs__fees_defers(s)) {
            /* Path 3: balance(fee_payer) < max_cost -> GC lane, emitting
             * TimerCancelledInsufficientFunds. */
            cs__carry_del(s, slot);
            row->outcome = CS_OUT_INSUFFICIENT;
            st->insufficient++;
            (void)cs__gc_push(s, slot, 1); /* cannot fail: room reserved above */
            continue;
        }
        row->outcome = CS_OUT_DEFERRED; /* until selected */
        s->crow[nc++] = (uint32_t)(nr - 1); /* candidate -> its row */
    }
    cs__gc_run(s, st);

    /* Step 5: the mechanism prices, orders and selects. */
    cs_clear_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.p = &s->p;
    ctx.height = h;
    cs__fees_ctx(s, &ctx);
    if (s->p.gc_lane == CS_GC_SHARED) ctx.budget_cycles -= st->gc_cycles; /* N85: GC went first */
    st->basefee_lane = cs__fees_draft_lane(s) ? 0 : ctx.basefee_lane; /* N65: none charged */
    cs_clear_out_t out;
    memset(&out, 0, sizeof out);
    s->eob_nc = nc;
    s->eob_nd = 0;
    if (s->paused) {
        /* Lane pause: every candidate waits; no mechanism runs. */
        for (size_t i = 0; i < nc; i++) {
            s->cands[i].selected = 0;
            s->cands[i].why = CS_WHY_BUDGET;
            s->cands[i].rank = (uint32_t)i;
        }
    } else {
        rc = cs_mech_clear(&s->mech, &ctx, s->cands, nc, &out);
        if (rc != CS_OK) return rc;
    }

    /* Rows hold every candidate, cands only the live ones, both in FIFO
     * order: crow (filled above) maps a candidate to its row.  Winners are
     * then visited in the mechanism's order (cand.rank is a permutation of
     * 0..nc-1): rsel marks the selected ranks in the same sequential pass
     * over the candidates, so finding the winners reads one byte per rank
     * instead of each candidate again in rank order. */
    for (size_t i = 0; i < nc; i++) s->order[i] = CS_NIL;
    for (size_t i = 0; i < nc; i++) {
        cs_cand_t *c = &s->cands[i];
        cs_cand_row_t *row = &s->rows[s->crow[i]];
        row->priority = c->priority;
        row->weight = c->weight;
        row->max_fee = c->max_fee;
        row->max_prio = c->max_prio;
        row->bid = c->bid;
        row->why = c->selected ? 0 : c->why;
        if (c->rank < nc && s->order[c->rank] == CS_NIL) s->order[c->rank] = (uint32_t)i;
        else return CS_EINVARIANT; /* a mechanism must output a permutation */
        s->rsel[c->rank] = c->selected;
        s->cfired[i] = 0;
    }
    size_t nw = 0;
    for (size_t r = 0; r < nc; r++)
        if (s->rsel[r]) s->trig[nw++] = s->order[r];

    /* Steps 6-8: settle, materialize, remove or roll. */
    size_t nd = 0;
    for (size_t k = 0; k < nw; k++) {
        cs_cand_t *c = &s->cands[s->trig[k]];
        cs_cand_row_t *row = &s->rows[s->crow[s->trig[k]]];
        uint32_t slot = c->slot;
        const cs_timer_t *t = &s->pool[slot];
        cs_timer_hot_t *th = &s->hot[slot];
        if (k + CS__PF_AHEAD < nw) {
            /* The winners in rank order are records all over the pool again. */
            uint32_t half = s->cands[s->trig[k + CS__PF_AHEAD / 2]].slot;
            CS__PREFETCH_REC(s, s->cands[s->trig[k + CS__PF_AHEAD]].slot, half);
            __builtin_prefetch(&s->actors[s->pool[half].actor]);
            uint32_t near = s->cands[s->trig[k + CS__PF_AHEAD / 4]].slot;
            CS__PREFETCH_PAYER(s, near, lbal, lesc, nacc);
            /* A one-shot's id leaves id_map when it fires (cs__remove_record). */
            CS__HMAP_PREFETCH(&s->id_map, cs__load64(s->pool[near].id.b));
        }
        if (cs__fees_precharge(s, c, row) != CS_OK) {
            if (cs__fees_defers(s)) {
                /* CIP-1 first draft §4.1, D10: the owner cannot pay the
                 * GBA's bid (its earlier fires of this block took the
                 * rest): execution fails for this block and the timer is
                 * deferred, carried below with the losers (N60). */
                c->selected = 0;
                c->why = CS_WHY_FUNDS;
                row->why = CS_WHY_FUNDS;
                continue;
            }
            /* CIP-1 rev §3 step 8: insufficient funds at any step ->
             * CIP-5 §5.4 path 2, self-destruct without firing. */
            cs__carry_del(s, slot);
            row->outcome = CS_OUT_INSUFFICIENT;
            st->insufficient++;
            (void)cs__gc_push(s, slot, 1); /* cannot fail: at most n pushes per block, room reserved */
            continue;
        }
        cs__carry_del(s, slot);
        row->outcome = CS_OUT_FIRED;
        s->cfired[s->trig[k]] = 1;
        cs_delivery_t *d = &s->deliv[nd++];
        *d = cs__zero_deliv; /* as the rows above */
        /* CIP-5 §5.2: origin = 32 zero bytes, ExecuteActor{actor, handler,
         * payload}, sender = the owner. */
        d->timer_id = t->id;
        d->actor = s->actors[t->actor].addr;
        d->handler = s->handlers[cs__rec_handler(s, slot)];
        d->payload = cs__payload_bytes(t->payload, t->payload_len); /* N100 */
        d->payload_len = t->payload_len;
        if (ops->flags & (CS_MF_BUDGET | CS_MF_FEES)) {
            d->cycles_limit = c->cycles;
            d->cells_limit = t->max_cells ? t->max_cells : s->p.fifo_fire_cells;
        } else {
            d->cycles_limit = s->p.fifo_fire_cycles; /* CIP-5 §5.2: 550,000 */
            d->cells_limit = s->p.fifo_fire_cells;
        }
        d->due_height = c->due_height;
        d->fire_seq = th->fire_seq;
        d->kind = th->kind;
        d->slot = slot;
        th->fire_seq++;
        s->acct.fires++;
        st->fired++;
        st->delay_sum += h - c->due_height;
        if (th->kind == CS_KIND_INTERVAL) {
            /* CIP-5 CN §11 / EOB-5: roll forward to h + every_blocks. */
            cs__setsum_update(s, slot, 0);
            th->height = h + t->every_blocks;
            th->deferrals = 0;
            cs__setsum_update(s, slot, 1);
            if (cs__requeue(s, slot) != CS_OK) return CS_ENOMEM;
        } else if (th->kind == CS_KIND_WATCH) {
            th->deferrals = 0; /* stays registered on its keys */
        } else {
            /* CIP-5 §4.2: one-shot -- removed before its handler runs. */
            s->acct.fired_final++;
            cs__remove_record(s, slot);
        }
    }
    /* CIP-5 CN §10: deliver_id = H(h, parent_state_root, timer_id, fire_seq),
     * for the whole block at once (batched permutations); materializing is
     * idempotent through the mailbox, filled in delivery order. */
    cs_deliver_id_many(h, &s->digest, s->deliv, nd);
    int oom = 0; /* an allocation failed after the block was committed to */
    for (size_t k = 0; k < nd; k++)
        if (cs_sched_mailbox_put(s, &s->deliv[k].deliver_id) < 0) oom = 1; /* the delivery is still made */

    /* Step 7: losers carry over with n += 1 (CIP-5 §9.4). */
    for (size_t i = 0; i < nc; i++) {
        cs_cand_t *c = &s->cands[i];
        if (i + CS__PF_AHEAD < nc) CS__PREFETCH_REC(s, s->cands[i + CS__PF_AHEAD].slot, s->cands[i + CS__PF_AHEAD / 2].slot);
        if (c->selected) continue;
        cs_timer_hot_t *t = &s->hot[c->slot];
        if (!(t->flags & CS_TF_LIVE)) continue;
        t->deferrals++;
        st->deferred++;
        if (CS__GROW(s->carry, s->carry_cap, s->n_carry + 1) != 0) return CS_ENOMEM;
        cs__carry_add(s, c->slot);
        if (s->rank_blk && s->rank.valid) {
            /* Ranked again, deferred without a row from h + 1 on; a timer
             * the ranking cannot hold sends the next block down the full
             * path (every member then gets a row there). */
            if (!cs__rank_indexable(s, c->slot) || cs__rank_add(s, c->slot, h + 1) != CS_OK)
                cs__rank_drop(s, h + 1);
        }
    }
    st->deferred += s->rank_silent;

    /* Deferred transactions execute after materialization, in order; each
     * runs in its own transaction so its timer side effects apply on
     * commit (CIP-5 §4.3, §5.1). */
    uint64_t used_sum = 0;
    size_t di = 0;
    for (size_t k = 0; k < nw; k++) {
        cs_cand_t *c = &s->cands[s->trig[k]];
        cs_cand_row_t *row = &s->rows[s->crow[s->trig[k]]];
        /* Each fire's handler runs between two settlements: a few ahead do. */
        if (k + 4 < nw) {
            CS__PREFETCH_REC(s, s->cands[s->trig[k + 4]].slot, s->cands[s->trig[k + 2]].slot);
            if (s->hooks.ahead) s->hooks.ahead(s->hooks.user, s->cands[s->trig[k + 4]].slot);
        }
        if (k + 1 < nw) CS__PREFETCH_PAYER(s, s->cands[s->trig[k + 1]].slot, lbal, lesc, nacc);
        if (row->outcome != CS_OUT_FIRED) continue;
        cs_delivery_t *d = &s->deliv[di++];
        uint64_t uc = d->cycles_limit, ue = 0;
        if (s->hooks.execute) {
            s->tx_open = 0;
            s->fire_defer_req = 0;
            if (cs_sched_tx_begin(s) == CS_OK) {
                s->in_fire = 1;
                s->hooks.execute(s->hooks.user, s, d, &uc, &ue);
                s->in_fire = 0;
                int crc = cs_sched_tx_commit(s);
                if (crc != CS_OK) cs_sched_tx_rollback(s);
                if (crc == CS_ENOMEM) oom = 1; /* a handler's timer was lost: report it */
            }
            if (uc > d->cycles_limit) uc = d->cycles_limit;
            if (ue > d->cells_limit) ue = d->cells_limit;
            /* CIP-5 §6.2: the deferred transactions the handler created
             * take their cycles from its own budget (N67), within the gas
             * limit its fire is charged for (N58; fifo's 550,000 otherwise). */
            uint64_t lim = d->cycles_limit, gl = s->pool[c->slot].gas_limit;
            if (gl != 0 && gl < lim) lim = gl;
            uint64_t ntx = cs_sched_handler_txs(s, lim, uc, s->fire_defer_req);
            uc += ntx * s->p.handler_deferred_cycles;
            st->handler_txs += ntx;
        }
        row->used_cycles = uc;
        used_sum += uc;
        cs__fees_settle(s, c, uc, ue, row);
        st->burn += row->burn;
        st->tips += row->tip;
        st->payments += row->payment;
        st->exec_fee += row->exec_fee;
        st->lane_burn += row->lane_burn;
    }
    st->lane_cycles = (ops->flags & CS_MF_BUDGET) ? used_sum : 0;
    if (s->p.gc_lane == CS_GC_SHARED && (ops->flags & CS_MF_BUDGET))
        st->lane_cycles += st->gc_cycles; /* N85: the lane did the GC work */
    st->eob_cycles = used_sum;
    s->n_rows_last = nr;
    s->eob_nd = nd;
    s->eob_ctx = ctx;
    s->eob_out = out;
    s->eob_oom = oom;
    return CS_OK;
}

int cs__eob_timers(cs_sched_t *s)
{
    s->eob_done = s->cur; /* first: the fires' own transactions must not re-enter */
    s->eob_oom = 0;
    s->n_rows_last = 0;
    s->eob_rc = cs__timers_phase(s);
    return s->eob_rc;
}

int cs_sched_end_block(cs_sched_t *s, cs_block_result_t *res)
{
    if (s->tx_open) return CS_ETX_OPEN;
    if (s->cur != s->height + 1) return CS_EINVAL;
    uint64_t h = s->cur;
    memset(res, 0, sizeof *res);
    /* Steps 3-8, unless they ran before the block's transactions (the
     * first CIP-1 draft's order under gba-tip, N69). */
    if (s->eob_done != h) (void)cs__eob_timers(s);
    if (s->eob_rc != CS_OK) return s->eob_rc;
    /* Read after the timers' phase in either order, so that the block's
     * counts include what its handlers scheduled and cancelled (N96). */
    uint64_t scheduled = s->blk_scheduled, cancelled = s->blk_cancelled, sched_cycles = s->blk_sched_cycles;
    int oom = s->eob_oom;
    cs_block_stats_t *st = &res->st;
    *st = s->eob_st;
    st->height = h;
    st->scheduled = scheduled;
    st->cancelled = cancelled;
    st->sched_cycles = sched_cycles;
    /* Schedule and cancel costs of h: its transactions' and its handlers'
     * (which ran just above), N58. */
    st->sched_cost = s->blk_sched_cost;
    st->cancel_cost = s->blk_cancel_cost;
    st->burn += st->sched_cost + st->cancel_cost; /* burned at h too */

    /* Step 9: fairness counters, lane basefee, p50 tip, mechanism feedback. */
    if (cs__fees_end_block(s, s->cands, s->eob_nc, st) != CS_OK) oom = 1;
    if (!s->paused) cs_mech_end_block(&s->mech, &s->eob_ctx, s->cands, s->eob_nc, &s->eob_out);
    s->height = h;
    /* Waiting in the GC lane after h, including timers that failed their
     * precharge in step 6 (after this block's GC run). */
    st->gc_backlog = s->n_gcq - s->gcq_head;
    cs_queue_stats(s->q, &st->tiers);
    cs__digest(s, h, st);

    res->deliv = s->deliv;
    res->n_deliv = s->eob_nd;
    res->rows = s->rows;
    res->n_rows = s->n_rows_last;
    /* The block ran to the end, but state was lost on the way: say so. */
    return oom ? CS_ENOMEM : CS_OK;
}

