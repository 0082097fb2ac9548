/*
 * cs_report_seeds.c -- the pictures of a multi-seed run directory in
 * `cowsim report RUNDIR` (RUNDIR/seed-<s>/<m>.h5, cs_seeds.h): what each
 * mechanism does across the seeds, every mechanism on shared axes.
 *
 *   <p>_basefee.png      lane basefee per block: median over the seeds
 *                        with the 10-90 % band (fee mechanisms only);
 *   <p>_utilisation.png  lane utilisation per block, the same;
 *   <p>_delay_cdf.png    CDF of fire delay, every fire of every seed
 *                        pooled, p50 and p99 marked;
 *   <p>_weights_cdf.png  CDF of W(actor), every /weights sample of every
 *                        seed pooled;
 *   <p>_paid.png         what was paid, by part (execution fee, lane burn,
 *                        allocation payment, tip, schedule and cancel
 *                        costs: the /blocks columns of DESIGN-NOTES N58),
 *                        mean over the seeds, stacked.
 *
 * Quantiles are GSL's (gsl_stats_quantile_from_sorted_data, the definition
 * of analysis/README.md "Conventions").  Runs of more than CS__SEED_POINTS
 * blocks are binned first: each seed's bin mean, then the quantiles over
 * the seeds.  The data files beside the plots hold every drawn number.
 */
#include "cs_report_int.h"

#include "cs_exit.h"
#include "cs_mech.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#define CS__SEED_POINTS 1000 /* at most this many points per banded series */
#define CS__NPART 6          /* parts of what was paid */

/* The parts of what was paid: /blocks columns (N58), legend, colour. */
static const char *const cs__part_col[CS__NPART] = {"exec_fee", "lane_burn", "payments",
                                                    "tips",     "sched_cost", "cancel_cost"};
static const char *const cs__part_title[CS__NPART] = {
    "execution fee (CIP-3)", "lane burn", "allocation payment", "tip", "schedule costs", "cancel costs"};
static const char *const cs__part_colour[CS__NPART] = {"#7f7f7f", "#d62728", "#2ca02c",
                                                       "#1f77b4", "#ff7f0e", "#9467bd"};

/* One mechanism's data over the seeds. */
typedef struct cs__smech {
    double *bf;                 /* ns x nbin: seed i's bin mean lane basefee at [i * nbin + b], NaN past its end */
    double *util;               /* ns x nbin: the same for utilisation */
    double *x;                  /* nbin: mean block height of each bin (NaN if no seed reaches it) */
    double *part;               /* ns x CS__NPART: seed i's sum of each part at [i * CS__NPART + c] */
    cs__dhist_t delay;          /* fire delays, every fire of every seed */
    cs__dvec_t w;               /* W(actor) values, every sample of every seed */
    int fees;                   /* 1: the mechanism charges a lane basefee (CS_MF_FEES) */
} cs__smech_t;

static void cs__smech_free(cs__smech_t *m)
{
    free(m->bf);
    free(m->util);
    free(m->x);
    free(m->part);
    free(m->delay.cnt);
    free(m->delay.big);
    free(m->w.v);
}

/* The k-th smallest delay (0-based) counted in h (k < h->total). */
static double cs__dhist_kth(const cs__dhist_t *h, uint64_t k)
{
    for (size_t d = 0; d < h->ncnt; d++) {
        if (k < h->cnt[d]) return (double)d;
        k -= h->cnt[d];
    }
    return k < h->nbig ? (double)h->big[k] : (double)h->max;
}

/* Quantile q of the delays in h, GSL's definition: with delta = (n - 1) q,
 * i = floor(delta), f = delta - i: (1 - f) x_i + f x_{i+1}.  NaN if empty. */
