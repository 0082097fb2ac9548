/*
 * cs_cmd_sweep.c -- `cowsim sweep`: runs a sweep (analysis/cs_sweep.h: the
 * file, its design points) in local worker processes or over MPI ranks,
 * resumes it, and writes the summary file sweep.h5 (DESIGN §5 CLI, §7).
 *
 * Execution.  The driver validates the sweep file and every generated
 * scenario before anything is written, checks that the output directory
 * is writable, decides per run whether to run it or (with --resume, all
 * files complete) only to collect its metrics, and then hands out the
 * tasks:
 *   - locally, to at most -j N forked worker processes, one per task: the
 *     next task goes to the next free slot.  Each worker runs the engine
 *     in-process (cs_sim_init/step/done, as `cowsim run`), computes the
 *     metrics of its files and writes one result record to a pipe; the
 *     parent collects the records and rewrites sweep.h5;
 *   - under mpirun (built with CS_HAVE_MPI, more than one rank), rank 0
 *     hands out task indices on request (MPI_Send/MPI_Recv) and collects
 *     the result records; ranks 1..N-1 run the tasks in-process.
 * Results are stored by run index and the /runs table is written in run
 * order, so its content does not depend on -j, on the rank count or on
 * the order in which runs finish.
 *
 * Files.  Each run writes DIR/runs/<run_id>/<mechanism>.h5; a task first
 * deletes the files it is about to write.  sweep.h5 is written to
 * sweep.h5.tmp and renamed over sweep.h5, so a killed sweep always leaves
 * either the previous or the new summary, both readable.  The sweep (rank 0
 * under MPI) holds a lock on sweep.h5.work from before it touches DIR until
 * it ends, so a second sweep into DIR exits 3 at once (cs__sweep_lock).
 */
#include "cs_sweep.h"
#include "cs_sweep_int.h"
#include "cs_publish.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_qrng.h>
#include <hdf5.h>

#ifdef CS_HAVE_MPI
#include <mpi.h>
#endif

#include "cs_cli.h"
#include "cs_engine.h"
#include "cs_h5.h"
#include "cs_h5_table.h"
#include "cs_mech.h"
#include "cs_metrics.h"

#define CS__SW_MAX_JOBS 1024          /* -j */
#define CS__SW_MAX_DIR 4000           /* -o DIR: bytes (a path past PATH_MAX cannot be opened anyway) */

/* ------------------------------------------------------------ running */

static volatile sig_atomic_t cs__sw_stop; /* SIGINT / SIGTERM seen */

static void cs__sw_on_signal(int sig)
{
    (void)sig;
    cs__sw_stop = 1;
}

/* Task kinds. */
enum { CS__TASK_RUN = 0, CS__TASK_COLLECT = 1 };

/* One task's result, sent from a worker (process or rank) to the
 * collector as raw bytes: every process runs the same binary. */
typedef struct cs__res {
    int32_t run;                     /* run index; -1 = a worker asking for its first task (MPI) */
    int32_t status;                  /* CS_OK or the first failure's cs_err code */
    int32_t kind;                    /* CS__TASK_RUN or CS__TASK_COLLECT */
    int32_t n_mech;                  /* entries of have[] / m[] in use */
    double seconds;                  /* wall time of the task */
    int32_t worker;                  /* MPI rank that ran it (0 = a local worker process) */
    int32_t have[CS_MAX_MECHS];      /* 1: m[i] holds the metrics of mechanism i */
    char err[512];                   /* the first failure's message ("" if none) */
    cs_metrics_t m[CS_MAX_MECHS];    /* metrics per mechanism, in the sweep's order */
} cs__res_t;

/* What the driver knows about a sweep in progress. */
typedef struct cs__ctx {
    const cs_sweep_t *sw;    /* the sweep */
    const char *outdir;      /* DIR */
    size_t n_runs;           /* points x seeds */
    size_t n_mech;           /* mechanisms per run */
    int *kind;               /* per run: CS__TASK_RUN or CS__TASK_COLLECT */
    unsigned char *state;    /* per run: 0 pending, 1 finished, 2 failed */
    cs_metrics_t *m;         /* n_runs x n_mech metrics */
    unsigned char *have;     /* n_runs x n_mech: metrics present */
    size_t done;             /* runs finished (any outcome) */
    size_t n_ran, n_skipped, n_failed; /* by outcome */
    int io_fail;             /* a task failed with an I/O error: hand out nothing more */
    int interrupted;         /* a task was interrupted */
    int quiet, tty;          /* output */
    double t0;               /* start (monotonic seconds) */
    double last_write;       /* when sweep.h5 was last written */
    double write_cost;       /* seconds the last write took */
    char werr[9800];         /* last summary write error */
} cs__ctx_t;

static double cs__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}


/* DIR/runs/<run_id>/<mech>.h5 into buf. */
static void cs__run_file(const cs__ctx_t *c, size_t r, size_t mi, char *buf, size_t cap)
{
    char id[32];
    snprintf(buf, cap, "%s/runs/%s/%s.h5", c->outdir, cs_sweep_run_id(c->sw, r, id, sizeof id), c->sw->mechs[mi]);
}

/* Index of the "greedy" mechanism in the sweep, or -1. */
static int cs__greedy_index(const cs_sweep_t *sw)
{
    for (size_t i = 0; i < sw->n_mechs; i++)
        if (strcmp(sw->mechs[i], "greedy") == 0) return (int)i;
    return -1;
}

/* Record the first failure of a task. */
static void cs__fail(cs__res_t *res, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cs__fail(cs__res_t *res, int code, const char *fmt, ...)
{
    if (res->status != CS_OK) return;
    res->status = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->err, sizeof res->err, fmt, ap);
    va_end(ap);
}

/* Run one mechanism of a scenario into file, as `cowsim run` does: init,
 * step until the last block (or a stop signal), done.  Failures go to res. */
