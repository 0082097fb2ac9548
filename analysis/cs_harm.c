/*
 * cs_harm.c -- harm to honest actors: the honest actors' delay, payment and
 * welfare with the attackers against the same demand without them
 * (analysis/README.md "Harm to honest actors", DESIGN-NOTES N44).
 */
#include "cs_harm.h"

#include "cs_agent.h"
#include "cs_error.h"
#include "cs_h5.h"
#include "cs_h5_table.h"
#include "cs_publish.h"
#include "cs_scenario.h"
#include "cs_stats.h"

#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void cs__herr(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cs__herr(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || cap == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

/* Per honest actor sums of one run. */
typedef struct cs__hact {
    uint64_t n;    /* fires */
    double delay;  /* sum of delays */
    double paid;   /* sum paid */
} cs__hact_t;

/* The honest-actor mask of a scenario text: honest[a] = 1 for every actor
 * of an agent entry whose role is honest, in the engine's actor order
 * (entries in order, count instances each, n_actors actors per instance).
 * *honest is malloc'd with *nact entries.  CS_OK, CS_EPARSE or CS_ENOMEM. */
static int cs__honest_mask(const char *json, uint8_t **honest, size_t *nact, char *err, size_t cap)
{
    cs_scenario_t *scn = NULL;
    cs_errlist_t el = {0};
    int rc = cs_scenario_load(json, strlen(json), NULL, 0, &scn, &el);
    if (rc != CS_OK) {
        cs__herr(err, cap, "the stored scenario does not load: %s", el.n ? el.msg[0] : cs_strerror(rc));
        cs_errlist_free(&el);
        return rc == CS_ENOMEM ? CS_ENOMEM : CS_EPARSE;
    }
    cs_errlist_free(&el);
    size_t n = 0;
    for (size_t i = 0; i < scn->n_agents; i++) {
        const cs_scn_agent_t *sa = &scn->agents[i];
        uint32_t per = sa->ops->n_actors ? sa->ops->n_actors(sa->params) : 1;
        n += (size_t)sa->count * (per ? per : 1);
    }
    uint8_t *h = malloc(n ? n : 1);
    if (!h) {
        cs_scenario_free(scn);
        return CS_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < scn->n_agents; i++) {
        const cs_scn_agent_t *sa = &scn->agents[i];
        uint32_t per = sa->ops->n_actors ? sa->ops->n_actors(sa->params) : 1;
        size_t m = (size_t)sa->count * (per ? per : 1);
        memset(h + k, sa->attacker ? 0 : 1, m);
        k += m;
    }
    cs_scenario_free(scn);
    *honest = h;
    *nact = n;
    return CS_OK;
}

/* Read one run's honest fires into out[side] and acts (nact entries).
 * CS_OK, CS_EIO, CS_EPARSE or CS_ENOMEM. */
static int cs__side(cs_h5_reader_t *r, const char *path, const uint8_t *honest, size_t nact, cs__hact_t *acts,
                    cs_harm_t *out, int side, char *err, size_t cap)
{
    char *mode = NULL;
    int rc = cs_h5_read_attr_str(r, "fires_mode", &mode);
    int all = rc == CS_OK && strcmp(mode, "all") == 0;
    free(mode);
    if (rc == CS_ENOMEM) { /* not a file without every fire */
        cs__herr(err, cap, "%s: out of memory", path);
        return CS_ENOMEM;
    }
    if (!all) {
        cs__herr(err, cap, "%s: needs every fire (output.fires = all)", path);
        return CS_EPARSE;
    }
    cs_h5_fire_t *f = NULL;
    size_t nf = 0;
    if ((rc = cs_h5_read_fires(r, &f, &nf)) != CS_OK) {
        cs__herr(err, cap, "%s: %s", path, cs_h5_last_error());
        return rc;
    }
    double *d = malloc((nf ? nf : 1) * sizeof *d);
    if (!d) {
        free(f);
        return CS_ENOMEM;
    }
    size_t nd = 0;
    double paid = 0, value = 0, dsum = 0;
    for (size_t i = 0; i < nf; i++) {
        if (f[i].actor >= nact || !honest[f[i].actor]) continue;
        cs__hact_t *a = &acts[f[i].actor];
        a->n++;
        a->delay += (double)f[i].delay;
        a->paid += f[i].paid.f;
        d[nd++] = (double)f[i].delay;
        dsum += (double)f[i].delay;
        paid += f[i].paid.f;
        value += f[i].value;
    }
    out->fires[side] = nd;
    out->delay_mean[side] = nd ? dsum / (double)nd : (double)NAN;
    gsl_sort(d, 1, nd);
    out->delay_p99[side] = nd ? gsl_stats_quantile_from_sorted_data(d, 1, nd, 0.99) : (double)NAN;
    out->pay_per_fire[side] = nd ? paid / (double)nd : (double)NAN;
    out->welfare[side] = value;
    free(d);
    free(f);
    return CS_OK;
}

