/* test_fairness.c -- W(identity) (CIP-1 rev §8; D12).  W values are ppm
 * (1,000,000 = 1.0), each worked by hand beside it:
 *   ratio = recent / max(1, median) clipped to [0, 2] (floored to ppm)
 *   W     = clip(2 - ratio, 1, 2) */
#include "cs_test.h"

#include "cs_fairness.h"
#include "fairness_ref.h"

#include <stdlib.h>

static void fires(cs_fairness_t *f, uint32_t ident, int n)
{
    for (int i = 0; i < n; i++) CS_CHECK_EQ_U64(cs_fairness_add_fire(f, ident), CS_OK);
}

static void test_weights(void)
{
    cs_params_t p;
    cs_fairness_t f;
    cs_params_default(&p);
    p.fairness_window = 10;
    CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 100), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_median(&f), 0); /* nobody fired: median 0 */
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 1), 2000000);
    fires(&f, 1, 3);
    fires(&f, 2, 4);
    fires(&f, 3, 5);
    CS_CHECK_EQ_U64(cs_fairness_count(&f), 3);
    /* fires of the current block are not in the window yet */
    CS_CHECK_EQ_U64(cs_fairness_recent(&f, 1), 0);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 1), 2000000);

    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 101), CS_OK);
    /* sums {3, 4, 5}: median 4 */
    CS_CHECK_EQ_U64(cs_fairness_median(&f), 4);
    CS_CHECK_EQ_U64(cs_fairness_recent(&f, 1), 3);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 1), 1250000); /* 2 - 3/4 = 1.25 */
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 2), 1000000); /* at the median: 2 - 1 = 1.0 */
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 3), 1000000); /* 2 - 1.25 = 0.75 -> clip 1.0 */
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 9), 2000000); /* new identity: ratio 0 -> 2.0 */
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 123456), 2000000); /* never seen, past the table */

    /* Fires during block 101 leave block 101's weights unchanged. */
    fires(&f, 1, 5);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 1), 1250000);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 102), CS_OK);
    /* sums {8, 4, 5}: sorted {4, 5, 8}, median 5 */
    CS_CHECK_EQ_U64(cs_fairness_median(&f), 5);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 1), 1000000); /* 8/5 = 1.6 -> 0.4 -> 1.0 */
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 2), 1200000); /* 2 - 4/5 = 1.2 */
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 3), 1000000); /* 2 - 1 */
    CS_CHECK_EQ_U64(cs_fairness_median_fp(&f), 5000000); /* no EMA: 5 x 10^6 */

    /* Rounding: sums {1, 3, 3}, median 3: ratio 1/3 -> 333,333 ppm -> W 1,666,667. */
    fires(&f, 7, 1);
    cs_fairness_free(&f);
    CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 5), CS_OK);
    fires(&f, 10, 1);
    fires(&f, 11, 3);
    fires(&f, 12, 3);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 6), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 10), 1666667);

    /* Other clip bounds: [0.5, 1.5] -> the new identity gets 1.5, id 11 gets 1.0. */
    f.w_min = 500000;
    f.w_max = 1500000;
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 99), 1500000);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 11), 1000000);
    cs_fairness_free(&f);
}

static void test_even_lower_median(void)
{
    cs_params_t p;
    cs_fairness_t f;
    cs_params_default(&p); /* window 1,000 */
    CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_OK);
    CS_CHECK_EQ_U64(f.window, 1000);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 1), CS_OK);
    fires(&f, 40, 8);
    fires(&f, 41, 2);
    fires(&f, 42, 6);
    fires(&f, 43, 4);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 2), CS_OK);
    /* sums sorted {2, 4, 6, 8}: lower median = 4 (the upper would be 6) */
    CS_CHECK_EQ_U64(cs_fairness_median(&f), 4);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 41), 1500000); /* 2 - 2/4 (upper: 1.667) */
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 43), 1000000); /* 2 - 4/4 (upper: 1.333) */
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 42), 1000000); /* 2 - 1.5 -> clip 1 */
    cs_fairness_free(&f);
}

