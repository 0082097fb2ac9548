/*
 * test_scenario.c -- scenario JSON loading and validation (sim/cs_scenario_*.c,
 * DESIGN §5 "Scenario JSON").
 *
 * Checks: a scenario using every section loads with exact values (FP
 * scaling, u128 parsing, defaults, stable event order, cumulative
 * parameter changes); scenarios/minimal.json gets every default; every
 * malformed scenario in tests/scenarios_bad/ (index: expected.txt) is
 * refused with the expected "path: constraint" message; several errors
 * in one file are all reported; --set overrides apply and are validated;
 * the depth, file size and error-count limits hold; environment processes
 * give the documented values; `cowsim validate` prints and exits as
 * specified; scenarios/schema.json agrees with the parameter table, the
 * mechanism and agent registries (`--print-schema-defs`) and the loader.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <gsl/gsl_randist.h>

#include "cs_effective.h"
#include "cs_rng.h"
#include "cs_scenario.h"
#include "cs_test.h"

/* ------------------------------------------------------------ helpers */

/* Path of a file in the source tree (CS_SRC, else the working dir). */
static const char *src_path(const char *rel, char *buf, size_t cap)
{
    const char *root = getenv("CS_SRC");
    snprintf(buf, cap, "%s/%s", root ? root : ".", rel);
    return buf;
}

/* Whole file into a malloc'd NUL-terminated string, or NULL. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    size_t got;
    while (b && (got = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *nb = realloc(b, cap * 2);
            if (nb == NULL) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (b) b[n] = '\0';
    if (len) *len = n;
    return b;
}

/* 1 if some message in e contains sub. */
static int has_msg(const cs_errlist_t *e, const char *sub)
{
    for (size_t i = 0; i < e->n; i++)
        if (strstr(e->msg[i], sub) != NULL) return 1;
    return 0;
}

/* Print every message of e (context for a failed check). */
static void dump_errs(const char *what, const cs_errlist_t *e)
{
    for (size_t i = 0; i < e->n; i++) fprintf(stderr, "  [%s] %s\n", what, e->msg[i]);
}

/* Load text with sets; returns rc, scenario in *s (may be NULL). */
static int load(const char *text, const char *const *sets, size_t n_sets, cs_scenario_t **s, cs_errlist_t *e)
{
    return cs_scenario_load(text, strlen(text), sets, n_sets, s, e);
}

/* Index of agent parameter name in ops, or -1. */
static int aparam(const cs_agent_ops_t *ops, const char *name)
{
    for (size_t i = 0; ops && i < ops->n_params; i++)
        if (strcmp(ops->params[i].name, name) == 0) return (int)i;
    return -1;
}

/* Run a shell command, capture stdout+stderr into out; returns exit status. */
static int run_cmd(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (p == NULL) return -1;
    size_t n = 0, got;
    while (n + 1 < cap && (got = fread(out + n, 1, cap - n - 1, p)) > 0) n += got;
    out[n] = '\0';
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0) {
    }
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ------------------------------------------------------------ a full scenario */

static const char *full_json =
    "{\n"
    "  \"name\": \"full-2385\",\n"
    "  \"description\": \"every section\",\n"
    "  \"seed\": \"18446744073709551615\",\n"
    "  \"blocks\": 2385,\n"
    "  \"mechanism\": [\"eip1559\", \"bias-vcg\"],\n"
    "  \"params\": {\"lambda\": 0.0425, \"target_utilisation\": 0.37, \"w_min\": 1.25,\n"
    "             \"basefee_rule\": \"additive\", \"reserve_price\": \"340282366920938463463374607431768211455\",\n"
    "             \"bias_scale\": 12345, \"ring_size\": 256, \"lane_fee_multiplier\": 0.8000004,\n"
    "             \"median_ema\": 0.2385},\n"
    "  \"environment\": {\n"
    "    \"basefee_cycle\": {\"type\": \"piecewise\", \"points\": [[0, 1000], [50, 2385.5], [120, 700]]},\n"
    "    \"basefee_cell\": {\"type\": \"random_walk\", \"value\": 40, \"sigma\": 0.25, \"min\": 30, \"max\": 55}},\n"
    "  \"agents\": [\n"
    "    {\"kind\": \"heartbeat\", \"count\": 3, \"balance\": \"123456789012345678901234567890\",\n"
    "     \"params\": {\"period\": 17}},\n"
    "    {\"kind\": \"fragmenter\", \"deployer\": \"dep1\", \"fee_payer\": \"deployer\", \"params\": {\"k\": 5},\n"
    "     \"enter_at\": 10, \"exit_at\": 900}],\n"
    "  \"events\": [\n"
    "    {\"at\": 500, \"type\": \"lane_pause\", \"duration\": 20},\n"
    "    {\"at\": 100, \"type\": \"params\", \"params\": {\"lambda\": 0.06}},\n"
    "    {\"at\": 500, \"type\": \"demand_shock\", \"mult\": 2.5, \"duration\": 30, \"kinds\": [\"heartbeat\", \"oracle\"]},\n"
    "    {\"at\": 100, \"type\": \"actor_exit\", \"agent\": 1},\n"
    "    {\"at\": 700, \"type\": \"params\", \"params\": {\"w_max\": 1.75}}],\n"
    "  \"output\": {\"fires\": {\"sample\": 7}, \"flush_every\": 250, \"weights_every\": 50, \"dir\": \"out/full\"}\n"
    "}\n";

