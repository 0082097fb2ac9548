/*
 * test_reserve_bound.c -- the longest wait of a bid-0 timer under bias-vcg
 * with a reserve (issue 24 acceptance 3, second half; CIP-5 §9.1, §9.2,
 * §9.5, §9.7; DESIGN D14, DESIGN-NOTES N59).
 *
 * World: a lane of K = 10 timers (1,000,000 cycles, every timer's gas
 * limit 100,000), basefees 0, reserve_price 1,000, bias_scale S =
 * 1,000,000, vcg_payment critical.  A rich competitor stream bids B =
 * 10,000,000 a fire: in each period of P blocks its first D = 80 blocks
 * bring K fresh competitor timers each (they alone fill the lane), the
 * rest none; a bid-0 actor schedules one timer a block throughout.  The
 * load is D/P + 1/K: P = 200 gives 0.5, P = 100 gives 0.9.  Three periods.
 *
 * The exact bound, by hand from CIP-5 §9.2 and cowsim's priority
 * (V = bid + Bias(n), Bias(n) = S e^(n lambda), order by V / cycles, equal
 * cycles here): a bid-0 timer deferred n blocks outranks a fresh
 * competitor (V = B + S) once S e^(n lambda) > B + S, i.e. at
 *     N* = floor(ln(1 + B/S) / lambda) + 1
 * (ln 11 / lambda = 47.96, 23.98, 11.99 for lambda = 0.05, 0.1, 0.2: N* =
 * 48, 24, 12; none is within 10^-3 of an integer, so the fixed-point
 * Bias cannot land on the other side).  Before N* it cannot fire while a
 * burst fills the lane; from N* it outranks every fresh competitor, and
 * what can still be ahead of it is the backlog: the candidates beyond the
 * lane.  So the longest wait W of a bid-0 timer satisfies
 *     N* <= W <= N* + ceil(Q / K),  Q = max over blocks of (candidates - K)
 * and every bid-0 fire pays no allocation payment (the reserve floors a
 * payment, never above the bid: D14).  The spec's own bound, ln(T/3) /
 * lambda with T the competitor's balance, is a different quantity (it
 * ignores bias_scale and the competitor's own Bias(0)); item 3 of issue 24
 * compares the two.
 */
#include "cs_sched.h"
#include "cs_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { K = 10, GAS = 100000, D = 80 };
#define SCALE 1000000u
#define BID 10000000u

static cs_addr_t addr(uint8_t tag) { return cs_test_addr(0xb0, tag); }

static void sched(cs_sched_t *s, uint8_t tag, uint64_t due, int bid)
{
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = addr(tag);
    a.kind = CS_KIND_HEIGHT;
    a.height = due;
    a.gas_limit = GAS;
    a.has_bid = bid;
    a.bid = bid ? BID : 0;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
}

/* One run: lambda in ppb, period P; returns the longest bid-0 wait. */
static void run(uint64_t lambda_ppb, uint64_t P)
{
    double lam = (double)lambda_ppb / 1e9;
    double x = log1p((double)BID / SCALE) / lam;
    CS_CHECK(fabs(x - nearbyint(x)) > 1e-3);
    uint64_t nstar = (uint64_t)floor(x) + 1;

    cs_params_t p;
    cs_params_default(&p);
    p.lane_timer_cycles = (uint64_t)K * GAS;
    p.reserve_price = 1000;
    p.bias_scale = SCALE;
    p.lambda = lambda_ppb;
    p.vcg_payment = CS_VCG_CRITICAL;
    p.schedule_cycles = 0;
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, "bias-vcg", 0), CS_OK);
    cs_sched_set_env(s, 0, 0);
    cs_addr_t rich = addr(1), poor = addr(2);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &rich, (cs_u128)1 << 80), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &poor, 1), CS_OK);
    uint64_t W = 0, Q = 0, fires0 = 0, sched0 = 0;
    cs_u128 paid0 = 0;
    const uint64_t blocks = 3 * P;
    for (uint64_t h = 1; h <= blocks; h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
        uint64_t t = h + 1; /* the due height of what block h schedules */
        if (t <= blocks) {
            if (t % P < D)
                for (int k = 0; k < K; k++) sched(s, 1, t, 1);
            sched(s, 2, t, 0);
            sched0++;
        }
        CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
        cs_block_result_t r;
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        if (r.st.due > K && r.st.due - K > Q) Q = r.st.due - K;
        for (size_t i = 0; i < r.n_deliv; i++) {
            const cs_delivery_t *d = &r.deliv[i];
            if (memcmp(d->actor.b, poor.b, sizeof poor.b) != 0) continue;
            fires0++;
            if (h - d->due_height > W) W = h - d->due_height;
        }
        for (size_t i = 0; i < r.n_rows; i++) {
            if (r.rows[i].outcome == CS_OUT_FIRED && r.rows[i].bid == 0) paid0 += r.rows[i].payment;
        }
    }
    uint64_t bound = nstar + (Q + K - 1) / K;
    printf("lambda %.2f load %.1f: N* %llu, longest bid-0 wait %llu, backlog over the lane %llu, bound %llu, "
           "%llu of %llu bid-0 timers fired\n",
           lam, (double)D / (double)P + 1.0 / K, (unsigned long long)nstar, (unsigned long long)W,
           (unsigned long long)Q, (unsigned long long)bound, (unsigned long long)fires0, (unsigned long long)sched0);
    CS_CHECK(W >= nstar);
    CS_CHECK(W <= bound);
    CS_CHECK(paid0 == 0);
    /* Every bid-0 timer due at least `bound` blocks before the end fired. */
    CS_CHECK(fires0 + bound >= sched0);
    cs_sched_free(s);
}

int main(void)
{
    static const uint64_t lambdas[3] = {50000000u, 100000000u, 200000000u};
    for (int i = 0; i < 3; i++) {
        run(lambdas[i], 200); /* load 0.5 */
        run(lambdas[i], 100); /* load 0.9 */
    }
    return cs_test_done("reserve_bound");
}
