/*
 * cs_basefee.h -- the timer-lane basefee (CIP-1 rev §5; DESIGN D2, D3).
 *
 * Pure functions: the pipeline keeps the lane basefee b (a cs_u128) and
 * once per block calls cs_basefee_next() with the lane cycles consumed in
 * that block to get the basefee for the next one.  Nothing allocates.
 *
 * Utilisation u = cycles_used / L with L = p->lane_timer_cycles; cycles
 * above L are clipped to L (the spec states u ∈ [0, 1]; only the unbudgeted
 * fifo mechanism can exceed the lane).  t = p->target_utilisation and
 * m = d = p->basefee_max_change are ppm values (S = 1,000,000).  The three
 * rules (p->basefee_rule, D2), with the relative deviation dev = (u - t)/t
 * (the spec writes (u - 0.5)/0.5 for t = 0.5; we keep its form for any t):
 *
 *   cip1     b' = b * (1 + clip(dev, -m, +m))      CIP-1 rev §5 as written.
 *            Because dev is already a relative deviation the clip binds as
 *            soon as |u - t| > m*t: with t = 0.5, m = 0.125 the rule
 *            saturates at u >= 0.5625 or u <= 0.4375 (D2).
 *   eip1559  b' = b * (1 + d * dev)               EIP-1559's proportional rule;
 *            with t = 0.5, d = 0.125 the factor ranges over [0.875, 1.125].
 *            Evaluated with EIP-1559's own integer arithmetic by default
 *            (eip1559_rounding = delta-floor, DESIGN-NOTES N50): the change
 *            delta = floor(b * |used - target| * d / (target * S)) is floored,
 *            an increase is b + max(delta, 1) (so 0 rises to 1 on a block
 *            above target), a decrease b - delta.  With d = 1/8 and an integer
 *            target that is the EIP's floor(floor(b*Δ/target)/8).
 *            value-floor keeps the rounding below (the new value floored).
 *   additive b' = b + additive_step * dev         A fixed step per unit of
 *            relative deviation: +additive_step at u = 2t (full lane when
 *            t = 0.5), -additive_step at u = 0.  Not clipped.
 *
 * Window (basefee_window = w, DESIGN-NOTES N51).  Every rule reads the
 * mean utilisation of the last w blocks, each block's cycles clipped to L
 * before averaging (the window holds fewer blocks at the start of a run:
 * the mean is over those there are).  w = 1 is CIP-1 rev §5's prior-block
 * utilisation; w > 1 is the averaged-utilisation variant of the EIP-1559
 * stability literature.  dev = (sum*S - n*t*L) / (n*t*L), exact.
 *
 * Integer evaluation and rounding.  With num = cycles_used*S - t*L and
 * den = t*L, dev = num/den exactly, and every rule is evaluated on that
 * exact rational in 128/256-bit integer arithmetic (no floating point,
 * CIP-5 CN §9.1).  The result is the floor of the exact new value, with one
 * exception: when the exact new value is strictly above b, the result is at
 * least b + 1.  Plain flooring is biased downwards (a decrease always moves
 * by >= 1 base unit, a small increase can round to 0), and under the ±12.5%
 * clip a basefee below 8 could then never rise again (floor(7 * 1.125) = 7);
 * EIP-1559 implementations raise the basefee by at least one unit for the
 * same reason.  Finally b' is floored at p->lane_basefee_min.
 *
 * The lane fee multiplier (CIP-1 rev §5, "per-lane fee multiplier pinned at
 * 1.0x", Tier-0 tunable) scales what is charged, not the state: the
 * trajectory b evolves by the rule alone, and cs_basefee_charged() gives
 * floor(b * lane_fee_multiplier / S).  The charged value is what every
 * consumer of "basefee_lane_timer" should use: scheduling-time validation
 * and priority_per_cycle (CIP-1 rev §3 step 6, §6), the GBA context (§7.2)
 * and the per-cycle lane burn at settlement (§3 step 8).  Under
 * lane_fee_multiplier_scope = fire the multiplier also scales the CIP-3
 * cycle basefee of timer fires (cs_basefee_cycle_charged; DESIGN-NOTES N38).
 */
#ifndef CS_BASEFEE_H
#define CS_BASEFEE_H

#include "cs_error.h"
#include "cs_params.h"
#include "cs_types.h"

/* The lane basefee to start a run with: max(lane_basefee_initial,
 * lane_basefee_min). */
cs_u128 cs_basefee_initial(const cs_params_t *p);

