/*
 * cs_bench_clear.c -- per-mechanism clearing figures (`cowsim bench core`,
 * after the queue-lifecycle figures).
 *
 * Workload: one block of N due timers that survived lifecycle
 * classification (N = 10^5, 10^4 with --quick), drawn once from a fixed
 * splitmix64 seed with high-entropy values:
 *   - cycles uniform in [20,000, 250,000], 1 % above the 250,000 per-fire
 *     cap (250,001..400,000);
 *   - bids log-uniform over 10^2..10^9 (4 significant digits), 10 % equal
 *     to an earlier bid (ties); deferrals n: 7/8 in 0..5, 1/8 in 10..40;
 *   - max_fee 1,000..3,999 per cycle against a lane basefee of 1,000, 2 %
 *     in 500..999 (below it: the basefee rose since scheduling, CIP-1 rev
 *     §6), max_priority 30 % on the default-GBA tier values
 *     {160, 200, 300, 500} and 70 % uniform in 1..2,000;
 *   - balances 10^13 (2 % at 10^4: FUNDS losers);
 *   - N / 10 distinct targets (10^4 at full size), fairness identity =
 *     target; W(target) 1.0 for 40 % of the targets, else uniform in
 *     [1.0, 2.0] (ppm);
 *   - 32-byte random timer ids, unique fifo ranks, due heights h - n.
 * Parameters: defaults, except bias_scale 1,000, reserve_price 500 and
 * reserve_mode = bid-gate (so Bias and the reserve both matter; D14) and
 * vcg_payment = critical for
 * bias-vcg.  The quotas stay at their default 0 (off).
 *
 * Two budgets: budget_cycles = 3 % of the cycles of the candidates within
 * the cap (so roughly 2-5 % of the candidates fit; sections clear_<mech>)
 * and 50 % (sections clear_<mech>_fill50).
 *
 * Figures per mechanism:
 *   clear_ns_per_timer  median over R >= 5 repetitions on the same block of
 *                       the time of cs_mech_clear (priorities, sort, greedy
 *                       selection, payments) / N.  Before each repetition
 *                       the inputs are copied back from a master copy
 *                       (untimed); one untimed warm-up clearing precedes
 *                       them, as the simulator reuses its workspaces block
 *                       after block.
 *   clear_cpu_ns_per_timer  the same median measured with the thread's CPU
 *                       clock (CLOCK_THREAD_CPUTIME_ID): it leaves out the
 *                       time spent waiting for a core, so it is the figure
 *                       to compare across runs on a shared, loaded machine
 *                       (memory stalls are still counted).
 *   settle_ns_per_timer median time of applying the winners' payments to a
 *                       ledger / N: cs_ledger_settle_fire per winner for
 *                       eip1559 and gba-tip (used cycles 60-100 % of the
 *                       limit, cells, CIP-3 basefees, tip), cs_ledger_
 *                       escrow_settle per winner for bias-* (each
 *                       candidate's bid was locked beforehand, CIP-5 §9.7),
 *                       cs_ledger_charge of the bid (to the proposer, D9)
 *                       for score;
 *                       fifo-capped charges nothing at execution (0).  The
 *                       winner list is built and the ledger restored from a
 *                       snapshot outside the timed region.
 *   clear_total_ns_per_timer = clear + settle.
 *   qsort_ns_per_timer  the baseline, median over R repetitions, measured
 *                       in the same run: a straightforward qsort-based
 *                       clearing of the same block written here
 *                       independently of core/: compute the same priority
 *                       per candidate into an array of entries, qsort it
 *                       with a comparator implementing the mechanism's
 *                       total order (score: twice, for the round-robin
 *                       cursor), the same greedy fill, the same payments
 *                       and, for bias-*, the same O(n + w log n) exact
 *                       critical bids (the blocker of each winner from a
 *                       monotone stack of the excluded candidates, pushed
 *                       one by one right to left, found by binary search;
 *                       192-bit arithmetic) on the qsort order; outputs go
 *                       to a per-candidate result array.  Bias(n) is
 *                       memoised per deferral count as the mechanism does,
 *                       so the difference is mostly the sort (and, for
 *                       bias-*, how the stack is built).
 *   speedup_vs_qsort    qsort_ns_per_timer / clear_ns_per_timer.
 *   same_result         "yes" when, for every candidate, selected, why,
 *                       rank, priority, prio_rate, payment and critical of
 *                       the mechanism equal the baseline's; otherwise the
 *                       benchmark fails (returns -1).  It also fails when
 *                       two repetitions give different outputs.
 *
 * Environment (for profiling): CS_BENCH_CLEAR_ONLY=name[,name...] runs
 * only those mechanisms; CS_BENCH_CLEAR_REPS=R sets the repetitions
 * (minimum 5); CS_BENCH_CLEAR_NOBASE=1 skips the qsort baseline (its
 * figures and check are then reported as 0 / "skipped").
 */
#include "cs_bench_clear.h"
#include "cs_fixed.h"
#include "cs_ledger.h"
#include "cs_mech.h"
#include "cs_params.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CS__BC_HEIGHT 1000000ull   /* h of the benchmark block */
#define CS__BC_BASEFEE_LANE 1000u  /* lane basefee per cycle */
#define CS__BC_BASEFEE_CYCLE 50u   /* CIP-3 cycle basefee per cycle */
#define CS__BC_BASEFEE_CELL 3u     /* CIP-3 cell basefee per cell */
#define CS__BC_FUND ((cs_u128)1 << 100) /* ledger endowment per account */

