/*
 * frontend.h - byte sources and format decoders as plug-ins (internal).
 *
 * Two layers emit one record type (cachet/access.h):
 *
 *  1. Byte sources (ct_source_ops, files source_*.c, registry in
 *     source_registry.c). The first layer reads a file or stdin; every
 *     further layer is a decoder of compressed data chosen by the magic
 *     bytes at the head of the layer below (gzip, zstd, ...). Each layer
 *     owns one fixed buffer: memory does not grow with the input.
 *
 *  2. Formats (ct_format_ops, one file each, registry in
 *     format_registry.c). A format probes the first bytes of a stream (or a
 *     path, for directories and synthetic inputs), then fills caller-owned
 *     batches. Errors name the file, the position and the reason; in
 *     lenient mode a decoder reports a malformed record to
 *     ct_stream_malformed, which counts it by reason and lets the decoder
 *     skip it (or stops once max_errors is reached).
 */
#ifndef CT_FRONTEND_H
#define CT_FRONTEND_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cachet/access.h"
#include "cachet/error.h"
#include "cachet/trace.h"
#include "cachet/writer.h"

struct ct_config;

/* ---- byte sources -------------------------------------------------------- */

typedef struct ct_bytes ct_bytes;

typedef struct ct_source_ops {
    const char *name;
    /* Decompressors: 1 when the stream below starts with this format's
     * magic (n is at least 16 unless the stream is shorter). */
    int (*probe)(const uint8_t *head, size_t n);
    int (*open)(void **st, ct_bytes *inner, ct_error *err);
    /* Read up to n bytes into dst: bytes read, 0 at the end, or a negative
     * code with err naming the input and the reason. A fault found after
     * some bytes were produced returns those bytes first and the error on
     * the next call (ct_source_fail), so that the layer above knows where
     * in its data the fault lies (it holds those bytes back: a damaged
     * stream can give garbage before its damage shows); decoders then say
     * which record the fault cut. */
    ssize_t (*read)(void *st, uint8_t *dst, size_t n, ct_error *err);
    void (*close)(void *st);
    /* Optional: the fault a read kept back after returning the bytes
     * before it (ct_source_fail), or NULL. */
    const ct_error *(*fault)(void *st);
    /* Bytes of this layer's buffer (0: CT_BYTES_BUF). */
    size_t buf;
} ct_source_ops;

#define CT_BYTES_BUF (1u << 20)
#define CT_BYTES_PROBE (64u << 10)  /* the buffers of ct_bytes_open_probe */
#define CT_DECODE_SLICE (1u << 20)  /* input bytes a decoder's next() reads at most
                                       before it returns (see ct_format_ops.next) */

struct ct_bytes {
    const ct_source_ops *ops;
    void *st;
    ct_bytes *inner;          /* the layer below (owned), NULL for the file layer */
    uint8_t *buf;
    size_t cap, pos, end;     /* unread bytes are buf[pos..end) */
    size_t held;              /* buf[end..held): the bytes of the read that met a
                                 fault, held back (ct_bytes_head shows them) */
    uint64_t base;            /* stream offset of buf[0] */
    int eof;
    ct_error fault;           /* a read failed (code != 0): no read follows */
    uint64_t fault_from;      /* stream offset where the read that failed began:
                                 the bytes handed out end there */
    uint64_t fault_at;        /* stream offset of the fault (the bytes the source
                                 produced before it end there; those of the read
                                 that met it are dropped) */
    char name[PATH_MAX];      /* the input as the user named it */
    char chain[64];           /* layers, outermost first: "gzip+file" */
    uint64_t file_size;       /* file layer: the file's size (0: stdin, memory) */
    uint64_t zip_total;       /* zip layer: its members' total size (0: not known yet) */
};

/* For sources: a fault (code rc, described in err) found after `got` bytes
 * were produced by the current read. The fault is kept in *kept: every
 * later read gives it (ct_source_kept, called first). Returns the bytes
 * when got > 0 (err is cleared), else rc. */
ssize_t ct_source_fail(ct_error *kept, size_t got, int rc, ct_error *err);
ssize_t ct_source_kept(const ct_error *kept, ct_error *err);

