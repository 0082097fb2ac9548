/*
 * cs_report_sweep.c -- the sweep summaries (sweep.h5, analysis/cs_sweep.h)
 * of `cowsim report`: loading /runs and its attributes, the plots of each
 * metric against each swept parameter, the paired-difference plots against
 * a reference mechanism, and the time series of one design point (--point).
 */
#include "cs_report_int.h"

#include "cs_exit.h"
#include "cs_error.h"
#include "cs_h5_table.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

/* ---- sweep summaries ----------------------------------------------------- */

/* Free what s owns. */
void cs__sweep_free(cs__sweep_t *s)
{
    for (size_t c = 0; s->col && c < s->ncols; c++) {
        free(s->col[c].name);
        free(s->col[c].num);
        if (s->col[c].str)
            for (size_t i = 0; i < s->nrows; i++) free(s->col[c].str[i]);
        free(s->col[c].str);
    }
    free(s->col);
    if (s->plabel)
        for (size_t p = 0; p < s->np; p++) free(s->plabel[p]);
    free(s->plabel);
    free(s->design);
    free(s->name);
    free(s->version);
    free(s->commit);
    free(s->base_name);
}

/* A root string attribute of file fid as a malloc'd string, or NULL if
 * absent or not a string; *oom set to 1 when it is NULL for want of
 * memory (never cleared). */
static char *cs__attr_str(hid_t fid, const char *name, int *oom)
{
    if (H5Aexists(fid, name) <= 0) return NULL;
    hid_t a = H5Aopen(fid, name, H5P_DEFAULT);
    if (a < 0) return NULL;
    hid_t t = H5Aget_type(a);
    char *out = NULL;
    if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
        if (H5Tis_variable_str(t) > 0) {
            char *v = NULL;
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, H5T_VARIABLE);
            H5Tset_cset(mt, H5Tget_cset(t)); /* HDF5 will not convert UTF-8 <-> ASCII */
            if (H5Aread(a, mt, &v) >= 0 && v) {
                if (!(out = cs__strdup(v))) *oom = 1;
                H5free_memory(v);
            }
            H5Tclose(mt);
        } else {
            size_t sz = H5Tget_size(t);
            if (!(out = calloc(sz + 1, 1))) *oom = 1;
            if (out && H5Aread(a, t, out) < 0) {
                free(out);
                out = NULL;
            }
        }
    }
    if (t >= 0) H5Tclose(t);
    H5Aclose(a);
    return out;
}

/* Read member `name` of compound dataset ds (n rows) as doubles into out.
 * Returns 0 or -1. */
static int cs__read_num_member(hid_t ds, const char *name, size_t n, double *out)
{
    hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(double));
    if (mt < 0) return -1;
    int rc = H5Tinsert(mt, name, 0, H5T_NATIVE_DOUBLE) < 0 ||
                     (n > 0 && H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
                 ? -1
                 : 0;
    H5Tclose(mt);
    return rc;
}

/* Read string member `name` (file type ft) of ds (n rows) into out[n]
 * (malloc'd strings).  Returns 0, -1, or -2 when out of memory. */
static int cs__read_str_member(hid_t ds, const char *name, hid_t ft, size_t n, char **out)
{
    if (n == 0) return 0;
    int rc = -1;
    if (H5Tis_variable_str(ft) > 0) {
        hid_t st = H5Tcopy(H5T_C_S1);
        H5Tset_size(st, H5T_VARIABLE);
        H5Tset_cset(st, H5Tget_cset(ft));
        hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(char *));
        char **v = calloc(n, sizeof *v);
        if (!v) rc = -2;
        if (v && mt >= 0 && H5Tinsert(mt, name, 0, st) >= 0 &&
            H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) {
            rc = 0;
            for (size_t i = 0; i < n; i++) {
                out[i] = cs__strdup(v[i] ? v[i] : "");
                if (!out[i]) rc = -2;
            }
            hid_t sp = H5Dget_space(ds);
#if H5_VERSION_GE(1, 12, 0)
            H5Treclaim(mt, sp, H5P_DEFAULT, v);
#else
            H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, v);
#endif
            H5Sclose(sp);
        }
        free(v);
        if (mt >= 0) H5Tclose(mt);
        H5Tclose(st);
    } else {
        size_t sz = H5Tget_size(ft);
        hid_t st = H5Tcopy(ft);
        hid_t mt = H5Tcreate(H5T_COMPOUND, sz);
        char *buf = calloc(n, sz);
        if (!buf) rc = -2;
        if (buf && mt >= 0 && H5Tinsert(mt, name, 0, st) >= 0 &&
            H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0) {
            rc = 0;
            for (size_t i = 0; i < n; i++) {
                out[i] = calloc(sz + 1, 1);
                if (!out[i]) {
                    rc = -2;
                    continue;
                }
                memcpy(out[i], buf + i * sz, sz);
            }
        }
        free(buf);
        if (mt >= 0) H5Tclose(mt);
        H5Tclose(st);
    }
    return rc;
}

/* The run-level metric index whose name is s, or -1. */
static int cs__metric_index(const char *s)
{
    for (int i = 0; i < CS_M__COUNT; i++)
        if (strcmp(cs__mnames[i], s) == 0) return i;
    return -1;
}

/*
 * Load the /runs table of sweep file s->path (already known to have one):
 * every column, numeric ones as doubles and string ones as strings.  The
 * swept parameters are the columns between `mechanism` and the first
 * run-level metric column (cs_sweep.h: run_id, point, seed, mechanism,
 * parameters, metrics).  Returns 0 or an exit code with a message.
 */
