/*
 * cs_engine_output.h -- the rows the engine writes while a run goes
 * (cs_engine_output.c): buffered /fires, /blocks and /timers rows and the
 * /identities table.  Internal to the engine.
 */
#ifndef CS_ENGINE_OUTPUT_H
#define CS_ENGINE_OUTPUT_H

#include "cs_engine_int.h"

int cs__flush_rows(cs_engine_t *e);
/* Where the engine fills its next /fires or /timers row (ds): in place in
 * the writer's chunk when the writer takes it so (cs_h5_row_next), else
 * in the engine's row buffer (flushed first when full).  *direct tells
 * cs__row_end which.  NULL when that flush failed (the error is set). */
void *cs__row_begin(cs_engine_t *e, cs_h5_ds ds, int *direct);
/* Accept the row cs__row_begin gave, once every byte of it is written:
 * CS_OK, or the writer's error (e->failed set, the error message too). */
int cs__row_end(cs_engine_t *e, cs_h5_ds ds, int direct);
void cs__timer_row(cs_engine_t *e, uint32_t slot, int outcome, uint64_t end_h);
int cs__write_idents(cs_engine_t *e);
int cs__write_nmax(cs_engine_t *e);

#endif /* CS_ENGINE_OUTPUT_H */
