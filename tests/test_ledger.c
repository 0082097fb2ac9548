/* test_ledger.c -- the ledger (DESIGN §2.6; CIP-1 rev §3 step 8; CIP-5 §9.7) and
 * the timer-accounting tally.  Every expected value is computed by hand in
 * the comment beside it. */
#include "cs_test.h"

#include "cs_ledger.h"
#include "cs_params.h"

#include <stdlib.h>

#define CHECK_U128(a, b)                                                                 \
    do {                                                                                 \
        cs_u128 cs__x = (a), cs__y = (b);                                                \
        if (cs__x == cs__y) cs_test_pass++;                                              \
        else {                                                                           \
            char cs__bx[48], cs__by[48], cs__d[112];                                     \
            snprintf(cs__d, sizeof cs__d, "%s != %s", cs_u128_fmt(cs__x, cs__bx),        \
                     cs_u128_fmt(cs__y, cs__by));                                        \
            cs_test_failed(__FILE__, __LINE__, #a " == " #b, cs__d);                     \
        }                                                                                \
    } while (0)

/* A copy of everything observable, to prove failed operations change nothing. */
typedef struct snap {
    uint32_t n;
    cs_u128 bal[64], esc[64];
    cs_ledger_totals_t tot;
} snap_t;

static void take(const cs_ledger_t *l, snap_t *s)
{
    memset(s, 0, sizeof *s);
    s->n = l->n;
    for (uint32_t i = 0; i < l->n && i < 64; i++) {
        s->bal[i] = l->bal[i];
        s->esc[i] = l->esc[i];
    }
    s->tot = l->tot;
}

static int same(const cs_ledger_t *l, const snap_t *s)
{
    snap_t now;
    take(l, &now);
    return memcmp(&now, s, sizeof now) == 0;
}

static void test_fund_transfer_charge(void)
{
    cs_ledger_t l;
    snap_t s;
    char msg[256];
    cs_ledger_init(&l);

    CS_CHECK_EQ_U64(cs_ledger_fund(&l, 3, 1000003), CS_OK);
    CS_CHECK_EQ_U64(l.n, 4);                           /* index 3 -> 4 accounts */
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 0), 0);      /* new accounts start at 0 */
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 3), 1000003);
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 999), 0);    /* never seen -> 0 */
    CS_CHECK_EQ_U64(cs_ledger_fund(&l, 1, 2385), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_mint(&l, 1, 615), CS_OK);
    CHECK_U128(l.tot.initial, 1002388);                /* 1,000,003 + 2,385 */
    CHECK_U128(l.tot.minted, 615);
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 1), 3000);   /* 2,385 + 615 */

    /* transfer 1,234 from 3 to a new index 7: grows the table */
    CS_CHECK_EQ_U64(cs_ledger_transfer(&l, 3, 7, 1234), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 3), 998769); /* 1,000,003 - 1,234 */
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 7), 1234);
    CS_CHECK_EQ_U64(l.n, 8);

    /* insufficient: 1 has 3,000 */
    take(&l, &s);
    CS_CHECK_EQ_U64(cs_ledger_transfer(&l, 1, 2, 3001), CS_EINSUFFICIENT_FUNDS);
    CS_CHECK(same(&l, &s));
    CS_CHECK_EQ_U64(cs_ledger_transfer(&l, 40, 2, 1), CS_EINSUFFICIENT_FUNDS); /* unknown payer */
    CS_CHECK(same(&l, &s));
    CS_CHECK_EQ_U64(cs_ledger_transfer(&l, 1, 1, 3000), CS_OK); /* self: no-op */
    CS_CHECK(same(&l, &s));

    /* charges: 1 pays 1,111 burned and 889 to the proposer -> 1,000 left */
    CS_CHECK_EQ_U64(cs_ledger_charge_burn(&l, 1, 1111), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_charge_proposer(&l, 1, 889), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 1), 1000);
    CHECK_U128(l.tot.burned, 1111);
    CHECK_U128(l.tot.proposer, 889);
    take(&l, &s);
    CS_CHECK_EQ_U64(cs_ledger_charge_burn(&l, 1, 1001), CS_EINSUFFICIENT_FUNDS);
    CS_CHECK_EQ_U64(cs_ledger_charge(&l, 1, 5, (cs_ledger_dest)7), CS_EINVAL);
    CS_CHECK(same(&l, &s));
    CS_CHECK_EQ_U64(cs_ledger_check(&l, msg, sizeof msg), CS_OK);
    CS_CHECK_STR(msg, "");

    /* D9 mapping */
    CS_CHECK_EQ_U64(cs_ledger_dest_of(CS_PAY_PROPOSER), CS_DEST_PROPOSER);
    CS_CHECK_EQ_U64(cs_ledger_dest_of(CS_PAY_BURN), CS_DEST_BURN);
    cs_ledger_free(&l);
    CS_CHECK_EQ_U64(l.n, 0);
    cs_ledger_free(&l); /* twice is safe */
}

