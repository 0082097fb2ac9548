/*
 * cs_metrics.h -- the metrics researchers judge mechanisms by (DESIGN §6),
 * computed from HDF5 run files; every metric is defined in
 * analysis/README.md.
 *
 * A run's metrics are a flat list of named doubles (CS_METRIC_MAP), so
 * `cowsim compare` prints them as columns, `cowsim check` addresses them by
 * name in baselines, and sweeps store them as columns of /runs.  Per-kind
 * metrics are named "<metric>.<agent kind>", e.g. "delay_p99.oracle".
 *
 * Ownership: cs_metrics_compute fills a caller-owned cs_metrics_t; nothing
 * to free.
 */
#ifndef CS_METRICS_H
#define CS_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* Run-level metrics: X(name, doc). */
#define CS_METRIC_MAP(X)                                                                      \
    X(blocks, "blocks simulated")                                                             \
    X(complete, "1 if the run finished")                                                      \
    X(timers, "timers scheduled")                                                             \
    X(fires, "fires")                                                                         \
    X(censored, "timers never fired by the close (pending, expired or dropped)")              \
    X(delay_p50, "fire delay median, blocks (fired timers)")                                  \
    X(delay_p95, "fire delay 95th percentile")                                                \
    X(delay_p99, "fire delay 99th percentile")                                                \
    X(delay_max, "fire delay maximum")                                                        \
    X(burn, "base units burned (lane, cycle and cell basefees)")                             \
    X(tips, "priority tips to the proposer")                                                  \
    X(payments, "auction payments")                                                           \
    X(revenue_proposer, "everything paid to the proposer")                                    \
    X(welfare, "sum over fires of the agents' value at the realised delay")                   \
    X(paid, "sum paid by agents")                                                             \
    X(utility, "welfare - paid")                                                              \
    X(efficiency, "welfare / welfare_opt (the offline optimum of the same realised demand)")   \
    X(poa, "price of anarchy estimate: welfare_opt / welfare")                                \
    X(welfare_opt, "offline welfare optimum of the realised demand, or an upper bound of it") \
    X(opt_exact, "1 if welfare_opt is the exact optimum (efficiency vs the optimum), 0 if an upper bound (lp, lagrangian: efficiency vs the bound, a lower bound of the true efficiency)") \
    X(bound_gap, "welfare_opt's bound against the exact optimum on sampled windows, (bound - exact) / exact; 0 when welfare_opt is exact, NaN when not sampled") \
    X(efficiency_greedy, "welfare / welfare of the greedy reference run (NaN without one)")  \
    X(jain, "Jain's index over per-actor service 1/(1 + mean delay)")                         \
    X(gini, "Gini coefficient over per-actor fires")                                          \
    X(var_util_per_bid, "var(utility_i / bid_i) over actors (CIP-5 §9.6)")                    \
    X(var_eff_per_bid, "var(efficiency_i / bid_i) over actors (CIP-5 §9.6)")                  \
    X(w_p10, "W(actor) 10th percentile, averaged over samples")                               \
    X(w_p50, "W(actor) median, averaged over samples")                                        \
    X(w_p90, "W(actor) 90th percentile, averaged over samples")                               \
    X(basefee_mean, "mean lane basefee")                                                      \
    X(basefee_cv, "coefficient of variation of the lane basefee")                             \
    X(util_mean, "time-average lane utilisation")                                             \
    X(full_share, "share of blocks with utilisation >= 0.95")                                 \
    X(empty_share, "share of blocks with no fire")                                            \
    X(reversals, "direction reversals of the clearing price (sawtooth count)")                \
    X(attack_gain, "attacker service per unit paid / honest service per unit paid")             \
    X(bias_slack_violated, "share of the blocks with a deferred candidate whose CIP-5 §9.3 invariant slack is < 0 (bias rules)") \
    X(bias_slack_deficit, "mean over those blocks of max(0, -slack): how far below §9.3's invariant, base units a block")

enum {
#define CS__METRIC_ENUM(name, doc) CS_M_##name,
    CS_METRIC_MAP(CS__METRIC_ENUM)
#undef CS__METRIC_ENUM
    CS_M__COUNT
};

