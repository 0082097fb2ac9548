/*
 * cs_h5_writer.c -- the HDF5 run file writer (DESIGN §5); see cs_h5.h.
 *
 * Write path.  Each dataset has one chunk buffer ("cur").  Appended rows are
 * copied into it, or the caller fills them there in place (cs_h5_row_next,
 * cs_h5_row_commit: the engine's /fires and /timers rows); when it holds a
 * whole chunk the chunk is compressed
 * (byte shuffle, then a zlib stream: cs_h5_zip.c) and written with H5Dwrite_chunk, which
 * bypasses HDF5's own filter pipeline and type conversion.  The bytes are
 * exactly what the dataset's declared filters (shuffle, deflate, then the
 * Fletcher-32 checksum of the compressed bytes, appended here as the filter
 * would) decode, so every HDF5 reader sees ordinary filtered chunks and
 * verifies each chunk's checksum as it reads it (issue 25: a damaged file
 * is refused, not read as other numbers).  With a helper thread the
 * compression of up to CS__H5_DEPTH chunks overlaps the caller; the main
 * thread alone talks to HDF5, and it writes finished chunks only at points
 * fixed by the sequence of API calls (when the job ring is full, at flush and
 * at close), so the file layout does not depend on thread timing.
 *
 * After every batch of chunk writes the metadata is flushed (H5Fflush), so
 * the work file is consistent whenever control is back in the caller; but
 * HDF5 1.10 rewrites chunks and metadata in place in no crash-safe order, so
 * a kill *inside* a flush could tear it (N48).  Readers therefore never see
 * the work file: checkpoints publish whole copies of it by rename.
 */
#include "cs_h5_int.h"
#include "cs_h5_zip.h"
#include "cs_libm.h"
#include "cs_publish.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- attributes ------------------------------------------------------------ */

/* Create or replace the scalar attribute name on loc with file type ftype,
 * written from buf in memory type mtype.  CS_OK or CS_EIO. */
static int cs__h5_put_attr(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *buf)
{
    int rc = CS_OK;
    hid_t sp = H5Screate(H5S_SCALAR), a = H5I_INVALID_HID;
    htri_t ex = sp < 0 ? -1 : H5Aexists(loc, name);
    if (ex < 0 || (ex > 0 && H5Adelete(loc, name) < 0)) {
        rc = cs__h5_fail(CS_EIO, "attribute '%s'", name);
        goto out;
    }
    a = H5Acreate2(loc, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, mtype, buf) < 0) rc = cs__h5_fail(CS_EIO, "attribute '%s'", name);
out:
    cs__h5_close_id(&a, H5Aclose);
    cs__h5_close_id(&sp, H5Sclose);
    return rc;
}

/* Create or replace a UTF-8 variable-length string attribute (NULL -> ""). */
static int cs__h5_put_str(hid_t loc, const char *name, const char *s)
{
    hid_t t = cs__h5_vlstr();
    if (t < 0) return cs__h5_fail(CS_EIO, "string type");
    const char *p = s ? s : "";
    int rc = cs__h5_put_attr(loc, name, t, t, &p);
    H5Tclose(t);
    return rc;
}

/* Create or replace a uint64 attribute. */
static int cs__h5_put_u64(hid_t loc, const char *name, uint64_t v)
{
    return cs__h5_put_attr(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &v);
}

/* Create or replace an int32 attribute. */
static int cs__h5_put_i32(hid_t loc, const char *name, int32_t v)
{
    return cs__h5_put_attr(loc, name, H5T_STD_I32LE, H5T_NATIVE_INT32, &v);
}

/* ---- writer ------------------------------------------------------------------- */

#define CS__H5_DEPTH 8 /* chunks in flight on the helper thread (DESIGN-NOTES N26) */

enum { CS__JOB_FREE, CS__JOB_QUEUED, CS__JOB_BUSY, CS__JOB_DONE };

typedef struct cs__h5_job {
    int state;      /* CS__JOB_*; guarded by cs_h5.mu while threaded */
    int ds;         /* dataset index */
    uint64_t chunk; /* chunk index within the dataset */
    uint8_t *raw;   /* the full chunk's rows (owned by the job until retired) */
    uint8_t *out;   /* compressed bytes (owned by the job slot) */
    size_t out_len; /* bytes used in out */
    int rc;         /* compression result */
    const char *why; /* compression failure text */
} cs__h5_job_t;

typedef struct cs__h5_wds {
    hid_t dset;        /* open dataset */
    uint8_t *cur;      /* chunk being filled (chunk_rows rows) */
    uint8_t *spare[CS__H5_DEPTH]; /* recycled chunk buffers, n_spare in use */
    unsigned n_spare;  /* entries in spare */
    uint32_t crows;    /* rows per chunk of this file (cs__h5_chunk_rows) */
    uint32_t fill;     /* rows in cur */
    uint32_t flushed;  /* rows of cur already written by a flush */
    uint64_t chunk;    /* index of the chunk cur holds */
    uint64_t extent;   /* current dataset extent in rows */
    uint64_t rows;     /* rows accepted so far */
} cs__h5_wds_t;

