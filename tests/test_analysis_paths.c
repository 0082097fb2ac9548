/*
 * test_analysis_paths.c -- the refusals and out-of-memory paths of the
 * multi-seed and harm analysis (analysis/cs_seeds.c, analysis/cs_harm.c),
 * in process and without a run file:
 *
 *  1. cs_seeds_load: a directory that does not open (CS_EIO, the path and
 *     strerror), one without seed-<s> directories and one whose first seed
 *     directory holds no <mechanism>.h5 (a .noattack.h5 is not one) give
 *     CS_EPARSE naming the path; cs_seeds_is_dir tells them apart; every
 *     allocation of a scan of 20 seed directories (the seed array grows
 *     past its first 16) failing in turn gives CS_ENOMEM, "out of memory"
 *     and nothing left allocated.
 *  2. cs_harm_pair_path, cs_harm_load and cs_harm_write with paths too long
 *     for their buffers (CS_EIO, "path too long"), and cs_harm_write into a
 *     directory that does not exist (CS_EIO naming the path, no file).
 *  3. cs_harm_summarize: a mechanism and seed given twice is refused
 *     (CS_EPARSE); three rows of two mechanisms give the per-mechanism
 *     means computed by hand below; each allocation failing in turn gives
 *     CS_ENOMEM with nothing returned and nothing left allocated.
 */
#define CS__SET_BITS 12
#include "cs_allocwrap.h"

#include "cs_error.h"
#include "cs_harm.h"
#include "cs_seeds.h"
#include "cs_test.h"

#include <hdf5.h>
#include <math.h>
#include <sys/stat.h>

static char g_dir[256];

static int has(const char *s, const char *sub)
{
    return s && strstr(s, sub) != NULL;
}

static void test_seeds(void)
{
    char err[512], p[400];
    cs_seeds_set_t s;
    snprintf(p, sizeof p, "%s/none", g_dir);
    CS_CHECK_EQ_U64(cs_seeds_load(p, &s, err, sizeof err), CS_EIO);
    CS_CHECK(has(err, p) && has(err, "No such file"));
    CS_CHECK_EQ_U64(cs_seeds_is_dir(p), 0);

    snprintf(p, sizeof p, "%s/empty", g_dir);
    CS_CHECK(mkdir(p, 0700) == 0);
    CS_CHECK_EQ_U64(cs_seeds_load(p, &s, err, sizeof err), CS_EPARSE);
    CS_CHECK(has(err, p) && has(err, "no seed-<s> directories"));
    CS_CHECK_EQ_U64(cs_seeds_is_dir(p), 0);

    /* seed-100 .. seed-119, each empty but for seed-100/x.noattack.h5 and
     * seed-100/h5 (neither is a run file of a mechanism). */
    snprintf(p, sizeof p, "%s/many", g_dir);
    CS_CHECK(mkdir(p, 0700) == 0);
    for (int i = 0; i < 20; i++) {
        char d[480];
        snprintf(d, sizeof d, "%s/seed-%d", p, 119 - i);
        CS_CHECK(mkdir(d, 0700) == 0);
    }
    char f[520];
    snprintf(f, sizeof f, "%s/seed-100/x.noattack.h5", p);
    CS_CHECK(cs_test_spit(f, (const unsigned char *)"x", 1) == 0);
    snprintf(f, sizeof f, "%s/seed-100/h5", p);
    CS_CHECK(cs_test_spit(f, (const unsigned char *)"x", 1) == 0);
    CS_CHECK_EQ_U64(cs_seeds_is_dir(p), 1);
    char want[520];
    snprintf(want, sizeof want, "%s/seed-100: no run files (<mechanism>.h5)", p);
    int fails = 0, rc = CS_OK;
    for (uint64_t k = 1; k < 40; k++) {
        cs_aw_reset(k);
        err[0] = '\0';
        rc = cs_seeds_load(p, &s, err, sizeof err);
        if (!cs_aw_failed()) break;
        fails++;
        CS_CHECK_EQ_U64(rc, CS_ENOMEM);
        CS_CHECK_STR(err, "out of memory");
        CS_CHECK(s.seeds == NULL && s.ns == 0 && s.mechs == NULL && s.nm == 0);
        CS_CHECK_EQ_U64(cs_aw_live(), 0);
    }
    cs_aw_reset(0);
    CS_CHECK(fails >= 2); /* the first array and its growth */
    CS_CHECK_EQ_U64(rc, CS_EPARSE);
    CS_CHECK_STR(err, want);
    CS_CHECK_EQ_U64(cs_aw_live(), 0);
}

