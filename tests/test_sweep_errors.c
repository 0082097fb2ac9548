/*
 * test_sweep_errors.c -- the sweep file's remaining validation messages
 * (analysis/cs_sweep.c, scenarios/sweep.schema.json), each checked word
 * for word with its JSON path; the accessors' out-of-range answers; and
 * every allocation of cs_sweep_parse (a grid sweep with a base file and a
 * Sobol sweep) made to fail in turn, in process (tests/cs_allocwrap.h):
 * each failure must come back as CS_ENOMEM with no sweep and nothing of
 * ours left allocated.  tests/test_sweep_design.c has the designs' values
 * and the messages it already checks (issue 29: coverage of analysis/).
 */
#define CS__SET_BITS 14 /* a few hundred live allocations at most */
#include "cs_allocwrap.h"

#include "cs_mech.h"
#include "cs_sweep.h"
#include "cs_sweep_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_test.h"

/* An inline base scenario (nothing runs here). */
#define BASE                                                                                   \
    "{\"name\": \"t\", \"seed\": 77, \"blocks\": 50, \"mechanism\": [\"fifo\", \"eip1559\"], " \
    "\"agents\": [{\"kind\": \"heartbeat\", \"count\": 2}]}"

static char dir[256];

/* Parse text; expect rc and, when msg is not NULL, a first message equal
 * to msg (all messages shown on a mismatch).  Frees what it gets. */
static void expect(const char *text, size_t len, int rc_want, const char *msg, int line)
{
    cs_errlist_t e = {0};
    cs_sweep_t *sw = NULL;
    int rc = cs_sweep_parse(text, len, dir, &sw, &e);
    int ok = rc == rc_want && (rc == CS_OK) == (sw != NULL) && (!msg || (e.n >= 1 && strcmp(e.msg[0], msg) == 0));
    if (ok) cs_test_pass++;
    else {
        fprintf(stderr, "line %d: rc %d (want %d), %zu messages, want: %s\n", line, rc, rc_want, e.n,
                msg ? msg : "(any)");
        for (size_t i = 0; i < e.n; i++) fprintf(stderr, "    have: %s\n", e.msg[i]);
        cs_test_failed(__FILE__, line, "sweep message", NULL);
    }
    cs_sweep_free(sw);
    cs_errlist_free(&e);
}
#define EXPECT(text, rc, msg) expect(text, strlen(text), rc, msg, __LINE__)

/* "{\"name\": \"s\", \"base\": BASE, " + rest: a sweep with the inline base. */
static char *with_base(const char *rest)
{
    const char *head = "{\"name\": \"s\", \"base\": " BASE ", ";
    size_t n = strlen(head) + strlen(rest) + 1;
    char *t = malloc(n);
    if (t) snprintf(t, n, "%s%s", head, rest);
    return t;
}
#define EXPECT_B(rest, rc, msg)                       \
    do {                                              \
        char *t__ = with_base(rest);                  \
        if (t__) expect(t__, strlen(t__), rc, msg, __LINE__); \
        free(t__);                                    \
    } while (0)

/* A grid or sobol.ranges object of n paths params.p0 .. params.p<n-1>,
 * each value `val`: "{\"params.p0\": val, ...}". */
static char *many_paths(int n, const char *val)
{
    size_t cap = (size_t)n * (strlen(val) + 24) + 4, o = 0;
    char *t = malloc(cap);
    if (!t) return NULL;
    o += (size_t)snprintf(t + o, cap - o, "{");
    for (int i = 0; i < n; i++) o += (size_t)snprintf(t + o, cap - o, "%s\"params.p%d\": %s", i ? ", " : "", i, val);
    snprintf(t + o, cap - o, "}");
    return t;
}

