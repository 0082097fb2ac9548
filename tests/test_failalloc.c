/*
 * test_failalloc.c -- allocation-failure injection over whole commands
 * (SQLite-style: every allocation is made to fail once, in turn).
 *
 * Mechanism: tests/cs_allocwrap.h, a malloc/calloc/realloc/free/strdup/...
 * wrapper compiled into this test binary only (no LD_PRELOAD, nothing in
 * the product code; it also works under ASan).  Allocations made by
 * cowsim's own code and by cJSON are numbered and tracked; those libc,
 * libhdf5, GSL or zlib make for themselves are passed through and never
 * failed (their failure handling is not cowsim's code).
 *
 * For each command below the test first runs it once in a child with no
 * failure (the baseline: N allocations of ours, its stdout and exit code),
 * then once per k = 1..N in a child whose k-th allocation fails (once; the
 * rest succeed).  Each child must:
 *   - exit normally (no signal, no abort, no sanitizer report) with code 2
 *     or 3 (bad input / I/O incl. out of memory, DESIGN §2.9), or with the
 *     baseline's code 0 and exactly the baseline's stdout (the failure was
 *     absorbed without changing the result), and for `run` then also the
 *     baseline's datasets in the run file;
 *   - leave no allocation of ours live when the command returns (a leak is
 *     reported with its allocation number, size and caller offset).
 * Commands: a small scenario `run` over two mechanisms (scenario load, the
 * engine, agents, the scheduler core, the HDF5 writer), `validate` of an
 * invalid scenario (the error-list path), `clear` of a bias-vcg auction, and
 * `report`, `compare`, `check --bless` / `--baseline` on the run's files when
 * those commands are built (they are detected with --help).
 *
 * Environment: CS_FAILALLOC=k runs only k (and the baseline) for each
 * command and shows the child's stderr -- for debugging one failure;
 * CS_FAILALLOC_CASES=run,clear runs only the named commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cs_allocwrap.h"
#include "cs_cli.h"
#include "cs_h5.h"
#include "cs_test.h"

/* ------------------------------------------------------------ the driver */

static char cs__dir[256];        /* scratch directory */
static int cs__one_k;            /* CS_FAILALLOC=k: only this k, verbose */
static long cs__children;        /* children run in all */
static long cs__faults;          /* injected failures that happened */
static long cs__absorbed;        /* of those, commands that still succeeded identically */
static long cs__degraded;        /* advisory commands that exited 0 with changed output */

/* Outcome of one child. */
typedef struct cs__res {
    int signaled;        /* killed by a signal */
    int sig;             /* which */
    int code;            /* exit code */
    uint64_t allocs;     /* allocations of ours made */
    int failed;          /* the injected failure happened */
    uintptr_t at;        /* caller of the failed allocation (offset) */
    uint64_t leaks;      /* allocations of ours still live at return */
    char leak[256];      /* the first few leaks */
} cs__res_t;

/* What the child reports back through a pipe. */
typedef struct cs__report {
    uint64_t allocs;
    int failed;
    uintptr_t at;
    uint64_t leaks;
    char leak[256];
} cs__report_t;

/* Run `cowsim argv...` in a child with allocation k failing (0: none);
 * stdout goes to out_path. */
static cs__res_t cs__child(char **argv, int argc, uint64_t k, const char *out_path)
{
    cs__res_t r;
    memset(&r, 0, sizeof r);
    int pfd[2];
    if (pipe(pfd) != 0) {
        perror("pipe");
        exit(1);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        close(pfd[0]);
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o >= 0) {
            dup2(o, 1);
            close(o);
        }
        if (!cs__one_k) {
            int nul = open("/dev/null", O_WRONLY);
            if (nul >= 0) {
                dup2(nul, 2);
                close(nul);
            }
        }
        /* Forget whatever the parent tracked; count from here. */
        cs_aw_reset(k);
        int code = cs_cli_main(argc, argv);
        fflush(stdout);
        cs__report_t rep;
        memset(&rep, 0, sizeof rep);
        rep.allocs = cs_aw_count();
        rep.failed = cs_aw_failed();
        rep.at = cs_aw_fail_caller();
        rep.leaks = cs_aw_live();
        if (rep.leaks) cs_aw_describe_live(rep.leak, sizeof rep.leak);
        (void)!write(pfd[1], &rep, sizeof rep);
        _exit(code);
    }
    close(pfd[1]);
    cs__report_t rep;
    memset(&rep, 0, sizeof rep);
    ssize_t got = read(pfd[0], &rep, sizeof rep);
    close(pfd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    cs__children++;
    if (WIFSIGNALED(st)) {
        r.signaled = 1;
        r.sig = WTERMSIG(st);
    } else {
        r.code = WEXITSTATUS(st);
    }
    if (got == (ssize_t)sizeof rep) {
        r.allocs = rep.allocs;
        r.failed = rep.failed;
        r.at = rep.at;
        r.leaks = rep.leaks;
        memcpy(r.leak, rep.leak, sizeof r.leak);
    } else if (!r.signaled) {
        r.code = -1; /* exited without reporting: exit() from inside the command */
    }
    return r;
}

