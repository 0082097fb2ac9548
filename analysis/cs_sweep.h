/*
 * cs_sweep.h -- parameter sweeps: `cowsim sweep SWEEP.json [-j N] [--resume]
 * [-o DIR] [--quiet]` (DESIGN §5 CLI, §7 calibration studies).
 *
 * A sweep file names a base scenario, fixed overrides, the mechanisms, the
 * seeds and a design: a cartesian "grid" of values per scenario path, or a
 * quasi-random "sobol" design over ranges (GSL gsl_qrng_sobol).  One run is
 * one design point x one seed; it runs every mechanism on identical demand
 * and writes DIR/runs/<run_id>/<mechanism>.h5 through the engine
 * (cs_sim_init/step/done, the code path of `cowsim run`).  The summary
 * DIR/sweep.h5 holds a compound table /runs with one row per
 * (run, mechanism): run_id, point, seed, mechanism, one column per swept
 * path, then the metrics of analysis/cs_metrics.h.
 *
 * Sweep JSON (every key checked; errors name the JSON path):
 *   name        string, required
 *   description string, optional
 *   base        path of a scenario file (relative to the sweep file), or an
 *               inline scenario object; required
 *   set         {PATH: VALUE} fixed overrides, applied before the design's
 *   mechanisms  [names], optional; default: the base scenario's list
 *   seeds       [s0, s1, ...] (distinct non-negative integers) or
 *               {"count": N, "start": S} (S default 1); default: the base
 *               scenario's seed
 *   grid        {PATH: [v, ...], ...}: every combination; the last path
 *               varies fastest
 *   sobol       {"n": N, "ranges": {PATH: [lo, hi], ...}, "integer": [PATH]}
 *               the first N points of the Sobol sequence of dimension
 *               |ranges|, x -> lo + u (hi - lo); integer paths take
 *               min(hi, floor(lo + u (hi - lo + 1))), so each integer of
 *               [lo, hi] covers an equal share of [0, 1)
 *   (neither grid nor sobol: one point, the base with the fixed overrides)
 * PATHs use the `--set` notation of cs_scenario.h ("params.lambda",
 * "agents[0].params.rate").
 *
 * Runs are numbered point-major: run r is point r / n_seeds with seed
 * seeds[r % n_seeds]; its run_id is "r" followed by r in at least four
 * digits (the directory name under DIR/runs).
 *
 * DIR/sweep.h5.  /runs is a compound table, one row per (finished run,
 * mechanism), in run order then the sweep's mechanism order:
 *   run_id (fixed string), point (int64), seed (uint64), mechanism (fixed
 *   string, 32 bytes); one column per swept path (float64, or a fixed
 *   string holding the value when a grid path has string or other JSON
 *   values); every run-level metric of CS_METRIC_MAP (float64); then the
 *   per-kind metrics "<metric>.<kind>" of the kinds present in any row
 *   (float64).  Metrics that are unavailable (the run failed, the kind is
 *   absent) are NaN.
 * Root attributes: sweep_json and base_json (texts), name, design,
 * cowsim_version, git_commit (strings), complete (int32: 1 once every run
 * finished without error), n_runs, runs_done, n_points, n_seeds (uint64).
 * The table is rewritten (to sweep.h5.tmp, then renamed) after finished
 * runs, at most so often that rewriting costs a tenth of the time, and at
 * the end, so a killed sweep leaves a readable summary of what finished.
 *
 * --resume keeps the runs whose files all exist with complete = 1 (their
 * metrics are recomputed from the files) and reruns the others; it refuses
 * a DIR whose sweep.h5 records a different sweep or base scenario.
 *
 * MPI.  In a CS_MPI build started by mpirun with more than one rank, rank
 * 0 validates, hands out runs one at a time to the ranks that ask
 * (MPI_Send/MPI_Recv) and writes sweep.h5; the other ranks run them.  With
 * one rank, or without mpirun, the sweep is local (-j worker processes).
 *
 * Ownership: cs_sweep_load / cs_sweep_parse allocate the sweep; free it with
 * cs_sweep_free.  Strings returned by accessors are owned by the sweep.
 */
#ifndef CS_SWEEP_H
#define CS_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "cs_scenario.h"

typedef struct cs_sweep cs_sweep_t;