static void test_overflow(void)
{
    cs_ledger_t l;
    snap_t s;
    cs_ledger_init(&l);
    /* 2^128 - 11 funded: any further 11 units of creation overflow the total */
    CS_CHECK_EQ_U64(cs_ledger_fund(&l, 0, CS_U128_MAX - 10), CS_OK);
    take(&l, &s);
    CS_CHECK_EQ_U64(cs_ledger_fund(&l, 1, 11), CS_EOVERFLOW);  /* initial overflows */
    CS_CHECK(same(&l, &s));
    CS_CHECK_EQ_U64(l.n, 1); /* the failed credit did not grow the table */
    CS_CHECK_EQ_U64(cs_ledger_mint(&l, 0, 11), CS_EOVERFLOW);  /* balance overflows */
    CS_CHECK(same(&l, &s));
    CS_CHECK_EQ_U64(cs_ledger_mint(&l, 2, 10), CS_OK);          /* exactly 2^128 - 1 */
    CHECK_U128(l.tot.initial + l.tot.minted, CS_U128_MAX);
    CS_CHECK_EQ_U64(cs_ledger_check(&l, NULL, 0), CS_OK);

    /* A destination balance that would overflow can only arise in a corrupted
     * ledger; the transfer still refuses rather than wrapping. */
    l.bal[2] = CS_U128_MAX; /* deliberate corruption */
    take(&l, &s);
    CS_CHECK_EQ_U64(cs_ledger_transfer(&l, 0, 2, 1), CS_EOVERFLOW);
    CS_CHECK(same(&l, &s));
    CS_CHECK_EQ_U64(cs_ledger_check(&l, NULL, 0), CS_EINVARIANT);
    CS_CHECK_EQ_U64(cs_ledger_fund(&l, UINT32_MAX, 1), CS_EINVAL); /* index cannot exist */
    cs_ledger_free(&l);
}

