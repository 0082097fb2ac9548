/*
 * cs_harm.h -- harm to honest actors (analysis/README.md "Harm to honest
 * actors", DESIGN-NOTES N44): a run with its attackers against the same
 * scenario, seed and mechanism run with the agents of role attacker removed
 * (`cowsim run --harm` writes both).  The honest actors keep their indices,
 * streams and addresses in both runs, so their arrivals are the same and
 * every difference is the attackers' doing, paired actor by actor.
 */
#ifndef CS_HARM_H
#define CS_HARM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cs_stats.h"

/* One mechanism and seed.  Arrays [2]: [0] with the attackers, [1] without. */
typedef struct cs_harm {
    char mechanism[32];     /* root mechanism of both files */
    uint64_t seed;          /* root seed of both files */
    uint32_t honest;        /* honest actors (role honest) */
    uint32_t paired;        /* honest actors with a fire in both runs */
    uint64_t fires[2];      /* fires of honest actors */
    double delay_mean[2];   /* mean delay over honest fires (blocks) */
    double delay_p99[2];    /* 0.99 quantile of honest fire delays (GSL) */
    double pay_per_fire[2]; /* sum paid / fires, honest fires (base units) */
    double welfare[2];      /* sum of honest fire values */
    double d_delay;         /* paired: mean over paired actors of their mean-delay change */
    double d_delay_lo, d_delay_hi; /* 95 % Student-t interval of d_delay over actors */
    double d_pay;           /* paired: mean over paired actors of their paid-per-fire change */
    double d_pay_lo, d_pay_hi;     /* 95 % Student-t interval of d_pay */
} cs_harm_t;

/*
 * Compare the run `with` (attackers present) and `without` (written with
 * attackers removed: root attribute attackers_removed = 1), which must share
 * mechanism, seed and scenario, both with every fire (`output.fires = all`).
 * The honest actors come from the scenario stored in `with`.  Returns CS_OK,
 * CS_EIO (a file cannot be read), CS_EPARSE (not a matching pair; message in
 * err) or CS_ENOMEM.
 */
int cs_harm_compute(const char *with, const char *without, cs_harm_t *out, char *err, size_t cap);

/* The text table of n results (one row per mechanism and seed). */
void cs_harm_print(FILE *f, const cs_harm_t *h, size_t n);

/* The figures summarised across seeds, in cs_harm_t order, and the three
 * forms of each: with the attackers, without them, and the change
 * (with - without on the same seed: a paired difference). */
enum { CS_HARM_DELAY_MEAN, CS_HARM_DELAY_P99, CS_HARM_PAY_PER_FIRE, CS_HARM_WELFARE, CS_HARM_NMET };
enum { CS_HARM_WITH, CS_HARM_WITHOUT, CS_HARM_CHANGE, CS_HARM_NFORM };
extern const char *const cs_harm_metric_name[CS_HARM_NMET]; /* "delay_mean", ... */
extern const char *const cs_harm_form_name[CS_HARM_NFORM];  /* "with", "without", "change" */

/* One mechanism's harm across its seeds (the rows of cs_harm_t with that
 * mechanism): for each figure and form the mean over the seeds with its
 * 95 % Student-t interval and, from CS_STAT_BOOT_MIN_N seeds on, its BCa
 * bootstrap interval (CS_STAT_BOOT_B resamples, bootstrap seed 0, as
 * `compare RUNDIR`); NaN where undefined.  The change is paired by seed. */
typedef struct cs_harm_sum {
    char mechanism[32];                            /* mechanism */
    size_t seeds;                                  /* its rows (seeds) */
    cs_stat_ci_t ci[CS_HARM_NMET][CS_HARM_NFORM];  /* mean, t and BCa intervals */
} cs_harm_sum_t;

/*
 * Summarise the n rows h by mechanism (in order of first appearance) into
 * *out (malloc'd, *nout entries; the caller frees it).  Two rows of one
 * mechanism must have different seeds.  CS_OK, CS_EPARSE (a mechanism and
 * seed given twice; message in err) or CS_ENOMEM.
 */
int cs_harm_summarize(const cs_harm_t *h, size_t n, cs_harm_sum_t **out, size_t *nout, char *err, size_t cap);

/* The text table of the n summaries; nothing when no mechanism has two
 * seeds or more (one seed has no interval across seeds). */
void cs_harm_print_summary(FILE *f, const cs_harm_sum_t *s, size_t n);

/* Write the n results as the table /harm of a new HDF5 file at path (one
 * row per mechanism and seed, columns named as the struct fields with
 * _with / _without suffixes) and the ns summaries as the table
 * /harm_summary (one row per mechanism, figure and form: mechanism, seeds,
 * metric, form, n, mean, t_lo, t_hi, bca_lo, bca_hi).  The file is written
 * as <path>.tmp and published by cs_publish_commit (fsync, rename, fsync of
 * the directory), so path holds the previous file or the new one whole; a
 * <path>.tmp left by a killed writer is replaced with a note on stderr.
 * CS_OK, CS_ENOMEM or CS_EIO (message in err). */
int cs_harm_write(const char *path, const cs_harm_t *h, size_t n, const cs_harm_sum_t *s, size_t ns, char *err,
                  size_t cap);

/* The numeric columns of a /harm row after mechanism and seed (honest,
 * paired, fires_with, ..., d_pay_hi), as doubles, in the table's order:
 * names[k] and v[k] for k < the count returned (CS_HARM_NFIELD). */
#define CS_HARM_NFIELD 18
size_t cs_harm_fields(const cs_harm_t *x, const char *names[CS_HARM_NFIELD], double v[CS_HARM_NFIELD]);

/* `compare --harm`: the harm of each run file paths[i] against its
 * cs_harm_pair_path file, into *out (malloc'd, n rows; the caller frees
 * it).  CS_OK, or the first failure's cs_harm_compute code with its
 * message in err. */
int cs_harm_load(char *const *paths, size_t n, cs_harm_t **out, char *err, size_t cap);

/* The file of the run without attackers that `run --harm` writes for
 * run_path ("<dir>/<mechanism>.noattack.h5"), into buf; NULL if it does not
 * fit. */
const char *cs_harm_pair_path(const char *run_path, char *buf, size_t cap);

#endif /* CS_HARM_H */
