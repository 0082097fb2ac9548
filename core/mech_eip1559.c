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

/* Order, select and price: see the file comment.
 *
 * One pass over c computes every candidate's outputs and its radix key
 * (the priority itself while every priority is below 2^64, so equal keys
 * mean equal priorities and the runs are ordered by the timer-id prefix
 * in w->tie without reading the candidates again); the selection scan
 * records each candidate's position and outcome by index, so the final
 * pass over c is sequential. */
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
    uint64_t cap = p->max_cycles_per_fire;
    uint64_t block_q = p->max_fires_per_block, actor_q = p->max_fires_per_actor;
    int compact = cap <= CS__CW_MAX_CAP && actor_q == 0;
    uint32_t *cw = w->cw;
    uint64_t *key = w->key, *tie = w->tie;
    uint32_t *ord = w->ord; /* written by the sort */
    cs__crec_t *rec = w->rec;
    uint64_t wide = 0; /* nonzero when a priority reaches 2^64 */
    uint64_t kor = 0, kand = ~(uint64_t)0; /* which key bits differ */
    for (size_t i = 0; i < n; i++) {
        cs_cand_t *t = &c[i];
        uint64_t cyc = t->cycles;
        if (cyc == 0) return CS_EINVAL;
        uint8_t why0 = CS_WHY_NONE;
        cs_u128 rate = 0, prio = 0;
        if (t->max_fee < bf) {
            why0 = CS_WHY_BELOW_BASEFEE;
        } else {
            /* CIP-1 rev §3 step 6. */
            cs_u128 room = t->max_fee - bf;
            rate = t->max_prio < room ? t->max_prio : room;
            if (cyc > cap) { /* §3 step 7, §10 */
                why0 = CS_WHY_OVER_CAP;
            } else {
                /* §3 step 8 pre-charge. */
                cs_u128 cost = cs__sat_mul64(cyc, cs__sat_add(base_rate, rate));
                if (t->balance < cost) why0 = CS_WHY_FUNDS;
            }
            prio = cs__sat_mul64(t->weight ? t->weight : CS_PPM, rate);
        }
        t->selected = 0;
        t->why = CS_WHY_NONE;
        t->rank = 0;
        t->priority = prio;
        t->prio_rate = rate;
        t->payment = 0;
        t->critical = 0;
        wide |= (uint64_t)(prio >> 64);
        key[i] = (uint64_t)prio;
        kor |= (uint64_t)prio;
        kand &= (uint64_t)prio;
        tie[i] = cs__id_prefix(&t->id); /* next key: timer_id ascending */
        if (compact) {
            cw[i] = why0 != CS_WHY_NONE ? CS__CW_LOSER | why0 : (uint32_t)cyc;
        } else {
            rec[i].cycles = cyc;
            rec[i].target = t->target;
            rec[i].why0 = why0;
        }
    }
    int exact = wide == 0; /* every priority below 2^64: the radix key is exact */
    if (!exact) {
        kor = 0;
        kand = ~(uint64_t)0;
        for (size_t i = 0; i < n; i++) {
            key[i] = cs__u128_key(c[i].priority);
            kor |= key[i];
            kand &= key[i];
        }
    }
    cs__sort_keyed_desc_id(w, c, n, cs__eip_cmp, NULL, exact, kor ^ kand);

    cs__tcount_reset(w);
    uint64_t left = ctx->budget_cycles, fired = 0, used = 0;
    uint32_t *inv = w->inv;
    uint8_t *whyi = w->whyi;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = ord[k];
        uint8_t why;
        uint64_t cyc;
        cs__scan_read(compact, cw, rec, ord, k, n, &why, &cyc);
        inv[i] = (uint32_t)k;
        if (why == CS_WHY_NONE) {
            uint32_t *cnt = NULL;
            if (block_q != 0 && fired >= block_q) {
                why = CS_WHY_BLOCK_QUOTA;
            } else if (actor_q != 0 && *(cnt = cs__tcount(w, rec[i].target)) >= actor_q) {
                why = CS_WHY_ACTOR_QUOTA;
            } else if (cyc > left) {
                why = CS_WHY_BUDGET;
            } else {
                left -= cyc;
                used += cyc;
                if (cnt != NULL) (*cnt)++;
                fired++;
            }
        }
        whyi[i] = why;
    }
    cs__finish_idx(w, c, n);
    out->cycles_used = used;
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
