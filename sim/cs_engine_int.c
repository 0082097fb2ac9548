/*
 * cs_engine_int.c -- the engine's helpers that every piece of it calls
 * (cs_engine.c, cs_engine_world.c, cs_engine_output.c): the error message,
 * a named deployer's address and a timer's information as agents see it.
 */
#include "cs_engine_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Set the engine's error message (printf format). */
void cs__seterr(cs_engine_t *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->err, sizeof e->err, fmt, ap);
    va_end(ap);
}

/* The address of a named deployer: one address shared by all its actors. */
void cs__deployer_addr(const char *name, cs_addr_t *dep)
{
    uint8_t hsh[32];
    cs_keccak256(name, strlen(name), hsh);
    memset(dep, 0, sizeof *dep);
    memcpy(dep->b, hsh, 20);
}

/* What agents see of the timer in slot: its id, owner, tag, due height (a
 * watch is due at the next block, or, triggered and deferred, at its
 * trigger height: CIP-5 CN §9.3), value, decay, deadline and cycles. */
cs_timer_info_t cs__info(const cs_engine_t *e, uint32_t slot, const cs_timer_t *t)
{
    const cs__tinfo_t *ti = &e->ti[slot];
    cs_timer_info_t in;
    memset(&in, 0, sizeof in);
    in.id = t->id;
    (void)cs__ti_owner(e, slot, NULL, &in.actor);
    in.tag = ti->tag;
    const cs_timer_hot_t *th = cs_sched_hot(e->s, slot);
    in.due_height = th->kind == CS_KIND_WATCH && !(th->flags & CS_TF_CARRIED) ? e->h + 1 : th->height;
    in.sched_height = t->sched_height;
    in.value = ti->value;
    in.decay = ti->decay;
    in.deadline = cs__ti_deadline(e, slot);
    in.gas_limit = t->gas_limit;
    in.cycles_used = cs__ti_cycles(e, slot);
    return in;
}
