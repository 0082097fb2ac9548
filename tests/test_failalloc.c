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
 *     absorbed without changing the result), and then also exactly the
 *     baseline's output: the datasets of the run file for `run`, the
 *     baseline file written by `check --bless`, every file `report` writes;
 *   - leave no allocation of ours live when the command returns (a leak is
 *     reported with its allocation number, size and caller offset);
 *   - for compare, check and report, when exiting 2 or 3, say "out of
 *     memory" on stderr (DESIGN §2.9: a clear message; for run, validate
 *     and clear such exits are only counted and printed).
 * A forked helper (the HDF5 reader sandbox of cs_h5_open_read) inherits the
 * numbering and fails its own k-th allocation; when that makes the command
 * stop before reaching k itself, the child is checked the same way and
 * counted as "in a helper" rather than as an injected fault.
 * Commands: a small scenario `run` over two mechanisms (scenario load, the
 * engine, agents, the scheduler core, the HDF5 writer), `validate` of an
 * invalid scenario (the error-list path), `clear` of a bias-vcg auction,
 * and on the run's files, when those commands are built (detected with
 * --help): `compare` (--json of two runs; the text table of a run with a
 * greedy.h5 beside it, and of one with an unusable greedy.h5), `check
 * --bless` / `--baseline` and `report` (of a run file; in the ctest entry
 * failalloc_report_more also of a multi-seed run directory and of a sweep
 * summary with --point, the stand-in gnuplot tests/cs_fakegp.c).  There is
 * no "known to degrade" list: every command is held to the rule above.  Also here: the JSON
 * well-formedness check that compare, check and report use to tell
 * "cJSON_Parse ran out of memory" from "malformed text"
 * (cs__check_wellformed).
 *
 * Environment: CS_FAILALLOC=k runs only k (and the baseline) for each
 * command and shows the child's stderr -- for debugging one failure;
 * CS_FAILALLOC_CASES=run,clear runs only the commands whose labels start
 * with one of the names (so "compare" selects every compare case);
 * CS_FAILALLOC_PER_SITE=n fails, instead of every allocation, only the
 * first n made at each call site (the baseline records every allocation's
 * caller) -- each site's failure path at a fraction of the children; the
 * ctest entries set n = 3 (CMakeLists.txt; CS_TEST_SMALL makes it 1), and CS_FAILALLOC_FULL=1
 * (tests/release.sh) overrides it: every allocation fails in turn;
 * CS_FAILALLOC_CJSON_EVERY=m adds, in per-site mode, every m-th allocation
 * cJSON makes (all of them come through one hook, one "site";
 * tests/coverage.sh sets m = 10).
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

#include <dirent.h>

#ifdef CS_SANITIZE
/* Under ASan every injection is a fork of this process, whose page tables
 * the kernel copies: the default 256 MB quarantine of freed memory that
 * the parent accumulates (it reads and compares every child's outputs)
 * made fork most of the test's time.  A small quarantine keeps the parent
 * small; the children, which run the commands, get the same setting
 * (ASAN_OPTIONS in the environment still overrides it). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "quarantine_size_mb=8";
}
#endif

#include <cjson/cJSON.h>

/* 2^16 slots: a command here holds at most a few thousand allocations of
 * ours at once, and each of the ~3,000 children is a fork of this process. */
#define CS__SET_BITS 16
#include "cs_allocwrap.h"
#include "cs_cli.h"
#include "cs_h5.h"
#include "cs_metrics.h"
#include "cs_test.h"

/* ------------------------------------------------------------ the driver */

static char cs__dir[256];        /* scratch directory */
static int cs__one_k;            /* CS_FAILALLOC=k: only this k, verbose */
static long cs__children;        /* children run in all */
static long cs__faults;          /* injected failures that happened */
static long cs__absorbed;        /* of those, commands that still succeeded identically */
static int cs__per_site;         /* CS_FAILALLOC_PER_SITE=n: fail only the first n at each call site */
static int cs__cjson_every;      /* CS_FAILALLOC_CJSON_EVERY=m: with per-site, also every m-th cJSON allocation */