static int cs__sweep_load(cs__sweep_t *s, hid_t fid)
{
    int rc = 0, oom = 0;
    hid_t ds = H5Dopen2(fid, "runs", H5P_DEFAULT);
    hid_t ft = ds >= 0 ? H5Dget_type(ds) : H5I_INVALID_HID;
    hid_t sp = ds >= 0 ? H5Dget_space(ds) : H5I_INVALID_HID;
    if (ft < 0 || sp < 0 || H5Tget_class(ft) != H5T_COMPOUND || H5Sget_simple_extent_ndims(sp) != 1) {
        fprintf(stderr, "cowsim report: %s: /runs is not a one-dimensional compound table\n", s->path);
        rc = CS_EXIT_USAGE;
        goto out;
    }
    char why[128];
    if (!cs_h5_row_type_ok(ft, why, sizeof why)) {
        fprintf(stderr, "cowsim report: %s: /runs: %s\n", s->path, why);
        rc = CS_EXIT_USAGE;
        goto out;
    }
    hsize_t dim = 0;
    H5Sget_simple_extent_dims(sp, &dim, NULL);
    s->nrows = (size_t)dim;
    int nm = H5Tget_nmembers(ft);
    s->ncols = nm > 0 ? (size_t)nm : 0;
    s->col = calloc(s->ncols ? s->ncols : 1, sizeof *s->col);
    oom = !s->col;
    if (oom) {
        rc = CS_EXIT_IO;
        goto out;
    }
    s->c_point = s->c_seed = s->c_mech = -1;
    for (int m = 0; m < CS_M__COUNT; m++) s->metric_col[m] = -1;
    int first_metric = -1;
    for (size_t c = 0; c < s->ncols && rc == 0; c++) {
        cs__scol_t *col = &s->col[c];
        char *nm5 = H5Tget_member_name(ft, (unsigned)c);
        col->name = cs__strdup(nm5 ? nm5 : "");
        if (nm5) H5free_memory(nm5);
        H5T_class_t cl = H5Tget_member_class(ft, (unsigned)c);
        if (!col->name) {
            oom = 1;
            rc = CS_EXIT_IO;
            break;
        }
        if (cl == H5T_STRING) {
            hid_t mt = H5Tget_member_type(ft, (unsigned)c);
            col->is_str = 1;
            col->str = calloc(s->nrows ? s->nrows : 1, sizeof *col->str);
            int e = col->str ? cs__read_str_member(ds, col->name, mt, s->nrows, col->str) : -2;
            if (e) rc = CS_EXIT_IO;
            if (e == -2) oom = 1;
            H5Tclose(mt);
        } else if (cl == H5T_INTEGER || cl == H5T_FLOAT) {
            col->num = calloc(s->nrows ? s->nrows : 1, sizeof *col->num);
            oom = !col->num;
            if (oom || cs__read_num_member(ds, col->name, s->nrows, col->num) != 0) rc = CS_EXIT_IO;
        } else {
            continue; /* other member types are neither parameters nor metrics */
        }
        if (rc) {
            if (!oom) fprintf(stderr, "cowsim report: %s: cannot read /runs column %s\n", s->path, col->name);
            break;
        }
        if (strcmp(col->name, "point") == 0) s->c_point = (int)c;
        else if (strcmp(col->name, "seed") == 0) s->c_seed = (int)c;
        else if (strcmp(col->name, "mechanism") == 0 && col->is_str) s->c_mech = (int)c;
        int mi = cs__metric_index(col->name);
        if (mi >= 0 && !col->is_str && s->c_mech >= 0) {
            s->metric_col[mi] = (int)c;
            if (first_metric < 0) first_metric = (int)c;
        }
    }
    if (rc == 0 && (s->c_mech < 0 || first_metric < 0)) {
        fprintf(stderr, "cowsim report: %s: /runs lacks a mechanism column or metric columns\n", s->path);
        rc = CS_EXIT_USAGE;
    }
    if (rc == 0) {
        s->p0 = (size_t)s->c_mech + 1;
        s->np = (size_t)first_metric - s->p0;
    }
out:
    if (oom) fprintf(stderr, "cowsim report: %s: out of memory\n", s->path);
    if (sp >= 0) H5Sclose(sp);
    if (ft >= 0) H5Tclose(ft);
    if (ds >= 0) H5Dclose(ds);
    return rc;
}

/* Open sweep file s->path and load its attributes and /runs.  Returns 0 or
 * an exit code with a message. */
int cs__sweep_open(cs__sweep_t *s)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#if H5_VERSION_GE(1, 10, 7)
    H5Pset_file_locking(fapl, 0, 1);
#endif
    hid_t fid = H5Fopen(s->path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (fid < 0) {
        fprintf(stderr, "cowsim report: %s: cannot open as HDF5\n", s->path);
        return CS_EXIT_USAGE;
    }
    /* Checksums and cross-checks first: a damaged summary is corrupt (exit
     * 4), not a table with other numbers (cs_h5_table.h). */
    char verr[4800];
    int vr = cs_sweep_file_verify(fid, s->path, verr, sizeof verr);
    if (vr != CS_OK) {
        fprintf(stderr, "cowsim report: %s\n", verr);
        H5Fclose(fid);
        return cs_exit_of(vr);
    }
    /* An attribute that cannot be copied for want of memory (oom) must not
     * pass for an absent one, nor a name left NULL be printed later. */
    int oom = 0;
    s->name = cs__attr_str(fid, "name", &oom);
    if (!s->name) {
        const char *b = strrchr(s->path, '/');
        s->name = cs__strdup(b ? b + 1 : s->path);
    }
    s->version = cs__attr_str(fid, "cowsim_version", &oom);
    s->commit = cs__attr_str(fid, "git_commit", &oom);
    char *base = cs__attr_str(fid, "base_json", &oom);
    if (!base) base = cs__attr_str(fid, "scenario_json", &oom);
    cJSON *j = base ? cJSON_Parse(base) : NULL;
    /* Out of memory parsing well-formed JSON (cs__json_wellformed) must not
     * pass for a base scenario without a name or design paths. */
    if (base && !j && cs__json_wellformed(base)) oom = 1;
    const cJSON *nm = j ? cJSON_GetObjectItemCaseSensitive(j, "name") : NULL;
    const cJSON *bl = j ? cJSON_GetObjectItemCaseSensitive(j, "blocks") : NULL;
    s->base_name = cs__strdup(cJSON_IsString(nm) ? nm->valuestring : "");
    s->blocks = cJSON_IsNumber(bl) && bl->valuedouble > 0 ? (uint64_t)bl->valuedouble : 0;
    cJSON_Delete(j);
    free(base);
    if (!s->version) s->version = cs__strdup("");
    if (!s->commit) s->commit = cs__strdup("");
    s->design = cs__attr_str(fid, "design", &oom);
    if (!s->design) s->design = cs__strdup("");
    if (!s->name || !s->version || !s->commit || !s->base_name || !s->design) oom = 1;
    s->complete = 1;
    if (H5Aexists(fid, "complete") > 0) {
        hid_t a = H5Aopen(fid, "complete", H5P_DEFAULT);
        int v = 1;
        if (a >= 0 && H5Aread(a, H5T_NATIVE_INT, &v) >= 0) s->complete = v;
        if (a >= 0) H5Aclose(a);
    }
    int rc = cs__sweep_load(s, fid);
    if (rc == 0 && s->metric_col[CS_M_blocks] >= 0) {
        /* What ran (fixed overrides may change the base's "blocks"). */
        double only;
        int varies = cs__varies(s, s->metric_col[CS_M_blocks], &only);
        s->blocks = !varies && only > 0 ? (uint64_t)only : 0;
    }
    /* Display names of the parameters: the design's scenario paths, in the
     * order of the design object, which is the column order (cs_sweep.h). */
    char *sj = rc == 0 ? cs__attr_str(fid, "sweep_json", &oom) : NULL;
    cJSON *j2 = sj ? cJSON_Parse(sj) : NULL;
    if (sj && !j2 && cs__json_wellformed(sj)) oom = 1;
    if (rc == 0 && oom) {
        fprintf(stderr, "cowsim report: %s: out of memory\n", s->path);
        rc = CS_EXIT_IO;
    }
    const cJSON *des = j2 ? cJSON_GetObjectItemCaseSensitive(j2, "grid") : NULL;
    if (!cJSON_IsObject(des) && j2) {
        const cJSON *sob = cJSON_GetObjectItemCaseSensitive(j2, "sobol");
        des = sob ? cJSON_GetObjectItemCaseSensitive(sob, "ranges") : NULL;
    }
    int use_paths = cJSON_IsObject(des) && (size_t)cJSON_GetArraySize(des) == s->np;
    if (rc == 0) {
        s->plabel = calloc(s->np ? s->np : 1, sizeof *s->plabel);
        if (!s->plabel) rc = CS_EXIT_IO;
        for (size_t p = 0; rc == 0 && p < s->np; p++) {
            const cJSON *it = use_paths ? cJSON_GetArrayItem(des, (int)p) : NULL;
            s->plabel[p] = cs__strdup(it && it->string ? it->string : s->col[s->p0 + p].name);
            if (!s->plabel[p]) rc = CS_EXIT_IO;
        }
        if (rc) fprintf(stderr, "cowsim report: %s: out of memory\n", s->path);
    }
    cJSON_Delete(j2);
    free(sj);
    H5Fclose(fid);
    return rc;
}

