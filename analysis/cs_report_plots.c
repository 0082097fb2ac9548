/*
 * cs_report_plots.c -- the gnuplot plots of run files in `cowsim report`:
 * lane basefee, utilisation, fire-delay CDFs, W(actor) quantiles, the
 * revenue split, and the bar chart of each fairness and welfare metric
 * (also drawn for multi-seed runs, cs_report_runs.c).
 */
#include "cs_report_int.h"

#include "cs_exit.h"
#include "cs_mech.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- run plots ------------------------------------------------------------ */

/* Line style of run i of n: colour, dash type and a width that shrinks from
 * lw + 1.6 (first run) to lw (last), so a run whose line coincides with a
 * later one still shows as a rim around it. */
void cs__style(FILE *f, size_t i, size_t n, double lw)
{
    double w = n > 1 ? lw + 1.6 * (double)(n - 1 - i) / (double)(n - 1) : lw;
    fprintf(f, " lc rgb '%s' dt %zu lw %.2f", cs__colors[i % 10], i / 10 + 1, w);
}

/* Whether run r charged a lane basefee (CIP-1 rev §5): only fee
 * mechanisms (CS_MF_FEES) update it; for the others /blocks records the
 * constant initial value, which is no price anyone paid.  A fee run whose
 * lane basefee is 0 in every block had none either: first-draft gba-tip
 * (gba_tip_lane = none, DESIGN-NOTES N65) prices against the cycle
 * basefee, and a flat 0 line would read as a free lane.  A slot-booking
 * run plots its slot base price instead (issue 28). */
static int cs__has_lane_basefee(const cs__rep_run_t *r)
{
    const cs_mech_ops_t *m = r->mechanism ? cs_mech_find_any(r->mechanism) : NULL;
    return r->nblocks > 0 && m && (((m->flags & CS_MF_FEES) && r->bf_max > 0) || cs__rep_slot_priced(r));
}

int cs__rep_slot_priced(const cs__rep_run_t *r)
{
    const cs_mech_ops_t *m = r->mechanism ? cs_mech_find_any(r->mechanism) : NULL;
    return m && (m->flags & CS_MF_BOOK) && m->slot_base != NULL;
}

/* Plot the lane basefee of every run whose mechanism has one, on one axes. */
int cs__plot_basefee(const cs__gp_t *g, const cs__rep_run_t *runs, size_t n, cs__plots_t *plots)
{
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    uint64_t bin = 1;
    for (size_t i = 0; i < n; i++) {
        if (!cs__has_lane_basefee(&runs[i])) continue;
        if (runs[i].bf_min < lo) lo = runs[i].bf_min;
        if (runs[i].bf_max > hi) hi = runs[i].bf_max;
        if (runs[i].bf_bin > bin) bin = runs[i].bf_bin;
    }
    if (!(hi >= lo)) return 0; /* no run with a lane basefee */
    int logy = lo > 0 && hi / lo >= 100;
    FILE *f = cs__gp_begin(g, "basefee", 1100, 600);
    if (!f) return CS_EXIT_IO;
    fprintf(f, "set title 'Lane basefee (and slot base price) per block'\nset xlabel 'block height'\n");
    fprintf(f, "set ylabel 'price (base units per cycle%s)'\n", logy ? ", log scale" : "");
    if (logy) fprintf(f, "set logscale y\nset format y '1e%%L'\n");
    fprintf(f, "set key outside right top\nplot");
    for (size_t i = 0, k = 0; i < n; i++) {
        if (!cs__has_lane_basefee(&runs[i])) continue;
        fprintf(f, "%s 'run%zu_basefee.dat' using 1:2 with lines", k++ ? ", \\\n    " : " ", i + 1);
        cs__style(f, i, n, 1.0);
        fputs(" title ", f);
        if (cs__rep_slot_priced(&runs[i])) {
            char t[300];
            snprintf(t, sizeof t, "%s (slot base price)", runs[i].label);
            cs__gp_quote(f, t);
        } else {
            cs__gp_quote(f, runs[i].label);
        }
    }
    fputc('\n', f);
    char cap[768];
    snprintf(cap, sizeof cap,
             "Lane basefee (CIP-1 rev §5) per block height, one line per run whose mechanism charges it "
             "(eip1559; gba-tip with the revised lane, gba_tip_lane = cip1-rev: first-draft gba-tip has no "
             "lane basefee and no line), and beside it slot-booking's base price per cycle of the slot executed "
             "at that height, fixed when the slot entered the booking window (issue 28)%s%s; coinciding runs overlap.",
             logy ? ", log scale" : "", bin > 1 ? " (long runs: means over bins of blocks)" : "");
    return cs__gp_end(g, f, "basefee", plots, "lane basefee over height", cap);
}

