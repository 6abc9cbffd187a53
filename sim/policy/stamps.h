/*
 * stamps.h - the state LRU and FIFO share (internal): one 64-bit stamp per
 * line from a running clock, 0 for an empty line; the victim is the way
 * with the oldest stamp, the lowest way on a tie. LRU stamps on fills and
 * hits, FIFO on fills only.
 */
#ifndef CT_POLICY_STAMPS_H
#define CT_POLICY_STAMPS_H

#include <stdint.h>
#include <stdlib.h>

typedef struct ct_stamps {
    uint32_t ways;
    uint64_t clock;
    uint64_t stamp[];   /* per line, set-major */
} ct_stamps;

static inline void *ct_stamps_create(uint64_t sets, uint32_t ways)
{
    ct_stamps *p = calloc(1, sizeof *p + sets * ways * sizeof p->stamp[0]);
    if (p)
        p->ways = ways;
    return p;
}

static inline void ct_stamps_now(void *st, uint64_t set, uint32_t way)
{
    ct_stamps *p = st;
    p->stamp[set * p->ways + way] = ++p->clock;
}

static inline void ct_stamps_clear(void *st, uint64_t set, uint32_t way)
{
    ct_stamps *p = st;
    p->stamp[set * p->ways + way] = 0;
}

static inline uint64_t ct_stamps_age(void *st, uint64_t set, uint32_t way)
{
    const ct_stamps *p = st;
    return p->stamp[set * p->ways + way];
}

static inline uint32_t ct_stamps_oldest(void *st, uint64_t set)
{
    const ct_stamps *p = st;
    const uint64_t *s = &p->stamp[set * p->ways];
    uint32_t best = 0;

    for (uint32_t w = 1; w < p->ways; w++)
        if (s[w] < s[best])
            best = w;
    return best;
}

#endif
