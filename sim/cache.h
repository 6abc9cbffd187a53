/*
 * cache.h - one set-associative tag array (internal).
 *
 * Flat and set-major: line i of set s is tag s * ways + i. A tag holds the
 * whole block number (address >> line_bits), so power-of-two and modulo set
 * indexing compare the same way; an empty line holds CT_TAG_INVALID.
 * Geometry was checked by the configuration: this code only asserts.
 *
 * Storage grows with the lines touched: a tag is stored complemented
 * (tagx[i] = ~tag, read and written through ct_cache_tag and
 * ct_cache_tag_set), so an empty line is stored as 0, as are an empty
 * flag byte, fingerprint and LRU state. Every array comes zeroed from the
 * system and nothing is written at creation: the pages of lines never
 * touched are never committed, and a 64 GiB cache run on a small trace
 * takes the memory of the lines that trace fills.
 *
 * Finding a block: next to the tags each line has a one-byte fingerprint
 * of the block it holds (7 bits of a hash, top bit set), in rows of
 * fp_stride bytes per set (ways rounded up to 8, padding 0). A lookup
 * compares the fingerprints of a set eight at a time in one 64-bit word
 * and looks at the full tags of the candidates only, so a 16-way set costs
 * two word operations and, usually, one tag compare. Where there is SSE2
 * (every x86-64) sixteen fingerprints are one byte compare and a mask. A fingerprint is
 * written with its tag (ct_cache_put) and left as it is when the line is
 * dropped: a stale fingerprint only adds a candidate whose tag does not
 * match. Direct-mapped caches compare the one tag instead.
 *
 * LRU: the cache keeps LRU itself. With at most 16 ways a set's state is a
 * recency row (sim/policy/lru.h: its ways from the most recently used to
 * the least, one 64-bit word for up to 8 ways, two for up to 16): a use
 * moves the way to the front, the victim is the last byte, which is the
 * least recently used way when every way holds a line and the lowest empty
 * way otherwise (dropping a line moves it behind the ways that hold lines).
 * With more ways each line has a stamp from a running clock, 0 when empty
 * (lru_stamp, the policy's own array), and the victim is the smallest
 * stamp, the lowest way on a tie. Both give the order sim/policy/lru.c
 * defines.
 *
 * The memo: memo_idx is the line the policy was told about last (hit or
 * fill, ct_cache_touch / ct_cache_filled), and memo_block the block it held
 * then. While tag[memo_idx] still equals memo_block, a policy whose
 * rehit_idempotent is set has nothing to learn from another hit on it. A
 * fill is no such use when the policy sets hit_after_fill (RRIP: the hit
 * after the fill promotes the line): the fill clears the memo instead.
 * (Every fill tells the policy, so a line that is memo_idx and holds a
 * block held it when the policy was told: hier.c's shortcuts compare the
 * index alone.)
 */
#ifndef CT_CACHE_H
#define CT_CACHE_H

#include <assert.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "compiler.h"
#include "policy.h"
#include "policy/lru.h"

#define CT_TAG_INVALID UINT64_MAX

enum ct_line_flag {
    CT_LF_DIRTY = 0x01,      /* written since it was filled or cleaned */
    CT_LF_PREFETCHED = 0x02, /* filled by a hardware prefetch, not yet used */
    CT_LF_NS = 0x04,         /* filled by a non-secure access */
    CT_LF_OWN = 0x08         /* coherence (MESI): the core owns the line, Exclusive
                                or Modified (sim/coherence.c) */
};

typedef struct ct_cache {
    uint64_t *tagx;           /* sets * ways block numbers, complemented (~block) */
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
    uint64_t *lru_row;        /* LRU, at most 16 ways: per set, the recency row */
    uint32_t lru_row_words;   /* its 64-bit words */
    uint64_t *lru_stamp;      /* LRU, more ways: the policy's stamps, updated inline */
    uint64_t lru_clock;       /* the last stamp given */
    int memo_ok;              /* policy lets repeated hits skip it */
    int memo_fill;            /* a fill makes the line the memo (!hit_after_fill) */
    uint64_t memo_block;      /* block of the line touched last */
    uint64_t memo_idx;        /* its line index */
} ct_cache;

/* Allocate the arrays and the policy state (none when the cache keeps
 * recency rows). Returns 0 or -1 (no memory). */
int ct_cache_init(ct_cache *c, uint64_t size, uint32_t assoc, uint32_t line,
                  const ct_policy_ops *pol, uint64_t seed);
void ct_cache_free(ct_cache *c);

/* Bytes of tags, flags and fingerprints a cache of this geometry needs. */
uint64_t ct_cache_bytes(uint64_t size, uint32_t assoc, uint32_t line);

/* The block line idx holds, CT_TAG_INVALID when it is empty. */
FORCE_INLINE uint64_t ct_cache_tag(const ct_cache *c, uint64_t idx)
{
    return ~c->tagx[idx];
}

FORCE_INLINE void ct_cache_tag_set(ct_cache *c, uint64_t idx, uint64_t block)
{
    c->tagx[idx] = ~block;
}

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
        return c->tagx[set] == ~block ? (int64_t)set : -1;
    f = &c->fp[set * stride];