/* The caller offset the allocation wrapper records for cJSON's allocations
 * (its hook, tests/cs_allocwrap.h). */
static uint32_t cs__cj_site;

/* The baseline child's record of its allocations' callers (per-site mode). */
#define CS__REC_CAP (1u << 16)
static uint32_t cs__rec_buf[CS__REC_CAP];

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
 * stdout goes to out_path, stderr to out_path + ".err" (to the terminal
 * too under CS_FAILALLOC=k). */
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
            char ep[320];
            snprintf(ep, sizeof ep, "%s.err", out_path);
            int e = open(ep, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (e >= 0) {
                dup2(e, 2);
                close(e);
            }
        }
        /* Forget whatever the parent tracked; count from here. */
        cs_aw_reset(k);
        if (k == 0 && cs__per_site) cs_aw_record(cs__rec_buf, CS__REC_CAP);
        int code = cs_cli_main(argc, argv);
        fflush(stdout);
        if (k == 0 && cs__per_site) {
            /* The callers, in order, for the parent's choice of k. */
            cs_aw_record(NULL, 0);
            char rp[320];
            snprintf(rp, sizeof rp, "%s.callers", out_path);
            uint64_t nrec = cs_aw_count() < CS__REC_CAP ? cs_aw_count() : CS__REC_CAP;
            int rf = open(rp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (rf >= 0) {
                (void)!write(rf, cs__rec_buf, (size_t)nrec * sizeof cs__rec_buf[0]);
                close(rf);
            }
        }
        cs__report_t rep;
        memset(&rep, 0, sizeof rep);
        rep.allocs = cs_aw_count();
        rep.failed = cs_aw_failed();
        rep.at = cs_aw_fail_caller();
        rep.leaks = cs_aw_live();
        if (rep.leaks) cs_aw_describe_live(rep.leak, sizeof rep.leak);
        (void)!write(pfd[1], &rep, sizeof rep);
        cs_child_exit(code); /* coverage builds: the counters too (sim/cs_exit.h) */
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

/* Append n bytes at p to the growing buffer *all (length *len).  Returns
 * 0, or -1 when out of memory (*all freed and NULL). */
static int cs__append(char **all, size_t *len, const void *p, size_t n)
{
    char *na = realloc(*all, *len + n + 1);
    if (!na) {
        free(*all);
        *all = NULL;
        return -1;
    }
    if (n) memcpy(na + *len, p, n);
    *all = na;
    *len += n;
    return 0;
}

/* Append the snapshot of path to *all: for a regular file its name, size
 * and bytes; for a directory the snapshots of its entries in name order
 * (so two snapshots are equal exactly when the trees hold the same
 * files with the same bytes).  Returns 0 or -1. */
static int cs__snap_into(const char *path, const char *name, char **all, size_t *len)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return cs__append(all, len, "?missing", 9);
    if (S_ISDIR(sb.st_mode)) {
        struct dirent **ents = NULL;
        int n = scandir(path, &ents, NULL, alphasort);
        if (n < 0) return -1;
        int rc = cs__append(all, len, "D", 1);
        for (int i = 0; i < n; i++) {
            const char *e = ents[i]->d_name;
            if (rc == 0 && strcmp(e, ".") != 0 && strcmp(e, "..") != 0) {
                char sub[1024];
                snprintf(sub, sizeof sub, "%s/%s", path, e);
                rc = cs__snap_into(sub, e, all, len);
            }
            free(ents[i]);
        }
        free(ents);
        return rc;
    }
    size_t n = 0;
    char *body = cs__slurp(path, &n);
    if (!body) return -1;
    char head[600];
    int h = snprintf(head, sizeof head, "F%s%c%zu%c", name, 0, n, 0);
    int rc = cs__append(all, len, head, (size_t)h);
    if (rc == 0) rc = cs__append(all, len, body, n);
    free(body);
    return rc;
}

/* Snapshot of a file or directory tree (see cs__snap_into) into a malloc'd
 * buffer of *n bytes; NULL if unreadable. */