static void cs__run_mech(const cs_scenario_t *scn, const char *mech, const char *file, cs__res_t *res)
{
    cs_sim_opts_t opts = {.out_path = file, .seed = scn->seed};
    cs_engine_t *e = NULL;
    char err[512];
    int rc = cs_sim_init(&e, scn, mech, &opts, err, sizeof err);
    if (rc != CS_OK) {
        cs__fail(res, rc, "%s: %s", mech, err);
        return;
    }
    int complete = 0;
    for (;;) {
        if (cs__sw_stop) {
            rc = CS_EINTERRUPTED;
            break;
        }
        rc = cs_sim_step(e);
        if (rc == CS_EINTERRUPTED) {
            complete = 1;
            rc = CS_OK;
            break;
        }
        if (rc != CS_OK) break;
    }
    char serr[512];
    snprintf(serr, sizeof serr, "%s", cs_sim_error(e));
    cs_run_stats_t st;
    memset(&st, 0, sizeof st);
    int drc = cs_sim_done(e, complete, &st);
    if (rc == CS_EINTERRUPTED) cs__fail(res, rc, "%s: interrupted; %s left with complete = 0", mech, file);
    else if (rc != CS_OK) cs__fail(res, rc, "%s: %s", mech, serr[0] ? serr : cs_strerror(rc));
    else if (drc != CS_OK) cs__fail(res, drc, "%s: %s", mech, st.error[0] ? st.error : cs_strerror(drc));
}

/*
 * Execute task (run r, kind) in this process and fill res.  A RUN task
 * creates DIR/runs/<run_id>, deletes the files it is about to write, runs
 * every mechanism, then computes the metrics of each file; a COLLECT task
 * only computes the metrics of the existing files.
 */
static void cs__do_task(const cs__ctx_t *c, size_t r, int kind, cs__res_t *res)
{
    const cs_sweep_t *sw = c->sw;
    double t0 = cs__now();
    memset(res, 0, sizeof *res);
    res->run = (int32_t)r;
    res->kind = kind;
    res->n_mech = (int32_t)sw->n_mechs;
    char file[8192];
    if (kind == CS__TASK_RUN) {
        char dir[4608], id[32];
        snprintf(dir, sizeof dir, "%s/runs/%s", c->outdir, cs_sweep_run_id(sw, r, id, sizeof id));
        if (cs_mkdirs(dir) != 0) {
            cs__fail(res, CS_EIO, "cannot create %s: %s", dir, strerror(errno));
            return;
        }
        for (size_t i = 0; i < sw->n_mechs; i++) {
            cs__run_file(c, r, i, file, sizeof file);
            if (unlink(file) != 0 && errno != ENOENT) {
                cs__fail(res, CS_EIO, "cannot delete %s: %s", file, strerror(errno));
                return;
            }
        }
        cs_errlist_t le = {0};
        cs_scenario_t *scn = NULL;
        size_t p = r / sw->n_seeds;
        int rc = cs_sweep_point_scenario(sw, p, sw->seeds[r % sw->n_seeds], &scn, &le);
        if (rc != CS_OK) {
            cs__fail(res, rc, "point %zu: %s", p, le.n ? le.msg[0] : cs_strerror(rc));
            cs_errlist_free(&le);
            return;
        }
        cs_errlist_free(&le);
        for (size_t i = 0; i < sw->n_mechs && res->status == CS_OK; i++) {
            cs__run_file(c, r, i, file, sizeof file);
            cs__run_mech(scn, sw->mechs[i], file, res);
        }
        cs_scenario_free(scn);
        if (res->status != CS_OK) {
            res->seconds = cs__now() - t0;
            return;
        }
    }
    int oi = cs__greedy_index(sw);
    char ofile[8192];
    if (oi >= 0) cs__run_file(c, r, (size_t)oi, ofile, sizeof ofile);
    for (size_t i = 0; i < sw->n_mechs; i++) {
        cs__run_file(c, r, i, file, sizeof file);
        char err[512] = "";
        int rc = cs_metrics_compute(file, oi >= 0 ? ofile : NULL, &res->m[i], err, sizeof err);
        if (rc == 0) res->have[i] = 1;
        else cs__fail(res, rc, "metrics of %s: %s", file, err[0] ? err : cs_strerror(rc));
    }
    res->seconds = cs__now() - t0;
}

/*
 * 1 if every file of run r exists, is marked complete and was made by this
 * run: its seed, mechanism and scenario text (the point's parameters on
 * the base scenario, as cs__run_mech writes it) are the row's.  A complete
 * file that is not -- swapped with another run's, or left by a sweep with
 * other parameters -- is reported on stderr and the run is done again
 * (issue 25 #6), so a row never shows another run's results.
 */
static int cs__run_complete(const cs__ctx_t *c, size_t r)
{
    const cs_sweep_t *sw = c->sw;
    uint64_t seed = sw->seeds[r % sw->n_seeds];
    cs_scenario_t *scn = NULL;
    int all = 1;
    for (size_t i = 0; i < c->n_mech && all; i++) {
        char file[8192];
        cs__run_file(c, r, i, file, sizeof file);
        if (access(file, F_OK) != 0) {
            all = 0;
            break;
        }
        int err = 0;
        cs_h5_reader_t *rd = cs_h5_open_read(file, &err);
        /* Every table read once: a chunk whose checksum fails is met here,
         * not while collecting the metrics. */
        for (int ds = 0; rd && err == CS_OK && ds < CS_H5_NDS; ds++) {
            void *rows = NULL;
            size_t n = 0;
            err = cs_h5_read_all(rd, (cs_h5_ds)ds, &rows, &n);
            free(rows);
        }
        if (err == CS_ECORRUPT)
            fprintf(stderr, "sweep: --resume: %s; running it again\n", cs_h5_last_error());
        if (!rd || err != CS_OK) {
            cs_h5_close_read(rd);
            all = 0;
            break;
        }
        const cs_h5_info_t *in = cs_h5_info(rd);
        all = in->complete == 1;
        if (all && scn == NULL) {
            cs_errlist_t le = {0};
            if (cs_sweep_point_scenario(sw, r / sw->n_seeds, seed, &scn, &le) != CS_OK) all = 0;
            cs_errlist_free(&le);
        }
        const char *why = NULL;
        if (!all) why = NULL;
        else if (in->seed != seed) why = "seed";
        else if (!in->mechanism || strcmp(in->mechanism, sw->mechs[i]) != 0) why = "mechanism";
        else if (!in->scenario_json || !scn->text || strcmp(in->scenario_json, scn->text) != 0)
            why = "scenario (parameters)";
        if (why) {
            char id[32];
            fprintf(stderr, "sweep: --resume: %s is complete but its %s is not run %s's; running it again\n", file,
                    why, cs_sweep_run_id(sw, r, id, sizeof id));
            all = 0;
        }
        cs_h5_close_read(rd);
    }
    cs_scenario_free(scn);
    return all;
}

