/*
 * mech_gbatip.c -- `gba-tip`: the CIP-1 first-draft scheduler (GBA bids
 * at fire time, effective-tip order, per-actor EMA weights; DESIGN §2.4,
 * §4 D1, D10).
 *
 * Clearing (CIP-1 first draft §3 "Deliver Timers" / "Execute Prioritized
 * Timers"):
 *   tip = min(max_priority_fee, max_fee - basefee_lane); max_fee below the
 *   lane basefee -> loses with BELOW_BASEFEE (deferred; its GBA may bid
 *   more next block).  cand.priority = cand.prio_rate = tip.  Under
 *   gba_tip_lane = none (the default, the draft; DESIGN-NOTES N65) the
 *   caller passes the CIP-3 cycle basefee as basefee_lane and nothing is
 *   charged on top of it.
 *   Order: tip desc, then the actor's EMA weight desc (§3 "Priority Weight"
 *   d(i): weights break ties among equal effective tips), then timer_id asc.
 *   Scan in that order:
 *     - balance below use_cycles * (basefee_lane + tip) (+ basefee_cycle
 *       when lane_basefee_mode = additional, D3) + use_cells *
 *       basefee_cell -> FUNDS: the timer is deferred, not destroyed (§4.1,
 *       D10; flag CS_MF_DEFER_FUNDS).  use_* are what the fire will use
 *       (gba_tip_charge = draft) or its limits (cip1-rev), as the charge
 *       prices it (cs_fees.c, DESIGN-NOTES N60);
 *     - max_fires_per_block / max_fires_per_actor -> BLOCK_QUOTA /
 *       ACTOR_QUOTA (CIP-5 §9.4 caps; 0 = off, the default);
 *     - the budget (TIMER_PROCESSING_BUDGET_CYCLES = ctx->budget_cycles) ->
 *       BUDGET, or SLICE (below);
 *     - otherwise selected, paying tip per cycle (cand.payment = 0).
 *   The first draft has no per-fire cap, so max_cycles_per_fire is not
 *   applied here (D5's schedule-time rejection still applies upstream).
 *
 * Budget slices (§3 "Priority Weight" d(ii)), when actor_budget_slice =
 * sigma > 0: with A the set of weight identities (cand.ident) having a
 * candidate this block and W_A the sum of their weights, identity a gets a
 * reserved slice floor(B * sigma * w_a / W_A) (B = budget, sigma in ppm);
 * the remainder of B is shared.  A winner's cycles come out of its slice
 * first, then the shared part; a candidate that does not fit its slice
 * plus the shared part loses with SLICE when the block's total remaining
 * budget would have held it, else with BUDGET.  Unused slices are not
 * redistributed within the block (that reservation is the smoothing).
 *
 * EMA weights (§3 "Priority Weight" a-c, e), recomputed at the end of
 * each weight epoch (gba_weight_epoch blocks, 0 = epoch_blocks: "recompute
 * on epoch rollover", applied "in the next epoch"; DESIGN-NOTES N61) for
 * every identity with a candidate in the epoch, over the epoch's blocks
 * (d = its candidates, f = its winners):
 *   T = its mean tip / the epoch's mean tip, clipped to [0, 2] (1 when
 *       the epoch's mean tip is 0)                      -- effective tip
 *   Q = (d - f) / d                                    -- success / defer
 *   L = min(1, mean(h - due_height) / starvation_blocks), 0 if that is 0
 *                                                      -- lateness
 *   U = min(1, its winners' cycles / the sum of B over the blocks it had
 *       candidates in), 0 if that is 0                  -- budget share
 *   S = clip(T/2 + 1/2 + Q/2 + L/2 - U, 0, 2)
 * so an actor tipping the block's mean and firing everything cheaply
 * scores 1; paying more, being deferred or being late raises S, and
 * consuming the budget lowers it.  Then
 *   w' = clamp((1 - ema_lambda) w + ema_lambda S, weight_min, weight_max)
 * with w the weight it carried in its last block of the epoch, and, when
 * starvation_blocks > 0 and one of its losers was deferred
 * starvation_blocks times or more (deferrals + 1) in the epoch, the
 * starvation floor w' = max(w', weight_max) applies.  Decay on
 * inactivity: each weight epoch an identity has no candidate moves its
 * weight toward the neutral clamp(1, weight_min, weight_max) by the factor
 * (1 - ema_lambda), applied lazily when the identity next appears (after
 * 64 idle epochs it is reset to neutral).  An identity not yet recomputed
 * carries cand.weight (0 = 1.0) clamped to [weight_min, weight_max].  All
 * ppm integers; gba_weight_epoch = 1 recomputes after every block (the
 * one-block lag cowsim used before N61).
 *
 * Recorded weights: clear writes each candidate's weight as used into
 * cand.weight, so /fires.weight_ppm of a gba-tip run is this EMA weight,
 * and the engine's /weights samples ask cs_mech_gba_weight_at (DESIGN-NOTES
 * N95): the CIP-1 rev §8 W(actor), which this rule does not use, is only its
 * starting weight.
 */
