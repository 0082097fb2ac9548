/*
 * test_converge.c -- the convergence verdicts of strategic populations
 * (sim/cs_converge.h, DESIGN-NOTES N77), on prices fed by hand:
 * a scenario of 200 blocks (windows of 10 blocks) with two strategic
 * entries and one without.  Entry 0 states 0.5 in windows 0-7, then 0.31
 * in even and 0.29 in odd windows: the last quarter (windows 15-19) has
 * mean (3 x 0.29 + 2 x 0.31) / 5 = 0.298, every window from 8 on is within
 * 0.02 of it and window 7 is not, so it converged at block 8 x 10 + 1 = 81.
 * Entry 2 alternates 0.2 and 0.6: not converged.  Entry 1 (no strategy)
 * is no population.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cs_converge.h"
#include "cs_scenario.h"
#include "cs_test.h"

int main(void)
{
    static const char *txt =
        "{\"name\": \"conv\", \"blocks\": 200, \"mechanism\": \"bias-fp\", \"agents\": ["
        "{\"kind\": \"default_gba\", \"strategy\": \"learning\"}, {\"kind\": \"oracle\"},"
        "{\"kind\": \"priority_tier\", \"strategy\": \"learning_wait\"}]}";
    cs_scenario_t *s = NULL;
    cs_errlist_t e = {0};
    CS_CHECK_EQ_U64(cs_scenario_load(txt, strlen(txt), NULL, 0, &s, &e), CS_OK);
    cs_errlist_free(&e);
    if (s == NULL) return cs_test_done("converge");
    cs_conv_t *c = NULL;
    CS_CHECK_EQ_U64(cs_conv_new(s, "bias-fp", &c), CS_OK);
    for (uint64_t h = 1; h <= 200; h++) {
        uint64_t j = (h - 1) / 10;
        double a = j <= 7 ? 0.5 : j % 2 ? 0.29 : 0.31, b = j % 2 ? 0.6 : 0.2;
        cs_conv_add(c, s->agents[0].strat, h, a);
        cs_conv_add(c, s->agents[0].strat, h, a);
        cs_conv_add(c, s->agents[2].strat, h, b);
        cs_conv_add(c, NULL, h, 9.0);                       /* nobody's: ignored */
        cs_conv_add(c, s->agents[0].strat, h, (double)NAN); /* not a price: ignored */
    }
    char *js = cs_conv_json(c);
    cJSON *root = js ? cJSON_Parse(js) : NULL;
    const cJSON *pops = cJSON_GetObjectItemCaseSensitive(root, "populations");
    CS_CHECK(cJSON_GetArraySize(pops) == 2);
    CS_CHECK(cJSON_GetObjectItemCaseSensitive(root, "window")->valuedouble == 10);
    const cJSON *p0 = cJSON_GetArrayItem(pops, 0), *p1 = cJSON_GetArrayItem(pops, 1);
    if (p0 && p1) {
        CS_CHECK(cJSON_GetObjectItemCaseSensitive(p0, "entry")->valueint == 0);
        CS_CHECK_STR(cJSON_GetObjectItemCaseSensitive(p0, "strategy")->valuestring, "learning");
        CS_CHECK(cJSON_GetObjectItemCaseSensitive(p0, "requests")->valuedouble == 400);
        CS_CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p0, "converged")));
        CS_CHECK(cJSON_GetObjectItemCaseSensitive(p0, "at")->valuedouble == 81);
        CS_CHECK(fabs(cJSON_GetObjectItemCaseSensitive(p0, "final_mean")->valuedouble - 0.298) < 1e-12);
        CS_CHECK(fabs(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p0, "means"), 7)->valuedouble - 0.5) < 1e-12);
        CS_CHECK(cJSON_GetObjectItemCaseSensitive(p1, "entry")->valueint == 2);
        CS_CHECK_STR(cJSON_GetObjectItemCaseSensitive(p1, "kind")->valuestring, "priority_tier");
        CS_CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(p1, "converged")));
        CS_CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(p1, "at")));
    }
    printf("  %s\n", js ? js : "(null)");
    cJSON_Delete(root);
    free(js);
    cs_conv_free(c);
    cs_scenario_free(s);
    return cs_test_done("converge");
}
