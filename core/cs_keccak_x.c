/*
 * cs_keccak_x.c -- Keccak-f[1600] over many independent states at once
 * (FIPS 202 §3; the permutation of cs_keccak.c's Keccak-256).
 *
 * The scheduler hashes many independent single-block messages per block:
 * a deliver_id per fire (CIP-5 CN §10.1), tree node rehashes.  One state
 * at a time, nettle's sha3_permute is bound by the dependency chain of a
 * round; here the same round runs on vectors holding one lane of 4 states
 * (AVX2, 256-bit) or 8 states (AVX-512, 512-bit), written once with GCC
 * vector extensions and compiled per target with target attributes.  The
 * path is chosen at the first call from __builtin_cpu_supports (AVX-512F
 * and VL, else AVX2, else the scalar path), and can be forced, for the
 * tests and the benchmark, with cs_keccak_path_set.  The scalar path is
 * nettle's permutation itself, state by state, so every path is checked
 * against it (tests/test_keccak.c forces each).  Single states (timer ids,
 * digests, long messages) go through cs_keccak_permute1: nettle on the
 * scalar path, else the same round on plain 64-bit words.
 */
#include <string.h>

#include <nettle/sha3.h>

#include "cs_error.h"
#include "cs_timer.h"

/* FIPS 202 §3.2.5: the round constants of iota. */
static const uint64_t cs__rc[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808aull, 0x8000000080008000ull,
    0x000000000000808bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000aull,
    0x000000008000808bull, 0x800000000000008bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800aull, 0x800000008000000aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull,
};

/* Rotate every 64-bit element of x left by n (1..63). */
#define CS__XROL(x, n) (((x) << (n)) | ((x) >> (64 - (n))))

/* One round of Keccak-f[1600] (FIPS 202 §3.2: theta, rho, pi, chi, iota)
 * over vectors of CS__XV lanes; generated, straight-line, for vector
 * extensions.  A[x + 5y] holds lane (x, y) of every state. */
