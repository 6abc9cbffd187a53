/*
 * source_compress.c - unix compress (.Z, LZW) streams, the container of the
 * classic DineroIV trace sets.
 *
 * Format: magic 1f 9d, then a flags byte (low 5 bits: largest code width,
 * 9..16; bit 7: block mode, where code 256 clears the table). Codes are
 * packed least-significant bit first, starting 9 bits wide; the width grows
 * by one when the next free code reaches 2^width. Codes are written in
 * groups of eight: when the width changes or the table is cleared, the
 * rest of the current group of eight codes is padding and is skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

#define FIRST_FREE 257
#define CLEAR_CODE 256

typedef struct lzw_src {
    ct_bytes *in;
    int maxbits, block_mode;
    uint32_t n_bits, maxcode, maxmaxcode, free_ent;
    int32_t oldcode;
    uint8_t finchar;
    uint32_t group;          /* codes read in the current group of eight */
    uint64_t bb;             /* bit buffer, LSB first */
    uint32_t nb;             /* bits in bb */
    int done;
    uint16_t prefix[1 << 16];
    uint8_t suffix[1 << 16];
    uint8_t stack[1 << 16];
    uint32_t sp;             /* stack[sp..] holds output not yet delivered */
    ct_error kept;          /* a fault found after bytes were returned */
} lzw_src;

static int lzw_probe(const uint8_t *h, size_t n)
{
    return n >= 3 && h[0] == 0x1f && h[1] == 0x9d;
}

static int lzw_open(void **st, ct_bytes *inner, ct_error *err)
{
    lzw_src *z = calloc(1, sizeof *z);
    uint8_t head[3];
    ssize_t n;

    if (!z)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", inner->name);
    z->in = inner;
    n = ct_bytes_read(inner, head, 3, err);
    if (n < 0) {
        free(z);
        return (int)n;
    }
    z->maxbits = head[2] & 0x1f;
    z->block_mode = (head[2] & 0x80) != 0;
    if (n < 3 || z->maxbits < 9 || z->maxbits > 16) {
        int bits = n < 3 ? 0 : z->maxbits;
        free(z);
        return ct_error_set(err, CT_E_FORMAT,
                            "%s: byte 2: compress header gives %d-bit codes (9..16 expected)",
                            inner->name, bits);
    }
    z->n_bits = 9;
    z->maxcode = (1u << 9) - 1;
    z->maxmaxcode = 1u << z->maxbits;
    z->free_ent = z->block_mode ? FIRST_FREE : 256;
    z->oldcode = -1;
    z->sp = sizeof z->stack;
    *st = z;
    return CT_OK;
}

/* Skip the padding to the end of the current group of eight codes. */
static int skip_group(lzw_src *z, ct_error *err)
{
    uint32_t bits = ((8 - z->group) % 8) * z->n_bits;
    z->group = 0;
    while (bits > 0) {
        if (z->nb == 0) {
            uint8_t byte;
            ssize_t n = ct_bytes_read(z->in, &byte, 1, err);
            if (n < 0)
                return (int)n;
            if (n == 0)
                return 0;
            z->bb = byte;
            z->nb = 8;
        }
        uint32_t take = bits < z->nb ? bits : z->nb;
        z->bb >>= take;
        z->nb -= take;
        bits -= take;
    }
    return 0;
}

/* Next code, or -1 at the end of input, or a negative code below -1. */
static int64_t next_code(lzw_src *z, ct_error *err)
{
    while (z->nb < z->n_bits) {
        ssize_t avail = ct_bytes_fill(z->in, 1, err);
        if (avail < 0)
            return avail - 1; /* keep it below -1 */
        if (avail == 0)
            return -1;
        z->bb |= (uint64_t)ct_bytes_ptr(z->in)[0] << z->nb;
        ct_bytes_skip(z->in, 1);
        z->nb += 8;
    }
    {
        uint32_t code = (uint32_t)(z->bb & ((1u << z->n_bits) - 1));
        z->bb >>= z->n_bits;
        z->nb -= z->n_bits;
        z->group = (z->group + 1) % 8;
        return code;
    }
}

