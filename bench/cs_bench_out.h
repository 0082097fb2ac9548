/*
 * cs_bench_out.h -- what every benchmark of `cowsim bench` shares: clocks,
 * the result writer (aligned text or JSON) and the median.  Every figure is
 * reported next to a baseline measured in the same run, because the
 * machines this runs on are shared and noisy.
 */
#ifndef CS_BENCH_OUT_H
#define CS_BENCH_OUT_H

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

#endif /* CS_BENCH_OUT_H */
