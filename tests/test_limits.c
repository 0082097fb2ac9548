/*
 * test_limits.c -- every input limit is enforced with the JSON path and the
 * limit in the message, and before the memory it governs is reserved.
 *
 * Memory is measured with tests/cs_allocwrap.h: the peak of the bytes that
 * cowsim's own code and cJSON hold during one call.  "Before memory is
 * reserved" is checked as: rejecting (or accepting) a document that claims
 * huge counts costs at most PEAK_FIXED + PEAK_PER_BYTE x its length -- the
 * parse tree of the text itself -- never anything proportional to the
 * claimed count, block number or balance.  The factor is tight enough to
 * catch an early reservation: 100,001 event records (528 bytes for each
 * 42-byte event) would add 12.6 bytes per byte of text, 65,537 agent
 * records 3 bytes per byte on top of the tree's 7.9.  Accepting 65,536
 * agent entries legitimately builds their records (factor 24 there).
 * CS_LIMITS_VERBOSE=1 prints every measured peak.
 *
 *   scenario loader (sim/cs_scenario_*.c): blocks 10^9, agents[i].count 10^6,
 *     10^7 actors in total, 65,536 agent entries, 100,000 events, nesting
 *     depth 32, 64 MiB of text, name 128 bytes, balances up to 2^128 - 1 per
 *     actor and in total, payload_len 1 MiB, non-finite and negative values;
 *     each at the limit (accepted) and one past it (rejected);
 *   scheduler core (core/cs_sched.c, CIP-5 §4.2, §8): payload 1 MiB (no
 *     byte past a too-long payload is read and nothing is allocated),
 *     handler 256 bytes, timer_id 256 bytes, 16 watch keys of 256 bytes,
 *     MAX_TIMERS_PER_ACTOR;
 *   `cowsim clear` input (cli/cs_cmd_clear.c): 64 MiB, 1,000,000 timers;
 *   `cowsim run --max-memory` (cli/cs_cmd_run.c): the printed estimate equals
 *     the formula computed here by hand, a limit one byte below it is
 *     refused with exit 2 before the run starts, the estimate itself is
 *     accepted.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cs_allocwrap.h"
#include "cs_agent.h"
#include "cs_scenario.h"
#include "cs_sched.h"
#include "cs_test.h"

#define PEAK_FIXED (64u << 10) /* bytes: tables, error messages, the scenario struct (measured < 7 KiB) */
#define PEAK_PER_BYTE 10u      /* cJSON's tree (measured 7.9 bytes per byte of text) */

static const char *cs__bin; /* cowsim, for the CLI cases */
static char cs__tmp[256];   /* scratch directory */

/* A growable string for building large documents. */
typedef struct sb {
    char *p;
    size_t n, cap;
} sb_t;

static void sb_add(sb_t *b, const char *s)
{
    size_t k = strlen(s);
    if (b->n + k + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->n + k + 1) c *= 2;
        char *np = realloc(b->p, c);
        if (!np) abort();
        b->p = np;
        b->cap = c;
    }
    memcpy(b->p + b->n, s, k + 1);
    b->n += k;
}

/*
 * Load text; check the result code, that some message contains `want`
 * (NULL: none expected), and that the load's peak memory stayed within
 * PEAK_FIXED + PEAK_PER_BYTE x length.
 */
