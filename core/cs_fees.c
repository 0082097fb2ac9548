/*
 * cs_fees.c -- the money side of the end-of-block pipeline: fee and bid
 * validation at schedule time, the lifecycle funds check, the pre-charge /
 * execute / refund settlement, escrowed bids, W(actor), the lane basefee
 * and the previous-block p50 tip (CIP-1 rev §3 steps 4-10, §5-§9; CIP-5
 * §9.7; DESIGN §2.3-2.6, D3-D5, D9-D12).
 *
 * Which money rules apply follows the mechanism's flags:
 *   CS_MF_FEES  per-cycle fees from the fee payer (eip1559, gba-tip)
 *   CS_MF_BID   a bid escrowed at schedule and settled at fire (bias-*, score)
 * and under every mechanism (DESIGN §2.4, DESIGN-NOTES N58) each fire pays
 * the CIP-3 execution fees -- used cycles x the cycle basefee + used cells
 * x the cell basefee, burned -- from its fee payer, pre-charged at its
 * limits and refunded (execution_fees = none: only the fee mechanisms, the
 * CIP-5 §6.3 text), and every schedule and cancel call pays its CIP-5 §6.1
 * cycles and cells at those basefees when it is made.
 */
#include "cs_fees.h"

#include "cs_basefee.h"
#include "cs_fairness.h"
#include "cs_gba.h"
#include "cs_ledger.h"
#include "cs_mech_bias.h"
#include "cs_mech_int.h"
#include "cs_sched_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cs_fees {
    cs_ledger_t ledger;       /* balances, escrow, burn, proposer */
    cs_fairness_t fair;       /* W(actor) over the fairness identity */
    cs_u128 basefee_lane;     /* lane basefee of the block being built */
    cs_basefee_win_t bwin;    /* the last basefee_window blocks' lane cycles */
    cs_u128 basefee_cycle;    /* CIP-3 environment (D13), as charged (N38) */
    cs_u128 basefee_cell;
    uint64_t last_usage;      /* last_block_cycle_usage (CIP-1 §4.2) */
    cs_u128 p50_tip;          /* previous-block p50 priority tip per cycle */
    cs_u128 *tips;            /* this block's fired tips, scratch */
    size_t tips_cap;
    uint32_t *fid;            /* this block's fired fairness identities, scratch */
    size_t fid_cap;
    uint64_t clamped;         /* TimerPriorityClampedAtSchedule count (run) */
    uint64_t rejected_below;  /* TimerRejectedBelowBasefee count (run) */
    /* Memos of pure functions (performance only: each holds its full input
     * key, so a hit returns exactly what the call would). */
    cs_u128 lc_in;            /* lane charged: basefee_lane of the memo */
    uint64_t lc_mult;         /* lane charged: lane_fee_multiplier of the memo */
    cs_u128 lc_out;           /* lane charged: result (CS_U128_MAX on overflow) */
    int lc_valid;             /* lane charged memo holds a value */
    struct cs__gba_memo {
        cs_u128 lane, p50;    /* key: charged lane basefee, previous-block p50 tip */
        cs_u128 cell;         /* key: basefee_cell */
        uint64_t headroom;    /* key: gba_headroom */
        uint64_t mult;        /* key: the tier's multiplier */
        int rc;               /* cs_gba_default's return code */
        cs_u128 max_fee;      /* its max_fee_per_cycle */
        cs_u128 max_prio;     /* its max_priority_fee_per_cycle */
        int valid;            /* entry holds a value */
    } gba[4];                 /* default-GBA memo per priority tier (cs_ptier) */
    struct cs__prechg {
        cs_fire_charge_t ch;  /* the charge built at pre-charge */
        cs_u128 cost;         /* its max_cost, locked in escrow */
        uint64_t height;      /* block of the pre-charge */
        uint32_t slot;        /* record slot of the candidate */
    } *pre;                   /* per candidate index of the block being settled */
    size_t pre_cap;           /* entries of pre */
};

static int cs__fgrow(void **arr, size_t *cap, size_t need, size_t elem)
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

int cs__fees_init(cs_sched_t *s)
{
    struct cs_fees *f = calloc(1, sizeof *f);
    if (!f) return CS_ENOMEM;
    cs_ledger_init(&f->ledger);
    if (cs_fairness_init(&f->fair, &s->p) != CS_OK) {
        free(f);
        return CS_EINVAL;
    }
    f->basefee_lane = cs_basefee_initial(&s->p);
    int rc = cs_basefee_win_init(&f->bwin, &s->p);
    if (rc != CS_OK) {
        cs_fairness_free(&f->fair);
        free(f);
        return rc;
    }
    s->fees = f;
    return CS_OK;
}

int cs__fees_activate(cs_sched_t *s)
{
    struct cs_fees *f = s->fees;
    cs_fairness_free(&f->fair);
    return cs_fairness_init(&f->fair, &s->p) == CS_OK ? CS_OK : CS_EINVAL;
}

