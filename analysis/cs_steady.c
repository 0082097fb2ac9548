/*
 * cs_steady.c -- steady-state figures of one long run (cs_steady.h,
 * analysis/README.md "Steady state").  The series are read from /blocks
 * (and /fires for welfare), the warm-up is cut by MSER-5 (White 1997) on
 * every series, the largest cut winning so that every series is past its
 * transient, and each series' mean after the cut gets a batch-means
 * interval over CS_STEADY_BATCHES batches (cs_stat_batch_means).
 */
#include "cs_steady.h"

#include "cs_error.h"
#include "cs_h5.h"
#include "cs_mech.h"
#include "cs_metrics.h"
#include "cs_stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CS__ROWS 8192 /* rows read per HDF5 call */

static const char *const cs__names[CS_SS__COUNT] = {
#define CS__STEADY_NAME(name, doc) #name,
    CS_STEADY_SERIES(CS__STEADY_NAME)
#undef CS__STEADY_NAME
};

const char *cs_steady_name(int i)
{
    return i >= 0 && i < CS_SS__COUNT ? cs__names[i] : NULL;
}

/* Read the series of the run behind rd into x[s * n + i] (block i).  The
 * welfare series needs contiguous heights and every fire; *welfare_ok says
 * whether it could be built.  Returns 0 or a cs_err code. */
static int cs__read_series(cs_h5_reader_t *rd, uint64_t n, int fires_all, double *x, int *welfare_ok)
{
    void *buf = malloc(CS__ROWS * (sizeof(cs_h5_block_t) > sizeof(cs_h5_fire_t) ? sizeof(cs_h5_block_t)
                                                                              : sizeof(cs_h5_fire_t)));
    if (!buf) return CS_ENOMEM;
    int rc = CS_OK;
    uint64_t h0 = 0;
    *welfare_ok = fires_all;
    for (uint64_t s = 0; rc == CS_OK && s < n; s += CS__ROWS) {
        size_t m = (size_t)(n - s < CS__ROWS ? n - s : CS__ROWS);
        const cs_h5_block_t *b = buf;
        rc = cs_h5_read_rows(rd, CS_H5_BLOCKS, s, m, buf);
        for (size_t j = 0; rc == CS_OK && j < m; j++) {
            uint64_t i = s + j;
            if (i == 0) h0 = b[j].height;
            if (b[j].height != h0 + i) *welfare_ok = 0; /* heights must index the blocks */
            x[CS_SS_basefee * n + i] = b[j].basefee_lane.f;
            x[CS_SS_utilisation * n + i] = b[j].utilisation;
            x[CS_SS_fires * n + i] = (double)b[j].fired;
            x[CS_SS_backlog * n + i] = (double)b[j].pending;
            x[CS_SS_paid * n + i] = (double)(cs_h5_money_u128(b[j].burn) + cs_h5_money_u128(b[j].tips) +
                                             cs_h5_money_u128(b[j].payments));
            x[CS_SS_welfare * n + i] = 0;
        }
    }
    uint64_t nf = 0;
    if (rc == CS_OK && *welfare_ok) rc = cs_h5_nrows(rd, CS_H5_FIRES, &nf);
    for (uint64_t s = 0; rc == CS_OK && *welfare_ok && s < nf; s += CS__ROWS) {
        size_t m = (size_t)(nf - s < CS__ROWS ? nf - s : CS__ROWS);
        const cs_h5_fire_t *f = buf;
        rc = cs_h5_read_rows(rd, CS_H5_FIRES, s, m, buf);
        for (size_t j = 0; rc == CS_OK && j < m; j++) {
            if (f[j].height < h0 || f[j].height - h0 >= n) {
                *welfare_ok = 0; /* a fire outside the blocks: no per-block welfare */
                break;
            }
            x[CS_SS_welfare * n + (f[j].height - h0)] += f[j].value;
        }
    }
    free(buf);
    return rc;
}