/* The full scenario loads with exact values. */
static void test_full(void)
{
    cs_errlist_t e = {0};
    cs_scenario_t *s = NULL;
    int rc = load(full_json, NULL, 0, &s, &e);
    CS_CHECK_EQ_U64(rc, CS_OK);
    dump_errs("full", &e);
    if (s == NULL) return;
    CS_CHECK_STR(s->name, "full-2385");
    CS_CHECK_STR(s->text, full_json); /* verbatim without overrides */
    CS_CHECK(s->seed == UINT64_MAX); /* "18446744073709551615" = 2^64 - 1 */
    CS_CHECK_EQ_U64(s->blocks, 2385);
    CS_CHECK_EQ_U64(s->n_mechs, 2);
    CS_CHECK_STR(s->mechs[0], "eip1559");
    CS_CHECK_STR(s->mechs[1], "bias-vcg");
    /* FP rows: round(x * scale). */
    CS_CHECK_EQ_U64(s->params.lambda, 42500000);             /* 0.0425 * 10^9 */
    CS_CHECK_EQ_U64(s->params.target_utilisation, 370000);   /* 0.37 * 10^6 */
    CS_CHECK_EQ_U64(s->params.w_min, 1250000);               /* 1.25 * 10^6 */
    CS_CHECK_EQ_U64(s->params.lane_fee_multiplier, 800000);  /* 800000.4 rounds down */
    CS_CHECK_EQ_U64(s->params.median_ema, 238500);           /* 0.2385 * 10^6 */
    CS_CHECK_EQ_U64(s->params.basefee_rule, CS_BASEFEE_ADDITIVE); /* "additive" is choice 2 */
    CS_CHECK(s->params.reserve_price == CS_U128_MAX);        /* 2^128 - 1 from its decimal string */
    CS_CHECK(s->params.bias_scale == 12345);
    CS_CHECK_EQ_U64(s->params.ring_size, 256);
    /* Defaults of untouched rows (core/cs_params.h). */
    CS_CHECK_EQ_U64(s->params.epoch_blocks, 3600);
    CS_CHECK_EQ_U64(s->params.tier_fast, 1500000);           /* 1.5 */
    CS_CHECK_EQ_U64(s->params.w_max, 2000000);               /* 2.0 */
    /* Environment: piecewise is the last point at or below h; the value
     * before the first point defaults to the first point's value. */
    CS_CHECK_EQ_U64(s->basefee_cycle.type, CS_PROC_PIECEWISE);
    CS_CHECK_EQ_U64(s->basefee_cycle.n_pts, 3);
    CS_CHECK(cs_proc_value(&s->basefee_cycle, 0, NULL, NULL) == 1000.0);
    CS_CHECK(cs_proc_value(&s->basefee_cycle, 49, NULL, NULL) == 1000.0);
    CS_CHECK(cs_proc_value(&s->basefee_cycle, 50, NULL, NULL) == 2385.5);
    CS_CHECK(cs_proc_value(&s->basefee_cycle, 119, NULL, NULL) == 2385.5);
    CS_CHECK(cs_proc_value(&s->basefee_cycle, 120, NULL, NULL) == 700.0);
    CS_CHECK(cs_proc_value(&s->basefee_cycle, 5000, NULL, NULL) == 700.0);
    CS_CHECK_EQ_U64(s->basefee_cell.type, CS_PROC_WALK);
    CS_CHECK(s->basefee_cell.value == 40.0 && s->basefee_cell.sigma == 0.25);
    CS_CHECK(s->basefee_cell.min == 30.0 && s->basefee_cell.max == 55.0);
    /* Agents. */
    CS_CHECK_EQ_U64(s->n_agents, 2);
    const cs_agent_ops_t *hb = cs_agent_find("heartbeat"), *fr = cs_agent_find("fragmenter");
    CS_CHECK(hb != NULL && fr != NULL);
    if (s->n_agents == 2 && hb && fr) {
        const cs_scn_agent_t *a = &s->agents[0];
        CS_CHECK(a->ops == hb);
        CS_CHECK_EQ_U64(a->count, 3);
        CS_CHECK(a->deployer == NULL);
        CS_CHECK_EQ_U64(a->fee_payer_deployer, 0);
        /* 123456789012345678901234567890 = 123456789012345 * 10^15 + 678901234567890 */
        cs_u128 want = (cs_u128)123456789012345ull * (cs_u128)1000000000000000ull + 678901234567890ull;
        CS_CHECK(a->balance == want);
        int ip = aparam(hb, "period");
        CS_CHECK(ip >= 0);
        for (size_t k = 0; k < hb->n_params; k++)
            CS_CHECK(a->params[k] == ((int)k == ip ? 17.0 : hb->params[k].def));
        CS_CHECK_EQ_U64(a->enter_at, 0);
        CS_CHECK_EQ_U64(a->exit_at, 0);
        const cs_scn_agent_t *b = &s->agents[1];
        CS_CHECK(b->ops == fr);
        CS_CHECK_EQ_U64(b->count, 1);                 /* default */
        CS_CHECK_STR(b->deployer, "dep1");
        CS_CHECK_EQ_U64(b->fee_payer_deployer, 1);
        CS_CHECK(b->balance == (cs_u128)1000000000000000000ull); /* default 10^18 */
        int ik = aparam(fr, "k");
        CS_CHECK(ik >= 0 && b->params[ik] == 5.0);
        CS_CHECK_EQ_U64(b->enter_at, 10);
        CS_CHECK_EQ_U64(b->exit_at, 900);
    }
    /* Events: sorted by at, equal heights in file order (file indices
     * 1, 3 at 100; 0, 2 at 500; 4 at 700); parameter changes accumulate. */
    CS_CHECK_EQ_U64(s->n_events, 5);
    if (s->n_events == 5) {
        const cs_scn_event_t *ev = s->events;
        CS_CHECK_EQ_U64(ev[0].at, 100);
        CS_CHECK_EQ_U64(ev[0].type, CS_EV_PARAMS);
        CS_CHECK_EQ_U64(ev[0].params.lambda, 60000000);  /* 0.06 * 10^9 */
        CS_CHECK_EQ_U64(ev[0].params.w_min, 1250000);    /* from the top level */
        CS_CHECK_EQ_U64(ev[0].params.w_max, 2000000);
        CS_CHECK_EQ_U64(ev[1].at, 100);
        CS_CHECK_EQ_U64(ev[1].type, CS_EV_ACTOR_EXIT);
        CS_CHECK_EQ_U64(ev[1].agent, 1);
        CS_CHECK_EQ_U64(ev[2].at, 500);
        CS_CHECK_EQ_U64(ev[2].type, CS_EV_LANE_PAUSE);
        CS_CHECK_EQ_U64(ev[2].duration, 20);
        CS_CHECK_EQ_U64(ev[3].at, 500);
        CS_CHECK_EQ_U64(ev[3].type, CS_EV_DEMAND_SHOCK);
        CS_CHECK(ev[3].mult == 2.5);
        CS_CHECK_EQ_U64(ev[3].duration, 30);
        CS_CHECK_EQ_U64(ev[3].kinds_mask, (1u << CS_AK_HEARTBEAT) | (1u << CS_AK_ORACLE)); /* 16 + 8 */
        CS_CHECK_EQ_U64(ev[3].kinds_mask, 24);
        CS_CHECK_EQ_U64(ev[4].at, 700);
        CS_CHECK_EQ_U64(ev[4].type, CS_EV_PARAMS);
        CS_CHECK_EQ_U64(ev[4].params.lambda, 60000000);  /* still the change at 100 */
        CS_CHECK_EQ_U64(ev[4].params.w_max, 1750000);    /* 1.75 * 10^6 */
        CS_CHECK_EQ_U64(ev[4].params.ring_size, 256);
    }
    CS_CHECK_EQ_U64(s->output.fires, CS_FIRES_SAMPLE);
    CS_CHECK_EQ_U64(s->output.sample_every, 7);
    CS_CHECK_EQ_U64(s->output.flush_every, 250);
    CS_CHECK_EQ_U64(s->output.weights_every, 50);
    CS_CHECK_STR(s->output.dir, "out/full");
    cs_scenario_free(s);
    cs_errlist_free(&e);
}

