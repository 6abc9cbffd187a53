/*
 * trace.c - opening inputs, choosing formats, and scheduling streams onto
 * cores.
 *
 * Inputs and streams
 *   Every input path becomes one or more streams: a file or "-" is one
 *   stream; a directory is listed by the format that claims it (drmemtrace
 *   per-thread files); "gen:..." inputs are synthetic. All streams of one
 *   trace must have the same format. An input that holds no byte (after
 *   decompression) is an error in every format: "empty file".
 *
 * Format detection
 *   Forced by name ([trace] format or -f), else every format probes the
 *   first 4 KiB of the (decompressed) stream and the most confident wins;
 *   ties go to the format registered first. Nobody above 0 is an error.
 *
 * Compressed containers
 *   Every input is first read through the decompressors its magic bytes
 *   call for (bytes.c), unless [trace] containers = no. A format with no
 *   magic of its own (no_magic: TT6, whose first word is an address) can
 *   start with bytes that are a container's magic by chance; the bytes
 *   cannot tell, so nothing falls back silently (a damaged compressed
 *   trace would be decoded as garbage). Instead, an error on an input of
 *   such a format whose raw bytes start with a container's magic adds how
 *   to read it as it is (-s trace.containers=no).
 *
 * Access sizes
 *   An access of more than 1 MiB (CT_MAX_ACCESS_BYTES) is a damaged record:
 *   a strict read stops there, a lenient one drops and counts it ("access
 *   larger than 1 MiB"). Cache operations that clean or invalidate a range
 *   may be of any size (they cost at most the lines a level holds); those
 *   that zero or allocate lines are bounded like accesses.
 *
 * Interleaving (which stream runs next, when there are several)
 *   timestamp: DynamoRIO's serial order (its scheduler with timestamp
 *     dependencies, as drcachesim -no_core_sharded and -cpu_scheduling
 *     replay an offline trace). Each stream's pending timestamp is its
 *     first TIMESTAMP marker (looked for in its first batch; none counts
 *     as 0). The stream with the smallest one runs first. Whenever the
 *     running stream reaches a TIMESTAMP marker, that value becomes its
 *     pending timestamp and the live stream with the smallest pending
 *     timestamp runs on from its own pending marker (the lowest stream
 *     number wins a tie, so the running stream keeps running while it is
 *     the oldest). When a stream ends, the same choice is made; streams
 *     that never showed a timestamp run last, in order.
 *   quantum: streams take turns in input order, `quantum` accesses each.
 *   auto: timestamp when the first stream has a timestamp marker in its
 *     first batch, else quantum.
 *   Streams are decoded into their own buffers and copied out in this
 *   order, except under timestamp interleaving with a decoder that stops
 *   after each timestamp (drmemtrace): the running stream then decodes
 *   straight into the output batch, and only a timestamp that hands the
 *   turn to another stream is taken back into its buffer. Same order,
 *   no copy.
 *
 * Scheduling (which simulated core runs each access), as drcachesim's
 * simulator assigns cores
 *   threads (default of drmemtrace and din): a thread gets a core when its
 *     first record is scheduled, an access or a side record of the thread
 *     (not an idle marker), once the stream has had an access or a thread
 *     exit (side records before that claim nothing): the core with the
 *     fewest live threads (the lowest-numbered on a tie), so threads go
 *     round-robin in order of first appearance until threads exit; a
 *     THREAD_EXIT marker frees the thread's place on its core. This is
 *     drcachesim -no_core_sharded, whose simulator places a thread at its
 *     first record of any kind once it has seen one that is not a marker.
 *   cpus: a CPU marker (a thread was seen running on traced cpu c) maps c to
 *     a core the first time c appears (the core with the fewest traced cpus,
 *     so cpus go round-robin in order of first appearance) and moves the
 *     thread to that core; accesses run on their thread's core. A thread
 *     with no CPU marker yet (or only unknown cpus, 0xffff) is placed as in
 *     the threads schedule. This is drcachesim -cpu_scheduling.
 *   single: every access runs on core 0.
 *   auto: the format's choice.
 *   A stream's thread id, when its records carry none, is its stream
 *   number + 1. A trace of one stream in a one_thread format is thread 1
 *   on core 0 throughout (the decoder fills both in).
 *
 * Skipping (ct_trace_opts.skip_refs, cachet run --skip: drcachesim
 * -skip_refs)
 *   The first skip_refs references of the interleaved stream (a reference
 *   is an access or a THREAD_EXIT marker, as in sim/window.c), and every
 *   side record before the last of them, are dropped before scheduling:
 *   the scheduler never sees them, as drcachesim's simulator never sees
 *   the records it skips (a thread or a cpu seen only there takes no core,
 *   a thread exit there frees nothing). Side records after the last one
 *   stay.
 *
 * Read-ahead
 *   With [trace] readahead = yes (the default) one thread decodes (and
 *   inflates, and checks) and schedules the next batches while the caller
 *   simulates the current one, so that on two cores the two halves of the
 *   work overlap. Batches are handed over by exchanging array pointers,
 *   never copied; at most RA_SLOTS batches are decoded ahead. The records
 *   and their order are exactly those of reading without the thread.
 *   The thread pays only when the caller has work of its own to overlap
 *   with decoding. After the first RA_PROBE batches the two times are
 *   compared: when the caller spent at least RA_IDLE_PCT % of the thread's
 *   decoding time waiting for batches (it does next to nothing with them:
 *   cachet info, bench --decode, a conversion to a fast format), the
 *   thread is stopped, the batches it had decoded are handed out, and the
 *   caller decodes directly from then on: each hand-over costs a wake-up
 *   of each thread, which is all the thread added.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../sim/compiler.h"
#include "../sim/map.h"
#include "../sim/ring.h"
#include "../sim/schema.h"
#include "frontend.h"

#define PROBE_BYTES 4096
#define STREAM_BATCH 8192
#define RA_SLOTS 3
#define RA_PROBE 32
#define RA_IDLE_PCT 90

/* One input stream. Allocated one by one: decoders keep a pointer to s. */
typedef struct stream_rt {
    ct_stream s;
    void *st;              /* decoder state */
    ct_batch b;            /* decoded, not yet scheduled (multi-stream only) */
    uint32_t ai, mi, ei;   /* read cursors into b */
    int done;              /* the decoder has nothing more */
    int finished;          /* ... and every buffered record was scheduled */
    uint64_t next_ts;      /* its pending timestamp, 0 before the first one */
    int ts_taken;          /* the next timestamp marker was already weighed */
    uint64_t counted;      /* input bytes already added to info.bytes */
    uint64_t input_counted;/* file bytes already added to info.input_done */
} stream_rt;

#define NO_CORE UINT32_MAX

/* ---- the [trace] keys ----------------------------------------------------- */

enum interleave { IL_AUTO, IL_TIMESTAMP, IL_QUANTUM };

/* What the [trace] keys set (the schema rows below fill it). */
typedef struct trace_options {
    char format[32];          /* "" = detect */
    int lenient;
    uint64_t max_errors;
    int schedule;             /* enum ct_schedule */
    int interleave;           /* enum interleave */
    uint64_t quantum;         /* accesses per turn in quantum interleaving */
    int readahead;            /* decode the next batches in a second thread */
    int containers;           /* stack decompressors found by their magic bytes */
} trace_options;

