/*
 * cs_seeds.c -- the summary table of a multi-seed `cowsim run`
 * (analysis/README.md "Multi-seed summary"): for every mechanism the mean
 * of welfare, efficiency, paid, delay_p99, jain and the mean lane basefee
 * over the seeds, each with the half-width of its 95 % Student-t interval
 * (cs_stats.h), then the paired differences of welfare, paid and delay_p99
 * against the first mechanism, seed by seed (common random numbers: every
 * mechanism of one seed sees the same arrivals).
 */
#include "cs_seeds.h"

#include "cs_error.h"
#include "cs_h5.h"
#include "cs_mech.h"
#include "cs_metrics.h"
#include "cs_stats.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CS__LEVEL 0.95

/* The columns: metric, heading, unit, which way is better (1 higher, -1
 * lower, 0 neither: an amount paid, a price). */
static const struct {
    int metric;          /* CS_M_* */
    const char *head;    /* column heading */
    const char *unit;    /* unit, under the heading */
    int better;          /* the best mean of the column is starred unless 0 */
} cs__cols[] = {
    {CS_M_welfare, "welfare", "base units", 1},      {CS_M_efficiency, "efficiency", "ratio", 1},
    {CS_M_paid, "paid", "base units", 0},            {CS_M_delay_p99, "delay_p99", "blocks", -1},
    {CS_M_jain, "jain", "ratio", 1},                 {CS_M_basefee_mean, "lane basefee", "base units/cycle", 0},
};
#define CS__NCOL (sizeof cs__cols / sizeof cs__cols[0])
/* Paired differences: indices into cs__cols. */
static const size_t cs__diff[] = {0, 2, 3};
#define CS__NDIFF (sizeof cs__diff / sizeof cs__diff[0])

void cs_seeds_path(char *buf, size_t cap, const char *dir, uint64_t seed, const char *mech)
{
    snprintf(buf, cap, "%s/seed-%llu/%s.h5", dir, (unsigned long long)seed, mech);
}

/* "mean +/- hw" of ci into buf; "-" when the mean is undefined, the mean
 * alone when the interval is (n < 2). */
static void cs__cell(const cs_stat_ci_t *ci, char *buf, size_t cap)
{
    if (ci->n == 0 || isnan(ci->mean)) snprintf(buf, cap, "-");
    else if (isnan(ci->t_lo)) snprintf(buf, cap, "%.4g", ci->mean);
    else snprintf(buf, cap, "%.4g +/- %.2g", ci->mean, (ci->t_hi - ci->t_lo) / 2);
}

