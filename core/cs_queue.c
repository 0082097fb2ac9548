/*
 * cs_queue.c -- the tiered calendar queue (CIP-1 §2, CIP-1 rev §2, DESIGN §2.2).
 *
 * Layout.  With E = epoch_blocks, K = epochs, R = ring_size, the current
 * height cur and its epoch c = cur / E, a new entry goes by its epoch
 * e = height / E to
 *
 *   e <= c + 1           tier 1, ring bucket height % R
 *   e <= c + K + 1       tier 2, bucket e % (K + 1)
 *   e >  c + K + 1       tier 3, the overflow treap
 *
 * Two paced migrations run inside cs_queue_advance (DESIGN §2.2: spread
 * over blocks, no spike).  During epoch c:
 *
 *   - the tier-2 bucket of epoch c + 1 moves into the ring at
 *     ceil(remaining / blocks_left) entries per block, so it is empty after
 *     the last block of epoch c;
 *   - the tree entries of epoch c + K + 1 move into their tier-2 bucket at
 *     the same kind of pace, also finishing by the end of epoch c.
 *
 * New entries for an epoch that is being migrated go straight to the
 * destination tier, so the amount to move is fixed when the epoch starts
 * and the per-block share never grows.  (Adding them to the source instead
 * makes the share grow like inflow * ln(E / blocks_left): about 2,000 moves
 * in the last block of a 3,600-block epoch at 262 inserts per block.)
 *
 * Hence, after cs_queue_advance(h): tier 1 holds epochs <= c + 1 (all of
 * epoch c), tier 2 epochs c + 1 .. c + K + 1, the tree epochs >= c + K + 1;
 * after the last block of an epoch, tier 2 holds no c + 1 and the tree no
 * c + K + 1.  Tier 2 has K + 1 buckets, one more than the K-epoch window:
 * the extra one receives the epoch entering the window while it is filled
 * from the tree, so that migration always has a whole epoch of blocks to
 * spread over -- even with K = 1 -- and is complete before the ring
 * migration of that epoch starts (K epochs later).  A bucket is reused
 * K + 1 epochs after it was drained into the ring.
 *
 * Tier 1 and 2 buckets are growable uint32_t slot arrays.  Cancellation is
 * an O(1) swap-remove through the record's qpos, so a bucket's order is not
 * insertion order: cs_queue_collect puts the due slots in fifo_rank order
 * (usually by placing a few strays into an ascending run, see
 * cs__merge_strays).  A timer inserted into tier 1 waits in a staging
 * array until the next collection or advance files it in its bucket (see
 * cs__stage_push).  The ring may be
 * smaller than the up-to-2E heights it holds; a bucket then mixes aliased
 * heights, and collection at h takes exactly the entries whose height is h.
 *
 * Tier 3 is a treap keyed by (height, timer_id, fifo_rank) whose heap
 * priority comes from the timer_id bytes (itself a keccak hash), so its
 * shape depends only on the set it holds.  Each node carries the Merkle hash
 * keccak256(left || height[8 BE] || timer_id || right), with 32 zero bytes
 * for a missing child; updates only mark nodes dirty, and cs_queue_root
 * rehashes the dirty ones once per block.  Nodes live in a pool indexed by
 * uint32_t with a free list: 32 navigation bytes (two per cache line), with
 * the 32-byte hashes in a parallel array touched only by the rehash.  The
 * navigation part copies the height and id bytes the tree compares, so a
 * descent touches half a line per level instead of a node and a record.
 */
#include <stdlib.h>
#include <string.h>

#include "cs_queue.h"

#define CS__DIRTY 0x80000000u    /* tree node flag: hash stale */
#define CS__CNT_MASK 0x7fffffffu /* tree node: subtree size bits */
#define CS__VEC_MIN 8u           /* smallest bucket allocation, in slots */
#define CS__NODE_MIN 64u         /* smallest node pool allocation */
#define CS__PF 256u              /* hot records are prefetched this many slots ahead */
#define CS__THOT 8u              /* treap levels a linking walk takes in one step (cached) */
#define CS__TGAP_MIN 4u          /* fewest collection entries between two linking steps */
#define CS__TGAP_MAX 64u         /* most */
#define CS__STAGED 0x80000000u   /* record qpos flag: index in the staging area, not a bucket */
#define CS__POS_MAX (CS__STAGED - 1u) /* bucket and staging sizes stay below the flag */
#define CS__INSERTION_MAX 32u    /* sorts of at most this many use insertion sort */

/* A tier-1 bucket: the slots whose height % ring_size is this bucket. */
typedef struct cs__rbucket {
    uint32_t *v;  /* slots; record qpos = index */
    uint32_t n;   /* used */
    uint32_t cap; /* allocated */
} cs__rbucket_t;

/* A tier-2 bucket: the slots of one future epoch.  Migration into the ring
 * takes entries from the head so they keep their arrival order. */
typedef struct cs__ebucket {
    uint32_t *v;    /* slots; live ones in [head, n); record qpos = index */
    uint32_t head;  /* first live index */
    uint32_t n;     /* one past the last live index */
    uint32_t cap;   /* allocated */
} cs__ebucket_t;

/* A tier-3 treap node's navigation part, half a cache line. */
typedef struct cs__tnode {
    uint64_t height;  /* copy of the record's due height (key, major part) */
    uint32_t key32;   /* id bytes 0..3 big-endian (key, second part) */
    uint32_t prio32;  /* id bytes 28..31 big-endian (heap priority, major part) */
    uint32_t l;       /* left child (smaller keys), CS_NIL if none; free-list link */
    uint32_t r;       /* right child (larger keys), CS_NIL if none */
    uint32_t slot;    /* the record's pool slot */
    uint32_t cnt;     /* subtree size in the low 31 bits, CS__DIRTY flag on top */
} cs__tnode_t;
CS_STATIC_ASSERT(sizeof(cs__tnode_t) == 32, "two tree nodes per cache line");

/* A tree node's Merkle hash of its subtree; stale while the node is dirty. */
typedef struct cs__thash {
    uint8_t b[32]; /* keccak256(left || height[8 BE] || timer_id || right) */
} cs__thash_t;

/* The two record arrays as the tree reads them: order and priority ties
 * need the whole id (cold) and the height and rank (hot). */
typedef struct cs__recs {
    const cs_timer_hot_t *hot; /* hot parts */
    const cs_timer_t *cold;    /* cold parts */
} cs__recs_t;

/* A (fifo_rank, slot) pair, the unit the collection sort moves. */
typedef struct cs__pair {
    uint64_t rank; /* the record's fifo_rank */
    uint32_t slot; /* its slot */
    uint32_t pad;  /* unused, keeps the size a power of two */
} cs__pair_t;

