/*
 * cs_report.h -- `cowsim report`: report.md and gnuplot plots from run
 * files, multi-seed run directories and sweep summaries (analysis/cs_report*.c;
 * the command line is cli/cs_cmd_report.c).
 */
#ifndef CS_REPORT_H
#define CS_REPORT_H

#include <stddef.h>
#include <stdint.h>

/* What cs_report_write is asked for: the options of `cowsim report`. */
typedef struct cs_report_opts {
    const char *outdir; /* -o DIR; NULL: a run directory given first, else the first input's directory */
    const char *ref;    /* --ref MECHANISM of the paired differences; NULL: each sweep's first */
    const char *point;  /* --point P (a point index or param=value[,...]) with a sweep; NULL: none */
    const char *series; /* --series a,b,... with point; NULL: every series */
    int ss_mode;        /* warm-up removal of the steady-state table, CS_STEADY_* (cs_steady.h) */
    uint64_t burn_in;   /* blocks cut with CS_STEADY_BURNIN */
} cs_report_opts_t;

/*
 * Write the report of inputs[0, nin) (nin >= 1; each a run file, a sweep
 * summary or a multi-seed run directory; strings not copied) into opt's
 * directory: data files, gnuplot scripts, PNGs and report.md.  Messages go
 * to stderr, the report's path to stdout.  Returns a cowsim exit code:
 * 0, CS_EXIT_USAGE or CS_EXIT_IO (cs_exit.h).
 */
int cs_report_write(const char *const *inputs, size_t nin, const cs_report_opts_t *opt);

#endif
