/*
 * test_sched.c -- the CIP-5 rules of the scheduler core: insertion order,
 * one-shot removal, the same-block prohibition, rollback, every limit error,
 * metering, the deferred-transaction fields, carry-over, trigger kinds and
 * the CIP-5 CN §19 test vectors 1, 2, 4, 5 and 6.
 */
#include "cs_sched.h"
#include "cs_sched_int.h" /* the money table's counters */
#include "cs_test.h"

#include <stdlib.h>
#include <string.h>

/* The hot part of the pending timer with this id, or NULL. */
static const cs_timer_hot_t *find_hot(const cs_sched_t *s, const cs_hash_t *id)
{
    const cs_timer_t *t = cs_sched_find(s, id);
    return t ? cs_sched_hot(s, (uint32_t)(t - cs_sched_record(s, 0))) : NULL;
}

static cs_addr_t addr(uint8_t tag)
{
    cs_addr_t a;
    memset(a.b, 0, sizeof a.b);
    a.b[0] = 0xa0;
    a.b[19] = tag;
    return a;
}

static cs_sched_t *mk(const char *mech, void (*tweak)(cs_params_t *))
{
    cs_params_t p;
    cs_params_default(&p);
    if (tweak) tweak(&p);
    cs_sched_t *s = NULL;
    int rc = cs_sched_alloc(&s, &p, mech, 0);
    CS_CHECK_EQ_U64(rc, CS_OK);
    return s;
}

/* Schedule one HEIGHT timer in its own transaction at the current block. */
static int sched1(cs_sched_t *s, uint8_t actor, uint64_t height, const char *payload, cs_hash_t *id)
{
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = addr(actor);
    a.kind = CS_KIND_HEIGHT;
    a.height = height;
    a.payload = (const uint8_t *)payload;
    a.payload_len = payload ? strlen(payload) : 0;
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    int rc = cs_sched_schedule(s, &a, id, NULL);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    return rc;
}

/* Run one empty block to completion and return its result. */
static cs_block_result_t step(cs_sched_t *s)
{
    cs_block_result_t r;
    uint64_t h = cs_sched_height(s) + 1;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    return r;
}

static int same_id(const cs_hash_t *a, const cs_hash_t *b) { return memcmp(a->b, b->b, 32) == 0; }

static void test_insertion_order_and_vector1(void)
{
    /* CIP-5 §5.1: timers of one height fire in insertion order; CIP-5 CN
     * §19 vector 1: due_height = h fires at h, not at h - 1. */
    cs_sched_t *s = mk("fifo", NULL);
    cs_hash_t id[4];
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(sched1(s, 1, 5, "a", &id[0]), CS_OK);
    CS_CHECK_EQ_U64(sched1(s, 2, 5, "b", &id[1]), CS_OK);
    CS_CHECK_EQ_U64(sched1(s, 1, 4, "c", &id[2]), CS_OK);
    CS_CHECK_EQ_U64(sched1(s, 3, 5, "d", &id[3]), CS_OK);
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    CS_CHECK_EQ_U64(r.n_deliv, 0);
    r = step(s); /* 2 */
    r = step(s); /* 3 */
    CS_CHECK_EQ_U64(r.n_deliv, 0);
    r = step(s); /* 4 */
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK(same_id(&r.deliv[0].timer_id, &id[2]));
    r = step(s); /* 5: a, b, d in the order they were scheduled */
    CS_CHECK_EQ_U64(r.n_deliv, 3);
    if (r.n_deliv == 3) {
        CS_CHECK(same_id(&r.deliv[0].timer_id, &id[0]));
        CS_CHECK(same_id(&r.deliv[1].timer_id, &id[1]));
        CS_CHECK(same_id(&r.deliv[2].timer_id, &id[3]));
    }
    /* One-shot: removed once fired (CIP-5 §4.2). */
    CS_CHECK(cs_sched_find(s, &id[0]) == NULL);
    CS_CHECK_EQ_U64(cs_sched_pending(s), 0);
    r = step(s); /* 6 */
    CS_CHECK_EQ_U64(r.n_deliv, 0);
    cs_sched_free(s);
}

static void test_deferred_tx_fields(void)
{
    /* CIP-5 §5.2: origin 0x00..00, ExecuteActor{actor, handler, payload},
     * 550,000 cycles and cells, sender = the actor that scheduled it;
     * CIP-5 §4.2: the custom-handler convention routes the inner payload.
     * "aGVsbG8=" is base64 of "hello". */
    cs_sched_t *s = mk("fifo", NULL);
    cs_hash_t id1, id2;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(sched1(s, 7, 2, "raw-bytes", &id1), CS_OK);
    CS_CHECK_EQ_U64(sched1(s, 7, 2, "{\"_handler\": \"on_tick\", \"_payload\": \"aGVsbG8=\"}", &id2), CS_OK);
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    r = step(s);
    CS_CHECK_EQ_U64(r.n_deliv, 2);
    if (r.n_deliv == 2) {
        uint8_t zero[32] = {0};
        cs_addr_t a7 = addr(7);
        const cs_delivery_t *d = &r.deliv[0];
        CS_CHECK(memcmp(d->origin.b, zero, 32) == 0);
        CS_CHECK(memcmp(d->actor.b, a7.b, 20) == 0);
        CS_CHECK_STR(d->handler, "handle_timer");
        CS_CHECK_EQ_U64(d->payload_len, 9);
        CS_CHECK(d->payload_len == 9 && memcmp(d->payload, "raw-bytes", 9) == 0);
        CS_CHECK_EQ_U64(d->cycles_limit, 550000);
        CS_CHECK_EQ_U64(d->cells_limit, 550000);
        d = &r.deliv[1];
        CS_CHECK_STR(d->handler, "on_tick");
        CS_CHECK(d->payload_len == 5 && memcmp(d->payload, "hello", 5) == 0);
        /* timer_id = keccak256(actor || height BE || payload || nonce BE) with
         * the payload as given and the actor's schedule counter as nonce. */
        cs_hash_t want;
        cs_timer_id(&a7, 2, "raw-bytes", 9, 0, &want);
        CS_CHECK(same_id(&id1, &want));
    }
    cs_sched_free(s);
}

