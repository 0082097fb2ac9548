/*
 * test_queue.c -- the tiered calendar queue (CIP-1 §2, DESIGN §2.2).
 *
 * 1. Property tests against a trivial reference model: a multimap from
 *    height to the list of slots due there, kept in insertion (= fifo_rank)
 *    order.  Over 10^6 random schedule / cancel / advance operations per
 *    configuration (250,000 with CS_TEST_SMALL), every block's collected
 *    list must equal the model's list for that height exactly (no early,
 *    late, lost or duplicate fire, same order).  The tree's Merkle root is checked against an independent
 *    from-scratch Cartesian-tree build at sampled blocks, and every pending
 *    record's tier against the epoch rules.
 * 2. Tree: depth bound, root change on every update, order and history
 *    independence, empty root, hand-assembled 1-, 2- and 3-node roots.
 * 3. Aliasing rings, pacing bounds, memory per timer, error paths and
 *    forced allocation failures.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_error.h"
#include "cs_queue.h"
#include "cs_test.h"
#include "cs_timer.h"

/* ---- forced allocation failure (glibc, non-sanitizer builds only) ---- */
#if defined(__GLIBC__) && !defined(CS_SANITIZE)
#define CS_TEST_MALLOC_FAIL 1
extern void *__libc_malloc(size_t n);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t a, size_t n);
extern void *__libc_calloc(size_t n, size_t m);
static int fail_allocs; /* when set, every allocation fails */
static long fail_at;    /* when > 0, the fail_at-th allocation from now fails */
static int alloc_fails(void)
{
    return fail_allocs || (fail_at > 0 && --fail_at == 0);
}
void *malloc(size_t n)
{
    return alloc_fails() ? NULL : __libc_malloc(n);
}
void *realloc(void *p, size_t n)
{
    return alloc_fails() ? NULL : __libc_realloc(p, n);
}
void *aligned_alloc(size_t a, size_t n)
{
    return alloc_fails() ? NULL : __libc_memalign(a, n);
}
void *calloc(size_t n, size_t m)
{
    return alloc_fails() ? NULL : __libc_calloc(n, m);
}
#endif

/* ------------------------------------------------------------ helpers */

/* splitmix64: a small deterministic generator for test inputs. */
static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rnd_id(uint64_t *s, cs_hash_t *id)
{
    for (int i = 0; i < 4; i++) {
        uint64_t v = rnd(s);
        memcpy(id->b + 8 * i, &v, 8);
    }
}

static void be64(uint8_t *o, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        o[i] = (uint8_t)v;
        v >>= 8;
    }
}

static uint32_t be32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static const uint8_t zero32[32];

/* A growable record pool, passed to the queue by address (the queue must
 * cope with the array moving between calls). */
typedef struct tpool {
    cs_timer_hot_t *hot; /* records, hot parts */
    cs_timer_t *rec;  /* records, cold parts (ids) */
    uint32_t cap;     /* allocated */
    uint32_t n;       /* slots handed out (high-water) */
    uint32_t *freel;  /* free slots */
    uint32_t n_free;  /* used in freel */
    uint64_t rank;    /* next fifo_rank */
} tpool_t;

static uint32_t tpool_new(tpool_t *p, uint64_t height, const cs_hash_t *id)
{
    uint32_t s;
    if (p->n_free) {
        s = p->freel[--p->n_free];
    } else {
        if (p->n == p->cap) {
            uint32_t nc = p->cap ? p->cap * 2 : 1024;
            p->rec = realloc(p->rec, (size_t)nc * sizeof *p->rec);
            p->hot = realloc(p->hot, (size_t)nc * sizeof *p->hot);
            p->freel = realloc(p->freel, (size_t)nc * sizeof *p->freel);
            if (!p->rec || !p->hot || !p->freel) abort();
            p->cap = nc;
        }
        s = p->n++;
    }
    cs_timer_t *c = &p->rec[s];
    cs_timer_hot_t *t = &p->hot[s];
    memset(c, 0, sizeof *c);
    memset(t, 0, sizeof *t);
    t->height = height;
    c->id = *id;
    t->fifo_rank = ++p->rank;
    t->tier = CS_TIER_NONE;
    t->qpos = CS_NIL;
    return s;
}

static void tpool_release(tpool_t *p, uint32_t s)
{
    p->freel[p->n_free++] = s;
}

static void tpool_free(tpool_t *p)
{
    free(p->rec);
    free(p->hot);
    free(p->freel);
    memset(p, 0, sizeof *p);
}

/* ---------------------------------------- independent reference root */

/* The tree's specification, restated: keys ordered by (height, id,
 * fifo_rank); heap priority by (id bytes 28..31 big-endian, id, height,
 * fifo_rank), larger on top; node hash = keccak256(left || height[8 BE] ||
 * id || right) with 32 zero bytes for a missing child.  Built here from
 * scratch as a Cartesian tree over the sorted keys. */
static const tpool_t *ref_pool;

static int ref_key_cmp(const void *a, const void *b)
{
    uint32_t sa = *(const uint32_t *)a, sb = *(const uint32_t *)b;
    const cs_timer_hot_t *x = &ref_pool->hot[sa], *y = &ref_pool->hot[sb];
    if (x->height != y->height) return x->height < y->height ? -1 : 1;
    int c = memcmp(ref_pool->rec[sa].id.b, ref_pool->rec[sb].id.b, 32);
    if (c) return c;
    return x->fifo_rank < y->fifo_rank ? -1 : x->fifo_rank > y->fifo_rank;
}

static int ref_prio_above(uint32_t sx, uint32_t sy)
{
    const cs_timer_hot_t *x = &ref_pool->hot[sx], *y = &ref_pool->hot[sy];
    const cs_hash_t *ix = &ref_pool->rec[sx].id, *iy = &ref_pool->rec[sy].id;
    uint32_t px = be32(ix->b + 28), py = be32(iy->b + 28);
    if (px != py) return px > py;
    int c = memcmp(ix->b, iy->b, 32);
    if (c) return c > 0;
    if (x->height != y->height) return x->height > y->height;
    return x->fifo_rank > y->fifo_rank;
}

static void ref_build(const uint32_t *s, size_t lo, size_t hi, uint8_t out[32], unsigned depth,
                      unsigned *maxdepth)
{
    if (lo == hi) {
        memset(out, 0, 32);
        return;
    }
    if (depth > *maxdepth) *maxdepth = depth;
    size_t m = lo;
    for (size_t i = lo + 1; i < hi; i++)
        if (ref_prio_above(s[i], s[m])) m = i;
    uint8_t buf[104];
    ref_build(s, lo, m, buf, depth + 1, maxdepth);
    be64(buf + 32, ref_pool->hot[s[m]].height);
    memcpy(buf + 40, ref_pool->rec[s[m]].id.b, 32);
    ref_build(s, m + 1, hi, buf + 72, depth + 1, maxdepth);
    cs_keccak256(buf, sizeof buf, out);
}

/* Root of the set of slots s[0..n) (sorted in place); *depth gets the
 * reference tree's depth. */
static void ref_root(const tpool_t *pool, uint32_t *s, size_t n, uint8_t out[32],
                     unsigned *depth)
{
    ref_pool = pool;
    qsort(s, n, sizeof *s, ref_key_cmp);
    *depth = 0;
    ref_build(s, 0, n, out, 1, depth);
}

/* --------------------------------------------- 1. property test vs model */

typedef struct mlist {
    uint32_t *v; /* slots due at this height, insertion order */
    uint32_t n;
    uint32_t cap;
} mlist_t;

typedef struct prop_cfg {
    const char *name;   /* includes the seed */
    uint32_t ring, epoch, epochs;
    uint64_t start;     /* alloc height */
    uint64_t far;       /* largest delay of the "far" class */
    uint64_t seed;
    long ops;
    unsigned pblock;    /* percent of operations that are blocks */
    int tx_first;       /* inserts between advance and collection (see prop_block) */
} prop_cfg_t;

