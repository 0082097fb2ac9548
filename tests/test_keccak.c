/*
 * test_keccak.c -- Keccak-256, timer ids (CIP-5 §3.3) and the custom
 * handler payload convention (CIP-5 §4.2).
 *
 * Independent reference: every expected digest below that is not a
 * published vector was computed once with the npm package js-sha3 0.13.0
 * (node v20.20.2), function keccak256, over the same bytes, e.g.
 *   node -e 'const {keccak256}=require("js-sha3");
 *            const b=Buffer.alloc(200);for(let i=0;i<200;i++)b[i]=(i*167+13)&255;
 *            console.log(keccak256(b))'
 * and, for timer ids,
 *   keccak256(Buffer.concat([Buffer.from(actorHex,"hex"), be8(height), payload, be8(nonce)]))
 * with be8(x) = an 8-byte Buffer written by writeBigUInt64BE.
 * Base64 expectations were checked with Python's base64.b64decode(s, validate=True).
 */
#include <stdlib.h>
#include <string.h>

#include "cs_error.h"
#include "cs_test.h"
#include "cs_timer.h"

#include <nettle/sha3.h>
#include <stdio.h>

/* ---- forced allocation failure (glibc, non-sanitizer builds only) ---- */
#if defined(__GLIBC__) && !defined(CS_SANITIZE)
#define CS_TEST_MALLOC_FAIL 1
extern void *__libc_malloc(size_t n);
static int fail_next_malloc; /* when set, the next malloc returns NULL */
/* Replace malloc so the ENOMEM path of cs_payload_route can be forced;
 * everything else goes straight to glibc (free stays glibc's). */
void *malloc(size_t n)
{
    if (fail_next_malloc) {
        fail_next_malloc = 0;
        return NULL;
    }
    return __libc_malloc(n);
}
#endif

/* Byte pattern used for long inputs: b[i] = (i*mul + add) mod 256. */
static void pattern(uint8_t *b, size_t n, unsigned mul, unsigned add)
{
    for (size_t i = 0; i < n; i++) b[i] = (uint8_t)(i * mul + add);
}

