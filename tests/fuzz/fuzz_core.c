/*
 * fuzz_core.c -- libFuzzer harness: the scheduler core (core/cs_sched.c,
 * cs_eob.c, cs_queue.c) driven by a byte stream of schedule / cancel /
 * write-key / commit / rollback / system-cancel / extend / pause / advance
 * operations, checked after every block against a simple reference model.
 *
 * Configuration (first 6 bytes): ring size 1..16, epoch 1..24 blocks, 1..4
 * epochs in tier 2 (so rings alias, epochs roll and the overflow tree is
 * used), MAX_TIMERS_PER_ACTOR 1..8, mechanism fifo or fifo-capped with
 * MAX_FIRES_PER_BLOCK 0..3, MAX_FIRES_PER_ACTOR 0..2 and a lane budget of
 * 1,000..64,000 cycles.  Four actors.  Fired handlers may reschedule
 * themselves and write state keys (from their payload bits), so the
 * re-entrant path is fuzzed too.
 *
 * The model is a flat array of timers.  Its rules, from the specs:
 *   - schedule: height must be > the block being built (CIP-5 §4.2); an
 *     actor holds at most MAX_TIMERS_PER_ACTOR timers counting what the
 *     open transaction staged net of its cancels (CIP-5 §8); an id that is
 *     live or staged is refused (CIP-5 §3.2); the derived id is
 *     keccak256(actor || height || payload || nonce) (CIP-5 §3.3);
 *   - transactions: effects apply at commit in order, vanish on rollback
 *     (CIP-5 §4.3); fifo_rank is the commit order (CIP-5 CN §6.1);
 *   - candidates at h: HEIGHT/INTERVAL timers due at <= h (late ones were
 *     deferred), STATE_WATCH timers deferred or whose keys meet
 *     ModifiedKeySet(h) (CIP-5 CN §8.1); timers created in block h never
 *     fire at h (CIP-5 CN §5 "do NOT fire in the same block"); TTL passed
 *     (h > expires_at) -> destroyed, not fired (CIP-1 rev §9);
 *   - order (due, fifo_rank); fifo fires all of them, fifo-capped applies
 *     the block quota, the per-actor quota and first-fit budget
 *     (CIP-5 §9.4, CN §18); a paused lane fires none;
 *   - one-shot timers are removed, INTERVAL timers roll to h + every
 *     (CIP-5 CN §11), watch timers stay; losers carry over.
 * Checked every block: each delivery is exactly the model's next winner
 * (id, actor, due height, fire_seq, payload) -- so nothing fires early,
 * late, twice, or out of order, and nothing due is skipped; the block
 * counts (due, fired, deferred, expired); every return code of every call;
 * pending totals, per-actor pending, cs_sched_find for every timer, queue
 * tier totals; and cs_sched_check_invariants.  A violation aborts (a crash
 * for libFuzzer) with a description on stderr.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_sched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CS__NACT 4     /* actors */
#define CS__MAXT 256   /* model timers per input */
#define CS__NKEYS 4    /* distinct state keys */
#define CS__MAXLOG 512 /* handler calls logged per block */

enum { ST_FREE = 0, ST_STAGED, ST_LIVE, ST_DONE };

/* One timer of the model. */
typedef struct mt {
    cs_hash_t id;        /* timer id */
    int state;           /* ST_* */
    uint8_t actor;       /* owner 0..3 */
    uint8_t kind;        /* cs_timer_kind */
    uint8_t keys;        /* WATCH: bit mask of keys 0..3 */
    uint8_t plen;        /* payload bytes (0..2) */
    uint8_t payload[2];  /* payload */
    uint32_t every;      /* INTERVAL period */
    uint64_t due;        /* next due height (HEIGHT / INTERVAL); WATCH: the height
                          * that last triggered it (DESIGN-NOTES N52) */
    uint64_t gas;        /* gas limit (cycles of one fire) */
    uint64_t expires;    /* TTL height, 0 = none */
    uint64_t rank;       /* fifo_rank (commit order) */
    uint64_t sched_h;    /* block whose TX phase (or handlers) created it */
    uint32_t fires;      /* fires so far = fire_seq */
    int carried;         /* lost a clearing and waits in the carry set */
    int st_cancelled;    /* STAGED and cancelled in the same transaction */
    int cancel_op;       /* LIVE with a cancel staged in the open transaction */
} mt_t;

