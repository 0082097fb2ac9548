/*
 * cs_fees.h -- the money side of the scheduler (cs_fees.c): balances,
 * escrowed bids, per-cycle fees, W(actor), the lane basefee and the
 * previous-block p50 tip (CIP-1 rev §3 steps 4-10, §5-§9; CIP-5 §9.7;
 * DESIGN §2.3-2.6).
 *
 * The public part is the scheduler's money API (cs_sched.h includes this
 * header, so callers see one interface).  The cs__fees_* part is internal:
 * the hooks the store (cs_sched.c) and the end-of-block pipeline
 * (cs_eob.c) call; it needs only the scheduler's types
 * (cs_sched_types.h), so the money side stands below the scheduler.
 *
 * Ownership: cs__fees_init allocates the state behind s->fees and
 * cs__fees_free releases it (cs_sched_alloc / cs_sched_free call them).
 */
#ifndef CS_FEES_H
#define CS_FEES_H

#include "cs_error.h"
#include "cs_mech.h"
#include "cs_sched_types.h"
#include "cs_timer.h"
#include "cs_types.h"

/* Money and fairness (cs_fees.c).  Actors are interned on first use; the
 * ledger account of an actor is its index. */
int cs_sched_actor_index(cs_sched_t *s, const cs_addr_t *a, uint32_t *idx);
int cs_sched_fund(cs_sched_t *s, const cs_addr_t *a, cs_u128 amount);
int cs_sched_set_deployer(cs_sched_t *s, const cs_addr_t *actor, const cs_addr_t *deployer);
cs_u128 cs_sched_balance(const cs_sched_t *s, uint32_t actor);
/* D13: the CIP-3 environment for the next block (the cycle basefee is
 * stored as timer fires are charged it, cs_basefee_cycle_charged, N38). */
void cs_sched_set_env(cs_sched_t *s, cs_u128 basefee_cycle, cs_u128 basefee_cell);
cs_u128 cs_sched_lane_basefee(const cs_sched_t *s);
/* The lane basefee actually charged (lane_fee_multiplier applied, §5). */
cs_u128 cs_sched_lane_basefee_charged(const cs_sched_t *s);
/* 1 when the price base fee rules bid against (cs_sched_lane_basefee_charged)
 * is the CIP-3 cycle basefee itself, with no lane basefee on top: gba-tip
 * under gba_tip_lane = none (N65).  A fire then pays the price base and its
 * tip per cycle, both within max_fee. */
int cs_sched_lane_is_cycle(const cs_sched_t *s);
/* The fire-count median W(actor) uses in this block (CIP-1 rev §8, D12). */
uint64_t cs_sched_fair_median(const cs_sched_t *s);
cs_u128 cs_sched_p50_tip(const cs_sched_t *s);
struct cs_ledger;
const struct cs_ledger *cs_sched_ledger(const cs_sched_t *s);
/* W(actor) in ppm for the block being built (CIP-1 rev §8). */
uint64_t cs_sched_weight(const cs_sched_t *s, uint32_t actor);
/* Snapshot of tracked identities: returns the count written (<= cap). */
uint32_t cs_sched_weights(const cs_sched_t *s, uint32_t *ident, uint64_t *recent, uint64_t *w_ppm,
                          uint32_t cap);
/* Schedule and cancel costs actor has paid so far (CIP-5 §6.1, N58). */
void cs_sched_actor_costs(const cs_sched_t *s, uint32_t actor, cs_u128 *sched, cs_u128 *cancel);
/* Run totals of TimerPriorityClampedAtSchedule and TimerRejectedBelowBasefee. */
void cs_sched_counters(const cs_sched_t *s, uint64_t *clamped, uint64_t *rejected_below);
/* DESIGN §2.6 invariants; CS_EINVARIANT with a description in msg. */
int cs_sched_check_invariants(const cs_sched_t *s, char *msg, size_t cap);

/* ------------------------------------------------- internal (cs_sched.c, cs_eob.c) */

/* Allocate the money state of s (ledger, fairness, lane basefee);
 * CS_OK, CS_ENOMEM or CS_EINVAL. */