struct cs_h5 {
    hid_t file;                   /* the open file */
    int err;                      /* sticky error, CS_OK while healthy */
    cs__h5_wds_t ds[CS_H5_NDS];   /* per-dataset state */
    int fires_mode;               /* cs_h5_fires_mode */
    uint64_t sample_every;        /* N for CS_H5_FIRES_SAMPLE */
    uint64_t fires_seen;          /* fires offered to append_fires */
    cs__h5_zip_t mzip;            /* main thread's compression workspace */
    uint8_t *mout;                /* main thread's compressed-output buffer */
    size_t out_cap;               /* bytes in mout and in each job's out */
    int threaded;                 /* helper thread running */
    pthread_t thread;             /* the helper */
    pthread_mutex_t mu;           /* guards jobs[].state, wnext, stop */
    pthread_cond_t cv_work;       /* signalled when a job is queued or stop set */
    pthread_cond_t cv_done;       /* signalled when a job is done */
    int stop;                     /* helper should exit when idle */
    cs__h5_job_t jobs[CS__H5_DEPTH]; /* ring of jobs */
    unsigned head;                /* oldest job (main thread) */
    unsigned count;               /* jobs not yet retired (main thread) */
    unsigned wnext;               /* next job the helper takes */
    cs__h5_zip_t wzip;            /* helper's compression workspace */
    /* Publishing (N48).  HDF5 writes the work file <out>.work, never read by
     * anyone; each checkpoint copies it whole to <out>.tmp, fsyncs that and
     * renames it over <out>, so <out> is always a complete HDF5 file. */
    char *out;                    /* the path readers open; NULL: direct mode (file is out) */
    char *work;                   /* <out>.work: the file HDF5 writes */
    char *tmp;                    /* <out>.tmp: the copy being published */
    int work_fd;                  /* read-only descriptor of the work file, -1 if none */
    uint64_t pub_ns;              /* duration of the last publish */
    uint64_t pub_size;            /* bytes it copied */
    uint64_t pub_end;             /* CLOCK_MONOTONIC ns when it ended */
    uint64_t pub_factor;          /* checkpoint when now - pub_end >= pub_factor * pub_ns */
};

