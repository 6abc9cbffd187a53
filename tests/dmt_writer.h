/*
 * dmt_writer.h - a tiny drmemtrace writer for tests: trace_entry_t records
 * (12- or 8-byte) built in memory, and the containers cachet reads (gzip,
 * zstd, lz4 frame, snappy framed, zip with chunk members) written to files
 * in a scratch directory that dw_cleanup() removes.
 *
 * Record and marker numbers are DynamoRIO's (trace_entry.h), written here
 * from the format description, independently of the decoder.
 */
#ifndef CT_DMT_WRITER_H
#define CT_DMT_WRITER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lz4frame.h>
#include <snappy-c.h>
#include <zip.h>
#include <zlib.h>
#include <zstd.h>

enum {
    DW_READ = 0, DW_WRITE = 1, DW_PREFETCH = 2, DW_PREFETCHT0 = 3, DW_PREFETCH_WRITE = 8,
    DW_PREFETCH_INSTR = 9, DW_INSTR = 10, DW_DIRECT_JUMP = 11, DW_CONDITIONAL_JUMP = 13,
    DW_BUNDLE = 17, DW_INSTR_FLUSH = 18, DW_INSTR_FLUSH_END = 19, DW_DATA_FLUSH = 20,
    DW_DATA_FLUSH_END = 21, DW_THREAD = 22, DW_THREAD_EXIT = 23, DW_PID = 24, DW_HEADER = 25,
    DW_FOOTER = 26, DW_MARKER = 28, DW_NO_FETCH = 29, DW_MAYBE_FETCH = 30,
    DW_PREFETCH_INSTR_L1 = 35, DW_PREFETCH_WRITE_L2_NT = 44, DW_ENCODING = 47,
    DW_TAKEN_JUMP = 48
};

enum {
    DWM_KERNEL_EVENT = 0, DWM_TIMESTAMP = 2, DWM_CPU_ID = 3, DWM_FILETYPE = 9,
    DWM_CACHE_LINE_SIZE = 10, DWM_VERSION = 12, DWM_PHYSICAL_ADDRESS = 15,
    DWM_VIRTUAL_ADDRESS = 17, DWM_PAGE_SIZE = 18, DWM_CHUNK_INSTR_COUNT = 20,
    DWM_CHUNK_FOOTER = 21, DWM_RECORD_ORDINAL = 22, DWM_BRANCH_TARGET = 29,
    DWM_CORE_IDLE = 33
};

#define DW_FT_X86_32 0x20
#define DW_FT_X86_64 0x40
#define DW_FT_ENCODINGS 0x200
#define DW_FT_TEMPLATES 0x4000

typedef struct dw_buf {
    uint8_t *p;
    size_t n, cap;
    unsigned rs;      /* 12 or 8 */
} dw_buf;

static inline void dw_init(dw_buf *b, unsigned rs)
{
    memset(b, 0, sizeof *b);
    b->rs = rs;
}

static inline void dw_free(dw_buf *b) { free(b->p); memset(b, 0, sizeof *b); }

static inline void dw_bytes(dw_buf *b, const void *data, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 256;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

static inline void dw_rec(dw_buf *b, unsigned type, unsigned size, uint64_t addr)
{
    uint8_t r[12];
    r[0] = (uint8_t)type;
    r[1] = (uint8_t)(type >> 8);
    r[2] = (uint8_t)size;
    r[3] = (uint8_t)(size >> 8);
    for (unsigned i = 0; i < b->rs - 4; i++)
        r[4 + i] = (uint8_t)(addr >> (8 * i));
    dw_bytes(b, r, b->rs);
}

static inline void dw_marker(dw_buf *b, unsigned type, uint64_t value)
{
    dw_rec(b, DW_MARKER, type, value);
}

/* HEADER, VERSION and FILETYPE (version >= 3), THREAD, PID, CACHE_LINE_SIZE,
 * CHUNK_INSTR_COUNT (0: not chunked). */
static inline void dw_header(dw_buf *b, unsigned version, uint64_t filetype, uint64_t tid,
                      uint64_t chunk_instrs)
{
    dw_rec(b, DW_HEADER, 0, version);
    if (version >= 3) {
        dw_marker(b, DWM_VERSION, version);
        dw_marker(b, DWM_FILETYPE, filetype);
    }
    dw_rec(b, DW_THREAD, 8, tid);
    dw_rec(b, DW_PID, 8, 4242);
    dw_marker(b, DWM_CACHE_LINE_SIZE, 64);
    dw_marker(b, DWM_CHUNK_INSTR_COUNT, chunk_instrs);
}

static inline void dw_end(dw_buf *b, uint64_t tid)
{
    dw_rec(b, DW_THREAD_EXIT, 8, tid);
    dw_rec(b, DW_FOOTER, 0, 0);
}

/* ---- files ---- */

static char dw_dir[256];

static const char *dw_path(const char *name)
{
    static char buf[8][512];
    static int k;
    char *p = buf[k++ & 7];
    if (!dw_dir[0]) {
        snprintf(dw_dir, sizeof dw_dir, "/tmp/cachet-test-XXXXXX");
        if (!mkdtemp(dw_dir))
            abort();
    }
    snprintf(p, 512, "%s/%s", dw_dir, name);
    return p;
}

static inline void dw_cleanup(void)
{
    char cmd[600];
    if (!dw_dir[0])
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dw_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dw_dir);
}

