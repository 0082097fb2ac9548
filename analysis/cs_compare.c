/*
 * cs_compare.c -- `cowsim compare RUN.h5 ... [--csv|--json] [--greedy
 * GREEDY.h5]` (DESIGN §5): the metrics of analysis/README.md side by side,
 * one column per run and one row per metric.
 *
 * Greedy: --greedy applies to every run; without it, a file greedy.h5 in a
 * run's directory is used for that run.  Exit codes (DESIGN §2.9): 0 ok;
 * 2 usage or a file that is not a cowsim run file; 3 a file that cannot be
 * read.  An incomplete run (complete = 0) is shown, with a warning.
 */
#include "cs_compare.h"
#include "cs_exit.h"
#include "cs_error.h"
#include "cs_h5.h"
#include "cs_harm.h"
#include "cs_metrics.h"
#include "cs_optimum.h"
#include "cs_publish.h"
#include "cs_seeds.h"
#include "cs_stats.h"
#include "cs_steady.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exit status for a cs_metrics_compute error code. */
static int cs__exit_for(int rc)
{
    return cs_exit_of(rc);
}

/* Shortest "%.*g" text (15 to 17 digits) that reads back as exactly v:
 * cJSON's own printer accepts an approximate round trip, so baselines and
 * JSON output format their numbers here. */
static void cs__exact_num(double v, char *buf, size_t cap)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

/* Write s as one CSV field (quoted when it holds a comma, quote or newline). */
static void cs__csv_field(const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"') putchar('"');
        putchar(*s);
    }
    putchar('"');
}

/* The ordered union of metric names over the runs: run-level metrics,
 * then each kind metric of every kind present in at least one run.
 * Returns a malloc'd array of malloc'd names (count in *n), or NULL. */
static char **cs__union_names(const cs_metrics_t *ms, size_t nrun, size_t *n)
{
    cs_metrics_t all;
    memset(&all, 0, sizeof all);
    for (size_t r = 0; r < nrun; r++)
        for (int k = 0; k < CS_METRIC_KINDS; k++)
            if (ms[r].kind_present[k]) all.kind_present[k] = 1;
    size_t cnt = cs_metrics_n(&all);
    char **names = calloc(cnt, sizeof *names);
    if (!names) return NULL;
    for (size_t i = 0; i < cnt; i++) {
        char buf[96];
        names[i] = strdup(cs_metrics_name(&all, i, buf, sizeof buf));
        if (!names[i]) {
            for (size_t j = 0; j < i; j++) free(names[j]);
            free(names);
            return NULL;
        }
    }
    *n = cnt;
    return names;
}

/* Column labels: the mechanism, or mechanism#i when two runs share it. */
static void cs__labels(const cs_metrics_t *ms, size_t nrun, char (*lab)[48])
{
    for (size_t r = 0; r < nrun; r++) {
        int dup = 0;
        for (size_t q = 0; q < nrun; q++)
            if (q != r && strcmp(ms[q].mechanism, ms[r].mechanism) == 0) dup = 1;
        if (dup) snprintf(lab[r], 48, "%.24s#%u", ms[r].mechanism, (unsigned)((r + 1) % 100000u));
        else snprintf(lab[r], 48, "%.46s", ms[r].mechanism[0] ? ms[r].mechanism : "?");
    }
}

/* The convergence verdicts c of run lab (its root attribute convergence
 * parsed, N77; NULL: none), one line per strategic population. */
static void cs__conv_text(const cJSON *c, const char *lab)
{
    const cJSON *pops = cJSON_GetObjectItemCaseSensitive(c, "populations"), *p;
    const cJSON *win = cJSON_GetObjectItemCaseSensitive(c, "window"), *tol = cJSON_GetObjectItemCaseSensitive(c, "tolerance");
    cJSON_ArrayForEach(p, pops)
    {
        const cJSON *en = cJSON_GetObjectItemCaseSensitive(p, "entry"), *kd = cJSON_GetObjectItemCaseSensitive(p, "kind");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(p, "strategy"), *at = cJSON_GetObjectItemCaseSensitive(p, "at");
        const cJSON *fm = cJSON_GetObjectItemCaseSensitive(p, "final_mean");
        char mean[32], verdict[48];
        if (cJSON_IsNumber(fm)) snprintf(mean, sizeof mean, "%.4f", fm->valuedouble);
        else snprintf(mean, sizeof mean, "-");
        if (cJSON_IsNumber(at)) snprintf(verdict, sizeof verdict, "converged at block %.0f", at->valuedouble);
        else snprintf(verdict, sizeof verdict, "NOT converged");
        printf("  %-14s convergence of agents[%d] (%s, %s): %s (mean price over the last quarter %s; "
               "windows of %.0f blocks, tolerance %g or 3 standard errors)\n",
               lab, cJSON_IsNumber(en) ? en->valueint : -1, cJSON_IsString(kd) ? kd->valuestring : "?",
               cJSON_IsString(st) ? st->valuestring : "?", verdict, mean,
               cJSON_IsNumber(win) ? win->valuedouble : 0.0, cJSON_IsNumber(tol) ? tol->valuedouble : 0.0);
    }
}

/* Text table on stdout: a header line per run (path, scenario, seed,
 * greedy, INCOMPLETE), then one row per name in names, each value to 4
 * significant digits as report.md prints it (cs_metrics_fmt; --csv and
 * --json are exact), "-" for NaN. */
