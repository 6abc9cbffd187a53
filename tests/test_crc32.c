/*
 * test_crc32.c - ct_crc32 (the CRC of zip members) equals zlib's crc32() on
 * every length from 0 to 4 KiB, at every alignment of the first byte, in
 * pieces of any size, and on a large buffer.
 */
#include <zlib.h>

#include "frontends/frontend.h"
#include "harness.h"

static uint8_t data[(1u << 20) + 64];

static void fill(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;  /* fixed seed */
    for (size_t i = 0; i < sizeof data; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data[i] = (uint8_t)x;
    }
}

TEST(every_length_and_alignment_matches_zlib)
{
    /* each way the CPU has: 128-bit and 512-bit folding, and the default */
    for (int how = 1; how <= 3; how++) {
        size_t bad = 0;
        for (size_t off = 0; off < 16; off++)
            for (size_t n = 0; n <= 4096; n++) {
                uint32_t want = (uint32_t)crc32(0, data + off, (uInt)n);
                uint32_t got = how == 3 ? ct_crc32(0, data + off, n)
                                        : ct_crc32_path(how, 0, data + off, n);
                if (got != want)
                    bad++;
            }
        CHECK_EQ_U64(bad, 0);
    }
}

TEST(continuing_in_pieces_matches_one_call)
{
    const size_t n = 100000;
    uint32_t want = (uint32_t)crc32(0, data, (uInt)n), c = 0;
    size_t at = 0, step = 1;
    while (at < n) {
        size_t take = step < n - at ? step : n - at;
        c = ct_crc32(c, data + at, take);
        at += take;
        step = step * 3 + 1;  /* 1, 4, 13, 40, ...: short and long pieces */
    }
    CHECK_EQ_U64(c, want);
}

TEST(a_megabyte_and_a_flipped_bit)
{
    uint32_t want = (uint32_t)crc32(0, data, (uInt)(1u << 20));
    CHECK_EQ_U64(ct_crc32(0, data, 1u << 20), want);
    data[12345] ^= 0x10;
    CHECK(ct_crc32(0, data, 1u << 20) != want);
    CHECK_EQ_U64(ct_crc32(0, data, 1u << 20), crc32(0, data, (uInt)(1u << 20)));
    data[12345] ^= 0x10;
    CHECK_EQ_U64(ct_crc32_path(1, 0, data, 1u << 20), want);
    fprintf(stderr, "  (carry-less multiplication: %s)\n",
            ct_crc32_accelerated() == 2   ? "512-bit"
            : ct_crc32_accelerated() == 1 ? "128-bit"
                                          : "none");
}

int main(void)
{
    fill();
    RUN(every_length_and_alignment_matches_zlib);
    RUN(continuing_in_pieces_matches_one_call);
    RUN(a_megabyte_and_a_flipped_bit);
    return harness_done();
}