/* A staged operation of the open transaction. */
typedef struct mop {
    int cancel;  /* 0 schedule, 1 cancel */
    int t;       /* model timer index */
} mop_t;

/* One logged handler call (from the execute hook). */
typedef struct hlog {
    cs_hash_t timer;     /* delivery's timer id */
    int sched_rc;        /* rc of the reschedule, -1 if none tried */
    cs_hash_t new_id;    /* id returned */
    uint64_t new_h;      /* height asked */
    int wrote;           /* key written, -1 if none */
    int write_rc;        /* its rc */
} hlog_t;

typedef struct fz {
    cs_sched_t *s;
    cs_params_t p;
    int capped;                 /* fifo-capped (else fifo) */
    int paused;                 /* lane pause in force */
    uint64_t h;                 /* block being built */
    mt_t t[CS__MAXT];
    int nt;
    mop_t ops[CS__MAXT];
    int nops;
    uint64_t nonce[CS__NACT];   /* per-actor schedule counter (CIP-5 §3.3) */
    int staged[CS__NACT];       /* net staged by the open transaction */
    uint64_t next_rank;         /* next fifo_rank */
    unsigned wkeys;             /* keys written by committed txs of this block (+ handlers of h-1) */
    unsigned tx_wkeys;          /* keys written by the open transaction */
    unsigned next_wkeys;        /* keys written by handlers of this block (count at h+1) */
    hlog_t log[CS__MAXLOG];     /* handler calls of the block being ended */
    int nlog;
    int ended[4 * CS__MAXT];    /* timers that ended or vanished since the last check */
    int nended;
} fz_t;

static fz_t g; /* one input at a time */
static int cs__trace = -1; /* FUZZ_CORE_TRACE set: print every operation (triage) */

#define TRACE(...)                                                     \
    do {                                                               \
        if (cs__trace) fprintf(stderr, __VA_ARGS__);                    \
    } while (0)

/* Abort with a description (a libFuzzer crash). */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_core: block %llu: ", (unsigned long long)g.h);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* Abort unless the core returned what the model expects. */
static void want_rc(int got, int exp, const char *what)
{
    if (got != exp) fail("%s returned %s, model expects %s", what, cs_errname(got), cs_errname(exp));
}

/* The 20-byte address of model actor a. */
static cs_addr_t addr_of(int a)
{
    cs_addr_t x;
    memset(x.b, 0, sizeof x.b);
    x.b[0] = 0xc5;
    x.b[19] = (uint8_t)(a + 1);
    return x;
}

static const uint8_t cs__keytxt[CS__NKEYS][3] = {"k0", "k1", "k2", "k3"};

/* Byte stream. */
typedef struct rd {
    const uint8_t *d;
    size_t n, i;
} rd_t;
/* Next input byte, 0 once the input is used up. */
static uint8_t get(rd_t *r) { return r->i < r->n ? r->d[r->i++] : 0; }

/* Live, or staged and not cancelled, timer with this id (the core's
 * cs__id_taken). */
static int id_taken(const cs_hash_t *id)
{
    for (int i = 0; i < g.nt; i++) {
        const mt_t *m = &g.t[i];
        if ((m->state == ST_LIVE || (m->state == ST_STAGED && !m->st_cancelled)) &&
            memcmp(m->id.b, id->b, 32) == 0)
            return 1;
    }
    return 0;
}

/* Remember that timer i ended (its id must stop being found). */
static void ended(int i)
{
    if (g.nended < (int)(sizeof g.ended / sizeof g.ended[0])) g.ended[g.nended++] = i;
}

/* Committed live timers of an actor (the core's per-actor pending count). */
static int live_of(int actor)
{
    int n = 0;
    for (int i = 0; i < g.nt; i++)
        if (g.t[i].state == ST_LIVE && g.t[i].actor == actor) n++;
    return n;
}

/* ------------------------------------------------------------ the hook */

/* A fired handler: payload[0] bit 0 reschedules the same payload at
 * h + 1 + payload[1] % 4; bit 1 writes key payload[1] % 4. */
