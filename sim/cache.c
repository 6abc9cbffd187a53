/*
 * cache.c - creating and freeing one tag array (access code is in cache.h
 * and hier.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cache.h"

static uint32_t fp_stride(uint32_t assoc)
{
    return assoc == 1 ? 0 : (assoc + 7) & ~7u;
}

uint64_t ct_cache_bytes(uint64_t size, uint32_t assoc, uint32_t line)
{
    const uint64_t lines = size / line;
    return lines * 9 + lines / assoc * fp_stride(assoc);
}

int ct_cache_init(ct_cache *c, uint64_t size, uint32_t assoc, uint32_t line,
                  const ct_policy_ops *pol, uint64_t seed)
{
    uint64_t lines = size / line;

    memset(c, 0, sizeof *c);
    assert(line && (line & (line - 1)) == 0 && assoc && lines % assoc == 0);
    c->ways = assoc;
    c->sets = lines / assoc;
    c->set_pow2 = (c->sets & (c->sets - 1)) == 0;
    c->set_mask = c->sets - 1;
    c->fp_stride = fp_stride(assoc);
    while ((1u << c->line_bits) < line)
        c->line_bits++;
    c->pol = pol;
    c->memo_ok = pol->rehit_idempotent;
    c->memo_block = c->prev_block = CT_TAG_INVALID;
    c->tag = malloc(lines * sizeof *c->tag);
    c->flag = calloc(lines, 1);
    if (c->fp_stride)
        c->fp = calloc(c->sets, c->fp_stride);  /* 0: no line, never a candidate */
    if (pol == &ct_policy_lru && assoc <= CT_LRU_ORDER_WAYS) {
        /* every set starts with the order W-1 .. 1 0: way 0 is filled first */
        uint32_t first = 0;
        for (uint32_t i = 0; i < assoc; i++)
            first |= (assoc - 1 - i) << (4 * i);
        c->lru_order = malloc(c->sets * sizeof *c->lru_order);
        for (uint64_t s = 0; c->lru_order && s < c->sets; s++)
            c->lru_order[s] = first;
    } else {
        c->pst = pol->create(c->sets, assoc, seed);
    }
    if (!c->tag || !c->flag || (c->fp_stride && !c->fp) || (!c->pst && !c->lru_order)) {
        ct_cache_free(c);
        return -1;
    }
    memset(c->tag, 0xff, lines * sizeof *c->tag);
    if (pol == &ct_policy_lru && c->pst)
        c->lru_stamp = ct_policy_lru_state(c->pst);
    return 0;
}

void ct_cache_order_rebuild(ct_cache *c, uint64_t set)
{
    const uint64_t base = set * c->ways;
    const uint32_t old = c->lru_order[set];
    uint32_t order = 0;
    uint32_t k = 0;

    /* the ways holding lines keep their order; the others follow, lowest last */
    for (uint32_t i = 0; i < c->ways; i++) {
        const uint32_t way = (old >> (4 * i)) & 15;
        if (c->tag[base + way] != CT_TAG_INVALID)
            order |= way << (4 * k++);
    }
    for (uint32_t way = c->ways; way-- > 0;)
        if (c->tag[base + way] == CT_TAG_INVALID)
            order |= way << (4 * k++);
    c->lru_order[set] = order;
}

void ct_cache_free(ct_cache *c)
{
    free(c->tag);
    free(c->lru_order);
    free(c->flag);
    free(c->fp);
    if (c->pst)
        c->pol->destroy(c->pst);
    memset(c, 0, sizeof *c);
}
