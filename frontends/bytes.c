/*
 * bytes.c - the buffered byte stream every decoder reads, and the stacking
 * of decompressors found by magic bytes.
 *
 * Text lines (the rule for every text format: din, Tarmac, VIXL):
 *
 *  - A line ends at a line feed (LF); a carriage return (CR) just before
 *    the LF, or at the very end of the input, is dropped.
 *  - CR-only line endings are refused, not guessed: when the buffered input
 *    holds no LF but a CR with bytes after it, the read stops with
 *    "FILE: CR-only line endings (a carriage return without a line feed at
 *    byte N)" (ct_text_no_lf), in lenient mode too.
 *  - A UTF-8 byte-order mark (EF BB BF) at byte 0 is refused with that name
 *    (ct_text_bom): cachet reads ASCII text.
 *  - A line longer than the stream's buffer (CT_BYTES_BUF, 1 MiB; a zip
 *    member's 512 KiB) is a malformed record, "line longer than N bytes": a
 *    strict read stops there, a lenient one counts it and skips its bytes
 *    through the next LF (ct_text_skip_long).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "frontend.h"

static ct_bytes *bytes_alloc(const char *name, size_t cap)
{
    ct_bytes *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->cap = cap;
    b->fault_from = b->fault_at = UINT64_MAX;
    b->buf = malloc(b->cap);
    if (!b->buf) {
        free(b);
        return NULL;
    }
    snprintf(b->name, sizeof b->name, "%s", name);
    return b;
}

void ct_bytes_progress(ct_bytes *b, uint64_t *done, uint64_t *size)
{
    ct_bytes *above = NULL, *f = b;

    *done = *size = 0;
    while (f && f->inner) {
        above = f;
        f = f->inner;
    }
    if (!f || !f->file_size)
        return;
    *size = f->file_size;
    if (above && above->ops == &ct_source_zip) {  /* read by libzip, not through f */
        if (!above->zip_total)
            for (uint64_t i = 0, n = ct_zip_members(above), m; i < n; i++)
                if (ct_zip_member(above, i, NULL, &m) == 0)
                    above->zip_total += m;
        if (above->zip_total) {
            double share = (double)ct_bytes_offset(above) / (double)above->zip_total;
            *done = (uint64_t)((double)f->file_size * (share < 1 ? share : 1));
        }
        return;
    }
    *done = ct_bytes_offset(f);
    if (*done > *size)
        *done = *size;
}

void ct_bytes_close(ct_bytes *b)
{
    while (b) {
        ct_bytes *inner = b->inner;
        if (b->ops && b->ops->close)
            b->ops->close(b->st);
        free(b->buf);
        free(b);
        b = inner;
    }
}

void ct_bytes_release(ct_bytes *b)
{
    free(b->buf);
    b->buf = NULL;
    b->cap = b->pos = b->end = b->held = 0;
    b->eof = 1;
}

ssize_t ct_bytes_fill(ct_bytes *b, size_t want, ct_error *err)
{
    if (want > b->cap)
        want = b->cap;
    if (b->end - b->pos >= want || b->eof)
        return (ssize_t)(b->end - b->pos);
    if (b->fault.code) {
        *err = b->fault;
        return b->fault.code;
    }
    if (b->pos > 0) { /* compact */
        memmove(b->buf, b->buf + b->pos, b->end - b->pos);
        b->base += b->pos;
        b->end -= b->pos;
        b->pos = 0;
    }
    while (b->end - b->pos < want && !b->eof) {
        uint64_t from = b->base + b->end;
        ssize_t n = b->ops->read(b->st, b->buf + b->end, b->cap - b->end, err);
        const ct_error *kept;
        if (n < 0) {
            b->fault = *err;
            b->fault.code = (int)n;
            if (b->fault_at == UINT64_MAX)
                b->fault_from = b->fault_at = from;
            return n;
        }
        if (n == 0)
            b->eof = 1;
        b->end += (size_t)n;
        if (b->ops->fault && (kept = b->ops->fault(b->st)) != NULL) {
            /* the bytes just read end at a fault: they are not handed out
             * (a damaged stream can give garbage before its damage shows),
             * only where the fault lies is kept */
            b->fault = *kept;
            b->fault_from = from;
            b->fault_at = b->base + b->end;
            b->held = b->end;
            b->end = (size_t)(from - b->base);
            if (b->end - b->pos < want) {
                *err = b->fault;
                return b->fault.code;
            }
        }
    }
    return (ssize_t)(b->end - b->pos);
}

ssize_t ct_source_fail(ct_error *kept, size_t got, int rc, ct_error *err)
{
    *kept = *err;
    kept->code = rc;
    if (got == 0)
        return rc;
    err->code = CT_OK;
    err->msg[0] = '\0';
    return (ssize_t)got;
}