static void test_same_block_and_rollback(void)
{
    cs_sched_t *s = mk("fifo", NULL);
    cs_hash_t keep, gone, x;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(sched1(s, 1, 3, "keep", &keep), CS_OK);
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    /* Block 2: scheduling at the current height or below is refused
     * (CIP-5 §4.2, §5.3 same-block prohibition). */
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 2), CS_OK);
    CS_CHECK_EQ_U64(sched1(s, 1, 2, "now", &x), CS_EHEIGHT_NOT_FUTURE);
    CS_CHECK_EQ_U64(sched1(s, 1, 1, "past", &x), CS_EHEIGHT_NOT_FUTURE);
    /* Rollback discards a schedule and a cancel (CIP-5 §4.3). */
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = addr(1);
    a.height = 3;
    a.payload = (const uint8_t *)"gone";
    a.payload_len = 4;
    cs_addr_t a1 = addr(1);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, &gone, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_cancel(s, &a1, &keep, NULL), CS_OK);
    cs_sched_tx_rollback(s);
    CS_CHECK(cs_sched_find(s, &gone) == NULL);
    CS_CHECK(cs_sched_find(s, &keep) != NULL);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    r = step(s); /* 3 */
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK(r.n_deliv == 1 && same_id(&r.deliv[0].timer_id, &keep));
    cs_sched_free(s);
}

/* A handler that reschedules itself at h (refused) and at h + 1. */
static int g_resched_rc_same, g_resched_rc_next;
static void exec_resched(void *user, cs_sched_t *s, const cs_delivery_t *d, uint64_t *uc, uint64_t *ue)
{
    (void)user;
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = d->actor;
    a.height = cs_sched_height(s) + 1; /* the block being built */
    g_resched_rc_same = cs_sched_schedule(s, &a, NULL, NULL);
    a.height = cs_sched_height(s) + 2;
    g_resched_rc_next = cs_sched_schedule(s, &a, NULL, NULL);
    *uc = 12345;
    *ue = 7;
}

static void test_handler_reschedule(void)
{
    /* CIP-5 §8 reentrancy: handlers may schedule, but only for future blocks. */
    cs_sched_t *s = mk("fifo", NULL);
    cs_sched_hooks_t hk = {NULL, exec_resched, NULL, NULL, NULL};
    cs_sched_set_hooks(s, &hk);
    cs_hash_t id;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(sched1(s, 9, 2, NULL, &id), CS_OK);
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    r = step(s); /* 2: fires, handler reschedules for 3 */
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK_EQ_U64(g_resched_rc_same, CS_EHEIGHT_NOT_FUTURE);
    CS_CHECK_EQ_U64(g_resched_rc_next, CS_OK);
    CS_CHECK_EQ_U64(r.rows[0].used_cycles, 12345);
    CS_CHECK_EQ_U64(cs_sched_pending(s), 1);
    r = step(s); /* 3: the rescheduled timer fires, and schedules again */
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK_EQ_U64(cs_sched_pending(s), 1);
    cs_sched_free(s);
}

static void small_cap(cs_params_t *p) { p->max_timers_per_actor = 4; }