static void hexparse(const char *hex, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

/* Check the one-shot digest of (data, len) against expected hex. */
static void check_digest(const void *data, size_t len, const char *expect)
{
    uint8_t d[32];
    char hx[65];
    cs_keccak256(data, len, d);
    cs_test_hex(d, 32, hx);
    CS_CHECK_STR(hx, expect);
}

static void test_vectors(void)
{
    /* Published vectors (Keccak-256, 0x01 padding, as used by Ethereum). */
    check_digest("", 0, "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    check_digest(NULL, 0, "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    check_digest("abc", 3, "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45");

    /* Rate-boundary inputs, pattern (i*167+13) mod 256; js-sha3 0.13.0. */
    static const struct {
        size_t n;
        const char *hex;
    } v[] = {
        {135, "3c2a781e76c98a333fb86900d3cc71b3c4944fcdd88b5c65ee43ea9c7a246d8a"}, /* pad 0x81 */
        {136, "abca5e7c163b862d8a6c417445945ffca91700cbd1621a0cd053b616bdefb323"}, /* full block + pad block */
        {137, "d0a678fd68a661a0175b315321624a33c397cce02d47498983f47be4dcff5618"},
        {200, "d54413612ab8e1b490c2a763203a437de4f85e095e0e14034dedd89e51eb0406"},
        {272, "4b3360c886700c08c7a80f40373cbb42a9b3c34aaa68e6e84215a1f4f1d49d3b"}, /* 2 blocks */
        {1000, "4cec503ce34484f58e34dbf33a45467ae218d65fe1fea7a17ebf0e3da7a5aa91"},
    };
    uint8_t buf[1000];
    pattern(buf, sizeof buf, 167, 13);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        check_digest(buf, v[i].n, v[i].hex);

        /* The same through the incremental API in odd-sized pieces. */
        static const size_t piece[] = {1, 3, 7, 13, 135, 2, 137, 29};
        cs_keccak_ctx c;
        uint8_t d[32];
        char hx[65];
        size_t off = 0, k = 0;
        cs_keccak_init(&c);
        while (off < v[i].n) {
            size_t take = CS_MIN(piece[k++ % 8], v[i].n - off);
            cs_keccak_update(&c, buf + off, take);
            off += take;
        }
        cs_keccak_update(&c, NULL, 0);
        cs_keccak_final(&c, d);
        cs_test_hex(d, 32, hx);
        CS_CHECK_STR(hx, v[i].hex);
    }
}

/* Property: for every length 0..700 and several piece sizes, incremental
 * hashing equals one-shot hashing (one-shot is pinned by the vectors). */
static void test_incremental_property(void)
{
    uint8_t buf[700];
    static const size_t step[] = {1, 5, 68, 135, 136, 137, 300};
    long mismatches = 0;
    pattern(buf, sizeof buf, 31, 101);
    for (size_t n = 0; n <= sizeof buf; n++) {
        uint8_t one[32];
        cs_keccak256(buf, n, one);
        for (size_t s = 0; s < sizeof step / sizeof step[0]; s++) {
            cs_keccak_ctx c;
            uint8_t inc[32];
            cs_keccak_init(&c);
            for (size_t off = 0; off < n; off += step[s])
                cs_keccak_update(&c, buf + off, CS_MIN(step[s], n - off));
            cs_keccak_final(&c, inc);
            if (memcmp(one, inc, 32) != 0) mismatches++;
        }
    }
    CS_CHECK_EQ_U64(mismatches, 0);
}

/* CIP-5 §3.3 timer_id vectors; expected hex from js-sha3 0.13.0 over
 * actor || be8(height) || payload || be8(nonce). */
static void test_timer_id(void)
{
    uint8_t p300[300], p40[40];
    pattern(p300, sizeof p300, 31, 7);  /* (i*31+7) mod 256 */
    pattern(p40, sizeof p40, 13, 200);  /* (i*13+200) mod 256 */
    static const char json[] = "{\"_handler\":\"settle\",\"_payload\":\"AQID\"}";
    const struct {
        const char *actor;
        uint64_t height;
        const void *payload;
        size_t len;
        uint64_t nonce;
        const char *hex;
    } v[] = {
        /* empty payload: 36-byte input */
        {"d8da6bf26964af9d7eed9e03e53415d37aa96045", 1234567u, NULL, 0, 0,
         "97bb8aaa0187ba96986f7fca7cb5f4cdb8ab0cba36dd50c711959b4d91aa0cd3"},
        {"ab5801a7d398351b8be11c439e05c5b3259aec9b", 0x0123456789abcdefu, "hello cowboy", 12, 42,
         "d32fff184ca3bddc469ac69a2150615dde44b60e52937d80486f5e0f373bec75"},
        /* 300-byte payload: 336-byte input, three blocks */
        {"ffffffffffffffffffffffffffffffffffffffff", UINT64_MAX, p300, sizeof p300,
         0xfedcba9876543210u, "cb41600d18eccf0de5979c9d898afef107d9234b442cbcd68bc402b89fbc9fce"},
        {"00000000000000000000000000000000000000c0", 19, json, sizeof json - 1, 1,
         "4dcf18db7b9efdcc1164d1c4b7b5fc9aefb109529b696a1d7aa3fefce9906255"},
        /* 40-byte payload: the 76-byte benchmark-sized input */
        {"1f9840a85d5af5bf1d1762f925bdaddc4201f984", 88, p40, sizeof p40, 7,
         "b9d879d021cff12afc5b4307679152da96fe8649903bd6dd7e016cb561193326"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        cs_addr_t a;
        cs_hash_t h;
        char hx[65];
        hexparse(v[i].actor, a.b, CS_ADDR_LEN);
        cs_timer_id(&a, v[i].height, v[i].payload, v[i].len, v[i].nonce, &h);
        cs_test_hex(h.b, 32, hx);
        CS_CHECK_STR(hx, v[i].hex);
    }

    /* Property around the one-block fast path (payload 99 / 100 bytes)
     * and the two-block boundary: timer_id equals keccak256 of the
     * explicit concatenation. */
    {
        uint8_t cat[20 + 8 + 300 + 8];
        cs_addr_t a;
        long mismatches = 0;
        hexparse("ab5801a7d398351b8be11c439e05c5b3259aec9b", a.b, CS_ADDR_LEN);
        for (size_t n = 90; n <= 300; n++) {
            uint8_t ref[32];
            cs_hash_t h;
            uint64_t height = 0x1122334455667788u + n, nonce = 0x99aabbccddeeff00u ^ n;
            memcpy(cat, a.b, 20);
            for (int k = 0; k < 8; k++) cat[20 + k] = (uint8_t)(height >> (56 - 8 * k));
            memcpy(cat + 28, p300, n);
            for (int k = 0; k < 8; k++) cat[28 + n + k] = (uint8_t)(nonce >> (56 - 8 * k));
            cs_keccak256(cat, n + 36, ref);
            cs_timer_id(&a, height, p300, n, nonce, &h);
            if (memcmp(ref, h.b, 32) != 0) mismatches++;
        }
        CS_CHECK_EQ_U64(mismatches, 0);
    }
}

/* Route s (a C string) and return the result; outputs in handler/inner. */
static int route(const char *s, char handler[CS_MAX_HANDLER + 1], uint8_t **inner, size_t *n)
{
    return cs_payload_route((const uint8_t *)s, strlen(s), handler, inner, n);
}

static void test_route_ok(void)
{
    char h[CS_MAX_HANDLER + 1];
    uint8_t *in = NULL;
    size_t n = 0;

    /* Compact form; "AQID" = 000000 010000 001000 000011 -> 01 02 03. */
    CS_CHECK_EQ_U64(route("{\"_handler\":\"settle\",\"_payload\":\"AQID\"}", h, &in, &n), 1);
    CS_CHECK_STR(h, "settle");
    CS_CHECK_EQ_U64(n, 3);
    CS_CHECK(in && in[0] == 1 && in[1] == 2 && in[2] == 3);
    free(in);

    /* Keys reversed, whitespace everywhere JSON allows it. */
    CS_CHECK_EQ_U64(route(" \n{ \"_payload\" : \"aGVsbG8gY293Ym95\" ,\t\"_handler\":\"tick\" }\r\n",
                          h, &in, &n), 1);
    CS_CHECK_STR(h, "tick");
    CS_CHECK_EQ_U64(n, 12);
    CS_CHECK(in && memcmp(in, "hello cowboy", 12) == 0);
    free(in);

    /* Escapes: \u005f is '_' in the key, \u00e9 is e-acute (UTF-8 c3 a9),
     * "\/" is '/'; "+/8=" = 111110 111111 111100 -> fb ff. */
    CS_CHECK_EQ_U64(route("{\"\\u005fhandler\":\"caf\\u00e9\",\"_payload\":\"+\\/8=\"}", h, &in, &n),
                    1);
    CS_CHECK_STR(h, "caf\xc3\xa9");
    CS_CHECK_EQ_U64(n, 2);
    CS_CHECK(in && in[0] == 0xfb && in[1] == 0xff);
    free(in);

    /* Surrogate pair \ud83d\ude00 = U+1F600 -> f0 9f 98 80; "YQ==" = "a". */
    CS_CHECK_EQ_U64(route("{\"_handler\":\"\\ud83d\\ude00\",\"_payload\":\"YQ==\"}", h, &in, &n), 1);
    CS_CHECK_STR(h, "\xf0\x9f\x98\x80");
    CS_CHECK_EQ_U64(n, 1);
    CS_CHECK(in && in[0] == 'a');
    free(in);

    /* One '=' pad: "aGk=" = "hi". */
    CS_CHECK_EQ_U64(route("{\"_handler\":\"h\",\"_payload\":\"aGk=\"}", h, &in, &n), 1);
    CS_CHECK_EQ_U64(n, 2);
    CS_CHECK(in && in[0] == 'h' && in[1] == 'i');
    free(in);

    /* Empty inner payload: routes, *inner is NULL. */
    in = (uint8_t *)h; /* sentinel */
    CS_CHECK_EQ_U64(route("{\"_handler\":\"noop\",\"_payload\":\"\"}", h, &in, &n), 1);
    CS_CHECK_STR(h, "noop");
    CS_CHECK(in == NULL);
    CS_CHECK_EQ_U64(n, 0);
}

static void test_route_not(void)
{
    static const char *const bad[] = {
        "hello",                                           /* plain bytes */
        "",                                                /* empty */
        "{}",                                              /* no keys */
        "{\"foo\":\"bar\",\"baz\":\"qux\"}",               /* JSON without the keys */
        "{\"_handler\":\"a\"}",                            /* missing _payload */
        "{\"_payload\":\"AQID\"}",                         /* missing _handler */
        "{\"_handler\":\"a\",\"_payload\":\"AQID\",\"x\":\"y\"}", /* extra member */
        "{\"_handler\":\"a\",\"_handler\":\"b\"}",         /* duplicate key */
        "{\"_handler\":5,\"_payload\":\"AQID\"}",          /* non-string handler */
        "{\"_handler\":\"a\",\"_payload\":null}",          /* non-string payload */
        "{\"_handler\":\"a\",\"_payload\":\"AQID\"} x",    /* trailing bytes */
        "{\"_handler\":\"a\",\"_payload\":\"AQID\"",       /* truncated */
        "{\"_handler\":\"a\",\"_payload\":\"AQID}",        /* unterminated string */
        "{\"_handler\":\"a\" \"_payload\":\"AQID\"}",      /* missing comma */
        "{\"_handler\"=\"a\",\"_payload\":\"AQID\"}",      /* '=' instead of ':' */
        "[\"_handler\",\"_payload\"]",                     /* not an object */
        "{\"_handler\":\"\",\"_payload\":\"AQID\"}",       /* empty handler name */
        "{\"_handler\":\"a\\u0000b\",\"_payload\":\"AQID\"}", /* NUL in name */
        "{\"_handler\":\"a\tb\",\"_payload\":\"AQID\"}",   /* raw control char */
        "{\"_handler\":\"a\\x\",\"_payload\":\"AQID\"}",   /* bad escape */
        "{\"_handler\":\"a\\ud83d\",\"_payload\":\"AQID\"}", /* lone high surrogate */
        "{\"_handler\":\"a\\ude00\",\"_payload\":\"AQID\"}", /* lone low surrogate */
        "{\"_handler\":\"a\\u12g4\",\"_payload\":\"AQID\"}", /* bad hex */
        "{\"_handler\":\"\xc0\x80\",\"_payload\":\"AQID\"}", /* overlong UTF-8 */
        "{\"_handler\":\"\xed\xa0\x80\",\"_payload\":\"AQID\"}", /* UTF-8 surrogate */
        "{\"_handler\":\"\xe2\x82\",\"_payload\":\"AQID\"}",     /* truncated UTF-8 */
        "{\"_handler\":\"a\",\"_payload\":\"AQI\"}",       /* bad base64: length 3 */
        "{\"_handler\":\"a\",\"_payload\":\"A*ID\"}",      /* bad base64: '*' */
        "{\"_handler\":\"a\",\"_payload\":\"AQ=D\"}",      /* '=' before data */
        "{\"_handler\":\"a\",\"_payload\":\"====\"}",      /* only padding */
        "{\"_handler\":\"a\",\"_payload\":\"A===\"}",      /* three pads */
        "{\"_handler\":\"a\",\"_payload\":\"YR==\"}",      /* R=010001: pad bits 0001 != 0 */
        "{\"_handler\":\"a\",\"_payload\":\"aGl=\"}",      /* l=100101: pad bits 01 != 0 */
        "{\"_handler\":\"a\",\"_payload\":\"AQ ID\"}",     /* space inside base64 */
        "{\"_handler\":\"a\",\"_payload\":\"aGVsbG8gY293Ym95\\n\"}", /* escaped newline */
        "{\"_handler\":\"a\",\"_payload\":\"YQ\"}",        /* unpadded */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char h[CS_MAX_HANDLER + 1] = "untouched";
        uint8_t sentinel = 0, *in = &sentinel;
        size_t n = 12345;
        int rc = route(bad[i], h, &in, &n);
        if (rc != 0) fprintf(stderr, "case %zu routed: %s\n", i, bad[i]);
        CS_CHECK_EQ_U64(rc, 0);
        CS_CHECK(in == &sentinel && n == 12345 && strcmp(h, "untouched") == 0);
    }

    /* Binary payload with an embedded NUL and high bytes. */
    {
        static const uint8_t bin[] = {0x7b, 0x00, 0xff, 0x22, 0x5f, 0x80};
        char h[CS_MAX_HANDLER + 1];
        uint8_t *in = NULL;
        size_t n = 0;
        CS_CHECK_EQ_U64(cs_payload_route(bin, sizeof bin, h, &in, &n), 0);
        CS_CHECK_EQ_U64(cs_payload_route(NULL, 0, h, &in, &n), 0);
    }
}

/* Build {"_handler":"<name>","_payload":"<b64>"} into out. */
static void build(char *out, size_t cap, const char *name, const char *b64)
{
    snprintf(out, cap, "{\"_handler\":\"%s\",\"_payload\":\"%s\"}", name, b64);
}

static void test_route_limits(void)
{
    char name[400], json[600], h[CS_MAX_HANDLER + 1];
    uint8_t *in = NULL;
    size_t n = 0;

    /* Exactly 256 bytes: allowed (CIP-5 §4.2 max 256). */
    memset(name, 'q', 256);
    name[256] = '\0';
    build(json, sizeof json, name, "AQID");
    CS_CHECK_EQ_U64(route(json, h, &in, &n), 1);
    CS_CHECK_EQ_U64(strlen(h), 256);
    CS_CHECK_EQ_U64(n, 3);
    free(in);

    /* 257 bytes: rejected. */
    memset(name, 'q', 257);
    name[257] = '\0';
    build(json, sizeof json, name, "AQID");
    in = NULL;
    CS_CHECK_EQ_U64(route(json, h, &in, &n), (uint64_t)(int64_t)-CS_EHANDLER_TOO_LONG);
    CS_CHECK(in == NULL);

    /* 255 ASCII bytes + "\u00e9" (2 UTF-8 bytes) = 257 bytes: the limit is
     * on decoded bytes, not on JSON text characters. */
    memset(name, 'q', 255);
    strcpy(name + 255, "\\u00e9");
    build(json, sizeof json, name, "AQID");
    CS_CHECK_EQ_U64(route(json, h, &in, &n), (uint64_t)(int64_t)-CS_EHANDLER_TOO_LONG);

    /* 254 + 2 = 256 bytes via escape: allowed. */
    memset(name, 'q', 254);
    strcpy(name + 254, "\\u00e9");
    build(json, sizeof json, name, "aGk=");
    CS_CHECK_EQ_U64(route(json, h, &in, &n), 1);
    CS_CHECK_EQ_U64(strlen(h), 256);
    CS_CHECK(memcmp(h + 254, "\xc3\xa9", 2) == 0);
    free(in);

    /* Oversize name but malformed base64: the payload does not follow the
     * convention at all, so it is not routed (0), not an error. */
    memset(name, 'q', 300);
    name[300] = '\0';
    build(json, sizeof json, name, "AQI");
    CS_CHECK_EQ_U64(route(json, h, &in, &n), 0);

#ifdef CS_TEST_MALLOC_FAIL
    /* Allocation failure of the inner buffer. */
    build(json, sizeof json, "settle", "AQID");
    in = NULL;
    fail_next_malloc = 1;
    CS_CHECK_EQ_U64(route(json, h, &in, &n), (uint64_t)(int64_t)-CS_ENOMEM);
    fail_next_malloc = 0;
    CS_CHECK(in == NULL);
#endif
}

/* Keccak-f[1600] of the all-zero state: the 25 lanes of the first output
 * state in the Keccak team's KeccakF-1600-IntermediateValues.txt. */
static const uint64_t zero_perm[25] = {
    0xF1258F7940E1DDE7ull, 0x84D5CCF933C0478Aull, 0xD598261EA65AA9EEull, 0xBD1547306F80494Dull,
    0x8B284E056253D057ull, 0xFF97A42D7F8E6FD4ull, 0x90FEE5A0A44647C4ull, 0x8C5BDA0CD6192E76ull,
    0xAD30A6F71B19059Cull, 0x30935AB7D08FFC64ull, 0xEB5AA93F2317D635ull, 0xA9A6E6260D712103ull,
    0x81A57C16DBCF555Full, 0x43B831CD0347C826ull, 0x01F22F1A11A5569Full, 0x05E5635A21D9AE61ull,
    0x64BEFEF28CC970F2ull, 0x613670957BC46611ull, 0xB87C5A554FD00ECBull, 0x8C3EE88A1CCF32C8ull,
    0x940C7922AE3A2614ull, 0x1841F924A2C509E4ull, 0x16F53526E70465C2ull, 0x75F644E97F30A13Bull,
    0xEAF1FF7B5CECA249ull,
};

/* n random states into st and the same into ref, from the LCG state *r
 * (advanced), each lane r ^ (r >> shift). */
static void rand_states(uint64_t (*st)[25], uint64_t (*ref)[25], size_t n, uint64_t *r, unsigned shift)
{
    for (size_t k = 0; k < n; k++)
        for (int i = 0; i < 25; i++) {
            *r = *r * 6364136223846793005ull + 1442695040888963407ull;
            st[k][i] = ref[k][i] = *r ^ (*r >> shift);
        }
}

/* Every permutation path this CPU has, forced in turn (seed 1600): the
 * published zero-state vector; 1..37 random states (partial and several
 * batches) permuted three times against nettle's sha3_permute state by
 * state; and Keccak-256 through cs_keccak256_many of a mix of short and
 * long messages against the published and js-sha3 digests, also one-shot
 * (cs_keccak_permute1), which is checked against nettle too.  The scalar
 * path is always there; the test fails if no path was tested. */
static void test_paths_seed_1600(void)
{
    static const int paths[] = {CS_KECCAK_PATH_SCALAR, CS_KECCAK_PATH_AVX2, CS_KECCAK_PATH_AVX512,
                                CS_KECCAK_PATH_AVX2_BMI2};
    static uint64_t st[37][25], ref[37][25];
    uint8_t buf[1000];
    pattern(buf, sizeof buf, 167, 13);
    /* messages: "", "abc", 135, 136 (long), 200 (long), 1000 (long) bytes of the pattern, repeated */
    static const char *hexes[6] = {
        "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
        "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45",
        "3c2a781e76c98a333fb86900d3cc71b3c4944fcdd88b5c65ee43ea9c7a246d8a",
        "abca5e7c163b862d8a6c417445945ffca91700cbd1621a0cd053b616bdefb323",
        "d54413612ab8e1b490c2a763203a437de4f85e095e0e14034dedd89e51eb0406",
        "4cec503ce34484f58e34dbf33a45467ae218d65fe1fea7a17ebf0e3da7a5aa91",
    };
    static const size_t lens[6] = {0, 3, 135, 136, 200, 1000};
    int tested = 0, prev = cs_keccak_path();
    CS_CHECK_EQ_U64(cs_keccak_path_set(99), CS_EINVAL);
    for (size_t pi = 0; pi < sizeof paths / sizeof paths[0]; pi++) {
        if (!cs_keccak_path_available(paths[pi])) {
            printf("keccak path %s: not on this CPU\n", cs_keccak_path_name(paths[pi]));
            continue;
        }
        CS_CHECK_EQ_U64(cs_keccak_path_set(paths[pi]), CS_OK);
        CS_CHECK_EQ_U64(cs_keccak_path(), paths[pi]);
        tested++;
        long bad = 0;
        memset(st, 0, sizeof st);
        cs_keccak_permute_many(st, 3);
        for (int k = 0; k < 3; k++) bad += memcmp(st[k], zero_perm, sizeof zero_perm) != 0;
        uint64_t r = 1600;
        for (size_t n = 1; n <= 37; n++) {
            rand_states(st, ref, n, &r, 29);
            for (int rep = 0; rep < 3; rep++) {
                cs_keccak_permute_many(st, n);
                for (size_t k = 0; k < n; k++) sha3_permute((struct sha3_state *)(void *)ref[k]);
            }
            bad += memcmp(st, ref, n * sizeof st[0]) != 0;
        }
        const void *msg[23];
        size_t len[23];
        uint8_t out[23][32];
        for (int k = 0; k < 23; k++) {
            int v = (k * 5 + 1) % 6; /* 1, 0, 5, 4, 3, 2, ... : long ones between short ones */
            msg[k] = v == 1 ? (const void *)"abc" : buf;
            len[k] = lens[v];
        }
        cs_keccak256_many(msg, len, 23, out);
        for (int k = 0; k < 23; k++) {
            char hx[65];
            cs_test_hex(out[k], 32, hx);
            bad += strcmp(hx, hexes[(k * 5 + 1) % 6]) != 0;
            /* one-shot (cs_keccak_permute1 on this path) */
            cs_keccak256(msg[k], len[k], out[k]);
            cs_test_hex(out[k], 32, hx);
            bad += strcmp(hx, hexes[(k * 5 + 1) % 6]) != 0;
        }
        /* cs_keccak_permute1 against nettle on random states */
        for (int k = 0; k < 50; k++) {
            for (int i = 0; i < 25; i++) {
                r = r * 6364136223846793005ull + 1442695040888963407ull;
                st[0][i] = ref[0][i] = r ^ (r >> 31);
            }
            cs_keccak_permute1(st[0]);
            sha3_permute((struct sha3_state *)(void *)ref[0]);
            bad += memcmp(st[0], ref[0], sizeof st[0]) != 0;
        }
        CS_CHECK_EQ_U64(bad, 0);
        printf("keccak path %s: checked\n", cs_keccak_path_name(paths[pi]));
    }
    CS_CHECK(tested >= 1);
    CS_CHECK_EQ_U64(cs_keccak_path_set(prev), CS_OK);
}

/*
 * The hybrid path (4 states on AVX2 vectors and a fifth on 64-bit words
 * per step, AVX2 + BMI2), forced (seed 1604), against nettle's
 * sha3_permute state by state: random states in batches of every size
 * 1..25 (full steps of five, and every tail: four left take a step with a
 * padded vector, one to three the one-state permutation) and the
 * callers' batch of CS_KECCAK_BATCH, each permuted twice.  The states
 * past the batch hold a marker that must come back untouched, and each
 * state must be its own reference's (no two swapped).  Also: AUTO picks
 * this path exactly on the CPUs it is meant for (GCC's znver1, AMD Zen 1
 * and Zen+, with AVX2 + BMI1 + BMI2 and no AVX-512).
 */
static void test_hybrid_path_seed_1604(void)
{
    enum { NMAX = 25, GUARD = 3, NBUF = (NMAX > CS_KECCAK_BATCH ? NMAX : CS_KECCAK_BATCH) + GUARD };
    static uint64_t st[NBUF][25], ref[NBUF][25];
    int prev = cs_keccak_path();
    if (!cs_keccak_path_available(CS_KECCAK_PATH_AVX2_BMI2)) {
        printf("keccak path %s: not on this CPU\n", cs_keccak_path_name(CS_KECCAK_PATH_AVX2_BMI2));
        CS_CHECK_EQ_U64(cs_keccak_path_set(CS_KECCAK_PATH_AVX2_BMI2), CS_EINVAL);
        return;
    }
    CS_CHECK_STR(cs_keccak_path_name(CS_KECCAK_PATH_AVX2_BMI2), "avx2x4+bmi2x1");
    CS_CHECK_EQ_U64(cs_keccak_path_set(CS_KECCAK_PATH_AVX2_BMI2), CS_OK);
    CS_CHECK_EQ_U64(cs_keccak_path(), CS_KECCAK_PATH_AVX2_BMI2);
    uint64_t r = 1604;
    long bad = 0, checked = 0;
    for (size_t n = 1; n <= NMAX + 1; n++) {
        size_t m = n <= NMAX ? n : CS_KECCAK_BATCH; /* the last round: the callers' batch */
        rand_states(st, ref, m, &r, 23);
        for (size_t k = m; k < m + GUARD; k++)
            for (int i = 0; i < 25; i++) st[k][i] = 0x5eed0000c0ffee00ull + 25 * k + (uint64_t)i;
        for (int rep = 0; rep < 2; rep++) {
            cs_keccak_permute_many(st, m);
            for (size_t k = 0; k < m; k++) sha3_permute((struct sha3_state *)(void *)ref[k]);
        }
        for (size_t k = 0; k < m; k++) {
            bad += memcmp(st[k], ref[k], sizeof st[k]) != 0;
            checked++;
        }
        for (size_t k = m; k < m + GUARD; k++)
            for (int i = 0; i < 25; i++) bad += st[k][i] != 0x5eed0000c0ffee00ull + 25 * k + (uint64_t)i;
    }
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(checked, NMAX * (NMAX + 1) / 2 + CS_KECCAK_BATCH);
#if defined(__GNUC__) && defined(__x86_64__)
    {
        int want = cs_keccak_path_available(CS_KECCAK_PATH_AVX512) ? CS_KECCAK_PATH_AVX512
                   : __builtin_cpu_is("znver1")                    ? CS_KECCAK_PATH_AVX2_BMI2
                                                                   : CS_KECCAK_PATH_AVX2;
        CS_CHECK_EQ_U64(cs_keccak_path_set(CS_KECCAK_PATH_AUTO), CS_OK);
        CS_CHECK_EQ_U64(cs_keccak_path(), want);
        printf("keccak path auto: %s\n", cs_keccak_path_name(cs_keccak_path()));
    }
#endif
    printf("keccak path %s: %ld states checked\n", cs_keccak_path_name(CS_KECCAK_PATH_AVX2_BMI2), checked);
    CS_CHECK_EQ_U64(cs_keccak_path_set(prev), CS_OK);
}

/*
 * cs_timer_id_many against the single derivation, on every permutation
 * path this CPU has, forced in turn (seed 1603): 77 random inputs (random
 * actor, height and nonce; payloads of 0..99 bytes, which fit one block,
 * and 100, 135, 200 and 400 bytes, which do not) in one call, so batches
 * are full, partial and interleaved with long preimages.  The reference is
 * keccak256 of the explicit concatenation actor || height BE || payload ||
 * nonce BE (CIP-5 §3.3), computed on the scalar path (nettle's
 * permutation), and cs_timer_id on the same path.  The published vector of
 * test_timer_id (empty payload) is in the batch too.
 */
static void test_timer_id_many_seed_1603(void)
{
    enum { N = 77 };
    static const int paths[] = {CS_KECCAK_PATH_SCALAR, CS_KECCAK_PATH_AVX2, CS_KECCAK_PATH_AVX512,
                                CS_KECCAK_PATH_AVX2_BMI2};
    static const size_t longs[4] = {100, 135, 200, 400};
    static uint8_t pay[N][400], cat[N][436];
    static cs_addr_t act[N];
    static cs_timer_id_in_t in[N];
    static uint8_t ref[N][32];
    cs_hash_t out[N], one;
    uint64_t r = 1603;
    int prev = cs_keccak_path(), tested = 0;
    for (int k = 0; k < N; k++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        size_t len = (r >> 33) % 5 == 0 ? longs[(r >> 40) % 4] : (size_t)((r >> 45) % 100);
        for (int i = 0; i < CS_ADDR_LEN; i++) act[k].b[i] = (uint8_t)(r >> (i % 8 * 8)) ^ (uint8_t)(k * 37 + i);
        for (size_t i = 0; i < len; i++) pay[k][i] = (uint8_t)((i * 71 + (size_t)k * 5 + (r >> 20)) & 0xff);
        in[k].actor = &act[k];
        in[k].height = r ^ (r << 17);
        in[k].payload = len ? pay[k] : NULL;
        in[k].payload_len = len;
        in[k].nonce = (r >> 7) * 2654435761u;
    }
    /* in[5]: the first published vector of test_timer_id. */
    hexparse("d8da6bf26964af9d7eed9e03e53415d37aa96045", act[5].b, CS_ADDR_LEN);
    in[5].height = 1234567u;
    in[5].payload = NULL;
    in[5].payload_len = 0;
    in[5].nonce = 0;
    CS_CHECK_EQ_U64(cs_keccak_path_set(CS_KECCAK_PATH_SCALAR), CS_OK);
    for (int k = 0; k < N; k++) {
        size_t len = in[k].payload_len;
        memcpy(cat[k], act[k].b, 20);
        for (int b = 0; b < 8; b++) cat[k][20 + b] = (uint8_t)(in[k].height >> (56 - 8 * b));
        if (len) memcpy(cat[k] + 28, pay[k], len);
        for (int b = 0; b < 8; b++) cat[k][28 + len + b] = (uint8_t)(in[k].nonce >> (56 - 8 * b));
        cs_keccak256(cat[k], len + 36, ref[k]);
    }
    {
        char hx[65];
        cs_test_hex(ref[5], 32, hx);
        CS_CHECK_STR(hx, "97bb8aaa0187ba96986f7fca7cb5f4cdb8ab0cba36dd50c711959b4d91aa0cd3");
    }
    for (size_t pi = 0; pi < sizeof paths / sizeof paths[0]; pi++) {
        if (!cs_keccak_path_available(paths[pi])) continue;
        CS_CHECK_EQ_U64(cs_keccak_path_set(paths[pi]), CS_OK);
        tested++;
        long bad = 0;
        memset(out, 0, sizeof out);
        cs_timer_id_many(in, N, out);
        for (int k = 0; k < N; k++) {
            bad += memcmp(out[k].b, ref[k], 32) != 0;
            cs_timer_id(in[k].actor, in[k].height, in[k].payload, in[k].payload_len, in[k].nonce, &one);
            bad += memcmp(one.b, ref[k], 32) != 0;
        }
        /* n = 1 and n = 0 (nothing written) */
        memset(out, 0xee, sizeof out);
        cs_timer_id_many(in + 3, 1, out);
        cs_timer_id_many(in, 0, out + 1);
        bad += memcmp(out[0].b, ref[3], 32) != 0;
        bad += out[1].b[0] != 0xee || out[1].b[31] != 0xee;
        CS_CHECK_EQ_U64(bad, 0);
        printf("timer ids batched on path %s: %d checked\n", cs_keccak_path_name(paths[pi]), N);
    }
    CS_CHECK(tested >= 1);
    CS_CHECK_EQ_U64(cs_keccak_path_set(prev), CS_OK);
}

/* A sponge of rate 136 bytes (Keccak-256's and SHA3-256's) over k
 * messages at once, written here from FIPS 202 §4-5 as an independent
 * reference for the library's: domain 0x01 (Keccak-256) or 0x06
 * (SHA3-256) after the message, 0x80 in the last byte of the rate.  Each
 * block step gathers the states that still absorb into a batch of
 * consecutive states and permutes them with cs_keccak_permute_many
 * (perm_many set) or nettle's sha3_permute one by one, so the batches
 * shrink as short messages finish. */
enum { SP_MAX = 9 };
static void sponge_many(int perm_many, uint8_t domain, const uint8_t *const *msg, const size_t *len, size_t k,
                        uint8_t (*out)[32])
{
    uint64_t a[SP_MAX][25], b[SP_MAX][25];
    size_t who[SP_MAX];
    memset(a, 0, sizeof a);
    for (size_t blk = 0;; blk++) {
        size_t m = 0;
        for (size_t i = 0; i < k; i++) {
            if (blk > len[i] / 136) continue; /* absorbed its padded last block already */
            uint8_t block[136] = {0};
            size_t off = blk * 136, take = len[i] - off < 136 ? len[i] - off : 136;
            memcpy(block, msg[i] + off, take);
            if (take < 136) { /* the last block: padding */
                block[take] ^= domain;
                block[135] ^= 0x80;
            }
            for (int l = 0; l < 17; l++)
                for (int j = 0; j < 8; j++) a[i][l] ^= (uint64_t)block[8 * l + j] << (8 * j);
            memcpy(b[m], a[i], sizeof a[i]);
            who[m++] = i;
        }
        if (m == 0) break;
        if (perm_many) cs_keccak_permute_many(b, m);
        else
            for (size_t j = 0; j < m; j++) sha3_permute((struct sha3_state *)(void *)b[j]);
        for (size_t j = 0; j < m; j++) memcpy(a[who[j]], b[j], sizeof b[j]);
    }
    for (size_t i = 0; i < k; i++)
        for (int j = 0; j < 32; j++) out[i][j] = (uint8_t)(a[i][j / 8] >> (8 * (j % 8)));
}

/*
 * Every permutation path x every one-state permutation this CPU has,
 * forced in turn (seed 1601; the one-state permutation only matters off
 * the scalar path):
 *  - published vectors through the test's sponge on cs_keccak_permute_many
 *    and through cs_keccak256 (cs_keccak_permute1): SHA3-256 of "", "abc"
 *    and 200 bytes 0xA3 (FIPS 202 examples, NIST CSRC), Keccak-256 of ""
 *    and "abc";
 *  - random states in batches of 1..9 (partial vectors and a lone state
 *    after a full one) against nettle's sha3_permute state by state;
 *  - random messages of 0..300 bytes in batches of 1..9: SHA3-256 through
 *    the sponge on cs_keccak_permute_many against nettle's sha3_256, and
 *    Keccak-256 through cs_keccak256_many and cs_keccak256 against the
 *    sponge on nettle's permutation.
 */
static void test_paths_random_seed_1601(void)
{
    static const int paths[] = {CS_KECCAK_PATH_SCALAR, CS_KECCAK_PATH_AVX2, CS_KECCAK_PATH_AVX512,
                                CS_KECCAK_PATH_AVX2_BMI2};
    static const int ones[] = {CS_KECCAK_ONE_NETTLE, CS_KECCAK_ONE_C, CS_KECCAK_ONE_BMI2};
    static const char *sha3_hex[3] = {
        "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a",
        "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532",
        "79f38adec5c20307a98ef76e8324afbfd46cfd81b22e3973c65fa1bd9de31787",
    };
    static uint8_t a3[200], msgs[SP_MAX][300];
    memset(a3, 0xa3, sizeof a3);
    const uint8_t *pub[3] = {(const uint8_t *)"", (const uint8_t *)"abc", a3};
    const size_t pub_len[3] = {0, 3, 200};
    int prev = cs_keccak_path(), prev_one = cs_keccak_one(), combos = 0;
    CS_CHECK_EQ_U64(cs_keccak_one_set(99), CS_EINVAL);
    uint64_t r = 1601;
    for (size_t pi = 0; pi < sizeof paths / sizeof paths[0]; pi++) {
        if (!cs_keccak_path_available(paths[pi])) continue;
        for (size_t oi = 0; oi < sizeof ones / sizeof ones[0]; oi++) {
            if (!cs_keccak_one_available(ones[oi])) {
                printf("one-state keccak %s: not on this CPU\n", cs_keccak_one_name(ones[oi]));
                continue;
            }
            if (paths[pi] == CS_KECCAK_PATH_SCALAR && oi > 0) continue; /* nettle throughout */
            CS_CHECK_EQ_U64(cs_keccak_path_set(paths[pi]), CS_OK);
            CS_CHECK_EQ_U64(cs_keccak_one_set(ones[oi]), CS_OK);
            CS_CHECK_EQ_U64(cs_keccak_one(), ones[oi]);
            combos++;
            long bad = 0;
            uint8_t out[SP_MAX][32], ref[SP_MAX][32];
            char hx[65];
            /* published vectors */
            sponge_many(1, 0x06, pub, pub_len, 3, out);
            for (int i = 0; i < 3; i++) {
                cs_test_hex(out[i], 32, hx);
                bad += strcmp(hx, sha3_hex[i]) != 0;
            }
            cs_keccak256("", 0, out[0]);
            cs_test_hex(out[0], 32, hx);
            bad += strcmp(hx, "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470") != 0;
            cs_keccak256("abc", 3, out[0]);
            cs_test_hex(out[0], 32, hx);
            bad += strcmp(hx, "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45") != 0;
            /* random states, batches of 1..9 */
            for (size_t n = 1; n <= SP_MAX; n++) {
                uint64_t st[SP_MAX][25], rs[SP_MAX][25];
                rand_states(st, rs, n, &r, 27);
                for (int rep = 0; rep < 2; rep++) {
                    cs_keccak_permute_many(st, n);
                    for (size_t k = 0; k < n; k++) sha3_permute((struct sha3_state *)(void *)rs[k]);
                }
                bad += memcmp(st, rs, n * sizeof st[0]) != 0;
                cs_keccak_permute1(st[0]);
                sha3_permute((struct sha3_state *)(void *)rs[0]);
                bad += memcmp(st[0], rs[0], sizeof st[0]) != 0;
            }
            /* random messages, batches of 1..9 */
            for (int round = 0; round < 4; round++)
                for (size_t n = 1; n <= SP_MAX; n++) {
                    const uint8_t *mp[SP_MAX];
                    const void *vp[SP_MAX];
                    size_t ml[SP_MAX];
                    uint8_t many[SP_MAX][32];
                    for (size_t k = 0; k < n; k++) {
                        r = r * 6364136223846793005ull + 1442695040888963407ull;
                        ml[k] = (size_t)(r >> 33) % 301;
                        for (size_t i = 0; i < ml[k]; i++) msgs[k][i] = (uint8_t)(r >> (i % 7 * 8)) ^ (uint8_t)i;
                        mp[k] = vp[k] = msgs[k];
                    }
                    sponge_many(1, 0x06, mp, ml, n, out);
                    for (size_t k = 0; k < n; k++) {
                        struct sha3_256_ctx c;
                        sha3_256_init(&c);
                        sha3_256_update(&c, ml[k], mp[k]);
                        sha3_256_digest(&c, SHA3_256_DIGEST_SIZE, ref[k]);
                        bad += memcmp(out[k], ref[k], 32) != 0;
                    }
                    sponge_many(0, 0x01, mp, ml, n, ref);
                    cs_keccak256_many(vp, ml, n, many);
                    for (size_t k = 0; k < n; k++) {
                        bad += memcmp(many[k], ref[k], 32) != 0;
                        cs_keccak256(mp[k], ml[k], out[k]);
                        bad += memcmp(out[k], ref[k], 32) != 0;
                    }
                }
            CS_CHECK_EQ_U64(bad, 0);
            printf("keccak path %s, one-state %s: checked\n", cs_keccak_path_name(paths[pi]),
                   cs_keccak_one_name(ones[oi]));
        }
    }
    CS_CHECK(combos >= 1);
    CS_CHECK_EQ_U64(cs_keccak_path_set(prev), CS_OK);
    CS_CHECK_EQ_U64(cs_keccak_one_set(prev_one), CS_OK);
}

/* Every RFC 8259 §7 escape in a handler name, and raw UTF-8 of two and
 * three bytes, decode to the UTF-8 bytes written out by hand: \" \\ \/
 * \b \f \n \r \t, \u00e9 (C3 A9), \u20ac (E2 82 AC), the pair
 * \ud83d\ude00 (U+1F600: F0 9F 98 80), raw C3 A9 and E2 82 AC; "QUJD" is
 * "ABC". */
static void test_route_escapes(void)
{
    char h[CS_MAX_HANDLER + 1];
    uint8_t *in = NULL;
    size_t n = 0;
    CS_CHECK_EQ_U64(route("{\"_handler\": \"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti"
                          "\\u00e9\\u20ac\\ud83d\\ude00\xc3\xa9\xe2\x82\xac\", \"_payload\": \"QUJD\"}",
                          h, &in, &n),
                    1);
    static const char want[] = "a\"b\\c/d\be\ff\ng\rh\ti\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xc3\xa9\xe2\x82\xac";
    CS_CHECK(strcmp(h, want) == 0);
    CS_CHECK(n == 3 && in && memcmp(in, "ABC", 3) == 0);
    free(in);
    /* an overlong raw sequence (E0 80 80) and a raw control byte: no route */
    CS_CHECK_EQ_U64(route("{\"_handler\": \"x\xe0\x80\x80\", \"_payload\": \"QUJD\"}", h, &in, &n), 0);
    CS_CHECK_EQ_U64(route("{\"_handler\": \"x\x01\", \"_payload\": \"QUJD\"}", h, &in, &n), 0);
}

int main(void)
{
    test_vectors();
    test_incremental_property();
    test_paths_seed_1600();
    test_paths_random_seed_1601();
    test_hybrid_path_seed_1604();
    test_timer_id();
    test_timer_id_many_seed_1603();
    test_route_ok();
    test_route_not();
    test_route_limits();
    test_route_escapes();
    return cs_test_done("keccak");
}