/* Helper thread: compress queued jobs in ring order until stopped. */
static void *cs__h5_worker(void *arg)
{
    cs_h5_t *h = arg;
    pthread_mutex_lock(&h->mu);
    for (;;) {
        cs__h5_job_t *j = &h->jobs[h->wnext];
        while (!h->stop && j->state != CS__JOB_QUEUED) pthread_cond_wait(&h->cv_work, &h->mu);
        if (j->state != CS__JOB_QUEUED) break;
        j->state = CS__JOB_BUSY;
        pthread_mutex_unlock(&h->mu);
        const cs__h5_dsdesc_t *d = &cs__h5_desc[j->ds];
        size_t len = 0;
        const char *why = NULL;
        uint32_t cr = h->ds[j->ds].crows;
        int rc = cs__h5_compress(&h->wzip, j->raw, d->frow, cr, cr, j->out, h->out_cap, &len,
                                 &why);
        pthread_mutex_lock(&h->mu);
        j->rc = rc;
        j->why = why;
        j->out_len = len;
        j->state = CS__JOB_DONE;
        h->wnext = (h->wnext + 1) % CS__H5_DEPTH;
        pthread_cond_broadcast(&h->cv_done);
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

/* Record err as the writer's sticky error (first one wins) and return it. */
static int cs__h5_set_err(cs_h5_t *h, int err)
{
    if (err != CS_OK && h->err == CS_OK) h->err = err;
    return err;
}

/*
 * Write one compressed chunk of dataset dsi holding rows [chunk * C,
 * chunk * C + nrows), growing the extent first, then flush metadata so the
 * file on disk stays consistent.  CS_OK or CS_EIO.
 */
static int cs__h5_write_chunk(cs_h5_t *h, int dsi, uint64_t chunk, uint32_t nrows,
                              const uint8_t *data, size_t len)
{
    cs__h5_wds_t *w = &h->ds[dsi];
    const cs__h5_dsdesc_t *d = &cs__h5_desc[dsi];
    hsize_t off = (hsize_t)chunk * h->ds[dsi].crows;
    hsize_t end = off + nrows;
    if (end > w->extent) {
        if (H5Dset_extent(w->dset, &end) < 0)
            return cs__h5_fail(CS_EIO, "extending /%s to %llu rows", d->name,
                               (unsigned long long)end);
        w->extent = end;
    }
    if (H5Dwrite_chunk(w->dset, H5P_DEFAULT, 0, &off, len, data) < 0)
        return cs__h5_fail(CS_EIO, "writing /%s chunk %llu", d->name, (unsigned long long)chunk);
    if (H5Fflush(h->file, H5F_SCOPE_LOCAL) < 0)
        return cs__h5_fail(CS_EIO, "flushing after /%s chunk %llu", d->name,
                           (unsigned long long)chunk);
    return CS_OK;
}

/* Compress and write on the main thread: rows [0, nrows) of raw as chunk
 * `chunk` of dataset dsi (raw holds a whole chunk; rows past nrows must be
 * zero so the bytes are deterministic). */
static int cs__h5_write_now(cs_h5_t *h, int dsi, uint64_t chunk, const uint8_t *raw, uint32_t nrows)
{
    const cs__h5_dsdesc_t *d = &cs__h5_desc[dsi];
    size_t len = 0;
    const char *why = NULL;
    int rc = cs__h5_compress(&h->mzip, raw, d->frow, h->ds[dsi].crows, nrows, h->mout, h->out_cap, &len, &why);
    if (rc != CS_OK) return cs__h5_fail(rc, "compressing /%s: %s", d->name, why);
    return cs__h5_write_chunk(h, dsi, chunk, nrows, h->mout, len);
}

/* Wait for the oldest job, write it, recycle its buffer. */
static int cs__h5_retire(cs_h5_t *h)
{
    cs__h5_job_t *j = &h->jobs[h->head];
    /* Done, the job is the main thread's again: FREE under the mutex, like
     * every other access to a job's state (once the helper has compressed
     * the whole ring it waits on this very job, wnext == head, and reads
     * its state at each wake-up).  Only this thread queues a job, and not
     * this one before it is retired, so its buffers stay ours below. */
    pthread_mutex_lock(&h->mu);
    while (j->state != CS__JOB_DONE) pthread_cond_wait(&h->cv_done, &h->mu);
    j->state = CS__JOB_FREE;
    pthread_mutex_unlock(&h->mu);
    const cs__h5_dsdesc_t *d = &cs__h5_desc[j->ds];
    int rc = j->rc;
    if (rc != CS_OK)
        rc = cs__h5_fail(rc, "compressing /%s: %s", d->name, j->why ? j->why : "?");
    else
        rc = cs__h5_write_chunk(h, j->ds, j->chunk, h->ds[j->ds].crows, j->out, j->out_len);
    cs__h5_wds_t *w = &h->ds[j->ds];
    if (w->n_spare < CS__H5_DEPTH)
        w->spare[w->n_spare++] = j->raw;
    else
        free(j->raw);
    j->raw = NULL;
    h->head = (h->head + 1) % CS__H5_DEPTH;
    h->count--;
    return cs__h5_set_err(h, rc);
}

/* cur of dataset dsi holds a whole chunk: hand it to the helper (or write it
 * now) and start the next chunk. */
static int cs__h5_submit(cs_h5_t *h, int dsi)
{
    cs__h5_wds_t *w = &h->ds[dsi];
    const cs__h5_dsdesc_t *d = &cs__h5_desc[dsi];
    int rc = CS_OK;
    if (h->threaded) {
        if (h->count == CS__H5_DEPTH && (rc = cs__h5_retire(h)) != CS_OK) return rc;
        cs__h5_job_t *j = &h->jobs[(h->head + h->count) % CS__H5_DEPTH];
        pthread_mutex_lock(&h->mu);
        j->ds = dsi;
        j->chunk = w->chunk;
        j->raw = w->cur;
        j->state = CS__JOB_QUEUED;
        pthread_cond_signal(&h->cv_work);
        pthread_mutex_unlock(&h->mu);
        h->count++;
        w->cur = w->n_spare ? w->spare[--w->n_spare] : malloc(d->frow * w->crows);
        if (!w->cur) return cs__h5_set_err(h, cs__h5_fail(CS_ENOMEM, "chunk buffer for /%s", d->name));
    } else {
        rc = cs__h5_write_now(h, dsi, w->chunk, w->cur, w->crows);
        if (rc != CS_OK) return cs__h5_set_err(h, rc);
    }
    w->chunk++;
    w->fill = 0;
    w->flushed = 0;
    return CS_OK;
}

/* Copy n rows into dataset dsi's buffer, submitting each chunk that fills. */
static int cs__h5_push(cs_h5_t *h, int dsi, const uint8_t *src, size_t n)
{
    cs__h5_wds_t *w = &h->ds[dsi];
    const cs__h5_dsdesc_t *d = &cs__h5_desc[dsi];
    while (n > 0) {
        size_t room = w->crows - w->fill;
        size_t take = n < room ? n : room;
        if (d->encoded)
            cs__h5_encode(d, w->cur + (size_t)w->fill * d->frow, src, take);
        else
            memcpy(w->cur + (size_t)w->fill * d->frow, src, take * d->frow);
        w->fill += (uint32_t)take;
        w->rows += take;
        src += take * d->row;
        n -= take;
        if (w->fill == w->crows) {
            int rc = cs__h5_submit(h, dsi);
            if (rc != CS_OK) return rc;
        }
    }
    return CS_OK;
}

int cs_h5_append(cs_h5_t *h, cs_h5_ds ds, const void *rows, size_t n)
{
    if (!h || (unsigned)ds >= CS_H5_NDS || (!rows && n > 0)) return CS_EINVAL;
    if (h->err) return h->err;
    if (n == 0) return CS_OK;
    if (ds != CS_H5_FIRES) return cs__h5_push(h, (int)ds, rows, n);
    /* Fires: apply output.fires. */
    h->fires_seen += n;
    if (h->fires_mode == CS_H5_FIRES_OFF) return CS_OK;
    if (h->fires_mode == CS_H5_FIRES_ALL || h->sample_every == 1)
        return cs__h5_push(h, CS_H5_FIRES, rows, n);
    const cs_h5_fire_t *f = rows;
    size_t i = 0;
    while (i < n) {
        while (i < n && f[i].timer_id % h->sample_every != 0) i++;
        size_t j = i;
        while (j < n && f[j].timer_id % h->sample_every == 0) j++;
        if (j > i) {
            int rc = cs__h5_push(h, CS_H5_FIRES, (const uint8_t *)(f + i), j - i);
            if (rc != CS_OK) return rc;
        }
        i = j;
    }
    return CS_OK;
}

/* See cs_h5.h.  Rows of ds go in place when they are stored as the struct
 * is and every row offered is kept (the fires mode's filter of
 * cs_h5_append passes them all). */
void *cs_h5_row_next(cs_h5_t *h, cs_h5_ds ds, size_t *room)
{
    if (!h || (unsigned)ds >= CS_H5_NDS || h->err || cs__h5_desc[ds].encoded) return NULL;
    if (ds == CS_H5_FIRES && (h->fires_mode == CS_H5_FIRES_OFF ||
                              !(h->fires_mode == CS_H5_FIRES_ALL || h->sample_every == 1)))
        return NULL;
    cs__h5_wds_t *w = &h->ds[ds];
    *room = w->crows - w->fill;
    return w->cur + (size_t)w->fill * cs__h5_desc[ds].frow;
}

/* See cs_h5.h: cs__h5_push's bookkeeping for one row already in cur. */
int cs_h5_row_commit(cs_h5_t *h, cs_h5_ds ds)
{
    if (!h || (unsigned)ds >= CS_H5_NDS) return CS_EINVAL;
    if (h->err) return h->err;
    cs__h5_wds_t *w = &h->ds[ds];
    if (ds == CS_H5_FIRES) h->fires_seen++;
    w->fill++;
    w->rows++;
    return w->fill == w->crows ? cs__h5_submit(h, (int)ds) : CS_OK;
}

/* Typed wrappers of cs_h5_append. */
int cs_h5_append_blocks(cs_h5_t *h, const cs_h5_block_t *rows, size_t n)
{
    return cs_h5_append(h, CS_H5_BLOCKS, rows, n);
}

int cs_h5_append_fires(cs_h5_t *h, const cs_h5_fire_t *rows, size_t n)
{
    return cs_h5_append(h, CS_H5_FIRES, rows, n);
}

int cs_h5_append_timers(cs_h5_t *h, const cs_h5_timer_t *rows, size_t n)
{
    return cs_h5_append(h, CS_H5_TIMERS, rows, n);
}

int cs_h5_append_actors(cs_h5_t *h, const cs_h5_actor_t *rows, size_t n)
{
    return cs_h5_append(h, CS_H5_ACTORS, rows, n);
}

int cs_h5_append_weights(cs_h5_t *h, const cs_h5_weight_t *rows, size_t n)
{
    return cs_h5_append(h, CS_H5_WEIGHTS, rows, n);
}

int cs_h5_append_summary(cs_h5_t *h, const cs_h5_summary_t *rows, size_t n)
{
    return cs_h5_append(h, CS_H5_SUMMARY, rows, n);
}

int cs_h5_append_idents(cs_h5_t *h, const cs_h5_ident_t *rows, size_t n)
{
    return cs_h5_append(h, CS_H5_IDENTS, rows, n);
}

uint64_t cs_h5_rows(const cs_h5_t *h, cs_h5_ds ds)
{
    return h && (unsigned)ds < CS_H5_NDS ? h->ds[ds].rows : 0;
}

/* ---- publishing (DESIGN-NOTES N48) --------------------------------------- */

#define CS__H5_PUB_BYTES (4u << 20) /* copies from this size on cost in proportion to bytes */

static uint64_t cs__h5_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* Copy the first len bytes of in to out, both from offset 0: with
 * copy_file_range (in the kernel; a reflink on file systems that share
 * extents), else with pread/pwrite where the kernel or the file system pair
 * cannot.  Returns 0, or -1 with errno set. */
static int cs__h5_copy(int in, int out, off_t len)
{
    off_t done = 0;
    while (done < len) {
        off_t ioff = done, ooff = done;
        ssize_t k = copy_file_range(in, &ioff, out, &ooff, (size_t)(len - done), 0);
        if (k > 0) {
            done += k;
            continue;
        }
        if (k == 0) { /* the source is shorter than its fstat said */
            errno = EIO;
            return -1;
        }
        if (errno == EINTR) continue;
        if (done == 0 && (errno == ENOSYS || errno == EXDEV || errno == EOPNOTSUPP || errno == EINVAL))
            break;
        return -1;
    }
    uint8_t buf[1 << 16];
    while (done < len) {
        size_t want = (size_t)(len - done) < sizeof buf ? (size_t)(len - done) : sizeof buf;
        ssize_t r = pread(in, buf, want, done);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            if (r == 0) errno = EIO;
            return -1;
        }
        for (ssize_t w = 0; w < r;) {
            ssize_t k = pwrite(out, buf + w, (size_t)(r - w), done + w);
            if (k < 0 && errno == EINTR) continue;
            if (k < 0) return -1;
            w += k;
        }
        done += r;
    }
    return 0;
}

/*
 * Publish the work file, which must be flushed (every byte a reader needs is
 * in it): copy it to <out>.tmp, then cs_publish_commit (fsync the copy,
 * rename it over <out>, fsync the directory).  The rename is atomic, so a
 * kill at any moment leaves at <out> either the previous copy or this one,
 * each a whole HDF5 file.  Records the duration
 * for the checkpoint rule (cs_h5_checkpoint).  CS_OK or CS_EIO.
 */
static int cs__h5_publish(cs_h5_t *h)
{
    uint64_t t0 = cs__h5_now_ns();
    struct stat st;
    if (fstat(h->work_fd, &st) != 0)
        return cs__h5_fail(CS_EIO, "cannot write '%s': %s: %s", h->out, h->work, strerror(errno));
    int fd = cs_publish_create(h->tmp); /* never through a planted link */
    if (fd < 0) return cs__h5_fail(CS_EIO, "cannot write '%s': %s: %s", h->out, h->tmp, strerror(errno));
    int ok = cs__h5_copy(h->work_fd, fd, st.st_size) == 0 && cs_publish_commit(fd, h->tmp, h->out) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        unlink(h->tmp);
        return cs__h5_fail(CS_EIO, "cannot write '%s': %s", h->out, strerror(e));
    }
    h->pub_end = cs__h5_now_ns();
    h->pub_ns = h->pub_end - t0;
    h->pub_size = (uint64_t)st.st_size;
    return CS_OK;
}

