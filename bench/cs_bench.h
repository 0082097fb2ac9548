/*
 * cs_bench.h -- benchmarks behind `cowsim bench` (bench/).  Every figure is
 * reported next to a baseline measured in the same run, because the
 * machines this runs on are shared and noisy.
 */
#ifndef CS_BENCH_H
#define CS_BENCH_H

#include <stdio.h>

/* Monotonic wall clock in nanoseconds. */
double cs_bench_now_ns(void);
double cs_bench_cpu_ns(void); /* the calling thread's CPU time */

/* A flat JSON object writer for results: cs_bench_kv(f, "key", value). */
typedef struct cs_bench_out {
    FILE *f;   /* destination */
    int json;  /* 1 = JSON, 0 = aligned text */
    int first; /* no field written yet in the current object */
} cs_bench_out_t;
void cs_bench_open(cs_bench_out_t *o, FILE *f, int json, const char *title);
void cs_bench_num(cs_bench_out_t *o, const char *key, double v);
void cs_bench_int(cs_bench_out_t *o, const char *key, unsigned long long v);
void cs_bench_str(cs_bench_out_t *o, const char *key, const char *v);
void cs_bench_section(cs_bench_out_t *o, const char *name); /* nested object start */
void cs_bench_end_section(cs_bench_out_t *o);
void cs_bench_close(cs_bench_out_t *o);

/* Median of v[0..n), n >= 1, sorting v in place: the middle value, or the
 * mean of the two middle values when n is even. */
double cs_bench_median(double *v, int n);

/* Core benchmark: tiered queue lifecycle vs a binary heap (issue: core),
 * at 10^5 and 10^6 pending, or at `pending` alone when it is not 0, in
 * `rounds` rounds (0: CS_BENCH_CORE_ROUNDS, 3 with quick) whose medians
 * are reported. */
#define CS_BENCH_CORE_ROUNDS 5
#define CS_BENCH_CORE_ROUNDS_MAX 25
int cs_bench_core(cs_bench_out_t *o, int quick, size_t pending, int rounds);
/* Mechanism clearing figures, appended to the core benchmark. */
int cs_bench_clear(cs_bench_out_t *o, int quick);
/* End to end on scenarios/bench-large.json (bench/cs_bench_e2e.c). */
int cs_bench_e2e(cs_bench_out_t *o, int quick);
/* Peak RSS with 10^7 pending timers (bench/cs_bench_e2e.c). */
int cs_bench_memory(cs_bench_out_t *o, int quick);

#endif
