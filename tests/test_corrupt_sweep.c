/*
 * test_corrupt_sweep.c -- a damaged sweep summary is reported, never read as
 * other numbers (issue 25: integrity of every file cowsim writes;
 * analysis/cs_h5_table.h).  One sweep of scenarios/sweeps/grid.json
 * (4 points x 2 seeds x 2 mechanisms: 16 rows of /runs; about 15 kB) is
 * mutated 500 times with a fixed splitmix64 stream: 400 single-byte flips and
 * 100 truncations (CS_TEST_SMALL, CI's sanitizer suite: the first 100 flips
 * and 25 truncations).  Each mutant is opened as report and sweep --resume open
 * it (H5Fopen, then cs_sweep_file_verify) and counted as
 *   same     -- it verifies, and every root attribute and every byte of
 *               /runs (read in its native type) equal the original's;
 *   corrupt  -- cs_sweep_file_verify says CS_ECORRUPT (exit status 4);
 *   refused  -- HDF5 does not open it (report: "cannot open as HDF5",
 *               exit 2);
 *   silent   -- it verifies and reads with some value different: must be 0.
 * Then, end to end on one flip inside the first chunk of /runs (found with
 * H5Dget_chunk_info): `cowsim report` exits 4 naming the file,
 * `cowsim sweep --resume` exits 4 naming it and leaves it as it was, and
 * the Python loader raises CorruptRunError naming it.  An extent of 10^9
 * rows is refused before memory for them is reserved.  A summary in the
 * older layout (tests/data/sweep-v0/sweep.h5: written by main at 54e8bef, contiguous
 * /runs without checksums, variable-length string attributes) still
 * verifies, and one whose runs_done disagrees with /runs is corrupt.
 */
#include "cs_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "cs_error.h"
#include "cs_h5_table.h"

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint64_t next(void)
{
    return cs_test_rand64(&rng_state);
}

/* What a reader gets from a verified sweep file: the root attributes
 * (name=value lines) and /runs' member names and bytes, in one buffer. */
typedef struct {
    char *b;
    size_t n, cap;
} sbuf_t;

static void put(sbuf_t *s, const void *p, size_t n)
{
    if (s->n + n > s->cap) {
        s->cap = (s->n + n) * 2;
        s->b = realloc(s->b, s->cap);
    }
    memcpy(s->b + s->n, p, n);
    s->n += n;
}

/* 0 and the contents in *s, or -1 when something does not read. */
static int contents(hid_t f, sbuf_t *s)
{
    static const char *const strs[] = {"name", "sweep_json", "base_json", "design", "cowsim_version", "git_commit"};
    static const char *const nums[] = {"complete", "n_runs", "runs_done", "n_points", "n_seeds"};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        int bad = 0;
        char *v = cs_h5t_read_attr_str(f, strs[i], &bad);
        if (bad) return -1;
        put(s, strs[i], strlen(strs[i]));
        if (v) put(s, v, strlen(v) + 1);
        free(v);
    }
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        uint64_t v = 0;
        hid_t a = H5Aopen(f, nums[i], H5P_DEFAULT);
        int ok = a >= 0 && H5Aread(a, H5T_NATIVE_UINT64, &v) >= 0;
        if (a >= 0) H5Aclose(a);
        if (!ok) return -1;
        put(s, &v, sizeof v);
    }
    hid_t ds = H5Dopen2(f, "runs", H5P_DEFAULT);
    hid_t ft = ds >= 0 ? H5Dget_type(ds) : -1;
    hid_t nt = ft >= 0 ? H5Tget_native_type(ft, H5T_DIR_ASCEND) : -1;
    hid_t sp = ds >= 0 ? H5Dget_space(ds) : -1;
    hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    int rc = nt >= 0 && n >= 0 ? 0 : -1;
    for (int m = 0; rc == 0 && m < H5Tget_nmembers(nt); m++) {
        char *name = H5Tget_member_name(nt, (unsigned)m);
        if (name) put(s, name, strlen(name) + 1);
        H5free_memory(name);
    }
    if (rc == 0 && n > 0) {
        size_t bytes = (size_t)n * H5Tget_size(nt);
        char *buf = calloc(bytes, 1);
        if (H5Dread(ds, nt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) rc = -1;
        else put(s, buf, bytes);
        free(buf);
    }
    if (sp >= 0) H5Sclose(sp);
    if (nt >= 0) H5Tclose(nt);
    if (ft >= 0) H5Tclose(ft);
    if (ds >= 0) H5Dclose(ds);
    return rc;
}