void cs__fees_free(cs_sched_t *s)
{
    struct cs_fees *f = s->fees;
    if (!f) return;
    cs_ledger_free(&f->ledger);
    cs_fairness_free(&f->fair);
    cs_basefee_win_free(&f->bwin);
    free(f->tips);
    free(f->fid);
    free(f->pre);
    free(f);
    s->fees = NULL;
}

void cs__fees_begin_block(cs_sched_t *s, uint64_t h)
{
    /* CIP-1 rev §3 step 10: the window's rolling decay is applied at the
     * start of the next end-of-block step. */
    (void)cs_fairness_begin_block(&s->fees->fair, h);
}

/* The charged lane basefee per cycle (lane fee multiplier applied, §5),
 * CS_U128_MAX on overflow.  Memoized on its full input (basefee_lane,
 * lane_fee_multiplier): the pipeline asks for it several times per
 * candidate and it changes at most once per block. */
int cs__fees_draft_lane(const cs_sched_t *s)
{
    return (s->mech.ops->flags & CS_MF_DEFER_FUNDS) && s->p.gba_tip_lane == CS_GBA_LANE_NONE;
}

int cs_sched_lane_is_cycle(const cs_sched_t *s) { return cs__fees_draft_lane(s); }

static cs_u128 cs__lane_charged(const cs_sched_t *s)
{
    struct cs_fees *f = s->fees;
    /* First-draft gba-tip (N65): bids are measured against the cycle
     * basefee ("min(tip_per_cycle, max_fee_per_cycle - basefee_cycle)"). */
    if (cs__fees_draft_lane(s)) return f->basefee_cycle;
    if (f->lc_valid && f->lc_in == f->basefee_lane && f->lc_mult == s->p.lane_fee_multiplier) return f->lc_out;
    cs_u128 out = f->basefee_lane;
    if (cs_basefee_charged(&s->p, f->basefee_lane, &out) != CS_OK) out = CS_U128_MAX;
    f->lc_in = f->basefee_lane;
    f->lc_mult = s->p.lane_fee_multiplier;
    f->lc_out = out;
    f->lc_valid = 1;
    return out;
}

/*
 * CIP-1 rev §7.1/§7.3 default GBA for a timer of priority tier `tier`:
 * cs_gba_default's return code, with *max_fee and *max_prio set on CS_OK.
 * Memoized per tier on every input cs_gba_default reads (charged lane
 * basefee, previous-block p50 tip, basefee_cell, gba_headroom and the
 * tier's multiplier), so a hit is exactly the call's result.
 */
static int cs__gba_default_fees(struct cs_fees *f, const cs_params_t *p, const cs_gba_ctx_t *ctx, int tier,
                                cs_u128 *max_fee, cs_u128 *max_prio)
{
    struct cs__gba_memo *m = tier >= 0 && tier < 4 ? &f->gba[tier] : NULL;
    uint64_t mult = m ? cs_gba_tier_multiplier(p, tier) : 0;
    if (m && m->valid && m->lane == ctx->basefee_lane_timer &&
        m->p50 == ctx->previous_block_p50_priority_tip_per_cycle && m->cell == ctx->basefee_cell &&
        m->headroom == p->gba_headroom && m->mult == mult) {
        if (m->rc == CS_OK) {
            *max_fee = m->max_fee;
            *max_prio = m->max_prio;
        }
        return m->rc;
    }
    cs_txfee_t fee;
    int rc = cs_gba_default(p, ctx, tier, &fee);
    if (rc == CS_OK) {
        *max_fee = fee.max_fee_per_cycle;
        *max_prio = fee.max_priority_fee_per_cycle;
    }
    if (m) {
        m->lane = ctx->basefee_lane_timer;
        m->p50 = ctx->previous_block_p50_priority_tip_per_cycle;
        m->cell = ctx->basefee_cell;
        m->headroom = p->gba_headroom;
        m->mult = mult;
        m->rc = rc;
        m->max_fee = rc == CS_OK ? *max_fee : 0;
        m->max_prio = rc == CS_OK ? *max_prio : 0;
        m->valid = 1;
    }
    return rc;
}

/* 1 when fires of this mechanism pay the CIP-3 execution fees through an
 * execution-only charge (every mechanism without CS_MF_FEES, whose charge
 * already holds them), N58. */
static int cs__exec_only(const cs_sched_t *s)
{
    return !(s->mech.ops->flags & CS_MF_FEES) && s->p.execution_fees == CS_EXEC_FEES_CIP3;
}

/* Every field of *ch, used cycles and cells 0.  Field by field: a compound
 * literal's zero-fill is a slow rep stos, and this runs per fire. */
static void cs__charge_fields(cs_fire_charge_t *ch, const cs_timer_t *t, cs_u128 bf_cycle, cs_u128 bf_lane,
                              cs_u128 tip_rate, cs_u128 bf_cell, cs_u128 lump, uint32_t payments_to)
{
    ch->gas_limit = t->gas_limit;
    ch->max_cells = t->max_cells;
    ch->used_cycles = 0;
    ch->used_cells = 0;
    ch->basefee_cycle = bf_cycle;
    ch->basefee_lane = bf_lane;
    ch->tip_rate = tip_rate;
    ch->basefee_cell = bf_cell;
    ch->lump = lump;
    ch->payments_to = payments_to;
}

