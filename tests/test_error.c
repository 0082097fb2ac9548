/*
 * test_error.c -- the core's small tables and conversions: error codes and
 * their names (core/cs_error.h, STYLE §4), 128-bit decimal formatting and
 * parsing (money in files is exact), the loser reasons and the mechanism
 * registry's names (core/cs_mech.h).  Expected strings are written out
 * here, not read from the tables.
 */
#include "cs_error.h"
#include "cs_mech.h"
#include "cs_test.h"
#include "cs_types.h"

#include <string.h>

static void test_codes(void)
{
    CS_CHECK_STR(cs_strerror(CS_OK), "success");
    CS_CHECK_STR(cs_strerror(CS_ENOMEM), "out of memory");
    CS_CHECK_STR(cs_strerror(CS_EOVERFLOW), "arithmetic overflow");
    CS_CHECK_STR(cs_errname(CS_EINVAL), "CS_EINVAL");
    CS_CHECK_STR(cs_errname(CS_EINSUFFICIENT_FUNDS), "CS_EINSUFFICIENT_FUNDS");
    CS_CHECK_STR(cs_strerror(-1), "unknown error");
    CS_CHECK_STR(cs_strerror(CS_ERR__COUNT), "unknown error");
    CS_CHECK_STR(cs_errname(-3), "CS_EUNKNOWN");
    CS_CHECK_STR(cs_errname(CS_ERR__COUNT), "CS_EUNKNOWN");
    /* Every code has a CS_ name and a message of its own. */
    int named = 1, distinct = 1;
    for (int e = 0; e < CS_ERR__COUNT; e++) {
        named &= strncmp(cs_errname(e), "CS_E", 4) == 0 || e == CS_OK;
        for (int f = 0; f < e; f++) distinct &= strcmp(cs_strerror(e), cs_strerror(f)) != 0;
    }
    CS_CHECK(named && distinct);
}

/* 2^128 - 1 = 340282366920938463463374607431768211455. */
static void test_u128(void)
{
    char buf[48];
    cs_u128 v = 7;
    CS_CHECK_STR(cs_u128_fmt(0, buf), "0");
    CS_CHECK_STR(cs_u128_fmt(CS_U128_MAX, buf), "340282366920938463463374607431768211455");
    CS_CHECK(cs_u128_parse("340282366920938463463374607431768211455", &v) == 0 && v == CS_U128_MAX);
    CS_CHECK(cs_u128_parse("2385", &v) == 0 && v == 2385);
    v = 7;
    /* 2^128 overflows on the last addition, ten times 2^128 - 1 on a multiplication. */
    CS_CHECK(cs_u128_parse("340282366920938463463374607431768211456", &v) == -1);
    CS_CHECK(cs_u128_parse("3402823669209384634633746074317682114550", &v) == -1);
    CS_CHECK(cs_u128_parse("", &v) == -1);
    CS_CHECK(cs_u128_parse(NULL, &v) == -1);
    CS_CHECK(cs_u128_parse("12a", &v) == -1);
    CS_CHECK(cs_u128_parse("-1", &v) == -1);
    CS_CHECK(v == 7); /* untouched on failure */
}

static void test_mech_names(void)
{
    char buf[512];
    CS_CHECK_STR(cs_why_name(-1), "unknown");
    CS_CHECK_STR(cs_why_name(CS_WHY__COUNT), "unknown");
    CS_CHECK(cs_mech_find(NULL) == NULL);
    CS_CHECK(cs_mech_find("oracle") == NULL);
    CS_CHECK(cs_mech_find_any("oracle") == cs_mech_find("greedy"));
    CS_CHECK(cs_mech_renamed(NULL) == NULL);
    CS_CHECK_STR(cs_mech_unknown_hint("oracle", buf, sizeof buf),
                 "renamed 'greedy' (DESIGN-NOTES N42); valid: fifo, fifo-capped, score, bias-vcg, bias-fp, "
                 "eip1559, gba-tip, greedy, slot-booking, priority-classes");
    CS_CHECK(strncmp(cs_mech_unknown_hint("x", buf, sizeof buf), "valid: fifo, ", 13) == 0);
    buf[0] = 'q';
    CS_CHECK(cs_mech_unknown_hint("x", buf, 0) == buf && buf[0] == 'q');
    CS_CHECK(cs_mech_names(buf, 0) == buf && buf[0] == 'q');
    CS_CHECK_STR(cs_mech_names(buf, 11), "fifo, fifo"); /* truncated to cap - 1 */
}

int main(void)
{
    test_codes();
    test_u128();
    test_mech_names();
    return cs_test_done("error");
}
