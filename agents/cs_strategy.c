/*
 * cs_strategy.c -- bidding strategies (cs_strategy.h, agents/README.md
 * "Strategies").
 */
#include "cs_strategy.h"
#include "cs_strategy_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_integration.h>

#include "cs_error.h"

#define CS__SR_PEND 256    /* learning: timers awaiting their block's outcome */
#define CS__SW_ROUNDS 64   /* learning_wait: timers followed at once */
#define CS__SW_HORIZON 256 /* learning_wait: most blocks a timer is followed past its due height */

const char *const cs_strategy_names[CS_STRAT__COUNT] = {
    "", "fixed_share", "truthful", "best_response", "shade", "learning", "learning_wait", "wait_response",
    "learning_value",
};

/* A learner's round, judged when block due + 1 starts against block due's
 * outcome: bid mechanisms record it when the timer is scheduled (due = its
 * due height), fee mechanisms each time the GBA prices it (due = the block
 * being built).  v is its value (fee mechanisms: the fire's value now),
 * cycles its gas_limit (bid) or the cycles its handler uses (fee). */
typedef struct cs__sr_pend {
    uint64_t due;
    double v;
    double cycles;
    double fixed;   /* fee mechanisms: the fire's cost besides max_fee (fire_fixed) */
    double bf;      /* fee mechanisms: the lane basefee per cycle of block due */
    double gas;     /* fee mechanisms: its gas_limit (what the lane budget counts) */
    int paused;     /* fee mechanisms: the lane was paused in block due (nothing fires) */
    int valid;      /* fee mechanisms: the fees it was given reached the basefee */
    size_t k;       /* the multiplier played (bandit feedback) */
    double pk;      /* its probability when played */
} cs__sr_pend_t;

/* A learning_wait round: one timer under bias-*, followed from its due
 * height until every action has fired or its horizon has passed. */
typedef struct cs__sw_round {
    cs_strat_wait_env_t e;              /* the timer (e.T unused: each block's own threshold) */
    uint64_t due;                       /* its due height */
    uint64_t open;                      /* bit k: action k has not fired yet */
    size_t k;                           /* the action played */
    double pk;                          /* its probability when played */
    double u[CS_STRAT_MAX_GRID];        /* utility of each action that fired (0 until then) */
} cs__sw_round_t;

struct cs_strat_state {
    gsl_rng *rng;                       /* the strategy's own stream */
    cs__sw_round_t *rw;                 /* learning_wait: its rounds (CS__SW_ROUNDS) */
    cs__sv_t *sv;                       /* learning_value: its buckets and rounds */
    size_t nw;
    double logw[CS_STRAT_MAX_GRID];     /* learning: log weights */
    cs__sr_pend_t pend[CS__SR_PEND];    /* learning: timers to learn from */
    size_t np;
    cs_dist_t vd;                       /* shade: the value distribution it knows
                                         * (a shallow copy; never cleared) */
    gsl_integration_workspace *iw;      /* shade: integration workspace */
};

int cs_strategy_find(const char *name)
{
    if (name == NULL) return CS_STRAT_NONE;
    if (strcmp(name, "due-block") == 0) return CS_STRAT_LEARNING;
    for (int k = 1; k < CS_STRAT__COUNT; k++)
        if (strcmp(cs_strategy_names[k], name) == 0) return k;
    return CS_STRAT_NONE;
}