static void test_top_level(void)
{
    EXPECT("{\"name\": \"s\", \"base\": " BASE ", \"name\": \"t\"}", CS_EINVAL, "name: given twice");
    EXPECT("{\"name\": \"s\", \"description\": 3, \"base\": " BASE "}", CS_EINVAL, "description: must be a string");
    EXPECT("{\"name\": \"s\"}", CS_EINVAL, "base: required (a scenario file path or an inline scenario object)");
    EXPECT("{\"name\": \"s\", \"base\": \"\"}", CS_EINVAL,
           "base: must be a scenario file path (string) or an inline scenario object");
    /* The malformed JSON's position counts lines from 1, columns from 1:
     * the second line's "1" (where the ':' should be) is column 7. */
    EXPECT("{\"name\": \"s\",\n  \"a\" 1}", CS_EPARSE, "$: malformed JSON at line 2, column 7");
    EXPECT("[1, 2]", CS_EPARSE, "$: a sweep file is a JSON object");
    static const char nul[] = "{\"name\": \"s\"\0}";
    expect(nul, sizeof nul - 1, CS_EPARSE, "$: NUL byte in the sweep file", __LINE__);
    /* One byte over 16 MiB: refused before it is read. */
    size_t big = (16u << 20) + 1;
    char *t = malloc(big);
    CS_CHECK(t != NULL);
    if (t) {
        memset(t, ' ', big);
        expect(t, big, CS_EINVAL, "$: 16777217 bytes exceed the limit of 16777216 bytes", __LINE__);
        free(t);
    }
    /* set */
    EXPECT_B("\"set\": [1]}", CS_EINVAL, "set: must be an object {PATH: VALUE}");
    EXPECT_B("\"set\": {\"params.lambda\": 1, \"params.lambda\": 2}}", CS_EINVAL, "set.params.lambda: duplicate path");
    EXPECT_B("\"set\": {\"params.lambda\": null}}", CS_EINVAL, "set.params.lambda: null is not a value");
    /* mechanisms */
    EXPECT_B("\"mechanisms\": []}", CS_EINVAL, "mechanisms: must be a list of 1 to 16 mechanism names");
    EXPECT_B("\"mechanisms\": [7]}", CS_EINVAL, "mechanisms[0]: must be a mechanism name (string)");
    /* Every registered mechanism's name fits the /runs mechanism column
     * (cs__parse_mechs relies on it). */
    for (size_t i = 0; cs_mech_registry[i]; i++) CS_CHECK(strlen(cs_mech_registry[i]->name) < CS__SW_MECH_W);
}

static void test_seeds(void)
{
    EXPECT_B("\"seeds\": []}", CS_EINVAL, "seeds: must list 1 to 1000000 seeds");
    EXPECT_B("\"seeds\": \"x\"}", CS_EINVAL, "seeds: must be a list of integers or {\"count\": N, \"start\": S}");
    EXPECT_B("\"seeds\": {\"start\": 4}}", CS_EINVAL, "seeds.count: required");
    EXPECT_B("\"seeds\": {\"count\": 0}}", CS_EINVAL, "seeds.count: must be an integer in [1, 1000000]");
    EXPECT_B("\"seeds\": {\"count\": 2.5}}", CS_EINVAL, "seeds.count: must be an integer in [1, 1000000]");
    /* {"count": 3, "start": 10}: seeds 10, 11, 12. */
    cs_errlist_t e = {0};
    cs_sweep_t *sw = NULL;
    char *t = with_base("\"seeds\": {\"count\": 3, \"start\": 10}}");
    CS_CHECK(t && cs_sweep_parse(t, strlen(t), NULL, &sw, &e) == CS_OK && sw);
    if (sw) {
        CS_CHECK_EQ_U64(cs_sweep_n_seeds(sw), 3);
        CS_CHECK_EQ_U64(cs_sweep_seed(sw, 0), 10);
        CS_CHECK_EQ_U64(cs_sweep_seed(sw, 2), 12);
        CS_CHECK_EQ_U64(cs_sweep_seed(sw, 3), 0); /* out of range */
    }
    cs_sweep_free(sw);
    free(t);
    cs_errlist_free(&e);
}