static void cs__print_text(const cs_metrics_t *ms, cJSON *const *conv, char **paths, const char **greedy_files,
                           size_t nrun, char **names, size_t nn, char (*lab)[48])
{
    printf("cowsim compare: %zu run%s\n", nrun, nrun == 1 ? "" : "s");
    for (size_t r = 0; r < nrun; r++) {
        char bench[400];
        cs_metrics_benchmark_text(&ms[r], bench, sizeof bench);
        /* Under a bias rule, the §9.3 lambda loop beside its
         * bias_slack_* rows (N70). */
        char loop[48] = "";
        if (strncmp(ms[r].mechanism, "bias-", 5) == 0 && ms[r].lambda_loop[0])
            snprintf(loop, sizeof loop, "; lambda loop %s", ms[r].lambda_loop);
        printf("  %-14s %s (scenario %s, seed %llu; efficiency vs %s%s%s%s%s)\n", lab[r], paths[r],
               ms[r].scenario[0] ? ms[r].scenario : "?", (unsigned long long)ms[r].seed, bench,
               ms[r].has_greedy ? "; efficiency_greedy vs " : "", ms[r].has_greedy ? greedy_files[r] : "", loop,
               ms[r].v[CS_M_complete] == 1.0 ? "" : ", INCOMPLETE");
    }
    for (size_t r = 0; r < nrun; r++) cs__conv_text(conv[r], lab[r]);
    int w = 13; /* each column is one space and w characters */
    for (size_t r = 0; r < nrun; r++)
        if ((int)strlen(lab[r]) > w) w = (int)strlen(lab[r]);
    printf("\n%-32s", "metric");
    for (size_t r = 0; r < nrun; r++) printf(" %*s", w, lab[r]);
    putchar('\n');
    for (size_t i = 0; i < nn; i++) {
        printf("%-32s", names[i]);
        for (size_t r = 0; r < nrun; r++) {
            double v;
            char buf[48];
            if (cs_metrics_get(&ms[r], names[i], &v) != 0) v = (double)NAN;
            cs_metrics_fmt(buf, sizeof buf, v); /* as report.md prints it */
            printf(" %*s", w, buf);
        }
        putchar('\n');
    }
}

/* CSV on stdout: "metric,<label>..." then one row per name; an empty field
 * for NaN; numbers exact (cs__exact_num). */
static void cs__print_csv(const cs_metrics_t *ms, size_t nrun, char **names, size_t nn, char (*lab)[48])
{
    fputs("metric", stdout);
    for (size_t r = 0; r < nrun; r++) {
        putchar(',');
        cs__csv_field(lab[r]);
    }
    putchar('\n');
    for (size_t i = 0; i < nn; i++) {
        cs__csv_field(names[i]);
        for (size_t r = 0; r < nrun; r++) {
            double v;
            putchar(',');
            char num[40];
            if (cs_metrics_get(&ms[r], names[i], &v) == 0 && !isnan(v)) {
                cs__exact_num(v, num, sizeof num);
                fputs(num, stdout);
            }
        }
        putchar('\n');
    }
}

/* A new object appended to the JSON array arr, or NULL (nothing appended)
 * when memory runs out. */
static cJSON *cs__json_row(cJSON *arr)
{
    cJSON *o = cJSON_CreateObject();
    if (o && !cJSON_AddItemToArray(arr, o)) {
        cJSON_Delete(o);
        o = NULL;
    }
    return o;
}

/* Add a metric value to object mm: an exact number (cs__exact_num), or
 * null for NaN and infinities.  Returns 0, or -1 when out of memory. */
static int cs__json_num(cJSON *mm, const char *name, double v)
{
    char num[40];
    if (isnan(v) || isinf(v)) return cJSON_AddNullToObject(mm, name) ? 0 : -1;
    cs__exact_num(v, num, sizeof num);
    return cJSON_AddRawToObject(mm, name, num) ? 0 : -1;
}

/* The bound's gap of run m as JSON member "bound_gap" of o (README "Bound
 * gap"): {windows, solved, width, gap, gap_max} when welfare_opt is an
 * upper bound, null otherwise.  0, or -1 when out of memory. */
static int cs__gap_json(cJSON *o, const cs_metrics_t *m)
{
    if (m->opt_method < 0 || cs_opt_exact(m->opt_method))
        return cJSON_AddNullToObject(o, "bound_gap") != NULL ? 0 : -1;
    cJSON *g = cJSON_AddObjectToObject(o, "bound_gap");
    if (g == NULL || !cJSON_AddNumberToObject(g, "windows", (double)m->gap_windows) ||
        !cJSON_AddNumberToObject(g, "solved", (double)m->gap_solved) ||
        !cJSON_AddNumberToObject(g, "width", (double)m->gap_width))
        return -1;
    return cs__json_num(g, "gap", m->v[CS_M_bound_gap]) == 0 && cs__json_num(g, "gap_max", m->gap_max) == 0 ? 0
                                                                                                                : -1;
}

/* Print document root on stdout when ok, then free it.  Returns 0, or -1
 * when not ok or out of memory (nothing printed). */
static int cs__json_emit(cJSON *root, int ok)
{
    char *txt = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!txt) return -1;
    puts(txt);
    free(txt);
    return 0;
}