/* splitmix64: the benchmark's own deterministic draws. */
static uint64_t cs__bc_rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* One benchmark block: the master candidates and settlement inputs. */
/* Clearing target: at most 40 ns per timer for every mechanism at 10^5
 * due (issue "speed and memory at scale"). */
#define CS__BC_TARGET_DUE 100000u
#define CS__BC_TARGET_NS 40.0

typedef struct cs__bc_block {
    cs_cand_t *c;        /* master copy, inputs only */
    size_t n;            /* candidates */
    uint32_t targets;    /* distinct targets = ledger accounts */
    uint64_t *used;      /* cycles the handler uses if it fires */
    uint64_t *cells;     /* max cells per fire */
    uint64_t *used_cells;/* cells used if it fires */
    uint64_t cap_cycles; /* sum of cycles of the candidates within the cap */
} cs__bc_block_t;

/* Fill the block described in the file comment. */
static int cs__bc_gen(cs__bc_block_t *b, size_t n)
{
    uint64_t rng = 0x5eed2026c1ea4ull;
    memset(b, 0, sizeof *b);
    b->c = calloc(n, sizeof *b->c);
    b->used = malloc(n * sizeof *b->used);
    b->cells = malloc(n * sizeof *b->cells);
    b->used_cells = malloc(n * sizeof *b->used_cells);
    if (b->c == NULL || b->used == NULL || b->cells == NULL || b->used_cells == NULL) return -1;
    b->n = n;
    b->targets = (uint32_t)(n / 10 ? n / 10 : 1);
    static const uint64_t tiers[4] = {160, 200, 300, 500};
    static const uint64_t pow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    for (size_t i = 0; i < n; i++) {
        cs_cand_t *t = &b->c[i];
        t->slot = (uint32_t)i;
        t->target = (uint32_t)(cs__bc_rng(&rng) % b->targets);
        t->ident = t->target;
        uint64_t r = cs__bc_rng(&rng);
        t->deferrals = (uint32_t)(r % 8 ? r % 6 : 10 + (r >> 8) % 31);
        t->due_height = CS__BC_HEIGHT - t->deferrals;
        t->sched_height = t->due_height - 1 - cs__bc_rng(&rng) % 5000;
        t->fifo_rank = (uint64_t)(uint32_t)((uint32_t)i * 2654435761u); /* a bijection */
        for (int k = 0; k < 4; k++) {
            uint64_t x = cs__bc_rng(&rng);
            memcpy(t->id.b + 8 * k, &x, 8);
        }
        r = cs__bc_rng(&rng);
        t->cycles = r % 100 == 0 ? 250001 + (r >> 8) % 150000 : 20000 + (r >> 8) % 230001;
        if (i > 0 && cs__bc_rng(&rng) % 10 == 0) {
            t->bid = b->c[cs__bc_rng(&rng) % i].bid;
        } else {
            r = cs__bc_rng(&rng);
            t->bid = (cs_u128)(1000 + r % 9000) * pow10[(r >> 20) % 8] / 10; /* 1e2..1e9 */
        }
        r = cs__bc_rng(&rng);
        t->max_fee = r % 50 == 0 ? 500 + (r >> 8) % 500 : 1000 + (r >> 8) % 3000;
        r = cs__bc_rng(&rng);
        t->max_prio = r % 10 < 3 ? tiers[(r >> 8) % 4] : 1 + (r >> 8) % 2000;
        t->balance = cs__bc_rng(&rng) % 50 == 0 ? 10000 : 10000000000000ull;
        uint64_t wt = cs__bc_rng(&(uint64_t){0x77aa0000ull + t->target});
        t->weight = wt % 10 < 4 ? CS_PPM : CS_PPM + (wt >> 8) % (CS_PPM + 1);
        r = cs__bc_rng(&rng);
        b->used[i] = t->cycles * (60 + r % 41) / 100;
        b->cells[i] = 1024 + (r >> 8) % 8192;
        b->used_cells[i] = b->cells[i] * (50 + (r >> 24) % 51) / 100;
        if (t->cycles <= 250000) b->cap_cycles += t->cycles;
    }
    return 0;
}

static void cs__bc_free(cs__bc_block_t *b)
{
    free(b->c);
    free(b->used);
    free(b->cells);
    free(b->used_cells);
    memset(b, 0, sizeof *b);
}

/* ---- the qsort baseline (independent of core/ internals) ---- */

/* Baseline result of one candidate (the mechanism's output fields). */
typedef struct cs__bc_res {
    uint8_t selected;   /* fires */
    uint8_t why;        /* cs_why */
    uint32_t rank;      /* position in the order */
    cs_u128 priority;   /* sort key */
    cs_u128 prio_rate;  /* per-cycle tip */
    cs_u128 payment;    /* lump-sum payment */
    cs_u128 critical;   /* critical bid (bias-*) */
} cs__bc_res_t;

/* One qsort entry: the keys the comparator needs and the candidate. */
typedef struct cs__bc_ent {
    cs_u128 v;            /* primary key (priority, V, score) */
    uint64_t k2;          /* cycles (bias), weight (gba), rr cursor (score) */
    const cs_cand_t *c;   /* the candidate (id and later keys) */
    uint32_t idx;         /* candidate index */
} cs__bc_ent_t;