#include <stdlib.h>
#include <string.h>

#include "cs_mech.h"
#include "cs_mech_bias.h"
#include "cs_mech_int.h"

/* One identity's persistent weight and what its candidates did in the
 * weight epoch under way (the accumulators, zero outside it). */
typedef struct cs__gba_actor {
    uint32_t ident;   /* fairness identity */
    uint32_t used;    /* 1 when the slot is occupied */
    uint64_t weight;  /* EMA weight, ppm (valid once upd) */
    uint64_t last_e;  /* last weight epoch in which it had a candidate */
    uint8_t upd;      /* its weight has been recomputed at least once */
    uint8_t starved;  /* acc: a loser reached starvation_blocks deferrals */
    uint32_t d, f;    /* acc: candidates, winners */
    uint64_t base;    /* acc: the weight it carried in its last block */
    cs_u128 tip;      /* acc: sum of its tips */
    cs_u128 late;     /* acc: sum of h - due_height */
    cs_u128 cyc;      /* acc: its winners' cycles */
    cs_u128 bud;      /* acc: the budgets of the blocks it had candidates in */
} cs__gba_actor_t;

/* Per-block aggregate of one identity. */
typedef struct cs__gba_local {
    uint32_t ident;   /* fairness identity */
    uint32_t d;       /* candidates */
    uint32_t f;       /* winners */
    uint8_t starved;  /* a loser reached starvation_blocks deferrals */
    uint64_t weight;  /* weight used this block, ppm */
    uint64_t slice;   /* slice cycles left (clearing) */
    uint64_t cyc;     /* winners' cycles */
    cs_u128 tip;      /* sum of tips */
    cs_u128 late;     /* sum of h - due_height */
} cs__gba_local_t;

typedef struct cs__gba_state {
    cs__ws_t ws;            /* order, per-candidate weight (aux), identity map */
    cs__gba_actor_t *tab;   /* persistent identity table (open addressing) */
    size_t tcap;            /* slots, power of two */
    size_t tcount;          /* occupied slots */
    cs__gba_local_t *loc;   /* per-block identity aggregates */
    size_t lcap;            /* capacity of loc */
    uint32_t *touch;        /* identities with accumulators this weight epoch */
    size_t ntouch, touch_cap;
    uint64_t ep;            /* the weight epoch the accumulators belong to */
    cs_u128 tip_all;        /* acc: every candidate's tip this weight epoch */
    uint64_t n_all;         /* acc: candidates this weight epoch */
} cs__gba_state_t;

/* Blocks of a weight epoch: gba_weight_epoch, 0 = the queue's epoch. */
static uint64_t cs__gba_epoch(const cs_params_t *p)
{
    uint64_t e = p->gba_weight_epoch ? p->gba_weight_epoch : p->epoch_blocks;
    return e ? e : 1;
}

/* Comparator context: candidate base and weights by index. */
typedef struct cs__gba_ctx {
    const cs_cand_t *base; /* c[0] */
    const uint32_t *w;     /* weight per candidate index, ppm */
} cs__gba_ctx_t;

static uint64_t cs__clamp_w(uint64_t v, const cs_params_t *p)
{
    if (v < p->weight_min) v = p->weight_min;
    if (v > p->weight_max) v = p->weight_max;
    return v;
}

/* Slot of ident in the persistent table, or NULL. */
static cs__gba_actor_t *cs__gba_find(const cs__gba_state_t *s, uint32_t ident)
{
    if (s->tcap == 0) return NULL;
    size_t m = s->tcap - 1, i = (size_t)(ident * 2654435761u) & m;
    while (s->tab[i].used) {
        if (s->tab[i].ident == ident) return &s->tab[i];
        i = (i + 1) & m;
    }
    return NULL;
}

