/*
 * cs_report_tables.c -- report.md of `cowsim report`: the title block, the
 * runs' provenance, metrics and steady-state tables, the multi-seed table,
 * the sweep tables (means per point, paired differences) and the figures
 * with their captions.
 */
#include "cs_report_int.h"

#include "cs_mech.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- report.md ------------------------------------------------------------ */

/* Markdown-escape s into f for a table cell ('|' and newlines). */
static void cs__md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else if (*s == '\n' || *s == '\r') fputc(' ', f);
        else fputc(*s, f);
    }
}

/* Write the images of plots[from, to) with captions. */
void cs__md_plots(FILE *f, const cs__plots_t *pl, size_t from, size_t to, size_t *fig)
{
    for (size_t i = from; i < to; i++) {
        fprintf(f, "![%s](%s)\n\n*Figure %zu. %s*\n\n", pl->p[i].alt, pl->p[i].file, ++*fig, pl->p[i].caption);
    }
}

/* Head of a table with one column per run: `first`, `unit`, the run
 * labels, and the alignment row. */
static void cs__md_run_head(FILE *f, const char *first, const cs__rep_run_t *runs, size_t n)
{
    fprintf(f, "| %s | unit |", first);
    for (size_t i = 0; i < n; i++) {
        fputc(' ', f);
        cs__md_cell(f, runs[i].label);
        fputs(" |", f);
    }
    fprintf(f, "\n|---|---|");
    for (size_t i = 0; i < n; i++) fputs("---:|", f);
    fputc('\n', f);
}

/* One table cell: v (cs__fmt_sig), with " [lo, hi]" when lo is finite,
 * bold when marked as the row's best. */
static void cs__md_num(FILE *f, double v, double lo, double hi, int best)
{
    char a[64], b[64], c[64];
    if (!isfinite(v)) fprintf(f, " %s |", CS__NUM_NAN);
    else if (!isfinite(lo)) fprintf(f, " %s%s%s |", best ? "**" : "", cs__fmt_sig(a, sizeof a, v), best ? "**" : "");
    else
        fprintf(f, " %s%s%s [%s, %s] |", best ? "**" : "", cs__fmt_sig(a, sizeof a, v), best ? "**" : "",
                cs__fmt_sig(b, sizeof b, lo), cs__fmt_sig(c, sizeof c, hi));
}

/* The steady-state table of report.md: how the warm-up was removed, each
 * run's cut, then per series "mean [lo, hi]" (95 % batch-means interval). */