/* Distinct values of string column strs (n rows), first appearance order;
 * returns 0 or -1 when out of memory (said on stderr). */
int cs__distinct_str(char **strs, size_t n, cs__names_t *out)
{
    out->v = calloc(n ? n : 1, sizeof *out->v);
    out->n = 0;
    if (!out->v) {
        fprintf(stderr, "cowsim report: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < out->n && strcmp(out->v[j], strs[i]) != 0) j++;
        if (j == out->n) out->v[out->n++] = strs[i];
    }
    return 0;
}

/* x position of row i on parameter column pc: the value itself for a
 * numeric parameter, the index of its category for a string one. */
static double cs__param_x(const cs__sweep_t *s, size_t pc, const cs__names_t *cats, size_t i)
{
    const cs__scol_t *c = &s->col[pc];
    if (!c->is_str) return c->num[i];
    for (size_t k = 0; k < cats->n; k++)
        if (strcmp(cats->v[k], c->str[i]) == 0) return (double)k;
    return CS__REP_NAN;
}

/* Mean of x[0..n) and its CS__BOOT_LEVEL interval: BCa bootstrap
 * (cs_stat_bca_mean) from CS_STAT_BOOT_MIN_N values, Student-t below that,
 * none (NaN) for n < 2.  *kind (may be NULL) is 'b' (BCa), 't' or '-'.
 * Returns 0, or -1 when out of memory (the interval would be a NaN that is
 * not "too few values"). */
int cs__mean_ci(const double *x, size_t n, double *mean, double *lo, double *hi, char *kind)
{
    cs_stat_ci_t c;
    if (cs_stat_ci(x, n, CS__BOOT_LEVEL, CS__BOOT_SEED, &c) != 0) return -1;
    *mean = c.mean;
    int boot = isfinite(c.b_lo);
    *lo = boot ? c.b_lo : c.t_lo;
    *hi = boot ? c.b_hi : c.t_hi;
    if (kind) *kind = boot ? 'b' : isfinite(c.t_lo) ? 't' : '-';
    return 0;
}

/* Whether metric column mc has finite values that are not all equal; *only
 * is the first finite value (NaN if there is none). */
int cs__varies(const cs__sweep_t *s, int mc, double *only)
{
    int seen = 0, varies = 0;
    double v0 = CS__REP_NAN;
    for (size_t i = 0; i < s->nrows; i++) {
        double v = s->col[mc].num[i];
        if (!isfinite(v)) continue;
        if (!seen) v0 = v;
        else if (v != v0) varies = 1;
        seen = 1;
    }
    *only = v0;
    return varies;
}

/* More combinations of the other swept parameters than this: each run is
 * drawn as a point (nothing averaged, no line through unrelated points). */
#define CS__MAX_LINES 12

/* 1 if rows i and j agree on every swept parameter but column pc. */
static int cs__same_others(const cs__sweep_t *s, size_t pc, size_t i, size_t j)
{
    for (size_t q = s->p0; q < s->p0 + s->np; q++) {
        const cs__scol_t *c = &s->col[q];
        if (q == pc) continue;
        if (c->is_str ? strcmp(c->str[i], c->str[j]) != 0
                      : !(c->num[i] == c->num[j] || (isnan(c->num[i]) && isnan(c->num[j]))))
            return 0;
    }
    return 1;
}

/* Label "path = value, ..." of the swept parameters but pc at row i. */
static void cs__group_label(const cs__sweep_t *s, size_t pc, size_t i, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t q = s->p0; q < s->p0 + s->np && len + 1 < cap; q++) {
        const cs__scol_t *c = &s->col[q];
        char num[64];
        if (q == pc) continue;
        int w = snprintf(buf + len, cap - len, "%s%s = %s", len ? ", " : "", s->plabel[q - s->p0],
                         c->is_str ? c->str[i] : cs__fmt_num(num, sizeof num, c->num[i]));
        if (w < 0) break;
        len += (size_t)w < cap - len ? (size_t)w : cap - len - 1;
    }
}

/* The groups of rows for parameter column pc: grp[i] is the group of row
 * i (rows equal on every other swept parameter), rep[g] its first row, in
 * order of first appearance.  Returns the number of groups. */
static size_t cs__groups(const cs__sweep_t *s, size_t pc, size_t *grp, size_t *rep)
{
    size_t ng = 0;
    for (size_t i = 0; i < s->nrows; i++) {
        size_t g = 0;
        while (g < ng && !cs__same_others(s, pc, rep[g], i)) g++;
        if (g == ng) rep[ng++] = i;
        grp[i] = g;
    }
    return ng;
}

/* Data file name of mechanism k (0-based), group gi of ng. */
static void cs__sweep_dat(char *buf, size_t cap, const char *prefix, const char *pname, size_t k, size_t gi,
                          size_t ng)
{
    if (ng <= 1) snprintf(buf, cap, "%s_%s_m%zu.dat", prefix, pname, k + 1);
    else snprintf(buf, cap, "%s_%s_m%zu_g%zu.dat", prefix, pname, k + 1, gi + 1);
}

/* x axis of a sweep plot against parameter column pcol: a tic per category
 * of a string parameter (cats), a small margin for a numeric one. */
static void cs__gp_xaxis(FILE *f, const cs__scol_t *pcol, const cs__names_t *cats)
{
    if (pcol->is_str) {
        fprintf(f, "set xtics (");
        for (size_t c = 0; c < cats->n; c++) {
            fprintf(f, "%s", c ? ", " : "");
            cs__gp_quote(f, cats->v[c]);
            fprintf(f, " %zu", c);
        }
        fprintf(f, ")\nset xrange [-0.5:%zu.5]\n", cats->n ? cats->n - 1 : 0);
    } else {
        fprintf(f, "set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n");
    }
}