/* Insert (or find) ident; grows the table at half load.  NULL on ENOMEM. */
static cs__gba_actor_t *cs__gba_insert(cs__gba_state_t *s, uint32_t ident)
{
    cs__gba_actor_t *a = cs__gba_find(s, ident);
    if (a != NULL) return a;
    if (2 * (s->tcount + 1) > s->tcap) {
        size_t ncap = s->tcap ? 2 * s->tcap : 64;
        cs__gba_actor_t *nt = calloc(ncap, sizeof *nt);
        if (nt == NULL) return NULL;
        for (size_t k = 0; k < s->tcap; k++) {
            if (!s->tab[k].used) continue;
            size_t i = (size_t)(s->tab[k].ident * 2654435761u) & (ncap - 1);
            while (nt[i].used) i = (i + 1) & (ncap - 1);
            nt[i] = s->tab[k];
        }
        free(s->tab);
        s->tab = nt;
        s->tcap = ncap;
    }
    size_t m = s->tcap - 1, i = (size_t)(ident * 2654435761u) & m;
    while (s->tab[i].used) i = (i + 1) & m;
    s->tab[i].used = 1;
    s->tab[i].ident = ident;
    s->tcount++;
    return &s->tab[i];
}

/* The weight identity t carries at height h: the stored weight decayed
 * toward neutral over its idle blocks, or the initial weight. */
static uint64_t cs__gba_weight(const cs__gba_state_t *s, const cs_params_t *p, uint64_t h,
                               const cs_cand_t *t)
{
    const cs__gba_actor_t *a = cs__gba_find(s, t->ident);
    if (a == NULL || !a->upd) return cs__clamp_w(t->weight ? t->weight : CS_PPM, p);
    uint64_t neutral = cs__clamp_w(CS_PPM, p);
    uint64_t e = h / cs__gba_epoch(p); /* idle weight epochs */
    uint64_t idle = e > a->last_e + 1 ? e - a->last_e - 1 : 0;
    if (idle > 64) return neutral;
    /* |dev| <= max(weight, neutral) <= 10^8 (the weight clamps' bound) and
     * the factor <= 10^6, so the product fits 64 bits and the 64-bit
     * signed division truncates toward zero exactly as the 128-bit one
     * did (no library divide, __divti3, per identity and block). */
    int64_t dev = (int64_t)a->weight - (int64_t)neutral;
    const int64_t keep = (int64_t)(CS_PPM - p->ema_lambda);
    for (uint64_t k = 0; k < idle && dev != 0; k++) dev = dev * keep / (int64_t)CS_PPM;
    return cs__clamp_w((uint64_t)((int64_t)neutral + dev), p);
}

/* Tip order: tip desc, weight desc, timer_id asc. */
static int cs__gba_cmp(const cs_cand_t *a, const cs_cand_t *b, const void *vctx)
{
    const cs__gba_ctx_t *x = vctx;
    int r = cs__cmp_u128(b->priority, a->priority);
    if (r) return r;
    r = cs__cmp_u64(x->w[b - x->base], x->w[a - x->base]);
    if (r) return r;
    return cs__id_cmp(&a->id, &b->id);
}

/* Make room for n per-block identity aggregates. */
static int cs__gba_reserve(cs__gba_state_t *s, size_t n)
{
    int rc = cs__ws_reserve(&s->ws, n);
    if (rc != CS_OK) return rc;
    if (n <= s->lcap) return CS_OK;
    cs__gba_local_t *l = realloc(s->loc, s->ws.cap * sizeof *l);
    if (l == NULL) return CS_ENOMEM;
    s->loc = l;
    s->lcap = s->ws.cap;
    return CS_OK;
}

/* Group c[0..n) by identity into s->loc (ws map: ident -> index + 1; every
 * ident <= imax); the identities are ids[i] when ids is not NULL (a
 * compact copy, so only an identity's first candidate is read from c),
 * else c[i].ident; writes each candidate's group index to grp[i] when grp
 * is not NULL (grp may be ids); returns the number of identities. */