static void test_grid(void)
{
    EXPECT_B("\"grid\": [1]}", CS_EINVAL, "grid: must be an object {PATH: [values]}");
    EXPECT_B("\"grid\": {}}", CS_EINVAL, "grid: must name at least one path");
    EXPECT_B("\"grid\": {\"params.lambda\": [0.1], \"params.lambda\": [0.2]}}", CS_EINVAL,
             "grid.params.lambda: duplicate path");
    EXPECT_B("\"grid\": {\"params.a b\": [1]}}", CS_EINVAL,
             "grid.params.a b: not a scenario path (keys joined by '.', [i] after agents or events, at most 256 "
             "bytes)");
    EXPECT_B("\"grid\": {\"params.lambda\": [0.1, null]}}", CS_EINVAL, "grid.params.lambda[1]: null is not a value");
    EXPECT_B("\"grid\": {\"params.lambda\": [1e999]}}", CS_EINVAL, "grid.params.lambda[0]: must be finite");
    /* Two paths whose /runs columns coincide ('.' and '_' both become '_'). */
    EXPECT_B("\"grid\": {\"params.x_y\": [1], \"params.x.y\": [2]}}", CS_EINVAL,
             "grid.params.x.y: /runs column 'params_x_y' is also the column of params.x_y");
    /* 41 paths: one over GSL's Sobol dimension limit, also the grid's. */
    char *g = many_paths(41, "[1]"), *t = NULL;
    if (g && (t = malloc(strlen(g) + 32))) {
        sprintf(t, "\"grid\": %s}", g);
        EXPECT_B(t, CS_EINVAL, "grid: 41 paths, at most 40");
    }
    free(t);
    free(g);
    /* 100,001 values of one path. */
    size_t cap = 100001 * 2 + 64, o = 0;
    char *v = malloc(cap);
    CS_CHECK(v != NULL);
    if (v) {
        o += (size_t)snprintf(v, cap, "\"grid\": {\"params.lambda\": [");
        for (int i = 0; i < 100001; i++) o += (size_t)snprintf(v + o, cap - o, "%s0", i ? "," : "");
        snprintf(v + o, cap - o, "]}}");
        EXPECT_B(v, CS_EINVAL, "grid.params.lambda: 100001 values, at most 100000");
        free(v);
    }
    /* Three paths of 101 values: 1,030,301 points, over 10^6 runs. */
    char v1[101 * 8], v2[101 * 8], big[3 * sizeof v1 + 200];
    size_t o1 = 0, o2 = 0;
    for (int i = 0; i < 101; i++) {
        o1 += (size_t)snprintf(v1 + o1, sizeof v1 - o1, "%s%d", i ? "," : "[", i + 1);
        o2 += (size_t)snprintf(v2 + o2, sizeof v2 - o2, "%s0.%03d", i ? "," : "[", i + 1);
    }
    snprintf(v1 + o1, sizeof v1 - o1, "]");
    snprintf(v2 + o2, sizeof v2 - o2, "]");
    snprintf(big, sizeof big,
             "\"grid\": {\"params.max_fires_per_block\": %s, \"params.lambda\": %s, \"params.fairness_window\": %s}}",
             v1, v2, v1);
    EXPECT_B(big, CS_EINVAL, "$: the design has more than 1000000 runs (points x seeds)");
    /* Booleans are the values 1 and 0 (agents[0].value_aware, a boolean). */
    cs_errlist_t e = {0};
    cs_sweep_t *sw = NULL;
    char *b = with_base("\"grid\": {\"agents[0].value_aware\": [true, false]}}");
    CS_CHECK(b && cs_sweep_parse(b, strlen(b), NULL, &sw, &e) == CS_OK && sw);
    for (size_t i = 0; i < e.n; i++) fprintf(stderr, "  %s\n", e.msg[i]);
    if (sw) {
        CS_CHECK(cs_sweep_point_value(sw, 0, 0) == 1.0 && cs_sweep_point_value(sw, 1, 0) == 0.0);
        CS_CHECK_EQ_U64(cs_sweep_param_numeric(sw, 0), 1);
    }
    cs_sweep_free(sw);
    cs_errlist_free(&e);
    free(b);
}