static double cs__dhist_quantile(const cs__dhist_t *h, double q)
{
    if (h->total == 0) return CS__REP_NAN;
    double delta = (double)(h->total - 1) * q;
    uint64_t i = (uint64_t)floor(delta);
    double f = delta - (double)i, xi = cs__dhist_kth(h, i);
    if (f == 0 || i + 1 >= h->total) return xi;
    return (1 - f) * xi + f * cs__dhist_kth(h, i + 1);
}

/* Hand every row of dataset ds of rd to fn, CS__CHUNK_ROWS at a time.
 * Returns CS_OK or the first error (of the reader or of fn). */
static int cs__stream(cs_h5_reader_t *rd, cs_h5_ds ds, int (*fn)(const void *rows, size_t k, cs__smech_t *m),
                      cs__smech_t *m)
{
    uint64_t n = 0;
    int rc = cs_h5_nrows(rd, ds, &n);
    void *buf = rc == CS_OK ? malloc(CS__CHUNK_ROWS * cs_h5_ds_row_size(ds)) : NULL;
    if (rc == CS_OK && !buf) rc = CS_ENOMEM;
    for (uint64_t s = 0; rc == CS_OK && s < n; s += CS__CHUNK_ROWS) {
        size_t k = (size_t)(n - s < CS__CHUNK_ROWS ? n - s : CS__CHUNK_ROWS);
        rc = cs_h5_read_rows(rd, ds, s, k, buf);
        if (rc == CS_OK) rc = fn(buf, k, m);
    }
    free(buf);
    return rc;
}

/* cs__stream callbacks: every fire's delay; every W value (CIP-1 rev §8:
 * stored x 1e6). */
static int cs__take_fires(const void *rows, size_t k, cs__smech_t *m)
{
    const cs_h5_fire_t *r = rows;
    for (size_t j = 0; j < k; j++)
        if (cs__dhist_add(&m->delay, r[j].delay) != 0) return CS_ENOMEM;
    return CS_OK;
}

static int cs__take_weights(const void *rows, size_t k, cs__smech_t *m)
{
    const cs_h5_weight_t *r = rows;
    for (size_t j = 0; j < k; j++)
        if (cs__dvec_push(&m->w, (double)r[j].weight_ppm / 1e6) != 0) return CS_ENOMEM;
    return CS_OK;
}

/*
 * Read run file `path` (seed i of ns) into m: its blocks in bins of `bin`
 * (nbin bins), every fire's delay and every W sample.  Returns 0 or an
 * exit code with a message.
 */
static int cs__smech_read(cs__smech_t *m, const char *path, size_t i, size_t nbin, uint64_t bin)
{
    int err = CS_OK;
    cs_h5_reader_t *rd = cs_h5_open_read(path, &err);
    if (!rd) return cs__rep_h5_fail(path, err);
    uint64_t n = 0;
    int rc = cs_h5_nrows(rd, CS_H5_BLOCKS, &n);
    cs_h5_block_t *bb = rc == CS_OK ? malloc(CS__CHUNK_ROWS * sizeof *bb) : NULL;
    if (rc == CS_OK && !bb) rc = CS_ENOMEM;
    double bs = 0, us = 0, hs = 0, *part = &m->part[i * CS__NPART];
    uint64_t cnt = 0;
    size_t b = 0;
    for (uint64_t s = 0; rc == CS_OK && s < n; s += CS__CHUNK_ROWS) {
        size_t k = (size_t)(n - s < CS__CHUNK_ROWS ? n - s : CS__CHUNK_ROWS);
        rc = cs_h5_read_rows(rd, CS_H5_BLOCKS, s, k, bb);
        for (size_t j = 0; rc == CS_OK && j < k && b < nbin; j++) {
            const cs_h5_block_t *r = &bb[j];
            bs += r->basefee_lane.f;
            us += r->utilisation;
            hs += (double)r->height;
            part[0] += r->exec_fee.f;
            part[1] += r->lane_burn.f;
            part[2] += r->payments.f;
            part[3] += r->tips.f;
            part[4] += r->sched_cost.f;
            part[5] += r->cancel_cost.f;
            if (++cnt == bin || s + j + 1 == n) {
                m->bf[i * nbin + b] = bs / (double)cnt;
                m->util[i * nbin + b] = us / (double)cnt;
                if (isnan(m->x[b])) m->x[b] = hs / (double)cnt;
                bs = us = hs = 0;
                cnt = 0;
                b++;
            }
        }
    }
    free(bb);
    if (rc == CS_OK) rc = cs__stream(rd, CS_H5_FIRES, cs__take_fires, m);
    if (rc == CS_OK) rc = cs__stream(rd, CS_H5_WEIGHTS, cs__take_weights, m);
    cs_h5_close_read(rd);
    return rc == CS_OK ? 0 : cs__rep_h5_fail(path, rc);
}

