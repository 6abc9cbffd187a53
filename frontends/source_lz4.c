/*
 * source_lz4.c - lz4 frame streams through liblz4 (lz4frame.h); several
 * frames in a row, skippable frames included, are read as one stream, as
 * lz4 -d does. Checksums present in a frame are verified by liblz4.
 */
#include <stdlib.h>

#include <lz4frame.h>

#include "frontend.h"

typedef struct lz4_src {
    LZ4F_dctx *dctx;
    ct_bytes *in;
    int in_frame;      /* a frame was started and has not ended */
    ct_error kept;      /* a fault found after bytes were returned */
} lz4_src;

static int lz4_probe(const uint8_t *h, size_t n)
{
    /* 0x184D2204 (a frame) or 0x184D2A50..5F (a skippable frame), little-endian */
    return n >= 4 && h[3] == 0x18 && h[2] == 0x4d &&
           ((h[1] == 0x22 && h[0] == 0x04) || (h[1] == 0x2a && (h[0] & 0xf0) == 0x50));
}

static int lz4_open(void **st, ct_bytes *inner, ct_error *err)
{
    lz4_src *s = calloc(1, sizeof *s);
    if (!s)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", inner->name);
    if (LZ4F_isError(LZ4F_createDecompressionContext(&s->dctx, LZ4F_VERSION))) {
        free(s);
        return ct_error_set(err, CT_E_NOMEM, "%s: cannot start lz4 decoder", inner->name);
    }
    s->in = inner;
    *st = s;
    return CT_OK;
}

static ssize_t lz4_read(void *st, uint8_t *dst, size_t n, ct_error *err)
{
    lz4_src *s = st;
    size_t done = 0;

    if (s->kept.code)
        return ct_source_kept(&s->kept, err);
    while (done < n) {
        ssize_t avail = ct_bytes_fill(s->in, 1, err);
        size_t in_size, out_size = n - done;
        size_t r;

        if (avail < 0)
            return ct_source_fail(&s->kept, done, (int)avail, err);
        if (avail == 0) {
            if (s->in_frame)
                return ct_source_fail(
                    &s->kept, done,
                    ct_error_set(err, CT_E_FORMAT, "%s: compressed byte %llu: lz4 stream truncated",
                                 s->in->name, (unsigned long long)ct_bytes_offset(s->in)),
                    err);
            break;
        }
        in_size = (size_t)avail;
        r = LZ4F_decompress(s->dctx, dst + done, &out_size, ct_bytes_ptr(s->in), &in_size,
                            NULL);
        if (LZ4F_isError(r))
            return ct_source_fail(
                &s->kept, done,
                ct_error_set(err, CT_E_FORMAT, "%s: compressed byte %llu: corrupt lz4 data: %s",
                             s->in->name, (unsigned long long)ct_bytes_offset(s->in),
                             LZ4F_getErrorName(r)),
                err);
        ct_bytes_skip(s->in, in_size);
        done += out_size;
        s->in_frame = r != 0;
        if (in_size == 0 && out_size == 0)
            break;
    }
    return (ssize_t)done;
}

static void lz4_close(void *st)
{
    lz4_src *s = st;
    if (!s)
        return;
    LZ4F_freeDecompressionContext(s->dctx);
    free(s);
}

static const ct_error *lz4_fault(void *st)
{
    const lz4_src *s = st;
    return s->kept.code ? &s->kept : NULL;
}

const ct_source_ops ct_source_lz4 = {
    .name = "lz4",
    .probe = lz4_probe, .open = lz4_open, .read = lz4_read, .close = lz4_close,
    .fault = lz4_fault,
};