static void test_limits_and_metering(void)
{
    cs_sched_t *s = mk("fifo", small_cap);
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = addr(1);
    a.height = 10;
    uint8_t *big = calloc(1048577, 1);
    CS_CHECK(big != NULL);
    cs_meter_t m = {0, 0};
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_ENO_TX);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_ETX_OPEN);
    /* Payload: 1,048,576 bytes accepted, one more refused (CIP-5 §4.2). */
    a.payload = big;
    a.payload_len = 1048577;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, &m), CS_EPAYLOAD_TOO_LARGE);
    a.payload_len = 1048576;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, &m), CS_OK);
    /* Metering (CIP-5 §6.1): 1,000 cycles + payload cells. */
    CS_CHECK_EQ_U64(m.cycles, 1000);
    CS_CHECK_EQ_U64(m.cells, 1048576);
    /* Handler name: 256 bytes accepted, 257 refused. */
    char hn[258];
    memset(hn, 'h', sizeof hn);
    a.payload_len = 3;
    a.handler = hn;
    a.handler_len = 257;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_EHANDLER_TOO_LONG);
    a.handler_len = 256;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
    /* timer_id: 256 bytes accepted, 257 refused (CIP-5 §3.1). */
    a.handler = NULL;
    a.timer_id = big;
    big[0] = 1;
    a.timer_id_len = 257;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_ETIMER_ID_TOO_LONG);
    a.timer_id_len = 256;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
    /* The same explicit id twice: refused. */
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_ETIMER_EXISTS);
    a.timer_id = NULL;
    /* MAX_TIMERS_PER_ACTOR = 4 here: three staged so far, one more fits. */
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_ETOO_MANY_TIMERS);
    /* Another actor is not affected. */
    a.actor = addr(2);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_OK);
    /* Kinds and parameters. */
    a.kind = CS_KIND_INTERVAL;
    a.every_blocks = 0;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_EINVALID_PARAM);
    a.kind = 7;
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, NULL, NULL), CS_EUNSUPPORTED_TIMER_TYPE);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_actor_pending(s, &(cs_addr_t){{0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}), 4);
    /* Cancel: 500 cycles flat; only the owner may cancel; unknown id. */
    cs_hash_t id;
    a.actor = addr(3);
    a.kind = CS_KIND_HEIGHT;
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, &id, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    cs_addr_t a2 = addr(2), a3 = addr(3);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_cancel(s, &a2, &id, &m), CS_ENOT_OWNER);
    CS_CHECK_EQ_U64(cs_sched_cancel(s, &a3, &id, &m), CS_OK);
    CS_CHECK_EQ_U64(m.cycles, 500);
    CS_CHECK_EQ_U64(cs_sched_cancel(s, &a3, &id, &m), CS_ETIMER_NOT_FOUND);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    CS_CHECK(cs_sched_find(s, &id) == NULL);
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    /* Metered calls that succeeded: six schedules (1 MiB payload, 256-byte
     * handler, 256-byte id, actor 1's fourth, actor 2's, actor 3's) and one
     * cancel; refused calls cost nothing here: 6 * 1,000 + 500 = 6,500. */
    CS_CHECK_EQ_U64(r.st.sched_cycles, 6 * 1000 + 500);
    free(big);
    cs_sched_free(s);
}

static void capped2(cs_params_t *p)
{
    p->max_fires_per_block = 2;
}
static void capped_actor1(cs_params_t *p)
{
    p->max_fires_per_actor = 1;
}

static void test_fifo_capped_carry(void)
{
    /* CIP-5 §9.4: timers that do not make the cut defer with n += 1. */
    cs_sched_t *s = mk("fifo-capped", capped2);
    cs_hash_t id[3];
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    for (int i = 0; i < 3; i++) CS_CHECK_EQ_U64(sched1(s, (uint8_t)(10 + i), 2, "x", &id[i]), CS_OK);
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    r = step(s); /* 2 */
    CS_CHECK_EQ_U64(r.n_deliv, 2);
    CS_CHECK_EQ_U64(r.st.deferred, 1);
    const cs_timer_hot_t *t = find_hot(s, &id[2]);
    CS_CHECK(t != NULL && t->deferrals == 1);
    r = step(s); /* 3: the carried timer fires first */
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK(r.n_deliv == 1 && same_id(&r.deliv[0].timer_id, &id[2]));
    CS_CHECK(r.n_deliv == 1 && r.deliv[0].due_height == 2);
    cs_sched_free(s);

    /* CIP-5 CN §19 vector 4: MAX_FIRES_PER_TARGET = 1, three candidates of
     * one target: only one is delivered per block. */
    s = mk("fifo-capped", capped_actor1);
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    for (int i = 0; i < 3; i++) CS_CHECK_EQ_U64(sched1(s, 20, 2, i == 0 ? "p" : i == 1 ? "q" : "r", &id[i]), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    r = step(s);
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK(r.n_deliv == 1 && same_id(&r.deliv[0].timer_id, &id[0]));
    r = step(s);
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK(r.n_deliv == 1 && same_id(&r.deliv[0].timer_id, &id[1]));
    cs_sched_free(s);
}

static void test_watch_vector2(void)
{
    /* CIP-5 CN §19 vector 2: watch_keys = [k1]; fires in the block where k1
     * is modified and not otherwise.  It stays registered after firing. */
    cs_sched_t *s = mk("fifo", NULL);
    const uint8_t *keys[1] = {(const uint8_t *)"k1"};
    size_t lens[1] = {2};
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = addr(4);
    a.kind = CS_KIND_WATCH;
    a.watch_keys = keys;
    a.watch_key_lens = lens;
    a.n_watch = 1;
    cs_hash_t id;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, &id, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    CS_CHECK_EQ_U64(r.n_deliv, 0);
    /* Block 2: k2 modified, k1 not: nothing. */
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 2), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_write_key(s, (const uint8_t *)"k2", 2), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    CS_CHECK_EQ_U64(r.n_deliv, 0);
    /* Block 3: k1 modified twice in two transactions: one delivery (dedup). */
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 3), CS_OK);
    for (int i = 0; i < 2; i++) {
        CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_write_key(s, (const uint8_t *)"k1", 2), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    }
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK(r.n_deliv == 1 && same_id(&r.deliv[0].timer_id, &id) && r.deliv[0].kind == CS_KIND_WATCH);
    /* Block 4: a rolled-back write does not count. */
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 4), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_write_key(s, (const uint8_t *)"k1", 2), CS_OK);
    cs_sched_tx_rollback(s);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    CS_CHECK_EQ_U64(r.n_deliv, 0);
    CS_CHECK(cs_sched_find(s, &id) != NULL);
    cs_sched_free(s);
}

