/*
 * cs_h5.h -- the HDF5 run file: writer and reader (DESIGN §5 "HDF5 run file").
 *
 * A run file holds seven one-dimensional, chunked, compressed, extendible
 * datasets of compound rows: /blocks, /fires, /timers, /actors, /weights,
 * /summary and /identities.  Each row type below is generated from one X-macro field table;
 * the same table builds the HDF5 compound type in cs_h5_layout.c, so the C struct
 * and the file type cannot drift.  Rows have no padding (checked by
 * _Static_assert), so the file type is byte-for-byte the memory type: no
 * conversion on write or read, and no uninitialised padding bytes can leak
 * into a file (DESIGN §2.7: same scenario + seed => identical datasets).
 *
 * Column tables: X(name, kind, doc) with kind one of
 *   U64 uint64_t, U32 uint32_t, F64 double,
 *   KIND   uint32_t holding a cs_agent_kind value (HDF5 enum "agent_kind"),
 *   TRIG   uint32_t holding a cs_h5_trigger value (HDF5 enum),
 *   OUTC   uint32_t holding a cs_h5_outcome value (HDF5 enum),
 *   IDK    uint32_t holding a cs_h5_ident_kind value (HDF5 enum),
 *   NAME   char[128], NUL-padded (HDF5 fixed string, numpy 'S128'),
 *   MONEY  an amount in base units, exact: cs_h5_money_t in the struct; in
 *          the file three columns, <name> (f64, the amount rounded to the
 *          nearest double, for analysis: sums agree with exact totals to
 *          ~1e-16 relative) and <name>_hi, <name>_lo (u64, the exact amount
 *          = hi * 2^64 + lo, never saturated),
 *   DIGEST uint8_t[32] in the struct; in the file a 64-character lowercase
 *          hex string (HDF5 fixed string, numpy 'S64').
 * The digest is not stored as a uint8[32] array member: h5py maps an array
 * member to a 2-D numpy sub-array, which pandas rejects ("Data must be
 * 1-dimensional"); a 32-byte opaque becomes numpy 'V32', which pandas holds
 * but cannot select or take.  A hex string works in h5py, pandas and
 * h5dump.  The writer encodes and the reader decodes it, so C code sees the
 * 32 raw bytes.
 * Format 1 (cowsim before the exact amounts) stored amounts as a single u64
 * (saturated at 2^64 - 1; /summary.paid as f64) and had no /identities: the
 * reader still opens such files, filling hi/lo from the u64 (or f from the
 * f64) and returning /identities as empty.
 * Columns added within format 2 at the end of their tables (DESIGN-NOTES
 * N30: /blocks from lane_budget on, /timers from gas_limit on; N43:
 * /timers.bid) read as 0 from a file written before them.
 *
 * Root attributes (written at creation): format_version (int32),
 * cowsim_version, git_commit, scenario_json, mechanism (UTF-8 variable-length
 * strings), libm (string: which of glibc's libm builds the run used,
 * sim/cs_libm.h, DESIGN-NOTES N115), seed (uint64), created_utc (string;
 * provenance, exempt from the determinism rule), fires_mode (string "all"|"sample"|"off"),
 * fires_sample_every (uint64), complete (int32: 0 until cs_h5_close(h, 1)),
 * fires_seen (uint64, fires offered to cs_h5_append_fires: 0 at creation,
 * updated at every flush, so each checkpoint says how far it got); the
 * engine adds params_effective, attackers_removed and CIP-5 §9.2's N_max
 * (nmax_wealth_exact, nmax_bias_scale_exact: decimal strings; nmax_lambda,
 * nmax_spec: float64; nmax_exact: uint64; DESIGN-NOTES N62) and, at the
 * close of a run with strategic bidders, convergence (a JSON string,
 * sim/cs_converge.h, N77).  Each
 * dataset carries a "description" string attribute listing its columns.
 *
 * Durability (DESIGN-NOTES N48).  HDF5 does not write the output path
 * itself but a private work file beside it, <out>.work, which no reader
 * opens.  Rows are buffered per dataset in memory, one chunk at a time;
 * whole chunks are compressed (optionally on one background thread) and
 * written with H5Dwrite_chunk, after which the work file's metadata is
 * flushed.  A checkpoint (at cs_h5_create, cs_h5_flush, and
 * cs_h5_checkpoint when cheap) copies the flushed work file to <out>.tmp
 * and publishes it with cs_publish_commit (fsync, rename over <out>, fsync
 * of the directory); cs_h5_close publishes the finished work file itself.
 * rename is atomic, so whatever the moment of
 * a kill (SIGKILL, a crash, _exit) after cs_h5_create returned, <out> is a
 * whole HDF5 file: the last checkpoint, complete = 0, holding every row
 * appended before it, or the closed file.  A kill during cs_h5_create
 * leaves no file at <out> (an earlier file there is removed first).  The
 * work and .tmp files a kill leaves behind are replaced by the next writer
 * of the same path, with a note on stderr naming each.  The writer holds an
 * exclusive flock on <out>.work until the close (cs_publish_lock): a second
 * writer of the same path fails in cs_h5_create with CS_EIO ("<out> is
 * being written by another run") and touches nothing.  An output path that exists and is not a regular file
 * (a device such as /dev/full) is written in place, without checkpoints.
 * Memory is bounded by a few chunks per dataset (about
 * 25 MiB at most; chunks are 0.2-2 MiB) whatever the run length.
 * Compression: byte shuffle + deflate (zlib level 1, RLE strategy; byte
 * planes that look random are stored), which the standard HDF5 shuffle +
 * deflate filters decode.
 *
 * Errors.  Functions return CS_OK (0) or a cs_err code (CS_EIO for
 * HDF5 or OS failures, CS_ENOMEM, CS_EINVAL for bad arguments, CS_EPARSE for
 * a file that is not a cowsim run file).  HDF5's automatic error printing is
 * switched off; cs_h5_last_error() returns the last failure's message.  A
 * writer that hit an I/O error stays failed: later calls return the same
 * code and the file is never marked complete.
 *
 * Threads.  A writer handle is used by one thread.  Unless sync_compress is
 * set, the writer owns one helper thread that only compresses (it never
 * calls HDF5); the main thread alone calls HDF5, at points fixed by the
 * sequence of API calls, so the file does not depend on thread timing.  Do
 * not fork() while a writer with a helper thread is open (create writers
 * after forking).
 */