int cs_seeds_table(const char *name, uint64_t blocks, const char *dir, const uint64_t *seeds, size_t ns,
                   const char *const *mechs, size_t nm, FILE *out, char *err, size_t errcap)
{
    cs_seeds_set_t set;
    int lrc = cs_seeds_load_list(dir, seeds, ns, mechs, nm, &set, err, errcap);
    if (lrc != CS_OK) return lrc;
    /* v[(m * CS__NCOL + c) * ns + i]: column c of mechanism m, seed i. */
    double *v = malloc(nm * CS__NCOL * ns * sizeof *v);
    if (!v) {
        cs_seeds_free(&set);
        snprintf(err, errcap, "out of memory");
        return CS_ENOMEM;
    }
    for (size_t m = 0; m < nm; m++)
        for (size_t i = 0; i < ns; i++)
            for (size_t c = 0; c < CS__NCOL; c++)
                v[(m * CS__NCOL + c) * ns + i] = set.mt[m * ns + i].v[cs__cols[c].metric];
    /* What the efficiencies are against (analysis/README.md "Bound gap"):
     * runs against the exact optimum, against an upper bound, and the
     * bound's gap on the sampled windows of those where it was measured. */
    size_t n_exact = 0, n_bound = 0, n_gap = 0;
    double gap_sum = 0, gap_max = (double)NAN;
    for (size_t i = 0; i < nm * ns; i++) {
        const cs_metrics_t *mt = &set.mt[i];
        if (mt->opt_method < 0) continue;
        if (mt->v[CS_M_opt_exact] == 1.0) {
            n_exact++;
            continue;
        }
        n_bound++;
        double g = mt->v[CS_M_bound_gap];
        if (isnan(g)) continue;
        n_gap++;
        gap_sum += g;
        if (isnan(gap_max) || g > gap_max) gap_max = g;
    }
    cs_seeds_free(&set);
    fprintf(out, "\ncowsim run: %s -- %llu blocks x %zu seeds (", name, (unsigned long long)blocks, ns);
    for (size_t i = 0; i < ns; i++) {
        if (i == 3 && ns > 4) {
            fprintf(out, ", ..., %llu", (unsigned long long)seeds[ns - 1]);
            break;
        }
        fprintf(out, "%s%llu", i ? ", " : "", (unsigned long long)seeds[i]);
    }
    fprintf(out, ")\nmean +/- half-width of the 95 %% Student-t interval across seeds, t(n-1, 0.975) s / sqrt(n)\n\n");
    /* The name column: 12 wide, or the longest name (priority-classes). */
    int w = 12;
    for (size_t m = 0; m < nm; m++)
        if (strlen(mechs[m]) > (size_t)w) w = (int)strlen(mechs[m]);
    fprintf(out, "%-*s", w, "mechanism");
    /* Each column: a 22-wide cell, then 2 for its star. */
    for (size_t c = 0; c < CS__NCOL; c++) fprintf(out, " %22s%s", cs__cols[c].head, c + 1 < CS__NCOL ? "  " : "");
    fprintf(out, "\n%-*s", w, "");
    for (size_t c = 0; c < CS__NCOL; c++) {
        char u[40];
        snprintf(u, sizeof u, "(%s)", cs__cols[c].unit);
        fprintf(out, " %22s%s", u, c + 1 < CS__NCOL ? "  " : "");
    }
    fputc('\n', out);
    /* Every cell's mean and interval first: the best mean of each column
     * among the rules (not a reference allocator such as greedy: a
     * yardstick) is starred, ties all. */
    cs_stat_ci_t *cis = malloc(nm * CS__NCOL * sizeof *cis);
    int *star = calloc(nm * CS__NCOL, sizeof *star), any_star = 0;
    int rc = cis && star ? CS_OK : CS_ENOMEM;
    for (size_t i = 0; rc == CS_OK && i < nm * CS__NCOL; i++)
        rc = cs_stat_ci(&v[i * ns], ns, CS__LEVEL, 0, &cis[i]);
    for (size_t c = 0; rc == CS_OK && c < CS__NCOL; c++) {
        double b = (double)NAN;
        size_t nb = 0;
        int differ = 0;
        for (size_t pass = 0; pass < 2 && cs__cols[c].better; pass++)
            for (size_t m = 0; m < nm; m++) {
                const cs_mech_ops_t *ops = cs_mech_find_any(mechs[m]);
                double mean = cis[m * CS__NCOL + c].mean;
                if ((ops && (ops->flags & CS_MF_REFERENCE)) || cis[m * CS__NCOL + c].n == 0 || !isfinite(mean))
                    continue;
                if (pass == 0) {
                    if (nb++ && mean != b) differ = 1;
                    if (nb == 1 || (cs__cols[c].better > 0 ? mean > b : mean < b)) b = mean;
                } else if (nb >= 2 && differ && mean == b) {
                    star[m * CS__NCOL + c] = any_star = 1;
                }
            }
    }
    for (size_t m = 0; m < nm && rc == CS_OK; m++) {
        const cs_mech_ops_t *ops = cs_mech_find(mechs[m]);
        int lane_fee = ops && (ops->flags & CS_MF_FEES);
        fprintf(out, "%-*s", w, mechs[m]);
        for (size_t c = 0; c < CS__NCOL; c++) {
            char cell[64];
            /* Only fee mechanisms have a lane basefee (CIP-1 rev §5), and
             * one at 0 in every block of every seed had none (first-draft
             * gba-tip prices against the cycle basefee, N65). */
            if (cs__cols[c].metric == CS_M_basefee_mean && (!lane_fee || cis[m * CS__NCOL + c].mean == 0))
                snprintf(cell, sizeof cell, "\xe2\x80\x94");
            else cs__cell(&cis[m * CS__NCOL + c], cell, sizeof cell);
            /* The em dash is 3 bytes and 1 column wide. */
            fprintf(out, " %*s%s", strcmp(cell, "\xe2\x80\x94") == 0 ? 24 : 22, cell,
                    star[m * CS__NCOL + c] ? " *" : c + 1 < CS__NCOL ? "  " : "");
        }
        fputc('\n', out);
    }
    free(cis);
    free(star);
    if (rc == CS_OK && nm > 1) {
        fprintf(out, "\npaired differences against %s (same seed: common random numbers), mean +/- half-width\n\n",
                mechs[0]);
        fprintf(out, "%-*s", w, "mechanism");
        for (size_t d = 0; d < CS__NDIFF; d++) {
            char head[40];
            snprintf(head, sizeof head, "d_%s", cs__cols[cs__diff[d]].head);
            fprintf(out, " %22s", head);
        }
        fputc('\n', out);
        for (size_t m = 1; m < nm && rc == CS_OK; m++) {
            fprintf(out, "%-*s", w, mechs[m]);
            for (size_t d = 0; d < CS__NDIFF; d++) {
                char cell[64];
                cs_stat_ci_t ci;
                size_t c = cs__diff[d];
                if ((rc = cs_stat_paired(&v[(m * CS__NCOL + c) * ns], &v[c * ns], ns, CS__LEVEL, 0, &ci)) != CS_OK)
                    break;
                cs__cell(&ci, cell, sizeof cell);
                fprintf(out, " %22s", cell);
            }
            fputc('\n', out);
        }
    }
    if (rc == CS_OK) {
        fprintf(out, "\nefficiency is against the exact optimum in %zu of the %zu runs and against an upper bound of it "
                     "in %zu", n_exact, nm * ns, n_bound);
        if (n_gap > 0)
            fprintf(out, " (the bound's gap to the exact optimum on sampled windows, bound_gap: mean %.3g %%, at most "
                         "%.3g %%, in %zu of them)", 100.0 * gap_sum / (double)n_gap, 100.0 * gap_max, n_gap);
        else if (n_bound > 0)
            fprintf(out, " (its gap not measured)");
        fprintf(out, ".\n");
    }
    if (rc == CS_OK)
        fprintf(out, "\nwelfare: sum over fires of the value at the realised delay; efficiency: welfare against\n"
                     "the benchmark of `compare` (analysis/README.md); paid: everything agents paid for their fires (burned\n"
                     "and to the proposer), the same quantity under every rule; delay_p99 in blocks; jain over\n"
                     "every actor; lane basefee: mean, only for mechanisms that have one (\xe2\x80\x94 otherwise).\n");
    if (rc == CS_OK && any_star)
        fprintf(out, "*: the best mean of its column among the rules (higher welfare, efficiency and jain, lower\n"
                     "delay_p99; the greedy reference is not ranked).\n");
    if (rc != CS_OK) snprintf(err, errcap, "out of memory");
    free(v);
    return rc;
}

