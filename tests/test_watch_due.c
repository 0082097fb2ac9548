/* test_watch_due.c -- a STATE_WATCH timer is due in the block its key is
 * modified, and keeps that trigger height as its due height while it is
 * deferred (CIP-5 CN §8.2, §9.3), so its delay and age grow.
 *
 * fifo-capped with MAX_FIRES_PER_BLOCK = 1: 22 height timers due at 2
 * fire one a block in blocks 2..23 (they are older, FIFO by due height).
 * Two watches on key "k", triggered by a write in block 3, wait behind them
 * and are served at 24 and 25: delays 24 - 3 = 21 and 25 - 3 = 22, and in
 * every block in between their candidate rows carry due height 3.  Under
 * the score rule (age_blocks = h - due_height, CIP-5 CN §9) their priority
 * grows by w_age a block while they wait.  A watch re-triggered after it
 * fired is due at the new trigger height. */
#include "cs_sched.h"
#include "cs_test.h"

#include <string.h>

static cs_addr_t addr(uint8_t tag)
{
    cs_addr_t a;
    memset(a.b, 0, sizeof a.b);
    a.b[0] = 0xb7;
    a.b[19] = tag;
    return a;
}

static void cap1(cs_params_t *p) { p->max_fires_per_block = 1; }

static void watch1(cs_sched_t *s, uint8_t actor, cs_hash_t *id)
{
    const uint8_t *keys[1] = {(const uint8_t *)"k"};
    size_t lens[1] = {1};
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = addr(actor);
    a.kind = CS_KIND_WATCH;
    a.watch_keys = keys;
    a.watch_key_lens = lens;
    a.n_watch = 1;
    a.gas_limit = 50000;
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, id, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
}

static void height1(cs_sched_t *s, uint8_t actor, uint64_t h, uint32_t nonce)
{
    cs_sched_args_t a;
    memset(&a, 0, sizeof a);
    a.actor = addr(actor);
    a.kind = CS_KIND_HEIGHT;
    a.height = h;
    a.payload = (const uint8_t *)&nonce;
    a.payload_len = sizeof nonce;
    a.gas_limit = 50000;
    cs_hash_t id;
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_schedule(s, &a, &id, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
}

static void write_k(cs_sched_t *s)
{
    CS_CHECK_EQ_U64(cs_sched_tx_begin(s), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_write_key(s, (const uint8_t *)"k", 1), CS_OK);
    CS_CHECK_EQ_U64(cs_sched_tx_commit(s), CS_OK);
}

/* The row of the timer with this id in a block result, or NULL. */
static const cs_cand_row_t *row_of(const cs_sched_t *s, const cs_block_result_t *r, const cs_hash_t *id)
{
    for (size_t i = 0; i < r->n_rows; i++) {
        const cs_timer_t *t = cs_sched_record(s, r->rows[i].slot);
        if (t && memcmp(t->id.b, id->b, 32) == 0) return &r->rows[i];
    }
    return NULL;
}

static void run(const char *mech)
{
    cs_params_t p;
    cs_params_default(&p);
    cap1(&p);
    cs_sched_t *s = NULL;
    CS_CHECK_EQ_U64(cs_sched_alloc(&s, &p, mech, 0), CS_OK);
    if (s == NULL) return;
    cs_hash_t wa, wb;
    cs_block_result_t r;
    CS_CHECK_EQ_U64(cs_sched_begin_block(s, 1), CS_OK);
    for (uint32_t i = 0; i < 22; i++) height1(s, (uint8_t)(10 + i), 2, i);
    watch1(s, 1, &wa);
    watch1(s, 2, &wb);
    CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    uint64_t fired_at[2] = {0, 0}, delay[2] = {0, 0};
    int rows_ok = 1;
    cs_u128 last_prio = 0;
    int prio_grows = 1;
    for (uint64_t h = 2; h <= 26; h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        if (h == 3) write_k(s);
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
        CS_CHECK_EQ_U64(r.n_deliv, h <= 25 ? 1 : 0);
        for (int w = 0; w < 2; w++) {
            const cs_hash_t *id = w ? &wb : &wa;
            const cs_cand_row_t *row = row_of(s, &r, id);
            if (h >= 3 && (fired_at[w] == 0)) {
                /* a candidate every block from its trigger until it fires */
                if (row == NULL || row->due_height != 3) rows_ok = 0;
                if (w == 0 && row != NULL && h > 3) {
                    if (row->priority <= last_prio) prio_grows = 0;
                }
                if (w == 0 && row != NULL) last_prio = row->priority;
            }
            for (size_t k = 0; k < r.n_deliv; k++)
                if (memcmp(r.deliv[k].timer_id.b, id->b, 32) == 0) {
                    fired_at[w] = h;
                    delay[w] = h - r.deliv[k].due_height;
                    CS_CHECK_EQ_U64(r.st.delay_sum, delay[w]);
                }
        }
    }
    fprintf(stderr, "%s: watches served at %llu and %llu, delays %llu and %llu\n", mech,
            (unsigned long long)fired_at[0], (unsigned long long)fired_at[1], (unsigned long long)delay[0],
            (unsigned long long)delay[1]);
    CS_CHECK_EQ_U64(fired_at[0], 24);
    CS_CHECK_EQ_U64(fired_at[1], 25);
    CS_CHECK_EQ_U64(delay[0], 21);
    CS_CHECK_EQ_U64(delay[1], 22);
    CS_CHECK(rows_ok);
    /* score: priority = w_age * (h - 3) grows every block (fifo-capped's
     * priority field is not a score: checked under score only) */
    if (strcmp(mech, "score") == 0) CS_CHECK(prio_grows);
    /* Re-triggered at 30 after firing: due 30, served at once, delay 0. */
    for (uint64_t h = 27; h <= 30; h++) {
        CS_CHECK_EQ_U64(cs_sched_begin_block(s, h), CS_OK);
        if (h == 30) write_k(s);
        CS_CHECK_EQ_U64(cs_sched_end_block(s, &r), CS_OK);
    }
    CS_CHECK_EQ_U64(r.n_deliv, 1);
    CS_CHECK(r.n_deliv == 1 && memcmp(r.deliv[0].timer_id.b, wa.b, 32) == 0 && r.deliv[0].due_height == 30);
    const cs_cand_row_t *rb = row_of(s, &r, &wb);
    CS_CHECK(rb != NULL && rb->due_height == 30 && rb->outcome == CS_OUT_DEFERRED);
    cs_sched_free(s);
}

int main(void)
{
    run("fifo-capped");
    run("score");
    return cs_test_done("watch_due");
}
