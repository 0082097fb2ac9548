/*
 * mech_bias.c -- `bias-vcg` and `bias-fp`: the CIP-5 §9 timer auction
 * with exponential bias (DESIGN §2.4, §4 D5-D7).
 *
 * Allocation (both, CIP-5 §9.5 steps 1-2):
 *   V_i = bid_i + Bias(n_i),  Bias(n) = bias_scale * e^(n * lambda)  (§9.2, D7)
 *   order by V_i / cycles_i descending, compared exactly by cross
 *   multiplication, ties by timer_id ascending; then one greedy scan in
 *   that order.  A candidate
 *     - with cycles above max_cycles_per_fire loses with OVER_CAP (CIP-1
 *       rev §10; it is skipped, the scan goes on, nothing is consumed);
 *     - with reserve_mode = bid-gate only: with bid below reserve_price
 *       loses with RESERVE (§9.5 calls the reserve a "minimum bid floor";
 *       N16).  By default (payment-floor, D14) the reserve only floors the
 *       payment: a timer that Bias carries is never locked out (§9.7:
 *       bid-0 timers rely on Bias; §9.1: every timer fires within N_max);
 *     - once max_fires_per_block winners exist loses with BLOCK_QUOTA;
 *     - whose target has max_fires_per_actor winners loses with ACTOR_QUOTA;
 *     - whose cycles exceed the remaining budget (ctx->budget_cycles)
 *       loses with BUDGET, and the scan goes on (a smaller one may fit);
 *     - otherwise wins.
 *   OVER_CAP and RESERVE losers are ineligible: they are never the
 *   runner-up and never block anyone.  The quota and budget losers are
 *   the "excluded" timers of §9.5 step 3.
 *
 * Payments:
 *   bias-vcg, vcg_payment = spec (§9.5 step 4 as written, D6):
 *     runner-up = the first excluded (quota or budget) loser in priority
 *     order; pay = min(bid, max(reserve, bid(runner-up) - Bias(winner)))
 *     with the difference floored at 0; no runner-up -> reserve.
 *   bias-vcg, vcg_payment = critical (D6): pay = the critical bid.
 *   bias-fp (§9.5 fallback): pay = own bid.
 *   Every mode writes the critical bid into cand.critical, and no payment
 *   is ever above the own bid: under payment-floor a winner bidding below
 *   the reserve pays its bid (a bid-0 timer pays 0), D14.
 *
 * Critical bid (exact).  The allocation is monotone in a bidder's own bid:
 * raising b_i only moves i earlier, and the greedy state (budget used,
 * fires, fires of i's target) reached before i's new position is a prefix
 * of the one reached before its old position.  So i wins iff b_i >= theta_i
 * and the critical bid is max(reserve, theta_i).  Let R be this block's run
 * and p the position of winner i.  In the run without i (R_-i) every
 * candidate keeps its relative order; up to p it equals R, and after p it
 * makes R's decisions with a state relaxed by exactly i (c_i more budget,
 * one fire fewer, one fire fewer for target(i)) until the first candidate j
 * that R excluded but the relaxed state admits.  Admitting j leaves i no
 * room: if R excluded j for budget, c_j > left, so left + c_i - c_j < c_i;
 * for the block quota, fires are back at MAX; for the actor quota (only
 * relaxable when target(j) = target(i)), that target is back at MAX.
 * Before j, i fits at every position.  Hence i wins exactly when it
 * precedes j, the *blocker*, and theta_i is the least bid with
 * (b + Bias_i) / c_i ahead of V_j / c_j (with the timer_id tie-break), or 0
 * when no blocker exists.  The relaxed-admission test of an excluded j is
 *   need_j = max(0, c_j - left_R(j)) <= c_i   and
 *   (j's target is below the actor quota when j is examined, or
 *    target(j) = target(i)).
 * Finding every winner's blocker: scan positions right to left keeping a
 * monotonic stack of the unsaturated excluded candidates seen so far (from
 * the top down, positions grow and needs strictly fall: an entry with a
 * need >= that of a nearer one can never be the nearest with need <= c);
 * a winner's blocker is the nearest stack entry with need <= c_i, found by
 * binary search.  Candidates excluded while their target was at the actor
 * quota can only block winners of the same target; they sit on one chain
 * per target, walked from the winner's position.  Without the actor quota
 * (no saturated candidates) the stack is built segment by segment instead:
 * between two winners, pushing the excluded candidates one by one would
 * leave exactly the segment's "records" (the excluded positions whose need
 * is a strict running minimum from the left, which the greedy scan notes
 * as it goes) above the old entries with a smaller need; so the right-to-
 * left pass visits the winners only, and the payments are made in the
 * same pass.  Cost: O(n) plus O(log n) per winner, after the radix sort
 * (3 passes of 11 bits, plus an exact sort of runs of equal keys).  Only
 * with max_fires_per_actor set do the chain walks add up to (winners of a
 * target) x (saturated losers of that target) steps per target; without
 * it nothing is quadratic.
 *
 * Dynamic lambda (CIP-5 §9.3, DESIGN §2.4) in end_block, when
 * lambda_control = on: over each loop epoch (heights h with (h + 1) % E
 * == 0 close one, E = lambda_epoch, 0 = epoch_blocks; DESIGN-NOTES N63) accumulate the winners' Bias and V; at the
 * close share = sum Bias / sum V (ppm) and
 *   lambda += lambda * lambda_gain * (lambda_target - share)   (ppm * ppm)
 * truncated toward zero, clamped to [lambda_min, lambda_max].  An epoch
 * without winners leaves lambda unchanged.  Only on-chain observables
 * (winners' bids and deferral counts) enter.
 * With lambda_controller = invariant (DESIGN-NOTES N70) the loop targets
 * §9.3's invariant itself, Y * dn >= Bias(n + dn) - Bias(n), which only the
 * simulator can evaluate (Y is a bidder's true value decay): the engine
 * reports each block with a slack as violated or not
 * (cs_mech_lambda_observe, after the block's clearing, so an epoch closing
 * at h counts the reported blocks before h), and at the close
 *   v = violated blocks / reported blocks (ppm),
 *   lambda += lambda * lambda_gain * (lambda_violation_target - v)
 * with the same truncation and clamp; an epoch with no reported block
 * leaves lambda unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "cs_fixed.h"
#include "cs_mech.h"
#include "cs_mech_bias.h"
#include "cs_mech_int.h"

#define CS__BIAS_CACHE 4096u /* Bias(n) memo for n below this */

