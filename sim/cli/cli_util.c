/*
 * cli_util.c - helpers shared by the commands.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* A command stopped by SIGINT or SIGTERM exits 130, whatever failed on the
 * way out (a read or an open of a FIFO that the signal cut short). */
int cli_exit_for(int code)
{
    if (code == CT_E_INTERRUPTED || cli_interrupted())
        return 130;
    return code == CT_E_USAGE ? EXIT_USAGE : EXIT_INPUT;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("cachet: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_fail(const ct_error *err)
{
    cli_error("%s", err->msg[0] ? err->msg : ct_strerror(err->code));
    if (cli_interrupted() && err->code != CT_E_INTERRUPTED)
        cli_error("interrupted: no output written");
    return cli_exit_for(err->code);
}

int cli_masked(int npaths, char *const *paths, const char *what)
{
    cli_error("%s: the trace masks its memory addresses (as 0x~~~~~~~~~~~~~~~~), so it "
              "cannot be %s; `cachet info` counts its accesses by kind",
              npaths == 1 ? paths[0] : "one of the traces", what);
    return EXIT_INPUT;
}

const char *cli_inputs(char *buf, size_t n, int npaths, char *const *paths)
{
    size_t at = 0;

    buf[0] = '\0';
    for (int i = 0; i < npaths && at + 1 < n; i++) {
        int w = snprintf(buf + at, n - at, "%s%s", i ? ", " : "", paths[i]);
        if (w < 0)
            break;
        at += (size_t)w;
    }
    return buf;
}

int cli_common_option(cli_common *o, int c, const char *arg)
{
    switch (c) {
    case 'c': o->config_path = arg; return 1;
    case 'f': o->format = arg; return 1;
    case 'L': o->lenient = 1; return 1;
    case 's':
        if (o->nsets == (int)(sizeof o->sets / sizeof o->sets[0])) {
            cli_error("too many -s options");
            return -1;
        }
        o->sets[o->nsets++] = arg;
        return 1;
    default: return 0;
    }
}

int cli_option(int argc, char **argv, const char *shorts, const struct option *longs,
               cli_common *co, void (*help)(FILE *), int *status)
{
    for (;;) {
        int c = getopt_long(argc, argv, shorts, longs, NULL), taken;
        if (c == -1)
            return CLI_OPT_END;
        if (c == 'h') {
            help(stdout);
            *status = EXIT_OK;
            return CLI_OPT_STOP;
        }
        if (c == '?' || c == ':') {
            help(stderr);
            *status = EXIT_USAGE;
            return CLI_OPT_STOP;
        }
        taken = co ? cli_common_option(co, c, optarg) : 0;
        if (taken < 0) {
            *status = EXIT_USAGE;
            return CLI_OPT_STOP;
        }
        if (!taken)
            return c;
    }
}

int cli_count(const char *arg, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (arg[0] < '0' || arg[0] > '9')
        return -1;
    errno = 0;
    v = strtoull(arg, &end, 10);
    if (*end || errno == ERANGE || v > max)
        return -1;
    *out = v;
    return 0;
}

/* DynamoRIO drcachesim's default hierarchy, counted by its rules: the
 * values of configs/drcachesim-default.ini plus [system] compat (its
 * defaults: 4 cores, private 32 KiB 8-way L1I and L1D, a shared 8 MiB
 * 16-way last level, 64-byte lines, LRU, next-line prefetching at the
 * L1D, threads scheduled in order of appearance). A test compares the two. */
static int drcachesim_config(ct_config **out, ct_error *err)
{
    static const char *const sec[] = {
        "system", "system", "system",
        "l1i", "l1i", "l1i", "l1i",
        "l1d", "l1d", "l1d", "l1d", "l1d",
        "l2", "l2", "l2", "l2", "l2",
        "trace"};
    static const char *const key[] = {
        "cores", "indexing", "compat",
        "size", "assoc", "line", "replacement",
        "size", "assoc", "line", "replacement", "prefetcher",
        "size", "assoc", "line", "replacement", "shared",
        "schedule"};
    static const char *const val[] = {
        "4", "virtual", "drcachesim",
        "32K", "8", "64", "lru",
        "32K", "8", "64", "lru", "nextline",
        "8M", "16", "64", "lru", "yes",
        "threads"};
    int rc = ct_config_new_empty(out, err);
    if (rc)
        return rc;
    rc = ct_config_set_many(*out, "--compat drcachesim (drcachesim's default hierarchy)",
                            sizeof key / sizeof key[0], sec, key, val, err);
    if (rc) {
        ct_config_free(*out);
        *out = NULL;
    }
    return rc;
}

int cli_load_config(const cli_common *o, ct_config **out, ct_error *err)
{
    int rc = o->config_path  ? ct_config_load(out, o->config_path, err)
             : o->drcachesim ? drcachesim_config(out, err)
                             : ct_config_new_default(out, err);
    if (rc)
        return rc;
    rc = ct_config_set_list(*out, "-s ", o->sets, (size_t)o->nsets, err);
    if (rc) {
        ct_config_free(*out);
        *out = NULL;
        return rc;
    }
    if (o->format) {
        rc = ct_config_set_kv(*out, "trace", "format", o->format, err);
        if (rc) {
            ct_config_free(*out);
            *out = NULL;
            return rc;
        }
    }
    if (o->lenient && (rc = ct_config_set_kv(*out, "trace", "lenient", "yes", err)) != 0) {
        ct_config_free(*out);
        *out = NULL;
        return rc;
    }
    return CT_OK;
}

int cli_stop_requested(void *ctx)
{
    (void)ctx;
    return cli_interrupted();
}

int cli_open_trace(ct_trace **t, ct_batch *b, char *const *paths, int n,
                   const ct_trace_opts *to, ct_error *err)
{
    ct_trace_opts o = *to;
    if (!o.stop)
        o.stop = cli_stop_requested; /* polled per batch of records read */
    int rc = ct_trace_open(t, (const char *const *)paths, (size_t)n, &o, err);
    if (rc != CT_OK)
        return rc;
    if (ct_batch_init(b, 1u << 14) != CT_OK)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    return CT_OK;
}

static int file_write(void *ctx, const char *data, size_t len)
{
    return fwrite(data, 1, len, (FILE *)ctx) == len ? 0 : -1;
}

ct_writer cli_stdout_writer(void)
{
    ct_writer w = {file_write, stdout, 0};
    return w;
}

ct_writer cli_file_writer(FILE *f)
{
    ct_writer w = {file_write, f, 0};
    return w;
}

/* Set by the handler, read by the main thread and by the trace's read-ahead
 * thread (through the stop callback): a lock-free atomic, safe in a signal
 * handler and between threads. */
static atomic_int interrupted;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store_explicit(&interrupted, 1, memory_order_relaxed);
}

void cli_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND; /* a second signal ends the process at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int cli_interrupted(void)
{
    return atomic_load_explicit(&interrupted, memory_order_relaxed) != 0;
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The hash of a regular file's first and last MiB (all of it up to 2 MiB);
 * 0 when it cannot be read. */
static uint64_t ends_hash(const char *path, uint64_t size)
{
    enum { MIB = 1 << 20 };
    unsigned char *buf = malloc(MIB);
    uint64_t h = 0xcbf29ce484222325ull;
    FILE *f = fopen(path, "rb");
    size_t got;

    if (!buf || !f) {
        free(buf);
        if (f)
            fclose(f);
        return 0;
    }
    got = fread(buf, 1, MIB, f);
    h = fnv1a(h, buf, got);
    if (size > MIB) {
        uint64_t from = size > 2 * (uint64_t)MIB ? size - MIB : MIB;
        if (fseeko(f, (off_t)from, SEEK_SET) == 0) {
            got = fread(buf, 1, MIB, f);
            h = fnv1a(h, buf, got);
        }
    }
    fclose(f);
    free(buf);
    return h;
}

/* Add the identity of path (stat in sb) to id, its hash only when `hash`;
 * the regular files of a directory `depth` levels down. */
static void identity_add(const char *path, const struct stat *sb, int depth, int hash,
                         cli_identity *id)
{
    uint64_t mtime = (uint64_t)sb->st_mtim.tv_sec * 1000000000ull + (uint64_t)sb->st_mtim.tv_nsec;

    if (S_ISREG(sb->st_mode)) {
        const char *base = strrchr(path, '/');
        uint64_t h = hash ? ends_hash(path, (uint64_t)sb->st_size) : 0;
        h = fnv1a(h, base ? base + 1 : path, strlen(base ? base + 1 : path));
        id->size += (uint64_t)sb->st_size;
        id->hash += h; /* a sum: the order of a directory's entries does not matter */
        if (mtime > id->mtime)
            id->mtime = mtime;
    } else if (S_ISDIR(sb->st_mode) && depth >= 0) {
        DIR *d = opendir(path);
        struct dirent *e;
        if (!d)
            return;
        while ((e = readdir(d)) != NULL) {
            char sub[4096];
            struct stat ss;
            if (e->d_name[0] == '.')
                continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            if (stat(sub, &ss) == 0)
                identity_add(sub, &ss, depth - 1, hash, id);
        }
        closedir(d);
    }
}

void cli_file_identity(const char *path, cli_identity *id)
{
    struct stat sb;

    memset(id, 0, sizeof *id);
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0)
        return;
    identity_add(path, &sb, 2, 1, id);
}

