/*
 * cs_h5_zip.c -- compression of the run file's chunks; see cs_h5_zip.h.
 *
 * The bytes of a chunk are what HDF5's filters shuffle, deflate and
 * fletcher32 decode (the writer declares them on every dataset and writes
 * the chunks raw with H5Dwrite_chunk):
 *
 *   shuffle    byte j of row i to plane j, position i;
 *   deflate    one zlib stream (RFC 1950: header 78 01, deflate blocks,
 *              the Adler-32 of the shuffled bytes, big-endian);
 *   fletcher32 HDF5's checksum of the zlib stream, appended little-endian.
 *
 * The zlib stream is built plane by plane (DESIGN-NOTES N98).  Most planes
 * of a run file are constant (the high bytes of small integers and of
 * money): a run of equal planes is emitted from cached deflate blocks for
 * runs of 2^k bytes of that value.  Planes that look uniformly random (hash
 * bytes, low bytes of amounts) are stored blocks.  The rest go through zlib
 * (level 1, Z_RLE).  Each piece ends on a byte boundary (zlib's pieces with
 * Z_SYNC_FLUSH) and starts from a reset deflate state, so the pieces never
 * refer to each other's bytes, and the concatenation is one valid deflate
 * stream ended by an empty final block.  All of it depends only on the
 * chunk's bytes, so the output is deterministic.
 */
#include "cs_h5_zip.h"

#include <stdlib.h>
#include <string.h>

#include "cs_error.h"

#ifdef CS__H5_HAVE_X86
#include <immintrin.h>
#endif

/* ---- shuffle ------------------------------------------------------------------ */

/* Rows past `used` are zero in src (a partial chunk): their bytes in every
 * plane are zero, set without the scattered loads.  Planes with skip[j]
 * set (skip may be NULL) are left alone, here and in every path below. */
static void cs__h5_shuffle_tail(uint8_t *dst, size_t es, size_t n, size_t used, const uint8_t *skip)
{
    if (used < n)
        for (size_t j = 0; j < es; j++)
            if (!skip || !skip[j]) memset(dst + j * n + used, 0, n - used);
}

/* Byte by byte, in tiles of 64 rows so each tile of the source stays in L1. */
static void cs__h5_shuffle_c(uint8_t *dst, const uint8_t *src, size_t es, size_t n, size_t used, const uint8_t *skip)
{
    for (size_t i0 = 0; i0 < used; i0 += 64) {
        size_t i1 = used - i0 < 64 ? used : i0 + 64;
        for (size_t j = 0; j < es; j++) {
            if (skip && skip[j]) continue;
            uint8_t *d = dst + j * n;
            const uint8_t *s = src + j;
            for (size_t i = i0; i < i1; i++) d[i] = s[i * es];
        }
    }
    cs__h5_shuffle_tail(dst, es, n, used, skip);
}

void cs__h5_shuffle_scalar(uint8_t *dst, const uint8_t *src, size_t es, size_t n, size_t used)
{
    cs__h5_shuffle_c(dst, src, es, n, used, NULL);
}

#ifdef CS__H5_HAVE_X86
/*
 * A 16 x 16 byte transpose in four rounds of unpacks (bytes, words, dwords,
 * qwords).  With __m256i the same rounds transpose two 16 x 16 blocks at
 * once, one per 128-bit lane.  x[r] is row r; y[k] becomes column k.
 */