int cs_strat_new(const cs_strategy_t *s, const cs_dist_t *vd, gsl_rng *rng, struct cs_strat_state **out)
{
    *out = NULL;
    if (s == NULL || s->kind == CS_STRAT_NONE) {
        if (rng) gsl_rng_free(rng);
        return CS_OK;
    }
    struct cs_strat_state *ss = calloc(1, sizeof *ss);
    if (ss == NULL) {
        if (rng) gsl_rng_free(rng);
        return CS_ENOMEM;
    }
    ss->rng = rng;
    if (s->kind == CS_STRAT_SHADE) ss->iw = gsl_integration_workspace_alloc(256);
    if (s->kind == CS_STRAT_LEARNING_WAIT) ss->rw = calloc(CS__SW_ROUNDS, sizeof *ss->rw);
    int sv_rc = s->kind == CS_STRAT_LEARNING_VALUE ? cs__sv_new(s, vd, &ss->sv) : CS_OK;
    if (ss->rng == NULL || (s->kind == CS_STRAT_SHADE && ss->iw == NULL) ||
        (s->kind == CS_STRAT_LEARNING_WAIT && ss->rw == NULL) || sv_rc != CS_OK) {
        if (ss->rng) gsl_rng_free(ss->rng);
        if (ss->iw) gsl_integration_workspace_free(ss->iw);
        free(ss->rw);
        cs__sv_free(ss->sv);
        free(ss);
        return CS_ENOMEM;
    }
    if (s->kind == CS_STRAT_SHADE) ss->vd = *vd;
    *out = ss;
    return CS_OK;
}

void cs_strat_free(struct cs_strat_state *ss)
{
    if (ss == NULL) return;
    gsl_rng_free(ss->rng);
    if (ss->iw) gsl_integration_workspace_free(ss->iw);
    free(ss->rw);
    cs__sv_free(ss->sv);
    free(ss);
}

/* ------------------------------------------------------------ shading */

typedef struct cs__sr_int {
    const cs_dist_t *d;
    double pw; /* n - 1 */
} cs__sr_int_t;

static double cs__sr_fpow(double x, void *arg)
{
    const cs__sr_int_t *q = arg;
    return pow(cs_dist_cdf(q->d, x), q->pw);
}

/* integral_lo^v F(x)^(n-1) dx for d, with workspace w (NULL: allocate). */
static double cs__sr_integral(const cs_dist_t *d, uint32_t n, double lo, double v, gsl_integration_workspace *w)
{
    if (d->kind == CS_DIST_EMPIRICAL) {
        /* F is a step function, F = cum[i] on [sorted[i], sorted[i + 1]):
         * sum over the steps below v exactly (no allocation). */
        double s = 0;
        for (size_t i = 0; d->sorted && i < d->n && d->sorted[i] < v; i++) {
            double hi = i + 1 < d->n && d->sorted[i + 1] < v ? d->sorted[i + 1] : v;
            s += pow(d->cum[i], (double)(n - 1)) * (hi - d->sorted[i]);
        }
        return s;
    }
    gsl_integration_workspace *ww = w ? w : gsl_integration_workspace_alloc(256);
    if (ww == NULL) return 0.0;
    cs__sr_int_t q = {d, (double)(n - 1)};
    gsl_function f = {cs__sr_fpow, &q};
    double r = 0, err = 0;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_integration_qags(&f, lo, v, 0.0, 1e-10, 256, ww, &r, &err);
    gsl_set_error_handler(old);
    if (ww != w) gsl_integration_workspace_free(ww);
    return r;
}

/* beta(v) with an optional workspace (cs_strategy.h). */
static double cs__sr_shade(const cs_dist_t *d, uint32_t n, double v, gsl_integration_workspace *w)
{
    double lo, hi;
    if (n < 2) return v;
    cs_dist_support(d, &lo, &hi);
    if (d->kind == CS_DIST_CONSTANT || v <= lo) return v;
    if (d->kind == CS_DIST_UNIFORM) { /* closed form */
        double x = v > hi ? hi : v;
        return lo + (double)(n - 1) * (x - lo) / (double)n + (v - x);
    }
    double fv = pow(cs_dist_cdf(d, v), (double)(n - 1));
    if (!(fv > 0.0)) return lo > 0.0 ? lo : 0.0;
    double b = v - cs__sr_integral(d, n, lo > 0.0 ? lo : 0.0, v, w) / fv;
    return b > 0.0 ? b : 0.0;
}

double cs_strategy_shade(const cs_dist_t *d, uint32_t n, double v) { return cs__sr_shade(d, n, v, NULL); }

/* ------------------------------------------------------------ learning */

