/*
 * cs_bench_core.h -- the core benchmark of `cowsim bench core` (bench/cs_bench_core.c).
 */
#ifndef CS_BENCH_CORE_H
#define CS_BENCH_CORE_H

#include <stddef.h>

#include "cs_bench_out.h"

/* Core benchmark: tiered queue lifecycle vs a binary heap (issue: core),
 * at 10^5 and 10^6 pending, or at `pending` alone when it is not 0, in
 * `rounds` rounds (0: CS_BENCH_CORE_ROUNDS, 3 with quick) whose medians
 * are reported. */
#define CS_BENCH_CORE_ROUNDS 5
#define CS_BENCH_CORE_ROUNDS_MAX 25
int cs_bench_core(cs_bench_out_t *o, int quick, size_t pending, int rounds);

#endif /* CS_BENCH_CORE_H */