/* Whole file into a malloc'd buffer (NULL if unreadable). */
static char *cs__slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *b = malloc(cap);
    for (size_t got; b && (got = fread(b + len, 1, cap - len, f)) > 0;) {
        len += got;
        if (len == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                b = NULL;
            } else {
                b = nb;
            }
        }
    }
    fclose(f);
    *n = len;
    return b;
}

/* Every dataset of a run file, concatenated (NULL if unreadable). */
static char *cs__datasets(const char *path, size_t *n)
{
    int err;
    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    if (!r) return NULL;
    size_t len = 0;
    char *all = NULL;
    for (int ds = 0; ds < CS_H5_NDS; ds++) {
        void *rows = NULL;
        size_t nr = 0;
        if (cs_h5_read_all(r, (cs_h5_ds)ds, &rows, &nr) != CS_OK) {
            free(all);
            cs_h5_close_read(r);
            return NULL;
        }
        size_t b = nr * cs_h5_ds_row_size((cs_h5_ds)ds);
        char *na = realloc(all, len + b + 8);
        if (!na) {
            free(rows);
            free(all);
            cs_h5_close_read(r);
            return NULL;
        }
        all = na;
        memcpy(all + len, &nr, 8);
        if (b) memcpy(all + len + 8, rows, b);
        len += b + 8;
        free(rows);
    }
    cs_h5_close_read(r);
    *n = len;
    return all;
}

typedef struct cs__case {
    const char *name;      /* label */
    char *argv[12];        /* cowsim argv (argv[0] = "cowsim") */
    int argc;
    const char *h5;        /* run file to compare when the command succeeds, or NULL */
    const char *cleanup;   /* file or directory emptied before each child, or NULL */
    int advisory;          /* exit 0 with changed output is reported, not failed (see main) */
} cs__case_t;

/* Empty directory path, or remove file path. */
static void cs__empty_dir(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return;
    char cmd[600];
    if (S_ISDIR(sb.st_mode)) snprintf(cmd, sizeof cmd, "rm -rf '%s'/* 2>/dev/null", path);
    else snprintf(cmd, sizeof cmd, "rm -f '%s'", path);
    if (system(cmd) != 0) {
    }
}

