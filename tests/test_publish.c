/*
 * test_publish.c -- how cowsim publishes its output files (sim/cs_publish.h,
 * DESIGN-NOTES N48, README "Failures"), through the shim tests/cs_killshim.c
 * (LD_PRELOAD; CS_KILLSHIM set by ctest):
 *
 *  1. The publish rule, from the shim's log of every write, copy, fsync and
 *     rename: each rename of an output (a run file at its checkpoints and
 *     close; sweep.h5; harm.h5; a blessed baseline; report.md) is preceded
 *     by an fsync of the renamed file,
 *     with no write to it after, and followed at once by an fsync of the
 *     directory (cs_test_publish_log).  A run of 100 blocks with
 *     flush_every = 25 and checkpoint factor 0 renames 100 / 25 + 2 = 6
 *     times (creation, 4 flushes, close).
 *  2. harm.h5 is published by rename: `run --harm` (tests/data/harm/
 *     spam-fifo.json) killed after each of its calls after the last run
 *     file's rename, whole and cut to half, leaves the previous harm.h5
 *     (written with max_fires_per_block = 3) until the rename onto harm.h5
 *     and the new one from it on -- /harm and /harm_summary byte for byte.
 *  3. Two writers of one path: a run stopped (SIGSTOP by the shim) right
 *     after its second publish holds <out>.work's lock; a second run to the
 *     same path exits 3 with the message naming the path, and `compare`
 *     says the work file is being written; the first run, continued,
 *     finishes with the same rows as an undisturbed run.  The same for
 *     sweeps into one directory: a sweep stopped right after its first
 *     write to sweep.h5.tmp holds sweep.h5.work's lock; a second sweep
 *     exits 3 naming sweep.h5, leaves that sweep.h5.tmp byte for byte and
 *     writes nothing; the first, continued, finishes with the run files of
 *     an undisturbed sweep and a complete sweep.h5.
 *  4. Leftovers: a run killed in the middle of a checkpoint's copy leaves
 *     <out>.work and <out>.tmp; `compare` and `report` list both, one line
 *     each; the next run names each as it replaces it and leaves neither.
 *     Leftover sweep.h5.work, sweep.h5.tmp and harm.h5.tmp are named by
 *     their writers too,
 *     and `compare` of a multi-seed run directory finds one in seed-<s>/.
 *  5. fires_seen at checkpoints: a run with fires off (/fires empty) killed
 *     after its checkpoint of block 50 says how many fires its blocks had
 *     (the sum of /blocks.fired; killpoints checks fires mode "all").
 */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cs_h5.h"
#include "cs_test.h"

static const char *g_bin, *g_shim, *g_src;
static char g_tmp[256];

/* Run cowsim with argv (NULL-terminated, argv[0] = "cowsim") under the shim
 * (kill at `at`, stop at `stop`, 0: never; torn; log: NULL none), stdout
 * and stderr to files out / err (NULL: /dev/null).  Returns the pid. */
static pid_t pb_start(char *const *argv, long at, long stop, int torn, const char *log, const char *out,
                      const char *err)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o >= 0) dup2(o, 1);
        if (e >= 0) dup2(e, 2);
        char buf[32];
        if (at > 0) {
            snprintf(buf, sizeof buf, "%ld", at);
            setenv("CS_KILL_AT", buf, 1);
        }
        if (stop > 0) {
            snprintf(buf, sizeof buf, "%ld", stop);
            setenv("CS_KILL_STOP", buf, 1);
        }
        if (torn) setenv("CS_KILL_TORN", "1", 1);
        if (log) setenv("CS_KILL_LOG", log, 1);
        setenv("COWSIM_H5_CHECKPOINT_FACTOR", "0", 1);
        setenv("LD_PRELOAD", g_shim, 1);
        const char *asan = getenv("ASAN_OPTIONS");
        char opt[512];
        snprintf(opt, sizeof opt, "%s%sverify_asan_link_order=0", asan ? asan : "", asan && *asan ? ":" : "");
        setenv("ASAN_OPTIONS", opt, 1);
        execv(g_bin, argv);
        _exit(127);
    }
    return pid;
}

static int pb_wait(pid_t pid)
{
    int st = -1;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return st;
}