/* scenarios/minimal.json: every default in place. */
static void test_minimal(void)
{
    char path[1024];
    cs_errlist_t e = {0};
    cs_scenario_t *s = NULL;
    int rc = cs_scenario_load_file(src_path("scenarios/minimal.json", path, sizeof path), NULL, 0, &s, &e);
    CS_CHECK_EQ_U64(rc, CS_OK);
    dump_errs("minimal", &e);
    if (s == NULL) return;
    CS_CHECK_STR(s->name, "minimal");
    CS_CHECK_EQ_U64(s->seed, 7);
    CS_CHECK_EQ_U64(s->blocks, 100);
    CS_CHECK_EQ_U64(s->n_mechs, 1);
    CS_CHECK_STR(s->mechs[0], "fifo");
    cs_params_t def;
    cs_params_default(&def);
    for (size_t i = 0; i < cs_param_count; i++) {
        const cs_param_desc_t *d = &cs_param_table[i];
        size_t sz = d->kind == CS_PK_ENUM ? 4 : d->kind == CS_PK_U128 ? 16 : 8;
        int same = memcmp((const char *)&s->params + d->offset, (const char *)&def + d->offset, sz) == 0;
        if (!same) fprintf(stderr, "  param %s differs from its default\n", d->name);
        CS_CHECK(same);
    }
    CS_CHECK_EQ_U64(s->basefee_cycle.type, CS_PROC_CONSTANT);
    CS_CHECK(s->basefee_cycle.value == 1000.0 && s->basefee_cell.value == 1000.0);
    CS_CHECK_EQ_U64(s->n_agents, 1);
    if (s->n_agents == 1) {
        CS_CHECK_EQ_U64(s->agents[0].count, 2);
        CS_CHECK(s->agents[0].balance == (cs_u128)1000000000000000000ull);
        CS_CHECK_EQ_U64(s->agents[0].fee_payer_deployer, 0);
        CS_CHECK(s->agents[0].deployer == NULL);
    }
    CS_CHECK_EQ_U64(s->n_events, 0);
    CS_CHECK_EQ_U64(s->output.fires, CS_FIRES_ALL);
    CS_CHECK_EQ_U64(s->output.sample_every, 1);
    CS_CHECK_EQ_U64(s->output.flush_every, 1000);
    CS_CHECK_EQ_U64(s->output.weights_every, 100);
    CS_CHECK(s->output.dir == NULL);
    cs_scenario_free(s);
    cs_errlist_free(&e);
}

/* Every file of tests/scenarios_bad/expected.txt is refused with a
 * message containing its expected substring. */
static void test_bad_files(void)
{
    char path[1024];
    char *idx = slurp(src_path("tests/scenarios_bad/expected.txt", path, sizeof path), NULL);
    CS_CHECK(idx != NULL);
    if (idx == NULL) return;
    size_t files = 0;
    for (char *line = strtok(idx, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || line[0] == '\0') continue;
        char *tab = strchr(line, '\t');
        CS_CHECK(tab != NULL);
        if (tab == NULL) continue;
        *tab = '\0';
        const char *want = tab + 1;
        char rel[600], fp[1024];
        snprintf(rel, sizeof rel, "tests/scenarios_bad/%s", line);
        cs_errlist_t e = {0};
        cs_scenario_t *s = NULL;
        int rc = cs_scenario_load_file(src_path(rel, fp, sizeof fp), NULL, 0, &s, &e);
        int ok = rc != CS_OK && s == NULL && has_msg(&e, want);
        if (!ok) {
            fprintf(stderr, "  %s: rc %d, expected \"%s\"\n", line, rc, want);
            dump_errs(line, &e);
        }
        CS_CHECK(ok);
        cs_scenario_free(s);
        cs_errlist_free(&e);
        files++;
    }
    CS_CHECK(files >= 30);
    printf("bad scenarios checked: %zu\n", files);
    free(idx);
}

/* Several independent problems in one document: all reported, nothing else. */
static void test_multi(void)
{
    const char *t = "{\"name\": \"multi\", \"blocks\": 0, \"mechanism\": \"nope\","
                    " \"agents\": [{\"kind\": \"heartbeat\", \"count\": 0}], \"params\": {\"w_min\": 3}}";
    cs_errlist_t e = {0};
    cs_scenario_t *s = NULL;
    int rc = load(t, NULL, 0, &s, &e);
    CS_CHECK_EQ_U64(rc, CS_EINVAL);
    CS_CHECK(s == NULL);
    CS_CHECK_EQ_U64(e.n, 4);
    CS_CHECK(has_msg(&e, "blocks: must be in [1, 1000000000], got 0"));
    CS_CHECK(has_msg(&e, "mechanism: unknown mechanism \"nope\" (valid: fifo"));
    CS_CHECK(has_msg(&e, "params: w_min (3) must be <= w_max (2)"));
    CS_CHECK(has_msg(&e, "agents[0].count: must be in [1, 1000000], got 0"));
    cs_errlist_free(&e);
}

