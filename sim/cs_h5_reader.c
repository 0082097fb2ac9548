/*
 * cs_h5_reader.c -- the HDF5 run file reader (DESIGN §5): root attributes,
 * the check of each table's columns against this build's layout (format-1
 * files and files without the optional columns included) and reading rows.
 * cs_h5_open_read, which first reads an untrusted file in a child, is in
 * cs_h5_sandbox.c.
 */
#include "cs_h5_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reader ----------------------------------------------------------------- */

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
int cs__h5_rd_num(cs_h5_reader_t *r, const char *name, hid_t mtype, void *out)
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
cs_h5_reader_t *cs__h5_open_direct(const char *path, int *err)
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
        /* With HDF5's signature it is a damaged HDF5 file; else not one. */
        unsigned char sig[8] = {0};
        FILE *sf = fopen(path, "rb");
        size_t got = sf ? fread(sig, 1, sizeof sig, sf) : 0;
        if (sf) fclose(sf);
        if (got == sizeof sig && memcmp(sig, "\211HDF\r\n\032\n", sizeof sig) == 0)
            *err = cs__h5_fail(CS_ECORRUPT, "'%s' is corrupt: an HDF5 file that cannot be opened", path);
        else
            *err = cs__h5_fail(CS_EPARSE, "'%s' is not a readable HDF5 file", path);
        cs_h5_close_read(r);
        return NULL;
    }
    /* No format_version at all: some other HDF5 file (bad input).  Once it
     * is there, the file is a cowsim run file and any failure to read it
     * means it is damaged. */
    if (H5Aexists(r->file, "format_version") == 0) {
        *err = cs__h5_fail(CS_EPARSE, "'%s' is an HDF5 file but not a cowsim run file", path);
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
    if (rc == CS_EIO || (rc == CS_EPARSE && r->info.format_version >= CS_H5_FORMAT_VERSION_OLDEST &&
                         r->info.format_version <= CS_H5_FORMAT_VERSION))
        rc = cs__h5_fail(CS_ECORRUPT, "'%s' is corrupt: %s", path, cs_h5_last_error());
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
 * gas_limit on, then bid for the CIP-5 §9.6 variances, DESIGN-NOTES N43),
 * and the decomposition of paid and the schedule and cancel costs (N58)
 * added to /fires (from exec_fee on) and /actors (from sched_cost on).
 * A file written before them reads them as 0 (CS__H5_ABSENT);
 * analysis/cs_optimum.c tells such a file by fire_cap = 0 or gas_limit = 0,
 * impossible in a real row. */
static int cs__h5_optional(int dsi, size_t i)
{
    const cs__h5_dsdesc_t *d = &cs__h5_desc[dsi];
    const char *first = dsi == CS_H5_BLOCKS   ? "lane_budget"
                        : dsi == CS_H5_TIMERS ? "gas_limit"
                        : dsi == CS_H5_FIRES  ? "exec_fee"
                        : dsi == CS_H5_ACTORS ? "sched_cost"
                                              : NULL;
    for (size_t k = 0; first && k <= i; k++)
        if (strcmp(d->field[k].name, first) == 0) return 1;
    return 0;
}

/* A failure to read a table of a file that opened as a cowsim run file:
 * the file is damaged (CS_ECORRUPT), whatever HDF5 said (a checksum, a
 * broken extent, a missing column).  Other codes pass through. */
static int cs__h5_corrupt(int rc)
{
    if (rc != CS_EIO && rc != CS_EPARSE) return rc;
    char why[sizeof cs__h5_msg];
    memcpy(why, cs__h5_msg, sizeof why);
    return cs__h5_fail(CS_ECORRUPT, "corrupt: %.900s", why);
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
    if (rc != CS_OK) return cs__h5_corrupt(rc);
    hid_t sp = H5Dget_space(r->dset[ds]);
    hsize_t dim = 0;
    if (sp < 0 || H5Sget_simple_extent_dims(sp, &dim, NULL) != 1)
        rc = cs__h5_fail(CS_ECORRUPT, "corrupt: extent of /%s", cs__h5_desc[ds].name);
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
        rc = cs__h5_fail(CS_ECORRUPT, "corrupt: reading /%s rows %llu..%llu (a checksum or the layout failed)",
                         cs__h5_desc[dsi].name,
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
            rc = cs__h5_fail(CS_ECORRUPT, "corrupt: /%s rows %llu..%llu: digest is not 64 hex digits",
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
