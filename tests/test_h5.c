/*
 * test_h5.c -- the HDF5 run file writer and reader (sim/cs_h5.h, DESIGN §5).
 *
 * Rows are generated from a splitmix64 stream keyed by (dataset seed, row
 * index), so any row can be regenerated on its own and compared field by
 * field with what the reader returns.  Child processes simulate a crash
 * (_exit without close), a full disk (RLIMIT_FSIZE) and /dev/full; a fresh
 * copy of this program (--probe) reads a file that is still open for writing
 * in another process.  h5dump, when installed, checks the file
 * independently of cs_h5's reader.
 *
 *   test_h5                 run the tests
 *   test_h5 --probe FILE    print "complete=C blocks=B fires=F" and exit
 *   test_h5 --bench N [T]   time N /fires rows (T = 1: helper thread)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "cs_agent.h"
#include "cs_h5.h"
#include "cs_test.h"

static char g_dir[256];   /* scratch directory for this run */
static char g_self[4096]; /* this executable, for --probe */

/* ---- deterministic row generators ------------------------------------------ */

static uint64_t sm64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t row_seed(uint64_t seed, uint64_t i)
{
    return seed ^ (i * 0xd1b54a32d192ed03ull);
}

/* A double with 53 random bits, scaled to about [-17.25, 2367.75). */
static double rnd_f64(uint64_t *s)
{
    return (double)(sm64(s) >> 11) * 0x1p-53 * 2385.0 - 17.25;
}

/* A MONEY value with a random 128-bit amount: the high word is 0 for about
 * half the rows and random otherwise, so both halves are exercised. */
static cs_h5_money_t rnd_money(uint64_t *s)
{
    uint64_t hi = sm64(s), lo = sm64(s);
    return cs_h5_money((hi & 1) ? (cs_u128)(hi >> 1) << 64 | lo : lo);
}

static void gen_block(uint64_t seed, uint64_t i, cs_h5_block_t *b)
{
    uint64_t s = row_seed(seed, i);
    b->height = 1000003 + i;
    b->basefee_lane = rnd_money(&s);
    b->basefee_cycle = rnd_money(&s);
    b->basefee_cell = rnd_money(&s);
    b->lane_cycles = sm64(&s) % 2000001;
    b->gc_cycles = sm64(&s) % 5000001;
    b->eob_cycles = sm64(&s);
    b->utilisation = rnd_f64(&s);
    b->due = (uint32_t)sm64(&s);
    b->fired = (uint32_t)sm64(&s);
    b->deferred = (uint32_t)sm64(&s);
    b->expired = (uint32_t)sm64(&s);
    b->insufficient = (uint32_t)sm64(&s);
    b->cancelled = (uint32_t)sm64(&s);
    b->scheduled = (uint32_t)sm64(&s);
    b->rejected = (uint32_t)sm64(&s);
    b->gc_backlog = sm64(&s);
    b->burn = rnd_money(&s);
    b->tips = rnd_money(&s);
    b->payments = rnd_money(&s);
    b->lambda_ppb = sm64(&s) % 10000000000ull;
    b->p50_tip = rnd_money(&s);
    b->tier_ring = sm64(&s) % 4096;
    b->tier_epoch = sm64(&s);
    b->tier_tree = sm64(&s);
    b->pending = sm64(&s);
    for (int k = 0; k < 4; k++) {
        uint64_t w = sm64(&s);
        memcpy(b->digest + 8 * k, &w, 8);
    }
    b->lane_budget = sm64(&s);
    b->fire_cap = sm64(&s);
    b->quota_block = (uint32_t)sm64(&s);
    b->quota_actor = (uint32_t)sm64(&s);
    b->exec_fee = rnd_money(&s);
    b->lane_burn = rnd_money(&s);
    b->sched_cost = rnd_money(&s);
    b->cancel_cost = rnd_money(&s);
    b->bias_slack = (double)(int64_t)(sm64(&s) % 2000001u) - 1000000.25;
    b->book_full = (uint32_t)sm64(&s);
    b->book_window = (uint32_t)sm64(&s);
    b->book_too_large = (uint32_t)sm64(&s);
    b->book_declined = (uint32_t)sm64(&s);
    b->slot_base = rnd_money(&s);
}

static void gen_fire(uint64_t seed, uint64_t i, cs_h5_fire_t *f)
{
    uint64_t s = row_seed(seed, i);
    f->height = 2000017 + i / 7;
    f->timer_id = sm64(&s);
    f->actor = (uint32_t)sm64(&s);
    f->agent = (uint32_t)sm64(&s);
    f->kind = (uint32_t)(sm64(&s) % CS_AGENT_KIND_COUNT);
    f->delay = (uint32_t)(sm64(&s) % 97);
    f->due_height = f->height - f->delay;
    f->cycles = sm64(&s) % 250001;
    f->gas_limit = sm64(&s);
    f->bid = rnd_money(&s);
    f->max_fee = rnd_money(&s);
    f->max_prio = rnd_money(&s);
    f->paid = rnd_money(&s);
    f->burn = rnd_money(&s);
    f->tip = rnd_money(&s);
    f->value = rnd_f64(&s);
    f->weight_ppm = (uint32_t)sm64(&s);
    f->deferrals = (uint32_t)sm64(&s);
    f->exec_fee = rnd_money(&s);
    f->lane_burn = rnd_money(&s);
    f->alloc_payment = rnd_money(&s);
    f->prio_tip = rnd_money(&s);
}

static void gen_timer(uint64_t seed, uint64_t i, cs_h5_timer_t *t)
{
    uint64_t s = row_seed(seed, i);
    t->timer_id = sm64(&s);
    t->actor = (uint32_t)sm64(&s);
    t->agent = (uint32_t)sm64(&s);
    t->kind = (uint32_t)(sm64(&s) % CS_AGENT_KIND_COUNT);
    t->trigger = (uint32_t)(sm64(&s) % 3);
    t->outcome = (uint32_t)(sm64(&s) % 6);
    t->every_blocks = (uint32_t)sm64(&s);
    t->sched_height = sm64(&s);
    t->due_height = sm64(&s);
    t->end_height = sm64(&s);
    t->deferrals = (uint32_t)sm64(&s);
    t->fires = (uint32_t)sm64(&s);
    t->gas_limit = sm64(&s);
    t->expires_at = sm64(&s);
    t->deadline = sm64(&s);
    t->value = rnd_f64(&s);
    t->decay = rnd_f64(&s);
    t->decay_rate = rnd_f64(&s);
    t->bid = rnd_money(&s);
    t->book_class = (uint32_t)(sm64(&s) % 4);
    t->book_moved = (uint32_t)sm64(&s);
    t->book_price = rnd_money(&s);
}

static void gen_actor(uint64_t seed, uint64_t i, cs_h5_actor_t *a)
{
    uint64_t s = row_seed(seed, i);
    a->actor = (uint32_t)i;
    a->agent = (uint32_t)sm64(&s);
    a->kind = (uint32_t)(sm64(&s) % CS_AGENT_KIND_COUNT);
    a->deployer = (uint32_t)sm64(&s);
    a->fires = sm64(&s);
    a->scheduled = sm64(&s);
    a->value = rnd_f64(&s);
    a->paid = rnd_money(&s);
    a->end_balance = rnd_money(&s);
    a->sched_cost = rnd_money(&s);
    a->cancel_cost = rnd_money(&s);
}

static void gen_weight(uint64_t seed, uint64_t i, cs_h5_weight_t *w)
{
    uint64_t s = row_seed(seed, i);
    w->height = 1000 * (i / 50);
    w->ident = (uint32_t)(i % 50);
    w->weight_ppm = (uint32_t)sm64(&s);
    w->fires_in_window = (uint32_t)sm64(&s);
    w->median_fires = (uint32_t)sm64(&s);
}

static void gen_summary(uint64_t seed, uint64_t i, cs_h5_summary_t *r)
{
    uint64_t s = row_seed(seed, i);
    r->kind = (uint32_t)i; /* 0..12, then 13 = all */
    r->actors = (uint32_t)sm64(&s);
    r->fires = sm64(&s);
    r->timers = sm64(&s);
    r->delay_p50 = rnd_f64(&s);
    r->delay_p95 = rnd_f64(&s);
    r->delay_p99 = rnd_f64(&s);
    r->delay_max = rnd_f64(&s);
    r->censored = sm64(&s);
    r->value = rnd_f64(&s);
    r->paid = rnd_money(&s);
    r->utility = rnd_f64(&s);
}

/* Identities: actors, then every 7th row a deployer with a name of up to
 * 128 bytes (the full width, no terminator, when i % 128 == 127). */