/* --set: overrides apply before validation, in order, and are checked. */
static void test_set(void)
{
    char path[1024];
    char *min = slurp(src_path("scenarios/minimal.json", path, sizeof path), NULL);
    CS_CHECK(min != NULL);
    if (min == NULL) return;
    const char *sets[] = {"params.lambda=0.07",
                          "agents[0].count=9",
                          "seed=18446744073709551615",
                          "mechanism=[\"fifo\",\"score\"]",
                          "name=renamed",
                          "output.fires.sample=3",
                          "agents[0].params.period=23",
                          "environment.basefee_cycle=2385",
                          "blocks=50",
                          "blocks=60"};
    cs_errlist_t e = {0};
    cs_scenario_t *s = NULL;
    int rc = load(min, sets, sizeof sets / sizeof sets[0], &s, &e);
    CS_CHECK_EQ_U64(rc, CS_OK);
    dump_errs("set", &e);
    if (s) {
        CS_CHECK_EQ_U64(s->params.lambda, 70000000); /* 0.07 * 10^9 */
        CS_CHECK_EQ_U64(s->agents[0].count, 9);
        CS_CHECK(s->seed == UINT64_MAX);            /* long digit run kept as a string: exact */
        CS_CHECK_EQ_U64(s->n_mechs, 2);
        CS_CHECK_STR(s->mechs[1], "score");
        CS_CHECK_STR(s->name, "renamed");
        CS_CHECK_EQ_U64(s->output.fires, CS_FIRES_SAMPLE); /* output and output.fires created */
        CS_CHECK_EQ_U64(s->output.sample_every, 3);
        int ip = aparam(s->agents[0].ops, "period");
        CS_CHECK(ip >= 0 && s->agents[0].params[ip] == 23.0);
        CS_CHECK(s->basefee_cycle.type == CS_PROC_CONSTANT && s->basefee_cycle.value == 2385.0);
        CS_CHECK_EQ_U64(s->blocks, 60);            /* the later --set wins */
        /* The stored text is the overridden document. */
        cJSON *j = cJSON_Parse(s->text);
        CS_CHECK(j != NULL);
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(j, "output");
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "fires");
        const cJSON *sm = cJSON_GetObjectItemCaseSensitive(f, "sample");
        CS_CHECK(cJSON_IsNumber(sm) && sm->valuedouble == 3.0);
        CS_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "name")), "renamed");
        cJSON_Delete(j);
        cs_scenario_free(s);
    }
    cs_errlist_free(&e);

    /* Each bad override alone, with the message it must produce. */
    static const struct {
        const char *set, *want;
    } bad[] = {
        {"params.lamda=1", "--set params.lamda: unknown parameter 'lamda'"},
        {"agents[5].count=1", "--set agents[5].count: agents[5] does not exist (agents has 1 entries)"},
        {"foo=1", "--set foo: foo is not a key of the scenario format"},
        {"output.fires.every=2", "--set output.fires.every: output.fires.every is not a key of the scenario format"},
        {"agents[0].count=0", "agents[0].count: must be in [1, 1000000], got 0"},
        {"params.lambda=abc", "params.lambda: must be a number, got a string"},
        {"noequals", "--set noequals: expected PATH=VALUE"},
        {"agents[0].params.nope=1", "--set agents[0].params.nope: agent kind heartbeat has no parameter 'nope'"},
        {"name[0]=x", "--set name[0]: only agents and events take an [index]"},
        {"agents.count=1", "--set agents.count: agents and events need an [index] here"},
        {"environment.basefee_cycle.sigma=0.1", "environment.basefee_cycle.type: required"},
        {"blocks=1e400", "blocks: must be a finite number"},
        {"agents[0].balance=-1", "agents[0].balance: must be >= 0, got -1"},
        {"seed=18446744073709551616", "seed: must be in [0, 18446744073709551615], got 18446744073709551616"},
        {"events[0].at=1", "--set events[0].at: events[0] does not exist (events has 0 entries)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cs_errlist_t e2 = {0};
        cs_scenario_t *s2 = NULL;
        const char *one[1] = {bad[i].set};
        int rc2 = load(min, one, 1, &s2, &e2);
        int ok = rc2 != CS_OK && s2 == NULL && has_msg(&e2, bad[i].want);
        if (!ok) {
            fprintf(stderr, "  --set %s: expected \"%s\"\n", bad[i].set, bad[i].want);
            dump_errs("set", &e2);
        }
        CS_CHECK(ok);
        cs_scenario_free(s2);
        cs_errlist_free(&e2);
    }
    free(min);
}

