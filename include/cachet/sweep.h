/*
 * cachet/sweep.h - parameter sweeps: many configurations, one decode.
 *
 * A sweep file is an INI file with a base configuration and a [sweep]
 * section of keys to vary:
 *
 *   base = ../cfgA.ini            ; optional; else the built-in default,
 *                                 ; or an empty one when sections follow
 *   [l1d]                         ; optional inline sections: they apply on
 *   line = 64                     ; top of the base, as in a config file
 *   [sweep]
 *   l1d.size  = 4K..256K x2       ; range with a factor (inclusive)
 *   l1d.assoc = 1 2 4 8 full      ; explicit list
 *   l2.latency = 10..40 +10       ; range with a step
 *   zip = l1d.size l1d.assoc      ; these vary together (same lengths);
 *                                 ; several groups: separate with ','
 *
 * Points are the cartesian product of the keys (zipped groups count as one
 * key), the first key varying slowest; a file may describe at most 65536
 * combinations (a run holds a whole configuration and a hierarchy per
 * point, so a larger product is refused before any is checked). A point
 * whose configuration is impossible (a geometry the configuration rules
 * reject) is skipped and listed with its reason; a value that does not
 * parse is an error of the whole file. Errors read like configuration errors:
 * "FILE: [sweep] key: reason", or "FILE:LINE: syntax error".
 *
 * Running a sweep (ct_sweep_run) reads each trace once: a producer decodes
 * batches into a fixed ring that every worker thread reads, and each worker
 * runs its share of the points on every batch. Memory is bounded by the
 * ring and the models, not by the trace. Where every point of a group
 * differs only in the size, associativity and latency of one LRU level
 * that is the last before memory (one core, write-allocate, no prefetcher,
 * non-inclusive), the group is computed in one pass with per-set stack
 * distances for each set count (all-associativity simulation, Hill and
 * Smith 1989) and a Mattson stack-distance tree for the fully-associative
 * sizes: the figures are identical to simulating each point. The rules of
 * that analysis are at the top of sim/onepass.c. Only the last level
 * before memory qualifies (the levels below a swept level depend on its
 * miss stream); the plan callback says why points are simulated instead.
 * With a sample rate, the one-pass figures are estimates from hashed
 * samples, each with a standard error from independent replicas.
 */
#ifndef CACHET_SWEEP_H
#define CACHET_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "cachet/config.h"
#include "cachet/error.h"
#include "cachet/sim.h"
#include "cachet/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ct_sweep ct_sweep;

/* Read and check a sweep file and every point. On failure *out is NULL
 * and err says where and why. */
int ct_sweep_load(ct_sweep **out, const char *path, ct_error *err);

void ct_sweep_free(ct_sweep *sw);

/* The file as given. */
const char *ct_sweep_path(const ct_sweep *sw);

/* Swept keys ("l1d.size"), in file order. */
size_t ct_sweep_nparams(const ct_sweep *sw);
const char *ct_sweep_param(const ct_sweep *sw, size_t j);

/* Valid points, numbered 0..n-1 in product order. A point's configuration
 * is built on its first use and kept until ct_sweep_free: NULL when out of
 * memory. A first use is not safe from two threads at once (ct_sweep_run
 * builds the points it runs before it starts threads). */
size_t ct_sweep_npoints(const ct_sweep *sw);
const ct_config *ct_sweep_point_config(const ct_sweep *sw, size_t i);
/* Frees point i's configuration, if built; its next use builds it again.
 * A pointer ct_sweep_point_config returned for it is invalid after. */
void ct_sweep_point_release(ct_sweep *sw, size_t i);
/* Resolved value of swept key j at point i ("32768", "8", "lru"). */
const char *ct_sweep_point_value(const ct_sweep *sw, size_t i, size_t j);

/* Skipped combinations: "l1d.size=4K l1d.assoc=128: [l1d] assoc: 128 ways
 * exceed the 64 lines of the cache". */
size_t ct_sweep_nskipped(const ct_sweep *sw);
const char *ct_sweep_skipped(const ct_sweep *sw, size_t k);

/* 64-bit hash of everything that decides the figures: every point's
 * resolved configuration and the swept keys (resume files are checked
 * against it). */
uint64_t ct_sweep_hash(const ct_sweep *sw);

/* ---- results ---- */

/* Per-interval miss rate of one level: the miss rate of every full interval
 * of `interval` trace accesses in which the level saw accesses. */
typedef struct ct_interval_stats {
    uint64_t n;            /* intervals counted */
    double mean, sd;       /* sd: 0 when n < 2 */
    double ci_lo, ci_hi;   /* 95% confidence interval of the mean (Student t);
                              equal to mean when n < 2 */
} ct_interval_stats;

/* The figures of one point on one trace. Levels as in ct_sim. */
typedef struct ct_sweep_result {
    size_t trace;                     /* index into the traces given */
    size_t point;
    int method;                       /* enum ct_sweep_method */
    size_t nlevels;
    const ct_level_info *info;        /* nlevels entries */
    const ct_level_stats *stats;      /* nlevels entries */
    const ct_sim_totals *totals;
    const ct_interval_stats *interval;/* nlevels entries */
    double sample_rate;               /* 1: exact; < 1: sampled estimate */
    const double *miss_rate_error;    /* nlevels: estimated standard error of
                                         miss_rate (0 when exact) */
    const char *format;               /* detected trace format */
    size_t ncores;
    const ct_core_totals *cores;      /* ncores entries: each core's figures */
} ct_sweep_result;

enum ct_sweep_method {
    CT_SWEEP_SIMULATED = 0, /* the point's own hierarchy saw every access */
    CT_SWEEP_ONEPASS,       /* stack-distance analysis shared by a group */
    CT_SWEEP_SAMPLED        /* one-pass on a spatially sampled stream */
};

