/*
 * cs_report.c -- `cowsim report RUN.h5|SWEEP.h5 ... [-o DIR]` (DESIGN §5
 * CLI, §6 metrics, §7 calibration studies): DIR/report.md with a metrics
 * table and PNG plots.
 *
 * Inputs.  Each argument is either a run file (sim/cs_h5.h; one per
 * mechanism, as `cowsim run` writes them) or a sweep summary (the
 * DIR/sweep.h5 of `cowsim sweep`, recognised by its /runs table,
 * analysis/cs_sweep.h).  Runs of different mechanisms on the same scenario
 * share axes in every plot; each sweep gets its own section.
 *
 * Plots.  gnuplot draws them: this module writes, into DIR, one script
 * NAME.gp per plot and plain whitespace-separated data files, then runs
 * gnuplot as a child process (working directory DIR) on all the scripts at
 * once (`gnuplot A.gp B.gp ...`, up to 64 a process) to make each NAME.png.
 * Each script starts from gnuplot's defaults, so the scripts and data stay
 * in DIR and a plot can be restyled and redrawn by hand (`gnuplot NAME.gp`).  gnuplot's messages go to DIR/gnuplot.log.  The PNG
 * terminal is pngcairo when this gnuplot has it, else png (libgd).
 *   runs:   basefee.png (lane basefee per height), utilisation.png
 *           (lane utilisation per height, block-binned means),
 *           delay_cdf_<kind>.png (empirical CDF of fire delay per agent
 *           kind), weights.png (W(actor) p10/p50/p90 per /weights sample),
 *           revenue.png (burn / tips / payments per run), bars_<metric>.png
 *           (one bar chart per fairness and welfare metric across runs);
 *   multi-seed run directories (RUNDIR/seed-<s>/<m>.h5): seeds_basefee.png
 *           and seeds_utilisation.png (per block, median over the seeds
 *           with the 10-90 % band), seeds_delay_cdf.png and
 *           seeds_weights_cdf.png (CDFs pooled over the seeds),
 *           seeds_paid.png (what was paid by part, stacked;
 *           cs_report_seeds.c), seeds_bars_<metric>.png (means over the
 *           seeds with 95 % Student-t whiskers);
 *   sweeps: <prefix>_<param>__<metric>.png, each run-level metric against
 *           each swept parameter, one line per mechanism and per value of
 *           every other swept parameter (never averaged over them): mean
 *           over seeds with a 95 % interval (BCa bootstrap from 10 runs
 *           per point, Student-t below; cs_stats.h).
 *
 * Numbers.  The metrics table holds cs_metrics_compute's values for the
 * same greedy pairing as `cowsim compare` (cs_metrics_find_greedy), in
 * compare's row order, each printed to 4 significant digits (cs__fmt_sig:
 * a report is read, not parsed; `cowsim compare --json` gives the exact
 * values) with its unit, the best value of a row in bold (cs__metric_unit,
 * cs__best); so are the steady-state and multi-seed tables.
 *
 * Exit codes (DESIGN §2.9): 0 ok; 2 bad usage or an input that is not a run
 * or sweep file; 3 a missing or unreadable input, an output directory that
 * cannot be written, gnuplot missing (it is a declared run-time dependency,
 * DESIGN §1) or failing.
 *
 * Files.  This file checks the inputs and writes the report
 * (cs_report_write, cs_report.h); cs_report_cmd.c parses the command line;
 * cs_report_runs.c reads run files and multi-seed run directories,
 * cs_report_sweep.c sweep summaries; cs_report_plots.c draws the run plots
 * and bar charts; cs_report_tables.c writes report.md; cs_report_util.c
 * holds the shared helpers and runs gnuplot; cs_report_int.h declares what
 * they share.
 */
#include "cs_report.h"
#include "cs_report_int.h"

#include "cs_exit.h"
#include "cs_error.h"
#include "cs_h5.h"
#include "cs_publish.h"
#include "cs_seeds.h"
#include "cs_steady.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

/* ---- the command ------------------------------------------------------------ */

static int cs__classify_direct(const char *path);

/* Sandbox child of cs__classify (cs_h5_sandbox_call): classify path and,
 * for a sweep summary, load it whole, as the report will.  Run files are
 * read through cs_h5_open_read, which has its own sandbox. */
