/*
 * cs_h5.c -- the HDF5 run file writer and reader (DESIGN §5); see cs_h5.h.
 *
 * Write path.  Each dataset has one chunk buffer ("cur").  Appended rows are
 * copied into it; when it holds a whole chunk the chunk is compressed
 * (byte shuffle, then a zlib stream) and written with H5Dwrite_chunk, which
 * bypasses HDF5's own filter pipeline and type conversion.  The bytes are
 * exactly what the dataset's declared filters (shuffle, deflate) decode, so
 * every HDF5 reader sees ordinary filtered chunks.  With a helper thread the
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
#include "cs_h5.h"
#include "cs_publish.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <zlib.h>

#include "cs_agent.h"
#include "cs_timer.h"

#ifdef CS_SANITIZE
#include <sanitizer/common_interface_defs.h>
#endif

/* The row structs are written as raw bytes with little-endian file types. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "cs_h5 assumes a little-endian host");
_Static_assert(sizeof(double) == 8, "f64 columns are IEEE binary64");
/* The trigger enum mirrors cs_timer_kind (core/cs_timer.h). */
_Static_assert(CS_H5_TRIGGER_HEIGHT == (int)CS_KIND_HEIGHT &&
                   CS_H5_TRIGGER_INTERVAL == (int)CS_KIND_INTERVAL &&
                   CS_H5_TRIGGER_WATCH == (int)CS_KIND_WATCH,
               "trigger values follow cs_timer_kind");

/* ---- enumerations ---------------------------------------------------------- */

const char *const cs_h5_kind_names[] = {
#define CS__AGENT_KIND_NAME(id, str) str,
    CS_AGENT_KIND_MAP(CS__AGENT_KIND_NAME)
#undef CS__AGENT_KIND_NAME
};
_Static_assert(sizeof cs_h5_kind_names / sizeof cs_h5_kind_names[0] == CS_AGENT_KIND_COUNT,
               "one name per agent kind");

_Static_assert(CS_AGENT_KIND_COUNT == (int)CS_AK__COUNT, "cs_h5 and cs_agent list the same kinds");
_Static_assert(CS_AGENT_KIND_DEMAND_CURVE == (int)CS_AK_DEMAND_CURVE &&
                   CS_AGENT_KIND_WAITING_GAME == (int)CS_AK_WAITING_GAME,
               "same kind order as cs_agent.h");

/* The HDF5 enum "agent_kind" also has "all" = CS_AGENT_KIND_ALL (/summary). */
static const char *const cs__h5_trigger_names[] = {"HEIGHT", "INTERVAL", "WATCH"};
static const char *const cs__h5_outcome_names[] = {"fired",     "expired", "insufficient",
                                                   "cancelled", "pending", "rejected"};
static const char *const cs__h5_fires_mode_names[] = {"all", "sample", "off"};
static const char *const cs__h5_ident_kind_names[] = {"actor", "deployer"};

/* Return the kind named s, or -1 (linear scan over 13 names). */
int cs_h5_kind_lookup(const char *s)
{
    if (!s) return -1;
    for (int i = 0; i < CS_AGENT_KIND_COUNT; i++)
        if (strcmp(s, cs_h5_kind_names[i]) == 0) return i;
    return -1;
}

/* ---- column descriptors (generated from the header's tables) --------------- */

enum {
    CS__H5_F_U64,
    CS__H5_F_U32,
    CS__H5_F_F64,
    CS__H5_F_KIND,
    CS__H5_F_TRIG,
    CS__H5_F_OUTC,
    CS__H5_F_DIGEST,
    CS__H5_F_IDK,
    CS__H5_F_NAME,
    CS__H5_F_MONEY
};

typedef struct cs__h5_field {
    const char *name; /* column name, as in the C struct */
    int kind;         /* CS__H5_F_* */
    size_t off;       /* offsetof in the row struct */
    size_t foff;      /* offset in the file row */
    const char *doc;  /* one-line description */
} cs__h5_field_t;

/*
 * File rows.  The digest is a 32-byte array in the C struct but a 64-char
 * lowercase hex string in the file: h5py turns an array member into a 2-D
 * sub-array that pandas refuses, and an opaque member into numpy 'V32',
 * which pandas can hold but not select or take.  'S64' works everywhere
 * and reads like the keccak test vectors.  Only /blocks has a digest, so
 * only /blocks is re-encoded on write (one row per block: negligible); the
 * other tables are written as raw bytes of their structs.
 */
typedef char cs__h5_hex_t[64];
#define CS__H5_FTYPE_U64 uint64_t
#define CS__H5_FTYPE_U32 uint32_t
#define CS__H5_FTYPE_F64 double
#define CS__H5_FTYPE_KIND uint32_t
#define CS__H5_FTYPE_TRIG uint32_t
#define CS__H5_FTYPE_OUTC uint32_t
#define CS__H5_FTYPE_DIGEST cs__h5_hex_t
#define CS__H5_FTYPE_IDK uint32_t
#define CS__H5_FTYPE_NAME cs_h5_name_t
#define CS__H5_FTYPE_MONEY cs_h5_money_t /* three file columns: <name>, <name>_hi, <name>_lo */
#define CS__H5_FMEMBER(name, kind, doc) CS__H5_FTYPE_##kind name;
#define CS__H5_FSIZE(name, kind, doc) +sizeof(CS__H5_FTYPE_##kind)
typedef struct cs__h5_block_file { CS_H5_BLOCK_FIELDS(CS__H5_FMEMBER) } cs__h5_block_file_t;
_Static_assert(sizeof(cs__h5_block_file_t) == 0 CS_H5_BLOCK_FIELDS(CS__H5_FSIZE) &&
                   sizeof(cs__h5_block_file_t) == 376,
               "/blocks file rows have no padding");