#ifndef CS_H5_H
#define CS_H5_H

#include <stddef.h>
#include <stdint.h>

#include "cs_error.h"
#include "cs_types.h"

#define CS_H5_FORMAT_VERSION 2        /* root attribute format_version written by this module */
#define CS_H5_FORMAT_VERSION_OLDEST 1 /* oldest format_version the reader opens */

/* ---- enumerations stored in the file ------------------------------------ */

/* Agent kinds (DESIGN §3); the values 0..12 are part of the file format. */
#define CS_AGENT_KIND_MAP(X)                                                  \
    X(DEFAULT_GBA, "default_gba")                                             \
    X(PRIORITY_TIER, "priority_tier")                                         \
    X(LIQUIDATION_BOT, "liquidation_bot")                                     \
    X(ORACLE, "oracle")                                                       \
    X(HEARTBEAT, "heartbeat")                                                 \
    X(SUBSCRIPTION, "subscription")                                           \
    X(SPAMMER, "spammer")                                                     \
    X(FRAGMENTER, "fragmenter")                                               \
    X(FP_BEST_RESPONSE, "fp_best_response")                                   \
    X(WAITING_GAME, "waiting_game")                                           \
    X(AFFINE_USER, "affine_user")                                             \
    X(WATCHER, "watcher")                                                     \
    X(DEMAND_CURVE, "demand_curve")

typedef enum cs_h5_kind {
#define CS__AGENT_KIND_ENUM(id, str) CS_AGENT_KIND_##id,
    CS_AGENT_KIND_MAP(CS__AGENT_KIND_ENUM)
#undef CS__AGENT_KIND_ENUM
    CS_AGENT_KIND_COUNT,                     /* 13 real kinds */
    CS_AGENT_KIND_ALL = CS_AGENT_KIND_COUNT  /* /summary total row, name "all" */
} cs_h5_kind;

/* Names indexed by kind, CS_AGENT_KIND_COUNT entries (no "all"); the same
 * strings, in the same order, as agents/cs_agent.h cs_agent_kind_names. */
extern const char *const cs_h5_kind_names[];
/* The kind whose name is s, or -1 when s names no kind ("all" included). */
int cs_h5_kind_lookup(const char *s);

/* /timers trigger: same values as cs_timer_kind (core/cs_timer.h). */
typedef enum cs_h5_trigger {
    CS_H5_TRIGGER_HEIGHT = 0,   /* HEIGHT */
    CS_H5_TRIGGER_INTERVAL = 1, /* INTERVAL */
    CS_H5_TRIGGER_WATCH = 2     /* WATCH */
} cs_h5_trigger;

/* /timers outcome (DESIGN §2.6 timer accounting classes, plus rejected). */
typedef enum cs_h5_outcome {
    CS_H5_OUTCOME_FIRED = 0,        /* "fired": one-shot fired (or interval ended after fires) */
    CS_H5_OUTCOME_EXPIRED = 1,      /* "expired": TTL reached, destroyed by the GC lane */
    CS_H5_OUTCOME_INSUFFICIENT = 2, /* "insufficient": TimerCancelledInsufficientFunds */
    CS_H5_OUTCOME_CANCELLED = 3,    /* "cancelled": cancelled by its owner */
    CS_H5_OUTCOME_PENDING = 4,      /* "pending": still queued when the run closed */
    CS_H5_OUTCOME_REJECTED = 5      /* "rejected": refused at schedule time */
} cs_h5_outcome;

