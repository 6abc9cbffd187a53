/*
 * din.c - DineroIV "din" text traces.
 *
 * One record per line: `label address [anything]`, fields separated by
 * blanks. label 0 = data read, 1 = data write, 2 = instruction fetch,
 * 3 = unknown access type (kind "misc": a data access the model simulates
 * as a read, as DineroIV does),
 * 4 = copy back (DineroIV's D4XCOPYB), 5 = invalidate (D4XINVAL). As in
 * DineroIV 7, whose din reader gives every record a size of 4 and whose
 * d4copyback / d4invalidate then act on one block, labels 4 and 5 act on
 * the block of the record's address at every level: label 4 is a clean of
 * the data side (CT_OP_CLEAN), label 5 an invalidate of the instruction
 * side and then the data side (CT_OP_INVAL | CT_OP_BOTH), each of the 4
 * bytes at the word's address. The address is hex, with or
 * without 0x, at most 16 digits. As in DineroIV (dinfmt.c) every reference
 * is one aligned 4-byte word: the address is rounded down to a multiple of
 * 4. Blank lines are skipped. Data accesses carry the address of the last
 * instruction fetch as their pc; `time` is the line number.
 *
 * Malformed lines (label not 0..5, missing or non-hex address, address
 * wider than 64 bits) stop the decoder with "FILE:LINE:COL: reason", or are
 * skipped and counted in lenient mode. Line endings, a byte-order mark and
 * over-long lines follow the text-line rules of bytes.c.
 *
 * Common lines take a path that decodes eight characters at a time
 * (fast_line); it accepts exactly what the general code accepts for them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/compiler.h"
#include "frontend.h"

#define DIN_REF_SIZE 4
#define DIN_WORD_MASK (~(uint64_t)3)
#define TAIL_MAX 4096

typedef struct din {
    ct_stream *s;
    uint64_t lineno;       /* lines fully consumed */
    uint64_t pc;           /* last instruction fetch */
    uint8_t tail[TAIL_MAX + 1];
} din;

/* One din line at h[i..n): 1 when it reads "label blank hex [blank ...]";
 * *next receives the position after its newline. */
static int probe_line(const uint8_t *h, size_t n, size_t i, size_t *next)
{
    int ok = 1;

    while (i < n && (h[i] == ' ' || h[i] == '\t'))
        i++;
    if (i >= n || h[i] < '0' || h[i] > '5')
        ok = 0;
    else if (++i >= n || (h[i] != ' ' && h[i] != '\t'))
        ok = 0;
    else {
        while (i < n && (h[i] == ' ' || h[i] == '\t'))
            i++;
        if (i + 1 < n && h[i] == '0' && (h[i + 1] == 'x' || h[i + 1] == 'X'))
            i += 2;
        if (i >= n || ct_hexval(h[i]) < 0)
            ok = 0;
        while (i < n && ct_hexval(h[i]) >= 0)
            i++;
        if (ok && i < n && h[i] != ' ' && h[i] != '\t' && h[i] != '\n' && h[i] != '\r')
            ok = 0;
    }
    while (i < n && h[i] != '\n')
        i++;
    *next = i + 1;
    return ok;
}

/* The first line must be din; then the more of the next lines are, the
 * surer (a malformed line further on is reported by the decoder, with its
 * position, rather than making the file unrecognisable). */
static int din_probe(const uint8_t *h, size_t n)
{
    size_t i = 0;
    int lines = 0, good = 0;

    while (i < n && lines < 16) {
        size_t next;
        int ok;
        while (i < n && (h[i] == '\n' || h[i] == '\r'))
            i++;
        if (i >= n)
            break;
        ok = probe_line(h, n, i, &next);
        if (lines == 0 && !ok)
            return 0;
        lines++;
        good += ok;
        i = next;
    }
    if (!lines)
        return 0;
    return good == lines ? 60 : (good * 2 >= lines ? 30 : 0);
}

