/*
 * source_zip.c - zip archives: the members, in archive (central directory)
 * order, read as one stream.
 *
 * A zip archive needs random access, so this layer reopens the file the
 * layer below names (a zip archive on stdin is refused). libzip reads the
 * directory and hands out each member's stored bytes; deflated members are
 * inflated (zlib) and checked here, while they are read, with the CRC-32 of
 * crc32.c: libzip's own reading checks the CRC with zlib's table-driven
 * loop, which costs more than inflating a drmemtrace chunk. Stored members,
 * and members compressed otherwise (bzip2, ...), are read through libzip,
 * which checks their CRC itself (once).
 *
 * A member that does not inflate, whose data ends early or runs long, or
 * whose CRC differs from the directory's is an error naming the member and
 * its uncompressed byte; a CRC error can only be seen at the member's end,
 * with the member's last read. One read never crosses from one member into
 * the next, and a fault is reported after the bytes produced before it
 * (ct_source_fail): the layer above knows where it lies.
 * After a fault, ct_zip_skip_member() drops the rest of the member and
 * goes on with the next one (lenient readers resynchronise there).
 *
 * A file that starts like an archive but has no end of central directory
 * record (where libzip looks for the directory) is reported as truncated.
 * Decoders that care where members begin (drmemtrace chunks) ask
 * ct_zip_member() for the name and size of member i: members follow each
 * other in the stream with no gap, at the offsets the directory's sizes
 * give.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zip.h>
#include <zlib.h>

#include "frontend.h"

#define RAW_BUF (1u << 16)   /* stored bytes read from the archive at once */

enum { M_INFLATE, M_LIBZIP };

typedef struct zip_src {
    zip_t *za;
    zip_file_t *cur;        /* open member, NULL between members */
    uint64_t n;             /* members */
    uint64_t idx;           /* member being read */
    uint64_t *start;        /* stream offset of each member; start[n] = the end */
    int mode;               /* M_INFLATE: deflated, inflated here; M_LIBZIP */
    uint64_t got;           /* bytes it produced */
    uint64_t want;          /* its uncompressed size */
    uint32_t crc, want_crc; /* CRC of the bytes produced, and the directory's */
    int ended;              /* its data ended (checks pending) */
    z_stream z;             /* M_INFLATE */
    int z_ready;
    uint8_t *raw;           /* M_INFLATE: stored bytes not yet inflated */
    int raw_eof;
    ct_error kept;          /* a fault found after bytes were returned */
    const char *fault;      /* its kind (reason text), NULL without a fault */
    const char *path;
} zip_src;

static const char *const F_DATA = "zip member does not inflate";
static const char *const F_SIZE = "zip member of the wrong length";
static const char *const F_CRC = "zip member CRC mismatch";

static int zip_probe(const uint8_t *h, size_t n)
{
    /* a local file header, or the end record of an empty archive */
    return n >= 4 && h[0] == 'P' && h[1] == 'K' &&
           ((h[2] == 3 && h[3] == 4) || (h[2] == 5 && h[3] == 6));
}

