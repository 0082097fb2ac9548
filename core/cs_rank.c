/*
 * cs_rank.c -- the persistent ranking of eip1559's carried timers
 * (cs_rank.h; issue 26, DESIGN-NOTES N80-N82).  CIP-1 rev §3 steps 6-7.
 */
#include "cs_rank.h"
#include "cs_mech_int.h"
#include "cs_sched_int.h"

#include <stdlib.h>
#include <string.h>

enum { CS__RK_U = 1, CS__RK_C = 2, CS__RK_B = 3 };

static int cs__rk_grow(void **p, size_t n, size_t sz)
{
    void *q = realloc(*p, n * sz);
    if (!q) return -1;
    *p = q;
    return 0;
}

/* Per-slot arrays for slots 0..need-1. */
static int cs__rk_reserve(cs__rank_t *r, size_t need)
{
    if (need <= r->cap) return CS_OK;
    size_t c = r->cap ? r->cap : 1024;
    while (c < need) c *= 2;
    for (int k = 0; k < CS__RK_NHEAP; k++)
        if (cs__rk_grow((void **)&r->pos[k], c, sizeof(uint32_t))) return CS_ENOMEM;
    if (cs__rk_grow((void **)&r->cls, c, 1) || cs__rk_grow((void **)&r->since, c, sizeof *r->since) ||
        cs__rk_grow((void **)&r->sil, c, sizeof *r->sil) || cs__rk_grow((void **)&r->mf, c, sizeof *r->mf) ||
        cs__rk_grow((void **)&r->mp, c, sizeof *r->mp) || cs__rk_grow((void **)&r->exp, c, sizeof *r->exp))
        return CS_ENOMEM;
    memset(r->cls + r->cap, 0, c - r->cap);
    memset(r->sil + r->cap, 0, (c - r->cap) * sizeof *r->sil);
    r->cap = c;
    return CS_OK;
}

void cs__rank_free(cs__rank_t *r)
{
    for (int k = 0; k < CS__RK_NHEAP; k++) {
        free(r->h[k].a);
        free(r->pos[k]);
    }
    free(r->cls);
    free(r->since);
    free(r->sil);
    free(r->mf);
    free(r->mp);
    free(r->exp);
    free(r->acnt);
    memset(r, 0, sizeof *r);
}

/* CIP-1 rev §3 step 7's tie-break: timer_id, then schedule_block, ascending. */
static int cs__rk_tie(const cs_sched_t *s, uint32_t a, uint32_t b)
{
    int c = cs__id_cmp(&s->pool[a].id, &s->pool[b].id);
    if (c) return c < 0;
    return s->pool[a].sched_height < s->pool[b].sched_height;
}

/* The three orders of the heaps: an order heap (k1 descending, then the
 * id: its prefix k2, the record only when the prefixes are equal), a max
 * heap (k1 descending) and a min heap (k1 ascending); ties in the last two
 * in any order (they are only scanned against a bound). */
enum { CS__RKT_ORD = 0, CS__RKT_MAX = 1, CS__RKT_MIN = 2 };

static inline int cs__rk_type(int k)
{
    switch (k) {
    case CS__RK_ORD_U:
    case CS__RK_ORD_C:
    case CS__RK_ORD_B:
    case CS__RK_DUE:
        return CS__RKT_ORD;
    case CS__RK_THR_C:
    case CS__RK_FEE_B:
        return CS__RKT_MAX;
    default: /* THR_U, FEE_C, EXP */
        return CS__RKT_MIN;
    }
}

/* Does entry a come before entry b in a heap of order type t?  Inlined
 * with t constant into the sifts below, so each sift compares without
 * dispatching on the heap. */
static inline __attribute__((always_inline)) int cs__rk_lt(const cs_sched_t *s, int t, const cs__rk_ent_t *a,
                                                           const cs__rk_ent_t *b)
{
    if (t == CS__RKT_ORD) {
        if (a->k1 != b->k1) return a->k1 > b->k1;
        if (a->k2 != b->k2) return a->k2 < b->k2;
        return cs__rk_tie(s, a->slot, b->slot);
    }
    if (t == CS__RKT_MAX) return a->k1 > b->k1;
    return a->k1 < b->k1;
}

