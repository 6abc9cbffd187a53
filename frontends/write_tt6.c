/*
 * write_tt6.c - Amber TT6 and TT6E output: the access stream written back as
 * PowerPC instruction records that tt6.c decodes to the same accesses where
 * the format allows.
 *
 * Instructions
 *   Every 4-byte, 4-aligned instruction fetch below 4 GiB starts an
 *   instruction at its address (the first one's address is INITIAL_PC).
 *   The data access that follows it, if any, makes it a load or store;
 *   otherwise it is a `nop` (COMPUTE), or a branch (FLOW_ALTERING: `b`,
 *   `ba`, or `bctr` when the target is out of reach) when the next fetch is
 *   not at PC + 4. A jump right after a load or store, which no PowerPC
 *   instruction does, gets one inserted `b` at PC + 4 (one more 4-byte
 *   fetch than the source had).
 *
 * Data accesses (the first one after each fetch; a second one is dropped)
 *   load/store of 1, 2, 4, 8 bytes: lbz/stb, lhz/sth, lwz/stw, lfd/stfd
 *     (exclusive 4 and 8: lwarx/stwcx., ldarx/stdcx.);
 *   16 bytes at a 16-aligned address: lvx/stvx;
 *   other multiples of 4 up to 128: lmw/stmw; other sizes up to 32:
 *     lswi/stswi; up to 127: lswx/stswx with the count in XER;
 *   software prefetch: TT6E dcbt/dcbtst at the address; TT6 dst/dstst of one
 *     block of ceil(size / 16) vectors (at most 32);
 *   cache operations (TT6E only, addressed): clean dcbst, clean+invalidate
 *     dcbf, invalidate dcbi, zero dcbz, allocate dcba.
 *   Read back, prefetches and cache operations cover a line (dcb*) or whole
 *   vectors (dst) instead of the original size.
 *
 * Dropped (counted): atomics, instruction-side operations, whole-cache
 * operations, TT6 cache operations, instructions without a fetch, fetches
 * that are not 4 aligned bytes, accesses above 4 GiB or too large, data
 * accesses with no fetch of their own.
 *
 * Refused (CT_E_UNSUPPORTED, the writer stops): an access whose address
 * the trace masks (CT_F_NOADDR): TT6 words are addresses, and none is
 * invented.
 *
 * Markers: CT_MK_SYNC markers whose aux is a synchronisation code
 * (0x20-0x3f) become sync escapes after the instruction they follow; up to
 * 256 may wait for that instruction, later ones are left out. Other markers
 * have no TT6 form.
 */
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

#define QMAX 256
#define NOP 0x60000000u        /* ori 0,0,0 */
#define BCTR 0x4e800420u

/* Register fields of the encodings (any register does; the decoder reads
 * only RT of lmw/stmw and NB of lswi/stswi). */
#define RT(r) ((uint32_t)(r) << 21)
#define RA(r) ((uint32_t)(r) << 16)
#define RB(r) ((uint32_t)(r) << 11)
#define D_FORM(op) (((uint32_t)(op) << 26) | RT(3) | RA(4))
#define X_FORM(xo) ((31u << 26) | RT(3) | RA(4) | RB(5) | ((uint32_t)(xo) << 1))

typedef struct tt6_w {
    ct_writer *w;
    int tt6e;
    int started;          /* INITIAL_PC written */
    int have;             /* an instruction waits for the next fetch */
    int host;             /* it can still take a data access */
    uint32_t pc, word, ea, extra;
    int nwords;           /* 1 COMPUTE, 2 MEMORY, 3 MEMORY_EXTENDED */
    ct_marker q[QMAX];    /* sync markers after the waiting instruction */
    uint32_t nq;
    uint8_t buf[1 << 16];
    size_t n;
} tt6_w;

static int open_dialect(void **st, ct_writer *w, int tt6e, ct_error *err)
{
    tt6_w *t = calloc(1, sizeof *t);
    if (!t)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    t->w = w;
    t->tt6e = tt6e;
    *st = t;
    return CT_OK;
}

static int tw_open(void **st, ct_writer *w, ct_error *err) { return open_dialect(st, w, 0, err); }
static int twe_open(void **st, ct_writer *w, ct_error *err) { return open_dialect(st, w, 1, err); }

static int flush(tt6_w *t, ct_error *err)
{
    if (t->n && !t->w->failed && t->w->write(t->w->ctx, (const char *)t->buf, t->n) != 0)
        t->w->failed = -1;
    t->n = 0;
    return t->w->failed ? ct_error_set(err, CT_E_IO, "write error") : CT_OK;
}

