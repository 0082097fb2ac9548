/*
 * cs_scenario.h -- a parsed and validated scenario (DESIGN §5 "Scenario
 * JSON"; the full format is documented in scenarios/schema.json).
 *
 * cs_scenario_load parses JSON text with cJSON, checks every key, type,
 * range and cross-field constraint, and reports ALL errors at once, each as
 * "JSON.path: constraint" (e.g. "agents[2].params.rate: must be > 0").
 * Overrides given as --set PATH=VALUE are applied to the JSON tree before
 * validation, so they are checked like the file itself.
 *
 * Ownership: cs_scenario_load allocates *out; free it with
 * cs_scenario_free.  The error list is owned by the caller's cs_errlist_t
 * and freed with cs_errlist_free.
 */
#ifndef CS_SCENARIO_H
#define CS_SCENARIO_H

#include "cs_agent.h"
#include "cs_params.h"

#define CS_MAX_MECHS 16
#define CS_MAX_SEEDS 1000 /* "seeds": at most this many runs per mechanism */

/* Accumulated validation errors. */
typedef struct cs_errlist {
    char **msg;   /* "path: constraint" strings, malloc'd */
    size_t n, cap;
    size_t lost;  /* messages dropped for want of memory: a caller that
                   * counts messages to tell valid from invalid must also
                   * count these (and report out of memory) */
} cs_errlist_t;
void cs_errlist_add(cs_errlist_t *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cs_errlist_free(cs_errlist_t *e);

/* An environment process for one CIP-3 quantity (D13). */
typedef enum cs_proc_type { CS_PROC_CONSTANT = 0, CS_PROC_PIECEWISE = 1, CS_PROC_WALK = 2 } cs_proc_type;
typedef struct cs_proc {
    cs_proc_type type;  /* constant | piecewise | random_walk */
    double value;       /* constant value, or the walk's start */
    double *at_h;       /* piecewise: breakpoints (heights, ascending) */
    double *at_v;       /* piecewise: value from that height on */
    size_t n_pts;       /* breakpoints */
    double sigma;       /* random walk: relative step std-dev per block */
    double min, max;    /* random walk: bounds */
} cs_proc_t;

typedef struct cs_scn_agent {
    const cs_agent_ops_t *ops; /* kind */
    uint32_t count;            /* instances (each its own RNG stream and actor(s)) */
    char *deployer;            /* deployer name; NULL = each instance deploys itself */
    cs_u128 balance;           /* initial balance per actor, base units */
    double balance_fires;      /* > 0: balance given as {"fires": N}, resolved per run
                                * (N x the agent's expected price of a fire at the start) */
    int fee_payer_deployer;    /* 1: the deployer pays fees (fee_payer = "deployer") */
    double *params;            /* ops->n_params values, defaults filled */
    cs_dist_t *dists;          /* NULL, or ops->n_params entries: a distribution object given
                                * for that parameter, kind CS_DIST_NONE otherwise (owned) */
    uint64_t enter_at;         /* first active height (0 = from the start) */
    uint64_t exit_at;          /* last active height (0 = never exits) */
    cs_agent_policy_t pol;     /* value_aware (default: kind != default_gba), patience */
    cs_strategy_t *strat;      /* bidding strategy, NULL = the kind's own pricing (owned) */
    cs_strategy_t *strat_by;   /* strategy per mechanism ("strategy": {MECH: ...}; owned) */
    const char **strat_mech;   /* strat_by[i]'s mechanism (registry names, static) */
    size_t n_strat_by;
    int attacker;              /* "role": 1 = attacker (removed by run --harm), 0 = honest */
} cs_scn_agent_t;

typedef enum cs_event_type {
    CS_EV_PARAMS = 0,      /* governance parameter change */
    CS_EV_DEMAND_SHOCK,    /* demand multiplier over a window for chosen kinds */
    CS_EV_LANE_PAUSE,      /* no timer lane for N blocks, then the backlog */
    CS_EV_ACTOR_ENTRY,     /* agents[i] become active */
    CS_EV_ACTOR_EXIT,      /* agents[i] stop acting */
    CS_EV_VOLATILITY       /* liquidation-bot volatility multiplier over a window */
} cs_event_type;

typedef struct cs_scn_event {
    uint64_t at;              /* height it takes effect */
    cs_event_type type;
    cs_params_t params;       /* PARAMS: full parameter set after the change */
    double mult;              /* DEMAND_SHOCK / VOLATILITY multiplier */
    uint64_t duration;        /* DEMAND_SHOCK / VOLATILITY / LANE_PAUSE blocks */
    uint32_t kinds_mask;      /* DEMAND_SHOCK: bit per cs_agent_kind (0 = all) */
    uint32_t agent;           /* ACTOR_ENTRY / EXIT: index into agents[] */
} cs_scn_event_t;

typedef enum cs_fires_mode { CS_FIRES_ALL = 0, CS_FIRES_SAMPLE = 1, CS_FIRES_OFF = 2 } cs_fires_mode;

typedef struct cs_scn_output {
    cs_fires_mode fires;     /* per-fire rows: all | sample | off */
    uint32_t sample_every;   /* sample: keep 1 in N fires */
    uint64_t flush_every;    /* blocks between HDF5 flushes (SIGKILL bound) */
    uint64_t weights_every;  /* blocks between /weights samples */
    char *dir;               /* default output dir (NULL = "results/<name>") */
} cs_scn_output_t;

typedef struct cs_scenario {
    char *name;               /* scenario name */
    char *text;               /* the JSON text as loaded (with overrides applied) */
    uint64_t seed;            /* master seed */
    size_t n_seeds;           /* "seeds": runs per mechanism (0 = absent: one run, seed) */
    uint64_t *seed_list;      /* "seeds" as a list (owned), or NULL for a count */
    uint64_t blocks;          /* blocks to simulate */
    const char *mechs[CS_MAX_MECHS]; /* mechanism names, run on identical demand */
    size_t n_mechs;
    cs_params_t params;       /* parameters at height 0 */
    cs_proc_t basefee_cycle;  /* environment (D13) */
    cs_proc_t basefee_cell;
    cs_scn_agent_t *agents;   /* agent entries */
    size_t n_agents;
    cs_scn_event_t *events;   /* sorted by at, stable */
    size_t n_events;
    cs_scn_output_t output;
} cs_scenario_t;

/*
 * Parse and validate.  sets/n_sets are "PATH=VALUE" overrides (PATH in dot
 * and [i] notation, VALUE a JSON literal, or a bare string).  Returns CS_OK,
 * or CS_EPARSE / CS_EINVAL with every problem in errs (CS_ENOMEM on
 * allocation failure).
 */
/* The strategy entry sa uses under mechanism mech: its per-mechanism one,
 * else its single one, else NULL (the kind's own pricing). */
const cs_strategy_t *cs_scn_agent_strategy(const cs_scn_agent_t *sa, const char *mech);

/* Seed i (< n_seeds) of the scenario's "seeds": seed_list[i], or seed + i
 * when "seeds" is a count. */
uint64_t cs_scenario_seed(const cs_scenario_t *s, size_t i);

int cs_scenario_load(const char *json_text, size_t len, const char *const *sets, size_t n_sets,
                     cs_scenario_t **out, cs_errlist_t *errs);
int cs_scenario_load_file(const char *path, const char *const *sets, size_t n_sets,
                          cs_scenario_t **out, cs_errlist_t *errs);
void cs_scenario_free(cs_scenario_t *s);

/* Value of an environment process at height h (deterministic; the random
 * walk draws from its own stream derived from the scenario seed). */
double cs_proc_value(const cs_proc_t *p, uint64_t h, double *walk_state, gsl_rng *r);

#endif /* CS_SCENARIO_H */