/* Exit status of a finished child, or -1 if it did not exit. */
static int pb_exit(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : -1; }

static int pb_exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

/* The whole file into a new NUL-terminated string ("" if absent). */
static char *pb_slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *s = calloc(1, 1);
    size_t n = 0;
    if (!f || !s) {
        if (f) fclose(f);
        return s;
    }
    char buf[4096];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
        char *x = realloc(s, n + k + 1);
        if (!x) break;
        s = x;
        memcpy(s + n, buf, k);
        n += k;
        s[n] = '\0';
    }
    fclose(f);
    return s;
}

/* Number of lines of text that contain needle. */
static long pb_lines_with(const char *text, const char *needle)
{
    long c = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[8192];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        if (strstr(line, needle)) c++;
        p += len + (nl ? 1 : 0);
    }
    return c;
}

/* Lines about leftover work files (cs_publish.h) in text. */
static long pb_notes(const char *text)
{
    return pb_lines_with(text, " left by an interrupted run") + pb_lines_with(text, " by a run still running");
}

/* 1 if text has the exact line `line`. */
static int pb_has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)); p++)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0')) return 1;
    return 0;
}

/* Call numbers of the renames onto a name ending in suffix, from a shim
 * log (one process); returns how many, the last call number in *total. */
static int pb_renames(const char *log, const char *suffix, long *at, int cap, long *total)
{
    FILE *f = fopen(log, "r");
    int n = 0;
    *total = 0;
    if (!f) return 0;
    char line[2200], kind[32], a[1024], b[1024];
    long num;
    int pid;
    size_t sl = strlen(suffix);
    while (fgets(line, sizeof line, f)) {
        int k = sscanf(line, "%ld %d %31s %1023s %1023s", &num, &pid, kind, a, b);
        if (k < 4) continue;
        *total = num;
        size_t bl = strlen(b);
        if (k == 5 && strcmp(kind, "rename") == 0 && bl >= sl && strcmp(b + bl - sl, suffix) == 0 && n < cap)
            at[n++] = num;
    }
    fclose(f);
    return n;
}

/* Call number of the first call of kind on a path ending in suffix after
 * call `after` (0 if none). */
static long pb_first(const char *log, const char *kind, const char *suffix, long after)
{
    FILE *f = fopen(log, "r");
    if (!f) return 0;
    char line[2200], k[32], a[1024];
    long num, found = 0;
    int pid;
    size_t sl = strlen(suffix);
    while (!found && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%ld %d %31s %1023s", &num, &pid, k, a) < 4) continue;
        size_t al = strlen(a);
        if (num > after && strcmp(k, kind) == 0 && al >= sl && strcmp(a + al - sl, suffix) == 0) found = num;
    }
    fclose(f);
    return found;
}

/* The bytes of /harm and /harm_summary of a harm.h5, read in their file
 * types, into *buf (malloc'd); 0, or -1 if the file does not read. */
static int pb_harm_bytes(const char *path, uint8_t **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_file_locking(fapl, 0, 1);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (f < 0) return -1;
    int rc = 0;
    const char *names[] = {"harm", "harm_summary"};
    for (int i = 0; i < 2 && rc == 0; i++) {
        hid_t d = H5Dopen2(f, names[i], H5P_DEFAULT);
        hid_t t = d >= 0 ? H5Dget_type(d) : -1;
        hid_t s = d >= 0 ? H5Dget_space(d) : -1;
        hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
        size_t sz = t >= 0 ? H5Tget_size(t) : 0;
        uint8_t *x = n >= 0 && sz ? realloc(*buf, *len + (size_t)n * sz + 1) : NULL;
        if (!x || H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, x + *len) < 0) rc = -1;
        if (x) {
            *buf = x;
            *len += (size_t)n * sz;
        }
        if (s >= 0) H5Sclose(s);
        if (t >= 0) H5Tclose(t);
        if (d >= 0) H5Dclose(d);
    }
    H5Fclose(f);
    return rc;
}