/* Limits: nesting depth, file size, number of messages, NUL bytes. */
static void test_limits(void)
{
    /* Depth 32 (root object + 31 lists) passes the scan; 33 does not. */
    char t[256];
    for (int depth = 32; depth <= 33; depth++) {
        int n = 0, lists = depth - 1;
        n += snprintf(t + n, sizeof t - (size_t)n, "{\"x\": ");
        for (int i = 0; i < lists; i++) t[n++] = '[';
        for (int i = 0; i < lists; i++) t[n++] = ']';
        n += snprintf(t + n, sizeof t - (size_t)n, "}");
        cs_errlist_t e = {0};
        cs_scenario_t *s = NULL;
        int rc = load(t, NULL, 0, &s, &e);
        CS_CHECK(rc != CS_OK);
        if (depth == 32) {
            CS_CHECK(!has_msg(&e, "nesting depth"));
            CS_CHECK(has_msg(&e, "x: unknown key"));
        } else {
            /* the 32nd list sits at x[0]...[0] with 31 indices */
            char want[200];
            int w = snprintf(want, sizeof want, "x");
            for (int i = 0; i < 31; i++) w += snprintf(want + w, sizeof want - (size_t)w, "[0]");
            snprintf(want + w, sizeof want - (size_t)w, ": nesting depth exceeds the limit of 32");
            CS_CHECK(has_msg(&e, want));
            CS_CHECK_EQ_U64(rc, CS_EPARSE);
        }
        cs_errlist_free(&e);
    }
    /* A sparse file one byte over 64 MiB is refused on its size, unread. */
    char tmpl[] = "/tmp/cs_test_scenario_XXXXXX";
    int fd = mkstemp(tmpl);
    CS_CHECK(fd >= 0);
    if (fd >= 0) {
        CS_CHECK(ftruncate(fd, (off_t)(64u << 20) + 1) == 0);
        close(fd);
        cs_errlist_t e = {0};
        cs_scenario_t *s = NULL;
        int rc = cs_scenario_load_file(tmpl, NULL, 0, &s, &e);
        CS_CHECK_EQ_U64(rc, CS_EINVAL);
        CS_CHECK(has_msg(&e, "file size 67108865 bytes exceeds the limit of 67108864 bytes"));
        cs_errlist_free(&e);
        unlink(tmpl);
    }
    /* A missing file: CS_EIO with the reason. */
    {
        cs_errlist_t e = {0};
        cs_scenario_t *s = NULL;
        int rc = cs_scenario_load_file("/nonexistent/cowsim/none.json", NULL, 0, &s, &e);
        CS_CHECK_EQ_U64(rc, CS_EIO);
        CS_CHECK(has_msg(&e, "cannot open: No such file or directory"));
        cs_errlist_free(&e);
    }
    /* 1500 unknown keys: 1000 messages and one that says the rest were cut. */
    {
        size_t cap = 1500 * 16 + 64, n = 0;
        char *big = malloc(cap);
        CS_CHECK(big != NULL);
        if (big) {
            n += (size_t)snprintf(big + n, cap - n, "{");
            for (int i = 0; i < 1500; i++) n += (size_t)snprintf(big + n, cap - n, "%s\"k%d\": 1", i ? "," : "", i);
            snprintf(big + n, cap - n, "}");
            cs_errlist_t e = {0};
            cs_scenario_t *s = NULL;
            int rc = load(big, NULL, 0, &s, &e);
            CS_CHECK_EQ_U64(rc, CS_EINVAL);
            CS_CHECK_EQ_U64(e.n, 1001);
            if (e.n == 1001) {
                CS_CHECK_STR(e.msg[0], "k0: unknown key (allowed: name, description, seed, seeds, blocks, mechanism, params, "
                                       "environment, agents, events, output)");
                CS_CHECK_STR(e.msg[1000], "further errors suppressed (limit 1000)");
            }
            cs_errlist_free(&e);
            free(big);
        }
    }
    /* Errors already in the list are kept, and do not fail a valid load. */
    {
        cs_errlist_t e = {0};
        cs_errlist_add(&e, "earlier: %d", 2385);
        cs_scenario_t *s = NULL;
        int rc = load("{\"name\": \"n\", \"blocks\": 5, \"mechanism\": \"fifo\", \"agents\": [{\"kind\": \"oracle\"}]}",
                      NULL, 0, &s, &e);
        CS_CHECK_EQ_U64(rc, CS_OK);
        CS_CHECK_EQ_U64(e.n, 1);
        CS_CHECK_STR(e.msg[0], "earlier: 2385");
        cs_scenario_free(s);
        cs_errlist_free(&e);
        CS_CHECK(e.n == 0 && e.msg == NULL);
    }
    /* The largest u128 balance loads exactly. */
    {
        cs_errlist_t e = {0};
        cs_scenario_t *s = NULL;
        int rc = load("{\"name\": \"n\", \"blocks\": 5, \"mechanism\": \"fifo\", \"agents\": [{\"kind\": \"oracle\", "
                      "\"balance\": \"340282366920938463463374607431768211455\"}]}",
                      NULL, 0, &s, &e);
        CS_CHECK_EQ_U64(rc, CS_OK);
        CS_CHECK(s && s->agents[0].balance == CS_U128_MAX);
        cs_scenario_free(s);
        cs_errlist_free(&e);
    }
}

/* Environment processes (cs_proc_value). */
static void test_proc(void)
{
    cs_proc_t c = {CS_PROC_CONSTANT, 2.385, NULL, NULL, 0, 0, 0, 0};
    CS_CHECK(cs_proc_value(&c, 0, NULL, NULL) == 2.385);
    CS_CHECK(cs_proc_value(&c, 999999, NULL, NULL) == 2.385);
    /* Piecewise with an explicit value before the first point. */
    double h[] = {10, 20}, v[] = {5.5, 7.25};
    cs_proc_t p = {CS_PROC_PIECEWISE, 1.5, h, v, 2, 0, 0, 0};
    CS_CHECK(cs_proc_value(&p, 9, NULL, NULL) == 1.5);
    CS_CHECK(cs_proc_value(&p, 10, NULL, NULL) == 5.5);
    CS_CHECK(cs_proc_value(&p, 19, NULL, NULL) == 5.5);
    CS_CHECK(cs_proc_value(&p, 20, NULL, NULL) == 7.25);
    /* Random walk: x(h) = clip(x(h-1) * (1 + sigma * N(0,1)), min, max),
     * one gaussian per step from the caller's stream. */
    cs_proc_t w = {CS_PROC_WALK, 40, NULL, NULL, 0, 0.25, 30, 55};
    gsl_rng *r1 = cs_rng_stream(2385, 3), *r2 = cs_rng_stream(2385, 3);
    CS_CHECK(r1 && r2);
    if (r1 && r2) {
        double st = -1, ref = 40;
        CS_CHECK(cs_proc_value(&w, 0, &st, r1) == 40.0 && st == 40.0);
        int inside = 1, exact = 1, hit_lo = 0, hit_hi = 0;
        for (uint64_t k = 1; k <= 2000; k++) {
            double x = cs_proc_value(&w, k, &st, r1);
            ref = ref * (1.0 + gsl_ran_gaussian(r2, 0.25));
            ref = ref < 30 ? 30 : ref > 55 ? 55 : ref;
            if (x != ref || st != x) exact = 0;
            if (x < 30 || x > 55) inside = 0;
            hit_lo |= x == 30.0;
            hit_hi |= x == 55.0;
        }
        CS_CHECK(exact);
        CS_CHECK(inside);
        CS_CHECK(hit_lo && hit_hi); /* sigma 0.25 in [30, 55] reaches both bounds in 2000 steps */
        CS_CHECK(cs_proc_value(&w, 5, NULL, r1) == 40.0); /* no state: the start */
    }
    gsl_rng_free(r1);
    gsl_rng_free(r2);
}

