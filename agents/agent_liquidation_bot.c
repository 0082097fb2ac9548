/*
 * agent_liquidation_bot.c -- the "liquidation_bot" kind (DESIGN §3; the
 * overview spec's DeFi liquidation bot and its risk-tiered GBA, CIP-1 rev
 * §7.2 "submits an extreme tip when market volatility is high").
 *
 * Price process, one step per block, from the agent's own stream only and
 * always with the same five draws in this order, so it never depends on
 * mechanism outcomes (DESIGN §2.7):
 *   1. u_r ~ U[0,1): regime switch.  Calm (0) -> turbulent (1) when
 *      u_r < p_up; turbulent -> calm when u_r < p_down.
 *   2. z ~ N(0,1): diffusion.  sigma = (sigma_low | sigma_high) x vol_mult.
 *   3. k ~ Poisson(jump_rate): jumps this block.
 *   4. zj ~ N(0,1): the sum of k N(jump_mean, jump_sigma^2) log jumps is
 *      drawn exactly as k jump_mean + jump_sigma sqrt(k) zj.
 *   5. u_c ~ U[0,1): cycles of a check scheduled this block.
 *   log P += mu - sigma^2/2 + sigma z + k jump_mean + jump_sigma sqrt(k) zj
 *
 * Position.  At the first block the bot opens a position whose liquidation
 * price is L = liq_ratio x P.  Its risk is the probability that the log
 * price, moving with the current regime's sigma and no drift, touches ln L
 * within `horizon` blocks (reflection principle):
 *   risk = 2 Phi(-d / (sigma sqrt(horizon))),  d = ln(P / L);  risk = 1 if d <= 0.
 * When the price reaches L the position is liquidated and reopened at
 * L = liq_ratio x P (exogenous: it does not depend on whether a check fired).
 *
 * Checks.  The bot schedules a check timer check_delay blocks ahead when
 *   - risk >= check_risk and at least `cooldown` blocks have passed since
 *     its last check (the price nears the threshold), or
 *   - the height is a multiple of check_every (routine monitoring, "bots
 *     can use timers to regularly check positions"; 0 = off),
 * at most one per block.  A check's value is `value` when risk >=
 * check_risk, else value x routine_value_frac; it is high and decays fast:
 * value x exp(-decay_rate x delay), 0 beyond `deadline`.
 *
 * Pricing by risk tier (overview spec: risk > 0.9 ultra-aggressive, > 0.7
 * aggressive, else normal), tier multiplier m = mult_ultra | mult_aggressive | 1:
 *   fee mechanisms, custom GBA at fire time (CIP-1 rev §7.2):
 *     max_prio = max(p50_tip, prio_floor) x m,
 *     max_fee  = headroom x basefee_lane + max_prio;
 *   bid mechanisms (bid hook, at scheduling): bid = value x min(1, bid_frac x m).
 * Both use the risk of the current block, so they rise with volatility.
 *
 * Elastic entry (value-aware): a check is scheduled only when its value
 * (what acting on the position is worth: `value`, or the routine share)
 * exceeds the expected cost of a fire at the observed prices
 * (cs__agent_enters); a skipped check does not count as the last check,
 * so a risk-triggered one is tried again at the next block.
 */
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "cs_agent_int.h"

