/*
 * fifo.c - first in, first out: the victim is the way filled longest ago.
 * Hits change nothing. The smallest policy, and the template for new ones.
 */
#include <stdlib.h>

#include "../policy.h"

typedef struct fifo {
    uint32_t ways;
    uint64_t clock;
    uint64_t stamp[];   /* fill time per line, set-major */
} fifo;

static void *fifo_create(uint64_t sets, uint32_t ways, uint64_t seed)
{
    fifo *p = calloc(1, sizeof *p + sets * ways * sizeof p->stamp[0]);

    (void)seed;
    if (p)
        p->ways = ways;
    return p;
}

static void fifo_destroy(void *st) { free(st); }

static void fifo_hit(void *st, uint64_t set, uint32_t way)
{
    (void)st; (void)set; (void)way;
}

static void fifo_fill(void *st, uint64_t set, uint32_t way)
{
    fifo *p = st;
    p->stamp[set * p->ways + way] = ++p->clock;
}

static void fifo_inval(void *st, uint64_t set, uint32_t way)
{
    fifo *p = st;
    p->stamp[set * p->ways + way] = 0;
}

static uint32_t fifo_victim(void *st, uint64_t set)
{
    const fifo *p = st;
    const uint64_t *s = &p->stamp[set * p->ways];
    uint32_t best = 0;

    for (uint32_t w = 1; w < p->ways; w++)
        if (s[w] < s[best])
            best = w;
    return best;
}

const ct_policy_ops ct_policy_fifo = {
    .name = "fifo",
    .help = "first in, first out",
    .create = fifo_create, .destroy = fifo_destroy,
    .hit = fifo_hit, .fill = fifo_fill, .inval = fifo_inval,
    .victim = fifo_victim,
    .rehit_idempotent = 1,
};
