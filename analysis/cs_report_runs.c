/*
 * cs_report_runs.c -- the inputs of `cowsim report` that are run files
 * (cs_h5.h): their attributes, the per-block data files, fire-delay
 * histograms, /weights quantiles, labels and metrics; and multi-seed run
 * directories (cs_seeds.h) with their bar charts over the seeds.
 */
#include "cs_report_int.h"

#include "cs_exit.h"
#include "cs_error.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

/* ---- run files ---------------------------------------------------------- */

/* Count one fire with delay d.  Returns 0 or -1 when out of memory. */
int cs__dhist_add(cs__dhist_t *h, uint32_t d)
{
    if (d < CS__DENSE_DELAYS) {
        if ((size_t)d >= h->ncnt) {
            size_t nc = h->ncnt ? h->ncnt : 64;
            while (nc <= (size_t)d) nc *= 2;
            if (nc > CS__DENSE_DELAYS) nc = CS__DENSE_DELAYS;
            uint64_t *p = realloc(h->cnt, nc * sizeof *p);
            if (!p) return -1;
            memset(p + h->ncnt, 0, (nc - h->ncnt) * sizeof *p);
            h->cnt = p;
            h->ncnt = nc;
        }
        h->cnt[d]++;
    } else {
        if (h->nbig == h->capbig) {
            size_t nc = h->capbig ? 2 * h->capbig : 64;
            uint32_t *p = realloc(h->big, nc * sizeof *p);
            if (!p) return -1;
            h->big = p;
            h->capbig = nc;
        }
        h->big[h->nbig++] = d;
    }
    h->total++;
    if (d > h->max) h->max = d;
    return 0;
}

/* Free what r owns. */
void cs__rep_run_free(cs__rep_run_t *r)
{
    free(r->mechanism);
    free(r->scenario_json);
    free(r->scenario_name);
    free(r->cowsim_version);
    free(r->git_commit);
    free(r->fires_mode);
    for (int k = 0; k < CS_AGENT_KIND_COUNT; k++) {
        free(r->delay[k].cnt);
        free(r->delay[k].big);
    }
}

/* Exit code for a cs_h5 reader error while reading `path`, with a message
 * (one that says "out of memory" for CS_ENOMEM, which the reader's own
 * message need not). */
int cs__rep_h5_fail(const char *path, int rc)
{
    const char *m = cs_h5_last_error();
    if (rc == CS_ENOMEM) fprintf(stderr, "cowsim report: %s: out of memory (%s)\n", path, m && *m ? m : "reading");
    else fprintf(stderr, "cowsim report: %s: %s\n", path, m && *m ? m : cs_strerror(rc));
    return rc == CS_EPARSE || rc == CS_EINVAL ? CS_EXIT_USAGE : cs_exit_of(rc);
}

/*
 * Stream /blocks of run r (index idx) into two data files:
 *   run<idx>_basefee.dat: "height basefee_lane", bin means over r->bf_bin
 *     blocks (1 when the run has at most CS__BASEFEE_POINTS blocks); under
 *     slot-booking the slot's base price per cycle (/blocks slot_base,
 *     issue 28), its price path beside the lane basefee of the fee rules;
 *   run<idx>_util.dat: "height utilisation", means over r->util_bin
 *     blocks, the height being the bin's centre.
 * Returns 0 or an exit code with a message.
 */