/* The rows of every dataset of a run file; the caller frees rows[d]. */
static int pb_load(const char *path, void *rows[CS_H5_NDS], size_t n[CS_H5_NDS], int *complete)
{
    int err = 0;
    memset(rows, 0, sizeof(void *) * CS_H5_NDS);
    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    if (!r) return -1;
    *complete = cs_h5_info(r)->complete;
    int rc = 0;
    for (int d = 0; d < CS_H5_NDS && rc == 0; d++)
        if (cs_h5_read_all(r, (cs_h5_ds)d, &rows[d], &n[d]) != CS_OK) rc = -1;
    cs_h5_close_read(r);
    return rc;
}

/* 1 if the run files a and b have the same rows in every dataset and are
 * both complete. */
static int pb_same_run(const char *a, const char *b)
{
    void *ra[CS_H5_NDS], *rb[CS_H5_NDS];
    size_t na[CS_H5_NDS], nb[CS_H5_NDS];
    int ca = 0, cb = 0;
    int ok = pb_load(a, ra, na, &ca) == 0 && pb_load(b, rb, nb, &cb) == 0 && ca == 1 && cb == 1;
    for (int d = 0; d < CS_H5_NDS && ok; d++)
        ok = na[d] == nb[d] && (na[d] == 0 || memcmp(ra[d], rb[d], na[d] * cs_h5_ds_row_size((cs_h5_ds)d)) == 0);
    for (int d = 0; d < CS_H5_NDS; d++) {
        free(ra[d]);
        free(rb[d]);
    }
    return ok;
}

/* 1 if the files a and b hold the same bytes. */
static int pb_same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = getc(fa), cb = getc(fb);
        same = ca == cb;
        if (ca == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/* Rows of /runs of a sweep.h5 and its attribute complete, or -1. */
static long pb_sweep_rows(const char *path, int *complete)
{
    *complete = -1;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_file_locking(fapl, 0, 1);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (f < 0) return -1;
    long rows = -1;
    hid_t d = H5Dopen2(f, "runs", H5P_DEFAULT);
    hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
    if (sp >= 0) rows = (long)H5Sget_simple_extent_npoints(sp);
    hid_t a = H5Aopen(f, "complete", H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_INT, complete) < 0) rows = -1;
    if (a >= 0) H5Aclose(a);
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
    H5Fclose(f);
    return rows;
}

/* Rows of /blocks of a run file, or -1. */
static long pb_blocks(const char *path)
{
    int err = 0;
    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    if (!r) return -1;
    uint64_t n = 0;
    long v = cs_h5_nrows(r, CS_H5_BLOCKS, &n) == CS_OK ? (long)n : -1;
    cs_h5_close_read(r);
    return v;
}

/* Run argv (no kill), stderr to err: expect exit 0, the text want in
 * stderr, and exactly `notes` lines about leftovers. */
static void pb_expect(char *const *argv, const char *err, const char *want, long notes)
{
    CS_CHECK_EQ_U64(pb_exit(pb_wait(pb_start(argv, 0, 0, 0, NULL, NULL, err))), 0);
    char *etext = pb_slurp(err);
    CS_CHECK(strstr(etext, want) != NULL);
    CS_CHECK_EQ_U64(pb_notes(etext), notes);
    free(etext);
}

static void pb_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CS_CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