/* Per-agent-kind metrics: X(name, doc); named "<name>.<kind>". */
#define CS_KIND_METRIC_MAP(X)                                                                 \
    X(fires, "fires of this kind")                                                            \
    X(censored, "timers of this kind never fired")                                            \
    X(delay_p50, "delay median")                                                              \
    X(delay_p99, "delay 99th percentile")                                                     \
    X(delay_max, "delay maximum")                                                             \
    X(paid, "sum paid")                                                                       \
    X(utility, "value - paid")                                                                \
    X(svc_per_paid, "mean over agent instances of fires / max(paid, 1) (attack gain input)")

enum {
#define CS__KMETRIC_ENUM(name, doc) CS_KM_##name,
    CS_KIND_METRIC_MAP(CS__KMETRIC_ENUM)
#undef CS__KMETRIC_ENUM
    CS_KM__COUNT
};

#define CS_METRIC_KINDS 13

/* Where the delay quantiles and Jain's index came from (analysis/README.md
 * "Fallbacks"). */
typedef enum cs_metrics_src {
    CS_METRICS_SRC_FIRES = 0,  /* computed from every /fires row (output.fires = all) */
    CS_METRICS_SRC_SUMMARY = 1 /* /fires off or sampled: /summary rows and the root attribute jain */
} cs_metrics_src;

typedef struct cs_metrics {
    char mechanism[32];                               /* root attribute */
    uint64_t seed;                                    /* root attribute */
    double v[CS_M__COUNT];                            /* run-level values */
    double k[CS_METRIC_KINDS][CS_KM__COUNT];          /* per kind */
    int kind_present[CS_METRIC_KINDS];                /* kind had actors */
    char scenario[128];                               /* "name" of the root scenario_json ("" if none) */
    int fires_mode;                                   /* cs_h5_fires_mode of the file (root fires_mode) */
    uint64_t fires_sample_every;                      /* root fires_sample_every (1 unless sampled) */
    int delay_src;                                    /* cs_metrics_src of delays and jain */
    int has_greedy;                                   /* 1 if efficiency_greedy uses a matching greedy run */
    int opt_method;                                   /* cs_opt_method of welfare_opt, -1 when not computed */
    uint64_t opt_vars;                                /* variables of the optimum's problem */
    uint64_t gap_windows;                             /* bound_gap: windows sampled (0: none) */
    uint64_t gap_solved;                              /* of them solved exactly */
    uint64_t gap_width;                               /* blocks a window */
    double gap_max;                                   /* the largest gap of one window (NaN: none) */
    char lambda_loop[16];                             /* root lambda_loop: off, share, invariant ("" in older files) */
    char note[512];                                   /* warnings for the user ("" if none): fallbacks, greedy mismatch */
} cs_metrics_t;

/*
 * Compute the metrics of run file `path`.  `greedy_path` (may be NULL) is
 * the `greedy` mechanism's file for the same scenario and seed; without it
 * efficiency and poa are NaN.  Returns 0, or a cs_err code with a message
 * in err.
 */
int cs_metrics_compute(const char *path, const char *greedy_path, cs_metrics_t *m, char *err,
                       size_t errcap);

/* cs_metrics_compute, and with conv non-NULL the run's root attribute
 * convergence (JSON text, sim/cs_converge.h; malloc'd, the caller frees;
 * NULL when the run has none) in *conv, read from the same open file. */
int cs_metrics_compute_conv(const char *path, const char *greedy_path, cs_metrics_t *m, char **conv, char *err,
                            size_t errcap);

/* The sample of windows bound_gap measures on (cs_opt_gap; process-wide,
 * set by the commands before computing; CS_OPT_GAP_DEFAULT until then).
 * windows 0 turns the measurement off (bound_gap NaN for bound runs). */
struct cs_opt_gap_cfg;
void cs_metrics_set_gap(const struct cs_opt_gap_cfg *cfg);

/* Command-line options of the commands that compute metrics: if argv[*i]
 * is --gap-windows N (N >= 0; 0 turns the measurement off) or --gap-width
 * W (W >= 1), decimal, set that part of the process-wide sample
 * (cs_metrics_set_gap), advance *i past the argument and return 1; 0
 * otherwise (the caller then treats argv[*i] as unexpected). */