/* Write every buffered row to the work file and flush HDF5's metadata. */
static int cs__h5_flush_work(cs_h5_t *h)
{
    if (!h) return CS_EINVAL;
    if (h->err) return h->err;
    while (h->count > 0)
        if (cs__h5_retire(h) != CS_OK) return h->err;
    for (int i = 0; i < CS_H5_NDS; i++) {
        cs__h5_wds_t *w = &h->ds[i];
        const cs__h5_dsdesc_t *d = &cs__h5_desc[i];
        if (w->fill <= w->flushed) continue;
        /* Zero the unused tail so the partial chunk's bytes are deterministic. */
        memset(w->cur + (size_t)w->fill * d->frow, 0, (size_t)(w->crows - w->fill) * d->frow);
        int rc = cs__h5_write_now(h, i, w->chunk, w->cur, w->fill);
        if (rc != CS_OK) return cs__h5_set_err(h, rc);
        w->flushed = w->fill;
    }
    /* A checkpoint publishes this state: say how many fires it covers, as
     * the close does (an incomplete file must say how far it got; N48). */
    int rc = cs__h5_put_u64(h->file, "fires_seen", h->fires_seen);
    if (rc != CS_OK) return cs__h5_set_err(h, rc);
    if (H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0)
        return cs__h5_set_err(h, cs__h5_fail(CS_EIO, "H5Fflush"));
    return CS_OK;
}

