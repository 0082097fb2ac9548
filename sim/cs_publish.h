/*
 * cs_publish.h -- publishing output files by rename, one way for every
 * writer (run files and their checkpoints, sweep.h5, harm.h5, a blessed
 * baseline, report.md; DESIGN-NOTES N48).
 *
 * A writer never writes the path readers open.  It writes a temporary
 * beside it and publishes it with cs_publish_commit: fsync the temporary,
 * rename it over the output (atomic: a reader sees the old file or the new
 * one, never a half-written one), fsync the directory so that the rename
 * itself survives a power loss.  A run file's work file <out>.work is held
 * under an exclusive flock for the writer's lifetime (cs_publish_lock), so
 * that a second writer to the same path fails at once instead of
 * truncating it; the kernel drops the lock when the writer exits, however
 * it exits, so a killed run never blocks the next one.
 *
 * Leftovers.  A kill leaves <out>.work and <out>.tmp beside the output
 * (names ending in ".h5.work" or ".h5.tmp").  Writers that replace one say
 * so (cs_publish_note_replacing); `compare` and `report` list those they
 * see next to their inputs (cs_publish_scan).
 *
 * Nothing here allocates memory that outlives a call.
 */
#ifndef CS_PUBLISH_H
#define CS_PUBLISH_H

#include <stddef.h>
#include <stdio.h>

/*
 * Publish tmp as out: fsync tmp (through fd, or through a descriptor opened
 * here when fd < 0), rename(tmp, out), fsync the directory holding out.
 * A flock held through fd (a work file's, cs_publish_lock) is released
 * right after the rename: out is no longer the path writers lock, and
 * readers that lock what they open (HDF5 by default) must not be refused.
 * Returns 0, or -1 with errno set; tmp is then left for the caller to
 * remove (it may already be out, if only the directory fsync failed).
 */
int cs_publish_commit(int fd, const char *tmp, const char *out);

/*
 * fsync the directory holding path (the part before its last '/', or ".").
 * A file system that cannot sync directories (EINVAL) counts as done.
 * Returns 0, or -1 with errno set.
 */
int cs_publish_sync_dir(const char *path);

/*
 * Open path read-only, creating it (mode 0666 & ~umask) if absent, and take
 * an exclusive flock on it without waiting (a few short retries, so that a
 * reader's momentary probe does not fail a writer).  The lock is held until
 * the returned descriptor is closed (or the process ends).  *existed is set
 * to 1 when the file was there before this call and no one held it: a
 * leftover of an interrupted writer.  Returns the descriptor, or -1 with
 * errno set: EWOULDBLOCK when another process holds the lock.
 */
int cs_publish_lock(const char *path, int *existed);

/* The one stderr line a writer prints before it replaces path, a leftover
 * of an interrupted run: "cowsim: note: replacing <path>, left by an
 * interrupted run". */
void cs_publish_note_replacing(const char *path);

/*
 * Remove path if it exists, after cs_publish_note_replacing; for a writer's
 * temporary (<out>.tmp, sweep.h5.tmp, harm.h5.tmp) found at its start.
 * Returns 1 if there was one, else 0.
 */
int cs_publish_drop_stale(const char *path);

enum {
    CS_PUBLISH_STALE = 1, /* a leftover of an interrupted run: nobody writes it */
    CS_PUBLISH_LIVE = 2   /* a run still running holds it */
};

/*
 * Whether the leftover path (a name ending in ".h5.work" or ".h5.tmp") is
 * CS_PUBLISH_LIVE -- flock-ed by a writer, itself or, for <out>.tmp, its
 * <out>.work -- or CS_PUBLISH_STALE.
 */
int cs_publish_leftover_state(const char *path);

/*
 * For `compare` and `report`: print one stderr line per leftover work or
 * temporary file of an output ("*.h5.work", "*.h5.tmp") in the directory of
 * each input (the input itself when it is a directory) and in that
 * directory's subdirectories two levels down (seed-<s>/ of a multi-seed run,
 * runs/<id>/ of a sweep), in name order, each directory once however many
 * inputs share it:
 *   "cowsim <cmd>: note: <path> is left by an interrupted run"
 *   "cowsim <cmd>: note: <path> is being written by a run still running"
 * An input "-" (standard input) is skipped.  Returns the number of lines
 * printed.
 */
size_t cs_publish_scan(const char *cmd, const char *const *inputs, size_t n);

/*
 * Create path as a new, empty regular file for writing, never through a
 * link: whatever is at path (a stale temporary, a planted symlink, a hard
 * link to some other file) is unlinked first -- only the name goes, never
 * what it points to -- and the file is opened O_CREAT | O_EXCL |
 * O_NOFOLLOW, so a link planted between the two steps makes the open fail
 * instead of writing elsewhere.  For every file cowsim writes by name in an
 * output directory (temporaries, report's data files, plots).  Returns the
 * descriptor, or -1 with errno set (a directory at path is not removed).
 */
int cs_publish_create(const char *path);

/* cs_publish_create as a stdio stream for writing ("w"); NULL with errno. */
FILE *cs_publish_fcreate(const char *path);

/* mkdir -p path: create every missing directory.  Returns 0, or -1 with
 * errno set (ENOTDIR when path exists and is not a directory).  Shared by
 * run, sweep and report. */
int cs_mkdirs(const char *path);

#endif