/* p[k] proportional to exp(logw[k]) for the grid of s. */
static void cs__sr_probs(const struct cs_strat_state *ss, const cs_strategy_t *s, double *p)
{
    double mx = ss->logw[0], z = 0;
    for (size_t k = 1; k < s->n_grid; k++)
        if (ss->logw[k] > mx) mx = ss->logw[k];
    for (size_t k = 0; k < s->n_grid; k++) z += p[k] = exp(ss->logw[k] - mx);
    for (size_t k = 0; k < s->n_grid; k++) p[k] /= z;
}

/* 1 for the kinds that learn weights over a grid of multipliers. */
static int cs__sr_learns(const cs_strategy_t *s)
{
    return s != NULL &&
           (s->kind == CS_STRAT_LEARNING || s->kind == CS_STRAT_LEARNING_WAIT || s->kind == CS_STRAT_LEARNING_VALUE);
}

size_t cs_strat_probs(const cs_strategy_t *s, const struct cs_strat_state *ss, double *p, size_t cap)
{
    if (!cs__sr_learns(s) || cap < s->n_grid) return 0;
    cs__sr_probs(ss, s, p);
    return s->n_grid;
}

size_t cs_strat_probs_at(const cs_strategy_t *s, const struct cs_strat_state *ss, double v, double *p, size_t cap)
{
    if (s == NULL || s->kind != CS_STRAT_LEARNING_VALUE || ss == NULL) return cs_strat_probs(s, ss, p, cap);
    if (cap < s->n_grid) return 0;
    cs__sv_probs(s, ss->sv, v, p);
    return s->n_grid;
}

/* Fee mechanisms: the fees of multiplier k for a fire of value v, fixed
 * cost fixed and cycles cyc at lane basefee bf: max_fee = B(k) =
 * max(0, (k v - fixed) / cyc), the most per cycle that keeps the fire's
 * cost within k v, and max_prio = max(0, B(k) - bf). */
static void cs__sr_rates(double k, double v, double fixed, double cyc, double bf, double *fee, double *prio)
{
    double b = (k * v - fixed) / cyc;
    if (!(b > 0)) b = 0;
    *fee = b;
    *prio = b - bf > 0 ? b - bf : 0;
}

/* Record a round (dropped when CS__SR_PEND are already waiting). */
static void cs__sr_push(struct cs_strat_state *ss, const cs__sr_pend_t *pd)
{
    if (ss->np < CS__SR_PEND) ss->pend[ss->np++] = *pd;
}

/*
 * Hedge with full information.  A round due at height h is judged when
 * block h + 1 starts, against block h's outcome: every multiplier m gets a
 * reward r(m) <= 1, the utility it would have realised normalised by the
 * value, and logw += eta r(m).  With bandit feedback (EXP3) only the
 * multiplier k played is judged, with the probability p_k it had when
 * played: logw[k] -= eta (1 - r(k)) / p_k, the importance-weighted loss
 * (an unbiased estimate of every multiplier's loss, the others' being 0).
 * Bid mechanisms (a timer of value v due at h): r(m) = (1 - m) [m wins],
 * the utility of a first-price win.
 *   bias-vcg, bias-fp: m wins iff m v >= reserve (CIP-5 §9.5, N16) and its
 *     priority per cycle beats the block's clearing threshold T
 *     (cs_obs_threshold_of: the highest priority per cycle among the
 *     candidates deferred on the budget or the block quota, or the lowest
 *     winner's when that candidate was its own; 0 if none was deferred):
 *     (m v + Bias(0)) / gas_limit > T (§9.2, §9.5 step 1; the timer is in
 *     its due block, so n = 0).  A lane with room for many fires thus
 *     rewards bidding just the reserve when it is not full.
 *   score: m wins iff m v > c, the highest competing bid (one fire).
 * Fee mechanisms (a fire priced by the GBA in block h, of value v, c
 * cycles, fixed cost F, lane basefee b): with m's fees (cs__sr_rates) and
 * tip(m) = min(max_prio, max_fee - b) (CIP-1 rev §3 step 6), m fires iff
 * the lane was not paused, max_fee >= b (§6) and the lane had room for it
 * in the §3 step 7 order, in the mechanism's priority per cycle (eip1559:
 * tip x W(actor), W = o->fee_weight, the learner's own W in block h;
 * gba-tip: the tip, W = 1):
 *   - a candidate was deferred on the lane budget or the block quota (the
 *     lane was full): tip(m) W > T = cs_obs_threshold_of, the first excluded
 *     one's, or the lowest winner's when that one was the learner's own;
 *   - none was: every valid candidate fired, so m fires when the fees
 *     actually given were valid too; when they were not (below the
 *     basefee), m fires iff the lane had room left for it (a fire under
 *     the block quota, its gas_limit within the unused cycles) or it beats
 *     the lowest winner, tip(m) W > thresh_win.
 * Then r(m) = (v - cost(m)) / v with cost(m) = F + c (b + tip(m)), the
 * fire's charge (§3 step 8); else 0.
 */