#define CS__H5_TRANSPOSE16(T, U8L, U8H, U16L, U16H, U32L, U32H, U64L, U64H, x, y) \
    do {                                                                           \
        T s1_[16], s2_[16], s3_[16];                                               \
        for (int i_ = 0; i_ < 8; i_++) {                                           \
            s1_[i_] = U8L(x[2 * i_], x[2 * i_ + 1]);                               \
            s1_[i_ + 8] = U8H(x[2 * i_], x[2 * i_ + 1]);                           \
        }                                                                          \
        for (int h_ = 0; h_ < 2; h_++)                                             \
            for (int i_ = 0; i_ < 4; i_++) {                                       \
                s2_[h_ * 8 + i_] = U16L(s1_[h_ * 8 + 2 * i_], s1_[h_ * 8 + 2 * i_ + 1]); \
                s2_[h_ * 8 + 4 + i_] = U16H(s1_[h_ * 8 + 2 * i_], s1_[h_ * 8 + 2 * i_ + 1]); \
            }                                                                      \
        for (int b_ = 0; b_ < 4; b_++)                                             \
            for (int i_ = 0; i_ < 2; i_++) {                                       \
                s3_[b_ * 4 + i_] = U32L(s2_[b_ * 4 + 2 * i_], s2_[b_ * 4 + 2 * i_ + 1]); \
                s3_[b_ * 4 + 2 + i_] = U32H(s2_[b_ * 4 + 2 * i_], s2_[b_ * 4 + 2 * i_ + 1]); \
            }                                                                      \
        for (int q_ = 0; q_ < 8; q_++) {                                           \
            y[2 * q_] = U64L(s3_[2 * q_], s3_[2 * q_ + 1]);                        \
            y[2 * q_ + 1] = U64H(s3_[2 * q_], s3_[2 * q_ + 1]);                    \
        }                                                                          \
    } while (0)

/* Column offsets of the 16-byte blocks of a row: 0, 16, ..., and a last one
 * at es - 16 that overlaps its neighbour when 16 does not divide es (the
 * overlap rewrites the same bytes).  Likewise for rows. */
static size_t cs__h5_blk(size_t at, size_t w, size_t total)
{
    return at + w <= total ? at : total - w;
}

/* Rows a tile: the columns of a tile's rows are finished before the next
 * tile, so each plane's 64-byte line is written whole while it is in L1
 * (the planes lie n bytes apart, often a multiple of 4 KiB, so they
 * compete for the same cache sets). */
#define CS__H5_TILE 64

/* Nonzero when all 16 planes from j on are skipped (no loads needed). */
static int cs__h5_skip16(const uint8_t *skip, size_t j)
{
    if (!skip) return 0;
    uint64_t a, b;
    memcpy(&a, skip + j, 8);
    memcpy(&b, skip + j + 8, 8);
    return (a & b) == 0x0101010101010101u;
}

/* SSE2 (every x86-64 CPU): 16 rows x 16 bytes a step. */
static void cs__h5_shuffle_x16(uint8_t *dst, const uint8_t *src, size_t es, size_t n, size_t used, const uint8_t *skip)
{
    if (es < 16 || used < 16) {
        cs__h5_shuffle_c(dst, src, es, n, used, skip);
        return;
    }
    for (size_t t0 = 0; t0 < used; t0 += CS__H5_TILE)
        for (size_t j0 = 0; j0 < es; j0 += 16)
            for (size_t i0 = t0; i0 < used && i0 < t0 + CS__H5_TILE; i0 += 16) {
                size_t i = cs__h5_blk(i0, 16, used), j = cs__h5_blk(j0, 16, es);
                if (cs__h5_skip16(skip, j)) break;
                const uint8_t *s = src + i * es + j;
                __m128i x[16], y[16];
                for (int r = 0; r < 16; r++) x[r] = _mm_loadu_si128((const __m128i *)(const void *)(s + (size_t)r * es));
                CS__H5_TRANSPOSE16(__m128i, _mm_unpacklo_epi8, _mm_unpackhi_epi8, _mm_unpacklo_epi16,
                                   _mm_unpackhi_epi16, _mm_unpacklo_epi32, _mm_unpackhi_epi32,
                                   _mm_unpacklo_epi64, _mm_unpackhi_epi64, x, y);
                uint8_t *d = dst + j * n + i;
                for (int k = 0; k < 16; k++)
                    if (!skip || !skip[j + (size_t)k]) _mm_storeu_si128((__m128i *)(void *)(d + (size_t)k * n), y[k]);
            }
    cs__h5_shuffle_tail(dst, es, n, used, skip);
}