static void cs__load_f(const char *label, const char *text, size_t len, const char *const *sets, size_t n_sets,
                       int want_ok, const char *want, size_t per_byte)
{
    cs_errlist_t e = {0};
    cs_scenario_t *s = NULL;
    cs_aw_reset_peak();
    size_t before = cs_aw_bytes();
    int rc = cs_scenario_load(text, len, sets, n_sets, &s, &e);
    size_t peak = cs_aw_peak() - before;
    int hit = want == NULL;
    for (size_t i = 0; i < e.n && !hit; i++) hit = strstr(e.msg[i], want) != NULL;
    int ok_rc = want_ok ? rc == CS_OK : rc != CS_OK;
    CS_CHECK(ok_rc && hit);
    if (!ok_rc || !hit) {
        fprintf(stderr, "limits %s: rc %s, wanted %s with \"%s\"; got:\n", label, cs_errname(rc),
                want_ok ? "CS_OK" : "an error", want ? want : "");
        for (size_t i = 0; i < e.n && i < 5; i++) fprintf(stderr, "  %s\n", e.msg[i]);
    }
    size_t bound = PEAK_FIXED + per_byte * len;
    if (getenv("CS_LIMITS_VERBOSE")) printf("limits %-22s %9zu bytes of text, peak %10zu bytes\n", label, len, peak);
    CS_CHECK(peak <= bound);
    if (peak > bound) fprintf(stderr, "limits %s: peak %zu bytes > %zu for %zu bytes of text\n", label, peak, bound, len);
    cs_scenario_free(s);
    cs_errlist_free(&e);
}

static void cs__load(const char *label, const char *text, size_t len, const char *const *sets, size_t n_sets,
                     int want_ok, const char *want)
{
    cs__load_f(label, text, len, sets, n_sets, want_ok, want, PEAK_PER_BYTE);
}

static void cs__loads(const char *label, const char *text, int want_ok, const char *want)
{
    cs__load(label, text, strlen(text), NULL, 0, want_ok, want);
}

/* A minimal valid scenario with the given middle part spliced in. */
static char *cs__scn(const char *blocks, const char *agents, const char *extra)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "{\"name\": \"limits\", \"blocks\": %s, \"mechanism\": \"fifo\", \"agents\": %s%s}",
             blocks, agents, extra);
    return buf;
}

