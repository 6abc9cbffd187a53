/*
 * ctr.c - the reader of the cachet trace format (frontends/CTR.md), plain
 * or zstd-compressed (the zstd byte source below it is chosen by magic).
 *
 * Every error names the file, the byte offset in the decoded stream and
 * the index of the record, and ends the read, in lenient mode too: the
 * format has no resynchronisation point, and a record whose fields were
 * misread leaves every later one doubtful. A stream must end with its end
 * record, whose totals must match what was read; nothing may follow it.
 *
 * Records are decoded straight from the byte source's buffer. A record cut
 * by the end of the buffer is decoded again from its first byte after a
 * refill: the decoder's state changes only once a record is complete.
 *
 * Sizes change only in access records that carry one, so the decoder
 * vouches for the trace layer's size bound (ct_stream.sizes_bounded) until
 * a size over it appears (cache operations included); from then
 * on the trace layer checks every access itself.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/compiler.h"
#include "ctr_format.h"
#include "frontend.h"

typedef struct ctr {
    ct_stream *s;
    /* decoder state (CTR.md, "Access") */
    uint64_t addr[CTR_ACCESS_KINDS], delta[CTR_ACCESS_KINDS];
    uint64_t time, pc, poff;
    ct_access proto[CTR_ACCESS_KINDS]; /* per kind: the last size, and the kind, thread,
                                          cpu, flags and op of the state; zeroes */
    uint64_t mk_prev[CTR_MARKER_FIELDS], mk_stride[CTR_MARKER_FIELDS];
    ct_marker mk_head;         /* type, cpu, thread and aux of mk_prev, as stored */
    uint64_t ev_prev[CTR_EVENT_FIELDS];
    /* progress */
    uint64_t records;          /* records decoded */
    uint64_t naccess, nmarker, nevent;
    uint16_t *names;           /* structure id in the file -> local id + 1 (0: none) */
    int ended;
} ctr;

enum { DEC_FULL = 1, DEC_SHORT, DEC_END };

static const uint8_t corrupt_mark[1];
#define CORRUPT corrupt_mark

static int ctr_probe(const uint8_t *h, size_t n)
{
    return n >= CTR_MAGIC_LEN && memcmp(h, CTR_MAGIC, CTR_MAGIC_LEN) == 0 ? 100 : 0;
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int ctr_open(void **st, ct_stream *s, ct_error *err)
{
    ct_bytes *in = s->in;
    ssize_t got = ct_bytes_fill(in, CTR_FIXED_HEADER, err);
    const uint8_t *h;
    unsigned major, minor;
    uint32_t tl;
    ctr *c;

    if (got < 0)
        return (int)got;
    h = ct_bytes_ptr(in);
    if (got == 0)
        return ct_error_set(err, CT_E_FORMAT, "%s: empty file: no trace records", s->path);
    if (memcmp(h, CTR_MAGIC, (size_t)got < CTR_MAGIC_LEN ? (size_t)got : CTR_MAGIC_LEN) != 0)
        return ct_error_set(err, CT_E_FORMAT, "%s: byte 0: not a cachet trace (bad magic)",
                            s->path);
    if ((size_t)got < CTR_FIXED_HEADER) /* the magic so far, then the end */
        return ct_error_set(err, CT_E_FORMAT, "%s: byte %zd: header cut short (%zd of %d bytes)",
                            s->path, got, got, CTR_FIXED_HEADER);
    major = h[8] | (unsigned)h[9] << 8;
    minor = h[10] | (unsigned)h[11] << 8;
    if (major != CTR_MAJOR)
        return ct_error_set(err, CT_E_FORMAT,
                            "%s: byte 8: ctr version %u.%u (this cachet reads version %d)",
                            s->path, major, minor, CTR_MAJOR);
    tl = get_u32(h + 12);
    if (tl > CTR_HEADER_TEXT_MAX)
        return ct_error_set(err, CT_E_FORMAT,
                            "%s: byte 12: header text of %u bytes (at most %d)", s->path, tl,
                            CTR_HEADER_TEXT_MAX);
    got = ct_bytes_fill(in, CTR_FIXED_HEADER + tl, err);
    if (got < 0)
        return (int)got;
    if ((size_t)got < CTR_FIXED_HEADER + tl)
        return ct_error_set(err, CT_E_FORMAT,
                            "%s: byte %d: header text cut short (%zd of %u bytes)", s->path,
                            CTR_FIXED_HEADER, got - CTR_FIXED_HEADER, tl);
    ct_bytes_skip(in, CTR_FIXED_HEADER + tl);
    c = calloc(1, sizeof *c);
    if (!c)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", s->path);
    c->s = s;
    for (int k = 0; k < CTR_ACCESS_KINDS; k++)
        c->proto[k].kind = (uint8_t)k;
    /* sizes are all 0 so far; one over the trace layer's bound clears this */
    s->sizes_bounded = 1;
    *st = c;
    return CT_OK;
}

static void ctr_close(void *st)
{
    ctr *c = st;
    if (!c)
        return;
    free(c->names);
    free(c);
}

/* A varint at p: the byte after it, NULL when the buffer ends first, or
 * CORRUPT (more than 10 bytes, or more than 64 bits). */
static const uint8_t *varint(const uint8_t *p, const uint8_t *lim, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        uint8_t byte;
        if (p >= lim)
            return NULL;
        byte = *p++;
        if (shift == 63 && byte > 1)
            return CORRUPT;
        x |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *v = x;
            return p;
        }
    }
    return CORRUPT;
}