struct cs_queue {
    cs_queue_cfg_t cfg;           /* ring_size, epoch_blocks, epochs */
    cs_timer_hot_t *const *hot;   /* caller's pointer to the hot record parts */
    cs_timer_t *const *cold;      /* caller's pointer to the cold parts (ids) */
    uint64_t cur;                 /* current height */
    uint64_t ring_lim;            /* first height of epoch c + 2: below it, insert to tier 1 */
    uint64_t ep_lim;              /* first height of epoch c + K + 2: below it, tier 2 */
    uint64_t ring_mask;           /* ring_size - 1 when a power of two, else 0 */
    uint64_t mig_epoch;           /* epoch whose tree migration tree_rem counts */
    uint64_t tree_rem;            /* tree entries of epoch mig_epoch + K + 1 left to move */
    uint32_t nep;                 /* tier-2 bucket count, epochs + 1 */
    cs__rbucket_t *ring;          /* ring_size tier-1 buckets */
    cs__rbucket_t stage;          /* tier-1 inserts since the last advance; qpos = index | CS__STAGED */
    cs__ebucket_t *ep;            /* nep tier-2 buckets, epoch e at e % nep */
    cs__tnode_t *nodes;           /* node pool, 32-byte aligned */
    cs__thash_t *hashes;          /* node hashes, parallel to nodes */
    uint32_t n_nodes;             /* nodes ever handed out (high-water mark) */
    uint32_t cap_nodes;           /* nodes allocated */
    uint32_t free_node;           /* head of the free list (via l), CS_NIL if empty */
    uint32_t root;                /* treap root, CS_NIL if empty */
    cs__rbucket_t tstage;         /* tree inserts not yet linked (node indices); qpos = index | CS__STAGED */
    uint64_t *ranks;              /* collection scratch: ranks of the in-order run */
    cs__pair_t *pairs;            /* collection scratch: the out-of-order entries */
    cs__pair_t *pairs_tmp;        /* radix-sort scratch */
    uint32_t pairs_cap;           /* capacity of the three scratch arrays, in entries */
    uint64_t n_ring;              /* entries in tier 1 */
    uint64_t n_ep;                /* entries in tier 2 */
    uint64_t n_tree;              /* entries in tier 3 */
    uint64_t mig_ring;            /* tier 2 -> 1 moves in the last advance */
    uint64_t mig_ep;              /* tier 3 -> 2 moves in the last advance */
};

/* ------------------------------------------------------------ helpers */

/* a + b, saturating at UINT64_MAX (heights never get there in practice, but
 * epoch arithmetic must not wrap). */
static uint64_t cs__sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* a * b, saturating at UINT64_MAX. */
static uint64_t cs__sat_mul(uint64_t a, uint64_t b)
{
    if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
    return a * b;
}

/* First height of epoch e (saturating). */
static uint64_t cs__epoch_start(const cs_queue_t *q, uint64_t e)
{
    return cs__sat_mul(e, q->cfg.epoch_blocks);
}

/* Blocks from h through the last block of h's epoch, inclusive: the number
 * of advances left before a migration due by the end of that epoch. */
static uint64_t cs__blocks_left(const cs_queue_t *q, uint64_t h)
{
    uint64_t end = cs__epoch_start(q, cs__sat_add(h / q->cfg.epoch_blocks, 1));
    return end > h ? end - h : 1;
}

/* ceil(a / b) for b >= 1. */
static uint64_t cs__ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* The four bytes at b as a big-endian integer. */
static uint32_t cs__be32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

/* Write v as 8 big-endian bytes (CIP-1 §2.3 node hash encodes the height so). */
static void cs__put_be64(uint8_t *out, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        out[i] = (uint8_t)v;
        v >>= 8;
    }
}

/* Ring bucket of a height (CIP-1 §2.1: H % RING_BUFFER_SIZE); a mask
 * instead of a division when the size is a power of two. */
static uint32_t cs__ring_idx(const cs_queue_t *q, uint64_t height)
{
    return (uint32_t)(q->ring_mask ? height & q->ring_mask : height % q->cfg.ring_size);
}

/* Recompute the insert limits for the current epoch c. */
static void cs__set_limits(cs_queue_t *q)
{
    uint64_t c = q->cur / q->cfg.epoch_blocks;
    q->ring_lim = cs__epoch_start(q, cs__sat_add(c, 2));
    q->ep_lim = cs__epoch_start(q, cs__sat_add(c, (uint64_t)q->cfg.epochs + 2u));
}

/* Make a slot array hold at least `need` elements, growing by half (at least
 * CS__VEC_MIN) so appends are amortized O(1); never past CS__POS_MAX, so a
 * position never collides with the CS__STAGED flag.  Returns 0, or -1 with
 * the array untouched. */
static int cs__vec_grow(uint32_t **v, uint32_t *cap, uint64_t need)
{
    if (need <= *cap) return 0;
    if (need > CS__POS_MAX) return -1;
    uint64_t nc = (uint64_t)*cap + *cap / 2;
    if (nc < CS__VEC_MIN) nc = CS__VEC_MIN;
    if (nc < need) nc = need;
    if (nc > CS__POS_MAX) nc = CS__POS_MAX;
    uint32_t *p = realloc(*v, (size_t)nc * sizeof *p);
    if (!p) return -1;
    *v = p;
    *cap = (uint32_t)nc;
    return 0;
}

/* Cut a slot array's storage back to twice `peak` (its use in the cycle
 * that just ended, at least what it holds now and CS__VEC_MIN) when peak
 * is below a quarter of the capacity: steady traffic never frees and
 * regrows, and the capacity stays within [peak, 4 x peak] of recent
 * cycles.  A failed trim is harmless. */
static void cs__vec_trim(cs__rbucket_t *b, uint32_t peak)
{
    if (b->cap <= 4u * (uint64_t)peak + CS__VEC_MIN) return;
    uint32_t nc = 2u * peak > b->n ? 2u * peak : b->n;
    if (nc < CS__VEC_MIN) nc = CS__VEC_MIN;
    uint32_t *p = realloc(b->v, (size_t)nc * sizeof *p);
    if (p) {
        b->v = p;
        b->cap = nc;
    }
}

/* ---------------------------------------------------------- slot vectors */

/* Make sv hold at least cap slots.  CS_OK or CS_ENOMEM (sv untouched). */
int cs_slotvec_reserve(cs_slotvec_t *sv, size_t cap)
{
    if (cap <= sv->cap) return CS_OK;
    if (cap > SIZE_MAX / sizeof(uint32_t)) return CS_ENOMEM;
    uint32_t *p = realloc(sv->v, cap * sizeof *p);
    if (!p) return CS_ENOMEM;
    sv->v = p;
    sv->cap = cap;
    return CS_OK;
}

/* Append one slot, doubling the capacity when full.  CS_OK or CS_ENOMEM. */
int cs_slotvec_push(cs_slotvec_t *sv, uint32_t slot)
{
    if (sv->n == sv->cap) {
        size_t nc = sv->cap ? sv->cap * 2 : 16;
        if (nc < sv->cap || cs_slotvec_reserve(sv, nc) != CS_OK) return CS_ENOMEM;
    }
    sv->v[sv->n++] = slot;
    return CS_OK;
}

/* Release the storage and leave an empty, reusable vector. */
void cs_slotvec_free(cs_slotvec_t *sv)
{
    free(sv->v);
    sv->v = NULL;
    sv->n = 0;
    sv->cap = 0;
}