static void test_scenario_scalars(void)
{
    /* blocks: [1, 10^9]; the number is only a loop bound, never a size. */
    cs__loads("blocks=10^9", cs__scn("1000000000", "[{\"kind\": \"heartbeat\"}]", ""), 1, NULL);
    cs__loads("blocks=10^9+1", cs__scn("1000000001", "[{\"kind\": \"heartbeat\"}]", ""), 0,
              "blocks: must be in [1, 1000000000], got 1000000001");
    cs__loads("blocks=-1", cs__scn("-1", "[{\"kind\": \"heartbeat\"}]", ""), 0, "blocks: must be in [1, 1000000000]");
    /* count: [1, 10^6] per entry; 10 x 10^6 = 10^7 actors is the run-wide limit. */
    cs__loads("count=10^6", cs__scn("10", "[{\"kind\": \"heartbeat\", \"count\": 1000000}]", ""), 1, NULL);
    cs__loads("count=10^6+1", cs__scn("10", "[{\"kind\": \"heartbeat\", \"count\": 1000001}]", ""), 0,
              "agents[0].count: must be in [1, 1000000], got 1000001");
    char ag[2048] = "[";
    for (int i = 0; i < 11; i++)
        strcat(ag, i ? ", {\"kind\": \"heartbeat\", \"count\": 1000000}" : "{\"kind\": \"heartbeat\", \"count\": 1000000}");
    strcat(ag, "]");
    cs__loads("11 x 10^6 actors", cs__scn("10", ag, ""), 0, "agents: 11000000 actors in total exceed the limit of 10000000");
    ag[strlen(ag) - strlen(", {\"kind\": \"heartbeat\", \"count\": 1000000}]")] = '\0';
    strcat(ag, "]");
    cs__loads("10 x 10^6 actors", cs__scn("10", ag, ""), 1, NULL);
    /* Balances: decimal strings up to 2^128 - 1 = 340282366920938463463374607431768211455,
     * per actor and summed over all actors. */
    cs__loads("balance=2^128-1",
              cs__scn("10", "[{\"kind\": \"heartbeat\", \"balance\": \"340282366920938463463374607431768211455\"}]", ""),
              1, NULL);
    cs__loads("balance=2^128",
              cs__scn("10", "[{\"kind\": \"heartbeat\", \"balance\": \"340282366920938463463374607431768211456\"}]", ""),
              0, "agents[0].balance: must be at most 2^128-1");
    /* 2 actors x 2^127 = 2^128: one past the total. */
    cs__loads("total balance=2^128",
              cs__scn("10", "[{\"kind\": \"heartbeat\", \"count\": 2, \"balance\": \"170141183460469231731687303715884105728\"}]",
                      ""),
              0, "agents: the total initial balance of all actors exceeds 2^128-1");
    cs__loads("balance<0", cs__scn("10", "[{\"kind\": \"heartbeat\", \"balance\": -5}]", ""), 0,
              "agents[0].balance: must be >= 0, got -5");
    /* Payload sizes: agents' payload_len is capped at CIP-5 §4.2's 1 MiB. */
    cs__loads("payload_len=1MiB", cs__scn("10", "[{\"kind\": \"heartbeat\", \"params\": {\"payload_len\": 1048576}}]", ""),
              1, NULL);
    cs__loads("payload_len=1MiB+1",
              cs__scn("10", "[{\"kind\": \"heartbeat\", \"params\": {\"payload_len\": 1048577}}]", ""), 0,
              "agents[0].params.payload_len: must be in [0, 1048576], got 1048577");
    /* Non-finite and negative values: 1e999 parses to +inf. */
    cs__loads("lambda=inf", cs__scn("10", "[{\"kind\": \"heartbeat\"}]", ", \"params\": {\"lambda\": 1e999}"), 0,
              "params.lambda: must be a finite number");
    cs__loads("lambda=-inf", cs__scn("10", "[{\"kind\": \"heartbeat\"}]", ", \"params\": {\"lambda\": -1e999}"), 0,
              "params.lambda: must be a finite number");
    cs__loads("seed<0", cs__scn("10", "[{\"kind\": \"heartbeat\"}]", ", \"seed\": -1"), 0, "seed: must be >= 0, got -1");
    cs__loads("period<0", cs__scn("10", "[{\"kind\": \"heartbeat\", \"params\": {\"period\": -3}}]", ""), 0,
              "agents[0].params.period: must be in [1, 10000000], got -3");
    cs__loads("target<0", cs__scn("10", "[{\"kind\": \"heartbeat\"}]", ", \"params\": {\"target_utilisation\": -0.5}"), 0,
              "params.target_utilisation: must be in [0.000001, 1], got -0.5");
    /* NaN cannot be written in JSON; through --set it is a bare string. */
    const char *set_nan[] = {"params.lambda=NaN"};
    const char *t = cs__scn("10", "[{\"kind\": \"heartbeat\"}]", "");
    cs__load("--set lambda=NaN", t, strlen(t), set_nan, 1, 0, "params.lambda:");
    /* Names: at most 128 bytes. */
    char nm[400];
    char name[140];
    memset(name, 'n', 128);
    name[128] = '\0';
    snprintf(nm, sizeof nm, "{\"name\": \"%s\", \"blocks\": 5, \"mechanism\": \"fifo\", \"agents\": [{\"kind\": \"heartbeat\"}]}",
             name);
    cs__loads("name 128 bytes", nm, 1, NULL);
    memset(name, 'n', 129);
    name[129] = '\0';
    snprintf(nm, sizeof nm, "{\"name\": \"%s\", \"blocks\": 5, \"mechanism\": \"fifo\", \"agents\": [{\"kind\": \"heartbeat\"}]}",
             name);
    cs__loads("name 129 bytes", nm, 0, "name: must be 1 to 128 bytes long, got 129");
}