static void test_escrow(void)
{
    cs_ledger_t l;
    snap_t s;
    cs_ledger_init(&l);
    CS_CHECK_EQ_U64(cs_ledger_reserve(&l, 10), CS_OK);
    CS_CHECK_EQ_U64(l.n, 10);
    CS_CHECK_EQ_U64(cs_ledger_fund(&l, 4, 50000), CS_OK);
    /* CIP-5 §9.7: lock two bids, 12,500 and 7,321 */
    CS_CHECK_EQ_U64(cs_ledger_escrow_lock(&l, 4, 12500), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_escrow_lock(&l, 4, 7321), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 4), 30179);   /* 50,000 - 19,821 */
    CS_CHECK_EQ_U64(cs_ledger_escrowed(&l, 4), 19821);  /* 12,500 + 7,321 */
    CHECK_U128(l.tot.escrow, 19821);
    take(&l, &s);
    CS_CHECK_EQ_U64(cs_ledger_escrow_lock(&l, 4, 30180), CS_EINSUFFICIENT_FUNDS);
    CS_CHECK_EQ_U64(cs_ledger_escrow_release(&l, 4, 19822), CS_EINSUFFICIENT_FUNDS);
    CS_CHECK_EQ_U64(cs_ledger_escrow_pay(&l, 5, 1, CS_DEST_BURN), CS_EINSUFFICIENT_FUNDS);
    CS_CHECK_EQ_U64(cs_ledger_escrow_settle(&l, 4, 100, 101, CS_DEST_BURN), CS_EINVAL);
    CS_CHECK_EQ_U64(cs_ledger_escrow_settle(&l, 4, 100, 1, (cs_ledger_dest)9), CS_EINVAL);
    CS_CHECK(same(&l, &s));

    /* First bid wins and pays 9,876 to the proposer; 12,500 - 9,876 = 2,624 refunded. */
    CS_CHECK_EQ_U64(cs_ledger_escrow_settle(&l, 4, 12500, 9876, CS_DEST_PROPOSER), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 4), 32803);  /* 30,179 + 2,624 */
    CS_CHECK_EQ_U64(cs_ledger_escrowed(&l, 4), 7321);   /* 19,821 - 12,500 */
    CHECK_U128(l.tot.proposer, 9876);
    /* Second bid: 1,000 burned from escrow, then the remaining 6,321 released. */
    CS_CHECK_EQ_U64(cs_ledger_escrow_pay(&l, 4, 1000, CS_DEST_BURN), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_escrow_release(&l, 4, 6321), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 4), 39124);   /* 32,803 + 6,321 */
    CS_CHECK_EQ_U64(cs_ledger_escrowed(&l, 4), 0);
    CHECK_U128(l.tot.escrow, 0);
    CHECK_U128(l.tot.burned, 1000);
    /* 39,124 + 0 + 1,000 + 9,876 = 50,000 = initial */
    CS_CHECK_EQ_U64(cs_ledger_check(&l, NULL, 0), CS_OK);
    cs_ledger_free(&l);
}

/* The worked fire of the report: every number below by hand. */
static cs_fire_charge_t worked_fire(void)
{
    cs_fire_charge_t c;
    memset(&c, 0, sizeof c);
    c.gas_limit = 250000;
    c.max_cells = 3000;
    c.used_cycles = 187431;
    c.used_cells = 1209;
    c.basefee_cycle = 7;
    c.basefee_lane = 1125;
    c.tip_rate = 37;
    c.basefee_cell = 13;
    c.payments_to = CS_PAY_PROPOSER;
    return c;
}