static void hook_exec(void *user, cs_sched_t *s, const cs_delivery_t *d, uint64_t *uc, uint64_t *ue)
{
    (void)user;
    if (g.nlog >= CS__MAXLOG) fail("more than %d handler calls in one block", CS__MAXLOG);
    hlog_t *l = &g.log[g.nlog++];
    memset(l, 0, sizeof *l);
    l->timer = d->timer_id;
    l->sched_rc = -1;
    l->wrote = -1;
    uint8_t p0 = d->payload_len > 0 ? d->payload[0] : 0, p1 = d->payload_len > 1 ? d->payload[1] : 0;
    if (p0 & 1) {
        cs_sched_args_t a;
        memset(&a, 0, sizeof a);
        a.actor = d->actor;
        a.kind = CS_KIND_HEIGHT;
        a.height = g.h + 1 + p1 % 4;
        a.payload = d->payload;
        a.payload_len = d->payload_len;
        a.gas_limit = 1000;
        l->new_h = a.height;
        l->sched_rc = cs_sched_schedule(s, &a, &l->new_id, NULL);
    }
    if (p0 & 2) {
        l->wrote = p1 % CS__NKEYS;
        l->write_rc = cs_sched_write_key(s, cs__keytxt[l->wrote], 2);
    }
    *uc = 1;
    *ue = 0;
}

/* ------------------------------------------------------------ operations */

/* Open a transaction in the core and the model. */
static void tx_begin(void)
{
    want_rc(cs_sched_tx_begin(g.s), CS_OK, "tx_begin");
    g.nops = 0;
    memset(g.staged, 0, sizeof g.staged);
    g.tx_wkeys = 0;
}

/* Commit: staged schedules land in order with the next fifo_rank, staged
 * cancels remove their timers, the writes join ModifiedKeySet(h). */
static void tx_commit(void)
{
    want_rc(cs_sched_tx_commit(g.s), CS_OK, "tx_commit");
    for (int i = 0; i < g.nops; i++) {
        mt_t *m = &g.t[g.ops[i].t];
        if (!g.ops[i].cancel) {
            if (m->st_cancelled) {
                m->state = ST_FREE;
                ended(g.ops[i].t);
            } else {
                m->state = ST_LIVE;
                m->rank = g.next_rank++;
            }
        } else if (m->state == ST_LIVE) {
            m->state = ST_DONE;
            ended(g.ops[i].t);
        }
    }
    for (int i = 0; i < g.nt; i++) g.t[i].cancel_op = 0;
    g.wkeys |= g.tx_wkeys;
    g.nops = 0;
}

/* Roll back: staged schedules never existed, cancels are undone, writes
 * are forgotten (CIP-5 §4.3). */
static void tx_rollback(void)
{
    cs_sched_tx_rollback(g.s);
    for (int i = 0; i < g.nops; i++) {
        mt_t *m = &g.t[g.ops[i].t];
        if (!g.ops[i].cancel) {
            m->state = ST_FREE; /* never existed (the nonce stays used) */
            ended(g.ops[i].t);
        }
        else m->cancel_op = 0;
    }
    g.nops = 0;
}

