/*
 * test_sweep_run.c - running sweeps: sampled estimates and their errors,
 * intervals, progress, and the power-law fit.
 */
#include <zstd.h>

#include "sweep_fixture.h"

static int collect_sampled(void *ctx, const ct_sweep_result *r)
{
    got *g = ctx;
    if (collect(ctx, r))
        return 1;
    g->err[r->point] = r->miss_rate_error[0];
    g->rate[r->point] = r->sample_rate;
    return 0;
}

/* Sampled one-pass stays close to the exact figures and says it sampled;
 * a point too small for the sample stays exact, and its row says so
 * (one-pass, rate 1, error 0). */
TEST(sampled_mode_estimates_miss_rates)
{
    static got ex, sa;
    ct_sweep *sw = NULL;
    ct_error err = {0};
    ct_sweep_opts o;
    const char *traces[1] = {"gen:random:n=200000,footprint=512K,writes=25"};
    size_t with_error = 0;

    if (ct_sweep_load(&sw, write_file("sa.ini", "[l1d]\nline = 64\n[sweep]\n"
                          "l1d.size = 16K..256K x4\nl1d.assoc = 1 4 full\n"), &err)) {
        CHECK(0);
        return;
    }
    CHECK(run(sw, traces[0], 0, 2, &ex) == CT_OK);
    memset(&o, 0, sizeof o);
    memset(&sa, 0, sizeof sa);
    o.sample = 0.25;
    o.result = collect_sampled;
    o.result_ctx = &sa;
    CHECK(ct_sweep_run(sw, traces, 1, &o, &err) == CT_OK);
    CHECK_EQ_U64(sa.n, ct_sweep_npoints(sw));
    for (size_t p = 0; p < sa.n; p++) {
        ct_kind_stats a = ct_level_total(&ex.stats[p][0]), b = ct_level_total(&sa.stats[p][0]);
        double ra = (double)a.misses / (double)a.accesses, rb = (double)b.misses / (double)b.accesses;
        /* too small for the sample, so exact (onepass.c, "Sampled mode"):
         * 16K 4-way (64 sets, 16 sampled) and 16K fully associative (256
         * lines, too few for the replicas' share of the sample) */
        const int exact = sa.info[p][0].size == 16384 && sa.info[p][0].assoc > 1;
        CHECK(sa.method[p] == (exact ? CT_SWEEP_ONEPASS : CT_SWEEP_SAMPLED));
        CHECK(sa.rate[p] == (exact ? 1.0 : 0.25));
        CHECK_EQ_U64(b.accesses, a.accesses);     /* accesses stay exact */
        CHECK(fabs(ra - rb) < 0.03);
        if (exact) {
            CHECK(sa.err[p] == 0);
            CHECK_EQ_U64(b.misses, a.misses);
        }
        with_error += sa.err[p] > 0;
    }
    CHECK(with_error > 0);
    ct_sweep_free(sw);
}

/* The reported error of sampled estimates is honest: over several sample
 * seeds the estimate lies within 3 reported standard errors of the exact
 * figure in the large majority of cases (the replicas used to share one
 * sample, and reported counting noise only: a 20-sigma miss on a large
 * fully-associative cache). */
TEST(sampled_errors_cover_the_true_deviation)
{
    static got ex, sa;
    ct_sweep *sw = NULL;
    ct_error err = {0};
    const char *traces[1] = {"gen:random:n=200000,footprint=1M,writes=25"};
    size_t cases = 0, within = 0, fa_cases = 0;

    if (ct_sweep_load(&sw, write_file("honest.ini", "[l1d]\nline = 64\n[sweep]\n"
                          "l1d.size = 32K 128K 512K\nl1d.assoc = 1 4 full\n"), &err)) {
        CHECK(0);
        return;
    }
    CHECK(run(sw, traces[0], 0, 2, &ex) == CT_OK);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        ct_sweep_opts o;
        memset(&o, 0, sizeof o);
        memset(&sa, 0, sizeof sa);
        o.sample = 0.25;
        o.sample_seed = seed;
        o.result = collect_sampled;
        o.result_ctx = &sa;
        CHECK(ct_sweep_run(sw, traces, 1, &o, &err) == CT_OK);
        for (size_t p = 0; p < sa.n; p++) {
            ct_kind_stats a = ct_level_total(&ex.stats[p][0]);
            ct_kind_stats b = ct_level_total(&sa.stats[p][0]);
            double dev = (double)b.misses / (double)b.accesses -
                         (double)a.misses / (double)a.accesses;
            if (sa.err[p] == 0) {          /* too few sets or lines to sample: exact */
                CHECK_EQ_U64(b.misses, a.misses);
                continue;
            }
            cases++;
            fa_cases += sa.info[p][0].sets == 1;
            within += fabs(dev) <= 3 * sa.err[p];
            if (fabs(dev) > 3 * sa.err[p])
                fprintf(stderr, "  seed %llu point %zu (%llu sets x %u): deviation %.5f, "
                        "error %.5f\n", (unsigned long long)seed, p,
                        (unsigned long long)sa.info[p][0].sets, sa.info[p][0].assoc, dev,
                        sa.err[p]);
        }
    }
    CHECK(cases >= 30);
    CHECK(fa_cases >= 6);
    CHECK(within * 100 >= cases * 85);
    ct_sweep_free(sw);
}

