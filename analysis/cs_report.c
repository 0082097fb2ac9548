/*
 * cs_report.c -- `cowsim report RUN.h5|SWEEP.h5 ... [-o DIR]` (DESIGN §5
 * CLI, §6 metrics, §7 calibration studies): DIR/report.md with a metrics
 * table and PNG plots.
 *
 * Inputs.  Each argument is either a run file (sim/cs_h5.h; one per
 * mechanism, as `cowsim run` writes them) or a sweep summary (the
 * DIR/sweep.h5 of `cowsim sweep`, recognised by its /runs table,
 * analysis/cs_sweep.h).  Runs of different mechanisms on the same scenario
 * share axes in every plot; each sweep gets its own section.
 *
 * Plots.  gnuplot draws them: this module writes, into DIR, one script
 * NAME.gp per plot and plain whitespace-separated data files, then runs
 * `gnuplot NAME.gp` as a child process (working directory DIR) to make
 * NAME.png.  The scripts and data stay in DIR so a plot can be restyled and
 * redrawn by hand.  gnuplot's messages go to DIR/gnuplot.log.  The PNG
 * terminal is pngcairo when this gnuplot has it, else png (libgd).
 *   runs:   basefee.png (lane basefee per height), utilisation.png
 *           (lane utilisation per height, block-binned means),
 *           delay_cdf_<kind>.png (empirical CDF of fire delay per agent
 *           kind), weights.png (W(actor) p10/p50/p90 per /weights sample),
 *           revenue.png (burn / tips / payments per run), bars_<metric>.png
 *           (one bar chart per fairness and welfare metric across runs);
 *   multi-seed run directories (RUNDIR/seed-<s>/<m>.h5): seeds_bars_<metric>.png,
 *           means over the seeds with 95 % Student-t whiskers;
 *   sweeps: <prefix>_<param>__<metric>.png, each run-level metric against
 *           each swept parameter, one line per mechanism and per value of
 *           every other swept parameter (never averaged over them): mean
 *           over seeds with a 95 % interval (BCa bootstrap from 10 runs
 *           per point, Student-t below; cs_stats.h).
 *
 * Numbers.  The metrics table holds cs_metrics_compute's values for the
 * same greedy pairing as `cowsim compare` (cs_metrics_find_greedy), in
 * compare's row order, each printed to 6 significant digits ("%.6g",
 * cs__fmt_num: a report is read, not parsed; `cowsim compare --json`
 * gives the exact values).
 *
 * Exit codes (DESIGN §2.9): 0 ok; 2 bad usage or an input that is not a run
 * or sweep file; 3 a missing or unreadable input, an output directory that
 * cannot be written, gnuplot missing (it is a declared run-time dependency,
 * DESIGN §1) or failing.
 */
#include "cs_exit.h"
#include "cs_report.h"
#include "cs_error.h"
#include "cs_h5.h"
#include "cs_mech.h"
#include "cs_metrics.h"
#include "cs_publish.h"
#include "cs_seeds.h"
#include "cs_stats.h"
#include "cs_steady.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_statistics_double.h>
#include <hdf5.h>

#define CS__NUM_NAN "-"            /* table text of NaN / absent (compare --json: null) */
#define CS__CHUNK_ROWS 8192        /* rows read per HDF5 call when streaming */
#define CS__BASEFEE_POINTS 4000    /* at most this many basefee points per run */
#define CS__UTIL_POINTS 200        /* utilisation is shown as this many bin means */
#define CS__DENSE_DELAYS 65536u    /* delays below this are histogrammed densely */
#define CS__NAN ((double)NAN) /* NaN as a double (NAN is a float) */
#define CS__BOOT_LEVEL 0.95        /* interval level */
#define CS__BOOT_SEED 20261121u    /* fixed: the same report every time */
#define CS__PATH_MAX 4352          /* buffer for DIR/file paths */

/* Category-10 colours; run i draws in colour i % 10 with dash type i / 10 + 1. */
static const char *const cs__colors[10] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/* Run-level metric names, indexed by CS_M_*. */
static const char *const cs__mnames[CS_M__COUNT] = {
#define CS__METRIC_NAME(name, doc) #name,
    CS_METRIC_MAP(CS__METRIC_NAME)
#undef CS__METRIC_NAME
};

/* ---- small helpers ---------------------------------------------------- */

/* Print the usage text to f. */
static void cs__report_usage(FILE *f)
{
    fprintf(f, "usage: cowsim report RUN.h5|SWEEP.h5|RUNDIR ... [-o DIR] [--ref MECHANISM] [--burn-in N|--no-warmup]\n"
               "  Writes DIR/report.md and PNG plots (drawn by gnuplot) for run files of\n"
               "  `cowsim run` and sweep summaries (sweep.h5) of `cowsim sweep`.\n"
               "  Runs of different mechanisms on the same scenario share axes.\n"
               "  DIR defaults to the directory of the first input.  The gnuplot scripts\n"
               "  (*.gp) and data files (*.dat) stay in DIR.  A sweep with several mechanisms\n"
               "  gets paired differences against --ref (default its first mechanism) on the\n"
               "  same seed, with Student-t and BCa intervals.  Run files get a steady-state\n"
               "  table: warm-up cut by MSER-5 (or --burn-in N, or nothing with --no-warmup),\n"
               "  per-block means with 95 %% batch-means intervals.  One bar chart per fairness\n"
               "  and welfare metric across mechanisms; RUNDIR (a multi-seed run): means over\n"
               "  the seeds with 95 %% t-interval whiskers.  --point P (a point index, or\n"
               "  param=value[,...]) with a sweep: per-block basefee and backlog and the W\n"
               "  quantiles of every run of that point (--series basefee,backlog,w_p10,w_p50,w_p90).\n");
}

/* malloc'd copy of s (NULL stays NULL); NULL on allocation failure too. */
static char *cs__strdup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}


/* Copy src into dst (cap bytes) keeping [A-Za-z0-9._-] and turning every
 * other byte into '_', so the result is a safe file-name part. */
static void cs__sanitize(char *dst, size_t cap, const char *src)
{
    size_t j = 0;
    for (size_t i = 0; src[i] && j + 1 < cap; i++) {
        char c = src[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                 c == '-' || c == '_';
        dst[j++] = ok ? c : '_';
    }
    dst[j] = '\0';
}

/* Write s to f as a gnuplot single-quoted string ('' stands for '). */
static void cs__gp_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', f);
        if (*s == '\n' || *s == '\r') continue;
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* Format value v for report.md: 6 significant digits ("%.6g"; integers
 * below 10^6 print exactly).  NaN and infinities, which `cowsim compare
 * --json` writes as JSON null, print as CS__NUM_NAN (compare's text table
 * shows "-" too). */
static const char *cs__fmt_num(char *buf, size_t cap, double v)
{
    if (!isfinite(v)) snprintf(buf, cap, "%s", CS__NUM_NAN);
    else snprintf(buf, cap, "%.6g", v);
    return buf;
}

/* Write v to a data file: "NaN" (which gnuplot skips) for non-finite. */
static void cs__dat_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, " %.10g", v);
    else fputs(" NaN", f);
}

/* Markdown-escape s into f for a table cell ('|' and newlines). */
static void cs__md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else if (*s == '\n' || *s == '\r') fputc(' ', f);
        else fputc(*s, f);
    }
}

/* qsort comparators: doubles ascending (total order on the values, NaN
 * never reaches them); uint32 ascending. */
static int cs__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cs__cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Growable array of doubles. */
typedef struct cs__dvec {
    double *v;  /* values */
    size_t n;   /* used */
    size_t cap; /* allocated */
} cs__dvec_t;

/* Append x; returns 0 or -1 when out of memory. */
static int cs__dvec_push(cs__dvec_t *d, double x)
{
    if (d->n == d->cap) {
        size_t nc = d->cap ? 2 * d->cap : 64;
        double *p = realloc(d->v, nc * sizeof *p);
        if (!p) return -1;
        d->v = p;
        d->cap = nc;
    }
    d->v[d->n++] = x;
    return 0;
}

/* ---- gnuplot ------------------------------------------------------------ */

typedef struct cs__gp {
    char exe[4096];          /* absolute path of the gnuplot executable */
    const char *dir;         /* output directory (the child's working directory) */
    char log[CS__PATH_MAX];  /* DIR/gnuplot.log: the child's stderr */
    int cairo;               /* 1: pngcairo terminal, 0: png (libgd) */
} cs__gp_t;

/* Find gnuplot on PATH into g->exe.  Returns 0, or -1 if there is none. */
static int cs__gp_find(cs__gp_t *g)
{
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/bin:/bin";
    const char *p = path;
    while (*p) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > 0 && len + 10 < sizeof g->exe) {
            memcpy(g->exe, p, len);
            memcpy(g->exe + len, "/gnuplot", 9);
            struct stat sb;
            if (stat(g->exe, &sb) == 0 && S_ISREG(sb.st_mode) && access(g->exe, X_OK) == 0) return 0;
        }
        if (!e) break;
        p = e + 1;
    }
    g->exe[0] = '\0';
    return -1;
}

/*
 * Run gnuplot with arguments args (NULL-terminated, args[0] unused) in
 * g->dir, stdin and stdout on /dev/null, stderr appended to g->log.
 * Returns gnuplot's exit status, or -1 if it could not be started.
 */
static int cs__gp_exec(const cs__gp_t *g, const char *a1, const char *a2)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int nul = open("/dev/null", O_RDWR);
        int lg = open(g->log, O_WRONLY | O_CREAT | O_APPEND, 0666);
        if (nul >= 0) {
            dup2(nul, 0);
            dup2(nul, 1);
        }
        if (lg >= 0) dup2(lg, 2);
        if (chdir(g->dir) != 0) _exit(126);
        char *args[4] = {(char *)"gnuplot", (char *)a1, (char *)a2, NULL};
        execv(g->exe, args);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    if (WIFEXITED(st)) return WEXITSTATUS(st) == 127 ? -1 : WEXITSTATUS(st);
    return 128 + WTERMSIG(st);
}

/* Plots of the report, in order. */
typedef struct cs__plot {
    char file[256];    /* PNG file name inside DIR */
    char alt[256];     /* image alt text */
    char caption[768]; /* one-line caption */
} cs__plot_t;

typedef struct cs__plots {
    cs__plot_t *p; /* plots */
    size_t n;      /* used */
    size_t cap;    /* allocated */
} cs__plots_t;

/* Begin plot `base`: create DIR/base.gp with the terminal and output lines
 * and common settings.  Returns the open script or NULL (errno set). */