/* Utilisation of a block in ppm: floor(min(cycles_used, L) * S / L). */
uint64_t cs_basefee_util_ppm(const cs_params_t *p, uint64_t cycles_used);

/*
 * CIP-1 rev §5: the lane basefee for h+1 from the basefee b of h and the
 * lane cycles consumed in h, under p->basefee_rule.  Stores it in *next and
 * returns CS_OK; CS_EINVAL for an unknown rule, L = 0, t = 0 or t > S;
 * CS_EOVERFLOW if the new basefee does not fit in 128 bits.  *next is
 * untouched on error.
 */
int cs_basefee_next(const cs_params_t *p, cs_u128 b, uint64_t cycles_used, cs_u128 *next);

/* Largest basefee_window: with L <= 2^48 the clipped sum stays below 2^64. */
#define CS_BASEFEE_WINDOW_MAX (1u << 15)

/*
 * The same with the mean utilisation of n blocks (1 <= n <=
 * CS_BASEFEE_WINDOW_MAX) whose lane cycles, each clipped to L, sum to
 * sum_clipped (<= n*L).  CS_EINVAL otherwise; as cs_basefee_next() else.
 */
int cs_basefee_next_mean(const cs_params_t *p, cs_u128 b, uint64_t sum_clipped, uint64_t n,
                         cs_u128 *next);

/*
 * The window of the last basefee_window blocks' clipped lane cycles.  init
 * allocates the ring (CS_ENOMEM, or CS_EINVAL for a window outside
 * [1, CS_BASEFEE_WINDOW_MAX]); free releases it (the struct is the caller's).
 * step adds a block's lane cycles and gives the next basefee from the mean
 * over the window (cs_basefee_next_mean); it does not allocate.
 */
typedef struct cs_basefee_win {
    uint64_t *ring; /* clipped lane cycles of the last cap blocks */
    uint64_t cap;   /* w = p->basefee_window at init */
    uint64_t n;     /* blocks held, <= cap */
    uint64_t pos;   /* next slot to write */
    uint64_t sum;   /* sum of the n held values */
} cs_basefee_win_t;

int cs_basefee_win_init(cs_basefee_win_t *w, const cs_params_t *p);
void cs_basefee_win_free(cs_basefee_win_t *w);
int cs_basefee_win_step(cs_basefee_win_t *w, const cs_params_t *p, cs_u128 b, uint64_t cycles_used,
                        cs_u128 *next);

/* The lane basefee charged per cycle: floor(b * lane_fee_multiplier / S)
 * (CIP-1 rev §5 per-lane multiplier).  CS_EOVERFLOW if it does not fit. */
int cs_basefee_charged(const cs_params_t *p, cs_u128 b, cs_u128 *out);

/* The CIP-3 cycle basefee a timer fire is charged per cycle (DESIGN-NOTES
 * N38): bc itself under lane_fee_multiplier_scope = lane (the multiplier
 * scales the lane basefee only), floor(bc * lane_fee_multiplier / S) under
 * fire (the multiplier scales every basefee component of a timer fire, the
 * CIP-3 §2.2.3 per-lane multiplier CIP-1 rev §5 cites).  CS_EOVERFLOW if it
 * does not fit; *out untouched then. */
int cs_basefee_cycle_charged(const cs_params_t *p, cs_u128 bc, cs_u128 *out);

/*
 * D3: the per-cycle rates a fire is charged (fields basefee_cycle and
 * basefee_lane of cs_fire_charge_t).  Under lane_basefee_mode = additional
 * (CIP-1 rev §5: "the lane basefee is additional to the cycle basefee") the
 * CIP-3 cycle basefee and the charged lane basefee both apply; under
 * replace the lane basefee stands in for the cycle basefee (*cycle_rate = 0).
 */
void cs_basefee_fire_rates(const cs_params_t *p, cs_u128 basefee_cycle, cs_u128 lane_charged,
                           cs_u128 *cycle_rate, cs_u128 *lane_rate);

/*
 * Internal, shared by the fee modules: *q = floor(a*b / c) and *r = the
 * remainder, computed through a 256-bit product so that it is exact for
 * every input whose quotient fits in 128 bits.  Returns 0, or -1 when
 * c = 0 or the quotient overflows (outputs untouched).  q or r may be NULL.
 */
int cs__muldiv_u128(cs_u128 a, cs_u128 b, cs_u128 c, cs_u128 *q, cs_u128 *r);

#endif /* CS_BASEFEE_H */