/* A varint at p with at least 10 bytes readable: the byte after it, or
 * CORRUPT. Unrolled for the 1- to 5-byte values that make up most traces. */
static inline const uint8_t *varint10(const uint8_t *p, uint64_t *v)
{
    uint64_t x = p[0] & 0x7f;
    if (p[0] < 0x80) {
        *v = x;
        return p + 1;
    }
    x |= (uint64_t)(p[1] & 0x7f) << 7;
    if (p[1] < 0x80) {
        *v = x;
        return p + 2;
    }
    x |= (uint64_t)(p[2] & 0x7f) << 14;
    if (p[2] < 0x80) {
        *v = x;
        return p + 3;
    }
    x |= (uint64_t)(p[3] & 0x7f) << 21;
    if (p[3] < 0x80) {
        *v = x;
        return p + 4;
    }
    x |= (uint64_t)(p[4] & 0x7f) << 28;
    if (p[4] < 0x80) {
        *v = x;
        return p + 5;
    }
    for (unsigned k = 5, shift = 35; k < 10; k++, shift += 7) {
        if (k == 9 && p[k] > 1)
            return CORRUPT;
        x |= (uint64_t)(p[k] & 0x7f) << shift;
        if (p[k] < 0x80) {
            *v = x;
            return p + k + 1;
        }
    }
    return CORRUPT;
}

/* Read a varint into v, or leave through short_ / corrupt. */
#define GET(v)                                                          \
    do {                                                                \
        const uint8_t *q_;                                              \
        if (LIKELY(lim - p >= 10))                                      \
            q_ = varint10(p, &(v));                                     \
        else if (!(q_ = varint(p, lim, &(v))))                          \
            goto short_;                                                \
        if (UNLIKELY(q_ == CORRUPT))                                    \
            goto corrupt;                                               \
        p = q_;                                                         \
    } while (0)

static int fail(ctr *c, const uint8_t *start, const uint8_t *rec, const char *reason,
                ct_error *err)
{
    return ct_error_set(err, CT_E_FORMAT, "%s: byte %llu (record %llu): %s", c->s->path,
                        (unsigned long long)(ct_bytes_offset(c->s->in) + (uint64_t)(rec - start)),
                        (unsigned long long)c->records, reason);
}

/* The first 16 bytes of every marker whose fields 0-3 are as predicted. */
static void set_head(ctr *c)
{
    c->mk_head.type = (uint16_t)c->mk_prev[0];
    c->mk_head.cpu = (uint16_t)c->mk_prev[1];
    c->mk_head.thread = (uint32_t)c->mk_prev[2];
    c->mk_head.aux = (uint32_t)c->mk_prev[3];
}

/*
 * A record that is not an access, at *pp. Returns 0 (done, *pp advanced),
 * DEC_FULL (no room for it), DEC_SHORT, DEC_END, or a negative code.
 */