static FILE *cs__gp_begin(const cs__gp_t *g, const char *base, int w, int h)
{
    char path[CS__PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.gp", g->dir, base);
    FILE *f = fopen(path, "w");
    if (!f) return NULL;
    fprintf(f, "# %s.gp -- generated by cowsim report; run `gnuplot %s.gp` in this directory.\n", base, base);
    if (g->cairo) fprintf(f, "set terminal pngcairo noenhanced size %d,%d font 'sans,10'\n", w, h);
    else fprintf(f, "set terminal png noenhanced size %d,%d\n", w, h);
    fprintf(f, "set output '%s.png'\n", base);
    fprintf(f, "set grid lc rgb '#dddddd'\nset border lc rgb '#444444'\nset key noautotitle\n");
    return f;
}

/*
 * Close script f of plot `base`, run gnuplot on it and check that
 * DIR/base.png was written; then record it with alt text and caption in
 * plots.  Returns 0, or CS_EXIT_IO with a message on stderr.
 */
static int cs__gp_end(const cs__gp_t *g, FILE *f, const char *base, cs__plots_t *plots, const char *alt,
                      const char *caption)
{
    char path[CS__PATH_MAX];
    int werr = ferror(f);
    if (fclose(f) != 0 || werr) {
        fprintf(stderr, "cowsim report: cannot write %s/%s.gp\n", g->dir, base);
        return CS_EXIT_IO;
    }
    snprintf(path, sizeof path, "%s.gp", base);
    int rc = cs__gp_exec(g, path, NULL);
    snprintf(path, sizeof path, "%s/%s.png", g->dir, base);
    struct stat sb;
    if (rc != 0 || stat(path, &sb) != 0 || sb.st_size == 0) {
        fprintf(stderr, "cowsim report: gnuplot (%s) failed on %s/%s.gp (exit %d); see %s\n", g->exe, g->dir,
                base, rc, g->log);
        return CS_EXIT_IO;
    }
    if (plots->n == plots->cap) {
        size_t nc = plots->cap ? 2 * plots->cap : 16;
        cs__plot_t *p = realloc(plots->p, nc * sizeof *p);
        if (!p) {
            fprintf(stderr, "cowsim report: out of memory\n");
            return CS_EXIT_IO;
        }
        plots->p = p;
        plots->cap = nc;
    }
    cs__plot_t *pl = &plots->p[plots->n++];
    snprintf(pl->file, sizeof pl->file, "%s.png", base);
    snprintf(pl->alt, sizeof pl->alt, "%s", alt);
    snprintf(pl->caption, sizeof pl->caption, "%s", caption);
    return 0;
}

/* Open DIR/name for writing; on failure print a message naming it. */
static FILE *cs__open_out(const char *dir, const char *name)
{
    char path[CS__PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "cowsim report: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

/* Close a data file; CS_EXIT_IO with a message if any write failed. */
static int cs__close_out(FILE *f, const char *dir, const char *name)
{
    int werr = ferror(f);
    if (fclose(f) != 0 || werr) {
        fprintf(stderr, "cowsim report: cannot write %s/%s\n", dir, name);
        return CS_EXIT_IO;
    }
    return 0;
}

/* ---- run files ---------------------------------------------------------- */

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

/* Count one fire with delay d.  Returns 0 or -1 when out of memory. */
static int cs__dhist_add(cs__dhist_t *h, uint32_t d)
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

typedef struct cs__run {
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
} cs__run_t;

/* Free what r owns. */
static void cs__run_free(cs__run_t *r)
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
static int cs__h5_fail(const char *path, int rc)
{
    const char *m = cs_h5_last_error();
    if (rc == CS_ENOMEM) fprintf(stderr, "cowsim report: %s: out of memory (%s)\n", path, m && *m ? m : "reading");
    else fprintf(stderr, "cowsim report: %s: %s\n", path, m && *m ? m : cs_strerror(rc));
    return rc == CS_EPARSE ? CS_EXIT_USAGE : CS_EXIT_IO;
}

/*
 * Stream /blocks of run r (index idx) into two data files:
 *   run<idx>_basefee.dat: "height basefee_lane", bin means over r->bf_bin
 *     blocks (1 when the run has at most CS__BASEFEE_POINTS blocks);
 *   run<idx>_util.dat: "height utilisation", means over r->util_bin
 *     blocks, the height being the bin's centre.
 * Returns 0 or an exit code with a message.
 */
static int cs__run_blocks(cs__run_t *r, cs_h5_reader_t *rd, size_t idx, const char *dir)
{
    uint64_t n = 0;
    int rc = cs_h5_nrows(rd, CS_H5_BLOCKS, &n);
    if (rc != CS_OK) return cs__h5_fail(r->path, rc);
    r->nblocks = n;
    r->bf_bin = n > CS__BASEFEE_POINTS ? (n + CS__BASEFEE_POINTS - 1) / CS__BASEFEE_POINTS : 1;
    r->util_bin = n > CS__UTIL_POINTS ? (n + CS__UTIL_POINTS - 1) / CS__UTIL_POINTS : 1;
    r->bf_min = INFINITY;
    r->bf_max = -INFINITY;
    char nb[64], nu[64];
    snprintf(nb, sizeof nb, "run%zu_basefee.dat", idx + 1);
    snprintf(nu, sizeof nu, "run%zu_util.dat", idx + 1);
    FILE *fb = cs__open_out(dir, nb);
    FILE *fu = fb ? cs__open_out(dir, nu) : NULL;
    if (!fb || !fu) {
        if (fb) fclose(fb);
        return CS_EXIT_IO;
    }
    fprintf(fb, "# %s (%s): height, lane basefee (mean over %llu-block bins)\n", r->label, r->path,
            (unsigned long long)r->bf_bin);
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
            bsum += b->basefee_lane.f;
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
    if (rc != CS_OK) return cs__h5_fail(r->path, rc);
    return e1 ? e1 : e2;
}

/* Stream /fires of r into the per-kind delay histograms.  Returns 0 or an
 * exit code with a message. */
static int cs__run_fires(cs__run_t *r, cs_h5_reader_t *rd)
{
    uint64_t n = 0;
    int rc = cs_h5_nrows(rd, CS_H5_FIRES, &n);
    if (rc != CS_OK) return cs__h5_fail(r->path, rc);
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
    if (rc != CS_OK) return cs__h5_fail(r->path, rc);
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
static int cs__run_weights(cs__run_t *r, cs_h5_reader_t *rd, const char *name, const char *dir)
{
    uint64_t n = 0;
    int rc = cs_h5_nrows(rd, CS_H5_WEIGHTS, &n);
    if (rc != CS_OK) return cs__h5_fail(r->path, rc);
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
    if (rc != CS_OK) return cs__h5_fail(r->path, rc);
    return e;
}

/* Read run file r->path: root attributes, then the three data streams.
 * Returns 0 or an exit code with a message. */
static int cs__run_load(cs__run_t *r, size_t idx, const char *dir)
{
    int err = CS_OK;
    cs_h5_reader_t *rd = cs_h5_open_read(r->path, &err);
    if (!rd) return cs__h5_fail(r->path, err);
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

/* Make labels unique: a mechanism that appears more than once is labelled
 * "mech seed N" when the seeds differ, else "mech [file name]". */
static void cs__run_labels(cs__run_t *runs, size_t n)
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
            const char *b = strrchr(runs[i].path, '/');
            snprintf(runs[i].label, sizeof runs[i].label, "%s [%s]", runs[i].mechanism, b ? b + 1 : runs[i].path);
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
static int cs__run_metrics(cs__run_t *runs, size_t n, int ss_mode, uint64_t burn_in)
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
                return rc == CS_EINVAL || rc == CS_EPARSE ? CS_EXIT_USAGE : CS_EXIT_IO;
            }
        }
        if (rc != CS_OK) {
            fprintf(stderr, "cowsim report: %s: %s\n", runs[i].path, err[0] ? err : cs_strerror(rc));
            return rc == CS_EIO || rc == CS_ENOMEM ? CS_EXIT_IO : CS_EXIT_USAGE;
        }
    }
    return 0;
}

/* Line style of run i of n: colour, dash type and a width that shrinks from
 * lw + 1.6 (first run) to lw (last), so a run whose line coincides with a
 * later one still shows as a rim around it. */
static void cs__style(FILE *f, size_t i, size_t n, double lw)
{
    double w = n > 1 ? lw + 1.6 * (double)(n - 1 - i) / (double)(n - 1) : lw;
    fprintf(f, " lc rgb '%s' dt %zu lw %.2f", cs__colors[i % 10], i / 10 + 1, w);
}

/* Whether run r's mechanism charges the lane basefee (CIP-1 rev §5): only
 * fee mechanisms (CS_MF_FEES) update it; for the others /blocks records
 * the constant initial value, which is no price anyone paid. */
static int cs__has_lane_basefee(const cs__run_t *r)
{
    const cs_mech_ops_t *m = r->mechanism ? cs_mech_find_any(r->mechanism) : NULL;
    return r->nblocks > 0 && m && (m->flags & CS_MF_FEES);
}

/* Plot the lane basefee of every run whose mechanism has one, on one axes. */
static int cs__plot_basefee(const cs__gp_t *g, const cs__run_t *runs, size_t n, cs__plots_t *plots)
{
    double lo = INFINITY, hi = -INFINITY;
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
    fprintf(f, "set title 'Lane basefee per block'\nset xlabel 'block height'\n");
    fprintf(f, "set ylabel 'lane basefee (base units per cycle%s)'\n", logy ? ", log scale" : "");
    if (logy) fprintf(f, "set logscale y\nset format y '1e%%L'\n");
    fprintf(f, "set key outside right top\nplot");
    for (size_t i = 0, k = 0; i < n; i++) {
        if (!cs__has_lane_basefee(&runs[i])) continue;
        fprintf(f, "%s 'run%zu_basefee.dat' using 1:2 with lines", k++ ? ", \\\n    " : " ", i + 1);
        cs__style(f, i, n, 1.0);
        fputs(" title ", f);
        cs__gp_quote(f, runs[i].label);
    }
    fputc('\n', f);
    char cap[768];
    snprintf(cap, sizeof cap,
             "Lane basefee (CIP-1 rev §5) per block height, one line per run whose mechanism charges it "
             "(eip1559, gba-tip)%s%s; coinciding runs overlap.",
             logy ? ", log scale" : "", bin > 1 ? " (long runs: means over bins of blocks)" : "");
    return cs__gp_end(g, f, "basefee", plots, "lane basefee over height", cap);
}

/* Plot the lane utilisation of every run on one axes (bin means). */
static int cs__plot_util(const cs__gp_t *g, const cs__run_t *runs, size_t n, cs__plots_t *plots)
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

/* Write the empirical CDF of h to DIR/name: "x F" points for a `steps`
 * plot: a leading (first, 0), one point per distinct delay, and a trailing
 * (xend, 1).  x is delay + shift. */
static int cs__write_cdf(const char *dir, const char *name, const cs__dhist_t *h, double shift, double xend)
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
static int cs__plot_delays(const cs__gp_t *g, const cs__run_t *runs, size_t n, cs__plots_t *plots)
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
        int logx = max > 50;
        double shift = logx ? 1 : 0;
        double xend = logx ? ((double)max + 1) * 1.15 : (double)max + 1;
        char base[128];
        snprintf(base, sizeof base, "delay_cdf_%s", kn);
        FILE *f = cs__gp_begin(g, base, 1000, 660);
        if (!f) return CS_EXIT_IO;
        fprintf(f, "set title 'Fire delay CDF: agent kind %s'\n", kn);
        if (logx) {
            fprintf(f, "set logscale x\nset xrange [1:%.10g]\n", xend);
            cs__delay_ticks(f, max);
            fprintf(f, "set xlabel 'delay = fire height - due height (blocks; log scale of delay + 1)'\n");
        } else {
            fprintf(f, "set xrange [-0.5:%.10g]\n", xend);
            fprintf(f, "set xlabel 'delay = fire height - due height (blocks)'\n");
        }
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
                fclose(f);
                return rc;
            }
            char title[256];
            double cens = runs[i].met.kind_present[k] ? runs[i].met.k[k][CS_KM_censored] : CS__NAN;
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
static int cs__plot_weights(const cs__gp_t *g, const cs__run_t *runs, size_t n, cs__plots_t *plots)
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
static int cs__plot_revenue(const cs__gp_t *g, const cs__run_t *runs, size_t n, cs__plots_t *plots)
{
    static const int mi[3] = {CS_M_burn, CS_M_tips, CS_M_payments};
    double lo = INFINITY, hi = 0;
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
            cs__dat_num(d, logy && !(v > 0) ? CS__NAN : v);
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
static const int cs__bar_metrics[] = {CS_M_welfare,      CS_M_efficiency, CS_M_poa,
                                      CS_M_utility,      CS_M_jain,       CS_M_gini,
                                      CS_M_var_util_per_bid, CS_M_var_eff_per_bid};
#define CS__NBAR (sizeof cs__bar_metrics / sizeof cs__bar_metrics[0])

/*
 * One bar chart `base`: bar i has height mean[i] and label lab[i]; with
 * lo/hi (may be NULL) a whisker from lo[i] to hi[i] (none where NaN).  Data
 * file base.dat: "index label mean lo hi".  Nothing is drawn (0 returned)
 * when every mean is NaN.  Returns 0 or an exit code with a message.
 */
static int cs__plot_bars(const cs__gp_t *g, const char *base, const char *metric, char (*lab)[128], const double *mean,
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
        double c[3] = {mean[i], lo ? lo[i] : CS__NAN, hi ? hi[i] : CS__NAN};
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
    snprintf(cap, sizeof cap, "%s per mechanism (analysis/README.md)%s%s.", metric, whiskers ? "; whiskers: " : "",
             whiskers ? ivdesc : "");
    return cs__gp_end(g, f, base, plots, alt, cap);
}

/* One bar chart per fairness and welfare metric across the runs (one bar
 * per run; no interval: a single run per mechanism). */
static int cs__plot_metric_bars(const cs__gp_t *g, const cs__run_t *runs, size_t n, cs__plots_t *plots)
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
        rc = cs__plot_bars(g, base, name, lab, v, NULL, NULL, n, "", plots);
    }
    if (!lab || !v) fprintf(stderr, "cowsim report: out of memory\n");
    free(lab);
    free(v);
    return rc;
}

/* ---- multi-seed run directories (cs_seeds.h) ----------------------------- */

typedef struct cs__seedrun {
    const char *path;   /* input directory (argv, not owned) */
    cs_seeds_set_t set; /* its run files and their metrics */
    cs_stat_ci_t *ci;   /* CS__NBAR x set.nm: mean and t interval of bar metric k, mechanism m at [k * nm + m] */
} cs__seedrun_t;

static void cs__seedrun_free(cs__seedrun_t *s)
{
    cs_seeds_free(&s->set);
    free(s->ci);
}