static void test_pruning_and_gaps(void)
{
    cs_params_t p;
    cs_fairness_t f;
    cs_params_default(&p);
    p.fairness_window = 3;
    CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 10), CS_OK);
    fires(&f, 5, 1); /* one fire at block 10 */
    /* During block h the window is [h-3, h-1]. */
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 11), CS_OK); /* [8, 10]  */
    CS_CHECK_EQ_U64(cs_fairness_recent(&f, 5), 1);
    CS_CHECK_EQ_U64(cs_fairness_median(&f), 1);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 12), CS_OK); /* [9, 11]  */
    CS_CHECK_EQ_U64(cs_fairness_recent(&f, 5), 1);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 13), CS_OK); /* [10, 12] */
    CS_CHECK_EQ_U64(cs_fairness_recent(&f, 5), 1);
    CS_CHECK_EQ_U64(cs_fairness_count(&f), 1);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 5), 1000000); /* 1/1 */
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 14), CS_OK); /* [11, 13]: block 10 left */
    CS_CHECK_EQ_U64(cs_fairness_count(&f), 0);               /* pruned */
    CS_CHECK_EQ_U64(cs_fairness_recent(&f, 5), 0);
    CS_CHECK_EQ_U64(cs_fairness_median(&f), 0);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 5), 2000000);
    /* the next fire re-creates a fresh entry */
    fires(&f, 5, 2);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 15), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_recent(&f, 5), 2);

    /* Ring reuse: 5 fires 1, 2, 3, 4 in blocks 15..18; sums are those of the
     * last three blocks. */
    fires(&f, 5, 1); /* block 15 */
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 16), CS_OK); /* [13,15]: 0 + 2 + 1 = 3 */
    CS_CHECK_EQ_U64(cs_fairness_recent(&f, 5), 3);
    fires(&f, 5, 2); /* block 16 */
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 17), CS_OK); /* [14,16]: 2 + 1 + 2 = 5 */
    CS_CHECK_EQ_U64(cs_fairness_recent(&f, 5), 5);
    fires(&f, 5, 3); /* block 17 */
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 18), CS_OK); /* [15,17]: 1 + 2 + 3 = 6 */
    CS_CHECK_EQ_U64(cs_fairness_recent(&f, 5), 6);
    fires(&f, 5, 4); /* block 18 */
    /* Skip blocks 19 and 20: [17, 19] at h = 20: 3 + 4 + 0 = 7 */
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 20), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_recent(&f, 5), 7);
    /* h = 22: [19, 21] -> 0 -> pruned */
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 22), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_count(&f), 0);
    /* A gap longer than the window: fire at 22, next block 26 -> [23, 25] -> pruned;
     * a gap of exactly the window: fire at 26, next block 29 -> [26, 28] -> kept. */
    fires(&f, 6, 2);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 26), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_count(&f), 0);
    fires(&f, 6, 2);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 29), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_recent(&f, 6), 2);

    /* Errors. */
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 29), CS_EINVAL); /* not increasing */
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 3), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_fairness_add_fire(&f, UINT32_MAX), CS_EINVAL);
    f.slots[f.slot_of[6]].cur = UINT32_MAX; /* white box: 2^32-1 fires this block */
    CS_CHECK_EQ_U64(cs_fairness_add_fire(&f, 6), CS_EOVERFLOW);
    cs_fairness_free(&f);

    CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_add_fire(&f, 1), CS_EINVAL); /* before begin_block */
    cs_fairness_free(&f);
    p.fairness_window = 0;
    CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 1), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_fairness_reserve(&f, 10, 10), CS_EINVAL);
}

/* D12 fairness_identity = deployer: actors 10 and 11 of deployer 7 are mapped
 * by the pipeline to identity 7 and share one W; under = actor each has its own. */
