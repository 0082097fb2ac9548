/* cs_test.c -- the shared test harness. */
#include "cs_test.h"

#include "cs_cli.h"
#include "cs_engine.h"
#include "cs_h5.h"
#include "cs_scenario.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

long cs_test_pass, cs_test_fail;

void cs_test_failed(const char *file, int line, const char *expr, const char *detail)
{
    cs_test_fail++;
    fprintf(stderr, "FAIL %s:%d: %s%s%s\n", file, line, expr, detail ? " -- " : "",
            detail ? detail : "");
}

int cs_test_done(const char *suite)
{
    printf("%s: %ld passed, %ld failed\n", suite, cs_test_pass, cs_test_fail);
    return cs_test_fail == 0 && cs_test_pass > 0 ? 0 : 1;
}

void cs_test_hex(const uint8_t *b, size_t n, char *out)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hx[b[i] >> 4];
        out[2 * i + 1] = hx[b[i] & 15];
    }
    out[2 * n] = '\0';
}

/* path with its directory part made canonical (the file itself may be gone,
 * renamed), into out. */
static void cs__test_canon(const char *path, char *out, size_t cap)
{
    const char *sl = strrchr(path, '/');
    char dir[4096], real[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", sl ? (int)(sl - path) : 1, sl ? path : ".");
    if (sl == path) snprintf(dir, sizeof dir, "/");
    if (!realpath(dir, real)) snprintf(real, sizeof real, "%s", dir);
    snprintf(out, cap, "%s/%s", strcmp(real, "/") == 0 ? "" : real, sl ? sl + 1 : path);
}

long cs_test_publish_log(const char *log, long *renames)
{
    typedef struct {
        int pid;
        char kind[16];
        char a[PATH_MAX + 256], b[PATH_MAX + 256];
    } ent_t;
    *renames = 0;
    FILE *f = fopen(log, "r");
    if (!f) {
        fprintf(stderr, "publish log %s: %s\n", log, strerror(errno));
        return 1;
    }
    size_t n = 0, cap = 0;
    ent_t *e = NULL;
    char line[2200];
    while (fgets(line, sizeof line, f)) {
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            ent_t *x = realloc(e, cap * sizeof *e);
            if (!x) break;
            e = x;
        }
        char a[1024], b[1024];
        long num;
        int k = sscanf(line, "%ld %d %15s %1023s %1023s", &num, &e[n].pid, e[n].kind, a, b);
        if (k < 4) continue;
        cs__test_canon(a, e[n].a, sizeof e[n].a);
        if (k == 5) cs__test_canon(b, e[n].b, sizeof e[n].b);
        else e[n].b[0] = '\0';
        n++;
    }
    fclose(f);
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(e[i].kind, "rename") != 0) continue;
        ++*renames;
        /* Before: an fsync of the old name, no write to it after that. */
        int ok = 0;
        for (size_t j = i; j-- > 0;) {
            if (e[j].pid != e[i].pid || strcmp(e[j].a, e[i].a) != 0) continue;
            if (strcmp(e[j].kind, "fsync") == 0) ok = 1;
            break;
        }
        if (!ok) {
            fprintf(stderr, "publish log: call %zu renames %s to %s without an fsync of it after its last write\n",
                    i + 1, e[i].a, e[i].b);
            bad++;
        }
        /* After: at once an fsync of the new name's directory. */
        char dir[1024];
        const char *sl = strrchr(e[i].b, '/');
        snprintf(dir, sizeof dir, "%.*s", sl && sl != e[i].b ? (int)(sl - e[i].b) : 1, sl ? e[i].b : "/");
        size_t nx = i + 1;
        while (nx < n && e[nx].pid != e[i].pid) nx++;
        if (nx >= n || strcmp(e[nx].kind, "fsync") != 0 || strcmp(e[nx].a, dir) != 0) {
            fprintf(stderr, "publish log: call %zu renames %s to %s; the next call is not an fsync of %s\n", i + 1,
                    e[i].a, e[i].b, dir);
            bad++;
        }
    }
    free(e);
    return bad;
}

int cs_test_finish(const char *suite, const char *dir)
{
    if (cs_test_fail == 0) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) fprintf(stderr, "%s: could not remove %s\n", suite, dir);
    } else {
        fprintf(stderr, "files kept in %s\n", dir);
    }
    return cs_test_done(suite);
}

uint64_t cs_test_size(const char *what, uint64_t full, uint64_t small)
{
    const char *e = getenv("CS_TEST_SMALL");
    if (!e || !*e || strcmp(e, "0") == 0) return full;
    printf("  CS_TEST_SMALL: %s %llu (full size %llu)\n", what, (unsigned long long)small,
           (unsigned long long)full);
    return small;
}

const char *cs_test_tmpdir(void)
{
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

unsigned char *cs_test_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) b[len] = 0;
    *n = len >= 0 ? (size_t)len : 0;
    return b;
}