static int cs__run_blocks(cs__rep_run_t *r, cs_h5_reader_t *rd, size_t idx, const char *dir)
{
    uint64_t n = 0;
    int rc = cs_h5_nrows(rd, CS_H5_BLOCKS, &n);
    if (rc != CS_OK) return cs__rep_h5_fail(r->path, rc);
    r->nblocks = n;
    r->bf_bin = n > CS__BASEFEE_POINTS ? (n + CS__BASEFEE_POINTS - 1) / CS__BASEFEE_POINTS : 1;
    r->util_bin = n > CS__UTIL_POINTS ? (n + CS__UTIL_POINTS - 1) / CS__UTIL_POINTS : 1;
    r->bf_min = HUGE_VAL;
    r->bf_max = -HUGE_VAL;
    char nb[64], nu[64];
    snprintf(nb, sizeof nb, "run%zu_basefee.dat", idx + 1);
    snprintf(nu, sizeof nu, "run%zu_util.dat", idx + 1);
    FILE *fb = cs__open_out(dir, nb);
    FILE *fu = fb ? cs__open_out(dir, nu) : NULL;
    if (!fb || !fu) {
        if (fb) {
            fclose(fb);
            char p[CS__PATH_MAX];
            snprintf(p, sizeof p, "%s/%s", dir, nb);
            remove(p); /* no empty data file left behind */
        }
        return CS_EXIT_IO;
    }
    int slotp = cs__rep_slot_priced(r);
    fprintf(fb, "# %s (%s): height, %s (mean over %llu-block bins)\n", r->label, r->path,
            slotp ? "slot base price per cycle" : "lane basefee", (unsigned long long)r->bf_bin);
    fprintf(fu, "# %s (%s): height (bin centre), lane utilisation (mean over %llu-block bins)\n", r->label,
            r->path, (unsigned long long)r->util_bin);
    cs_h5_block_t *buf = malloc(CS__CHUNK_ROWS * sizeof *buf);
    double bsum = 0, bh = 0, usum = 0, uh = 0;
    uint64_t bcnt = 0, ucnt = 0;
    if (!buf) rc = CS_ENOMEM;
    for (uint64_t s = 0; rc == CS_OK && s < n; s += CS__CHUNK_ROWS) {
        size_t m = (size_t)(n - s < CS__CHUNK_ROWS ? n - s : CS__CHUNK_ROWS);
        rc = cs_h5_read_rows(rd, CS_H5_BLOCKS, s, m, buf);
        for (size_t i = 0; rc == CS_OK && i < m; i++) {
            const cs_h5_block_t *b = &buf[i];
            bsum += slotp ? b->slot_base.f : b->basefee_lane.f;
            bh += (double)b->height;
            usum += b->utilisation;
            uh += (double)b->height;
            bcnt++;
            ucnt++;
            int last = s + i + 1 == n;
            if (bcnt == r->bf_bin || last) {
                double v = bsum / (double)bcnt;
                fprintf(fb, "%.10g %.17g\n", bh / (double)bcnt, v);
                if (v < r->bf_min) r->bf_min = v;
                if (v > r->bf_max) r->bf_max = v;
                bsum = bh = 0;
                bcnt = 0;
            }
            if (ucnt == r->util_bin || last) {
                fprintf(fu, "%.10g %.10g\n", uh / (double)ucnt, usum / (double)ucnt);
                usum = uh = 0;
                ucnt = 0;
            }
        }
    }
    free(buf);
    int e1 = cs__close_out(fb, dir, nb), e2 = cs__close_out(fu, dir, nu);
    if (rc != CS_OK) return cs__rep_h5_fail(r->path, rc);
    return e1 ? e1 : e2;
}

/* Stream /fires of r into the per-kind delay histograms.  Returns 0 or an
 * exit code with a message. */
static int cs__run_fires(cs__rep_run_t *r, cs_h5_reader_t *rd)
{
    uint64_t n = 0;
    int rc = cs_h5_nrows(rd, CS_H5_FIRES, &n);
    if (rc != CS_OK) return cs__rep_h5_fail(r->path, rc);
    cs_h5_fire_t *buf = malloc(CS__CHUNK_ROWS * sizeof *buf);
    if (!buf) rc = CS_ENOMEM;
    for (uint64_t s = 0; rc == CS_OK && s < n; s += CS__CHUNK_ROWS) {
        size_t m = (size_t)(n - s < CS__CHUNK_ROWS ? n - s : CS__CHUNK_ROWS);
        rc = cs_h5_read_rows(rd, CS_H5_FIRES, s, m, buf);
        for (size_t i = 0; rc == CS_OK && i < m; i++) {
            if (buf[i].kind >= CS_AGENT_KIND_COUNT) continue; /* not a real kind: no CDF */
            if (cs__dhist_add(&r->delay[buf[i].kind], buf[i].delay) != 0) rc = CS_ENOMEM;
        }
    }
    free(buf);
    if (rc != CS_OK) return cs__rep_h5_fail(r->path, rc);
    for (int k = 0; k < CS_AGENT_KIND_COUNT; k++)
        if (r->delay[k].nbig > 1) qsort(r->delay[k].big, r->delay[k].nbig, sizeof(uint32_t), cs__cmp_u32);
    return 0;
}

