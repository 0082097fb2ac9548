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
 * ACTOR_QUOTA (`continue`).  0 = unlimited.
 *
 * Lane budget (DESIGN §2.4, DESIGN-NOTES N57): the CN draft has no cycles
 * budget, but a comparison is only like for like when every rule clears
 * within the same lane, so by default (score_budget = lane) a candidate
 * whose cycles exceed what is left of ctx->budget_cycles loses with BUDGET
 * and the scan continues (first fit, as fifo-capped and bias-*).
 * score_budget = none is the CN text (no budget).
 *
 * Payment: score_payment = bid -> a winner pays its bid; none -> 0.
 */
#include "cs_mech.h"
#include "cs_mech_int.h"

#define CS__SCORE_BID_CAP ((cs_i128)1 << 125)
#define CS__SCORE_OFFSET ((cs_u128)1 << 127)
_Static_assert(CS__KEY_DROP == 31, "cs__score_order reads the bit length at bit 25 of the key");

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

/* CIP-5 CN §9.1 score of one candidate (due height due, bid, fifo_rank
 * rank) at height h, as a signed value; the weights come as values (read
 * once per block).  bid_lim = CS__SCORE_BID_CAP / w_bid (w_bid != 0). */
static cs_i128 cs__score(uint64_t w_age, uint64_t w_bid, uint64_t w_fifo, uint64_t h, uint64_t due,
                         cs_u128 bid, uint64_t rank, cs_u128 bid_lim)
{
    uint64_t age = h > due ? h - due : 0;
    cs_i128 s_age = (cs_i128)((cs_u128)w_age * age);
    cs_i128 s_fifo = (cs_i128)((cs_u128)w_fifo * rank);
    cs_i128 s_bid;
    if (w_bid != 0 && bid > bid_lim) s_bid = CS__SCORE_BID_CAP;
    else s_bid = (cs_i128)(bid * w_bid);
    if (s_bid > CS__SCORE_BID_CAP) s_bid = CS__SCORE_BID_CAP;
    return s_age + s_bid - s_fifo;
}

/*
 * The CIP-5 CN §9.2 order in one radix sort.  Pass 1 sorts by (score desc,
 * due_height asc, target asc, timer_id asc): the radix key is
 * cs__u128_key(score - block minimum), which keeps the score's bit length
 * and the 25 bits below its leading one (3 radix passes).  When the scores
 * span less than 2^64, the tie word holds what the key drops: the score's
 * remaining L = len - 26 low bits (inverted: score is descending) at the
 * top, then as much as fits of a word packing due_height - dmin, the target
 * and the top of the timer id; so the comparator only sees candidates
 * equal in score and in all that.  The round-robin cursor is each
 * candidate's rank within its target in that order.  The full order
 * differs from pass 1 only inside runs of equal score, where the cursor
 * comes before the remaining keys: a stable sort of each such run by
 * cursor (pass 1 already holds them in (due_height, target, timer_id)
 * order) gives it, so no second full sort is needed.
 *
 * cs__score_order below is the general form, which reads the candidates
 * again; a block whose scores span few bits (the common case) takes
 * cs__score_order_exact instead, the same two steps on compact copies
 * with the exact score as the radix key.
 */
/* Low score bits the key of v leaves out (v < 2^64): cs__u128_key keeps
 * the bit length and the leading one with the 25 bits below it. */
static unsigned cs__score_lowbits(uint64_t v)
{
    unsigned len = v ? 64u - (unsigned)__builtin_clzll(v) : 0u;
    return len > 26 ? len - 26 : 0;
}

/* Order w->ord[lo..hi) (already in pass-1 order) into the full order:
 * split it into runs of equal score, each sorted stably by cursor (a
 * merge sort by the full comparator above 16).  With the tie word, equal
 * scores are equal keys with equal top L tie bits (see cs__score_order);
 * without it the scores are compared. */
static void cs__score_runs(cs__ws_t *w, const cs_cand_t *c, size_t lo, size_t hi, int use_tie,
                           const cs__score_ctx_t *x)
{
    uint32_t *ord = w->ord;
    for (size_t k = lo; k < hi;) {
        size_t e = k + 1;
        if (use_tie) {
            uint64_t k0 = w->key[ord[k]];
            unsigned len = (unsigned)(k0 >> 25); /* cs__u128_key: bit length above 25 bits */
            unsigned L = len > 26 ? len - 26 : 0;
            uint64_t tm = L ? ~(uint64_t)0 << (64 - L) : 0, t0 = w->tie[ord[k]] & tm;
            while (e < hi && w->key[ord[e]] == k0 && (w->tie[ord[e]] & tm) == t0) e++;
        } else {
            while (e < hi && c[ord[e]].priority == c[ord[k]].priority) e++;
        }
        if (e - k > 16) {
            cs__sort_range(w, c, k, e - k, cs__score_cmp, x);
        } else {
            for (size_t j = k + 1; j < e; j++) { /* stable insertion by cursor */
                uint32_t v = ord[j];
                size_t m = j;
                for (; m > k && w->aux[ord[m - 1]] > w->aux[v]; m--) ord[m] = ord[m - 1];
                ord[m] = v;
            }
        }
        k = e;
    }
}

