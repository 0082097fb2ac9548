/*
 * cs_cmd_validate.c -- the `cowsim validate` command: argument parsing,
 * the usage text and the printing of the result or of every error as
 * FILE: JSON.path: constraint.  It uses only the scenario interface
 * (cs_scenario.h) and the schema $defs (cs_scenario_int.h).
 */
#include "cs_scenario.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_cli.h"
#include "cs_engine.h"
#include "cs_scenario_int.h"

/* ------------------------------------------------------------ the command */

/* Usage text of `cowsim validate`. */
static void cs__validate_usage(FILE *f)
{
    fprintf(f,
            "usage: cowsim validate SCENARIO.json [--set PATH=VALUE]...\n"
            "       cowsim validate --print-schema-defs\n\n"
            "Checks a scenario and reports every error as FILE: JSON.path: constraint.\n"
            "  --set PATH=VALUE    override a value before validation (PATH like params.lambda,\n"
            "                      agents[0].count, seed; VALUE is JSON, or else a string)\n"
            "  --print-schema-defs print the table-generated $defs of scenarios/schema.json\n"
            "Exit status: 0 valid, 2 invalid input or usage, 3 out of memory.\n");
}

/* `cowsim validate` (DESIGN §5).  argv[0] is "validate". */
int cs_cmd_validate(int argc, char **argv)
{
    const char *file = NULL;
    const char **sets = calloc((size_t)(argc > 0 ? argc : 1), sizeof *sets);
    size_t n_sets = 0;
    if (sets == NULL) {
        fprintf(stderr, "cowsim validate: out of memory\n");
        return CS_EXIT_IO;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cs__validate_usage(stdout);
            free(sets);
            return CS_EXIT_OK;
        } else if (strcmp(a, "--print-schema-defs") == 0) {
            free(sets);
            cJSON *d = cs__schema_defs();
            char *txt = d ? cJSON_Print(d) : NULL;
            cJSON_Delete(d);
            if (txt == NULL) {
                fprintf(stderr, "cowsim validate: out of memory\n");
                return CS_EXIT_IO;
            }
            printf("%s\n", txt);
            free(txt);
            return CS_EXIT_OK;
        } else if (strcmp(a, "--set") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cowsim validate: --set needs PATH=VALUE\n");
                cs__validate_usage(stderr);
                free(sets);
                return CS_EXIT_USAGE;
            }
            sets[n_sets++] = argv[++i];
        } else if (strncmp(a, "--set=", 6) == 0) {
            sets[n_sets++] = a + 6;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "cowsim validate: unknown option '%s'\n", a);
            cs__validate_usage(stderr);
            free(sets);
            return CS_EXIT_USAGE;
        } else if (file != NULL) {
            fprintf(stderr, "cowsim validate: one scenario at a time ('%s' and '%s')\n", file, a);
            cs__validate_usage(stderr);
            free(sets);
            return CS_EXIT_USAGE;
        } else {
            file = a;
        }
    }
    if (file == NULL) {
        cs__validate_usage(stderr);
        free(sets);
        return CS_EXIT_USAGE;
    }
    cs_errlist_t errs = {0};
    cs_scenario_t *s = NULL;
    int rc = cs_scenario_load_file(file, sets, n_sets, &s, &errs);
    free(sets);
    char ferr[600];
    int frc = rc == CS_OK ? cs_sim_check_funds(s, ferr, sizeof ferr) : CS_OK;
    if (frc != CS_OK) {
        fprintf(stderr, "%s: %s\n", file, ferr);
        cs_scenario_free(s);
        cs_errlist_free(&errs);
        return frc == CS_ENOMEM ? CS_EXIT_IO : CS_EXIT_USAGE;
    }
    if (rc == CS_OK) {
        unsigned long long n = 0;
        for (size_t i = 0; i < s->n_agents; i++) n += s->agents[i].count;
        printf("ok: %s (%llu blocks, %llu agents, mechanisms: ", s->name, (unsigned long long)s->blocks, n);
        for (size_t i = 0; i < s->n_mechs; i++) printf("%s%s", i ? ", " : "", s->mechs[i]);
        printf(")\n");
        cs_scenario_free(s);
        cs_errlist_free(&errs);
        return CS_EXIT_OK;
    }
    for (size_t i = 0; i < errs.n; i++) fprintf(stderr, "%s: %s\n", file, errs.msg[i]);
    if (rc == CS_ENOMEM) fprintf(stderr, "%s: %s\n", file, cs_strerror(rc));
    cs_errlist_free(&errs);
    return cs_exit_of(rc);
}
