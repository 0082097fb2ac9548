/*
 * test_mech_sort.c -- the mechanisms' shared orders (core/cs_mech_int.c)
 * against independent references: the keyed radix sorts against qsort by
 * the same comparator, on keys that span all 64 bits (keys and indices in
 * separate arrays), narrow keys with long runs of equal keys and tie
 * values (the tie-run buckets and their merge sort), with and without
 * tie values, by position and by index; and the sort keys of a ratio v / c
 * and of a u128 against hand values, scale invariance (the key depends on
 * v / c only, so the one-division fast path must agree with the wide
 * paths) and monotonicity checked by exact 192-bit cross products written
 * here; and eip1559's clearing with priorities above 2^64 (rounded keys,
 * exact ties) against the same qsort reference.
 */
#include "cs_test.h"

#include "cs_mech_int.h"

#include <stdlib.h>

#define N 300

/* The test order: bid (its low 64 bits) descending, then fifo_rank
 * ascending, then the id. */
static int test_cmp(const cs_cand_t *a, const cs_cand_t *b, const void *ctx)
{
    (void)ctx;
    uint64_t x = (uint64_t)a->bid, y = (uint64_t)b->bid;
    if (x != y) return x > y ? -1 : 1;
    if (a->fifo_rank != b->fifo_rank) return a->fifo_rank < b->fifo_rank ? -1 : 1;
    return memcmp(a->id.b, b->id.b, CS_ID_LEN);
}

static const cs_cand_t *g_c; /* qsort's view of the candidates */
static int ref_cmp(const void *a, const void *b)
{
    return test_cmp(&g_c[*(const uint32_t *)a], &g_c[*(const uint32_t *)b], NULL);
}

/* Fill c[0..n): mode 0 keys over all 64 bits (a few repeated), mode 1 keys
 * 0..3 (runs of ~75) with tie values mostly below 8 and a few large (so
 * one tie bucket holds more than 16), mode 2 keys 0..1 with one tie value
 * (the comparator decides whole runs). */
static void fill(cs_cand_t *c, size_t n, int mode, uint64_t seed)
{
    uint64_t st = seed;
    memset(c, 0, n * sizeof *c);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = cs_test_rand64(&st);
        c[i].id.b[0] = (uint8_t)(r >> 56);
        c[i].id.b[1] = (uint8_t)(i >> 8);
        c[i].id.b[2] = (uint8_t)i;
        if (mode == 0) {
            c[i].bid = i % 10 == 0 ? 0xfedcba9876543210ull : cs_test_rand64(&st);
            c[i].fifo_rank = r & 3;
        } else if (mode == 1) {
            c[i].bid = r % 4;
            c[i].fifo_rank = i % 9 == 0 ? (r >> 8) % 100000 : (r >> 8) % 8;
        } else {
            c[i].bid = r % 2;
            c[i].fifo_rank = 5;
        }
    }
}

/* Sort c by cs__sort_keyed_desc(_id), with and without tie values; check
 * the order and n_eq against qsort. */
static void check_sorts(const cs_cand_t *c, size_t n, const char *what)
{
    cs__ws_t w;
    memset(&w, 0, sizeof w);
    CS_CHECK_EQ_U64(cs__ws_reserve(&w, n), CS_OK);
    uint32_t ref[N];
    for (uint32_t i = 0; i < n; i++) ref[i] = i;
    g_c = c;
    qsort(ref, n, sizeof *ref, ref_cmp);
    size_t want_eq = 0; /* positions whose key equals the previous one's */
    for (size_t j = 1; j < n; j++) want_eq += (uint64_t)c[ref[j]].bid == (uint64_t)c[ref[j - 1]].bid;
    uint64_t kor = 0, kand = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        w.key[i] = (uint64_t)c[i].bid;
        w.tie[i] = c[i].fifo_rank;
        kor |= w.key[i];
        kand &= w.key[i];
    }
    for (int variant = 0; variant < 4; variant++) {
        int use_tie = variant & 1, by_id = variant >> 1;
        if (by_id) {
            memset(w.ord, 0xff, n * sizeof *w.ord); /* output only */
            cs__sort_keyed_desc_id(&w, c, n, test_cmp, NULL, use_tie, kor ^ kand);
        } else {
            for (uint32_t i = 0; i < n; i++) w.ord[i] = (uint32_t)(n - 1 - i); /* reversed input */
            cs__sort_keyed_desc(&w, c, n, test_cmp, NULL, use_tie);
        }
        int same = memcmp(w.ord, ref, n * sizeof *ref) == 0;
        if (!same) fprintf(stderr, "mech_sort: %s, tie %d, by id %d: order differs\n", what, use_tie, by_id);
        CS_CHECK(same);
        CS_CHECK_EQ_U64(w.n_eq, n <= 64 ? SIZE_MAX : want_eq); /* runs unknown without radix passes */
    }
    cs__ws_free(&w);
}