/* /identities kind: what a fairness identity (W(ident), D12) stands for. */
typedef enum cs_h5_ident_kind {
    CS_H5_IDENT_ACTOR = 0,   /* "actor": one actor; ident == its /actors.actor */
    CS_H5_IDENT_DEPLOYER = 1 /* "deployer": a named deployer; its actors are the
                              * /actors rows whose deployer == ident */
} cs_h5_ident_kind;

/* output.fires in the scenario (DESIGN §5). */
typedef enum cs_h5_fires_mode {
    CS_H5_FIRES_ALL = 0,    /* every fire is a row */
    CS_H5_FIRES_SAMPLE = 1, /* only fires whose timer_id % N == 0 */
    CS_H5_FIRES_OFF = 2     /* /fires stays empty */
} cs_h5_fires_mode;

/* ---- row tables ---------------------------------------------------------- */

typedef uint8_t cs_h5_digest_t[32]; /* DIGEST column: a keccak256 state digest */
typedef char cs_h5_name_t[128];     /* NAME column: NUL-padded, not necessarily terminated */

/* MONEY column: an amount in base units (a cs_u128 in the core). */
typedef struct cs_h5_money {
    double f;    /* the amount rounded to the nearest double */
    uint64_t hi; /* amount >> 64 */
    uint64_t lo; /* amount mod 2^64 */
} cs_h5_money_t;

/* The MONEY column value of amount v (f correctly rounded).  Below 2^64
 * the 64-bit conversion rounds the same integer the same way, without the
 * 128-bit library call (issue 26: ~1 % of a run with per-fire rows). */
static inline cs_h5_money_t cs_h5_money(cs_u128 v)
{
    uint64_t hi = (uint64_t)(v >> 64), lo = (uint64_t)v;
    cs_h5_money_t m = {hi ? (double)v : (double)lo, hi, lo};
    return m;
}
/* The exact amount of a MONEY column value. */
static inline cs_u128 cs_h5_money_u128(cs_h5_money_t m) { return (cs_u128)m.hi << 64 | m.lo; }

#define CS__H5_CTYPE_U64 uint64_t
#define CS__H5_CTYPE_U32 uint32_t
#define CS__H5_CTYPE_F64 double
#define CS__H5_CTYPE_KIND uint32_t
#define CS__H5_CTYPE_TRIG uint32_t
#define CS__H5_CTYPE_OUTC uint32_t
#define CS__H5_CTYPE_DIGEST cs_h5_digest_t
#define CS__H5_CTYPE_IDK uint32_t
#define CS__H5_CTYPE_NAME cs_h5_name_t
#define CS__H5_CTYPE_MONEY cs_h5_money_t

/* /blocks: one row per height (DESIGN §2.3 step 9, §5). */
#define CS_H5_BLOCK_FIELDS(X)                                                                \
    X(height, U64, "block height h")                                                         \
    X(basefee_lane, MONEY, "lane basefee per cycle charged at h (CIP-1 rev §5)")               \
    X(basefee_cycle, MONEY, "CIP-3 cycle basefee at h (environment, D13)")                     \
    X(basefee_cell, MONEY, "CIP-3 cell basefee at h (environment, D13)")                       \
    X(lane_cycles, U64, "cycles used by fires in the timer lane")                            \
    X(gc_cycles, U64, "cycles used by the GC lane")                                          \
    X(eob_cycles, U64, "all end-of-block cycles (lane, GC, maintenance)")                    \
    X(utilisation, F64, "lane_cycles / lane_timer_cycles")                                   \
    X(due, U32, "candidates due at h (incl. carried and watch)")                             \
    X(fired, U32, "timers fired at h")                                                       \
    X(deferred, U32, "candidates carried to h+1")                                            \
    X(expired, U32, "timers destroyed at h for TTL")                                         \
    X(insufficient, U32, "timers dropped at h for insufficient funds")                       \
    X(cancelled, U32, "timers cancelled at h")                                               \
    X(scheduled, U32, "timers scheduled at h")                                               \
    X(rejected, U32, "schedule calls rejected at h")                                         \
    X(gc_backlog, U64, "timers waiting in the GC lane after h")                              \
    X(burn, MONEY, "base units burned at h (fires, schedule and cancel costs)")                \
    X(tips, MONEY, "tips paid to the proposer at h")                                           \
    X(payments, MONEY, "auction payments at h")                                                \
    X(lambda_ppb, U64, "bias growth rate lambda x 1e9 (CIP-5 §9.3)")                         \
    X(p50_tip, MONEY, "median tip of block h (default GBA input for h+1)")                     \
    X(tier_ring, U64, "timers in queue tier 1 after h")                                      \
    X(tier_epoch, U64, "timers in queue tier 2 after h")                                     \
    X(tier_tree, U64, "timers in queue tier 3 after h")                                      \
    X(pending, U64, "pending timers after h")                                                \
    X(digest, DIGEST, "scheduler state digest for h")                                        \
    X(lane_budget, U64, "lane cycles the mechanism could allocate at h, 0 while paused")      \
    X(fire_cap, U64, "max_cycles_per_fire at h (CIP-1 rev §10)")                              \
    X(quota_block, U32, "max_fires_per_block at h, 0 = unlimited (CIP-5 §9.4)")               \
    X(quota_actor, U32, "max_fires_per_actor at h, 0 = unlimited (CIP-5 §9.4)")            \
    X(exec_fee, MONEY, "CIP-3 execution fees of the fires at h (sum of /fires.exec_fee, N58)")  \
    X(lane_burn, MONEY, "lane basefee burned by the fires at h (sum of /fires.lane_burn)")      \
    X(sched_cost, MONEY, "schedule costs debited at h: 1,000 cycles + payload cells at the CIP-3 basefees (CIP-5 §6.1, N58)") \
    X(cancel_cost, MONEY, "cancel costs debited at h: 500 cycles at the CIP-3 cycle basefee (CIP-5 §6.1, N58)") \
    X(bias_slack, F64, "CIP-5 §9.3 invariant slack at h: mean over the candidates deferred at h of Y - (Bias(n+1) - Bias(n)), Y a timer's true value decay over the block it waits, n its deferrals; NaN without a deferred candidate or under a rule without Bias (N64)") \
    X(book_full, U32, "bookings refused at h: the slot, or the class's reserve and pool, full (slot-booking, priority-classes; N75)") \
    X(book_window, U32, "bookings refused at h: the slot beyond the booking window") \
    X(book_too_large, U32, "bookings refused at h: gas above a slot's capacity or a call's maximum effort") \
    X(book_declined, U32, "bookings refused at h: the agent stayed out, no offer worth its price") \
    X(slot_base, MONEY, "slot-booking: base price per cycle of slot h, fixed when it entered the window; 0 under other rules")