void cs__h5_shuffle_sse2(uint8_t *dst, const uint8_t *src, size_t es, size_t n, size_t used)
{
    cs__h5_shuffle_x16(dst, src, es, n, used, NULL);
}

int cs__h5_have_avx2(void)
{
    return __builtin_cpu_supports("avx2");
}

/* AVX2: 32 rows x 16 bytes a step, rows i..i+15 in the low lanes and
 * i+16..i+31 in the high lanes, so each column is one 32-byte store. */
__attribute__((target("avx2"))) static void cs__h5_shuffle_x32(uint8_t *dst, const uint8_t *src, size_t es,
                                                               size_t n, size_t used, const uint8_t *skip)
{
    if (es < 16 || used < 32) {
        cs__h5_shuffle_x16(dst, src, es, n, used, skip);
        return;
    }
    for (size_t t0 = 0; t0 < used; t0 += CS__H5_TILE)
        for (size_t j0 = 0; j0 < es; j0 += 16)
            for (size_t i0 = t0; i0 < used && i0 < t0 + CS__H5_TILE; i0 += 32) {
                size_t i = cs__h5_blk(i0, 32, used), j = cs__h5_blk(j0, 16, es);
                if (cs__h5_skip16(skip, j)) break;
                const uint8_t *s = src + i * es + j;
                __m256i x[16], y[16];
                for (int r = 0; r < 16; r++) {
                    __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)(s + (size_t)r * es));
                    __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(s + (size_t)(r + 16) * es));
                    x[r] = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
                }
                CS__H5_TRANSPOSE16(__m256i, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8, _mm256_unpacklo_epi16,
                                   _mm256_unpackhi_epi16, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32,
                                   _mm256_unpacklo_epi64, _mm256_unpackhi_epi64, x, y);
                uint8_t *d = dst + j * n + i;
                for (int k = 0; k < 16; k++)
                    if (!skip || !skip[j + (size_t)k])
                        _mm256_storeu_si256((__m256i *)(void *)(d + (size_t)k * n), y[k]);
            }
    cs__h5_shuffle_tail(dst, es, n, used, skip);
}

void cs__h5_shuffle_avx2(uint8_t *dst, const uint8_t *src, size_t es, size_t n, size_t used)
{
    cs__h5_shuffle_x32(dst, src, es, n, used, NULL);
}
#endif

void cs__h5_shuffle_masked(uint8_t *dst, const uint8_t *src, size_t es, size_t n, size_t used, const uint8_t *skip)
{
#ifdef CS__H5_HAVE_X86
    if (cs__h5_have_avx2())
        cs__h5_shuffle_x32(dst, src, es, n, used, skip);
    else
        cs__h5_shuffle_x16(dst, src, es, n, used, skip);
#else
    cs__h5_shuffle_c(dst, src, es, n, used, skip);
#endif
}

void cs__h5_shuffle(uint8_t *dst, const uint8_t *src, size_t es, size_t n, size_t used)
{
    cs__h5_shuffle_masked(dst, src, es, n, used, NULL);
}

/*
 * The byte columns of rows 0..used-1 that hold one value: and[j] and or[j]
 * are the AND and the OR of column j (equal when it is constant).  Read
 * row by row, 16 columns a step (the last step overlaps when 16 does not
 * divide es; AND and OR do not mind).
 */
