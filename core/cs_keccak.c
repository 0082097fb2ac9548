/*
 * cs_keccak.c -- Keccak-256, timer ids and the custom-handler payload
 * convention (CIP-5 §3.3, §4.2; DESIGN §2.1).
 *
 * Keccak-256 here is the original Keccak submission as used by Ethereum:
 * rate 136 bytes (capacity 512 bits), multi-rate padding with the domain
 * byte 0x01 -- not FIPS-202 SHA3-256, whose domain byte is 0x06.  The
 * Keccak-f[1600] permutation is nettle's public sha3_permute() on the
 * scalar path, else the one-state permutation of cs_keccak_x.c
 * (cs_keccak_permute1).
 * State lanes are 64-bit words; message bytes enter each lane
 * little-endian (byte 8*i+j of a block is byte j of lane i).
 *
 * The payload router is a hand-written, allocation-light JSON reader: core/
 * may not depend on cJSON (DESIGN §1).
 */
#include <stdlib.h>
#include <string.h>

#include <nettle/sha3.h>

#include "cs_error.h"
#include "cs_timer.h"

const uint64_t cs_keccak_zero_state[25] = {0};

#define CS__KECCAK_RATE 136u /* bytes absorbed per permutation */
#define CS__KECCAK_RATE_LANES (CS__KECCAK_RATE / 8u)

CS_STATIC_ASSERT(sizeof(struct sha3_state) == 25 * sizeof(uint64_t),
                 "nettle's sha3_state must be exactly the 25 Keccak lanes");
CS_STATIC_ASSERT(sizeof(((cs_keccak_ctx *)0)->buf) == CS__KECCAK_RATE,
                 "cs_keccak_ctx.buf must hold one rate block");

/* ------------------------------------------------------------------ */
/* Keccak-256                                                           */
/* ------------------------------------------------------------------ */

/* Read 8 bytes as a little-endian 64-bit word; compiles to one load on
 * little-endian hosts. */
static inline uint64_t cs__le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* Permute the 25 lanes in place (cs_keccak_permute1: nettle's Keccak-f[1600]
 * on the scalar path, else the one-state permutation of cs_keccak_x.c). */
static inline void cs__permute(uint64_t a[25])
{
    cs_keccak_permute1(a);
}

/* XOR one full 136-byte block into the lanes and permute. */
static inline void cs__absorb_block(uint64_t a[25], const uint8_t *blk)
{
    for (unsigned i = 0; i < CS__KECCAK_RATE_LANES; i++) a[i] ^= cs__le64(blk + 8 * i);
    cs__permute(a);
}

/* Pad the final partial block held in blk (len < 136 message bytes at
 * the front; the rest is scratch and gets overwritten), absorb it, and
 * squeeze the first 32 bytes of the state into out.  Keccak padding: 0x01
 * after the message, 0x80 in the last byte of the block (the two merge
 * into 0x81 when only one byte is free). */
static void cs__pad_squeeze(uint64_t a[25], uint8_t blk[CS__KECCAK_RATE], unsigned len,
                            uint8_t out[32])
{
    memset(blk + len, 0, CS__KECCAK_RATE - len);
    blk[len] = 0x01;
    blk[CS__KECCAK_RATE - 1] |= 0x80;
    cs__absorb_block(a, blk);
    for (unsigned i = 0; i < 4; i++) {
        uint64_t w = a[i];
        for (unsigned j = 0; j < 8; j++) out[8 * i + j] = (uint8_t)(w >> (8 * j));
    }
}

/* As cs__pad_squeeze, for a read-only tail of len < 136 bytes. */
static void cs__finish(uint64_t a[25], const uint8_t *tail, unsigned len, uint8_t out[32])
{
    uint8_t last[CS__KECCAK_RATE];
    if (len > 0) memcpy(last, tail, len);
    cs__pad_squeeze(a, last, len, out);
}

/*
 * One-shot Keccak-256 of len bytes at data into out[32].  data may be NULL
 * when len is 0.  Never fails, never allocates.
 */
