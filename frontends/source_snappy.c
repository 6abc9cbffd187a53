/*
 * source_snappy.c - snappy framed streams (the framing format of the snappy
 * project: the .sz files DynamoRIO writes), through libsnappy's C API.
 *
 * A stream is a sequence of chunks: a 1-byte type, a 3-byte little-endian
 * length, then the body.
 *   0xff  stream identifier "sNaPpY" (must come first; may repeat)
 *   0x00  compressed data: 4-byte masked CRC-32C of the uncompressed bytes,
 *         then a snappy block of at most 65536 uncompressed bytes
 *   0x01  uncompressed data: masked CRC-32C, then at most 65536 bytes
 *   0x02  compressed data without a CRC (a DynamoRIO extension)
 *   0x03  uncompressed data without a CRC (a DynamoRIO extension)
 *   0xfe  padding; 0x80-0xfd skippable: both skipped
 *   0x04-0x7f  reserved, unskippable: an error
 * masked CRC = ((crc >> 15) | (crc << 17)) + 0xa282ead8. A CRC mismatch, a
 * block that does not decompress, a chunk cut short: errors naming the
 * compressed offset of the chunk.
 */
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "frontend.h"

#define SZ_MAX_BLOCK 65536u

typedef struct sz_src {
    ct_bytes *in;
    int seen_id;
    int hw_crc;                  /* the CPU has the SSE4.2 crc32 instruction */
    uint32_t crc_table[8][256];  /* slice-by-8 tables otherwise */
    uint8_t out[SZ_MAX_BLOCK];
    size_t out_pos, out_len;
    ct_error kept;      /* a fault found after bytes were returned */
} sz_src;

static int sz_probe(const uint8_t *h, size_t n)
{
    static const uint8_t id[10] = {0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'};
    return n >= sizeof id && memcmp(h, id, sizeof id) == 0;
}

/* CRC-32C (Castagnoli, reflected polynomial 0x82f63b78). */
static void crc32c_init(uint32_t t[8][256])
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int k = 1; k < 8; k++)
            t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
}

static uint32_t crc32c_sw(uint32_t t[8][256], const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (; n >= 8; n -= 8, p += 8) {
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                           (uint32_t)p[3] << 24);
        c = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^
            t[4][lo >> 24] ^ t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
    }
    while (n--)
        c = t[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

#if defined(__GNUC__) && defined(__x86_64__)
#define HAVE_HW_CRC 1
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(const uint8_t *p, size_t n)
{
    uint64_t c = 0xffffffffu;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
    }
    while (n--)
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    return (uint32_t)c ^ 0xffffffffu;
}
#endif