typedef struct prop {
    const prop_cfg_t *c;
    tpool_t p;
    cs_queue_t *q;
    uint64_t s;          /* rng state */
    mlist_t *mh;         /* model: mh[height - start] */
    uint64_t mh_n;
    uint32_t *pend;      /* pending slots */
    uint32_t n_pend;
    uint32_t *pidx;      /* index of slot in pend */
    uint32_t pidx_cap;
    uint64_t inserted, cancelled, fired, blocks, mismatches, tier_errs, root_checks;
    uint64_t max_tree;
} prop_t;

static mlist_t *model_at(prop_t *P, uint64_t h)
{
    uint64_t i = h - P->c->start;
    if (i >= P->mh_n) {
        uint64_t nn = P->mh_n ? P->mh_n : 4096;
        while (nn <= i) nn *= 2;
        P->mh = realloc(P->mh, (size_t)nn * sizeof *P->mh);
        if (!P->mh) abort();
        memset(P->mh + P->mh_n, 0, (size_t)(nn - P->mh_n) * sizeof *P->mh);
        P->mh_n = nn;
    }
    return &P->mh[i];
}

static void pend_add(prop_t *P, uint32_t slot)
{
    if (slot >= P->pidx_cap) {
        uint32_t nc = P->pidx_cap ? P->pidx_cap : 1024;
        while (nc <= slot) nc *= 2;
        P->pidx = realloc(P->pidx, (size_t)nc * sizeof *P->pidx);
        P->pend = realloc(P->pend, (size_t)nc * sizeof *P->pend);
        if (!P->pidx || !P->pend) abort();
        P->pidx_cap = nc;
    }
    P->pidx[slot] = P->n_pend;
    P->pend[P->n_pend++] = slot;
}

static void pend_del(prop_t *P, uint32_t slot)
{
    uint32_t i = P->pidx[slot], last = P->pend[--P->n_pend];
    P->pend[i] = last;
    P->pidx[last] = i;
}

/* Pick a due height for a new timer: near the ring (aliasing), exactly on
 * epoch boundaries, anywhere in the tier-2 window, far into tier 3, or the
 * height of a pending timer (crowded heights). */
static uint64_t pick_height(prop_t *P, uint64_t cur)
{
    const prop_cfg_t *c = P->c;
    uint64_t r = rnd(&P->s) % 100, E = c->epoch;
    if (r < 30) return cur + 1 + rnd(&P->s) % (2ull * c->ring + 2);
    if (r < 50) {
        uint64_t e = cur / E + rnd(&P->s) % (c->epochs + 3ull);
        uint64_t offs[5] = {0, 1, E - 1, E > 1 ? E - 2 : 0, rnd(&P->s) % E};
        uint64_t h = e * E + offs[rnd(&P->s) % 5];
        return h > cur ? h : cur + 1 + rnd(&P->s) % 3;
    }
    if (r < 75) return cur + 1 + rnd(&P->s) % ((c->epochs + 2ull) * E);
    if (r < 90 || P->n_pend == 0) return cur + 1 + rnd(&P->s) % c->far;
    /* A pending timer's height; with tx_first one due now is not yet
     * collected, and its height is no longer in the future. */
    uint64_t ph = P->p.hot[P->pend[rnd(&P->s) % P->n_pend]].height;
    return ph > cur ? ph : cur + 1;
}

/* A fresh id; sometimes sharing the key prefix, the priority bytes or the
 * whole id with a pending timer so every tie-break in the tree runs. */
static void pick_id(prop_t *P, cs_hash_t *id)
{
    rnd_id(&P->s, id);
    uint64_t r = rnd(&P->s) % 100;
    if (P->n_pend == 0 || r >= 8) return;
    const cs_timer_t *o = &P->p.rec[P->pend[rnd(&P->s) % P->n_pend]];
    if (r < 3) memcpy(id->b, o->id.b, 4);
    else if (r < 6) memcpy(id->b + 28, o->id.b + 28, 4);
    else *id = o->id;
}

/* Check every pending record's tier against the placement rules (see
 * cs_queue.c): with c = h / E, tier 1 holds epochs <= c + 1, tier 2 epochs
 * c + 1 .. c + K + 1, tier 3 epochs >= c + K + 1; on the last block of an
 * epoch both migrations are complete (tier 2 >= c + 2, tier 3 >= c + K + 2). */
static void check_tiers(prop_t *P, uint64_t h)
{
    uint64_t E = P->c->epoch, K = P->c->epochs, c = h / E;
    int last = h % E == E - 1;
    cs_queue_stats_t st;
    cs_queue_stats(P->q, &st);
    uint64_t nr = 0, ne = 0, nt = 0;
    for (uint32_t i = 0; i < P->n_pend; i++) {
        const cs_timer_hot_t *t = &P->p.hot[P->pend[i]];
        uint64_t e = t->height / E;
        int ok;
        switch (t->tier) {
        case CS_TIER_RING: ok = e <= c + 1; nr++; break;
        case CS_TIER_EPOCH: ok = e >= c + 1 + (uint64_t)last && e <= c + K + 1; ne++; break;
        case CS_TIER_TREE: ok = e >= c + K + 1 + (uint64_t)last; nt++; break;
        default: ok = 0;
        }
        if (!ok) P->tier_errs++;
    }
    if (nr != st.ring || ne != st.epoch || nt != st.tree) P->tier_errs++;
    if (nt > P->max_tree) P->max_tree = nt;
}

/* Compare cs_queue_root with the from-scratch reference over the slots the
 * queue holds in tier 3; also the depth bound. */
static void check_root(prop_t *P)
{
    uint32_t *s = malloc(((size_t)P->n_pend + 1) * sizeof *s);
    if (!s) abort();
    size_t n = 0;
    for (uint32_t i = 0; i < P->n_pend; i++)
        if (P->p.hot[P->pend[i]].tier == CS_TIER_TREE) s[n++] = P->pend[i];
    uint8_t want[32];
    unsigned rdepth;
    ref_root(&P->p, s, n, want, &rdepth);
    cs_hash_t got;
    cs_queue_root(P->q, &got);
    if (memcmp(got.b, want, 32) != 0 || cs_queue_tree_depth(P->q) != rdepth) P->mismatches++;
    P->root_checks++;
    free(s);
}

/* Collect the current height and check the block against the model. */
static void prop_collect(prop_t *P, cs_slotvec_t *out)
{
    uint64_t h = cs_queue_height(P->q);
    out->n = 0;
    if (cs_queue_collect(P->q, out) != CS_OK) {
        P->mismatches++;
        return;
    }
    mlist_t *m = model_at(P, h);
    int bad = out->n != m->n;
    for (uint32_t i = 0; !bad && i < m->n; i++) bad = out->v[i] != m->v[i];
    for (size_t i = 0; !bad && i < out->n; i++) bad = P->p.hot[out->v[i]].tier != CS_TIER_NONE;
    if (bad) {
        if (P->mismatches < 3)
            fprintf(stderr, "%s: block %llu: collected %zu, model %u\n", P->c->name,
                    (unsigned long long)h, out->n, m->n);
        P->mismatches++;
    }
    for (size_t i = 0; i < out->n; i++) {
        if (P->p.hot[out->v[i]].height != h) continue; /* already counted as a mismatch */
        pend_del(P, out->v[i]);
        tpool_release(&P->p, out->v[i]);
        P->fired++;
    }
    free(m->v);
    memset(m, 0, sizeof *m);
    P->blocks++;
    if (cs_queue_size(P->q) != P->n_pend) P->mismatches++;
    uint64_t E = P->c->epoch;
    if (P->blocks % 1024 == 0 || (E >= 360 && h % E == E - 1)) check_tiers(P, h);
    if (P->blocks % 25000 == 0 || (P->blocks % 2000 == 0 && P->n_pend < 20000)) check_root(P);
}

static void prop_advance(prop_t *P)
{
    if (cs_queue_advance(P->q, cs_queue_height(P->q) + 1) != CS_OK) P->mismatches++;
}

/* One block.  Usually the operations before it are inserted before its
 * advance; with tx_first they come between the previous advance and this
 * collection, as a block's transactions do (CIP-5 §5: end of block after
 * the TX phase), so the collection files and links them. */
static void prop_block(prop_t *P, cs_slotvec_t *out)
{
    if (P->c->tx_first) {
        prop_collect(P, out);
        prop_advance(P);
    } else {
        prop_advance(P);
        prop_collect(P, out);
    }
}

