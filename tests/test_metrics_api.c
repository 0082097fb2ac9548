/*
 * test_metrics_api.c -- analysis/cs_metrics.h's lookups on a metrics
 * record filled here (no run file): the flat index over run-level and
 * present kinds' metrics, names and values, unknown names and NULL
 * arguments; cs_metrics_find_greedy's search beside a run file; and
 * cs__json_wellformed against cJSON on the escapes, surrogate pairs and
 * whitespace of RFC 8259 (issue 29: coverage of analysis/).
 */
#include "cs_metrics.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_h5.h"
#include "cs_stats.h"
#include "cs_test.h"

static void test_flat_index(void)
{
    static cs_metrics_t m;
    memset(&m, 0, sizeof m);
    for (int i = 0; i < CS_M__COUNT; i++) m.v[i] = 100 + i;
    /* Two kinds present: heartbeat (4) and watcher (11), in kind order. */
    m.kind_present[CS_AGENT_KIND_HEARTBEAT] = m.kind_present[CS_AGENT_KIND_WATCHER] = 1;
    for (int j = 0; j < CS_KM__COUNT; j++) {
        m.k[CS_AGENT_KIND_HEARTBEAT][j] = 200 + j;
        m.k[CS_AGENT_KIND_WATCHER][j] = 300 + j;
    }
    size_t n = CS_M__COUNT + 2 * CS_KM__COUNT;
    CS_CHECK_EQ_U64(cs_metrics_n(&m), n);
    CS_CHECK_EQ_U64(cs_metrics_n(NULL), CS_M__COUNT);
    char buf[64];
    CS_CHECK_STR(cs_metrics_name(&m, CS_M_welfare, buf, sizeof buf), "welfare");
    CS_CHECK(cs_metrics_value(&m, CS_M_welfare) == 100 + CS_M_welfare);
    /* The first kind metric: fires.heartbeat; the last: svc_per_paid.watcher. */
    CS_CHECK_STR(cs_metrics_name(&m, CS_M__COUNT, buf, sizeof buf), "fires.heartbeat");
    CS_CHECK(cs_metrics_value(&m, CS_M__COUNT) == 200);
    CS_CHECK_STR(cs_metrics_name(&m, n - 1, buf, sizeof buf), "svc_per_paid.watcher");
    CS_CHECK(cs_metrics_value(&m, n - 1) == 300 + CS_KM__COUNT - 1);
    /* Past the end: "" and NaN; no record: the same. */
    CS_CHECK_STR(cs_metrics_name(&m, n, buf, sizeof buf), "");
    CS_CHECK(isnan(cs_metrics_value(&m, n)));
    CS_CHECK_STR(cs_metrics_name(NULL, 0, buf, sizeof buf), "");
    CS_CHECK(isnan(cs_metrics_value(NULL, 0)));
    CS_CHECK(cs_metrics_name(&m, 0, NULL, 8) == NULL);
    buf[0] = 'x';
    CS_CHECK(cs_metrics_name(&m, 0, buf, 0) == buf && buf[0] == 'x'); /* cap 0: untouched */

    /* By name: a kind metric of a present kind, of an absent kind (NaN),
     * unknown names, a metric name that is a prefix of another. */
    double v = 0;
    CS_CHECK(cs_metrics_get(&m, "paid.watcher", &v) == 0 && v == 300 + CS_KM_paid);
    CS_CHECK(cs_metrics_get(&m, "paid.oracle", &v) == 0 && isnan(v));
    CS_CHECK(cs_metrics_get(&m, "jain", NULL) == 0);
    CS_CHECK(cs_metrics_get(&m, "paid.nobody", &v) == -1);
    CS_CHECK(cs_metrics_get(&m, "pai.watcher", &v) == -1);
    CS_CHECK(cs_metrics_get(&m, "paidx.watcher", &v) == -1);
    CS_CHECK(cs_metrics_get(&m, "nothing", &v) == -1);
    CS_CHECK(cs_metrics_get(&m, NULL, &v) == -1);
    CS_CHECK(cs_metrics_get(NULL, "jain", &v) == -1);
    CS_CHECK(cs_metrics_doc("nothing") == NULL && cs_metrics_doc(NULL) == NULL);
    CS_CHECK_STR(cs_metrics_doc("delay_max.oracle"), "delay maximum");
    CS_CHECK_STR(cs_metrics_doc("gini"), "Gini coefficient over per-actor fires");

    /* compute: NULL arguments are refused with a message. */
    char err[128];
    CS_CHECK_EQ_U64(cs_metrics_compute(NULL, NULL, &m, err, sizeof err), CS_EINVAL);
    CS_CHECK_STR(err, "cs_metrics_compute: NULL argument");
    CS_CHECK_EQ_U64(cs_metrics_compute("x.h5", NULL, NULL, NULL, 0), CS_EINVAL);
    /* A missing file and one that is not HDF5: named, with the reason. */
    static cs_metrics_t m2;
    CS_CHECK_EQ_U64(cs_metrics_compute("/nonexistent-cs-dir/x.h5", NULL, &m2, err, sizeof err), CS_EIO);
    CS_CHECK_STR(err, "cannot open '/nonexistent-cs-dir/x.h5': No such file or directory");
    char p[300], want[400];
    snprintf(p, sizeof p, "%s/cs_metrics_api_%d.h5", cs_test_tmpdir(), (int)getpid());
    CS_CHECK(cs_test_spit(p, (const unsigned char *)"not hdf5\n", 9) == 0);
    CS_CHECK_EQ_U64(cs_metrics_compute(p, NULL, &m2, err, sizeof err), CS_EPARSE);
    snprintf(want, sizeof want, "'%s' is not a readable HDF5 file", p);
    CS_CHECK_STR(err, want);
    unlink(p);
}

