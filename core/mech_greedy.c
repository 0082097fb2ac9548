/*
 * mech_greedy.c -- `greedy`: the per-block greedy reference allocator
 * (DESIGN §6 "an oracle allocator (ranks by true value density, same
 * budget)"; named `oracle` before DESIGN-NOTES N42).  It is a reference,
 * not an optimum: `efficiency` divides by the welfare optimum
 * (analysis/cs_optimum.c, N31), `efficiency_greedy` by this run's welfare.
 *
 * It is not a payment rule: the simulator passes each timer's true value at
 * zero delay as its bid (never escrowed, never charged), and the greedy
 * takes timers by value per cycle, descending, greedily under the same lane
 * budget, per-fire cap and quotas (max_fires_per_block, max_fires_per_actor
 * per target, CIP-5 §9.4) as the auctions, so that every mechanism of a
 * comparison faces one capacity and one benchmark (DESIGN-NOTES N57).
 * Ties go to the smaller timer id.
 */
#include "cs_mech.h"
#include "cs_mech_int.h"

#include <stdlib.h>

typedef struct cs__greedy_state {
    uint32_t *ord; /* candidate indices, sorted */
    size_t cap;    /* entries in ord */
    cs__ws_t ws;   /* per-target counters of the actor quota */
} cs__greedy_state_t;

/* Value density order: bid / cycles descending (exact), then timer_id. */
static int cs__greedy_cmp(const void *x, const void *y, void *ctx)
{
    const cs_cand_t *c = ctx;
    const cs_cand_t *a = &c[*(const uint32_t *)x], *b = &c[*(const uint32_t *)y];
    int r = cs__ratio_cmp(b->bid, b->cycles, a->bid, a->cycles);
    if (r) return r;
    return cs__id_cmp(&a->id, &b->id);
}

static int cs__greedy_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                            cs_clear_out_t *out)
{
    cs__greedy_state_t *s = state;
    if (n == 0) return CS_OK;
    if (n > s->cap) {
        uint32_t *p = realloc(s->ord, n * sizeof *p);
        if (!p) return CS_ENOMEM;
        s->ord = p;
        s->cap = n;
    }
    for (size_t i = 0; i < n; i++) {
        if (cs__prep(&c[i]) != CS_OK) return CS_EINVAL;
        s->ord[i] = (uint32_t)i;
    }
    qsort_r(s->ord, n, sizeof *s->ord, cs__greedy_cmp, c);
    const cs_params_t *p = ctx->p;
    uint64_t used = 0, budget = ctx->budget_cycles, cap = p->max_cycles_per_fire;
    int actor_q = p->max_fires_per_actor != 0;
    if (actor_q) {
        int rc = cs__ws_reserve(&s->ws, n);
        if (rc != CS_OK) return rc;
        cs__tcount_reset(&s->ws);
    }
    for (size_t r = 0; r < n; r++) {
        cs_cand_t *t = &c[s->ord[r]];
        t->rank = (uint32_t)r;
        t->priority = t->bid;
        uint32_t *cnt = actor_q ? cs__tcount(&s->ws, t->target) : NULL;
        if (t->cycles > cap) {
            t->why = CS_WHY_OVER_CAP;
        } else if (p->max_fires_per_block != 0 && out->fired >= p->max_fires_per_block) {
            t->why = CS_WHY_BLOCK_QUOTA;
        } else if (cnt && *cnt >= p->max_fires_per_actor) {
            t->why = CS_WHY_ACTOR_QUOTA;
        } else if (t->cycles > budget - used) {
            t->why = CS_WHY_BUDGET;
        } else {
            t->selected = 1;
            used += t->cycles;
            if (cnt) (*cnt)++;
            out->fired++;
            continue;
        }
        out->deferred++;
    }
    out->cycles_used = used;
    return CS_OK;
}

static void cs__greedy_fini(void *state)
{
    cs__greedy_state_t *s = state;
    free(s->ord);
    s->ord = NULL;
    s->cap = 0;
    cs__ws_free(&s->ws);
}

const cs_mech_ops_t cs__mech_greedy = {
    .name = "greedy",
    .version = 2,
    .state_size = sizeof(cs__greedy_state_t),
    .flags = CS_MF_BUDGET | CS_MF_REFERENCE,
    .init = NULL,
    .clear = cs__greedy_clear,
    .end_block = NULL,
    .fini = cs__greedy_fini,
};
