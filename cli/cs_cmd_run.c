/*
 * cs_cmd_run.c -- `cowsim run SCENARIO.json [-o DIR] [--seed N] [--seeds N]
 * [--mechanism M[,M...]] [--set PATH=VALUE]... [--check-invariants]
 * [--max-memory BYTES] [--quiet]` (DESIGN §5): one HDF5 file per mechanism
 * on identical demand, then a summary table comparing them.
 *
 * Several seeds (the scenario's "seeds", or --seeds N: N seeds from the
 * scenario's seed or --seed) run every mechanism once per seed into
 * DIR/seed-<s>/<mechanism>.h5 and print the multi-seed summary of
 * analysis/cs_seeds.h (means with 95 % intervals, paired differences).
 * --seed N alone still runs the one seed N; so does "seeds": 1.
 *
 * --harm runs every mechanism (and seed) a second time with the agents of
 * role attacker removed into <mechanism>.noattack.h5 beside each file, and
 * prints and writes DIR/harm.h5 the harm to honest actors
 * (analysis/cs_harm.h, DESIGN-NOTES N44).
 *
 * --max-memory refuses (exit 2), before anything is allocated for the run,
 * a scenario whose estimated peak memory exceeds BYTES.  The estimate is an
 * upper bound for one mechanism's run (mechanisms run one after another):
 *   pending timers  sum over agent entries of count x actors per instance x
 *                   max_timers_per_actor (the largest value in params or any
 *                   params event; CIP-5 §8 bounds what an actor can hold) x
 *                   (2 x CS_TIMER_RECORD_MAX_BYTES for the record's hot and
 *                   cold parts and money entry, whose tables grow
 *                   by doubling, + CS__REC_INDEX bytes of id index, queue or
 *                   tree node and engine bookkeeping + the agent's payload,
 *                   at most 4,096 bytes as the engine sends);
 *   actors          actors x (16 x fairness_window bytes of fairness window
 *                   log, CIP-1 rev §8: at most one 8-byte entry per block of
 *                   the window, in a ring that grows by doubling, +
 *                   CS__ACTOR_BYTES of scheduler, ledger, fairness slot and
 *                   engine records) + agent instances x their state size;
 *   HDF5            CS__H5_BYTES: the writer's chunk buffers (at most about
 *                   25 MiB, sim/cs_h5.h) plus the engine's row buffers;
 *   scenario        its text, events and piecewise points, as loaded.
 * The number of blocks does not enter: rows stream to the file.
 */
#include "cs_cli.h"
#include "cs_cpu_mark.h"
#include "cs_engine.h"
#include "cs_harm.h"
#include "cs_publish.h"
#include "cs_scenario.h"
#include "cs_seeds.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t cs__stop;

static void cs__on_signal(int sig)
{
    (void)sig;
    cs__stop = 1;
}

static void cs__run_usage(FILE *f)
{
    fprintf(f, "usage: cowsim run SCENARIO.json [-o DIR] [--seed N] [--seeds N] [--mechanism M[,M...]]\n"
               "                  [--set PATH=VALUE]... [--check-invariants] [--max-memory BYTES] [--harm] [--quiet]\n"
               "  Runs the scenario once per mechanism on identical demand, writes DIR/<mechanism>.h5\n"
               "  (default DIR: the scenario's output.dir or results/<name>) and prints a summary.\n"
               "  Several seeds (scenario \"seeds\", or --seeds N from the seed on) write\n"
               "  DIR/seed-<s>/<mechanism>.h5 and print means with 95 %% intervals across seeds;\n"
               "  --seed N alone runs the one seed N.\n"
               "  --max-memory BYTES (suffix K, M or G = 2^10, 2^20, 2^30): refuse, before the run,\n"
               "  a scenario whose estimated peak memory is larger, printing the estimate.\n"
               "  --harm: run each mechanism again without the agents of role attacker into\n"
               "  DIR/<mechanism>.noattack.h5; print the harm to honest actors, write DIR/harm.h5.\n");
}