/* Plot the lane utilisation of every run on one axes (bin means). */
int cs__plot_util(const cs__gp_t *g, const cs__rep_run_t *runs, size_t n, cs__plots_t *plots)
{
    uint64_t bin = 0;
    for (size_t i = 0; i < n; i++)
        if (runs[i].nblocks > 0 && runs[i].util_bin > bin) bin = runs[i].util_bin;
    if (bin == 0) return 0;
    FILE *f = cs__gp_begin(g, "utilisation", 1100, 600);
    if (!f) return CS_EXIT_IO;
    fprintf(f, "set title 'Lane utilisation'\nset xlabel 'block height'\n");
    fprintf(f, "set ylabel 'lane cycles used / LANE_TIMER_CYCLES'\nset yrange [0:*]\n");
    fprintf(f, "set key outside right top\nplot");
    for (size_t i = 0, k = 0; i < n; i++) {
        if (runs[i].nblocks == 0) continue;
        fprintf(f, "%s 'run%zu_util.dat' using 1:2 with lines", k++ ? ", \\\n    " : " ", i + 1);
        cs__style(f, i, n, 1.0);
        fputs(" title ", f);
        cs__gp_quote(f, runs[i].label);
    }
    fputc('\n', f);
    char cap[768];
    if (bin > 1)
        snprintf(cap, sizeof cap,
                 "Lane utilisation per height, mean over bins of %llu blocks, one line per run "
                 "(mechanisms without a lane budget show 0).",
                 (unsigned long long)bin);
    else
        snprintf(cap, sizeof cap, "Lane utilisation per block height, one line per run.");
    return cs__gp_end(g, f, "utilisation", plots, "lane utilisation over height", cap);
}

/* Tick labels for a log axis of delay + 1: the delays 0, 1, 2, 5, 10, ... up
 * to max, placed at delay + 1. */
static void cs__delay_ticks(FILE *f, uint32_t max)
{
    static const double step[3] = {1, 2, 5};
    fprintf(f, "set xtics (\"0\" 1");
    for (double dec = 1; dec <= (double)max * 10; dec *= 10)
        for (int s = 0; s < 3; s++) {
            double d = dec * step[s];
            if (d <= (double)max * 1.5) fprintf(f, ", \"%.0f\" %.0f", d, d + 1);
        }
    fprintf(f, ")\n");
}

/* The x axis of a delay CDF whose largest delay is max, written to script
 * f: for long tails (max > 50) a log axis of delay + 1, so both the bulk
 * and the tail show, with ticks labelled in delays.  Sets *shift (what is
 * added to a delay: 1 or 0) and *xend (the axis end); returns 1 for the
 * log axis. */
int cs__delay_axis(FILE *f, uint32_t max, double *shift, double *xend)
{
    int logx = max > 50;
    *shift = logx ? 1 : 0;
    *xend = logx ? ((double)max + 1) * 1.15 : (double)max + 1;
    if (logx) {
        fprintf(f, "set logscale x\nset xrange [1:%.10g]\n", *xend);
        cs__delay_ticks(f, max);
        fprintf(f, "set xlabel 'delay = fire height - due height (blocks; log scale of delay + 1)'\n");
    } else {
        fprintf(f, "set xrange [-0.5:%.10g]\n", *xend);
        fprintf(f, "set xlabel 'delay = fire height - due height (blocks)'\n");
    }
    return logx;
}