static int cs__ss_json(cJSON *o, const cs_steady_t *ss);
static int cs__json_ci(cJSON *o, const cs_stat_ci_t *ci);

/* The "harm" member of root: {"level", "bootstrap_resamples", "rows":
 * [{mechanism, seed, the /harm columns}], "summary": [{mechanism, seeds,
 * metric, form, n, mean, t_lo, t_hi, bca_lo, bca_hi}]} (cs_harm.h; the
 * names of harm.h5).  Returns 0, or -1 when out of memory. */
static int cs__harm_json(cJSON *root, const cs_harm_t *h, size_t nh, const cs_harm_sum_t *sum, size_t nsum)
{
    cJSON *o = cJSON_AddObjectToObject(root, "harm");
    int ok = o && cJSON_AddRawToObject(o, "level", "0.95") &&
             cJSON_AddNumberToObject(o, "bootstrap_resamples", CS_STAT_BOOT_B);
    cJSON *rows = ok ? cJSON_AddArrayToObject(o, "rows") : NULL;
    ok = rows != NULL;
    for (size_t i = 0; ok && i < nh; i++) {
        cJSON *r = cs__json_row(rows);
        if (!r) return -1;
        char sb[24];
        snprintf(sb, sizeof sb, "%llu", (unsigned long long)h[i].seed);
        ok = cJSON_AddStringToObject(r, "mechanism", h[i].mechanism) && cJSON_AddRawToObject(r, "seed", sb);
        const char *names[CS_HARM_NFIELD];
        double v[CS_HARM_NFIELD];
        size_t nf = cs_harm_fields(&h[i], names, v);
        for (size_t k = 0; ok && k < nf; k++) ok = cs__json_num(r, names[k], v[k]) == 0;
    }
    cJSON *sa = ok ? cJSON_AddArrayToObject(o, "summary") : NULL;
    ok = sa != NULL;
    for (size_t g = 0; ok && g < nsum; g++)
        for (int met = 0; ok && met < CS_HARM_NMET; met++)
            for (int form = 0; ok && form < CS_HARM_NFORM; form++) {
                cJSON *r = cs__json_row(sa);
                if (!r) return -1;
                char nb[24];
                snprintf(nb, sizeof nb, "%zu", sum[g].seeds);
                ok = cJSON_AddStringToObject(r, "mechanism", sum[g].mechanism) && cJSON_AddRawToObject(r, "seeds", nb) &&
                     cJSON_AddStringToObject(r, "metric", cs_harm_metric_name[met]) &&
                     cJSON_AddStringToObject(r, "form", cs_harm_form_name[form]) &&
                     cs__json_ci(r, &sum[g].ci[met][form]) == 0;
            }
    return ok ? 0 : -1;
}

/* JSON: {"runs": [{path, mechanism, scenario, seed, complete, greedy,
 * fires_mode, note, metrics: {name: value|null}}]}, and "harm" (above)
 * when h is not NULL (its nrun rows, nsum summaries).  Every add is
 * checked, so the document is printed whole or not at all.  Returns 0, or
 * -1 when out of memory (nothing printed). */
static int cs__print_json(const cs_metrics_t *ms, cJSON **conv, const cs_steady_t *ss, char **paths,
                          const char **greedy_files, size_t nrun, const cs_harm_t *h, const cs_harm_sum_t *sum,
                          size_t nsum)
{
    static const char *const modes[] = {"all", "sample", "off"};
    cJSON *root = cJSON_CreateObject();
    cJSON *runs = root ? cJSON_AddArrayToObject(root, "runs") : NULL;
    int ok = runs != NULL;
    for (size_t r = 0; ok && r < nrun; r++) {
        cJSON *o = cs__json_row(runs);
        if (!o) {
            ok = 0;
            break;
        }
        char sb[24];
        snprintf(sb, sizeof sb, "%llu", (unsigned long long)ms[r].seed);
        int fm = ms[r].fires_mode >= 0 && ms[r].fires_mode <= 2 ? ms[r].fires_mode : 0;
        int bb = 0, bc = 0, bq = 0; /* the benchmark's constraints (N57) */
        if (cs_opt_rules(ms[r].mechanism, &bb, &bc, &bq) != 0) bb = bc = bq = 0;
        char cons[64];
        snprintf(cons, sizeof cons, "%s", bb && bc && bq ? "lane budget, per-fire cap, quotas" : "none");
        ok = cJSON_AddStringToObject(o, "path", paths[r]) && cJSON_AddStringToObject(o, "mechanism", ms[r].mechanism) &&
             cJSON_AddStringToObject(o, "scenario", ms[r].scenario) && cJSON_AddRawToObject(o, "seed", sb) &&
             cJSON_AddBoolToObject(o, "complete", ms[r].v[CS_M_complete] == 1.0) &&
             (ms[r].has_greedy ? cJSON_AddStringToObject(o, "greedy", greedy_files[r]) != NULL
                               : cJSON_AddNullToObject(o, "greedy") != NULL) &&
             (ms[r].opt_method >= 0
                  ? cJSON_AddStringToObject(o, "benchmark", cs_opt_method_name(ms[r].opt_method)) != NULL
                  : cJSON_AddNullToObject(o, "benchmark") != NULL) &&
             cJSON_AddStringToObject(o, "benchmark_constraints", cons) &&
             (cs_metrics_efficiency_vs(&ms[r]) != NULL
                  ? cJSON_AddStringToObject(o, "efficiency_vs", cs_metrics_efficiency_vs(&ms[r])) != NULL
                  : cJSON_AddNullToObject(o, "efficiency_vs") != NULL) &&
             cs__gap_json(o, &ms[r]) == 0 &&
             cJSON_AddStringToObject(o, "fires_mode", modes[fm]) && cJSON_AddStringToObject(o, "note", ms[r].note) &&
             (ms[r].lambda_loop[0] ? cJSON_AddStringToObject(o, "lambda_loop", ms[r].lambda_loop) != NULL
                                   : cJSON_AddNullToObject(o, "lambda_loop") != NULL);
        cJSON *mm = ok ? cJSON_AddObjectToObject(o, "metrics") : NULL;
        ok = mm != NULL;
        size_t n = cs_metrics_n(&ms[r]);
        for (size_t i = 0; ok && i < n; i++) {
            char buf[96];
            cs_metrics_name(&ms[r], i, buf, sizeof buf);
            ok = cs__json_num(mm, buf, cs_metrics_value(&ms[r], i)) == 0;
        }
        if (ok && ss) ok = cs__ss_json(o, &ss[r]) == 0;
        if (ok) { /* the strategic populations' convergence (N77), or null; moved into the tree */
            ok = conv[r] ? cJSON_AddItemToObject(o, "convergence", conv[r]) != 0
                         : cJSON_AddNullToObject(o, "convergence") != NULL;
            if (ok) conv[r] = NULL;
        }
    }
    if (ok && h) ok = cs__harm_json(root, h, nrun, sum, nsum) == 0;
    return cs__json_emit(root, ok);
}