int cs_test_spit(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(b, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

int cs_test_run_seed(const char *txt, const char *mech, uint64_t seed, struct cs_run_stats *st)
{
    cs_scenario_t *sc = NULL;
    cs_errlist_t e = {0};
    int rc = cs_scenario_load(txt, strlen(txt), NULL, 0, &sc, &e);
    for (size_t i = 0; rc != CS_OK && i < e.n; i++) fprintf(stderr, "  %s\n", e.msg[i]);
    cs_errlist_free(&e);
    if (rc != CS_OK) return rc;
    cs_engine_t *en = NULL;
    cs_sim_opts_t o;
    memset(&o, 0, sizeof o);
    o.seed = seed;
    char err[256];
    rc = cs_sim_init(&en, sc, mech, &o, err, sizeof err);
    if (rc == CS_OK) {
        while ((rc = cs_sim_step(en)) == CS_OK) {
        }
        int done = cs_sim_done(en, rc == CS_EINTERRUPTED, st);
        rc = rc == CS_EINTERRUPTED ? done : rc == CS_OK ? CS_EINVAL : rc;
    } else {
        fprintf(stderr, "  cs_sim_init: %s\n", err);
    }
    cs_scenario_free(sc);
    return rc;
}

cs_engine_t *cs_test_engine_text(const char *text, const char *mech, const char *path, cs_scenario_t **scn_out)
{
    cs_scenario_t *scn = NULL;
    cs_errlist_t errs = {0};
    int rc = cs_scenario_load(text, strlen(text), NULL, 0, &scn, &errs);
    for (size_t i = 0; i < errs.n; i++) fprintf(stderr, "scenario: %s\n", errs.msg[i]);
    cs_errlist_free(&errs);
    if (rc != CS_OK) return NULL;
    cs_sim_opts_t opts;
    memset(&opts, 0, sizeof opts);
    opts.out_path = path;
    opts.seed = scn->seed;
    cs_engine_t *e = NULL;
    char err[512];
    rc = cs_sim_init(&e, scn, mech, &opts, err, sizeof err);
    if (rc != CS_OK) {
        fprintf(stderr, "init: %s\n", err);
        cs_scenario_free(scn);
        return NULL;
    }
    *scn_out = scn;
    return e;
}

const char *cs_test_flood_scenario(char *buf, size_t n, const char *name, unsigned blocks)
{
    snprintf(buf, n,
             "{\"name\": \"%s\", \"seed\": 2611, \"blocks\": %u, \"mechanism\": \"eip1559\","
             " \"params\": {\"lane_timer_cycles\": 3003000, \"max_cycles_per_fire\": 21000,"
             "  \"target_utilisation\": 0.5, \"w_min\": 1, \"w_max\": 1},"
             " \"agents\": [{\"kind\": \"affine_user\", \"count\": 300, \"balance\": \"1000000000000000000000000\","
             "  \"value_aware\": false, \"params\": {\"rate\": 1,"
             "   \"value\": {\"dist\": \"uniform\", \"min\": 0, \"max\": 4.2e14},"
             "   \"wait_cost\": {\"dist\": \"uniform\", \"min\": 0, \"max\": 2.1e13}, \"expected_wait\": 5,"
             "   \"fixed_tip\": 1e9, \"gas_limit\": 21000, \"cycles_frac\": {\"dist\": \"constant\", \"value\": 1},"
             "   \"cycles_jitter\": 0}}],"
             " \"output\": {\"fires\": \"all\"}}",
             name, blocks);
    return buf;
}

int cs_test_run_text(const char *text, const char *mech, const char *path, struct cs_run_stats *st)
{
    cs_scenario_t *scn = NULL;
    cs_engine_t *e = cs_test_engine_text(text, mech, path, &scn);
    if (e == NULL) return -1;
    int rc;
    while ((rc = cs_sim_step(e)) == CS_OK) {
    }
    cs_run_stats_t own;
    int drc = cs_sim_done(e, rc == CS_EINTERRUPTED, st ? st : &own);
    cs_scenario_free(scn);
    return drc == CS_OK && rc == CS_EINTERRUPTED ? 0 : -1;
}

int cs_test_cli_quiet(int argc, char **argv) { return cs_test_cli_out("/dev/null", argc, argv); }

int cs_test_cli_out(const char *path, int argc, char **argv)
{
    fflush(stdout);
    int saved = dup(1), nul = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (nul >= 0) dup2(nul, 1);
    int rc = cs_cli_main(argc, argv);
    fflush(stdout);
    if (saved >= 0) {
        dup2(saved, 1);
        close(saved);
    }
    if (nul >= 0) close(nul);
    return rc;
}

int cs_test_fake_gnuplot(const char *dir)
{
    const char *fake = getenv("CS_FAKEGP");
    if (!fake || !*fake) return -1;
    char bin[600], gp[620], path[8192];
    snprintf(bin, sizeof bin, "%s/bin", dir);
    mkdir(bin, 0755);
    snprintf(gp, sizeof gp, "%s/gnuplot", bin);
    unlink(gp);
    if (symlink(fake, gp) != 0) return -1;
    const char *old = getenv("PATH");
    snprintf(path, sizeof path, "%s:%s", bin, old ? old : "/usr/bin:/bin");
    return setenv("PATH", path, 1);
}

char *cs_test_datasets(const char *path, size_t *n)
{
    int err;
    cs_h5_reader_t *r = cs_h5_open_read(path, &err);
    if (!r) return NULL;
    size_t len = 0;
    char *all = NULL;
    for (int ds = 0; ds < CS_H5_NDS; ds++) {
        void *rows = NULL;
        size_t nr = 0;
        if (cs_h5_read_all(r, (cs_h5_ds)ds, &rows, &nr) != CS_OK) {
            free(all);
            cs_h5_close_read(r);
            return NULL;
        }
        size_t b = nr * cs_h5_ds_row_size((cs_h5_ds)ds);
        char *na = realloc(all, len + b + 8);
        if (!na) {
            free(rows);
            free(all);
            cs_h5_close_read(r);
            return NULL;
        }
        all = na;
        memcpy(all + len, &nr, 8);
        if (b) memcpy(all + len + 8, rows, b);
        len += b + 8;
        free(rows);
    }
    cs_h5_close_read(r);
    *n = len;
    return all;
}