/*
 * Sweep plots: each varying run-level metric against each swept parameter
 * p.  Nothing is averaged over the other swept parameters: one line per
 * mechanism and per combination of their values (a group), the mean over
 * the seeds of that point with its 95 % interval (cs__mean_ci).  With more
 * than CS__MAX_LINES groups (a Sobol design) every run is a point.  Data
 * files: <prefix>_<param>_m<k>.dat (one group) or _m<k>_g<g>.dat, columns
 * x, runs, then mean lo hi per plotted metric; the header names the group.
 */
int cs__plot_sweep(const cs__gp_t *g, const cs__sweep_t *s, const char *prefix, cs__plots_t *plots)
{
    cs__names_t mechs = {0};
    if (cs__distinct_str(s->col[s->c_mech].str, s->nrows, &mechs) != 0) return CS_EXIT_IO;
    int plotted[CS_M__COUNT];
    double only[CS_M__COUNT];
    for (int m = 0; m < CS_M__COUNT; m++)
        plotted[m] = s->metric_col[m] >= 0 && cs__varies(s, s->metric_col[m], &only[m]);
    size_t nr = s->nrows ? s->nrows : 1;
    double *vals = malloc(nr * sizeof *vals), *xs = malloc(nr * sizeof *xs);
    size_t *grp = malloc(nr * sizeof *grp), *rep = malloc(nr * sizeof *rep);
    int rc = vals && xs && grp && rep ? 0 : CS_EXIT_IO, warned = 0;
    if (rc) fprintf(stderr, "cowsim report: out of memory\n");
    for (size_t p = 0; p < s->np && rc == 0; p++) {
        size_t pc = s->p0 + p;
        const cs__scol_t *pcol = &s->col[pc];
        cs__names_t cats = {0};
        if (pcol->is_str && cs__distinct_str(pcol->str, s->nrows, &cats) != 0) {
            rc = CS_EXIT_IO;
            break;
        }
        char pname[128];
        cs__sanitize(pname, sizeof pname, pcol->name);
        size_t ng = cs__groups(s, pc, grp, rep);
        int scatter = ng > CS__MAX_LINES;
        size_t nfile = scatter ? 1 : ng; /* data files per mechanism */
        char kinds[4] = "";              /* interval kinds used: 'b', 't' */
        for (size_t k = 0; k < mechs.n && rc == 0; k++) {
            for (size_t gi = 0; gi < nfile && rc == 0; gi++) {
                size_t nx = 0;
                for (size_t i = 0; i < s->nrows; i++) {
                    if (strcmp(s->col[s->c_mech].str[i], mechs.v[k]) != 0 || (!scatter && grp[i] != gi)) continue;
                    double x = cs__param_x(s, pc, &cats, i);
                    if (isnan(x)) continue;
                    xs[nx++] = x;
                }
                qsort(xs, nx, sizeof *xs, cs__cmp_double);
                char dat[256], lab[512];
                cs__sweep_dat(dat, sizeof dat, prefix, pname, k, gi, scatter ? 1 : ng);
                FILE *d = cs__open_out(g->dir, dat);
                if (!d) {
                    rc = CS_EXIT_IO;
                    break;
                }
                if (scatter) snprintf(lab, sizeof lab, "every run (%zu combinations of the others)", ng);
                else cs__group_label(s, pc, rep[gi], lab, sizeof lab);
                fprintf(d, "# %s, mechanism %s%s%s: %s, rows, then mean lo hi for each metric column of /runs:",
                        s->path, mechs.v[k], lab[0] ? ", " : "", lab, pcol->name);
                for (int m = 0; m < CS_M__COUNT; m++)
                    if (plotted[m]) fprintf(d, " %s", s->col[s->metric_col[m]].name);
                fputc('\n', d);
                int oom = 0;
                for (size_t a = 0; a < nx && !oom; a++) {
                    if (!scatter && a > 0 && xs[a] == xs[a - 1]) continue;
                    for (size_t i = 0; i < s->nrows && scatter; i++) {
                        /* Scatter: one line per run at this x (each once). */
                        if (strcmp(s->col[s->c_mech].str[i], mechs.v[k]) != 0 ||
                            cs__param_x(s, pc, &cats, i) != xs[a] || (a > 0 && xs[a] == xs[a - 1]))
                            continue;
                        fprintf(d, "%.10g 1", xs[a]);
                        for (int m = 0; m < CS_M__COUNT; m++) {
                            if (!plotted[m]) continue;
                            cs__dat_num(d, s->col[s->metric_col[m]].num[i]);
                            cs__dat_num(d, CS__REP_NAN);
                            cs__dat_num(d, CS__REP_NAN);
                        }
                        fputc('\n', d);
                    }
                    if (scatter) continue;
                    size_t rows = 0;
                    for (size_t i = 0; i < s->nrows; i++)
                        if (strcmp(s->col[s->c_mech].str[i], mechs.v[k]) == 0 && grp[i] == gi &&
                            cs__param_x(s, pc, &cats, i) == xs[a])
                            rows++;
                    fprintf(d, "%.10g %zu", xs[a], rows);
                    for (int m = 0; m < CS_M__COUNT; m++) {
                        if (!plotted[m]) continue;
                        size_t nv = 0;
                        for (size_t i = 0; i < s->nrows; i++) {
                            if (strcmp(s->col[s->c_mech].str[i], mechs.v[k]) != 0 || grp[i] != gi ||
                                cs__param_x(s, pc, &cats, i) != xs[a])
                                continue;
                            double v = s->col[s->metric_col[m]].num[i];
                            if (isfinite(v)) vals[nv++] = v;
                        }
                        double mean = CS__REP_NAN, lo = CS__REP_NAN, hi = CS__REP_NAN;
                        char kind = '-';
                        if (cs__mean_ci(vals, nv, &mean, &lo, &hi, &kind) != 0) oom = 1;
                        if (kind != '-' && !strchr(kinds, kind)) kinds[strlen(kinds)] = kind;
                        cs__dat_num(d, mean);
                        cs__dat_num(d, lo);
                        cs__dat_num(d, hi);
                    }
                    fputc('\n', d);
                }
                rc = cs__close_out(d, g->dir, dat);
                if (oom && rc == 0) {
                    fprintf(stderr, "cowsim report: out of memory computing the intervals\n");
                    rc = CS_EXIT_IO;
                }
            }
        }
        /* One plot per metric. */
        int col3 = 3; /* data column of the first plotted metric's mean */
        for (int m = 0; m < CS_M__COUNT && rc == 0; m++) {
            if (!plotted[m]) continue;
            const char *mn = s->col[s->metric_col[m]].name;
            char base[320];
            snprintf(base, sizeof base, "%s_%s__%s", prefix, pname, mn);
            FILE *f = cs__gp_begin(g, base, 900, ng > 1 && !scatter ? 640 : 560);
            if (!f) {
                rc = CS_EXIT_IO;
                break;
            }
            fputs("set title ", f);
            {
                char t[320];
                snprintf(t, sizeof t, "%s vs %s", mn, s->plabel[p]);
                cs__gp_quote(f, t);
            }
            fputs("\nset xlabel ", f);
            cs__gp_quote(f, s->plabel[p]);
            fputs("\nset ylabel ", f);
            {
                char t[320];
                snprintf(t, sizeof t, scatter ? "%s (each run)" : "%s (mean over seeds, 95%% CI)", mn);
                cs__gp_quote(f, t);
            }
            fputc('\n', f);
            cs__gp_xaxis(f, pcol, &cats);
            fprintf(f, ng > 1 && !scatter ? "set key below\nplot" : "set key outside right top\nplot");
            /* Numeric parameter: shaded bands (pngcairo) first, so no band
             * hides another line, then the mean lines: colour = mechanism,
             * dash and point type = group.  String parameter, or the png
             * terminal: error bars, the lines spread a little around each
             * category so the bars stay apart.  Scatter: points only. */
            int bands = g->cairo && !pcol->is_str && !scatter;
            size_t item = 0, nline = mechs.n * nfile;
            for (size_t k = 0; k < mechs.n && !scatter; k++) {
                for (size_t gi = 0; gi < nfile; gi++) {
                    const char *c = cs__colors[k % 10];
                    size_t li = k * nfile + gi;
                    double off = pcol->is_str ? 0.06 * ((double)li - (double)(nline - 1) / 2.0) : 0;
                    char dat[256];
                    cs__sweep_dat(dat, sizeof dat, prefix, pname, k, gi, ng);
                    if (bands)
                        fprintf(f, "%s '%s' using 1:%d:%d with filledcurves fs transparent solid 0.14 "
                                   "noborder lc rgb '%s' notitle",
                                item++ ? ", \\\n    " : " ", dat, col3 + 1, col3 + 2, c);
                    else
                        fprintf(f, "%s '%s' using ($1%+.3f):%d:%d:%d with yerrorbars pt %zu ps 0.9 lw 1.4 "
                                   "lc rgb '%s' notitle",
                                item++ ? ", \\\n    " : " ", dat, off, col3, col3 + 1, col3 + 2, gi % 13 + 1, c);
                }
            }
            for (size_t k = 0; k < mechs.n; k++) {
                for (size_t gi = 0; gi < nfile; gi++) {
                    const char *c = cs__colors[k % 10];
                    size_t li = k * nfile + gi;
                    double off = pcol->is_str && !scatter ? 0.06 * ((double)li - (double)(nline - 1) / 2.0) : 0;
                    char dat[256], title[600], lab[512];
                    cs__sweep_dat(dat, sizeof dat, prefix, pname, k, gi, scatter ? 1 : ng);
                    if (scatter || ng <= 1) lab[0] = '\0';
                    else cs__group_label(s, pc, rep[gi], lab, sizeof lab);
                    snprintf(title, sizeof title, "%s%s%s", mechs.v[k], lab[0] ? ", " : "", lab);
                    fprintf(f, "%s '%s' using ($1%+.3f):%d with %s pt %zu ps 0.9 lw 1.8 lc rgb '%s' dt %zu title ",
                            item++ ? ", \\\n    " : " ", dat, off, col3,
                            pcol->is_str || scatter ? "points" : "linespoints", gi % 13 + 1, c, gi % 5 + 1);
                    cs__gp_quote(f, title);
                }
            }
            fputc('\n', f);
            char cap[1024], alt[320], how[160];
            if (scatter)
                snprintf(how, sizeof how, "every run as a point (the other swept parameters take %zu combinations; "
                                          "nothing averaged)", ng);
            else
                snprintf(how, sizeof how, "mean over seeds with a 95%% %s interval of the mean as %s",
                         strchr(kinds, 'b') && strchr(kinds, 't') ? "BCa bootstrap (points with >= 10 runs) or Student-t"
                         : strchr(kinds, 'b')                     ? "BCa bootstrap"
                                                                  : "Student-t",
                         bands ? "a shaded band" : "error bars");
            snprintf(cap, sizeof cap, "%s against swept %s: %s, one %s per mechanism%s.", mn, s->plabel[p], how,
                     scatter ? "colour" : "line",
                     s->np > 1 && !scatter ? " and per value of every other swept parameter (never averaged over them)"
                                           : "");
            if (!scatter && strchr(kinds, 't') && !warned) {
                fprintf(stderr, "cowsim report: %s: warning: fewer than %d runs per point: Student-t intervals "
                                "there, no bootstrap\n",
                        s->path, CS_STAT_BOOT_MIN_N);
                warned = 1;
            }
            snprintf(alt, sizeof alt, "%s vs %s", mn, s->plabel[p]);
            rc = cs__gp_end(g, f, base, plots, alt, cap);
            col3 += 3;
        }
        free(cats.v);
    }
    free(vals);
    free(xs);
    free(grp);
    free(rep);
    free(mechs.v);
    return rc;
}