TEST(intervals_count_full_intervals_only)
{
    static got g;
    ct_sweep *sw = NULL;
    ct_error err = {0};
    if (ct_sweep_load(&sw, write_file("iv.ini", "[l1d]\n[sweep]\nl1d.size = 4K 8K\n"), &err)) {
        CHECK(0);
        return;
    }
    /* 25000 data accesses + 25000 fetches = 50000 accesses: 5 intervals of 10000 */
    CHECK(run(sw, "gen:random:n=25000,footprint=64K", 1, 1, &g) == CT_OK);
    CHECK_EQ_U64(g.iv[0][0].n, 5);
    CHECK(g.iv[0][0].ci_lo <= g.iv[0][0].mean && g.iv[0][0].mean <= g.iv[0][0].ci_hi);
    CHECK(g.iv[0][0].sd > 0);
    ct_sweep_free(sw);
}

/* The progress line: accesses per second over this pass's time, the share
 * of the trace's files consumed, time left in the trace and in the sweep. */
TEST(progress_line_reports_rate_share_and_time_left)
{
    char line[256];
    ct_sweep_progress p;

    memset(&p, 0, sizeof p);
    p.trace = 1;
    p.ntraces = 2;
    p.points_done = 64;
    p.points_total = 128;
    p.pass_points = 64;
    p.accesses = 20000000;
    p.seconds = 100;         /* the first trace took 80 s */
    p.pass_seconds = 10;
    p.bytes = 250;
    p.bytes_total = 1000;
    ct_sweep_progress_format(&p, line, sizeof line);
    CHECK_STR_CONTAINS(line, "trace 2/2  points 64/128 done");
    CHECK_STR_CONTAINS(line, "2.0 M accesses/s");       /* 20 M in this pass's 10 s */
    CHECK_STR_CONTAINS(line, "25%");
    CHECK_STR_CONTAINS(line, "30 s left in this trace"); /* 10 s for a quarter */
    /* the sweep: (64 + 64 x 0.25) / 128 = 0.625 done in 100 s */
    CHECK_STR_CONTAINS(line, ", 60 s in all");

    p.bytes_total = 0;       /* gen: or stdin: no share, no time left */
    CHECK(ct_sweep_progress_format(&p, line, sizeof line) == strlen(line));
    CHECK(strstr(line, "%") == NULL && strstr(line, "left") == NULL);
    CHECK_STR_CONTAINS(line, "2.0 M accesses/s");

    p.bytes_total = 1000;
    p.bytes = 10;            /* 1% in 10 s: 990 s left = 16.5 min */
    ct_sweep_progress_format(&p, line, sizeof line);
    CHECK_STR_CONTAINS(line, "16.5 min left in this trace");

    p.bytes = 1000;          /* a pass just ended: its points are done */
    p.pass_points = 0;
    p.points_done = 96;
    ct_sweep_progress_format(&p, line, sizeof line);
    CHECK_STR_CONTAINS(line, "100%");
    CHECK_STR_CONTAINS(line, "  33 s left in all");  /* 96/128 done in 100 s */
    CHECK(strstr(line, "in this trace") == NULL);
    CHECK(ct_sweep_progress_format(&p, line, 8) > 8); /* truncated, the length needed */
    CHECK(strlen(line) == 7);
}

typedef struct progress_log {
    size_t n;
    ct_sweep_progress last;
} progress_log;

