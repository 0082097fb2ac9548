/*
 * cs_mech.c -- the mechanism registry and the ops-table wrappers.  The
 * helpers every mechanism shares are in cs_mech_int.c.  DESIGN §2.4,
 * STYLE §2-3.
 */
#include "cs_mech.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_mech_int.h"

/* STYLE §3: one NULL-terminated registry of every mechanism. */
const cs_mech_ops_t *const cs_mech_registry[] = {
    &cs__mech_fifo,
    &cs__mech_fifo_capped,
    &cs__mech_score,
    &cs__mech_bias_vcg,
    &cs__mech_bias_fp,
    &cs__mech_eip1559,
    &cs__mech_gbatip,
    &cs__mech_greedy,
    &cs__mech_slot_booking,
    &cs__mech_priority_classes,
    NULL,
};

static const char *const cs__why_names[] = {
    "none",  "budget", "cap",   "block_quota", "actor_quota",
    "funds", "below_basefee", "slice", "reserve",
};
CS_STATIC_ASSERT(sizeof cs__why_names / sizeof cs__why_names[0] == CS_WHY__COUNT,
                 "one name per cs_why");

/* Name of a cs_why value ("budget", "cap", ...); "unknown" when out of
 * range.  Never NULL. */
const char *cs_why_name(int why)
{
    if (why < 0 || why >= (int)CS_WHY__COUNT) return "unknown";
    return cs__why_names[why];
}

/* Registry entry called name, or NULL. */
const cs_mech_ops_t *cs_mech_find(const char *name)
{
    if (name == NULL) return NULL;
    for (size_t i = 0; cs_mech_registry[i] != NULL; i++)
        if (strcmp(cs_mech_registry[i]->name, name) == 0) return cs_mech_registry[i];
    return NULL;
}

/* Names retired by a rename, with the registry name that replaced them
 * (DESIGN-NOTES N42: the per-block greedy reference was `oracle`). */
static const char *const cs__renamed[][2] = {
    {"oracle", "greedy"},
};

/* The registry name that replaced a retired mechanism name, or NULL when
 * name was never renamed. */
const char *cs_mech_renamed(const char *name)
{
    for (size_t i = 0; name && i < sizeof cs__renamed / sizeof cs__renamed[0]; i++)
        if (strcmp(cs__renamed[i][0], name) == 0) return cs__renamed[i][1];
    return NULL;
}

/* cs_mech_find that also maps a retired name to its successor: for readers
 * of files written before a rename, never for scenarios or the CLI. */
const cs_mech_ops_t *cs_mech_find_any(const char *name)
{
    const char *now = cs_mech_renamed(name);
    return cs_mech_find(now ? now : name);
}

/* The parenthesis of an "unknown mechanism" message, into buf: "valid:
 * fifo, ..." or, for a retired name, "renamed 'greedy' (DESIGN-NOTES N42);
 * valid: fifo, ...".  Returns buf. */
char *cs_mech_unknown_hint(const char *name, char *buf, size_t cap)
{
    char names[512];
    const char *now = cs_mech_renamed(name);
    if (cap == 0) return buf;
    if (now) snprintf(buf, cap, "renamed '%s' (DESIGN-NOTES N42); valid: %s", now, cs_mech_names(names, sizeof names));
    else snprintf(buf, cap, "valid: %s", cs_mech_names(names, sizeof names));
    return buf;
}

/* Write "fifo, fifo-capped, ..." (registry order) into buf, truncating to
 * cap - 1 characters.  Returns buf. */
char *cs_mech_names(char *buf, size_t cap)
{
    size_t len = 0;
    if (cap == 0) return buf;
    buf[0] = '\0';
    for (size_t i = 0; cs_mech_registry[i] != NULL; i++) {
        const char *nm = cs_mech_registry[i]->name;
        const char *parts[2] = {i ? ", " : "", nm};
        for (int k = 0; k < 2; k++) {
            for (const char *s = parts[k]; *s && len + 1 < cap; s++) buf[len++] = *s;
        }
    }
    buf[len] = '\0';
    return buf;
}

/* Allocate the instance state (zeroed ops->state_size bytes) and run
 * init.  On failure nothing stays allocated and m is zeroed.  Returns CS_OK,
 * CS_EINVAL, CS_ENOMEM or init's error. */
int cs_mech_open(cs_mech_t *m, const cs_mech_ops_t *ops, const cs_params_t *p)
{
    if (m == NULL || ops == NULL || ops->clear == NULL || p == NULL) return CS_EINVAL;
    m->ops = NULL;
    m->state = calloc(1, ops->state_size ? ops->state_size : 1);
    if (m->state == NULL) return CS_ENOMEM;
    if (ops->init != NULL) {
        int rc = ops->init(m->state, p);
        if (rc != CS_OK) {
            if (ops->fini != NULL) ops->fini(m->state);
            free(m->state);
            m->state = NULL;
            return rc;
        }
    }
    m->ops = ops;
    return CS_OK;
}

/* Run fini and free the state.  Safe on a zeroed or already closed m. */
void cs_mech_close(cs_mech_t *m)
{
    if (m == NULL) return;
    if (m->ops != NULL && m->ops->fini != NULL && m->state != NULL) m->ops->fini(m->state);
    free(m->state);
    m->state = NULL;
    m->ops = NULL;
}

/* Clear one block.  The mechanism checks every candidate (cycles >= 1,
 * else CS_EINVAL), resets its output fields and runs; *out is zeroed here.
 * At most UINT32_MAX candidates.  Returns CS_OK, CS_EINVAL or the
 * mechanism's error (CS_ENOMEM when its workspace cannot grow); after an
 * error the output fields are unspecified. */
int cs_mech_clear(cs_mech_t *m, const cs_clear_ctx_t *ctx, cs_cand_t *c, size_t n,
                  cs_clear_out_t *out)
{
    if (m == NULL || m->ops == NULL || ctx == NULL || ctx->p == NULL || out == NULL ||
        (c == NULL && n > 0) || n > (size_t)UINT32_MAX)
        return CS_EINVAL;
    memset(out, 0, sizeof *out);
    return m->ops->clear(m->state, ctx, c, n, out);
}

/* Feedback after settlement (lambda loop, EMA weights); no-op when the
 * mechanism has no end_block hook. */
void cs_mech_end_block(cs_mech_t *m, const cs_clear_ctx_t *ctx, const cs_cand_t *c, size_t n,
                       const cs_clear_out_t *out)
{
    if (m == NULL || m->ops == NULL || m->ops->end_block == NULL) return;
    m->ops->end_block(m->state, ctx, c, n, out);
}
