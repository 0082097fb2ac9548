/*
 * test_sweep_verify.c -- cs_sweep_file_verify (analysis/cs_h5_table.c) on
 * small sweep summaries written here, one inconsistency at a time: each
 * must be refused with its own message, word for word, and the consistent
 * ones (also with a compressed /runs, and with no rows yet) accepted.  The
 * byte-level damage of a real sweep is tests/test_corrupt_sweep.c's; this
 * test reaches every rule of the check (issue 29: coverage of analysis/).
 */
#include "cs_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "cs_error.h"
#include "cs_h5_table.h"

/* A /runs row as cowsim sweep writes its leading members. */
typedef struct row {
    char run_id[24];
    int64_t point;
    uint64_t seed;
    char mech[16];
    double welfare;
} row_t;

/* The root counts; -1 leaves an attribute out, -2 writes it as a double. */
typedef struct counts {
    long long n_runs, runs_done, n_points, n_seeds, complete;
} counts_t;

/* How /runs is stored. */
enum { RUNS_OK, RUNS_NONE, RUNS_INT, RUNS_2D, RUNS_ID_INT, RUNS_PT_I32, RUNS_SEED_F64, RUNS_MECH_INT, RUNS_DEFLATE };

static char dir[256];
static int nfile;

static void count_attr(hid_t f, const char *name, long long v)
{
    if (v == -1) return;
    hid_t sp = H5Screate(H5S_SCALAR);
    if (v == -2) {
        double d = 2.0;
        hid_t a = H5Acreate2(f, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_DOUBLE, &d);
        H5Aclose(a);
    } else {
        uint64_t u = (uint64_t)v;
        hid_t a = H5Acreate2(f, name, H5T_STD_U64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_UINT64, &u);
        H5Aclose(a);
    }
    H5Sclose(sp);
}

/* Write a summary: counts c, n rows of r stored as `how`; name_int: the
 * root attribute "name" an integer.  Returns the open file (read-only). */
