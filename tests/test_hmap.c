/*
 * test_hmap.c -- the internal multimap (core/cs_hmap.c): exact table sizes
 * at both maximum loads, and a property test against a trivial reference
 * model (an unordered array of (key, value) pairs) over random puts and
 * deletes with keys crowded onto a few home cells, so probe chains wrap
 * around the table end and backward-shift deletion moves entries across it.
 */
#include <stdlib.h>

#include "cs_hmap.h"
#include "cs_test.h"

/* splitmix64 draws (seed 0x7e57_4a5b). */
static uint64_t draw(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct pair {
    uint64_t key;
    uint32_t val;
} pair_t;

/* Values stored under key in the map, as a sorted multiset compared with
 * the reference's; returns 1 when they match. */
static int same_values(const cs__hmap_t *m, const pair_t *ref, size_t n, uint64_t key)
{
    uint32_t got[512], want[512];
    size_t ng = 0, nw = 0, it = SIZE_MAX;
    for (uint32_t v; (v = cs__hmap_next(m, key, &it)) != CS__HEMPTY;) {
        if (ng == 512) return 0;
        got[ng++] = v;
    }
    /* The map tells keys apart by their low 32 bits only (cs_hmap.h). */
    for (size_t i = 0; i < n; i++)
        if ((uint32_t)ref[i].key == (uint32_t)key && nw < 512) want[nw++] = ref[i].val;
    if (ng != nw) return 0;
    for (size_t i = 0; i < nw; i++) {
        size_t j = 0;
        while (j < ng && got[j] != want[i]) j++;
        if (j == ng) return 0;
        got[j] = CS__HEMPTY; /* values are unique, but count each once */
    }
    return 1;
}

/* A map created for one entry has 16 cells, still 16 after `full`
 * inserts and 32 after one more. */
static void check_growth(unsigned load, uint32_t full)
{
    cs__hmap_t m;
    CS_CHECK(cs__hmap_init(&m, 1, load) == 0);
    for (uint32_t i = 0; i < full; i++) CS_CHECK(cs__hmap_put(&m, cs__mix64(i), i) == 0);
    CS_CHECK_EQ_U64(cs__hmap_bytes(&m), 16u * 8u);
    CS_CHECK(cs__hmap_put(&m, cs__mix64(full), full) == 0);
    CS_CHECK_EQ_U64(cs__hmap_bytes(&m), 32u * 8u);
    cs__hmap_free(&m);
}

/* Whether val is stored under key. */
static int has(const cs__hmap_t *m, uint64_t key, uint32_t val)
{
    size_t it = SIZE_MAX;
    for (uint32_t v; (v = cs__hmap_next(m, key, &it)) != CS__HEMPTY;)
        if (v == val) return 1;
    return 0;
}

/* cs__hmap_fit: 100,000 entries in a dense map take 2^18 cells (2^17 x 3/4
 * = 98,304 is too few).  Deleted down to 24,576 = 2^18 x 3 / 32 entries it
 * is left as it is; at 24,575 it is rebuilt at the size 2 x 24,575 + 1 =
 * 49,151 entries need: 2^16 cells (x 3/4 = 49,152; 2^15 would hold 24,576).
 * Every entry left is still found.  A table of CS__HMAP_FIT_MIN = 4,096
 * cells (a half-load map that took 1,025 entries) is never rebuilt. */
static void check_fit(void)
{
    cs__hmap_t m;
    CS_CHECK(cs__hmap_init(&m, 1, CS__HMAP_DENSE) == 0);
    for (uint32_t i = 0; i < 100000; i++) CS_CHECK(cs__hmap_put(&m, cs__mix64(i), i) == 0);
    CS_CHECK_EQ_U64(cs__hmap_bytes(&m), 262144u * 8u);
    uint32_t n = 100000;
    while (n > 24576) {
        n--;
        CS_CHECK(cs__hmap_del(&m, cs__mix64(n), n) == 1);
    }
    CS_CHECK(cs__hmap_fit(&m) == 0);
    CS_CHECK_EQ_U64(cs__hmap_bytes(&m), 262144u * 8u);
    n--;
    CS_CHECK(cs__hmap_del(&m, cs__mix64(n), n) == 1);
    CS_CHECK(cs__hmap_fit(&m) == 0);
    CS_CHECK_EQ_U64(cs__hmap_bytes(&m), 65536u * 8u);
    CS_CHECK_EQ_U64(m.n, 24575);
    uint32_t missing = 0;
    for (uint32_t i = 0; i < n; i++) missing += !has(&m, cs__mix64(i), i);
    CS_CHECK_EQ_U64(missing, 0);
    CS_CHECK(!has(&m, cs__mix64(n), n));
    cs__hmap_free(&m);

    CS_CHECK(cs__hmap_init(&m, 1, CS__HMAP_HALF) == 0);
    for (uint32_t i = 0; i < 1025; i++) CS_CHECK(cs__hmap_put(&m, cs__mix64(i), i) == 0);
    CS_CHECK_EQ_U64(cs__hmap_bytes(&m), 4096u * 8u);
    for (uint32_t i = 1; i < 1025; i++) CS_CHECK(cs__hmap_del(&m, cs__mix64(i), i) == 1);
    CS_CHECK(cs__hmap_fit(&m) == 0);
    CS_CHECK_EQ_U64(cs__hmap_bytes(&m), 4096u * 8u);
    CS_CHECK(has(&m, cs__mix64(0), 0));
    cs__hmap_free(&m);
}

int main(void)
{
    cs__hmap_t m;

    /* Sizes.  Room for 700: dense needs 1,024 cells (3/4 x 1,024 = 768 >=
     * 700; 3/4 x 512 = 384 < 700), half load 2,048 (1,024 / 2 = 512 < 700).
     * A cell is 8 bytes. */
    CS_CHECK(cs__hmap_init(&m, 700, CS__HMAP_DENSE) == 0);
    CS_CHECK_EQ_U64(cs__hmap_bytes(&m), 1024u * 8u);
    cs__hmap_free(&m);
    CS_CHECK(cs__hmap_init(&m, 700, CS__HMAP_HALF) == 0);
    CS_CHECK_EQ_U64(cs__hmap_bytes(&m), 2048u * 8u);
    cs__hmap_free(&m);

    /* Growth points from 16 cells: dense grows on the insert that would
     * pass 3/4 x 16 = 12 entries, half on the one past 16 / 2 = 8. */
    check_growth(CS__HMAP_DENSE, 12);
    check_growth(CS__HMAP_HALF, 8);

    /* Keys equal in their low 32 bits are one key: 0x5a5a00000000c3d1 and
     * 0x00000001_0000c3d1 walk both values (9, then 4: the second sits in
     * the cell after the first's home); 0x...c3d2 walks none. */
    {
        CS_CHECK(cs__hmap_init(&m, 4, CS__HMAP_HALF) == 0);
        CS_CHECK(cs__hmap_put(&m, 0x5a5a00000000c3d1ull, 9) == 0);
        CS_CHECK(cs__hmap_put(&m, 0x000000010000c3d1ull, 4) == 0);
        size_t it = SIZE_MAX;
        CS_CHECK_EQ_U64(cs__hmap_next(&m, 0x000000010000c3d1ull, &it), 9);
        CS_CHECK_EQ_U64(cs__hmap_next(&m, 0x000000010000c3d1ull, &it), 4);
        CS_CHECK_EQ_U64(cs__hmap_next(&m, 0x000000010000c3d1ull, &it), CS__HEMPTY);
        it = SIZE_MAX;
        CS_CHECK_EQ_U64(cs__hmap_next(&m, 0x5a5a00000000c3d2ull, &it), CS__HEMPTY);
        CS_CHECK_EQ_U64(cs__hmap_del(&m, 0xffff00000000c3d1ull, 4), 1);
        CS_CHECK_EQ_U64(m.n, 1);
        cs__hmap_free(&m);
    }

    /* Property test, both loads: 20,000 operations, keys from a pool of 40
     * whose low 8 bits are all 0xfc..0xff (four home cells at the end of
     * any table of 256 cells or fewer, so chains wrap) and whose high bits
     * differ only in bit 40 for pairs: equal-low-half keys are one key to
     * the map, so either of a pair walks the values stored under both. */
    for (unsigned load = CS__HMAP_HALF; load <= CS__HMAP_DENSE; load++) {
        uint64_t rng = 0x7e574a5bull + load;
        uint64_t keys[40];
        for (unsigned i = 0; i < 40; i++)
            keys[i] = (cs__mix64(i / 2u) & ~0xffull & ~(1ull << 40)) | (0xfcull + i % 4u) |
                      ((uint64_t)(i & 1u) << 40);
        pair_t *ref = malloc(2000 * sizeof *ref);
        size_t n = 0;
        uint32_t next_val = 0;
        int bad = 0;
        CS_CHECK(ref != NULL && cs__hmap_init(&m, 1, load) == 0);
        for (int op = 0; op < 20000 && ref; op++) {
            uint64_t r = draw(&rng);
            uint64_t key = keys[r % 40u];
            if ((r >> 8) % 3u != 0 && n < 2000) {
                if (cs__hmap_put(&m, key, next_val) != 0) bad++;
                ref[n].key = key;
                ref[n].val = next_val++;
                n++;
            } else if (n > 0) {
                size_t k = (size_t)((r >> 16) % n);
                if (cs__hmap_del(&m, ref[k].key, ref[k].val) != 1) bad++;
                ref[k] = ref[--n];
                /* Deleting it again finds nothing. */
                if (cs__hmap_del(&m, key, next_val + 1u) != 0) bad++;
            }
            if (m.n != n) bad++;
            if (op % 97 == 0)
                for (unsigned i = 0; i < 40; i++) bad += !same_values(&m, ref, n, keys[i]);
        }
        for (unsigned i = 0; i < 40; i++) bad += !same_values(&m, ref, n, keys[i]);
        CS_CHECK_EQ_U64(bad, 0);
        /* Load bound: entries <= load/4 of the cells. */
        CS_CHECK(m.n * 4 <= (m.mask + 1) * load);
        cs__hmap_clear(&m);
        CS_CHECK_EQ_U64(m.n, 0);
        size_t it = SIZE_MAX;
        CS_CHECK(cs__hmap_next(&m, keys[0], &it) == CS__HEMPTY);
        cs__hmap_free(&m);
        free(ref);
    }
    check_fit();
    return cs_test_done("hmap");
}