static size_t cs__gba_group(cs__gba_state_t *s, const cs_params_t *p, uint64_t h,
                            const cs_cand_t *c, size_t n, uint32_t imax, const uint32_t *ids,
                            uint32_t *grp)
{
    size_t na = 0;
    cs__tcount_reset_max(&s->ws, imax, n);
    for (size_t i = 0; i < n; i++) {
        uint32_t *slot = cs__tcount(&s->ws, ids != NULL ? ids[i] : c[i].ident);
        if (*slot == 0) {
            cs__gba_local_t *l = &s->loc[na];
            memset(l, 0, sizeof *l);
            l->ident = c[i].ident;
            l->weight = cs__gba_weight(s, p, h, &c[i]);
            *slot = (uint32_t)++na;
        }
        if (grp != NULL) grp[i] = *slot - 1;
    }
    return na;
}

/* num / den in ppm clipped to [0, cap_ppm]. */
static uint64_t cs__ratio_ppm(cs_u128 num, cs_u128 den, uint64_t cap_ppm)
{
    if (den == 0) return cap_ppm;
    while (num >> 100 || den >> 100) {
        num >>= 8;
        den >>= 8;
    }
    if (den == 0) return cap_ppm;
    cs_u128 r = cs__div_u128(num * CS_PPM, den);
    return r > cap_ppm ? cap_ppm : (uint64_t)r;
}

/* The end of weight epoch s->ep (CIP-1 first draft §3 step 5 a-c, e):
 * every identity that had a candidate in it gets its score S over the
 * epoch and its EMA step; the accumulators are cleared. */
static void cs__gba_roll(cs__gba_state_t *s, const cs_params_t *p)
{
    cs_u128 mean_all = s->n_all ? cs__div_u128(s->tip_all, s->n_all) : 0;
    for (size_t k = 0; k < s->ntouch; k++) {
        cs__gba_actor_t *a = cs__gba_find(s, s->touch[k]);
        if (a == NULL || a->d == 0) continue;
        uint64_t T = mean_all == 0 ? CS_PPM : cs__ratio_ppm(cs__div_u128(a->tip, a->d), mean_all, 2 * CS_PPM);
        uint64_t Q = (uint64_t)(a->d - a->f) * CS_PPM / a->d;
        uint64_t L = 0;
        if (p->starvation_blocks != 0) L = cs__ratio_ppm(cs__div_u128(a->late, a->d), p->starvation_blocks, CS_PPM);
        uint64_t U = a->bud == 0 ? 0 : cs__ratio_ppm(a->cyc, a->bud, CS_PPM);
        int64_t S = (int64_t)(T / 2 + CS_PPM / 2 + Q / 2 + L / 2) - (int64_t)U;
        if (S < 0) S = 0;
        if (S > (int64_t)(2 * CS_PPM)) S = (int64_t)(2 * CS_PPM);
        cs_u128 nw = cs__div_u128((cs_u128)(CS_PPM - p->ema_lambda) * a->base + (cs_u128)p->ema_lambda * (uint64_t)S,
                                  CS_PPM);
        uint64_t wv = cs__clamp_w((uint64_t)nw, p);
        if (a->starved && wv < p->weight_max) wv = p->weight_max;
        a->weight = wv;
        a->upd = 1;
        a->last_e = s->ep;
        a->d = a->f = 0;
        a->starved = 0;
        a->tip = a->late = a->cyc = a->bud = 0;
    }
    s->ntouch = 0;
    s->tip_all = 0;
    s->n_all = 0;
}

/* Close the weight epoch under way if height h lies past it (an epoch
 * whose last block cleared nothing, or was paused). */
static void cs__gba_roll_upto(cs__gba_state_t *s, const cs_params_t *p, uint64_t h)
{
    if (s->ntouch != 0 && s->ep < h / cs__gba_epoch(p)) cs__gba_roll(s, p);
}