static void test_keyed_sorts(void)
{
    static cs_cand_t c[N];
    fill(c, N, 0, 20261127);
    check_sorts(c, N, "64-bit keys");
    fill(c, N, 1, 7);
    check_sorts(c, N, "runs with tie values");
    fill(c, N, 2, 11);
    check_sorts(c, N, "runs of one tie value");
    fill(c, 100, 0, 3);
    check_sorts(c, 100, "64-bit keys, 100");
}

/* The short sorts (n <= 64: insertion runs of 8 and merges on (key, tie)
 * pairs, the comparator for equal pairs) against the same qsort
 * reference, at sizes around the run and merge widths, in every mode:
 * distinct keys, runs with tie values, runs the comparator alone orders. */
static void test_small_sorts(void)
{
    static cs_cand_t c[N];
    static const size_t sizes[] = {2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 57, 63, 64};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (int mode = 0; mode < 3; mode++) {
            char what[64];
            snprintf(what, sizeof what, "short, n %zu, mode %d", sizes[k], mode);
            fill(c, sizes[k], mode, 20261128u + 97u * k + (uint64_t)mode);
            check_sorts(c, sizes[k], what);
        }
    }
}

/* x = a * b as 192 bits, little-endian words (the reference product). */
static void mul192(cs_u128 a, uint64_t b, uint64_t x[3])
{
    cs_u128 lo = (cs_u128)(uint64_t)a * b, hi = (cs_u128)(uint64_t)(a >> 64) * b;
    x[0] = (uint64_t)lo;
    cs_u128 mid = (lo >> 64) + (uint64_t)hi;
    x[1] = (uint64_t)mid;
    x[2] = (uint64_t)(hi >> 64) + (uint64_t)(mid >> 64);
}

/* Sign of a/ca - b/cb. */
static int ref_ratio_cmp(cs_u128 a, uint64_t ca, cs_u128 b, uint64_t cb)
{
    uint64_t x[3], y[3];
    mul192(a, cb, x);
    mul192(b, ca, y);
    for (int k = 2; k >= 0; k--)
        if (x[k] != y[k]) return x[k] > y[k] ? 1 : -1;
    return 0;
}

static void test_keys(void)
{
    /* Hand values: a key is (bit length of X << 25) | the 25 bits after
     * X's leading one, X = floor(v 2^64 / c) (cs_mech_int.h, drop 31). */
    CS_CHECK_EQ_U64(cs__ratio_key((cs_u128)1 << 100, 1), (uint64_t)165 << 25);       /* X = 2^164 */
    CS_CHECK_EQ_U64(cs__ratio_key((cs_u128)3 << 99, 1), ((uint64_t)165 << 25) | (1u << 24));
    CS_CHECK_EQ_U64(cs__ratio_key(3, (uint64_t)1 << 40), ((uint64_t)26 << 25) | (1u << 24)); /* 3 * 2^24 */
    CS_CHECK_EQ_U64(cs__ratio_key(5, (uint64_t)1 << 38), ((uint64_t)29 << 25) | (1u << 23)); /* 5 * 2^26 */
    CS_CHECK_EQ_U64(cs__ratio_key(0, 7), 0);
    CS_CHECK_EQ_U64(cs__ratio_key(1, 1), (uint64_t)65 << 25);                         /* X = 2^64 */
    CS_CHECK_EQ_U64(cs__ratio_key((cs_u128)1 << 70, (uint64_t)1 << 40), (uint64_t)95 << 25);
    CS_CHECK_EQ_U64(cs__u128_key((cs_u128)1 << 100), (uint64_t)101 << 25);
    CS_CHECK_EQ_U64(cs__u128_key((cs_u128)3 << 70), ((uint64_t)72 << 25) | (1u << 24));
    CS_CHECK_EQ_U64(cs__u128_key(6), ((uint64_t)3 << 25) | (1u << 24));
    CS_CHECK_EQ_U64(cs__u128_key(0), 0);

    /* Scale invariance and monotonicity over random ratios of every width. */
    uint64_t st = 99, bad_scale = 0, bad_mono = 0, bad_cmp = 0;
    for (int i = 0; i < 4000; i++) {
        unsigned vb = (unsigned)(cs_test_rand64(&st) % 127) + 1, cb = (unsigned)(cs_test_rand64(&st) % 63) + 1;
        cs_u128 v = (((cs_u128)cs_test_rand64(&st) << 64) | cs_test_rand64(&st)) >> (128 - vb);
        uint64_t c = (cs_test_rand64(&st) >> (64 - cb)) | 1;
        if (v == 0) v = 1;
        /* v / c = (v << s) / (c << s) whenever both fit */
        unsigned s = (unsigned)(cs_test_rand64(&st) % 30) + 1;
        if (vb + s <= 128 && cb + s <= 64 &&
            cs__ratio_key(v, c) != cs__ratio_key(v << s, c << s)) bad_scale++;
        cs_u128 v2 = (((cs_u128)cs_test_rand64(&st) << 64) | cs_test_rand64(&st)) >> (128 - vb);
        uint64_t c2 = (cs_test_rand64(&st) >> (64 - cb)) | 1;
        int r = ref_ratio_cmp(v, c, v2, c2);
        uint64_t k1 = cs__ratio_key(v, c), k2 = cs__ratio_key(v2, c2);
        if ((r > 0 && k1 < k2) || (r < 0 && k1 > k2) || (r == 0 && k1 != k2)) bad_mono++;
        if (cs__ratio_cmp(v, c, v2, c2) != r) bad_cmp++;
        if ((v > v2 && cs__u128_key(v) < cs__u128_key(v2)) || (v < v2 && cs__u128_key(v) > cs__u128_key(v2)))
            bad_mono++;
    }
    CS_CHECK_EQ_U64(bad_scale, 0);
    CS_CHECK_EQ_U64(bad_mono, 0);
    CS_CHECK_EQ_U64(bad_cmp, 0);
}

