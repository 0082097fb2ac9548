/*
 * cs_params.h -- every tunable of the scheduler core, in one table.
 *
 * Each row of CS_PARAM_MAP is one scenario parameter (DESIGN §2.5, §4): its
 * snake_case name (the key under "params" in scenario JSON), storage type,
 * fixed-point scale, bounds, default and a one-line description.  The struct
 * cs_params, the defaults, the scenario loader, `--set`, and the JSON Schema
 * are all generated from this table, so a parameter is added in one place.
 *
 * Kinds:
 *   U64  plain integer
 *   FP   fractional value stored as round(x * scale) in a uint64_t; the
 *        scenario gives the real number, consensus code sees the integer
 *   U128 base-unit amount (JSON: integer or decimal string)
 *   ENUM one of the names in the row's choice list (stored as its index)
 *
 * Columns: X(name, kind, scale, min, max, default, choices, doc)
 * For FP rows, min/max/default are already scaled.
 */
#ifndef CS_PARAMS_H
#define CS_PARAMS_H

#include "cs_types.h"

#define CS_PPM 1000000ull       /* scale for ratios given in [0, ~] */
#define CS_PPB 1000000000ull    /* scale for lambda-like small rates */

#define CS_PARAM_MAP(X)                                                                           \
    /* Tiered calendar queue (CIP-1 §2, DESIGN §2.2, §2.5) */                                     \
    X(ring_size, U64, 1, 1, 1u << 24, 4096, NULL, "tier-1 ring buffer buckets (RING_BUFFER_SIZE)") \
    X(epoch_blocks, U64, 1, 1, 1u << 24, 3600, NULL, "blocks per epoch (EPOCH_BLOCKS)")           \
    X(epochs, U64, 1, 1, 1u << 16, 24, NULL, "future epochs held in tier 2")                     \
    X(activation_height, U64, 1, 0, 1ull << 48, 0, NULL, "H_activation: fifo clears the blocks below it, the run's mechanism from it on (CIP-1 rev §13.2); 0 = from the start") \
    X(param_changes, ENUM, 1, 0, 1, 0, "block|epoch", "a params event takes effect at its block, or at the next epoch boundary (CIP-5 CN §13)") \
    /* CIP-5 §3-6 limits and metering */                                                          \
    X(max_timers_per_actor, U64, 1, 1, 1u << 30, 1024, NULL, "MAX_TIMERS_PER_ACTOR (CIP-5 §8)")  \
    X(min_gas_limit_per_timer, U64, 1, 0, 1ull << 48, 0, NULL, "MIN_GAS_LIMIT_PER_TIMER, 0 = none (CIP-5 CN §13, §15)") \
    X(schedule_cycles, U64, 1, 0, 1u << 30, 1000, NULL, "schedule_timer cost in cycles (CIP-5 §6.1)") \
    X(cancel_cycles, U64, 1, 0, 1u << 30, 500, NULL, "cancel_timer cost in cycles (CIP-5 §6.1)")  \
    X(fifo_fire_cycles, U64, 1, 1, 1ull << 40, 550000, NULL, "FIFO per-fire cycles budget (CIP-5 §6.2)") \
    X(fifo_fire_cells, U64, 1, 1, 1ull << 40, 550000, NULL, "FIFO per-fire cells budget (CIP-5 §6.2)") \
    X(handler_deferred_max, U64, 1, 0, 1u << 16, 2, NULL, "deferred transactions one timer handler may create (CIP-5 §6.2: up to 2)") \
    X(handler_deferred_cycles, U64, 1, 1, 1ull << 40, 100000, NULL, "cycles each handler-created deferred transaction takes from the handler's budget (CIP-5 §6.2)") \
    /* Caps and lanes (CIP-5 §9.4, CIP-1 rev §9-10) */                                            \
    X(max_fires_per_block, U64, 1, 0, 1ull << 32, 0, NULL, "MAX_FIRES_PER_BLOCK, 0 = unlimited")  \
    X(max_fires_per_actor, U64, 1, 0, 1ull << 32, 0, NULL, "MAX_FIRES_PER_ACTOR / _TARGET, 0 = unlimited") \
    X(lane_timer_cycles, U64, 1, 1, 1ull << 48, 2000000, NULL, "LANE_TIMER_CYCLES / TIMER_PROCESSING_BUDGET_CYCLES") \
    X(max_cycles_per_fire, U64, 1, 1, 1ull << 48, 250000, NULL, "MAX_CYCLES_PER_FIRE_AUCTION_PHASE (CIP-1 rev §10)") \
    X(over_cap, ENUM, 1, 0, 2, 0, "reject|defer|split", "gas limit above the per-fire cap (D5; split: the engine runs the work as a chain of capped fires, CIP-1 rev §10, N86)") \
    X(gc_cycles_per_block, U64, 1, 0, 1ull << 48, 5000000, NULL, "TIMER_GC_CYCLES (CIP-1 rev §9)") \
    X(gc_cycles_per_timer, U64, 1, 1, 1ull << 40, 5000, NULL, "GC cost per destroyed timer (D11)") \
    X(gc_lane, ENUM, 1, 0, 1, 0, "isolated|shared", "GC's cycles: its own TIMER_GC_CYCLES lane (CIP-1 rev §9) or taken first from LANE_TIMER_CYCLES, at most gc_cycles_per_block (the counterfactual, N85)") \
    /* Lane basefee (CIP-1 rev §5, D2, D3) */                                                     \
    X(basefee_rule, ENUM, 1, 0, 2, 0, "cip1|eip1559|additive", "lane basefee update rule (D2)")   \
    X(eip1559_rounding, ENUM, 1, 0, 1, 0, "delta-floor|value-floor", "eip1559 rule: floor the change as EIP-1559 does, or floor the new value (the rounding cowsim used before)") \
    X(basefee_window, U64, 1, 1, 1u << 15, 1, NULL, "blocks whose mean lane utilisation the basefee rule reads, 1 = the last block") \
    X(target_utilisation, FP, CS_PPM, 1, 1000000, 500000, NULL, "lane target utilisation")       \
    X(basefee_max_change, FP, CS_PPM, 0, 1000000, 125000, NULL, "clip / d of the basefee update")  \
    X(lane_basefee_initial, U128, 1, 0, 0, 1000, NULL, "initial lane basefee per cycle")           \
    X(lane_basefee_min, U128, 1, 0, 0, 1, NULL, "floor of the lane basefee")                       \
    X(additive_step, U128, 1, 0, 0, 10, NULL, "step of the additive basefee rule at full deviation") \
    X(lane_fee_multiplier, FP, CS_PPM, 0, 100000000, 1000000, NULL, "per-lane fee multiplier (CIP-1 rev §5)") \
    X(lane_basefee_mode, ENUM, 1, 0, 1, 0, "additional|replace", "lane basefee vs CIP-3 cycle basefee (D3)") \
    X(lane_fee_multiplier_scope, ENUM, 1, 0, 1, 0, "lane|fire", "what lane_fee_multiplier scales: the lane basefee, or every basefee of a timer fire (N38)") \
    /* Fairness W(actor) (CIP-1 rev §8, D12) */                                                   \
    X(fairness_window, U64, 1, 1, 1u << 20, 1000, NULL, "FAIRNESS_WINDOW_BLOCKS")                 \
    X(w_min, FP, CS_PPM, 0, 100000000, 1000000, NULL, "lower clip of W(actor)")                    \
    X(w_max, FP, CS_PPM, 0, 100000000, 2000000, NULL, "upper clip of W(actor)")                    \
    X(fairness_identity, ENUM, 1, 0, 1, 0, "actor|deployer", "identity W is computed over (D12)") \
    X(median_ema, FP, CS_PPM, 0, 1000000, 0, NULL, "EMA weight on the network median, 0 = off")   \
    /* Default GBA and tiers (CIP-1 rev §7, D4) */                                                \
    X(default_gba_eval, ENUM, 1, 0, 1, 0, "fire|schedule", "when default-GBA values are taken (D4)") \
    X(gba_headroom, FP, CS_PPM, 0, 100000000, 2000000, NULL, "default GBA max_fee multiple of basefee") \
    X(tier_economy, FP, CS_PPM, 0, 100000000, 800000, NULL, "priority tier multiplier: economy")  \
    X(tier_standard, FP, CS_PPM, 0, 100000000, 1000000, NULL, "priority tier multiplier: standard") \
    X(tier_fast, FP, CS_PPM, 0, 100000000, 1500000, NULL, "priority tier multiplier: fast")       \
    X(tier_urgent, FP, CS_PPM, 0, 100000000, 2500000, NULL, "priority tier multiplier: urgent")   \
    X(legacy_bid, ENUM, 1, 0, 1, 0, "accept|reject", "legacy bid argument (CIP-1 rev §6)")        \
    /* Payments (D6, D9) */                                                                       \
    X(payments_to, ENUM, 1, 0, 1, 0, "proposer|burn", "where tips and auction payments go (D9)")  \
    X(execution_fees, ENUM, 1, 0, 1, 0, "cip3|none", "every fire pays the CIP-3 cycle and cell basefees for what it used (cip3), or only fee mechanisms do (none: CIP-5 §6.3 as implemented; N58)") \
    X(vcg_payment, ENUM, 1, 0, 1, 0, "spec|critical", "bias-vcg payment rule (D6)")               \
    X(reserve_price, U128, 1, 0, 0, 0, NULL, "minimum payment per fire (CIP-5 §9.5)")            \
    X(reserve_mode, ENUM, 1, 0, 1, 0, "payment-floor|bid-gate", "the reserve floors a winner's payment, never above its bid (CIP-5 §9.5 payment rule, §9.7, D14), or gates bids below it (§9.5 \"minimum bid floor\", N16)") \
    /* Exponential bias (CIP-5 §9.2-9.3, D7) */                                                   \
    X(lambda, FP, CS_PPB, 0, 10000000000ull, 50000000, NULL, "bias growth rate per deferred block") \
    X(bias_scale, U128, 1, 0, 0, 1, NULL, "Bias(n) = bias_scale * e^(n*lambda) (D7)")              \
    X(lambda_control, ENUM, 1, 0, 1, 0, "off|on", "dynamic lambda control loop (CIP-5 §9.3)")     \
    X(lambda_target, FP, CS_PPM, 0, 1000000, 200000, NULL, "target bias share of winning priority") \
    X(lambda_gain, FP, CS_PPM, 0, 1000000, 100000, NULL, "relative lambda step per epoch at full error") \
    X(lambda_min, FP, CS_PPB, 0, 10000000000ull, 1000000, NULL, "lower bound of lambda")          \
    X(lambda_max, FP, CS_PPB, 0, 10000000000ull, 500000000, NULL, "upper bound of lambda")        \
    X(lambda_epoch, U64, 1, 0, 1u << 24, 100, NULL, "blocks between lambda-loop updates, the first after block lambda_epoch - 1; 0 = epoch_blocks (N63)") \
    X(lambda_controller, ENUM, 1, 0, 1, 0, "share|invariant", "what the lambda loop steers: the bias share of winning priority toward lambda_target (share: the on-chain proxy, N20), or the share of blocks whose CIP-5 §9.3 invariant slack is negative toward lambda_violation_target (invariant: measured by the simulator, N70)") \
    X(lambda_violation_target, FP, CS_PPM, 0, 1000000, 50000, NULL, "lambda_controller = invariant: target share of a loop epoch's blocks that violate the §9.3 invariant (N70)") \
    /* Score rule (CIP-5 CN §9) */                                                                \
    X(w_age, U64, 1, 0, 1ull << 32, 1, NULL, "score weight on age_blocks")                        \
    X(w_bid, U64, 1, 0, 1ull << 32, 1, NULL, "score weight on bid")                               \
    X(w_fifo, U64, 1, 0, 1ull << 32, 0, NULL, "score weight on fifo_rank (subtracted, D8)")       \
    X(score_payment, ENUM, 1, 0, 1, 0, "bid|none", "score rule payment")                          \
    X(score_budget, ENUM, 1, 0, 1, 0, "lane|none", "score rule lane budget: lane_timer_cycles, or none as in the CN text (N57)") \
    /* GBA-tip first draft (CIP-1 first draft §3) */                                              \
    X(ema_lambda, FP, CS_PPM, 0, 1000000, 200000, NULL, "EMA weight of the per-actor score S")     \
    X(weight_min, FP, CS_PPM, 0, 100000000, 500000, NULL, "gba-tip weight clamp low")              \
    X(weight_max, FP, CS_PPM, 0, 100000000, 2000000, NULL, "gba-tip weight clamp high")            \
    X(starvation_blocks, U64, 1, 0, 1u << 20, 10, NULL, "deferrals after which the starvation floor applies") \
    X(actor_budget_slice, FP, CS_PPM, 0, 1000000, 0, NULL, "per-actor budget share by weight, 0 = off") \
    X(gba_weight_epoch, U64, 1, 0, 1u << 24, 0, NULL, "blocks between gba-tip weight recomputations (CIP-1 first draft §3 step 5e, on epoch rollover); 0 = epoch_blocks, 1 = every block") \
    X(gba_tip_lane, ENUM, 1, 0, 1, 0, "none|cip1-rev", "gba-tip's price base: the CIP-3 cycle basefee, tip = min(tip, max_fee - basefee_cycle), no lane basefee (none: the first draft), or the revised lane basefee charged on top (cip1-rev: CIP-1 rev §5, D3); N65") \
    X(gba_tip_charge, ENUM, 1, 0, 1, 0, "draft|cip1-rev", "gba-tip: the GBA's price for what the fire uses, charged at execution, deferred when unpaid (CIP-1 first draft §4.1, D10), or the max_cost pre-charge at the limits, destroyed when unpaid (CIP-1 rev §3 steps 4, 8)") \
    X(gba_tip_order, ENUM, 1, 0, 1, 0, "draft|cip1-rev", "gba-tip: a block's due timers are delivered and executed before its transactions (draft: CIP-1 first draft §3) or after them (cip1-rev: CIP-1 rev §3 steps 3 then 5-9, Tx-then-Timer); N69") \
    /* Schedule-time booking: slot-booking and priority-classes (issue 28, N72-N74) */          \
    X(book_window, U64, 1, 1, 1u << 15, 128, NULL, "booking window W: how many slots (blocks) ahead a timer may book (slot-booking, priority-classes)") \
    X(slot_capacity, U64, 1, 0, 1ull << 48, 0, NULL, "slot-booking: cycles C a slot can book; 0 = lane_timer_cycles (N72)") \
    X(slot_base_initial, U128, 1, 0, 0, 1000, NULL, "slot-booking: base price per cycle of the first slots of the window") \
    X(slot_base_min, U128, 1, 0, 0, 1, NULL, "slot-booking: floor of the base price per cycle") \
    X(slot_base_max, U128, 1, 0, 0, 1000000000000ull, NULL, "slot-booking: cap of the base price per cycle") \
    X(slot_base_denom, U64, 1, 1, 1u << 30, 8, NULL, "slot-booking: change denominator D of the base price (N73)") \
    X(slot_base_min_step, U128, 1, 0, 0, 1, NULL, "slot-booking: least change of the base price when the window's mean is off target") \
    X(slot_penalty, U128, 1, 0, 0, 0, NULL, "slot-booking: slot overbooking penalty P (whole slot booked); 0 = C x slot_base_initial (N72)") \
    X(global_penalty, U128, 1, 0, 0, 0, NULL, "slot-booking: window overbooking penalty P (whole window booked); 0 = 10 x the slot penalty (N72)") \
    X(slot_cancel_refund, FP, CS_PPM, 0, 1000000, 0, NULL, "slot-booking: share of the price refunded on cancel (Massa refunds the booked coins, not the fee)") \
    X(class_slot_effort, U64, 1, 1, 1u << 30, 35000, NULL, "priority-classes: effort of one slot; the lane's cycles are this many effort units (N74)") \
    X(class_high_reserve, U64, 1, 0, 1u << 30, 20000, NULL, "priority-classes: effort a slot reserves for High") \
    X(class_medium_reserve, U64, 1, 0, 1u << 30, 5000, NULL, "priority-classes: effort a slot reserves for Medium") \
    X(class_shared_pool, U64, 1, 0, 1u << 30, 10000, NULL, "priority-classes: effort a slot shares between High and Medium") \
    X(class_low_max, U64, 1, 0, 1u << 30, 5000, NULL, "priority-classes: most effort Low takes of what a slot has left") \
    X(class_max_effort, U64, 1, 1, 1u << 30, 9999, NULL, "priority-classes: most effort of one call") \
    X(class_mult_high, FP, CS_PPM, 0, 1000000000, 10000000, NULL, "priority-classes: fee multiplier of the execution fee, High") \
    X(class_mult_medium, FP, CS_PPM, 0, 1000000000, 5000000, NULL, "priority-classes: fee multiplier of the execution fee, Medium") \
    X(class_mult_low, FP, CS_PPM, 0, 1000000000, 2000000, NULL, "priority-classes: fee multiplier of the execution fee, Low") \
    X(class_cancel_refund, FP, CS_PPM, 0, 1000000, 500000, NULL, "priority-classes: share of the fee refunded on cancel (Flow: 50 %)")