#define CS__H5_FD(T, FT, name, kind, doc) \
    {#name, CS__H5_F_##kind, offsetof(T, name), offsetof(FT, name), doc},
#define CS__H5_FD_BLOCK(n, k, d) CS__H5_FD(cs_h5_block_t, cs__h5_block_file_t, n, k, d)
#define CS__H5_FD_FIRE(n, k, d) CS__H5_FD(cs_h5_fire_t, cs_h5_fire_t, n, k, d)
#define CS__H5_FD_TIMER(n, k, d) CS__H5_FD(cs_h5_timer_t, cs_h5_timer_t, n, k, d)
#define CS__H5_FD_ACTOR(n, k, d) CS__H5_FD(cs_h5_actor_t, cs_h5_actor_t, n, k, d)
#define CS__H5_FD_WEIGHT(n, k, d) CS__H5_FD(cs_h5_weight_t, cs_h5_weight_t, n, k, d)
#define CS__H5_FD_SUMMARY(n, k, d) CS__H5_FD(cs_h5_summary_t, cs_h5_summary_t, n, k, d)
#define CS__H5_FD_IDENT(n, k, d) CS__H5_FD(cs_h5_ident_t, cs_h5_ident_t, n, k, d)

static const cs__h5_field_t cs__h5_f_blocks[] = {CS_H5_BLOCK_FIELDS(CS__H5_FD_BLOCK)};
static const cs__h5_field_t cs__h5_f_fires[] = {CS_H5_FIRE_FIELDS(CS__H5_FD_FIRE)};
static const cs__h5_field_t cs__h5_f_timers[] = {CS_H5_TIMER_FIELDS(CS__H5_FD_TIMER)};
static const cs__h5_field_t cs__h5_f_actors[] = {CS_H5_ACTOR_FIELDS(CS__H5_FD_ACTOR)};
static const cs__h5_field_t cs__h5_f_weights[] = {CS_H5_WEIGHT_FIELDS(CS__H5_FD_WEIGHT)};
static const cs__h5_field_t cs__h5_f_summary[] = {CS_H5_SUMMARY_FIELDS(CS__H5_FD_SUMMARY)};
static const cs__h5_field_t cs__h5_f_idents[] = {CS_H5_IDENT_FIELDS(CS__H5_FD_IDENT)};

#define CS__H5_N(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(CS__H5_N(cs__h5_f_blocks) <= 64 && CS__H5_N(cs__h5_f_fires) <= 64,
               "the reader's per-column legacy flags hold 64 columns");

typedef struct cs__h5_dsdesc {
    const char *name;            /* dataset name under the root group */
    const cs__h5_field_t *field; /* columns in struct order */
    size_t nfield;               /* number of columns */
    size_t row;                  /* row size in bytes in memory (the C struct) */
    size_t frow;                 /* row size in bytes in the file */
    int encoded;                 /* file rows differ from the struct (digest as hex) */
    uint32_t chunk_rows;         /* rows per HDF5 chunk (power of two) */
    int since;                   /* first format_version with this dataset */
} cs__h5_dsdesc_t;

/*
 * Chunk sizes: about 1-2 MiB uncompressed for the large datasets, which
 * compresses as well as larger chunks (measured: 16 Ki fire rows give a
 * ratio within 1% of 64 Ki rows) while keeping the writer's buffers small.
 */
static const cs__h5_dsdesc_t cs__h5_desc[CS_H5_NDS] = {
    {"blocks", cs__h5_f_blocks, CS__H5_N(cs__h5_f_blocks), sizeof(cs_h5_block_t),
     sizeof(cs__h5_block_file_t), 1, 4096, 1},
    {"fires", cs__h5_f_fires, CS__H5_N(cs__h5_f_fires), sizeof(cs_h5_fire_t),
     sizeof(cs_h5_fire_t), 0, 16384, 1},
    {"timers", cs__h5_f_timers, CS__H5_N(cs__h5_f_timers), sizeof(cs_h5_timer_t),
     sizeof(cs_h5_timer_t), 0, 16384, 1},
    {"actors", cs__h5_f_actors, CS__H5_N(cs__h5_f_actors), sizeof(cs_h5_actor_t),
     sizeof(cs_h5_actor_t), 0, 4096, 1},
    {"weights", cs__h5_f_weights, CS__H5_N(cs__h5_f_weights), sizeof(cs_h5_weight_t),
     sizeof(cs_h5_weight_t), 0, 32768, 1},
    {"summary", cs__h5_f_summary, CS__H5_N(cs__h5_f_summary), sizeof(cs_h5_summary_t),
     sizeof(cs_h5_summary_t), 0, 64, 1},
    {"identities", cs__h5_f_idents, CS__H5_N(cs__h5_f_idents), sizeof(cs_h5_ident_t),
     sizeof(cs_h5_ident_t), 0, 4096, 2},
};

/* Contracts of the public functions are in cs_h5.h. */
const char *cs_h5_ds_name(cs_h5_ds ds)
{
    return (unsigned)ds < CS_H5_NDS ? cs__h5_desc[ds].name : NULL;
}

size_t cs_h5_ds_row_size(cs_h5_ds ds)
{
    return (unsigned)ds < CS_H5_NDS ? cs__h5_desc[ds].row : 0;
}

/* ---- error messages ------------------------------------------------------ */

static _Thread_local char cs__h5_msg[1024];

const char *cs_h5_last_error(void)
{
    return cs__h5_msg;
}

typedef struct cs__h5_walk {
    char inner[512]; /* description of the most specific HDF5 error */
    char outer[96];  /* API function at the top of the stack */
} cs__h5_walk_t;

/* H5Ewalk2 callback (upward: innermost first): keep the first description
 * and the last function name. */
static herr_t cs__h5_walk_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    cs__h5_walk_t *w = data;
    if (n == 0) snprintf(w->inner, sizeof w->inner, "%s", e->desc ? e->desc : "");
    snprintf(w->outer, sizeof w->outer, "%s", e->func_name ? e->func_name : "");
    return 0;
}

/*
 * Record a failure message: the printf-style context, then the HDF5 error
 * stack's innermost description and API function if the stack is not
 * empty.  Clears the HDF5 stack.  Returns code, for `return cs__h5_fail(...)`.
 */
static int cs__h5_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cs__h5_fail(int code, const char *fmt, ...)
{
    char ctx[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx, sizeof ctx, fmt, ap);
    va_end(ap);
    cs__h5_walk_t w;
    w.inner[0] = w.outer[0] = '\0';
    if (H5Eget_num(H5E_DEFAULT) > 0) H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, cs__h5_walk_cb, &w);
    H5Eclear2(H5E_DEFAULT);
    if (w.inner[0] || w.outer[0])
        snprintf(cs__h5_msg, sizeof cs__h5_msg, "%.400s: %.300s (in %.300s)", ctx, w.inner, w.outer);
    else
        snprintf(cs__h5_msg, sizeof cs__h5_msg, "%s", ctx);
    /* HDF5's file-driver messages contain newlines; keep one line. */
    for (char *p = cs__h5_msg; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    return code;
}

/* Close an HDF5 id if valid and mark it invalid. */
static void cs__h5_close_id(hid_t *id, herr_t (*fn)(hid_t))
{
    if (*id >= 0) fn(*id);
    *id = H5I_INVALID_HID;
}

/* ---- HDF5 types -------------------------------------------------------------- */

/* A new enum type over uint32 little-endian with names[i] = i, i < n, plus
 * "all" = n when with_all.  Returns the type or a negative id. */
static hid_t cs__h5_enum(const char *const *names, uint32_t n, int with_all)
{
    hid_t t = H5Tenum_create(H5T_STD_U32LE);
    if (t < 0) return t;
    for (uint32_t i = 0; i < n + (with_all ? 1u : 0u); i++) {
        uint32_t v = i;
        if (H5Tenum_insert(t, i < n ? names[i] : "all", &v) < 0) {
            H5Tclose(t);
            return H5I_INVALID_HID;
        }
    }
    return t;
}