#if defined(__SSE2__)
    /* sixteen fingerprints in one compare (the last eight alone when the
     * stride is an odd multiple of 8): exact, no false candidates (padding
     * is 0, a fingerprint never is) */
    for (uint32_t w = 0; w < stride; w += 16) {
        const __m128i fw = stride - w >= 16 ? _mm_loadu_si128((const __m128i *)(f + w))
                                            : _mm_loadl_epi64((const __m128i *)(f + w));
        uint32_t m = (uint32_t)_mm_movemask_epi8(
            _mm_cmpeq_epi8(fw, _mm_set1_epi64x((long long)want)));
        while (m) {
            const uint64_t i = base + w + (uint32_t)__builtin_ctz(m);
            if (c->tagx[i] == ~block)
                return (int64_t)i;
            m &= m - 1;
        }
    }
#else
    for (uint32_t w = 0; w < ways; w += 8) {
        /* bytes equal to the fingerprint become 0; the lowest zero byte of a
         * word is found exactly, higher ones may be false candidates */
        const uint64_t x = ct_cache_load8(f + w) ^ want;
        uint64_t m = (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
        while (m) {
            const uint64_t i = base + w + ((uint32_t)__builtin_ctzll(m) >> 3);
            if (c->tagx[i] == ~block)
                return (int64_t)i;
            m &= m - 1;
        }
    }
#endif
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
    c->tagx[idx] = ~block;
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

/* The place of valid line idx of set in the policy's order: larger for a
 * line more recently used (LRU) or filled (FIFO); the way number when the
 * policy has no such order (cache.c). */
uint64_t ct_cache_age(const ct_cache *c, uint64_t set, uint64_t idx);

/* Line idx of set no longer holds a line (cache.c). */
void ct_cache_row_drop(ct_cache *c, uint64_t set, uint64_t idx);

/* The recency row of set (W as for ct_cache_find_fp). */
FORCE_INLINE uint64_t *ct_cache_row(const ct_cache *c, uint64_t set, const uint32_t W)
{
    return &c->lru_row[set * (W ? ct_lru_row_words(W) : c->lru_row_words)];
}

/* LRU: line idx of set was used (W as for ct_cache_find_fp). */
FORCE_INLINE void ct_cache_lru_use(ct_cache *c, uint64_t set, uint64_t idx, const uint32_t W)
{
    const uint32_t ways = W ? W : c->ways;
    if (W ? W <= CT_LRU_ROW_WAYS : c->lru_row != NULL)
        ct_lru_row_use(ct_cache_row(c, set, W), (uint32_t)(idx - set * ways), ways);
    else
        c->lru_stamp[idx] = ++c->lru_clock;
}

/* LRU: line idx of set, the victim ct_cache_lru_victim gave, was filled
 * (W as for ct_cache_find_fp). */
FORCE_INLINE void ct_cache_lru_fill(ct_cache *c, uint64_t set, uint64_t idx, const uint32_t W)
{
    if (W ? W <= CT_LRU_ROW_WAYS : c->lru_row != NULL)
        ct_lru_row_fill(ct_cache_row(c, set, W), (uint32_t)(idx - set * (W ? W : c->ways)),
                        W ? W : c->ways);
    else
        ct_cache_lru_use(c, set, idx, W);
}

/* LRU: the line index for a new block in set (the lowest empty way, else
 * the least recently used). */
FORCE_INLINE uint64_t ct_cache_lru_victim(ct_cache *c, uint64_t set, const uint32_t W)
{
    const uint32_t ways = W ? W : c->ways;
    const uint64_t base = set * ways;
    if (W ? W <= CT_LRU_ROW_WAYS : c->lru_row != NULL)
        return base + ct_lru_row_victim(ct_cache_row(c, set, W), ways);
    return base + ct_lru_oldest(&c->lru_stamp[base], ways);
}

/* Line index for a new block in set: the first empty way, else the policy's
 * victim (which the caller must evict first). With LRU both are the last
 * way of the recency row, or the line with the smallest stamp (empty lines
 * have stamp 0), found in one pass. */
FORCE_INLINE uint64_t ct_cache_slot(ct_cache *c, uint64_t set)
{
    const uint64_t base = set * c->ways;
    if (c->lru_row || c->lru_stamp)
        return ct_cache_lru_victim(c, set, 0);
    for (uint32_t w = 0; w < c->ways; w++)
        if (c->tagx[base + w] == 0)
            return base + w;
    return base + c->pol->victim(c->pst, set);
}

/* The policy hooks, with LRU inlined (a hit and a fill are the same use
 * to LRU). Touch makes idx the memo; filled does unless the policy sets
 * hit_after_fill. */
FORCE_INLINE void ct_cache_use(ct_cache *c, uint64_t set, uint64_t idx, int fill)
{
    const uint32_t way = (uint32_t)(idx - set * c->ways);
    if (c->lru_row || c->lru_stamp)
        ct_cache_lru_use(c, set, idx, 0);
    else if (fill)
        c->pol->fill(c->pst, set, way);
    else
        c->pol->hit(c->pst, set, way);
    if (!fill || c->memo_fill)
        ct_cache_memo(c, idx, ct_cache_tag(c, idx));
    else
        c->memo_block = CT_TAG_INVALID;
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
    if (c->lru_row)
        ct_cache_row_drop(c, set, idx);
    else
        c->pol->inval(c->pst, set, (uint32_t)(idx - set * c->ways));
}

#endif
