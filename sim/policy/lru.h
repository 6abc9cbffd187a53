/*
 * lru.h - the recency rows LRU keeps for sets of up to 16 ways (internal;
 * the rule is at the top of sim/policy/lru.c).
 *
 * A row holds the age of each way of one set: byte w is the place of way w
 * in the set's recency order, 0 for the most recently used up to ways - 1
 * for the least (the victim). One 64-bit word holds up to 8 ways, two hold
 * 9 to 16 (byte w in word w / 8, bits 8 * (w % 8) up, so byte w is also
 * the row's byte w in memory on a little-endian machine). Bytes past the
 * ways hold 0x7f, above every age. An all-zero row (with 2 ways or more)
 * is a set never filled: its ages are the initial ones (way ways - 1 the
 * most recent, way 0 the least), set by the first victim asked of it, so
 * rows come zeroed from the system like the tags (sim/cache.h).
 *
 * A use of way w of age a makes every way younger than a one older and w
 * the youngest: one compare of every byte with a, one add, one clear, with
 * no search and no branch. The victim is the way of age ways - 1.
 */
#ifndef CT_POLICY_LRU_H
#define CT_POLICY_LRU_H

#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../compiler.h"

#define CT_LRU_ROW_WAYS 16

/* The vectors the SSE2 row code loads instead of building them (lru.c):
 * every byte equal to v, and every byte 0xff but byte w, for v and w from
 * 0 to 15. */
extern const uint8_t ct_lru_splat[CT_LRU_ROW_WAYS][16];
extern const uint8_t ct_lru_clear[CT_LRU_ROW_WAYS][16];
#define CT_LRU_SPLAT(v) ((const void *)ct_lru_splat[(v)])
#define CT_LRU_CLEAR(w) ((const void *)ct_lru_clear[(w)])

/* 64-bit words of a row of ways ways (at most CT_LRU_ROW_WAYS). */
FORCE_INLINE uint32_t ct_lru_row_words(uint32_t ways)
{
    return ways <= 8 ? 1 : 2;
}

/* Place of way in the recency order of a row: 0 for the most recently
 * used. */
FORCE_INLINE uint32_t ct_lru_row_pos(const uint64_t *r, uint32_t way, uint32_t ways)
{
    (void)ways;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return ((const uint8_t *)r)[way];
#else
    return (uint32_t)(r[way / 8] >> (8 * (way % 8))) & 0xff;
#endif
}

/* Way was used (the portable code; ct_lru_row_use below): in each word,
 * a byte b below a is found by the top bit of (b | 0x80) - a, which no
 * byte borrows from its neighbour (every age is at most 15). */
FORCE_INLINE void ct_lru_row_use_scalar(uint64_t *r, uint32_t way, uint32_t ways)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    const uint64_t a = ones * ct_lru_row_pos(r, way, ways);
    for (uint32_t i = 0; i < ct_lru_row_words(ways); i++) {
        const uint64_t v = r[i];
        const uint64_t younger = (~((v | highs) - a) & highs) >> 7;
        r[i] = v + younger;
    }
    r[way / 8] &= ~(0xffull << (8 * (way % 8)));
}

#if defined(__SSE2__)
/* The row in a register (for 8 ways or fewer, the upper half zeroes) and
 * back: the bytes of the ways only. */
FORCE_INLINE __m128i ct_lru_row_load(const uint64_t *r, uint32_t ways)
{
    return ways > 8 ? _mm_loadu_si128((const __m128i *)r) : _mm_loadl_epi64((const __m128i *)r);
}

FORCE_INLINE void ct_lru_row_store(uint64_t *r, __m128i row, uint32_t ways)
{
    if (ways > 8)
        _mm_storeu_si128((__m128i *)r, row);
    else
        _mm_storel_epi64((__m128i *)r, row);
}
#endif

/* Way was used: it becomes the most recent. Where there is SSE2 (every
 * x86-64) the row is one register: a signed byte compare with the way's
 * age in every byte, a subtract of the mask (one more for the younger
 * ways), an and that clears the way's own byte. (For 8 ways or fewer the
 * upper half, zeroes, is changed and not stored.) No branch: whether the
 * way is the youngest already depends on the trace, and a test of it
 * mispredicts on irregular accesses more than the store it saves. */