/*
 * Load multi-seed run directory s->path and draw one bar chart per
 * fairness and welfare metric: each mechanism's mean over the seeds with
 * its 95 % Student-t interval as whiskers (data files <prefix>_<metric>.dat).
 * Returns 0 or an exit code with a message.
 */
static int cs__seedrun_plot(const cs__gp_t *g, cs__seedrun_t *s, const char *prefix, cs__plots_t *plots)
{
    char err[4700];
    int rc = cs_seeds_load(s->path, &s->set, err, sizeof err);
    if (rc != CS_OK) {
        fprintf(stderr, "cowsim report: %s\n", err);
        return rc == CS_EIO || rc == CS_ENOMEM ? CS_EXIT_IO : CS_EXIT_USAGE;
    }
    size_t nm = s->set.nm, ns = s->set.ns;
    if (ns < 2)
        fprintf(stderr, "cowsim report: warning: %s has one seed: no intervals\n", s->path);
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
            c->b_lo = c->b_hi = CS__NAN;
            m[j] = c->mean;
            lo[j] = c->t_lo;
            hi[j] = c->t_hi;
        }
        char base[128], iv[96];
        snprintf(base, sizeof base, "%s_%s", prefix, cs__mnames[cs__bar_metrics[k]]);
        snprintf(iv, sizeof iv, "the 95 %% Student-t interval of the mean over %zu seeds", ns);
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

static void cs__md_plots(FILE *f, const cs__plots_t *pl, size_t from, size_t to, size_t *fig);

/* The report.md section of multi-seed run s: seeds, the table of means
 * with t intervals, its figures. */
static void cs__md_seedrun(FILE *f, const cs__seedrun_t *s, const cs__plots_t *pl, size_t from, size_t to,
                           size_t *fig)
{
    size_t nm = s->set.nm, ns = s->set.ns;
    fprintf(f, "## Multi-seed run `%s`\n\nScenario %s, %zu seeds (", s->path, s->set.scenario, ns);
    for (size_t i = 0; i < ns; i++) fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)s->set.seeds[i]);
    fprintf(f, ").  Mean over the seeds with its 95 %% Student-t interval, t(n-1, 0.975) s / sqrt(n); "
               "`cowsim compare %s` adds the paired differences between mechanisms with t and BCa intervals.\n\n",
            s->path);
    fprintf(f, "| metric |");
    for (size_t j = 0; j < nm; j++) fprintf(f, " %s |", s->set.mechs[j]);
    fprintf(f, "\n|---|");
    for (size_t j = 0; j < nm; j++) fputs("---:|", f);
    fputc('\n', f);
    for (size_t k = 0; k < CS__NBAR; k++) {
        fprintf(f, "| %s |", cs__mnames[cs__bar_metrics[k]]);
        for (size_t j = 0; j < nm; j++) {
            const cs_stat_ci_t *c = &s->ci[k * nm + j];
            if (isnan(c->mean)) fprintf(f, " %s |", CS__NUM_NAN);
            else if (isnan(c->t_lo)) fprintf(f, " %.6g |", c->mean);
            else fprintf(f, " %.6g [%.6g, %.6g] |", c->mean, c->t_lo, c->t_hi);
        }
        fputc('\n', f);
    }
    fputc('\n', f);
    cs__md_plots(f, pl, from, to, fig);
}

/* ---- sweep summaries ----------------------------------------------------- */

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

/* Free what s owns. */
static void cs__sweep_free(cs__sweep_t *s)
{
    for (size_t c = 0; c < s->ncols; c++) {
        free(s->col[c].name);
        free(s->col[c].num);
        if (s->col[c].str)
            for (size_t i = 0; i < s->nrows; i++) free(s->col[c].str[i]);
        free(s->col[c].str);
    }
    free(s->col);
    if (s->plabel)
        for (size_t p = 0; p < s->np; p++) free(s->plabel[p]);
    free(s->plabel);
    free(s->design);
    free(s->name);
    free(s->version);
    free(s->commit);
    free(s->base_name);
}

/* A root string attribute of file fid as a malloc'd string, or NULL if
 * absent or not a string. */
static char *cs__attr_str(hid_t fid, const char *name)
{
    if (H5Aexists(fid, name) <= 0) return NULL;
    hid_t a = H5Aopen(fid, name, H5P_DEFAULT);
    if (a < 0) return NULL;
    hid_t t = H5Aget_type(a);
    char *out = NULL;
    if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
        if (H5Tis_variable_str(t) > 0) {
            char *v = NULL;
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, H5T_VARIABLE);
            H5Tset_cset(mt, H5Tget_cset(t)); /* HDF5 will not convert UTF-8 <-> ASCII */
            if (H5Aread(a, mt, &v) >= 0 && v) {
                out = cs__strdup(v);
                H5free_memory(v);
            }
            H5Tclose(mt);
        } else {
            size_t sz = H5Tget_size(t);
            out = calloc(sz + 1, 1);
            if (out && H5Aread(a, t, out) < 0) {
                free(out);
                out = NULL;
            }
        }
    }
    if (t >= 0) H5Tclose(t);
    H5Aclose(a);
    return out;
}

/* Read member `name` of compound dataset ds (n rows) as doubles into out.
 * Returns 0 or -1. */
static int cs__read_num_member(hid_t ds, const char *name, size_t n, double *out)
{
    hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(double));
    if (mt < 0) return -1;
    int rc = H5Tinsert(mt, name, 0, H5T_NATIVE_DOUBLE) < 0 ||
                     (n > 0 && H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
                 ? -1
                 : 0;
    H5Tclose(mt);
    return rc;
}

/* Read string member `name` (file type ft) of ds (n rows) into out[n]
 * (malloc'd strings).  Returns 0 or -1. */
static int cs__read_str_member(hid_t ds, const char *name, hid_t ft, size_t n, char **out)
{
    if (n == 0) return 0;
    int rc = -1;
    if (H5Tis_variable_str(ft) > 0) {
        hid_t st = H5Tcopy(H5T_C_S1);
        H5Tset_size(st, H5T_VARIABLE);
        H5Tset_cset(st, H5Tget_cset(ft));
        hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(char *));
        char **v = calloc(n, sizeof *v);
        if (v && mt >= 0 && H5Tinsert(mt, name, 0, st) >= 0 &&
            H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) {
            rc = 0;
            for (size_t i = 0; i < n; i++) {
                out[i] = cs__strdup(v[i] ? v[i] : "");
                if (!out[i]) rc = -1;
            }
            hid_t sp = H5Dget_space(ds);
#if H5_VERSION_GE(1, 12, 0)
            H5Treclaim(mt, sp, H5P_DEFAULT, v);
#else
            H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, v);
#endif
            H5Sclose(sp);
        }
        free(v);
        if (mt >= 0) H5Tclose(mt);
        H5Tclose(st);
    } else {
        size_t sz = H5Tget_size(ft);
        hid_t st = H5Tcopy(ft);
        hid_t mt = H5Tcreate(H5T_COMPOUND, sz);
        char *buf = calloc(n, sz);
        if (buf && mt >= 0 && H5Tinsert(mt, name, 0, st) >= 0 &&
            H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0) {
            rc = 0;
            for (size_t i = 0; i < n; i++) {
                out[i] = calloc(sz + 1, 1);
                if (!out[i]) {
                    rc = -1;
                    continue;
                }
                memcpy(out[i], buf + i * sz, sz);
            }
        }
        free(buf);
        if (mt >= 0) H5Tclose(mt);
        H5Tclose(st);
    }
    return rc;
}

/* The run-level metric index whose name is s, or -1. */
static int cs__metric_index(const char *s)
{
    for (int i = 0; i < CS_M__COUNT; i++)
        if (strcmp(cs__mnames[i], s) == 0) return i;
    return -1;
}

/*
 * Load the /runs table of sweep file s->path (already known to have one):
 * every column, numeric ones as doubles and string ones as strings.  The
 * swept parameters are the columns between `mechanism` and the first
 * run-level metric column (cs_sweep.h: run_id, point, seed, mechanism,
 * parameters, metrics).  Returns 0 or an exit code with a message.
 */
static int cs__sweep_load(cs__sweep_t *s, hid_t fid)
{
    int rc = 0;
    hid_t ds = H5Dopen2(fid, "runs", H5P_DEFAULT);
    hid_t ft = ds >= 0 ? H5Dget_type(ds) : H5I_INVALID_HID;
    hid_t sp = ds >= 0 ? H5Dget_space(ds) : H5I_INVALID_HID;
    if (ft < 0 || sp < 0 || H5Tget_class(ft) != H5T_COMPOUND || H5Sget_simple_extent_ndims(sp) != 1) {
        fprintf(stderr, "cowsim report: %s: /runs is not a one-dimensional compound table\n", s->path);
        rc = CS_EXIT_USAGE;
        goto out;
    }
    char why[128];
    if (!cs_h5_row_type_ok(ft, why, sizeof why)) {
        fprintf(stderr, "cowsim report: %s: /runs: %s\n", s->path, why);
        rc = CS_EXIT_USAGE;
        goto out;
    }
    hsize_t dim = 0;
    H5Sget_simple_extent_dims(sp, &dim, NULL);
    s->nrows = (size_t)dim;
    int nm = H5Tget_nmembers(ft);
    s->ncols = nm > 0 ? (size_t)nm : 0;
    s->col = calloc(s->ncols ? s->ncols : 1, sizeof *s->col);
    if (!s->col) {
        rc = CS_EXIT_IO;
        goto out;
    }
    s->c_point = s->c_seed = s->c_mech = -1;
    for (int m = 0; m < CS_M__COUNT; m++) s->metric_col[m] = -1;
    int first_metric = -1;
    for (size_t c = 0; c < s->ncols && rc == 0; c++) {
        cs__scol_t *col = &s->col[c];
        char *nm5 = H5Tget_member_name(ft, (unsigned)c);
        col->name = cs__strdup(nm5 ? nm5 : "");
        if (nm5) H5free_memory(nm5);
        H5T_class_t cl = H5Tget_member_class(ft, (unsigned)c);
        if (!col->name) {
            rc = CS_EXIT_IO;
            break;
        }
        if (cl == H5T_STRING) {
            hid_t mt = H5Tget_member_type(ft, (unsigned)c);
            col->is_str = 1;
            col->str = calloc(s->nrows ? s->nrows : 1, sizeof *col->str);
            if (!col->str || cs__read_str_member(ds, col->name, mt, s->nrows, col->str) != 0) rc = CS_EXIT_IO;
            H5Tclose(mt);
        } else if (cl == H5T_INTEGER || cl == H5T_FLOAT) {
            col->num = calloc(s->nrows ? s->nrows : 1, sizeof *col->num);
            if (!col->num || cs__read_num_member(ds, col->name, s->nrows, col->num) != 0) rc = CS_EXIT_IO;
        } else {
            continue; /* other member types are neither parameters nor metrics */
        }
        if (rc) {
            fprintf(stderr, "cowsim report: %s: cannot read /runs column %s\n", s->path, col->name);
            break;
        }
        if (strcmp(col->name, "point") == 0) s->c_point = (int)c;
        else if (strcmp(col->name, "seed") == 0) s->c_seed = (int)c;
        else if (strcmp(col->name, "mechanism") == 0 && col->is_str) s->c_mech = (int)c;
        int mi = cs__metric_index(col->name);
        if (mi >= 0 && !col->is_str && s->c_mech >= 0) {
            s->metric_col[mi] = (int)c;
            if (first_metric < 0) first_metric = (int)c;
        }
    }
    if (rc == 0 && (s->c_mech < 0 || first_metric < 0)) {
        fprintf(stderr, "cowsim report: %s: /runs lacks a mechanism column or metric columns\n", s->path);
        rc = CS_EXIT_USAGE;
    }
    if (rc == 0) {
        s->p0 = (size_t)s->c_mech + 1;
        s->np = (size_t)first_metric - s->p0;
    }
out:
    if (sp >= 0) H5Sclose(sp);
    if (ft >= 0) H5Tclose(ft);
    if (ds >= 0) H5Dclose(ds);
    return rc;
}

static int cs__varies(const cs__sweep_t *s, int mc, double *only);

/* Open sweep file s->path and load its attributes and /runs.  Returns 0 or
 * an exit code with a message. */
static int cs__sweep_open(cs__sweep_t *s)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#if H5_VERSION_GE(1, 10, 7)
    H5Pset_file_locking(fapl, 0, 1);
