/*
 * crc32.c - the CRC-32 of zip members (and gzip): the reflected polynomial
 * 0x04C11DB7, as zlib's crc32() computes it, only faster on x86-64.
 *
 * Why: a drmemtrace chunk inflates about 140 bytes per compressed byte, so
 * checking the CRC of what is inflated costs more than inflating it. zlib's
 * table-driven loop takes about 4 instructions per byte; carry-less
 * multiplication (PCLMULQDQ) folds 64 bytes in 8 multiplications.
 *
 * Method (Gopal et al., "Fast CRC Computation for Generic Polynomials Using
 * PCLMULQDQ Instruction", Intel, 2009): the data is folded 64 bytes at a
 * time into four 128-bit accumulators, then into one, 16 bytes at a time.
 * Folding keeps the remainder modulo the polynomial, so the CRC of the
 * message equals the CRC (from a zero register) of the final 128-bit
 * value followed by the bytes that were not folded; zlib's crc32() computes
 * that short tail, so no Barrett reduction is needed. The initial register
 * is XORed into the first 16 bytes. The fold constants are x^k mod P for the
 * fold distances (bit-reflected, as the CRC is); the unit test compares the
 * result with zlib's on every length from 0 to 4 KiB and on odd alignments.
 *
 * With AVX-512 and VPCLMULQDQ the same folding runs on four 512-bit
 * accumulators (256 bytes a step), and the last 512 bits are folded into
 * 128 by the distances of their lanes.
 *
 * Without PCLMULQDQ (other CPUs, other compilers) zlib's crc32() does it all.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <zlib.h>

#include "frontend.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define HAVE_CLMUL 1

/* Folding over a distance of D bits multiplies the low 64 bits by
 * x^(D+32) mod P and the high 64 bits by x^(D-32) mod P, each bit-reflected
 * and shifted left by one (the reflected product comes out one bit short). */
#define K_256_LO 0x11542778aull  /* D = 2048: 256 bytes */
#define K_256_HI 0x1322d1430ull
#define K_64_LO 0x154442bd4ull   /* D = 512 */
#define K_64_HI 0x1c6e41596ull
#define K_48_LO 0x03db1ecdcull   /* D = 384 */
#define K_48_HI 0x174359406ull
#define K_32_LO 0x0f1da05aaull   /* D = 256 */
#define K_32_HI 0x15a546366ull
#define K_16_LO 0x1751997d0ull   /* D = 128 */
#define K_16_HI 0x0ccaa009eull

__attribute__((target("pclmul,sse2"))) static inline __m128i fold(__m128i x, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* The 128-bit value x, at the end of p (n bytes left), to the CRC. */
__attribute__((target("pclmul,sse2"))) static uint32_t crc32_tail(__m128i x, const uint8_t *p,
                                                                  size_t n)
{
    const __m128i k16 = _mm_set_epi64x((long long)K_16_HI, (long long)K_16_LO);
    uint8_t last[16];
    uLong c;

    for (; n >= 16; n -= 16, p += 16)
        x = _mm_xor_si128(fold(x, k16), _mm_loadu_si128((const __m128i *)(const void *)p));
    _mm_storeu_si128((__m128i *)(void *)last, x);
    /* the CRC of `last` from a zero register, then of the tail */
    c = crc32(0xffffffffu, last, 16);
    return (uint32_t)crc32(c, p, (uInt)n);
}

__attribute__((target("avx512f,vpclmulqdq,pclmul"))) static inline __m512i
fold512(__m512i x, __m512i k)
{
    return _mm512_xor_si512(_mm512_clmulepi64_epi128(x, k, 0x00),
                            _mm512_clmulepi64_epi128(x, k, 0x11));
}

#define LOAD512(q) _mm512_loadu_si512((const void *)(q))

/* n >= 256: the caller checked. */
__attribute__((target("avx512f,vpclmulqdq,pclmul"))) static uint32_t
crc32_vpclmul(uint32_t crc, const uint8_t *p, size_t n)
{
    const __m512i k256 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)K_256_HI,
                                                               (long long)K_256_LO));
    const __m512i k64 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)K_64_HI,
                                                              (long long)K_64_LO));
    __m512i x0 = LOAD512(p), x1 = LOAD512(p + 64), x2 = LOAD512(p + 128), x3 = LOAD512(p + 192);
    __m128i x;

    x0 = _mm512_xor_si512(x0, _mm512_castsi128_si512(_mm_cvtsi32_si128((int)~crc)));
    p += 256;
    n -= 256;
    for (; n >= 256; n -= 256, p += 256) {
        x0 = _mm512_xor_si512(fold512(x0, k256), LOAD512(p));
        x1 = _mm512_xor_si512(fold512(x1, k256), LOAD512(p + 64));
        x2 = _mm512_xor_si512(fold512(x2, k256), LOAD512(p + 128));
        x3 = _mm512_xor_si512(fold512(x3, k256), LOAD512(p + 192));
    }
    x0 = _mm512_xor_si512(fold512(x0, k64), x1);
    x0 = _mm512_xor_si512(fold512(x0, k64), x2);
    x0 = _mm512_xor_si512(fold512(x0, k64), x3);
    for (; n >= 64; n -= 64, p += 64)
        x0 = _mm512_xor_si512(fold512(x0, k64), LOAD512(p));
    /* the four lanes, earliest first, folded to the last one */
    x = _mm_xor_si128(
        _mm_xor_si128(fold(_mm512_extracti32x4_epi32(x0, 0),
                           _mm_set_epi64x((long long)K_48_HI, (long long)K_48_LO)),
                      fold(_mm512_extracti32x4_epi32(x0, 1),
                           _mm_set_epi64x((long long)K_32_HI, (long long)K_32_LO))),
        _mm_xor_si128(fold(_mm512_extracti32x4_epi32(x0, 2),
                           _mm_set_epi64x((long long)K_16_HI, (long long)K_16_LO)),
                      _mm512_extracti32x4_epi32(x0, 3)));
    return crc32_tail(x, p, n);
}

