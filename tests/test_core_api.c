/*
 * test_core_api.c -- the argument checks of the core's small public entry
 * points, each with its documented answer (cs_mech.h, cs_params.h,
 * cs_mech_bias.h, cs_mech_int.h): cs_mech_open / clear / end_block / close
 * refuse or ignore what is missing (CS_EINVAL; a failing init with no fini
 * leaves nothing), the parameter choice lists answer -1 or "" for what
 * they do not hold and truncate to the buffer, and the per-mechanism
 * read-outs (gba-tip weight, lambda) give 0 for another mechanism; the
 * hash map answers "nothing" before it is initialised and refuses a size
 * beyond 2^32 cells; e^x x scale saturates at 2^128 - 1 on each of its
 * three overflow paths (CIP-5 §9.2's Bias, cs_fixed.h); the ledger check
 * and the tally (DESIGN §2.6) refuse corrupted sums that overflow 128 bits
 * and counters at 2^64 - 1, with or without a message buffer; the
 * fairness window must be 1 .. 2^32 - 1 blocks, and its snapshot fills
 * only the arrays it is given; every mechanism refuses a candidate of 0
 * cycles (CS_EINVAL, cs_mech.h), and eip1559 orders two candidates equal
 * in tip and timer id by their schedule height.
 */
#include <string.h>

#include "cs_error.h"
#include "cs_fairness.h"
#include "cs_fixed.h"
#include "cs_gba.h"
#include "cs_hmap.h"
#include "cs_ledger.h"
#include "cs_mech.h"
#include "cs_mech_bias.h"
#include "cs_params.h"
#include "cs_test.h"

static int g_clears;

static int failing_init(void *state, const cs_params_t *p)
{
    (void)state;
    (void)p;
    return CS_EOVERFLOW;
}

static int counting_clear(void *state, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n, cs_clear_out_t *out)
{
    (void)state, (void)ctx, (void)c;
    g_clears++;
    out->fired = (uint32_t)n;
    return CS_OK;
}

static void test_mech(void)
{
    cs_params_t p;
    cs_params_default(&p);
    static const cs_mech_ops_t noclear = {.name = "t-noclear", .version = 1};
    static const cs_mech_ops_t badinit = {.name = "t-badinit", .version = 1, .init = failing_init,
                                          .clear = counting_clear};
    static const cs_mech_ops_t plain = {.name = "t-plain", .version = 1, .clear = counting_clear};
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(NULL, &plain, &p), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_mech_open(&m, NULL, &p), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_mech_open(&m, &noclear, &p), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_mech_open(&m, &plain, NULL), CS_EINVAL);
    /* init's own error comes back; no fini to run; the state is gone. */
    CS_CHECK_EQ_U64(cs_mech_open(&m, &badinit, &p), CS_EOVERFLOW);
    CS_CHECK(m.state == NULL && m.ops == NULL);
    /* A mechanism with no state size and no end_block hook. */
    CS_CHECK_EQ_U64(cs_mech_open(&m, &plain, &p), CS_OK);
    cs_clear_ctx_t ctx = {.p = &p, .height = 3, .budget_cycles = 100};
    cs_clear_ctx_t noparams = {.p = NULL, .height = 3, .budget_cycles = 100};
    cs_clear_out_t out;
    cs_cand_t c[2];
    memset(c, 0, sizeof c);
    CS_CHECK_EQ_U64(cs_mech_clear(NULL, &ctx, c, 2, &out), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, NULL, c, 2, &out), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &noparams, c, 2, &out), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 2, NULL), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, NULL, 2, &out), CS_EINVAL);
    CS_CHECK_EQ_U64(g_clears, 0);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, NULL, 0, &out), CS_OK);
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 2, &out), CS_OK);
    CS_CHECK_EQ_U64(g_clears, 2);
    CS_CHECK_EQ_U64(out.fired, 2);
    cs_mech_end_block(&m, &ctx, c, 2, &out); /* no hook: nothing */
    cs_mech_end_block(NULL, &ctx, c, 2, &out);
    /* Read-outs of other mechanisms: 0. */
    CS_CHECK_EQ_U64(cs_mech_lambda(&m), 0);
    CS_CHECK_EQ_U64(cs_mech_lambda(NULL), 0);
    cs_mech_lambda_observe(&m, 1); /* not a bias mechanism: ignored */
    cs_mech_lambda_observe(NULL, 1);
    CS_CHECK_EQ_U64(cs_mech_gba_weight(&m, 1, 10), 0);
    CS_CHECK_EQ_U64(cs_mech_gba_weight(NULL, 1, 10), 0);
    cs_mech_close(&m);
    CS_CHECK(m.state == NULL && m.ops == NULL);
    cs_mech_end_block(&m, &ctx, c, 2, &out); /* closed: nothing */
    cs_mech_close(&m); /* twice: safe */
    cs_mech_close(NULL);
    /* gba-tip before any block: no identity has a weight yet. */
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("gba-tip"), &p), CS_OK);
    CS_CHECK_EQ_U64(cs_mech_gba_weight(&m, 7, 10), 0);
    cs_mech_close(&m);
}

