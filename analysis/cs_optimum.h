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
 * Methods (GLPK, glpk.h), chosen by the number of variables (pairs (j, h)
 * with a positive value that the cap and budget allow):
 *   CS_OPT_ILP      up to limits.ilp_max_vars: the exact integer optimum
 *                   (branch and bound, glp_intopt), recomputed from the
 *                   chosen assignment;
 *   CS_OPT_LP       up to limits.lp_max_vars: the LP relaxation (x in
 *                   [0, 1]), an upper bound of the optimum; also used when
 *                   the ILP hits its time limit;
 *   CS_OPT_ROLLING  beyond: the heights are cut into consecutive segments
 *                   of at most limits.lp_max_vars variables and the LP
 *                   relaxations of the segments are added.  Each segment
 *                   keeps "at most once" for its own heights only, so a job
 *                   whose window crosses a segment boundary may count in
 *                   both: the sum is still an upper bound of the optimum
 *                   (a relaxation of it), looser when waits are long
 *                   compared with a segment.
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
} cs_opt_problem_t;

typedef struct cs_opt_limits {
    size_t ilp_max_vars; /* exact ILP up to this many variables (default 5,000) */
    size_t lp_max_vars;  /* one LP up to this many; also the segment size (default 60,000) */
    int ilp_time_ms;     /* branch-and-bound time limit (default 20,000 ms) */
} cs_opt_limits_t;
#define CS_OPT_LIMITS_DEFAULT {5000, 60000, 20000}

typedef enum cs_opt_method {
    CS_OPT_NONE = 0,    /* nothing to solve (no variable): welfare 0, exact */
    CS_OPT_ILP = 1,     /* exact integer optimum */
    CS_OPT_LP = 2,      /* LP relaxation upper bound */
    CS_OPT_ROLLING = 3  /* sum of segment LP relaxations: upper bound */
} cs_opt_method;

typedef struct cs_opt_result {
    double welfare;   /* the optimum (ILP, NONE) or an upper bound of it */
    int method;       /* cs_opt_method */
    size_t vars;      /* variables x_{j,h} */
    size_t segments;  /* problems solved (1 unless ROLLING) */
} cs_opt_result_t;

/* Name of a method: "none", "ilp", "lp", "rolling-lp". */
const char *cs_opt_method_name(int method);

/* v_j(d) of the model above. */
double cs_opt_value(const cs_opt_job_t *j, uint64_t delay);

/* Solve p (limits may be NULL: the defaults).  Returns 0, CS_ENOMEM, or
 * CS_EINVAL when GLPK fails to solve a relaxation (message in err). */
int cs_opt_solve(const cs_opt_problem_t *p, const cs_opt_limits_t *limits, cs_opt_result_t *out, char *err,
                 size_t errcap);

#endif /* CS_OPTIMUM_H */