/* ------------------------------------------------------------ sweep.h5 */

/* One column of /runs. */
typedef struct cs__col {
    char name[272];  /* column (compound member) name */
    int type;        /* 0 float64, 1 int64, 2 uint64, 3 fixed string */
    size_t width;    /* bytes (strings: including NUL padding) */
    size_t off;      /* offset in the row */
    int src;         /* what fills it: see cs__fill_row */
    size_t idx;      /* parameter index or flat metric index */
} cs__col_t;

enum { CS__SRC_RUNID, CS__SRC_POINT, CS__SRC_SEED, CS__SRC_MECH, CS__SRC_PARAM, CS__SRC_METRIC, CS__SRC_KMETRIC };

/* Write a scalar UTF-8 string attribute. */
static int cs__attr_str(hid_t loc, const char *name, const char *s)
{
    /* Fixed-length: in the checksummed object header (cs_h5_table.h). */
    return cs_h5t_attr_str(loc, name, s);
}

/* Write a scalar numeric attribute of memory type mt. */
static int cs__attr_num(hid_t loc, const char *name, hid_t ft, hid_t mt, const void *v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = sp >= 0 ? H5Acreate2(loc, name, ft, sp, H5P_DEFAULT, H5P_DEFAULT) : -1;
    int rc = a >= 0 && H5Awrite(a, mt, v) >= 0 ? 0 : -1;
    if (a >= 0) H5Aclose(a);
    if (sp >= 0) H5Sclose(sp);
    return rc;
}

/* Append a column; returns 0 or -1 (allocation). */
static int cs__col_add(cs__col_t **cols, size_t *n, size_t *cap, const char *name, int type, size_t width, int src,
                       size_t idx)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        cs__col_t *x = realloc(*cols, nc * sizeof *x);
        if (!x) return -1;
        *cols = x;
        *cap = nc;
    }
    cs__col_t *c = &(*cols)[(*n)++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->type = type;
    c->width = width;
    c->src = src;
    c->idx = idx;
    return 0;
}

/*
 * Write DIR/sweep.h5 (through DIR/sweep.h5.tmp and a rename): /runs with
 * one row per (finished run, mechanism) in run order, and the root
 * attributes.  With publish == 0 the temporary file is removed instead of
 * renamed (a writability probe).  Returns 0, or -1 with c->werr set.
 */
