/*
 * test_check_bless.c -- `cowsim check --bless` in process (analysis/
 * cs_check.c, analysis/README.md "Regression baselines"): the baseline's
 * refusals, each with its exit status 2 and the message naming the JSON
 * path and the rule (a root that is not an object, a duplicate key, a
 * scenario that is not a string, metrics that are not an object, a
 * duplicate metric, a metric that is not an object, a file over 16 MiB),
 * and, on a 30-block run of the engine, the --metrics list (an empty name
 * refused), tolerances that override the stored ones (--abs/--rel alone
 * on every entry, with --metrics on the named one only) and a baseline
 * that cannot be written (exit 3 naming the path).  Messages are read
 * back from this process's stderr, sent to a file around each call.
 */
#include "cs_check.h"
#include "cs_error.h"
#include "cs_exit.h"
#include "cs_test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[256], g_err[300];

/* cs_check_bless (no greedy file, no comment) with stderr going to g_err;
 * what it printed there (NUL-terminated, malloc'd) into *text.  Returns
 * its exit status. */
static int quiet_bless(const char *b, const char *run, double abs_tol, double rel_tol, const char *list,
                       char **text)
{
    fflush(stderr);
    int saved = dup(2), fd = open(g_err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
    int st = cs_check_bless(b, run, NULL, abs_tol, rel_tol, list, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    size_t n;
    *text = (char *)cs_test_slurp(g_err, &n);
    return st;
}

static void put(const char *path, const char *text)
{
    CS_CHECK(cs_test_spit(path, (const unsigned char *)text, strlen(text)) == 0);
}

static void test_refusals(void)
{
    static const struct {
        const char *json, *msg;
    } bad[] = {
        {"[1, 2]", "(root): must be an object"},
        {"{\"scenario\": \"a\", \"scenario\": \"b\"}", "scenario: duplicate key"},
        {"{\"scenario\": 5}", "scenario: must be a string"},
        {"{\"metrics\": 3}", "metrics: must be an object"},
        {"{\"metrics\": {\"fires\": {\"value\": 1}, \"fires\": {\"value\": 2}}}", "metrics.fires: duplicate metric"},
        {"{\"metrics\": {\"fires\": 1}}", "metrics.fires: must be an object {\"value\": V, \"abs\": A, \"rel\": R}"},
    };
    char b[400];
    snprintf(b, sizeof b, "%s/base.json", g_dir);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        put(b, bad[i].json);
        char *t = NULL, want[600];
        snprintf(want, sizeof want, "cowsim check: %s: %s\n", b, bad[i].msg);
        CS_CHECK_EQ_U64(quiet_bless(b, "/nonexistent/run.h5", -1, -1, NULL, &t), CS_EXIT_USAGE);
        CS_CHECK_STR(t, want);
        free(t);
    }
    /* 16 MiB + 1 byte of spaces: refused before it is parsed. */
    size_t n = (16u << 20) + 1;
    unsigned char *big = malloc(n);
    CS_CHECK(big != NULL);
    if (!big) return;
    memset(big, ' ', n);
    CS_CHECK(cs_test_spit(b, big, n) == 0);
    free(big);
    char *t = NULL, want[600];
    snprintf(want, sizeof want, "cowsim check: %s: file too large\n", b);
    CS_CHECK_EQ_U64(quiet_bless(b, "/nonexistent/run.h5", -1, -1, NULL, &t), CS_EXIT_USAGE);
    CS_CHECK_STR(t, want);
    free(t);
    unlink(b);
}

/* 1 if the entry of metric name in baseline file b, whitespace removed,
 * contains want. */
static int tol_of(const char *b, const char *name, const char *want)
{
    size_t n;
    char *t = (char *)cs_test_slurp(b, &n), key[64];
    snprintf(key, sizeof key, "\"%s\":", name);
    const char *p = t ? strstr(t, key) : NULL, *q = p ? strchr(p, '}') : NULL;
    int ok = p && q && (size_t)(q - p) < 300;
    char seg[300] = "";
    if (ok) snprintf(seg, sizeof seg, "%.*s", (int)(q - p), p);
    /* cJSON_Print: "name": {\n\t\t\t"value": V,\n\t\t\t"abs": A, ... -- compare without whitespace. */
    char flat[300];
    size_t k = 0;
    for (const char *s = seg; *s && k + 1 < sizeof flat; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n') flat[k++] = *s;
    flat[k] = '\0';
    ok = ok && strstr(flat, want) != NULL;
    free(t);
    return ok;
}

static void test_bless_run(void)
{
    static const char *scen =
        "{\"name\": \"bless-small\", \"seed\": 29, \"blocks\": 30, \"mechanism\": \"eip1559\","
        " \"agents\": [{\"kind\": \"default_gba\", \"count\": 2, \"params\": {\"rate\": 0.5, \"ttl\": 20}}]}";
    char run[400], b[400], *t = NULL;
    snprintf(run, sizeof run, "%s/run.h5", g_dir);
    snprintf(b, sizeof b, "%s/base.json", g_dir);
    CS_CHECK_EQ_U64(cs_test_run_text(scen, "eip1559", run, NULL), 0);

    CS_CHECK_EQ_U64(quiet_bless(b, run, -1, -1, "fires,,blocks", &t), CS_EXIT_USAGE);
    CS_CHECK_STR(t, "cowsim check: --metrics: bad name ''\n");
    free(t);
    CS_CHECK(access(b, F_OK) != 0);

    /* A new baseline of two metrics at the default tolerance (rel 0.05). */
    CS_CHECK_EQ_U64(quiet_bless(b, run, -1, -1, "fires,blocks", &t), CS_EXIT_OK);
    free(t);
    CS_CHECK(tol_of(b, "fires", "\"rel\":0.05") && tol_of(b, "blocks", "\"rel\":0.05"));
    /* --abs 2 with --metrics blocks: only blocks' tolerances change. */
    CS_CHECK_EQ_U64(quiet_bless(b, run, 2, -1, "blocks", &t), CS_EXIT_OK);
    free(t);
    CS_CHECK(tol_of(b, "blocks", "\"abs\":2"));
    CS_CHECK(tol_of(b, "fires", "\"rel\":0.05"));
    /* --rel 0.25 alone: every stored entry. */
    CS_CHECK_EQ_U64(quiet_bless(b, run, -1, 0.25, NULL, &t), CS_EXIT_OK);
    free(t);
    CS_CHECK(tol_of(b, "blocks", "\"rel\":0.25") && tol_of(b, "fires", "\"rel\":0.25"));
    CS_CHECK(!tol_of(b, "blocks", "\"abs\":"));

    char nb[400], want[600];
    snprintf(nb, sizeof nb, "%s/none/base.json", g_dir);
    snprintf(want, sizeof want, "cowsim check: cannot write %s: No such file or directory\n", nb);
    CS_CHECK_EQ_U64(quiet_bless(nb, run, -1, -1, "fires", &t), CS_EXIT_IO);
    CS_CHECK_STR(t, want);
    free(t);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "%s/cs-check-bless-XXXXXX", cs_test_tmpdir());
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(g_err, sizeof g_err, "%s/stderr.txt", g_dir);
    test_refusals();
    test_bless_run();
    return cs_test_finish("check_bless", g_dir);
}
