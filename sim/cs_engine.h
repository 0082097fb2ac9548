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

#include "cs_engine_types.h"

int cs_sim_init(cs_engine_t **out, const cs_scenario_t *scn, const char *mechanism,
                const cs_sim_opts_t *opts, char *err, size_t errcap);
int cs_sim_step(cs_engine_t *e);
/* Set up (and free, with no output) a run under each of the scenario's
 * mechanisms when some agent's balance is given as {"fires": N}: those
 * balances are known only then (N x the opening price of a fire, which
 * depends on the mechanism).  Lets `validate` and `run` refuse, before any
 * output exists, a balance that exceeds 2^128 - 1 (one actor, or summed over
 * all actors), with its JSON path in err.  CS_OK when every balance fits
 * (or none is given in fires); else cs_sim_init's code and message. */
int cs_sim_check_funds(const cs_scenario_t *scn, char *err, size_t errcap);
/* Finish: write /timers (pending), /actors, /weights, /summary, close the
 * file with complete, fill *st (may be NULL), free e.  Returns CS_OK or
 * CS_EIO (file could not be written). */
int cs_sim_done(cs_engine_t *e, int complete, cs_run_stats_t *st);

uint64_t cs_sim_height(const cs_engine_t *e);
const cs_sched_t *cs_sim_sched(const cs_engine_t *e);
/* Message of the last error (invariant violation, I/O). */
const char *cs_sim_error(const cs_engine_t *e);
/* Timers scheduled and fires so far, every kind (the run's counts). */
void cs_sim_counts(const cs_engine_t *e, uint64_t *timers, uint64_t *fires);
/* Take the full re-ranking of carried timers from the next block on, as
 * COWSIM_RANKING=full does for a whole run (outcomes unchanged). */
void cs_sim_full_ranking(cs_engine_t *e);
/* The full re-ranking (full != 0), or the path cs_sim_init chose (full =
 * 0: incremental unless the agents or COWSIM_RANKING=full rule it out),
 * from the next block on; outcomes unchanged either way. */
void cs_sim_ranking(cs_engine_t *e, int full);
/* Sort the scheduler's free slots every 64th block (1, the default) or
 * never (0); outputs are the same (cs_sched_set_dense, DESIGN-NOTES N107). */
void cs_sim_dense_slots(cs_engine_t *e, int dense);
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
