/*
 * cs_test.h -- a minimal test harness: CS_CHECK records a failure with file
 * and line and keeps going; cs_test_done() prints "N passed, N failed" and
 * returns the exit status for main().
 */
#ifndef CS_TEST_H
#define CS_TEST_H

#include <stdint.h>
#include <string.h>

#include "cs_types.h"

extern long cs_test_pass, cs_test_fail;
void cs_test_failed(const char *file, int line, const char *expr, const char *detail);
int cs_test_done(const char *suite);

/* A test actor's address: byte 0 is `hi` (one per test file), byte 19
 * `tag`, the rest 0. */
static inline cs_addr_t cs_test_addr(uint8_t hi, uint8_t tag)
{
    cs_addr_t a;
    memset(a.b, 0, sizeof a.b);
    a.b[0] = hi;
    a.b[19] = tag;
    return a;
}

#define CS_CHECK(e)                                                  \
    do {                                                             \
        if (e) cs_test_pass++;                                       \
        else cs_test_failed(__FILE__, __LINE__, #e, NULL);           \
    } while (0)

#define CS_CHECK_EQ_U64(a, b)                                                        \
    do {                                                                             \
        unsigned long long cs__a = (unsigned long long)(a), cs__b = (unsigned long long)(b); \
        if (cs__a == cs__b) cs_test_pass++;                                          \
        else {                                                                       \
            char cs__d[96];                                                          \
            snprintf(cs__d, sizeof cs__d, "%llu != %llu", cs__a, cs__b);             \
            cs_test_failed(__FILE__, __LINE__, #a " == " #b, cs__d);                 \
        }                                                                            \
    } while (0)

#define CS_CHECK_STR(a, b)                                                           \
    do {                                                                             \
        const char *cs__a = (a), *cs__b = (b);                                       \
        if (cs__a && cs__b && strcmp(cs__a, cs__b) == 0) cs_test_pass++;             \
        else cs_test_failed(__FILE__, __LINE__, #a " == " #b, cs__a ? cs__a : "(null)"); \
    } while (0)

/*
 * Check a CS_KILL_LOG file of tests/cs_killshim.c against the publish rule
 * (DESIGN-NOTES N48): every rename is preceded by an fsync of the file it
 * renames, with no write to that file in between, and followed at once by
 * an fsync of the directory of the new name (calls of one process; several
 * processes may share the log).  Prints each violation on
 * stderr; returns their number, and the number of renames in *renames.
 */
long cs_test_publish_log(const char *log, long *renames);

/* End a test that kept its files in dir: remove dir if every check passed,
 * else say where the files are; then cs_test_done(suite). */
int cs_test_finish(const char *suite, const char *dir);

/* Run the scenario JSON text under mechanism mech to completion, writing
 * the run file path (NULL: none), with the scenario's seed; the run's
 * statistics in *st (may be NULL).  0 on success; -1 with the scenario's
 * or the engine's message on stderr. */
struct cs_run_stats;
int cs_test_run_text(const char *text, const char *mech, const char *path, struct cs_run_stats *st);
/* The engine of cs_test_run_text before its first block (NULL, with the
 * loader's or cs_sim_init's messages on stderr, on failure); *scn_out gets
 * the scenario, freed by the caller after cs_sim_done. */
struct cs_engine;
struct cs_scenario;
struct cs_engine *cs_test_engine_text(const char *text, const char *mech, const char *path,
                                      struct cs_scenario **scn_out);

/* cs_cli_main(argc, argv) in this process with its stdout on /dev/null,
 * or (cs_test_cli_out) written to the file at path; its exit status. */
int cs_test_cli_quiet(int argc, char **argv);
int cs_test_cli_out(const char *path, int argc, char **argv);
/* Put the stand-in gnuplot tests/cs_fakegp.c ($CS_FAKEGP, set by
 * CMakeLists.txt) first on PATH, as dir/bin/gnuplot; 0, or -1 when
 * CS_FAKEGP is unset or the link cannot be made. */
int cs_test_fake_gnuplot(const char *dir);

/* splitmix64: a test's own deterministic generator (state advanced). */
static inline uint64_t cs_test_rand64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The size of a test's scale loop (worlds, blocks, mutants): full, or small
 * when the environment sets CS_TEST_SMALL to anything but "" and "0".  Only
 * .ci/run sets it, for its sanitizer suite, where the same code paths run
 * at the smaller scale (the release suite and tests/release.sh run the full
 * size).  what names the size on stdout when small is taken. */
uint64_t cs_test_size(const char *what, uint64_t full, uint64_t small);

/* Hex helpers. */
void cs_test_hex(const uint8_t *b, size_t n, char *out); /* out: 2n+1 bytes */
/* The directory for a test's scratch files: $TMPDIR when set and not
 * empty (CMakeLists.txt points it at a tmpfs, CS_TEST_TMPDIR), else /tmp. */
const char *cs_test_tmpdir(void);
/* Every dataset of the run file at path, in dataset order, each as its
 * row count (8 bytes) then its rows; *n gets the length.  NULL if the file
 * cannot be read.  Two runs have the same outputs when these are equal. */
char *cs_test_datasets(const char *path, size_t *n);
/* The whole file at path, NUL-terminated (not counted in *n); NULL if it
 * does not read.  Free with free(). */
unsigned char *cs_test_slurp(const char *path, size_t *n);
/* Write n bytes of b to path (created or truncated); 0 or -1. */
int cs_test_spit(const char *path, const unsigned char *b, size_t n);

/* bench/backlog.json scaled down to 300 affine_user actors and a lane of
 * 143 timers (about the workload's proportions) with the default lane
 * basefee start of 1,000 per cycle, so a start-up flood leaves a standing
 * backlog of due-but-deferred timers whose fee caps stay below the
 * basefee; eip1559, seed 2611, /fires on.  Written as JSON into buf (n
 * bytes) with the given name and block count; returns buf. */
const char *cs_test_flood_scenario(char *buf, size_t n, const char *name, unsigned blocks);

/* Run the scenario text txt (JSON) under mechanism mech with seed, in
 * process, to its last block, writing no file; its statistics into *st.
 * CS_OK when it loaded and ran to the end, else an error code (the reasons
 * on stderr). */
int cs_test_run_seed(const char *txt, const char *mech, uint64_t seed, struct cs_run_stats *st);

/* LeakSanitizer off around a call whose leaks are libhdf5's own (it leaks
 * parts of damaged files it fails to decode); no-ops without ASan. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define CS__LSAN_DISABLE() __lsan_disable()
#define CS__LSAN_ENABLE() __lsan_enable()
#else
#define CS__LSAN_DISABLE() ((void)0)
#define CS__LSAN_ENABLE() ((void)0)
#endif

#include <stdio.h>
#endif