static inline void dw_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n)
        abort();
    fclose(f);
}

static inline void dw_gzip(const char *path, const void *data, size_t n)
{
    gzFile g = gzopen(path, "wb");
    if (!g || gzwrite(g, data, (unsigned)n) != (int)n)
        abort();
    gzclose(g);
}

static inline void dw_zstd(const char *path, const void *data, size_t n)
{
    size_t cap = ZSTD_compressBound(n);
    void *out = malloc(cap);
    size_t got = ZSTD_compress(out, cap, data, n, 3);
    if (ZSTD_isError(got))
        abort();
    dw_file(path, out, got);
    free(out);
}

static inline void dw_lz4(const char *path, const void *data, size_t n)
{
    size_t cap = LZ4F_compressFrameBound(n, NULL);
    void *out = malloc(cap);
    size_t got = LZ4F_compressFrame(out, cap, data, n, NULL);
    if (LZ4F_isError(got))
        abort();
    dw_file(path, out, got);
    free(out);
}

static inline uint32_t dw_crc32c(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
    }
    return ~c;
}

/* Snappy framed: the stream identifier, then compressed chunks of `block`
 * bytes (at most 65536) with masked CRCs. */
static inline void dw_snappy(const char *path, const uint8_t *data, size_t n, size_t block)
{
    dw_buf o;
    static const uint8_t id[10] = {0xff, 6, 0, 0, 's', 'N', 'a', 'P', 'p', 'Y'};
    dw_init(&o, 12);
    dw_bytes(&o, id, sizeof id);
    for (size_t at = 0; at < n; at += block) {
        size_t len = n - at < block ? n - at : block;
        size_t clen = snappy_max_compressed_length(len);
        char *c = malloc(clen);
        uint32_t crc = dw_crc32c(data + at, len);
        uint32_t masked = ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
        uint8_t hdr[8];
        if (snappy_compress((const char *)data + at, len, c, &clen) != SNAPPY_OK)
            abort();
        hdr[0] = 0x00;
        hdr[1] = (uint8_t)(clen + 4);
        hdr[2] = (uint8_t)((clen + 4) >> 8);
        hdr[3] = (uint8_t)((clen + 4) >> 16);
        for (int i = 0; i < 4; i++)
            hdr[4 + i] = (uint8_t)(masked >> (8 * i));
        dw_bytes(&o, hdr, 8);
        dw_bytes(&o, c, clen);
        free(c);
    }
    dw_file(path, o.p, o.n);
    dw_free(&o);
}

/* A zip archive whose members are added (and so stored) in the order given;
 * stored[i] (when stored is not NULL) keeps member i uncompressed. */
static inline void dw_zip_stored(const char *path, int members, const char *const *names,
                                 const dw_buf *const *data, const int *stored)
{
    int zerr;
    zip_t *z;
    unlink(path);
    z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    if (!z)
        abort();
    for (int i = 0; i < members; i++) {
        zip_source_t *src = zip_source_buffer(z, data[i]->p, data[i]->n, 0);
        zip_int64_t at;
        if (!src || (at = zip_file_add(z, names[i], src, ZIP_FL_ENC_UTF_8)) < 0)
            abort();
        if (stored && stored[i] && zip_set_file_compression(z, (zip_uint64_t)at, ZIP_CM_STORE, 0))
            abort();
    }
    if (zip_close(z) != 0)
        abort();
}

static inline void dw_zip(const char *path, int members, const char *const *names,
                          const dw_buf *const *data)
{
    dw_zip_stored(path, members, names, data, NULL);
}

/* The whole of a file, malloc'd (abort on failure). */
static inline uint8_t *dw_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p;
    long len;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0)
        abort();
    rewind(f);
    p = malloc((size_t)len + 1);
    if (!p || fread(p, 1, (size_t)len, f) != (size_t)len)
        abort();
    fclose(f);
    *n = (size_t)len;
    return p;
}

/* Offset of the data of member i of a zip archive written by dw_zip (local
 * headers in order, sizes in the headers). */
static inline size_t dw_zip_data_at(const uint8_t *zip, int i)
{
    size_t at = 0;
    for (;;) {
        const uint8_t *h = zip + at;
        size_t csize = (size_t)h[18] | (size_t)h[19] << 8 | (size_t)h[20] << 16 |
                       (size_t)h[21] << 24;
        size_t data = at + 30 + (h[26] | h[27] << 8) + (h[28] | h[29] << 8);
        if (h[0] != 'P' || h[1] != 'K' || h[2] != 3 || h[3] != 4)
            abort();
        if (i-- == 0)
            return data;
        at = data + csize;
    }
}

#endif
