/*
 * cache.c - creating and freeing one tag array (access code is in cache.h
 * and hier.c).
 */
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

#include "cache.h"

/* Arrays of 1 MiB or more are mapped from the system directly, zeroed and
 * committed page by page as they are written (cache.h), whatever malloc
 * does with a large calloc (a sanitizer's may write every byte). */
#define ZMAP_BYTES (1u << 20)

static void *zalloc(uint64_t n, uint64_t size)
{
    const uint64_t bytes = n * size;
#if defined(MAP_ANONYMOUS)
#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif
    if (bytes >= ZMAP_BYTES) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
#endif
    return calloc(n, size);
}

static void zfree(void *p, uint64_t n, uint64_t size)
{
    if (!p)
        return;
#if defined(MAP_ANONYMOUS)
    if (n * size >= ZMAP_BYTES) {
        munmap(p, n * size);
        return;
    }
#endif
    (void)n;
    (void)size;
    free(p);
}

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
    c->memo_fill = !pol->hit_after_fill;
    c->memo_block = CT_TAG_INVALID;
    c->tagx = zalloc(lines, sizeof *c->tagx);  /* 0: empty (cache.h) */
    c->flag = zalloc(lines, 1);
    if (c->fp_stride)
        c->fp = zalloc(c->sets, c->fp_stride);  /* 0: no line, never a candidate */
    if (pol == &ct_policy_lru && assoc <= CT_LRU_ROW_WAYS) {
        c->lru_row_words = ct_lru_row_words(assoc);
        /* 0: a set never filled (policy/lru.h) */
        c->lru_row = zalloc(c->sets * c->lru_row_words, sizeof *c->lru_row);
    } else
        c->pst = pol->create(c->sets, assoc, seed);
    if (!c->tagx || !c->flag || (c->fp_stride && !c->fp) || (!c->pst && !c->lru_row)) {
        ct_cache_free(c);
        return -1;
    }
    if (pol == &ct_policy_lru && c->pst)
        c->lru_stamp = ct_policy_lru_state(c->pst);
    return 0;
}

void ct_cache_row_drop(ct_cache *c, uint64_t set, uint64_t idx)
{
    const uint64_t base = set * c->ways;
    uint32_t held = 0;

    for (uint32_t w = 0; w < c->ways; w++)
        if (ct_cache_tag(c, base + w) != CT_TAG_INVALID)
            held |= 1u << w;
    ct_lru_row_drop(ct_cache_row(c, set, 0), c->ways, (uint32_t)(idx - base), held);
}

void ct_cache_free(ct_cache *c)
{
    const uint64_t lines = c->sets * c->ways;

    zfree(c->tagx, lines, sizeof *c->tagx);
    zfree(c->lru_row, c->sets * c->lru_row_words, sizeof *c->lru_row);
    zfree(c->flag, lines, 1);
    zfree(c->fp, c->sets, c->fp_stride);
    if (c->pst)
        c->pol->destroy(c->pst);
    memset(c, 0, sizeof *c);
}

uint64_t ct_cache_age(const ct_cache *c, uint64_t set, uint64_t idx)
{
    const uint32_t way = (uint32_t)(idx - set * c->ways);
    if (c->lru_row)  /* its place in the row, most recently used first */
        return c->ways - ct_lru_row_pos(ct_cache_row(c, set, 0), way, c->ways);
    if (c->lru_stamp)
        return c->lru_stamp[idx];
    return c->pol->age ? c->pol->age(c->pst, set, way) : way;
}