/* Write the empirical CDF of h to DIR/name: "x F" points for a `steps`
 * plot: a leading (first, 0), one point per distinct delay, and a trailing
 * (xend, 1).  x is delay + shift. */
int cs__write_cdf(const char *dir, const char *name, const cs__dhist_t *h, double shift, double xend)
{
    FILE *f = cs__open_out(dir, name);
    if (!f) return CS_EXIT_IO;
    fprintf(f, "# x = delay + %g, F = fraction of fires with delay <= delay\n", shift);
    uint64_t cum = 0;
    int first = 1;
    for (size_t d = 0; d < h->ncnt; d++) {
        if (!h->cnt[d]) continue;
        if (first) fprintf(f, "%.10g 0\n", (double)d + shift);
        first = 0;
        cum += h->cnt[d];
        fprintf(f, "%.10g %.10g\n", (double)d + shift, (double)cum / (double)h->total);
    }
    for (size_t i = 0; i < h->nbig; i++) {
        if (first) fprintf(f, "%.10g 0\n", (double)h->big[i] + shift);
        first = 0;
        cum++;
        if (i + 1 < h->nbig && h->big[i + 1] == h->big[i]) continue;
        fprintf(f, "%.10g %.10g\n", (double)h->big[i] + shift, (double)cum / (double)h->total);
    }
    fprintf(f, "%.10g 1\n", xend);
    return cs__close_out(f, dir, name);
}

/* Share of h's fires at its smallest delay: the CDF's first step. */
static double cs__cdf_first(const cs__dhist_t *h)
{
    for (size_t d = 0; d < h->ncnt; d++)
        if (h->cnt[d]) return (double)h->cnt[d] / (double)h->total;
    size_t j = 0;
    while (j < h->nbig && h->big[j] == h->big[0]) j++;
    return h->total ? (double)j / (double)h->total : 0;
}

/* One delay-CDF plot per agent kind with fires in some run; mechanisms
 * share the axes. */
int cs__plot_delays(const cs__gp_t *g, const cs__rep_run_t *runs, size_t n, cs__plots_t *plots)
{
    for (int k = 0; k < CS_AGENT_KIND_COUNT; k++) {
        uint32_t max = 0;
        int any = 0, sampled = 0;
        double f0 = 1; /* lowest first step: the y axis may start just below it */
        for (size_t i = 0; i < n; i++) {
            if (runs[i].delay[k].total == 0) continue;
            any = 1;
            double a = cs__cdf_first(&runs[i].delay[k]);
            if (a < f0) f0 = a;
            if (runs[i].delay[k].max > max) max = runs[i].delay[k].max;
            if (strcmp(runs[i].fires_mode, "sample") == 0) sampled = 1;
        }
        if (!any) continue;
        const char *kn = cs_h5_kind_names[k];
        /* Long tails: log axis of delay + 1 so both the bulk and the tail show. */
        char base[128];
        snprintf(base, sizeof base, "delay_cdf_%s", kn);
        FILE *f = cs__gp_begin(g, base, 1000, 660);
        if (!f) return CS_EXIT_IO;
        fprintf(f, "set title 'Fire delay CDF: agent kind %s'\n", kn);
        double shift, xend;
        int logx = cs__delay_axis(f, max, &shift, &xend);
        /* Mostly-prompt kinds: zoom on the tail, starting 0.1 below the
         * lowest first step (rounded down to a tenth), and say so. */
        double ylo = f0 >= 0.4 ? floor(f0 * 10.0) / 10.0 - 0.1 : 0;
        if (ylo > 0.9) ylo = 0.9;
        if (ylo > 0)
            fprintf(f, "set ylabel 'fraction of fires with delay <= x (axis from %.1f)'\n", ylo);
        else
            fprintf(f, "set ylabel 'fraction of fires with delay <= x'\n");
        fprintf(f, "set yrange [%.1f:1.005]\n", ylo);
        fprintf(f, "set key below maxrows 4\nplot");
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            const cs__dhist_t *h = &runs[i].delay[k];
            if (h->total == 0) continue;
            char dat[192];
            snprintf(dat, sizeof dat, "run%zu_delay_%s.dat", i + 1, kn);
            int rc = cs__write_cdf(g->dir, dat, h, shift, xend);
            if (rc) {
                cs__gp_abort(g, f, base);
                return rc;
            }
            char title[256];
            double cens = runs[i].met.kind_present[k] ? runs[i].met.k[k][CS_KM_censored] : CS__REP_NAN;
            snprintf(title, sizeof title, "%s (%llu fires, %.0f censored)", runs[i].label,
                     (unsigned long long)h->total, cens);
            fprintf(f, "%s '%s' using 1:2 with steps", m++ ? ", \\\n    " : " ", dat);
            cs__style(f, i, n, 1.4);
            fputs(" title ", f);
            cs__gp_quote(f, title);
        }
        fputc('\n', f);
        char cap[768], alt[160];
        snprintf(cap, sizeof cap,
                 "Empirical CDF of fire delay for agent kind %s, one line per run%s; timers never fired are "
                 "censored (counted in the legend, not in the CDF)%s%s.",
                 kn, logx ? " (log x axis of delay + 1, ticks labelled in blocks of delay)" : "",
                 ylo > 0 ? "; the y axis starts above 0" : "", sampled ? "; /fires holds a 1/N sample of timers" : "");
        snprintf(alt, sizeof alt, "delay CDF %s", kn);
        int rc = cs__gp_end(g, f, base, plots, alt, cap);
        if (rc) return rc;
    }
    return 0;
}