#define LB_PARAMS(X)                                                                            \
    X(PRICE0, "price0", 1000, 1e-9, 1e15, "initial price")                                      \
    X(MU, "mu", 0, -0.1, 0.1, "drift of the log price per block")                               \
    X(SIGMA_LOW, "sigma_low", 0.001, 0, 1, "volatility of the log price per block, calm regime") \
    X(SIGMA_HIGH, "sigma_high", 0.006, 0, 1, "volatility of the log price per block, turbulent regime") \
    X(P_UP, "p_up", 0.002, 0, 1, "probability per block of switching calm -> turbulent")        \
    X(P_DOWN, "p_down", 0.02, 0, 1, "probability per block of switching turbulent -> calm")     \
    X(REGIME0, "regime0", 0, 0, 1, "regime at the first block: 0 calm, 1 turbulent")             \
    X(JUMP_RATE, "jump_rate", 0.002, 0, 10, "mean price jumps per block (Poisson)")             \
    X(JUMP_MEAN, "jump_mean", -0.02, -1, 1, "mean log size of a jump")                          \
    X(JUMP_SIGMA, "jump_sigma", 0.03, 0, 1, "standard deviation of the log size of a jump")     \
    X(LIQ_RATIO, "liq_ratio", 0.9, 0.01, 0.9999, "liquidation price as a share of the price when the position opened") \
    X(HORIZON, "horizon", 100, 1, 1e6, "blocks over which the liquidation risk is assessed")    \
    X(CHECK_RISK, "check_risk", 0.2, 0, 1, "risk at or above which a check is scheduled")       \
    X(COOLDOWN, "cooldown", 5, 1, 1e6, "minimum blocks from the last check to a risk-triggered one") \
    X(CHECK_DELAY, "check_delay", 1, 1, 1000, "delay of a check timer in blocks")               \
    X(CHECK_EVERY, "check_every", 30, 0, 1e6, "routine check at heights divisible by this; 0 = off") \
    X(VALUE, "value", 2e10, 0, 1e15, "value of a check at risk >= check_risk fired at zero delay, base units") \
    X(ROUTINE_VALUE_FRAC, "routine_value_frac", 0.05, 0, 1, "value of a routine check (risk < check_risk) as a share of value") \
    X(DECAY_RATE, "decay_rate", 0.5, 0, 100, "value x exp(-decay_rate x delay)")                \
    X(DEADLINE, "deadline", 3, 0, 1e6, "value is 0 beyond this delay in blocks; 0 = none")      \
    X(BID_FRAC, "bid_frac", 0.05, 0, 1, "bid mechanisms: bid = value x min(1, bid_frac x tier multiplier)") \
    X(PRIO_FLOOR, "prio_floor", 10, 0, 1e12, "fee mechanisms: tip per cycle used when the p50 tip is lower") \
    X(MULT_AGGR, "mult_aggressive", 3, 1, 1000, "tier multiplier at risk > 0.7")                \
    X(MULT_ULTRA, "mult_ultra", 10, 1, 1000, "tier multiplier at risk > 0.9")                   \
    X(HEADROOM, "headroom", 2, 1, 100, "fee mechanisms: max_fee = headroom x basefee_lane + max_prio") \
    X(GAS_LIMIT, "gas_limit", 200000, 1, 1e9, "gas limit per fire, cycles")                     \
    X(CYCLES_FRAC, "cycles_frac", 0.7, 0, 1, "mean share of gas_limit the handler uses")        \
    X(CYCLES_JITTER, "cycles_jitter", 0.2, 0, 1, "relative half-width of the uniform noise on cycles used") \
    X(PAYLOAD_LEN, "payload_len", 128, 0, 1048576, "payload bytes (cells metering)")            \
    X(TTL, "ttl", 0, 0, 1e9, "blocks after the due height at which the timer expires; 0 = none")

enum { LB_PARAMS(CS__P_ENUM) P__COUNT };
static const cs_agent_param_t lb_params[] = {LB_PARAMS(CS__P_ROW)};
CS_STATIC_ASSERT(sizeof lb_params / sizeof lb_params[0] == P__COUNT, "one row per parameter");

typedef struct lb_state {
    int opened;            /* a position exists (set at the first block) */
    int regime;            /* 0 calm, 1 turbulent */
    double logp;           /* log price */
    double log_liq;        /* log liquidation price of the open position */
    double sigma;          /* per-block sigma in force this block (regime x vol_mult) */
    double risk;           /* liquidation risk at this block, [0, 1] */
    int have_check;        /* a check was scheduled at least once */
    uint64_t last_check;   /* height of the last check */
    uint64_t checks;       /* checks scheduled (request tags) */
    uint64_t liquidations; /* times the price reached the liquidation price */
    uint64_t rejected;     /* schedule calls refused by the world */
    uint64_t skipped;      /* checks not worth their price (value-aware) */
} lb_state_t;

/* Start from price0 in regime regime0; the position opens at the first block. */
static int lb_init(cs_agent_t *a, cs_world_t *w)
{
    lb_state_t *s = a->state;
    (void)w;
    s->logp = log(a->params[P_PRICE0]);
    s->regime = a->params[P_REGIME0] >= 0.5 ? 1 : 0;
    return CS_OK;
}

/* Tier multiplier of a risk level (overview spec: > 0.9, > 0.7). */
static double lb_mult(const cs_agent_t *a, double risk)
{
    if (risk > 0.9) return a->params[P_MULT_ULTRA];
    if (risk > 0.7) return a->params[P_MULT_AGGR];
    return 1.0;
}

/* Risk of touching log_liq within the horizon (see the file comment). */
static double lb_risk(double logp, double log_liq, double sigma, double horizon)
{
    double d = logp - log_liq;
    if (!(d > 0.0)) return 1.0;
    double sd = sigma * sqrt(horizon);
    if (!(sd > 0.0)) return 0.0;
    double r = 2.0 * gsl_cdf_ugaussian_P(-d / sd);
    return r > 1.0 ? 1.0 : r;
}

/* Bid hook: under bid mechanisms bid = value x min(1, bid_frac x m) at the
 * current risk.  Idempotent (the engine may apply it again). */
static void lb_bid(cs_agent_t *a, const cs_obs_t *o, cs_timer_req_t *q)
{
    const lb_state_t *s = a->state;
    if (cs__agent_mc(a, o) != CS__MC_BID) return;
    double f = a->params[P_BID_FRAC] * lb_mult(a, s->risk);
    q->has_bid = 1;
    q->bid = q->value * (f < 1.0 ? f : 1.0);
}