/* eip1559 order: priority = W x rate descending, then timer_id ascending
 * (CIP-1 rev §3 steps 6-7). */
static int eip_ref_cmp(const void *a, const void *b)
{
    const cs_cand_t *x = &g_c[*(const uint32_t *)a], *y = &g_c[*(const uint32_t *)b];
    if (x->priority != y->priority) return x->priority > y->priority ? -1 : 1;
    return memcmp(x->id.b, y->id.b, CS_ID_LEN);
}

/* eip1559 with priorities above 2^64 (tips near 2^60 per cycle, W = 1.0
 * in ppm): the clearing falls back to the rounded u128 keys, so equal
 * keys must be ordered by the exact comparison.  200 candidates of 1,000
 * cycles, lane basefee 100, every tip rate = max_priority (max_fee leaves
 * 5 more of room); one in ten shares a priority with another (the id
 * decides).  The 50 first in the reference order fire (budget 50,000),
 * the rest lose on the budget; each priority is 10^6 x max_priority. */
static void test_eip1559_wide(void)
{
    enum { NE = 200 };
    static cs_cand_t c[NE];
    cs_params_t p;
    cs_params_default(&p);
    memset(c, 0, sizeof c);
    uint64_t st = 1559;
    for (size_t i = 0; i < NE; i++) {
        uint64_t r = cs_test_rand64(&st);
        c[i].slot = (uint32_t)i;
        c[i].target = (uint32_t)i;
        c[i].ident = (uint32_t)i;
        c[i].due_height = 9;
        c[i].sched_height = 1;
        c[i].id.b[0] = (uint8_t)(r >> 56);
        c[i].id.b[1] = (uint8_t)i;
        c[i].cycles = 1000;
        uint64_t step = i % 10 == 0 ? 7 : (r >> 20) % 100000; /* 20 share step 7 */
        c[i].max_prio = ((cs_u128)1 << 60) + (cs_u128)step * ((cs_u128)1 << 36);
        c[i].max_fee = c[i].max_prio + 105;
        c[i].balance = (cs_u128)1 << 120;
        c[i].weight = 1000000;
    }
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("eip1559"), &p), CS_OK);
    cs_clear_ctx_t ctx = {&p, 10, 100, 0, 0, 50000};
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, NE, &out), CS_OK);
    cs_mech_close(&m);
    int prio_ok = 1;
    for (size_t i = 0; i < NE; i++) prio_ok &= c[i].priority == c[i].max_prio * 1000000 && c[i].prio_rate == c[i].max_prio;
    CS_CHECK(prio_ok);
    uint32_t ref[NE];
    for (uint32_t i = 0; i < NE; i++) ref[i] = i;
    g_c = c;
    qsort(ref, NE, sizeof *ref, eip_ref_cmp);
    int rank_ok = 1, sel_ok = 1;
    for (uint32_t k = 0; k < NE; k++) {
        const cs_cand_t *t = &c[ref[k]];
        rank_ok &= t->rank == k;
        sel_ok &= k < 50 ? t->selected && t->why == CS_WHY_NONE : !t->selected && t->why == CS_WHY_BUDGET;
    }
    CS_CHECK(rank_ok);
    CS_CHECK(sel_ok);
    CS_CHECK_EQ_U64(out.fired, 50);
    CS_CHECK_EQ_U64(out.cycles_used, 50000);
}

int main(void)
{
    test_keyed_sorts();
    test_small_sorts();
    test_keys();
    test_eip1559_wide();
    return cs_test_done("mech_sort");
}