static void prop_insert(prop_t *P)
{
    uint64_t cur = cs_queue_height(P->q);
    cs_hash_t id;
    pick_id(P, &id);
    if (rnd(&P->s) % 200 == 0) {
        /* Not in the future: rejected, queue unchanged (CIP-5 §4.2). */
        uint64_t bad = cur == 0 ? 0 : cur - rnd(&P->s) % 2;
        uint32_t s = tpool_new(&P->p, bad, &id);
        uint64_t n0 = cs_queue_size(P->q);
        if (cs_queue_insert(P->q, s) != CS_EHEIGHT_NOT_FUTURE || cs_queue_size(P->q) != n0 ||
            P->p.hot[s].tier != CS_TIER_NONE)
            P->mismatches++;
        tpool_release(&P->p, s);
        return;
    }
    uint64_t h = pick_height(P, cur);
    uint32_t s = tpool_new(&P->p, h, &id);
    if (cs_queue_insert(P->q, s) != CS_OK) {
        P->mismatches++;
        return;
    }
    mlist_t *m = model_at(P, h);
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 4;
        m->v = realloc(m->v, m->cap * sizeof *m->v);
        if (!m->v) abort();
    }
    m->v[m->n++] = s;
    pend_add(P, s);
    P->inserted++;
}

static void prop_cancel(prop_t *P)
{
    if (P->n_pend == 0) return;
    uint32_t s = P->pend[rnd(&P->s) % P->n_pend];
    cs_queue_remove(P->q, s);
    if (P->p.hot[s].tier != CS_TIER_NONE) P->mismatches++;
    mlist_t *m = model_at(P, P->p.hot[s].height);
    uint32_t i = 0;
    while (i < m->n && m->v[i] != s) i++;
    if (i == m->n) abort();
    memmove(m->v + i, m->v + i + 1, (m->n - i - 1) * sizeof *m->v);
    m->n--;
    pend_del(P, s);
    tpool_release(&P->p, s);
    P->cancelled++;
}

static void prop_run(const prop_cfg_t *c)
{
    prop_t P;
    memset(&P, 0, sizeof P);
    P.c = c;
    P.s = c->seed;
    cs_queue_cfg_t qc = {c->ring, c->epoch, c->epochs};
    P.q = cs_queue_alloc(&qc, &P.p.hot, &P.p.rec, c->start);
    CS_CHECK(P.q != NULL);
    if (!P.q) return;
    cs_slotvec_t out = {0};
    if (c->tx_first) prop_advance(&P);
    for (long op = 0; op < c->ops && P.mismatches == 0; op++) {
        uint64_t r = rnd(&P.s) % 100;
        if (r < 86u - c->pblock) prop_insert(&P);
        else if (r < 100u - c->pblock) prop_cancel(&P);
        else prop_block(&P, &out);
    }
    /* Drain: run blocks until everything pending has fired. */
    uint64_t maxh = 0;
    for (uint32_t i = 0; i < P.n_pend; i++)
        if (P.p.hot[P.pend[i]].height > maxh) maxh = P.p.hot[P.pend[i]].height;
    check_root(&P);
    while (P.mismatches == 0 && cs_queue_height(P.q) < maxh) prop_block(&P, &out);
    if (c->tx_first && P.mismatches == 0) prop_collect(&P, &out); /* height maxh */
    printf("%s: %llu inserted, %llu cancelled, %llu fired, %llu blocks, max tree %llu, "
           "%llu root checks\n",
           c->name, (unsigned long long)P.inserted, (unsigned long long)P.cancelled,
           (unsigned long long)P.fired, (unsigned long long)P.blocks,
           (unsigned long long)P.max_tree, (unsigned long long)P.root_checks);
    CS_CHECK_EQ_U64(P.mismatches, 0);
    CS_CHECK_EQ_U64(P.tier_errs, 0);
    /* Every inserted timer was either cancelled or fired exactly once. */
    CS_CHECK_EQ_U64(P.inserted, P.cancelled + P.fired);
    CS_CHECK_EQ_U64(P.n_pend, 0);
    CS_CHECK_EQ_U64(cs_queue_size(P.q), 0);
    CS_CHECK(P.max_tree > 100); /* the tree was exercised */
    cs_hash_t root;
    cs_queue_root(P.q, &root);
    CS_CHECK(memcmp(root.b, zero32, 32) == 0);
    cs_queue_free(P.q);
    cs_slotvec_free(&out);
    for (uint64_t i = 0; i < P.mh_n; i++) free(P.mh[i].v);
    free(P.mh);
    free(P.pend);
    free(P.pidx);
    tpool_free(&P.p);
}

static void test_property(void)
{
    static const prop_cfg_t cfgs[] = {
        /* name, ring, epoch, epochs, start height, far delay, seed, ops, % blocks, tx_first */
        {"prop_r256_e360_k4_seed_0x1b873593", 256, 360, 4, 0, 8640, 0x1b873593ull, 1000000, 36, 0},
        {"prop_r8_e3_k2_seed_0x85ebca6b", 8, 3, 2, 1000001, 2000, 0x85ebca6bull, 1000000, 12, 0},
        {"prop_r4096_e3600_k24_seed_0xc2b2ae35", 4096, 3600, 24, 7199, 300000, 0xc2b2ae35ull,
         1000000, 36, 0},
        {"prop_r1_e1_k1_seed_0x27d4eb2f", 1, 1, 1, 5, 1000, 0x27d4eb2full, 1000000, 12, 0},
        {"prop_r7_e5_k1_seed_0x165667b1", 7, 5, 1, 33, 1500, 0x165667b1ull, 1000000, 12, 0},
        /* Bursts: ~85 inserts a block, a dozen of them for the tree, so
         * the collection links staged nodes inside its loops (several
         * walks, top levels in one step) and not only after them. */
        {"prop_r64_e16_k2_burst_seed_0x9e3779b9", 64, 16, 2, 0, 20000, 0x9e3779b9ull, 1000000, 1,
         1},
        {"prop_r4096_e3600_k24_tx_seed_0x7f4a7c15", 4096, 3600, 24, 7199, 300000, 0x7f4a7c15ull,
         1000000, 4, 1},
    };
    /* CS_TEST_SMALL (CI's sanitizer suite): 250,000 operations per
     * configuration instead of 10^6, the same seven configurations (every
     * one still drains, and exercises the tree, max tree > 100). */
    const long ops = (long)cs_test_size("property operations per configuration", 1000000, 250000);
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        prop_cfg_t c = cfgs[i];
        c.ops = ops < c.ops ? ops : c.ops;
        prop_run(&c);
    }
}

/* ------------------------------------------------------------- 2. tree */

/* A queue where everything at height >= 3 goes to the tree: ring 8, epoch
 * 1, epochs 1 at height 0 hold epochs <= 1 in the ring and epoch 2 in tier 2. */
static cs_queue_t *tree_queue(tpool_t *p)
{
    cs_queue_cfg_t qc = {8, 1, 1};
    return cs_queue_alloc(&qc, &p->hot, &p->rec, 0);
}

static unsigned depth_bound(uint64_t n)
{
    /* 4 * log2(n + 1) + 8, rounded up */
    return (unsigned)(4.0 * ceil(log2((double)(n + 1)))) + 8u;
}

