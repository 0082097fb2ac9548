/*
 * cs_types.h -- basic types shared by every cowsim module.
 *
 * The core uses only integer and fixed-point arithmetic on consensus paths
 * (DESIGN §2.7, CIP-5 CN §9.1).  Monetary amounts are unsigned 128-bit base
 * units (DESIGN §2.6); gcc and clang provide unsigned __int128 on every
 * 64-bit target cowsim supports.
 */
#ifndef CS_TYPES_H
#define CS_TYPES_H

#include <stddef.h>
#include <stdint.h>

__extension__ typedef unsigned __int128 cs_u128;
__extension__ typedef __int128 cs_i128;

#define CS_U128_MAX (~(cs_u128)0)

/* A 20-byte account / actor address (CIP-5 §3.1). */
#define CS_ADDR_LEN 20
/* Timer ids are keccak256 outputs (CIP-5 §3.3). */
#define CS_ID_LEN 32

typedef struct cs_addr {
    uint8_t b[CS_ADDR_LEN]; /* big-endian address bytes */
} cs_addr_t;

typedef struct cs_hash {
    uint8_t b[CS_ID_LEN]; /* 32-byte digest */
} cs_hash_t;

/* Code-placement hints (GCC and clang; empty elsewhere): CS_NOINLINE keeps
 * a rare path (growth, overflow) out of its caller, so the caller's common
 * path stays a leaf that saves no registers; CS_COLD marks a function
 * hardly ever called; CS_LIKELY tells which way a test usually goes. */
#if defined(__GNUC__) || defined(__clang__)
#define CS_NOINLINE __attribute__((noinline))
#define CS_COLD __attribute__((cold))
#define CS_LIKELY(e) __builtin_expect(!!(e), 1)
#else
#define CS_NOINLINE
#define CS_COLD
#define CS_LIKELY(e) (e)
#endif

/* CS_ASSERT reports the expression, file and line, then aborts.  It guards
 * internal invariants only; input errors are returned as cs_err codes. */
_Noreturn CS_COLD void cs__assert_fail(const char *expr, const char *file, int line);
#define CS_ASSERT(e) (CS_LIKELY(e) ? (void)0 : cs__assert_fail(#e, __FILE__, __LINE__))

#define CS_STATIC_ASSERT(c, msg) _Static_assert(c, msg)

#define CS_MIN(a, b) ((a) < (b) ? (a) : (b))
#define CS_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Write a u128 as decimal into buf (at least 40 bytes).  Returns buf. */
char *cs_u128_fmt(cs_u128 v, char *buf);
/* Parse a decimal u128.  Returns 0 on success, -1 on syntax error or
 * overflow.  No sign, no leading '+', no whitespace. */
int cs_u128_parse(const char *s, cs_u128 *out);

/* Checked arithmetic: return 0 and store the result, or -1 on overflow
 * (the destination is left untouched). */
static inline int cs_u128_add(cs_u128 a, cs_u128 b, cs_u128 *r)
{
    cs_u128 s = a + b;
    if (s < a) return -1;
    *r = s;
    return 0;
}
static inline int cs_u128_sub(cs_u128 a, cs_u128 b, cs_u128 *r)
{
    if (b > a) return -1;
    *r = a - b;
    return 0;
}
static inline int cs_u128_mul(cs_u128 a, cs_u128 b, cs_u128 *r)
{
    if (a != 0 && b > CS_U128_MAX / a) return -1;
    *r = a * b;
    return 0;
}

#endif /* CS_TYPES_H */
