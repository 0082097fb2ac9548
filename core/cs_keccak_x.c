/*
 * cs_keccak_x.c -- Keccak-f[1600] over many independent states at once,
 * and over one (FIPS 202 §3; the permutation of cs_keccak.c's Keccak-256).
 *
 * The scheduler hashes many independent single-block messages per block:
 * a deliver_id per fire (CIP-5 CN §10.1), the timer ids of a block's
 * arrivals (CIP-5 §3.3).  One state at a time, a round is bound by its
 * dependency chain; here it runs on vectors holding one lane of 4 states
 * (AVX2, 256-bit, intrinsics: byte shuffles for the rotations by 8 and 56,
 * 4 x 4 transposes in and out) or 8 states (AVX-512, 512-bit, GCC vector
 * extensions), or 5 states: 4 on AVX2 vectors and a fifth on 64-bit words
 * in the same loop (the hybrid path, for CPUs that run AVX2 as two
 * 128-bit halves, where the vector round leaves the integer ALUs idle),
 * compiled per target with target attributes.  The path is chosen at the
 * first call from __builtin_cpu_supports and __builtin_cpu_is (AVX-512F
 * and VL, else the hybrid path on AMD Zen 1, else AVX2, else the scalar
 * path), and can be forced, for the tests and the benchmark, with
 * cs_keccak_path_set.  The scalar path is nettle's
 * permutation itself, state by state, so every path is checked against it
 * (tests/test_keccak.c forces each).  Single states (timer ids scheduled
 * by handlers, digests, long messages) go through cs_keccak_permute1:
 * nettle on the scalar path, else the one-state permutation
 * (cs_keccak_one_set: the round on 25 named 64-bit lanes, compiled for
 * BMI1 + BMI2 where the CPU has them, else lane-complemented plain C).
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

/*
 * The same round on 25 named lanes: lane (x, y) of the input is A##y##x
 * (row y, column x), of the output E##y##x.  The lane operations come
 * from a family named by the prefix P, defined by the caller: P##X(a, b)
 * = a ^ b, P##N(a, b) = ~a & b, P##R(a, n) = a rotated left by n (1..63),
 * P##I(a, rc) = a ^ the round constant rc, P##T the lane type, P##CHI(E,
 * y, b0..b4) chi of output row y from its inputs b0..b4 (CS__GROW, or the
 * lane-complemented rows below).  The family CS__K (CS__KX, CS__KN, ...)
 * is the one CS__KROUND uses; a second family lets one loop run the round
 * of two kinds of lanes side by side (the hybrid path below).  Named
 * variables instead of arrays, and two rounds per loop step (A into E,
 * then E into A: CS__K24), let the compiler keep lanes in registers with
 * no copy of the state.  Each chi row is formed as soon as its five
 * inputs exist; with (x, y) the input lane, its chi input is B[y, 2x + 3y]
 * = rho(A[x, y] ^ D[x]) (pi), the rotations being FIPS 202 Table 2's.
 */
#define CS__GROW(P, E, y, b0, b1, b2, b3, b4)                                              \
    do {                                                                                   \
        P##T k0_ = (b0), k1_ = (b1), k2_ = (b2), k3_ = (b3), k4_ = (b4);                   \
        E##y##0 = P##X(k0_, P##N(k1_, k2_));                                               \
        E##y##1 = P##X(k1_, P##N(k2_, k3_));                                               \
        E##y##2 = P##X(k2_, P##N(k3_, k4_));                                               \
        E##y##3 = P##X(k3_, P##N(k4_, k0_));                                               \
        E##y##4 = P##X(k4_, P##N(k0_, k1_));                                               \
    } while (0)
#define CS__KROW(E, y, b0, b1, b2, b3, b4) CS__GROW(CS__K, E, y, b0, b1, b2, b3, b4)

#define CS__GCOL(P, A, x) P##X(P##X(P##X(A##0##x, A##1##x), P##X(A##2##x, A##3##x)), A##4##x)

/* Theta's column parities and D[x] (D##0..D##4), declared in the
 * enclosing block. */
