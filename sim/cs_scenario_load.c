/*
 * cs_scenario_load.c -- scenario JSON loading: cs_scenario_load,
 * cs_scenario_load_file and cs_scenario_free (DESIGN §5 "Scenario JSON").
 *
 * Loading runs in four stages, each bounded before anything is allocated
 * from what the input claims:
 *   1. size and byte checks on the raw text (at most CS__MAX_TEXT bytes,
 *      no NUL byte), then a scan of the raw text for the nesting depth
 *      (at most CS__MAX_DEPTH), so no later walk can recurse deeply;
 *   2. cJSON parses the text;
 *   3. each --set PATH=VALUE is checked against the scenario format and
 *      applied to the tree (cs_scenario_set.c);
 *   4. one walk validates the tree and fills cs_scenario_t
 *      (cs_scenario_validate.c and the pieces it calls).  It never
 *      stops at the first problem: every error goes to the caller's
 *      cs_errlist_t as "JSON.path: constraint", and the scenario is only
 *      returned when the list stayed empty.
 */
#include "cs_scenario_int.h"
#include "cs_json_guard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------ raw text checks */

/* One open container in the depth scan. */
typedef struct cs__frame {
    int obj;        /* 1 object, 0 list */
    size_t idx;     /* list: index of the current element */
    char key[72];   /* object: the current key (cleaned, cut) */
} cs__frame_t;

/*
 * Scan the raw text for the nesting depth before any parse or walk.  At
 * the first container opened deeper than CS__MAX_DEPTH, report its JSON
 * path and return -1.  Malformed text is left to the parser.
 */
static int cs__depth_scan(const char *t, size_t len, cs_errlist_t *e)
{
    cs__frame_t fr[CS__MAX_DEPTH];
    size_t d = 0;
    int expect_key = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = t[i];
        if (ch == '"') {
            size_t j = i + 1;
            while (j < len && t[j] != '"') j += t[j] == '\\' ? 2 : 1;
            if (d > 0 && fr[d - 1].obj && expect_key) {
                char raw[72];
                size_t n = CS_MIN(j - i - 1, sizeof raw - 1);
                if (j > len) n = 0;
                memcpy(raw, t + i + 1, n);
                raw[n] = '\0';
                cs__clean(raw, fr[d - 1].key, sizeof fr[d - 1].key);
                expect_key = 0;
            }
            i = j;
            continue;
        }
        if (ch == '{' || ch == '[') {
            if (d == CS__MAX_DEPTH) {
                char path[CS__MAX_DEPTH * 80 + 8];
                size_t pl = 0;
                path[0] = '\0';
                for (size_t k = 0; k < d; k++) {
                    int r = fr[k].obj ? snprintf(path + pl, sizeof path - pl, "%s%s", pl ? "." : "", fr[k].key)
                                      : snprintf(path + pl, sizeof path - pl, "[%zu]", fr[k].idx);
                    if (r < 0 || (size_t)r >= sizeof path - pl) break;
                    pl += (size_t)r;
                }
                cs_errlist_add(e, "%s: nesting depth exceeds the limit of %d", pl ? path : "$", CS__MAX_DEPTH);
                return -1;
            }
            fr[d].obj = ch == '{';
            fr[d].idx = 0;
            fr[d].key[0] = '\0';
            d++;
            expect_key = ch == '{';
        } else if (ch == '}' || ch == ']') {
            if (d > 0) d--;
            expect_key = 0;
        } else if (ch == ',' && d > 0) {
            if (fr[d - 1].obj) expect_key = 1;
            else fr[d - 1].idx++;
        }
    }
    return 0;
}