/* The HDF5 type of one column kind (caller closes).  Negative on failure. */
static hid_t cs__h5_col_type(int kind)
{
    switch (kind) {
    case CS__H5_F_U64: return H5Tcopy(H5T_STD_U64LE);
    case CS__H5_F_U32: return H5Tcopy(H5T_STD_U32LE);
    case CS__H5_F_F64: return H5Tcopy(H5T_IEEE_F64LE);
    case CS__H5_F_KIND: return cs__h5_enum(cs_h5_kind_names, CS_AGENT_KIND_COUNT, 1);
    case CS__H5_F_TRIG: return cs__h5_enum(cs__h5_trigger_names, 3, 0);
    case CS__H5_F_OUTC: return cs__h5_enum(cs__h5_outcome_names, 6, 0);
    case CS__H5_F_IDK: return cs__h5_enum(cs__h5_ident_kind_names, 2, 0);
    case CS__H5_F_DIGEST:
    case CS__H5_F_NAME: {
        /* 64 hex characters (numpy 'S64'), or a NUL-padded name ('S128'). */
        hid_t t = H5Tcopy(H5T_C_S1);
        size_t n = kind == CS__H5_F_DIGEST ? sizeof(cs__h5_hex_t) : sizeof(cs_h5_name_t);
        if (t >= 0 && (H5Tset_size(t, n) < 0 ||
                       H5Tset_strpad(t, H5T_STR_NULLPAD) < 0 ||
                       H5Tset_cset(t, H5T_CSET_ASCII) < 0)) {
            H5Tclose(t);
            return H5I_INVALID_HID;
        }
        return t;
    }
    default: return H5I_INVALID_HID;
    }
}

/* legacy code of an optional column the file lacks (cs__h5_optional). */
#define CS__H5_ABSENT 3

/* Short type name of a column kind, for the description attribute. */
static const char *cs__h5_col_type_name(int kind)
{
    static const char *const n[] = {"u64", "u32", "f64", "enum agent_kind", "enum trigger",
                                    "enum outcome", "string[64] hex", "enum ident_kind",
                                    "string[128]", "f64 + exact u64 _hi/_lo"};
    return n[kind];
}

/* Insert column f of a row type at file offset foff (MONEY: its three
 * columns).  legacy (reading a format-1 file): a MONEY column is its one
 * old member, a u64 read into lo (legacy 1) or an f64 read into f (2). */
static int cs__h5_insert_col(hid_t ct, const cs__h5_field_t *f, size_t foff, int legacy)
{
    if (legacy == CS__H5_ABSENT) return 0; /* not in this file: read as 0 */
    if (f->kind != CS__H5_F_MONEY || legacy) {
        hid_t t = f->kind != CS__H5_F_MONEY ? cs__h5_col_type(f->kind)
                  : legacy == 1             ? H5Tcopy(H5T_STD_U64LE)
                                            : H5Tcopy(H5T_IEEE_F64LE);
        size_t at = f->kind == CS__H5_F_MONEY && legacy == 1 ? foff + offsetof(cs_h5_money_t, lo) : foff;
        int ok = t >= 0 && H5Tinsert(ct, f->name, at, t) >= 0;
        if (t >= 0) H5Tclose(t);
        return ok ? 0 : -1;
    }
    char hi[80], lo[80];
    snprintf(hi, sizeof hi, "%s_hi", f->name);
    snprintf(lo, sizeof lo, "%s_lo", f->name);
    if (H5Tinsert(ct, f->name, foff + offsetof(cs_h5_money_t, f), H5T_IEEE_F64LE) < 0 ||
        H5Tinsert(ct, hi, foff + offsetof(cs_h5_money_t, hi), H5T_STD_U64LE) < 0 ||
        H5Tinsert(ct, lo, foff + offsetof(cs_h5_money_t, lo), H5T_STD_U64LE) < 0)
        return -1;
    return 0;
}

/* The compound type of dataset d's file rows, used for both file and memory
 * (rows have no padding and the host is little-endian, so HDF5 does no
 * conversion).  Negative on failure. */
static hid_t cs__h5_row_type(const cs__h5_dsdesc_t *d, const uint8_t *legacy)
{
    hid_t ct = H5Tcreate(H5T_COMPOUND, d->frow);
    if (ct < 0) return ct;
    for (size_t i = 0; i < d->nfield; i++) {
        if (cs__h5_insert_col(ct, &d->field[i], d->field[i].foff, legacy ? legacy[i] : 0) < 0) {
            H5Tclose(ct);
            return H5I_INVALID_HID;
        }
    }
    return ct;
}

/* A UTF-8 variable-length string type (caller closes). */
static hid_t cs__h5_vlstr(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) return t;
    if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        H5Tclose(t);
        return H5I_INVALID_HID;
    }
    return t;
}

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

/* ---- file-row encoding (only /blocks: digest bytes <-> hex) --------------- */

/* Bytes of a column in the C struct. */
static size_t cs__h5_col_size(int kind)
{
    switch (kind) {
    case CS__H5_F_U64:
    case CS__H5_F_F64: return 8;
    case CS__H5_F_DIGEST: return sizeof(cs_h5_digest_t);
    case CS__H5_F_NAME: return sizeof(cs_h5_name_t);
    case CS__H5_F_MONEY: return sizeof(cs_h5_money_t);
    default: return 4;
    }
}

/* Write n struct rows of d as file rows into dst. */
static void cs__h5_encode(const cs__h5_dsdesc_t *d, uint8_t *dst, const uint8_t *src, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t r = 0; r < n; r++, dst += d->frow, src += d->row) {
        for (size_t i = 0; i < d->nfield; i++) {
            const cs__h5_field_t *f = &d->field[i];
            if (f->kind != CS__H5_F_DIGEST) {
                memcpy(dst + f->foff, src + f->off, cs__h5_col_size(f->kind));
                continue;
            }
            char *o = (char *)dst + f->foff;
            for (size_t k = 0; k < sizeof(cs_h5_digest_t); k++) {
                o[2 * k] = hx[src[f->off + k] >> 4];
                o[2 * k + 1] = hx[src[f->off + k] & 15];
            }
        }
    }
}

