/*
 * test_optimum.c -- analysis/cs_optimum.c against brute force.
 *
 * 300 random instances (seed 20261124, stream i) of at most 8 jobs and 4
 * blocks, with budgets, per-fire caps, block and actor quotas, deadlines,
 * linear and exponential decay: the exact optimum (ILP) equals the best of
 * every assignment (each job unfired or at one of its heights), and the LP
 * relaxation and the Lagrangian bound (forced by small limits) are never
 * below it.  Plus hand-computed cases, and the Lagrangian bound on 200
 * larger random instances (up to 200 jobs, 160 blocks, windows of up to
 * 150 heights, tied values) equal, bit for bit, to a full-scan reference of
 * the algorithm cs_optimum.h documents (the solver skips heights that
 * cannot beat the best so far; skipping one that can changes the bound).
 * And the bound's gap on sampled windows (cs_opt_gap, test_gap).
 */
#include "cs_optimum.h"

#include "cs_h5.h"
#include "cs_metrics.h"

#include "cs_rng.h"
#include "cs_test.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define NJ 8
#define NB 4

/* Best welfare over every assignment: job k takes choice[k] in 0..NB (0 =
 * unfired, c = fires at h0 + c - 1).  Feasibility checks every constraint
 * directly from the problem (no shared code with the solver). */
static double brute(const cs_opt_problem_t *p)
{
    size_t nj = p->n_jobs, nb = p->n_blocks;
    size_t choices = nb + 1, total = 1;
    for (size_t k = 0; k < nj; k++) total *= choices;
    double best = 0;
    for (size_t code = 0; code < total; code++) {
        size_t c = code;
        int ch[NJ];
        for (size_t k = 0; k < nj; k++) {
            ch[k] = (int)(c % choices);
            c /= choices;
        }
        double w = 0;
        int ok = 1;
        for (size_t k = 0; k < nj && ok; k++) {
            if (ch[k] == 0) continue;
            const cs_opt_job_t *j = &p->jobs[k];
            uint64_t h = p->h0 + (uint64_t)ch[k] - 1;
            if (h < j->due || h > j->last || j->gas > p->blocks[ch[k] - 1].cap) ok = 0;
            else w += cs_opt_value(j, h - j->due);
        }
        for (size_t b = 0; b < nb && ok; b++) {
            const cs_opt_block_t *bl = &p->blocks[b];
            uint64_t gas = 0;
            uint32_t fires = 0;
            for (size_t k = 0; k < nj; k++)
                if (ch[k] == (int)b + 1) {
                    gas += p->jobs[k].gas;
                    fires++;
                    uint32_t same = 0;
                    for (size_t q = 0; q < nj; q++)
                        if (ch[q] == (int)b + 1 && p->jobs[q].actor == p->jobs[k].actor) same++;
                    if (bl->quota_actor && same > bl->quota_actor) ok = 0;
                }
            if (gas > bl->budget || (bl->quota_block && fires > bl->quota_block)) ok = 0;
        }
        if (ok && w > best) best = w;
    }
    return best;
}

static void random_instance(gsl_rng *r, cs_opt_job_t *jobs, size_t *nj, cs_opt_block_t *blocks, size_t *nb,
                            uint64_t *h0)
{
    *h0 = 1 + gsl_rng_uniform_int(r, 50);
    *nb = 1 + gsl_rng_uniform_int(r, NB);
    *nj = 1 + gsl_rng_uniform_int(r, NJ);
    for (size_t b = 0; b < *nb; b++) {
        cs_opt_block_t *bl = &blocks[b];
        unsigned u = (unsigned)gsl_rng_uniform_int(r, 10);
        bl->budget = u == 0 ? 0 : u < 3 ? UINT64_MAX : 100 + gsl_rng_uniform_int(r, 400);
        bl->cap = gsl_rng_uniform_int(r, 3) == 0 ? 150 : UINT64_MAX;
        bl->quota_block = gsl_rng_uniform_int(r, 3) == 0 ? (uint32_t)(1 + gsl_rng_uniform_int(r, 3)) : 0;
        bl->quota_actor = gsl_rng_uniform_int(r, 3) == 0 ? (uint32_t)(1 + gsl_rng_uniform_int(r, 2)) : 0;
    }
    for (size_t k = 0; k < *nj; k++) {
        cs_opt_job_t *j = &jobs[k];
        j->due = *h0 + gsl_rng_uniform_int(r, *nb + 1) - 1; /* may be due before h0 */
        j->last = j->due + gsl_rng_uniform_int(r, 4);
        j->gas = 20 + gsl_rng_uniform_int(r, 200);
        j->actor = (uint32_t)gsl_rng_uniform_int(r, 3);
        j->value = 1 + 999 * gsl_rng_uniform(r);
        j->decay = gsl_rng_uniform_int(r, 2) ? j->value * 0.3 * gsl_rng_uniform(r) : 0;
        j->rate = gsl_rng_uniform_int(r, 3) == 0 ? 0.7 * gsl_rng_uniform(r) : 0;
        j->deadline = gsl_rng_uniform_int(r, 4) == 0 ? 1 : 0;
    }
}

