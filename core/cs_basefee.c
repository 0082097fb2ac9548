/* cs_basefee.c -- timer-lane basefee update rules (CIP-1 rev §5, D2, D3). */
#include "cs_basefee.h"

#include <stdlib.h>

#define CS__S ((cs_u128)CS_PPM)
#define CS__LO64 ((cs_u128)UINT64_MAX)

/*
 * floor(a*b / c) with remainder.  The 256-bit product is formed from four
 * 64x64 partial products; when its high half is non-zero the quotient is
 * produced by restoring binary long division (the high half is < c, so the
 * quotient fits in 128 bits).
 */
int cs__muldiv_u128(cs_u128 a, cs_u128 b, cs_u128 c, cs_u128 *q, cs_u128 *r)
{
    cs_u128 a0 = a & CS__LO64, a1 = a >> 64, b0 = b & CS__LO64, b1 = b >> 64;
    cs_u128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    cs_u128 mid = (p00 >> 64) + (p01 & CS__LO64) + (p10 & CS__LO64);
    cs_u128 lo = (p00 & CS__LO64) | (mid << 64);
    cs_u128 hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    cs_u128 qq, rr;

    if (c == 0 || hi >= c) return -1;
    if (hi == 0) {
        qq = lo / c;
        rr = lo % c;
    } else {
        rr = hi;
        qq = 0;
        for (int i = 127; i >= 0; i--) {
            cs_u128 carry = rr >> 127;
            rr = (rr << 1) | ((lo >> i) & 1u);
            qq <<= 1;
            if (carry != 0 || rr >= c) {
                rr -= c; /* wraps correctly when carry is set: true value < 2c */
                qq |= 1u;
            }
        }
    }
    if (q != NULL) *q = qq;
    if (r != NULL) *r = rr;
    return 0;
}

cs_u128 cs_basefee_initial(const cs_params_t *p)
{
    return CS_MAX(p->lane_basefee_initial, p->lane_basefee_min);
}

uint64_t cs_basefee_util_ppm(const cs_params_t *p, uint64_t cycles_used)
{
    uint64_t L = p->lane_timer_cycles;
    if (L == 0) return 0;
    uint64_t cu = CS_MIN(cycles_used, L);
    return (uint64_t)((cs_u128)cu * CS__S / L);
}

/*
 * x = floor(b * num / den), except that an exact value strictly above b
 * rounds to at least b + 1 (see the header).  Returns 0 or -1 on overflow.
 */
static int cs__scale_up_round(cs_u128 b, cs_u128 num, cs_u128 den, cs_u128 *x)
{
    cs_u128 q, r;
    if (cs__muldiv_u128(b, num, den, &q, &r) != 0) return -1;
    if (b > 0 && num > den && q == b && cs_u128_add(b, 1, &q) != 0) return -1;
    *x = q;
    return 0;
}

/*
 * EIP-1559's update (the EIP's "expected_base_fee_per_gas"), with gas used
 * and the gas target replaced by the lane cycles and t*L, and its
 * BASE_FEE_MAX_CHANGE_DENOMINATOR 8 by S/d:
 *   delta = floor(b * |used - target| * d / (target * S))
 *   increase: b + max(delta, 1)     decrease: b - delta     at target: b
 * dev = ±mag/den is the exact |used - target|/target, so with d = S/8 and an
 * integer target this is floor(floor(b*Δ/target)/8), the EIP's nested floor.
 * Returns 0 or -1 on overflow.
 */
static int cs__eip1559_delta_floor(cs_u128 b, cs_u128 d, cs_u128 mag, cs_u128 den, int up,
                                   cs_u128 *x)
{
    cs_u128 dm, sden, delta;
    if (mag == 0) {
        *x = b;
        return 0;
    }
    if (cs_u128_mul(d, mag, &dm) != 0 || cs_u128_mul(den, CS__S, &sden) != 0) return -1;
    if (cs__muldiv_u128(b, dm, sden, &delta, NULL) != 0) return -1;
    if (!up) {
        *x = delta >= b ? 0 : b - delta; /* d <= S keeps delta <= b */
        return 0;
    }
    return cs_u128_add(b, delta == 0 ? 1u : delta, x);
}

/*
 * CIP-1 rev §5: basefee_{H+1} from basefee_H and the utilisation (rule per
 * D2).  The utilisation is the mean over n blocks whose lane cycles, each
 * clipped to L, sum to sum_clipped (n = 1: the last block, as §5 states).
 */
