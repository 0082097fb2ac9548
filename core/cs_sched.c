/*
 * cs_sched.c -- timer store, indices, transactions and the end-of-block
 * pipeline.  See cs_sched.h for the contract and DESIGN §2.3 for the steps.
 */
#include "cs_sched.h"
#include "cs_fees.h"
#include "cs_hmap.h"
#include "cs_mech_bias.h"
#include "cs_sched_int.h"

#include <nettle/sha3.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

/* A zero staged schedule, copied into each new one (cs_sched_schedule). */
static const cs__staged_t cs__zero_staged;

/* Little-endian 64-bit load and store (Keccak lanes). */
static uint64_t cs__le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static void cs__le64_put(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

static void cs__be64(uint8_t *out, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        out[i] = (uint8_t)v;
        v >>= 8;
    }
}

/* Zero-filled and never written (cs_sched_int.h): in .bss, so its pages
 * cost no memory until read, and then only the shared zero page. */
uint8_t cs__zero_payload[CS_MAX_PAYLOAD];

#define CS__GROW(arr, cap, need) cs__sched_grow((void **)&(arr), &(cap), (need), sizeof *(arr))

/*
 * CIP-5 CN §10.1 / §14: deliver_id = keccak256(h[8 BE] || parent_root ||
 * timer_id || fire_seq[4 BE]).  The 76-byte message fits one 136-byte
 * Keccak-256 rate block, so the sponge is done here with one call to
 * nettle's permutation: the message and the Keccak padding (0x01 after the
 * message, 0x80 in the last byte of the rate) are absorbed as little-endian
 * lanes, and the digest is the first 32 bytes of the state -- exactly what
 * cs_keccak256 of the same bytes gives (tests/test_sched.c checks it), with
 * no block buffer or byte-wise squeeze, since this runs once per fire.
 */
/* Load deliver_id's one padded block into the 25 lanes of a fresh state. */
static void cs__deliver_load(uint64_t a[25], uint64_t h, const cs_hash_t *parent_root,
                             const cs_hash_t *timer_id, uint32_t fire_seq)
{
    uint8_t buf[80];
    cs__be64(buf, h);
    memcpy(buf + 8, parent_root->b, 32);
    memcpy(buf + 40, timer_id->b, 32);
    buf[72] = (uint8_t)(fire_seq >> 24);
    buf[73] = (uint8_t)(fire_seq >> 16);
    buf[74] = (uint8_t)(fire_seq >> 8);
    buf[75] = (uint8_t)fire_seq;
    buf[76] = 0x01; /* Keccak padding, first byte (not SHA-3's 0x06) */
    buf[77] = buf[78] = buf[79] = 0;
    memcpy(a, cs_keccak_zero_state, sizeof cs_keccak_zero_state);
    for (unsigned i = 0; i < 10; i++) a[i] = cs__le64(buf + 8 * i);
    a[16] = UINT64_C(0x80) << 56; /* padding, last byte of the 136-byte rate */
}

void cs_deliver_id(uint64_t h, const cs_hash_t *parent_root, const cs_hash_t *timer_id,
                   uint32_t fire_seq, cs_hash_t *out)
{
    struct sha3_state st;
    cs__deliver_load(st.a, h, parent_root, timer_id, fire_seq);
    sha3_permute(&st);
    for (unsigned i = 0; i < 4; i++) cs__le64_put(out->b + 8 * i, st.a[i]);
}

/* The deliver_ids of a block's deliveries, CS_KECCAK_BATCH permutations at
 * a time through cs_keccak_permute_many (the same digests as
 * cs_deliver_id). */
void cs_deliver_id_many(uint64_t h, const cs_hash_t *parent_root, cs_delivery_t *d, size_t n)
{
    uint64_t st[CS_KECCAK_BATCH][25];
    for (size_t k0 = 0; k0 < n; k0 += CS_KECCAK_BATCH) {
        size_t m = n - k0 < CS_KECCAK_BATCH ? n - k0 : CS_KECCAK_BATCH;
        for (size_t j = 0; j < m; j++)
            cs__deliver_load(st[j], h, parent_root, &d[k0 + j].timer_id, d[k0 + j].fire_seq);
        cs_keccak_permute_many(st, m);
        for (size_t j = 0; j < m; j++)
            for (unsigned i = 0; i < 4; i++) cs__le64_put(d[k0 + j].deliver_id.b + 8 * i, st[j][i]);
    }
}

/* Intern a handler name; index 0 is the default handler. */
static int cs__handler_intern(cs_sched_t *s, const char *name, size_t len, uint32_t *out)
{
    for (size_t i = 0; i < s->n_handlers; i++)
        if (strlen(s->handlers[i]) == len && memcmp(s->handlers[i], name, len) == 0) {
            *out = (uint32_t)i;
            return CS_OK;
        }
    if (CS__GROW(s->handlers, s->handlers_cap, s->n_handlers + 1) != 0) return CS_ENOMEM;
    char *c = malloc(len + 1);
    if (!c) return CS_ENOMEM;
    memcpy(c, name, len);
    c[len] = '\0';
    s->handlers[s->n_handlers] = c;
    *out = (uint32_t)s->n_handlers++;
    return CS_OK;
}

/* ---------------------------------------------------------------- pool */

/* The slot allocator (N107).  Freed slots go on a stack, free_slots, and
 * a new record takes its top.  Every 64 blocks cs__slots_compact sorts
 * that stack so the lowest free slots are taken first: after a flood of
 * timers has drained, the live records gather at the low end of the
 * per-slot tables again instead of staying scattered through them.
 * Beside it runs lfree, the stack the allocator would have without the
 * sort: each slot's live record carries the logical slot it would have
 * had (lid), which is all the sort could change that a user sees -- the
 * order of the /timers rows written at the close (cs_sched_slot_order). */
static inline void cs__slot_push(cs_sched_t *s, uint32_t slot)
{
    s->lfree[s->n_free] = s->lid[slot];
    s->free_slots[s->n_free++] = slot;
}