/* Random instance i of the tests (seed 20261124, stream i); 0 (a failed
 * check) when its stream cannot be allocated. */
static int instance_no(unsigned i, cs_opt_job_t *jobs, size_t *nj, cs_opt_block_t *blocks, size_t *nb, uint64_t *h0)
{
    gsl_rng *r = cs_rng_stream(20261124u, i);
    CS_CHECK(r != NULL);
    if (!r) return 0;
    random_instance(r, jobs, nj, blocks, nb, h0);
    gsl_rng_free(r);
    return 1;
}

static void test_brute(void)
{
    enum { N = 300 };
    unsigned agree = 0, lp_ok = 0, roll_ok = 0, ilp_used = 0;
    double worst = 0, lworst = 0;
    for (unsigned i = 0; i < N; i++) {
        cs_opt_job_t jobs[NJ];
        cs_opt_block_t blocks[NB];
        size_t nj, nb;
        uint64_t h0;
        if (!instance_no(i, jobs, &nj, blocks, &nb, &h0)) return;
        cs_opt_problem_t p = {jobs, nj, h0, blocks, nb, 0};
        double want = brute(&p);
        cs_opt_result_t res;
        char err[256] = "";
        CS_CHECK(cs_opt_solve(&p, NULL, &res, err, sizeof err) == 0);
        double tol = 1e-9 * (want > 1 ? want : 1);
        if (fabs(res.welfare - want) <= tol) agree++;
        else printf("instance %u: ilp %.10g brute %.10g (method %s)\n", i, res.welfare, want,
                    cs_opt_method_name(res.method));
        ilp_used += cs_opt_exact(res.method);
        /* The LP relaxation (ILP limit 0) and the Lagrangian bound (LP
         * limit 0), steered by no lower bound and by the optimum itself,
         * are upper bounds. */
        cs_opt_limits_t lpl = {0, 1000000, 1000}, ll = {0, 0, 1000};
        cs_opt_result_t lp, lg, lg2;
        CS_CHECK(cs_opt_solve(&p, &lpl, &lp, err, sizeof err) == 0);
        CS_CHECK(cs_opt_solve(&p, &ll, &lg, err, sizeof err) == 0);
        p.lower = want;
        CS_CHECK(cs_opt_solve(&p, &ll, &lg2, err, sizeof err) == 0);
        lp_ok += lp.welfare >= want - tol;
        roll_ok += lg.welfare >= want - tol && lg2.welfare >= want - tol;
        if (lg2.welfare - want > lworst) lworst = lg2.welfare - want;
        if (lp.welfare - want > worst) worst = lp.welfare - want;
    }
    printf("optimum: %u/%d instances equal brute force (%u solved exactly), LP >= optimum in %u, Lagrangian >= "
           "optimum in %u; largest gaps LP %.4g, Lagrangian %.4g\n",
           agree, N, ilp_used, lp_ok, roll_ok, worst, lworst);
    CS_CHECK(agree == N);
    CS_CHECK(ilp_used == N);
    CS_CHECK(lp_ok == N);
    CS_CHECK(roll_ok == N);
}

/* Hand cases.
 * 1. Budget 100, two jobs of 60 cycles due at 1, values 10 and 7 (no
 *    decay), window [1, 2]: both fire (one per block): 17.
 * 2. Same with window [1, 1]: only one fits: 10.
 * 3. Linear decay 4 per block on the 10-job: 10 at h1 + 7 at h2 = 17
 *    beats 7 + (10 - 4) = 13: 17.
 * 4. A lane pause (budget 0) at h1 and window [1, 2]: one of them at h2: 10.
 * 5. Actor quota 1 with both jobs of actor 3 and no budget: window [1, 1]:
 *    10; block quota 1 likewise.
 * 6. Cap 50 < 60: nothing fires: 0 (method none). */
