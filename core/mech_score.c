/*
 * mech_score.c -- `score`: the CIP-5 CN §9 score rule with its total order
 * and quotas (DESIGN §2.4, §4 D8).
 *
 * CIP-5 CN §9.1 (integers only, signed 128-bit):
 *   age_blocks = max(0, h - due_height)
 *   score      = w_age * age_blocks + w_bid * bid - w_fifo * fifo_rank
 * with the minus sign of D8 (an earlier fifo_rank ranks higher).  w_age *
 * age and w_fifo * fifo_rank are below 2^96; w_bid * bid saturates at 2^125,
 * so |score| < 2^126 never overflows.  cand.priority holds score + 2^127,
 * an order-preserving unsigned encoding (decode: (cs_i128)(priority - 2^127)).
 *
 * CIP-5 CN §9.2 total order, first key first:
 *   1. score descending;
 *   2. priority_bucket: one bucket for everyone (the spec leaves the
 *      derivation open and no parameter defines buckets);
 *   3. per-target round-robin cursor, ascending: the candidate's index among
 *      the candidates of its target, taken in the order of the remaining
 *      keys (score desc, due_height asc, timer_id asc).  So at equal score
 *      the 2nd timer of a target ranks after every target's 1st.  It is a
 *      pure function of the candidate set (no chain state);
 *   4. due_height ascending; 5. target ascending; 6. timer_id ascending.
 *
 * CIP-5 CN §9.3 / §18 quotas: scan in that order; once max_fires_per_block
 * winners exist every later candidate loses with BLOCK_QUOTA (the
 * pseudocode's `break`); a candidate whose target already has
 * max_fires_per_actor (MAX_FIRES_PER_TARGET) winners loses with
 * ACTOR_QUOTA (`continue`).  0 = unlimited.  The CN draft has no cycles
 * budget, so none is applied here.
 *
 * Payment: score_payment = bid -> a winner pays its bid; none -> 0.
 */
#include "cs_mech.h"
#include "cs_mech_int.h"

#define CS__SCORE_BID_CAP ((cs_i128)1 << 125)
#define CS__SCORE_OFFSET ((cs_u128)1 << 127)

typedef struct cs__score_state {
    cs__ws_t ws; /* order, round-robin cursors (aux), per-target counters */
} cs__score_state_t;

/* Comparator context: the candidate base and the cursors by index. */
typedef struct cs__score_ctx {
    const cs_cand_t *base; /* c[0] */
    const uint32_t *rr;    /* round-robin cursor per candidate index, or NULL */
} cs__score_ctx_t;

/* CIP-5 CN §9.2 order; the cursor key is skipped while rr is NULL (the
 * first pass that computes the cursors). */
static int cs__score_cmp(const cs_cand_t *a, const cs_cand_t *b, const void *vctx)
{
    const cs__score_ctx_t *x = vctx;
    int r = cs__cmp_u128(b->priority, a->priority); /* 1. score desc */
    if (r) return r;
    /* 2. priority_bucket: a single bucket. */
    if (x->rr != NULL) {
        r = cs__cmp_u64(x->rr[a - x->base], x->rr[b - x->base]); /* 3. cursor asc */
        if (r) return r;
    }
    r = cs__cmp_u64(a->due_height, b->due_height); /* 4 */
    if (r) return r;
    r = cs__cmp_u64(a->target, b->target); /* 5 */
    if (r) return r;
    return cs__id_cmp(&a->id, &b->id); /* 6 */
}

/* CIP-5 CN §9.1 score of one candidate at height h, as a signed value. */
static cs_i128 cs__score(const cs_params_t *p, uint64_t h, const cs_cand_t *t)
{
    uint64_t age = h > t->due_height ? h - t->due_height : 0;
    cs_i128 s_age = (cs_i128)((cs_u128)p->w_age * age);
    cs_i128 s_fifo = (cs_i128)((cs_u128)p->w_fifo * t->fifo_rank);
    cs_i128 s_bid;
    if (p->w_bid != 0 && t->bid > (cs_u128)CS__SCORE_BID_CAP / p->w_bid) s_bid = CS__SCORE_BID_CAP;
    else s_bid = (cs_i128)(t->bid * p->w_bid);
    if (s_bid > CS__SCORE_BID_CAP) s_bid = CS__SCORE_BID_CAP;
    return s_age + s_bid - s_fifo;
}