/* W(actor) p10/p50/p90 per /weights sample, every run on one axes. */
int cs__plot_weights(const cs__gp_t *g, const cs__rep_run_t *runs, size_t n, cs__plots_t *plots)
{
    size_t most = 0;
    for (size_t i = 0; i < n; i++)
        if (runs[i].w_samples > most) most = runs[i].w_samples;
    if (most == 0) return 0;
    /* Few samples: mark them, a single sample would otherwise not show. */
    const char *with = most < 30 ? "linespoints pt 7 ps 0.7" : "lines";
    FILE *f = cs__gp_begin(g, "weights", 1100, 600);
    if (!f) return CS_EXIT_IO;
    fprintf(f, "set title 'Fairness weight W(actor) across identities'\nset xlabel 'block height (sample)'\n");
    fprintf(f, "set ylabel 'W (CIP-1 rev §8, in [1, 2])'\nset yrange [0.95:2.05]\n");
    fprintf(f, "set key outside right top\nplot");
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (runs[i].w_samples == 0) continue;
        fprintf(f, "%s 'run%zu_weights.dat' using 1:3 with %s", m++ ? ", \\\n    " : " ", i + 1, with);
        cs__style(f, i, n, 1.4);
        fputs(" title ", f);
        cs__gp_quote(f, runs[i].label);
        for (int c = 2; c <= 4; c += 2)
            fprintf(f, ", \\\n    'run%zu_weights.dat' using 1:%d with %s lc rgb '%s' dt 2 lw 1.2 notitle", i + 1,
                    c, with, cs__colors[i % 10]);
    }
    fprintf(f, ", \\\n    NaN with lines lc rgb '#000000' lw 1.4 title 'p50 (solid)', \\\n"
               "    NaN with lines lc rgb '#000000' dt 2 lw 1.2 title 'p10, p90 (dashed)'");
    fputc('\n', f);
    return cs__gp_end(g, f, "weights", plots, "W(actor) percentiles over time",
                      "W(actor) over the run: 10th, 50th (solid) and 90th (dashed) percentile across fairness "
                      "identities at each /weights sample (GSL quantile definition).");
}