static void test_tree_depth(void)
{
    tpool_t p = {0};
    uint64_t s = 0x9e3779b1ull;
    cs_queue_t *q = tree_queue(&p);
    CS_CHECK(q != NULL);
    CS_CHECK_EQ_U64(cs_queue_tree_depth(q), 0);
    /* Random heights. */
    uint64_t next = 1;
    for (uint32_t i = 1; i <= 100000; i++) {
        cs_hash_t id;
        rnd_id(&s, &id);
        uint32_t slot = tpool_new(&p, 3 + rnd(&s) % 1000000000ull, &id);
        CS_CHECK(cs_queue_insert(q, slot) == CS_OK);
        if (i == next) {
            unsigned d = cs_queue_tree_depth(q);
            printf("tree depth at n=%u (random heights): %u (bound %u)\n", i, d, depth_bound(i));
            CS_CHECK(d <= depth_bound(i));
            next *= 10;
        }
    }
    cs_queue_stats_t st;
    cs_queue_stats(q, &st);
    CS_CHECK_EQ_U64(st.tree, 100000);
    cs_queue_free(q);
    tpool_free(&p);

    /* Equal heights (keys differ only by id) and increasing heights: the
     * priority must not follow the key order, or these become paths. */
    for (int mode = 0; mode < 2; mode++) {
        q = tree_queue(&p);
        for (uint32_t i = 1; i <= 20000; i++) {
            cs_hash_t id;
            rnd_id(&s, &id);
            uint32_t slot = tpool_new(&p, mode == 0 ? 777 : 1000 + i, &id);
            CS_CHECK(cs_queue_insert(q, slot) == CS_OK);
        }
        unsigned d = cs_queue_tree_depth(q);
        printf("tree depth at n=20000 (%s): %u (bound %u)\n",
               mode == 0 ? "one height" : "increasing heights", d, depth_bound(20000));
        CS_CHECK(d <= depth_bound(20000));
        cs_queue_free(q);
        tpool_free(&p);
    }
}

/* The root changes on every insert and every cancel, and always equals the
 * from-scratch reference. */
static void test_tree_root_changes(void)
{
    tpool_t p = {0};
    uint64_t s = 0x7f4a7c15ull;
    cs_queue_t *q = tree_queue(&p);
    cs_hash_t prev, cur;
    cs_queue_root(q, &prev);
    CS_CHECK(memcmp(prev.b, zero32, 32) == 0);
    uint32_t live[4000];
    uint32_t n = 0;
    long changed = 0, ops = 0, refok = 0;
    for (int op = 0; op < 3000; op++) {
        if (n == 0 || rnd(&s) % 3 != 0) {
            cs_hash_t id;
            rnd_id(&s, &id);
            /* heights from a small range so equal heights are common */
            uint32_t slot = tpool_new(&p, 3 + rnd(&s) % 500, &id);
            CS_CHECK(cs_queue_insert(q, slot) == CS_OK);
            live[n++] = slot;
        } else {
            uint32_t i = (uint32_t)(rnd(&s) % n);
            cs_queue_remove(q, live[i]);
            live[i] = live[--n];
        }
        cs_queue_root(q, &cur);
        ops++;
        changed += memcmp(cur.b, prev.b, 32) != 0;
        prev = cur;
        if (op % 250 == 0) {
            uint32_t tmp[4000];
            memcpy(tmp, live, n * sizeof *tmp);
            uint8_t want[32];
            unsigned d;
            ref_root(&p, tmp, n, want, &d);
            refok += memcmp(want, cur.b, 32) == 0 && d == cs_queue_tree_depth(q);
        }
    }
    CS_CHECK_EQ_U64(changed, ops);
    CS_CHECK_EQ_U64(refok, 12); /* op = 0, 250, ..., 2750 */
    cs_queue_free(q);
    tpool_free(&p);
}

/* Same set, different insertion orders and cancel histories: same root. */
static void test_tree_history_independent(void)
{
    enum { N = 600, X = 400 };
    tpool_t p = {0};
    uint64_t s = 0x2545f491ull;
    /* The set: N records; slots 0..N-1.  Extras: slots N..N+X-1. */
    for (uint32_t i = 0; i < N + X; i++) {
        cs_hash_t id;
        rnd_id(&s, &id);
        tpool_new(&p, 3 + rnd(&s) % 300, &id);
    }
    cs_hash_t roots[4];
    for (int v = 0; v < 4; v++) {
        /* Each variant starts from unqueued records. */
        for (uint32_t i = 0; i < N + X; i++) {
            p.hot[i].tier = CS_TIER_NONE;
            p.hot[i].qpos = CS_NIL;
        }
        cs_queue_t *q = tree_queue(&p);
        uint32_t order[N + X];
        uint32_t n = 0;
        if (v == 0)
            for (uint32_t i = 0; i < N; i++) order[n++] = i;
        else if (v == 1)
            for (uint32_t i = N; i-- > 0;) order[n++] = i;
        else {
            for (uint32_t i = 0; i < N + (v == 3 ? X : 0); i++) order[n++] = i;
            for (uint32_t i = n; i > 1; i--) { /* Fisher-Yates */
                uint32_t j = (uint32_t)(rnd(&s) % i), t = order[i - 1];
                order[i - 1] = order[j];
                order[j] = t;
            }
        }
        cs_hash_t tmp;
        for (uint32_t i = 0; i < n; i++) {
            CS_CHECK(cs_queue_insert(q, order[i]) == CS_OK);
            if (i % 97 == 0) cs_queue_root(q, &tmp); /* interleave rehashes */
        }
        if (v == 3) /* cancel the extras again, in another order */
            for (uint32_t i = N + X; i-- > N;) {
                cs_queue_remove(q, i);
                if (i % 50 == 0) cs_queue_root(q, &tmp);
            }
        if (v == 2) { /* cancel and re-insert a third of the set */
            for (uint32_t i = 0; i < N; i += 3) cs_queue_remove(q, i);
            cs_queue_root(q, &tmp);
            for (uint32_t i = 0; i < N; i += 3) CS_CHECK(cs_queue_insert(q, i) == CS_OK);
        }
        cs_queue_root(q, &roots[v]);
        CS_CHECK_EQ_U64(cs_queue_size(q), N);
        cs_queue_free(q);
    }
    CS_CHECK(memcmp(roots[0].b, roots[1].b, 32) == 0);
    CS_CHECK(memcmp(roots[0].b, roots[2].b, 32) == 0);
    CS_CHECK(memcmp(roots[0].b, roots[3].b, 32) == 0);
    uint32_t all[N];
    for (uint32_t i = 0; i < N; i++) all[i] = i;
    uint8_t want[32];
    unsigned d;
    ref_root(&p, all, N, want, &d);
    CS_CHECK(memcmp(roots[0].b, want, 32) == 0);
    tpool_free(&p);
}

/* keccak256 of (a || BE64(h) || id || b), assembled piece by piece. */
static void node_hash(const uint8_t a[32], uint64_t h, const cs_hash_t *id, const uint8_t b[32],
                      uint8_t out[32])
{
    uint8_t hb[8];
    be64(hb, h);
    cs_keccak_ctx c;
    cs_keccak_init(&c);
    cs_keccak_update(&c, a, 32);
    cs_keccak_update(&c, hb, 8);
    cs_keccak_update(&c, id->b, 32);
    cs_keccak_update(&c, b, 32);
    cs_keccak_final(&c, out);
}

