/*
 * cs_publish.c -- publishing output files by rename, locking a work file,
 * reporting leftovers of killed runs; see cs_publish.h (DESIGN-NOTES N48).
 */
#include "cs_publish.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The directory part of path into buf ("." when there is none). */
static const char *cs__pub_dirname(const char *path, char *buf, size_t cap)
{
    const char *sl = strrchr(path, '/');
    if (!sl) snprintf(buf, cap, ".");
    else if (sl == path) snprintf(buf, cap, "/");
    else snprintf(buf, cap, "%.*s", (int)(sl - path), path);
    return buf;
}

int cs_publish_sync_dir(const char *path)
{
    char dir[4096];
    int fd = open(cs__pub_dirname(path, dir, sizeof dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc != 0 && e != EINVAL) {
        errno = e;
        return -1;
    }
    return 0;
}

int cs_publish_commit(int fd, const char *tmp, const char *out)
{
    int own = -1;
    if (fd < 0) {
        own = open(tmp, O_RDONLY | O_CLOEXEC);
        if (own < 0) return -1;
        fd = own;
    }
    /* The bytes first, then the name: a rename that reaches the disk before
     * the data would publish a file of holes after a power loss. */
    int rc = fsync(fd);
    int e = errno;
    if (own >= 0) close(own);
    if (rc != 0) {
        errno = e;
        return -1;
    }
    if (rename(tmp, out) != 0) return -1;
    /* Renamed, the file is no longer the work file writers lock: drop a
     * lock fd holds (cs_publish_lock) at once, so that a reader that locks
     * what it opens (HDF5's default) is not refused the finished file. */
    if (own < 0) flock(fd, LOCK_UN);
    return cs_publish_sync_dir(out);
}

int cs_publish_lock(const char *path, int *existed)
{
    *existed = 0;
    for (int attempt = 0;; attempt++) {
        int fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        int old = 0;
        if (fd < 0 && errno == EEXIST) {
            old = 1;
            /* Never through a link: a symlink planted at the work path
             * would make the writer truncate its target (issue 25 #7).
             * It is only a name in the output directory: remove it. */
            fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK); /* (a fifo must not block) */
            if (fd < 0 && errno == ELOOP) {
                if (attempt > 100) return -1;
                if (unlink(path) != 0 && errno != ENOENT) return -1;
                continue;
            }
            if (fd < 0 && errno == ENOENT) continue; /* renamed away just now: create it */
        }
        if (fd < 0) return -1;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            close(fd);
            /* A reader's probe (cs_publish_leftover_state) holds a shared
             * lock for a moment: retry a few times, 20 ms apart. */
            if (e == EWOULDBLOCK && attempt < 5) {
                struct timespec ts = {0, 20 * 1000 * 1000};
                nanosleep(&ts, NULL);
                continue;
            }
            errno = e;
            return -1;
        }
        /* The previous holder may have renamed or removed the file between
         * our open and our lock: then the lock is on a file that is no
         * longer path, and we start over. */
        struct stat a, b;
        if (fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            if (!S_ISREG(a.st_mode) || a.st_nlink != 1) { /* a fifo, a device, a hard link to another file */
                close(fd);
                if (attempt > 100) {
                    errno = ELOOP;
                    return -1;
                }
                if (unlink(path) != 0 && errno != ENOENT) return -1;
                continue;
            }
            *existed = old;
            return fd;
        }
        close(fd);
    }
}

int cs_publish_create(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode) && unlink(path) != 0 && errno != ENOENT) return -1;
    return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

FILE *cs_publish_fcreate(const char *path)
{
    int fd = cs_publish_create(path);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

void cs_publish_note_replacing(const char *path)
{
    fprintf(stderr, "cowsim: note: replacing %s, left by an interrupted run\n", path);
}

int cs_publish_drop_stale(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return 0;
    cs_publish_note_replacing(path);
    unlink(path);
    return 1;
}

/* 1 if some process holds a flock on path (a shared probe is refused). */
static int cs__pub_locked(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return 0;
    int held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return held;
}

/* 1 if name ends in suffix. */
static int cs__pub_ends(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n >= k && strcmp(name + n - k, suffix) == 0;
}

int cs_publish_leftover_state(const char *path)
{
    if (cs__pub_locked(path)) return CS_PUBLISH_LIVE;
    size_t n = strlen(path);
    if (cs__pub_ends(path, ".tmp") && n < 4096) {
        /* <out>.tmp is the copy a checkpoint is publishing; its writer
         * holds <out>.work. */
        char work[4100];
        snprintf(work, sizeof work, "%.*s.work", (int)(n - 4), path);
        if (cs__pub_locked(work)) return CS_PUBLISH_LIVE;
    }
    return CS_PUBLISH_STALE;
}

/* Scan dir for leftovers, then its subdirectories down to depth levels. */
static size_t cs__pub_scan_dir(const char *cmd, const char *dir, int depth)
{
    struct dirent **ents = NULL;
    int n = scandir(dir, &ents, NULL, alphasort);
    if (n < 0) return 0;
    size_t lines = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            const char *name = ents[i]->d_name;
            if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
            char path[4096];
            if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) continue;
            struct stat st;
            if (lstat(path, &st) != 0) continue;
            if (pass == 0 && S_ISREG(st.st_mode) &&
                (cs__pub_ends(name, ".h5.work") || cs__pub_ends(name, ".h5.tmp"))) {
                if (cs_publish_leftover_state(path) == CS_PUBLISH_LIVE)
                    fprintf(stderr, "cowsim %s: note: %s is being written by a run still running\n", cmd, path);
                else
                    fprintf(stderr, "cowsim %s: note: %s is left by an interrupted run\n", cmd, path);
                lines++;
            } else if (pass == 1 && depth > 0 && S_ISDIR(st.st_mode)) {
                lines += cs__pub_scan_dir(cmd, path, depth - 1);
            }
        }
    for (int i = 0; i < n; i++) free(ents[i]);
    free(ents);
    return lines;
}

size_t cs_publish_scan(const char *cmd, const char *const *inputs, size_t n)
{
    size_t lines = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(inputs[i], "-") == 0) continue;
        char di[4096], dj[4096];
        struct stat st;
        if (stat(inputs[i], &st) == 0 && S_ISDIR(st.st_mode)) snprintf(di, sizeof di, "%s", inputs[i]);
        else cs__pub_dirname(inputs[i], di, sizeof di);
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) {
            if (stat(inputs[j], &st) == 0 && S_ISDIR(st.st_mode)) snprintf(dj, sizeof dj, "%s", inputs[j]);
            else cs__pub_dirname(inputs[j], dj, sizeof dj);
            seen = strcmp(di, dj) == 0;
        }
        if (!seen) lines += cs__pub_scan_dir(cmd, di, 2);
    }
    return lines;
}

/* mkdir -p path: create every missing directory.  Returns 0, or -1 with
 * errno set (ENOTDIR when path exists and is not a directory). */
int cs_mkdirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            buf[i] = c;
        }
    }
    struct stat sb;
    if (stat(path, &sb) != 0) return -1;
    if (!S_ISDIR(sb.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}