ssize_t ct_source_kept(const ct_error *kept, ct_error *err)
{
    *err = *kept;
    return kept->code;
}

ssize_t ct_bytes_read(ct_bytes *b, void *dst, size_t n, ct_error *err)
{
    size_t got = 0;
    while (got < n) {
        ssize_t avail = ct_bytes_fill(b, n - got, err);
        size_t take;
        if (avail < 0)
            return avail;
        if (avail == 0)
            break;
        take = (size_t)avail < n - got ? (size_t)avail : n - got;
        memcpy((uint8_t *)dst + got, b->buf + b->pos, take);
        b->pos += take;
        got += take;
    }
    return (ssize_t)got;
}

int ct_bytes_push(ct_bytes **out, ct_bytes *inner, const ct_source_ops *ops, ct_error *err)
{
    /* layers of a probe keep its small buffers */
    size_t cap = ops->buf ? ops->buf : CT_BYTES_BUF;
    ct_bytes *b = bytes_alloc(inner->name, inner->cap && inner->cap < cap ? inner->cap : cap);
    int rc;

    *out = NULL;
    if (!b) {
        ct_bytes_close(inner);
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", inner->name);
    }
    b->ops = ops;
    b->inner = inner;
    snprintf(b->chain, sizeof b->chain, "%.15s+%.40s", ops->name, inner->chain);
    rc = ops->open(&b->st, inner, err);
    if (rc) {
        b->ops = NULL;
        ct_bytes_close(b);
        return rc;
    }
    *out = b;
    return CT_OK;
}

/* Stack decompressors while the head of the stream matches one. */
static int autodetect(ct_bytes **io, ct_error *err)
{
    for (int depth = 0; depth < 4; depth++) {
        ct_bytes *b = *io;
        const ct_source_ops *hit = NULL;
        ssize_t n = ct_bytes_fill(b, 16, err);
        size_t have;
        const uint8_t *head = ct_bytes_head(b, &have);
        if (n < 0 && have == 0)
            return (int)n;
        if (n < 0) {  /* a fault after the first bytes: the reader meets it */
            if (have < 16)
                return CT_OK;  /* too little to stack another decoder on */
            memset(err, 0, sizeof *err);
        }
        for (size_t i = 0; ct_source_decoder_at(i); i++)
            if (ct_source_decoder_at(i)->probe(head, have)) {
                hit = ct_source_decoder_at(i);
                break;
            }
        if (!hit)
            return CT_OK;
        {
            int rc = ct_bytes_push(io, b, hit, err);
            if (rc)
                return rc;
        }
    }
    return CT_OK;
}

static int bytes_open_cap(ct_bytes **out, const char *path, size_t cap, int containers,
                          ct_error *err)
{
    ct_bytes *b = bytes_alloc(path, cap);
    int rc;

    *out = NULL;
    if (!b)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
    b->ops = &ct_source_file;
    snprintf(b->chain, sizeof b->chain, "%s", strcmp(path, "-") == 0 ? "stdin" : "file");
    rc = ct_source_file.open(&b->st, b, err);
    if (rc) {
        b->ops = NULL;
        ct_bytes_close(b);
        return rc;
    }
    {
        struct stat sb;
        if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            b->file_size = (uint64_t)sb.st_size;
    }
    rc = containers ? autodetect(&b, err) : CT_OK;
    if (rc) {
        ct_bytes_close(b);
        return rc;
    }
    *out = b;
    return CT_OK;
}

int ct_bytes_open(ct_bytes **out, const char *path, int containers, ct_error *err)
{
    return bytes_open_cap(out, path, CT_BYTES_BUF, containers, err);
}

int ct_bytes_open_probe(ct_bytes **out, const char *path, ct_error *err)
{
    return bytes_open_cap(out, path, CT_BYTES_PROBE, 1, err);
}

int ct_bytes_open_mem(ct_bytes **out, const char *name, const void *data, size_t n,
                      int containers, ct_error *err)
{
    /* memory needs no bigger buffer than its data (lines must still fit) */
    ct_bytes *b = bytes_alloc(name, n < 8192 ? 8192 : (n < CT_BYTES_BUF ? n : CT_BYTES_BUF));
    int rc;

    *out = NULL;
    if (!b)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", name);
    b->ops = &ct_source_mem;
    snprintf(b->chain, sizeof b->chain, "memory");
    b->st = ct_source_mem_state(data, n);
    if (!b->st) {
        b->ops = NULL;
        ct_bytes_close(b);
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", name);
    }
    rc = containers ? autodetect(&b, err) : CT_OK;
    if (rc) {
        ct_bytes_close(b);
        return rc;
    }
    *out = b;
    return CT_OK;
}

