/* test_fee_payer.c -- fee_payer = "deployer" reaches the core (CIP-1 rev
 * §6, §3 step 4, §13.1): every fee, bid escrow and payment of a fire is
 * taken from the deployer, the owners' balances never move.
 *
 * Five heartbeat actors tick every block (period 1, first due at 2, so
 * 5 x 29 = 145 fires in 30 blocks): three of deployer "acme" (value_aware
 * off), two of "zeta" (value_aware on: entry tests the payer's balance).
 * Each deployer is funded with count x 10^21; the owners with nothing.
 * A reserve of 10^6 makes the bias mechanisms charge a payment.
 * Under every mechanism, after every block: each owner's balance and
 * escrow are 0; at the end all 145 ticks fired, none was destroyed or
 * rejected, each deployer holds less than it was given, and the two
 * deployers' balances plus escrow are exactly 5 x 10^21 - burned - paid to
 * the proposer (+ minted): every charge came from a deployer.  Before the
 * fix the core charged the owners: 0 fires under eip1559 (every timer
 * destroyed as insufficient), every schedule refused under bias-vcg. */
#include <stdio.h>
#include <string.h>

#include "cs_engine.h"
#include "cs_timer.h" /* cs_keccak256 */
#include "cs_ledger.h"
#include "cs_scenario.h"
#include "cs_test.h"

static const char *text =
    "{\"name\": \"fee-payer\", \"seed\": 3, \"blocks\": 30, \"mechanism\": \"eip1559\",\n"
    " \"params\": {\"reserve_price\": \"1000000\"},\n"
    " \"agents\": [\n"
    "  {\"kind\": \"heartbeat\", \"count\": 3, \"deployer\": \"acme\", \"fee_payer\": \"deployer\",\n"
    "   \"balance\": \"1000000000000000000000\", \"value_aware\": false,\n"
    "   \"params\": {\"period\": 1, \"start_spread\": 0, \"bid_frac\": 0.5}},\n"
    "  {\"kind\": \"heartbeat\", \"count\": 2, \"deployer\": \"zeta\", \"fee_payer\": \"deployer\",\n"
    "   \"balance\": \"1000000000000000000000\", \"value_aware\": true,\n"
    "   \"params\": {\"period\": 1, \"start_spread\": 0, \"bid_frac\": 0.5}}]}\n";

/* The scheduler index of the account with address keccak256(name)[0..20]
 * (cowsim's deployer address), or UINT32_MAX. */
static uint32_t deployer_index(const cs_sched_t *s, const char *name)
{
    uint8_t h[32];
    cs_keccak256(name, strlen(name), h);
    for (uint32_t i = 0;; i++) {
        const cs_addr_t *a = cs_sched_actor_addr(s, i);
        if (a == NULL) return UINT32_MAX;
        if (memcmp(a->b, h, 20) == 0) return i;
    }
}

static void run(const cs_scenario_t *scn, const char *mech)
{
    cs_engine_t *e = NULL;
    cs_sim_opts_t opts;
    memset(&opts, 0, sizeof opts);
    opts.seed = scn->seed;
    opts.check_invariants = 1;
    char err[512];
    int rc = cs_sim_init(&e, scn, mech, &opts, err, sizeof err);
    CS_CHECK_EQ_U64(rc, CS_OK);
    if (rc != CS_OK) {
        fprintf(stderr, "%s: %s\n", mech, err);
        return;
    }
    const cs_sched_t *s = cs_sim_sched(e);
    const cs_ledger_t *lg = cs_sched_ledger(s);
    uint32_t acme = deployer_index(s, "acme"), zeta = deployer_index(s, "zeta");
    CS_CHECK(acme != UINT32_MAX && zeta != UINT32_MAX && acme >= 5 && zeta >= 5);
    int owners_still = 1;
    while ((rc = cs_sim_step(e)) == CS_OK)
        for (uint32_t a = 0; a < 5; a++)
            if (cs_ledger_balance(lg, a) != 0 || cs_ledger_escrowed(lg, a) != 0) owners_still = 0;
    CS_CHECK_EQ_U64(rc, CS_EINTERRUPTED);
    CS_CHECK(owners_still);
    const cs_u128 given = (cs_u128)1000000000000ull * 1000000000ull; /* 10^21 */
    cs_u128 ha = cs_ledger_balance(lg, acme) + cs_ledger_escrowed(lg, acme);
    cs_u128 hz = cs_ledger_balance(lg, zeta) + cs_ledger_escrowed(lg, zeta);
    const cs_ledger_totals_t *t = &lg->tot;
    CS_CHECK(t->initial == 5 * given);
    CS_CHECK(ha + hz == t->initial + t->minted - t->burned - t->proposer);
    CS_CHECK(ha <= 3 * given && hz <= 2 * given);
    if (strcmp(mech, "fifo") != 0) CS_CHECK(ha < 3 * given && hz < 2 * given); /* fifo charges nothing (N1) */
    cs_run_stats_t st;
    CS_CHECK_EQ_U64(cs_sim_done(e, 1, &st), CS_OK);
    const cs_kind_stats_t *all = &st.kind[CS_AK__COUNT];
    fprintf(stderr, "%s: %llu timers, %llu fires; deployers paid %.6g and %.6g\n", mech,
            (unsigned long long)all->timers, (unsigned long long)all->fires, (double)(3 * given - ha),
            (double)(2 * given - hz));
    CS_CHECK_EQ_U64(all->fires, 145);
    CS_CHECK(all->paid > 0 || strcmp(mech, "fifo") == 0);
}

int main(void)
{
    cs_scenario_t *scn = NULL;
    cs_errlist_t errs = {0};
    int rc = cs_scenario_load(text, strlen(text), NULL, 0, &scn, &errs);
    for (size_t i = 0; i < errs.n; i++) fprintf(stderr, "fee_payer: scenario: %s\n", errs.msg[i]);
    cs_errlist_free(&errs);
    CS_CHECK_EQ_U64(rc, CS_OK);
    if (rc != CS_OK) return cs_test_done("fee_payer");
    static const char *const mechs[] = {"eip1559", "gba-tip", "bias-vcg", "bias-fp", "score", "fifo"};
    for (size_t i = 0; i < sizeof mechs / sizeof mechs[0]; i++) run(scn, mechs[i]);
    cs_scenario_free(scn);
    return cs_test_done("fee_payer");
}