static void cs__md_steady(FILE *f, const cs__rep_run_t *runs, size_t n)
{
    int mode = runs[0].ss.mode;
    fprintf(f, "## Steady state\n\n");
    fprintf(f, "Warm-up removed by %s; then the per-block series are averaged over the remaining blocks, "
               "each mean with its 95 %% batch-means interval (%d batches; `analysis/README.md` \"Steady state\"), 4 "
               "significant digits (`cowsim compare --json` has them exactly).\n\n",
            mode == CS_STEADY_MSER5 ? "MSER-5 on every series, the largest cut"
            : mode == CS_STEADY_BURNIN ? "a stated burn-in (`--burn-in`)" : "nothing (`--no-warmup`)",
            CS_STEADY_BATCHES);
    for (size_t i = 0; i < n; i++) {
        const cs_steady_t *s = &runs[i].ss;
        fprintf(f, "- %s: cut %llu of %llu blocks", runs[i].label, (unsigned long long)s->cut,
                (unsigned long long)s->blocks);
        if (s->cut_by >= 0) fprintf(f, " (set by %s)", cs_steady_name(s->cut_by));
        fprintf(f, ", means over the last %llu.%s\n", (unsigned long long)s->used,
                s->at_limit ? " **MSER-5 cut half the run (its limit): the run may be too short for a steady state.**"
                            : "");
    }
    fputc('\n', f);
    /* Units of the series, in cs_steady order (cs_steady.h). */
    _Static_assert(CS_SS__COUNT == 6, "one unit per steady-state series");
    static const char *const unit[CS_SS__COUNT] = {"base units/cycle", "ratio",           "fires/block",
                                                   "timers",           "base units/block", "base units/block"};
    cs__md_run_head(f, "series", runs, n);
    for (int k = 0; k < CS_SS__COUNT; k++) {
        fprintf(f, "| %s | %s |", cs_steady_name(k), unit[k]);
        for (size_t i = 0; i < n; i++) {
            const cs_steady_t *s = &runs[i].ss;
            if (!s->present[k]) cs__md_num(f, CS__REP_NAN, CS__REP_NAN, CS__REP_NAN, 0);
            else cs__md_num(f, s->mean[k], s->lo[k], s->hi[k], 0);
        }
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* The runs part of report.md: provenance table, metrics table, figures. */
int cs__md_runs(FILE *f, const cs__rep_run_t *runs, size_t n)
{
    fprintf(f, "## Runs\n\n| run | file | mechanism | scenario | seed | blocks | complete | cowsim | commit |\n");
    fprintf(f, "|---|---|---|---|---:|---:|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        fputs("| ", f);
        cs__md_cell(f, runs[i].label);
        fputs(" | `", f);
        cs__md_cell(f, runs[i].path);
        fputs("` | ", f);
        cs__md_cell(f, runs[i].mechanism);
        fputs(" | ", f);
        cs__md_cell(f, runs[i].scenario_name);
        fprintf(f, " | %llu | %llu | %s | ", (unsigned long long)runs[i].seed, (unsigned long long)runs[i].nblocks,
                runs[i].complete ? "yes" : "**no**");
        cs__md_cell(f, runs[i].cowsim_version);
        fputs(" | ", f);
        cs__md_cell(f, runs[i].git_commit);
        fputs(" |\n", f);
    }
    fputc('\n', f);
    for (size_t i = 0; i < n; i++)
        if (runs[i].met.note[0]) {
            fprintf(f, "- Note on %s: ", runs[i].label);
            cs__md_cell(f, runs[i].met.note);
            fputc('\n', f);
        }
    /* CIP-5 §9.3 under each bias rule: which lambda loop ran and how well
     * the invariant held (DESIGN-NOTES N64, N70). */
    for (size_t i = 0; i < n; i++) {
        const cs_metrics_t *m = &runs[i].met;
        if (strncmp(runs[i].mechanism, "bias-", 5) != 0) continue;
        char a[32], b[32];
        fprintf(f, "- CIP-5 §9.3 on %s: lambda loop %s; the invariant Y dn >= Bias(n + dn) - Bias(n) failed in %s "
                   "of the blocks with a deferred timer, by %s base units a block on average (bias_slack_violated, "
                   "bias_slack_deficit).\n",
                runs[i].label, m->lambda_loop[0] ? m->lambda_loop : "not recorded",
                cs__fmt_sig(a, sizeof a, m->v[CS_M_bias_slack_violated]),
                cs__fmt_sig(b, sizeof b, m->v[CS_M_bias_slack_deficit]));
    }
    fprintf(f, "\n## Metrics\n\n");
    fprintf(f, "Values of `cs_metrics_compute` (definitions in `analysis/README.md`) to 4 significant digits "
               "(`cowsim compare --json` prints them exactly), with the unit of each row; **bold** is the best "
               "value of a row where one direction is better (higher welfare, utility, efficiency and Jain; lower "
               "delays, censored timers, poa, Gini, variances, basefee CV, reversals, attack gain and §9.3's "
               "violations), compared at "
               "full precision among the rules (not the greedy reference); `%s` = undefined (JSON null: e.g. efficiency without a `greedy.h5` beside the run) "
               "or a kind absent from the run. `efficiency` and `poa` are against the exact welfare optimum where "
               "`opt_exact` is 1 and against an upper bound of it where it is 0; `bound_gap` is that bound's gap to "
               "the exact optimum on sampled windows of the run (analysis/README.md \"Bound gap\").\n\n",
            CS__NUM_NAN);
    cs__md_run_head(f, "metric", runs, n);
    /* Rows: as compare lists them, the run-level metrics, then the per-kind
     * metrics of every kind present in some run (kind order); a kind absent
     * from a run shows CS__NUM_NAN there (compare --json omits it). */
    cs_metrics_t all;
    memset(&all, 0, sizeof all);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < CS_METRIC_KINDS; k++)
            if (runs[i].met.kind_present[k]) all.kind_present[k] = 1;
    size_t nn = cs_metrics_n(&all);
    double *v = malloc((n + 1) * sizeof *v);
    int *best = malloc((n + 1) * sizeof *best);
    const char **mechs = malloc((n + 1) * sizeof *mechs);
    for (size_t i = 0; mechs && i < n; i++) mechs[i] = runs[i].mechanism;
    for (size_t j = 0; v && best && mechs && j < nn; j++) {
        char name[96];
        if (!cs_metrics_name(&all, j, name, sizeof name)) continue;
        int better;
        const char *unit = cs__metric_unit(name, &better);
        fprintf(f, "| %s | %s |", name, unit);
        for (size_t i = 0; i < n; i++)
            if (cs_metrics_get(&runs[i].met, name, &v[i]) != 0) v[i] = CS__REP_NAN;
        cs__best(v, mechs, n, better, best);
        for (size_t i = 0; i < n; i++) cs__md_num(f, v[i], CS__REP_NAN, CS__REP_NAN, best[i]);
        fputc('\n', f);
    }
    int oom = !v || !best || !mechs;
    if (oom) fprintf(stderr, "cowsim report: out of memory writing the metrics table\n");
    free(v);
    free(best);
    free(mechs);
    fputc('\n', f);
    cs__md_steady(f, runs, n);
    return oom ? -1 : 0;
}

/* The rows of the multi-seed table: the columns of `cowsim run`'s own
 * table (welfare, efficiency, paid, delay_p99, jain, basefee_mean) and the
 * other welfare and fairness figures of the bar charts. */
static const int cs__seed_rows[] = {CS_M_welfare,  CS_M_efficiency,       CS_M_paid,            CS_M_utility,
                                    CS_M_delay_p50, CS_M_delay_p99,       CS_M_jain,            CS_M_gini,
                                    CS_M_poa,      CS_M_var_util_per_bid, CS_M_var_eff_per_bid, CS_M_basefee_mean,
                                    CS_M_util_mean};
#define CS__NSEEDROW (sizeof cs__seed_rows / sizeof cs__seed_rows[0])

/* The report.md section of multi-seed run s: seeds, the table of means
 * with t intervals, its figures. */
int cs__md_seedrun(FILE *f, const cs__seedrun_t *s, const cs__plots_t *pl, size_t from, size_t to,
                    size_t *fig)
{
    size_t nm = s->set.nm, ns = s->set.ns;
    fprintf(f, "## Multi-seed run `%s`\n\nScenario %s, %zu seeds (", s->path, s->set.scenario, ns);
    for (size_t i = 0; i < ns; i++) fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)s->set.seeds[i]);
    fprintf(f, ").  Mean over the seeds with its 95 %% Student-t interval, t(n-1, 0.975) s / sqrt(n) (seeds "
               "where a metric is undefined left out), 4 significant digits: the numbers of `cowsim compare %s "
               "--json` (fields mean, t_lo, t_hi, at full precision), which adds the paired differences between "
               "mechanisms with t and BCa intervals.  **Bold**: the best mean of a row where one direction is "
               "better, among the rules (not the greedy reference); \xe2\x80\x94: no lane basefee (not a fee mechanism).\n\n",
            s->path);
    fprintf(f, "| metric | unit |");
    for (size_t j = 0; j < nm; j++) fprintf(f, " %s |", s->set.mechs[j]);
    fprintf(f, "\n|---|---|");
    for (size_t j = 0; j < nm; j++) fputs("---:|", f);
    fputc('\n', f);
    double *x = malloc((ns + 1) * sizeof *x), *mean = malloc((nm + 1) * sizeof *mean),
           *lo = malloc((nm + 1) * sizeof *lo), *hi = malloc((nm + 1) * sizeof *hi);
    int *best = malloc((nm + 1) * sizeof *best);
    for (size_t r = 0; x && mean && lo && hi && best && r < CS__NSEEDROW; r++) {
        const char *name = cs__mnames[cs__seed_rows[r]];
        int better;
        const char *unit = cs__metric_unit(name, &better);
        for (size_t j = 0; j < nm; j++) {
            size_t k = 0;
            for (size_t i = 0; i < ns; i++) {
                double v = s->set.mt[j * ns + i].v[cs__seed_rows[r]];
                if (isfinite(v)) x[k++] = v;
            }
            mean[j] = lo[j] = hi[j] = CS__REP_NAN;
            if (k) cs_stat_t_interval(x, k, CS__BOOT_LEVEL, &mean[j], &lo[j], &hi[j]);
        }
        cs__best(mean, (const char *const *)s->set.mechs, nm, better, best);
        fprintf(f, "| %s | %s |", name, unit);
        for (size_t j = 0; j < nm; j++) {
            /* As `cowsim run`'s table: only fee mechanisms have a lane
             * basefee (CIP-1 rev §5); the others' is a constant nobody pays. */
            const cs_mech_ops_t *ops = cs_mech_find_any(s->set.mechs[j]);
            if (cs__seed_rows[r] == CS_M_basefee_mean && !(ops && (ops->flags & CS_MF_FEES)))
                fputs(" \xe2\x80\x94 |", f);
            else cs__md_num(f, mean[j], lo[j], hi[j], best[j]);
        }
        fputc('\n', f);
    }
    int oom = !(x && mean && lo && hi && best);
    if (oom) fprintf(stderr, "cowsim report: out of memory writing the seeds table\n");
    free(x);
    free(mean);
    free(lo);
    free(hi);
    free(best);
    fputc('\n', f);
    cs__md_plots(f, pl, from, to, fig);
    return oom ? -1 : 0;
}

