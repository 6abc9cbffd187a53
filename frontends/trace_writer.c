/*
 * trace_writer.c - the writer registry and the public writer calls.
 */
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

static const ct_writer_ops *const writers[] = {
    &ct_writer_din,
    &ct_writer_tt6,
    &ct_writer_tt6e,
    &ct_writer_ctr,
    &ct_writer_ctr_raw,
    &ct_writer_tarmac,
};

struct ct_trace_writer {
    const ct_writer_ops *ops;
    void *st;
    uint64_t dropped;
};

const char *ct_trace_writer_name(size_t i, const char **desc)
{
    if (i >= sizeof writers / sizeof writers[0])
        return NULL;
    if (desc)
        *desc = writers[i]->desc;
    return writers[i]->name;
}

int ct_trace_writer_open(ct_trace_writer **out, const char *format, ct_writer *w, ct_error *err)
{
    ct_trace_writer *tw;
    int rc;

    *out = NULL;
    for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) {
        if (strcmp(writers[i]->name, format) != 0)
            continue;
        tw = calloc(1, sizeof *tw);
        if (!tw)
            return ct_error_set(err, CT_E_NOMEM, "out of memory");
        tw->ops = writers[i];
        rc = tw->ops->open(&tw->st, w, err);
        if (rc) {
            free(tw);
            return rc;
        }
        *out = tw;
        return CT_OK;
    }
    return ct_error_set(err, CT_E_USAGE, "cannot write format \"%s\"", format);
}

int ct_trace_writer_put(ct_trace_writer *tw, const ct_batch *b, ct_error *err)
{
    return tw->ops->put(tw->st, b, &tw->dropped, err);
}

int ct_trace_writer_set_names(ct_trace_writer *tw, const char *const *names, uint32_t n,
                              ct_error *err)
{
    return tw->ops->names ? tw->ops->names(tw->st, names, n, err) : CT_OK;
}

int ct_trace_writer_finish(ct_trace_writer *tw, ct_error *err)
{
    int rc;
    if (!tw)
        return CT_OK;
    rc = tw->ops->finish(tw->st, err);
    free(tw);
    return rc;
}

uint64_t ct_trace_writer_dropped(const ct_trace_writer *tw) { return tw->dropped; }
