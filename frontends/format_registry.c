/*
 * format_registry.c - the trace formats cachet reads, one line each. Order
 * breaks ties between equally confident probes.
 */
#include <string.h>

#include "frontend.h"

static const ct_format_ops *const formats[] = {
    &ct_format_din,
    &ct_format_tarmac,
    &ct_format_tracematcher,
    &ct_format_drmemtrace,
    &ct_format_gen,
    &ct_format_tt6,
    &ct_format_tt6e,
    &ct_format_vixl,
    &ct_format_ctr,
};

const ct_format_ops *ct_format_at(size_t i)
{
    return i < sizeof formats / sizeof formats[0] ? formats[i] : NULL;
}

const ct_format_ops *ct_format_find(const char *name)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(formats[i]->name, name) == 0)
            return formats[i];
    return NULL;
}
