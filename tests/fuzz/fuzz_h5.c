/*
 * fuzz_h5.c -- libFuzzer harness: the HDF5 run-file reader (cs_h5_open_read
 * and the row/attribute readers that `cowsim report`, `compare` and `check`
 * use) on corrupted run files.
 *
 * Input, two forms:
 *   - bytes starting with the HDF5 signature (\x89HDF\r\n\x1a\n) are the
 *     whole file (the seed corpus holds a valid small run file, so libFuzzer
 *     mutates real files);
 *   - anything else is a list of 4-byte edits applied to a template run file
 *     built once at start-up (every dataset holds rows, every attribute is
 *     set): edit [op, off_hi, off_lo, v] at offset (off * template_size /
 *     65536):  op % 4 = 0 set byte v, 1 xor v, 2 add v, 3 overwrite 4 bytes
 *     with an "interesting" little-endian value (0, 1, 0xff.., 2^31, ...).
 *     A trailing 1-3 bytes truncate the file to (byte / 256) of its length.
 * The result is written to a file in /dev/shm (tmpfs; HDF5 refuses to open
 * a memfd through /proc/self/fd/N), opened with cs_h5_open_read, and every
 * dataset and root attribute is read.
 *
 * cs_h5_open_read runs with its sandbox on (cs_h5.h): each input is first
 * read in a forked child, and a file that crashes libhdf5 there comes back
 * as CS_ECORRUPT; this process parses only files the child survived.  The
 * harness counts those contained crashes and prints the total at exit.
 * COWSIM_H5_SANDBOX_SECS defaults to 10 here (inputs loop libhdf5 often).
 * CS_FUZZ_H5_SAVE=path writes each input's file to path (to keep one that
 * crashes libhdf5 as a test fixture).
 *
 * Properties besides the sanitizers: open and reads return CS_OK or one of
 * CS_EIO / CS_EPARSE / CS_ENOMEM / CS_ERANGE / CS_ECORRUPT (never another code); a failed
 * open returns NULL; the template itself reads back exactly the rows that
 * were written.  A table claiming more than 8 MiB of rows is only sampled
 * (first and last rows) -- the reader sizes read_all from the file's own
 * extent (see the report's note on read_all).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "cs_h5.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CS__TROWS 37 /* rows per dataset in the template (not a chunk multiple) */

static uint8_t *cs__tmpl;    /* template file bytes */
static unsigned long long cs__tmpl_retries; /* template reads tried again (cs__read_all) */
static size_t cs__tmpl_n;    /* its size */
static uint8_t *cs__buf;     /* working copy */
static int cs__fd = -1;      /* the file the reader opens */
static char cs__path[64];    /* its path */

/* Abort with a message: a libFuzzer crash. */
static void cs__die(const char *what)
{
    fprintf(stderr, "fuzz_h5: %s\n", what);
    abort();
}

/* Row i of dataset ds in the template: deterministic "high entropy" bytes,
 * with valid enum values so the writer and reader accept them. */
static void cs__fill_row(int ds, size_t i, void *row)
{
    size_t rs = cs_h5_ds_row_size((cs_h5_ds)ds);
    uint8_t *b = row;
    for (size_t k = 0; k < rs; k++) b[k] = (uint8_t)(i * 131u + k * 29u + (size_t)ds * 7u);
    switch (ds) {
    case CS_H5_BLOCKS: {
        cs_h5_block_t *r = row;
        r->height = i + 1;
        r->utilisation = 0.2385 * (double)i;
        break;
    }
    case CS_H5_FIRES: {
        cs_h5_fire_t *r = row;
        r->kind = (uint32_t)(i % CS_AGENT_KIND_COUNT);
        r->value = 1.5 * (double)i;
        break;
    }
    case CS_H5_TIMERS: {
        cs_h5_timer_t *r = row;
        r->kind = (uint32_t)(i % CS_AGENT_KIND_COUNT);
        r->trigger = (uint32_t)(i % 3);
        r->outcome = (uint32_t)(i % 6);
        break;
    }
    case CS_H5_ACTORS: {
        cs_h5_actor_t *r = row;
        r->kind = (uint32_t)(i % CS_AGENT_KIND_COUNT);
        r->value = 2.0 * (double)i;
        break;
    }
    case CS_H5_SUMMARY: {
        cs_h5_summary_t *r = row;
        r->kind = (uint32_t)(i % (CS_AGENT_KIND_COUNT + 1));
        r->delay_p50 = r->delay_p95 = r->delay_p99 = r->delay_max = (double)i;
        r->value = r->utility = 0.5 * (double)i;
        r->paid = cs_h5_money((cs_u128)i << 70 | i); /* an amount above 2^64 */
        break;
    }
    case CS_H5_IDENTS: {
        cs_h5_ident_t *r = row;
        r->kind = (uint32_t)(i % 2);
        break;
    }
    default:
        break;
    }
}