/* Baseline scratch, sized for the block. */
typedef struct cs__bc_base {
    cs__bc_ent_t *e;   /* entries in order after the sort */
    uint8_t *flag;     /* bias-*: position flag (0 win, 1 ineligible, 2 excluded) */
    uint64_t *need;    /* bias-*: c_j - left at an excluded position */
    uint32_t *stk;     /* bias-*: monotone stack of positions */
    uint32_t *cnt;     /* score: per-target cursor counter */
    uint32_t *rr;      /* score: cursor per candidate index */
    cs_u128 *bias;     /* bias-*: Bias per candidate index */
} cs__bc_base_t;

/* Three-way helpers. */
static int cs__bc_c64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}
static int cs__bc_c128(cs_u128 a, cs_u128 b)
{
    return (a > b) - (a < b);
}
static cs_u128 cs__bc_sadd(cs_u128 a, cs_u128 b)
{
    return a + b < a ? CS_U128_MAX : a + b;
}
static cs_u128 cs__bc_smul(cs_u128 a, cs_u128 b)
{
    return a != 0 && b > CS_U128_MAX / a ? CS_U128_MAX : a * b;
}

/* a * b into three 64-bit limbs, most significant first. */
static void cs__bc_mul3(cs_u128 a, uint64_t b, uint64_t r[3])
{
    cs_u128 lo = (cs_u128)(uint64_t)a * b, hi = (cs_u128)(uint64_t)(a >> 64) * b;
    cs_u128 mid = (lo >> 64) + (uint64_t)hi;
    r[2] = (uint64_t)lo;
    r[1] = (uint64_t)mid;
    r[0] = (uint64_t)(hi >> 64) + (uint64_t)(mid >> 64);
}

/* eip1559 order: priority desc, timer_id asc, sched_height asc. */
static int cs__bc_cmp_eip(const void *x, const void *y)
{
    const cs__bc_ent_t *a = x, *b = y;
    int r = cs__bc_c128(b->v, a->v);
    if (r) return r;
    r = memcmp(a->c->id.b, b->c->id.b, CS_ID_LEN);
    if (r) return r;
    return cs__bc_c64(a->c->sched_height, b->c->sched_height);
}

/* bias-* order: V / cycles desc (exact, 192-bit cross products), id asc. */
static int cs__bc_cmp_bias(const void *x, const void *y)
{
    const cs__bc_ent_t *a = x, *b = y;
    uint64_t l[3], r[3];
    cs__bc_mul3(a->v, b->k2, l);
    cs__bc_mul3(b->v, a->k2, r);
    for (int k = 0; k < 3; k++)
        if (l[k] != r[k]) return l[k] > r[k] ? -1 : 1;
    return memcmp(a->c->id.b, b->c->id.b, CS_ID_LEN);
}

/* fifo order: due_height asc, fifo_rank asc, id asc. */
static int cs__bc_cmp_fifo(const void *x, const void *y)
{
    const cs__bc_ent_t *a = x, *b = y;
    int r = cs__bc_c64(a->c->due_height, b->c->due_height);
    if (r) return r;
    r = cs__bc_c64(a->c->fifo_rank, b->c->fifo_rank);
    if (r) return r;
    return memcmp(a->c->id.b, b->c->id.b, CS_ID_LEN);
}

/* gba-tip order: tip desc, weight desc, id asc. */
static int cs__bc_cmp_gba(const void *x, const void *y)
{
    const cs__bc_ent_t *a = x, *b = y;
    int r = cs__bc_c128(b->v, a->v);
    if (r) return r;
    r = cs__bc_c64(b->k2, a->k2);
    if (r) return r;
    return memcmp(a->c->id.b, b->c->id.b, CS_ID_LEN);
}

/* score orders: score desc, [cursor asc when k2 != UINT64_MAX], due asc,
 * target asc, id asc (CIP-5 CN §9.2). */
static int cs__bc_cmp_score(const void *x, const void *y)
{
    const cs__bc_ent_t *a = x, *b = y;
    int r = cs__bc_c128(b->v, a->v);
    if (r) return r;
    r = cs__bc_c64(a->k2, b->k2);
    if (r) return r;
    r = cs__bc_c64(a->c->due_height, b->c->due_height);
    if (r) return r;
    r = cs__bc_c64(a->c->target, b->c->target);
    if (r) return r;
    return memcmp(a->c->id.b, b->c->id.b, CS_ID_LEN);
}

/* floor or ceil of v * m / d (192-bit product, long division by d). */
static cs_u128 cs__bc_muldiv(cs_u128 v, uint64_t m, uint64_t d, int up)
{
    uint64_t limb[3], q[3];
    cs__bc_mul3(v, m, limb);
    cs_u128 rem = 0;
    for (int k = 0; k < 3; k++) {
        cs_u128 cur = (rem << 64) | limb[k];
        q[k] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    if (q[0] != 0) return CS_U128_MAX;
    cs_u128 res = ((cs_u128)q[1] << 64) | q[2];
    if (up && rem != 0 && res != CS_U128_MAX) res++;
    return res;
}

/* Greedy budget fill over the sorted entries; why0[] by candidate index
 * (CS_WHY_NONE = eligible).  Writes selected / why / rank; returns the
 * number of winners. */
static size_t cs__bc_fill(const cs__bc_ent_t *e, size_t n, const uint8_t *why0, uint64_t budget,
                          cs__bc_res_t *res)
{
    uint64_t left = budget;
    size_t fired = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = e[k].idx;
        cs__bc_res_t *r = &res[i];
        r->rank = (uint32_t)k;
        r->why = why0[i];
        if (r->why == CS_WHY_NONE && e[k].c->cycles > left) r->why = CS_WHY_BUDGET;
        r->selected = r->why == CS_WHY_NONE;
        if (r->selected) {
            left -= e[k].c->cycles;
            fired++;
        }
    }
    return fired;
}