/* Open a path ("-" for stdin) and, when containers is not 0, stack
 * decompressors found by magic bytes ([trace] containers). */
int ct_bytes_open(ct_bytes **out, const char *path, int containers, ct_error *err);

/* The same with buffers of CT_BYTES_PROBE bytes: to look at a file's first
 * bytes without decompressing (and touching) a megabyte per layer. */
int ct_bytes_open_probe(ct_bytes **out, const char *path, ct_error *err);

/* Open raw memory as a stream (tests; the memory must outlive the stream). */
int ct_bytes_open_mem(ct_bytes **out, const char *name, const void *data, size_t n,
                      int containers, ct_error *err);

/* Stack one decoder on top of inner (taking ownership of inner). */
int ct_bytes_push(ct_bytes **out, ct_bytes *inner, const ct_source_ops *ops, ct_error *err);

/* Make at least `want` unread bytes available (fewer only at the end of
 * the stream; want is capped at the buffer size). Returns the number of
 * unread bytes, or a negative code. After a fault no read is made: a
 * request the buffered bytes cannot meet gives the fault again. The bytes
 * of earlier reads stay buffered; those of the read that met the fault are
 * dropped, its position is kept (fault_at). */
ssize_t ct_bytes_fill(ct_bytes *b, size_t want, ct_error *err);

/* Copy up to n bytes out (reads through as needed); returns bytes copied
 * (< n only at the end) or a negative code. */
ssize_t ct_bytes_read(ct_bytes *b, void *dst, size_t n, ct_error *err);

static inline uint64_t ct_bytes_offset(const ct_bytes *b) { return b->base + b->pos; }
static inline size_t ct_bytes_avail(const ct_bytes *b) { return b->end - b->pos; }
static inline const uint8_t *ct_bytes_ptr(const ct_bytes *b) { return b->buf + b->pos; }
static inline void ct_bytes_skip(ct_bytes *b, size_t n) { b->pos += n; }

/* The bytes at hand for a look at a stream's head (format detection, a
 * decoder's header): the unread ones and those held back after a fault. */
static inline const uint8_t *ct_bytes_head(const ct_bytes *b, size_t *n)
{
    *n = (b->held > b->end ? b->held : b->end) - b->pos;
    return b->buf + b->pos;
}

/* The fault of the layer (NULL when none): its message names the input and
 * the position in the data the layer decodes. */
static inline const ct_error *ct_bytes_fault(const ct_bytes *b)
{
    return b->fault.code ? &b->fault : NULL;
}

void ct_bytes_close(ct_bytes *b);

/* How far through its file the stream b (any layer) is: *size is the
 * file's size on disk and *done the part of it consumed so far (for a zip
 * archive, the size scaled by the share of the members' bytes read), both
 * 0 when unknown (stdin, memory). */
void ct_bytes_progress(ct_bytes *b, uint64_t *done, uint64_t *size);

/* A layer that is read no more (a zip archive reopens its file): its buffer
 * is freed, and reading it gives the end of the stream. */
void ct_bytes_release(ct_bytes *b);

extern const ct_source_ops ct_source_file, ct_source_mem, ct_source_gzip, ct_source_zstd,
    ct_source_compress, ct_source_zip, ct_source_snappy, ct_source_lz4;

/* Zip layers (source_zip.c): the number of members of the archive b reads
 * (0 when b is not a zip layer), and the name and uncompressed size of
 * member i (0, or -1 when there is no such member). Members follow each
 * other in b's stream, in this order, with no gap. */
uint64_t ct_zip_members(const ct_bytes *b);
int ct_zip_member(const ct_bytes *b, uint64_t i, const char **name, uint64_t *size);

/* After a read of zip layer b failed: the kind of fault of the member it
 * was reading ("zip member does not inflate", "zip member of the wrong
 * length", "zip member CRC mismatch"; a fixed text for counting) and that
 * member's number in *member; NULL when the layer has no fault. */
const char *ct_zip_fault(const ct_bytes *b, uint64_t *member);

/* After a fault: drop what is left of the faulty member (buffered bytes
 * included) and go on with the next one, at the stream offset where it
 * starts. 0, or -1 when b is not a zip layer with a fault. */
int ct_zip_skip_member(ct_bytes *b);

