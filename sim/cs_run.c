/*
 * cs_run.c -- `cowsim run SCENARIO.json [-o DIR] [--seed N]
 * [--mechanism M[,M...]] [--set PATH=VALUE]... [--check-invariants]
 * [--quiet]` (DESIGN §5): one HDF5 file per mechanism on identical demand,
 * then a summary table comparing them.
 */
#include "cs_cli.h"
#include "cs_engine.h"
#include "cs_scenario.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t cs__stop;

static void cs__on_signal(int sig)
{
    (void)sig;
    cs__stop = 1;
}

static void cs__run_usage(FILE *f)
{
    fprintf(f, "usage: cowsim run SCENARIO.json [-o DIR] [--seed N] [--mechanism M[,M...]]\n"
               "                  [--set PATH=VALUE]... [--check-invariants] [--quiet]\n"
               "  Runs the scenario once per mechanism on identical demand, writes DIR/<mechanism>.h5\n"
               "  (default DIR: the scenario's output.dir or results/<name>) and prints a summary.\n");
}

/* mkdir -p; returns 0 or -1 with errno. */
static int cs__mkdirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            buf[i] = c;
        }
    }
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

static void cs__progress(const char *mech, uint64_t h, uint64_t n)
{
    int w = 40, fill = n ? (int)((double)h / (double)n * w) : w;
    fprintf(stderr, "\r%-12s [", mech);
    for (int i = 0; i < w; i++) fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %3d%%", n ? (int)(100.0 * (double)h / (double)n) : 100);
    if (h == n) fputc('\n', stderr);
}

/* Print the comparison table (stdout). */
static void cs__table(const cs_scenario_t *scn, const cs_run_stats_t *rs, size_t n)
{
    printf("\ncowsim run: %s -- %llu blocks, seed %llu\n\n", scn->name, (unsigned long long)scn->blocks,
           (unsigned long long)scn->seed);
    printf("%-12s %-17s %7s %9s %9s %7s %7s %7s %14s\n", "mechanism", "agent kind", "actors", "timers", "fires",
           "d_p50", "d_p99", "d_max", "paid");
    for (size_t m = 0; m < n; m++) {
        for (int k = 0; k <= CS_AK__COUNT; k++) {
            const cs_kind_stats_t *ks = &rs[m].kind[k];
            if (k < CS_AK__COUNT && ks->actors == 0) continue;
            printf("%-12s %-17s %7u %9llu %9llu %7.0f %7.0f %7.0f %14.6g\n", rs[m].mechanism,
                   k == CS_AK__COUNT ? "all" : cs_agent_kind_names[k], ks->actors, (unsigned long long)ks->timers,
                   (unsigned long long)ks->fires, ks->delay_p50, ks->delay_p99, ks->delay_max, ks->paid);
        }
    }
    printf("\n%-12s %14s %14s %8s %8s %14s %s\n", "mechanism", "burned", "to proposer", "util", "jain",
           "lane basefee", "complete");
    for (size_t m = 0; m < n; m++)
        printf("%-12s %14.6g %14.6g %8.4f %8.4f %14.6g %s\n", rs[m].mechanism, rs[m].burn, rs[m].proposer,
               rs[m].util_mean, rs[m].jain, rs[m].basefee_final, rs[m].complete ? "yes" : "NO");
}