static void test_deployer_identity(void)
{
    static const uint32_t deployer_of[16] = {[10] = 7, [11] = 7, [12] = 8, [13] = 9, [14] = 5};
    cs_params_t p;
    cs_params_default(&p);
    for (int mode = 0; mode < 2; mode++) {
        cs_fairness_t f;
        CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_OK);
        CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 300), CS_OK);
        /* fires by actor: 10 x2, 11 x2 (deployer 7 total 4), 12 x4, 13 x4, 14 x4 */
        static const uint32_t actor[5] = {10, 11, 12, 13, 14};
        static const int n[5] = {2, 2, 4, 4, 4};
        for (int a = 0; a < 5; a++) {
            uint32_t id = mode == CS_IDENTITY_DEPLOYER ? deployer_of[actor[a]] : actor[a];
            fires(&f, id, n[a]);
        }
        CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 301), CS_OK);
        if (mode == CS_IDENTITY_ACTOR) {
            /* sums {2, 2, 4, 4, 4}: median 4; each fragment: 2 - 2/4 = 1.5 */
            CS_CHECK_EQ_U64(cs_fairness_median(&f), 4);
            CS_CHECK_EQ_U64(cs_fairness_weight(&f, 10), 1500000);
            CS_CHECK_EQ_U64(cs_fairness_weight(&f, 11), 1500000);
        } else {
            /* sums {4, 4, 4, 4}: lower median 4; deployer 7: 2 - 4/4 = 1.0 for both */
            CS_CHECK_EQ_U64(cs_fairness_count(&f), 4);
            CS_CHECK_EQ_U64(cs_fairness_median(&f), 4);
            CS_CHECK_EQ_U64(cs_fairness_recent(&f, deployer_of[10]), 4);
            CS_CHECK_EQ_U64(cs_fairness_weight(&f, deployer_of[10]), 1000000);
            CS_CHECK_EQ_U64(cs_fairness_weight(&f, deployer_of[11]), 1000000);
        }
        cs_fairness_free(&f);
    }
}

/* median_ema = 0.3: M_h = 0.3 * median_h + 0.7 * M_{h-1}, started at block 1's 0. */
static void test_ema(void)
{
    cs_params_t p;
    cs_fairness_t f;
    cs_params_default(&p);
    p.median_ema = 300000;
    CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 1), CS_OK); /* median 0 -> M = 0 */
    CS_CHECK_EQ_U64(cs_fairness_median_fp(&f), 0);
    fires(&f, 1, 4);
    fires(&f, 2, 4);
    fires(&f, 3, 4);
    fires(&f, 4, 1);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 2), CS_OK);
    /* sums {4,4,4,1}: lower median 4; M = 0.3*4 + 0.7*0 = 1.2 */
    CS_CHECK_EQ_U64(cs_fairness_median(&f), 4);
    CS_CHECK_EQ_U64(cs_fairness_median_fp(&f), 1200000);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 4), 1166667); /* 1/1.2 = 0.833333 -> W 1.166667 */
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 1), 1000000); /* 4/1.2 > 2 -> clip -> 1 */
    fires(&f, 1, 4);
    fires(&f, 2, 4);
    fires(&f, 3, 4);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 3), CS_OK);
    /* sums {8,8,8,1}: median 8; M = 0.3*8 + 0.7*1.2 = 2.4 + 0.84 = 3.24 */
    CS_CHECK_EQ_U64(cs_fairness_median_fp(&f), 3240000);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 4), 1691359); /* 1/3.24 = 0.3086419 -> 1.691359 */
    fires(&f, 1, 1);
    fires(&f, 2, 1);
    fires(&f, 3, 1);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 4), CS_OK);
    /* sums {9,9,9,1}: median 9; M = 0.3*9 + 0.7*3.24 = 2.7 + 2.268 = 4.968 */
    CS_CHECK_EQ_U64(cs_fairness_median_fp(&f), 4968000);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 4), 1798712); /* 1/4.968 = 0.2012882 -> 1.798712 */
    /* Without the EMA the same block would use median 9: 2 - 1/9 = 1.888889. */
    f.ema = 0;
    f.median_fp = (cs_u128)cs_fairness_median(&f) * 1000000u;
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 4), 1888889);
    cs_fairness_free(&f);
}