/*
 * Write DIR/name: per bin "x p10 p50 p90 n" of v (ns x nbin, seed-major)
 * over the seeds with a finite value there (GSL quantiles; bins no seed
 * reaches are left out).  tmp holds ns doubles.  Returns 0 or an exit code.
 */
static int cs__write_band(const char *dir, const char *name, const char *what, const double *x, const double *v,
                          size_t ns, size_t nbin, uint64_t bin, double *tmp)
{
    FILE *f = cs__open_out(dir, name);
    if (!f) return CS_EXIT_IO;
    fprintf(f, "# %s over %zu seeds: height (%s), p10, p50, p90 over the seeds, seeds\n", what, ns,
            bin > 1 ? "bin centre; each seed's bin mean" : "block");
    for (size_t b = 0; b < nbin; b++) {
        size_t k = 0;
        for (size_t i = 0; i < ns; i++)
            if (isfinite(v[i * nbin + b])) tmp[k++] = v[i * nbin + b];
        if (k == 0 || isnan(x[b])) continue;
        qsort(tmp, k, sizeof *tmp, cs__cmp_double);
        fprintf(f, "%.10g %.17g %.17g %.17g %zu\n", x[b], gsl_stats_quantile_from_sorted_data(tmp, 1, k, 0.10),
                gsl_stats_quantile_from_sorted_data(tmp, 1, k, 0.50),
                gsl_stats_quantile_from_sorted_data(tmp, 1, k, 0.90), k);
    }
    return cs__close_out(f, dir, name);
}

/*
 * One banded plot `base`: for every mechanism j with use[j], the median
 * over the seeds (line) and the 10-90 % band (filled) of data file
 * <base>_m<j+1>.dat.  Up to three mechanisms share one axes; more are drawn
 * as stacked panels with the same x and y ranges.  Returns 0 or an exit code.
 */