/* ---- paired differences ------------------------------------------------- */

/* The design point of /runs row i: the point column, else the row index. */
double cs__row_point(const cs__sweep_t *s, size_t i)
{
    return s->c_point >= 0 && !s->col[s->c_point].is_str ? s->col[s->c_point].num[i] : (double)i;
}

/* The row of mechanism `ref` at the design point and seed of /runs row r
 * (its common-random-numbers partner), or SIZE_MAX if there is none. */
size_t cs__ref_row(const cs__sweep_t *s, size_t r, const char *ref)
{
    const double *seed = s->col[s->c_seed].num;
    double pt = cs__row_point(s, r);
    for (size_t u = 0; u < s->nrows; u++)
        if (strcmp(s->col[s->c_mech].str[u], ref) == 0 && cs__row_point(s, u) == pt && seed[u] == seed[r]) return u;
    return SIZE_MAX;
}

/* cs_stat_paired of metric column mc over the pairs of rows (pr[j], pu[j]),
 * j < n (a, b: scratch of n).  Returns 0 or -1 when out of memory. */
int cs__pair_ci(const cs__sweep_t *s, int mc, const size_t *pr, const size_t *pu, size_t n, double *a,
                double *b, cs_stat_ci_t *ci)
{
    const double *x = s->col[mc].num;
    for (size_t j = 0; j < n; j++) {
        a[j] = x[pr[j]];
        b[j] = x[pu[j]];
    }
    return cs_stat_paired(a, b, n, CS__BOOT_LEVEL, CS__BOOT_SEED, ci) != 0 ? -1 : 0;
}

/* Plot file name of the paired differences of metric mn against the
 * parameter pname (sanitized), reference rname (sanitized). */
static void cs__diff_base(char *buf, size_t cap, const char *prefix, const char *pname, const char *mn,
                          const char *rname)
{
    snprintf(buf, cap, "%s_%s__%s__diff_vs_%s", prefix, pname, mn, rname);
}