static void test_hand(void)
{
    cs_opt_job_t j[2] = {{1, 2, 60, 3, 10, 0, 0, 0}, {1, 2, 60, 3, 7, 0, 0, 0}};
    cs_opt_block_t b[2] = {{100, UINT64_MAX, 0, 0}, {100, UINT64_MAX, 0, 0}};
    cs_opt_problem_t p = {j, 2, 1, b, 2, 0};
    cs_opt_result_t r;
    char err[128];
    CS_CHECK(cs_opt_solve(&p, NULL, &r, err, sizeof err) == 0 && r.welfare == 17 && r.method == CS_OPT_ILP);
    j[0].last = j[1].last = 1;
    CS_CHECK(cs_opt_solve(&p, NULL, &r, err, sizeof err) == 0 && r.welfare == 10);
    j[0].last = j[1].last = 2;
    j[0].decay = 4;
    CS_CHECK(cs_opt_solve(&p, NULL, &r, err, sizeof err) == 0 && r.welfare == 17);
    j[0].decay = 0;
    b[0].budget = 0;
    CS_CHECK(cs_opt_solve(&p, NULL, &r, err, sizeof err) == 0 && r.welfare == 10);
    b[0].budget = b[1].budget = UINT64_MAX;
    j[0].last = j[1].last = 1;
    b[0].quota_actor = 1;
    CS_CHECK(cs_opt_solve(&p, NULL, &r, err, sizeof err) == 0 && r.welfare == 10);
    b[0].quota_actor = 0;
    b[0].quota_block = 1;
    CS_CHECK(cs_opt_solve(&p, NULL, &r, err, sizeof err) == 0 && r.welfare == 10);
    b[0].quota_block = 0;
    CS_CHECK(cs_opt_solve(&p, NULL, &r, err, sizeof err) == 0 && r.welfare == 17); /* no constraint */
    b[0].cap = b[1].cap = 50;
    CS_CHECK(cs_opt_solve(&p, NULL, &r, err, sizeof err) == 0 && r.welfare == 0 && r.method == CS_OPT_NONE);
    /* Lagrangian bound on case 2 (budget 100, window [1, 1], 10 and 7 of
     * 60 cycles each): with mu = 7/60 per cycle, L = 100 * 7/60 + (10 - 7)
     * = 14.67 >= 10; the subgradient steps towards the lower bound 10. */
    b[0].cap = b[1].cap = UINT64_MAX;
    b[0].budget = b[1].budget = 100;
    cs_opt_limits_t ll = {0, 0, 1000};
    p.lower = 10;
    CS_CHECK(cs_opt_solve(&p, &ll, &r, err, sizeof err) == 0 && r.method == CS_OPT_LAGRANGE && r.welfare >= 10 &&
             r.welfare <= 17);
    /* Value model: 100 e^(-0.5 d) - 3 d, deadline 2: v(0) = 100,
     * v(1) = 60.653066 - 3 = 57.653066, v(3) = 0 (past the deadline). */
    cs_opt_job_t e = {5, 9, 1, 0, 100, 3, 0.5, 2};
    CS_CHECK(cs_opt_value(&e, 0) == 100);
    CS_CHECK(fabs(cs_opt_value(&e, 1) - 57.653066) < 1e-6);
    CS_CHECK(cs_opt_value(&e, 3) == 0);
    /* a delay equal to the deadline still counts: v(2) = 100 e^-1 - 6 = 30.787944 */
    CS_CHECK(fabs(cs_opt_value(&e, 2) - 30.787944) < 1e-6);
    CS_CHECK_STR(cs_opt_method_name(CS_OPT_LAGRANGE), "lagrangian");
    /* The budget and the cap are inclusive (issue 29): a job whose gas
     * equals the block's budget, or its per-fire cap, may fire.  Two blocks
     * of budget 100; jobs (gas 100, value 10) and (gas 60, value 3), window
     * [1, 2]: one in each block, 10 + 3 = 13 (excluding the 100-gas job
     * would leave 3).  The same with no budget and cap 100: both fire, 13;
     * cap 99: only the 60-gas job, 3. */
    j[0] = (cs_opt_job_t){1, 2, 100, 1, 10, 0, 0, 0};
    j[1] = (cs_opt_job_t){1, 2, 60, 2, 3, 0, 0, 0};
    p.lower = 0;
    CS_CHECK(cs_opt_solve(&p, NULL, &r, err, sizeof err) == 0 && r.welfare == 13 && r.method == CS_OPT_ILP);
    b[0].budget = b[1].budget = UINT64_MAX;
    b[0].cap = b[1].cap = 100;
    CS_CHECK(cs_opt_solve(&p, NULL, &r, err, sizeof err) == 0 && r.welfare == 13);
    b[0].cap = b[1].cap = 99;
    CS_CHECK(cs_opt_solve(&p, NULL, &r, err, sizeof err) == 0 && r.welfare == 3);
}

