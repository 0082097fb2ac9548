/*
 * cs_scenario_int.h -- private declarations shared by the pieces of the
 * scenario loader; the public interface is cs_scenario.h.  Nothing outside
 * sim/cs_scenario_*.c includes this header.
 *
 * The pieces (each function's contract is in the comment above its
 * definition):
 *   cs_scenario_parse.c     error list, message text helpers and the typed
 *                           JSON getters that report "JSON.path: constraint"
 *   cs_scenario_validate.c  the format's key tables; params, top-level fields,
 *                           environment and output; the whole-document walk
 *   cs_scenario_agents.c    agents[]: parameters, distributions, strategies
 *   cs_scenario_events.c    events[]
 *   cs_scenario_set.c       --set PATH=VALUE overrides
 *   cs_scenario_load.c      raw text checks; load, load from a file, free
 *   cs_scenario_defaults.c  defaults and effective values (processes, seeds,
 *                           strategies); the table-generated schema $defs
 *   cs_scenario_cmd.c       the `cowsim validate` command
 */
#ifndef CS_SCENARIO_INT_H
#define CS_SCENARIO_INT_H

#include <cjson/cJSON.h>

#include "cs_scenario.h"

/* ------------------------------------------------------------ limits */

#define CS__MAX_TEXT (64u << 20)           /* bytes of scenario JSON (64 MiB) */
#define CS__MAX_DEPTH 32                   /* nesting of objects and lists */
#define CS__MAX_ERRORS 1000                /* messages kept; one more says the rest were cut */
#define CS__MAX_BLOCKS 1000000000ull       /* blocks: [1, 10^9] */
#define CS__MAX_COUNT 1000000ull           /* agents[i].count: [1, 10^6] */
#define CS__MAX_ACTORS 10000000ull         /* actors over all agent entries */
#define CS__MAX_AGENT_ENTRIES 65536        /* entries of agents[] */
#define CS__MAX_EVENTS 100000              /* entries of events[] (each holds a cs_params_t) */
#define CS__MAX_POINTS 1000000             /* breakpoints of one piecewise process */
#define CS__MAX_NAME 128                   /* name, deployer */
#define CS__MAX_DIR 4096                   /* output.dir */
#define CS__MAX_SETS_PATH 256              /* --set PATH length */
#define CS__MAX_WINDOW 1000000000ull       /* durations, flush/weights periods, sample N */
#define CS__MAX_MULT 1e6                   /* demand / volatility multipliers */
#define CS__MAX_FEE 1e18                   /* environment basefees per cycle / cell */
#define CS__JSON_EXACT 9007199254740992.0  /* 2^53: JSON integers from here on lose precision */
#define CS__PATH 600                       /* path buffer; keys are cut to 64 bytes */

/* Defaults that are not parameters (documented in scenarios/schema.json). */
#define CS__DEF_BALANCE 1000000000000000000ull /* agents[i].balance: 10^18 base units */
#define CS__DEF_PATIENCE 20                    /* agents[i].patience: blocks priced out before a cancel */
#define CS__MAX_PATIENCE 1000000000ull         /* agents[i].patience: upper bound */
#define CS__DEF_BASEFEE 1000.0                 /* environment basefee_cycle / basefee_cell */
#define CS__DEF_FLUSH 1000                     /* output.flush_every */
#define CS__DEF_WEIGHTS 100                    /* output.weights_every */

#define CS__N(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ the format */

/* Keys of each object of the format (the JSON Schema lists the same).
 * The validation walk and the --set path resolver both read them. */
static const char *const cs__top_keys[] = {"name",   "description", "seed",   "seeds",  "blocks", "mechanism",
                                           "params", "environment", "agents", "events", "output"};
static const char *const cs__env_keys[] = {"basefee_cycle", "basefee_cell"};
static const char *const cs__proc_keys[] = {"type", "value", "points", "sigma", "min", "max"};
static const char *const cs__agent_keys[] = {"kind",     "count",    "deployer",    "balance", "fee_payer",
                                             "params",   "enter_at", "exit_at",     "value_aware", "patience",
                                             "strategy", "role",     "sys_cancel_after", "sys_extend_within",
                                             "sys_extend_by", "deferred_txs"};
static const char *const cs__event_keys[] = {"at", "type", "params", "mult", "duration", "kinds", "agent"};
static const char *const cs__output_keys[] = {"fires", "flush_every", "weights_every", "dir"};
static const char *const cs__fires_keys[] = {"sample"};

/* ------------------------------------------------------------ validation */

/* State of one validation walk. */
typedef struct cs__ctx {
    cs_errlist_t *e;       /* where messages go */
    cs_scenario_t *s;      /* scenario being filled */
    int oom;               /* an allocation failed */
    int blocks_ok;         /* s->blocks is valid (bounds for at / enter_at) */
    int agents_ok;         /* s->n_agents is the real entry count */
} cs__ctx_t;

/* cs_scenario_parse.c: message text. */
const char *cs__clean(const char *s, char *out, size_t cap);
void cs__pkey(char *out, const char *parent, const char *key);
void cs__pidx(char *out, const char *parent, size_t i);
const char *cs__fmtd(double x, char *buf, size_t cap);

/* cs_scenario_parse.c: reporting and the typed JSON getters (each returns
 * 0 with *out set, or reports at path and returns -1). */
void cs__err(cs__ctx_t *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *cs__tname(const cJSON *j);
const cJSON *cs__item(const cJSON *obj, const char *key);
int cs__first(const cJSON *obj, const cJSON *child);
void cs__keys(cs__ctx_t *c, const cJSON *obj, const char *path, const char *const *names, size_t n, int list,
              const char *what);
int cs__want_obj(cs__ctx_t *c, const cJSON *j, const char *path);
int cs__get_uint(cs__ctx_t *c, const cJSON *j, const char *path, uint64_t lo, uint64_t hi, uint64_t *out);
int cs__get_u128(cs__ctx_t *c, const cJSON *j, const char *path, cs_u128 lo, cs_u128 hi, cs_u128 *out);
int cs__get_u64s(cs__ctx_t *c, const cJSON *j, const char *path, uint64_t *out);
int cs__get_real(cs__ctx_t *c, const cJSON *j, const char *path, double lo, double hi, double *out);
int cs__get_str(cs__ctx_t *c, const cJSON *j, const char *path, size_t maxlen, const char **out);
char *cs__dup(cs__ctx_t *c, const char *s);

/* cs_scenario_validate.c: a "params" object and its cross-parameter
 * checks (also for events), and the walk over the whole document. */
void cs__params(cs__ctx_t *c, const cJSON *obj, const char *path, cs_params_t *p, int in_event);
void cs__params_check(cs__ctx_t *c, const cs_params_t *p, const char *path);
void cs__top(cs__ctx_t *c, const cJSON *root);

/* cs_scenario_agents.c and cs_scenario_events.c: the two lists. */
void cs__agents(cs__ctx_t *c, const cJSON *j);
void cs__events(cs__ctx_t *c, const cJSON *j);

/* ------------------------------------------------------------ the other pieces */

/* cs_scenario_set.c: apply one "PATH=VALUE" to the tree. */
int cs__apply_set(cJSON *root, const char *set, cs_errlist_t *e);

/* cs_scenario_defaults.c: the defaults the walk starts from, and the
 * generated part of scenarios/schema.json's $defs (caller frees with
 * cJSON_Delete; NULL when out of memory). */
void cs__defaults(cs_scenario_t *s);
cJSON *cs__schema_defs(void);

#endif /* CS_SCENARIO_INT_H */
