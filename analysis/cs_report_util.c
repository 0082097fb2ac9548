/*
 * cs_report_util.c -- shared pieces of `cowsim report` (cs_report.c): the
 * colour and metric-name tables, small text and number helpers, running
 * gnuplot (find it, write a script, draw it and record the plot) and the
 * data files beside the plots.
 */
#include "cs_report_int.h"

#include "cs_exit.h"
#include "cs_mech.h"
#include "cs_publish.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Category-10 colours; run i draws in colour i % 10 with dash type i / 10 + 1. */
const char *const cs__colors[10] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/* Run-level metric names, indexed by CS_M_*. */
const char *const cs__mnames[CS_M__COUNT] = {
#define CS__METRIC_NAME(name, doc) #name,
    CS_METRIC_MAP(CS__METRIC_NAME)
#undef CS__METRIC_NAME
};

/* ---- small helpers ---------------------------------------------------- */

/* malloc'd copy of s (NULL stays NULL); NULL on allocation failure too. */
char *cs__strdup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* Copy src into dst (cap bytes) keeping [A-Za-z0-9._-] and turning every
 * other byte into '_', so the result is a safe file-name part. */
void cs__sanitize(char *dst, size_t cap, const char *src)
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
void cs__gp_quote(FILE *f, const char *s)
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
const char *cs__fmt_num(char *buf, size_t cap, double v)
{
    if (!isfinite(v)) snprintf(buf, cap, "%s", CS__NUM_NAN);
    else snprintf(buf, cap, "%.6g", v);
    return buf;
}

/* Format v for a report.md table: cs_metrics_fmt (4 significant digits,
 * short exponent; CS__NUM_NAN for NaN and infinities, compare --json:
 * null), the same as compare's text table. */
const char *cs__fmt_sig(char *buf, size_t cap, double v)
{
    return cs_metrics_fmt(buf, cap, v);
}

/* The unit of metric `name` in report.md's tables (run-level or
 * "<metric>.<kind>") and which way is better: *better = 1 (higher), -1
 * (lower) or 0 (neither: a count, an amount or a description). */
const char *cs__metric_unit(const char *name, int *better)
{
    static const struct {
        const char *name; /* metric (for "<metric>.<kind>": the part before the dot) */
        const char *unit; /* unit shown in the table */
        int better;       /* 1 higher is better, -1 lower, 0 neither */
    } u[] = {
        {"blocks", "blocks", 0},          {"complete", "flag", 0},
        {"timers", "count", 0},           {"fires", "count", 0},
        {"censored", "count", -1},        {"delay_p50", "blocks", -1},
        {"delay_p95", "blocks", -1},      {"delay_p99", "blocks", -1},
        {"delay_max", "blocks", -1},      {"burn", "base units", 0},
        {"tips", "base units", 0},        {"payments", "base units", 0},
        {"revenue_proposer", "base units", 0}, {"welfare", "base units", 1},
        {"paid", "base units", 0},        {"utility", "base units", 1},
        {"efficiency", "ratio", 1},       {"poa", "ratio", -1},
        {"welfare_opt", "base units", 0}, {"opt_exact", "flag", 0},
        {"bound_gap", "ratio", 0},
        {"efficiency_greedy", "ratio", 1}, {"jain", "ratio", 1},
        {"gini", "ratio", -1},            {"var_util_per_bid", "ratio", -1},
        {"var_eff_per_bid", "ratio", -1}, {"w_p10", "ratio (W)", 0},
        {"w_p50", "ratio (W)", 0},        {"w_p90", "ratio (W)", 0},
        {"basefee_mean", "base units/cycle", 0}, {"basefee_cv", "ratio", -1},
        {"util_mean", "ratio", 0},        {"full_share", "ratio", 0},
        {"empty_share", "ratio", 0},      {"reversals", "count", -1},
        {"attack_gain", "ratio", -1},     {"svc_per_paid", "fires/base unit", 0},
        {"bias_slack_violated", "ratio", -1}, {"bias_slack_deficit", "base units/block", -1},
    };
    const char *dot = strchr(name, '.');
    size_t len = dot ? (size_t)(dot - name) : strlen(name);
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        if (strlen(u[i].name) == len && strncmp(u[i].name, name, len) == 0) {
            *better = u[i].better;
            return u[i].unit;
        }
    *better = 0;
    return "";
}