static void gen_ident(uint64_t seed, uint64_t i, cs_h5_ident_t *r)
{
    uint64_t s = row_seed(seed, i);
    memset(r, 0, sizeof *r);
    r->ident = (uint32_t)i;
    r->kind = i % 7 == 6 ? CS_H5_IDENT_DEPLOYER : CS_H5_IDENT_ACTOR;
    r->actor = r->kind == CS_H5_IDENT_ACTOR ? (uint32_t)i : UINT32_MAX;
    if (r->kind == CS_H5_IDENT_DEPLOYER)
        for (size_t k = 0; k <= i % 128; k++) r->name[k] = (char)('a' + sm64(&s) % 26);
}

typedef void (*gen_fn)(uint64_t seed, uint64_t i, void *row);

/* Per-dataset seeds and generators, indexed by cs_h5_ds. */
static const uint64_t g_seed[CS_H5_NDS] = {0x2385a1ull, 0x7f4a7c15ull, 0x31415926ull,
                                           0x27182818ull, 0x16180339ull, 0x14142135ull, 0x17320508ull};

static void gen_row(int ds, uint64_t i, void *row)
{
    switch (ds) {
    case CS_H5_BLOCKS: gen_block(g_seed[ds], i, row); break;
    case CS_H5_FIRES: gen_fire(g_seed[ds], i, row); break;
    case CS_H5_TIMERS: gen_timer(g_seed[ds], i, row); break;
    case CS_H5_ACTORS: gen_actor(g_seed[ds], i, row); break;
    case CS_H5_WEIGHTS: gen_weight(g_seed[ds], i, row); break;
    case CS_H5_IDENTS: gen_ident(g_seed[ds], i, row); break;
    default: gen_summary(g_seed[ds], i, row); break;
    }
}

/* ---- field-by-field comparison (generated from the header tables) ------- */

#define CMP_FIELD(name, kind, doc) \
    if (memcmp(&a->name, &b->name, sizeof a->name) != 0) return #name;

static const char *diff_block(const cs_h5_block_t *a, const cs_h5_block_t *b)
{
    CS_H5_BLOCK_FIELDS(CMP_FIELD)
    return NULL;
}
static const char *diff_fire(const cs_h5_fire_t *a, const cs_h5_fire_t *b)
{
    CS_H5_FIRE_FIELDS(CMP_FIELD)
    return NULL;
}
static const char *diff_timer(const cs_h5_timer_t *a, const cs_h5_timer_t *b)
{
    CS_H5_TIMER_FIELDS(CMP_FIELD)
    return NULL;
}
static const char *diff_actor(const cs_h5_actor_t *a, const cs_h5_actor_t *b)
{
    CS_H5_ACTOR_FIELDS(CMP_FIELD)
    return NULL;
}
static const char *diff_weight(const cs_h5_weight_t *a, const cs_h5_weight_t *b)
{
    CS_H5_WEIGHT_FIELDS(CMP_FIELD)
    return NULL;
}
static const char *diff_summary(const cs_h5_summary_t *a, const cs_h5_summary_t *b)
{
    CS_H5_SUMMARY_FIELDS(CMP_FIELD)
    return NULL;
}

static const char *diff_ident(const cs_h5_ident_t *a, const cs_h5_ident_t *b)
{
    CS_H5_IDENT_FIELDS(CMP_FIELD)
    return NULL;
}

static const char *diff_row(int ds, const void *a, const void *b)
{
    switch (ds) {
    case CS_H5_BLOCKS: return diff_block(a, b);
    case CS_H5_FIRES: return diff_fire(a, b);
    case CS_H5_TIMERS: return diff_timer(a, b);
    case CS_H5_ACTORS: return diff_actor(a, b);
    case CS_H5_WEIGHTS: return diff_weight(a, b);
    case CS_H5_IDENTS: return diff_ident(a, b);
    default: return diff_summary(a, b);
    }
}

/* Compare rows[0..n) with generated rows first..first+n; report the first
 * mismatching row and column.  Returns the number of mismatching rows. */
static size_t check_rows(int ds, const void *rows, size_t n, uint64_t first, const char *what)
{
    size_t es = cs_h5_ds_row_size((cs_h5_ds)ds), bad = 0;
    _Alignas(16) unsigned char want[512]; /* >= the largest row (/blocks, 488 bytes) */
    for (size_t i = 0; i < n; i++) {
        gen_row(ds, first + i, want);
        const char *f = diff_row(ds, (const unsigned char *)rows + i * es, want);
        if (f && bad++ == 0) {
            char d[200];
            snprintf(d, sizeof d, "%s: /%s row %zu column %s differs", what,
                     cs_h5_ds_name((cs_h5_ds)ds), (size_t)(first + i), f);
            cs_test_failed(__FILE__, __LINE__, "rows equal", d);
        }
    }
    if (bad == 0) cs_test_pass++;
    return bad;
}

/* Append rows [from, to) of dataset ds in batches of varying size (1, 2,
 * 3, ..., 97, then 20000 once) to exercise every chunk-boundary case. */
static int append_gen(cs_h5_t *h, int ds, uint64_t from, uint64_t to)
{
    size_t es = cs_h5_ds_row_size((cs_h5_ds)ds);
    size_t cap = 20000;
    unsigned char *buf = malloc(cap * es);
    if (!buf) return CS_ENOMEM;
    int rc = CS_OK;
    size_t batch = 1;
    int big_done = 0;
    for (uint64_t i = from; i < to && rc == CS_OK;) {
        size_t n = batch;
        if (!big_done && i - from > 1000) {
            n = cap;
            big_done = 1;
        }
        if (n > to - i) n = (size_t)(to - i);
        for (size_t k = 0; k < n; k++) gen_row(ds, i + k, buf + k * es);
        rc = cs_h5_append(h, (cs_h5_ds)ds, buf, n);
        i += n;
        batch = batch % 97 + 1;
    }
    free(buf);
    return rc;
}

static void path_in_dir(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", g_dir, name);
}

static cs_h5_meta_t test_meta(const char *scenario, int thread)
{
    cs_h5_meta_t m;
    memset(&m, 0, sizeof m);
    m.cowsim_version = "0.1.0-test";
    m.git_commit = "abc123def456";
    m.scenario_json = scenario;
    m.seed = 0x9e3779b97f4a7c15ull;
    m.mechanism = "bias-vcg";
    m.sync_compress = !thread;
    return m;
}

/* Run this program with --probe on path and parse its answer.  Returns 0
 * on success. */
static int probe(const char *path, int *complete, uint64_t *blocks, uint64_t *fires)
{
    char cmd[8600];
    snprintf(cmd, sizeof cmd, "'%s' --probe '%s'", g_self, path);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    unsigned long long b = 0, f = 0;
    int c = -1;
    int got = fscanf(p, "complete=%d blocks=%llu fires=%llu", &c, &b, &f);
    int st = pclose(p);
    if (got != 3 || st != 0) return -1;
    *complete = c;
    *blocks = b;
    *fires = f;
    return 0;
}

static int probe_main(const char *path)
{
    int err = 0;
    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    if (!r) {
        fprintf(stderr, "probe: %s: %s\n", cs_strerror(err), cs_h5_last_error());
        return 1;
    }
    uint64_t b = 0, f = 0;
    if (cs_h5_nrows(r, CS_H5_BLOCKS, &b) != CS_OK || cs_h5_nrows(r, CS_H5_FIRES, &f) != CS_OK) {
        cs_h5_close_read(r);
        return 1;
    }
    printf("complete=%d blocks=%llu fires=%llu\n", cs_h5_info(r)->complete,
           (unsigned long long)b, (unsigned long long)f);
    cs_h5_close_read(r);
    return 0;
}

/* ---- tests ------------------------------------------------------------------ */

/* Row counts of the round-trip file: every dataset crosses at least one
 * chunk boundary (chunks: blocks 4096, fires 16384, timers 16384, actors
 * 4096, weights 32768, summary 64) and ends in a partial chunk. */
static const uint64_t g_rt_rows[CS_H5_NDS] = {9001, 50001, 20011, 4099, 40000, 14, 4200};

static char *big_scenario(void)
{
    /* About 110 KB of JSON with non-ASCII text: larger than HDF5's 64 KiB
     * compact-attribute limit, so it must go through the VL string path. */
    size_t cap = 120000;
    char *s = malloc(cap);
    if (!s) return NULL;
    size_t u = (size_t)snprintf(s, cap, "{\"name\": \"λ-sweep ✓\", \"agents\": [");
    for (int i = 0; u + 64 < cap - 8; i++)
        u += (size_t)snprintf(s + u, cap - u, "%s{\"kind\": \"oracle\", \"count\": %d}",
                              i ? ", " : "", i * 7 + 3);
    snprintf(s + u, cap - u, "]}");
    return s;
}