static int cs__classify_probe(const char *path, void *arg)
{
    (void)arg;
    int k = cs__classify_direct(path);
    if (k != 1) return k < 0 ? CS_EPARSE : CS_OK;
    cs__sweep_t sw;
    memset(&sw, 0, sizeof sw);
    sw.path = path;
    int rc = cs__sweep_open(&sw);
    cs__sweep_free(&sw);
    return rc == 0 ? CS_OK : CS_EPARSE;
}

/*
 * Classify input path: 0 run file, 1 sweep summary (has /runs), or a
 * negative exit code after printing a message naming the path: -3 missing
 * or unreadable, -2 not a cowsim run or sweep file.  The file is untrusted:
 * it is first classified and, if a sweep summary, read whole in a sandbox
 * child (README "Security"); a file that crashes libhdf5 there is refused.
 * A clean error in the child is met again here, with its message.
 */
static int cs__classify(const char *path)
{
    FILE *probe = fopen(path, "rb");
    if (probe) {
        fclose(probe);
        int fn_rc = CS_OK;
        int rc = cs_h5_sandbox_call(path, cs__classify_probe, NULL, &fn_rc);
        if (rc != CS_OK) {
            fprintf(stderr, "cowsim report: %s\n", cs_h5_last_error());
            return -cs_exit_of(rc);
        }
    }
    return cs__classify_direct(path);
}

/* cs__classify without the sandbox. */
static int cs__classify_direct(const char *path)
{
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        fprintf(stderr, "cowsim report: cannot read %s: %s\n", path, strerror(errno));
        return -CS_EXIT_IO;
    }
    fclose(probe);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "cowsim report: %s is a directory, not a run or sweep file\n", path);
        return -CS_EXIT_USAGE;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0) {
        fprintf(stderr, "cowsim report: %s is not an HDF5 file (expected a cowsim run or sweep file)\n", path);
        return -CS_EXIT_USAGE;
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#if H5_VERSION_GE(1, 10, 7)
    H5Pset_file_locking(fapl, 0, 1);
#endif
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (fid < 0) {
        fprintf(stderr, "cowsim report: %s: cannot open as HDF5\n", path);
        return -CS_EXIT_USAGE;
    }
    int sweep = H5Lexists(fid, "runs", H5P_DEFAULT) > 0;
    int run = H5Lexists(fid, "blocks", H5P_DEFAULT) > 0 && H5Aexists(fid, "format_version") > 0;
    H5Fclose(fid);
    if (sweep) return 1;
    if (run) return 0;
    fprintf(stderr, "cowsim report: %s is HDF5 but neither a cowsim run file (/blocks, format_version) nor a "
                    "sweep summary (/runs)\n",
            path);
    return -CS_EXIT_USAGE;
}

/*
 * `cowsim report RUN.h5|SWEEP.h5 ... [-o DIR]` once its arguments are
 * parsed (cs_report_cmd.c): check every input, find
 * gnuplot and its PNG terminal, create DIR (default: the first input's
 * directory), write the data files, scripts and PNGs, then DIR/report.md
 * (through DIR/report.md.tmp, published when complete: cs_publish_commit).  Prints the report
 * path on stdout.  Returns 0, CS_EXIT_USAGE or CS_EXIT_IO (file header).
 */