static char *cs__snapshot(const char *path, size_t *n)
{
    char *all = NULL;
    size_t len = 0;
    if (cs__append(&all, &len, "", 0) != 0 || cs__snap_into(path, ".", &all, &len) != 0) {
        free(all);
        return NULL;
    }
    *n = len;
    return all;
}

typedef struct cs__case {
    const char *name;      /* label */
    char *argv[12];        /* cowsim argv (argv[0] = "cowsim") */
    int argc;
    const char *h5;        /* run file to compare when the command succeeds, or NULL */
    const char *cleanup;   /* file or directory emptied before each child, or NULL */
    const char *out;       /* file or directory whose bytes must equal the baseline's on exit 0, or NULL */
    int says_oom;          /* an exit 2 or 3 must say "out of memory" on stderr (else only counted) */
    int code0;             /* exit code without a failure (else the case tests nothing) */
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
    char *h0 = c->h5 ? cs_test_datasets(c->h5, &h0n) : NULL;
    size_t o0n = 0;
    char *o0 = c->out ? cs__snapshot(c->out, &o0n) : NULL;
    CS_CHECK(!base.signaled && base.leaks == 0 && base.code == c->code0);
    if (base.signaled || base.leaks || base.code != c->code0) {
        fprintf(stderr, "failalloc %s: baseline %s (signal %d, exit %d, expected %d, leaks %llu: %s)\n", c->name,
                base.signaled ? "crashed" : base.leaks ? "leaked" : "exit code", base.sig, base.code, c->code0,
                (unsigned long long)base.leaks, base.leak);
    }
    if (c->h5) CS_CHECK(h0 != NULL);
    if (c->out) CS_CHECK(o0 != NULL);
    uint64_t lo = 1, hi = base.allocs;
    if (cs__one_k) lo = hi = (uint64_t)cs__one_k;
    /* Per-site mode: fail only the first cs__per_site allocations made at
     * each call site (return address) in the baseline's order -- every
     * site's failure path, with fewer children; allocations past the
     * record, and those only a forked helper makes, are still chosen by
     * their number as the record places them. */
    unsigned char *pick = NULL;
    long n_sites = 0, n_pick = 0;
    if (cs__per_site && !cs__one_k && hi > 0) {
        char rp[320];
        snprintf(rp, sizeof rp, "%s.callers", out0);
        size_t rn = 0;
        uint32_t *rec = (uint32_t *)(void *)cs__slurp(rp, &rn);
        rn /= sizeof(uint32_t);
        pick = calloc((size_t)hi + 1, 1);
        enum { CAP = 1 << 14 };
        uint32_t *site = calloc(CAP, sizeof *site);
        uint32_t *seen = calloc(CAP, sizeof *seen);
        CS_CHECK(rec != NULL && pick != NULL && site != NULL && seen != NULL);
        for (uint64_t k = 1; pick && k <= hi; k++) {
            if (!rec || !site || !seen || k > rn) {
                pick[k] = 1;
                continue;
            }
            uint32_t at = rec[k - 1], h = (at * 2654435761u) & (CAP - 1);
            while (seen[h] && site[h] != at) h = (h + 1) & (CAP - 1);
            if (!seen[h]) {
                site[h] = at;
                n_sites++;
            }
            pick[k] = seen[h]++ < (uint32_t)cs__per_site;
            /* cJSON's allocations all come through one hook, one "site":
             * CS_FAILALLOC_CJSON_EVERY=m (tests/coverage.sh) also fails
             * every m-th of them, reaching the failure paths of the
             * cJSON calls made after the first few. */
            if (cs__cjson_every > 0 && at == cs__cj_site && seen[h] % (uint32_t)cs__cjson_every == 0) pick[k] = 1;
        }
        for (uint64_t k = 1; pick && k <= hi; k++) n_pick += pick[k];
        free(rec);
        free(site);
        free(seen);
    }
    long bad = 0, absorbed = 0, faults = 0, unreached = 0, mute = 0;
    char errp[320];
    snprintf(errp, sizeof errp, "%s.err", out);
    uintptr_t absorbed_at[8];
    int n_abs_at = 0;
    time_t t0 = time(NULL);
    for (uint64_t k = lo; k <= hi; k++) {
        if (pick && !pick[k]) continue;
        if (c->cleanup) cs__empty_dir(c->cleanup);
        cs__res_t r = cs__child((char **)c->argv, c->argc, k, out);
        /* Not failed: allocation k was never reached in this process -- it
         * fell in a forked helper (the HDF5 reader sandbox counts on from
         * the fork), whose failure shortened the command.  The outcome is
         * held to the same rule; it just is not counted as a fault. */
        if (r.failed) faults++;
        else unreached++;
        int ok = 1;
        const char *why = "";
        if (r.signaled) {
            ok = 0;
            why = "killed by a signal";
        } else if (r.code == CS_EXIT_USAGE || r.code == CS_EXIT_IO) {
            /* A clean error; it should say why (DESIGN §2.9). */
            size_t ne = 0;
            char *e = cs__one_k ? NULL : cs__slurp(errp, &ne);
            if (e && !memmem(e, ne, "out of memory", 13)) {
                mute++;
                if (c->says_oom) {
                    ok = 0;
                    why = "exit 2 or 3 without \"out of memory\" on stderr";
                }
            }
            free(e);
        } else if (r.code == base.code && r.code == 0) {
            size_t n1 = 0;
            char *s1 = cs__slurp(out, &n1);
            if (!s0 || !s1 || n1 != n0 || memcmp(s0, s1, n0) != 0) {
                ok = 0;
                why = "exit 0 with different output";
            } else if (c->h5) {
                size_t hn = 0;
                char *h1 = cs_test_datasets(c->h5, &hn);
                if (!h0 || !h1 || hn != h0n || memcmp(h0, h1, hn) != 0) {
                    ok = 0;
                    why = "exit 0 with different datasets";
                }
                free(h1);
            }
            if (ok && c->out) {
                size_t on = 0;
                char *o1 = cs__snapshot(c->out, &on);
                if (!o0 || !o1 || on != o0n || memcmp(o0, o1, on) != 0) {
                    ok = 0;
                    why = "exit 0 with different output files";
                }
                free(o1);
            }
            free(s1);
            if (ok && r.failed) {
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
        CS_CHECK(ok);
        if (cs__one_k)
            fprintf(stderr, "failalloc %s: allocation %llu (caller +0x%lx) %s -> signal %d, exit %d\n", c->name,
                    (unsigned long long)k, (unsigned long)r.at, r.failed ? "failed" : "not reached", r.sig, r.code);
        if (!ok && bad++ < 400)
            fprintf(stderr,
                    "failalloc %s: allocation %llu of %llu (caller +0x%lx) failed -> %s (signal %d, exit %d, "
                    "leaks %llu: %s)\n",
                    c->name, (unsigned long long)k, (unsigned long long)base.allocs, (unsigned long)r.at, why, r.sig,
                    r.code, (unsigned long long)r.leaks, r.leak);
    }
    cs__faults += faults;
    cs__absorbed += absorbed;
    printf("failalloc %-16s %6llu allocations, %6ld faults injected, %4ld absorbed, %3ld bad, %3ld in a helper "
           "(%lds)\n",
           c->name, (unsigned long long)base.allocs, faults, absorbed, bad, unreached, (long)(time(NULL) - t0));
    if (pick)
        printf("    per site: the first %d allocations at each of %ld call sites, %ld of %llu\n", cs__per_site, n_sites,
               n_pick, (unsigned long long)hi);
    free(pick);
    if (mute && !c->says_oom) printf("    %ld clean exits did not say \"out of memory\"\n", mute);
    if (n_abs_at) {
        printf("    absorbed at callers:");
        for (int i = 0; i < n_abs_at; i++) printf(" +0x%lx", (unsigned long)absorbed_at[i]);
        printf("\n");
    }
    free(s0);
    free(h0);
    free(o0);
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

/* Copy file from to file to (bytes). */
static void cs__copy(const char *from, const char *to)
{
    size_t n = 0;
    char *b = cs__slurp(from, &n);
    FILE *f = b ? fopen(to, "wb") : NULL;
    CS_CHECK(f != NULL);
    if (f) {
        CS_CHECK(fwrite(b, 1, n, f) == n);
        fclose(f);
    }
    free(b);
}

static void cs__write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CS_CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/*
 * compare and check tell "cJSON_Parse ran out of memory" from "malformed
 * text" with cs__json_wellformed (cs_metrics.h); the cases above show it
 * says "well-formed" for the texts they parse.  Here, the other half: it
 * must never call text well-formed that cJSON rejects (that would report a
 * bad baseline as out of memory).  Hand vectors with their RFC 8259
 * verdicts, then the property "well-formed => cJSON_Parse succeeds" over
 * mutations of a JSON text, cJSON itself (no failure injected) being the
 * reference.
 */
static void cs__check_wellformed(const char *sample)
{
    static const struct {
        const char *text;
        int ok;
    } vec[] = {
        {"{\"a\": [1, -0.5e+3, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\"]}", 1}, /* all value kinds */
        {" \n {} \t", 1},                  /* whitespace around a value */
        {"[1,]", 0},                        /* trailing comma */
        {"{\"a\" 1}", 0},                   /* no colon */
        {"01", 0},                          /* leading zero (cJSON takes it: stricter) */
        {"[1.]", 0},                        /* no fraction digits */
        {"\"\\ud83d\"", 0},                 /* lone high surrogate: cJSON rejects */
        {"\"\\ude00x\"", 0},                /* lone low surrogate: cJSON rejects */
        {"\"\\q\"", 0},                     /* unknown escape */
        {"\"a\tb\"", 0},                     /* raw control character (cJSON takes it) */
        {"[1] x", 0},                       /* trailing text (cJSON_Parse ignores it) */
        {"", 0},                            /* nothing */
        {"nul", 0},                         /* truncated literal */
    };
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
        int got = cs__json_wellformed(vec[i].text);
        CS_CHECK(got == vec[i].ok);
        if (got != vec[i].ok) fprintf(stderr, "cs__json_wellformed(%s) = %d\n", vec[i].text, got);
        cJSON *j = cJSON_Parse(vec[i].text);
        if (got) CS_CHECK(j != NULL);
        cJSON_Delete(j);
    }
    /* Nesting: cJSON takes 1000 nested arrays and refuses 1001
     * (CJSON_NESTING_LIMIT); so must the check.  A 63-digit number fits
     * the 64-byte number buffer of cJSON up to 1.7.15 (later versions, and
     * Debian's patched 1.7.15, allocate it and take any length): the check
     * accepts 63 digits and refuses 64 either way. */
    char deep[2 * 1001 + 1], num[70];
    for (int d = 1000; d <= 1001; d++) {
        memset(deep, '[', (size_t)d);
        memset(deep + d, ']', (size_t)d);
        deep[2 * d] = '\0';
        cJSON *j = cJSON_Parse(deep);
        CS_CHECK((j != NULL) == (d == 1000));
        CS_CHECK(cs__json_wellformed(deep) == (d == 1000));
        cJSON_Delete(j);
    }
    for (int n = 63; n <= 64; n++) {
        num[0] = '[';
        memset(num + 1, '7', (size_t)n);
        num[n + 1] = ']';
        num[n + 2] = '\0';
        cJSON *j = cJSON_Parse(num);
        if (n == 63) CS_CHECK(j != NULL);
        CS_CHECK(cs__json_wellformed(num) == (n == 63));
        cJSON_Delete(j);
    }
    /* Mutations: replace, delete or insert one JSON-significant byte at a
     * time (seeded LCG, 3 edits per text). */
    static const char alphabet[] = "{}[]\",:\\ 0123456789-+.eEtrufalsn\tx";
    size_t n = strlen(sample);
    char *t = malloc(n + 8);
    CS_CHECK(t != NULL);
    if (!t) return;
    uint64_t x = 0x2385u;
    long wellformed = 0, wrong = 0;
    for (int trial = 0; trial < 20000; trial++) {
        memcpy(t, sample, n + 1);
        size_t len = n;
        for (int e = 0; e < 3; e++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)((x >> 33) % (len + 1));
            char ch = alphabet[(x >> 20) % (sizeof alphabet - 1)];
            int op = (int)((x >> 10) % 3);
            if (op == 0 && at < len) {
                t[at] = ch;
            } else if (op == 1 && at < len) {
                memmove(t + at, t + at + 1, len - at);
                len--;
            } else if (len < n + 6) {
                memmove(t + at + 1, t + at, len - at + 1);
                t[at] = ch;
                len++;
            }
        }
        if (!cs__json_wellformed(t)) continue;
        wellformed++;
        cJSON *j = cJSON_Parse(t);
        if (!j && wrong++ < 3) fprintf(stderr, "cs__json_wellformed accepts what cJSON rejects: %s\n", t);
        cJSON_Delete(j);
    }
    free(t);
    printf("failalloc: JSON well-formedness: %ld of 20000 mutated texts well-formed, %ld rejected by cJSON\n",
           wellformed, wrong);
    CS_CHECK(wellformed > 1000); /* the property was exercised */
    CS_CHECK(wrong == 0);
}

int main(void)
{
    const char *one = getenv("CS_FAILALLOC");
    cs__one_k = one ? atoi(one) : 0;
    const char *ps = getenv("CS_FAILALLOC_PER_SITE"), *full = getenv("CS_FAILALLOC_FULL");
    cs__per_site = ps && !(full && strcmp(full, "1") == 0) ? atoi(ps) : 0;
    /* CS_TEST_SMALL (CI's sanitizer suite, where each child is a forked
     * ASan process): the first allocation at each call site only -- every
     * site's failure path still, at about half the children; the release
     * suite keeps the ctest entries' n. */
    if (cs__per_site > 1) cs__per_site = (int)cs_test_size("failures per call site", (uint64_t)cs__per_site, 1);
    const char *ce = getenv("CS_FAILALLOC_CJSON_EVERY");
    cs__cjson_every = ce ? atoi(ce) : 0;
    cs__cj_site = (uint32_t)((uintptr_t)cs__cj_malloc - (uintptr_t)__executable_start);
    cs_aw_hook_cjson();
    snprintf(cs__dir, sizeof cs__dir, "%s/cs_failalloc_%d", cs_test_tmpdir(), (int)getpid());
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
    {
        size_t sn = 0;
        char *st = cs__slurp(scn, &sn), *z = st ? malloc(sn + 1) : NULL; /* cs__slurp does not terminate */
        CS_CHECK(z != NULL);
        if (z) {
            memcpy(z, st, sn);
            z[sn] = '\0';
            cs__check_wellformed(z);
        }
        free(z);
        free(st);
    }
    cs__write(bad, "{\"name\": \"bad\", \"blocks\": 0, \"mechanism\": \"nope\", \"zzz\": 1,\n"
                   " \"agents\": [{\"kind\": \"heartbeat\", \"count\": -1, \"balance\": \"01\"}, {\"kind\": \"x\"}]}\n");

    cs__case_t run = {"run", {"cowsim", "run", scn, "-o", rundir, "--quiet"}, 6, eip_h5, rundir, NULL, 0, 0};
    cs__case_t val = {"validate(bad)", {"cowsim", "validate", bad}, 3, NULL, NULL, NULL, 0, 2};
    cs__case_t clr = {"clear --json", {"cowsim", "clear", auction, "--json"}, 4, NULL, NULL, NULL, 0, 0};
    cs__case_t clt = {"clear(table)", {"cowsim", "clear", auction}, 3, NULL, NULL, NULL, 0, 0};
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
     * The analysis commands, held to the same rule as the rest: exit 2 or 3,
     * or exit 0 with the baseline's stdout and output files.  (compare,
     * check and report once exited 0 with changed results here: the
     * scenario name read with cJSON_Parse became "" when the parse ran out
     * of memory, a fires_mode attribute that could not be allocated read as
     * "all", an unusable-greedy fallback was also taken on out of memory,
     * and unchecked cJSON adds in the --bless writer dropped members from
     * the baseline.  report's went unseen while the stand-in gnuplot below
     * wrote empty plots, which report rejects, so every report child
     * failed.)
     */
    if (cs__have("compare")) {
        /* --json: the text table allocates nothing of ours that the JSON
         * path does not (the metric names), and the document holds every
         * value and the run identity, so one case covers both formats. */
        cs__case_t cj = {"compare --json", {"cowsim", "compare", fifo_h5, eip_h5, "--json"}, 5, NULL, NULL, NULL, 1, 0};
        cs__run_case(&cj);
        /* Greedy runs found beside the run: a real one (efficiency and poa; an
         * out-of-memory must not pass for "unusable greedy", which drops
         * them with a warning), and an unusable one beside a copy of the
         * run (the warning, then the run's metrics without it). */
        char odir[300], ofifo[320], bdir[300], bfifo[320], bad_or[320];
        snprintf(odir, sizeof odir, "%s/orun", cs__dir);
        snprintf(ofifo, sizeof ofifo, "%s/fifo.h5", odir);
        char *orun[] = {"cowsim", "run", scn, "-o", odir, "--mechanism", "fifo,greedy", "--quiet", NULL};
        cs__res_t o = cs__child(orun, 8, 0, outp);
        CS_CHECK(!o.signaled && o.code == 0);
        cs__case_t co = {"compare(greedy.h5)", {"cowsim", "compare", ofifo}, 3, NULL, NULL, NULL, 1, 0};
        cs__run_case(&co);
        snprintf(bdir, sizeof bdir, "%s/badgreedy", cs__dir);
        snprintf(bfifo, sizeof bfifo, "%s/fifo.h5", bdir);
        snprintf(bad_or, sizeof bad_or, "%s/greedy.h5", bdir);
        mkdir(bdir, 0755);
        cs__copy(fifo_h5, bfifo);
        cs__write(bad_or, "not an HDF5 file\n");
        cs__case_t cb = {"compare(bad greedy)", {"cowsim", "compare", bfifo}, 3, NULL, NULL, NULL, 1, 0};
        cs__run_case(&cb);
    }
    if (cs__have("check")) {
        cs__case_t bl = {"check --bless", {"cowsim", "check", "--bless", base, eip_h5}, 5, NULL, base, base, 1, 0};
        cs__run_case(&bl);
        cs__empty_dir(base);
        cs__res_t b = cs__child(bl.argv, bl.argc, 0, outp); /* leave the baseline in place */
        CS_CHECK(!b.signaled && b.code == 0);
        cs__case_t ck = {"check", {"cowsim", "check", "--baseline", base, eip_h5}, 5, NULL, NULL, NULL, 1, 0};
        cs__run_case(&ck);
    }
    if (cs__have("report")) {
        /* A stand-in gnuplot that only writes each script's output file (a
         * PNG signature and IEND chunk: report takes an empty or cut plot,
         * one that does not end with IEND, for a failed write): the test
         * is about the report's own allocations, and the real gnuplot would
         * make every one of the ~200 children 1 s slower. */
        char gpdir[300], gp[320], path[4400];
        snprintf(gpdir, sizeof gpdir, "%s/bin", cs__dir);
        snprintf(gp, sizeof gp, "%s/gnuplot", gpdir);
        mkdir(gpdir, 0755);
        cs__write(gp, "#!/bin/sh\n"
                      "for a in \"$@\"; do\n"
                      "  case \"$a\" in\n"
                      "    --version|-V) echo 'gnuplot 5.4 patchlevel 4'; exit 0;;\n"
                      "    *.gp) sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$a\" | while IFS= read -r o; do "
                      "printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\000IEND\\256B\\140\\202' > \"$o\"; done;;\n"
                      "  esac\n"
                      "done\n"
                      "exit 0\n");
        chmod(gp, 0755);
        /* The same as one small program (tests/cs_fakegp.c, CS_FAKEGP): no
         * shell and sed started per plot. */
        const char *fake = getenv("CS_FAKEGP");
        if (fake && *fake) {
            unlink(gp);
            CS_CHECK(symlink(fake, gp) == 0);
        }
        const char *old = getenv("PATH");
        snprintf(path, sizeof path, "%s:%s", gpdir, old ? old : "/usr/bin:/bin");
        setenv("PATH", path, 1);
        mkdir(repdir, 0755);
        cs__case_t rp = {"report", {"cowsim", "report", fifo_h5, "-o", repdir}, 5, NULL, repdir, repdir, 1, 0};
        cs__run_case(&rp);
        /* A multi-seed run directory (cs_report_seeds.c, cs_seeds.c) and a
         * sweep summary with a string and a numeric parameter and --point
         * (cs_report_sweep.c): their own ctest entry, failalloc_report_more,
         * one failure per call site. */
        char sdir[300], sdir2[300], sjson[300], sh5[320], rd2[300], rd3[300];
        snprintf(sdir, sizeof sdir, "%s/seeds", cs__dir);
        snprintf(rd2, sizeof rd2, "%s/report2", cs__dir);
        snprintf(rd3, sizeof rd3, "%s/report3", cs__dir);
        const char *more = getenv("CS_FAILALLOC_CASES");
        /* Two heartbeats for 12 blocks: only the metrics that vary are
         * plotted, so each child draws few plots (a fraction of a second). */
        char tiny[300];
        snprintf(tiny, sizeof tiny, "%s/tiny.json", cs__dir);
        cs__write(tiny, "{\"name\": \"fa-tiny\", \"seed\": 11, \"blocks\": 12, \"mechanism\": [\"fifo\", \"eip1559\"],\n"
                        " \"agents\": [{\"kind\": \"heartbeat\", \"count\": 2}]}\n");
        if (more && strstr(more, "seeds report")) {
            char *srun[] = {"cowsim", "run", tiny, "-o", sdir, "--seeds", "2", "--quiet", NULL};
            cs__res_t o = cs__child(srun, 8, 0, outp);
            CS_CHECK(!o.signaled && o.code == 0);
            mkdir(rd2, 0755);
            cs__case_t rs = {"seeds report", {"cowsim", "report", sdir, "-o", rd2}, 5, NULL, rd2, rd2, 1, 0};
            cs__run_case(&rs);
        }
        if (more && strstr(more, "sweep report") && cs__have("sweep")) {
            snprintf(sjson, sizeof sjson, "%s/sweep.json", cs__dir);
            snprintf(sdir2, sizeof sdir2, "%s/sweep", cs__dir);
            snprintf(sh5, sizeof sh5, "%s/sweep.h5", sdir2);
            /* One seed: 13 plots. */
            cs__write(sjson, "{\"name\": \"fa\", \"base\": \"tiny.json\",\n"
                             " \"seeds\": [1], \"grid\": {\"params.lambda\": [0.1, 0.2],\n"
                             " \"params.basefee_rule\": [\"eip1559\", \"additive\"]}}\n");
            char *sw[] = {"cowsim", "sweep", sjson, "-o", sdir2, "--quiet", NULL};
            cs__res_t o = cs__child(sw, 6, 0, outp);
            CS_CHECK(!o.signaled && o.code == 0);
            mkdir(rd3, 0755);
            cs__case_t rw = {"sweep report", {"cowsim", "report", sh5, "-o", rd3, "--point", "1"}, 7, NULL, rd3, rd3, 1, 0};
            cs__run_case(&rw);
        }
    }
    printf("failalloc: %ld children, %ld faults injected, %ld absorbed with identical results\n", cs__children,
           cs__faults, cs__absorbed);
    CS_CHECK(cs__faults > 0);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cs__dir);
    if (system(cmd) != 0) {
    }
    return cs_test_done("failalloc");
}