/* Position flags of the greedy scan (aux[] by position). */
enum {
    CS__POS_WIN = 0,       /* selected */
    CS__POS_INELIGIBLE,    /* over the per-fire cap or below reserve */
    CS__POS_EXCLUDED,      /* lost to budget / block quota, target below quota */
    CS__POS_EXCLUDED_SAT   /* lost while its target was at the actor quota */
};

typedef struct cs__bias_state {
    cs__ws_t ws;          /* order, scratch, per-target table */
    int fp;               /* 1 = bias-fp, 0 = bias-vcg */
    uint64_t *need;       /* need_j per position (quotas), or per record (none) */
    uint32_t *stk;        /* monotonic stack of positions */
    uint64_t *stkv;       /* need of each stack entry (stkv[t] = need[stk[t]]) */
    uint32_t *chain;      /* next saturated excluded position of the same target
                           * (quotas), or each record's position (none) */
    uint32_t *wins;       /* winners' positions, in order */
    uint32_t *segs;       /* records after winner j: [segs[j], segs[j + 1]) (no quota) */
    size_t cap;           /* capacity of need/stk/stkv/chain/wins (segs: + 1) */
    uint64_t lambda;      /* current lambda, ppb */
    cs_u128 acc_bias;     /* epoch sum of winners' Bias */
    cs_u128 acc_total;    /* epoch sum of winners' V = bid + Bias */
    uint64_t updates;     /* lambda-loop updates done */
    uint64_t inv_blocks;  /* epoch blocks with a §9.3 slack reported (N70) */
    uint64_t inv_viol;    /* ... of which the invariant was violated */
    uint64_t c_lambda;    /* lambda the memo was built for */
    cs_u128 c_scale;      /* bias_scale the memo was built for */
    uint32_t c_gen;       /* memo generation */
    uint32_t c_tag[CS__BIAS_CACHE];  /* generation that filled c_val[n] */
    cs_u128 c_val[CS__BIAS_CACHE];   /* memoised Bias(n) */
} cs__bias_state_t;