/* schedule: kind, actor, delta, extra, payload, explicit id, TTL. */
static void op_schedule(rd_t *r, uint8_t kind)
{
    if (g.nt >= CS__MAXT) return;
    uint8_t a = get(r) % CS__NACT, dl = get(r), x = get(r), pl = get(r), fl = get(r);
    mt_t m;
    memset(&m, 0, sizeof m);
    m.actor = a;
    m.kind = kind;
    m.plen = (uint8_t)(pl % 3);
    m.payload[0] = (uint8_t)(0x80 | (pl >> 2)); /* never '{': no handler routing */
    m.payload[1] = x;
    m.gas = 1000u * (1u + (x % 16u));
    uint64_t height = kind == CS_KIND_WATCH ? g.h : g.h + (dl % 128); /* dl % 128 == 0: not future */
    m.due = height;
    m.every = kind == CS_KIND_INTERVAL ? 1u + x % 8u : 0;
    m.keys = kind == CS_KIND_WATCH ? (uint8_t)(1u + x % 15u) : 0;
    if (fl & 1) m.expires = g.h + (fl >> 1) % 40; /* may already be behind the due height */
    m.sched_h = g.h;

    const uint8_t *kp[CS__NKEYS];
    size_t kl[CS__NKEYS], nk = 0;
    for (int k = 0; k < CS__NKEYS; k++)
        if (m.keys & (1u << k)) {
            kp[nk] = cs__keytxt[k];
            kl[nk++] = 2;
        }
    uint8_t xid[32];
    int explicit_id = (fl & 0x40) != 0;
    memset(xid, 0, sizeof xid);
    xid[0] = 0xee;
    xid[31] = (uint8_t)(dl & 7); /* ids that differ only after the 8-byte index prefix */
    cs_sched_args_t args;
    memset(&args, 0, sizeof args);
    args.actor = addr_of(a);
    args.kind = kind;
    args.height = height;
    args.every_blocks = m.every;
    args.payload = m.payload;
    args.payload_len = m.plen;
    args.timer_id = explicit_id ? xid : NULL;
    args.timer_id_len = explicit_id ? 32 : 0;
    args.gas_limit = m.gas;
    args.expires_at = m.expires;
    args.watch_keys = kp;
    args.watch_key_lens = kl;
    args.n_watch = nk;
    cs_hash_t got;
    int rc = cs_sched_schedule(g.s, &args, &got, NULL);
    TRACE("h=%llu schedule kind=%u actor=%u height=%llu every=%u keys=%x plen=%u gas=%llu ttl=%llu xid=%d -> %s\n",
          (unsigned long long)g.h, kind, a, (unsigned long long)height, m.every, m.keys, m.plen,
          (unsigned long long)m.gas, (unsigned long long)m.expires, explicit_id ? xid[31] : -1, cs_errname(rc));

    /* The model, in the core's order of checks. */
    int exp = CS_OK;
    if (kind != CS_KIND_WATCH && height <= g.h) exp = CS_EHEIGHT_NOT_FUTURE;
    else if (live_of(a) + g.staged[a] >= (int)g.p.max_timers_per_actor) exp = CS_ETOO_MANY_TIMERS;
    if (exp == CS_OK) {
        if (explicit_id) memcpy(m.id.b, xid, 32);
        else cs_timer_id(&args.actor, height, m.payload, m.plen, g.nonce[a], &m.id);
        if (id_taken(&m.id)) exp = CS_ETIMER_EXISTS;
    }
    want_rc(rc, exp, "cs_sched_schedule");
    if (rc != CS_OK) return;
    if (memcmp(got.b, m.id.b, 32) != 0) fail("schedule returned an id the model did not derive");
    g.nonce[a]++;
    g.staged[a]++;
    m.state = ST_STAGED;
    g.t[g.nt] = m;
    g.ops[g.nops].cancel = 0;
    g.ops[g.nops++].t = g.nt;
    g.nt++;
}

/* cancel by the owner or (1 in 4) by another actor (CIP-5 §4.1). */
static void op_cancel(rd_t *r)
{
    uint8_t who = get(r), which = get(r);
    if (g.nt == 0) return;
    int ti = (int)(which % g.nt);
    int caller = (who & 3) == 3 ? (g.t[ti].actor + 1) % CS__NACT : g.t[ti].actor; /* sometimes not the owner */
    cs_addr_t ca = addr_of(caller);
    cs_hash_t id = g.t[ti].id;
    int rc = cs_sched_cancel(g.s, &ca, &id, NULL);
    TRACE("h=%llu cancel timer %d by actor %d -> %s\n", (unsigned long long)g.h, ti, caller, cs_errname(rc));
    /* Model: a staged (not cancelled) schedule with this id first, then a
     * live timer, else not found. */
    int exp = CS_ETIMER_NOT_FOUND, hit = -1;
    for (int i = 0; i < g.nt; i++)
        if (g.t[i].state == ST_STAGED && !g.t[i].st_cancelled && memcmp(g.t[i].id.b, id.b, 32) == 0) hit = i;
    if (hit >= 0) {
        exp = g.t[hit].actor == caller ? CS_OK : CS_ENOT_OWNER;
        want_rc(rc, exp, "cs_sched_cancel (staged)");
        if (rc == CS_OK) g.t[hit].st_cancelled = 1;
        return;
    }
    for (int i = 0; i < g.nt; i++)
        if (g.t[i].state == ST_LIVE && memcmp(g.t[i].id.b, id.b, 32) == 0) hit = i;
    if (hit >= 0) {
        if (g.t[hit].actor != caller) exp = CS_ENOT_OWNER;
        else if (g.t[hit].cancel_op) exp = CS_ETIMER_NOT_FOUND;
        else exp = CS_OK;
    }
    want_rc(rc, exp, "cs_sched_cancel");
    if (rc != CS_OK) return;
    g.t[hit].cancel_op = 1;
    g.staged[caller]--;
    g.ops[g.nops].cancel = 1;
    g.ops[g.nops++].t = hit;
}

