/*
 * cs_bench_core.c -- the scheduler-core benchmark.
 *
 * Workload: N pending timers (10^5 and 10^6) whose heights are spread over
 * the three horizons of the default queue geometry (ring 4,096, epoch
 * 3,600, 24 epochs): 50 % near (1..4,095 blocks ahead, tier 1), 40 % in
 * the epoch window (4,096..86,399, tier 2) and 10 % beyond it
 * (86,400..172,799, tier 3); new timers arrive 96.2 / 3.5 / 0.3 % over the
 * same horizons, which keeps that pending mix (see cs__bench_delta).  After the N timers are placed, B
 * blocks run; in each block the
 * scheduler (1) runs epoch maintenance, (2) schedules as many new timers as
 * fired in the previous block (so N stays pending), (3) collects the timers
 * due, (4) builds each one's deferred transaction (CIP-5 §5.2 fields) in
 * FIFO order and (5) removes the record.  ns_per_timer = measured time of
 * the B blocks / timers fired in them: one full lifecycle per timer.
 * Steps (4) and (5) are one loop shared by the three runs below
 * (cs__bdeliver_block), fed the block's due slots in order; it requests
 * the records before reading them (DESIGN-NOTES N49).
 *
 * The baseline is the same workload on a binary min-heap ordered by
 * (height, insertion rank) over the same record pool, built in this binary
 * and run in the same process, so speedup_vs_heap is a same-run ratio.
 *
 * Rounds.  Each size runs R rounds (--rounds, default 5, 3 with --quick);
 * a round runs the queue, the heap and the harness below one after the
 * other (queue first in even rounds, harness first in odd ones, so a drift
 * of the machine's speed during a round favours neither side), each on a
 * fresh pool.  The reported figures are medians over the rounds, a ratio
 * being taken within its round first (speedup_vs_heap is the median of the
 * rounds' heap / queue ratios, listed in speedup_vs_heap_rounds with their
 * min and max).  On a shared machine the heap's time per timer moves with
 * the memory latency of the moment (its pops wait on one dependent miss
 * after another; the queue's misses overlap), so one pair of runs can
 * catch the two sides in different states; the median of paired rounds
 * does not depend on one such pair.  At 10^6 pending the section also
 * prints the targets (50 ns per timer, 8x the heap) and whether the
 * medians meet them.
 * Timer ids are precomputed; their keccak cost is reported separately as
 * id_ns_per_timer (it is the same for any scheduler).
 *
 * The harness's own cost (record fills, height draws, building the
 * deliveries, the checksum, the free list) is measured in a third run with
 * the scheduler replaced by a FIFO of slots and the same timers per block:
 * harness_ns_per_timer; net_ns_per_timer and heap_net_ns_per_timer
 * subtract it, and speedup_vs_heap_net is their ratio.
 *
 * Every time is also measured as the thread's CPU time (*_cpu_ns_per_timer,
 * speedup_vs_heap_cpu, speedup_vs_heap_net_cpu), which a loaded shared
 * machine disturbs much less than wall time (waiting for a core is not
 * counted; cache interference from other processes still is).
 */
#include "cs_bench_core.h"
#include "cs_queue.h"
#include "cs_sched.h"
#include "cs_timer.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The harness's per-timer helpers are inlined into the block loops, and
 * the counters they advance (cs__bgen_t) are locals of those loops, never
 * passed to a function that is not inlined: the compiler then keeps them
 * in registers across the scheduler's calls.  Kept in the pool, they were
 * reloaded and stored around every record write and call, and the
 * checksum's multiply chain went through memory each fire (store
 * forwarding on the critical path), a cost the harness paid and the
 * schedulers did not cause. */
#if defined(__GNUC__)
#define CS__BINLINE static inline __attribute__((always_inline))
#else
#define CS__BINLINE static inline
#endif

