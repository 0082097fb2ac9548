/*
 * cs_h5_table.c -- checksummed tables and fixed-length string attributes
 * for sweep.h5 and harm.h5, and the cross-checks of a sweep summary on read
 * (cs_h5_table.h).
 */
#include "cs_h5_table.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_error.h"
#include "cs_h5.h"

/* Bytes per chunk of a table (rows of a few hundred bytes: a few hundred
 * rows a chunk, each with its own Fletcher-32 checksum). */
#define CS__H5T_CHUNK_BYTES 65536u

hid_t cs_h5t_create(const char *path)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) return -1;
    hid_t f = -1;
    if (H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) >= 0)
        f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    return f;
}

int cs_h5t_attr_str(hid_t loc, const char *name, const char *s)
{
    size_t n = strlen(s);
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) return -1;
    int rc = -1;
    hid_t sp = -1, a = -1;
    if (H5Tset_size(t, n ? n : 1) >= 0 && H5Tset_strpad(t, H5T_STR_NULLPAD) >= 0 &&
        H5Tset_cset(t, H5T_CSET_UTF8) >= 0 && (sp = H5Screate(H5S_SCALAR)) >= 0 &&
        (a = H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
        rc = H5Awrite(a, t, n ? s : "") >= 0 ? 0 : -1;
    if (a >= 0) H5Aclose(a);
    if (sp >= 0) H5Sclose(sp);
    H5Tclose(t);
    return rc;
}

char *cs_h5t_read_attr_str(hid_t loc, const char *name, int *bad)
{
    if (bad) *bad = 0;
    htri_t ex = H5Aexists(loc, name);
    if (ex == 0) return NULL;
    hid_t a = ex > 0 ? H5Aopen(loc, name, H5P_DEFAULT) : -1;
    hid_t ft = a >= 0 ? H5Aget_type(a) : -1, mt = -1;
    char *out = NULL;
    int oom = 0;
    if (ft >= 0 && H5Tget_class(ft) == H5T_STRING) {
        htri_t vl = H5Tis_variable_str(ft);
        if (vl > 0 && (mt = H5Tcopy(H5T_C_S1)) >= 0 && H5Tset_size(mt, H5T_VARIABLE) >= 0 &&
            H5Tset_cset(mt, H5Tget_cset(ft)) >= 0) {
            char *v = NULL;
            if (H5Aread(a, mt, &v) >= 0 && v) oom = !(out = strdup(v));
            if (v) H5free_memory(v);
        } else if (vl == 0) {
            size_t n = H5Tget_size(ft);
            out = n > 0 && n < ((size_t)1 << 30) ? calloc(n + 1, 1) : NULL;
            oom = n > 0 && n < ((size_t)1 << 30) && !out;
            if (out && H5Aread(a, ft, out) < 0) {
                free(out);
                out = NULL;
            }
        }
    }
    if (mt >= 0) H5Tclose(mt);
    if (ft >= 0) H5Tclose(ft);
    if (a >= 0) H5Aclose(a);
    if (!out && bad) *bad = oom ? 2 : 1;
    return out;
}

int cs_h5t_write_table(hid_t loc, const char *name, const char *title, hid_t type, size_t rowsz, size_t nrows,
                       const void *rows)
{
    hsize_t dims[1] = {nrows}, maxd[1] = {H5S_UNLIMITED};
    hsize_t chunk[1] = {rowsz ? CS__H5T_CHUNK_BYTES / rowsz : 1};
    if (chunk[0] < 1) chunk[0] = 1;
    if (nrows && chunk[0] > nrows) chunk[0] = nrows;
    int rc = -1;
    hid_t sp = H5Screate_simple(1, dims, maxd), dcpl = H5Pcreate(H5P_DATASET_CREATE), ds = -1;
    if (sp >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, 1, chunk) >= 0 && H5Pset_fletcher32(dcpl) >= 0 &&
        (ds = H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT)) >= 0 &&
        (nrows == 0 || H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0) &&
        cs_h5t_attr_str(ds, "CLASS", "TABLE") == 0 && cs_h5t_attr_str(ds, "VERSION", "3.0") == 0 &&
        cs_h5t_attr_str(ds, "TITLE", title) == 0)
        rc = 0;
    if (ds >= 0) H5Dclose(ds);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (sp >= 0) H5Sclose(sp);
    return rc;
}