static void word(tt6_w *t, uint32_t v)
{
    t->buf[t->n++] = (uint8_t)(v >> 24);
    t->buf[t->n++] = (uint8_t)(v >> 16);
    t->buf[t->n++] = (uint8_t)(v >> 8);
    t->buf[t->n++] = (uint8_t)v;
}

/* A branch at `from` to `to`: relative when it reaches, else absolute, else
 * through the count register. */
static uint32_t branch(uint32_t from, uint32_t to)
{
    int64_t disp = (int64_t)to - (int64_t)from;
    if (disp >= -(1 << 25) && disp < (1 << 25))
        return (18u << 26) | ((uint32_t)disp & 0x03fffffcu);
    if (to < (1u << 25))
        return (18u << 26) | to | 2u;
    return BCTR;
}

/* Write the waiting sync markers as escapes. */
static int put_queue(tt6_w *t, ct_error *err)
{
    for (uint32_t i = 0; i < t->nq; i++) {
        if (t->n > sizeof t->buf - 64 && flush(t, err) != CT_OK)
            return err->code;
        word(t, (t->q[i].aux & 0x3ffu) << 16 | 2u);
        word(t, (uint32_t)t->q[i].value);
        word(t, (uint32_t)t->q[i].value2);
    }
    t->nq = 0;
    return CT_OK;
}

/* Write the waiting instruction, now that the next one is known to start at
 * `next` (sequential when at_end). Returns CT_OK or a write error. */
static int settle(tt6_w *t, uint32_t next, int at_end, ct_error *err)
{
    int jump;

    if (!t->have)
        return CT_OK;
    if (t->n > sizeof t->buf - 64 && flush(t, err) != CT_OK)
        return err->code;
    if (!t->started) {
        word(t, t->pc);
        t->started = 1;
    }
    jump = !at_end && next != t->pc + 4;
    if (t->nwords == 1 && jump) {
        word(t, branch(t->pc, next));
        word(t, next);
        jump = 0;
    } else {
        word(t, t->word);
        if (t->nwords >= 2)
            word(t, t->ea);
        if (t->nwords == 3)
            word(t, t->extra);
    }
    if (put_queue(t, err) != CT_OK)
        return err->code;
    if (jump) {
        word(t, branch(t->pc + 4, next));
        word(t, next);
    }
    t->have = 0;
    return CT_OK;
}

/* Encode a data access into the waiting instruction; 0 when it has no form. */
static int encode(tt6_w *t, const ct_access *a)
{
    const uint32_t addr = (uint32_t)a->vaddr, size = a->size;
    const int load = a->kind == CT_LOAD, excl = (a->flags & CT_F_EXCL) != 0;

    if (a->vaddr > UINT32_MAX || size == 0 || a->vaddr + size - 1 > UINT32_MAX)
        return 0;
    t->ea = addr;
    t->nwords = 2;
    switch (a->kind) {
    case CT_LOAD:
    case CT_STORE:
        if (excl && (size == 4 || size == 8)) {
            t->word = X_FORM(load ? (size == 4 ? 20 : 84) : (size == 4 ? 150 : 214)) | !load;
            return 1;
        }
        switch (size) {
        case 1: t->word = D_FORM(load ? 34 : 38); return 1;
        case 2: t->word = D_FORM(load ? 40 : 44); return 1;
        case 4: t->word = D_FORM(load ? 32 : 36); return 1;
        case 8: t->word = D_FORM(load ? 50 : 54); return 1;
        default: break;
        }
        if (size == 16 && (addr & 15) == 0) {
            t->word = X_FORM(load ? 103 : 231);
            return 1;
        }
        if (size % 4 == 0 && size <= 128) {
            t->word = ((load ? 46u : 47u) << 26) | RT(32 - size / 4) | RA(1);
            return 1;
        }
        if (size <= 32) {
            t->word = ((31u << 26) | RT(3) | RA(4) | RB(size & 31) | ((load ? 597u : 725u) << 1));
            return 1;
        }
        if (size <= 127) {
            t->word = X_FORM(load ? 533 : 661);
            t->extra = size;
            t->nwords = 3;
            return 1;
        }
        return 0;
    case CT_PREFETCH:
        if (a->op & CT_PF_INSTR)
            return 0;
        if (t->tt6e) {
            t->word = X_FORM((a->op & CT_PF_WRITE) ? 246 : 278) & ~RT(31);
            return 1;
        }
        {
            uint32_t vecs = (size + 15) / 16;
            if (vecs > 32)
                vecs = 32;
            t->word = X_FORM((a->op & CT_PF_WRITE) ? 374 : 342) & ~RT(31);
            if (a->op & CT_PF_NT)
                t->word |= 1u << 25;
            t->extra = (vecs & 31) << 24 | 1u << 16;
            t->nwords = 3;
            return 1;
        }
    case CT_CACHEOP: {
        static const uint16_t xo[] = {
            [CT_OP_CLEAN] = 54, [CT_OP_INVAL] = 470, [CT_OP_CLEAN_INVAL] = 86,
            [CT_OP_ZERO] = 1014, [CT_OP_ALLOC] = 758};
        unsigned op = a->op & CT_OP_MASK;
        if (!t->tt6e || (a->op & (CT_OP_ALL | CT_OP_ISIDE)) || op >= sizeof xo / sizeof xo[0] || !xo[op])
            return 0;
        t->word = X_FORM(xo[op]) & ~RT(31);
        return 1;
    }
    default:
        return 0;
    }
}