/* Order, select and price: see the file comment. */
static int cs__gba_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                         cs_clear_out_t *out)
{
    cs__gba_state_t *s = state;
    const cs_params_t *p = ctx->p;
    cs__ws_t *w = &s->ws;
    int rc = cs__gba_reserve(s, n);
    if (rc != CS_OK) return rc;
    cs__gba_roll_upto(s, p, ctx->height);
    cs_u128 bf = ctx->basefee_lane;
    /* D3: the lane basefee is charged on top of the CIP-3 cycle basefee. */
    /* N65: under gba_tip_lane = none bf is the cycle basefee itself. */
    cs_u128 base_rate = p->lane_basefee_mode == CS_LANE_ADDITIONAL && p->gba_tip_lane == CS_GBA_LANE_REV
                            ? cs__sat_add(bf, ctx->basefee_cycle)
                            : bf;
    /* The one pass over c: outputs reset, effective tip and known outcome
     * (CIP-1 first draft §3 "Deliver Timers"), the radix key, and compact
     * copies of what the later steps read (identity in aux, id prefix in
     * key4, free until the sort), so c is read once more only to write
     * the outcomes. */
    uint32_t imax = 0, tmax = 0;
    int exact = 1;   /* every tip below 2^64: the radix key is exact */
    int compact = 1; /* every candidate's cycles fit the compact word */
    uint64_t kor = 0, kand = ~(uint64_t)0;
    uint64_t *pre = w->key4;
    for (size_t i = 0; i < n; i++) {
        cs_cand_t *t = &c[i];
        cs__prefetch_cand(c, i, n);
        if (cs__prep(t) != CS_OK) return CS_EINVAL;
        imax = CS_MAX(imax, t->ident);
        tmax = CS_MAX(tmax, t->target);
        uint8_t why0 = CS_WHY_NONE;
        if (t->max_fee < bf) {
            why0 = CS_WHY_BELOW_BASEFEE;
        } else {
            cs_u128 room = t->max_fee - bf;
            t->prio_rate = t->max_prio < room ? t->max_prio : room;
            /* One funds rule with the charge (N60): the GBA's price per
             * cycle for the cycles it prices, plus its cells at the cell
             * basefee -- what the fire uses under gba_tip_charge = draft,
             * its limits (max_cost) under cip1-rev. */
            uint64_t uc = t->use_cycles ? t->use_cycles : t->cycles;
            cs_u128 cost = cs__sat_add(cs__sat_mul64(uc, cs__sat_add(base_rate, t->prio_rate)),
                                       cs__sat_mul64(t->use_cells, ctx->basefee_cell));
            if (t->balance < cost) why0 = CS_WHY_FUNDS; /* §4.1, D10: defer */
        }
        t->priority = t->prio_rate;
        if (t->priority >> 64) exact = 0;
        uint64_t k = (uint64_t)t->priority; /* the key while exact */
        w->key[i] = k;
        kor |= k;
        kand &= k;
        pre[i] = cs__id_prefix(&t->id);
        w->aux[i] = t->ident;
        w->rec[i].cycles = t->cycles;
        w->rec[i].target = t->target;
        w->rec[i].why0 = why0;
        if (t->cycles > CS__CW_MAX_CAP) compact = 0;
        w->cw[i] = why0 != CS_WHY_NONE ? CS__CW_LOSER | why0 : (uint32_t)t->cycles;
    }
    /* §3 "Priority Weight" d(i): each identity's weight; aux becomes the
     * group index, then the weight. */
    size_t na = cs__gba_group(s, p, ctx->height, c, n, imax, w->aux, w->aux);
    /* The weights of the groups, copied to tmp2 (4 bytes each, free until
     * the sort). */
    uint32_t wlo = UINT32_MAX, whi = 0, *gw = w->tmp2;
    for (size_t a = 0; a < na; a++) {
        gw[a] = (uint32_t)s->loc[a].weight;
        wlo = CS_MIN(wlo, gw[a]);
        whi = CS_MAX(whi, gw[a]);
    }
    unsigned wbits = whi > wlo ? 32u - (unsigned)__builtin_clz(whi - wlo) : 0u;
    /* The next keys after the tip: weight desc, then timer_id asc.  When
     * the bits in which the tips differ (hb) and the weight's offset above
     * the block's smallest fit the radix words with room for 8 bits of
     * the id prefix to ride along, both go into the key, (tip's low hb
     * bits) << wbits | (weight - wlo), and the tie word is the id prefix:
     * runs of equal keys are then equal in tip and weight, and the prefix
     * nearly always orders them.  Otherwise the tie word carries the
     * weight's offset below the largest in its top wbits bits, the id
     * prefix below, so it orders equal tips as cs__gba_cmp does. */
    uint64_t tdiff = kor ^ kand;
    unsigned hb = tdiff ? 64u - (unsigned)__builtin_clzll(tdiff) : 0u;
    unsigned ib = n > 1 ? 64u - (unsigned)__builtin_clzll((uint64_t)(n - 1)) : 0u;
    int wkey = exact && hb + wbits + ib + 8 <= 64;
    uint64_t tm = hb == 64 ? ~(uint64_t)0 : ((uint64_t)1 << hb) - 1;
    if (wkey) {
        kor = 0;
        kand = ~(uint64_t)0;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t g = w->aux[i], wt = gw[g];
        w->aux[i] = wt;
        c[i].weight = wt; /* the weight this rule used: the fire row's weight_ppm */
        w->rec[i].grp = g;
        if (wkey) {
            uint64_t k = ((w->key[i] & tm) << wbits) | (wt - wlo);
            w->key[i] = k;
            kor |= k;
            kand &= k;
            w->tie[i] = pre[i];
        } else {
            w->tie[i] = (wbits ? (uint64_t)(whi - wt) << (64 - wbits) : 0) | (pre[i] >> wbits);
        }
    }
    /* Slices (§3 d(ii)). */
    uint64_t B = ctx->budget_cycles, shared = B, total = B;
    int slices = p->actor_budget_slice != 0;
    if (slices) {
        cs_u128 wsum = 0;
        for (size_t a = 0; a < na; a++) wsum += s->loc[a].weight;
        for (size_t a = 0; a < na; a++) {
            cs_u128 sl = wsum == 0 ? 0
                                   : cs__div_u128((cs_u128)B * p->actor_budget_slice * s->loc[a].weight,
                                                  (cs_u128)CS_PPM * wsum);
            s->loc[a].slice = (uint64_t)sl;
            shared -= (uint64_t)sl;
        }
    }
    if (!exact) { /* a tip of 2^64 or more: monotone keys instead */
        kor = 0;
        kand = ~(uint64_t)0;
        for (size_t i = 0; i < n; i++) {
            uint64_t k = cs__u128_key(c[i].priority);
            w->key[i] = k;
            kor |= k;
            kand &= k;
        }
    }
    cs__gba_ctx_t x = {c, w->aux};
    cs__sort_keyed_desc_id(w, c, n, cs__gba_cmp, &x, exact, kor ^ kand);

    /* The identity map is no longer needed: reuse it for the per-target
     * quota counters. */
    cs__tcount_reset_max(w, tmax, n);
    uint64_t fired = 0, used = 0;
    int actor_q = p->max_fires_per_actor != 0;
    /* Without slices or quotas the scan needs only each candidate's known
     * outcome and cycles: the 4-byte compact words when they fit. */
    compact = compact && !slices && !actor_q;
    for (size_t k = 0; k < n; k++) {
        uint8_t why0;
        uint64_t cyc;
        cs__scan_read(compact, w->cw, w->rec, w->ord, k, n, &why0, &cyc);
        if (why0 != CS_WHY_NONE) {
            w->whyp[k] = why0;
            continue;
        }
        if (p->max_fires_per_block != 0 && fired >= p->max_fires_per_block) {
            w->whyp[k] = CS_WHY_BLOCK_QUOTA;
            continue;
        }
        const cs__crec_t *r = compact ? NULL : &w->rec[w->ord[k]];
        uint32_t *cnt = actor_q ? cs__tcount(w, r->target) : NULL;
        if (actor_q && *cnt >= p->max_fires_per_actor) {
            w->whyp[k] = CS_WHY_ACTOR_QUOTA;
            continue;
        }
        if (slices) {
            cs__gba_local_t *l = &s->loc[r->grp];
            if (cyc > l->slice + shared) {
                w->whyp[k] = cyc <= total ? CS_WHY_SLICE : CS_WHY_BUDGET;
                continue;
            }
            uint64_t from_slice = cyc < l->slice ? cyc : l->slice;
            l->slice -= from_slice;
            shared -= cyc - from_slice;
        } else if (cyc > shared) {
            w->whyp[k] = CS_WHY_BUDGET;
            continue;
        } else {
            shared -= cyc;
        }
        total -= cyc;
        if (actor_q) (*cnt)++;
        fired++;
        w->whyp[k] = CS_WHY_NONE;
        used += cyc;
    }
    cs__finish(w, c, n);
    out->cycles_used = used; /* summed in a local: out may alias whyp */
    out->fired = (uint32_t)fired;
    out->deferred = (uint32_t)(n - fired);
    return CS_OK;
}