static void cs__h5_colscan(uint8_t *and_, uint8_t *or_, const uint8_t *src, size_t es, size_t used)
{
    memset(and_, 0xff, es);
    memset(or_, 0, es);
#ifdef CS__H5_HAVE_X86
    if (es >= 16 && es <= 64 * 16) {
        __m128i va[64], vo[64];
        size_t nb = (es + 15) / 16;
        for (size_t b = 0; b < nb; b++) {
            va[b] = _mm_set1_epi8(-1);
            vo[b] = _mm_setzero_si128();
        }
        for (size_t i = 0; i < used; i++) {
            const uint8_t *r = src + i * es;
            for (size_t b = 0; b < nb; b++) {
                __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(r + cs__h5_blk(b * 16, 16, es)));
                va[b] = _mm_and_si128(va[b], x);
                vo[b] = _mm_or_si128(vo[b], x);
            }
        }
        for (size_t b = 0; b < nb; b++) {
            size_t j = cs__h5_blk(b * 16, 16, es);
            _mm_storeu_si128((__m128i *)(void *)(and_ + j), va[b]);
            _mm_storeu_si128((__m128i *)(void *)(or_ + j), vo[b]);
        }
        return;
    }
#endif
    for (size_t i = 0; i < used; i++)
        for (size_t j = 0; j < es; j++) {
            and_[j] &= src[i * es + j];
            or_[j] |= src[i * es + j];
        }
}

/* ---- checksums ------------------------------------------------------------------ */

/* x reduced modulo 65535 the way a sum folded with x = (x & 0xffff) +
 * (x >> 16) ends: 0 only when x is 0, else in 1..65535. */
static uint64_t cs__h5_fold(uint64_t x)
{
    return x == 0 ? 0 : (x - 1) % 65535 + 1;
}

/*
 * The Fletcher-32 checksum of HDF5's fletcher32 filter (the HDF5 library's
 * H5Zfletcher32.c documents the format): data read as big-endian 16-bit
 * words (an odd last byte as the high byte of a word), sum1 the running sum
 * of the words and sum2 the running sum of sum1, both folded modulo 65535
 * (x -> (x & 0xffff) + (x >> 16), which keeps a positive sum positive),
 * result sum2 << 16 | sum1.  The folded value depends only on the exact sum
 * (0 when it is 0, else (sum - 1) mod 65535 + 1), so the sums are taken four
 * words at a time in 64 bits, reduced that way every 2^14 words:
 * sum2 gains 4 * sum1 + 4 w0 + 3 w1 + 2 w2 + w3 over words w0..w3.
 */
uint32_t cs__h5_fletcher32(const uint8_t *p, size_t len)
{
    uint64_t s1 = 0, s2 = 0;
    size_t quads = len / 8;
    while (quads) {
        size_t t = quads > 4096 ? 4096 : quads;
        quads -= t;
        for (; t; t--, p += 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            v = __builtin_bswap64(v);
            uint64_t w0 = v >> 48, w1 = (v >> 32) & 0xffff, w2 = (v >> 16) & 0xffff, w3 = v & 0xffff;
            s2 += 4 * s1 + 4 * w0 + 3 * w1 + 2 * w2 + w3;
            s1 += w0 + w1 + w2 + w3;
        }
        s1 = cs__h5_fold(s1);
        s2 = cs__h5_fold(s2);
    }
    size_t rest = len % 8;
    for (; rest >= 2; rest -= 2, p += 2) {
        s1 += (uint64_t)p[0] << 8 | p[1];
        s2 += s1;
    }
    if (rest) {
        s1 += (uint64_t)p[0] << 8;
        s2 += s1;
    }
    return (uint32_t)(cs__h5_fold(s2) << 16 | cs__h5_fold(s1));
}

/* RFC 1950 §8.2: A = 1 + sum of the bytes, B = sum of the As, mod 65521.
 * Appending len bytes c: A += len * c, B += len * A + c * len (len + 1) / 2. */
uint32_t cs__h5_adler_run(uint32_t adler, uint8_t c, size_t len)
{
    const uint64_t base = 65521;
    uint64_t a = adler & 0xffff, b = adler >> 16;
    uint64_t l = len % base;
    /* len (len + 1) / 2 mod base, halving the even factor first. */
    uint64_t tri = len % 2 == 0 ? (uint64_t)(len / 2) % base * ((len % base + 1) % base) % base
                                : l * ((uint64_t)(len / 2 + 1) % base) % base;
    uint64_t a2 = (a + l * c) % base;
    uint64_t b2 = (b + l * a + (uint64_t)c * tri) % base;
    return (uint32_t)(b2 << 16 | a2);
}

