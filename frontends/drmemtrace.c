/*
 * drmemtrace.c - DynamoRIO drmemtrace final (post-processed) traces.
 *
 * Layout
 *   A trace is a sequence of trace_entry_t records, little-endian and
 *   packed: u16 type, u16 size, then a pointer-sized addr (u64 in 12-byte
 *   records from 64-bit producers, u32 in 8-byte records from 32-bit ones).
 *   The width is not stored: record 0 is always HEADER (type 25, size 0,
 *   addr = version), so 12-byte records have a u64 in 1..255 at offset 4;
 *   8-byte records have a u32 in 1..255 there followed by the type of
 *   record 1 (MARKER 28 or THREAD 22). A FILETYPE marker naming a 32-bit
 *   architecture in a 12-byte trace (or a 64-bit one in an 8-byte trace)
 *   is an error. Versions 1 (legacy: no VERSION or FILETYPE marker) to 7
 *   are read; a HEADER announcing another version (0, or past 7) is
 *   refused by its number. The width is found from the record types even
 *   for such versions, so that they are not mistaken for other data.
 *
 * The end
 *   Every trace ends with a FOOTER record: raw2trace writes it when a
 *   thread's output ends, in every version (the legacy single-file
 *   converter wrote HEADER, the threads, FOOTER), and DynamoRIO's readers
 *   take a missing one as truncation ("Trace is truncated", "Chunk is
 *   missing footer"). A stream that ends at a record boundary without it
 *   (a zip archive whose last member ends with CHUNK_FOOTER included) is
 *   "truncated: no footer": an error, counted in lenient mode (the
 *   accesses read stay).
 *
 * Inputs
 *   A per-thread file (plain, gzip, zstd, lz4, snappy-framed or zip: the
 *   byte sources undo the container, chosen by magic bytes), a legacy
 *   single file interleaving threads with THREAD records, or a directory
 *   of per-thread files (also the trace/ subdirectory of a *.dir), listed
 *   in name order. A directory is read by content, never by file names:
 *   every file whose first bytes (once decompressed) begin a trace is a
 *   stream, whatever it is called; DynamoRIO's side files are skipped
 *   by name (modules.log, funclist.log, v2p.textproto, encodings.bin*,
 *   serial_schedule.bin*, cpu_schedule.bin*), as are hidden files and
 *   subdirectories; any other file is ignored and counted (ct_trace_info
 *   ignored_files; the command says "ignored: N files that are not
 *   traces"). A file that cannot be read or decompressed is opened as a
 *   stream, so that its fault is reported rather than hidden.
 *   A directory of window.NNNN subdirectories (a multi-window trace) is
 *   refused with a hint to name one window.
 *   Raw (not yet post-processed) files are recognised by their header and
 *   refused with a hint to run raw2trace.
 *
 * Records before the thread
 *   After HEADER only MARKER, THREAD and PID records may come until the PID
 *   record (markers may precede THREAD; they belong to that thread).
 *
 * Mapping to the access stream
 *   INSTR, DIRECT_JUMP, INDIRECT_JUMP, CONDITIONAL_JUMP, DIRECT_CALL,
 *     INDIRECT_CALL, RETURN, SYSENTER, TAKEN_JUMP, UNTAKEN_JUMP: an ifetch
 *     of `size` bytes at the pc; size 0 only sets the pc (i-filtered
 *     traces). INSTR_BUNDLE: one ifetch per length, at consecutive pcs after
 *     the previous instruction. INSTR_MAYBE_FETCH: a no-fetch instruction
 *     when its pc repeats the previous instruction's, else an ifetch.
 *   INSTR_NO_FETCH: a "nofetch" access with CT_F_REPEAT (counted, never
 *     simulated, and no instruction: it repeats the one before, as
 *     basic_counts counts "(fetched) instructions").
 *   READ, WRITE: load, store of `size` bytes with the last instruction's pc.
 *     Size 0 (an operand whose size the tracer could not tell, such as an
 *     XSAVE area) is passed on as 0: the core model reads it as one byte
 *     (sim/hier.c), compat = drcachesim as drcachesim does.
 *   Prefetch types: a prefetch with hints: write (PREFETCH_WRITE*),
 *     instruction (PREFETCH_INSTR*), non-temporal (NTA, *_NT), target
 *     level 1-3 (T0/T1/T2, *_L1/_L2/_L3); HARDWARE_PREFETCH: a plain one.
 *   INSTR_FLUSH / DATA_FLUSH (+ *_END when size is 0): a clean+invalidate of
 *     the range, instruction side for INSTR_FLUSH; a range of 4 GiB or more
 *     is one CT_OP_LONG operation (its length in pc, include/cachet/access.h).
 *   THREAD, THREAD_EXIT: thread markers; PID: remembered.
 *   Markers: TIMESTAMP, CPU_ID (an unknown cpu, (int)value < 0, becomes cpu
 *     0xffff; ids are truncated to 16 bits), KERNEL_EVENT/XFER (kernel
 *     marker), CACHE_LINE_SIZE, PAGE_SIZE, CORE_IDLE (runs of them become
 *     one idle marker counting them in value2). PHYSICAL_ADDRESS +
 *     VIRTUAL_ADDRESS pairs map a virtual page to a physical one
 *     (PHYSICAL_ADDRESS_NOT_AVAILABLE maps it to the low 28 bits of the
 *     virtual address); accesses on a mapped page carry the physical
 *     address (page size from the PAGE_SIZE marker, 4096 without one).
 *     The TIMESTAMP and CPU_ID that open a chunk after a CHUNK_FOOTER of the
 *     same thread repeat the previous ones and are dropped, as DynamoRIO's
 *     reader does. RECORD_ORDINAL, BRANCH_TARGET, FILETYPE, VERSION, the
 *     chunk markers and other known markers produce nothing; unknown marker
 *     types are counted as ignored. HEADER and FOOTER inside the stream
 *     (concatenated traces) are skipped. ENCODING records are checked
 *     (at most 15 bytes; their total equals the next instruction's size
 *     except in REGDEPS traces) and dropped.
 *   An access's `time` is its record index in the file.
 *
 * Zip archives (chunked traces)
 *   Members are read in archive order and must be named chunk.<digits>
 *   (any width). A record may not straddle two members, and every member
 *   must end with CHUNK_FOOTER or FOOTER (else it was truncated).
 *
 * Malformed input
 *   Errors name the file (and member), the byte offset (within the member
 *   for zip archives, of the decompressed stream otherwise), the 0-based
 *   record index and the reason. In lenient mode a well-framed bad record
 *   (unknown type, bad encoding length, stray flush end) is skipped and
 *   counted; a fault that breaks the framing (a truncated record, a member
 *   that is not a chunk or lacks its footer) skips to the next zip member,
 *   the only resynchronisation point the format has; outside zip archives
 *   it ends the stream. Header faults (unsupported version, wrong record
 *   width, raw file, template library) always stop.
 *   A fault of the byte source (a damaged gzip, zstd, lz4, snappy or
 *   compress stream; a zip member that does not inflate, has the wrong
 *   length or fails its CRC; a read error): what the read that met it
 *   produced is not decoded (a damaged stream can give garbage before its
 *   damage shows), and the source's message (compressed position, reason)
 *   gets where the trace stops (byte, record) and where the damage showed
 *   in the decompressed bytes (byte, and the record it falls in). In
 *   lenient mode a faulty zip member is counted under its kind and
 *   skipped: reading resumes with the next member. Records of it decoded
 *   before the fault showed stay (a CRC error shows at the member's end:
 *   only its last read, at most 1 MiB, is dropped). Other faults, and a
 *   fault before the header was read, always stop.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../sim/compiler.h"
#include "../sim/map.h"
#include "frontend.h"

/* trace_type_t */
enum {
    T_READ = 0, T_WRITE = 1, T_PREFETCH = 2, T_PREFETCHT0 = 3, T_PREFETCHT1 = 4,
    T_PREFETCHT2 = 5, T_PREFETCHNTA = 6, T_PREFETCH_READ = 7, T_PREFETCH_WRITE = 8,
    T_PREFETCH_INSTR = 9, T_INSTR = 10, T_INSTR_DIRECT_JUMP = 11, T_INSTR_INDIRECT_JUMP = 12,
    T_INSTR_CONDITIONAL_JUMP = 13, T_INSTR_DIRECT_CALL = 14, T_INSTR_INDIRECT_CALL = 15,
    T_INSTR_RETURN = 16, T_INSTR_BUNDLE = 17, T_INSTR_FLUSH = 18, T_INSTR_FLUSH_END = 19,
    T_DATA_FLUSH = 20, T_DATA_FLUSH_END = 21, T_THREAD = 22, T_THREAD_EXIT = 23, T_PID = 24,
    T_HEADER = 25, T_FOOTER = 26, T_HARDWARE_PREFETCH = 27, T_MARKER = 28,
    T_INSTR_NO_FETCH = 29, T_INSTR_MAYBE_FETCH = 30, T_INSTR_SYSENTER = 31,
    T_PREFETCH_READ_L1_NT = 32, T_PREFETCH_READ_L2_NT = 33, T_PREFETCH_READ_L3_NT = 34,
    T_PREFETCH_INSTR_L1 = 35, T_PREFETCH_INSTR_L1_NT = 36, T_PREFETCH_INSTR_L2 = 37,
    T_PREFETCH_INSTR_L2_NT = 38, T_PREFETCH_INSTR_L3 = 39, T_PREFETCH_INSTR_L3_NT = 40,
    T_PREFETCH_WRITE_L1 = 41, T_PREFETCH_WRITE_L1_NT = 42, T_PREFETCH_WRITE_L2 = 43,
    T_PREFETCH_WRITE_L2_NT = 44, T_PREFETCH_WRITE_L3 = 45, T_PREFETCH_WRITE_L3_NT = 46,
    T_ENCODING = 47, T_INSTR_TAKEN_JUMP = 48, T_INSTR_UNTAKEN_JUMP = 49, T_COUNT = 50
};

