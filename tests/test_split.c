/*
 * test_split.c -- over_cap "split" (CIP-1 rev §10, DESIGN-NOTES N86): work
 * above MAX_CYCLES_PER_FIRE_AUCTION_PHASE runs as a chain of capped fires,
 * each piece's handler scheduling the rest due the next block (the
 * same-block prohibition, §4).  Values by hand.
 *
 * One spammer timer (scheduled at block 2, due 5, bid 1,000, value 10^6
 * with no decay, TTL 50) on an empty 1M lane under bias-fp, cap 250,000:
 *   - work 600,000 (gas_limit 600,000, cycles_frac 1): fires at 5, 6, 7 of
 *     250,000, 250,000 and 100,000 cycles, each with gas limit = its
 *     cycles and the bid 1,000 paid as first price; values 0, 0, 10^6; the
 *     last row is due at 5 with delay 2 (the work's), the others due at
 *     their own height with delay 0; three timers in /timers;
 *   - work 180,000 (gas_limit 600,000, cycles_frac 0.3): one fire at 5 of
 *     180,000 cycles with gas limit 250,000, value 10^6, delay 0;
 *   - over_cap reject: the timer is refused at block 2, nothing fires.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_h5.h"
#include "cs_test.h"

static char g_path[512];

/* Run the one-timer scenario with gas_limit gl, cycles_frac cf and
 * over_cap oc; its /fires rows (malloc'd) and their count, its /timers
 * row count and block 2's rejected count. */
static cs_h5_fire_t *run(const char *oc, unsigned gl, const char *cf, size_t *nf, size_t *nt, uint64_t *rej)
{
    char txt[1024];
    snprintf(txt, sizeof txt,
             "{\"name\": \"split\", \"blocks\": 10, \"seed\": 1, \"mechanism\": \"bias-fp\","
             " \"params\": {\"lane_timer_cycles\": 1000000, \"max_cycles_per_fire\": 250000, \"over_cap\": \"%s\"},"
             " \"agents\": [{\"kind\": \"spammer\", \"balance\": \"1000000000000\", \"params\": {\"start\": 2,"
             " \"burst\": 1, \"delay\": 3, \"gas_limit\": %u, \"cycles_frac\": %s, \"value\": 1000000,"
             " \"min_bid\": 1000, \"ttl\": 50}}]}",
             oc, gl, cf);
    *nf = *nt = 0;
    *rej = 0;
    if (cs_test_run_text(txt, "bias-fp", g_path, NULL) != 0) return NULL;
    int err = 0;
    cs_h5_reader_t *r = cs_h5_open_read(g_path, &err);
    if (!r) return NULL;
    cs_h5_fire_t *f = NULL;
    cs_h5_timer_t *t = NULL;
    cs_h5_block_t *b = NULL;
    size_t nb = 0;
    if (cs_h5_read_fires(r, &f, nf) != CS_OK || cs_h5_read_timers(r, &t, nt) != CS_OK ||
        cs_h5_read_blocks(r, &b, &nb) != CS_OK)
        *nf = 0;
    for (size_t i = 0; i < nb; i++)
        if (b[i].height == 2) *rej = b[i].rejected;
    free(t);
    free(b);
    cs_h5_close_read(r);
    return f;
}

static void test_chain(void)
{
    size_t nf, nt;
    uint64_t rej;
    cs_h5_fire_t *f = run("split", 600000, "1", &nf, &nt, &rej);
    CS_CHECK(f != NULL);
    CS_CHECK_EQ_U64(nf, 3);
    CS_CHECK_EQ_U64(nt, 3);
    CS_CHECK_EQ_U64(rej, 0);
    const uint64_t height[3] = {5, 6, 7}, due[3] = {5, 6, 5}, delay[3] = {0, 0, 2};
    const uint64_t cyc[3] = {250000, 250000, 100000};
    const double value[3] = {0, 0, 1e6};
    for (size_t i = 0; f && i < 3 && i < nf; i++) {
        CS_CHECK_EQ_U64(f[i].height, height[i]);
        CS_CHECK_EQ_U64(f[i].due_height, due[i]);
        CS_CHECK_EQ_U64(f[i].delay, delay[i]);
        CS_CHECK_EQ_U64(f[i].cycles, cyc[i]);
        CS_CHECK_EQ_U64(f[i].gas_limit, cyc[i]);
        CS_CHECK(f[i].value == value[i]);
        CS_CHECK(cs_h5_money_u128(f[i].bid) == 1000);
        CS_CHECK(cs_h5_money_u128(f[i].alloc_payment) == 1000);
    }
    free(f);
}

static void test_below_cap(void)
{
    size_t nf, nt;
    uint64_t rej;
    cs_h5_fire_t *f = run("split", 600000, "0.3", &nf, &nt, &rej);
    CS_CHECK(f != NULL);
    CS_CHECK_EQ_U64(nf, 1);
    CS_CHECK_EQ_U64(nt, 1);
    if (f && nf == 1) {
        CS_CHECK_EQ_U64(f[0].height, 5);
        CS_CHECK_EQ_U64(f[0].delay, 0);
        CS_CHECK_EQ_U64(f[0].cycles, 180000);
        CS_CHECK_EQ_U64(f[0].gas_limit, 250000);
        CS_CHECK(f[0].value == 1e6);
    }
    free(f);
}

static void test_reject(void)
{
    size_t nf, nt;
    uint64_t rej;
    cs_h5_fire_t *f = run("reject", 600000, "1", &nf, &nt, &rej);
    CS_CHECK_EQ_U64(nf, 0);
    CS_CHECK_EQ_U64(rej, 1);
    free(f);
}

int main(void)
{
    snprintf(g_path, sizeof g_path, "%s/cs_split_%d.h5", cs_test_tmpdir(), (int)getpid());
    test_chain();
    test_below_cap();
    test_reject();
    remove(g_path);
    return cs_test_done("split");
}