static int cs__write_summary(cs__ctx_t *c, int complete, int publish)
{
    const cs_sweep_t *sw = c->sw;
    char tmp[4608], fin[4608];
    snprintf(tmp, sizeof tmp, "%s/sweep.h5.tmp", c->outdir);
    snprintf(fin, sizeof fin, "%s/sweep.h5", c->outdir);
    double t0 = cs__now();
    cs__col_t *cols = NULL;
    size_t nc = 0, cc = 0;
    int oom = 0;
    char idbuf[32];
    size_t idw = strlen(cs_sweep_run_id(sw, c->n_runs ? c->n_runs - 1 : 0, idbuf, sizeof idbuf)) + 1;
    oom |= cs__col_add(&cols, &nc, &cc, "run_id", 3, idw, CS__SRC_RUNID, 0);
    oom |= cs__col_add(&cols, &nc, &cc, "point", 1, 8, CS__SRC_POINT, 0);
    oom |= cs__col_add(&cols, &nc, &cc, "seed", 2, 8, CS__SRC_SEED, 0);
    oom |= cs__col_add(&cols, &nc, &cc, "mechanism", 3, CS__SW_MECH_W, CS__SRC_MECH, 0);
    for (size_t j = 0; j < sw->n_par; j++)
        oom |= cs__col_add(&cols, &nc, &cc, sw->par[j].column, sw->par[j].numeric ? 0 : 3,
                           sw->par[j].numeric ? 8 : sw->par[j].width, CS__SRC_PARAM, j);
    for (size_t i = 0; i < CS_M__COUNT; i++)
        oom |= cs__col_add(&cols, &nc, &cc, cs__sweep_metric_names[i], 0, 8, CS__SRC_METRIC, i);
    /* Per-kind metrics: the union over rows, in flat order of first appearance. */
    size_t nrows = 0;
    for (size_t r = 0; r < c->n_runs && !oom; r++) {
        if (!c->state[r]) continue;
        nrows += c->n_mech;
        for (size_t i = 0; i < c->n_mech; i++) {
            const cs_metrics_t *m = &c->m[r * c->n_mech + i];
            if (!c->have[r * c->n_mech + i]) continue;
            size_t n = cs_metrics_n(m);
            for (size_t k = CS_M__COUNT; k < n && !oom; k++) {
                char nb[160];
                const char *name = cs_metrics_name(m, k, nb, sizeof nb);
                if (!name) continue;
                int seen = 0;
                for (size_t q = 0; q < nc && !seen; q++) seen = strcmp(cols[q].name, name) == 0;
                if (!seen) oom |= cs__col_add(&cols, &nc, &cc, name, 0, 8, CS__SRC_KMETRIC, 0);
            }
        }
    }
    size_t rowsz = 0;
    for (size_t q = 0; q < nc; q++) {
        cols[q].off = rowsz;
        rowsz += cols[q].width;
    }
    unsigned char *buf = oom ? NULL : calloc(nrows ? nrows : 1, rowsz);
    if (!buf) {
        free(cols);
        snprintf(c->werr, sizeof c->werr, "%s: out of memory", fin);
        return -1;
    }
    size_t row = 0;
    for (size_t r = 0; r < c->n_runs; r++) {
        if (!c->state[r]) continue;
        size_t p = r / sw->n_seeds;
        for (size_t i = 0; i < c->n_mech; i++, row++) {
            unsigned char *b = buf + row * rowsz;
            const cs_metrics_t *m = c->have[r * c->n_mech + i] ? &c->m[r * c->n_mech + i] : NULL;
            for (size_t q = 0; q < nc; q++) {
                unsigned char *d = b + cols[q].off;
                double x = (double)NAN;
                switch (cols[q].src) {
                case CS__SRC_RUNID:
                    cs_sweep_run_id(sw, r, idbuf, sizeof idbuf);
                    memcpy(d, idbuf, strlen(idbuf) < cols[q].width ? strlen(idbuf) : cols[q].width - 1);
                    continue;
                case CS__SRC_POINT: {
                    int64_t v = (int64_t)p;
                    memcpy(d, &v, 8);
                    continue;
                }
                case CS__SRC_SEED: {
                    uint64_t v = sw->seeds[r % sw->n_seeds];
                    memcpy(d, &v, 8);
                    continue;
                }
                case CS__SRC_MECH:
                    memcpy(d, sw->mechs[i], strlen(sw->mechs[i]));
                    continue;
                case CS__SRC_PARAM:
                    if (cols[q].type == 3) {
                        char tb[40];
                        const char *t = cs__sweep_point_text(sw, p, cols[q].idx, tb, sizeof tb);
                        /* A JSON string value is stored without its quotes. */
                        size_t l = strlen(t);
                        if (l >= 2 && t[0] == '"' && t[l - 1] == '"') {
                            t++;
                            l -= 2;
                        }
                        memcpy(d, t, l < cols[q].width ? l : cols[q].width - 1);
                        continue;
                    }
                    x = cs_sweep_point_value(sw, p, cols[q].idx);
                    break;
                case CS__SRC_METRIC:
                    if (m) x = m->v[cols[q].idx];
                    break;
                case CS__SRC_KMETRIC:
                    if (m && cs_metrics_get(m, cols[q].name, &x) != 0) x = (double)NAN;
                    break;
                }
                memcpy(d, &x, 8);
            }
        }
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int rc = -1;
    hid_t f = cs_h5t_create(tmp); /* 1.8 format: checksummed headers */
    hid_t t = -1, sp = -1, ds = -1;
    hid_t strt[256];
    size_t nstr = 0;
    if (f >= 0 && (t = H5Tcreate(H5T_COMPOUND, rowsz)) >= 0) {
        int ok = 1;
        for (size_t q = 0; q < nc && ok; q++) {
            hid_t mt;
            if (cols[q].type == 0) mt = H5T_NATIVE_DOUBLE;
            else if (cols[q].type == 1) mt = H5T_NATIVE_INT64;
            else if (cols[q].type == 2) mt = H5T_NATIVE_UINT64;
            else {
                if (nstr == sizeof strt / sizeof strt[0]) {
                    ok = 0;
                    break;
                }
                mt = strt[nstr++] = H5Tcopy(H5T_C_S1);
                H5Tset_size(mt, cols[q].width);
                H5Tset_strpad(mt, H5T_STR_NULLPAD);
            }
            ok = H5Tinsert(t, cols[q].name, cols[q].off, mt) >= 0;
        }
        /* Chunked with Fletcher-32 checksums (cs_h5_table.h). */
        if (ok && cs_h5t_write_table(f, "runs", "sweep summary (analysis/cs_sweep.h)", t, rowsz, nrows, buf) == 0 &&
            (ds = H5Dopen2(f, "runs", H5P_DEFAULT)) >= 0) {
            char desc[256];
            snprintf(desc, sizeof desc,
                     "one row per (run, mechanism): run_id, point, seed, mechanism, %zu swept path(s), metrics "
                     "(analysis/README.md); NaN = unavailable",
                     sw->n_par);
            int32_t cpl = complete ? 1 : 0;
            uint64_t nr = c->n_runs, nd = c->done, npt = sw->n_points, nse = sw->n_seeds;
            static const char *const dn[] = {"single", "grid", "sobol"};
            rc = cs__attr_str(ds, "description", desc) | cs__attr_str(f, "sweep_json", sw->text) |
                 cs__attr_str(f, "base_json", sw->base_text) | cs__attr_str(f, "name", sw->name) |
                 cs__attr_str(f, "design", dn[sw->design]) | cs__attr_str(f, "cowsim_version", CS_VERSION) |
                 cs__attr_str(f, "git_commit", CS_GIT_COMMIT) |
                 cs__attr_num(f, "complete", H5T_STD_I32LE, H5T_NATIVE_INT32, &cpl) |
                 cs__attr_num(f, "n_runs", H5T_STD_U64LE, H5T_NATIVE_UINT64, &nr) |
                 cs__attr_num(f, "runs_done", H5T_STD_U64LE, H5T_NATIVE_UINT64, &nd) |
                 cs__attr_num(f, "n_points", H5T_STD_U64LE, H5T_NATIVE_UINT64, &npt) |
                 cs__attr_num(f, "n_seeds", H5T_STD_U64LE, H5T_NATIVE_UINT64, &nse);
        }
    }
    for (size_t s = 0; s < nstr; s++) H5Tclose(strt[s]);
    if (ds >= 0) H5Dclose(ds);
    if (sp >= 0) H5Sclose(sp);
    if (t >= 0) H5Tclose(t);
    if (f >= 0 && H5Fclose(f) < 0) rc = -1;
    free(buf);
    free(cols);
    int e = errno;
    if (f < 0) {
        snprintf(c->werr, sizeof c->werr, "cannot create %s: %s", tmp, e ? strerror(e) : "HDF5 error");
        return -1;
    }
    if (rc != 0) {
        unlink(tmp);
        snprintf(c->werr, sizeof c->werr, "cannot write %s", tmp);
        return -1;
    }
    if (!publish) {
        unlink(tmp);
        return 0;
    }
    /* fsync, rename, fsync the directory (N48). */
    if (cs_publish_commit(-1, tmp, fin) != 0) {
        snprintf(c->werr, sizeof c->werr, "cannot rename %s to %s: %s", tmp, fin, strerror(errno));
        unlink(tmp);
        return -1;
    }
    c->last_write = cs__now();
    c->write_cost = c->last_write - t0;
    return 0;
}

/* ------------------------------------------------------------ collecting */

static void cs__progress(const cs__ctx_t *c)
{
    int w = 30, fill = c->n_runs ? (int)((double)c->done / (double)c->n_runs * w) : w;
    double el = cs__now() - c->t0;
    fprintf(stderr, "\rsweep %-16.16s [", c->sw->name);
    for (int i = 0; i < w; i++) fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %zu/%zu runs  %.0f s", c->done, c->n_runs, el);
    if (c->done > 0 && c->done < c->n_runs)
        fprintf(stderr, "  eta %.0f s ", el / (double)c->done * (double)(c->n_runs - c->done));
    else fputs("         ", stderr);
    if (c->done == c->n_runs) fputc('\n', stderr);
    fflush(stderr);
}

/* Take one task result: store metrics, report, maybe rewrite sweep.h5. */
static void cs__collect(cs__ctx_t *c, const cs__res_t *res)
{
    size_t r = (size_t)res->run;
    if (r >= c->n_runs || c->state[r]) return;
    if (res->status == CS_EINTERRUPTED) {
        /* Not finished: no row; --resume reruns it. */
        c->interrupted = 1;
        return;
    }
    for (size_t i = 0; i < c->n_mech; i++) {
        c->have[r * c->n_mech + i] = res->have[i] ? 1 : 0;
        if (res->have[i]) c->m[r * c->n_mech + i] = res->m[i];
    }
    c->state[r] = res->status == CS_OK ? 1 : 2;
    c->done++;
    char id[32];
    cs_sweep_run_id(c->sw, r, id, sizeof id);
    if (res->status == CS_OK && res->kind == CS__TASK_COLLECT) c->n_skipped++;
    else if (res->status == CS_OK) c->n_ran++;
    else c->n_failed++;
    if (res->status == CS_EIO) c->io_fail = 1;
    if (res->status != CS_OK) {
        if (c->tty) fputc('\n', stderr);
        fprintf(stderr, "cowsim sweep: %s FAILED: %s\n", id, res->err);
    } else if (!c->quiet && !c->tty) {
        if (res->kind == CS__TASK_COLLECT)
            fprintf(stderr, "sweep: %s skipped (complete) [%zu/%zu]\n", id, c->done, c->n_runs);
        else
            fprintf(stderr, "sweep: %s done in %.2f s (point %zu, seed %llu)%s%.0d [%zu/%zu]\n", id, res->seconds,
                    r / c->sw->n_seeds, (unsigned long long)c->sw->seeds[r % c->sw->n_seeds],
                    res->worker ? " on rank " : "", (int)res->worker, c->done, c->n_runs);
    }
    if (c->tty) cs__progress(c);
    /* Rewrite the summary unless writing it takes more than a tenth of the
     * time since the last write (large sweeps); the last one always comes. */
    if (cs__now() - c->last_write >= 10.0 * c->write_cost && cs__write_summary(c, 0, 1) != 0)
        fprintf(stderr, "cowsim sweep: %s\n", c->werr);
}

/* Read exactly n bytes unless EOF; returns bytes read or -1. */
static ssize_t cs__read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, (char *)buf + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return -1;
        if (k == 0) break;
        got += (size_t)k;
    }
    return (ssize_t)got;
}