/* ---- multi-seed run directories ------------------------------------------- */

#define CS__LEVEL 0.95 /* interval level of the multi-seed comparison */

/* One (metric, mechanism) cell of a multi-seed comparison: the mean over
 * seeds and, except for the reference, the paired difference to it. */
typedef struct cs__scell {
    cs_stat_ci_t mean; /* x(m, s) over the seeds s */
    cs_stat_ci_t diff; /* x(m, s) - x(ref, s) over the seeds (unused for the reference) */
} cs__scell_t;

/* v as every text table of compare prints it: 4 significant digits, as
 * report.md does (cs_metrics_fmt), "-" for NaN. */
static void cs__g4(double v, char *buf, size_t cap)
{
    cs_metrics_fmt(buf, cap, v);
}

/* "[lo, hi]" to 6 digits, or "-" when undefined. */
static void cs__ival(double lo, double hi, char *buf, size_t cap)
{
    char a[32], b[32];
    if (isnan(lo) || isnan(hi)) {
        snprintf(buf, cap, "-");
        return;
    }
    cs__g4(lo, a, sizeof a);
    cs__g4(hi, b, sizeof b);
    snprintf(buf, cap, "[%s, %s]", a, b);
}

/* Write v as an exact CSV number, nothing for NaN, after a comma. */
static void cs__csv_num(double v)
{
    char num[40];
    putchar(',');
    if (isnan(v) || isinf(v)) return;
    cs__exact_num(v, num, sizeof num);
    fputs(num, stdout);
}

/* ",n,mean,t_lo,t_hi,bca_lo,bca_hi" of ci (exact numbers, empty for NaN). */
static void cs__csv_ci(const cs_stat_ci_t *ci)
{
    printf(",%zu", ci->n);
    cs__csv_num(ci->mean);
    cs__csv_num(ci->t_lo);
    cs__csv_num(ci->t_hi);
    cs__csv_num(ci->b_lo);
    cs__csv_num(ci->b_hi);
}

/* The mean, t and BCa fields of ci into object o ("n", "mean", "t_lo",
 * "t_hi", "bca_lo", "bca_hi"; null for NaN).  Returns 0 or -1. */
static int cs__json_ci(cJSON *o, const cs_stat_ci_t *ci)
{
    char nb[24];
    snprintf(nb, sizeof nb, "%zu", ci->n);
    return cJSON_AddRawToObject(o, "n", nb) && cs__json_num(o, "mean", ci->mean) == 0 &&
                   cs__json_num(o, "t_lo", ci->t_lo) == 0 && cs__json_num(o, "t_hi", ci->t_hi) == 0 &&
                   cs__json_num(o, "bca_lo", ci->b_lo) == 0 && cs__json_num(o, "bca_hi", ci->b_hi) == 0
               ? 0
               : -1;
}

