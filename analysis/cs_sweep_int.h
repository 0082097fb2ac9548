/*
 * cs_sweep_int.h -- the sweep's representation, shared by the design
 * (analysis/cs_sweep.c) and its execution (cli/cs_cmd_sweep.c).  Not a
 * public interface: everything else uses cs_sweep.h.
 */
#ifndef CS_SWEEP_INT_H
#define CS_SWEEP_INT_H

#include <stddef.h>
#include <stdint.h>

#include "cs_mech.h"
#include "cs_sweep.h"

#define CS__SW_MECH_W 32              /* /runs mechanism column width (NUL padded) */

typedef struct cs__sparam {
    char *path;          /* scenario path in --set notation */
    char column[272];    /* /runs column name */
    int numeric;         /* 1: float64 column; 0: string column */
    int integer;         /* sobol: values are integers */
    double lo, hi;       /* sobol: range */
    size_t n_values;     /* grid: number of values */
    char **vtext;        /* grid: JSON text of each value */
    double *vnum;        /* grid: numeric value of each (NaN if not a number or boolean) */
    size_t stride;       /* grid: points between consecutive values of this path */
    size_t width;        /* string column: bytes including the NUL padding */
} cs__sparam_t;

struct cs_sweep {
    char *name;                  /* sweep name */
    char *text;                  /* the sweep JSON as given */
    char *base_text;             /* the base scenario JSON */
    char **fixed;                /* "PATH=VALUE" fixed overrides */
    size_t n_fixed;
    char *mechs[CS_MAX_MECHS];   /* mechanisms of every run */
    size_t n_mechs;
    uint64_t *seeds;             /* seeds, in order */
    size_t n_seeds;
    cs_sweep_design design;      /* single, grid or sobol */
    cs__sparam_t *par;           /* swept paths */
    size_t n_par;
    size_t n_points;             /* design points */
    double *sob;                 /* sobol: n_points x n_par values (scaled) */
};

/* The metric names, in CS_METRIC_MAP order (CS_M__COUNT of them): the
 * /runs metric columns, which a swept path's column may not shadow. */
extern const char *const cs__sweep_metric_names[];

/* cs_sweep_point_text without the range check: the --set text of path j
 * at point p into buf. */
const char *cs__sweep_point_text(const cs_sweep_t *sw, size_t p, size_t j, char *buf, size_t cap);

#endif /* CS_SWEEP_INT_H */
