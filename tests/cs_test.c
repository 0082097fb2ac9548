/* cs_test.c -- the shared test harness. */
#include "cs_test.h"

#include <stdio.h>

long cs_test_pass, cs_test_fail;

void cs_test_failed(const char *file, int line, const char *expr, const char *detail)
{
    cs_test_fail++;
    fprintf(stderr, "FAIL %s:%d: %s%s%s\n", file, line, expr, detail ? " -- " : "",
            detail ? detail : "");
}

int cs_test_done(const char *suite)
{
    printf("%s: %ld passed, %ld failed\n", suite, cs_test_pass, cs_test_fail);
    return cs_test_fail == 0 && cs_test_pass > 0 ? 0 : 1;
}

void cs_test_hex(const uint8_t *b, size_t n, char *out)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hx[b[i] >> 4];
        out[2 * i + 1] = hx[b[i] & 15];
    }
    out[2 * n] = '\0';
}
