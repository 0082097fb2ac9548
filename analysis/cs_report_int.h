/*
 * cs_report_int.h -- private declarations shared by the files of `cowsim
 * report` (analysis/cs_report*.c): limits, the shared tables, the types of
 * runs, multi-seed runs, sweeps and plots, and the cs__ functions one file
 * defines and another calls.  Not for use outside analysis/cs_report*.c;
 * the public entry is cs_report.h.
 */
#ifndef CS_REPORT_INT_H
#define CS_REPORT_INT_H

#include "cs_h5.h"
#include "cs_metrics.h"
#include "cs_seeds.h"
#include "cs_stats.h"
#include "cs_steady.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CS__NUM_NAN "-"            /* table text of NaN / absent (compare --json: null) */
#define CS__CHUNK_ROWS 8192        /* rows read per HDF5 call when streaming */
#define CS__BASEFEE_POINTS 4000    /* at most this many basefee points per run */
#define CS__UTIL_POINTS 200        /* utilisation is shown as this many bin means */
#define CS__DENSE_DELAYS 65536u    /* delays below this are histogrammed densely */
#define CS__REP_NAN ((double)NAN) /* NaN as a double (NAN is a float) */
#define CS__BOOT_LEVEL 0.95        /* interval level */
#define CS__BOOT_SEED 20261121u    /* fixed: the same report every time */
#define CS__PATH_MAX 4352          /* buffer for DIR/file paths */

/* Category-10 colours; run i draws in colour i % 10 with dash type i / 10 + 1. */
extern const char *const cs__colors[10];

/* Run-level metric names, indexed by CS_M_*. */
extern const char *const cs__mnames[CS_M__COUNT];

/* The metrics drawn as one bar chart each across mechanisms (run reports;
 * cs_report_plots.c). */
#define CS__NBAR ((size_t)8)
extern const int cs__bar_metrics[CS__NBAR];

/* ---- small helpers (cs_report_util.c) ----------------------------------- */

/* Growable array of doubles. */
typedef struct cs__dvec {
    double *v;  /* values */
    size_t n;   /* used */
    size_t cap; /* allocated */
} cs__dvec_t;

char *cs__strdup(const char *s);
void cs__sanitize(char *dst, size_t cap, const char *src);
void cs__gp_quote(FILE *f, const char *s);
const char *cs__fmt_num(char *buf, size_t cap, double v);
const char *cs__fmt_sig(char *buf, size_t cap, double v);
const char *cs__metric_unit(const char *name, int *better);
void cs__best(const double *v, const char *const *mechs, size_t n, int better, int *mark);
void cs__dat_num(FILE *f, double v);
int cs__cmp_double(const void *a, const void *b);
int cs__cmp_u32(const void *a, const void *b);
int cs__dvec_push(cs__dvec_t *d, double x);

/* ---- gnuplot (cs_report_util.c) ------------------------------------------ */

typedef struct cs__gp {
    char exe[4096];          /* absolute path of the gnuplot executable */
    const char *dir;         /* output directory (the child's working directory) */
    char log[CS__PATH_MAX];  /* DIR/gnuplot.log: the child's stderr */
    int cairo;               /* 1: pngcairo terminal, 0: png (libgd) */
} cs__gp_t;

/* Plots of the report, in order.  A plot is recorded when its script is
 * complete (cs__gp_end) and drawn later, with the others, by one gnuplot
 * process (cs__gp_flush): until then `pending` is 1 and DIR/file is the
 * empty placeholder created for it, identified by (dev, ino). */
typedef struct cs__plot {
    char file[256];    /* PNG file name inside DIR */
    char alt[256];     /* image alt text */
    char caption[768]; /* one-line caption */
    int pending;       /* 1: script written, not yet drawn */
    unsigned long long dev, ino; /* the placeholder PNG gnuplot must fill */
} cs__plot_t;

typedef struct cs__plots {
    cs__plot_t *p; /* plots */
    size_t n;      /* used */
    size_t cap;    /* allocated */
} cs__plots_t;

int cs__gp_find(cs__gp_t *g);
int cs__gp_exec(const cs__gp_t *g, const char *a1, const char *a2);
FILE *cs__gp_begin(const cs__gp_t *g, const char *base, int w, int h);
void cs__gp_abort(const cs__gp_t *g, FILE *f, const char *base);
int cs__gp_end(const cs__gp_t *g, FILE *f, const char *base, cs__plots_t *plots, const char *alt,
               const char *caption);
