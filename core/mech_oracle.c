/*
 * mech_oracle.c -- `oracle`: the reference allocator the efficiency metric
 * compares against (DESIGN §6 "efficiency = welfare / the welfare of an
 * oracle allocator (ranks by true value density, same budget)").
 *
 * It is not a payment rule: the simulator passes each timer's true value at
 * zero delay as its bid (never escrowed, never charged), and the oracle
 * takes timers by value per cycle, descending, greedily under the same lane
 * budget and per-fire cap as the auctions.  Ties go to the smaller timer id.
 */
#include "cs_mech.h"
#include "cs_mech_int.h"

#include <stdlib.h>

typedef struct cs__oracle_state {
    uint32_t *ord; /* candidate indices, sorted */
    size_t cap;    /* entries in ord */
} cs__oracle_state_t;

/* Value density order: bid / cycles descending (exact), then timer_id. */
static int cs__oracle_cmp(const void *x, const void *y, void *ctx)
{
    const cs_cand_t *c = ctx;
    const cs_cand_t *a = &c[*(const uint32_t *)x], *b = &c[*(const uint32_t *)y];
    int r = cs__ratio_cmp(b->bid, b->cycles, a->bid, a->cycles);
    if (r) return r;
    return cs__id_cmp(&a->id, &b->id);
}

static int cs__oracle_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                            cs_clear_out_t *out)
{
    cs__oracle_state_t *s = state;
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
    qsort_r(s->ord, n, sizeof *s->ord, cs__oracle_cmp, c);
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

static void cs__oracle_fini(void *state)
{
    cs__oracle_state_t *s = state;
    free(s->ord);
    s->ord = NULL;
    s->cap = 0;
}

const cs_mech_ops_t cs__mech_oracle = {
    .name = "oracle",
    .version = 1,
    .state_size = sizeof(cs__oracle_state_t),
    .flags = CS_MF_BUDGET | CS_MF_ORACLE,
    .init = NULL,
    .clear = cs__oracle_clear,
    .end_block = NULL,
    .fini = cs__oracle_fini,
};
