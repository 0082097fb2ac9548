/*
 * cs_optimum.h -- the offline welfare optimum of a run's realised demand
 * (analysis/README.md "Welfare optimum"), the benchmark of `efficiency`
 * and `poa`.
 *
 * The problem.  Jobs j (one per fire opportunity of the realised demand)
 * may fire at most once, at a height h in [due_j, last_j], for the value
 * v_j(h - due_j).  Every block h has a lane budget (sum of the gas limits
 * of its fires <= budget_h), a per-fire cap (a job whose gas limit is above
 * cap_h cannot fire at h), a block quota (at most quota_block_h fires) and
 * a per-actor quota (at most quota_actor_h fires of one owner actor).  The
 * optimum maximises the sum of the values:
 *
 *   max  sum_{j,h} v_j(h - due_j) x_{j,h}
 *   s.t. sum_h x_{j,h} <= 1                        for every job j
 *        sum_j gas_j x_{j,h} <= budget_h            for every block h
 *        sum_j x_{j,h} <= quota_block_h             (when set)
 *        sum_{j of actor a} x_{j,h} <= quota_actor_h (when set)
 *        x_{j,h} in {0, 1}
 *
 * Methods, chosen by the number of variables (pairs (j, h) with a
 * positive value that the cap and budget allow):
 *   CS_OPT_FREE     no block constraint binds (no budget, no quota: fifo):
 *                   each job at its best height, exactly;
 *   CS_OPT_ILP      up to limits.ilp_max_vars: the exact integer optimum
 *                   (GLPK branch and bound, glp_intopt), summed from the
 *                   chosen assignment;
 *   CS_OPT_LP       up to limits.lp_max_vars: the LP relaxation (x in
 *                   [0, 1], GLPK simplex), an upper bound; also when the
 *                   ILP hits its time limit;
 *   CS_OPT_LAGRANGE beyond: the Lagrangian relaxation of the budgets and
 *                   block quotas (per-actor quotas dropped), its
 *                   multipliers improved by subgradient steps; every
 *                   multiplier vector gives an upper bound and the smallest
 *                   is kept.  (A rolling-horizon sum of segment LPs was
 *                   tried first and rejected: a job whose window spans many
 *                   segments counts in each, 85x the welfare on the default
 *                   scenario; the Lagrangian bound decomposes per block and
 *                   per job without that double count.)
 * Every method returns a value >= the true optimum (equal for CS_OPT_ILP),
 * so no allocation of the same demand -- any mechanism's -- can exceed it.
 */
#ifndef CS_OPTIMUM_H
#define CS_OPTIMUM_H

#include <stddef.h>
#include <stdint.h>

/* One job: a fire opportunity of the realised demand. */
typedef struct cs_opt_job {
    uint64_t due;      /* first height it may fire at */
    uint64_t last;     /* last height it may fire at (>= due, else it never can) */
    uint64_t gas;      /* cycles the lane budget reserves for it (gas limit) */
    uint32_t actor;    /* owner actor (per-actor quota) */
    double value;      /* value model: v(d) = max(0, value e^(-rate d) - decay d), */
    double decay;      /*   0 when deadline != 0 and d > deadline */
    double rate;
    uint64_t deadline;
} cs_opt_job_t;

/* The constraints of one block. */
typedef struct cs_opt_block {
    uint64_t budget;      /* lane cycles; UINT64_MAX = unlimited, 0 = nothing fires (lane paused) */
    uint64_t cap;         /* largest gas limit that may fire; UINT64_MAX = no cap */
    uint32_t quota_block; /* fires per block; 0 = unlimited */
    uint32_t quota_actor; /* fires per owner actor per block; 0 = unlimited */
} cs_opt_block_t;

typedef struct cs_opt_problem {
    const cs_opt_job_t *jobs;     /* n_jobs jobs */
    size_t n_jobs;
    uint64_t h0;                  /* height of blocks[0] */
    const cs_opt_block_t *blocks; /* heights h0 .. h0 + n_blocks - 1; jobs are clipped to them */
    size_t n_blocks;
    double lower;                 /* a known feasible welfare (0 if none): steers CS_OPT_LAGRANGE */
} cs_opt_problem_t;