static void cs__score_order(cs__ws_t *w, cs_cand_t *c, size_t n, cs_u128 pmin, cs_u128 pmax,
                            uint64_t dmin, uint64_t dmax, uint32_t tmax)
{
    int exact = pmax - pmin <= UINT64_MAX;
    unsigned dbits = dmax > dmin ? 64u - (unsigned)__builtin_clzll(dmax - dmin) : 0u;
    int use_tie = exact && dbits < 32;
    uint64_t kor = 0, kand = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        const cs_cand_t *t = &c[i];
        cs_u128 v = t->priority - pmin;
        uint64_t k = cs__u128_key(v);
        w->key[i] = k;
        kor |= k;
        kand &= k;
        if (use_tie) {
            uint64_t d = t->due_height - dmin;
            uint64_t dti = (dbits ? d << (64 - dbits) : 0) | ((uint64_t)t->target << (32 - dbits)) |
                           (cs__id_prefix(&t->id) >> (32 + dbits));
            unsigned L = cs__score_lowbits((uint64_t)v);
            w->tie[i] = L ? ((~(uint64_t)v << (64 - L)) | (dti >> L)) : dti;
        }
    }
    /* Pass 1: order without the cursor; cursor = rank within the target
     * (targets from the compact copy in cw: 4 bytes per random read). */
    cs__score_ctx_t x = {c, NULL};
    cs__sort_keyed_desc_id(w, c, n, cs__score_cmp, &x, use_tie, kor ^ kand);
    cs__tcount_reset_max(w, tmax, n);
    for (size_t k = 0; k < n; k++) {
        if (k + CS__PREFETCH < n) __builtin_prefetch(&w->cw[w->ord[k + CS__PREFETCH]]);
        uint32_t i = w->ord[k];
        uint32_t *cnt = cs__tcount(w, w->cw[i]);
        w->aux[i] = (*cnt)++;
    }
    /* The full CIP-5 CN §9.2 order: runs of equal score (within the runs
     * of equal radix key the sort reported) by cursor. */
    x.rr = w->aux;
    size_t neq = w->n_eq;
    if (neq == SIZE_MAX) {
        cs__score_runs(w, c, 0, n, use_tie, &x);
        return;
    }
    const uint32_t *eqpos = w->tmp;
    for (size_t a = 0; a < neq;) {
        size_t s = eqpos[a] - 1, e = (size_t)eqpos[a] + 1;
        for (a++; a < neq && eqpos[a] == e; a++) e++;
        cs__score_runs(w, c, s, e, use_tie, &x);
    }
}

/* Stable sort of the positions w->ord[s..e) by their cursors rp[s..e)
 * (ascending), moving rp along.  Short runs by insertion; longer ones as
 * the unique words cursor << 32 | offset, merge-sorted (key2 and key3 as
 * scratch), then gathered through a copy of the run in w->inv. */
static void cs__score_run_rr(cs__ws_t *w, uint32_t *rp, size_t s, size_t e)
{
    uint32_t *ord = w->ord;
    size_t m = e - s;
    if (m <= 32) {
        for (size_t j = s + 1; j < e; j++) {
            uint32_t v = ord[j], r = rp[j];
            size_t k = j;
            for (; k > s && rp[k - 1] > r; k--) {
                ord[k] = ord[k - 1];
                rp[k] = rp[k - 1];
            }
            ord[k] = v;
            rp[k] = r;
        }
        return;
    }
    uint64_t *a = w->key2 + s, *b = w->key3 + s;
    for (size_t j = 0; j < m; j++) a[j] = (uint64_t)rp[s + j] << 32 | j;
    for (size_t width = 1; width < m; width *= 2) { /* bottom-up merge sort */
        for (size_t lo = 0; lo < m; lo += 2 * width) {
            size_t mid = CS_MIN(lo + width, m), hi = CS_MIN(lo + 2 * width, m);
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) b[k++] = a[j] < a[i] ? a[j++] : a[i++];
            while (i < mid) b[k++] = a[i++];
            while (j < hi) b[k++] = a[j++];
        }
        uint64_t *t = a;
        a = b;
        b = t;
    }
    uint32_t *old = w->inv + s;
    memcpy(old, ord + s, m * sizeof *old);
    for (size_t j = 0; j < m; j++) {
        ord[s + j] = old[a[j] & 0xffffffffu];
        rp[s + j] = (uint32_t)(a[j] >> 32);
    }
}