/* Hand-checked small trees. */
static void test_tree_small(void)
{
    tpool_t p = {0};
    cs_hash_t ida, idb, idc, got;
    /* A: priority bytes 28..31 = ff ff ff ff (top); B: 80 00 00 00; C: 10 00 00 00. */
    for (int i = 0; i < 32; i++) {
        ida.b[i] = (uint8_t)(0xa0 + i);
        idb.b[i] = (uint8_t)(0x11 * (i % 7) + 3);
        idc.b[i] = (uint8_t)(0xc7 ^ (i * 13));
    }
    memset(ida.b + 28, 0xff, 4);
    idb.b[28] = 0x80, idb.b[29] = idb.b[30] = idb.b[31] = 0;
    idc.b[28] = 0x10, idc.b[29] = idc.b[30] = idc.b[31] = 0;
    uint32_t a = tpool_new(&p, 500, &ida), b = tpool_new(&p, 700, &idb),
             c = tpool_new(&p, 300, &idc);
    cs_queue_t *q = tree_queue(&p);
    cs_queue_root(q, &got);
    CS_CHECK(memcmp(got.b, zero32, 32) == 0); /* empty tree: 32 zero bytes */

    /* One node: keccak256(zero32 || BE(500) || idA || zero32). */
    uint8_t ha[32], hb[32], hc[32], want[32];
    CS_CHECK(cs_queue_insert(q, a) == CS_OK);
    CS_CHECK_EQ_U64(p.hot[a].tier, CS_TIER_TREE);
    node_hash(zero32, 500, &ida, zero32, ha);
    cs_queue_root(q, &got);
    CS_CHECK(memcmp(got.b, ha, 32) == 0);
    CS_CHECK_EQ_U64(cs_queue_tree_depth(q), 1);

    /* B (height 700 > 500, lower priority) becomes A's right child:
     * root = keccak(zero32 || BE(500) || idA || keccak(zero32 || BE(700) || idB || zero32)). */
    CS_CHECK(cs_queue_insert(q, b) == CS_OK);
    node_hash(zero32, 700, &idb, zero32, hb);
    node_hash(zero32, 500, &ida, hb, want);
    cs_queue_root(q, &got);
    CS_CHECK(memcmp(got.b, want, 32) == 0);
    CS_CHECK_EQ_U64(cs_queue_tree_depth(q), 2);

    /* C (height 300 < 500) becomes A's left child:
     * root = keccak(hC || BE(500) || idA || hB). */
    CS_CHECK(cs_queue_insert(q, c) == CS_OK);
    node_hash(zero32, 300, &idc, zero32, hc);
    node_hash(hc, 500, &ida, hb, want);
    cs_queue_root(q, &got);
    CS_CHECK(memcmp(got.b, want, 32) == 0);
    CS_CHECK_EQ_U64(cs_queue_tree_depth(q), 2);

    /* Cancel the root A: B (priority 0x80..) rises over C; C is B's left
     * child: root = keccak(hC || BE(700) || idB || zero32). */
    cs_queue_remove(q, a);
    CS_CHECK_EQ_U64(p.hot[a].tier, CS_TIER_NONE);
    node_hash(hc, 700, &idb, zero32, want);
    cs_queue_root(q, &got);
    CS_CHECK(memcmp(got.b, want, 32) == 0);

    /* Cancel the rest: back to 32 zero bytes. */
    cs_queue_remove(q, b);
    cs_queue_remove(q, c);
    cs_queue_root(q, &got);
    CS_CHECK(memcmp(got.b, zero32, 32) == 0);
    CS_CHECK_EQ_U64(cs_queue_tree_depth(q), 0);
    cs_queue_free(q);
    tpool_free(&p);
}

/* ---------------------------------------------------------- 3. aliasing */

/* Run blocks from the queue's height to `until`, checking at every block
 * that exactly the listed slots with height h are collected, in slot order
 * (the tests create slots in increasing fifo_rank).  Returns the number of
 * discrepancies. */
static const cs_timer_hot_t *re_pool;

static int re_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (re_pool[x].height != re_pool[y].height)
        return re_pool[x].height < re_pool[y].height ? -1 : 1;
    return x < y ? -1 : x > y;
}

static long run_exact(cs_queue_t *q, tpool_t *p, const uint32_t *slots, size_t n, uint64_t until)
{
    long bad = 0;
    uint32_t *v = malloc((n + 1) * sizeof *v);
    if (!v) abort();
    memcpy(v, slots, n * sizeof *v);
    re_pool = p->hot;
    qsort(v, n, sizeof *v, re_cmp);
    size_t k = 0;
    while (k < n && p->hot[v[k]].height <= cs_queue_height(q)) k++;
    cs_slotvec_t out = {0};
    while (cs_queue_height(q) < until) {
        uint64_t h = cs_queue_height(q) + 1;
        bad += cs_queue_advance(q, h) != CS_OK;
        out.n = 0;
        bad += cs_queue_collect(q, &out) != CS_OK;
        size_t j = 0;
        for (; k < n && p->hot[v[k]].height == h; k++, j++)
            bad += j >= out.n || out.v[j] != v[k] || p->hot[v[k]].tier != CS_TIER_NONE;
        bad += j != out.n;
    }
    cs_slotvec_free(&out);
    free(v);
    return bad;
}

static void test_aliasing(void)
{
    /* Ring 8, epoch 3, epochs 2: timers exactly ring_size and 2*ring_size
     * ahead (and their neighbours), from several starting heights. */
    for (uint64_t start = 0; start < 6; start++) {
        tpool_t p = {0};
        cs_queue_cfg_t qc = {8, 3, 2};
        cs_queue_t *q = cs_queue_alloc(&qc, &p.hot, &p.rec, start);
        uint64_t d[] = {1, 7, 8, 9, 15, 16, 17, 24};
        uint32_t slots[8];
        uint64_t s = 0xabcdef01ull + start;
        for (int i = 0; i < 8; i++) {
            cs_hash_t id;
            rnd_id(&s, &id);
            slots[i] = tpool_new(&p, start + d[i], &id);
            CS_CHECK(cs_queue_insert(q, slots[i]) == CS_OK);
        }
        CS_CHECK_EQ_U64(run_exact(q, &p, slots, 8, start + 30), 0);
        CS_CHECK_EQ_U64(cs_queue_size(q), 0);
        cs_queue_free(q);
        tpool_free(&p);
    }
    /* Ring 4, epoch 10: at height 0 the ring holds epochs 0-1 (heights
     * 1..19), so 4, 8, 12 and 16 share bucket 0 at the same time. */
    {
        tpool_t p = {0};
        cs_queue_cfg_t qc = {4, 10, 2};
        cs_queue_t *q = cs_queue_alloc(&qc, &p.hot, &p.rec, 0);
        uint64_t hs[] = {16, 4, 12, 8, 4, 16};
        uint32_t slots[6];
        uint64_t s = 0x51ed27ull;
        for (int i = 0; i < 6; i++) {
            cs_hash_t id;
            rnd_id(&s, &id);
            slots[i] = tpool_new(&p, hs[i], &id);
            CS_CHECK(cs_queue_insert(q, slots[i]) == CS_OK);
            CS_CHECK_EQ_U64(p.hot[slots[i]].tier, CS_TIER_RING);
        }
        cs_queue_stats_t st;
        cs_queue_stats(q, &st);
        CS_CHECK_EQ_U64(st.ring, 6);
        /* Cancel one aliased entry in the middle of the bucket. */
        cs_queue_remove(q, slots[2]);
        p.hot[slots[2]].height = 0; /* so run_exact expects it nowhere */
        CS_CHECK_EQ_U64(run_exact(q, &p, slots, 6, 20), 0);
        CS_CHECK_EQ_U64(cs_queue_size(q), 0);
        cs_queue_free(q);
        tpool_free(&p);
    }
}

/* ------------------------------------------------------------ 4. pacing */

