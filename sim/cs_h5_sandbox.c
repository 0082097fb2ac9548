/*
 * cs_h5_sandbox.c -- the reader sandbox: an untrusted run file is read whole
 * in a forked child with limits before this process parses it
 * (cs_h5_sandbox_call), and cs_h5_open_read, which opens a file through it.
 */
#include "cs_exit.h"
#include "cs_h5_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef CS_SANITIZE
#include <sanitizer/common_interface_defs.h>
#endif

/* ---- the reader sandbox -------------------------------------------------- */

/*
 * Why: libhdf5 1.10 trusts the structures of the file it parses; a corrupt
 * or hostile file can make it overflow the heap, read freed memory or ask
 * for terabytes (fuzzing found all three, e.g. in H5HG_read for string
 * attributes and in H5T_convert).  cowsim cannot fix libhdf5, so every
 * untrusted file is first read whole in a forked child: every root
 * attribute (numbers as int, uint64 and double, strings as strings), a
 * lookup of an absent attribute, and every row of every table.  The child
 * runs with core dumps off, an address-space limit (its current size +
 * CS__H5_SB_MEM) and a time limit (CS__H5_SB_SECS, or
 * COWSIM_H5_SANDBOX_SECS from the environment, + 1 s per 16 MiB of file);
 * its stdout and stderr go to /dev/null.  It sends through a pipe the first
 * error it met (code and message) or CS_OK, and exits 0.  The parent:
 *   - child finished with an error -> returns that code and message, never
 *     parsing the file itself;
 *   - child finished with CS_OK    -> opens the file in this process;
 *   - child died (signal, sanitizer exit, time or memory limit) -> CS_ECORRUPT
 *     naming the file and the way the child ended.
 * cs_h5_sandbox_call is the same child for any read function (cowsim
 * report uses it for sweep summaries).
 * The parent never takes a signal from libhdf5 on a file the child could
 * not read.  What remains: a bug that corrupts memory silently in the child
 * and only crashes in the parent (different heap layout) -- fuzz_h5 checks
 * the parent side under ASan.
 */

#define CS__H5_SB_SECS 30u                 /* base time limit of the child */
#define CS__H5_SB_MEM ((uint64_t)4 << 30)  /* address space it may add */
#define CS__H5_SB_PIECE ((size_t)64 << 20) /* bytes of rows per read in the child */

static int cs__h5_sb_mode = -1;      /* -1: not decided yet (environment), 0 off, 1 on */
static cs_h5_sandbox_stats_t cs__h5_sb_stats; /* counters of this process */

/* State of the child's walk over a file. */
typedef struct cs__h5_sb_walk {
    cs_h5_reader_t *r; /* the open file */
    int rc;            /* first error, or CS_OK */
} cs__h5_sb_walk_t;

#ifdef CS_COVERAGE
volatile int cs_cov_dumping; /* sim/cs_exit.h */
#endif

void cs_h5_set_sandbox(int on)
{
    cs__h5_sb_mode = on ? 1 : 0;
}

/* The sandbox is on unless turned off by cs_h5_set_sandbox(0) or by
 * COWSIM_H5_SANDBOX=0 in the environment. */
static int cs__h5_sb_on(void)
{
    if (cs__h5_sb_mode < 0) {
        const char *e = getenv("COWSIM_H5_SANDBOX");
        cs__h5_sb_mode = !(e && strcmp(e, "0") == 0);
    }
    return cs__h5_sb_mode;
}

cs_h5_sandbox_stats_t cs_h5_sandbox_stats(void)
{
    return cs__h5_sb_stats;
}

/* H5Aiterate2 callback of the child: read attribute name the way its class
 * is read (integers and floats as int, uint64 and double, strings as
 * strings); attributes of other classes or shapes are never read by cowsim
 * and are skipped.  The first failure goes to *(int *)data and stops. */