/* The `cowsim validate` command, through the binary (CS_BIN). */
static void test_cli(void)
{
    const char *bin = getenv("CS_BIN");
    CS_CHECK(bin != NULL);
    if (bin == NULL) return;
    char cmd[4096], out[8192], p1[1024], p2[1024];
    src_path("scenarios/minimal.json", p1, sizeof p1);
    snprintf(cmd, sizeof cmd, "'%s' validate '%s' 2>&1", bin, p1);
    CS_CHECK_EQ_U64(run_cmd(cmd, out, sizeof out), 0);
    CS_CHECK_STR(out, "ok: minimal (100 blocks, 2 agents, mechanisms: fifo)\n");
    snprintf(cmd, sizeof cmd, "'%s' validate '%s' --set 'agents[0].count=4' --set=mechanism='[\"fifo\",\"eip1559\"]' 2>&1",
             bin, p1);
    CS_CHECK_EQ_U64(run_cmd(cmd, out, sizeof out), 0);
    CS_CHECK_STR(out, "ok: minimal (100 blocks, 4 agents, mechanisms: fifo, eip1559)\n");
    /* Invalid: every error on its own line, prefixed with the file name. */
    src_path("tests/scenarios_bad/w_min_gt_w_max.json", p2, sizeof p2);
    snprintf(cmd, sizeof cmd, "'%s' validate '%s' --set blocks=0 2>&1", bin, p2);
    CS_CHECK_EQ_U64(run_cmd(cmd, out, sizeof out), 2);
    char want[2200];
    snprintf(want, sizeof want, "%s: blocks: must be in [1, 1000000000], got 0\n%s: params: w_min (2.5) must be <= w_max (2)\n",
             p2, p2);
    CS_CHECK_STR(out, want);
    /* Unreadable file: I/O error, exit 3 (as for every verb's inputs,
     * cs_exit.h), the path in the message. */
    snprintf(cmd, sizeof cmd, "'%s' validate /nonexistent/none.json 2>&1", bin);
    CS_CHECK_EQ_U64(run_cmd(cmd, out, sizeof out), 3);
    CS_CHECK_STR(out, "/nonexistent/none.json: cannot open: No such file or directory\n");
    /* Usage errors. */
    snprintf(cmd, sizeof cmd, "'%s' validate 2>&1", bin);
    CS_CHECK_EQ_U64(run_cmd(cmd, out, sizeof out), 2);
    CS_CHECK(strstr(out, "usage: cowsim validate") != NULL);
    snprintf(cmd, sizeof cmd, "'%s' validate --bogus '%s' 2>&1", bin, p1);
    CS_CHECK_EQ_U64(run_cmd(cmd, out, sizeof out), 2);
    CS_CHECK(strstr(out, "unknown option '--bogus'") != NULL);
    snprintf(cmd, sizeof cmd, "'%s' validate '%s' --set 2>&1", bin, p1);
    CS_CHECK_EQ_U64(run_cmd(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "'%s' validate --help 2>&1", bin);
    CS_CHECK_EQ_U64(run_cmd(cmd, out, sizeof out), 0);
    /* Issue 25 #9: 20,000 actors funded with 10^12 fires at 2.5e22 each
     * (basefee_cycle 10^18 x the heartbeat's gas_limit 50,000 x cycles_frac 0.5) hold 5e38
     * > 2^128 - 1 in all: validate and run refuse it at the JSON path, and
     * run leaves no output directory. */
    const char *big = "--set mechanism=eip1559 --set 'agents[0].count=20000' "
                      "--set 'agents[0].balance={\"fires\":1e12}' "
                      "--set 'environment.basefee_cycle={\"type\":\"constant\",\"value\":1e18}'";
    snprintf(cmd, sizeof cmd, "'%s' validate '%s' %s 2>&1", bin, p1, big);
    CS_CHECK_EQ_U64(run_cmd(cmd, out, sizeof out), 2);
    snprintf(want, sizeof want,
             "%s: agents[0].balance.fires: 1e+12 fires at the opening price 2.5e+22 of mechanism eip1559 fund more "
             "than 2^128 - 1 base units (one actor, or summed over all actors)\n", p1);
    CS_CHECK_STR(out, want);
    char tdir[] = "/tmp/cs_test_funds_XXXXXX";
    CS_CHECK(mkdtemp(tdir) != NULL);
    snprintf(cmd, sizeof cmd, "'%s' run '%s' %s -o '%s/out' --seeds 2 2>&1", bin, p1, big, tdir);
    CS_CHECK_EQ_U64(run_cmd(cmd, out, sizeof out), 2);
    CS_CHECK(strstr(out, "agents[0].balance.fires: 1e+12 fires") != NULL);
    snprintf(cmd, sizeof cmd, "%s/out", tdir);
    CS_CHECK(access(cmd, F_OK) != 0);
    rmdir(tdir);
    /* Issue 25 (minor): --seeds 2 from seed 2^64 - 1 wrapped to seed 0. */
    char sdir[] = "/tmp/cs_test_seeds_XXXXXX";
    CS_CHECK(mkdtemp(sdir) != NULL);
    snprintf(cmd, sizeof cmd, "'%s' run '%s' --seeds 2 --seed 18446744073709551615 -o '%s/out' 2>&1", bin, p1, sdir);
    CS_CHECK_EQ_U64(run_cmd(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", sdir); /* (the unfixed code ran into it) */
    CS_CHECK(system(cmd) == 0);
    CS_CHECK_STR(out, "cowsim run: 2 seeds from seed 18446744073709551615 would pass 2^64 - 1 (and wrap to 0)\n");
    snprintf(cmd, sizeof cmd, "'%s' validate '%s' --set seed=18446744073709551614 --set seeds=3 2>&1", bin, p1);
    CS_CHECK_EQ_U64(run_cmd(cmd, out, sizeof out), 2);
    snprintf(want, sizeof want, "%s: seeds: 3 seeds from seed 18446744073709551614 would pass 2^64 - 1 (and wrap to 0)\n",
             p1);
    CS_CHECK_STR(out, want);
}

/* scenarios/schema.json against the tables and the loader. */
static void test_schema(void)
{
    const char *bin = getenv("CS_BIN");
    char path[1024], cmd[1200];
    char *sch_txt = slurp(src_path("scenarios/schema.json", path, sizeof path), NULL);
    CS_CHECK(sch_txt != NULL && bin != NULL);
    if (sch_txt == NULL || bin == NULL) {
        free(sch_txt);
        return;
    }
    cJSON *sch = cJSON_Parse(sch_txt);
    free(sch_txt);
    CS_CHECK(sch != NULL);
    const cJSON *defs = cJSON_GetObjectItemCaseSensitive(sch, "$defs");
    CS_CHECK(cJSON_IsObject(defs));
    /* 1. The params def lists exactly the table's names, in table order. */
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(defs, "params"), "properties");
    CS_CHECK_EQ_U64(cJSON_GetArraySize(props), cs_param_count);
    size_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, props)
    {
        int ok = i < cs_param_count && strcmp(it->string, cs_param_table[i].name) == 0;
        if (!ok) fprintf(stderr, "  schema params[%zu] = %s, table has %s\n", i, it->string,
                         i < cs_param_count ? cs_param_table[i].name : "(end)");
        CS_CHECK(ok);
        i++;
    }
    /* 2. Every generated def equals the schema's; no stale agent_params_*. */
    size_t cap = 1 << 20;
    char *gen_txt = malloc(cap);
    CS_CHECK(gen_txt != NULL);
    if (gen_txt) {
        snprintf(cmd, sizeof cmd, "'%s' validate --print-schema-defs", bin);
        CS_CHECK_EQ_U64(run_cmd(cmd, gen_txt, cap), 0);
        cJSON *gen = cJSON_Parse(gen_txt);
        CS_CHECK(gen != NULL);
        size_t ng = 0;
        cJSON_ArrayForEach(it, gen)
        {
            const cJSON *mine = cJSON_GetObjectItemCaseSensitive(defs, it->string);
            int same = mine && cJSON_Compare(it, mine, 1);
            if (!same)
                fprintf(stderr, "  scenarios/schema.json $defs.%s differs from `cowsim validate --print-schema-defs`"
                                " (regenerate: see its $comment)\n", it->string);
            CS_CHECK(same);
            ng++;
        }
        CS_CHECK(ng >= 4 + CS_AK__COUNT); /* params, mechanism_name, agent_kind, by_kind + one per kind */
        cJSON_ArrayForEach(it, defs)
        {
            if (strncmp(it->string, "agent_params_", 13) != 0) continue;
            int known = cJSON_GetObjectItemCaseSensitive(gen, it->string) != NULL;
            if (!known) fprintf(stderr, "  stale $defs.%s in scenarios/schema.json\n", it->string);
            CS_CHECK(known);
        }
        cJSON_Delete(gen);
        free(gen_txt);
    }
    /* 3. Every key the hand-written schema lists is a key the loader knows:
     * adding it (with a junk value) never yields "unknown key". */
    static const char *const base =
        "{\"name\": \"k\", \"blocks\": 10, \"mechanism\": \"fifo\", \"agents\": [{\"kind\": \"oracle\"}]}";
    struct {
        const char *where; /* object in the schema */
        const char *path;  /* JSON path prefix for messages */
    } objs[] = {{"", ""}, {"agent", "agents[0]."}, {"output", "output."}, {"environment", "environment."}};
    for (size_t o = 0; o < sizeof objs / sizeof objs[0]; o++) {
        const cJSON *node = sch;
        if (strcmp(objs[o].where, "agent") == 0) node = cJSON_GetObjectItemCaseSensitive(defs, "agent");
        else if (objs[o].where[0])
            node = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(sch, "properties"), objs[o].where);
        const cJSON *pr = cJSON_GetObjectItemCaseSensitive(node, "properties");
        CS_CHECK(cJSON_IsObject(pr));
        const cJSON *k;
        cJSON_ArrayForEach(k, pr)
        {
            cJSON *doc = cJSON_Parse(base);
            cJSON *target = doc;
            if (strcmp(objs[o].where, "agent") == 0)
                target = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "agents"), 0);
            else if (objs[o].where[0])
                target = cJSON_AddObjectToObject(doc, objs[o].where);
            if (cJSON_GetObjectItemCaseSensitive(target, k->string) == NULL)
                cJSON_AddItemToObject(target, k->string, cJSON_CreateArray());
            char *txt = cJSON_PrintUnformatted(doc);
            cJSON_Delete(doc);
            cs_errlist_t e = {0};
            cs_scenario_t *s = NULL;
            load(txt, NULL, 0, &s, &e);
            char want[300];
            snprintf(want, sizeof want, "%s%s: unknown key", objs[o].path, k->string);
            int known = !has_msg(&e, want);
            if (!known) fprintf(stderr, "  schema lists %s%s but the loader refuses it\n", objs[o].path, k->string);
            CS_CHECK(known);
            cs_scenario_free(s);
            cs_errlist_free(&e);
            free(txt);
        }
    }
    /* Event keys, per type branch. */
    const cJSON *branches = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(defs, "event"), "oneOf");
    CS_CHECK_EQ_U64(cJSON_GetArraySize(branches), 6);
    const cJSON *br;
    cJSON_ArrayForEach(br, branches)
    {
        const cJSON *pr = cJSON_GetObjectItemCaseSensitive(br, "properties");
        const char *type = cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pr, "type"), "const"));
        CS_CHECK(type != NULL);
        if (type == NULL) continue;
        const cJSON *k;
        cJSON_ArrayForEach(k, pr)
        {
            char txt[600];
            snprintf(txt, sizeof txt,
                     "{\"name\": \"k\", \"blocks\": 10, \"mechanism\": \"fifo\", \"agents\": [{\"kind\": \"oracle\"}],"
                     " \"events\": [{\"at\": 1, \"type\": \"%s\", \"%s\": []}]}",
                     type, strcmp(k->string, "at") == 0 || strcmp(k->string, "type") == 0 ? "at" : k->string);
            cs_errlist_t e = {0};
            cs_scenario_t *s = NULL;
            load(txt, NULL, 0, &s, &e);
            char want[200];
            snprintf(want, sizeof want, "events[0].%s: unknown key", k->string);
            int known = !has_msg(&e, want);
            if (!known) fprintf(stderr, "  schema lists events[].%s for type %s but the loader refuses it\n",
                                k->string, type);
            CS_CHECK(known);
            cs_scenario_free(s);
            cs_errlist_free(&e);
        }
    }
    cJSON_Delete(sch);
}

