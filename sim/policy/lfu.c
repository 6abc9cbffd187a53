/*
 * lfu.c - least frequently used: a fill sets the line's count to 1, every
 * hit adds 1 (saturating); the victim is the way with the smallest count,
 * the lowest way on a tie. Counts are not aged.
 */
#include <stdlib.h>

#include "../policy.h"

typedef struct lfu {
    uint32_t ways;
    uint32_t count[];
} lfu;

static void *lfu_create(uint64_t sets, uint32_t ways, uint64_t seed)
{
    lfu *p = calloc(1, sizeof *p + sets * ways * sizeof p->count[0]);

    (void)seed;
    if (p)
        p->ways = ways;
    return p;
}

static void lfu_destroy(void *st) { free(st); }

static void lfu_hit(void *st, uint64_t set, uint32_t way)
{
    lfu *p = st;
    uint32_t *c = &p->count[set * p->ways + way];
    if (*c != UINT32_MAX)
        (*c)++;
}

static void lfu_fill(void *st, uint64_t set, uint32_t way)
{
    lfu *p = st;
    p->count[set * p->ways + way] = 1;
}

static void lfu_inval(void *st, uint64_t set, uint32_t way)
{
    lfu *p = st;
    p->count[set * p->ways + way] = 0;
}

static uint32_t lfu_victim(void *st, uint64_t set)
{
    const lfu *p = st;
    const uint32_t *c = &p->count[set * p->ways];
    uint32_t best = 0;

    for (uint32_t w = 1; w < p->ways; w++)
        if (c[w] < c[best])
            best = w;
    return best;
}

const ct_policy_ops ct_policy_lfu = {
    .name = "lfu",
    .help = "least frequently used (no ageing, lowest way on ties)",
    .create = lfu_create, .destroy = lfu_destroy,
    .hit = lfu_hit, .fill = lfu_fill, .inval = lfu_inval,
    .victim = lfu_victim,
    .rehit_idempotent = 0,
};
