/* cs_hmap.c -- linear-probing multimap; see cs_hmap.h. */
#include "cs_hmap.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(cs__hcell_t) == 8, "a cell is a key half and a value, 8 bytes");

int cs__hmap_init(cs__hmap_t *m, size_t cap, unsigned load4)
{
    size_t c = 16;
    if (load4 != CS__HMAP_DENSE) load4 = CS__HMAP_HALF;
    while (c / 4 * load4 < cap) c <<= 1;
    if (c - 1 > UINT32_MAX) return -1; /* homes come from the key's low 32 bits */
    m->cells = malloc(c * sizeof *m->cells);
    if (!m->cells) return -1;
    for (size_t i = 0; i < c; i++) m->cells[i].val = CS__HEMPTY;
    m->mask = c - 1;
    m->n = 0;
    m->load4 = load4;
    return 0;
}

void cs__hmap_free(cs__hmap_t *m)
{
    free(m->cells);
    m->cells = NULL;
    m->n = 0;
    m->mask = 0;
}

void cs__hmap_clear(cs__hmap_t *m)
{
    if (m->cells)
        for (size_t i = 0; i <= m->mask; i++) m->cells[i].val = CS__HEMPTY;
    m->n = 0;
}

static void cs__hmap_raw_put(cs__hmap_t *m, uint32_t klo, uint32_t val)
{
    size_t i = klo & m->mask;
    while (m->cells[i].val != CS__HEMPTY) i = (i + 1) & m->mask;
    m->cells[i].klo = klo;
    m->cells[i].val = val;
    m->n++;
}

/* Move every entry into a new table with room for cap entries; the old one
 * is kept on failure.  Entries move in cell order, so entries sharing a
 * key keep their relative order (unless their probe chain wraps past the
 * old table's end). */
static int cs__hmap_rebuild(cs__hmap_t *m, size_t cap)
{
    cs__hmap_t g;
    if (cs__hmap_init(&g, cap, m->load4) != 0) return -1;
    for (size_t i = 0; i <= m->mask; i++)
        if (m->cells[i].val != CS__HEMPTY) cs__hmap_raw_put(&g, m->cells[i].klo, m->cells[i].val);
    cs__hmap_free(m);
    *m = g;
    return 0;
}

/* Double the table; the old one is kept on failure. */
static int cs__hmap_grow(cs__hmap_t *m)
{
    return cs__hmap_rebuild(m, (m->mask + 1) / 4 * m->load4 + 1);
}

int cs__hmap_put(cs__hmap_t *m, uint64_t key, uint32_t val)
{
    if ((m->n + 1) * 4 > (m->mask + 1) * m->load4 && cs__hmap_grow(m) != 0) return -1;
    cs__hmap_raw_put(m, (uint32_t)key, val);
    return 0;
}

uint32_t cs__hmap_next(const cs__hmap_t *m, uint64_t key, size_t *it)
{
    if (m->cells == NULL) return CS__HEMPTY;
    uint32_t klo = (uint32_t)key;
    size_t i = *it == SIZE_MAX ? (klo & m->mask) : ((*it + 1) & m->mask);
    for (;; i = (i + 1) & m->mask) {
        const cs__hcell_t *c = &m->cells[i];
        if (c->val == CS__HEMPTY) {
            *it = i;
            return CS__HEMPTY;
        }
        if (c->klo == klo) {
            *it = i;
            return c->val;
        }
    }
}

int cs__hmap_del(cs__hmap_t *m, uint64_t key, uint32_t val)
{
    if (m->cells == NULL) return 0;
    uint32_t klo = (uint32_t)key;
    size_t i = klo & m->mask;
    for (;; i = (i + 1) & m->mask) {
        if (m->cells[i].val == CS__HEMPTY) return 0;
        if (m->cells[i].klo == klo && m->cells[i].val == val) break;
    }
    /* Backward-shift deletion keeps every probe chain unbroken. */
    size_t j = i;
    for (;;) {
        j = (j + 1) & m->mask;
        if (m->cells[j].val == CS__HEMPTY) break;
        size_t home = m->cells[j].klo & m->mask;
        /* Move j into the hole i if its home is not in (i, j]. */
        int in_range = (i <= j) ? (home > i && home <= j) : (home > i || home <= j);
        if (!in_range) {
            m->cells[i] = m->cells[j];
            i = j;
        }
    }
    m->cells[i].val = CS__HEMPTY;
    m->n--;
    return 1;
}

int cs__hmap_fit(cs__hmap_t *m)
{
    size_t cells = m->mask + 1;
    /* Below an eighth of the maximum load (n < cells x load4 / 32). */
    if (m->cells == NULL || cells <= CS__HMAP_FIT_MIN || m->n * 32 >= cells * m->load4) return 0;
    return cs__hmap_rebuild(m, 2 * m->n + 1);
}

size_t cs__hmap_bytes(const cs__hmap_t *m)
{
    return m->cells ? (m->mask + 1) * sizeof *m->cells : 0;
}
