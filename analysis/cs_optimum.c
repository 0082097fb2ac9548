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
#include "cs_h5.h"
#include "cs_mech.h"

#include <float.h>
#include <glpk.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One variable x_{j,h}. */
typedef struct cs__var {
    union {
        uint32_t job; /* index into p->jobs */
        float smax;   /* cs__lagrange's pass: an upper bound of the largest v from here to the job's end */
    };
    uint32_t blk; /* h - p->h0 */
    double v;     /* v_j(h - due_j) > 0 */
} cs__var_t;

const char *cs_opt_method_name(int method)
{
    switch (method) {
    case CS_OPT_ILP: return "ilp";
    case CS_OPT_LP: return "lp";
    case CS_OPT_LAGRANGE: return "lagrangian";
    case CS_OPT_FREE: return "unconstrained";
    default: return "none";
    }
}

int cs_opt_exact(int method)
{
    return method == CS_OPT_NONE || method == CS_OPT_ILP || method == CS_OPT_FREE;
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
    vb->v[vb->n++] = (cs__var_t){.job = j, .blk = b, .v = v};
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

/* Sum over jobs of their best value: the optimum when no block constraint
 * can bind (each job at its best height). */
static double cs__sum_best(const cs__var_t *v, size_t n)
{
    double w = 0;
    for (size_t i = 0; i < n;) {
        size_t k = i;
        double best = 0;
        while (k < n && v[k].job == v[i].job) best = v[k].v > best ? v[k].v : best, k++;
        w += best;
        i = k;
    }
    return w;
}

/* f >= x: x rounded up to a float (INFINITY above FLT_MAX). */
static float cs__float_up(double x)
{
    if (!(x <= (double)FLT_MAX)) return INFINITY;
    float f = (float)x;
    return (double)f >= x ? f : nextafterf(f, INFINITY);
}

/*
 * Lagrangian upper bound (CS_OPT_LAGRANGE): relax every block's budget
 * (multiplier mu_h per cycle) and block quota (nu_h per fire); per-actor
 * quotas are dropped (a further relaxation).  For any mu, nu >= 0
 *   L = sum_h (mu_h B_h + nu_h Q_h) + sum_j max(0, max_h (v_jh - mu_h gas_j - nu_h))
 * is >= the optimum; the subgradient method (Polyak steps towards the
 * known feasible value `lower`, theta halved after 10 iterations without
 * progress, at most 300 iterations) lowers it, and the smallest L seen is
 * returned.  Deterministic: fixed order and iteration count.
 *
 * A pass scans a job's heights only while one of them can still beat the
 * best reduced value found so far.  With mu, nu >= 0 and gas >= 0 the
 * reduced value v - mu gas - nu is <= v in floating point too (subtracting
 * a non-negative number never rounds up), so once an upper bound of the
 * largest v left in the job's window (smax, a suffix maximum rounded up to
 * a float, which takes the place of the job index) is <= top, no later
 * height can be strictly better and the scan stops.  The result is bit for
 * bit the full scan's (the same operations on every height that can
 * matter, the same first-best tie rule); on the shipped scenarios a pass
 * reads 2-5 % of the variables.  v is rewritten in place: its job indices
 * are gone on return.
 */
#define CS__HEAD 4
static int cs__lagrange(const cs_opt_problem_t *p, cs__var_t *v, size_t n, size_t b0, size_t nblk, double lower,
                        double *obj)
{
    size_t nj = 0;
    for (size_t i = 0; i < n; i++) nj += i == 0 || v[i].job != v[i - 1].job;
    double *mu = calloc(nblk, sizeof *mu), *nu = calloc(nblk, sizeof *nu);
    double *gas = calloc(nblk, sizeof *gas), *cnt = calloc(nblk, sizeof *cnt);
    size_t *jbeg = malloc((nj + 1) * sizeof *jbeg); /* job q holds v[jbeg[q] .. jbeg[q + 1]) */
    double *jgas = malloc((nj ? nj : 1) * sizeof *jgas);
    /* The first CS__HEAD heights of every job side by side (a job usually
     * stops within them): one pass reads them in order, and only the rest
     * of a long job a cache miss away.  Unused slots have smax -inf. */
    cs__var_t *head = malloc((nj ? nj : 1) * CS__HEAD * sizeof *head);
    /* Range minima of mu and nu (sparse tables, rebuilt each pass): level l
     * holds the minimum over [b, b + 2^l). */
    size_t lv = 1;
    while (((size_t)1 << lv) <= nblk) lv++;
    double *rmu = malloc(lv * (nblk ? nblk : 1) * sizeof *rmu), *rnu = malloc(lv * (nblk ? nblk : 1) * sizeof *rnu);
    if (!mu || !nu || !gas || !cnt || !jbeg || !jgas || !head || !rmu || !rnu) {
        free(mu), free(nu), free(gas), free(cnt), free(jbeg), free(jgas), free(head), free(rmu), free(rnu);
        return CS_ENOMEM;
    }
    for (size_t i = 0, q = 0; i < n; i++)
        if (i == 0 || v[i].job != v[i - 1].job) {
            jbeg[q] = i;
            jgas[q++] = (double)p->jobs[v[i].job].gas;
        }
    jbeg[nj] = n;
    for (size_t q = 0; q < nj; q++) {
        double m = 0;
        for (size_t k = jbeg[q + 1]; k-- > jbeg[q];) {
            m = v[k].v > m ? v[k].v : m;
            v[k].smax = cs__float_up(m);
        }
        for (size_t k = 0; k < CS__HEAD; k++)
            head[q * CS__HEAD + k] = jbeg[q] + k < jbeg[q + 1] ? v[jbeg[q] + k]
                                                               : (cs__var_t){.smax = -INFINITY, .blk = 0, .v = 0};
    }
    double best = HUGE_VAL, theta = 2.0;
    int stall = 0;
    for (int it = 0; it < 300; it++) {
        double L = 0;
        for (size_t b = 0; b < nblk; b++) {
            const cs_opt_block_t *bl = &p->blocks[b0 + b];
            if (bl->budget != UINT64_MAX) L += mu[b] * (double)bl->budget;
            if (bl->quota_block) L += nu[b] * (double)bl->quota_block;
            gas[b] = cnt[b] = 0;
        }
        memcpy(rmu, mu, nblk * sizeof *mu);
        memcpy(rnu, nu, nblk * sizeof *nu);
        for (size_t l = 1; l < lv; l++) {
            const double *am = rmu + (l - 1) * nblk, *an = rnu + (l - 1) * nblk;
            double *zm = rmu + l * nblk, *zn = rnu + l * nblk;
            size_t w = (size_t)1 << (l - 1);
            for (size_t b = 0; b + 2 * w <= nblk; b++) {
                zm[b] = am[b] < am[b + w] ? am[b] : am[b + w];
                zn[b] = an[b] < an[b + w] ? an[b] : an[b + w];
            }
        }
        for (size_t q = 0; q < nj; q++) {
            size_t arg = SIZE_MAX;
            double g = jgas[q], top = 0;
            const cs__var_t *hv = &head[q * CS__HEAD];
            size_t k = 0;
            for (; k < CS__HEAD && (double)hv[k].smax > top; k++) {
                size_t b = hv[k].blk - b0;
                double r = hv[k].v - mu[b] * g - nu[b];
                if (r > top) top = r, arg = b;
            }
            if (k == CS__HEAD) { /* every head height could matter: the rest may too */
                size_t e = jbeg[q + 1], blast = v[e - 1].blk - b0;
                for (k = jbeg[q] + CS__HEAD; k < e && (double)v[k].smax > top; k++) {
                    size_t b = v[k].blk - b0;
                    /* Every 16 heights: the rest of the window is beaten
                     * when even its largest v less the smallest mu g and
                     * nu over its blocks is <= top.  Each operation of
                     * r = v - mu g - nu rounds monotonically in each
                     * argument, so that bound, computed in the same
                     * shape, is >= every later r in floating point too. */
                    if (((k - jbeg[q]) & 15) == 0) {
                        size_t l = 0;
                        while (((size_t)2 << l) <= blast - b + 1) l++;
                        size_t b2 = blast + 1 - ((size_t)1 << l);
                        const double *zm = rmu + l * nblk, *zn = rnu + l * nblk;
                        double mmin = zm[b] < zm[b2] ? zm[b] : zm[b2], nmin = zn[b] < zn[b2] ? zn[b] : zn[b2];
                        if ((double)v[k].smax - mmin * g - nmin <= top) break;
                    }
                    double r = v[k].v - mu[b] * g - nu[b];
                    if (r > top) top = r, arg = b;
                }
            }
            if (arg != SIZE_MAX) {
                L += top;
                gas[arg] += g;
                cnt[arg] += 1;
            }
        }
        if (isinf(best) || L < best - 1e-12 * best) {
            best = L;
            stall = 0;
        } else if (++stall >= 10) {
            theta /= 2;
            stall = 0;
        }
        if (best - lower <= 1e-6 * best || theta < 1e-4) break;
        /* Subgradient: d L / d mu_h = B_h - gas_h, d L / d nu_h = Q_h - cnt_h. */
        double norm = 0;
        for (size_t b = 0; b < nblk; b++) {
            const cs_opt_block_t *bl = &p->blocks[b0 + b];
            if (bl->budget != UINT64_MAX) {
                double gb = (double)bl->budget - gas[b];
                if (mu[b] > 0 || gb < 0) norm += gb * gb;
            }
            if (bl->quota_block) {
                double gq = (double)bl->quota_block - cnt[b];
                if (nu[b] > 0 || gq < 0) norm += gq * gq;
            }
        }
        if (norm == 0) break; /* L is attained by a feasible point: the optimum */
        double t = theta * (L - lower) / norm;
        for (size_t b = 0; b < nblk; b++) {
            const cs_opt_block_t *bl = &p->blocks[b0 + b];
            if (bl->budget != UINT64_MAX) {
                double m = mu[b] - t * ((double)bl->budget - gas[b]);
                mu[b] = m > 0 ? m : 0;
            }
            if (bl->quota_block) {
                double m = nu[b] - t * ((double)bl->quota_block - cnt[b]);
                nu[b] = m > 0 ? m : 0;
            }
        }
    }
    free(mu), free(nu), free(gas), free(cnt), free(jbeg), free(jgas), free(head), free(rmu), free(rnu);
    *obj = best;
    return CS_OK;
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
    cs__vbuf_t vb = {0};
    int rc = CS_OK;
    for (size_t j = 0; j < p->n_jobs && rc == CS_OK; j++)
        rc = cs__job_vars(p, (uint32_t)j, 0, p->n_blocks, cs__vbuf_add, &vb);
    if (rc != CS_OK) goto done;
    out->vars = vb.n;
    if (vb.n == 0) goto done;
    /* No block constraint anywhere: each job at its best height, exactly. */
    int binds = 0;
    for (size_t b = 0; b < p->n_blocks && !binds; b++) {
        const cs_opt_block_t *bl = &p->blocks[b];
        binds = (bl->budget != UINT64_MAX && bl->budget != 0) || bl->quota_block || bl->quota_actor;
    }
    double obj = 0;
    if (!binds) {
        out->method = CS_OPT_FREE;
        out->welfare = cs__sum_best(vb.v, vb.n);
        goto done;
    }
    if (vb.n <= L->lp_max_vars) {
        int exact = 0;
        int want_int = vb.n <= L->ilp_max_vars;
        rc = cs__solve(p, vb.v, vb.n, want_int, L->ilp_time_ms, &obj, &exact, err, errcap);
        if (rc != CS_OK) goto done;
        out->method = exact ? CS_OPT_ILP : CS_OPT_LP;
    } else {
        rc = cs__lagrange(p, vb.v, vb.n, 0, p->n_blocks, p->lower, &obj);
        if (rc != CS_OK) goto done;
        out->method = CS_OPT_LAGRANGE;
    }
    out->welfare = obj;
done:
    free(vb.v);
    if (rc == CS_ENOMEM) cs__err(err, errcap, "out of memory");
    return rc;
}

/* ---- the optimum of a run file ------------------------------------------ */

/* Per-mechanism constraints of the benchmark (DESIGN-NOTES N57): one
 * benchmark for every mechanism of a comparison -- the lane budget, the
 * per-fire cap and the block and actor quotas as /blocks records them --
 * and none for `fifo`, the unbounded reference that faces no lane (its
 * budget flag, CS_MF_BUDGET, is off).  A mechanism that fires a timer the
 * benchmark's cap excludes (gba-tip has no per-fire cap in the first
 * draft) can score above 1 there; the default scenario's timers are all
 * below the cap. */
int cs_opt_rules(const char *mechanism, int *budget, int *cap, int *quotas)
{
    /* Files written before DESIGN-NOTES N42 name the greedy `oracle`. */
    const cs_mech_ops_t *ops = cs_mech_find_any(mechanism);
    if (ops == NULL) return -1;
    int lane = (ops->flags & CS_MF_BUDGET) != 0;
    *budget = lane;
    *cap = lane;
    *quotas = lane;
    return 0;
}

/* Timer index sorted by timer_id, for the /fires join. */
typedef struct cs__tidx {
    uint64_t id;
    uint32_t row;
} cs__tidx_t;
static int cs__cmp_tidx(const void *a, const void *b)
{
    const cs__tidx_t *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* bsearch comparator: by timer_id only (the first row of an id). */
static int cs__cmp_tidx_id(const void *a, const void *b)
{
    const cs__tidx_t *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The value model of timer row t as a job (due/last/gas/actor unset). */
static void cs__job_model(const cs_h5_timer_t *t, cs_opt_job_t *j)
{
    j->value = t->value;
    j->decay = t->decay;
    j->rate = t->decay_rate;
    j->deadline = t->deadline;
}

void cs_opt_problem_free(cs_opt_problem_t *p, uint64_t *fired)
{
    free(fired);
    if (p == NULL) return;
    free((void *)p->jobs);
    free((void *)p->blocks);
    memset(p, 0, sizeof *p);
}

int cs_opt_run(const char *mechanism, const struct cs_h5_block *b, size_t nb, const struct cs_h5_fire *f,
               size_t nf, const struct cs_h5_timer *t, size_t nt, const cs_opt_limits_t *limits,
               cs_opt_result_t *out, int *usable, char *why, size_t whycap)
{
    cs_opt_problem_t p;
    memset(out, 0, sizeof *out);
    int rc = cs_opt_run_problem(mechanism, b, nb, f, nf, t, nt, &p, NULL, usable, why, whycap);
    if (rc != CS_OK || !*usable) return rc;
    rc = cs_opt_solve(&p, limits, out, why, whycap);
    if (rc != CS_OK) *usable = 0;
    cs_opt_problem_free(&p, NULL);
    return rc;
}

int cs_opt_run_problem(const char *mechanism, const struct cs_h5_block *b, size_t nb, const struct cs_h5_fire *f,
                       size_t nf, const struct cs_h5_timer *t, size_t nt, cs_opt_problem_t *p, uint64_t **fired,
                       int *usable, char *why, size_t whycap)
{
    memset(p, 0, sizeof *p);
    if (fired) *fired = NULL;
    *usable = 0;
    int budget, cap, quotas;
    if (cs_opt_rules(mechanism, &budget, &cap, &quotas) != 0) {
        cs__err(why, whycap, "unknown mechanism '%s'", mechanism ? mechanism : "");
        return CS_OK;
    }
    if (nb == 0) {
        *usable = 1;
        return CS_OK;
    }
    /* Files written before the optimum's columns read them as 0; a real
     * block has fire_cap >= 1 and a real timer gas_limit >= 1. */
    if (b[0].fire_cap == 0 || (nt > 0 && t[0].gas_limit == 0)) {
        cs__err(why, whycap, "the file has no /blocks.lane_budget or /timers value-model columns (written by an "
                             "older cowsim)");
        return CS_OK;
    }
    uint64_t h0 = UINT64_MAX, h1 = 0;
    for (size_t i = 0; i < nb; i++) {
        h0 = b[i].height < h0 ? b[i].height : h0;
        h1 = b[i].height > h1 ? b[i].height : h1;
    }
    size_t nblk = (size_t)(h1 - h0 + 1);
    if (nblk > 4 * nb + 16) {
        cs__err(why, whycap, "/blocks heights %llu..%llu are not one row per height", (unsigned long long)h0,
                (unsigned long long)h1);
        return CS_OK;
    }
    cs_opt_block_t *bl = calloc(nblk, sizeof *bl); /* a missing height: budget 0, nothing fires */
    cs__tidx_t *ix = malloc((nt ? nt : 1) * sizeof *ix);
    cs_opt_job_t *jobs = malloc((nf + nt ? nf + nt : 1) * sizeof *jobs);
    int rc = CS_OK;
    if (!bl || !ix || !jobs) {
        rc = CS_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < nb; i++) {
        cs_opt_block_t *x = &bl[b[i].height - h0];
        x->budget = b[i].lane_budget == 0 ? 0 : budget ? b[i].lane_budget : UINT64_MAX;
        x->cap = cap ? b[i].fire_cap : UINT64_MAX;
        x->quota_block = quotas ? b[i].quota_block : 0;
        x->quota_actor = quotas ? b[i].quota_actor : 0;
    }
    for (size_t i = 0; i < nt; i++) ix[i] = (cs__tidx_t){t[i].timer_id, (uint32_t)i};
    qsort(ix, nt, sizeof *ix, cs__cmp_tidx);
    size_t nj = 0;
    for (size_t i = 0; i < nf; i++) {
        cs__tidx_t key = {f[i].timer_id, 0};
        const cs__tidx_t *hit = nt ? bsearch(&key, ix, nt, sizeof *ix, cs__cmp_tidx_id) : NULL;
        if (!hit) {
            cs__err(why, whycap, "/fires row %zu (timer %016llx) has no /timers row", i,
                    (unsigned long long)f[i].timer_id);
            goto out;
        }
        const cs_h5_timer_t *tr = &t[hit->row];
        if (isnan(tr->decay_rate)) {
            cs__err(why, whycap, "the value function of agent %u (timer %016llx) is not of the form "
                                 "value e^(-rate d) - decay d", tr->agent, (unsigned long long)tr->timer_id);
            goto out;
        }
        cs_opt_job_t *j = &jobs[nj++];
        cs__job_model(tr, j);
        j->due = f[i].due_height;
        j->last = tr->expires_at ? tr->expires_at : h1;
        j->last = j->last > h1 ? h1 : j->last;
        if (j->last < f[i].height) j->last = f[i].height; /* the realised fire is always allowed */
        j->gas = f[i].gas_limit;
        j->actor = f[i].actor;
        double v = cs_opt_value(j, f[i].delay);
        if (fabs(v - f[i].value) > 1e-9 * (fabs(f[i].value) > 1 ? fabs(f[i].value) : 1)) {
            cs__err(why, whycap, "/fires row %zu: value %.17g, the value model gives %.17g at delay %u", i,
                    f[i].value, v, f[i].delay);
            goto out;
        }
    }
    for (size_t i = 0; i < nt; i++) {
        const cs_h5_timer_t *tr = &t[i];
        if (tr->fires != 0 || tr->outcome == CS_H5_OUTCOME_REJECTED || tr->outcome == CS_H5_OUTCOME_FIRED ||
            tr->trigger == CS_H5_TRIGGER_WATCH || tr->due_height > h1)
            continue;
        if (isnan(tr->decay_rate)) {
            cs__err(why, whycap, "the value function of agent %u (timer %016llx) is not of the form "
                                 "value e^(-rate d) - decay d", tr->agent, (unsigned long long)tr->timer_id);
            goto out;
        }
        cs_opt_job_t *j = &jobs[nj];
        cs__job_model(tr, j);
        j->due = tr->due_height;
        j->last = tr->expires_at ? tr->expires_at : h1;
        j->last = j->last > h1 ? h1 : j->last;
        if (tr->outcome == CS_H5_OUTCOME_CANCELLED) {
            if (tr->end_height <= j->due) continue; /* withdrawn before it came due */
            j->last = tr->end_height - 1 < j->last ? tr->end_height - 1 : j->last;
        }
        j->gas = tr->gas_limit;
        j->actor = tr->actor;
        nj++;
    }
    double lower = 0; /* the realised allocation is feasible: a lower bound */
    for (size_t i = 0; i < nf; i++) lower += f[i].value;
    if (fired) { /* the fires are the first nf jobs */
        if ((*fired = calloc(nj ? nj : 1, sizeof **fired)) == NULL) {
            rc = CS_ENOMEM;
            goto out;
        }
        for (size_t i = 0; i < nf; i++) (*fired)[i] = f[i].height;
    }
    *p = (cs_opt_problem_t){jobs, nj, h0, bl, nblk, lower};
    *usable = 1;
    free(ix);
    return CS_OK;
out:
    free(bl);
    free(ix);
    free(jobs);
    return rc;
}