/* splitmix64: the benchmark's own deterministic draws. */
CS__BINLINE uint64_t cs__bsm(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Heights of new timers: 96.2 % near (tier 1), 3.5 % in the epoch window
 * (tier 2), 0.3 % beyond it (tier 3) -- most timers are near-term; with
 * their lifetimes this keeps about 50 / 40 / 10 % of the pending timers in
 * the three tiers, which is the mix the initial fill uses directly. */
/* One draw gives both choices: the tier from the high 32 bits, the offset
 * from the low 32, each mapped to its range by a multiply and shift
 * ((x * n) >> 32 is uniform on [0, n) up to n / 2^32). */
CS__BINLINE uint64_t cs__bench_delta(uint64_t *rng, int prefill)
{
    uint64_t x = cs__bsm(rng);
    uint64_t r = ((x >> 32) * 1000u) >> 32, u = x & 0xffffffffu;
    uint64_t near = prefill ? 500 : 962, mid = prefill ? 900 : 997;
    if (r < near) return 1 + ((u * 4095u) >> 32);
    if (r < mid) return 4096 + ((u * (86400u - 4096u)) >> 32);
    return 86400 + ((u * 86400u) >> 32);
}

/* Deferred transaction built per fire: the fields of CIP-5 §5.2. */
typedef struct cs__bdeliv {
    cs_hash_t timer_id;
    cs_addr_t actor;
    const uint8_t *payload;
    uint32_t payload_len;
    uint32_t handler;
    uint64_t cycles_limit, cells_limit, due;
} cs__bdeliv_t;

typedef struct cs__bpool {
    cs_timer_hot_t *hot; /* record pool, hot parts (64-byte aligned) */
    cs_timer_t *rec;   /* record pool, cold parts */
    uint32_t *free;    /* free stack, cap entries; its depth is cs__bgen_t.n_free */
    size_t cap;
    cs_addr_t *actors; /* actor table (interned index -> address) */
    cs_hash_t *ids;    /* precomputed ids */
    size_t n_ids;
} cs__bpool_t;

/* What the harness advances per timer (see CS__BINLINE): a local of each
 * run, started by cs__bgen_start. */
typedef struct cs__bgen {
    uint64_t rank;     /* next fifo_rank */
    uint64_t rng;      /* splitmix state of the height draws */
    size_t n_free;     /* free-stack depth */
    uint64_t checksum; /* order-sensitive hash of the deliveries */
} cs__bgen_t;

static cs__bgen_t cs__bgen_start(const cs__bpool_t *p)
{
    cs__bgen_t g = {0, 0x1234567, p->cap, 0};
    return g;
}

static int cs__bpool_init(cs__bpool_t *p, size_t cap, size_t n_ids)
{
    CS_ASSERT(n_ids > 0 && (n_ids & (n_ids - 1)) == 0); /* cs__bnew masks by n_ids - 1 */
    memset(p, 0, sizeof *p);
    p->rec = calloc(cap, sizeof *p->rec);
    size_t hb = (cap * sizeof *p->hot + 63) / 64 * 64;
    p->hot = aligned_alloc(64, hb);
    if (p->hot) memset(p->hot, 0, hb);
    p->free = malloc(cap * sizeof *p->free);
    p->actors = calloc(1024, sizeof *p->actors);
    p->ids = malloc(n_ids * sizeof *p->ids);
    if (!p->rec || !p->hot || !p->free || !p->actors || !p->ids) return -1;
    p->cap = cap;
    for (size_t i = 0; i < cap; i++) p->free[i] = (uint32_t)(cap - 1 - i);
    uint64_t rng = 0;
    for (size_t i = 0; i < 1024; i++) p->actors[i].b[19] = (uint8_t)i, p->actors[i].b[18] = (uint8_t)(i >> 8);
    for (size_t i = 0; i < n_ids; i++)
        for (size_t k = 0; k < CS_ID_LEN; k += 8) {
            uint64_t x = cs__bsm(&rng);
            memcpy(p->ids[i].b + k, &x, 8);
        }
    p->n_ids = n_ids;
    return 0;
}

static void cs__bpool_free(cs__bpool_t *p)
{
    free(p->rec);
    free(p->hot);
    free(p->free);
    free(p->actors);
    free(p->ids);
}

/* Fill a fresh record for a timer due at height. */
CS__BINLINE uint32_t cs__bnew(const cs__bpool_t *p, cs__bgen_t *g, uint64_t height)
{
    uint32_t slot = p->free[--g->n_free];
    cs_timer_t *t = &p->rec[slot];
    cs_timer_hot_t *th = &p->hot[slot];
    th->height = height;
    th->fifo_rank = g->rank;
    th->kind = CS_KIND_HEIGHT;
    th->flags = CS_TF_LIVE;
    /* A keccak output looks random in every byte, the tree's key (the
     * first four) and priority (the last four) included: a table id with
     * its last eight bytes mixed with the rank (distinct for every timer). */
    t->id = p->ids[g->rank & (p->n_ids - 1)];
    uint64_t tail;
    memcpy(&tail, t->id.b + CS_ID_LEN - 8, 8);
    tail ^= g->rank * 0x9e3779b97f4a7c15ull;
    memcpy(t->id.b + CS_ID_LEN - 8, &tail, 8);
    t->actor = (uint32_t)(g->rank & 1023);
    t->payload = NULL;
    t->payload_len = 0;
    t->gas_limit = 550000;
    t->max_cells = 550000;
    g->rank++;
    return slot;
}

CS__BINLINE void cs__bdeliver(const cs__bpool_t *p, uint32_t slot, cs__bdeliv_t *d)
{
    const cs_timer_t *t = &p->rec[slot];
    d->timer_id = t->id;
    d->actor = p->actors[t->actor];
    d->payload = t->payload;
    d->payload_len = t->payload_len;
    d->handler = 0; /* the default handler (a custom one is in the money table) */
    d->cycles_limit = t->gas_limit;
    d->cells_limit = t->max_cells;
    d->due = p->hot[slot].height;
}

CS__BINLINE void cs__bremove(const cs__bpool_t *p, cs__bgen_t *g, uint32_t slot)
{
    p->hot[slot].flags = 0;
    p->free[g->n_free++] = slot;
}

typedef struct cs__bres {
    double ns;             /* measured wall time */
    double cpu_ns;         /* measured thread CPU time */
    uint64_t fired;        /* fires in the measured blocks */
    uint64_t checksum;     /* order-sensitive hash of the deliveries */
    size_t queue_bytes;    /* queue overhead at the end */
    uint64_t pending;      /* pending at the end */
    uint64_t max_migrated; /* largest per-block migration */
    cs_queue_stats_t tiers;/* pending per tier at the end */
} cs__bres_t;

CS__BINLINE uint64_t cs__bmixsum(uint64_t acc, const cs__bdeliv_t *d)
{
    uint64_t x;
    memcpy(&x, d->timer_id.b, 8);
    return (acc ^ x ^ d->due) * 0x100000001b3ull;
}

/* Bytes of a cold record the deferred transaction reads: the id at its
 * start through payload_len.  Records are a multiple of 16 bytes, so a
 * record starts 0, 16, 32 or 48 bytes into a line and the span, at most 80
 * bytes, covers at most two lines: its first and last byte name them. */
#define CS__BCOLD_SPAN (offsetof(cs_timer_t, payload_len) + sizeof(uint32_t))
CS_STATIC_ASSERT(sizeof(cs_timer_t) % 16 == 0 && 48 + CS__BCOLD_SPAN <= 128,
                 "two prefetches cover the span");

/* Build the deferred transactions of one block's due slots, in the given
 * (FIFO) order, into the per-block buffer dv (reused every block, as the
 * pipeline's delivery array), fold each into the checksum and free the
 * record.  All three runs deliver through this one loop.  The slots are
 * known before the loop starts, so it prefetches the records it will read
 * (the hot part and the lines of the cold span) CS__BPF slots ahead, the
 * first CS__BPF before the loop, as the pipeline can: a block's deliveries
 * then wait on memory together rather than one after another. */
#define CS__BPF 256u
/* A macro: GCC drops calls to a function that only prefetches. */
#define CS__BPREFETCH(p, s)                                                \
    do {                                                                   \
        const char *c_ = (const char *)&(p)->rec[s];                       \
        __builtin_prefetch(&(p)->hot[s], 1);                               \
        __builtin_prefetch(c_);                                            \
        __builtin_prefetch(c_ + CS__BCOLD_SPAN - 1);                       \
    } while (0)

CS__BINLINE void cs__bdeliver_block(const cs__bpool_t *p, cs__bgen_t *g, const uint32_t *slots, size_t n,
                                    cs__bdeliv_t *dv)
{
    for (size_t i = 0; i < n && i < CS__BPF; i++) CS__BPREFETCH(p, slots[i]);
    for (size_t i = 0; i < n; i++) {
        if (i + CS__BPF < n) CS__BPREFETCH(p, slots[i + CS__BPF]);
        cs__bdeliver(p, slots[i], &dv[i & 4095]);
        g->checksum = cs__bmixsum(g->checksum, &dv[i & 4095]);
        cs__bremove(p, g, slots[i]);
    }
}

static int cs__run_tiered(size_t n, uint64_t blocks, cs__bres_t *res)
{
    cs__bpool_t p;
    if (cs__bpool_init(&p, n + n / 2 + 4096, 65536) != 0) return -1;
    cs__bgen_t g = cs__bgen_start(&p);
    cs_queue_cfg_t cfg = {4096, 3600, 24};
    cs_queue_t *q = cs_queue_alloc(&cfg, &p.hot, &p.rec, 0);
    cs_slotvec_t due = {NULL, 0, 0};
    cs__bdeliv_t *dv = malloc(65536 * sizeof *dv);
    if (!q || !dv) return -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t s = cs__bnew(&p, &g, cs__bench_delta(&g.rng, 1));
        if (cs_queue_insert(q, s) != CS_OK) return -1;
    }
    /* The fill is the state a validator starts from: block 0 scheduled it,
     * and its end (collection, with nothing due, and the tier-3 root) has
     * filed and linked it, outside the measured blocks. */
    cs_hash_t root;
    if (cs_queue_collect(q, &due) != CS_OK || due.n != 0) return -1;
    cs_queue_root(q, &root);
    memset(res, 0, sizeof *res);
    uint64_t refill = 0;
    double t0 = cs_bench_now_ns(), c0 = cs_bench_cpu_ns();
    for (uint64_t h = 1; h <= blocks; h++) {
        if (cs_queue_advance(q, h) != CS_OK) return -1;
        cs_queue_stats_t st;
        cs_queue_stats(q, &st);
        if (st.migrated_ring + st.migrated_epoch > res->max_migrated)
            res->max_migrated = st.migrated_ring + st.migrated_epoch;
        for (uint64_t k = 0; k < refill; k++) {
            uint32_t s = cs__bnew(&p, &g, h + cs__bench_delta(&g.rng, 0));
            if (cs_queue_insert(q, s) != CS_OK) return -1;
        }
        due.n = 0;
        if (cs_queue_collect(q, &due) != CS_OK) return -1;
        cs__bdeliver_block(&p, &g, due.v, due.n, dv);
        res->fired += due.n;
        refill = due.n;
    }
    res->ns = cs_bench_now_ns() - t0;
    res->checksum = g.checksum;
    res->cpu_ns = cs_bench_cpu_ns() - c0;
    res->queue_bytes = cs_queue_bytes(q);
    res->pending = cs_queue_size(q);
    cs_queue_stats(q, &res->tiers);
    cs_slotvec_free(&due);
    cs_queue_free(q);
    free(dv);
    cs__bpool_free(&p);
    return 0;
}

