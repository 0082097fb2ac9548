/*
 * cs_bench_e2e.h -- `cowsim bench e2e` and `bench memory` (bench/cs_bench_e2e.c).
 */
#ifndef CS_BENCH_E2E_H
#define CS_BENCH_E2E_H

#include <stddef.h>

#include "cs_bench_out.h"

/* End to end on scenarios/bench-large.json (bench/cs_bench_e2e.c). */
int cs_bench_e2e(cs_bench_out_t *o, int quick);
/* Peak RSS with 10^7 pending timers (bench/cs_bench_e2e.c). */
int cs_bench_memory(cs_bench_out_t *o, int quick);

#endif /* CS_BENCH_E2E_H */