/* The execution-only charge of one fire (N58; CIP-3 via CIP-5 CN §12): the
 * cycle basefee as charged (N38) and the cell basefee, no lane basefee, no
 * tip, no lump (an allocation payment is settled from the bid escrow). */
static void cs__exec_charge(const cs_sched_t *s, const cs_timer_t *t, cs_fire_charge_t *ch)
{
    cs__charge_fields(ch, t, s->fees->basefee_cycle, 0, 0, s->fees->basefee_cell, 0, s->p.payments_to);
}

int cs__fees_op_check(cs_sched_t *s, uint32_t actor, uint64_t cycles, uint64_t cells, cs_u128 reserve,
                      cs_u128 *cost)
{
    struct cs_fees *f = s->fees;
    cs_u128 a = 0, b = 0, c = 0, need = 0;
    if (cs_u128_mul(f->basefee_cycle, cycles, &a) != 0 || cs_u128_mul(f->basefee_cell, cells, &b) != 0 ||
        cs_u128_add(a, b, &c) != 0)
        return CS_EOVERFLOW;
    *cost = c;
    if (c == 0) return CS_OK;
    if (cs_u128_add(c, reserve, &need) != 0) return CS_EINSUFFICIENT_FUNDS;
    if (actor >= f->ledger.n || cs_ledger_balance(&f->ledger, actor) < need) return CS_EINSUFFICIENT_FUNDS;
    return CS_OK;
}

void cs__fees_op_debit(cs_sched_t *s, uint32_t actor, cs_u128 cost, int is_cancel)
{
    if (cost == 0) return;
    /* cs__fees_op_check saw the balance cover it and nothing was debited
     * since, so the charge cannot fail. */
    if (cs_ledger_charge_burn(&s->fees->ledger, actor, cost) != CS_OK) return;
    cs_actor_rec_t *ar = &s->actors[actor];
    if (is_cancel) {
        ar->cancel_paid += cost;
        s->blk_cancel_cost += cost;
    } else {
        ar->sched_paid += cost;
        s->blk_sched_cost += cost;
    }
}

void cs_sched_actor_costs(const cs_sched_t *s, uint32_t actor, cs_u128 *sched, cs_u128 *cancel)
{
    int ok = actor < s->n_actors;
    *sched = ok ? s->actors[actor].sched_paid : 0;
    *cancel = ok ? s->actors[actor].cancel_paid : 0;
}

static int cs__auction(const cs_sched_t *s)
{
    unsigned fl = s->mech.ops->flags;
    /* The greedy reference competes for the same budget under the same cap. */
    return (fl & CS_MF_BUDGET) && (fl & (CS_MF_FEES | CS_MF_BID | CS_MF_REFERENCE));
}

int cs__fees_validate(cs_sched_t *s, const cs_sched_args_t *a, cs_timer_hot_t *hot, cs_timer_t *rec,
                      cs_timer_money_t *m)
{
    struct cs_fees *f = s->fees;
    unsigned fl = s->mech.ops->flags;
    int auction = cs__auction(s);
    rec->gas_limit = a->gas_limit ? a->gas_limit : (auction ? s->p.max_cycles_per_fire : s->p.fifo_fire_cycles);
    rec->max_cells = a->max_cells ? a->max_cells : s->p.fifo_fire_cells;
    /* D5: a gas limit above the auction per-timer cap (CIP-1 rev §10). */
    if (auction && rec->gas_limit > s->p.max_cycles_per_fire && s->p.over_cap == CS_OVER_CAP_REJECT)
        return CS_EOVER_CAP;
    if (fl & CS_MF_FEES) {
        /* CIP-1 rev §6 scheduling-time validation; the legacy bid is
         * accepted and ignored, or rejected with TimerArgDeprecated. */
        cs_u128 lane = cs__lane_charged(s);
        if (a->has_fees) {
            cs_gba_check_t chk;
            int rc = cs_gba_validate(&s->p, lane, a->max_fee, a->max_prio, a->has_bid, &chk);
            if (rc == CS_EBELOW_BASEFEE) f->rejected_below++;
            if (rc != CS_OK) return rc;
            if (chk.clamped) f->clamped++;
            m->max_fee = a->max_fee;
            m->max_prio = chk.max_prio;
            hot->flags |= CS_TF_HAS_FEES;
        } else {
            if (a->has_bid && s->p.legacy_bid == CS_LEGACY_REJECT) return CS_EARG_DEPRECATED;
            if (s->p.default_gba_eval == CS_GBA_EVAL_SCHEDULE) {
                /* D4 = schedule: freeze the default-GBA values now. */
                cs_gba_ctx_t ctx;
                memset(&ctx, 0, sizeof ctx);
                ctx.basefee_lane_timer = lane;
                ctx.previous_block_p50_priority_tip_per_cycle = f->p50_tip;
                cs_u128 mf, mp;
                if (cs__gba_default_fees(f, &s->p, &ctx, a->tier_hint, &mf, &mp) == CS_OK) {
                    m->max_fee = mf;
                    m->max_prio = mp;
                    hot->flags |= CS_TF_HAS_FEES;
                }
            }
        }
        m->bid = 0;
        return CS_OK;
    }
    if (fl & CS_MF_BID) {
        /* CIP-5 §9.7: the bid is locked at scheduling; it must be covered now. */
        m->bid = a->has_bid ? a->bid : 0;
        if (m->bid > 0) {
            uint32_t payer = m->fee_payer;
            if (payer >= f->ledger.n || cs_ledger_balance(&f->ledger, payer) < m->bid)
                return CS_EINSUFFICIENT_FUNDS;
            hot->flags |= CS_TF_HAS_BID;
        }
        return CS_OK;
    }
    m->bid = a->has_bid ? a->bid : 0;
    return CS_OK;
}