/* /fires: one row per fire. */
#define CS_H5_FIRE_FIELDS(X)                                                                 \
    X(height, U64, "fire height")                                                            \
    X(timer_id, U64, "first 8 bytes of timer_id, big-endian")                                \
    X(actor, U32, "owner actor index")                                                       \
    X(agent, U32, "agent instance index")                                                    \
    X(kind, KIND, "agent kind")                                                              \
    X(delay, U32, "height - due_height")                                                     \
    X(due_height, U64, "due height of this fire")                                            \
    X(cycles, U64, "cycles used")                                                            \
    X(gas_limit, U64, "cycles limit")                                                        \
    X(bid, MONEY, "auction bid")                                                               \
    X(max_fee, MONEY, "max_fee_per_cycle")                                                     \
    X(max_prio, MONEY, "max_priority_fee_per_cycle")                                           \
    X(paid, MONEY, "total charged to the fee payer")                                           \
    X(burn, MONEY, "part of paid that was burned")                                             \
    X(tip, MONEY, "part of paid that went to the proposer")                                    \
    X(value, F64, "agent valuation of this fire at this delay")                              \
    X(weight_ppm, U32, "W(actor) x 1e6 at fire time (CIP-1 rev §8); gba-tip: its EMA weight (N95)") \
    X(deferrals, U32, "n, blocks deferred before this fire (CIP-5 §9.2)")                    \
    X(exec_fee, MONEY, "part of paid: CIP-3 execution fee, used cycles x cycle basefee + used cells x cell basefee (N58)") \
    X(lane_burn, MONEY, "part of paid: lane basefee x used cycles (CIP-1 rev §5)")            \
    X(alloc_payment, MONEY, "part of paid: the rule's allocation payment (VCG, first price, score bid)") \
    X(prio_tip, MONEY, "part of paid: priority tip x used cycles; paid = exec_fee + lane_burn + alloc_payment + prio_tip")

/* /timers: one row per timer that ended, or was pending at the close. */
#define CS_H5_TIMER_FIELDS(X)                                                                \
    X(timer_id, U64, "first 8 bytes of timer_id, big-endian")                                \
    X(actor, U32, "owner actor index")                                                       \
    X(agent, U32, "agent instance index")                                                    \
    X(kind, KIND, "agent kind")                                                              \
    X(trigger, TRIG, "HEIGHT, INTERVAL or WATCH")                                            \
    X(outcome, OUTC, "how the timer ended")                                                  \
    X(every_blocks, U32, "INTERVAL period, 0 otherwise")                                     \
    X(sched_height, U64, "height it was scheduled at")                                       \
    X(due_height, U64, "(first) due height")                                                 \
    X(end_height, U64, "height it ended at (close height when pending)")                     \
    X(deferrals, U32, "total blocks deferred")                                               \
    X(fires, U32, "times fired")                                                             \
    X(gas_limit, U64, "cycles the lane budget reserves per fire")                            \
    X(expires_at, U64, "last height it may fire at (TTL), 0 = none")                         \
    X(deadline, U64, "value is 0 beyond this delay, 0 = none")                               \
    X(value, F64, "value model: v(d) = max(0, value e^(-decay_rate d) - decay d)")           \
    X(decay, F64, "value model: linear loss per block of delay")                             \
    X(decay_rate, F64, "value model: exponential rate; NaN = the agent's value is not of this form") \
    X(bid, MONEY, "bid the record held at its end (CIP-5 §9.7): a never-fired timer's stated bid; 0 = none, released, or an older file") \
    X(book_class, U32, "booking class: 0 not booked, 1 low, 2 medium, 3 high (priority-classes) or booked (slot-booking); N75") \
    X(book_moved, U32, "slots between the one it asked for (due_height) and the one it booked (due_height + book_moved); its delay counts from due_height (N75)") \
    X(book_price, MONEY, "price quoted and escrowed at schedule, paid at the fire (alloc_payment); 0 if not booked")

