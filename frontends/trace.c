/*
 * trace.c - opening inputs, choosing formats, and scheduling streams onto
 * cores.
 *
 * Inputs and streams
 *   Every input path becomes one or more streams: a file or "-" is one
 *   stream; a directory is listed by the format that claims it (drmemtrace
 *   per-thread files); "gen:..." inputs are synthetic. All streams of one
 *   trace must have the same format.
 *
 * Format detection
 *   Forced by name ([trace] format or -f), else every format probes the
 *   first 4 KiB of the (decompressed) stream and the most confident wins;
 *   ties go to the format registered first. Nobody above 0 is an error.
 *
 * Scheduling (which simulated core runs each access)
 *   threads: each distinct thread id gets the next core in order of first
 *            appearance, modulo the number of cores;
 *   cpus:    each distinct traced cpu id gets the next core in order of
 *            first appearance, modulo the number of cores;
 *   single:  everything runs on core 0;
 *   auto:    the format's choice.
 *   Several streams take turns: with interleave = timestamp (or auto when a
 *   stream carries timestamp markers) the stream with the oldest pending
 *   timestamp runs until its next timestamp marker; with quantum, streams
 *   run in input order for `quantum` accesses each. A stream's thread id,
 *   when its records carry none, is its stream number + 1.
 *
 * Read-ahead
 *   With [trace] readahead = yes (the default) one thread decodes and
 *   schedules the next batches while the caller simulates the current
 *   one. Batches are handed over by exchanging array pointers, never
 *   copied; at most RA_SLOTS batches are decoded ahead. The records and
 *   their order are exactly those of reading without the thread.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../sim/compiler.h"
#include "../sim/config_internal.h"
#include "frontend.h"

#define PROBE_BYTES 4096
#define STREAM_BATCH 8192
#define MAP_MIN_SLOTS 64
#define RA_SLOTS 3

typedef struct stream_rt {
    ct_stream s;
    void *st;              /* decoder state */
    ct_batch b;            /* decoded, not yet scheduled (multi-stream only) */
    uint32_t ai, mi, ei;   /* read cursors into b */
    int done;
    int has_ts;            /* a timestamp marker is waiting at the cursor */
    uint64_t ts;
} stream_rt;

/* Open-addressing map from id (thread or cpu) to core; grows by doubling. */
typedef struct id_map {
    uint64_t *key;         /* id + 1, 0 = empty */
    uint32_t *val;
    uint32_t slots, used;
    uint32_t next_core;
} id_map;

struct ct_trace {
    const ct_format_ops *fmt;
    stream_rt *sv;
    uint32_t nstreams, cap;
    uint32_t cur;          /* stream running now (multi-stream) */
    uint64_t left;         /* accesses left in its quantum */
    int interleave;        /* enum ct_interleave, resolved */
    int schedule;          /* enum ct_schedule, resolved */
    uint32_t cores;
    uint64_t quantum;
    struct ct_config *own_cfg;
    const struct ct_config *cfg;
    ct_trace_info info;
    int lenient;
    uint64_t max_errors;
    id_map map;            /* id -> core */
    id_map threads;        /* distinct threads seen (for info.threads) */
    uint64_t last_thread, last_thread_core;
    uint16_t last_cpu, last_cpu_core;
    int have_last_thread, have_last_cpu;
    char **structures;     /* shared by all streams */
    uint32_t nstructures, capstructures;
    /* read-ahead */
    int ra_on;             /* configured */
    int ra_running;        /* the thread exists */
    pthread_t ra_thread;
    pthread_mutex_t ra_mu;
    pthread_cond_t ra_cv;
    struct ra_slot {
        ct_batch b;
        int rc;            /* what ct_trace_next would have returned */
        ct_error err;
        int full;
    } ra[RA_SLOTS];
    uint32_t ra_head, ra_tail;
    int ra_stop;
    ct_trace_info info_pub; /* snapshot the caller reads while the thread runs */
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
    if (s->info->malformed >= s->max_errors)
        return ct_error_set(err, CT_E_LIMIT,
                            "%s: %llu malformed records, giving up (the limit is [trace] "
                            "max_errors); the last: %s", s->path,
                            (unsigned long long)s->info->malformed, err->msg);
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
    *best_score = 0;
    for (size_t i = 0; ct_format_at(i); i++) {
        const ct_format_ops *f = ct_format_at(i);
        int sc = 0;
        if (in && f->probe)
            sc = f->probe(ct_bytes_ptr(in), ct_bytes_avail(in));
        else if (!in && f->probe_path)
            sc = f->probe_path(path);
        if (sc > *best_score) {
            *best_score = sc;
            best = f;
        }
    }
    return best;
}