/* ------------------------------------------------------ tier 3: the treap */

/* Subtree size of t (0 for CS_NIL). */
static uint32_t cs__cnt(const cs__tnode_t *N, uint32_t t)
{
    return t == CS_NIL ? 0 : N[t].cnt & CS__CNT_MASK;
}

/* Recompute t's subtree size from its children and mark it dirty. */
static void cs__fix(cs__tnode_t *N, uint32_t t)
{
    N[t].cnt = (1u + cs__cnt(N, N[t].l) + cs__cnt(N, N[t].r)) | CS__DIRTY;
}

/* Tree order: (height, timer_id, fifo_rank), a total order ending in the
 * unique fifo_rank (STYLE §6).  CIP-1 §2.3 orders the set by height; the id
 * then makes the order (and the history-independent shape) a function of
 * the set alone.  Only id-prefix ties read the records. */
static int cs__key_less(const cs__tnode_t *N, const cs__recs_t *P, uint32_t a, uint32_t b)
{
    if (N[a].height != N[b].height) return N[a].height < N[b].height;
    if (N[a].key32 != N[b].key32) return N[a].key32 < N[b].key32;
    uint32_t sa = N[a].slot, sb = N[b].slot;
    int c = memcmp(P->cold[sa].id.b, P->cold[sb].id.b, CS_ID_LEN);
    if (c != 0) return c < 0;
    return P->hot[sa].fifo_rank < P->hot[sb].fifo_rank;
}

/* Heap order: 1 when a belongs above b.  The priority is the last four id
 * bytes (independent of the key's leading id bytes, so equal-height runs do
 * not degenerate into a path), then the whole id, height and fifo_rank, a
 * total order, so the treap shape is unique for a given set. */
static int cs__prio_above(const cs__tnode_t *N, const cs__recs_t *P, uint32_t a, uint32_t b)
{
    if (N[a].prio32 != N[b].prio32) return N[a].prio32 > N[b].prio32;
    uint32_t sa = N[a].slot, sb = N[b].slot;
    int c = memcmp(P->cold[sa].id.b, P->cold[sb].id.b, CS_ID_LEN);
    if (c != 0) return c > 0;
    if (P->hot[sa].height != P->hot[sb].height) return P->hot[sa].height > P->hot[sb].height;
    return P->hot[sa].fifo_rank > P->hot[sb].fifo_rank;
}

/* Split subtree t into the keys below x (*l) and the rest (*r).  Every node
 * visited gets a new child, so it is re-counted and marked dirty. */
static void cs__split(cs__tnode_t *N, const cs__recs_t *P, uint32_t t, uint32_t x, uint32_t *l,
                      uint32_t *r)
{
    if (t == CS_NIL) {
        *l = CS_NIL;
        *r = CS_NIL;
        return;
    }
    if (cs__key_less(N, P, t, x)) {
        cs__split(N, P, N[t].r, x, &N[t].r, r);
        *l = t;
    } else {
        cs__split(N, P, N[t].l, x, l, &N[t].l);
        *r = t;
    }
    cs__fix(N, t);
}

/* Join subtrees a and b (every key of a below every key of b). */
static uint32_t cs__merge(cs__tnode_t *N, const cs__recs_t *P, uint32_t a, uint32_t b)
{
    if (a == CS_NIL) return b;
    if (b == CS_NIL) return a;
    if (cs__prio_above(N, P, a, b)) {
        uint32_t c = cs__merge(N, P, N[a].r, b);
        N[a].r = c;
        cs__fix(N, a);
        return a;
    }
    uint32_t c = cs__merge(N, P, a, N[b].l);
    N[b].l = c;
    cs__fix(N, b);
    return b;
}

/* Remove node x from subtree t (x must be in it); returns the new root. */
static uint32_t cs__tdelete(cs__tnode_t *N, const cs__recs_t *P, uint32_t t, uint32_t x)
{
    CS_ASSERT(t != CS_NIL);
    if (t == x) return cs__merge(N, P, N[x].l, N[x].r);
    N[t].cnt = ((N[t].cnt & CS__CNT_MASK) - 1u) | CS__DIRTY;
    if (cs__key_less(N, P, x, t)) {
        uint32_t c = cs__tdelete(N, P, N[t].l, x);
        N[t].l = c;
    } else {
        uint32_t c = cs__tdelete(N, P, N[t].r, x);
        N[t].r = c;
    }
    return t;
}

/* Unlink the tree minimum and return its node index (tree non-empty). */
static uint32_t cs__tpop_min(cs_queue_t *q)
{
    cs__tnode_t *N = q->nodes;
    uint32_t *link = &q->root;
    while (N[*link].l != CS_NIL) {
        uint32_t t = *link;
        N[t].cnt = ((N[t].cnt & CS__CNT_MASK) - 1u) | CS__DIRTY;
        link = &N[t].l;
    }
    uint32_t x = *link;
    *link = N[x].r;
    return x;
}

/* Number of tree entries whose height is below `bound`, in O(depth). */
static uint64_t cs__tcount_below(const cs_queue_t *q, uint64_t bound)
{
    const cs__tnode_t *N = q->nodes;
    uint64_t c = 0;
    for (uint32_t t = q->root; t != CS_NIL;) {
        if (N[t].height < bound) {
            c += 1u + cs__cnt(N, N[t].l);
            t = N[t].r;
        } else {
            t = N[t].l;
        }
    }
    return c;
}

/* Take a node from the free list or the pool, growing the pool by half into
 * fresh blocks (nodes 32-byte aligned).  Returns CS_NIL when out of memory,
 * with the pool unchanged. */
static uint32_t cs__node_alloc(cs_queue_t *q)
{
    if (q->free_node != CS_NIL) {
        uint32_t x = q->free_node;
        q->free_node = q->nodes[x].l;
        return x;
    }
    if (q->n_nodes == q->cap_nodes) {
        uint64_t nc = (uint64_t)q->cap_nodes + q->cap_nodes / 2;
        if (nc < CS__NODE_MIN) nc = CS__NODE_MIN;
        if (nc >= CS_NIL) nc = CS_NIL - 1;
        if (nc <= q->cap_nodes) return CS_NIL;
        cs__tnode_t *p = aligned_alloc(32, (size_t)nc * sizeof *p);
        cs__thash_t *hp = malloc((size_t)nc * sizeof *hp);
        if (!p || !hp) {
            free(p);
            free(hp);
            return CS_NIL;
        }
        if (q->n_nodes) {
            memcpy(p, q->nodes, (size_t)q->n_nodes * sizeof *p);
            memcpy(hp, q->hashes, (size_t)q->n_nodes * sizeof *hp);
        }
        free(q->nodes);
        free(q->hashes);
        q->nodes = p;
        q->hashes = hp;
        q->cap_nodes = (uint32_t)nc;
    }
    return q->n_nodes++;
}

/* Put node x on the free list (linked through l). */
static void cs__node_free(cs_queue_t *q, uint32_t x)
{
    q->nodes[x].l = q->free_node;
    q->free_node = x;
}

