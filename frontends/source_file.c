/*
 * source_file.c - the first layer: a file, or stdin for "-"; and raw memory
 * (for tests).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend.h"

typedef struct file_src {
    int fd;
    int owned;
    const char *name;
} file_src;

static int file_open(void **st, ct_bytes *self, ct_error *err)
{
    file_src *f = calloc(1, sizeof *f);
    struct stat sb;

    if (!f)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", self->name);
    f->name = self->name;
    if (strcmp(self->name, "-") == 0) {
        f->fd = 0;
    } else {
        f->fd = open(self->name, O_RDONLY | O_CLOEXEC);
        if (f->fd < 0) {
            int e = errno;
            free(f);
            return ct_error_set(err, CT_E_IO, "%s: cannot open: %s", self->name, strerror(e));
        }
        f->owned = 1;
        if (fstat(f->fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            close(f->fd);
            free(f);
            return ct_error_set(err, CT_E_IO, "%s: is a directory, not a trace file",
                                self->name);
        }
#ifdef POSIX_FADV_SEQUENTIAL
        posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
    *st = f;
    return CT_OK;
}

static ssize_t file_read(void *st, uint8_t *dst, size_t n, ct_error *err)
{
    file_src *f = st;
    for (;;) {
        ssize_t r = read(f->fd, dst, n);
        if (r >= 0)
            return r;
        if (errno == EINTR)
            continue;
        return ct_error_set(err, CT_E_IO, "%s: read error: %s", f->name, strerror(errno));
    }
}

static void file_close(void *st)
{
    file_src *f = st;
    if (!f)
        return;
    if (f->owned)
        close(f->fd);
    free(f);
}

const ct_source_ops ct_source_file = {
    .name = "file",
    .open = file_open, .read = file_read, .close = file_close,
};

typedef struct mem_src {
    const uint8_t *p;
    size_t n;
} mem_src;

void *ct_source_mem_state(const void *data, size_t n)
{
    mem_src *m = malloc(sizeof *m);
    if (m) {
        m->p = data;
        m->n = n;
    }
    return m;
}

static ssize_t mem_read(void *st, uint8_t *dst, size_t n, ct_error *err)
{
    mem_src *m = st;
    (void)err;
    if (n > m->n)
        n = m->n;
    memcpy(dst, m->p, n);
    m->p += n;
    m->n -= n;
    return (ssize_t)n;
}

const ct_source_ops ct_source_mem = {
    .name = "memory",
    .read = mem_read, .close = free,
};