static int add_stream_from(ct_trace *t, const char *path, ct_bytes *given, ct_error *err);

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
        stream_rt *v = realloc(t->sv, cap * sizeof *v);
        if (!v) {
            ct_bytes_close(given);
            return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
        }
        t->sv = v;
        t->cap = cap;
    }
    if (!synthetic && (!f || !f->no_bytes)) {
        if (!in) {
            rc = ct_bytes_open(&in, path, err);
            if (rc)
                return rc;
        }
        if (ct_bytes_fill(in, PROBE_BYTES, err) < 0) {
            ct_bytes_close(in);
            return err->code;
        }
    }
    if (!f) {
        f = detect(path, in, &score);
        if (!f) {
            int empty = in && ct_bytes_avail(in) == 0;
            ct_bytes_close(in);
            return ct_error_set(err, CT_E_FORMAT, "%s: %s", path,
                                empty ? "empty file: no trace records"
                                      : "unknown trace format (no format recognises the "
                                        "first bytes; force one with -f)");
        }
        t->fmt = f;
    } else if (synthetic != (f == &ct_format_gen)) {
        ct_bytes_close(in);
        return ct_error_set(err, CT_E_USAGE, "%s: cannot mix %s with %s inputs", path,
                            synthetic ? "synthetic" : t->fmt->name, t->fmt->name);
    }
    r = &t->sv[t->nstreams];
    memset(r, 0, sizeof *r);
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
        return rc;
    }
    t->nstreams++;
    return CT_OK;
}

typedef struct dir_ctx {
    ct_trace *t;
    ct_error *err;
    char **paths;
    size_t n, cap;
} dir_ctx;

static int collect_path(void *ctx, const char *path)
{
    dir_ctx *d = ctx;
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
        return ct_error_set(err, CT_E_IO, "%s: is a directory; the %s format reads files",
                            dir, f->name);
    }
    rc = f->list_dir(dir, collect_path, &d, err);
    if (!rc && d.n == 0)
        rc = ct_error_set(err, CT_E_FORMAT, "%s: directory holds no %s trace files", dir,
                          f->name);
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
    t->lenient = (opts && opts->strictness == CT_LENIENT) || t->cfg->lenient;
    t->max_errors = opts && opts->max_errors ? opts->max_errors : t->cfg->max_errors;
    t->cores = t->cfg->cores;
    t->quantum = t->cfg->quantum;
    force = opts && opts->format ? opts->format : (t->cfg->format[0] ? t->cfg->format : NULL);
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
    t->schedule = t->cfg->schedule == CT_SCHED_AUTO ? t->fmt->default_schedule
                                                    : t->cfg->schedule;
    t->interleave = t->cfg->interleave;
    if (t->nstreams > 1) {
        for (uint32_t i = 0; i < t->nstreams; i++)
            if (ct_batch_init(&t->sv[i].b, STREAM_BATCH) != CT_OK) {
                ct_trace_close(t);
                return ct_error_set(err, CT_E_NOMEM, "out of memory");
            }
    }
    t->left = t->quantum;
    t->ra_on = t->cfg->readahead;
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
    rc = ct_bytes_open_mem(&in, name, data, n, err);
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
static void map_free(id_map *m);

void ct_trace_close(ct_trace *t)
{
    path_store *ps;
    if (!t)
        return;
    ra_shutdown(t);
    for (int i = 0; i < RA_SLOTS; i++)
        ct_batch_free(&t->ra[i].b);
    for (uint32_t i = 0; i < t->nstreams; i++) {
        if (t->fmt && t->sv[i].st)
            t->fmt->close(t->sv[i].st);
        ct_bytes_close(t->sv[i].s.in);
        ct_batch_free(&t->sv[i].b);
    }
    free(t->sv);
    for (uint32_t i = 0; i < t->nstructures; i++)
        free(t->structures[i]);
    free(t->structures);
    map_free(&t->map);
    map_free(&t->threads);
    ct_config_free(t->own_cfg);
    ps = paths_of(t);
    for (size_t i = 0; i < ps->n; i++)
        free(ps->v[i]);
    free(ps->v);
    free((trace_block *)(void *)t);
}