int cs__fees_on_insert(cs_sched_t *s, uint32_t slot)
{
    cs_u128 bid = cs__rec_bid(s, slot);
    if (!(s->mech.ops->flags & CS_MF_BID) || bid == 0) return CS_OK;
    /* CIP-5 §9.7: lock the bid in escrow when the schedule commits. */
    int rc = cs_ledger_escrow_lock(&s->fees->ledger, cs__rec_payer(s, slot), bid);
    return rc == CS_OK ? CS_OK : CS_EINSUFFICIENT_FUNDS;
}

void cs__fees_on_destroy(cs_sched_t *s, uint32_t slot)
{
    cs_timer_money_t *m = cs__rec_money(s, slot);
    if (!(s->mech.ops->flags & CS_MF_BID) || m == NULL || m->bid == 0) return;
    /* Cancelled, expired or destroyed without firing: the escrow returns. */
    (void)cs_ledger_escrow_release(&s->fees->ledger, cs__rec_payer(s, slot), m->bid);
    m->bid = 0;
}

/* Fee parameters of a timer at fire time: schedule-time values, a custom
 * GBA (CIP-1 rev §7.2), or the default GBA (§7.1, with its tier §7.3). */
static void cs__fire_fees(cs_sched_t *s, uint32_t slot, cs_u128 lane, cs_u128 *max_fee,
                          cs_u128 *max_prio)
{
    struct cs_fees *f = s->fees;
    const cs_timer_t *t = &s->pool[slot];
    const cs_timer_hot_t *th = &s->hot[slot];
    if (th->flags & CS_TF_HAS_FEES) {
        const cs_timer_money_t *m = &s->money[t->money]; /* present with CS_TF_HAS_FEES */
        *max_fee = m->max_fee;
        *max_prio = m->max_prio;
        return;
    }
    cs_gba_ctx_t ctx; /* every field assigned (no memset: a slow rep stos per fire) */
    ctx.trigger_block_height = th->height;
    ctx.current_block_height = s->cur;
    ctx.basefee_cycle = f->basefee_cycle;
    ctx.basefee_cell = f->basefee_cell;
    ctx.basefee_lane_timer = lane;
    ctx.last_block_cycle_usage = f->last_usage;
    ctx.previous_block_p50_priority_tip_per_cycle = f->p50_tip;
    ctx.owner_actor_balance = cs_ledger_balance(&f->ledger, t->actor);
    if (s->hooks.gba) {
        cs_gba_ctx_pub_t pub;
        pub.trigger_block_height = ctx.trigger_block_height;
        pub.current_block_height = ctx.current_block_height;
        pub.basefee_cycle = ctx.basefee_cycle;
        pub.basefee_cell = ctx.basefee_cell;
        pub.basefee_lane_timer = lane;
        pub.last_block_cycle_usage = ctx.last_block_cycle_usage;
        pub.p50_tip = f->p50_tip;
        pub.owner_balance = ctx.owner_actor_balance;
        if (cs__gba_default_fees(f, &s->p, &ctx, th->tier_hint, &pub.dflt_max_fee, &pub.dflt_max_prio) != CS_OK)
            pub.dflt_max_fee = pub.dflt_max_prio = 0;
        if (s->hooks.gba(s->hooks.user, t, &pub, max_fee, max_prio)) return;
    }
    if (cs__gba_default_fees(f, &s->p, &ctx, th->tier_hint, max_fee, max_prio) != CS_OK) {
        *max_fee = 0;
        *max_prio = 0;
    }
}

/* The charge of one fire given its priority rate and lump payment. */
static void cs__charge(const cs_sched_t *s, const cs_timer_t *t, cs_u128 prio_rate, cs_u128 lump,
                       cs_fire_charge_t *ch)
{
    /* used_cycles and used_cells stay 0 (set at settlement). */
    cs__charge_fields(ch, t, 0, 0, prio_rate, s->fees->basefee_cell, lump, s->p.payments_to);
    cs_basefee_fire_rates(&s->p, s->fees->basefee_cycle, cs__lane_charged(s), &ch->basefee_cycle,
                          &ch->basefee_lane);
    if (cs__fees_draft_lane(s)) {
        /* N65: the cycle basefee and the tip, no lane basefee. */
        ch->basefee_cycle = s->fees->basefee_cycle;
        ch->basefee_lane = 0;
    }
}