typedef struct cs_opt_limits {
    size_t ilp_max_vars; /* exact ILP up to this many variables (default 5,000) */
    size_t lp_max_vars;  /* LP relaxation up to this many, Lagrangian beyond (default 20,000) */
    int ilp_time_ms;     /* branch-and-bound time limit (default 20,000 ms) */
} cs_opt_limits_t;
#define CS_OPT_LIMITS_DEFAULT {5000, 20000, 20000}

typedef enum cs_opt_method {
    CS_OPT_NONE = 0,    /* nothing to solve (no variable): welfare 0, exact */
    CS_OPT_ILP = 1,     /* exact integer optimum */
    CS_OPT_LP = 2,      /* LP relaxation upper bound */
    CS_OPT_LAGRANGE = 3, /* Lagrangian relaxation: upper bound */
    CS_OPT_FREE = 4      /* nothing binds: each job at its best height, exact */
} cs_opt_method;

typedef struct cs_opt_result {
    double welfare;   /* the optimum (ILP, NONE) or an upper bound of it */
    int method;       /* cs_opt_method */
    size_t vars;      /* variables x_{j,h} */
} cs_opt_result_t;

/* Name of a method: "none", "ilp", "lp", "lagrangian", "unconstrained". */
const char *cs_opt_method_name(int method);
/* 1 if the method gives the optimum itself (none, ilp, unconstrained). */
int cs_opt_exact(int method);
/* v_j(d) of the model above. */
double cs_opt_value(const cs_opt_job_t *j, uint64_t delay);

/* Solve p (limits may be NULL: the defaults).  Returns 0, CS_ENOMEM, or
 * CS_EINVAL when GLPK fails to solve a relaxation (message in err). */
int cs_opt_solve(const cs_opt_problem_t *p, const cs_opt_limits_t *limits, cs_opt_result_t *out, char *err,
                 size_t errcap);

/*
 * The optimum of a finished run (analysis/README.md "Welfare optimum"),
 * from its /blocks, /fires and /timers rows and its mechanism:
 *   jobs: every /fires row (due height, gas limit, owner of the fire; the
 *         value model of its timer, joined by timer_id), then every
 *         /timers row that never fired, was not rejected and is not a
 *         WATCH (a watch that never fired may never have been triggered),
 *         due by the last block; each may fire from its due height to its
 *         expires_at (TTL), the last block, and -- when cancelled -- the
 *         block before the cancel;
 *   blocks: /blocks.lane_budget, fire_cap, quota_block, quota_actor, all
 *         applied for every mechanism that faces the lane, none for the
 *         unbounded `fifo` reference (cs_opt_rules, DESIGN-NOTES N57).
 * The realised allocation is one feasible solution, so welfare <= the
 * result.  *usable = 0 with the reason in why (and CS_OK) when the file
 * cannot give the optimum: fires not all recorded, a file written before
 * these columns, a fire without its timer row, an agent value function
 * outside the model, or a /fires.value the model does not reproduce.
 */
struct cs_h5_block;
struct cs_h5_fire;
struct cs_h5_timer;
int cs_opt_run(const char *mechanism, const struct cs_h5_block *b, size_t nb, const struct cs_h5_fire *f,
               size_t nf, const struct cs_h5_timer *t, size_t nt, const cs_opt_limits_t *limits,
               cs_opt_result_t *out, int *usable, char *why, size_t whycap);

/* cs_opt_run's problem without solving it: *p gets the run's jobs and
 * blocks, p->lower the realised welfare, and *fired (may be NULL) for
 * every job the height it fired at in the run (0: it did not).  The arrays
 * are malloc'd here and released by cs_opt_problem_free(p, *fired).
 * Returns and sets *usable as cs_opt_run (usable 0: nothing allocated). */
int cs_opt_run_problem(const char *mechanism, const struct cs_h5_block *b, size_t nb, const struct cs_h5_fire *f,
                       size_t nf, const struct cs_h5_timer *t, size_t nt, cs_opt_problem_t *p, uint64_t **fired,
                       int *usable, char *why, size_t whycap);