#endif
    hid_t fid = H5Fopen(s->path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (fid < 0) {
        fprintf(stderr, "cowsim report: %s: cannot open as HDF5\n", s->path);
        return CS_EXIT_USAGE;
    }
    s->name = cs__attr_str(fid, "name");
    if (!s->name) {
        const char *b = strrchr(s->path, '/');
        s->name = cs__strdup(b ? b + 1 : s->path);
    }
    s->version = cs__attr_str(fid, "cowsim_version");
    s->commit = cs__attr_str(fid, "git_commit");
    char *base = cs__attr_str(fid, "base_json");
    if (!base) base = cs__attr_str(fid, "scenario_json");
    cJSON *j = base ? cJSON_Parse(base) : NULL;
    /* Out of memory parsing well-formed JSON (cs__json_wellformed) must not
     * pass for a base scenario without a name or design paths. */
    int oom = base && !j && cs__json_wellformed(base);
    const cJSON *nm = j ? cJSON_GetObjectItemCaseSensitive(j, "name") : NULL;
    const cJSON *bl = j ? cJSON_GetObjectItemCaseSensitive(j, "blocks") : NULL;
    s->base_name = cs__strdup(cJSON_IsString(nm) ? nm->valuestring : "");
    s->blocks = cJSON_IsNumber(bl) && bl->valuedouble > 0 ? (uint64_t)bl->valuedouble : 0;
    cJSON_Delete(j);
    free(base);
    if (!s->version) s->version = cs__strdup("");
    if (!s->commit) s->commit = cs__strdup("");
    s->design = cs__attr_str(fid, "design");
    if (!s->design) s->design = cs__strdup("");
    s->complete = 1;
    if (H5Aexists(fid, "complete") > 0) {
        hid_t a = H5Aopen(fid, "complete", H5P_DEFAULT);
        int v = 1;
        if (a >= 0 && H5Aread(a, H5T_NATIVE_INT, &v) >= 0) s->complete = v;
        if (a >= 0) H5Aclose(a);
    }
    int rc = cs__sweep_load(s, fid);
    if (rc == 0 && s->metric_col[CS_M_blocks] >= 0) {
        /* What ran (fixed overrides may change the base's "blocks"). */
        double only;
        int varies = cs__varies(s, s->metric_col[CS_M_blocks], &only);
        s->blocks = !varies && only > 0 ? (uint64_t)only : 0;
    }
    /* Display names of the parameters: the design's scenario paths, in the
     * order of the design object, which is the column order (cs_sweep.h). */
    char *sj = rc == 0 ? cs__attr_str(fid, "sweep_json") : NULL;
    cJSON *j2 = sj ? cJSON_Parse(sj) : NULL;
    if (sj && !j2 && cs__json_wellformed(sj)) oom = 1;
    if (rc == 0 && oom) {
        fprintf(stderr, "cowsim report: %s: out of memory\n", s->path);
        rc = CS_EXIT_IO;
    }
    const cJSON *des = j2 ? cJSON_GetObjectItemCaseSensitive(j2, "grid") : NULL;
    if (!cJSON_IsObject(des) && j2) {
        const cJSON *sob = cJSON_GetObjectItemCaseSensitive(j2, "sobol");
        des = sob ? cJSON_GetObjectItemCaseSensitive(sob, "ranges") : NULL;
    }
    int use_paths = cJSON_IsObject(des) && (size_t)cJSON_GetArraySize(des) == s->np;
    if (rc == 0) {
        s->plabel = calloc(s->np ? s->np : 1, sizeof *s->plabel);
        if (!s->plabel) rc = CS_EXIT_IO;
        for (size_t p = 0; rc == 0 && p < s->np; p++) {
            const cJSON *it = use_paths ? cJSON_GetArrayItem(des, (int)p) : NULL;
            s->plabel[p] = cs__strdup(it && it->string ? it->string : s->col[s->p0 + p].name);
            if (!s->plabel[p]) rc = CS_EXIT_IO;
        }
    }
    cJSON_Delete(j2);
    free(sj);
    H5Fclose(fid);
    return rc;
}

/* Mechanisms of a sweep in order of first appearance in /runs. */
typedef struct cs__names {
    const char **v; /* names (pointers into the sweep's columns) */
    size_t n;       /* count */
} cs__names_t;

/* Distinct values of string column strs (n rows), first appearance order;
 * returns 0 or -1 when out of memory. */
static int cs__distinct_str(char **strs, size_t n, cs__names_t *out)
{
    out->v = calloc(n ? n : 1, sizeof *out->v);
    out->n = 0;
    if (!out->v) return -1;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < out->n && strcmp(out->v[j], strs[i]) != 0) j++;
        if (j == out->n) out->v[out->n++] = strs[i];
    }
    return 0;
}

/* x position of row i on parameter column pc: the value itself for a
 * numeric parameter, the index of its category for a string one. */
static double cs__param_x(const cs__sweep_t *s, size_t pc, const cs__names_t *cats, size_t i)
{
    const cs__scol_t *c = &s->col[pc];
    if (!c->is_str) return c->num[i];
    for (size_t k = 0; k < cats->n; k++)
        if (strcmp(cats->v[k], c->str[i]) == 0) return (double)k;
    return CS__NAN;
}

/* Mean of x[0..n) and its CS__BOOT_LEVEL interval: BCa bootstrap
 * (cs_stat_bca_mean) from CS_STAT_BOOT_MIN_N values, Student-t below that,
 * none (NaN) for n < 2.  *kind (may be NULL) is 'b' (BCa), 't' or '-'.
 * Returns 0, or -1 when out of memory (the interval would be a NaN that is
 * not "too few values"). */
static int cs__mean_ci(const double *x, size_t n, double *mean, double *lo, double *hi, char *kind)
{
    cs_stat_ci_t c;
    if (cs_stat_ci(x, n, CS__BOOT_LEVEL, CS__BOOT_SEED, &c) != 0) return -1;
    *mean = c.mean;
    int boot = isfinite(c.b_lo);
    *lo = boot ? c.b_lo : c.t_lo;
    *hi = boot ? c.b_hi : c.t_hi;
    if (kind) *kind = boot ? 'b' : isfinite(c.t_lo) ? 't' : '-';
    return 0;
}

/* Whether metric column mc has finite values that are not all equal; *only
 * is the first finite value (NaN if there is none). */
static int cs__varies(const cs__sweep_t *s, int mc, double *only)
{
    int seen = 0, varies = 0;
    double v0 = CS__NAN;
    for (size_t i = 0; i < s->nrows; i++) {
        double v = s->col[mc].num[i];
        if (!isfinite(v)) continue;
        if (!seen) v0 = v;
        else if (v != v0) varies = 1;
        seen = 1;
    }
    *only = v0;
    return varies;
}

/* More combinations of the other swept parameters than this: each run is
 * drawn as a point (nothing averaged, no line through unrelated points). */
#define CS__MAX_LINES 12

/* 1 if rows i and j agree on every swept parameter but column pc. */
static int cs__same_others(const cs__sweep_t *s, size_t pc, size_t i, size_t j)
{
    for (size_t q = s->p0; q < s->p0 + s->np; q++) {
        const cs__scol_t *c = &s->col[q];
        if (q == pc) continue;
        if (c->is_str ? strcmp(c->str[i], c->str[j]) != 0
                      : !(c->num[i] == c->num[j] || (isnan(c->num[i]) && isnan(c->num[j]))))
            return 0;
    }
    return 1;
}

/* Label "path = value, ..." of the swept parameters but pc at row i. */
static void cs__group_label(const cs__sweep_t *s, size_t pc, size_t i, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t q = s->p0; q < s->p0 + s->np && len + 1 < cap; q++) {
        const cs__scol_t *c = &s->col[q];
        char num[64];
        if (q == pc) continue;
        int w = snprintf(buf + len, cap - len, "%s%s = %s", len ? ", " : "", s->plabel[q - s->p0],
                         c->is_str ? c->str[i] : cs__fmt_num(num, sizeof num, c->num[i]));
        if (w < 0) break;
        len += (size_t)w < cap - len ? (size_t)w : cap - len - 1;
    }
}

/* The groups of rows for parameter column pc: grp[i] is the group of row
 * i (rows equal on every other swept parameter), rep[g] its first row, in
 * order of first appearance.  Returns the number of groups. */
static size_t cs__groups(const cs__sweep_t *s, size_t pc, size_t *grp, size_t *rep)
{
    size_t ng = 0;
    for (size_t i = 0; i < s->nrows; i++) {
        size_t g = 0;
        while (g < ng && !cs__same_others(s, pc, rep[g], i)) g++;
        if (g == ng) rep[ng++] = i;
        grp[i] = g;
    }
    return ng;
}

/* Data file name of mechanism k (0-based), group gi of ng. */
static void cs__sweep_dat(char *buf, size_t cap, const char *prefix, const char *pname, size_t k, size_t gi,
                          size_t ng)
{
    if (ng <= 1) snprintf(buf, cap, "%s_%s_m%zu.dat", prefix, pname, k + 1);
    else snprintf(buf, cap, "%s_%s_m%zu_g%zu.dat", prefix, pname, k + 1, gi + 1);
}

/* x axis of a sweep plot against parameter column pcol: a tic per category
 * of a string parameter (cats), a small margin for a numeric one. */
static void cs__gp_xaxis(FILE *f, const cs__scol_t *pcol, const cs__names_t *cats)
{
    if (pcol->is_str) {
        fprintf(f, "set xtics (");
        for (size_t c = 0; c < cats->n; c++) {
            fprintf(f, "%s", c ? ", " : "");
            cs__gp_quote(f, cats->v[c]);
            fprintf(f, " %zu", c);
        }
        fprintf(f, ")\nset xrange [-0.5:%zu.5]\n", cats->n ? cats->n - 1 : 0);
    } else {
        fprintf(f, "set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n");
    }
}

/*
 * Sweep plots: each varying run-level metric against each swept parameter
 * p.  Nothing is averaged over the other swept parameters: one line per
 * mechanism and per combination of their values (a group), the mean over
 * the seeds of that point with its 95 % interval (cs__mean_ci).  With more
 * than CS__MAX_LINES groups (a Sobol design) every run is a point.  Data
 * files: <prefix>_<param>_m<k>.dat (one group) or _m<k>_g<g>.dat, columns
 * x, runs, then mean lo hi per plotted metric; the header names the group.
 */