/* Head of a per-point sweep table: point, the swept parameters, column
 * `count`, then `mprefix` + the name of every varying metric; alignment row. */
static void cs__md_sweep_head(FILE *f, const cs__sweep_t *s, const char *count, const char *mprefix)
{
    fprintf(f, "| point |");
    for (size_t p = 0; p < s->np; p++) fprintf(f, " %s |", s->plabel[p]);
    fprintf(f, " %s |", count);
    for (int m = 0; m < CS_M__COUNT; m++) {
        double only;
        if (s->metric_col[m] >= 0 && cs__varies(s, s->metric_col[m], &only))
            fprintf(f, " %s%s |", mprefix, s->col[s->metric_col[m]].name);
    }
    fprintf(f, "\n|---:|");
    for (size_t p = 0; p < s->np; p++) fprintf(f, "---:|");
    fprintf(f, "---:|");
    for (int m = 0; m < CS_M__COUNT; m++) {
        double only;
        if (s->metric_col[m] >= 0 && cs__varies(s, s->metric_col[m], &only)) fprintf(f, "---:|");
    }
    fputc('\n', f);
}

/*
 * Paired differences between mechanisms of sweep s on the same seed
 * (common random numbers): for every mechanism k other than the reference
 * `ref` (index into mechs) a table with one row per design point and, per
 * varying metric, d = mean over the seeds of x(k, seed) - x(ref, seed) with
 * its 95 % Student-t and BCa intervals (the BCa from CS_STAT_BOOT_MIN_N
 * pairs; a note says when a point has fewer).  Needs the seed column and
 * at least two mechanisms; nothing is written otherwise.  Returns 0 or -1
 * when out of memory.
 */