static ssize_t lzw_read(void *st, uint8_t *dst, size_t n, ct_error *err)
{
    lzw_src *z = st;
    size_t got = 0;

    if (z->kept.code)
        return ct_source_kept(&z->kept, err);
    while (got < n) {
        if (z->sp < sizeof z->stack) { /* deliver pending output */
            size_t k = sizeof z->stack - z->sp;
            if (k > n - got)
                k = n - got;
            memcpy(dst + got, z->stack + z->sp, k);
            z->sp += (uint32_t)k;
            got += k;
            continue;
        }
        if (z->done)
            break;
        if (z->free_ent > z->maxcode && z->n_bits < (uint32_t)z->maxbits) {
            int rc = skip_group(z, err);
            if (rc)
                return ct_source_fail(&z->kept, got, rc, err);
            z->n_bits++;
            z->maxcode = z->n_bits == (uint32_t)z->maxbits ? z->maxmaxcode
                                                          : (1u << z->n_bits) - 1;
        }
        int64_t c = next_code(z, err);
        if (c < -1)
            return ct_source_fail(&z->kept, got, (int)(c + 1), err);
        if (c == -1) {
            z->done = 1;
            break;
        }
        uint32_t code = (uint32_t)c, incode;
        if (z->oldcode == -1) {
            if (code >= 256)
                return ct_source_fail(
                    &z->kept, got,
                    ct_error_set(err, CT_E_FORMAT,
                                 "%s: compressed byte %llu: corrupt compress data (first code %u)",
                                 z->in->name, (unsigned long long)ct_bytes_offset(z->in), code),
                    err);
            z->oldcode = (int32_t)code;
            z->finchar = (uint8_t)code;
            z->stack[--z->sp] = (uint8_t)code;
            continue;
        }
        if (code == CLEAR_CODE && z->block_mode) {
            int rc;
            memset(z->prefix, 0, sizeof z->prefix);
            z->free_ent = FIRST_FREE - 1;
            rc = skip_group(z, err);
            if (rc)
                return ct_source_fail(&z->kept, got, rc, err);
            z->n_bits = 9;
            z->maxcode = (1u << 9) - 1;
            continue;
        }
        incode = code;
        if (code >= z->free_ent) { /* the KwKwK case */
            if (code > z->free_ent)
                return ct_source_fail(
                    &z->kept, got,
                    ct_error_set(err, CT_E_FORMAT,
                                 "%s: compressed byte %llu: corrupt compress data (code %u "
                                 "beyond table end %u)", z->in->name,
                                 (unsigned long long)ct_bytes_offset(z->in), code, z->free_ent),
                    err);
            z->stack[--z->sp] = z->finchar;
            code = (uint32_t)z->oldcode;
        }
        while (code >= 256) {
            if (z->sp == 0)
                return ct_source_fail(
                    &z->kept, got,
                    ct_error_set(err, CT_E_FORMAT, "%s: corrupt compress data (loop)",
                                 z->in->name),
                    err);
            z->stack[--z->sp] = z->suffix[code];
            code = z->prefix[code];
        }
        z->finchar = (uint8_t)code;
        z->stack[--z->sp] = z->finchar;
        if (z->free_ent < z->maxmaxcode) {
            z->prefix[z->free_ent] = (uint16_t)z->oldcode;
            z->suffix[z->free_ent] = z->finchar;
            z->free_ent++;
        }
        z->oldcode = (int32_t)incode;
    }
    return (ssize_t)got;
}

static const ct_error *lzw_fault(void *st)
{
    const lzw_src *s = st;
    return s->kept.code ? &s->kept : NULL;
}

const ct_source_ops ct_source_compress = {
    .name = "compress",
    .probe = lzw_probe, .open = lzw_open, .read = lzw_read, .close = free,
    .fault = lzw_fault,
};
