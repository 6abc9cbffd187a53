/*
 * sweep_fixture.h - what the sweep tests share: a scratch directory, files
 * written there, sweeps loaded from text, and a run of every point that
 * collects its figures (one-pass or point by point) for comparison.
 */
#ifndef CACHET_TESTS_SWEEP_FIXTURE_H
#define CACHET_TESTS_SWEEP_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachet/cachet.h"
#include "harness.h"
#include "sim/sweep_internal.h"

static char tmpdir[] = "/tmp/cachet-test-sweep-XXXXXX";

/* Make the scratch directory (0), or say why not (1). */
static inline int fixture_start(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    return 0;
}

/* Remove the scratch directory; the harness's verdict. */
static inline int fixture_done(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return harness_done();
}

static inline const char *write_file(const char *name, const char *text)
{
    static char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* The sweep of `text` (written as `name`), or NULL after saying why not. */
static inline ct_sweep *load_ok(const char *name, const char *text)
{
    ct_sweep *sw = NULL;
    ct_error err = {0};
    if (ct_sweep_load(&sw, write_file(name, text), &err) != CT_OK)
        fprintf(stderr, "  load of:\n%s  failed: %s\n", text, err.msg);
    return sw;
}

/* ---- running ---- */

typedef struct got {
    size_t n;
    int method[256];
    size_t nlevels[256];
    ct_level_info info[256][4];
    ct_level_stats stats[256][4];
    ct_sim_totals tot[256];
    ct_interval_stats iv[256][4];
    double err[256], rate[256];
    uint64_t folded;        /* requests the one-pass folded in pairs */
    unsigned chains;        /* chains of levels the one-pass kept */
} got;

static inline int collect(void *ctx, const ct_sweep_result *r)
{
    got *g = ctx;
    if (r->point >= 256 || r->nlevels > 4)
        return 1;
    g->method[r->point] = r->method;
    g->nlevels[r->point] = r->nlevels;
    for (size_t l = 0; l < r->nlevels; l++) {
        g->info[r->point][l] = r->info[l];
        g->stats[r->point][l] = r->stats[l];
        g->iv[r->point][l] = r->interval[l];
    }
    g->tot[r->point] = *r->totals;
    g->n++;
    return 0;
}

static inline int run(ct_sweep *sw, const char *trace, int no_onepass, unsigned threads, got *g)
{
    ct_sweep_opts o;
    ct_error err = {0};
    const char *traces[1] = {trace};
    int rc;
    memset(&o, 0, sizeof o);
    memset(g, 0, sizeof *g);
    o.threads = threads;
    o.no_onepass = no_onepass;
    o.interval = 10000;
    o.result = collect;
    o.result_ctx = g;
    rc = ct_sweep_run(sw, traces, 1, &o, &err);
    if (rc)
        fprintf(stderr, "  sweep run: %s\n", err.msg);
    return rc;
}

/* Every figure of every point equal between one-pass and simulation. */
static inline void compare_methods(const char *sweep_text, const char *trace, size_t want_levels)
{
    static got a, b;
    ct_sweep *sw = NULL;
    ct_error err = {0};
    size_t onepass = 0;

    if (ct_sweep_load(&sw, write_file("cmp.ini", sweep_text), &err) != CT_OK) {
        fprintf(stderr, "  %s\n", err.msg);
        CHECK(0);
        return;
    }
    CHECK(run(sw, trace, 0, 2, &a) == CT_OK);
    CHECK(run(sw, trace, 1, 2, &b) == CT_OK);
    CHECK_EQ_U64(a.n, ct_sweep_npoints(sw));
    CHECK_EQ_U64(b.n, ct_sweep_npoints(sw));
    for (size_t p = 0; p < a.n; p++) {
        CHECK_EQ_U64(a.nlevels[p], want_levels);
        CHECK(b.method[p] == CT_SWEEP_SIMULATED);
        onepass += a.method[p] == CT_SWEEP_ONEPASS;
        for (size_t l = 0; l < a.nlevels[p]; l++) {
            int same = memcmp(&a.stats[p][l], &b.stats[p][l], sizeof a.stats[p][l]) == 0 &&
                       a.info[p][l].size == b.info[p][l].size &&
                       a.info[p][l].assoc == b.info[p][l].assoc &&
                       a.info[p][l].sets == b.info[p][l].sets &&
                       a.info[p][l].latency == b.info[p][l].latency &&
                       a.iv[p][l].n == b.iv[p][l].n && a.iv[p][l].mean == b.iv[p][l].mean;
            CHECK(same);
            if (!same) {
                ct_kind_stats x = ct_level_total(&a.stats[p][l]), y = ct_level_total(&b.stats[p][l]);
                fprintf(stderr, "  point %zu level %s: one-pass misses %llu wb %llu ev %llu, "
                        "simulated misses %llu wb %llu ev %llu\n", p, a.info[p][l].name,
                        (unsigned long long)x.misses,
                        (unsigned long long)a.stats[p][l].writebacks,
                        (unsigned long long)a.stats[p][l].evictions,
                        (unsigned long long)y.misses,
                        (unsigned long long)b.stats[p][l].writebacks,
                        (unsigned long long)b.stats[p][l].evictions);
            }
        }
        CHECK(memcmp(&a.tot[p], &b.tot[p], sizeof a.tot[p]) == 0);
    }
    CHECK_EQ_U64(onepass, a.n);  /* the analysis really ran */
    ct_sweep_free(sw);
}


#endif