static void log_progress(void *ctx, const ct_sweep_progress *p)
{
    progress_log *l = ctx;
    l->n++;
    l->last = *p;
}

/* Progress through a compressed trace is measured in its compressed bytes
 * (what the file's size says), not in the decompressed ones. */
TEST(compressed_traces_report_their_file_progress)
{
    static char text[4 << 20];
    size_t len = 0, cap, clen;
    void *z;
    char path[600];
    FILE *f;
    ct_trace *t = NULL;
    ct_trace_opts to;
    ct_batch b;
    ct_error err = {0};
    const char *paths[1];
    uint64_t half = 0;
    int got_n, batches = 0;

    for (unsigned i = 0; len + 64 < sizeof text; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%d %x\n", i % 3 == 0,
                                (i * 2654435761u) & 0xfffff);
    cap = ZSTD_compressBound(len);
    z = malloc(cap);
    CHECK(z != NULL);
    if (!z)
        return;
    clen = ZSTD_compress(z, cap, text, len, 3);
    CHECK(!ZSTD_isError(clen));
    snprintf(path, sizeof path, "%s/prog.din.zst", tmpdir);
    f = fopen(path, "wb");
    CHECK(f && fwrite(z, 1, clen, f) == clen);
    if (f)
        fclose(f);
    free(z);
    paths[0] = path;
    memset(&to, 0, sizeof to);
    CHECK(ct_batch_init(&b, 4096) == CT_OK);
    CHECK(ct_trace_open(&t, paths, 1, &to, &err) == CT_OK);
    if (!t)
        return;
    CHECK_EQ_U64(ct_trace_get_info(t)->input_size, clen);
    while ((got_n = ct_trace_next(t, &b, &err)) > 0)
        if (++batches == 40)
            half = ct_trace_get_info(t)->input_done;
    CHECK(got_n == 0);
    CHECK(half > 0 && half < clen);                     /* part way: a share of it */
    CHECK_EQ_U64(ct_trace_get_info(t)->input_done, clen); /* the end: all of it */
    CHECK(ct_trace_get_info(t)->bytes > 2 * clen);      /* decoded bytes are more */
    ct_trace_close(t);
    ct_batch_free(&b);

    /* the sweep's last report of a pass: its points done, the file consumed */
    {
        ct_sweep *sw = NULL;
        ct_sweep_opts o;
        progress_log log;
        memset(&log, 0, sizeof log);
        memset(&o, 0, sizeof o);
        o.progress = log_progress;
        o.progress_ctx = &log;
        if (ct_sweep_load(&sw, write_file("prog.ini", "[l1d]\n[sweep]\nl1d.size = 4K 8K\n"),
                          &err) != CT_OK) {
            CHECK(0);
            return;
        }
        CHECK(ct_sweep_run(sw, paths, 1, &o, &err) == CT_OK);
        CHECK(log.n >= 1);
        CHECK_EQ_U64(log.last.points_done, 2);
        CHECK_EQ_U64(log.last.points_total, 2);
        CHECK_EQ_U64(log.last.bytes_total, clen);
        CHECK_EQ_U64(log.last.bytes, clen);
        ct_sweep_free(sw);
    }
}

TEST(power_law_fit_recovers_exponent)
{
    double x[6], y[6];
    ct_powerlaw pl;
    ct_error err = {0};
    for (int i = 0; i < 6; i++) {
        x[i] = 1024.0 * (1 << i);
        y[i] = 3.0 * pow(x[i], -0.5);
    }
    CHECK(ct_powerlaw_fit(x, y, 6, &pl, &err) == CT_OK);
    CHECK(fabs(pl.b + 0.5) < 1e-9);
    CHECK(fabs(pl.a - 3.0) < 1e-6);
    CHECK(fabs(pl.r2 - 1.0) < 1e-9);
    CHECK(ct_powerlaw_fit(x, y, 2, &pl, &err) == CT_E_USAGE);
}

int main(void)
{
    if (fixture_start() != 0)
        return 1;
    RUN(sampled_mode_estimates_miss_rates);
    RUN(sampled_errors_cover_the_true_deviation);
    RUN(intervals_count_full_intervals_only);
    RUN(progress_line_reports_rate_share_and_time_left);
    RUN(compressed_traces_report_their_file_progress);
    RUN(power_law_fit_recovers_exponent);
    return fixture_done();
}