static void test_settle_fire(void)
{
    cs_ledger_t l;
    snap_t s;
    cs_fire_bill_t b;
    cs_u128 mc;
    cs_ledger_init(&l);
    CS_CHECK_EQ_U64(cs_ledger_fund(&l, 2, 300000000), CS_OK);

    cs_fire_charge_t c = worked_fire();
    /* rate = 7 + 1,125 + 37 = 1,169 per cycle
     * max_cost = 250,000 * 1,169 + 3,000 * 13 = 292,250,000 + 39,000 = 292,289,000 */
    CS_CHECK_EQ_U64(cs_ledger_max_cost(&c, &mc), CS_OK);
    CHECK_U128(mc, 292289000);
    CS_CHECK_EQ_U64(cs_ledger_settle_fire(&l, 2, &c, &b), CS_OK);
    CHECK_U128(b.max_cost, 292289000);
    /* actual = 187,431 * 1,169 + 1,209 * 13 = 219,106,839 + 15,717 = 219,122,556 */
    CHECK_U128(b.actual, 219122556);
    CHECK_U128(b.refund, 73166444);      /* 292,289,000 - 219,122,556 */
    CHECK_U128(b.burn_cycle, 1312017);   /* 187,431 * 7 */
    CHECK_U128(b.burn_lane, 210859875);  /* 187,431 * 1,125 */
    CHECK_U128(b.burn_cell, 15717);      /* 1,209 * 13 */
    CHECK_U128(b.tip, 6934947);          /* 187,431 * 37 */
    CHECK_U128(b.lump, 0);
    CHECK_U128(b.to_proposer, 6934947);
    CHECK_U128(b.burned, 212187609);     /* 1,312,017 + 210,859,875 + 15,717 */
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 2), 80877444); /* 300,000,000 - 219,122,556 */
    CHECK_U128(l.tot.burned, 212187609);
    CHECK_U128(l.tot.proposer, 6934947);
    CS_CHECK_EQ_U64(cs_ledger_check(&l, NULL, 0), CS_OK);

    /* Same fire, D9 payments_to = burn and a 5,000 lump-sum payment:
     * max_cost = 292,294,000 > balance 80,877,444 -> insufficient, nothing moves. */
    c.payments_to = CS_PAY_BURN;
    c.lump = 5000;
    take(&l, &s);
    memset(&b, 0xab, sizeof b);
    cs_fire_bill_t b0 = b;
    CS_CHECK_EQ_U64(cs_ledger_settle_fire(&l, 2, &c, &b), CS_EINSUFFICIENT_FUNDS);
    CS_CHECK(same(&l, &s));
    CS_CHECK(memcmp(&b, &b0, sizeof b) == 0); /* bill untouched */
    CS_CHECK_EQ_U64(cs_ledger_mint(&l, 2, 250000000), CS_OK); /* 330,877,444 */
    CS_CHECK_EQ_U64(cs_ledger_settle_fire(&l, 2, &c, &b), CS_OK);
    CHECK_U128(b.max_cost, 292294000);   /* 292,289,000 + 5,000 */
    CHECK_U128(b.actual, 219127556);     /* 219,122,556 + 5,000 */
    CHECK_U128(b.refund, 73166444);      /* the lump is never refunded */
    CHECK_U128(b.to_proposer, 0);
    CHECK_U128(b.burned, 219127556);     /* everything burned under D9 = burn */
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 2), 111749888); /* 330,877,444 - 219,127,556 */
    CHECK_U128(l.tot.burned, 431315165); /* 212,187,609 + 219,127,556 */
    CHECK_U128(l.tot.proposer, 6934947);
    CS_CHECK_EQ_U64(cs_ledger_check(&l, NULL, 0), CS_OK);

    /* Boundary: max_cost = 10 * 3 = 30. A balance of 29 fails, 30 passes. */
    cs_fire_charge_t e;
    memset(&e, 0, sizeof e);
    e.gas_limit = 10;
    e.used_cycles = 10;
    e.basefee_cycle = 3;
    CS_CHECK_EQ_U64(cs_ledger_fund(&l, 5, 29), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_settle_fire(&l, 5, &e, NULL), CS_EINSUFFICIENT_FUNDS);
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 5), 29);
    CS_CHECK_EQ_U64(cs_ledger_settle_fire(&l, 9, &e, NULL), CS_EINSUFFICIENT_FUNDS); /* unknown */
    CS_CHECK_EQ_U64(cs_ledger_mint(&l, 5, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_settle_fire(&l, 5, &e, NULL), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 5), 0);
    /* Nothing used, nothing paid: max_cost 30 pre-charged and fully refunded. */
    CS_CHECK_EQ_U64(cs_ledger_mint(&l, 5, 30), CS_OK);
    e.used_cycles = 0;
    CS_CHECK_EQ_U64(cs_ledger_settle_fire(&l, 5, &e, &b), CS_OK);
    CHECK_U128(b.refund, 30);
    CS_CHECK_EQ_U64(cs_ledger_balance(&l, 5), 30);

    /* Error paths: used above the limits, and overflowing max_cost. */
    take(&l, &s);
    e.used_cycles = 11;
    CS_CHECK_EQ_U64(cs_ledger_settle_fire(&l, 5, &e, NULL), CS_EINVAL);
    e.used_cycles = 10;
    e.max_cells = 4;
    e.used_cells = 5;
    CS_CHECK_EQ_U64(cs_ledger_settle_fire(&l, 5, &e, NULL), CS_EINVAL);
    e.used_cells = 4;
    e.basefee_cycle = CS_U128_MAX;
    e.basefee_lane = 1; /* the rate sum overflows */
    CS_CHECK_EQ_U64(cs_ledger_max_cost(&e, &mc), CS_EOVERFLOW);
    CS_CHECK_EQ_U64(cs_ledger_settle_fire(&l, 5, &e, NULL), CS_EOVERFLOW);
    e.basefee_lane = 0;
    e.basefee_cycle = CS_U128_MAX / 5; /* 10 * (2^128-1)/5 overflows */
    CS_CHECK_EQ_U64(cs_ledger_settle_fire(&l, 5, &e, NULL), CS_EOVERFLOW);
    e.basefee_cycle = 0;
    e.basefee_cell = CS_U128_MAX / 4; /* 4 cells: 4 * floor((2^128-1)/4) fits ... */
    e.lump = 4;                        /* ... but + 4 does not */
    CS_CHECK_EQ_U64(cs_ledger_max_cost(&e, &mc), CS_EOVERFLOW);
    CS_CHECK(same(&l, &s));
    cs_ledger_free(&l);
}

