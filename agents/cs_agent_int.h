/*
 * cs_agent_int.h -- internals shared by the agent kinds (DESIGN §3).  Not
 * part of the public interface: only the agents/ sources include it.
 *
 * Every agent kind lives in its own agents/agent_<kind>.c and exports one
 * const ops table, cs__agent_<kind>; agents/cs_agent.c collects them into
 * cs_agent_registry in cs_agent_kind order.
 *
 * Random draws.  Helpers that draw say exactly how many variates they take
 * from the generator, so each kind can keep the fixed per-block draw
 * pattern that makes arrivals identical across mechanisms (common random
 * numbers, DESIGN §2.7).  Nothing here draws conditionally on an outcome.
 */
#ifndef CS_AGENT_INT_H
#define CS_AGENT_INT_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

#include "cs_agent.h"
#include "cs_draw.h"

/* The ops table of every kind, defined in agents/agent_<kind>.c. */
extern const cs_agent_ops_t cs__agent_default_gba;
extern const cs_agent_ops_t cs__agent_priority_tier;
extern const cs_agent_ops_t cs__agent_liquidation_bot;
extern const cs_agent_ops_t cs__agent_oracle;
extern const cs_agent_ops_t cs__agent_heartbeat;
extern const cs_agent_ops_t cs__agent_subscription;
extern const cs_agent_ops_t cs__agent_spammer;
extern const cs_agent_ops_t cs__agent_fragmenter;
extern const cs_agent_ops_t cs__agent_fp_best_response;
extern const cs_agent_ops_t cs__agent_waiting_game;
extern const cs_agent_ops_t cs__agent_affine_user;
extern const cs_agent_ops_t cs__agent_watcher;
extern const cs_agent_ops_t cs__agent_demand_curve;

/* The family (cs__mclass, cs_obs.h) of the mechanism named m (NULL counts
 * as CS__MC_NONE). */
int cs__agent_mclass(const char *m);

/* The family of o->mechanism, resolved once per mechanism name (the
 * engine's name lives for the run) and kept in a, instead of comparing
 * strings for every agent every block (issue 26 point 3). */
static inline int cs__agent_mc(cs_agent_t *a, const cs_obs_t *o)
{
    if (CS_LIKELY(o->mechanism == a->mc_name)) return a->mc;
    a->mc = cs__agent_mclass(o->mechanism);
    a->mc_name = o->mechanism;
    return a->mc;
}

/*
 * Parameter-table rows shared by the Poisson-arrival kinds, as an X-macro:
 * X(ID, "name", default, min, max, "doc").  A kind lists them first, so
 * their values sit at a->params[CS__AR_*].  The defaults are the caller's.
 */
#define CS__ARRIVAL_ROWS(X, d_rate, d_delay, d_value, d_sigma, d_decay, d_deadline, d_gas, d_frac, \
                         d_payload)                                                                \
    X(RATE, "rate", d_rate, 0, 10000, "mean arrivals per block (Poisson; times the demand multiplier)") \
    X(DELAY_MEAN, "delay_mean", d_delay, 1, 10000000,                                              \
      "mean delay in blocks from scheduling to due height (geometric on 1, 2, ...)")              \
    X(VALUE, "value", d_value, 0, 1e15, "mean value of a fire at zero delay, base units (lognormal)") \
    X(VALUE_SIGMA, "value_sigma", d_sigma, 0, 5, "log-standard deviation of the value")             \
    X(DECAY_FRAC, "decay_frac", d_decay, 0, 1, "share of the zero-delay value lost per block of delay") \
    X(DEADLINE, "deadline", d_deadline, 0, 10000000, "value is 0 beyond this delay in blocks; 0 = none") \
    X(GAS_LIMIT, "gas_limit", d_gas, 1, 1e9, "gas limit per fire, cycles")                         \
    X(CYCLES_FRAC, "cycles_frac", d_frac, 0, 1, "mean share of gas_limit the handler uses")         \
    X(CYCLES_JITTER, "cycles_jitter", 0.2, 0, 1, "relative half-width of the uniform noise on cycles used") \
    X(PAYLOAD_LEN, "payload_len", d_payload, 0, 1048576, "payload bytes (cells metering)")         \
    X(TTL, "ttl", 0, 0, 1e9, "blocks after the due height at which the timer expires; 0 = none")

