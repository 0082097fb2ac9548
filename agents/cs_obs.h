/*
 * cs_obs.h -- what a bidder works from: the observation of the chain at the
 * start of a block, the timers it asks for and the timers reported back to
 * it, and the mechanism families that say what it has to state (DESIGN §3,
 * agents/README.md).  The strategies (cs_strategy.h) and the agent kinds
 * (cs_agent.h) both use these types; they sit below both, so a strategy
 * never needs the agent's own interface.
 *
 * Ownership: plain values.  The engine fills an observation once per block
 * (o->mechanism points at the run's mechanism name, valid for the run).
 */
#ifndef CS_OBS_H
#define CS_OBS_H

#include <stdint.h>

#include "cs_types.h"

/* Mechanism families, by what an agent has to state to take part. */
typedef enum cs__mclass {
    CS__MC_NONE = 0, /* fifo, fifo-capped (and unknown names): no price at all */
    CS__MC_BID = 1,  /* bias-vcg, bias-fp, score: a bid per fire (CIP-5 §9.7) */
    CS__MC_FEE = 2   /* eip1559, gba-tip: fee params per cycle (CIP-1 rev §6-7) */
} cs__mclass;

/* What an agent can observe at the start of a block: public chain data of
 * the previous block only. */
typedef struct cs_obs {
    uint64_t height;            /* block being built */
    const char *mechanism;      /* mechanism name */
    double basefee_lane;        /* lane basefee per cycle */
    double basefee_cycle;       /* CIP-3 cycle basefee */
    double basefee_cell;        /* CIP-3 cell basefee */
    double p50_tip;             /* previous-block median tip per cycle */
    double clearing_price;      /* previous block: lowest winning payment per fire (bid mechs) or tip per cycle */
    double utilisation;         /* previous block lane utilisation in [0, 1] */
    uint64_t last_fired;        /* fires in the previous block */
    double reserve_price;       /* reserve (bias mechanisms) */
    double demand_mult;         /* demand-shock multiplier for this agent now (1 = none) */
    int paused;                 /* the timer lane is paused this block */
    double vol_mult;            /* volatility multiplier (scenario event; 1 = none) */
    /* Bids of the previous block's candidates (fired or deferred; bid
     * mechanisms), public in their transactions: */
    double top_bid;             /* the highest bid */
    uint32_t top_bid_agent;     /* the agent instance that made it */
    double top_bid_other;       /* the highest bid of any other agent instance */
    /* The previous block's clearing threshold (bias-vcg, bias-fp, eip1559,
     * gba-tip), in the mechanism's priority per cycle: bias (bid +
     * Bias(n)) / gas_limit (CIP-5 §9.2), eip1559 tip x W(actor) (CIP-1
     * rev §3 step 6), gba-tip the tip (the mechanism's own fixed-point
     * priority as a double): the highest among the candidates deferred on
     * the lane budget or the block quota, 0 when none was (every eligible
     * timer fired); with it the lowest among the timers that fired (0 when
     * none was deferred). */
    double thresh;
    uint32_t thresh_agent;      /* the agent instance of the highest deferred one (UINT32_MAX:
                                 * none; fee mechanisms count one with priority 0 too) */
    double thresh_win;          /* the lowest fired one (fee mechanisms: whenever one fired) */
    double fee_weight;          /* this agent's W(actor) in the previous block as a fraction
                                 * (eip1559, its last candidate; 1 otherwise) */
    double lane_left;           /* previous block: lane cycles left unused */
    double fires_left;          /* previous block: fires left under max_fires_per_block
                                 * (INFINITY when it is 0 = off) */
    double bias0;               /* Bias(0) = bias_scale (bias mechanisms), a timer's Bias in its due block */
    double lambda;              /* bias mechanisms: the lambda this block's clearing uses (Bias(n) =
                                 * bias0 e^(n lambda), CIP-5 §9.2); 0 otherwise */
    int reserve_gate;           /* bias mechanisms: 1 when a bid below the reserve cannot win
                                 * (reserve_mode bid-gate, N16), 0 when the reserve floors the
                                 * payment (payment-floor, the default, N59) */
    uint64_t fire_cycles;       /* gas_limit of a request that states none (max_cycles_per_fire) */
} cs_obs_t;