/* Names, rules and the edges of the problem:
 *   - every method's name; cs_opt_exact true for none, ilp, unconstrained;
 *   - cs_opt_rules: fifo enforces no budget, no cap and no quota; eip1559
 *     the budget (CS_MF_BUDGET), the cap and the quotas; greedy the budget
 *     only; an unknown name is -1;
 *   - a value that grows (rate -1, decay 3): v(d) = e^d - 3d is 1 at d = 0,
 *     e - 3 < 0 at d = 1 (no variable there, but the scan goes on) and
 *     e^2 - 6 = 1.389056 at d = 2: the optimum over [1, 3] is e^2 - 6;
 *   - no job: welfare 0, method none. */

/* ---- the Lagrangian bound, full scan ---------------------------------- */

#define LJ 200
#define LB 160
#define LV (LJ * LB)

/* The documented method (cs_optimum.h, CS_OPT_LAGRANGE) with every height
 * of every job evaluated in every pass. */
static double ref_lagrange(const cs_opt_problem_t *p)
{
    static uint32_t vj[LV], vb[LV];
    static double vv[LV];
    size_t n = 0;
    for (size_t j = 0; j < p->n_jobs; j++) {
        const cs_opt_job_t *jb = &p->jobs[j];
        uint64_t hi = p->h0 + p->n_blocks - 1;
        uint64_t h = jb->due > p->h0 ? jb->due : p->h0, end = jb->last < hi ? jb->last : hi;
        for (; jb->last >= jb->due && h <= end; h++) {
            double v = cs_opt_value(jb, h - jb->due);
            if (!(v > 0)) {
                if (jb->rate >= 0 && jb->decay >= 0) break;
                continue;
            }
            const cs_opt_block_t *bl = &p->blocks[h - p->h0];
            if (bl->budget < jb->gas || bl->cap < jb->gas) continue;
            vj[n] = (uint32_t)j, vb[n] = (uint32_t)(h - p->h0), vv[n++] = v;
        }
    }
    double mu[LB] = {0}, nu[LB] = {0}, gas[LB], cnt[LB], best = INFINITY, theta = 2.0;
    int stall = 0;
    for (int it = 0; it < 300; it++) {
        double L = 0;
        for (size_t b = 0; b < p->n_blocks; b++) {
            if (p->blocks[b].budget != UINT64_MAX) L += mu[b] * (double)p->blocks[b].budget;
            if (p->blocks[b].quota_block) L += nu[b] * (double)p->blocks[b].quota_block;
            gas[b] = cnt[b] = 0;
        }
        for (size_t i = 0; i < n;) {
            size_t k = i, arg = SIZE_MAX;
            double g = (double)p->jobs[vj[i]].gas, top = 0;
            for (; k < n && vj[k] == vj[i]; k++) {
                double r = vv[k] - mu[vb[k]] * g - nu[vb[k]];
                if (r > top) top = r, arg = vb[k];
            }
            if (arg != SIZE_MAX) L += top, gas[arg] += g, cnt[arg] += 1;
            i = k;
        }
        if (isinf(best) || L < best - 1e-12 * best) best = L, stall = 0;
        else if (++stall >= 10) theta /= 2, stall = 0;
        if (best - p->lower <= 1e-6 * best || theta < 1e-4) break;
        double norm = 0;
        for (size_t b = 0; b < p->n_blocks; b++) {
            const cs_opt_block_t *bl = &p->blocks[b];
            if (bl->budget != UINT64_MAX && (mu[b] > 0 || (double)bl->budget - gas[b] < 0))
                norm += ((double)bl->budget - gas[b]) * ((double)bl->budget - gas[b]);
            if (bl->quota_block && (nu[b] > 0 || (double)bl->quota_block - cnt[b] < 0))
                norm += ((double)bl->quota_block - cnt[b]) * ((double)bl->quota_block - cnt[b]);
        }
        if (norm == 0) break;
        double t = theta * (L - p->lower) / norm;
        for (size_t b = 0; b < p->n_blocks; b++) {
            const cs_opt_block_t *bl = &p->blocks[b];
            if (bl->budget != UINT64_MAX) mu[b] = fmax(0, mu[b] - t * ((double)bl->budget - gas[b]));
            if (bl->quota_block) nu[b] = fmax(0, nu[b] - t * ((double)bl->quota_block - cnt[b]));
        }
    }
    return best;
}