void cs_keccak256(const void *data, size_t len, uint8_t out[32])
{
    uint64_t a[25];
    memcpy(a, cs_keccak_zero_state, sizeof a);
    const uint8_t *p = (const uint8_t *)data;
    while (len >= CS__KECCAK_RATE) {
        cs__absorb_block(a, p);
        p += CS__KECCAK_RATE;
        len -= CS__KECCAK_RATE;
    }
    cs__finish(a, p, (unsigned)len, out);
}

/* A fresh state's rate bytes: lane i holds bytes 8i..8i+7 little-endian,
 * so on a little-endian host the message bytes are written into the
 * lanes in place and cs__lanes_fix is nothing; on a big-endian one it
 * swaps the rate lanes after the bytes are written. */
static inline uint8_t *cs__state_bytes(uint64_t a[25])
{
    return (uint8_t *)(void *)a;
}

static inline void cs__lanes_fix(uint64_t a[25])
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (unsigned i = 0; i < CS__KECCAK_RATE_LANES; i++) a[i] = __builtin_bswap64(a[i]);
#else
    (void)a;
#endif
}

/* Keccak padding of a one-block message of len < 136 bytes already in a
 * zeroed state: 0x01 after the message, 0x80 in the last byte of the
 * rate (the two merge into 0x81 when only one byte is free). */
static inline void cs__state_pad(uint64_t a[25], unsigned len)
{
    uint8_t *b = cs__state_bytes(a);
    b[len] ^= 0x01;
    b[CS__KECCAK_RATE - 1] ^= 0x80;
    cs__lanes_fix(a);
}

/* Load a one-block message (len < 136 bytes) with its Keccak padding into
 * a fresh state: what absorbing it into the zero state XORs in. */
static void cs__load_short(uint64_t a[25], const uint8_t *msg, unsigned len)
{
    memcpy(a, cs_keccak_zero_state, sizeof cs_keccak_zero_state);
    if (len > 0) memcpy(cs__state_bytes(a), msg, len);
    cs__state_pad(a, len);
}

/* The first 32 bytes of a state, little-endian lanes. */
static void cs__squeeze32(const uint64_t a[25], uint8_t out[32])
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, a, 32);
#else
    for (unsigned i = 0; i < 4; i++)
        for (unsigned j = 0; j < 8; j++) out[8 * i + j] = (uint8_t)(a[i] >> (8 * j));
#endif
}

/*
 * Keccak-256 of n independent messages: out[k] = cs_keccak256(msg[k],
 * len[k]).  Messages shorter than one rate block (136 bytes) are hashed
 * CS_KECCAK_BATCH at a time through cs_keccak_permute_many; longer ones
 * one by one.  Never allocates.
 */
void cs_keccak256_many(const void *const *msg, const size_t *len, size_t n, uint8_t (*out)[32])
{
    uint64_t st[CS_KECCAK_BATCH][25];
    size_t idx[CS_KECCAK_BATCH], m = 0;
    for (size_t k = 0; k < n; k++) {
        if (len[k] >= CS__KECCAK_RATE) {
            cs_keccak256(msg[k], len[k], out[k]);
            continue;
        }
        cs__load_short(st[m], (const uint8_t *)msg[k], (unsigned)len[k]);
        idx[m++] = k;
        if (m == CS_KECCAK_BATCH || k + 1 == n) {
            cs_keccak_permute_many(st, m);
            for (size_t j = 0; j < m; j++) cs__squeeze32(st[j], out[idx[j]]);
            m = 0;
        }
    }
    if (m > 0) { /* the last messages were long ones */
        cs_keccak_permute_many(st, m);
        for (size_t j = 0; j < m; j++) cs__squeeze32(st[j], out[idx[j]]);
    }
}

/* Start an incremental Keccak-256 computation in c (caller-owned). */
void cs_keccak_init(cs_keccak_ctx *c)
{
    memcpy(c->a, cs_keccak_zero_state, sizeof c->a);
    c->fill = 0;
}

/*
 * Absorb len more bytes at data.  Whole blocks are absorbed straight from
 * data; only a trailing partial block is copied into c->buf.  data may be
 * NULL when len is 0.
 */
