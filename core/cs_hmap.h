/*
 * cs_hmap.h -- internal open-addressing multimap from 64-bit keys to 32-bit
 * values (linear probing, backward-shift deletion, no tombstones).
 *
 * Keys are already well mixed (prefixes of keccak hashes, or mixed with
 * cs__mix64).  Several entries may share a key; callers walk them with
 * cs__hmap_next and compare the full key themselves.  Iteration order is
 * never used for consensus results.
 */
#ifndef CS_HMAP_H
#define CS_HMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct cs__hmap {
    uint64_t *keys;  /* key per cell */
    uint32_t *vals;  /* value per cell; CS__HEMPTY marks a free cell */
    size_t mask;     /* cells - 1 (power of two) */
    size_t n;        /* entries */
} cs__hmap_t;

#define CS__HEMPTY UINT32_MAX

int cs__hmap_init(cs__hmap_t *m, size_t cap);  /* 0 ok, -1 no memory */
void cs__hmap_free(cs__hmap_t *m);
void cs__hmap_clear(cs__hmap_t *m);
/* Insert (key, val); val != CS__HEMPTY.  0 ok, -1 no memory (map unchanged). */
int cs__hmap_put(cs__hmap_t *m, uint64_t key, uint32_t val);
/* Walk values stored under key: start with *it = SIZE_MAX; returns the next
 * value or CS__HEMPTY when done. */
uint32_t cs__hmap_next(const cs__hmap_t *m, uint64_t key, size_t *it);
/* Remove the entry (key, val); returns 1 if found. */
int cs__hmap_del(cs__hmap_t *m, uint64_t key, uint32_t val);
size_t cs__hmap_bytes(const cs__hmap_t *m);

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