static uint32_t masked_crc(sz_src *s, const uint8_t *p, size_t n)
{
    uint32_t c;
#ifdef HAVE_HW_CRC
    if (s->hw_crc)
        c = crc32c_hw(p, n);
    else
#endif
        c = crc32c_sw(s->crc_table, p, n);
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

static int sz_open(void **st, ct_bytes *inner, ct_error *err)
{
    sz_src *s = calloc(1, sizeof *s);
    if (!s)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", inner->name);
    s->in = inner;
    crc32c_init(s->crc_table);
#ifdef HAVE_HW_CRC
    __builtin_cpu_init();
    s->hw_crc = __builtin_cpu_supports("sse4.2");
#endif
    *st = s;
    return CT_OK;
}

static int bad(sz_src *s, uint64_t at, const char *why, ct_error *err)
{
    return ct_error_set(err, CT_E_FORMAT, "%s: compressed byte %llu: %s", s->in->name,
                        (unsigned long long)at, why);
}

/* Read the next data chunk into dst (room for SZ_MAX_BLOCK bytes). Returns
 * its length (> 0), 0 at the end, or a negative code. */
static int next_chunk(sz_src *s, uint8_t *dst, ct_error *err)
{
    ct_bytes *in = s->in;

    for (;;) {
        uint64_t at = ct_bytes_offset(in);
        ssize_t avail = ct_bytes_fill(in, 4, err);
        const uint8_t *p;
        uint32_t type, len;

        if (avail < 0)
            return (int)avail;
        if (avail == 0)
            return 0;
        if (avail < 4)
            return bad(s, at, "snappy stream truncated inside a chunk header", err);
        p = ct_bytes_ptr(in);
        type = p[0];
        len = (uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16;
        ct_bytes_skip(in, 4);
        if (type != 0xff && !s->seen_id)
            return bad(s, at, "snappy stream does not start with its stream identifier", err);
        if (type >= 0x80 && type != 0xff) { /* padding and skippable chunks */
            while (len > 0) {
                ssize_t got = ct_bytes_fill(in, len, err);
                size_t take;
                if (got < 0)
                    return (int)got;
                if (got == 0)
                    return bad(s, at, "snappy stream truncated inside a skippable chunk", err);
                take = (size_t)got < len ? (size_t)got : len;
                ct_bytes_skip(in, take);
                len -= (uint32_t)take;
            }
            continue;
        }
        if (type > 0x03 && type != 0xff)
            return bad(s, at, "reserved unskippable snappy chunk type", err);
        if (len > in->cap)
            return bad(s, at, "snappy chunk longer than any valid chunk", err);
        avail = ct_bytes_fill(in, len, err);
        if (avail < 0)
            return (int)avail;
        if ((size_t)avail < len)
            return bad(s, at, "snappy stream truncated inside a chunk", err);
        p = ct_bytes_ptr(in);
        if (type == 0xff) {
            if (len != 6 || memcmp(p, "sNaPpY", 6) != 0)
                return bad(s, at, "bad snappy stream identifier", err);
            s->seen_id = 1;
            ct_bytes_skip(in, len);
            continue;
        }
        {
            int has_crc = type == 0x00 || type == 0x01;
            int compressed = type == 0x00 || type == 0x02;
            size_t body = len - (has_crc ? 4u : 0u);
            const uint8_t *data = p + (has_crc ? 4 : 0);
            size_t out_len = SZ_MAX_BLOCK;

            if (has_crc && len < 4)
                return bad(s, at, "snappy data chunk shorter than its CRC", err);
            if (compressed) {
                size_t need;
                if (snappy_uncompressed_length((const char *)data, body, &need) != SNAPPY_OK ||
                    need > SZ_MAX_BLOCK)
                    return bad(s, at, "corrupt snappy block (bad length)", err);
                if (snappy_uncompress((const char *)data, body, (char *)dst, &out_len) !=
                    SNAPPY_OK)
                    return bad(s, at, "corrupt snappy block", err);
            } else {
                if (body > SZ_MAX_BLOCK)
                    return bad(s, at, "uncompressed snappy chunk longer than 65536 bytes", err);
                memcpy(dst, data, body);
                out_len = body;
            }
            if (has_crc) {
                uint32_t want = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                (uint32_t)p[3] << 24;
                if (masked_crc(s, dst, out_len) != want)
                    return bad(s, at, "snappy chunk CRC mismatch (corrupt data)", err);
            }
            ct_bytes_skip(in, len);
            if (out_len > 0)
                return (int)out_len;
        }
    }
}

static ssize_t sz_read(void *st, uint8_t *dst, size_t n, ct_error *err)
{
    sz_src *s = st;
    size_t done = 0;

    if (s->kept.code)
        return ct_source_kept(&s->kept, err);
    while (done < n) {
        size_t take;
        if (s->out_pos == s->out_len) {
            int rc;
            if (n - done >= SZ_MAX_BLOCK) {  /* room for a whole block: no copy */
                rc = next_chunk(s, dst + done, err);
                if (rc <= 0) {
                    if (rc < 0)
                        return ct_source_fail(&s->kept, done, rc, err);
                    break;
                }
                done += (size_t)rc;
                continue;
            }
            rc = next_chunk(s, s->out, err);
            if (rc < 0)
                return ct_source_fail(&s->kept, done, rc, err);
            if (rc == 0)
                break;
            s->out_pos = 0;
            s->out_len = (size_t)rc;
        }
        take = s->out_len - s->out_pos;
        if (take > n - done)
            take = n - done;
        memcpy(dst + done, s->out + s->out_pos, take);
        s->out_pos += take;
        done += take;
    }
    return (ssize_t)done;
}

static const ct_error *sz_fault(void *st)
{
    const sz_src *s = st;
    return s->kept.code ? &s->kept : NULL;
}

const ct_source_ops ct_source_snappy = {
    .name = "snappy",
    .probe = sz_probe, .open = sz_open, .read = sz_read, .close = free,
    .fault = sz_fault,
};