/* Write all n bytes; returns 0 or -1. */
static int cs__write_full(int fd, const void *buf, size_t n)
{
    size_t put = 0;
    while (put < n) {
        ssize_t k = write(fd, (const char *)buf + put, n - put);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        put += (size_t)k;
    }
    return 0;
}

/* A busy local worker slot. */
typedef struct cs__slot {
    pid_t pid;          /* worker process, 0 = free */
    int fd;             /* read end of its result pipe */
    size_t run;         /* its task's run */
    int kind;           /* its task's kind */
    size_t got;         /* result bytes received */
    cs__res_t *res;     /* result buffer */
} cs__slot_t;

/* Finish slot s: reap the worker and collect its result (or a failure). */
static void cs__slot_finish(cs__ctx_t *c, cs__slot_t *s)
{
    close(s->fd);
    int st = 0;
    while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (s->got != sizeof *s->res) {
        memset(s->res, 0, sizeof *s->res);
        s->res->run = (int32_t)s->run;
        s->res->kind = s->kind;
        s->res->n_mech = (int32_t)c->n_mech;
        if (WIFSIGNALED(st))
            cs__fail(s->res, WTERMSIG(st) == SIGINT || WTERMSIG(st) == SIGTERM ? CS_EINTERRUPTED : CS_EINVAL,
                     "worker killed by signal %d", WTERMSIG(st));
        else cs__fail(s->res, CS_EINVAL, "worker exited with status %d before reporting", WEXITSTATUS(st));
    }
    cs__collect(c, s->res);
    s->pid = 0;
}

/*
 * Local driver: tasks (run indices, in order) to at most jobs forked
 * workers, the next task to the next free slot.  Workers die with the
 * parent (PR_SET_PDEATHSIG), so a killed sweep leaves no stray runs.
 */
