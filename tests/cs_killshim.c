/*
 * cs_killshim.c -- an LD_PRELOAD shim that SIGKILLs its process at the N-th
 * write-type system call on a regular file (tests/test_killpoints.c).
 *
 * Counted calls: write, pwrite (and pwrite64), copy_file_range, fsync,
 * fdatasync, rename, renameat -- every call by which a process changes what
 * a file holds or which file a name refers to.  write and pwrite count only
 * on regular files (not the terminal or a pipe).
 *
 * Environment:
 *   CS_KILL_AT=N    SIGKILL right after the N-th counted call returns.
 *   CS_KILL_TORN=1  with CS_KILL_AT: if the N-th call writes or copies more
 *                   than one byte, do only the first half of it, then die
 *                   (a write cut short by the kill).
 *   CS_KILL_STOP=N  instead of a kill: SIGSTOP right after the N-th call
 *                   (the process holds whatever it held, e.g. its locks,
 *                   until the parent sends SIGCONT).
 *   CS_KILL_LOG=F   append one line per counted call to F: its number (in
 *                   its process), the process id, its kind ("write", "copy", "fsync", "rename") and the file
 *                   (the path of the descriptor written, copied to or
 *                   synced, a directory for a directory fsync; for a rename
 *                   the old name, then the new one).  The file is opened at
 *                   load.
 * Without CS_KILL_AT the process runs to its end.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static long cs__at = -1;  /* CS_KILL_AT, or -1 */
static long cs__stop = -1; /* CS_KILL_STOP, or -1 */
static int cs__torn;      /* CS_KILL_TORN */
static int cs__log = -1;  /* CS_KILL_LOG descriptor */
static long cs__n;        /* counted calls so far */

__attribute__((constructor)) static void cs__init(void)
{
    const char *a = getenv("CS_KILL_AT");
    if (a && *a) cs__at = atol(a);
    const char *sp = getenv("CS_KILL_STOP");
    if (sp && *sp) cs__stop = atol(sp);
    const char *t = getenv("CS_KILL_TORN");
    cs__torn = t && *t == '1';
    const char *l = getenv("CS_KILL_LOG");
    if (l && *l) cs__log = open(l, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

static void *cs__next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) abort();
    return f;
}

static int cs__regular(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/* The path of descriptor fd into buf (for the log), "-" if unknown. */
static const char *cs__fdpath(int fd, char *buf, size_t cap)
{
    if (cs__log < 0) return "-";
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, cap - 1);
    if (n <= 0) return "-";
    buf[n] = '\0';
    return buf;
}

/* Count one call of kind k on file detail (and, for a rename, detail2);
 * returns 1 if it is the one to kill at.  Stops the process here if it is
 * the CS_KILL_STOP call. */
static int cs__count2(const char *k, const char *detail, const char *detail2)
{
    cs__n++;
    if (cs__log >= 0) {
        char line[1200];
        int len = snprintf(line, sizeof line, "%ld %d %s %s%s%s\n", cs__n, (int)getpid(), k, detail ? detail : "-",
                           detail2 ? " " : "", detail2 ? detail2 : "");
        if (len > 0) {
            ssize_t (*w)(int, const void *, size_t) = cs__next("write");
            if (w(cs__log, line, (size_t)len) < 0) {
            }
        }
    }
    if (cs__n == cs__stop) kill(getpid(), SIGSTOP);
    return cs__n == cs__at;
}

static int cs__count(const char *k, int fd)
{
    char buf[512];
    return cs__count2(k, cs__fdpath(fd, buf, sizeof buf), NULL);
}

static void cs__die(void)
{
    kill(getpid(), SIGKILL);
    for (;;) pause();
}

/* Bytes to really write for a call of n bytes that is the kill point. */
static size_t cs__cut(size_t n) { return cs__torn && n > 1 ? n / 2 : n; }

ssize_t write(int fd, const void *buf, size_t n)
{
    ssize_t (*f)(int, const void *, size_t) = cs__next("write");
    if (!cs__regular(fd) || !cs__count("write", fd)) return f(fd, buf, n);
    f(fd, buf, cs__cut(n));
    cs__die();
    return -1;
}

static ssize_t cs__pwrite(const char *name, int fd, const void *buf, size_t n, off_t off)
{
    ssize_t (*f)(int, const void *, size_t, off_t) = cs__next(name);
    if (!cs__regular(fd) || !cs__count("write", fd)) return f(fd, buf, n, off);
    f(fd, buf, cs__cut(n), off);
    cs__die();
    return -1;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) { return cs__pwrite("pwrite", fd, buf, n, off); }
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) { return cs__pwrite("pwrite64", fd, buf, n, off); }

ssize_t copy_file_range(int in, off_t *ioff, int out, off_t *ooff, size_t n, unsigned flags)
{
    ssize_t (*f)(int, off_t *, int, off_t *, size_t, unsigned) = cs__next("copy_file_range");
    if (!cs__count("copy", out)) return f(in, ioff, out, ooff, n, flags);
    f(in, ioff, out, ooff, cs__cut(n), flags);
    cs__die();
    return -1;
}

int fsync(int fd)
{
    int (*f)(int) = cs__next("fsync");
    int r = f(fd);
    if (cs__count("fsync", fd)) cs__die();
    return r;
}

int fdatasync(int fd)
{
    int (*f)(int) = cs__next("fdatasync");
    int r = f(fd);
    if (cs__count("fsync", fd)) cs__die();
    return r;
}

int rename(const char *from, const char *to)
{
    int (*f)(const char *, const char *) = cs__next("rename");
    int r = f(from, to);
    if (cs__count2("rename", from, to)) cs__die();
    return r;
}

int renameat(int dfrom, const char *from, int dto, const char *to)
{
    int (*f)(int, const char *, int, const char *) = cs__next("renameat");
    int r = f(dfrom, from, dto, to);
    if (cs__count2("rename", from, to)) cs__die();
    return r;
}