int cs_report_write(const char *const *inputs, size_t nin, const cs_report_opts_t *opt)
{
    const char *outdir = opt->outdir, *ref = opt->ref, *point = opt->point, *series = opt->series;
    int ss_mode = opt->ss_mode;
    uint64_t burn_in = opt->burn_in;
    /* A work file beside the inputs means a run there was interrupted (N48). */
    cs_publish_scan("report", inputs, nin);
    /* 1. Inputs: each a run file or a sweep summary. */
    int *kind = calloc(nin, sizeof *kind);
    cs__rep_run_t *runs = calloc(nin, sizeof *runs);
    cs__sweep_t *sweeps = calloc(nin, sizeof *sweeps);
    cs__seedrun_t *sruns = calloc(nin, sizeof *sruns);
    size_t nr = 0, ns = 0, nsr = 0;
    int rc = kind && runs && sweeps && sruns ? 0 : CS_EXIT_IO;
    if (rc != 0) fprintf(stderr, "cowsim report: out of memory for %zu inputs\n", nin);
    for (size_t i = 0; i < nin && rc == 0; i++) {
        if (cs_seeds_is_dir(inputs[i])) {
            sruns[nsr++].path = inputs[i];
            continue;
        }
        kind[i] = cs__classify(inputs[i]);
        if (kind[i] < 0) rc = -kind[i];
        else if (kind[i] == 0) runs[nr++].path = inputs[i];
        else sweeps[ns++].path = inputs[i];
    }
    if (rc == 0 && point && ns == 0) {
        fprintf(stderr, "cowsim report: --point needs a sweep summary (sweep.h5) among the inputs\n");
        rc = CS_EXIT_USAGE;
    }
        /* 2. gnuplot, a declared run-time dependency (DESIGN §1). */
    cs__gp_t g;
    memset(&g, 0, sizeof g);
    if (rc == 0 && cs__gp_find(&g) != 0) {
        fprintf(stderr, "cowsim report: gnuplot not found on PATH; it draws the report's plots and is required "
                        "(Debian: apt-get install gnuplot-nox)\n");
        rc = CS_EXIT_IO;
    }
    /* 3. The output directory. */
    char dirbuf[4096];
    if (rc == 0 && !outdir && nsr > 0 && sruns[0].path == inputs[0]) outdir = inputs[0]; /* a run directory: itself */
    if (rc == 0 && !outdir) {
        const char *sl = strrchr(inputs[0], '/');
        if (!sl) snprintf(dirbuf, sizeof dirbuf, ".");
        else if (sl == inputs[0]) snprintf(dirbuf, sizeof dirbuf, "/");
        else snprintf(dirbuf, sizeof dirbuf, "%.*s", (int)(sl - inputs[0]), inputs[0]);
        outdir = dirbuf;
    }
    char tmp_md[CS__PATH_MAX], md[CS__PATH_MAX];
    FILE *out = NULL;
    if (rc == 0) {
        snprintf(tmp_md, sizeof tmp_md, "%s/report.md.tmp", outdir);
        snprintf(md, sizeof md, "%s/report.md", outdir);
        if (cs_mkdirs(outdir) != 0 || !(out = cs_publish_fcreate(tmp_md))) {
            fprintf(stderr, "cowsim report: cannot write to output directory %s: %s\n", outdir, strerror(errno));
            rc = CS_EXIT_IO;
        }
    }
    if (rc == 0) {
        g.dir = outdir;
        snprintf(g.log, sizeof g.log, "%s/gnuplot.log", outdir);
        unlink(g.log);
        int st = cs__gp_exec(&g, "-e", "set terminal pngcairo");
        g.cairo = st == 0;
        if (!g.cairo && cs__gp_exec(&g, "-e", "set terminal png") != 0) {
            fprintf(stderr, "cowsim report: %s has neither the pngcairo nor the png terminal (see %s)\n", g.exe,
                    g.log);
            rc = CS_EXIT_IO;
        }
        unlink(g.log);
    }
    /* 4. Read the inputs, write data files, draw. */
    cs__plots_t plots = {0};
    size_t run_plots_end = 0;
    size_t *sweep_from = calloc(ns + 1, sizeof *sweep_from), *sweep_dfrom = calloc(ns + 1, sizeof *sweep_dfrom);
    if ((!sweep_from || !sweep_dfrom) && rc == 0) {
        fprintf(stderr, "cowsim report: out of memory\n");
        rc = CS_EXIT_IO;
    }
    for (size_t i = 0; i < nr && rc == 0; i++) rc = cs__rep_run_load(&runs[i], i, outdir);
    if (rc == 0 && nr > 0) {
        cs__run_labels(runs, nr);
        rc = cs__run_metrics(runs, nr, ss_mode, burn_in);
        if (rc == 0) rc = cs__plot_basefee(&g, runs, nr, &plots);
        if (rc == 0) rc = cs__plot_util(&g, runs, nr, &plots);
        if (rc == 0) rc = cs__plot_delays(&g, runs, nr, &plots);
        if (rc == 0) rc = cs__plot_weights(&g, runs, nr, &plots);
        if (rc == 0) rc = cs__plot_revenue(&g, runs, nr, &plots);
        if (rc == 0) rc = cs__plot_metric_bars(&g, runs, nr, &plots);
    }
    run_plots_end = plots.n;
    size_t *sr_from = calloc(nsr + 1, sizeof *sr_from);
    if (!sr_from && rc == 0) {
        fprintf(stderr, "cowsim report: out of memory\n");
        rc = CS_EXIT_IO;
    }
    for (size_t i = 0; i < nsr && rc == 0; i++) {
        char prefix[32], bars[40];
        if (nsr > 1) snprintf(prefix, sizeof prefix, "seeds%zu", i + 1);
        else snprintf(prefix, sizeof prefix, "seeds");
        snprintf(bars, sizeof bars, "%s_bars", prefix);
        sr_from[i] = plots.n;
        rc = cs__seedrun_load(&sruns[i]);
        if (rc == 0) rc = cs__seedrun_figures(&g, &sruns[i], prefix, &plots);
        if (rc == 0) rc = cs__seedrun_plot(&g, &sruns[i], bars, &plots);
        sr_from[i + 1] = plots.n;
    }
    for (size_t i = 0; i < ns && rc == 0; i++) {
        rc = cs__sweep_open(&sweeps[i]);
        char prefix[32];
        if (ns > 1) snprintf(prefix, sizeof prefix, "sweep%zu", i + 1);
        else snprintf(prefix, sizeof prefix, "sweep");
        sweep_from[i] = plots.n;
        if (rc == 0) rc = cs__plot_sweep(&g, &sweeps[i], prefix, &plots);
        if (rc == 0 && point) rc = cs__plot_point(&g, &sweeps[i], prefix, point, series, &plots);
        sweep_dfrom[i] = plots.n;
        if (rc == 0) rc = cs__plot_sweep_diff(&g, &sweeps[i], prefix, ref, &plots);
        sweep_from[i + 1] = plots.n;
    }
    /* 4b. Draw: one gnuplot process for the scripts written above. */
    if (rc == 0) rc = cs__gp_flush(&g, &plots);
    else cs__gp_discard(&g, &plots);
    /* 5. report.md (written to a temporary name, published when complete). */
    if (rc == 0) {
        size_t fig = 0;
        if (cs__md_title(out, runs, nr, sweeps, ns, nsr ? &sruns[0] : NULL) != 0) rc = CS_EXIT_IO;
        if (nr > 0) {
            if (cs__md_runs(out, runs, nr) != 0) rc = CS_EXIT_IO;
            fprintf(out, "## Plots\n\n");
            cs__md_plots(out, &plots, 0, run_plots_end, &fig);
            int fires = 0;
            for (size_t i = 0; i < nr; i++)
                for (int k = 0; k < CS_AGENT_KIND_COUNT; k++)
                    if (runs[i].delay[k].total) fires = 1;
            if (!fires) fprintf(out, "No /fires rows (output.fires = off): no delay CDFs.\n\n");
        }
        /* (an out-of-memory section: no report.md, exit 3) */
        for (size_t i = 0; i < nsr; i++)
            if (cs__md_seedrun(out, &sruns[i], &plots, sr_from[i], sr_from[i + 1], &fig) != 0) rc = CS_EXIT_IO;
        for (size_t i = 0; i < ns; i++)
            if (cs__md_sweep(out, &sweeps[i], ref, &plots, sweep_from[i], sweep_dfrom[i], sweep_from[i + 1], &fig) != 0)
                rc = CS_EXIT_IO;
        fprintf(out, "---\nPlots drawn by gnuplot (%s terminal); scripts (*.gp) and data (*.dat) are in this "
                     "directory.\n",
                g.cairo ? "pngcairo" : "png");
    }
    if (out) {
        int werr = ferror(out);
        if (fclose(out) != 0 || werr) {
            int e = errno;
            if (rc == 0) fprintf(stderr, "cowsim report: cannot write %s: %s\n", tmp_md, strerror(e));
            if (rc == 0) rc = CS_EXIT_IO;
        }
        if (rc == 0 && cs_publish_commit(-1, tmp_md, md) != 0) { /* fsync, rename, fsync the directory (N48) */
            fprintf(stderr, "cowsim report: cannot write %s: %s\n", md, strerror(errno));
            rc = CS_EXIT_IO;
        }
        if (rc != 0) unlink(tmp_md);
    }
    if (rc == 0) {
        struct stat sb;
        if (stat(g.log, &sb) == 0 && sb.st_size == 0) unlink(g.log);
        printf("wrote %s with %zu plot(s)\n", md, plots.n);
    }
    for (size_t i = 0; i < nr; i++) cs__rep_run_free(&runs[i]);
    for (size_t i = 0; i < ns; i++) cs__sweep_free(&sweeps[i]);
    for (size_t i = 0; i < nsr; i++) cs__seedrun_free(&sruns[i]);
    free(sruns);
    free(sr_from);
    free(plots.p);
    free(sweep_from);
    free(sweep_dfrom);
    free(runs);
    free(sweeps);
    free(kind);
    return rc;
}