/* Rehash the dirty part of subtree t (CIP-1 §2.3 Merkleized tree).  A dirty
 * node's ancestors are always dirty, so clean subtrees are skipped whole. */
static void cs__rehash(cs__tnode_t *N, cs__thash_t *H, const cs_timer_t *P, uint32_t t)
{
    if (!(N[t].cnt & CS__DIRTY)) return;
    uint8_t buf[32 + 8 + CS_ID_LEN + 32];
    uint32_t l = N[t].l, r = N[t].r;
    if (l != CS_NIL) {
        cs__rehash(N, H, P, l);
        memcpy(buf, H[l].b, 32);
    } else {
        memset(buf, 0, 32);
    }
    cs__put_be64(buf + 32, N[t].height);
    memcpy(buf + 40, P[N[t].slot].id.b, CS_ID_LEN);
    if (r != CS_NIL) {
        cs__rehash(N, H, P, r);
        memcpy(buf + 72, H[r].b, 32);
    } else {
        memset(buf + 72, 0, 32);
    }
    /* node hash = keccak256(left || height[8 BE] || timer_id || right) */
    cs_keccak256(buf, sizeof buf, H[t].b);
    N[t].cnt &= CS__CNT_MASK;
}

/* Depth of subtree t in nodes (0 for CS_NIL). */
static unsigned cs__tdepth(const cs__tnode_t *N, uint32_t t)
{
    if (t == CS_NIL) return 0;
    unsigned a = cs__tdepth(N, N[t].l), b = cs__tdepth(N, N[t].r);
    return 1u + (a > b ? a : b);
}

/* One step of linking the staged node x, *link being the link (the root or
 * a child field) its walk has reached: the treap insertion, one level at a time.
 * Either x belongs at *link (the subtree there is empty or ranks below x
 * in the heap order) and is linked there, splitting that subtree into its
 * children (returns 1), or the walk goes one level down, past a node that
 * gains a descendant and turns dirty, and requests the next node (returns
 * 0). */
static CS_NOINLINE int cs__tlink_step(cs_queue_t *q, uint32_t x, uint32_t **link)
{
    cs__tnode_t *N = q->nodes;
    cs__recs_t R = {*q->hot, *q->cold};
    uint32_t t = **link;
    if (t == CS_NIL || cs__prio_above(N, &R, x, t)) {
        cs__split(N, &R, t, x, &N[x].l, &N[x].r);
        cs__fix(N, x);
        **link = x;
        (*q->hot)[N[x].slot].qpos = x;
        return 1;
    }
    N[t].cnt = ((N[t].cnt & CS__CNT_MASK) + 1u) | CS__DIRTY;
    *link = cs__key_less(N, &R, x, t) ? &N[t].l : &N[t].r;
    if (**link != CS_NIL) __builtin_prefetch(&N[**link], 1);
    return 0;
}

/* Link the staged tree nodes from index k on, start with the walk at
 * *link (the root when a node's walk has not begun), and empty the
 * staging area. */
static CS_NOINLINE void cs__tlink_rest(cs_queue_t *q, uint32_t k, uint32_t *link)
{
    cs__rbucket_t *g = &q->tstage;
    for (; k < g->n; k++, link = &q->root)
        while (!cs__tlink_step(q, g->v[k], &link)) {}
    g->n = 0;
    cs__vec_trim(g, k); /* a bulk load is not kept */
}

/* Link every staged tree node (before anything reads the tree's shape). */
static void cs__tlink_all(cs_queue_t *q)
{
    if (q->tstage.n) cs__tlink_rest(q, 0, &q->root);
}

/* A walk linking the staged tree nodes, spread over the iterations of the
 * collection's loops (see cs__tree_push): every gap iterations one step,
 * which requests the node the next step reads, so that by then it has
 * arrived.  The treap's top levels are read by every walk and stay cached,
 * so a step goes down CS__THOT levels at once while it is above them.  The
 * gap spreads the walks' expected steps over the collection's expected
 * iterations (the staged ring entries and the due bucket), so the walks
 * end inside the loops rather than after them, where each level waits for
 * the last: a walk is about 2 ln n = 1.39 log2 n levels (n tree entries),
 * estimated as 1.5 log2 n.  k: next staged index to link (q->tstage does
 * not change during a collection); cd: iterations left until the next
 * step (UINT32_MAX: none, every node is linked); depth: levels the current
 * walk has gone down; link: where it stands.  A loop keeps cd in a local
 * and counts it down. */
typedef struct cs__tlinker {
    uint32_t k, cd, depth, gap;
    uint32_t *link;
} cs__tlinker_t;

static void cs__tl_start(cs_queue_t *q, cs__tlinker_t *L)
{
    L->k = 0;
    L->depth = 0;
    L->link = &q->root;
    if (q->tstage.n == 0) { /* the usual block: nothing to link, no gap to work out */
        L->gap = 0;
        L->cd = UINT32_MAX;
        return;
    }
    unsigned lg = q->n_tree > 1 ? 63u - (unsigned)__builtin_clzll(q->n_tree) : 0u;
    uint64_t lv = lg + lg / 2u, steps = (uint64_t)q->tstage.n * (lv > CS__THOT ? lv - CS__THOT : 1u) + 1u;
    uint64_t gap = ((uint64_t)q->stage.n + q->ring[cs__ring_idx(q, q->cur)].n) / steps;
    L->gap = gap < CS__TGAP_MIN ? CS__TGAP_MIN : gap > CS__TGAP_MAX ? CS__TGAP_MAX : (uint32_t)gap;
    L->cd = L->gap;
    if (q->root != CS_NIL) __builtin_prefetch(&q->nodes[q->root], 1);
}

/* Take one step (CS__THOT levels while the walk is above them); return
 * the new countdown. */
static CS_NOINLINE uint32_t cs__tl_tick(cs_queue_t *q, cs__tlinker_t *L)
{
    for (;;) {
        if (cs__tlink_step(q, q->tstage.v[L->k], &L->link)) {
            L->link = &q->root;
            L->depth = 0;
            if (++L->k == q->tstage.n) return UINT32_MAX;
        } else if (++L->depth >= CS__THOT) {
            return L->gap;
        }
    }
}

/* Link what the walk has not: finish it and empty the staging area. */
static void cs__tl_finish(cs_queue_t *q, cs__tlinker_t *L)
{
    if (q->tstage.n) cs__tlink_rest(q, L->k, L->link);
}

/* ------------------------------------------------------ tiers 1 and 2 */

/* Append slot to its ring bucket (height % ring_size).  CS_OK / CS_ENOMEM. */
static int cs__ring_push(cs_queue_t *q, cs_timer_hot_t *t, uint32_t slot)
{
    /* CIP-1 §2.1: a timer due at H sits in bucket H % RING_BUFFER_SIZE. */
    cs__rbucket_t *b = &q->ring[cs__ring_idx(q, t->height)];
    if (b->n == b->cap && cs__vec_grow(&b->v, &b->cap, (uint64_t)b->n + 1) != 0) return CS_ENOMEM;
    t->qpos = b->n;
    t->tier = CS_TIER_RING;
    b->v[b->n++] = slot;
    q->n_ring++;
    return CS_OK;
}