void cs_opt_problem_free(cs_opt_problem_t *p, uint64_t *fired);

/*
 * The bound's gap (analysis/README.md "Bound gap").  When a run's
 * welfare_opt is an upper bound (methods lp, lagrangian), its looseness is
 * measured on a sample of windows of the run, each a problem of its own:
 * `windows` windows of `width` consecutive blocks, placed at fixed strides
 * -- window i of K starts at block floor(i (n_blocks - width) / (K - 1))
 * (one window: the middle; a run of at most `width` blocks: the whole run,
 * one window) -- with every job whose [due, last] meets the window,
 * clipped to it (a job due before the window keeps the value of its
 * delay; one that could fire after it is limited to the window).  Each
 * window is solved twice: exactly (GLPK branch and bound, when it has at
 * most max_vars variables; ilp_time_ms is a safety net) and by the bound's method (`method`, lp or lagrangian, the
 * Lagrangian steered, as for the run, by the realised fires inside the
 * window: `fired`, may be NULL).  gap = (bound - exact) / exact over the windows solved exactly
 * (sums), >= 0 up to rounding.  A window's optimum is not the run's
 * optimum restricted to it (the boundary frees jobs the run's optimum
 * fires outside), so the gap describes the bound on problems of the run's
 * kind, not the run's bound itself.  Deterministic.
 */
typedef struct cs_opt_gap_cfg {
    size_t windows;  /* windows sampled (0: none) */
    size_t width;    /* blocks a window */
    int ilp_time_ms; /* branch-and-bound time limit a window: a safety net only (a window that hits it is
                      * unsolved, which depends on the machine's speed) */
    size_t max_vars; /* a window of more variables is not solved exactly (deterministic) */
} cs_opt_gap_cfg_t;
#define CS_OPT_GAP_DEFAULT {0, 4, 20000, 1000}

typedef struct cs_opt_gap_window {
    uint64_t h0;       /* first height */
    size_t blocks;     /* its blocks */
    size_t jobs;       /* jobs that meet it */
    size_t vars;       /* variables of its problem */
    double exact;      /* its optimum (exact = 1) or the relaxation when the ILP timed out */
    int solved;        /* 1 when exact is the optimum */
    double bound;      /* the bound's method on it */
} cs_opt_gap_window_t;

typedef struct cs_opt_gap {
    int method;        /* the bound's method (cs_opt_method) */
    size_t windows;    /* windows sampled */
    size_t solved;     /* of them solved exactly */
    size_t width;      /* blocks a window (the last may be shorter: the whole run) */
    double exact_sum;  /* sum of the optima of the solved windows */
    double bound_sum;  /* sum of their bounds */
    double gap;        /* (bound_sum - exact_sum) / exact_sum; NaN without a solved window of welfare > 0 */
    double gap_max;    /* largest (bound - exact) / exact of one solved window (NaN: none) */
} cs_opt_gap_t;

/* The gap of method (CS_OPT_LP or CS_OPT_LAGRANGE) on problem p with
 * cfg (NULL: CS_OPT_GAP_DEFAULT); fired (NULL: none) the height each job
 * fired at in the run (0: it did not); win (may be NULL) receives the
 * windows (cfg->windows entries).  Returns CS_OK, CS_ENOMEM or CS_EINVAL
 * (GLPK failed, message in err; a method that is not a bound). */
int cs_opt_gap(const cs_opt_problem_t *p, const uint64_t *fired, int method, const cs_opt_gap_cfg_t *cfg,
               cs_opt_gap_t *out, cs_opt_gap_window_t *win, char *err, size_t errcap);

/* Which per-block constraints the benchmark of mechanism name applies:
 * the lane budget, the per-fire cap and the quotas together for every
 * mechanism with the CS_MF_BUDGET flag (one benchmark for a comparison),
 * none for the unbounded `fifo` reference (DESIGN-NOTES N57).  Returns 0,
 * or -1 for an unknown mechanism. */
int cs_opt_rules(const char *mechanism, int *budget, int *cap, int *quotas);

#endif /* CS_OPTIMUM_H */
