/* cs_bench_clear.c -- placeholder until the clearing benchmark lands. */
#include "cs_bench.h"

int cs_bench_clear(cs_bench_out_t *o, int quick)
{
    (void)o;
    (void)quick;
    return 0;
}