/* 1 and the seed if name is "seed-<decimal>" (no sign, no leading junk). */
static int cs__seed_name(const char *name, uint64_t *seed)
{
    if (strncmp(name, "seed-", 5) != 0 || name[5] < '0' || name[5] > '9') return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(name + 5, &end, 10);
    if (*end || errno) return 0;
    *seed = (uint64_t)v;
    return 1;
}

int cs_seeds_is_dir(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return 0;
    DIR *d = opendir(path);
    if (!d) return 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));) {
        uint64_t s;
        found = cs__seed_name(e->d_name, &s);
    }
    closedir(d);
    return found;
}

void cs_seeds_free(cs_seeds_set_t *s)
{
    for (size_t m = 0; m < s->nm; m++) free(s->mechs[m]);
    free(s->mechs);
    free(s->seeds);
    free(s->mt);
    memset(s, 0, sizeof *s);
}

static int cs__cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Position of mechanism name in the "mechanism" member (a string or an
 * array of strings) of scenario json sj; a large value when absent. */
static size_t cs__mech_rank(const cJSON *sj, const char *name)
{
    const cJSON *ml = sj ? cJSON_GetObjectItemCaseSensitive(sj, "mechanism") : NULL;
    if (cJSON_IsString(ml)) return strcmp(ml->valuestring, name) == 0 ? 0 : (size_t)-1;
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, ml) {
        if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0) return i;
        i++;
    }
    return (size_t)-1;
}

