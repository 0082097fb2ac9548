/*
 * test_report_gp.c -- the report's gnuplot step (analysis/cs_report_util.c
 * cs__gp_begin / cs__gp_end) against stand-in gnuplot scripts, so that
 * each way a plot can fail is seen without a real gnuplot:
 *   - it exits 0 but leaves the PNG empty, or cut (no IEND chunk): exit 3,
 *     "left it empty" / "left it incomplete (disk full?)", no PNG left;
 *   - it exits 3, or cannot be started: exit 3, "failed on DIR/x.gp
 *     (exit 3)" / "(exit -1)";
 *   - the PNG's name is replaced by another file meanwhile: exit 3,
 *     "was replaced while gnuplot wrote it", the other file kept;
 *   - it writes a whole PNG (ending in IEND): 0, and the plot is listed
 *     with its alt text and caption;
 *   - a script that cannot be created: NULL and "cannot write".
 */
#include "cs_exit.h"
#include "cs_report_int.h"
#include "cs_test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_dir[256], g_err[320];
static int g_saved = -1;

static void err_to_file(void)
{
    fflush(stderr);
    g_saved = dup(2);
    int fd = open(g_err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
}

/* Restore stderr; 1 if what was written there contains want. */
static int err_has(const char *want)
{
    if (g_saved >= 0) { /* the first call after err_to_file restores stderr */
        fflush(stderr);
        dup2(g_saved, 2);
        close(g_saved);
        g_saved = -1;
    }
    size_t n;
    char *t = (char *)cs_test_slurp(g_err, &n);
    int ok = t && strstr(t, want) != NULL;
    if (!ok) fprintf(stderr, "stderr was: %s\n(wanted: %s)\n", t ? t : "(none)", want);
    free(t);
    return ok;
}

/* A stand-in gnuplot: a shell script whose body acts on $P, the PNG. */
static void fake(cs__gp_t *g, const char *name, const char *body)
{
    snprintf(g->exe, sizeof g->exe, "%s/%s", g_dir, name);
    char text[512];
    snprintf(text, sizeof text, "#!/bin/sh\nP=\"${1%%.gp}.png\"\n%s\n", body);
    CS_CHECK(cs_test_spit(g->exe, (const unsigned char *)text, strlen(text)) == 0);
    CS_CHECK(chmod(g->exe, 0700) == 0);
}

/* Begin plot base, then end it with the current stand-in; exit status. */
static int plot(cs__gp_t *g, const char *base, cs__plots_t *plots)
{
    FILE *f = cs__gp_begin(g, base, 640, 480);
    CS_CHECK(f != NULL);
    if (!f) return -1;
    fprintf(f, "plot x\n");
    err_to_file();
    return cs__gp_end(g, f, base, plots, "alt text", "a caption");
}

static int exists(const char *base, const char *ext)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s.%s", g_dir, base, ext);
    return access(p, F_OK) == 0;
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "%s/cs-report-gp-XXXXXX", cs_test_tmpdir());
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(g_err, sizeof g_err, "%s/stderr.txt", g_dir);
    cs__gp_t g;
    memset(&g, 0, sizeof g);
    g.dir = g_dir;
    snprintf(g.log, sizeof g.log, "%s/gnuplot.log", g_dir);
    cs__plots_t plots = {NULL, 0, 0};
    static char want[5000];

    fake(&g, "empty.sh", "exit 0");
    CS_CHECK_EQ_U64(plot(&g, "p1", &plots), CS_EXIT_IO);
    CS_CHECK(err_has("p1.png: gnuplot (") && err_has("left it empty (disk full?)"));
    CS_CHECK(!exists("p1", "png"));

    fake(&g, "cut.sh", "printf 'abcdefghijklmnopqrstuvwxyz' > \"$P\"");
    CS_CHECK_EQ_U64(plot(&g, "p2", &plots), CS_EXIT_IO);
    CS_CHECK(err_has("left it incomplete (disk full?)"));
    CS_CHECK(!exists("p2", "png"));

    fake(&g, "fail.sh", "exit 3");
    CS_CHECK_EQ_U64(plot(&g, "p3", &plots), CS_EXIT_IO);
    snprintf(want, sizeof want, "failed on %s/p3.gp (exit 3); see %s", g_dir, g.log);
    CS_CHECK(err_has(want));

    snprintf(g.exe, sizeof g.exe, "%s/no-such-gnuplot", g_dir);
    CS_CHECK_EQ_U64(plot(&g, "p4", &plots), CS_EXIT_IO);
    CS_CHECK(err_has("failed on") && err_has("(exit -1)"));

    fake(&g, "swap.sh", "printf 'other' > \"$P.new\"; mv \"$P.new\" \"$P\""); /* a new inode */
    CS_CHECK_EQ_U64(plot(&g, "p5", &plots), CS_EXIT_IO);
    CS_CHECK(err_has("p5.png was replaced while gnuplot wrote it"));
    CS_CHECK(exists("p5", "png")); /* not ours: left alone */

    /* 8 bytes, then the IEND chunk: length 0, "IEND", CRC ae 42 60 82. */
    fake(&g, "good.sh", "printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\000IEND\\256\\102\\140\\202' > \"$P\"");
    CS_CHECK_EQ_U64(plot(&g, "p6", &plots), 0);
    (void)err_has("");
    CS_CHECK(exists("p6", "png"));
    CS_CHECK_EQ_U64(plots.n, 1);
    if (plots.n == 1) {
        CS_CHECK_STR(plots.p[0].file, "p6.png");
        CS_CHECK_STR(plots.p[0].alt, "alt text");
        CS_CHECK_STR(plots.p[0].caption, "a caption");
    }
    free(plots.p);

    cs__gp_t bad = g;
    bad.dir = "/nonexistent-cs-dir";
    err_to_file();
    CS_CHECK(cs__gp_begin(&bad, "p7", 10, 10) == NULL);
    CS_CHECK(err_has("cowsim report: cannot write /nonexistent-cs-dir/p7.gp: No such file or directory"));
    return cs_test_finish("report_gp", g_dir);
}
