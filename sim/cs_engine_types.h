/*
 * cs_engine_types.h -- the engine's types: the engine handle, the run
 * options and the run's summary statistics.  cs_engine.h (the engine's
 * interface) and cs_engine_int.h (its pieces' internals) both include it,
 * so the pieces of the engine need not include the interface they
 * implement.
 */
#ifndef CS_ENGINE_TYPES_H
#define CS_ENGINE_TYPES_H

#include <stdint.h>

#include "cs_agent.h"

typedef struct cs_engine cs_engine_t;

typedef struct cs_sim_opts {
    const char *out_path;     /* HDF5 file to write; NULL = no file */
    uint64_t seed;            /* run seed (scenario's unless overridden) */
    int check_invariants;     /* check DESIGN §2.6 invariants every block */
    int drop_attackers;       /* agents with role attacker never act (run --harm, N44); the
                               * others keep their indices, streams and addresses */
} cs_sim_opts_t;

/* Per-kind and run-level results, for the summary table. */
typedef struct cs_kind_stats {
    uint32_t actors;          /* actors of this kind */
    uint64_t timers, fires, censored;
    double delay_p50, delay_p95, delay_p99, delay_max;
    double value, paid;       /* sums, base units */
} cs_kind_stats_t;

typedef struct cs_run_stats {
    const char *mechanism;
    uint64_t blocks;
    cs_kind_stats_t kind[CS_AK__COUNT + 1]; /* last = all kinds */
    double burn, proposer;    /* revenue split: burned, to proposer */
    double sched_fees;        /* scheduling costs metered (cycles) */
    uint64_t fire_gas;        /* sum of the fires' gas limits (cycles the lane reserved) */
    double util_mean;         /* time-average lane utilisation */
    double jain;              /* Jain's index over per-actor service 1/(1+mean delay) */
    double basefee_final;     /* lane basefee at the close */
    uint64_t invariant_checks;/* blocks checked with --check-invariants */
    uint64_t h5_ns;           /* wall time inside HDF5 writer calls (cs_h5_*), ns */
    int complete;             /* ran every block */
    char error[512];          /* last error message, "" if none */
} cs_run_stats_t;

#endif /* CS_ENGINE_TYPES_H */
