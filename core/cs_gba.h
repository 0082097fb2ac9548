/*
 * cs_gba.h -- Gas Bidding Agent context, the default GBA, priority tiers,
 * the previous-block p50 tip and scheduling-time fee validation
 * (CIP-1 rev §6, §7.1-7.3; DESIGN §2.4, D4).
 *
 * All functions are pure and allocation-free.  Fixed-point multipliers are
 * ppm (S = 1,000,000) and every product is floored: max_fee =
 * floor(gba_headroom * basefee_lane / S), tier priority = floor(p50 *
 * tier_multiplier / S).
 *
 * "basefee_lane" everywhere below is the charged lane basefee
 * (cs_basefee_charged, i.e. after lane_fee_multiplier); see cs_basefee.h.
 * When the default GBA is evaluated (at fire time or at schedule time,
 * default_gba_eval, D4) is the pipeline's decision.
 */
#ifndef CS_GBA_H
#define CS_GBA_H

#include "cs_error.h"
#include "cs_params.h"
#include "cs_types.h"

/* CIP-1 rev §7.2: the protocol-supplied context of getGasBid. */
typedef struct cs_gba_ctx {
    uint64_t trigger_block_height;  /* height the timer was originally scheduled for */
    uint64_t current_block_height;  /* current height (lateness = current - trigger) */
    cs_u128 basefee_cycle;          /* current CIP-3 compute-cycle basefee */
    cs_u128 basefee_cell;           /* current CIP-3 storage/byte basefee */
    cs_u128 basefee_lane_timer;     /* current (charged) timer-lane basefee (§5) */
    uint64_t last_block_cycle_usage; /* total cycles used in the previous block */
    cs_u128 previous_block_p50_priority_tip_per_cycle; /* prior-block median fired tip */
    cs_u128 owner_actor_balance;    /* current balance of the owning actor */
} cs_gba_ctx_t;

/* CIP-1 rev §7.1: TxFeeParams returned by getGasBid. */
typedef struct cs_txfee {
    cs_u128 max_fee_per_cycle;          /* cap on basefee_lane + priority, per cycle */
    cs_u128 max_priority_fee_per_cycle; /* priority tip cap per cycle */
    cs_u128 max_fee_per_cell;           /* cap per cell */
    cs_u128 max_priority_fee_per_cell;  /* priority per cell (0: timers are cycle-bound) */
} cs_txfee_t;

/*
 * CIP-1 rev §7.3 PriorityTier.  Values match cs_timer_t.tier_hint; STANDARD
 * is 0 so that a zeroed record gets the default (1.0x) tier.
 */
typedef enum cs_ptier {
    CS_PTIER_STANDARD = 0, /* 1.0x (default), p->tier_standard */
    CS_PTIER_ECONOMY = 1,  /* 0.8x, p->tier_economy */
    CS_PTIER_FAST = 2,     /* 1.5x, p->tier_fast */
    CS_PTIER_URGENT = 3,   /* 2.5x, p->tier_urgent */
    CS_PTIER__COUNT
} cs_ptier;

/* "standard", "economy", "fast", "urgent"; "?" for an unknown tier. */
const char *cs_gba_tier_name(int tier);
/* The tier named s, or -1. */
int cs_gba_tier_parse(const char *s);
/* The tier's multiplier in ppm from p; 0 for an unknown tier. */
uint64_t cs_gba_tier_multiplier(const cs_params_t *p, int tier);

/* CIP-1 rev §7.3: *out = floor(max_prio * multiplier(tier) / S).
 * CS_EINVAL for an unknown tier, CS_EOVERFLOW if it does not fit. */
int cs_gba_apply_tier(const cs_params_t *p, int tier, cs_u128 max_prio, cs_u128 *out);

/*
 * CIP-1 rev §7.1 default GBA, with the tier hint of §7.3 applied to the
 * priority:
 *   max_fee_per_cycle          = floor(gba_headroom * basefee_lane_timer / S)  (2x default)
 *   max_priority_fee_per_cycle = floor(p50 * tier_multiplier / S)
 *   max_fee_per_cell           = basefee_cell
 *   max_priority_fee_per_cell  = 0
 * CS_EINVAL for an unknown tier, CS_EOVERFLOW on overflow (*out untouched).
 */
int cs_gba_default(const cs_params_t *p, const cs_gba_ctx_t *ctx, int tier, cs_txfee_t *out);

/*
 * CIP-1 rev §7.1: the previous block's p50 priority tip per cycle, the
 * lower median of the per-cycle tips actually charged to the timers that
 * fired in that block (cs_cand_t.prio_rate of the winners), or 0 if none
 * fired.  tips is the caller's workspace and is permuted.  O(n) worst case.
 */
cs_u128 cs_gba_p50_tip(cs_u128 *tips, size_t n);

/* Result of scheduling-time validation. */
typedef struct cs_gba_check {
    cs_u128 max_prio;   /* the priority to store: stated, or clamped */
    cs_u128 stated;     /* the priority the caller stated */
    uint8_t clamped;    /* 1: TimerPriorityClampedAtSchedule(stated, max_prio) */
    uint8_t bid_ignored; /* 1: a legacy bid was given and silently ignored */
} cs_gba_check_t;

/*
 * CIP-1 rev §6 scheduling-time validation of explicit fee parameters
 * against the current (charged) lane basefee, in this order:
 *   1. a legacy bid (has_bid) with legacy_bid = reject -> CS_EARG_DEPRECATED
 *      (TimerArgDeprecated); with accept it is ignored (bid_ignored = 1);
 *   2. max_fee < basefee_lane -> CS_EBELOW_BASEFEE (TimerRejectedBelowBasefee;
 *      nothing escrowed);
 *   3. max_prio > max_fee - basefee_lane -> clamp to max_fee - basefee_lane,
 *      clamped = 1 (TimerPriorityClampedAtSchedule); still CS_OK.
 * *out is filled on CS_OK only.
 */
int cs_gba_validate(const cs_params_t *p, cs_u128 basefee_lane, cs_u128 max_fee,
                    cs_u128 max_prio, int has_bid, cs_gba_check_t *out);

/*
 * CIP-1 rev §3 step 6: priority_per_cycle = min(max_prio, max_fee -
 * basefee_lane).  CS_EBELOW_BASEFEE if max_fee < basefee_lane (the timer
 * cannot pay the lane basefee this block); *out untouched then.
 */
int cs_gba_prio_rate(cs_u128 max_fee, cs_u128 max_prio, cs_u128 basefee_lane, cs_u128 *out);

#endif /* CS_GBA_H */