/* write one of the state keys (ModifiedKeySet, CIP-5 CN §8.1). */
static void op_write(rd_t *r)
{
    int k = get(r) % CS__NKEYS;
    TRACE("h=%llu write k%d\n", (unsigned long long)g.h, k);
    want_rc(cs_sched_write_key(g.s, cs__keytxt[k], 2), CS_OK, "cs_sched_write_key");
    g.tx_wkeys |= 1u << k;
}

/* System cancel / extend between transactions (CIP-1 rev §12). */
static void op_system(rd_t *r, int extend)
{
    uint8_t which = get(r), v = get(r);
    tx_commit();
    if (g.nt > 0) {
        int ti = (int)(which % g.nt);
        cs_hash_t id = g.t[ti].id;
        int hit = -1;
        for (int i = 0; i < g.nt; i++)
            if (g.t[i].state == ST_LIVE && memcmp(g.t[i].id.b, id.b, 32) == 0) hit = i;
        if (!extend) {
            TRACE("h=%llu sys_cancel timer %d\n", (unsigned long long)g.h, ti);
            want_rc(cs_sched_sys_cancel(g.s, &id), hit >= 0 ? CS_OK : CS_ETIMER_NOT_FOUND, "cs_sched_sys_cancel");
            if (hit >= 0) {
                g.t[hit].state = ST_DONE;
                ended(hit);
            }
        } else {
            uint64_t ne = v % 4 == 0 ? 0 : g.h - 1 + v % 32; /* 0 = none; <= h is refused */
            int exp = hit < 0 ? CS_ETIMER_NOT_FOUND : (ne != 0 && ne <= g.h) ? CS_EINVALID_PARAM : CS_OK;
            TRACE("h=%llu sys_extend timer %d to %llu\n", (unsigned long long)g.h, ti, (unsigned long long)ne);
            want_rc(cs_sched_sys_extend(g.s, &id, ne), exp, "cs_sched_sys_extend");
            if (exp == CS_OK) g.t[hit].expires = ne;
        }
    }
    tx_begin();
}

/* ------------------------------------------------------------ one block */

/* qsort order of candidates: (due, fifo_rank, id), CIP-5 §5.1. */
static int cand_cmp(const void *pa, const void *pb)
{
    const mt_t *a = &g.t[*(const int *)pa], *b = &g.t[*(const int *)pb];
    if (a->due != b->due) return a->due < b->due ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return memcmp(a->id.b, b->id.b, 32);
}

/* After a block: every live timer found with its height and fire_seq, no
 * ended one found, pending totals per run and per actor, queue tiers, and
 * the core's own invariants. */