/* The baseline: a binary min-heap of (height, rank, slot). */
typedef struct cs__hent {
    uint64_t height, rank;
    uint32_t slot;
} cs__hent_t;

static int cs__hless(const cs__hent_t *a, const cs__hent_t *b)
{
    return a->height < b->height || (a->height == b->height && a->rank < b->rank);
}

static void cs__hpush(cs__hent_t *hp, size_t *n, cs__hent_t e)
{
    size_t i = (*n)++;
    while (i > 0) {
        size_t par = (i - 1) / 2;
        if (!cs__hless(&e, &hp[par])) break;
        hp[i] = hp[par];
        i = par;
    }
    hp[i] = e;
}

static cs__hent_t cs__hpop(cs__hent_t *hp, size_t *n)
{
    cs__hent_t top = hp[0], e = hp[--(*n)];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const cs__hent_t *best = &e;
        if (l < *n && cs__hless(&hp[l], best)) m = l, best = &hp[l];
        if (r < *n && cs__hless(&hp[r], best)) m = r;
        if (m == i) break;
        hp[i] = hp[m];
        i = m;
    }
    if (*n > 0) hp[i] = e;
    return top;
}

static int cs__run_heap(size_t n, uint64_t blocks, cs__bres_t *res)
{
    cs__bpool_t p;
    if (cs__bpool_init(&p, n + n / 2 + 4096, 65536) != 0) return -1;
    cs__bgen_t g = cs__bgen_start(&p);
    cs__hent_t *hp = malloc((n + n / 2 + 4096) * sizeof *hp);
    cs__bdeliv_t *dv = malloc(65536 * sizeof *dv);
    cs_slotvec_t due = {NULL, 0, 0};
    if (!hp || !dv) return -1;
    size_t hn = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t s = cs__bnew(&p, &g, cs__bench_delta(&g.rng, 1));
        cs__hpush(hp, &hn, (cs__hent_t){p.hot[s].height, p.hot[s].fifo_rank, s});
    }
    memset(res, 0, sizeof *res);
    uint64_t refill = 0;
    double t0 = cs_bench_now_ns(), c0 = cs_bench_cpu_ns();
    for (uint64_t h = 1; h <= blocks; h++) {
        for (uint64_t k = 0; k < refill; k++) {
            uint32_t s = cs__bnew(&p, &g, h + cs__bench_delta(&g.rng, 0));
            cs__hpush(hp, &hn, (cs__hent_t){p.hot[s].height, p.hot[s].fifo_rank, s});
        }
        /* The due timers, as the queue's collection hands them over. */
        due.n = 0;
        while (hn > 0 && hp[0].height == h)
            if (cs_slotvec_push(&due, cs__hpop(hp, &hn).slot) != CS_OK) return -1;
        cs__bdeliver_block(&p, &g, due.v, due.n, dv);
        res->fired += due.n;
        refill = due.n;
    }
    res->ns = cs_bench_now_ns() - t0;
    res->checksum = g.checksum;
    res->cpu_ns = cs_bench_cpu_ns() - c0;
    res->queue_bytes = hn * sizeof *hp;
    res->pending = hn;
    cs_slotvec_free(&due);
    free(hp);
    free(dv);
    cs__bpool_free(&p);
    return 0;
}