FORCE_INLINE void ct_lru_row_use(uint64_t *r, uint32_t way, uint32_t ways)
{
#if defined(__SSE2__)
    const __m128i v = ct_lru_row_load(r, ways);
    const uint32_t a = ct_lru_row_pos(r, way, ways);
    const __m128i younger = _mm_cmpgt_epi8(_mm_load_si128(CT_LRU_SPLAT(a)), v);
    const __m128i row = _mm_and_si128(_mm_sub_epi8(v, younger),
                                      _mm_load_si128(CT_LRU_CLEAR(way)));
    ct_lru_row_store(r, row, ways);
#else
    ct_lru_row_use_scalar(r, way, ways);
#endif
}

/* Way, the victim (the oldest), was filled: ct_lru_row_use knowing that
 * every other way is younger. Where there is SSE2: one add saturating at
 * 0x7f (the padding stays) and the clear. */
FORCE_INLINE void ct_lru_row_fill(uint64_t *r, uint32_t way, uint32_t ways)
{
#if defined(__SSE2__)
    const __m128i v = ct_lru_row_load(r, ways);
    const __m128i row = _mm_and_si128(_mm_adds_epi8(v, _mm_load_si128(CT_LRU_SPLAT(1))),
                                      _mm_load_si128(CT_LRU_CLEAR(way)));
    ct_lru_row_store(r, row, ways);
#else
    ct_lru_row_use_scalar(r, way, ways);
#endif
}

/* Set a never-filled row to the initial order (ways - 1 first, 0 last). */
static inline void ct_lru_row_init(uint64_t *r, uint32_t ways)
{
    const uint32_t words = ct_lru_row_words(ways);
    for (uint32_t i = 0; i < 8 * words; i++) {
        const uint64_t v = i < ways ? ways - 1 - i : 0x7f;
        r[i / 8] = (i % 8 ? r[i / 8] : 0) | v << (8 * (i % 8));
    }
}

/* The way of age ways - 1, which the row holds (the portable code): bytes
 * equal to that age become 0, and the lowest zero byte of a word is found
 * exactly. */
FORCE_INLINE uint32_t ct_lru_row_oldest_scalar(const uint64_t *r, uint32_t ways)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    const uint64_t b = ones * (ways - 1), x0 = r[0] ^ b;
    const uint64_t m0 = (x0 - ones) & ~x0 & highs;
    if (ways <= 8 || m0)
        return (uint32_t)__builtin_ctzll(m0) >> 3;
    {
        const uint64_t x1 = r[1] ^ b;
        return 8 + ((uint32_t)__builtin_ctzll((x1 - ones) & ~x1 & highs) >> 3);
    }
}

#if defined(__SSE2__)
/* A bit for each byte of the row equal to ways - 1: the oldest way's, none
 * in a row never filled (with 2 ways or more). */
FORCE_INLINE uint32_t ct_lru_row_oldest_mask(const uint64_t *r, uint32_t ways)
{
    const __m128i oldest = _mm_load_si128(CT_LRU_SPLAT(ways - 1));
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(ct_lru_row_load(r, ways), oldest));
}
#endif

/* The least recently used way, or the lowest empty one while the set has
 * one. */
FORCE_INLINE uint32_t ct_lru_row_victim(uint64_t *r, uint32_t ways)
{
#if defined(__SSE2__)
    if (UNLIKELY(r[0] == 0 && (ways <= 8 || r[1] == 0)))
        ct_lru_row_init(r, ways);
    return (uint32_t)__builtin_ctz(ct_lru_row_oldest_mask(r, ways));
#else
    if (UNLIKELY(r[0] == 0 && (ways <= 8 || r[1] == 0)))
        ct_lru_row_init(r, ways);
    return ct_lru_row_oldest_scalar(r, ways);
#endif
}

/* Way was dropped; held has a bit set for every way that still holds a
 * line. The ways holding lines keep their order at the front, the empty
 * ones follow, the lowest last (the next victim). */
static inline void ct_lru_row_drop(uint64_t *r, uint32_t ways, uint32_t way, uint32_t held)
{
    uint8_t order[CT_LRU_ROW_WAYS];
    uint32_t n = 0;

    held &= ~(1u << way);
    for (uint32_t w = 0; w < ways; w++)
        order[ct_lru_row_pos(r, w, ways)] = (uint8_t)w;
    for (uint32_t i = 0; i < ways; i++)
        if (held >> order[i] & 1)
            order[n++] = order[i];
    for (uint32_t w = ways; w-- > 0;)
        if (!(held >> w & 1))
            order[n++] = (uint8_t)w;
    ct_lru_row_init(r, ways);
    for (uint32_t i = 0; i < ways; i++) {
        const uint32_t w = order[i];
        r[w / 8] = (r[w / 8] & ~(0xffull << (8 * (w % 8)))) | (uint64_t)i << (8 * (w % 8));
    }
}

#endif