static int other(ctr *c, const uint8_t **pp, const uint8_t *lim, const uint8_t *start,
                 ct_batch *b, ct_error *err)
{
    const uint8_t *rec = *pp, *p = rec + 1;
    unsigned type = rec[0] >> 3;
    uint64_t f[CTR_EVENT_FIELDS];

    switch (type) {
    case CTR_STATE:
        GET(f[0]);
        GET(f[1]);
        if (f[0] > UINT32_MAX || f[1] > UINT16_MAX)
            return fail(c, start, rec, "state record: field out of range", err);
        for (int k = 0; k < CTR_ACCESS_KINDS; k++) {
            c->proto[k].thread = (uint32_t)f[0];
            c->proto[k].cpu = (uint16_t)f[1];
        }
        break;
    case CTR_KIND_STATE:
        for (int k = 0; k < 3; k++)
            GET(f[k]);
        if (f[0] >= CTR_ACCESS_KINDS || f[1] > UINT16_MAX || f[2] > UINT8_MAX)
            return fail(c, start, rec, "kind state record: field out of range", err);
        c->proto[f[0]].flags = (uint16_t)f[1];
        c->proto[f[0]].op = (uint8_t)f[2];
        c->proto[f[0]].kind = (uint8_t)f[0];
        if (f[0] == CT_LOAD && f[2] == CTR_OP_MISC) {
            c->proto[f[0]].kind = CT_MISC;
            c->proto[f[0]].op = 0;
        }
        if (f[1] & CT_F_NOADDR) /* accesses of this kind carry no address */
            c->s->info->masked_addresses = 1;
        break;
    case CTR_MARKER: {
        /* fields 0-3: previous value unless given; 4-6: previous + stride
         * unless given (the given delta becomes the stride) */
        uint64_t mask = 0, val[CTR_MARKER_FIELDS], stride[CTR_MARKER_FIELDS];
        ct_marker *m;
        if (b->nmk >= b->mkcap)
            return DEC_FULL;
        GET(mask);
        if (mask >> CTR_MARKER_FIELDS)
            return fail(c, start, rec, "marker record: bad field mask", err);
        for (int k = 0; k < CTR_MARKER_FIELDS; k++) {
            stride[k] = c->mk_stride[k];
            val[k] = c->mk_prev[k] + (k >= CTR_MARKER_STRIDED ? stride[k] : 0);
            if (mask >> k & 1) {
                uint64_t d = 0;
                GET(d);
                d = ctr_unzigzag(d);
                val[k] = c->mk_prev[k] + d;
                if (k >= CTR_MARKER_STRIDED)
                    stride[k] = d;
            }
        }
        if (val[0] > UINT16_MAX || val[1] > UINT16_MAX || val[2] > UINT32_MAX ||
            val[3] > UINT32_MAX)
            return fail(c, start, rec, "marker record: field out of range", err);
        memcpy(c->mk_prev, val, sizeof val);
        memcpy(c->mk_stride, stride, sizeof stride);
        set_head(c);
        m = &b->mk[b->nmk++];
        m->index = b->n;
        m->type = (uint16_t)val[0];
        m->cpu = (uint16_t)val[1];
        m->thread = (uint32_t)val[2];
        m->aux = (uint32_t)val[3];
        m->time = val[4];
        m->value = val[5];
        m->value2 = val[6];
        c->nmarker++;
        break;
    }
    case CTR_EVENT: {
        /* every field: the previous event's unless given as a delta */
        uint64_t mask = 0;
        ct_event *e;
        if (b->nev >= b->evcap)
            return DEC_FULL;
        GET(mask);
        if (mask >> CTR_EVENT_FIELDS)
            return fail(c, start, rec, "event record: bad field mask", err);
        for (int k = 0; k < CTR_EVENT_FIELDS; k++) {
            f[k] = c->ev_prev[k];
            if (mask >> k & 1) {
                uint64_t d = 0;
                GET(d);
                f[k] += ctr_unzigzag(d);
            }
        }
        if (f[0] > UINT8_MAX || f[1] > UINT8_MAX || f[2] > UINT16_MAX || f[3] > UINT16_MAX ||
            f[4] > UINT16_MAX || f[5] > UINT8_MAX || f[6] > UINT8_MAX || f[7] > UINT8_MAX ||
            f[8] > UINT8_MAX || f[9] > UINT16_MAX || f[10] > UINT16_MAX)
            return fail(c, start, rec, "event record: field out of range", err);
        memcpy(c->ev_prev, f, sizeof c->ev_prev);
        e = &b->ev[b->nev++];
        memset(e, 0, sizeof *e);
        e->index = b->n;
        e->type = (uint8_t)f[0];
        e->op = (uint8_t)f[1];
        e->cpu = (uint16_t)f[2];
        e->structure = (uint16_t)f[3];
        if (c->names && c->names[e->structure])
            e->structure = (uint16_t)(c->names[e->structure] - 1);
        e->flags = (uint16_t)f[4];
        e->stage = (uint8_t)f[5];
        e->level = (uint8_t)f[6];
        e->regime = (uint8_t)f[7];
        e->result = (uint8_t)f[8];
        e->asid = (uint16_t)f[9];
        e->vmid = (uint16_t)f[10];
        e->time = f[11];
        e->line = f[12];
        e->addr = f[13];
        e->value = f[14];
        e->size = f[15];
        e->stream = c->s->index;   /* carried by this stream, in no text line */
        e->src = 0;
        c->nevent++;
        break;
    }
    case CTR_NAME: {
        uint16_t local;
        GET(f[0]);
        GET(f[1]);
        if (f[0] > UINT16_MAX || f[1] == 0 || f[1] > CTR_NAME_MAX)
            return fail(c, start, rec, "name record: id or length out of range", err);
        if ((uint64_t)(lim - p) < f[1])
            goto short_;
        if (!c->names && !(c->names = calloc(UINT16_MAX + 1, sizeof *c->names)))
            return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", c->s->path);
        local = ct_stream_structure(c->s, (const char *)p, (size_t)f[1]);
        if (local == UINT16_MAX)
            return fail(c, start, rec, "too many structure names", err);
        c->names[f[0]] = (uint16_t)(local + 1);
        p += f[1];
        break;
    }
    case CTR_END:
        for (int k = 0; k < 3; k++)
            GET(f[k]);
        if (f[0] != c->naccess || f[1] != c->nmarker || f[2] != c->nevent) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "the end record counts %llu/%llu/%llu accesses/markers/events, the stream "
                     "holds %llu/%llu/%llu",
                     (unsigned long long)f[0], (unsigned long long)f[1],
                     (unsigned long long)f[2], (unsigned long long)c->naccess,
                     (unsigned long long)c->nmarker, (unsigned long long)c->nevent);
            return fail(c, start, rec, msg, err);
        }
        *pp = p;
        c->records++;
        return DEC_END;
    default:
        return fail(c, start, rec, "unknown record type", err);
    }
    *pp = p;
    c->records++;
    return 0;
