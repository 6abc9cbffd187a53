/*
 * lru.c - least recently used: every hit and fill stamps the line with a
 * running clock; the victim is the way with the oldest stamp (the lowest
 * way on a tie, which only happens before the set has been filled).
 */
#include <stdlib.h>

#include "../policy.h"

typedef struct lru {
    uint32_t ways;
    uint64_t clock;
    uint64_t stamp[];   /* last use per line, set-major */
} lru;

static void *lru_create(uint64_t sets, uint32_t ways, uint64_t seed)
{
    lru *p = calloc(1, sizeof *p + sets * ways * sizeof p->stamp[0]);

    (void)seed;
    if (p)
        p->ways = ways;
    return p;
}

static void lru_destroy(void *st) { free(st); }

static void lru_touch(void *st, uint64_t set, uint32_t way)
{
    lru *p = st;
    p->stamp[set * p->ways + way] = ++p->clock;
}

static void lru_inval(void *st, uint64_t set, uint32_t way)
{
    lru *p = st;
    p->stamp[set * p->ways + way] = 0;
}

static uint32_t lru_victim(void *st, uint64_t set)
{
    const lru *p = st;
    const uint64_t *s = &p->stamp[set * p->ways];
    uint32_t best = 0;

    for (uint32_t w = 1; w < p->ways; w++)
        if (s[w] < s[best])
            best = w;
    return best;
}

void ct_policy_lru_state(void *st, uint64_t **stamp, uint64_t **clock)
{
    lru *p = st;
    *stamp = p->stamp;
    *clock = &p->clock;
}

const ct_policy_ops ct_policy_lru = {
    .name = "lru",
    .help = "least recently used",
    .create = lru_create, .destroy = lru_destroy,
    .hit = lru_touch, .fill = lru_touch, .inval = lru_inval,
    .victim = lru_victim,
    .rehit_idempotent = 1,
};