static const char *const schedule_names[] = {"auto", "threads", "cpus", "single", NULL};
static const char *const interleave_names[] = {"auto", "timestamp", "quantum", NULL};

static const ct_schema_section trace_sections[] = {
    {"trace", 0, "how traces are read and scheduled onto cores"},
};

#define F(field) offsetof(trace_options, field), sizeof(((trace_options *)0)->field)

static const ct_schema_row trace_rows[] = {
    {0, "format", CT_VT_STRING, F(format), 0, 0, "", NULL, NULL,
     "force a trace format by name (empty: detect by content)", NULL},
    {0, "lenient", CT_VT_BOOL, F(lenient), 0, 1, "no", NULL, NULL,
     "skip and count malformed records instead of stopping", NULL},
    {0, "max_errors", CT_VT_UINT, F(max_errors), 1, UINT64_MAX, "100", NULL, NULL,
     "lenient mode gives up after this many malformed records", NULL},
    {0, "schedule", CT_VT_ENUM, F(schedule), 0, 0, "auto", schedule_names, NULL,
     "which simulated core runs each access. threads: a thread takes the core with the "
     "fewest live threads when it first appears (round-robin in order of appearance; a "
     "thread exit frees its place), as drcachesim -no_core_sharded; cpus: each traced cpu "
     "takes a core in order of first appearance and a thread runs on the core of the cpu "
     "it was last seen on (threads without a cpu as in threads), as drcachesim "
     "-cpu_scheduling; single: everything on core 0; auto: the format's choice (threads "
     "for drmemtrace, din, ctr, vixl and TT6; cpus for Tarmac and Trace Matcher)", NULL},
    {0, "interleave", CT_VT_ENUM, F(interleave), 0, 0, "auto", interleave_names, NULL,
     "the order in which several streams (per-thread files, several traces) take turns. "
     "timestamp: the stream with the oldest pending timestamp runs until its next "
     "timestamp marker, as drcachesim replays an offline trace in its serial order; "
     "quantum: streams take turns in input order, quantum accesses each; auto: timestamp "
     "when the first stream has a timestamp marker (drmemtrace traces do), else quantum",
     NULL},
    {0, "quantum", CT_VT_UINT, F(quantum), 1, UINT64_MAX, "1000", NULL, NULL,
     "accesses per turn when streams are interleaved by quantum", NULL},
    {0, "readahead", CT_VT_BOOL, F(readahead), 0, 1, "yes", NULL, NULL,
     "decode the next batches in a second thread while the current one is simulated "
     "(stopped after 32 batches when the caller spent that time waiting for it)", NULL},
    {0, "containers", CT_VT_BOOL, F(containers), 0, 1, "yes", NULL, NULL,
     "read compressed inputs (gzip, zstd, unix compress, zip, snappy, lz4), found by their "
     "magic bytes; no: read every input as it is (an uncompressed tt6 trace whose first "
     "word happens to look like a compressed header)", NULL},
};

#undef F

const ct_schema_block ct_trace_schema =
    CT_SCHEMA_BLOCK(trace_sections, trace_rows, sizeof(trace_options));

struct ct_trace {
    const ct_format_ops *fmt;
    stream_rt **sv;
    uint32_t nstreams, cap;
    uint32_t cur;          /* stream running now (multi-stream) */
    uint64_t left;         /* accesses left in its quantum */
    int interleave;        /* enum interleave, resolved */
    int schedule;          /* enum ct_schedule, resolved */
    uint32_t cores;
    uint64_t skip_left;    /* references still to drop before scheduling */
    uint64_t quantum;
    int from_memory;       /* ct_trace_open_mem: the input is no file */
    struct ct_config *own_cfg;
    const struct ct_config *cfg;
    const trace_options *o;   /* cfg's [trace] keys */
    ct_trace_info info;
    int lenient;
    uint64_t max_errors;
    int (*stop)(void *ctx); /* ct_trace_opts.stop, polled before each decoder call */
    void *stop_ctx;
    int started;           /* streams were started (multi-stream) */
    ct_map thread_core;    /* thread -> core (threads and cpus schedules); an exited
                              thread keeps its key with the value NO_CORE */
    ct_map cpu_core;       /* traced cpu -> core (cpus schedule) */
    uint32_t *thread_count;/* per core: threads mapped there and not exited */
    int placing;           /* side records place their thread (an access or a
                              thread exit was scheduled: rule "Scheduling") */
    uint32_t *cpu_count;   /* per core: traced cpus mapped there */
    ct_map threads;        /* distinct threads seen (for info.threads) */
    char **structures;     /* shared by all streams */
    uint32_t nstructures, capstructures;
    /* read-ahead */
    int ra_on;             /* configured */
    int ra_running;        /* the thread exists */
    pthread_t ra_thread;
    ct_ring *ra_ring;      /* the thread produces, the caller consumes (ring.h);
                              made with info_mu when the thread starts */
    pthread_mutex_t info_mu; /* guards info_pub */
    struct ra_slot {
        ct_batch b;
        int rc;            /* what ct_trace_next would have returned */
        ct_error err;
        uint64_t decode_ns; /* the thread's time decoding it */
    } ra[RA_SLOTS];
    int ra_drain;          /* the thread was stopped: hand out what it decoded,
                              then read directly */
    uint32_t ra_taken;     /* batches handed out by the thread so far */
    uint64_t ra_wait_ns, ra_decode_ns; /* over the first RA_PROBE batches */
    ct_trace_info info_pub; /* snapshot the thread publishes (under info_mu) */
    ct_trace_info info_user; /* the caller's copy of it: the thread may publish
                                again while the caller reads */
};

static int next_direct(ct_trace *t, ct_batch *b, ct_error *err);

/* ---- diagnostics ---------------------------------------------------------- */

static ct_reason *reason_slot(ct_reason *v, uint32_t *n, const char *what)
{
    for (uint32_t i = 0; i < *n; i++)
        if (strcmp(v[i].what, what) == 0)
            return &v[i];
    if (*n >= CT_MAX_REASONS)
        return &v[CT_MAX_REASONS - 1]; /* the last slot collects the rest */
    snprintf(v[*n].what, sizeof v[*n].what, "%s", what);
    v[*n].first[0] = '\0';
    v[*n].count = 0;
    return &v[(*n)++];
}

int ct_stream_malformed(ct_stream *s, ct_error *err, const char *reason)
{
    ct_reason *r;

    if (!s->lenient)
        return err->code ? err->code : CT_E_FORMAT;
    s->info->malformed++;
    r = reason_slot(s->info->reasons, &s->info->nreasons, reason);
    if (r->count++ == 0)
        snprintf(r->first, sizeof r->first, "%.*s", (int)sizeof r->first - 1, err->msg);
    if (s->info->malformed >= s->max_errors) {
        char last[sizeof err->msg];
        memcpy(last, err->msg, sizeof last); /* err->msg is rewritten below */
        return ct_error_set(err, CT_E_LIMIT,
                            "%s: %llu malformed records, giving up (the limit is [trace] "
                            "max_errors); the last: %s", s->path,
                            (unsigned long long)s->info->malformed, last);
    }
    err->code = CT_OK;
    err->msg[0] = '\0';
    return CT_OK;
}

