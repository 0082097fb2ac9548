/*
 * cs_allocwrap.h -- a test-only allocator wrapper, included by exactly one
 * translation unit of a test program (tests/test_failalloc.c,
 * tests/test_limits.c).  No LD_PRELOAD and nothing in the product code.
 *
 * The including test binary defines malloc, calloc, realloc, free, strdup,
 * strndup, aligned_alloc and posix_memalign.  Definitions in the executable
 * take precedence over libc's (and ASan's) for every caller; each forwards
 * to the next definition (dlsym RTLD_NEXT), so the wrapper also works in
 * the sanitizer build.  An allocation is "ours" when its immediate caller
 * is code linked into the executable (core/, agents/, sim/, analysis/,
 * bench/ are static libraries) or cJSON once cs_aw_hook_cjson() pointed its
 * hooks here; allocations libc, libhdf5, GSL or zlib make for themselves
 * pass straight through.  Ours are numbered 1, 2, ... and tracked in a hash
 * set (pointer, number, size, caller) until freed, which gives:
 *   - failure injection: cs_aw_fail_at(k) makes allocation number k fail
 *     once (NULL, errno ENOMEM; realloc leaves the old block);
 *   - leak counts: cs_aw_live() allocations of ours not yet freed;
 *   - memory use: cs_aw_bytes() live bytes of ours, cs_aw_peak() the
 *     largest value since cs_aw_reset().
 */
#ifndef CS_ALLOCWRAP_H
#define CS_ALLOCWRAP_H

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cs_exit.h" /* cs_cov_dumping in coverage builds */

extern char __executable_start[], etext[]; /* this executable's code (GNU ld) */

/* The wrapper runs before the sanitizers are initialised (ASan's start-up
 * calls dlsym, which calls free): none of it may be instrumented. */
#define CS__AW __attribute__((no_sanitize_address, no_sanitize_undefined))

typedef void *(*cs__malloc_fn)(size_t);
typedef void *(*cs__calloc_fn)(size_t, size_t);
typedef void *(*cs__realloc_fn)(void *, size_t);
typedef void (*cs__free_fn)(void *);
typedef void *(*cs__aligned_fn)(size_t, size_t);
typedef int (*cs__memalign_fn)(void **, size_t, size_t);

static cs__malloc_fn cs__real_malloc;
static cs__calloc_fn cs__real_calloc;
static cs__realloc_fn cs__real_realloc;
static cs__free_fn cs__real_free;
static cs__aligned_fn cs__real_aligned;
static cs__memalign_fn cs__real_memalign;

/* Bootstrap arena for allocations made while dlsym resolves the above. */
static _Alignas(16) unsigned char cs__boot[1 << 16];
static size_t cs__boot_used;

/* Slots of the tracking set, a power of two: 2^21 (64 MiB) unless the
 * including test asks for fewer before the include.  A smaller set keeps a
 * forking test's parent small: each fork copies its page tables. */
#ifndef CS__SET_BITS
#define CS__SET_BITS 21
#endif
#define CS__SET_CAP (1u << CS__SET_BITS)
/* Tracked allocation: pointer, sequence number, size, caller. */
typedef struct cs__slot {
    void *p;          /* NULL = empty, CS__TOMB = deleted */
    uint64_t seq;     /* 1-based number among our allocations */
    size_t size;      /* bytes asked */
    uintptr_t caller; /* return address minus __executable_start */
    uint32_t gen;     /* cs__gen when written; any other value = empty */
} cs__slot_t;
#define CS__TOMB ((void *)1)
static cs__slot_t cs__set[CS__SET_CAP];
static size_t cs__live;            /* tracked allocations not yet freed */
static size_t cs__bytes;           /* their bytes */
static size_t cs__peak;            /* largest cs__bytes since the last reset */
static uint64_t cs__seq;           /* our allocations so far */
static uint64_t cs__fail_at;       /* 0 = never; else fail allocation number k */
static int cs__failed;             /* the injected failure happened */
static uintptr_t cs__fail_caller;  /* its caller, minus __executable_start */
static int cs__lock;               /* spinlock over the set and counters */
static int cs__resolving;          /* inside cs__resolve */
static uint32_t cs__gen = 1;       /* bumped by a reset: empties the set in O(1) */
/* Optional record of the caller of each of our allocations, in order (for
 * choosing which to fail, e.g. the first few at every call site): caller
 * offsets of allocations 1..min(count, cs__rec_cap).  Off (NULL) unless a
 * test asks with cs_aw_record. */