static hid_t make(const counts_t *c, const row_t *r, size_t n, int how, int name_int)
{
    char path[320];
    snprintf(path, sizeof path, "%s/s%d.h5", dir, nfile++);
    hid_t f = cs_h5t_create(path);
    CS_CHECK(f >= 0);
    if (f < 0) return -1;
    if (name_int) count_attr(f, "name", 7);
    else CS_CHECK(cs_h5t_attr_str(f, "name", "t") == 0);
    CS_CHECK(cs_h5t_attr_str(f, "design", "") == 0); /* an empty string attribute */
    count_attr(f, "n_runs", c->n_runs);
    count_attr(f, "runs_done", c->runs_done);
    count_attr(f, "n_points", c->n_points);
    count_attr(f, "n_seeds", c->n_seeds);
    count_attr(f, "complete", c->complete);
    hid_t s8 = H5Tcopy(H5T_C_S1), s16 = H5Tcopy(H5T_C_S1);
    H5Tset_size(s8, sizeof(((row_t *)0)->run_id));
    H5Tset_size(s16, 16);
    const char *names[] = {"run_id", "point", "seed", "mechanism", "welfare"};
    size_t offs[] = {offsetof(row_t, run_id), offsetof(row_t, point), offsetof(row_t, seed), offsetof(row_t, mech),
                     offsetof(row_t, welfare)};
    hid_t types[] = {s8, H5T_NATIVE_INT64, H5T_NATIVE_UINT64, s16, H5T_NATIVE_DOUBLE};
    if (how == RUNS_ID_INT) types[0] = H5T_NATIVE_UINT64;
    if (how == RUNS_SEED_F64) types[2] = H5T_NATIVE_DOUBLE;
    if (how == RUNS_MECH_INT) types[3] = H5T_NATIVE_UINT64;
    hid_t t = cs_h5t_compound(sizeof(row_t), 5, names, offs, types);
    if (how == RUNS_PT_I32) { /* point an int32 at the same offset */
        H5Tclose(t);
        types[1] = H5T_NATIVE_INT32;
        t = cs_h5t_compound(sizeof(row_t), 5, names, offs, types);
    }
    CS_CHECK(t >= 0);
    if (how == RUNS_OK || how == RUNS_ID_INT || how == RUNS_PT_I32 || how == RUNS_SEED_F64 || how == RUNS_MECH_INT) {
        CS_CHECK(cs_h5t_write_table(f, "runs", "runs", t, sizeof(row_t), n, r) == 0);
    } else if (how == RUNS_INT || how == RUNS_2D) {
        hsize_t d[2] = {2, 2};
        int v[4] = {1, 2, 3, 4};
        hid_t sp = H5Screate_simple(how == RUNS_2D ? 2 : 1, d, NULL);
        hid_t ty = how == RUNS_2D ? t : H5T_NATIVE_INT;
        hid_t ds = H5Dcreate2(f, "runs", ty, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        row_t two[4];
        memset(two, 0, sizeof two);
        CS_CHECK(H5Dwrite(ds, ty, H5S_ALL, H5S_ALL, H5P_DEFAULT, how == RUNS_2D ? (void *)two : (void *)v) >= 0);
        H5Dclose(ds);
        H5Sclose(sp);
    } else if (how == RUNS_DEFLATE) {
        hsize_t d[1] = {n}, ch[1] = {n};
        hid_t sp = H5Screate_simple(1, d, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, ch);
        H5Pset_deflate(dcpl, 6);
        hid_t ds = H5Dcreate2(f, "runs", t, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CS_CHECK(H5Dwrite(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0);
        H5Dclose(ds);
        H5Pclose(dcpl);
        H5Sclose(sp);
    }
    H5Tclose(t);
    H5Tclose(s8);
    H5Tclose(s16);
    H5Fclose(f);
    hid_t g = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CS_CHECK(g >= 0);
    return g;
}

/* s into a NUL-padded field of cap bytes (cut, unterminated, when longer). */
static void put_str(char *d, size_t cap, const char *s)
{
    size_t n = strlen(s);
    memset(d, 0, cap);
    memcpy(d, s, n < cap ? n : cap);
}

static void set_row(row_t *r, const char *id, int64_t pt, uint64_t seed, const char *mech)
{
    memset(r, 0, sizeof *r);
    put_str(r->run_id, sizeof r->run_id, id);
    r->point = pt;
    r->seed = seed;
    put_str(r->mech, sizeof r->mech, mech);
    r->welfare = 1.5;
}

/* Two runs (points 0 and 1, one seed 9) of fifo and eip1559: 4 rows. */
static void good_rows(row_t r[4])
{
    set_row(&r[0], "r0", 0, 9, "fifo");
    set_row(&r[1], "r0", 0, 9, "eip1559");
    set_row(&r[2], "r1", 1, 9, "fifo");
    set_row(&r[3], "r1", 1, 9, "eip1559");
}

/* Verify; expect rc and, for a refusal, "'S' is corrupt: " + why (or the
 * whole message when why starts with '=', its start when with '^'). */
static void expect(hid_t f, int rc_want, const char *why, int line)
{
    char err[300] = "", want[300];
    int rc = f >= 0 ? cs_sweep_file_verify(f, "S", err, sizeof err) : -99;
    if (f >= 0) H5Fclose(f);
    if (why && (why[0] == '=' || why[0] == '^')) snprintf(want, sizeof want, "%s", why + 1);
    else snprintf(want, sizeof want, "'S' is corrupt: %s", why ? why : "");
    if (rc == rc_want && (!why || (why[0] == '^' ? strncmp(err, want, strlen(want)) : strcmp(err, want)) == 0)) {
        cs_test_pass++;
    } else {
        fprintf(stderr, "line %d: rc %d (want %d), message '%s', want '%s'\n", line, rc, rc_want, err,
                why ? want : "");
        cs_test_failed(__FILE__, line, "cs_sweep_file_verify", NULL);
    }
}
#define EXPECT(f, rc, why) expect(f, rc, why, __LINE__)
#define C(runs, done, pts, seeds, comp) ((counts_t){runs, done, pts, seeds, comp})

static void test_root(void)
{
    row_t r[4];
    good_rows(r);
    EXPECT(make(&C(2, 2, 2, 1, 1), r, 4, RUNS_OK, 0), CS_OK, NULL);
    EXPECT(make(&C(-1, -1, -1, -1, -1), r, 4, RUNS_OK, 0), CS_OK, NULL); /* no counts: nothing to hold them to */
    EXPECT(make(&C(2, 2, 2, 1, 1), r, 4, RUNS_DEFLATE, 0), CS_OK, NULL); /* stored size no bound: still read */
    EXPECT(make(&C(2, 2, 2, 1, 1), r, 4, RUNS_OK, 1), CS_ECORRUPT, "root attribute name is unreadable");
    EXPECT(make(&C(-2, 2, 2, 1, 1), r, 4, RUNS_OK, 0), CS_ECORRUPT, "a root count is unreadable");
    EXPECT(make(&C(2, 2, 2, -2, 1), r, 4, RUNS_OK, 0), CS_ECORRUPT, "a root count is unreadable");
    EXPECT(make(&C(3, 2, 2, 1, 0), r, 4, RUNS_OK, 0), CS_ECORRUPT, "n_runs is not n_points x n_seeds");
    EXPECT(make(&C(2, 2, 2, 0, 0), r, 4, RUNS_OK, 0), CS_ECORRUPT, "n_runs is not n_points x n_seeds");
    /* 2^62 points x 8 seeds overflows 64 bits: refused, not wrapped to 0. */
    EXPECT(make(&C(0, 0, 1ll << 62, 8, 0), r, 0, RUNS_OK, 0), CS_ECORRUPT, "n_runs is not n_points x n_seeds");
    EXPECT(make(&C(2, 3, 2, 1, 0), r, 4, RUNS_OK, 0), CS_ECORRUPT, "runs_done exceeds n_runs");
    EXPECT(make(&C(2, 2, 2, 1, 2), r, 4, RUNS_OK, 0), CS_ECORRUPT, "complete is neither 0 nor 1");
    EXPECT(make(&C(2, 1, 2, 1, 1), r, 2, RUNS_OK, 0), CS_ECORRUPT, "complete, but runs_done is not n_runs");
}

static void test_runs(void)
{
    row_t r[4];
    good_rows(r);
    EXPECT(make(&C(2, 0, 2, 1, 0), r, 0, RUNS_NONE, 0), CS_ECORRUPT, "/runs is unreadable");
    /* A /runs of integers: not a row type (cs_h5_row_type_ok says why). */
    EXPECT(make(&C(2, 0, 2, 1, 0), r, 0, RUNS_INT, 0), CS_EPARSE, "^S: /runs: row type of 4 bytes");
    EXPECT(make(&C(2, 0, 2, 1, 0), r, 0, RUNS_2D, 0), CS_ECORRUPT, "/runs is unreadable");
    EXPECT(make(&C(2, 2, 2, 1, 1), r, 4, RUNS_ID_INT, 0), CS_ECORRUPT, "/runs has a column of the wrong type");
    EXPECT(make(&C(2, 2, 2, 1, 1), r, 4, RUNS_PT_I32, 0), CS_ECORRUPT, "/runs has a column of the wrong type");
    EXPECT(make(&C(2, 2, 2, 1, 1), r, 4, RUNS_SEED_F64, 0), CS_ECORRUPT, "/runs has a column of the wrong type");
    EXPECT(make(&C(2, 2, 2, 1, 1), r, 4, RUNS_MECH_INT, 0), CS_ECORRUPT, "/runs has a column of the wrong type");
    /* No rows yet: fine with runs_done 0, not with 1. */
    EXPECT(make(&C(2, 0, 2, 1, 0), r, 0, RUNS_OK, 0), CS_OK, NULL);
    EXPECT(make(&C(2, 1, 2, 1, 0), r, 0, RUNS_OK, 0), CS_ECORRUPT, "/runs is empty but runs_done is not 0");
    EXPECT(make(&C(2, 1, 2, 1, 0), r, 4, RUNS_OK, 0), CS_ECORRUPT, "/runs rows are not runs_done x mechanisms");
    EXPECT(make(&C(2, -1, 2, 1, 0), r, 3, RUNS_OK, 0), CS_ECORRUPT, "/runs rows are not whole runs");
    /* Not "r" and digits; 21 digits: refused before the number overflows. */
    static const char *const bad_ids[] = {"x1", "r", "r1x", "r999999999999999999999"};
    for (size_t i = 0; i < 4; i++) {
        good_rows(r);
        put_str(r[2].run_id, sizeof r[2].run_id, bad_ids[i]);
        put_str(r[3].run_id, sizeof r[3].run_id, bad_ids[i]);
        EXPECT(make(&C(-1, 2, -1, -1, 0), r, 4, RUNS_OK, 0), CS_ECORRUPT, "a run_id is not r<number>");
    }
    good_rows(r);
    set_row(&r[0], "r1", 1, 9, "fifo");
    set_row(&r[1], "r1", 1, 9, "eip1559");
    set_row(&r[2], "r0", 0, 9, "fifo");
    set_row(&r[3], "r0", 0, 9, "eip1559");
    EXPECT(make(&C(2, 2, 2, 1, 1), r, 4, RUNS_OK, 0), CS_ECORRUPT, "run_ids are not increasing");
    good_rows(r);
    set_row(&r[2], "r2", 1, 9, "fifo");
    set_row(&r[3], "r2", 1, 9, "eip1559");
    EXPECT(make(&C(2, 2, 2, 1, 1), r, 4, RUNS_OK, 0), CS_ECORRUPT, "a run_id is beyond n_runs");
    good_rows(r);
    r[2].point = r[3].point = 0;
    EXPECT(make(&C(2, 2, 2, 1, 1), r, 4, RUNS_OK, 0), CS_ECORRUPT, "a point differs from its run_id");
    good_rows(r);
    r[0].point = r[1].point = -1;
    EXPECT(make(&C(2, 2, 2, 1, 1), r, 4, RUNS_OK, 0), CS_ECORRUPT, "a point differs from its run_id");
    good_rows(r);
    r[2].point = r[3].point = 5; /* no n_seeds: the point is held to n_points only */
    EXPECT(make(&C(2, 2, 2, -1, 1), r, 4, RUNS_OK, 0), CS_ECORRUPT, "a point is beyond n_points");
    good_rows(r);
    r[3].seed = 10;
    EXPECT(make(&C(2, 2, 2, 1, 1), r, 4, RUNS_OK, 0), CS_ECORRUPT, "a run's rows differ in run_id, point or seed");
    good_rows(r);
    put_str(r[3].mech, sizeof r[3].mech, "greedy");
    EXPECT(make(&C(2, 2, 2, 1, 1), r, 4, RUNS_OK, 0), CS_ECORRUPT, "a run's mechanisms differ from the first run's");
}

/* The string attribute helpers: absent, empty, fixed length. */
static void test_attrs(void)
{
    char path[320];
    snprintf(path, sizeof path, "%s/attrs.h5", dir);
    hid_t f = cs_h5t_create(path);
    CS_CHECK(f >= 0);
    CS_CHECK(cs_h5t_attr_str(f, "e", "") == 0);
    CS_CHECK(cs_h5t_attr_str(f, "s", "abc") == 0);
    count_attr(f, "i", 3);
    int bad = -1;
    char *s = cs_h5t_read_attr_str(f, "none", &bad);
    CS_CHECK(s == NULL && bad == 0);
    s = cs_h5t_read_attr_str(f, "e", &bad);
    CS_CHECK_STR(s, "");
    CS_CHECK(bad == 0);
    free(s);
    s = cs_h5t_read_attr_str(f, "s", NULL);
    CS_CHECK_STR(s, "abc");
    free(s);
    s = cs_h5t_read_attr_str(f, "i", &bad);
    CS_CHECK(s == NULL && bad == 1);
    /* A variable-length string attribute (older summaries): read the same. */
    hid_t vt = H5Tcopy(H5T_C_S1), vsp = H5Screate(H5S_SCALAR);
    H5Tset_size(vt, H5T_VARIABLE);
    hid_t va = H5Acreate2(f, "v", vt, vsp, H5P_DEFAULT, H5P_DEFAULT);
    const char *vs = "vlen text";
    CS_CHECK(va >= 0 && H5Awrite(va, vt, &vs) >= 0);
    H5Aclose(va);
    H5Sclose(vsp);
    H5Tclose(vt);
    s = cs_h5t_read_attr_str(f, "v", &bad);
    CS_CHECK_STR(s, "vlen text");
    CS_CHECK(bad == 0);
    free(s);
    /* A compound whose member does not fit its size: no type. */
    const char *bn[1] = {"x"};
    size_t bo[1] = {8};
    hid_t bt[1] = {H5T_NATIVE_DOUBLE};
    CS_CHECK(cs_h5t_compound(8, 1, bn, bo, bt) < 0);
    /* A row wider than a chunk's bytes: one row a chunk. */
    static unsigned char wide[1 << 17];
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof wide);
    hsize_t ad[1] = {sizeof wide};
    hid_t at = H5Tarray_create2(H5T_NATIVE_UCHAR, 1, ad);
    H5Tinsert(t, "b", 0, at);
    wide[7] = 42;
    CS_CHECK(cs_h5t_write_table(f, "wide", "wide", t, sizeof wide, 1, wide) == 0);
    hid_t ds = H5Dopen2(f, "wide", H5P_DEFAULT), dcpl = H5Dget_create_plist(ds);
    hsize_t ch[1] = {0};
    CS_CHECK(H5Pget_chunk(dcpl, 1, ch) == 1 && ch[0] == 1);
    H5Pclose(dcpl);
    H5Dclose(ds);
    H5Tclose(at);
    H5Tclose(t);
    H5Fclose(f);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/cs_sweep_verify_%d", cs_test_tmpdir(), (int)getpid());
    mkdir(dir, 0755);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the refused files' HDF5 error stacks */
    /* No room for the message: the code alone. */
    row_t r0[4];
    good_rows(r0);
    hid_t f0 = make(&C(3, 2, 2, 1, 0), r0, 4, RUNS_OK, 0);
    CS_CHECK_EQ_U64(f0 >= 0 ? cs_sweep_file_verify(f0, "S", NULL, 0) : -1, CS_ECORRUPT);
    if (f0 >= 0) H5Fclose(f0);
    test_root();
    test_runs();
    test_attrs();
    return cs_test_finish("sweep_verify", dir);
}
