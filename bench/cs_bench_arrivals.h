/*
 * cs_bench_arrivals.h -- the arrivals-only figure of `cowsim bench
 * backlog` (bench/cs_bench_arrivals.c): what the agents' draws and
 * decisions cost per arrival, nobody joining (issue 26 point 3).
 */
#ifndef CS_BENCH_ARRIVALS_H
#define CS_BENCH_ARRIVALS_H

#include "cs_bench_out.h"

/* Step the agents of bench/backlog.json, nobody joining, and print the
 * section "arrivals_draws" to o.  Returns 0, or a cs_err code when the
 * scenario cannot be loaded or an agent cannot be built (a message on
 * stderr). */
int cs_bench_arrivals(cs_bench_out_t *o, int quick);

#endif /* CS_BENCH_ARRIVALS_H */