static int cs__plot_sweep(const cs__gp_t *g, const cs__sweep_t *s, const char *prefix, cs__plots_t *plots)
{
    cs__names_t mechs = {0};
    if (cs__distinct_str(s->col[s->c_mech].str, s->nrows, &mechs) != 0) return CS_EXIT_IO;
    int plotted[CS_M__COUNT];
    double only[CS_M__COUNT];
    for (int m = 0; m < CS_M__COUNT; m++)
        plotted[m] = s->metric_col[m] >= 0 && cs__varies(s, s->metric_col[m], &only[m]);
    size_t nr = s->nrows ? s->nrows : 1;
    double *vals = malloc(nr * sizeof *vals), *xs = malloc(nr * sizeof *xs);
    size_t *grp = malloc(nr * sizeof *grp), *rep = malloc(nr * sizeof *rep);
    int rc = vals && xs && grp && rep ? 0 : CS_EXIT_IO, warned = 0;
    for (size_t p = 0; p < s->np && rc == 0; p++) {
        size_t pc = s->p0 + p;
        const cs__scol_t *pcol = &s->col[pc];
        cs__names_t cats = {0};
        if (pcol->is_str && cs__distinct_str(pcol->str, s->nrows, &cats) != 0) {
            rc = CS_EXIT_IO;
            break;
        }
        char pname[128];
        cs__sanitize(pname, sizeof pname, pcol->name);
        size_t ng = cs__groups(s, pc, grp, rep);
        int scatter = ng > CS__MAX_LINES;
        size_t nfile = scatter ? 1 : ng; /* data files per mechanism */
        char kinds[4] = "";              /* interval kinds used: 'b', 't' */
        for (size_t k = 0; k < mechs.n && rc == 0; k++) {
            for (size_t gi = 0; gi < nfile && rc == 0; gi++) {
                size_t nx = 0;
                for (size_t i = 0; i < s->nrows; i++) {
                    if (strcmp(s->col[s->c_mech].str[i], mechs.v[k]) != 0 || (!scatter && grp[i] != gi)) continue;
                    double x = cs__param_x(s, pc, &cats, i);
                    if (isnan(x)) continue;
                    xs[nx++] = x;
                }
                qsort(xs, nx, sizeof *xs, cs__cmp_double);
                char dat[256], lab[512];
                cs__sweep_dat(dat, sizeof dat, prefix, pname, k, gi, scatter ? 1 : ng);
                FILE *d = cs__open_out(g->dir, dat);
                if (!d) {
                    rc = CS_EXIT_IO;
                    break;
                }
                if (scatter) snprintf(lab, sizeof lab, "every run (%zu combinations of the others)", ng);
                else cs__group_label(s, pc, rep[gi], lab, sizeof lab);
                fprintf(d, "# %s, mechanism %s%s%s: %s, rows, then mean lo hi for each metric column of /runs:",
                        s->path, mechs.v[k], lab[0] ? ", " : "", lab, pcol->name);
                for (int m = 0; m < CS_M__COUNT; m++)
                    if (plotted[m]) fprintf(d, " %s", s->col[s->metric_col[m]].name);
                fputc('\n', d);
                int oom = 0;
                for (size_t a = 0; a < nx && !oom; a++) {
                    if (!scatter && a > 0 && xs[a] == xs[a - 1]) continue;
                    for (size_t i = 0; i < s->nrows && scatter; i++) {
                        /* Scatter: one line per run at this x (each once). */
                        if (strcmp(s->col[s->c_mech].str[i], mechs.v[k]) != 0 ||
                            cs__param_x(s, pc, &cats, i) != xs[a] || (a > 0 && xs[a] == xs[a - 1]))
                            continue;
                        fprintf(d, "%.10g 1", xs[a]);
                        for (int m = 0; m < CS_M__COUNT; m++) {
                            if (!plotted[m]) continue;
                            cs__dat_num(d, s->col[s->metric_col[m]].num[i]);
                            cs__dat_num(d, CS__NAN);
                            cs__dat_num(d, CS__NAN);
                        }
                        fputc('\n', d);
                    }
                    if (scatter) continue;
                    size_t rows = 0;
                    for (size_t i = 0; i < s->nrows; i++)
                        if (strcmp(s->col[s->c_mech].str[i], mechs.v[k]) == 0 && grp[i] == gi &&
                            cs__param_x(s, pc, &cats, i) == xs[a])
                            rows++;
                    fprintf(d, "%.10g %zu", xs[a], rows);
                    for (int m = 0; m < CS_M__COUNT; m++) {
                        if (!plotted[m]) continue;
                        size_t nv = 0;
                        for (size_t i = 0; i < s->nrows; i++) {
                            if (strcmp(s->col[s->c_mech].str[i], mechs.v[k]) != 0 || grp[i] != gi ||
                                cs__param_x(s, pc, &cats, i) != xs[a])
                                continue;
                            double v = s->col[s->metric_col[m]].num[i];
                            if (isfinite(v)) vals[nv++] = v;
                        }
                        double mean = CS__NAN, lo = CS__NAN, hi = CS__NAN;
                        char kind = '-';
                        if (cs__mean_ci(vals, nv, &mean, &lo, &hi, &kind) != 0) oom = 1;
                        if (kind != '-' && !strchr(kinds, kind)) kinds[strlen(kinds)] = kind;
                        cs__dat_num(d, mean);
                        cs__dat_num(d, lo);
                        cs__dat_num(d, hi);
                    }
                    fputc('\n', d);
                }
                rc = cs__close_out(d, g->dir, dat);
                if (oom && rc == 0) {
                    fprintf(stderr, "cowsim report: out of memory computing the intervals\n");
                    rc = CS_EXIT_IO;
                }
            }
        }
        /* One plot per metric. */
        int col3 = 3; /* data column of the first plotted metric's mean */
        for (int m = 0; m < CS_M__COUNT && rc == 0; m++) {
            if (!plotted[m]) continue;
            const char *mn = s->col[s->metric_col[m]].name;
            char base[320];
            snprintf(base, sizeof base, "%s_%s__%s", prefix, pname, mn);
            FILE *f = cs__gp_begin(g, base, 900, ng > 1 && !scatter ? 640 : 560);
            if (!f) {
                rc = CS_EXIT_IO;
                break;
            }
            fputs("set title ", f);
            {
                char t[320];
                snprintf(t, sizeof t, "%s vs %s", mn, s->plabel[p]);
                cs__gp_quote(f, t);
            }
            fputs("\nset xlabel ", f);
            cs__gp_quote(f, s->plabel[p]);
            fputs("\nset ylabel ", f);
            {
                char t[320];
                snprintf(t, sizeof t, scatter ? "%s (each run)" : "%s (mean over seeds, 95%% CI)", mn);
                cs__gp_quote(f, t);
            }
            fputc('\n', f);
            cs__gp_xaxis(f, pcol, &cats);
            fprintf(f, ng > 1 && !scatter ? "set key below\nplot" : "set key outside right top\nplot");
            /* Numeric parameter: shaded bands (pngcairo) first, so no band
             * hides another line, then the mean lines: colour = mechanism,
             * dash and point type = group.  String parameter, or the png
             * terminal: error bars, the lines spread a little around each
             * category so the bars stay apart.  Scatter: points only. */
            int bands = g->cairo && !pcol->is_str && !scatter;
            size_t item = 0, nline = mechs.n * nfile;
            for (size_t k = 0; k < mechs.n && !scatter; k++) {
                for (size_t gi = 0; gi < nfile; gi++) {
                    const char *c = cs__colors[k % 10];
                    size_t li = k * nfile + gi;
                    double off = pcol->is_str ? 0.06 * ((double)li - (double)(nline - 1) / 2.0) : 0;
                    char dat[256];
                    cs__sweep_dat(dat, sizeof dat, prefix, pname, k, gi, ng);
                    if (bands)
                        fprintf(f, "%s '%s' using 1:%d:%d with filledcurves fs transparent solid 0.14 "
                                   "noborder lc rgb '%s' notitle",
                                item++ ? ", \\\n    " : " ", dat, col3 + 1, col3 + 2, c);
                    else
                        fprintf(f, "%s '%s' using ($1%+.3f):%d:%d:%d with yerrorbars pt %zu ps 0.9 lw 1.4 "
                                   "lc rgb '%s' notitle",
                                item++ ? ", \\\n    " : " ", dat, off, col3, col3 + 1, col3 + 2, gi % 13 + 1, c);
                }
            }
            for (size_t k = 0; k < mechs.n; k++) {
                for (size_t gi = 0; gi < nfile; gi++) {
                    const char *c = cs__colors[k % 10];
                    size_t li = k * nfile + gi;
                    double off = pcol->is_str && !scatter ? 0.06 * ((double)li - (double)(nline - 1) / 2.0) : 0;
                    char dat[256], title[600], lab[512];
                    cs__sweep_dat(dat, sizeof dat, prefix, pname, k, gi, scatter ? 1 : ng);
                    if (scatter || ng <= 1) lab[0] = '\0';
                    else cs__group_label(s, pc, rep[gi], lab, sizeof lab);
                    snprintf(title, sizeof title, "%s%s%s", mechs.v[k], lab[0] ? ", " : "", lab);
                    fprintf(f, "%s '%s' using ($1%+.3f):%d with %s pt %zu ps 0.9 lw 1.8 lc rgb '%s' dt %zu title ",
                            item++ ? ", \\\n    " : " ", dat, off, col3,
                            pcol->is_str || scatter ? "points" : "linespoints", gi % 13 + 1, c, gi % 5 + 1);
                    cs__gp_quote(f, title);
                }
            }
            fputc('\n', f);
            char cap[1024], alt[320], how[160];
            if (scatter)
                snprintf(how, sizeof how, "every run as a point (the other swept parameters take %zu combinations; "
                                          "nothing averaged)", ng);
            else
                snprintf(how, sizeof how, "mean over seeds with a 95%% %s interval of the mean as %s",
                         strchr(kinds, 'b') && strchr(kinds, 't') ? "BCa bootstrap (points with >= 10 runs) or Student-t"
                         : strchr(kinds, 'b')                     ? "BCa bootstrap"
                                                                  : "Student-t",
                         bands ? "a shaded band" : "error bars");
            snprintf(cap, sizeof cap, "%s against swept %s: %s, one %s per mechanism%s.", mn, s->plabel[p], how,
                     scatter ? "colour" : "line",
                     s->np > 1 && !scatter ? " and per value of every other swept parameter (never averaged over them)"
                                           : "");
            if (!scatter && strchr(kinds, 't') && !warned) {
                fprintf(stderr, "cowsim report: %s: warning: fewer than %d runs per point: Student-t intervals "
                                "there, no bootstrap\n",
                        s->path, CS_STAT_BOOT_MIN_N);
                warned = 1;
            }
            snprintf(alt, sizeof alt, "%s vs %s", mn, s->plabel[p]);
            rc = cs__gp_end(g, f, base, plots, alt, cap);
            col3 += 3;
        }
        free(cats.v);
    }
    free(vals);
    free(xs);
    free(grp);
    free(rep);
    free(mechs.v);
    return rc;
}

/* ---- report.md ------------------------------------------------------------ */

/* Write the images of plots[from, to) with captions. */
static void cs__md_plots(FILE *f, const cs__plots_t *pl, size_t from, size_t to, size_t *fig)
{
    for (size_t i = from; i < to; i++) {
        fprintf(f, "![%s](%s)\n\n*Figure %zu. %s*\n\n", pl->p[i].alt, pl->p[i].file, ++*fig, pl->p[i].caption);
    }
}

/* Head of a table with one column per run: `first`, the run labels, and
 * the alignment row. */
static void cs__md_run_head(FILE *f, const char *first, const cs__run_t *runs, size_t n)
{
    fprintf(f, "| %s |", first);
    for (size_t i = 0; i < n; i++) {
        fputc(' ', f);
        cs__md_cell(f, runs[i].label);
        fputs(" |", f);
    }
    fprintf(f, "\n|---|");
    for (size_t i = 0; i < n; i++) fputs("---:|", f);
    fputc('\n', f);
}

/* The steady-state table of report.md: how the warm-up was removed, each
 * run's cut, then per series "mean [lo, hi]" (95 % batch-means interval). */
