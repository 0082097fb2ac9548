/*
 * bias_ref.h -- the greedy scan of mech_bias.c written out directly, for
 * the reference allocations of tests/test_vcg_critical.c and
 * tests/test_mech_wide.c (each orders the candidates its own way).
 */
#ifndef BIAS_REF_H
#define BIAS_REF_H

#include "cs_fixed.h"
#include "cs_mech.h"

/* Scan the n candidates c in the order ord[0..n) with the budget and the
 * rules of p (per-fire cap, bid gate, block and actor quotas; targets
 * below 64): win[ord[k]] = 1 for each one selected, else 0. */
static inline void bias_ref_scan(const cs_params_t *p, const cs_cand_t *c, const cs_u128 *bids, const size_t *ord,
                                 size_t n, uint64_t budget, int *win)
{
    uint64_t left = budget, fired = 0, per[64] = {0};
    for (size_t k = 0; k < n; k++) win[ord[k]] = 0;
    for (size_t k = 0; k < n; k++) {
        const cs_cand_t *t = &c[ord[k]];
        if (t->cycles > p->max_cycles_per_fire) continue;
        if (p->reserve_mode == CS_RESERVE_BID_GATE && bids[ord[k]] < p->reserve_price) continue;
        if (p->max_fires_per_block && fired >= p->max_fires_per_block) continue;
        if (p->max_fires_per_actor && per[t->target] >= p->max_fires_per_actor) continue;
        if (t->cycles > left) continue;
        left -= t->cycles;
        per[t->target]++;
        fired++;
        win[ord[k]] = 1;
    }
}

/* The reference allocation: V_i = bids[i] + Bias(deferrals_i) (CIP-5
 * §9.2), the n <= 64 candidates insertion-sorted by before (1 when x goes
 * before y; each test orders them its own way), then scanned as above. */
typedef int (*bias_ref_before_fn)(const cs_u128 *v, const cs_cand_t *c, size_t x, size_t y);
static inline void bias_ref_alloc(const cs_params_t *p, const cs_cand_t *c, const cs_u128 *bids, size_t n,
                                  uint64_t budget, bias_ref_before_fn before, int *win)
{
    size_t ord[64];
    cs_u128 v[64];
    for (size_t i = 0; i < n; i++) {
        v[i] = bids[i] + cs_fixed_bias(c[i].deferrals, p->lambda, p->bias_scale);
        ord[i] = i;
    }
    for (size_t a = 1; a < n; a++) {
        size_t x = ord[a], b = a;
        while (b > 0 && before(v, c, x, ord[b - 1])) {
            ord[b] = ord[b - 1];
            b--;
        }
        ord[b] = x;
    }
    bias_ref_scan(p, c, bids, ord, n, budget, win);
}

#endif /* BIAS_REF_H */