/* Open path as report does and verify it: CS_OK with the contents in *s,
 * CS_ECORRUPT, or CS_EPARSE when HDF5 does not open it. */
static int read_sweep(const char *path, sbuf_t *s, char *err, size_t cap)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return CS_EPARSE;
    int rc = cs_sweep_file_verify(f, path, err, cap);
    if (rc == CS_OK && contents(f, s) != 0) rc = CS_EIO; /* verified, then unreadable: counted as a failure */
    H5Fclose(f);
    return rc;
}

/* Run cmd with stderr to errf; returns the exit status (-1 if not exited). */
static int status_of(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int file_has(const char *path, const char *needle)
{
    size_t n = 0;
    unsigned char *b = cs_test_slurp(path, &n);
    if (!b) return 0;
    int has = strstr((char *)b, needle) != NULL;
    free(b);
    return has;
}

int main(void)
{
    const char *bin = getenv("CS_BIN");
    CS_CHECK(bin != NULL);
    if (!bin) return cs_test_done("corrupt_sweep");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    /* No free-list caching in libhdf5: a block it leaks while reading a
     * mutant (LeakSanitizer off) must not be one first allocated, and so
     * tracked, before. */
    H5set_free_list_limits(0, 0, 0, 0, 0, 0);
    char dir[600], cmd[8192], sw[700], mut[700], errf[700];
    snprintf(dir, sizeof dir, "%s/cs_test_corrupt_sweep_XXXXXX", cs_test_tmpdir());
    CS_CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "'%s' sweep scenarios/sweeps/grid.json -o '%s/s' --quiet > /dev/null 2>&1", bin, dir);
    CS_CHECK_EQ_U64(status_of(cmd), 0);
    snprintf(sw, sizeof sw, "%s/s/sweep.h5", dir);
    snprintf(mut, sizeof mut, "%s/mutant.h5", dir);
    snprintf(errf, sizeof errf, "%s/err", dir);
    size_t n = 0;
    unsigned char *orig = cs_test_slurp(sw, &n), *buf = orig ? malloc(n) : NULL;
    CS_CHECK(orig != NULL && buf != NULL && n > 1000);
    char err[1024];
    sbuf_t s0 = {0}, s = {0};
    CS_CHECK_EQ_U64(read_sweep(sw, &s0, err, sizeof err), CS_OK);
    CS_CHECK(s0.n > 16 * 300); /* 16 rows of /runs at least */

    /* ---- 500 mutants ---------------------------------------------------- */
    /* The first four fifths flips; under CS_TEST_SMALL (the sanitizer
     * suite) 125 mutants: the first 100 flips and 25 truncations. */
    const int N = (int)cs_test_size("mutants", 500, 125), FLIPS = N / 5 * 4;
    int same = 0, corrupt = 0, refused = 0, silent = 0, other = 0;
    for (int i = 0; orig && buf && i < N; i++) {
        memcpy(buf, orig, n);
        size_t len = n, at = 0;
        if (i < FLIPS) {
            at = (size_t)(next() % n);
            buf[at] ^= (unsigned char)(1 + next() % 255);
        } else {
            len = (size_t)(next() % n);
        }
        CS_CHECK(cs_test_spit(mut, buf, len) == 0);
        s.n = 0;
        /* libhdf5 leaks parts of some damaged headers it fails to decode
         * (as in tests/test_h5.c): LeakSanitizer ignores the mutants' reads. */
        CS__LSAN_DISABLE();
        int rc = read_sweep(mut, &s, err, sizeof err);
        CS__LSAN_ENABLE();
        if (rc == CS_OK && s.n == s0.n && memcmp(s.b, s0.b, s.n) == 0) {
            same++;
        } else if (rc == CS_OK) {
            silent++;
            fprintf(stderr, "  silent difference: mutant %d (%s at %zu of %zu)\n", i, i < FLIPS ? "flip" : "truncation",
                    at, len);
        } else if (rc == CS_ECORRUPT) {
            corrupt++;
            CS_CHECK(strstr(err, "is corrupt") != NULL && strstr(err, mut) != NULL);
        } else if (rc == CS_EPARSE) {
            refused++;
        } else {
            other++;
            fprintf(stderr, "  mutant %d: verified, then a read failed\n", i);
        }
    }
    printf("corrupt_sweep: %d mutants: %d read identically, %d reported corrupt, %d not opened by HDF5, "
           "%d silent differences, %d other\n",
           N, same, corrupt, refused, silent, other);
    CS_CHECK_EQ_U64(same + corrupt + refused + silent + other, N);
    CS_CHECK_EQ_U64(silent, 0);
    CS_CHECK_EQ_U64(other, 0);
    CS_CHECK(corrupt > 0);

    /* ---- one flip inside /runs' first chunk, end to end ------------------ */
    hid_t f = H5Fopen(sw, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = f >= 0 ? H5Dopen2(f, "runs", H5P_DEFAULT) : -1;
    haddr_t addr = HADDR_UNDEF;
    hsize_t csize = 0;
    unsigned mask = 0;
    hsize_t off[1];
    hid_t fsp = ds >= 0 ? H5Dget_space(ds) : -1;
    CS_CHECK(fsp >= 0 && H5Dget_chunk_info(ds, fsp, 0, off, &mask, &addr, &csize) >= 0);
    if (fsp >= 0) H5Sclose(fsp);
    if (ds >= 0) H5Dclose(ds);
    if (f >= 0) H5Fclose(f);
    CS_CHECK(addr != HADDR_UNDEF && csize > 100 && addr + csize <= n);
    if (orig && addr != HADDR_UNDEF && addr + csize <= n) {
        unsigned char *d = cs_test_slurp(sw, &n);
        d[addr + csize / 2] ^= 0x01; /* one bit of a row */
        CS_CHECK(cs_test_spit(sw, d, n) == 0);
        free(d);
    }
    s.n = 0;
    CS_CHECK_EQ_U64(read_sweep(sw, &s, err, sizeof err), CS_ECORRUPT);
    CS_CHECK(strstr(err, "/runs does not read") != NULL);
    snprintf(cmd, sizeof cmd, "'%s' report '%s' -o '%s/rep' > /dev/null 2> '%s'", bin, sw, dir, errf);
    CS_CHECK_EQ_U64(status_of(cmd), 4);
    CS_CHECK(file_has(errf, "is corrupt") && file_has(errf, sw));
    size_t n1 = 0;
    unsigned char *before = cs_test_slurp(sw, &n1);
    snprintf(cmd, sizeof cmd, "'%s' sweep scenarios/sweeps/grid.json -o '%s/s' --resume --quiet > /dev/null 2> '%s'",
             bin, dir, errf);
    CS_CHECK_EQ_U64(status_of(cmd), 4);
    CS_CHECK(file_has(errf, "is corrupt") && file_has(errf, sw) && file_has(errf, "remove it"));
    size_t n2 = 0;
    unsigned char *after = cs_test_slurp(sw, &n2);
    CS_CHECK(before && after && n1 == n2 && memcmp(before, after, n1) == 0);
    free(before);
    free(after);
    snprintf(cmd, sizeof cmd,
             "PYTHONPATH=python /usr/bin/python3 -c \"import sys, cowsim\n"
             "try:\n    cowsim.load_sweep(sys.argv[1], params=None)\nexcept cowsim.CorruptRunError as e:\n"
             "    sys.exit(0 if sys.argv[1] in str(e) and 'is corrupt' in str(e) else 3)\nsys.exit(1)\" '%s' 2> '%s'",
             sw, errf);
    CS_CHECK_EQ_U64(status_of(cmd), 0);

    /* ---- an extent of 10^9 rows over the 16 stored: refused before the
     * rows are reserved ------------------------------------------------- */
    snprintf(mut, sizeof mut, "%s/big.h5", dir);
    CS_CHECK(orig && cs_test_spit(mut, orig, n) == 0);
    f = H5Fopen(mut, H5F_ACC_RDWR, H5P_DEFAULT);
    ds = f >= 0 ? H5Dopen2(f, "runs", H5P_DEFAULT) : -1;
    hsize_t big[1] = {1000000000};
    CS_CHECK(ds >= 0 && H5Dset_extent(ds, big) >= 0);
    if (ds >= 0) H5Dclose(ds);
    if (f >= 0) H5Fclose(f);
    CS_CHECK_EQ_U64(read_sweep(mut, &s, err, sizeof err), CS_ECORRUPT);
    CS_CHECK(strstr(err, "claims more rows than it stores") != NULL);
    snprintf(cmd, sizeof cmd,
             "PYTHONPATH=python /usr/bin/python3 -c \"import sys, cowsim\n"
             "try:\n    cowsim.load_sweep(sys.argv[1], params=None)\nexcept cowsim.CorruptRunError as e:\n"
             "    sys.exit(0 if 'claims more rows' in str(e) else 3)\nsys.exit(1)\" '%s' 2> '%s'",
             mut, errf);
    CS_CHECK_EQ_U64(status_of(cmd), 0);

    /* ---- the older layout ----------------------------------------------- */
    const char *old = "tests/data/sweep-v0/sweep.h5";
    s.n = 0;
    CS_CHECK_EQ_U64(read_sweep(old, &s, err, sizeof err), CS_OK);
    f = H5Fopen(old, H5F_ACC_RDONLY, H5P_DEFAULT);
    ds = f >= 0 ? H5Dopen2(f, "runs", H5P_DEFAULT) : -1;
    hid_t dcpl = ds >= 0 ? H5Dget_create_plist(ds) : -1;
    CS_CHECK(dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CONTIGUOUS); /* really the old layout */
    if (dcpl >= 0) H5Pclose(dcpl);
    if (ds >= 0) H5Dclose(ds);
    if (f >= 0) H5Fclose(f);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/old.h5'", old, dir);
    CS_CHECK_EQ_U64(status_of(cmd), 0);
    snprintf(mut, sizeof mut, "%s/old.h5", dir);
    f = H5Fopen(mut, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t a = f >= 0 ? H5Aopen(f, "runs_done", H5P_DEFAULT) : -1;
    uint64_t seven = 7;
    CS_CHECK(a >= 0 && H5Awrite(a, H5T_NATIVE_UINT64, &seven) >= 0);
    if (a >= 0) H5Aclose(a);
    if (f >= 0) H5Fclose(f);
    CS_CHECK_EQ_U64(read_sweep(mut, &s, err, sizeof err), CS_ECORRUPT);
    CS_CHECK(strstr(err, "runs_done") != NULL);
    printf("corrupt_sweep: old layout verifies; runs_done 7 of 8: %s\n", err);

    free(orig);
    free(buf);
    free(s0.b);
    free(s.b);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CS_CHECK_EQ_U64(status_of(cmd), 0);
    return cs_test_done("corrupt_sweep");
}