#define CS__REC_INDEX 160u          /* bytes per pending timer besides the record: indices, engine info */
#define CS__ACTOR_BYTES 256u        /* bytes per actor besides the fairness window log */
#define CS__H5_BYTES (32u << 20)    /* HDF5 chunk buffers (<= ~25 MiB) + engine row buffers */
#define CS__MAX_PAYLOAD_SENT 4096u  /* the engine sends at most this many payload bytes */

/* The parts of the --max-memory estimate, in bytes (saturating). */
typedef struct cs__mem {
    uint64_t actors;        /* actors in the run */
    uint64_t max_timers;    /* largest max_timers_per_actor in force */
    uint64_t pending;       /* pending-timer upper bound */
    uint64_t timer_bytes;   /* pending x per-timer bytes */
    uint64_t actor_bytes;   /* actors, fairness window logs, agent states */
    uint64_t h5_bytes;      /* HDF5 and row buffers */
    uint64_t scn_bytes;     /* the loaded scenario */
    uint64_t total;         /* sum */
} cs__mem_t;

static uint64_t cs__sadd(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t cs__smul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

/* Value of agent parameter `name` of entry sa, or def when it has none. */
static double cs__agent_param(const cs_scn_agent_t *sa, const char *name, double def)
{
    for (size_t i = 0; i < sa->ops->n_params; i++)
        if (strcmp(sa->ops->params[i].name, name) == 0) return sa->params[i];
    return def;
}

/* The estimate described at the top of this file. */
static void cs__estimate(const cs_scenario_t *scn, cs__mem_t *m)
{
    memset(m, 0, sizeof *m);
    m->max_timers = scn->params.max_timers_per_actor;
    uint64_t window = scn->params.fairness_window;
    for (size_t i = 0; i < scn->n_events; i++) {
        if (scn->events[i].type != CS_EV_PARAMS) continue;
        if (scn->events[i].params.max_timers_per_actor > m->max_timers)
            m->max_timers = scn->events[i].params.max_timers_per_actor;
    }
    uint64_t per_actor = cs__sadd(cs__smul(16, window), CS__ACTOR_BYTES);
    for (size_t i = 0; i < scn->n_agents; i++) {
        const cs_scn_agent_t *sa = &scn->agents[i];
        uint32_t per = sa->ops->n_actors ? sa->ops->n_actors(sa->params) : 1;
        if (per == 0) per = 1;
        uint64_t n = cs__smul(sa->count, per);
        double pl = cs__agent_param(sa, "payload_len", 0);
        uint64_t payload = pl > 0 ? (pl < CS__MAX_PAYLOAD_SENT ? (uint64_t)pl : CS__MAX_PAYLOAD_SENT) : 0;
        uint64_t rec = 2 * CS_TIMER_RECORD_MAX_BYTES + CS__REC_INDEX + payload;
        uint64_t pend = cs__smul(n, m->max_timers);
        m->actors = cs__sadd(m->actors, n);
        m->pending = cs__sadd(m->pending, pend);
        m->timer_bytes = cs__sadd(m->timer_bytes, cs__smul(pend, rec));
        m->actor_bytes = cs__sadd(m->actor_bytes, cs__sadd(cs__smul(n, per_actor), cs__smul(sa->count, sa->ops->state_size)));
    }
    m->h5_bytes = CS__H5_BYTES;
    m->scn_bytes = scn->text ? strlen(scn->text) : 0;
    m->scn_bytes = cs__sadd(m->scn_bytes, cs__smul(scn->n_events, sizeof(cs_scn_event_t)));
    m->scn_bytes = cs__sadd(m->scn_bytes, cs__smul(scn->n_agents, sizeof(cs_scn_agent_t)));
    m->scn_bytes = cs__sadd(m->scn_bytes, cs__smul(scn->basefee_cycle.n_pts + scn->basefee_cell.n_pts, 16));
    m->total = cs__sadd(cs__sadd(m->timer_bytes, m->actor_bytes), cs__sadd(m->h5_bytes, m->scn_bytes));
}

/* Parse BYTES with an optional K/M/G suffix (binary); 0 or -1. */
static int cs__parse_bytes(const char *s, uint64_t *out)
{
    if (s[0] < '0' || s[0] > '9') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k') shift = 10;
    else if (*end == 'M' || *end == 'm') shift = 20;
    else if (*end == 'G' || *end == 'g') shift = 30;
    if (shift) end++;
    if (*end != '\0' || v == 0 || v > (UINT64_MAX >> shift)) return -1;
    *out = (uint64_t)v << shift;
    return 0;
}


/* Progress of the whole run on a terminal: runs_total runs (seeds x
 * mechanisms, twice with --harm), run_idx of them done, the current one at
 * block h of n.  The ETA assumes every run costs what the runs so far cost
 * on average (elapsed / fraction done x fraction left); it is shown once a
 * hundredth of the work is done.  One line, redrawn in place; the caller
 * ends it with cs__progress_end. */
typedef struct cs__prog {
    struct timespec t0; /* start of the first run (CLOCK_MONOTONIC) */
    size_t runs_total;  /* runs to make */
    size_t run_idx;     /* runs finished */
    size_t ns;          /* seeds */
    int open;           /* 1 while a progress line is drawn without its newline */
} cs__prog_t;

static double cs__secs_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void cs__progress(cs__prog_t *p, size_t si, const char *mech, const char *pass, uint64_t h,
                         uint64_t n)
{
    double run_frac = n ? (double)h / (double)n : 1.0;
    double frac = ((double)p->run_idx + run_frac) / (double)(p->runs_total ? p->runs_total : 1);
    int w = 24, fill = (int)(frac * w);
    if (fill > w) fill = w;
    char seed[48] = "";
    if (p->ns > 1) snprintf(seed, sizeof seed, "seed %zu/%zu ", si + 1, p->ns);
    fprintf(stderr, "\r%s%-12.12s%s [", seed, mech, pass);
    for (int i = 0; i < w; i++) fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %3d%%  run %zu/%zu", (int)(100.0 * frac), p->run_idx + 1, p->runs_total);
    double el = cs__secs_since(&p->t0);
    if (frac >= 0.01 && frac < 1) {
        double eta = el / frac * (1 - frac);
        unsigned long s = (unsigned long)(eta + 0.5);
        fprintf(stderr, "  ETA %lu:%02lu:%02lu ", s / 3600, s / 60 % 60, s % 60);
    } else {
        fprintf(stderr, "  ETA  -:--:-- ");
    }
    p->open = 1;
    fflush(stderr);
}

/* Before a message: end a progress line left open, so the message starts
 * on a line of its own. */
static void cs__progress_break(cs__prog_t *p)
{
    if (p->open) fputc('\n', stderr);
    p->open = 0;
}

/* End the progress line: the total time on it, then a newline. */
static void cs__progress_end(cs__prog_t *p)
{
    p->open = 0;
    unsigned long s = (unsigned long)(cs__secs_since(&p->t0) + 0.5);
    fprintf(stderr, "\r%-*s\rran %zu run(s) in %lu:%02lu:%02lu\n", 78, "", p->run_idx, s / 3600, s / 60 % 60,
            s % 60);
}

/* The capacity every compared mechanism faces, the load it carries and
 * the efficiency benchmark (DESIGN-NOTES N57), on stdout above a table.
 * The load is the first run's: timers scheduled a block times the mean
 * gas limit of its fires, against the lane budget. */
static void cs__capacity(const cs_scenario_t *scn, const cs_run_stats_t *rs, size_t n)
{
    const cs_params_t *p = &scn->params;
    printf("lane: %llu cycles a block, per-fire cap %llu cycles, at most %llu fires a block and %llu per actor "
           "(0 = no limit), for every mechanism but fifo (the unbounded reference)\n",
           (unsigned long long)p->lane_timer_cycles, (unsigned long long)p->max_cycles_per_fire,
           (unsigned long long)p->max_fires_per_block, (unsigned long long)p->max_fires_per_actor);
    if (n > 0 && rs[0].blocks > 0 && rs[0].kind[CS_AK__COUNT].fires > 0) {
        const cs_kind_stats_t *all = &rs[0].kind[CS_AK__COUNT];
        double per = (double)all->timers / (double)rs[0].blocks;
        double gas = (double)rs[0].fire_gas / (double)all->fires;
        printf("load (%s): %.2f timers scheduled a block x %.0f cycles (mean gas limit of its fires) = %.2f x the lane\n",
               rs[0].mechanism, per, gas, per * gas / (double)p->lane_timer_cycles);
    }
    printf("efficiency: welfare against the welfare optimum of each run's own demand under that same lane budget, "
           "per-fire cap and quotas (one benchmark; fifo's has no lane), or an upper bound of it where the run is too "
           "large to solve exactly (the multi-seed summary and compare say which; analysis/README.md \"Bound gap\")\n");
}

/* Print the comparison table (stdout). */
static void cs__table(const cs_scenario_t *scn, const cs_run_stats_t *rs, size_t n)
{
    printf("\ncowsim run: %s -- %llu blocks, seed %llu\n", scn->name, (unsigned long long)scn->blocks,
           (unsigned long long)scn->seed);
    cs__capacity(scn, rs, n);
    putchar('\n');
    /* The name column: 12 wide, or the longest name (priority-classes). */
    int w = 12;
    for (size_t m = 0; m < n; m++)
        if (strlen(rs[m].mechanism) > (size_t)w) w = (int)strlen(rs[m].mechanism);
    printf("%-*s %-17s %7s %9s %9s %7s %7s %7s %14s\n", w, "mechanism", "agent kind", "actors", "timers", "fires",
           "d_p50", "d_p99", "d_max", "paid");
    for (size_t m = 0; m < n; m++) {
        for (int k = 0; k <= CS_AK__COUNT; k++) {
            const cs_kind_stats_t *ks = &rs[m].kind[k];
            if (k < CS_AK__COUNT && ks->actors == 0) continue;
            printf("%-*s %-17s %7u %9llu %9llu %7.0f %7.0f %7.0f %14.6g\n", w, rs[m].mechanism,
                   k == CS_AK__COUNT ? "all" : cs_agent_kind_names[k], ks->actors, (unsigned long long)ks->timers,
                   (unsigned long long)ks->fires, ks->delay_p50, ks->delay_p99, ks->delay_max, ks->paid);
        }
    }
    printf("\n%-*s %14s %14s %8s %8s %14s %s\n", w, "mechanism", "burned", "to proposer", "util", "jain",
           "lane basefee", "complete");
    for (size_t m = 0; m < n; m++)
        printf("%-*s %14.6g %14.6g %8.4f %8.4f %14.6g %s\n", w, rs[m].mechanism, rs[m].burn, rs[m].proposer,
               rs[m].util_mean, rs[m].jain, rs[m].basefee_final, rs[m].complete ? "yes" : "NO");
}

/* --harm: the harm to honest actors of every seed and mechanism, and its
 * summary across the seeds, printed and written to outdir/harm.h5
 * (analysis/cs_harm.h).  Returns an exit status. */
static int cs__harm(const cs_scenario_t *scn, const char *outdir, size_t ns, const char *const *list, size_t nm)
{
    cs_harm_t *h = calloc(ns * nm, sizeof *h);
    if (!h) {
        fprintf(stderr, "cowsim run: out of memory\n");
        return CS_EXIT_IO;
    }
    int code = CS_EXIT_OK;
    char with[4400], without[4416], err[9000];
    for (size_t k = 0; k < ns * nm && code == CS_EXIT_OK; k++) {
        size_t si = k / nm, m = k % nm;
        if (ns > 1)
            snprintf(with, sizeof with, "%s/seed-%llu/%s.h5", outdir, (unsigned long long)cs_scenario_seed(scn, si),
                     list[m]);
        else
            snprintf(with, sizeof with, "%s/%s.h5", outdir, list[m]);
        int rc = cs_harm_pair_path(with, without, sizeof without) ? cs_harm_compute(with, without, &h[k], err, sizeof err)
                                                                    : CS_EIO;
        if (rc != CS_OK) {
            fprintf(stderr, "cowsim run: harm: %s\n", err);
            code = CS_EXIT_IO;
        }
    }
    cs_harm_sum_t *sum = NULL;
    size_t nsum = 0;
    if (code == CS_EXIT_OK && cs_harm_summarize(h, ns * nm, &sum, &nsum, err, sizeof err) != CS_OK) {
        fprintf(stderr, "cowsim run: harm: %s\n", err);
        code = CS_EXIT_IO;
    }
    if (code == CS_EXIT_OK) {
        cs_harm_print(stdout, h, ns * nm);
        cs_harm_print_summary(stdout, sum, nsum);
        snprintf(with, sizeof with, "%s/harm.h5", outdir);
        if (cs_harm_write(with, h, ns * nm, sum, nsum, err, sizeof err) != CS_OK) {
            fprintf(stderr, "cowsim run: %s\n", err);
            code = CS_EXIT_IO;
        }
    }
    free(sum);
    free(h);
    return code;
}

int cs_cmd_run(int argc, char **argv)
{
    const char *path = NULL, *outdir = NULL, *mechs = NULL;
    int check = 0, quiet = 0, have_seed = 0, harm = 0;
    unsigned long long seed = 0, n_seeds = 0; /* n_seeds: --seeds, 0 = not given */
    uint64_t max_mem = 0; /* 0 = no limit */
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
        } else if (strcmp(a, "--seeds") == 0 && i + 1 < argc) {
            char *end;
            errno = 0;
            n_seeds = strtoull(argv[++i], &end, 10);
            if (errno || *end || argv[i][0] < '0' || argv[i][0] > '9' || n_seeds < 1 || n_seeds > CS_MAX_SEEDS) {
                fprintf(stderr, "cowsim run: --seeds needs a seed count in [1, %d]\n", CS_MAX_SEEDS);
                cs__run_usage(stderr);
                free(sets);
                return CS_EXIT_USAGE;
            }
        } else if (strcmp(a, "--mechanism") == 0 && i + 1 < argc) {
            mechs = argv[++i];
        } else if (strcmp(a, "--set") == 0 && i + 1 < argc) {
            sets[n_sets++] = argv[++i];
        } else if (strcmp(a, "--check-invariants") == 0) {
            check = 1;
        } else if (strcmp(a, "--max-memory") == 0 && i + 1 < argc) {
            if (cs__parse_bytes(argv[++i], &max_mem) != 0) {
                fprintf(stderr, "cowsim run: --max-memory needs a positive byte count (suffix K, M or G)\n");
                cs__run_usage(stderr);
                free(sets);
                return CS_EXIT_USAGE;
            }
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--harm") == 0) {
            harm = 1;
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
        return cs_exit_of(rc);
    }
    cs_errlist_free(&errs);
    if (have_seed) scn->seed = seed;
    /* The seeds: --seeds N from the seed on; else --seed alone is one run;
     * else the scenario's "seeds" (a count from the seed on, or a list). */
    if (n_seeds) {
        free(scn->seed_list);
        scn->seed_list = NULL;
        scn->n_seeds = (size_t)n_seeds;
    } else if (have_seed || scn->n_seeds == 0) {
        free(scn->seed_list);
        scn->seed_list = NULL;
        scn->n_seeds = 1;
    }
    size_t ns = scn->n_seeds;
    if (ns > 1 && !scn->seed_list && scn->seed > UINT64_MAX - (ns - 1)) {
        fprintf(stderr, "cowsim run: %zu seeds from seed %llu would pass 2^64 - 1 (and wrap to 0)\n", ns,
                (unsigned long long)scn->seed);
        cs_scenario_free(scn);
        return CS_EXIT_USAGE;
    }
    /* Mechanisms: the scenario's, or the --mechanism list (validated). */
    const char *list[CS_MAX_MECHS];
    size_t nm = 0;
    char *mcopy = NULL;
    if (mechs) {
        mcopy = strdup(mechs);
        if (!mcopy) {
            fprintf(stderr, "cowsim run: out of memory\n");
            cs_scenario_free(scn);
            return CS_EXIT_IO;
        }
        for (char *tok = strtok(mcopy, ","); tok; tok = strtok(NULL, ",")) {
            if (nm == CS_MAX_MECHS) {
                fprintf(stderr, "cowsim run: --mechanism lists more than %d mechanisms\n", CS_MAX_MECHS);
                free(mcopy);
                cs_scenario_free(scn);
                return CS_EXIT_USAGE;
            }
            if (!cs_mech_find(tok)) {
                char names[512];
                fprintf(stderr, "cowsim run: unknown mechanism '%s' (%s)\n", tok,
                        cs_mech_unknown_hint(tok, names, sizeof names));
                free(mcopy);
                cs_scenario_free(scn);
                return CS_EXIT_USAGE;
            }
            list[nm++] = tok;
        }
    } else {
        for (size_t i = 0; i < scn->n_mechs; i++) list[nm++] = scn->mechs[i];
    }
    if (nm == 0) {
        fprintf(stderr, "cowsim run: --mechanism lists no mechanism\n");
        free(mcopy);
        cs_scenario_free(scn);
        return CS_EXIT_USAGE;
    }
    if (max_mem) {
        /* Before anything is reserved for the run (see the file comment). */
        cs__mem_t m;
        cs__estimate(scn, &m);
        if (m.total > max_mem) {
            fprintf(stderr,
                    "cowsim run: %s: estimated memory %llu bytes exceeds --max-memory %llu bytes\n"
                    "  pending timers <= %llu (%llu actors x max_timers_per_actor %llu): %llu bytes\n"
                    "  actors (fairness window logs of 16 x %llu bytes, records, agent state): %llu bytes\n"
                    "  HDF5 and row buffers: %llu bytes; scenario: %llu bytes\n",
                    path, (unsigned long long)m.total, (unsigned long long)max_mem, (unsigned long long)m.pending,
                    (unsigned long long)m.actors, (unsigned long long)m.max_timers,
                    (unsigned long long)m.timer_bytes, (unsigned long long)scn->params.fairness_window,
                    (unsigned long long)m.actor_bytes, (unsigned long long)m.h5_bytes,
                    (unsigned long long)m.scn_bytes);
            free(mcopy);
            cs_scenario_free(scn);
            return CS_EXIT_USAGE;
        }
    }
    char dirbuf[4096];
    if (!outdir) {
        if (scn->output.dir) outdir = scn->output.dir;
        else {
            snprintf(dirbuf, sizeof dirbuf, "results/%s", scn->name);
            outdir = dirbuf;
        }
    }
    char ferr[600];
    int frc = cs_sim_check_funds(scn, ferr, sizeof ferr);
    if (frc != CS_OK) { /* before any output exists (issue 25 #9) */
        fprintf(stderr, "cowsim run: %s: %s\n", path, ferr);
        free(mcopy);
        cs_scenario_free(scn);
        return frc == CS_ENOMEM ? CS_EXIT_IO : CS_EXIT_USAGE;
    }
    if (cs_mkdirs(outdir) != 0) {
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
    if (!rs) {
        fprintf(stderr, "cowsim run: out of memory\n");
        exit_code = CS_EXIT_IO;
    }
    size_t done = 0;
    cs__prog_t prog = {.runs_total = ns * nm * (harm ? 2u : 1u), .ns = ns};
    clock_gettime(CLOCK_MONOTONIC, &prog.t0);
    for (size_t si = 0; si < ns && rs && exit_code == CS_EXIT_OK; si++) {
        uint64_t run_seed = cs_scenario_seed(scn, si);
        char sdir[4200];
        if (ns > 1) {
            snprintf(sdir, sizeof sdir, "%s/seed-%llu", outdir, (unsigned long long)run_seed);
            if (cs_mkdirs(sdir) != 0) {
                cs__progress_break(&prog);
                fprintf(stderr, "cowsim run: cannot create output directory %s: %s\n", sdir, strerror(errno));
                exit_code = CS_EXIT_IO;
                break;
            }
        } else {
            snprintf(sdir, sizeof sdir, "%s", outdir);
        }
        done = 0;
        for (size_t pm = 0; pm < nm * (harm ? 2u : 1u) && rs && exit_code == CS_EXIT_OK; pm++) {
            /* pass 0: the scenario; pass 1 (--harm): without its attackers */
            size_t m = pm % nm, pass = pm / nm;
            char file[4352];
            snprintf(file, sizeof file, "%s/%s%s.h5", sdir, list[m], pass ? ".noattack" : "");
            cs_sim_opts_t opts = {.out_path = file, .seed = run_seed, .check_invariants = check,
                                  .drop_attackers = (int)pass};
            cs_run_stats_t scratch;
            cs_engine_t *e = NULL;
            char err[512];
            rc = cs_sim_init(&e, scn, list[m], &opts, err, sizeof err);
            if (rc != CS_OK) {
                cs__progress_break(&prog);
                fprintf(stderr, "cowsim run: %s\n", err);
                exit_code = rc == CS_EIO || rc == CS_ENOMEM ? CS_EXIT_IO : CS_EXIT_USAGE;
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
                if (cs_sim_height(e) == cs__cpu_mark()) cs__print_cpu_mark(list[m], cs_sim_height(e));
                if (tty && (cs_sim_height(e) % every == 0 || cs_sim_height(e) == scn->blocks))
                    cs__progress(&prog, si, list[m], pass ? " (no attackers)" : "", cs_sim_height(e), scn->blocks);
            }
            int step_rc = rc;
            char step_err[512];
            snprintf(step_err, sizeof step_err, "%s", cs_sim_error(e));
            rc = cs_sim_done(e, complete, pass ? &scratch : &rs[m]);
            prog.run_idx++;
            if (!pass) done++;
            if (step_rc == CS_EINVARIANT) {
                cs__progress_break(&prog);
                fprintf(stderr, "cowsim run: %s: %s\n", list[m], step_err);
                exit_code = CS_EXIT_CHECK;
                break;
            }
            if (step_rc == CS_EIO || rc == CS_EIO) {
                cs__progress_break(&prog);
                fprintf(stderr, "cowsim run: %s\n", step_err[0] ? step_err : (pass ? &scratch : &rs[m])->error);
                exit_code = CS_EXIT_IO;
                break;
            }
            if (step_rc != CS_OK && step_rc != CS_EINTERRUPTED) {
                cs__progress_break(&prog);
                fprintf(stderr, "cowsim run: %s: %s\n", list[m], step_err[0] ? step_err : cs_strerror(step_rc));
                exit_code = CS_EXIT_IO;
                break;
            }
            if (cs__stop) {
                cs__progress_break(&prog);
                fprintf(stderr, "cowsim run: interrupted at block %llu; %s written with complete = 0\n",
                        (unsigned long long)(pass ? &scratch : &rs[m])->blocks, file);
                exit_code = 130;
                break;
            }
        }
    }
    if (tty && prog.run_idx > 0 && exit_code == CS_EXIT_OK) cs__progress_end(&prog);
    cs__progress_break(&prog);
    if (rs && done > 0 && exit_code == CS_EXIT_OK && ns == 1) cs__table(scn, rs, done);
    if (harm && exit_code == CS_EXIT_OK) exit_code = cs__harm(scn, outdir, ns, list, nm);
    if (rs && exit_code == CS_EXIT_OK && ns > 1) {
        uint64_t *seeds = malloc(ns * sizeof *seeds);
        char err[4600];
        if (!seeds) {
            fprintf(stderr, "cowsim run: out of memory\n");
            exit_code = CS_EXIT_IO;
        } else {
            for (size_t si = 0; si < ns; si++) seeds[si] = cs_scenario_seed(scn, si);
            if (tty) fprintf(stderr, "metrics of the %zu files (with the welfare optimum of each) ...\n", ns * nm);
            putchar('\n');
            cs__capacity(scn, rs, done);
            rc = cs_seeds_table(scn->name, scn->blocks, outdir, seeds, ns, list, nm, stdout, err, sizeof err);
            if (rc != CS_OK) {
                fprintf(stderr, "cowsim run: %s\n", err);
                exit_code = CS_EXIT_IO;
            }
            free(seeds);
        }
    }
    if (exit_code == CS_EXIT_OK && !quiet)
        printf("\nwrote %zu file(s) in %s\n", (ns > 1 ? ns * nm : done) * (harm ? 2u : 1u) + (harm ? 1u : 0u), outdir);
    free(rs);
    free(mcopy);
    cs_scenario_free(scn);
    return exit_code;
}