static void test_lagrange_scan(void)
{
    int same = 0, pruned_matters = 0;
    const int N = 200;
    for (unsigned i = 0; i < (unsigned)N; i++) {
        gsl_rng *r = cs_rng_stream(20261127u, i);
        if (!r) {
            CS_CHECK(r != NULL);
            return;
        }
        static cs_opt_job_t jobs[LJ];
        cs_opt_block_t blocks[LB];
        /* Odd instances: long windows over a congested lane (mu > 0 in
         * most blocks, where the range-minimum cut decides). */
        size_t nb = 5 + gsl_rng_uniform_int(r, i % 2 ? LB - 4 : 36);
        size_t nj = 10 + gsl_rng_uniform_int(r, i % 2 ? LJ - 9 : 51);
        uint64_t h0 = 1 + gsl_rng_uniform_int(r, 50);
        int ties = (int)gsl_rng_uniform_int(r, 2);
        for (size_t b = 0; b < nb; b++) {
            blocks[b].budget = gsl_rng_uniform_int(r, 8) == 0 ? UINT64_MAX : 100 + gsl_rng_uniform_int(r, i % 2 ? 200 : 600);
            blocks[b].cap = gsl_rng_uniform_int(r, 4) == 0 ? 150 : UINT64_MAX;
            blocks[b].quota_block = gsl_rng_uniform_int(r, 3) == 0 ? (uint32_t)(1 + gsl_rng_uniform_int(r, 4)) : 0;
            blocks[b].quota_actor = 0;
        }
        for (size_t k = 0; k < nj; k++) {
            cs_opt_job_t *j = &jobs[k];
            j->due = h0 + gsl_rng_uniform_int(r, nb + 2) - 2;
            j->last = j->due + gsl_rng_uniform_int(r, i % 2 ? 150 : 31);
            j->gas = 20 + gsl_rng_uniform_int(r, 200);
            j->actor = (uint32_t)gsl_rng_uniform_int(r, 3);
            /* Tied instances: a few integer values, no decay (many equal
             * reduced values, where the first-best rule decides). */
            j->value = ties ? (double)(100 * (1 + gsl_rng_uniform_int(r, 3))) : 1 + 999 * gsl_rng_uniform(r);
            j->decay = !ties && gsl_rng_uniform_int(r, 2) ? j->value * 0.05 * gsl_rng_uniform(r) : 0;
            j->rate = !ties && gsl_rng_uniform_int(r, 3) == 0 ? 0.2 * gsl_rng_uniform(r) : 0;
            if (!ties && gsl_rng_uniform_int(r, 6) == 0) { /* falls, then rises: no early break */
                j->rate = -0.05;
                j->decay = j->value * (0.06 + 0.2 * gsl_rng_uniform(r));
            }
            j->deadline = gsl_rng_uniform_int(r, 6) == 0 ? 5 : 0;
        }
        cs_opt_problem_t p = {jobs, nj, h0, blocks, nb, gsl_rng_uniform_int(r, 2) ? 0 : 1000.0};
        gsl_rng_free(r);
        cs_opt_limits_t ll = {0, 0, 1000};
        cs_opt_result_t res;
        char err[128] = "";
        double want = ref_lagrange(&p);
        CS_CHECK(cs_opt_solve(&p, &ll, &res, err, sizeof err) == 0);
        if (res.method == CS_OPT_LAGRANGE && memcmp(&res.welfare, &want, sizeof want) == 0) same++;
        else printf("lagrange instance %u: %.17g, full scan %.17g (method %s)\n", i, res.welfare, want,
                    cs_opt_method_name(res.method));
        pruned_matters += res.method == CS_OPT_LAGRANGE;
    }
    printf("lagrangian = full scan, bit for bit: %d of %d\n", same, N);
    CS_CHECK(same == N && pruned_matters == N);
}

static void test_edges(void)
{
    CS_CHECK_STR(cs_opt_method_name(CS_OPT_NONE), "none");
    CS_CHECK_STR(cs_opt_method_name(CS_OPT_ILP), "ilp");
    CS_CHECK_STR(cs_opt_method_name(CS_OPT_LP), "lp");
    CS_CHECK_STR(cs_opt_method_name(CS_OPT_FREE), "unconstrained");
    CS_CHECK(cs_opt_exact(CS_OPT_FREE) && cs_opt_exact(CS_OPT_NONE) && !cs_opt_exact(CS_OPT_LP) &&
             !cs_opt_exact(CS_OPT_LAGRANGE));
    int bu = -1, ca = -1, qu = -1;
    CS_CHECK(cs_opt_rules("fifo", &bu, &ca, &qu) == 0 && bu == 0 && ca == 0 && qu == 0);
    CS_CHECK(cs_opt_rules("eip1559", &bu, &ca, &qu) == 0 && bu == 1 && ca == 1 && qu == 1);
    CS_CHECK(cs_opt_rules("greedy", &bu, &ca, &qu) == 0 && bu == 1 && ca == 1 && qu == 1); /* quotas too (N57) */
    CS_CHECK(cs_opt_rules("no-such-mechanism", &bu, &ca, &qu) == -1);
    cs_opt_job_t j = {1, 3, 60, 0, 1, 3, -1, 0};
    cs_opt_block_t b[3] = {{100, UINT64_MAX, 0, 0}, {100, UINT64_MAX, 0, 0}, {100, UINT64_MAX, 0, 0}};
    cs_opt_problem_t p = {&j, 1, 1, b, 3, 0};
    cs_opt_result_t r;
    char err[128];
    CS_CHECK(cs_opt_solve(&p, NULL, &r, err, sizeof err) == 0 && fabs(r.welfare - (exp(2.0) - 6.0)) < 1e-9 &&
             r.vars == 2);
    p.n_jobs = 0;
    CS_CHECK(cs_opt_solve(&p, NULL, &r, err, sizeof err) == 0 && r.welfare == 0 && r.method == CS_OPT_NONE);
}