static void test_harm_paths(void)
{
    static char err[8192]; /* the message holds the whole long path */
    char buf[64];
    CS_CHECK_STR(cs_harm_pair_path("runs/bias-vcg.h5", buf, sizeof buf), "runs/bias-vcg.noattack.h5");
    CS_CHECK_STR(cs_harm_pair_path("h5", buf, sizeof buf), "h5.noattack.h5");
    /* "runs/x.h5" -> "runs/x.noattack.h5": 18 characters need 19 bytes. */
    CS_CHECK(cs_harm_pair_path("runs/x.h5", buf, 18) == NULL);
    CS_CHECK_STR(cs_harm_pair_path("runs/x.h5", buf, 19), "runs/x.noattack.h5");

    static char longp[4300];
    memset(longp, 'a', sizeof longp - 4);
    memcpy(longp + sizeof longp - 4, ".h5", 4);
    char *paths[] = {longp};
    cs_harm_t *h = (cs_harm_t *)&buf; /* must be replaced by NULL */
    CS_CHECK_EQ_U64(cs_harm_load(paths, 1, &h, err, sizeof err), CS_EIO);
    CS_CHECK(h == NULL && has(err, "path too long"));
    CS_CHECK_EQ_U64(cs_aw_live(), 0);

    cs_harm_t row;
    memset(&row, 0, sizeof row);
    snprintf(row.mechanism, sizeof row.mechanism, "fifo");
    CS_CHECK_EQ_U64(cs_harm_write(longp, &row, 1, NULL, 0, err, sizeof err), CS_EIO);
    CS_CHECK(has(err, "path too long"));
    char p[400];
    snprintf(p, sizeof p, "%s/none/harm.h5", g_dir);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* libhdf5's own report of the failed create */
    CS__LSAN_DISABLE();
    int rc = cs_harm_write(p, &row, 1, NULL, 0, err, sizeof err);
    CS__LSAN_ENABLE();
    CS_CHECK_EQ_U64(rc, CS_EIO);
    char want[480];
    snprintf(want, sizeof want, "cannot write %s", p);
    CS_CHECK_STR(err, want);
    CS_CHECK(access(p, F_OK) != 0);
}

/* Rows: (a, seed 1), (b, seed 1), (a, seed 2); delay_mean with / without:
 * a: 2.5 / 1.0 and 4.0 / 1.5, b: 7.0 / 7.0. */
static void rows(cs_harm_t *h)
{
    memset(h, 0, 3 * sizeof *h);
    static const char *mech[3] = {"a", "b", "a"};
    static const uint64_t seed[3] = {1, 1, 2};
    static const double w[3] = {2.5, 7.0, 4.0}, wo[3] = {1.0, 7.0, 1.5};
    for (int i = 0; i < 3; i++) {
        snprintf(h[i].mechanism, sizeof h[i].mechanism, "%s", mech[i]);
        h[i].seed = seed[i];
        h[i].delay_mean[0] = w[i];
        h[i].delay_mean[1] = wo[i];
    }
}

static void test_harm_summary(void)
{
    cs_harm_t h[3];
    cs_harm_sum_t *s = NULL;
    size_t ns = 99;
    char err[256];
    rows(h);
    h[2].seed = 1; /* a, seed 1 twice */
    CS_CHECK_EQ_U64(cs_harm_summarize(h, 3, &s, &ns, err, sizeof err), CS_EPARSE);
    CS_CHECK_STR(err, "mechanism a seed 1 is given twice (the summary is across seeds)");
    CS_CHECK(s == NULL && ns == 0);
    CS_CHECK_EQ_U64(cs_aw_live(), 0);

    rows(h);
    int fails = 0, rc = CS_OK;
    for (uint64_t k = 1; k < 200; k++) {
        cs_aw_reset(k);
        s = NULL;
        ns = 99;
        rc = cs_harm_summarize(h, 3, &s, &ns, err, sizeof err);
        if (!cs_aw_failed()) break;
        fails++;
        CS_CHECK_EQ_U64(rc, CS_ENOMEM);
        CS_CHECK(s == NULL && ns == 0);
        CS_CHECK_STR(err, "out of memory");
        CS_CHECK_EQ_U64(cs_aw_live(), 0);
    }
    cs_aw_reset(0);
    CS_CHECK(fails >= 4); /* the four arrays, then the intervals' */
    CS_CHECK_EQ_U64(rc, CS_OK);
    CS_CHECK_EQ_U64(ns, 2);
    if (rc != CS_OK || ns != 2) return;
    CS_CHECK_STR(s[0].mechanism, "a");
    CS_CHECK_STR(s[1].mechanism, "b");
    CS_CHECK_EQ_U64(s[0].seeds, 2);
    CS_CHECK_EQ_U64(s[1].seeds, 1);
    /* a: with (2.5 + 4.0) / 2 = 3.25, without 1.25, change (1.5 + 2.5) / 2
     * = 2; t interval of the change: s = sqrt(0.5), t_{1,0.975} =
     * 12.706205, half = 12.706205 * sqrt(0.5) / sqrt(2) = 6.3531. */
    const cs_stat_ci_t *ci = s[0].ci[CS_HARM_DELAY_MEAN];
    CS_CHECK(ci[CS_HARM_WITH].n == 2 && ci[CS_HARM_WITH].mean == 3.25);
    CS_CHECK(ci[CS_HARM_WITHOUT].mean == 1.25);
    CS_CHECK(ci[CS_HARM_CHANGE].mean == 2.0);
    CS_CHECK(fabs(ci[CS_HARM_CHANGE].t_hi - (2.0 + 6.3531025)) < 1e-6);
    /* b: one seed: its mean, no interval. */
    ci = s[1].ci[CS_HARM_DELAY_MEAN];
    CS_CHECK(ci[CS_HARM_WITH].mean == 7.0 && ci[CS_HARM_CHANGE].mean == 0.0 && isnan(ci[CS_HARM_CHANGE].t_lo));
    free(s);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "%s/cs-analysis-paths-XXXXXX", cs_test_tmpdir());
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_seeds();
    test_harm_paths();
    test_harm_summary();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
    return cs_test_done("analysis_paths");
}