hid_t cs_h5t_compound(size_t rowsz, size_t n, const char *const *names, const size_t *offs, const hid_t *types)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, rowsz);
    for (size_t i = 0; t >= 0 && i < n; i++)
        if (H5Tinsert(t, names[i], offs[i], types[i]) < 0) {
            H5Tclose(t);
            t = -1;
        }
    return t;
}

/* ------------------------------------------------------------ sweep.h5 */

static int cs__h5t_err(char *err, size_t cap, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int cs__h5t_err(char *err, size_t cap, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (cap) vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return code;
}

/* A scalar unsigned root attribute; 1 read, 0 absent, -1 unreadable. */
static int cs__h5t_u64(hid_t fid, const char *name, uint64_t *v)
{
    htri_t ex = H5Aexists(fid, name);
    if (ex == 0) return 0;
    hid_t a = ex > 0 ? H5Aopen(fid, name, H5P_DEFAULT) : -1;
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    int ok = t >= 0 && H5Tget_class(t) == H5T_INTEGER && H5Aread(a, H5T_NATIVE_UINT64, v) >= 0;
    if (t >= 0) H5Tclose(t);
    if (a >= 0) H5Aclose(a);
    return ok ? 1 : -1;
}

/* One /runs member of the native row type: its offset, size and class;
 * -1 when absent. */
typedef struct cs__h5t_mem {
    long off;
    size_t size;
    H5T_class_t cls;
} cs__h5t_mem_t;

static cs__h5t_mem_t cs__h5t_member(hid_t nt, const char *name)
{
    cs__h5t_mem_t m = {-1, 0, H5T_NO_CLASS};
    int i = H5Tget_member_index(nt, name);
    if (i < 0) return m;
    hid_t mt = H5Tget_member_type(nt, (unsigned)i);
    if (mt < 0) return m;
    m.off = (long)H5Tget_member_offset(nt, (unsigned)i);
    m.size = H5Tget_size(mt);
    m.cls = H5Tget_class(mt);
    H5Tclose(mt);
    return m;
}

/* Compare member m of rows a and b; 1 equal. */
static int cs__h5t_same(const unsigned char *a, const unsigned char *b, cs__h5t_mem_t m)
{
    return m.off < 0 || memcmp(a + m.off, b + m.off, m.size) == 0;
}

/* Run number of a run_id member "r<digits>" (NUL-padded); -1 if none. */
static long long cs__h5t_run_no(const unsigned char *p, size_t n)
{
    if (n < 2 || p[0] != 'r') return -1;
    long long v = 0;
    size_t i = 1;
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
        if (v > (1ll << 50)) return -1;
        v = v * 10 + (p[i] - '0');
    }
    if (i == 1) return -1;
    for (; i < n; i++)
        if (p[i] != '\0') return -1;
    return v;
}

/* Bytes /runs stores, or the largest hsize_t when a filter other than
 * Fletcher-32 (compression: a summary written by other tools) makes the
 * stored size no bound on the rows. */
static hsize_t cs__h5t_stored(hid_t ds)
{
    hid_t dcpl = H5Dget_create_plist(ds);
    int nf = dcpl >= 0 ? H5Pget_nfilters(dcpl) : -1, other = nf < 0;
    for (int i = 0; i < nf && !other; i++) {
        unsigned flags = 0;
        size_t ne = 0;
        other = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ne, NULL, 0, NULL, NULL) != H5Z_FILTER_FLETCHER32;
    }
    if (dcpl >= 0) H5Pclose(dcpl);
    return other ? (hsize_t)-1 : H5Dget_storage_size(ds);
}