/* Clamp v into [lo, hi] (hi wins when the bounds cross). */
static uint64_t cs__clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    return v;
}

/* Shared init: lambda starts at p->lambda (clamped when the loop is on). */
static int cs__bias_init_common(cs__bias_state_t *s, const cs_params_t *p, int fp)
{
    s->fp = fp;
    s->lambda = p->lambda;
    if (p->lambda_control == CS_LAMBDA_ON)
        s->lambda = cs__clamp_u64(p->lambda, p->lambda_min, p->lambda_max);
    s->c_gen = 1;
    s->c_lambda = UINT64_MAX; /* force a memo rebuild on first use */
    return CS_OK;
}

static int cs__bias_vcg_init(void *state, const cs_params_t *p)
{
    return cs__bias_init_common(state, p, 0);
}

static int cs__bias_fp_init(void *state, const cs_params_t *p)
{
    return cs__bias_init_common(state, p, 1);
}

/* Release the workspace and the per-candidate arrays. */
static void cs__bias_fini(void *state)
{
    cs__bias_state_t *s = state;
    cs__ws_free(&s->ws);
    free(s->need);
    free(s->stk);
    free(s->stkv);
    free(s->chain);
    free(s->wins);
    free(s->segs);
    s->wins = NULL;
    s->segs = NULL;
    s->need = NULL;
    s->stk = NULL;
    s->stkv = NULL;
    s->chain = NULL;
    s->cap = 0;
}

/* Grow the per-candidate arrays to n. */
static int cs__bias_reserve(cs__bias_state_t *s, size_t n)
{
    int rc = cs__ws_reserve(&s->ws, n);
    if (rc != CS_OK) return rc;
    if (n <= s->cap && s->segs != NULL) return CS_OK; /* segs is written even for n = 0 */
    size_t cap = s->ws.cap;
    uint64_t *nd = realloc(s->need, cap * sizeof *nd);
    if (nd == NULL) return CS_ENOMEM;
    s->need = nd;
    uint32_t *st = realloc(s->stk, cap * sizeof *st);
    if (st == NULL) return CS_ENOMEM;
    s->stk = st;
    uint64_t *sv = realloc(s->stkv, cap * sizeof *sv);
    if (sv == NULL) return CS_ENOMEM;
    s->stkv = sv;
    uint32_t *ch = realloc(s->chain, cap * sizeof *ch);
    if (ch == NULL) return CS_ENOMEM;
    s->chain = ch;
    uint32_t *wn = realloc(s->wins, cap * sizeof *wn);
    if (wn == NULL) return CS_ENOMEM;
    s->wins = wn;
    uint32_t *sg = realloc(s->segs, (cap + 1) * sizeof *sg);
    if (sg == NULL) return CS_ENOMEM;
    s->segs = sg;
    s->cap = cap;
    return CS_OK;
}

/* Bias(n) for the lambda and scale in force, memoised for small n. */
static cs_u128 cs__bias_of(cs__bias_state_t *s, uint32_t n, uint64_t lambda, cs_u128 scale)
{
    if (n >= CS__BIAS_CACHE) return cs_fixed_bias(n, lambda, scale);
    if (lambda != s->c_lambda || scale != s->c_scale) {
        s->c_lambda = lambda;
        s->c_scale = scale;
        if (++s->c_gen == 0) {
            memset(s->c_tag, 0, sizeof s->c_tag);
            s->c_gen = 1;
        }
    }
    if (s->c_tag[n] != s->c_gen) {
        s->c_val[n] = cs_fixed_bias(n, lambda, scale);
        s->c_tag[n] = s->c_gen;
    }
    return s->c_val[n];
}

/* Bias(n) from the memo, which cs__bias_of(s, 0, lambda, scale) has made
 * current for this clearing's lambda and scale. */
static inline cs_u128 cs__bias_get(cs__bias_state_t *s, uint32_t n, uint64_t lambda,
                                   cs_u128 scale)
{
    if (n < CS__BIAS_CACHE && s->c_tag[n] == s->c_gen) return s->c_val[n];
    return cs__bias_of(s, n, lambda, scale);
}