/* Issue 25 #1 and #2: an escaped NUL anywhere (value or key, also through
 * --set) is refused with its line and column, an escaped backslash before
 * "u0000" is not a NUL; a JSON number of 2^53 or more is refused (2^53 + 1
 * would read as 2^53), 2^53 - 1 and decimal strings are exact. */
static void test_guard(void)
{
    static const char *const nul_docs[] = {
        "{\"name\":\"m\",\"seed\":7,\"blocks\":10,\"mechanism\":\"fifo\",\"agents\":["
        "{\"kind\":\"heartbeat\",\"deployer\":\"a\\u0000b\"},{\"kind\":\"heartbeat\",\"deployer\":\"a\\u0000c\"}]}",
        "{\"name\":\"n\\u0000x\",\"seed\":7,\"blocks\":10,\"mechanism\":\"fifo\",\"agents\":[{\"kind\":\"heartbeat\"}]}",
        "{\"name\":\"m\",\"seed\":7,\"blocks\":10,\"mechanism\":\"fifo\\u0000\",\"agents\":[{\"kind\":\"heartbeat\"}]}",
        "{\"name\":\"m\",\n\"seed\\u0000x\":7,\"seed\":7,\"blocks\":10,\"mechanism\":\"fifo\",\"agents\":[{\"kind\":\"heartbeat\"}]}",
    };
    static const char *const where[] = {"line 1, column 96", "line 1, column 11", "line 1, column 51",
                                        "line 2, column 6"};
    for (size_t i = 0; i < sizeof nul_docs / sizeof nul_docs[0]; i++) {
        cs_errlist_t e = {0};
        cs_scenario_t *s = NULL;
        int rc = load(nul_docs[i], NULL, 0, &s, &e);
        CS_CHECK_EQ_U64(rc, CS_EPARSE);
        char want[120];
        snprintf(want, sizeof want, "$: escaped NUL (\\u0000) in a string at %s", where[i]);
        if (!has_msg(&e, want)) dump_errs("nul", &e);
        CS_CHECK(has_msg(&e, want));
        cs_scenario_free(s);
        cs_errlist_free(&e);
    }
    const char *base = "{\"name\":\"n\",\"seed\":7,\"blocks\":10,\"mechanism\":\"fifo\","
                       "\"agents\":[{\"kind\":\"heartbeat\",\"deployer\":\"d\\\\u0000x\"}]}";
    {
        cs_errlist_t e = {0};
        cs_scenario_t *s = NULL;
        CS_CHECK_EQ_U64(load(base, NULL, 0, &s, &e), CS_OK);
        CS_CHECK(s && s->n_agents == 1 && s->agents[0].deployer);
        if (s && s->n_agents == 1 && s->agents[0].deployer) CS_CHECK_STR(s->agents[0].deployer, "d\\u0000x");
        cs_scenario_free(s);
        cs_errlist_free(&e);
        const char *set[] = {"agents[0].deployer=\"q\\u0000r\""};
        CS_CHECK_EQ_U64(load(base, set, 1, &s, &e), CS_EINVAL);
        CS_CHECK(has_msg(&e, "--set agents[0].deployer: VALUE has an escaped NUL"));
        cs_scenario_free(s);
        cs_errlist_free(&e);
    }
    /* seed and balance as JSON numbers around 2^53 = 9007199254740992 */
    static const struct {
        const char *seed, *balance;
        int ok;
        uint64_t want_seed;
    } big[] = {
        {"9007199254740991", "1", 1, 9007199254740991ull},
        {"9007199254740993", "1", 0, 0},
        {"9007199254740992", "1", 0, 0},
        {"\"9007199254740993\"", "1", 1, 9007199254740993ull},
        {"1", "9007199254740993", 0, 0},
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        char t[400];
        snprintf(t, sizeof t,
                 "{\"name\":\"m\",\"seed\":%s,\"blocks\":10,\"mechanism\":\"fifo\","
                 "\"agents\":[{\"kind\":\"heartbeat\",\"balance\":%s}]}",
                 big[i].seed, big[i].balance);
        cs_errlist_t e = {0};
        cs_scenario_t *s = NULL;
        int rc = load(t, NULL, 0, &s, &e);
        if (big[i].ok) {
            CS_CHECK_EQ_U64(rc, CS_OK);
            if (s) CS_CHECK_EQ_U64(s->seed, big[i].want_seed);
        } else {
            CS_CHECK_EQ_U64(rc, CS_EINVAL);
            const char *fld = big[i].balance[0] == '1' && big[i].balance[1] == '\0' ? "seed" : "agents[0].balance";
            char want[160];
            snprintf(want, sizeof want, "%s: integers of 2^53 or more lose precision as JSON numbers", fld);
            if (!has_msg(&e, want)) dump_errs("big", &e);
            CS_CHECK(has_msg(&e, want));
        }
        cs_scenario_free(s);
        cs_errlist_free(&e);
    }
}