/* Write the template run file and keep its bytes. */
static void cs__make_template(void)
{
    char path[] = "/tmp/fuzz_h5_tmpl_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) cs__die("mkstemp");
    close(fd);
    cs_h5_meta_t meta;
    memset(&meta, 0, sizeof meta);
    meta.cowsim_version = "0.1.0";
    meta.git_commit = "fuzz";
    meta.scenario_json = "{\"name\":\"fuzz\",\"blocks\":37,\"agents\":[{\"kind\":\"heartbeat\",\"count\":2}]}";
    meta.seed = 2385;
    meta.mechanism = "fifo";
    meta.sync_compress = 1;
    int err = 0;
    cs_h5_t *h = cs_h5_create(path, &meta, &err);
    if (!h) cs__die("cannot create the template");
    if (cs_h5_set_fires_mode(h, CS_H5_FIRES_ALL, 1) != CS_OK) cs__die("fires mode");
    _Alignas(16) uint8_t row[512]; /* >= the largest row (/blocks, 320 bytes) */
    for (int ds = 0; ds < CS_H5_NDS; ds++)
        for (size_t i = 0; i < CS__TROWS; i++) {
            cs__fill_row(ds, i, row);
            if (cs_h5_append(h, (cs_h5_ds)ds, row, 1) != CS_OK) cs__die("append");
        }
    if (cs_h5_attr_u64(h, "blocks_run", 37) != CS_OK || cs_h5_attr_f64(h, "jain", 0.875) != CS_OK ||
        cs_h5_attr_str(h, "note", "fuzz template") != CS_OK)
        cs__die("attributes");
    if (cs_h5_close(h, 1) != CS_OK) cs__die("close");
    FILE *f = fopen(path, "rb");
    if (!f) cs__die("reopen template");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    cs__tmpl = malloc((size_t)n);
    if (!cs__tmpl || fread(cs__tmpl, 1, (size_t)n, f) != (size_t)n) cs__die("read template");
    fclose(f);
    unlink(path);
    cs__tmpl_n = (size_t)n;
    cs__buf = malloc(cs__tmpl_n);
    if (!cs__buf) cs__die("buffer");
}

/* Remove the working file at exit and print the sandbox's counters. */
static void cs__cleanup(void)
{
    if (cs__fd >= 0) unlink(cs__path);
    cs_h5_sandbox_stats_t st = cs_h5_sandbox_stats();
    fprintf(stderr, "fuzz_h5: sandbox: %llu files read in a child, %llu crashed libhdf5 there (%llu timeouts), "
                    "contained as CS_ECORRUPT; template reads retried after a timeout: %llu\n",
            (unsigned long long)st.probes, (unsigned long long)st.crashes, (unsigned long long)st.timeouts,
            cs__tmpl_retries);
}

