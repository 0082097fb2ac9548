/*
 * cs_strategy_value.c -- learning_value: a learner whose bid is a function
 * of its value (agents/README.md "Strategies", DESIGN-NOTES N78).
 *
 * The values a bidder may draw are cut into n_buckets buckets of equal
 * probability under the value distribution it knows (bucket j holds the
 * values v with j / B <= F(v) < (j + 1) / B), and each bucket has its own
 * Hedge (or EXP3) weights over the grid of multipliers: a timer worth v
 * bids m x (v - fee), m drawn from v's bucket, so the bid function it
 * learns is piecewise linear in v -- the shape of a first-price
 * equilibrium, whose shading depends on the value (for k > 1 units it is
 * not a constant share).  Under bid mechanisms each round is judged when
 * the block after its due block starts, against the price its bid had to
 * beat in that block: with its own bid b0 and the block's clearing
 * threshold (cs_obs_t.thresh, the highest deferred priority per cycle,
 * and thresh_win, the lowest fired one), a timer that fired had to beat
 * the highest deferred candidate, one that was deferred the lowest winner
 * (the one it would have displaced) -- whether or not its own timer was
 * the highest deferred, which is all cs_obs_threshold_of can tell.  That
 * price is what the others bid, so it is the same for any value the
 * bidder might have had: with full information (Hedge) each round
 * updates every bucket, each judged at its centre value (the value at
 * quantile (j + 1/2) / B) with the round's execution fee, so every bucket
 * learns from every round.  EXP3 learns only the bucket and multiplier
 * played, at the round's own value.  Fee mechanisms use learning's single
 * table (cs_strategy.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_error.h"
#include "cs_strategy_int.h"

#define CS__SV_PEND 256 /* rounds awaiting their block's outcome */

/* A round: one timer's bid, judged against its due block's outcome. */
typedef struct cs__sv_round {
    uint64_t due;   /* its due height */
    double v;       /* its value at the due height */
    double vnet;    /* v less the execution fee (the most it bids) */
    double c;       /* its gas_limit, cycles */
    double bid;     /* the bid it made */
    size_t j;       /* its value bucket */
    size_t k;       /* the multiplier played (bandit feedback) */
    double pk;      /* its probability when played */
} cs__sv_round_t;

struct cs__sv {
    cs_dist_t vd;                                       /* the value distribution it knows (a shallow
                                                         * copy, never cleared) */
    int has_vd;                                         /* 0: one bucket */
    double centre[CS_STRAT_MAX_BUCKETS];                /* each bucket's value at quantile (j + 1/2) / B */
    double logw[CS_STRAT_MAX_BUCKETS][CS_STRAT_MAX_GRID]; /* log weights per bucket */
    cs__sv_round_t pend[CS__SV_PEND];                   /* rounds to learn from */
    size_t np;
};

/* The value at quantile q of d, by bisection on its CDF (the bracket
 * grows past the support's top for unbounded families). */
