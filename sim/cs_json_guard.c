/*
 * cs_json_guard.c -- the raw-text checks of cs_json_guard.h.
 */
#include "cs_json_guard.h"

#include <stdio.h>

/* See cs_json_guard.h. */
int cs_json_nul_check(const char *text, size_t len, char *msg, size_t cap)
{
    int in_str = 0;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < len; i++, col++) {
        char ch = text[i];
        if (ch == '\n') {
            line++;
            col = 0;
            continue;
        }
        if (!in_str) {
            if (ch == '"') in_str = 1;
            continue;
        }
        if (ch == '"') {
            in_str = 0;
        } else if (ch == '\\' && i + 1 < len) {
            if (text[i + 1] == 'u' && i + 5 < len && text[i + 2] == '0' && text[i + 3] == '0' &&
                text[i + 4] == '0' && text[i + 5] == '0') {
                snprintf(msg, cap,
                         "escaped NUL (\\u0000) in a string at line %zu, column %zu (strings must not contain NUL)",
                         line, col);
                return -1;
            }
            i++; /* the escaped character (a quote or backslash does not end or start anything) */
            col++;
        }
    }
    return 0;
}
