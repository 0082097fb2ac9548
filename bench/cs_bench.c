/* cs_bench.c -- `cowsim bench [core|e2e|memory] [--json] [--quick]
 * [--pending N] [--rounds R]` and the
 * result writer shared by the benchmarks. */
#include "cs_bench.h"
#include "cs_cli.h"
#include "cs_error.h"

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

static void cs__bench_usage(FILE *f)
{
    fprintf(f, "usage: cowsim bench [core|e2e|memory] [--json] [--quick] [--pending N] [--rounds R]\n"
               "  core   scheduler core: tiered queue vs binary heap, mechanism clearing\n"
               "  e2e    end to end on scenarios/bench-large.json\n"
               "  memory peak RSS with 10^7 pending timers (10^6 with --quick)\n"
               "  --json machine-readable output\n"
               "  --quick smaller sizes (smoke test)\n"
               "  --pending N  core only: the queue lifecycle at N pending timers alone\n"
               "               (1000..10^7, e.g. 1e6), without the other size and clearing\n"
               "  --rounds R   core only: rounds of queue, heap and harness runs per size\n"
               "               (1..25; default 5, 3 with --quick); medians are reported\n");
}

int cs_cmd_bench(int argc, char **argv)
{
    const char *what = "core";
    int json = 0, quick = 0;
    size_t pending = 0; /* 0: the default sizes */
    int rounds = 0;     /* 0: the default count */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) json = 1;
        else if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strcmp(argv[i], "--pending") == 0 && i + 1 < argc) {
            char *end;
            double v = strtod(argv[++i], &end);
            if (*end != '\0' || !(v >= 1000 && v <= 1e7) || v != (double)(size_t)v) {
                fprintf(stderr, "cowsim bench: --pending: must be a whole number in 1000..1e7\n");
                cs__bench_usage(stderr);
                return CS_EXIT_USAGE;
            }
            pending = (size_t)v;
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end != '\0' || end == argv[i] || v < 1 || v > CS_BENCH_CORE_ROUNDS_MAX) {
                fprintf(stderr, "cowsim bench: --rounds: must be a whole number in 1..%d\n", CS_BENCH_CORE_ROUNDS_MAX);
                cs__bench_usage(stderr);
                return CS_EXIT_USAGE;
            }
            rounds = (int)v;
        }
        else if (strcmp(argv[i], "--help") == 0) {
            cs__bench_usage(stdout);
            return CS_EXIT_OK;
        } else if (argv[i][0] != '-' && (strcmp(argv[i], "core") == 0 || strcmp(argv[i], "e2e") == 0 ||
                                         strcmp(argv[i], "memory") == 0))
            what = argv[i];
        else {
            fprintf(stderr, "cowsim bench: unknown argument '%s'\n", argv[i]);
            cs__bench_usage(stderr);
            return CS_EXIT_USAGE;
        }
    }
    cs_bench_out_t o;
    if (strcmp(what, "core") == 0) {
        cs_bench_open(&o, stdout, json, "cowsim bench core");
        int rc = cs_bench_core(&o, quick, pending, rounds);
        if (rc == 0 && pending == 0) rc = cs_bench_clear(&o, quick);
        cs_bench_close(&o);
        return rc == 0 ? CS_EXIT_OK : CS_EXIT_IO;
    }
    int mem = strcmp(what, "memory") == 0;
    cs_bench_open(&o, stdout, json, mem ? "cowsim bench memory" : "cowsim bench e2e");
    int rc = mem ? cs_bench_memory(&o, quick) : cs_bench_e2e(&o, quick);
    cs_bench_close(&o);
    if (rc == CS_EINVAL || rc == CS_EPARSE) return CS_EXIT_USAGE;
    return rc == 0 ? CS_EXIT_OK : CS_EXIT_IO;
}