int cs__fees_init(cs_sched_t *s);
void cs__fees_free(cs_sched_t *s);
void cs__fees_begin_block(cs_sched_t *s, uint64_t h);
/* CIP-1 rev §13.2 activation: a freshly initialised fairness window (every
 * actor at W = w_max).  CS_EINVAL / CS_ENOMEM. */
int cs__fees_activate(cs_sched_t *s);
int cs__fees_validate(cs_sched_t *s, const cs_sched_args_t *a, cs_timer_hot_t *hot, cs_timer_t *rec,
                      cs_timer_money_t *m);
/* CIP-5 §6.1 costs of a schedule or cancel call (N58): *cost = cycles x
 * the cycle basefee + cells x the cell basefee.  CS_OK when actor's
 * balance covers *cost + reserve (a bid the schedule will lock),
 * CS_EINSUFFICIENT_FUNDS otherwise, CS_EOVERFLOW if the cost does not fit. */
int cs__fees_op_check(cs_sched_t *s, uint32_t actor, uint64_t cycles, uint64_t cells, cs_u128 reserve,
                      cs_u128 *cost);
/* Debit a cost cs__fees_op_check accepted (burned, like the basefees it
 * prices) and count it for the block and the actor: a cancel when
 * is_cancel, else a schedule. */
void cs__fees_op_debit(cs_sched_t *s, uint32_t actor, cs_u128 cost, int is_cancel);
void cs__fees_on_destroy(cs_sched_t *s, uint32_t slot);
int cs__fees_on_insert(cs_sched_t *s, uint32_t slot);
int cs__fees_classify(cs_sched_t *s, uint32_t slot, cs_cand_t *c);
/* 1 when a fire its payer cannot pay is deferred rather than destroyed:
 * gba-tip under gba_tip_charge = draft (CIP-1 first draft §4.1, D10,
 * DESIGN-NOTES N60), at classification and at the pre-charge alike. */
int cs__fees_defers(const cs_sched_t *s);
/* 1 when the run's fees have no lane basefee: gba-tip under gba_tip_lane =
 * none (the first draft, DESIGN-NOTES N65) prices against the CIP-3 cycle
 * basefee, and the lane basefee is neither charged nor updated. */
int cs__fees_draft_lane(const cs_sched_t *s);
int cs__fees_precharge(cs_sched_t *s, const cs_cand_t *c, cs_cand_row_t *row);
/* The ledger's balance and escrow arrays and their length, for the
 * end-of-block loops to prefetch the payers' entries (performance only). */
void cs__fees_ledger_arrays(const cs_sched_t *s, const cs_u128 **bal, const cs_u128 **esc, uint32_t *n);
void cs__fees_settle(cs_sched_t *s, const cs_cand_t *c, uint64_t used_cycles,
                     uint64_t used_cells, cs_cand_row_t *row);
void cs__fees_ctx(cs_sched_t *s, cs_clear_ctx_t *ctx);
/* Step 9's fee and fairness side for the block's candidates c[0..n) (the
 * scheduler's cands; the fired ones are those s->cfired marks, their rows
 * s->crow[i]).  CS_OK, or CS_ENOMEM when the fairness counters or the tip
 * list could not grow. */
int cs__fees_end_block(cs_sched_t *s, const cs_cand_t *c, size_t n, cs_block_stats_t *st);
/* 1 when every member of the persistent ranking (cs_rank.h) surely passes
 * the funds test of this block, CIP-1 rev §3 step 4 (balance(fee_payer) >=
 * max_cost) and so eip1559's step 8 pre-charge test: every payer of a
 * member holds at least the bound gmax x (basefee_cycle + max(fmax,
 * basefee_lane)) + cmax x basefee_cell over max_cost (N81). */
int cs__fees_rank_funded(const cs_sched_t *s);
/* The same bound for the one timer in slot (fixed fee caps). */
int cs__fees_surely_funded(const cs_sched_t *s, uint32_t slot);

#endif /* CS_FEES_H */
