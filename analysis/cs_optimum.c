/*
 * cs_optimum.c -- the offline welfare optimum (cs_optimum.h) with GLPK.
 *
 * Variables are the pairs (job, height) with a positive value that the
 * block's per-fire cap and budget allow; they are generated job by job,
 * heights ascending.  The value model is non-increasing in the delay
 * (rate, decay >= 0), so a job's heights stop at its first zero value.
 * Rows are only written where they can bind (a block whose candidates'
 * gas exceeds its budget, a quota smaller than the candidates it counts).
 * The objective is scaled by the largest value and budget rows by the
 * budget, so GLPK sees coefficients in [0, 1].
 */
#include "cs_optimum.h"

#include "cs_error.h"

#include <glpk.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One variable x_{j,h}. */
typedef struct cs__var {
    uint32_t job; /* index into p->jobs */
    uint32_t blk; /* h - p->h0 */
    double v;     /* v_j(h - due_j) > 0 */
} cs__var_t;

const char *cs_opt_method_name(int method)
{
    switch (method) {
    case CS_OPT_ILP: return "ilp";
    case CS_OPT_LP: return "lp";
    case CS_OPT_ROLLING: return "rolling-lp";
    default: return "none";
    }
}

/* v_j(d) = max(0, value e^(-rate d) - decay d), 0 past a nonzero deadline.
 * With rate 0 this is bit for bit the agents' default linear model. */
double cs_opt_value(const cs_opt_job_t *j, uint64_t delay)
{
    if (j->deadline != 0 && delay > j->deadline) return 0.0;
    double d = (double)delay;
    double v = (j->rate != 0 ? j->value * exp(-j->rate * d) : j->value) - j->decay * d;
    return v > 0.0 ? v : 0.0;
}