const ct_trace_info *ct_trace_get_info(const ct_trace *t)
{
    ct_trace *mt = (ct_trace *)t;
    if (!t->ra_running)
        return &t->info;
    /* the decoding thread owns t->info; hand out its last snapshot */
    pthread_mutex_lock(&mt->ra_mu);
    mt->info_pub.structures = mt->info.structures;
    pthread_mutex_unlock(&mt->ra_mu);
    return &t->info_pub;
}

/* ---- core assignment ------------------------------------------------------------ */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    return x ^ (x >> 29);
}

static int map_grow(id_map *m)
{
    uint32_t slots = m->slots ? m->slots * 2 : MAP_MIN_SLOTS;
    uint64_t *key = calloc(slots, sizeof *key);
    uint32_t *val = malloc(slots * sizeof *val);

    if (!key || !val) {
        free(key);
        free(val);
        return -1;
    }
    for (uint32_t i = 0; i < m->slots; i++) {
        uint32_t h;
        if (!m->key[i])
            continue;
        for (h = (uint32_t)(mix64(m->key[i] - 1) & (slots - 1)); key[h]; h = (h + 1) & (slots - 1))
            ;
        key[h] = m->key[i];
        val[h] = m->val[i];
    }
    free(m->key);
    free(m->val);
    m->key = key;
    m->val = val;
    m->slots = slots;
    return 0;
}

static void map_free(id_map *m)
{
    free(m->key);
    free(m->val);
}

/* Value for key, inserting `fresh` when absent (*added = 1). Out of memory,
 * the map stops growing and answers with fresh values. */
static uint32_t map_get(id_map *m, uint64_t key, uint32_t fresh, int *added)
{
    uint32_t h;

    *added = 0;
    if (m->used * 2 >= m->slots && map_grow(m) != 0) {
        *added = 1;
        return fresh;
    }
    for (h = (uint32_t)(mix64(key) & (m->slots - 1)); m->key[h]; h = (h + 1) & (m->slots - 1))
        if (m->key[h] == key + 1)
            return m->val[h];
    m->key[h] = key + 1;
    m->val[h] = fresh;
    m->used++;
    *added = 1;
    return fresh;
}

static uint16_t core_for(ct_trace *t, const ct_access *a)
{
    int added;
    uint32_t core;

    switch (t->schedule) {
    case CT_SCHED_SINGLE:
        return 0;
    case CT_SCHED_CPUS:
        if (t->have_last_cpu && a->cpu == t->last_cpu)
            return t->last_cpu_core;
        core = map_get(&t->map, a->cpu, t->map.next_core % t->cores, &added);
        if (added)
            t->map.next_core++;
        t->last_cpu = a->cpu;
        t->last_cpu_core = (uint16_t)core;
        t->have_last_cpu = 1;
        return (uint16_t)core;
    default:
        if (t->have_last_thread && a->thread == t->last_thread)
            return (uint16_t)t->last_thread_core;
        core = map_get(&t->map, a->thread, t->map.next_core % t->cores, &added);
        if (added)
            t->map.next_core++;
        t->last_thread = a->thread;
        t->last_thread_core = core;
        t->have_last_thread = 1;
        return (uint16_t)core;
    }
}

static void count_thread(ct_trace *t, uint32_t thread)
{
    int added;
    (void)map_get(&t->threads, thread, 0, &added);
    if (added)
        t->info.threads++;
}

/* Give accesses without a thread `thread0` (0: leave them) and a core. */
static void assign_cores(ct_trace *t, ct_batch *b, uint32_t from, uint32_t thread0)
{
    uint32_t last = UINT32_MAX;
    ct_access *a = b->acc + from, *end = b->acc + b->n;

    if (t->cores == 1 || t->schedule == CT_SCHED_SINGLE) {
        for (; a < end; a++) {
            a->core = 0;
            if (UNLIKELY(a->thread == 0))
                a->thread = thread0;
            if (UNLIKELY(a->thread != last)) {
                count_thread(t, a->thread);
                last = a->thread;
            }
        }
        return;
    }
    {
        uint16_t last_cpu = 0, core = 0;
        int have = 0;
        for (; a < end; a++) {
            if (UNLIKELY(a->thread == 0))
                a->thread = thread0;
            /* the core depends on thread and cpu only: look it up when they change */
            if (!have || a->thread != last || a->cpu != last_cpu) {
                if (a->thread != last) {
                    count_thread(t, a->thread);
                    last = a->thread;
                }
                last_cpu = a->cpu;
                core = core_for(t, a);
                have = 1;
            }
            a->core = core;
        }
    }
}