/* The key of slot in heap k (see cs__rk_lt). */
static cs__rk_ent_t cs__rk_ent(const cs_sched_t *s, int k, uint32_t slot)
{
    const cs__rank_t *r = &s->rank;
    cs_u128 mf = r->mf[slot], mp = r->mp[slot];
    cs__rk_ent_t e = {.k1 = 0, .k2 = 0, .slot = slot};
    switch (k) {
    case CS__RK_ORD_U: e.k1 = mp; break;
    case CS__RK_ORD_C: e.k1 = mf; break;
    case CS__RK_THR_U: e.k1 = mf - mp; break;            /* members of U have max_fee >= max_prio */
    case CS__RK_THR_C: e.k1 = mf >= mp ? mf - mp + 1 : 0; break; /* 0: never uncapped */
    case CS__RK_FEE_C:
    case CS__RK_FEE_B: e.k1 = mf; break;
    case CS__RK_EXP: e.k1 = r->exp[slot]; break;
    case CS__RK_DUE: e.k1 = cs__rank_rate(s, slot); break;
    default: break;
    }
    if (k <= CS__RK_ORD_B || k == CS__RK_DUE) e.k2 = cs__id_prefix(&s->pool[slot].id);
    return e;
}

static void cs__rk_set(cs__rank_t *r, int k, size_t i, const cs__rk_ent_t *e)
{
    r->h[k].a[i] = *e;
    r->pos[k][e->slot] = (uint32_t)i;
}

static inline __attribute__((always_inline)) void cs__rk_up_t(cs_sched_t *s, int k, size_t i, int t)
{
    cs__rank_t *r = &s->rank;
    cs__rk_ent_t x = r->h[k].a[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!cs__rk_lt(s, t, &x, &r->h[k].a[p])) break;
        cs__rk_set(r, k, i, &r->h[k].a[p]);
        i = p;
    }
    cs__rk_set(r, k, i, &x);
}

static inline __attribute__((always_inline)) void cs__rk_down_t(cs_sched_t *s, int k, size_t i, int t)
{
    cs__rank_t *r = &s->rank;
    cs__rk_heap_t *h = &r->h[k];
    cs__rk_ent_t x = h->a[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && cs__rk_lt(s, t, &h->a[c + 1], &h->a[c])) c++;
        if (!cs__rk_lt(s, t, &h->a[c], &x)) break;
        cs__rk_set(r, k, i, &h->a[c]);
        i = c;
    }
    cs__rk_set(r, k, i, &x);
}

/* Sift entry i of heap k up (towards the top) / down to its place. */
static void cs__rk_up(cs_sched_t *s, int k, size_t i)
{
    switch (cs__rk_type(k)) {
    case CS__RKT_ORD: cs__rk_up_t(s, k, i, CS__RKT_ORD); break;
    case CS__RKT_MAX: cs__rk_up_t(s, k, i, CS__RKT_MAX); break;
    default: cs__rk_up_t(s, k, i, CS__RKT_MIN); break;
    }
}

static void cs__rk_down(cs_sched_t *s, int k, size_t i)
{
    switch (cs__rk_type(k)) {
    case CS__RKT_ORD: cs__rk_down_t(s, k, i, CS__RKT_ORD); break;
    case CS__RKT_MAX: cs__rk_down_t(s, k, i, CS__RKT_MAX); break;
    default: cs__rk_down_t(s, k, i, CS__RKT_MIN); break;
    }
}

static int cs__rk_push(cs_sched_t *s, int k, uint32_t slot)
{
    cs__rk_heap_t *h = &s->rank.h[k];
    if (h->n == h->cap) {
        size_t c = h->cap ? h->cap * 2 : 1024;
        if (cs__rk_grow((void **)&h->a, c, sizeof *h->a)) return CS_ENOMEM;
        h->cap = c;
    }
    h->a[h->n++] = cs__rk_ent(s, k, slot);
    cs__rk_up(s, k, h->n - 1);
    return CS_OK;
}

static void cs__rk_remove(cs_sched_t *s, int k, uint32_t slot)
{
    cs__rank_t *r = &s->rank;
    cs__rk_heap_t *h = &r->h[k];
    size_t i = r->pos[k][slot];
    cs__rk_ent_t last = h->a[--h->n];
    if (i == h->n) return;
    cs__rk_set(r, k, i, &last);
    cs__rk_up(s, k, i);
    cs__rk_down(s, k, r->pos[k][last.slot]);
}

/* The class of slot at basefee bf (cs_rank.h). */
static int cs__rk_class(const cs__rank_t *r, uint32_t slot, cs_u128 bf)
{
    cs_u128 mf = r->mf[slot], mp = r->mp[slot];
    if (mf < bf) return CS__RK_B;
    if (mf >= mp && mf - mp >= bf) return CS__RK_U;
    return CS__RK_C;
}