/* One price step, the risk update, a check if due, then liquidation. */
static void lb_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    lb_state_t *s = a->state;
    const double *p = a->params;
    double u_r = gsl_rng_uniform(a->rng);
    double z = gsl_ran_gaussian(a->rng, 1.0);
    unsigned k = gsl_ran_poisson(a->rng, p[P_JUMP_RATE]);
    double zj = gsl_ran_gaussian(a->rng, 1.0);
    double u_c = gsl_rng_uniform(a->rng);

    if (s->regime == 0 && u_r < p[P_P_UP]) s->regime = 1;
    else if (s->regime == 1 && u_r < p[P_P_DOWN]) s->regime = 0;
    double sigma = (s->regime ? p[P_SIGMA_HIGH] : p[P_SIGMA_LOW]) * o->vol_mult;
    double kd = (double)k;
    s->logp += p[P_MU] - 0.5 * sigma * sigma + sigma * z + kd * p[P_JUMP_MEAN] +
               p[P_JUMP_SIGMA] * sqrt(kd) * zj;
    s->sigma = sigma;
    if (!s->opened) {
        s->log_liq = s->logp + log(p[P_LIQ_RATIO]);
        s->opened = 1;
    }
    s->risk = lb_risk(s->logp, s->log_liq, sigma, p[P_HORIZON]);

    uint64_t h = o->height;
    uint64_t cool = cs__agent_u64(p[P_COOLDOWN]), every = cs__agent_u64(p[P_CHECK_EVERY]);
    int risky = s->risk >= p[P_CHECK_RISK];
    int trig = risky && (!s->have_check || h - s->last_check >= cool);
    int routine = every != 0 && h % every == 0;
    if (trig || routine) {
        cs_timer_req_t q;
        cs__agent_req_zero(&q);
        q.delay = cs__agent_u64(p[P_CHECK_DELAY]);
        if (q.delay == 0) q.delay = 1;
        cs__agent_cycles_at(u_c, p[P_GAS_LIMIT], p[P_CYCLES_FRAC], p[P_CYCLES_JITTER], &q);
        q.value = risky ? p[P_VALUE] : p[P_VALUE] * p[P_ROUTINE_VALUE_FRAC];
        q.decay = q.value * (1.0 - exp(-p[P_DECAY_RATE])); /* first-block loss, for reference */
        q.deadline = cs__agent_u64(p[P_DEADLINE]);
        q.payload_len = (uint32_t)cs__agent_u64(p[P_PAYLOAD_LEN]);
        q.ttl = cs__agent_u64(p[P_TTL]);
        q.tag = (uint32_t)s->checks++;
        /* Fee mechanisms: no fee params at scheduling; lb_gba prices the
         * fire.  Bid mechanisms: the risk-tiered bid. */
        lb_bid(a, o, &q);
        if (!cs__agent_enters(a, w, o, &q)) { /* value-aware: not worth it now */
            s->skipped++;
        } else {
            s->have_check = 1;
            s->last_check = h;
            if (cs_world_schedule(w, a, &q, NULL) != CS_OK) s->rejected++;
        }
    }
    if (s->logp <= s->log_liq) {
        /* Liquidated: reopen below the current price. */
        s->liquidations++;
        s->log_liq = s->logp + log(p[P_LIQ_RATIO]);
    }
}

/* Custom GBA (CIP-1 rev §7.2), by risk tier at fire time. */
static int lb_gba(cs_agent_t *a, const cs_timer_info_t *t, const cs_obs_t *o, double *max_fee,
                  double *max_prio)
{
    const lb_state_t *s = a->state;
    (void)t;
    double base = o->p50_tip > a->params[P_PRIO_FLOOR] ? o->p50_tip : a->params[P_PRIO_FLOOR];
    *max_prio = base * lb_mult(a, s->risk);
    *max_fee = a->params[P_HEADROOM] * o->basefee_lane + *max_prio;
    return 1;
}

/* value x exp(-decay_rate x delay); 0 beyond a nonzero deadline. */
static double lb_value(const cs_agent_t *a, const cs_timer_info_t *t, uint64_t delay)
{
    if (t->deadline != 0 && delay > t->deadline) return 0.0;
    return t->value * exp(-a->params[P_DECAY_RATE] * (double)delay);
}

const cs_agent_ops_t cs__agent_liquidation_bot = {
    .name = "liquidation_bot",
    .version = 2,
    .kind = CS_AK_LIQUIDATION_BOT,
    .state_size = sizeof(lb_state_t),
    .params = lb_params,
    .n_params = P__COUNT,
    .init = lb_init,
    .on_block = lb_on_block,
    .gba = lb_gba,
    .bid = lb_bid,
    .value = lb_value,
};