/* A timer an agent wants scheduled. */
typedef struct cs_timer_req {
    uint32_t actor;            /* which of the agent's actors (0..n_actors-1) */
    uint8_t kind;              /* cs_timer_kind: HEIGHT, INTERVAL, WATCH */
    uint64_t delay;            /* due = current height + delay (>= 1) */
    uint32_t every_blocks;     /* INTERVAL period */
    const char *watch_key;     /* WATCH: the key (NUL-terminated) */
    uint32_t payload_len;      /* synthetic payload bytes (cells metering) */
    uint64_t gas_limit;        /* 0 = mechanism default */
    uint64_t cycles_used;      /* what the handler will use (<= gas_limit) */
    uint64_t ttl;              /* expires_at = due + ttl; 0 = none */
    int has_bid;               /* bias/score mechanisms: bid given */
    double bid;                /* bid per fire, base units */
    int has_fees;              /* fee mechanisms: explicit fees */
    double max_fee;            /* max_fee_per_cycle */
    double max_prio;           /* max_priority_fee_per_cycle */
    uint8_t tier;              /* cs_ptier hint (priority_tier agents) */
    double value;              /* private value of a fire at zero delay */
    double decay;              /* value lost per block of delay (linear) */
    uint64_t deadline;         /* value is 0 after this many blocks of delay (0 = none) */
    uint32_t tag;              /* agent-private tag returned in callbacks */
    /* Engine only (over_cap split, DESIGN-NOTES N86; an agent's values are
     * ignored): work still to run after this piece, and the first piece's
     * due height (0 = this is the first). */
    uint64_t split_rem, split_due;
} cs_timer_req_t;

/* A timer of this agent as the engine reports it back. */
typedef struct cs_timer_info {
    cs_hash_t id;              /* timer_id */
    uint32_t actor;            /* the agent's actor index */
    uint32_t tag;              /* from the request */
    uint64_t due_height;       /* due height */
    uint64_t sched_height;     /* scheduled at */
    double value, decay;       /* from the request */
    uint64_t deadline;
    uint64_t gas_limit;
    uint64_t cycles_used;
    /* Fee mechanisms, filled only for the GBA call at fire time of a
     * value-aware agent or one with a strategy: */
    double fire_value;         /* value of the fire now (value model at this delay) */
    double fire_cycles;        /* cycles its handler uses (>= 1) */
    double fire_fixed;         /* its cost besides max_fee: cells x basefee_cell + cycles x
                                * cycle basefee rate (D3) */
    int has_fees;              /* the request stated max_fee / max_prio */
    double max_fee, max_prio;  /* those, per cycle */
    double dflt_fee, dflt_prio;/* what the default GBA would set (CIP-1 rev §7.1, §7.3) */
    double fire_budget;        /* most max_fee per cycle with which the fire's cost stays
                                * <= its value now: (fire_value - fire_fixed) / fire_cycles
                                * (may be < 0) */
} cs_timer_info_t;

/* The competing price the bidder that is agent instance self observes: the
 * highest bid of the previous block's candidates that were not its own
 * (o->top_bid_other when it made the top bid itself). */
static inline double cs_obs_competing_of(const cs_obs_t *o, uint32_t self)
{
    return o->top_bid_agent == self ? o->top_bid_other : o->top_bid;
}

/* The clearing threshold the bidder that is agent instance self must beat:
 * o->thresh, or, when the highest deferred candidate was its own, the
 * lowest winner o->thresh_win (the one its timer would have had to
 * displace). */
static inline double cs_obs_threshold_of(const cs_obs_t *o, uint32_t self)
{
    return o->thresh_agent == self ? o->thresh_win : o->thresh;
}

#endif /* CS_OBS_H */