static void test_check_detects_corruption(void)
{
    cs_ledger_t l;
    char msg[256];
    cs_ledger_init(&l);
    CS_CHECK_EQ_U64(cs_ledger_fund(&l, 0, 100), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_charge_burn(&l, 0, 30), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_escrow_lock(&l, 0, 20), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_check(&l, msg, sizeof msg), CS_OK);

    l.tot.burned += 1; /* deliberate corruption of a total */
    CS_CHECK_EQ_U64(cs_ledger_check(&l, msg, sizeof msg), CS_EINVARIANT);
    /* balances 50 + escrow 20 + burned 31 + proposer 0 = 101 != 100 */
    CS_CHECK_STR(msg, "ledger: balances 50 + escrow 20 + burned 31 + proposer 0 != "
                      "initial 100 + minted 0");
    l.tot.burned -= 1;

    l.tot.proposer = 1; /* value from nowhere */
    CS_CHECK_EQ_U64(cs_ledger_check(&l, NULL, 0), CS_EINVARIANT);
    l.tot.proposer = 0;

    l.esc[0] += 5; /* per-account escrow no longer sums to the total */
    CS_CHECK_EQ_U64(cs_ledger_check(&l, msg, sizeof msg), CS_EINVARIANT);
    CS_CHECK_STR(msg, "ledger: per-account escrow sums to 25 but the escrow total is 20");
    l.esc[0] -= 5;

    /* Overflowing sum of balances must not wrap into agreement. */
    CS_CHECK_EQ_U64(cs_ledger_reserve(&l, 2), CS_OK);
    l.bal[1] = CS_U128_MAX - 49; /* 50 + (2^128 - 50) = 2^128 wraps to 0 */
    CS_CHECK_EQ_U64(cs_ledger_check(&l, msg, 16), CS_EINVARIANT);
    CS_CHECK_EQ_U64(strlen(msg), 15); /* truncated to the buffer */
    l.bal[1] = 0;

    l.tot.initial = CS_U128_MAX;
    l.tot.minted = 1;
    CS_CHECK_EQ_U64(cs_ledger_check(&l, msg, sizeof msg), CS_EINVARIANT);
    l.tot.initial = 100;
    l.tot.minted = 0;
    CS_CHECK_EQ_U64(cs_ledger_check(&l, msg, sizeof msg), CS_OK);
    cs_ledger_free(&l);
}