/* Indices of the shared rows when a kind lists them first. */
enum {
    CS__AR_RATE = 0,
    CS__AR_DELAY_MEAN,
    CS__AR_VALUE,
    CS__AR_VALUE_SIGMA,
    CS__AR_DECAY_FRAC,
    CS__AR_DEADLINE,
    CS__AR_GAS_LIMIT,
    CS__AR_CYCLES_FRAC,
    CS__AR_CYCLES_JITTER,
    CS__AR_PAYLOAD_LEN,
    CS__AR_TTL,
    CS__AR__COUNT
};

/* Helpers for the per-file X-macro parameter lists. */
#define CS__P_ENUM(id, name, def, mn, mx, doc) P_##id,
#define CS__P_ROW(id, nm, df, mn, mx, dc) {.name = nm, .def = df, .min = mn, .max = mx, .doc = dc},

/*
 * Round x >= 0 to the nearest integer, halves away from zero (llround),
 * clamped to [0, 2^62]; NaN gives 0.  Without the library call: for
 * 0 < x < 2^62 the conversion t = (uint64_t)x truncates exactly, (double)t
 * is exact, and x - t is exact (x itself when t = 0, else Sterbenz's lemma
 * as t <= x < 2t), so rounding up iff x - t >= 1/2 is llround's result
 * (compared with llround in tests/test_agent_draws.c).
 */
static inline uint64_t cs__agent_u64(double x)
{
    if (!(x > 0.0)) return 0;
    if (x >= 4611686018427387904.0) return (uint64_t)1 << 62;
    uint64_t t = (uint64_t)x;
    return t + (x - (double)t >= 0.5);
}

/* A zeroed HEIGHT request for actor 0. */
void cs__agent_req_zero(cs_timer_req_t *q);

/*
 * Cycles model: gas_limit = round(gas) (at least 1), and cycles_used =
 * round(gas_limit * clip(frac * (1 + jitter * (2u - 1)), 0, 1)) with u
 * uniform on [0, 1), so cycles_used <= gas_limit always.  Draws exactly one
 * uniform.  Fills q->gas_limit and q->cycles_used.
 */
static inline void cs__agent_cycles_at(double u, double gas, double frac, double jitter, cs_timer_req_t *q);
static inline void cs__agent_cycles(gsl_rng *r, double gas, double frac, double jitter, cs_timer_req_t *q)
{
    cs__agent_cycles_at(cs_draw_uniform(r), gas, frac, jitter, q);
}

/* The same model for a uniform u drawn earlier (no draw). */
static inline void cs__agent_cycles_at(double u, double gas, double frac, double jitter, cs_timer_req_t *q)
{
    uint64_t gl = cs__agent_u64(gas);
    if (gl == 0) gl = 1;
    double f = frac * (1.0 + jitter * (2.0 * u - 1.0));
    if (f < 0.0) f = 0.0;
    if (f > 1.0) f = 1.0;
    uint64_t used = cs__agent_u64((double)gl * f);
    q->gas_limit = gl;
    q->cycles_used = used > gl ? gl : used;
}

/* The same model without a draw: u = 1/2 (cycles_used = gas * frac). */
void cs__agent_cycles_fixed(double gas, double frac, cs_timer_req_t *q);

/*
 * A lognormal draw with the given mean and log-sd: exp(zeta + sigma * z)
 * with zeta = ln(mean) - sigma^2 / 2, so E = mean.  Draws exactly one
 * variate (gsl_ran_lognormal); returns 0 when mean <= 0 (still drawing).
 */
double cs__agent_lognormal(gsl_rng *r, double mean, double sigma);

/* gsl_ran_geometric(r, p) and gsl_ran_poisson(r, mu): the same variates
 * from the same stream (the same uniforms and operations), with log(1 - p)
 * and e^-mu kept from the previous call when p or mu is the same (a
 * thread's last values: every agent of a kind usually draws with the same
 * parameter, so the logarithm and the exponential are computed once
 * instead of once per draw).  Inline, with the uniforms of cs_draw.h. */
extern _Thread_local double cs__geo_p, cs__geo_lq, cs__poi_mu, cs__poi_emu;

/* The geometric variate for the uniform u on (0, 1) it draws. */
static inline unsigned cs__agent_geometric_at(double u, double p)
{
    /* Inversion, the same operations as gsl_ran_geometric so the same
     * stream gives the same variates (tests/test_agent_draws.c compares them):
     * k = floor(log(u) / log(1 - p) + 1) for u uniform on (0, 1). */
    if (p == 1) return 1;
    if (p != cs__geo_p) {
        cs__geo_lq = log(1 - p);
        cs__geo_p = p;
    }
    return (unsigned)(log(u) / cs__geo_lq + 1);
}