/* CRC-32 (zip, gzip) of n bytes, continuing from crc (0 to start): the
 * value zlib's crc32() gives, computed with carry-less multiplication
 * where the CPU has it (crc32.c). */
uint32_t ct_crc32(uint32_t crc, const void *data, size_t n);

/* How ct_crc32 computes on this CPU: 2 with 512-bit carry-less
 * multiplication (AVX-512 VPCLMULQDQ), 1 with 128-bit (PCLMULQDQ), 0 with
 * zlib's tables. */
int ct_crc32_accelerated(void);

/* ct_crc32 by a given way (tests): how as above, falling back to a lesser
 * way the CPU or the length does not allow. */
uint32_t ct_crc32_path(int how, uint32_t crc, const void *data, size_t n);

/* State for ct_source_mem reading n bytes at data (NULL: no memory). */
void *ct_source_mem_state(const void *data, size_t n);

/* Decompressor i (NULL past the end), tried in order on every new layer. */
const ct_source_ops *ct_source_decoder_at(size_t i);

/* ---- streams and formats --------------------------------------------------- */

typedef struct ct_stream ct_stream;

typedef struct ct_format_ops {
    const char *name;
    const char *desc;
    /* Most batch slots (of each kind) one input record can use. */
    uint32_t max_per_record;
    /* enum ct_schedule to use when [trace] schedule = auto. */
    int default_schedule;
    /* Confidence 0..100 that a stream starting with head is this format. */
    int (*probe)(const uint8_t *head, size_t n);
    /* Optional: confidence 0..100 for a path that is not a plain byte stream
     * (a directory, or a synthetic "gen:" input). */
    int (*probe_path)(const char *path);
    /* Optional: the per-stream files of a directory, in stream order. fn is
     * called once per file with trace = 1; a non-zero return stops. Files
     * that hold no trace (by content) and that the format does not know as
     * side files are passed with trace = 0: counted, not read. */
    int (*list_dir)(const char *dir, int (*fn)(void *ctx, const char *path, int trace),
                    void *ctx, ct_error *err);
    /* 1 when the format reads no bytes (s->in is NULL). */
    int no_bytes;
    /* 1 when the format has no magic number of its own, so that its first
     * bytes can happen to look like a compressed container's: an error on
     * such an input then says how to read it as it is. */
    int no_magic;
    /* 1 when the decoder itself gives every access of stream i thread i + 1,
     * cpu 0 and core 0 (a stream is one thread and carries no ids): a trace
     * of one such stream then needs no pass to assign cores. */
    int one_thread;
    /* 1 when every access the decoder gives has a thread id (the stream
     * number + 1 when the trace names none) and none exceeds 1 MiB but a
     * cache operation that cleans or invalidates: the reader then does not
     * look at each access again (see check_sizes() in trace.c). */
    int checked;
    /* 1 when the decoder honours ct_stream.yield_at_timestamp. */
    int yields;
    int (*open)(void **st, ct_stream *s, ct_error *err);
    /* Add records to b (without clearing it) until b has fewer than
     * max_per_record free slots or the input ends, or after reading
     * CT_DECODE_SLICE bytes of input in this call (so that input whose
     * records hold no access still comes back to the caller, which polls
     * its stop request between calls). Returns 1 when more may follow, 0 at
     * the end, or a negative code; 2 when it stopped right after adding a
     * TIMESTAMP marker because the stream asked for it (yield_at_timestamp). */
    int (*next)(void *st, ct_batch *b, ct_error *err);
    void (*close)(void *st);
} ct_format_ops;

const ct_format_ops *ct_format_at(size_t i);
const ct_format_ops *ct_format_find(const char *name);

extern const ct_format_ops ct_format_din, ct_format_gen, ct_format_tarmac,
    ct_format_tracematcher, ct_format_drmemtrace, ct_format_tt6, ct_format_tt6e;

extern const ct_format_ops ct_format_vixl, ct_format_ctr;