/* ---- plane classification --------------------------------------------------------- */

/* Plane kinds: through zlib, stored, a cached constant run; FILL is a
 * constant plane in too short a run, zlib's in the end. */
enum { CS__PL_ZLIB, CS__PL_STORED, CS__PL_RUN, CS__PL_FILL };

/* Shortest run of equal bytes emitted from the cache; shorter runs cost
 * less inside a zlib piece than as a piece of their own. */
#define CS__H5_RUN_MIN 4096

/* Nonzero when a byte plane looks uniformly random: more than 128 distinct
 * values among 256 evenly spaced samples (a uniform byte gives ~162).
 * Huffman coding gains almost nothing on such planes, so they are stored. */
static int cs__h5_random_plane(const uint8_t *p, size_t n)
{
    if (n < 1024) return 0;
    uint8_t seen[256];
    memset(seen, 0, sizeof seen);
    int distinct = 0;
    size_t step = n / 256;
    for (size_t i = 0; i < 256; i++) {
        uint8_t b = p[i * step];
        distinct += !seen[b];
        seen[b] = 1;
    }
    return distinct > 128;
}

/*
 * Shuffle the chunk into zp->shuf and classify its planes into zp->kind,
 * with each constant plane's value in zp->val: a run of equal constant
 * planes at least CS__H5_RUN_MIN bytes long (n a multiple of 64, so every
 * run splits into cached lengths) is CS__PL_RUN and never written to shuf
 * (the columns are scanned first); random-looking planes are stored; the
 * rest, shorter constant runs included, go through zlib.
 */
static void cs__h5_classify(cs__h5_zip_t *zp, const uint8_t *raw, size_t es, size_t n, size_t used)
{
    uint8_t *kind = zp->kind, *skip = zp->kind + es, *val = zp->val;
    cs__h5_colscan(skip, val, raw, es, used);
    for (size_t j = 0; j < es; j++) {
        /* Rows from `used` on are zero: a column is a constant plane when
         * its AND equals its OR, and that value is 0 or fills every row. */
        int c = used == 0 || (skip[j] == val[j] && (used == n || val[j] == 0));
        if (used == 0) val[j] = 0;
        kind[j] = c ? CS__PL_RUN : CS__PL_ZLIB;
    }
    for (size_t j = 0; j < es;) {
        size_t m = 1;
        if (kind[j] == CS__PL_RUN) {
            while (j + m < es && kind[j + m] == CS__PL_RUN && val[j + m] == val[j]) m++;
            if (n % 64 != 0 || m * n < CS__H5_RUN_MIN)
                for (size_t k = 0; k < m; k++) kind[j + k] = CS__PL_FILL;
        }
        j += m;
    }
    for (size_t j = 0; j < es; j++) skip[j] = kind[j] == CS__PL_RUN;
    cs__h5_shuffle_masked(zp->shuf, raw, es, n, used, skip);
    for (size_t j = 0; j < es; j++) {
        if (kind[j] == CS__PL_FILL)
            kind[j] = CS__PL_ZLIB; /* (written by the shuffle) */
        else if (kind[j] == CS__PL_ZLIB && cs__h5_random_plane(zp->shuf + j * n, n))
            kind[j] = CS__PL_STORED;
    }
}

/* ---- the zlib stream ---------------------------------------------------------------- */

/* Make sure z is an initialised raw deflate stream, then reset it. */
static int cs__h5_zreset(cs__h5_zip_t *zp, const char **why)
{
    if (!zp->ready) {
        memset(&zp->z, 0, sizeof zp->z);
        if (deflateInit2(&zp->z, 1, Z_DEFLATED, -15, 8, Z_RLE) != Z_OK) {
            *why = "zlib deflateInit2 failed";
            return CS_ENOMEM;
        }
        zp->ready = 1;
        return CS_OK;
    }
    if (deflateReset(&zp->z) != Z_OK) {
        *why = "zlib deflateReset failed";
        return CS_EIO;
    }
    return CS_OK;
}