/* /actors: one row per actor. */
#define CS_H5_ACTOR_FIELDS(X)                                                                \
    X(actor, U32, "actor index")                                                             \
    X(agent, U32, "agent instance index")                                                    \
    X(kind, KIND, "agent kind")                                                              \
    X(deployer, U32, "fairness identity of its deployer (/identities.ident)")               \
    X(fires, U64, "fires")                                                                   \
    X(scheduled, U64, "timers scheduled")                                                    \
    X(value, F64, "sum of fire values")                                                      \
    X(paid, MONEY, "sum paid (exact)")                                                       \
    X(end_balance, MONEY, "balance at the close")                                            \
    X(sched_cost, MONEY, "schedule costs paid (CIP-5 §6.1, N58), not in paid")                \
    X(cancel_cost, MONEY, "cancel costs paid (CIP-5 §6.1, N58), not in paid")

/* /weights: W(identity) sampled every K blocks, long format. */
#define CS_H5_WEIGHT_FIELDS(X)                                                               \
    X(height, U64, "sample height")                                                          \
    X(ident, U32, "fairness identity (actor or deployer, D12)")                              \
    X(weight_ppm, U32, "W x 1e6 (CIP-1 rev §8); gba-tip: its EMA weight (N95)")                \
    X(fires_in_window, U32, "fires of ident in the fairness window")                         \
    X(median_fires, U32, "window median over identities with >= 1 fire")

/* /summary: one row per agent kind, then one row kind = all. */
#define CS_H5_SUMMARY_FIELDS(X)                                                              \
    X(kind, KIND, "agent kind, or all")                                                      \
    X(actors, U32, "actors of this kind")                                                    \
    X(fires, U64, "fires")                                                                   \
    X(timers, U64, "timers")                                                                 \
    X(delay_p50, F64, "delay median (fired timers)")                                         \
    X(delay_p95, F64, "delay 95th percentile")                                               \
    X(delay_p99, F64, "delay 99th percentile")                                               \
    X(delay_max, F64, "delay maximum")                                                       \
    X(censored, U64, "timers never fired")                                                   \
    X(value, F64, "sum of fire values")                                                      \
    X(paid, MONEY, "sum paid (exact)")                                                       \
    X(utility, F64, "value - paid")

/* /identities: one row per fairness identity (D12): actors 0..n-1 (ident ==
 * actor), then named deployers. */
#define CS_H5_IDENT_FIELDS(X)                                                                \
    X(ident, U32, "fairness identity (/weights.ident, /actors.deployer)")                    \
    X(kind, IDK, "actor or deployer")                                                        \
    X(actor, U32, "the actor (kind actor); 4294967295 for a deployer")                       \
    X(name, NAME, "deployer name (kind deployer); empty for an actor")

#define CS__H5_MEMBER(name, kind, doc) CS__H5_CTYPE_##kind name;
#define CS__H5_SIZE(name, kind, doc) +sizeof(CS__H5_CTYPE_##kind)

/* Row structs: fields exactly as in the tables above (the doc column). */
typedef struct cs_h5_block { CS_H5_BLOCK_FIELDS(CS__H5_MEMBER) } cs_h5_block_t;
typedef struct cs_h5_fire { CS_H5_FIRE_FIELDS(CS__H5_MEMBER) } cs_h5_fire_t;
typedef struct cs_h5_timer { CS_H5_TIMER_FIELDS(CS__H5_MEMBER) } cs_h5_timer_t;
typedef struct cs_h5_actor { CS_H5_ACTOR_FIELDS(CS__H5_MEMBER) } cs_h5_actor_t;
typedef struct cs_h5_weight { CS_H5_WEIGHT_FIELDS(CS__H5_MEMBER) } cs_h5_weight_t;
typedef struct cs_h5_summary { CS_H5_SUMMARY_FIELDS(CS__H5_MEMBER) } cs_h5_summary_t;
typedef struct cs_h5_ident { CS_H5_IDENT_FIELDS(CS__H5_MEMBER) } cs_h5_ident_t;

/* No padding anywhere: the struct is exactly the sum of its columns (and
 * every table but /blocks is written as the raw bytes of its struct). */
