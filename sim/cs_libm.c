/*
 * cs_libm.c -- pin glibc's libm to its builds without fused multiply-adds
 * (cs_libm.h; DESIGN-NOTES N115).
 */
#include "cs_libm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) && defined(__GLIBC__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define CS__LIBM_X86 1
#endif
#endif

#define CS__HWCAPS "glibc.cpu.hwcaps="
#define CS__OFF "-FMA,-FMA4"
#define CS__MARK "COWSIM_LIBM_PINNED" /* set for the second start only */

/* Set by cs_libm_pin: how this process came to its libm builds. */
static enum { CS__LM_UNSET, CS__LM_PINNED, CS__LM_NATIVE, CS__LM_FAILED } cs__lm_how;

int cs_libm_fused(void)
{
#ifdef CS__LIBM_X86
    return CPU_FEATURE_ACTIVE(FMA) || CPU_FEATURE_ACTIVE(FMA4);
#else
    return -1;
#endif
}

const char *cs_libm_name(void)
{
    int f = cs_libm_fused();
    if (f < 0) return "other (not pinned)";
    if (!f) return cs__lm_how == CS__LM_PINNED ? "glibc x86_64, no FMA (pinned)" : "glibc x86_64, no FMA (CPU)";
    return cs__lm_how == CS__LM_NATIVE ? "glibc x86_64, FMA (COWSIM_LIBM=native)" : "glibc x86_64, FMA (not pinned)";
}

/* cs_libm.h; platform-independent, for the tests. */
char *cs__libm_tunables(const char *old)
{
    size_t lo = old ? strlen(old) : 0, la = strlen(CS__HWCAPS) + strlen(CS__OFF) + 2;
    char *s = malloc(lo + la);
    if (!s) return NULL;
    const char *p = NULL;
    /* The tunable at the start of old or after a ':'. */
    for (const char *q = old; q && (q = strstr(q, CS__HWCAPS)) != NULL; q++)
        if (q == old || q[-1] == ':') {
            p = q;
            break;
        }
    if (!old || !*old) {
        snprintf(s, lo + la, "%s%s", CS__HWCAPS, CS__OFF);
    } else if (!p) {
        snprintf(s, lo + la, "%s:%s%s", old, CS__HWCAPS, CS__OFF);
    } else {
        /* old = head + "glibc.cpu.hwcaps=" + list + [":" + tail] */
        const char *v = p + strlen(CS__HWCAPS), *e = strchr(v, ':');
        size_t hv = (size_t)(v - old), nv = e ? (size_t)(e - v) : strlen(v);
        snprintf(s, lo + la, "%.*s%.*s%s%s%s", (int)hv, old, (int)nv, v, nv ? "," : "", CS__OFF, e ? e : "");
    }
    return s;
}

#ifdef CS__LIBM_X86
/* The pin could not be made (why): the run goes on with glibc's choice,
 * and says so. */
static void cs__unpinned(const char *why)
{
    cs__lm_how = CS__LM_FAILED;
    fprintf(stderr,
            "cowsim: warning: %s; libm's results may differ from other machines' (the run files' attribute libm "
            "says \"not pinned\")\n",
            why);
}
#endif

void cs_libm_pin(int argc, char **argv)
{
    (void)argc;
#ifdef CS__LIBM_X86
    const char *want = getenv("COWSIM_LIBM");
    if (want && strcmp(want, "native") == 0) {
        cs__lm_how = CS__LM_NATIVE;
        return;
    }
    int second = getenv(CS__MARK) != NULL;
    if (second) unsetenv(CS__MARK); /* not for the programs this one starts */
    if (!cs_libm_fused()) {
        if (second) cs__lm_how = CS__LM_PINNED;
        return;
    }
    /* valgrind runs the program on its own CPU model and would lose it
     * across the exec: its runs keep glibc's choice. */
    const char *pre = getenv("LD_PRELOAD");
    if (pre && strstr(pre, "vgpreload")) return;
    if (second) {
        cs__unpinned("glibc ignored " CS__HWCAPS CS__OFF " in GLIBC_TUNABLES");
        return;
    }
    /* Started through the dynamic loader (ld-linux-x86-64.so.2 cowsim
     * ...), /proc/self/exe is the loader, which would take argv[1] for
     * the program: no second start then. */
    char exe[4096];
    ssize_t ne = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (ne > 0) {
        exe[ne] = '\0';
        const char *base = strrchr(exe, '/');
        if (strncmp(base ? base + 1 : exe, "ld-", 3) == 0) {
            cs__unpinned("started through the dynamic loader, so not started again with " CS__HWCAPS CS__OFF);
            return;
        }
    }
    char *t = cs__libm_tunables(getenv("GLIBC_TUNABLES"));
    if (t && setenv("GLIBC_TUNABLES", t, 1) == 0 && setenv(CS__MARK, "1", 1) == 0) {
        fflush(NULL);
        execv("/proc/self/exe", argv);
    }
    cs__unpinned(t ? "could not start again with " CS__HWCAPS CS__OFF " (exec failed)"
                   : "could not start again with " CS__HWCAPS CS__OFF " (out of memory)");
    free(t);
    unsetenv(CS__MARK);
#else
    (void)argv;
#endif
}
