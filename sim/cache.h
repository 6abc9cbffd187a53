/*
 * cache.h - one set-associative tag array (internal).
 *
 * Flat and set-major: line i of set s is tag[s * ways + i]. A tag holds the
 * whole block number (address >> line_bits), so power-of-two and modulo set
 * indexing compare the same way; an empty line holds CT_TAG_INVALID, never 0.
 * Geometry was checked by the configuration: this code only asserts.
 *
 * Finding a block: next to the tags each line has a one-byte fingerprint
 * of the block it holds (7 bits of a hash, top bit set), in rows of
 * fp_stride bytes per set (ways rounded up to 8, padding 0). A lookup
 * compares the fingerprints of a set eight at a time in one 64-bit word
 * and looks at the full tags of the candidates only, so a 16-way set costs
 * two word operations and, usually, one tag compare. A fingerprint is
 * written with its tag (ct_cache_put) and left as it is when the line is
 * dropped: a stale fingerprint only adds a candidate whose tag does not
 * match. Direct-mapped caches compare the one tag instead.
 *
 * LRU: the cache keeps LRU itself. With at most 8 ways a set's state is
 * one 32-bit recency order, four bits a way, most recent in the low bits
 * (lru_order); ways that hold no line sit at the least recent end, the
 * lowest way last, so the victim (the lowest empty way, else the least
 * recently used) is always the last nibble. With more ways each line has a
 * stamp from a running clock, 0 when empty (lru_stamp, the policy's own
 * array), and the victim is the smallest stamp, the lowest way on a tie.
 * Both give the order sim/policy/lru.c defines. (A hit costs a few
 * operations more with the order than with a stamp, a victim many fewer:
 * on cfgA's random workload the order is faster for the 8-way L1D, where
 * most accesses miss, and slower for the 16-way L2, where they hit.)
 *
 * The memo: memo_idx is the line the policy was told about last (hit or
 * fill, ct_cache_touch / ct_cache_filled), and memo_block the block it held
 * then. While tag[memo_idx] still equals memo_block, a policy whose
 * rehit_idempotent is set has nothing to learn from another hit on it.
 * prev_idx / prev_block are the line touched before that one: only a
 * shortcut for finding it (a hit on it is told to the policy as any hit),
 * for two streams that take turns, as instruction fetches and data do in
 * a unified level.
 */
#ifndef CT_CACHE_H
#define CT_CACHE_H

#include <assert.h>
#include <stdint.h>
#include <string.h>

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
    uint8_t *fp;              /* sets * fp_stride fingerprints; NULL when ways == 1 */
    uint64_t sets;
    uint64_t set_mask;        /* sets - 1 when sets is a power of two */
    int set_pow2;             /* chosen once at creation */
    uint32_t ways;
    uint32_t fp_stride;       /* ways rounded up to a multiple of 8 */
    uint32_t line_bits;
    const ct_policy_ops *pol;
    void *pst;
    uint32_t *lru_order;      /* LRU, at most 8 ways: per set, the recency order */
    uint64_t *lru_stamp;      /* LRU, more ways: the policy's stamps, updated inline */
    uint64_t lru_clock;       /* the last stamp given */
    int memo_ok;              /* policy lets repeated hits skip it */
    uint64_t memo_block;      /* block of the line touched last */
    uint64_t memo_idx;        /* its line index */
    uint64_t prev_block;      /* block of the line touched before it */
    uint64_t prev_idx;        /* its line index */
} ct_cache;

#define CT_LRU_ORDER_WAYS 8

/* Allocate the arrays and the policy state (none when the cache keeps a
 * recency order). Returns 0 or -1 (no memory). */
int ct_cache_init(ct_cache *c, uint64_t size, uint32_t assoc, uint32_t line,
                  const ct_policy_ops *pol, uint64_t seed);
void ct_cache_free(ct_cache *c);

/* Bytes of tags, flags and fingerprints a cache of this geometry needs. */
uint64_t ct_cache_bytes(uint64_t size, uint32_t assoc, uint32_t line);

FORCE_INLINE uint64_t ct_cache_set(const ct_cache *c, uint64_t block)
{
    return c->set_pow2 ? block & c->set_mask : block % c->sets;
}

/* The fingerprint of block, repeated in every byte of a word. */
FORCE_INLINE uint64_t ct_cache_fp8(uint64_t block)
{
    const uint64_t h = ((block * 0x9e3779b97f4a7c15ull) >> 57) | 0x80;
    return h * 0x0101010101010101ull;
}

