/*
 * cs_mech_int.h -- internals shared by the mechanism implementations
 * (mech_*.c).  Not part of the public interface: callers use cs_mech.h.
 *
 * Ownership: a cs__ws_t lives inside a mechanism's state; cs__ws_reserve
 * grows its arrays (never shrinks) and cs__ws_free releases them from the
 * mechanism's fini hook.  Clearing reuses the arrays every block, so after
 * the first block of a given size the hot path does not allocate.
 */
#ifndef CS_MECH_INT_H
#define CS_MECH_INT_H

#include <string.h>

#include "cs_mech.h"

#define CS__RADIX_BITS 11
#define CS__RADIX (1u << CS__RADIX_BITS)
#define CS__RADIX_PASSES 6
/* How far ahead the scans prefetch the compact record of a later position. */
#define CS__PREFETCH 16

/* Compact per-candidate record (by candidate index) that the selection
 * scans read instead of the wide cs_cand_t, so the scans stay in cache. */
typedef struct cs__crec {
    uint64_t cycles; /* cand.cycles */
    uint32_t target; /* cand.target */
    uint32_t grp;    /* mechanism-defined group index (gba-tip identity) */
    uint8_t why0;    /* loser reason known before the scan, else CS_WHY_NONE */
} cs__crec_t;

/* Compact outcome-or-cycles word (w->cw, by candidate index) of the
 * selection scans of eip1559 and bias-*: when the per-fire cap is below
 * 2^31, an eligible candidate's cycles fit 31 bits and a candidate already
 * known to lose is CS__CW_LOSER | why0.  Four bytes per candidate keep the
 * scan's random reads in cache (cs__crec_t takes 24). */
#define CS__CW_LOSER 0x80000000u
#define CS__CW_MAX_CAP 0x7fffffffu /* largest cap the compact word allows */

/* Reusable workspace of one mechanism instance. */
typedef struct cs__ws {
    cs__crec_t *rec; /* compact records by candidate index */
    uint8_t *whyp;   /* outcome by position: CS_WHY_NONE = selected */
    uint8_t *whyi;   /* outcome by candidate index (cs__finish_idx) */
    uint32_t *cw;    /* compact cycles-or-outcome by index (CS__CW_LOSER) */
    uint32_t *inv;   /* position of each candidate index (cs__finish) */
    uint32_t *ord;   /* candidate indices in the mechanism's order */
    uint32_t *tmp;   /* merge-sort / radix scratch, same length as ord */
    uint64_t *key;   /* per-candidate 64-bit monotone sort key (radix path) */
    uint64_t *key2;  /* radix scratch: keys in position order */
    uint64_t *key3;  /* radix scratch: ping-pong partner of key2 */
    uint64_t *key4;  /* scratch of the tie sort of runs of equal keys */
    uint32_t *tmp2;  /* scratch of the tie sort of runs of equal keys */
    uint32_t *aux;   /* per-candidate scratch (mechanism-defined use) */
    uint64_t *tie;   /* per-candidate compact tie-break key (use_tie sorts) */
    uint32_t *hist;  /* radix histograms, CS__RADIX_PASSES x CS__RADIX */
    size_t cap;      /* capacity of the arrays above, in candidates */
    uint32_t *hkey;  /* target-counter hash: keys */
    uint32_t *hval;  /* target-counter hash: values */
    uint32_t *hgen;  /* target-counter hash: generation that wrote the slot */
    uint32_t gen;    /* current generation; a slot with hgen != gen is empty */
    size_t hcap;     /* hash slots, a power of two (>= 2 * cap) */
    int direct;      /* counters are hval[t] itself (cs__tcount_reset_max) */
    size_t n_eq;     /* after a keyed sort: positions in tmp[0..n_eq) whose key equals
                        the previous one's (SIZE_MAX: not known, n <= 64) */
} cs__ws_t;

/* The selection scans' read of candidate ord[k]: its known outcome (why0,
 * CS_WHY_NONE if it may still win) and its cycles, from the compact words
 * when `compact`, else from the records; prefetches CS__PREFETCH ahead. */