/* Both files' readers and checks; see cs_harm.h. */
int cs_harm_compute(const char *with, const char *without, cs_harm_t *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    int rc = CS_OK;
    cs_h5_reader_t *r[2] = {NULL, NULL};
    const char *path[2] = {with, without};
    for (int s = 0; s < 2 && rc == CS_OK; s++) {
        r[s] = cs_h5_open_read(path[s], &rc);
        if (!r[s]) cs__herr(err, cap, "%s: %s", path[s], cs_h5_last_error());
    }
    uint8_t *honest = NULL;
    size_t nact = 0;
    cs__hact_t *acts[2] = {NULL, NULL};
    if (rc == CS_OK) {
        const cs_h5_info_t *a = cs_h5_info(r[0]), *b = cs_h5_info(r[1]);
        uint64_t removed[2] = {0, 0};
        for (int s = 0; s < 2; s++)
            if (cs_h5_read_attr_u64(r[s], "attackers_removed", &removed[s]) != CS_OK) removed[s] = 0;
        if (strcmp(a->mechanism, b->mechanism) != 0 || a->seed != b->seed ||
            strcmp(a->scenario_json, b->scenario_json) != 0) {
            cs__herr(err, cap, "%s and %s are not the same scenario, seed and mechanism", with, without);
            rc = CS_EPARSE;
        } else if (removed[0] != 0 || removed[1] != 1) {
            cs__herr(err, cap, "%s must be the run with its attackers and %s the run without (run --harm)", with,
                     without);
            rc = CS_EPARSE;
        } else {
            snprintf(out->mechanism, sizeof out->mechanism, "%s", a->mechanism);
            out->seed = a->seed;
            rc = cs__honest_mask(a->scenario_json, &honest, &nact, err, cap);
        }
    }
    if (rc == CS_OK) {
        acts[0] = calloc(nact ? nact : 1, sizeof *acts[0]);
        acts[1] = calloc(nact ? nact : 1, sizeof *acts[1]);
        if (!acts[0] || !acts[1]) rc = CS_ENOMEM;
    }
    for (int s = 0; s < 2 && rc == CS_OK; s++) rc = cs__side(r[s], path[s], honest, nact, acts[s], out, s, err, cap);
    double *dd = NULL, *dp = NULL;
    if (rc == CS_OK) {
        dd = malloc((nact ? nact : 1) * sizeof *dd);
        dp = malloc((nact ? nact : 1) * sizeof *dp);
        if (!dd || !dp) rc = CS_ENOMEM;
    }
    if (rc == CS_OK) {
        /* Paired by actor: the same honest actor, the same arrivals. */
        size_t np = 0;
        for (size_t i = 0; i < nact; i++) {
            out->honest += honest[i];
            const cs__hact_t *x = &acts[0][i], *y = &acts[1][i];
            if (!honest[i] || x->n == 0 || y->n == 0) continue;
            dd[np] = x->delay / (double)x->n - y->delay / (double)y->n;
            dp[np] = x->paid / (double)x->n - y->paid / (double)y->n;
            np++;
        }
        out->paired = (uint32_t)np;
        cs_stat_t_interval(dd, np, 0.95, &out->d_delay, &out->d_delay_lo, &out->d_delay_hi);
        cs_stat_t_interval(dp, np, 0.95, &out->d_pay, &out->d_pay_lo, &out->d_pay_hi);
    }
    free(dd);
    free(dp);
    free(acts[0]);
    free(acts[1]);
    free(honest);
    cs_h5_close_read(r[0]);
    cs_h5_close_read(r[1]);
    if (rc == CS_ENOMEM) cs__herr(err, cap, "out of memory");
    return rc;
}

/* "%.4g" or "-" for NaN, into a 24-byte cell. */
static const char *cs__hcell(double v, char *buf)
{
    if (isnan(v)) snprintf(buf, 24, "-");
    else snprintf(buf, 24, "%.6g", v);
    return buf;
}