int main(void)
{
    g_bin = getenv("CS_BIN");
    g_shim = getenv("CS_KILLSHIM");
    g_src = getenv("CS_SRC");
    if (!g_bin || !g_shim || !g_src) {
        fprintf(stderr, "test_publish: CS_BIN, CS_KILLSHIM and CS_SRC must be set (ctest sets them)\n");
        return 1;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    snprintf(g_tmp, sizeof g_tmp, "%s/cs_publish_%d", cs_test_tmpdir(), (int)getpid());
    mkdir(g_tmp, 0755);
    char scn[400], sweep[400], harm[400];
    snprintf(scn, sizeof scn, "%s/pb.json", g_tmp);
    pb_write(scn, "{\"name\": \"publish\", \"seed\": 11, \"blocks\": 100, \"mechanism\": \"fifo\",\n"
                  " \"agents\": [{\"kind\": \"heartbeat\", \"count\": 3}, {\"kind\": \"oracle\", \"count\": 2}],\n"
                  " \"output\": {\"flush_every\": 25, \"weights_every\": 50}}\n");
    snprintf(sweep, sizeof sweep, "%s/sw.json", g_tmp);
    pb_write(sweep, "{\"name\": \"publish-sweep\", \"base\": \"pb.json\", \"seeds\": [3],\n"
                    " \"grid\": {\"agents[0].count\": [2, 4]}}\n");
    snprintf(harm, sizeof harm, "%s/tests/data/harm/spam-fifo.json", g_src);

    /* ---- 1. the publish rule: run, sweep, run --harm -------------------- */
    char ref[400], refout[420], log[400], err[400];
    snprintf(ref, sizeof ref, "%s/ref", g_tmp);
    snprintf(refout, sizeof refout, "%s/fifo.h5", ref);
    snprintf(log, sizeof log, "%s/run.log", g_tmp);
    char *run_ref[] = {"cowsim", "run", scn, "-o", ref, "--quiet", NULL};
    CS_CHECK_EQ_U64(pb_exit(pb_wait(pb_start(run_ref, 0, 0, 0, log, NULL, NULL))), 0);
    long renames = 0;
    CS_CHECK_EQ_U64(cs_test_publish_log(log, &renames), 0);
    CS_CHECK_EQ_U64(renames, 100 / 25 + 2);
    long pub[16], total = 0;
    int npub = pb_renames(log, "/fifo.h5", pub, 16, &total);
    CS_CHECK_EQ_U64(npub, 6);
    if (cs_test_fail) return cs_test_done("publish");

    /* `check --bless` and `report` publish their one file the same way:
     * the baseline and report.md, one rename each. */
    char blog[400], bjson[420], rlog[400], rout[420];
    snprintf(blog, sizeof blog, "%s/bless.log", g_tmp);
    snprintf(bjson, sizeof bjson, "%s/base.json", g_tmp);
    char *bless[] = {"cowsim", "check", "--bless", bjson, refout, NULL};
    CS_CHECK_EQ_U64(pb_exit(pb_wait(pb_start(bless, 0, 0, 0, blog, NULL, NULL))), 0);
    CS_CHECK_EQ_U64(cs_test_publish_log(blog, &renames), 0);
    CS_CHECK_EQ_U64(renames, 1);
    CS_CHECK_EQ_U64(pb_renames(blog, "/base.json", pub, 16, &total), 1);
    snprintf(rlog, sizeof rlog, "%s/report.log", g_tmp);
    snprintf(rout, sizeof rout, "%s/ref-report", g_tmp);
    char *report[] = {"cowsim", "report", refout, "-o", rout, NULL};
    CS_CHECK_EQ_U64(pb_exit(pb_wait(pb_start(report, 0, 0, 0, rlog, NULL, NULL))), 0);
    CS_CHECK_EQ_U64(cs_test_publish_log(rlog, &renames), 0);
    CS_CHECK_EQ_U64(renames, 1);
    CS_CHECK_EQ_U64(pb_renames(rlog, "/report.md", pub, 16, &total), 1);

    /* A sweep (2 runs, -j 2: three processes share the log) over an old
     * sweep.h5.tmp, named as it is replaced. */
    char swout[400], swlog[400], swtmp[420], txt[2400];
    snprintf(swout, sizeof swout, "%s/sweep", g_tmp);
    snprintf(swlog, sizeof swlog, "%s/sweep.log", g_tmp);
    snprintf(swtmp, sizeof swtmp, "%s/sweep.h5.tmp", swout);
    snprintf(err, sizeof err, "%s/sweep.err", g_tmp);
    mkdir(swout, 0755);
    pb_write(swtmp, "left by a killed sweep");
    char swwork[420];
    snprintf(swwork, sizeof swwork, "%s/sweep.h5.work", swout);
    pb_write(swwork, "");
    char *run_sweep[] = {"cowsim", "sweep", sweep, "-o", swout, "-j", "2", "--quiet", NULL};
    CS_CHECK_EQ_U64(pb_exit(pb_wait(pb_start(run_sweep, 0, 0, 0, swlog, NULL, err))), 0);
    CS_CHECK(!pb_exists(swwork) && !pb_exists(swtmp));
    CS_CHECK_EQ_U64(cs_test_publish_log(swlog, &renames), 0);
    long swpub[64];
    /* Each run: creation, 4 flushes, close; sweep.h5 at least at the start and the end. */
    CS_CHECK(renames >= 2 * 6 + 2);
    CS_CHECK(pb_renames(swlog, "/sweep.h5", swpub, 64, &total) >= 2);
    char *etext = pb_slurp(err);
    /* The lock file as the sweep locks it, then the temporary. */
    snprintf(txt, sizeof txt, "cowsim: note: replacing %s, left by an interrupted run\n"
                              "cowsim: note: replacing %s, left by an interrupted run\n", swwork, swtmp);
    CS_CHECK(strstr(etext, txt) == etext);
    CS_CHECK_EQ_U64(pb_notes(etext), 2);
    free(etext);

    /* ---- 2. harm.h5 ------------------------------------------------------- */
    char hprev[400], hnew[400], hlog[400], hfile[420], htmp[420];
    snprintf(hprev, sizeof hprev, "%s/hprev", g_tmp);
    snprintf(hnew, sizeof hnew, "%s/hnew", g_tmp);
    snprintf(hlog, sizeof hlog, "%s/harm.log", g_tmp);
    char *harm_prev[] = {"cowsim", "run", harm, "-o", hprev, "--harm", "--quiet", "--set",
                         "params.max_fires_per_block=3", NULL};
    CS_CHECK_EQ_U64(pb_exit(pb_wait(pb_start(harm_prev, 0, 0, 0, NULL, NULL, NULL))), 0);
    /* The new harm.h5, over a leftover harm.h5.tmp, logged. */
    mkdir(hnew, 0755);
    snprintf(htmp, sizeof htmp, "%s/harm.h5.tmp", hnew);
    pb_write(htmp, "left by a killed run --harm");
    snprintf(err, sizeof err, "%s/harm.err", g_tmp);
    char *harm_new[] = {"cowsim", "run", harm, "-o", hnew, "--harm", "--quiet", NULL};
    CS_CHECK_EQ_U64(pb_exit(pb_wait(pb_start(harm_new, 0, 0, 0, hlog, NULL, err))), 0);
    etext = pb_slurp(err);
    snprintf(txt, sizeof txt, "cowsim: note: replacing %s, left by an interrupted run", htmp);
    CS_CHECK(pb_has_line(etext, txt));
    free(etext);
    CS_CHECK(!pb_exists(htmp));
    CS_CHECK_EQ_U64(cs_test_publish_log(hlog, &renames), 0);
    long hpub[4], runpub[16], htotal = 0;
    CS_CHECK_EQ_U64(pb_renames(hlog, "/harm.h5", hpub, 4, &htotal), 1);
    /* The run files: fifo-capped.h5 and fifo-capped.noattack.h5. */
    int nrun = pb_renames(hlog, ".h5", runpub, 16, &total);
    CS_CHECK(nrun >= 3 && runpub[nrun - 1] == hpub[0]);
    uint8_t *bprev = NULL, *bnew = NULL;
    size_t lprev = 0, lnew = 0;
    snprintf(hfile, sizeof hfile, "%s/harm.h5", hprev);
    CS_CHECK(pb_harm_bytes(hfile, &bprev, &lprev) == 0);
    snprintf(hfile, sizeof hfile, "%s/harm.h5", hnew);
    CS_CHECK(pb_harm_bytes(hfile, &bnew, &lnew) == 0);
    /* The two differ (3 or 4 fires a block: the spam delays the honest
     * ticks 12 or 9 blocks), so the test tells them apart. */
    CS_CHECK(lprev > 0 && lnew > 0 && (lprev != lnew || memcmp(bprev, bnew, lnew) != 0));
    if (cs_test_fail) return cs_test_done("publish");
    long first = runpub[nrun - 2] + 1, points = 0, asprev = 0, asnew = 0, bad = 0;
    for (long p = 0; p < 2 * (htotal - first + 1); p++) {
        long n = first + p / 2;
        int torn = (int)(p % 2);
        char dir[400], cmd[1000];
        snprintf(dir, sizeof dir, "%s/hk%ld_%d", g_tmp, n, torn);
        snprintf(cmd, sizeof cmd, "cp -a '%s' '%s'", hprev, dir);
        if (system(cmd) != 0) {
            bad++;
            continue;
        }
        char *argv[] = {"cowsim", "run", harm, "-o", dir, "--harm", "--quiet", NULL};
        int st = pb_wait(pb_start(argv, n, 0, torn, NULL, NULL, NULL));
        points++;
        snprintf(hfile, sizeof hfile, "%s/harm.h5", dir);
        uint8_t *b = NULL;
        size_t l = 0;
        int want_new = n >= hpub[0];
        if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL || pb_harm_bytes(hfile, &b, &l) != 0) {
            fprintf(stderr, "publish: harm killed at %ld%s: status %d, harm.h5 does not read\n", n,
                    torn ? " torn" : "", st);
            bad++;
        } else if (want_new ? l == lnew && memcmp(b, bnew, l) == 0 : l == lprev && memcmp(b, bprev, l) == 0) {
            want_new ? asnew++ : asprev++;
        } else {
            fprintf(stderr, "publish: harm killed at %ld%s: harm.h5 is not the %s one\n", n, torn ? " torn" : "",
                    want_new ? "new" : "previous");
            bad++;
        }
        free(b);
    }
    printf("publish: harm.h5 kill points %ld: previous file %ld, new file %ld, wrong %ld\n", points, asprev,
           asnew, bad);
    CS_CHECK_EQ_U64(bad, 0);
    /* Killed at the rename onto harm.h5 or after (the directory fsync, the
     * last call): the new file; before, from the last run file's directory
     * fsync on, the previous one. */
    CS_CHECK_EQ_U64(asnew, 2 * (htotal - hpub[0] + 1));
    CS_CHECK_EQ_U64(asprev, 2 * (hpub[0] - first));
    CS_CHECK(asprev >= 2 * 4);
    free(bprev);
    free(bnew);

    /* ---- 3. two writers of one path ------------------------------------- */
    char two[400], twout[420], twwork[420], err2[400];
    snprintf(two, sizeof two, "%s/two", g_tmp);
    snprintf(twout, sizeof twout, "%s/fifo.h5", two);
    snprintf(twwork, sizeof twwork, "%s/fifo.h5.work", two);
    char *run_two[] = {"cowsim", "run", scn, "-o", two, "--quiet", NULL};
    pid_t a = pb_start(run_two, 0, pub[1], 0, NULL, NULL, NULL);
    int st = -1;
    while (waitpid(a, &st, WUNTRACED) < 0 && errno == EINTR) {
    }
    CS_CHECK(WIFSTOPPED(st));
    snprintf(err2, sizeof err2, "%s/two.err", g_tmp);
    CS_CHECK_EQ_U64(pb_exit(pb_wait(pb_start(run_two, 0, 0, 0, NULL, NULL, err2))), 3);
    etext = pb_slurp(err2);
    snprintf(txt, sizeof txt,
             "cowsim run: cannot create %s: %s is being written by another run (%s is locked)", twout, twout,
             twwork);
    CS_CHECK(pb_has_line(etext, txt));
    free(etext);
    /* The first run's checkpoint of block 25 is untouched. */
    CS_CHECK_EQ_U64(pb_blocks(twout), 25);
    char *cmp_two[] = {"cowsim", "compare", twout, NULL};
    snprintf(txt, sizeof txt, "cowsim compare: note: %s is being written by a run still running\n", twwork);
    pb_expect(cmp_two, err2, txt, 1);
    kill(a, SIGCONT);
    CS_CHECK_EQ_U64(pb_exit(pb_wait(a)), 0);
    CS_CHECK(pb_same_run(twout, refout));
    CS_CHECK(!pb_exists(twwork));

    /* Two sweeps into one directory.  The reference (-j 1, logged) gives
     * the call after which the first write to sweep.h5.tmp returns: it
     * comes before any worker is forked, so it is the sweep process's.
     * Stopped there, the first sweep holds sweep.h5.work's lock and a
     * half-written sweep.h5.tmp, and no run has started. */
    char s1[400], s1log[400], s2[400], s2tmp[420], s2snap[420], s2err[400], f1[460], f2[460];
    snprintf(s1, sizeof s1, "%s/sweep1", g_tmp);
    snprintf(s1log, sizeof s1log, "%s/sweep1.log", g_tmp);
    snprintf(s2, sizeof s2, "%s/sweep2", g_tmp);
    snprintf(s2tmp, sizeof s2tmp, "%s/sweep.h5.tmp", s2);
    snprintf(s2snap, sizeof s2snap, "%s/sweep2.snap", g_tmp);
    snprintf(s2err, sizeof s2err, "%s/sweep2.err", g_tmp);
    char *sweep_one[] = {"cowsim", "sweep", sweep, "-o", s1, "-j", "1", "--quiet", NULL};
    CS_CHECK_EQ_U64(pb_exit(pb_wait(pb_start(sweep_one, 0, 0, 0, s1log, NULL, NULL))), 0);
    long sw_first = pb_first(s1log, "write", "/sweep.h5.tmp", 0);
    CS_CHECK(sw_first > 0);
    char *sweep_two[] = {"cowsim", "sweep", sweep, "-o", s2, "-j", "1", "--quiet", NULL};
    a = pb_start(sweep_two, 0, sw_first, 0, NULL, NULL, NULL);
    while (waitpid(a, &st, WUNTRACED) < 0 && errno == EINTR) {
    }
    CS_CHECK(WIFSTOPPED(st));
    snprintf(txt, sizeof txt, "cp '%s' '%s'", s2tmp, s2snap);
    CS_CHECK(pb_exists(s2tmp) && system(txt) == 0);
    CS_CHECK_EQ_U64(pb_exit(pb_wait(pb_start(sweep_two, 0, 0, 0, NULL, NULL, s2err))), 3);
    etext = pb_slurp(s2err);
    snprintf(txt, sizeof txt, "cowsim sweep: %s/sweep.h5 is being written by another sweep (%s/sweep.h5.work is locked)\n",
             s2, s2);
    CS_CHECK(strcmp(etext, txt) == 0);
    free(etext);
    /* Nothing of the first's touched, nothing of the second's written. */
    CS_CHECK(pb_same_file(s2tmp, s2snap));
    snprintf(f2, sizeof f2, "%s/sweep.h5", s2);
    CS_CHECK(!pb_exists(f2));
    snprintf(f2, sizeof f2, "%s/runs/r0000", s2);
    CS_CHECK(!pb_exists(f2));
    kill(a, SIGCONT);
    CS_CHECK_EQ_U64(pb_exit(pb_wait(a)), 0);
    for (int r = 0; r < 2; r++) {
        snprintf(f1, sizeof f1, "%s/runs/r%04d/fifo.h5", s1, r);
        snprintf(f2, sizeof f2, "%s/runs/r%04d/fifo.h5", s2, r);
        CS_CHECK(pb_same_run(f2, f1));
    }
    /* 2 runs x 1 mechanism, complete; no work file or temporary left. */
    int cpl = -1;
    snprintf(f2, sizeof f2, "%s/sweep.h5", s2);
    CS_CHECK_EQ_U64(pb_sweep_rows(f2, &cpl), 2);
    CS_CHECK_EQ_U64(cpl, 1);
    snprintf(f2, sizeof f2, "%s/sweep.h5.work", s2);
    CS_CHECK(!pb_exists(f2) && !pb_exists(s2tmp));

    /* ---- 4. leftovers of a killed run ------------------------------------ */
    char left[400], lout[420], lwork[420], ltmp[420], rdir[420];
    snprintf(left, sizeof left, "%s/left", g_tmp);
    snprintf(lout, sizeof lout, "%s/fifo.h5", left);
    snprintf(lwork, sizeof lwork, "%s/fifo.h5.work", left);
    snprintf(ltmp, sizeof ltmp, "%s/fifo.h5.tmp", left);
    snprintf(rdir, sizeof rdir, "%s/report", g_tmp);
    /* Killed in the copy of the third publish (after block 50), cut short. */
    long copy = pb_first(log, "copy", "/fifo.h5.tmp", pub[1]);
    CS_CHECK(copy > pub[1] && copy < pub[2]);
    char *run_left[] = {"cowsim", "run", scn, "-o", left, "--quiet", NULL};
    st = pb_wait(pb_start(run_left, copy, 0, 1, NULL, NULL, NULL));
    CS_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    CS_CHECK(pb_exists(lwork) && pb_exists(ltmp));
    CS_CHECK_EQ_U64(pb_blocks(lout), 25);
    /* compare and report: the .tmp, then the .work (name order). */
    char *cmp_left[] = {"cowsim", "compare", lout, NULL};
    snprintf(txt, sizeof txt, "cowsim compare: note: %s is left by an interrupted run\n"
                              "cowsim compare: note: %s is left by an interrupted run\n", ltmp, lwork);
    pb_expect(cmp_left, err2, txt, 2);
    char *rep_left[] = {"cowsim", "report", lout, "-o", rdir, NULL};
    snprintf(txt, sizeof txt, "cowsim report: note: %s is left by an interrupted run\n"
                              "cowsim report: note: %s is left by an interrupted run\n", ltmp, lwork);
    pb_expect(rep_left, err2, txt, 2);
    /* The next run: the work file as it locks it, then the copy. */
    snprintf(txt, sizeof txt, "cowsim: note: replacing %s, left by an interrupted run\n"
                              "cowsim: note: replacing %s, left by an interrupted run\n", lwork, ltmp);
    pb_expect(run_left, err2, txt, 2);
    CS_CHECK(!pb_exists(lwork) && !pb_exists(ltmp));
    CS_CHECK(pb_same_run(lout, refout));
    /* Nothing left: compare says nothing. */
    pb_expect(cmp_left, err2, "", 0);
    /* A multi-seed run directory (seeds 11 and 12): a leftover in a
     * seed-<s>/ below it is named too. */
    char ms[400], msleft[460];
    snprintf(ms, sizeof ms, "%s/seeds", g_tmp);
    snprintf(msleft, sizeof msleft, "%s/seed-12/fifo.h5.work", ms);
    char *run_ms[] = {"cowsim", "run", scn, "-o", ms, "--seeds", "2", "--quiet", NULL};
    CS_CHECK_EQ_U64(pb_exit(pb_wait(pb_start(run_ms, 0, 0, 0, NULL, NULL, NULL))), 0);
    pb_write(msleft, "left by a killed run");
    char *cmp_ms[] = {"cowsim", "compare", ms, NULL};
    snprintf(txt, sizeof txt, "cowsim compare: note: %s is left by an interrupted run\n", msleft);
    pb_expect(cmp_ms, err2, txt, 1);

    /* ---- 5. fires_seen at checkpoints ------------------------------------ */
    /* With fires off (/fires empty) a run killed right after its third
     * publish (blocks 1..50) says how many fires its blocks had. */
    char off[400], offout[420], offlog[400];
    snprintf(off, sizeof off, "%s/off", g_tmp);
    snprintf(offout, sizeof offout, "%s/fifo.h5", off);
    snprintf(offlog, sizeof offlog, "%s/off.log", g_tmp);
    char *run_off[] = {"cowsim", "run", scn, "-o", off, "--quiet", "--set", "output.fires=off", NULL};
    CS_CHECK_EQ_U64(pb_exit(pb_wait(pb_start(run_off, 0, 0, 0, offlog, NULL, NULL))), 0);
    long offpub[16];
    CS_CHECK_EQ_U64(pb_renames(offlog, "/fifo.h5", offpub, 16, &total), 6);
    st = pb_wait(pb_start(run_off, offpub[2], 0, 0, NULL, NULL, NULL));
    CS_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    int oerr = 0;
    cs_h5_reader_t *orr = cs_h5_open_read(offout, &oerr);
    CS_CHECK(orr != NULL);
    if (orr) {
        cs_h5_block_t *blk = NULL;
        size_t nb = 0;
        uint64_t seen = UINT64_MAX, nf = UINT64_MAX, fired = 0;
        CS_CHECK(cs_h5_read_blocks(orr, &blk, &nb) == CS_OK);
        for (size_t i = 0; i < nb; i++) fired += blk[i].fired;
        CS_CHECK(cs_h5_read_attr_u64(orr, "fires_seen", &seen) == CS_OK);
        CS_CHECK(cs_h5_nrows(orr, CS_H5_FIRES, &nf) == CS_OK);
        CS_CHECK_EQ_U64(nb, 50);
        CS_CHECK_EQ_U64(nf, 0);
        CS_CHECK_EQ_U64(seen, fired);
        CS_CHECK(fired > 0);
        CS_CHECK_EQ_U64(cs_h5_info(orr)->complete, 0);
        free(blk);
        cs_h5_close_read(orr);
    }
    return cs_test_finish("publish", g_tmp);
}