/* CIP-5 §9.5 step 1: V_a / c_a descending, exact; then timer_id ascending. */
static int cs__bias_cmp(const cs_cand_t *a, const cs_cand_t *b, const void *ctx)
{
    (void)ctx;
    int r = cs__ratio_cmp(a->priority, a->cycles, b->priority, b->cycles);
    if (r) return -r;
    return cs__id_cmp(&a->id, &b->id);
}

/* floor or ceil of (v * m) / d as a u128, or CS_U128_MAX when the quotient
 * does not fit (v * m is formed exactly in 192 bits; d >= 1). */
static cs_u128 cs__muldiv(cs_u128 v, uint64_t m, uint64_t d, int ceil_)
{
    cs_u128 lo = (cs_u128)(uint64_t)v * m;
    cs_u128 hi = (cs_u128)(uint64_t)(v >> 64) * m;
    cs_u128 mid = (lo >> 64) + (cs_u128)(uint64_t)hi;
    uint64_t limb[3] = {(uint64_t)(hi >> 64) + (uint64_t)(mid >> 64), (uint64_t)mid,
                        (uint64_t)lo};
    uint64_t q[3];
    cs_u128 r = 0;
    for (int k = 0; k < 3; k++) {
        cs_u128 cur = (r << 64) | limb[k];
        q[k] = (uint64_t)(cur / d);
        r = cur % d;
    }
    if (q[0] != 0) return CS_U128_MAX;
    cs_u128 res = ((cs_u128)q[1] << 64) | q[2];
    if (ceil_ && r != 0) {
        if (res == CS_U128_MAX) return CS_U128_MAX;
        res++;
    }
    return res;
}

/* Least bid with which winner a is ordered before candidate b:
 * least V with V * c_b > V_b * c_a (>= when id_a < id_b), minus Bias_a,
 * floored at 0. */
static cs_u128 cs__beat_bid(const cs_cand_t *a, cs_u128 bias_a, const cs_cand_t *b)
{
    uint64_t pa = cs__id_prefix(&a->id), pb = cs__id_prefix(&b->id);
    int first = pa != pb ? pa < pb : cs__id_cmp(&a->id, &b->id) < 0; /* id_a < id_b */
    cs_u128 vmin;
    if ((b->priority >> 64) == 0) {
        /* V_b * c_a < 2^128: one division, 64-bit when the product fits;
         * the quotient is below 2^128 - 1, so + 1 cannot wrap. */
        cs_u128 prod = (cs_u128)(uint64_t)b->priority * a->cycles, q;
        int rem;
        if ((prod >> 64) == 0) {
            uint64_t p64 = (uint64_t)prod;
            q = p64 / b->cycles;
            rem = p64 % b->cycles != 0;
        } else {
            q = prod / b->cycles;
            rem = prod - q * b->cycles != 0;
        }
        vmin = first ? q + (cs_u128)rem : q + 1;
    } else if (first) {
        vmin = cs__muldiv(b->priority, a->cycles, b->cycles, 1);
    } else {
        vmin = cs__muldiv(b->priority, a->cycles, b->cycles, 0);
        vmin = vmin == CS_U128_MAX ? vmin : vmin + 1;
    }
    return vmin > bias_a ? vmin - bias_a : 0;
}

/* Number of entries of the increasing v[0..len) below x, or at most x
 * with le; a binary search whose steps are selections, not branches (the
 * stack is short and its comparisons unpredictable). */
static inline size_t cs__count_below(const uint64_t *v, size_t len, uint64_t x, int le)
{
    if (len == 0) return 0;
    size_t base = 0;
    while (len > 1) {
        size_t half = len / 2;
        uint64_t y = v[base + half];
        base = (le ? y <= x : y < x) ? base + half : base;
        len -= half;
    }
    return base + (le ? v[base] <= x : v[base] < x);
}

/* Critical bids of every winner (see the file comment).  Uses the flags
 * in ws.aux and needs in s->need, both by position; first_win is the
 * position of the first winner (nothing left of it matters).  Targets
 * (only read under the actor quota) come from ws.rec. */