static void test_pacing(void)
{
    /* Default sizes: ring 4096, epoch 3600, epochs 24, from height 0.
     * 36,000 timers in epoch 2 sit in tier 2 (epoch 2 <= 0 + 24 + 1) and
     * migrate to the ring during epoch 1 (blocks 3600..7199); 36,007 in
     * epoch 26 sit in the tree and migrate to tier 2 during epoch 1 too
     * (26 = 1 + 24 + 1); the 7 make the share round up at first.  At block
     * 5000, 1,800 more epoch-2 timers arrive: epoch 2 is being migrated, so
     * they go straight to the ring and the per-block share stays
     * ceil(36,000 / 3,600) = 10. */
    tpool_t p = {0};
    cs_queue_cfg_t qc = {4096, 3600, 24};
    cs_queue_t *q = cs_queue_alloc(&qc, &p.hot, &p.rec, 0);
    uint64_t s = 0x6a09e667ull;
    for (int i = 0; i < 72007; i++) {
        cs_hash_t id;
        rnd_id(&s, &id);
        uint64_t base = i < 36000 ? 7200 : 93600;
        uint32_t slot = tpool_new(&p, base + rnd(&s) % 3600, &id);
        CS_CHECK_EQ_U64(cs_queue_insert(q, slot), CS_OK);
    }
    cs_queue_stats_t st;
    cs_queue_stats(q, &st);
    CS_CHECK_EQ_U64(st.epoch, 36000);
    CS_CHECK_EQ_U64(st.tree, 36007);
    uint64_t rem_ring = 36000, rem_tree = 36007, max_r = 0, max_t = 0;
    long exact = 0, blocks = 0, zero_outside = 0;
    cs_slotvec_t out = {0};
    for (uint64_t h = 1; h <= 7200; h++) {
        if (h == 5000) {
            for (int i = 0; i < 1800; i++) {
                cs_hash_t id;
                rnd_id(&s, &id);
                uint32_t slot = tpool_new(&p, 7200 + rnd(&s) % 3600, &id);
                CS_CHECK_EQ_U64(cs_queue_insert(q, slot), CS_OK);
                CS_CHECK_EQ_U64(p.hot[slot].tier, CS_TIER_RING);
            }
        }
        CS_CHECK_EQ_U64(cs_queue_advance(q, h), CS_OK);
        out.n = 0;
        CS_CHECK_EQ_U64(cs_queue_collect(q, &out), CS_OK);
        cs_queue_stats(q, &st);
        if (h == 7199) {
            /* End of epoch 1: the epoch-2 timers are all in the ring (none
             * due yet), the epoch-26 ones all in tier 2. */
            CS_CHECK_EQ_U64(st.ring, 37800);
            CS_CHECK_EQ_U64(st.epoch, 36007);
            CS_CHECK_EQ_U64(st.tree, 0);
        }
        if (h < 3600 || h == 7200) {
            /* Epoch 0: nothing is due for migration; block 7200: done. */
            zero_outside += st.migrated_ring != 0 || st.migrated_epoch != 0;
            continue;
        }
        /* Expected share: ceil(remaining / blocks left in epoch 1), blocks
         * left = 7200 - h.  E.g. h = 3600: ceil(36000 / 3600) = 10 for the
         * ring and ceil(36007 / 3600) = 11 for the tree. */
        uint64_t left = 7200 - h;
        uint64_t wr = (rem_ring + left - 1) / left, wt = (rem_tree + left - 1) / left;
        exact += st.migrated_ring == wr && st.migrated_epoch == wt;
        blocks++;
        rem_ring -= st.migrated_ring;
        rem_tree -= st.migrated_epoch;
        if (st.migrated_ring > max_r) max_r = st.migrated_ring;
        if (st.migrated_epoch > max_t) max_t = st.migrated_epoch;
    }
    printf("pacing: max tier2->ring %llu, max tree->tier2 %llu per block\n",
           (unsigned long long)max_r, (unsigned long long)max_t);
    CS_CHECK_EQ_U64(exact, blocks);
    CS_CHECK_EQ_U64(zero_outside, 0);
    /* Within the 36,000 / 3,600 + 1 = 11 bound: exactly 10 for the ring;
     * 11 for the tree (first block, see above). */
    CS_CHECK_EQ_U64(max_r, 10);
    CS_CHECK_EQ_U64(max_t, 11);
    CS_CHECK_EQ_U64(rem_ring, 0);
    CS_CHECK_EQ_U64(rem_tree, 0);
    /* Everything still fires exactly at its height. */
    uint32_t *all = malloc(p.n * sizeof *all);
    for (uint32_t i = 0; i < p.n; i++) all[i] = i;
    CS_CHECK_EQ_U64(run_exact(q, &p, all, p.n, 97200), 0);
    CS_CHECK_EQ_U64(cs_queue_size(q), 0);
    free(all);
    cs_slotvec_free(&out);
    cs_queue_free(q);
    tpool_free(&p);

    /* epochs = 1 (ring 256, epoch 360): 3,600 timers in epoch 3 start in
     * the tree (3 > 0 + 1 + 1), move to tier 2 during epoch 1 and to the
     * ring during epoch 2, at ceil(3600 / 360) = 10 per block each. */
    qc = (cs_queue_cfg_t){256, 360, 1};
    q = cs_queue_alloc(&qc, &p.hot, &p.rec, 0);
    for (int i = 0; i < 3600; i++) {
        cs_hash_t id;
        rnd_id(&s, &id);
        uint32_t slot = tpool_new(&p, 1080 + rnd(&s) % 360, &id);
        CS_CHECK_EQ_U64(cs_queue_insert(q, slot), CS_OK);
        CS_CHECK_EQ_U64(p.hot[slot].tier, CS_TIER_TREE);
    }
    max_r = max_t = 0;
    uint64_t sum_r = 0, sum_t = 0;
    long bad = 0;
    for (uint64_t h = 1; h < 1080; h++) {
        CS_CHECK_EQ_U64(cs_queue_advance(q, h), CS_OK);
        out.n = 0;
        cs_queue_collect(q, &out);
        bad += out.n != 0;
        cs_queue_stats(q, &st);
        sum_r += st.migrated_ring;
        sum_t += st.migrated_epoch;
        if (st.migrated_ring > max_r) max_r = st.migrated_ring;
        if (st.migrated_epoch > max_t) max_t = st.migrated_epoch;
        if (h == 719) bad += st.tree != 0 || st.epoch != 3600;   /* end of epoch 1 */
        if (h == 1079) bad += st.epoch != 0 || st.ring != 3600; /* end of epoch 2 */
    }
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(max_r, 10);
    CS_CHECK_EQ_U64(max_t, 10);
    CS_CHECK_EQ_U64(sum_r, 3600);
    CS_CHECK_EQ_U64(sum_t, 3600);
    all = malloc(p.n * sizeof *all);
    for (uint32_t i = 0; i < p.n; i++) all[i] = i;
    CS_CHECK_EQ_U64(run_exact(q, &p, all, p.n, 1440), 0);
    free(all);
    cs_slotvec_free(&out);
    cs_queue_free(q);
    tpool_free(&p);
}

/* ------------------------------------------------------------ 5. memory */

static void test_memory(void)
{
    /* 10^6 pending at default sizes from height 0: 50 % in the ring
     * (epochs 0-1, heights 1..7199), 40 % in tier 2 (epochs 2-25, heights
     * 7200..93599), 10 % in the tree (heights 93600..1,093,599). */
    enum { N = 1000000 };
    tpool_t p = {0};
    cs_queue_cfg_t qc = {4096, 3600, 24};
    cs_queue_t *q = cs_queue_alloc(&qc, &p.hot, &p.rec, 0);
    uint64_t s = 0xbb67ae85ull;
    for (uint32_t i = 0; i < N; i++) {
        cs_hash_t id;
        rnd_id(&s, &id);
        uint64_t r = i % 10, h;
        if (r < 5) h = 1 + rnd(&s) % 7199;
        else if (r < 9) h = 7200 + rnd(&s) % 86400;
        else h = 93600 + rnd(&s) % 1000000;
        uint32_t slot = tpool_new(&p, h, &id);
        if (cs_queue_insert(q, slot) != CS_OK) CS_CHECK(0);
    }
    cs_queue_stats_t st;
    cs_queue_stats(q, &st);
    CS_CHECK_EQ_U64(st.ring, 500000);
    CS_CHECK_EQ_U64(st.epoch, 400000);
    CS_CHECK_EQ_U64(st.tree, 100000);
    size_t b0 = cs_queue_bytes(q);
    printf("memory: %zu bytes for %d pending = %.2f bytes/timer (after fill)\n", b0, N,
           (double)b0 / N);
    CS_CHECK(b0 <= (size_t)N * 16u);
    /* Run two epochs (more than a ring lap), replacing each fired timer
     * with a new one in whichever tier is furthest below its 50/40/10
     * share, so the mix stays put while buckets cycle; then measure again.
     * At height h (epoch c = h / 3600) a new timer lands in the ring below
     * (c + 2) * 3600, in tier 2 below (c + 26) * 3600, else in the tree. */
    cs_slotvec_t out = {0};
    for (uint64_t h = 1; h <= 7200; h++) {
        CS_CHECK_EQ_U64(cs_queue_advance(q, h), CS_OK);
        out.n = 0;
        CS_CHECK_EQ_U64(cs_queue_collect(q, &out), CS_OK);
        uint64_t rl = (h / 3600 + 2) * 3600, el = (h / 3600 + 26) * 3600;
        for (size_t k = 0; k < out.n; k++) {
            tpool_release(&p, out.v[k]);
            cs_queue_stats(q, &st);
            cs_hash_t id;
            rnd_id(&s, &id);
            uint64_t nh;
            /* deficits in units of 1/10 of a percent of N */
            int64_t dr = 500 - (int64_t)(st.ring * 1000 / N);
            int64_t de = 400 - (int64_t)(st.epoch * 1000 / N);
            int64_t dt = 100 - (int64_t)(st.tree * 1000 / N);
            if (dr >= de && dr >= dt) nh = h + 1 + rnd(&s) % (rl - h - 1);
            else if (de >= dt) nh = rl + rnd(&s) % (el - rl);
            else nh = el + rnd(&s) % 1000000;
            uint32_t slot = tpool_new(&p, nh, &id);
            if (cs_queue_insert(q, slot) != CS_OK) CS_CHECK(0);
        }
    }
    CS_CHECK_EQ_U64(cs_queue_size(q), N);
    size_t b1 = cs_queue_bytes(q);
    cs_queue_stats(q, &st);
    printf("memory: %.2f bytes/timer after two epochs of churn (ring %llu, tier2 %llu, "
           "tree %llu)\n",
           (double)b1 / N, (unsigned long long)st.ring, (unsigned long long)st.epoch,
           (unsigned long long)st.tree);
    CS_CHECK(b1 <= (size_t)N * 16u);
    cs_slotvec_free(&out);
    cs_queue_free(q);
    tpool_free(&p);
}

