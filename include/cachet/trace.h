/*
 * cachet/trace.h - opening traces and reading the unified access stream.
 *
 * A trace is one or more inputs (files, directories, "-" for stdin, or a
 * synthetic "gen:" workload). Each input is read through a chain of byte
 * sources chosen by magic bytes, never by file name (plain file or stdin,
 * then gzip, zstd, ... as detected), and decoded by a format chosen by
 * content (or forced with ct_trace_opts.format). Several inputs, or a
 * directory of per-thread files, become several streams that a scheduler
 * interleaves onto the configured cores.
 *
 * Memory is bounded: sources use fixed buffers, decoders keep per-stream
 * state only, and the caller owns the batch that receives the records.
 */
#ifndef CACHET_TRACE_H
#define CACHET_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "cachet/access.h"
#include "cachet/config.h"
#include "cachet/error.h"
#include "cachet/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ct_trace ct_trace;

/* How malformed records are handled. */
enum ct_strictness {
    CT_STRICT = 0,   /* the first malformed record fails ct_trace_next */
    CT_LENIENT = 1   /* malformed records are skipped and counted by reason */
};

/* How the streams of a trace are placed on the simulated cores ([trace]
 * schedule): decided per format (AUTO), by thread, by the traced cpu, or all
 * on core 0. A trace format names the one it reads best by default. */
enum ct_schedule { CT_SCHED_AUTO, CT_SCHED_THREADS, CT_SCHED_CPUS, CT_SCHED_SINGLE };

/* Options for ct_trace_open. Zero-initialise, then set what you need. */
typedef struct ct_trace_opts {
    const char *format;     /* force a format by name; NULL: detect by content */
    int strictness;         /* enum ct_strictness; default CT_STRICT */
    uint64_t max_errors;    /* lenient mode gives up after this many malformed
                               records (0: 100) */
    const ct_config *cfg;   /* format and scheduling options ([trace] section,
                               cores); NULL: defaults */
    uint64_t skip_refs;     /* drop the first references (accesses and thread
                               exits, with every side record among them) before
                               they are scheduled, as drcachesim -skip_refs:
                               a thread or cpu seen only there takes no core */
    /* Polled once per batch of records read (a batch, or 1 MiB of input,
     * whether or not its records hold an access); when it returns non-zero
     * ct_trace_next returns CT_E_INTERRUPTED ("interrupted"). It may be
     * called from the read-ahead thread. NULL: never stops. */
    int (*stop)(void *ctx);
    void *stop_ctx;
} ct_trace_opts;

/* Open the inputs. Returns CT_OK and *out, or a negative code with err filled
 * ("FILE: reason"). The paths array is copied. */
int ct_trace_open(ct_trace **out, const char *const *paths, size_t npaths,
                  const ct_trace_opts *opts, ct_error *err);

/* Open one stream from memory (decompressors are still detected by their
 * magic). `name` is used in messages; data must outlive the trace. */
int ct_trace_open_mem(ct_trace **out, const char *name, const void *data, size_t n,
                      const ct_trace_opts *opts, ct_error *err);

/* Append records to b until it is full or the input ends. Returns 1 when
 * records were added (b->n or side records > 0), 0 at the end of every
 * stream, or a negative code (err names file, position and reason). The
 * batch is cleared first. */
int ct_trace_next(ct_trace *t, ct_batch *b, ct_error *err);

/* Close the trace and free everything (t may be NULL). */
void ct_trace_close(ct_trace *t);

/* One counted reason (malformed records or unknown-but-well-formed kinds). */
typedef struct ct_reason {
    char what[96];        /* the reason or the kind ("unknown line kind 'FOO'") */
    char first[192];      /* where it was first seen ("file:12:1") */
    uint64_t count;
} ct_reason;

#define CT_MAX_REASONS 24

/* What the decoders saw so far (valid until ct_trace_close). */
typedef struct ct_trace_info {
    const char *format;        /* detected or forced format name */
    uint32_t streams;          /* number of decoded streams (per-thread files) */
    uint64_t records;          /* native records read (lines, entries, words) */
    uint64_t bytes;            /* decoded input bytes consumed */
    uint64_t input_done;       /* bytes of the input files consumed so far (compressed
                                  bytes for a compressed file; for a zip archive, its
                                  size scaled by the share of its members read) */
    uint64_t input_size;       /* the input files' size on disk (0: unknown: stdin,
                                  gen:) */
    uint64_t malformed;        /* records skipped in lenient mode */
    uint64_t threads;          /* distinct threads seen */
    uint32_t nreasons;         /* malformed records by reason */
    ct_reason reasons[CT_MAX_REASONS];
    uint32_t nwarnings;        /* well-formed records of kinds cachet ignores */
    ct_reason warnings[CT_MAX_REASONS];
    uint32_t nstructures;      /* names of structures referred to by events */
    const char *const *structures;
    int masked_addresses;      /* the trace hides its addresses (CT_F_NOADDR) */
    uint64_t ignored_files;    /* files of trace directories that hold no trace
                                  (by content) and are not known side files:
                                  skipped */
    char ignored_first[256];   /* the first of them */
} ct_trace_info;

const ct_trace_info *ct_trace_get_info(const ct_trace *t);

/* The input files' bytes consumed so far and their size (input_done and
 * input_size above), read safely while a read-ahead thread is decoding
 * (for progress reports from another thread's point of view). */
void ct_trace_get_progress(const ct_trace *t, uint64_t *done, uint64_t *size);

/* The registered formats, for help texts: returns the name of format i, or
 * NULL past the end; *desc receives a one-line description. */
const char *ct_format_name(size_t i, const char **desc);

/* Lines first..last (1-based) of a text trace file, read through its
 * compressed containers by the text-line rules of the text formats: fn is
 * called with each line (without its line end; valid during the call) and
 * its number, until the last, the end of the file, or a non-zero return.
 * Returns CT_OK (also when fn stopped it), or a negative code with err set
 * when the file cannot be read. */
int ct_trace_lines(const char *path, uint64_t first, uint64_t last,
                   int (*fn)(void *ctx, uint64_t lineno, const char *line, size_t len),
                   void *ctx, ct_error *err);

/*
 * Trace writers (cachet convert): the access stream written back out in a
 * format others read. Writers are plug-ins like readers.
 */
typedef struct ct_trace_writer ct_trace_writer;

/* Start a trace in `format` whose bytes go to w (which must outlive it). */
int ct_trace_writer_open(ct_trace_writer **out, const char *format, ct_writer *w,
                         ct_error *err);

/* Append every record of a batch. */
int ct_trace_writer_put(ct_trace_writer *tw, const ct_batch *b, ct_error *err);

/* Tell the writer the structure names events refer to (ct_trace_info's
 * structures and nstructures); call it before each ct_trace_writer_put. Formats
 * that cannot name structures ignore it. */
int ct_trace_writer_set_names(ct_trace_writer *tw, const char *const *names, uint32_t n,
                              ct_error *err);

/* Write any trailer and free the writer (tw may be NULL). Returns CT_OK or
 * the first write error. */
int ct_trace_writer_finish(ct_trace_writer *tw, ct_error *err);

/* Accesses the format could not express (skipped), so far. */
uint64_t ct_trace_writer_dropped(const ct_trace_writer *tw);

/* Writer i's name (NULL past the end) and one-line description. */
const char *ct_trace_writer_name(size_t i, const char **desc);

#ifdef __cplusplus
}
#endif
#endif