static void test_interval_vector6(void)
{
    /* CIP-5 CN §19 vector 6: every_blocks = 5; after firing at h the next
     * due_height is h + 5. */
    cs_sched_t *s = mk("fifo", NULL);
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = addr(5);
    a.kind = CS_KIND_INTERVAL;
    a.height = 3;
    a.every_blocks = 5;
    cs_hash_t id;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, &id, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    uint64_t fired_at[8];
    size_t nf = 0;
    for (int h = 2; h <= 20; h++) {
        r = step(s);
        if (r.n_deliv == 1 && nf < 8) fired_at[nf++] = (uint64_t)h;
        if (h == 3) {
            const cs_timer_hot_t *t = find_hot(s, &id);
            CS_CHECK(t != NULL && t->height == 8 && t->fire_seq == 1);
        }
    }
    CS_CHECK_EQ_U64(nf, 4); /* 3, 8, 13, 18 */
    if (nf == 4) {
        CS_CHECK_EQ_U64(fired_at[0], 3);
        CS_CHECK_EQ_U64(fired_at[1], 8);
        CS_CHECK_EQ_U64(fired_at[2], 13);
        CS_CHECK_EQ_U64(fired_at[3], 18);
    }
    cs_sched_free(s);
}

/* Build the same history in a fresh scheduler up to block h0 - 1. */
static cs_sched_t *history(uint64_t h0)
{
    cs_sched_t *s = mk("fifo", NULL);
    cs_block_result_t r;
    for (uint64_t h = 1; h < h0; h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        char pl[32];
        snprintf(pl, sizeof pl, "p%llu", (unsigned long long)h);
        CS_CHECK_EQ_U64(sched1(s, (uint8_t)(h % 5), h + 1 + h % 3, pl, NULL), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    }
    return s;
}

static void test_replay_vector5(void)
{
    /* CIP-5 CN §19 vector 5 / §14: replaying deliver_timers(h) from the same
     * parent state yields the same deliver_ids, and materializing them
     * again adds no mailbox entry. */
    cs_sched_t *s1 = history(10), *s2 = history(10);
    CS_CHECK(memcmp(cs_sched_digest(s1)->b, cs_sched_digest(s2)->b, 32) == 0);
    cs_block_result_t r1, r2;
    cs_hash_t parent = *cs_sched_digest(s1);
    CS_CHECK_EQ_U64(cs_sched_begin_block(s1, 10), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_end_block(s1, &r1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_begin_block(s2, 10), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_end_block(s2, &r2), CS_OK);
    CS_CHECK(r1.n_deliv >= 1);
    CS_CHECK_EQ_U64(r1.n_deliv, r2.n_deliv);
    for (size_t i = 0; i < r1.n_deliv && i < r2.n_deliv; i++) {
        CS_CHECK(same_id(&r1.deliv[i].deliver_id, &r2.deliv[i].deliver_id));
        cs_hash_t want;
        cs_deliver_id(10, &parent, &r1.deliv[i].timer_id, r1.deliv[i].fire_seq, &want);
        CS_CHECK(same_id(&want, &r1.deliv[i].deliver_id));
    }
    size_t before = cs_sched_mailbox_size(s1);
    CS_CHECK_EQ_U64(before, r1.n_deliv);
    for (size_t i = 0; i < r1.n_deliv; i++) CS_CHECK_EQ_U64(cs_sched_mailbox_put(s1, &r1.deliv[i].deliver_id), 0);
    CS_CHECK_EQ_U64(cs_sched_mailbox_size(s1), before);
    CS_CHECK(memcmp(cs_sched_digest(s1)->b, cs_sched_digest(s2)->b, 32) == 0);
    cs_sched_free(s1);
    cs_sched_free(s2);
}

/* The reference element mix (a 64-bit finalizer, written out here). */
static uint64_t ref_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* The pending set's multiset hash against a reference summed here byte by
 * byte: the sum mod 2^256 over the pending timers of their id read as four
 * native 64-bit limbs (limb 0 least significant), with mix(height) folded
 * into limb 0 and mix(fifo_rank ^ 0x9e37...) into limb 1.  A history of
 * inserts, one-shot fires (removals), interval rolls (a removal and an
 * insert) and cancels, checked after every block, so every carry and
 * borrow path of the limb arithmetic meets the reference. */
static void test_setsum_reference(void)
{
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
    return; /* the byte-wise reference reads the limbs as little-endian bytes */
#endif
    cs_sched_t *s = mk("fifo", NULL);
    cs_hash_t ids[64];
    size_t nid = 0;
    for (uint64_t h = 1; h <= 40; h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        char pl[32];
        snprintf(pl, sizeof pl, "setsum %llu", (unsigned long long)(h * 2654435761u));
        cs_hash_t id;
        CS_CHECK_EQ_U64(sched1(s, (uint8_t)(h % 7), h + 1 + h % 4, pl, &id), CS_OK);
        if (nid < 64) ids[nid++] = id;
        if (h % 5 == 0) { /* an interval timer, rolling every 3 blocks */
            cs_sched_args_t a;
            memset(&a, 0, sizeof a);
            a.actor = addr((uint8_t)(40 + h));
            a.kind = CS_KIND_INTERVAL;
            a.height = h + 2;
            a.every_blocks = 3;
            CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
            CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, &id, NULL), CS_OK);
            CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
        }
        if (h % 6 == 0 && nid >= 2) { /* cancel a timer still pending (or fail harmlessly) */
            const cs_hash_t *cid = &ids[nid - 2];
            const cs_timer_t *t = cs_sched_find(s, cid);
            if (t) {
                cs_addr_t owner = *cs_sched_actor_addr(s, t->actor);
                CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
                CS_CHECK_EQ_U64(cs_sched_cancel(s, &owner, cid, NULL), CS_OK);
                CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
            }
        }
        cs_block_result_t r;
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        uint8_t want[32];
        memset(want, 0, sizeof want);
        size_t live = 0;
        for (size_t slot = 0; slot < s->pool_n; slot++) {
            if (!(s->hot[slot].flags & CS_TF_LIVE)) continue;
            live++;
            uint64_t e[4];
            memcpy(e, s->pool[slot].id.b, 32);
            e[0] ^= ref_mix64(s->hot[slot].height);
            e[1] ^= ref_mix64(s->hot[slot].fifo_rank ^ 0x9e3779b97f4a7c15ull);
            uint8_t eb[32];
            memcpy(eb, e, 32);
            unsigned carry = 0;
            for (int k = 0; k < 32; k++) { /* little-endian bytes on this host: byte 0 least significant */
                unsigned v = (unsigned)want[k] + eb[k] + carry;
                want[k] = (uint8_t)v;
                carry = v >> 8;
            }
        }
        CS_CHECK_EQ_U64(live, cs_sched_pending(s));
        CS_CHECK(memcmp(want, s->setsum, 32) == 0);
    }
    cs_sched_free(s);
}