static void test_sobol(void)
{
    EXPECT_B("\"sobol\": 3}", CS_EINVAL, "sobol: must be an object {\"n\", \"ranges\", \"integer\"}");
    EXPECT_B("\"sobol\": {\"n\": 4}}", CS_EINVAL, "sobol.ranges: required");
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {}}}", CS_EINVAL,
             "sobol.ranges: must be a non-empty object {PATH: [lo, hi]}");
    EXPECT_B("\"sobol\": {\"n\": 1000001, \"ranges\": {\"params.lambda\": [0.1, 0.2]}}}", CS_EINVAL,
             "sobol.n: must be an integer in [1, 1000000]");
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.lambda\": [0.1, 0.2], \"params.lambda\": [0.1, 0.3]}}}",
             CS_EINVAL, "sobol.ranges.params.lambda: duplicate path");
    char *g = many_paths(41, "[0, 1]"), *t = NULL;
    if (g && (t = malloc(strlen(g) + 64))) {
        sprintf(t, "\"sobol\": {\"n\": 4, \"ranges\": %s}}", g);
        EXPECT_B(t, CS_EINVAL, "sobol.ranges: 41 paths, at most 40 (gsl_qrng_sobol's largest dimension)");
    }
    free(t);
    free(g);
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.lambda\": [0.1, 0.2]}, \"integer\": \"params.lambda\"}}",
             CS_EINVAL, "sobol.integer: must be a list of paths named in sobol.ranges");
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.lambda\": [0.1, 0.2]}, \"integer\": [5]}}", CS_EINVAL,
             "sobol.integer[0]: must be a path (string)");
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.lambda\": [0.1, 0.2]}, \"integer\": [\"params.mu\"]}}",
             CS_EINVAL, "sobol.integer[0]: params.mu is not a path of sobol.ranges");
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.max_fires_per_block\": [2, 9]}, \"integer\": "
             "[\"params.max_fires_per_block\", \"params.max_fires_per_block\"]}}",
             CS_EINVAL, "sobol.integer[1]: params.max_fires_per_block listed twice");
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.max_fires_per_block\": [2, 9.5]}, \"integer\": "
             "[\"params.max_fires_per_block\"]}}",
             CS_EINVAL, "sobol.ranges.params.max_fires_per_block: an integer path needs integer bounds, got [2, 9.5]");
}

/* Files: a base path resolved against the sweep file's directory, a base
 * with a NUL byte, a missing base, a sweep file over 16 MiB, a sweep file
 * named without a directory. */
/* More of each rule's sides: every clause of the seeds, sobol, grid and
 * name conditions once. */