static void test_scenario_sizes(void)
{
    /* Nesting depth 32 passes the scan (the value is then simply of the
     * wrong type); 33 is refused by the scan before cJSON parses anything. */
    sb_t b = {0};
    sb_add(&b, "{\"name\": \"d\", \"blocks\": 5, \"mechanism\": \"fifo\", \"agents\": [{\"kind\": \"heartbeat\"}], \"description\": ");
    for (int i = 0; i < 31; i++) sb_add(&b, "[");
    for (int i = 0; i < 31; i++) sb_add(&b, "]");
    sb_add(&b, "}");
    cs__load("depth 32", b.p, b.n, NULL, 0, 0, "description: must be a string, got a list");
    b.n = 0;
    sb_add(&b, "{\"name\": \"d\", \"blocks\": 5, \"mechanism\": \"fifo\", \"agents\": [{\"kind\": \"heartbeat\"}], \"description\": ");
    for (int i = 0; i < 32; i++) sb_add(&b, "[");
    for (int i = 0; i < 32; i++) sb_add(&b, "]");
    sb_add(&b, "}");
    cs__load("depth 33", b.p, b.n, NULL, 0, 0, "nesting depth exceeds the limit of 32");
    /* 10^6 nested lists: no recursion, nothing allocated. */
    b.n = 0;
    for (int i = 0; i < 1000000; i++) sb_add(&b, "[");
    cs__load("depth 10^6", b.p, b.n, NULL, 0, 0, "nesting depth exceeds the limit of 32");
    /* 65,536 agent entries are allowed, 65,537 are not. */
    b.n = 0;
    sb_add(&b, "{\"name\": \"a\", \"blocks\": 5, \"mechanism\": \"fifo\", \"agents\": [");
    for (int i = 0; i < 65536; i++) sb_add(&b, i ? ",{\"kind\":\"heartbeat\"}" : "{\"kind\":\"heartbeat\"}");
    size_t at = b.n;
    sb_add(&b, "]}");
    cs__load_f("65536 agent entries", b.p, b.n, NULL, 0, 1, NULL, 24);
    b.n = at;
    sb_add(&b, ",{\"kind\":\"heartbeat\"}]}");
    cs__load("65537 agent entries", b.p, b.n, NULL, 0, 0, "agents: must hold 1 to 65536 entries, got 65537");
    /* 100,001 events are refused before the event array (528 bytes each) exists. */
    b.n = 0;
    sb_add(&b, "{\"name\": \"e\", \"blocks\": 5, \"mechanism\": \"fifo\", \"agents\": [{\"kind\": \"heartbeat\"}], \"events\": [");
    for (int i = 0; i < 100001; i++) sb_add(&b, i ? ",{\"at\":1,\"type\":\"lane_pause\",\"duration\":1}" : "{\"at\":1,\"type\":\"lane_pause\",\"duration\":1}");
    sb_add(&b, "]}");
    cs__load("100001 events", b.p, b.n, NULL, 0, 0, "events: must hold at most 100000 events, got 100001");
    free(b.p);
    /* 64 MiB of text: one byte more is refused before the parse. */
    size_t big = (64u << 20) + 1;
    char *t = malloc(big);
    CS_CHECK(t != NULL);
    if (t) {
        memset(t, ' ', big);
        cs_errlist_t e = {0};
        cs_scenario_t *s = NULL;
        cs_aw_reset_peak();
        size_t before = cs_aw_bytes();
        int rc = cs_scenario_load(t, big, NULL, 0, &s, &e);
        CS_CHECK(rc != CS_OK && e.n == 1 && strstr(e.msg[0], "$: 67108865 bytes exceed the limit of 67108864 bytes"));
        CS_CHECK(cs_aw_peak() - before < PEAK_FIXED);
        cs_errlist_free(&e);
        free(t);
    }
}

