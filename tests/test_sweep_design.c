/*
 * test_sweep_design.c -- sweep files and design points (analysis/cs_sweep.h):
 * Sobol points against GSL's gsl_qrng_sobol and against its published
 * first points, scaling and integer rounding, grid order (last path
 * fastest), seeds, default mechanisms, /runs column names, string values,
 * and every validation error path with its JSON path.  End-to-end runs,
 * --resume, -j and sweep.h5 are in tests/test_sweep.sh.
 */
#include "cs_sweep.h"

#include <gsl/gsl_qrng.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cs_test.h"

/* An inline base scenario (fast to load: nothing runs here). */
#define BASE                                                                                    \
    "{\"name\": \"t\", \"seed\": 77, \"blocks\": 50, \"mechanism\": [\"fifo\", \"eip1559\"], " \
    "\"agents\": [{\"kind\": \"heartbeat\", \"count\": 2}, {\"kind\": \"default_gba\", \"count\": 1}]}"

static cs_sweep_t *parse(const char *text, cs_errlist_t *e, int *rc)
{
    cs_sweep_t *sw = NULL;
    *rc = cs_sweep_parse(text, strlen(text), NULL, &sw, e);
    return sw;
}

/* 1 if some message of e contains needle. */
static int has_msg(const cs_errlist_t *e, const char *needle)
{
    for (size_t i = 0; i < e->n; i++)
        if (strstr(e->msg[i], needle)) return 1;
    fprintf(stderr, "  missing message containing: %s\n", needle);
    for (size_t i = 0; i < e->n; i++) fprintf(stderr, "    have: %s\n", e->msg[i]);
    return 0;
}

static int close_to(double a, double b) { return fabs(a - b) <= 1e-12 * (fabs(b) > 1 ? fabs(b) : 1); }

