/* cs_params.c -- the parameter table generated from CS_PARAM_MAP. */
#include "cs_params.h"

#include <string.h>

const cs_param_desc_t cs_param_table[] = {
#define CS__PDESC(name, kind, scale, mn, mx, def, ch, doc)                                         \
    {#name, CS_PK_##kind, (uint64_t)(scale), (uint64_t)(mn), (uint64_t)(mx), (uint64_t)(def), ch, \
     doc, offsetof(cs_params_t, name)},
    CS_PARAM_MAP(CS__PDESC)
#undef CS__PDESC
};

const size_t cs_param_count = sizeof cs_param_table / sizeof cs_param_table[0];

void cs_params_default(cs_params_t *p)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < cs_param_count; i++) {
        const cs_param_desc_t *d = &cs_param_table[i];
        char *f = (char *)p + d->offset;
        switch (d->kind) {
        case CS_PK_U64:
        case CS_PK_FP: {
            uint64_t v = d->def;
            memcpy(f, &v, sizeof v);
            break;
        }
        case CS_PK_ENUM: {
            uint32_t v = (uint32_t)d->def;
            memcpy(f, &v, sizeof v);
            break;
        }
        case CS_PK_U128: {
            cs_u128 v = d->def;
            memcpy(f, &v, sizeof v);
            break;
        }
        }
    }
}

const cs_param_desc_t *cs_param_find(const char *name)
{
    for (size_t i = 0; i < cs_param_count; i++)
        if (strcmp(cs_param_table[i].name, name) == 0) return &cs_param_table[i];
    return NULL;
}

int cs_param_choice(const cs_param_desc_t *d, const char *word)
{
    if (d->choices == NULL) return -1;
    const char *s = d->choices;
    size_t wl = strlen(word);
    for (int i = 0; *s; i++) {
        const char *e = strchr(s, '|');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (l == wl && strncmp(s, word, l) == 0) return i;
        if (!e) break;
        s = e + 1;
    }
    return -1;
}

const char *cs_param_choice_name(const cs_param_desc_t *d, uint32_t i, char *buf, size_t cap)
{
    const char *s = d->choices;
    if (cap == 0) return buf; /* no room, not even for the NUL */
    buf[0] = '\0';
    if (s == NULL) return buf;
    for (uint32_t k = 0; *s; k++) {
        const char *e = strchr(s, '|');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (k == i) {
            if (l >= cap) l = cap - 1;
            memcpy(buf, s, l);
            buf[l] = '\0';
            return buf;
        }
        if (!e) break;
        s = e + 1;
    }
    return buf;
}