void cs_keccak_update(cs_keccak_ctx *c, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    if (len == 0) return;
    if (c->fill > 0) {
        size_t take = CS__KECCAK_RATE - c->fill;
        if (take > len) take = len;
        memcpy(c->buf + c->fill, p, take);
        c->fill += (unsigned)take;
        p += take;
        len -= take;
        if (c->fill < CS__KECCAK_RATE) return;
        cs__absorb_block(c->a, c->buf);
        c->fill = 0;
    }
    while (len >= CS__KECCAK_RATE) {
        cs__absorb_block(c->a, p);
        p += CS__KECCAK_RATE;
        len -= CS__KECCAK_RATE;
    }
    if (len > 0) {
        memcpy(c->buf, p, len);
        c->fill = (unsigned)len;
    }
}

/* Pad, finish and write the 32-byte digest.  c must be re-initialised
 * with cs_keccak_init before it is used again. */
void cs_keccak_final(cs_keccak_ctx *c, uint8_t out[32])
{
    cs__pad_squeeze(c->a, c->buf, c->fill, out);
}

/* Store v big-endian into 8 bytes at p. */
static inline void cs__be64_put(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
    memcpy(p, &v, sizeof v);
#else
    for (unsigned i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (56 - 8 * i));
#endif
}

/* CIP-5 §3.3 preimage head: actor[20] || height[8 BE]. */
static void cs__timer_id_head(uint8_t head[CS_ADDR_LEN + 8], const cs_addr_t *actor, uint64_t height)
{
    memcpy(head, actor->b, CS_ADDR_LEN);
    cs__be64_put(head + CS_ADDR_LEN, height);
}

/*
 * The CIP-5 §3.3 preimage actor[20] || height[8 BE] || payload || nonce[8 BE]
 * with its Keccak padding, loaded into the fresh state a when it fits one
 * rate block with its padding (payload_len + 36 < 136, most timers):
 * returns its length, or 0 when it does not fit (a untouched).  The bytes
 * are written straight into the lanes (cs__state_bytes).  cs_timer_id and
 * cs_timer_id_many both hash these bytes, so the single and the batched
 * derivation cannot drift apart.
 */
static unsigned cs__timer_id_state(uint64_t a[25], const cs_addr_t *actor, uint64_t height,
                                   const void *payload, size_t payload_len, uint64_t nonce)
{
    if (payload_len + CS_ADDR_LEN + 16u >= CS__KECCAK_RATE) return 0;
    uint8_t *b = cs__state_bytes(a);
    memcpy(a, cs_keccak_zero_state, sizeof cs_keccak_zero_state);
    cs__timer_id_head(b, actor, height);
    if (payload_len > 0) memcpy(b + CS_ADDR_LEN + 8, payload, payload_len);
    cs__be64_put(b + CS_ADDR_LEN + 8 + payload_len, nonce);
    unsigned len = (unsigned)(payload_len + CS_ADDR_LEN + 16u);
    cs__state_pad(a, len);
    return len;
}

/*
 * CIP-5 §3.3: timer_id = keccak256(actor[20] || height[8 BE] || payload ||
 * nonce[8 BE]).  A long payload is hashed in place, never copied.  payload
 * may be NULL when payload_len is 0.
 */
void cs_timer_id(const cs_addr_t *actor, uint64_t height, const void *payload,
                 size_t payload_len, uint64_t nonce, cs_hash_t *out)
{
    uint64_t a[25];
    if (cs__timer_id_state(a, actor, height, payload, payload_len, nonce) > 0) {
        /* Fast path (most timers): the whole input fits in one block. */
        cs__permute(a);
        cs__squeeze32(a, out->b);
        return;
    }
    cs_keccak_ctx c;
    uint8_t head[CS_ADDR_LEN + 8], tail[8];
    cs__timer_id_head(head, actor, height);
    cs__be64_put(tail, nonce);
    cs_keccak_init(&c);
    cs_keccak_update(&c, head, sizeof head);
    cs_keccak_update(&c, payload, payload_len);
    cs_keccak_update(&c, tail, sizeof tail);
    cs_keccak_final(&c, out->b);
}

/*
 * out[k] = cs_timer_id(in[k]...) for k < n.  One-block preimages are
 * permuted CS_KECCAK_BATCH at a time through cs_keccak_permute_many (8 or 4
 * lanes per instruction on the AVX paths); longer ones one by one through
 * cs_timer_id.  Never allocates.
 */
