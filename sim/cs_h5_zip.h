/*
 * cs_h5_zip.h -- compression of the run file's chunks (internal to the HDF5
 * module: cs_h5_writer.c and its tests; see cs_h5_zip.c).
 *
 * A chunk of rows is turned into exactly the bytes HDF5's declared filter
 * pipeline (shuffle, deflate, fletcher32) would read back: the byte shuffle,
 * one zlib stream, then the Fletcher-32 checksum.  The zlib stream is built
 * plane by plane (DESIGN-NOTES N98): constant planes from cached blocks,
 * random-looking planes as stored blocks, the rest through zlib.
 *
 * Ownership: a workspace (cs__h5_zip_t) is zeroed by its owner, used by one
 * thread at a time and released with cs__h5_zip_free, which frees every
 * buffer the workspace allocated.  Callers own raw and out.
 */
#ifndef CS_H5_ZIP_H
#define CS_H5_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include <zlib.h>

/* Constant-run blocks are cached for run lengths 2^k bytes, k in this range. */
#define CS__H5_RUN_K0 6
#define CS__H5_RUN_K1 18
#define CS__H5_RUN_NK (CS__H5_RUN_K1 - CS__H5_RUN_K0 + 1)

/* Cached deflate segments for runs of one byte value (cs_h5_zip.c). */
typedef struct cs__h5_runs {
    uint8_t *seg[256][CS__H5_RUN_NK]; /* byte-aligned raw deflate blocks, or NULL */
    uint32_t len[256][CS__H5_RUN_NK]; /* bytes in seg */
} cs__h5_runs_t;

/* A compression workspace: one per thread that compresses.  Zero it first. */
typedef struct cs__h5_zip {
    z_stream z;           /* raw deflate state (level 1, Z_RLE), reset per segment */
    int ready;            /* z initialised */
    uint8_t *shuf;        /* shuffled copy of the chunk */
    size_t cap;           /* bytes allocated in shuf */
    uint8_t *kind;        /* per-plane classification of the current chunk, then
                             es bytes of scratch, then val (3 x kcap bytes) */
    uint8_t *val;         /* each constant plane's value (inside kind's block) */
    size_t kcap;          /* planes kind has room for */
    cs__h5_runs_t *runs;  /* constant-run cache, allocated on first use */
} cs__h5_zip_t;

/* Output bytes that always suffice for one compressed chunk of es-byte rows,
 * nbytes in all (checksum included). */
size_t cs__h5_out_bound(size_t nbytes, size_t es);

/*
 * Compress one chunk (nrows rows of es bytes at raw, rows from `used` on
 * zero) into out (cap bytes, at least cs__h5_out_bound): the HDF5 shuffle,
 * a zlib stream, then the 4-byte Fletcher-32 checksum.  Deterministic (the
 * same input gives the same bytes).  Returns CS_OK with *len set, or
 * CS_ENOMEM / CS_EIO with the message in *why (static text).
 */
int cs__h5_compress(cs__h5_zip_t *zp, const uint8_t *raw, size_t es, size_t nrows, size_t used,
                    uint8_t *out, size_t cap, size_t *len, const char **why);

/* Release a workspace's buffers (safe on a zeroed or freed one). */
void cs__h5_zip_free(cs__h5_zip_t *zp);

/*
 * HDF5's shuffle filter layout: byte j of row i goes to dst[j * n + i], for
 * rows i < used; bytes of rows used..n-1 are zero in every plane.  dst holds
 * es * n bytes, src used * es.  cs__h5_shuffle picks the fastest path this
 * CPU has; the others are exposed for tests (the SIMD paths exist on x86-64
 * only; cs__h5_shuffle_avx2 needs cs__h5_have_avx2()).
 */
void cs__h5_shuffle(uint8_t *dst, const uint8_t *src, size_t es, size_t n, size_t used);
/* The same, leaving alone the planes j with skip[j] nonzero (skip may be
 * NULL: no plane skipped). */
void cs__h5_shuffle_masked(uint8_t *dst, const uint8_t *src, size_t es, size_t n, size_t used, const uint8_t *skip);
void cs__h5_shuffle_scalar(uint8_t *dst, const uint8_t *src, size_t es, size_t n, size_t used);
#if defined(__x86_64__)
#define CS__H5_HAVE_X86 1
void cs__h5_shuffle_sse2(uint8_t *dst, const uint8_t *src, size_t es, size_t n, size_t used);
void cs__h5_shuffle_avx2(uint8_t *dst, const uint8_t *src, size_t es, size_t n, size_t used);
int cs__h5_have_avx2(void);
#endif

/* HDF5's Fletcher-32 of len bytes (the value its fletcher32 filter appends,
 * little-endian). */
uint32_t cs__h5_fletcher32(const uint8_t *p, size_t len);

/* The Adler-32 of `adler` followed by len bytes of value c (zlib's
 * adler32(adler, buf, len) on such a buffer, in O(1)). */
uint32_t cs__h5_adler_run(uint32_t adler, uint8_t c, size_t len);

#endif /* CS_H5_ZIP_H */
