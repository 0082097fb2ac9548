/*
 * cs_compare.h -- the tables of `cowsim compare` (analysis/README.md): the
 * metrics of several runs side by side with their steady state and, with
 * harm, the harm to honest actors; or a multi-seed run directory's means,
 * intervals and paired differences.  cli/cs_cmd_compare.c parses the
 * command line into a cs_compare_opts_t.
 */
#ifndef CS_COMPARE_H
#define CS_COMPARE_H

#include <stddef.h>
#include <stdint.h>

/* Output formats. */
enum { CS_COMPARE_TEXT = 0, CS_COMPARE_CSV = 1, CS_COMPARE_JSON = 2 };
/* cs_compare_runs: the arguments do not make a comparison (the caller
 * prints its usage and exits 2). */
#define CS_COMPARE_USAGE (-2)

typedef struct cs_compare_opts {
    int fmt;            /* CS_COMPARE_TEXT, _CSV or _JSON */
    const char *greedy; /* --greedy file, or NULL: a greedy.h5 beside each run */
    const char *ref;    /* --ref mechanism of a run directory, or NULL */
    int harm;           /* --harm */
    int ss_mode;        /* steady-state mode (cs_steady.h) */
    uint64_t burn_in;   /* --burn-in N */
    char **paths;       /* run files, or one multi-seed run directory */
    size_t n_paths;     /* >= 1 */
} cs_compare_opts_t;

/* Print the comparison on stdout (errors on stderr).  Returns an exit
 * status of cs_exit.h, or CS_COMPARE_USAGE. */
int cs_compare_runs(const cs_compare_opts_t *o);

#endif /* CS_COMPARE_H */