void cs_timer_id_many(const cs_timer_id_in_t *in, size_t n, cs_hash_t *out)
{
    uint64_t st[CS_KECCAK_BATCH][25];
    size_t idx[CS_KECCAK_BATCH], m = 0;
    for (size_t k = 0; k < n; k++) {
        if (cs__timer_id_state(st[m], in[k].actor, in[k].height, in[k].payload, in[k].payload_len, in[k].nonce) ==
            0) {
            cs_timer_id(in[k].actor, in[k].height, in[k].payload, in[k].payload_len, in[k].nonce, &out[k]);
        } else {
            idx[m++] = k;
        }
        if (m > 0 && (m == CS_KECCAK_BATCH || k + 1 == n)) {
            cs_keccak_permute_many(st, m);
            for (size_t j = 0; j < m; j++) cs__squeeze32(st[j], out[idx[j]].b);
            m = 0;
        }
    }
}

/* ------------------------------------------------------------------ */
/* CIP-5 §4.2 custom handler convention                                 */
/* ------------------------------------------------------------------ */

/* A JSON string token: the raw bytes between the quotes (escapes still
 * encoded), already checked to be a well-formed JSON string. */
typedef struct cs__jstr {
    const uint8_t *p; /* first byte after the opening quote */
    size_t n;         /* raw bytes up to the closing quote */
} cs__jstr;

/* Cursor over the payload. */
typedef struct cs__jcur {
    const uint8_t *p;   /* next unread byte */
    const uint8_t *end; /* one past the last payload byte */
} cs__jcur;

