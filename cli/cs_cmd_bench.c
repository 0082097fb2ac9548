/* cs_cmd_bench.c -- `cowsim bench [core|e2e|memory|backlog] [--json] [--quick]
 * [--pending N] [--rounds R]`: parses the arguments and runs the benchmark
 * sections of bench/ (cs_bench_core.h, cs_bench_clear.h, cs_bench_e2e.h,
 * cs_bench_backlog.h, cs_bench_arrivals.h). */
#include "cs_bench_arrivals.h"
#include "cs_bench_backlog.h"
#include "cs_bench_clear.h"
#include "cs_bench_core.h"
#include "cs_bench_e2e.h"
#include "cs_cli.h"
#include "cs_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void cs__bench_usage(FILE *f)
{
    fprintf(f, "usage: cowsim bench [core|e2e|memory|backlog] [--json] [--quick] [--pending N] [--rounds R]\n"
               "                    [--backlog N]\n"
               "  core   scheduler core: tiered queue vs binary heap, mechanism clearing\n"
               "  e2e    end to end on scenarios/bench-large.json\n"
               "  memory peak RSS with 10^7 pending timers (10^6 with --quick)\n"
               "  backlog a congested lane with a standing backlog (bench/backlog.json) and\n"
               "          the per-block cost at backlogs of 10^3, 10^4, 10^5 deferred timers,\n"
               "          and the agents' draws and decisions per arrival, nobody joining\n"
               "  --json machine-readable output\n"
               "  --quick smaller sizes (smoke test)\n"
               "  --pending N  core only: the queue lifecycle at N pending timers alone\n"
               "               (1000..10^7, e.g. 1e6), without the other size and clearing\n"
               "  --backlog N  backlog only: the scheduler alone at N deferred timers\n"
               "               (1000..10^6)\n"
               "  --rounds R   core only: rounds of queue, heap and harness runs per size\n"
               "               (1..25; default 5, 3 with --quick); medians are reported\n");
}

int cs_cmd_bench(int argc, char **argv)
{
    const char *what = "core";
    int json = 0, quick = 0;
    size_t pending = 0; /* 0: the default sizes */
    size_t backlog = 0; /* 0: the whole backlog benchmark */
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
        } else if (strcmp(argv[i], "--backlog") == 0 && i + 1 < argc) {
            char *end;
            double v = strtod(argv[++i], &end);
            if (*end != '\0' || !(v >= 1000 && v <= 1e6) || v != (double)(size_t)v) {
                fprintf(stderr, "cowsim bench: --backlog: must be a whole number in 1000..1e6\n");
                cs__bench_usage(stderr);
                return CS_EXIT_USAGE;
            }
            backlog = (size_t)v;
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
                                         strcmp(argv[i], "memory") == 0 || strcmp(argv[i], "backlog") == 0))
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
    if (strcmp(what, "backlog") == 0) {
        cs_bench_open(&o, stdout, json, "cowsim bench backlog");
        int rc = cs_bench_backlog(&o, quick, backlog);
        if (rc == 0 && backlog == 0) rc = cs_bench_arrivals(&o, quick); /* draws and decisions alone */
        cs_bench_close(&o);
        if (rc == CS_EINVAL || rc == CS_EPARSE) return CS_EXIT_USAGE;
        return rc == 0 ? CS_EXIT_OK : CS_EXIT_IO;
    }
    int mem = strcmp(what, "memory") == 0;
    cs_bench_open(&o, stdout, json, mem ? "cowsim bench memory" : "cowsim bench e2e");
    int rc = mem ? cs_bench_memory(&o, quick) : cs_bench_e2e(&o, quick);
    cs_bench_close(&o);
    if (rc == CS_EINVAL || rc == CS_EPARSE) return CS_EXIT_USAGE;
    return rc == 0 ? CS_EXIT_OK : CS_EXIT_IO;
}
