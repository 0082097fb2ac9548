/*
 * test_h5_rows.c -- rows filled in place in the run file writer's chunk
 * buffer (cs_h5_row_next / cs_h5_row_commit, issue 26) against rows
 * appended by copy: a file whose /fires and /timers rows come by both
 * routes, interleaved across chunk boundaries (64-row chunks), with a
 * flush in the middle of a chunk, reads back row for row as generated
 * here; room counts down to 1 at each chunk's last row; /blocks (re-encoded
 * on write) and /fires under a sample or "off" take no rows in place, and
 * fires_seen counts in-place fires.  Compression on the caller's thread
 * and on the helper thread.  Small: ~300 rows a dataset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_error.h"
#include "cs_h5.h"
#include "cs_test.h"

static char dir[] = "/tmp/cs_h5_rows_XXXXXX";

/* splitmix64 of x: the test's own values, independent of the writer. */
static uint64_t mix(uint64_t x)
{
    uint64_t z = x + 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void gen_fire(uint64_t i, cs_h5_fire_t *f)
{
    memset(f, 0, sizeof *f);
    f->height = 1000 + i;
    f->timer_id = mix(i);
    f->actor = (uint32_t)(mix(i + 7) % 2385);
    f->agent = (uint32_t)i;
    f->delay = (uint32_t)(i % 13);
    f->due_height = 997 + i;
    f->cycles = 21000 - i;
    f->gas_limit = 21000;
    f->paid = cs_h5_money((cs_u128)mix(i + 3) << 20 | 0x2385);
    f->burn = cs_h5_money((cs_u128)i * 1000003u);
    f->value = 2.385 * (double)i;
    f->weight_ppm = 1000000u - (uint32_t)i;
    f->deferrals = (uint32_t)(i / 7);
}

static void gen_timer(uint64_t i, cs_h5_timer_t *t)
{
    memset(t, 0, sizeof *t);
    t->timer_id = mix(i ^ 0x5555);
    t->actor = (uint32_t)i;
    t->sched_height = 500 + i;
    t->due_height = 505 + i;
    t->end_height = 510 + i;
    t->deferrals = (uint32_t)(i % 5);
    t->fires = 1;
    t->gas_limit = 50000;
    t->value = 1.5e9 + (double)i;
}

static void gen(cs_h5_ds ds, uint64_t i, void *row)
{
    if (ds == CS_H5_FIRES) gen_fire(i, row);
    else gen_timer(i, row);
}

/* Rows [0, n) of ds: runs of 1..11 rows alternately appended by copy and
 * filled in place; a flush after row 100.  Counts room mistakes. */
static int write_mixed(cs_h5_t *h, cs_h5_ds ds, uint64_t n)
{
    size_t es = cs_h5_ds_row_size(ds);
    unsigned char buf[11 * 512];
    int bad = 0, in_place = 0;
    size_t run = 1;
    for (uint64_t i = 0; i < n;) {
        size_t k = run < n - i ? run : (size_t)(n - i);
        if (in_place) {
            for (size_t j = 0; j < k; j++) {
                size_t room = 0;
                void *p = cs_h5_row_next(h, ds, &room);
                if (!p) return -1000;
                /* 64-row chunks: rows left in this one, this row included */
                bad += room != 64 - (i + j) % 64;
                gen(ds, i + j, p);
                if (cs_h5_row_commit(h, ds) != CS_OK) return -1000;
            }
        } else {
            for (size_t j = 0; j < k; j++) gen(ds, i + j, buf + j * es);
            if (cs_h5_append(h, ds, buf, k) != CS_OK) return -1000;
        }
        if (i < 100 && i + k >= 100 && cs_h5_flush(h) != CS_OK) return -1000;
        i += k;
        in_place = !in_place;
        run = run % 11 + 1;
    }
    return bad;
}

static void check_file(const char *path, cs_h5_ds ds, uint64_t n)
{
    int err = 0;
    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    CS_CHECK(r != NULL);
    if (!r) return;
    void *rows = NULL;
    size_t got = 0;
    CS_CHECK(cs_h5_read_all(r, ds, &rows, &got) == CS_OK);
    CS_CHECK_EQ_U64(got, n);
    size_t es = cs_h5_ds_row_size(ds), bad = 0;
    unsigned char want[512];
    for (size_t i = 0; i < got && i < n; i++) {
        gen(ds, i, want);
        bad += memcmp((unsigned char *)rows + i * es, want, es) != 0;
    }
    CS_CHECK_EQ_U64(bad, 0);
    uint64_t seen = 0;
    if (ds == CS_H5_FIRES) {
        CS_CHECK(cs_h5_read_attr_u64(r, "fires_seen", &seen) == CS_OK);
        CS_CHECK_EQ_U64(seen, n);
    }
    free(rows);
    cs_h5_close_read(r);
}

static cs_h5_t *open_new(const char *path, int thread)
{
    cs_h5_meta_t m;
    memset(&m, 0, sizeof m);
    m.cowsim_version = "0.1.0-test";
    m.git_commit = "abc123";
    m.scenario_json = "{}";
    m.seed = 2385;
    m.mechanism = "eip1559";
    m.sync_compress = !thread;
    m.blocks_hint = 4; /* 64-row chunks */
    int err = 0;
    unlink(path);
    return cs_h5_create(path, &m, &err);
}

static void test_mixed(int thread)
{
    char path[256];
    snprintf(path, sizeof path, "%s/mixed%d.h5", dir, thread);
    cs_h5_t *h = open_new(path, thread);
    CS_CHECK(h != NULL);
    if (!h) return;
    CS_CHECK(cs_h5_set_fires_mode(h, CS_H5_FIRES_ALL, 0) == CS_OK);
    CS_CHECK_EQ_U64((uint64_t)write_mixed(h, CS_H5_FIRES, 301), 0);
    CS_CHECK_EQ_U64((uint64_t)write_mixed(h, CS_H5_TIMERS, 257), 0);
    CS_CHECK_EQ_U64(cs_h5_rows(h, CS_H5_FIRES), 301);
    size_t room = 0;
    CS_CHECK(cs_h5_row_next(h, CS_H5_BLOCKS, &room) == NULL); /* re-encoded on write */
    CS_CHECK(cs_h5_close(h, 1) == CS_OK);
    check_file(path, CS_H5_FIRES, 301);
    check_file(path, CS_H5_TIMERS, 257);
    unlink(path);
}

/* Sampled or "off" /fires are filtered by cs_h5_append: none in place;
 * a sample of 1 keeps every fire, so they go in place. */
static void test_modes(void)
{
    static const struct {
        cs_h5_fires_mode mode;
        uint64_t every;
        int direct;
    } cases[] = {{CS_H5_FIRES_OFF, 0, 0}, {CS_H5_FIRES_SAMPLE, 3, 0}, {CS_H5_FIRES_SAMPLE, 1, 1}};
    char path[256];
    snprintf(path, sizeof path, "%s/modes.h5", dir);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cs_h5_t *h = open_new(path, 0);
        CS_CHECK(h != NULL);
        if (!h) return;
        CS_CHECK(cs_h5_set_fires_mode(h, cases[c].mode, cases[c].every) == CS_OK);
        size_t room = 0;
        CS_CHECK_EQ_U64(cs_h5_row_next(h, CS_H5_FIRES, &room) != NULL, (uint64_t)cases[c].direct);
        CS_CHECK(cs_h5_row_next(h, CS_H5_TIMERS, &room) != NULL);
        CS_CHECK_EQ_U64(room, 64);
        CS_CHECK(cs_h5_close(h, 1) == CS_OK);
    }
    unlink(path);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_mixed(0);
    test_mixed(1);
    test_modes();
    rmdir(dir);
    return cs_test_done("test_h5_rows");
}
