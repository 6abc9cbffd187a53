/*
 * lru.h - the recency rows LRU keeps for sets of up to 16 ways (internal;
 * the rule is at the top of sim/policy/lru.c).
 *
 * A row lists the ways of one set from the most recently used (byte 0) to
 * the least (byte ways - 1): one 64-bit word for up to 8 ways, two for 9 to
 * 16 (byte i in word i / 8, bits 8 * (i % 8) up). Bytes past the ways hold
 * 0xff. An all-zero row (with 2 ways or more) is a set never filled: its
 * order is the initial one, ways - 1 down to 0, set by the first victim
 * asked of it, so rows come zeroed from the system like the tags
 * (sim/cache.h). A use moves a way to the front; the victim is the last
 * byte, nothing is scanned.
 */
#ifndef CT_POLICY_LRU_H
#define CT_POLICY_LRU_H

#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../compiler.h"

#define CT_LRU_ROW_WAYS 16

/* 64-bit words of a row of ways ways (at most CT_LRU_ROW_WAYS). */
FORCE_INLINE uint32_t ct_lru_row_words(uint32_t ways)
{
    return ways <= 8 ? 1 : 2;
}

/* Bytes 0 to k of a word. */
FORCE_INLINE uint64_t ct_lru_low_bytes(uint32_t k)
{
    return ~(~0ull << (8 * k) << 8);
}

/* Position of way in a row that holds it: the lowest byte equal to it
 * (exact: a borrow only marks bytes above a zero one, and padding never
 * equals a way). */
FORCE_INLINE uint32_t ct_lru_row_pos(const uint64_t *r, uint32_t way, uint32_t ways)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    const uint64_t b = ones * way, x0 = r[0] ^ b;
    const uint64_t m0 = (x0 - ones) & ~x0 & highs;
    if (ways <= 8 || m0)
        return (uint32_t)__builtin_ctzll(m0) >> 3;
    {
        const uint64_t x1 = r[1] ^ b;
        return 8 + ((uint32_t)__builtin_ctzll((x1 - ones) & ~x1 & highs) >> 3);
    }
}

/* Way (held by the row) was used: it moves to the front (the portable
 * code; ct_lru_row_use below). */
FORCE_INLINE void ct_lru_row_use_scalar(uint64_t *r, uint32_t way, uint32_t ways)
{
    const uint32_t p = ct_lru_row_pos(r, way, ways);
    const uint64_t lo = r[0];
    if (ways <= 8 || p < 8) {
        const uint64_t m = ct_lru_low_bytes(p);
        r[0] = (lo & ~m) | ((lo << 8) & m) | way;
    } else {
        const uint64_t m = ct_lru_low_bytes(p - 8), hi = r[1];
        r[0] = (lo << 8) | way;
        r[1] = (hi & ~m) | (((hi << 8) | (lo >> 56)) & m);
    }
}

/* Way (held by the row) was used: it moves to the front. Where there is
 * SSE2 (every x86-64) the row is one register: a byte compare finds the
 * way, a byte shift and a mask of bytes 0 to its position move the ways
 * before it, with no branch on where it was. (For 8 ways or fewer, the
 * upper half holds zeroes, which may equal way 0 but only above the row,
 * where the lowest match never is.) */
FORCE_INLINE void ct_lru_row_use(uint64_t *r, uint32_t way, uint32_t ways)
{
#if defined(__SSE2__)
    const __m128i v = ways > 8 ? _mm_loadu_si128((const __m128i *)r)
                               : _mm_loadl_epi64((const __m128i *)r);
    const __m128i at = _mm_cmpeq_epi8(v, _mm_set1_epi8((char)way));
    const int p = __builtin_ctz((uint32_t)_mm_movemask_epi8(at));
    const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m128i m = _mm_cmpgt_epi8(_mm_set1_epi8((char)(p + 1)), iota);
    const __m128i moved = _mm_or_si128(_mm_slli_si128(v, 1), _mm_cvtsi32_si128((int)way));
    const __m128i row = _mm_or_si128(_mm_and_si128(m, moved), _mm_andnot_si128(m, v));
    if (ways > 8)
        _mm_storeu_si128((__m128i *)r, row);
    else
        _mm_storel_epi64((__m128i *)r, row);
#else
    ct_lru_row_use_scalar(r, way, ways);
#endif
}

/* Set a never-filled row to the initial order (ways - 1 first, 0 last). */
static inline void ct_lru_row_init(uint64_t *r, uint32_t ways)
{
    const uint32_t words = ct_lru_row_words(ways);
    for (uint32_t i = 0; i < 8 * words; i++) {
        const uint64_t v = i < ways ? ways - 1 - i : 0xff;
        r[i / 8] = (i % 8 ? r[i / 8] : 0) | v << (8 * (i % 8));
    }
}

/* The least recently used way, or the lowest empty one while the set has
 * one. */
FORCE_INLINE uint32_t ct_lru_row_victim(uint64_t *r, uint32_t ways)
{
    const uint32_t last = ways - 1;
    if (UNLIKELY(r[0] == 0 && (ways <= 8 || r[1] == 0)))
        ct_lru_row_init(r, ways);
    return (uint32_t)(r[last / 8] >> (8 * (last % 8))) & 0xff;
}

/* Way was dropped; held has a bit set for every way that still holds a
 * line. The ways holding lines keep their order at the front, the empty
 * ones follow, the lowest last (the next victim). */
static inline void ct_lru_row_drop(uint64_t *r, uint32_t ways, uint32_t way, uint32_t held)
{
    uint8_t order[CT_LRU_ROW_WAYS];
    uint32_t n = 0;

    held &= ~(1u << way);
    for (uint32_t i = 0; i < ways; i++) {
        const uint32_t w = (uint32_t)(r[i / 8] >> (8 * (i % 8))) & 0xff;
        if (held >> w & 1)
            order[n++] = (uint8_t)w;
    }
    for (uint32_t w = ways; w-- > 0;)
        if (!(held >> w & 1))
            order[n++] = (uint8_t)w;
    ct_lru_row_init(r, ways);
    for (uint32_t i = 0; i < ways; i++)
        r[i / 8] = (r[i / 8] & ~(0xffull << (8 * (i % 8)))) | (uint64_t)order[i] << (8 * (i % 8));
}

#endif
