/*
 * source_zip.c - zip archives through libzip: the members, in archive
 * (central directory) order, read as one stream.
 *
 * A zip archive needs random access, so this layer reopens the file the
 * layer below names (a zip archive on stdin is refused). Every member is
 * inflated and checked (size and CRC) by libzip; a member that yields fewer
 * or more bytes than the directory states is an error naming the member.
 * A file that starts like an archive but has no end of central directory
 * record (where libzip looks for the directory) is reported as truncated.
 * Decoders that care where members begin (drmemtrace chunks) ask
 * ct_zip_member() for the name and size of member i: members follow each
 * other in the stream with no gap.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zip.h>

#include "frontend.h"

typedef struct zip_src {
    zip_t *za;
    zip_file_t *cur;        /* open member, NULL between members */
    uint64_t n;             /* members */
    uint64_t idx;           /* member being read */
    uint64_t got;           /* bytes read from it */
    uint64_t want;          /* its uncompressed size */
    const char *path;
} zip_src;

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
        else
            ct_error_set(err, CT_E_FORMAT, "%s: not a readable zip archive: %s", inner->name,
                         zip_error_strerror(&ze));
        zip_error_fini(&ze);
        free(z);
        return err->code;
    }
    n = zip_get_num_entries(z->za, 0);
    z->n = n > 0 ? (uint64_t)n : 0;
    *st = z;
    return CT_OK;
}

/* Open member z->idx (the caller checked it exists). */
static int open_member(zip_src *z, ct_error *err)
{
    zip_stat_t sb;

    zip_stat_init(&sb);
    if (zip_stat_index(z->za, z->idx, 0, &sb) != 0 || !(sb.valid & ZIP_STAT_SIZE))
        return ct_error_set(err, CT_E_FORMAT, "%s: member %llu: unreadable directory entry: %s",
                            z->path, (unsigned long long)z->idx,
                            zip_error_strerror(zip_get_error(z->za)));
    z->want = sb.size;
    z->got = 0;
    z->cur = zip_fopen_index(z->za, z->idx, 0);
    if (!z->cur)
        return ct_error_set(err, CT_E_FORMAT, "%s:%s: cannot open member: %s", z->path,
                            sb.name ? sb.name : "?", zip_error_strerror(zip_get_error(z->za)));
    return CT_OK;
}

static const char *member_name(zip_src *z, uint64_t i)
{
    const char *name = zip_get_name(z->za, i, 0);
    return name ? name : "?";
}

static ssize_t zip_read(void *st, uint8_t *dst, size_t n, ct_error *err)
{
    zip_src *z = st;
    size_t done = 0;

    while (done < n) {
        zip_int64_t r;
        if (!z->cur) {
            if (z->idx >= z->n)
                break;
            if (open_member(z, err) != CT_OK)
                return err->code;
        }
        r = zip_fread(z->cur, dst + done, n - done);
        if (r < 0)
            return ct_error_set(err, CT_E_FORMAT,
                                "%s:%s: uncompressed byte %llu: corrupt member: %s", z->path,
                                member_name(z, z->idx), (unsigned long long)z->got,
                                zip_file_strerror(z->cur));
        if (r == 0) {
            if (z->got != z->want)
                return ct_error_set(err, CT_E_FORMAT,
                                    "%s:%s: member ends after %llu of %llu bytes", z->path,
                                    member_name(z, z->idx), (unsigned long long)z->got,
                                    (unsigned long long)z->want);
            zip_fclose(z->cur);
            z->cur = NULL;
            z->idx++;
            continue;
        }
        z->got += (uint64_t)r;
        done += (size_t)r;
        if (z->got > z->want)
            return ct_error_set(err, CT_E_FORMAT, "%s:%s: member longer than its %llu bytes",
                                z->path, member_name(z, z->idx), (unsigned long long)z->want);
    }
    return (ssize_t)done;
}

static void zip_close_src(void *st)
{
    zip_src *z = st;
    if (!z)
        return;
    if (z->cur)
        zip_fclose(z->cur);
    if (z->za)
        zip_discard(z->za);
    free(z);
}

const ct_source_ops ct_source_zip = {
    .name = "zip",
    .probe = zip_probe, .open = zip_open_src, .read = zip_read, .close = zip_close_src,
};

uint64_t ct_zip_members(const ct_bytes *b)
{
    return b && b->ops == &ct_source_zip ? ((const zip_src *)b->st)->n : 0;
}

int ct_zip_member(const ct_bytes *b, uint64_t i, const char **name, uint64_t *size)
{
    zip_src *z;
    zip_stat_t sb;

    if (!b || b->ops != &ct_source_zip)
        return -1;
    z = b->st;
    if (i >= z->n)
        return -1;
    zip_stat_init(&sb);
    if (zip_stat_index(z->za, i, 0, &sb) != 0 || !(sb.valid & ZIP_STAT_SIZE))
        return -1;
    if (name)
        *name = sb.name ? sb.name : "?";
    if (size)
        *size = sb.size;
    return 0;
}