const unsigned char ct_hex1[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,
    ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14,
    ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15,
    ['F'] = 16,
};

/* ---- lines ---- */

int ct_text_bom(ct_bytes *b, ct_error *err)
{
    ssize_t n;

    if (ct_bytes_offset(b) != 0)
        return CT_OK;
    n = ct_bytes_fill(b, 3, err);
    if (n < 0)
        return (int)n;
    if (n >= 3 && memcmp(ct_bytes_ptr(b), "\xef\xbb\xbf", 3) == 0)
        return ct_error_set(err, CT_E_FORMAT,
                            "%s: UTF-8 byte-order mark at byte 0 (cachet reads plain ASCII "
                            "text: save the file without it)", b->name);
    return CT_OK;
}

int ct_text_no_lf(const ct_bytes *b, ct_error *err)
{
    const uint8_t *p = ct_bytes_ptr(b);
    size_t n = ct_bytes_avail(b);
    const uint8_t *cr = memchr(p, '\r', n);

    if (cr && (size_t)(cr - p) + 1 < n)
        return ct_error_set(err, CT_E_FORMAT,
                            "%s: CR-only line endings (a carriage return without a line feed "
                            "at byte %llu): convert them to LF", b->name,
                            (unsigned long long)(ct_bytes_offset(b) + (uint64_t)(cr - p)));
    return CT_OK;
}

int ct_text_skip_long(ct_bytes *b, ct_stream *s, uint64_t lineno, ct_error *err)
{
    int rc = ct_text_no_lf(b, err);

    if (rc != CT_OK)
        return rc;
    ct_error_set(err, CT_E_FORMAT, "%s:%llu: line longer than %zu bytes", b->name,
                 (unsigned long long)lineno, b->cap);
    if (!s || (rc = ct_stream_malformed(s, err, "line longer than the input buffer")) != CT_OK)
        return err->code ? err->code : CT_E_FORMAT;
    for (;;) { /* skip through the next LF */
        const uint8_t *p = ct_bytes_ptr(b);
        size_t avail = ct_bytes_avail(b);
        const uint8_t *nl = memchr(p, '\n', avail);
        ssize_t got;
        if (nl) {
            ct_bytes_skip(b, (size_t)(nl - p) + 1);
            return CT_OK;
        }
        ct_bytes_skip(b, avail);
        got = ct_bytes_fill(b, 1, err);
        if (got < 0)
            return (int)got;
        if (got == 0)
            return CT_OK;
    }
}

int ct_lines_next(ct_lines *l, const char **line, size_t *len, ct_error *err)
{
    ct_bytes *b = l->in;
    size_t scanned = 0;

    if (l->lineno == 0) {
        int rc = ct_text_bom(b, err);
        if (rc != CT_OK)
            return rc;
    }
    for (;;) {
        const uint8_t *p = b->buf + b->pos;
        size_t avail = b->end - b->pos;
        const uint8_t *nl = memchr(p + scanned, '\n', avail - scanned);
        if (nl) {
            size_t n = (size_t)(nl - p);
            b->pos += n + 1;
            if (n && p[n - 1] == '\r')
                n--;
            *line = (const char *)p;
            *len = n;
            l->lineno++;
            return 1;
        }
        if (b->eof) {
            if (avail == 0)
                return 0;
            if (ct_text_no_lf(b, err) != CT_OK)
                return err->code;
            b->pos += avail;
            if (p[avail - 1] == '\r')
                avail--;
            *line = (const char *)p;
            *len = avail;
            l->lineno++;
            return 1;
        }
        if (avail == b->cap) {
            int rc = ct_text_skip_long(b, l->s, l->lineno + 1, err);
            if (rc != CT_OK)
                return rc;
            l->lineno++;
            scanned = 0;
            continue;
        }
        scanned = avail;
        {
            ssize_t n = ct_bytes_fill(b, avail + 1, err);
            if (n < 0)
                return (int)n;
        }
    }
}

int ct_trace_lines(const char *path, uint64_t first, uint64_t last,
                   int (*fn)(void *ctx, uint64_t lineno, const char *line, size_t len),
                   void *ctx, ct_error *err)
{
    ct_lines lines = {0};
    const char *text;
    size_t len;
    int rc;

    if ((rc = ct_bytes_open(&lines.in, path, 1, err)) != CT_OK)
        return rc;
    while (lines.lineno < last && (rc = ct_lines_next(&lines, &text, &len, err)) == 1)
        if (lines.lineno >= first && fn(ctx, lines.lineno, text, len) != 0)
            break;
    ct_bytes_close(lines.in);
    return rc < 0 ? rc : CT_OK;
}