/* EMA weights (see the file comment): the block's candidates join the
 * weight epoch's accumulators; the epoch's last block recomputes. */
static void cs__gba_end_block(void *state, const cs_clear_ctx_t *ctx, const cs_cand_t *c,
                              size_t n, const cs_clear_out_t *out)
{
    cs__gba_state_t *s = state;
    const cs_params_t *p = ctx->p;
    uint64_t h = ctx->height, E = cs__gba_epoch(p);
    (void)out;
    cs__gba_roll_upto(s, p, h);
    if (n != 0 && cs__gba_reserve(s, n) == CS_OK) {
        uint32_t imax = 0;
        for (size_t i = 0; i < n; i++) imax = CS_MAX(imax, c[i].ident);
        size_t na = cs__gba_group(s, p, h, c, n, imax, NULL, NULL);
        for (size_t i = 0; i < n; i++) {
            const cs_cand_t *t = &c[i];
            cs__gba_local_t *l = &s->loc[*cs__tcount(&s->ws, t->ident) - 1];
            cs_u128 tip = t->why == CS_WHY_BELOW_BASEFEE ? 0 : t->prio_rate;
            l->d++;
            l->tip = cs__sat_add(l->tip, tip);
            s->tip_all = cs__sat_add(s->tip_all, tip);
            l->late += h > t->due_height ? h - t->due_height : 0;
            if (t->selected) {
                l->f++;
                l->cyc += t->cycles;
            } else if (p->starvation_blocks != 0 &&
                       (uint64_t)t->deferrals + 1 >= p->starvation_blocks) {
                l->starved = 1;
            }
        }
        s->n_all += n;
        s->ep = h / E;
        for (size_t k = 0; k < na; k++) {
            const cs__gba_local_t *l = &s->loc[k];
            if (s->ntouch == s->touch_cap) {
                size_t nc = s->touch_cap ? 2 * s->touch_cap : 64;
                uint32_t *nt = realloc(s->touch, nc * sizeof *nt);
                if (nt == NULL) continue; /* out of memory: this block leaves it out */
                s->touch = nt;
                s->touch_cap = nc;
            }
            cs__gba_actor_t *a = cs__gba_insert(s, l->ident);
            if (a == NULL) continue; /* out of memory: keep the old weight */
            if (a->d == 0) s->touch[s->ntouch++] = l->ident;
            a->d += l->d;
            a->f += l->f;
            a->tip = cs__sat_add(a->tip, l->tip);
            a->late += l->late;
            a->cyc += l->cyc;
            a->bud += ctx->budget_cycles;
            a->base = l->weight;
            a->starved |= l->starved;
        }
    }
    /* §3 step 5e: recompute on epoch rollover (every block when E = 1). */
    if ((h + 1) % E == 0) cs__gba_roll(s, p);
}