/* Text: one line per metric and mechanism. */
static void cs__seeds_text(const char *dir, const cs_seeds_set_t *s, size_t ref, char **names, size_t nn,
                           const cs__scell_t *cell)
{
    printf("cowsim compare: %s -- scenario %s, %zu seed%s (", dir, s->scenario[0] ? s->scenario : "?", s->ns,
           s->ns == 1 ? "" : "s");
    for (size_t i = 0; i < s->ns; i++) {
        if (i == 3 && s->ns > 4) {
            printf(", ..., %llu", (unsigned long long)s->seeds[s->ns - 1]);
            break;
        }
        printf("%s%llu", i ? ", " : "", (unsigned long long)s->seeds[i]);
    }
    printf("), %zu mechanism%s\n", s->nm, s->nm == 1 ? "" : "s");
    printf("mean over seeds with its 95 %% Student-t interval; diff = mechanism - %s on the same seed\n"
           "(common random numbers) with its 95 %% t and BCa bootstrap (B = %u) intervals\n\n",
           s->mechs[ref], CS_STAT_BOOT_B);
    printf("%-30s %-12s %12s %27s %12s %27s %27s\n", "metric", "mechanism", "mean", "t interval", "diff",
           "t interval", "BCa interval");
    for (size_t k = 0; k < nn; k++)
        for (size_t m = 0; m < s->nm; m++) {
            const cs__scell_t *c = &cell[k * s->nm + m];
            char a[32], b[80], d[32], e[80], f[80];
            cs__g4(c->mean.mean, a, sizeof a);
            cs__ival(c->mean.t_lo, c->mean.t_hi, b, sizeof b);
            if (m == ref) {
                snprintf(d, sizeof d, "(reference)");
            } else {
                cs__g4(c->diff.mean, d, sizeof d);
                cs__ival(c->diff.t_lo, c->diff.t_hi, e, sizeof e);
                cs__ival(c->diff.b_lo, c->diff.b_hi, f, sizeof f);
            }
            printf("%-30s %-12s %12s %27s %12s", m == 0 ? names[k] : "", s->mechs[m], a, b, d);
            if (m != ref) printf(" %27s %27s", e, f);
            putchar('\n');
        }
}

/* CSV: metric,mechanism, the mean's n, mean, t and BCa bounds, then the
 * same of the difference (empty for the reference and for NaN). */
static void cs__seeds_csv(const cs_seeds_set_t *s, size_t ref, char **names, size_t nn, const cs__scell_t *cell)
{
    fputs("metric,mechanism,n,mean,t_lo,t_hi,bca_lo,bca_hi,"
          "diff_n,diff_mean,diff_t_lo,diff_t_hi,diff_bca_lo,diff_bca_hi\n",
          stdout);
    for (size_t k = 0; k < nn; k++)
        for (size_t m = 0; m < s->nm; m++) {
            const cs__scell_t *c = &cell[k * s->nm + m];
            cs__csv_field(names[k]);
            putchar(',');
            cs__csv_field(s->mechs[m]);
            cs__csv_ci(&c->mean);
            if (m == ref) fputs(",,,,,,", stdout);
            else cs__csv_ci(&c->diff);
            putchar('\n');
        }
}

/* JSON: {"dir", "scenario", "seeds", "mechanisms", "reference", "level",
 * "bootstrap_resamples", "rows": [{"metric", "mechanism", n, mean, t_lo,
 * t_hi, bca_lo, bca_hi, "diff": {the same} | null}]}.  Returns 0 or -1. */
static int cs__seeds_json(const char *dir, const cs_seeds_set_t *s, size_t ref, char **names, size_t nn,
                          const cs__scell_t *cell)
{
    cJSON *root = cJSON_CreateObject();
    int ok = root && cJSON_AddStringToObject(root, "dir", dir) &&
             cJSON_AddStringToObject(root, "scenario", s->scenario);
    cJSON *sa = ok ? cJSON_AddArrayToObject(root, "seeds") : NULL;
    ok = sa != NULL;
    for (size_t i = 0; ok && i < s->ns; i++) {
        char sb[24];
        snprintf(sb, sizeof sb, "%llu", (unsigned long long)s->seeds[i]);
        cJSON *v = cJSON_CreateRaw(sb);
        ok = v && cJSON_AddItemToArray(sa, v);
        if (!ok) cJSON_Delete(v);
    }
    cJSON *ma = ok ? cJSON_AddArrayToObject(root, "mechanisms") : NULL;
    ok = ma != NULL;
    for (size_t m = 0; ok && m < s->nm; m++) {
        cJSON *v = cJSON_CreateString(s->mechs[m]);
        ok = v && cJSON_AddItemToArray(ma, v);
        if (!ok) cJSON_Delete(v);
    }
    ok = ok && cJSON_AddStringToObject(root, "reference", s->mechs[ref]) &&
         cJSON_AddRawToObject(root, "level", "0.95") &&
         cJSON_AddNumberToObject(root, "bootstrap_resamples", CS_STAT_BOOT_B);
    cJSON *rows = ok ? cJSON_AddArrayToObject(root, "rows") : NULL;
    ok = rows != NULL;
    for (size_t k = 0; ok && k < nn; k++)
        for (size_t m = 0; ok && m < s->nm; m++) {
            const cs__scell_t *c = &cell[k * s->nm + m];
            cJSON *o = cs__json_row(rows);
            if (!o) {
                ok = 0;
                break;
            }
            ok = cJSON_AddStringToObject(o, "metric", names[k]) && cJSON_AddStringToObject(o, "mechanism", s->mechs[m]) &&
                 cs__json_ci(o, &c->mean) == 0;
            if (ok && m == ref) ok = cJSON_AddNullToObject(o, "diff") != NULL;
            else if (ok) {
                cJSON *d = cJSON_AddObjectToObject(o, "diff");
                ok = d && cs__json_ci(d, &c->diff) == 0;
            }
        }
    return cs__json_emit(root, ok);
}