/*
 * cs_opt_run from hand-built rows: two blocks (heights 1, 2) of lane
 * budget 100 and fire cap 100; timer A (id 0xa, value 10, no decay)
 * fired at height 1 with delay 0 and gas 100; timer B (id 0xb, value 3,
 * gas 100, due 1) cancelled by its owner.  Ended at height 2 (the cancel
 * lands in block 2), B may fire at height 1 only, A at 1 or 2: the
 * optimum puts B at 1 and A at 2, 13.  Ended at height 1, B was withdrawn
 * before it came due and is no job: 10.  Then the files it refuses, each
 * usable = 0 with the reason.
 */
static void test_run_rows(void)
{
    cs_h5_block_t b[2];
    cs_h5_fire_t f[1];
    cs_h5_timer_t t[2];
    memset(b, 0, sizeof b);
    memset(f, 0, sizeof f);
    memset(t, 0, sizeof t);
    for (int i = 0; i < 2; i++) {
        b[i].height = (uint64_t)i + 1;
        b[i].lane_budget = 100;
        b[i].fire_cap = 100;
    }
    t[0].timer_id = 0xa, t[0].actor = 1, t[0].due_height = 1, t[0].gas_limit = 100, t[0].value = 10;
    t[0].fires = 1, t[0].outcome = CS_H5_OUTCOME_FIRED, t[0].end_height = 1;
    t[1].timer_id = 0xb, t[1].actor = 2, t[1].due_height = 1, t[1].gas_limit = 100, t[1].value = 3;
    t[1].outcome = CS_H5_OUTCOME_CANCELLED, t[1].end_height = 2;
    f[0].height = 1, f[0].timer_id = 0xa, f[0].actor = 1, f[0].due_height = 1, f[0].gas_limit = 100;
    f[0].value = 10;
    cs_opt_result_t r;
    int usable = -1;
    char why[256] = "";
    CS_CHECK_EQ_U64(cs_opt_run("eip1559", b, 2, f, 1, t, 2, NULL, &r, &usable, why, sizeof why), CS_OK);
    CS_CHECK(usable == 1 && r.method == CS_OPT_ILP && fabs(r.welfare - 13) < 1e-9);
    t[1].end_height = 1;
    CS_CHECK_EQ_U64(cs_opt_run("eip1559", b, 2, f, 1, t, 2, NULL, &r, &usable, why, sizeof why), CS_OK);
    CS_CHECK(usable == 1 && fabs(r.welfare - 10) < 1e-9);
    /* fifo, the unbounded reference: no budget, both fit block 1 anyway */
    t[1].end_height = 2;
    CS_CHECK(cs_opt_run("fifo", b, 2, f, 1, t, 2, NULL, &r, &usable, why, sizeof why) == CS_OK && usable == 1 &&
             fabs(r.welfare - 13) < 1e-9);

    CS_CHECK(cs_opt_run("nope", b, 2, f, 1, t, 2, NULL, &r, &usable, why, sizeof why) == CS_OK && usable == 0 &&
             strstr(why, "unknown mechanism 'nope'") != NULL);
    CS_CHECK(cs_opt_run("eip1559", b, 0, f, 0, t, 0, NULL, &r, &usable, why, sizeof why) == CS_OK && usable == 1 &&
             r.welfare == 0);
    b[1].height = 100; /* heights 1 and 100 in two rows */
    CS_CHECK(cs_opt_run("eip1559", b, 2, f, 1, t, 2, NULL, &r, &usable, why, sizeof why) == CS_OK && usable == 0 &&
             strstr(why, "heights 1..100 are not one row per height") != NULL);
    b[1].height = 2;
    f[0].value = 10.5; /* the model gives 10 */
    CS_CHECK(cs_opt_run("eip1559", b, 2, f, 1, t, 2, NULL, &r, &usable, why, sizeof why) == CS_OK && usable == 0 &&
             strstr(why, "/fires row 0: value 10.5") != NULL);
    f[0].value = 10;
    f[0].timer_id = 0xc; /* no such timer */
    CS_CHECK(cs_opt_run("eip1559", b, 2, f, 1, t, 2, NULL, &r, &usable, why, sizeof why) == CS_OK && usable == 0 &&
             strstr(why, "has no /timers row") != NULL);
    f[0].timer_id = 0xa;
    t[1].decay_rate = NAN; /* an unfired timer outside the value model */
    CS_CHECK(cs_opt_run("eip1559", b, 2, f, 1, t, 2, NULL, &r, &usable, why, sizeof why) == CS_OK && usable == 0 &&
             strstr(why, "not of the form") != NULL);
    t[1].decay_rate = 0;
    t[0].decay_rate = NAN; /* the fired one */
    CS_CHECK(cs_opt_run("eip1559", b, 2, f, 1, t, 2, NULL, &r, &usable, why, sizeof why) == CS_OK && usable == 0 &&
             strstr(why, "agent 0 (timer 000000000000000a)") != NULL);
}

