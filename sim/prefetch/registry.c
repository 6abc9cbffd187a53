/*
 * registry.c - the hardware prefetchers cachet knows, one line each.
 */
#include "../compiler.h"
#include "../policy.h"

static const ct_prefetch_ops *const prefetchers[] = {
    &ct_prefetch_none,
    &ct_prefetch_nextline,
    &ct_prefetch_stride,
    &ct_prefetch_stream,
    &ct_prefetch_always,
    &ct_prefetch_miss,
    &ct_prefetch_tagged,
    &ct_prefetch_loadforw,
    &ct_prefetch_subblock,
};

const ct_prefetch_ops *ct_prefetch_at(size_t i)
{
    return i < CT_ARRAY_LEN(prefetchers) ? prefetchers[i] : NULL;
}

const char *ct_prefetch_name_at(size_t i)
{
    return i < CT_ARRAY_LEN(prefetchers) ? prefetchers[i]->name : NULL;
}