static inline void cs__scan_read(int compact, const uint32_t *cw, const cs__crec_t *rec,
                                 const uint32_t *ord, size_t k, size_t n, uint8_t *why0,
                                 uint64_t *cyc)
{
    uint32_t i = ord[k];
    if (compact) {
        if (k + CS__PREFETCH < n) __builtin_prefetch(&cw[ord[k + CS__PREFETCH]]);
        uint32_t x = cw[i];
        *why0 = x & CS__CW_LOSER ? (uint8_t)x : CS_WHY_NONE;
        *cyc = x;
    } else {
        if (k + CS__PREFETCH < n) __builtin_prefetch(&rec[ord[k + CS__PREFETCH]]);
        *why0 = rec[i].why0;
        *cyc = rec[i].cycles;
    }
}

/* How far ahead the sequential passes over the candidates prefetch. */
#define CS__PREFETCH_CAND 8

/* Prefetch, for writing, every cache line of candidate c[i +
 * CS__PREFETCH_CAND] (when it exists): a candidate is 3-4 lines, more
 * than the hardware prefetcher runs ahead of a pass that reads and writes
 * each. */
static inline void cs__prefetch_cand(const cs_cand_t *c, size_t i, size_t n)
{
    if (i + CS__PREFETCH_CAND >= n) return;
    const char *q = (const char *)&c[i + CS__PREFETCH_CAND];
    for (size_t b = 0; b < sizeof *c; b += 64) __builtin_prefetch(q + b, 1);
    __builtin_prefetch(q + sizeof *c - 1, 1);
}

/* The same for the line of the outputs rank, why and selected only (the
 * passes that write just those). */
static inline void cs__prefetch_rank(const cs_cand_t *c, size_t i, size_t n)
{
    if (i + CS__PREFETCH_CAND < n) __builtin_prefetch(&c[i + CS__PREFETCH_CAND].rank, 1);
}

/* Make room for n candidates.  Returns CS_OK or CS_ENOMEM (the workspace
 * keeps its previous arrays on failure). */
int cs__ws_reserve(cs__ws_t *w, size_t n);
/* Release every array of w and zero it. */
void cs__ws_free(cs__ws_t *w);

/* Check and reset one candidate before clearing: CS_EINVAL when cycles is
 * 0, else zero every output field and return CS_OK. */
static inline int cs__prep(cs_cand_t *t)
{
    if (t->cycles == 0) return CS_EINVAL;
    t->selected = 0;
    t->why = CS_WHY_NONE;
    t->rank = 0;
    t->priority = 0;
    t->prio_rate = 0;
    t->payment = 0;
    t->critical = 0;
    return CS_OK;
}

/* Write rank, why and selected of every candidate from w->ord (position ->
 * index) and w->whyp (position -> outcome), in one sequential pass over c. */
void cs__finish(cs__ws_t *w, cs_cand_t *c, size_t n);

/* The same as cs__finish from w->inv (position of each candidate index)
 * and w->whyi (outcome by candidate index), which the caller filled
 * during its selection scan; one sequential pass over c. */
void cs__finish_idx(cs__ws_t *w, cs_cand_t *c, size_t n);

/* Comparator of a total order over candidates: < 0 when a comes first.
 * It must return 0 only for a == b (every order ends in a unique key). */
typedef int (*cs__cmp_fn)(const cs_cand_t *a, const cs_cand_t *b, const void *ctx);

/* Stable merge sort of w->ord[0..n) (which the caller fills) by cmp over
 * the candidates c.  Uses w->tmp.  O(n log n), no allocation. */
void cs__sort(cs__ws_t *w, const cs_cand_t *c, size_t n, cs__cmp_fn cmp, const void *ctx);
/* The same stable merge sort of w->ord[off..off+n) only, with w->tmp2 as
 * scratch (so w->tmp, which cs__sort_keyed_desc leaves holding run
 * positions, is untouched). */
void cs__sort_range(cs__ws_t *w, const cs_cand_t *c, size_t off, size_t n, cs__cmp_fn cmp,
                    const void *ctx);