/*
 * The CIP-5 CN §9.2 order when the scores span less than 2^hb with hb,
 * the index bits and 8 spare bits within 64, and n > 64 (the sort's runs
 * of equal keys are then known).  The caller left in w->key the low 64
 * bits of each priority, in w->tie the due height, in w->key4 the id
 * prefix and in w->cw the target.  The radix key is the exact score
 * minus the block's smallest, so runs of equal keys are runs of equal
 * score; the tie word packs due_height - dmin (dbits < 32 bits), the
 * target (its significant bits) and the top of the timer id (keys 4-6).  The round-robin cursors (key 3) are then
 * taken in that order, by position, and each run of equal score is sorted
 * stably by cursor, which gives the full order without reading c.
 */
static void cs__score_order_exact(cs__ws_t *w, const cs_cand_t *c, size_t n, uint64_t pmin,
                                  uint64_t dmin, unsigned dbits, uint32_t tmax)
{
    uint64_t kor = 0, kand = ~(uint64_t)0;
    const uint64_t *pre = w->key4;
    /* The target takes only its tbits significant bits, so that more of
     * the word's top (which rides along in the radix words) varies. */
    unsigned tbits = tmax ? 32u - (unsigned)__builtin_clz(tmax) : 0u, dt = dbits + tbits;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = w->key[i] - pmin, d = w->tie[i] - dmin;
        w->key[i] = k;
        kor |= k;
        kand &= k;
        w->tie[i] = (dbits ? d << (64 - dbits) : 0) | (tbits ? (uint64_t)w->cw[i] << (64 - dt) : 0) |
                    (pre[i] >> dt);
    }
    cs__score_ctx_t x = {c, NULL};
    cs__sort_keyed_desc_id(w, c, n, cs__score_cmp, &x, 1, kor ^ kand);
    /* Cursor = rank within the target, by position (tmp2: free after the
     * sort; tmp holds the positions of the runs). */
    uint32_t *rp = w->tmp2;
    cs__tcount_reset_max(w, tmax, n);
    for (size_t k = 0; k < n; k++) {
        if (k + CS__PREFETCH < n) __builtin_prefetch(&w->cw[w->ord[k + CS__PREFETCH]]);
        rp[k] = (*cs__tcount(w, w->cw[w->ord[k]]))++;
    }
    const uint32_t *eqpos = w->tmp;
    for (size_t a = 0, neq = w->n_eq; a < neq;) {
        size_t s = eqpos[a] - 1, e = (size_t)eqpos[a] + 1;
        for (a++; a < neq && eqpos[a] == e; a++) e++;
        size_t j = s + 1;
        while (j < e && rp[j - 1] <= rp[j]) j++;
        if (j < e) cs__score_run_rr(w, rp, s, e);
    }
}

/* Order, apply the quotas and the budget, and price: see the file comment.
 *
 * Without quotas (both 0) and without a budget (score_budget = none, the
 * CN text) every candidate wins, so the pass that reads the inputs also writes every
 * output but the rank, and the last pass over c writes the ranks only. */
