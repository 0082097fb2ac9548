/*
 * test_faults.c -- output faults and crashes, end to end on the cowsim
 * binary (CS_BIN, set by ctest): nothing crashes, nothing is lost.
 *
 *   1. The run file is /dev/full (a symlink in the output directory): exit 3
 *      and the message names the file.
 *   2. Unwritable output paths: a directory that cannot be created (under
 *      /proc), a parent that is a regular file, an output file that is a
 *      directory: exit 3, the message names the path.  (The tests run as
 *      root in CI, so permission bits cannot make a path unwritable.)
 *   3. The disk fills mid-run: RLIMIT_FSIZE caps the file at 96 KiB with
 *      SIGXFSZ ignored, so a write fails with EFBIG after many blocks:
 *      exit 3 naming the file, no signal.
 *   4. The same mid-sweep: a grid over `blocks` makes the second run's file
 *      outgrow the cap; the sweep exits 3 naming that file, and the first
 *      run's file is still complete (complete = 1, every block).
 *   5. SIGKILL: a long run with output.flush_every = 50 is killed with
 *      kill -9 after its file holds at least two flushes; the file opens
 *      with cs_h5_open_read, complete = 0, and /blocks holds heights
 *      1..n exactly, n a multiple of 50 and n >= 50 (checkpoints are made
 *      only at flushes, README "Failures").  Repeated 5 times at different
 *      moments.  tests/test_killpoints.c kills at every write instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cs_h5.h"
#include "cs_test.h"

static const char *cs__bin;   /* cowsim */
static char cs__tmp[256];     /* scratch directory */

/* Run cowsim with argv (NULL-terminated, argv[0] ignored) and optionally a
 * file-size cap; stderr goes to err_path.  Returns the wait status. */
static int cs__run(char *const argv[], long fsize, const char *err_path)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (nul >= 0) dup2(nul, 1);
        if (e >= 0) dup2(e, 2);
        if (fsize > 0) {
            struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
            signal(SIGXFSZ, SIG_IGN); /* writes past the cap fail with EFBIG instead */
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        execv(cs__bin, argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return st;
}

/* Does file path contain needle? */
static int cs__grep(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, needle) != NULL;
}

static void cs__write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CS_CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* Expect exit 3 (not a signal) with `name` in the message. */
static void cs__expect_io(int st, const char *err, const char *name, const char *what)
{
    int ok = WIFEXITED(st) && WEXITSTATUS(st) == 3 && cs__grep(err, name);
    CS_CHECK(ok);
    if (!ok) {
        fprintf(stderr, "faults %s: status %s %d, message should name %s:\n", what,
                WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), name);
        char cmd[400];
        snprintf(cmd, sizeof cmd, "cat '%s' >&2", err);
        if (system(cmd) != 0) {
        }
    }
}

static void test_dev_full(const char *scn)
{
    char dir[300], link[340], err[300];
    snprintf(dir, sizeof dir, "%s/full", cs__tmp);
    snprintf(link, sizeof link, "%s/fifo.h5", dir);
    snprintf(err, sizeof err, "%s/full.err", cs__tmp);
    mkdir(dir, 0755);
    CS_CHECK(symlink("/dev/full", link) == 0);
    char *argv[] = {"cowsim", "run", (char *)scn, "-o", dir, "--quiet", NULL};
    cs__expect_io(cs__run(argv, 0, err), err, link, "/dev/full");
}

static void test_unwritable(const char *scn)
{
    char err[300], file[300], sub[340], isdir[300], isdir_f[340];
    snprintf(err, sizeof err, "%s/unw.err", cs__tmp);
    /* A directory that cannot be created. */
    char *a1[] = {"cowsim", "run", (char *)scn, "-o", "/proc/cowsim-no-such-dir/out", "--quiet", NULL};
    cs__expect_io(cs__run(a1, 0, err), err, "/proc/cowsim-no-such-dir/out", "mkdir under /proc");
    /* A parent that is a regular file. */
    snprintf(file, sizeof file, "%s/plain", cs__tmp);
    snprintf(sub, sizeof sub, "%s/plain/out", cs__tmp);
    cs__write(file, "not a directory\n");
    char *a2[] = {"cowsim", "run", (char *)scn, "-o", sub, "--quiet", NULL};
    cs__expect_io(cs__run(a2, 0, err), err, sub, "parent is a file");
    /* The run file is a directory. */
    snprintf(isdir, sizeof isdir, "%s/isdir", cs__tmp);
    snprintf(isdir_f, sizeof isdir_f, "%s/isdir/fifo.h5", cs__tmp);
    mkdir(isdir, 0755);
    mkdir(isdir_f, 0755);
    char *a3[] = {"cowsim", "run", (char *)scn, "-o", isdir, "--quiet", NULL};
    cs__expect_io(cs__run(a3, 0, err), err, isdir_f, "run file is a directory");
}

static void test_efbig_run(const char *scn)
{
    char dir[300], file[340], err[300];
    snprintf(dir, sizeof dir, "%s/efbig", cs__tmp);
    snprintf(file, sizeof file, "%s/fifo.h5", dir);
    snprintf(err, sizeof err, "%s/efbig.err", cs__tmp);
    /* 20,000 blocks of /blocks rows alone are ~4 MB before compression. */
    char *argv[] = {"cowsim", "run", (char *)scn, "-o", dir, "--quiet", "--set", "blocks=20000",
                    "--set", "output.flush_every=50", NULL};
    cs__expect_io(cs__run(argv, 96 * 1024, err), err, file, "disk full mid-run (EFBIG)");
}

