/*
 * cs_h5_verify.c -- the cross-checks a run file must pass when it is opened
 * for reading (issue 25: a damaged file is reported as corrupt, never read
 * as other numbers).  HDF5's Fletcher-32 filter catches damaged chunk
 * bytes of files that carry it; these checks also cover older files
 * without checksums and damage outside the chunks (extents, attributes):
 *
 *   - /blocks holds one row per block: root "blocks" rows;
 *   - /fires: with fires_mode "all" exactly fires_seen rows, with "off"
 *     none, with "sample" at most fires_seen rows whose timer_id is a
 *     multiple of fires_sample_every; in an engine's run (root "blocks"
 *     present) the sum of /actors.fires is fires_seen;
 *   - money: the sum of /blocks.burn + tips + payments equals the ledger's
 *     burned_exact + proposer_exact, and the sum of /actors.paid equals
 *     paid_exact (exact u128 sums);
 *   - every chunk of every dataset's extent is in the chunk index, with no
 *     filter skipped (the index has no checksum).
 *
 * Only a complete file (complete = 1) is checked: a checkpoint's root
 * totals are written at the close.  An attribute that is absent (a file of
 * an older cowsim) skips the checks that need it.
 */
#include "cs_h5_int.h"

#include <stdlib.h>
#include <string.h>

/* Rows read per piece. */
#define CS__H5_V_PIECE 4096

/* Read an exact decimal root attribute; 1 read, 0 absent, -1 unreadable,
 * -2 out of memory (not the file's fault). */
static int cs__h5_v_exact(cs_h5_reader_t *r, const char *name, cs_u128 *v)
{
    if (H5Aexists(r->file, name) <= 0) return 0;
    char *s = NULL;
    int rc = cs_h5_read_attr_str(r, name, &s);
    int ok = rc == CS_OK && s && cs_u128_parse(s, v) == 0;
    free(s);
    return ok ? 1 : rc == CS_ENOMEM ? -2 : -1;
}

/* Read an integer root attribute; 1 read, 0 absent, -1 unreadable. */
static int cs__h5_v_u64(cs_h5_reader_t *r, const char *name, uint64_t *v)
{
    if (H5Aexists(r->file, name) <= 0) return 0;
    return cs_h5_read_attr_u64(r, name, v) == CS_OK ? 1 : -1;
}

/* Exact sum into *acc; 0, or -1 when it passes 2^128 - 1. */
static int cs__h5_v_add(cs_u128 *acc, cs_h5_money_t m)
{
    return cs_u128_add(*acc, cs_h5_money_u128(m), acc);
}

/*
 * Every chunk of every dataset's extent is stored, with no filter skipped.
 * The chunk index of a 1.8-format file (a version 1 B-tree) carries no
 * checksum: a flipped byte in a chunk's key moves the chunk away from its
 * offset, and HDF5 then reads that chunk's rows as the fill value (zeros),
 * or a flipped filter mask skips the shuffle or deflate, neither with an
 * error.  The writer stores every chunk it has rows for, each with all the
 * filters.  Returns the failed check, or NULL; *rc set when a read fails.
 */
static const char *cs__h5_v_chunks(cs_h5_reader_t *r, int *rc)
{
    for (int ds = 0; ds < CS_H5_NDS && *rc == CS_OK; ds++) {
        uint64_t n = 0;
        *rc = cs_h5_nrows(r, (cs_h5_ds)ds, &n);
        if (*rc != CS_OK || n == 0) continue;
        hid_t dcpl = H5Dget_create_plist(r->dset[ds]);
        hsize_t chunk = 0;
        int ok = dcpl >= 0 && H5Pget_chunk(dcpl, 1, &chunk) == 1 && chunk > 0;
        if (dcpl >= 0) H5Pclose(dcpl);
        if (!ok) return "a dataset has no chunk size";
        for (hsize_t at = 0; at < n; at += chunk) {
            unsigned mask = 0;
            haddr_t addr = HADDR_UNDEF;
            hsize_t size = 0;
            if (H5Dget_chunk_info_by_coord(r->dset[ds], &at, &mask, &addr, &size) < 0 || addr == HADDR_UNDEF ||
                size == 0 || mask != 0)
                return "a chunk is missing from its dataset's chunk index, or skips a filter";
        }
    }
    return NULL;
}