/*
 * The bound's gap (cs_opt_gap).
 * 1. On the 300 random instances of test_brute with windows of 2 blocks
 *    (2 windows; one, the whole run, when it has at most 2 blocks): each
 *    window starts where the documented stride puts it, its exact optimum
 *    equals brute force over that window's blocks (every job, clipped to
 *    them by the brute force's own feasibility test), and neither bound
 *    (lp, lagrangian) is below it; the sums give the gap.
 * 2. A strictly loose case by hand: one block of budget 100, jobs of 60
 *    cycles worth 10 (fired there) and 7: the optimum is 10; the LP
 *    relaxation takes the 10 and 40/60 of the 7, 10 + 14/3 = 44/3, so the
 *    gap is (44/3 - 10) / 10 = 7/15.  The Lagrangian dual
 *    min_mu 100 mu + max(0, 10 - 60 mu) + max(0, 7 - 60 mu) is 44/3 too
 *    (at mu = 7/60); the subgradient method ends at or above it.
 * 3. Placement and clipping: 10 blocks, width 4, 3 windows start at
 *    blocks 0, 3 and 6; a job due at the first block, worth 10 losing 1 a
 *    block, is worth 10 - 3 = 7 in the second window (its best height
 *    there, the window's first block, delay 3) and 4 in the third.
 */