int cs_h5_flush(cs_h5_t *h)
{
    int rc = cs__h5_flush_work(h);
    if (rc != CS_OK || !h->out) return rc;
    return cs__h5_set_err(h, cs__h5_publish(h));
}

int cs_h5_checkpoint(cs_h5_t *h)
{
    int rc = cs__h5_flush_work(h);
    if (rc != CS_OK || !h->out) return rc;
    /* Publish only when the time since the last publish is at least
     * pub_factor times what this publish will cost, predicted as the last
     * publish's duration scaled by the growth of the file (a copy costs in
     * proportion to the bytes; not below CS__H5_PUB_BYTES, where the fixed
     * costs of open, fsync and rename dominate): copying then takes at most
     * 1 / (pub_factor + 1) of the writer's wall time (N48). */
    struct stat st;
    if (fstat(h->work_fd, &st) != 0)
        return cs__h5_set_err(h, cs__h5_fail(CS_EIO, "cannot write '%s': %s: %s", h->out, h->work,
                                              strerror(errno)));
    double cost = (double)h->pub_ns;
    if (h->pub_size >= CS__H5_PUB_BYTES && (uint64_t)st.st_size > h->pub_size)
        cost *= (double)st.st_size / (double)h->pub_size;
    if ((double)(cs__h5_now_ns() - h->pub_end) < (double)h->pub_factor * cost) return CS_OK;
    return cs__h5_set_err(h, cs__h5_publish(h));
}

int cs_h5_set_fires_mode(cs_h5_t *h, cs_h5_fires_mode mode, uint64_t sample_every)
{
    if (!h || (unsigned)mode > CS_H5_FIRES_OFF || (mode == CS_H5_FIRES_SAMPLE && sample_every == 0))
        return CS_EINVAL;
    if (h->fires_seen > 0) return CS_EINVAL;
    if (h->err) return h->err;
    h->fires_mode = (int)mode;
    h->sample_every = mode == CS_H5_FIRES_SAMPLE ? sample_every : 1;
    int rc = cs__h5_put_str(h->file, "fires_mode", cs__h5_fires_mode_names[mode]);
    if (rc == CS_OK) rc = cs__h5_put_u64(h->file, "fires_sample_every", h->sample_every);
    return cs__h5_set_err(h, rc);
}

int cs_h5_attr_u64(cs_h5_t *h, const char *name, uint64_t v)
{
    if (!h || !name || !*name) return CS_EINVAL;
    if (h->err) return h->err;
    return cs__h5_set_err(h, cs__h5_put_u64(h->file, name, v));
}

int cs_h5_attr_f64(cs_h5_t *h, const char *name, double v)
{
    if (!h || !name || !*name) return CS_EINVAL;
    if (h->err) return h->err;
    return cs__h5_set_err(h, cs__h5_put_attr(h->file, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v));
}

int cs_h5_attr_str(cs_h5_t *h, const char *name, const char *s)
{
    if (!h || !name || !*name || !s) return CS_EINVAL;
    if (h->err) return h->err;
    return cs__h5_set_err(h, cs__h5_put_str(h->file, name, s));
}

/* Free everything the writer owns; HDF5 ids must already be closed.  Stops
 * the helper thread if running. */
static void cs__h5_free(cs_h5_t *h)
{
    if (h->threaded) {
        pthread_mutex_lock(&h->mu);
        h->stop = 1;
        pthread_cond_broadcast(&h->cv_work);
        pthread_mutex_unlock(&h->mu);
        pthread_join(h->thread, NULL);
        pthread_cond_destroy(&h->cv_work);
        pthread_cond_destroy(&h->cv_done);
        pthread_mutex_destroy(&h->mu);
        h->threaded = 0;
    }
    for (int i = 0; i < CS__H5_DEPTH; i++) {
        free(h->jobs[i].raw);
        free(h->jobs[i].out);
    }
    for (int i = 0; i < CS_H5_NDS; i++) {
        free(h->ds[i].cur);
        for (unsigned k = 0; k < h->ds[i].n_spare; k++) free(h->ds[i].spare[k]);
    }
    if (h->work_fd >= 0) close(h->work_fd);
    free(h->out);
    free(h->work);
    free(h->tmp);
    free(h->mout);
    cs__h5_zip_free(&h->mzip);
    cs__h5_zip_free(&h->wzip);
    free(h);
}