static void check_state(const cs_block_stats_t *st)
{
    uint64_t live = 0, queued = 0;
    uint32_t per[CS__NACT] = {0};
    for (int i = 0; i < g.nt; i++) {
        const mt_t *m = &g.t[i];
        if (m->state != ST_LIVE) continue;
        live++;
        per[m->actor]++;
        if (m->kind != CS_KIND_WATCH && !m->carried) queued++;
        const cs_timer_t *cold = cs_sched_find(g.s, &m->id);
        if (!cold) fail("live timer %d not found by id", i);
        const cs_timer_hot_t *rec = cs_sched_hot(g.s, (uint32_t)(cold - cs_sched_record(g.s, 0)));
        if (rec->height != m->due)
            fail("timer %d height %llu, model %llu", i, (unsigned long long)rec->height,
                 (unsigned long long)m->due);
        if (rec->fire_seq != m->fires) fail("timer %d fire_seq %u, model %u", i, rec->fire_seq, m->fires);
    }
    for (int k = 0; k < g.nended; k++) {
        int i = g.ended[k];
        if (g.t[i].state != ST_LIVE && !id_taken(&g.t[i].id) && cs_sched_find(g.s, &g.t[i].id) != NULL)
            fail("ended timer %d still found", i);
    }
    g.nended = 0;
    if (cs_sched_pending(g.s) != live)
        fail("pending %llu, model %llu", (unsigned long long)cs_sched_pending(g.s), (unsigned long long)live);
    for (int a = 0; a < CS__NACT; a++) {
        cs_addr_t ad = addr_of(a);
        if (cs_sched_actor_pending(g.s, &ad) != per[a])
            fail("actor %d pending %u, model %u", a, cs_sched_actor_pending(g.s, &ad), per[a]);
    }
    if (st && st->tiers.ring + st->tiers.epoch + st->tiers.tree != queued)
        fail("queue tiers hold %llu, model %llu", (unsigned long long)(st->tiers.ring + st->tiers.epoch + st->tiers.tree),
             (unsigned long long)queued);
    char msg[256];
    if (cs_sched_check_invariants(g.s, msg, sizeof msg) != CS_OK) fail("invariant: %s", msg);
}