static int cs__md_sweep_paired(FILE *f, const cs__sweep_t *s, const cs__names_t *mechs, size_t ref)
{
    if (mechs->n < 2 || s->c_seed < 0 || s->col[s->c_seed].is_str) return 0;
    const char *const *mv = mechs->v;
    const char *const *mech = (const char *const *)s->col[s->c_mech].str;
    size_t nr = s->nrows ? s->nrows : 1;
    double *a = malloc(nr * sizeof *a), *b = malloc(nr * sizeof *b);
    size_t *pr = malloc(nr * sizeof *pr), *pu = malloc(nr * sizeof *pu);
    int rc = a && b && pr && pu ? 0 : -1, few = 0;
    fprintf(f, "### Paired differences against %s\n\n", mv[ref]);
    fprintf(f, "Per design point, the mean over seeds of d = x(mechanism, seed) - x(%s, seed): both runs see the "
               "same arrivals (common random numbers), so d removes the seed-to-seed variation of demand.  "
               "Cells: d, its 95 %% Student-t interval, then `BCa` and the 95 %% BCa bootstrap interval "
               "(from %d pairs); `%s` = no pair with finite values.\n\n",
            mv[ref], CS_STAT_BOOT_MIN_N, CS__NUM_NAN);
    for (size_t k = 0; rc == 0 && k < mechs->n; k++) {
        if (k == ref) continue;
        fprintf(f, "#### %s - %s\n\n", mv[k], mv[ref]);
        cs__md_sweep_head(f, s, "pairs", "d ");
        for (size_t i = 0; rc == 0 && i < s->nrows; i++) {
            /* Rows of mechanism k, each point once (its first row). */
            if (strcmp(mech[i], mv[k]) != 0) continue;
            double pt = cs__row_point(s, i);
            size_t q;
            for (q = 0; q < i && !(strcmp(mech[q], mv[k]) == 0 && cs__row_point(s, q) == pt); q++) {}
            if (q < i) continue;
            char num[64];
            fprintf(f, "| %.0f |", pt);
            for (size_t p = 0; p < s->np; p++) {
                const cs__scol_t *c = &s->col[s->p0 + p];
                fputc(' ', f);
                if (c->is_str) cs__md_cell(f, c->str[i]);
                else fputs(cs__fmt_num(num, sizeof num, c->num[i]), f);
                fputs(" |", f);
            }
            /* Pair each row (k, pt, seed) with the row (ref, pt, seed). */
            size_t n = 0;
            for (size_t r = 0; r < s->nrows; r++) {
                if (strcmp(mech[r], mv[k]) != 0 || cs__row_point(s, r) != pt) continue;
                size_t u = cs__ref_row(s, r, mv[ref]);
                if (u == SIZE_MAX) continue;
                pr[n] = r;
                pu[n++] = u;
            }
            int first = 1;
            for (int m = 0; rc == 0 && m < CS_M__COUNT; m++) {
                double only;
                if (s->metric_col[m] < 0 || !cs__varies(s, s->metric_col[m], &only)) continue;
                cs_stat_ci_t ci;
                if (cs__pair_ci(s, s->metric_col[m], pr, pu, n, a, b, &ci) != 0) {
                    rc = -1;
                    break;
                }
                if (first) fprintf(f, " %zu |", n);
                first = 0;
                if (ci.n > 0 && ci.n < CS_STAT_BOOT_MIN_N) few = 1;
                if (ci.n == 0) fprintf(f, " %s |", CS__NUM_NAN);
                else {
                    fprintf(f, " %.6g", ci.mean);
                    if (isfinite(ci.t_lo)) fprintf(f, " [%.6g, %.6g]", ci.t_lo, ci.t_hi);
                    if (isfinite(ci.b_lo)) fprintf(f, " BCa [%.6g, %.6g]", ci.b_lo, ci.b_hi);
                    fputs(" |", f);
                }
            }
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    if (rc == 0 && few) {
        fprintf(f, "**Warning:** fewer than %d pairs at some points: Student-t intervals only, no bootstrap.\n\n",
                CS_STAT_BOOT_MIN_N);
        fprintf(stderr, "cowsim report: warning: %s: fewer than %d seeds per point: paired differences without "
                        "bootstrap intervals\n", s->path, CS_STAT_BOOT_MIN_N);
    }
    free(a);
    free(b);
    free(pr);
    free(pu);
    return rc;
}

/* The part of report.md for sweep s: provenance, a table of means per
 * (mechanism, point), the paired differences, figures: plots[from, to),
 * of which [dfrom, to) are the paired-difference plots, listed beside the
 * paired-difference tables. */
int cs__md_sweep(FILE *f, const cs__sweep_t *s, const char *refname, const cs__plots_t *pl, size_t from,
                 size_t dfrom, size_t to, size_t *fig)
{
    fprintf(f, "## Sweep %s\n\n", s->name);
    fprintf(f, "File `%s`: %zu rows in /runs", s->path, s->nrows);
    if (s->base_name[0]) fprintf(f, "; base scenario %s", s->base_name);
    if (s->blocks) fprintf(f, ", %llu blocks", (unsigned long long)s->blocks);
    if (s->version[0]) fprintf(f, "; cowsim %s", s->version);
    if (s->commit[0]) fprintf(f, ", commit %s", s->commit);
    if (s->design[0]) fprintf(f, "; design %s", s->design);
    if (!s->complete) fprintf(f, "; **incomplete** (not every run finished)");
    fprintf(f, ".  Swept:");
    for (size_t p = 0; p < s->np; p++)
        fprintf(f, "%s `%s` (column `%s`)", p ? "," : "", s->plabel[p], s->col[s->p0 + p].name);
    if (s->np == 0) fprintf(f, " nothing (one point)");
    fprintf(f, ".\n\n");
    /* Constant or undefined metrics are listed, not plotted. */
    int nconst = 0, nundef = 0;
    for (int m = 0; m < CS_M__COUNT; m++) {
        double only;
        if (s->metric_col[m] < 0 || cs__varies(s, s->metric_col[m], &only) || isnan(only)) continue;
        char num[64];
        fprintf(f, "%s%s = %s", nconst++ ? ", " : "Constant over the sweep (not plotted): ", s->col[s->metric_col[m]].name,
                cs__fmt_num(num, sizeof num, only));
    }
    if (nconst) fprintf(f, ".\n\n");
    for (int m = 0; m < CS_M__COUNT; m++) {
        double only;
        if (s->metric_col[m] < 0 || cs__varies(s, s->metric_col[m], &only) || !isnan(only)) continue;
        fprintf(f, "%s%s", nundef++ ? ", " : "Undefined (NaN) in every run, not plotted: ", s->col[s->metric_col[m]].name);
    }
    if (nundef) fprintf(f, ".\n\n");
    cs__names_t mechs = {0};
    if (cs__distinct_str(s->col[s->c_mech].str, s->nrows, &mechs) != 0) return -1;
    fprintf(f, "Mean over seeds of each metric per design point, 6 significant digits, with its 95 %% interval "
               "in brackets (BCa bootstrap from %d runs per point, Student-t below, none for one run; `%s` = no "
               "finite value).\n\n",
            CS_STAT_BOOT_MIN_N, CS__NUM_NAN);
    double *cell = malloc((s->nrows ? s->nrows : 1) * sizeof *cell);
    if (!cell) {
        fprintf(stderr, "cowsim report: out of memory writing the sweep table\n");
        free(mechs.v);
        return -1;
    }
    int ci_oom = 0;
    for (size_t k = 0; k < mechs.n; k++) {
        fprintf(f, "### %s\n\n", mechs.v[k]);
        cs__md_sweep_head(f, s, "runs", "");
        /* Points in order of first appearance (the table is point-major). */
        for (size_t i = 0; i < s->nrows; i++) {
            if (strcmp(s->col[s->c_mech].str[i], mechs.v[k]) != 0) continue;
            double pt = s->c_point >= 0 && !s->col[s->c_point].is_str ? s->col[s->c_point].num[i] : (double)i;
            size_t a;
            for (a = 0; a < i; a++)
                if (strcmp(s->col[s->c_mech].str[a], mechs.v[k]) == 0 &&
                    (s->c_point >= 0 && !s->col[s->c_point].is_str ? s->col[s->c_point].num[a] : (double)a) == pt)
                    break;
            if (a < i) continue; /* point already listed */
            char num[64];
            fprintf(f, "| %.0f |", pt);
            for (size_t p = 0; p < s->np; p++) {
                const cs__scol_t *c = &s->col[s->p0 + p];
                if (c->is_str) {
                    fputc(' ', f);
                    cs__md_cell(f, c->str[i]);
                    fputs(" |", f);
                } else {
                    fprintf(f, " %s |", cs__fmt_num(num, sizeof num, c->num[i]));
                }
            }
            size_t rows = 0;
            for (size_t b = i; b < s->nrows; b++)
                if (strcmp(s->col[s->c_mech].str[b], mechs.v[k]) == 0 &&
                    (s->c_point >= 0 && !s->col[s->c_point].is_str ? s->col[s->c_point].num[b] : (double)b) == pt)
                    rows++;
            fprintf(f, " %zu |", rows);
            for (int m = 0; m < CS_M__COUNT; m++) {
                double only;
                if (s->metric_col[m] < 0 || !cs__varies(s, s->metric_col[m], &only)) continue;
                size_t nv = 0;
                for (size_t b = i; b < s->nrows; b++) {
                    if (strcmp(s->col[s->c_mech].str[b], mechs.v[k]) != 0 ||
                        (s->c_point >= 0 && !s->col[s->c_point].is_str ? s->col[s->c_point].num[b] : (double)b) != pt)
                        continue;
                    double v = s->col[s->metric_col[m]].num[b];
                    if (isfinite(v)) cell[nv++] = v;
                }
                double mean = CS__REP_NAN, lo = CS__REP_NAN, hi = CS__REP_NAN;
                if (nv && cs__mean_ci(cell, nv, &mean, &lo, &hi, NULL) != 0) {
                    lo = hi = CS__REP_NAN;
                    ci_oom = 1; /* not a cell without an interval: no report */
                }
                if (!nv) fprintf(f, " %s |", CS__NUM_NAN);
                else if (isfinite(lo)) fprintf(f, " %.6g [%.6g, %.6g] |", mean, lo, hi);
                else fprintf(f, " %.6g |", mean);
            }
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    free(cell);
    if (ci_oom) fprintf(stderr, "cowsim report: out of memory writing the sweep table\n");
    size_t ref = 0;
    if (refname) {
        for (ref = 0; ref < mechs.n && strcmp(mechs.v[ref], refname) != 0; ref++) {}
        if (ref == mechs.n) {
            fprintf(f, "No paired differences: the sweep has no mechanism %s (`--ref`).\n\n", refname);
            fprintf(stderr, "cowsim report: warning: %s has no mechanism %s (--ref): no paired differences\n",
                    s->path, refname);
        }
    }
    int oom = ref < mechs.n && cs__md_sweep_paired(f, s, &mechs, ref) != 0;
    if (oom) fprintf(stderr, "cowsim report: out of memory writing the paired differences\n");
    oom |= ci_oom;
    if (dfrom < to) {
        fprintf(f, "Plotted (d with its 95 %% Student-t interval against each swept parameter, one line per "
                   "mechanism and per value of the other swept parameters):");
        for (size_t i = dfrom; i < to; i++)
            fprintf(f, "%s Figure %zu (`%s`)", i > dfrom ? "," : "", *fig + (dfrom - from) + (i - dfrom) + 1,
                    pl->p[i].file);
        fprintf(f, ".\n\n");
    }
    free(mechs.v);
    cs__md_plots(f, pl, from, to, fig);
    return oom ? -1 : 0;
}

/* Title block of report.md from the runs (or the first sweep). */
int cs__md_title(FILE *f, const cs__rep_run_t *runs, size_t nr, const cs__sweep_t *sw, size_t ns,
                 const cs__seedrun_t *sr)
{
    int oom = 0;
    if (nr == 0 && ns == 0 && sr) {
        fprintf(f, "# cowsim report: %s\n\n- multi-seed run: %s, %zu seeds, mechanisms:", sr->set.scenario, sr->path,
                sr->set.ns);
        for (size_t j = 0; j < sr->set.nm; j++) fprintf(f, "%s %s", j ? "," : "", sr->set.mechs[j]);
        fputc('\n', f);
    } else if (nr > 0) {
        const cs__rep_run_t *r = &runs[0];
        int same_scn = 1, same_seed = 1, same_blocks = 1, same_ver = 1;
        for (size_t i = 1; i < nr; i++) {
            if (strcmp(runs[i].scenario_name, r->scenario_name) != 0) same_scn = 0;
            if (runs[i].seed != r->seed) same_seed = 0;
            if (runs[i].nblocks != r->nblocks) same_blocks = 0;
            if (strcmp(runs[i].cowsim_version, r->cowsim_version) != 0 || strcmp(runs[i].git_commit, r->git_commit) != 0)
                same_ver = 0;
        }
        fprintf(f, "# cowsim report: %s\n\n", same_scn ? (r->scenario_name[0] ? r->scenario_name : "(unnamed)")
                                                      : "several scenarios");
        fprintf(f, "- scenario: %s\n", same_scn ? r->scenario_name : "see the Runs table");
        if (same_seed) fprintf(f, "- seed: %llu\n", (unsigned long long)r->seed);
        else fprintf(f, "- seed: several (see the Runs table)\n");
        if (same_blocks) fprintf(f, "- blocks: %llu\n", (unsigned long long)r->nblocks);
        else fprintf(f, "- blocks: several (see the Runs table)\n");
        if (same_ver) fprintf(f, "- cowsim version: %s, commit %s\n", r->cowsim_version, r->git_commit);
        else fprintf(f, "- cowsim version: several (see the Runs table)\n");
        fprintf(f, "- mechanisms:");
        for (size_t i = 0; i < nr; i++) fprintf(f, "%s %s", i ? "," : "", runs[i].label);
        fputc('\n', f);
    } else {
        const cs__sweep_t *s = &sw[0];
        fprintf(f, "# cowsim report: sweep %s\n\n", s->name);
        fprintf(f, "- scenario: %s\n", s->base_name[0] ? s->base_name : "(see the sweep file)");
        if (s->c_seed >= 0 && !s->col[s->c_seed].is_str) {
            fprintf(f, "- seeds:");
            cs__dvec_t seeds = {0};
            for (size_t i = 0; i < s->nrows; i++) {
                size_t j = 0;
                while (j < seeds.n && seeds.v[j] != s->col[s->c_seed].num[i]) j++;
                if (j == seeds.n && cs__dvec_push(&seeds, s->col[s->c_seed].num[i]) != 0) {
                    fprintf(stderr, "cowsim report: out of memory\n");
                    oom = 1;
                    break;
                }
            }
            for (size_t j = 0; j < seeds.n; j++) fprintf(f, "%s %.0f", j ? "," : "", seeds.v[j]);
            free(seeds.v);
            fputc('\n', f);
        }
        if (s->blocks) fprintf(f, "- blocks: %llu\n", (unsigned long long)s->blocks);
        fprintf(f, "- cowsim version: %s, commit %s\n", s->version[0] ? s->version : "?", s->commit[0] ? s->commit : "?");
        (void)ns;
    }
    fprintf(f, "- report written by cowsim %s (commit %s)\n\n", CS_VERSION, CS_GIT_COMMIT);
    return oom ? -1 : 0;
}