static void cs__err(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cs__err(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || !cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

/* Visit the variables of job j in blocks [b0, b1): calls add(ctx, j, b, v)
 * for each, in height order. */
typedef int (*cs__visit_fn)(void *ctx, uint32_t j, uint32_t b, double v);
static int cs__job_vars(const cs_opt_problem_t *p, uint32_t j, size_t b0, size_t b1, cs__visit_fn add, void *ctx)
{
    const cs_opt_job_t *jb = &p->jobs[j];
    if (jb->last < jb->due || b0 >= b1) return 0;
    uint64_t lo = p->h0 + b0, hi = p->h0 + b1 - 1;
    uint64_t h = jb->due > lo ? jb->due : lo, end = jb->last < hi ? jb->last : hi;
    int monotone = jb->rate >= 0 && jb->decay >= 0;
    for (; h <= end; h++) {
        double v = cs_opt_value(jb, h - jb->due);
        if (!(v > 0)) {
            if (monotone) break;
            continue;
        }
        const cs_opt_block_t *bl = &p->blocks[h - p->h0];
        if (bl->budget < jb->gas || bl->cap < jb->gas) continue;
        int rc = add(ctx, j, (uint32_t)(h - p->h0), v);
        if (rc) return rc;
    }
    return 0;
}

/* Counting visitor: cnt[b]++. */
static int cs__count_add(void *ctx, uint32_t j, uint32_t b, double v)
{
    (void)j;
    (void)v;
    ((size_t *)ctx)[b]++;
    return 0;
}

/* Collecting visitor. */
typedef struct cs__vbuf {
    cs__var_t *v;
    size_t n, cap;
} cs__vbuf_t;
static int cs__vbuf_add(void *ctx, uint32_t j, uint32_t b, double v)
{
    cs__vbuf_t *vb = ctx;
    if (vb->n == vb->cap) {
        size_t c = vb->cap ? 2 * vb->cap : 1024;
        cs__var_t *q = realloc(vb->v, c * sizeof *q);
        if (!q) return CS_ENOMEM;
        vb->v = q;
        vb->cap = c;
    }
    vb->v[vb->n++] = (cs__var_t){j, b, v};
    return 0;
}

/* Order of variable indices by (blk, actor, index). */
typedef struct cs__sortctx {
    const cs__var_t *v;
    const cs_opt_job_t *jobs;
} cs__sortctx_t;
static int cs__cmp_blk_actor(const void *a, const void *b, void *arg)
{
    const cs__sortctx_t *c = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const cs__var_t *vx = &c->v[x], *vy = &c->v[y];
    if (vx->blk != vy->blk) return vx->blk < vy->blk ? -1 : 1;
    uint32_t ax = c->jobs[vx->job].actor, ay = c->jobs[vy->job].actor;
    if (ax != ay) return ax < ay ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Matrix in GLPK's 1-based triplets. */
typedef struct cs__mat {
    int *ia, *ja;
    double *ar;
    int ne, rows;
} cs__mat_t;

static void cs__mat_put(cs__mat_t *m, int row, int col, double a)
{
    m->ne++;
    m->ia[m->ne] = row;
    m->ja[m->ne] = col;
    m->ar[m->ne] = a;
}

/*
 * Solve the problem over the variables v[0..n) (grouped by job, heights
 * ascending).  want_int: branch and bound after the relaxation.  *obj is
 * the optimum (exact = 1) or the relaxation's value (exact = 0).
 */
static int cs__solve(const cs_opt_problem_t *p, const cs__var_t *v, size_t n, int want_int, int tm_ms, double *obj,
                     int *exact, char *err, size_t errcap)
{
    *obj = 0;
    *exact = 1;
    if (n == 0) return CS_OK;
    if (n > (size_t)(INT32_MAX / 4 - 1)) {
        cs__err(err, errcap, "optimum: %zu variables are too many for one problem", n);
        return CS_EINVAL;
    }
    double vmax = 0;
    for (size_t i = 0; i < n; i++) vmax = v[i].v > vmax ? v[i].v : vmax;
    cs__mat_t m = {0};
    size_t cap = 4 * n + 1;
    m.ia = malloc(cap * sizeof *m.ia);
    m.ja = malloc(cap * sizeof *m.ja);
    m.ar = malloc(cap * sizeof *m.ar);
    uint32_t *ord = malloc(n * sizeof *ord);
    /* Row bounds, one per row (at most 4n rows). */
    double *ub = malloc(cap * sizeof *ub);
    int rc = CS_OK;
    glp_prob *lp = NULL;
    if (!m.ia || !m.ja || !m.ar || !ord || !ub) {
        rc = CS_ENOMEM;
        goto out;
    }
    /* At most once per job (a job with one variable needs no row). */
    for (size_t i = 0; i < n;) {
        size_t k = i;
        while (k < n && v[k].job == v[i].job) k++;
        if (k - i > 1) {
            ub[++m.rows] = 1.0;
            for (size_t q = i; q < k; q++) cs__mat_put(&m, m.rows, (int)q + 1, 1.0);
        }
        i = k;
    }
    int jrows = m.rows;
    /* Per block: budget and block quota; per (block, actor): actor quota. */
    for (size_t i = 0; i < n; i++) ord[i] = (uint32_t)i;
    cs__sortctx_t sc = {v, p->jobs};
    qsort_r(ord, n, sizeof *ord, cs__cmp_blk_actor, &sc);
    for (size_t i = 0; i < n;) {
        size_t k = i;
        uint32_t b = v[ord[i]].blk;
        double gas = 0;
        while (k < n && v[ord[k]].blk == b) gas += (double)p->jobs[v[ord[k++]].job].gas;
        const cs_opt_block_t *bl = &p->blocks[b];
        if (bl->budget != UINT64_MAX && gas > (double)bl->budget) {
            ub[++m.rows] = 1.0;
            for (size_t q = i; q < k; q++)
                cs__mat_put(&m, m.rows, (int)ord[q] + 1, (double)p->jobs[v[ord[q]].job].gas / (double)bl->budget);
        }
        if (bl->quota_block != 0 && k - i > bl->quota_block) {
            ub[++m.rows] = (double)bl->quota_block;
            for (size_t q = i; q < k; q++) cs__mat_put(&m, m.rows, (int)ord[q] + 1, 1.0);
        }
        if (bl->quota_actor != 0) {
            for (size_t a = i; a < k;) {
                size_t e = a;
                uint32_t act = p->jobs[v[ord[a]].job].actor;
                while (e < k && p->jobs[v[ord[e]].job].actor == act) e++;
                if (e - a > bl->quota_actor) {
                    ub[++m.rows] = (double)bl->quota_actor;
                    for (size_t q = a; q < e; q++) cs__mat_put(&m, m.rows, (int)ord[q] + 1, 1.0);
                }
                a = e;
            }
        }
        i = k;
    }
    if (m.rows == jrows) { /* no block constraint binds: every job at its best height */
        for (size_t i = 0; i < n;) {
            size_t k = i;
            double best = 0;
            while (k < n && v[k].job == v[i].job) best = v[k].v > best ? v[k].v : best, k++;
            *obj += best;
            i = k;
        }
        goto out;
    }
    glp_term_out(GLP_OFF);
    lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MAX);
    glp_add_rows(lp, m.rows);
    for (int r = 1; r <= m.rows; r++) glp_set_row_bnds(lp, r, GLP_UP, 0.0, ub[r]);
    glp_add_cols(lp, (int)n);
    for (size_t i = 0; i < n; i++) {
        glp_set_col_bnds(lp, (int)i + 1, GLP_DB, 0.0, 1.0);
        glp_set_obj_coef(lp, (int)i + 1, v[i].v / vmax);
    }
    glp_load_matrix(lp, m.ne, m.ia, m.ja, m.ar);
    glp_smcp sp;
    glp_init_smcp(&sp);
    sp.msg_lev = GLP_MSG_OFF;
    sp.presolve = GLP_OFF;
    int sr = glp_simplex(lp, &sp);
    if (sr != 0 || glp_get_status(lp) != GLP_OPT) {
        cs__err(err, errcap, "optimum: GLPK simplex failed (code %d, status %d) on %zu variables", sr,
                glp_get_status(lp), n);
        rc = CS_EINVAL;
        goto out;
    }
    double lpval = glp_get_obj_val(lp) * vmax;
    *obj = lpval;
    *exact = 0;
    if (want_int) {
        for (size_t i = 0; i < n; i++) glp_set_col_kind(lp, (int)i + 1, GLP_BV);
        glp_iocp ip;
        glp_init_iocp(&ip);
        ip.msg_lev = GLP_MSG_OFF;
        ip.presolve = GLP_OFF;
        ip.tm_lim = tm_ms;
        int ir = glp_intopt(lp, &ip);
        if (ir == 0 && glp_mip_status(lp) == GLP_OPT) {
            /* The exact optimum, summed from the chosen assignment. */
            double w = 0;
            for (size_t i = 0; i < n; i++)
                if (glp_mip_col_val(lp, (int)i + 1) > 0.5) w += v[i].v;
            *obj = w;
            *exact = 1;
        }
    }
out:
    if (lp) glp_delete_prob(lp);
    free(m.ia);
    free(m.ja);
    free(m.ar);
    free(ord);
    free(ub);
    return rc;
}

int cs_opt_solve(const cs_opt_problem_t *p, const cs_opt_limits_t *limits, cs_opt_result_t *out, char *err,
                 size_t errcap)
{
    const cs_opt_limits_t def = CS_OPT_LIMITS_DEFAULT;
    const cs_opt_limits_t *L = limits ? limits : &def;
    memset(out, 0, sizeof *out);
    if (p->n_blocks == 0 || p->n_jobs == 0) return CS_OK;
    if (p->n_jobs > UINT32_MAX || p->n_blocks > UINT32_MAX) {
        cs__err(err, errcap, "optimum: too many jobs or blocks");
        return CS_EINVAL;
    }
    /* Pass 1: variables per block. */
    size_t *cnt = calloc(p->n_blocks, sizeof *cnt);
    if (!cnt) return CS_ENOMEM;
    for (size_t j = 0; j < p->n_jobs; j++) cs__job_vars(p, (uint32_t)j, 0, p->n_blocks, cs__count_add, cnt);
    size_t total = 0;
    for (size_t b = 0; b < p->n_blocks; b++) total += cnt[b];
    out->vars = total;
    int rc = CS_OK;
    cs__vbuf_t vb = {0};
    if (total == 0) goto done;
    size_t seg = L->lp_max_vars ? L->lp_max_vars : 1;
    int method = total <= L->ilp_max_vars ? CS_OPT_ILP : total <= seg ? CS_OPT_LP : CS_OPT_ROLLING;
    out->method = method;
    /* Segments of consecutive blocks with at most `seg` variables each (a
     * single block with more is a segment of its own). */
    for (size_t b0 = 0; b0 < p->n_blocks && rc == CS_OK;) {
        size_t b1 = b0, nv = 0;
        if (method == CS_OPT_ROLLING) {
            while (b1 < p->n_blocks && (b1 == b0 || nv + cnt[b1] <= seg)) nv += cnt[b1++];
        } else {
            b1 = p->n_blocks;
        }
        vb.n = 0;
        for (size_t j = 0; j < p->n_jobs && rc == CS_OK; j++)
            rc = cs__job_vars(p, (uint32_t)j, b0, b1, cs__vbuf_add, &vb);
        if (rc != CS_OK) break;
        double obj = 0;
        int exact = 0;
        rc = cs__solve(p, vb.v, vb.n, method == CS_OPT_ILP, L->ilp_time_ms, &obj, &exact, err, errcap);
        if (rc != CS_OK) break;
        if (method == CS_OPT_ILP && !exact) out->method = CS_OPT_LP; /* time limit: the bound */
        out->welfare += obj;
        out->segments++;
        b0 = b1;
    }
done:
    free(vb.v);
    free(cnt);
    if (rc == CS_ENOMEM) cs__err(err, errcap, "out of memory");
    return rc;
}