/* trace_marker_type_t (the ones with a meaning here) */
enum {
    M_KERNEL_EVENT = 0, M_KERNEL_XFER = 1, M_TIMESTAMP = 2, M_CPU_ID = 3, M_FILETYPE = 9,
    M_CACHE_LINE_SIZE = 10, M_VERSION = 12, M_PHYSICAL_ADDRESS = 15,
    M_PHYSICAL_ADDRESS_NOT_AVAILABLE = 16, M_VIRTUAL_ADDRESS = 17, M_PAGE_SIZE = 18,
    M_CHUNK_INSTR_COUNT = 20, M_CHUNK_FOOTER = 21, M_CORE_IDLE = 33, M_KNOWN_END = 47,
    M_RESERVED_END = 100
};

/* offline_file_type_t bits */
enum {
    FT_ARCH_AARCH64 = 0x08, FT_ARCH_ARM32 = 0x10, FT_ARCH_X86_32 = 0x20,
    FT_ARCH_X86_64 = 0x40, FT_KERNEL_SYSCALL_TRACE_TEMPLATES = 0x4000,
    FT_ARCH_REGDEPS = 0x20000
};

#define DMT_MAX_VERSION 7
#define MAX_PER_RECORD 8        /* a bundle of 8 lengths */
#define MAX_ENCODING 15
#define HEAD_SCAN 4096          /* bytes scanned at open for the thread id */
#define CPU_SLOTS 64            /* per-thread last cpu, for interleaved files */
#define SKIP_SLOTS 16           /* threads whose chunk-start duplicates are pending */
#define CPU_UNKNOWN 0xffff

enum { ST_HEADER, ST_PRE_PID, ST_BODY };

typedef struct dmt {
    ct_stream *s;
    ct_bytes *in;
    unsigned rs;            /* record size: 12 or 8 */
    uint64_t version, filetype;
    int state;
    uint64_t rec;           /* index of the next record */
    /* zip members */
    int zip;
    uint64_t nmembers, member;   /* member being read */
    uint64_t mstart, mend;       /* its byte range in the stream */
    uint64_t mrec0;              /* index of its first record */
    int member_open;
    uint16_t last_type, last_size; /* last record of the member */
    /* thread context */
    uint64_t tid, pid;
    uint32_t thread;
    uint16_t cpu;
    uint64_t cpu_tid[CPU_SLOTS];
    uint16_t cpu_val[CPU_SLOTS];
    uint32_t ncpu;
    uint64_t skip_tid[SKIP_SLOTS];
    uint32_t nskip;
    uint64_t chunk_instr_count;
    uint64_t last_ts;
    /* instruction context */
    uint64_t pc, next_pc, prev_instr_pc;
    int have_instr;
    uint32_t enc_bytes;
    int regdeps;
    /* pending flush (size 0 until its _END record) */
    int flush_type;
    uint64_t flush_addr;
    /* a run of CORE_IDLE markers being coalesced: marker slot, or -1 */
    int64_t idle_slot;
    int yield;              /* a TIMESTAMP marker was added: dmt_next returns 2 */
    /* physical addresses */
    ct_map v2p;    /* virtual page -> physical page */
    uint64_t prior_phys, page_size;
    char mname[80];         /* the member's name for messages, cut to 64 bytes */
} dmt;

/* ---- little-endian loads ---------------------------------------------------- */

FORCE_INLINE uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

FORCE_INLINE uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

FORCE_INLINE uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* ---- recognising files ------------------------------------------------------- */

/* A record type that may follow the HEADER. */
static int after_header(uint16_t type)
{
    return type == T_MARKER || type == T_THREAD || type == T_PID;
}

/* 12 or 8 for a final trace head, 0 otherwise; *plausible set to 1 when
 * the version is one a trace could have (1..255; others are read so that
 * the version can be refused by number). */
static unsigned record_width(const uint8_t *h, size_t n, int *plausible)
{
    *plausible = 0;
    if (n < 12 || rd16(h) != T_HEADER || rd16(h + 2) != 0)
        return 0;
    /* a version that does not fit 32 bits leaves 8-byte records no
     * room: bytes 8..9 are then not a record type */
    if (n >= 16 && after_header(rd16(h + 12)) && !after_header(rd16(h + 8))) {
        uint64_t v = rd64(h + 4);
        *plausible = v >= 1 && v <= 255;
        return 12;
    }
    if (after_header(rd16(h + 8))) {
        uint32_t v = rd32(h + 4);
        *plausible = v >= 1 && v <= 255;
        return 8;
    }
    return 0;
}

/* A raw (pre-raw2trace) file starts with an offline_entry_t of type
 * EXTENDED (6, top 3 bits) and extension HEADER (4, next 5 bits). */
static int is_raw(const uint8_t *h, size_t n)
{
    uint64_t v;
    if (n < 8)
        return 0;
    v = rd64(h);
    return (v >> 61) == 6 && ((v >> 56) & 0x1f) == 4 && ((v >> 48) & 0xff) >= 1;
}

/* 1 when the stream ends within its first 16 bytes and what it holds
 * begins like a HEADER record (type 25, size 0). */
static int cut_in_header(const uint8_t *h, size_t n)
{
    static const uint8_t head[4] = {T_HEADER, 0, 0, 0};
    return n > 0 && n < 16 && memcmp(h, head, n < 4 ? n : 4) == 0;
}

