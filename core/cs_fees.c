/*
 * cs_fees.c -- the money side of the pipeline: fee validation at schedule
 * time, lifecycle funds checks, settlement, fairness and basefee updates.
 * (Interim: FIFO only; the fee mechanisms are wired in next.)
 */
#include "cs_sched_int.h"

#include <string.h>

int cs__fees_init(cs_sched_t *s) { (void)s; return CS_OK; }
void cs__fees_free(cs_sched_t *s) { (void)s; }
void cs__fees_begin_block(cs_sched_t *s, uint64_t h) { (void)s; (void)h; }

int cs__fees_validate(cs_sched_t *s, const cs_sched_args_t *a, cs_timer_t *rec)
{
    rec->gas_limit = a->gas_limit ? a->gas_limit : s->p.fifo_fire_cycles;
    rec->max_cells = a->max_cells ? a->max_cells : s->p.fifo_fire_cells;
    rec->bid = a->bid;
    rec->max_fee = a->max_fee;
    rec->max_prio = a->max_prio;
    return CS_OK;
}

void cs__fees_on_destroy(cs_sched_t *s, uint32_t slot) { (void)s; (void)slot; }

int cs__fees_classify(cs_sched_t *s, uint32_t slot, cs_cand_t *c)
{
    const cs_timer_t *t = &s->pool[slot];
    c->cycles = t->gas_limit;
    c->ident = t->actor;
    c->balance = CS_U128_MAX;
    return CS_OK;
}

int cs__fees_precharge(cs_sched_t *s, const cs_cand_t *c, cs_cand_row_t *row)
{
    (void)s; (void)c; (void)row;
    return CS_OK;
}

void cs__fees_settle(cs_sched_t *s, const cs_cand_t *c, uint64_t used_cycles, uint64_t used_cells,
                     cs_cand_row_t *row)
{
    (void)s; (void)c; (void)used_cycles; (void)used_cells; (void)row;
}

void cs__fees_ctx(cs_sched_t *s, cs_clear_ctx_t *ctx)
{
    ctx->budget_cycles = s->p.lane_timer_cycles;
}

void cs__fees_end_block(cs_sched_t *s, const cs_cand_t *c, size_t n, cs_block_stats_t *st)
{
    (void)s; (void)c; (void)n; (void)st;
}