void cs_harm_print(FILE *f, const cs_harm_t *h, size_t n)
{
    fprintf(f, "\nharm to honest actors: with attackers / without (same demand) / change (with - without);\n"
               "paired = mean over honest actors that fired in both runs, [95 %% t interval across them]\n");
    for (size_t i = 0; i < n; i++) {
        const cs_harm_t *x = &h[i];
        char a[24], b[24], c[24], d[24];
        fprintf(f, "%s seed %llu: %u honest actors, %u paired, fires %llu / %llu\n", x->mechanism,
                (unsigned long long)x->seed, x->honest, x->paired, (unsigned long long)x->fires[0],
                (unsigned long long)x->fires[1]);
        const struct {
            const char *name;
            const double *v;
        } rows[] = {{"delay_mean", x->delay_mean},
                    {"delay_p99", x->delay_p99},
                    {"pay_per_fire", x->pay_per_fire},
                    {"welfare", x->welfare}};
        for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
            fprintf(f, "  %-13s %14s %14s %14s\n", rows[k].name, cs__hcell(rows[k].v[0], a),
                    cs__hcell(rows[k].v[1], b), cs__hcell(rows[k].v[0] - rows[k].v[1], c));
        fprintf(f, "  %-13s %s [%s, %s]\n", "paired delay", cs__hcell(x->d_delay, a), cs__hcell(x->d_delay_lo, b),
                cs__hcell(x->d_delay_hi, c));
        fprintf(f, "  %-13s %s [%s, %s]\n", "paired pay", cs__hcell(x->d_pay, a), cs__hcell(x->d_pay_lo, b),
                cs__hcell(x->d_pay_hi, d));
    }
}

const char *const cs_harm_metric_name[CS_HARM_NMET] = {"delay_mean", "delay_p99", "pay_per_fire", "welfare"};
const char *const cs_harm_form_name[CS_HARM_NFORM] = {"with", "without", "change"};

/* Figure met of x, with (side 0) or without (side 1) the attackers. */
static double cs__hval(const cs_harm_t *x, int met, int side)
{
    switch (met) {
    case CS_HARM_DELAY_MEAN: return x->delay_mean[side];
    case CS_HARM_DELAY_P99: return x->delay_p99[side];
    case CS_HARM_PAY_PER_FIRE: return x->pay_per_fire[side];
    default: return x->welfare[side];
    }
}

int cs_harm_summarize(const cs_harm_t *h, size_t n, cs_harm_sum_t **out, size_t *nout, char *err, size_t cap)
{
    *out = NULL;
    *nout = 0;
    cs_harm_sum_t *s = calloc(n ? n : 1, sizeof *s);
    size_t *grp = malloc((n ? n : 1) * sizeof *grp); /* row -> its mechanism's summary */
    double *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    if (!s || !grp || !a || !b) {
        free(s);
        free(grp);
        free(a);
        free(b);
        cs__herr(err, cap, "out of memory");
        return CS_ENOMEM;
    }
    size_t ns = 0;
    int rc = CS_OK;
    for (size_t i = 0; i < n && rc == CS_OK; i++) {
        size_t g = 0;
        while (g < ns && strcmp(s[g].mechanism, h[i].mechanism) != 0) g++;
        if (g == ns) snprintf(s[ns++].mechanism, sizeof s->mechanism, "%s", h[i].mechanism);
        grp[i] = g;
        s[g].seeds++;
        for (size_t j = 0; j < i; j++)
            if (grp[j] == g && h[j].seed == h[i].seed) {
                cs__herr(err, cap, "mechanism %s seed %llu is given twice (the summary is across seeds)",
                         h[i].mechanism, (unsigned long long)h[i].seed);
                rc = CS_EPARSE;
                break;
            }
    }
    for (size_t g = 0; g < ns && rc == CS_OK; g++)
        for (int met = 0; met < CS_HARM_NMET && rc == CS_OK; met++) {
            size_t k = 0;
            for (size_t i = 0; i < n; i++)
                if (grp[i] == g) {
                    a[k] = cs__hval(&h[i], met, 0);
                    b[k++] = cs__hval(&h[i], met, 1);
                }
            cs_stat_ci_t *ci = s[g].ci[met];
            if (cs_stat_ci(a, k, 0.95, 0, &ci[CS_HARM_WITH]) != CS_OK ||
                cs_stat_ci(b, k, 0.95, 0, &ci[CS_HARM_WITHOUT]) != CS_OK ||
                cs_stat_paired(a, b, k, 0.95, 0, &ci[CS_HARM_CHANGE]) != CS_OK) {
                cs__herr(err, cap, "out of memory");
                rc = CS_ENOMEM;
            }
        }
    free(grp);
    free(a);
    free(b);
    if (rc != CS_OK) {
        free(s);
        return rc;
    }
    *out = s;
    *nout = ns;
    return CS_OK;
}