/* Which of v[0, n) are the best of a row (mark[i] = 1): the largest
 * (better > 0) or smallest (better < 0) finite value among the columns of
 * real rules (mechs[i] not a reference allocator, CS_MF_REFERENCE: the
 * greedy is a yardstick, not a contender; mechs may be NULL), every tie
 * marked; none when better is 0, fewer than two values take part, or they
 * are all equal (nothing to choose). */
void cs__best(const double *v, const char *const *mechs, size_t n, int better, int *mark)
{
    size_t nf = 0;
    double best = CS__REP_NAN;
    int differ = 0;
    for (size_t i = 0; i < n; i++) {
        const cs_mech_ops_t *ops = mechs ? cs_mech_find_any(mechs[i]) : NULL;
        mark[i] = 0;
        if (!isfinite(v[i]) || (ops && (ops->flags & CS_MF_REFERENCE))) continue;
        if (nf++ && v[i] != best) differ = 1;
        if (nf == 1 || (better > 0 ? v[i] > best : v[i] < best)) best = v[i];
    }
    if (better == 0 || nf < 2 || !differ) return;
    for (size_t i = 0; i < n; i++) {
        const cs_mech_ops_t *ops = mechs ? cs_mech_find_any(mechs[i]) : NULL;
        mark[i] = isfinite(v[i]) && v[i] == best && !(ops && (ops->flags & CS_MF_REFERENCE));
    }
}

/* Write v to a data file: "NaN" (which gnuplot skips) for non-finite. */
void cs__dat_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, " %.10g", v);
    else fputs(" NaN", f);
}

/* qsort comparators: doubles ascending (total order on the values, NaN
 * never reaches them); uint32 ascending. */
int cs__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int cs__cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Append x; returns 0 or -1 when out of memory. */
int cs__dvec_push(cs__dvec_t *d, double x)
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

/* Find gnuplot on PATH into g->exe.  Returns 0, or -1 if there is none. */
int cs__gp_find(cs__gp_t *g)
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
 * Run gnuplot with the arguments argv[1..] (NULL-terminated; argv[0] is
 * replaced) in g->dir, stdin and stdout on /dev/null, stderr appended to
 * g->log.  Returns gnuplot's exit status, or -1 if it could not be started.
 */
static int cs__gp_execv(const cs__gp_t *g, char **argv)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int nul = open("/dev/null", O_RDWR);
        int lg = open(g->log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0666);
        if (nul >= 0) {
            dup2(nul, 0);
            dup2(nul, 1);
        }
        if (lg >= 0) dup2(lg, 2);
        if (chdir(g->dir) != 0) _exit(126);
        argv[0] = (char *)"gnuplot";
        execv(g->exe, argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    if (WIFEXITED(st)) return WEXITSTATUS(st) == 127 ? -1 : WEXITSTATUS(st);
    return 128 + WTERMSIG(st);
}

/* Run gnuplot with one or two arguments (a2 may be NULL); as cs__gp_execv. */
int cs__gp_exec(const cs__gp_t *g, const char *a1, const char *a2)
{
    char *args[4] = {NULL, (char *)a1, (char *)a2, NULL};
    return cs__gp_execv(g, args);
}

/* Begin plot `base`: create DIR/base.gp with the terminal and output lines
 * and common settings.  Returns the open script or NULL (errno set).
 * Every script starts from gnuplot's defaults (`reset session`) and closes
 * its PNG at the end (`unset output`), so that one gnuplot process can run
 * a report's scripts in turn and each draws as it would alone. */