/* Size of the file a layer reads (0 when unknown). */
static uint64_t file_size(const ct_bytes *b)
{
    struct stat sb;
    return stat(b->name, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

static const char *member_name(zip_src *z, uint64_t i)
{
    const char *name = zip_get_name(z->za, i, 0);
    return name ? name : "?";
}

static void zip_close_src(void *st)
{
    zip_src *z = st;
    if (!z)
        return;
    if (z->cur)
        zip_fclose(z->cur);
    if (z->z_ready)
        inflateEnd(&z->z);
    if (z->za)
        zip_discard(z->za);
    free(z->start);
    free(z->raw);
    free(z);
}

static int zip_open_src(void **st, ct_bytes *inner, ct_error *err)
{
    zip_src *z;
    int zerr = 0;
    zip_int64_t n;

    if (inner->ops != &ct_source_file || strcmp(inner->name, "-") == 0)
        return ct_error_set(err, CT_E_UNSUPPORTED,
                            "%s: a zip archive must be read from a file (it needs random "
                            "access), not from a pipe or an inner stream", inner->name);
    z = calloc(1, sizeof *z);
    if (!z)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", inner->name);
    z->path = inner->name;
    z->za = zip_open(inner->name, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
    if (!z->za) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        if (zerr == ZIP_ER_NOZIP) /* it starts like one (the probe): its end is missing */
            ct_error_set(err, CT_E_FORMAT,
                         "%s: byte %llu (the end of the file): zip archive truncated: no "
                         "end of central directory record (%s)", inner->name,
                         (unsigned long long)file_size(inner), zip_error_strerror(&ze));
        else if (zerr == ZIP_ER_EXISTS)
            ct_error_set(err, CT_E_FORMAT, "%s: not a readable zip archive: two members "
                         "have the same name (%s)", inner->name, zip_error_strerror(&ze));
        else
            ct_error_set(err, CT_E_FORMAT, "%s: not a readable zip archive: %s", inner->name,
                         zip_error_strerror(&ze));
        zip_error_fini(&ze);
        free(z);
        return err->code;
    }
    n = zip_get_num_entries(z->za, 0);
    z->n = n > 0 ? (uint64_t)n : 0;
    z->start = calloc(z->n + 1, sizeof *z->start);
    z->raw = malloc(RAW_BUF);
    if (!z->start || !z->raw) {
        zip_close_src(z);
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", inner->name);
    }
    for (uint64_t i = 0; i < z->n; i++) {
        zip_stat_t sb;
        zip_stat_init(&sb);
        if (zip_stat_index(z->za, i, 0, &sb) != 0 || !(sb.valid & ZIP_STAT_SIZE)) {
            ct_error_set(err, CT_E_FORMAT, "%s: member %llu: unreadable directory entry: %s",
                         inner->name, (unsigned long long)i,
                         zip_error_strerror(zip_get_error(z->za)));
            zip_close_src(z);
            return err->code;
        }
        z->start[i + 1] = z->start[i] + sb.size;
    }
    ct_bytes_release(inner);  /* libzip reads the file itself */
    *st = z;
    return CT_OK;
}

/* A fault of member z->idx: sets err, remembers its kind, returns the code. */
static int member_fault(zip_src *z, const char *kind, ct_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int member_fault(zip_src *z, const char *kind, ct_error *err, const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    z->fault = kind;
    return ct_error_set(err, CT_E_FORMAT, "%s:%s: uncompressed byte %llu: %s", z->path,
                        member_name(z, z->idx), (unsigned long long)z->got, why);
}

/* Open member z->idx (the caller checked it exists). */
static int open_member(zip_src *z, ct_error *err)
{
    zip_stat_t sb;
    int raw;

    zip_stat_init(&sb);
    if (zip_stat_index(z->za, z->idx, 0, &sb) != 0 || !(sb.valid & ZIP_STAT_SIZE)) {
        z->fault = F_DATA;
        return ct_error_set(err, CT_E_FORMAT, "%s: member %llu: unreadable directory entry: %s",
                            z->path, (unsigned long long)z->idx,
                            zip_error_strerror(zip_get_error(z->za)));
    }
    z->want = sb.size;
    z->want_crc = (sb.valid & ZIP_STAT_CRC) ? sb.crc : 0;
    z->got = 0;
    z->crc = 0;
    z->ended = 0;
    z->raw_eof = 0;
    raw = (sb.valid & ZIP_STAT_COMP_METHOD) && (sb.valid & ZIP_STAT_CRC) &&
          (!(sb.valid & ZIP_STAT_ENCRYPTION_METHOD) || sb.encryption_method == ZIP_EM_NONE) &&
          sb.comp_method == ZIP_CM_DEFLATE;
    z->mode = raw ? M_INFLATE : M_LIBZIP;
    if (z->mode == M_INFLATE) {
        int zr = z->z_ready ? inflateReset(&z->z) : inflateInit2(&z->z, -15);
        if (zr != Z_OK)
            return ct_error_set(err, CT_E_NOMEM, "%s: cannot start inflating a member",
                                z->path);
        z->z_ready = 1;
        z->z.avail_in = 0;
    }
    z->cur = zip_fopen_index(z->za, z->idx, z->mode == M_LIBZIP ? 0 : ZIP_FL_COMPRESSED);
    if (!z->cur) {
        z->fault = F_DATA;
        return ct_error_set(err, CT_E_FORMAT, "%s:%s: cannot open member: %s", z->path,
                            sb.name ? sb.name : "?", zip_error_strerror(zip_get_error(z->za)));
    }
    return CT_OK;
}

/* Inflate into dst; returns bytes produced (0 once the data ended) or a
 * negative code. As much as dst takes at once: zlib copies the last 32 KiB
 * of every call's output into its window. */
static ssize_t inflate_some(zip_src *z, uint8_t *dst, size_t n, ct_error *err)
{
    z->z.next_out = dst;
    z->z.avail_out = (uInt)(n > (1u << 30) ? (1u << 30) : n);
    while (z->z.avail_out > 0 && !z->ended) {
        int zr;
        if (z->z.avail_in == 0 && !z->raw_eof) {
            zip_int64_t r = zip_fread(z->cur, z->raw, RAW_BUF);
            if (r < 0)
                return member_fault(z, F_DATA, err, "corrupt member: %s",
                                    zip_file_strerror(z->cur));
            z->raw_eof = r == 0;
            z->z.next_in = z->raw;
            z->z.avail_in = (uInt)r;
        }
        zr = inflate(&z->z, Z_NO_FLUSH);
        if (zr == Z_STREAM_END)
            z->ended = 1;
        else if (zr == Z_BUF_ERROR && z->z.avail_in == 0 && z->raw_eof)
            return member_fault(z, F_DATA, err,
                                "corrupt member: its compressed data ends inside the stream");
        else if (zr != Z_OK && zr != Z_BUF_ERROR)
            return member_fault(z, F_DATA, err, "corrupt member: %s",
                                z->z.msg ? z->z.msg : "inflate failed");
    }
    return (ssize_t)((uint8_t *)z->z.next_out - dst);
}

/* Up to n bytes of the open member: bytes read, 0 at its end (after the
 * length and CRC checks), or a negative code. */
static ssize_t member_read(zip_src *z, uint8_t *dst, size_t n, ct_error *err)
{
    ssize_t r;

    if (z->mode == M_INFLATE) {
        size_t done = 0;
        r = 0;
        while (done < n && !z->ended) {
            r = inflate_some(z, dst + done, n - done, err);
            if (r <= 0)
                break;
            z->crc = ct_crc32(z->crc, dst + done, (size_t)r);
            done += (size_t)r;
        }
        if (r >= 0)
            r = (ssize_t)done;
    } else {
        /* libzip checks the CRC of what it inflates itself, and of stored
         * members even when asked for their stored bytes */
        zip_int64_t k = z->ended ? 0 : zip_fread(z->cur, dst, n);
        if (k < 0)
            return member_fault(z,
                                zip_error_code_zip(zip_file_get_error(z->cur)) == ZIP_ER_CRC
                                    ? F_CRC : F_DATA,
                                err, "corrupt member: %s", zip_file_strerror(z->cur));
        if (k == 0)
            z->ended = 1;
        r = (ssize_t)k;
    }
    if (r < 0)
        return r;
    z->got += (uint64_t)r;
    if (z->got > z->want)
        return member_fault(z, F_SIZE, err, "member longer than its %llu bytes",
                            (unsigned long long)z->want);
    if (r > 0)
        return r;
    if (z->got != z->want)
        return member_fault(z, F_SIZE, err, "member ends after %llu of %llu bytes",
                            (unsigned long long)z->got, (unsigned long long)z->want);
    if (z->mode == M_INFLATE && z->crc != z->want_crc)
        return member_fault(z, F_CRC, err,
                            "corrupt member: CRC error (the data's CRC-32 is 0x%08x, the "
                            "archive's 0x%08x)", (unsigned)z->crc, (unsigned)z->want_crc);
    return 0;
}

static void close_member(zip_src *z)
{
    if (z->cur)
        zip_fclose(z->cur);
    z->cur = NULL;
    z->idx++;
}

static ssize_t zip_read(void *st, uint8_t *dst, size_t n, ct_error *err)
{
    zip_src *z = st;
    size_t done = 0;

    if (z->kept.code)
        return ct_source_kept(&z->kept, err);
    while (done < n) {
        ssize_t r;
        if (!z->cur) {
            if (z->idx >= z->n || done > 0)
                break;  /* a member's first bytes start a read of their own */
            if (open_member(z, err) != CT_OK) {
                z->kept = *err;  /* every later read gives it, until skipped */
                return err->code;
            }
        }
        r = member_read(z, dst + done, n - done, err);
        if (r < 0)
            return ct_source_fail(&z->kept, done, (int)r, err);
        if (r == 0)
            close_member(z);  /* checked: the next one starts a read of its own */
        done += (size_t)r;
    }
    return (ssize_t)done;
}

static const ct_error *zsrc_fault(void *st)
{
    const zip_src *s = st;
    return s->kept.code ? &s->kept : NULL;
}

const ct_source_ops ct_source_zip = {
    .name = "zip",
    .probe = zip_probe, .open = zip_open_src, .read = zip_read, .close = zip_close_src,
    .fault = zsrc_fault,
    /* half the default: a buffer per thread of a trace directory, and
     * zlib copies only 32 KiB of each call's output into its window */
    .buf = 512u << 10,
};

uint64_t ct_zip_members(const ct_bytes *b)
{
    return b && b->ops == &ct_source_zip ? ((const zip_src *)b->st)->n : 0;
}

int ct_zip_member(const ct_bytes *b, uint64_t i, const char **name, uint64_t *size)
{
    zip_src *z;

    if (!b || b->ops != &ct_source_zip)
        return -1;
    z = b->st;
    if (i >= z->n)
        return -1;
    if (name)
        *name = member_name(z, i);
    if (size)
        *size = z->start[i + 1] - z->start[i];
    return 0;
}

const char *ct_zip_fault(const ct_bytes *b, uint64_t *member)
{
    const zip_src *z;
    if (!b || b->ops != &ct_source_zip)
        return NULL;
    z = b->st;
    if (!z->fault)
        return NULL;
    if (member)
        *member = z->idx;
    return z->fault;
}

int ct_zip_skip_member(ct_bytes *b)
{
    zip_src *z;
    if (!b || b->ops != &ct_source_zip)
        return -1;
    z = b->st;
    if (!z->fault || z->idx >= z->n)
        return -1;
    if (z->cur)
        zip_fclose(z->cur);
    z->cur = NULL;
    z->idx++;
    z->fault = NULL;
    memset(&z->kept, 0, sizeof z->kept);
    /* the stream goes on where the next member starts */
    b->base = z->start[z->idx];
    b->pos = b->end = b->held = 0;
    b->eof = 0;
    memset(&b->fault, 0, sizeof b->fault);
    b->fault_from = b->fault_at = UINT64_MAX;
    return 0;
}
