/*
 * write_ctr.c - writers of the cachet trace format (frontends/CTR.md).
 *
 *   ctr      the stream compressed as one zstd frame (level 3, content
 *            checksum): the default, what `.ctr.zst` files hold;
 *   ctr-raw  the plain stream.
 *
 * Every access, marker and reference event is written, markers before
 * events before the access they precede (the order a batch implies);
 * nothing is dropped. Of an event, where it was read from (stream, src) is
 * not kept: a reader gives its own stream and no text line. Structure names
 * given with ct_trace_writer_set_names are written before the events that
 * use them. The encoder keeps the same state as the decoder and chooses,
 * field by field, the shortest form the format allows. ctr-raw has no
 * checksum: damage that keeps the framing reads as other values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "cachet/report.h"
#include "ctr_format.h"
#include "frontend.h"

#define OUT_BUF (1u << 18)
#define FLUSH_AT (OUT_BUF - 2 * CTR_NAME_RECORD_MAX)
#define ZSTD_LEVEL 3

typedef struct ctr_w {
    ct_writer *w;
    ZSTD_CCtx *z;             /* NULL: plain output */
    uint8_t *buf;             /* encoded records not yet written */
    size_t n;
    uint8_t *zbuf;            /* compressed output */
    size_t zcap;
    /* the decoder's state, mirrored */
    uint64_t addr[CTR_ACCESS_KINDS], delta[CTR_ACCESS_KINDS];
    uint32_t size[CTR_ACCESS_KINDS];
    uint64_t time, pc, poff;
    uint32_t thread;
    uint16_t cpu;
    uint16_t flags[CTR_ACCESS_KINDS];
    uint8_t op[CTR_ACCESS_KINDS];
    uint64_t mk_prev[CTR_MARKER_FIELDS], mk_stride[CTR_MARKER_FIELDS];
    uint64_t ev_prev[CTR_EVENT_FIELDS];
    /* totals for the end record */
    uint64_t naccess, nmarker, nevent;
    uint32_t names;           /* structure names written */
} ctr_w;

static int emit(ctr_w *c, const uint8_t *data, size_t len, ZSTD_EndDirective end, ct_error *err)
{
    ct_writer *w = c->w;

    if (!c->z) {
        if (len && !w->failed && w->write(w->ctx, (const char *)data, len) != 0)
            w->failed = -1;
    } else {
        ZSTD_inBuffer in = {data, len, 0};
        for (;;) {
            ZSTD_outBuffer out = {c->zbuf, c->zcap, 0};
            size_t left = ZSTD_compressStream2(c->z, &out, &in, end);
            if (ZSTD_isError(left))
                return ct_error_set(err, CT_E_INTERNAL, "zstd compression failed: %s",
                                    ZSTD_getErrorName(left));
            if (out.pos && !w->failed && w->write(w->ctx, (const char *)c->zbuf, out.pos) != 0)
                w->failed = -1;
            if (end == ZSTD_e_end ? left == 0 : in.pos == in.size)
                break;
        }
    }
    return w->failed ? ct_error_set(err, CT_E_IO, "write error") : CT_OK;
}

static int flush(ctr_w *c, ct_error *err)
{
    int rc = emit(c, c->buf, c->n, ZSTD_e_continue, err);
    c->n = 0;
    return rc;
}

static void free_writer(ctr_w *c)
{
    if (!c)
        return;
    ZSTD_freeCCtx(c->z);
    free(c->buf);
    free(c->zbuf);
    free(c);
}

