/*
 * write_din.c - DineroIV din output: "label address" per access, label 0
 * load, 1 store, 2 ifetch, 3 misc, 4 copy back and 5 invalidate (of the
 * block of the address, as din.c reads them).
 * din has no sizes: every access becomes one 4-byte reference at its
 * address. An atomic becomes a read then a write. A data-side clean of at
 * most 4 bytes is label 4; an invalidate of both sides (din.c's label 5)
 * is label 5. Prefetches, other cache operations (whole-cache ones, ranges
 * din cannot name) and instructions without a fetch are dropped (counted). An
 * access whose address the trace masks (CT_F_NOADDR) stops the writer
 * (CT_E_UNSUPPORTED): din would need an address, and none is invented.
 */
#include <stdio.h>
#include <stdlib.h>

#include "frontend.h"

typedef struct din_w {
    ct_writer *w;
    char buf[1 << 16];
    size_t n;
} din_w;

static int dw_open(void **st, ct_writer *w, ct_error *err)
{
    din_w *d = calloc(1, sizeof *d);
    if (!d)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    d->w = w;
    *st = d;
    return CT_OK;
}

static int flush(din_w *d, ct_error *err)
{
    if (d->n && !d->w->failed && d->w->write(d->w->ctx, d->buf, d->n) != 0)
        d->w->failed = -1;
    d->n = 0;
    return d->w->failed ? ct_error_set(err, CT_E_IO, "write error") : CT_OK;
}

static void line(din_w *d, int label, uint64_t addr)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[16];
    int k = 0;

    d->buf[d->n++] = (char)('0' + label);
    d->buf[d->n++] = ' ';
    do {
        tmp[k++] = hex[addr & 15];
        addr >>= 4;
    } while (addr);
    while (k)
        d->buf[d->n++] = tmp[--k];
    d->buf[d->n++] = '\n';
}

/* The error for an access whose address the trace masks. */
static int masked(const ct_access *a, const char *format, ct_error *err)
{
    return ct_error_set(err, CT_E_UNSUPPORTED,
                        "the %s at trace time %llu has a masked address: %s output needs the "
                        "address, and none is invented", ct_kind_name(a->kind),
                        (unsigned long long)a->time, format);
}

static int dw_put(void *st, const ct_batch *b, uint64_t *dropped, ct_error *err)
{
    din_w *d = st;
    for (uint32_t i = 0; i < b->n; i++) {
        const ct_access *a = &b->acc[i];
        if (d->n > sizeof d->buf - 64 && flush(d, err) != CT_OK)
            return err->code;
        if (a->flags & CT_F_NOADDR)
            return masked(a, "din", err);
        switch (a->kind) {
        case CT_LOAD: line(d, 0, a->vaddr); break;
        case CT_STORE: line(d, 1, a->vaddr); break;
        case CT_IFETCH: line(d, 2, a->vaddr); break;
        case CT_MISC: line(d, 3, a->vaddr); break;
        case CT_ATOMIC:
            line(d, 0, a->vaddr);
            line(d, 1, a->vaddr);
            break;
        case CT_CACHEOP:
            if (a->op == CT_OP_CLEAN && a->size <= 4)
                line(d, 4, a->vaddr);
            else if (a->op == (CT_OP_INVAL | CT_OP_BOTH))
                line(d, 5, a->vaddr);
            else
                (*dropped)++;
            break;
        default:
            (*dropped)++;
        }
    }
    return CT_OK;
}

static int dw_finish(void *st, ct_error *err)
{
    din_w *d = st;
    int rc = flush(d, err);
    free(d);
    return rc;
}

const ct_writer_ops ct_writer_din = {
    .name = "din",
    .desc = "DineroIV din text (4-byte references; sizes are lost)",
    .open = dw_open, .put = dw_put, .finish = dw_finish,
};
