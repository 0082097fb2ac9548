/*
 * mech_fifo.c -- `fifo` (CIP-5 §5, as implemented) and `fifo-capped`
 * (CIP-5 §9.4, §9.8 phase 1).  DESIGN §2.4.
 *
 * Both order the candidates by (due_height asc, fifo_rank asc, timer_id
 * asc): the oldest due height first and, within a height, insertion order
 * (CIP-5 §3.2 height index "maintained in insertion order", §5.1).
 * fifo_rank is unique, timer_id closes the order anyway (STYLE §6).
 * Neither charges anything at execution (CIP-5 §6.3).
 */
#include "cs_mech.h"
#include "cs_mech_int.h"

/* State of both FIFO mechanisms: only the reusable workspace. */
typedef struct cs__fifo_state {
    cs__ws_t ws; /* order and per-target counters */
} cs__fifo_state_t;

/* Total order of CIP-5 §5.1: (due_height, fifo_rank, timer_id) ascending. */
static int cs__fifo_cmp(const cs_cand_t *a, const cs_cand_t *b, const void *ctx)
{
    (void)ctx;
    int r = cs__cmp_u64(a->due_height, b->due_height);
    if (r) return r;
    r = cs__cmp_u64(a->fifo_rank, b->fifo_rank);
    if (r) return r;
    return cs__id_cmp(&a->id, &b->id);
}

/* Check and reset c[0..n), fill the compact records and sort into
 * s->ws.ord in FIFO order.  The radix key packs (due_height, fifo_rank)
 * relative to their minima when both fit in 64 bits, else due_height
 * alone; equal keys are ordered by cs__fifo_cmp. */
static int cs__fifo_order(cs__fifo_state_t *s, cs_cand_t *c, size_t n)
{
    cs__ws_t *w = &s->ws;
    int rc = cs__ws_reserve(w, n);
    if (rc != CS_OK) return rc;
    uint64_t dmin = UINT64_MAX, dmax = 0, rmin = UINT64_MAX, rmax = 0;
    for (size_t i = 0; i < n; i++) {
        cs_cand_t *t = &c[i];
        if (cs__prep(t) != CS_OK) return CS_EINVAL;
        w->rec[i].cycles = t->cycles;
        w->rec[i].target = t->target;
        w->key[i] = t->due_height;
        w->key3[i] = t->fifo_rank; /* scratch until the sort */
        w->ord[i] = (uint32_t)i;
        dmin = CS_MIN(dmin, t->due_height);
        dmax = CS_MAX(dmax, t->due_height);
        rmin = CS_MIN(rmin, t->fifo_rank);
        rmax = CS_MAX(rmax, t->fifo_rank);
    }
    if (n == 0) return CS_OK;
    unsigned rbits = rmax > rmin ? 64u - (unsigned)__builtin_clzll(rmax - rmin) : 0u;
    unsigned dbits = dmax > dmin ? 64u - (unsigned)__builtin_clzll(dmax - dmin) : 0u;
    int packed = rbits + dbits <= 64;
    for (size_t i = 0; i < n; i++) {
        uint64_t d = w->key[i] - dmin;
        uint64_t asc = packed ? (rbits == 64 ? 0 : d << rbits) | (w->key3[i] - rmin) : d;
        w->key[i] = ~asc; /* the sort is descending */
    }
    cs__sort_keyed_desc(w, c, n, cs__fifo_cmp, NULL, 0);
    return CS_OK;
}

/* `fifo`: CIP-5 §5.1 -- every due timer fires, in insertion order, with no
 * budget (the EOB cycle spike is recorded by the caller through
 * out->cycles_used) and no payment.  priority = 0. */
static int cs__fifo_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                          cs_clear_out_t *out)
{
    cs__fifo_state_t *s = state;
    (void)ctx;
    int rc = cs__fifo_order(s, c, n);
    if (rc != CS_OK) return rc;
    for (size_t k = 0; k < n; k++) {
        s->ws.whyp[k] = CS_WHY_NONE;
        out->cycles_used += s->ws.rec[k].cycles;
    }
    cs__finish(&s->ws, c, n);
    out->fired = (uint32_t)n;
    return CS_OK;
}

/*
 * `fifo-capped`: CIP-5 §9.8 phase 1 / §9.4 -- the FIFO order under
 * MAX_FIRES_PER_BLOCK, MAX_FIRES_PER_ACTOR (counted per target, CIP-5 CN
 * §9.3) and the lane budget ctx->budget_cycles (LANE_TIMER_CYCLES, filled
 * by the caller).  The scan follows the CIP-5 CN §18 pseudocode:
 *   - once max_fires_per_block winners exist, every later candidate loses
 *     with BLOCK_QUOTA (the pseudocode's `break`);
 *   - a candidate whose target already has max_fires_per_actor winners
 *     loses with ACTOR_QUOTA and the scan continues;
 *   - a candidate whose cycles exceed the remaining budget loses with
 *     BUDGET and the scan continues (first fit: a later, smaller timer may
 *     still fit; the spec does not say whether FIFO blocks at the head).
 * A limit of 0 means unlimited (cs_params.h).  No payment.
 */
static int cs__fifo_capped_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c,
                                 size_t n, cs_clear_out_t *out)
{
    cs__fifo_state_t *s = state;
    cs__ws_t *w = &s->ws;
    const cs_params_t *p = ctx->p;
    int rc = cs__fifo_order(s, c, n);
    if (rc != CS_OK) return rc;
    cs__tcount_reset(w);
    uint64_t left = ctx->budget_cycles;
    uint64_t fired = 0;
    int actor_q = p->max_fires_per_actor != 0;
    for (size_t k = 0; k < n; k++) {
        if (k + CS__PREFETCH < n) __builtin_prefetch(&w->rec[w->ord[k + CS__PREFETCH]]);
        const cs__crec_t *r = &w->rec[w->ord[k]];
        if (p->max_fires_per_block != 0 && fired >= p->max_fires_per_block) {
            w->whyp[k] = CS_WHY_BLOCK_QUOTA;
            continue;
        }
        uint32_t *cnt = actor_q ? cs__tcount(w, r->target) : NULL;
        if (actor_q && *cnt >= p->max_fires_per_actor) {
            w->whyp[k] = CS_WHY_ACTOR_QUOTA;
            continue;
        }
        if (r->cycles > left) {
            w->whyp[k] = CS_WHY_BUDGET;
            continue;
        }
        left -= r->cycles;
        if (actor_q) (*cnt)++;
        fired++;
        w->whyp[k] = CS_WHY_NONE;
        out->cycles_used += r->cycles;
    }
    cs__finish(w, c, n);
    out->fired = (uint32_t)fired;
    out->deferred = (uint32_t)(n - fired);
    return CS_OK;
}

/* Release the workspace. */
static void cs__fifo_fini(void *state)
{
    cs__fifo_state_t *s = state;
    cs__ws_free(&s->ws);
}

const cs_mech_ops_t cs__mech_fifo = {
    .name = "fifo",
    .version = 1,
    .state_size = sizeof(cs__fifo_state_t),
    .flags = 0,
    .init = NULL,
    .clear = cs__fifo_clear,
    .end_block = NULL,
    .fini = cs__fifo_fini,
};

const cs_mech_ops_t cs__mech_fifo_capped = {
    .name = "fifo-capped",
    .version = 1,
    .state_size = sizeof(cs__fifo_state_t),
    .flags = CS_MF_BUDGET,
    .init = NULL,
    .clear = cs__fifo_capped_clear,
    .end_block = NULL,
    .fini = cs__fifo_fini,
};