uint64_t cli_file_size(const char *path)
{
    struct stat sb;
    cli_identity id = {0, 0, 0};
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0)
        return 0;
    /* a trace directory: its files (and trace/) */
    identity_add(path, &sb, 2, 0, &id);
    return id.size;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_start(cli_progress *p, int quiet)
{
    p->on = !quiet && isatty(2);
    p->shown = 0;
    p->t0 = cli_now();
    p->next = p->t0 + 0.5;
}

void cli_progress_update(cli_progress *p, const ct_trace *t, uint64_t accesses)
{
    uint64_t done = 0, size = 0;
    double now, secs;
    char line[256];
    int n;

    if (!p->on || (now = cli_now()) < p->next)
        return;
    p->next = now + 0.5;
    secs = now - p->t0;
    ct_trace_get_progress(t, &done, &size);
    n = snprintf(line, sizeof line, "%.1f M accesses  %.1f M records  %.1f M accesses/s",
                 accesses / 1e6, ct_trace_get_info(t)->records / 1e6,
                 secs > 0 ? accesses / secs / 1e6 : 0.0);
    if (size && done && done <= size && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, "  %.0f%%  %.0f s left",
                 100.0 * (double)done / (double)size,
                 secs * (double)(size - done) / (double)done);
    fprintf(stderr, "\r%s\033[K", line);
    p->shown = 1;
}

void cli_progress_end(cli_progress *p)
{
    if (p->shown)
        fprintf(stderr, "\r\033[K");
    p->shown = 0;
}
