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
 * LRU: the cache keeps LRU itself. With at most 8 ways a set's state is an
 * 8 x 8 bit matrix in one 64-bit word (lru_matrix): byte w has bit v set
 * when way w was used more recently than way v. Using w sets row w and
 * clears column w; the victim is the lowest way whose byte is 0, which is
 * the least recently used way when every way holds a line and the lowest
 * empty way otherwise (dropping a line clears its row and sets its column
 * in the rows of the ways that hold lines). With more ways each line has a
 * stamp from a running clock, 0 when empty (lru_stamp, the policy's own
 * array), and the victim is the smallest stamp, the lowest way on a tie.
 * Both give the order sim/policy/lru.c defines. (A hit costs a couple of
 * operations more with the matrix than with a stamp, a victim many fewer:
 * on cfgA's random workload the matrix is faster for the 8-way L1D, where
 * most accesses miss, and slower for the 16-way L2, where they hit.)
 *
 * The memo: memo_idx is the line the policy was told about last (hit or
 * fill, ct_cache_touch / ct_cache_filled), and memo_block the block it held
 * then. While tag[memo_idx] still equals memo_block, a policy whose
 * rehit_idempotent is set has nothing to learn from another hit on it.
 * (Every fill tells the policy, so a line that is memo_idx and holds a
 * block held it when the policy was told: hier.c's shortcuts compare the
 * index alone.)
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
    uint64_t *lru_matrix;     /* LRU, at most 8 ways: per set, the recency matrix */
    uint64_t *lru_stamp;      /* LRU, more ways: the policy's stamps, updated inline */
    uint64_t lru_clock;       /* the last stamp given */
    int memo_ok;              /* policy lets repeated hits skip it */
    uint64_t memo_block;      /* block of the line touched last */
    uint64_t memo_idx;        /* its line index */
} ct_cache;

#define CT_LRU_MATRIX_WAYS 8

/* Allocate the arrays and the policy state (none when the cache keeps a
 * recency matrix). Returns 0 or -1 (no memory). */
int ct_cache_init(ct_cache *c, uint64_t size, uint32_t assoc, uint32_t line,
                  const ct_policy_ops *pol, uint64_t seed);
void ct_cache_free(ct_cache *c);

/* Bytes of tags, flags and fingerprints a cache of this geometry needs. */
uint64_t ct_cache_bytes(uint64_t size, uint32_t assoc, uint32_t line);

FORCE_INLINE uint64_t ct_cache_set(const ct_cache *c, uint64_t block)
{
    return c->set_pow2 ? block & c->set_mask : block % c->sets;
}

/* ct_cache_set in a copy specialised for W ways (W != 0), which is used
 * only when the number of sets is a power of two. */