short_:
    return DEC_SHORT;
corrupt:
    return fail(c, start, rec, "corrupt varint", err);
}

/* The last 16 bytes of a ct_access (size to flags) come from the kind's
 * prototype in one copy; the decoder fills in the first 32. */
#define TAIL_AT offsetof(ct_access, size)
_Static_assert(sizeof(ct_access) - offsetof(ct_access, size) == 16, "ct_access tail");

FORCE_INLINE void put_access(ct_access *a, const ct_access *proto, uint64_t va, uint64_t pa,
                             uint64_t pc, uint64_t time)
{
    a->vaddr = va;
    a->paddr = pa;
    a->pc = pc;
    a->time = time;
    memcpy((uint8_t *)a + TAIL_AT, (const uint8_t *)proto + TAIL_AT, 16);
}

/* What the access records of one decode() call carry from one to the next. */
typedef struct dstate {
    uint64_t time, pc, poff;
} dstate;

/*
 * The access record whose tag h was read at p - 1, into *a. Returns the byte
 * after the record, NULL when [p, lim) ends first, or CORRUPT with *why
 * set. `checked` is a constant: 0 when at least CTR_RECORD_MAX bytes are
 * readable at p - 1, so that no varint needs a bounds check. The state
 * changes only when the record is complete.
 */
