/*
 * test_libm.c -- sim/cs_libm.c (DESIGN-NOTES N115): the GLIBC_TUNABLES
 * value that pins glibc's libm to its builds without fused multiply-adds,
 * for every shape of a value the user may already have set, checked
 * against strings written out by hand.  The end-to-end checks (the same
 * datasets on an emulated CPU without FMA or AVX) are in test_libm_pin.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "cs_libm.h"
#include "cs_test.h"

/* cs__libm_tunables(old) must be want exactly. */
static void expect(const char *old, const char *want)
{
    char *got = cs__libm_tunables(old);
    CS_CHECK(got != NULL);
    if (!got) return;
    if (strcmp(got, want) == 0) cs_test_pass++;
    else {
        char d[512];
        snprintf(d, sizeof d, "old \"%s\": got \"%s\", want \"%s\"", old ? old : "(unset)", got, want);
        cs_test_failed(__FILE__, __LINE__, "tunables", d);
    }
    free(got);
}

int main(void)
{
    /* Nothing set: the setting alone. */
    expect(NULL, "glibc.cpu.hwcaps=-FMA,-FMA4");
    expect("", "glibc.cpu.hwcaps=-FMA,-FMA4");
    /* Other tunables: the setting appended after a ':'. */
    expect("glibc.malloc.check=0", "glibc.malloc.check=0:glibc.cpu.hwcaps=-FMA,-FMA4");
    expect("glibc.malloc.check=0:glibc.malloc.tcache_count=3",
           "glibc.malloc.check=0:glibc.malloc.tcache_count=3:glibc.cpu.hwcaps=-FMA,-FMA4");
    /* The user's own hwcaps list, first, in the middle, last, or empty:
     * ours joins it, the tunables around it are kept. */
    expect("glibc.cpu.hwcaps=-AVX512F", "glibc.cpu.hwcaps=-AVX512F,-FMA,-FMA4");
    expect("glibc.cpu.hwcaps=-AVX2,-ERMS:glibc.malloc.check=0",
           "glibc.cpu.hwcaps=-AVX2,-ERMS,-FMA,-FMA4:glibc.malloc.check=0");
    expect("a.b=1:glibc.cpu.hwcaps=-AVX2:c.d=2", "a.b=1:glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4:c.d=2");
    expect("a.b=1:glibc.cpu.hwcaps=-AVX2", "a.b=1:glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4");
    expect("glibc.cpu.hwcaps=", "glibc.cpu.hwcaps=-FMA,-FMA4");
    expect("glibc.cpu.hwcaps=:a.b=1", "glibc.cpu.hwcaps=-FMA,-FMA4:a.b=1");
    /* The name inside another tunable's name or value is not the tunable. */
    expect("x.glibc.cpu.hwcaps=1", "x.glibc.cpu.hwcaps=1:glibc.cpu.hwcaps=-FMA,-FMA4");
    expect("x.glibc.cpu.hwcaps=1:glibc.cpu.hwcaps=-AVX2",
           "x.glibc.cpu.hwcaps=1:glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4");
    /* The process's own state: this test program is not pinned (only
     * cowsim's main is), so glibc's libm fuses exactly when the CPU has FMA
     * or FMA4 and the environment did not switch them off; -1 off x86_64. */
    int f = cs_libm_fused();
#if defined(__x86_64__) && defined(__GLIBC__)
    CS_CHECK(f == 0 || f == 1);
    const char *name = cs_libm_name();
    CS_CHECK(strcmp(name, f ? "glibc x86_64, FMA (not pinned)" : "glibc x86_64, no FMA (CPU)") == 0);
#else
    CS_CHECK(f == -1);
#endif
    return cs_test_done("libm");
}