/* ---- reading ------------------------------------------------------------------- */

static int fill_stream(ct_trace *t, stream_rt *r, ct_batch *b, ct_error *err)
{
    int rc;
    while (!r->done && ct_batch_room(b, t->fmt->max_per_record)) {
        rc = t->fmt->next(r->st, b, err);
        if (rc < 0)
            return rc;
        if (rc == 0)
            r->done = 1;
    }
    return CT_OK;
}

static void default_thread(ct_batch *b, uint32_t from, uint32_t stream_index)
{
    for (uint32_t i = from; i < b->n; i++)
        if (b->acc[i].thread == 0)
            b->acc[i].thread = stream_index + 1;
}

/* Choose the next stream to run (multi-stream). Returns -1 when all are done. */
static int pick_stream(ct_trace *t)
{
    int best = -1;
    if (t->interleave == CT_IL_TIMESTAMP) {
        for (uint32_t i = 0; i < t->nstreams; i++) {
            stream_rt *r = &t->sv[i];
            if (r->done && r->ai >= r->b.n && r->mi >= r->b.nmk && r->ei >= r->b.nev)
                continue;
            if (best < 0 || (r->has_ts && (!t->sv[best].has_ts || r->ts < t->sv[best].ts)))
                best = (int)i;
        }
        return best;
    }
    for (uint32_t k = 1; k <= t->nstreams; k++) {
        uint32_t i = (t->cur + k) % t->nstreams;
        stream_rt *r = &t->sv[i];
        if (!(r->done && r->ai >= r->b.n && r->mi >= r->b.nmk && r->ei >= r->b.nev))
            return (int)i;
    }
    return -1;
}

static int next_multi(ct_trace *t, ct_batch *out, ct_error *err)
{
    int started = 0;

    if (t->interleave == CT_IL_AUTO) /* decided on first use: timestamps seen? */
        t->interleave = CT_IL_QUANTUM;
    while (ct_batch_room(out, 1)) {
        stream_rt *r = &t->sv[t->cur];
        int switch_now = 0;

        if (!started) {
            started = 1;
            if (r->done && r->ai >= r->b.n && r->mi >= r->b.nmk && r->ei >= r->b.nev) {
                int nx = pick_stream(t);
                if (nx < 0)
                    break;
                t->cur = (uint32_t)nx;
                continue;
            }
        }
        /* refill an exhausted stream buffer */
        if (r->ai >= r->b.n && r->mi >= r->b.nmk && r->ei >= r->b.nev) {
            if (r->done) {
                int nx = pick_stream(t);
                if (nx < 0)
                    break;
                t->cur = (uint32_t)nx;
                t->left = t->quantum;
                continue;
            }
            ct_batch_clear(&r->b);
            r->ai = r->mi = r->ei = 0;
            if (fill_stream(t, r, &r->b, err) < 0)
                return err->code;
            default_thread(&r->b, 0, r->s.index);
            continue;
        }
        /* next record of the running stream, in stream order */
        if (r->mi < r->b.nmk && r->b.mk[r->mi].index <= r->ai) {
            ct_marker m = r->b.mk[r->mi];
            if (m.type == CT_MK_TIMESTAMP && t->interleave == CT_IL_TIMESTAMP && !r->has_ts) {
                r->has_ts = 1;
                r->ts = m.time;
                int nx = pick_stream(t);
                if (nx >= 0 && (uint32_t)nx != t->cur) {
                    t->cur = (uint32_t)nx;
                    continue;
                }
            }
            r->has_ts = 0;
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
            out->acc[out->n++] = r->b.acc[r->ai++];
            if (t->interleave == CT_IL_QUANTUM && --t->left == 0)
                switch_now = 1;
        }
        if (switch_now) {
            int nx = pick_stream(t);
            t->left = t->quantum;
            if (nx >= 0)
                t->cur = (uint32_t)nx;
        }
    }
    return out->n + out->nmk + out->nev > 0 ? 1 : 0;
}

