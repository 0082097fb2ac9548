/*
 * cs_seeds.h -- the summary of a multi-seed `cowsim run` (scenario field
 * "seeds" or run --seeds N): every mechanism's headline metrics as a mean
 * with its 95 % Student-t interval across seeds, and paired differences
 * against the first mechanism on common random numbers (analysis/README.md
 * "Multi-seed summary").
 *
 * Ownership: the caller owns every argument; nothing is kept.
 */
#ifndef CS_SEEDS_H
#define CS_SEEDS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cs_metrics;

/* The run file of mechanism mech for seed s under dir: DIR/seed-<s>/<mech>.h5. */
void cs_seeds_path(char *buf, size_t cap, const char *dir, uint64_t seed, const char *mech);

/*
 * Read the ns x nm run files cs_seeds_path(dir, seeds[i], mechs[m]),
 * compute their metrics (cs_seeds_load_list: cs_metrics_compute, with the
 * greedy.h5 of the same seed directory when there is one) and print the
 * table on out.  Returns 0,
 * or a cs_err code with a message in err (a file that cannot be read).
 */
int cs_seeds_table(const char *name, uint64_t blocks, const char *dir, const uint64_t *seeds, size_t ns,
                   const char *const *mechs, size_t nm, FILE *out, char *err, size_t errcap);

/* The run files of a multi-seed run directory, with their metrics. */
typedef struct cs_seeds_set {
    uint64_t *seeds;     /* ns seeds, ascending */
    size_t ns;           /* seed directories DIR/seed-<s> */
    char **mechs;        /* nm mechanisms: the order of the scenario's "mechanism" list, others after
                            in name order */
    size_t nm;           /* mechanisms (files <mech>.h5 of the first seed directory, not the
                            <mech>.noattack.h5 of run --harm) */
    struct cs_metrics *mt; /* nm * ns metrics: mt[m * ns + i] is mechanism m, seed i */
    char scenario[128];  /* the scenario's name (root scenario_json) */
} cs_seeds_set_t;

/* 1 if path is a directory holding at least one seed-<decimal> directory
 * (the layout of a multi-seed `cowsim run`), 0 otherwise. */
int cs_seeds_is_dir(const char *path);

/*
 * Scan multi-seed run directory dir and compute the metrics of every
 * DIR/seed-<s>/<mech>.h5 (as cs_seeds_table does).  Every seed directory
 * must hold every mechanism of the first one.  Returns 0 (free s with
 * cs_seeds_free), or a cs_err code with a message in err naming the path
 * (s is then empty): CS_EIO for a missing or unreadable file, CS_EPARSE
 * for a file that is not a run file, CS_ENOMEM.
 */
int cs_seeds_load(const char *dir, cs_seeds_set_t *s, char *err, size_t errcap);
/*
 * The same for the given seeds and mechanisms only, in the order given
 * (a run's own files: its directory may hold others, such as the
 * <mech>.noattack.h5 of run --harm or the seeds of an earlier run).
 * Returns 0 (free s with cs_seeds_free) or a cs_err code as cs_seeds_load.
 */
int cs_seeds_load_list(const char *dir, const uint64_t *seeds, size_t ns, const char *const *mechs, size_t nm,
                       cs_seeds_set_t *s, char *err, size_t errcap);
void cs_seeds_free(cs_seeds_set_t *s);

#endif /* CS_SEEDS_H */