static void test_roundtrip(int thread)
{
    char path[512];
    char name[32];
    snprintf(name, sizeof name, "rt%d.h5", thread);
    path_in_dir(path, sizeof path, name);
    char *scen = big_scenario();
    CS_CHECK(scen != NULL && strlen(scen) > 100000);
    cs_h5_meta_t m = test_meta(scen, thread);
    int err = -1;
    cs_h5_t *h = cs_h5_create(path, &m, &err);
    CS_CHECK(h != NULL);
    CS_CHECK_EQ_U64(err, CS_OK);
    if (!h) {
        free(scen);
        return;
    }
    /* First half of every dataset, then a flush. */
    for (int ds = 0; ds < CS_H5_NDS; ds++)
        CS_CHECK_EQ_U64(append_gen(h, ds, 0, g_rt_rows[ds] / 2), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_flush(h), CS_OK);
    /* Another process sees complete = 0 and exactly the flushed rows:
     * blocks 9001/2 = 4500, fires 50001/2 = 25000. */
    int c = -1;
    uint64_t nb = 0, nf = 0;
    CS_CHECK(probe(path, &c, &nb, &nf) == 0);
    CS_CHECK_EQ_U64(c, 0);
    CS_CHECK_EQ_U64(nb, 4500);
    CS_CHECK_EQ_U64(nf, 25000);
    for (int ds = 0; ds < CS_H5_NDS; ds++)
        CS_CHECK_EQ_U64(append_gen(h, ds, g_rt_rows[ds] / 2, g_rt_rows[ds]), CS_OK);
    for (int ds = 0; ds < CS_H5_NDS; ds++) CS_CHECK_EQ_U64(cs_h5_rows(h, (cs_h5_ds)ds), g_rt_rows[ds]);
    CS_CHECK_EQ_U64(cs_h5_attr_u64(h, "total_burn", 0xfedcba9876543210ull), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_attr_f64(h, "efficiency", 0.8731), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_attr_f64(h, "efficiency", -2.385e-7), CS_OK); /* replaced */
    CS_CHECK_EQ_U64(cs_h5_attr_str(h, "note", "W(actor) ∈ [1, 2]"), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_close(h, 1), CS_OK);
    CS_CHECK(probe(path, &c, &nb, &nf) == 0);
    CS_CHECK_EQ_U64(c, 1);
    CS_CHECK_EQ_U64(nb, 9001);
    CS_CHECK_EQ_U64(nf, 50001);

    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    CS_CHECK(r != NULL);
    if (!r) {
        fprintf(stderr, "open_read: %s\n", cs_h5_last_error());
        free(scen);
        return;
    }
    const cs_h5_info_t *in = cs_h5_info(r);
    CS_CHECK_EQ_U64(in->format_version, CS_H5_FORMAT_VERSION);
    CS_CHECK_EQ_U64(in->complete, 1);
    CS_CHECK_EQ_U64(in->seed, 0x9e3779b97f4a7c15ull);
    CS_CHECK_STR(in->mechanism, "bias-vcg");
    CS_CHECK_STR(in->scenario_json, scen);
    CS_CHECK_STR(in->cowsim_version, "0.1.0-test");
    CS_CHECK_STR(in->git_commit, "abc123def456");

    for (int ds = 0; ds < CS_H5_NDS; ds++) {
        void *rows = NULL;
        size_t n = 0;
        CS_CHECK_EQ_U64(cs_h5_read_all(r, (cs_h5_ds)ds, &rows, &n), CS_OK);
        CS_CHECK_EQ_U64(n, g_rt_rows[ds]);
        check_rows(ds, rows, n, 0, thread ? "roundtrip (thread)" : "roundtrip");
        free(rows);
    }
    /* The typed readers. */
    cs_h5_summary_t *sum = NULL;
    size_t ns = 0;
    CS_CHECK_EQ_U64(cs_h5_read_summary(r, &sum, &ns), CS_OK);
    CS_CHECK_EQ_U64(ns, 14);
    if (sum && ns == 14) CS_CHECK_EQ_U64(sum[13].kind, CS_AGENT_KIND_ALL); /* 13 = "all" */
    free(sum);
    cs_h5_fire_t *fires = NULL;
    size_t nfr = 0;
    CS_CHECK_EQ_U64(cs_h5_read_fires(r, &fires, &nfr), CS_OK);
    CS_CHECK_EQ_U64(nfr, 50001);
    free(fires);
    /* A range across the first fires chunk boundary (16384). */
    cs_h5_fire_t part[10];
    CS_CHECK_EQ_U64(cs_h5_read_rows(r, CS_H5_FIRES, 16380, 10, part), CS_OK);
    check_rows(CS_H5_FIRES, part, 10, 16380, "range");
    CS_CHECK_EQ_U64(cs_h5_read_rows(r, CS_H5_FIRES, 49995, 10, part), CS_ERANGE);

    uint64_t u = 0;
    double d = 0;
    char *s = NULL;
    CS_CHECK_EQ_U64(cs_h5_read_attr_u64(r, "total_burn", &u), CS_OK);
    CS_CHECK_EQ_U64(u, 0xfedcba9876543210ull);
    CS_CHECK_EQ_U64(cs_h5_read_attr_f64(r, "efficiency", &d), CS_OK);
    CS_CHECK(d == -2.385e-7);
    CS_CHECK_EQ_U64(cs_h5_read_attr_str(r, "note", &s), CS_OK);
    CS_CHECK_STR(s, "W(actor) ∈ [1, 2]");
    free(s);
    s = NULL;
    CS_CHECK_EQ_U64(cs_h5_read_attr_u64(r, "fires_seen", &u), CS_OK);
    CS_CHECK_EQ_U64(u, 50001);
    CS_CHECK_EQ_U64(cs_h5_read_attr_str(r, "fires_mode", &s), CS_OK);
    CS_CHECK_STR(s, "all");
    free(s);
    s = NULL;
    CS_CHECK_EQ_U64(cs_h5_read_attr_str(r, "created_utc", &s), CS_OK);
    CS_CHECK(s && strlen(s) == 20 && s[10] == 'T' && s[19] == 'Z'); /* YYYY-MM-DDTHH:MM:SSZ */
    free(s);
    CS_CHECK_EQ_U64(cs_h5_read_attr_u64(r, "no_such_attr", &u), CS_EPARSE);
    CS_CHECK_EQ_U64(cs_h5_read_attr_str(r, "seed", &s), CS_EPARSE); /* numeric, not a string */
    cs_h5_close_read(r);
    free(scen);
}

/* A file closed with complete = 0 reads as incomplete, with its rows. */
static void test_incomplete(void)
{
    char path[512];
    path_in_dir(path, sizeof path, "incomplete.h5");
    cs_h5_meta_t m = test_meta("{}", 0);
    int err;
    cs_h5_t *h = cs_h5_create(path, &m, &err);
    CS_CHECK(h != NULL);
    if (!h) return;
    CS_CHECK_EQ_U64(append_gen(h, CS_H5_BLOCKS, 0, 777), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_close(h, 0), CS_OK);
    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    CS_CHECK(r != NULL);
    if (!r) return;
    CS_CHECK_EQ_U64(cs_h5_info(r)->complete, 0);
    cs_h5_block_t *b = NULL;
    size_t n = 0;
    CS_CHECK_EQ_U64(cs_h5_read_blocks(r, &b, &n), CS_OK);
    CS_CHECK_EQ_U64(n, 777);
    check_rows(CS_H5_BLOCKS, b, n, 0, "incomplete");
    free(b);
    /* Empty datasets read as zero rows and a NULL array. */
    cs_h5_actor_t *a = (cs_h5_actor_t *)&n;
    CS_CHECK_EQ_U64(cs_h5_read_actors(r, &a, &n), CS_OK);
    CS_CHECK(a == NULL);
    CS_CHECK_EQ_U64(n, 0);
    cs_h5_close_read(r);
}

/*
 * Crash after flush: a child writes 5000 blocks and 30000 fires, flushes,
 * appends 40000 more fires and _exit()s without closing.  cs_h5_flush
 * publishes (N48): the output path holds the copy made at the flush, so
 * exactly the 5000 blocks and 30000 fires appended before it, complete = 0,
 * whether or not later chunks reached the work file (sync: chunks of 16384
 * fires written as they fill, up to row 65536; thread: up to 32768).
 */