/* W takes its quotient in 64 bits when recent < 2^24 and the median
 * (x 10^6) fits in 64 bits, in 128 otherwise: the same floor either way.
 * The window sums and the median are set directly (the quotient reads
 * nothing else); w_min = 0 shows W unclipped below 1.0.  Expected values
 * are 2 x 10^6 - floor(recent x 10^12 / median_fp):
 *   median_fp = 16,777,216 x 10^6 (2^24):
 *     recent 16,777,215 (64 bits): floor(999,999.94) = 999,999 -> 1,000,001
 *     recent 16,777,216 (128):     10^6                         -> 1,000,000
 *     recent 20,000,000 (128):     floor(1,192,092.9) = 1,192,092 -> 807,908
 *       (in 64 bits 2 x 10^19 would wrap to 1.553 x 10^18: W 1,907,419)
 *   median_fp = 2^64 + 10^6 (128): recent 5 -> quotient 0 -> 2,000,000
 *       (cut to 64 bits the divisor would be 10^6: ratio clipped, W 0) */
static void test_wide_sums(void)
{
    cs_params_t p;
    cs_fairness_t f;
    cs_params_default(&p);
    CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 1), CS_OK);
    fires(&f, 1, 1);
    fires(&f, 2, 1);
    fires(&f, 3, 1);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 2), CS_OK);
    f.slots[f.slot_of[1]].sum = 16777215;
    f.slots[f.slot_of[2]].sum = 16777216;
    f.slots[f.slot_of[3]].sum = 20000000;
    f.median_fp = (cs_u128)16777216 * 1000000u;
    f.w_min = 0;
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 1), 1000001);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 2), 1000000);
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 3), 807908);
    f.slots[f.slot_of[1]].sum = 5;
    f.median_fp = ((cs_u128)1 << 64) + 1000000u;
    CS_CHECK_EQ_U64(cs_fairness_weight(&f, 1), 2000000);
    cs_fairness_free(&f);
}

static void test_snapshot_reserve(void)
{
    cs_params_t p;
    cs_fairness_t f;
    uint32_t id[8];
    uint64_t rec[8], w[8];
    cs_params_default(&p);
    CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_reserve(&f, 64, 16), CS_OK);
    CS_CHECK(f.cap_slots >= 16 && f.n_ident >= 64);
    uint32_t cap0 = f.cap_slots;
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 7), CS_OK);
    fires(&f, 33, 6); /* inserted out of order */
    fires(&f, 2, 3);
    fires(&f, 17, 4);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 8), CS_OK);
    CS_CHECK_EQ_U64(f.cap_slots, cap0); /* reserved room was enough: no growth */
    CS_CHECK_EQ_U64(cs_fairness_snapshot(&f, id, rec, w, 8), 3);
    /* ascending identity; median of {3, 4, 6} = 4 */
    CS_CHECK_EQ_U64(id[0], 2);
    CS_CHECK_EQ_U64(rec[0], 3);
    CS_CHECK_EQ_U64(w[0], 1250000); /* 2 - 3/4 */
    CS_CHECK_EQ_U64(id[1], 17);
    CS_CHECK_EQ_U64(w[1], 1000000);
    CS_CHECK_EQ_U64(id[2], 33);
    CS_CHECK_EQ_U64(rec[2], 6);
    CS_CHECK_EQ_U64(cs_fairness_snapshot(&f, id, NULL, NULL, 2), 2); /* cap honoured */
    CS_CHECK_EQ_U64(id[1], 17);
    cs_fairness_free(&f);
}

/* ---- selection and a reference model ----------------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return rng_state >> 33;
}

static int cmp_u128(const void *a, const void *b)
{
    cs_u128 x = *(const cs_u128 *)a, y = *(const cs_u128 *)b;
    return x < y ? -1 : x > y;
}

/* cs__select_u128 against qsort, seed 7781: sizes 1..300, with heavy
 * duplication and values above 2^64. */
static void test_select_seed_7781(void)
{
    static cs_u128 a[300], s[300], w[300];
    long bad = 0;
    rng_state = 7781;
    for (size_t n = 1; n <= 300; n++) {
        uint64_t range = (n % 3 == 0) ? 4 : 1000000;
        for (size_t i = 0; i < n; i++) {
            a[i] = ((cs_u128)(rnd() % 3) << 64) | (rnd() % range);
            s[i] = a[i];
        }
        qsort(s, n, sizeof s[0], cmp_u128);
        size_t ks[3] = {0, (n - 1) / 2, n - 1};
        for (int j = 0; j < 3; j++) {
            memcpy(w, a, n * sizeof a[0]);
            if (cs__select_u128(w, n, ks[j]) != s[ks[j]]) bad++;
            qsort(w, n, sizeof w[0], cmp_u128); /* still a permutation of a */
            if (memcmp(w, s, n * sizeof w[0]) != 0) bad++;
        }
    }
    CS_CHECK_EQ_U64(bad, 0);
}