int cs__gp_flush(const cs__gp_t *g, cs__plots_t *plots);
void cs__gp_discard(const cs__gp_t *g, cs__plots_t *plots);
FILE *cs__open_out(const char *dir, const char *name);
int cs__close_out(FILE *f, const char *dir, const char *name);

/* ---- run files (cs_report_runs.c) --------------------------------------- */

/* Fire delays of one agent kind: a dense histogram of small delays plus a
 * list of the rare large ones. */
typedef struct cs__dhist {
    uint64_t *cnt; /* cnt[d] = fires with delay d, for d < ncnt */
    size_t ncnt;   /* entries of cnt (grows to the largest small delay + 1) */
    uint32_t *big; /* delays >= CS__DENSE_DELAYS */
    size_t nbig;   /* used entries of big */
    size_t capbig; /* allocated entries of big */
    uint64_t total; /* fires counted */
    uint32_t max;  /* largest delay */
} cs__dhist_t;

typedef struct cs__rep_run {
    const char *path;       /* input path (argv, not owned) */
    char label[128];        /* legend / column label, unique among the runs */
    char *mechanism;        /* root attribute mechanism */
    char *scenario_json;    /* root attribute scenario_json */
    char *scenario_name;    /* "name" of scenario_json, "" if none */
    char *cowsim_version;   /* root attribute cowsim_version */
    char *git_commit;       /* root attribute git_commit */
    char *fires_mode;       /* root attribute fires_mode ("all" if absent) */
    uint64_t fires_every;   /* root attribute fires_sample_every (1 if absent) */
    uint64_t seed;          /* root attribute seed */
    int complete;           /* root attribute complete */
    uint64_t nblocks;       /* rows of /blocks */
    uint64_t bf_bin;        /* blocks per basefee point */
    uint64_t util_bin;      /* blocks per utilisation point */
    double bf_min;          /* smallest basefee point written */
    double bf_max;          /* largest basefee point written */
    size_t w_samples;       /* /weights sample heights */
    cs__dhist_t delay[CS_AGENT_KIND_COUNT]; /* fire delays per agent kind */
    cs_metrics_t met;       /* cs_metrics_compute of this file */
    cs_steady_t ss;         /* cs_steady_compute of this file */
} cs__rep_run_t;

int cs__dhist_add(cs__dhist_t *h, uint32_t d);
void cs__rep_run_free(cs__rep_run_t *r);
int cs__rep_h5_fail(const char *path, int rc);
int cs__run_weights(cs__rep_run_t *r, cs_h5_reader_t *rd, const char *name, const char *dir);
int cs__rep_run_load(cs__rep_run_t *r, size_t idx, const char *dir);
void cs__run_labels(cs__rep_run_t *runs, size_t n);
int cs__run_metrics(cs__rep_run_t *runs, size_t n, int ss_mode, uint64_t burn_in);

/* ---- run plots and bar charts (cs_report_plots.c) ----------------------- */

void cs__style(FILE *f, size_t i, size_t n, double lw);
int cs__delay_axis(FILE *f, uint32_t max, double *shift, double *xend);
int cs__write_cdf(const char *dir, const char *name, const cs__dhist_t *h, double shift, double xend);
/* Whether run r is priced per slot at schedule time (slot-booking): its
 * basefee plot line is the slot base price (issue 28). */
int cs__rep_slot_priced(const cs__rep_run_t *r);
int cs__plot_basefee(const cs__gp_t *g, const cs__rep_run_t *runs, size_t n, cs__plots_t *plots);
int cs__plot_util(const cs__gp_t *g, const cs__rep_run_t *runs, size_t n, cs__plots_t *plots);
int cs__plot_delays(const cs__gp_t *g, const cs__rep_run_t *runs, size_t n, cs__plots_t *plots);
int cs__plot_weights(const cs__gp_t *g, const cs__rep_run_t *runs, size_t n, cs__plots_t *plots);
int cs__plot_revenue(const cs__gp_t *g, const cs__rep_run_t *runs, size_t n, cs__plots_t *plots);
int cs__plot_bars(const cs__gp_t *g, const char *base, const char *metric, char (*lab)[128], const double *mean,
                  const double *lo, const double *hi, size_t n, const char *ivdesc, cs__plots_t *plots);
int cs__plot_metric_bars(const cs__gp_t *g, const cs__rep_run_t *runs, size_t n, cs__plots_t *plots);

/* ---- multi-seed run directories (cs_report_runs.c) ---------------------- */

typedef struct cs__seedrun {
    const char *path;   /* input directory (argv, not owned) */
    cs_seeds_set_t set; /* its run files and their metrics */
    cs_stat_ci_t *ci;   /* CS__NBAR x set.nm: mean and t interval of bar metric k, mechanism m at [k * nm + m] */
} cs__seedrun_t;