int cs_cmd_run(int argc, char **argv)
{
    const char *path = NULL, *outdir = NULL, *mechs = NULL;
    int check = 0, quiet = 0, have_seed = 0;
    unsigned long long seed = 0;
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    size_t n_sets = 0;
    if (!sets) return CS_EXIT_IO;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cs__run_usage(stdout);
            free(sets);
            return CS_EXIT_OK;
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            outdir = argv[++i];
        } else if (strcmp(a, "--seed") == 0 && i + 1 < argc) {
            char *end;
            errno = 0;
            seed = strtoull(argv[++i], &end, 10);
            if (errno || *end || argv[i][0] == '-' || argv[i][0] == '\0') {
                fprintf(stderr, "cowsim run: --seed needs a non-negative integer\n");
                cs__run_usage(stderr);
                free(sets);
                return CS_EXIT_USAGE;
            }
            have_seed = 1;
        } else if (strcmp(a, "--mechanism") == 0 && i + 1 < argc) {
            mechs = argv[++i];
        } else if (strcmp(a, "--set") == 0 && i + 1 < argc) {
            sets[n_sets++] = argv[++i];
        } else if (strcmp(a, "--check-invariants") == 0) {
            check = 1;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (a[0] != '-' && !path) {
            path = a;
        } else {
            fprintf(stderr, "cowsim run: unexpected argument '%s'\n", a);
            cs__run_usage(stderr);
            free(sets);
            return CS_EXIT_USAGE;
        }
    }
    if (!path) {
        cs__run_usage(stderr);
        free(sets);
        return CS_EXIT_USAGE;
    }
    cs_errlist_t errs = {0};
    cs_scenario_t *scn = NULL;
    int rc = cs_scenario_load_file(path, sets, n_sets, &scn, &errs);
    free(sets);
    if (rc != CS_OK) {
        for (size_t i = 0; i < errs.n; i++) fprintf(stderr, "%s: %s\n", path, errs.msg[i]);
        if (errs.n == 0) fprintf(stderr, "%s: %s\n", path, cs_strerror(rc));
        cs_errlist_free(&errs);
        return rc == CS_ENOMEM ? CS_EXIT_IO : CS_EXIT_USAGE;
    }
    cs_errlist_free(&errs);
    if (have_seed) scn->seed = seed;
    /* Mechanisms: the scenario's, or the --mechanism list (validated). */
    const char *list[CS_MAX_MECHS];
    size_t nm = 0;
    char *mcopy = NULL;
    if (mechs) {
        mcopy = strdup(mechs);
        for (char *tok = strtok(mcopy, ","); tok && nm < CS_MAX_MECHS; tok = strtok(NULL, ",")) {
            if (!cs_mech_find(tok)) {
                char names[512];
                fprintf(stderr, "cowsim run: unknown mechanism '%s' (valid: %s)\n", tok,
                        cs_mech_names(names, sizeof names));
                free(mcopy);
                cs_scenario_free(scn);
                return CS_EXIT_USAGE;
            }
            list[nm++] = tok;
        }
    } else {
        for (size_t i = 0; i < scn->n_mechs; i++) list[nm++] = scn->mechs[i];
    }
    char dirbuf[4096];
    if (!outdir) {
        if (scn->output.dir) outdir = scn->output.dir;
        else {
            snprintf(dirbuf, sizeof dirbuf, "results/%s", scn->name);
            outdir = dirbuf;
        }
    }
    if (cs__mkdirs(outdir) != 0) {
        fprintf(stderr, "cowsim run: cannot create output directory %s: %s\n", outdir, strerror(errno));
        free(mcopy);
        cs_scenario_free(scn);
        return CS_EXIT_IO;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cs__on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int tty = !quiet && isatty(2);
    cs_run_stats_t *rs = calloc(nm, sizeof *rs);
    int exit_code = CS_EXIT_OK;
    size_t done = 0;
    for (size_t m = 0; m < nm && rs; m++) {
        char file[4352];
        snprintf(file, sizeof file, "%s/%s.h5", outdir, list[m]);
        cs_sim_opts_t opts = {file, scn->seed, check};
        cs_engine_t *e = NULL;
        char err[512];
        rc = cs_sim_init(&e, scn, list[m], &opts, err, sizeof err);
        if (rc != CS_OK) {
            fprintf(stderr, "cowsim run: %s\n", err);
            exit_code = rc == CS_EIO ? CS_EXIT_IO : CS_EXIT_USAGE;
            break;
        }
        int complete = 0;
        uint64_t every = scn->blocks / 200 + 1;
        for (;;) {
            if (cs__stop) break;
            rc = cs_sim_step(e);
            if (rc == CS_EINTERRUPTED) {
                complete = 1;
                break;
            }
            if (rc != CS_OK) break;
            if (tty && (cs_sim_height(e) % every == 0 || cs_sim_height(e) == scn->blocks))
                cs__progress(list[m], cs_sim_height(e), scn->blocks);
        }
        int step_rc = rc;
        char step_err[512];
        snprintf(step_err, sizeof step_err, "%s", cs_sim_error(e));
        rc = cs_sim_done(e, complete, &rs[m]);
        done++;
        if (step_rc == CS_EINVARIANT) {
            fprintf(stderr, "cowsim run: %s: %s\n", list[m], step_err);
            exit_code = CS_EXIT_CHECK;
            break;
        }
        if (step_rc == CS_EIO || rc == CS_EIO) {
            fprintf(stderr, "cowsim run: %s\n", step_err[0] ? step_err : rs[m].error);
            exit_code = CS_EXIT_IO;
            break;
        }
        if (step_rc != CS_OK && step_rc != CS_EINTERRUPTED) {
            fprintf(stderr, "cowsim run: %s: %s\n", list[m], step_err[0] ? step_err : cs_strerror(step_rc));
            exit_code = CS_EXIT_IO;
            break;
        }
        if (cs__stop) {
            fprintf(stderr, "cowsim run: interrupted at block %llu; %s written with complete = 0\n",
                    (unsigned long long)rs[m].blocks, file);
            exit_code = 130;
            break;
        }
    }
    if (rs && done > 0 && exit_code == CS_EXIT_OK) cs__table(scn, rs, done);
    if (exit_code == CS_EXIT_OK && !quiet) printf("\nwrote %zu file(s) in %s\n", done, outdir);
    free(rs);
    free(mcopy);
    cs_scenario_free(scn);
    return exit_code;
}