/* The harness alone: the same pool, record fills, height draws,
 * deliveries, checksum and frees as the two runs above, with the scheduler
 * replaced by a FIFO of slots (push at schedule, pop per_block a block),
 * which costs next to nothing; so its time per timer is the benchmark's
 * own share of ns_per_timer and heap_ns_per_timer.  It reads the records
 * in insertion order rather than due order, so it is a lower bound of that
 * share (fewer cache misses). */
static int cs__run_harness(size_t n, uint64_t blocks, uint64_t per_block, cs__bres_t *res)
{
    cs__bpool_t p;
    size_t cap = n + n / 2 + 4096;
    if (cs__bpool_init(&p, cap, 65536) != 0) return -1;
    cs__bgen_t g = cs__bgen_start(&p);
    uint32_t *fifo = malloc(cap * sizeof *fifo);
    cs__bdeliv_t *dv = malloc(65536 * sizeof *dv);
    cs_slotvec_t due = {NULL, 0, 0};
    if (!fifo || !dv) return -1;
    size_t head = 0, tail = 0; /* fifo[head % cap .. tail % cap) */
    for (size_t i = 0; i < n; i++) fifo[tail++ % cap] = cs__bnew(&p, &g, cs__bench_delta(&g.rng, 1));
    memset(res, 0, sizeof *res);
    uint64_t refill = 0;
    double t0 = cs_bench_now_ns(), c0 = cs_bench_cpu_ns();
    for (uint64_t h = 1; h <= blocks; h++) {
        for (uint64_t k = 0; k < refill; k++) fifo[tail++ % cap] = cs__bnew(&p, &g, h + cs__bench_delta(&g.rng, 0));
        due.n = 0;
        while (due.n < per_block && head < tail)
            if (cs_slotvec_push(&due, fifo[head++ % cap]) != CS_OK) return -1;
        cs__bdeliver_block(&p, &g, due.v, due.n, dv);
        res->fired += due.n;
        refill = due.n;
    }
    res->ns = cs_bench_now_ns() - t0;
    res->checksum = g.checksum;
    res->cpu_ns = cs_bench_cpu_ns() - c0;
    res->pending = tail - head;
    cs_slotvec_free(&due);
    free(fifo);
    free(dv);
    cs__bpool_free(&p);
    return 0;
}