/* The k loop for one command (CS_FAILALLOC_CASES=a,b: only those names). */
static void cs__run_case(const cs__case_t *c)
{
    const char *only = getenv("CS_FAILALLOC_CASES");
    if (only) {
        int hit = 0;
        for (const char *p = only; *p && !hit; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
            size_t n = strcspn(p, ",");
            hit = n > 0 && strncmp(c->name, p, n) == 0;
        }
        if (!hit) return;
    }
    char out0[300], out[300];
    snprintf(out0, sizeof out0, "%s/stdout.base", cs__dir);
    snprintf(out, sizeof out, "%s/stdout.k", cs__dir);
    if (c->cleanup) cs__empty_dir(c->cleanup);
    cs__res_t base = cs__child((char **)c->argv, c->argc, 0, out0);
    size_t n0 = 0, h0n = 0;
    char *s0 = cs__slurp(out0, &n0);
    char *h0 = c->h5 ? cs__datasets(c->h5, &h0n) : NULL;
    CS_CHECK(!base.signaled && base.leaks == 0);
    if (base.signaled || base.leaks) {
        fprintf(stderr, "failalloc %s: baseline %s (signal %d, exit %d, leaks %llu: %s)\n", c->name,
                base.signaled ? "crashed" : "leaked", base.sig, base.code, (unsigned long long)base.leaks, base.leak);
    }
    if (c->h5) CS_CHECK(h0 != NULL);
    uint64_t lo = 1, hi = base.allocs;
    if (cs__one_k) lo = hi = (uint64_t)cs__one_k;
    long bad = 0, absorbed = 0, faults = 0, degraded = 0;
    uintptr_t absorbed_at[8];
    int n_abs_at = 0;
    time_t t0 = time(NULL);
    for (uint64_t k = lo; k <= hi; k++) {
        if (c->cleanup) cs__empty_dir(c->cleanup);
        cs__res_t r = cs__child((char **)c->argv, c->argc, k, out);
        if (!r.failed) continue; /* a shorter path: nothing was injected */
        faults++;
        int ok = 1;
        const char *why = "";
        if (r.signaled) {
            ok = 0;
            why = "killed by a signal";
        } else if (r.code == CS_EXIT_USAGE || r.code == CS_EXIT_IO) {
            /* a clean error */
        } else if (r.code == base.code && r.code == 0) {
            size_t n1 = 0;
            char *s1 = cs__slurp(out, &n1);
            if (!s0 || !s1 || n1 != n0 || memcmp(s0, s1, n0) != 0) {
                ok = 0;
                why = "exit 0 with different output";
            } else if (c->h5) {
                size_t hn = 0;
                char *h1 = cs__datasets(c->h5, &hn);
                if (!h0 || !h1 || hn != h0n || memcmp(h0, h1, hn) != 0) {
                    ok = 0;
                    why = "exit 0 with different datasets";
                }
                free(h1);
            }
            free(s1);
            if (ok) {
                absorbed++;
                int seen = 0;
                for (int i = 0; i < n_abs_at; i++) seen |= absorbed_at[i] == r.at;
                if (!seen && n_abs_at < 8) absorbed_at[n_abs_at++] = r.at;
            }
        } else {
            ok = 0;
            why = "exit code not 2 or 3";
        }
        if (ok && r.leaks) {
            ok = 0;
            why = "leak";
        }
        if (!ok && c->advisory && !r.signaled && r.code == 0 && r.leaks == 0) {
            /* Known: reported to the command's owner, not a failure yet. */
            if (degraded++ < 5)
                fprintf(stderr, "failalloc %s (advisory): allocation %llu (caller +0x%lx) failed -> %s\n", c->name,
                        (unsigned long long)k, (unsigned long)r.at, why);
            continue;
        }
        CS_CHECK(ok);
        if (!ok && bad++ < 400)
            fprintf(stderr,
                    "failalloc %s: allocation %llu of %llu (caller +0x%lx) failed -> %s (signal %d, exit %d, "
                    "leaks %llu: %s)\n",
                    c->name, (unsigned long long)k, (unsigned long long)base.allocs, (unsigned long)r.at, why, r.sig,
                    r.code, (unsigned long long)r.leaks, r.leak);
    }
    cs__faults += faults;
    cs__absorbed += absorbed;
    cs__degraded += degraded;
    printf("failalloc %-16s %6llu allocations, %6ld faults injected, %4ld absorbed, %3ld bad", c->name,
           (unsigned long long)base.allocs, faults, absorbed, bad);
    if (c->advisory) printf(", %ld advisory (exit 0, changed output)", degraded);
    printf(" (%lds)\n", (long)(time(NULL) - t0));
    if (n_abs_at) {
        printf("    absorbed at callers:");
        for (int i = 0; i < n_abs_at; i++) printf(" +0x%lx", (unsigned long)absorbed_at[i]);
        printf("\n");
    }
    free(s0);
    free(h0);
}

/* Is `cowsim cmd --help` built (exit 0)? */
static int cs__have(const char *cmd)
{
    char a0[] = "cowsim", a2[] = "--help";
    char *argv[] = {a0, (char *)cmd, a2, NULL};
    char out[300];
    snprintf(out, sizeof out, "%s/help.out", cs__dir);
    cs__res_t r = cs__child(argv, 3, 0, out);
    return !r.signaled && r.code == 0;
}

static void cs__write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CS_CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