/* "[lo, hi]" or "-" (undefined), into a 64-byte cell. */
static const char *cs__hival(double lo, double hi, char *buf)
{
    char a[24], b[24];
    if (isnan(lo) || isnan(hi)) snprintf(buf, 64, "-");
    else snprintf(buf, 64, "[%s, %s]", cs__hcell(lo, a), cs__hcell(hi, b));
    return buf;
}

void cs_harm_print_summary(FILE *f, const cs_harm_sum_t *s, size_t n)
{
    size_t most = 0;
    for (size_t g = 0; g < n; g++) most = s[g].seeds > most ? s[g].seeds : most;
    if (most < 2) return;
    fprintf(f, "\nharm to honest actors across seeds: mean over the seeds, 95 %% Student-t interval, 95 %% BCa\n"
               "bootstrap interval (B = %u; from %d seeds on, - below); change = with - without on the same\n"
               "seed (paired: both runs of a seed see the same honest demand)\n",
            CS_STAT_BOOT_B, CS_STAT_BOOT_MIN_N);
    for (size_t g = 0; g < n; g++) {
        fprintf(f, "%s, %zu seed%s\n", s[g].mechanism, s[g].seeds, s[g].seeds == 1 ? "" : "s");
        fprintf(f, "  %-13s %-8s %14s %32s %32s\n", "", "", "mean", "t interval", "BCa interval");
        for (int met = 0; met < CS_HARM_NMET; met++)
            for (int form = 0; form < CS_HARM_NFORM; form++) {
                const cs_stat_ci_t *c = &s[g].ci[met][form];
                char m[24], t[64], bb[64];
                fprintf(f, "  %-13s %-8s %14s %32s %32s\n", form == 0 ? cs_harm_metric_name[met] : "",
                        cs_harm_form_name[form], cs__hcell(c->mean, m), cs__hival(c->t_lo, c->t_hi, t),
                        cs__hival(c->b_lo, c->b_hi, bb));
            }
    }
}

size_t cs_harm_fields(const cs_harm_t *x, const char *names[CS_HARM_NFIELD], double v[CS_HARM_NFIELD])
{
    const struct {
        const char *name;
        double v;
    } f[] = {{"honest", x->honest},
             {"paired", x->paired},
             {"fires_with", (double)x->fires[0]},
             {"fires_without", (double)x->fires[1]},
             {"delay_mean_with", x->delay_mean[0]},
             {"delay_mean_without", x->delay_mean[1]},
             {"delay_p99_with", x->delay_p99[0]},
             {"delay_p99_without", x->delay_p99[1]},
             {"pay_per_fire_with", x->pay_per_fire[0]},
             {"pay_per_fire_without", x->pay_per_fire[1]},
             {"welfare_with", x->welfare[0]},
             {"welfare_without", x->welfare[1]},
             {"d_delay", x->d_delay},
             {"d_delay_lo", x->d_delay_lo},
             {"d_delay_hi", x->d_delay_hi},
             {"d_pay", x->d_pay},
             {"d_pay_lo", x->d_pay_lo},
             {"d_pay_hi", x->d_pay_hi}};
    _Static_assert(sizeof f / sizeof f[0] == CS_HARM_NFIELD, "one entry per numeric /harm column");
    for (size_t k = 0; k < CS_HARM_NFIELD; k++) {
        names[k] = f[k].name;
        v[k] = f[k].v;
    }
    return CS_HARM_NFIELD;
}

/* One row of the /harm table. */
typedef struct cs__hrow {
    char mechanism[32];
    uint64_t seed;
    uint32_t honest, paired;
    uint64_t fires_with, fires_without;
    double delay_mean_with, delay_mean_without, delay_p99_with, delay_p99_without;
    double pay_per_fire_with, pay_per_fire_without, welfare_with, welfare_without;
    double d_delay, d_delay_lo, d_delay_hi, d_pay, d_pay_lo, d_pay_hi;
} cs__hrow_t;

/* One row of the /harm_summary table. */
typedef struct cs__hsrow {
    char mechanism[32];
    uint64_t seeds;
    char metric[16];
    char form[8];
    uint64_t n;
    double mean, t_lo, t_hi, bca_lo, bca_hi;
} cs__hsrow_t;

