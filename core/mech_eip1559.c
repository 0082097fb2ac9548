/*
 * mech_eip1559.c -- `eip1559`: the CIP-1 revised timer lane (DESIGN §2.4,
 * §4 D1, D3, D5).
 *
 * CIP-1 rev §3 step 6:
 *   prio_rate          = min(max_priority_fee, max_fee - basefee_lane)
 *   effective_priority = prio_rate * W(actor)
 * W is cand.weight in ppm (0 means 1.0), so cand.priority = prio_rate * W
 * is in base units per cycle times 1e6 (saturating at 2^128 - 1).  A
 * candidate with max_fee < basefee_lane has no valid tip and loses with
 * BELOW_BASEFEE (scheduling-time validation normally stops it earlier,
 * CIP-1 rev §6, but the basefee may have risen since).
 *
 * CIP-1 rev §3 step 7: order by effective_priority descending, tie-break
 * (timer_id, schedule_block) ascending; greedily fill the lane budget
 * (ctx->budget_cycles = LANE_TIMER_CYCLES less anything already used).
 * In that order a candidate
 *   - with cycles above max_cycles_per_fire loses with OVER_CAP, "deferred
 *     without an attempt" (§3 step 7, §10): no budget is consumed;
 *   - whose fee payer balance is below its pre-charge
 *       cycles * (basefee_lane + prio_rate)            (replace, D3)
 *       cycles * (basefee_cycle + basefee_lane + prio_rate) (additional)
 *     loses with FUNDS (§3 step 8, "insufficient funds at any step"; the
 *     pipeline's lifecycle classification normally catches it first);
 *   - loses with BLOCK_QUOTA / ACTOR_QUOTA under max_fires_per_block /
 *     max_fires_per_actor (CIP-5 §9.4 caps; 0 = off, the default);
 *   - whose cycles exceed the remaining budget loses with BUDGET and the
 *     scan goes on (a later, smaller timer may still fit, §3 step 7 gates
 *     each timer individually);
 *   - otherwise is selected.
 * cand.prio_rate is the per-cycle tip charged to a winner (for a loser the
 * rate it would have paid, 0 below the basefee); cand.payment is
 * 0 (fees are per cycle; the pipeline settles them, §3 step 8).
 */
#include "cs_mech.h"
#include "cs_mech_int.h"

typedef struct cs__eip_state {
    cs__ws_t ws; /* order and per-target counters */
} cs__eip_state_t;

/* CIP-1 rev §3 step 7 order: priority desc, then (timer_id, sched_height). */
static int cs__eip_cmp(const cs_cand_t *a, const cs_cand_t *b, const void *ctx)
{
    (void)ctx;
    int r = cs__cmp_u128(b->priority, a->priority);
    if (r) return r;
    r = cs__id_cmp(&a->id, &b->id);
    if (r) return r;
    return cs__cmp_u64(a->sched_height, b->sched_height);
}

/* Order, select and price: see the file comment. */
static int cs__eip_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                         cs_clear_out_t *out)
{
    cs__eip_state_t *s = state;
    const cs_params_t *p = ctx->p;
    cs__ws_t *w = &s->ws;
    int rc = cs__ws_reserve(w, n);
    if (rc != CS_OK) return rc;
    cs_u128 bf = ctx->basefee_lane;
    /* D3: the lane basefee is charged on top of the CIP-3 cycle basefee. */
    cs_u128 base_rate = p->lane_basefee_mode == CS_LANE_ADDITIONAL
                            ? cs__sat_add(bf, ctx->basefee_cycle)
                            : bf;
    int exact = 1; /* every priority below 2^64: the radix key is exact */
    for (size_t i = 0; i < n; i++) {
        cs_cand_t *t = &c[i];
        if (cs__prep(t) != CS_OK) return CS_EINVAL;
        uint8_t why0 = CS_WHY_NONE;
        if (t->max_fee < bf) {
            why0 = CS_WHY_BELOW_BASEFEE;
        } else {
            /* CIP-1 rev §3 step 6. */
            cs_u128 room = t->max_fee - bf;
            t->prio_rate = t->max_prio < room ? t->max_prio : room;
            if (t->cycles > p->max_cycles_per_fire) { /* §3 step 7, §10 */
                why0 = CS_WHY_OVER_CAP;
            } else {
                /* §3 step 8 pre-charge. */
                cs_u128 cost = cs__sat_mul(t->cycles, cs__sat_add(base_rate, t->prio_rate));
                if (t->balance < cost) why0 = CS_WHY_FUNDS;
            }
        }
        uint64_t W = t->weight ? t->weight : CS_PPM;
        t->priority = cs__sat_mul(t->prio_rate, W);
        if (t->priority >> 64) exact = 0;
        w->tie[i] = cs__id_prefix(&t->id); /* next key: timer_id ascending */
        w->ord[i] = (uint32_t)i;
        w->rec[i].cycles = t->cycles;
        w->rec[i].target = t->target;
        w->rec[i].why0 = why0;
    }
    for (size_t i = 0; i < n; i++)
        w->key[i] = exact ? (uint64_t)c[i].priority : cs__u128_key(c[i].priority);
    cs__sort_keyed_desc(w, c, n, cs__eip_cmp, NULL, exact);

    cs__tcount_reset(w);
    uint64_t left = ctx->budget_cycles, fired = 0;
    int actor_q = p->max_fires_per_actor != 0;
    for (size_t k = 0; k < n; k++) {
        if (k + CS__PREFETCH < n) __builtin_prefetch(&w->rec[w->ord[k + CS__PREFETCH]]);
        const cs__crec_t *r = &w->rec[w->ord[k]];
        if (r->why0 != CS_WHY_NONE) {
            w->whyp[k] = r->why0;
            continue;
        }
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
static void cs__eip_fini(void *state)
{
    cs__eip_state_t *s = state;
    cs__ws_free(&s->ws);
}

const cs_mech_ops_t cs__mech_eip1559 = {
    .name = "eip1559",
    .version = 1,
    .state_size = sizeof(cs__eip_state_t),
    .flags = CS_MF_FEES | CS_MF_BUDGET,
    .init = NULL,
    .clear = cs__eip_clear,
    .end_block = NULL,
    .fini = cs__eip_fini,
};