static int cs__plot_band(const cs__gp_t *g, const char *base, const cs__seedrun_t *s, const int *use,
                         const char *title, const char *ylabel, double xmax, double ymin, double ymax,
                         const char *cap, const char *alt, cs__plots_t *plots)
{
    size_t nm = s->set.nm, nuse = 0;
    for (size_t j = 0; j < nm; j++) nuse += use[j] != 0;
    if (nuse == 0) return 0;
    int panels = nuse > 3;
    FILE *f = cs__gp_begin(g, base, 1100, panels ? (int)(90 + 150 * nuse) : 600);
    if (!f) return CS_EXIT_IO;
    const char *fill = g->cairo ? "fs transparent solid 0.22 noborder" : "fs solid 0.22 noborder";
    /* Shared axes: the same ranges for every mechanism (and panel). */
    double pad = ymax > ymin ? 0.04 * (ymax - ymin) : (ymax != 0 ? 0.04 * fabs(ymax) : 1);
    fprintf(f, "set xrange [0:%.10g]\nset yrange [%.10g:%.10g]\nset ylabel '%s'\n", xmax,
            ymin == 0 ? 0 : ymin - pad, ymax + pad, ylabel);
    if (!panels)
        fprintf(f, "set title '%s (line: median; band: 10-90 %%)'\nset xlabel 'block height'\n"
                   "set key outside right top\nplot",
                title);
    else
        /* Panels: the x tick labels only under the last; the mechanism
         * named in its panel; the title says what line and band are. */
        fprintf(f, "set multiplot layout %zu,1 title '%s (line: median; band: 10-90 %%)' "
                   "margins 0.08,0.97,%.3f,%.3f spacing 0,0.012\nunset key\nset format x ''\n"
                   "set style textbox opaque border lc rgb '#888888'\n",
                nuse, title, 60.0 / (90 + 150 * (double)nuse), 1 - 40.0 / (90 + 150 * (double)nuse));
    size_t k = 0;
    for (size_t j = 0; j < nm; j++) {
        if (!use[j]) continue;
        if (panels) {
            if (k + 1 == nuse) fprintf(f, "set format x '%%g'\nset xlabel 'block height'\n");
            fputs("set label 1 ", f);
            cs__gp_quote(f, s->set.mechs[j]);
            fprintf(f, " at graph 0.99, graph 0.14 right front tc rgb '%s' boxed\nplot", cs__colors[j % 10]);
        }
        else if (k) fprintf(f, ", \\\n    ");
        fprintf(f, " '%s_m%zu.dat' using 1:2:4 with filledcurves fc rgb '%s' %s notitle, \\\n"
                   "    '' using 1:3 with lines lc rgb '%s' lw 1.6 title ",
                base, j + 1, cs__colors[j % 10], fill, cs__colors[j % 10]);
        cs__gp_quote(f, s->set.mechs[j]);
        if (panels) fputc('\n', f);
        k++;
    }
    if (!panels) fputc('\n', f);
    else fprintf(f, "unset multiplot\n");
    return cs__gp_end(g, f, base, plots, alt, cap);
}

/* Largest height and smallest and largest finite value of v (ns x nbin)
 * over the mechanisms with use[j], into *xmax, *lo, *hi. */
static void cs__band_range(const cs__smech_t *sm, size_t nm, const int *use, int util, size_t ns, size_t nbin,
                           double *xmax, double *lo, double *hi)
{
    *xmax = 1;
    *lo = HUGE_VAL;
    *hi = -HUGE_VAL;
    for (size_t j = 0; j < nm; j++) {
        if (!use[j]) continue;
        const double *v = util ? sm[j].util : sm[j].bf;
        for (size_t b = 0; b < nbin; b++)
            if (sm[j].x[b] > *xmax) *xmax = sm[j].x[b];
        for (size_t c = 0; c < ns * nbin; c++)
            if (isfinite(v[c])) {
                if (v[c] < *lo) *lo = v[c];
                if (v[c] > *hi) *hi = v[c];
            }
    }
    if (!(*hi >= *lo)) *lo = *hi = 0;
}

/* The pooled delay CDFs of every mechanism, p50 and p99 marked.  Data
 * files <base>_m<j>.dat (the CDF) and <base>_marks.dat (mechanism, fires,
 * p50, p99).  Returns 0 or an exit code. */