/* Sort the mechanism names: scenario order first, then by name. */
static void cs__sort_mechs(char **mechs, size_t nm, const cJSON *sj)
{
    for (size_t i = 1; i < nm; i++)
        for (size_t j = i; j > 0; j--) {
            size_t ra = cs__mech_rank(sj, mechs[j - 1]), rb = cs__mech_rank(sj, mechs[j]);
            if (ra < rb || (ra == rb && strcmp(mechs[j - 1], mechs[j]) <= 0)) break;
            char *t = mechs[j - 1];
            mechs[j - 1] = mechs[j];
            mechs[j] = t;
        }
}

/* The seed directories of dir (ascending) into s.  Returns 0 or a cs_err. */
static int cs__scan_seeds(const char *dir, cs_seeds_set_t *s, char *err, size_t errcap)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errcap, "%s: %s", dir, strerror(errno));
        return CS_EIO;
    }
    size_t cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        uint64_t v;
        if (!cs__seed_name(e->d_name, &v)) continue;
        if (s->ns == cap) {
            cap = cap ? 2 * cap : 16;
            uint64_t *p = realloc(s->seeds, cap * sizeof *p);
            if (!p) {
                closedir(d);
                snprintf(err, errcap, "out of memory");
                return CS_ENOMEM;
            }
            s->seeds = p;
        }
        s->seeds[s->ns++] = v;
    }
    closedir(d);
    if (s->ns == 0) {
        snprintf(err, errcap, "%s: no seed-<s> directories (not a multi-seed run directory)", dir);
        return CS_EPARSE;
    }
    qsort(s->seeds, s->ns, sizeof *s->seeds, cs__cmp_u64);
    return CS_OK;
}

/* The mechanisms (<mech>.h5 files, not <mech>.noattack.h5) of the first
 * seed directory into s. */
static int cs__scan_mechs(const char *dir, cs_seeds_set_t *s, char *err, size_t errcap)
{
    char sd[4352];
    snprintf(sd, sizeof sd, "%s/seed-%llu", dir, (unsigned long long)s->seeds[0]);
    DIR *d = opendir(sd);
    if (!d) {
        snprintf(err, errcap, "%s: %s", sd, strerror(errno));
        return CS_EIO;
    }
    size_t cap = 0;
    int rc = CS_OK;
    for (struct dirent *e; rc == CS_OK && (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l <= 3 || strcmp(e->d_name + l - 3, ".h5") != 0) continue;
        /* run --harm's runs without the attackers are not mechanisms. */
        if (l > 12 && strcmp(e->d_name + l - 12, ".noattack.h5") == 0) continue;
        if (s->nm == cap) {
            cap = cap ? 2 * cap : 8;
            char **p = realloc(s->mechs, cap * sizeof *p);
            if (!p) {
                rc = CS_ENOMEM;
                break;
            }
            s->mechs = p;
        }
        if (!(s->mechs[s->nm] = strndup(e->d_name, l - 3))) rc = CS_ENOMEM;
        else s->nm++;
    }
    closedir(d);
    if (rc != CS_OK) {
        snprintf(err, errcap, "out of memory");
        return rc;
    }
    if (s->nm == 0) {
        snprintf(err, errcap, "%s: no run files (<mechanism>.h5)", sd);
        return CS_EPARSE;
    }
    return CS_OK;
}