void cs__seedrun_free(cs__seedrun_t *s);
int cs__seedrun_load(cs__seedrun_t *s);
int cs__seedrun_plot(const cs__gp_t *g, cs__seedrun_t *s, const char *prefix, cs__plots_t *plots);
/* cs_report_seeds.c: the banded series, pooled distributions and the paid
 * decomposition of a loaded multi-seed run directory. */
int cs__seedrun_figures(const cs__gp_t *g, const cs__seedrun_t *s, const char *prefix, cs__plots_t *plots);

/* ---- sweep summaries (cs_report_sweep.c) -------------------------------- */

typedef struct cs__scol {
    char *name;   /* column (compound member) name */
    int is_str;   /* 1: string column (str), 0: numeric (num) */
    double *num;  /* nrows values (numeric columns) */
    char **str;   /* nrows malloc'd strings (string columns) */
} cs__scol_t;

typedef struct cs__sweep {
    const char *path;   /* input path (argv, not owned) */
    char *name;         /* root attribute name (or the file name) */
    char *version;      /* root attribute cowsim_version ("" if absent) */
    char *commit;       /* root attribute git_commit ("" if absent) */
    char *base_name;    /* "name" of the base scenario ("" if unknown) */
    uint64_t blocks;    /* blocks per run: the /runs column blocks when constant, else the
                           base scenario's "blocks" (0 if unknown or varying) */
    size_t nrows;       /* rows of /runs */
    size_t ncols;       /* columns of /runs */
    cs__scol_t *col;    /* the columns */
    int c_point;        /* index of column point, or -1 */
    int c_seed;         /* index of column seed, or -1 */
    int c_mech;         /* index of column mechanism, or -1 */
    size_t p0;          /* first swept-parameter column */
    size_t np;          /* swept-parameter columns: [p0, p0 + np) */
    char **plabel;      /* np display names: the scenario paths of sweep_json, else the column names */
    char *design;       /* root attribute design ("grid", "sobol", "single"; "" if absent) */
    int complete;       /* root attribute complete (1 if absent) */
    int metric_col[CS_M__COUNT]; /* column of each run-level metric, -1 if absent */
} cs__sweep_t;

/* Mechanisms of a sweep in order of first appearance in /runs. */
typedef struct cs__names {
    const char **v; /* names (pointers into the sweep's columns) */
    size_t n;       /* count */
} cs__names_t;

void cs__sweep_free(cs__sweep_t *s);
int cs__sweep_open(cs__sweep_t *s);
int cs__distinct_str(char **strs, size_t n, cs__names_t *out);
int cs__mean_ci(const double *x, size_t n, double *mean, double *lo, double *hi, char *kind);
int cs__varies(const cs__sweep_t *s, int mc, double *only);
double cs__row_point(const cs__sweep_t *s, size_t i);
size_t cs__ref_row(const cs__sweep_t *s, size_t r, const char *ref);
int cs__pair_ci(const cs__sweep_t *s, int mc, const size_t *pr, const size_t *pu, size_t n, double *a,
                double *b, cs_stat_ci_t *ci);
int cs__plot_sweep(const cs__gp_t *g, const cs__sweep_t *s, const char *prefix, cs__plots_t *plots);
int cs__plot_sweep_diff(const cs__gp_t *g, const cs__sweep_t *s, const char *prefix, const char *refname,
                        cs__plots_t *plots);
int cs__plot_point(const cs__gp_t *g, const cs__sweep_t *s, const char *prefix, const char *spec,
                   const char *series, cs__plots_t *plots);

/* ---- report.md (cs_report_tables.c) ------------------------------------- */

void cs__md_plots(FILE *f, const cs__plots_t *pl, size_t from, size_t to, size_t *fig);
/* The report.md sections below return 0, or -1 when out of memory (said on
 * stderr): the report is then not published (exit 3). */
int cs__md_runs(FILE *f, const cs__rep_run_t *runs, size_t n);
int cs__md_seedrun(FILE *f, const cs__seedrun_t *s, const cs__plots_t *pl, size_t from, size_t to,
                   size_t *fig);
int cs__md_sweep(FILE *f, const cs__sweep_t *s, const char *refname, const cs__plots_t *pl, size_t from,
                 size_t dfrom, size_t to, size_t *fig);
int cs__md_title(FILE *f, const cs__rep_run_t *runs, size_t nr, const cs__sweep_t *sw, size_t ns,
                 const cs__seedrun_t *sr);

#endif