static void test_choices(void)
{
    const cs_param_desc_t *rule = cs_param_find("basefee_rule"), *lam = cs_param_find("lambda");
    CS_CHECK(rule != NULL && lam != NULL);
    CS_CHECK(cs_param_find("no_such_param") == NULL);
    if (!rule || !lam) return;
    CS_CHECK_EQ_U64(cs_param_choice(rule, "eip1559"), CS_BASEFEE_EIP1559);
    CS_CHECK_EQ_U64(cs_param_choice(rule, "additive"), CS_BASEFEE_ADDITIVE);
    CS_CHECK(cs_param_choice(rule, "eip") == -1);      /* a prefix is not a choice */
    CS_CHECK(cs_param_choice(rule, "cip1x") == -1);
    CS_CHECK(cs_param_choice(lam, "on") == -1);        /* no choices at all */
    char buf[16];
    CS_CHECK_STR(cs_param_choice_name(rule, CS_BASEFEE_ADDITIVE, buf, sizeof buf), "additive");
    CS_CHECK_STR(cs_param_choice_name(rule, CS_BASEFEE_EIP1559, buf, 4), "eip");
    CS_CHECK_STR(cs_param_choice_name(rule, 9, buf, sizeof buf), "");
    CS_CHECK_STR(cs_param_choice_name(lam, 0, buf, sizeof buf), "");
    /* cap 0: nothing written (it used to write buf[0], one byte past a
     * zero-byte buffer). */
    buf[0] = 'x';
    CS_CHECK(cs_param_choice_name(rule, 0, buf, 0) == buf && buf[0] == 'x');
}

static void test_hmap_fixed(void)
{
    cs__hmap_t m;
    memset(&m, 0, sizeof m);
    size_t it = 0;
    CS_CHECK_EQ_U64(cs__hmap_next(&m, 5, &it), CS__HEMPTY);
    CS_CHECK_EQ_U64(cs__hmap_del(&m, 5, 1), 0);
    CS_CHECK_EQ_U64(cs__hmap_bytes(&m), 0);
    cs__hmap_clear(&m); /* nothing to clear */
    CS_CHECK_EQ_U64(cs__hmap_bytes(&m), 0);
    CS_CHECK(cs__hmap_init(&m, (size_t)1 << 33, CS__HMAP_HALF) == -1); /* > 2^32 cells */
    CS_CHECK(m.cells == NULL);
    /* e^x x scale >= 2^128 in each shift case (e^43 = 2^62.04, e^50 = 2^72.13):
     * k = 62 (no shift): e^43 x 2^67 = 2^129.04; k = 72: e^50 x 2^70 =
     * 2^142.1 (the product already above 2^128) and e^50 x 2^60 = 2^132.1
     * (the product fits, the shift does not). */
    const cs_u128 max = ~(cs_u128)0;
    CS_CHECK(cs_fixed_exp_scaled(43000000000ull, (cs_u128)1 << 67) == max);
    CS_CHECK(cs_fixed_exp_scaled(50000000000ull, (cs_u128)1 << 70) == max);
    CS_CHECK(cs_fixed_exp_scaled(50000000000ull, (cs_u128)1 << 60) == max);
    /* ... and just below: e^50 x 2^50 = 2^122.1 fits: within 2^-50 of
     * 5.184705528587072e21 x 2^50. */
    double want = 5.184705528587072e21 * 1125899906842624.0, got = (double)cs_fixed_exp_scaled(50000000000ull, (cs_u128)1 << 50);
    CS_CHECK(got > want * (1 - 1e-12) && got < want * (1 + 1e-12));
}