int cs__fees_defers(const cs_sched_t *s)
{
    return (s->mech.ops->flags & CS_MF_DEFER_FUNDS) && s->p.gba_tip_charge == CS_GBA_CHARGE_DRAFT;
}

/* What the funds test and the charge of a fee-rule fire price (N60): under
 * gba-tip's first-draft charge the cycles and cells the fire will use (the
 * usage hook, capped at its limits; without a hook its limits, and the
 * settlement refunds what it did not use); otherwise its limits
 * (max_cost, CIP-1 rev §3 step 8). */
static void cs__fees_usage(const cs_sched_t *s, uint32_t slot, cs_cand_t *c)
{
    const cs_timer_t *t = &s->pool[slot];
    c->use_cycles = t->gas_limit;
    c->use_cells = t->max_cells;
    if (!cs__fees_defers(s)) return;
    if (s->hooks.usage) s->hooks.usage(s->hooks.user, s, slot, &c->use_cycles, &c->use_cells);
    if (c->use_cycles == 0 || c->use_cycles > t->gas_limit) c->use_cycles = t->gas_limit;
    if (c->use_cells > t->max_cells) c->use_cells = t->max_cells;
}

/* The charge of a fee-rule fire, priced at what cs__fees_usage chose: its
 * limits become the usage under the first-draft charge, so the pre-charge
 * is the GBA's price for what the fire uses and nothing is refunded. */
static void cs__fee_charge(const cs_sched_t *s, const cs_cand_t *c, cs_fire_charge_t *ch)
{
    cs__charge(s, &s->pool[c->slot], c->prio_rate, c->payment, ch);
    if (!cs__fees_defers(s)) return;
    ch->gas_limit = c->use_cycles;
    ch->max_cells = c->use_cells;
}

int cs__fees_classify(cs_sched_t *s, uint32_t slot, cs_cand_t *c)
{
    struct cs_fees *f = s->fees;
    const cs_timer_t *t = &s->pool[slot];
    unsigned fl = s->mech.ops->flags;
    c->cycles = t->gas_limit;
    /* D12: the fairness identity is the actor or its deployer. */
    c->ident = s->p.fairness_identity == CS_IDENTITY_DEPLOYER ? s->actors[t->actor].deployer : t->actor;
    c->weight = cs_fairness_weight(&f->fair, c->ident);
    if (fl & CS_MF_FEES) {
        cs_u128 lane = cs__lane_charged(s);
        cs__fire_fees(s, slot, lane, &c->max_fee, &c->max_prio);
        c->balance = cs_ledger_balance(&f->ledger, cs__rec_payer(s, slot));
        /* CIP-1 rev §3 step 4: balance(fee_payer) < max_cost -> GC path 3. */
        cs_u128 rate = 0, cost = 0;
        if (cs_gba_prio_rate(c->max_fee, c->max_prio, lane, &rate) != CS_OK) rate = 0;
        cs__fees_usage(s, slot, c);
        cs_fire_charge_t ch;
        cs__charge(s, t, rate, 0, &ch);
        ch.gas_limit = c->use_cycles;
        ch.max_cells = c->use_cells;
        /* Under gba_tip_charge = draft a payer short of it is deferred by
         * the mechanism (its funds test is this one), N60. */
        if (cs_ledger_max_cost(&ch, &cost) != CS_OK || c->balance < cost) return CS_EINSUFFICIENT_FUNDS;
        return CS_OK;
    }
    c->balance = (fl & CS_MF_BID) ? cs__rec_bid(s, slot) /* what the escrow can pay */ : CS_U128_MAX;
    if (cs__exec_only(s)) {
        /* N58, CIP-1 rev §3 step 4 applied to the execution fee: a payer
         * who cannot cover it at the limits is insufficient. */
        cs_fire_charge_t ch;
        cs_u128 cost = 0;
        cs__exec_charge(s, t, &ch);
        if (cs_ledger_max_cost(&ch, &cost) != CS_OK ||
            cs_ledger_balance(&f->ledger, cs__rec_payer(s, slot)) < cost)
            return CS_EINSUFFICIENT_FUNDS;
    }
    return CS_OK;
}

void cs__fees_ledger_arrays(const cs_sched_t *s, const cs_u128 **bal, const cs_u128 **esc, uint32_t *n)
{
    *bal = s->fees->ledger.bal;
    *esc = s->fees->ledger.esc;
    *n = s->fees->ledger.n;
}

