/*
 * test_report_full.c -- `cowsim report` on a full disk (issue 25, minor):
 * it used to leave 0-byte or cut .dat/.gp/.png files and say "gnuplot
 * failed (exit 0)".  The disk fills as in tests/test_faults.c: RLIMIT_FSIZE
 * (inherited by gnuplot) with SIGXFSZ ignored, so a write past the cap fails
 * with EFBIG; gnuplot itself exits 0 with a cut PNG.
 *
 * One run of scenarios/minimal.json; a reference report without a cap; then
 * the report again with each cap in caps[] (bytes per file: one below the
 * smallest PNG, so gnuplot's PNG is cut; 200 bytes, so cowsim's own write
 * of a data file or script fails; then every 32nd of the largest PNG's
 * size, each failing at another file; every 8th with CS_TEST_SMALL).
 * Each must
 *   - exit 3, with "cowsim report: cannot write <DIR>/<file>" naming a file
 *     of the output directory, and never "exit 0";
 *   - leave no partial file: every file left in the directory (but
 *     gnuplot.log) is byte for byte the reference report's file of that
 *     name, and there is no report.md or report.md.tmp.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cs_test.h"

static const char *bin;

/* cowsim report IN -o OUT with file-size cap fsize (0: none), stderr to
 * err; returns the exit status, -1 if it did not exit. */
static int report(const char *in, const char *out, long fsize, const char *err)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (nul >= 0) dup2(nul, 1);
        if (e >= 0) dup2(e, 2);
        if (fsize > 0) {
            struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
            signal(SIGXFSZ, SIG_IGN);
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        execl(bin, "cowsim", "report", in, "-o", out, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Sizes of the reference's files: the smallest and largest .png, the
 * largest .dat/.gp. */
static void ref_sizes(const char *ref, long *min_png, long *max_png, long *max_text)
{
    *min_png = -1;
    *max_png = -1;
    *max_text = -1;
    DIR *d = opendir(ref);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        char p[1024];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", ref, e->d_name);
        if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".png") == 0 && (*min_png < 0 || sb.st_size < *min_png))
            *min_png = sb.st_size;
        if (l > 4 && strcmp(e->d_name + l - 4, ".png") == 0 && sb.st_size > *max_png) *max_png = sb.st_size;
        if (l > 4 && (strcmp(e->d_name + l - 4, ".dat") == 0 || strcmp(e->d_name + l - 3, ".gp") == 0) &&
            sb.st_size > *max_text)
            *max_text = sb.st_size;
    }
    if (d) closedir(d);
}

/* Files of out (but gnuplot.log) that differ from ref's of the same name,
 * printed; returns their count, and the number of files in *n. */
static int partial_files(const char *out, const char *ref, int *n)
{
    int bad = 0;
    *n = 0;
    DIR *d = opendir(out);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "gnuplot.log") == 0) continue;
        char a[1024], b[1024];
        snprintf(a, sizeof a, "%s/%s", out, e->d_name);
        snprintf(b, sizeof b, "%s/%s", ref, e->d_name);
        size_t na = 0, nb = 0;
        unsigned char *x = cs_test_slurp(a, &na), *y = cs_test_slurp(b, &nb);
        (*n)++;
        if (!x || !y || na != nb || memcmp(x, y, na) != 0 || strncmp(e->d_name, "report.md", 9) == 0) {
            fprintf(stderr, "  %s: %zu bytes, the reference's %zu: a partial file\n", a, na, nb);
            bad++;
        }
        free(x);
        free(y);
    }
    if (d) closedir(d);
    return bad;
}

int main(void)
{
    bin = getenv("CS_BIN");
    CS_CHECK(bin != NULL);
    if (!bin) return cs_test_done("report_full");
    char dir[600], cmd[4096], in[700], ref[700], err[700];
    snprintf(dir, sizeof dir, "%s/cs_test_report_full_XXXXXX", cs_test_tmpdir());
    CS_CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "'%s' run scenarios/minimal.json -o '%s/run' --quiet > /dev/null 2>&1", bin, dir);
    CS_CHECK(system(cmd) == 0);
    snprintf(in, sizeof in, "%s/run/fifo.h5", dir);
    snprintf(ref, sizeof ref, "%s/ref", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    CS_CHECK_EQ_U64(report(in, ref, 0, err), 0);
    /* gnuplot's PNGs are the same bytes from the same script (the
     * comparison below relies on it) */
    char ref2[700];
    snprintf(ref2, sizeof ref2, "%s/ref2", dir);
    CS_CHECK_EQ_U64(report(in, ref2, 0, err), 0);
    int n = 0;
    CS_CHECK_EQ_U64(partial_files(ref2, ref, &n), 1); /* report.md only */
    CS_CHECK(n >= 5);
    long min_png = -1, max_png = -1, max_text = -1;
    ref_sizes(ref, &min_png, &max_png, &max_text);
    CS_CHECK(min_png > 1000 && max_text > 200);
    long caps[2] = {min_png - 1, 200};
    const char *what[2] = {"a PNG cut by gnuplot", "a data file or script cut"};
    for (int k = 0; k < 2; k++) {
        char out[700];
        snprintf(out, sizeof out, "%s/cap%d", dir, k);
        int st = report(in, out, caps[k], err);
        size_t ne = 0;
        char *msg = (char *)cs_test_slurp(err, &ne);
        char want[800];
        snprintf(want, sizeof want, "cowsim report: cannot write %s/", out);
        printf("report_full: cap %ld bytes (%s): exit %d: %s", caps[k], what[k], st, msg ? msg : "(no message)\n");
        CS_CHECK_EQ_U64(st, 3);
        CS_CHECK(msg && strstr(msg, want) != NULL);
        CS_CHECK(msg && strstr(msg, "exit 0") == NULL);
        if (k == 0) CS_CHECK(msg && strstr(msg, ".png: gnuplot") != NULL && strstr(msg, "incomplete") != NULL);
        else CS_CHECK(msg && strstr(msg, ".png") == NULL && strstr(msg, "File too large") != NULL);
        free(msg);
        CS_CHECK_EQ_U64(partial_files(out, ref, &n), 0);
    }
    /* Caps across the sizes of the files (every 32nd of the largest PNG):
     * each fails at another file, none leaves a partial one.  Each cap is
     * a forked report and gnuplot; CS_TEST_SMALL (CI's sanitizer suite)
     * steps by an 8th instead: 7 caps across the same sizes, the two caps
     * above (a cut PNG, a cut data file) kept. */
    const long steps = (long)cs_test_size("cap steps", 32, 8);
    for (long cap = max_png / steps; cap < max_png; cap += max_png / steps) {
        char out[700];
        snprintf(out, sizeof out, "%s/sweep%ld", dir, cap);
        int st = report(in, out, cap, err);
        size_t ne = 0;
        char *msg = (char *)cs_test_slurp(err, &ne);
        char want[800];
        snprintf(want, sizeof want, "cowsim report: cannot write %s/", out);
        int bad = partial_files(out, ref, &n);
        if (st != 3 || !msg || !strstr(msg, want) || bad)
            fprintf(stderr, "  cap %ld: exit %d, %d partial file(s): %s", cap, st, bad, msg ? msg : "\n");
        CS_CHECK_EQ_U64(st, 3);
        CS_CHECK(msg && strstr(msg, want) != NULL);
        CS_CHECK_EQ_U64(bad, 0);
        free(msg);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CS_CHECK(system(cmd) == 0);
    return cs_test_done("report_full");
}
