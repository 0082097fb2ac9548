/*
 * cs_h5_layout.c -- the layout of the HDF5 run file (DESIGN §5): the enum
 * names, the column descriptors generated from cs_h5.h's field tables, the
 * dataset table, the HDF5 row types built from them and the /blocks
 * file-row encoding; and the helpers every piece of the module shares
 * (error messages, closing ids, the library's set-up).  See cs_h5_int.h.
 */
#include "cs_h5_int.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cs_agent.h"
#include "cs_timer.h"

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
const char *const cs__h5_fires_mode_names[] = {"all", "sample", "off"};
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

/*
 * File rows.  The digest is a 32-byte array in the C struct but a 64-char
 * lowercase hex string in the file: h5py turns an array member into a 2-D
 * sub-array that pandas refuses, and an opaque member into numpy 'V32',
 * which pandas can hold but not select or take.  'S64' works everywhere
 * and reads like the keccak test vectors.  Only /blocks has a digest, so
 * only /blocks is re-encoded on write (one row per block: negligible); the
 * other tables are written as raw bytes of their structs.
 */
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
                   sizeof(cs__h5_block_file_t) == 520,
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

/*
 * Chunk sizes: about 1-2 MiB uncompressed for the large datasets, which
 * compresses as well as larger chunks (measured: 16 Ki fire rows give a
 * ratio within 1% of 64 Ki rows) while keeping the writer's buffers small.
 */
const cs__h5_dsdesc_t cs__h5_desc[CS_H5_NDS] = {
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

_Thread_local char cs__h5_msg[1024];

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
int cs__h5_fail(int code, const char *fmt, ...)
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
void cs__h5_close_id(hid_t *id, herr_t (*fn)(hid_t))
{
    if (*id >= 0) fn(*id);
    *id = H5I_INVALID_HID;
}

/*
 * Opt out of HDF5's atexit handler, once, before the library initialises
 * (H5dont_atexit only works before the first HDF5 call).  The handler closes
 * every id still open at exit; for a file whose H5Fclose failed because the
 * disk filled (ENOSPC, EFBIG), HDF5 1.10 then crashes in H5F__close_cb, so a
 * clean "cannot write" exit 3 became a SIGSEGV.  cowsim closes every file
 * explicitly and flushes at cs_h5_flush, so the handler is not needed.
 */
void cs__h5_lib_init(void)
{
    static int done;
    if (!done) {
        done = 1;
        (void)H5dont_atexit();
    }
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

/* Short type name of a column kind, for the description attribute. */
const char *cs__h5_col_type_name(int kind)
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
hid_t cs__h5_row_type(const cs__h5_dsdesc_t *d, const uint8_t *legacy)
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
hid_t cs__h5_vlstr(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) return t;
    if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        H5Tclose(t);
        return H5I_INVALID_HID;
    }
    return t;
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
void cs__h5_encode(const cs__h5_dsdesc_t *d, uint8_t *dst, const uint8_t *src, size_t n)
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
int cs__h5_decode(const cs__h5_dsdesc_t *d, uint8_t *dst, const uint8_t *src, size_t n)
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