static double cs__sv_quantile(const cs_dist_t *d, double q)
{
    double lo, hi;
    cs_dist_support(d, &lo, &hi);
    if (!isfinite(lo)) lo = 0.0;
    if (!isfinite(hi)) {
        hi = lo > 0.0 ? 2.0 * lo : 1.0;
        for (int i = 0; i < 200 && cs_dist_cdf(d, hi) < q; i++) hi *= 2.0;
    }
    for (int i = 0; i < 100; i++) {
        double mid = 0.5 * (lo + hi);
        if (cs_dist_cdf(d, mid) < q) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

int cs__sv_new(const cs_strategy_t *s, const cs_dist_t *vd, cs__sv_t **out)
{
    *out = calloc(1, sizeof **out);
    if (*out == NULL) return CS_ENOMEM;
    if (vd != NULL && s->n_buckets > 1) {
        (*out)->vd = *vd;
        (*out)->has_vd = 1;
        for (size_t j = 0; j < s->n_buckets; j++)
            (*out)->centre[j] = cs__sv_quantile(vd, ((double)j + 0.5) / (double)s->n_buckets);
    }
    return CS_OK;
}

void cs__sv_free(cs__sv_t *sv) { free(sv); }

/* The bucket of value v: floor(F(v) x B), at most B - 1 (0 without a
 * value distribution; cs__sv_new keeps one only for B > 1). */
static size_t cs__sv_bucket(const cs_strategy_t *s, const cs__sv_t *sv, double v)
{
    if (!sv->has_vd) return 0;
    size_t nb = s->n_buckets;
    double f = cs_dist_cdf(&sv->vd, v) * (double)nb;
    if (!(f > 0.0)) return 0;
    return f >= (double)(nb - 1) ? nb - 1 : (size_t)f;
}

void cs__sv_probs(const cs_strategy_t *s, const cs__sv_t *sv, double v, double *p)
{
    const double *lw = sv->logw[cs__sv_bucket(s, sv, v)];
    double mx = lw[0], z = 0;
    for (size_t k = 1; k < s->n_grid; k++)
        if (lw[k] > mx) mx = lw[k];
    for (size_t k = 0; k < s->n_grid; k++) z += p[k] = exp(lw[k] - mx);
    for (size_t k = 0; k < s->n_grid; k++) p[k] /= z;
}

/* 1 for the bias-* mechanisms (priority (bid + Bias) / gas_limit). */
static int cs__sv_is_bias(const cs_obs_t *o) { return strncmp(o->mechanism, "bias-", 5) == 0; }

double cs__sv_bid(const cs_strategy_t *s, cs__sv_t *sv, double u, const cs_obs_t *o, const cs_timer_req_t *q,
                  double fee)
{
    double p[CS_STRAT_MAX_GRID], acc = 0;
    size_t j = cs__sv_bucket(s, sv, q->value), k = 0;
    cs__sv_probs(s, sv, q->value, p);
    while (k + 1 < s->n_grid && (acc += p[k]) <= u) k++;
    double vnet = q->value - fee, r = cs__sv_is_bias(o) ? o->reserve_price : 0.0;
    double b = cs__strat_bid_floor(s->grid[k] * vnet, vnet, r);
    if (sv->np < CS__SV_PEND) { /* else not learnt from */
        cs__sv_round_t *rd = &sv->pend[sv->np++];
        rd->due = o->height + (q->delay ? q->delay : 1);
        rd->v = q->value;
        rd->vnet = vnet;
        rd->c = (double)(q->gas_limit ? q->gas_limit : o->fire_cycles ? o->fire_cycles : 1);
        rd->bid = b;
        rd->j = j;
        rd->k = k;
        rd->pk = p[k];
    }
    return b;
}

/* What a round's bids had to beat in its due block (see the top of the
 * file), worked out once per round. */
typedef struct cs__sv_price {
    int bias;       /* bias-*: priority (b + Bias(0)) / c; else score */
    int fp;         /* bias-fp (pay the bid) or score; 0: bias-vcg */
    double price;   /* bias-*: the priority per cycle to beat; score: the competing bid */
    double c;       /* the round's gas_limit */
    double bias0;   /* Bias(0) */
    double reserve; /* reserve price */
    int gate;       /* a bid below the reserve cannot win (N16) */
} cs__sv_price_t;

/*
 * The price of round rd in block o.
 *   bias-vcg, bias-fp: with P0 = (b0 + Bias(0)) / c its own priority per
 *     cycle, the price is thresh when it fired (P0 > thresh, or nothing was
 *     deferred) and thresh_win when it was deferred (CIP-5 §9.2, §9.5
 *     step 1: the highest priorities fire).
 *   score: the highest competing bid (one fire).
 */
static void cs__sv_price(uint32_t self, const cs_obs_t *o, const cs__sv_round_t *rd, cs__sv_price_t *pr)
{
    pr->bias = cs__sv_is_bias(o);
    pr->fp = !pr->bias || strcmp(o->mechanism, "bias-fp") == 0;
    pr->c = rd->c;
    pr->bias0 = o->bias0;
    pr->reserve = o->reserve_price;
    pr->gate = o->reserve_gate;
    if (pr->bias) {
        int fired = o->thresh_agent == UINT32_MAX || (rd->bid + o->bias0) / rd->c > o->thresh;
        pr->price = fired || !(o->thresh_win > 0.0) ? o->thresh : o->thresh_win;
    } else {
        pr->price = cs_obs_competing_of(o, self);
    }
}

/* The reward of bid b of a timer worth v (vnet after the fee) against
 * price pr: (vnet - pay) / v when b would have fired, else 0.  bias-*: b
 * fires iff b >= reserve under the gate (N16) and (b + Bias(0)) / c >
 * price; it pays b (bias-fp) or the critical bid min(b, max(reserve,
 * price c - Bias(0))) (bias-vcg, D6, N59).  score: b fires iff it beats
 * the competing bid; it pays b. */
static double cs__sv_reward(const cs__sv_price_t *pr, double v, double vnet, double b)
{
    double pay = b;
    if (pr->bias) {
        if ((pr->gate && b < pr->reserve) || !((b + pr->bias0) / pr->c > pr->price)) return 0.0;
        if (!pr->fp) {
            double cr = pr->price * pr->c - pr->bias0;
            cr = cr > pr->reserve ? cr : pr->reserve;
            pay = cr < b ? cr : b;
            pay = pay > 0.0 ? pay : 0.0;
        }
    } else if (!(b > pr->price)) {
        return 0.0;
    }
    return v > 0.0 ? (vnet - pay) / v : 0.0;
}

/* Hedge: every multiplier of every bucket gains eta x its reward at the
 * bucket's centre value (one bucket without a value distribution: the
 * round's own value); EXP3: the one played loses eta (1 - reward) / p_k
 * (as learning). */
void cs__sv_observe(const cs_strategy_t *s, cs__sv_t *sv, uint32_t self, const cs_obs_t *o)
{
    size_t keep = 0;
    double r = cs__sv_is_bias(o) ? o->reserve_price : 0.0;
    for (size_t i = 0; i < sv->np; i++) {
        cs__sv_round_t *rd = &sv->pend[i];
        if (rd->due + 1 > o->height) {
            sv->pend[keep++] = *rd; /* not yet due */
            continue;
        }
        if (rd->due + 1 < o->height) continue; /* its block's outcome is gone */
        cs__sv_price_t pr;
        cs__sv_price(self, o, rd, &pr);
        if (s->bandit) {
            double b = cs__strat_bid_floor(s->grid[rd->k] * rd->vnet, rd->vnet, r);
            sv->logw[rd->j][rd->k] -= s->eta * (1.0 - cs__sv_reward(&pr, rd->v, rd->vnet, b)) / rd->pk;
            continue;
        }
        size_t nb = sv->has_vd ? s->n_buckets : 1;
        for (size_t j = 0; j < nb; j++) {
            double v = sv->has_vd ? sv->centre[j] : rd->v, vnet = v - (rd->v - rd->vnet);
            for (size_t k = 0; k < s->n_grid; k++)
                sv->logw[j][k] += s->eta * cs__sv_reward(&pr, v, vnet, cs__strat_bid_floor(s->grid[k] * vnet, vnet, r));
        }
    }
    sv->np = keep;
}