/* Baseline eip1559 / gba-tip (gba = 1: tip order with weights, no cap). */
static size_t cs__bc_base_fees(const cs__bc_block_t *b, const cs_params_t *p,
                               const cs_clear_ctx_t *ctx, int gba, cs__bc_base_t *w,
                               uint8_t *why0, cs__bc_res_t *res)
{
    cs_u128 bf = ctx->basefee_lane;
    /* First-draft gba-tip (gba_tip_lane = none, N65): bf is the cycle
     * basefee itself, nothing on top. */
    cs_u128 base_rate = p->lane_basefee_mode == CS_LANE_ADDITIONAL && !(gba && p->gba_tip_lane == CS_GBA_LANE_NONE)
                            ? cs__bc_sadd(bf, ctx->basefee_cycle)
                            : bf;
    for (size_t i = 0; i < b->n; i++) {
        const cs_cand_t *t = &b->c[i];
        cs__bc_res_t *r = &res[i];
        memset(r, 0, sizeof *r);
        why0[i] = CS_WHY_NONE;
        if (t->max_fee < bf) {
            why0[i] = CS_WHY_BELOW_BASEFEE;
        } else {
            cs_u128 room = t->max_fee - bf;
            r->prio_rate = t->max_prio < room ? t->max_prio : room;
            if (!gba && t->cycles > p->max_cycles_per_fire)
                why0[i] = CS_WHY_OVER_CAP;
            else if (t->balance < cs__bc_smul(t->cycles, cs__bc_sadd(base_rate, r->prio_rate)))
                why0[i] = CS_WHY_FUNDS;
        }
        uint64_t W = t->weight ? t->weight : CS_PPM;
        if (gba) {
            W = W < p->weight_min ? p->weight_min : W > p->weight_max ? p->weight_max : W;
            r->priority = r->prio_rate;
        } else {
            r->priority = cs__bc_smul(r->prio_rate, W);
        }
        w->e[i] = (cs__bc_ent_t){r->priority, W, t, (uint32_t)i};
    }
    qsort(w->e, b->n, sizeof *w->e, gba ? cs__bc_cmp_gba : cs__bc_cmp_eip);
    return cs__bc_fill(w->e, b->n, why0, ctx->budget_cycles, res);
}

/* Baseline fifo-capped. */
static size_t cs__bc_base_fifo(const cs__bc_block_t *b, const cs_clear_ctx_t *ctx,
                               cs__bc_base_t *w, uint8_t *why0, cs__bc_res_t *res)
{
    for (size_t i = 0; i < b->n; i++) {
        memset(&res[i], 0, sizeof res[i]);
        why0[i] = CS_WHY_NONE;
        w->e[i] = (cs__bc_ent_t){0, 0, &b->c[i], (uint32_t)i};
    }
    qsort(w->e, b->n, sizeof *w->e, cs__bc_cmp_fifo);
    return cs__bc_fill(w->e, b->n, why0, ctx->budget_cycles, res);
}

/* Baseline score (CIP-5 CN §9): two sorts, quotas off, the lane budget
 * first fit (score_budget = lane, DESIGN-NOTES N57; none: every candidate
 * wins), the winners pay the bid. */
static size_t cs__bc_base_score(const cs__bc_block_t *b, const cs_params_t *p,
                                const cs_clear_ctx_t *ctx, cs__bc_base_t *w, uint8_t *why0,
                                cs__bc_res_t *res)
{
    size_t n = b->n;
    for (size_t i = 0; i < n; i++) {
        const cs_cand_t *t = &b->c[i];
        uint64_t age = ctx->height > t->due_height ? ctx->height - t->due_height : 0;
        cs_i128 cap = (cs_i128)1 << 125, sb;
        if (p->w_bid != 0 && t->bid > (cs_u128)cap / p->w_bid) sb = cap;
        else sb = (cs_i128)(t->bid * p->w_bid);
        if (sb > cap) sb = cap;
        cs_i128 sc = (cs_i128)((cs_u128)p->w_age * age) + sb -
                     (cs_i128)((cs_u128)p->w_fifo * t->fifo_rank);
        memset(&res[i], 0, sizeof res[i]);
        res[i].priority = (cs_u128)sc + ((cs_u128)1 << 127);
        w->e[i] = (cs__bc_ent_t){res[i].priority, 0, t, (uint32_t)i};
    }
    qsort(w->e, n, sizeof *w->e, cs__bc_cmp_score); /* k2 = 0: no cursor yet */
    memset(w->cnt, 0, b->targets * sizeof *w->cnt);
    for (size_t k = 0; k < n; k++) w->rr[w->e[k].idx] = w->cnt[w->e[k].c->target]++;
    for (size_t k = 0; k < n; k++) w->e[k].k2 = w->rr[w->e[k].idx];
    qsort(w->e, n, sizeof *w->e, cs__bc_cmp_score);
    for (size_t i = 0; i < n; i++) why0[i] = CS_WHY_NONE;
    size_t fired =
        cs__bc_fill(w->e, n, why0, p->score_budget == CS_SCORE_BUDGET_LANE ? ctx->budget_cycles : UINT64_MAX, res);
    for (size_t k = 0; k < n; k++) {
        cs__bc_res_t *r = &res[w->e[k].idx];
        r->payment = r->selected && p->score_payment == CS_SCORE_PAY_BID ? w->e[k].c->bid : 0;
    }
    return fired;
}