static inline unsigned cs__agent_geometric(gsl_rng *r, double p)
{
    return cs__agent_geometric_at(cs_draw_uniform_pos(r), p);
}

static inline unsigned cs__agent_poisson(gsl_rng *r, double mu)
{
    /* Above 10 GSL first reduces mu with gamma and binomial draws. */
    if (!(mu <= 10.0)) return gsl_ran_poisson(r, mu);
    /* Multiplication of uniforms until the product falls to e^-mu, the
     * same operations as gsl_ran_poisson's small-mean branch (compared in
     * tests/test_agent_draws.c). */
    if (mu != cs__poi_mu) {
        cs__poi_emu = exp(-mu);
        cs__poi_mu = mu;
    }
    double prod = 1.0;
    unsigned k = 0;
    do {
        prod *= cs_draw_uniform(r);
        k++;
    } while (prod > cs__poi_emu);
    return k - 1;
}

/* A geometric delay on {1, 2, ...} with the given mean >= 1 (p = 1/mean).
 * Draws exactly one variate (cs__agent_geometric). */
static inline uint64_t cs__agent_geom_delay_at(double u, double mean);
static inline uint64_t cs__agent_geom_delay(gsl_rng *r, double mean)
{
    return cs__agent_geom_delay_at(cs_draw_uniform_pos(r), mean);
}

/* The same delay for the uniform u on (0, 1) it draws. */
static inline uint64_t cs__agent_geom_delay_at(double u, double mean)
{
    double p = mean > 1.0 ? 1.0 / mean : 1.0;
    unsigned k = cs__agent_geometric_at(u, p);
    return k ? (uint64_t)k : 1u;
}

/*
 * Distribution-aware draws (cs_dist.h).  When parameter k of a holds a
 * distribution object the quantity is drawn from it and clipped to the
 * parameter's [min, max]; otherwise the kind's default family applies with
 * the scalar as its mean.  Either way every draw comes from a->rng and the
 * number of variates depends on the stream and the parameters only.
 */

/* 1 and *x = the clipped draw when parameter k is a distribution (draws
 * once from it), else 0 without drawing. */
static inline int cs__agent_is_dist(const cs_agent_t *a, size_t k)
{
    return a->dists != NULL && a->dists[k].kind != CS_DIST_NONE;
}

static inline int cs__agent_dist(const cs_agent_t *a, size_t k, double *x)
{
    if (!cs__agent_is_dist(a, k)) return 0;
    double v = cs_dist_draw_inline(&a->dists[k], a->rng);
    const cs_agent_param_t *pr = &a->ops->params[k];
    if (!(v >= pr->min)) v = pr->min; /* NaN too */
    if (v > pr->max) v = pr->max;
    *x = v;
    return 1;
}

/* Arrivals this block: distribution -> round(draw x demand_mult); scalar ->
 * Poisson(params[k] x demand_mult) (cs__agent_poisson). */
static inline unsigned cs__agent_count(const cs_agent_t *a, size_t k, const cs_obs_t *o)
{
    double x;
    if (cs__agent_dist(a, k, &x)) return (unsigned)cs__agent_u64(x * o->demand_mult);
    double mu = a->params[k] * o->demand_mult;
    if (!(mu > 0.0)) mu = 0.0;
    return cs__agent_poisson(a->rng, mu);
}

/* A value: distribution -> the draw; scalar -> lognormal with mean
 * params[k] and log-sd params[k_sigma] (cs__agent_lognormal).  One draw. */
static inline double cs__agent_value(const cs_agent_t *a, size_t k, size_t k_sigma)
{
    double x;
    if (cs__agent_dist(a, k, &x)) return x;
    return cs__agent_lognormal(a->rng, a->params[k], a->params[k_sigma]);
}

/* A delay in blocks >= 1: distribution -> max(1, round(draw)); scalar ->
 * geometric with mean params[k] (cs__agent_geom_delay).  One draw. */
static inline uint64_t cs__agent_delay_of(const cs_agent_t *a, size_t k, double x);
static inline double cs__agent_delay_draw(const cs_agent_t *a, size_t k);
static inline uint64_t cs__agent_delay(const cs_agent_t *a, size_t k)
{
    return cs__agent_delay_of(a, k, cs__agent_delay_draw(a, k));
}

