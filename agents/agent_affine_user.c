/*
 * agent_affine_user.c -- the "affine_user" kind (DESIGN §3): users with an
 * affine utility, value v minus a waiting cost c per block, who take part
 * only when the expected surplus is positive.
 *
 * Arrivals: Poisson(rate x demand_mult) potential users per block.  Each
 * draws, in this order and whether or not it joins: v (lognormal, mean
 * value), c (lognormal, mean wait_cost), a geometric delay and a cycles
 * uniform.  So the exogenous draws follow a fixed pattern; only the
 * decision reacts to what the user observes.
 *
 * Expectations, updated at the start of every block from the observation
 * (EMA with weight ema_alpha; the first block initialises them):
 *   expected utilisation  u  <- utilisation
 *   expected price per fire P <- clearing_price                       (bid mechanisms)
 *                              (basefee_lane + p50_tip) x E[cycles]  (fee mechanisms)
 *                              basefee_cycle x E[cycles]             (FIFO)
 *   with E[cycles] = gas_limit x cycles_frac;
 *   expected wait W = min(wait_cap, u / (1 - u))  (queueing heuristic; wait_cap if u >= 1).
 * A user joins iff v - c x W - P > 0.  A joining user's fire is worth
 * v - c x delay (the default linear value model with decay = c, no
 * deadline).  Under bid mechanisms it bids min(P x bid_markup, v - c x W);
 * under fee mechanisms the default GBA prices it.
 *
 * The options of the standard EIP-1559 agent-based model: a number for
 * expected_wait fixes W instead of estimating it (0: a user who will not
 * wait; the word "estimate", the default, estimates it as above), and fixed_tip > 0 makes every user
 * state max_prio = fixed_tip and max_fee = v / cycles_used per cycle, the
 * expected price then being (basefee_lane + fixed_tip) x E[cycles].
 */
#include "cs_agent_int.h"

#define AF_PARAMS(X)                                                                           \
    X(RATE, "rate", 0.5, 0, 10000, "mean potential users per block (Poisson; times the demand multiplier)") \
    X(VALUE, "value", 1e9, 0, 1e15, "mean value v of a fire at zero delay, base units (lognormal)") \
    X(VALUE_SIGMA, "value_sigma", 0.5, 0, 5, "log-standard deviation of v")                     \
    X(WAIT_COST, "wait_cost", 1e7, 0, 1e15, "mean waiting cost c per block of delay, base units (lognormal)") \
    X(WAIT_COST_SIGMA, "wait_cost_sigma", 0.5, 0, 5, "log-standard deviation of c")             \
    X(DELAY_MEAN, "delay_mean", 10, 1, 10000000, "mean delay in blocks from scheduling to due height (geometric)") \
    X(GAS_LIMIT, "gas_limit", 100000, 1, 1e9, "gas limit per fire, cycles")                     \
    X(CYCLES_FRAC, "cycles_frac", 0.6, 0, 1, "mean share of gas_limit the handler uses")        \
    X(CYCLES_JITTER, "cycles_jitter", 0.2, 0, 1, "relative half-width of the uniform noise on cycles used") \
    X(PAYLOAD_LEN, "payload_len", 64, 0, 1048576, "payload bytes (cells metering)")            \
    X(TTL, "ttl", 0, 0, 1e9, "blocks after the due height at which the timer expires; 0 = none") \
    X(EMA_ALPHA, "ema_alpha", 0.1, 0.0001, 1, "weight of the newest observation in the EMAs")   \
    X(WAIT_CAP, "wait_cap", 1000, 0, 1e9, "upper bound of the expected wait in blocks")         \
    X(BID_MARKUP, "bid_markup", 1.1, 1, 100, "bid mechanisms: bid min(expected price x bid_markup, v - c x W)") \
    X(EXPECTED_WAIT, "expected_wait", CS_AGENT_PARAM_WORD, 0, 1e9, "fixed expected wait W in blocks (0 = a user who will not wait); \"estimate\" = estimate it from utilisation") \
    X(FIXED_TIP, "fixed_tip", 0, 0, 1e12, "fee mechanisms: state this priority fee per cycle (max_fee = v per cycle used); 0 = default GBA")