/* Value of one hex digit, or -1. */
static int cs__h5_unhex(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Read n file rows of d from src into struct rows at dst.  CS_EPARSE if a
 * digest is not 64 hex digits. */
static int cs__h5_decode(const cs__h5_dsdesc_t *d, uint8_t *dst, const uint8_t *src, size_t n)
{
    for (size_t r = 0; r < n; r++, dst += d->row, src += d->frow) {
        for (size_t i = 0; i < d->nfield; i++) {
            const cs__h5_field_t *f = &d->field[i];
            if (f->kind != CS__H5_F_DIGEST) {
                memcpy(dst + f->off, src + f->foff, cs__h5_col_size(f->kind));
                continue;
            }
            const char *in = (const char *)src + f->foff;
            for (size_t k = 0; k < sizeof(cs_h5_digest_t); k++) {
                int hi = cs__h5_unhex(in[2 * k]), lo = cs__h5_unhex(in[2 * k + 1]);
                if (hi < 0 || lo < 0) return CS_EPARSE;
                dst[f->off + k] = (uint8_t)(hi << 4 | lo);
            }
        }
    }
    return CS_OK;
}

/* ---- compression ------------------------------------------------------------ */

/* A compression workspace: one per thread that compresses. */
typedef struct cs__h5_zip {
    z_stream z;    /* deflate state, reused with deflateReset */
    int ready;     /* z initialised */
    int level;     /* level z is currently set to */
    uint8_t *shuf; /* shuffled copy of the chunk */
    size_t cap;    /* bytes allocated in shuf */
} cs__h5_zip_t;

/*
 * HDF5 shuffle filter layout: byte j of element i goes to j * n + i.  Done
 * in tiles of 64 rows so each tile of the source stays in L1 and each plane
 * receives whole cache lines.  (An 8x8 in-register byte transpose measured
 * no faster: the cost is the scattered stores, not the byte moves.)
 */
static void cs__h5_shuffle(uint8_t *dst, const uint8_t *src, size_t es, size_t n)
{
    for (size_t i0 = 0; i0 < n; i0 += 64) {
        size_t i1 = n - i0 < 64 ? n : i0 + 64;
        for (size_t j = 0; j < es; j++) {
            uint8_t *d = dst + j * n;
            const uint8_t *s = src + j;
            for (size_t i = i0; i < i1; i++) d[i] = s[i * es];
        }
    }
}

/* Nonzero when a byte plane looks uniformly random: more than 128 distinct
 * values among 256 evenly spaced samples (a uniform byte gives ~162).
 * Huffman coding gains almost nothing on such planes, so they are stored. */
static int cs__h5_random_plane(const uint8_t *p, size_t n)
{
    if (n < 1024) return 0;
    uint8_t seen[256];
    memset(seen, 0, sizeof seen);
    int distinct = 0;
    size_t step = n / 256;
    for (size_t i = 0; i < 256; i++) {
        uint8_t b = p[i * step];
        distinct += !seen[b];
        seen[b] = 1;
    }
    return distinct > 128;
}

/* Output bytes that always suffice for one compressed chunk of nbytes. */
static size_t cs__h5_out_bound(size_t nbytes, size_t es)
{
    return (size_t)compressBound((uLong)nbytes) + 16 * es + 256;
}

/*
 * Compress one chunk (nrows rows of es bytes) into out (cap bytes, at least
 * cs__h5_out_bound): shuffle, then one zlib stream, level 1 with the RLE
 * strategy, switching to level 0 (stored blocks) for random-looking byte
 * planes.  The output is a standard zlib stream, so HDF5's deflate filter
 * inflates it.  Deterministic.  Returns CS_OK or CS_ENOMEM / CS_EIO, with
 * the message in *why (static text).
 */
static int cs__h5_compress(cs__h5_zip_t *zp, const uint8_t *raw, size_t es, size_t nrows,
                           uint8_t *out, size_t cap, size_t *len, const char **why)
{
    size_t nbytes = es * nrows;
    if (zp->cap < nbytes) {
        uint8_t *s = realloc(zp->shuf, nbytes);
        if (!s) {
            *why = "out of memory (shuffle buffer)";
            return CS_ENOMEM;
        }
        zp->shuf = s;
        zp->cap = nbytes;
    }
    cs__h5_shuffle(zp->shuf, raw, es, nrows);
    if (!zp->ready) {
        memset(&zp->z, 0, sizeof zp->z);
        if (deflateInit2(&zp->z, 1, Z_DEFLATED, 15, 8, Z_RLE) != Z_OK) {
            *why = "zlib deflateInit2 failed";
            return CS_ENOMEM;
        }
        zp->ready = 1;
        zp->level = 1;
    } else if (deflateReset(&zp->z) != Z_OK) {
        *why = "zlib deflateReset failed";
        return CS_EIO;
    }
    z_stream *z = &zp->z;
    z->next_out = out;
    z->avail_out = (uInt)cap;
    for (size_t j = 0; j < es; j++) {
        uint8_t *p = zp->shuf + j * nrows;
        int want = cs__h5_random_plane(p, nrows) ? 0 : 1;
        if (want != zp->level) {
            if (deflateParams(z, want, Z_RLE) != Z_OK) {
                *why = "zlib deflateParams failed";
                return CS_EIO;
            }
            zp->level = want;
        }
        z->next_in = p;
        z->avail_in = (uInt)nrows;
        int last = j + 1 == es;
        int zr = deflate(z, last ? Z_FINISH : Z_NO_FLUSH);
        if ((last && zr != Z_STREAM_END) || (!last && (zr != Z_OK || z->avail_in != 0))) {
            *why = "zlib deflate failed";
            return CS_EIO;
        }
    }
    *len = (size_t)z->total_out;
    return CS_OK;
}

/* Release a compression workspace (safe on a zeroed one). */
static void cs__h5_zip_free(cs__h5_zip_t *zp)
{
    if (zp->ready) deflateEnd(&zp->z);
    zp->ready = 0;
    free(zp->shuf);
    zp->shuf = NULL;
    zp->cap = 0;
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
        int rc = cs__h5_compress(&h->wzip, j->raw, d->frow, d->chunk_rows, j->out, h->out_cap, &len,
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
    hsize_t off = (hsize_t)chunk * d->chunk_rows;
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
    int rc = cs__h5_compress(&h->mzip, raw, d->frow, d->chunk_rows, h->mout, h->out_cap, &len, &why);
    if (rc != CS_OK) return cs__h5_fail(rc, "compressing /%s: %s", d->name, why);
    return cs__h5_write_chunk(h, dsi, chunk, nrows, h->mout, len);
}

/* Wait for the oldest job, write it, recycle its buffer. */
static int cs__h5_retire(cs_h5_t *h)
{
    cs__h5_job_t *j = &h->jobs[h->head];
    pthread_mutex_lock(&h->mu);
    while (j->state != CS__JOB_DONE) pthread_cond_wait(&h->cv_done, &h->mu);
    pthread_mutex_unlock(&h->mu);
    const cs__h5_dsdesc_t *d = &cs__h5_desc[j->ds];
    int rc = j->rc;
    if (rc != CS_OK)
        rc = cs__h5_fail(rc, "compressing /%s: %s", d->name, j->why ? j->why : "?");
    else
        rc = cs__h5_write_chunk(h, j->ds, j->chunk, d->chunk_rows, j->out, j->out_len);
    cs__h5_wds_t *w = &h->ds[j->ds];
    if (w->n_spare < CS__H5_DEPTH)
        w->spare[w->n_spare++] = j->raw;
    else
        free(j->raw);
    j->raw = NULL;
    j->state = CS__JOB_FREE;
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
        w->cur = w->n_spare ? w->spare[--w->n_spare] : malloc(d->frow * d->chunk_rows);
        if (!w->cur) return cs__h5_set_err(h, cs__h5_fail(CS_ENOMEM, "chunk buffer for /%s", d->name));
    } else {
        rc = cs__h5_write_now(h, dsi, w->chunk, w->cur, d->chunk_rows);
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
        size_t room = d->chunk_rows - w->fill;
        size_t take = n < room ? n : room;
        if (d->encoded)
            cs__h5_encode(d, w->cur + (size_t)w->fill * d->frow, src, take);
        else
            memcpy(w->cur + (size_t)w->fill * d->frow, src, take * d->frow);
        w->fill += (uint32_t)take;
        w->rows += take;
        src += take * d->row;
        n -= take;
        if (w->fill == d->chunk_rows) {
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
    int fd = open(h->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
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
        memset(w->cur + (size_t)w->fill * d->frow, 0, (size_t)(d->chunk_rows - w->fill) * d->frow);
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
/*
 * Opt out of HDF5's atexit handler, once, before the library initialises
 * (H5dont_atexit only works before the first HDF5 call).  The handler closes
 * every id still open at exit; for a file whose H5Fclose failed because the
 * disk filled (ENOSPC, EFBIG), HDF5 1.10 then crashes in H5F__close_cb, so a
 * clean "cannot write" exit 3 became a SIGSEGV.  cowsim closes every file
 * explicitly and flushes at cs_h5_flush, so the handler is not needed.
 */
static void cs__h5_lib_init(void)
{
    static int done;
    if (!done) {
        done = 1;
        (void)H5dont_atexit();
    }
}

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

/* Create dataset dsi (empty, extendible, chunked, shuffle + deflate) with
 * its "description" attribute. */
static int cs__h5_make_ds(cs_h5_t *h, int dsi)
{
    const cs__h5_dsdesc_t *d = &cs__h5_desc[dsi];
    int rc = CS_OK;
    hsize_t zero = 0, unlim = H5S_UNLIMITED, chunk = d->chunk_rows;
    hid_t type = cs__h5_row_type(d, NULL);
    hid_t space = H5Screate_simple(1, &zero, &unlim);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    /* Filter order matters: the chunk bytes are deflate(shuffle(rows)). */
    if (type < 0 || space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, &chunk) < 0 ||
        H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, 1) < 0 ||
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
        h->ds[dsi].cur = malloc(d->frow * d->chunk_rows);
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
        size_t b = cs__h5_out_bound(d->frow * d->chunk_rows, d->frow);
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
        H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
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

/* ---- reader ----------------------------------------------------------------- */

struct cs_h5_reader {
    hid_t file;               /* open read-only */
    hid_t dset[CS_H5_NDS];    /* opened and checked lazily */
    hid_t mtype[CS_H5_NDS];   /* memory row types, built with dset */
    uint8_t legacy[CS_H5_NDS][64]; /* per column: 0, or how a format-1 MONEY column is read
                                    * (cs__h5_insert_col) */
    cs_h5_info_t info;        /* root attributes */
};

/* Open attribute name on the root and check it holds exactly one value of
 * class cls (or of INTEGER/FLOAT when cls is H5T_NO_CLASS).  Returns the
 * attribute id (caller closes) or a negative id with the error code in *rc. */
static hid_t cs__h5_rd_attr_open(cs_h5_reader_t *r, const char *name, H5T_class_t cls, int *rc)
{
    htri_t ex = H5Aexists(r->file, name);
    if (ex <= 0) {
        *rc = cs__h5_fail(ex < 0 ? CS_EIO : CS_EPARSE, "root attribute '%s' missing", name);
        return H5I_INVALID_HID;
    }
    hid_t a = H5Aopen(r->file, name, H5P_DEFAULT);
    hid_t sp = a < 0 ? H5I_INVALID_HID : H5Aget_space(a);
    hid_t t = a < 0 ? H5I_INVALID_HID : H5Aget_type(a);
    if (a < 0 || sp < 0 || t < 0) {
        *rc = cs__h5_fail(CS_EIO, "root attribute '%s'", name);
    } else {
        hssize_t np = H5Sget_simple_extent_npoints(sp);
        H5T_class_t c = H5Tget_class(t);
        int ok = cls == H5T_NO_CLASS ? (c == H5T_INTEGER || c == H5T_FLOAT) : c == cls;
        if (np != 1 || !ok) *rc = cs__h5_fail(CS_EPARSE, "root attribute '%s' has the wrong type", name);
        else *rc = CS_OK;
    }
    cs__h5_close_id(&sp, H5Sclose);
    cs__h5_close_id(&t, H5Tclose);
    if (*rc != CS_OK) cs__h5_close_id(&a, H5Aclose);
    return a;
}

/* Read a scalar numeric root attribute converted to mtype into out. */
static int cs__h5_rd_num(cs_h5_reader_t *r, const char *name, hid_t mtype, void *out)
{
    int rc;
    hid_t a = cs__h5_rd_attr_open(r, name, H5T_NO_CLASS, &rc);
    if (a < 0) return rc;
    if (H5Aread(a, mtype, out) < 0) rc = cs__h5_fail(CS_EPARSE, "reading root attribute '%s'", name);
    H5Aclose(a);
    return rc;
}

int cs_h5_read_attr_u64(cs_h5_reader_t *r, const char *name, uint64_t *v)
{
    if (!r || !name || !v) return CS_EINVAL;
    return cs__h5_rd_num(r, name, H5T_NATIVE_UINT64, v);
}

int cs_h5_read_attr_f64(cs_h5_reader_t *r, const char *name, double *v)
{
    if (!r || !name || !v) return CS_EINVAL;
    return cs__h5_rd_num(r, name, H5T_NATIVE_DOUBLE, v);
}

int cs_h5_read_attr_str(cs_h5_reader_t *r, const char *name, char **s)
{
    if (!r || !name || !s) return CS_EINVAL;
    *s = NULL;
    int rc;
    hid_t a = cs__h5_rd_attr_open(r, name, H5T_STRING, &rc);
    if (a < 0) return rc;
    hid_t ft = H5Aget_type(a), mt = H5I_INVALID_HID;
    htri_t vl = ft < 0 ? -1 : H5Tis_variable_str(ft);
    if (vl < 0) {
        rc = cs__h5_fail(CS_EIO, "root attribute '%s'", name);
    } else if (vl) {
        char *p = NULL;
        mt = cs__h5_vlstr();
        if (mt < 0 || H5Aread(a, mt, &p) < 0) {
            rc = cs__h5_fail(CS_EPARSE, "reading root attribute '%s'", name);
        } else {
            *s = strdup(p ? p : "");
            if (p) H5free_memory(p);
            if (!*s) rc = cs__h5_fail(CS_ENOMEM, "root attribute '%s'", name);
        }
    } else {
        size_t n = H5Tget_size(ft);
        mt = H5Tcopy(H5T_C_S1);
        *s = n > 0 && n < ((size_t)1 << 30) ? calloc(n + 1, 1) : NULL;
        if (!*s) {
            rc = cs__h5_fail(n ? CS_ENOMEM : CS_EPARSE, "root attribute '%s'", name);
        } else if (mt < 0 || H5Tset_size(mt, n + 1) < 0 || H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0 ||
                   H5Aread(a, mt, *s) < 0) {
            rc = cs__h5_fail(CS_EPARSE, "reading root attribute '%s'", name);
            free(*s);
            *s = NULL;
        }
    }
    cs__h5_close_id(&mt, H5Tclose);
    cs__h5_close_id(&ft, H5Tclose);
    H5Aclose(a);
    return rc;
}

void cs_h5_close_read(cs_h5_reader_t *r)
{
    if (!r) return;
    for (int i = 0; i < CS_H5_NDS; i++) {
        cs__h5_close_id(&r->dset[i], H5Dclose);
        cs__h5_close_id(&r->mtype[i], H5Tclose);
    }
    cs__h5_close_id(&r->file, H5Fclose);
    free(r->info.mechanism);
    free(r->info.scenario_json);
    free(r->info.cowsim_version);
    free(r->info.git_commit);
    free(r);
}

/* Open path in this process and read its root attributes (the body of
 * cs_h5_open_read without the sandbox).  Same contract. */
static cs_h5_reader_t *cs__h5_open_direct(const char *path, int *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    /* Tell "cannot read the file" (I/O) from "not a run file" (bad input). */
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        *err = cs__h5_fail(CS_EIO, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    fclose(probe);
    cs_h5_reader_t *r = calloc(1, sizeof *r);
    if (!r) {
        *err = cs__h5_fail(CS_ENOMEM, "allocating the reader");
        return NULL;
    }
    r->file = H5I_INVALID_HID;
    for (int i = 0; i < CS_H5_NDS; i++) r->dset[i] = r->mtype[i] = H5I_INVALID_HID;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0) {
#if H5_VERSION_GE(1, 10, 7)
        H5Pset_file_locking(fapl, 0, 1);
#endif
        r->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
        H5Pclose(fapl);
    }
    if (r->file < 0) {
        *err = cs__h5_fail(CS_EPARSE, "'%s' is not a readable HDF5 file", path);
        cs_h5_close_read(r);
        return NULL;
    }
    int rc = cs__h5_rd_num(r, "format_version", H5T_NATIVE_INT, &r->info.format_version);
    if (rc == CS_OK && (r->info.format_version < CS_H5_FORMAT_VERSION_OLDEST ||
                        r->info.format_version > CS_H5_FORMAT_VERSION))
        rc = cs__h5_fail(CS_EPARSE, "'%s': unsupported format_version %d (this build reads %d to %d)",
                         path, r->info.format_version, CS_H5_FORMAT_VERSION_OLDEST,
                         CS_H5_FORMAT_VERSION);
    if (rc == CS_OK) rc = cs__h5_rd_num(r, "complete", H5T_NATIVE_INT, &r->info.complete);
    if (rc == CS_OK) rc = cs__h5_rd_num(r, "seed", H5T_NATIVE_UINT64, &r->info.seed);
    if (rc == CS_OK) rc = cs_h5_read_attr_str(r, "mechanism", &r->info.mechanism);
    if (rc == CS_OK) rc = cs_h5_read_attr_str(r, "scenario_json", &r->info.scenario_json);
    if (rc == CS_OK) rc = cs_h5_read_attr_str(r, "cowsim_version", &r->info.cowsim_version);
    if (rc == CS_OK) rc = cs_h5_read_attr_str(r, "git_commit", &r->info.git_commit);
    if (rc != CS_OK) {
        *err = rc;
        cs_h5_close_read(r);
        return NULL;
    }
    return r;
}

const cs_h5_info_t *cs_h5_info(const cs_h5_reader_t *r)
{
    return r ? &r->info : NULL;
}

/* The HDF5 class a column kind must have in the file, and its size. */
static void cs__h5_expect(int kind, H5T_class_t *cls, size_t *size)
{
    switch (kind) {
    case CS__H5_F_U64: *cls = H5T_INTEGER; *size = 8; break;
    case CS__H5_F_U32: *cls = H5T_INTEGER; *size = 4; break;
    case CS__H5_F_F64: *cls = H5T_FLOAT; *size = 8; break;
    case CS__H5_F_DIGEST: *cls = H5T_STRING; *size = sizeof(cs__h5_hex_t); break;
    case CS__H5_F_NAME: *cls = H5T_STRING; *size = sizeof(cs_h5_name_t); break;
    default: *cls = H5T_ENUM; *size = 4; break;
    }
}

_Static_assert(sizeof(hid_t) == sizeof(int64_t), "cs_h5_row_type_ok takes an hid_t as int64_t");

/* Every member of a stored row type must lie inside the row: libhdf5
 * copies members by their stored offsets without checking them, so a
 * corrupt offset is a heap overflow in H5T__conv_struct (found by fuzzing).
 * Rows over 64 KiB are not cowsim's either. */
int cs_h5_row_type_ok(int64_t type_id, char *why, size_t cap)
{
    hid_t ft = (hid_t)type_id;
    size_t fsize = H5Tget_size(ft);
    int nm = H5Tget_nmembers(ft);
    if (H5Tget_class(ft) != H5T_COMPOUND || fsize == 0 || fsize > 65536 || nm < 1) {
        snprintf(why, cap, "row type of %zu bytes and %d columns", fsize, nm);
        return 0;
    }
    for (int i = 0; i < nm; i++) {
        size_t off = H5Tget_member_offset(ft, (unsigned)i);
        hid_t mt = H5Tget_member_type(ft, (unsigned)i);
        size_t msz = mt < 0 ? 0 : H5Tget_size(mt);
        if (mt >= 0) H5Tclose(mt);
        if (mt < 0 || msz == 0 || off > fsize || msz > fsize - off) {
            snprintf(why, cap, "column %d lies outside the %zu-byte row", i, fsize);
            return 0;
        }
    }
    return 1;
}

/* Whether file row type ft has member name of class want and size size. */
static int cs__h5_has_col(hid_t ft, const char *name, H5T_class_t want, size_t size)
{
    int idx = H5Tget_member_index(ft, name);
    hid_t mt = idx < 0 ? H5I_INVALID_HID : H5Tget_member_type(ft, (unsigned)idx);
    int ok = mt >= 0 && H5Tget_class(mt) == want && H5Tget_size(mt) == size;
    cs__h5_close_id(&mt, H5Tclose);
    return ok;
}

/* Whether file row type ft holds column f: a MONEY column as its three
 * members, or in a format-1 file (*legacy set) as one u64 or f64. */
static int cs__h5_col_ok(hid_t ft, const cs__h5_field_t *f, int version, uint8_t *legacy)
{
    *legacy = 0;
    if (f->kind == CS__H5_F_MONEY) {
        if (version < 2) {
            if (cs__h5_has_col(ft, f->name, H5T_INTEGER, 8)) *legacy = 1;
            else if (cs__h5_has_col(ft, f->name, H5T_FLOAT, 8)) *legacy = 2;
            return *legacy != 0;
        }
        char hi[80], lo[80];
        snprintf(hi, sizeof hi, "%s_hi", f->name);
        snprintf(lo, sizeof lo, "%s_lo", f->name);
        return cs__h5_has_col(ft, f->name, H5T_FLOAT, 8) && cs__h5_has_col(ft, hi, H5T_INTEGER, 8) &&
               cs__h5_has_col(ft, lo, H5T_INTEGER, 8);
    }
    H5T_class_t want;
    size_t size;
    cs__h5_expect(f->kind, &want, &size);
    return cs__h5_has_col(ft, f->name, want, size);
}

/* Complete the MONEY columns of n struct rows of ds read from a format-1
 * file: the u64 read into lo (hi = 0, f = lo), or the f64 read into f
 * (lo, hi = f rounded down, saturated to 2^128 - 1). */
static void cs__h5_fix_legacy(const cs_h5_reader_t *r, int dsi, uint8_t *rows, size_t n)
{
    const cs__h5_dsdesc_t *d = &cs__h5_desc[dsi];
    for (size_t i = 0; i < d->nfield; i++) {
        if (!r->legacy[dsi][i]) continue;
        if (r->legacy[dsi][i] == CS__H5_ABSENT) {
            H5T_class_t cls;
            size_t size;
            cs__h5_expect(d->field[i].kind, &cls, &size); /* U64 / U32 / F64: as in memory */
            if (d->field[i].kind == CS__H5_F_MONEY) size = sizeof(cs_h5_money_t);
            for (size_t k = 0; k < n; k++) memset(rows + k * d->row + d->field[i].off, 0, size);
            continue;
        }
        for (size_t k = 0; k < n; k++) {
            cs_h5_money_t m;
            memcpy(&m, rows + k * d->row + d->field[i].off, sizeof m);
            if (r->legacy[dsi][i] == 1) {
                m = cs_h5_money(m.lo);
            } else {
                double f = m.f;
                cs_u128 v = !(f > 0) ? 0 : f >= 0x1p128 ? ~(cs_u128)0 : (cs_u128)f;
                m.hi = (uint64_t)(v >> 64);
                m.lo = (uint64_t)v;
            }
            memcpy(rows + k * d->row + d->field[i].off, &m, sizeof m);
        }
    }
}

/* Whether column i of table dsi is optional: the columns the welfare
 * optimum added to /blocks (from lane_budget on) and /timers (from
 * gas_limit on, then bid for the CIP-5 §9.6 variances, DESIGN-NOTES N43).
 * A file written before them reads them as 0 (CS__H5_ABSENT);
 * analysis/cs_optimum.c tells such a file by fire_cap = 0 or gas_limit = 0,
 * impossible in a real row. */
static int cs__h5_optional(int dsi, size_t i)
{
    const cs__h5_dsdesc_t *d = &cs__h5_desc[dsi];
    const char *first = dsi == CS_H5_BLOCKS ? "lane_budget" : dsi == CS_H5_TIMERS ? "gas_limit" : NULL;
    for (size_t k = 0; first && k <= i; k++)
        if (strcmp(d->field[k].name, first) == 0) return 1;
    return 0;
}

/* Open dataset ds and check it is a rank-1 compound dataset holding every
 * column of this module's table with the right class and size. */
static int cs__h5_rd_ds(cs_h5_reader_t *r, int dsi)
{
    if (r->dset[dsi] >= 0) return CS_OK;
    const cs__h5_dsdesc_t *d = &cs__h5_desc[dsi];
    htri_t ex = H5Lexists(r->file, d->name, H5P_DEFAULT);
    if (ex <= 0) return cs__h5_fail(ex < 0 ? CS_EIO : CS_EPARSE, "no dataset /%s", d->name);
    int rc = CS_OK;
    hid_t ds = H5Dopen2(r->file, d->name, H5P_DEFAULT);
    hid_t ft = ds < 0 ? H5I_INVALID_HID : H5Dget_type(ds);
    hid_t sp = ds < 0 ? H5I_INVALID_HID : H5Dget_space(ds);
    if (ds < 0 || ft < 0 || sp < 0) {
        rc = cs__h5_fail(CS_EPARSE, "opening /%s", d->name);
        goto out;
    }
    if (H5Tget_class(ft) != H5T_COMPOUND || H5Sget_simple_extent_ndims(sp) != 1) {
        rc = cs__h5_fail(CS_EPARSE, "/%s is not a 1-D table", d->name);
        goto out;
    }
    char why[128];
    if (!cs_h5_row_type_ok(ft, why, sizeof why)) {
        rc = cs__h5_fail(CS_EPARSE, "/%s: %s", d->name, why);
        goto out;
    }
    for (size_t i = 0; i < d->nfield && rc == CS_OK; i++) {
        if (H5Tget_member_index(ft, d->field[i].name) < 0 && cs__h5_optional(dsi, i))
            r->legacy[dsi][i] = CS__H5_ABSENT;
        else if (!cs__h5_col_ok(ft, &d->field[i], r->info.format_version, &r->legacy[dsi][i]))
            rc = cs__h5_fail(CS_EPARSE, "/%s: column %s missing or of the wrong type", d->name,
                             d->field[i].name);
    }
    if (rc == CS_OK) {
        r->mtype[dsi] = cs__h5_row_type(d, r->legacy[dsi]);
        if (r->mtype[dsi] < 0) rc = cs__h5_fail(CS_EIO, "row type for /%s", d->name);
    }
out:
    cs__h5_close_id(&sp, H5Sclose);
    cs__h5_close_id(&ft, H5Tclose);
    if (rc == CS_OK)
        r->dset[dsi] = ds;
    else
        cs__h5_close_id(&ds, H5Dclose);
    return rc;
}

int cs_h5_nrows(cs_h5_reader_t *r, cs_h5_ds ds, uint64_t *n)
{
    if (!r || (unsigned)ds >= CS_H5_NDS || !n) return CS_EINVAL;
    *n = 0;
    if (r->info.format_version < cs__h5_desc[ds].since) return CS_OK; /* an older file: no such table */
    int rc = cs__h5_rd_ds(r, (int)ds);
    if (rc != CS_OK) return rc;
    hid_t sp = H5Dget_space(r->dset[ds]);
    hsize_t dim = 0;
    if (sp < 0 || H5Sget_simple_extent_dims(sp, &dim, NULL) != 1)
        rc = cs__h5_fail(CS_EIO, "extent of /%s", cs__h5_desc[ds].name);
    cs__h5_close_id(&sp, H5Sclose);
    if (rc == CS_OK) *n = (uint64_t)dim;
    return rc;
}

/* Read file rows [start, start + count) of dataset dsi into buf (file row
 * layout). */
static int cs__h5_rd_raw(cs_h5_reader_t *r, int dsi, uint64_t start, size_t count, void *buf)
{
    int rc = CS_OK;
    hsize_t off = start, cnt = count;
    hid_t fs = H5Dget_space(r->dset[dsi]);
    hid_t ms = H5Screate_simple(1, &cnt, NULL);
    if (fs < 0 || ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, &off, NULL, &cnt, NULL) < 0 ||
        H5Dread(r->dset[dsi], r->mtype[dsi], ms, fs, H5P_DEFAULT, buf) < 0)
        rc = cs__h5_fail(CS_EIO, "reading /%s rows %llu..%llu", cs__h5_desc[dsi].name,
                         (unsigned long long)start, (unsigned long long)(start + count));
    cs__h5_close_id(&ms, H5Sclose);
    cs__h5_close_id(&fs, H5Sclose);
    return rc;
}

int cs_h5_read_rows(cs_h5_reader_t *r, cs_h5_ds ds, uint64_t start, size_t count, void *rows)
{
    if (!r || (unsigned)ds >= CS_H5_NDS || (!rows && count > 0)) return CS_EINVAL;
    uint64_t n;
    int rc = cs_h5_nrows(r, ds, &n);
    if (rc != CS_OK) return rc;
    if (start > n || count > n - start) return CS_ERANGE;
    if (count == 0) return CS_OK;
    const cs__h5_dsdesc_t *d = &cs__h5_desc[ds];
    if (!d->encoded) {
        rc = cs__h5_rd_raw(r, (int)ds, start, count, rows);
        if (rc == CS_OK) cs__h5_fix_legacy(r, (int)ds, rows, count);
        return rc;
    }
    /* Re-encoded table: read file rows in pieces and decode them. */
    size_t piece = count < 4096 ? count : 4096;
    uint8_t *tmp = calloc(piece, d->frow);
    if (!tmp) return cs__h5_fail(CS_ENOMEM, "reading /%s", d->name);
    for (size_t done = 0; done < count && rc == CS_OK;) {
        size_t k = count - done < piece ? count - done : piece;
        rc = cs__h5_rd_raw(r, (int)ds, start + done, k, tmp);
        if (rc == CS_OK && cs__h5_decode(d, (uint8_t *)rows + done * d->row, tmp, k) != CS_OK)
            rc = cs__h5_fail(CS_EPARSE, "/%s rows %llu..%llu: digest is not 64 hex digits",
                             d->name, (unsigned long long)(start + done),
                             (unsigned long long)(start + done + k));
        if (rc == CS_OK) cs__h5_fix_legacy(r, (int)ds, (uint8_t *)rows + done * d->row, k);
        done += k;
    }
    free(tmp);
    return rc;
}

int cs_h5_read_all(cs_h5_reader_t *r, cs_h5_ds ds, void **rows, size_t *n)
{
    if (!rows || !n) return CS_EINVAL;
    *rows = NULL;
    *n = 0;
    uint64_t cnt;
    int rc = cs_h5_nrows(r, ds, &cnt);
    if (rc != CS_OK) return rc;
    if (cnt == 0) return CS_OK;
    size_t es = cs__h5_desc[ds].row;
    if (cnt > SIZE_MAX / es) return cs__h5_fail(CS_ENOMEM, "/%s too large", cs__h5_desc[ds].name);
    void *buf = malloc((size_t)cnt * es);
    if (!buf) return cs__h5_fail(CS_ENOMEM, "/%s: %llu rows", cs__h5_desc[ds].name, (unsigned long long)cnt);
    rc = cs_h5_read_rows(r, ds, 0, (size_t)cnt, buf);
    if (rc != CS_OK) {
        free(buf);
        return rc;
    }
    *rows = buf;
    *n = (size_t)cnt;
    return CS_OK;
}

/* Typed wrappers of cs_h5_read_all. */
int cs_h5_read_blocks(cs_h5_reader_t *r, cs_h5_block_t **rows, size_t *n)
{
    void *p = NULL;
    int rc = rows ? cs_h5_read_all(r, CS_H5_BLOCKS, &p, n) : CS_EINVAL;
    if (rows) *rows = p;
    return rc;
}

int cs_h5_read_fires(cs_h5_reader_t *r, cs_h5_fire_t **rows, size_t *n)
{
    void *p = NULL;
    int rc = rows ? cs_h5_read_all(r, CS_H5_FIRES, &p, n) : CS_EINVAL;
    if (rows) *rows = p;
    return rc;
}

int cs_h5_read_timers(cs_h5_reader_t *r, cs_h5_timer_t **rows, size_t *n)
{
    void *p = NULL;
    int rc = rows ? cs_h5_read_all(r, CS_H5_TIMERS, &p, n) : CS_EINVAL;
    if (rows) *rows = p;
    return rc;
}

int cs_h5_read_actors(cs_h5_reader_t *r, cs_h5_actor_t **rows, size_t *n)
{
    void *p = NULL;
    int rc = rows ? cs_h5_read_all(r, CS_H5_ACTORS, &p, n) : CS_EINVAL;
    if (rows) *rows = p;
    return rc;
}

int cs_h5_read_weights(cs_h5_reader_t *r, cs_h5_weight_t **rows, size_t *n)
{
    void *p = NULL;
    int rc = rows ? cs_h5_read_all(r, CS_H5_WEIGHTS, &p, n) : CS_EINVAL;
    if (rows) *rows = p;
    return rc;
}

int cs_h5_read_summary(cs_h5_reader_t *r, cs_h5_summary_t **rows, size_t *n)
{
    void *p = NULL;
    int rc = rows ? cs_h5_read_all(r, CS_H5_SUMMARY, &p, n) : CS_EINVAL;
    if (rows) *rows = p;
    return rc;
}

int cs_h5_read_idents(cs_h5_reader_t *r, cs_h5_ident_t **rows, size_t *n)
{
    void *p = NULL;
    int rc = rows ? cs_h5_read_all(r, CS_H5_IDENTS, &p, n) : CS_EINVAL;
    if (rows) *rows = p;
    return rc;
}

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
 *   - child died (signal, sanitizer exit, time or memory limit) -> CS_EPARSE
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
        w->rc = cs__h5_fail(CS_EPARSE, "root attribute '%s' unreadable", name);
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
        w.rc = cs__h5_fail(CS_EPARSE, "listing the root attributes");
    if (w.rc == CS_OK && H5Aexists(w.r->file, "cs_sandbox_absent") < 0)
        w.rc = cs__h5_fail(CS_EPARSE, "looking up a root attribute");
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
        if (w <= 0) _exit(1);
        off += (size_t)w;
    }
    _exit(0);
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
        return cs__h5_fail(CS_EPARSE, "'%s': reading it took longer than %u s; the file is corrupt or not a "
                           "cowsim run file", path, secs);
    }
    if (WIFSIGNALED(status))
        return cs__h5_fail(CS_EPARSE, "'%s': the HDF5 library crashed reading it (%s); the file is corrupt "
                           "or not a cowsim run file", path, strsignal(WTERMSIG(status)));
    return cs__h5_fail(CS_EPARSE, "'%s': the HDF5 library failed reading it (reader exit status %d); the "
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
    return cs__h5_open_direct(path, err);
}