static void cs__local(cs__ctx_t *c, const size_t *tasks, size_t ntasks, int jobs)
{
    cs__slot_t *slot = calloc((size_t)jobs, sizeof *slot);
    struct pollfd *pf = calloc((size_t)jobs, sizeof *pf);
    int *pidx = calloc((size_t)jobs, sizeof *pidx);
    if (!slot || !pf || !pidx) {
        fprintf(stderr, "cowsim sweep: out of memory\n");
        c->io_fail = 1;
        free(slot), free(pf), free(pidx);
        return;
    }
    for (int j = 0; j < jobs; j++)
        if (!(slot[j].res = malloc(sizeof *slot[j].res))) c->io_fail = 1;
    pid_t parent = getpid();
    size_t next = 0;
    int active = 0, forwarded = 0;
    for (;;) {
        while (!c->io_fail && !cs__sw_stop && next < ntasks && active < jobs) {
            int j = 0;
            while (slot[j].pid) j++;
            int fds[2];
            if (pipe(fds) != 0) {
                fprintf(stderr, "cowsim sweep: pipe: %s\n", strerror(errno));
                c->io_fail = 1;
                break;
            }
            fflush(NULL);
            pid_t pid = fork();
            if (pid < 0) {
                fprintf(stderr, "cowsim sweep: fork: %s\n", strerror(errno));
                close(fds[0]);
                close(fds[1]);
                c->io_fail = 1;
                break;
            }
            if (pid == 0) {
                /* Worker: die with the parent, run the task, report, exit. */
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent) _exit(1);
                close(fds[0]);
                for (int k = 0; k < jobs; k++)
                    if (slot[k].pid) close(slot[k].fd);
                cs__res_t *res = slot[j].res;
                cs__do_task(c, tasks[next], c->kind[tasks[next]], res);
                int wrc = cs__write_full(fds[1], res, sizeof *res);
                for (int k = 0; k < jobs; k++) free(slot[k].res);
                free(slot);
                free(pf);
                free(pidx);
                cs_child_exit(wrc == 0 ? 0 : 1);
            }
            close(fds[1]);
            slot[j].pid = pid;
            slot[j].fd = fds[0];
            slot[j].run = tasks[next];
            slot[j].kind = c->kind[tasks[next]];
            slot[j].got = 0;
            next++;
            active++;
        }
        if (active == 0) break;
        if (cs__sw_stop && !forwarded) {
            /* Pass a stop on to the workers (a terminal's SIGINT reaches them
             * anyway; a SIGTERM to the parent alone does not). */
            for (int j = 0; j < jobs; j++)
                if (slot[j].pid) kill(slot[j].pid, SIGTERM);
            forwarded = 1;
        }
        int n = 0;
        for (int j = 0; j < jobs; j++)
            if (slot[j].pid) {
                pf[n].fd = slot[j].fd;
                pf[n].events = POLLIN;
                pf[n].revents = 0;
                pidx[n++] = j;
            }
        int k = poll(pf, (nfds_t)n, 1000);
        if (k < 0 && errno != EINTR) {
            fprintf(stderr, "cowsim sweep: poll: %s\n", strerror(errno));
            break;
        }
        if (k <= 0) {
            if (c->tty) cs__progress(c);
            continue;
        }
        for (int q = 0; q < n; q++) {
            if (!(pf[q].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            cs__slot_t *s = &slot[pidx[q]];
            ssize_t got = read(s->fd, (char *)s->res + s->got, sizeof *s->res - s->got);
            if (got < 0 && errno == EINTR) continue;
            if (got > 0) {
                s->got += (size_t)got;
                if (s->got < sizeof *s->res) continue;
                /* Whole record: wait for EOF (the worker exits next). */
                char extra;
                (void)cs__read_full(s->fd, &extra, 1);
            }
            cs__slot_finish(c, s);
            active--;
        }
    }
    for (int j = 0; j < jobs; j++) free(slot[j].res);
    free(slot);
    free(pf);
    free(pidx);
}

#ifdef CS_HAVE_MPI
enum { CS__TAG_RES = 71, CS__TAG_TASK = 72 };

/* 1 when the process was started by an MPI launcher (mpirun / srun). */
static int cs__mpi_launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

/*
 * MPI rank 0: hand out tasks on request and collect the results.  A
 * worker's message on CS__TAG_RES is its previous task's result (run -1
 * for its first request); the answer on CS__TAG_TASK is {run, kind}, or
 * run -1 to stop.  Probes with a short sleep instead of a blocking
 * receive so rank 0 does not spin a core that a worker could use.
 */
static void cs__mpi_master(cs__ctx_t *c, const size_t *tasks, size_t ntasks, int size)
{
    cs__res_t *res = malloc(sizeof *res);
    size_t next = 0;
    int stopped = 0;
    double last_tick = cs__now();
    while (stopped < size - 1) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, CS__TAG_RES, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
            if (c->tty && cs__now() - last_tick > 1.0) {
                cs__progress(c);
                last_tick = cs__now();
            }
            continue;
        }
        MPI_Recv(res, (int)sizeof *res, MPI_BYTE, st.MPI_SOURCE, CS__TAG_RES, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (res->run >= 0) cs__collect(c, res);
        int64_t task[2] = {-1, 0};
        if (!c->io_fail && !cs__sw_stop && next < ntasks) {
            task[0] = (int64_t)tasks[next];
            task[1] = c->kind[tasks[next]];
            next++;
        } else {
            stopped++;
        }
        MPI_Send(task, 2, MPI_INT64_T, st.MPI_SOURCE, CS__TAG_TASK, MPI_COMM_WORLD);
    }
    free(res);
}

/* MPI ranks > 0: ask for tasks, run them in-process, report. */
static void cs__mpi_worker(cs__ctx_t *c)
{
    cs__res_t *res = calloc(1, sizeof *res);
    res->run = -1;
    for (;;) {
        MPI_Send(res, (int)sizeof *res, MPI_BYTE, 0, CS__TAG_RES, MPI_COMM_WORLD);
        int64_t task[2];
        MPI_Recv(task, 2, MPI_INT64_T, 0, CS__TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (task[0] < 0) break;
        cs__do_task(c, (size_t)task[0], (int)task[1], res);
        MPI_Comm_rank(MPI_COMM_WORLD, &res->worker);
    }
    free(res);
}
#endif

/* ------------------------------------------------------------ the command */

static void cs__sweep_usage(FILE *f)
{
    fprintf(f, "usage: cowsim sweep SWEEP.json [-j N] [--resume] [-o DIR] [--quiet]\n"
               "  Runs every design point x seed of the sweep (all mechanisms per run), writing\n"
               "  DIR/runs/<run_id>/<mechanism>.h5 and the summary DIR/sweep.h5 (/runs: one row per\n"
               "  run and mechanism).  DIR defaults to results/<sweep name>.\n"
               "  -j N       N local worker processes (default 1)\n"
               "  --resume   keep runs whose files are all complete; rerun the others\n"
               "  -o DIR     output directory\n"
               "  --quiet    no progress output\n"
               "  Under mpirun (a CS_MPI build) the runs are spread over the ranks instead.\n"
               "  The sweep file format is documented in analysis/cs_sweep.h.\n");
}

/* Parse a -j value; returns 0 on success. */
static int cs__parse_jobs(const char *s, int *jobs)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < 1 || v > CS__SW_MAX_JOBS) return -1;
    *jobs = (int)v;
    return 0;
}

/* 1 if the sweep and base texts equal those recorded in an existing
 * DIR/sweep.h5 (compared as JSON), 0 if they differ, -1 if unreadable,
 * -2 if it is corrupt (cs_sweep_file_verify; the reason in why). */
static int cs__same_sweep(const char *file, const cs_sweep_t *sw, char *why, size_t cap)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (f < 0) return -1;
    int vr = cs_sweep_file_verify(f, file, why, cap);
    if (vr != CS_OK) {
        H5Fclose(f);
        return vr == CS_ECORRUPT ? -2 : -1;
    }
    int same = -1;
    char *txt[2] = {cs_h5t_read_attr_str(f, "sweep_json", NULL), cs_h5t_read_attr_str(f, "base_json", NULL)};
    if (txt[0] && txt[1]) {
        cJSON *a0 = cJSON_Parse(txt[0]), *b0 = cJSON_Parse(sw->text);
        cJSON *a1 = cJSON_Parse(txt[1]), *b1 = cJSON_Parse(sw->base_text);
        same = a0 && b0 && a1 && b1 && cJSON_Compare(a0, b0, 1) && cJSON_Compare(a1, b1, 1);
        cJSON_Delete(a0), cJSON_Delete(b0), cJSON_Delete(a1), cJSON_Delete(b1);
    }
    free(txt[0]);
    free(txt[1]);
    H5Fclose(f);
    return same;
}

