/*
 * cs_engine_output.h -- the rows the engine writes while a run goes
 * (cs_engine_output.c): buffered /fires, /blocks and /timers rows and the
 * /identities table.  Internal to the engine.
 */
#ifndef CS_ENGINE_OUTPUT_H
#define CS_ENGINE_OUTPUT_H

#include "cs_engine_int.h"

int cs__flush_rows(cs_engine_t *e);
void cs__timer_row(cs_engine_t *e, uint32_t slot, int outcome, uint64_t end_h);
int cs__write_idents(cs_engine_t *e);
int cs__write_nmax(cs_engine_t *e);

#endif /* CS_ENGINE_OUTPUT_H */