static void test_core(void)
{
    cs_params_t p;
    cs_params_default(&p);
    p.max_timers_per_actor = 3;
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, "fifo", 0), CS_OK);
    if (!s) return;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor.b[0] = 0x11;
    a.kind = CS_KIND_HEIGHT;
    a.height = 9;
    /* Payload 1 MiB + 1 from a 1-byte buffer: refused on the length alone
     * (ASan would flag any read past the byte), nothing allocated. */
    static uint8_t one = 0x5a;
    a.payload = &one;
    a.payload_len = CS_MAX_PAYLOAD + 1;
    cs_aw_reset_peak();
    size_t before = cs_aw_bytes();
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_EPAYLOAD_TOO_LARGE);
    CS_CHECK_EQ_U64(cs_aw_peak() - before, 0);
    /* Exactly 1 MiB is accepted (and copied once). */
    uint8_t *mib = calloc(1, CS_MAX_PAYLOAD);
    CS_CHECK(mib != NULL);
    a.payload = mib;
    a.payload_len = CS_MAX_PAYLOAD;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
    a.payload = NULL;
    a.payload_len = 0;
    /* handler and timer_id: at most 256 bytes (CIP-5 §3.1, §4.2). */
    char h[300];
    memset(h, 'h', sizeof h);
    a.handler = h;
    a.handler_len = 257;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_EHANDLER_TOO_LONG);
    a.handler_len = 256;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
    a.handler = NULL;
    a.handler_len = 0;
    uint8_t tid[300];
    memset(tid, 7, sizeof tid);
    a.timer_id = tid;
    a.timer_id_len = 257;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_ETIMER_ID_TOO_LONG);
    a.timer_id = NULL;
    a.timer_id_len = 0;
    /* MAX_TIMERS_PER_ACTOR = 3: the actor staged 2 (1 MiB, handler), a
     * third is the limit, a fourth is refused (CIP-5 §8). */
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_ETOO_MANY_TIMERS);
    /* Watch timers: 1..16 keys of at most 256 bytes. */
    a.actor.b[0] = 0x22;
    a.kind = CS_KIND_WATCH;
    const uint8_t *keys[17];
    size_t lens[17];
    static uint8_t kbuf[300];
    for (int i = 0; i < 17; i++) {
        keys[i] = kbuf;
        lens[i] = (size_t)i + 1;
    }
    a.watch_keys = keys;
    a.watch_key_lens = lens;
    a.n_watch = 17;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_EINVALID_PARAM);
    a.n_watch = 1;
    lens[0] = 257;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_EINVALID_PARAM);
    lens[0] = 256;
    a.n_watch = 16;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    free(mib);
    cs_sched_free(s);
}