static void test_crash(int thread)
{
    char path[512];
    char name[32];
    snprintf(name, sizeof name, "crash%d.h5", thread);
    path_in_dir(path, sizeof path, name);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        cs_h5_meta_t m = test_meta("{\"crash\": true}", thread);
        int err;
        cs_h5_t *h = cs_h5_create(path, &m, &err);
        if (!h) _exit(10);
        if (append_gen(h, CS_H5_BLOCKS, 0, 5000) != CS_OK) _exit(11);
        if (append_gen(h, CS_H5_FIRES, 0, 30000) != CS_OK) _exit(12);
        if (cs_h5_flush(h) != CS_OK) _exit(13);
        if (append_gen(h, CS_H5_FIRES, 30000, 70000) != CS_OK) _exit(14);
        _exit(0); /* no close: a crash */
    }
    int st = 0;
    CS_CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CS_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    int err;
    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    CS_CHECK(r != NULL);
    if (!r) {
        fprintf(stderr, "crash file: %s\n", cs_h5_last_error());
        return;
    }
    CS_CHECK_EQ_U64(cs_h5_info(r)->complete, 0);
    void *rows = NULL;
    size_t n = 0;
    CS_CHECK_EQ_U64(cs_h5_read_all(r, CS_H5_BLOCKS, &rows, &n), CS_OK);
    CS_CHECK_EQ_U64(n, 5000);
    check_rows(CS_H5_BLOCKS, rows, n, 0, "crash blocks");
    free(rows);
    CS_CHECK_EQ_U64(cs_h5_read_all(r, CS_H5_FIRES, &rows, &n), CS_OK);
    CS_CHECK_EQ_U64(n, 30000);
    check_rows(CS_H5_FIRES, rows, n, 0, "crash fires");
    free(rows);
    cs_h5_close_read(r);
}

/* Does path exist (lstat)? */
static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/*
 * Publishing (DESIGN-NOTES N48): HDF5 writes <out>.work and checkpoints copy
 * it over <out>.
 *   1. An earlier file at <out> (here 10 bytes of text) is replaced at
 *      create by the first checkpoint: <out> opens, complete = 0, 0 rows,
 *      and <out>.work exists; after close <out> is complete with the 700
 *      blocks appended, and neither <out>.work nor <out>.tmp remains.
 *   2. cs_h5_checkpoint publishes only when the time since the last publish
 *      is >= COWSIM_H5_CHECKPOINT_FACTOR x its cost: with the factor 10^12
 *      (a 1 us copy would wait 11.6 days) <out> keeps 0 rows after 300
 *      blocks; with 0 it publishes at once: 300 blocks.
 *   3. An output that is a symbolic link to a regular file: the file it
 *      names is replaced, the link stays a link.
 *   4. An output that is a directory: CS_EIO naming it.
 */
static void test_publish(void)
{
    char path[512], work[530], tmp[530];
    path_in_dir(path, sizeof path, "pub.h5");
    snprintf(work, sizeof work, "%s.work", path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(path, "w");
    CS_CHECK(f != NULL);
    if (f) {
        fputs("old file\n", f);
        fclose(f);
    }
    cs_h5_meta_t m = test_meta("{}", 1);
    int err = -1, c = -1;
    uint64_t nb = 1, nf = 1;
    setenv("COWSIM_H5_CHECKPOINT_FACTOR", "1000000000000", 1);
    cs_h5_t *h = cs_h5_create(path, &m, &err);
    CS_CHECK(h != NULL);
    if (!h) return;
    CS_CHECK(probe(path, &c, &nb, &nf) == 0);
    CS_CHECK_EQ_U64(c, 0);
    CS_CHECK_EQ_U64(nb, 0);
    CS_CHECK(exists(work));
    CS_CHECK_EQ_U64(append_gen(h, CS_H5_BLOCKS, 0, 300), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_checkpoint(h), CS_OK);
    CS_CHECK(probe(path, &c, &nb, &nf) == 0);
    CS_CHECK_EQ_U64(nb, 0); /* not published: too soon */
    cs_h5_close(h, 0);
    setenv("COWSIM_H5_CHECKPOINT_FACTOR", "0", 1);
    h = cs_h5_create(path, &m, &err);
    CS_CHECK(h != NULL);
    if (!h) return;
    CS_CHECK_EQ_U64(append_gen(h, CS_H5_BLOCKS, 0, 300), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_checkpoint(h), CS_OK);
    CS_CHECK(probe(path, &c, &nb, &nf) == 0);
    CS_CHECK_EQ_U64(c, 0);
    CS_CHECK_EQ_U64(nb, 300); /* published at once */
    CS_CHECK_EQ_U64(append_gen(h, CS_H5_BLOCKS, 300, 700), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_close(h, 1), CS_OK);
    unsetenv("COWSIM_H5_CHECKPOINT_FACTOR");
    CS_CHECK(probe(path, &c, &nb, &nf) == 0);
    CS_CHECK_EQ_U64(c, 1);
    CS_CHECK_EQ_U64(nb, 700);
    CS_CHECK(!exists(work));
    CS_CHECK(!exists(tmp));

    char target[512], link[512];
    path_in_dir(target, sizeof target, "target.h5");
    path_in_dir(link, sizeof link, "link.h5");
    f = fopen(target, "w");
    if (f) fclose(f);
    CS_CHECK(symlink(target, link) == 0);
    h = cs_h5_create(link, &m, &err);
    CS_CHECK(h != NULL);
    if (!h) return;
    CS_CHECK_EQ_U64(append_gen(h, CS_H5_BLOCKS, 0, 40), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_close(h, 1), CS_OK);
    struct stat st;
    CS_CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CS_CHECK(probe(target, &c, &nb, &nf) == 0);
    CS_CHECK_EQ_U64(c, 1);
    CS_CHECK_EQ_U64(nb, 40);

    char dir[512];
    path_in_dir(dir, sizeof dir, "adir.h5");
    CS_CHECK(mkdir(dir, 0755) == 0);
    CS_CHECK(cs_h5_create(dir, &m, &err) == NULL);
    CS_CHECK_EQ_U64(err, CS_EIO);
    CS_CHECK(strstr(cs_h5_last_error(), dir) != NULL);
}

/* output.fires = sample N / off / all. */
static void test_fires_modes(void)
{
    char path[512];
    path_in_dir(path, sizeof path, "sample.h5");
    cs_h5_meta_t m = test_meta("{}", 1);
    int err;
    cs_h5_t *h = cs_h5_create(path, &m, &err);
    CS_CHECK(h != NULL);
    if (!h) return;
    CS_CHECK_EQ_U64(cs_h5_set_fires_mode(h, CS_H5_FIRES_SAMPLE, 0), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_h5_set_fires_mode(h, (cs_h5_fires_mode)7, 3), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_h5_set_fires_mode(h, CS_H5_FIRES_SAMPLE, 5), CS_OK);
    CS_CHECK_EQ_U64(append_gen(h, CS_H5_FIRES, 0, 40000), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_set_fires_mode(h, CS_H5_FIRES_ALL, 1), CS_EINVAL); /* too late */
    /* Expected: generated fires whose timer_id % 5 == 0, in order. */
    size_t keep = 0;
    cs_h5_fire_t *want = malloc(40000 * sizeof *want);
    CS_CHECK(want != NULL);
    if (!want) {
        cs_h5_close(h, 1);
        return;
    }
    for (uint64_t i = 0; i < 40000; i++) {
        gen_fire(g_seed[CS_H5_FIRES], i, &want[keep]);
        if (want[keep].timer_id % 5 == 0) keep++;
    }
    CS_CHECK(keep > 7000 && keep < 9000); /* about 40000 / 5 */
    CS_CHECK_EQ_U64(cs_h5_rows(h, CS_H5_FIRES), keep);
    CS_CHECK_EQ_U64(cs_h5_close(h, 1), CS_OK);
    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    CS_CHECK(r != NULL);
    if (r) {
        cs_h5_fire_t *got = NULL;
        size_t n = 0;
        CS_CHECK_EQ_U64(cs_h5_read_fires(r, &got, &n), CS_OK);
        CS_CHECK_EQ_U64(n, keep);
        CS_CHECK(got && n == keep && memcmp(got, want, n * sizeof *got) == 0);
        free(got);
        uint64_t u = 0;
        char *s = NULL;
        CS_CHECK_EQ_U64(cs_h5_read_attr_u64(r, "fires_seen", &u), CS_OK);
        CS_CHECK_EQ_U64(u, 40000);
        CS_CHECK_EQ_U64(cs_h5_read_attr_u64(r, "fires_sample_every", &u), CS_OK);
        CS_CHECK_EQ_U64(u, 5);
        CS_CHECK_EQ_U64(cs_h5_read_attr_str(r, "fires_mode", &s), CS_OK);
        CS_CHECK_STR(s, "sample");
        free(s);
        cs_h5_close_read(r);
    }
    free(want);

    path_in_dir(path, sizeof path, "off.h5");
    h = cs_h5_create(path, &m, &err);
    CS_CHECK(h != NULL);
    if (!h) return;
    CS_CHECK_EQ_U64(cs_h5_set_fires_mode(h, CS_H5_FIRES_OFF, 0), CS_OK);
    CS_CHECK_EQ_U64(append_gen(h, CS_H5_FIRES, 0, 20000), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_rows(h, CS_H5_FIRES), 0);
    CS_CHECK_EQ_U64(cs_h5_close(h, 1), CS_OK);
    r = cs_h5_open_read(path, &err);
    CS_CHECK(r != NULL);
    if (r) {
        uint64_t n = 1, u = 0;
        CS_CHECK_EQ_U64(cs_h5_nrows(r, CS_H5_FIRES, &n), CS_OK);
        CS_CHECK_EQ_U64(n, 0);
        CS_CHECK_EQ_U64(cs_h5_read_attr_u64(r, "fires_seen", &u), CS_OK);
        CS_CHECK_EQ_U64(u, 20000);
        cs_h5_close_read(r);
    }
}

/* Child: the file size limit makes a chunk write fail (EFBIG). */
static int fsize_child(const char *path)
{
    struct rlimit rl = {300000, 300000};
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return 20;
    cs_h5_meta_t m = test_meta("{}", 1);
    int err;
    cs_h5_t *h = cs_h5_create(path, &m, &err);
    if (!h) return 21;
    /* 200000 random fires compress to far more than 300 kB. */
    int rc = append_gen(h, CS_H5_FIRES, 0, 200000);
    if (rc != CS_EIO) return 22;
    if (strstr(cs_h5_last_error(), "fires") == NULL) return 23;
    if (cs_h5_append_fires(h, NULL, 0) != CS_EIO) return 24; /* sticky */
    if (cs_h5_flush(h) != CS_EIO) return 25;
    if (cs_h5_attr_u64(h, "x", 1) != CS_EIO) return 26;
    if (cs_h5_close(h, 1) != CS_EIO) return 27;
    if (strstr(cs_h5_last_error(), "fires") == NULL) return 28; /* first failure kept */
    return 0;
}

/* Child: /dev/full accepts the open but every write fails (ENOSPC). */
static int devfull_child(void)
{
    cs_h5_meta_t m = test_meta("{}", 0);
    int err = CS_OK;
    cs_h5_t *h = cs_h5_create("/dev/full", &m, &err);
    if (!h) return err == CS_EIO ? 0 : 30;
    int rc = append_gen(h, CS_H5_FIRES, 0, 50000);
    int rc2 = cs_h5_close(h, 1);
    return (rc == CS_EIO || rc2 == CS_EIO) ? 0 : 31;
}

static int run_child(int (*fn)(const char *), const char *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) _exit(fn(arg));
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
    if (!WIFEXITED(st)) return -2; /* crashed */
    return WEXITSTATUS(st);
}