FORCE_INLINE uint64_t ct_cache_load8(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* Line index holding block in set, or -1. W is the number of ways when the
 * caller knows it at compile time (a specialised copy), else 0. */
FORCE_INLINE int64_t ct_cache_find_w(const ct_cache *c, uint64_t set, uint64_t block,
                                     const uint32_t W)
{
    const uint32_t ways = W ? W : c->ways;
    const uint32_t stride = W ? (W + 7) & ~7u : c->fp_stride;
    const uint64_t base = set * ways;
    const uint8_t *f;
    uint64_t want;

    if (ways == 1)
        return c->tag[set] == block ? (int64_t)set : -1;
    f = &c->fp[set * stride];
    want = ct_cache_fp8(block);
    for (uint32_t w = 0; w < ways; w += 8) {
        /* bytes equal to the fingerprint become 0; the lowest zero byte of a
         * word is found exactly, higher ones may be false candidates */
        const uint64_t x = ct_cache_load8(f + w) ^ want;
        uint64_t m = (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
        while (m) {
            const uint64_t i = base + w + ((uint32_t)__builtin_ctzll(m) >> 3);
            if (c->tag[i] == block)
                return (int64_t)i;
            m &= m - 1;
        }
    }
    return -1;
}

FORCE_INLINE int64_t ct_cache_find(const ct_cache *c, uint64_t set, uint64_t block)
{
    return ct_cache_find_w(c, set, block, 0);
}

/* Record line idx, holding block, as the one touched last. */
FORCE_INLINE void ct_cache_memo(ct_cache *c, uint64_t idx, uint64_t block)
{
    c->prev_block = c->memo_block;
    c->prev_idx = c->memo_idx;
    c->memo_block = block;
    c->memo_idx = idx;
}

/* Make line idx (way idx - set * ways of set) hold block; its flags and
 * policy state are the caller's. W as for ct_cache_find_w. */
FORCE_INLINE void ct_cache_put_w(ct_cache *c, uint64_t set, uint64_t idx, uint64_t block,
                                 const uint32_t W)
{
    c->tag[idx] = block;
    if (W && W % 8 == 0)  /* a row of fingerprints is a row of lines */
        c->fp[idx] = (uint8_t)ct_cache_fp8(block);
    else if (c->fp)
        c->fp[set * c->fp_stride + (idx - set * c->ways)] = (uint8_t)ct_cache_fp8(block);
}

FORCE_INLINE void ct_cache_put(ct_cache *c, uint64_t set, uint64_t idx, uint64_t block)
{
    ct_cache_put_w(c, set, idx, block, 0);
}

/* The least recently used of ways stamps (empty lines have stamp 0; the
 * lowest way on a tie). */
FORCE_INLINE uint32_t ct_lru_oldest(const uint64_t *st, uint32_t ways)
{
    uint32_t best = 0;
    uint64_t old = st[0];
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
    for (uint32_t w = 1; w < ways; w++) {
        const uint64_t v = st[w];
        best = v < old ? w : best;
        old = v < old ? v : old;
    }
    return best;
}

/* A recency order with way moved to the front (most recent). */
FORCE_INLINE uint32_t ct_order_use(uint32_t order, uint32_t way)
{
    /* the nibble holding way becomes 0; the lowest zero nibble is found
     * exactly (higher ones may be false, and way is there once) */
    const uint32_t x = order ^ (way * 0x11111111u);
    const uint32_t z = (x - 0x11111111u) & ~x & 0x88888888u;
    const uint32_t sh = (uint32_t)__builtin_ctz(z) & ~3u;  /* 4 * its position */
    const uint32_t newer = order & ((1u << sh) - 1);
    const uint32_t older = order & ((~0u << sh) << 4);
    return older | newer << 4 | way;
}

/* The victim of an order of ways ways: the last nibble. */
FORCE_INLINE uint32_t ct_order_last(uint32_t order, uint32_t ways)
{
    return (order >> (4 * (ways - 1))) & 15;
}

/* The order after the last way (the victim) was filled: it moves to the
 * front. */
FORCE_INLINE uint32_t ct_order_rotate(uint32_t order, uint32_t ways)
{
    const uint32_t keep = ways == 8 ? ~0u : (1u << (4 * ways)) - 1;
    return ((order << 4) | ct_order_last(order, ways)) & keep;
}

/* Put the ways of set that hold no line at the end of its order, the
 * lowest way last (after invalidations; cache.c). */
void ct_cache_order_rebuild(ct_cache *c, uint64_t set);

/* Line index for a new block in set: the first empty way, else the policy's
 * victim (which the caller must evict first). With LRU both are the last
 * way of the order, or the line with the smallest stamp (empty lines have
 * stamp 0), found in one pass. */
FORCE_INLINE uint64_t ct_cache_slot(ct_cache *c, uint64_t set)
{
    const uint64_t base = set * c->ways;
    if (c->lru_order)
        return base + ct_order_last(c->lru_order[set], c->ways);
    if (c->lru_stamp)
        return base + ct_lru_oldest(&c->lru_stamp[base], c->ways);
    for (uint32_t w = 0; w < c->ways; w++)
        if (c->tag[base + w] == CT_TAG_INVALID)
            return base + w;
    return base + c->pol->victim(c->pst, set);
}

/* The policy hooks, with LRU inlined. Touch and filled make idx the memo. */
FORCE_INLINE void ct_cache_touch(ct_cache *c, uint64_t set, uint64_t idx)
{
    const uint32_t way = (uint32_t)(idx - set * c->ways);
    if (c->lru_order)
        c->lru_order[set] = ct_order_use(c->lru_order[set], way);
    else if (c->lru_stamp)
        c->lru_stamp[idx] = ++c->lru_clock;
    else
        c->pol->hit(c->pst, set, way);
    ct_cache_memo(c, idx, c->tag[idx]);
}

FORCE_INLINE void ct_cache_filled(ct_cache *c, uint64_t set, uint64_t idx)
{
    const uint32_t way = (uint32_t)(idx - set * c->ways);
    if (c->lru_order)
        c->lru_order[set] = ct_order_use(c->lru_order[set], way);
    else if (c->lru_stamp)
        c->lru_stamp[idx] = ++c->lru_clock;
    else
        c->pol->fill(c->pst, set, way);
    ct_cache_memo(c, idx, c->tag[idx]);
}

/* Line idx of set was dropped (its tag is already CT_TAG_INVALID). */
FORCE_INLINE void ct_cache_dropped(ct_cache *c, uint64_t set, uint64_t idx)
{
    if (c->lru_order)
        ct_cache_order_rebuild(c, set);
    else
        c->pol->inval(c->pst, set, (uint32_t)(idx - set * c->ways));
}

#endif