/* Baseline bias-vcg / bias-fp: priorities, qsort, greedy, exact critical
 * bids (monotone stack + binary search on the qsort order), payments.
 * memo / memo_ok: Bias(n) per deferral count, filled lazily. */
static size_t cs__bc_base_bias(const cs__bc_block_t *b, const cs_params_t *p,
                               const cs_clear_ctx_t *ctx, int fp, cs__bc_base_t *w,
                               uint8_t *why0, cs__bc_res_t *res)
{
    size_t n = b->n;
    cs_u128 memo[64];
    uint8_t memo_ok[64] = {0};
    for (size_t i = 0; i < n; i++) {
        const cs_cand_t *t = &b->c[i];
        uint32_t d = t->deferrals;
        cs_u128 bias;
        if (d < 64) {
            if (!memo_ok[d]) {
                memo[d] = cs_fixed_bias(d, p->lambda, p->bias_scale);
                memo_ok[d] = 1;
            }
            bias = memo[d];
        } else {
            bias = cs_fixed_bias(d, p->lambda, p->bias_scale);
        }
        w->bias[i] = bias;
        memset(&res[i], 0, sizeof res[i]);
        res[i].priority = cs__bc_sadd(t->bid, bias);
        why0[i] = t->cycles > p->max_cycles_per_fire ? CS_WHY_OVER_CAP
                  : t->bid < p->reserve_price        ? CS_WHY_RESERVE
                                                     : CS_WHY_NONE;
        w->e[i] = (cs__bc_ent_t){res[i].priority, t->cycles, t, (uint32_t)i};
    }
    qsort(w->e, n, sizeof *w->e, cs__bc_cmp_bias);
    /* Greedy (quotas off): flags and needs by position. */
    uint64_t left = ctx->budget_cycles;
    size_t fired = 0, first_win = n;
    for (size_t k = 0; k < n; k++) {
        const cs_cand_t *t = w->e[k].c;
        cs__bc_res_t *r = &res[w->e[k].idx];
        r->rank = (uint32_t)k;
        r->why = why0[w->e[k].idx];
        if (r->why != CS_WHY_NONE) {
            w->flag[k] = 1;
            continue;
        }
        if (t->cycles > left) {
            r->why = CS_WHY_BUDGET;
            w->flag[k] = 2;
            w->need[k] = t->cycles - left;
            continue;
        }
        left -= t->cycles;
        r->selected = 1;
        w->flag[k] = 0;
        fired++;
        if (first_win == n) first_win = k;
    }
    /* Critical bids: right to left, stack needs increase from the bottom. */
    size_t top = 0;
    for (size_t k = n; k-- > first_win;) {
        if (w->flag[k] == 2) {
            while (top > 0 && w->need[w->stk[top - 1]] >= w->need[k]) top--;
            w->stk[top++] = (uint32_t)k;
        } else if (w->flag[k] == 0) {
            const cs__bc_ent_t *me = &w->e[k];
            size_t lo = 0, hi = top;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (w->need[w->stk[mid]] <= me->k2) lo = mid + 1;
                else hi = mid;
            }
            cs_u128 theta = 0;
            if (lo > 0) {
                const cs__bc_ent_t *bl = &w->e[w->stk[lo - 1]];
                cs_u128 vmin;
                if (memcmp(me->c->id.b, bl->c->id.b, CS_ID_LEN) < 0) {
                    vmin = cs__bc_muldiv(bl->v, me->k2, bl->k2, 1);
                } else {
                    vmin = cs__bc_muldiv(bl->v, me->k2, bl->k2, 0);
                    if (vmin != CS_U128_MAX) vmin++;
                }
                theta = vmin > w->bias[me->idx] ? vmin - w->bias[me->idx] : 0;
            }
            cs__bc_res_t *r = &res[me->idx];
            r->critical = theta > p->reserve_price ? theta : p->reserve_price;
            r->payment = fp ? me->c->bid : r->critical;
        }
    }
    return fired;
}

/* ---- measurement ---- */

/* The mechanisms measured, with their settlement kind. */
enum { CS__SET_NONE, CS__SET_FIRE, CS__SET_ESCROW, CS__SET_LUMP };
typedef struct cs__bc_mech {
    const char *name; /* registry name */
    int settle;       /* CS__SET_* */
} cs__bc_mech_t;

static const cs__bc_mech_t cs__bc_mechs[] = {
    {"eip1559", CS__SET_FIRE},  {"bias-vcg", CS__SET_ESCROW}, {"bias-fp", CS__SET_ESCROW},
    {"score", CS__SET_LUMP},    {"fifo-capped", CS__SET_NONE}, {"gba-tip", CS__SET_FIRE},
};

/* Shared buffers of the run. */
typedef struct cs__bc_run {
    cs__bc_block_t blk;   /* the block */
    cs_cand_t *work;      /* the mechanism's working copy */
    cs__bc_res_t *res;    /* baseline results */
    uint8_t *why0;        /* baseline scratch by index */
    cs__bc_base_t base;   /* baseline scratch */
    uint32_t *wins;       /* winners' indices (settlement) */
    double *t;            /* per-repetition times (wall) */
    double *tc;           /* per-repetition clearing times (thread CPU) */
    cs_ledger_t led;      /* settlement ledger */
    cs_u128 *snap_bal;    /* ledger snapshot: balances */
    cs_u128 *snap_esc;    /* ledger snapshot: escrows */
    cs_ledger_totals_t snap_tot; /* ledger snapshot: totals */
    int reps;             /* repetitions */
    int nobase;           /* skip the baseline */
} cs__bc_run_t;