static int cs__slot_alloc(cs_sched_t *s, uint32_t *out)
{
    if (s->n_free > 0) {
        --s->n_free;
        *out = s->free_slots[s->n_free];
        s->lid[*out] = s->lfree[s->n_free];
        /* A reused slot starts with no silent deferrals (N80). */
        if (*out < s->rank.cap) s->rank.sil[*out] = 0;
        return CS_OK;
    }
    if (s->pool_n == s->pool_cap) {
        size_t nc = s->pool_cap ? s->pool_cap * 2 : 1024;
        if (nc > (size_t)UINT32_MAX - 1) return CS_ENOMEM;
        /* The free stacks and the retired list hold distinct slots, so at
         * capacity pool_cap none can overflow and retiring never fails.
         * Grow them first: pool_cap only moves once all have room. */
        uint32_t *nf = realloc(s->free_slots, nc * sizeof *nf);
        if (!nf) return CS_ENOMEM;
        s->free_slots = nf;
        nf = realloc(s->lfree, nc * sizeof *nf);
        if (!nf) return CS_ENOMEM;
        s->lfree = nf;
        nf = realloc(s->lid, nc * sizeof *nf);
        if (!nf) return CS_ENOMEM;
        s->lid = nf;
        if (s->retired_cap < nc) {
            uint32_t *nr = realloc(s->retired, nc * sizeof *nr);
            if (!nr) return CS_ENOMEM;
            s->retired = nr;
            s->retired_cap = nc;
        }
        /* Hot parts 64-byte aligned, so a pair of records never straddles
         * a cache line (aligned_alloc has no realloc: copy the used part). */
        cs_timer_hot_t *nh = aligned_alloc(64, nc * sizeof *nh);
        if (!nh) return CS_ENOMEM;
        cs_timer_t *np = realloc(s->pool, nc * sizeof *np);
        if (!np) {
            free(nh);
            return CS_ENOMEM;
        }
        if (s->pool_n) memcpy(nh, s->hot, s->pool_n * sizeof *nh);
        free(s->hot);
        s->hot = nh;
        s->pool = np;
        s->pool_cap = nc;
    }
    s->pool[s->pool_n].money = CS_NIL;
    *out = (uint32_t)s->pool_n++;
    s->lid[*out] = *out;
    if (*out < s->rank.cap) s->rank.sil[*out] = 0;
    return CS_OK;
}

/* A money entry holding *m for the record in slot (CS_NIL in its cold part
 * when the timer has no bid, no fee caps, no expiry, no other fee payer
 * than its owner and the default handler: nothing is stored).  CS_OK or
 * CS_ENOMEM with the record unchanged. */
static int cs__money_attach(cs_sched_t *s, uint32_t slot, const cs_timer_money_t *m, int has_fees)
{
    s->pool[slot].money = CS_NIL;
    if (!has_fees && m->bid == 0 && m->expires_at == 0 && m->fee_payer == s->pool[slot].actor && m->handler == 0)
        return CS_OK;
    uint32_t i;
    if (s->n_money_free > 0) {
        i = s->money_free[--s->n_money_free];
    } else {
        if (s->n_money == s->money_cap) {
            size_t nc = s->money_cap ? s->money_cap + s->money_cap / 2 : 1024;
            if (nc > (size_t)UINT32_MAX - 1) return CS_ENOMEM;
            uint32_t *nf = realloc(s->money_free, nc * sizeof *nf);
            if (!nf) return CS_ENOMEM;
            s->money_free = nf;
            cs_timer_money_t *nm = realloc(s->money, nc * sizeof *nm);
            if (!nm) return CS_ENOMEM;
            s->money = nm;
            s->money_cap = nc;
        }
        i = (uint32_t)s->n_money++;
    }
    s->money[i] = *m;
    s->pool[slot].money = i;
    return CS_OK;
}

/* Return the record's money entry, if any, to the free list.  A released
 * slot keeps its entry until the slot is reused: the engine writes a
 * finished timer's /timers row (with its bid) after the block. */
static void cs__money_detach(cs_sched_t *s, uint32_t slot)
{
    uint32_t i = s->pool[slot].money;
    if (i == CS_NIL) return;
    s->money_free[s->n_money_free++] = i;
    if (s->n_money_free > s->money_free_hw) s->money_free_hw = s->n_money_free;
    s->pool[slot].money = CS_NIL;
}

/* Slots and payloads released during a block are returned only when the
 * block's deliveries have executed, so delivery pointers stay valid. */
static int cs__slot_retire(cs_sched_t *s, uint32_t slot)
{
    if (CS__GROW(s->retired, s->retired_cap, s->n_retired + 1) != 0) return CS_ENOMEM;
    s->retired[s->n_retired++] = slot;
    return CS_OK;
}

void cs__retired_release(cs_sched_t *s)
{
    for (size_t i = 0; i < s->n_retired; i++) {
        uint32_t slot = s->retired[i];
        cs_timer_t *t = &s->pool[slot];
        if (t->payload) {
            free(t->payload);
            t->payload = NULL;
        }
        s->hot[slot].flags = 0;
        cs__slot_push(s, slot);
    }
    if (s->n_free > s->free_hw) s->free_hw = s->n_free;
    if (s->n_retired > s->retired_hw) s->retired_hw = s->n_retired;
    s->n_retired = 0;
}

/* Sort the stack a[0..n) descending, so its top (a[n - 1]) is its least
 * entry: an LSD radix sort in three passes of 11 bits through scratch
 * (n entries), skipped when the stack is already in order. */