/* Sobol: the first 8 points of dimension 2 scaled to the ranges. */
static void test_sobol(void)
{
    const char *t = "{\"name\": \"s\", \"base\": " BASE ", \"seeds\": [5], \"sobol\": {\"n\": 8, \"ranges\": "
                    "{\"params.lane_fee_multiplier\": [0.6, 1.4], \"params.max_fires_per_block\": [2, 9]}, "
                    "\"integer\": [\"params.max_fires_per_block\"]}}";
    cs_errlist_t e = {0};
    int rc;
    cs_sweep_t *sw = parse(t, &e, &rc);
    CS_CHECK_EQ_U64(rc, CS_OK);
    CS_CHECK_EQ_U64(e.n, 0);
    if (!sw) return;
    CS_CHECK_EQ_U64(cs_sweep_design_of(sw), CS_SWEEP_SOBOL);
    CS_CHECK_EQ_U64(cs_sweep_n_points(sw), 8);
    CS_CHECK_EQ_U64(cs_sweep_n_runs(sw), 8);
    CS_CHECK_EQ_U64(cs_sweep_n_params(sw), 2);
    /* The first points of the 2-D Sobol sequence as GSL generates them (the
     * all-zero point is skipped): (1/2, 1/2), (3/4, 1/4), (1/4, 3/4),
     * (3/8, 3/8), (7/8, 7/8), (5/8, 1/8), (1/8, 5/8), (3/16, 5/16). */
    static const double u[8][2] = {{0.5, 0.5},     {0.75, 0.25},   {0.25, 0.75},  {0.375, 0.375},
                                   {0.875, 0.875}, {0.625, 0.125}, {0.125, 0.625}, {0.1875, 0.3125}};
    /* Path 0 continuous on [0.6, 1.4]: 0.6 + 0.8 u -> 1.0, 1.2, 0.8, 0.9, 1.3, 1.1, 0.7, 0.75.
     * Path 1 integer on [2, 9]: floor(2 + 8 u) -> 6, 4, 8, 5, 9, 3, 7, 4. */
    static const double x0[8] = {1.0, 1.2, 0.8, 0.9, 1.3, 1.1, 0.7, 0.75};
    static const double x1[8] = {6, 4, 8, 5, 9, 3, 7, 4};
    gsl_qrng *q = gsl_qrng_alloc(gsl_qrng_sobol, 2);
    for (size_t p = 0; p < 8; p++) {
        double g[2];
        gsl_qrng_get(q, g);
        /* GSL itself still produces the published sequence. */
        CS_CHECK(g[0] == u[p][0] && g[1] == u[p][1]);
        CS_CHECK(close_to(cs_sweep_point_value(sw, p, 0), x0[p]));
        CS_CHECK(close_to(cs_sweep_point_value(sw, p, 0), 0.6 + 0.8 * g[0]));
        CS_CHECK(cs_sweep_point_value(sw, p, 1) == x1[p]);
        CS_CHECK(cs_sweep_point_value(sw, p, 1) == floor(2 + 8 * g[1]));
    }
    gsl_qrng_free(q);
    /* Integer values are passed to the scenario as integers: "6", not "6.0". */
    char buf[64];
    CS_CHECK_STR(cs_sweep_point_text(sw, 0, 1, buf, sizeof buf), "6");
    /* lo + u (hi - lo) in doubles: 1.4 - 0.6 = 0.7999999999999999, times 0.75
     * = 0.6 after rounding, plus 0.6 = 1.2 exactly as printed shortest. */
    CS_CHECK_STR(cs_sweep_point_text(sw, 1, 0, buf, sizeof buf), "1.2");
    CS_CHECK_STR(cs_sweep_param_column(sw, 0), "params_lane_fee_multiplier");
    CS_CHECK(cs_sweep_param_numeric(sw, 1));
    /* The scenario of point 3 carries its values; the seed is the sweep's. */
    cs_scenario_t *scn = NULL;
    cs_errlist_t le = {0};
    CS_CHECK_EQ_U64(cs_sweep_point_scenario(sw, 3, 5, &scn, &le), CS_OK);
    if (scn) {
        CS_CHECK_EQ_U64(scn->params.max_fires_per_block, 5);
        CS_CHECK_EQ_U64(scn->params.lane_fee_multiplier, 900000); /* 0.9 * CS_PPM */
        CS_CHECK_EQ_U64(scn->seed, 5);
        CS_CHECK_EQ_U64(scn->blocks, 50);
    }
    cs_scenario_free(scn);
    cs_errlist_free(&le);
    CS_CHECK_EQ_U64(cs_sweep_check(sw, &le), CS_OK);
    cs_errlist_free(&le);
    /* Mechanisms default to the base's list. */
    CS_CHECK_EQ_U64(cs_sweep_n_mechs(sw), 2);
    CS_CHECK_STR(cs_sweep_mech(sw, 0), "fifo");
    CS_CHECK_STR(cs_sweep_mech(sw, 1), "eip1559");
    cs_sweep_free(sw);
    cs_errlist_free(&e);

    /* An integer range [0, 1]: floor(2u) gives 0 for u < 1/2 and 1 from
     * u = 1/2 on; points 1/2, 3/4, 1/4, 3/8, 7/8 -> 1, 1, 0, 0, 1.  Dimension 1
     * of the sequence: 0.5, 0.75, 0.25, 0.375, 0.875. */
    const char *t3 = "{\"name\": \"s3\", \"base\": " BASE ", \"sobol\": {\"n\": 5, \"ranges\": "
                     "{\"params.max_fires_per_block\": [0, 1]}, \"integer\": [\"params.max_fires_per_block\"]}}";
    sw = parse(t3, &e, &rc);
    CS_CHECK_EQ_U64(rc, CS_OK);
    if (sw) {
        static const double want[5] = {1, 1, 0, 0, 1};
        for (size_t p = 0; p < 5; p++) CS_CHECK(cs_sweep_point_value(sw, p, 0) == want[p]);
        /* No "seeds": the base's seed (77), one seed. */
        CS_CHECK_EQ_U64(cs_sweep_n_seeds(sw), 1);
        CS_CHECK_EQ_U64(cs_sweep_seed(sw, 0), 77);
    }
    cs_sweep_free(sw);
    cs_errlist_free(&e);
}