int cs__fees_precharge(cs_sched_t *s, const cs_cand_t *c, cs_cand_row_t *row)
{
    struct cs_fees *f = s->fees;
    const cs_timer_t *t = &s->pool[c->slot];
    row->tip_rate = c->prio_rate;
    int fees = (s->mech.ops->flags & CS_MF_FEES) != 0;
    if (!fees && !cs__exec_only(s)) return CS_OK;
    /* CIP-1 rev §3 step 8: pre-charge max_cost; held in escrow until the
     * handler returns and the unused part is refunded (the execution fees
     * alone under the other mechanisms, N58). */
    cs_fire_charge_t ch;
    if (fees) cs__fee_charge(s, c, &ch);
    else cs__exec_charge(s, t, &ch);
    cs_u128 cost;
    if (cs_ledger_max_cost(&ch, &cost) != CS_OK) return CS_EINSUFFICIENT_FUNDS;
    if (cs_ledger_escrow_lock(&f->ledger, cs__rec_payer(s, c->slot), cost) != CS_OK) return CS_EINSUFFICIENT_FUNDS;
    /* Keep the charge for cs__fees_settle: its inputs (the record's limits,
     * the candidate's rates, parameters, environment and lane basefee) do
     * not change between pre-charge and settlement within a block, so the
     * settlement reuses it instead of building it again (performance). */
    if (c >= s->cands && c < s->cands + s->cands_cap) {
        size_t i = (size_t)(c - s->cands);
        if (cs__fgrow((void **)&f->pre, &f->pre_cap, i + 1, sizeof *f->pre) == 0) {
            f->pre[i].ch = ch;
            f->pre[i].cost = cost;
            f->pre[i].height = s->cur;
            f->pre[i].slot = c->slot;
        }
    }
    return CS_OK;
}

/* The pre-charge kept for candidate c of the current block, or NULL. */
static const struct cs__prechg *cs__prechg_of(const cs_sched_t *s, const cs_cand_t *c)
{
    const struct cs_fees *f = s->fees;
    if (c < s->cands || c >= s->cands + s->cands_cap) return NULL;
    size_t i = (size_t)(c - s->cands);
    if (i >= f->pre_cap || f->pre[i].height != s->cur || f->pre[i].slot != c->slot) return NULL;
    return &f->pre[i];
}

void cs__fees_settle(cs_sched_t *s, const cs_cand_t *c, uint64_t used_cycles, uint64_t used_cells,
                     cs_cand_row_t *row)
{
    struct cs_fees *f = s->fees;
    const cs_timer_t *t = &s->pool[c->slot];
    unsigned fl = s->mech.ops->flags;
    cs_ledger_dest dest = cs_ledger_dest_of(s->p.payments_to);
    if ((fl & CS_MF_FEES) || cs__exec_only(s)) {
        cs_fire_charge_t ch;
        cs_u128 cost = 0;
        int have = 0;
        const struct cs__prechg *pc = cs__prechg_of(s, c);
        if (pc) {
            /* The charge pre-charged for this fire (same inputs, same cost). */
            ch = pc->ch;
            cost = pc->cost;
            have = 1;
        } else {
            if (fl & CS_MF_FEES) cs__fee_charge(s, c, &ch);
            else cs__exec_charge(s, t, &ch);
            have = cs_ledger_max_cost(&ch, &cost) == CS_OK;
        }
        ch.used_cycles = used_cycles;
        ch.used_cells = used_cells;
        cs_fire_bill_t bill; /* read only when the settlement wrote it */
        if (have && cs_ledger_escrow_release(&f->ledger, cs__rec_payer(s, c->slot), cost) == CS_OK &&
            cs_ledger_settle_fire(&f->ledger, cs__rec_payer(s, c->slot), &ch, &bill) == CS_OK) {
            row->burn = bill.burned;
            row->tip = bill.tip;
            row->payment = bill.lump;
            row->exec_fee = bill.burn_cycle + bill.burn_cell;
            row->lane_burn = bill.burn_lane;
        }
        if (fl & CS_MF_FEES) return;
    }
    cs_timer_money_t *m = cs__rec_money(s, c->slot);
    if ((fl & CS_MF_BID) && m != NULL && m->bid > 0) {
        /* CIP-5 §9.7: the bid is refunded minus the payment. */
        cs_u128 pay = c->payment > m->bid ? m->bid : c->payment;
        if (cs_ledger_escrow_settle(&f->ledger, cs__rec_payer(s, c->slot), m->bid, pay, dest) == CS_OK) {
            row->payment = pay;
            if (dest == CS_DEST_BURN) row->burn += pay;
        }
        /* An interval or watch timer re-locks its bid for the next fire. */
        const cs_timer_hot_t *thw = &s->hot[c->slot];
        if ((thw->flags & CS_TF_LIVE) && thw->kind != CS_KIND_HEIGHT) {
            if (cs_ledger_escrow_lock(&f->ledger, cs__rec_payer(s, c->slot), m->bid) != CS_OK) m->bid = 0;
        } else {
            m->bid = 0;
        }
    }
}

void cs__fees_ctx(cs_sched_t *s, cs_clear_ctx_t *ctx)
{
    struct cs_fees *f = s->fees;
    ctx->basefee_lane = cs__lane_charged(s);
    ctx->basefee_cycle = f->basefee_cycle;
    ctx->basefee_cell = f->basefee_cell;
    ctx->budget_cycles = s->p.lane_timer_cycles;
}