static void cs__bias_critical(cs__bias_state_t *s, cs_cand_t *c, size_t n, size_t first_win,
                              size_t fired, const cs_params_t *p, uint64_t lambda)
{
    size_t wi = fired; /* winners right of k: s->wins[wi..fired) */
    const uint32_t *ord = s->ws.ord;
    const uint32_t *flag = s->ws.aux;
    const cs__crec_t *rec = s->ws.rec;
    const uint64_t *need = s->need;
    uint32_t *stk = s->stk;
    uint64_t *stkv = s->stkv;
    size_t top = 0;
    int quotas = p->max_fires_per_actor != 0;
    if (quotas) cs__tcount_reset(&s->ws); /* target -> nearest saturated position + 1 */
    for (size_t k = n; k-- > first_win;) {
        uint32_t f = flag[k];
        if (f == CS__POS_EXCLUDED) {
            uint64_t nd = need[k];
            top = cs__count_below(stkv, top, nd, 0); /* pop every need >= nd */
            stkv[top] = nd;
            stk[top++] = (uint32_t)k;
        } else if (f == CS__POS_EXCLUDED_SAT) {
            uint32_t *head = cs__tcount(&s->ws, rec[ord[k]].target);
            s->chain[k] = *head; /* next saturated position + 1, or 0 */
            *head = (uint32_t)k + 1;
        } else if (f == CS__POS_WIN) {
            /* The winners' records are scattered over c: fetch ahead. */
            wi--;
            if (wi >= CS__PREFETCH) __builtin_prefetch(&c[ord[s->wins[wi - CS__PREFETCH]]]);
            cs_cand_t *w = &c[ord[k]];
            uint64_t ci = w->cycles;
            size_t blocker = SIZE_MAX;
            /* Stack needs increase with the index; entries with need <= ci
             * form a prefix; the nearest is its last element. */
            size_t lo = cs__count_below(stkv, top, ci, 1);
            if (lo > 0) blocker = stk[lo - 1];
            if (quotas) {
                uint32_t *head = cs__tcount(&s->ws, w->target);
                for (uint32_t q = *head; q != 0 && (size_t)(q - 1) < blocker;
                     q = s->chain[q - 1]) {
                    if (need[q - 1] <= ci) {
                        blocker = q - 1;
                        break;
                    }
                }
            }
            cs_u128 theta = 0;
            if (blocker != SIZE_MAX) {
                cs_u128 bias = cs__bias_get(s, w->deferrals, lambda, p->bias_scale);
                theta = cs__beat_bid(w, bias, &c[ord[blocker]]);
            }
            w->critical = theta > p->reserve_price ? theta : p->reserve_price;
        }
    }
}

/* CIP-5 §9.5 step 4 / fallback: the payment of winner t (critical bid
 * already set), added to the clearing's totals.  ru is the runner-up (the
 * first excluded candidate) or NULL; bias is Bias(n) of t.  The totals are
 * saturating sums of non-negative terms, so the order of the winners does
 * not change them. */
static inline void cs__bias_pay(const cs__bias_state_t *s, cs_cand_t *t, cs_u128 bias,
                                const cs_cand_t *ru, const cs_params_t *p, cs_clear_out_t *out)
{
    cs_u128 pay;
    if (s->fp) {
        pay = t->bid; /* first price: own bid (>= reserve) */
    } else if (p->vcg_payment == CS_VCG_CRITICAL) {
        /* D6 critical: max(reserve, theta), never above the bid (D14:
         * under payment-floor the bid may be below the reserve). */
        pay = t->critical < t->bid ? t->critical : t->bid;
    } else {
        /* D6 spec: bid(runner_up) - Bias(winner), floored at the reserve,
         * never above the own bid. */
        pay = p->reserve_price;
        if (ru != NULL) {
            cs_u128 d = ru->bid > bias ? ru->bid - bias : 0;
            if (d > pay) pay = d;
        }
        if (pay > t->bid) pay = t->bid;
    }
    t->payment = pay;
    out->cycles_used += t->cycles;
    out->payments = cs__sat_add(out->payments, pay);
    out->bias_prio = cs__sat_add(out->bias_prio, bias);
    out->total_prio = cs__sat_add(out->total_prio, t->priority);
}

