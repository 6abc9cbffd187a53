/*
 * none.c - no hardware prefetching; the template for a new prefetcher.
 */
#include <stddef.h>

#include "../policy.h"

static void *none_create(const ct_prefetch_params *p)
{
    (void)p;
    return (void *)&ct_prefetch_none; /* no state; any non-NULL pointer */
}

static void none_destroy(void *st) { (void)st; }

static uint32_t none_observe(void *st, uint64_t block, uint64_t pc, int kind,
                             int seen, uint64_t *out, uint32_t max)
{
    (void)st; (void)block; (void)pc; (void)kind; (void)seen; (void)out; (void)max;
    return 0;
}

const ct_prefetch_ops ct_prefetch_none = {
    .name = "none",
    .help = "no hardware prefetching",
    .create = none_create, .destroy = none_destroy, .observe = none_observe,
};