/* cs__agent_delay in two halves, so a caller can take the draw in its
 * place in the stream and compute the delay (a logarithm) only if it makes
 * the request: _draw takes the one draw (the clipped distribution value,
 * or the geometric's uniform on (0, 1)), _of turns it into the delay. */
static inline double cs__agent_delay_draw(const cs_agent_t *a, size_t k)
{
    double x;
    if (cs__agent_dist(a, k, &x)) return x;
    return cs_draw_uniform_pos(a->rng);
}

static inline uint64_t cs__agent_delay_of(const cs_agent_t *a, size_t k, double x)
{
    if (cs__agent_is_dist(a, k)) {
        uint64_t d = cs__agent_u64(x);
        return d ? d : 1u;
    }
    return cs__agent_geom_delay_at(x, a->params[k]);
}

/* Cycles: a distribution on the share (parameter k_frac) gives
 * cycles_used = round(gas_limit x draw) without jitter; a scalar share
 * uses cs__agent_cycles with params[k_jitter].  One draw. */
static inline double cs__agent_cycles_draw(const cs_agent_t *a, size_t k_frac);
static inline void cs__agent_cycles_set(const cs_agent_t *a, size_t k_gas, size_t k_frac, size_t k_jitter, double x,
                                        cs_timer_req_t *q);
static inline void cs__agent_cycles_of(const cs_agent_t *a, size_t k_gas, size_t k_frac, size_t k_jitter,
                                       cs_timer_req_t *q)
{
    cs__agent_cycles_set(a, k_gas, k_frac, k_jitter, cs__agent_cycles_draw(a, k_frac), q);
}

/* cs__agent_cycles_of in two halves, as the delay's: _draw takes the one
 * draw (the clipped share, or the jitter's uniform), _set fills q. */
static inline double cs__agent_cycles_draw(const cs_agent_t *a, size_t k_frac)
{
    double f;
    if (cs__agent_dist(a, k_frac, &f)) return f;
    return cs_draw_uniform(a->rng);
}

static inline void cs__agent_cycles_set(const cs_agent_t *a, size_t k_gas, size_t k_frac, size_t k_jitter, double x,
                                        cs_timer_req_t *q)
{
    if (cs__agent_is_dist(a, k_frac)) cs__agent_cycles_at(0.5, a->params[k_gas], x, 0.0, q);
    else cs__agent_cycles_at(x, a->params[k_gas], a->params[k_frac], a->params[k_jitter], q);
}

/*
 * One arrival of the shared model from the CS__ARRIVAL_ROWS parameters of
 * a: delay, value, cycles -- one draw each, in that order (distribution
 * or default family) -- then decay = value * decay_frac, deadline,
 * payload_len and ttl.  The request is HEIGHT, actor 0, unpriced.
 */
void cs__agent_arrival(const cs_agent_t *a, cs_timer_req_t *q);

/* The mean of parameter k: the distribution's closed-form mean, or the
 * scalar (also when the mean is infinite). */
double cs__agent_mean(const cs_agent_t *a, size_t k);

/*
 * Elastic entry of a value-aware agent (agents/README.md "Value-aware
 * fees"), for a request q built from draws already taken (so deciding
 * never changes the draw pattern).  With E = the expected cost of one fire
 * now -- fee mechanisms (basefee_cycle + basefee_lane + p50_tip) x
 * cycles_used + payload_len x basefee_cell; bid mechanisms the reserve
 * price; FIFO basefee_cycle x cycles_used + payload_len x basefee_cell --
 * returns 1 (schedule) iff q->value > E and the actor's balance covers E;
 * always 1 when a is not value-aware.
 */
int cs__agent_enters(cs_agent_t *a, const cs_world_t *w, const cs_obs_t *o, const cs_timer_req_t *q);

/* The dist_params list of the shared-arrival kinds. */
extern const char *const cs__arrival_dists[];

/*
 * Price q the default way for mechanism family mc: no fee params under fee
 * mechanisms (the default GBA prices it at fire time, CIP-1 rev §7.1);
 * under bid mechanisms a bid of bid_frac * value when bid_frac > 0, else
 * no bid (the timer relies on Bias, CIP-5 §9.7 "bid = 0").  No draws.
 */
void cs__agent_price_default(int mc, double bid_frac, cs_timer_req_t *q);

#endif /* CS_AGENT_INT_H */