_Static_assert(sizeof(cs_h5_block_t) == 0 CS_H5_BLOCK_FIELDS(CS__H5_SIZE), "blocks padding");
_Static_assert(sizeof(cs_h5_fire_t) == 0 CS_H5_FIRE_FIELDS(CS__H5_SIZE), "fires padding");
_Static_assert(sizeof(cs_h5_timer_t) == 0 CS_H5_TIMER_FIELDS(CS__H5_SIZE), "timers padding");
_Static_assert(sizeof(cs_h5_actor_t) == 0 CS_H5_ACTOR_FIELDS(CS__H5_SIZE), "actors padding");
_Static_assert(sizeof(cs_h5_weight_t) == 0 CS_H5_WEIGHT_FIELDS(CS__H5_SIZE), "weights padding");
_Static_assert(sizeof(cs_h5_summary_t) == 0 CS_H5_SUMMARY_FIELDS(CS__H5_SIZE), "summary padding");
_Static_assert(sizeof(cs_h5_ident_t) == 0 CS_H5_IDENT_FIELDS(CS__H5_SIZE), "identities padding");
_Static_assert(sizeof(cs_h5_block_t) == 488 && sizeof(cs_h5_fire_t) == 312 &&
                   sizeof(cs_h5_timer_t) == 168 && sizeof(cs_h5_actor_t) == 136 &&
                   sizeof(cs_h5_weight_t) == 24 && sizeof(cs_h5_summary_t) == 104 &&
                   sizeof(cs_h5_ident_t) == 140,
               "row sizes are part of format_version 2 (columns added at a table end: N30, N43, N58, N64, N75)");

/* Dataset selector for the generic row functions. */
typedef enum cs_h5_ds {
    CS_H5_BLOCKS = 0,
    CS_H5_FIRES = 1,
    CS_H5_TIMERS = 2,
    CS_H5_ACTORS = 3,
    CS_H5_WEIGHTS = 4,
    CS_H5_SUMMARY = 5,
    CS_H5_IDENTS = 6,
    CS_H5_NDS = 7 /* number of datasets */
} cs_h5_ds;

/* "blocks", "fires", ... for ds in [0, CS_H5_NDS); NULL otherwise. */
const char *cs_h5_ds_name(cs_h5_ds ds);
/* Row size in bytes of dataset ds (sizeof the row struct); 0 if invalid. */
size_t cs_h5_ds_row_size(cs_h5_ds ds);

/* ---- writer ------------------------------------------------------------- */

/* Run-level provenance written as root attributes at creation.  Strings are
 * copied into the file; NULL strings are written as "". */
typedef struct cs_h5_meta {
    int format_version;        /* 0 means CS_H5_FORMAT_VERSION */
    const char *cowsim_version; /* e.g. CS_VERSION */
    const char *git_commit;    /* e.g. CS_GIT_COMMIT */
    const char *scenario_json; /* the scenario text as run (any length) */
    uint64_t seed;             /* run seed */
    const char *mechanism;     /* mechanism name, e.g. "eip1559" */
    int sync_compress;         /* nonzero: compress on the caller's thread; 0 (default): one helper thread */
    uint64_t blocks_hint;      /* the run's block count, for smaller chunks in short runs; 0: unknown (storage only, never values) */
} cs_h5_meta_t;

typedef struct cs_h5 cs_h5_t;

/*
 * Create the run file for path: write the root attributes with complete = 0
 * and the seven empty datasets to the work file <path>.work, then publish it
 * at path (the first checkpoint; "Durability" above).  Returns the writer,
 * owned by the caller until cs_h5_close().  On failure returns NULL and sets
 * *err (if err is non-NULL): CS_EIO when the file cannot be created
 * (message in cs_h5_last_error()), CS_ENOMEM, or CS_EINVAL for NULL
 * path/meta.
 */
cs_h5_t *cs_h5_create(const char *path, const cs_h5_meta_t *meta, int *err);

/*
 * Append n rows (copied; the caller keeps ownership of rows).  Rows are
 * buffered and written a whole chunk at a time.  Returns CS_OK, CS_EIO or
 * CS_ENOMEM (the writer is then failed), or CS_EINVAL for rows == NULL with
 * n > 0.  n == 0 is a no-op.
 */
int cs_h5_append_blocks(cs_h5_t *h, const cs_h5_block_t *rows, size_t n);
/* As above; fires are filtered by the fires mode (cs_h5_set_fires_mode). */
int cs_h5_append_fires(cs_h5_t *h, const cs_h5_fire_t *rows, size_t n);
int cs_h5_append_timers(cs_h5_t *h, const cs_h5_timer_t *rows, size_t n);
int cs_h5_append_actors(cs_h5_t *h, const cs_h5_actor_t *rows, size_t n);
int cs_h5_append_weights(cs_h5_t *h, const cs_h5_weight_t *rows, size_t n);
int cs_h5_append_summary(cs_h5_t *h, const cs_h5_summary_t *rows, size_t n);
int cs_h5_append_idents(cs_h5_t *h, const cs_h5_ident_t *rows, size_t n);
/* Generic form: rows are cs_h5_ds_row_size(ds) bytes each. */
int cs_h5_append(cs_h5_t *h, cs_h5_ds ds, const void *rows, size_t n);

