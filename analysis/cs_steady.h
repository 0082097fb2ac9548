/*
 * cs_steady.h -- steady-state figures of one long run (analysis/README.md
 * "Steady state"): per-block series read from a run file, the warm-up cut
 * off by MSER-5 (or a stated burn-in, or nothing), and the mean of every
 * series over the remaining blocks with its 95 % batch-means interval
 * (cs_stats.h).
 *
 * Ownership: cs_steady_compute fills a caller-owned cs_steady_t; nothing to
 * free.
 */
#ifndef CS_STEADY_H
#define CS_STEADY_H

#include <stddef.h>
#include <stdint.h>

/* The per-block series: X(name, doc). */
#define CS_STEADY_SERIES(X)                                                          \
    X(basefee, "lane basefee charged at the block (B.basefee_lane)")                 \
    X(utilisation, "lane utilisation of the block (B.utilisation)")                  \
    X(fires, "timers fired at the block (B.fired)")                                  \
    X(backlog, "pending timers after the block (B.pending)")                         \
    X(paid, "amount paid at the block: B.burn + B.tips + B.payments")                \
    X(welfare, "value of the block's fires: sum of F.value at that height (fires = all)")

enum {
#define CS__STEADY_ENUM(name, doc) CS_SS_##name,
    CS_STEADY_SERIES(CS__STEADY_ENUM)
#undef CS__STEADY_ENUM
    CS_SS__COUNT
};

/* How the warm-up is removed. */
typedef enum cs_steady_mode {
    CS_STEADY_MSER5 = 0,  /* MSER-5 on every series, the largest cut wins (default) */
    CS_STEADY_BURNIN = 1, /* a stated number of blocks (--burn-in N) */
    CS_STEADY_WHOLE = 2   /* nothing removed (--no-warmup) */
} cs_steady_mode;

/* Flags of cs_steady_compute. */
#define CS_STEADY_F_FIRES_ALL 1 /* /fires holds every fire (output.fires = all): the welfare series */
#define CS_STEADY_F_LANE_FEE 2  /* the mechanism charges a lane basefee (CS_MF_FEES): the basefee series */

/* Batches of the batch-means interval (Schmeiser 1982: 10 to 30). */
#define CS_STEADY_BATCHES 20

typedef struct cs_steady {
    int mode;                  /* cs_steady_mode used */
    uint64_t blocks;           /* rows of /blocks */
    uint64_t cut;              /* blocks removed from the start */
    int cut_by;                /* CS_SS_* whose MSER-5 point is the cut (MSER5 mode), else -1 */
    int at_limit;              /* 1 if that point is MSER-5's largest, half the run: the run may be
                                  too short to reach a steady state */
    uint64_t mser_cut[CS_SS__COUNT]; /* each series' own MSER-5 point (MSER5 mode; 0 otherwise) */
    int present[CS_SS__COUNT]; /* 1 if the series exists (welfare: every fire; basefee: a lane fee) */
    uint64_t used;             /* blocks the means cover: the last CS_STEADY_BATCHES * floor((blocks - cut)
                                  / CS_STEADY_BATCHES), or all blocks - cut when fewer than CS_STEADY_BATCHES */
    double mean[CS_SS__COUNT]; /* mean over the `used` blocks */
    double lo[CS_SS__COUNT];   /* 95 % batch-means interval, NaN with fewer than */
    double hi[CS_SS__COUNT];   /*   CS_STEADY_BATCHES blocks after the cut */
} cs_steady_t;

/* Name of series i ("basefee", ...), NULL out of range. */
const char *cs_steady_name(int i);

/*
 * Compute the steady-state figures of run file `path`.  flags: the
 * CS_STEADY_F_* that hold for the run (without them the welfare or basefee
 * series is absent: NaN).  burn_in: the blocks to drop in CS_STEADY_BURNIN mode (must
 * be below the run's blocks).  Returns 0, or a cs_err code with a message
 * in err: CS_EIO / CS_EPARSE from the reader, CS_EINVAL for a burn-in not
 * below the run's blocks, CS_ENOMEM.
 */
int cs_steady_compute(const char *path, int flags, int mode, uint64_t burn_in, cs_steady_t *out, char *err,
                      size_t errcap);

struct cs_metrics;
/* The CS_STEADY_F_* flags of the run whose metrics are m (its fires mode
 * and its mechanism's CS_MF_FEES). */
int cs_steady_flags(const struct cs_metrics *m);

/* Command-line options of compare and report: if argv[*i] is --no-warmup,
 * or --burn-in N with N a decimal block count, and no such option came
 * before (*mode still CS_STEADY_MSER5), set *mode (and *burn_in), advance
 * *i past the option's argument and return 1; 0 otherwise (the caller
 * then treats argv[*i] as unexpected). */
int cs_steady_arg(int argc, char **argv, int *i, int *mode, uint64_t *burn_in);

#endif /* CS_STEADY_H */
