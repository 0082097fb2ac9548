/*
 * cs_h5_int.h -- internals shared by the pieces of the HDF5 run file module
 * (cs_h5_layout.c, cs_h5_writer.c, cs_h5_reader.c, cs_h5_sandbox.c); not
 * for use outside them.  The public interface is cs_h5.h.  Each function's
 * contract is above its definition.
 */
#ifndef CS_H5_INT_H
#define CS_H5_INT_H

#include "cs_h5.h"

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

/* ---- column descriptors (cs_h5_layout.c) --------------------------------- */

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

/* The file form of a digest column: 64 lowercase hex characters ("File
 * rows" in cs_h5_layout.c). */
typedef char cs__h5_hex_t[64];

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

/* One descriptor per dataset, indexed by cs_h5_ds. */
extern const cs__h5_dsdesc_t cs__h5_desc[CS_H5_NDS];
/* Values of the "fires_mode" root attribute, indexed by cs_h5_fires_mode. */
extern const char *const cs__h5_fires_mode_names[];

/* legacy code of an optional column the file lacks (cs__h5_optional). */
#define CS__H5_ABSENT 3

/* ---- shared helpers (cs_h5_layout.c) ------------------------------------ */

extern _Thread_local char cs__h5_msg[1024]; /* the last failure's message (cs_h5_last_error) */
int cs__h5_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cs__h5_close_id(hid_t *id, herr_t (*fn)(hid_t));
void cs__h5_lib_init(void);
const char *cs__h5_col_type_name(int kind);
hid_t cs__h5_row_type(const cs__h5_dsdesc_t *d, const uint8_t *legacy);
hid_t cs__h5_vlstr(void);
void cs__h5_encode(const cs__h5_dsdesc_t *d, uint8_t *dst, const uint8_t *src, size_t n);
int cs__h5_decode(const cs__h5_dsdesc_t *d, uint8_t *dst, const uint8_t *src, size_t n);

/* ---- reader (cs_h5_reader.c; the sandbox's child reads through it) ------- */

struct cs_h5_reader {
    hid_t file;               /* open read-only */
    hid_t dset[CS_H5_NDS];    /* opened and checked lazily */
    hid_t mtype[CS_H5_NDS];   /* memory row types, built with dset */
    uint8_t legacy[CS_H5_NDS][64]; /* per column: 0, or how a format-1 MONEY column is read
                                    * (cs__h5_insert_col) */
    cs_h5_info_t info;        /* root attributes */
};

int cs__h5_rd_num(cs_h5_reader_t *r, const char *name, hid_t mtype, void *out);
cs_h5_reader_t *cs__h5_open_direct(const char *path, int *err);
/* cs_h5_verify.c: the cross-checks of a complete run file's tables against
 * its root totals.  CS_OK, CS_ECORRUPT or CS_ENOMEM. */
int cs__h5_verify(cs_h5_reader_t *r, const char *path);
/* cs_h5_attrs.c: the Keccak-256 (hex, NUL-terminated) of every root
 * attribute of file but CS__H5_ATTRS_DIGEST itself.  CS_OK, CS_EIO or
 * CS_ENOMEM. */
#define CS__H5_ATTRS_DIGEST "attrs_digest"
int cs__h5_attrs_digest(hid_t file, char hex[65]);

#endif /* CS_H5_INT_H */