#define CS__XROUND(A, rc)                                                              \
    do {                                                                               \
        CS__XV C0 = A[0] ^ A[5] ^ A[10] ^ A[15] ^ A[20];                               \
        CS__XV C1 = A[1] ^ A[6] ^ A[11] ^ A[16] ^ A[21];                               \
        CS__XV C2 = A[2] ^ A[7] ^ A[12] ^ A[17] ^ A[22];                               \
        CS__XV C3 = A[3] ^ A[8] ^ A[13] ^ A[18] ^ A[23];                               \
        CS__XV C4 = A[4] ^ A[9] ^ A[14] ^ A[19] ^ A[24];                               \
        CS__XV D0 = C4 ^ CS__XROL(C1, 1);                                              \
        CS__XV D1 = C0 ^ CS__XROL(C2, 1);                                              \
        CS__XV D2 = C1 ^ CS__XROL(C3, 1);                                              \
        CS__XV D3 = C2 ^ CS__XROL(C4, 1);                                              \
        CS__XV D4 = C3 ^ CS__XROL(C0, 1);                                              \
        CS__XV B[25];                                                                  \
        B[0] = A[0] ^ D0;                                                              \
        B[10] = CS__XROL(A[1] ^ D1, 1);                                                \
        B[20] = CS__XROL(A[2] ^ D2, 62);                                               \
        B[5] = CS__XROL(A[3] ^ D3, 28);                                                \
        B[15] = CS__XROL(A[4] ^ D4, 27);                                               \
        B[16] = CS__XROL(A[5] ^ D0, 36);                                               \
        B[1] = CS__XROL(A[6] ^ D1, 44);                                                \
        B[11] = CS__XROL(A[7] ^ D2, 6);                                                \
        B[21] = CS__XROL(A[8] ^ D3, 55);                                               \
        B[6] = CS__XROL(A[9] ^ D4, 20);                                                \
        B[7] = CS__XROL(A[10] ^ D0, 3);                                                \
        B[17] = CS__XROL(A[11] ^ D1, 10);                                              \
        B[2] = CS__XROL(A[12] ^ D2, 43);                                               \
        B[12] = CS__XROL(A[13] ^ D3, 25);                                              \
        B[22] = CS__XROL(A[14] ^ D4, 39);                                              \
        B[23] = CS__XROL(A[15] ^ D0, 41);                                              \
        B[8] = CS__XROL(A[16] ^ D1, 45);                                               \
        B[18] = CS__XROL(A[17] ^ D2, 15);                                              \
        B[3] = CS__XROL(A[18] ^ D3, 21);                                               \
        B[13] = CS__XROL(A[19] ^ D4, 8);                                               \
        B[14] = CS__XROL(A[20] ^ D0, 18);                                              \
        B[24] = CS__XROL(A[21] ^ D1, 2);                                               \
        B[9] = CS__XROL(A[22] ^ D2, 61);                                               \
        B[19] = CS__XROL(A[23] ^ D3, 56);                                              \
        B[4] = CS__XROL(A[24] ^ D4, 14);                                               \
        A[0] = B[0] ^ (~B[1] & B[2]);                                                  \
        A[1] = B[1] ^ (~B[2] & B[3]);                                                  \
        A[2] = B[2] ^ (~B[3] & B[4]);                                                  \
        A[3] = B[3] ^ (~B[4] & B[0]);                                                  \
        A[4] = B[4] ^ (~B[0] & B[1]);                                                  \
        A[5] = B[5] ^ (~B[6] & B[7]);                                                  \
        A[6] = B[6] ^ (~B[7] & B[8]);                                                  \
        A[7] = B[7] ^ (~B[8] & B[9]);                                                  \
        A[8] = B[8] ^ (~B[9] & B[5]);                                                  \
        A[9] = B[9] ^ (~B[5] & B[6]);                                                  \
        A[10] = B[10] ^ (~B[11] & B[12]);                                              \
        A[11] = B[11] ^ (~B[12] & B[13]);                                              \
        A[12] = B[12] ^ (~B[13] & B[14]);                                              \
        A[13] = B[13] ^ (~B[14] & B[10]);                                              \
        A[14] = B[14] ^ (~B[10] & B[11]);                                              \
        A[15] = B[15] ^ (~B[16] & B[17]);                                              \
        A[16] = B[16] ^ (~B[17] & B[18]);                                              \
        A[17] = B[17] ^ (~B[18] & B[19]);                                              \
        A[18] = B[18] ^ (~B[19] & B[15]);                                              \
        A[19] = B[19] ^ (~B[15] & B[16]);                                              \
        A[20] = B[20] ^ (~B[21] & B[22]);                                              \
        A[21] = B[21] ^ (~B[22] & B[23]);                                              \
        A[22] = B[22] ^ (~B[23] & B[24]);                                              \
        A[23] = B[23] ^ (~B[24] & B[20]);                                              \
        A[24] = B[24] ^ (~B[20] & B[21]);                                              \
        A[0] ^= (rc);                                                                  \
    } while (0)

/* Permute m <= W states st[0..m) with W-lane vectors of type VT: the
 * lanes are gathered into A (unused vector lanes are zero and their
 * result dropped), 24 rounds run, and the lanes are scattered back. */
#define CS__XPERMUTE(VT, W, st, m)                                                         \
    do {                                                                                   \
        VT A[25];                                                                          \
        for (unsigned i = 0; i < 25; i++) {                                                \
            for (unsigned l = 0; l < (W); l++) A[i][l] = l < (m) ? (st)[l][i] : 0;         \
        }                                                                                  \
        for (unsigned r = 0; r < 24; r++) CS__XROUND(A, cs__rc[r]);                        \
        for (unsigned i = 0; i < 25; i++)                                                  \
            for (unsigned l = 0; l < (m); l++) (st)[l][i] = A[i][l];                       \
    } while (0)

#if defined(__GNUC__) && defined(__x86_64__)
#define CS__HAVE_X86 1

