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
 *     - with bid below reserve_price loses with RESERVE (§9.5: the reserve
 *       is a minimum bid floor; the same rule for every payment mode);
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
 *   Every mode writes the critical bid into cand.critical.
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
 * per target, walked from the winner's position.  Cost: O(n) plus
 * O(log n) per winner, after the radix sort (3 passes of 11 bits, plus an
 * exact sort of runs of equal keys).  Only with max_fires_per_actor set do
 * the chain walks add up to (winners of a target) x (saturated losers of
 * that target) steps per target; without it nothing is quadratic.
 *
 * Dynamic lambda (CIP-5 §9.3, DESIGN §2.4) in end_block, when
 * lambda_control = on: over each epoch (heights h with (h + 1) %
 * epoch_blocks == 0 close one) accumulate the winners' Bias and V; at the
 * close share = sum Bias / sum V (ppm) and
 *   lambda += lambda * lambda_gain * (lambda_target - share)   (ppm * ppm)
 * truncated toward zero, clamped to [lambda_min, lambda_max].  An epoch
 * without winners leaves lambda unchanged.  Only on-chain observables
 * (winners' bids and deferral counts) enter.
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
    cs_u128 *bias;        /* Bias(n) per candidate index */
    uint64_t *need;       /* need_j per position (excluded candidates) */
    uint32_t *stk;        /* monotonic stack of positions */
    uint32_t *chain;      /* next saturated excluded position of the same target */
    uint32_t *wins;       /* winners' positions, in order */
    size_t cap;           /* capacity of bias/need/stk/chain */
    uint64_t lambda;      /* current lambda, ppb */
    cs_u128 acc_bias;     /* epoch sum of winners' Bias */
    cs_u128 acc_total;    /* epoch sum of winners' V = bid + Bias */
    uint64_t updates;     /* lambda-loop updates done */
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
    free(s->bias);
    free(s->need);
    free(s->stk);
    free(s->chain);
    free(s->wins);
    s->wins = NULL;
    s->bias = NULL;
    s->need = NULL;
    s->stk = NULL;
    s->chain = NULL;
    s->cap = 0;
}

/* Grow the per-candidate arrays to n. */
static int cs__bias_reserve(cs__bias_state_t *s, size_t n)
{
    int rc = cs__ws_reserve(&s->ws, n);
    if (rc != CS_OK) return rc;
    if (n <= s->cap) return CS_OK;
    size_t cap = s->ws.cap;
    cs_u128 *b = realloc(s->bias, cap * sizeof *b);
    if (b == NULL) return CS_ENOMEM;
    s->bias = b;
    uint64_t *nd = realloc(s->need, cap * sizeof *nd);
    if (nd == NULL) return CS_ENOMEM;
    s->need = nd;
    uint32_t *st = realloc(s->stk, cap * sizeof *st);
    if (st == NULL) return CS_ENOMEM;
    s->stk = st;
    uint32_t *ch = realloc(s->chain, cap * sizeof *ch);
    if (ch == NULL) return CS_ENOMEM;
    s->chain = ch;
    uint32_t *wn = realloc(s->wins, cap * sizeof *wn);
    if (wn == NULL) return CS_ENOMEM;
    s->wins = wn;
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
    cs_u128 vmin;
    if (cs__id_cmp(&a->id, &b->id) < 0) {
        vmin = cs__muldiv(b->priority, a->cycles, b->cycles, 1);
    } else {
        vmin = cs__muldiv(b->priority, a->cycles, b->cycles, 0);
        vmin = vmin == CS_U128_MAX ? vmin : vmin + 1;
    }
    return vmin > bias_a ? vmin - bias_a : 0;
}

/* Critical bids of every winner (see the file comment).  Uses the flags
 * in ws.aux and needs in s->need, both by position; first_win is the
 * position of the first winner (nothing left of it matters). */