/* Deflate len bytes at p as one byte-aligned piece (a reset state, ended
 * with Z_SYNC_FLUSH) into out + *pos.  CS_OK or CS_EIO / CS_ENOMEM. */
static int cs__h5_zpiece(cs__h5_zip_t *zp, const uint8_t *p, size_t len, uint8_t *out, size_t cap, size_t *pos,
                         const char **why)
{
    int rc = cs__h5_zreset(zp, why);
    if (rc != CS_OK) return rc;
    z_stream *z = &zp->z;
    size_t room = cap - *pos;
    z->next_in = (Bytef *)(uintptr_t)p; /* zlib does not write through next_in */
    z->avail_in = (uInt)len;
    z->next_out = out + *pos;
    z->avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
    if (deflate(z, Z_SYNC_FLUSH) != Z_OK || z->avail_in != 0 || z->avail_out == 0) {
        *why = "zlib deflate failed";
        return CS_EIO;
    }
    *pos = (size_t)(z->next_out - out);
    return CS_OK;
}

/* The cached piece for a run of 2^k bytes of value c, made on first use. */
static int cs__h5_run_piece(cs__h5_zip_t *zp, uint8_t c, int k, const char **why)
{
    if (!zp->runs && !(zp->runs = calloc(1, sizeof *zp->runs))) {
        *why = "out of memory (run cache)";
        return CS_ENOMEM;
    }
    int ki = k - CS__H5_RUN_K0;
    if (zp->runs->seg[c][ki]) return CS_OK;
    size_t len = (size_t)1 << k;
    size_t cap = len / 64 + 1024;
    uint8_t *in = malloc(len), *buf = malloc(cap);
    size_t pos = 0;
    int rc = CS_ENOMEM;
    *why = "out of memory (run cache)";
    if (in && buf) {
        memset(in, c, len);
        rc = cs__h5_zpiece(zp, in, len, buf, cap, &pos, why);
    }
    free(in);
    if (rc != CS_OK) {
        free(buf);
        return rc;
    }
    uint8_t *fit = realloc(buf, pos);
    zp->runs->seg[c][ki] = fit ? fit : buf;
    zp->runs->len[c][ki] = (uint32_t)pos;
    return CS_OK;
}

/* Append the cached pieces for a run of len bytes of value c (len a
 * multiple of 64). */
static int cs__h5_run(cs__h5_zip_t *zp, uint8_t c, size_t len, uint8_t *out, size_t cap, size_t *pos,
                      const char **why)
{
    for (int k = CS__H5_RUN_K1; k >= CS__H5_RUN_K0 && len;) {
        size_t unit = (size_t)1 << k;
        if (len < unit) {
            k--;
            continue;
        }
        int rc = cs__h5_run_piece(zp, c, k, why);
        if (rc != CS_OK) return rc;
        size_t n = zp->runs->len[c][k - CS__H5_RUN_K0];
        if (cap - *pos < n) {
            *why = "chunk buffer too small";
            return CS_EIO;
        }
        memcpy(out + *pos, zp->runs->seg[c][k - CS__H5_RUN_K0], n);
        *pos += n;
        len -= unit;
    }
    return CS_OK;
}

/* Append len bytes at p as stored blocks (RFC 1951 §3.2.4), at most 65535
 * bytes each; *pos is on a byte boundary. */
static int cs__h5_stored(const uint8_t *p, size_t len, uint8_t *out, size_t cap, size_t *pos, const char **why)
{
    while (len) {
        size_t k = len > 65535 ? 65535 : len;
        if (cap - *pos < k + 5) {
            *why = "chunk buffer too small";
            return CS_EIO;
        }
        uint8_t *o = out + *pos;
        o[0] = 0; /* BFINAL 0, BTYPE 00, then padding to the byte */
        o[1] = (uint8_t)k;
        o[2] = (uint8_t)(k >> 8);
        o[3] = (uint8_t)~k;
        o[4] = (uint8_t)(~k >> 8);
        memcpy(o + 5, p, k);
        *pos += k + 5;
        p += k;
        len -= k;
    }
    return CS_OK;
}