/* Tier 1 through the staging area.  A timer bound for the ring is appended
 * to one array (q->stage) at insert and moved to its bucket at the start of
 * the next collection (or advance, whichever comes first), before anything
 * can be due at its height (it is above the current height).  Filing at the
 * collection of the block that inserted it finds the new records still in
 * the cache; the next advance is a block later.  It is in tier 1
 * from the insert on (tier RING, counted in n_ring); its qpos is the
 * staging index with the CS__STAGED flag.  Why: a bucket's tail is a
 * random cache line among ring_size; appended one insert at a time, among
 * the caller's writes to the new record, its miss holds up the stores
 * behind it, while the flush's loop of independent appends lets the core
 * overlap the misses (bench core: about 2 ns of ~40 per timer at 10^6
 * pending).  Buckets receive the same entries in the same order as
 * inserting them one by one would. */

/* Append slot to the full staging area after growing it (out of line, so
 * the append below calls nothing).  CS_OK / CS_ENOMEM. */
static int cs__stage_push(cs_queue_t *q, cs_timer_hot_t *t, uint32_t slot);
static CS_NOINLINE int cs__stage_grow_push(cs_queue_t *q, cs_timer_hot_t *t, uint32_t slot)
{
    cs__rbucket_t *g = &q->stage;
    if (cs__vec_grow(&g->v, &g->cap, (uint64_t)g->n + 1) != 0) return CS_ENOMEM;
    return cs__stage_push(q, t, slot);
}

/* Append slot to the staging area.  CS_OK / CS_ENOMEM. */
static int cs__stage_push(cs_queue_t *q, cs_timer_hot_t *t, uint32_t slot)
{
    cs__rbucket_t *g = &q->stage;
    if (g->n == g->cap) return cs__stage_grow_push(q, t, slot);
    t->qpos = g->n | CS__STAGED;
    t->tier = CS_TIER_RING;
    g->v[g->n++] = slot;
    q->n_ring++;
    return CS_OK;
}

/* Remove v[pos] from the slot array v[0..*n) by moving the last entry into
 * its place (whose qpos becomes pos | flag). */
static void cs__swap_remove(uint32_t *v, uint32_t *n, uint32_t pos, cs_timer_hot_t *P, uint32_t flag)
{
    uint32_t last = v[--*n];
    if (pos != *n) {
        v[pos] = last;
        P[last].qpos = pos | flag;
    }
}

/* Move every staged entry, in staging order, to its ring bucket (CIP-1
 * §2.1: bucket H % RING_BUFFER_SIZE).  Returns CS_OK, or CS_ENOMEM when a
 * bucket cannot grow: the entries already moved stay moved, the rest stay
 * staged (renumbered from 0), so the queue is valid and the flush can be
 * retried. */
static int cs__stage_flush(cs_queue_t *q, cs__tlinker_t *L)
{
    cs__rbucket_t *g = &q->stage;
    cs_timer_hot_t *P = *q->hot;
    uint32_t n = g->n, i, cd = L ? L->cd : UINT32_MAX; /* n < 2^31: no step without L */
    if (n == 0) return CS_OK; /* (and keeps the capacity: no trim to nothing) */
    for (i = 0; i < n; i++) {
        if (--cd == 0) cd = cs__tl_tick(q, L);
        uint32_t slot = g->v[i];
        cs_timer_hot_t *t = &P[slot];
        cs__rbucket_t *b = &q->ring[cs__ring_idx(q, t->height)];
        if (b->n == b->cap && cs__vec_grow(&b->v, &b->cap, (uint64_t)b->n + 1) != 0) break;
        t->qpos = b->n;
        b->v[b->n++] = slot;
    }
    if (L) L->cd = cd;
    if (i == n) {
        g->n = 0;
        cs__vec_trim(g, n); /* a bulk load before the first block is not kept */
        return CS_OK;
    }
    for (uint32_t k = i; k < n; k++) {
        g->v[k - i] = g->v[k];
        P[g->v[k - i]].qpos = (k - i) | CS__STAGED;
    }
    g->n = n - i;
    return CS_ENOMEM;
}

/* The tier-2 bucket of height's epoch: epoch % (epochs + 1). */
static cs__ebucket_t *cs__ep_bucket(cs_queue_t *q, uint64_t height)
{
    return &q->ep[(height / q->cfg.epoch_blocks) % q->nep];
}

/* Append slot to the tier-2 bucket of its epoch (CIP-1 §2.2).  CS_OK /
 * CS_ENOMEM. */
static int cs__ep_push(cs_queue_t *q, cs_timer_hot_t *t, uint32_t slot)
{
    cs__ebucket_t *b = cs__ep_bucket(q, t->height);
    if (b->n == b->cap && cs__vec_grow(&b->v, &b->cap, (uint64_t)b->n + 1) != 0) return CS_ENOMEM;
    t->qpos = b->n;
    t->tier = CS_TIER_EPOCH;
    b->v[b->n++] = slot;
    q->n_ep++;
    return CS_OK;
}

/* --------------------------------------------------------- lifecycle */

/*
 * Create an empty queue at `height`.  Nothing is pending, so the current
 * epoch's migrations are trivially complete.  NULL on a bad configuration
 * or no memory.
 */
cs_queue_t *cs_queue_alloc(const cs_queue_cfg_t *cfg, cs_timer_hot_t *const *hot, cs_timer_t *const *cold,
                           uint64_t height)
{
    if (!cfg || !hot || !cold || cfg->ring_size < 1 || cfg->epoch_blocks < 1 || cfg->epochs < 1 ||
        cfg->epochs == UINT32_MAX)
        return NULL;
    cs_queue_t *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->cfg = *cfg;
    q->hot = hot;
    q->cold = cold;
    q->cur = height;
    q->nep = cfg->epochs + 1u;
    q->mig_epoch = height / cfg->epoch_blocks;
    q->tree_rem = 0;
    if ((cfg->ring_size & (cfg->ring_size - 1u)) == 0) q->ring_mask = cfg->ring_size - 1u;
    cs__set_limits(q);
    q->free_node = CS_NIL;
    q->root = CS_NIL;
    q->ring = calloc(cfg->ring_size, sizeof *q->ring);
    q->ep = calloc(q->nep, sizeof *q->ep);
    if (!q->ring || !q->ep) {
        cs_queue_free(q);
        return NULL;
    }
    return q;
}

/* Free the queue and everything it holds (never the records).  NULL is a
 * no-op. */
void cs_queue_free(cs_queue_t *q)
{
    if (!q) return;
    if (q->ring)
        for (uint32_t i = 0; i < q->cfg.ring_size; i++) free(q->ring[i].v);
    if (q->ep)
        for (uint32_t i = 0; i < q->nep; i++) free(q->ep[i].v);
    free(q->ring);
    free(q->ep);
    free(q->stage.v);
    free(q->tstage.v);
    free(q->nodes);
    free(q->hashes);
    free(q->ranks);
    free(q->pairs);
    free(q->pairs_tmp);
    free(q);
}