/* The table /harm_summary of file (see cs_harm_write).  0, -1, or -2 when
 * out of memory. */
static int cs__harm_write_summary(hid_t file, const cs_harm_sum_t *s, size_t ns)
{
#define CS__HSCOLS(X) X(mechanism) X(seeds) X(metric) X(form) X(n) X(mean) X(t_lo) X(t_hi) X(bca_lo) X(bca_hi)
#define CS__HNAME(c) #c,
#define CS__HSOFF(c) HOFFSET(cs__hsrow_t, c),
    static const char *names[] = {CS__HSCOLS(CS__HNAME)};
    static const size_t offs[] = {CS__HSCOLS(CS__HSOFF)};
    enum { NC = sizeof names / sizeof names[0] };
    size_t nr = ns * CS_HARM_NMET * CS_HARM_NFORM;
    cs__hsrow_t *rows = calloc(nr ? nr : 1, sizeof *rows);
    if (!rows) return -2;
    size_t r = 0;
    for (size_t g = 0; g < ns; g++)
        for (int met = 0; met < CS_HARM_NMET; met++)
            for (int form = 0; form < CS_HARM_NFORM; form++, r++) {
                const cs_stat_ci_t *c = &s[g].ci[met][form];
                cs__hsrow_t *w = &rows[r];
                memcpy(w->mechanism, s[g].mechanism, sizeof w->mechanism);
                w->seeds = s[g].seeds;
                snprintf(w->metric, sizeof w->metric, "%s", cs_harm_metric_name[met]);
                snprintf(w->form, sizeof w->form, "%s", cs_harm_form_name[form]);
                w->n = c->n;
                w->mean = c->mean;
                w->t_lo = c->t_lo;
                w->t_hi = c->t_hi;
                w->bca_lo = c->b_lo;
                w->bca_hi = c->b_hi;
            }
    hid_t str[3];
    const size_t len[3] = {sizeof rows->mechanism, sizeof rows->metric, sizeof rows->form};
    for (int k = 0; k < 3; k++) {
        str[k] = H5Tcopy(H5T_C_S1);
        H5Tset_size(str[k], len[k]);
    }
    hid_t types[NC] = {str[0], H5T_NATIVE_UINT64, str[1], str[2], H5T_NATIVE_UINT64, H5T_NATIVE_DOUBLE,
                       H5T_NATIVE_DOUBLE, H5T_NATIVE_DOUBLE, H5T_NATIVE_DOUBLE, H5T_NATIVE_DOUBLE};
    /* Chunked with Fletcher-32 checksums (cs_h5_table.h). */
    hid_t ct = cs_h5t_compound(sizeof(cs__hsrow_t), NC, names, offs, types);
    int ok = ct >= 0 && cs_h5t_write_table(file, "harm_summary", "harm to honest actors across seeds (analysis/README.md)",
                                           ct, sizeof(cs__hsrow_t), nr, rows) == 0;
    if (ct >= 0) H5Tclose(ct);
    for (int k = 0; k < 3; k++) H5Tclose(str[k]);
    free(rows);
    return ok ? 0 : -1;
#undef CS__HSCOLS
#undef CS__HNAME
#undef CS__HSOFF
}