size_t cs__h5_out_bound(size_t nbytes, size_t es)
{
    /* zlib's bound, plus per plane a piece's flush and stored headers. */
    return (size_t)compressBound((uLong)nbytes) + nbytes / 8192 + 64 * es + 1024;
}

int cs__h5_compress(cs__h5_zip_t *zp, const uint8_t *raw, size_t es, size_t nrows, size_t used,
                    uint8_t *out, size_t cap, size_t *len, const char **why)
{
    size_t nbytes = es * nrows;
    if (zp->cap < nbytes) {
        uint8_t *s = realloc(zp->shuf, nbytes);
        if (!s) {
            *why = "out of memory (shuffle buffer)";
            return CS_ENOMEM;
        }
        zp->shuf = s;
        zp->cap = nbytes;
    }
    if (zp->kcap < es) {
        uint8_t *k = realloc(zp->kind, 3 * es);
        if (!k) {
            *why = "out of memory (plane kinds)";
            return CS_ENOMEM;
        }
        zp->kind = k;
        zp->val = k + 2 * es;
        zp->kcap = es;
    }
    if (cap < 16) {
        *why = "chunk buffer too small";
        return CS_EIO;
    }
    cs__h5_classify(zp, raw, es, nrows, used);
    size_t pos = 0;
    out[pos++] = 0x78; /* RFC 1950: deflate, 32 KiB window, no dictionary, */
    out[pos++] = 0x01; /* (0x7801 % 31 == 0), the header zlib writes at level 1 */
    uint32_t adler = 1;
    for (size_t j = 0; j < es;) {
        int k = zp->kind[j];
        size_t m = 1;
        while (j + m < es && zp->kind[j + m] == k && (k != CS__PL_RUN || zp->val[j + m] == zp->val[j])) m++;
        const uint8_t *p = zp->shuf + j * nrows;
        size_t plen = m * nrows;
        int rc;
        if (k == CS__PL_RUN) {
            rc = cs__h5_run(zp, zp->val[j], plen, out, cap, &pos, why);
            adler = cs__h5_adler_run(adler, zp->val[j], plen);
        } else {
            rc = k == CS__PL_STORED ? cs__h5_stored(p, plen, out, cap, &pos, why)
                                    : cs__h5_zpiece(zp, p, plen, out, cap, &pos, why);
            adler = (uint32_t)adler32(adler, p, (uInt)plen);
        }
        if (rc != CS_OK) return rc;
        j += m;
    }
    if (cap - pos < 10) {
        *why = "chunk buffer too small for the checksum";
        return CS_EIO;
    }
    out[pos++] = 0x03; /* an empty final block with fixed codes: BFINAL 1, */
    out[pos++] = 0x00; /* BTYPE 01, end-of-block (7 zero bits) */
    for (int b = 3; b >= 0; b--) out[pos++] = (uint8_t)(adler >> (8 * b));
    uint32_t ck = cs__h5_fletcher32(out, pos);
    for (int b = 0; b < 4; b++) out[pos++] = (uint8_t)(ck >> (8 * b));
    *len = pos;
    return CS_OK;
}

void cs__h5_zip_free(cs__h5_zip_t *zp)
{
    if (zp->ready) deflateEnd(&zp->z);
    zp->ready = 0;
    free(zp->shuf);
    zp->shuf = NULL;
    zp->cap = 0;
    free(zp->kind);
    zp->kind = NULL;
    zp->val = NULL;
    zp->kcap = 0;
    if (zp->runs) {
        for (int c = 0; c < 256; c++)
            for (int k = 0; k < CS__H5_RUN_NK; k++) free(zp->runs->seg[c][k]);
        free(zp->runs);
        zp->runs = NULL;
    }
}