static herr_t cs__h5_sb_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    cs__h5_sb_walk_t *w = data;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t t = a < 0 ? H5I_INVALID_HID : H5Aget_type(a);
    hid_t sp = a < 0 ? H5I_INVALID_HID : H5Aget_space(a);
    H5T_class_t c = t < 0 ? H5T_NO_CLASS : H5Tget_class(t);
    hssize_t np = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
    cs__h5_close_id(&sp, H5Sclose);
    cs__h5_close_id(&t, H5Tclose);
    cs__h5_close_id(&a, H5Aclose);
    if (c == H5T_NO_CLASS || np < 0) {
        w->rc = cs__h5_fail(CS_ECORRUPT, "root attribute '%s' unreadable", name);
        return 1;
    }
    if (np != 1) return 0; /* not a scalar: no reader of cowsim's reads it */
    uint64_t u;
    double d;
    int i;
    char *str = NULL;
    int rc = CS_OK;
    if (c == H5T_INTEGER || c == H5T_FLOAT) {
        rc = cs_h5_read_attr_u64(w->r, name, &u);
        if (rc == CS_OK) rc = cs_h5_read_attr_f64(w->r, name, &d);
        if (rc == CS_OK) rc = cs__h5_rd_num(w->r, name, H5T_NATIVE_INT, &i);
    } else if (c == H5T_STRING) {
        rc = cs_h5_read_attr_str(w->r, name, &str);
        free(str);
    }
    if (rc != CS_OK) {
        w->rc = rc;
        return 1;
    }
    return 0;
}

/* The child's work: open path, then read all of it.  *rc is the first
 * error (cs__h5_msg holds its message) or CS_OK: the parent then opens a
 * file its own process has read completely. */
static int cs__h5_sb_read(const char *path, void *arg)
{
    (void)arg;
    int orc;
    cs__h5_sb_walk_t w = {cs__h5_open_direct(path, &orc), CS_OK};
    if (!w.r) return orc;
    hsize_t idx = 0;
    if (H5Aiterate2(w.r->file, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, cs__h5_sb_attr, &w) < 0 && w.rc == CS_OK)
        w.rc = cs__h5_fail(CS_ECORRUPT, "listing the root attributes");
    if (w.rc == CS_OK && H5Aexists(w.r->file, "cs_sandbox_absent") < 0)
        w.rc = cs__h5_fail(CS_ECORRUPT, "looking up a root attribute");
    for (int ds = 0; ds < CS_H5_NDS && w.rc == CS_OK; ds++) {
        uint64_t n;
        w.rc = cs_h5_nrows(w.r, (cs_h5_ds)ds, &n);
        if (w.rc != CS_OK || n == 0) continue;
        size_t rs = cs__h5_desc[ds].row;
        size_t piece = CS__H5_SB_PIECE / rs;
        if (piece > n) piece = (size_t)n;
        void *buf = malloc(piece * rs);
        if (!buf) {
            w.rc = cs__h5_fail(CS_ENOMEM, "reading /%s", cs__h5_desc[ds].name);
            break;
        }
        for (uint64_t at = 0; at < n && w.rc == CS_OK;) {
            size_t k = n - at < piece ? (size_t)(n - at) : piece;
            w.rc = cs_h5_read_rows(w.r, (cs_h5_ds)ds, at, k, buf);
            at += k;
        }
        free(buf);
    }
    if (w.rc != CS_OK) {
        char why[sizeof cs__h5_msg];
        memcpy(why, cs__h5_msg, sizeof why);
        snprintf(cs__h5_msg, sizeof cs__h5_msg, "'%.240s': %.700s", path, why);
    }
    cs_h5_close_read(w.r);
    return w.rc;
}

/* What the child sends: the open's code and message. */
typedef struct cs__h5_sb_msg {
    int rc;          /* CS_OK or the open's error code */
    char msg[1024];  /* cs_h5_last_error() after the open */
} cs__h5_sb_msg_t;

/* Child side: limits, the reads, the report, _exit (no atexit handlers,
 * nothing of the parent's flushed or closed). */
static void cs__h5_sb_child(const char *path, cs_h5_sandbox_fn fn, void *arg, int wfd, unsigned secs)
{
    struct rlimit rl = {0, 0};
    (void)setrlimit(RLIMIT_CORE, &rl);
#ifdef CS_SANITIZE
    /* Under ASan the address space is mostly shadow reservations and cannot
     * be limited; and a fuzzing driver's crash callback must not treat the
     * child's death as its own. */
    __sanitizer_set_death_callback(NULL);
#else
    FILE *st = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (st) {
        if (fscanf(st, "%lu", &pages) != 1) pages = 0;
        fclose(st);
    }
    rl.rlim_cur = rl.rlim_max = (rlim_t)((uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE) + CS__H5_SB_MEM);
    (void)setrlimit(RLIMIT_AS, &rl);
#endif
    int nul = open("/dev/null", O_RDWR);
    if (nul >= 0) {
        (void)dup2(nul, STDOUT_FILENO);
        (void)dup2(nul, STDERR_FILENO);
        if (nul > STDERR_FILENO) close(nul);
    }
    signal(SIGALRM, SIG_DFL);
    alarm(secs);
    cs__h5_sb_msg_t m;
    memset(&m, 0, sizeof m);
    cs__h5_msg[0] = '\0';
    m.rc = fn(path, arg);
    snprintf(m.msg, sizeof m.msg, "%s", cs__h5_msg);
    const char *p = (const char *)&m;
    for (size_t off = 0; off < sizeof m;) {
        ssize_t w = write(wfd, p + off, sizeof m - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) cs_child_exit(1);
        off += (size_t)w;
    }
    cs_child_exit(0);
}