/* ------------------------------------------------------- 6. error paths */

static void test_errors(void)
{
    tpool_t p = {0};
    cs_queue_cfg_t bad[] = {{0, 3600, 24}, {4096, 0, 24}, {4096, 3600, 0}, {1, 1, UINT32_MAX}};
    for (int i = 0; i < 4; i++) CS_CHECK(cs_queue_alloc(&bad[i], &p.hot, &p.rec, 0) == NULL);
    cs_queue_cfg_t qc = {16, 10, 3};
    CS_CHECK(cs_queue_alloc(NULL, &p.hot, &p.rec, 0) == NULL);
    CS_CHECK(cs_queue_alloc(&qc, NULL, &p.rec, 0) == NULL);
    CS_CHECK(cs_queue_alloc(&qc, &p.hot, NULL, 0) == NULL);
    cs_queue_t *q = cs_queue_alloc(&qc, &p.hot, &p.rec, 100);
    CS_CHECK_EQ_U64(cs_queue_height(q), 100);
    cs_hash_t id;
    uint64_t s = 0x3c6ef372ull;
    rnd_id(&s, &id);
    /* Heights 100 (current) and 42 (past) are rejected (CIP-5 §4.2). */
    uint32_t a = tpool_new(&p, 100, &id), b = tpool_new(&p, 42, &id);
    CS_CHECK_EQ_U64(cs_queue_insert(q, a), CS_EHEIGHT_NOT_FUTURE);
    CS_CHECK_EQ_U64(cs_queue_insert(q, b), CS_EHEIGHT_NOT_FUTURE);
    CS_CHECK_EQ_U64(p.hot[a].tier, CS_TIER_NONE);
    CS_CHECK_EQ_U64(cs_queue_size(q), 0);
    /* Removing an unqueued slot is a no-op. */
    cs_queue_remove(q, a);
    CS_CHECK_EQ_U64(cs_queue_size(q), 0);
    /* advance must go to exactly current + 1. */
    CS_CHECK_EQ_U64(cs_queue_advance(q, 102), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_queue_advance(q, 100), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_queue_height(q), 100);
    /* One timer per tier at 100: ring holds epochs <= 11 (heights <= 119),
     * tier 2 epochs 12..14 (heights 120..149), the tree the rest. */
    uint32_t r = tpool_new(&p, 119, &id), e = tpool_new(&p, 120, &id), t = tpool_new(&p, 150, &id);
    CS_CHECK_EQ_U64(cs_queue_insert(q, r), CS_OK);
    CS_CHECK_EQ_U64(cs_queue_insert(q, e), CS_OK);
    CS_CHECK_EQ_U64(cs_queue_insert(q, t), CS_OK);
    CS_CHECK_EQ_U64(p.hot[r].tier, CS_TIER_RING);
    CS_CHECK_EQ_U64(p.hot[e].tier, CS_TIER_EPOCH);
    CS_CHECK_EQ_U64(p.hot[t].tier, CS_TIER_TREE);
    /* Collecting twice at one height yields nothing the second time. */
    cs_slotvec_t out = {0};
    CS_CHECK_EQ_U64(cs_queue_advance(q, 101), CS_OK);
    CS_CHECK_EQ_U64(cs_queue_collect(q, &out), CS_OK);
    CS_CHECK_EQ_U64(cs_queue_collect(q, &out), CS_OK);
    CS_CHECK_EQ_U64(out.n, 0);
    /* Cancel in every tier. */
    cs_queue_remove(q, r);
    cs_queue_remove(q, e);
    cs_queue_remove(q, t);
    CS_CHECK_EQ_U64(cs_queue_size(q), 0);
    CS_CHECK(p.hot[r].tier == CS_TIER_NONE && p.hot[e].tier == CS_TIER_NONE &&
             p.hot[t].tier == CS_TIER_NONE);
    /* Slot vectors. */
    for (uint32_t i = 0; i < 1000; i++) CS_CHECK_EQ_U64(cs_slotvec_push(&out, i * 7u), CS_OK);
    CS_CHECK_EQ_U64(out.n, 1000);
    CS_CHECK_EQ_U64(out.v[999], 6993);
    CS_CHECK_EQ_U64(cs_slotvec_reserve(&out, 5000), CS_OK);
    CS_CHECK(out.cap >= 5000 && out.n == 1000 && out.v[500] == 3500);
    cs_slotvec_free(&out);
    CS_CHECK(out.v == NULL && out.n == 0 && out.cap == 0);
    cs_queue_free(q);
    cs_queue_free(NULL);
    tpool_free(&p);
}

#ifdef CS_TEST_MALLOC_FAIL
/* Allocation failures leave the queue unchanged and the call retryable.
 * Ring 4, epoch 2, epochs 1 from height 0: the ring holds epochs <= 1
 * (heights 1..3), tier 2 epoch 2 (heights 4..5), the tree heights >= 6. */