static void test_deliver_id_formula(void)
{
    /* deliver_id = keccak256(h[8 BE] || parent_root || timer_id || fire_seq[4 BE]). */
    cs_hash_t parent, tid, got, want;
    for (int i = 0; i < 32; i++) {
        parent.b[i] = (uint8_t)(i * 7 + 1);
        tid.b[i] = (uint8_t)(255 - i);
    }
    uint8_t buf[76];
    uint64_t h = 0x0102030405060708ull;
    for (int i = 0; i < 8; i++) buf[i] = (uint8_t)(h >> (56 - 8 * i));
    memcpy(buf + 8, parent.b, 32);
    memcpy(buf + 40, tid.b, 32);
    buf[72] = 0;
    buf[73] = 0;
    buf[74] = 1;
    buf[75] = 2;
    cs_keccak256(buf, sizeof buf, want.b);
    cs_deliver_id(h, &parent, &tid, 0x0102, &got);
    CS_CHECK(same_id(&got, &want));

    /* The block's batch (cs_deliver_id_many) on every permutation path this
     * CPU has: ND deliveries (two full batches of CS_KECCAK_BATCH and a
     * partial one of 17, a multiple of no path's width) with distinct timer
     * ids and fire_seqs equal cs_deliver_id one by one. */
    enum { ND = 2 * CS_KECCAK_BATCH + 17 };
    static cs_delivery_t d[ND];
    int prev = cs_keccak_path();
    long bad = 0;
    for (int path = CS_KECCAK_PATH_SCALAR; path <= CS_KECCAK_PATH_AVX2_BMI2; path++) {
        if (cs_keccak_path_set(path) != CS_OK) continue; /* not on this CPU */
        for (int k = 0; k < ND; k++) {
            memset(&d[k], 0, sizeof d[k]);
            for (int i = 0; i < 32; i++) d[k].timer_id.b[i] = (uint8_t)(k * 31 + i * 17 + path);
            d[k].fire_seq = (uint32_t)(k * 2654435761u);
        }
        cs_deliver_id_many(h, &parent, d, ND);
        for (int k = 0; k < ND; k++) {
            cs_deliver_id(h, &parent, &d[k].timer_id, d[k].fire_seq, &want);
            bad += !same_id(&d[k].deliver_id, &want);
        }
    }
    CS_CHECK_EQ_U64(bad, 0);
    CS_CHECK_EQ_U64(cs_keccak_path_set(prev), CS_OK);
}

static void test_cancel_every_tier_and_sys(void)
{
    cs_sched_t *s = mk("fifo", NULL);
    cs_hash_t near, mid, far;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(sched1(s, 1, 50, NULL, &near), CS_OK);       /* tier 1 */
    CS_CHECK_EQ_U64(sched1(s, 1, 20000, NULL, &mid), CS_OK);     /* tier 2 */
    CS_CHECK_EQ_U64(sched1(s, 1, 5000000, NULL, &far), CS_OK);   /* tier 3 */
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    CS_CHECK_EQ_U64(r.st.tiers.ring, 1);
    CS_CHECK_EQ_U64(r.st.tiers.epoch, 1);
    CS_CHECK_EQ_U64(r.st.tiers.tree, 1);
    cs_addr_t a1 = addr(1);
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 2), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_cancel(s, &a1, &near, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_cancel(s, &a1, &far, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    /* SYS_CANCEL_TIMER (opcode 48) removes the tier-2 one. */
    CS_CHECK_EQ_U64(cs_sched_sys_cancel(s, &mid), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_sys_cancel(s, &mid), CS_ETIMER_NOT_FOUND);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    CS_CHECK_EQ_U64(r.st.tiers.ring + r.st.tiers.epoch + r.st.tiers.tree, 0);
    CS_CHECK_EQ_U64(cs_sched_pending(s), 0);
    CS_CHECK_EQ_U64(r.st.cancelled, 3);
    cs_sched_free(s);
}

static void test_ttl_and_extend(void)
{
    /* CIP-1 rev §9 path 2: past expires_at the timer is destroyed via the
     * GC lane instead of firing; SYS_EXTEND_TIMER (opcode 50) moves it. */
    cs_sched_t *s = mk("fifo", NULL);
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = addr(6);
    a.height = 5;
    a.expires_at = 4; /* already expired when it comes due */
    cs_hash_t dead, kept;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, &dead, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, &kept, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_sys_extend(s, &kept, 9), CS_OK);
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    for (int i = 0; i < 3; i++) r = step(s);
    r = step(s); /* 5 */
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK(r.n_deliv == 1 && same_id(&r.deliv[0].timer_id, &kept));
    CS_CHECK_EQ_U64(r.st.expired, 1);
    CS_CHECK_EQ_U64(r.st.gc_destroyed, 1);
    CS_CHECK_EQ_U64(cs_sched_pending(s), 0);
    cs_sched_free(s);
}

