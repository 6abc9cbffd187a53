/*
 * sim_sets.h - for the unit tests of the model: a hierarchy from
 * "section.key=value" settings on an empty configuration.
 */
#ifndef CT_SIM_SETS_H
#define CT_SIM_SETS_H

#include <stdio.h>

#include "cachet/cachet.h"

/* The model of the settings (a NULL-terminated list), or NULL with the
 * reason on stderr. */
static ct_sim *make(const char *const *sets)
{
    ct_config *cfg = NULL;
    ct_sim *s = NULL;
    ct_error err = {0};
    if (ct_config_new_empty(&cfg, &err) != CT_OK)
        return NULL;
    for (size_t i = 0; sets[i]; i++)
        if (ct_config_set(cfg, sets[i], &err) != CT_OK) {
            fprintf(stderr, "%s\n", err.msg);
            ct_config_free(cfg);
            return NULL;
        }
    if (ct_sim_create(&s, cfg, &err) != CT_OK)
        fprintf(stderr, "%s\n", err.msg);
    ct_config_free(cfg);
    return s;
}

#endif
