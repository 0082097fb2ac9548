/* cs_hmap.c -- linear-probing multimap; see cs_hmap.h. */
#include "cs_hmap.h"

#include <stdlib.h>
#include <string.h>

int cs__hmap_init(cs__hmap_t *m, size_t cap)
{
    size_t c = 16;
    while (c < cap * 2) c <<= 1;
    m->keys = malloc(c * sizeof *m->keys);
    m->vals = malloc(c * sizeof *m->vals);
    if (!m->keys || !m->vals) {
        free(m->keys);
        free(m->vals);
        m->keys = NULL;
        m->vals = NULL;
        return -1;
    }
    memset(m->vals, 0xff, c * sizeof *m->vals);
    m->mask = c - 1;
    m->n = 0;
    return 0;
}

void cs__hmap_free(cs__hmap_t *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->n = 0;
    m->mask = 0;
}

void cs__hmap_clear(cs__hmap_t *m)
{
    if (m->vals) memset(m->vals, 0xff, (m->mask + 1) * sizeof *m->vals);
    m->n = 0;
}

static void cs__hmap_raw_put(cs__hmap_t *m, uint64_t key, uint32_t val)
{
    size_t i = (size_t)key & m->mask;
    while (m->vals[i] != CS__HEMPTY) i = (i + 1) & m->mask;
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
}

/* Double the table; the old one is kept on failure. */
static int cs__hmap_grow(cs__hmap_t *m)
{
    cs__hmap_t g;
    if (cs__hmap_init(&g, m->mask + 1) != 0) return -1;
    for (size_t i = 0; i <= m->mask; i++)
        if (m->vals[i] != CS__HEMPTY) cs__hmap_raw_put(&g, m->keys[i], m->vals[i]);
    cs__hmap_free(m);
    *m = g;
    return 0;
}

int cs__hmap_put(cs__hmap_t *m, uint64_t key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->mask + 1 && cs__hmap_grow(m) != 0) return -1;
    cs__hmap_raw_put(m, key, val);
    return 0;
}

uint32_t cs__hmap_next(const cs__hmap_t *m, uint64_t key, size_t *it)
{
    size_t i = *it == SIZE_MAX ? ((size_t)key & m->mask) : ((*it + 1) & m->mask);
    if (m->vals == NULL) return CS__HEMPTY;
    for (;; i = (i + 1) & m->mask) {
        if (m->vals[i] == CS__HEMPTY) {
            *it = i;
            return CS__HEMPTY;
        }
        if (m->keys[i] == key) {
            *it = i;
            return m->vals[i];
        }
    }
}

int cs__hmap_del(cs__hmap_t *m, uint64_t key, uint32_t val)
{
    if (m->vals == NULL) return 0;
    size_t i = (size_t)key & m->mask;
    for (;; i = (i + 1) & m->mask) {
        if (m->vals[i] == CS__HEMPTY) return 0;
        if (m->keys[i] == key && m->vals[i] == val) break;
    }
    /* Backward-shift deletion keeps every probe chain unbroken. */
    size_t j = i;
    for (;;) {
        j = (j + 1) & m->mask;
        if (m->vals[j] == CS__HEMPTY) break;
        size_t home = (size_t)m->keys[j] & m->mask;
        /* Move j into the hole i if its home is not in (i, j]. */
        int in_range = (i <= j) ? (home > i && home <= j) : (home > i || home <= j);
        if (!in_range) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            i = j;
        }
    }
    m->vals[i] = CS__HEMPTY;
    m->n--;
    return 1;
}

size_t cs__hmap_bytes(const cs__hmap_t *m)
{
    return m->vals ? (m->mask + 1) * (sizeof *m->keys + sizeof *m->vals) : 0;
}