const char *ct_sweep_method_name(int method);

/* Called once per finished (trace, point), from the thread that called
 * ct_sweep_run, in point order within a pass. Non-zero return stops. */
typedef int (*ct_sweep_result_fn)(void *ctx, const ct_sweep_result *r);

/* Progress, called from the calling thread about twice a second while a
 * trace is decoded, and once more when a pass's points are delivered. A
 * pass is one decode of one trace for some of the points (usually all of
 * them; see ct_sweep_run). */
typedef struct ct_sweep_progress {
    size_t trace, ntraces;
    size_t points_done, points_total;   /* (trace, point) pairs */
    size_t pass_points;                 /* points the current pass serves */
    uint64_t accesses;                  /* decoded in this pass */
    uint64_t bytes, bytes_total;        /* the trace's files: bytes consumed and their
                                           size on disk (compressed bytes for a
                                           compressed file); 0: unknown (gen:, stdin) */
    double seconds;                     /* since ct_sweep_run started */
    double pass_seconds;                /* since this pass started decoding */
} ct_sweep_progress;
typedef void (*ct_sweep_progress_fn)(void *ctx, const ct_sweep_progress *p);

/* The progress line a front end shows (no newline), for example
 *   "trace 1/2  points 0/128 done  21.4 M accesses/s  37%  5 s left in this
 *    trace, 22 s in all"
 * Accesses per second count this pass only (accesses / pass_seconds). The
 * pass's share done is bytes / bytes_total; its time left is pass_seconds
 * times the share left over the share done. The sweep's share done is
 * (points_done + pass_points x the pass's share) / points_total, its time
 * left likewise from seconds. Parts that are not known are left out.
 * Writes at most n bytes (NUL included); returns the length it needed. */
size_t ct_sweep_progress_format(const ct_sweep_progress *p, char *buf, size_t n);

/* How the work was shared, told once per pass (for "one-pass" notes). */
typedef struct ct_sweep_plan {
    size_t trace;
    size_t simulated;       /* points simulated one by one */
    size_t onepass;         /* points computed by one-pass groups */
    size_t groups;          /* one-pass groups */
    size_t threads;         /* threads running the points (one-pass helpers too) */
    const char *note;       /* e.g. "one-pass LRU for [l1d]: 64 points" */
    const char *why;        /* why points are simulated one by one, e.g. "one-pass
                               applies to the last level before memory; 64 points
                               simulated one by one because a level below depends
                               on [l1d]"; "" when there is nothing to say */
} ct_sweep_plan;
typedef void (*ct_sweep_plan_fn)(void *ctx, const ct_sweep_plan *p);

typedef struct ct_sweep_opts {
    unsigned threads;            /* workers; 0: the cores available */
    uint64_t interval;           /* accesses per statistics interval; 0: 1M */
    int no_onepass;              /* 1: simulate every point */
    const ct_window *window;     /* which references each point simulates (skip,
                                    warm-up, count: cachet/sim.h); NULL: all. A
                                    window simulates every point on its own */
    double sample;               /* 0 or 1: exact; in (0,1): sampled one-pass
                                    at this rate (SHARDS-style): estimates with
                                    a standard error (miss_rate_error); set
                                    counts under 64 / rate sets and fully-
                                    associative caches under 256 / rate lines
                                    stay exact */
    uint64_t sample_seed;        /* picks the sample (any value; 0 is fine) */
    uint32_t shard_k, shard_n;   /* run points with index % n == k (n 0: all) */
    /* 1 for (trace, point) pairs already done (resume); NULL: none. */
    int (*done)(void *ctx, size_t trace, size_t point);
    void *done_ctx;
    /* polled by the producer; non-zero stops the sweep (CT_E_INTERRUPTED) */
    int (*stop)(void *ctx);
    void *stop_ctx;
    ct_sweep_result_fn result;
    void *result_ctx;
    ct_sweep_progress_fn progress;
    void *progress_ctx;
    ct_sweep_plan_fn plan;
    void *plan_ctx;
    const char *format;          /* force the trace format by name; NULL: the
                                    points' [trace] format, else detected */
} ct_sweep_opts;

/* Run every selected point on every trace. Returns CT_OK, the first error
 * (err names the trace and position), or CT_E_INTERRUPTED when stop asked;
 * results of passes that finished have been delivered either way. */
int ct_sweep_run(ct_sweep *sw, const char *const *traces, size_t ntraces,
                 const ct_sweep_opts *o, ct_error *err);

/* ---- output ---- */

/* The sweep CSV header: point, the swept keys, the run columns (the same
 * as `cachet run --csv`), then sample_rate, miss_rate_error and the interval
 * statistics (schema in results/README.md). Ends with a newline. */
int ct_sweep_csv_header(ct_writer *w, const ct_sweep *sw);

/* The rows of one result (one per level), each ending with a newline.
 * trace_path and trace_bytes are the provenance of r->trace. */
int ct_sweep_csv_rows(ct_writer *w, const ct_sweep *sw, const ct_sweep_result *r,
                      const char *trace_path, uint64_t trace_bytes);

/* ---- statistics ---- */

/* Least-squares fit of y = a * x^b on log-log axes (points with x <= 0 or
 * y <= 0 are left out). r2 is the coefficient of determination of the
 * log-log fit. Returns CT_OK, or CT_E_USAGE when fewer than 3 points
 * remain or x does not vary. Uses GSL with its abort handler off. */
typedef struct ct_powerlaw {
    double a, b, r2;
    size_t n;
} ct_powerlaw;
int ct_powerlaw_fit(const double *x, const double *y, size_t n, ct_powerlaw *out,
                    ct_error *err);

#ifdef __cplusplus
}
#endif
#endif
