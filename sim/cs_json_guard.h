/*
 * cs_json_guard.h -- checks on JSON text that cJSON does not make, shared by
 * every loader of JSON input (scenario, --set, sweep, clear, check
 * baseline).
 *
 * cJSON refuses a raw NUL byte but decodes the escape "\u0000" into a NUL
 * inside the C string, so every later use of the string stops there: two
 * different identities "a\u0000b" and "a\u0000c" would become one "a".
 * No string of any cowsim input may hold a NUL, so the escape is refused
 * on the raw text, before parsing, in keys and values alike.
 */
#ifndef CS_JSON_GUARD_H
#define CS_JSON_GUARD_H

#include <stddef.h>

/* Largest integer a JSON number may give exactly: 2^53 - 1.  2^53 itself
 * is a double, but so is the value the literal 2^53 + 1 rounds to, so a
 * number >= 2^53 cannot be told apart from its neighbours and is refused
 * (larger values are given as decimal strings where a field allows it). */
#define CS_JSON_INT_MAX 9007199254740991.0

/*
 * Scan text[0..len) for a "\u0000" escape inside a JSON string.  Returns 0
 * when there is none; else -1 with msg (cap bytes) set to
 * "escaped NUL (\u0000) in a string at line L, column C (strings must not
 * contain NUL)".  The text need not be valid JSON.
 */
int cs_json_nul_check(const char *text, size_t len, char *msg, size_t cap);

#endif /* CS_JSON_GUARD_H */