/* The reward of multiplier m for round pd judged against o (see above),
 * for the bidder that is agent instance self under mechanism family mc. */
static double cs__sr_reward(uint32_t self, int mc, const cs_obs_t *o, const cs__sr_pend_t *pd, double m)
{
    if (mc == CS__MC_FEE) {
        double fee, prio, W = o->fee_weight > 0 ? o->fee_weight : 1.0;
        cs__sr_rates(m, pd->v, pd->fixed, pd->cycles, pd->bf, &fee, &prio);
        if (pd->paused || !(fee >= pd->bf)) return 0.0;
        double tip = prio < fee - pd->bf ? prio : fee - pd->bf;
        if (o->thresh_agent != UINT32_MAX ? !(tip * W > cs_obs_threshold_of(o, self))
                                          : !pd->valid && (o->fires_left < 1 || pd->gas > o->lane_left) &&
                                                !(tip * W > o->thresh_win))
            return 0.0;
        return (pd->v - (pd->fixed + pd->cycles * (pd->bf + tip))) / pd->v;
    }
    double b = m * pd->v;
    int win = strncmp(o->mechanism, "bias-", 5) == 0
                  ? b >= o->reserve_price && (b + o->bias0) / pd->cycles > cs_obs_threshold_of(o, self)
                  : b > cs_obs_competing_of(o, self);
    return win ? 1.0 - m : 0.0;
}

/* ------------------------------------------------------------ waiting */

/* 1 for the bias-* mechanisms, where a deferred timer gains Bias. */
static int cs__sr_is_bias(const cs_obs_t *o) { return strncmp(o->mechanism, "bias-", 5) == 0; }

/* The value of a fire of e's timer at delay n (the default value model,
 * cs_agent_value_default). */
static double cs__sw_value(const cs_strat_wait_env_t *e, uint64_t n)
{
    if (e->deadline != 0 && n > e->deadline) return 0.0;
    double v = e->v - e->decay * (double)n;
    return v > 0.0 ? v : 0.0;
}

/* What bid b pays when it fires after n deferrals against threshold T
 * (cs_strat_wait_fire). */
static double cs__sw_pay(const cs_strat_wait_env_t *e, double T, double b, uint64_t n)
{
    if (e->first_price) return b;
    double th = T * e->c - e->bias0 * exp((double)n * e->lambda); /* the critical bid (D6) */
    double cr = th > e->reserve ? th : e->reserve;                  /* floored at the reserve (N59) */
    cr = cr < b ? cr : b;                                           /* never above the bid */
    return cr > 0.0 ? cr : 0.0;
}

uint64_t cs_strat_wait_fire(const cs_strat_wait_env_t *e, double b, double *pay)
{
    *pay = 0.0;
    if (e->gate && b < e->reserve) return UINT64_MAX;
    /* CIP-5 §9.2: priority (b + bias0 e^(n lambda)) / c must beat T. */
    double need = e->T * e->c - b;
    uint64_t n = 0;
    if (!(need < e->bias0)) {
        if (!(e->lambda > 0.0) || !(e->bias0 > 0.0)) return UINT64_MAX; /* Bias never grows */
        double x = log(need / e->bias0) / e->lambda;                  /* Bias(n) > need iff n > x */
        if (!(x < (double)e->horizon)) return UINT64_MAX;
        n = (uint64_t)floor(x) + 1;
    }
    if (n > e->horizon) return UINT64_MAX;
    *pay = cs__sw_pay(e, e->T, b, n);
    return n;
}

