/*
 * test_report_util.c -- report's small helpers (analysis/cs_report_util.c,
 * declared in cs_report_int.h) on inputs whose outputs are written out
 * here by hand: file-name sanitising and its cut, gnuplot's quoting, the
 * number formats, every metric's unit and direction against
 * analysis/README.md's table (and an unknown name), and the best-of-row
 * marks with ties, NaN, a reference (greedy) column and no mechanism names
 * (issue 29: coverage of analysis/).
 */
#include "cs_report_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_test.h"

static void test_text(void)
{
    char b[16];
    cs__sanitize(b, sizeof b, "a/b c.d-e_f:GHI9");
    CS_CHECK_STR(b, "a_b_c.d-e_f_GHI"); /* 15 characters and the NUL: the 9 is cut */
    cs__sanitize(b, 4, "xyz!");
    CS_CHECK_STR(b, "xyz");
    cs__sanitize(b, sizeof b, "");
    CS_CHECK_STR(b, "");
    /* gnuplot: ' doubled, line breaks dropped. */
    char *t = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&t, &n);
    CS_CHECK(f != NULL);
    if (f) {
        cs__gp_quote(f, "it's\r\na 'x'");
        fclose(f);
        CS_CHECK_STR(t, "'it''sa ''x'''");
        free(t);
    }
    CS_CHECK(cs__strdup(NULL) == NULL);
    char *d = cs__strdup("abc");
    CS_CHECK_STR(d, "abc");
    free(d);
    char nb[32];
    CS_CHECK_STR(cs__fmt_num(nb, sizeof nb, 1234567.0), "1.23457e+06");
    CS_CHECK_STR(cs__fmt_num(nb, sizeof nb, 999999.0), "999999");
    CS_CHECK_STR(cs__fmt_num(nb, sizeof nb, INFINITY), CS__NUM_NAN);
    CS_CHECK_STR(cs__fmt_num(nb, sizeof nb, NAN), CS__NUM_NAN);
}

static void test_units(void)
{
    /* analysis/README.md: the direction of each metric with one. */
    static const struct {
        const char *name, *unit;
        int better;
    } want[] = {
        {"welfare", "base units", 1},          {"poa", "ratio", -1},         {"jain", "ratio", 1},
        {"delay_p99.oracle", "blocks", -1},    {"fires.heartbeat", "count", 0}, {"gini", "ratio", -1},
        {"svc_per_paid.spammer", "fires/base unit", 0}, {"bias_slack_deficit", "base units/block", -1},
        {"opt_exact", "flag", 0},              {"w_p50", "ratio (W)", 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int better = 7;
        CS_CHECK_STR(cs__metric_unit(want[i].name, &better), want[i].unit);
        CS_CHECK(better == want[i].better);
    }
    int better = 7;
    CS_CHECK_STR(cs__metric_unit("no_such_metric", &better), "");
    CS_CHECK(better == 0);
    CS_CHECK_STR(cs__metric_unit("welfar", &better), ""); /* a prefix is not the name */
    CS_CHECK(better == 0);
}

static void test_best(void)
{
    int mark[4];
    /* Higher is better: 3 and 3 tie, NaN never marked. */
    double v[4] = {1, 3, NAN, 3};
    cs__best(v, NULL, 4, 1, mark);
    CS_CHECK(mark[0] == 0 && mark[1] == 1 && mark[2] == 0 && mark[3] == 1);
    /* Lower is better. */
    cs__best(v, NULL, 4, -1, mark);
    CS_CHECK(mark[0] == 1 && mark[1] == 0 && mark[2] == 0 && mark[3] == 0);
    /* The greedy reference is no contender: its 9 is not the best; fifo's 5
     * is, against eip1559's 4. */
    static const char *const m3[3] = {"greedy", "fifo", "eip1559"};
    double w[3] = {9, 5, 4};
    cs__best(w, m3, 3, 1, mark);
    CS_CHECK(mark[0] == 0 && mark[1] == 1 && mark[2] == 0);
    /* All equal, a single contender, or no direction: nothing marked. */
    double e[3] = {2, 2, 2};
    cs__best(e, NULL, 3, 1, mark);
    CS_CHECK(mark[0] + mark[1] + mark[2] == 0);
    double one[3] = {7, 8, 1};
    cs__best(one, m3, 2, 1, mark); /* greedy and fifo: one contender */
    CS_CHECK(mark[0] + mark[1] == 0);
    cs__best(w, NULL, 3, 0, mark);
    CS_CHECK(mark[0] + mark[1] + mark[2] == 0);
    /* Sorting helpers: ascending. */
    uint32_t u[4] = {3, 1, 4000000000u, 2};
    qsort(u, 4, sizeof u[0], cs__cmp_u32);
    CS_CHECK(u[0] == 1 && u[1] == 2 && u[2] == 3 && u[3] == 4000000000u);
    double x[3] = {2.5, -1, 0};
    qsort(x, 3, sizeof x[0], cs__cmp_double);
    CS_CHECK(x[0] == -1 && x[1] == 0 && x[2] == 2.5);
}

int main(void)
{
    test_text();
    test_units();
    test_best();
    return cs_test_done("report_util");
}