/* Run cowsim with argv; stderr to err_path; returns the exit code (-1 on a signal). */
static int cs__cli(char *const argv[], const char *err_path)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (nul >= 0) dup2(nul, 1);
        if (e >= 0) dup2(e, 2);
        execv(cs__bin, argv);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *cs__read(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void test_clear(void)
{
    char in[300], err[300];
    snprintf(in, sizeof in, "%s/auction.json", cs__tmp);
    snprintf(err, sizeof err, "%s/clear.err", cs__tmp);
    /* 1,000,001 timers: refused before 1,000,001 candidate records exist. */
    FILE *f = fopen(in, "w");
    CS_CHECK(f != NULL);
    if (!f) return;
    fputs("{\"mechanism\": \"fifo\", \"timers\": [", f);
    for (int i = 0; i < 1000001; i++) fputs(i ? ",{}" : "{}", f);
    fputs("]}", f);
    fclose(f);
    char *argv[] = {"cowsim", "clear", in, NULL};
    CS_CHECK_EQ_U64(cs__cli(argv, err), 2);
    char *m = cs__read(err);
    CS_CHECK(m && strstr(m, "timers: at most 1000000 timers, got 1000001"));
    /* 64 MiB + 1 bytes: refused while reading. */
    f = fopen(in, "w");
    if (!f) return;
    static char spaces[1 << 16];
    memset(spaces, ' ', sizeof spaces);
    for (int i = 0; i < 1024; i++) fwrite(spaces, 1, sizeof spaces, f);
    fputc(' ', f);
    fclose(f);
    CS_CHECK_EQ_U64(cs__cli(argv, err), 2);
    m = cs__read(err);
    CS_CHECK(m && strstr(m, "larger than the limit of 67108864 bytes"));
    unlink(in);
}

static void test_max_memory(void)
{
    /* Three heartbeat actors, max_timers_per_actor 10, fairness_window 16. */
    char scn[300], err[300];
    snprintf(scn, sizeof scn, "%s/mem.json", cs__tmp);
    snprintf(err, sizeof err, "%s/mem.err", cs__tmp);
    const char *text = "{\"name\": \"mem\", \"blocks\": 20, \"mechanism\": \"fifo\",\n"
                       " \"params\": {\"max_timers_per_actor\": 10, \"fairness_window\": 16},\n"
                       " \"agents\": [{\"kind\": \"heartbeat\", \"count\": 3}]}\n";
    FILE *f = fopen(scn, "w");
    CS_CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
    /* By hand (cli/cs_cmd_run.c): pending <= 3 actors x 10 = 30 timers, each
     * 2 x CS_TIMER_RECORD_MAX_BYTES (32 + 80 + 64 + 4 = 180) + 160 bytes
     * (heartbeat payload_len 0);
     * actors 3 x (16 x 16 + 256: the fairness window log, 16 x window) + 3 x
     * heartbeat state; HDF5 32 MiB;
     * scenario: its text + 1 agent entry record. */
    const cs_agent_ops_t *hb = cs_agent_find("heartbeat");
    CS_CHECK(hb != NULL);
    if (!hb) return;
    unsigned long long want = 30ull * (2 * 180 + 160) + 3ull * (16 * 16 + 256) + 3ull * hb->state_size +
                              (32ull << 20) + strlen(text) + sizeof(cs_scn_agent_t);
    char lim[64];
    snprintf(lim, sizeof lim, "%llu", want - 1);
    char *argv[] = {"cowsim", "run", scn, "-o", cs__tmp, "--quiet", "--max-memory", lim, NULL};
    CS_CHECK_EQ_U64(cs__cli(argv, err), 2);
    char *m = cs__read(err);
    char expect[200];
    snprintf(expect, sizeof expect, "estimated memory %llu bytes exceeds --max-memory %llu bytes", want, want - 1);
    CS_CHECK(m && strstr(m, expect));
    if (!(m && strstr(m, expect))) fprintf(stderr, "limits --max-memory: wanted \"%s\", got:\n%s\n", expect, m ? m : "");
    CS_CHECK(m && strstr(m, "pending timers <= 30 (3 actors x max_timers_per_actor 10)"));
    /* Nothing was written: the check precedes the output directory. */
    char h5[400];
    snprintf(h5, sizeof h5, "%s/fifo.h5", cs__tmp);
    CS_CHECK(access(h5, F_OK) != 0);
    snprintf(lim, sizeof lim, "%llu", want);
    CS_CHECK_EQ_U64(cs__cli(argv, err), 0);
    CS_CHECK(access(h5, F_OK) == 0);
    /* Suffixes and bad values. */
    char *a2[] = {"cowsim", "run", scn, "-o", cs__tmp, "--quiet", "--max-memory", "1G", NULL};
    CS_CHECK_EQ_U64(cs__cli(a2, err), 0);
    char *a3[] = {"cowsim", "run", scn, "-o", cs__tmp, "--quiet", "--max-memory", "0", NULL};
    CS_CHECK_EQ_U64(cs__cli(a3, err), 2);
    char *a4[] = {"cowsim", "run", scn, "-o", cs__tmp, "--quiet", "--max-memory", "-5", NULL};
    CS_CHECK_EQ_U64(cs__cli(a4, err), 2);
    char *a5[] = {"cowsim", "run", scn, "-o", cs__tmp, "--quiet", "--max-memory", "99999999999999999999G", NULL};
    CS_CHECK_EQ_U64(cs__cli(a5, err), 2);
}

int main(void)
{
    cs_aw_hook_cjson();
    cs_aw_reset(0);
    cs__bin = getenv("CS_BIN");
    snprintf(cs__tmp, sizeof cs__tmp, "%s/cs_limits_%d", cs_test_tmpdir(), (int)getpid());
    mkdir(cs__tmp, 0755);
    test_scenario_scalars();
    test_scenario_sizes();
    test_core();
    if (cs__bin) {
        test_clear();
        test_max_memory();
    } else {
        fprintf(stderr, "test_limits: CS_BIN not set: CLI cases skipped\n");
        CS_CHECK(0);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cs__tmp);
    if (system(cmd) != 0) {
    }
    return cs_test_done("limits");
}