/*
 * Paired-difference plots of sweep s against reference mechanism `refname`
 * (NULL: the first mechanism; none if the sweep lacks it, has one mechanism
 * or no seed column): for each varying metric and each swept parameter p,
 * d = mean over seeds of x(k, seed) - x(ref, seed) (the figures of the
 * tables of cs__md_sweep_paired) against p with its 95 % Student-t
 * interval as error bars, one line per other mechanism k and per
 * combination of the other swept parameters (cs__groups: never averaged
 * over them).  A parameter with more than CS__MAX_LINES such combinations
 * (a Sobol design: no two points share the others) gets no difference
 * plot.  Data: <prefix>_<param>_diff_vs_<ref>_m<k>.dat (one group) or
 * _m<k>_g<g>.dat, columns x, pairs, then d t_lo t_hi bca_lo bca_hi per
 * plotted metric; plots <prefix>_<param>__<metric>__diff_vs_<ref>.
 * Returns 0 or an exit code with a message.
 */
int cs__plot_sweep_diff(const cs__gp_t *g, const cs__sweep_t *s, const char *prefix, const char *refname,
                        cs__plots_t *plots)
{
    if (s->c_seed < 0 || s->col[s->c_seed].is_str) return 0;
    cs__names_t mechs = {0};
    if (cs__distinct_str(s->col[s->c_mech].str, s->nrows, &mechs) != 0) return CS_EXIT_IO;
    size_t ref = 0;
    if (refname)
        for (ref = 0; ref < mechs.n && strcmp(mechs.v[ref], refname) != 0; ref++) {}
    if (mechs.n < 2 || ref == mechs.n) {
        free(mechs.v);
        return 0;
    }
    int plotted[CS_M__COUNT];
    for (int m = 0; m < CS_M__COUNT; m++) {
        double only;
        plotted[m] = s->metric_col[m] >= 0 && cs__varies(s, s->metric_col[m], &only);
    }
    char rname[128];
    cs__sanitize(rname, sizeof rname, mechs.v[ref]);
    size_t nr = s->nrows ? s->nrows : 1;
    double *xs = malloc(nr * sizeof *xs), *a = malloc(nr * sizeof *a), *b = malloc(nr * sizeof *b);
    size_t *grp = malloc(nr * sizeof *grp), *rep = malloc(nr * sizeof *rep);
    size_t *pr = malloc(nr * sizeof *pr), *pu = malloc(nr * sizeof *pu);
    int rc = xs && a && b && grp && rep && pr && pu ? 0 : CS_EXIT_IO;
    if (rc) fprintf(stderr, "cowsim report: out of memory\n");
    const char *const *mech = (const char *const *)s->col[s->c_mech].str;
    for (size_t p = 0; p < s->np && rc == 0; p++) {
        size_t pc = s->p0 + p;
        const cs__scol_t *pcol = &s->col[pc];
        size_t ng = cs__groups(s, pc, grp, rep);
        if (ng > CS__MAX_LINES) continue;
        cs__names_t cats = {0};
        if (pcol->is_str && cs__distinct_str(pcol->str, s->nrows, &cats) != 0) {
            rc = CS_EXIT_IO;
            break;
        }
        char pname[128], dname[300];
        cs__sanitize(pname, sizeof pname, pcol->name);
        snprintf(dname, sizeof dname, "%s_diff_vs_%s", pname, rname);
        for (size_t k = 0; k < mechs.n && rc == 0; k++) {
            if (k == ref) continue;
            for (size_t gi = 0; gi < ng && rc == 0; gi++) {
                size_t nx = 0;
                for (size_t i = 0; i < s->nrows; i++) {
                    if (strcmp(mech[i], mechs.v[k]) != 0 || grp[i] != gi) continue;
                    double x = cs__param_x(s, pc, &cats, i);
                    if (!isnan(x)) xs[nx++] = x;
                }
                qsort(xs, nx, sizeof *xs, cs__cmp_double);
                char dat[512], lab[512];
                cs__sweep_dat(dat, sizeof dat, prefix, dname, k, gi, ng);
                FILE *d = cs__open_out(g->dir, dat);
                if (!d) {
                    rc = CS_EXIT_IO;
                    break;
                }
                cs__group_label(s, pc, rep[gi], lab, sizeof lab);
                fprintf(d, "# %s, paired differences %s - %s on the same seed%s%s: %s, pairs, then d t_lo t_hi "
                           "bca_lo bca_hi for each metric column of /runs:",
                        s->path, mechs.v[k], mechs.v[ref], lab[0] ? ", " : "", lab, pcol->name);
                for (int m = 0; m < CS_M__COUNT; m++)
                    if (plotted[m]) fprintf(d, " %s", s->col[s->metric_col[m]].name);
                fputc('\n', d);
                for (size_t xi = 0; xi < nx && rc == 0; xi++) {
                    if (xi > 0 && xs[xi] == xs[xi - 1]) continue;
                    size_t n = 0;
                    for (size_t r = 0; r < s->nrows; r++) {
                        if (strcmp(mech[r], mechs.v[k]) != 0 || grp[r] != gi || cs__param_x(s, pc, &cats, r) != xs[xi])
                            continue;
                        size_t u = cs__ref_row(s, r, mechs.v[ref]);
                        if (u == SIZE_MAX) continue;
                        pr[n] = r;
                        pu[n++] = u;
                    }
                    fprintf(d, "%.10g %zu", xs[xi], n);
                    for (int m = 0; m < CS_M__COUNT && rc == 0; m++) {
                        if (!plotted[m]) continue;
                        cs_stat_ci_t ci;
                        if (cs__pair_ci(s, s->metric_col[m], pr, pu, n, a, b, &ci) != 0) {
                            fprintf(stderr, "cowsim report: out of memory computing the paired differences\n");
                            rc = CS_EXIT_IO;
                            break;
                        }
                        cs__dat_num(d, ci.n > 0 ? ci.mean : CS__REP_NAN);
                        cs__dat_num(d, ci.t_lo);
                        cs__dat_num(d, ci.t_hi);
                        cs__dat_num(d, ci.b_lo);
                        cs__dat_num(d, ci.b_hi);
                    }
                    fputc('\n', d);
                }
                int e = cs__close_out(d, g->dir, dat);
                if (rc == 0) rc = e;
            }
        }
        /* One plot per metric: error bars first, then the lines through d. */
        int col3 = 3; /* data column of the first plotted metric's d */
        for (int m = 0; m < CS_M__COUNT && rc == 0; m++) {
            if (!plotted[m]) continue;
            const char *mn = s->col[s->metric_col[m]].name;
            char base[640], t[640];
            cs__diff_base(base, sizeof base, prefix, pname, mn, rname);
            FILE *f = cs__gp_begin(g, base, 900, ng > 1 ? 640 : 560);
            if (!f) {
                rc = CS_EXIT_IO;
                break;
            }
            snprintf(t, sizeof t, "%s: mechanism - %s (paired on seed) vs %s", mn, mechs.v[ref], s->plabel[p]);
            fputs("set title ", f);
            cs__gp_quote(f, t);
            fputs("\nset xlabel ", f);
            cs__gp_quote(f, s->plabel[p]);
            snprintf(t, sizeof t, "d %s (mean paired difference, 95%% t CI)", mn);
            fputs("\nset ylabel ", f);
            cs__gp_quote(f, t);
            fputc('\n', f);
            cs__gp_xaxis(f, pcol, &cats);
            fprintf(f, ng > 1 ? "set key below\nplot" : "set key outside right top\nplot");
            size_t item = 0, nline = (mechs.n - 1) * ng;
            for (int pass = 0; pass < 2; pass++) {
                for (size_t k = 0, li = 0; k < mechs.n; k++) {
                    if (k == ref) continue;
                    for (size_t gi = 0; gi < ng; gi++, li++) {
                        const char *c = cs__colors[k % 10];
                        double off = pcol->is_str ? 0.06 * ((double)li - (double)(nline - 1) / 2.0) : 0;
                        char dat[512], lab[512], title[1200];
                        cs__sweep_dat(dat, sizeof dat, prefix, dname, k, gi, ng);
                        fprintf(f, "%s '%s' using ($1%+.3f):%d", item++ ? ", \\\n    " : " ", dat, off, col3);
                        if (pass == 0) {
                            fprintf(f, ":%d:%d with yerrorbars pt %zu ps 0.9 lw 1.4 lc rgb '%s' notitle", col3 + 1,
                                    col3 + 2, gi % 13 + 1, c);
                            continue;
                        }
                        if (ng > 1) cs__group_label(s, pc, rep[gi], lab, sizeof lab);
                        else lab[0] = '\0';
                        snprintf(title, sizeof title, "%s - %s%s%s", mechs.v[k], mechs.v[ref], lab[0] ? ", " : "", lab);
                        fprintf(f, " with %s pt %zu ps 0.9 lw 1.8 lc rgb '%s' dt %zu title ",
                                pcol->is_str ? "points" : "linespoints", gi % 13 + 1, c, gi % 5 + 1);
                        cs__gp_quote(f, title);
                    }
                }
            }
            fprintf(f, ", \\\n    0 with lines lw 1 lc rgb '#888888' dt 2 notitle\n");
            char cap[768], alt[320];
            snprintf(cap, sizeof cap, "Paired difference of %s against %s (same seed) vs swept %s: mean over seeds "
                                      "of x(mechanism) - x(%s) with its 95%% Student-t interval as error bars, one "
                                      "line per mechanism%s; dashed grey: no difference.",
                     mn, mechs.v[ref], s->plabel[p], mechs.v[ref],
                     s->np > 1 ? " and per value of every other swept parameter (never averaged over them)" : "");
            snprintf(alt, sizeof alt, "%s minus %s vs %s", mn, mechs.v[ref], s->plabel[p]);
            rc = cs__gp_end(g, f, base, plots, alt, cap);
            col3 += 5;
        }
        free(cats.v);
    }
    free(xs);
    free(a);
    free(b);
    free(grp);
    free(rep);
    free(pr);
    free(pu);
    free(mechs.v);
    return rc;
}