int cs_basefee_next_mean(const cs_params_t *p, cs_u128 b, uint64_t sum_clipped, uint64_t n,
                         cs_u128 *next)
{
    uint64_t L = p->lane_timer_cycles, t = p->target_utilisation;
    cs_u128 den, pos, mag, x;
    int up;

    if (L == 0 || t == 0 || t > CS_PPM || n == 0 || n > CS_BASEFEE_WINDOW_MAX) return CS_EINVAL;
    if (sum_clipped > (cs_u128)L * n) return CS_EINVAL;
    /* utilisation = mean(cycles_consumed_in_lane) / LANE_TIMER_CYCLES ∈ [0, 1];
     * dev = (u - t)/t = (sum*S - n*t*L) / (n*t*L). */
    den = (cs_u128)t * L * n;                  /* < 2^20 * 2^64 * 2^16 */
    pos = (cs_u128)sum_clipped * CS__S;        /* u*S*L*n, < 2^100 */
    up = pos > den;
    mag = up ? pos - den : den - pos;          /* |num|; dev = ±mag/den */

    switch (p->basefee_rule) {
    case CS_BASEFEE_CIP1: {
        /* b * (1 + clip((u - t)/t, -m, +m)); the clip binds when mag/den > m/S. */
        cs_u128 m = CS_MIN((cs_u128)p->basefee_max_change, CS__S);
        int sat = mag * CS__S > m * den; /* both < 2^120 */
        if (sat) {
            if (cs__scale_up_round(b, up ? CS__S + m : CS__S - m, CS__S, &x) != 0)
                return CS_EOVERFLOW;
        } else {
            /* 1 + (u - t)/t = u/t = pos/den */
            if (cs__scale_up_round(b, pos, den, &x) != 0) return CS_EOVERFLOW;
        }
        break;
    }
    case CS_BASEFEE_EIP1559: {
        cs_u128 d = p->basefee_max_change, sden, dm, num;
        if (p->eip1559_rounding == CS_EIP_DELTA_FLOOR) {
            if (cs__eip1559_delta_floor(b, d, mag, den, up, &x) != 0) return CS_EOVERFLOW;
            break;
        }
        /* value-floor: b * (1 + d*(u - t)/t) = b * (S*den ± d*mag) / (S*den),
         * floored, an exact increase at least +1 (cs__scale_up_round). */
        if (cs_u128_mul(den, CS__S, &sden) != 0 || cs_u128_mul(d, mag, &dm) != 0)
            return CS_EOVERFLOW;
        if (up) {
            if (cs_u128_add(sden, dm, &num) != 0) return CS_EOVERFLOW;
        } else {
            num = dm > sden ? 0 : sden - dm; /* d <= S keeps this >= 0 */
        }
        if (cs__scale_up_round(b, num, sden, &x) != 0) return CS_EOVERFLOW;
        break;
    }
    case CS_BASEFEE_ADDITIVE: {
        /* b + additive_step * (u - t)/t */
        cs_u128 q, r;
        if (cs__muldiv_u128(p->additive_step, mag, den, &q, &r) != 0) return CS_EOVERFLOW;
        if (up) {
            if (q == 0 && r != 0) q = 1; /* an exact increase is at least one unit */
            if (cs_u128_add(b, q, &x) != 0) return CS_EOVERFLOW;
        } else {
            cs_u128 dec = q + (r != 0 ? 1u : 0u); /* floor of b - exact = b - ceil */
            x = dec >= b ? 0 : b - dec;
        }
        break;
    }
    default:
        return CS_EINVAL;
    }
    *next = CS_MAX(x, p->lane_basefee_min);
    return CS_OK;
}

/* CIP-1 rev §5: basefee_{H+1} from basefee_H and utilisation_H. */
int cs_basefee_next(const cs_params_t *p, cs_u128 b, uint64_t cycles_used, cs_u128 *next)
{
    return cs_basefee_next_mean(p, b, CS_MIN(cycles_used, p->lane_timer_cycles), 1, next);
}

int cs_basefee_win_init(cs_basefee_win_t *w, const cs_params_t *p)
{
    uint64_t cap = p->basefee_window;
    w->ring = NULL;
    w->cap = w->n = w->pos = w->sum = 0;
    if (cap == 0 || cap > CS_BASEFEE_WINDOW_MAX) return CS_EINVAL;
    w->ring = calloc((size_t)cap, sizeof *w->ring);
    if (w->ring == NULL) return CS_ENOMEM;
    w->cap = cap;
    return CS_OK;
}

void cs_basefee_win_free(cs_basefee_win_t *w)
{
    free(w->ring);
    w->ring = NULL;
    w->cap = w->n = w->pos = w->sum = 0;
}

/* The windowed rule: the block's clipped cycles enter the ring (the oldest
 * leaves once w are held), then the rule reads their mean. */
int cs_basefee_win_step(cs_basefee_win_t *w, const cs_params_t *p, cs_u128 b, uint64_t cycles_used,
                        cs_u128 *next)
{
    uint64_t c = CS_MIN(cycles_used, p->lane_timer_cycles);
    if (w->cap == 0) return CS_EINVAL;
    if (w->n == w->cap) w->sum -= w->ring[w->pos];
    else w->n++;
    w->ring[w->pos] = c;
    w->sum += c;
    w->pos = w->pos + 1 == w->cap ? 0 : w->pos + 1;
    return cs_basefee_next_mean(p, b, w->sum, w->n, next);
}

/* CIP-1 rev §5: per-lane fee multiplier applied to the charged basefee. */
int cs_basefee_charged(const cs_params_t *p, cs_u128 b, cs_u128 *out)
{
    if (cs__muldiv_u128(b, p->lane_fee_multiplier, CS__S, out, NULL) != 0) return CS_EOVERFLOW;
    return CS_OK;
}

/* N38: lane_fee_multiplier_scope = fire also scales the CIP-3 cycle basefee
 * (CIP-1 rev §5 "per-lane fee multiplier" after CIP-3 §2.2.3; CIP-1 rev §7:
 * "multiplicative scalars on fee components"). */
int cs_basefee_cycle_charged(const cs_params_t *p, cs_u128 bc, cs_u128 *out)
{
    if (p->lane_fee_multiplier_scope != CS_LFM_FIRE) {
        *out = bc;
        return CS_OK;
    }
    return cs_basefee_charged(p, bc, out);
}

/* D3 lane_basefee_mode: additional (CIP-1 rev §5) or replace. */
void cs_basefee_fire_rates(const cs_params_t *p, cs_u128 basefee_cycle, cs_u128 lane_charged,
                           cs_u128 *cycle_rate, cs_u128 *lane_rate)
{
    *cycle_rate = p->lane_basefee_mode == CS_LANE_REPLACE ? 0 : basefee_cycle;
    *lane_rate = lane_charged;
}
