/*
 * cs_hmap.h -- internal open-addressing multimap from 64-bit keys to 32-bit
 * values (linear probing, backward-shift deletion, no tombstones).
 *
 * Keys are already well mixed (prefixes of keccak hashes, or mixed with
 * cs__mix64).  A cell keeps only the key's low 32 bits, which also pick
 * its home cell: entries are found, walked and deleted by those bits, so
 * two keys equal in their low halves are one key here.  Callers walk the
 * entries with cs__hmap_next and compare the full key themselves (every
 * caller does: the timer store keeps only the id's prefix here and compares
 * the whole id in the record, so the 32-byte id is stored once).
 * Iteration order is never used for consensus results.
 *
 * A cell holds the key half and the value together (8 bytes), so a probe
 * reads one place.  The table doubles when an insert would take it past
 * its maximum load: half full by default, three quarters for a map created
 * with CS__HMAP_DENSE (the timer store: 8 bytes x 2^24 cells instead of
 * 2^25 at 10^7 timers, for about 2.5 probes per hit instead of 1.5).
 */
#ifndef CS_HMAP_H
#define CS_HMAP_H

#include <stddef.h>
#include <stdint.h>

/* One cell: the key's low half and the value. */
typedef struct cs__hcell {
    uint32_t klo; /* key bits 0..31 */
    uint32_t val; /* value; CS__HEMPTY marks a free cell */
} cs__hcell_t;

typedef struct cs__hmap {
    cs__hcell_t *cells; /* mask + 1 cells */
    size_t mask;        /* cells - 1 (power of two) */
    size_t n;           /* entries */
    unsigned load4;     /* maximum load in quarters: 2 (default) or 3 (dense) */
} cs__hmap_t;

#define CS__HEMPTY UINT32_MAX
#define CS__HMAP_HALF 2u  /* grow past half full */
#define CS__HMAP_DENSE 3u /* grow past three quarters full */

/* Room for cap entries at the given maximum load (CS__HMAP_HALF or
 * CS__HMAP_DENSE).  0 ok, -1 no memory.  Free with cs__hmap_free. */
int cs__hmap_init(cs__hmap_t *m, size_t cap, unsigned load4);
void cs__hmap_free(cs__hmap_t *m);
void cs__hmap_clear(cs__hmap_t *m);
/* Insert (key, val); val != CS__HEMPTY.  0 ok, -1 no memory (map unchanged). */
int cs__hmap_put(cs__hmap_t *m, uint64_t key, uint32_t val);
/* Walk values stored under key (its low 32 bits): start with *it =
 * SIZE_MAX; returns the next value or CS__HEMPTY when done. */
uint32_t cs__hmap_next(const cs__hmap_t *m, uint64_t key, size_t *it);
/* Remove one entry (key, val), key by its low 32 bits; returns 1 if found. */
int cs__hmap_del(cs__hmap_t *m, uint64_t key, uint32_t val);
/* A table that deletions have left below an eighth of its maximum load is
 * rebuilt at the size twice its entries need (never below
 * CS__HMAP_FIT_MIN cells): one sized by a past peak spreads its few
 * entries over many cache lines.  Entries move in cell order, as when the
 * table grows; for a map whose walk order under a key matters, that order
 * can change where a probe chain wraps past the table's end.  0 (rebuilt
 * or left as it is), -1 no memory (left as it is). */
#define CS__HMAP_FIT_MIN 4096u
int cs__hmap_fit(cs__hmap_t *m);
size_t cs__hmap_bytes(const cs__hmap_t *m);
/* Prefetch the cell where key's probe starts, ahead of a lookup, put or
 * delete of it (a macro: GCC drops an inline function that only
 * prefetches). */
#define CS__HMAP_PREFETCH(m, key)                                                                                      \
    do {                                                                                                               \
        if ((m)->cells) __builtin_prefetch(&(m)->cells[(uint32_t)(key) & (m)->mask]);                                  \
    } while (0)

/* A 64-bit finalizer (bijective mix) for keys that are not hashes. */
static inline uint64_t cs__mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

#endif
