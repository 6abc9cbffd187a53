/*
 * sweep_internal.h - what a sweep shares between its file (sweep_file.c),
 * its engine (sweep.c) and its analysis (onepass.c): the loaded sweep, the
 * one-pass analysis and the interval statistics (internal).
 */
#ifndef CT_SWEEP_INTERNAL_H
#define CT_SWEEP_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rstat.h>

#include "cachet/sweep.h"

/* Running per-interval miss rate of one level: the previous cumulative
 * counters and GSL's running statistics of the rates seen so far. */
typedef struct ct_ivstat {
    uint64_t acc, miss;           /* cumulative at the last boundary */
    gsl_rstat_workspace *rs;
} ct_ivstat;

int ct_ivstat_init(ct_ivstat *v);
void ct_ivstat_free(ct_ivstat *v);
/* A boundary: the level's cumulative accesses and misses now. */
void ct_ivstat_mark(ct_ivstat *v, uint64_t acc, uint64_t miss);
void ct_ivstat_get(const ct_ivstat *v, ct_interval_stats *out);

/* One point of a one-pass group, as the analysis needs it. */
typedef struct ct_op_point {
    uint64_t sets;       /* 1: fully associative */
    uint32_t ways;
    uint32_t latency;
} ct_op_point;

/* A sweep file as loaded (sweep_file.c); the engine (sweep.c) reads its
 * points. */
typedef struct dim_key {
    char name[96];          /* "section.key" as written */
    char sec[32], key[64];
    int row;                /* schema row (ct_config_row) */
    char **vals;
    size_t nvals;
    int zip;                /* zip group + 1, 0: alone */
} dim_key;

struct ct_sweep {
    char path[PATH_MAX];
    size_t nparams;
    char **param;           /* "section.key" */
    dim_key *keys;          /* nparams keys with their values as written */
    ct_config *base;        /* resolved; every point is built from it */
    size_t npoints;
    uint32_t *choice;       /* npoints x nparams: the value each key takes */
    ct_config **cfg;        /* built on first use (NULL until then) */
    char **value;           /* npoints x nparams resolved values */
    size_t nskipped;
    char **skipped;
    uint64_t hash;
};

/* Build point i's configuration (ct_sweep_point_config builds it on first
 * use). */
int ct_sweep_point_build(ct_sweep *sw, size_t i, ct_error *err);

typedef struct ct_onepass ct_onepass;

/* NULL when level `section` ("l1d") of cfg can be analysed in one pass,
 * else the reason why not. */
const char *ct_onepass_unsuitable(const ct_config *cfg, const char *section);

/* An analysis of points[0..n) of level `section`, all sharing cfg except
 * that level's size, assoc and latency. `sample` in (0,1) samples the
 * level's stream spatially (1: exact); `seed` picks the sample. With
 * `helpers` > 0, that many threads of its own run some of the set stacks
 * while the caller runs the others (it still takes every call below from
 * one thread at a time). */
int ct_onepass_create(ct_onepass **out, const ct_config *cfg, const char *section,
                      const ct_op_point *points, size_t n, double sample, uint64_t seed,
                      unsigned helpers, ct_error *err);

/* Tests: renumber the analysis's times whenever `limit` requests have been
 * numbered (the default is 2^32 - 2; limit must exceed the lines seen). */
void ct_onepass_set_clock_limit(ct_onepass *op, uint32_t limit);
/* Tests: requests per trial of the levels (onepass.c, "Levels"). */
void ct_onepass_set_level_window(ct_onepass *op, uint32_t requests);
/* Requests folded in pairs (onepass.c, "Pairs"); tests: classes per fold
 * (2 to FOLD_NCLS: a pair of a load and a store then starts a new fold
 * whenever the classes change). */
uint64_t ct_onepass_folded(const ct_onepass *op);
/* Chains of levels (onepass.c, "Levels"): set counts of one odd factor. */
unsigned ct_onepass_chains(const ct_onepass *op);
/* Threads the analysis runs on: the caller and the helpers that started. */
unsigned ct_onepass_threads(const ct_onepass *op);
/* Points whose figures are estimated from a sample (onepass.c, "Sampled
 * mode": the others have too few sets or lines for the rate, and are exact). */
size_t ct_onepass_sampled_points(const ct_onepass *op);
/* Whether point k's figures are estimated from the sample (else exact). */
int ct_onepass_point_sampled(const ct_onepass *op, size_t k);
void ct_onepass_set_fold_classes(ct_onepass *op, uint32_t n);
/* Tests, before the first request: 0 takes every request one by one
 * through every stack that follows it, without the shortcuts of onepass.c
 * (repeats, levels, pairs, the linear fully-associative stack). */
void ct_onepass_set_shortcuts(ct_onepass *op, int on);
void ct_onepass_free(ct_onepass *op);

/* Feed accesses (a batch or part of one). */
int ct_onepass_run(ct_onepass *op, const ct_batch *b, ct_error *err);

/* An interval boundary of the trace. */
void ct_onepass_interval(ct_onepass *op);

/* The trace has ended (end-of-run rules included). */
int ct_onepass_finish(ct_onepass *op, ct_error *err);

/* Figures of point k after finish: arrays of ct_onepass_nlevels entries. */
size_t ct_onepass_nlevels(const ct_onepass *op);
void ct_onepass_result(ct_onepass *op, size_t k, ct_level_info *info, ct_level_stats *stats,
                       ct_sim_totals *tot, ct_interval_stats *iv, double *rate_err);

#endif
