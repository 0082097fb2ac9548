/*
 * fuzz_scenario.c -- libFuzzer harness: cs_scenario_load on arbitrary bytes.
 *
 * The loader must never crash, leak or read out of bounds, whatever the
 * input (DESIGN §5: every unknown key, wrong type or out-of-range value is
 * an error naming the JSON path).  Checked here besides the sanitizers:
 *   - the result is CS_OK with a scenario and no error message, or an error
 *     code with at least one message and no scenario;
 *   - every message is non-empty and has a path prefix ("x: ...");
 *   - an accepted scenario is within the documented limits (blocks in
 *     [1, 10^9], 1..16 mechanisms, 1..65536 agent entries, counts >= 1,
 *     flush_every >= 1) and reloading its own text accepts it again.
 * The first input byte selects an optional --set override from a fixed
 * list, so the override path is fuzzed too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Overrides tried on the input, selected by the first byte. */
static const char *const cs__sets[] = {
    "blocks=50",          "seed=3",                 "mechanism=fifo",    "params.lambda=0.1",
    "agents[0].count=2",  "output.flush_every=10",  "params.ring_size=7", "agents[0].params.rate=0.5",
    "events[0].at=1",     "environment.basefee_cycle.value=5",
};

/* Abort (a libFuzzer crash) when cond fails, naming the broken property. */
static void cs__want(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_scenario: property violated: %s\n", what);
        abort();
    }
}

/* Check one load result against the contract in cs_scenario.h. */
static void cs__check(int rc, const cs_scenario_t *s, const cs_errlist_t *e)
{
    if (rc == CS_OK) {
        cs__want(s != NULL, "CS_OK without a scenario");
        cs__want(e->n == 0, "CS_OK with error messages");
        cs__want(s->blocks >= 1 && s->blocks <= 1000000000ull, "blocks within [1, 10^9]");
        cs__want(s->n_mechs >= 1 && s->n_mechs <= CS_MAX_MECHS, "1..16 mechanisms");
        cs__want(s->n_agents >= 1 && s->n_agents <= 65536, "1..65536 agent entries");
        for (size_t i = 0; i < s->n_agents; i++) cs__want(s->agents[i].count >= 1, "agent count >= 1");
        cs__want(s->output.flush_every >= 1, "flush_every >= 1");
        cs__want(s->text != NULL && s->name != NULL, "text and name kept");
    } else {
        cs__want(s == NULL, "error with a scenario");
        cs__want(e->n >= 1, "error without a message");
        cs__want(rc == CS_EPARSE || rc == CS_EINVAL || rc == CS_ENOMEM, "error code is EPARSE/EINVAL/ENOMEM");
    }
    for (size_t i = 0; i < e->n; i++) {
        cs__want(e->msg[i] != NULL && e->msg[i][0] != '\0', "non-empty message");
        cs__want(strchr(e->msg[i], ':') != NULL, "message has a path prefix");
    }
}

/* One input: load it (with an optional override), check, reload the kept text. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *set[1];
    size_t n_sets = 0;
    if (size > 0 && data[0] < 2 * (sizeof cs__sets / sizeof cs__sets[0]) && data[0] % 2 == 1) {
        set[0] = cs__sets[data[0] / 2];
        n_sets = 1;
    }
    cs_errlist_t e = {0};
    cs_scenario_t *s = NULL;
    int rc = cs_scenario_load((const char *)data, size, set, n_sets, &s, &e);
    cs__check(rc, s, &e);
    if (rc == CS_OK) {
        /* The text kept in the scenario (written to run files) loads again. */
        cs_errlist_t e2 = {0};
        cs_scenario_t *s2 = NULL;
        int rc2 = cs_scenario_load(s->text, strlen(s->text), NULL, 0, &s2, &e2);
        cs__want(rc2 == CS_OK || rc2 == CS_ENOMEM, "the scenario's own text reloads");
        if (rc2 == CS_OK) cs__want(s2->blocks == s->blocks && s2->seed == s->seed, "reload keeps blocks and seed");
        cs_scenario_free(s2);
        cs_errlist_free(&e2);
    }
    cs_scenario_free(s);
    cs_errlist_free(&e);
    return 0;
}