int cs_h5_sandbox_call(const char *path, cs_h5_sandbox_fn fn, void *arg, int *fn_rc)
{
    int dummy;
    if (!fn_rc) fn_rc = &dummy;
    *fn_rc = CS_OK;
    if (!path || !fn) return CS_EINVAL;
    if (!cs__h5_sb_on()) return CS_OK;
    struct stat sb;
    uint64_t size = stat(path, &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
    unsigned base = CS__H5_SB_SECS;
    const char *e = getenv("COWSIM_H5_SANDBOX_SECS");
    if (e && *e) {
        char *end;
        unsigned long v = strtoul(e, &end, 10);
        if (*end == '\0' && v >= 1 && v <= 86400) base = (unsigned)v;
    }
    unsigned secs = base + (unsigned)(size >> 24 > 86400 ? 86400 : size >> 24);
    int fd[2];
    if (pipe(fd) != 0) return cs__h5_fail(CS_EIO, "reading '%s': pipe: %s", path, strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        int fe = errno;
        close(fd[0]);
        close(fd[1]);
        return cs__h5_fail(CS_EIO, "reading '%s': cannot start the reader sandbox: %s", path, strerror(fe));
    }
    if (pid == 0) {
        close(fd[0]);
        cs__h5_sb_child(path, fn, arg, fd[1], secs);
    }
    close(fd[1]);
    cs__h5_sb_stats.probes++;
    cs__h5_sb_msg_t m;
    size_t got = 0;
    while (got < sizeof m) {
        ssize_t n = read(fd[0], (char *)&m + got, sizeof m - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got == sizeof m && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        m.msg[sizeof m.msg - 1] = '\0';
        snprintf(cs__h5_msg, sizeof cs__h5_msg, "%s", m.msg);
        *fn_rc = m.rc;
        return CS_OK;
    }
    cs__h5_sb_stats.crashes++;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
        cs__h5_sb_stats.timeouts++;
        return cs__h5_fail(CS_ECORRUPT, "'%s': reading it took longer than %u s; the file is corrupt or not a "
                           "cowsim run file", path, secs);
    }
    if (WIFSIGNALED(status))
        return cs__h5_fail(CS_ECORRUPT, "'%s': the HDF5 library crashed reading it (%s); the file is corrupt "
                           "or not a cowsim run file", path, strsignal(WTERMSIG(status)));
    return cs__h5_fail(CS_ECORRUPT, "'%s': the HDF5 library failed reading it (reader exit status %d); the "
                       "file is corrupt or not a cowsim run file", path, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

cs_h5_reader_t *cs_h5_open_read(const char *path, int *err)
{
    int dummy;
    if (!err) err = &dummy;
    *err = CS_OK;
    cs__h5_lib_init();
    cs__h5_msg[0] = '\0';
    if (!path) {
        *err = CS_EINVAL;
        return NULL;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (cs__h5_sb_on()) {
        /* A missing or unreadable file is told without a child. */
        FILE *f = fopen(path, "rb");
        if (!f) {
            *err = cs__h5_fail(CS_EIO, "cannot open '%s': %s", path, strerror(errno));
            return NULL;
        }
        fclose(f);
        int fn_rc = CS_OK;
        int rc = cs_h5_sandbox_call(path, cs__h5_sb_read, NULL, &fn_rc);
        if (rc == CS_OK) rc = fn_rc;
        if (rc != CS_OK) {
            *err = rc;
            return NULL;
        }
    }
    cs_h5_reader_t *r = cs__h5_open_direct(path, err);
    /* The cross-checks of a complete file's tables (issue 25). */
    int vrc = r ? cs__h5_verify(r, path) : CS_OK;
    if (vrc != CS_OK) {
        cs_h5_close_read(r);
        *err = vrc;
        return NULL;
    }
    return r;
}