/* Critical bids of every winner without the actor quota (so no excluded
 * candidate is saturated): the same monotonic stack as cs__bias_critical,
 * built segment by segment.  The selection scan kept, between consecutive
 * winners, the excluded positions whose need is a strict running minimum
 * from the left (the "records", in s->chain / s->need, segment j after
 * winner j at [segs[j], segs[j + 1])).  Pushing a segment right to left
 * one candidate at a time would leave exactly its records on the stack,
 * above the old entries with a smaller need than its minimum; so each
 * segment costs its few records instead of one unpredictable pop loop per
 * excluded candidate. */
static void cs__bias_critical_fast(cs__bias_state_t *s, cs_cand_t *c, size_t fired,
                                   const cs_params_t *p, uint64_t lambda, const cs_cand_t *ru,
                                   cs_clear_out_t *out)
{
    const uint32_t *ord = s->ws.ord, *wins = s->wins, *segs = s->segs, *recp = s->chain;
    const uint64_t *recv = s->need;
    uint32_t *stk = s->stk;
    uint64_t *stkv = s->stkv;
    size_t top = 0;
    for (size_t j = fired < CS__PREFETCH ? fired : CS__PREFETCH; j-- > 0;)
        __builtin_prefetch(&c[ord[wins[fired - 1 - j]]]);
    for (size_t wi = fired; wi-- > 0;) {
        size_t r0 = segs[wi], r1 = segs[wi + 1];
        if (r1 > r0) {
            uint64_t m = recv[r1 - 1]; /* the segment's minimum need */
            while (top > 0 && stkv[top - 1] >= m) top--;
            for (size_t r = r1; r-- > r0;) {
                stkv[top] = recv[r];
                stk[top++] = recp[r];
            }
        }
        /* The winners' records are scattered over c: fetch ahead. */
        if (wi >= CS__PREFETCH) __builtin_prefetch(&c[ord[wins[wi - CS__PREFETCH]]]);
        cs_cand_t *w = &c[ord[wins[wi]]];
        size_t lo = cs__count_below(stkv, top, w->cycles, 1); /* need <= c_i */
        cs_u128 theta = 0, bias = cs__bias_get(s, w->deferrals, lambda, p->bias_scale);
        if (lo > 0) theta = cs__beat_bid(w, bias, &c[ord[stk[lo - 1]]]);
        w->critical = theta > p->reserve_price ? theta : p->reserve_price;
        cs__bias_pay(s, w, bias, ru, p, out); /* while its record is in cache */
    }
}

/* Order, select and price: see the file comment.
 *
 * One pass over c resets the outputs, computes V and the radix key and
 * the compact scan word (ws.cw, or ws.rec when the cap or the quotas need
 * the wide record); the scan records positions and outcomes by index so
 * the final pass over c is sequential.  Bias is not stored per candidate:
 * the memo gives it again for the winners. */
