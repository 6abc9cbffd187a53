/*
 * cachet/writer.h - the byte sink every output of the library goes through.
 *
 * The library formats results and traces but never opens files or prints:
 * the caller supplies where the bytes go.
 */
#ifndef CACHET_WRITER_H
#define CACHET_WRITER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A byte sink: write returns 0 on success, non-zero on failure (the first
 * failure is remembered in `failed` and later writes are skipped). */
typedef struct ct_writer {
    int (*write)(void *ctx, const char *data, size_t len);
    void *ctx;
    int failed;
} ct_writer;

/* printf into a writer (lines longer than 4 KiB are truncated). */
int ct_writef(ct_writer *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Write a JSON string literal (with quotes and escapes). */
void ct_write_json_string(ct_writer *w, const char *s);

#ifdef __cplusplus
}
#endif
#endif