/* Release the workspace and tables. */
static void cs__gba_fini(void *state)
{
    cs__gba_state_t *s = state;
    cs__ws_free(&s->ws);
    free(s->tab);
    free(s->loc);
    free(s->touch);
    s->tab = NULL;
    s->loc = NULL;
    s->touch = NULL;
    s->tcap = s->tcount = s->lcap = s->ntouch = s->touch_cap = 0;
}

const cs_mech_ops_t cs__mech_gbatip = {
    .name = "gba-tip",
    .version = 1,
    .state_size = sizeof(cs__gba_state_t),
    .flags = CS_MF_FEES | CS_MF_BUDGET | CS_MF_DEFER_FUNDS,
    .init = NULL,
    .clear = cs__gba_clear,
    .end_block = cs__gba_end_block,
    .fini = cs__gba_fini,
};

uint64_t cs_mech_gba_weight_at(const cs_mech_t *m, const cs_params_t *p, uint32_t ident, uint64_t height,
                               uint64_t w_in)
{
    if (m == NULL || m->state == NULL || m->ops != &cs__mech_gbatip) return 0;
    cs_cand_t t;
    memset(&t, 0, sizeof t);
    t.ident = ident;
    t.weight = w_in;
    return cs__gba_weight(m->state, p, height, &t);
}

uint64_t cs_mech_gba_weight(const cs_mech_t *m, uint32_t ident, uint64_t height)
{
    if (m == NULL || m->state == NULL || m->ops != &cs__mech_gbatip) return 0;
    const cs__gba_state_t *s = m->state;
    const cs__gba_actor_t *a = cs__gba_find(s, ident);
    if (a == NULL || !a->upd) return 0;
    /* Report the stored weight as of its last update (no decay applied). */
    (void)height;
    return a->weight;
}
