/*
 * cs_check.h -- regression checks of a run's metrics against a committed
 * baseline, and blessing a baseline (analysis/README.md "Regression
 * baselines").  cli/cs_cmd_check.c parses `cowsim check`.  Both return an
 * exit status of cs_exit.h: 0 pass, 1 a regression, 2 bad input, 3 I/O.
 */
#ifndef CS_CHECK_H
#define CS_CHECK_H

/* Tolerance (relative) of a newly blessed metric without --abs/--rel. */
#define CS_CHECK_DEFAULT_REL 0.05

/* --baseline: print one line per checked metric of run (greedy: the greedy
 * reference run, or NULL to look beside it) against the baseline file. */
int cs_check_baseline(const char *bpath, const char *run, const char *greedy);

/* --bless: write or refresh the baseline at bpath from the run, with the
 * default tolerances abs_tol / rel_tol (< 0: keep or omit), the metrics of
 * list (comma-separated, NULL: keep the baseline's) and a comment (NULL:
 * keep); print what changed once the file is written. */
int cs_check_bless(const char *bpath, const char *run, const char *greedy, double abs_tol, double rel_tol,
                   const char *list, const char *comment);

#endif /* CS_CHECK_H */