FORCE_INLINE const uint8_t *access_record(ctr *c, unsigned h, const uint8_t *p,
                                          const uint8_t *lim, int checked, ct_access *a,
                                          dstate *ds, const char **why)
{
    const unsigned k = h & CTR_KIND_MASK;
    uint64_t v = 0, size = 0, d, ntime, npc = ds->pc, npoff = ds->poff, va, pa = 0;

#define VARINT(x)                                                       \
    do {                                                                \
        const uint8_t *q_ = checked && lim - p < 10 ? varint(p, lim, &(x)) \
                                                    : varint10(p, &(x)); \
        if (UNLIKELY(!q_ || q_ == CORRUPT)) {                           \
            *why = "corrupt varint";                                    \
            return q_;                                                  \
        }                                                               \
        p = q_;                                                         \
    } while (0)

    if (h & CTR_SAME_SIZE) {
        size = c->proto[k].size;
    } else {
        VARINT(size);
        if (UNLIKELY(size > UINT32_MAX)) {
            *why = "access size out of range";
            return CORRUPT;
        }
    }
    ntime = ds->time + ((h >> CTR_TIME_SHIFT) & 1);   /* CTR_TIME_SAME or _NEXT */
    if (UNLIKELY(h & (CTR_TIME_DELTA << CTR_TIME_SHIFT))) {
        if (h & (1u << CTR_TIME_SHIFT)) {
            *why = "bad time code in access tag";
            return CORRUPT;
        }
        VARINT(v);
        ntime = ds->time + ctr_unzigzag(v);
    }
    if (!(h & CTR_PC_PREDICTED)) {
        VARINT(v);
        npc = ds->pc + ctr_unzigzag(v);
    }
    if (h & CTR_STRIDE) {
        d = c->delta[k];
    } else {
        VARINT(v);
        d = ctr_unzigzag(v);
    }
    if (UNLIKELY(c->proto[k].flags & CT_F_PADDR)) {
        VARINT(v);
        npoff = ds->poff + ctr_unzigzag(v);
    }
#undef VARINT
    va = c->addr[k] + d;
    if ((h & CTR_PC_PREDICTED) && k == CT_IFETCH)
        npc = va;
    if (UNLIKELY(c->proto[k].flags & CT_F_PADDR))
        pa = va + npoff;
    c->proto[k].size = (uint32_t)size;
    if (size > CT_MAX_ACCESS_BYTES)
        c->s->sizes_bounded = 0;
    c->addr[k] = va;
    c->delta[k] = d;
    ds->time = ntime;
    ds->pc = npc;
    ds->poff = npoff;
    put_access(a, &c->proto[k], va, pa, npc, ntime);
    return p;
}

/*
 * A marker record at p, far from the end of the buffer (no bounds checks),
 * into *m placed before access `index`. Returns the byte after it, or NULL
 * for anything unusual (then the general path decodes it and reports what
 * is wrong).
 */
FORCE_INLINE const uint8_t *quick_marker(ctr *c, const uint8_t *p, ct_marker *m, uint32_t index)
{
    const unsigned mask = p[1];
    uint64_t val[CTR_MARKER_FIELDS], stride[CTR_MARKER_FIELDS];

    if (!(mask & ((1u << CTR_MARKER_STRIDED) - 1))) {
        /* type, cpu, thread and aux as before; time, value and value2 as
         * predicted unless given: a run of timestamps */
        uint64_t *pv = c->mk_prev, *st = c->mk_stride, d = 0;
        p += 2;
        if (mask == 0x40) {         /* only value2 (a text line) moved otherwise */
            if ((p = varint10(p, &d)) == CORRUPT)
                return NULL;
            st[6] = ctr_unzigzag(d);
        } else if (mask) {
            uint64_t given[CTR_MARKER_FIELDS] = {0};
            if (mask >> CTR_MARKER_FIELDS)
                return NULL;
            for (int k = CTR_MARKER_STRIDED; k < CTR_MARKER_FIELDS; k++)
                if (mask >> k & 1 && (p = varint10(p, &given[k])) == CORRUPT)
                    return NULL; /* nothing changed yet */
            for (int k = CTR_MARKER_STRIDED; k < CTR_MARKER_FIELDS; k++)
                if (mask >> k & 1)
                    st[k] = ctr_unzigzag(given[k]);
        }
        pv[4] += st[4];
        pv[5] += st[5];
        pv[6] += st[6];
        memcpy(m, &c->mk_head, offsetof(ct_marker, time));
        m->index = index;
        m->time = pv[4];
        m->value = pv[5];
        m->value2 = pv[6];
        c->nmarker++;
        c->records++;
        return p;
    }
    if (mask >> CTR_MARKER_FIELDS)
        return NULL;
    p += 2;
    for (int k = 0; k < CTR_MARKER_FIELDS; k++) {
        stride[k] = c->mk_stride[k];
        val[k] = c->mk_prev[k] + (k >= CTR_MARKER_STRIDED ? stride[k] : 0);
        if (mask >> k & 1) {
            uint64_t d = 0;
            p = varint10(p, &d);
            if (p == CORRUPT)
                return NULL;
            d = ctr_unzigzag(d);
            val[k] = c->mk_prev[k] + d;
            if (k >= CTR_MARKER_STRIDED)
                stride[k] = d;
        }
    }
    if (val[0] > UINT16_MAX || val[1] > UINT16_MAX || val[2] > UINT32_MAX || val[3] > UINT32_MAX)
        return NULL;
    memcpy(c->mk_prev, val, sizeof val);
    memcpy(c->mk_stride, stride, sizeof stride);
    set_head(c);
    m->index = index;
    m->type = (uint16_t)val[0];
    m->cpu = (uint16_t)val[1];
    m->thread = (uint32_t)val[2];
    m->aux = (uint32_t)val[3];
    m->time = val[4];
    m->value = val[5];
    m->value2 = val[6];
    c->nmarker++;
    c->records++;
    return p;
}