typedef uint64_t cs__v4u __attribute__((vector_size(32)));
typedef uint64_t cs__v8u __attribute__((vector_size(64)));

/* Four states per call (AVX2). */
__attribute__((target("avx2"))) static void cs__permute_avx2(uint64_t (*st)[25], size_t m)
{
#define CS__XV cs__v4u
    CS__XPERMUTE(cs__v4u, 4u, st, m);
#undef CS__XV
}

/* Eight states per call (AVX-512F + VL: vprolq and vpternlogq). */
__attribute__((target("avx512f,avx512vl"))) static void cs__permute_avx512(uint64_t (*st)[25],
                                                                            size_t m)
{
#define CS__XV cs__v8u
    CS__XPERMUTE(cs__v8u, 8u, st, m);
#undef CS__XV
}
#endif

/* The scalar path: nettle's permutation, one state at a time (struct
 * sha3_state is exactly the 25 lanes, cs_keccak.c asserts it). */
static void cs__permute_scalar(uint64_t (*st)[25], size_t n)
{
    for (size_t k = 0; k < n; k++) sha3_permute((struct sha3_state *)(void *)st[k]);
}

/* The same round on plain 64-bit words: one state, portable C (about 1.3x
 * nettle's permutation on the development machine at -O2). */
static void cs__permute_portable(uint64_t a[25])
{
#define CS__XV uint64_t
    for (unsigned r = 0; r < 24; r++) CS__XROUND(a, cs__rc[r]);
#undef CS__XV
}

static int cs__kpath = CS_KECCAK_PATH_AUTO; /* resolved at the first use */

int cs_keccak_path_available(int path)
{
    switch (path) {
    case CS_KECCAK_PATH_SCALAR:
        return 1;
#ifdef CS__HAVE_X86
    case CS_KECCAK_PATH_AVX2:
        return __builtin_cpu_supports("avx2");
    case CS_KECCAK_PATH_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#endif
    default:
        return 0;
    }
}

/* The fastest path this CPU has. */
static int cs__kpath_best(void)
{
    if (cs_keccak_path_available(CS_KECCAK_PATH_AVX512)) return CS_KECCAK_PATH_AVX512;
    if (cs_keccak_path_available(CS_KECCAK_PATH_AVX2)) return CS_KECCAK_PATH_AVX2;
    return CS_KECCAK_PATH_SCALAR;
}

int cs_keccak_path(void)
{
    if (cs__kpath == CS_KECCAK_PATH_AUTO) cs__kpath = cs__kpath_best();
    return cs__kpath;
}

int cs_keccak_path_set(int path)
{
    if (path == CS_KECCAK_PATH_AUTO) path = cs__kpath_best();
    if (!cs_keccak_path_available(path)) return CS_EINVAL;
    cs__kpath = path;
    return CS_OK;
}

const char *cs_keccak_path_name(int path)
{
    switch (path) {
    case CS_KECCAK_PATH_SCALAR: return "scalar";
    case CS_KECCAK_PATH_AVX2: return "avx2x4";
    case CS_KECCAK_PATH_AVX512: return "avx512x8";
    default: return "auto";
    }
}

void cs_keccak_permute1(uint64_t a[25])
{
    if (cs_keccak_path() == CS_KECCAK_PATH_SCALAR) sha3_permute((struct sha3_state *)(void *)a);
    else cs__permute_portable(a);
}

void cs_keccak_permute_many(uint64_t (*st)[25], size_t n)
{
    int path = cs_keccak_path();
#ifdef CS__HAVE_X86
    if (path == CS_KECCAK_PATH_AVX512) {
        for (size_t k = 0; k < n; k += 8) cs__permute_avx512(st + k, n - k < 8 ? n - k : 8);
        return;
    }
    if (path == CS_KECCAK_PATH_AVX2) {
        for (size_t k = 0; k < n; k += 4) cs__permute_avx2(st + k, n - k < 4 ? n - k : 4);
        return;
    }
#endif
    (void)path;
    cs__permute_scalar(st, n);
}