/* Close the datasets and the file; returns CS_OK or CS_EIO. */
static int cs__h5_close_file(cs_h5_t *h)
{
    for (int i = 0; i < CS_H5_NDS; i++) cs__h5_close_id(&h->ds[i].dset, H5Dclose);
    int rc = CS_OK;
    if (h->file >= 0 && H5Fclose(h->file) < 0) rc = cs__h5_fail(CS_EIO, "closing the run file");
    h->file = H5I_INVALID_HID;
    return rc;
}

int cs_h5_close(cs_h5_t *h, int complete)
{
    if (!h) return CS_OK;
    int rc = cs__h5_flush_work(h);
    if (rc == CS_OK) rc = cs__h5_put_u64(h->file, "fires_seen", h->fires_seen);
    if (rc == CS_OK) rc = cs__h5_put_i32(h->file, "complete", complete ? 1 : 0);
    /* Last: the digest of every other root attribute (cs_h5_attrs.c). */
    char dig[65];
    if (rc == CS_OK) {
        int drc = cs__h5_attrs_digest(h->file, dig);
        if (drc == CS_ENOMEM) rc = cs__h5_fail(CS_ENOMEM, "out of memory hashing the root attributes");
        else if (drc != CS_OK) rc = cs__h5_fail(CS_EIO, "hashing the root attributes");
        else rc = cs__h5_put_str(h->file, CS__H5_ATTRS_DIGEST, dig);
    }
    if (rc == CS_OK && H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0) rc = cs__h5_fail(CS_EIO, "H5Fflush");
    /* Keep the first error's message: closing a failed file fails again. */
    char first[sizeof cs__h5_msg];
    memcpy(first, cs__h5_msg, sizeof first);
    int crc = cs__h5_close_file(h);
    if (rc == CS_OK)
        rc = crc;
    else
        memcpy(cs__h5_msg, first, sizeof first);
    if (h->out && rc == CS_OK) {
        /* The closed work file is the finished file: make it durable and
         * rename it into place (no copy); the lock is held up to the
         * rename and dropped right after it. */
        if (cs_publish_commit(h->work_fd, h->work, h->out) != 0)
            rc = cs__h5_fail(CS_EIO, "cannot write '%s': %s", h->out, strerror(errno));
    }
    /* After a failure <out> keeps the last checkpoint; the work file may be
     * torn (a failed write) and is removed. */
    if (h->out && rc != CS_OK) unlink(h->work);
    cs__h5_free(h);
    return rc;
}

/*
 * Rows per chunk of dataset dsi in a file for a run of `blocks` blocks (0:
 * unknown).  A partial chunk is stored, and compressed at every flush, at
 * its full size, zeros included, so a short run with the long-run chunks
 * spends most of its time compressing zeros (a 40-block run: ~60 % of its
 * CPU).  Short runs therefore get smaller chunks: /blocks one row a block,
 * the other tables 16 rows a block, as powers of two, never below 64 rows
 * nor above the layout's chunk (cs__h5_desc).  The chunk size changes how
 * the file is stored, never a value in it.
 */
static uint32_t cs__h5_chunk_rows(const cs__h5_dsdesc_t *d, int dsi, uint64_t blocks)
{
    if (blocks == 0) return d->chunk_rows;
    uint64_t want = dsi == CS_H5_BLOCKS ? blocks : blocks * 16;
    uint32_t r = 64;
    while (r < want && r < d->chunk_rows) r <<= 1;
    return r < d->chunk_rows ? r : d->chunk_rows;
}

/* Create dataset dsi (empty, extendible, chunked, shuffle + deflate + fletcher32) with
 * its "description" attribute. */
static int cs__h5_make_ds(cs_h5_t *h, int dsi)
{
    const cs__h5_dsdesc_t *d = &cs__h5_desc[dsi];
    int rc = CS_OK;
    hsize_t zero = 0, unlim = H5S_UNLIMITED, chunk = h->ds[dsi].crows;
    hid_t type = cs__h5_row_type(d, NULL);
    hid_t space = H5Screate_simple(1, &zero, &unlim);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    /* Filter order matters: the chunk bytes are deflate(shuffle(rows))
     * followed by their Fletcher-32 checksum (cs__h5_compress). */
    if (type < 0 || space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, &chunk) < 0 ||
        H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, 1) < 0 || H5Pset_fletcher32(dcpl) < 0 ||
        H5Pset_obj_track_times(dcpl, 0) < 0) {
        rc = cs__h5_fail(CS_EIO, "dataset properties for /%s", d->name);
        goto out;
    }
    h->ds[dsi].dset = H5Dcreate2(h->file, d->name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (h->ds[dsi].dset < 0) {
        rc = cs__h5_fail(CS_EIO, "creating /%s", d->name);
        goto out;
    }
    char desc[8192];
    size_t used = 0;
    for (size_t i = 0; i < d->nfield && used < sizeof desc; i++) {
        const cs__h5_field_t *f = &d->field[i];
        int k = f->kind == CS__H5_F_MONEY
                    ? snprintf(desc + used, sizeof desc - used,
                               "%s (f64), %s_hi, %s_lo (u64; exact = hi * 2^64 + lo): %s\n", f->name,
                               f->name, f->name, f->doc)
                    : snprintf(desc + used, sizeof desc - used, "%s (%s): %s\n", f->name,
                               cs__h5_col_type_name(f->kind), f->doc);
        if (k < 0) break;
        used += (size_t)k;
    }
    rc = cs__h5_put_str(h->ds[dsi].dset, "description", desc);
    if (rc == CS_OK) {
        h->ds[dsi].cur = malloc(d->frow * h->ds[dsi].crows);
        if (!h->ds[dsi].cur) rc = cs__h5_fail(CS_ENOMEM, "chunk buffer for /%s", d->name);
    }
out:
    cs__h5_close_id(&dcpl, H5Pclose);
    cs__h5_close_id(&space, H5Sclose);
    cs__h5_close_id(&type, H5Tclose);
    return rc;
}