static uint32_t *cs__rec;
static size_t cs__rec_cap;

CS__AW static void cs__acquire(void)
{
    while (__atomic_exchange_n(&cs__lock, 1, __ATOMIC_ACQUIRE)) {
    }
}
CS__AW static void cs__release(void) { __atomic_store_n(&cs__lock, 0, __ATOMIC_RELEASE); }

CS__AW static void cs__resolve(void)
{
    if (cs__real_free || cs__resolving) return;
    cs__resolving = 1;
    cs__real_malloc = (cs__malloc_fn)dlsym(RTLD_NEXT, "malloc");
    cs__real_calloc = (cs__calloc_fn)dlsym(RTLD_NEXT, "calloc");
    cs__real_realloc = (cs__realloc_fn)dlsym(RTLD_NEXT, "realloc");
    cs__real_aligned = (cs__aligned_fn)dlsym(RTLD_NEXT, "aligned_alloc");
    cs__real_memalign = (cs__memalign_fn)dlsym(RTLD_NEXT, "posix_memalign");
    cs__real_free = (cs__free_fn)dlsym(RTLD_NEXT, "free");
    cs__resolving = 0;
}

CS__AW static int cs__in_boot(const void *p)
{
    return (const unsigned char *)p >= cs__boot && (const unsigned char *)p < cs__boot + sizeof cs__boot;
}

CS__AW static void *cs__boot_alloc(size_t n)
{
    size_t a = (cs__boot_used + 15) & ~(size_t)15;
    if (a + n > sizeof cs__boot) return NULL;
    cs__boot_used = a + n;
    return cs__boot + a;
}

CS__AW static size_t cs__hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)(x & (CS__SET_CAP - 1));
}

/* Is this allocation ours (caller inside this executable)? */
CS__AW static int cs__ours(const void *ret)
{
#ifdef CS_COVERAGE
    if (cs_cov_dumping) return 0; /* libgcov writing a child's counters (sim/cs_exit.h) */
#endif
    return (const char *)ret >= __executable_start && (const char *)ret < etext;
}

/* Before an allocation of ours (by ret): 1 if it must fail. */
CS__AW static int cs__should_fail(const void *ret)
{
    cs__acquire();
    uint64_t k = ++cs__seq;
    int f = cs__fail_at != 0 && k == cs__fail_at;
    if (cs__rec && k <= cs__rec_cap) cs__rec[k - 1] = (uint32_t)((uintptr_t)ret - (uintptr_t)__executable_start);
    if (f) {
        cs__failed = 1;
        cs__fail_caller = (uintptr_t)ret - (uintptr_t)__executable_start;
    }
    cs__release();
    return f;
}

CS__AW static void cs__track(void *p, size_t n, const void *ret)
{
    if (!p) return;
    cs__acquire();
    size_t i = cs__hash(p);
    for (size_t probe = 0; probe < CS__SET_CAP; probe++, i = (i + 1) & (CS__SET_CAP - 1)) {
        if (cs__set[i].gen != cs__gen || cs__set[i].p == NULL || cs__set[i].p == CS__TOMB) {
            cs__set[i].gen = cs__gen;
            cs__set[i].p = p;
            cs__set[i].seq = cs__seq;
            cs__set[i].size = n;
            cs__set[i].caller = (uintptr_t)ret - (uintptr_t)__executable_start;
            cs__live++;
            cs__bytes += n;
            if (cs__bytes > cs__peak) cs__peak = cs__bytes;
            cs__release();
            return;
        }
    }
    cs__release();
    static const char msg[] = "cs_allocwrap: allocation set full\n";
    (void)!write(2, msg, sizeof msg - 1);
    abort();
}