/* `cowsim compare RUNDIR`: the multi-seed comparison (analysis/README.md
 * "compare across seeds").  Returns the exit status. */
static int cs__compare_seeds(const char *dir, const char *refname, int fmt)
{
    cs_seeds_set_t s;
    char err[4700];
    int rc = cs_seeds_load(dir, &s, err, sizeof err);
    if (rc != CS_OK) {
        fprintf(stderr, "cowsim compare: %s\n", err);
        return cs__exit_for(rc);
    }
    size_t ref = 0;
    if (refname) {
        for (ref = 0; ref < s.nm && strcmp(s.mechs[ref], refname) != 0; ref++) {}
        if (ref == s.nm) {
            fprintf(stderr, "cowsim compare: --ref %s: no such mechanism in %s (it has:", refname, dir);
            for (size_t m = 0; m < s.nm; m++) fprintf(stderr, " %s", s.mechs[m]);
            fprintf(stderr, ")\n");
            cs_seeds_free(&s);
            return CS_EXIT_USAGE;
        }
    }
    for (size_t j = 0; j < s.nm * s.ns; j++) {
        if (s.mt[j].v[CS_M_complete] != 1.0)
            fprintf(stderr, "cowsim compare: warning: %s seed %llu is an incomplete run (complete = 0)\n",
                    s.mechs[j / s.ns], (unsigned long long)s.seeds[j % s.ns]);
    }
    if (s.ns < CS_STAT_BOOT_MIN_N)
        fprintf(stderr,
                "cowsim compare: warning: %zu seeds (fewer than %d): no bootstrap intervals, Student-t only\n",
                s.ns, CS_STAT_BOOT_MIN_N);
    size_t nn = 0;
    char **names = cs__union_names(s.mt, s.nm * s.ns, &nn);
    cs__scell_t *cell = names ? calloc(nn * s.nm > 0 ? nn * s.nm : 1, sizeof *cell) : NULL;
    double *x = malloc(s.nm * s.ns * sizeof *x);
    int status = names && cell && x ? CS_EXIT_OK : CS_EXIT_IO;
    for (size_t k = 0; status == CS_EXIT_OK && k < nn; k++) {
        for (size_t j = 0; j < s.nm * s.ns; j++)
            if (cs_metrics_get(&s.mt[j], names[k], &x[j]) != 0) x[j] = (double)NAN;
        for (size_t m = 0; status == CS_EXIT_OK && m < s.nm; m++) {
            cs__scell_t *c = &cell[k * s.nm + m];
            if (cs_stat_ci(&x[m * s.ns], s.ns, CS__LEVEL, 0, &c->mean) != CS_OK ||
                (m != ref && cs_stat_paired(&x[m * s.ns], &x[ref * s.ns], s.ns, CS__LEVEL, 0, &c->diff) != CS_OK))
                status = CS_EXIT_IO;
        }
    }
    if (status == CS_EXIT_OK) {
        if (fmt == CS_COMPARE_TEXT) cs__seeds_text(dir, &s, ref, names, nn, cell);
        else if (fmt == CS_COMPARE_CSV) cs__seeds_csv(&s, ref, names, nn, cell);
        else if (cs__seeds_json(dir, &s, ref, names, nn, cell) != 0) status = CS_EXIT_IO;
    }
    if (status != CS_EXIT_OK) fprintf(stderr, "cowsim compare: out of memory\n");
    if (names)
        for (size_t k = 0; k < nn; k++) free(names[k]);
    free(names);
    free(cell);
    free(x);
    cs_seeds_free(&s);
    return status;
}

/* ---- steady state of single long runs (cs_steady.h) ------------------------ */

/* How the warm-up was removed, in words. */
static const char *cs__ss_method(int mode)
{
    return mode == CS_STEADY_MSER5 ? "MSER-5" : mode == CS_STEADY_BURNIN ? "a stated burn-in" : "nothing (--no-warmup)";
}

/* Text: the cut of every run, then one row per series, "mean [lo, hi]". */
static void cs__ss_text(const cs_steady_t *ss, size_t nrun, char (*lab)[48])
{
    printf("\nsteady state: warm-up removed by %s%s; per-block means with 95 %% batch-means intervals (%d batches)\n",
           cs__ss_method(ss[0].mode), ss[0].mode == CS_STEADY_MSER5 ? " on every series, the largest cut" : "",
           CS_STEADY_BATCHES);
    for (size_t r = 0; r < nrun; r++) {
        printf("  %-14s cut %llu of %llu blocks", lab[r], (unsigned long long)ss[r].cut,
               (unsigned long long)ss[r].blocks);
        if (ss[r].cut_by >= 0) printf(" (set by %s)", cs_steady_name(ss[r].cut_by));
        printf(", means over the last %llu%s\n", (unsigned long long)ss[r].used,
               ss[r].at_limit ? "; WARNING: MSER-5 cut half the run, its limit: too short for a steady state?" : "");
    }
    printf("\n%-32s", "series");
    for (size_t r = 0; r < nrun; r++) printf(" %30s", lab[r]);
    putchar('\n');
    for (int s = 0; s < CS_SS__COUNT; s++) {
        char name[48];
        snprintf(name, sizeof name, "steady.%s", cs_steady_name(s));
        printf("%-32s", name);
        for (size_t r = 0; r < nrun; r++) {
            char a[32], b[80], cell[120];
            cs__g4(ss[r].mean[s], a, sizeof a);
            cs__ival(ss[r].lo[s], ss[r].hi[s], b, sizeof b);
            if (!ss[r].present[s] || isnan(ss[r].mean[s])) snprintf(cell, sizeof cell, "-");
            else if (isnan(ss[r].lo[s])) snprintf(cell, sizeof cell, "%s", a);
            else snprintf(cell, sizeof cell, "%s %s", a, b);
            printf(" %30s", cell);
        }
        putchar('\n');
    }
}

