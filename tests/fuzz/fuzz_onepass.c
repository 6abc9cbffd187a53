/*
 * fuzz_onepass.c - a libFuzzer target that holds the one-pass analysis to
 * simulation. The input is a din trace of data requests among a few lines,
 * one step per byte, made so that lines often take turns (onepass.c,
 * "Pairs"): the line two before (k times, taking turns), the last line
 * again, a line that differs from the last one in one index bit (so that
 * the two share sets up to some set count), or one of 32. A sweep (picked
 * by the first byte, with the interval and the threads) runs it both ways,
 * and every figure of every point must be equal; a difference stops the
 * run. The sweeps have one-way caches in stacks that also hold larger ones
 * (where a fold's write-backs count), direct-mapped stacks (where no fold
 * goes), a write-through level, a one-line fully-associative cache, the
 * 3C split with and without one, and set counts that are not powers of
 * two. Then the one-pass analysis samples the trace (at a rate picked by
 * the first byte), with its shortcuts (and, by the first byte, with
 * helper threads) and without, and every estimate, error and interval must
 * be equal.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachet/cachet.h"
#include "cachet/sweep.h"
#include "fuzz_files.h"
#include "sim/sweep_internal.h"

#define MAX_PTS 16

static const char *const sweeps[] = {
    "[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
    "l1d.size = 128 512 2K 8K\nl1d.assoc = 2 4 16 full\n",
    "[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
    "l1d.size = 256 1K 4K 16K\nl1d.assoc = 1 2 4 full\n",
    "[l1d]\nline = 64\nwrite_back = no\n[sweep]\nl1d.size = 128 1K\nl1d.assoc = 2 full\n",
    "[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
    "l1d.size = 64 1K 4K\nl1d.assoc = full 4 8\nzip = l1d.size l1d.assoc\n",
    "[system]\nflush_at_end = yes\nmiss_classes = yes\n[l1d]\nline = 64\n[sweep]\n"
    "l1d.size = 128 512 2K 8K\nl1d.assoc = 1 4 16 full\n",
    "[system]\nmiss_classes = yes\n[l1d]\nline = 64\n[sweep]\n"
    "l1d.size = 64 1K 4K\nl1d.assoc = full 4 8\nzip = l1d.size l1d.assoc\n",
    "[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
    "l1d.size = 768 1536 3K 6K\nl1d.assoc = 1 2 full\n",
};

typedef struct got {
    size_t n;
    int method[MAX_PTS];
    ct_level_stats stats[MAX_PTS];
    ct_sim_totals tot[MAX_PTS];
    ct_interval_stats iv[MAX_PTS];
    double err[MAX_PTS];
} got;

static int collect(void *ctx, const ct_sweep_result *r)
{
    got *g = ctx;
    if (r->point >= MAX_PTS || r->nlevels != 1)
        abort();
    g->method[r->point] = r->method;
    g->stats[r->point] = r->stats[0];
    g->tot[r->point] = *r->totals;
    g->iv[r->point] = r->interval[0];
    g->n++;
    return 0;
}

static void run(ct_sweep *sw, const char *trace, int no_onepass, uint64_t interval,
                unsigned threads, got *g)
{
    const char *traces[1] = {trace};
    ct_sweep_opts o = {0};
    ct_error err = {0};
    memset(g, 0, sizeof *g);
    o.threads = threads;
    o.no_onepass = no_onepass;
    o.interval = interval;
    o.result = collect;
    o.result_ctx = g;
    if (ct_sweep_run(sw, traces, 1, &o, &err) != CT_OK) {
        fprintf(stderr, "sweep: %s\n", err.msg);
        abort();
    }
}

/* The points the sampled analysis runs: set counts that are sampled at
 * either rate (128 sets and up at 0.5, 256 and up at 0.25) beside exact
 * ones, and fully-associative caches of 64 lines (exact) and 2048 (8
 * sampled replicas). */
static const ct_op_point sampled_pts[] = {
    {.sets = 1024, .ways = 1}, {.sets = 256, .ways = 2}, {.sets = 256, .ways = 8},
    {.sets = 128, .ways = 4},  {.sets = 64, .ways = 16}, {.sets = 1, .ways = 64},
    {.sets = 1, .ways = 2048},
};
#define NSAMPLED (sizeof sampled_pts / sizeof sampled_pts[0])

/* The one-pass analysis of sampled_pts (the rest of their configuration
 * the sweep's) over the trace, sampled at `rate`, with or without its
 * shortcuts, with `helpers` helper threads; an interval ends after every
 * batch of 64 accesses. */