static void cs__stack_sort_desc(uint32_t *a, size_t n, uint32_t *scratch)
{
    size_t i;
    for (i = 1; i < n && a[i - 1] > a[i]; i++) {
    }
    if (i >= n) return; /* already descending (or fewer than two) */
    uint32_t *src = a, *dst = scratch;
    uint32_t cnt[2048];
    for (int pass = 0; pass < 3; pass++) {
        unsigned sh = 11u * (unsigned)pass;
        memset(cnt, 0, sizeof cnt);
        for (i = 0; i < n; i++) cnt[2047u - ((src[i] >> sh) & 2047u)]++;
        uint32_t sum = 0;
        for (unsigned d = 0; d < 2048; d++) {
            uint32_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++) dst[cnt[2047u - ((src[i] >> sh) & 2047u)]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    /* An odd number of passes: the sorted entries are in the scratch. */
    memcpy(a, scratch, n * sizeof *scratch);
}

/* The lowest free slots to the top of the free stack (N107): only where
 * new records land changes, never what they hold.  Called right after
 * cs__retired_release, so the retired list is empty and serves as the
 * scratch (its capacity is at least pool_cap >= n_free): no allocation.
 * (Sorting the money table's free list the same way measured within
 * noise: not done.) */
void cs__slots_compact(cs_sched_t *s)
{
    if (s->n_retired == 0) cs__stack_sort_desc(s->free_slots, s->n_free, s->retired);
}

size_t cs_sched_slot_order(const cs_sched_t *s, uint32_t *order)
{
    for (size_t l = 0; l < s->pool_n; l++) order[l] = UINT32_MAX;
    for (size_t p = 0; p < s->pool_n; p++)
        if (s->hot[p].flags & CS_TF_LIVE) order[s->lid[p]] = (uint32_t)p;
    return s->pool_n;
}

/* One limb of a multi-limb add: a + e + *carry, the carry out in *carry. */
static inline uint64_t cs__limb_add(uint64_t a, uint64_t e, uint64_t *carry)
{
    uint64_t x = a + e, y = x + *carry;
    *carry = (x < e) | (y < x);
    return y;
}

/* One limb of a multi-limb subtract: a - e - *borrow, the borrow out in *borrow. */
static inline uint64_t cs__limb_sub(uint64_t a, uint64_t e, uint64_t *borrow)
{
    uint64_t x = a - e, y = x - *borrow;
    *borrow = (a < e) | (x < *borrow);
    return y;
}

/* The pending set's multiset hash: the sum mod 2^256 of one element per
 * pending timer (its id with height and rank folded in).  Insert adds,
 * removal subtracts, so the digest of a set does not depend on history. */
void cs__setsum_update(cs_sched_t *s, uint32_t slot, int add)
{
    const uint8_t *id = s->pool[slot].id.b;
    uint64_t e0 = cs__load64(id) ^ cs__mix64(s->hot[slot].height);
    uint64_t e1 = cs__load64(id + 8) ^ cs__mix64(s->hot[slot].fifo_rank ^ 0x9e3779b97f4a7c15ull);
    uint64_t e2 = cs__load64(id + 16), e3 = cs__load64(id + 24);
    /* 256-bit add / subtract mod 2^256 of the limb vectors (limb 0 least
     * significant), one limb at a time with its carry or borrow.  The
     * limbs stay 64-bit words, read and written in place: assembling them
     * into bytes through the stack made each update wait on a failed
     * store-to-load forwarding. */
    uint64_t *a = s->setsum, c = 0;
    if (add) {
        a[0] = cs__limb_add(a[0], e0, &c);
        a[1] = cs__limb_add(a[1], e1, &c);
        a[2] = cs__limb_add(a[2], e2, &c);
        a[3] = cs__limb_add(a[3], e3, &c);
    } else {
        a[0] = cs__limb_sub(a[0], e0, &c);
        a[1] = cs__limb_sub(a[1], e1, &c);
        a[2] = cs__limb_sub(a[2], e2, &c);
        a[3] = cs__limb_sub(a[3], e3, &c);
    }
}

/* ------------------------------------------------------------- id index */

static uint64_t cs__id_key(const cs_hash_t *id)
{
    return cs__load64(id->b);
}

uint32_t cs__id_lookup(const cs_sched_t *s, const cs_hash_t *id)
{
    size_t it = SIZE_MAX;
    for (uint32_t v; (v = cs__hmap_next(&s->id_map, cs__id_key(id), &it)) != CS__HEMPTY;)
        if (memcmp(s->pool[v].id.b, id->b, CS_ID_LEN) == 0) return v;
    return CS_NIL;
}

/* ------------------------------------------------------------- watch */

/* Watch keys are identified by keccak256(key) (CIP-5 CN §6.2 IndexWatch). */
static void cs__key_hash(const uint8_t *key, size_t len, cs_hash_t *out)
{
    cs_keccak256(key, len, out->b);
}

static int cs__watch_add(cs_sched_t *s, uint32_t slot, const cs_hash_t *keys, uint32_t n)
{
    if (CS__GROW(s->wlists, s->wlists_cap, s->n_wlists + 1) != 0) return CS_ENOMEM;
    cs_hash_t *copy = malloc((size_t)n * sizeof *copy);
    if (!copy) return CS_ENOMEM;
    memcpy(copy, keys, (size_t)n * sizeof *copy);
    uint32_t w;
    if (s->n_wfree > 0) w = s->wfree[--s->n_wfree];
    else w = (uint32_t)s->n_wlists++;
    s->wlists[w].keys = copy;
    s->wlists[w].n = n;
    for (uint32_t i = 0; i < n; i++) {
        if (cs__hmap_put(&s->watch_map, cs__load64(copy[i].b), slot) != 0) {
            for (uint32_t j = 0; j < i; j++) cs__hmap_del(&s->watch_map, cs__load64(copy[j].b), slot);
            free(copy);
            s->wlists[w].keys = NULL;
            s->wfree[s->n_wfree++] = w;
            return CS_ENOMEM;
        }
    }
    s->pool[slot].wkeys = w;
    return CS_OK;
}

static void cs__watch_del(cs_sched_t *s, uint32_t slot)
{
    if (s->hot[slot].kind != CS_KIND_WATCH) return; /* wkeys shares the period's place */
    uint32_t w = s->pool[slot].wkeys;
    if (w == CS_NIL) return;
    for (uint32_t i = 0; i < s->wlists[w].n; i++)
        cs__hmap_del(&s->watch_map, cs__load64(s->wlists[w].keys[i].b), slot);
    free(s->wlists[w].keys);
    s->wlists[w].keys = NULL;
    s->wlists[w].n = 0;
    if (CS__GROW(s->wfree, s->wfree_cap, s->n_wfree + 1) == 0) s->wfree[s->n_wfree++] = w;
    s->pool[slot].wkeys = CS_NIL;
}

/* ------------------------------------------------------------ alloc/free */

static void cs__queue_cfg(const cs_params_t *p, cs_queue_cfg_t *qc)
{
    qc->ring_size = (uint32_t)p->ring_size;
    qc->epoch_blocks = (uint32_t)p->epoch_blocks;
    qc->epochs = (uint32_t)p->epochs;
}

int cs_sched_alloc(cs_sched_t **out, const cs_params_t *p, const char *mechanism, uint64_t height)
{
    *out = NULL;
    const cs_mech_ops_t *ops = cs_mech_find(mechanism);
    if (!ops) return CS_EUNKNOWN_MECHANISM;
    cs_sched_t *s = calloc(1, sizeof *s);
    if (!s) return CS_ENOMEM;
    s->p = *p;
    s->height = height;
    s->cur = height;
    int rc = CS_ENOMEM;
    if (cs__hmap_init(&s->id_map, 1024, CS__HMAP_DENSE) != 0 ||
        cs__hmap_init(&s->actor_map, 256, CS__HMAP_HALF) != 0 ||
        cs__hmap_init(&s->watch_map, 64, CS__HMAP_HALF) != 0 ||
        cs__hmap_init(&s->mailbox, 256, CS__HMAP_HALF) != 0)
        goto fail;
    uint32_t h0;
    if (cs__handler_intern(s, CS_DEFAULT_HANDLER, strlen(CS_DEFAULT_HANDLER), &h0) != CS_OK) goto fail;
    cs_queue_cfg_t qc;
    cs__queue_cfg(p, &qc);
    /* cs_queue_alloc's NULL means a bad configuration or no memory: tell
     * them apart here (out of memory was reported as an invalid argument). */
    if (qc.ring_size < 1 || qc.epoch_blocks < 1 || qc.epochs < 1 || qc.epochs == UINT32_MAX) {
        rc = CS_EINVAL;
        goto fail;
    }
    s->q = cs_queue_alloc(&qc, &s->hot, &s->pool, height);
    if (!s->q) goto fail; /* rc is CS_ENOMEM */
    /* CIP-1 rev §13.2: FIFO (CIP-5 as implemented) until H_activation. */
    if (p->activation_height > height + 1 && strcmp(ops->name, "fifo") != 0) {
        rc = cs_mech_open(&s->mech_next, ops, p);
        if (rc != CS_OK) goto fail;
        s->mech_next_open = 1;
        ops = cs_mech_find("fifo");
    }
    rc = cs_mech_open(&s->mech, ops, p);
    if (rc != CS_OK) goto fail;
    s->mech_open = 1;
    rc = cs__fees_init(s);
    if (rc != CS_OK) goto fail;
    *out = s;
    return CS_OK;
fail:
    cs_sched_free(s);
    return rc;
}

void cs_sched_free(cs_sched_t *s)
{
    if (!s) return;
    if (s->tx_open) cs_sched_tx_rollback(s);
    cs__retired_release(s);
    for (size_t i = 0; i < s->pool_n; i++)
        if (s->hot[i].flags & CS_TF_LIVE) free(s->pool[i].payload);
    for (size_t i = 0; i < s->n_wlists; i++) free(s->wlists[i].keys);
    for (size_t i = 0; i < s->n_handlers; i++) free(s->handlers[i]);
    cs__fees_free(s);
    cs__rank_free(&s->rank);
    if (s->mech_open) cs_mech_close(&s->mech);
    if (s->mech_next_open) cs_mech_close(&s->mech_next);
    cs_queue_free(s->q);
    cs__hmap_free(&s->id_map);
    cs__hmap_free(&s->actor_map);
    cs__hmap_free(&s->watch_map);
    cs__hmap_free(&s->mailbox);
    free(s->hot);
    free(s->pool);
    free(s->money);
    free(s->money_free);
    free(s->free_slots);
    free(s->lfree);
    free(s->lid);
    free(s->retired);
    free(s->actors);
    free(s->handlers);
    free(s->wlists);
    free(s->wfree);
    free(s->ops);
    free(s->staged);
    free(s->modkeys);
    free(s->carry);
    free(s->gcq);
    cs_slotvec_free(&s->due);
    free(s->cands);
    free(s->rows);
    free(s->deliv);
    free(s->trig);
    free(s->cmark);
    free(s->crow);
    free(s->order);
    free(s->rsel);
    free(s->cfired);
    free(s->mbox_ids);
    free(s);
}

void cs_sched_set_hooks(cs_sched_t *s, const cs_sched_hooks_t *h)
{
    if (h) s->hooks = *h;
    else memset(&s->hooks, 0, sizeof s->hooks);
}

int cs_sched_set_params(cs_sched_t *s, const cs_params_t *p)
{
    if (p->ring_size != s->p.ring_size || p->epoch_blocks != s->p.epoch_blocks ||
        p->epochs != s->p.epochs || p->basefee_window != s->p.basefee_window)
        return CS_EINVAL;
    s->p = *p;
    return CS_OK;
}

const cs_params_t *cs_sched_params(const cs_sched_t *s) { return &s->p; }
void cs_sched_set_paused(cs_sched_t *s, int paused) { s->paused = paused ? 1 : 0; }
size_t cs_sched_pool_size(const cs_sched_t *s) { return s->pool_n; }
uint64_t cs_sched_height(const cs_sched_t *s) { return s->height; }
uint64_t cs_sched_pending(const cs_sched_t *s) { return s->n_pending; }
uint64_t cs_sched_carried(const cs_sched_t *s) { return s->n_carry; }

void cs_sched_set_ranking(cs_sched_t *s, int incremental) { s->rank_on = incremental != 0; }

void cs_sched_set_dense(cs_sched_t *s, int dense) { s->sparse_slots = dense == 0; }

uint32_t cs_sched_silent(const cs_sched_t *s, uint32_t slot)
{
    const cs__rank_t *r = &s->rank;
    if (slot >= r->cap) return 0;
    if (r->cls[slot] != 0) return (uint32_t)(s->height + 1 > r->since[slot] ? s->height + 1 - r->since[slot] : 0);
    return r->sil[slot];
}

void cs_sched_prefetch_end(const cs_sched_t *s, uint32_t slot)
{
    if (slot >= s->pool_n) return;
    __builtin_prefetch(&s->hot[slot]);
    uint32_t m = s->pool[slot].money;
    if (m != CS_NIL) __builtin_prefetch(&s->money[m]);
    const cs__rank_t *r = &s->rank;
    if (slot < r->cap) {
        __builtin_prefetch(&r->cls[slot]);
        __builtin_prefetch(&r->sil[slot]);
    }
}

void cs_sched_mem(const cs_sched_t *s, cs_sched_mem_t *m)
{
    memset(m, 0, sizeof *m);
    m->slots = s->pool_n;
    m->slots_cap = s->pool_cap;
    m->hot_bytes = s->pool_n * sizeof *s->hot;
    m->hot_cap_bytes = s->pool_cap * sizeof *s->hot;
    m->cold_bytes = s->pool_n * sizeof *s->pool;
    m->cold_cap_bytes = s->pool_cap * sizeof *s->pool;
    m->money_bytes = s->n_money * sizeof *s->money;
    m->money_cap_bytes = s->money_cap * sizeof *s->money;
    m->id_map_bytes = cs__hmap_bytes(&s->id_map);
    m->queue_bytes = cs_queue_bytes(s->q);
    /* The free stack and its logical mirror (lfree) reach free_hw entries;
     * every used slot has its logical slot (lid, N107). */
    m->lists_bytes = (2 * s->free_hw + s->pool_n + s->retired_hw + s->money_free_hw) * sizeof(uint32_t);
    m->lists_cap_bytes = (3 * s->pool_cap + s->retired_cap + s->money_cap) * sizeof(uint32_t);
}
const cs_hash_t *cs_sched_digest(const cs_sched_t *s) { return &s->digest; }
const cs_mech_t *cs_sched_mech(const cs_sched_t *s) { return &s->mech; }
void cs_sched_lambda_observe(cs_sched_t *s, int violated) { cs_mech_lambda_observe(&s->mech, violated); }

uint64_t cs_sched_handler_txs(const cs_sched_t *s, uint64_t limit, uint64_t used, uint64_t requested)
{
    /* CIP-5 §6.2: up to handler_deferred_max, each handler_deferred_cycles
     * of the handler's own budget (N67). */
    uint64_t per = s->p.handler_deferred_cycles, fit = per && limit > used ? (limit - used) / per : 0;
    return CS_MIN(requested, CS_MIN(s->p.handler_deferred_max, fit));
}

int cs_sched_defer_tx(cs_sched_t *s)
{
    if (!s->in_fire) return CS_EINVAL;
    if (s->fire_defer_req < UINT32_MAX) s->fire_defer_req++;
    return CS_OK;
}

const cs_timer_t *cs_sched_record(const cs_sched_t *s, uint32_t slot)
{
    return slot < s->pool_n ? &s->pool[slot] : NULL;
}

const cs_timer_hot_t *cs_sched_hot(const cs_sched_t *s, uint32_t slot)
{
    return slot < s->pool_n ? &s->hot[slot] : NULL;
}

cs_u128 cs_sched_bid(const cs_sched_t *s, uint32_t slot)
{
    return slot < s->pool_n ? cs__rec_bid(s, slot) : 0;
}

uint64_t cs_sched_expires_at(const cs_sched_t *s, uint32_t slot)
{
    return slot < s->pool_n ? cs__rec_expires_at(s, slot) : 0;
}

const cs_timer_t *cs_sched_find(const cs_sched_t *s, const cs_hash_t *id)
{
    uint32_t slot = cs__id_lookup(s, id);
    return slot == CS_NIL ? NULL : &s->pool[slot];
}

uint32_t cs_sched_actor_pending(const cs_sched_t *s, const cs_addr_t *a)
{
    uint32_t idx;
    if (cs__actor_lookup(s, a, &idx) != CS_OK) return 0;
    return s->actors[idx].pending;
}

const cs_addr_t *cs_sched_actor_addr(const cs_sched_t *s, uint32_t actor)
{
    return actor < s->n_actors ? &s->actors[actor].addr : NULL;
}

int cs_sched_mailbox_put(cs_sched_t *s, const cs_hash_t *deliver_id)
{
    uint64_t k = cs__load64(deliver_id->b);
    size_t it = SIZE_MAX;
    for (uint32_t v; (v = cs__hmap_next(&s->mailbox, k, &it)) != CS__HEMPTY;)
        if (memcmp(s->mbox_ids[v].b, deliver_id->b, CS_ID_LEN) == 0) return 0;
    if (CS__GROW(s->mbox_ids, s->mbox_cap, s->n_mbox + 1) != 0) return -CS_ENOMEM;
    if (cs__hmap_put(&s->mailbox, k, (uint32_t)s->n_mbox) != 0) return -CS_ENOMEM;
    s->mbox_ids[s->n_mbox++] = *deliver_id;
    return 1;
}

size_t cs_sched_mailbox_size(const cs_sched_t *s) { return s->n_mbox; }

/* ---------------------------------------------------- block start (step 1) */

int cs_sched_begin_block(cs_sched_t *s, uint64_t h)
{
    if (s->tx_open) return CS_ETX_OPEN;
    if (h != s->height + 1) return CS_EINVAL;
    int rc = cs_queue_advance(s->q, h);
    if (rc != CS_OK) return rc;
    s->cur = h;
    if (s->mech_next_open && h >= s->p.activation_height) {
        /* CIP-1 rev §13.2 at H_activation: the run's mechanism replaces
         * FIFO; pending timers stay in their buckets and compete under it
         * from this block; the fairness window starts afresh. */
        cs_mech_close(&s->mech);
        s->mech = s->mech_next;
        s->mech_next_open = 0;
        memset(&s->mech_next, 0, sizeof s->mech_next);
        rc = cs__fees_activate(s);
        if (rc != CS_OK) return rc;
    }
    s->blk_sched_cycles = 0;
    s->blk_sched_cost = 0;
    s->blk_cancel_cost = 0;
    s->blk_scheduled = 0;
    s->blk_cancelled = 0;
    /* The mailbox holds one height's materialized entries (CIP-5 CN §10.2);
     * entries of earlier heights have executed. */
    cs__hmap_clear(&s->mailbox);
    s->n_mbox = 0;
    cs__fees_begin_block(s, h);
    return CS_OK;
}

/* -------------------------------------------------- transactions (step 2) */

int cs_sched_tx_begin(cs_sched_t *s)
{
    if (s->tx_open) return CS_ETX_OPEN;
    /* Under gba-tip's first-draft order the block's timers run before its
     * first transaction (CIP-1 first draft §3, N69). */
    if (s->cur == s->height + 1 && s->eob_done != s->cur && cs_sched_timers_first(s)) {
        int rc = cs__eob_timers(s);
        if (rc != CS_OK) return rc;
    }
    s->tx_open = 1;
    s->n_ops = 0;
    s->n_staged = 0;
    s->n_id_later = 0;
    s->n_landed = 0;
    s->tx_modkeys0 = s->n_modkeys;
    return CS_OK;
}

static void cs__staged_drop(cs_sched_t *s)
{
    for (size_t i = 0; i < s->n_staged; i++) {
        free(s->staged[i].rec.payload);
        free(s->staged[i].wkeys);
    }
    s->n_staged = 0;
    s->n_ops = 0;
    s->n_id_later = 0;
}

void cs_sched_tx_rollback(cs_sched_t *s)
{
    if (!s->tx_open) return;
    /* CIP-5 §4.3: on rollback all timer side effects are discarded. */
    for (size_t i = 0; i < s->n_staged; i++) {
        uint32_t a = s->staged[i].rec.actor;
        s->actors[a].staged--;
    }
    for (size_t i = 0; i < s->n_ops; i++)
        if (s->ops[i].type == CS__OP_CANCEL && s->ops[i].slot != CS_NIL)
            s->actors[s->pool[s->ops[i].slot].actor].staged++;
    cs__staged_drop(s);
    s->n_modkeys = s->tx_modkeys0;
    s->tx_open = 0;
}

/* Insert a fully built record into the store and the right index. */
static int cs__insert_record(cs_sched_t *s, const cs_timer_hot_t *hrec, const cs_timer_t *rec,
                             const cs_timer_money_t *money, const cs_hash_t *wkeys, uint32_t n_wkeys,
                             uint32_t *slot_out)
{
    uint32_t slot;
    int rc = cs__slot_alloc(s, &slot);
    if (rc != CS_OK) return rc;
    cs_timer_t *t = &s->pool[slot];
    cs_timer_hot_t *th = &s->hot[slot];
    cs__money_detach(s, slot); /* the slot's previous timer's entry */
    *t = *rec;
    *th = *hrec;
    if (cs__money_attach(s, slot, money, (hrec->flags & CS_TF_HAS_FEES) != 0) != CS_OK) {
        cs__slot_push(s, slot);
        return CS_ENOMEM;
    }
    th->tier = CS_TIER_NONE;
    if (th->kind == CS_KIND_WATCH) t->wkeys = CS_NIL;
    th->flags |= CS_TF_LIVE;
    th->fifo_rank = s->next_rank++;
    if (cs__hmap_put(&s->id_map, cs__id_key(&t->id), slot) != 0) goto nomem;
    if (th->kind == CS_KIND_WATCH) {
        if (cs__watch_add(s, slot, wkeys, n_wkeys) != CS_OK) {
            cs__hmap_del(&s->id_map, cs__id_key(&t->id), slot);
            goto nomem;
        }
    } else {
        rc = cs_queue_insert(s->q, slot);
        if (rc != CS_OK) {
            cs__hmap_del(&s->id_map, cs__id_key(&t->id), slot);
            th->flags = 0;
            cs__money_detach(s, slot);
            cs__slot_push(s, slot);
            return rc;
        }
    }
    rc = cs__fees_on_insert(s, slot);
    if (rc != CS_OK) {
        /* The bid cannot be escrowed any more: the schedule does not land. */
        if (th->kind == CS_KIND_WATCH) cs__watch_del(s, slot);
        else cs_queue_remove(s->q, slot);
        cs__hmap_del(&s->id_map, cs__id_key(&t->id), slot);
        free(t->payload);
        t->payload = NULL;
        th->flags = 0;
        cs__money_detach(s, slot);
        cs__slot_push(s, slot);
        return rc;
    }
    s->actors[t->actor].pending++;
    s->n_pending++;
    s->acct.scheduled++;
    cs__setsum_update(s, slot, 1);
    *slot_out = slot;
    return CS_OK;
nomem:
    th->flags = 0;
    cs__money_detach(s, slot);
    cs__slot_push(s, slot);
    return CS_ENOMEM;
}

/* Take a live record out of every index (queue tier, carry set, GC queue,
 * watch index, id index) and retire its slot. */
void cs__remove_record(cs_sched_t *s, uint32_t slot)
{
    cs_timer_t *t = &s->pool[slot];
    cs_timer_hot_t *th = &s->hot[slot];
    cs__setsum_update(s, slot, 0);
    th->flags &= (uint8_t)~(CS_TF_GC | CS_TF_GC_FUNDS);
    if (th->tier != CS_TIER_NONE) cs_queue_remove(s->q, slot);
    else if (th->flags & CS_TF_CARRIED) {
        (void)cs__rank_del(s, slot, s->cur); /* kept for cs_sched_silent */
        uint32_t i = th->qpos, last = s->carry[--s->n_carry];
        s->carry[i] = last;
        s->hot[last].qpos = i;
    }
    if (th->kind == CS_KIND_WATCH) cs__watch_del(s, slot);
    cs__hmap_del(&s->id_map, cs__id_key(&t->id), slot);
    s->actors[t->actor].pending--;
    s->n_pending--;
    th->flags &= (uint8_t)~(CS_TF_LIVE | CS_TF_CARRIED);
    if (cs__slot_retire(s, slot) != CS_OK) {
        /* No room to defer: the slot leaks until free, which is safe. */
    }
}

static void cs__staged_ids(cs_sched_t *s);

int cs_sched_tx_commit(cs_sched_t *s)
{
    if (!s->tx_open) return CS_ENO_TX;
    /* CIP-5 §4.3: side effects persist after the transaction commits, in
     * the order the transaction made them.  A schedule that cannot be
     * inserted for lack of memory is dropped, and the commit then reports
     * CS_ENOMEM (after applying everything else) so no caller mistakes the
     * lost timer for a success. */
    int err = CS_OK;
    cs__staged_ids(s);
    for (size_t i = 0; i < s->n_ops; i++) {
        cs__op_t *op = &s->ops[i];
        /* A new id's cell in id_map (looked up and put below) is anywhere:
         * fetched a few schedules ahead. */
        if (i + CS__PF_AHEAD < s->n_ops && s->ops[i + CS__PF_AHEAD].type == CS__OP_SCHEDULE)
            CS__HMAP_PREFETCH(&s->id_map, cs__id_key(&s->staged[s->ops[i + CS__PF_AHEAD].slot].rec.id));
        /* So is the record a schedule lands in: the free stack's top is
         * taken first, so a run of schedules takes the slots below it in
         * turn (a guess otherwise, which changes nothing). */
        if (op->type == CS__OP_SCHEDULE && s->n_free > CS__PF_AHEAD)
            CS__PREFETCH_REC(s, s->free_slots[s->n_free - 1 - CS__PF_AHEAD],
                             s->free_slots[s->n_free - 1 - CS__PF_AHEAD / 2]);
        if (op->type == CS__OP_SCHEDULE) {
            cs__staged_t *st = &s->staged[op->slot];
            s->actors[st->rec.actor].staged--;
            st->slot = CS_NIL;
            if (st->cancelled) {
                free(st->rec.payload);
            } else if (st->id_check && cs__id_lookup(s, &st->rec.id) != CS_NIL) {
                /* A late-derived id that is taken: only a Keccak-256
                 * collision can do this (cs_sched_schedule).  The timer
                 * does not land and the commit says why. */
                free(st->rec.payload);
                if (err == CS_OK) err = CS_ETIMER_EXISTS;
            } else {
                int rc = cs__insert_record(s, &st->hot, &st->rec, &st->money, st->wkeys, st->n_wkeys, &st->slot);
                if (rc != CS_OK && rc != CS_EINSUFFICIENT_FUNDS) free(st->rec.payload);
                else s->blk_scheduled++;
                if (rc == CS_ENOMEM && (err == CS_OK || err == CS_ETIMER_EXISTS)) err = CS_ENOMEM;
            }
            st->rec.payload = NULL;
            free(st->wkeys);
            st->wkeys = NULL;
        } else if (op->slot != CS_NIL) {
            s->actors[s->pool[op->slot].actor].staged++;
            if (s->hot[op->slot].flags & CS_TF_LIVE) {
                cs__fees_on_destroy(s, op->slot);
                cs__remove_record(s, op->slot);
                s->acct.cancelled++;
                s->blk_cancelled++;
            }
        }
    }
    s->n_landed = s->n_staged;
    s->n_ops = 0;
    s->n_staged = 0;
    s->tx_open = 0;
    return err;
}

uint32_t cs_sched_tx_slot(const cs_sched_t *s, size_t i)
{
    return i < s->n_landed ? s->staged[i].slot : CS_NIL;
}

static int cs__push_op(cs_sched_t *s, int type, uint32_t slot)
{
    if (CS__GROW(s->ops, s->ops_cap, s->n_ops + 1) != 0) return CS_ENOMEM;
    s->ops[s->n_ops].type = type;
    s->ops[s->n_ops].slot = slot;
    s->n_ops++;
    return CS_OK;
}

/* Derive, in batches, the ids of the staged schedules made with
 * id_at_commit (CIP-5 §3.3, from each record's actor, height, payload as
 * given and nonce). */
static void cs__staged_ids(cs_sched_t *s)
{
    enum { CHUNK = 64 };
    cs_timer_id_in_t in[CHUNK];
    cs_hash_t out[CHUNK];
    size_t idx[CHUNK], m = 0;
    if (s->n_id_later == 0) return;
    for (size_t i = 0; i < s->n_staged; i++) {
        cs__staged_t *st = &s->staged[i];
        if (!st->id_later) continue;
        in[m].actor = &s->actors[st->rec.actor].addr;
        in[m].height = st->hot.height;
        in[m].payload = cs__payload_bytes(st->rec.payload, st->rec.payload_len);
        in[m].payload_len = st->rec.payload_len;
        in[m].nonce = st->nonce;
        idx[m++] = i;
        if (m == CHUNK || i + 1 == s->n_staged) {
            cs_timer_id_many(in, m, out);
            for (size_t j = 0; j < m; j++) {
                s->staged[idx[j]].rec.id = out[j];
                s->staged[idx[j]].id_later = 0;
            }
            m = 0;
        }
    }
    s->n_id_later = 0;
}

/* Whether the len bytes at b are all zero (N100). */
static int cs__all_zero(const uint8_t *b, size_t len)
{
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) acc |= cs__load64(b + i);
    for (; i < len; i++) acc |= b[i];
    return acc == 0;
}

/* Is an id already taken, committed or staged (and not cancelled)? */
static int cs__id_taken(cs_sched_t *s, const cs_hash_t *id)
{
    cs__staged_ids(s);
    if (cs__id_lookup(s, id) != CS_NIL) return 1;
    for (size_t i = 0; i < s->n_staged; i++)
        if (!s->staged[i].cancelled && memcmp(s->staged[i].rec.id.b, id->b, CS_ID_LEN) == 0)
            return 1;
    return 0;
}

int cs_sched_schedule(cs_sched_t *s, const cs_sched_args_t *a, cs_hash_t *id_out, cs_meter_t *meter)
{
    if (!s->tx_open) return CS_ENO_TX;
    /* CIP-5 §4.2 limits; each breach is a named error, never an abort. */
    if (a->payload_len > CS_MAX_PAYLOAD) return CS_EPAYLOAD_TOO_LARGE;
    if (a->payload_len > 0 && a->payload == NULL) return CS_EINVAL;
    if (a->handler && a->handler_len > CS_MAX_HANDLER) return CS_EHANDLER_TOO_LONG;
    if (a->timer_id && a->timer_id_len > CS_MAX_TIMER_ID) return CS_ETIMER_ID_TOO_LONG;
    if (a->kind > CS_KIND_WATCH) return CS_EUNSUPPORTED_TIMER_TYPE;
    if (a->kind == CS_KIND_INTERVAL && a->every_blocks == 0) return CS_EINVALID_PARAM;
    if (a->kind == CS_KIND_WATCH && (a->n_watch == 0 || a->n_watch > CS_MAX_WATCH_KEYS))
        return CS_EINVALID_PARAM;
    /* CIP-5 §4.2 / §5.3: strictly future height -- the same-block prohibition. */
    if (a->kind != CS_KIND_WATCH && a->height <= s->cur) return CS_EHEIGHT_NOT_FUTURE;
    if (a->tier_hint > 3) return CS_EINVALID_PARAM;
    /* CIP-1 rev §13.2: before activation a bid is accepted and ignored (FIFO
     * neither escrows nor reads it), so a pending timer carries none into
     * the auction. */
    cs_sched_args_t pre;
    if (s->mech_next_open && a->has_bid) {
        pre = *a;
        pre.has_bid = 0;
        pre.bid = 0;
        a = &pre;
    }

    uint32_t actor;
    int rc = cs__actor_intern_hint(s, &a->actor, a->actor_hint, &actor);
    if (rc != CS_OK) return rc;
    uint32_t payer = actor;
    if (a->fee_payer && (rc = cs__actor_intern_hint(s, a->fee_payer, a->payer_hint, &payer)) != CS_OK) return rc;
    /* CIP-5 §8: MAX_TIMERS_PER_ACTOR through the per-actor index, counting
     * what this transaction has staged. */
    cs_actor_rec_t *ar = &s->actors[actor];
    /* staged is a net count kept modulo 2^32 (cancelling a committed timer
     * takes one back and may take it below zero), so add in 32 bits. */
    if ((uint64_t)(uint32_t)(ar->pending + ar->staged) >= s->p.max_timers_per_actor)
        return CS_ETOO_MANY_TIMERS;

    cs_timer_t rec;
    cs_timer_hot_t hrec;
    cs_timer_money_t money;
    memset(&rec, 0, sizeof rec);
    memset(&hrec, 0, sizeof hrec);
    memset(&money, 0, sizeof money);
    hrec.kind = a->kind;
    hrec.height = a->kind == CS_KIND_WATCH ? s->cur : a->height;
    hrec.tier_hint = a->tier_hint;
    hrec.qpos = CS_NIL;
    if (a->kind == CS_KIND_WATCH) rec.wkeys = CS_NIL; /* a watch timer keeps no period */
    else rec.every_blocks = a->every_blocks;
    rec.actor = actor;
    money.fee_payer = payer;
    rec.sched_height = s->cur;
    money.expires_at = a->expires_at;

    /* Fees, bids and caps: the mechanism family decides (CIP-1 rev §6, D5). */
    rc = cs__fees_validate(s, a, &hrec, &rec, &money);
    if (rc != CS_OK) return rc;
    /* CIP-5 CN §13, §15 "gas suicide": a handler budget below
     * MIN_GAS_LIMIT_PER_TIMER is refused (the gas limit in force: the
     * stated one, else the mechanism's default budget). */
    if (rec.gas_limit < s->p.min_gas_limit_per_timer) return CS_EGAS_LIMIT_TOO_LOW;
    /* CIP-5 §6.1: 1,000 cycles + payload cells at the CIP-3 basefees when
     * the call is made (N58), paid by the timer's fee payer (CIP-1 rev §6:
     * the caller unless it names another), who must cover them on top of
     * a bid it locks. */
    cs_u128 op_cost = 0;
    rc = cs__fees_op_check(s, payer, s->p.schedule_cycles, a->payload_len,
                           (s->mech.ops->flags & CS_MF_BID) ? money.bid : 0, &op_cost);
    if (rc != CS_OK) return rc;

    /* Handler: explicit, or the payload's custom-handler convention (CIP-5 §4.2). */
    const uint8_t *body = a->payload;
    size_t body_len = a->payload_len;
    uint8_t *inner = NULL;
    size_t inner_len = 0;
    char hname[CS_MAX_HANDLER + 1];
    money.handler = 0;
    if (a->handler) {
        rc = cs__handler_intern(s, a->handler, a->handler_len, &money.handler);
        if (rc != CS_OK) return rc;
    } else if (body_len > 0) {
        int r = cs_payload_route(body, body_len, hname, &inner, &inner_len);
        if (r < 0) return -r;
        if (r == 1 && (rc = cs__handler_intern(s, hname, strlen(hname), &money.handler)) != CS_OK) {
            free(inner);
            return rc;
        }
    }

    /* CIP-5 §3.3: the id covers the payload as given (before routing).
     * Derived later (id_at_commit) only where that is exact: see cs_sched.h. */
    int later = a->id_at_commit && !a->timer_id && !inner && s->n_caller_ids == 0;
    if (a->timer_id) {
        s->n_caller_ids++;
        if (a->timer_id_len == CS_ID_LEN) memcpy(rec.id.b, a->timer_id, CS_ID_LEN);
        else cs_keccak256(a->timer_id, a->timer_id_len, rec.id.b);
    } else if (!later) {
        cs_timer_id(&a->actor, hrec.height, body, body_len, ar->nonce, &rec.id);
    }
    if (!later && cs__id_taken(s, &rec.id)) {
        free(inner);
        return CS_ETIMER_EXISTS;
    }
    /* The record keeps the payload delivered to the handler: the inner
     * payload for a routed one, else the bytes as given. */
    if (inner) {
        rec.payload = inner;
        rec.payload_len = (uint32_t)inner_len;
    } else if (body_len > 0 && cs__all_zero(body, body_len)) {
        /* N100: the same bytes without a copy (cs__zero_payload); the
         * simulator's payloads are all zero, only their length meters. */
        rec.payload_len = (uint32_t)body_len;
    } else if (body_len > 0) {
        rec.payload = malloc(body_len);
        if (!rec.payload) return CS_ENOMEM;
        memcpy(rec.payload, body, body_len);
        rec.payload_len = (uint32_t)body_len;
    }

    if (CS__GROW(s->staged, s->staged_cap, s->n_staged + 1) != 0) {
        free(rec.payload);
        return CS_ENOMEM;
    }
    cs__staged_t *st = &s->staged[s->n_staged];
    *st = cs__zero_staged; /* zero (copied: a memset is a slow rep stos per schedule) */
    if (a->kind == CS_KIND_WATCH) {
        st->wkeys = malloc(a->n_watch * sizeof *st->wkeys);
        if (!st->wkeys) {
            free(rec.payload);
            return CS_ENOMEM;
        }
        for (size_t i = 0; i < a->n_watch; i++) {
            if (a->watch_key_lens[i] > CS_MAX_WATCH_KEY_LEN) {
                free(st->wkeys);
                st->wkeys = NULL;
                free(rec.payload);
                return CS_EINVALID_PARAM;
            }
            cs__key_hash(a->watch_keys[i], a->watch_key_lens[i], &st->wkeys[i]);
        }
        st->n_wkeys = (uint32_t)a->n_watch;
    }
    if (cs__push_op(s, CS__OP_SCHEDULE, (uint32_t)s->n_staged) != CS_OK) {
        free(st->wkeys);
        st->wkeys = NULL;
        free(rec.payload);
        return CS_ENOMEM;
    }
    st->rec = rec;
    st->hot = hrec;
    st->money = money;
    st->nonce = ar->nonce;
    st->id_later = (uint8_t)later;
    st->id_check = (uint8_t)later;
    s->n_id_later += (size_t)later;
    s->n_staged++;
    ar->staged++;
    ar->nonce++;
    if (id_out && !later) *id_out = rec.id;
    /* CIP-5 §6.1: 1,000 cycles + payload cells. */
    if (meter) {
        meter->cycles = s->p.schedule_cycles;
        meter->cells = body_len;
    }
    s->blk_sched_cycles += s->p.schedule_cycles;
    cs__fees_op_debit(s, payer, op_cost, 0);
    return CS_OK;
}

int cs_sched_cancel(cs_sched_t *s, const cs_addr_t *caller, const cs_hash_t *id, cs_meter_t *meter)
{
    if (!s->tx_open) return CS_ENO_TX;
    uint32_t actor;
    if (cs__actor_lookup(s, caller, &actor) != CS_OK) return CS_ETIMER_NOT_FOUND;
    /* CIP-5 §6.1: 500 cycles at the CIP-3 cycle basefee, paid by the caller
     * when the call succeeds (N58). */
    cs_u128 op_cost = 0;
    int crc = cs__fees_op_check(s, actor, s->p.cancel_cycles, 0, 0, &op_cost);
    if (crc != CS_OK) return crc;
    /* A timer staged in this same transaction can be cancelled before it lands. */
    cs__staged_ids(s);
    for (size_t i = 0; i < s->n_staged; i++) {
        cs__staged_t *st = &s->staged[i];
        if (!st->cancelled && memcmp(st->rec.id.b, id->b, CS_ID_LEN) == 0) {
            if (st->rec.actor != actor) return CS_ENOT_OWNER;
            st->cancelled = 1;
            goto metered;
        }
    }
    uint32_t slot = cs__id_lookup(s, id);
    if (slot == CS_NIL) return CS_ETIMER_NOT_FOUND;
    if (s->pool[slot].actor != actor) return CS_ENOT_OWNER;
    for (size_t i = 0; i < s->n_ops; i++)
        if (s->ops[i].type == CS__OP_CANCEL && s->ops[i].slot == slot) return CS_ETIMER_NOT_FOUND;
    if (cs__push_op(s, CS__OP_CANCEL, slot) != CS_OK) return CS_ENOMEM;
    s->actors[actor].staged--; /* frees a place for this transaction's schedules */
metered:
    if (meter) {
        meter->cycles = s->p.cancel_cycles; /* CIP-5 §6.1: 500 cycles flat */
        meter->cells = 0;
    }
    s->blk_sched_cycles += s->p.cancel_cycles;
    cs__fees_op_debit(s, actor, op_cost, 1);
    return CS_OK;
}

int cs_sched_write_key(cs_sched_t *s, const uint8_t *key, size_t len)
{
    if (!s->tx_open) return CS_ENO_TX;
    if (CS__GROW(s->modkeys, s->modkeys_cap, s->n_modkeys + 1) != 0) return CS_ENOMEM;
    cs__key_hash(key, len, &s->modkeys[s->n_modkeys++]);
    return CS_OK;
}

int cs_sched_sys_cancel(cs_sched_t *s, const cs_hash_t *id)
{
    /* CIP-1 rev §12: SYS_CANCEL_TIMER (opcode 48), validator-set emergency cancel. */
    uint32_t slot = cs__id_lookup(s, id);
    if (slot == CS_NIL) return CS_ETIMER_NOT_FOUND;
    cs__fees_on_destroy(s, slot);
    cs__remove_record(s, slot);
    s->acct.cancelled++;
    s->blk_cancelled++;
    return CS_OK;
}

int cs_sched_sys_extend(cs_sched_t *s, const cs_hash_t *id, uint64_t new_expires_at)
{
    /* CIP-1 rev §12: SYS_EXTEND_TIMER (opcode 50), emergency TTL extension. */
    uint32_t slot = cs__id_lookup(s, id);
    if (slot == CS_NIL) return CS_ETIMER_NOT_FOUND;
    if (new_expires_at != 0 && new_expires_at <= s->cur) return CS_EINVALID_PARAM;
    cs_timer_money_t *m = cs__rec_money(s, slot);
    if (m) {
        m->expires_at = new_expires_at;
        cs__rank_set_expiry(s, slot); /* a ranked carried timer's expiry index (N80) */
        return CS_OK;
    }
    /* The TTL lives in the money table: a first expiry takes an entry. */
    cs_timer_money_t x = {.expires_at = new_expires_at, .fee_payer = s->pool[slot].actor};
    return cs__money_attach(s, slot, &x, 0);
}