/* Forget p if tracked; returns 1 if it was (its size in *size). */
CS__AW static int cs__untrack(void *p, size_t *size)
{
    if (!p) return 0;
    cs__acquire();
    size_t i = cs__hash(p);
    for (size_t probe = 0; probe < CS__SET_CAP; probe++, i = (i + 1) & (CS__SET_CAP - 1)) {
        if (cs__set[i].gen != cs__gen || cs__set[i].p == NULL) break;
        if (cs__set[i].p == p) {
            cs__set[i].p = CS__TOMB;
            cs__live--;
            cs__bytes -= cs__set[i].size;
            if (size) *size = cs__set[i].size;
            cs__release();
            return 1;
        }
    }
    cs__release();
    return 0;
}

/* The allocators, parameterised by the original caller. */
CS__AW static void *cs__malloc_from(size_t n, const void *ret)
{
    cs__resolve();
    if (!cs__real_malloc) return cs__boot_alloc(n);
    if (!cs__ours(ret)) return cs__real_malloc(n);
    if (cs__should_fail(ret)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = cs__real_malloc(n);
    cs__track(p, n, ret);
    return p;
}

CS__AW void *malloc(size_t n)
{
    return cs__malloc_from(n, __builtin_return_address(0));
}

CS__AW void *calloc(size_t m, size_t n)
{
    const void *ret = __builtin_return_address(0);
    cs__resolve();
    if (!cs__real_calloc) {
        if (n && m > SIZE_MAX / n) return NULL;
        return cs__boot_alloc(m * n); /* static storage is zeroed */
    }
    if (!cs__ours(ret)) return cs__real_calloc(m, n);
    if (cs__should_fail(ret)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = cs__real_calloc(m, n);
    cs__track(p, m * n, ret);
    return p;
}

CS__AW void *realloc(void *old, size_t n)
{
    const void *ret = __builtin_return_address(0);
    cs__resolve();
    if (cs__in_boot(old)) {
        void *p = cs__real_malloc ? cs__real_malloc(n) : cs__boot_alloc(n);
        size_t room = (size_t)(cs__boot + sizeof cs__boot - (unsigned char *)old);
        if (p) memmove(p, old, n < room ? n : room);
        return p;
    }
    int ours = cs__ours(ret);
    if (ours && cs__should_fail(ret)) {
        errno = ENOMEM;
        return NULL; /* old stays valid, as with a real failure */
    }
    size_t old_n = 0;
    int was = cs__untrack(old, &old_n);
    void *p = cs__real_realloc(old, n);
    if (p && (ours || was)) cs__track(p, n, ret);
    else if (!p && was) cs__track(old, old_n, ret); /* failed: old is still live */
    return p;
}

CS__AW void free(void *p)
{
    if (!p || cs__in_boot(p)) return;
    cs__resolve();
    if (!cs__real_free) return; /* while resolving: keep it (one small block at start-up) */
    cs__untrack(p, NULL);
    cs__real_free(p);
}

CS__AW void *aligned_alloc(size_t al, size_t n)
{
    const void *ret = __builtin_return_address(0);
    cs__resolve();
    if (!cs__ours(ret)) return cs__real_aligned(al, n);
    if (cs__should_fail(ret)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = cs__real_aligned(al, n);
    cs__track(p, n, ret);
    return p;
}

CS__AW int posix_memalign(void **out, size_t al, size_t n)
{
    const void *ret = __builtin_return_address(0);
    cs__resolve();
    if (!cs__ours(ret)) return cs__real_memalign(out, al, n);
    if (cs__should_fail(ret)) return ENOMEM;
    int rc = cs__real_memalign(out, al, n);
    if (rc == 0) cs__track(*out, n, ret);
    return rc;
}

CS__AW char *strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = cs__malloc_from(n, __builtin_return_address(0));
    if (p) memcpy(p, s, n);
    return p;
}

CS__AW char *strndup(const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    char *p = cs__malloc_from(n + 1, __builtin_return_address(0));
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* cJSON allocates through these hooks, so its allocations count as ours. */
CS__AW static void *cs__cj_malloc(size_t n)
{
    return cs__malloc_from(n, (const void *)cs__cj_malloc);
}
CS__AW static void cs__cj_free(void *p) { free(p); }

#ifdef CS_COVERAGE
/* A coverage build turns every execv call into libgcov's __gcov_execv,
 * which writes the counters -- allocating in libgcov, inside this
 * executable -- before it execs.  In a forked child that execs (report's
 * gnuplot) those allocations were counted as the program's, and the k-th
 * failing there made gnuplot's probe fail: report then exited 3 saying
 * "neither the pngcairo nor the png terminal", not "out of memory" (14
 * children of test_failalloc's report case, in coverage builds only).  This
 * definition takes the place of libgcov's (the executable's own symbol
 * wins over the archive member) and marks the dump as cs_child_exit does,
 * so libgcov's allocations pass through uncounted. */
int __gcov_execv(const char *path, char *const argv[]);
void __gcov_reset(void);
CS__AW int __gcov_execv(const char *path, char *const argv[])
{
    typedef int (*cs__execv_fn)(const char *, char *const[]);
    cs__execv_fn real = (cs__execv_fn)dlsym(RTLD_NEXT, "execv"); /* not a call by name: GCC would rewrite it */
    cs_cov_dumping = 1;
    __gcov_dump();
    int ret = real ? real(path, argv) : -1;
    cs_cov_dumping = 0; /* the exec failed: this process goes on, counting from here (as libgcov does) */
    __gcov_reset();
    return ret;
}
#endif

/* ------------------------------------------------------------ control */

/* Route cJSON's allocations through the wrapper (they then count as ours). */
CS__AW static inline void cs_aw_hook_cjson(void)
{
    cJSON_Hooks hooks = {cs__cj_malloc, cs__cj_free};
    cJSON_InitHooks(&hooks);
}

/* Forget everything tracked; number allocations from 1 again; fail
 * allocation k (0: none). */
CS__AW static inline void cs_aw_reset(uint64_t k)
{
    cs__acquire();
    if (++cs__gen == 0) {
        memset(cs__set, 0, sizeof cs__set);
        cs__gen = 1;
    }
    cs__live = cs__bytes = cs__peak = 0;
    cs__seq = 0;
    cs__fail_at = k;
    cs__failed = 0;
    cs__fail_caller = 0;
    cs__release();
}

/* Record the caller offset of each of our allocations 1..cap into buf
 * (NULL: stop recording).  The buffer is the caller's and must not come
 * from the tracked allocators' own numbering (a static array will do). */
CS__AW static inline void cs_aw_record(uint32_t *buf, size_t cap)
{
    cs__acquire();
    cs__rec = buf;
    cs__rec_cap = buf ? cap : 0;
    cs__release();
}

/* Restart the peak at the current live bytes. */
CS__AW static inline void cs_aw_reset_peak(void)
{
    cs__acquire();
    cs__peak = cs__bytes;
    cs__release();
}

CS__AW static inline size_t cs_aw_live(void) { return cs__live; }
CS__AW static inline size_t cs_aw_bytes(void) { return cs__bytes; }
CS__AW static inline size_t cs_aw_peak(void) { return cs__peak; }
CS__AW static inline uint64_t cs_aw_count(void) { return cs__seq; }
CS__AW static inline int cs_aw_failed(void) { return cs__failed; }
CS__AW static inline uintptr_t cs_aw_fail_caller(void) { return cs__fail_caller; }

/* Describe up to a few live allocations into buf: "#seq sizeB caller +0xoff; ". */
CS__AW static inline void cs_aw_describe_live(char *buf, size_t cap)
{
    size_t len = 0;
    if (cap) buf[0] = '\0';
    cs__acquire();
    for (size_t i = 0; i < CS__SET_CAP && len + 64 < cap; i++) {
        if (cs__set[i].gen != cs__gen || cs__set[i].p == NULL || cs__set[i].p == CS__TOMB) continue;
        int w = snprintf(buf + len, cap - len, "#%llu %zuB caller +0x%lx; ", (unsigned long long)cs__set[i].seq,
                         cs__set[i].size, (unsigned long)cs__set[i].caller);
        if (w > 0) len += (size_t)w;
    }
    cs__release();
}

#endif /* CS_ALLOCWRAP_H */
