/*
 * cs_bench_clear.h -- mechanism clearing figures of `cowsim bench core` (bench/cs_bench_clear.c).
 */
#ifndef CS_BENCH_CLEAR_H
#define CS_BENCH_CLEAR_H

#include <stddef.h>

#include "cs_bench_out.h"

/* Mechanism clearing figures, appended to the core benchmark. */
int cs_bench_clear(cs_bench_out_t *o, int quick);

#endif /* CS_BENCH_CLEAR_H */