#define CS__GTHETA(P, A, D)                                                                \
    P##T D##c0 = CS__GCOL(P, A, 0), D##c1 = CS__GCOL(P, A, 1), D##c2 = CS__GCOL(P, A, 2);  \
    P##T D##c3 = CS__GCOL(P, A, 3), D##c4 = CS__GCOL(P, A, 4);                             \
    P##T D##0 = P##X(D##c4, P##R(D##c1, 1)), D##1 = P##X(D##c0, P##R(D##c2, 1));           \
    P##T D##2 = P##X(D##c1, P##R(D##c3, 1)), D##3 = P##X(D##c2, P##R(D##c4, 1));           \
    P##T D##4 = P##X(D##c3, P##R(D##c0, 1))

/* Output row y of the round (rho, pi, chi; iota on row 0) from A and
 * theta's D. */
#define CS__GRHO0(P, A, E, D, rc)                                                          \
    P##CHI(E, 0, P##X(A##00, D##0), P##R(P##X(A##11, D##1), 44),                           \
           P##R(P##X(A##22, D##2), 43), P##R(P##X(A##33, D##3), 21),                       \
           P##R(P##X(A##44, D##4), 14));                                                   \
    E##00 = P##I(E##00, rc)
#define CS__GRHO1(P, A, E, D)                                                              \
    P##CHI(E, 1, P##R(P##X(A##03, D##3), 28), P##R(P##X(A##14, D##4), 20),                 \
           P##R(P##X(A##20, D##0), 3), P##R(P##X(A##31, D##1), 45),                        \
           P##R(P##X(A##42, D##2), 61))
#define CS__GRHO2(P, A, E, D)                                                              \
    P##CHI(E, 2, P##R(P##X(A##01, D##1), 1), P##R(P##X(A##12, D##2), 6),                   \
           P##R(P##X(A##23, D##3), 25), P##R(P##X(A##34, D##4), 8),                        \
           P##R(P##X(A##40, D##0), 18))
#define CS__GRHO3(P, A, E, D)                                                              \
    P##CHI(E, 3, P##R(P##X(A##04, D##4), 27), P##R(P##X(A##10, D##0), 36),                 \
           P##R(P##X(A##21, D##1), 10), P##R(P##X(A##32, D##2), 15),                       \
           P##R(P##X(A##43, D##3), 56))
#define CS__GRHO4(P, A, E, D)                                                              \
    P##CHI(E, 4, P##R(P##X(A##02, D##2), 62), P##R(P##X(A##13, D##3), 55),                 \
           P##R(P##X(A##24, D##4), 39), P##R(P##X(A##30, D##0), 41),                       \
           P##R(P##X(A##41, D##1), 2))

/* One round of the family P from the lanes A into the lanes E. */
#define CS__GROUND(P, A, E, rc)                                                            \
    do {                                                                                   \
        CS__GTHETA(P, A, d_);                                                              \
        CS__GRHO0(P, A, E, d_, rc);                                                        \
        CS__GRHO1(P, A, E, d_);                                                            \
        CS__GRHO2(P, A, E, d_);                                                            \
        CS__GRHO3(P, A, E, d_);                                                            \
        CS__GRHO4(P, A, E, d_);                                                            \
    } while (0)
#define CS__KROUND(A, E, rc) CS__GROUND(CS__K, A, E, rc)

/* The 25 lanes named P##y##x, declared with type CS__KT. */
#define CS__KDECL(P)                                                                       \
    CS__KT P##00, P##01, P##02, P##03, P##04, P##10, P##11, P##12, P##13, P##14, P##20,    \
        P##21, P##22, P##23, P##24, P##30, P##31, P##32, P##33, P##34, P##40, P##41, P##42, \
        P##43, P##44

