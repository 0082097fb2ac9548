/*
 * cs_bench_backlog.h -- `cowsim bench backlog` (bench/cs_bench_backlog.c):
 * a congested lane with a standing backlog of deferred timers (issue 26).
 */
#ifndef CS_BENCH_BACKLOG_H
#define CS_BENCH_BACKLOG_H

#include <stddef.h>

#include "cs_bench_out.h"

/* Run the workload and the backlog-scaling figures and print them to o;
 * with backlog != 0 only the scaling figure at that backlog.  Returns 0,
 * or a cs_err code when the scenario cannot be loaded or a run fails. */
int cs_bench_backlog(cs_bench_out_t *o, int quick, size_t backlog);

#endif /* CS_BENCH_BACKLOG_H */