/* Keccak id derivation per timer (CIP-5 §3.3), reported apart. */
static double cs__id_ns(size_t m)
{
    cs_addr_t a;
    memset(&a, 0x11, sizeof a);
    uint8_t payload[16] = "heartbeat-tick!";
    cs_hash_t id;
    uint64_t acc = 0;
    double t0 = cs_bench_now_ns();
    for (size_t i = 0; i < m; i++) {
        cs_timer_id(&a, 1000 + i, payload, sizeof payload, i, &id);
        acc += id.b[0];
    }
    double t = cs_bench_now_ns() - t0;
    return acc == 0xffffffffffffull ? 0 : t / (double)m;
}

/* Targets at 10^6 pending (issue "speed and memory at scale"). */
#define CS__CORE_TARGET_NS 50.0
#define CS__CORE_TARGET_SPEEDUP 8.0

/* Run one round at n pending: the queue, the heap and the harness on the
 * same workload, in the order queue-heap-harness when flip is 0 and
 * harness-heap-queue when it is 1 (alternating rounds cancel a drift of
 * the machine's speed during the round).  *t, *hp, *hr receive the three
 * runs' results. */
static int cs__bround_run(size_t n, uint64_t blocks, int flip, cs__bres_t *t, cs__bres_t *hp, cs__bres_t *hr)
{
    /* The harness hands over as many timers per block as the queue fired
     * on average; the workload is deterministic, so every round fires the
     * same count, known before the first round from a short queue run. */
    if (!flip) {
        if (cs__run_tiered(n, blocks, t) != 0 || cs__run_heap(n, blocks, hp) != 0) return -1;
        return cs__run_harness(n, blocks, (t->fired + blocks / 2) / blocks, hr);
    }
    /* t holds the previous round's queue run */
    if (cs__run_harness(n, blocks, (t->fired + blocks / 2) / blocks, hr) != 0 ||
        cs__run_heap(n, blocks, hp) != 0)
        return -1;
    return cs__run_tiered(n, blocks, t);
}