/* Design kinds. */
typedef enum cs_sweep_design {
    CS_SWEEP_SINGLE = 0, /* no grid, no sobol: one point */
    CS_SWEEP_GRID = 1,   /* cartesian product */
    CS_SWEEP_SOBOL = 2   /* quasi-random, gsl_qrng_sobol */
} cs_sweep_design;

/*
 * Parse and check sweep JSON text.  base_dir is the directory a relative
 * "base" path is resolved against (NULL = the current directory).  Checks
 * the sweep file itself and that the base scenario with the fixed
 * overrides loads; it does not load the design's points (see
 * cs_sweep_check).  Returns CS_OK with *out set, or CS_EPARSE / CS_EINVAL
 * with every problem in errs as "JSON.path: constraint" (CS_EIO when the
 * base file cannot be read, CS_ENOMEM).
 */
int cs_sweep_parse(const char *text, size_t len, const char *base_dir, cs_sweep_t **out,
                   cs_errlist_t *errs);
/* Read the file at path and cs_sweep_parse it (base_dir = path's
 * directory).  CS_EIO if the file cannot be read. */
int cs_sweep_load(const char *path, cs_sweep_t **out, cs_errlist_t *errs);
/* Free; NULL is a no-op. */
void cs_sweep_free(cs_sweep_t *sw);

/*
 * Load the scenario of every design point (base + fixed overrides + the
 * point's values) and report every problem, each prefixed with the point:
 * "point 3 (params.lambda=0.5): params.lambda: must be <= 10".  Returns
 * CS_OK, CS_EINVAL or CS_ENOMEM.
 */
int cs_sweep_check(const cs_sweep_t *sw, cs_errlist_t *errs);

const char *cs_sweep_name(const cs_sweep_t *sw);
const char *cs_sweep_text(const cs_sweep_t *sw);      /* the sweep JSON as given */
const char *cs_sweep_base_text(const cs_sweep_t *sw); /* the base scenario JSON */
cs_sweep_design cs_sweep_design_of(const cs_sweep_t *sw);
size_t cs_sweep_n_points(const cs_sweep_t *sw);
size_t cs_sweep_n_seeds(const cs_sweep_t *sw);
size_t cs_sweep_n_runs(const cs_sweep_t *sw);         /* points x seeds */
size_t cs_sweep_n_mechs(const cs_sweep_t *sw);
const char *cs_sweep_mech(const cs_sweep_t *sw, size_t i);
uint64_t cs_sweep_seed(const cs_sweep_t *sw, size_t i);
/* Swept paths, in the order of the design object. */
size_t cs_sweep_n_params(const cs_sweep_t *sw);
const char *cs_sweep_param_path(const cs_sweep_t *sw, size_t j);
/* The /runs column of path j: dots and brackets become '_', runs of '_'
 * collapse, a trailing '_' is dropped ("agents[0].params.rate" ->
 * "agents_0_params_rate"); a name equal to a fixed or metric column gets
 * the prefix "param_". */
const char *cs_sweep_param_column(const cs_sweep_t *sw, size_t j);
/* 1 if every value of path j is a number or a boolean (a float64 column),
 * 0 if some value is a string or other JSON (a string column). */
int cs_sweep_param_numeric(const cs_sweep_t *sw, size_t j);
/* Value of path j at point p: the number (booleans 0/1; NaN for other JSON). */
double cs_sweep_point_value(const cs_sweep_t *sw, size_t p, size_t j);
/* The --set VALUE text (JSON) of path j at point p: a grid value's text
 * (owned by the sweep), or a Sobol value formatted into buf (cap >= 40).
 * NULL if p or j is out of range. */
const char *cs_sweep_point_text(const cs_sweep_t *sw, size_t p, size_t j, char *buf, size_t cap);

/* Load point p's scenario with seed seed (scn->seed = seed, as
 * `cowsim run --seed`).  Same returns as cs_scenario_load. */
int cs_sweep_point_scenario(const cs_sweep_t *sw, size_t p, uint64_t seed, cs_scenario_t **out,
                            cs_errlist_t *errs);
/* "r0007": the run_id (directory name) of run r into buf; returns buf. */
char *cs_sweep_run_id(const cs_sweep_t *sw, size_t r, char *buf, size_t cap);


#endif /* CS_SWEEP_H */
