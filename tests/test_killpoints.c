/*
 * test_killpoints.c -- a run killed at any write leaves, at the output path,
 * a readable run file marked incomplete whose rows are a prefix of the
 * finished run (README "Failures", DESIGN-NOTES N48).
 *
 * The shim tests/cs_killshim.c (LD_PRELOAD, CS_KILLSHIM set by ctest)
 * SIGKILLs cowsim right after its N-th write-type call on a file (write,
 * pwrite, copy_file_range, fsync, rename).  A small run (14 agents of three
 * kinds, 50 blocks, output.flush_every = 25, COWSIM_H5_CHECKPOINT_FACTOR = 0
 * so that every flush publishes and the sequence of calls does not depend
 * on timing) is first run whole with the shim logging every call: T calls,
 * of which the renames onto <out> are the publishes P_0 < P_1 < ... <
 * P_{m-1}: P_0 at creation (0 blocks), P_j after block 25 j (j = 1, 2),
 * and P_3 the final rename of the closed file (m = 50 / 25 + 2 = 4; every
 * later flush repeats the calls of these).
 * Then for every N = 1..T, twice (two runs side by side; the N-th call done whole, and "torn": a
 * write or copy cut to half its bytes before the kill), the run is killed
 * and the output checked against the finished run:
 *   - r = #{j : P_j <= N} publishes were done.  r = 0: no file at <out>
 *     (the run was killed while creating it, before block 1).  Otherwise
 *     the file opens with cs_h5_open_read (which reads every table in its
 *     sandbox), complete = 1 exactly when r = m, and
 *   - /blocks holds exactly k = 25 (r - 1) rows (k = 50 when complete);
 *   - every dataset is a prefix of the finished run's, row for row (memcmp
 *     of the decoded rows), and complete files equal it whole;
 *   - the attribute fires_seen (written at every checkpoint) is the sum of
 *     /blocks.fired and the number of /fires rows (fires mode "all");
 *   - the rows belong to blocks 1..k: /fires and /weights hold exactly the
 *     finished run's rows with height <= k, /timers those with end_height
 *     <= k (a timer's row is written in the block it ends; the rows of
 *     timers still pending at the end are written by the close).
 * Then a killed run's directory is reused: the next run replaces the left
 * work file and finishes identical to the reference, leaving no .work or
 * .tmp.  Finally every surviving output is opened by the Python loader
 * (python/cowsim load_run over h5py) with complete 0 or 1.
 * Prints "kill points: N, unreadable U, not a prefix P"; U = P = 0 expected.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cs_h5.h"
#include "cs_test.h"

#define KP_BLOCKS 50
#define KP_FLUSH 25
#define KP_MAXPUB 64

static const char *g_bin, *g_shim;
static char g_tmp[256], g_scn[300];

typedef struct kp_run {
    void *rows[CS_H5_NDS]; /* decoded rows of each dataset */
    size_t n[CS_H5_NDS];   /* their counts */
    int complete;          /* root attribute complete */
    uint64_t fires_seen;   /* root attribute fires_seen (UINT64_MAX: absent) */
} kp_run_t;

static void kp_free(kp_run_t *k)
{
    for (int d = 0; d < CS_H5_NDS; d++) free(k->rows[d]);
    memset(k, 0, sizeof *k);
}

/* Read every dataset of path.  0, or -1 (message on stderr) if the file
 * does not open or a dataset does not read. */
static int kp_load(const char *path, kp_run_t *k)
{
    memset(k, 0, sizeof *k);
    int err = 0;
    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    if (!r) {
        fprintf(stderr, "killpoints: %s does not open: %s\n", path, cs_h5_last_error());
        return -1;
    }
    k->complete = cs_h5_info(r)->complete;
    if (cs_h5_read_attr_u64(r, "fires_seen", &k->fires_seen) != CS_OK) k->fires_seen = UINT64_MAX;
    int rc = 0;
    for (int d = 0; d < CS_H5_NDS && rc == 0; d++)
        if (cs_h5_read_all(r, (cs_h5_ds)d, &k->rows[d], &k->n[d]) != CS_OK) {
            fprintf(stderr, "killpoints: %s: /%s does not read: %s\n", path, cs_h5_ds_name((cs_h5_ds)d),
                    cs_h5_last_error());
            rc = -1;
        }
    cs_h5_close_read(r);
    if (rc != 0) kp_free(k);
    return rc;
}

/* Start cowsim into dir with the shim: kill at call `at` (0: never), torn
 * or not, logging to log (NULL: no log).  Returns the child's pid. */