/* CSV rows steady.cut, steady.used, then steady.<series>, .lo, .hi. */
static void cs__ss_csv(const cs_steady_t *ss, size_t nrun)
{
    fputs("steady.cut", stdout);
    for (size_t r = 0; r < nrun; r++) cs__csv_num((double)ss[r].cut);
    fputs("\nsteady.used", stdout);
    for (size_t r = 0; r < nrun; r++) cs__csv_num((double)ss[r].used);
    putchar('\n');
    for (int s = 0; s < CS_SS__COUNT; s++)
        for (int part = 0; part < 3; part++) {
            printf("steady.%s%s", cs_steady_name(s), part == 1 ? ".lo" : part == 2 ? ".hi" : "");
            for (size_t r = 0; r < nrun; r++)
                cs__csv_num(part == 0 ? ss[r].mean[s] : part == 1 ? ss[r].lo[s] : ss[r].hi[s]);
            putchar('\n');
        }
}

/* JSON object "steady_state" of one run into o.  Returns 0 or -1. */
static int cs__ss_json(cJSON *o, const cs_steady_t *ss)
{
    static const char *const meth[] = {"mser5", "burn-in", "none"};
    cJSON *st = cJSON_AddObjectToObject(o, "steady_state");
    char b1[24], b2[24], b3[24];
    snprintf(b1, sizeof b1, "%llu", (unsigned long long)ss->blocks);
    snprintf(b2, sizeof b2, "%llu", (unsigned long long)ss->cut);
    snprintf(b3, sizeof b3, "%llu", (unsigned long long)ss->used);
    int ok = st && cJSON_AddStringToObject(st, "method", meth[ss->mode]) && cJSON_AddRawToObject(st, "blocks", b1) &&
             cJSON_AddRawToObject(st, "cut", b2) &&
             (ss->cut_by >= 0 ? cJSON_AddStringToObject(st, "cut_by", cs_steady_name(ss->cut_by)) != NULL
                              : cJSON_AddNullToObject(st, "cut_by") != NULL) &&
             cJSON_AddRawToObject(st, "used", b3) && cJSON_AddNumberToObject(st, "batches", CS_STEADY_BATCHES) &&
             cJSON_AddBoolToObject(st, "at_limit", ss->at_limit);
    cJSON *se = ok ? cJSON_AddObjectToObject(st, "series") : NULL;
    ok = se != NULL;
    for (int s = 0; ok && s < CS_SS__COUNT; s++) {
        cJSON *v = cJSON_AddObjectToObject(se, cs_steady_name(s));
        char mc[24];
        snprintf(mc, sizeof mc, "%llu", (unsigned long long)ss->mser_cut[s]);
        ok = v && cs__json_num(v, "mean", ss->present[s] ? ss->mean[s] : (double)NAN) == 0 &&
             cs__json_num(v, "lo", ss->lo[s]) == 0 && cs__json_num(v, "hi", ss->hi[s]) == 0 &&
             (ss->mode == CS_STEADY_MSER5 && ss->present[s] ? cJSON_AddRawToObject(v, "mser5_cut", mc) != NULL
                                                             : cJSON_AddNullToObject(v, "mser5_cut") != NULL);
    }
    return ok ? 0 : -1;
}

/* `cowsim compare`: parse arguments, compute every run's metrics (all
 * errors reported before any table), print the table.  Returns the exit
 * status (cs_cli.h). */