/* Quantiles of one /weights sample: sort w (n values) and write
 * "height p10 p50 p90 n" to f (GSL quantile definition, as cs_stat_quantile). */
static void cs__weights_sample(FILE *f, uint64_t height, double *w, size_t n)
{
    qsort(w, n, sizeof *w, cs__cmp_double);
    fprintf(f, "%llu %.10g %.10g %.10g %zu\n", (unsigned long long)height,
            gsl_stats_quantile_from_sorted_data(w, 1, n, 0.10), gsl_stats_quantile_from_sorted_data(w, 1, n, 0.50),
            gsl_stats_quantile_from_sorted_data(w, 1, n, 0.90), n);
}

/* Stream /weights of run r into data file `name`, one line per sample
 * height (rows of one height are consecutive: the writer samples every K
 * blocks in order).  Returns 0 or an exit code with a message. */
int cs__run_weights(cs__rep_run_t *r, cs_h5_reader_t *rd, const char *name, const char *dir)
{
    uint64_t n = 0;
    int rc = cs_h5_nrows(rd, CS_H5_WEIGHTS, &n);
    if (rc != CS_OK) return cs__rep_h5_fail(r->path, rc);
    FILE *f = cs__open_out(dir, name);
    if (!f) return CS_EXIT_IO;
    fprintf(f, "# %s (%s): sample height, W p10, W p50, W p90, identities\n", r->label, r->path);
    cs_h5_weight_t *buf = malloc(CS__CHUNK_ROWS * sizeof *buf);
    cs__dvec_t w = {0};
    uint64_t cur = 0;
    if (!buf) rc = CS_ENOMEM;
    for (uint64_t s = 0; rc == CS_OK && s < n; s += CS__CHUNK_ROWS) {
        size_t m = (size_t)(n - s < CS__CHUNK_ROWS ? n - s : CS__CHUNK_ROWS);
        rc = cs_h5_read_rows(rd, CS_H5_WEIGHTS, s, m, buf);
        for (size_t i = 0; rc == CS_OK && i < m; i++) {
            if (w.n > 0 && buf[i].height != cur) {
                cs__weights_sample(f, cur, w.v, w.n);
                r->w_samples++;
                w.n = 0;
            }
            cur = buf[i].height;
            /* CIP-1 rev §8: W is stored x 1e6. */
            if (cs__dvec_push(&w, (double)buf[i].weight_ppm / 1e6) != 0) rc = CS_ENOMEM;
        }
    }
    if (rc == CS_OK && w.n > 0) {
        cs__weights_sample(f, cur, w.v, w.n);
        r->w_samples++;
    }
    free(w.v);
    free(buf);
    int e = cs__close_out(f, dir, name);
    if (rc != CS_OK) return cs__rep_h5_fail(r->path, rc);
    return e;
}

/* Read run file r->path: root attributes, then the three data streams.
 * Returns 0 or an exit code with a message. */