static pid_t kp_start(const char *dir, long at, int torn, const char *log)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) {
            dup2(nul, 1);
            dup2(nul, 2);
        }
        char buf[32];
        snprintf(buf, sizeof buf, "%ld", at);
        if (at > 0) setenv("CS_KILL_AT", buf, 1);
        if (torn) setenv("CS_KILL_TORN", "1", 1);
        if (log) setenv("CS_KILL_LOG", log, 1);
        setenv("COWSIM_H5_CHECKPOINT_FACTOR", "0", 1);
        if (g_shim) setenv("LD_PRELOAD", g_shim, 1);
        /* Under ASan the shim comes before the sanitizer runtime. */
        const char *asan = getenv("ASAN_OPTIONS");
        char opt[512];
        snprintf(opt, sizeof opt, "%s%sverify_asan_link_order=0", asan ? asan : "", asan && *asan ? ":" : "");
        setenv("ASAN_OPTIONS", opt, 1);
        execl(g_bin, "cowsim", "run", g_scn, "-o", dir, "--quiet", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Wait for a child of kp_start; its wait status (-1 if it never started). */
static int kp_wait(pid_t pid)
{
    int st = -1;
    if (pid < 0) return -1;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return st;
}

static int kp_run(const char *dir, long at, int torn, const char *log)
{
    return kp_wait(kp_start(dir, at, torn, log));
}

/* Parse the reference log: total calls, and the call numbers of the renames
 * onto the output (name ending in "/fifo.h5"). */
static long kp_parse_log(const char *log, long *pub, int *npub)
{
    FILE *f = fopen(log, "r");
    if (!f) return -1;
    long n = 0, last = 0;
    char line[1200], kind[32], from[520], what[520];
    *npub = 0;
    while (fgets(line, sizeof line, f)) {
        int pid;
        int k = sscanf(line, "%ld %d %31s %519s %519s", &n, &pid, kind, from, what);
        if (k < 4) break;
        if (k == 4) snprintf(what, sizeof what, "%s", from);
        last = n;
        size_t l = strlen(what);
        if (strcmp(kind, "rename") == 0 && l >= 8 && strcmp(what + l - 8, "/fifo.h5") == 0 && *npub < KP_MAXPUB)
            pub[(*npub)++] = n;
    }
    fclose(f);
    return last;
}

/* Rows of the reference's dataset d whose height (column at offset 0 for
 * /blocks, /fires, /weights; end_height for /timers) is <= k.  Timers still
 * pending at the end are written by the close only (their end_height is
 * the last block): they count only when `closed`. */
static size_t kp_rows_upto(const kp_run_t *ref, int d, uint64_t k, int closed)
{
    size_t c = 0;
    for (size_t i = 0; i < ref->n[d]; i++) {
        uint64_t h;
        if (d == CS_H5_TIMERS) {
            const cs_h5_timer_t *t = &((const cs_h5_timer_t *)ref->rows[d])[i];
            h = t->outcome == CS_H5_OUTCOME_PENDING && !closed ? UINT64_MAX : t->end_height;
        } else if (d == CS_H5_FIRES)
            h = ((const cs_h5_fire_t *)ref->rows[d])[i].height;
        else if (d == CS_H5_WEIGHTS)
            h = ((const cs_h5_weight_t *)ref->rows[d])[i].height;
        else
            h = ((const cs_h5_block_t *)ref->rows[d])[i].height;
        c += h <= k;
    }
    return c;
}

/* Check a killed run's file against the reference; 0 if right, else -1
 * with the reason on stderr. */
static int kp_check(const char *what, const kp_run_t *got, const kp_run_t *ref, int r, int m)
{
    int complete = r == m;
    uint64_t k = complete ? KP_BLOCKS : (uint64_t)KP_FLUSH * (uint64_t)(r - 1);
    if (got->complete != complete) {
        fprintf(stderr, "killpoints %s: complete = %d, want %d\n", what, got->complete, complete);
        return -1;
    }
    if (got->n[CS_H5_BLOCKS] != k) {
        fprintf(stderr, "killpoints %s: %zu blocks, want %llu\n", what, got->n[CS_H5_BLOCKS],
                (unsigned long long)k);
        return -1;
    }
    /* Every checkpoint says how far it got: fires_seen, the fires offered
     * to the writer, is the sum of /blocks.fired over blocks 1..k and, all
     * fires being written (fires mode "all"), the number of /fires rows. */
    uint64_t fired = 0;
    const cs_h5_block_t *blk = got->rows[CS_H5_BLOCKS];
    for (size_t i = 0; i < got->n[CS_H5_BLOCKS]; i++) fired += blk[i].fired;
    if (got->fires_seen != fired || got->fires_seen != got->n[CS_H5_FIRES]) {
        fprintf(stderr, "killpoints %s: fires_seen = %llu, /blocks.fired sums to %llu, /fires has %zu rows\n", what,
                (unsigned long long)got->fires_seen, (unsigned long long)fired, got->n[CS_H5_FIRES]);
        return -1;
    }
    for (int d = 0; d < CS_H5_NDS; d++) {
        size_t rs = cs_h5_ds_row_size((cs_h5_ds)d);
        const char *name = cs_h5_ds_name((cs_h5_ds)d);
        if (got->n[d] > ref->n[d] || (got->n[d] && memcmp(got->rows[d], ref->rows[d], got->n[d] * rs) != 0)) {
            fprintf(stderr, "killpoints %s: /%s (%zu rows) is not a prefix of the finished run's\n", what,
                    name, got->n[d]);
            return -1;
        }
        if (complete && got->n[d] != ref->n[d]) {
            fprintf(stderr, "killpoints %s: complete, but /%s has %zu of %zu rows\n", what, name, got->n[d],
                    ref->n[d]);
            return -1;
        }
        if (d == CS_H5_FIRES || d == CS_H5_TIMERS || d == CS_H5_WEIGHTS) {
            size_t want = kp_rows_upto(ref, d, k, complete);
            if (got->n[d] != want) {
                fprintf(stderr, "killpoints %s: /%s has %zu rows, the blocks 1..%llu have %zu\n", what, name,
                        got->n[d], (unsigned long long)k, want);
                return -1;
            }
        }
    }
    return 0;
}

static int kp_exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

int main(void)
{
    g_bin = getenv("CS_BIN");
    g_shim = getenv("CS_KILLSHIM");
    if (!g_bin || !g_shim) {
        fprintf(stderr, "test_killpoints: CS_BIN and CS_KILLSHIM must be set (ctest sets them)\n");
        return 1;
    }
    const char *src = getenv("CS_SRC");
    snprintf(g_tmp, sizeof g_tmp, "%s/cs_killpoints_%d", cs_test_tmpdir(), (int)getpid());
    mkdir(g_tmp, 0755);
    snprintf(g_scn, sizeof g_scn, "%s/kp.json", g_tmp);
    FILE *f = fopen(g_scn, "w");
    CS_CHECK(f != NULL);
    if (!f) return cs_test_done("killpoints");
    fprintf(f, "{\"name\": \"killpoints\", \"seed\": 11, \"blocks\": %d, \"mechanism\": \"fifo\",\n"
               " \"agents\": [{\"kind\": \"heartbeat\", \"count\": 6}, {\"kind\": \"subscription\", \"count\": 4},\n"
               "            {\"kind\": \"oracle\", \"count\": 4}],\n"
               " \"output\": {\"flush_every\": %d, \"weights_every\": 25}}\n",
            KP_BLOCKS, KP_FLUSH);
    fclose(f);

    /* The uninterrupted run, its calls logged. */
    char dir[400], out[420], log[400];
    snprintf(dir, sizeof dir, "%s/ref", g_tmp);
    snprintf(out, sizeof out, "%s/fifo.h5", dir);
    snprintf(log, sizeof log, "%s/ref.log", g_tmp);
    int st = kp_run(dir, 0, 0, log);
    CS_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    long pub[KP_MAXPUB];
    int m = 0;
    long total = kp_parse_log(log, pub, &m);
    /* Publishes: creation, after each of the 50 / 25 = 2 flushes, close. */
    CS_CHECK_EQ_U64(m, KP_BLOCKS / KP_FLUSH + 2);
    CS_CHECK(total >= 60); /* 104 here (each killed twice: 208 points) */
    /* Each publish: the copy (or the closed work file) fsynced, renamed,
     * its directory fsynced (cs_publish_commit). */
    long renames = 0;
    CS_CHECK_EQ_U64(cs_test_publish_log(log, &renames), 0);
    CS_CHECK_EQ_U64(renames, m);
    kp_run_t ref;
    CS_CHECK(kp_load(out, &ref) == 0);
    CS_CHECK_EQ_U64(ref.complete, 1);
    CS_CHECK_EQ_U64(ref.n[CS_H5_BLOCKS], KP_BLOCKS);
    /* The run must exercise the row tables (counts from this scenario: 31
     * fires, 37 timers, rows in both flush intervals). */
    CS_CHECK(ref.n[CS_H5_FIRES] > 20 && ref.n[CS_H5_TIMERS] > 20 && ref.n[CS_H5_WEIGHTS] > 0);
    if (cs_test_fail) return cs_test_done("killpoints");

    long points = 0, unreadable = 0, bad = 0, nofile = 0;
    char list[400];
    snprintf(list, sizeof list, "%s/files.txt", g_tmp);
    FILE *lf = fopen(list, "w");
    CS_CHECK(lf != NULL);
    if (!lf) return cs_test_done("killpoints");
    long files = 0;
    /* Points (torn, n) in pairs, two runs side by side. */
    for (long p0 = 0; p0 < 2 * total; p0 += 2) {
        pid_t pid[2] = {-1, -1};
        for (int q = 0; q < 2 && p0 + q < 2 * total; q++) {
            long p = p0 + q;
            snprintf(dir, sizeof dir, "%s/k%ld_%ld", g_tmp, p / total, p % total + 1);
            pid[q] = kp_start(dir, p % total + 1, (int)(p / total), NULL);
        }
        for (int q = 0; q < 2 && p0 + q < 2 * total; q++) {
            long p = p0 + q, n = p % total + 1;
            int torn = (int)(p / total);
            char what[64];
            snprintf(what, sizeof what, "N=%ld%s", n, torn ? " torn" : "");
            snprintf(dir, sizeof dir, "%s/k%d_%ld", g_tmp, torn, n);
            snprintf(out, sizeof out, "%s/fifo.h5", dir);
            points++;
            st = kp_wait(pid[q]);
            if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
                fprintf(stderr, "killpoints %s: not killed (status %d)\n", what, st);
                bad++;
                continue;
            }
            int r = 0;
            for (int j = 0; j < m; j++) r += pub[j] <= n;
            if (r == 0) {
                nofile++;
                if (kp_exists(out)) {
                    fprintf(stderr, "killpoints %s: a file at %s before the first publish\n", what, out);
                    bad++;
                }
                continue;
            }
            kp_run_t got;
            if (kp_load(out, &got) != 0) {
                unreadable++;
                continue;
            }
            if (kp_check(what, &got, &ref, r, m) != 0) bad++;
            kp_free(&got);
            fprintf(lf, "%s\n", out);
            files++;
        }
    }
    fclose(lf);
    printf("killpoints: kill points: %ld, unreadable %ld, not a prefix %ld (%ld killed before the first "
           "publish, no file yet; %ld publishes per run)\n",
           points, unreadable, bad, nofile, (long)m);
    CS_CHECK_EQ_U64(unreadable, 0);
    CS_CHECK_EQ_U64(bad, 0);
    /* The kills before P_0 are the calls that create the work file and its
     * first copy: fewer than P_0, and at most 2 P_0 over both passes. */
    CS_CHECK_EQ_U64(nofile, 2 * (uint64_t)(pub[0] - 1));

    /* A killed run's leftovers are replaced by the next run into the same
     * directory (killed mid-run, torn, between the first and the second
     * flush's publish). */
    long mid = (pub[1] + pub[2]) / 2;
    snprintf(dir, sizeof dir, "%s/k1_%ld", g_tmp, mid);
    snprintf(out, sizeof out, "%s/fifo.h5", dir);
    char work[440], tmp[440];
    snprintf(work, sizeof work, "%s.work", out);
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    CS_CHECK(kp_exists(work));
    st = kp_run(dir, 0, 0, NULL);
    CS_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CS_CHECK(!kp_exists(work));
    CS_CHECK(!kp_exists(tmp));
    kp_run_t again;
    CS_CHECK(kp_load(out, &again) == 0);
    CS_CHECK(kp_check("rerun", &again, &ref, m, m) == 0);
    kp_free(&again);
    kp_free(&ref);

    /* The Python loader opens every surviving file. */
    if (src) {
        char cmd[2000];
        snprintf(cmd, sizeof cmd,
                 "PYTHONPATH='%s/python' /usr/bin/python3 -c '"
                 "import sys, cowsim\n"
                 "n = 0\n"
                 "for p in open(sys.argv[1]).read().split():\n"
                 "    r = cowsim.load_run(p)\n"
                 "    assert r.attrs[\"complete\"] in (0, 1), p\n"
                 "    assert len(r.blocks) %% %d == 0, p\n"
                 "    n += 1\n"
                 "print(n)\n' '%s' > '%s/py.out'",
                 src, KP_FLUSH, list, g_tmp);
        CS_CHECK(system(cmd) == 0);
        char pyout[420];
        snprintf(pyout, sizeof pyout, "%s/py.out", g_tmp);
        FILE *pf = fopen(pyout, "r");
        long pn = -1;
        if (pf) {
            if (fscanf(pf, "%ld", &pn) != 1) pn = -1;
            fclose(pf);
        }
        CS_CHECK_EQ_U64(pn, files);
        printf("killpoints: the Python loader opened %ld of %ld files\n", pn, files);
    }
    return cs_test_finish("killpoints", g_tmp);
}