/* Random fires and gaps against a brute-force model (seed 4242): window 5,
 * 9 identities, 400 blocks.  The model keeps every (block, identity) fire and
 * sums the window from scratch. */
static void test_model_seed_4242(void)
{
    enum { W = 5, NI = 9, NB = 400 };
    static uint32_t fired[NB * 8][NI]; /* fires per block (heights < NB*8) */
    cs_params_t p;
    cs_fairness_t f;
    long bad = 0;
    uint64_t h = 3;
    cs_params_default(&p);
    p.fairness_window = W;
    memset(fired, 0, sizeof fired);
    rng_state = 4242;
    CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_OK);
    for (int blk = 0; blk < NB; blk++) {
        CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, h), CS_OK);
        /* model: sums over [h-W, h-1], tracked = sum > 0, lower median */
        uint64_t sum[NI], sorted[NI];
        size_t n = 0;
        for (int i = 0; i < NI; i++) {
            sum[i] = 0;
            for (uint64_t b = h >= W ? h - W : 0; b < h; b++) sum[i] += fired[b][i];
            if (sum[i] > 0) {
                size_t k = n++;
                while (k > 0 && sorted[k - 1] > sum[i]) {
                    sorted[k] = sorted[k - 1];
                    k--;
                }
                sorted[k] = sum[i];
            }
        }
        uint64_t med = n ? sorted[(n - 1) / 2] : 0;
        if (cs_fairness_count(&f) != n || cs_fairness_median(&f) != med) bad++;
        for (int i = 0; i < NI; i++) {
            uint64_t r = (uint64_t)((cs_u128)sum[i] * 1000000u / (med > 1 ? med : 1));
            uint64_t wm = 2000000 - (r > 2000000 ? 2000000 : r);
            if (wm < 1000000) wm = 1000000;
            if (cs_fairness_recent(&f, (uint32_t)i) != sum[i]) bad++;
            if (cs_fairness_weight(&f, (uint32_t)i) != wm) bad++;
        }
        /* this block's fires: a few identities, a few fires each */
        int k = (int)(rnd() % 4);
        for (int j = 0; j < k; j++) {
            uint32_t id = (uint32_t)(rnd() % NI);
            uint32_t c = (uint32_t)(1 + rnd() % 3);
            for (uint32_t x = 0; x < c; x++)
                if (cs_fairness_add_fire(&f, id) != CS_OK) bad++;
            fired[h][id] += c;
        }
        h += 1 + (rnd() % 8 == 0 ? rnd() % 7 : 0); /* mostly consecutive, some gaps */
    }
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK(h < NB * 8);
    cs_fairness_free(&f);
}

/* The incremental implementation against the previous one (fairness_ref.h)
 * over random histories, seed 90210: windows 1..64, 1..300 identities,
 * EMA off / 0.3 / 1.0, random clips, skewed fire counts (some identities
 * fire hundreds of times a block), consecutive heights with gaps shorter,
 * equal to and longer than the window.  After every begin_block the
 * median, the smoothed median, the tracked count and every identity's
 * recent_executions and W must be equal bit for bit; so must the count
 * after each block's fires. */