int cs_metrics_gap_arg(int argc, char **argv, int *i);

/* Which benchmark efficiency and poa used (README "Welfare optimum"), as
 * text for compare and check: the optimum's method and the constraints it
 * applied (DESIGN-NOTES N57: one benchmark for every mechanism that faces
 * the lane), "the exact optimum ..." or "an upper bound of the optimum
 * ..." with its gap on the sampled windows.  Writes buf (400 bytes hold
 * it). */
void cs_metrics_benchmark_text(const cs_metrics_t *m, char *buf, size_t cap);

/* What efficiency is measured against, for labels: "optimum" (opt_exact
 * 1), "bound" (0), or NULL when welfare_opt was not computed. */
const char *cs_metrics_efficiency_vs(const cs_metrics_t *m);

/* Flat access: every metric as (name, value), run-level first, then per
 * kind for present kinds.  cs_metrics_n counts them for m. */
size_t cs_metrics_n(const cs_metrics_t *m);
const char *cs_metrics_name(const cs_metrics_t *m, size_t i, char *buf, size_t cap);
double cs_metrics_value(const cs_metrics_t *m, size_t i);
/* Look up by name; returns 0 and the value, or -1 if unknown.  A valid
 * per-kind name whose kind is absent from the run gives 0 and NaN. */
int cs_metrics_get(const cs_metrics_t *m, const char *name, double *v);
/* A metric value as the text tables of `compare` and `report` print it:
 * 4 significant digits ("%.4g") with the exponent written short
 * ("7.498e12", "1.5e-5": no '+', no leading zeros), "-" for NaN and
 * infinities.  Writes buf (a cap of 32 holds any value) and returns it. */
const char *cs_metrics_fmt(char *buf, size_t cap, double v);

/* One-line description of metric `name` (run-level or "<metric>.<kind>"),
 * or NULL if the name is unknown.  Static storage. */
const char *cs_metrics_doc(const char *name);

/* The file "greedy.h5" (else a pre-N42 "oracle.h5") in the directory of
 * run_path, written into buf, if it exists; NULL otherwise (or if it does
 * not fit in cap). */
const char *cs_metrics_find_greedy(const char *run_path, char *buf, size_t cap);

/*
 * Internal to analysis/ (compare, check): 1 if text is one well-formed JSON
 * value, with only whitespace around it, that cJSON_Parse accepts (RFC
 * 8259, \u escapes pairing surrogates, numbers of at most 63 characters,
 * nesting within CJSON_NESTING_LIMIT); 0 otherwise.  It allocates nothing,
 * so after cJSON_Parse(text) returned NULL a 1 here means the parse ran
 * out of memory rather than meeting malformed text.  (It is stricter than
 * cJSON in places -- a byte-order mark, trailing text, raw control
 * characters in strings -- so it can only err towards "malformed".)
 */
int cs__json_wellformed(const char *text);

/* Statistics used above, exposed for tests (analysis/README.md).
 * Jain: (sum x)^2 / (n sum x^2); Gini: sum_ij |x_i - x_j| / (2 n^2 mean).
 * Both return NaN for n == 0 or an all-zero x. */
double cs_stat_jain(const double *x, size_t n);
double cs_stat_gini(const double *x, size_t n);
/* Quantile with GSL's definition (gsl_stats_quantile_from_sorted_data);
 * sorts x in place first.  NaN when n == 0. */
double cs_stat_quantile(double *x, size_t n, double q);
/* Bootstrap confidence interval of the mean: B resamples, level (e.g. 0.95).
 * Percentile interval over the B resample means, drawn from the PCG64-DXSM
 * stream cs_rng_stream(seed, 0); lo = hi = NaN when n == 0 or B == 0.
 * Returns 0, or CS_ENOMEM (lo = hi = NaN too) when the resample means or
 * the RNG could not be allocated -- a NaN a caller must not take for "no
 * interval". */
int cs_stat_bootstrap_mean(const double *x, size_t n, unsigned B, double level, uint64_t seed, double *lo,
                           double *hi);

#endif /* CS_METRICS_H */