static int dmt_probe(const uint8_t *h, size_t n)
{
    int plausible;
    if (record_width(h, n, &plausible))
        return plausible ? 95 : 80;  /* open refuses an unknown version by number */
    if (is_raw(h, n))
        return 90;  /* claimed so that open can refuse it with a hint */
    if (cut_in_header(h, n))
        return 20;  /* a trace cut inside its first records: open says so */
    return 0;
}

static int is_side_file(const char *name)
{
    static const char *const exact[] = {"modules.log", "funclist.log", "v2p.textproto"};
    static const char *const prefix[] = {"encodings.bin", "serial_schedule.bin",
                                         "cpu_schedule.bin"};
    for (size_t i = 0; i < CT_ARRAY_LEN(exact); i++)
        if (strcmp(name, exact[i]) == 0)
            return 1;
    for (size_t i = 0; i < CT_ARRAY_LEN(prefix); i++)
        if (strncmp(name, prefix[i], strlen(prefix[i])) == 0)
            return 1;
    return 0;
}

/* out = a "/" b; 0, or -1 when it does not fit. */
static int join_path(char *out, size_t n, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la + 1 + lb + 1 > n)
        return -1;
    memcpy(out, a, la);
    out[la] = '/';
    memcpy(out + la + 1, b, lb + 1);
    return 0;
}

