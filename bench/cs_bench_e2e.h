/*
 * cs_bench_e2e.h -- `cowsim bench e2e` and `bench memory` (bench/cs_bench_e2e.c).
 */
#ifndef CS_BENCH_E2E_H
#define CS_BENCH_E2E_H

#include <stddef.h>
#include <stdint.h>

#include "cs_bench_out.h"
#include "cs_engine.h"
#include "cs_scenario.h"

/* What one run of a scenario measured (cs_bench_run_scenario). */
typedef struct cs_bench_run {
    double wall_ns;      /* cs_sim_init .. cs_sim_done */
    double cpu_s;        /* user + system CPU of the process over the run (all threads) */
    double main_cpu_s;   /* CPU time of the calling (main) thread over the run */
    double h5_ns;        /* main-thread wall time inside cs_h5_* */
    uint64_t fires;      /* fires of every kind */
    uint64_t timers;     /* timers scheduled */
    uint64_t blocks;     /* blocks run (measured: after the warm-up) */
    uint64_t warm;       /* warm-up blocks run before the measured ones (cs_bench_run_warm) */
    uint64_t actors;     /* actors of every kind */
    uint64_t pending;    /* pending timers after the last block */
    uint64_t carried;    /* sum over blocks of the timers deferred and carried after each */
    cs_sim_mem_t mem;    /* per-timer structures after the last block */
    double rss_end;      /* resident set size after the last block, bytes */
} cs_bench_run_t;

/* Load the scenario at path with the --set overrides sets[0..n_sets) into
 * *out (freed by the caller with cs_scenario_free).  Returns CS_OK, or an
 * error after the loader's messages on stderr. */
int cs_bench_load_scenario(const char *path, const char *const *sets, size_t n_sets, cs_scenario_t **out);

/* Load the scenario at path with the --set overrides sets[0..n_sets), run
 * it once under eip1559 (the sets may not change that) writing out_path,
 * and fill *r.  Returns CS_OK, or an error after a message on stderr. */
int cs_bench_run_scenario(const char *path, const char *const *sets, size_t n_sets,
                          const char *out_path, cs_bench_run_t *r);
/* The same with the first `warm` blocks (fewer than the scenario's) run
 * unmeasured: every figure of *r but pending, mem and rss_end covers the
 * blocks after them (CPU, wall time, timers, fires, carried, blocks); with
 * full_after the core takes the full re-ranking from block warm + 1 on
 * (cs_sim_full_ranking).  The warm-up lets a workload's start-up
 * transient pass before it is timed. */
int cs_bench_run_warm(const char *path, const char *const *sets, size_t n_sets, const char *out_path,
                      uint64_t warm, int full_after, cs_bench_run_t *r);

/* One timed segment of a run (cs_bench_run_segments). */
typedef struct cs_bench_seg {
    int full;          /* in: the full re-ranking (1) or the run's own path (0, cs_sim_ranking) */
    double cpu_s;      /* out: process CPU (all threads) over the timed blocks */
    double main_cpu_s; /* out: the main thread's CPU over them */
    uint64_t blocks;   /* out: blocks timed */
    uint64_t fires;    /* out: fires in them */
} cs_bench_seg_t;

/* Run the scenario (as cs_bench_run_warm) with `warm` blocks unmeasured,
 * then segs[0..n_segs) in turn, each on the path segs[i].full names: one
 * untimed block after the switch, then `seg` timed blocks; the rest of the
 * scenario runs untimed.  A paired design for the ranking paths: adjacent
 * segments see the same state of the workload, so their ratio is free of
 * what moves the machine between whole runs.  CS_EINVAL when the
 * segments do not fit in the scenario's blocks. */
int cs_bench_run_segments(const char *path, const char *const *sets, size_t n_sets, const char *out_path,
                          uint64_t warm, uint64_t seg, cs_bench_seg_t *segs, size_t n_segs);

/* End to end on scenarios/bench-large.json (bench/cs_bench_e2e.c). */
int cs_bench_e2e(cs_bench_out_t *o, int quick);
/* Peak RSS with 10^7 pending timers (bench/cs_bench_e2e.c). */
int cs_bench_memory(cs_bench_out_t *o, int quick);

#endif /* CS_BENCH_E2E_H */
