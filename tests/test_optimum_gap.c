/*
 * test_optimum_gap.c -- the bound's gap (analysis/cs_optimum_gap.c,
 * cs_optimum.h cs_opt_gap; analysis/README.md "Bound gap") at the edges
 * test_optimum.c leaves out, against optima worked out by hand:
 *   - one window of a longer run is the middle one: floor((n - w) / 2);
 *   - a window with more variables than max_vars is sampled but not
 *     solved (no gap from it);
 *   - windows of welfare 0 are solved but give no gap (NaN);
 *   - no sample at all (cfg NULL: the default of 0 windows, width 0, a run
 *     of no blocks), and a method that is not a bound with no room for the
 *     message;
 *   - the Lagrangian bound of a value above FLT_MAX (its scan's float
 *     bound is INFINITY there, never a cut).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cs_error.h"
#include "cs_optimum.h"
#include "cs_test.h"

/* Six blocks (heights 100 .. 105) with room for one fire each (budget 100,
 * every job 100 cycles), values constant:
 *   J0 due 102, last 103, worth 10;   J1 due 102, last 102, worth 7;
 *   J2 due 100, last 101, worth 50;   J3 due 103, last 105, worth 4.
 * One window of 2 blocks: the middle, blocks 2 and 3 (heights 102, 103).
 * J2 cannot fire there; J0 (2 heights), J1 and J3 (1 each): 4 variables.
 * Best: J1 at 102 and J0 at 103, 7 + 10 = 17 (J0 at 102 with J3 at 103 is
 * 14).  One fire a block and at most one a job is a bipartite matching,
 * whose LP relaxation is integral: the LP bound is 17 too, gap 0. */
static const cs_opt_job_t jobs[4] = {{102, 103, 100, 1, 10, 0, 0, 0},
                                     {102, 102, 100, 2, 7, 0, 0, 0},
                                     {100, 101, 100, 3, 50, 0, 0, 0},
                                     {103, 105, 100, 4, 4, 0, 0, 0}};

static void blocks6(cs_opt_block_t *b)
{
    for (int i = 0; i < 6; i++) b[i] = (cs_opt_block_t){100, UINT64_MAX, 0, 0};
}

static void test_middle(void)
{
    cs_opt_block_t b[6];
    blocks6(b);
    cs_opt_problem_t p = {jobs, 4, 100, b, 6, 0};
    /* J0 fired in the window, J1 after it, J2 before it, J3 not at all:
     * only the first counts towards the window's feasible welfare. */
    const uint64_t fired[4] = {103, 104, 100, 0};
    cs_opt_gap_cfg_t cfg = {1, 2, 10000, 1000};
    cs_opt_gap_t g;
    cs_opt_gap_window_t w;
    char err[128] = "";
    CS_CHECK_EQ_U64(cs_opt_gap(&p, fired, CS_OPT_LP, &cfg, &g, &w, err, sizeof err), CS_OK);
    CS_CHECK(g.method == CS_OPT_LP && g.windows == 1 && g.solved == 1 && g.width == 2);
    CS_CHECK_EQ_U64(w.h0, 102);
    CS_CHECK(w.blocks == 2 && w.jobs == 3 && w.vars == 4 && w.solved == 1);
    CS_CHECK(fabs(w.exact - 17.0) < 1e-9 && fabs(w.bound - 17.0) < 1e-9);
    CS_CHECK(fabs(g.exact_sum - 17.0) < 1e-9 && fabs(g.bound_sum - 17.0) < 1e-9);
    CS_CHECK(fabs(g.gap) < 1e-9 && fabs(g.gap_max) < 1e-9);

    /* At most 3 variables solved exactly: the window (4) is sampled, not
     * solved; its bound is still the LP's 17; no gap. */
    cfg.max_vars = 3;
    CS_CHECK_EQ_U64(cs_opt_gap(&p, NULL, CS_OPT_LP, &cfg, &g, &w, err, sizeof err), CS_OK);
    CS_CHECK(g.windows == 1 && g.solved == 0 && w.solved == 0 && w.h0 == 102);
    CS_CHECK(fabs(w.bound - 17.0) < 1e-9);
    CS_CHECK(g.exact_sum == 0.0 && g.bound_sum == 0.0 && isnan(g.gap) && isnan(g.gap_max));
    CS_CHECK_EQ_U64(cs_opt_gap(&p, NULL, CS_OPT_LP, &cfg, &g, NULL, err, sizeof err), CS_OK); /* no window list */
    CS_CHECK(g.windows == 1 && g.solved == 0 && isnan(g.gap));
}

/* Jobs worth nothing: two windows of 2 blocks (starts 0 and 4), each
 * solved with optimum 0 and bound 0, so neither the gap nor its largest
 * window value is defined. */