/* Schedule one HEIGHT timer with a bid and/or fee caps (0 = not given). */
static int sched_money(cs_sched_t *s, uint8_t actor, uint64_t height, cs_u128 bid, cs_u128 max_fee,
                       cs_u128 max_prio, cs_hash_t *id)
{
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = addr(actor);
    a.kind = CS_KIND_HEIGHT;
    a.height = height;
    a.has_bid = bid != 0;
    a.bid = bid;
    a.has_fees = max_fee != 0;
    a.max_fee = max_fee;
    a.max_prio = max_prio;
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    int rc = cs_sched_schedule(s, &a, id, NULL);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    return rc;
}

/* The record's money entry (DESIGN-NOTES N46): only timers with a bid or
 * fee caps take one, its values are the ones given, a finished timer's
 * entry stays with its slot until the slot is reused, and a released entry
 * is reused before the table grows. */
static void test_money_table(void)
{
    cs_hash_t id[4];
    /* fifo, no bid: no entry at all. */
    cs_sched_t *s = mk("fifo", NULL);
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(sched1(s, 1, 5, "a", &id[0]), CS_OK);
    CS_CHECK_EQ_U64(sched1(s, 2, 6, NULL, &id[1]), CS_OK);
    CS_CHECK_EQ_U64(s->n_money, 0);
    CS_CHECK(s->pool[cs__id_lookup(s, &id[0])].money == CS_NIL);
    cs_sched_free(s);

    /* bias-fp with bids 2,385 and 7,019: one entry each. */
    s = mk("bias-fp", NULL);
    cs_addr_t a1 = addr(1), a2 = addr(2);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a1, 1000000), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a2, 1000000), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(sched_money(s, 1, 9, 2385, 0, 0, &id[0]), CS_OK);
    CS_CHECK_EQ_U64(sched_money(s, 2, 9, 7019, 0, 0, &id[1]), CS_OK);
    CS_CHECK_EQ_U64(sched1(s, 2, 9, "no bid", &id[2]), CS_OK);
    CS_CHECK_EQ_U64(s->n_money, 2);
    CS_CHECK(cs__rec_bid(s, cs__id_lookup(s, &id[0])) == 2385);
    CS_CHECK(cs__rec_bid(s, cs__id_lookup(s, &id[1])) == 7019);
    CS_CHECK(cs__rec_bid(s, cs__id_lookup(s, &id[2])) == 0);
    /* Cancel the first: after the block its slot is free, its entry still
     * held (the bid stays readable for the timer's row). */
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_cancel(s, &a1, &id[0], NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    CS_CHECK_EQ_U64(s->n_money_free, 0);
    /* (The cancel returned the escrow, which zeroes the bid: CIP-5 §9.7.) */
    CS_CHECK(s->pool[0].money != CS_NIL && s->money[s->pool[0].money].bid == 0);
    /* The next timer reuses the slot (the free stack's top) and the freed
     * entry: the table does not grow. */
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 2), CS_OK);
    CS_CHECK_EQ_U64(sched_money(s, 1, 9, 4242, 0, 0, &id[3]), CS_OK);
    CS_CHECK_EQ_U64(s->n_money, 2);
    CS_CHECK_EQ_U64(s->n_money_free, 0);
    CS_CHECK(cs__rec_bid(s, cs__id_lookup(s, &id[3])) == 4242);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    cs_sched_free(s);

    /* eip1559 with fee caps 2,385 / 7 per cycle: kept exactly. */
    s = mk("eip1559", NULL);
    CS_CHECK_EQ_U64(cs_sched_fund(s, &a1, (cs_u128)1 << 80), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    const cs_params_t *p = cs_sched_params(s);
    cs_u128 fee = p->lane_basefee_initial + 2385; /* above the lane basefee (CIP-1 rev §6): 3,385 */
    CS_CHECK_EQ_U64(sched_money(s, 1, 9, 0, fee, 7, &id[0]), CS_OK);
    CS_CHECK_EQ_U64(s->n_money, 1);
    const cs_timer_money_t *m = cs__rec_money(s, cs__id_lookup(s, &id[0]));
    CS_CHECK(m != NULL && m->max_fee == fee && m->max_prio == 7 && m->bid == 0);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    cs_sched_free(s);
}