static void run_sampled(ct_sweep *sw, const char *trace, double rate, int shortcuts,
                        unsigned helpers, got *g)
{
    const char *paths[1] = {trace};
    ct_onepass *op = NULL;
    ct_trace *t = NULL;
    ct_trace_opts to = {0};
    ct_batch b;
    ct_error err = {0};
    int rc, n;

    memset(g, 0, sizeof *g);
    to.cfg = ct_sweep_point_config(sw, 0);
    if (ct_batch_init(&b, 64) != CT_OK)
        abort();
    rc = ct_onepass_create(&op, to.cfg, "l1d", sampled_pts, NSAMPLED, rate, 3, helpers, &err);
    if (rc == CT_OK) {
        ct_onepass_set_shortcuts(op, shortcuts);
        rc = ct_trace_open(&t, paths, 1, &to, &err);
    }
    while (rc == CT_OK && (n = ct_trace_next(t, &b, &err)) > 0) {
        rc = ct_onepass_run(op, &b, &err);
        ct_onepass_interval(op);
    }
    if (rc == CT_OK)
        rc = ct_onepass_finish(op, &err);
    if (rc != CT_OK) {
        fprintf(stderr, "sampled one-pass: %s\n", err.msg);
        abort();
    }
    for (size_t i = 0; i < NSAMPLED; i++) {
        ct_level_info info[1];
        ct_onepass_result(op, i, info, &g->stats[i], &g->tot[i], &g->iv[i], &g->err[i]);
        g->n++;
    }
    ct_trace_close(t);
    ct_onepass_free(op);
    ct_batch_free(&b);
}

/* The din trace of the steps in data. */
static void write_trace(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "w");
    uint64_t last[2] = {1, 0};  /* the last two lines, the last one first */

    if (!f)
        abort();
    for (size_t i = 0; i < size; i++) {
        const uint8_t b = data[i];
        const int w = b >> 2 & 1;
        uint64_t line, k = 1;
        switch (b & 3) {
        case 0:                 /* the two lines take turns k times */
            k = (b >> 3) + 1u;
            line = last[1];
            break;
        case 1:
            line = last[0];
            break;
        case 2:
            line = last[0] ^ (1ull << (b >> 3 & 15));
            break;
        default:
            line = b >> 3;
            break;
        }
        for (uint64_t j = 0; j < k; j++) {
            const uint64_t ln = k > 1 ? last[1] : line;
            fprintf(f, "%d %llx\n", (int)(k > 1 ? (b >> (j % 5 + 3)) & w : w),
                    (unsigned long long)(ln * 64 + (i + j) % 8 * 8));
            if (ln != last[0]) {
                last[1] = last[0];
                last[0] = ln;
            }
        }
    }
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char ini[64], din[64];
    static got a, b, c;   /* c: sampled without shortcuts */
    ct_sweep *sw = NULL;
    ct_error err = {0};
    const char *text;
    uint64_t interval;
    unsigned threads;

    if (size < 2 || size > 4096)
        return 0;
    if (!ini[0]) {
        fuzz_path(ini, sizeof ini, "onepass.ini");
        fuzz_path(din, sizeof din, "onepass.din");
    }
    text = sweeps[data[0] % (sizeof sweeps / sizeof sweeps[0])];
    interval = 50 + (uint64_t)(data[0] >> 2) * 37;
    threads = 1 + (unsigned)(data[0] >> 6) % 3;   /* up to two helpers */
    fuzz_write(ini, text, strlen(text));
    write_trace(din, data + 1, size - 1);
    if (ct_sweep_load(&sw, ini, &err) != CT_OK || ct_sweep_npoints(sw) > MAX_PTS)
        abort();
    run(sw, din, 0, interval, threads, &a);
    run(sw, din, 1, interval, 1, &b);
    if (a.n != ct_sweep_npoints(sw) || b.n != a.n)
        abort();
    for (size_t p = 0; p < a.n; p++) {
        if (a.method[p] != CT_SWEEP_ONEPASS || b.method[p] != CT_SWEEP_SIMULATED)
            abort();
        if (memcmp(&a.stats[p], &b.stats[p], sizeof a.stats[p]) != 0 ||
            memcmp(&a.tot[p], &b.tot[p], sizeof a.tot[p]) != 0 || a.iv[p].n != b.iv[p].n ||
            a.iv[p].mean != b.iv[p].mean) {
            fprintf(stderr, "point %zu: one-pass and simulation differ\n", p);
            abort();
        }
    }
    run_sampled(sw, din, data[0] & 0x40 ? 0.5 : 0.25, 1, data[0] & 0x20 ? 2 : 0, &a);
    run_sampled(sw, din, data[0] & 0x40 ? 0.5 : 0.25, 0, 0, &c);
    for (size_t p = 0; p < a.n; p++)
        if (memcmp(&a.stats[p], &c.stats[p], sizeof a.stats[p]) != 0 ||
            memcmp(&a.tot[p], &c.tot[p], sizeof a.tot[p]) != 0 ||
            memcmp(&a.iv[p], &c.iv[p], sizeof a.iv[p]) != 0 || a.err[p] != c.err[p]) {
            fprintf(stderr, "point %zu: sampled one-pass differs without its shortcuts\n", p);
            abort();
        }
    ct_sweep_free(sw);
    return 0;
}