/* Fund every target account and, for escrow settlement, lock every
 * candidate's bid (CIP-5 §9.7); then snapshot the ledger. */
static int cs__bc_ledger_prep(cs__bc_run_t *R, int escrow)
{
    cs_ledger_free(&R->led);
    cs_ledger_init(&R->led);
    if (cs_ledger_reserve(&R->led, R->blk.targets) != CS_OK) return -1;
    for (uint32_t a = 0; a < R->blk.targets; a++)
        if (cs_ledger_fund(&R->led, a, CS__BC_FUND) != CS_OK) return -1;
    if (escrow)
        for (size_t i = 0; i < R->blk.n; i++)
            if (cs_ledger_escrow_lock(&R->led, R->blk.c[i].target, R->blk.c[i].bid) != CS_OK)
                return -1;
    memcpy(R->snap_bal, R->led.bal, R->blk.targets * sizeof *R->snap_bal);
    memcpy(R->snap_esc, R->led.esc, R->blk.targets * sizeof *R->snap_esc);
    R->snap_tot = R->led.tot;
    return 0;
}

static void cs__bc_ledger_restore(cs__bc_run_t *R)
{
    memcpy(R->led.bal, R->snap_bal, R->blk.targets * sizeof *R->snap_bal);
    memcpy(R->led.esc, R->snap_esc, R->blk.targets * sizeof *R->snap_esc);
    R->led.tot = R->snap_tot;
}

/* Apply the winners' payments once (the timed part of settlement). */
static int cs__bc_settle(cs__bc_run_t *R, int kind, const cs_clear_ctx_t *ctx, size_t nw)
{
    const cs_cand_t *c = R->work;
    int bad = 0;
    for (size_t j = 0; j < nw; j++) {
        uint32_t i = R->wins[j];
        const cs_cand_t *t = &c[i];
        int rc = CS_OK;
        if (kind == CS__SET_FIRE) {
            cs_fire_charge_t ch = {
                .gas_limit = t->cycles,
                .max_cells = R->blk.cells[i],
                .used_cycles = R->blk.used[i],
                .used_cells = R->blk.used_cells[i],
                .basefee_cycle = ctx->p->lane_basefee_mode == CS_LANE_ADDITIONAL
                                     ? ctx->basefee_cycle : 0, /* D3 */
                .basefee_lane = ctx->basefee_lane,
                .tip_rate = t->prio_rate,
                .basefee_cell = ctx->basefee_cell,
                .lump = 0,
                .payments_to = ctx->p->payments_to,
            };
            rc = cs_ledger_settle_fire(&R->led, t->target, &ch, NULL);
        } else if (kind == CS__SET_ESCROW) {
            rc = cs_ledger_escrow_settle(&R->led, t->target, t->bid, t->payment,
                                         cs_ledger_dest_of(ctx->p->payments_to));
        } else if (kind == CS__SET_LUMP) {
            rc = cs_ledger_charge(&R->led, t->target, t->payment,
                                  cs_ledger_dest_of(ctx->p->payments_to));
        }
        bad |= rc != CS_OK;
    }
    return bad ? -1 : 0;
}

/* Order-sensitive digest of the mechanism's outputs in c[0..n) (FNV-style
 * mixing), to check that every repetition clears the same way. */
static uint64_t cs__bc_digest(const cs_cand_t *c, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        const cs_cand_t *t = &c[i];
        uint64_t v[8] = {t->selected, t->why, t->rank, (uint64_t)t->priority,
                         (uint64_t)t->prio_rate, (uint64_t)t->payment, (uint64_t)t->critical,
                         (uint64_t)(t->priority >> 64)};
        for (int k = 0; k < 8; k++) h = (h ^ v[k]) * 0x100000001b3ull;
    }
    return h;
}

/* Compare the mechanism's outputs in R->work with the baseline's. */
static int cs__bc_same(const cs__bc_run_t *R, const char *name)
{
    for (size_t i = 0; i < R->blk.n; i++) {
        const cs_cand_t *t = &R->work[i];
        const cs__bc_res_t *r = &R->res[i];
        if (t->selected != r->selected || t->why != r->why || t->rank != r->rank ||
            t->priority != r->priority || t->prio_rate != r->prio_rate ||
            t->payment != r->payment || t->critical != r->critical) {
            fprintf(stderr,
                    "cowsim bench: %s and its qsort baseline disagree at candidate %zu: "
                    "selected %u/%u why %u/%u rank %u/%u payment %llu/%llu critical %llu/%llu\n",
                    name, i, t->selected, r->selected, t->why, r->why, t->rank, r->rank,
                    (unsigned long long)t->payment, (unsigned long long)r->payment,
                    (unsigned long long)t->critical, (unsigned long long)r->critical);
            return 0;
        }
    }
    return 1;
}