/* Write the creation-time root attributes. */
static int cs__h5_root_attrs(cs_h5_t *h, const cs_h5_meta_t *m)
{
    char when[32] = "";
    time_t now = time(NULL);
    struct tm tmv;
    if (gmtime_r(&now, &tmv)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    int rc = cs__h5_put_i32(h->file, "format_version",
                            m->format_version ? (int32_t)m->format_version : CS_H5_FORMAT_VERSION);
    if (rc == CS_OK) rc = cs__h5_put_str(h->file, "cowsim_version", m->cowsim_version);
    if (rc == CS_OK) rc = cs__h5_put_str(h->file, "git_commit", m->git_commit);
    if (rc == CS_OK) rc = cs__h5_put_str(h->file, "libm", cs_libm_name()); /* N115 */
    if (rc == CS_OK) rc = cs__h5_put_str(h->file, "scenario_json", m->scenario_json);
    if (rc == CS_OK) rc = cs__h5_put_u64(h->file, "seed", m->seed);
    if (rc == CS_OK) rc = cs__h5_put_str(h->file, "mechanism", m->mechanism);
    if (rc == CS_OK) rc = cs__h5_put_str(h->file, "created_utc", when);
    if (rc == CS_OK) rc = cs__h5_put_str(h->file, "fires_mode", "all");
    if (rc == CS_OK) rc = cs__h5_put_u64(h->file, "fires_sample_every", 1);
    if (rc == CS_OK) rc = cs__h5_put_i32(h->file, "complete", 0);
    if (rc == CS_OK) rc = cs__h5_put_u64(h->file, "fires_seen", 0);
    return rc;
}

/* Start the helper thread and its job buffers; on any failure the writer
 * simply stays synchronous. */
static void cs__h5_start_thread(cs_h5_t *h)
{
    for (int i = 0; i < CS__H5_DEPTH; i++) {
        h->jobs[i].out = malloc(h->out_cap);
        if (!h->jobs[i].out) return;
    }
    if (pthread_mutex_init(&h->mu, NULL) != 0) return;
    if (pthread_cond_init(&h->cv_work, NULL) != 0) {
        pthread_mutex_destroy(&h->mu);
        return;
    }
    if (pthread_cond_init(&h->cv_done, NULL) != 0) {
        pthread_cond_destroy(&h->cv_work);
        pthread_mutex_destroy(&h->mu);
        return;
    }
    if (pthread_create(&h->thread, NULL, cs__h5_worker, h) != 0) {
        pthread_cond_destroy(&h->cv_done);
        pthread_cond_destroy(&h->cv_work);
        pthread_mutex_destroy(&h->mu);
        return;
    }
    h->threaded = 1;
}

/* Default of pub_factor: publishing costs at most 1/21 (4.8 %) of the run. */
#define CS__H5_PUB_FACTOR 20

/* "<a><b>" in a new allocation, or NULL. */
static char *cs__h5_cat(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *s = malloc(na + nb + 1);
    if (s) {
        memcpy(s, a, na);
        memcpy(s + na, b, nb + 1);
    }
    return s;
}

/*
 * Decide where HDF5 writes (N48).  A new path or a regular file is published
 * through a work file: h->out, h->work = <out>.work and h->tmp = <out>.tmp
 * are set (a symbolic link to a regular file is followed, so that the file
 * it names is replaced, not the link).  Anything else that exists (a device
 * such as /dev/null or /dev/full, a FIFO) is written in place, direct mode
 * (h->out stays NULL): renaming over it would replace the device node.  A
 * directory is an error.  Reads COWSIM_H5_CHECKPOINT_FACTOR.
 */
static int cs__h5_paths(cs_h5_t *h, const char *path)
{
    const char *env = getenv("COWSIM_H5_CHECKPOINT_FACTOR");
    char *end = NULL;
    unsigned long long f = env && *env ? strtoull(env, &end, 10) : CS__H5_PUB_FACTOR;
    h->pub_factor = end && *end ? CS__H5_PUB_FACTOR : (uint64_t)f;
    struct stat st;
    char real[PATH_MAX];
    const char *out = path;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return cs__h5_fail(CS_EIO, "cannot create '%s': %s", path, strerror(EISDIR));
        if (!S_ISREG(st.st_mode)) return CS_OK;
        struct stat lst;
        if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && realpath(path, real)) out = real;
    }
    h->out = cs__h5_cat(out, "");
    h->work = cs__h5_cat(out, ".work");
    h->tmp = cs__h5_cat(out, ".tmp");
    if (!h->out || !h->work || !h->tmp) return cs__h5_fail(CS_ENOMEM, "allocating the writer");
    return CS_OK;
}

