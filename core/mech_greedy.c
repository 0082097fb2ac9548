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
 * budget and per-fire cap as the auctions.  Ties go to the smaller timer id.
 */
#include "cs_mech.h"
#include "cs_mech_int.h"

#include <stdlib.h>

typedef struct cs__greedy_state {
    uint32_t *ord; /* candidate indices, sorted */
    size_t cap;    /* entries in ord */
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
    uint64_t used = 0, budget = ctx->budget_cycles, cap = ctx->p->max_cycles_per_fire;
    for (size_t r = 0; r < n; r++) {
        cs_cand_t *t = &c[s->ord[r]];
        t->rank = (uint32_t)r;
        t->priority = t->bid;
        if (t->cycles > cap) {
            t->why = CS_WHY_OVER_CAP;
        } else if (t->cycles > budget - used) {
            t->why = CS_WHY_BUDGET;
        } else {
            t->selected = 1;
            used += t->cycles;
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
}

const cs_mech_ops_t cs__mech_greedy = {
    .name = "greedy",
    .version = 1,
    .state_size = sizeof(cs__greedy_state_t),
    .flags = CS_MF_BUDGET | CS_MF_REFERENCE,
    .init = NULL,
    .clear = cs__greedy_clear,
    .end_block = NULL,
    .fini = cs__greedy_fini,
};