static void test_more(void)
{
    static const char nm[] = "name: must be a non-empty string of at most 128 bytes without '/'";
    EXPECT("{\"name\": 5, \"base\": " BASE "}", CS_EINVAL, nm);
    EXPECT("{\"name\": \"\", \"base\": " BASE "}", CS_EINVAL, nm);
    EXPECT("{\"name\": \"a/b\", \"base\": " BASE "}", CS_EINVAL, nm);
    char longname[400];
    snprintf(longname, sizeof longname, "{\"name\": \"%0129d\", \"base\": " BASE "}", 0);
    EXPECT(longname, CS_EINVAL, nm);
    static const char sd[] = "seeds[1]: must be an integer in [0, 2^53 - 1] (a JSON number of 2^53 or more loses "
                             "its last digits)";
    EXPECT_B("\"seeds\": [1, 1.5]}", CS_EINVAL, sd);
    EXPECT_B("\"seeds\": [1, -1]}", CS_EINVAL, sd);
    EXPECT_B("\"seeds\": [1, \"x\"]}", CS_EINVAL, sd);
    EXPECT_B("\"seeds\": [1, 9007199254740992]}", CS_EINVAL, sd);
    EXPECT_B("\"seeds\": [4, 5, 4]}", CS_EINVAL, "seeds[2]: duplicate of seeds[0] (4)");
    EXPECT_B("\"seeds\": {\"count\": 1000001}}", CS_EINVAL, "seeds.count: must be an integer in [1, 1000000]");
    EXPECT_B("\"seeds\": {\"count\": \"2\"}}", CS_EINVAL, "seeds.count: must be an integer in [1, 1000000]");
    static const char ss[] = "seeds.start: must be an integer in [0, 2^53 - 1] (a JSON number of 2^53 or more loses "
                             "its last digits)";
    EXPECT_B("\"seeds\": {\"count\": 2, \"start\": -1}}", CS_EINVAL, ss);
    EXPECT_B("\"seeds\": {\"count\": 2, \"start\": 0.5}}", CS_EINVAL, ss);
    EXPECT_B("\"seeds\": {\"count\": 2, \"start\": true}}", CS_EINVAL, ss);
    EXPECT_B("\"seeds\": {\"count\": 2, \"start\": 9007199254740992}}", CS_EINVAL, ss);
    /* 17 mechanisms: one more than a scenario may name. */
    EXPECT_B("\"mechanisms\": [\"fifo\", \"fifo\", \"fifo\", \"fifo\", \"fifo\", \"fifo\", \"fifo\", \"fifo\", "
             "\"fifo\", \"fifo\", \"fifo\", \"fifo\", \"fifo\", \"fifo\", \"fifo\", \"fifo\", \"fifo\"]}",
             CS_EINVAL, "mechanisms: must be a list of 1 to 16 mechanism names");
    EXPECT_B("\"mechanisms\": \"fifo\"}", CS_EINVAL, "mechanisms: must be a list of 1 to 16 mechanism names");
    EXPECT_B("\"grid\": {\"params.lambda\": []}}", CS_EINVAL, "grid.params.lambda: must be a non-empty list of values");
    EXPECT_B("\"grid\": {\"params.lambda\": 0.1}}", CS_EINVAL, "grid.params.lambda: must be a non-empty list of values");
    static const char sn[] = "sobol.n: must be an integer in [1, 1000000]";
    EXPECT_B("\"sobol\": {\"n\": 2.5, \"ranges\": {\"params.lambda\": [0.1, 0.2]}}}", CS_EINVAL, sn);
    EXPECT_B("\"sobol\": {\"n\": 0, \"ranges\": {\"params.lambda\": [0.1, 0.2]}}}", CS_EINVAL, sn);
    EXPECT_B("\"sobol\": {\"n\": \"4\", \"ranges\": {\"params.lambda\": [0.1, 0.2]}}}", CS_EINVAL, sn);
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": [1]}}", CS_EINVAL,
             "sobol.ranges: must be a non-empty object {PATH: [lo, hi]}");
    static const char sr[] = "sobol.ranges.params.lambda: must be [lo, hi], two finite numbers";
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.lambda\": 0.1}}}", CS_EINVAL, sr);
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.lambda\": [0.1]}}}", CS_EINVAL, sr);
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.lambda\": [\"a\", 0.2]}}}", CS_EINVAL, sr);
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.lambda\": [0.1, \"b\"]}}}", CS_EINVAL, sr);
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.lambda\": [-1e999, 0.2]}}}", CS_EINVAL, sr);
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.lambda\": [0.1, 1e999]}}}", CS_EINVAL, sr);
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.max_fires_per_block\": [2.5, 9]}, \"integer\": "
             "[\"params.max_fires_per_block\"]}}",
             CS_EINVAL, "sobol.ranges.params.max_fires_per_block: an integer path needs integer bounds, got [2.5, 9]");
    EXPECT_B("\"sobol\": {\"n\": 4, \"ranges\": {\"params.max_fires_per_block\": [2, 9007199254740992]}, "
             "\"integer\": [\"params.max_fires_per_block\"]}}",
             CS_EINVAL,
             "sobol.ranges.params.max_fires_per_block: an integer path needs integer bounds, got [2, 9.0072e+15]");
    /* Paths: empty, over 256 bytes. */
    EXPECT_B("\"grid\": {\"\": [1]}}", CS_EINVAL,
             "grid.: not a scenario path (keys joined by '.', [i] after agents or events, at most 256 bytes)");
    char lp[400], lt[600];
    memset(lp, 'a', 257);
    lp[257] = '\0';
    snprintf(lt, sizeof lt, "\"grid\": {\"%s\": [1]}}", lp);
    char lm[600];
    snprintf(lm, sizeof lm, "grid.%s: not a scenario path (keys joined by '.', [i] after agents or events, at most 256 bytes)", lp);
    EXPECT_B(lt, CS_EINVAL, lm);
    /* Each swept value loads alone, but a design point's combination does
     * not: cs_sweep_check names the point and its values. */
    cs_errlist_t e = {0};
    cs_sweep_t *sw = NULL;
    char *t = with_base("\"grid\": {\"params.lambda_max\": [0.05], \"params.lambda\": [0.2]}}");
    CS_CHECK(t && cs_sweep_parse(t, strlen(t), NULL, &sw, &e) == CS_OK && sw);
    free(t);
    cs_errlist_free(&e);
    if (sw) {
        char buf[64];
        CS_CHECK(cs_sweep_point_text(sw, 0, 0, NULL, 64) == NULL);
        CS_CHECK_STR(cs_sweep_point_text(sw, 0, 0, buf, sizeof buf), "0.05");
        CS_CHECK_EQ_U64(cs_sweep_check(sw, &e), CS_EINVAL);
        CS_CHECK(e.n == 1);
        if (e.n == 1)
            CS_CHECK_STR(e.msg[0], "point 0 (params.lambda_max=0.05, params.lambda=0.2): params: lambda (0.2) must be in "
                                   "[lambda_min, lambda_max] = [0.001, 0.05]");
        cs_errlist_free(&e);
        cs_sweep_free(sw);
    }
    /* An empty "set" fixes nothing. */
    EXPECT_B("\"set\": {}, \"grid\": {\"params.lambda\": [0.1]}}", CS_OK, NULL);
}