static int cs__plot_seed_delays(const cs__gp_t *g, const char *base, const cs__seedrun_t *s, const cs__smech_t *sm,
                                cs__plots_t *plots)
{
    size_t nm = s->set.nm;
    uint32_t max = 0;
    int any = 0;
    for (size_t j = 0; j < nm; j++) {
        if (sm[j].delay.total == 0) continue;
        any = 1;
        if (sm[j].delay.max > max) max = sm[j].delay.max;
    }
    if (!any) return 0;
    char name[192];
    snprintf(name, sizeof name, "%s_marks.dat", base);
    FILE *mk = cs__open_out(g->dir, name);
    if (!mk) return CS_EXIT_IO;
    fprintf(mk, "# mechanism index, fires (all seeds), delay p50, delay p99 (GSL quantiles of the pooled delays)\n");
    for (size_t j = 0; j < nm; j++) {
        fprintf(mk, "%zu %llu", j + 1, (unsigned long long)sm[j].delay.total);
        if (sm[j].delay.total == 0) fputs(" NaN NaN\n", mk); /* no fires: no quantiles */
        else
            fprintf(mk, " %.17g %.17g\n", cs__dhist_quantile(&sm[j].delay, 0.5),
                    cs__dhist_quantile(&sm[j].delay, 0.99));
    }
    int rc = cs__close_out(mk, g->dir, name);
    if (rc) return rc;
    FILE *f = cs__gp_begin(g, base, 1100, 640);
    if (!f) return CS_EXIT_IO;
    fprintf(f, "set title 'Fire delay CDF over %zu seeds (every fire pooled)'\n", s->set.ns);
    double shift, xend;
    int logx = cs__delay_axis(f, max, &shift, &xend);
    fprintf(f, "set ylabel 'fraction of fires with delay <= x'\nset yrange [0:1.005]\nset key outside right top\nplot");
    size_t k = 0;
    for (size_t j = 0; j < nm; j++) {
        const cs__dhist_t *h = &sm[j].delay;
        if (h->total == 0) continue;
        snprintf(name, sizeof name, "%s_m%zu.dat", base, j + 1);
        rc = cs__write_cdf(g->dir, name, h, shift, xend);
        if (rc) {
            fclose(f);
            return rc;
        }
        char title[256];
        snprintf(title, sizeof title, "%s (p50 %.4g, p99 %.4g)", s->set.mechs[j], cs__dhist_quantile(h, 0.5),
                 cs__dhist_quantile(h, 0.99));
        fprintf(f, "%s '%s' using 1:2 with steps", k++ ? ", \\\n    " : " ", name);
        cs__style(f, j, nm, 1.2);
        fputs(" title ", f);
        cs__gp_quote(f, title);
        /* The marks: (p50, 0.5) as a circle, (p99, 0.99) as a square. */
        fprintf(f, ", \\\n    '%s_marks.dat' using ($1 == %zu ? $3 + %g : NaN):(0.5) with points pt 7 ps 1.3 lc "
                   "rgb '%s' notitle, \\\n    '' using ($1 == %zu ? $4 + %g : NaN):(0.99) with points pt 5 ps 1.3 lc "
                   "rgb '%s' notitle",
                base, j + 1, shift, cs__colors[j % 10], j + 1, shift, cs__colors[j % 10]);
    }
    fprintf(f, ", \\\n    NaN with points pt 7 ps 1.3 lc rgb '#000000' title 'p50 (circle)', \\\n"
               "    NaN with points pt 5 ps 1.3 lc rgb '#000000' title 'p99 (square)'\n");
    char cap[768];
    snprintf(cap, sizeof cap,
             "Empirical CDF of fire delay per mechanism, every fire of all %zu seeds pooled (every agent kind)%s; "
             "circle: the pooled median p50 at F = 0.5, square: p99 at F = 0.99 (GSL quantiles, values in the "
             "legend); timers never fired are not in the CDF.",
             s->set.ns, logx ? " (log x axis of delay + 1, ticks labelled in blocks of delay)" : "");
    return cs__gp_end(g, f, base, plots, "pooled delay CDF per mechanism", cap);
}

/* The pooled CDF of W(actor) per mechanism: data <base>_m<j>.dat ("W F",
 * one point per distinct value).  Returns 0 or an exit code. */
