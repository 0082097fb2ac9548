/*
 * cs_h5_table.h -- the HDF5 files cowsim writes besides run files
 * (DIR/sweep.h5, DIR/harm.h5) prove their own integrity as run files do
 * (issue 25, DESIGN-NOTES N68):
 *
 *   - the file is written in the HDF5 1.8 format (superblock v2, object
 *     headers v2: both checksummed, so damaged attributes are refused);
 *   - every table is a chunked dataset with HDF5's Fletcher-32 filter;
 *   - string attributes are fixed-length, kept in the (checksummed) object
 *     header rather than in the global heap, which carries no checksum.
 *
 * cs_sweep_file_verify cross-checks a sweep summary on read (sweep
 * --resume, report); files of older cowsim versions, without checksums and
 * with variable-length strings, still read and are cross-checked.
 */
#ifndef CS_H5_TABLE_H
#define CS_H5_TABLE_H

#include <hdf5.h>
#include <stddef.h>

/* H5Fcreate(path, H5F_ACC_TRUNC) in the 1.8 format; < 0 on failure. */
hid_t cs_h5t_create(const char *path);

/* A scalar UTF-8 fixed-length string attribute name = s on loc; 0 or -1. */
int cs_h5t_attr_str(hid_t loc, const char *name, const char *s);

/* A scalar string attribute, fixed-length or variable-length (older
 * files), as a malloc'ed string; NULL when absent or unreadable (*bad set
 * to 1 when present and unreadable, 2 when out of memory; bad may be
 * NULL). */
char *cs_h5t_read_attr_str(hid_t loc, const char *name, int *bad);

/* Dataset name of nrows rows of compound type (rowsz bytes each) from
 * rows, chunked with the Fletcher-32 filter, with the PyTables/H5TB
 * attributes CLASS "TABLE", VERSION "3.0" and TITLE title.  0 or -1. */
int cs_h5t_write_table(hid_t loc, const char *name, const char *title, hid_t type, size_t rowsz, size_t nrows,
                       const void *rows);

/* A compound type of rowsz bytes with members names[i] of types[i] at
 * offs[i] (i < n); < 0 on failure.  Close with H5Tclose. */
hid_t cs_h5t_compound(size_t rowsz, size_t n, const char *const *names, const size_t *offs, const hid_t *types);

/*
 * Cross-check an open sweep summary (DIR/sweep.h5) at path: its root
 * counts read and agree (n_runs = n_points x n_seeds, runs_done <= n_runs,
 * complete in {0, 1} and complete => runs_done = n_runs), every byte of
 * /runs reads (Fletcher-32 where the file has it), and /runs holds
 * runs_done groups of one row per mechanism, each group one run: equal
 * run_id, point and seed, run_id "r<r>" with r increasing, r < n_runs,
 * point = r / n_seeds < n_points, the same mechanisms in the same order as
 * the first group.  Returns 0, or CS_ECORRUPT with "'<path>' is corrupt:
 * <what>" in err, or CS_ENOMEM; or, first of all, CS_EPARSE with "<path>:
 * /runs: column i lies outside the n-byte row" for a row type libhdf5
 * cannot be trusted to convert (cs_h5_row_type_ok: exit 2, as for run
 * files).
 */
int cs_sweep_file_verify(hid_t fid, const char *path, char *err, size_t cap);

#endif /* CS_H5_TABLE_H */
