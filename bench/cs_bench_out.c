/* cs_bench_out.c -- clocks, the result writer and the median shared by the
 * benchmarks of `cowsim bench` (cs_bench_out.h). */
#include "cs_bench_out.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double cs_bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU time of the calling thread in nanoseconds: unlike the wall clock it
 * does not count the time the thread waits for a core, so on a shared,
 * loaded machine it shows what the code itself costs. */
double cs_bench_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

void cs_bench_open(cs_bench_out_t *o, FILE *f, int json, const char *title)
{
    o->f = f;
    o->json = json;
    o->first = 1;
    if (json) fputs("{", f);
    else fprintf(f, "%s\n", title);
}

static void cs__bench_key(cs_bench_out_t *o, const char *key)
{
    if (o->json) {
        fprintf(o->f, "%s\"%s\": ", o->first ? "" : ", ", key);
    } else {
        fprintf(o->f, "  %-28s ", key);
    }
    o->first = 0;
}

void cs_bench_num(cs_bench_out_t *o, const char *key, double v)
{
    cs__bench_key(o, key);
    fprintf(o->f, o->json ? "%.6g" : "%.4g\n", v);
}

void cs_bench_int(cs_bench_out_t *o, const char *key, unsigned long long v)
{
    cs__bench_key(o, key);
    fprintf(o->f, o->json ? "%llu" : "%llu\n", v);
}

void cs_bench_str(cs_bench_out_t *o, const char *key, const char *v)
{
    cs__bench_key(o, key);
    fprintf(o->f, o->json ? "\"%s\"" : "%s\n", v);
}

void cs_bench_section(cs_bench_out_t *o, const char *name)
{
    if (o->json) {
        fprintf(o->f, "%s\"%s\": {", o->first ? "" : ", ", name);
    } else {
        fprintf(o->f, "[%s]\n", name);
    }
    o->first = 1;
}

void cs_bench_end_section(cs_bench_out_t *o)
{
    if (o->json) fputs("}", o->f);
    o->first = 0;
}

void cs_bench_close(cs_bench_out_t *o)
{
    if (o->json) fputs("}\n", o->f);
    fflush(o->f);
}

static int cs__bench_dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cs_bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cs__bench_dcmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