static void test_find_greedy(void)
{
    char dir[256], run[300], g[300], buf[400], small[8];
    snprintf(dir, sizeof dir, "%s/cs_metrics_api_%d", cs_test_tmpdir(), (int)getpid());
    mkdir(dir, 0755);
    snprintf(run, sizeof run, "%s/fifo.h5", dir);
    CS_CHECK(cs_metrics_find_greedy(run, buf, sizeof buf) == NULL); /* neither file */
    /* Only the older name, oracle.h5: found. */
    snprintf(g, sizeof g, "%s/oracle.h5", dir);
    CS_CHECK(cs_test_spit(g, (const unsigned char *)"x", 1) == 0);
    CS_CHECK_STR(cs_metrics_find_greedy(run, buf, sizeof buf), g);
    /* Both: greedy.h5 first. */
    snprintf(g, sizeof g, "%s/greedy.h5", dir);
    CS_CHECK(cs_test_spit(g, (const unsigned char *)"x", 1) == 0);
    CS_CHECK_STR(cs_metrics_find_greedy(run, buf, sizeof buf), g);
    /* A buffer too small for the path: NULL, not a cut name. */
    CS_CHECK(cs_metrics_find_greedy(run, small, sizeof small) == NULL);
    CS_CHECK(cs_metrics_find_greedy(NULL, buf, sizeof buf) == NULL);
    CS_CHECK(cs_metrics_find_greedy(run, buf, 0) == NULL);
    /* A run named without a directory: the current one. */
    char cwd[400];
    CS_CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CS_CHECK(chdir(dir) == 0);
    const char *r = cs_metrics_find_greedy("fifo.h5", buf, sizeof buf);
    CS_CHECK(chdir(cwd) == 0);
    CS_CHECK_STR(r, "greedy.h5");
    unlink(g);
    snprintf(g, sizeof g, "%s/oracle.h5", dir);
    unlink(g);
    rmdir(dir);
}

/* cs__json_wellformed must never call well-formed what cJSON rejects (its
 * contract: compare, check and report then take a NULL parse for out of
 * memory), and agrees with cJSON on these texts -- except "\u12G4", which
 * RFC 8259 does not allow (four hex digits) and cJSON 1.7.15 takes. */
static void test_wellformed(void)
{
    static const char *const texts[] = {
        "[\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"]", /* every short escape */
        "[\"\\u00e9\\u00C9\\uABcd\"]",       /* hex digits of both cases */
        "[\"\\uD83D\\uDE00\"]",              /* a surrogate pair */
        "[\"\\uD83D\"]",                     /* a lone high surrogate */
        "[\"\\uDE00\"]",                     /* a lone low surrogate */
        "[\"\\uD83D\\u0041\"]",              /* high surrogate, then not a low one */
        "[\"\\uD83Dx\\uDE00\"]",             /* high surrogate not followed by \u */
        "[\"\\uD83D\\uDG00\"]",              /* the low half not hex */
        "[\"\\u12G4\"]",                     /* not hex */
        "[\"\\x\"]",                         /* no such escape */
        "\t\r\n [1]\r\n",                    /* whitespace of every kind */
        "[1,\t2]",
        "[\"\\uE000\\uDBFF\\uDFFF\"]",             /* above the surrogates; the largest pair */
        "[\"\\uD83D\\uE000\"]",                      /* high surrogate, then above the low ones */
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        cJSON *j = cJSON_Parse(texts[i]);
        int ok = j != NULL, got = cs__json_wellformed(texts[i]);
        int want = strcmp(texts[i], "[\"\\u12G4\"]") == 0 ? 0 : ok;
        cJSON_Delete(j);
        if (got == want && (!got || ok)) cs_test_pass++;
        else {
            fprintf(stderr, "cs__json_wellformed(%s) = %d, cJSON says %d\n", texts[i], got, want);
            cs_test_failed(__FILE__, __LINE__, "wellformed", NULL);
        }
    }
    CS_CHECK(cs__json_wellformed(NULL) == 0);
    /* Not four hex digits (RFC 8259): refused whatever cJSON does. */
    CS_CHECK(cs__json_wellformed("[\"\\u00.0\"]") == 0);
    CS_CHECK(cs__json_wellformed("[\"\\u00@0\"]") == 0);
}