int cs_harm_write(const char *path, const cs_harm_t *h, size_t n, const cs_harm_sum_t *s, size_t ns, char *err,
                  size_t cap)
{
#define CS__HCOLS(X)                                                                                         \
    X(mechanism) X(seed) X(honest) X(paired) X(fires_with) X(fires_without) X(delay_mean_with)              \
        X(delay_mean_without) X(delay_p99_with) X(delay_p99_without) X(pay_per_fire_with)                    \
            X(pay_per_fire_without) X(welfare_with) X(welfare_without) X(d_delay) X(d_delay_lo) X(d_delay_hi) \
                X(d_pay) X(d_pay_lo) X(d_pay_hi)
#define CS__HNAME(c) #c,
#define CS__HOFF(c) HOFFSET(cs__hrow_t, c),
#define CS__HSIZE(c) sizeof(((cs__hrow_t *)0)->c),
    static const char *names[] = {CS__HCOLS(CS__HNAME)};
    static const size_t offs[] = {CS__HCOLS(CS__HOFF)};
    static const size_t sizes[] = {CS__HCOLS(CS__HSIZE)};
    enum { NC = sizeof names / sizeof names[0] };
    cs__hrow_t *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows) {
        cs__herr(err, cap, "out of memory");
        return CS_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const cs_harm_t *x = &h[i];
        cs__hrow_t *w = &rows[i];
        memcpy(w->mechanism, x->mechanism, sizeof w->mechanism);
        w->seed = x->seed;
        w->honest = x->honest;
        w->paired = x->paired;
        w->fires_with = x->fires[0];
        w->fires_without = x->fires[1];
        w->delay_mean_with = x->delay_mean[0];
        w->delay_mean_without = x->delay_mean[1];
        w->delay_p99_with = x->delay_p99[0];
        w->delay_p99_without = x->delay_p99[1];
        w->pay_per_fire_with = x->pay_per_fire[0];
        w->pay_per_fire_without = x->pay_per_fire[1];
        w->welfare_with = x->welfare[0];
        w->welfare_without = x->welfare[1];
        w->d_delay = x->d_delay;
        w->d_delay_lo = x->d_delay_lo;
        w->d_delay_hi = x->d_delay_hi;
        w->d_pay = x->d_pay;
        w->d_pay_lo = x->d_pay_lo;
        w->d_pay_hi = x->d_pay_hi;
    }
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, sizeof rows[0].mechanism);
    hid_t types[NC];
    for (size_t c = 0; c < NC; c++) {
        if (c == 0) types[c] = str;
        else if (sizes[c] == 4) types[c] = H5T_NATIVE_UINT32;
        else if (c < 6) types[c] = H5T_NATIVE_UINT64;
        else types[c] = H5T_NATIVE_DOUBLE;
    }
    /* Written to <path>.tmp and published by rename (N48): a reader, or a
     * kill, sees the previous harm.h5 or the new one, never a part. */
    char tmp[4200];
    int rc = CS_OK;
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        cs__herr(err, cap, "cannot write %s: path too long", path);
        free(rows);
        return CS_EIO;
    }
    cs_publish_drop_stale(tmp);
    /* The 1.8 format (checksummed headers), tables chunked with Fletcher-32
     * checksums (cs_h5_table.h). */
    hid_t file = cs_h5t_create(tmp);
    hid_t ct = cs_h5t_compound(sizeof(cs__hrow_t), NC, names, offs, types);
    int ws = 0;
    if (file < 0 || ct < 0 ||
        cs_h5t_write_table(file, "harm", "harm to honest actors (analysis/README.md)", ct, sizeof(cs__hrow_t), n,
                           rows) != 0 ||
        (ws = cs__harm_write_summary(file, s, ns)) != 0) {
        if (ws == -2) cs__herr(err, cap, "cannot write %s: out of memory", path);
        else cs__herr(err, cap, "cannot write %s", path);
        rc = ws == -2 ? CS_ENOMEM : CS_EIO;
    }
    if (file >= 0 && H5Fclose(file) < 0 && rc == CS_OK) {
        cs__herr(err, cap, "cannot write %s", path);
        rc = CS_EIO;
    }
    if (rc == CS_OK && cs_publish_commit(-1, tmp, path) != 0) {
        cs__herr(err, cap, "cannot write %s: %s", path, strerror(errno));
        rc = CS_EIO;
    }
    if (rc != CS_OK) unlink(tmp);
    if (ct >= 0) H5Tclose(ct);
    H5Tclose(str);
    free(rows);
    return rc;
#undef CS__HCOLS
#undef CS__HNAME
#undef CS__HOFF
#undef CS__HSIZE
}

int cs_harm_load(char *const *paths, size_t n, cs_harm_t **out, char *err, size_t cap)
{
    cs_harm_t *h = calloc(n ? n : 1, sizeof *h);
    *out = NULL;
    if (!h) {
        cs__herr(err, cap, "out of memory");
        return CS_ENOMEM;
    }
    int rc = CS_OK;
    char pair[4200];
    for (size_t i = 0; i < n && rc == CS_OK; i++) {
        if (!cs_harm_pair_path(paths[i], pair, sizeof pair)) {
            cs__herr(err, cap, "%s: path too long", paths[i]);
            rc = CS_EIO;
        } else {
            rc = cs_harm_compute(paths[i], pair, &h[i], err, cap);
        }
    }
    if (rc != CS_OK) free(h);
    else *out = h;
    return rc;
}

const char *cs_harm_pair_path(const char *run_path, char *buf, size_t cap)
{
    size_t n = strlen(run_path);
    if (n >= 3 && strcmp(run_path + n - 3, ".h5") == 0) n -= 3;
    int k = snprintf(buf, cap, "%.*s.noattack.h5", (int)n, run_path);
    return k < 0 || (size_t)k >= cap ? NULL : buf;
}