/* Apply OP(P##y##x, i) to the 25 lanes, i = x + 5y the lane's index. */
#define CS__KEACH(OP, P)                                                                   \
    do {                                                                                   \
        OP(P##00, 0); OP(P##01, 1); OP(P##02, 2); OP(P##03, 3); OP(P##04, 4);              \
        OP(P##10, 5); OP(P##11, 6); OP(P##12, 7); OP(P##13, 8); OP(P##14, 9);              \
        OP(P##20, 10); OP(P##21, 11); OP(P##22, 12); OP(P##23, 13); OP(P##24, 14);         \
        OP(P##30, 15); OP(P##31, 16); OP(P##32, 17); OP(P##33, 18); OP(P##34, 19);         \
        OP(P##40, 20); OP(P##41, 21); OP(P##42, 22); OP(P##43, 23); OP(P##44, 24);         \
    } while (0)

/* 24 rounds over the lanes a##y##x, two per step through e##y##x. */
#define CS__K24(a, e)                                                                      \
    do {                                                                                   \
        for (unsigned r_ = 0; r_ < 24; r_ += 2) {                                          \
            CS__KROUND(a, e, cs__rc[r_]);                                                  \
            CS__KROUND(e, a, cs__rc[r_ + 1]);                                              \
        }                                                                                  \
    } while (0)

/*
 * Lane complementing (the Keccak team's implementation overview, §2.2)
 * for a target with no and-not instruction: the 8 lanes 0, 4, 8, 9, 13,
 * 14, 18 and 20 are kept complemented through the rounds.  Theta, rho,
 * pi and iota carry a complement along (a column's parity picks it up,
 * rotation keeps it), so chi's inputs arrive with a known complement
 * pattern per row, and each chi term ~b1 & b2 is written with &, | and
 * the stored lanes so that the outputs come out with the same 8 lanes
 * complemented: 6 NOTs a round instead of 25.  The pattern and the
 * expressions were found by an exhaustive search over the 2^25 patterns
 * (fewest NOTs); tests/test_keccak.c checks the result against nettle.
 */
#define CS__KLC0(E, y, b0, b1, b2, b3, b4)                                                 \
    do {                                                                                   \
        uint64_t k0_ = (b0), k1_ = (b1), k2_ = (b2), k3_ = (b3), k4_ = (b4);               \
        uint64_t n0_ = ~k0_;                                                               \
        E##y##0 = k0_ ^ (k1_ | k2_);                                                       \
        E##y##1 = k1_ ^ (k2_ & k3_);                                                       \
        E##y##2 = k2_ ^ (k3_ | k4_);                                                       \
        E##y##3 = k3_ ^ (k4_ & k0_);                                                       \
        E##y##4 = k4_ ^ (n0_ & k1_);                                                       \
    } while (0)

#define CS__KLC1(E, y, b0, b1, b2, b3, b4)                                                 \
    do {                                                                                   \
        uint64_t k0_ = (b0), k1_ = (b1), k2_ = (b2), k3_ = (b3), k4_ = (b4);               \
        uint64_t n4_ = ~k4_;                                                               \
        E##y##0 = k0_ ^ (k1_ | k2_);                                                       \
        E##y##1 = k1_ ^ (k2_ & k3_);                                                       \
        E##y##2 = k2_ ^ (k3_ | k4_);                                                       \
        E##y##3 = k3_ ^ (n4_ | k0_);                                                       \
        E##y##4 = k4_ ^ (k0_ & k1_);                                                       \
    } while (0)

#define CS__KLC2(E, y, b0, b1, b2, b3, b4)                                                 \
    do {                                                                                   \
        uint64_t k0_ = (b0), k1_ = (b1), k2_ = (b2), k3_ = (b3), k4_ = (b4);               \
        uint64_t n4_ = ~k4_;                                                               \
        E##y##0 = k0_ ^ (k1_ & k2_);                                                       \
        E##y##1 = k1_ ^ (k2_ | k3_);                                                       \
        E##y##2 = k2_ ^ (k3_ & k4_);                                                       \
        E##y##3 = k3_ ^ (n4_ & k0_);                                                       \
        E##y##4 = k4_ ^ (k0_ | k1_);                                                       \
    } while (0)

#define CS__KLC3(E, y, b0, b1, b2, b3, b4)                                                 \
    do {                                                                                   \
        uint64_t k0_ = (b0), k1_ = (b1), k2_ = (b2), k3_ = (b3), k4_ = (b4);               \
        uint64_t n4_ = ~k4_;                                                               \
        E##y##0 = k0_ ^ (k1_ & k2_);                                                       \
        E##y##1 = k1_ ^ (k2_ | k3_);                                                       \
        E##y##2 = k2_ ^ (k3_ & n4_);                                                       \
        E##y##3 = k3_ ^ (k4_ & k0_);                                                       \
        E##y##4 = k4_ ^ (k0_ | k1_);                                                       \
    } while (0)

#define CS__KLC4(E, y, b0, b1, b2, b3, b4)                                                 \
    do {                                                                                   \
        uint64_t k0_ = (b0), k1_ = (b1), k2_ = (b2), k3_ = (b3), k4_ = (b4);               \
        uint64_t n1_ = ~k1_;                                                               \
        E##y##0 = k0_ ^ (n1_ & k2_);                                                       \
        E##y##1 = ~(k1_ ^ (k2_ | k3_));                                                    \
        E##y##2 = k2_ ^ (k3_ & k4_);                                                       \
        E##y##3 = k3_ ^ (k4_ | k0_);                                                       \
        E##y##4 = k4_ ^ (k0_ & k1_);                                                       \
    } while (0)

/* One state on plain 64-bit words: the lanes are loaded into named
 * variables, permuted and stored back. */
#define CS__KT uint64_t
#define CS__KX(a, b) ((a) ^ (b))
#define CS__KN(a, b) (~(a) & (b))
#define CS__KR(a, n) (((a) << (n)) | ((a) >> (64 - (n))))
#define CS__KI(a, rc) ((a) ^ (rc))
#define CS__KLOAD1(v, i) v = a[i]
#define CS__KSTORE1(v, i) a[i] = v
/* The lanes kept complemented by the lane-complemented rows. */
#define CS__KFLIP(P)                                                                       \
    do {                                                                                   \
        P##00 = ~P##00; P##04 = ~P##04; P##13 = ~P##13; P##14 = ~P##14;                    \
        P##23 = ~P##23; P##24 = ~P##24; P##33 = ~P##33; P##40 = ~P##40;                    \
    } while (0)

#if defined(__GNUC__) && defined(__x86_64__)
/* BMI1 + BMI2: andn does chi's ~a & b in one instruction and rorx
 * rotates without a copy. */
#define CS__KCHI CS__KROW
__attribute__((target("bmi,bmi2"))) static void cs__permute_bmi2(uint64_t a[25])
{
    CS__KDECL(s);
    CS__KDECL(t);
    CS__KEACH(CS__KLOAD1, s);
    CS__K24(s, t);
    CS__KEACH(CS__KSTORE1, s);
}
#undef CS__KCHI
#endif

/* Portable C, any target: lane complemented. */
#define CS__KCHI(E, y, b0, b1, b2, b3, b4) CS__KLC##y(E, y, b0, b1, b2, b3, b4)
static void cs__permute_c(uint64_t a[25])
{
    CS__KDECL(s);
    CS__KDECL(t);
    CS__KEACH(CS__KLOAD1, s);
    CS__KFLIP(s);
    CS__K24(s, t);
    CS__KFLIP(s);
    CS__KEACH(CS__KSTORE1, s);
}
#undef CS__KCHI
#undef CS__KT
#undef CS__KX
#undef CS__KN
#undef CS__KR
#undef CS__KI

#if defined(__GNUC__) && defined(__x86_64__)
#define CS__HAVE_X86 1
#include <immintrin.h>

typedef uint64_t cs__v8u __attribute__((vector_size(64)));

/* Eight states per call (AVX-512F + VL: vprolq and vpternlogq). */
__attribute__((target("avx512f,avx512vl"))) static void cs__permute_avx512(uint64_t (*st)[25],
                                                                            size_t m)
{
#define CS__XV cs__v8u
    CS__XPERMUTE(cs__v8u, 8u, st, m);
#undef CS__XV
}

/* AVX2 lane operations for CS__KROUND: one lane of four states per
 * 256-bit vector.  A rotation is two shifts and an or, except by 1 (an
 * add replaces the left shift: adds issue on more ports than shifts) and
 * by 8 and 56, whole bytes, which one byte shuffle (vpshufb) does. */
#define CS__KT __m256i
#define CS__KX(a, b) _mm256_xor_si256((a), (b))
#define CS__KN(a, b) _mm256_andnot_si256((a), (b))
#define CS__KR(a, n)                                                                       \
    ((n) == 8    ? _mm256_shuffle_epi8((a), rot8)                                          \
     : (n) == 56 ? _mm256_shuffle_epi8((a), rot56)                                         \
     : (n) == 1  ? _mm256_or_si256(_mm256_add_epi64((a), (a)), _mm256_srli_epi64((a), 63)) \
                 : _mm256_or_si256(_mm256_slli_epi64((a), (n) & 63), _mm256_srli_epi64((a), (64 - (n)) & 63)))
#define CS__KI(a, rc) _mm256_xor_si256((a), _mm256_set1_epi64x((long long)(rc)))
#define CS__KCHI CS__KROW

/* Transpose four rows of four 64-bit words: r0..r3 (one per state) in,
 * o0..o3 (one per lane) out; its own inverse. */
#define CS__T4(r0, r1, r2, r3, o0, o1, o2, o3)                                             \
    do {                                                                                   \
        __m256i t0_ = _mm256_unpacklo_epi64((r0), (r1)), t1_ = _mm256_unpackhi_epi64((r0), (r1)); \
        __m256i t2_ = _mm256_unpacklo_epi64((r2), (r3)), t3_ = _mm256_unpackhi_epi64((r2), (r3)); \
        o0 = _mm256_permute2x128_si256(t0_, t2_, 0x20);                                    \
        o1 = _mm256_permute2x128_si256(t1_, t3_, 0x20);                                    \
        o2 = _mm256_permute2x128_si256(t0_, t2_, 0x31);                                    \
        o3 = _mm256_permute2x128_si256(t1_, t3_, 0x31);                                    \
    } while (0)
#define CS__LD(p, i) _mm256_loadu_si256((const __m256i *)(const void *)((p) + (i)))
#define CS__ST(p, i, v) _mm256_storeu_si256((__m256i *)(void *)((p) + (i)), (v))
/* Lanes i..i+3 of the four states s0..s3 into the named lanes. */
#define CS__GATHER4(i, l0, l1, l2, l3) \
    CS__T4(CS__LD(s0, i), CS__LD(s1, i), CS__LD(s2, i), CS__LD(s3, i), l0, l1, l2, l3)
#define CS__SCATTER4(i, l0, l1, l2, l3)                                                    \
    do {                                                                                   \
        __m256i w0_, w1_, w2_, w3_;                                                        \
        CS__T4(l0, l1, l2, l3, w0_, w1_, w2_, w3_);                                        \
        CS__ST(s0, i, w0_);                                                                \
        CS__ST(s1, i, w1_);                                                                \
        CS__ST(s2, i, w2_);                                                                \
        CS__ST(s3, i, w3_);                                                                \
    } while (0)
/* The byte shuffles that rotate every lane by 8 and by 56 (CS__KR), as
 * the constants rot8 and rot56 in the enclosing function. */
#define CS__KROTS                                                                          \
    const __m256i rot8 = _mm256_setr_epi8(7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, \
                                          14, 7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, \
                                          13, 14);                                          \
    const __m256i rot56 = _mm256_setr_epi8(1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, \
                                           8, 1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, \
                                           15, 8)
/* All 25 lanes of the states s0..s3 into the vectors a00..a44 (six groups
 * of four by transposes, lane 24 by inserts), and back. */
#define CS__GATHER_ALL()                                                                   \
    do {                                                                                   \
        CS__GATHER4(0, a00, a01, a02, a03);                                                \
        CS__GATHER4(4, a04, a10, a11, a12);                                                \
        CS__GATHER4(8, a13, a14, a20, a21);                                                \
        CS__GATHER4(12, a22, a23, a24, a30);                                               \
        CS__GATHER4(16, a31, a32, a33, a34);                                               \
        CS__GATHER4(20, a40, a41, a42, a43);                                               \
        a44 = _mm256_setr_epi64x((long long)s0[24], (long long)s1[24], (long long)s2[24],  \
                                 (long long)s3[24]);                                       \
    } while (0)
#define CS__SCATTER_ALL()                                                                  \
    do {                                                                                   \
        CS__SCATTER4(0, a00, a01, a02, a03);                                               \
        CS__SCATTER4(4, a04, a10, a11, a12);                                               \
        CS__SCATTER4(8, a13, a14, a20, a21);                                               \
        CS__SCATTER4(12, a22, a23, a24, a30);                                              \
        CS__SCATTER4(16, a31, a32, a33, a34);                                              \
        CS__SCATTER4(20, a40, a41, a42, a43);                                              \
        uint64_t l24_[4];                                                                  \
        CS__ST(l24_, 0, a44);                                                              \
        s0[24] = l24_[0];                                                                  \
        s1[24] = l24_[1];                                                                  \
        s2[24] = l24_[2];                                                                  \
        s3[24] = l24_[3];                                                                  \
    } while (0)

/*
 * Four states per call (AVX2), m <= 4 of them real: states past m are
 * read from and written to a zeroed scratch state.  The lanes are moved
 * between the states' rows and the per-lane vectors with 4 x 4
 * transposes (six groups of four lanes; lane 24 by inserts).
 */
__attribute__((target("avx2"))) static void cs__permute_avx2(uint64_t (*st)[25], size_t m)
{
    uint64_t pad[3][28];
    memset(pad, 0, sizeof pad);
    uint64_t *s0 = st[0], *s1 = m > 1 ? st[1] : pad[0], *s2 = m > 2 ? st[2] : pad[1],
             *s3 = m > 3 ? st[3] : pad[2];
    CS__KROTS;
    CS__KDECL(a);
    CS__KDECL(e);
    CS__GATHER_ALL();
    CS__K24(a, e);
    CS__SCATTER_ALL();
}

/* Scalar lane operations for the hybrid path (family W: one state on
 * 64-bit words, the one-state round's operations), compiled there for
 * BMI1 + BMI2 like cs__permute_bmi2. */
#define CS__WT uint64_t
#define CS__WX(a, b) ((a) ^ (b))
#define CS__WN(a, b) (~(a) & (b))
#define CS__WR(a, n) (((a) << (n)) | ((a) >> (64 - (n))))
#define CS__WI(a, rc) ((a) ^ (rc))
#define CS__WCHI(E, y, b0, b1, b2, b3, b4) CS__GROW(CS__W, E, y, b0, b1, b2, b3, b4)
#define CS__WDECL(P)                                                                       \
    uint64_t P##00, P##01, P##02, P##03, P##04, P##10, P##11, P##12, P##13, P##14, P##20,  \
        P##21, P##22, P##23, P##24, P##30, P##31, P##32, P##33, P##34, P##40, P##41, P##42, \
        P##43, P##44
#define CS__WLOAD(v, i) v = w[i]
#define CS__WSTORE(v, i) w[i] = v

/* One round of four states on AVX2 vectors (lanes VA into VE) and of a
 * fifth on 64-bit words (WA into WE), interleaved step by step so that
 * the vector and the scalar instructions are in flight together. */
#define CS__H5ROUND(VA, VE, WA, WE, rc)                                                    \
    do {                                                                                   \
        CS__GTHETA(CS__K, VA, vd_);                                                        \
        CS__GTHETA(CS__W, WA, wd_);                                                        \
        CS__GRHO0(CS__K, VA, VE, vd_, rc);                                                 \
        CS__GRHO0(CS__W, WA, WE, wd_, rc);                                                 \
        CS__GRHO1(CS__K, VA, VE, vd_);                                                     \
        CS__GRHO1(CS__W, WA, WE, wd_);                                                     \
        CS__GRHO2(CS__K, VA, VE, vd_);                                                     \
        CS__GRHO2(CS__W, WA, WE, wd_);                                                     \
        CS__GRHO3(CS__K, VA, VE, vd_);                                                     \
        CS__GRHO3(CS__W, WA, WE, wd_);                                                     \
        CS__GRHO4(CS__K, VA, VE, vd_);                                                     \
        CS__GRHO4(CS__W, WA, WE, wd_);                                                     \
    } while (0)

/*
 * The hybrid path's step: 2 <= m <= 5 states, the last, st[m - 1], on
 * 64-bit words (rorx, andn) and the others on AVX2 vectors as in
 * cs__permute_avx2 (vector lanes past them read and write a zeroed
 * scratch state), both in the same loop.  On a CPU that runs each 256-bit
 * instruction as two 128-bit halves (AMD Zen 1) the vector round keeps
 * the vector pipes busy and leaves the integer ALUs idle; the scalar
 * state's round runs on those, so five states take about the time of
 * four (measured on an AMD EPYC Zen 1: about 300 ns per state against
 * 375 ns for cs__permute_avx2).
 */
__attribute__((target("avx2,bmi,bmi2"))) static void cs__permute_hyb5(uint64_t (*st)[25], size_t m)
{
    uint64_t pad[3][28];
    memset(pad, 0, sizeof pad);
    uint64_t *w = st[m - 1];
    uint64_t *s0 = st[0], *s1 = m > 2 ? st[1] : pad[0], *s2 = m > 3 ? st[2] : pad[1],
             *s3 = m > 4 ? st[3] : pad[2];
    CS__KROTS;
    CS__KDECL(a);
    CS__KDECL(e);
    CS__WDECL(p);
    CS__WDECL(q);
    CS__GATHER_ALL();
    CS__KEACH(CS__WLOAD, p);
    for (unsigned r = 0; r < 24; r += 2) {
        CS__H5ROUND(a, e, p, q, cs__rc[r]);
        CS__H5ROUND(e, a, q, p, cs__rc[r + 1]);
    }
    CS__KEACH(CS__WSTORE, p);
    CS__SCATTER_ALL();
}
#undef CS__WT
#undef CS__WX
#undef CS__WN
#undef CS__WR
#undef CS__WI
#undef CS__WCHI
#undef CS__KT
#undef CS__KX
#undef CS__KN
#undef CS__KR
#undef CS__KI
#undef CS__KCHI
#endif

/* The scalar path: nettle's permutation, one state at a time (struct
 * sha3_state is exactly the 25 lanes, cs_keccak.c asserts it). */
static void cs__permute_scalar(uint64_t (*st)[25], size_t n)
{
    for (size_t k = 0; k < n; k++) sha3_permute((struct sha3_state *)(void *)st[k]);
}

/* A choice among implementations resolved at the first use: the batch
 * path, or the one-state permutation.  0 (AUTO) means the fastest this
 * CPU has. */
typedef struct cs__ksel {
    int cur;                  /* chosen one; 0 until the first use */
    int (*available)(int);    /* does this CPU have that one? */
    int (*best)(void);        /* the fastest this CPU has */
    const char *const *names; /* by value, [0] = "auto" */
    int n_names;              /* entries of names */
} cs__ksel;

static int cs__ksel_get(cs__ksel *k)
{
    if (k->cur == 0) k->cur = k->best();
    return k->cur;
}

static int cs__ksel_set(cs__ksel *k, int v)
{
    if (v == 0) v = k->best();
    if (!k->available(v)) return CS_EINVAL;
    k->cur = v;
    return CS_OK;
}

static const char *cs__ksel_name(const cs__ksel *k, int v)
{
    return v > 0 && v < k->n_names ? k->names[v] : k->names[0];
}

/* ---- batch paths ---- */

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
    case CS_KECCAK_PATH_AVX2_BMI2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
               __builtin_cpu_supports("bmi2");
#endif
    default:
        return 0;
    }
}

/* Does this CPU run a 256-bit AVX2 instruction as two 128-bit halves?
 * AMD Zen 1 and Zen+ (GCC's znver1) do; there the hybrid path wins. */
static int cs__avx2_halved(void)
{
#ifdef CS__HAVE_X86
    return __builtin_cpu_is("znver1");
#else
    return 0;
#endif
}

/* The fastest path this CPU has: chosen by CPU features and model, not
 * timed, so a run's path does not depend on the load of the machine
 * (every path gives the same states anyway). */
static int cs__kpath_best(void)
{
    if (cs_keccak_path_available(CS_KECCAK_PATH_AVX512)) return CS_KECCAK_PATH_AVX512;
    if (cs__avx2_halved() && cs_keccak_path_available(CS_KECCAK_PATH_AVX2_BMI2))
        return CS_KECCAK_PATH_AVX2_BMI2;
    if (cs_keccak_path_available(CS_KECCAK_PATH_AVX2)) return CS_KECCAK_PATH_AVX2;
    return CS_KECCAK_PATH_SCALAR;
}

static const char *const cs__kpath_names[] = {"auto", "scalar", "avx2x4", "avx512x8", "avx2x4+bmi2x1"};
static cs__ksel cs__kpath = {0, cs_keccak_path_available, cs__kpath_best, cs__kpath_names, 5};

int cs_keccak_path(void)
{
    return cs__ksel_get(&cs__kpath);
}

int cs_keccak_path_set(int path)
{
    return cs__ksel_set(&cs__kpath, path);
}

const char *cs_keccak_path_name(int path)
{
    return cs__ksel_name(&cs__kpath, path);
}

/* ---- one state ---- */

int cs_keccak_one_available(int impl)
{
    switch (impl) {
    case CS_KECCAK_ONE_NETTLE:
    case CS_KECCAK_ONE_C:
        return 1;
#ifdef CS__HAVE_X86
    case CS_KECCAK_ONE_BMI2:
        return __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#endif
    default:
        return 0;
    }
}

/* The fastest one-state permutation this CPU has (measured on an AMD EPYC
 * (Zen 3): BMI2 about 1.35x nettle's, the lane-complemented C about 1.2x;
 * the round fully unrolled was slower than two rounds a loop step). */
static int cs__kone_best(void)
{
    return cs_keccak_one_available(CS_KECCAK_ONE_BMI2) ? CS_KECCAK_ONE_BMI2 : CS_KECCAK_ONE_C;
}

static const char *const cs__kone_names[] = {"auto", "nettle", "c", "bmi2"};
static cs__ksel cs__kone = {0, cs_keccak_one_available, cs__kone_best, cs__kone_names, 4};

int cs_keccak_one(void)
{
    return cs__ksel_get(&cs__kone);
}

int cs_keccak_one_set(int impl)
{
    return cs__ksel_set(&cs__kone, impl);
}

const char *cs_keccak_one_name(int impl)
{
    return cs__ksel_name(&cs__kone, impl);
}

/* One state with the chosen one-state permutation. */
static void cs__permute_one(uint64_t a[25])
{
    switch (cs_keccak_one()) {
#ifdef CS__HAVE_X86
    case CS_KECCAK_ONE_BMI2: cs__permute_bmi2(a); return;
#endif
    case CS_KECCAK_ONE_C: cs__permute_c(a); return;
    default: sha3_permute((struct sha3_state *)(void *)a); return;
    }
}

void cs_keccak_permute1(uint64_t a[25])
{
    if (cs_keccak_path() == CS_KECCAK_PATH_SCALAR) sha3_permute((struct sha3_state *)(void *)a);
    else cs__permute_one(a);
}

void cs_keccak_permute_many(uint64_t (*st)[25], size_t n)
{
    int path = cs_keccak_path();
#ifdef CS__HAVE_X86
    if (path == CS_KECCAK_PATH_AVX512) {
        for (size_t k = 0; k < n; k += 8) cs__permute_avx512(st + k, n - k < 8 ? n - k : 8);
        return;
    }
    if (path == CS_KECCAK_PATH_AVX2_BMI2) {
        /* Five at a time; four left take one step too (three of them on
         * vectors), fewer go one by one through the one-state
         * permutation, which is cheaper there: 1 to 3 states cost about
         * 1, 2 and 3 times 470 ns on an AMD EPYC Zen 1, a step 1500 ns. */
        size_t k = 0;
        for (; k + 5 <= n; k += 5) cs__permute_hyb5(st + k, 5);
        if (n - k == 4) cs__permute_hyb5(st + k, 4);
        else
            for (; k < n; k++) cs__permute_one(st[k]);
        return;
    }
    if (path == CS_KECCAK_PATH_AVX2) {
        /* A lone state (a batch of one, or one past a multiple of four)
         * takes the one-state permutation: a vector of four holding one
         * real state costs about 1.4x as much. */
        size_t k = 0;
        for (; k + 1 < n; k += 4) cs__permute_avx2(st + k, n - k < 4 ? n - k : 4);
        if (k < n) cs__permute_one(st[k]);
        return;
    }
#endif
    (void)path;
    cs__permute_scalar(st, n);
}