/* ---- time series of one sweep point (report --point) -------------------- */

/* The series --series may ask for. */
static const char *const cs__pt_series[] = {"basefee", "backlog", "w_p10", "w_p50", "w_p90"};
#define CS__NPTS (sizeof cs__pt_series / sizeof cs__pt_series[0])

/* 1 if /runs row i satisfies every "param=value" term of spec (comma
 * separated; a parameter named by its scenario path or its column name; a
 * numeric value compared as a number).  *unknown is set to the first term
 * whose parameter is no swept parameter. */
static int cs__pt_match(const cs__sweep_t *s, size_t i, const char *spec, const char **unknown)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (!eq) return 0;
        *eq = '\0';
        size_t p;
        for (p = 0; p < s->np; p++)
            if (strcmp(s->plabel[p], t) == 0 || strcmp(s->col[s->p0 + p].name, t) == 0) break;
        if (p == s->np) {
            if (unknown && !*unknown) *unknown = spec;
            return 0;
        }
        const cs__scol_t *c = &s->col[s->p0 + p];
        if (c->is_str) {
            if (strcmp(c->str[i], eq + 1) != 0) return 0;
        } else {
            char *end;
            double v = strtod(eq + 1, &end);
            if (*end || end == eq + 1 || v != c->num[i]) return 0;
        }
    }
    return 1;
}

/* The design point that --point spec names: a point index, or
 * "param=value[,param=value...]" matching exactly one point.  Returns 0 and
 * *pt, or CS_EXIT_USAGE with a message. */
static int cs__pt_resolve(const cs__sweep_t *s, const char *spec, double *pt)
{
    char *end;
    double v = strtod(spec, &end);
    int found = 0;
    if (*spec && !*end && !strchr(spec, '=')) {
        for (size_t i = 0; i < s->nrows && !found; i++) found = cs__row_point(s, i) == v;
        if (!found) {
            fprintf(stderr, "cowsim report: --point %s: %s has no such point\n", spec, s->path);
            return CS_EXIT_USAGE;
        }
        *pt = v;
        return 0;
    }
    const char *unknown = NULL;
    size_t npt = 0;
    double first = CS__REP_NAN, other = CS__REP_NAN;
    for (size_t i = 0; i < s->nrows; i++) {
        if (!cs__pt_match(s, i, spec, &unknown)) continue;
        double p = cs__row_point(s, i);
        if (npt == 0) first = p, npt = 1;
        else if (p != first && npt == 1) other = p, npt = 2;
    }
    if (npt != 1) {
        if (unknown) fprintf(stderr, "cowsim report: --point %s: not a swept parameter of %s\n", spec, s->path);
        else if (npt == 0) fprintf(stderr, "cowsim report: --point %s: no point of %s matches\n", spec, s->path);
        else
            fprintf(stderr, "cowsim report: --point %s: points %.0f and %.0f (at least) match; name every swept parameter\n",
                    spec, first, other);
        return CS_EXIT_USAGE;
    }
    *pt = first;
    return 0;
}

/*
 * Per-block basefee and backlog of run file path into data file dname
 * ("height basefee_lane pending", every block) and its W quantiles per
 * sample into wname (cs__run_weights).  Returns 0 or an exit code.
 */
