/* cs_error.c -- string tables generated from CS_ERRNO_MAP (STYLE §4). */
#include "cs_error.h"
#include "cs_types.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const cs__err_msg[] = {
#define CS__ERR_MSG(name, msg) msg,
    CS_ERRNO_MAP(CS__ERR_MSG)
#undef CS__ERR_MSG
};

static const char *const cs__err_name[] = {
#define CS__ERR_NAME(name, msg) "CS_" #name,
    CS_ERRNO_MAP(CS__ERR_NAME)
#undef CS__ERR_NAME
};

CS_STATIC_ASSERT(sizeof cs__err_msg / sizeof cs__err_msg[0] == CS_ERR__COUNT,
                 "error message table matches the enum");

const char *cs_strerror(int e)
{
    if (e < 0 || e >= CS_ERR__COUNT) return "unknown error";
    return cs__err_msg[e];
}

const char *cs_errname(int e)
{
    if (e < 0 || e >= CS_ERR__COUNT) return "CS_EUNKNOWN";
    return cs__err_name[e];
}

_Noreturn void cs__assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "cowsim: assertion failed: %s (%s:%d)\n", expr, file, line);
    abort();
}

char *cs_u128_fmt(cs_u128 v, char *buf)
{
    char tmp[48];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v != 0);
    for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return buf;
}

int cs_u128_parse(const char *s, cs_u128 *out)
{
    cs_u128 v = 0;
    if (s == NULL || *s == '\0') return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        if (cs_u128_mul(v, 10, &v) != 0) return -1;
        if (cs_u128_add(v, (cs_u128)(*s - '0'), &v) != 0) return -1;
    }
    *out = v;
    return 0;
}
