/* cs_mser5.c -- prints cs_stat_mser5 (analysis/cs_stats.c) of the numbers
 * on stdin, one truncation point per line of input (whitespace-separated
 * values).  Not a test by itself: tests/test_study.sh checks the Python
 * port in scenarios/calibration/study.py against it on real run files. */
#include "cs_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    static char line[1 << 20];
    size_t cap = 1024;
    double *x = malloc(cap * sizeof *x);
    if (!x) return 1;
    while (fgets(line, sizeof line, stdin)) {
        if (!strchr(line, '\n') && !feof(stdin)) {
            fprintf(stderr, "cs_mser5: line longer than %zu bytes\n", sizeof line);
            free(x);
            return 2;
        }
        size_t n = 0;
        char *p = line, *end;
        for (double v = strtod(p, &end); end != p; v = strtod(p, &end)) {
            if (n == cap) {
                double *y = realloc(x, 2 * cap * sizeof *y);
                if (!y) {
                    free(x);
                    return 1;
                }
                x = y;
                cap *= 2;
            }
            x[n++] = v;
            p = end;
        }
        printf("%zu\n", cs_stat_mser5(x, n, NULL));
    }
    free(x);
    return 0;
}