/* Tier 3 through a staging area.  A far-future timer (CIP-1 §2.3: the
 * overflow sorted set) gets its node at insert, filled with its key and
 * priority, and waits unlinked in q->tstage until the next collection,
 * advance or root computation links it (cs__tlink_step).  It is in tier 3
 * from the insert on (tier TREE, counted in n_tree); its qpos is the
 * staging index with the CS__STAGED flag, and becomes its node index when
 * linked.  Why: linking walks one root-to-leaf path of the treap, about
 * 2 ln n nodes, each a dependent load that usually misses the cache (some
 * 4,000 cycles at 10^5 nodes); the collection interleaves those steps with
 * its own scan, so the misses overlap with useful work instead of
 * stalling one after another.  The treap's shape depends only on the set
 * it holds, so linking later, or in another order, gives the same tree,
 * the same Merkle root and the same tier counts.  Kept out of line, so the
 * common tier-1 insert is a leaf that saves no registers. */
static CS_NOINLINE int cs__tree_push(cs_queue_t *q, cs_timer_hot_t *t, uint32_t slot)
{
    const cs_hash_t *id = &(*q->cold)[slot].id;
    cs__rbucket_t *g = &q->tstage;
    if (g->n == g->cap && cs__vec_grow(&g->v, &g->cap, (uint64_t)g->n + 1) != 0) return CS_ENOMEM;
    uint32_t x = cs__node_alloc(q);
    if (x == CS_NIL) return CS_ENOMEM;
    cs__tnode_t *N = q->nodes;
    N[x].height = t->height;
    N[x].key32 = cs__be32(id->b);
    N[x].prio32 = cs__be32(id->b + CS_ID_LEN - 4);
    N[x].l = CS_NIL;
    N[x].r = CS_NIL;
    N[x].slot = slot;
    N[x].cnt = 1u | CS__DIRTY;
    t->tier = CS_TIER_TREE;
    t->qpos = g->n | CS__STAGED;
    g->v[g->n++] = x;
    q->n_tree++;
    return CS_OK;
}

/*
 * Insert slot in the tier its epoch selects (see the file comment; CIP-1
 * §2.1-2.3): O(1) in tiers 1-2, O(log n) in the tree.  The record must not
 * be queued already (tier NONE).  Returns CS_OK, CS_EHEIGHT_NOT_FUTURE
 * (height <= current height, CIP-5 §4.2) or CS_ENOMEM; on error the queue
 * and record are unchanged.
 */
int cs_queue_insert(cs_queue_t *q, uint32_t slot)
{
    cs_timer_hot_t *t = &(*q->hot)[slot];
    CS_ASSERT(t->tier == CS_TIER_NONE);
    if (t->height <= q->cur) return CS_EHEIGHT_NOT_FUTURE;
    /* epoch <= c + 1: ring; epoch <= c + K + 1: tier 2 (file comment) */
    if (t->height < q->ring_lim) return cs__stage_push(q, t, slot);
    if (t->height < q->ep_lim) return cs__ep_push(q, t, slot);
    return cs__tree_push(q, t, slot);
}

/*
 * Remove a queued slot (cancel, CIP-1 rev §2 "cancel works in every tier").
 * Tiers 1-2: O(1) swap-remove, the moved entry's qpos is updated.  Tier 3:
 * O(log n) treap delete, path marked dirty.  A slot with tier NONE is left
 * alone.  The record ends with tier NONE and qpos CS_NIL.
 */
void cs_queue_remove(cs_queue_t *q, uint32_t slot)
{
    cs_timer_hot_t *P = *q->hot;
    cs_timer_hot_t *t = &P[slot];
    uint32_t pos = t->qpos;
    switch (t->tier) {
    case CS_TIER_RING: {
        cs__rbucket_t *b = pos & CS__STAGED ? &q->stage : &q->ring[cs__ring_idx(q, t->height)];
        uint32_t i = pos & ~CS__STAGED;
        CS_ASSERT(i < b->n && b->v[i] == slot);
        cs__swap_remove(b->v, &b->n, i, P, pos & CS__STAGED);
        q->n_ring--;
        break;
    }
    case CS_TIER_EPOCH: {
        cs__ebucket_t *b = cs__ep_bucket(q, t->height);
        CS_ASSERT(pos >= b->head && pos < b->n && b->v[pos] == slot);
        cs__swap_remove(b->v, &b->n, pos, P, 0);
        if (b->head == b->n) b->head = b->n = 0;
        q->n_ep--;
        break;
    }
    case CS_TIER_TREE: {
        if (pos & CS__STAGED) { /* not linked yet: out of the staging area */
            cs__rbucket_t *g = &q->tstage;
            uint32_t i = pos & ~CS__STAGED, x = g->v[i];
            CS_ASSERT(i < g->n && q->nodes[x].slot == slot);
            uint32_t last = g->v[--g->n];
            if (i != g->n) {
                g->v[i] = last;
                P[q->nodes[last].slot].qpos = i | CS__STAGED;
            }
            cs__node_free(q, x);
            q->n_tree--; /* never counted in tree_rem: its epoch is past the migration's */
            break;
        }
        CS_ASSERT(pos < q->n_nodes && q->nodes[pos].slot == slot);
        cs__recs_t R = {P, *q->cold};
        q->root = cs__tdelete(q->nodes, &R, q->root, pos);
        cs__node_free(q, pos);
        q->n_tree--;
        if (t->height / q->cfg.epoch_blocks ==
            cs__sat_add(q->mig_epoch, (uint64_t)q->cfg.epochs + 1u)) {
            CS_ASSERT(q->tree_rem > 0);
            q->tree_rem--; /* it was waiting for this epoch's migration */
        }
        break;
    }
    default:
        return;
    }
    t->tier = CS_TIER_NONE;
    t->qpos = CS_NIL;
}

/* Tree -> tier 2 for epoch c + K + 1 during epoch c (CIP-1 §2.3 "epoch
 * maintenance also migrates timers now within range"), paced at
 * ceil(remaining / blocks_left) per block so it ends by the epoch's last
 * block.  The count is taken once, at the epoch's first advance: later
 * inserts of that epoch go straight to tier 2, so only cancels (handled in
 * cs_queue_remove) and moves change it.  Entries leave smallest key first. */