/* The statistics' degenerate inputs: NaN, never a read. */
static void test_stat_args(void)
{
    double x[3] = {1, 2, 3}, lo = 0, hi = 0;
    CS_CHECK(isnan(cs_stat_jain(NULL, 3)) && isnan(cs_stat_jain(x, 0)));
    CS_CHECK(isnan(cs_stat_gini(NULL, 3)) && isnan(cs_stat_gini(x, 0)));
    CS_CHECK(isnan(cs_stat_quantile(NULL, 3, 0.5)) && isnan(cs_stat_quantile(x, 0, 0.5)));
    CS_CHECK(cs_stat_quantile(x, 3, 0.5) == 2);
    /* (1 + 2 + 3)^2 / (3 (1 + 4 + 9)) = 36 / 42 */
    CS_CHECK(fabs(cs_stat_jain(x, 3) - 36.0 / 42.0) < 1e-15);
    CS_CHECK_EQ_U64(cs_stat_bootstrap_mean(x, 3, 100, 1.5, 1, &lo, &hi), CS_OK);
    CS_CHECK(isnan(lo) && isnan(hi));
    CS_CHECK_EQ_U64(cs_stat_bootstrap_mean(x, 3, 0, 0.9, 1, &lo, &hi), CS_OK);
    CS_CHECK(isnan(lo) && isnan(hi));
    CS_CHECK_EQ_U64(cs_stat_bootstrap_mean(NULL, 3, 100, 0.9, 1, NULL, NULL), CS_OK);
    /* Three equal values: every resample mean is that value. */
    double e[3] = {4, 4, 4};
    CS_CHECK_EQ_U64(cs_stat_bootstrap_mean(e, 3, 50, 0.9, 1, &lo, &hi), CS_OK);
    CS_CHECK(lo == 4 && hi == 4);
    /* BCa (cs_stats.h): 10 equal values give that value, also with no
     * place for the bounds; B = 0 or a level of 1 gives NaN. */
    double t10[10];
    for (int i = 0; i < 10; i++) t10[i] = 2.5;
    CS_CHECK_EQ_U64(cs_stat_bca_mean(t10, 10, 100, 0.95, 1, NULL, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_stat_bca_mean(t10, 10, 100, 0.95, 1, &lo, &hi), CS_OK);
    CS_CHECK(lo == 2.5 && hi == 2.5);
    CS_CHECK_EQ_U64(cs_stat_bca_mean(t10, 10, 0, 0.95, 1, &lo, &hi), CS_OK);
    CS_CHECK(isnan(lo) && isnan(hi));
    CS_CHECK_EQ_U64(cs_stat_bca_mean(t10, 10, 100, 1.0, 1, &lo, &hi), CS_OK);
    CS_CHECK(isnan(lo) && isnan(hi));
    /* No values: n 0 and NaN throughout. */
    cs_stat_ci_t ci;
    CS_CHECK_EQ_U64(cs_stat_ci(t10, 0, 0.95, 1, &ci), CS_OK);
    CS_CHECK(ci.n == 0 && isnan(ci.mean) && isnan(ci.t_lo) && isnan(ci.b_hi));
    CS_CHECK_EQ_U64(cs_stat_paired(t10, t10, 0, 0.95, 1, &ci), CS_OK);
    CS_CHECK(ci.n == 0 && isnan(ci.mean));
}

int main(void)
{
    setenv("COWSIM_H5_SANDBOX", "0", 1); /* files read in this process */
    test_flat_index();
    test_find_greedy();
    test_wellformed();
    test_stat_args();
    return cs_test_done("metrics_api");
}
