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
 *   - a script that cannot be created: NULL and "cannot write";
 *   - batches: one gnuplot process draws up to 64 pending plots (65 take
 *     two processes, of 64 and 1 arguments); a gnuplot that stops at the
 *     second of three scripts is reported as failing on that script, the
 *     first PNG kept and the other two placeholders removed and dropped;
 *     cs__gp_discard removes undrawn placeholders; each script starts with
 *     `reset session` and ends with `unset output`.
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
    int rc = cs__gp_end(g, f, base, plots, "alt text", "a caption");
    return rc ? rc : cs__gp_flush(g, plots);
}

/* Write plot base's script and record it, pending; 1 if both worked. */
static int pend(cs__gp_t *g, const char *base, cs__plots_t *plots)
{
    FILE *f = cs__gp_begin(g, base, 64, 64);
    CS_CHECK(f != NULL);
    if (!f) return 0;
    fprintf(f, "plot x\n");
    int rc = cs__gp_end(g, f, base, plots, "a", "c");
    CS_CHECK_EQ_U64(rc, 0);
    return rc == 0;
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

    /* Batches.  The stand-in writes a whole PNG for each script argument
     * and logs its argument count to calls.txt. */
    static const char good_png[] = "printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\000IEND\\256\\102\\140\\202'";
    static char body[1024];
    snprintf(body, sizeof body, "echo $# >> calls.txt\nfor a in \"$@\"; do %s > \"${a%%.gp}.png\"; done", good_png);
    fake(&g, "many.sh", body);
    cs__plots_t bp = {NULL, 0, 0};
    char base[32];
    for (int i = 0; i < 65; i++) {
        snprintf(base, sizeof base, "b%02d", i);
        if (!pend(&g, base, &bp)) break;
    }
    CS_CHECK(exists("b64", "png")); /* the placeholder, before the flush */
    CS_CHECK_EQ_U64(cs__gp_flush(&g, &bp), 0);
    CS_CHECK_EQ_U64(bp.n, 65);
    int drawn = 0;
    for (size_t i = 0; i < bp.n; i++) drawn += !bp.p[i].pending;
    CS_CHECK_EQ_U64(drawn, 65);
    snprintf(want, sizeof want, "%s/calls.txt", g_dir);
    size_t cn;
    char *calls = (char *)cs_test_slurp(want, &cn);
    CS_CHECK(calls != NULL);
    if (calls) CS_CHECK_STR(calls, "64\n1\n");
    free(calls);
    snprintf(want, sizeof want, "%s/b07.gp", g_dir);
    char *script = (char *)cs_test_slurp(want, &cn);
    CS_CHECK(script != NULL);
    if (script) {
        CS_CHECK(strstr(script, "\nreset session\nset terminal ") != NULL);
        CS_CHECK(cn > 13 && strcmp(script + cn - 13, "unset output\n") == 0);
    }
    free(script);
    free(bp.p);

    /* A gnuplot that draws the first script and stops at the second. */
    snprintf(body, sizeof body, "%s > \"$P\"; exit 3", good_png);
    fake(&g, "stop2.sh", body);
    cs__plots_t sp = {NULL, 0, 0};
    for (int i = 1; i <= 3; i++) {
        snprintf(base, sizeof base, "q%d", i);
        if (!pend(&g, base, &sp)) break;
    }
    err_to_file();
    CS_CHECK_EQ_U64(cs__gp_flush(&g, &sp), CS_EXIT_IO);
    snprintf(want, sizeof want, "failed on %s/q2.gp (exit 3); see %s", g_dir, g.log);
    CS_CHECK(err_has(want));
    CS_CHECK(exists("q1", "png") && !exists("q2", "png") && !exists("q3", "png"));
    CS_CHECK_EQ_U64(sp.n, 1);
    if (sp.n == 1) CS_CHECK_STR(sp.p[0].file, "q1.png");
    free(sp.p);

    /* Discard: undrawn placeholders go, a drawn plot stays. */
    cs__plots_t dp = {NULL, 0, 0};
    (void)pend(&g, "d1", &dp);
    CS_CHECK(exists("d1", "png"));
    cs__gp_discard(&g, &dp);
    CS_CHECK(!exists("d1", "png"));
    CS_CHECK_EQ_U64(dp.n, 0);
    free(dp.p);

    cs__gp_t bad = g;
    bad.dir = "/nonexistent-cs-dir";
    err_to_file();
    CS_CHECK(cs__gp_begin(&bad, "p7", 10, 10) == NULL);
    CS_CHECK(err_has("cowsim report: cannot write /nonexistent-cs-dir/p7.gp: No such file or directory"));
    return cs_test_finish("report_gp", g_dir);
}