static int cs__plot_seed_weights(const cs__gp_t *g, const char *base, const cs__seedrun_t *s, cs__smech_t *sm,
                                 cs__plots_t *plots)
{
    size_t nm = s->set.nm;
    int any = 0;
    for (size_t j = 0; j < nm; j++) any |= sm[j].w.n > 0;
    if (!any) return 0;
    FILE *f = cs__gp_begin(g, base, 1100, 600);
    if (!f) return CS_EXIT_IO;
    fprintf(f, "set title 'W(actor) distribution over %zu seeds'\nset xlabel 'W (CIP-1 rev §8, in [1, 2])'\n"
               "set ylabel 'fraction of (identity, sample) pairs with W <= x'\nset yrange [0:1.005]\n"
               "set xrange [0.98:2.02]\nset key outside right top\nplot",
            s->set.ns);
    size_t k = 0;
    for (size_t j = 0; j < nm; j++) {
        cs__dvec_t *w = &sm[j].w;
        if (w->n == 0) continue;
        qsort(w->v, w->n, sizeof *w->v, cs__cmp_double);
        char name[192];
        snprintf(name, sizeof name, "%s_m%zu.dat", base, j + 1);
        FILE *d = cs__open_out(g->dir, name);
        if (!d) {
            fclose(f);
            return CS_EXIT_IO;
        }
        fprintf(d, "# %s: W, fraction of the %zu pooled W values <= W (one point per distinct value)\n%.17g 0\n",
                s->set.mechs[j], w->n, w->v[0]);
        for (size_t i = 0; i < w->n; i++)
            if (i + 1 == w->n || w->v[i + 1] != w->v[i])
                fprintf(d, "%.17g %.17g\n", w->v[i], (double)(i + 1) / (double)w->n);
        fprintf(d, "2.02 1\n");
        int rc = cs__close_out(d, g->dir, name);
        if (rc) {
            fclose(f);
            return rc;
        }
        fprintf(f, "%s '%s' using 1:2 with steps", k++ ? ", \\\n    " : " ", name);
        cs__style(f, j, nm, 1.2);
        fputs(" title ", f);
        cs__gp_quote(f, s->set.mechs[j]);
    }
    fputc('\n', f);
    char cap[768];
    snprintf(cap, sizeof cap,
             "Empirical CDF of the fairness weight W(actor) per mechanism: every fairness identity at every "
             "/weights sample height (output.weights_every) of all %zu seeds pooled; W = 1 is an identity served "
             "at least its share, up to 2 one served less.",
             s->set.ns);
    return cs__gp_end(g, f, base, plots, "W(actor) distribution per mechanism", cap);
}

/* What was paid, by part, mean over the seeds, stacked: data <base>.dat
 * ("index mechanism" and the CS__NPART means).  Returns 0 or an exit code. */
static int cs__plot_seed_paid(const cs__gp_t *g, const char *base, const cs__seedrun_t *s, const cs__smech_t *sm,
                              cs__plots_t *plots)
{
    size_t nm = s->set.nm, ns = s->set.ns;
    char name[192];
    snprintf(name, sizeof name, "%s.dat", base);
    FILE *d = cs__open_out(g->dir, name);
    if (!d) return CS_EXIT_IO;
    fprintf(d, "# per mechanism, mean over %zu seeds of each run's sum (base units) of /blocks", ns);
    for (int c = 0; c < CS__NPART; c++) fprintf(d, " %s", cs__part_col[c]);
    fputc('\n', d);
    int any[CS__NPART] = {0};
    for (size_t j = 0; j < nm; j++) {
        char lab[160];
        cs__sanitize(lab, sizeof lab, s->set.mechs[j]);
        fprintf(d, "%zu %s", j, lab);
        for (int c = 0; c < CS__NPART; c++) {
            double sum = 0;
            for (size_t i = 0; i < ns; i++) sum += sm[j].part[i * CS__NPART + c];
            any[c] |= sum > 0;
            fprintf(d, " %.17g", sum / (double)ns);
        }
        fputc('\n', d);
    }
    int rc = cs__close_out(d, g->dir, name);
    if (rc) return rc;
    FILE *f = cs__gp_begin(g, base, 1000, 600);
    if (!f) return CS_EXIT_IO;
    fprintf(f, "set title 'What was paid, by part (mean over %zu seeds)'\nset ylabel 'base units per run'\n"
               "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n"
               "set boxwidth 0.6\nset xtics rotate by -25\nset yrange [0:*]\nset format y '%%.3g'\n"
               "set key outside right top\nplot",
            ns);
    /* Every part is drawn (a part that is 0 everywhere adds nothing) and
     * named in the key only if some mechanism pays it. */
    for (int c = 0; c < CS__NPART; c++) {
        fprintf(f, "%s '%s' using %d%s lc rgb '%s' title '%s'", c ? ", \\\n    " : " ", name, c + 3,
                c ? "" : ":xtic(2)", cs__part_colour[c], any[c] ? cs__part_title[c] : "");
    }
    fputc('\n', f);
    char cap[768];
    snprintf(cap, sizeof cap,
             "What agents paid per run, by part, mean over %zu seeds: the CIP-3 execution fee, the lane basefee "
             "burned, the allocation payment (VCG critical, first price or score bid), the tip (the four parts of "
             "`paid`, DESIGN-NOTES N58), and the schedule and cancel costs (CIP-5 §6.1, not in `paid`); /blocks "
             "exec_fee, lane_burn, payments, tips, sched_cost, cancel_cost.",
             ns);
    return cs__gp_end(g, f, base, plots, "what was paid by part", cap);
}

