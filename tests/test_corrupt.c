/*
 * test_corrupt.c -- damaged run files are reported, never read as other
 * numbers (issue 25 #8).  One run of scenarios/minimal.json (fifo, 100
 * blocks, 2 agents; about 50 kB) is mutated 500 times with a fixed
 * xorshift stream: 400 single-byte flips (a random offset XOR a random
 * non-zero byte) and 100 truncations (a random length below the size).
 * Each mutant goes through cs_metrics_compute, as compare, check and report
 * read a file, and is counted as
 *   same     -- it reads and every metric (and the root fields the metrics
 *               carry: mechanism, seed, scenario) equals the original's;
 *   corrupt  -- refused with CS_ECORRUPT (exit status 4);
 *   refused  -- refused with another code (e.g. "not an HDF5 file" when the
 *               signature itself is hit);
 *   silent   -- it reads with some value different: must be 0.
 * The counts are printed; also a refused mutant must never be CS_EIO (the
 * file exists and is readable).
 */
#include "cs_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_error.h"
#include "cs_h5.h"
#include "cs_metrics.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

int main(void)
{
    const char *bin = getenv("CS_BIN");
    CS_CHECK(bin != NULL);
    if (!bin) return cs_test_done("corrupt");
    char dir[] = "/tmp/cs_test_corrupt_XXXXXX", cmd[4096], run[512], mut[512];
    CS_CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "'%s' run scenarios/minimal.json -o '%s' --quiet > /dev/null 2>&1", bin, dir);
    CS_CHECK(system(cmd) == 0);
    snprintf(run, sizeof run, "%s/fifo.h5", dir);
    snprintf(mut, sizeof mut, "%s/mutant.h5", dir);
    size_t n = 0;
    unsigned char *orig = cs_test_slurp(run, &n), *buf = orig ? malloc(n) : NULL;
    CS_CHECK(orig != NULL && buf != NULL && n > 1000);
    static cs_metrics_t m0, m;
    char err[1024];
    memset(&m0, 0, sizeof m0);
    CS_CHECK_EQ_U64(cs_metrics_compute(run, NULL, &m0, err, sizeof err), CS_OK);
    int same = 0, corrupt = 0, refused = 0, silent = 0, eio = 0;
    /* 500 mutants, the first four fifths flips; under CS_TEST_SMALL (the
     * sanitizer suite, where forking the reader's sandbox for each mutant
     * is most of the time) the first 100 flips and 25 truncations. */
    const int N = (int)cs_test_size("mutants", 500, 125), FLIPS = N / 5 * 4;
    for (int i = 0; orig && buf && i < N; i++) {
        memcpy(buf, orig, n);
        size_t len = n;
        size_t at = 0;
        if (i < FLIPS) {
            at = (size_t)(next() % n);
            unsigned char x = (unsigned char)(1 + next() % 255);
            buf[at] ^= x;
        } else {
            len = (size_t)(next() % n);
        }
        CS_CHECK(cs_test_spit(mut, buf, len) == 0);
        memset(&m, 0, sizeof m);
        int rc = cs_metrics_compute(mut, NULL, &m, err, sizeof err);
        if (rc == CS_OK) {
            /* the path is not part of the metrics: only the values */
            if (memcmp(&m, &m0, sizeof m) == 0) same++;
            else {
                silent++;
                fprintf(stderr, "  silent difference: mutant %d (%s at %zu of %zu): mechanism %s seed %llu scenario %s\n",
                        i, i < FLIPS ? "flip" : "truncation", at, len, m.mechanism, (unsigned long long)m.seed,
                        m.scenario);
            }
        } else if (rc == CS_ECORRUPT) {
            corrupt++;
        } else {
            refused++;
            if (rc == CS_EIO) eio++;
            fprintf(stderr, "  mutant %d refused with %s: %s\n", i, cs_strerror(rc), err);
        }
    }
    printf("corrupt: %d mutants: %d read identically, %d reported corrupt, %d refused otherwise, %d silent differences\n",
           N, same, corrupt, refused, silent);
    CS_CHECK_EQ_U64(same + corrupt + refused, N);
    CS_CHECK_EQ_U64(silent, 0);
    CS_CHECK_EQ_U64(eio, 0);
    free(orig);
    free(buf);
    unlink(mut);
    unlink(run);
    rmdir(dir);
    return cs_test_done("corrupt");
}