__attribute__((target("pclmul,sse2"))) static uint32_t crc32_clmul(uint32_t crc,
                                                                   const uint8_t *p, size_t n)
{
    const __m128i k64 = _mm_set_epi64x((long long)K_64_HI, (long long)K_64_LO);
    const __m128i k16 = _mm_set_epi64x((long long)K_16_HI, (long long)K_16_LO);
    __m128i x0, x1, x2, x3;

    /* n >= 64: the caller checked */
    x0 = _mm_loadu_si128((const __m128i *)(const void *)p);
    x1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    x2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
    x3 = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
    x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)~crc));
    p += 64;
    n -= 64;
    for (; n >= 64; n -= 64, p += 64) {
        x0 = _mm_xor_si128(fold(x0, k64), _mm_loadu_si128((const __m128i *)(const void *)p));
        x1 = _mm_xor_si128(fold(x1, k64),
                           _mm_loadu_si128((const __m128i *)(const void *)(p + 16)));
        x2 = _mm_xor_si128(fold(x2, k64),
                           _mm_loadu_si128((const __m128i *)(const void *)(p + 32)));
        x3 = _mm_xor_si128(fold(x3, k64),
                           _mm_loadu_si128((const __m128i *)(const void *)(p + 48)));
    }
    x0 = _mm_xor_si128(fold(x0, k16), x1);
    x0 = _mm_xor_si128(fold(x0, k16), x2);
    x0 = _mm_xor_si128(fold(x0, k16), x3);
    return crc32_tail(x0, p, n);
}
#endif

/* 2 with 512-bit carry-less multiplication, 1 with 128-bit, else 0. The
 * checks read what the startup code found: cheap next to 64 bytes of work. */
static int clmul_ok(void)
{
#ifdef HAVE_CLMUL
    if (!__builtin_cpu_supports("pclmul") || !__builtin_cpu_supports("sse2"))
        return 0;
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq") ? 2 : 1;
#else
    return 0;
#endif
}

uint32_t ct_crc32(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
#ifdef HAVE_CLMUL
    if (n >= 64) {
        const int how = clmul_ok();
        if (how == 2 && n >= 256)
            return crc32_vpclmul(crc, p, n);
        if (how)
            return crc32_clmul(crc, p, n);
    }
#endif
    while (n > 0) {
        uInt take = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = (uint32_t)crc32(crc, p, take);
        p += take;
        n -= take;
    }
    return crc;
}

int ct_crc32_accelerated(void) { return clmul_ok(); }

#ifdef HAVE_CLMUL
uint32_t ct_crc32_path(int how, uint32_t crc, const void *data, size_t n)
{
    if (how == 2 && n >= 256 && clmul_ok() == 2)
        return crc32_vpclmul(crc, data, n);
    if (how >= 1 && n >= 64 && clmul_ok() >= 1)
        return crc32_clmul(crc, data, n);
    return (uint32_t)crc32(crc, data, (uInt)n);
}
#else
uint32_t ct_crc32_path(int how, uint32_t crc, const void *data, size_t n)
{
    (void)how;
    return ct_crc32(crc, data, n);
}
#endif
