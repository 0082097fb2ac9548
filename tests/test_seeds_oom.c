/*
 * test_seeds_oom.c -- analysis/cs_seeds.h out of memory, in process: a
 * two-seed run directory of two mechanisms (made once here with `cowsim
 * run --seeds 2`) is loaded (cs_seeds_load, cs_seeds_load_list) and
 * tabled (cs_seeds_table) with the first allocation of ours at each call
 * site failing in turn (tests/cs_allocwrap.h; every allocation took 6 CPU
 * s).  Each failure must come back as CS_ENOMEM with "out of memory" in
 * the message, an empty set and nothing of ours left, or be absorbed with
 * the result unchanged (Gini's sorted copy when no actor fired: NaN
 * either way); the calls in which nothing fails must give the directory's
 * seeds 11 and 12, the scenario's mechanism order (eip1559 before fifo, as
 * listed) and the same table as before (issue 29: coverage of analysis/).
 */
#define CS__SET_BITS 14
#include "cs_allocwrap.h"

#include "cs_cli.h"
#include "cs_metrics.h"
#include "cs_seeds.h"
#include "cs_test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256], runs[300];

static int set_ok(const cs_seeds_set_t *s)
{
    return s->ns == 2 && s->seeds[0] == 11 && s->seeds[1] == 12 && s->nm == 2 && strcmp(s->mechs[0], "eip1559") == 0 &&
           strcmp(s->mechs[1], "fifo") == 0 && strcmp(s->scenario, "seeds-oom") == 0 && s->mt != NULL;
}

static const uint64_t seeds[2] = {11, 12};
static const char *const mechs[2] = {"eip1559", "fifo"};
static char table0[1 << 14], table1[1 << 14]; /* static: the test's own reads allocate nothing of ours */
static size_t table0_n;

/* The file at path into buf (cap bytes, NUL-terminated); its length. */
static size_t read_into(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    return n;
}

/* One operation under test, with allocation k failing (0: none): 1 when
 * its outcome is right -- on a failure CS_ENOMEM, "out of memory" and an
 * empty set, or (a failure absorbed) the result of no failure; without one
 * the expected set or table -- and nothing of ours is left. */
static int op(int which, uint64_t k, int *failed)
{
    char err[600] = "", tab[320];
    cs_seeds_set_t s;
    memset(&s, 0, sizeof s);
    int rc, good;
    cs_aw_reset(k);
    if (which < 2) {
        rc = which == 0 ? cs_seeds_load(runs, &s, err, sizeof err)
                        : cs_seeds_load_list(runs, seeds, 2, mechs, 2, &s, err, sizeof err);
        *failed = cs_aw_failed();
        good = rc == CS_OK ? set_ok(&s)
                           : rc == CS_ENOMEM && *failed && strstr(err, "out of memory") && !s.seeds && !s.mechs && !s.mt;
        if (rc == CS_OK) cs_seeds_free(&s);
    } else {
        snprintf(tab, sizeof tab, "%s/table.txt", dir);
        FILE *f = fopen(tab, "w"); /* libc's allocation: not ours */
        rc = f ? cs_seeds_table("seeds-oom", 12, runs, seeds, 2, mechs, 2, f, err, sizeof err) : -1;
        *failed = cs_aw_failed();
        if (f) fclose(f);
        if (k == 0) {
            table0_n = read_into(tab, table0, sizeof table0); /* the table without failures */
            good = rc == CS_OK && strstr(table0, "eip1559") && strstr(table0, "fifo") && err[0] == '\0';
        } else {
            size_t n = read_into(tab, table1, sizeof table1);
            good = rc == CS_OK ? n == table0_n && memcmp(table1, table0, n) == 0
                               : rc == CS_ENOMEM && *failed && strstr(err, "out of memory");
        }
    }
    size_t live = cs_aw_live();
    if (!good || live)
        fprintf(stderr, "op %d: allocation %llu failing (caller +0x%lx): rc %d, '%s', %zu left\n", which,
                (unsigned long long)k, (unsigned long)cs_aw_fail_caller(), rc, err, live);
    return good && live == 0;
}

/* Run op once without failures, recording its allocations' callers, then
 * once failing the first allocation made at each call site (in-process
 * per-site mode: each site's failure path, at a fraction of the cost).
 * Returns the failures injected. */
static long per_site(int which)
{
    static uint32_t rec[1u << 15];
    int failed = 0;
    cs_aw_reset(0);
    cs_aw_record(rec, sizeof rec / sizeof rec[0]);
    int ok = op(which, 0, &failed);
    cs_aw_record(NULL, 0);
    uint64_t n = cs_aw_count() < sizeof rec / sizeof rec[0] ? cs_aw_count() : sizeof rec / sizeof rec[0];
    CS_CHECK(ok && !failed && n > 0);
    long fails = 0;
    for (uint64_t k = 1; k <= n; k++) {
        int first = 1;
        for (uint64_t j = 1; j < k && first; j++) first = rec[j - 1] != rec[k - 1];
        if (!first) continue;
        CS_CHECK(op(which, k, &failed));
        fails += failed;
    }
    cs_aw_reset(0);
    return fails;
}

int main(void)
{
    setenv("COWSIM_H5_SANDBOX", "0", 1); /* read in this process */
    cs_aw_hook_cjson();
    snprintf(dir, sizeof dir, "%s/cs_seeds_oom_%d", cs_test_tmpdir(), (int)getpid());
    mkdir(dir, 0755);
    char scn[320];
    snprintf(scn, sizeof scn, "%s/s.json", dir);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    const char *text = "{\"name\": \"seeds-oom\", \"seed\": 11, \"blocks\": 12, \"mechanism\": [\"eip1559\", \"fifo\"],\n"
                       " \"agents\": [{\"kind\": \"heartbeat\", \"count\": 2}]}\n";
    CS_CHECK(cs_test_spit(scn, (const unsigned char *)text, strlen(text)) == 0);
    char *argv[] = {"cowsim", "run", scn, "-o", runs, "--seeds", "2", "--quiet", NULL};
    int rc = cs_test_cli_quiet(8, argv);
    CS_CHECK_EQ_U64(rc, 0);

    static const char *const what[3] = {"cs_seeds_load", "cs_seeds_load_list", "cs_seeds_table"};
    for (int w = 0; w < 3; w++) {
        long f = per_site(w);
        printf("seeds_oom: %s: the first allocation at each of %ld call sites failed\n", what[w], f);
        CS_CHECK(f >= 10);
    }
    return cs_test_finish("seeds_oom", dir);
}
