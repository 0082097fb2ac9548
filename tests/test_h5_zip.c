/*
 * test_h5_zip.c -- the chunk compression of the run file writer
 * (sim/cs_h5_zip.c): the SIMD byte shuffles against the scalar one and the
 * scalar one against the shuffle's definition, for awkward row sizes and
 * partial chunks; Fletcher-32 against a reference written here from HDF5's
 * definition; the O(1) Adler-32 of a run against zlib's; and chunks of each
 * plane kind (constant, zero, random, mixed, short runs) written raw into an
 * HDF5 dataset with the shuffle, deflate and fletcher32 filters and read
 * back through HDF5's own filters, byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>
#include <zlib.h>

#include "cs_error.h"
#include "cs_h5_zip.h"
#include "cs_test.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

/* splitmix64 */
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(rnd() >> 56);
}

/* ---- shuffle -------------------------------------------------------------------------- */

typedef void (*shuffle_fn)(uint8_t *, const uint8_t *, size_t, size_t, size_t);

static void check_shuffle(size_t es, size_t n, size_t used)
{
    size_t nb = es * n;
    uint8_t *src = malloc(nb), *ref = malloc(nb), *got = malloc(nb);
    CS_CHECK(src && ref && got);
    if (!src || !ref || !got) goto out;
    fill_random(src, used * es);
    memset(src + used * es, 0, (n - used) * es);
    /* The scalar path against the definition: byte j of row i at j * n + i,
     * rows from `used` on zero (the buffer starts as garbage). */
    memset(ref, 0xa5, nb);
    cs__h5_shuffle_scalar(ref, src, es, n, used);
    size_t bad = 0;
    for (size_t j = 0; j < es; j++)
        for (size_t i = 0; i < n; i++) bad += ref[j * n + i] != (i < used ? src[i * es + j] : 0);
    CS_CHECK_EQ_U64(bad, 0);
    shuffle_fn fns[3] = {cs__h5_shuffle, NULL, NULL};
#ifdef CS__H5_HAVE_X86
    fns[1] = cs__h5_shuffle_sse2;
    if (cs__h5_have_avx2()) fns[2] = cs__h5_shuffle_avx2;
#endif
    for (int f = 0; f < 3; f++) {
        if (!fns[f]) continue;
        memset(got, 0x5a, nb);
        fns[f](got, src, es, n, used);
        if (memcmp(got, ref, nb) != 0) {
            char d[96];
            snprintf(d, sizeof d, "path %d es %zu n %zu used %zu", f, es, n, used);
            cs_test_failed(__FILE__, __LINE__, "SIMD shuffle == scalar", d);
        } else {
            cs_test_pass++;
        }
    }
    /* Masked: the planes not skipped as the scalar path writes them, the
     * skipped ones untouched (runs of 16 and more skipped, and single ones). */
    uint8_t *skip = malloc(es);
    CS_CHECK(skip != NULL);
    if (!skip) goto out;
    for (size_t j = 0; j < es; j++) skip[j] = (uint8_t)((j / 16) % 3 == 1 || (j % 5 == 2));
    memset(got, 0x5a, nb);
    cs__h5_shuffle_masked(got, src, es, n, used, skip);
    bad = 0;
    for (size_t j = 0; j < es; j++)
        for (size_t i = 0; i < n; i++) bad += got[j * n + i] != (skip[j] ? 0x5a : ref[j * n + i]);
    CS_CHECK_EQ_U64(bad, 0);
    free(skip);
out:
    free(src);
    free(ref);
    free(got);
}

