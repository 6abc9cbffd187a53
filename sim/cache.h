/*
 * cache.h - one set-associative tag array (internal).
 *
 * Flat and set-major: line i of set s is tag[s * ways + i]. A tag holds the
 * whole block number (address >> line_bits), so power-of-two and modulo set
 * indexing compare the same way; an empty line holds CT_TAG_INVALID, never 0.
 * Geometry was checked by the configuration: this code only asserts.
 */
#ifndef CT_CACHE_H
#define CT_CACHE_H

#include <assert.h>
#include <stdint.h>

#include "compiler.h"
#include "policy.h"

#define CT_TAG_INVALID UINT64_MAX

enum ct_line_flag {
    CT_LF_DIRTY = 0x01,      /* written since it was filled or cleaned */
    CT_LF_PREFETCHED = 0x02, /* filled by a hardware prefetch, not yet used */
    CT_LF_NS = 0x04          /* filled by a non-secure access */
};

typedef struct ct_cache {
    uint64_t *tag;            /* sets * ways block numbers */
    uint8_t *flag;            /* sets * ways enum ct_line_flag */
    uint64_t sets;
    uint64_t set_mask;        /* sets - 1 when sets is a power of two */
    int set_pow2;             /* chosen once at creation */
    uint32_t ways;
    uint32_t line_bits;
    const ct_policy_ops *pol;
    void *pst;
    uint64_t *lru_stamp;      /* LRU only: the policy's stamps, updated inline */
    uint64_t *lru_clock;
    int memo_ok;              /* policy lets repeated hits skip it */
    uint64_t memo_block;      /* block of the last hit */
    uint64_t memo_idx;        /* its line index */
} ct_cache;

/* Allocate the arrays and the policy state. Returns 0 or -1 (no memory). */
int ct_cache_init(ct_cache *c, uint64_t size, uint32_t assoc, uint32_t line,
                  const ct_policy_ops *pol, uint64_t seed);
void ct_cache_free(ct_cache *c);

FORCE_INLINE uint64_t ct_cache_set(const ct_cache *c, uint64_t block)
{
    return c->set_pow2 ? block & c->set_mask : block % c->sets;
}

/* Line index holding block in set, or -1. */
FORCE_INLINE int64_t ct_cache_find(const ct_cache *c, uint64_t set, uint64_t block)
{
    const uint64_t *t = &c->tag[set * c->ways];
    for (uint32_t w = 0; w < c->ways; w++)
        if (t[w] == block)
            return (int64_t)(set * c->ways + w);
    return -1;
}

/* Line index for a new block in set: the first empty way, else the policy's
 * victim (which the caller must evict first). With LRU both are the line
 * with the smallest stamp (empty lines have stamp 0), found in one pass. */
FORCE_INLINE uint64_t ct_cache_slot(ct_cache *c, uint64_t set)
{
    const uint64_t base = set * c->ways;
    if (c->lru_stamp) {
        const uint64_t *st = &c->lru_stamp[base];
        uint32_t best = 0;
        for (uint32_t w = 1; w < c->ways; w++)
            if (st[w] < st[best])
                best = w;
        return base + best;
    }
    for (uint32_t w = 0; w < c->ways; w++)
        if (c->tag[base + w] == CT_TAG_INVALID)
            return base + w;
    return base + c->pol->victim(c->pst, set);
}

/* The policy hooks, with LRU inlined. */
FORCE_INLINE void ct_cache_touch(ct_cache *c, uint64_t set, uint64_t idx)
{
    if (c->lru_stamp)
        c->lru_stamp[idx] = ++*c->lru_clock;
    else
        c->pol->hit(c->pst, set, (uint32_t)(idx - set * c->ways));
}

FORCE_INLINE void ct_cache_filled(ct_cache *c, uint64_t set, uint64_t idx)
{
    if (c->lru_stamp)
        c->lru_stamp[idx] = ++*c->lru_clock;
    else
        c->pol->fill(c->pst, set, (uint32_t)(idx - set * c->ways));
}

#endif