static void test_files(void)
{
    char p[400], q[400];
    snprintf(p, sizeof p, "%s/nul.json", dir);
    static const unsigned char nulbase[] = "{\"name\": \"x\"\0}";
    CS_CHECK(cs_test_spit(p, nulbase, sizeof nulbase - 1) == 0);
    snprintf(q, sizeof q, "base: %s/nul.json contains a NUL byte", dir);
    EXPECT("{\"name\": \"s\", \"base\": \"nul.json\"}", CS_EINVAL, q);
    snprintf(q, sizeof q, "base: cannot read %s/none.json: No such file or directory", dir);
    EXPECT("{\"name\": \"s\", \"base\": \"none.json\"}", CS_EINVAL, q);

    /* cs_sweep_load: a sweep file over 16 MiB. */
    snprintf(p, sizeof p, "%s/big.json", dir);
    FILE *f = fopen(p, "w");
    CS_CHECK(f != NULL);
    if (f) {
        CS_CHECK(ftruncate(fileno(f), (16 << 20) + 1) == 0);
        fclose(f);
    }
    cs_errlist_t e = {0};
    cs_sweep_t *sw = NULL;
    CS_CHECK_EQ_U64(cs_sweep_load(p, &sw, &e), CS_EINVAL);
    CS_CHECK(sw == NULL && e.n == 1);
    if (e.n == 1) CS_CHECK_STR(e.msg[0], "$: larger than 16777216 bytes");
    cs_errlist_free(&e);
    unlink(p);

    /* A sweep file named without a directory: its base is read from ".". */
    char cwd[400];
    CS_CHECK(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(p, sizeof p, "%s/b.json", dir);
    CS_CHECK(cs_test_spit(p, (const unsigned char *)BASE, strlen(BASE)) == 0);
    snprintf(p, sizeof p, "%s/s.json", dir);
    const char *s = "{\"name\": \"rel\", \"base\": \"b.json\", \"grid\": {\"params.lambda\": [0.25, 0.5]}}";
    CS_CHECK(cs_test_spit(p, (const unsigned char *)s, strlen(s)) == 0);
    CS_CHECK(chdir(dir) == 0);
    e = (cs_errlist_t){0};
    int rc = cs_sweep_load("s.json", &sw, &e);
    CS_CHECK(chdir(cwd) == 0);
    CS_CHECK_EQ_U64(rc, CS_OK);
    for (size_t i = 0; i < e.n; i++) fprintf(stderr, "  %s\n", e.msg[i]);
    cs_errlist_free(&e);
    if (sw) {
        char buf[64];
        CS_CHECK_STR(cs_sweep_name(sw), "rel");
        CS_CHECK_STR(cs_sweep_text(sw), s);
        CS_CHECK_STR(cs_sweep_base_text(sw), BASE);
        CS_CHECK_EQ_U64(cs_sweep_n_points(sw), 2);
        CS_CHECK_STR(cs_sweep_param_path(sw, 0), "params.lambda");
        /* Out of range: NULL, NaN, 0. */
        CS_CHECK(cs_sweep_param_path(sw, 1) == NULL);
        CS_CHECK(cs_sweep_param_column(sw, 1) == NULL);
        CS_CHECK_EQ_U64(cs_sweep_param_numeric(sw, 1), 0);
        CS_CHECK(cs_sweep_mech(sw, 2) == NULL);
        CS_CHECK(isnan(cs_sweep_point_value(sw, 2, 0)) && isnan(cs_sweep_point_value(sw, 0, 1)));
        CS_CHECK(cs_sweep_point_value(sw, 1, 0) == 0.5);
        CS_CHECK(cs_sweep_point_text(sw, 2, 0, buf, sizeof buf) == NULL);
        CS_CHECK(cs_sweep_point_text(sw, 0, 0, buf, 39) == NULL);
        cs_scenario_t *scn = NULL;
        e = (cs_errlist_t){0};
        CS_CHECK_EQ_U64(cs_sweep_point_scenario(sw, 2, 1, &scn, &e), CS_EINVAL);
        cs_errlist_free(&e);
        cs_sweep_free(sw);
    }
}

/* Every allocation of cs_sweep_parse failing in turn: CS_ENOMEM, no sweep,
 * nothing left; the run without a failure gives the design (points x
 * params), or for an invalid sweep (points 0) CS_EINVAL -- which a failure
 * may also give, but never CS_OK: an error whose message could not be
 * allocated is still an error (it once passed as a valid sweep:
 * cs_errlist_t.lost). */
static void oom_case(const char *text, size_t points, size_t params)
{
    long fails = 0;
    int rc = -1;
    cs_sweep_t *sw = NULL;
    for (uint64_t k = 1; k < 100000; k++) {
        cs_errlist_t e = {0};
        cs_aw_reset(k);
        rc = cs_sweep_parse(text, strlen(text), dir, &sw, &e);
        int failed = cs_aw_failed();
        if (failed) {
            fails++;
            if (sw != NULL || (rc != CS_ENOMEM && !(points == 0 && rc == CS_EINVAL))) {
                fprintf(stderr, "allocation %llu failing (caller +0x%lx): rc %d, %zu messages%s%s\n",
                        (unsigned long long)k, (unsigned long)cs_aw_fail_caller(), rc, e.n, e.n ? ": " : "",
                        e.n ? e.msg[0] : "");
                cs_test_failed(__FILE__, __LINE__, "CS_ENOMEM and no sweep", NULL);
            } else {
                cs_test_pass++;
            }
        }
        cs_sweep_free(sw);
        cs_errlist_free(&e);
        sw = NULL;
        if (failed) {
            size_t live = cs_aw_live();
            if (live) {
                char d[300];
                cs_aw_describe_live(d, sizeof d);
                fprintf(stderr, "allocation %llu failing: %zu left: %s\n", (unsigned long long)k, live, d);
            }
            CS_CHECK_EQ_U64(live, 0);
            continue;
        }
        /* No failure: the parse completed; run it once more to check it. */
        cs_aw_reset(0);
        rc = cs_sweep_parse(text, strlen(text), dir, &sw, &e);
        CS_CHECK_EQ_U64(rc, points ? CS_OK : CS_EINVAL);
        if (sw) {
            CS_CHECK_EQ_U64(cs_sweep_n_points(sw), points);
            CS_CHECK_EQ_U64(cs_sweep_n_params(sw), params);
        }
        cs_sweep_free(sw);
        cs_errlist_free(&e);
        break;
    }
    printf("sweep_errors: %ld allocations failed in turn\n", fails);
    CS_CHECK(fails >= 8);
}

static void test_oom(void)
{
    char p[400];
    snprintf(p, sizeof p, "%s/base.json", dir);
    CS_CHECK(cs_test_spit(p, (const unsigned char *)BASE, strlen(BASE)) == 0);
    /* A grid over a base file with a fixed override and strings: 2 x 2
     * points. */
    oom_case("{\"name\": \"g\", \"base\": \"base.json\", \"set\": {\"params.lambda\": 0.25, \"blocks\": 30}, \"mechanisms\": [\"fifo\"], \"seeds\": [1, 2], \"grid\": {\"params.max_fires_per_block\": "
             "[2, 3], \"params.basefee_rule\": [\"eip1559\", \"additive\"]}}",
             4, 2);
    /* A Sobol sweep over the inline base: 4 points of 2 paths. */
    oom_case("{\"name\": \"s\", \"base\": " BASE ", \"seeds\": {\"count\": 2}, \"sobol\": {\"n\": 4, \"ranges\": "
             "{\"params.lane_fee_multiplier\": [0.6, 1.4], \"params.max_fires_per_block\": [2, 9]}, \"integer\": "
             "[\"params.max_fires_per_block\"]}}",
             4, 2);
    /* Invalid: one error, a swept value out of its range. */
    oom_case("{\"name\": \"v\", \"base\": \"base.json\", \"grid\": {\"params.lambda\": [0.25, 7]}}", 0, 0);
    cs_aw_reset(0);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/cs_sweep_errors_%d", cs_test_tmpdir(), (int)getpid());
    mkdir(dir, 0755);
    test_top_level();
    test_seeds();
    test_grid();
    test_sobol();
    test_more();
    test_files();
    test_oom();
    return cs_test_finish("sweep_errors", dir);
}