/* See the file comment.  CS_OK, CS_ECORRUPT (message names the check),
 * CS_ENOMEM. */
int cs__h5_verify(cs_h5_reader_t *r, const char *path)
{
    if (r->info.complete != 1) return CS_OK;
    uint64_t blocks = 0, seen = 0, every = 1, nb = 0, nf = 0, na = 0;
    cs_u128 burned = 0, proposer = 0, paid = 0;
    int has_blocks = cs__h5_v_u64(r, "blocks", &blocks), has_seen = cs__h5_v_u64(r, "fires_seen", &seen);
    int has_every = cs__h5_v_u64(r, "fires_sample_every", &every);
    int has_burned = cs__h5_v_exact(r, "burned_exact", &burned);
    int has_prop = cs__h5_v_exact(r, "proposer_exact", &proposer), has_paid = cs__h5_v_exact(r, "paid_exact", &paid);
    char *mode = NULL;
    int mrc = H5Aexists(r->file, "fires_mode") > 0 ? cs_h5_read_attr_str(r, "fires_mode", &mode) : CS_OK;
    if (mrc != CS_OK) {
        free(mode);
        mode = NULL;
        has_seen = mrc == CS_ENOMEM ? -2 : -1;
    }
    if (has_burned == -2 || has_prop == -2 || has_paid == -2 || has_seen == -2) {
        free(mode);
        return cs__h5_fail(CS_ENOMEM, "'%s': out of memory reading its root totals", path);
    }
    if (has_blocks < 0 || has_seen < 0 || has_every < 0 || has_burned < 0 || has_prop < 0 || has_paid < 0) {
        free(mode);
        return cs__h5_fail(CS_ECORRUPT, "'%s' is corrupt: a root total is unreadable", path);
    }
    int rc = cs_h5_nrows(r, CS_H5_BLOCKS, &nb);
    if (rc == CS_OK) rc = cs_h5_nrows(r, CS_H5_FIRES, &nf);
    if (rc == CS_OK) rc = cs_h5_nrows(r, CS_H5_ACTORS, &na);
    const char *bad = NULL;
    /* Root attributes carry no checksum of their own: the ones with a
     * fixed vocabulary must at least hold one of its words. */
    if (rc == CS_OK && mode && strcmp(mode, "all") != 0 && strcmp(mode, "sample") != 0 && strcmp(mode, "off") != 0)
        bad = "fires_mode is not all, sample or off";
    char *loop = NULL;
    if (rc == CS_OK && !bad && H5Aexists(r->file, "lambda_loop") > 0) {
        int lrc = cs_h5_read_attr_str(r, "lambda_loop", &loop);
        if (lrc == CS_ENOMEM) rc = cs__h5_fail(CS_ENOMEM, "'%s': out of memory reading lambda_loop", path);
        else if (lrc != CS_OK || !loop ||
                 (strcmp(loop, "off") != 0 && strcmp(loop, "share") != 0 && strcmp(loop, "invariant") != 0))
            bad = "lambda_loop is not off, share or invariant";
        free(loop);
    }
    /* The digest over every root attribute (cs_h5_attrs.c), where the
     * writer stored one. */
    if (rc == CS_OK && !bad && H5Aexists(r->file, CS__H5_ATTRS_DIGEST) > 0) {
        char *want = NULL, got[65];
        int drc = cs_h5_read_attr_str(r, CS__H5_ATTRS_DIGEST, &want);
        int hrc = drc == CS_OK ? cs__h5_attrs_digest(r->file, got) : drc;
        if (drc == CS_ENOMEM || hrc == CS_ENOMEM)
            rc = cs__h5_fail(CS_ENOMEM, "'%s': out of memory reading its root attributes", path);
        else if (hrc != CS_OK || !want || strcmp(want, got) != 0)
            bad = "its root attributes differ from their digest (attrs_digest)";
        free(want);
    }
    if (rc == CS_OK && !bad) bad = cs__h5_v_chunks(r, &rc);
    if (rc == CS_OK && !bad && has_blocks && nb != blocks) bad = "/blocks has not one row per block";
    if (rc == CS_OK && !bad && has_seen && mode) {
        if (strcmp(mode, "all") == 0 && nf != seen) bad = "/fires rows differ from fires_seen";
        else if (strcmp(mode, "off") == 0 && nf != 0) bad = "/fires has rows with fires_mode off";
        else if (nf > seen) bad = "/fires has more rows than fires_seen";
    }
    int sample = mode && strcmp(mode, "sample") == 0 && every > 1;
    free(mode);
    /* One pass over /blocks, /actors and (sampled) /fires. */
    cs_u128 money = 0, apaid = 0;
    uint64_t afires = 0;
    size_t cap = CS__H5_V_PIECE * sizeof(cs_h5_block_t);
    void *buf = rc == CS_OK && !bad ? malloc(cap) : NULL;
    if (rc == CS_OK && !bad && !buf) rc = cs__h5_fail(CS_ENOMEM, "verifying '%s'", path);
    int sums = has_burned && has_prop; /* (a file without the totals: only the counts) */
    for (uint64_t at = 0; buf && sums && rc == CS_OK && !bad && at < nb;) {
        size_t k = nb - at < CS__H5_V_PIECE ? (size_t)(nb - at) : CS__H5_V_PIECE;
        rc = cs_h5_read_rows(r, CS_H5_BLOCKS, at, k, buf);
        const cs_h5_block_t *b = buf;
        for (size_t i = 0; rc == CS_OK && i < k && !bad; i++) {
            if (cs__h5_v_add(&money, b[i].burn) || cs__h5_v_add(&money, b[i].tips) ||
                     cs__h5_v_add(&money, b[i].payments))
                bad = "/blocks money passes 2^128 - 1";
        }
        at += k;
    }
    for (uint64_t at = 0; buf && rc == CS_OK && !bad && at < na;) {
        size_t k = na - at < CS__H5_V_PIECE ? (size_t)(na - at) : CS__H5_V_PIECE;
        rc = cs_h5_read_rows(r, CS_H5_ACTORS, at, k, buf);
        const cs_h5_actor_t *a = buf;
        for (size_t i = 0; rc == CS_OK && i < k && !bad; i++) {
            if (has_paid && cs__h5_v_add(&apaid, a[i].paid)) bad = "/actors.paid passes 2^128 - 1";
            afires += a[i].fires;
        }
        at += k;
    }
    for (uint64_t at = 0; buf && sample && rc == CS_OK && !bad && at < nf;) {
        size_t k = nf - at < CS__H5_V_PIECE ? (size_t)(nf - at) : CS__H5_V_PIECE;
        rc = cs_h5_read_rows(r, CS_H5_FIRES, at, k, buf);
        const cs_h5_fire_t *f = buf;
        for (size_t i = 0; rc == CS_OK && i < k && !bad; i++)
            if (f[i].timer_id % every != 0) bad = "a sampled /fires row has an unsampled timer_id";
        at += k;
    }
    free(buf);
    if (rc == CS_OK && !bad) {
        cs_u128 root = burned + proposer;
        /* (the engine's run: root "blocks" is written with its totals) */
        if (has_seen && has_blocks && afires != seen) bad = "the sum of /actors.fires differs from fires_seen";
        else if (has_burned && has_prop && (root < burned || money != root))
            bad = "/blocks burn + tips + payments differ from burned_exact + proposer_exact";
        else if (has_paid && apaid != paid) bad = "the sum of /actors.paid differs from paid_exact";
    }
    if (rc == CS_ENOMEM) return rc;
    if (rc != CS_OK) return cs__h5_fail(CS_ECORRUPT, "'%s' is corrupt: %s", path, cs_h5_last_error());
    if (bad) return cs__h5_fail(CS_ECORRUPT, "'%s' is corrupt: %s", path, bad);
    return CS_OK;
}