/* The heaps of class c, besides the expiry heap. */
static int cs__rk_heaps(int c, int out[3])
{
    if (c == CS__RK_U) {
        out[0] = CS__RK_ORD_U;
        out[1] = CS__RK_THR_U;
        return 2;
    }
    if (c == CS__RK_C) {
        out[0] = CS__RK_ORD_C;
        out[1] = CS__RK_THR_C;
        out[2] = CS__RK_FEE_C;
        return 3;
    }
    out[0] = CS__RK_ORD_B;
    out[1] = CS__RK_FEE_B;
    return 2;
}

static int cs__rk_enter(cs_sched_t *s, uint32_t slot, int c)
{
    int hs[3], nh = cs__rk_heaps(c, hs);
    s->rank.cls[slot] = (uint8_t)c;
    for (int j = 0; j < nh; j++)
        if (cs__rk_push(s, hs[j], slot) != CS_OK) return CS_ENOMEM;
    return CS_OK;
}

static void cs__rk_leave(cs_sched_t *s, uint32_t slot)
{
    int hs[3], nh = cs__rk_heaps(s->rank.cls[slot], hs);
    for (int j = 0; j < nh; j++) cs__rk_remove(s, hs[j], slot);
    s->rank.cls[slot] = 0;
}

int cs__rank_indexable(const cs_sched_t *s, uint32_t slot)
{
    const cs_timer_money_t *m = cs__rec_money(s, slot);
    /* Fixed caps (CS_TF_HAS_FEES): the default GBA's caps move with the
     * block; a max_fee below 2^64 keeps W x rate below 2^128 (no saturation). */
    return (s->hot[slot].flags & CS_TF_HAS_FEES) && m != NULL && (m->max_fee >> 64) == 0;
}

int cs__rank_add(cs_sched_t *s, uint32_t slot, uint64_t since)
{
    cs__rank_t *r = &s->rank;
    if (cs__rk_reserve(r, s->pool_cap) != CS_OK) return CS_ENOMEM;
    const cs_timer_money_t *m = cs__rec_money(s, slot);
    const cs_timer_t *t = &s->pool[slot];
    r->mf[slot] = m->max_fee;
    r->mp[slot] = m->max_prio;
    r->exp[slot] = m->expires_at;
    r->since[slot] = since;
    if (r->n == 0 || t->gas_limit < r->gmin) r->gmin = t->gas_limit;
    if (r->n == 0 || t->gas_limit > r->gmax) r->gmax = t->gas_limit;
    if (r->n == 0 || t->max_cells > r->cmax) r->cmax = t->max_cells;
    if (r->n == 0 || m->max_fee > r->fmax) r->fmax = m->max_fee;
    uint32_t payer = cs__rec_payer(s, slot);
    if (payer >= r->acap) {
        size_t c = r->acap ? r->acap : 64;
        while (c <= payer) c *= 2;
        if (cs__rk_grow((void **)&r->acnt, c, sizeof *r->acnt)) return CS_ENOMEM;
        memset(r->acnt + r->acap, 0, (c - r->acap) * sizeof *r->acnt);
        r->acap = c;
    }
    /* On failure the caller drops the ranking (slot is carried, so
     * cs__rank_drop finds it however few heaps it reached). */
    if (cs__rk_enter(s, slot, cs__rk_class(r, slot, r->bf)) != CS_OK) return CS_ENOMEM;
    if (r->exp[slot] != 0 && cs__rk_push(s, CS__RK_EXP, slot) != CS_OK) return CS_ENOMEM;
    r->acnt[payer]++;
    r->n++;
    return CS_OK;
}

uint32_t cs__rank_del(cs_sched_t *s, uint32_t slot, uint64_t upto)
{
    cs__rank_t *r = &s->rank;
    if (slot >= r->cap || r->cls[slot] == 0) return 0;
    cs__rk_leave(s, slot);
    if (r->exp[slot] != 0) cs__rk_remove(s, CS__RK_EXP, slot);
    r->acnt[cs__rec_payer(s, slot)]--;
    r->n--;
    uint64_t n = upto > r->since[slot] ? upto - r->since[slot] : 0;
    r->sil[slot] += (uint32_t)n;
    return (uint32_t)n;
}