/* Grid: cartesian product, last path fastest, seeds, columns. */
static void test_grid(void)
{
    const char *t = "{\"name\": \"g\", \"base\": " BASE ", \"mechanisms\": [\"eip1559\"], "
                    "\"seeds\": {\"count\": 3, \"start\": 7}, \"grid\": {"
                    "\"params.lambda\": [0.01, 0.2], \"agents[1].params.rate\": [0.5, 1.5, 2.5], "
                    "\"params.basefee_rule\": [\"cip1\", \"additive\"], \"blocks\": [30, 60]}}";
    cs_errlist_t e = {0};
    int rc;
    cs_sweep_t *sw = parse(t, &e, &rc);
    CS_CHECK_EQ_U64(rc, CS_OK);
    CS_CHECK_EQ_U64(e.n, 0);
    for (size_t i = 0; i < e.n; i++) fprintf(stderr, "%s\n", e.msg[i]);
    if (!sw) return;
    /* 2 x 3 x 2 x 2 = 24 points, x 3 seeds = 72 runs. */
    CS_CHECK_EQ_U64(cs_sweep_n_points(sw), 24);
    CS_CHECK_EQ_U64(cs_sweep_n_seeds(sw), 3);
    CS_CHECK_EQ_U64(cs_sweep_n_runs(sw), 72);
    CS_CHECK_EQ_U64(cs_sweep_seed(sw, 0), 7);
    CS_CHECK_EQ_U64(cs_sweep_seed(sw, 2), 9);
    CS_CHECK_EQ_U64(cs_sweep_n_mechs(sw), 1);
    CS_CHECK_STR(cs_sweep_mech(sw, 0), "eip1559");
    /* Point p = ((i0 * 3 + i1) * 2 + i2) * 2 + i3.  Point 17 = ((1*3+1)*2+0)*2+1:
     * lambda 0.2, rate 1.5, rule cip1, blocks 60. */
    CS_CHECK(cs_sweep_point_value(sw, 17, 0) == 0.2);
    CS_CHECK(cs_sweep_point_value(sw, 17, 1) == 1.5);
    CS_CHECK(isnan(cs_sweep_point_value(sw, 17, 2)));
    CS_CHECK(cs_sweep_point_value(sw, 17, 3) == 60);
    /* Point 6 = ((0*3+1)*2+1)*2+0: lambda 0.01, rate 1.5, additive, 30. */
    char buf[64];
    CS_CHECK(cs_sweep_point_value(sw, 6, 0) == 0.01);
    CS_CHECK(cs_sweep_point_value(sw, 6, 1) == 1.5);
    CS_CHECK_STR(cs_sweep_point_text(sw, 6, 2, buf, sizeof buf), "\"additive\"");
    CS_CHECK(cs_sweep_point_value(sw, 6, 3) == 30);
    CS_CHECK_STR(cs_sweep_point_text(sw, 23, 1, buf, sizeof buf), "2.5");
    /* Columns: dots and brackets to '_', collapsed; "blocks" is a metric
     * column, so the parameter becomes "param_blocks". */
    CS_CHECK_STR(cs_sweep_param_column(sw, 0), "params_lambda");
    CS_CHECK_STR(cs_sweep_param_column(sw, 1), "agents_1_params_rate");
    CS_CHECK_STR(cs_sweep_param_column(sw, 2), "params_basefee_rule");
    CS_CHECK_STR(cs_sweep_param_column(sw, 3), "param_blocks");
    CS_CHECK(cs_sweep_param_numeric(sw, 0));
    CS_CHECK(!cs_sweep_param_numeric(sw, 2));
    /* Point 17's scenario carries its values and the run's seed. */
    cs_scenario_t *scn = NULL;
    cs_errlist_t le = {0};
    CS_CHECK_EQ_U64(cs_sweep_point_scenario(sw, 17, 8, &scn, &le), CS_OK);
    if (scn) {
        CS_CHECK_EQ_U64(scn->params.lambda, 200000000); /* 0.2 * CS_PPB */
        CS_CHECK_EQ_U64(scn->params.basefee_rule, 0);   /* cip1 */
        CS_CHECK_EQ_U64(scn->blocks, 60);
        const cs_agent_ops_t *ops = scn->agents[1].ops;
        size_t ri = ops->n_params;
        for (size_t i = 0; i < ops->n_params; i++)
            if (strcmp(ops->params[i].name, "rate") == 0) ri = i;
        CS_CHECK(ri < ops->n_params && scn->agents[1].params[ri] == 1.5);
        CS_CHECK_EQ_U64(scn->seed, 8);
    }
    cs_scenario_free(scn);
    char id[32];
    CS_CHECK_STR(cs_sweep_run_id(sw, 7, id, sizeof id), "r0007");
    CS_CHECK_STR(cs_sweep_run_id(sw, 12345, id, sizeof id), "r12345");
    cs_errlist_free(&le);
    cs_sweep_free(sw);
    cs_errlist_free(&e);
}

