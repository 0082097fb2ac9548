/* cs_gba.c -- default GBA, priority tiers, p50 tip, schedule validation (CIP-1 rev §6-7). */
#include "cs_gba.h"

#include "cs_basefee.h"
#include "cs_fairness.h"

#include <string.h>

static const char *const cs__tier_names[CS_PTIER__COUNT] = {"standard", "economy", "fast",
                                                             "urgent"};

const char *cs_gba_tier_name(int tier)
{
    if (tier < 0 || tier >= CS_PTIER__COUNT) return "?";
    return cs__tier_names[tier];
}

int cs_gba_tier_parse(const char *s)
{
    for (int i = 0; i < CS_PTIER__COUNT; i++)
        if (strcmp(s, cs__tier_names[i]) == 0) return i;
    return -1;
}

/* CIP-1 rev §7.3: system:cip1:priority_tier_multipliers.{economy,standard,fast,urgent}. */
uint64_t cs_gba_tier_multiplier(const cs_params_t *p, int tier)
{
    switch (tier) {
    case CS_PTIER_STANDARD: return p->tier_standard;
    case CS_PTIER_ECONOMY: return p->tier_economy;
    case CS_PTIER_FAST: return p->tier_fast;
    case CS_PTIER_URGENT: return p->tier_urgent;
    }
    return 0;
}

/* CIP-1 rev §7.3: max_priority_fee_per_cycle = multiplier x p50_priority_tip. */
int cs_gba_apply_tier(const cs_params_t *p, int tier, cs_u128 max_prio, cs_u128 *out)
{
    if (tier < 0 || tier >= CS_PTIER__COUNT) return CS_EINVAL;
    if (cs__muldiv_u128(max_prio, cs_gba_tier_multiplier(p, tier), CS_PPM, out, NULL) != 0)
        return CS_EOVERFLOW;
    return CS_OK;
}

/* CIP-1 rev §7.1 default getGasBid. */
int cs_gba_default(const cs_params_t *p, const cs_gba_ctx_t *ctx, int tier, cs_txfee_t *out)
{
    cs_txfee_t r;
    /* max_fee_per_cycle = 2 * basefee_lane_timer (gba_headroom, default 2.0) */
    if (cs__muldiv_u128(ctx->basefee_lane_timer, p->gba_headroom, CS_PPM, &r.max_fee_per_cycle,
                        NULL) != 0)
        return CS_EOVERFLOW;
    /* max_priority_fee_per_cycle = previous_block_p50_priority_tip_per_cycle (x tier) */
    int rc = cs_gba_apply_tier(p, tier, ctx->previous_block_p50_priority_tip_per_cycle,
                               &r.max_priority_fee_per_cycle);
    if (rc != CS_OK) return rc;
    /* cell side: CIP-3 basefee_cell with no priority (timers are cycle-bound) */
    r.max_fee_per_cell = ctx->basefee_cell;
    r.max_priority_fee_per_cell = 0;
    *out = r;
    return CS_OK;
}

/* CIP-1 rev §7.1: "p50 priority tip is the prior-block median priority fee paid
 * by fired timers; falls back to 0 if no timers fired" (lower median, DESIGN §2.4). */
cs_u128 cs_gba_p50_tip(cs_u128 *tips, size_t n)
{
    if (n == 0) return 0;
    return cs__select_u128(tips, n, (n - 1) / 2);
}

/* CIP-1 rev §6 scheduling-time validation. */
int cs_gba_validate(const cs_params_t *p, cs_u128 basefee_lane, cs_u128 max_fee,
                    cs_u128 max_prio, int has_bid, cs_gba_check_t *out)
{
    cs_gba_check_t r;
    memset(&r, 0, sizeof r);
    /* legacy bid: silently accepted (ignored) during deprecation, then TimerArgDeprecated */
    if (has_bid) {
        if (p->legacy_bid == CS_LEGACY_REJECT) return CS_EARG_DEPRECATED;
        r.bid_ignored = 1;
    }
    /* max_fee_per_cycle >= basefee_lane_timer, else TimerRejectedBelowBasefee */
    if (max_fee < basefee_lane) return CS_EBELOW_BASEFEE;
    /* max_priority <= max_fee - basefee_lane, else clamp (TimerPriorityClampedAtSchedule) */
    r.stated = max_prio;
    r.max_prio = max_prio;
    if (max_prio > max_fee - basefee_lane) {
        r.max_prio = max_fee - basefee_lane;
        r.clamped = 1;
    }
    *out = r;
    return CS_OK;
}

/* CIP-1 rev §3 step 6: priority_per_cycle = min(max_priority, max_fee - basefee_lane). */
int cs_gba_prio_rate(cs_u128 max_fee, cs_u128 max_prio, cs_u128 basefee_lane, cs_u128 *out)
{
    if (max_fee < basefee_lane) return CS_EBELOW_BASEFEE;
    *out = CS_MIN(max_prio, max_fee - basefee_lane);
    return CS_OK;
}