static int devfull_adapter(const char *unused)
{
    (void)unused;
    return devfull_child();
}

static void test_errors(void)
{
    cs_h5_meta_t m = test_meta("{}", 0);
    int err = CS_OK;
    cs_h5_t *h = cs_h5_create("/nonexistent/x.h5", &m, &err);
    CS_CHECK(h == NULL);
    CS_CHECK_EQ_U64(err, CS_EIO);
    CS_CHECK(strstr(cs_h5_last_error(), "/nonexistent/x.h5") != NULL);
    CS_CHECK(cs_h5_create(NULL, &m, &err) == NULL);
    CS_CHECK_EQ_U64(err, CS_EINVAL);
    CS_CHECK(cs_h5_create("/tmp/never.h5", NULL, &err) == NULL);
    CS_CHECK_EQ_U64(err, CS_EINVAL);
    CS_CHECK_EQ_U64(cs_h5_close(NULL, 1), CS_OK);

    char path[512];
    path_in_dir(path, sizeof path, "args.h5");
    h = cs_h5_create(path, &m, &err);
    CS_CHECK(h != NULL);
    if (h) {
        CS_CHECK_EQ_U64(cs_h5_append_fires(h, NULL, 3), CS_EINVAL);
        CS_CHECK_EQ_U64(cs_h5_append(h, (cs_h5_ds)7, &m, 1), CS_EINVAL);
        CS_CHECK_EQ_U64(cs_h5_append_fires(h, NULL, 0), CS_OK);
        CS_CHECK_EQ_U64(cs_h5_attr_u64(h, "", 1), CS_EINVAL);
        CS_CHECK_EQ_U64(cs_h5_attr_str(h, "x", NULL), CS_EINVAL);
        CS_CHECK_EQ_U64(cs_h5_close(h, 1), CS_OK);
    }

    CS_CHECK(cs_h5_open_read("/nonexistent/x.h5", &err) == NULL);
    CS_CHECK_EQ_U64(err, CS_EIO);

    path_in_dir(path, sizeof path, "fsize.h5");
    CS_CHECK_EQ_U64(run_child(fsize_child, path), 0);
    /* The damaged file opens incomplete or not at all; never a crash. */
    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    if (r) CS_CHECK_EQ_U64(cs_h5_info(r)->complete, 0);
    else CS_CHECK(err == CS_EPARSE || err == CS_EIO);
    cs_h5_close_read(r);

    if (access("/dev/full", W_OK) == 0)
        CS_CHECK_EQ_U64(run_child(devfull_adapter, NULL), 0);
    else
        printf("note: /dev/full not writable, skipping that check\n");
}

static int copy_prefix(const char *src, const char *dst, long len)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    int rc = in && out ? 0 : -1;
    char buf[65536];
    long left = len;
    while (rc == 0 && left > 0) {
        size_t want = left < (long)sizeof buf ? (size_t)left : sizeof buf;
        size_t got = fread(buf, 1, want, in);
        if (got == 0 || fwrite(buf, 1, got, out) != got) rc = -1;
        left -= (long)got;
    }
    if (in) fclose(in);
    if (out && fclose(out) != 0) rc = -1;
    return rc;
}

static long file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

/* Write 8 KiB of splitmix64 noise from seed to path; 0 or -1. */
static int write_noise(const char *path, uint64_t seed)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int rc = 0;
    for (int i = 0; i < 1024 && rc == 0; i++) {
        uint64_t w = sm64(&seed);
        if (fwrite(&w, 8, 1, f) != 1) rc = -1;
    }
    return fclose(f) == 0 ? rc : -1;
}

/* Open path and read every dataset; returns the first error (CS_OK if all
 * succeeded).  Must never crash. */
static int read_everything(const char *path)
{
    int err = CS_OK;
    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    if (!r) return err;
    for (int ds = 0; ds < CS_H5_NDS && err == CS_OK; ds++) {
        void *rows = NULL;
        size_t n = 0;
        err = cs_h5_read_all(r, (cs_h5_ds)ds, &rows, &n);
        free(rows);
    }
    cs_h5_close_read(r);
    return err;
}