double cs_strat_wait_utility(const cs_strat_wait_env_t *e, double b)
{
    double pay;
    uint64_t n = cs_strat_wait_fire(e, b, &pay);
    return n == UINT64_MAX ? 0.0 : cs__sw_value(e, n) - pay - e->fee;
}

/* A bid mechanism's bid b of a timer worth vnet after its execution fee:
 * at most vnet (a fire never costs more than it is worth), and under
 * bias-* with reserve r never strictly between 0 and r -- raised to r
 * when the timer can afford it, else 0, which waits for Bias. */
double cs__strat_bid_floor(double b, double vnet, double r)
{
    if (!(b <= vnet)) b = vnet;
    if (!(b > 0.0)) return 0.0;
    if (b < r) b = r <= vnet ? r : 0.0;
    return b;
}

/* The least bid (a whole base unit) whose priority beats T after n
 * deferrals: T c - Bias(n), plus one; 0 when Bias(n) alone does. */
static double cs__sw_least(const cs_strat_wait_env_t *e, uint64_t n)
{
    double b = e->T * e->c - e->bias0 * exp((double)n * e->lambda);
    return b >= 0.0 ? floor(b) + 1.0 : 0.0;
}

double cs_strat_wait_best(const cs_strat_wait_env_t *e)
{
    double vnet = e->v - e->fee;
    /* The last delay worth waiting for: the TTL, the deadline, the delay
     * at which the value is gone; and the last before the least bid falls
     * to the reserve (from there on the reserve is what it costs). */
    uint64_t end = e->horizon;
    if (e->deadline != 0 && e->deadline < end) end = e->deadline;
    if (e->decay > 0.0 && e->v / e->decay < (double)end) end = (uint64_t)floor(e->v / e->decay);
    double pay;
    uint64_t nr = cs_strat_wait_fire(e, e->reserve, &pay), m = nr == 0 ? 0 : nr - 1 < end ? nr - 1 : end;
    /* The corners (see cs_strategy.h): fire now, fire at the last delay
     * worth it, the reserve, wait for Bias alone (or never fire: 0). */
    const double cand[5] = {cs__strat_bid_floor(cs__sw_least(e, 0), vnet, e->reserve),
                            cs__strat_bid_floor(cs__sw_least(e, m), vnet, e->reserve),
                            cs__strat_bid_floor(cs__sw_least(e, end), vnet, e->reserve),
                            cs__strat_bid_floor(e->reserve, vnet, e->reserve), 0.0};
    double best = 0.0, ub = -(double)INFINITY;
    for (int i = 0; i < 5; i++) {
        double u = cs_strat_wait_utility(e, cand[i]);
        if (u > ub) {
            ub = u;
            best = cand[i];
        }
    }
    return best;
}

/* The environment of request q bid under o (bias-*): threshold, Bias,
 * reserve and payment rule from o, value and cycles from q; the execution
 * fee is q's cycles used at the cycle basefee plus its payload at the
 * cell basefee (N58). */
static void cs__sw_env(const cs_obs_t *o, uint32_t self, const cs_timer_req_t *q, cs_strat_wait_env_t *e)
{
    e->T = cs_obs_threshold_of(o, self);
    e->c = (double)(q->gas_limit ? q->gas_limit : o->fire_cycles ? o->fire_cycles : 1);
    e->bias0 = o->bias0;
    e->lambda = o->lambda;
    e->reserve = o->reserve_price;
    e->gate = o->reserve_gate;
    e->first_price = strcmp(o->mechanism, "bias-fp") == 0;
    e->v = q->value;
    e->decay = q->decay;
    e->deadline = q->deadline;
    e->horizon = q->ttl ? q->ttl : (uint64_t)1 << 40;
    e->fee = (double)q->cycles_used * o->basefee_cycle + (double)q->payload_len * o->basefee_cell;
}