FILE *cs__gp_begin(const cs__gp_t *g, const char *base, int w, int h)
{
    char path[CS__PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.gp", g->dir, base);
    FILE *f = cs_publish_fcreate(path);
    if (!f) {
        fprintf(stderr, "cowsim report: cannot write %s: %s\n", path, strerror(errno));
        return NULL;
    }
    fprintf(f, "# %s.gp -- generated by cowsim report; run `gnuplot %s.gp` in this directory.\n", base, base);
    fprintf(f, "reset session\n");
    if (g->cairo) fprintf(f, "set terminal pngcairo noenhanced size %d,%d font 'sans,10'\n", w, h);
    else fprintf(f, "set terminal png noenhanced size %d,%d\n", w, h);
    fprintf(f, "set output '%s.png'\n", base);
    fprintf(f, "set grid lc rgb '#dddddd'\nset border lc rgb '#444444'\nset key noautotitle\n");
    return f;
}

/* Give up plot `base` after an error elsewhere: close its script f and
 * remove it (no script without its plot line left behind). */
void cs__gp_abort(const cs__gp_t *g, FILE *f, const char *base)
{
    char path[CS__PATH_MAX];
    fclose(f);
    snprintf(path, sizeof path, "%s/%s.gp", g->dir, base);
    unlink(path);
}

/* 1 if the file at path ends with a PNG's IEND chunk (length 0, "IEND",
 * its CRC): gnuplot wrote it to the end. */
static int cs__png_whole(const char *path)
{
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    unsigned char tail[12];
    int fd = open(path, O_RDONLY | O_NOFOLLOW);
    if (fd < 0) return 0;
    off_t end = lseek(fd, 0, SEEK_END);
    int ok = end >= 8 + 12 && pread(fd, tail, sizeof tail, end - 12) == (ssize_t)sizeof tail &&
             memcmp(tail, iend, sizeof tail) == 0;
    close(fd);
    return ok;
}

/*
 * Close script f of plot `base` and record the plot, with alt text and
 * caption, in plots, to be drawn by cs__gp_flush.  Its PNG is created here,
 * empty, as a new regular file (any link planted at the name is removed,
 * not followed); the flush checks that gnuplot filled that same file.
 * Returns 0, or CS_EXIT_IO with a message on stderr.
 */
int cs__gp_end(const cs__gp_t *g, FILE *f, const char *base, cs__plots_t *plots, const char *alt,
               const char *caption)
{
    char path[CS__PATH_MAX];
    fprintf(f, "unset output\n");
    int werr = ferror(f);
    if (fclose(f) != 0 || werr) {
        int e = errno;
        snprintf(path, sizeof path, "%s/%s.gp", g->dir, base);
        unlink(path); /* no truncated script left behind */
        fprintf(stderr, "cowsim report: cannot write %s: %s\n", path, strerror(e));
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
    snprintf(path, sizeof path, "%s/%s.png", g->dir, base);
    struct stat own;
    int pfd = cs_publish_create(path);
    if (pfd < 0 || fstat(pfd, &own) != 0) {
        fprintf(stderr, "cowsim report: cannot write %s: %s\n", path, strerror(errno));
        if (pfd >= 0) close(pfd);
        return CS_EXIT_IO;
    }
    close(pfd);
    cs__plot_t *pl = &plots->p[plots->n++];
    snprintf(pl->file, sizeof pl->file, "%s.png", base);
    snprintf(pl->alt, sizeof pl->alt, "%s", alt);
    snprintf(pl->caption, sizeof pl->caption, "%s", caption);
    pl->pending = 1;
    pl->dev = (unsigned long long)own.st_dev;
    pl->ino = (unsigned long long)own.st_ino;
    return 0;
}

/* 1 if DIR/pl->file is still the placeholder created for it. */
static int cs__plot_same(const cs__gp_t *g, const cs__plot_t *pl, struct stat *sb)
{
    char path[CS__PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", g->dir, pl->file);
    return lstat(path, sb) == 0 && S_ISREG(sb->st_mode) && (unsigned long long)sb->st_ino == pl->ino &&
           (unsigned long long)sb->st_dev == pl->dev;
}

/* Remove the placeholders of plots not drawn (after an error elsewhere)
 * and drop them from plots: no 0-byte PNG is left behind. */
void cs__gp_discard(const cs__gp_t *g, cs__plots_t *plots)
{
    size_t k = 0;
    for (size_t i = 0; i < plots->n; i++) {
        cs__plot_t *pl = &plots->p[i];
        struct stat sb;
        char path[CS__PATH_MAX];
        if (!pl->pending) {
            plots->p[k++] = *pl;
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", g->dir, pl->file);
        if (cs__plot_same(g, pl, &sb)) unlink(path);
    }
    plots->n = k;
}

/* Scripts given to one gnuplot process (its argument list stays short). */
#define CS__GP_BATCH 64

/*
 * Draw every pending plot: one gnuplot process runs up to CS__GP_BATCH
 * scripts in turn, which saves a start-up (fonts, terminal) per plot.
 * Each PNG must then be the placeholder cs__gp_end created, ending with
 * its IEND chunk: gnuplot exits 0 when the disk fills under it, so an
 * empty or cut PNG is a failed write.  On the first failure: a message
 * naming the plot (for a failed gnuplot, the first script whose PNG it
 * did not finish: it stops there), every unfinished placeholder removed
 * (a PNG replaced meanwhile is not ours and is left alone), the failed
 * and undrawn plots dropped from plots, and CS_EXIT_IO.  Returns 0 when
 * all are drawn.
 */
int cs__gp_flush(const cs__gp_t *g, cs__plots_t *plots)
{
    char *argv[CS__GP_BATCH + 2];
    char names[CS__GP_BATCH][sizeof plots->p[0].file];
    size_t idx[CS__GP_BATCH];
    int rc = 0;
    size_t i = 0;
    while (rc == 0 && i < plots->n) {
        size_t nb = 0;
        for (; i < plots->n && nb < CS__GP_BATCH; i++) {
            cs__plot_t *pl = &plots->p[i];
            if (!pl->pending) continue;
            size_t len = strlen(pl->file) - 4; /* "x.png" -> "x.gp" */
            snprintf(names[nb], sizeof names[nb], "%.*s.gp", (int)len, pl->file);
            argv[nb + 1] = names[nb];
            idx[nb++] = i;
        }
        if (nb == 0) break;
        argv[nb + 1] = NULL;
        int st = cs__gp_execv(g, argv);
        for (size_t j = 0; j < nb; j++) {
            cs__plot_t *pl = &plots->p[idx[j]];
            char path[CS__PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", g->dir, pl->file);
            struct stat sb;
            int same = cs__plot_same(g, pl, &sb);
            if (same && cs__png_whole(path)) {
                pl->pending = 0;
                continue;
            }
            if (rc == 0) {
                if (st != 0)
                    fprintf(stderr, "cowsim report: gnuplot (%s) failed on %s/%s (exit %d); see %s\n", g->exe,
                            g->dir, names[j], st, g->log);
                else if (same)
                    fprintf(stderr, "cowsim report: cannot write %s: gnuplot (%s) left it %s (disk full?); see %s\n",
                            path, g->exe, sb.st_size == 0 ? "empty" : "incomplete", g->log);
                else
                    fprintf(stderr, "cowsim report: %s was replaced while gnuplot wrote it\n", path);
                rc = CS_EXIT_IO;
            }
        }
    }
    if (rc != 0) cs__gp_discard(g, plots);
    return rc;
}

/* Open DIR/name for writing; on failure print a message naming it. */
FILE *cs__open_out(const char *dir, const char *name)
{
    char path[CS__PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = cs_publish_fcreate(path); /* never through a planted link */
    if (!f) fprintf(stderr, "cowsim report: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

/* Close a data file; CS_EXIT_IO with a message if any write failed. */
int cs__close_out(FILE *f, const char *dir, const char *name)
{
    int werr = ferror(f);
    if (fclose(f) != 0 || werr) {
        int e = errno;
        char path[CS__PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        unlink(path); /* no truncated data file left behind */
        fprintf(stderr, "cowsim report: cannot write %s: %s\n", path, strerror(e));
        return CS_EXIT_IO;
    }
    return 0;
}