/* Line and column (1-based) of byte offset off in t. */
static void cs__linecol(const char *t, size_t off, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (t[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* ------------------------------------------------------------ load / free */

/*
 * Parse, override, validate.  See cs_scenario.h.  Errors already in errs
 * are kept; the result depends only on the errors this call adds.
 */
int cs_scenario_load(const char *json_text, size_t len, const char *const *sets, size_t n_sets,
                     cs_scenario_t **out, cs_errlist_t *errs)
{
    *out = NULL;
    size_t n0 = errs->n, lost0 = errs->lost;
    if (len > CS__MAX_TEXT) {
        cs_errlist_add(errs, "$: %zu bytes exceed the limit of %u bytes", len, CS__MAX_TEXT);
        return CS_EINVAL;
    }
    const char *nul = memchr(json_text, '\0', len);
    if (nul != NULL) {
        cs_errlist_add(errs, "$: NUL byte at offset %zu", (size_t)(nul - json_text));
        return CS_EPARSE;
    }
    if (cs__depth_scan(json_text, len, errs) != 0) return CS_EPARSE;
    char nulmsg[160];
    if (cs_json_nul_check(json_text, len, nulmsg, sizeof nulmsg) != 0) {
        cs_errlist_add(errs, "$: %s", nulmsg);
        return CS_EPARSE;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json_text, len, &end, 0);
    if (root != NULL) {
        while (end < json_text + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) end++;
        if (end < json_text + len) {
            size_t line, col;
            cs__linecol(json_text, (size_t)(end - json_text), &line, &col);
            cs_errlist_add(errs, "$: unexpected text after the JSON value at line %zu, column %zu", line, col);
            cJSON_Delete(root);
            return CS_EPARSE;
        }
    } else {
        size_t off = end && end >= json_text && end <= json_text + len ? (size_t)(end - json_text) : 0;
        size_t line, col;
        cs__linecol(json_text, off, &line, &col);
        if (len == 0) cs_errlist_add(errs, "$: empty document");
        else cs_errlist_add(errs, "$: malformed JSON at line %zu, column %zu", line, col);
        return CS_EPARSE;
    }
    for (size_t i = 0; i < n_sets; i++) {
        if (cs__apply_set(root, sets[i], errs) == CS_ENOMEM) {
            cJSON_Delete(root);
            return CS_ENOMEM;
        }
    }
    cs_scenario_t *s = calloc(1, sizeof *s);
    if (s == NULL) {
        cJSON_Delete(root);
        return CS_ENOMEM;
    }
    cs__defaults(s);
    if (n_sets > 0) {
        s->text = cJSON_PrintUnformatted(root);
    } else if ((s->text = malloc(len + 1)) != NULL) {
        memcpy(s->text, json_text, len);
        s->text[len] = '\0';
    }
    cs__ctx_t c = {errs, s, s->text == NULL, 0, 0};
    if (!c.oom) cs__top(&c, root);
    cJSON_Delete(root);
    if (c.oom || errs->lost > lost0) { /* an error whose message was lost is still an error */
        cs_scenario_free(s);
        return CS_ENOMEM;
    }
    if (errs->n > n0) {
        cs_scenario_free(s);
        return CS_EINVAL;
    }
    *out = s;
    return CS_OK;
}

/*
 * Read path (at most CS__MAX_TEXT bytes, checked on the file size before
 * reading, and again while reading for pipes) and load it.  I/O problems
 * return CS_EIO with a message that has no JSON path.
 */
int cs_scenario_load_file(const char *path, const char *const *sets, size_t n_sets, cs_scenario_t **out,
                          cs_errlist_t *errs)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        cs_errlist_add(errs, "cannot open: %s", strerror(errno));
        return CS_EIO;
    }
    struct stat st;
    size_t cap = 1 << 16;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        if ((uint64_t)st.st_size > CS__MAX_TEXT) {
            cs_errlist_add(errs, "file size %llu bytes exceeds the limit of %u bytes",
                           (unsigned long long)st.st_size, CS__MAX_TEXT);
            fclose(f);
            return CS_EINVAL;
        }
        cap = (size_t)st.st_size + 1;
    }
    char *buf = malloc(cap);
    size_t n = 0;
    int rc = CS_OK;
    while (buf != NULL) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n > CS__MAX_TEXT) {
            cs_errlist_add(errs, "more than %u bytes: exceeds the size limit", CS__MAX_TEXT);
            rc = CS_EINVAL;
            break;
        }
        if (n == cap) {
            size_t nc = cap * 2 > CS__MAX_TEXT + 2u ? CS__MAX_TEXT + 2u : cap * 2;
            char *nb = realloc(buf, nc);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap = nc;
        }
    }
    if (buf == NULL) {
        fclose(f);
        return CS_ENOMEM;
    }
    if (rc == CS_OK && ferror(f)) {
        cs_errlist_add(errs, "cannot read: %s", strerror(errno));
        rc = CS_EIO;
    }
    fclose(f);
    if (rc == CS_OK) rc = cs_scenario_load(buf, n, sets, n_sets, out, errs);
    free(buf);
    return rc;
}

/* Free a scenario and everything it owns; NULL is a no-op. */
void cs_scenario_free(cs_scenario_t *s)
{
    if (s == NULL) return;
    free(s->seed_list);
    free(s->name);
    free(s->text);
    if (s->agents) {
        for (size_t i = 0; i < s->n_agents; i++) {
            free(s->agents[i].deployer);
            free(s->agents[i].params);
            if (s->agents[i].dists)
                for (size_t k = 0; k < s->agents[i].ops->n_params; k++) cs_dist_clear(&s->agents[i].dists[k]);
            free(s->agents[i].dists);
            free(s->agents[i].strat);
            free(s->agents[i].strat_by);
            free(s->agents[i].strat_mech);
        }
        free(s->agents);
    }
    free(s->events);
    free(s->basefee_cycle.at_h);
    free(s->basefee_cycle.at_v);
    free(s->basefee_cell.at_h);
    free(s->basefee_cell.at_v);
    free(s->output.dir);
    free(s);
}