/* Burn / tips / payments of every run as clustered bars (cs_metrics values). */
int cs__plot_revenue(const cs__gp_t *g, const cs__rep_run_t *runs, size_t n, cs__plots_t *plots)
{
    static const int mi[3] = {CS_M_burn, CS_M_tips, CS_M_payments};
    double lo = HUGE_VAL, hi = 0;
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) {
            double v = runs[i].met.v[mi[c]];
            if (isfinite(v) && v > 0) {
                if (v < lo) lo = v;
                if (v > hi) hi = v;
            }
        }
    int logy = hi > 0 && hi / lo >= 1000;
    FILE *d = cs__open_out(g->dir, "revenue.dat");
    if (!d) return CS_EXIT_IO;
    fprintf(d, "# run burn tips payments (base units; cs_metrics burn, tips, payments%s)\n",
            logy ? "; 0 written as NaN for the log axis" : "");
    for (size_t i = 0; i < n; i++) {
        char lab[160];
        cs__sanitize(lab, sizeof lab, runs[i].label);
        fprintf(d, "%s", lab);
        for (int c = 0; c < 3; c++) {
            double v = runs[i].met.v[mi[c]];
            cs__dat_num(d, logy && !(v > 0) ? CS__REP_NAN : v);
        }
        fputc('\n', d);
    }
    int rc = cs__close_out(d, g->dir, "revenue.dat");
    if (rc) return rc;
    FILE *f = cs__gp_begin(g, "revenue", 1100, 600);
    if (!f) return CS_EXIT_IO;
    fprintf(f, "set title 'Revenue split per run'\nset ylabel 'base units%s'\n", logy ? " (log scale)" : "");
    fprintf(f, "set style data histograms\nset style histogram clustered gap 1\n"
               "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset xtics rotate by -25\n");
    if (logy) {
        double l = floor(log10(lo)) - 0.5;
        fprintf(f, "set logscale y\nset format y '1e%%L'\nset yrange [%.6g:*]\n", pow(10.0, l));
    } else {
        fprintf(f, "set yrange [0:*]\n");
    }
    fprintf(f, "set key top left box opaque\n");
    /* Only series with a drawable value: gnuplot refuses a histogram series
     * whose every point is NaN ("No valid points in histogram"), which a
     * log axis makes of a column of zeros (eip1559 alone: no payments).
     * The first series carries the x labels; burn is always drawn. */
    static const char *const title[3] = {"burn", "tips (to proposer)", "auction payments"};
    static const char *const colour[3] = {"#d62728", "#1f77b4", "#2ca02c"};
    fprintf(f, "plot 'revenue.dat' using 2:xtic(1) title '%s' lc rgb '%s'", title[0], colour[0]);
    for (int c = 1; c < 3; c++) {
        int any = 0;
        for (size_t i = 0; i < n; i++) {
            double v = runs[i].met.v[mi[c]];
            any |= logy ? v > 0 : isfinite(v);
        }
        if (any) fprintf(f, ", '' using %d title '%s' lc rgb '%s'", c + 2, title[c], colour[c]);
    }
    fputc('\n', f);
    char cap[768];
    snprintf(cap, sizeof cap,
             "Revenue split per run: base units burned, tips and auction payments (metrics burn, tips, "
             "payments)%s.",
             logy ? "; log scale, a missing bar is 0" : "");
    return cs__gp_end(g, f, "revenue", plots, "revenue split", cap);
}

/* ---- fairness and welfare bar charts -------------------------------------- */

/* The metrics drawn as one bar chart each across mechanisms (run reports). */
const int cs__bar_metrics[] = {CS_M_welfare,      CS_M_efficiency, CS_M_poa,
                               CS_M_utility,      CS_M_jain,       CS_M_gini,
                               CS_M_var_util_per_bid, CS_M_var_eff_per_bid};
/* CS__NBAR (cs_report_int.h) is its length: a different count does not compile. */

/*
 * One bar chart `base`: bar i has height mean[i] and label lab[i]; with
 * lo/hi (may be NULL) a whisker from lo[i] to hi[i] (none where NaN).  Data
 * file base.dat: "index label mean lo hi".  The caption says what the bars
 * (and whiskers) are: ivdesc.  Nothing is drawn (0 returned) when every
 * mean is NaN.  Returns 0 or an exit code with a message.
 */