static int put_access(tt6_w *t, const ct_access *a, uint64_t *dropped, ct_error *err)
{
    if (a->flags & CT_F_NOADDR)
        return ct_error_set(err, CT_E_UNSUPPORTED,
                            "the %s at trace time %llu has a masked address: %s output needs "
                            "the address, and none is invented", ct_kind_name(a->kind),
                            (unsigned long long)a->time, t->tt6e ? "tt6e" : "tt6");
    switch (a->kind) {
    case CT_IFETCH:
        if (a->size != 4 || (a->vaddr & 3) || a->vaddr > UINT32_MAX - 3) {
            (*dropped)++;
            t->host = 0;
            return CT_OK;
        }
        if (settle(t, (uint32_t)a->vaddr, 0, err) != CT_OK)
            return err->code;
        if (!t->started && t->nq) { /* sync escapes before the first instruction */
            word(t, (uint32_t)a->vaddr);
            t->started = 1;
            if (put_queue(t, err) != CT_OK)
                return err->code;
        }
        t->have = 1;
        t->host = 1;
        t->pc = (uint32_t)a->vaddr;
        t->word = NOP;
        t->nwords = 1;
        return CT_OK;
    case CT_LOAD:
    case CT_STORE:
    case CT_PREFETCH:
    case CT_CACHEOP: {
        uint32_t w0 = t->word, ea = t->ea, extra = t->extra;
        int nw = t->nwords;
        if (!t->have || !t->host || !encode(t, a)) {
            if (t->have) { /* encode() may have touched the instruction */
                t->word = w0;
                t->ea = ea;
                t->extra = extra;
                t->nwords = nw;
            }
            (*dropped)++;
            return CT_OK;
        }
        t->host = 0;
        return CT_OK;
    }
    default:
        (*dropped)++;
        return CT_OK;
    }
}

static void put_marker(tt6_w *t, const ct_marker *m)
{
    if (m->type == CT_MK_SYNC && m->aux >= 0x20 && m->aux <= 0x3f && t->nq < QMAX)
        t->q[t->nq++] = *m;
}

static int tw_put(void *st, const ct_batch *b, uint64_t *dropped, ct_error *err)
{
    tt6_w *t = st;
    uint32_t mi = 0;

    for (uint32_t i = 0; i <= b->n; i++) {
        while (mi < b->nmk && b->mk[mi].index <= i)
            put_marker(t, &b->mk[mi++]);
        if (i < b->n && put_access(t, &b->acc[i], dropped, err) != CT_OK)
            return err->code;
    }
    while (mi < b->nmk)
        put_marker(t, &b->mk[mi++]);
    return CT_OK;
}

static int tw_finish(void *st, ct_error *err)
{
    tt6_w *t = st;
    int rc = CT_OK;

    if (t->have) {
        rc = settle(t, 0, 1, err);
    } else if (!t->started) {
        word(t, 0); /* no instruction at all: INITIAL_PC 0 and the escapes */
        t->started = 1;
    }
    if (rc == CT_OK)
        rc = put_queue(t, err);
    if (rc == CT_OK)
        rc = flush(t, err);
    free(t);
    return rc;
}

const ct_writer_ops ct_writer_tt6 = {
    .name = "tt6",
    .desc = "Amber TT6 (PowerPC): loads and stores become instructions of their size; no cache operations",
    .open = tw_open, .put = tw_put, .finish = tw_finish,
};

const ct_writer_ops ct_writer_tt6e = {
    .name = "tt6e",
    .desc = "Amber TT6E (PowerPC): as tt6, plus addressed cache operations (dcbz, dcbf, dcbst, dcbi, dcba, dcbt)",
    .open = twe_open, .put = tw_put, .finish = tw_finish,
};