/* Skip JSON insignificant whitespace (RFC 8259 §2: space, tab, LF, CR). */
static void cs__jws(cs__jcur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* Value of one hex digit, or -1. */
static int cs__hexval(uint8_t ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Parse 4 hex digits at p (caller ensured 4 bytes exist); -1 if bad. */
static long cs__hex4(const uint8_t *p)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int d = cs__hexval(p[i]);
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/*
 * Decode the next code point of a JSON string body at *pp (bounded by end,
 * which is the closing quote).  Handles the RFC 8259 §7 escapes including
 * \uXXXX surrogate pairs, and validates raw UTF-8 (no overlongs, no
 * surrogates, nothing above U+10FFFF, no raw control characters).  Returns
 * the code point, or -1 when the string is malformed.
 */
static long cs__jnext(const uint8_t **pp, const uint8_t *end)
{
    const uint8_t *p = *pp;
    uint8_t ch = *p++;
    long cp;
    if (ch < 0x20) return -1;
    if (ch == '\\') {
        if (p >= end) return -1;
        ch = *p++;
        switch (ch) {
        case '"': cp = '"'; break;
        case '\\': cp = '\\'; break;
        case '/': cp = '/'; break;
        case 'b': cp = 0x08; break;
        case 'f': cp = 0x0c; break;
        case 'n': cp = 0x0a; break;
        case 'r': cp = 0x0d; break;
        case 't': cp = 0x09; break;
        case 'u':
            if (end - p < 4 || (cp = cs__hex4(p)) < 0) return -1;
            p += 4;
            if (cp >= 0xdc00 && cp <= 0xdfff) return -1; /* lone low surrogate */
            if (cp >= 0xd800 && cp <= 0xdbff) {
                long lo;
                if (end - p < 6 || p[0] != '\\' || p[1] != 'u') return -1;
                lo = cs__hex4(p + 2);
                if (lo < 0xdc00 || lo > 0xdfff) return -1;
                p += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            break;
        default: return -1;
        }
        *pp = p;
        return cp;
    }
    if (ch < 0x80) {
        *pp = p;
        return ch;
    }
    {
        unsigned extra;
        long min;
        if (ch >= 0xc2 && ch <= 0xdf) { extra = 1; cp = ch & 0x1f; min = 0x80; }
        else if (ch >= 0xe0 && ch <= 0xef) { extra = 2; cp = ch & 0x0f; min = 0x800; }
        else if (ch >= 0xf0 && ch <= 0xf4) { extra = 3; cp = ch & 0x07; min = 0x10000; }
        else return -1;
        if ((size_t)(end - p) < extra) return -1;
        for (unsigned i = 0; i < extra; i++) {
            if ((p[i] & 0xc0) != 0x80) return -1;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
        *pp = p + extra;
        return cp;
    }
}

/*
 * Scan a JSON string starting at the opening quote.  On success fill s,
 * advance past the closing quote and return 0; return -1 when the text is
 * not a well-formed JSON string.  Every code point is validated here, so
 * later decoding of s cannot fail on syntax.
 */
static int cs__jstring(cs__jcur *c, cs__jstr *s)
{
    const uint8_t *q;
    if (c->p >= c->end || *c->p != '"') return -1;
    q = ++c->p;
    /* Find the closing quote: the first '"' not consumed by an escape. */
    while (q < c->end && *q != '"') q += (*q == '\\' && q + 1 < c->end) ? 2 : 1;
    if (q >= c->end) return -1;
    s->p = c->p;
    s->n = (size_t)(q - c->p);
    {
        const uint8_t *r = s->p;
        while (r < q)
            if (cs__jnext(&r, q) < 0) return -1;
    }
    c->p = q + 1;
    return 0;
}

/* Encode cp as UTF-8 into out (room for 4 bytes); returns the length. */
static size_t cs__utf8_put(long cp, uint8_t *out)
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xc0 | (cp >> 6));
        out[1] = (uint8_t)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xe0 | (cp >> 12));
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (uint8_t)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (uint8_t)(0xf0 | (cp >> 18));
    out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (uint8_t)(0x80 | (cp & 0x3f));
    return 4;
}

/* Compare a (validated) JSON string with the ASCII key lit after
 * unescaping; 1 when equal. */
static int cs__jeq(const cs__jstr *s, const char *lit)
{
    const uint8_t *p = s->p, *end = s->p + s->n;
    size_t i = 0;
    while (p < end) {
        long cp = cs__jnext(&p, end);
        if (lit[i] == '\0' || cp != (uint8_t)lit[i]) return 0;
        i++;
    }
    return lit[i] == '\0';
}

/* Value of a standard base64 character (RFC 4648 §4), or -1. */
static int cs__b64val(long cp)
{
    if (cp >= 'A' && cp <= 'Z') return (int)(cp - 'A');
    if (cp >= 'a' && cp <= 'z') return (int)(cp - 'a' + 26);
    if (cp >= '0' && cp <= '9') return (int)(cp - '0' + 52);
    if (cp == '+') return 62;
    if (cp == '/') return 63;
    return -1;
}

/*
 * Decode the base64 text of JSON string s (standard alphabet, '=' padding
 * required, RFC 4648 §4) into a malloc'd buffer.  Returns 1 and sets
 * *out / *out_len (out NULL when the decoded length is 0), 0 when s is not
 * canonical padded base64 (wrong length, bad character, misplaced '=' or
 * non-zero pad bits), or -CS_ENOMEM.
 */
static int cs__b64_decode(const cs__jstr *s, uint8_t **out, size_t *out_len)
{
    const uint8_t *p = s->p, *end = s->p + s->n;
    size_t nchar = 0, pad = 0, o = 0;
    uint32_t acc = 0;
    uint8_t *buf;
    /* Pass 1: count code points and validate alphabet and padding. */
    while (p < end) {
        long cp = cs__jnext(&p, end);
        if (cp == '=') {
            pad++;
        } else {
            if (pad > 0 || cs__b64val(cp) < 0) return 0;
        }
        nchar++;
    }
    if (nchar % 4 != 0 || pad > 2) return 0;
    *out_len = nchar / 4 * 3 - pad;
    if (*out_len == 0) {
        *out = NULL;
        return 1;
    }
    buf = (uint8_t *)malloc(*out_len);
    if (!buf) return -CS_ENOMEM;
    /* Pass 2: decode 6 bits per character. */
    p = s->p;
    for (size_t i = 0; i < nchar - pad; i++) {
        acc = (acc << 6) | (uint32_t)cs__b64val(cs__jnext(&p, end));
        if (i % 4 == 3) {
            buf[o++] = (uint8_t)(acc >> 16);
            buf[o++] = (uint8_t)(acc >> 8);
            buf[o++] = (uint8_t)acc;
            acc = 0;
        }
    }
    /* Canonical form: the bits dropped by padding must be zero. */
    if (pad == 2) {
        if (acc & 0x0fu) goto noncanon;
        buf[o++] = (uint8_t)(acc >> 4);
    } else if (pad == 1) {
        if (acc & 0x03u) goto noncanon;
        buf[o++] = (uint8_t)(acc >> 10);
        buf[o++] = (uint8_t)(acc >> 2);
    }
    CS_ASSERT(o == *out_len);
    *out = buf;
    return 1;
noncanon:
    free(buf);
    return 0;
}

/*
 * CIP-5 §4.2 custom handler convention.  The payload routes when it is
 * exactly one JSON object with the two string members "_handler" and
 * "_payload" (either order, JSON whitespace anywhere RFC 8259 allows it,
 * escapes honoured) and nothing else: no other member, no duplicate, no
 * trailing bytes.  The handler name must be non-empty and must not contain
 * U+0000; _payload must be canonical padded standard base64.  On a route,
 * handler gets the UTF-8 name NUL-terminated, *inner a malloc'd copy of the
 * decoded bytes (NULL when empty; the caller frees) and 1 is returned.
 * Otherwise 0 (default handler, outputs untouched).  A name longer than
 * CS_MAX_HANDLER bytes in an otherwise routing payload gives
 * -CS_EHANDLER_TOO_LONG; allocation failure -CS_ENOMEM.
 */
int cs_payload_route(const uint8_t *payload, size_t len, char handler[CS_MAX_HANDLER + 1],
                     uint8_t **inner, size_t *inner_len)
{
    cs__jcur c = {payload, payload + len};
    cs__jstr hname = {NULL, 0}, b64 = {NULL, 0};
    int have_h = 0, have_p = 0;
    if (!payload || len == 0) return 0;
    cs__jws(&c);
    if (c.p >= c.end || *c.p != '{') return 0;
    c.p++;
    for (int member = 0; member < 2; member++) {
        cs__jstr key, val;
        cs__jws(&c);
        if (cs__jstring(&c, &key) < 0) return 0;
        cs__jws(&c);
        if (c.p >= c.end || *c.p != ':') return 0;
        c.p++;
        cs__jws(&c);
        if (cs__jstring(&c, &val) < 0) return 0;
        if (cs__jeq(&key, "_handler") && !have_h) {
            hname = val;
            have_h = 1;
        } else if (cs__jeq(&key, "_payload") && !have_p) {
            b64 = val;
            have_p = 1;
        } else {
            return 0; /* another member, or a duplicate key */
        }
        cs__jws(&c);
        if (c.p >= c.end) return 0;
        if (*c.p++ != (member == 0 ? ',' : '}')) return 0;
    }
    cs__jws(&c);
    if (c.p != c.end) return 0;

    /* Decode the handler name into a bounded local buffer first. */
    {
        uint8_t name[CS_MAX_HANDLER + 4];
        const uint8_t *p = hname.p, *end = hname.p + hname.n;
        size_t n = 0;
        int too_long = 0;
        uint8_t *dec = NULL;
        size_t dec_len = 0;
        int rc;
        while (p < end) {
            uint8_t u[4];
            long cp = cs__jnext(&p, end);
            size_t k;
            if (cp == 0) return 0; /* a NUL cannot live in a C handler name */
            k = cs__utf8_put(cp, u);
            if (n + k > CS_MAX_HANDLER) too_long = 1;
            else memcpy(name + n, u, k);
            n += k;
        }
        if (n == 0) return 0; /* no handler named "" exists */
        rc = cs__b64_decode(&b64, &dec, &dec_len);
        if (rc <= 0) return rc;
        if (too_long) {
            free(dec);
            return -CS_EHANDLER_TOO_LONG; /* CIP-5 §4.2: handler name <= 256 bytes */
        }
        memcpy(handler, name, n);
        handler[n] = '\0';
        *inner = dec;
        *inner_len = dec_len;
        return 1;
    }
}