/*
 * The records that start before `safe` (at least CTR_RECORD_MAX bytes
 * before the end of the buffer, so that no field needs a bounds check),
 * from p into b at *ap, while b has room: accesses, and markers that
 * quick_marker() takes. Returns the first byte not consumed, with *ap
 * advanced; stops at any other record. A corrupt field sets *why and
 * returns the start of its record (the state it changed is never used: the
 * read ends there). The hot loop of decode(): time, pc and the physical
 * offset live in locals here.
 */
static const uint8_t *fast_records(ctr *c, const uint8_t *p, const uint8_t *safe,
                                            ct_batch *b, ct_access **ap, dstate *ds,
                                            const char **why)
{
    ct_access *a = *ap, *const aend = b->acc + b->cap;
    uint64_t time = ds->time, pc = ds->pc, poff = ds->poff;

    while (LIKELY(a < aend && p < safe)) {
        const unsigned h = *p, k = h & CTR_KIND_MASK, tc = (h >> CTR_TIME_SHIFT) & 3;
        const uint8_t *np = p + 1;
        uint64_t v = 0, d, va, pa = 0;

        if (UNLIKELY(k == CTR_OTHER)) {
            const uint8_t *q;
            if (h == (CTR_OTHER | (CTR_MARKER << 3)) && b->nmk < b->mkcap &&
                (q = quick_marker(c, p, &b->mk[b->nmk], (uint32_t)(a - b->acc)))) {
                b->nmk++;
                p = q;
                continue;
            }
            break;
        }
#define FAST_VARINT(x)                                                  \
    do {                                                                \
        np = varint10(np, &(x));                                        \
        if (UNLIKELY(np == CORRUPT)) {                                  \
            *why = "corrupt varint";                                    \
            goto out;                                                   \
        }                                                               \
    } while (0)
        if (UNLIKELY(!(h & CTR_SAME_SIZE))) {
            FAST_VARINT(v);
            if (UNLIKELY(v > UINT32_MAX)) {
                *why = "access size out of range";
                goto out;
            }
            c->proto[k].size = (uint32_t)v;
            if (v > CT_MAX_ACCESS_BYTES)
                c->s->sizes_bounded = 0;
        }
        if (LIKELY(tc < CTR_TIME_DELTA)) {
            time += tc;
        } else {
            if (UNLIKELY(tc != CTR_TIME_DELTA)) {
                *why = "bad time code in access tag";
                goto out;
            }
            FAST_VARINT(v);
            time += ctr_unzigzag(v);
        }
        if (!(h & CTR_PC_PREDICTED)) {
            FAST_VARINT(v);
            pc += ctr_unzigzag(v);
        }
        d = c->delta[k];
        if (!(h & CTR_STRIDE)) {
            FAST_VARINT(v);
            d = ctr_unzigzag(v);
            c->delta[k] = d;
        }
        va = c->addr[k] + d;
        c->addr[k] = va;
        if (k == CT_IFETCH && (h & CTR_PC_PREDICTED))
            pc = va;
        if (UNLIKELY(c->proto[k].flags & CT_F_PADDR)) {
            FAST_VARINT(v);
            poff += ctr_unzigzag(v);
            pa = va + poff;
        }
#undef FAST_VARINT
        put_access(a, &c->proto[k], va, pa, pc, time);
        p = np;
        a++;
    }
out:
    *ap = a;
    ds->time = time;
    ds->pc = pc;
    ds->poff = poff;
    return p;
}