static void cs__md_steady(FILE *f, const cs__run_t *runs, size_t n)
{
    int mode = runs[0].ss.mode;
    fprintf(f, "## Steady state\n\n");
    fprintf(f, "Warm-up removed by %s; then the per-block series are averaged over the remaining blocks, "
               "each mean with its 95 %% batch-means interval (%d batches; `analysis/README.md` \"Steady state\").\n\n",
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
    cs__md_run_head(f, "series", runs, n);
    for (int k = 0; k < CS_SS__COUNT; k++) {
        fprintf(f, "| %s |", cs_steady_name(k));
        for (size_t i = 0; i < n; i++) {
            const cs_steady_t *s = &runs[i].ss;
            if (!s->present[k] || isnan(s->mean[k])) fprintf(f, " %s |", CS__NUM_NAN);
            else if (isnan(s->lo[k])) fprintf(f, " %.6g |", s->mean[k]);
            else fprintf(f, " %.6g [%.6g, %.6g] |", s->mean[k], s->lo[k], s->hi[k]);
        }
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* The runs part of report.md: provenance table, metrics table, figures. */
static void cs__md_runs(FILE *f, const cs__run_t *runs, size_t n)
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
    fprintf(f, "\n## Metrics\n\n");
    fprintf(f, "Values of `cs_metrics_compute` (definitions in `analysis/README.md`) to 6 significant digits "
               "(`cowsim compare --json` prints them exactly); `%s` = undefined (JSON null: e.g. efficiency "
               "without a `greedy.h5` beside the run) or a kind absent from the run.\n\n",
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
    for (size_t j = 0; j < nn; j++) {
        char name[96], num[64];
        if (!cs_metrics_name(&all, j, name, sizeof name)) continue;
        fprintf(f, "| %s |", name);
        for (size_t i = 0; i < n; i++) {
            double v;
            if (cs_metrics_get(&runs[i].met, name, &v) != 0) v = CS__NAN;
            fprintf(f, " %s |", cs__fmt_num(num, sizeof num, v));
        }
        fputc('\n', f);
    }
    fputc('\n', f);
    cs__md_steady(f, runs, n);
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

/* The design point of /runs row i: the point column, else the row index. */
static double cs__row_point(const cs__sweep_t *s, size_t i)
{
    return s->c_point >= 0 && !s->col[s->c_point].is_str ? s->col[s->c_point].num[i] : (double)i;
}

/* The row of mechanism `ref` at the design point and seed of /runs row r
 * (its common-random-numbers partner), or SIZE_MAX if there is none. */
static size_t cs__ref_row(const cs__sweep_t *s, size_t r, const char *ref)
{
    const double *seed = s->col[s->c_seed].num;
    double pt = cs__row_point(s, r);
    for (size_t u = 0; u < s->nrows; u++)
        if (strcmp(s->col[s->c_mech].str[u], ref) == 0 && cs__row_point(s, u) == pt && seed[u] == seed[r]) return u;
    return SIZE_MAX;
}

/* cs_stat_paired of metric column mc over the pairs of rows (pr[j], pu[j]),
 * j < n (a, b: scratch of n).  Returns 0 or -1 when out of memory. */
static int cs__pair_ci(const cs__sweep_t *s, int mc, const size_t *pr, const size_t *pu, size_t n, double *a,
                       double *b, cs_stat_ci_t *ci)
{
    const double *x = s->col[mc].num;
    for (size_t j = 0; j < n; j++) {
        a[j] = x[pr[j]];
        b[j] = x[pu[j]];
    }
    return cs_stat_paired(a, b, n, CS__BOOT_LEVEL, CS__BOOT_SEED, ci) != 0 ? -1 : 0;
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

/* Plot file name of the paired differences of metric mn against the
 * parameter pname (sanitized), reference rname (sanitized). */
static void cs__diff_base(char *buf, size_t cap, const char *prefix, const char *pname, const char *mn,
                          const char *rname)
{
    snprintf(buf, cap, "%s_%s__%s__diff_vs_%s", prefix, pname, mn, rname);
}

/*
 * Paired-difference plots of sweep s against reference mechanism `refname`
 * (NULL: the first mechanism; none if the sweep lacks it, has one mechanism
 * or no seed column): for each varying metric and each swept parameter p,
 * d = mean over seeds of x(k, seed) - x(ref, seed) (the figures of the
 * tables of cs__md_sweep_paired) against p with its 95 % Student-t
 * interval as error bars, one line per other mechanism k and per
 * combination of the other swept parameters (cs__groups: never averaged
 * over them).  A parameter with more than CS__MAX_LINES such combinations
 * (a Sobol design: no two points share the others) gets no difference
 * plot.  Data: <prefix>_<param>_diff_vs_<ref>_m<k>.dat (one group) or
 * _m<k>_g<g>.dat, columns x, pairs, then d t_lo t_hi bca_lo bca_hi per
 * plotted metric; plots <prefix>_<param>__<metric>__diff_vs_<ref>.
 * Returns 0 or an exit code with a message.
 */
static int cs__plot_sweep_diff(const cs__gp_t *g, const cs__sweep_t *s, const char *prefix, const char *refname,
                               cs__plots_t *plots)
{
    if (s->c_seed < 0 || s->col[s->c_seed].is_str) return 0;
    cs__names_t mechs = {0};
    if (cs__distinct_str(s->col[s->c_mech].str, s->nrows, &mechs) != 0) return CS_EXIT_IO;
    size_t ref = 0;
    if (refname)
        for (ref = 0; ref < mechs.n && strcmp(mechs.v[ref], refname) != 0; ref++) {}
    if (mechs.n < 2 || ref == mechs.n) {
        free(mechs.v);
        return 0;
    }
    int plotted[CS_M__COUNT];
    for (int m = 0; m < CS_M__COUNT; m++) {
        double only;
        plotted[m] = s->metric_col[m] >= 0 && cs__varies(s, s->metric_col[m], &only);
    }
    char rname[128];
    cs__sanitize(rname, sizeof rname, mechs.v[ref]);
    size_t nr = s->nrows ? s->nrows : 1;
    double *xs = malloc(nr * sizeof *xs), *a = malloc(nr * sizeof *a), *b = malloc(nr * sizeof *b);
    size_t *grp = malloc(nr * sizeof *grp), *rep = malloc(nr * sizeof *rep);
    size_t *pr = malloc(nr * sizeof *pr), *pu = malloc(nr * sizeof *pu);
    int rc = xs && a && b && grp && rep && pr && pu ? 0 : CS_EXIT_IO;
    const char *const *mech = (const char *const *)s->col[s->c_mech].str;
    for (size_t p = 0; p < s->np && rc == 0; p++) {
        size_t pc = s->p0 + p;
        const cs__scol_t *pcol = &s->col[pc];
        size_t ng = cs__groups(s, pc, grp, rep);
        if (ng > CS__MAX_LINES) continue;
        cs__names_t cats = {0};
        if (pcol->is_str && cs__distinct_str(pcol->str, s->nrows, &cats) != 0) {
            rc = CS_EXIT_IO;
            break;
        }
        char pname[128], dname[300];
        cs__sanitize(pname, sizeof pname, pcol->name);
        snprintf(dname, sizeof dname, "%s_diff_vs_%s", pname, rname);
        for (size_t k = 0; k < mechs.n && rc == 0; k++) {
            if (k == ref) continue;
            for (size_t gi = 0; gi < ng && rc == 0; gi++) {
                size_t nx = 0;
                for (size_t i = 0; i < s->nrows; i++) {
                    if (strcmp(mech[i], mechs.v[k]) != 0 || grp[i] != gi) continue;
                    double x = cs__param_x(s, pc, &cats, i);
                    if (!isnan(x)) xs[nx++] = x;
                }
                qsort(xs, nx, sizeof *xs, cs__cmp_double);
                char dat[512], lab[512];
                cs__sweep_dat(dat, sizeof dat, prefix, dname, k, gi, ng);
                FILE *d = cs__open_out(g->dir, dat);
                if (!d) {
                    rc = CS_EXIT_IO;
                    break;
                }
                cs__group_label(s, pc, rep[gi], lab, sizeof lab);
                fprintf(d, "# %s, paired differences %s - %s on the same seed%s%s: %s, pairs, then d t_lo t_hi "
                           "bca_lo bca_hi for each metric column of /runs:",
                        s->path, mechs.v[k], mechs.v[ref], lab[0] ? ", " : "", lab, pcol->name);
                for (int m = 0; m < CS_M__COUNT; m++)
                    if (plotted[m]) fprintf(d, " %s", s->col[s->metric_col[m]].name);
                fputc('\n', d);
                for (size_t xi = 0; xi < nx && rc == 0; xi++) {
                    if (xi > 0 && xs[xi] == xs[xi - 1]) continue;
                    size_t n = 0;
                    for (size_t r = 0; r < s->nrows; r++) {
                        if (strcmp(mech[r], mechs.v[k]) != 0 || grp[r] != gi || cs__param_x(s, pc, &cats, r) != xs[xi])
                            continue;
                        size_t u = cs__ref_row(s, r, mechs.v[ref]);
                        if (u == SIZE_MAX) continue;
                        pr[n] = r;
                        pu[n++] = u;
                    }
                    fprintf(d, "%.10g %zu", xs[xi], n);
                    for (int m = 0; m < CS_M__COUNT && rc == 0; m++) {
                        if (!plotted[m]) continue;
                        cs_stat_ci_t ci;
                        if (cs__pair_ci(s, s->metric_col[m], pr, pu, n, a, b, &ci) != 0) {
                            fprintf(stderr, "cowsim report: out of memory computing the paired differences\n");
                            rc = CS_EXIT_IO;
                            break;
                        }
                        cs__dat_num(d, ci.n > 0 ? ci.mean : CS__NAN);
                        cs__dat_num(d, ci.t_lo);
                        cs__dat_num(d, ci.t_hi);
                        cs__dat_num(d, ci.b_lo);
                        cs__dat_num(d, ci.b_hi);
                    }
                    fputc('\n', d);
                }
                int e = cs__close_out(d, g->dir, dat);
                if (rc == 0) rc = e;
            }
        }
        /* One plot per metric: error bars first, then the lines through d. */
        int col3 = 3; /* data column of the first plotted metric's d */
        for (int m = 0; m < CS_M__COUNT && rc == 0; m++) {
            if (!plotted[m]) continue;
            const char *mn = s->col[s->metric_col[m]].name;
            char base[640], t[640];
            cs__diff_base(base, sizeof base, prefix, pname, mn, rname);
            FILE *f = cs__gp_begin(g, base, 900, ng > 1 ? 640 : 560);
            if (!f) {
                rc = CS_EXIT_IO;
                break;
            }
            snprintf(t, sizeof t, "%s: mechanism - %s (paired on seed) vs %s", mn, mechs.v[ref], s->plabel[p]);
            fputs("set title ", f);
            cs__gp_quote(f, t);
            fputs("\nset xlabel ", f);
            cs__gp_quote(f, s->plabel[p]);
            snprintf(t, sizeof t, "d %s (mean paired difference, 95%% t CI)", mn);
            fputs("\nset ylabel ", f);
            cs__gp_quote(f, t);
            fputc('\n', f);
            cs__gp_xaxis(f, pcol, &cats);
            fprintf(f, ng > 1 ? "set key below\nplot" : "set key outside right top\nplot");
            size_t item = 0, nline = (mechs.n - 1) * ng;
            for (int pass = 0; pass < 2; pass++) {
                for (size_t k = 0, li = 0; k < mechs.n; k++) {
                    if (k == ref) continue;
                    for (size_t gi = 0; gi < ng; gi++, li++) {
                        const char *c = cs__colors[k % 10];
                        double off = pcol->is_str ? 0.06 * ((double)li - (double)(nline - 1) / 2.0) : 0;
                        char dat[512], lab[512], title[1200];
                        cs__sweep_dat(dat, sizeof dat, prefix, dname, k, gi, ng);
                        fprintf(f, "%s '%s' using ($1%+.3f):%d", item++ ? ", \\\n    " : " ", dat, off, col3);
                        if (pass == 0) {
                            fprintf(f, ":%d:%d with yerrorbars pt %zu ps 0.9 lw 1.4 lc rgb '%s' notitle", col3 + 1,
                                    col3 + 2, gi % 13 + 1, c);
                            continue;
                        }
                        if (ng > 1) cs__group_label(s, pc, rep[gi], lab, sizeof lab);
                        else lab[0] = '\0';
                        snprintf(title, sizeof title, "%s - %s%s%s", mechs.v[k], mechs.v[ref], lab[0] ? ", " : "", lab);
                        fprintf(f, " with %s pt %zu ps 0.9 lw 1.8 lc rgb '%s' dt %zu title ",
                                pcol->is_str ? "points" : "linespoints", gi % 13 + 1, c, gi % 5 + 1);
                        cs__gp_quote(f, title);
                    }
                }
            }
            fprintf(f, ", \\\n    0 with lines lw 1 lc rgb '#888888' dt 2 notitle\n");
            char cap[768], alt[320];
            snprintf(cap, sizeof cap, "Paired difference of %s against %s (same seed) vs swept %s: mean over seeds "
                                      "of x(mechanism) - x(%s) with its 95%% Student-t interval as error bars, one "
                                      "line per mechanism%s; dashed grey: no difference.",
                     mn, mechs.v[ref], s->plabel[p], mechs.v[ref],
                     s->np > 1 ? " and per value of every other swept parameter (never averaged over them)" : "");
            snprintf(alt, sizeof alt, "%s minus %s vs %s", mn, mechs.v[ref], s->plabel[p]);
            rc = cs__gp_end(g, f, base, plots, alt, cap);
            col3 += 5;
        }
        free(cats.v);
    }
    free(xs);
    free(a);
    free(b);
    free(grp);
    free(rep);
    free(pr);
    free(pu);
    free(mechs.v);
    return rc;
}

/* ---- time series of one sweep point (report --point) -------------------- */

/* The series --series may ask for. */
static const char *const cs__pt_series[] = {"basefee", "backlog", "w_p10", "w_p50", "w_p90"};
#define CS__NPTS (sizeof cs__pt_series / sizeof cs__pt_series[0])

/* 1 if /runs row i satisfies every "param=value" term of spec (comma
 * separated; a parameter named by its scenario path or its column name; a
 * numeric value compared as a number).  *unknown is set to the first term
 * whose parameter is no swept parameter. */
static int cs__pt_match(const cs__sweep_t *s, size_t i, const char *spec, const char **unknown)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (!eq) return 0;
        *eq = '\0';
        size_t p;
        for (p = 0; p < s->np; p++)
            if (strcmp(s->plabel[p], t) == 0 || strcmp(s->col[s->p0 + p].name, t) == 0) break;
        if (p == s->np) {
            if (unknown && !*unknown) *unknown = spec;
            return 0;
        }
        const cs__scol_t *c = &s->col[s->p0 + p];
        if (c->is_str) {
            if (strcmp(c->str[i], eq + 1) != 0) return 0;
        } else {
            char *end;
            double v = strtod(eq + 1, &end);
            if (*end || end == eq + 1 || v != c->num[i]) return 0;
        }
    }
    return 1;
}

/* The design point that --point spec names: a point index, or
 * "param=value[,param=value...]" matching exactly one point.  Returns 0 and
 * *pt, or CS_EXIT_USAGE with a message. */
static int cs__pt_resolve(const cs__sweep_t *s, const char *spec, double *pt)
{
    char *end;
    double v = strtod(spec, &end);
    int found = 0;
    if (*spec && !*end && !strchr(spec, '=')) {
        for (size_t i = 0; i < s->nrows && !found; i++) found = cs__row_point(s, i) == v;
        if (!found) {
            fprintf(stderr, "cowsim report: --point %s: %s has no such point\n", spec, s->path);
            return CS_EXIT_USAGE;
        }
        *pt = v;
        return 0;
    }
    const char *unknown = NULL;
    size_t npt = 0;
    double first = CS__NAN, other = CS__NAN;
    for (size_t i = 0; i < s->nrows; i++) {
        if (!cs__pt_match(s, i, spec, &unknown)) continue;
        double p = cs__row_point(s, i);
        if (npt == 0) first = p, npt = 1;
        else if (p != first && npt == 1) other = p, npt = 2;
    }
    if (npt != 1) {
        if (unknown) fprintf(stderr, "cowsim report: --point %s: not a swept parameter of %s\n", spec, s->path);
        else if (npt == 0) fprintf(stderr, "cowsim report: --point %s: no point of %s matches\n", spec, s->path);
        else
            fprintf(stderr, "cowsim report: --point %s: points %.0f and %.0f (at least) match; name every swept parameter\n",
                    spec, first, other);
        return CS_EXIT_USAGE;
    }
    *pt = first;
    return 0;
}

/*
 * Per-block basefee and backlog of run file path into data file dname
 * ("height basefee_lane pending", every block) and its W quantiles per
 * sample into wname (cs__run_weights).  Returns 0 or an exit code.
 */
static int cs__pt_run(const char *path, const char *label, const char *dir, const char *dname, const char *wname)
{
    int err = CS_OK;
    cs_h5_reader_t *rd = cs_h5_open_read(path, &err);
    if (!rd) return cs__h5_fail(path, err);
    uint64_t n = 0;
    int rc = cs_h5_nrows(rd, CS_H5_BLOCKS, &n);
    FILE *f = rc == CS_OK ? cs__open_out(dir, dname) : NULL;
    cs_h5_block_t *buf = malloc(CS__CHUNK_ROWS * sizeof *buf);
    if (rc == CS_OK && (!f || !buf)) rc = f ? CS_ENOMEM : -1;
    if (f) fprintf(f, "# %s (%s): height, lane basefee, backlog (pending timers after the block)\n", label, path);
    for (uint64_t s = 0; rc == CS_OK && s < n; s += CS__CHUNK_ROWS) {
        size_t m = (size_t)(n - s < CS__CHUNK_ROWS ? n - s : CS__CHUNK_ROWS);
        rc = cs_h5_read_rows(rd, CS_H5_BLOCKS, s, m, buf);
        for (size_t i = 0; rc == CS_OK && i < m; i++)
            fprintf(f, "%llu %.17g %llu\n", (unsigned long long)buf[i].height, buf[i].basefee_lane.f,
                    (unsigned long long)buf[i].pending);
    }
    free(buf);
    int e = f ? cs__close_out(f, dir, dname) : CS_EXIT_IO;
    if (rc == -1) rc = CS_OK; /* cs__open_out said why */
    if (rc == CS_OK && e == 0) {
        cs__run_t r;
        memset(&r, 0, sizeof r);
        r.path = path;
        snprintf(r.label, sizeof r.label, "%s", label);
        e = cs__run_weights(&r, rd, wname, dir);
    }
    cs_h5_close_read(rd);
    if (rc != CS_OK) return cs__h5_fail(path, rc);
    return e;
}

/*
 * `report SWEEP.h5 --point P [--series a,b,...]`: the time series of every
 * run of design point P (each mechanism and seed; files
 * DIR_OF_SWEEP/runs/<run_id>/<mechanism>.h5), one plot per series with one
 * line per run.  Data: <prefix>_point<P>_r<j>.dat (height, basefee,
 * backlog) and _r<j>_weights.dat (height, W p10, p50, p90, identities).
 * Returns 0 or an exit code with a message.
 */
static int cs__plot_point(const cs__gp_t *g, const cs__sweep_t *s, const char *prefix, const char *spec,
                          const char *series, cs__plots_t *plots)
{
    double pt;
    int rc = cs__pt_resolve(s, spec, &pt);
    if (rc) return rc;
    int want[CS__NPTS] = {0};
    char buf[256];
    snprintf(buf, sizeof buf, "%s", series ? series : "basefee,backlog,w_p10,w_p50,w_p90");
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t k;
        for (k = 0; k < CS__NPTS && strcmp(cs__pt_series[k], t) != 0; k++) {}
        if (k == CS__NPTS) {
            fprintf(stderr, "cowsim report: --series %s: unknown series (basefee, backlog, w_p10, w_p50, w_p90)\n", t);
            return CS_EXIT_USAGE;
        }
        want[k] = 1;
    }
    int c_id = -1;
    for (size_t c = 0; c < s->ncols; c++)
        if (s->col[c].is_str && strcmp(s->col[c].name, "run_id") == 0) c_id = (int)c;
    if (c_id < 0 || s->c_seed < 0) {
        fprintf(stderr, "cowsim report: %s: /runs has no run_id or seed column: no run files to read\n", s->path);
        return CS_EXIT_USAGE;
    }
    const char *sl = strrchr(s->path, '/');
    int dl = sl ? (int)(sl - s->path) : 1;
    const char *dir = sl ? s->path : ".";
    size_t *rows = malloc((s->nrows ? s->nrows : 1) * sizeof *rows), nrun = 0;
    if (!rows) {
        fprintf(stderr, "cowsim report: out of memory\n");
        return CS_EXIT_IO;
    }
    for (size_t i = 0; i < s->nrows; i++)
        if (cs__row_point(s, i) == pt) rows[nrun++] = i;
    for (size_t j = 0; rc == 0 && j < nrun; j++) {
        size_t i = rows[j];
        char path[CS__PATH_MAX], label[128], dn[96], wn[96];
        snprintf(path, sizeof path, "%.*s/runs/%s/%s.h5", dl, dir, s->col[c_id].str[i], s->col[s->c_mech].str[i]);
        snprintf(label, sizeof label, "%s seed %.0f", s->col[s->c_mech].str[i], s->col[s->c_seed].num[i]);
        snprintf(dn, sizeof dn, "%s_point%.0f_r%zu.dat", prefix, pt, j + 1);
        snprintf(wn, sizeof wn, "%s_point%.0f_r%zu_weights.dat", prefix, pt, j + 1);
        rc = cs__pt_run(path, label, g->dir, dn, wn);
    }
    static const char *const ylab[CS__NPTS] = {"lane basefee", "pending timers", "W p10", "W p50", "W p90"};
    for (size_t k = 0; rc == 0 && k < CS__NPTS; k++) {
        if (!want[k]) continue;
        char base[128], title[160];
        snprintf(base, sizeof base, "%s_point%.0f_%s", prefix, pt, cs__pt_series[k]);
        FILE *f = cs__gp_begin(g, base, 1100, 520);
        if (!f) {
            rc = CS_EXIT_IO;
            break;
        }
        snprintf(title, sizeof title, "%s at design point %.0f", cs__pt_series[k], pt);
        fprintf(f, "set title ");
        cs__gp_quote(f, title);
        fprintf(f, "\nset xlabel '%s'\nset ylabel '%s'\nset key outside right\nplot ", k < 2 ? "height" : "sample height",
                ylab[k]);
        for (size_t j = 0; j < nrun; j++) {
            size_t i = rows[j];
            char t[128];
            snprintf(t, sizeof t, "%s seed %.0f", s->col[s->c_mech].str[i], s->col[s->c_seed].num[i]);
            if (k < 2) fprintf(f, "%s'%s_point%.0f_r%zu.dat' using 1:%zu title ", j ? ", " : "", prefix, pt, j + 1, k + 2);
            else fprintf(f, "%s'%s_point%.0f_r%zu_weights.dat' using 1:%zu title ", j ? ", " : "", prefix, pt, j + 1,
                         k - 2 + 2);
            cs__gp_quote(f, t);
            fprintf(f, k < 2 ? " with lines" : " with linespoints pt 7 ps 0.4");
            cs__style(f, j, nrun, 1.5);
        }
        fputc('\n', f);
        char alt[160], cap[768];
        snprintf(alt, sizeof alt, "%s per %s, point %.0f", cs__pt_series[k], k < 2 ? "block" : "sample", pt);
        snprintf(cap, sizeof cap, "%s per %s at design point %.0f, one line per run (mechanism and seed).",
                 k == 0 ? "Lane basefee" : k == 1 ? "Backlog (pending timers after the block)"
                 : k == 2 ? "W(actor) 10th percentile" : k == 3 ? "W(actor) median" : "W(actor) 90th percentile",
                 k < 2 ? "block" : "W sample", pt);
        rc = cs__gp_end(g, f, base, plots, alt, cap);
    }
    free(rows);
    return rc;
}

/* The part of report.md for sweep s: provenance, a table of means per
 * (mechanism, point), the paired differences, figures: plots[from, to),
 * of which [dfrom, to) are the paired-difference plots, listed beside the
 * paired-difference tables. */
static void cs__md_sweep(FILE *f, const cs__sweep_t *s, const char *refname, const cs__plots_t *pl, size_t from,
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
    if (cs__distinct_str(s->col[s->c_mech].str, s->nrows, &mechs) != 0) return;
    fprintf(f, "Mean over seeds of each metric per design point, 6 significant digits, with its 95 %% interval "
               "in brackets (BCa bootstrap from %d runs per point, Student-t below, none for one run; `%s` = no "
               "finite value).\n\n",
            CS_STAT_BOOT_MIN_N, CS__NUM_NAN);
    double *cell = malloc((s->nrows ? s->nrows : 1) * sizeof *cell);
    if (!cell) {
        free(mechs.v);
        return;
    }
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
                double mean = CS__NAN, lo = CS__NAN, hi = CS__NAN;
                if (nv && cs__mean_ci(cell, nv, &mean, &lo, &hi, NULL) != 0) lo = hi = CS__NAN;
                if (!nv) fprintf(f, " %s |", CS__NUM_NAN);
                else if (isfinite(lo)) fprintf(f, " %.6g [%.6g, %.6g] |", mean, lo, hi);
                else fprintf(f, " %.6g |", mean);
            }
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    free(cell);
    size_t ref = 0;
    if (refname) {
        for (ref = 0; ref < mechs.n && strcmp(mechs.v[ref], refname) != 0; ref++) {}
        if (ref == mechs.n) {
            fprintf(f, "No paired differences: the sweep has no mechanism %s (`--ref`).\n\n", refname);
            fprintf(stderr, "cowsim report: warning: %s has no mechanism %s (--ref): no paired differences\n",
                    s->path, refname);
        }
    }
    if (ref < mechs.n && cs__md_sweep_paired(f, s, &mechs, ref) != 0)
        fprintf(stderr, "cowsim report: out of memory writing the paired differences\n");
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
}

/* ---- the command ------------------------------------------------------------ */

static int cs__classify_direct(const char *path);

/* Sandbox child of cs__classify (cs_h5_sandbox_call): classify path and,
 * for a sweep summary, load it whole, as the report will.  Run files are
 * read through cs_h5_open_read, which has its own sandbox. */
static int cs__classify_probe(const char *path, void *arg)
{
    (void)arg;
    int k = cs__classify_direct(path);
    if (k != 1) return k < 0 ? CS_EPARSE : CS_OK;
    cs__sweep_t sw;
    memset(&sw, 0, sizeof sw);
    sw.path = path;
    int rc = cs__sweep_open(&sw);
    cs__sweep_free(&sw);
    return rc == 0 ? CS_OK : CS_EPARSE;
}

/*
 * Classify input path: 0 run file, 1 sweep summary (has /runs), or a
 * negative exit code after printing a message naming the path: -3 missing
 * or unreadable, -2 not a cowsim run or sweep file.  The file is untrusted:
 * it is first classified and, if a sweep summary, read whole in a sandbox
 * child (README "Security"); a file that crashes libhdf5 there is refused.
 * A clean error in the child is met again here, with its message.
 */
static int cs__classify(const char *path)
{
    FILE *probe = fopen(path, "rb");
    if (probe) {
        fclose(probe);
        int fn_rc = CS_OK;
        int rc = cs_h5_sandbox_call(path, cs__classify_probe, NULL, &fn_rc);
        if (rc != CS_OK) {
            fprintf(stderr, "cowsim report: %s\n", cs_h5_last_error());
            return rc == CS_EIO ? -CS_EXIT_IO : -CS_EXIT_USAGE;
        }
    }
    return cs__classify_direct(path);
}

/* cs__classify without the sandbox. */
static int cs__classify_direct(const char *path)
{
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        fprintf(stderr, "cowsim report: cannot read %s: %s\n", path, strerror(errno));
        return -CS_EXIT_IO;
    }
    fclose(probe);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "cowsim report: %s is a directory, not a run or sweep file\n", path);
        return -CS_EXIT_USAGE;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0) {
        fprintf(stderr, "cowsim report: %s is not an HDF5 file (expected a cowsim run or sweep file)\n", path);
        return -CS_EXIT_USAGE;
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#if H5_VERSION_GE(1, 10, 7)
    H5Pset_file_locking(fapl, 0, 1);
#endif
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (fid < 0) {
        fprintf(stderr, "cowsim report: %s: cannot open as HDF5\n", path);
        return -CS_EXIT_USAGE;
    }
    int sweep = H5Lexists(fid, "runs", H5P_DEFAULT) > 0;
    int run = H5Lexists(fid, "blocks", H5P_DEFAULT) > 0 && H5Aexists(fid, "format_version") > 0;
    H5Fclose(fid);
    if (sweep) return 1;
    if (run) return 0;
    fprintf(stderr, "cowsim report: %s is HDF5 but neither a cowsim run file (/blocks, format_version) nor a "
                    "sweep summary (/runs)\n",
            path);
    return -CS_EXIT_USAGE;
}