static int open_writer(void **st, ct_writer *w, int compress, ct_error *err)
{
    ctr_w *c = calloc(1, sizeof *c);
    char text[64];
    size_t tl;
    uint8_t *p;

    *st = NULL;
    if (!c || !(c->buf = malloc(OUT_BUF))) {
        free(c);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    c->w = w;
    if (compress) {
        c->zcap = ZSTD_CStreamOutSize();
        c->zbuf = malloc(c->zcap);
        c->z = ZSTD_createCCtx();
        if (!c->zbuf || !c->z ||
            ZSTD_isError(ZSTD_CCtx_setParameter(c->z, ZSTD_c_compressionLevel, ZSTD_LEVEL)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(c->z, ZSTD_c_checksumFlag, 1))) {
            free_writer(c);
            return ct_error_set(err, CT_E_NOMEM, "cannot start the zstd compressor");
        }
    }
    tl = (size_t)snprintf(text, sizeof text, "producer=cachet %s\n", ct_version());
    p = c->buf;
    memcpy(p, CTR_MAGIC, CTR_MAGIC_LEN);
    p += CTR_MAGIC_LEN;
    *p++ = CTR_MAJOR & 0xff;
    *p++ = CTR_MAJOR >> 8;
    *p++ = CTR_MINOR & 0xff;
    *p++ = CTR_MINOR >> 8;
    for (int k = 0; k < 4; k++)
        *p++ = (uint8_t)(tl >> (8 * k));
    memcpy(p, text, tl);
    c->n = CTR_FIXED_HEADER + tl;
    *st = c;
    return CT_OK;
}

static int open_ctr(void **st, ct_writer *w, ct_error *err) { return open_writer(st, w, 1, err); }
static int open_raw(void **st, ct_writer *w, ct_error *err) { return open_writer(st, w, 0, err); }

static uint8_t *put_state(ctr_w *c, uint8_t *p, const ct_access *a)
{
    *p++ = CTR_OTHER | (CTR_STATE << 3);
    p = ctr_put_varint(p, a->thread);
    p = ctr_put_varint(p, a->cpu);
    c->thread = a->thread;
    c->cpu = a->cpu;
    return p;
}

/* The kind state of code k (a kind, CT_LOAD for a misc access) with op. */
static uint8_t *put_kind_state(ctr_w *c, uint8_t *p, unsigned k, uint16_t flags, uint8_t op)
{
    *p++ = CTR_OTHER | (CTR_KIND_STATE << 3);
    p = ctr_put_varint(p, k);
    p = ctr_put_varint(p, flags);
    p = ctr_put_varint(p, op);
    c->flags[k] = flags;
    c->op[k] = op;
    return p;
}

static uint8_t *put_access(ctr_w *c, uint8_t *p, const ct_access *a)
{
    /* a misc access is a load whose kind state has op CTR_OP_MISC */
    const int misc = a->kind == CT_MISC;
    const unsigned k = misc ? CT_LOAD : a->kind;
    const uint8_t op = misc ? CTR_OP_MISC : a->op;
    uint8_t *tag;
    uint64_t d, dt = a->time - c->time, pred;
    uint8_t h = (uint8_t)k;

    if (a->thread != c->thread || a->cpu != c->cpu)
        p = put_state(c, p, a);
    if (a->flags != c->flags[k] || op != c->op[k])
        p = put_kind_state(c, p, k, a->flags, op);
    tag = p++;
    if (a->size == c->size[k])
        h |= CTR_SAME_SIZE;
    else
        p = ctr_put_varint(p, a->size);
    if (dt <= 1) {
        h |= (uint8_t)(dt << CTR_TIME_SHIFT);
    } else {
        h |= CTR_TIME_DELTA << CTR_TIME_SHIFT;
        p = ctr_put_varint(p, ctr_zigzag(dt));
    }
    pred = k == CT_IFETCH ? a->vaddr : c->pc;
    if (a->pc == pred)
        h |= CTR_PC_PREDICTED;
    else
        p = ctr_put_varint(p, ctr_zigzag(a->pc - c->pc));
    d = a->vaddr - c->addr[k];
    if (d == c->delta[k]) {
        h |= CTR_STRIDE;
    } else {
        p = ctr_put_varint(p, ctr_zigzag(d));
        c->delta[k] = d;
    }
    if (a->flags & CT_F_PADDR) {
        uint64_t off = a->paddr - a->vaddr;
        p = ctr_put_varint(p, ctr_zigzag(off - c->poff));
        c->poff = off;
    }
    *tag = h;
    c->size[k] = a->size;
    c->time = a->time;
    c->pc = a->pc;
    c->addr[k] = a->vaddr;
    c->naccess++;
    return p;
}

static uint8_t *put_marker(ctr_w *c, uint8_t *p, const ct_marker *m)
{
    const uint64_t f[CTR_MARKER_FIELDS] = {m->type, m->cpu,  m->thread, m->aux,
                                           m->time, m->value, m->value2};
    uint8_t *mask;

    *p++ = CTR_OTHER | (CTR_MARKER << 3);
    mask = p++;   /* 7 bits: a one-byte varint */
    *mask = 0;
    for (int k = 0; k < CTR_MARKER_FIELDS; k++) {
        uint64_t d = f[k] - c->mk_prev[k];
        if (d != (k >= CTR_MARKER_STRIDED ? c->mk_stride[k] : 0)) {
            *mask |= (uint8_t)(1u << k);
            p = ctr_put_varint(p, ctr_zigzag(d));
            if (k >= CTR_MARKER_STRIDED)
                c->mk_stride[k] = d;
        }
        c->mk_prev[k] = f[k];
    }
    c->nmarker++;
    return p;
}

static uint8_t *put_event(ctr_w *c, uint8_t *p, const ct_event *e)
{
    const uint64_t f[CTR_EVENT_FIELDS] = {e->type,  e->op,    e->cpu,    e->structure,
                                          e->flags, e->stage, e->level,  e->regime,
                                          e->result, e->asid, e->vmid,   e->time,
                                          e->line,  e->addr,  e->value,  e->size};
    uint8_t fields[CTR_EVENT_FIELDS * 10], *q = fields;
    uint64_t mask = 0;

    for (int k = 0; k < CTR_EVENT_FIELDS; k++) {
        uint64_t d = f[k] - c->ev_prev[k];
        if (d) {
            mask |= 1u << k;
            q = ctr_put_varint(q, ctr_zigzag(d));
        }
        c->ev_prev[k] = f[k];
    }
    *p++ = CTR_OTHER | (CTR_EVENT << 3);
    p = ctr_put_varint(p, mask);
    memcpy(p, fields, (size_t)(q - fields));
    c->nevent++;
    return p + (q - fields);
}

static int ctr_put(void *st, const ct_batch *b, uint64_t *dropped, ct_error *err)
{
    ctr_w *c = st;
    uint32_t mi = 0, ei = 0;
    uint8_t *p = c->buf + c->n;

    (void)dropped;
    for (uint32_t i = 0; i <= b->n; i++) {
        while (mi < b->nmk && b->mk[mi].index <= i) {
            p = put_marker(c, p, &b->mk[mi++]);
            if ((size_t)(p - c->buf) > FLUSH_AT) {
                c->n = (size_t)(p - c->buf);
                if (flush(c, err) != CT_OK)
                    return err->code;
                p = c->buf;
            }
        }
        while (ei < b->nev && b->ev[ei].index <= i) {
            p = put_event(c, p, &b->ev[ei++]);
            if ((size_t)(p - c->buf) > FLUSH_AT) {
                c->n = (size_t)(p - c->buf);
                if (flush(c, err) != CT_OK)
                    return err->code;
                p = c->buf;
            }
        }
        if (i == b->n)
            break;
        p = put_access(c, p, &b->acc[i]);
        if ((size_t)(p - c->buf) > FLUSH_AT) {
            c->n = (size_t)(p - c->buf);
            if (flush(c, err) != CT_OK)
                return err->code;
            p = c->buf;
        }
    }
    c->n = (size_t)(p - c->buf);
    return CT_OK;
}

static int ctr_names(void *st, const char *const *names, uint32_t n, ct_error *err)
{
    ctr_w *c = st;
    for (; c->names < n; c->names++) {
        size_t len = strlen(names[c->names]);
        uint8_t *p;
        if (len == 0 || len > CTR_NAME_MAX)
            return ct_error_set(err, CT_E_UNSUPPORTED,
                                "structure name \"%.40s\" has %zu bytes (1..%d can be written)",
                                names[c->names], len, CTR_NAME_MAX);
        if (c->n > FLUSH_AT && flush(c, err) != CT_OK)
            return err->code;
        p = c->buf + c->n;
        *p++ = CTR_OTHER | (CTR_NAME << 3);
        p = ctr_put_varint(p, c->names);
        p = ctr_put_varint(p, len);
        memcpy(p, names[c->names], len);
        c->n = (size_t)(p + len - c->buf);
    }
    return CT_OK;
}

static int ctr_finish(void *st, ct_error *err)
{
    ctr_w *c = st;
    int rc;
    uint8_t *p;

    if (c->n > FLUSH_AT && (rc = flush(c, err)) != CT_OK) {
        free_writer(c);
        return rc;
    }
    p = c->buf + c->n;
    *p++ = CTR_OTHER | (CTR_END << 3);
    p = ctr_put_varint(p, c->naccess);
    p = ctr_put_varint(p, c->nmarker);
    p = ctr_put_varint(p, c->nevent);
    c->n = (size_t)(p - c->buf);
    rc = emit(c, c->buf, c->n, ZSTD_e_end, err);
    free_writer(c);
    return rc;
}

const ct_writer_ops ct_writer_ctr = {
    .name = "ctr",
    .desc = "cachet trace format, zstd-compressed (.ctr.zst): every field kept, fast to replay",
    .open = open_ctr, .put = ctr_put, .finish = ctr_finish, .names = ctr_names,
};

const ct_writer_ops ct_writer_ctr_raw = {
    .name = "ctr-raw",
    .desc = "cachet trace format without compression (.ctr)",
    .open = open_raw, .put = ctr_put, .finish = ctr_finish, .names = ctr_names,
};