void ct_stream_warn(ct_stream *s, const char *what, const char *where)
{
    ct_reason *r = reason_slot(s->info->warnings, &s->info->nwarnings, what);
    if (r->count++ == 0)
        snprintf(r->first, sizeof r->first, "%s", where);
}

uint16_t ct_stream_structure(ct_stream *s, const char *name, size_t len)
{
    ct_trace *t = s->trace;  /* the trace keeps one table for all streams */
    char **v;

    for (uint32_t i = 0; i < t->nstructures; i++)
        if (strlen(t->structures[i]) == len && memcmp(t->structures[i], name, len) == 0)
            return (uint16_t)i;
    if (t->nstructures >= UINT16_MAX - 1)
        return UINT16_MAX;
    if (t->nstructures == t->capstructures) {
        uint32_t cap = t->capstructures ? t->capstructures * 2 : 16;
        v = realloc(t->structures, cap * sizeof *v);
        if (!v)
            return UINT16_MAX;
        t->structures = v;
        t->capstructures = cap;
    }
    t->structures[t->nstructures] = malloc(len + 1);
    if (!t->structures[t->nstructures])
        return UINT16_MAX;
    memcpy(t->structures[t->nstructures], name, len);
    t->structures[t->nstructures][len] = '\0';
    t->info.structures = (const char *const *)t->structures;
    t->info.nstructures = t->nstructures + 1;
    return (uint16_t)t->nstructures++;
}

/* ---- formats ----------------------------------------------------------------- */

const char *ct_format_name(size_t i, const char **desc)
{
    const ct_format_ops *f = ct_format_at(i);
    if (!f)
        return NULL;
    if (desc)
        *desc = f->desc;
    return f->name;
}

static int is_dir(const char *path)
{
    struct stat sb;
    return strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Pick the format of one input (path and, for byte inputs, its head). */
static const ct_format_ops *detect(const char *path, ct_bytes *in, int *best_score)
{
    const ct_format_ops *best = NULL;
    /* the first PROBE_BYTES only: the buffer may hold a megabyte by now */
    const size_t head = PROBE_BYTES;
    *best_score = 0;
    for (size_t i = 0; ct_format_at(i); i++) {
        const ct_format_ops *f = ct_format_at(i);
        int sc = 0;
        if (in && f->probe) {
            size_t n;
            const uint8_t *h = ct_bytes_head(in, &n);
            sc = f->probe(h, n < head ? n : head);
        } else if (!in && f->probe_path) {
            sc = f->probe_path(path);
        }
        if (sc > *best_score) {
            *best_score = sc;
            best = f;
        }
    }
    return best;
}

static int add_stream_from(ct_trace *t, const char *path, ct_bytes *given, ct_error *err);

/*
 * An error rc (with err) on input `path` of format f: when f has no magic
 * of its own, containers are on and the file's raw bytes start with a
 * container's magic, add to the message how to read it as it is (the file
 * is opened again for that, on this error path only). Returns rc.
 */
static int container_hint(const ct_trace *t, const ct_format_ops *f, const char *path, int rc,
                          ct_error *err)
{
    const ct_source_ops *hit = NULL;
    ct_bytes *raw = NULL;
    ct_error e2 = {0};
    ssize_t n;

    if (!f || !f->no_magic || !t->o->containers || t->from_memory ||
        strcmp(path, "-") == 0 || ct_bytes_open(&raw, path, 0, &e2) != CT_OK)
        return rc;
    n = ct_bytes_fill(raw, 16, &e2);
    for (size_t i = 0; n > 0 && ct_source_decoder_at(i); i++)
        if (ct_source_decoder_at(i)->probe(ct_bytes_ptr(raw), (size_t)n)) {
            hit = ct_source_decoder_at(i);
            break;
        }
    ct_bytes_close(raw);
    if (hit) {
        size_t used = strlen(err->msg);
        snprintf(err->msg + used, sizeof err->msg - used,
                 " (the input starts like %s data; %s traces have no magic number, so if "
                 "this one is not compressed, read it as it is with -s trace.containers=no)",
                 hit->name, f->name);
    }
    return rc;
}

static int add_stream(ct_trace *t, const char *path, ct_error *err)
{
    return add_stream_from(t, path, NULL, err);
}

/* One stream: from `given` bytes when not NULL (taken over), else from the
 * path. */
static int add_stream_from(ct_trace *t, const char *path, ct_bytes *given, ct_error *err)
{
    stream_rt *r;
    ct_bytes *in = given;
    const ct_format_ops *f = t->fmt;
    int rc, score;
    int synthetic = strncmp(path, "gen:", 4) == 0;

    if (t->nstreams == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 4;
        stream_rt **v = realloc(t->sv, cap * sizeof *v);
        if (!v) {
            ct_bytes_close(given);
            return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
        }
        t->sv = v;
        t->cap = cap;
    }
    if (!synthetic && (!f || !f->no_bytes)) {
        if (!in) {
            rc = ct_bytes_open(&in, path, t->o->containers, err);
            if (rc)
                return container_hint(t, f, path, rc, err);
        }
        /* a fault past the first bytes is the decoder's to report, with
         * its position in records (the layer keeps it) */
        if (ct_bytes_fill(in, PROBE_BYTES, err) < 0) {
            size_t got;
            (void)ct_bytes_head(in, &got);
            if (got == 0) {
                ct_bytes_close(in);
                return container_hint(t, f, path, err->code, err);
            }
            memset(err, 0, sizeof *err);
        }
        if (ct_bytes_avail(in) == 0 && !ct_bytes_fault(in)) {
            int compressed = in->inner != NULL;
            ct_bytes_close(in);
            return ct_error_set(err, CT_E_FORMAT, "%s: empty file: no trace records%s", path,
                                compressed ? " (the compressed data holds no byte)" : "");
        }
    }
    if (!f) {
        f = detect(path, in, &score);
        if (!f) {
            if (in && ct_bytes_offset(in) == 0 && ct_text_bom(in, err) != CT_OK) {
                ct_bytes_close(in);
                return err->code;
            }
            ct_bytes_close(in);
            return ct_error_set(err, CT_E_FORMAT,
                                "%s: unknown trace format (no format recognises the first "
                                "bytes; force one with -f)", path);
        }
        t->fmt = f;
    } else if (synthetic != (f == &ct_format_gen)) {
        ct_bytes_close(in);
        if (!synthetic)
            return ct_error_set(err, CT_E_USAGE,
                                "%s: the gen format reads synthetic inputs (gen:NAME:...), "
                                "not files", path);
        return ct_error_set(err, CT_E_USAGE, "%s: cannot mix synthetic with %s inputs", path,
                            f->name);
    }
    r = calloc(1, sizeof *r);
    if (!r) {
        ct_bytes_close(in);
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
    }
    r->s.path = path;
    r->s.in = in;
    r->s.cfg = t->cfg;
    r->s.lenient = t->lenient;
    r->s.max_errors = t->max_errors;
    r->s.index = t->nstreams;
    r->s.info = &t->info;
    r->s.trace = t;
    rc = f->open(&r->st, &r->s, err);
    if (rc) {
        ct_bytes_close(in);
        free(r);
        return container_hint(t, f, path, rc, err);
    }
    if (in) {
        uint64_t done, size;
        ct_bytes_progress(in, &done, &size);
        t->info.input_size += size;
    }
    t->sv[t->nstreams++] = r;
    return CT_OK;
}

typedef struct dir_ctx {
    ct_trace *t;
    ct_error *err;
    char **paths;
    size_t n, cap;
} dir_ctx;

static int collect_path(void *ctx, const char *path, int trace)
{
    dir_ctx *d = ctx;
    if (!trace) {
        if (d->t->info.ignored_files++ == 0)
            snprintf(d->t->info.ignored_first, sizeof d->t->info.ignored_first, "%s", path);
        return 0;
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        char **v = realloc(d->paths, cap * sizeof *v);
        if (!v)
            return ct_error_set(d->err, CT_E_NOMEM, "out of memory");
        d->paths = v;
        d->cap = cap;
    }
    d->paths[d->n] = strdup(path);
    if (!d->paths[d->n])
        return ct_error_set(d->err, CT_E_NOMEM, "out of memory");
    d->n++;
    return 0;
}

/* Streams keep pointers to their path strings: the trace owns copies. */
typedef struct path_store {
    char **v;
    size_t n, cap;
} path_store;

static path_store *paths_of(ct_trace *t);

static int open_dir(ct_trace *t, const char *dir, ct_error *err)
{
    const ct_format_ops *f = t->fmt;
    dir_ctx d = {t, err, NULL, 0, 0};
    int rc, score;

    if (!f) {
        f = detect(dir, NULL, &score);
        if (!f || !f->list_dir)
            return ct_error_set(err, CT_E_FORMAT,
                                "%s: is a directory, and no format reads directories of "
                                "this kind", dir);
        t->fmt = f;
    } else if (!f->list_dir) {
        return ct_error_set(err, CT_E_IO, "%s: is a directory; the %s format reads %s", dir,
                            f->name, f->no_bytes ? "synthetic inputs (gen:NAME:...)" : "files");
    }
    {
        uint64_t ignored = t->info.ignored_files;
        rc = f->list_dir(dir, collect_path, &d, err);
        ignored = t->info.ignored_files - ignored;
        if (!rc && d.n == 0 && ignored)
            rc = ct_error_set(err, CT_E_FORMAT, "%s: directory holds no %s trace files (%llu "
                              "%s, e.g. %s)", dir, f->name, (unsigned long long)ignored,
                              ignored == 1 ? "file that is not a trace"
                                           : "files that are not traces",
                              t->info.ignored_first);
        else if (!rc && d.n == 0)
            rc = ct_error_set(err, CT_E_FORMAT, "%s: directory holds no %s trace files", dir,
                              f->name);
    }
    for (size_t i = 0; i < d.n; i++) {
        path_store *ps = paths_of(t);
        if (!rc && ps->n == ps->cap) {
            size_t cap = ps->cap ? ps->cap * 2 : 16;
            char **v = realloc(ps->v, cap * sizeof *v);
            if (!v)
                rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
            else {
                ps->v = v;
                ps->cap = cap;
            }
        }
        if (!rc) {
            ps->v[ps->n++] = d.paths[i];
            rc = add_stream(t, d.paths[i], err);
        } else {
            free(d.paths[i]);
        }
    }
    free(d.paths);
    return rc;
}

/* ---- open / close ------------------------------------------------------------ */

typedef struct trace_block {
    ct_trace t;
    path_store ps;
} trace_block;

static path_store *paths_of(ct_trace *t) { return &((trace_block *)(void *)t)->ps; }

/* The trace object and its options, before any input is opened. */
static int trace_new(ct_trace **out, const ct_trace_opts *opts, ct_error *err)
{
    trace_block *tb = calloc(1, sizeof *tb);
    ct_trace *t = &tb->t;
    const char *force;
    int rc;

    *out = NULL;
    if (!tb)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    if (opts && opts->cfg) {
        t->cfg = opts->cfg;
    } else {
        rc = ct_config_new_default(&t->own_cfg, err);
        if (rc) {
            free(tb);
            return rc;
        }
        t->cfg = t->own_cfg;
    }
    t->o = ct_config_options(t->cfg, &ct_trace_schema);
    t->lenient = (opts && opts->strictness == CT_LENIENT) || t->o->lenient;
    t->max_errors = opts && opts->max_errors ? opts->max_errors : t->o->max_errors;
    if (opts && opts->stop) {
        t->stop = opts->stop;
        t->stop_ctx = opts->stop_ctx;
    }
    t->cores = ct_config_cores(t->cfg);
    t->skip_left = opts ? opts->skip_refs : 0;
    t->quantum = t->o->quantum;
    force = opts && opts->format ? opts->format : (t->o->format[0] ? t->o->format : NULL);
    if (force) {
        t->fmt = ct_format_find(force);
        if (!t->fmt) {
            char list[512] = "";
            for (size_t i = 0; ct_format_at(i); i++) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                         ct_format_at(i)->name);
            }
            ct_trace_close(t);
            return ct_error_set(err, CT_E_USAGE, "unknown format \"%s\" (known: %s)", force,
                                list);
        }
    }
    *out = t;
    return CT_OK;
}