static int next_direct(ct_trace *t, ct_batch *b, ct_error *err)
{
    int rc;
    uint32_t thread0 = 0;   /* thread of records without one (multi: set per stream) */

    ct_batch_clear(b);
    if (t->nstreams == 1) {
        stream_rt *r = &t->sv[0];
        if (fill_stream(t, r, b, err) < 0)
            return err->code;
        rc = b->n + b->nmk + b->nev > 0 ? 1 : 0;
        thread0 = 1;
    } else {
        if (t->cfg->interleave == CT_IL_AUTO && t->interleave == CT_IL_AUTO) {
            /* timestamps if the first stream has any in its first batch */
            stream_rt *r = &t->sv[0];
            if (fill_stream(t, r, &r->b, err) < 0)
                return err->code;
            default_thread(&r->b, 0, 0);
            t->interleave = CT_IL_QUANTUM;
            for (uint32_t i = 0; i < r->b.nmk; i++)
                if (r->b.mk[i].type == CT_MK_TIMESTAMP) {
                    t->interleave = CT_IL_TIMESTAMP;
                    break;
                }
        }
        rc = next_multi(t, b, err);
        if (rc < 0)
            return rc;
    }
    assign_cores(t, b, 0, thread0);
    return rc;
}

/* ---- read-ahead ---------------------------------------------------------------- */

static void *ra_main(void *arg)
{
    ct_trace *t = arg;

    pthread_mutex_lock(&t->ra_mu);
    for (;;) {
        struct ra_slot *slot = &t->ra[t->ra_tail % RA_SLOTS];
        while (slot->full && !t->ra_stop)
            pthread_cond_wait(&t->ra_cv, &t->ra_mu);
        if (t->ra_stop)
            break;
        pthread_mutex_unlock(&t->ra_mu);
        memset(&slot->err, 0, sizeof slot->err);
        slot->rc = next_direct(t, &slot->b, &slot->err);
        pthread_mutex_lock(&t->ra_mu);
        t->info_pub = t->info;
        slot->full = 1;
        t->ra_tail++;
        pthread_cond_broadcast(&t->ra_cv);
        if (slot->rc <= 0)
            break; /* the end, or an error: nothing follows */
    }
    pthread_mutex_unlock(&t->ra_mu);
    return NULL;
}

static void ra_swap(ct_batch *a, ct_batch *b)
{
    ct_batch tmp = *a;
    *a = *b;
    *b = tmp;
}

int ct_trace_next(ct_trace *t, ct_batch *b, ct_error *err)
{
    struct ra_slot *slot;
    int rc;

    if (!t->ra_on)
        return next_direct(t, b, err);
    if (!t->ra_running) {
        if (t->ra_tail > 0)          /* the thread ended: the last answer stands */
            return t->ra[(t->ra_tail - 1) % RA_SLOTS].rc > 0 ? 0 : t->ra[(t->ra_tail - 1) % RA_SLOTS].rc;
        for (int i = 0; i < RA_SLOTS; i++)
            if (ct_batch_init(&t->ra[i].b, b->cap) != CT_OK)
                return ct_error_set(err, CT_E_NOMEM, "out of memory");
        if (pthread_mutex_init(&t->ra_mu, NULL) != 0 || pthread_cond_init(&t->ra_cv, NULL) != 0 ||
            pthread_create(&t->ra_thread, NULL, ra_main, t) != 0) {
            t->ra_on = 0;            /* no thread: read directly */
            return next_direct(t, b, err);
        }
        t->ra_running = 1;
    }
    pthread_mutex_lock(&t->ra_mu);
    slot = &t->ra[t->ra_head % RA_SLOTS];
    while (!slot->full)
        pthread_cond_wait(&t->ra_cv, &t->ra_mu);
    rc = slot->rc;
    if (rc > 0) {
        ra_swap(b, &slot->b);
        slot->full = 0;
        t->ra_head++;
    } else {
        ct_batch_clear(b);
        if (rc < 0 && err)
            *err = slot->err;
        /* leave the slot full: later calls give the same answer */
    }
    pthread_cond_broadcast(&t->ra_cv);
    pthread_mutex_unlock(&t->ra_mu);
    return rc;
}

static void ra_shutdown(ct_trace *t)
{
    if (!t->ra_running)
        return;
    pthread_mutex_lock(&t->ra_mu);
    t->ra_stop = 1;
    pthread_cond_broadcast(&t->ra_cv);
    pthread_mutex_unlock(&t->ra_mu);
    pthread_join(t->ra_thread, NULL);
    pthread_mutex_destroy(&t->ra_mu);
    pthread_cond_destroy(&t->ra_cv);
    t->ra_running = 0;
}