int cs_compare_runs(const cs_compare_opts_t *o)
{
    int fmt = o->fmt;
    const char *greedy = o->greedy, *ref = o->ref;
    int harm = o->harm;
    int ss_mode = o->ss_mode;
    uint64_t burn_in = o->burn_in;
    char **paths = o->paths;
    size_t np = o->n_paths;
    /* A work file beside the inputs means a run there was interrupted (N48). */
    cs_publish_scan("compare", (const char *const *)paths, np);
    int seeds_dir = np == 1 && !greedy && cs_seeds_is_dir(paths[0]);
    if (seeds_dir || ref) {
        int st = CS_EXIT_USAGE;
        if (seeds_dir && ss_mode != CS_STEADY_MSER5)
            fprintf(stderr, "cowsim compare: --burn-in and --no-warmup apply to run files, not to a run directory\n");
        else if (seeds_dir) st = cs__compare_seeds(paths[0], ref, fmt);
        else {
            fprintf(stderr, "cowsim compare: --ref needs one multi-seed run directory (RUNDIR/seed-<s>/)%s\n",
                    greedy ? ", without --greedy" : "");
            st = CS_COMPARE_USAGE;
        }
        return st;
    }
    cs_metrics_t *ms = calloc(np, sizeof *ms);
    cs_steady_t *ss = calloc(np, sizeof *ss);
    char (*obuf)[4096] = calloc(np, sizeof *obuf);
    const char **greedy_files = calloc(np, sizeof *greedy_files);
    char **convtxt = calloc(np, sizeof *convtxt); /* each run's root attribute convergence (N77) */
    if (!ms || !ss || !obuf || !greedy_files || !convtxt) {
        fprintf(stderr, "cowsim compare: out of memory for %zu runs\n", np);
        free(ms);
        free(ss);
        free(obuf);
        free(greedy_files);
        free(convtxt);
        return CS_EXIT_IO;
    }
    int status = CS_EXIT_OK;
    for (size_t r = 0; r < np; r++) {
        greedy_files[r] = greedy ? greedy : cs_metrics_find_greedy(paths[r], obuf[r], sizeof obuf[r]);
        char err[1024];
        int rc = cs_metrics_compute_conv(paths[r], greedy_files[r], &ms[r], &convtxt[r], err, sizeof err);
        if (rc != CS_OK && rc != CS_ENOMEM && !greedy && greedy_files[r]) {
            /* A greedy.h5 found beside the run but unusable: say so and go
             * on without it -- if the run alone computes.  Out of memory is
             * never "unusable": it would silently drop efficiency and poa. */
            char err2[1024];
            int rc2 = cs_metrics_compute_conv(paths[r], NULL, &ms[r], &convtxt[r], err2, sizeof err2);
            if (rc2 == CS_OK) {
                fprintf(stderr, "cowsim compare: warning: ignoring %s: %s\n", greedy_files[r], err);
            } else {
                memcpy(err, err2, sizeof err);
            }
            rc = rc2;
        }
        if (rc != CS_OK) {
            fprintf(stderr, "cowsim compare: %s\n", err);
            int ex = cs__exit_for(rc);
            if (ex == CS_EXIT_IO || status == CS_EXIT_OK) status = ex;
            continue;
        }
        rc = cs_steady_compute(paths[r], cs_steady_flags(&ms[r]), ss_mode, burn_in, &ss[r], err, sizeof err);
        if (rc != CS_OK) {
            fprintf(stderr, "cowsim compare: %s\n", err);
            int ex = rc == CS_EINVAL ? CS_EXIT_USAGE : cs__exit_for(rc);
            if (ex == CS_EXIT_IO || status == CS_EXIT_OK) status = ex;
            continue;
        }
        if (ms[r].v[CS_M_complete] != 1.0)
            fprintf(stderr, "cowsim compare: warning: %s is an incomplete run (complete = 0)\n", paths[r]);
        if (ms[r].note[0]) fprintf(stderr, "cowsim compare: note: %s: %s\n", paths[r], ms[r].note);
    }
    /* --harm: every run's harm and the summary across seeds, before any
     * table is printed (an error prints none). */
    cs_harm_t *hm = NULL;
    cs_harm_sum_t *hsum = NULL;
    size_t nhsum = 0;
    if (status == CS_EXIT_OK && harm) {
        char herr[4600];
        int hrc = cs_harm_load(paths, np, &hm, herr, sizeof herr);
        if (hrc == CS_OK) hrc = cs_harm_summarize(hm, np, &hsum, &nhsum, herr, sizeof herr);
        if (hrc != CS_OK) {
            fprintf(stderr, "cowsim compare: harm: %s\n", herr);
            status = cs_exit_of(hrc);
        }
    }
    if (status == CS_EXIT_OK) {
        size_t nn = 0;
        char **names = cs__union_names(ms, np, &nn);
        char(*lab)[48] = calloc(np, sizeof *lab);
        cJSON **conv = calloc(np ? np : 1, sizeof *conv); /* each run's convergence, parsed once */
        for (size_t r = 0; conv && r < np; r++)
            if (convtxt[r] && (conv[r] = cJSON_Parse(convtxt[r])) == NULL) status = CS_EXIT_IO;
        if (!names || !lab || !conv || status != CS_EXIT_OK) {
            status = CS_EXIT_IO;
        } else {
            cs__labels(ms, np, lab);
            if (fmt == CS_COMPARE_TEXT) {
                cs__print_text(ms, conv, paths, greedy_files, np, names, nn, lab);
                cs__ss_text(ss, np, lab);
                if (hm) {
                    cs_harm_print(stdout, hm, np);
                    cs_harm_print_summary(stdout, hsum, nhsum);
                }
            } else if (fmt == CS_COMPARE_CSV) {
                cs__print_csv(ms, np, names, nn, lab);
                cs__ss_csv(ss, np);
            } else if (cs__print_json(ms, conv, ss, paths, greedy_files, np, hm, hsum, nhsum) != 0) status = CS_EXIT_IO;
        }
        if (status == CS_EXIT_IO) fprintf(stderr, "cowsim compare: out of memory printing the table\n");
        if (names)
            for (size_t i = 0; i < nn; i++) free(names[i]);
        free(names);
        free(lab);
        for (size_t r = 0; conv && r < np; r++) cJSON_Delete(conv[r]);
        free(conv);
    }
    for (size_t r = 0; r < np; r++) free(convtxt[r]);
    free(convtxt);
    free(hm);
    free(hsum);
    free(ms);
    free(ss);
    free(obuf);
    free(greedy_files);
    return status;
}