/*
 * A row filled in place (issue 26: no copy of the caller's buffer).
 * cs_h5_row_next returns where the next row of ds goes in the writer's
 * chunk buffer (owned by the writer), with *room the rows left in that
 * chunk counting this one, or NULL when ds does not take rows in place --
 * a table re-encoded on write (/blocks), /fires sampled or off, or a
 * failed writer -- so the caller appends them instead.  The caller writes
 * every byte of the row, then cs_h5_row_commit accepts it exactly as
 * cs_h5_append would one row (it writes the chunk when the row fills it,
 * room 1); nothing else may be called on the writer in between.  Commit
 * returns CS_OK, CS_EIO or CS_ENOMEM (the writer is then failed).
 */
void *cs_h5_row_next(cs_h5_t *h, cs_h5_ds ds, size_t *room);
int cs_h5_row_commit(cs_h5_t *h, cs_h5_ds ds);

/*
 * Honour output.fires: CS_H5_FIRES_ALL, CS_H5_FIRES_OFF, or
 * CS_H5_FIRES_SAMPLE keeping exactly the fires whose timer_id % sample_every
 * == 0 (timer_id is a keccak prefix, so this is a uniform 1/N sample of
 * timers that keeps every fire of a kept timer and cannot alias with the
 * order of fires inside a block).  sample_every must be >= 1 for SAMPLE
 * and is ignored otherwise.  Writes root attributes fires_mode and
 * fires_sample_every.  Must be called before the first fire is appended:
 * returns CS_EINVAL afterwards or on a bad mode, CS_EIO on write failure.
 */
int cs_h5_set_fires_mode(cs_h5_t *h, cs_h5_fires_mode mode, uint64_t sample_every);

/*
 * Write every buffered row (a partly filled chunk is written now and
 * rewritten whole when it fills), flush HDF5 metadata and publish: copy the
 * work file over the output path.  After it returns CS_OK, a crash leaves
 * all rows appended so far readable at the output path.  Cost grows with
 * the partly filled chunks and the file size (the copy), so call it every
 * few thousand blocks or seconds, not every block.  Returns CS_OK or the
 * sticky error.
 */
int cs_h5_flush(cs_h5_t *h);

/*
 * As cs_h5_flush (every row reaches the work file), but publish it to the
 * output path only when that is cheap: when the wall time since the last
 * publish is at least COWSIM_H5_CHECKPOINT_FACTOR (default 20) times what
 * this one will take (the last publish's duration scaled by the growth of
 * the file), so publishing costs at most 1/21 of the run.  The
 * engine calls it every output.flush_every blocks.  Returns CS_OK or the
 * sticky error.
 */
int cs_h5_checkpoint(cs_h5_t *h);

/* Root attributes for run-level numbers and strings (created or replaced).
 * Return CS_OK, CS_EINVAL (empty name, NULL string) or CS_EIO. */
int cs_h5_attr_u64(cs_h5_t *h, const char *name, uint64_t v);
int cs_h5_attr_f64(cs_h5_t *h, const char *name, double v);
int cs_h5_attr_str(cs_h5_t *h, const char *name, const char *s);

/* Rows accepted into dataset ds so far (after fires filtering). */
uint64_t cs_h5_rows(const cs_h5_t *h, cs_h5_ds ds);

/*
 * Flush, set the root attribute complete to 1 if complete is nonzero and no
 * error occurred (0 otherwise), write fires_seen, close the work file,
 * fsync it and rename it over the output path, and free the writer
 * (always, even on error).  After an error the output path keeps the last
 * checkpoint and the work file is removed.  Returns CS_OK or the first
 * error.  h == NULL is a no-op returning CS_OK.
 */
int cs_h5_close(cs_h5_t *h, int complete);

/* Message of the last failure in this thread ("" if none).  Static storage,
 * valid until the next cs_h5 call in the same thread. */
const char *cs_h5_last_error(void);

/* ---- reader -------------------------------------------------------------- */

/* Root attributes of a run file, owned by the reader. */
typedef struct cs_h5_info {
    int format_version;   /* root format_version */
    int complete;         /* 1 only if the run finished and the file was closed */
    uint64_t seed;        /* root seed */
    char *mechanism;      /* root mechanism */
    char *scenario_json;  /* root scenario_json */
    char *cowsim_version; /* root cowsim_version */
    char *git_commit;     /* root git_commit */
} cs_h5_info_t;

typedef struct cs_h5_reader cs_h5_reader_t;

/*
 * Open a run file read-only (file locking off, so a run still being written
 * can be inspected) and read its root attributes.  Returns the reader (free
 * with cs_h5_close_read) or NULL with *err = CS_EIO (cannot open / not HDF5
 * / truncated), CS_EPARSE (HDF5 but not a cowsim run file of a supported
 * format_version) or CS_ENOMEM.
 */
cs_h5_reader_t *cs_h5_open_read(const char *path, int *err);

