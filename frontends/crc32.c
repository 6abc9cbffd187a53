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

/* Folding distances, reflected: {x^(512+32) mod P, x^(512-32) mod P} for
 * 64 bytes, {x^(128+32) mod P, x^(128-32) mod P} for 16 bytes, each shifted
 * left by one bit (the reflected product comes out one bit short). */
#define K_64_LO 0x154442bd4ull
#define K_64_HI 0x1c6e41596ull
#define K_16_LO 0x1751997d0ull
#define K_16_HI 0x0ccaa009eull

__attribute__((target("pclmul,sse2"))) static inline __m128i fold(__m128i x, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

__attribute__((target("pclmul,sse2"))) static uint32_t crc32_clmul(uint32_t crc,
                                                                   const uint8_t *p, size_t n)
{
    const __m128i k64 = _mm_set_epi64x((long long)K_64_HI, (long long)K_64_LO);
    const __m128i k16 = _mm_set_epi64x((long long)K_16_HI, (long long)K_16_LO);
    __m128i x0, x1, x2, x3;
    uint8_t last[16];
    uLong c;

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
    for (; n >= 16; n -= 16, p += 16)
        x0 = _mm_xor_si128(fold(x0, k16), _mm_loadu_si128((const __m128i *)(const void *)p));
    _mm_storeu_si128((__m128i *)(void *)last, x0);
    /* the CRC of `last` from a zero register, then of the tail */
    c = crc32(0xffffffffu, last, 16);
    return (uint32_t)crc32(c, p, (uInt)n);
}
#endif

static int clmul_ok(void)
{
#ifdef HAVE_CLMUL
    /* reads what the startup code found; cheap next to 64 bytes of work */
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse2");
#else
    return 0;
#endif
}

uint32_t ct_crc32(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
#ifdef HAVE_CLMUL
    if (n >= 64 && clmul_ok())
        return crc32_clmul(crc, p, n);
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