int cs_sweep_file_verify(hid_t fid, const char *path, char *err, size_t cap)
{
    /* First the stored row type: libhdf5 copies members by their stored
     * offsets unchecked (cs_h5_row_type_ok), so nothing is read before. */
    hid_t ds = H5Dopen2(fid, "runs", H5P_DEFAULT);
    hid_t ft = ds >= 0 ? H5Dget_type(ds) : -1;
    char why[128];
    if (ft >= 0 && !cs_h5_row_type_ok(ft, why, sizeof why)) {
        H5Tclose(ft);
        H5Dclose(ds);
        return cs__h5t_err(err, cap, CS_EPARSE, "%s: /runs: %s", path, why);
    }
    uint64_t nruns = 0, done = 0, npts = 0, nseeds = 0, complete = 0;
    int h_runs = cs__h5t_u64(fid, "n_runs", &nruns), h_done = cs__h5t_u64(fid, "runs_done", &done);
    int h_pts = cs__h5t_u64(fid, "n_points", &npts), h_seeds = cs__h5t_u64(fid, "n_seeds", &nseeds);
    int h_comp = cs__h5t_u64(fid, "complete", &complete);
    why[0] = '\0';
    static const char *const strs[] = {"name", "sweep_json", "base_json", "design", "cowsim_version", "git_commit"};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        int bad = 0;
        free(cs_h5t_read_attr_str(fid, strs[i], &bad));
        if (bad == 2) {
            if (ft >= 0) H5Tclose(ft);
            if (ds >= 0) H5Dclose(ds);
            return cs__h5t_err(err, cap, CS_ENOMEM, "'%s': out of memory", path);
        }
        if (bad) {
            snprintf(why, sizeof why, "root attribute %s is unreadable", strs[i]);
            break;
        }
    }
    const char *root = NULL;
    if (why[0]) root = why;
    else if (h_runs < 0 || h_done < 0 || h_pts < 0 || h_seeds < 0 || h_comp < 0)
        root = "a root count is unreadable";
    else if (h_runs && h_pts && h_seeds && (nseeds == 0 || npts > UINT64_MAX / nseeds || nruns != npts * nseeds))
        root = "n_runs is not n_points x n_seeds";
    else if (h_runs && h_done && done > nruns) root = "runs_done exceeds n_runs";
    else if (h_comp && complete > 1) root = "complete is neither 0 nor 1";
    else if (h_comp && complete == 1 && h_runs && h_done && done != nruns)
        root = "complete, but runs_done is not n_runs";
    if (root) {
        int rc = cs__h5t_err(err, cap, CS_ECORRUPT, "'%s' is corrupt: %s", path, root);
        if (ft >= 0) H5Tclose(ft);
        if (ds >= 0) H5Dclose(ds);
        return rc;
    }
    /* Every byte of /runs (Fletcher-32 checked by HDF5 where present). */
    hid_t sp = ds >= 0 ? H5Dget_space(ds) : -1;
    hid_t nt = ft >= 0 && H5Tget_class(ft) == H5T_COMPOUND ? H5Tget_native_type(ft, H5T_DIR_ASCEND) : -1;
    hsize_t dims[1] = {0};
    int ok = nt >= 0 && sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, dims, NULL) == 1;
    size_t rowsz = ok ? H5Tget_size(nt) : 0, nrows = (size_t)dims[0];
    unsigned char *buf = NULL;
    int rc = 0;
    if (!ok || rowsz == 0 || (nrows && rowsz > SIZE_MAX / nrows)) {
        rc = cs__h5t_err(err, cap, CS_ECORRUPT, "'%s' is corrupt: /runs is unreadable", path);
    } else if (cs__h5t_stored(ds) < (hsize_t)nrows * H5Tget_size(ft)) {
        /* (before anything the size of the claimed rows is reserved) */
        rc = cs__h5t_err(err, cap, CS_ECORRUPT, "'%s' is corrupt: /runs claims more rows than it stores", path);
    } else if ((buf = malloc(nrows ? nrows * rowsz : 1)) == NULL) {
        rc = cs__h5t_err(err, cap, CS_ENOMEM, "'%s': out of memory", path);
    } else if (nrows && H5Dread(ds, nt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        rc = cs__h5t_err(err, cap, CS_ECORRUPT, "'%s' is corrupt: /runs does not read (checksum or layout)", path);
    }
    cs__h5t_mem_t mid = {-1, 0, H5T_NO_CLASS}, mpt = mid, mseed = mid, mmech = mid;
    if (rc == 0) {
        mid = cs__h5t_member(nt, "run_id");
        mpt = cs__h5t_member(nt, "point");
        mseed = cs__h5t_member(nt, "seed");
        mmech = cs__h5t_member(nt, "mechanism");
        if ((mid.off >= 0 && mid.cls != H5T_STRING) || (mmech.off >= 0 && mmech.cls != H5T_STRING) ||
            (mpt.off >= 0 && (mpt.cls != H5T_INTEGER || mpt.size != 8)) ||
            (mseed.off >= 0 && (mseed.cls != H5T_INTEGER || mseed.size != 8)))
            rc = cs__h5t_err(err, cap, CS_ECORRUPT, "'%s' is corrupt: /runs has a column of the wrong type", path);
    }
    /* The groups: rows per run = the rows sharing the first row's run_id. */
    if (rc == 0 && nrows && mid.off >= 0) {
        size_t k = 1;
        while (k < nrows && cs__h5t_same(buf, buf + k * rowsz, mid)) k++;
        const char *bad = NULL;
        if (h_done && nrows != done * k) bad = "/runs rows are not runs_done x mechanisms";
        else if (nrows % k) bad = "/runs rows are not whole runs";
        long long prev = -1;
        for (size_t g = 0; !bad && g < nrows / k; g++) {
            const unsigned char *r0 = buf + g * k * rowsz;
            long long rn = cs__h5t_run_no(r0 + mid.off, mid.size);
            int64_t pt = 0;
            if (mpt.off >= 0) memcpy(&pt, r0 + mpt.off, 8);
            if (rn < 0) bad = "a run_id is not r<number>";
            else if (rn <= prev) bad = "run_ids are not increasing";
            else if (h_runs && (uint64_t)rn >= nruns) bad = "a run_id is beyond n_runs";
            else if (mpt.off >= 0 && h_seeds && nseeds && (pt < 0 || (uint64_t)pt != (uint64_t)rn / nseeds))
                bad = "a point differs from its run_id";
            else if (mpt.off >= 0 && h_pts && (uint64_t)pt >= npts) bad = "a point is beyond n_points";
            prev = rn;
            for (size_t i = 0; !bad && i < k; i++) {
                const unsigned char *ri = r0 + i * rowsz;
                if (!cs__h5t_same(r0, ri, mid) || !cs__h5t_same(r0, ri, mpt) || !cs__h5t_same(r0, ri, mseed))
                    bad = "a run's rows differ in run_id, point or seed";
                else if (g && !cs__h5t_same(buf + i * rowsz, ri, mmech))
                    bad = "a run's mechanisms differ from the first run's";
            }
        }
        if (bad) rc = cs__h5t_err(err, cap, CS_ECORRUPT, "'%s' is corrupt: %s", path, bad);
    } else if (rc == 0 && nrows == 0 && h_done && done != 0) {
        rc = cs__h5t_err(err, cap, CS_ECORRUPT, "'%s' is corrupt: /runs is empty but runs_done is not 0", path);
    }
    free(buf);
    if (nt >= 0) H5Tclose(nt);
    if (ft >= 0) H5Tclose(ft);
    if (sp >= 0) H5Sclose(sp);
    if (ds >= 0) H5Dclose(ds);
    return rc ? rc : CS_OK;
}