/* Build the template and the working file once. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* Inputs are at most 64 KiB and read in milliseconds; an input that
     * makes libhdf5 loop costs the sandbox's time limit, so keep it short:
     * 10 s unless set (2 s once timed out the untouched template on a
     * loaded CI machine; a template read that times out is now tried
     * again, see cs__read_all). */
    setenv("COWSIM_H5_SANDBOX_SECS", "10", 0);
    cs__make_template();
    snprintf(cs__path, sizeof cs__path, "/dev/shm/fuzz_h5_XXXXXX");
    cs__fd = mkstemp(cs__path);
    if (cs__fd < 0) {
        snprintf(cs__path, sizeof cs__path, "/tmp/fuzz_h5_XXXXXX");
        cs__fd = mkstemp(cs__path);
    }
    if (cs__fd < 0) cs__die("mkstemp");
    atexit(cs__cleanup);
    /* CS_FUZZ_H5_TEMPLATE=path: write the template out (to seed the corpus). */
    const char *out = getenv("CS_FUZZ_H5_TEMPLATE");
    if (out) {
        FILE *f = fopen(out, "wb");
        if (!f || fwrite(cs__tmpl, 1, cs__tmpl_n, f) != cs__tmpl_n) cs__die("writing the template");
        fclose(f);
    }
    return 0;
}

/* The reader's documented codes. */
static void cs__code(int rc, const char *what)
{
    if (rc != CS_OK && rc != CS_EIO && rc != CS_EPARSE && rc != CS_ENOMEM && rc != CS_ERANGE && rc != CS_ECORRUPT) {
        fprintf(stderr, "fuzz_h5: %s returned %d (%s)\n", what, rc, cs_errname(rc));
        abort();
    }
}

/* Read everything; `exact` = the file is the untouched template.  The
 * template reads in milliseconds, yet twice in many CI runs its sandbox
 * child ran into the time limit (2 s, then 10 s) at the harness's first
 * input, most likely because a child forked from this multi-threaded
 * process (libFuzzer runs threads) stopped for good on a lock another
 * thread held at the fork, which says nothing about the file.  So a template read that ends in a sandbox timeout is
 * tried again, up to three times in all; a reader that fails on the
 * template for any other reason, or three times, still stops the run.
 * The retries are printed at exit. */
static void cs__read_all(int exact)
{
    int err = CS_OK;
    cs_h5_reader_t *r = NULL;
    for (int attempt = 1;; attempt++) {
        uint64_t timeouts = cs_h5_sandbox_stats().timeouts;
        err = CS_OK;
        r = cs_h5_open_read(cs__path, &err);
        cs__code(err, "cs_h5_open_read");
        if (r || !exact || attempt == 3 || cs_h5_sandbox_stats().timeouts == timeouts) break;
        cs__tmpl_retries++;
    }
    if (!r) {
        if (err == CS_OK) cs__die("open failed with CS_OK");
        if (exact) {
            fprintf(stderr, "fuzz_h5: %s\n", cs_h5_last_error());
            cs__die("the template does not open");
        }
        return;
    }
    const cs_h5_info_t *in = cs_h5_info(r);
    if (!in || !in->mechanism || !in->scenario_json || !in->cowsim_version || !in->git_commit)
        cs__die("open succeeded without the root strings");
    if (exact && (in->seed != 2385 || in->complete != 1 || strcmp(in->mechanism, "fifo") != 0))
        cs__die("template attributes differ");
    static const char *const u64s[] = {"seed", "fires_seen", "fires_sample_every", "blocks_run", "complete",
                                       "format_version"};
    static const char *const strs[] = {"created_utc", "fires_mode", "note", "mechanism", "scenario_json"};
    for (size_t i = 0; i < sizeof u64s / sizeof u64s[0]; i++) {
        uint64_t v;
        cs__code(cs_h5_read_attr_u64(r, u64s[i], &v), u64s[i]);
    }
    double d;
    cs__code(cs_h5_read_attr_f64(r, "jain", &d), "jain");
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        char *s = NULL;
        int rc = cs_h5_read_attr_str(r, strs[i], &s);
        cs__code(rc, strs[i]);
        if (rc == CS_OK && !s) cs__die("string attribute CS_OK but NULL");
        free(s);
    }
    _Alignas(16) uint8_t want[512];
    for (int ds = 0; ds < CS_H5_NDS; ds++) {
        uint64_t n = 0;
        int rc = cs_h5_nrows(r, (cs_h5_ds)ds, &n);
        cs__code(rc, "cs_h5_nrows");
        if (rc != CS_OK) {
            if (exact) cs__die("template dataset missing");
            continue;
        }
        size_t rs = cs_h5_ds_row_size((cs_h5_ds)ds);
        if (n <= (8u << 20) / rs) {
            void *rows = NULL;
            size_t got = 0;
            rc = cs_h5_read_all(r, (cs_h5_ds)ds, &rows, &got);
            cs__code(rc, "cs_h5_read_all");
            if (rc == CS_OK && got != n) cs__die("read_all count differs from nrows");
            if (rc != CS_OK && (rows || got)) cs__die("read_all error left rows");
            if (exact) {
                if (rc != CS_OK || got != CS__TROWS) cs__die("template rows unreadable");
                for (size_t i = 0; i < got; i++) {
                    cs__fill_row(ds, i, want);
                    if (memcmp((uint8_t *)rows + i * rs, want, rs) != 0) cs__die("template row differs");
                }
            }
            free(rows);
        } else {
            /* A huge claimed extent: sample both ends. */
            uint8_t *rows = malloc(64 * rs);
            if (!rows) cs__die("malloc");
            cs__code(cs_h5_read_rows(r, (cs_h5_ds)ds, 0, 64, rows), "cs_h5_read_rows head");
            cs__code(cs_h5_read_rows(r, (cs_h5_ds)ds, n - 64, 64, rows), "cs_h5_read_rows tail");
            free(rows);
        }
        /* Out of range is refused, not read. */
        uint8_t one[256];
        if (cs_h5_read_rows(r, (cs_h5_ds)ds, n, 1, one) != CS_ERANGE) cs__die("read past the end not ERANGE");
    }
    cs_h5_close_read(r);
}

