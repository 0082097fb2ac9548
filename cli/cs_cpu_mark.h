/*
 * cs_cpu_mark.h -- COWSIM_CPU_MARK=H for `cowsim run` (bench/speed_vs.sh):
 * when a run completes block H, print the process's CPU time so far (user
 * and system, every thread) to stderr,
 *
 *     cowsim run: MECH: cpu_mark block H process_cpu_seconds S
 *
 * so a benchmark can time the blocks after a warm-up from outside the
 * process (the run's CPU time less S).  Unset, empty, 0 or not a decimal
 * number: no line.  Self-contained (static functions, libc only), so
 * bench/speed_vs.sh can copy it into an older tree to time that build the
 * same way.
 */
#ifndef CS_CPU_MARK_H
#define CS_CPU_MARK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The block to mark (UINT64_MAX: none), read once. */
static uint64_t cs__cpu_mark(void)
{
    static int done;
    static uint64_t mark = UINT64_MAX;
    if (!done) {
        const char *v = getenv("COWSIM_CPU_MARK");
        char *end = NULL;
        unsigned long long x = v && *v >= '0' && *v <= '9' ? strtoull(v, &end, 10) : 0;
        if (end && *end == '\0' && x > 0) mark = (uint64_t)x;
        done = 1;
    }
    return mark;
}

static void cs__print_cpu_mark(const char *mech, uint64_t h)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return;
    fprintf(stderr, "cowsim run: %s: cpu_mark block %llu process_cpu_seconds %.6f\n", mech, (unsigned long long)h,
            (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
}

#endif /* CS_CPU_MARK_H */