/*
 * The figures of multi-seed run directory s (loaded: cs__seedrun_plot),
 * named <prefix>_basefee, _utilisation, _delay_cdf, _weights_cdf and _paid.
 * Returns 0 or an exit code with a message.
 */
int cs__seedrun_figures(const cs__gp_t *g, const cs__seedrun_t *s, const char *prefix, cs__plots_t *plots)
{
    size_t nm = s->set.nm, ns = s->set.ns;
    char path[CS__PATH_MAX];
    /* The longest run sets the bins. */
    uint64_t nmax = 0;
    int rc = 0;
    for (size_t j = 0; j < nm; j++)
        for (size_t i = 0; i < ns; i++) {
            double b = s->set.mt[j * ns + i].v[CS_M_blocks];
            if (isfinite(b) && b > (double)nmax) nmax = (uint64_t)b;
        }
    uint64_t bin = nmax > CS__SEED_POINTS ? (nmax + CS__SEED_POINTS - 1) / CS__SEED_POINTS : 1;
    size_t nbin = (size_t)((nmax + bin - 1) / bin);
    cs__smech_t *sm = calloc(nm, sizeof *sm);
    double *tmp = malloc((ns + 1) * sizeof *tmp);
    int *use = calloc(nm + 1, sizeof *use), *all = calloc(nm + 1, sizeof *all);
    if (!sm || !tmp || !use || !all) rc = CS_EXIT_IO;
    for (size_t j = 0; rc == 0 && j < nm; j++) {
        cs__smech_t *m = &sm[j];
        size_t cells = ns * (nbin ? nbin : 1);
        m->bf = malloc(cells * sizeof *m->bf);
        m->util = malloc(cells * sizeof *m->util);
        m->x = malloc((nbin ? nbin : 1) * sizeof *m->x);
        m->part = calloc(ns * CS__NPART, sizeof *m->part);
        if (!m->bf || !m->util || !m->x || !m->part) {
            fprintf(stderr, "cowsim report: out of memory\n");
            rc = CS_EXIT_IO;
            break;
        }
        for (size_t c = 0; c < cells; c++) m->bf[c] = m->util[c] = CS__REP_NAN;
        for (size_t b = 0; b < nbin; b++) m->x[b] = CS__REP_NAN;
        const cs_mech_ops_t *ops = cs_mech_find_any(s->set.mechs[j]);
        m->fees = ops && (ops->flags & CS_MF_FEES);
        use[j] = m->fees;
        all[j] = 1;
        for (size_t i = 0; rc == 0 && i < ns; i++) {
            cs_seeds_path(path, sizeof path, s->path, s->set.seeds[i], s->set.mechs[j]);
            rc = cs__smech_read(m, path, i, nbin, bin);
        }
    }
    if (rc == CS_EXIT_IO && (!sm || !tmp || !use || !all)) fprintf(stderr, "cowsim report: out of memory\n");
    /* A fee mechanism whose lane basefee is 0 at every height of every
     * seed had none (first-draft gba-tip, N65): no band, as in the run
     * plots (cs__has_lane_basefee). */
    for (size_t j = 0; rc == 0 && j < nm; j++) {
        int priced = 0;
        for (size_t c = 0; use[j] && !priced && c < ns * nbin; c++) priced = sm[j].bf[c] > 0;
        use[j] = priced;
    }
    for (size_t j = 0; rc == 0 && j < nm; j++) {
        char name[192];
        snprintf(name, sizeof name, "%s_basefee_m%zu.dat", prefix, j + 1);
        if (use[j]) rc = cs__write_band(g->dir, name, "lane basefee (base units per cycle)", sm[j].x, sm[j].bf, ns,
                                        nbin, bin, tmp);
        snprintf(name, sizeof name, "%s_utilisation_m%zu.dat", prefix, j + 1);
        if (rc == 0)
            rc = cs__write_band(g->dir, name, "lane utilisation", sm[j].x, sm[j].util, ns, nbin, bin, tmp);
    }
    char base[128], cap[768], binned[160] = "";
    if (bin > 1)
        snprintf(binned, sizeof binned, " (runs of %llu blocks: each seed's mean over bins of %llu blocks first)",
                 (unsigned long long)nmax, (unsigned long long)bin);
    double xmax, lo, hi;
    if (nbin == 0) /* runs without blocks: no series to draw */
        for (size_t j = 0; j < nm; j++) use[j] = all[j] = 0;
    if (rc == 0) {
        snprintf(base, sizeof base, "%s_basefee", prefix);
        snprintf(cap, sizeof cap,
                 "Lane basefee (CIP-1 rev §5) per block, per mechanism that charges it (first-draft gba-tip has "
                 "none): the median over the %zu "
                 "seeds (line) and the band from the 10th to the 90th percentile over the seeds at each height "
                 "(GSL quantiles)%s.",
                 ns, binned);
        cs__band_range(sm, nm, use, 0, ns, nbin, &xmax, &lo, &hi);
        rc = cs__plot_band(g, base, s, use, "Lane basefee per block over the seeds",
                           "base units per cycle", xmax, lo, hi, cap, "lane basefee bands", plots);
    }
    if (rc == 0) {
        snprintf(base, sizeof base, "%s_utilisation", prefix);
        snprintf(cap, sizeof cap,
                 "Lane utilisation (lane cycles used / LANE_TIMER_CYCLES) per block, %s: the median over the %zu "
                 "seeds (line) and the 10-90 %% band over the seeds at each height (GSL quantiles)%s; mechanisms "
                 "without a lane budget show 0.",
                 nm > 3 ? "one panel per mechanism, all on the same axes" : "every mechanism on one axes", ns,
                 binned);
        cs__band_range(sm, nm, all, 1, ns, nbin, &xmax, &lo, &hi);
        rc = cs__plot_band(g, base, s, all, "Lane utilisation per block over the seeds",
                           "utilisation", xmax, 0, hi, cap, "lane utilisation bands", plots);
    }
    if (rc == 0) {
        snprintf(base, sizeof base, "%s_delay_cdf", prefix);
        rc = cs__plot_seed_delays(g, base, s, sm, plots);
    }
    if (rc == 0) {
        snprintf(base, sizeof base, "%s_weights_cdf", prefix);
        rc = cs__plot_seed_weights(g, base, s, sm, plots);
    }
    if (rc == 0) {
        snprintf(base, sizeof base, "%s_paid", prefix);
        rc = cs__plot_seed_paid(g, base, s, sm, plots);
    }
    for (size_t j = 0; sm && j < nm; j++) cs__smech_free(&sm[j]);
    free(sm);
    free(tmp);
    free(use);
    free(all);
    return rc;
}