static int cs__bias_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                          cs_clear_out_t *out)
{
    cs__bias_state_t *s = state;
    const cs_params_t *p = ctx->p;
    int rc = cs__bias_reserve(s, n);
    if (rc != CS_OK) return rc;
    if (p->lambda_control != CS_LAMBDA_ON) s->lambda = p->lambda;
    uint64_t lambda = s->lambda;
    cs_u128 scale = p->bias_scale, reserve = p->reserve_price;
    int gate = p->reserve_mode == CS_RESERVE_BID_GATE;
    cs__ws_t *w = &s->ws;
    (void)cs__bias_of(s, 0, lambda, scale); /* make the memo current */
    uint64_t cap = p->max_cycles_per_fire;
    int actor_q = p->max_fires_per_actor != 0;
    int compact = cap <= CS__CW_MAX_CAP && !actor_q;
    uint64_t *key = w->key;
    uint32_t *ord = w->ord, *cw = w->cw; /* ord: written by the sort */
    cs__crec_t *rec = w->rec;

    /* CIP-5 §9.2: priority numerator V = bid + Bias(n); scan words. */
    uint64_t kor = 0, kand = ~(uint64_t)0; /* which key bits differ */
    for (size_t i = 0; i < n; i++) {
        cs_cand_t *t = &c[i];
        uint64_t cyc = t->cycles;
        if (cyc == 0) return CS_EINVAL;
        cs_u128 v = cs__sat_add(t->bid, cs__bias_get(s, t->deferrals, lambda, scale));
        t->selected = 0;
        t->why = CS_WHY_NONE;
        t->rank = 0;
        t->priority = v;
        t->prio_rate = 0;
        t->payment = 0;
        t->critical = 0;
        uint64_t k = cs__ratio_key_inl(v, cyc);
        key[i] = k;
        kor |= k;
        kand &= k;
        uint8_t why0 = cyc > cap                ? CS_WHY_OVER_CAP /* CIP-1 rev §10 */
                       : gate && t->bid < reserve ? CS_WHY_RESERVE  /* bid-gate reading of §9.5, D14 */
                                                 : CS_WHY_NONE;
        if (compact) {
            cw[i] = why0 != CS_WHY_NONE ? CS__CW_LOSER | why0 : (uint32_t)cyc;
        } else {
            rec[i].cycles = cyc;
            rec[i].target = t->target;
            rec[i].why0 = why0;
        }
    }
    /* CIP-5 §9.5 step 1: sort by V / cycles descending. */
    cs__sort_keyed_desc_id(w, c, n, cs__bias_cmp, NULL, 0, kor ^ kand);

    /* CIP-5 §9.5 step 2, §9.4: greedy under the budget, caps and quotas. */
    cs__tcount_reset(w);
    uint64_t left = ctx->budget_cycles, fired = 0, block_q = p->max_fires_per_block;
    size_t runner_up = SIZE_MAX, first_win = n;
    uint32_t *inv = w->inv, *flag = w->aux, *recp = s->chain;
    uint8_t *whyi = w->whyi;
    uint64_t segmin = UINT64_MAX; /* minimum need in the current segment */
    size_t nrec = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = ord[k];
        uint8_t why0;
        uint64_t cyc;
        cs__scan_read(compact, cw, rec, ord, k, n, &why0, &cyc);
        inv[i] = (uint32_t)k;
        if (why0 != CS_WHY_NONE) {
            whyi[i] = why0;
            if (actor_q) flag[k] = CS__POS_INELIGIBLE;
            continue;
        }
        uint32_t *cnt = actor_q ? cs__tcount(w, rec[i].target) : NULL;
        int sat = actor_q && *cnt >= p->max_fires_per_actor;
        uint8_t why = CS_WHY_NONE;
        if (block_q != 0 && fired >= block_q)
            why = CS_WHY_BLOCK_QUOTA;
        else if (sat)
            why = CS_WHY_ACTOR_QUOTA;
        else if (cyc > left)
            why = CS_WHY_BUDGET;
        whyi[i] = why;
        if (why != CS_WHY_NONE) {
            uint64_t nd = cyc > left ? cyc - left : 0;
            if (runner_up == SIZE_MAX) runner_up = k;
            if (actor_q) {
                flag[k] = sat ? CS__POS_EXCLUDED_SAT : CS__POS_EXCLUDED;
                s->need[k] = nd;
            } else if (nd < segmin) { /* a record of this segment */
                recp[nrec] = (uint32_t)k;
                s->need[nrec++] = nd;
                segmin = nd;
            }
            continue;
        }
        left -= cyc;
        if (actor_q) {
            (*cnt)++;
            flag[k] = CS__POS_WIN;
        }
        s->segs[fired] = (uint32_t)nrec; /* records after this winner start here */
        segmin = UINT64_MAX;
        s->wins[fired++] = (uint32_t)k;
        if (first_win == n) first_win = k;
    }
    s->segs[fired] = (uint32_t)nrec;

    /* CIP-5 §9.5 step 4 / fallback: payments (with the critical bids). */
    const cs_cand_t *ru = runner_up == SIZE_MAX ? NULL : &c[ord[runner_up]];
    if (actor_q) {
        for (size_t j = fired < CS__PREFETCH ? fired : CS__PREFETCH; j-- > 0;)
            __builtin_prefetch(&c[ord[s->wins[fired - 1 - j]]]);
        cs__bias_critical(s, c, n, first_win, fired, p, lambda);
        for (size_t j = 0; j < fired; j++) {
            cs_cand_t *t = &c[ord[s->wins[j]]];
            cs__bias_pay(s, t, cs__bias_get(s, t->deferrals, lambda, scale), ru, p, out);
        }
    } else {
        cs__bias_critical_fast(s, c, fired, p, lambda, ru, out);
    }
    cs__finish_idx(w, c, n);
    out->fired = (uint32_t)fired;
    out->deferred = (uint32_t)(n - fired);
    return CS_OK;
}