int main(void)
{
    const char *one = getenv("CS_FAILALLOC");
    cs__one_k = one ? atoi(one) : 0;
    cs_aw_hook_cjson();
    snprintf(cs__dir, sizeof cs__dir, "/tmp/cs_failalloc_%d", (int)getpid());
    mkdir(cs__dir, 0755);
    const char *src = getenv("CS_SRC");
    if (!src) src = ".";

    /* A small scenario touching several agents and two mechanisms. */
    char scn[300], bad[300], rundir[300], fifo_h5[300], eip_h5[300], auction[600], base[300], repdir[300];
    snprintf(scn, sizeof scn, "%s/small.json", cs__dir);
    snprintf(bad, sizeof bad, "%s/bad.json", cs__dir);
    snprintf(rundir, sizeof rundir, "%s/run", cs__dir);
    snprintf(fifo_h5, sizeof fifo_h5, "%s/run/fifo.h5", cs__dir);
    snprintf(eip_h5, sizeof eip_h5, "%s/run/eip1559.h5", cs__dir);
    snprintf(auction, sizeof auction, "%s/scenarios/auctions/bias_vcg_critical.json", src);
    snprintf(base, sizeof base, "%s/baseline.json", cs__dir);
    snprintf(repdir, sizeof repdir, "%s/report", cs__dir);
    cs__write(scn, "{\"name\": \"failalloc\", \"seed\": 11, \"blocks\": 40, \"mechanism\": [\"fifo\", \"eip1559\"],\n"
                   " \"params\": {\"fairness_window\": 16, \"ring_size\": 8, \"epoch_blocks\": 6, \"epochs\": 2},\n"
                   " \"agents\": [{\"kind\": \"heartbeat\", \"count\": 2}, {\"kind\": \"default_gba\", \"count\": 2},\n"
                   "            {\"kind\": \"watcher\", \"count\": 1}, {\"kind\": \"subscription\", \"count\": 1}],\n"
                   " \"events\": [{\"at\": 20, \"type\": \"lane_pause\", \"duration\": 3}],\n"
                   " \"output\": {\"flush_every\": 10, \"weights_every\": 10}}\n");
    cs__write(bad, "{\"name\": \"bad\", \"blocks\": 0, \"mechanism\": \"nope\", \"zzz\": 1,\n"
                   " \"agents\": [{\"kind\": \"heartbeat\", \"count\": -1, \"balance\": \"01\"}, {\"kind\": \"x\"}]}\n");

    cs__case_t run = {"run", {"cowsim", "run", scn, "-o", rundir, "--quiet"}, 6, eip_h5, rundir, 0};
    cs__case_t val = {"validate(bad)", {"cowsim", "validate", bad}, 3, NULL, NULL, 0};
    cs__case_t clr = {"clear --json", {"cowsim", "clear", auction, "--json"}, 4, NULL, NULL, 0};
    cs__case_t clt = {"clear(table)", {"cowsim", "clear", auction}, 3, NULL, NULL, 0};
    cs__run_case(&run);
    cs__run_case(&val);
    cs__run_case(&clr);
    cs__run_case(&clt);

    /* Leave a complete run behind for the analysis commands. */
    char outp[300];
    snprintf(outp, sizeof outp, "%s/setup.out", cs__dir);
    cs__empty_dir(rundir);
    cs__res_t setup = cs__child(run.argv, run.argc, 0, outp);
    CS_CHECK(!setup.signaled && setup.code == 0);
    /*
     * The analysis commands.  A crash, a leak or an exit code other than 0,
     * 2 or 3 fails the test; exiting 0 with output that differs from the
     * baseline after an allocation failure is counted as "advisory": found
     * by this test and reported to their owner (unchecked cJSON adds in the
     * --bless writer, metrics that turn into NaN on allocation failure, the
     * scenario name read with cJSON_Parse), not yet fixed.  Set advisory to
     * 0 once fixed.
     */
    if (cs__have("compare")) {
        cs__case_t c = {"compare", {"cowsim", "compare", fifo_h5, eip_h5}, 4, NULL, NULL, 1};
        cs__run_case(&c);
    }
    if (cs__have("check")) {
        cs__case_t bl = {"check --bless", {"cowsim", "check", "--bless", base, eip_h5}, 5, NULL, base, 1};
        cs__run_case(&bl);
        cs__empty_dir(base);
        cs__res_t b = cs__child(bl.argv, bl.argc, 0, outp); /* leave the baseline in place */
        CS_CHECK(!b.signaled && b.code == 0);
        cs__case_t ck = {"check", {"cowsim", "check", "--baseline", base, eip_h5}, 5, NULL, NULL, 1};
        cs__run_case(&ck);
    }
    if (cs__have("report")) {
        /* A stand-in gnuplot that only creates each script's output file:
         * the test is about the report's own allocations, and the real
         * gnuplot would make every one of the ~200 children 1 s slower. */
        char gpdir[300], gp[320], path[4400];
        snprintf(gpdir, sizeof gpdir, "%s/bin", cs__dir);
        snprintf(gp, sizeof gp, "%s/gnuplot", gpdir);
        mkdir(gpdir, 0755);
        cs__write(gp, "#!/bin/sh\n"
                      "for a in \"$@\"; do\n"
                      "  case \"$a\" in\n"
                      "    --version|-V) echo 'gnuplot 5.4 patchlevel 4'; exit 0;;\n"
                      "    *.gp) sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$a\" | while IFS= read -r o; do : > \"$o\"; done;;\n"
                      "  esac\n"
                      "done\n"
                      "exit 0\n");
        chmod(gp, 0755);
        const char *old = getenv("PATH");
        snprintf(path, sizeof path, "%s:%s", gpdir, old ? old : "/usr/bin:/bin");
        setenv("PATH", path, 1);
        mkdir(repdir, 0755);
        cs__case_t rp = {"report", {"cowsim", "report", fifo_h5, "-o", repdir}, 5, NULL, repdir, 1};
        cs__run_case(&rp);
    }
    printf("failalloc: %ld children, %ld faults injected, %ld absorbed with identical results, %ld advisory\n",
           cs__children, cs__faults, cs__absorbed, cs__degraded);
    CS_CHECK(cs__faults > 0);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cs__dir);
    if (system(cmd) != 0) {
    }
    return cs_test_done("failalloc");
}
