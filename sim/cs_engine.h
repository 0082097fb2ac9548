/*
 * cs_engine.h -- the discrete-event engine: the block loop around the
 * core's end-of-block pipeline, plus an event queue for agent wake-ups,
 * environment processes and scenario events (DESIGN §2.7-2.8, §3, §5).
 *
 * Stepping belongs to the caller (STYLE §7):
 *     cs_sim_init(&e, scenario, mechanism, &opts);
 *     while (cs_sim_step(e) == CS_OK) ...;      // one block per call
 *     cs_sim_done(e, complete);                 // summary, close, free
 * cs_sim_step returns CS_OK after a block, CS_EINTERRUPTED after the last
 * one (nothing more to do), or an error.
 *
 * Ownership: cs_sim_init allocates the engine; cs_sim_done frees it (also
 * on error paths).  The scenario must outlive the engine.
 */
#ifndef CS_ENGINE_H
#define CS_ENGINE_H

#include "cs_scenario.h"
#include "cs_sched.h"

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
    double util_mean;         /* time-average lane utilisation */
    double jain;              /* Jain's index over per-actor service 1/(1+mean delay) */
    double basefee_final;     /* lane basefee at the close */
    uint64_t invariant_checks;/* blocks checked with --check-invariants */
    uint64_t h5_ns;           /* wall time inside HDF5 writer calls (cs_h5_*), ns */
    int complete;             /* ran every block */
    char error[512];          /* last error message, "" if none */
} cs_run_stats_t;

int cs_sim_init(cs_engine_t **out, const cs_scenario_t *scn, const char *mechanism,
                const cs_sim_opts_t *opts, char *err, size_t errcap);
int cs_sim_step(cs_engine_t *e);
/* Finish: write /timers (pending), /actors, /weights, /summary, close the
 * file with complete, fill *st (may be NULL), free e.  Returns CS_OK or
 * CS_EIO (file could not be written). */
int cs_sim_done(cs_engine_t *e, int complete, cs_run_stats_t *st);

uint64_t cs_sim_height(const cs_engine_t *e);
const cs_sched_t *cs_sim_sched(const cs_engine_t *e);
/* Message of the last error (invariant violation, I/O). */
const char *cs_sim_error(const cs_engine_t *e);
/* Bytes of the run's per-timer structures, for `cowsim bench memory`: the
 * scheduler's (cs_sched_mem) and the engine's per-slot side table (slots
 * in use / allocated, as in cs_sched_mem_t). */
typedef struct cs_sim_mem {
    cs_sched_mem_t sched;                  /* timer store */
    size_t side_bytes, side_cap_bytes;     /* engine side table, per record slot */
    size_t extras_bytes, extras_cap_bytes; /* its extras table and free list (entries ever used) */
} cs_sim_mem_t;
void cs_sim_mem(const cs_engine_t *e, cs_sim_mem_t *m);

#endif /* CS_ENGINE_H */