static int cs__tree_migrate(cs_queue_t *q, uint64_t h)
{
    uint64_t c = h / q->cfg.epoch_blocks;
    uint64_t target = cs__sat_add(c, (uint64_t)q->cfg.epochs + 1u);
    if (c != q->mig_epoch) {
        CS_ASSERT(q->tree_rem == 0);
        uint64_t bound = cs__epoch_start(q, cs__sat_add(target, 1));
        q->tree_rem = q->root == CS_NIL ? 0 : cs__tcount_below(q, bound);
        q->mig_epoch = c;
    }
    if (q->tree_rem == 0) return CS_OK;
    uint64_t rate = cs__ceil_div(q->tree_rem, cs__blocks_left(q, h));
    cs_timer_hot_t *P = *q->hot;
    for (uint64_t i = 0; i < rate; i++) {
        /* The minimum is the next entry to move; reserve its bucket slot
         * first so a failure leaves it in the tree. */
        uint32_t m = q->root;
        CS_ASSERT(m != CS_NIL);
        while (q->nodes[m].l != CS_NIL) m = q->nodes[m].l;
        CS_ASSERT(q->nodes[m].height / q->cfg.epoch_blocks == target);
        cs__ebucket_t *b = cs__ep_bucket(q, q->nodes[m].height);
        if (b->n == b->cap && cs__vec_grow(&b->v, &b->cap, (uint64_t)b->n + 1) != 0)
            return CS_ENOMEM;
        uint32_t y = cs__tpop_min(q);
        uint32_t slot = q->nodes[y].slot;
        cs__node_free(q, y);
        q->n_tree--;
        q->tree_rem--;
        cs_timer_hot_t *t = &P[slot];
        t->tier = CS_TIER_NONE;
        int rc = cs__ep_push(q, t, slot);
        CS_ASSERT(rc == CS_OK);
        q->mig_ep++;
    }
    return CS_OK;
}

/* Tier 2 -> ring for epoch c + 1 during epoch c (CIP-1 §2.2), paced at
 * ceil(remaining / blocks_left) per block.  The bucket only shrinks during
 * epoch c (new entries of epoch c + 1 go to the ring), so the share never
 * grows.  The drained bucket's storage is released. */
static int cs__ring_migrate(cs_queue_t *q, uint64_t h)
{
    uint64_t target = cs__sat_add(h / q->cfg.epoch_blocks, 1);
    cs__ebucket_t *b = &q->ep[target % q->nep];
    uint64_t rem = b->n - b->head;
    if (rem == 0) return CS_OK;
    uint64_t lo = cs__epoch_start(q, target), hi = cs__epoch_start(q, cs__sat_add(target, 1));
    uint64_t rate = cs__ceil_div(rem, cs__blocks_left(q, h));
    cs_timer_hot_t *P = *q->hot;
    uint32_t end = b->head + (uint32_t)rate; /* rate <= rem */
    for (uint32_t k = b->head; k < end && k - b->head < CS__PF; k++) __builtin_prefetch(&P[b->v[k]], 1);
    for (uint64_t i = 0; i < rate; i++) {
        uint32_t k = b->head;
        if (end - k > CS__PF) __builtin_prefetch(&P[b->v[k + CS__PF]], 1);
        uint32_t slot = b->v[k];
        cs_timer_hot_t *t = &P[slot];
        CS_ASSERT(t->height >= lo && t->height < hi);
        t->tier = CS_TIER_NONE;
        if (cs__ring_push(q, t, slot) != CS_OK) {
            t->tier = CS_TIER_EPOCH;
            return CS_ENOMEM;
        }
        b->head++;
        q->n_ep--;
        q->mig_ring++;
    }
    if (b->head == b->n) {
        free(b->v);
        b->v = NULL;
        b->cap = 0;
        b->head = b->n = 0;
    }
    return CS_OK;
}

/*
 * Start block h = current height + 1 (CIP-1 §3 step "epoch maintenance"):
 * run this block's share of both migrations, then make h current.  Returns
 * CS_OK, CS_EINVAL when h is not current + 1, or CS_ENOMEM with the height
 * unchanged (the queue stays valid and the call may be retried).
 */
int cs_queue_advance(cs_queue_t *q, uint64_t h)
{
    if (q->cur == UINT64_MAX || h != q->cur + 1) return CS_EINVAL;
    q->mig_ring = 0;
    q->mig_ep = 0;
    /* The last block's ring inserts first, as if each had gone straight to
     * its bucket. */
    int rc = cs__stage_flush(q, NULL);
    cs__tlink_all(q); /* the migration counts and walks the linked tree */
    if (rc == CS_OK) rc = cs__tree_migrate(q, h);
    if (rc == CS_OK) rc = cs__ring_migrate(q, h);
    if (rc != CS_OK) return rc;
    q->cur = h;
    cs__set_limits(q);
    return CS_OK;
}

/* Sort pairs by rank: insertion sort for short runs, otherwise an LSD radix
 * sort over the bits in which the ranks differ (ranks are unique). */