/* What a decoder sees of its stream. */
struct ct_stream {
    const char *path;              /* the input as named by the user */
    ct_bytes *in;                  /* NULL for no_bytes formats */
    const struct ct_config *cfg;   /* never NULL */
    int lenient;
    uint64_t max_errors;
    uint32_t index;                /* stream number, 0-based */
    ct_trace_info *info;           /* shared counters: decoders add to records */
    int yield_at_timestamp;        /* stop after each TIMESTAMP marker (format.yields) */
    struct ct_trace *trace;        /* private to trace.c */
    int sizes_bounded;             /* set by a decoder while it vouches that none of
                                      its accesses (cache operations included)
                                      covers more than CT_MAX_ACCESS_BYTES: the trace
                                      layer then skips its check (0 at open:
                                      checked) */
};

/* An access larger than this is not a real access but a damaged record
 * (the model would split it into one piece per line): the trace layer
 * stops a strict read there and drops it in lenient mode. Cache operations
 * that clean or invalidate cover ranges and are not bounded (trace.c). */
#define CT_MAX_ACCESS_BYTES (1u << 20)

/* A decoder found a malformed record and filled err. Strict mode: returns
 * err->code (the decoder returns it). Lenient mode: counts it under
 * `reason` (a short fixed text) with err's message as the first position,
 * and returns CT_OK so that the decoder skips the record, unless max_errors
 * is reached (then CT_E_LIMIT with a summary in err). */
int ct_stream_malformed(ct_stream *s, ct_error *err, const char *reason);

/* A well-formed record of a kind cachet ignores: counted per `what`, with
 * `where` remembered the first time. */
void ct_stream_warn(ct_stream *s, const char *what, const char *where);

/* The number of a structure name (Tarmac CACHE/TLB ids) for ct_event;
 * names are interned per trace. Returns UINT16_MAX when out of room. */
uint16_t ct_stream_structure(ct_stream *s, const char *name, size_t len);

/* ---- trace writers ---------------------------------------------------------------- */

typedef struct ct_writer_ops {
    const char *name;
    const char *desc;
    int (*open)(void **st, ct_writer *w, ct_error *err);
    /* Write a batch; add accesses the format cannot express to *dropped. */
    int (*put)(void *st, const ct_batch *b, uint64_t *dropped, ct_error *err);
    int (*finish)(void *st, ct_error *err);   /* trailer; also frees st */
    /* Optional: the structure names events refer to (the table only grows;
     * entries past those already seen are new). */
    int (*names)(void *st, const char *const *names, uint32_t n, ct_error *err);
} ct_writer_ops;

extern const ct_writer_ops ct_writer_din, ct_writer_tt6, ct_writer_tt6e;
extern const ct_writer_ops ct_writer_ctr, ct_writer_ctr_raw, ct_writer_tarmac;

/* ---- text helpers ------------------------------------------------------------ */

/* Line reader over a byte stream: lines without their "\n" (and "\r"). */
typedef struct ct_lines {
    ct_bytes *in;
    uint64_t lineno;       /* number of the line last returned, 1-based */
    ct_stream *s;          /* a line longer than the buffer is reported to it
                              (skipped in lenient mode); NULL: always an error */
} ct_lines;

/* Next line into *line and *len (valid until the next call), following the
 * text-line rules of bytes.c. Returns 1, 0 at the end, or a negative code. */
int ct_lines_next(ct_lines *l, const char **line, size_t *len, ct_error *err);

/* Text-line rules (bytes.c). ct_text_bom: at offset 0, an error when b starts
 * with a UTF-8 byte-order mark, else CT_OK. ct_text_no_lf: b's buffered bytes
 * hold no LF; an error when they hold a CR before their last byte (CR-only
 * line endings), else CT_OK. ct_text_skip_long: b's buffer is full without an
 * LF at line `lineno`: an error in strict mode (or when s is NULL), else
 * counted on s and the line skipped through its LF; CT_OK or a code. */
int ct_text_bom(ct_bytes *b, ct_error *err);
int ct_text_no_lf(const ct_bytes *b, ct_error *err);
int ct_text_skip_long(ct_bytes *b, ct_stream *s, uint64_t lineno, ct_error *err);

/* Hex digit value + 1 for every byte ('0' -> 1, 'f' -> 16), 0 for non-hex. */
extern const unsigned char ct_hex1[256];


static inline int ct_hexval(unsigned char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    ch |= 0x20;
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    return -1;
}

#endif