cs_h5_t *cs_h5_create(const char *path, const cs_h5_meta_t *meta, int *err)
{
    int dummy;
    if (!err) err = &dummy;
    *err = CS_OK;
    cs__h5_lib_init();
    cs__h5_msg[0] = '\0';
    if (!path || !meta) {
        *err = CS_EINVAL;
        return NULL;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    cs_h5_t *h = calloc(1, sizeof *h);
    if (!h) {
        *err = cs__h5_fail(CS_ENOMEM, "allocating the writer");
        return NULL;
    }
    h->file = H5I_INVALID_HID;
    h->work_fd = -1;
    for (int i = 0; i < CS_H5_NDS; i++) h->ds[i].dset = H5I_INVALID_HID;
    h->fires_mode = CS_H5_FIRES_ALL;
    h->sample_every = 1;

    size_t maxb = 0;
    for (int i = 0; i < CS_H5_NDS; i++) {
        const cs__h5_dsdesc_t *d = &cs__h5_desc[i];
        h->ds[i].crows = cs__h5_chunk_rows(d, i, meta->blocks_hint);
        size_t b = cs__h5_out_bound(d->frow * h->ds[i].crows, d->frow);
        if (b > maxb) maxb = b;
    }
    h->out_cap = maxb;
    h->mout = malloc(maxb);
    if (!h->mout) {
        *err = cs__h5_fail(CS_ENOMEM, "allocating the writer");
        cs__h5_free(h);
        return NULL;
    }

    int rc = cs__h5_paths(h, path);
    if (rc != CS_OK) {
        *err = rc;
        cs__h5_free(h);
        return NULL;
    }
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fcpl < 0 || fapl < 0 || H5Pset_obj_track_times(fcpl, 0) < 0 ||
        H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 ||
        /* The 1.8 file format: superblock v2 and object headers v2 carry
         * checksums, so damaged root attributes or dataset headers are
         * refused by HDF5 itself (issue 25); chunks carry Fletcher-32. */
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0) {
        rc = cs__h5_fail(CS_EIO, "file properties");
    }
    /* The work file is ours alone: an exclusive flock on it, held by
     * work_fd until the close, before HDF5 truncates it -- a second writer
     * to the same path fails here without touching it (N48).  HDF5's own
     * lock would be a second flock on the same file, refused: it is off for
     * the work file (and in direct mode only asked for, not required). */
    if (rc == CS_OK && h->out) {
        int existed = 0;
        h->work_fd = cs_publish_lock(h->work, &existed);
        if (h->work_fd < 0 && errno == EWOULDBLOCK)
            rc = cs__h5_fail(CS_EIO, "%s is being written by another run (%s is locked)", path, h->work);
        else if (h->work_fd < 0)
            rc = cs__h5_fail(CS_EIO, "cannot create '%s': %s: %s", path, h->work, strerror(errno));
        if (rc == CS_OK && existed) cs_publish_note_replacing(h->work);
        if (rc == CS_OK) cs_publish_drop_stale(h->tmp);
    }
#if H5_VERSION_GE(1, 10, 7)
    if (rc == CS_OK && H5Pset_file_locking(fapl, h->out ? 0 : 1, 1) < 0) rc = cs__h5_fail(CS_EIO, "file locking");
#else
    if (rc == CS_OK && h->out) setenv("HDF5_USE_FILE_LOCKING", "FALSE", 1);
#endif
    if (rc == CS_OK) {
        h->file = H5Fcreate(h->out ? h->work : path, H5F_ACC_TRUNC, fcpl, fapl);
        if (h->file < 0)
            rc = h->out ? cs__h5_fail(CS_EIO, "cannot create '%s' (its work file %s)", path, h->work)
                        : cs__h5_fail(CS_EIO, "cannot create '%s'", path);
    }
    /* HDF5 opened the work file by name: it must still be the regular file
     * we created and locked, not a link planted meanwhile (issue 25 #7). */
    if (rc == CS_OK && h->out) {
        struct stat a, b;
        if (fstat(h->work_fd, &a) != 0 || lstat(h->work, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
            rc = cs__h5_fail(CS_EIO, "cannot create '%s': its work file %s was replaced while opening", path,
                             h->work);
    }
    /* The work file is ours (created, locked): remove an earlier file at
     * <out>, so that a kill before the first checkpoint cannot leave an
     * earlier run's file looking like this run's. */
    if (rc == CS_OK && h->out && unlink(h->out) != 0 && errno != ENOENT)
        rc = cs__h5_fail(CS_EIO, "cannot create '%s': %s", path, strerror(errno));
    cs__h5_close_id(&fcpl, H5Pclose);
    cs__h5_close_id(&fapl, H5Pclose);
    if (rc == CS_OK) rc = cs__h5_root_attrs(h, meta);
    for (int i = 0; i < CS_H5_NDS && rc == CS_OK; i++) rc = cs__h5_make_ds(h, i);
    if (rc == CS_OK && H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0)
        rc = cs__h5_fail(CS_EIO, "cannot write '%s'", path);
    /* The first checkpoint: from here on <out> always holds a whole file. */
    if (rc == CS_OK && h->out) rc = cs__h5_publish(h);
    if (rc != CS_OK) {
        *err = rc;
        cs__h5_close_file(h);
        if (h->out && h->work_fd >= 0) unlink(h->work);
        cs__h5_free(h);
        return NULL;
    }
    if (!meta->sync_compress) cs__h5_start_thread(h);
    return h;
}