int cs__rep_run_load(cs__rep_run_t *r, size_t idx, const char *dir)
{
    int err = CS_OK;
    cs_h5_reader_t *rd = cs_h5_open_read(r->path, &err);
    if (!rd) return cs__rep_h5_fail(r->path, err);
    const cs_h5_info_t *in = cs_h5_info(rd);
    r->mechanism = cs__strdup(in->mechanism ? in->mechanism : "");
    r->scenario_json = cs__strdup(in->scenario_json ? in->scenario_json : "");
    r->cowsim_version = cs__strdup(in->cowsim_version ? in->cowsim_version : "");
    r->git_commit = cs__strdup(in->git_commit ? in->git_commit : "");
    r->seed = in->seed;
    r->complete = in->complete;
    /* An absent attribute means the default; out of memory reading one (or
     * parsing well-formed scenario JSON, cs__json_wellformed) is an error,
     * not the default. */
    int oom = 0;
    char *fm = NULL;
    int arc = cs_h5_read_attr_str(rd, "fires_mode", &fm);
    if (arc == CS_ENOMEM) oom = 1;
    else if (arc != CS_OK) fm = cs__strdup("all");
    r->fires_mode = fm;
    arc = cs_h5_read_attr_u64(rd, "fires_sample_every", &r->fires_every);
    if (arc == CS_ENOMEM) oom = 1;
    else if (arc != CS_OK) r->fires_every = 1;
    r->scenario_name = NULL;
    const char *sjt = r->scenario_json ? r->scenario_json : "";
    cJSON *j = cJSON_Parse(sjt);
    if (!j && cs__json_wellformed(sjt)) oom = 1;
    const cJSON *nm = j ? cJSON_GetObjectItemCaseSensitive(j, "name") : NULL;
    r->scenario_name = cs__strdup(cJSON_IsString(nm) ? nm->valuestring : "");
    cJSON_Delete(j);
    if (oom || !r->mechanism || !r->scenario_json || !r->cowsim_version || !r->git_commit || !r->fires_mode ||
        !r->scenario_name) {
        cs_h5_close_read(rd);
        fprintf(stderr, "cowsim report: out of memory\n");
        return CS_EXIT_IO;
    }
    snprintf(r->label, sizeof r->label, "%s", r->mechanism);
    int rc = cs__run_blocks(r, rd, idx, dir);
    if (rc == 0) rc = cs__run_fires(r, rd);
    char wn[64];
    snprintf(wn, sizeof wn, "run%zu_weights.dat", idx + 1);
    if (rc == 0) rc = cs__run_weights(r, rd, wn, dir);
    cs_h5_close_read(rd);
    return rc;
}

/* The last k components of path p ("a/b/c", 2: "b/c"); p when it has no
 * more. */
static const char *cs__path_tail(const char *p, int k)
{
    const char *s = p + strlen(p);
    while (s > p) {
        if (s[-1] == '/' && --k == 0) break;
        s--;
    }
    return s;
}

/* Make labels unique: a mechanism that appears more than once is labelled
 * "mech seed N" when the seeds differ, else "mech [tail]" with the
 * shortest tail of its path no other run of that mechanism and seed
 * shares (cowsim run names every file <mechanism>.h5, so runs of one
 * scenario in two directories once got the same label "fifo [fifo.h5]"). */
void cs__run_labels(cs__rep_run_t *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int dup = 0, same_seed = 0;
        for (size_t j = 0; j < n; j++) {
            if (j == i || strcmp(runs[i].mechanism, runs[j].mechanism) != 0) continue;
            dup = 1;
            if (runs[j].seed == runs[i].seed) same_seed = 1;
        }
        if (!dup) continue;
        if (!same_seed)
            snprintf(runs[i].label, sizeof runs[i].label, "%s seed %llu", runs[i].mechanism,
                     (unsigned long long)runs[i].seed);
        else {
            const char *t = runs[i].path;
            for (int k = 1; k < 64; k++) {
                t = cs__path_tail(runs[i].path, k);
                int clash = 0;
                for (size_t j = 0; j < n && !clash; j++)
                    clash = j != i && strcmp(runs[i].mechanism, runs[j].mechanism) == 0 &&
                            runs[j].seed == runs[i].seed && strcmp(cs__path_tail(runs[j].path, k), t) == 0;
                if (!clash || t == runs[i].path) break;
            }
            snprintf(runs[i].label, sizeof runs[i].label, "%s [%s]", runs[i].mechanism, t);
        }
    }
}

/*
 * Metrics of every run through cs_metrics_compute, with the greedy run that
 * `cowsim compare` would use (greedy.h5 beside the run,
 * cs_metrics_find_greedy), so efficiency and poa match compare's; and its
 * steady state (cs_steady_compute, warm-up removed as ss_mode says).  Returns 0
 * or an exit code with a message.
 */
