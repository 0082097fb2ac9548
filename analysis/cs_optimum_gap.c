/*
 * cs_optimum_gap.c -- how loose the welfare optimum's upper bound is: the
 * exact optimum against the bound's method on a sample of windows of a
 * run (cs_optimum.h cs_opt_gap, analysis/README.md "Bound gap").
 */
#include "cs_optimum.h"

#include "cs_error.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first block of window i of k over n blocks of width w (w < n):
 * floor(i (n - w) / (k - 1)), the middle for one window. */
static size_t cs__win_start(size_t i, size_t k, size_t n, size_t w)
{
    if (k <= 1) return (n - w) / 2;
    return (size_t)(((unsigned long long)i * (unsigned long long)(n - w)) / (unsigned long long)(k - 1));
}

/* Solve one window: blocks [a, a + w) of p, its jobs copied into buf. */
static int cs__win_solve(const cs_opt_problem_t *p, const uint64_t *fired, int method, const cs_opt_gap_cfg_t *cfg, size_t a, size_t w,
                         cs_opt_job_t *buf, cs_opt_gap_window_t *out, char *err, size_t errcap)
{
    uint64_t lo = p->h0 + a, hi = lo + w - 1;
    size_t nj = 0;
    double lower = 0;
    for (size_t j = 0; j < p->n_jobs; j++) {
        const cs_opt_job_t *jb = &p->jobs[j];
        if (jb->last < jb->due || jb->due > hi || jb->last < lo) continue;
        buf[nj++] = *jb;
        /* The realised fire inside the window is feasible there too. */
        uint64_t h = fired ? fired[j] : 0;
        if (h >= lo && h <= hi && h >= jb->due) lower += cs_opt_value(jb, h - jb->due);
    }
    cs_opt_problem_t q = {buf, nj, lo, p->blocks + a, w, lower};
    /* Exact: branch and bound up to max_vars variables (beyond: the LP
     * relaxation, not exact, so the window is unsolved -- a deterministic
     * rule, unlike the time limit); the bound: the relaxation alone (lp),
     * or the Lagrangian (lagrangian). */
    cs_opt_limits_t exact = {cfg->max_vars, SIZE_MAX, cfg->ilp_time_ms};
    cs_opt_limits_t bound = {0, method == CS_OPT_LP ? SIZE_MAX : 0, cfg->ilp_time_ms};
    cs_opt_result_t re, rb;
    int rc = cs_opt_solve(&q, &exact, &re, err, errcap);
    if (rc == CS_OK) rc = cs_opt_solve(&q, &bound, &rb, err, errcap);
    if (rc != CS_OK) return rc;
    *out = (cs_opt_gap_window_t){lo, w, nj, re.vars, re.welfare, cs_opt_exact(re.method), rb.welfare};
    return CS_OK;
}

int cs_opt_gap(const cs_opt_problem_t *p, const uint64_t *fired, int method, const cs_opt_gap_cfg_t *cfg,
               cs_opt_gap_t *out, cs_opt_gap_window_t *win, char *err, size_t errcap)
{
    const cs_opt_gap_cfg_t def = CS_OPT_GAP_DEFAULT;
    const cs_opt_gap_cfg_t *c = cfg ? cfg : &def;
    memset(out, 0, sizeof *out);
    out->method = method;
    out->gap = out->gap_max = (double)NAN;
    if (method != CS_OPT_LP && method != CS_OPT_LAGRANGE) {
        if (err && errcap) snprintf(err, errcap, "bound gap: method %d is not a bound", method);
        return CS_EINVAL;
    }
    if (c->windows == 0 || c->width == 0 || p->n_blocks == 0) return CS_OK;
    size_t w = c->width < p->n_blocks ? c->width : p->n_blocks;
    size_t k = w == p->n_blocks ? 1 : c->windows;
    out->width = w;
    cs_opt_job_t *buf = malloc((p->n_jobs ? p->n_jobs : 1) * sizeof *buf);
    if (buf == NULL) return CS_ENOMEM;
    int rc = CS_OK;
    for (size_t i = 0; i < k && rc == CS_OK; i++) {
        cs_opt_gap_window_t one;
        rc = cs__win_solve(p, fired, method, c, w == p->n_blocks ? 0 : cs__win_start(i, k, p->n_blocks, w), w, buf, &one,
                           err, errcap);
        if (rc != CS_OK) break;
        out->windows++;
        if (!one.solved) {
            if (win) win[i] = one;
            continue;
        }
        if (one.bound < one.exact && one.exact - one.bound <= 1e-9 * one.exact)
            one.bound = one.exact; /* the same optimum, rounded apart (a larger difference stays visible) */
        if (win) win[i] = one;
        if (one.exact > 0) {
            double g = (one.bound - one.exact) / one.exact;
            if (isnan(out->gap_max) || g > out->gap_max) out->gap_max = g;
        }
        out->solved++;
        out->exact_sum += one.exact;
        out->bound_sum += one.bound;
    }
    free(buf);
    if (rc == CS_OK && out->exact_sum > 0) out->gap = (out->bound_sum - out->exact_sum) / out->exact_sum;
    return rc;
}