/* End block g.h, check it against the model, start block g.h + 1. */
static void advance(void)
{
    tx_commit();
    uint64_t h = g.h;
    /* Candidates. */
    static int cand[CS__MAXT], win[CS__MAXT];
    int nc = 0, ncand_all = 0, nexp = 0;
    for (int i = 0; i < g.nt; i++) {
        mt_t *m = &g.t[i];
        if (m->state != ST_LIVE) continue;
        int is;
        if (m->kind == CS_KIND_WATCH) {
            is = m->carried || ((m->keys & g.wkeys) && m->sched_h < h);
            /* N52: a fresh trigger dates it; a carried one keeps its date. */
            if (is && !m->carried) m->due = h;
        } else
            is = m->due <= h;
        if (!is) continue;
        if (m->kind != CS_KIND_WATCH && m->due < h && !m->carried) fail("model: timer %d late but not carried", i);
        ncand_all++;
        if (m->expires != 0 && h > m->expires) {
            m->state = ST_DONE; /* TTL: destroyed through the GC lane */
            m->carried = 0;
            ended(i);
            nexp++;
            continue;
        }
        cand[nc++] = i;
    }
    qsort(cand, (size_t)nc, sizeof cand[0], cand_cmp);
    /* Selection. */
    int nw = 0;
    if (!g.paused) {
        uint64_t left = g.p.lane_timer_cycles, fired = 0;
        uint32_t per[CS__NACT] = {0};
        for (int k = 0; k < nc; k++) {
            const mt_t *m = &g.t[cand[k]];
            if (g.capped) {
                if (g.p.max_fires_per_block && fired >= g.p.max_fires_per_block) continue;
                if (g.p.max_fires_per_actor && per[m->actor] >= g.p.max_fires_per_actor) continue;
                if (m->gas > left) continue;
                left -= m->gas;
                per[m->actor]++;
            }
            fired++;
            win[nw++] = cand[k];
        }
    }
    TRACE("end block %llu: model candidates %d (+%d expired), winners %d\n", (unsigned long long)h, nc, nexp, nw);
    g.nlog = 0;
    cs_block_result_t res;
    want_rc(cs_sched_end_block(g.s, &res), CS_OK, "cs_sched_end_block");
    const cs_block_stats_t *st = &res.st;
    if (st->due != (uint64_t)ncand_all) fail("due %llu, model %d", (unsigned long long)st->due, ncand_all);
    if (st->expired != (uint64_t)nexp) fail("expired %llu, model %d", (unsigned long long)st->expired, nexp);
    if (st->fired != (uint64_t)nw) fail("fired %llu, model %d", (unsigned long long)st->fired, nw);
    if (st->deferred != (uint64_t)(nc - nw))
        fail("deferred %llu, model %d", (unsigned long long)st->deferred, nc - nw);
    if (res.n_deliv != (size_t)nw) fail("%zu deliveries, model %d", res.n_deliv, nw);
    /* Each delivery is the model's next winner: nothing early, late, twice
     * or out of order. */
    for (int k = 0; k < nw; k++) {
        const cs_delivery_t *d = &res.deliv[k];
        const mt_t *m = &g.t[win[k]];
        uint64_t due = m->due;
        cs_addr_t ad = addr_of(m->actor);
        if (memcmp(d->timer_id.b, m->id.b, 32) != 0) fail("delivery %d is not model timer %d", k, win[k]);
        if (memcmp(d->actor.b, ad.b, 20) != 0) fail("delivery %d actor differs", k);
        if (d->due_height != due || due > h)
            fail("delivery %d due %llu, model %llu", k, (unsigned long long)d->due_height, (unsigned long long)due);
        if (d->fire_seq != m->fires) fail("delivery %d fire_seq %u, model %u", k, d->fire_seq, m->fires);
        if (d->kind != m->kind) fail("delivery %d kind %u, model %u", k, d->kind, m->kind);
        if (d->payload_len != m->plen || (m->plen && memcmp(d->payload, m->payload, m->plen) != 0))
            fail("delivery %d payload differs", k);
        /* fifo defers only under a lane pause: a late fire must have been carried. */
        if (!g.capped && m->kind != CS_KIND_WATCH && due != h && !m->carried) fail("fifo delivery %d is late", k);
    }
    /* Apply the fires, then the losers. */
    for (int k = 0; k < nw; k++) {
        mt_t *m = &g.t[win[k]];
        m->fires++;
        m->carried = 0;
        if (m->kind == CS_KIND_HEIGHT) {
            m->state = ST_DONE;
            ended(win[k]);
        } else if (m->kind == CS_KIND_INTERVAL) m->due = h + m->every; /* CIP-5 CN §11 */
    }
    for (int k = 0; k < nc; k++)
        if (g.t[cand[k]].state == ST_LIVE) {
            int won = 0;
            for (int j = 0; j < nw && !won; j++) won = win[j] == cand[k];
            if (!won) g.t[cand[k]].carried = 1;
        }
    /* Handlers ran in delivery order, each in its own transaction. */
    if (g.nlog != nw) fail("%d handler calls for %d deliveries", g.nlog, nw);
    g.next_wkeys = 0;
    for (int k = 0; k < g.nlog; k++) {
        const hlog_t *l = &g.log[k];
        const mt_t *src = &g.t[win[k]];
        if (memcmp(l->timer.b, src->id.b, 32) != 0) fail("handler %d ran for another timer", k);
        if (l->sched_rc >= 0) {
            int a = src->actor;
            int exp = live_of(a) >= (int)g.p.max_timers_per_actor ? CS_ETOO_MANY_TIMERS : CS_OK;
            mt_t m;
            memset(&m, 0, sizeof m);
            cs_addr_t ad = addr_of(a);
            cs_timer_id(&ad, l->new_h, src->payload, src->plen, g.nonce[a], &m.id);
            if (exp == CS_OK && id_taken(&m.id)) exp = CS_ETIMER_EXISTS;
            want_rc(l->sched_rc, exp, "handler cs_sched_schedule");
            if (l->sched_rc == CS_OK) {
                if (g.nt >= CS__MAXT) fail("model full");
                if (memcmp(l->new_id.b, m.id.b, 32) != 0) fail("handler schedule id differs");
                g.nonce[a]++;
                m.state = ST_LIVE;
                m.actor = (uint8_t)a;
                m.kind = CS_KIND_HEIGHT;
                m.plen = src->plen;
                memcpy(m.payload, src->payload, 2);
                m.due = l->new_h;
                m.gas = 1000;
                m.rank = g.next_rank++;
                m.sched_h = h;
                g.t[g.nt++] = m;
            }
        }
        if (l->wrote >= 0) {
            want_rc(l->write_rc, CS_OK, "handler cs_sched_write_key");
            g.next_wkeys |= 1u << l->wrote; /* counts toward ModifiedKeySet(h + 1) */
        }
    }
    check_state(st);
    /* Next block. */
    g.h = h + 1;
    want_rc(cs_sched_begin_block(g.s, g.h), CS_OK, "cs_sched_begin_block");
    g.wkeys = g.next_wkeys;
    tx_begin();
}