/* Run the baseline of mechanism name once. */
static size_t cs__bc_base_run(cs__bc_run_t *R, const char *name, const cs_params_t *p,
                              const cs_clear_ctx_t *ctx)
{
    if (strcmp(name, "eip1559") == 0)
        return cs__bc_base_fees(&R->blk, p, ctx, 0, &R->base, R->why0, R->res);
    if (strcmp(name, "gba-tip") == 0)
        return cs__bc_base_fees(&R->blk, p, ctx, 1, &R->base, R->why0, R->res);
    if (strcmp(name, "bias-vcg") == 0)
        return cs__bc_base_bias(&R->blk, p, ctx, 0, &R->base, R->why0, R->res);
    if (strcmp(name, "bias-fp") == 0)
        return cs__bc_base_bias(&R->blk, p, ctx, 1, &R->base, R->why0, R->res);
    if (strcmp(name, "score") == 0) return cs__bc_base_score(&R->blk, p, ctx, &R->base, R->why0, R->res);
    return cs__bc_base_fifo(&R->blk, ctx, &R->base, R->why0, R->res);
}

/* Measure one mechanism at one budget and write its section. */
static int cs__bc_one(cs_bench_out_t *o, cs__bc_run_t *R, const cs__bc_mech_t *mk,
                      uint64_t budget, const char *suffix)
{
    size_t n = R->blk.n;
    cs_params_t p;
    cs_params_default(&p);
    p.bias_scale = 1000;
    p.reserve_price = 500;
    p.reserve_mode = CS_RESERVE_BID_GATE; /* the baseline below gates bids (N16's reading) */
    p.vcg_payment = CS_VCG_CRITICAL;
    cs_clear_ctx_t ctx = {.p = &p,
                          .height = CS__BC_HEIGHT,
                          .basefee_lane = CS__BC_BASEFEE_LANE,
                          .basefee_cycle = CS__BC_BASEFEE_CYCLE,
                          .basefee_cell = CS__BC_BASEFEE_CELL,
                          .budget_cycles = budget};
    cs_mech_t m;
    if (cs_mech_open(&m, cs_mech_find(mk->name), &p) != CS_OK) return -1;
    cs_clear_out_t out;
    uint64_t dig0 = 0;
    int stable = 1; /* every repetition gave the same outputs */
    /* Warm-up (workspaces grow here once), then the timed repetitions. */
    for (int r = -1; r < R->reps; r++) {
        memcpy(R->work, R->blk.c, n * sizeof *R->work);
        double c0 = cs_bench_cpu_ns(), t0 = cs_bench_now_ns();
        int rc = cs_mech_clear(&m, &ctx, R->work, n, &out);
        double t1 = cs_bench_now_ns(), c1 = cs_bench_cpu_ns();
        if (rc != CS_OK) {
            cs_mech_close(&m);
            fprintf(stderr, "cowsim bench: %s clearing failed (%d)\n", mk->name, rc);
            return -1;
        }
        if (r >= 0) {
            R->t[r] = t1 - t0;
            R->tc[r] = c1 - c0;
        }
        uint64_t dig = cs__bc_digest(R->work, n);
        if (r < 0) dig0 = dig;
        else stable &= dig == dig0;
    }
    cs_mech_close(&m);
    if (!stable) {
        fprintf(stderr, "cowsim bench: %s cleared the same block differently across repetitions\n",
                mk->name);
        return -1;
    }
    double clear_ns = cs_bench_median(R->t, R->reps) / (double)n;
    double clear_cpu_ns = cs_bench_median(R->tc, R->reps) / (double)n;

    /* Settlement of the last repetition's winners. */
    size_t nw = 0;
    for (size_t i = 0; i < n; i++)
        if (R->work[i].selected) R->wins[nw++] = (uint32_t)i;
    double settle_ns = 0;
    if (mk->settle != CS__SET_NONE) {
        if (cs__bc_ledger_prep(R, mk->settle == CS__SET_ESCROW) != 0) return -1;
        for (int r = 0; r < R->reps; r++) {
            cs__bc_ledger_restore(R);
            double t0 = cs_bench_now_ns();
            int rc = cs__bc_settle(R, mk->settle, &ctx, nw);
            double t1 = cs_bench_now_ns();
            if (rc != 0) {
                fprintf(stderr, "cowsim bench: %s settlement failed\n", mk->name);
                return -1;
            }
            R->t[r] = t1 - t0;
        }
        char msg[160];
        if (cs_ledger_check(&R->led, msg, sizeof msg) != CS_OK) {
            fprintf(stderr, "cowsim bench: %s settlement broke the ledger: %s\n", mk->name, msg);
            return -1;
        }
        settle_ns = cs_bench_median(R->t, R->reps) / (double)n;
    }

    /* The qsort baseline on the same block. */
    double q_ns = 0;
    int same = 1;
    if (!R->nobase) {
        size_t qfired = 0;
        for (int r = 0; r < R->reps; r++) {
            double t0 = cs_bench_now_ns();
            qfired = cs__bc_base_run(R, mk->name, &p, &ctx);
            double t1 = cs_bench_now_ns();
            R->t[r] = t1 - t0;
        }
        q_ns = cs_bench_median(R->t, R->reps) / (double)n;
        same = qfired == nw && cs__bc_same(R, mk->name);
    }

    char sec[48];
    snprintf(sec, sizeof sec, "clear_%s%s", mk->name, suffix);
    cs_bench_section(o, sec);
    cs_bench_int(o, "candidates", n);
    cs_bench_int(o, "budget_cycles", budget);
    cs_bench_int(o, "winners", nw);
    cs_bench_int(o, "reps", (unsigned long long)R->reps);
    cs_bench_num(o, "clear_ns_per_timer", clear_ns);
    cs_bench_num(o, "clear_cpu_ns_per_timer", clear_cpu_ns);
    cs_bench_num(o, "settle_ns_per_timer", settle_ns);
    cs_bench_num(o, "clear_total_ns_per_timer", clear_ns + settle_ns);
    cs_bench_num(o, "qsort_ns_per_timer", q_ns);
    cs_bench_num(o, "speedup_vs_qsort", q_ns > 0 ? q_ns / clear_ns : 0);
    cs_bench_str(o, "same_result", R->nobase ? "skipped" : same ? "yes" : "NO");
    if (n == CS__BC_TARGET_DUE) { /* the target is stated at 10^5 due */
        cs_bench_num(o, "target_clear_ns_per_timer", CS__BC_TARGET_NS);
        cs_bench_int(o, "meets_clear_target", clear_ns <= CS__BC_TARGET_NS);
    }
    cs_bench_end_section(o);
    if (!same) {
        fprintf(stderr, "cowsim bench: %s differs from its qsort baseline\n", mk->name);
        return -1;
    }
    return 0;
}