static int cs__score_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                           cs_clear_out_t *out)
{
    cs__score_state_t *s = state;
    const cs_params_t *p = ctx->p;
    cs__ws_t *w = &s->ws;
    int rc = cs__ws_reserve(w, n);
    if (rc != CS_OK) return rc;
    cs_u128 pmin = CS_U128_MAX, pmax = 0;
    uint64_t dmin = UINT64_MAX, dmax = 0;
    uint32_t tmax = 0;
    cs_u128 bid_lim = p->w_bid != 0 ? (cs_u128)CS__SCORE_BID_CAP / p->w_bid : 0;
    uint64_t h = ctx->height, w_age = p->w_age, w_bid = p->w_bid, w_fifo = p->w_fifo;
    int pay_bid = p->score_payment == CS_SCORE_PAY_BID;
    int lane = p->score_budget == CS_SCORE_BUDGET_LANE;
    int all_win = p->max_fires_per_block == 0 && p->max_fires_per_actor == 0 && !lane;
    uint64_t used = 0; /* totals in locals: out may alias c as far as */
    cs_u128 paid = 0;  /* the compiler knows */
    /* The one read of the inputs: the score, and compact copies of what
     * the order reads (see cs__score_order_exact). */
    for (size_t i = 0; i < n; i++) {
        cs_cand_t *t = &c[i];
        cs__prefetch_cand(c, i, n);
        /* The inputs first, into locals (the output stores may alias). */
        uint64_t due = t->due_height, rank = t->fifo_rank, pre = cs__id_prefix(&t->id);
        uint64_t cyc = t->cycles;
        uint32_t tg = t->target;
        cs_u128 bid = t->bid;
        cs_u128 prio = (cs_u128)cs__score(w_age, w_bid, w_fifo, h, due, bid, rank, bid_lim) +
                       CS__SCORE_OFFSET;
        if (cs__prep(t) != CS_OK) return CS_EINVAL;
        t->priority = prio;
        if (all_win) {
            cs_u128 pay = pay_bid ? bid : 0;
            t->selected = 1;
            t->payment = pay;
            used += cyc;
            paid = cs__sat_add(paid, pay);
        }
        pmin = CS_MIN(pmin, prio);
        pmax = CS_MAX(pmax, prio);
        dmin = CS_MIN(dmin, due);
        dmax = CS_MAX(dmax, due);
        tmax = CS_MAX(tmax, tg);
        w->cw[i] = tg; /* compact target copy */
        w->key[i] = (uint64_t)prio;
        w->tie[i] = due;
        w->key4[i] = pre;
    }
    if (n > 0) {
        unsigned dbits = dmax > dmin ? 64u - (unsigned)__builtin_clzll(dmax - dmin) : 0u;
        cs_u128 span = pmax - pmin;
        unsigned hb = span ? 128u - (unsigned)(span >> 64 ? __builtin_clzll((uint64_t)(span >> 64))
                                                          : 64 + __builtin_clzll((uint64_t)span))
                           : 0u;
        unsigned ib = 64u - (unsigned)__builtin_clzll((uint64_t)n); /* > bits of n - 1 */
        if (n > 64 && dbits < 32 && hb + ib + 8 <= 64)
            cs__score_order_exact(w, c, n, (uint64_t)pmin, dmin, dbits, tmax);
        else
            cs__score_order(w, c, n, pmin, pmax, dmin, dmax, tmax);
    }
    for (size_t k = 0; k < n; k++) w->inv[w->ord[k]] = (uint32_t)k;
    if (all_win) {
        for (size_t i = 0; i < n; i++) {
            cs__prefetch_rank(c, i, n);
            c[i].rank = w->inv[i];
        }
        out->cycles_used = used;
        out->payments = paid;
        out->fired = (uint32_t)n;
        out->deferred = 0;
        return CS_OK;
    }

    /* CIP-5 CN §18 quota loop, with the lane budget (N57) after the quotas
     * as in bias-* and fifo-capped. */
    uint64_t fired = 0, left = lane ? ctx->budget_cycles : UINT64_MAX;
    int actor_q = p->max_fires_per_actor != 0;
    if (actor_q) cs__tcount_reset_max(w, tmax, n);
    for (size_t k = 0; k < n; k++) {
        if (p->max_fires_per_block != 0 && fired >= p->max_fires_per_block) {
            w->whyp[k] = CS_WHY_BLOCK_QUOTA;
            continue;
        }
        uint32_t *cnt = NULL;
        if (actor_q) {
            if (k + CS__PREFETCH < n) __builtin_prefetch(&w->cw[w->ord[k + CS__PREFETCH]]);
            cnt = cs__tcount(w, w->cw[w->ord[k]]);
            if (*cnt >= p->max_fires_per_actor) {
                w->whyp[k] = CS_WHY_ACTOR_QUOTA;
                continue;
            }
        }
        if (lane) {
            uint64_t cyc = c[w->ord[k]].cycles;
            if (cyc > left) {
                w->whyp[k] = CS_WHY_BUDGET;
                continue;
            }
            left -= cyc;
        }
        if (cnt) (*cnt)++;
        fired++;
        w->whyp[k] = CS_WHY_NONE;
    }
    /* cs__finish and the payments in one pass over c. */
    for (size_t i = 0; i < n; i++) {
        cs_cand_t *t = &c[i];
        cs__prefetch_cand(c, i, n);
        uint32_t k = w->inv[i];
        uint8_t why = w->whyp[k];
        t->rank = k;
        t->why = why;
        t->selected = why == CS_WHY_NONE;
        if (why != CS_WHY_NONE) continue;
        cs_u128 pay = pay_bid ? t->bid : 0;
        t->payment = pay;
        used += t->cycles;
        paid = cs__sat_add(paid, pay);
    }
    out->cycles_used = used;
    out->payments = paid;
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
    .version = 2,
    .state_size = sizeof(cs__score_state_t),
    .flags = CS_MF_BID | CS_MF_BUDGET,
    .init = NULL,
    .clear = cs__score_clear,
    .end_block = NULL,
    .fini = cs__score_fini,
};