static void test_shuffle(void)
{
    static const size_t ess[] = {1, 2, 3, 8, 15, 16, 17, 31, 312, 313};
    static const size_t shapes[][2] = {{1, 1},    {1, 0},    {15, 15},   {16, 16},   {17, 17},
                                       {31, 31},  {32, 32},  {33, 33},   {64, 64},   {100, 37},
                                       {100, 16}, {128, 97}, {1000, 1000}, {1024, 1000}, {4096, 4095}};
    for (size_t e = 0; e < sizeof ess / sizeof ess[0]; e++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            check_shuffle(ess[e], shapes[s][0], shapes[s][1]);
}

/* ---- checksums ------------------------------------------------------------------------- */

/* HDF5's Fletcher-32 as its definition reads: big-endian 16-bit words (an
 * odd last byte is the high byte of a word), sum1 += word, sum2 += sum1,
 * each folded to 16 bits by adding the carry back (x = (x & 0xffff) +
 * (x >> 16)) after every word, and once more at the end; sum2 << 16 | sum1. */
static uint32_t fletcher_ref(const uint8_t *p, size_t len)
{
    uint32_t s1 = 0, s2 = 0;
    for (size_t i = 0; i < len; i += 2) {
        uint32_t w = (uint32_t)p[i] << 8 | (i + 1 < len ? p[i + 1] : 0);
        s1 += w;
        s1 = (s1 & 0xffff) + (s1 >> 16);
        s2 += s1;
        s2 = (s2 & 0xffff) + (s2 >> 16);
    }
    s1 = (s1 & 0xffff) + (s1 >> 16);
    s2 = (s2 & 0xffff) + (s2 >> 16);
    return s2 << 16 | s1;
}

static void test_fletcher(void)
{
    enum { MAX = 300000 };
    uint8_t *buf = malloc(MAX);
    CS_CHECK(buf != NULL);
    if (!buf) return;
    fill_random(buf, MAX);
    size_t bad = 0;
    for (size_t len = 0; len <= 1000; len++) bad += cs__h5_fletcher32(buf + len % 7, len) != fletcher_ref(buf + len % 7, len);
    CS_CHECK_EQ_U64(bad, 0);
    /* Long inputs cross the 2^14-word reductions; all-0xff words are 65535,
     * a multiple of the modulus that the fold keeps as 0xffff, never 0. */
    CS_CHECK_EQ_U64(cs__h5_fletcher32(buf, MAX - 3), fletcher_ref(buf, MAX - 3));
    memset(buf, 0xff, MAX);
    for (size_t len = 0; len <= 64; len++) bad += cs__h5_fletcher32(buf, len) != fletcher_ref(buf, len);
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(cs__h5_fletcher32(buf, MAX), fletcher_ref(buf, MAX));
    CS_CHECK_EQ_U64(cs__h5_fletcher32(buf, 4), 0xffffffffu); /* s1 = 2 x 0xffff -> 0xffff, s2 = 3 x 0xffff -> 0xffff */
    memset(buf, 0, MAX);
    CS_CHECK_EQ_U64(cs__h5_fletcher32(buf, MAX), 0);
    buf[MAX - 1] = 1; /* one word 0x0001 at the very end: sum1 = 1, sum2 = 1 */
    CS_CHECK_EQ_U64(cs__h5_fletcher32(buf, MAX), 0x00010001u);
    free(buf);
}

static void test_adler_run(void)
{
    static const size_t lens[] = {0, 1, 2, 7, 5552, 65520, 65521, 65522, 131042, 131043, 1048576, 1048581};
    static const uint8_t cs[] = {0, 1, 0x5a, 0xff};
    uint8_t *buf = malloc(1048581), pre[100];
    CS_CHECK(buf != NULL);
    if (!buf) return;
    fill_random(pre, sizeof pre);
    uLong starts[2] = {adler32(0, NULL, 0), adler32(adler32(0, NULL, 0), pre, sizeof pre)};
    size_t bad = 0;
    for (size_t c = 0; c < sizeof cs; c++) {
        memset(buf, cs[c], 1048581);
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
            for (int s = 0; s < 2; s++)
                bad += cs__h5_adler_run((uint32_t)starts[s], cs[c], lens[l]) != (uint32_t)adler32(starts[s], buf, (uInt)lens[l]);
    }
    CS_CHECK_EQ_U64(bad, 0);
    free(buf);
}

/* ---- round trips through HDF5's filters ----------------------------------------------- */

static char dir[] = "/tmp/cs_h5_zip_XXXXXX";

enum { GEN_CONST, GEN_ZERO, GEN_RANDOM, GEN_MIXED };

/* Rows of each kind: every byte 0x5a; zero; uniform random; fire-like rows
 * (a slowly rising height, a random id, small counters, constant and zero
 * fields, a run-heavy byte) whose planes mix all kinds. */
static void gen_rows(uint8_t *raw, int gen, size_t es, size_t used)
{
    for (size_t i = 0; i < used; i++) {
        uint8_t *r = raw + i * es;
        for (size_t j = 0; j < es; j++) {
            uint8_t b;
            switch (gen) {
            case GEN_CONST: b = 0x5a; break;
            case GEN_ZERO: b = 0; break;
            case GEN_RANDOM: b = (uint8_t)(rnd() >> 56); break;
            default:
                switch (j % 24) {
                case 0: b = (uint8_t)((1000 + i / 57) >> 0); break;
                case 1: b = (uint8_t)((1000 + i / 57) >> 8); break;
                case 2: case 3: case 4: case 5: case 6: case 7: b = (uint8_t)(rnd() >> 56); break;
                case 8: b = (uint8_t)(i % 7); break;
                case 9: b = 0x12; break;
                case 10: b = 0x34; break;
                case 11: b = (uint8_t)(i / 300); break;
                default: b = 0; break;
                }
            }
            r[j] = b;
        }
    }
}

/* Compress a chunk of `gen` rows (es bytes, n rows, used filled), check
 * the zlib stream inflates to the shuffled rows, write it raw into a
 * dataset with HDF5's shuffle, deflate and fletcher32 filters, and read it
 * back with H5Dread.  Returns the compressed size (0 on failure). */
static size_t round_trip(hid_t file, const char *name, int gen, size_t es, size_t n, size_t used)
{
    size_t nb = es * n, cap = cs__h5_out_bound(nb, es), len = 0, len2 = 0;
    uint8_t *raw = calloc(nb, 1), *out = malloc(cap), *out2 = malloc(cap), *shuf = malloc(nb), *inf = malloc(nb),
            *back = malloc(nb);
    cs__h5_zip_t zp, zq;
    memset(&zp, 0, sizeof zp);
    memset(&zq, 0, sizeof zq);
    const char *why = NULL;
    hid_t sp = H5I_INVALID_HID, t = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, ds = H5I_INVALID_HID;
    CS_CHECK(raw && out && out2 && shuf && inf && back);
    if (!raw || !out || !out2 || !shuf || !inf || !back) goto out;
    gen_rows(raw, gen, es, used);
    CS_CHECK_EQ_U64(cs__h5_compress(&zp, raw, es, n, used, out, cap, &len, &why), CS_OK);
    /* Deterministic: again on the warm workspace, and on a fresh one. */
    CS_CHECK_EQ_U64(cs__h5_compress(&zp, raw, es, n, used, out2, cap, &len2, &why), CS_OK);
    CS_CHECK(len2 == len && memcmp(out, out2, len) == 0);
    CS_CHECK_EQ_U64(cs__h5_compress(&zq, raw, es, n, used, out2, cap, &len2, &why), CS_OK);
    CS_CHECK(len2 == len && memcmp(out, out2, len) == 0);
    /* The stream alone: zlib inflates it (checking its Adler-32) to the
     * shuffled rows, and the last 4 bytes are the Fletcher-32 of the rest. */
    cs__h5_shuffle_scalar(shuf, raw, es, n, used);
    uLongf il = (uLongf)nb;
    CS_CHECK_EQ_U64(uncompress(inf, &il, out, (uLong)(len - 4)), Z_OK);
    CS_CHECK(il == nb && memcmp(inf, shuf, nb) == 0);
    uint32_t ck = fletcher_ref(out, len - 4);
    CS_CHECK(out[len - 4] == (uint8_t)ck && out[len - 3] == (uint8_t)(ck >> 8) && out[len - 2] == (uint8_t)(ck >> 16) &&
             out[len - 1] == (uint8_t)(ck >> 24));
    /* Through HDF5: the dataset holds `used` rows of one chunk. */
    hsize_t dims = used, maxd = H5S_UNLIMITED, chunk = n, off = 0;
    sp = H5Screate_simple(1, &dims, &maxd);
    t = H5Tcreate(H5T_OPAQUE, es);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CS_CHECK(sp >= 0 && t >= 0 && dcpl >= 0);
    CS_CHECK(H5Pset_chunk(dcpl, 1, &chunk) >= 0 && H5Pset_shuffle(dcpl) >= 0 && H5Pset_deflate(dcpl, 1) >= 0 &&
             H5Pset_fletcher32(dcpl) >= 0);
    ds = H5Dcreate2(file, name, t, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CS_CHECK(ds >= 0);
    if (ds < 0) goto out;
    CS_CHECK(H5Dwrite_chunk(ds, H5P_DEFAULT, 0, &off, len, out) >= 0);
    memset(back, 0xee, nb);
    CS_CHECK(H5Dread(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
    CS_CHECK(memcmp(back, raw, used * es) == 0);
out:
    if (ds >= 0) H5Dclose(ds);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (t >= 0) H5Tclose(t);
    if (sp >= 0) H5Sclose(sp);
    cs__h5_zip_free(&zp);
    cs__h5_zip_free(&zq);
    free(raw);
    free(out);
    free(out2);
    free(shuf);
    free(inf);
    free(back);
    return len;
}

static void test_round_trips(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/zip.h5", dir);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CS_CHECK(f >= 0);
    if (f < 0) return;
    /* A constant chunk is cached run pieces: 262,144 bytes in well under
     * 1 % (2 bits of code a 258-byte match). */
    size_t z = round_trip(f, "const", GEN_CONST, 16, 16384, 16384);
    CS_CHECK(z > 0 && z < 2000);
    z = round_trip(f, "zero", GEN_ZERO, 16, 16384, 16384);
    CS_CHECK(z > 0 && z < 2000);
    /* Random planes are stored: the payload plus a 5-byte header a block. */
    z = round_trip(f, "random", GEN_RANDOM, 8, 4096, 4096);
    CS_CHECK(z >= 8 * 4096 && z < 8 * 4096 + 8 * 64);
    /* Fire-like rows, a whole chunk and a partial one (used < n: the zero
     * rows join the constant planes only where the value is zero). */
    /* 6 of every 24 columns random: 78 planes stored, the rest small. */
    z = round_trip(f, "mixed", GEN_MIXED, 312, 4096, 4096);
    CS_CHECK(z >= 78 * 4096 && z < 312 * 4096 * 3 / 10);
    round_trip(f, "mixed_partial", GEN_MIXED, 313, 2048, 1500);
    /* Short runs (64 rows) and n not a multiple of 64 stay inside zlib pieces. */
    round_trip(f, "short", GEN_MIXED, 48, 64, 64);
    round_trip(f, "odd_rows", GEN_MIXED, 31, 1000, 999);
    round_trip(f, "const_odd_rows", GEN_CONST, 17, 1000, 1000);
    /* A partial chunk of a nonzero constant: each column is 0x5a then zeros,
     * not a constant plane, while a zero chunk stays one run. */
    z = round_trip(f, "const_partial", GEN_CONST, 16, 4096, 3000);
    CS_CHECK(z > 0 && z < 2000);
    z = round_trip(f, "zero_partial", GEN_ZERO, 16, 4096, 3000);
    CS_CHECK(z > 0 && z < 500);
    round_trip(f, "one_row", GEN_RANDOM, 3, 1, 1);
    H5Fclose(f);
    unlink(path);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_shuffle();
    test_fletcher();
    test_adler_run();
    test_round_trips();
    rmdir(dir);
    return cs_test_done("test_h5_zip");
}