static int is_dir_path(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The directory holding the per-thread files: dir/trace when it exists. */
static void trace_dir(const char *dir, char *out, size_t n)
{
    char sub[PATH_MAX];
    if (join_path(sub, sizeof sub, dir, "trace") == 0 && is_dir_path(sub) && strlen(sub) < n)
        memcpy(out, sub, strlen(sub) + 1);
    else
        snprintf(out, n, "%s", dir);
}

/* What a file of a trace directory holds, by its first bytes (after
 * decompression). */
enum { F_OTHER, F_TRACE, F_RAW };

static int file_kind(const char *path)
{
    ct_bytes *in;
    ct_error err;
    int kind = F_TRACE;  /* what cannot be read is opened as a trace: its fault is reported */

    memset(&err, 0, sizeof err);
    if (ct_bytes_open_probe(&in, path, &err) != CT_OK)
        return F_TRACE;
    if (ct_bytes_fill(in, HEAD_SCAN, &err) >= 0 || ct_bytes_avail(in) > 0) {
        const uint8_t *h = ct_bytes_ptr(in);
        size_t n = ct_bytes_avail(in);
        int sc = dmt_probe(h, n);
        kind = is_raw(h, n) ? F_RAW : sc > 0 ? F_TRACE : F_OTHER;
    }
    ct_bytes_close(in);
    return kind;
}

static int dmt_probe_path(const char *path)
{
    char dir[PATH_MAX], full[PATH_MAX];
    DIR *d;
    struct dirent *e;
    int score = 0;

    if (!is_dir_path(path))
        return 0;
    trace_dir(path, dir, sizeof dir);
    d = opendir(dir);
    if (!d)
        return 0;
    /* by content: the first file that is a trace decides */
    while ((e = readdir(d)) != NULL && score < 70) {
        int kind;
        if (e->d_name[0] == '.' || is_side_file(e->d_name) ||
            join_path(full, sizeof full, dir, e->d_name) != 0 || is_dir_path(full))
            continue;
        kind = file_kind(full);
        if (kind == F_TRACE)
            score = 70;
        else if (kind == F_RAW)
            score = 60;  /* refused by list_dir with a hint */
    }
    closedir(d);
    if (!score) {
        char raw[PATH_MAX];
        if (join_path(raw, sizeof raw, path, "raw") == 0 && is_dir_path(raw))
            score = 60;  /* refused by list_dir with a hint */
    }
    return score;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int dmt_list_dir(const char *path, int (*fn)(void *ctx, const char *path, int trace),
                        void *ctx, ct_error *err)
{
    char dir[PATH_MAX], full[PATH_MAX];
    DIR *d;
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0, windows = 0;
    int rc = CT_OK;

    trace_dir(path, dir, sizeof dir);
    d = opendir(dir);
    if (!d)
        return ct_error_set(err, CT_E_IO, "%s: cannot list the directory", dir);
    while ((e = readdir(d)) != NULL && rc == CT_OK) {
        if (e->d_name[0] == '.' || is_side_file(e->d_name))
            continue;
        if (join_path(full, sizeof full, dir, e->d_name) != 0)
            continue;
        if (is_dir_path(full)) {
            if (strncmp(e->d_name, "window.", 7) == 0)
                windows++;
            continue;
        }
        switch (file_kind(full)) {
        case F_RAW:
            rc = ct_error_set(err, CT_E_UNSUPPORTED,
                              "%s: raw drmemtrace file (not post-processed): run raw2trace "
                              "on its directory first", full);
            continue;
        case F_OTHER:
            (void)fn(ctx, full, 0);  /* counted, not read */
            continue;
        default:
            break;
        }
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 32;
            char **v = realloc(names, nc * sizeof *v);
            if (!v) {
                rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
                break;
            }
            names = v;
            cap = nc;
        }
        names[n] = strdup(e->d_name);
        if (!names[n]) {
            rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
            break;
        }
        n++;
    }
    closedir(d);
    if (rc == CT_OK && n == 0 && windows > 0)
        rc = ct_error_set(err, CT_E_UNSUPPORTED,
                          "%s: a multi-window trace (%zu window.NNNN directories): give one "
                          "window directory, e.g. %s/window.0000", dir, windows, dir);
    if (rc == CT_OK && n == 0) {
        char raw[PATH_MAX];
        if (join_path(raw, sizeof raw, path, "raw") == 0 && is_dir_path(raw))
            rc = ct_error_set(err, CT_E_UNSUPPORTED,
                              "%s: holds only raw drmemtrace files (raw/): run raw2trace "
                              "first", path);
    }
    if (rc == CT_OK && n > 1) /* qsort wants a valid array even for no element */
        qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        if (rc == CT_OK) {
            if (join_path(full, sizeof full, dir, names[i]) != 0)
                rc = ct_error_set(err, CT_E_IO, "%s: path too long", names[i]);
            else if (fn(ctx, full, 1) != 0)
                rc = err->code ? err->code : CT_E_INTERNAL;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

/* ---- diagnostics ----------------------------------------------------------- */

/* The member's name for a message: its first 64 bytes (a name can be as
 * long as 64 KiB, which would push the position out of the message). */
static const char *member_name(dmt *d)
{
    const char *name = "?";
    (void)ct_zip_member(d->in, d->member, &name, NULL);
    if (strlen(name) <= 64)
        return name;
    snprintf(d->mname, sizeof d->mname, "%.64s...", name);
    return d->mname;
}

/* Fill err for the record at stream offset `off` whose index is `rec`;
 * returns code. */
static int fail_at(dmt *d, ct_error *err, uint64_t off, uint64_t rec, int code,
                   const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

static int fail_at(dmt *d, ct_error *err, uint64_t off, uint64_t rec, int code,
                   const char *fmt, ...)
{
    char why[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (d->zip && d->member_open)
        return ct_error_set(err, code, "%s:%s: byte %llu, record %llu (record %llu of the file): %s",
                            d->s->path, member_name(d), (unsigned long long)(off - d->mstart),
                            (unsigned long long)(rec - d->mrec0), (unsigned long long)rec, why);
    return ct_error_set(err, code, "%s: byte %llu, record %llu: %s", d->s->path,
                        (unsigned long long)off, (unsigned long long)rec, why);
}

/* A malformed record: strict mode returns the error, lenient mode counts it
 * under `reason` and returns CT_OK (or CT_E_LIMIT past max_errors). */
#define MALFORMED(d, err, off, rec, reason, ...)                                    \
    (fail_at((d), (err), (off), (rec), CT_E_FORMAT, __VA_ARGS__),                   \
     ct_stream_malformed((d)->s, (err), (reason)))

/* ---- opening ------------------------------------------------------------------ */

/* The thread id accesses carry: the low 32 bits of the trace's, or the
 * stream number + 1 when those are 0 (the reader's rule for streams that
 * name no thread). */
static uint32_t thread_of(const dmt *d, uint64_t tid)
{
    return (uint32_t)tid ? (uint32_t)tid : d->s->index + 1;
}

static int dmt_open(void **st, ct_stream *s, ct_error *err)
{
    dmt *d;
    ssize_t n = ct_bytes_fill(s->in, HEAD_SCAN, err);
    const uint8_t *h;
    unsigned rs;
    int plausible;

    {
        /* after a fault, the head (the bytes held back included) still
         * tells the record width; the fault is reported by dmt_next */
        size_t head;
        h = ct_bytes_head(s->in, &head);
        if (n < 0 && head == 0)
            return (int)n;
        if (n < 0)
            memset(err, 0, sizeof *err);
        n = (ssize_t)head;
    }
    if (is_raw(h, (size_t)n))
        return ct_error_set(err, CT_E_UNSUPPORTED,
                            "%s: raw drmemtrace file (offline_entry_t records, not "
                            "post-processed): run raw2trace on its directory first", s->path);
    rs = record_width(h, (size_t)n, &plausible);
    if (!rs && ct_bytes_fault(s->in)) {  /* damaged from the start */
        *err = *ct_bytes_fault(s->in);
        return err->code;
    }
    if (!rs && cut_in_header(h, (size_t)n))
        return ct_error_set(err, CT_E_FORMAT,
                            "%s: byte 0, record 0: truncated: the file ends after %zd bytes, "
                            "inside the HEADER record or the record after it", s->path, n);
    if (!rs)
        return ct_error_set(err, CT_E_FORMAT,
                            "%s: byte 0, record 0: not a drmemtrace trace (record 0 is not a "
                            "HEADER record)", s->path);
    d = calloc(1, sizeof *d);
    if (!d)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", s->path);
    d->s = s;
    d->in = s->in;
    d->rs = rs;
    d->cpu = CPU_UNKNOWN;
    d->thread = thread_of(d, 0);
    d->zip = s->in->ops == &ct_source_zip;
    d->nmembers = ct_zip_members(s->in);
    /* the thread id, for markers that precede the THREAD record */
    for (size_t off = rs; off + rs <= (size_t)n; off += rs) {
        uint16_t t = rd16(h + off);
        if (t == T_THREAD) {
            d->tid = rs == 12 ? rd64(h + off + 4) : rd32(h + off + 4);
            d->thread = thread_of(d, d->tid);
        }
        if (t != T_MARKER && t != T_THREAD)
            break;
    }
    *st = d;
    return CT_OK;
}

static void dmt_close(void *st)
{
    dmt *d = st;
    if (!d)
        return;
    ct_map_free(&d->v2p);
    free(d);
}

/* ---- per-thread state ------------------------------------------------------------ */

static void remember_cpu(dmt *d)
{
    uint32_t i;
    for (i = 0; i < d->ncpu; i++)
        if (d->cpu_tid[i] == d->tid)
            break;
    if (i == d->ncpu) {
        if (d->ncpu < CPU_SLOTS)
            d->ncpu++;
        else
            i = (uint32_t)(d->tid % CPU_SLOTS);  /* forget one */
    }
    d->cpu_tid[i] = d->tid;
    d->cpu_val[i] = d->cpu;
}

static void switch_thread(dmt *d, uint64_t tid)
{
    remember_cpu(d);
    d->tid = tid;
    d->thread = thread_of(d, tid);
    d->cpu = CPU_UNKNOWN;
    for (uint32_t i = 0; i < d->ncpu; i++)
        if (d->cpu_tid[i] == tid)
            d->cpu = d->cpu_val[i];
}

static int skip_pending(const dmt *d)
{
    for (uint32_t i = 0; i < d->nskip; i++)
        if (d->skip_tid[i] == d->tid)
            return 1;
    return 0;
}

static void skip_set(dmt *d, int on)
{
    for (uint32_t i = 0; i < d->nskip; i++)
        if (d->skip_tid[i] == d->tid) {
            if (!on)
                d->skip_tid[i] = d->skip_tid[--d->nskip];
            return;
        }
    if (on && d->nskip < SKIP_SLOTS)
        d->skip_tid[d->nskip++] = d->tid;
}

/* ---- physical addresses ---------------------------------------------------------- */

static NOINLINE void translate(const dmt *d, ct_access *a)
{
    uint64_t ps = d->page_size ? d->page_size : 4096;
    const uint64_t *ppage = ct_map_find(&d->v2p, a->vaddr & ~(ps - 1));
    if (ppage) {
        a->paddr = *ppage | (a->vaddr & (ps - 1));
        a->flags |= CT_F_PADDR;
    }
}

/* ---- decoding ---------------------------------------------------------------------- */

FORCE_INLINE void emit(dmt *d, ct_batch *b, int kind, uint64_t addr, uint32_t size, uint8_t op,
                       uint64_t rec)
{
    ct_access *a = &b->acc[b->n++];
    a->vaddr = addr;
    a->paddr = 0;
    a->pc = d->pc;
    a->time = rec;
    a->size = size;
    a->thread = d->thread;
    a->cpu = d->cpu;
    a->core = 0;
    a->kind = (uint8_t)kind;
    a->op = op;
    /* a no-fetch instruction is a repeat: a rep-string iteration */
    a->flags = kind == CT_NOFETCH ? CT_F_REPEAT : 0;
    if (UNLIKELY(ct_map_count(&d->v2p) != 0))
        translate(d, a);
}

static ct_marker *mark(dmt *d, ct_batch *b, int type)
{
    ct_marker *m = &b->mk[b->nmk++];
    m->index = b->n;
    m->type = (uint16_t)type;
    m->cpu = d->cpu;
    m->thread = d->thread;
    m->aux = 0;
    m->time = d->last_ts;
    m->value = 0;
    m->value2 = 0;
    return m;
}

static int fetch_instr(dmt *d, ct_batch *b, int kind, uint64_t pc, uint32_t size, uint64_t off,
                       uint64_t rec, ct_error *err)
{
    int rc = CT_OK;
    if (size == 0) {  /* only the pc of the data records that follow */
        d->pc = pc;
        return CT_OK;
    }
    if (UNLIKELY(d->enc_bytes != 0)) {
        if (d->enc_bytes != size && !d->regdeps)
            rc = MALFORMED(d, err, off, rec, "encoding size differs from instruction size",
                           "encoding of %u bytes for an instruction of %u bytes", d->enc_bytes,
                           size);
        d->enc_bytes = 0;
        if (rc)
            return rc;
    }
    d->pc = pc;
    d->next_pc = pc + size;
    d->prev_instr_pc = pc;
    d->have_instr = 1;
    emit(d, b, kind, pc, size, 0, rec);
    return CT_OK;
}

/* FILETYPE: what the reader must refuse. */
static int check_filetype(dmt *d, uint64_t ft, uint64_t off, uint64_t rec, ct_error *err)
{
    d->filetype = ft;
    d->regdeps = (ft & FT_ARCH_REGDEPS) != 0;
    if (ft & FT_KERNEL_SYSCALL_TRACE_TEMPLATES)
        return fail_at(d, err, off, rec, CT_E_UNSUPPORTED,
                       "file type 0x%llx: a library of kernel system-call templates, not a "
                       "workload trace", (unsigned long long)ft);
    if (d->rs == 12 && (ft & (FT_ARCH_X86_32 | FT_ARCH_ARM32)))
        return fail_at(d, err, off, rec, CT_E_FORMAT,
                       "file type 0x%llx names a 32-bit architecture but the records are "
                       "12 bytes wide", (unsigned long long)ft);
    if (d->rs == 8 && (ft & (FT_ARCH_X86_64 | FT_ARCH_AARCH64)))
        return fail_at(d, err, off, rec, CT_E_FORMAT,
                       "file type 0x%llx names a 64-bit architecture but the records are "
                       "8 bytes wide", (unsigned long long)ft);
    return CT_OK;
}

static NOINLINE int do_marker(dmt *d, ct_batch *b, uint16_t mt, uint64_t v, uint64_t off,
                              uint64_t rec, ct_error *err)
{
    ct_marker *m;
    char what[64], where[64];

    switch (mt) {
    case M_TIMESTAMP:
        if (d->chunk_instr_count && skip_pending(d))
            return CT_OK;  /* the chunk-start copy of the last timestamp */
        d->last_ts = v;
        m = mark(d, b, CT_MK_TIMESTAMP);
        m->time = v;
        m->value = v;
        d->yield = d->s->yield_at_timestamp;
        return CT_OK;
    case M_CPU_ID:
        if (d->chunk_instr_count && skip_pending(d)) {
            skip_set(d, 0);
            return CT_OK;
        }
        d->cpu = (int32_t)(uint32_t)v < 0 ? CPU_UNKNOWN
                 : v >= CPU_UNKNOWN     ? (uint16_t)(CPU_UNKNOWN - 1)
                                        : (uint16_t)v;
        m = mark(d, b, CT_MK_CPU);
        m->value = v;
        return CT_OK;
    case M_KERNEL_EVENT:
    case M_KERNEL_XFER:
        m = mark(d, b, CT_MK_KERNEL);
        m->value = v;
        m->aux = mt;
        return CT_OK;
    case M_FILETYPE:
        return check_filetype(d, v, off, rec, err);
    case M_CACHE_LINE_SIZE:
        mark(d, b, CT_MK_LINE_SIZE)->value = v;
        return CT_OK;
    case M_PAGE_SIZE:
        if (v && (v & (v - 1)) == 0)
            d->page_size = v;
        mark(d, b, CT_MK_PAGE_SIZE)->value = v;
        return CT_OK;
    case M_VERSION:
        if (v != d->version) {
            snprintf(where, sizeof where, "record %llu", (unsigned long long)rec);
            ct_stream_warn(d->s, "VERSION marker differs from the HEADER version", where);
        }
        return CT_OK;
    case M_CHUNK_INSTR_COUNT:
        d->chunk_instr_count = v;
        return CT_OK;
    case M_CHUNK_FOOTER:
        skip_set(d, 1);
        return CT_OK;
    case M_PHYSICAL_ADDRESS:
        d->prior_phys = v;
        return CT_OK;
    case M_VIRTUAL_ADDRESS:
    case M_PHYSICAL_ADDRESS_NOT_AVAILABLE: {
        uint64_t ps = d->page_size ? d->page_size : 4096;
        uint64_t phys = mt == M_VIRTUAL_ADDRESS ? d->prior_phys : (v & 0xfffffffull);
        int added;
        uint64_t *ppage = ct_map_put(&d->v2p, v & ~(ps - 1), &added);
        if (!ppage)
            return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", d->s->path);
        *ppage = phys & ~(ps - 1);
        return CT_OK;
    }
    case M_CORE_IDLE:
        if (b->nmk && b->mk[b->nmk - 1].type == CT_MK_IDLE && b->mk[b->nmk - 1].index == b->n) {
            b->mk[b->nmk - 1].value2++;
            return CT_OK;
        }
        mark(d, b, CT_MK_IDLE)->value2 = 1;
        return CT_OK;
    default:
        if (mt < M_KNOWN_END)
            return CT_OK;  /* known, nothing to simulate */
        if (mt < M_RESERVED_END)
            snprintf(what, sizeof what, "drmemtrace marker type %u (unknown)", mt);
        else
            snprintf(what, sizeof what, "drmemtrace user-defined marker (type >= 100)");
        snprintf(where, sizeof where, "%s record %llu", d->s->path, (unsigned long long)rec);
        ct_stream_warn(d->s, what, where);
        return CT_OK;
    }
}

/* Records that are not plain accesses, in any state after the header. */
static NOINLINE int do_other(dmt *d, ct_batch *b, uint16_t type, uint16_t size, const uint8_t *p,
                             uint64_t addr, uint64_t off, uint64_t rec, ct_error *err)
{
    switch (type) {
    case T_MARKER:
        return do_marker(d, b, size, addr, off, rec, err);
    case T_THREAD:
        if (addr != d->tid || d->state != ST_BODY) {
            switch_thread(d, addr);
            mark(d, b, CT_MK_THREAD);
        }
        return CT_OK;
    case T_PID:
        d->pid = addr;
        return CT_OK;
    case T_THREAD_EXIT:
        if (addr != d->tid)
            switch_thread(d, addr);
        mark(d, b, CT_MK_THREAD_EXIT);
        return CT_OK;
    case T_HEADER:
    case T_FOOTER:
        return CT_OK;  /* concatenated traces */
    case T_ENCODING:
        if (size > d->rs - 4 || d->enc_bytes + size > MAX_ENCODING) {
            d->enc_bytes = 0;
            return MALFORMED(d, err, off, rec, "encoding longer than 15 bytes",
                             "instruction encoding longer than %d bytes", MAX_ENCODING);
        }
        d->enc_bytes += size;
        return CT_OK;
    case T_INSTR_MAYBE_FETCH:
        return fetch_instr(d, b, addr == d->prev_instr_pc ? CT_NOFETCH : CT_IFETCH, addr, size,
                           off, rec, err);
    case T_INSTR_BUNDLE:
        if (!d->have_instr)
            return MALFORMED(d, err, off, rec, "instruction bundle without an instruction",
                             "INSTR_BUNDLE with no instruction before it");
        if (size > d->rs - 4)
            return MALFORMED(d, err, off, rec, "instruction bundle too long",
                             "INSTR_BUNDLE of %u instructions (at most %u)", size, d->rs - 4);
        for (unsigned i = 0; i < size; i++) {
            uint32_t len = p[4 + i];
            d->pc = d->next_pc;
            d->next_pc += len;
            emit(d, b, CT_IFETCH, d->pc, len, 0, rec);
        }
        return CT_OK;
    case T_INSTR_FLUSH:
    case T_DATA_FLUSH:
        if (size == 0) {
            d->flush_type = type;
            d->flush_addr = addr;
            return CT_OK;
        }
        emit(d, b, CT_CACHEOP, addr, size,
             (uint8_t)(CT_OP_CLEAN_INVAL | (type == T_INSTR_FLUSH ? CT_OP_ISIDE : 0)), rec);
        return CT_OK;
    case T_INSTR_FLUSH_END:
    case T_DATA_FLUSH_END:
        if (d->flush_type != type - 1 || addr < d->flush_addr)
            return MALFORMED(d, err, off, rec, "flush end without its flush",
                             "%s_FLUSH_END without a matching %s_FLUSH of size 0",
                             type == T_INSTR_FLUSH_END ? "INSTR" : "DATA",
                             type == T_INSTR_FLUSH_END ? "INSTR" : "DATA");
        d->flush_type = 0;
        if (addr - d->flush_addr <= UINT32_MAX) {
            emit(d, b, CT_CACHEOP, d->flush_addr, (uint32_t)(addr - d->flush_addr),
                 (uint8_t)(CT_OP_CLEAN_INVAL | (type == T_INSTR_FLUSH_END ? CT_OP_ISIDE : 0)),
                 rec);
        } else {  /* 4 GiB or more: the length goes in pc (CT_OP_LONG) */
            emit(d, b, CT_CACHEOP, d->flush_addr, 0,
                 (uint8_t)(CT_OP_CLEAN_INVAL | CT_OP_LONG |
                           (type == T_INSTR_FLUSH_END ? CT_OP_ISIDE : 0)),
                 rec);
            b->acc[b->n - 1].pc = addr - d->flush_addr;
            b->acc[b->n - 1].flags |= CT_F_NOPC;
        }
        return CT_OK;
    default:
        return MALFORMED(d, err, off, rec, "unknown record type", "unknown record type %u",
                         type);
    }
}

/* The header records: HEADER, then markers, THREAD and PID until PID. */
static NOINLINE int do_header(dmt *d, ct_batch *b, uint16_t type, uint16_t size,
                              const uint8_t *p, uint64_t addr, uint64_t off, uint64_t rec,
                              ct_error *err)
{
    if (d->state == ST_HEADER) {
        /* open() checked the type; the version is checked here */
        d->version = addr;
        if (addr < 1 || addr > DMT_MAX_VERSION)
            return fail_at(d, err, off, rec, CT_E_UNSUPPORTED,
                           "unsupported trace version %llu (this reader knows versions 1 "
                           "to %d)", (unsigned long long)addr, DMT_MAX_VERSION);
        d->state = ST_PRE_PID;
        return CT_OK;
    }
    if (type != T_MARKER && type != T_THREAD && type != T_PID)
        return fail_at(d, err, off, rec, CT_E_FORMAT,
                       "record type %u before the thread's PID record (only markers, THREAD "
                       "and PID may come first)", type);
    if (type == T_PID)
        d->state = ST_BODY;
    return do_other(d, b, type, size, p, addr, off, rec, err);
}

/* How body_run takes a record, by type: the access kind of loads, stores
 * and prefetches (never 0), with a prefetch's hint (CT_PF_*) above it,
 * KIND_OP(kind, hint); FK_INSTR | kind for instructions; FK_ENCODING; 0 for
 * any other type (other_record takes it). */
enum { FK_INSTR = 0x40, FK_ENCODING = 0x80 };
#define KIND_OP(k, op) ((k) | (op) << 8)
#define L(n) ((n) << CT_PF_LEVEL_SHIFT)
#define PF(hint) KIND_OP(CT_PREFETCH, hint)
static const uint16_t fast_kind[64] = {
    [T_READ] = CT_LOAD, [T_WRITE] = CT_STORE,
    [T_INSTR] = FK_INSTR | CT_IFETCH, [T_INSTR_DIRECT_JUMP] = FK_INSTR | CT_IFETCH,
    [T_INSTR_INDIRECT_JUMP] = FK_INSTR | CT_IFETCH,
    [T_INSTR_CONDITIONAL_JUMP] = FK_INSTR | CT_IFETCH, [T_INSTR_DIRECT_CALL] = FK_INSTR | CT_IFETCH,
    [T_INSTR_INDIRECT_CALL] = FK_INSTR | CT_IFETCH, [T_INSTR_RETURN] = FK_INSTR | CT_IFETCH,
    [T_INSTR_SYSENTER] = FK_INSTR | CT_IFETCH, [T_INSTR_TAKEN_JUMP] = FK_INSTR | CT_IFETCH,
    [T_INSTR_UNTAKEN_JUMP] = FK_INSTR | CT_IFETCH, [T_INSTR_NO_FETCH] = FK_INSTR | CT_NOFETCH,
    [T_ENCODING] = FK_ENCODING,
    [T_PREFETCH] = PF(0), [T_PREFETCH_READ] = PF(0), [T_HARDWARE_PREFETCH] = PF(0),
    [T_PREFETCHT0] = PF(L(1)), [T_PREFETCHT1] = PF(L(2)), [T_PREFETCHT2] = PF(L(3)),
    [T_PREFETCHNTA] = PF(CT_PF_NT), [T_PREFETCH_WRITE] = PF(CT_PF_WRITE),
    [T_PREFETCH_INSTR] = PF(CT_PF_INSTR),
    [T_PREFETCH_READ_L1_NT] = PF(L(1) | CT_PF_NT), [T_PREFETCH_READ_L2_NT] = PF(L(2) | CT_PF_NT),
    [T_PREFETCH_READ_L3_NT] = PF(L(3) | CT_PF_NT),
    [T_PREFETCH_INSTR_L1] = PF(CT_PF_INSTR | L(1)),
    [T_PREFETCH_INSTR_L1_NT] = PF(CT_PF_INSTR | L(1) | CT_PF_NT),
    [T_PREFETCH_INSTR_L2] = PF(CT_PF_INSTR | L(2)),
    [T_PREFETCH_INSTR_L2_NT] = PF(CT_PF_INSTR | L(2) | CT_PF_NT),
    [T_PREFETCH_INSTR_L3] = PF(CT_PF_INSTR | L(3)),
    [T_PREFETCH_INSTR_L3_NT] = PF(CT_PF_INSTR | L(3) | CT_PF_NT),
    [T_PREFETCH_WRITE_L1] = PF(CT_PF_WRITE | L(1)),
    [T_PREFETCH_WRITE_L1_NT] = PF(CT_PF_WRITE | L(1) | CT_PF_NT),
    [T_PREFETCH_WRITE_L2] = PF(CT_PF_WRITE | L(2)),
    [T_PREFETCH_WRITE_L2_NT] = PF(CT_PF_WRITE | L(2) | CT_PF_NT),
    [T_PREFETCH_WRITE_L3] = PF(CT_PF_WRITE | L(3)),
    [T_PREFETCH_WRITE_L3_NT] = PF(CT_PF_WRITE | L(3) | CT_PF_NT),
};
#undef PF
#undef L
_Static_assert(CT_LOAD != 0 && CT_STORE != 0 && CT_PREFETCH != 0 &&
                   (int)CT_KIND_STREAM <= (int)FK_INSTR && T_COUNT <= 64,
               "fast_kind keeps 0 for other types and kinds below FK_INSTR");

_Static_assert(offsetof(ct_access, thread) == offsetof(ct_access, size) + 4 &&
                   offsetof(ct_access, cpu) == offsetof(ct_access, size) + 8 &&
                   offsetof(ct_access, core) == offsetof(ct_access, cpu) + 2 &&
                   offsetof(ct_access, kind) == offsetof(ct_access, cpu) + 4 &&
                   offsetof(ct_access, op) == offsetof(ct_access, cpu) + 5 &&
                   offsetof(ct_access, flags) == offsetof(ct_access, cpu) + 6 &&
                   sizeof(ct_access) == offsetof(ct_access, cpu) + 8,
               "body_run writes ct_access as words in this layout");

/*
 * The records of a thread's body that are accesses (loads, stores,
 * prefetches, fetched and no-fetch instructions of non-zero size) and short
 * encodings, decoded with the decoder's state in locals, for records of rs
 * bytes, translated when phys (constants in each copy). Stops at the first other record or when
 * the batch is nearly full; returns how many records it consumed.
 */
FORCE_INLINE uint64_t body_run(dmt *d, const uint8_t *p, uint64_t n, uint64_t rec,
                               ct_batch *b, const unsigned rs, const int phys)
{
    ct_access *o = b->acc + b->n;
    ct_access *const olim = b->acc + (b->cap - MAX_PER_RECORD);
    const uint8_t *const p0 = p, *const pend = p + n * rs;
    const uint64_t who = (uint64_t)d->thread << 32;  /* size | thread << 32 */
    const uint64_t where = d->cpu;                    /* cpu, core 0, kind, op, flags 0 */
    uint32_t enc = d->enc_bytes;
    uint64_t pc = d->pc, next_pc = d->next_pc, prev = d->prev_instr_pc;
    int have = d->have_instr;

    for (; p < pend && o <= olim; p += rs, rec++) {
        const uint16_t type = rd16(p), size = rd16(p + 2);
        const uint64_t addr = rs == 12 ? rd64(p + 4) : rd32(p + 4);
        const unsigned f = type < 64 ? fast_kind[type] : 0;
        uint64_t kind = f;  /* with the hint above it */

        if (f == 0)
            break;
        if ((f & 0xff) >= FK_INSTR) {
            if (f == FK_ENCODING) {
                if (size > rs - 4 || enc + size > MAX_ENCODING)
                    break;
                enc += size;
                continue;
            }
            if (size == 0 || enc != 0)
                break;
            kind = f & ~(unsigned)FK_INSTR;
            pc = addr;
            next_pc = addr + size;
            prev = addr;
            have = 1;
        }
        /* the access, as whole words: fields past size are thread, then
         * cpu, core, kind, op and flags (access.h's layout) */
        o->vaddr = addr;
        o->paddr = 0;
        o->pc = pc;
        o->time = rec;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        {
            const uint64_t w4 = size | who,
                           w5 = where | kind << 32 |
                                (uint64_t)(kind == CT_NOFETCH) * CT_F_REPEAT << 48;
            memcpy(&o->size, &w4, sizeof w4);
            memcpy(&o->cpu, &w5, sizeof w5);
        }
#else
        o->size = size;
        o->thread = (uint32_t)(who >> 32);
        o->cpu = (uint16_t)where;
        o->core = 0;
        o->kind = (uint8_t)kind;
        o->op = (uint8_t)(kind >> 8);
        o->flags = kind == CT_NOFETCH ? CT_F_REPEAT : 0;
#endif
        if (UNLIKELY(phys))
            translate(d, o);
        o++;
    }
    if (p > p0) {  /* the last record consumed */
        d->last_type = rd16(p - rs);
        d->last_size = rd16(p - rs + 2);
    }
    b->n = (uint32_t)(o - b->acc);
    d->enc_bytes = enc;
    d->pc = pc;
    d->next_pc = next_pc;
    d->prev_instr_pc = prev;
    d->have_instr = have;
    return (uint64_t)(p - p0) / rs;
}

/* One record body_run does not take: a header record, a marker or another
 * record that is no access, an instruction of size 0 or after an encoding,
 * an encoding too long. */
static NOINLINE int other_record(dmt *d, const uint8_t *p, uint64_t off, uint64_t rec,
                                 ct_batch *b, ct_error *err)
{
    const uint16_t type = rd16(p), size = rd16(p + 2);
    const uint64_t addr = d->rs == 12 ? rd64(p + 4) : rd32(p + 4);
    const unsigned f = type < 64 ? fast_kind[type] : 0;

    d->last_type = type;
    d->last_size = size;
    if (d->state != ST_BODY)
        return do_header(d, b, type, size, p, addr, off, rec, err);
    if ((f & 0xff) >= FK_INSTR && f != FK_ENCODING)
        return fetch_instr(d, b, (int)(f & ~(unsigned)FK_INSTR), addr, size, off, rec, err);
    return do_other(d, b, type, size, p, addr, off, rec, err);
}

/*
 * Decode up to n whole records of rs bytes at p (stream offset off0),
 * stopping early when the batch is full or after a record that asks to
 * yield. Returns the number of records consumed, or a negative code.
 */
FORCE_INLINE int64_t decode_rs(dmt *d, const uint8_t *p, uint64_t n, uint64_t off0,
                               ct_batch *b, ct_error *err, const unsigned rs)
{
    uint64_t i = 0, rec = d->rec;
    int rc = CT_OK;

    while (i < n) {
        if (UNLIKELY(b->n + MAX_PER_RECORD > b->cap || b->nmk + MAX_PER_RECORD > b->mkcap))
            break;  /* decoders add no events */
        if (LIKELY(d->state == ST_BODY)) {
            uint64_t k = ct_map_count(&d->v2p) == 0 ? body_run(d, p + i * rs, n - i, rec, b, rs, 0)
                                                    : body_run(d, p + i * rs, n - i, rec, b, rs, 1);
            i += k;
            rec += k;
            if (i >= n || b->n + MAX_PER_RECORD > b->cap)
                break;
        }
        if ((rc = other_record(d, p + i * rs, off0 + i * rs, rec, b, err)) != CT_OK)
            break;
        i++;
        rec++;
        if (UNLIKELY(d->yield))
            break;
    }
    d->rec = rec;
    d->s->info->records += i;
    return rc ? rc : (int64_t)i;
}

static int64_t decode(dmt *d, const uint8_t *p, uint64_t n, uint64_t off0, ct_batch *b,
                      ct_error *err)
{
    return d->rs == 12 ? decode_rs(d, p, n, off0, b, err, 12)
                       : decode_rs(d, p, n, off0, b, err, 8);
}

/* ---- zip members ------------------------------------------------------------------ */

static int chunk_name(const char *name)
{
    if (strncmp(name, "chunk.", 6) != 0 || !name[6])
        return 0;
    for (const char *q = name + 6; *q; q++)
        if (*q < '0' || *q > '9')
            return 0;
    return 1;
}

/* Skip the rest of the current member (lenient resynchronisation). */
static int skip_member_rest(dmt *d, ct_error *err)
{
    while (ct_bytes_offset(d->in) < d->mend) {
        ssize_t avail = ct_bytes_fill(d->in, 1u << 16, err);
        uint64_t left = d->mend - ct_bytes_offset(d->in);
        if (avail < 0)
            return (int)avail;
        if (avail == 0)
            return ct_error_set(err, CT_E_FORMAT, "%s:%s: archive ends inside the member",
                                d->s->path, member_name(d));
        ct_bytes_skip(d->in, (size_t)avail < left ? (size_t)avail : (size_t)left);
    }
    d->last_type = T_FOOTER;  /* already reported */
    return CT_OK;
}

/* The stream ended after whole records: it must have ended with the
 * FOOTER record. 0, or a negative code. */
static int at_end(dmt *d, ct_error *err)
{
    int rc;
    if (d->last_type == T_FOOTER)
        return 0;
    rc = MALFORMED(d, err, ct_bytes_offset(d->in), d->rec, "trace without its FOOTER (truncated)",
                   "truncated: no footer (the %s ends without the FOOTER record that ends "
                   "every trace%s)", d->zip ? "archive's last member" : "trace",
                   d->zip ? ": chunks are missing or the last one was cut" : "");
    d->last_type = T_FOOTER;  /* reported once */
    return rc;
}

/* Open member d->member at the current offset. Returns 1 when it is open,
 * 0 when the archive has no more members, or a negative code. */
static int start_member(dmt *d, ct_error *err)
{
    const char *name;
    uint64_t size;
    int rc;

    if (d->member >= d->nmembers) {
        if (d->nmembers == 0)
            return ct_error_set(err, CT_E_FORMAT, "%s: zip archive without members", d->s->path);
        return at_end(d, err);
    }
    if (ct_zip_member(d->in, d->member, &name, &size) != 0)
        return ct_error_set(err, CT_E_FORMAT, "%s: zip member %llu: unreadable entry",
                            d->s->path, (unsigned long long)d->member);
    d->mstart = ct_bytes_offset(d->in);
    d->mend = d->mstart + size;
    d->mrec0 = d->rec;
    d->member_open = 1;
    d->last_type = UINT16_MAX;
    if (!chunk_name(name)) {
        rc = MALFORMED(d, err, d->mstart, d->rec, "zip member is not a trace chunk",
                       "zip member is not a trace chunk (chunk.<digits> expected)");
        if (rc)
            return rc;
        if ((rc = skip_member_rest(d, err)) != CT_OK)
            return rc;
    }
    return 1;
}

static int end_member(dmt *d, ct_error *err)
{
    int rc = CT_OK;
    if (!(d->last_type == T_FOOTER ||
          (d->last_type == T_MARKER && d->last_size == M_CHUNK_FOOTER)))
    {
        rc = MALFORMED(d, err, d->mend, d->rec, "chunk without CHUNK_FOOTER or FOOTER",
                       "chunk ends without a CHUNK_FOOTER or FOOTER record (truncated chunk)");
        d->last_type = T_FOOTER;  /* reported: not again as a trace without its footer */
    }
    d->member_open = 0;
    d->member++;
    return rc;
}

/* ---- the stream ------------------------------------------------------------------- */

static int truncated(dmt *d, uint64_t off, size_t have, ct_error *err)
{
    int rc = MALFORMED(d, err, off, d->rec, "truncated record",
                       "truncated record: %zu of %u bytes at the end of the %s", have, d->rs,
                       d->zip ? "member" : "file");
    if (rc)
        return rc;
    if (d->zip)
        return skip_member_rest(d, err);
    ct_bytes_skip(d->in, have);
    return CT_OK;
}

/* The byte source found a fault (a damaged compressed stream or zip
 * member, a read error) and every whole record before the read that met it
 * is decoded. The source's message says where in the compressed data and
 * why; this adds where the trace stops, in records, and where the damage
 * was found in the decompressed bytes. Strict mode, and any fault outside
 * a zip archive, end the stream; lenient mode counts a faulty zip member
 * under its kind and goes on with the next member. */
static NOINLINE int source_fault(dmt *d, ct_error *err)
{
    const ct_error *f = ct_bytes_fault(d->in);
    uint64_t off = ct_bytes_offset(d->in), at = d->in->fault_at, base = 0, rec0 = 0, member;
    const char *kind = d->zip ? ct_zip_fault(d->in, &member) : NULL;
    const char *what = d->zip && d->member_open ? "member" : "trace";
    char msg[sizeof err->msg], also[96] = "";
    int rc;

    if (!f)
        return ct_error_set(err, CT_E_INTERNAL, "%s: a byte source fault without a message",
                            d->s->path);
    rc = f->code;
    memcpy(msg, f->msg, sizeof msg);
    if (d->zip && d->member_open) {
        base = d->mstart;
        rec0 = d->mrec0;
        snprintf(also, sizeof also, " (record %llu of the file)", (unsigned long long)d->rec);
    }
    if (at != UINT64_MAX && at >= off + d->rs)
        ct_error_set(err, rc, "%s; the %s is read up to byte %llu, record %llu%s; the damage "
                     "shows at byte %llu, in record %llu", msg, what,
                     (unsigned long long)(off - base), (unsigned long long)(d->rec - rec0), also,
                     (unsigned long long)(at - base), (unsigned long long)((at - base) / d->rs));
    else
        ct_error_set(err, rc, "%s; the %s is read up to byte %llu, record %llu%s", msg, what,
                     (unsigned long long)(off - base), (unsigned long long)(d->rec - rec0),
                     also);
    if (!kind || !d->member_open || member != d->member || d->state != ST_BODY)
        return rc;  /* nothing to resume at, or no header to read the rest with */
    if ((rc = ct_stream_malformed(d->s, err, kind)) != CT_OK)
        return rc;
    if (ct_zip_skip_member(d->in) != 0)
        return ct_error_set(err, CT_E_INTERNAL, "%s: cannot skip a zip member", d->s->path);
    d->last_type = T_FOOTER;  /* already reported */
    return CT_OK;
}

/* 1 when the source's fault lies in a later zip member than the one being
 * decoded: reads never cross members, so this one's bytes are all
 * buffered and are decoded as usual. */
static int fault_later(const dmt *d)
{
    uint64_t member;
    return d->zip && ct_zip_fault(d->in, &member) && member > d->member;
}

/* At the end of a zip member: the zip layer checks a member's length and
 * CRC when it reads past its end, so read on (when nothing is buffered)
 * for a fault of this member to be this member's. 1 when it has one. */
static int member_checked(dmt *d, ct_error *err)
{
    uint64_t m;
    if (ct_bytes_avail(d->in) == 0 && !ct_bytes_fault(d->in))
        (void)ct_bytes_fill(d->in, 1, err);
    return ct_zip_fault(d->in, &m) && m == d->member;
}

static int dmt_next(void *st, ct_batch *b, ct_error *err)
{
    dmt *d = st;
    ct_bytes *in = d->in;
    const uint64_t start = ct_bytes_offset(in);

    while (ct_batch_room(b, MAX_PER_RECORD) && ct_bytes_offset(in) - start < CT_DECODE_SLICE) {
        uint64_t off = ct_bytes_offset(in);
        ssize_t avail;
        size_t limit;
        int64_t done;
        int rc;

        if (d->zip && (!d->member_open || off >= d->mend)) {
            if (d->member_open && member_checked(d, err)) {
                if ((rc = source_fault(d, err)) != CT_OK)
                    return rc;
                continue;
            }
            if (d->member_open && (rc = end_member(d, err)) != CT_OK)
                return rc;
            rc = start_member(d, err);
            if (rc <= 0)
                return rc;
            continue;
        }
        avail = ct_bytes_fill(in, 1u << 16, err);
        if (UNLIKELY(ct_bytes_fault(in) != NULL)) {
            if (fault_later(d)) {
                avail = (ssize_t)ct_bytes_avail(in);
            } else {
                /* what the read that met the fault produced is not decoded:
                 * a damaged stream may give garbage before the damage shows */
                avail = in->fault_from > off ? (ssize_t)(in->fault_from - off) : 0;
                if (avail > (ssize_t)ct_bytes_avail(in))
                    avail = (ssize_t)ct_bytes_avail(in);
                if (avail < (ssize_t)d->rs) {
                    if ((rc = source_fault(d, err)) != CT_OK)
                        return rc;
                    continue;
                }
            }
        } else if (avail < 0) {
            return (int)avail;
        }
        limit = (size_t)avail;
        if (d->zip && limit > d->mend - off)
            limit = (size_t)(d->mend - off);
        if (limit == 0) {
            if (d->zip)
                return ct_error_set(err, CT_E_FORMAT, "%s:%s: archive ends inside the member",
                                    d->s->path, member_name(d));
            return at_end(d, err);
        }
        if (limit < d->rs) {
            if ((rc = truncated(d, off, limit, err)) != CT_OK)
                return rc;
            if (!d->zip)
                return 0;
            continue;
        }
        done = decode(d, ct_bytes_ptr(in), limit / d->rs, off, b, err);
        if (done < 0) {
            /* a fatal fault keeps its position; a skipped record is consumed */
            return (int)done;
        }
        ct_bytes_skip(in, (size_t)done * d->rs);
        d->s->info->bytes += (uint64_t)done * d->rs;
        if (d->yield) {
            d->yield = 0;
            return 2;
        }
    }
    return 1;
}

const ct_format_ops ct_format_drmemtrace = {
    .name = "drmemtrace",
    .desc = "DynamoRIO drmemtrace offline traces (files, directories, zip/gz/zst/lz4/sz), "
            "versions 1-7",
    .max_per_record = MAX_PER_RECORD,
    .default_schedule = CT_SCHED_THREADS,
    .checked = 1,  /* sizes are 16-bit fields; every access gets a thread */
    .yields = 1,
    .probe = dmt_probe,
    .probe_path = dmt_probe_path,
    .list_dir = dmt_list_dir,
    .open = dmt_open, .next = dmt_next, .close = dmt_close,
};