static void test_zero(void)
{
    cs_opt_job_t z[2] = {{100, 101, 100, 1, 0, 0, 0, 0}, {104, 105, 100, 2, 0, 0, 0, 0}};
    cs_opt_block_t b[6];
    blocks6(b);
    cs_opt_problem_t p = {z, 2, 100, b, 6, 0};
    cs_opt_gap_cfg_t cfg = {2, 2, 10000, 1000};
    cs_opt_gap_t g;
    cs_opt_gap_window_t w[2];
    CS_CHECK_EQ_U64(cs_opt_gap(&p, NULL, CS_OPT_LAGRANGE, &cfg, &g, w, NULL, 0), CS_OK);
    CS_CHECK(g.windows == 2 && g.solved == 2 && w[0].h0 == 100 && w[1].h0 == 104);
    CS_CHECK(w[0].jobs == 1 && w[1].jobs == 1 && w[0].exact == 0.0 && w[1].exact == 0.0);
    CS_CHECK(g.exact_sum == 0.0 && isnan(g.gap) && isnan(g.gap_max));
}

/* Nothing to sample, and a method that is not a bound. */
static void test_none(void)
{
    cs_opt_block_t b[6];
    blocks6(b);
    cs_opt_problem_t p = {jobs, 4, 100, b, 6, 0};
    cs_opt_gap_t g;
    cs_opt_gap_window_t w = {7, 7, 7, 7, 7.0, 7, 7.0};
    CS_CHECK_EQ_U64(cs_opt_gap(&p, NULL, CS_OPT_LP, NULL, &g, &w, NULL, 0), CS_OK); /* default: 0 windows */
    CS_CHECK(g.method == CS_OPT_LP && g.windows == 0 && g.width == 0 && isnan(g.gap) && isnan(g.gap_max));
    CS_CHECK(w.h0 == 7 && w.exact == 7.0); /* untouched */
    cs_opt_gap_cfg_t cfg = {2, 0, 10000, 1000};
    CS_CHECK_EQ_U64(cs_opt_gap(&p, NULL, CS_OPT_LAGRANGE, &cfg, &g, &w, NULL, 0), CS_OK);
    CS_CHECK(g.method == CS_OPT_LAGRANGE && g.windows == 0 && g.width == 0 && isnan(g.gap));
    cfg.width = 2;
    p.n_blocks = 0;
    CS_CHECK_EQ_U64(cs_opt_gap(&p, NULL, CS_OPT_LP, &cfg, &g, &w, NULL, 0), CS_OK);
    CS_CHECK(g.windows == 0 && g.width == 0 && w.h0 == 7);

    p.n_blocks = 6;
    char err[16] = "untouched";
    CS_CHECK_EQ_U64(cs_opt_gap(&p, NULL, CS_OPT_FREE, &cfg, &g, &w, NULL, 0), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_opt_gap(&p, NULL, CS_OPT_NONE, &cfg, &g, &w, err, 0), CS_EINVAL);
    CS_CHECK_STR(err, "untouched");
    CS_CHECK(g.method == CS_OPT_NONE && g.windows == 0 && isnan(g.gap));
}

/* The Lagrangian bound of values above FLT_MAX: its scan of a job's
 * heights keeps a float upper bound of the values left (rounded up,
 * INFINITY beyond FLT_MAX) and stops once it cannot beat the best so far,
 * so that bound must never fall below a value left.  Six blocks of budget
 * 100 (heights 7 .. 12), one job of 100 cycles worth 5e38 growing by
 * 2^(1/5) a block (rate -ln 2 / 5): best at the last height, 5e38 x 2 =
 * 1e39, the optimum; the bound is at least that (and, the budget never
 * exceeded, no step moves a multiplier off 0: exactly that). */
static void test_huge(void)
{
    cs_opt_job_t j = {7, 12, 100, 1, 5e38, 0, -log(2.0) / 5, 0};
    cs_opt_block_t b[6];
    for (int i = 0; i < 6; i++) b[i] = (cs_opt_block_t){100, UINT64_MAX, 0, 0};
    cs_opt_problem_t p = {&j, 1, 7, b, 6, 0};
    cs_opt_limits_t lim = {0, 0, 1000};
    cs_opt_result_t r;
    char err[128] = "";
    double want = 5e38 * exp(log(2.0) / 5 * 5);
    CS_CHECK_EQ_U64(cs_opt_solve(&p, &lim, &r, err, sizeof err), CS_OK);
    CS_CHECK(r.method == CS_OPT_LAGRANGE && r.vars == 6);
    CS_CHECK(r.welfare >= want * (1 - 1e-12) && r.welfare <= want * (1 + 1e-12));
}

int main(void)
{
    test_middle();
    test_zero();
    test_none();
    test_huge();
    return cs_test_done("optimum_gap");
}