static void test_efbig_sweep(void)
{
    char sw[300], dir[300], r0[340], r1[340], err[300];
    snprintf(sw, sizeof sw, "%s/sweep.json", cs__tmp);
    snprintf(dir, sizeof dir, "%s/sweep", cs__tmp);
    snprintf(r0, sizeof r0, "%s/runs/r0000/fifo.h5", dir);
    snprintf(r1, sizeof r1, "%s/runs/r0001/fifo.h5", dir);
    snprintf(err, sizeof err, "%s/sweep.err", cs__tmp);
    cs__write(sw, "{\"name\": \"faults-sweep\",\n"
                  " \"base\": {\"name\": \"faults\", \"seed\": 5, \"blocks\": 100, \"mechanism\": \"fifo\",\n"
                  "          \"agents\": [{\"kind\": \"heartbeat\", \"count\": 2}],\n"
                  "          \"output\": {\"flush_every\": 50}},\n"
                  " \"grid\": {\"blocks\": [60, 20000]}}\n");
    char *argv[] = {"cowsim", "sweep", sw, "-o", dir, "--quiet", NULL};
    cs__expect_io(cs__run(argv, 96 * 1024, err), err, r1, "disk full mid-sweep (EFBIG)");
    /* The first run is untouched: complete, with all 60 blocks. */
    int e = 0;
    cs_h5_reader_t *r = cs_h5_open_read(r0, &e);
    CS_CHECK(r != NULL);
    if (!r) return;
    CS_CHECK_EQ_U64(cs_h5_info(r)->complete, 1);
    cs_h5_block_t *b = NULL;
    size_t n = 0;
    CS_CHECK_EQ_U64(cs_h5_read_blocks(r, &b, &n), CS_OK);
    CS_CHECK_EQ_U64(n, 60);
    for (size_t i = 0; i < n; i++) CS_CHECK_EQ_U64(b[i].height, i + 1);
    free(b);
    cs_h5_close_read(r);
}

/* One kill -9 round; waits `ms` after the second flush is on disk. */
static void cs__kill_round(const char *scn, int round, int ms)
{
    char dir[300], file[340], err[300];
    snprintf(dir, sizeof dir, "%s/kill%d", cs__tmp, round);
    snprintf(file, sizeof file, "%s/fifo.h5", dir);
    snprintf(err, sizeof err, "%s/kill.err", cs__tmp);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return;
    if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) {
            dup2(nul, 1);
            dup2(nul, 2);
        }
        execl(cs__bin, "cowsim", "run", scn, "-o", dir, "--quiet", "--set", "blocks=100000000", "--set",
              "output.flush_every=50", (char *)NULL);
        _exit(127);
    }
    /* Wait for the file to hold two flushes (>= 100 blocks): poll it. */
    int ready = 0;
    for (int i = 0; i < 600 && !ready; i++) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
        int e = 0;
        cs_h5_reader_t *r = cs_h5_open_read(file, &e);
        uint64_t n = 0;
        if (r && cs_h5_nrows(r, CS_H5_BLOCKS, &n) == CS_OK && n >= 100) ready = 1;
        cs_h5_close_read(r);
    }
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000 * 1000};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    CS_CHECK(ready);
    CS_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    int e = 0;
    cs_h5_reader_t *r = cs_h5_open_read(file, &e);
    CS_CHECK(r != NULL);
    if (!r) {
        fprintf(stderr, "faults kill -9 round %d: %s does not open: %s\n", round, file, cs_h5_last_error());
        return;
    }
    CS_CHECK_EQ_U64(cs_h5_info(r)->complete, 0);
    cs_h5_block_t *b = NULL;
    size_t n = 0;
    CS_CHECK_EQ_U64(cs_h5_read_blocks(r, &b, &n), CS_OK);
    /* Every block up to the last flush: heights 1..n, n = 50 k >= 50. */
    CS_CHECK(n >= 50);
    CS_CHECK_EQ_U64(n % 50, 0);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += b[i].height != i + 1;
    CS_CHECK_EQ_U64(bad, 0);
    printf("faults: kill -9 round %d: %zu blocks recovered\n", round, n);
    free(b);
    cs_h5_close_read(r);
}

int main(void)
{
    cs__bin = getenv("CS_BIN");
    const char *src = getenv("CS_SRC");
    if (!cs__bin || !src) {
        fprintf(stderr, "test_faults: CS_BIN and CS_SRC must be set (ctest sets them)\n");
        return 1;
    }
    snprintf(cs__tmp, sizeof cs__tmp, "%s/cs_faults_%d", cs_test_tmpdir(), (int)getpid());
    mkdir(cs__tmp, 0755);
    char scn[400];
    snprintf(scn, sizeof scn, "%s/scenarios/minimal.json", src);
    test_dev_full(scn);
    test_unwritable(scn);
    test_efbig_run(scn);
    test_efbig_sweep();
    static const int delays[] = {0, 37, 113, 251, 409};
    for (int i = 0; i < 5; i++) cs__kill_round(scn, i, delays[i]);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cs__tmp);
    if (system(cmd) != 0) {
    }
    return cs_test_done("faults");
}
