/*
 * source_gzip.c - gzip (and zlib) streams through zlib; concatenated gzip
 * members are read one after another, as gzip -d does.
 *
 * Damage: every byte after a member must start another member. Anything
 * else - a member whose header was damaged, or garbage appended - is an
 * error at that compressed byte, as after a zstd or lz4 frame, never the
 * silent end of the stream (gzip -d only warns, and half a trace would be
 * read as a whole one).
 */
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "frontend.h"

typedef struct gz_src {
    z_stream z;
    ct_bytes *in;
    int done;
    ct_error kept;      /* a fault found after bytes were returned */
} gz_src;

static int gz_probe(const uint8_t *h, size_t n)
{
    return n >= 3 && h[0] == 0x1f && h[1] == 0x8b && h[2] == 8;
}

static int gz_open(void **st, ct_bytes *inner, ct_error *err)
{
    gz_src *g = calloc(1, sizeof *g);
    if (!g)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", inner->name);
    g->in = inner;
    if (inflateInit2(&g->z, 15 + 32) != Z_OK) {
        free(g);
        return ct_error_set(err, CT_E_NOMEM, "%s: cannot start gzip decoder", inner->name);
    }
    *st = g;
    return CT_OK;
}

static ssize_t gz_read(void *st, uint8_t *dst, size_t n, ct_error *err)
{
    gz_src *g = st;
    ct_bytes *in = g->in;

    if (g->kept.code)
        return ct_source_kept(&g->kept, err);
    if (g->done)
        return 0;
    g->z.next_out = dst;
    g->z.avail_out = (uInt)(n > (1u << 30) ? (1u << 30) : n);
    while (g->z.avail_out > 0) {
        ssize_t avail = ct_bytes_fill(in, 1, err);
        int zr;
        if (avail < 0)
            return ct_source_fail(&g->kept, n - g->z.avail_out, (int)avail, err);
        if (avail == 0) {
            if (g->z.total_in == 0 && g->z.avail_out == n)
                break;
            return ct_source_fail(&g->kept, n - g->z.avail_out,
                                  ct_error_set(err, CT_E_FORMAT,
                                               "%s: compressed byte %llu: gzip stream truncated",
                                               in->name, (unsigned long long)ct_bytes_offset(in)),
                                  err);
        }
        g->z.next_in = (Bytef *)ct_bytes_ptr(in);
        g->z.avail_in = (uInt)avail;
        zr = inflate(&g->z, Z_NO_FLUSH);
        ct_bytes_skip(in, (size_t)avail - g->z.avail_in);
        if (zr == Z_STREAM_END) {
            /* another member may follow */
            ssize_t more = ct_bytes_fill(in, 2, err);
            if (more < 0)
                return ct_source_fail(&g->kept, n - g->z.avail_out, (int)more, err);
            if (more >= 2 && ct_bytes_ptr(in)[0] == 0x1f && ct_bytes_ptr(in)[1] == 0x8b) {
                inflateReset(&g->z);
                continue;
            }
            if (more > 0)
                return ct_source_fail(
                    &g->kept, n - g->z.avail_out,
                    ct_error_set(err, CT_E_FORMAT,
                                 "%s: compressed byte %llu: bytes after the gzip member do not "
                                 "start another member (a damaged member header, or garbage "
                                 "appended)",
                                 in->name, (unsigned long long)ct_bytes_offset(in)),
                    err);
            g->done = 1;
            break;
        }
        if (zr != Z_OK && zr != Z_BUF_ERROR)
            return ct_source_fail(
                &g->kept, n - g->z.avail_out,
                ct_error_set(err, CT_E_FORMAT, "%s: compressed byte %llu: corrupt gzip data: %s",
                             in->name, (unsigned long long)ct_bytes_offset(in),
                             g->z.msg ? g->z.msg : "inflate failed"),
                err);
    }
    return (ssize_t)(n - g->z.avail_out);
}

static void gz_close(void *st)
{
    gz_src *g = st;
    if (!g)
        return;
    inflateEnd(&g->z);
    free(g);
}

static const ct_error *gz_fault(void *st)
{
    const gz_src *s = st;
    return s->kept.code ? &s->kept : NULL;
}

const ct_source_ops ct_source_gzip = {
    .name = "gzip",
    .probe = gz_probe, .open = gz_open, .read = gz_read, .close = gz_close,
    .fault = gz_fault,
};