/* learning_wait's bid for multiplier m of a timer worth vnet after its
 * fee: 0 = wait for Bias, else m x vnet floored as cs__sr_bid_floor. */
static double cs__sw_bid(double m, double vnet, double r)
{
    return m > 0.0 ? cs__strat_bid_floor(m * vnet, vnet, r) : 0.0;
}

/*
 * learning_wait under bias-* (agents/README.md "Strategies"): at the start
 * of block h, block h - 1's clearing judges every round due by then.  Its
 * timer would be n = h - 1 - due blocks deferred, so action k (bid b_k,
 * cs__sw_bid) fires there iff it has not fired yet, b_k reaches the
 * reserve under the gate and (b_k + bias0 e^(n lambda)) / c > T, T =
 * cs_obs_threshold_of (CIP-5 §9.2); it then earns u_k = value(n) -
 * pay - fee (cs__sw_pay).  A round ends when every action has fired or n
 * reaches its horizon (TTL, at most CS__SW_HORIZON; an action that never
 * fired earns 0), and is learnt from as Hedge, logw_k += eta u_k / v, or
 * EXP3 on the action played, logw_k -= eta (1 - u_k / v) / p_k.
 */
static void cs__sw_observe(const cs_strategy_t *s, struct cs_strat_state *ss, uint32_t self, const cs_obs_t *o)
{
    double T = cs_obs_threshold_of(o, self);
    size_t keep = 0;
    for (size_t i = 0; i < ss->nw; i++) {
        cs__sw_round_t *rd = &ss->rw[i];
        if (o->height < rd->due + 1) {
            ss->rw[keep++] = *rd;
            continue;
        }
        uint64_t n = o->height - 1 - rd->due;
        double bias = o->bias0 * exp((double)n * o->lambda), vnet = rd->e.v - rd->e.fee;
        for (size_t k = 0; k < s->n_grid; k++) {
            if (!(rd->open >> k & 1u)) continue;
            double b = cs__sw_bid(s->grid[k], vnet, rd->e.reserve);
            if ((rd->e.gate && b < rd->e.reserve) || !((b + bias) / rd->e.c > T)) continue;
            rd->u[k] = cs__sw_value(&rd->e, n) - cs__sw_pay(&rd->e, T, b, n) - rd->e.fee;
            rd->open &= ~((uint64_t)1 << k);
        }
        uint64_t hz = rd->e.horizon < CS__SW_HORIZON ? rd->e.horizon : CS__SW_HORIZON;
        if (rd->open != 0 && n < hz) {
            ss->rw[keep++] = *rd;
            continue;
        }
        double v = rd->e.v > 0.0 ? rd->e.v : 1.0;
        if (s->bandit)
            ss->logw[rd->k] -= s->eta * (1.0 - rd->u[rd->k] / v) / rd->pk;
        else
            for (size_t k = 0; k < s->n_grid; k++) ss->logw[k] += s->eta * rd->u[k] / v;
    }
    ss->nw = keep;
}

void cs_strat_observe(const cs_strategy_t *s, struct cs_strat_state *ss, uint32_t self, int mc, const cs_obs_t *o)
{
    if (s != NULL && s->kind == CS_STRAT_LEARNING_WAIT && mc == CS__MC_BID && cs__sr_is_bias(o)) {
        cs__sw_observe(s, ss, self, o);
        return;
    }
    if (s != NULL && s->kind == CS_STRAT_LEARNING_VALUE && mc == CS__MC_BID) {
        cs__sv_observe(s, ss->sv, self, o);
        return;
    }
    if (!cs__sr_learns(s) || mc == CS__MC_NONE) return;
    size_t keep = 0;
    for (size_t i = 0; i < ss->np; i++) {
        cs__sr_pend_t *pd = &ss->pend[i];
        if (pd->due + 1 == o->height) {
            if (s->bandit) /* EXP3: the loss of the multiplier played, importance-weighted */
                ss->logw[pd->k] -= s->eta * (1.0 - cs__sr_reward(self, mc, o, pd, s->grid[pd->k])) / pd->pk;
            else
                for (size_t k = 0; k < s->n_grid; k++)
                    ss->logw[k] += s->eta * cs__sr_reward(self, mc, o, pd, s->grid[k]);
        } else if (pd->due + 1 > o->height) {
            ss->pend[keep++] = *pd; /* not yet due */
        }
    }
    ss->np = keep;
}