/* The metrics of every file cs_seeds_path(dir, s->seeds[i], s->mechs[m])
 * into s->mt (with the greedy.h5 of the same seed directory when there is
 * one), and s->scenario.  Returns 0, or a cs_err code with a message in
 * err naming the path (s is then freed). */
static int cs__seeds_metrics(const char *dir, cs_seeds_set_t *s, char *err, size_t errcap)
{
    int rc = CS_OK;
    size_t nmt = s->nm * s->ns;
    if (!(s->mt = calloc(nmt ? nmt : 1, sizeof *s->mt))) {
        snprintf(err, errcap, "out of memory");
        rc = CS_ENOMEM;
    }
    for (size_t m = 0; rc == CS_OK && m < s->nm; m++)
        for (size_t i = 0; rc == CS_OK && i < s->ns; i++) {
            char path[4352], obuf[4352], merr[512];
            cs_seeds_path(path, sizeof path, dir, s->seeds[i], s->mechs[m]);
            rc = cs_metrics_compute(path, cs_metrics_find_greedy(path, obuf, sizeof obuf), &s->mt[m * s->ns + i],
                                    merr, sizeof merr);
            if (rc != CS_OK) snprintf(err, errcap, "%s: %s", path, merr);
        }
    if (rc == CS_OK && nmt > 0) snprintf(s->scenario, sizeof s->scenario, "%s", s->mt[0].scenario);
    if (rc != CS_OK) cs_seeds_free(s);
    return rc;
}

int cs_seeds_load(const char *dir, cs_seeds_set_t *s, char *err, size_t errcap)
{
    memset(s, 0, sizeof *s);
    int rc = cs__scan_seeds(dir, s, err, errcap);
    if (rc == CS_OK) rc = cs__scan_mechs(dir, s, err, errcap);
    if (rc == CS_OK) { /* the scenario's mechanism order, from the first file */
        char path[4352];
        cs_seeds_path(path, sizeof path, dir, s->seeds[0], s->mechs[0]);
        cs_h5_reader_t *rd = cs_h5_open_read(path, &rc);
        const char *sjt = rd ? cs_h5_info(rd)->scenario_json : NULL;
        cJSON *sj = sjt ? cJSON_Parse(sjt) : NULL;
        /* Out of memory parsing well-formed JSON must not pass for a
         * scenario without a mechanism order. */
        if (sjt && !sj && cs__json_wellformed(sjt)) rc = CS_ENOMEM;
        if (rd && rc == CS_OK) cs__sort_mechs(s->mechs, s->nm, sj);
        else snprintf(err, errcap, "%s: %s", path, rc == CS_ENOMEM ? "out of memory" : cs_h5_last_error());
        cJSON_Delete(sj);
        if (rd) cs_h5_close_read(rd);
    }
    if (rc == CS_OK) rc = cs__seeds_metrics(dir, s, err, errcap);
    else cs_seeds_free(s);
    return rc;
}

int cs_seeds_load_list(const char *dir, const uint64_t *seeds, size_t ns, const char *const *mechs, size_t nm,
                       cs_seeds_set_t *s, char *err, size_t errcap)
{
    memset(s, 0, sizeof *s);
    s->seeds = malloc((ns ? ns : 1) * sizeof *s->seeds);
    s->mechs = calloc(nm ? nm : 1, sizeof *s->mechs);
    int rc = s->seeds && s->mechs ? CS_OK : CS_ENOMEM;
    if (rc == CS_OK) {
        memcpy(s->seeds, seeds, ns * sizeof *seeds);
        s->ns = ns;
    }
    for (size_t m = 0; rc == CS_OK && m < nm; m++) {
        if (!(s->mechs[m] = strdup(mechs[m]))) rc = CS_ENOMEM;
        else s->nm++;
    }
    if (rc != CS_OK) {
        snprintf(err, errcap, "out of memory");
        cs_seeds_free(s);
        return rc;
    }
    return cs__seeds_metrics(dir, s, err, errcap);
}