/*
 * A parameter's word (cs_agent_param_t): affine_user's expected_wait takes
 * a number (0 = a user who will not wait) or "estimate", the default, held
 * as CS_AGENT_PARAM_WORD; the effective scenario writes the word back, so
 * reloading it keeps the meaning.
 */
static void test_param_word(void)
{
    static const char *const txt[3] = {
        "{\"name\": \"w\", \"blocks\": 10, \"mechanism\": \"bias-vcg\", \"agents\": [{\"kind\": \"affine_user\"}]}",
        "{\"name\": \"w\", \"blocks\": 10, \"mechanism\": \"bias-vcg\", \"agents\": [{\"kind\": \"affine_user\", "
        "\"params\": {\"expected_wait\": 0}}]}",
        "{\"name\": \"w\", \"blocks\": 10, \"mechanism\": \"bias-vcg\", \"agents\": [{\"kind\": \"affine_user\", "
        "\"params\": {\"expected_wait\": \"estimate\"}}]}",
    };
    const double want[3] = {CS_AGENT_PARAM_WORD, 0.0, CS_AGENT_PARAM_WORD};
    const char *const want_eff[3] = {"\"expected_wait\":\"estimate\"", "\"expected_wait\":0",
                                     "\"expected_wait\":\"estimate\""};
    int k = aparam(cs_agent_find("affine_user"), "expected_wait");
    CS_CHECK(k >= 0);
    for (int i = 0; i < 3 && k >= 0; i++) {
        cs_errlist_t e = {0};
        cs_scenario_t *s = NULL;
        CS_CHECK_EQ_U64(load(txt[i], NULL, 0, &s, &e), CS_OK);
        dump_errs("word", &e);
        if (s == NULL) continue;
        CS_CHECK(s->agents[0].params[k] == want[i]);
        char *eff = cs_effective_json(s, "bias-vcg", 1);
        CS_CHECK(eff != NULL && strstr(eff, want_eff[i]) != NULL);
        cs_scenario_t *s2 = NULL;
        cs_errlist_t e2 = {0};
        CS_CHECK_EQ_U64(eff ? load(eff, NULL, 0, &s2, &e2) : -1, CS_OK);
        CS_CHECK(s2 != NULL && s2->agents[0].params[k] == want[i]);
        cs_scenario_free(s2);
        cs_errlist_free(&e2);
        free(eff);
        cs_scenario_free(s);
        cs_errlist_free(&e);
    }
}

int main(void)
{
    test_param_word();
    test_full();
    test_minimal();
    test_bad_files();
    test_multi();
    test_set();
    test_limits();
    test_proc();
    test_cli();
    test_schema();
    test_guard();
    return cs_test_done("scenario");
}