/* The index of a multiplier drawn from the learner's weights (one draw
 * from its own stream) and, in *pk, its probability. */
static size_t cs__sr_draw(struct cs_strat_state *ss, const cs_strategy_t *s, double *pk)
{
    double p[CS_STRAT_MAX_GRID], u = gsl_rng_uniform(ss->rng), acc = 0;
    /* A grid holds 2 to CS_STRAT_MAX_GRID multipliers (the loader), so
     * cs__sr_probs sets p[0] and more; set here as well because GCC's -O3
     * cannot see that and warns (-Wmaybe-uninitialized). */
    p[0] = 1.0;
    cs__sr_probs(ss, s, p);
    size_t k = 0;
    while (k + 1 < s->n_grid && (acc += p[k]) <= u) k++;
    *pk = p[k];
    return k;
}

/* ------------------------------------------------------------ pricing */

void cs_strat_bid(const cs_strategy_t *s, struct cs_strat_state *ss, uint32_t self, int mc, const cs_obs_t *o,
                  cs_timer_req_t *q)
{
    if (s == NULL || mc != CS__MC_BID) return;
    double v = q->value, b = 0;
    int bias = cs__sr_is_bias(o);
    cs_strat_wait_env_t e;
    cs__sw_env(o, self, q, &e);
    switch (s->kind) {
    case CS_STRAT_FIXED_SHARE: b = s->share * v; break;
    case CS_STRAT_TRUTHFUL: b = v; break;
    case CS_STRAT_BEST_RESPONSE: {
        /* Outbid the highest competing bid, never its own; floor at the
         * reserve; drop to the reserve when outbidding exceeds the value. */
        double c = cs_obs_competing_of(o, self), r = o->reserve_price;
        if (c + s->epsilon <= v) b = c + s->epsilon > r ? c + s->epsilon : r;
        else b = r <= v ? r : 0.0;
        break;
    }
    case CS_STRAT_SHADE: b = cs__sr_shade(&ss->vd, s->n, v, ss->iw); break;
    case CS_STRAT_WAIT_RESPONSE: b = bias ? cs_strat_wait_best(&e) : v; break; /* score: truthful */
    case CS_STRAT_LEARNING_VALUE: b = cs__sv_bid(s, ss->sv, gsl_rng_uniform(ss->rng), o, q, e.fee); break;
    case CS_STRAT_LEARNING_WAIT:
        if (bias) {
            double pk;
            size_t j = cs__sr_draw(ss, s, &pk);
            b = cs__sw_bid(s->grid[j], e.v - e.fee, e.reserve);
            if (ss->nw < CS__SW_ROUNDS) { /* else not learnt from */
                cs__sw_round_t *rd = &ss->rw[ss->nw++];
                memset(rd, 0, sizeof *rd);
                rd->e = e;
                rd->due = o->height + (q->delay ? q->delay : 1);
                rd->open = s->n_grid < 64 ? ((uint64_t)1 << s->n_grid) - 1 : ~(uint64_t)0;
                rd->k = j;
                rd->pk = pk;
            }
            break;
        }
        /* score judges in the due block, as learning */
        __attribute__((fallthrough));
    case CS_STRAT_LEARNING: {
        double pk;
        size_t j = cs__sr_draw(ss, s, &pk);
        b = s->grid[j] * v;
        cs__sr_pend_t pd = {.due = o->height + (q->delay ? q->delay : 1), .v = v, .k = j, .pk = pk};
        pd.cycles = (double)(q->gas_limit ? q->gas_limit : o->fire_cycles ? o->fire_cycles : 1);
        cs__sr_push(ss, &pd);
        break;
    }
    default: return;
    }
    /* No bid above the value less the execution fee, none strictly between
     * 0 and the reserve (bias-*) -- except under learning ("due-block"),
     * kept as it was for comparison (agents/README.md "Strategies"). */
    if (s->kind != CS_STRAT_LEARNING) b = cs__strat_bid_floor(b, e.v - e.fee, bias ? e.reserve : 0.0);
    q->has_bid = 1;
    q->bid = b;
}