static void test_malformed(void)
{
    char good[512], bad[512];
    path_in_dir(good, sizeof good, "rt0.h5");
    path_in_dir(bad, sizeof bad, "bad.h5");
    long size = file_size(good);
    CS_CHECK(size > 100000);

    FILE *f = fopen(bad, "wb");
    CS_CHECK(f != NULL);
    if (f) fclose(f);
    CS_CHECK_EQ_U64(read_everything(bad), CS_EPARSE); /* empty file */

    CS_CHECK(write_noise(bad, 99) == 0);
    CS_CHECK_EQ_U64(read_everything(bad), CS_EPARSE); /* 8 KiB of noise */

    /* Truncations: HDF5 compares the stored end of file with the real size
     * at open, so every truncated copy is refused. */
    long cuts[] = {512, size / 8, size / 2, size * 7 / 8, size - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        CS_CHECK(copy_prefix(good, bad, cuts[i]) == 0);
        CS_CHECK_EQ_U64(read_everything(bad), CS_ECORRUPT);
    }

    /* Corrupt the compressed bytes of /fires chunk 1: metadata is intact, so
     * the file opens and /blocks reads, but /fires fails (inflate error). */
    CS_CHECK(copy_prefix(good, bad, size) == 0);
    haddr_t addr = HADDR_UNDEF;
    hsize_t csize = 0;
    hid_t fid = H5Fopen(bad, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t did = fid < 0 ? -1 : H5Dopen2(fid, "fires", H5P_DEFAULT);
    hsize_t off = 16384;
    unsigned mask = 0;
    CS_CHECK(did >= 0 && H5Dget_chunk_info_by_coord(did, &off, &mask, &addr, &csize) >= 0);
    if (did >= 0) H5Dclose(did);
    if (fid >= 0) H5Fclose(fid);
    CS_CHECK(addr != HADDR_UNDEF && csize > 1000);
    int fd = open(bad, O_WRONLY);
    if (fd >= 0 && addr != HADDR_UNDEF) {
        unsigned char junk[200];
        memset(junk, 0xa5, sizeof junk);
        CS_CHECK(pwrite(fd, junk, sizeof junk, (off_t)(addr + csize / 2)) == (ssize_t)sizeof junk);
    }
    if (fd >= 0) close(fd);
    /* With the sandbox (the default) the child meets the inflate error and
     * the whole file is refused at open with that error. */
    int err;
    cs_h5_reader_t *r = cs_h5_open_read(bad, &err);
    CS_CHECK(r == NULL);
    CS_CHECK_EQ_U64(err, CS_ECORRUPT);
    CS_CHECK(strstr(cs_h5_last_error(), "reading /fires rows") != NULL);
    CS_CHECK(strstr(cs_h5_last_error(), bad) != NULL);
    cs_h5_close_read(r);
    /* Without it the metadata opens and only /fires fails. */
    cs_h5_set_sandbox(0);
    r = cs_h5_open_read(bad, &err);
    cs_h5_set_sandbox(1);
    CS_CHECK(r != NULL);
    if (r) {
        void *rows = NULL;
        size_t n = 0;
        CS_CHECK_EQ_U64(cs_h5_read_all(r, CS_H5_BLOCKS, &rows, &n), CS_OK);
        CS_CHECK_EQ_U64(n, 9001);
        free(rows);
        CS_CHECK_EQ_U64(cs_h5_read_all(r, CS_H5_FIRES, &rows, &n), CS_ECORRUPT);
        CS_CHECK(rows == NULL && n == 0);
        /* Rows before the damaged chunk still read. */
        cs_h5_fire_t part[4];
        CS_CHECK_EQ_U64(cs_h5_read_rows(r, CS_H5_FIRES, 100, 4, part), CS_OK);
        check_rows(CS_H5_FIRES, part, 4, 100, "before damage");
        cs_h5_close_read(r);
    }

    /* Valid HDF5 but not a run file, or a run file with a wrong table. */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    fid = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CS_CHECK(fid >= 0);
    if (fid >= 0) {
        hid_t sp = H5Screate(H5S_SCALAR);
        int v = 99;
        hid_t a = H5Acreate2(fid, "format_version", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_INT, &v);
        H5Aclose(a);
        H5Sclose(sp);
        H5Fclose(fid);
    }
    H5Pclose(fapl);
    CS_CHECK(cs_h5_open_read(bad, &err) == NULL);
    CS_CHECK_EQ_U64(err, CS_EPARSE);
    CS_CHECK(strstr(cs_h5_last_error(), "format_version 99") != NULL);

    /* A proper run file whose /blocks is replaced by an integer dataset,
     * whose /fires has only the column height, and without /timers. */
    cs_h5_meta_t m = test_meta("{}", 0);
    cs_h5_t *h = cs_h5_create(bad, &m, &err);
    CS_CHECK(h != NULL);
    if (h) CS_CHECK_EQ_U64(cs_h5_close(h, 1), CS_OK);
    fid = H5Fopen(bad, H5F_ACC_RDWR, H5P_DEFAULT);
    CS_CHECK(fid >= 0);
    if (fid >= 0) {
        hsize_t dim = 3;
        hid_t sp = H5Screate_simple(1, &dim, NULL);
        H5Ldelete(fid, "blocks", H5P_DEFAULT);
        hid_t d = H5Dcreate2(fid, "blocks", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dclose(d);
        H5Ldelete(fid, "fires", H5P_DEFAULT);
        hid_t ct = H5Tcreate(H5T_COMPOUND, 8);
        H5Tinsert(ct, "height", 0, H5T_STD_U64LE);
        d = H5Dcreate2(fid, "fires", ct, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dclose(d);
        H5Tclose(ct);
        H5Ldelete(fid, "timers", H5P_DEFAULT);
        H5Sclose(sp);
        H5Fclose(fid);
    }
    /* The sandbox's child meets /blocks first and the file is refused. */
    r = cs_h5_open_read(bad, &err);
    CS_CHECK(r == NULL);
    CS_CHECK_EQ_U64(err, CS_ECORRUPT);
    CS_CHECK(strstr(cs_h5_last_error(), "/blocks is not a 1-D table") != NULL);
    /* Read here, each table fails on its own. */
    cs_h5_set_sandbox(0);
    r = cs_h5_open_read(bad, &err);
    cs_h5_set_sandbox(1);
    CS_CHECK(r == NULL && err == CS_ECORRUPT); /* the open cross-checks /blocks (issue 25) */
    if (r) {
        cs_h5_block_t *b = NULL;
        cs_h5_fire_t *fr = NULL;
        cs_h5_timer_t *t = NULL;
        size_t n = 5;
        CS_CHECK_EQ_U64(cs_h5_read_blocks(r, &b, &n), CS_EPARSE);
        CS_CHECK(b == NULL && n == 0);
        CS_CHECK_EQ_U64(cs_h5_read_fires(r, &fr, &n), CS_EPARSE);
        CS_CHECK(strstr(cs_h5_last_error(), "column timer_id") != NULL); /* first one absent */
        CS_CHECK_EQ_U64(cs_h5_read_timers(r, &t, &n), CS_EPARSE); /* missing */
        uint64_t cnt = 0;
        CS_CHECK_EQ_U64(cs_h5_nrows(r, CS_H5_ACTORS, &cnt), CS_OK); /* untouched */
        CS_CHECK_EQ_U64(cnt, 0);
        cs_h5_close_read(r);
    }
}

/* Count occurrences of needle in the output of cmd; -1 if cmd fails. */
static int grep_cmd(const char *cmd, const char *needle)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[4096];
    int hits = 0;
    while (fgets(line, sizeof line, p))
        for (char *q = strstr(line, needle); q; q = strstr(q + 1, needle)) hits++;
    return pclose(p) == 0 ? hits : -1;
}

/* h5dump, an independent reader, sees the six tables and their enums, and
 * decodes one fire row. */
static void test_h5dump(void)
{
    if (system("h5dump --version >/dev/null 2>&1") != 0) {
        printf("note: h5dump not found, skipping the h5dump checks\n");
        return;
    }
    char path[512], cmd[1200];
    path_in_dir(path, sizeof path, "rt1.h5");
    snprintf(cmd, sizeof cmd, "h5dump -H '%s'", path);
    static const char *const want[] = {
        "DATASET \"blocks\"", "DATASET \"fires\"",   "DATASET \"timers\"",
        "DATASET \"actors\"", "DATASET \"weights\"", "DATASET \"summary\"",
        "\"demand_curve\"",   "\"insufficient\"",    "\"INTERVAL\"",
        "STRSIZE 64",      "H5T_STD_U64LE \"timer_id\"", "H5T_IEEE_F64LE \"utilisation\""};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int hits = grep_cmd(cmd, want[i]);
        if (hits <= 0) fprintf(stderr, "h5dump -H lacks %s\n", want[i]);
        CS_CHECK(hits > 0);
    }
    /* Row 20000 of /fires, decoded by h5dump: its timer_id in decimal and
     * its kind's name. */
    cs_h5_fire_t f;
    gen_fire(g_seed[CS_H5_FIRES], 20000, &f);
    char tid[32];
    snprintf(tid, sizeof tid, "%llu", (unsigned long long)f.timer_id);
    snprintf(cmd, sizeof cmd, "h5dump -d /fires -s 20000 -c 1 '%s'", path);
    CS_CHECK(grep_cmd(cmd, tid) == 1);
    CS_CHECK(grep_cmd(cmd, cs_h5_kind_names[f.kind]) >= 1);
    /* Row 100 of /blocks: its digest as 64 hex digits. */
    cs_h5_block_t b;
    gen_block(g_seed[CS_H5_BLOCKS], 100, &b);
    char hex[65];
    cs_test_hex(b.digest, 32, hex);
    snprintf(cmd, sizeof cmd, "h5dump -d /blocks -s 100 -c 1 '%s'", path);
    CS_CHECK(grep_cmd(cmd, hex) == 1);
}

static void test_names(void)
{
    CS_CHECK_STR(cs_h5_kind_names[0], "default_gba");
    CS_CHECK_STR(cs_h5_kind_names[12], "demand_curve");
    /* The file's enum names are the agent registry's kind names. */
    for (int i = 0; i < CS_AGENT_KIND_COUNT; i++) CS_CHECK_STR(cs_h5_kind_names[i], cs_agent_kind_names[i]);
    CS_CHECK_EQ_U64(cs_h5_kind_lookup("waiting_game"), 9);
    CS_CHECK(cs_h5_kind_lookup("all") == -1);
    CS_CHECK(cs_h5_kind_lookup(NULL) == -1);
    CS_CHECK_STR(cs_h5_ds_name(CS_H5_WEIGHTS), "weights");
    CS_CHECK_STR(cs_h5_ds_name(CS_H5_IDENTS), "identities");
    CS_CHECK(cs_h5_ds_name((cs_h5_ds)7) == NULL);
    CS_CHECK_EQ_U64(cs_h5_ds_row_size(CS_H5_FIRES), 312); /* 120 in format 1 + 6 amounts x 16, + 4 amounts x 24 (N58) */
    /* MONEY: hi * 2^64 + lo exact, f the amount rounded to nearest. */
    cs_u128 big = (cs_u128)1 << 100;
    cs_h5_money_t m = cs_h5_money(big + 1);
    CS_CHECK_EQ_U64(m.hi, UINT64_C(1) << 36);
    CS_CHECK_EQ_U64(m.lo, 1);
    CS_CHECK(m.f == 0x1p100); /* 2^100 + 1 rounds to 2^100 */
    CS_CHECK(cs_h5_money_u128(m) == big + 1);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Timing of /fires with engine-like rows: rising heights, small delays,
 * a few hundred actors, random timer ids and cycles. */
static int bench_main(long n, int thread)
{
    char path[512];
    path_in_dir(path, sizeof path, "bench.h5");
    cs_h5_meta_t m = test_meta("{}", thread);
    int err;
    cs_h5_t *h = cs_h5_create(path, &m, &err);
    if (!h) return 1;
    enum { B = 512 };
    cs_h5_fire_t rows[B];
    uint64_t s = 42;
    double gen = 0, t0 = now_s(), cpu0 = cpu_s(CLOCK_PROCESS_CPUTIME_ID),
           main0 = cpu_s(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < n; i += B) {
        double g0 = now_s();
        for (int k = 0; k < B; k++) {
            cs_h5_fire_t *f = &rows[k];
            uint64_t r = sm64(&s);
            f->height = 1000000 + (uint64_t)(i + k) / 800;
            f->timer_id = sm64(&s);
            f->actor = (uint32_t)(r % 5000);
            f->agent = f->actor / 4;
            f->kind = (uint32_t)((r >> 20) % 13);
            f->delay = (uint32_t)((r >> 30) % 4);
            f->due_height = f->height - f->delay;
            f->cycles = (r >> 34) % 250000;
            f->gas_limit = 250000;
            uint64_t prio = (r >> 52) % 300;
            f->bid = cs_h5_money(0);
            f->max_fee = cs_h5_money(2000);
            f->max_prio = cs_h5_money(prio);
            f->paid = cs_h5_money(f->cycles * (1000 + prio));
            f->burn = cs_h5_money(f->cycles * 1000);
            f->tip = cs_h5_money(f->cycles * prio);
            f->value = (double)((r >> 8) % 1000000) / 7.0;
            f->weight_ppm = 1000000 + (uint32_t)(r % 1000000);
            f->deferrals = f->delay;
        }
        gen += now_s() - g0;
        if (cs_h5_append_fires(h, rows, B) != CS_OK) return 2;
    }
    double main_cpu = cpu_s(CLOCK_THREAD_CPUTIME_ID) - main0;
    if (cs_h5_close(h, 1) != CS_OK) return 3;
    double dt = now_s() - t0 - gen;
    double cpu = cpu_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0 - gen;
    main_cpu -= gen;
    long bytes = file_size(path);
    printf("bench: %ld fire rows, thread=%d: %.3f s wall in the writer => %.2f M rows/s; "
           "CPU %.0f ns/row in all, %.0f ns/row on the caller's thread (before close); "
           "file %.1f MB (%.1f bytes/row, ratio %.3f)\n",
           n, thread, dt, (double)n / dt / 1e6, cpu / (double)n * 1e9, main_cpu / (double)n * 1e9,
           (double)bytes / 1e6, (double)bytes / (double)n, (double)bytes / ((double)n * 120.0));
    unlink(path);
    return 0;
}

static int make_dir(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/cs_h5_test.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(g_dir)) return -1;
    ssize_t k = readlink("/proc/self/exe", g_self, sizeof g_self - 1);
    if (k <= 0) return -1;
    g_self[k] = '\0';
    return 0;
}

/* How `cowsim compare path` ends with the sandbox off (COWSIM_H5_SANDBOX=0),
 * within limit_s: 0 = exited normally, 1 = crashed (a signal, or an ASan
 * report in a sanitizer build), 2 = still running (killed).  -1 if it
 * could not be started. */
static int unsandboxed_outcome(const char *path, unsigned limit_s)
{
    const char *bin = getenv("CS_BIN");
    char errf[600];
    path_in_dir(errf, sizeof errf, "unsandboxed.err");
    if (!bin) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit rl = {0, 0};
        setrlimit(RLIMIT_CORE, &rl);
        int e = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int nul = open("/dev/null", O_WRONLY);
        if (e >= 0) dup2(e, 2);
        if (nul >= 0) dup2(nul, 1);
        setenv("COWSIM_H5_SANDBOX", "0", 1);
        execl(bin, "cowsim", "compare", path, (char *)NULL);
        _exit(127);
    }
    if (pid < 0) return -1;
    int st = 0;
    for (unsigned t = 0; t < limit_s * 10; t++) {
        if (waitpid(pid, &st, WNOHANG) == pid) {
            if (WIFSIGNALED(st)) return 1;
            char buf[8192] = "";
            FILE *f = fopen(errf, "r");
            if (f) {
                size_t n = fread(buf, 1, sizeof buf - 1, f);
                buf[n] = '\0';
                fclose(f);
            }
            return strstr(buf, "AddressSanitizer") ? 1 : 0;
        }
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return 2;
}

/*
 * The reader sandbox (cs_h5.h) on files that break libhdf5 1.10 itself, all
 * found by fuzz_h5: tests/data/h5/crash-h5hg.h5 (a corrupt global-heap
 * reference: libhdf5 reads a wild pointer in H5HG_read while converting a
 * string attribute), crash-h5o.h5 (a corrupt object-header message:
 * memcpy out of bounds under H5D_open) and hang.h5 (libhdf5 loops forever).
 * First the test shows that `cowsim compare` really crashes or hangs on
 * each with the sandbox off; then that cs_h5_open_read turns each into
 * CS_EPARSE with a message naming the file, counted in
 * cs_h5_sandbox_stats, with this process unharmed.
 */
static void test_sandbox(void)
{
    const char *src = getenv("CS_SRC");
    char crash[2][4200], hang[4200], good[512];
    snprintf(crash[0], sizeof crash[0], "%s/tests/data/h5/crash-h5hg.h5", src ? src : ".");
    snprintf(crash[1], sizeof crash[1], "%s/tests/data/h5/crash-h5o.h5", src ? src : ".");
    snprintf(hang, sizeof hang, "%s/tests/data/h5/hang.h5", src ? src : ".");
    path_in_dir(good, sizeof good, "rt0.h5");

    CS_CHECK_EQ_U64(unsandboxed_outcome(crash[0], 60), 1); /* libhdf5 crashes */
    CS_CHECK_EQ_U64(unsandboxed_outcome(crash[1], 60), 1);
    CS_CHECK_EQ_U64(unsandboxed_outcome(hang, 3), 2);      /* libhdf5 still busy after 3 s */

    cs_h5_sandbox_stats_t s1 = cs_h5_sandbox_stats();
    for (int i = 0; i < 2; i++) {
        cs_h5_sandbox_stats_t s0 = cs_h5_sandbox_stats();
        int err = -1;
        cs_h5_reader_t *r = cs_h5_open_read(crash[i], &err);
        CS_CHECK(r == NULL);
        CS_CHECK_EQ_U64(err, CS_ECORRUPT);
        CS_CHECK(strstr(cs_h5_last_error(), "the HDF5 library crashed reading it") != NULL ||
                 strstr(cs_h5_last_error(), "the HDF5 library failed reading it") != NULL); /* ASan: exit 1 */
        CS_CHECK(strstr(cs_h5_last_error(), i ? "crash-h5o.h5" : "crash-h5hg.h5") != NULL);
        s1 = cs_h5_sandbox_stats();
        CS_CHECK_EQ_U64(s1.probes, s0.probes + 1);
        CS_CHECK_EQ_U64(s1.crashes, s0.crashes + 1);
        CS_CHECK_EQ_U64(s1.timeouts, s0.timeouts);
    }

    /* bad-member-offset.h5: /timers's stored row type puts column 10 past
     * the end of its 64-byte row; libhdf5 would memcpy out of bounds in
     * H5T__conv_struct.  The reader's own check refuses the table, even
     * with the sandbox off. */
    char off[4200];
    snprintf(off, sizeof off, "%s/tests/data/h5/bad-member-offset.h5", src ? src : ".");
    cs_h5_set_sandbox(0);
    int err = -1;
    /* libhdf5 itself leaks the datatype message it fails to decode in this
     * file's broken /actors (H5Dopen2 -> H5O_msg_read, ~1 KB, nothing of
     * cowsim's is left open): LeakSanitizer ignores this one call. */
    CS__LSAN_DISABLE();
    cs_h5_reader_t *r = cs_h5_open_read(off, &err);
    CS__LSAN_ENABLE();
    cs_h5_set_sandbox(1);
    CS_CHECK(r != NULL || err == CS_ECORRUPT); /* its /actors is broken too: the open's cross-checks meet it */
    uint64_t cnt = 0;
    if (r) {
        CS_CHECK_EQ_U64(cs_h5_nrows(r, CS_H5_BLOCKS, &cnt), CS_OK);
        CS_CHECK_EQ_U64(cnt, 37); /* the fuzz template's rows */
        CS_CHECK_EQ_U64(cs_h5_nrows(r, CS_H5_TIMERS, &cnt), CS_EPARSE);
        CS_CHECK_STR(cs_h5_last_error(), "/timers: column 10 lies outside the 64-byte row");
    }
    cs_h5_close_read(r);
    setenv("COWSIM_H5_SANDBOX_SECS", "1", 1);
    time_t t0 = time(NULL);
    r = cs_h5_open_read(hang, &err);
    time_t t1 = time(NULL);
    unsetenv("COWSIM_H5_SANDBOX_SECS");
    CS_CHECK(r == NULL);
    CS_CHECK_EQ_U64(err, CS_ECORRUPT);
    CS_CHECK(strstr(cs_h5_last_error(), "reading it took longer than 1 s") != NULL);
    CS_CHECK(t1 - t0 <= 10); /* 1 s limit, generous slack for a loaded machine */
    cs_h5_sandbox_stats_t s2 = cs_h5_sandbox_stats();
    CS_CHECK_EQ_U64(s2.crashes, s1.crashes + 1);
    CS_CHECK_EQ_U64(s2.timeouts, s1.timeouts + 1);

    /* A good file: one more child, no crash, and the rows read back. */
    r = cs_h5_open_read(good, &err);
    CS_CHECK(r != NULL && err == CS_OK);
    uint64_t n = 0;
    if (r) CS_CHECK_EQ_U64(cs_h5_nrows(r, CS_H5_BLOCKS, &n), CS_OK);
    CS_CHECK_EQ_U64(n, 9001);
    cs_h5_close_read(r);
    cs_h5_sandbox_stats_t s3 = cs_h5_sandbox_stats();
    CS_CHECK_EQ_U64(s3.probes, s2.probes + 1);
    CS_CHECK_EQ_U64(s3.crashes, s2.crashes);

    /* A missing file is told without a child. */
    char none[600];
    path_in_dir(none, sizeof none, "no-such-file.h5");
    r = cs_h5_open_read(none, &err);
    CS_CHECK(r == NULL);
    CS_CHECK_EQ_U64(err, CS_EIO);
    CS_CHECK(strstr(cs_h5_last_error(), "No such file") != NULL);
    CS_CHECK_EQ_U64(cs_h5_sandbox_stats().probes, s3.probes);

    /* An error the child meets is passed on unchanged: 8 KiB of noise gives
     * the same code and message with and without the sandbox. */
    char noise[512], msg_sb[1024];
    path_in_dir(noise, sizeof noise, "noise.h5");
    CS_CHECK(write_noise(noise, 7) == 0);
    int e1, e2;
    CS_CHECK(cs_h5_open_read(noise, &e1) == NULL);
    snprintf(msg_sb, sizeof msg_sb, "%s", cs_h5_last_error());
    cs_h5_set_sandbox(0);
    CS_CHECK(cs_h5_open_read(noise, &e2) == NULL);
    cs_h5_set_sandbox(1);
    CS_CHECK_EQ_U64(e1, CS_EPARSE);
    CS_CHECK_EQ_U64(e2, CS_EPARSE);
    CS_CHECK_STR(msg_sb, cs_h5_last_error());
}

/*
 * Format 1 (tests/data/h5/run-v1.h5, written by cowsim 6bf85dfc before the
 * exact amounts: 30 eip1559 blocks, 5 actors, 6 fires).  Its amounts are
 * single u64 columns (/summary.paid an f64) and it has no /identities; the
 * reader fills the MONEY columns: hi = 0, lo = the u64, f = (double)lo, and
 * from /summary.paid's f64, lo = the value.  Expected values: the file's
 * own burned_exact (162,191,970, the ledger total) equals the sum of
 * /blocks.burn and of /fires.paid (eip1559 burns every fee, no tips);
 * /actors.end_balance of actor 0 is 10^18 - 52,793,918 (its /actors.paid).
 */
static void test_format1(void)
{
    const char *src = getenv("CS_SRC");
    char path[4200];
    snprintf(path, sizeof path, "%s/tests/data/h5/run-v1.h5", src ? src : ".");
    int err = 0;
    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    CS_CHECK(r != NULL);
    if (!r) return;
    CS_CHECK_EQ_U64(cs_h5_info(r)->format_version, 1);
    char *ex = NULL;
    CS_CHECK_EQ_U64(cs_h5_read_attr_str(r, "burned_exact", &ex), CS_OK);
    CS_CHECK_STR(ex ? ex : "", "162191970");
    free(ex);
    cs_h5_block_t *b = NULL;
    cs_h5_fire_t *f = NULL;
    cs_h5_actor_t *a = NULL;
    cs_h5_summary_t *sm = NULL;
    cs_h5_ident_t *id = NULL;
    size_t nb = 0, nf = 0, na = 0, ns = 0, ni = 99;
    CS_CHECK_EQ_U64(cs_h5_read_blocks(r, &b, &nb), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_read_fires(r, &f, &nf), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_read_actors(r, &a, &na), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_read_summary(r, &sm, &ns), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_read_idents(r, &id, &ni), CS_OK);
    CS_CHECK_EQ_U64(nb, 30);
    CS_CHECK_EQ_U64(nf, 6);
    CS_CHECK_EQ_U64(na, 5);
    CS_CHECK_EQ_U64(ns, 3); /* heartbeat, spammer, all */
    CS_CHECK_EQ_U64(ni, 0);
    cs_u128 burn = 0, paid = 0;
    size_t bad = 0;
    for (size_t i = 0; i < nb; i++) {
        burn += cs_h5_money_u128(b[i].burn);
        bad += b[i].burn.hi != 0 || b[i].burn.f != (double)b[i].burn.lo || b[i].basefee_lane.hi != 0;
    }
    for (size_t i = 0; i < nf; i++) paid += cs_h5_money_u128(f[i].paid);
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK(burn == 162191970);
    CS_CHECK(paid == 162191970);
    if (nb == 30) CS_CHECK_EQ_U64(b[0].basefee_lane.lo, 1000); /* lane_basefee_initial default */
    if (na == 5) {
        CS_CHECK_EQ_U64(a[0].paid.lo, 52793918);
        CS_CHECK_EQ_U64(a[0].end_balance.lo, UINT64_C(1000000000000000000) - 52793918);
        CS_CHECK(a[0].end_balance.f == 999999999947206082.0);
    }
    if (ns == 3) {
        CS_CHECK_EQ_U64(sm[2].kind, CS_AGENT_KIND_ALL);
        CS_CHECK(sm[2].paid.f == 162191970.0);
        CS_CHECK_EQ_U64(sm[2].paid.lo, 162191970); /* from the f64 */
        CS_CHECK_EQ_U64(sm[2].paid.hi, 0);
    }
    /* Columns added after the file (N30's gas_limit..decay_rate, N43's
     * MONEY bid) read as 0, all three parts of bid included. */
    cs_h5_timer_t *t = NULL;
    size_t nt = 0, nz = 0;
    CS_CHECK_EQ_U64(cs_h5_read_timers(r, &t, &nt), CS_OK);
    for (size_t i = 0; i < nt; i++)
        nz += t[i].bid.f != 0 || t[i].bid.hi != 0 || t[i].bid.lo != 0 || t[i].gas_limit != 0;
    CS_CHECK(nt > 0);
    CS_CHECK_EQ_U64(nz, 0);
    free(t);
    free(b);
    free(f);
    free(a);
    free(sm);
    free(id);
    cs_h5_close_read(r);
}

static void remove_dir(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--probe") == 0) return probe_main(argv[2]);
    if (make_dir() != 0) {
        fprintf(stderr, "cannot create a scratch directory\n");
        return 1;
    }
    if (argc >= 3 && strcmp(argv[1], "--bench") == 0) {
        int rc = bench_main(atol(argv[2]), argc > 3 ? atoi(argv[3]) : 1);
        remove_dir();
        return rc;
    }
    test_names();
    test_roundtrip(0);
    test_roundtrip(1);
    test_incomplete();
    test_crash(0);
    test_crash(1);
    test_publish();
    test_fires_modes();
    test_errors();
    test_malformed();
    test_sandbox();
    test_h5dump();
    test_format1();
    if (cs_test_fail == 0) remove_dir();
    else fprintf(stderr, "files kept in %s\n", g_dir);
    return cs_test_done("h5");
}