int cs__rank_rebase(cs_sched_t *s, cs_u128 bf)
{
    cs__rank_t *r = &s->rank;
    r->bf = bf;
    static const int moves[4] = {CS__RK_THR_U, CS__RK_THR_C, CS__RK_FEE_C, CS__RK_FEE_B};
    for (int j = 0; j < 4; j++) {
        cs__rk_heap_t *h = &r->h[moves[j]];
        while (h->n > 0) {
            uint32_t x = h->a[0].slot;
            int c = cs__rk_class(r, x, bf);
            if (c == r->cls[x]) break; /* the top keeps its class, so does the rest */
            cs__rk_leave(s, x);
            /* Out of memory half way: x may sit in some heaps of class c
             * only; the caller drops the ranking (cs__rank_drop goes by
             * the carry set, not by the heaps). */
            if (cs__rk_enter(s, x, c) != CS_OK) return CS_ENOMEM;
        }
    }
    return CS_OK;
}

cs_u128 cs__rank_rate(const cs_sched_t *s, uint32_t slot)
{
    const cs__rank_t *r = &s->rank;
    cs_u128 mf = r->mf[slot], mp = r->mp[slot];
    if (mf < r->bf) return 0;
    return mp < mf - r->bf ? mp : mf - r->bf;
}

int cs__rank_before(const cs_sched_t *s, uint32_t a, uint32_t b)
{
    cs_u128 ra = cs__rank_rate(s, a), rb = cs__rank_rate(s, b);
    if (ra != rb) return ra > rb;
    return cs__rk_tie(s, a, b);
}

uint32_t cs__rank_top(const cs_sched_t *s)
{
    const cs__rank_t *r = &s->rank;
    uint32_t best = CS_NIL;
    for (int k = CS__RK_ORD_U; k <= CS__RK_ORD_B; k++) {
        if (r->h[k].n == 0) continue;
        uint32_t x = r->h[k].a[0].slot;
        if (best == CS_NIL || cs__rank_before(s, x, best)) best = x;
    }
    return best;
}

uint32_t cs__rank_next_expiry(const cs_sched_t *s)
{
    const cs__rk_heap_t *h = &s->rank.h[CS__RK_EXP];
    return h->n ? h->a[0].slot : CS_NIL;
}

void cs__rank_set_expiry(cs_sched_t *s, uint32_t slot)
{
    cs__rank_t *r = &s->rank;
    if (slot >= r->cap || r->cls[slot] == 0) return;
    if (r->exp[slot] != 0) cs__rk_remove(s, CS__RK_EXP, slot);
    r->exp[slot] = cs__rec_expires_at(s, slot);
    /* No room for the entry: every member gets a row again (full path
     * next, with the deferrals it was owed up to this block). */
    if (r->exp[slot] != 0 && cs__rk_push(s, CS__RK_EXP, slot) != CS_OK) cs__rank_drop(s, s->cur);
}

int cs__rank_due_push(cs_sched_t *s, uint32_t slot)
{
    cs__rank_t *r = &s->rank;
    if (cs__rk_reserve(r, s->pool_cap) != CS_OK) return CS_ENOMEM;
    const cs_timer_money_t *m = cs__rec_money(s, slot);
    r->mf[slot] = m->max_fee;
    r->mp[slot] = m->max_prio;
    return cs__rk_push(s, CS__RK_DUE, slot);
}

uint32_t cs__rank_due_pop(cs_sched_t *s)
{
    cs__rk_heap_t *h = &s->rank.h[CS__RK_DUE];
    if (h->n == 0) return CS_NIL;
    uint32_t x = h->a[0].slot;
    cs__rk_remove(s, CS__RK_DUE, x);
    return x;
}

void cs__rank_drop(cs_sched_t *s, uint64_t upto)
{
    cs__rank_t *r = &s->rank;
    /* Every member is carried; going by the carry set also finds a member
     * an allocation failure left outside its heaps. */
    for (size_t i = 0; i < s->n_carry; i++) {
        uint32_t x = s->carry[i];
        if (x >= r->cap || r->cls[x] == 0) continue;
        uint64_t n = upto > r->since[x] ? upto - r->since[x] : 0;
        r->sil[x] += (uint32_t)n;
        r->cls[x] = 0;
    }
    if (r->acnt) memset(r->acnt, 0, r->acap * sizeof *r->acnt);
    for (int k = 0; k < CS__RK_NHEAP; k++) r->h[k].n = 0;
    r->n = 0;
    r->valid = 0;
}