/* Probe that dir accepts new files: create and remove one. */
static int cs__probe_dir(const char *dir, char *err, size_t cap)
{
    char p[4608];
    int len = snprintf(p, sizeof p, "%s/.cowsim-probe-%ld", dir, (long)getpid());
    if (len < 0 || (size_t)len >= sizeof p) {
        snprintf(err, cap, "cannot write to %.200s...: the path is longer than %zu bytes", dir, sizeof p - 32);
        return -1;
    }
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        snprintf(err, cap, "cannot write to %s: %s", dir, strerror(errno));
        return -1;
    }
    close(fd);
    unlink(p);
    return 0;
}

/*
 * One sweep per output directory (DESIGN-NOTES N48): hold an exclusive
 * flock on DIR/sweep.h5.work, the same lock as a run file's work file
 * (cs_publish_lock), from before anything in DIR is touched until the last
 * sweep.h5 is published.  The file holds no data: sweep.h5 itself goes
 * through sweep.h5.tmp, whose leftover state is read from this lock
 * (cs_publish_leftover_state).  Returns the descriptor, or -1 after the
 * message (another sweep holds it, or it cannot be created).
 */
static int cs__sweep_lock(const char *outdir, char *work, size_t cap)
{
    snprintf(work, cap, "%s/sweep.h5.work", outdir);
    int existed = 0;
    int fd = cs_publish_lock(work, &existed);
    if (fd < 0 && errno == EWOULDBLOCK)
        fprintf(stderr, "cowsim sweep: %s/sweep.h5 is being written by another sweep (%s is locked)\n", outdir,
                work);
    else if (fd < 0) fprintf(stderr, "cowsim sweep: cannot create %s: %s\n", work, strerror(errno));
    else if (existed) cs_publish_note_replacing(work);
    return fd;
}

int cs_cmd_sweep(int argc, char **argv)
{
    const char *path = NULL, *outdir = NULL;
    int jobs = 1, resume = 0, quiet = 0;
    /* The run files a sweep reads back are its own outputs, and MPI ranks
     * must not fork: no reader sandbox (cs_h5.h). */
    cs_h5_set_sandbox(0);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cs__sweep_usage(stdout);
            return CS_EXIT_OK;
        } else if (strcmp(a, "-j") == 0 && i + 1 < argc) {
            if (cs__parse_jobs(argv[++i], &jobs) != 0) {
                fprintf(stderr, "cowsim sweep: -j needs an integer in [1, %d]\n", CS__SW_MAX_JOBS);
                return CS_EXIT_USAGE;
            }
        } else if (strncmp(a, "-j", 2) == 0 && a[2]) {
            if (cs__parse_jobs(a + 2, &jobs) != 0) {
                fprintf(stderr, "cowsim sweep: -j needs an integer in [1, %d]\n", CS__SW_MAX_JOBS);
                return CS_EXIT_USAGE;
            }
        } else if (strcmp(a, "--resume") == 0) {
            resume = 1;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            outdir = argv[++i];
            /* Every file's path under DIR (DIR/runs/<id>/<mech>.h5, at
             * most ~600 bytes more) must fit the 4,608-byte buffers. */
            if (strlen(outdir) > CS__SW_MAX_DIR) {
                fprintf(stderr, "cowsim sweep: -o DIR is %zu bytes long, more than %d\n", strlen(outdir),
                        CS__SW_MAX_DIR);
                cs__sweep_usage(stderr);
                return CS_EXIT_USAGE;
            }
        } else if (a[0] != '-' && !path) {
            path = a;
        } else {
            fprintf(stderr, "cowsim sweep: unexpected argument '%s'\n", a);
            cs__sweep_usage(stderr);
            return CS_EXIT_USAGE;
        }
    }
    if (!path) {
        cs__sweep_usage(stderr);
        return CS_EXIT_USAGE;
    }
    int rank = 0, size = 1;
#ifndef CS_HAVE_MPI
    (void)size;
#else
    int mpi = 0;
    if (cs__mpi_launched()) {
        MPI_Init(NULL, NULL);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        if (size > 1) mpi = 1;
        else MPI_Finalize(); /* one rank: a local sweep (which forks) */
    }