int cs__run_metrics(cs__rep_run_t *runs, size_t n, int ss_mode, uint64_t burn_in)
{
    for (size_t i = 0; i < n; i++) {
        char obuf[4096], err[1024] = "";
        const char *greedy = cs_metrics_find_greedy(runs[i].path, obuf, sizeof obuf);
        int rc = cs_metrics_compute(runs[i].path, greedy, &runs[i].met, err, sizeof err);
        if (rc == CS_OK) {
            /* cs_steady_compute's message names the path itself. */
            rc = cs_steady_compute(runs[i].path, cs_steady_flags(&runs[i].met), ss_mode, burn_in, &runs[i].ss, err,
                                   sizeof err);
            if (rc != CS_OK) {
                fprintf(stderr, "cowsim report: %s\n", err);
                return rc == CS_EINVAL || rc == CS_EPARSE ? CS_EXIT_USAGE : cs_exit_of(rc);
            }
        }
        if (rc != CS_OK) {
            fprintf(stderr, "cowsim report: %s: %s\n", runs[i].path, err[0] ? err : cs_strerror(rc));
            return cs_exit_of(rc);
        }
    }
    return 0;
}

/* ---- multi-seed run directories (cs_seeds.h) ----------------------------- */

void cs__seedrun_free(cs__seedrun_t *s)
{
    cs_seeds_free(&s->set);
    free(s->ci);
}

/* Load multi-seed run directory s->path: its files and their metrics
 * (cs_seeds_load).  Returns 0 or an exit code with a message. */
int cs__seedrun_load(cs__seedrun_t *s)
{
    char err[4700];
    int rc = cs_seeds_load(s->path, &s->set, err, sizeof err);
    if (rc != CS_OK) {
        fprintf(stderr, "cowsim report: %s\n", err);
        return cs_exit_of(rc);
    }
    if (s->set.ns < 2) fprintf(stderr, "cowsim report: warning: %s has one seed: no intervals\n", s->path);
    return 0;
}

/*
 * Draw one bar chart per fairness and welfare metric of loaded multi-seed
 * run directory s: each mechanism's mean over the seeds with its 95 %
 * Student-t interval as whiskers (data files <prefix>_<metric>.dat).
 * Returns 0 or an exit code with a message.
 */
int cs__seedrun_plot(const cs__gp_t *g, cs__seedrun_t *s, const char *prefix, cs__plots_t *plots)
{
    int rc;
    size_t nm = s->set.nm, ns = s->set.ns;
    s->ci = calloc(CS__NBAR * nm, sizeof *s->ci);
    double *x = malloc(ns * sizeof *x), *m = malloc(nm * sizeof *m), *lo = malloc(nm * sizeof *lo),
           *hi = malloc(nm * sizeof *hi);
    char(*lab)[128] = calloc(nm, sizeof *lab);
    rc = s->ci && x && m && lo && hi && lab ? 0 : CS_EXIT_IO;
    for (size_t j = 0; rc == 0 && j < nm; j++) snprintf(lab[j], sizeof lab[j], "%s", s->set.mechs[j]);
    for (size_t k = 0; rc == 0 && k < CS__NBAR; k++) {
        for (size_t j = 0; rc == 0 && j < nm; j++) {
            cs_stat_ci_t *c = &s->ci[k * nm + j];
            for (size_t i = 0; i < ns; i++) x[i] = s->set.mt[j * ns + i].v[cs__bar_metrics[k]];
            /* t interval only: the whiskers are what the caption says. */
            cs_stat_t_interval(x, ns, CS__BOOT_LEVEL, &c->mean, &c->t_lo, &c->t_hi);
            c->n = ns;
            c->b_lo = c->b_hi = CS__REP_NAN;
            m[j] = c->mean;
            lo[j] = c->t_lo;
            hi[j] = c->t_hi;
        }
        char base[128], iv[160];
        snprintf(base, sizeof base, "%s_%s", prefix, cs__mnames[cs__bar_metrics[k]]);
        snprintf(iv, sizeof iv, "bars: the mean over %zu seeds; whiskers: the 95 %% Student-t interval of the mean over "
                 "%zu seeds", ns, ns);
        if (rc == 0) rc = cs__plot_bars(g, base, cs__mnames[cs__bar_metrics[k]], lab, m, lo, hi, nm, iv, plots);
    }
    if (rc == CS_EXIT_IO && !(s->ci && x && m && lo && hi && lab)) fprintf(stderr, "cowsim report: out of memory\n");
    free(x);
    free(m);
    free(lo);
    free(hi);
    free(lab);
    return rc;
}