FORCE_INLINE uint64_t ct_cache_set_w(const ct_cache *c, uint64_t block, const uint32_t W)
{
    return W ? block & c->set_mask : ct_cache_set(c, block);
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

/* Line index holding block in set, or -1; want is ct_cache_fp8(block). W is
 * the number of ways when the caller knows it at compile time (a
 * specialised copy), else 0. */
FORCE_INLINE int64_t ct_cache_find_fp(const ct_cache *c, uint64_t set, uint64_t block,
                                      uint64_t want, const uint32_t W)
{
    const uint32_t ways = W ? W : c->ways;
    const uint32_t stride = W ? (W + 7) & ~7u : c->fp_stride;
    const uint64_t base = set * ways;
    const uint8_t *f;

    if (ways == 1)
        return c->tag[set] == block ? (int64_t)set : -1;
    f = &c->fp[set * stride];
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

FORCE_INLINE int64_t ct_cache_find_w(const ct_cache *c, uint64_t set, uint64_t block,
                                     const uint32_t W)
{
    return ct_cache_find_fp(c, set, block, ct_cache_fp8(block), W);
}

FORCE_INLINE int64_t ct_cache_find(const ct_cache *c, uint64_t set, uint64_t block)
{
    return ct_cache_find_w(c, set, block, 0);
}

/* Record line idx, holding block, as the one touched last. */
FORCE_INLINE void ct_cache_memo(ct_cache *c, uint64_t idx, uint64_t block)
{
    c->memo_block = block;
    c->memo_idx = idx;
}

/* Make line idx (way idx - set * ways of set) hold block, whose
 * ct_cache_fp8 is want; its flags and policy state are the caller's. W as
 * for ct_cache_find_fp. */
FORCE_INLINE void ct_cache_put_fp(ct_cache *c, uint64_t set, uint64_t idx, uint64_t block,
                                  uint64_t want, const uint32_t W)
{
    c->tag[idx] = block;
    if (W && W % 8 == 0)  /* a row of fingerprints is a row of lines */
        c->fp[idx] = (uint8_t)want;
    else if (c->fp)
        c->fp[set * c->fp_stride + (idx - set * c->ways)] = (uint8_t)want;
}

FORCE_INLINE void ct_cache_put(ct_cache *c, uint64_t set, uint64_t idx, uint64_t block)
{
    ct_cache_put_fp(c, set, idx, block, ct_cache_fp8(block), 0);
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

/* A recency matrix of ways ways after way was used. */
FORCE_INLINE uint64_t ct_matrix_use(uint64_t m, uint32_t way, uint32_t ways)
{
    const uint64_t row = ways == 8 ? 0xff : (1u << ways) - 1;
    return (m | row << (8 * way)) & ~(0x0101010101010101ull << way);
}

/* The victim of a recency matrix: its lowest zero byte (exact: a borrow
 * can only flag bytes above a zero one). */
FORCE_INLINE uint32_t ct_matrix_victim(uint64_t m)
{
    const uint64_t z = (m - 0x0101010101010101ull) & ~m & 0x8080808080808080ull;
    return (uint32_t)__builtin_ctzll(z) >> 3;
}

/* Line idx of set no longer holds a line (cache.c). */
void ct_cache_matrix_drop(ct_cache *c, uint64_t set, uint64_t idx);

/* Line index for a new block in set: the first empty way, else the policy's
 * victim (which the caller must evict first). With LRU both are the lowest
 * zero row of the matrix, or the line with the smallest stamp (empty lines
 * have stamp 0), found in one pass. */
FORCE_INLINE uint64_t ct_cache_slot(ct_cache *c, uint64_t set)
{
    const uint64_t base = set * c->ways;
    if (c->lru_matrix)
        return base + ct_matrix_victim(c->lru_matrix[set]);
    if (c->lru_stamp)
        return base + ct_lru_oldest(&c->lru_stamp[base], c->ways);
    for (uint32_t w = 0; w < c->ways; w++)
        if (c->tag[base + w] == CT_TAG_INVALID)
            return base + w;
    return base + c->pol->victim(c->pst, set);
}

/* The policy hooks, with LRU inlined (a hit and a fill are the same use
 * to LRU). Touch and filled make idx the memo. */
FORCE_INLINE void ct_cache_use(ct_cache *c, uint64_t set, uint64_t idx, int fill)
{
    const uint32_t way = (uint32_t)(idx - set * c->ways);
    if (c->lru_matrix)
        c->lru_matrix[set] = ct_matrix_use(c->lru_matrix[set], way, c->ways);
    else if (c->lru_stamp)
        c->lru_stamp[idx] = ++c->lru_clock;
    else if (fill)
        c->pol->fill(c->pst, set, way);
    else
        c->pol->hit(c->pst, set, way);
    ct_cache_memo(c, idx, c->tag[idx]);
}

FORCE_INLINE void ct_cache_touch(ct_cache *c, uint64_t set, uint64_t idx)
{
    ct_cache_use(c, set, idx, 0);
}

FORCE_INLINE void ct_cache_filled(ct_cache *c, uint64_t set, uint64_t idx)
{
    ct_cache_use(c, set, idx, 1);
}

/* Line idx of set was dropped (its tag is already CT_TAG_INVALID). */
FORCE_INLINE void ct_cache_dropped(ct_cache *c, uint64_t set, uint64_t idx)
{
    if (c->lru_matrix)
        ct_cache_matrix_drop(c, set, idx);
    else
        c->pol->inval(c->pst, set, (uint32_t)(idx - set * c->ways));
}

#endif