static void test_ledger_tally(void)
{
    const cs_u128 max = ~(cs_u128)0, half = (cs_u128)1 << 127;
    char msg[300];
    cs_ledger_t l;
    cs_ledger_init(&l);
    CS_CHECK_EQ_U64(cs_ledger_reserve(&l, 2), CS_OK);
    /* Corrupted by hand: two escrows of 2^127 overflow the sum. */
    l.esc[0] = l.esc[1] = half;
    CS_CHECK_EQ_U64(cs_ledger_check(&l, msg, sizeof msg), CS_EINVARIANT);
    CS_CHECK_STR(msg, "ledger: sum of balances or escrows overflows 128 bits");
    /* Escrows 5 against a total of 4; no message buffer. */
    l.esc[0] = 2;
    l.esc[1] = 3;
    l.tot.escrow = 4;
    CS_CHECK_EQ_U64(cs_ledger_check(&l, NULL, 0), CS_EINVARIANT);
    l.tot.escrow = 5;
    /* initial + minted overflows. */
    l.tot.initial = max;
    l.tot.minted = 1;
    CS_CHECK_EQ_U64(cs_ledger_check(&l, msg, 0), CS_EINVARIANT);
    /* balances + escrow + burned, then + proposer, overflow. */
    l.tot.initial = 5;
    l.tot.minted = 0;
    l.tot.burned = max;
    CS_CHECK_EQ_U64(cs_ledger_check(&l, msg, sizeof msg), CS_EINVARIANT);
    CS_CHECK(strncmp(msg, "ledger: balances 0 + escrow 5 + burned ", 39) == 0);
    l.tot.burned = 0;
    l.tot.proposer = max;
    CS_CHECK_EQ_U64(cs_ledger_check(&l, NULL, 0), CS_EINVARIANT);
    l.tot.proposer = 0;
    CS_CHECK_EQ_U64(cs_ledger_check(&l, msg, sizeof msg), CS_OK); /* 0 + 5 + 0 + 0 = 5 + 0 */
    cs_ledger_free(&l);

    cs_tally_t t;
    memset(&t, 0, sizeof t);
    t.scheduled = UINT64_MAX;
    CS_CHECK_EQ_U64(cs_ledger_tally_schedule(&t), CS_EOVERFLOW);
    t.scheduled = 0;
    t.pending = UINT64_MAX;
    CS_CHECK_EQ_U64(cs_ledger_tally_schedule(&t), CS_EOVERFLOW);
    CS_CHECK(t.scheduled == 0 && t.pending == UINT64_MAX);
    t.pending = 1;
    t.fire_events = UINT64_MAX;
    CS_CHECK_EQ_U64(cs_ledger_tally_fire(&t, 0), CS_EOVERFLOW);
    CS_CHECK_EQ_U64(cs_ledger_tally_fire(&t, 1), CS_EOVERFLOW);
    CS_CHECK(t.fired == 0 && t.pending == 1);
    /* scheduled 0 != pending 1; no buffer.  Then pending 1 against a queue
     * of 2 with a zero-size buffer: the buffer is not written. */
    CS_CHECK_EQ_U64(cs_ledger_tally_check(&t, UINT64_MAX, NULL, 0), CS_EINVARIANT);
    t.scheduled = 1;
    msg[0] = 'x';
    CS_CHECK_EQ_U64(cs_ledger_tally_check(&t, 2, msg, 0), CS_EINVARIANT);
    CS_CHECK(msg[0] == 'x');
    CS_CHECK_EQ_U64(cs_ledger_tally_check(&t, 1, NULL, 0), CS_OK);
}