/*
 * Fee mechanisms at fire time.  With B(k) = (k x fire_value - fire_fixed) /
 * fire_cycles, the most max_fee per cycle that keeps the fire's cost within
 * k times its value: truthful max_fee = B(1), max_prio = B(1) - basefee;
 * fixed_share k = share; shade k = beta(v) / v; learning k = a multiplier
 * drawn from its weights, each pricing a round it learns from
 * (cs_strat_observe); max_prio = max_fee - basefee for these.
 * best_response max_fee = B(1) and max_prio the tip that outbids the first
 * competitor excluded from the previous block, never itself: with T =
 * cs_obs_threshold_of (that candidate's priority per cycle, or the lowest
 * winner's when it was its own; CIP-1 rev §3 steps 6-7) and W its own
 * weight, T / W + epsilon_prio, 0 when nobody was excluded (the lane had
 * room: the basefee suffices), and 0 as well when that tip exceeds
 * B(1) - basefee (it cannot outbid within its value: it waits at the
 * basefee, as the bid version drops to the reserve).  With fee_rule "p50":
 * clip(p50_tip + epsilon_prio, 0, B(1) - basefee).
 */
int cs_strat_fees(const cs_strategy_t *s, struct cs_strat_state *ss, uint32_t self, const cs_timer_info_t *t,
                  const cs_obs_t *o, double *max_fee, double *max_prio)
{
    if (s == NULL) return 0;
    double k = 1.0;
    double cyc = t->fire_cycles > 0 ? t->fire_cycles : 1.0;
    switch (s->kind) {
    case CS_STRAT_FIXED_SHARE: k = s->share; break;
    case CS_STRAT_SHADE: k = t->value > 0 ? cs__sr_shade(&ss->vd, s->n, t->value, ss->iw) / t->value : 0; break;
    case CS_STRAT_LEARNING:
    case CS_STRAT_LEARNING_WAIT:
    case CS_STRAT_LEARNING_VALUE: { /* fee mechanisms: learning_wait and learning_value are learning */
        double pk;
        size_t j = cs__sr_draw(ss, s, &pk);
        k = s->grid[j];
        if (t->fire_value > 0) {
            double fee, prio;
            cs__sr_rates(k, t->fire_value, t->fire_fixed, cyc, o->basefee_lane, &fee, &prio);
            cs__sr_pend_t pd = {.due = o->height, .v = t->fire_value, .cycles = cyc, .fixed = t->fire_fixed,
                                .bf = o->basefee_lane, .gas = (double)t->gas_limit, .paused = o->paused,
                                .valid = fee >= o->basefee_lane, .k = j, .pk = pk};
            cs__sr_push(ss, &pd);
        }
        break;
    }
    default: break;
    }
    cs__sr_rates(k, t->fire_value, t->fire_fixed, cyc, o->basefee_lane, max_fee, max_prio);
    if (s->kind == CS_STRAT_BEST_RESPONSE && s->fee_p50) {
        double pr = o->p50_tip + s->epsilon_prio;
        *max_prio = pr < *max_prio ? pr : *max_prio;
    } else if (s->kind == CS_STRAT_BEST_RESPONSE) {
        double W = o->fee_weight > 0 ? o->fee_weight : 1.0;
        double pr = o->thresh_agent == UINT32_MAX ? 0.0 : cs_obs_threshold_of(o, self) / W + s->epsilon_prio;
        *max_prio = pr <= *max_prio ? pr : 0.0;
    }
    return 1;
}