/*
 * id_at_commit: 20 schedules of three actors in one transaction, one of
 * them cancelled in it by its id, one with a payload routed to a custom
 * handler and one with a 200-byte payload, get the CIP-5 §3.3 ids
 * cs_timer_id gives for (actor, height, payload as given, nonce = the
 * actor's count of earlier schedules), land in the same slots as the same
 * transaction made without the flag, and are found by id; after a
 * caller's id the flag no longer defers (*id_out is written at once).
 */
static void test_id_at_commit(void)
{
    enum { N = 20 };
    static const char routed[] = "{\"_handler\":\"settle\",\"_payload\":\"AQID\"}";
    uint8_t big[200];
    for (int i = 0; i < 200; i++) big[i] = (uint8_t)(i * 7 + 3);
    uint32_t slot[2][N];
    cs_hash_t want[N];
    uint64_t nonce[3] = {0, 0, 0};
    for (int pass = 0; pass < 2; pass++) {
        cs_sched_t *s = mk("fifo", NULL);
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
        for (int i = 0; i < N; i++) {
            cs_sched_args_t a;
            memset(&a, 0, sizeof a);
            a.actor = addr((uint8_t)(1 + i % 3));
            a.kind = CS_KIND_HEIGHT;
            a.height = 2 + (uint64_t)(i * 5 % 7);
            a.payload = i == 4 ? (const uint8_t *)routed : i == 9 ? big : (const uint8_t *)"abc";
            a.payload_len = i == 4 ? sizeof routed - 1 : i == 9 ? sizeof big : (size_t)(i % 4);
            a.id_at_commit = (uint8_t)(pass == 0);
            cs_hash_t id;
            memset(&id, 0x55, sizeof id);
            CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, &id, NULL), CS_OK);
            if (pass == 0) {
                cs_timer_id(&a.actor, a.height, a.payload, a.payload_len, nonce[i % 3]++, &want[i]);
                /* Deferred: id_out untouched, except for the routed payload. */
                CS_CHECK_EQ_U64(id.b[0] == 0x55 && id.b[31] == 0x55, i != 4);
            } else {
                CS_CHECK(same_id(&id, &want[i]));
            }
            if (i == 12) { /* cancel #7 (actor 2) inside the transaction */
                cs_addr_t owner = addr(2);
                CS_CHECK_EQ_U64(cs_sched_cancel(s, &owner, &want[7], NULL), CS_OK);
            }
        }
        CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
        long bad = 0;
        for (int i = 0; i < N; i++) {
            slot[pass][i] = cs_sched_tx_slot(s, (size_t)i);
            if (i == 7) {
                bad += slot[pass][i] != CS_NIL || cs_sched_find(s, &want[i]) != NULL;
                continue;
            }
            const cs_timer_t *t = cs_sched_find(s, &want[i]);
            bad += t == NULL || t != cs_sched_record(s, slot[pass][i]);
        }
        CS_CHECK_EQ_U64(bad, 0);
        CS_CHECK_EQ_U64(cs_sched_tx_slot(s, N), CS_NIL);
        CS_CHECK_EQ_U64(cs_sched_pending(s), N - 1);
        if (pass == 0) {
            /* A caller's 32-byte id; afterwards the flag derives at once. */
            cs_sched_args_t a;
            memset(&a, 0, sizeof a);
            a.actor = addr(1);
            a.kind = CS_KIND_HEIGHT;
            a.height = 9;
            uint8_t cid[32];
            memset(cid, 0x3c, sizeof cid);
            a.timer_id = cid;
            a.timer_id_len = sizeof cid;
            cs_hash_t id;
            CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
            CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, &id, NULL), CS_OK);
            a.timer_id = NULL;
            a.timer_id_len = 0;
            a.id_at_commit = 1;
            memset(&id, 0x55, sizeof id);
            CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, &id, NULL), CS_OK);
            cs_hash_t w;
            cs_timer_id(&a.actor, 9, NULL, 0, nonce[0] + 1, &w); /* actor 1: 7 + 1 earlier schedules */
            CS_CHECK(same_id(&id, &w));
            CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
            CS_CHECK(cs_sched_find(s, &w) == cs_sched_record(s, cs_sched_tx_slot(s, 1)));
        }
        cs_sched_free(s);
    }
    long diff = 0;
    for (int i = 0; i < N; i++) diff += slot[0][i] != slot[1][i];
    CS_CHECK_EQ_U64(diff, 0);
}

/* N100: a payload of zero bytes is not copied (the record keeps NULL) but
 * is delivered as its length in zero bytes, and its id is the CIP-5 §3.3
 * id of those bytes, derived at once or at commit.  A payload that is zero
 * but for its last byte (past the 8-byte words: 67 bytes) is copied; the
 * caller's buffer is overwritten after scheduling, so a delivery that read
 * it instead of a copy or of zeros would show 0xee. */