/* CIP-5 §9.3 dynamic lambda loop (see the file comment). */
static void cs__bias_end_block(void *state, const cs_clear_ctx_t *ctx, const cs_cand_t *c,
                               size_t n, const cs_clear_out_t *out)
{
    cs__bias_state_t *s = state;
    const cs_params_t *p = ctx->p;
    (void)c;
    (void)n;
    if (p->lambda_control != CS_LAMBDA_ON) {
        s->inv_blocks = s->inv_viol = 0; /* a loop turned on later starts afresh */
        return;
    }
    s->acc_bias = cs__sat_add(s->acc_bias, out->bias_prio);
    s->acc_total = cs__sat_add(s->acc_total, out->total_prio);
    /* The loop's epoch (lambda_epoch, 0 = the queue's epoch_blocks), N63. */
    uint64_t E = p->lambda_epoch ? p->lambda_epoch : p->epoch_blocks;
    if (E == 0 || (ctx->height + 1) % E != 0) return;
    cs_u128 ab = s->acc_bias, at = s->acc_total;
    uint64_t ib = s->inv_blocks, iv = s->inv_viol;
    s->acc_bias = 0;
    s->acc_total = 0;
    s->inv_blocks = 0;
    s->inv_viol = 0;
    int64_t err; /* target - observed, ppm, -1e6..1e6 */
    if (p->lambda_controller == CS_LAMBDA_CTL_INVARIANT) {
        /* N70: the share of the epoch's reported blocks violating §9.3. */
        if (ib == 0) return; /* no block with a slack: nothing observed */
        int64_t viol = (int64_t)((cs_u128)iv * CS_PPM / ib);
        err = (int64_t)p->lambda_violation_target - viol;
    } else {
        if (at == 0) return; /* no winner this epoch: nothing observed */
        while (at >> 100) { /* keep ab * 1e6 inside 128 bits */
            ab >>= 10;
            at >>= 10;
        }
        if (at == 0) return;
        int64_t share = (int64_t)(ab * CS_PPM / at); /* ppm, 0..1e6 */
        err = (int64_t)p->lambda_target - share;
    }
    /* lambda <= 1e10, gain <= 1e6, |err| <= 1e6: |product| < 2^74. */
    cs_i128 delta = (cs_i128)s->lambda * (cs_i128)p->lambda_gain * err / (cs_i128)1000000000000ll;
    cs_i128 nl = (cs_i128)s->lambda + delta;
    if (nl < 0) nl = 0;
    uint64_t v = nl > (cs_i128)UINT64_MAX ? UINT64_MAX : (uint64_t)nl;
    s->lambda = cs__clamp_u64(v, p->lambda_min, p->lambda_max);
    s->updates++;
}

const cs_mech_ops_t cs__mech_bias_vcg = {
    .name = "bias-vcg",
    .version = 1,
    .state_size = sizeof(cs__bias_state_t),
    .flags = CS_MF_BID | CS_MF_BUDGET,
    .init = cs__bias_vcg_init,
    .clear = cs__bias_clear,
    .end_block = cs__bias_end_block,
    .fini = cs__bias_fini,
};

const cs_mech_ops_t cs__mech_bias_fp = {
    .name = "bias-fp",
    .version = 1,
    .state_size = sizeof(cs__bias_state_t),
    .flags = CS_MF_BID | CS_MF_BUDGET,
    .init = cs__bias_fp_init,
    .clear = cs__bias_clear,
    .end_block = cs__bias_end_block,
    .fini = cs__bias_fini,
};

void cs_mech_lambda_observe(cs_mech_t *m, int violated)
{
    if (m == NULL || m->state == NULL || (m->ops != &cs__mech_bias_vcg && m->ops != &cs__mech_bias_fp)) return;
    cs__bias_state_t *s = m->state;
    s->inv_blocks++;
    s->inv_viol += violated != 0;
}

uint64_t cs_mech_lambda(const cs_mech_t *m)
{
    if (m == NULL || m->state == NULL ||
        (m->ops != &cs__mech_bias_vcg && m->ops != &cs__mech_bias_fp))
        return 0;
    return ((const cs__bias_state_t *)m->state)->lambda;
}