int cs__fees_end_block(cs_sched_t *s, const cs_cand_t *c, size_t n, cs_block_stats_t *st)
{
    struct cs_fees *f = s->fees;
    (void)c;
    if (cs_fairness_reserve(&f->fair, (uint32_t)s->n_actors, (uint32_t)s->n_actors) != CS_OK) return CS_ENOMEM;
    size_t nt = 0;
    if (cs__fgrow((void **)&f->tips, &f->tips_cap, st->fired + 1, sizeof *f->tips) != 0 ||
        cs__fgrow((void **)&f->fid, &f->fid_cap, st->fired + 1, sizeof *f->fid) != 0)
        return CS_ENOMEM;
    int err = CS_OK;
    /* The fired rows in row order: only candidates fire, and candidate i's
     * row is crow[i], increasing in i; a byte per candidate says which
     * fired, so the deferred ones' rows are not read again.  Two passes:
     * the fired identities first (their counters prefetched), then the
     * counts, so the counters' misses overlap (performance only; the fires
     * are counted in the same order). */
    const cs_fairness_t *fa = &f->fair;
    for (size_t i = 0; i < n; i++) {
        if (!s->cfired[i]) continue;
        const cs_cand_row_t *row = &s->rows[s->crow[i]];
        const cs_timer_t *t = &s->pool[row->slot];
        uint32_t ident = s->p.fairness_identity == CS_IDENTITY_DEPLOYER ? s->actors[t->actor].deployer : t->actor;
        if (ident < fa->n_ident && fa->slot_of[ident] != UINT32_MAX) __builtin_prefetch(&fa->slots[fa->slot_of[ident]]);
        f->fid[nt] = ident;
        f->tips[nt++] = row->tip_rate;
    }
    /* CIP-1 rev §3 step 10: recent_executions[actor] += 1 per fire. */
    for (size_t k = 0; k < nt; k++)
        if (cs_fairness_add_fire(&f->fair, f->fid[k]) == CS_ENOMEM) err = CS_ENOMEM;
    /* CIP-1 rev §7.1: p50 of the tips fired timers paid (0 if none). */
    f->p50_tip = cs_gba_p50_tip(f->tips, nt);
    st->p50_tip = f->p50_tip;
    /* CIP-1 rev §5: the lane basefee for h+1 from this block's lane usage. */
    if ((s->mech.ops->flags & CS_MF_FEES) && !cs__fees_draft_lane(s)) {
        cs_u128 next;
        if (cs_basefee_win_step(&f->bwin, &s->p, f->basefee_lane, st->lane_cycles, &next) == CS_OK)
            f->basefee_lane = next;
    }
    f->last_usage = st->eob_cycles;
    return err;
}

/* The bound of cs__fees_rank_funded over max_cost for cycles g, cells c
 * and max_fee fmax: max_cost = g x (cycle rate + lane rate + tip rate) +
 * c x cell basefee (cs_ledger_max_cost); lane + tip <= max_fee when
 * max_fee >= lane, else the tip is 0; the cycle rate is at most
 * basefee_cycle.  CS_U128_MAX when it saturates. */
static cs_u128 cs__fees_cost_bound(const cs_sched_t *s, uint64_t g, uint64_t c, cs_u128 fmax)
{
    const struct cs_fees *f = s->fees;
    cs_u128 lane = cs__lane_charged(s);
    cs_u128 rate = cs__sat_add(f->basefee_cycle, fmax > lane ? fmax : lane);
    return cs__sat_add(cs__sat_mul64(g, rate), cs__sat_mul64(c, f->basefee_cell));
}

int cs__fees_rank_funded(const cs_sched_t *s)
{
    const struct cs_fees *f = s->fees;
    const cs__rank_t *r = &s->rank;
    if (r->n == 0) return 1;
    cs_u128 bound = cs__fees_cost_bound(s, r->gmax, r->cmax, r->fmax);
    if (bound == CS_U128_MAX) return 0;
    size_t na = r->acap < f->ledger.n ? r->acap : f->ledger.n;
    for (size_t a = 0; a < na; a++)
        if (r->acnt[a] != 0 && cs_ledger_balance(&f->ledger, (uint32_t)a) < bound) return 0;
    for (size_t a = na; a < r->acap; a++)
        if (r->acnt[a] != 0) return 0; /* an account the ledger does not hold: balance 0 */
    return 1;
}

int cs__fees_surely_funded(const cs_sched_t *s, uint32_t slot)
{
    const cs_timer_t *t = &s->pool[slot];
    const cs_timer_money_t *m = cs__rec_money(s, slot);
    if (m == NULL) return 0;
    cs_u128 bound = cs__fees_cost_bound(s, t->gas_limit, t->max_cells, m->max_fee);
    return bound != CS_U128_MAX && cs_ledger_balance(&s->fees->ledger, cs__rec_payer(s, slot)) >= bound;
}

/* ------------------------------------------------------------ public API */

