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
#include "cs_mech.h"
#include "cs_metrics.h"
#include "cs_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CS__LEVEL 0.95

/* The columns: metric, heading. */
static const struct {
    int metric;          /* CS_M_* */
    const char *head;    /* column heading */
} cs__cols[] = {
    {CS_M_welfare, "welfare"},   {CS_M_efficiency, "efficiency"}, {CS_M_paid, "paid"},
    {CS_M_delay_p99, "delay_p99"}, {CS_M_jain, "jain"},           {CS_M_basefee_mean, "lane basefee"},
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
    /* v[(m * CS__NCOL + c) * ns + i]: column c of mechanism m, seed i. */
    double *v = malloc(nm * CS__NCOL * ns * sizeof *v);
    cs_metrics_t *mt = malloc(sizeof *mt);
    if (!v || !mt) {
        free(v);
        free(mt);
        snprintf(err, errcap, "out of memory");
        return CS_ENOMEM;
    }
    for (size_t m = 0; m < nm; m++) {
        for (size_t i = 0; i < ns; i++) {
            char path[4352], obuf[4352], merr[512];
            cs_seeds_path(path, sizeof path, dir, seeds[i], mechs[m]);
            int rc = cs_metrics_compute(path, cs_metrics_find_oracle(path, obuf, sizeof obuf), mt, merr, sizeof merr);
            if (rc != 0) {
                snprintf(err, errcap, "%s: %s", path, merr);
                free(v);
                free(mt);
                return rc;
            }
            for (size_t c = 0; c < CS__NCOL; c++) v[(m * CS__NCOL + c) * ns + i] = mt->v[cs__cols[c].metric];
        }
    }
    free(mt);
    fprintf(out, "\ncowsim run: %s -- %llu blocks x %zu seeds (", name, (unsigned long long)blocks, ns);
    for (size_t i = 0; i < ns; i++) {
        if (i == 3 && ns > 4) {
            fprintf(out, ", ..., %llu", (unsigned long long)seeds[ns - 1]);
            break;
        }
        fprintf(out, "%s%llu", i ? ", " : "", (unsigned long long)seeds[i]);
    }
    fprintf(out, ")\nmean +/- half-width of the 95 %% Student-t interval across seeds, t(n-1, 0.975) s / sqrt(n)\n\n");
    fprintf(out, "%-12s", "mechanism");
    for (size_t c = 0; c < CS__NCOL; c++) fprintf(out, " %22s", cs__cols[c].head);
    fputc('\n', out);
    int rc = CS_OK;
    for (size_t m = 0; m < nm && rc == CS_OK; m++) {
        const cs_mech_ops_t *ops = cs_mech_find(mechs[m]);
        int lane_fee = ops && (ops->flags & CS_MF_FEES);
        fprintf(out, "%-12s", mechs[m]);
        for (size_t c = 0; c < CS__NCOL; c++) {
            char cell[64];
            cs_stat_ci_t ci;
            /* Only fee mechanisms have a lane basefee (CIP-1 rev §5). */
            if (cs__cols[c].metric == CS_M_basefee_mean && !lane_fee) snprintf(cell, sizeof cell, "\xe2\x80\x94");
            else if ((rc = cs_stat_ci(&v[(m * CS__NCOL + c) * ns], ns, CS__LEVEL, 0, &ci)) != CS_OK) break;
            else cs__cell(&ci, cell, sizeof cell);
            /* The em dash is 3 bytes and 1 column wide. */
            fprintf(out, " %*s", strcmp(cell, "\xe2\x80\x94") == 0 ? 24 : 22, cell);
        }
        fputc('\n', out);
    }
    if (rc == CS_OK && nm > 1) {
        fprintf(out, "\npaired differences against %s (same seed: common random numbers), mean +/- half-width\n\n",
                mechs[0]);
        fprintf(out, "%-12s", "mechanism");
        for (size_t d = 0; d < CS__NDIFF; d++) {
            char head[40];
            snprintf(head, sizeof head, "d_%s", cs__cols[cs__diff[d]].head);
            fprintf(out, " %22s", head);
        }
        fputc('\n', out);
        for (size_t m = 1; m < nm && rc == CS_OK; m++) {
            fprintf(out, "%-12s", mechs[m]);
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
    if (rc == CS_OK)
        fprintf(out, "\nwelfare: sum over fires of the value at the realised delay; efficiency: welfare against\n"
                     "the benchmark of `compare` (analysis/README.md); paid: everything agents paid for their fires (burned\n"
                     "and to the proposer), the same quantity under every rule; delay_p99 in blocks; jain over\n"
                     "every actor; lane basefee: mean, only for mechanisms that have one (\xe2\x80\x94 otherwise).\n");
    else snprintf(err, errcap, "out of memory");
    free(v);
    return rc;
}