int cs__plot_bars(const cs__gp_t *g, const char *base, const char *metric, char (*lab)[128], const double *mean,
                  const double *lo, const double *hi, size_t n, const char *ivdesc, cs__plots_t *plots)
{
    int any = 0, whiskers = 0, neg = 0, pos = 0;
    for (size_t i = 0; i < n; i++) {
        any |= isfinite(mean[i]);
        whiskers |= lo && isfinite(lo[i]) && isfinite(hi[i]);
        neg |= mean[i] < 0 || (lo && lo[i] < 0);
        pos |= mean[i] > 0 || (hi && hi[i] > 0);
    }
    if (!any) return 0;
    char dn[160];
    snprintf(dn, sizeof dn, "%s.dat", base);
    FILE *d = cs__open_out(g->dir, dn);
    if (!d) return CS_EXIT_IO;
    fprintf(d, "# %s per mechanism: index, label, value%s\n", metric, whiskers ? ", interval lo, hi" : ", NaN, NaN");
    for (size_t i = 0; i < n; i++) {
        char sl[160];
        cs__sanitize(sl, sizeof sl, lab[i]);
        /* %.17g: the values read back exactly (the test compares them). */
        double c[3] = {mean[i], lo ? lo[i] : CS__REP_NAN, hi ? hi[i] : CS__REP_NAN};
        fprintf(d, "%zu %s", i, sl);
        for (int j = 0; j < 3; j++) {
            if (isfinite(c[j])) fprintf(d, " %.17g", c[j]);
            else fputs(" NaN", d);
        }
        fputc('\n', d);
    }
    int rc = cs__close_out(d, g->dir, dn);
    if (rc) return rc;
    FILE *f = cs__gp_begin(g, base, 900, 520);
    if (!f) return CS_EXIT_IO;
    fprintf(f, "set title ");
    cs__gp_quote(f, metric);
    fprintf(f, "\nset style fill solid 0.7 border -1\nset boxwidth 0.6\nset xtics rotate by -25\n"
               "set xrange [-0.6:%zu.6]\n", n - 1);
    /* Bars start at 0: a y axis cut above 0 would exaggerate differences. */
    if (!neg) fprintf(f, "set yrange [0:*]\n");
    else if (!pos) fprintf(f, "set yrange [*:0]\n");
    fprintf(f, "plot '%s' using 1:3:xtic(2) with boxes lc rgb '%s'", dn, cs__colors[0]);
    if (whiskers) fprintf(f, ", '' using 1:3:4:5 with yerrorbars lc rgb '#222222' pt 7 ps 0.4");
    fputc('\n', f);
    char alt[256], cap[768];
    snprintf(alt, sizeof alt, "%s per mechanism", metric);
    snprintf(cap, sizeof cap, "%s per mechanism (analysis/README.md): %s.", metric, ivdesc);
    return cs__gp_end(g, f, base, plots, alt, cap);
}

/* One bar chart per fairness and welfare metric across the runs (one bar
 * per run; no interval: a single run per mechanism). */
int cs__plot_metric_bars(const cs__gp_t *g, const cs__rep_run_t *runs, size_t n, cs__plots_t *plots)
{
    char(*lab)[128] = calloc(n, sizeof *lab);
    double *v = calloc(n, sizeof *v);
    int rc = lab && v ? 0 : CS_EXIT_IO;
    for (size_t k = 0; rc == 0 && k < CS__NBAR; k++) {
        const char *name = cs__mnames[cs__bar_metrics[k]];
        char base[96];
        snprintf(base, sizeof base, "bars_%s", name);
        for (size_t i = 0; i < n; i++) {
            snprintf(lab[i], sizeof lab[i], "%s", runs[i].label);
            v[i] = runs[i].met.v[cs__bar_metrics[k]];
        }
        rc = cs__plot_bars(g, base, name, lab, v, NULL, NULL, n, "the value of each run file, as compare prints it",
                           plots);
    }
    if (!lab || !v) fprintf(stderr, "cowsim report: out of memory\n");
    free(lab);
    free(v);
    return rc;
}