static int cs__pt_run(const char *path, const char *label, const char *dir, const char *dname, const char *wname)
{
    int err = CS_OK;
    cs_h5_reader_t *rd = cs_h5_open_read(path, &err);
    if (!rd) return cs__rep_h5_fail(path, err);
    uint64_t n = 0;
    int rc = cs_h5_nrows(rd, CS_H5_BLOCKS, &n);
    FILE *f = rc == CS_OK ? cs__open_out(dir, dname) : NULL;
    cs_h5_block_t *buf = malloc(CS__CHUNK_ROWS * sizeof *buf);
    if (rc == CS_OK && (!f || !buf)) rc = f ? CS_ENOMEM : -1;
    if (f) fprintf(f, "# %s (%s): height, lane basefee, backlog (pending timers after the block)\n", label, path);
    for (uint64_t s = 0; rc == CS_OK && s < n; s += CS__CHUNK_ROWS) {
        size_t m = (size_t)(n - s < CS__CHUNK_ROWS ? n - s : CS__CHUNK_ROWS);
        rc = cs_h5_read_rows(rd, CS_H5_BLOCKS, s, m, buf);
        for (size_t i = 0; rc == CS_OK && i < m; i++)
            fprintf(f, "%llu %.17g %llu\n", (unsigned long long)buf[i].height, buf[i].basefee_lane.f,
                    (unsigned long long)buf[i].pending);
    }
    free(buf);
    int e = f ? cs__close_out(f, dir, dname) : CS_EXIT_IO;
    if (rc == -1) rc = CS_OK; /* cs__open_out said why */
    if (rc == CS_OK && e == 0) {
        cs__rep_run_t r;
        memset(&r, 0, sizeof r);
        r.path = path;
        snprintf(r.label, sizeof r.label, "%s", label);
        e = cs__run_weights(&r, rd, wname, dir);
    }
    cs_h5_close_read(rd);
    if (rc != CS_OK) return cs__rep_h5_fail(path, rc);
    return e;
}

/*
 * `report SWEEP.h5 --point P [--series a,b,...]`: the time series of every
 * run of design point P (each mechanism and seed; files
 * DIR_OF_SWEEP/runs/<run_id>/<mechanism>.h5), one plot per series with one
 * line per run.  Data: <prefix>_point<P>_r<j>.dat (height, basefee,
 * backlog) and _r<j>_weights.dat (height, W p10, p50, p90, identities).
 * Returns 0 or an exit code with a message.
 */
int cs__plot_point(const cs__gp_t *g, const cs__sweep_t *s, const char *prefix, const char *spec,
                   const char *series, cs__plots_t *plots)
{
    double pt;
    int rc = cs__pt_resolve(s, spec, &pt);
    if (rc) return rc;
    int want[CS__NPTS] = {0};
    char buf[256];
    snprintf(buf, sizeof buf, "%s", series ? series : "basefee,backlog,w_p10,w_p50,w_p90");
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t k;
        for (k = 0; k < CS__NPTS && strcmp(cs__pt_series[k], t) != 0; k++) {}
        if (k == CS__NPTS) {
            fprintf(stderr, "cowsim report: --series %s: unknown series (basefee, backlog, w_p10, w_p50, w_p90)\n", t);
            return CS_EXIT_USAGE;
        }
        want[k] = 1;
    }
    int c_id = -1;
    for (size_t c = 0; c < s->ncols; c++)
        if (s->col[c].is_str && strcmp(s->col[c].name, "run_id") == 0) c_id = (int)c;
    if (c_id < 0 || s->c_seed < 0) {
        fprintf(stderr, "cowsim report: %s: /runs has no run_id or seed column: no run files to read\n", s->path);
        return CS_EXIT_USAGE;
    }
    const char *sl = strrchr(s->path, '/');
    int dl = sl ? (int)(sl - s->path) : 1;
    const char *dir = sl ? s->path : ".";
    size_t *rows = malloc((s->nrows ? s->nrows : 1) * sizeof *rows), nrun = 0;
    if (!rows) {
        fprintf(stderr, "cowsim report: out of memory\n");
        return CS_EXIT_IO;
    }
    for (size_t i = 0; i < s->nrows; i++)
        if (cs__row_point(s, i) == pt) rows[nrun++] = i;
    for (size_t j = 0; rc == 0 && j < nrun; j++) {
        size_t i = rows[j];
        char path[CS__PATH_MAX], label[128], dn[96], wn[96];
        snprintf(path, sizeof path, "%.*s/runs/%s/%s.h5", dl, dir, s->col[c_id].str[i], s->col[s->c_mech].str[i]);
        snprintf(label, sizeof label, "%s seed %.0f", s->col[s->c_mech].str[i], s->col[s->c_seed].num[i]);
        snprintf(dn, sizeof dn, "%s_point%.0f_r%zu.dat", prefix, pt, j + 1);
        snprintf(wn, sizeof wn, "%s_point%.0f_r%zu_weights.dat", prefix, pt, j + 1);
        rc = cs__pt_run(path, label, g->dir, dn, wn);
    }
    static const char *const ylab[CS__NPTS] = {"lane basefee", "pending timers", "W p10", "W p50", "W p90"};
    for (size_t k = 0; rc == 0 && k < CS__NPTS; k++) {
        if (!want[k]) continue;
        char base[128], title[160];
        snprintf(base, sizeof base, "%s_point%.0f_%s", prefix, pt, cs__pt_series[k]);
        FILE *f = cs__gp_begin(g, base, 1100, 520);
        if (!f) {
            rc = CS_EXIT_IO;
            break;
        }
        snprintf(title, sizeof title, "%s at design point %.0f", cs__pt_series[k], pt);
        fprintf(f, "set title ");
        cs__gp_quote(f, title);
        fprintf(f, "\nset xlabel '%s'\nset ylabel '%s'\nset key outside right\nplot ", k < 2 ? "height" : "sample height",
                ylab[k]);
        for (size_t j = 0; j < nrun; j++) {
            size_t i = rows[j];
            char t[128];
            snprintf(t, sizeof t, "%s seed %.0f", s->col[s->c_mech].str[i], s->col[s->c_seed].num[i]);
            if (k < 2) fprintf(f, "%s'%s_point%.0f_r%zu.dat' using 1:%zu title ", j ? ", " : "", prefix, pt, j + 1, k + 2);
            else fprintf(f, "%s'%s_point%.0f_r%zu_weights.dat' using 1:%zu title ", j ? ", " : "", prefix, pt, j + 1,
                         k - 2 + 2);
            cs__gp_quote(f, t);
            fprintf(f, k < 2 ? " with lines" : " with linespoints pt 7 ps 0.4");
            cs__style(f, j, nrun, 1.5);
        }
        fputc('\n', f);
        char alt[160], cap[768];
        snprintf(alt, sizeof alt, "%s per %s, point %.0f", cs__pt_series[k], k < 2 ? "block" : "sample", pt);
        snprintf(cap, sizeof cap, "%s per %s at design point %.0f, one line per run (mechanism and seed).",
                 k == 0 ? "Lane basefee" : k == 1 ? "Backlog (pending timers after the block)"
                 : k == 2 ? "W(actor) 10th percentile" : k == 3 ? "W(actor) median" : "W(actor) 90th percentile",
                 k < 2 ? "block" : "W sample", pt);
        rc = cs__gp_end(g, f, base, plots, alt, cap);
    }
    free(rows);
    return rc;
}