#endif
    int code = CS_EXIT_OK;
    cs_errlist_t errs = {0};
    cs_sweep_t *sw = NULL;
    int rc = cs_sweep_load(path, &sw, &errs);
    if (rc == CS_OK) rc = cs_sweep_check(sw, &errs);
    if (rc != CS_OK) {
        if (rank == 0) {
            for (size_t i = 0; i < errs.n; i++) fprintf(stderr, "%s: %s\n", path, errs.msg[i]);
            if (errs.n == 0) fprintf(stderr, "%s: %s\n", path, cs_strerror(rc));
        }
        code = cs_exit_of(rc);
    }
    cs_errlist_free(&errs);
    char dirbuf[4096];
    if (code == CS_EXIT_OK && !outdir) {
        snprintf(dirbuf, sizeof dirbuf, "results/%s", sw->name);
        outdir = dirbuf;
    }
    cs__ctx_t c;
    memset(&c, 0, sizeof c);
    size_t *tasks = NULL, ntasks = 0;
    int lock_fd = -1; /* rank 0's lock on DIR/sweep.h5.work */
    char lock[4608];
    if (code == CS_EXIT_OK) {
        c.sw = sw;
        c.outdir = outdir;
        c.n_runs = cs_sweep_n_runs(sw);
        c.n_mech = sw->n_mechs;
        c.quiet = quiet;
        c.tty = !quiet && isatty(2);
        c.t0 = cs__now();
        c.kind = calloc(c.n_runs, sizeof *c.kind);
        c.state = calloc(c.n_runs, 1);
        c.have = calloc(c.n_runs * c.n_mech, 1);
        c.m = calloc(c.n_runs * c.n_mech, sizeof *c.m);
        tasks = calloc(c.n_runs, sizeof *tasks);
        if (!c.kind || !c.state || !c.have || !c.m || !tasks) {
            fprintf(stderr, "cowsim sweep: out of memory for %zu runs\n", c.n_runs);
            code = CS_EXIT_IO;
        }
    }
    if (code == CS_EXIT_OK && rank == 0) {
        /* The output directory must take files before anything is touched. */
        char rdir[4608], err[4800];
        int same = 1; /* cs__same_sweep of an existing DIR/sweep.h5 */
        snprintf(rdir, sizeof rdir, "%s/runs", outdir);
        char fin[4608];
        snprintf(fin, sizeof fin, "%s/sweep.h5", outdir);
        if (cs_mkdirs(outdir) != 0) {
            fprintf(stderr, "cowsim sweep: cannot create output directory %s: %s\n", outdir, strerror(errno));
            code = CS_EXIT_IO;
        } else if (cs_mkdirs(rdir) != 0) {
            fprintf(stderr, "cowsim sweep: cannot create %s: %s\n", rdir, strerror(errno));
            code = CS_EXIT_IO;
        } else if (cs__probe_dir(outdir, err, sizeof err) != 0 || cs__probe_dir(rdir, err, sizeof err) != 0) {
            fprintf(stderr, "cowsim sweep: %s\n", err);
            code = CS_EXIT_IO;
        } else if ((lock_fd = cs__sweep_lock(outdir, lock, sizeof lock)) < 0) {
            code = CS_EXIT_IO; /* all ranks end with it (MPI_Bcast below) */
        } else if (resume && access(fin, F_OK) == 0 && (same = cs__same_sweep(fin, sw, err, sizeof err)) == 0) {
            fprintf(stderr,
                    "cowsim sweep: --resume: %s was written by a different sweep or base scenario; "
                    "use another -o DIR or run without --resume\n",
                    fin);
            code = CS_EXIT_USAGE;
        } else if (resume && same == -2) {
            /* The run files are checked one by one; the summary they are
             * collected into is not rewritten over a damaged one. */
            fprintf(stderr,
                    "cowsim sweep: --resume: %s; remove it to rebuild the summary from the run files, "
                    "or run without --resume\n",
                    err);
            code = CS_EXIT_CORRUPT;
        }
        /* Which runs to run and which only to collect. */
        size_t n_complete = 0;
        for (size_t r = 0; r < c.n_runs && code == CS_EXIT_OK; r++) {
            c.kind[r] = resume && cs__run_complete(&c, r) ? CS__TASK_COLLECT : CS__TASK_RUN;
            if (c.kind[r] == CS__TASK_COLLECT) n_complete++;
        }
        /* Collect-only tasks first: they are quick and restore the summary. */
        for (size_t r = 0; r < c.n_runs && code == CS_EXIT_OK; r++)
            if (c.kind[r] == CS__TASK_COLLECT) tasks[ntasks++] = r;
        for (size_t r = 0; r < c.n_runs && code == CS_EXIT_OK; r++)
            if (c.kind[r] == CS__TASK_RUN) tasks[ntasks++] = r;
        if (code == CS_EXIT_OK) {
            /* Probe sweep.h5 itself; publish the empty table unless --resume
             * would replace a summary that still lists finished runs. */
            int keep_old = resume && access(fin, F_OK) == 0;
            char stale[4608];
            snprintf(stale, sizeof stale, "%s/sweep.h5.tmp", c.outdir);
            cs_publish_drop_stale(stale);
            if (cs__write_summary(&c, 0, !keep_old) != 0) {
                fprintf(stderr, "cowsim sweep: %s\n", c.werr);
                code = CS_EXIT_IO;
            }
        }
        if (code == CS_EXIT_OK && !quiet) {
            fprintf(stderr, "sweep %s: %zu run(s) = %zu point(s) x %zu seed(s), %zu mechanism(s) each; ", sw->name,
                    c.n_runs, sw->n_points, sw->n_seeds, c.n_mech);
#ifdef CS_HAVE_MPI
            if (mpi) fprintf(stderr, "%d MPI worker rank(s)", size - 1);
            else
#endif
                fprintf(stderr, "%d worker process(es)", jobs);
            fprintf(stderr, "; output %s\n", outdir);
            if (resume)
                fprintf(stderr, "sweep: --resume: %zu of %zu run(s) complete, %zu to run\n", n_complete, c.n_runs,
                        c.n_runs - n_complete);
        }
    }
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cs__sw_on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    cs__sw_stop = 0;
#ifdef CS_HAVE_MPI
    if (mpi) {
        int go = code;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank != 0) code = go;
        if (go == CS_EXIT_OK) {
            if (rank == 0) cs__mpi_master(&c, tasks, ntasks, size);
            else cs__mpi_worker(&c);
        }
    } else
#endif
        if (code == CS_EXIT_OK) {
        cs__local(&c, tasks, ntasks, jobs > (int)ntasks ? (ntasks ? (int)ntasks : 1) : jobs);
    }
    if (code == CS_EXIT_OK && rank == 0) {
        int finished = c.done == c.n_runs && c.n_failed == 0;
        if (cs__write_summary(&c, finished, 1) != 0) {
            fprintf(stderr, "cowsim sweep: %s\n", c.werr);
            code = CS_EXIT_IO;
        } else if (c.io_fail) code = CS_EXIT_IO;
        else if (c.interrupted || cs__sw_stop) code = 130;
        else if (c.n_failed) code = CS_EXIT_CHECK;
        if (cs__sw_stop || c.interrupted)
            fprintf(stderr, "cowsim sweep: interrupted after %zu of %zu run(s); rerun with --resume\n", c.done,
                    c.n_runs);
        if (!quiet)
            printf("wrote %s/sweep.h5: %zu row(s) (%zu run(s) x %zu mechanism(s)); %zu ran, %zu skipped, %zu failed, "
                   "%zu not run\n",
                   outdir, (c.done) * c.n_mech, c.done, c.n_mech, c.n_ran, c.n_skipped, c.n_failed,
                   c.n_runs - c.done);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (lock_fd >= 0) {
        /* Removed while still locked: a sweep waiting on this file finds it
         * gone and locks a new one (cs_publish_lock). */
        unlink(lock);
        close(lock_fd);
    }
#ifdef CS_HAVE_MPI
    if (mpi) MPI_Finalize();
#endif
    free(tasks);
    free(c.kind);
    free(c.state);
    free(c.have);
    free(c.m);
    cs_sweep_free(sw);
    return code;
}