/* 1 when name is listed in the comma-separated list (or list is NULL). */
static int cs__bc_wanted(const char *list, const char *name)
{
    if (list == NULL || *list == '\0') return 1;
    size_t len = strlen(name);
    for (const char *s = list; *s;) {
        const char *e = strchr(s, ',');
        size_t k = e ? (size_t)(e - s) : strlen(s);
        if (k == len && strncmp(s, name, len) == 0) return 1;
        if (e == NULL) break;
        s = e + 1;
    }
    return 0;
}

static void cs__bc_run_free(cs__bc_run_t *R)
{
    cs__bc_free(&R->blk);
    free(R->work);
    free(R->res);
    free(R->why0);
    free(R->base.e);
    free(R->base.flag);
    free(R->base.need);
    free(R->base.stk);
    free(R->base.cnt);
    free(R->base.rr);
    free(R->base.bias);
    free(R->wins);
    free(R->t);
    free(R->tc);
    free(R->snap_bal);
    free(R->snap_esc);
    cs_ledger_free(&R->led);
}

int cs_bench_clear(cs_bench_out_t *o, int quick)
{
    size_t n = quick ? 10000 : 100000;
    cs__bc_run_t R;
    memset(&R, 0, sizeof R);
    cs_ledger_init(&R.led);
    const char *env = getenv("CS_BENCH_CLEAR_REPS");
    R.reps = env ? atoi(env) : 7;
    if (R.reps < 5) R.reps = 5;
    env = getenv("CS_BENCH_CLEAR_NOBASE");
    R.nobase = env != NULL && strcmp(env, "1") == 0;
    const char *only = getenv("CS_BENCH_CLEAR_ONLY");
    int rc = cs__bc_gen(&R.blk, n);
    if (rc == 0) {
        R.work = malloc(n * sizeof *R.work);
        R.res = malloc(n * sizeof *R.res);
        R.why0 = malloc(n);
        R.base.e = malloc(n * sizeof *R.base.e);
        R.base.flag = malloc(n);
        R.base.need = malloc(n * sizeof *R.base.need);
        R.base.stk = malloc(n * sizeof *R.base.stk);
        R.base.cnt = malloc(R.blk.targets * sizeof *R.base.cnt);
        R.base.rr = malloc(n * sizeof *R.base.rr);
        R.base.bias = malloc(n * sizeof *R.base.bias);
        R.wins = malloc(n * sizeof *R.wins);
        R.t = malloc((size_t)R.reps * sizeof *R.t);
        R.tc = malloc((size_t)R.reps * sizeof *R.tc);
        R.snap_bal = malloc(R.blk.targets * sizeof *R.snap_bal);
        R.snap_esc = malloc(R.blk.targets * sizeof *R.snap_esc);
        if (!R.work || !R.res || !R.why0 || !R.base.e || !R.base.flag || !R.base.need ||
            !R.base.stk || !R.base.cnt || !R.base.rr || !R.base.bias || !R.wins || !R.t || !R.tc ||
            !R.snap_bal || !R.snap_esc)
            rc = -1;
    }
    if (rc != 0) {
        fprintf(stderr, "cowsim bench: out of memory\n");
        cs__bc_run_free(&R);
        return -1;
    }
    cs_bench_str(o, "clear_workload",
                 "one block of due timers, high-entropy inputs; budgets 3 % and 50 % of the "
                 "within-cap cycles; median of reps; baseline = qsort clearing");
    cs_bench_int(o, "clear_candidates", n);
    cs_bench_int(o, "clear_targets", R.blk.targets);
    static const struct {
        uint64_t pct;       /* budget share of the within-cap cycles, percent */
        const char *suffix; /* section name suffix */
    } fills[2] = {{3, ""}, {50, "_fill50"}};
    for (int f = 0; f < 2 && rc == 0; f++) {
        uint64_t budget = R.blk.cap_cycles / 100 * fills[f].pct;
        for (size_t k = 0; k < sizeof cs__bc_mechs / sizeof cs__bc_mechs[0] && rc == 0; k++) {
            if (!cs__bc_wanted(only, cs__bc_mechs[k].name)) continue;
            rc = cs__bc_one(o, &R, &cs__bc_mechs[k], budget, fills[f].suffix);
        }
    }
    cs__bc_run_free(&R);
    return rc;
}