static void cs__bias_critical(cs__bias_state_t *s, cs_cand_t *c, size_t n, size_t first_win,
                              const cs_params_t *p)
{
    const uint32_t *ord = s->ws.ord;
    const uint32_t *flag = s->ws.aux;
    const cs__crec_t *rec = s->ws.rec;
    size_t top = 0;
    int quotas = p->max_fires_per_actor != 0;
    if (quotas) cs__tcount_reset(&s->ws); /* target -> nearest saturated position + 1 */
    for (size_t k = n; k-- > first_win;) {
        uint32_t f = flag[k];
        if (f == CS__POS_EXCLUDED) {
            uint64_t nd = s->need[k];
            while (top > 0 && s->need[s->stk[top - 1]] >= nd) top--;
            s->stk[top++] = (uint32_t)k;
        } else if (f == CS__POS_EXCLUDED_SAT) {
            uint32_t *head = cs__tcount(&s->ws, rec[ord[k]].target);
            s->chain[k] = *head; /* next saturated position + 1, or 0 */
            *head = (uint32_t)k + 1;
        } else if (f == CS__POS_WIN) {
            cs_cand_t *w = &c[ord[k]];
            uint64_t ci = w->cycles;
            size_t blocker = SIZE_MAX;
            /* Stack needs increase with the index; entries with need <= ci
             * form a prefix; the nearest is its last element. */
            size_t lo = 0, hi = top;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (s->need[s->stk[mid]] <= ci) lo = mid + 1;
                else hi = mid;
            }
            if (lo > 0) blocker = s->stk[lo - 1];
            if (quotas) {
                uint32_t *head = cs__tcount(&s->ws, w->target);
                for (uint32_t q = *head; q != 0 && (size_t)(q - 1) < blocker;
                     q = s->chain[q - 1]) {
                    if (s->need[q - 1] <= ci) {
                        blocker = q - 1;
                        break;
                    }
                }
            }
            cs_u128 theta = 0;
            if (blocker != SIZE_MAX) theta = cs__beat_bid(w, s->bias[ord[k]], &c[ord[blocker]]);
            w->critical = theta > p->reserve_price ? theta : p->reserve_price;
        }
    }
}

