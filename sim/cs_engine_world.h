/*
 * cs_engine_world.h -- the engine's world side (cs_engine_world.c): the
 * timer side table's extras, arrival batches, pending cancels, the world
 * ops agents call and the core's hooks.  Internal to the engine.
 */
#ifndef CS_ENGINE_WORLD_H
#define CS_ENGINE_WORLD_H

#include "cs_engine_int.h"

cs__textra_t *cs__ti_extra_new(cs_engine_t *e, uint32_t slot);
int cs__batch_flush(cs_engine_t *e);
int cs__pc_push(cs_engine_t *e, const cs_hash_t *id, uint32_t slot);
/* N55: after a's timer in slot was deferred in block h (deferrals so far),
 * queue SYS_CANCEL_TIMER or SYS_EXTEND_TIMER per a's policy.  CS_ENOMEM. */
int cs__sys_note(cs_engine_t *e, const cs_agent_t *a, uint32_t slot, const cs_hash_t *id, uint64_t deferrals,
                 uint64_t h);
/* Apply one queued entry at the start of a block (the owner's cancel or
 * the system opcode); a timer gone meanwhile is skipped. */
void cs__pc_apply(cs_engine_t *e, const cs__pcancel_t *pc);
void cs__bind_pending(cs_engine_t *e);
int cs__w_cancel(void *impl, cs_agent_t *a, uint32_t actor, const cs_hash_t *id);
cs_world_t cs__mkworld(cs_engine_t *e);
void cs__hook_execute(void *user, cs_sched_t *s, const cs_delivery_t *d, uint64_t *uc, uint64_t *ue);
/* The cycles and cells a fire's handler will use, as cs__hook_execute
 * reports them (the core's usage hook, DESIGN-NOTES N60). */
void cs__hook_usage(void *user, const cs_sched_t *s, uint32_t slot, uint64_t *cycles, uint64_t *cells);
/* The core's ahead hook: prefetches what cs__hook_execute reads first. */
void cs__hook_ahead(void *user, uint32_t slot);
int cs__hook_gba(void *user, const cs_timer_t *t, const cs_gba_ctx_pub_t *ctx, cs_u128 *max_fee,
                 cs_u128 *max_prio);

#endif /* CS_ENGINE_WORLD_H */