int cs_sched_fund(cs_sched_t *s, const cs_addr_t *a, cs_u128 amount)
{
    uint32_t idx;
    int rc = cs__actor_intern(s, a, &idx);
    if (rc != CS_OK) return rc;
    if (cs_ledger_reserve(&s->fees->ledger, (uint32_t)s->n_actors) != CS_OK) return CS_ENOMEM;
    return cs_ledger_fund(&s->fees->ledger, idx, amount);
}

int cs_sched_set_deployer(cs_sched_t *s, const cs_addr_t *actor, const cs_addr_t *deployer)
{
    uint32_t a, d;
    int rc = cs__actor_intern(s, actor, &a);
    if (rc == CS_OK) rc = cs__actor_intern(s, deployer, &d);
    if (rc != CS_OK) return rc;
    s->actors[a].deployer = d;
    return cs_ledger_reserve(&s->fees->ledger, (uint32_t)s->n_actors) == CS_OK ? CS_OK : CS_ENOMEM;
}

int cs_sched_actor_index(cs_sched_t *s, const cs_addr_t *a, uint32_t *idx)
{
    int rc = cs__actor_intern(s, a, idx);
    if (rc != CS_OK) return rc;
    return cs_ledger_reserve(&s->fees->ledger, (uint32_t)s->n_actors) == CS_OK ? CS_OK : CS_ENOMEM;
}

cs_u128 cs_sched_balance(const cs_sched_t *s, uint32_t actor)
{
    return actor < s->fees->ledger.n ? cs_ledger_balance(&s->fees->ledger, actor) : 0;
}

void cs_sched_set_env(cs_sched_t *s, cs_u128 basefee_cycle, cs_u128 basefee_cell)
{
    /* Timer fires pay the cycle basefee as charged (N38; saturating). */
    if (cs_basefee_cycle_charged(&s->p, basefee_cycle, &s->fees->basefee_cycle) != CS_OK)
        s->fees->basefee_cycle = CS_U128_MAX;
    s->fees->basefee_cell = basefee_cell;
}

cs_u128 cs_sched_lane_basefee(const cs_sched_t *s) { return s->fees->basefee_lane; }
cs_u128 cs_sched_lane_basefee_charged(const cs_sched_t *s) { return cs__lane_charged(s); }
uint64_t cs_sched_fair_median(const cs_sched_t *s)
{
    /* The network median W uses this block (smoothed when median_ema > 0). */
    return (uint64_t)(cs_fairness_median_fp(&s->fees->fair) / CS_PPM);
}
cs_u128 cs_sched_p50_tip(const cs_sched_t *s) { return s->fees->p50_tip; }
const cs_ledger_t *cs_sched_ledger(const cs_sched_t *s) { return &s->fees->ledger; }

uint64_t cs_sched_weight(const cs_sched_t *s, uint32_t actor)
{
    uint32_t ident = s->p.fairness_identity == CS_IDENTITY_DEPLOYER && actor < s->n_actors
                         ? s->actors[actor].deployer
                         : actor;
    return cs_fairness_weight(&s->fees->fair, ident);
}

uint32_t cs_sched_weights(const cs_sched_t *s, uint32_t *ident, uint64_t *recent, uint64_t *w_ppm,
                          uint32_t cap)
{
    uint32_t n = cs_fairness_snapshot(&s->fees->fair, ident, recent, w_ppm, cap);
    /* gba-tip orders by its own EMA weights (CIP-1 first draft §3
     * "Priority Weight"): report those, as the identity would carry them
     * in the next block's clearing (DESIGN-NOTES N95). */
    if (s->mech.ops == &cs__mech_gbatip)
        for (uint32_t k = 0; k < n; k++)
            w_ppm[k] = cs_mech_gba_weight_at(&s->mech, &s->p, ident[k], s->height + 1, w_ppm[k]);
    return n;
}

void cs_sched_counters(const cs_sched_t *s, uint64_t *clamped, uint64_t *rejected_below)
{
    *clamped = s->fees->clamped;
    *rejected_below = s->fees->rejected_below;
}

int cs_sched_check_invariants(const cs_sched_t *s, char *msg, size_t cap)
{
    /* DESIGN §2.6: conservation of value ... */
    int rc = cs_ledger_check(&s->fees->ledger, msg, cap);
    if (rc != CS_OK) return rc;
    /* ... and timer accounting: scheduled = fired + expired + insufficient
     * + cancelled + pending. */
    const cs__acct_t *a = &s->acct;
    uint64_t rhs = a->fired_final + a->expired + a->insufficient + a->cancelled + s->n_pending;
    if (a->scheduled != rhs) {
        snprintf(msg, cap,
                 "timer accounting: scheduled %llu != fired %llu + expired %llu + insufficient %llu + "
                 "cancelled %llu + pending %llu",
                 (unsigned long long)a->scheduled, (unsigned long long)a->fired_final,
                 (unsigned long long)a->expired, (unsigned long long)a->insufficient,
                 (unsigned long long)a->cancelled, (unsigned long long)s->n_pending);
        return CS_EINVARIANT;
    }
    if (msg && cap) msg[0] = '\0';
    return CS_OK;
}