/* Sort w->ord[0..n) by w->key[] descending (LSD radix, 11-bit digits,
 * only over the bits in which the keys differ), then put every run of
 * equal keys in cmp order.  Requires that key be a non-increasing function
 * of the position in cmp order (equal keys allowed), so the result is
 * exactly the cmp order.  With use_tie, runs are first ordered by w->tie[]
 * ascending (a compact copy of the comparator's next keys) and cmp only
 * breaks equal tie values; the caller then guarantees that within a run
 * of equal keys, tie[a] < tie[b] implies cmp(a, b) < 0.
 * When the differing key bits and the index bits fit one 64-bit word, the
 * passes move packed (key << index bits | index) words; runs of equal keys
 * are found in the same pass that unpacks the order, and with use_tie
 * their tie values are gathered once into position order and sorted as
 * (tie, index) pairs, so the comparator is only called for equal tie
 * values.  Scratch: tmp, tmp2, key2, key3, key4, hist (key, tie, aux are
 * read only).  n <= 64 is sorted without radix passes, by (key, tie) and
 * cmp for equal pairs (the same order).  On return
 * w->tmp[0..w->n_eq) lists, ascending, the positions whose key equals the
 * key at the position before (w->n_eq = SIZE_MAX after the sort of n <= 64). */
void cs__sort_keyed_desc(cs__ws_t *w, const cs_cand_t *c, size_t n, cs__cmp_fn cmp,
                         const void *ctx, int use_tie);

/* The same over the candidates in index order (w->ord need not be filled;
 * it is output only), with diff = (OR of key[0..n)) ^ (AND of key[0..n)),
 * which the caller accumulated while writing the keys: the bits in which
 * some keys differ.  With use_tie, the top bits of tie[] should vary (a
 * timer-id prefix does): when the packed words have room, up to 22 of
 * them ride along through the passes, so runs of equal keys are ordered
 * mostly without reading tie[] again. */
void cs__sort_keyed_desc_id(cs__ws_t *w, const cs_cand_t *c, size_t n, cs__cmp_fn cmp,
                            const void *ctx, int use_tie, uint64_t diff);

/* The first 8 bytes of a timer id as a big-endian integer (so integer
 * order agrees with cs__id_cmp whenever the prefixes differ). */
static inline uint64_t cs__id_prefix(const cs_hash_t *id)
{
    uint64_t v;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&v, id->b, 8);
    v = __builtin_bswap64(v);
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    memcpy(&v, id->b, 8);
#else
    v = 0;
    for (int k = 0; k < 8; k++) v = (v << 8) | id->b[k];
#endif
    return v;
}

/* Reset the per-target counters (sized for up to w->cap distinct targets). */
void cs__tcount_reset(cs__ws_t *w);
/* The same when every target of the coming lookups (about n of them) is
 * <= tmax: if tmax < w->hcap and tmax < 4 n, the counters become the array
 * hval[0..tmax] itself (zeroed here, O(tmax) = O(n)), so a lookup is one
 * indexed access instead of a probe of three arrays; otherwise the hash
 * as cs__tcount_reset. */
void cs__tcount_reset_max(cs__ws_t *w, uint32_t tmax, size_t n);
/* Counter of target t in the hash (cs__tcount's slow path). */
uint32_t *cs__tcount_hash(cs__ws_t *w, uint32_t t);
/* Counter of target t (0 the first time t is seen after a reset). */
static inline uint32_t *cs__tcount(cs__ws_t *w, uint32_t t)
{
    return w->direct ? &w->hval[t] : cs__tcount_hash(w, t);
}

/* Lexicographic comparison of two timer ids (the last key of every order). */
static inline int cs__id_cmp(const cs_hash_t *a, const cs_hash_t *b)
{
    return memcmp(a->b, b->b, CS_ID_LEN);
}

/* Three-way comparison helpers. */
static inline int cs__cmp_u64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}
static inline int cs__cmp_u128(cs_u128 a, cs_u128 b)
{
    return (a > b) - (a < b);
}

/* Saturating u128 helpers (priorities never wrap). */
/* a * b for a 64-bit a, saturating; no division when b < 2^64. */
static inline cs_u128 cs__sat_mul64(uint64_t a, cs_u128 b)
{
    if ((b >> 64) == 0) return (cs_u128)a * (uint64_t)b; /* < 2^128 */
    if (a != 0 && b > CS_U128_MAX / a) return CS_U128_MAX;
    return a * b;
}
static inline cs_u128 cs__sat_add(cs_u128 a, cs_u128 b)
{
    cs_u128 s = a + b;
    return s < a ? CS_U128_MAX : s;
}
static inline cs_u128 cs__sat_mul(cs_u128 a, cs_u128 b)
{
    if (a != 0 && b > CS_U128_MAX / a) return CS_U128_MAX;
    return a * b;
}