static int din_open(void **st, ct_stream *s, ct_error *err)
{
    din *d = calloc(1, sizeof *d);
    if (!d)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", s->path);
    d->s = s;
    *st = d;
    return CT_OK;
}

static void din_close(void *st) { free(st); }

/* ---- the common line, eight bytes at a time ----------------------------------
 *
 * Nearly every line of a din file reads "L HEX\n" with L in 0..2. While at
 * least FAST_SLACK bytes remain, such a line is decoded from two 64-bit
 * loads: the first byte below '0' ends the digits (blank, CR and newline
 * all are), the digits are checked and converted in parallel. A line that
 * is anything else (blanks, "0x", labels 3..5, a trailing field, errors)
 * is decoded by the general code, which gives the messages. */

#define FAST_SLACK 24
#define B8(x) (0x0101010101010101ull * (x))

static inline uint64_t load8(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* Bytes of w (first character in the low byte) before the first one below
 * '0'; 8 when there is none. */
static inline unsigned digits_in(uint64_t w)
{
    const uint64_t below = (w - B8(0x30)) & ~w & B8(0x80);
    return below ? (unsigned)__builtin_ctzll(below) >> 3 : 8;
}

/* The value of the first k (1..8) characters of w, all of them at least
 * '0'; *bad gets nonzero when one is not a hex digit. A byte of 0x80 or
 * more makes the line bad whatever its neighbours read. */
static inline uint64_t hex_word(uint64_t w, unsigned k, uint64_t *bad)
{
    const uint64_t keep = k == 8 ? ~0ull : (1ull << (8 * k)) - 1;
    const uint64_t low = w | B8(0x20);                      /* letters as lower case */
    const uint64_t ge3a = low + B8(0x46);                   /* top bit: past '9' */
    const uint64_t ge61 = low + B8(0x1f);                   /* top bit: 'a' or beyond */
    const uint64_t ge67 = low + B8(0x19);                   /* top bit: past 'f' */
    uint64_t x;

    *bad |= (w | (ge3a & (~ge61 | ge67))) & keep & B8(0x80);
    /* nibbles: '0'-'9' -> 0-9, 'a'-'f' and 'A'-'F' -> 10-15 */
    x = ((w & B8(0x0f)) + ((w >> 6) & B8(0x01)) * 9) & keep;
    x <<= 8 * (8 - k);  /* right-align: the missing leading digits are 0 */
    /* the first character is the most significant digit: pairs, then
     * quads, then the eight, each by one multiply */
    x = ((x * 0x1001) >> 8) & 0x00ff00ff00ff00ffull;
    x = ((x * 0x01000001) >> 16) & 0x0000ffff0000ffffull;
    return (x * 0x0001000000000001ull) >> 32;
}

/* Decode the line at p when it is a common one: the label in *label, the
 * address in *addr; returns the position after its newline, or NULL. At
 * least FAST_SLACK bytes follow p. */
static inline const uint8_t *fast_line(const uint8_t *p, unsigned *label, uint64_t *addr)
{
    const unsigned l = (unsigned)p[0] - '0';
    uint64_t w, bad = 0, v;
    unsigned k, k2;

    if (l > 2 || p[1] != ' ')
        return NULL;
    w = load8(p + 2);
    k = digits_in(w);
    if (k == 0)
        return NULL;
    v = hex_word(w, k, &bad);
    if (k == 8 && p[10] >= '0') {
        const uint64_t w2 = load8(p + 10);
        k2 = digits_in(w2);
        if (k2 == 8)
            return NULL;  /* more than 16 digits */
        v = v << (4 * k2) | hex_word(w2, k2, &bad);
        k += k2;
    }
    if (bad || p[2 + k] != '\n')
        return NULL;
    *label = l;
    *addr = v;
    return p + 3 + k;
}

/* Report a bad line; returns 0 to skip it (lenient) or a negative code. */
static int bad_line(din *d, const uint8_t *line, const uint8_t *at, const char *reason,
                    ct_error *err)
{
    ct_error_set(err, CT_E_FORMAT, "%s:%llu:%u: %s", d->s->path,
                 (unsigned long long)d->lineno + 1, (unsigned)(at - line) + 1, reason);
    return ct_stream_malformed(d->s, err, reason);
}

/*
 * Parse lines in [p, lim); lim[-1] is '\n'. Stops when the batch is full.
 * Returns the position reached, or NULL with *rc set on error.
 */
static const uint8_t *parse(din *d, const uint8_t *p, const uint8_t *lim, ct_batch *b,
                            int *rc, ct_error *err)
{
    ct_access *acc = b->acc;
    uint32_t n = b->n;
    const uint32_t cap = b->cap;
    uint64_t records = 0;

    *rc = CT_OK;
    while (p < lim && n < cap) {
        const uint8_t *line = p;
        unsigned label;
        uint64_t addr = 0;
        int digits;

        {
            /* common lines, as long as they come; line number and pc in
             * registers meanwhile */
            uint64_t lineno = d->lineno, pc = d->pc;
            const uint8_t *next;
            ct_access *a = &acc[n];
            const ct_access *const stop = &acc[cap];
            while (a < stop && lim - p >= FAST_SLACK && (next = fast_line(p, &label, &addr))) {
                p = next;
                lineno++;
                if (label == 2)
                    pc = addr;
                a->vaddr = addr & DIN_WORD_MASK;
                a->paddr = 0;
                a->pc = pc;
                a->time = lineno;
                a->size = DIN_REF_SIZE;
                a->thread = 0;
                a->cpu = 0;
                a->core = 0;
                a->kind = (uint8_t)(label == 2 ? CT_IFETCH : label == 0 ? CT_LOAD : CT_STORE);
                a->op = 0;
                a->flags = 0;
                a++;
            }
            records += lineno - d->lineno;
            n = (uint32_t)(a - acc);
            d->lineno = lineno;
            d->pc = pc;
            if (!(p < lim && n < cap))
                break;
            line = p;
            addr = 0;
        }

        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (*p == '\n') { /* blank line */
            p++;
            d->lineno++;
            continue;
        }
        label = (unsigned)(*p - '0');
        if (UNLIKELY(label > 5)) {
            *rc = bad_line(d, line, p, "label is not 0..5", err);
            goto skip;
        }
        p++;
        if (UNLIKELY(*p != ' ' && *p != '\t')) {
            *rc = bad_line(d, line, p, "expected a blank after the label", err);
            goto skip;
        }
        while (*p == ' ' || *p == '\t')
            p++;
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
            p += 2;
        {
            /* two digits a step while both are hex (the line ends in '\n',
             * which is not, so the loop stops inside the line) */
            const uint8_t *start = p;
            unsigned h, h2;
            while ((h = ct_hex1[p[0]]) != 0 && (h2 = ct_hex1[p[1]]) != 0) {
                addr = (addr << 8) | (uint64_t)((h - 1) << 4 | (h2 - 1));
                p += 2;
            }
            if ((h = ct_hex1[*p]) != 0) {
                addr = (addr << 4) | (uint64_t)(h - 1);
                p++;
            }
            digits = (int)(p - start);
        }
        if (UNLIKELY(digits == 0 || digits > 16 ||
                     (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n'))) {
            *rc = bad_line(d, line, p,
                           digits == 0   ? "expected a hex address"
                           : digits > 16 ? "address wider than 64 bits"
                                         : "bad character in hex address", err);
            goto skip;
        }
        if (*p != '\n')
            p = memchr(p, '\n', (size_t)(lim - p));
        p++;
        d->lineno++;
        records++;
        if (UNLIKELY(label >= 4)) {
            acc[n] = (ct_access){.vaddr = addr & DIN_WORD_MASK, .size = DIN_REF_SIZE,
                                 .time = d->lineno, .kind = CT_CACHEOP,
                                 .op = label == 4 ? CT_OP_CLEAN : CT_OP_INVAL | CT_OP_BOTH,
                                 .pc = d->pc};
            n++;
            continue;
        }
        {
            ct_access *a = &acc[n++];
            a->vaddr = addr & DIN_WORD_MASK;
            a->paddr = 0;
            a->time = d->lineno;
            a->size = DIN_REF_SIZE;
            a->thread = 0;
            a->cpu = 0;
            a->core = 0;
            a->op = 0;
            a->flags = 0;
            if (label == 2) {
                a->kind = CT_IFETCH;
                d->pc = addr;
            } else {
                a->kind = label == 0 ? CT_LOAD : label == 1 ? CT_STORE : CT_MISC;
            }
            a->pc = d->pc;
        }
        continue;
    skip:
        if (*rc < 0)
            break;
        p = memchr(p, '\n', (size_t)(lim - p)) + 1;
        d->lineno++;
    }
    b->n = n;
    d->s->info->records += records;
    return *rc < 0 ? NULL : p;
}

static int din_next(void *st, ct_batch *b, ct_error *err)
{
    din *d = st;
    ct_bytes *in = d->s->in;
    const uint64_t start = ct_bytes_offset(in);

    if (start == 0) {
        int rc = ct_text_bom(in, err);
        if (rc != CT_OK)
            return rc;
    }
    while (b->n < b->cap && ct_bytes_offset(in) - start < CT_DECODE_SLICE) {
        ssize_t avail = ct_bytes_fill(in, 1u << 16, err);
        const uint8_t *p, *lim, *q;
        int rc;

        if (avail < 0)
            return (int)avail;
        if (avail == 0)
            return 0;
        p = ct_bytes_ptr(in);
        lim = p + avail;
        /* whole lines only */
        while (lim > p && lim[-1] != '\n')
            lim--;
        if (lim == p) {
            if (!in->eof) {
                if ((size_t)avail >= in->cap) {
                    if ((rc = ct_text_skip_long(in, d->s, d->lineno + 1, err)) != CT_OK)
                        return rc;
                    d->lineno++;
                    continue;
                }
                if (ct_bytes_fill(in, (size_t)avail + 1, err) < 0)
                    return err->code;
                continue;
            }
            /* the last line has no newline: parse a terminated copy */
            if ((rc = ct_text_no_lf(in, err)) != CT_OK)
                return rc;
            if ((size_t)avail > TAIL_MAX) {
                ct_error_set(err, CT_E_FORMAT, "%s:%llu: line longer than %d bytes", d->s->path,
                             (unsigned long long)d->lineno + 1, TAIL_MAX);
                if ((rc = ct_stream_malformed(d->s, err, "line longer than the input buffer")) !=
                    CT_OK)
                    return rc;
                ct_bytes_skip(in, (size_t)avail);
                d->lineno++;
                continue;
            }
            memcpy(d->tail, p, (size_t)avail);
            d->tail[avail] = '\n';
            q = parse(d, d->tail, d->tail + avail + 1, b, &rc, err);
            if (!q)
                return rc;
            if (q == d->tail + avail + 1)
                ct_bytes_skip(in, (size_t)avail);
            else
                ct_bytes_skip(in, (size_t)(q - d->tail));
            continue;
        }
        q = parse(d, p, lim, b, &rc, err);
        if (!q)
            return rc;
        ct_bytes_skip(in, (size_t)(q - p));
    }
    return 1;
}

const ct_format_ops ct_format_din = {
    .name = "din",
    .desc = "DineroIV din text: label (0 read, 1 write, 2 fetch, 3 escape, 4 copy back, 5 invalidate) and hex address",
    .max_per_record = 1,
    .default_schedule = CT_SCHED_THREADS,
    .probe = din_probe,
    .open = din_open, .next = din_next, .close = din_close,
};