/* Title block of report.md from the runs (or the first sweep). */
static void cs__md_title(FILE *f, const cs__run_t *runs, size_t nr, const cs__sweep_t *sw, size_t ns,
                         const cs__seedrun_t *sr)
{
    if (nr == 0 && ns == 0 && sr) {
        fprintf(f, "# cowsim report: %s\n\n- multi-seed run: %s, %zu seeds, mechanisms:", sr->set.scenario, sr->path,
                sr->set.ns);
        for (size_t j = 0; j < sr->set.nm; j++) fprintf(f, "%s %s", j ? "," : "", sr->set.mechs[j]);
        fputc('\n', f);
    } else if (nr > 0) {
        const cs__run_t *r = &runs[0];
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
                if (j == seeds.n && cs__dvec_push(&seeds, s->col[s->c_seed].num[i]) != 0) break;
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
}

/*
 * `cowsim report RUN.h5|SWEEP.h5 ... [-o DIR]`: check every input, find
 * gnuplot and its PNG terminal, create DIR (default: the first input's
 * directory), write the data files, scripts and PNGs, then DIR/report.md
 * (through DIR/report.md.tmp, published when complete: cs_publish_commit).  Prints the report
 * path on stdout.  Returns 0, CS_EXIT_USAGE or CS_EXIT_IO (file header).
 */
int cs_cmd_report(int argc, char **argv)
{
    const char *outdir = NULL, *ref = NULL, *point = NULL, *series = NULL;
    int ss_mode = CS_STEADY_MSER5;
    uint64_t burn_in = 0;
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    size_t nin = 0;
    if (!inputs) {
        fprintf(stderr, "cowsim report: out of memory\n");
        return CS_EXIT_IO;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cs__report_usage(stdout);
            free(inputs);
            return CS_EXIT_OK;
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            outdir = argv[++i];
        } else if (strcmp(a, "--ref") == 0 && i + 1 < argc) {
            ref = argv[++i];
        } else if (strcmp(a, "--point") == 0 && i + 1 < argc) {
            point = argv[++i];
        } else if (strcmp(a, "--series") == 0 && i + 1 < argc) {
            series = argv[++i];
        } else if (cs_steady_arg(argc, argv, &i, &ss_mode, &burn_in)) {
            continue;
        } else if (a[0] != '-' || strcmp(a, "-") == 0) {
            inputs[nin++] = a;
        } else {
            fprintf(stderr, "cowsim report: unexpected argument '%s'\n", a);
            cs__report_usage(stderr);
            free(inputs);
            return CS_EXIT_USAGE;
        }
    }
    if (nin == 0 || (series && !point)) {
        if (series && !point) fprintf(stderr, "cowsim report: --series needs --point\n");
        cs__report_usage(stderr);
        free(inputs);
        return CS_EXIT_USAGE;
    }
    /* A work file beside the inputs means a run there was interrupted (N48). */
    cs_publish_scan("report", inputs, nin);
    /* 1. Inputs: each a run file or a sweep summary. */
    int *kind = calloc(nin, sizeof *kind);
    cs__run_t *runs = calloc(nin, sizeof *runs);
    cs__sweep_t *sweeps = calloc(nin, sizeof *sweeps);
    cs__seedrun_t *sruns = calloc(nin, sizeof *sruns);
    size_t nr = 0, ns = 0, nsr = 0;
    int rc = kind && runs && sweeps && sruns ? 0 : CS_EXIT_IO;
    if (rc != 0) fprintf(stderr, "cowsim report: out of memory for %zu inputs\n", nin);
    for (size_t i = 0; i < nin && rc == 0; i++) {
        if (cs_seeds_is_dir(inputs[i])) {
            sruns[nsr++].path = inputs[i];
            continue;
        }
        kind[i] = cs__classify(inputs[i]);
        if (kind[i] < 0) rc = -kind[i];
        else if (kind[i] == 0) runs[nr++].path = inputs[i];
        else sweeps[ns++].path = inputs[i];
    }
    if (rc == 0 && point && ns == 0) {
        fprintf(stderr, "cowsim report: --point needs a sweep summary (sweep.h5) among the inputs\n");
        rc = CS_EXIT_USAGE;
    }
        /* 2. gnuplot, a declared run-time dependency (DESIGN §1). */
    cs__gp_t g;
    memset(&g, 0, sizeof g);
    if (rc == 0 && cs__gp_find(&g) != 0) {
        fprintf(stderr, "cowsim report: gnuplot not found on PATH; it draws the report's plots and is required "
                        "(Debian: apt-get install gnuplot-nox)\n");
        rc = CS_EXIT_IO;
    }
    /* 3. The output directory. */
    char dirbuf[4096];
    if (rc == 0 && !outdir && nsr > 0 && sruns[0].path == inputs[0]) outdir = inputs[0]; /* a run directory: itself */
    if (rc == 0 && !outdir) {
        const char *sl = strrchr(inputs[0], '/');
        if (!sl) snprintf(dirbuf, sizeof dirbuf, ".");
        else if (sl == inputs[0]) snprintf(dirbuf, sizeof dirbuf, "/");
        else snprintf(dirbuf, sizeof dirbuf, "%.*s", (int)(sl - inputs[0]), inputs[0]);
        outdir = dirbuf;
    }
    char tmp_md[CS__PATH_MAX], md[CS__PATH_MAX];
    FILE *out = NULL;
    if (rc == 0) {
        snprintf(tmp_md, sizeof tmp_md, "%s/report.md.tmp", outdir);
        snprintf(md, sizeof md, "%s/report.md", outdir);
        if (cs_mkdirs(outdir) != 0 || !(out = fopen(tmp_md, "w"))) {
            fprintf(stderr, "cowsim report: cannot write to output directory %s: %s\n", outdir, strerror(errno));
            rc = CS_EXIT_IO;
        }
    }
    if (rc == 0) {
        g.dir = outdir;
        snprintf(g.log, sizeof g.log, "%s/gnuplot.log", outdir);
        unlink(g.log);
        int st = cs__gp_exec(&g, "-e", "set terminal pngcairo");
        g.cairo = st == 0;
        if (!g.cairo && cs__gp_exec(&g, "-e", "set terminal png") != 0) {
            fprintf(stderr, "cowsim report: %s has neither the pngcairo nor the png terminal (see %s)\n", g.exe,
                    g.log);
            rc = CS_EXIT_IO;
        }
        unlink(g.log);
    }
    /* 4. Read the inputs, write data files, draw. */
    cs__plots_t plots = {0};
    size_t run_plots_end = 0;
    size_t *sweep_from = calloc(ns + 1, sizeof *sweep_from), *sweep_dfrom = calloc(ns + 1, sizeof *sweep_dfrom);
    if ((!sweep_from || !sweep_dfrom) && rc == 0) {
        fprintf(stderr, "cowsim report: out of memory\n");
        rc = CS_EXIT_IO;
    }
    for (size_t i = 0; i < nr && rc == 0; i++) rc = cs__run_load(&runs[i], i, outdir);
    if (rc == 0 && nr > 0) {
        cs__run_labels(runs, nr);
        rc = cs__run_metrics(runs, nr, ss_mode, burn_in);
        if (rc == 0) rc = cs__plot_basefee(&g, runs, nr, &plots);
        if (rc == 0) rc = cs__plot_util(&g, runs, nr, &plots);
        if (rc == 0) rc = cs__plot_delays(&g, runs, nr, &plots);
        if (rc == 0) rc = cs__plot_weights(&g, runs, nr, &plots);
        if (rc == 0) rc = cs__plot_revenue(&g, runs, nr, &plots);
        if (rc == 0) rc = cs__plot_metric_bars(&g, runs, nr, &plots);
    }
    run_plots_end = plots.n;
    size_t *sr_from = calloc(nsr + 1, sizeof *sr_from);
    if (!sr_from && rc == 0) {
        fprintf(stderr, "cowsim report: out of memory\n");
        rc = CS_EXIT_IO;
    }
    for (size_t i = 0; i < nsr && rc == 0; i++) {
        char prefix[32];
        if (nsr > 1) snprintf(prefix, sizeof prefix, "seeds%zu_bars", i + 1);
        else snprintf(prefix, sizeof prefix, "seeds_bars");
        sr_from[i] = plots.n;
        rc = cs__seedrun_plot(&g, &sruns[i], prefix, &plots);
        sr_from[i + 1] = plots.n;
    }
    for (size_t i = 0; i < ns && rc == 0; i++) {
        rc = cs__sweep_open(&sweeps[i]);
        char prefix[32];
        if (ns > 1) snprintf(prefix, sizeof prefix, "sweep%zu", i + 1);
        else snprintf(prefix, sizeof prefix, "sweep");
        sweep_from[i] = plots.n;
        if (rc == 0) rc = cs__plot_sweep(&g, &sweeps[i], prefix, &plots);
        if (rc == 0 && point) rc = cs__plot_point(&g, &sweeps[i], prefix, point, series, &plots);
        sweep_dfrom[i] = plots.n;
        if (rc == 0) rc = cs__plot_sweep_diff(&g, &sweeps[i], prefix, ref, &plots);
        sweep_from[i + 1] = plots.n;
    }
    /* 5. report.md (written to a temporary name, published when complete). */
    if (rc == 0) {
        size_t fig = 0;
        cs__md_title(out, runs, nr, sweeps, ns, nsr ? &sruns[0] : NULL);
        if (nr > 0) {
            cs__md_runs(out, runs, nr);
            fprintf(out, "## Plots\n\n");
            cs__md_plots(out, &plots, 0, run_plots_end, &fig);
            int fires = 0;
            for (size_t i = 0; i < nr; i++)
                for (int k = 0; k < CS_AGENT_KIND_COUNT; k++)
                    if (runs[i].delay[k].total) fires = 1;
            if (!fires) fprintf(out, "No /fires rows (output.fires = off): no delay CDFs.\n\n");
        }
        for (size_t i = 0; i < nsr; i++) cs__md_seedrun(out, &sruns[i], &plots, sr_from[i], sr_from[i + 1], &fig);
        for (size_t i = 0; i < ns; i++) cs__md_sweep(out, &sweeps[i], ref, &plots, sweep_from[i], sweep_dfrom[i], sweep_from[i + 1], &fig);
        fprintf(out, "---\nPlots drawn by gnuplot (%s terminal); scripts (*.gp) and data (*.dat) are in this "
                     "directory.\n",
                g.cairo ? "pngcairo" : "png");
    }
    if (out) {
        int werr = ferror(out);
        if (fclose(out) != 0 || werr) {
            if (rc == 0) fprintf(stderr, "cowsim report: cannot write %s\n", tmp_md);
            if (rc == 0) rc = CS_EXIT_IO;
        }
        if (rc == 0 && cs_publish_commit(-1, tmp_md, md) != 0) { /* fsync, rename, fsync the directory (N48) */
            fprintf(stderr, "cowsim report: cannot write %s: %s\n", md, strerror(errno));
            rc = CS_EXIT_IO;
        }
        if (rc != 0) unlink(tmp_md);
    }
    if (rc == 0) {
        struct stat sb;
        if (stat(g.log, &sb) == 0 && sb.st_size == 0) unlink(g.log);
        printf("wrote %s with %zu plot(s)\n", md, plots.n);
    }
    for (size_t i = 0; i < nr; i++) cs__run_free(&runs[i]);
    for (size_t i = 0; i < ns; i++) cs__sweep_free(&sweeps[i]);
    for (size_t i = 0; i < nsr; i++) cs__seedrun_free(&sruns[i]);
    free(sruns);
    free(sr_from);
    free(plots.p);
    free(sweep_from);
    free(sweep_dfrom);
    free(runs);
    free(sweeps);
    free(kind);
    free(inputs);
    return rc;
}