enum { AF_PARAMS(CS__P_ENUM) P__COUNT };
/* The rows of CS__P_ROW, with expected_wait's word "estimate". */
#define AF_ROW(id, nm, df, mn, mx, dc) \
    {.name = nm, .def = df, .min = mn, .max = mx, .doc = dc, .word = P_##id == P_EXPECTED_WAIT ? "estimate" : NULL},
static const cs_agent_param_t af_params[] = {AF_PARAMS(AF_ROW)};
CS_STATIC_ASSERT(sizeof af_params / sizeof af_params[0] == P__COUNT, "one row per parameter");

static const char *const af_dists[] = {"rate", "value", "wait_cost", "delay_mean", "cycles_frac", NULL};

typedef struct af_state {
    int have_ema;       /* the EMAs hold an observation */
    double cyc;         /* E[cycles] = gas_limit x mean(cycles_frac), set with the first EMA
                         * (parameters do not change during a run) */
    double ema_u;       /* expected utilisation */
    double ema_p;       /* expected price per fire, base units */
    uint64_t arrivals;  /* potential users drawn */
    uint64_t joined;    /* users who scheduled */
    uint64_t abstained; /* users who stayed out */
    uint64_t rejected;  /* schedule calls refused by the world */
} af_state_t;

/* The observed price per fire for mechanism family mc (see above), with
 * cyc = E[cycles]. */
static double af_price_obs(const cs_agent_t *a, double cyc, int mc, const cs_obs_t *o)
{
    double tip = a->params[P_FIXED_TIP] > 0 ? a->params[P_FIXED_TIP] : o->p50_tip;
    if (mc == CS__MC_BID) return o->clearing_price;
    if (mc == CS__MC_FEE) return (o->basefee_lane + tip) * cyc;
    return o->basefee_cycle * cyc;
}

/* Expected wait in blocks from the utilisation EMA. */
static double af_wait(const double *p, double u)
{
    double cap = p[P_WAIT_CAP];
    if (u >= 1.0) return cap;
    if (u <= 0.0) return 0.0;
    double wt = u / (1.0 - u);
    return wt < cap ? wt : cap;
}

/* Update the EMAs, then let each potential user decide. */
static void af_on_block(cs_agent_t *a, cs_world_t *w, const cs_obs_t *o)
{
    af_state_t *s = a->state;
    const double *p = a->params;
    int mc = cs__agent_mc(a, o);
    if (!s->have_ema) s->cyc = p[P_GAS_LIMIT] * cs__agent_mean(a, P_CYCLES_FRAC);
    double al = p[P_EMA_ALPHA], pobs = af_price_obs(a, s->cyc, mc, o);
    if (!s->have_ema) {
        s->ema_u = o->utilisation;
        s->ema_p = pobs;
        s->have_ema = 1;
    } else {
        s->ema_u = (1.0 - al) * s->ema_u + al * o->utilisation;
        s->ema_p = (1.0 - al) * s->ema_p + al * pobs;
    }
    /* expected_wait: a number fixes W (0: the user will not wait); the
     * word "estimate" (CS_AGENT_PARAM_WORD, the default) estimates it. */
    double wait = p[P_EXPECTED_WAIT] == CS_AGENT_PARAM_WORD ? af_wait(p, s->ema_u) : p[P_EXPECTED_WAIT];
    unsigned n = cs__agent_count(a, P_RATE, o);
    /* Every potential user takes its four draws; the delay and the cycles
     * are computed from theirs, and the request built, only when it joins
     * (most abstain under congestion). */
    cs_timer_req_t q;
    for (unsigned i = 0; i < n; i++) {
        double v = cs__agent_value(a, P_VALUE, P_VALUE_SIGMA);
        double c = cs__agent_value(a, P_WAIT_COST, P_WAIT_COST_SIGMA);
        double xd = cs__agent_delay_draw(a, P_DELAY_MEAN);
        double xc = cs__agent_cycles_draw(a, P_CYCLES_FRAC);
        s->arrivals++;
        double surplus = v - c * wait;
        if (!(surplus - s->ema_p > 0.0)) {
            s->abstained++;
            continue;
        }
        cs__agent_req_zero(&q);
        q.delay = cs__agent_delay_of(a, P_DELAY_MEAN, xd);
        cs__agent_cycles_set(a, P_GAS_LIMIT, P_CYCLES_FRAC, P_CYCLES_JITTER, xc, &q);
        q.value = v;
        q.decay = c;
        q.payload_len = (uint32_t)cs__agent_u64(p[P_PAYLOAD_LEN]);
        q.ttl = cs__agent_u64(p[P_TTL]);
        if (mc == CS__MC_BID) {
            double b = s->ema_p * p[P_BID_MARKUP];
            q.has_bid = 1;
            q.bid = b < surplus ? b : surplus;
        } else if (mc == CS__MC_FEE && p[P_FIXED_TIP] > 0) {
            q.has_fees = 1;
            q.max_prio = p[P_FIXED_TIP];
            q.max_fee = v / (double)(q.cycles_used ? q.cycles_used : 1);
        }
        q.tag = (uint32_t)s->joined++;
        if (cs_world_schedule(w, a, &q, NULL) != CS_OK) s->rejected++;
    }
}

const cs_agent_ops_t cs__agent_affine_user = {
    .name = "affine_user",
    .version = 3,
    .kind = CS_AK_AFFINE_USER,
    .state_size = sizeof(af_state_t),
    .params = af_params,
    .n_params = P__COUNT,
    .dist_params = af_dists,
    .on_block = af_on_block,
};