static void test_gap(void)
{
    unsigned agree = 0, placed = 0, above = 0, solved = 0, sums = 0;
    double worst = 0;
    for (unsigned i = 0; i < 300; i++) {
        cs_opt_job_t jobs[NJ];
        cs_opt_block_t blocks[NB];
        size_t nj, nb;
        uint64_t h0;
        if (!instance_no(i, jobs, &nj, blocks, &nb, &h0)) return;
        cs_opt_problem_t p = {jobs, nj, h0, blocks, nb, 0};
        cs_opt_gap_cfg_t cfg = {2, 2, 10000, 1000};
        for (int m = 0; m < 2; m++) {
            int method = m ? CS_OPT_LAGRANGE : CS_OPT_LP;
            cs_opt_gap_window_t win[2];
            cs_opt_gap_t g;
            char err[256] = "";
            CS_CHECK(cs_opt_gap(&p, NULL, method, &cfg, &g, win, err, sizeof err) == CS_OK);
            size_t k = nb <= 2 ? 1 : 2, w = nb < 2 ? nb : 2;
            CS_CHECK(g.windows == k && g.width == w && g.method == method);
            double es = 0, bs = 0;
            for (size_t q = 0; q < g.windows && q < 2; q++) {
                size_t a = k == 1 ? 0 : q * (nb - 2); /* floor(q (n - w) / (k - 1)), k = 2 */
                placed += win[q].h0 == h0 + a && win[q].blocks == w;
                cs_opt_problem_t sub = {jobs, nj, h0 + a, blocks + a, w, 0};
                double want = brute(&sub), tol = 1e-9 * (want > 1 ? want : 1);
                solved += win[q].solved;
                agree += win[q].solved && fabs(win[q].exact - want) <= tol;
                above += win[q].bound >= want - tol;
                if (win[q].bound - want > worst) worst = win[q].bound - want;
                es += win[q].exact;
                bs += win[q].bound;
            }
            sums += fabs(g.exact_sum - es) <= 1e-9 * (es > 1 ? es : 1) && fabs(g.bound_sum - bs) <= 1e-9 * (bs > 1 ? bs : 1) &&
                    (es > 0 ? fabs(g.gap - (bs - es) / es) <= 1e-12 : isnan(g.gap));
        }
    }
    printf("bound gap: 300 instances x 2 methods, windows placed as documented %u, solved exactly %u, equal to brute force "
           "%u, bound >= it %u, sums and gap right %u of 600 samples; largest bound - optimum %.4g\n",
           placed, solved, agree, above, sums, worst);
    CS_CHECK(agree == solved && solved == placed && placed == above);
    CS_CHECK(sums == 600);
    CS_CHECK(placed > 600); /* most instances have 2 windows */

    /* 2. The loose case. */
    cs_opt_job_t j[2] = {{1, 1, 60, 1, 10, 0, 0, 0}, {1, 1, 60, 2, 7, 0, 0, 0}};
    cs_opt_block_t bl = {100, UINT64_MAX, 0, 0};
    cs_opt_problem_t p = {j, 2, 1, &bl, 1, 0};
    uint64_t fired[2] = {1, 0};
    cs_opt_gap_cfg_t cfg = {3, 8, 10000, 1000};
    cs_opt_gap_t glp, glg;
    cs_opt_gap_window_t w1;
    char err[256] = "";
    CS_CHECK(cs_opt_gap(&p, fired, CS_OPT_LP, &cfg, &glp, &w1, err, sizeof err) == CS_OK);
    CS_CHECK(glp.windows == 1 && glp.solved == 1 && glp.width == 1 && w1.jobs == 2);
    CS_CHECK(fabs(w1.exact - 10.0) < 1e-9 && fabs(w1.bound - 44.0 / 3.0) < 1e-9);
    CS_CHECK(fabs(glp.gap - 7.0 / 15.0) < 1e-9 && fabs(glp.gap_max - 7.0 / 15.0) < 1e-9);
    CS_CHECK(cs_opt_gap(&p, fired, CS_OPT_LAGRANGE, &cfg, &glg, NULL, err, sizeof err) == CS_OK);
    CS_CHECK(glg.solved == 1 && glg.gap >= 7.0 / 15.0 - 1e-9 && glg.gap <= 7.0 / 15.0 + 0.01);
    printf("bound gap, hand case: exact 10, LP %.6f (gap %.6f, 7/15 = %.6f), Lagrangian gap %.6f\n", w1.bound, glp.gap,
           7.0 / 15.0, glg.gap);
    /* Not a bound: an error. */
    CS_CHECK(cs_opt_gap(&p, NULL, CS_OPT_ILP, &cfg, &glp, NULL, err, sizeof err) == CS_EINVAL &&
             strstr(err, "not a bound") != NULL);

    /* 3. Placement and clipping. */
    cs_opt_job_t d = {11, 20, 10, 1, 10, 1, 0, 0};
    cs_opt_block_t b10[10];
    for (int b = 0; b < 10; b++) b10[b] = (cs_opt_block_t){1000, UINT64_MAX, 0, 0};
    cs_opt_problem_t pd = {&d, 1, 11, b10, 10, 0};
    cs_opt_gap_cfg_t c3 = {3, 4, 10000, 1000};
    cs_opt_gap_window_t w3[3];
    cs_opt_gap_t g3;
    CS_CHECK(cs_opt_gap(&pd, NULL, CS_OPT_LAGRANGE, &c3, &g3, w3, err, sizeof err) == CS_OK);
    CS_CHECK(g3.windows == 3 && w3[0].h0 == 11 && w3[1].h0 == 14 && w3[2].h0 == 17);
    CS_CHECK(w3[0].exact == 10.0 && w3[1].exact == 7.0 && w3[2].exact == 4.0 && g3.gap == 0.0);
}

/* The sample's command-line options (cs_metrics_gap_arg): decimal,
 * windows >= 0, width >= 1, the option's argument consumed. */
static void test_gap_arg(void)
{
    char *ok[] = {"compare", "--gap-windows", "0", "--gap-width", "12"};
    char *bad[] = {"compare", "--gap-width", "0", "--gap-windows", "-1", "--gap-windows"};
    int i = 1;
    CS_CHECK(cs_metrics_gap_arg(5, ok, &i) == 1 && i == 2);
    i = 3;
    CS_CHECK(cs_metrics_gap_arg(5, ok, &i) == 1 && i == 4);
    for (i = 1; i < 6; i += 2) {
        int j = i;
        CS_CHECK(cs_metrics_gap_arg(6, bad, &j) == 0 && j == i);
    }
    cs_metrics_set_gap(NULL);
}

int main(void)
{
    test_gap_arg();
    test_gap();
    test_hand();
    test_edges();
    test_brute();
    test_lagrange_scan();
    test_run_rows();
    return cs_test_done("optimum");
}
