/*
 * test_cli.c -- the cowsim entry point (cli/cs_cli.c): cs_cli_main fixes
 * glibc's mmap threshold at 256 KiB before it runs a subcommand
 * (DESIGN-NOTES N46).  Seen from where glibc puts blocks afterwards:
 * mallinfo2().hblks counts the blocks that have their own mapping.  Left
 * to itself glibc raises the threshold to the size of any mapped block
 * that is freed, so after a 1 MiB block is freed a 256 KiB one would come
 * from the heap; with the threshold fixed it is mapped, and one just under
 * 256 KiB is not.  (Under the sanitizers the allocator is theirs: their
 * mallopt refuses, and cs_malloc_tune says so.)
 */
#include <stdlib.h>

#include "cs_cli.h"
#include "cs_test.h"

#if defined(__GLIBC__) && !defined(CS_SANITIZE)
#include <malloc.h>

/* Every block escapes through here, so the compiler keeps each malloc. */
static void *volatile keep;

static size_t mapped(void)
{
    return mallinfo2().hblks;
}
#endif

int main(void)
{
    char a0[] = "cowsim", a1[] = "--version";
    char *argv[] = {a0, a1, NULL};
    CS_CHECK_EQ_U64(cs_cli_main(2, argv), 0);
#if defined(__GLIBC__) && !defined(CS_SANITIZE)
    CS_CHECK_EQ_U64(CS_MMAP_THRESHOLD, 262144);
    size_t h0 = mapped();
    /* 1 MiB: over any threshold, its own mapping; freeing it would raise a
     * dynamic threshold to 1 MiB + 4 KiB (the mapping's size). */
    void *a = malloc(1u << 20);
    keep = a;
    CS_CHECK_EQ_U64(mapped(), h0 + 1);
    free(a);
    CS_CHECK_EQ_U64(mapped(), h0);
    /* 262,144 bytes: the chunk (request + 16-byte header = 262,160) is at
     * least the fixed threshold, so mapped.  The heap's top is about
     * 128 KiB here (a fresh process), too small to serve it first. */
    void *b = malloc(262144);
    keep = b;
    CS_CHECK_EQ_U64(mapped(), h0 + 1);
    /* 262,112 bytes: chunk 262,128 < 262,144, from the heap (glibc's
     * default threshold, 128 KiB, would have mapped it). */
    void *c = malloc(262112);
    keep = c;
    CS_CHECK_EQ_U64(mapped(), h0 + 1);
    free(b);
    free(c);
    CS_CHECK_EQ_U64(mapped(), h0);
    /* Setting it again succeeds (cs_cli_main did the same). */
    CS_CHECK_EQ_U64(cs_malloc_tune(), 1);
#else
    CS_CHECK_EQ_U64(cs_malloc_tune(), 0);
#endif
    return cs_test_done("cli");
}