typedef enum cs_param_kind { CS_PK_U64, CS_PK_FP, CS_PK_U128, CS_PK_ENUM } cs_param_kind;

typedef struct cs_params {
#define CS__PF_U64(n) uint64_t n;
#define CS__PF_FP(n) uint64_t n;
#define CS__PF_ENUM(n) uint32_t n;
#define CS__PF_U128(n) cs_u128 n;
#define CS__PFIELD(name, kind, scale, mn, mx, def, ch, doc) CS__PF_##kind(name)
    CS_PARAM_MAP(CS__PFIELD)
#undef CS__PFIELD
} cs_params_t;

/* Descriptor of one parameter, for loaders and documentation. */
typedef struct cs_param_desc {
    const char *name;    /* snake_case key */
    cs_param_kind kind;  /* storage kind */
    uint64_t scale;      /* FP scale (1 otherwise) */
    uint64_t min, max;   /* bounds, scaled; max 0 with U128 = unbounded */
    uint64_t def;        /* default, scaled */
    const char *choices; /* "a|b|c" for ENUM, else NULL */
    const char *doc;     /* one line */
    size_t offset;       /* offsetof in cs_params_t */
} cs_param_desc_t;

/* The table, in CS_PARAM_MAP order, and its length. */
extern const cs_param_desc_t cs_param_table[];
extern const size_t cs_param_count;