/* Everything after the streams are open. */
static int trace_ready(ct_trace *t, ct_error *err)
{
    t->info.format = t->fmt->name;
    t->info.streams = t->nstreams;
    t->schedule = t->o->schedule == CT_SCHED_AUTO ? t->fmt->default_schedule
                                                    : t->o->schedule;
    t->interleave = t->o->interleave;
    t->thread_count = calloc(t->cores, sizeof *t->thread_count);
    t->cpu_count = calloc(t->cores, sizeof *t->cpu_count);
    if (!t->thread_count || !t->cpu_count)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    if (t->nstreams > 1) {
        for (uint32_t i = 0; i < t->nstreams; i++)
            if (ct_batch_init(&t->sv[i]->b, STREAM_BATCH) != CT_OK)
                return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    t->left = t->quantum;
    t->ra_on = t->o->readahead;
    t->info_pub = t->info;
    return CT_OK;
}

int ct_trace_open(ct_trace **out, const char *const *paths, size_t npaths,
                  const ct_trace_opts *opts, ct_error *err)
{
    ct_trace *t;
    int rc;

    *out = NULL;
    if (npaths == 0)
        return ct_error_set(err, CT_E_USAGE, "no trace given");
    if ((rc = trace_new(&t, opts, err)) != CT_OK)
        return rc;
    for (size_t i = 0; i < npaths && rc == CT_OK; i++)
        rc = is_dir(paths[i]) ? open_dir(t, paths[i], err) : add_stream(t, paths[i], err);
    if (rc == CT_OK)
        rc = trace_ready(t, err);
    if (rc) {
        ct_trace_close(t);
        return rc;
    }
    *out = t;
    return CT_OK;
}

int ct_trace_open_mem(ct_trace **out, const char *name, const void *data, size_t n,
                      const ct_trace_opts *opts, ct_error *err)
{
    ct_trace *t;
    ct_bytes *in;
    int rc;

    *out = NULL;
    if ((rc = trace_new(&t, opts, err)) != CT_OK)
        return rc;
    t->from_memory = 1;
    rc = ct_bytes_open_mem(&in, name, data, n, t->o->containers, err);
    if (rc == CT_OK)
        rc = add_stream_from(t, name, in, err);
    if (rc == CT_OK)
        rc = trace_ready(t, err);
    if (rc) {
        ct_trace_close(t);
        return rc;
    }
    *out = t;
    return CT_OK;
}

static void ra_shutdown(ct_trace *t);

void ct_trace_close(ct_trace *t)
{
    path_store *ps;
    if (!t)
        return;
    ra_shutdown(t);
    if (t->ra_ring) {
        ct_ring_free(t->ra_ring);
        pthread_mutex_destroy(&t->info_mu);
    }
    for (int i = 0; i < RA_SLOTS; i++)
        ct_batch_free(&t->ra[i].b);
    for (uint32_t i = 0; i < t->nstreams; i++) {
        if (t->fmt && t->sv[i]->st)
            t->fmt->close(t->sv[i]->st);
        ct_bytes_close(t->sv[i]->s.in);
        ct_batch_free(&t->sv[i]->b);
        free(t->sv[i]);
    }
    free(t->sv);
    free(t->thread_count);
    free(t->cpu_count);
    for (uint32_t i = 0; i < t->nstructures; i++)
        free(t->structures[i]);
    free(t->structures);
    ct_map_free(&t->thread_core);
    ct_map_free(&t->cpu_core);
    ct_map_free(&t->threads);
    ct_config_free(t->own_cfg);
    ps = paths_of(t);
    for (size_t i = 0; i < ps->n; i++)
        free(ps->v[i]);
    free(ps->v);
    free((trace_block *)(void *)t);
}

void ct_trace_get_progress(const ct_trace *t, uint64_t *done, uint64_t *size)
{
    ct_trace *mt = (ct_trace *)t;
    if (!t->ra_running) {
        *done = t->info.input_done;
        *size = t->info.input_size;
        return;
    }
    pthread_mutex_lock(&mt->info_mu);
    *done = mt->info_pub.input_done;
    *size = mt->info_pub.input_size;
    pthread_mutex_unlock(&mt->info_mu);
}

const ct_trace_info *ct_trace_get_info(const ct_trace *t)
{
    ct_trace *mt = (ct_trace *)t;
    if (!t->ra_running)
        return &t->info;
    /* the decoding thread owns t->info; hand out a copy of its last snapshot */
    pthread_mutex_lock(&mt->info_mu);
    mt->info_pub.structures = mt->info.structures;
    mt->info_user = mt->info_pub;
    pthread_mutex_unlock(&mt->info_mu);
    return &t->info_user;
}

/* ---- core assignment ------------------------------------------------------------ */

/* The core of id in m, inserting it with NO_CORE when absent; NULL when the
 * map is out of memory (the id is then not remembered). */
static uint64_t *map_slot(ct_map *m, uint64_t id, int *added)
{
    uint64_t *v = ct_map_put(m, id, added);
    if (v && *added)
        *v = NO_CORE;
    return v;
}

/* The core with the fewest entries in count[] (the lowest on a tie). */
static uint32_t emptiest(const ct_trace *t, const uint32_t *count)
{
    uint32_t best = 0;
    for (uint32_t c = 1; c < t->cores; c++)
        if (count[c] < count[best])
            best = c;
    return best;
}

static uint32_t core_for_thread(ct_trace *t, uint32_t thread)
{
    int added;
    uint64_t *slot = map_slot(&t->thread_core, thread, &added);
    uint32_t core;

    if (slot && *slot != NO_CORE)
        return (uint32_t)*slot;
    core = emptiest(t, t->thread_count);
    t->thread_count[core]++;
    if (slot)
        *slot = core;
    return core;
}

static void thread_exit(ct_trace *t, uint32_t thread)
{
    int added;
    uint64_t *slot = map_slot(&t->thread_core, thread, &added);
    if (slot && *slot != NO_CORE) {
        t->thread_count[*slot]--;
        *slot = NO_CORE;
    }
}

static void thread_on_cpu(ct_trace *t, uint32_t thread, uint16_t cpu)
{
    int added;
    uint64_t *cslot = map_slot(&t->cpu_core, cpu, &added);
    uint64_t *tslot;
    uint32_t core;

    if (cslot && *cslot != NO_CORE) {
        core = (uint32_t)*cslot;
    } else {
        core = emptiest(t, t->cpu_count);
        t->cpu_count[core]++;
        if (cslot)
            *cslot = core;
    }
    tslot = map_slot(&t->thread_core, thread, &added);
    if (tslot) {
        if (*tslot != NO_CORE)
            t->thread_count[*tslot]--;
        *tslot = core;
    }
    t->thread_count[core]++;
}

static void count_thread(ct_trace *t, uint32_t thread)
{
    int added;
    (void)map_slot(&t->threads, thread, &added);
    if (added)
        t->info.threads++;
}

/* Whether a side record can change the thread -> core map: a thread exit,
 * a cpu move under the cpus schedule, or any record but an idle marker of
 * a thread not placed yet, once records place their thread. */
static int moves_threads(const ct_trace *t, const ct_marker *m)
{
    return t->schedule != CT_SCHED_SINGLE &&
           (m->type == CT_MK_THREAD_EXIT ||
            (m->type == CT_MK_CPU && t->schedule == CT_SCHED_CPUS && m->cpu != 0xffff) ||
            (t->placing && m->type != CT_MK_IDLE && m->thread != 0));
}

/* Apply a side record that moves_threads() to the thread -> core map. */
static void schedule_marker(ct_trace *t, const ct_marker *m)
{
    if (m->type == CT_MK_THREAD_EXIT) {
        thread_exit(t, m->thread);  /* a thread never placed: nothing to free */
        t->placing = 1;
    } else if (m->type == CT_MK_CPU && t->schedule == CT_SCHED_CPUS && m->cpu != 0xffff) {
        thread_on_cpu(t, m->thread, m->cpu);
    } else {
        (void)core_for_thread(t, m->thread);
    }
}

/* Give every access of b its core, applying the side records in order;
 * an access with thread 0 becomes thread `dflt` first (when dflt is not
 * 0). The core is looked up when the thread changes or a side record
 * changed the map; the records that cannot (timestamps and most others)
 * are passed over. */
static void assign_cores(ct_trace *t, ct_batch *b, uint32_t dflt)
{
    const int single = t->schedule == CT_SCHED_SINGLE;
    uint32_t mi = 0, i = 0, raw = 0, thread = 0, core = 0;
    int known = 0;

    for (;;) {
        uint32_t end = b->n;
        if (i > 0)
            t->placing = 1; /* an access was scheduled */
        /* pass over records that change nothing; before the first access a
         * later record may yet place its thread: stop at it */
        while (mi < b->nmk && !moves_threads(t, &b->mk[mi]) &&
               (t->placing || b->mk[mi].index <= i))
            mi++;
        if (mi < b->nmk && b->mk[mi].index <= i) {
            schedule_marker(t, &b->mk[mi++]);
            known = 0;
            continue;
        }
        if (i >= b->n)
            break;
        if (mi < b->nmk && b->mk[mi].index < end)
            end = b->mk[mi].index;
        for (ct_access *a = &b->acc[i], *stop = &b->acc[end]; a < stop;) {
            if (!known || a->thread != raw) {
                raw = a->thread;
                thread = raw ? raw : dflt;
                known = 1;
                count_thread(t, thread);
                core = single ? 0 : core_for_thread(t, thread);
            }
            /* the run of accesses of this thread */
            if (raw) {
                for (; a < stop && a->thread == raw; a++)
                    a->core = (uint16_t)core;
            } else {
                for (; a < stop && a->thread == 0; a++) {
                    a->thread = thread;
                    a->core = (uint16_t)core;
                }
            }
        }
        i = end;
    }
}

/* ---- reading ------------------------------------------------------------------- */

#define MAX_ACCESS_BYTES CT_MAX_ACCESS_BYTES

/* An access of more than MAX_ACCESS_BYTES is a damaged record, except a
 * cache operation that allocates nothing: cleaning or invalidating a range
 * costs at most the lines a level holds (sim/hier.c), whatever its size,
 * while zeroing or allocating one writes every line of it. */
FORCE_INLINE int oversized(const ct_access *a)
{
    if (LIKELY(a->size <= MAX_ACCESS_BYTES))
        return 0;
    if (a->kind != CT_CACHEOP)
        return 1;
    return (a->op & CT_OP_MASK) == CT_OP_ZERO || (a->op & CT_OP_MASK) == CT_OP_ALLOC;
}

/* Check the accesses a decoder just added (from index `from`): oversized
 * ones stop a strict read, and are dropped and counted in lenient mode.
 * Accesses are moved only after the first one dropped. */
static int check_sizes(stream_rt *r, ct_batch *b, uint32_t from, ct_error *err)
{
    uint32_t i = from, w;

    /* the usual case: nothing is too large and nothing moves. Four sizes
     * at a time: when their OR is below the bound, so is each of them. */
    _Static_assert((MAX_ACCESS_BYTES & (MAX_ACCESS_BYTES - 1)) == 0, "a power of two");
    for (; i + 4 <= b->n; i += 4) {
        const ct_access *a = &b->acc[i];
        if (UNLIKELY((a[0].size | a[1].size | a[2].size | a[3].size) >= MAX_ACCESS_BYTES))
            break;
    }
    for (; i < b->n; i++) {
        const ct_access *a = &b->acc[i];
        if (UNLIKELY(oversized(a)))
            break;
    }
    if (LIKELY(i == b->n))
        return CT_OK;
    for (w = i; i < b->n; i++) {
        const ct_access *a = &b->acc[i];
        if (LIKELY(!oversized(a))) {
            b->acc[w++] = *a;
            continue;
        }
        ct_error_set(err, CT_E_FORMAT,
                     "%s: the %s at trace time %llu covers %u bytes, more than any real "
                     "access (%u): a damaged record", r->s.path, ct_kind_name(a->kind),
                     (unsigned long long)a->time, a->size, MAX_ACCESS_BYTES);
        if (ct_stream_malformed(&r->s, err, "access larger than 1 MiB") != CT_OK)
            return err->code;
        /* dropped: side records after it move down one place */
        for (uint32_t m = 0; m < b->nmk; m++)
            if (b->mk[m].index > w)
                b->mk[m].index--;
        for (uint32_t e = 0; e < b->nev; e++)
            if (b->ev[e].index > w)
                b->ev[e].index--;
    }
    b->n = w;
    return CT_OK;
}

/* One call of the decoder adding to b: its answer (1, 2 after a yield at
 * a timestamp, 0 at the end, or a negative code), with the new accesses
 * checked and the input bytes counted. */
static int decode_once(ct_trace *t, stream_rt *r, ct_batch *b, ct_error *err)
{
    uint32_t from = b->n;
    uint64_t bytes_before = t->info.bytes;
    int rc;

    /* the stop request is polled per batch of records read, not per access
     * kept: a trace of records that hold no access (escapes, foreign lines,
     * zeros) stops as promptly as any other */
    if (t->stop && t->stop(t->stop_ctx))
        return ct_error_set(err, CT_E_INTERRUPTED, "interrupted");
    rc = t->fmt->next(r->st, b, err);

    if (rc < 0)
        return container_hint(t, t->fmt, r->s.path, rc, err);
    if (rc == 0)
        r->done = 1;
    if (!t->fmt->checked && !r->s.sizes_bounded && check_sizes(r, b, from, err) != CT_OK)
        return err->code;
    /* decoders that do not count their input themselves: the stream's
     * decoded offset */
    if (t->info.bytes == bytes_before && r->s.in) {
        uint64_t off = ct_bytes_offset(r->s.in);
        if (off > r->counted) {
            t->info.bytes += off - r->counted;
            r->counted = off;
        }
    }
    if (r->s.in) {
        uint64_t done, size;
        ct_bytes_progress(r->s.in, &done, &size);
        if (done > r->input_counted) {
            t->info.input_done += done - r->input_counted;
            r->input_counted = done;
        }
    }
    return rc;
}

/* Fill b from r until it is full or r ends (or, with stop_at_yield, the
 * decoder stopped after a timestamp). */
static int fill_stream_until(ct_trace *t, stream_rt *r, ct_batch *b, int stop_at_yield,
                             ct_error *err)
{
    while (!r->done && ct_batch_room(b, t->fmt->max_per_record)) {
        int rc = decode_once(t, r, b, err);
        if (rc < 0)
            return rc;
        if (rc == 2 && stop_at_yield)
            break;
    }
    return CT_OK;
}

static int fill_stream(ct_trace *t, stream_rt *r, ct_batch *b, ct_error *err)
{
    return fill_stream_until(t, r, b, 0, err);
}

static void default_thread(ct_batch *b, uint32_t from, uint32_t stream_index)
{
    for (uint32_t i = from; i < b->n; i++)
        if (b->acc[i].thread == 0)
            b->acc[i].thread = stream_index + 1;
}

static int buffered(const stream_rt *r)
{
    return r->ai < r->b.n || r->mi < r->b.nmk || r->ei < r->b.nev;
}

/* Refill r's buffer when it is empty; sets r->finished at the very end. */
static int refill(ct_trace *t, stream_rt *r, ct_error *err)
{
    while (!buffered(r) && !r->done) {
        ct_batch_clear(&r->b);
        r->ai = r->mi = r->ei = 0;
        /* a stream that yields at timestamps decodes straight into the
         * output afterwards: its buffer takes the records up to its first
         * timestamp only (memory stays untouched) */
        if (fill_stream_until(t, r, &r->b, r->s.yield_at_timestamp, err) < 0)
            return err->code;
        if (!t->fmt->checked)
            default_thread(&r->b, 0, r->s.index);
    }
    if (!buffered(r) && r->done)
        r->finished = 1;
    return CT_OK;
}

/* Timestamp interleaving: the live stream with the smallest pending
 * timestamp (the lowest index on a tie); streams without one yet wait. */
static int oldest_stream(const ct_trace *t)
{
    int best = -1;
    for (uint32_t i = 0; i < t->nstreams; i++) {
        const stream_rt *r = t->sv[i];
        if (r->finished || r->next_ts == 0)
            continue;
        if (best < 0 || r->next_ts < t->sv[best]->next_ts)
            best = (int)i;
    }
    return best;
}

static int first_live(const ct_trace *t, uint32_t from)
{
    for (uint32_t k = 0; k < t->nstreams; k++) {
        uint32_t i = (from + k) % t->nstreams;
        if (!t->sv[i]->finished)
            return (int)i;
    }
    return -1;
}

/* Choose the stream to run after the current one ended or yielded. */
static int next_stream(ct_trace *t)
{
    int nx;
    if (t->interleave == IL_TIMESTAMP) {
        nx = oldest_stream(t);
        if (nx < 0)
            nx = first_live(t, 0);  /* only streams without timestamps are left */
        else
            t->sv[nx]->ts_taken = 1;
        return nx;
    }
    return first_live(t, t->cur + 1);
}

/* Timestamp interleaving starts with the stream whose first timestamp is
 * the oldest (streams without a timestamp in their first batch count as 0). */
static int start_streams(ct_trace *t, ct_error *err)
{
    uint64_t best_ts = UINT64_MAX;
    int best = -1;

    for (uint32_t i = 0; i < t->nstreams; i++) {
        stream_rt *r = t->sv[i];
        if (refill(t, r, err) != CT_OK)
            return err->code;
        for (uint32_t k = 0; k < r->b.nmk; k++)
            if (r->b.mk[k].type == CT_MK_TIMESTAMP) {
                r->next_ts = r->b.mk[k].time;
                break;
            }
        if (!r->finished && r->next_ts < best_ts) {
            best_ts = r->next_ts;
            best = (int)i;
        }
    }
    if (best >= 0) {
        t->cur = (uint32_t)best;
        t->sv[best]->ts_taken = t->sv[best]->next_ts != 0;
    } else {
        t->cur = 0;
    }
    return CT_OK;
}

/*
 * Timestamp interleaving, for decoders that yield at timestamps: the
 * running stream, its buffer empty, decodes straight into the output (no
 * copy). The decoder stops after each TIMESTAMP marker; when that makes
 * another stream the oldest, the marker is taken back into the stream's
 * buffer (it is emitted when the stream runs again) and the other stream
 * runs. The same choices as next_multi() makes from a buffer. Returns 1
 * when it decoded, 0 when the output has no room for the decoder, or a
 * negative code.
 */
static int decode_direct(ct_trace *t, stream_rt *r, ct_batch *out, ct_error *err)
{
    uint32_t from;
    int rc;

    if (!ct_batch_room(out, t->fmt->max_per_record))
        return 0;
    from = out->n;
    rc = decode_once(t, r, out, err);
    if (rc < 0)
        return rc;
    if (!t->fmt->checked)
        default_thread(out, from, r->s.index);
    if (rc == 2 && out->nmk > 0 && out->mk[out->nmk - 1].type == CT_MK_TIMESTAMP &&
        out->mk[out->nmk - 1].index == out->n) {
        const ct_marker m = out->mk[out->nmk - 1];
        int nx;
        r->next_ts = m.time;
        nx = oldest_stream(t);
        if (nx >= 0 && (uint32_t)nx != t->cur) {
            out->nmk--;
            ct_batch_clear(&r->b);
            r->ai = r->mi = r->ei = 0;
            r->b.mk[r->b.nmk++] = m;
            r->b.mk[0].index = 0;
            t->cur = (uint32_t)nx;
            t->sv[nx]->ts_taken = 1;
        }
    }
    return 1;
}

static int next_multi(ct_trace *t, ct_batch *out, ct_error *err)
{
    const int direct = t->interleave == IL_TIMESTAMP && t->fmt->yields;

    while (ct_batch_room(out, 1)) {
        stream_rt *r = t->sv[t->cur];

        if (direct && !r->done && !buffered(r)) {
            int rc = decode_direct(t, r, out, err);
            if (rc < 0)
                return rc;
            if (rc == 0)
                break;  /* the output is full enough */
            continue;
        }
        if (refill(t, r, err) != CT_OK)
            return err->code;
        if (r->finished) {
            int nx = next_stream(t);
            if (nx < 0)
                break;
            t->cur = (uint32_t)nx;
            t->left = t->quantum;
            continue;
        }
        /* the next record of the running stream, in stream order */
        if (r->mi < r->b.nmk && r->b.mk[r->mi].index <= r->ai) {
            ct_marker m = r->b.mk[r->mi];
            if (m.type == CT_MK_TIMESTAMP && t->interleave == IL_TIMESTAMP) {
                if (!r->ts_taken) {
                    int nx;
                    r->next_ts = m.time;
                    nx = oldest_stream(t);
                    if (nx >= 0 && (uint32_t)nx != t->cur) {
                        t->cur = (uint32_t)nx;
                        t->sv[nx]->ts_taken = 1;
                        continue;
                    }
                }
                r->ts_taken = 0;
            }
            r->mi++;
            m.index = out->n;
            out->mk[out->nmk++] = m;
            continue;
        }
        if (r->ei < r->b.nev && r->b.ev[r->ei].index <= r->ai) {
            ct_event e = r->b.ev[r->ei++];
            e.index = out->n;
            out->ev[out->nev++] = e;
            continue;
        }
        if (r->ai < r->b.n) {
            /* a run of accesses up to the next side record, the end of the
             * output or the end of the quantum, copied at once */
            uint32_t run = r->b.n - r->ai;
            if (r->mi < r->b.nmk && r->b.mk[r->mi].index - r->ai < run)
                run = r->b.mk[r->mi].index - r->ai;
            if (r->ei < r->b.nev && r->b.ev[r->ei].index - r->ai < run)
                run = r->b.ev[r->ei].index - r->ai;
            if (out->cap - out->n < run)
                run = out->cap - out->n;
            if (t->interleave == IL_QUANTUM && t->left < run)
                run = (uint32_t)t->left;
            memcpy(&out->acc[out->n], &r->b.acc[r->ai], (size_t)run * sizeof *out->acc);
            out->n += run;
            r->ai += run;
            if (t->interleave == IL_QUANTUM && (t->left -= run) == 0) {
                int nx = next_stream(t);
                t->left = t->quantum;
                if (nx >= 0)
                    t->cur = (uint32_t)nx;
            }
        }
    }
    return out->n + out->nmk + out->nev > 0 ? 1 : 0;
}

/* Drop up to t->skip_left references from the front of b (accesses and
 * thread exits, with the side records before the last one dropped). */
static void skip_front(ct_trace *t, ct_batch *b)
{
    uint32_t a = 0, m = 0, e = 0;
    const uint64_t k = ct_batch_walk_refs(b, &a, &m, t->skip_left);

    t->skip_left = k;
    if (k > 0) {
        e = b->nev;
    } else {
        while (e < b->nev && b->ev[e].index < a)
            e++;
    }
    memmove(b->acc, b->acc + a, (size_t)(b->n - a) * sizeof *b->acc);
    b->n -= a;
    memmove(b->mk, b->mk + m, (size_t)(b->nmk - m) * sizeof *b->mk);
    b->nmk -= m;
    for (uint32_t i = 0; i < b->nmk; i++)
        b->mk[i].index = b->mk[i].index < a ? 0 : b->mk[i].index - a;
    memmove(b->ev, b->ev + e, (size_t)(b->nev - e) * sizeof *b->ev);
    b->nev -= e;
    for (uint32_t i = 0; i < b->nev; i++)
        b->ev[i].index = b->ev[i].index < a ? 0 : b->ev[i].index - a;
}

static int next_scheduled(ct_trace *t, ct_batch *b, ct_error *err);

static int next_direct(ct_trace *t, ct_batch *b, ct_error *err)
{
    int rc;

    if (UNLIKELY(t->skip_left > 0)) {
        /* every record up to the last skipped reference goes, then the
         * rest of the batch is scheduled as usual */
        while ((rc = next_scheduled(t, b, err)) > 0 && t->skip_left > 0)
            ;
        return rc;
    }
    return next_scheduled(t, b, err);
}

static int next_scheduled(ct_trace *t, ct_batch *b, ct_error *err)
{
    int rc;

    ct_batch_clear(b);
    if (t->nstreams == 1) {
        stream_rt *r = t->sv[0];
        if (fill_stream(t, r, b, err) < 0)
            return err->code;
        rc = b->n + b->nmk + b->nev > 0 ? 1 : 0;
        if (UNLIKELY(t->skip_left > 0))
            skip_front(t, b);
        if (t->fmt->one_thread) { /* thread 1 on core 0 throughout */
            if (b->n && t->info.threads == 0)
                count_thread(t, 1);
            return rc;
        }
        assign_cores(t, b, 1);    /* thread 0 is the stream's: 1 */
        return rc;
    } else {
        if (!t->started) {
            t->started = 1;
            const int yields = t->fmt->yields && t->interleave != IL_QUANTUM;
            for (uint32_t i = 0; i < t->nstreams; i++)
                t->sv[i]->s.yield_at_timestamp = yields;
            if (t->interleave == IL_AUTO) {
                /* timestamps if the first stream has any in its first batch
                 * (a yielding decoder stops at the first one: the same answer) */
                stream_rt *r = t->sv[0];
                if (refill(t, r, err) != CT_OK)
                    return err->code;
                t->interleave = IL_QUANTUM;
                for (uint32_t i = 0; i < r->b.nmk; i++)
                    if (r->b.mk[i].type == CT_MK_TIMESTAMP) {
                        t->interleave = IL_TIMESTAMP;
                        break;
                    }
                if (t->interleave == IL_QUANTUM)
                    for (uint32_t i = 0; i < t->nstreams; i++)
                        t->sv[i]->s.yield_at_timestamp = 0;
            }
            if (t->interleave == IL_TIMESTAMP && start_streams(t, err) != CT_OK)
                return err->code;
        }
        rc = next_multi(t, b, err);
        if (rc < 0)
            return rc;
        if (UNLIKELY(t->skip_left > 0))
            skip_front(t, b);
    }
    assign_cores(t, b, 0);
    return rc;
}

/* ---- read-ahead ---------------------------------------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The thread: decode into each slot the ring gives it, until the end, an
 * error (nothing follows either) or a stop. */
static void *ra_main(void *arg)
{
    ct_trace *t = arg;
    uint64_t seq;

    while (ct_ring_claim(t->ra_ring, &seq) == CT_OK) {
        struct ra_slot *slot = &t->ra[seq % RA_SLOTS];
        memset(&slot->err, 0, sizeof slot->err);
        slot->decode_ns = now_ns();
        slot->rc = next_direct(t, &slot->b, &slot->err);
        slot->decode_ns = now_ns() - slot->decode_ns;
        pthread_mutex_lock(&t->info_mu);
        t->info_pub = t->info;
        pthread_mutex_unlock(&t->info_mu);
        ct_ring_publish(t->ra_ring);
        if (slot->rc <= 0)
            break;
    }
    return NULL;
}

static void ra_swap(ct_batch *a, ct_batch *b)
{
    ct_batch tmp = *a;
    *a = *b;
    *b = tmp;
}

/* Take the oldest decoded batch. An end or an error stays in its slot (it
 * is not released), so that later calls give the same answer. */
static int ra_take(ct_trace *t, struct ra_slot *slot, ct_batch *b, ct_error *err)
{
    int rc = slot->rc;
    if (rc > 0) {
        ra_swap(b, &slot->b);
        ct_ring_release(t->ra_ring, 0);
    } else {
        ct_batch_clear(b);
        if (rc < 0 && err)
            *err = slot->err;
    }
    return rc;
}

/* Start the thread with batches of `cap`. CT_OK; CT_E_NOMEM for the
 * batches; 1 when no thread could be had (read directly). */
static int ra_start(ct_trace *t, uint32_t cap)
{
    for (int i = 0; i < RA_SLOTS; i++)
        if (ct_batch_init(&t->ra[i].b, cap) != CT_OK)
            return CT_E_NOMEM;
    if (pthread_mutex_init(&t->info_mu, NULL) != 0)
        return 1;
    if (ct_ring_create(&t->ra_ring, RA_SLOTS, 1) != CT_OK) {
        pthread_mutex_destroy(&t->info_mu);
        return 1;
    }
    if (pthread_create(&t->ra_thread, NULL, ra_main, t) != 0) {
        ct_ring_free(t->ra_ring);
        t->ra_ring = NULL;
        pthread_mutex_destroy(&t->info_mu);
        return 1;
    }
    t->ra_running = 1;
    return CT_OK;
}

int ct_trace_next(ct_trace *t, ct_batch *b, ct_error *err)
{
    uint64_t t0 = 0, seq;
    int rc;

    if (!t->ra_on)
        return next_direct(t, b, err);
    if (!t->ra_ring) {
        rc = ra_start(t, b->cap);
        if (rc == CT_E_NOMEM)
            return ct_error_set(err, CT_E_NOMEM, "out of memory");
        if (rc != CT_OK) {
            t->ra_on = 0;            /* no thread: read directly */
            return next_direct(t, b, err);
        }
    }
    if (!t->ra_drain && t->ra_taken < RA_PROBE)
        t0 = now_ns();
    if (ct_ring_acquire(t->ra_ring, 0, &seq) != CT_OK) {
        t->ra_on = 0;                /* stopped, all it decoded handed out */
        return next_direct(t, b, err);
    }
    if (t->ra_drain)
        return ra_take(t, &t->ra[seq % RA_SLOTS], b, err);
    if (t->ra_taken < RA_PROBE) {
        t->ra_wait_ns += now_ns() - t0;
        t->ra_decode_ns += t->ra[seq % RA_SLOTS].decode_ns;
    }
    rc = ra_take(t, &t->ra[seq % RA_SLOTS], b, err);
    if (rc > 0 && ++t->ra_taken == RA_PROBE &&
        t->ra_wait_ns * 100 >= t->ra_decode_ns * RA_IDLE_PCT) {
        /* the caller only waited: stop the thread, keep what it decoded */
        ra_shutdown(t);
        t->ra_drain = 1;
    }
    return rc;
}

static void ra_shutdown(ct_trace *t)
{
    if (!t->ra_running)
        return;
    ct_ring_stop(t->ra_ring);
    pthread_join(t->ra_thread, NULL);
    t->ra_running = 0;
}