static void test_zero_payload(void)
{
    enum { N = 5 };
    static const size_t len[N] = {64, 13, 67, 1048576, 64};
    static uint8_t buf[N][1048576];
    cs_sched_t *s = mk("fifo", NULL);
    cs_hash_t want[N], id;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    cs_addr_t a9 = addr(9);
    for (int i = 0; i < N; i++) {
        memset(buf[i], 0, len[i]);
        if (i == 2) buf[i][66] = 0x5a;
        cs_sched_args_t a;
        memset(&a, 0, sizeof a);
        a.actor = a9;
        a.kind = CS_KIND_HEIGHT;
        a.height = 2;
        a.payload = buf[i];
        a.payload_len = len[i];
        a.id_at_commit = (uint8_t)(i % 2); /* #1 and #3 derived at commit */
        cs_timer_id(&a9, 2, buf[i], len[i], (uint64_t)i, &want[i]);
        CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, &id, NULL), CS_OK);
    }
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
    for (int i = 0; i < N; i++) memset(buf[i], 0xee, len[i]);
    for (int i = 0; i < N; i++) {
        const cs_timer_t *t = cs_sched_find(s, &want[i]);
        CS_CHECK(t != NULL && t->payload_len == len[i] && (t->payload == NULL) == (i != 2));
    }
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    r = step(s);
    CS_CHECK_EQ_U64(r.n_deliv, N);
    for (size_t k = 0; k < r.n_deliv && k < N; k++) {
        const cs_delivery_t *d = &r.deliv[k];
        CS_CHECK(same_id(&d->timer_id, &want[k]));
        CS_CHECK_EQ_U64(d->payload_len, len[k]);
        size_t nz = 0;
        for (size_t j = 0; d->payload && j < d->payload_len; j++) nz += d->payload[j] != 0;
        CS_CHECK(d->payload != NULL);
        CS_CHECK_EQ_U64(nz, k == 2 ? 1 : 0);
        CS_CHECK_EQ_U64(d->payload && k == 2 ? d->payload[66] : 0, k == 2 ? 0x5a : 0);
    }
    cs_sched_free(s);
}

/* The slot allocator (DESIGN-NOTES N107).  Ten timers take slots 0-9;
 * five are cancelled in the order 3, 7, 1, 8, 5, so the free stack (last
 * in, first out) holds 3 7 1 8 5 with 5 on top.  Block 64 sorts it (8 7 5
 * 3 1): three timers scheduled at block 65 take slots 1, 3, 5, the lowest,
 * while their logical slots are those the unsorted stack would have given,
 * 5, 8, 1.  cs_sched_slot_order lists the live records by logical slot.
 * With the sorting off the timers take 5, 8, 1 and the two orders agree. */
static void test_dense_slots(void)
{
    static const uint32_t cancel[5] = {3, 7, 1, 8, 5};
    for (int dense = 1; dense >= 0; dense--) {
        cs_sched_t *s = mk("fifo", NULL);
        cs_sched_set_dense(s, dense);
        cs_hash_t id[10], nid[3];
        char pl[16];
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
        for (int i = 0; i < 10; i++) {
            snprintf(pl, sizeof pl, "t%d", i);
            CS_CHECK_EQ_U64(sched1(s, 1, 1000, pl, &id[i]), CS_OK);
            const cs_timer_t *t = cs_sched_find(s, &id[i]);
            CS_CHECK(t != NULL && t - cs_sched_record(s, 0) == i);
        }
        cs_block_result_t r;
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, 2), CS_OK);
        cs_addr_t a1 = addr(1);
        for (int k = 0; k < 5; k++) {
            CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
            CS_CHECK_EQ_U64(cs_sched_cancel(s, &a1, &id[cancel[k]], NULL), CS_OK);
            CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
        }
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        while (cs_sched_height(s) < 64) (void)step(s);
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, 65), CS_OK);
        for (int k = 0; k < 3; k++) {
            snprintf(pl, sizeof pl, "n%d", k);
            CS_CHECK_EQ_U64(sched1(s, 1, 1000, pl, &nid[k]), CS_OK);
        }
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        static const uint32_t want_dense[3] = {1, 3, 5}, want_lifo[3] = {5, 8, 1};
        const uint32_t *want = dense ? want_dense : want_lifo;
        for (int k = 0; k < 3; k++) {
            const cs_timer_t *t = cs_sched_find(s, &nid[k]);
            CS_CHECK(t != NULL && (uint32_t)(t - cs_sched_record(s, 0)) == want[k]);
        }
        uint32_t order[10];
        CS_CHECK_EQ_U64(cs_sched_pool_size(s), 10);
        CS_CHECK_EQ_U64(cs_sched_slot_order(s, order), 10);
        static const uint32_t want_order_dense[10] = {0, 5, 2, UINT32_MAX, 4, 1, 6, UINT32_MAX, 3, 9};
        static const uint32_t want_order_lifo[10] = {0, 1, 2, UINT32_MAX, 4, 5, 6, UINT32_MAX, 8, 9};
        const uint32_t *wo = dense ? want_order_dense : want_order_lifo;
        for (int l = 0; l < 10; l++) CS_CHECK_EQ_U64(order[l], wo[l]);
        cs_sched_free(s);
    }
}

int main(void)
{
    test_insertion_order_and_vector1();
    test_id_at_commit();
    test_deferred_tx_fields();
    test_same_block_and_rollback();
    test_handler_reschedule();
    test_limits_and_metering();
    test_fifo_capped_carry();
    test_watch_vector2();
    test_interval_vector6();
    test_replay_vector5();
    test_setsum_reference();
    test_deliver_id_formula();
    test_cancel_every_tier_and_sys();
    test_ttl_and_extend();
    test_money_table();
    test_zero_payload();
    test_dense_slots();
    return cs_test_done("sched");
}