static double cs__per(double ns, uint64_t fired)
{
    return ns / (double)(fired ? fired : 1);
}

/* Write v[0..n) into buf, space-separated, with the 6 significant digits
 * of a figure in --json output. */
static void cs__blist(char *buf, size_t len, const double *v, int n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && at < len; k++)
        at += (size_t)snprintf(buf + at, len - at, k ? " %.6g" : "%.6g", v[k]);
}

int cs_bench_core(cs_bench_out_t *o, int quick, size_t pending, int rounds)
{
    size_t sizes[2] = {100000, 1000000};
    uint64_t blocks = quick ? 2000 : 20000;
    int n_sizes = 2;
    if (quick) sizes[1] = 200000;
    if (pending) sizes[0] = pending, n_sizes = 1;
    if (rounds <= 0) rounds = quick ? 3 : CS_BENCH_CORE_ROUNDS;
    if (rounds > CS_BENCH_CORE_ROUNDS_MAX) rounds = CS_BENCH_CORE_ROUNDS_MAX;
    cs_bench_str(o, "workload", "N pending over tiers 50/40/10 %, arrivals 96.2/3.5/0.3 %, FIFO delivery");
    cs_bench_int(o, "record_hot_bytes", sizeof(cs_timer_hot_t));
    cs_bench_int(o, "record_cold_bytes", sizeof(cs_timer_t));
    cs_bench_num(o, "id_ns_per_timer", cs__id_ns(quick ? 2000 : 20000));
    for (int k = 0; k < n_sizes; k++) {
        char name[32];
        snprintf(name, sizeof name, "pending_%zu", sizes[k]);
        cs__bres_t t, hp, hr, t0 = {0};
        /* Per-round figures (ns per timer, and ratios taken within the
         * round), then the median of each series over the rounds. */
        enum { Q, H, F, NET, HNET, SP, SPN, QC, HC, FC, SPC, SPNC, NV };
        double v[NV][CS_BENCH_CORE_ROUNDS_MAX], sorted[CS_BENCH_CORE_ROUNDS_MAX], med[NV], lo_sp = 0, hi_sp = 0;
        int same = 1;
        for (int i = 0; i < rounds; i++) {
            if (cs__bround_run(sizes[k], blocks, i & 1, &t, &hp, &hr) != 0) {
                fprintf(stderr, "cowsim bench: out of memory\n");
                return -1;
            }
            if (i == 0) t0 = t;
            /* Every run delivers the same timers in the same order: the
             * heap's sequence is the queue's, and every round's is the
             * first's. */
            same &= t.checksum == hp.checksum && t.fired == hp.fired && t.checksum == t0.checksum &&
                    t.fired == t0.fired;
            double q = cs__per(t.ns, t.fired), h = cs__per(hp.ns, hp.fired), f = cs__per(hr.ns, hr.fired);
            double qc = cs__per(t.cpu_ns, t.fired), hc = cs__per(hp.cpu_ns, hp.fired);
            double fc = cs__per(hr.cpu_ns, hr.fired);
            v[Q][i] = q, v[H][i] = h, v[F][i] = f, v[NET][i] = q - f, v[HNET][i] = h - f;
            v[SP][i] = h / q;
            v[SPN][i] = q > f ? (h - f) / (q - f) : 0;
            v[QC][i] = qc, v[HC][i] = hc, v[FC][i] = fc;
            v[SPC][i] = qc > 0 ? hc / qc : 0;
            v[SPNC][i] = qc > fc ? (hc - fc) / (qc - fc) : 0;
        }
        for (int j = 0; j < NV; j++) {
            memcpy(sorted, v[j], (size_t)rounds * sizeof *sorted);
            med[j] = cs_bench_median(sorted, rounds);
            if (j == SP) lo_sp = sorted[0], hi_sp = sorted[rounds - 1];
        }
        char list[CS_BENCH_CORE_ROUNDS_MAX * 16];
        cs_bench_section(o, name);
        cs_bench_int(o, "pending", t.pending);
        cs_bench_int(o, "blocks", blocks);
        cs_bench_int(o, "fired", t.fired);
        cs_bench_int(o, "rounds", (unsigned long long)rounds);
        cs_bench_num(o, "ns_per_timer", med[Q]);
        cs_bench_num(o, "heap_ns_per_timer", med[H]);
        cs_bench_num(o, "speedup_vs_heap", med[SP]);
        cs_bench_num(o, "speedup_vs_heap_min", lo_sp);
        cs_bench_num(o, "speedup_vs_heap_max", hi_sp);
        cs__blist(list, sizeof list, v[SP], rounds);
        cs_bench_str(o, "speedup_vs_heap_rounds", list);
        cs_bench_num(o, "harness_ns_per_timer", med[F]);
        cs_bench_num(o, "net_ns_per_timer", med[NET]);
        cs_bench_num(o, "heap_net_ns_per_timer", med[HNET]);
        cs_bench_num(o, "speedup_vs_heap_net", med[SPN]);
        cs__blist(list, sizeof list, v[SPN], rounds);
        cs_bench_str(o, "speedup_vs_heap_net_rounds", list);
        cs_bench_num(o, "cpu_ns_per_timer", med[QC]);
        cs_bench_num(o, "heap_cpu_ns_per_timer", med[HC]);
        cs_bench_num(o, "harness_cpu_ns_per_timer", med[FC]);
        cs_bench_num(o, "speedup_vs_heap_cpu", med[SPC]);
        cs_bench_num(o, "speedup_vs_heap_net_cpu", med[SPNC]);
        cs_bench_num(o, "bytes_per_pending_timer", (double)t.queue_bytes / (double)(t.pending ? t.pending : 1));
        cs_bench_num(o, "heap_bytes_per_pending_timer", (double)hp.queue_bytes / (double)(hp.pending ? hp.pending : 1));
        cs_bench_int(o, "max_migrated_per_block", t.max_migrated);
        cs_bench_int(o, "pending_tier1", t.tiers.ring);
        cs_bench_int(o, "pending_tier2", t.tiers.epoch);
        cs_bench_int(o, "pending_tier3", t.tiers.tree);
        cs_bench_str(o, "same_deliveries_as_heap", same ? "yes" : "NO");
        if (sizes[k] == 1000000) {
            cs_bench_num(o, "target_ns_per_timer", CS__CORE_TARGET_NS);
            cs_bench_num(o, "target_speedup_vs_heap", CS__CORE_TARGET_SPEEDUP);
            cs_bench_int(o, "meets_ns_target", med[Q] <= CS__CORE_TARGET_NS);
            cs_bench_int(o, "meets_speedup_target", med[SP] >= CS__CORE_TARGET_SPEEDUP);
        }
        cs_bench_end_section(o);
        if (!same) {
            fprintf(stderr, "cowsim bench: tiered queue and heap disagree\n");
            return -1;
        }
    }
    return 0;
}