static void test_enomem(void)
{
    tpool_t p = {0};
    cs_queue_cfg_t qc = {4, 2, 1};
    cs_hash_t id;
    uint64_t s = 0xa54ff53aull;
    for (int i = 0; i < 64; i++) {
        rnd_id(&s, &id);
        tpool_new(&p, 0, &id);
    }
    fail_allocs = 1;
    CS_CHECK(cs_queue_alloc(&qc, &p.hot, &p.rec, 0) == NULL);
    fail_allocs = 0;
    fail_at = 2; /* the queue header succeeds, the ring table fails */
    CS_CHECK(cs_queue_alloc(&qc, &p.hot, &p.rec, 0) == NULL);
    fail_at = 0;
    cs_queue_t *q = cs_queue_alloc(&qc, &p.hot, &p.rec, 0);
    /* The first insert into an empty ring bucket, tier-2 bucket and node
     * pool must allocate. */
    uint64_t hs[3] = {3, 5, 9};
    for (int i = 0; i < 3; i++) {
        p.hot[i].height = hs[i];
        fail_allocs = 1;
        CS_CHECK_EQ_U64(cs_queue_insert(q, (uint32_t)i), CS_ENOMEM);
        fail_allocs = 0;
        CS_CHECK_EQ_U64(p.hot[i].tier, CS_TIER_NONE);
        CS_CHECK_EQ_U64(cs_queue_size(q), (uint64_t)i);
        CS_CHECK_EQ_U64(cs_queue_insert(q, (uint32_t)i), CS_OK);
    }
    CS_CHECK_EQ_U64(p.hot[0].tier, CS_TIER_RING);
    CS_CHECK_EQ_U64(p.hot[1].tier, CS_TIER_EPOCH);
    CS_CHECK_EQ_U64(p.hot[2].tier, CS_TIER_TREE);
    cs_slotvec_t out = {0};
    CS_CHECK_EQ_U64(cs_queue_advance(q, 1), CS_OK);
    /* Block 2 (epoch 1) moves height 5 from tier 2 into the empty ring
     * bucket 5 % 4 = 1: ceil(1 / 2 blocks left) = 1 entry, which needs an
     * allocation. */
    fail_allocs = 1;
    CS_CHECK_EQ_U64(cs_queue_advance(q, 2), CS_ENOMEM);
    fail_allocs = 0;
    CS_CHECK_EQ_U64(cs_queue_height(q), 1);
    CS_CHECK_EQ_U64(p.hot[1].tier, CS_TIER_EPOCH);
    CS_CHECK_EQ_U64(cs_queue_advance(q, 2), CS_OK);
    CS_CHECK_EQ_U64(p.hot[1].tier, CS_TIER_RING);
    /* Collect at 3 must allocate the output vector, then the scratch. */
    CS_CHECK_EQ_U64(cs_queue_advance(q, 3), CS_OK);
    fail_allocs = 1;
    CS_CHECK_EQ_U64(cs_queue_collect(q, &out), CS_ENOMEM);
    fail_allocs = 0;
    CS_CHECK_EQ_U64(cs_slotvec_reserve(&out, 16), CS_OK);
    fail_allocs = 1;
    CS_CHECK_EQ_U64(cs_queue_collect(q, &out), CS_ENOMEM);
    CS_CHECK_EQ_U64(cs_slotvec_reserve(&out, 64), CS_ENOMEM);
    CS_CHECK_EQ_U64(out.cap, 16);
    fail_allocs = 0;
    CS_CHECK_EQ_U64(out.n, 0);
    CS_CHECK_EQ_U64(cs_queue_size(q), 3);
    CS_CHECK_EQ_U64(p.hot[0].tier, CS_TIER_RING);
    CS_CHECK_EQ_U64(cs_queue_collect(q, &out), CS_OK);
    CS_CHECK(out.n == 1 && out.v[0] == 0);
    /* Height 8 joins 9 in the tree (epoch 4 > 3).  Block 4 (epoch 2) moves
     * ceil(2 / 2) = 1 of them, the smaller key (8), into tier-2 bucket
     * 4 % 2 = 0, released when it drained at block 2: allocation again. */
    p.hot[3].height = 8;
    CS_CHECK_EQ_U64(cs_queue_insert(q, 3), CS_OK);
    CS_CHECK_EQ_U64(p.hot[3].tier, CS_TIER_TREE);
    fail_allocs = 1;
    CS_CHECK_EQ_U64(cs_queue_advance(q, 4), CS_ENOMEM);
    fail_allocs = 0;
    CS_CHECK_EQ_U64(cs_queue_height(q), 3);
    CS_CHECK_EQ_U64(p.hot[3].tier, CS_TIER_TREE);
    CS_CHECK_EQ_U64(cs_queue_advance(q, 4), CS_OK);
    CS_CHECK_EQ_U64(p.hot[3].tier, CS_TIER_EPOCH);
    CS_CHECK_EQ_U64(p.hot[2].tier, CS_TIER_TREE);
    long bad = 0;
    for (uint64_t h = 5; h <= 12; h++) {
        bad += cs_queue_advance(q, h) != CS_OK;
        out.n = 0;
        bad += cs_queue_collect(q, &out) != CS_OK;
        uint32_t want = h == 5 ? 1 : h == 8 ? 3 : h == 9 ? 2 : CS_NIL;
        bad += want == CS_NIL ? out.n != 0 : out.n != 1 || out.v[0] != want;
    }
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(cs_queue_size(q), 0);
    cs_slotvec_free(&out);
    cs_queue_free(q);
    tpool_free(&p);

    /* Ring inserts wait in the staging area until the next advance files
     * them into their buckets.  Ring 8, epoch 4, epochs 1 from height 0:
     * the ring holds heights 1..7.  Four timers at 5, 6, 7, 6 (slots 0..3)
     * are staged in that order; the first advance must allocate buckets 5,
     * 6 and 7 (empty).  The second allocation fails: bucket 5 has its
     * timer, slots 1, 2, 3 stay staged (renumbered 0, 1, 2), the height
     * stays 0 and nothing is lost. */
    uint32_t sl[4];
    uint64_t sh[4] = {5, 6, 7, 6};
    qc = (cs_queue_cfg_t){8, 4, 1};
    q = cs_queue_alloc(&qc, &p.hot, &p.rec, 0);
    for (int i = 0; i < 4; i++) {
        rnd_id(&s, &id);
        sl[i] = tpool_new(&p, sh[i], &id);
        CS_CHECK_EQ_U64(cs_queue_insert(q, sl[i]), CS_OK);
        CS_CHECK_EQ_U64(p.hot[sl[i]].tier, CS_TIER_RING);
    }
    fail_at = 2;
    CS_CHECK_EQ_U64(cs_queue_advance(q, 1), CS_ENOMEM);
    fail_at = 0;
    CS_CHECK_EQ_U64(cs_queue_height(q), 0);
    CS_CHECK_EQ_U64(cs_queue_size(q), 4);
    /* Cancel slot 2 (height 7, now staged at index 1): slot 3 moves into
     * its place, and must still be found there when it is cancelled. */
    cs_queue_remove(q, sl[2]);
    CS_CHECK_EQ_U64(p.hot[sl[2]].tier, CS_TIER_NONE);
    CS_CHECK_EQ_U64(cs_queue_size(q), 3);
    /* Retried, the advance files slots 1 and 3 (bucket 6); collection then
     * gives slot 0 at 5, slots 1 then 3 at 6 (insertion order), none at 7. */
    uint32_t want[3] = {sl[0], sl[1], sl[3]};
    CS_CHECK_EQ_U64(run_exact(q, &p, want, 3, 7), 0);
    CS_CHECK_EQ_U64(cs_queue_size(q), 0);
    /* A staged timer cancelled before any advance. */
    rnd_id(&s, &id);
    uint32_t x = tpool_new(&p, 9, &id);
    CS_CHECK_EQ_U64(cs_queue_insert(q, x), CS_OK);
    cs_queue_remove(q, x);
    CS_CHECK_EQ_U64(cs_queue_size(q), 0);
    CS_CHECK_EQ_U64(run_exact(q, &p, want, 0, 12), 0);
    cs_queue_free(q);
    tpool_free(&p);
}
#endif

/* Collection order with many entries at one height, out of bucket order
 * (cancels swap entries around; tree-migrated entries arrive in id order):
 * output must be by fifo_rank, exercising both sort paths. */
static void test_collect_order(void)
{
    tpool_t p = {0};
    cs_queue_cfg_t qc = {16, 10, 2};
    cs_queue_t *q = cs_queue_alloc(&qc, &p.hot, &p.rec, 0);
    uint64_t s = 0x510e527full;
    uint32_t keep[3020];
    size_t nk = 0;
    /* Height 60 (epoch 6) goes to the tree at height 0, where tier 2 takes
     * epochs <= 0 + 2 + 1 = 3; 3,000 timers there, a third cancelled at
     * random.  They reach tier 2 in key (id) order during epoch 3. */
    for (int i = 0; i < 3000; i++) {
        cs_hash_t id;
        rnd_id(&s, &id);
        uint32_t slot = tpool_new(&p, 60, &id);
        CS_CHECK_EQ_U64(cs_queue_insert(q, slot), CS_OK);
    }
    for (uint32_t i = 0; i < 3000; i++) {
        if (rnd(&s) % 3 == 0) cs_queue_remove(q, i);
        else keep[nk++] = i;
    }
    /* 20 at height 75 (epoch 7, tree): a short unsorted run. */
    for (int i = 0; i < 20; i++) {
        cs_hash_t id;
        rnd_id(&s, &id);
        uint32_t slot = tpool_new(&p, 75, &id);
        CS_CHECK_EQ_U64(cs_queue_insert(q, slot), CS_OK);
        keep[nk++] = slot;
    }
    CS_CHECK_EQ_U64(run_exact(q, &p, keep, nk, 80), 0);
    CS_CHECK_EQ_U64(cs_queue_size(q), 0);
    cs_queue_free(q);
    tpool_free(&p);
}

int main(void)
{
    test_tree_small();
    test_tree_root_changes();
    test_tree_history_independent();
    test_tree_depth();
    test_aliasing();
    test_errors();
#ifdef CS_TEST_MALLOC_FAIL
    test_enomem();
#endif
    test_collect_order();
    test_pacing();
    test_memory();
    test_property();
    return cs_test_done("queue");
}