/* Every error path, each with its JSON path; all reported at once. */
static void test_errors(void)
{
    cs_errlist_t e = {0};
    int rc;
    cs_sweep_t *sw;

    sw = parse("{\"name\": \"x\", \"base\": " BASE ", \"grid\": {\"params.lambda\": [0.1]}", &e, &rc);
    CS_CHECK(sw == NULL && rc == CS_EPARSE && has_msg(&e, "$: malformed JSON"));
    cs_errlist_free(&e);

    sw = parse("[1]", &e, &rc);
    CS_CHECK(sw == NULL && rc == CS_EPARSE && has_msg(&e, "$: a sweep file is a JSON object"));
    cs_errlist_free(&e);

    /* Many problems in one file: all of them come back. */
    sw = parse("{\"base\": " BASE ", \"colour\": 1, \"mechanisms\": [\"eip1559\", \"nope\", \"eip1559\"], "
               "\"seeds\": [1, -2, 1.5, 1], \"set\": {\"blocks\": 40, \"seed\": 3, \"bad path\": 1}, "
               "\"grid\": {\"params.lambda\": [], \"seed\": [1], \"mechanism\": [\"fifo\"], \"blocks\": [10], "
               "\"params.reserve_price\": [1, 1], \"params.nothing\": [3], \"agents[0].params.rate\": [1, -1]}}",
               &e, &rc);
    CS_CHECK(sw == NULL && rc == CS_EINVAL);
    CS_CHECK(has_msg(&e, "name: required"));
    CS_CHECK(has_msg(&e, "colour: unknown key"));
    CS_CHECK(has_msg(&e, "mechanisms[1]: unknown mechanism 'nope' (valid: "));
    CS_CHECK(has_msg(&e, "mechanisms[2]: 'eip1559' listed twice"));
    CS_CHECK(has_msg(&e, "seeds[1]: must be an integer"));
    CS_CHECK(has_msg(&e, "seeds[2]: must be an integer"));
    CS_CHECK(has_msg(&e, "seeds[3]: duplicate of seeds[0] (1)"));
    CS_CHECK(has_msg(&e, "set.seed: give the seeds in \"seeds\""));
    CS_CHECK(has_msg(&e, "set.bad path: not a scenario path"));
    CS_CHECK(has_msg(&e, "grid.params.lambda: must be a non-empty list of values"));
    CS_CHECK(has_msg(&e, "grid.seed: vary the seed with \"seeds\""));
    CS_CHECK(has_msg(&e, "grid.mechanism: every run runs all mechanisms"));
    CS_CHECK(has_msg(&e, "grid.blocks: also fixed in set.blocks"));
    CS_CHECK(has_msg(&e, "grid.params.reserve_price[1]: duplicate of grid.params.reserve_price[0]"));
    cs_errlist_free(&e);

    /* Issue 25: an escaped NUL (a base "tiny.json\u0000.evil" would load
     * tiny.json) and seeds of 2^53 or more (2^53 + 1 reads as 2^53). */
    sw = parse("{\"name\": \"x\", \"base\": \"tiny.json\\u0000.evil\", \"grid\": {\"params.lambda\": [0.1]}}", &e,
               &rc);
    CS_CHECK(sw == NULL && rc == CS_EPARSE && has_msg(&e, "$: escaped NUL (\\u0000) in a string at line 1, column 33"));
    cs_errlist_free(&e);
    sw = parse("{\"name\": \"x\", \"base\": " BASE ", \"seeds\": [9007199254740993, 9007199254740991], "
               "\"grid\": {\"params.lambda\": [0.1]}}",
               &e, &rc);
    CS_CHECK(sw == NULL && rc == CS_EINVAL && has_msg(&e, "seeds[0]: must be an integer in [0, 2^53 - 1]") &&
             !has_msg(&e, "seeds[1]"));
    cs_errlist_free(&e);
    sw = parse("{\"name\": \"x\", \"base\": " BASE ", \"seeds\": {\"count\": 1, \"start\": 9007199254740992}, "
               "\"grid\": {\"params.lambda\": [0.1]}}",
               &e, &rc);
    CS_CHECK(sw == NULL && rc == CS_EINVAL && has_msg(&e, "seeds.start: must be an integer in [0, 2^53 - 1]"));
    cs_errlist_free(&e);

    /* Values checked one at a time against the base, at their JSON path. */
    sw = parse("{\"name\": \"v\", \"base\": " BASE ", \"set\": {\"params.w_max\": 3}, \"grid\": {"
               "\"params.nothing\": [3, 4], \"agents[1].params.rate\": [1, -1], \"params.basefee_rule\": [\"zzz\"]}}",
               &e, &rc);
    CS_CHECK(sw == NULL && rc == CS_EINVAL);
    CS_CHECK(has_msg(&e, "grid.params.nothing[0] (3): --set params.nothing: unknown parameter 'nothing'"));
    CS_CHECK(has_msg(&e, "grid.agents[1].params.rate[1] (-1): agents[1].params.rate: must be in"));
    CS_CHECK(has_msg(&e, "grid.params.basefee_rule[0] (\"zzz\"): params.basefee_rule: must be one of"));
    /* The unknown path is reported once, not once per value. */
    size_t n_nothing = 0;
    for (size_t i = 0; i < e.n; i++) n_nothing += strstr(e.msg[i], "unknown parameter 'nothing'") != NULL;
    CS_CHECK_EQ_U64(n_nothing, 1);
    cs_errlist_free(&e);

    /* The base itself, with the fixed overrides. */
    sw = parse("{\"name\": \"b\", \"base\": " BASE ", \"set\": {\"params.lane_timer_cycles\": 0}}", &e, &rc);
    CS_CHECK(sw == NULL && rc == CS_EINVAL && has_msg(&e, "base: params.lane_timer_cycles: must be in"));
    cs_errlist_free(&e);
    sw = parse("{\"name\": \"b\", \"base\": \"/nonexistent/x.json\"}", &e, &rc);
    CS_CHECK(sw == NULL && has_msg(&e, "base: cannot read /nonexistent/x.json"));
    cs_errlist_free(&e);
    sw = parse("{\"name\": \"b\", \"base\": 5}", &e, &rc);
    CS_CHECK(sw == NULL && has_msg(&e, "base: must be a scenario file path (string) or an inline scenario object"));
    cs_errlist_free(&e);
    sw = parse("{\"name\": \"a/b\", \"base\": " BASE "}", &e, &rc);
    CS_CHECK(sw == NULL && has_msg(&e, "name: must be a non-empty string"));
    cs_errlist_free(&e);

    /* Sobol errors. */
    sw = parse("{\"name\": \"s\", \"base\": " BASE ", \"sobol\": {\"n\": 0, \"k\": 1, \"ranges\": {"
               "\"params.lambda\": [1, 0.5], \"params.w_max\": [1, 2, 3], \"params.max_fires_per_block\": [0.5, 4]}, "
               "\"integer\": [\"x\", \"params.max_fires_per_block\"]}}",
               &e, &rc);
    CS_CHECK(sw == NULL && rc == CS_EINVAL);
    CS_CHECK(has_msg(&e, "sobol.n: must be an integer in [1, "));
    CS_CHECK(has_msg(&e, "sobol.k: unknown key"));
    CS_CHECK(has_msg(&e, "sobol.ranges.params.lambda: lo must be < hi, got [1, 0.5]"));
    CS_CHECK(has_msg(&e, "sobol.ranges.params.w_max: must be [lo, hi], two finite numbers"));
    CS_CHECK(has_msg(&e, "sobol.integer[0]: x is not a path of sobol.ranges"));
    CS_CHECK(has_msg(&e, "sobol.ranges.params.max_fires_per_block: an integer path needs integer bounds"));
    cs_errlist_free(&e);
    sw = parse("{\"name\": \"s\", \"base\": " BASE ", \"sobol\": {\"n\": 2, \"ranges\": {\"params.lambda\": [0, 20]}}}",
               &e, &rc);
    CS_CHECK(sw == NULL && has_msg(&e, "sobol.ranges.params.lambda (hi = 20): params.lambda: must be in [0, 10]"));
    cs_errlist_free(&e);
    sw = parse("{\"name\": \"s\", \"base\": " BASE ", \"grid\": {\"blocks\": [5]}, \"sobol\": {\"n\": 2}}", &e, &rc);
    CS_CHECK(sw == NULL && has_msg(&e, "$: give either grid or sobol, not both"));
    cs_errlist_free(&e);
    sw = parse("{\"name\": \"s\", \"base\": " BASE ", \"seeds\": {\"count\": 0, \"first\": 2}}", &e, &rc);
    CS_CHECK(sw == NULL && has_msg(&e, "seeds.count: must be an integer") && has_msg(&e, "seeds.first: unknown key"));
    cs_errlist_free(&e);

    /* Each value alone is fine but a combination is not (w_min 1.5 > w_max
     * 1.2 only at point 0 = (w_min 1.5, w_max 1.2)): cs_sweep_check names
     * the point. */
    sw = parse("{\"name\": \"c\", \"base\": " BASE ", \"grid\": {\"params.w_min\": [1.5], \"params.w_max\": [1.2, 3]}}",
               &e, &rc);
    CS_CHECK_EQ_U64(rc, CS_OK);
    if (sw) {
        CS_CHECK_EQ_U64(cs_sweep_check(sw, &e), CS_EINVAL);
        CS_CHECK(has_msg(&e, "point 0 (params.w_min=1.5, params.w_max=1.2): params: w_min (1.5) must be <= w_max (1.2)"));
        CS_CHECK_EQ_U64(e.n, 1); /* point 1 (w_max 3) is fine */
    }
    cs_sweep_free(sw);
    cs_errlist_free(&e);
}

int main(void)
{
    test_sobol();
    test_grid();
    test_errors();
    return cs_test_done("sweep_design");
}
