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
    c->memo_block = CT_TAG_INVALID;
    c->tag = malloc(lines * sizeof *c->tag);
    c->flag = calloc(lines, 1);
    if (c->fp_stride)
        c->fp = calloc(c->sets, c->fp_stride);  /* 0: no line, never a candidate */
    if (pol == &ct_policy_lru && assoc <= CT_LRU_MATRIX_WAYS)
        c->lru_matrix = calloc(c->sets, sizeof *c->lru_matrix); /* every way empty */
    else
        c->pst = pol->create(c->sets, assoc, seed);
    if (!c->tag || !c->flag || (c->fp_stride && !c->fp) || (!c->pst && !c->lru_matrix)) {
        ct_cache_free(c);
        return -1;
    }
    memset(c->tag, 0xff, lines * sizeof *c->tag);
    if (pol == &ct_policy_lru && c->pst)
        c->lru_stamp = ct_policy_lru_state(c->pst);
    return 0;
}

void ct_cache_matrix_drop(ct_cache *c, uint64_t set, uint64_t idx)
{
    const uint64_t base = set * c->ways;
    const uint32_t way = (uint32_t)(idx - base);
    uint64_t holding = 0, m = c->lru_matrix[set];

    /* every way that holds a line is more recent than the dropped one; the
     * empty ways keep zero rows, so the lowest of them is the next victim */
    for (uint32_t w = 0; w < c->ways; w++)
        if (c->tag[base + w] != CT_TAG_INVALID && w != way)
            holding |= 0xffull << (8 * w);
    m |= (0x0101010101010101ull << way) & holding;
    m &= ~(0xffull << (8 * way));
    c->lru_matrix[set] = m;
}

void ct_cache_free(ct_cache *c)
{
    free(c->tag);
    free(c->lru_matrix);
    free(c->flag);
    free(c->fp);
    if (c->pst)
        c->pol->destroy(c->pst);
    memset(c, 0, sizeof *c);
}
