/* main.c -- the cowsim command-line entry point; dispatches subcommands. */
#include "cs_cli.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

int main(int argc, char **argv)
{
#ifdef __GLIBC__
    /* A run's large arrays grow by realloc.  glibc raises its mmap
     * threshold (up to 32 MiB) whenever a mapped block is freed, after which
     * such arrays come from the heap, and the copies they leave behind stay
     * resident as holes (about 100 MB at 10^7 pending timers: `cowsim bench
     * memory`, DESIGN-NOTES N46).  A fixed threshold keeps every block of
     * 256 KiB or more in its own mapping, which realloc moves with mremap
     * and free returns to the system. */
    (void)mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
    return cs_cli_main(argc, argv);
}