static void cs__sort_pairs(cs__pair_t *a, cs__pair_t *tmp, uint32_t m)
{
    if (m <= CS__INSERTION_MAX) {
        for (uint32_t i = 1; i < m; i++) {
            cs__pair_t x = a[i];
            uint32_t j = i;
            while (j > 0 && a[j - 1].rank > x.rank) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    uint64_t lo = a[0].rank, hi = a[0].rank;
    for (uint32_t i = 1; i < m; i++) {
        if (a[i].rank < lo) lo = a[i].rank;
        if (a[i].rank > hi) hi = a[i].rank;
    }
    uint64_t span = hi - lo;
    unsigned bits = span ? 64u - (unsigned)__builtin_clzll(span) : 0u;
    cs__pair_t *src = a, *dst = tmp;
    for (unsigned sh = 0; sh < bits; sh += 8) {
        uint32_t cnt[256];
        memset(cnt, 0, sizeof cnt);
        for (uint32_t i = 0; i < m; i++) cnt[((src[i].rank - lo) >> sh) & 255u]++;
        uint32_t sum = 0;
        for (unsigned d = 0; d < 256; d++) {
            uint32_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < m; i++) dst[cnt[((src[i].rank - lo) >> sh) & 255u]++] = src[i];
        cs__pair_t *s = src;
        src = dst;
        dst = s;
    }
    if (src != a) memcpy(a, src, (size_t)m * sizeof *a);
}

/* Put the due entries of a collection in rank order.  On entry o[0..m)
 * holds an ascending run (its ranks in rk[0..m)) and st[0..ns) the entries
 * that broke it.  The usual bucket is in arrival order except for entries
 * migrated in from tier 2 after younger direct inserts (and cancellation
 * swaps), so strays are few: each, largest first, is placed by a binary
 * search over the run and one move of the run's tail (O(ns log m) compares
 * and at most ns block moves).  More than CS__INSERTION_MAX strays: one
 * sort of everything.  Writes the ordered m + ns slots to o. */
static void cs__merge_strays(uint32_t *o, const uint64_t *rk, uint32_t m, cs__pair_t *st, uint32_t ns,
                             cs__pair_t *tmp)
{
    if (ns > CS__INSERTION_MAX) {
        for (uint32_t k = 0; k < m; k++) {
            st[ns + k].rank = rk[k];
            st[ns + k].slot = o[k];
        }
        cs__sort_pairs(st, tmp, m + ns);
        for (uint32_t k = 0; k < m + ns; k++) o[k] = st[k].slot;
        return;
    }
    cs__sort_pairs(st, tmp, ns); /* insertion sort */
    uint32_t hi = m; /* o[0..hi) is still the run's prefix */
    for (uint32_t j = ns; j > 0; j--) {
        uint64_t r = st[j - 1].rank;
        uint32_t lo = 0, up = hi; /* first run index in [0, hi) whose rank exceeds r */
        while (lo < up) {
            uint32_t mid = lo + (up - lo) / 2u;
            if (rk[mid] < r) lo = mid + 1u;
            else up = mid;
        }
        memmove(o + lo + j, o + lo, (size_t)(hi - lo) * sizeof *o);
        o[lo + j - 1u] = st[j - 1].slot;
        hi = lo;
    }
}

/* Grow the collection scratch to n entries.  CS_OK or CS_ENOMEM (the old
 * scratch kept). */
static CS_NOINLINE int cs__scratch_grow(cs_queue_t *q, uint32_t n)
{
    uint64_t *rk = malloc((size_t)n * sizeof *rk);
    cs__pair_t *p1 = malloc((size_t)n * sizeof *p1), *p2 = malloc((size_t)n * sizeof *p2);
    if (!rk || !p1 || !p2) {
        free(rk);
        free(p1);
        free(p2);
        return CS_ENOMEM;
    }
    free(q->ranks);
    free(q->pairs);
    free(q->pairs_tmp);
    q->ranks = rk;
    q->pairs = p1;
    q->pairs_tmp = p2;
    q->pairs_cap = n;
    return CS_OK;
}

/*
 * Take every entry due at exactly the current height out of the ring (all of
 * the current epoch is there, see the file comment) and append the slots to
 * out in fifo_rank order (CIP-5 §5 insertion order).  Aliased entries stay,
 * compacted, with their qpos updated.  Collected records get tier NONE and
 * qpos CS_NIL.  Returns CS_OK, or CS_ENOMEM with nothing removed.  The
 * caller collects once per height, after cs_queue_advance.
 */
int cs_queue_collect(cs_queue_t *q, cs_slotvec_t *out)
{
    uint64_t h = q->cur;
    cs__rbucket_t *b = &q->ring[cs__ring_idx(q, h)];
    /* Staged tree nodes are linked along the way (cs__tree_push). */
    cs__tlinker_t L;
    cs__tl_start(q, &L);
    if (q->stage.n && cs__stage_flush(q, &L) != CS_OK) {
        cs__tl_finish(q, &L); /* a walk is never left half done */
        return CS_ENOMEM;
    }
    uint32_t n = b->n;
    if (n == 0) {
        cs__tl_finish(q, &L);
        return CS_OK;
    }
    size_t need = out->n + n, nc = out->cap * 2;
    if ((out->cap - out->n < n && cs_slotvec_reserve(out, nc > need ? nc : need) != CS_OK) ||
        (n > q->pairs_cap && cs__scratch_grow(q, n) != CS_OK)) {
        cs__tl_finish(q, &L);
        return CS_ENOMEM;
    }
    cs_timer_hot_t *P = *q->hot;
    uint32_t *v = b->v, *o = out->v + out->n, cd = L.cd;
    uint64_t *rk = q->ranks;
    cs__pair_t *st = q->pairs;
    uint32_t w = 0, m = 0, ns = 0;
    /* The hot records are random lines, usually in memory: the first
     * CS__PF are requested before the loop, then one CS__PF ahead, so the
     * misses overlap.  One hot record is half a cache line: a single
     * prefetch covers it.  (Prefetches stay inline: GCC drops calls to a
     * function that only prefetches, as having no effect.)  Due entries
     * ascending in rank go straight to out; the others wait in st. */
    for (uint32_t i = 0; i < n && i < CS__PF; i++) __builtin_prefetch(&P[v[i]], 1);
    for (uint32_t i = 0; i < n; i++) {
        if (i + CS__PF < n) __builtin_prefetch(&P[v[i + CS__PF]], 1);
        if (--cd == 0) cd = cs__tl_tick(q, &L);
        uint32_t s = v[i];
        cs_timer_hot_t *t = &P[s];
        if (t->height == h) {
            uint64_t r = t->fifo_rank;
            t->tier = CS_TIER_NONE;
            t->qpos = CS_NIL;
            if (m == 0 || r > rk[m - 1]) {
                rk[m] = r;
                o[m++] = s;
            } else {
                st[ns].rank = r;
                st[ns++].slot = s;
            }
        } else {
            if (w != i) {
                v[w] = s;
                t->qpos = w;
            }
            w++;
        }
    }
    cs__tl_finish(q, &L);
    b->n = w;
    q->n_ring -= m + ns;
    /* CIP-5 §5: due timers fire in insertion (fifo_rank) order. */
    if (ns) cs__merge_strays(o, rk, m, st, ns, q->pairs_tmp);
    out->n += m + ns;
    /* Keep the bucket's capacity from lap to lap: n (before collection) is
     * the peak of this lap. */
    cs__vec_trim(b, n);
    return CS_OK;
}

/*
 * Rehash the dirty tree nodes and write the tier-3 root digest (CIP-1 §2.3
 * Merkleized tree; DESIGN §2.2: once per block).  32 zero bytes when the
 * tree is empty.
 */
void cs_queue_root(cs_queue_t *q, cs_hash_t *root)
{
    cs__tlink_all(q);
    if (q->root == CS_NIL) {
        memset(root->b, 0, sizeof root->b);
        return;
    }
    cs__rehash(q->nodes, q->hashes, *q->cold, q->root);
    memcpy(root->b, q->hashes[q->root].b, sizeof root->b);
}

/* Per-tier counts and the last advance's migration counts. */
void cs_queue_stats(const cs_queue_t *q, cs_queue_stats_t *st)
{
    st->ring = q->n_ring;
    st->epoch = q->n_ep;
    st->tree = q->n_tree;
    st->migrated_ring = q->mig_ring;
    st->migrated_epoch = q->mig_ep;
}

/* The current height (the last one advanced to, or the creation height). */
uint64_t cs_queue_height(const cs_queue_t *q) { return q->cur; }

/* Entries pending in all three tiers. */
uint64_t cs_queue_size(const cs_queue_t *q) { return q->n_ring + q->n_ep + q->n_tree; }

/* Bytes allocated by the queue: its header, bucket tables and arrays (at
 * capacity), the node pool and the collection scratch.  Excludes records. */
size_t cs_queue_bytes(const cs_queue_t *q)
{
    size_t s = sizeof *q + (size_t)q->cfg.ring_size * sizeof *q->ring;
    s += (size_t)q->nep * sizeof *q->ep;
    for (uint32_t i = 0; i < q->cfg.ring_size; i++) s += (size_t)q->ring[i].cap * sizeof(uint32_t);
    for (uint32_t i = 0; i < q->nep; i++) s += (size_t)q->ep[i].cap * sizeof(uint32_t);
    s += (size_t)q->cap_nodes * (sizeof(cs__tnode_t) + sizeof(cs__thash_t));
    s += (size_t)q->pairs_cap * (2u * sizeof(cs__pair_t) + sizeof(uint64_t));
    s += (size_t)(q->stage.cap + q->tstage.cap) * sizeof(uint32_t);
    return s;
}

/* Depth of the overflow treap (0 when empty); O(n), for tests. */
unsigned cs_queue_tree_depth(cs_queue_t *q)
{
    cs__tlink_all(q);
    return q->root == CS_NIL ? 0u : cs__tdepth(q->nodes, q->root);
}