/* Random operations against a trivial reference model (seed 20240917).
 * After each step the balances must match the model and the check pass. */
static uint64_t rng_state = 20240917u;
static uint64_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return rng_state >> 33;
}

static void test_property_seed_20240917(void)
{
    enum { N = 12 };
    cs_ledger_t l;
    cs_u128 mb[N] = {0}, me[N] = {0}, burned = 0, prop = 0, created = 0;
    long mism = 0, bad = 0, ok = 0;
    cs_ledger_init(&l);
    for (int step = 0; step < 20000; step++) {
        uint32_t a = (uint32_t)(rnd() % N), b = (uint32_t)(rnd() % N);
        cs_u128 amt = rnd() % 5000;
        int op = (int)(rnd() % 7), rc;
        switch (op) {
        case 0:
            rc = cs_ledger_mint(&l, a, amt);
            if (rc == CS_OK) { mb[a] += amt; created += amt; }
            break;
        case 1:
            rc = cs_ledger_transfer(&l, a, b, amt);
            if (rc == CS_OK) { mb[a] -= amt; mb[b] += amt; }
            else if (mb[a] >= amt) bad++;
            break;
        case 2:
            rc = cs_ledger_charge(&l, a, amt, (cs_ledger_dest)(b & 1));
            if (rc == CS_OK) { mb[a] -= amt; if (b & 1) prop += amt; else burned += amt; }
            else if (mb[a] >= amt) bad++;
            break;
        case 3:
            rc = cs_ledger_escrow_lock(&l, a, amt);
            if (rc == CS_OK) { mb[a] -= amt; me[a] += amt; }
            else if (mb[a] >= amt) bad++;
            break;
        case 4: {
            cs_u128 pay = amt / 3;
            rc = cs_ledger_escrow_settle(&l, a, amt, pay, (cs_ledger_dest)(b & 1));
            if (rc == CS_OK) {
                me[a] -= amt; mb[a] += amt - pay;
                if (b & 1) prop += pay; else burned += pay;
            } else if (me[a] >= amt) bad++;
            break;
        }
        default: {
            cs_fire_charge_t c;
            memset(&c, 0, sizeof c);
            c.gas_limit = rnd() % 300;
            c.used_cycles = c.gas_limit ? rnd() % (c.gas_limit + 1) : 0;
            c.max_cells = rnd() % 20;
            c.used_cells = c.max_cells ? rnd() % (c.max_cells + 1) : 0;
            c.basefee_cycle = rnd() % 4;
            c.basefee_lane = rnd() % 9;
            c.tip_rate = rnd() % 3;
            c.basefee_cell = rnd() % 5;
            c.lump = rnd() % 50;
            c.payments_to = (uint32_t)(b & 1);
            cs_u128 r = c.basefee_cycle + c.basefee_lane + c.tip_rate;
            cs_u128 maxc = c.gas_limit * r + c.max_cells * c.basefee_cell + c.lump;
            cs_u128 base = c.used_cycles * (c.basefee_cycle + c.basefee_lane) +
                           c.used_cells * c.basefee_cell;
            cs_u128 pay = c.used_cycles * c.tip_rate + c.lump;
            rc = cs_ledger_settle_fire(&l, a, &c, NULL);
            if (rc == CS_OK) {
                mb[a] -= base + pay;
                burned += base;
                if (c.payments_to == CS_PAY_PROPOSER) prop += pay; else burned += pay;
            } else if (mb[a] >= maxc) bad++;
            break;
        }
        }
        if (rc == CS_OK) ok++;
        for (uint32_t i = 0; i < N; i++)
            if (cs_ledger_balance(&l, i) != mb[i] || cs_ledger_escrowed(&l, i) != me[i]) mism++;
        if (l.tot.burned != burned || l.tot.proposer != prop || l.tot.minted != created) mism++;
        if (cs_ledger_check(&l, NULL, 0) != CS_OK) mism++;
    }
    CS_CHECK_EQ_U64(mism, 0);
    CS_CHECK_EQ_U64(bad, 0);   /* no refusal while the model had the funds */
    CS_CHECK(ok > 5000);       /* the walk exercised successes ... */
    CS_CHECK(ok < 20000);      /* ... and refusals */
    cs_ledger_free(&l);
}