/* Stop the model from growing past its array: keep inputs bounded. */
static int room(void) { return g.nt < CS__MAXT - 64; }

/* One input: configuration, operations, then a bounded drain. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rd_t r = {data, size, 0};
    if (cs__trace < 0) cs__trace = getenv("FUZZ_CORE_TRACE") != NULL;
    memset(&g, 0, sizeof g);
    cs_params_default(&g.p);
    g.p.ring_size = 1u + get(&r) % 16u;
    g.p.epoch_blocks = 1u + get(&r) % 24u;
    g.p.epochs = 1u + get(&r) % 4u;
    g.p.max_timers_per_actor = 1u + get(&r) % 8u;
    uint8_t m = get(&r), b = get(&r);
    g.capped = m & 1;
    g.p.max_fires_per_block = (m >> 1) % 4u;
    g.p.max_fires_per_actor = b % 3u;
    g.p.lane_timer_cycles = 1000u * (1u + (b >> 2));
    TRACE("ring %llu epoch %llu epochs %llu max/actor %llu %s block quota %llu actor quota %llu lane %llu\n",
          (unsigned long long)g.p.ring_size, (unsigned long long)g.p.epoch_blocks, (unsigned long long)g.p.epochs,
          (unsigned long long)g.p.max_timers_per_actor, g.capped ? "fifo-capped" : "fifo",
          (unsigned long long)g.p.max_fires_per_block, (unsigned long long)g.p.max_fires_per_actor,
          (unsigned long long)g.p.lane_timer_cycles);
    if (cs_sched_alloc(&g.s, &g.p, g.capped ? "fifo-capped" : "fifo", 0) != CS_OK) fail("cs_sched_alloc");
    cs_sched_hooks_t hk = {NULL, hook_exec, NULL, NULL, NULL};
    cs_sched_set_hooks(g.s, &hk);
    for (int a = 0; a < CS__NACT; a++) {
        cs_addr_t ad = addr_of(a);
        uint32_t idx;
        if (cs_sched_actor_index(g.s, &ad, &idx) != CS_OK) fail("cs_sched_actor_index");
    }
    g.h = 1;
    want_rc(cs_sched_begin_block(g.s, 1), CS_OK, "cs_sched_begin_block");
    tx_begin();
    while (r.i < r.n && room()) {
        uint8_t op = get(&r);
        switch (op % 16) {
        case 0: case 1: case 2: op_schedule(&r, CS_KIND_HEIGHT); break;
        case 3: op_schedule(&r, CS_KIND_INTERVAL); break;
        case 4: op_schedule(&r, CS_KIND_WATCH); break;
        case 5: case 6: op_cancel(&r); break;
        case 7: op_write(&r); break;
        case 8: TRACE("commit\n"); tx_commit(); tx_begin(); break;
        case 9: TRACE("rollback\n"); tx_rollback(); tx_begin(); break;
        case 10: op_system(&r, 0); break;
        case 11: op_system(&r, 1); break;
        case 12: {
            tx_commit();
            g.paused = !g.paused;
            TRACE("paused=%d\n", g.paused);
            cs_sched_set_paused(g.s, g.paused);
            tx_begin();
            break;
        }
        default: {
            int n = 1 + (op >> 4) % 8;
            for (int i = 0; i < n && room(); i++) advance();
            break;
        }
        }
    }
    /* Drain: unpause and run until nothing height-triggered is pending
     * (bounded: intervals and self-rescheduling handlers never end). */
    tx_commit();
    g.paused = 0;
    cs_sched_set_paused(g.s, 0);
    tx_begin();
    for (int i = 0; i < 300 && room(); i++) {
        int any = 0;
        for (int k = 0; k < g.nt && !any; k++)
            any = g.t[k].state == ST_LIVE && g.t[k].kind == CS_KIND_HEIGHT;
        if (!any) break;
        advance();
    }
    tx_commit();
    cs_sched_free(g.s);
    g.s = NULL;
    return 0;
}
