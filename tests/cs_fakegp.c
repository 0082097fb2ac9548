/*
 * cs_fakegp.c -- a stand-in gnuplot for tests/test_failalloc.c: for each
 * argument ending in ".gp" it writes, to every file a "set output '...'"
 * line of that script names, the smallest file report takes for a whole
 * plot (a PNG signature and an IEND chunk); --version and -V print a
 * gnuplot version line.  One exec per plot instead of a shell and sed:
 * report's allocation-failure children draw every plot of a sweep.
 */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0,   0,
                                        0,    0,   'I', 'E', 'N',  'D',  0xae, 0x42, 0x60, 0x82};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
            puts("gnuplot 5.4 patchlevel 4");
            return 0;
        }
        size_t n = strlen(argv[i]);
        if (n < 3 || strcmp(argv[i] + n - 3, ".gp") != 0) continue;
        FILE *f = fopen(argv[i], "r");
        if (!f) return 1;
        char line[4096];
        while (fgets(line, sizeof line, f)) {
            static const char key[] = "set output '";
            if (strncmp(line, key, sizeof key - 1) != 0) continue;
            char *name = line + sizeof key - 1, *end = strrchr(name, '\'');
            if (!end) continue;
            *end = '\0';
            FILE *o = fopen(name, "wb");
            if (!o || fwrite(png, 1, sizeof png, o) != sizeof png || fclose(o) != 0) return 1;
        }
        fclose(f);
    }
    return 0;
}