static void test_fairness_args(void)
{
    cs_params_t p;
    cs_params_default(&p);
    cs_fairness_t f;
    p.fairness_window = 0;
    CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_EINVAL);
    p.fairness_window = (uint64_t)UINT32_MAX + 1;
    CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_EINVAL);
    p.fairness_window = 10;
    CS_CHECK_EQ_U64(cs_fairness_init(&f, &p), CS_OK);
    /* Block 1: identity 7 fires twice, 3 once; at block 2 both are in the
     * window.  A snapshot with only recent[]: 3 -> 1, 7 -> 2 (identity order). */
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_add_fire(&f, 7), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_add_fire(&f, 7), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_add_fire(&f, 3), CS_OK);
    CS_CHECK_EQ_U64(cs_fairness_begin_block(&f, 2), CS_OK);
    uint64_t recent[4] = {0, 0, 0, 0};
    CS_CHECK_EQ_U64(cs_fairness_snapshot(&f, NULL, recent, NULL, 4), 2);
    CS_CHECK(recent[0] == 1 && recent[1] == 2 && recent[2] == 0);
    cs_fairness_free(&f);
}

static void test_mech_inputs(void)
{
    CS_CHECK_STR(cs_gba_tier_name(-1), "?");
    CS_CHECK_STR(cs_gba_tier_name(CS_PTIER__COUNT), "?");
    static const char *const names[] = {"fifo", "fifo-capped", "eip1559", "greedy", "score", "bias-vcg",
                                        "bias-fp", "gba-tip", "slot-booking", "priority-classes"};
    cs_params_t p;
    cs_params_default(&p);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        cs_mech_t m;
        CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find(names[k]), &p), CS_OK);
        cs_cand_t c[2];
        memset(c, 0, sizeof c);
        for (int i = 0; i < 2; i++) {
            c[i].slot = (uint32_t)i;
            c[i].id.b[0] = (uint8_t)(i + 1);
            c[i].cycles = (uint64_t)i * 1000; /* the first has 0 cycles */
            c[i].due_height = 3;
            c[i].max_fee = c[i].bid = 1000000;
        }
        cs_clear_ctx_t ctx = {.p = &p, .height = 5, .budget_cycles = 100000};
        cs_clear_out_t out;
        int rc = cs_mech_clear(&m, &ctx, c, 2, &out);
        if (rc != CS_EINVAL) fprintf(stderr, "%s: a 0-cycle candidate gave %d\n", names[k], rc);
        CS_CHECK_EQ_U64(rc, CS_EINVAL);
        cs_mech_close(&m);
    }
    /* eip1559: equal tips (max_prio 7, fee room) and equal ids: the lower
     * schedule height first, so with room for one only it wins. */
    cs_mech_t m;
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("eip1559"), &p), CS_OK);
    cs_cand_t c[2];
    memset(c, 0, sizeof c);
    for (int i = 0; i < 2; i++) {
        c[i].slot = (uint32_t)i;
        c[i].id.b[0] = 9;
        c[i].cycles = 1000;
        c[i].due_height = 3;
        c[i].sched_height = (uint64_t)(2 - i); /* c[1] was scheduled first */
        c[i].max_fee = 1000000;
        c[i].max_prio = 7;
        c[i].balance = (cs_u128)1 << 80;
    }
    cs_clear_ctx_t ctx = {.p = &p, .height = 5, .budget_cycles = 1000};
    cs_clear_out_t out;
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 2, &out), CS_OK);
    CS_CHECK(!c[0].selected && c[1].selected);
    cs_mech_close(&m);
    /* score (CIP-5 CN §9.1, w_age = w_bid = 1): bids of 2^127 - 1 (age 0)
     * and 2^126 (age 2) both count as the cap 2^125, so the older one
     * scores 2^125 + 2 against 2^125 and takes the one fire's room. */
    CS_CHECK_EQ_U64(cs_mech_open(&m, cs_mech_find("score"), &p), CS_OK);
    memset(c, 0, sizeof c);
    for (int i = 0; i < 2; i++) {
        c[i].slot = (uint32_t)i;
        c[i].id.b[0] = (uint8_t)(i + 1);
        c[i].cycles = 1000;
        c[i].due_height = (uint64_t)(5 - 2 * i);
        c[i].bid = i == 0 ? ~(cs_u128)0 >> 1 : (cs_u128)1 << 126;
        c[i].balance = ~(cs_u128)0;
    }
    CS_CHECK_EQ_U64(cs_mech_clear(&m, &ctx, c, 2, &out), CS_OK);
    CS_CHECK(!c[0].selected && c[1].selected);
    cs_mech_close(&m);
}

int main(void)
{
    test_mech_inputs();
    test_fairness_args();
    test_ledger_tally();
    test_hmap_fixed();
    test_mech();
    test_choices();
    return cs_test_done("core_api");
}