/* Order, select and price: see the file comment. */
static int cs__bias_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                          cs_clear_out_t *out)
{
    cs__bias_state_t *s = state;
    const cs_params_t *p = ctx->p;
    int rc = cs__bias_reserve(s, n);
    if (rc != CS_OK) return rc;
    if (p->lambda_control != CS_LAMBDA_ON) s->lambda = p->lambda;
    uint64_t lambda = s->lambda;
    cs__ws_t *w = &s->ws;

    /* CIP-5 §9.2: priority numerator V = bid + Bias(n); compact records. */
    for (size_t i = 0; i < n; i++) {
        cs_cand_t *t = &c[i];
        if (cs__prep(t) != CS_OK) return CS_EINVAL;
        cs_u128 b = cs__bias_of(s, t->deferrals, lambda, p->bias_scale);
        s->bias[i] = b;
        t->priority = cs__sat_add(t->bid, b);
        w->key[i] = cs__ratio_key(t->priority, t->cycles);
        w->ord[i] = (uint32_t)i;
        cs__crec_t *r = &w->rec[i];
        r->cycles = t->cycles;
        r->target = t->target;
        r->why0 = t->cycles > p->max_cycles_per_fire ? CS_WHY_OVER_CAP /* CIP-1 rev §10 */
                  : t->bid < p->reserve_price        ? CS_WHY_RESERVE  /* §9.5 floor */
                                                     : CS_WHY_NONE;
    }
    /* CIP-5 §9.5 step 1: sort by V / cycles descending. */
    cs__sort_keyed_desc(w, c, n, cs__bias_cmp, NULL, 0);

    /* CIP-5 §9.5 step 2, §9.4: greedy under the budget, caps and quotas. */
    cs__tcount_reset(w);
    uint64_t left = ctx->budget_cycles, fired = 0;
    size_t runner_up = SIZE_MAX, first_win = n;
    int actor_q = p->max_fires_per_actor != 0;
    for (size_t k = 0; k < n; k++) {
        if (k + CS__PREFETCH < n) __builtin_prefetch(&w->rec[w->ord[k + CS__PREFETCH]]);
        const cs__crec_t *r = &w->rec[w->ord[k]];
        if (r->why0 != CS_WHY_NONE) {
            w->whyp[k] = r->why0;
            w->aux[k] = CS__POS_INELIGIBLE;
            continue;
        }
        uint32_t *cnt = actor_q ? cs__tcount(w, r->target) : NULL;
        int sat = actor_q && *cnt >= p->max_fires_per_actor;
        uint8_t why = CS_WHY_NONE;
        if (p->max_fires_per_block != 0 && fired >= p->max_fires_per_block)
            why = CS_WHY_BLOCK_QUOTA;
        else if (sat)
            why = CS_WHY_ACTOR_QUOTA;
        else if (r->cycles > left)
            why = CS_WHY_BUDGET;
        w->whyp[k] = why;
        if (why != CS_WHY_NONE) {
            w->aux[k] = sat ? CS__POS_EXCLUDED_SAT : CS__POS_EXCLUDED;
            s->need[k] = r->cycles > left ? r->cycles - left : 0;
            if (runner_up == SIZE_MAX) runner_up = k;
            continue;
        }
        left -= r->cycles;
        if (actor_q) (*cnt)++;
        s->wins[fired++] = (uint32_t)k;
        if (first_win == n) first_win = k;
        w->aux[k] = CS__POS_WIN;
    }

    cs__bias_critical(s, c, n, first_win, p);

    /* CIP-5 §9.5 step 4 / fallback: payments. */
    const cs_cand_t *ru = runner_up == SIZE_MAX ? NULL : &c[w->ord[runner_up]];
    for (size_t j = 0; j < fired; j++) {
        uint32_t i = w->ord[s->wins[j]];
        cs_cand_t *t = &c[i];
        cs_u128 pay;
        if (s->fp) {
            pay = t->bid; /* first price: own bid (>= reserve) */
        } else if (p->vcg_payment == CS_VCG_CRITICAL) {
            pay = t->critical; /* D6 critical: max(reserve, theta) <= bid */
        } else {
            /* D6 spec: bid(runner_up) - Bias(winner), floored at the
             * reserve, never above the own bid. */
            pay = p->reserve_price;
            if (ru != NULL) {
                cs_u128 d = ru->bid > s->bias[i] ? ru->bid - s->bias[i] : 0;
                if (d > pay) pay = d;
            }
            if (pay > t->bid) pay = t->bid;
        }
        t->payment = pay;
        out->cycles_used += t->cycles;
        out->payments = cs__sat_add(out->payments, pay);
        out->bias_prio = cs__sat_add(out->bias_prio, s->bias[i]);
        out->total_prio = cs__sat_add(out->total_prio, t->priority);
    }
    cs__finish(w, c, n);
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
    if (p->lambda_control != CS_LAMBDA_ON) return;
    s->acc_bias = cs__sat_add(s->acc_bias, out->bias_prio);
    s->acc_total = cs__sat_add(s->acc_total, out->total_prio);
    if (p->epoch_blocks == 0 || (ctx->height + 1) % p->epoch_blocks != 0) return;
    cs_u128 ab = s->acc_bias, at = s->acc_total;
    s->acc_bias = 0;
    s->acc_total = 0;
    if (at == 0) return; /* no winner this epoch: nothing observed */
    while (at >> 100) { /* keep ab * 1e6 inside 128 bits */
        ab >>= 10;
        at >>= 10;
    }
    if (at == 0) return;
    int64_t share = (int64_t)(ab * CS_PPM / at);  /* ppm, 0..1e6 */
    int64_t err = (int64_t)p->lambda_target - share; /* ppm, -1e6..1e6 */
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

uint64_t cs_mech_lambda(const cs_mech_t *m)
{
    if (m == NULL || m->state == NULL ||
        (m->ops != &cs__mech_bias_vcg && m->ops != &cs__mech_bias_fp))
        return 0;
    return ((const cs__bias_state_t *)m->state)->lambda;
}