int cs_steady_compute(const char *path, int flags, int mode, uint64_t burn_in, cs_steady_t *out, char *err,
                      size_t errcap)
{
    memset(out, 0, sizeof *out);
    out->mode = mode;
    out->cut_by = -1;
    for (int s = 0; s < CS_SS__COUNT; s++) out->mean[s] = out->lo[s] = out->hi[s] = (double)NAN;
    int rc = CS_OK;
    cs_h5_reader_t *rd = cs_h5_open_read(path, &rc);
    if (!rd) {
        snprintf(err, errcap, "%s: %s", path, rc == CS_ENOMEM ? "out of memory" : cs_h5_last_error());
        return rc;
    }
    uint64_t n = 0;
    rc = cs_h5_nrows(rd, CS_H5_BLOCKS, &n);
    out->blocks = n;
    double *x = rc == CS_OK ? malloc((size_t)(n ? n : 1) * CS_SS__COUNT * sizeof *x) : NULL;
    int welfare_ok = 0;
    if (rc == CS_OK && !x) rc = CS_ENOMEM;
    if (rc == CS_OK) rc = cs__read_series(rd, n, flags & CS_STEADY_F_FIRES_ALL, x, &welfare_ok);
    if (rc != CS_OK) snprintf(err, errcap, "%s: %s", path, rc == CS_ENOMEM ? "out of memory" : cs_h5_last_error());
    cs_h5_close_read(rd);
    if (rc == CS_OK && mode == CS_STEADY_BURNIN && burn_in >= n) {
        snprintf(err, errcap, "%s: burn-in of %llu blocks leaves nothing of its %llu blocks", path,
                 (unsigned long long)burn_in, (unsigned long long)n);
        rc = CS_EINVAL;
    }
    if (rc != CS_OK) {
        free(x);
        return rc;
    }
    for (int s = 0; s < CS_SS__COUNT; s++) out->present[s] = 1;
    out->present[CS_SS_welfare] = welfare_ok;
    out->present[CS_SS_basefee] = (flags & CS_STEADY_F_LANE_FEE) != 0;
    if (mode == CS_STEADY_BURNIN) out->cut = burn_in;
    else if (mode == CS_STEADY_MSER5)
        for (int s = 0; s < CS_SS__COUNT; s++) {
            if (!out->present[s]) continue;
            out->mser_cut[s] = cs_stat_mser5(&x[(size_t)s * n], (size_t)n, NULL);
            if (out->cut_by < 0 || out->mser_cut[s] > out->cut) {
                out->cut = out->mser_cut[s];
                out->cut_by = s;
            }
        }
    out->at_limit = mode == CS_STEADY_MSER5 && n >= 10 && out->cut == 5 * (n / 5 / 2);
    size_t rest = (size_t)(n - out->cut);
    out->used = rest >= CS_STEADY_BATCHES ? rest / CS_STEADY_BATCHES * CS_STEADY_BATCHES : rest;
    for (int s = 0; s < CS_SS__COUNT; s++) {
        if (!out->present[s] || rest == 0) continue;
        const double *v = &x[(size_t)s * n + out->cut];
        double sum = 0;
        for (size_t i = 0; i < rest; i++) sum += v[i];
        out->mean[s] = sum / (double)rest;
        /* With CS_STEADY_BATCHES batches or more, the mean and interval of
         * the batch means: the remainder (< CS_STEADY_BATCHES blocks) is
         * dropped at the start of the steady part, so mean and interval
         * describe the same blocks. */
        if (rest >= CS_STEADY_BATCHES &&
            cs_stat_batch_means(v, rest, CS_STEADY_BATCHES, 0.95, &out->mean[s], &out->lo[s], &out->hi[s]) != CS_OK) {
            free(x);
            snprintf(err, errcap, "%s: out of memory", path);
            return CS_ENOMEM;
        }
    }
    free(x);
    return CS_OK;
}

int cs_steady_flags(const cs_metrics_t *m)
{
    const cs_mech_ops_t *ops = cs_mech_find(m->mechanism);
    return (m->fires_mode == 0 ? CS_STEADY_F_FIRES_ALL : 0) | (ops && (ops->flags & CS_MF_FEES) ? CS_STEADY_F_LANE_FEE : 0);
}

int cs_steady_arg(int argc, char **argv, int *i, int *mode, uint64_t *burn_in)
{
    const char *a = argv[*i];
    if (*mode != CS_STEADY_MSER5) return 0;
    if (strcmp(a, "--no-warmup") == 0) {
        *mode = CS_STEADY_WHOLE;
        return 1;
    }
    if (strcmp(a, "--burn-in") != 0 || *i + 1 >= argc) return 0;
    const char *s = argv[*i + 1];
    char *end;
    if (*s < '0' || *s > '9') return 0;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || errno) return 0;
    *burn_in = (uint64_t)x;
    *mode = CS_STEADY_BURNIN;
    ++*i;
    return 1;
}