/* a / b (b != 0), exactly the 128-bit quotient, by one 64-bit division
 * when both fit 64 bits (the common case: tips, weights and cycle sums
 * well below 2^64), so the per-identity and per-block work of gba-tip
 * does not call the library's 128-bit divide (__udivti3). */
static inline cs_u128 cs__div_u128(cs_u128 a, cs_u128 b)
{
    if (((a | b) >> 64) == 0) return (uint64_t)a / (uint64_t)b;
    return a / b;
}

/* Exact comparison of a / ca with b / cb (ca, cb >= 1) by cross
 * multiplication in 256-bit arithmetic: sign of a*cb - b*ca. */
int cs__ratio_cmp(cs_u128 a, uint64_t ca, cs_u128 b, uint64_t cb);

/* Low bits the key helpers drop: a key keeps the bit length (8 bits) and
 * the 25 bits below the leading one, so the radix sort needs 3 passes;
 * keys that collide are put in order by the exact comparator. */
#define CS__KEY_DROP 31

/* A key that is a non-decreasing function of the rational v / c (c >= 1)
 * alone, for cs__sort_keyed_desc. */
uint64_t cs__ratio_key(cs_u128 v, uint64_t c);

/* cs__ratio_key(v, c) for 1 <= v < 2^64 and 1 <= c < 2^37, with one
 * 64-bit division: with v' = v << lz (leading one at bit 63),
 * q = floor(v' / c) >= 2^63 / c > 2^26, and X = floor(v * 2^64 / c) =
 * q * 2^(64 - lz) + (lower bits), so X has bit length len(q) + 64 - lz and
 * its leading 26 bits (all the key keeps) are q's. */
static inline uint64_t cs__ratio_key_fast(uint64_t v, uint64_t c)
{
    unsigned lz = (unsigned)__builtin_clzll(v);
    uint64_t q = (v << lz) / c;
    unsigned z = (unsigned)__builtin_clzll(q);
    uint64_t len = (uint64_t)(64u - z) + 64u - lz;
    return ((len << 56) | (((q << z) << 1) >> 8)) >> CS__KEY_DROP;
}

/* cs__ratio_key, inline in the common case. */
static inline uint64_t cs__ratio_key_inl(cs_u128 v, uint64_t c)
{
    if ((v >> 64) == 0 && (uint64_t)v != 0 && (c >> 37) == 0)
        return cs__ratio_key_fast((uint64_t)v, c);
    return cs__ratio_key(v, c);
}

/* A key that is a non-decreasing function of v, for cs__sort_keyed_desc. */
uint64_t cs__u128_key(cs_u128 v);

/* The mechanisms of the registry (defined in mech_*.c). */
extern const cs_mech_ops_t cs__mech_fifo;
extern const cs_mech_ops_t cs__mech_fifo_capped;
extern const cs_mech_ops_t cs__mech_bias_vcg;
extern const cs_mech_ops_t cs__mech_bias_fp;
extern const cs_mech_ops_t cs__mech_score;
extern const cs_mech_ops_t cs__mech_eip1559;
extern const cs_mech_ops_t cs__mech_gbatip;
extern const cs_mech_ops_t cs__mech_greedy;
extern const cs_mech_ops_t cs__mech_slot_booking;
extern const cs_mech_ops_t cs__mech_priority_classes;

/* The clearing scan both booking mechanisms share (cs_book.c): bookings
 * first (High, then Medium), then the rest (Low and what was not booked)
 * in FIFO order, each under the lane budget, the block and actor quotas,
 * and the rest also under low_cap cycles in all; a winner pays its
 * escrowed booking price (cand.bid). */
int cs__book_clear(cs__ws_t *w, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                   cs_clear_out_t *out, uint64_t low_cap);
/* floor(v x ppm / 10^6), exact for every v (cs_book.c). */
cs_u128 cs__muldiv_ppm(cs_u128 v, uint64_t ppm);

#endif /* CS_MECH_INT_H */