/* Order, apply the quotas and price: see the file comment. */
static int cs__score_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                           cs_clear_out_t *out)
{
    cs__score_state_t *s = state;
    const cs_params_t *p = ctx->p;
    cs__ws_t *w = &s->ws;
    int rc = cs__ws_reserve(w, n);
    if (rc != CS_OK) return rc;
    cs_u128 pmin = CS_U128_MAX;
    for (size_t i = 0; i < n; i++) {
        cs_cand_t *t = &c[i];
        if (cs__prep(t) != CS_OK) return CS_EINVAL;
        t->priority = (cs_u128)cs__score(p, ctx->height, t) + CS__SCORE_OFFSET;
        if (t->priority < pmin) pmin = t->priority;
        w->rec[i].target = t->target;
        w->ord[i] = (uint32_t)i;
    }
    /* Radix keys on the score above the block's minimum (monotone). */
    for (size_t i = 0; i < n; i++) w->key[i] = cs__u128_key(c[i].priority - pmin);
    /* Pass 1: order without the cursor; cursor = rank within the target. */
    cs__score_ctx_t x = {c, NULL};
    cs__sort_keyed_desc(w, c, n, cs__score_cmp, &x, 0);
    cs__tcount_reset(w);
    for (size_t k = 0; k < n; k++) {
        if (k + CS__PREFETCH < n) __builtin_prefetch(&w->rec[w->ord[k + CS__PREFETCH]]);
        uint32_t i = w->ord[k];
        uint32_t *cnt = cs__tcount(w, w->rec[i].target);
        w->aux[i] = (*cnt)++;
    }
    /* Pass 2: the full CIP-5 CN §9.2 order. */
    x.rr = w->aux;
    for (size_t i = 0; i < n; i++) w->ord[i] = (uint32_t)i;
    cs__sort_keyed_desc(w, c, n, cs__score_cmp, &x, 0);

    /* CIP-5 CN §18 quota loop. */
    cs__tcount_reset(w);
    uint64_t fired = 0;
    int actor_q = p->max_fires_per_actor != 0;
    for (size_t k = 0; k < n; k++) {
        if (p->max_fires_per_block != 0 && fired >= p->max_fires_per_block) {
            w->whyp[k] = CS_WHY_BLOCK_QUOTA;
            continue;
        }
        if (actor_q) {
            if (k + CS__PREFETCH < n) __builtin_prefetch(&w->rec[w->ord[k + CS__PREFETCH]]);
            uint32_t *cnt = cs__tcount(w, w->rec[w->ord[k]].target);
            if (*cnt >= p->max_fires_per_actor) {
                w->whyp[k] = CS_WHY_ACTOR_QUOTA;
                continue;
            }
            (*cnt)++;
        }
        fired++;
        w->whyp[k] = CS_WHY_NONE;
    }
    cs__finish(w, c, n);
    for (size_t i = 0; i < n; i++) {
        cs_cand_t *t = &c[i];
        if (!t->selected) continue;
        t->payment = p->score_payment == CS_SCORE_PAY_BID ? t->bid : 0;
        out->cycles_used += t->cycles;
        out->payments = cs__sat_add(out->payments, t->payment);
    }
    out->fired = (uint32_t)fired;
    out->deferred = (uint32_t)(n - fired);
    return CS_OK;
}

/* Release the workspace. */
static void cs__score_fini(void *state)
{
    cs__score_state_t *s = state;
    cs__ws_free(&s->ws);
}

const cs_mech_ops_t cs__mech_score = {
    .name = "score",
    .version = 1,
    .state_size = sizeof(cs__score_state_t),
    .flags = CS_MF_BID,
    .init = NULL,
    .clear = cs__score_clear,
    .end_block = NULL,
    .fini = cs__score_fini,
};