/*
 * Decode records from [*pp, lim) into b. Returns DEC_FULL, DEC_SHORT (the
 * next record does not fit in what is left), DEC_END or a negative code;
 * *pp is the first byte not consumed.
 */
static int decode(ctr *c, const uint8_t **pp, const uint8_t *lim, ct_batch *b, ct_error *err)
{
    const uint8_t *const start = *pp;
    const uint8_t *const safe = lim - start > CTR_RECORD_MAX ? lim - CTR_RECORD_MAX : start;
    const uint8_t *p = start, *q;
    ct_access *const acc = b->acc;
    uint32_t n = b->n, counted = b->n;
    const uint32_t cap = b->cap;
    dstate ds = {c->time, c->pc, c->poff};
    const char *why = "";
    int rc = DEC_FULL;

    for (;;) {
        unsigned h;

        /* records far from the end of the buffer: no bounds checks */
        {
            ct_access *a = acc + n;
            p = fast_records(c, p, safe, b, &a, &ds, &why);
            n = (uint32_t)(a - acc);
            if (UNLIKELY(*why))
                goto corrupt;
        }
        if (n >= cap)
            break;
        if (p >= lim) {
            rc = DEC_SHORT;
            break;
        }
        h = *p;
        if ((h & CTR_KIND_MASK) == CTR_OTHER) {
            c->records += n - counted;
            c->naccess += n - counted;
            counted = n;
            b->n = n;
            c->time = ds.time;
            c->pc = ds.pc;
            c->poff = ds.poff;
            rc = other(c, &p, lim, start, b, err);
            if (rc != 0)
                break;
            rc = DEC_FULL;
            continue;
        }
        /* an access near the end of the buffer */
        q = access_record(c, h, p + 1, lim, 1, &acc[n], &ds, &why);
        if (!q) {
            rc = DEC_SHORT;
            break;
        }
        if (q == CORRUPT)
            goto corrupt;
        p = q;
        n++;
    }
    goto out;
corrupt:
    c->records += n - counted;
    c->naccess += n - counted;
    counted = n;
    rc = fail(c, start, p, why, err);
out:
    b->n = n;
    c->time = ds.time;
    c->pc = ds.pc;
    c->poff = ds.poff;
    c->records += n - counted;
    c->naccess += n - counted;
    *pp = p;
    return rc;
}

static int ctr_next(void *st, ct_batch *b, ct_error *err)
{
    ctr *c = st;
    ct_bytes *in = c->s->in;
    const uint64_t first = ct_bytes_offset(in);

    if (c->ended)
        return 0;
    for (;;) {
        if (ct_bytes_offset(in) - first >= CT_DECODE_SLICE)
            return 1;
        const uint8_t *start = ct_bytes_ptr(in), *p = start;
        uint64_t before = c->records;
        int rc = decode(c, &p, start + ct_bytes_avail(in), b, err);

        ct_bytes_skip(in, (size_t)(p - start));
        c->s->info->records += c->records - before;
        if (rc < 0)
            return rc;
        if (rc == DEC_FULL)
            return 1;
        if (rc == DEC_END) {
            ssize_t left = ct_bytes_fill(in, 1, err);
            if (left < 0)
                return (int)left;
            if (left > 0)
                return ct_error_set(err, CT_E_FORMAT, "%s: byte %llu: bytes after the end record",
                                    c->s->path, (unsigned long long)ct_bytes_offset(in));
            c->ended = 1;
            return 0;
        }
        if (in->eof)
            return ct_error_set(err, CT_E_FORMAT,
                                ct_bytes_avail(in) == 0
                                    ? "%s: byte %llu (record %llu): the stream ends without its "
                                      "end record (truncated)"
                                    : "%s: byte %llu (record %llu): record cut short by the end "
                                      "of the stream (truncated)",
                                c->s->path, (unsigned long long)ct_bytes_offset(in),
                                (unsigned long long)c->records);
        if (ct_bytes_fill(in, CT_BYTES_BUF, err) < 0)
            return err->code;
    }
}

const ct_format_ops ct_format_ctr = {
    .name = "ctr",
    .desc = "cachet trace format (.ctr, .ctr.zst; written by cachet convert --to ctr)",
    .max_per_record = 1,
    .default_schedule = CT_SCHED_THREADS,
    .probe = ctr_probe,
    .open = ctr_open, .next = ctr_next, .close = ctr_close,
};