static void test_property_vs_ref_seed_90210(void)
{
    static const uint32_t windows[] = {1, 2, 3, 7, 64};
    static const uint32_t idents[] = {1, 5, 40, 300};
    static const uint64_t emas[] = {0, 300000, 1000000};
    long bad = 0, checks = 0, small = 0, big = 0;
    rng_state = 90210;
    for (size_t wi = 0; wi < sizeof windows / sizeof windows[0]; wi++) {
        for (size_t ii = 0; ii < sizeof idents / sizeof idents[0]; ii++) {
            for (size_t ei = 0; ei < sizeof emas / sizeof emas[0]; ei++) {
                cs_params_t p;
                cs_params_default(&p);
                p.fairness_window = windows[wi];
                p.median_ema = emas[ei];
                p.w_min = rnd() % 1000001;           /* 0 .. 1.0 */
                p.w_max = 1000000 + rnd() % 1000001; /* 1.0 .. 2.0 */
                if (ii == 1) p.w_min = p.w_max;      /* W the same for everyone (its shortcut) */
                uint32_t ni = idents[ii], win = windows[wi];
                cs_fairness_t f;
                ref_fair_t r;
                CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_OK);
                CS_CHECK_EQ_U64(ref_init(&r, &p), CS_OK);
                uint64_t h = 1 + rnd() % 50;
                for (int blk = 0; blk < 500; blk++) {
                    int rc1 = cs_fairness_begin_block(&f, h), rc2 = ref_begin_block(&r, h);
                    if (rc1 != CS_OK || rc2 != CS_OK) bad++;
                    checks++;
                    if (cs_fairness_median(&f) != ref_median(&r)) bad++;
                    if (cs_fairness_median_fp(&f) != ref_median_fp(&r)) bad++;
                    if (cs_fairness_count(&f) != ref_count(&r)) bad++;
                    for (uint32_t id = 0; id < ni + 2; id++) {
                        if (cs_fairness_recent(&f, id) != ref_recent(&r, id)) bad++;
                        if (cs_fairness_weight(&f, id) != ref_weight(&r, id)) bad++;
                    }
                    /* The /weights snapshot: every tracked identity once,
                     * ascending, with the reference's recent and W (it
                     * keeps the W of small counts for the whole snapshot;
                     * the counts here cross that bound). */
                    uint32_t sid[302];
                    uint64_t srec[302], sw[302];
                    uint32_t ns = cs_fairness_snapshot(&f, sid, srec, sw, 302);
                    if (ns != cs_fairness_count(&f)) bad++;
                    uint32_t seen = 0;
                    for (uint32_t j = 0; j < ns; j++) {
                        if (j > 0 && sid[j] <= sid[j - 1]) bad++;
                        if (srec[j] != ref_recent(&r, sid[j]) || sw[j] != ref_weight(&r, sid[j])) bad++;
                        if (srec[j] >= 64) big++;
                        else if (srec[j] > 0) small++;
                    }
                    for (uint32_t id = 0; id < ni; id++) seen += ref_recent(&r, id) > 0;
                    if (seen > ns) bad++; /* an identity with fires in the window is missing */
                    /* This block's fires: a burst phase every 50 blocks
                     * makes many identities fire, otherwise a few. */
                    uint32_t k = (uint32_t)(blk % 50 < 5 ? rnd() % (ni + 1) : rnd() % 4);
                    for (uint32_t j = 0; j < k; j++) {
                        uint32_t id = (uint32_t)(rnd() % ni);
                        uint32_t c = (uint32_t)(rnd() % 16 == 0 ? 1 + rnd() % 500 : 1 + rnd() % 3);
                        for (uint32_t x = 0; x < c; x++) {
                            if (cs_fairness_add_fire(&f, id) != CS_OK) bad++;
                            if (ref_add_fire(&r, id) != CS_OK) bad++;
                        }
                    }
                    if (cs_fairness_count(&f) != ref_count(&r)) bad++;
                    uint64_t g = rnd() % 10;
                    h += g < 7 ? 1 : g < 8 ? 1 + rnd() % win : g < 9 ? win : win + 1 + rnd() % 3;
                }
                cs_fairness_free(&f);
                ref_free(&r);
            }
        }
    }
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(checks, 5 * 4 * 3 * 500); /* every configuration ran every block */
    CS_CHECK(small > 1000 && big > 1000);      /* snapshots on both sides of the W memo's bound */
}

int main(void)
{
    test_weights();
    test_even_lower_median();
    test_pruning_and_gaps();
    test_deployer_identity();
    test_ema();
    test_wide_sums();
    test_snapshot_reserve();
    test_select_seed_7781();
    test_model_seed_4242();
    test_property_vs_ref_seed_90210();
    return cs_test_done("fairness");
}