/* Every HDF5 object the reader opened is closed again, on success and on
 * every error path (HDF5's own allocations on a corrupt file are its
 * business; an id left open would be ours). */
static void cs__no_open_ids(void)
{
    ssize_t n = H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
    if (n != 0) {
        fprintf(stderr, "fuzz_h5: %zd HDF5 objects still open after the reader closed\n", n);
        abort();
    }
}

/* One input: a whole file or edits of the template; write it, read it all. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    const uint8_t *file;
    size_t n;
    int exact = 0;
    if (size >= 8 && memcmp(data, sig, 8) == 0) {
        file = data;
        n = size;
    } else {
        memcpy(cs__buf, cs__tmpl, cs__tmpl_n);
        n = cs__tmpl_n;
        static const uint32_t interesting[8] = {0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0xffffu, 0x100u, 64};
        size_t i = 0;
        for (; i + 4 <= size; i += 4) {
            size_t off = (((size_t)data[i + 1] << 8) | data[i + 2]) * cs__tmpl_n / 65536;
            uint8_t v = data[i + 3];
            switch (data[i] % 4) {
            case 0: cs__buf[off] = v; break;
            case 1: cs__buf[off] ^= v; break;
            case 2: cs__buf[off] = (uint8_t)(cs__buf[off] + v); break;
            default: {
                uint32_t x = interesting[v % 8];
                for (size_t k = 0; k < 4 && off + k < cs__tmpl_n; k++) cs__buf[off + k] = (uint8_t)(x >> (8 * k));
                break;
            }
            }
        }
        if (i < size) n = cs__tmpl_n * data[size - 1] / 256;
        exact = size == 0;
        file = cs__buf;
    }
    if (ftruncate(cs__fd, 0) != 0) cs__die("ftruncate");
    for (size_t off = 0; off < n;) {
        ssize_t w = pwrite(cs__fd, file + off, n - off, (off_t)off);
        if (w <= 0) cs__die("pwrite");
        off += (size_t)w;
    }
    const char *save = getenv("CS_FUZZ_H5_SAVE");
    if (save) {
        FILE *f = fopen(save, "wb");
        if (!f || fwrite(file, 1, n, f) != n) cs__die("CS_FUZZ_H5_SAVE");
        fclose(f);
    }
    cs_h5_set_sandbox(1);
    cs__read_all(exact);
    cs__no_open_ids();
    return 0;
}
