/*
 * cs_mech_bias.h -- observables of the stateful mechanisms: lambda of
 * `bias-vcg` / `bias-fp` (CIP-5 §9.2-9.5) and the EMA weights of `gba-tip`
 * (CIP-1 first draft §3), for the simulator's trajectories (DESIGN §2.4).
 */
#ifndef CS_MECH_BIAS_H
#define CS_MECH_BIAS_H

#include "cs_mech.h"

/*
 * Current lambda in ppb of an open bias-* mechanism: with lambda_control
 * on, the value the dynamic loop (CIP-5 §9.3) has reached, which the next
 * clearing uses; with it off, the lambda of the last clearing (p->lambda at
 * open before the first).  Returns 0 for any other mechanism or a closed m.
 */
uint64_t cs_mech_lambda(const cs_mech_t *m);

/*
 * The simulator's measurement of CIP-5 §9.3's invariant for one block of an
 * open bias-* mechanism (DESIGN-NOTES N64, N70): 1 when the block's slack
 * was negative (violated), 0 when it held; a block without a slack (no
 * deferred candidate) is not reported.  With lambda_control = on and
 * lambda_controller = invariant the loop steers lambda by the share of the
 * reported blocks that violated it; otherwise the report is ignored.  A
 * no-op for any other mechanism or a closed m.
 */
void cs_mech_lambda_observe(cs_mech_t *m, int violated);

/*
 * gba-tip: the stored EMA weight (ppm) of fairness identity ident as of its
 * last update, or 0 when m is not gba-tip or ident has never had a
 * candidate.  (Idle decay is applied lazily when the identity next
 * competes; height is reserved for reporting it and currently unused.)
 */
uint64_t cs_mech_gba_weight(const cs_mech_t *m, uint32_t ident, uint64_t height);

/*
 * gba-tip: the weight (ppm) fairness identity ident carries when it
 * competes at height under parameters p -- its EMA weight decayed over its
 * idle weight epochs, or clamp(w_in, weight_min, weight_max) (w_in 0 = 1.0)
 * when it has none yet, w_in being the weight the engine hands the rule
 * (CIP-1 rev §8 W).  0 when m is not gba-tip.
 */
uint64_t cs_mech_gba_weight_at(const cs_mech_t *m, const cs_params_t *p, uint32_t ident, uint64_t height,
                               uint64_t w_in);

#endif /* CS_MECH_BIAS_H */
