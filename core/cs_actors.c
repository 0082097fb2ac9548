/*
 * cs_actors.c -- the scheduler's actor table (cs_sched_int.h): 20-byte
 * addresses interned to dense indices, which are the per-actor index of
 * CIP-5 §8 and each actor's ledger account.  The store (cs_sched.c) and
 * the money side (cs_fees.c) intern actors on first use.
 */
#include "cs_sched_int.h"

#include <stdint.h>
#include <string.h>

/* The actor map's key of address a. */
static uint64_t cs__addr_key(const cs_addr_t *a)
{
    uint64_t k = cs__load64(a->b) ^ cs__mix64(cs__load64(a->b + 8));
    uint32_t t;
    memcpy(&t, a->b + 16, 4);
    return cs__mix64(k ^ ((uint64_t)t << 17));
}

int cs__actor_intern(cs_sched_t *s, const cs_addr_t *a, uint32_t *out)
{
    uint64_t k = cs__addr_key(a);
    size_t it = SIZE_MAX;
    for (uint32_t v; (v = cs__hmap_next(&s->actor_map, k, &it)) != CS__HEMPTY;)
        if (memcmp(s->actors[v].addr.b, a->b, CS_ADDR_LEN) == 0) {
            *out = v;
            return CS_OK;
        }
    if (cs__sched_grow((void **)&s->actors, &s->actors_cap, s->n_actors + 1, sizeof *s->actors) != 0) return CS_ENOMEM;
    uint32_t idx = (uint32_t)s->n_actors;
    if (cs__hmap_put(&s->actor_map, k, idx) != 0) return CS_ENOMEM;
    cs_actor_rec_t *r = &s->actors[idx];
    memset(r, 0, sizeof *r);
    r->addr = *a;
    r->deployer = idx;
    s->n_actors++;
    *out = idx;
    return CS_OK;
}

int cs__actor_intern_hint(cs_sched_t *s, const cs_addr_t *a, uint32_t hint, uint32_t *out)
{
    /* Addresses are interned once each, so an index whose address is a
     * is the one the map would find. */
    if (hint != 0 && hint - 1 < s->n_actors && memcmp(s->actors[hint - 1].addr.b, a->b, CS_ADDR_LEN) == 0) {
        *out = hint - 1;
        return CS_OK;
    }
    return cs__actor_intern(s, a, out);
}

int cs__actor_lookup(const cs_sched_t *s, const cs_addr_t *a, uint32_t *out)
{
    uint64_t k = cs__addr_key(a);
    size_t it = SIZE_MAX;
    for (uint32_t v; (v = cs__hmap_next(&s->actor_map, k, &it)) != CS__HEMPTY;)
        if (memcmp(s->actors[v].addr.b, a->b, CS_ADDR_LEN) == 0) {
            *out = v;
            return CS_OK;
        }
    return CS_ETIMER_NOT_FOUND;
}