static void test_tally(void)
{
    cs_tally_t t;
    char msg[200];
    memset(&t, 0, sizeof t);
    for (int i = 0; i < 7; i++) CS_CHECK_EQ_U64(cs_ledger_tally_schedule(&t), CS_OK);
    /* 2 one-shot completions, an interval timer firing 3 times (stays pending),
     * 1 expiry, 1 insufficient, 1 cancel -> pending = 7 - 2 - 1 - 1 - 1 = 2 */
    CS_CHECK_EQ_U64(cs_ledger_tally_fire(&t, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_tally_fire(&t, 1), CS_OK);
    for (int i = 0; i < 3; i++) CS_CHECK_EQ_U64(cs_ledger_tally_fire(&t, 0), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_tally_end(&t, CS_TALLY_EXPIRED), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_tally_end(&t, CS_TALLY_INSUFFICIENT), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_tally_end(&t, CS_TALLY_CANCELLED), CS_OK);
    CS_CHECK_EQ_U64(t.scheduled, 7);
    CS_CHECK_EQ_U64(t.fired, 2);
    CS_CHECK_EQ_U64(t.fire_events, 5); /* 2 + 3 */
    CS_CHECK_EQ_U64(t.pending, 2);
    CS_CHECK_EQ_U64(cs_ledger_tally_check(&t, 2, msg, sizeof msg), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_tally_check(&t, UINT64_MAX, msg, sizeof msg), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_tally_check(&t, 3, msg, sizeof msg), CS_EINVARIANT);
    CS_CHECK_STR(msg, "tally: pending 2 but the queue holds 3");
    CS_CHECK_EQ_U64(cs_ledger_tally_end(&t, (cs_tally_outcome)9), CS_EINVAL);

    t.fired++; /* deliberate corruption */
    CS_CHECK_EQ_U64(cs_ledger_tally_check(&t, UINT64_MAX, msg, sizeof msg), CS_EINVARIANT);
    CS_CHECK_STR(msg, "tally: scheduled 7 != fired 3 + expired 1 + insufficient 1 + "
                      "cancelled 1 + pending 2");
    t.fired--;

    /* End the interval timer (its last fire) and the remaining one-shot. */
    CS_CHECK_EQ_U64(cs_ledger_tally_fire(&t, 1), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_tally_end(&t, CS_TALLY_FIRED), CS_OK);
    CS_CHECK_EQ_U64(t.pending, 0);
    CS_CHECK_EQ_U64(t.fire_events, 6);
    cs_tally_t before = t;
    CS_CHECK_EQ_U64(cs_ledger_tally_fire(&t, 1), CS_EINVARIANT); /* nothing pending */
    CS_CHECK_EQ_U64(cs_ledger_tally_end(&t, CS_TALLY_CANCELLED), CS_EINVARIANT);
    CS_CHECK(memcmp(&t, &before, sizeof t) == 0);
    CS_CHECK_EQ_U64(cs_ledger_tally_check(&t, 0, NULL, 0), CS_OK);

    /* Wrapping 64-bit counters would hide a mismatch: summed in 128 bits. */
    t.pending = UINT64_MAX;
    t.fired = 7 + 1; /* 8 + 1 + 1 + 1 + (2^64 - 1) wraps to 10 in 64 bits */
    t.scheduled = 10;
    CS_CHECK_EQ_U64(cs_ledger_tally_check(&t, UINT64_MAX, NULL, 0), CS_EINVARIANT);
    CS_CHECK_EQ_U64(cs_ledger_tally_schedule(&t), CS_EOVERFLOW);
}

/* The other sums that only a corrupted ledger can push past 2^128 - 1
 * (the totals conserve what fund and mint created): each operation still
 * refuses -- CS_EOVERFLOW, or CS_EINVARIANT for an escrow total below the
 * locked amount -- and changes nothing; zero amounts change nothing. */
static void test_corrupt_totals(void)
{
    cs_ledger_t l;
    snap_t s;
    cs_ledger_init(&l);
    CS_CHECK_EQ_U64(cs_ledger_fund(&l, 0, 2385), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_escrow_lock(&l, 0, 100), CS_OK);
    l.tot.burned = CS_U128_MAX - 5; /* deliberate corruption, as above */
    take(&l, &s);
    CS_CHECK_EQ_U64(cs_ledger_charge_burn(&l, 0, 6), CS_EOVERFLOW);
    CS_CHECK_EQ_U64(cs_ledger_escrow_settle(&l, 0, 100, 6, CS_DEST_BURN), CS_EOVERFLOW);
    CS_CHECK(same(&l, &s));
    CS_CHECK_EQ_U64(cs_ledger_charge_burn(&l, 0, 5), CS_OK); /* exactly 2^128 - 1 */
    CHECK_U128(l.tot.burned, CS_U128_MAX);
    l.tot.proposer = CS_U128_MAX - 1;
    take(&l, &s);
    CS_CHECK_EQ_U64(cs_ledger_charge_proposer(&l, 0, 2), CS_EOVERFLOW);
    CS_CHECK(same(&l, &s));
    l.esc[0] = CS_U128_MAX - 1; /* an account's escrow */
    take(&l, &s);
    CS_CHECK_EQ_U64(cs_ledger_escrow_lock(&l, 0, 2), CS_EOVERFLOW);
    CS_CHECK(same(&l, &s));
    l.esc[0] = 100;
    l.tot.escrow = CS_U128_MAX - 1; /* the escrow total */
    take(&l, &s);
    CS_CHECK_EQ_U64(cs_ledger_escrow_lock(&l, 0, 2), CS_EOVERFLOW);
    CS_CHECK(same(&l, &s));
    l.tot.escrow = 50; /* below the 100 locked */
    take(&l, &s);
    CS_CHECK_EQ_U64(cs_ledger_escrow_release(&l, 0, 100), CS_EINVARIANT);
    CS_CHECK(same(&l, &s));
    l.tot.escrow = 100;
    l.bal[0] = CS_U128_MAX - 10; /* the refund of 60 overflows the balance */
    take(&l, &s);
    CS_CHECK_EQ_U64(cs_ledger_escrow_settle(&l, 0, 100, 40, CS_DEST_PROPOSER), CS_EOVERFLOW);
    CS_CHECK(same(&l, &s));
    /* zero amounts: nothing moves (a never-seen payee is only interned) */
    l.bal[0] = 2280;
    take(&l, &s);
    CS_CHECK_EQ_U64(cs_ledger_charge(&l, 0, 0, CS_DEST_PROPOSER), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_escrow_lock(&l, 0, 0), CS_OK);
    CS_CHECK_EQ_U64(cs_ledger_escrow_settle(&l, 0, 0, 0, CS_DEST_BURN), CS_OK);
    CS_CHECK(same(&l, &s));
    CS_CHECK_EQ_U64(cs_ledger_transfer(&l, 0, 5, 0), CS_OK);
    CS_CHECK(l.n == 6 && cs_ledger_balance(&l, 0) == 2280 && cs_ledger_balance(&l, 5) == 0);
    cs_ledger_free(&l);
}

int main(void)
{
    test_fund_transfer_charge();
    test_overflow();
    test_corrupt_totals();
    test_escrow();
    test_settle_fire();
    test_check_detects_corruption();
    test_property_seed_20240917();
    test_tally();
    return cs_test_done("ledger");
}