/*
 * The reader sandbox (README "Security").  A run file handed to report,
 * compare or check is untrusted: a corrupt or hostile HDF5 file can crash
 * libhdf5 itself.  So cs_h5_open_read first reads the whole file (every root
 * attribute, every row of every table) in a forked child with core dumps
 * off, an address-space limit (+4 GiB) and a time limit (30 s, or
 * COWSIM_H5_SANDBOX_SECS from the environment, + 1 s per 16 MiB).  If the child dies, cs_h5_open_read returns NULL with CS_EPARSE
 * and a message naming the file and the signal; if the child met any error
 * (open, an attribute, a table), its code and message are returned and this
 * process never parses the file; otherwise the file is opened here as
 * usual.  So a file either opens and reads completely, or is refused at
 * open.  The cost is one more read of the file.
 *
 * cs_h5_set_sandbox(0) turns it off for this process (cowsim sweep does, for
 * the files it has just written, and because MPI ranks must not fork); so
 * does COWSIM_H5_SANDBOX=0 in the environment (to debug the reader under
 * gdb).  cs_h5_set_sandbox(1) turns it back on.
 */
void cs_h5_set_sandbox(int on);

/* Check a compound type read from an untrusted file (type_id is an hid_t):
 * a 1..65,536-byte row whose every member lies inside it.  Returns 1, or 0
 * with the reason in why.  libhdf5 converts rows by the stored member
 * offsets unchecked: every reader of tables must call this first. */
int cs_h5_row_type_ok(int64_t type_id, char *why, size_t cap);

/*
 * Run fn(path, arg) in a sandbox child as above (when the sandbox is on;
 * when it is off fn is not run and CS_OK is returned with *fn_rc = CS_OK).
 * fn returns a cs_error code; the child sends it back with the message of
 * cs_h5_last_error() at that point.  Returns CS_OK when the child finished
 * (*fn_rc = fn's code, cs_h5_last_error() = its message), CS_EPARSE when it
 * died (message names path and how), CS_EIO when it could not be started.
 * fn runs in a copy of this process: whatever it builds is lost; it must
 * not touch shared state outside the process (files it writes, pipes).
 */
typedef int (*cs_h5_sandbox_fn)(const char *path, void *arg);
int cs_h5_sandbox_call(const char *path, cs_h5_sandbox_fn fn, void *arg, int *fn_rc);

/* Counters of this process's sandbox children. */
typedef struct cs_h5_sandbox_stats {
    uint64_t probes;   /* children run */
    uint64_t crashes;  /* of those, children that died (each a CS_EPARSE) */
    uint64_t timeouts; /* of the crashes, children stopped by the time limit */
} cs_h5_sandbox_stats_t;
cs_h5_sandbox_stats_t cs_h5_sandbox_stats(void);
/* The root attributes; valid until cs_h5_close_read(r). */
const cs_h5_info_t *cs_h5_info(const cs_h5_reader_t *r);
/* Close and free; NULL is a no-op. */
void cs_h5_close_read(cs_h5_reader_t *r);

/* Number of rows in dataset ds.  CS_EPARSE if the dataset is missing or
 * its type lacks a column of this module's table, CS_EIO on read errors. */
int cs_h5_nrows(cs_h5_reader_t *r, cs_h5_ds ds, uint64_t *n);
/* Read rows [start, start + count) of ds into rows (count row structs, caller
 * allocated).  CS_ERANGE if the range exceeds the dataset. */
int cs_h5_read_rows(cs_h5_reader_t *r, cs_h5_ds ds, uint64_t start, size_t count, void *rows);

/*
 * Read a whole dataset into a malloc'd array (caller frees with free()).
 * On success *rows holds *n rows (*rows is NULL when *n == 0).  On error
 * *rows = NULL, *n = 0 and the code is returned (CS_EPARSE, CS_EIO,
 * CS_ENOMEM).
 */
int cs_h5_read_all(cs_h5_reader_t *r, cs_h5_ds ds, void **rows, size_t *n);
int cs_h5_read_blocks(cs_h5_reader_t *r, cs_h5_block_t **rows, size_t *n);
int cs_h5_read_fires(cs_h5_reader_t *r, cs_h5_fire_t **rows, size_t *n);
int cs_h5_read_timers(cs_h5_reader_t *r, cs_h5_timer_t **rows, size_t *n);
int cs_h5_read_actors(cs_h5_reader_t *r, cs_h5_actor_t **rows, size_t *n);
int cs_h5_read_weights(cs_h5_reader_t *r, cs_h5_weight_t **rows, size_t *n);
int cs_h5_read_summary(cs_h5_reader_t *r, cs_h5_summary_t **rows, size_t *n);
/* Format 1 files have no /identities: 0 rows. */
int cs_h5_read_idents(cs_h5_reader_t *r, cs_h5_ident_t **rows, size_t *n);

/* Read a scalar root attribute (any integer / float / string type that
 * converts).  CS_EPARSE if absent or not a single value.  *s is malloc'd,
 * caller frees. */
int cs_h5_read_attr_u64(cs_h5_reader_t *r, const char *name, uint64_t *v);
int cs_h5_read_attr_f64(cs_h5_reader_t *r, const char *name, double *v);
int cs_h5_read_attr_str(cs_h5_reader_t *r, const char *name, char **s);

#endif /* CS_H5_H */
