/*
 * cs_h5_attrs.c -- a digest over a run file's root attributes.
 *
 * HDF5's Fletcher-32 filter guards the datasets' chunks, but root
 * attributes (seed, mechanism, scenario_json, the exact money totals,
 * fires_mode, ...) carry no checksum of their own, so a flipped byte in one
 * of them read as another value.  The writer stores, as its last act at
 * the close, "attrs_digest": the Keccak-256, in lower-case hex, of every
 * other root attribute in increasing name order, each as
 *
 *     name, NUL, type class (1 byte), value bytes count (8 bytes LE), value
 *
 * where the value is a variable-length string's bytes, else the
 * attribute's elements in the platform's native type of the same class,
 * size and sign.  The reader recomputes it for a complete file that has it
 * (cs_h5_verify.c) and reports a mismatch as corrupt.  A file written
 * before the digest existed has none and is read as before.
 */
#include "cs_h5_int.h"

#include <stdlib.h>
#include <string.h>

#include "cs_timer.h"

/* Iteration state: the hash and the first failure. */
typedef struct cs__h5_ad {
    cs_keccak_ctx k;
    int rc;
} cs__h5_ad_t;

static void cs__h5_ad_len(cs_keccak_ctx *k, uint64_t n)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(n >> (8 * i));
    cs_keccak_update(k, b, sizeof b);
}

/* Hash one attribute's value; CS_OK, CS_EIO (unreadable) or CS_ENOMEM. */
static int cs__h5_ad_value(cs__h5_ad_t *s, hid_t a)
{
    hid_t ft = H5Aget_type(a), sp = H5Aget_space(a), mt = H5I_INVALID_HID;
    int rc = CS_EIO;
    hssize_t n = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
    H5T_class_t cls = ft < 0 ? H5T_NO_CLASS : H5Tget_class(ft);
    if (n < 0 || cls == H5T_NO_CLASS) goto out;
    uint8_t c = (uint8_t)cls;
    if (cls == H5T_STRING && H5Tis_variable_str(ft) > 0) {
        if (n != 1) goto out;
        mt = H5Tcopy(ft); /* the file's own character set */
        char *str = NULL;
        if (mt < 0 || H5Aread(a, mt, &str) < 0) goto out;
        size_t len = str ? strlen(str) : 0;
        cs_keccak_update(&s->k, &c, 1);
        cs__h5_ad_len(&s->k, len);
        cs_keccak_update(&s->k, str ? str : "", len);
        H5free_memory(str);
        rc = CS_OK;
        goto out;
    }
    mt = H5Tget_native_type(ft, H5T_DIR_ASCEND);
    size_t es = mt < 0 ? 0 : H5Tget_size(mt);
    if (es == 0) goto out;
    size_t bytes = es * (size_t)n;
    uint8_t *buf = malloc(bytes ? bytes : 1);
    if (!buf) {
        rc = CS_ENOMEM;
        goto out;
    }
    if (H5Aread(a, mt, buf) >= 0) {
        cs_keccak_update(&s->k, &c, 1);
        cs__h5_ad_len(&s->k, bytes);
        cs_keccak_update(&s->k, buf, bytes);
        rc = CS_OK;
    }
    free(buf);
out:
    if (mt >= 0) H5Tclose(mt);
    if (sp >= 0) H5Sclose(sp);
    if (ft >= 0) H5Tclose(ft);
    return rc;
}

static herr_t cs__h5_ad_one(hid_t loc, const char *name, const H5A_info_t *info, void *op)
{
    (void)info;
    cs__h5_ad_t *s = op;
    if (strcmp(name, CS__H5_ATTRS_DIGEST) == 0) return 0;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) {
        s->rc = CS_EIO;
        return -1;
    }
    cs_keccak_update(&s->k, name, strlen(name) + 1);
    s->rc = cs__h5_ad_value(s, a);
    H5Aclose(a);
    return s->rc == CS_OK ? 0 : -1;
}

int cs__h5_attrs_digest(hid_t file, char hex[65])
{
    cs__h5_ad_t s;
    cs_keccak_init(&s.k);
    s.rc = CS_OK;
    hsize_t at = 0;
    herr_t e = H5Aiterate2(file, H5_INDEX_NAME, H5_ITER_INC, &at, cs__h5_ad_one, &s);
    if (s.rc != CS_OK) return s.rc;
    if (e < 0) return CS_EIO;
    uint8_t d[32];
    cs_keccak_final(&s.k, d);
    static const char xd[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = xd[d[i] >> 4];
        hex[2 * i + 1] = xd[d[i] & 15];
    }
    hex[64] = '\0';
    return CS_OK;
}