/* Fill p with every default. */
void cs_params_default(cs_params_t *p);
/* Descriptor by name, or NULL. */
const cs_param_desc_t *cs_param_find(const char *name);
/* Index of choice word in an ENUM descriptor, or -1. */
int cs_param_choice(const cs_param_desc_t *d, const char *word);
/* Name of ENUM choice i (static buffer per call is not used: writes into buf). */
const char *cs_param_choice_name(const cs_param_desc_t *d, uint32_t i, char *buf, size_t cap);

/* Enum values, in the order of the choice lists above. */
enum { CS_OVER_CAP_REJECT = 0, CS_OVER_CAP_DEFER = 1, CS_OVER_CAP_SPLIT = 2 };
enum { CS_GC_ISOLATED = 0, CS_GC_SHARED = 1 };
enum { CS_PCHANGE_BLOCK = 0, CS_PCHANGE_EPOCH = 1 };
enum { CS_BASEFEE_CIP1 = 0, CS_BASEFEE_EIP1559 = 1, CS_BASEFEE_ADDITIVE = 2 };
enum { CS_EIP_DELTA_FLOOR = 0, CS_EIP_VALUE_FLOOR = 1 };
enum { CS_LANE_ADDITIONAL = 0, CS_LANE_REPLACE = 1 };
enum { CS_LFM_LANE = 0, CS_LFM_FIRE = 1 };
enum { CS_IDENTITY_ACTOR = 0, CS_IDENTITY_DEPLOYER = 1 };
enum { CS_GBA_EVAL_FIRE = 0, CS_GBA_EVAL_SCHEDULE = 1 };
enum { CS_LEGACY_ACCEPT = 0, CS_LEGACY_REJECT = 1 };
enum { CS_PAY_PROPOSER = 0, CS_PAY_BURN = 1 };
enum { CS_EXEC_FEES_CIP3 = 0, CS_EXEC_FEES_NONE = 1 };
enum { CS_RESERVE_PAYMENT_FLOOR = 0, CS_RESERVE_BID_GATE = 1 };
enum { CS_VCG_SPEC = 0, CS_VCG_CRITICAL = 1 };
enum { CS_LAMBDA_OFF = 0, CS_LAMBDA_ON = 1 };
enum { CS_LAMBDA_CTL_SHARE = 0, CS_LAMBDA_CTL_INVARIANT = 1 };
enum { CS_SCORE_PAY_BID = 0, CS_SCORE_PAY_NONE = 1 };
enum { CS_SCORE_BUDGET_LANE = 0, CS_SCORE_BUDGET_NONE = 1 };
enum { CS_GBA_CHARGE_DRAFT = 0, CS_GBA_CHARGE_REV = 1 };
enum { CS_GBA_LANE_NONE = 0, CS_GBA_LANE_REV = 1 };
enum { CS_GBA_ORDER_DRAFT = 0, CS_GBA_ORDER_REV = 1 };

#endif /* CS_PARAMS_H */
