/*
 * write_tarmac.c - Arm Tarmac text in the Fast Models style: memory access
 * lines, and one instruction line per instruction fetch, for tools that
 * read Tarmac. Every line starts with "<time> clk cpu<cpu> " (the access's
 * time and traced cpu).
 *
 *   load, store  M<R|W><size>[X][T] <vaddr>[:<paddr>[_NS]] <data>
 *                X for CT_F_EXCL, T for CT_F_UNPRIV; the physical address
 *                only when the access has one (CT_F_PADDR), with _NS when
 *                it is non-secure (CT_F_NS). cachet keeps no data values:
 *                the data is written as unknown digits, 'x', two per byte
 *                ("xxxxxxxx_xxxxxxxx" for 8 bytes, two 16-digit words for
 *                16). Sizes other than 1, 2, 4, 8 and 16 bytes are written
 *                as several lines of those sizes (the largest that fits, in
 *                address order).
 *   atomic       an MR line then an MW line of the same size and address.
 *   ifetch       IT (<n>) <vaddr>[:<paddr>[_NS]] <opcode> <iset> : (fetch)
 *                n counts the fetches from 0. The encoding is not known:
 *                the opcode is zeros of the fetch width, 8 digits with
 *                instruction set O (A64) for 4-byte fetches, 4 digits with
 *                T (T32) for 2-byte ones; no processor mode is written.
 *
 * Not written (counted as dropped): fetches of other sizes, software
 * prefetches, cache operations, instructions without a fetch, and accesses
 * whose address the trace masks (CT_F_NOADDR). Markers and reference
 * events are not written.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "frontend.h"

#define OUT_BUF (1u << 16)
#define LINE_MAX_BYTES 160

typedef struct tarmac_w {
    ct_writer *w;
    uint64_t fetches;
    size_t n;
    char buf[OUT_BUF];
} tarmac_w;

static int tw_open(void **st, ct_writer *w, ct_error *err)
{
    tarmac_w *t = calloc(1, sizeof *t);
    if (!t)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    t->w = w;
    *st = t;
    return CT_OK;
}

static int flush(tarmac_w *t, ct_error *err)
{
    if (t->n && !t->w->failed && t->w->write(t->w->ctx, t->buf, t->n) != 0)
        t->w->failed = -1;
    t->n = 0;
    return t->w->failed ? ct_error_set(err, CT_E_IO, "write error") : CT_OK;
}

/* "<time> clk cpu<cpu> " */
static void prefix(tarmac_w *t, const ct_access *a)
{
    t->n += (size_t)snprintf(t->buf + t->n, LINE_MAX_BYTES, "%" PRIu64 " clk cpu%u ", a->time,
                             (unsigned)a->cpu);
}

/* " <vaddr>[:<paddr>[_NS]]" */
static void address(tarmac_w *t, const ct_access *a, uint64_t offset)
{
    if (a->flags & CT_F_PADDR)
        t->n += (size_t)snprintf(t->buf + t->n, LINE_MAX_BYTES, " %08" PRIx64 ":%012" PRIx64 "%s",
                                 a->vaddr + offset, a->paddr + offset,
                                 a->flags & CT_F_NS ? "_NS" : "");
    else
        t->n += (size_t)snprintf(t->buf + t->n, LINE_MAX_BYTES, " %08" PRIx64, a->vaddr + offset);
}

static void unknown_data(tarmac_w *t, unsigned size)
{
    static const char x16[] = "xxxxxxxxxxxxxxxx";
    const char *d = size == 1 ? "xx" : size == 2 ? "xxxx" : size == 4 ? "xxxxxxxx"
                  : size == 8 ? "xxxxxxxx_xxxxxxxx" : NULL;
    if (d)
        t->n += (size_t)snprintf(t->buf + t->n, LINE_MAX_BYTES, " %s\n", d);
    else
        t->n += (size_t)snprintf(t->buf + t->n, LINE_MAX_BYTES, " %s %s\n", x16, x16);
}

/* One M line per piece of 1, 2, 4, 8 or 16 bytes. */
static int memory(tarmac_w *t, const ct_access *a, char rw, ct_error *err)
{
    uint64_t off = 0, left = a->size ? a->size : 1;

    while (left) {
        unsigned piece = 16;
        while (piece > left)
            piece /= 2;
        if (t->n > OUT_BUF - LINE_MAX_BYTES * 2 && flush(t, err) != CT_OK)
            return err->code;
        prefix(t, a);
        t->n += (size_t)snprintf(t->buf + t->n, LINE_MAX_BYTES, "M%c%u%s%s", rw, piece,
                                 a->flags & CT_F_EXCL ? "X" : "",
                                 a->flags & CT_F_UNPRIV ? "T" : "");
        address(t, a, off);
        unknown_data(t, piece);
        off += piece;
        left -= piece;
    }
    return CT_OK;
}

static int tw_put(void *st, const ct_batch *b, uint64_t *dropped, ct_error *err)
{
    tarmac_w *t = st;

    for (uint32_t i = 0; i < b->n; i++) {
        const ct_access *a = &b->acc[i];
        int rc = CT_OK;

        if (a->flags & CT_F_NOADDR) {
            (*dropped)++;
            continue;
        }
        switch (a->kind) {
        case CT_LOAD: rc = memory(t, a, 'R', err); break;
        case CT_STORE: rc = memory(t, a, 'W', err); break;
        case CT_ATOMIC:
            rc = memory(t, a, 'R', err);
            if (rc == CT_OK)
                rc = memory(t, a, 'W', err);
            break;
        case CT_IFETCH:
            if (a->size != 4 && a->size != 2) {
                (*dropped)++;
                break;
            }
            if (t->n > OUT_BUF - LINE_MAX_BYTES * 2 && flush(t, err) != CT_OK)
                return err->code;
            prefix(t, a);
            t->n += (size_t)snprintf(t->buf + t->n, LINE_MAX_BYTES, "IT (%" PRIu64 ")",
                                     t->fetches++);
            address(t, a, 0);
            t->n += (size_t)snprintf(t->buf + t->n, LINE_MAX_BYTES, " %s : (fetch)\n",
                                     a->size == 4 ? "00000000 O" : "0000 T");
            break;
        default:
            (*dropped)++;
        }
        if (rc != CT_OK)
            return rc;
    }
    return CT_OK;
}

static int tw_finish(void *st, ct_error *err)
{
    tarmac_w *t = st;
    int rc = flush(t, err);
    free(t);
    return rc;
}

const ct_writer_ops ct_writer_tarmac = {
    .name = "tarmac",
    .desc = "Arm Tarmac text: MR/MW lines (data unknown) and IT lines for fetches",
    .open = tw_open, .put = tw_put, .finish = tw_finish,
};
