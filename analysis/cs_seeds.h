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

/* The run file of mechanism mech for seed s under dir: DIR/seed-<s>/<mech>.h5. */
void cs_seeds_path(char *buf, size_t cap, const char *dir, uint64_t seed, const char *mech);

/*
 * Read the ns x nm run files cs_seeds_path(dir, seeds[i], mechs[m]),
 * compute their metrics (cs_metrics_compute, with the oracle.h5 of the same
 * seed directory when there is one) and print the table on out.  Returns 0,
 * or a cs_err code with a message in err (a file that cannot be read).
 */
int cs_seeds_table(const char *name, uint64_t blocks, const char *dir, const uint64_t *seeds, size_t ns,
                   const char *const *mechs, size_t nm, FILE *out, char *err, size_t errcap);

#endif /* CS_SEEDS_H */
