/*
 * test_h5_attrs.c -- the digest over a run file's root attributes
 * (sim/cs_h5_attrs.c): its exact bytes against a serialisation built here
 * by hand, and a complete run file whose seed, scenario text or an exact
 * money total was changed after the close is read as corrupt, while the
 * untouched file and a file without a digest (older cowsim) read as before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "cs_error.h"
#include "cs_h5.h"
#include "cs_h5_int.h"
#include "cs_test.h"
#include "cs_timer.h"

static char dir[] = "/tmp/cs_h5_attrs_XXXXXX";

static void path_of(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

/* Append name, NUL, class, 8-byte LE count and the bytes to buf at *at. */
static void put(uint8_t *buf, size_t *at, const char *name, uint8_t cls, const void *v, uint64_t n)
{
    size_t l = strlen(name) + 1;
    memcpy(buf + *at, name, l);
    *at += l;
    buf[(*at)++] = cls;
    for (int i = 0; i < 8; i++) buf[(*at)++] = (uint8_t)(n >> (8 * i));
    memcpy(buf + *at, v, n);
    *at += n;
}

static void hexof(const uint8_t d[32], char hex[65])
{
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* Three attributes written out of name order: the digest takes them in
 * name order (a_f64, b_str, c_u64), each serialised as the file comment
 * says; the digest attribute itself is left out. */
static void test_digest_bytes(void)
{
    char p[256];
    path_of(p, sizeof p, "raw.h5");
    hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CS_CHECK(f >= 0);
    hid_t sp = H5Screate(H5S_SCALAR);
    uint64_t u = 0x0102030405060708ull;
    double d = -2.5;
    const char *s = "eip1559";
    hid_t vs = H5Tcopy(H5T_C_S1);
    H5Tset_size(vs, H5T_VARIABLE);
    hid_t a = H5Acreate2(f, "c_u64", H5T_STD_U64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_UINT64, &u);
    H5Aclose(a);
    a = H5Acreate2(f, "b_str", vs, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, vs, &s);
    H5Aclose(a);
    a = H5Acreate2(f, "a_f64", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, &d);
    H5Aclose(a);
    a = H5Acreate2(f, "attrs_digest", vs, sp, H5P_DEFAULT, H5P_DEFAULT);
    const char *junk = "not part of the digest";
    H5Awrite(a, vs, &junk);
    H5Aclose(a);

    uint8_t buf[256];
    size_t at = 0;
    put(buf, &at, "a_f64", (uint8_t)H5T_FLOAT, &d, 8);
    put(buf, &at, "b_str", (uint8_t)H5T_STRING, s, 7);
    put(buf, &at, "c_u64", (uint8_t)H5T_INTEGER, &u, 8);
    uint8_t want[32];
    cs_keccak256(buf, at, want);
    char wh[65], got[65];
    hexof(want, wh);
    CS_CHECK_EQ_U64(cs__h5_attrs_digest(f, got), CS_OK);
    CS_CHECK_STR(got, wh);
    /* One bit of the integer changes the digest. */
    u ^= 1;
    a = H5Aopen(f, "c_u64", H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_UINT64, &u);
    H5Aclose(a);
    char got2[65];
    CS_CHECK_EQ_U64(cs__h5_attrs_digest(f, got2), CS_OK);
    CS_CHECK(strcmp(got2, wh) != 0);
    H5Tclose(vs);
    H5Sclose(sp);
    H5Fclose(f);
}

/* A complete run file written by the writer, with a root total. */
static void write_run(const char *p, int complete)
{
    cs_h5_meta_t m = {0};
    m.cowsim_version = "test";
    m.git_commit = "abc";
    m.scenario_json = "{\"name\": \"t\"}";
    m.seed = 42;
    m.mechanism = "fifo";
    m.sync_compress = 1;
    int err = 0;
    cs_h5_t *h = cs_h5_create(p, &m, &err);
    CS_CHECK(h != NULL);
    if (!h) return;
    CS_CHECK_EQ_U64(cs_h5_attr_str(h, "paid_exact", "0"), CS_OK);
    CS_CHECK_EQ_U64(cs_h5_close(h, complete), CS_OK);
}

/* Overwrite root attribute name of file p (u64 or string). */
static void tamper_u64(const char *p, const char *name, uint64_t v)
{
    hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    CS_CHECK(a >= 0 && H5Awrite(a, H5T_NATIVE_UINT64, &v) >= 0);
    H5Aclose(a);
    H5Fclose(f);
}

static void tamper_str(const char *p, const char *name, const char *s)
{
    hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    hid_t t = H5Aget_type(a);
    CS_CHECK(a >= 0 && H5Awrite(a, t, &s) >= 0);
    H5Tclose(t);
    H5Aclose(a);
    H5Fclose(f);
}

static void drop(const char *p, const char *name)
{
    hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    CS_CHECK(H5Adelete(f, name) >= 0);
    H5Fclose(f);
}

/* Open p: the error code (CS_OK when it opens). */
static int open_rc(const char *p)
{
    int err = CS_OK;
    cs_h5_reader_t *r = cs_h5_open_read(p, &err);
    if (r) cs_h5_close_read(r);
    return r ? CS_OK : err;
}

static void test_tamper(void)
{
    char p[256];
    path_of(p, sizeof p, "run.h5");
    write_run(p, 1);
    CS_CHECK_EQ_U64(open_rc(p), CS_OK);

    tamper_u64(p, "seed", 43);
    CS_CHECK_EQ_U64(open_rc(p), CS_ECORRUPT);
    CS_CHECK(strstr(cs_h5_last_error(), "attrs_digest") != NULL);
    tamper_u64(p, "seed", 42); /* restored: reads again */
    CS_CHECK_EQ_U64(open_rc(p), CS_OK);

    tamper_str(p, "scenario_json", "{\"name\": \"u\"}");
    CS_CHECK_EQ_U64(open_rc(p), CS_ECORRUPT);

    write_run(p, 1);
    tamper_str(p, "paid_exact", "1");
    CS_CHECK_EQ_U64(open_rc(p), CS_ECORRUPT);

    /* A file of an older cowsim has no digest: read as before. */
    write_run(p, 1);
    drop(p, "attrs_digest");
    CS_CHECK_EQ_U64(open_rc(p), CS_OK);

    /* An incomplete file is not cross-checked (its totals come at the
     * close), digest or not. */
    write_run(p, 0);
    tamper_u64(p, "seed", 7);
    CS_CHECK_EQ_U64(open_rc(p), CS_OK);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    test_digest_bytes();
    test_tamper();
    char p[256];
    path_of(p, sizeof p, "raw.h5");
    unlink(p);
    path_of(p, sizeof p, "run.h5");
    unlink(p);
    rmdir(dir);
    return cs_test_done("test_h5_attrs");
}
