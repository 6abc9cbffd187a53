/*
 * source_zstd.c - zstd streams (several frames in a row are read as one
 * stream, as zstd -d does).
 */
#include <stdlib.h>

#include <zstd.h>

#include "frontend.h"

typedef struct zs_src {
    ZSTD_DStream *z;
    ct_bytes *in;
    int in_frame;      /* a frame was started and has not ended */
    ct_error kept;      /* a fault found after bytes were returned */
} zs_src;

static int zs_probe(const uint8_t *h, size_t n)
{
    return n >= 4 && h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd;
}

static int zs_open(void **st, ct_bytes *inner, ct_error *err)
{
    zs_src *s = calloc(1, sizeof *s);
    if (!s)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", inner->name);
    s->in = inner;
    s->z = ZSTD_createDStream();
    if (!s->z) {
        free(s);
        return ct_error_set(err, CT_E_NOMEM, "%s: cannot start zstd decoder", inner->name);
    }
    ZSTD_initDStream(s->z);
    *st = s;
    return CT_OK;
}

static ssize_t zs_read(void *st, uint8_t *dst, size_t n, ct_error *err)
{
    zs_src *s = st;
    ZSTD_outBuffer out = {dst, n, 0};

    if (s->kept.code)
        return ct_source_kept(&s->kept, err);
    while (out.pos < out.size) {
        ssize_t avail = ct_bytes_fill(s->in, 1, err);
        ZSTD_inBuffer in;
        size_t r;
        if (avail < 0)
            return ct_source_fail(&s->kept, out.pos, (int)avail, err);
        if (avail == 0) {
            if (s->in_frame)
                return ct_source_fail(
                    &s->kept, out.pos,
                    ct_error_set(err, CT_E_FORMAT,
                                 "%s: compressed byte %llu: zstd stream truncated", s->in->name,
                                 (unsigned long long)ct_bytes_offset(s->in)),
                    err);
            break;
        }
        in.src = ct_bytes_ptr(s->in);
        in.size = (size_t)avail;
        in.pos = 0;
        r = ZSTD_decompressStream(s->z, &out, &in);
        ct_bytes_skip(s->in, in.pos);
        if (ZSTD_isError(r))
            return ct_source_fail(
                &s->kept, out.pos,
                ct_error_set(err, CT_E_FORMAT, "%s: compressed byte %llu: corrupt zstd data: %s",
                             s->in->name, (unsigned long long)ct_bytes_offset(s->in),
                             ZSTD_getErrorName(r)),
                err);
        s->in_frame = r != 0;
        if (in.pos == 0 && out.pos == 0 && r == 0)
            break;
    }
    return (ssize_t)out.pos;
}

static void zs_close(void *st)
{
    zs_src *s = st;
    if (!s)
        return;
    ZSTD_freeDStream(s->z);
    free(s);
}

static const ct_error *zs_fault(void *st)
{
    const zs_src *s = st;
    return s->kept.code ? &s->kept : NULL;
}

const ct_source_ops ct_source_zstd = {
    .name = "zstd",
    .probe = zs_probe, .open = zs_open, .read = zs_read, .close = zs_close,
    .fault = zs_fault,
};
