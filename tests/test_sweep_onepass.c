/*
 * test_sweep_onepass.c - the one-pass analysis against point-by-point
 * simulation, and every shortcut of it (levels, folds, renumbering, helper
 * threads, sampling) against the analysis without it.
 */
#include "dmt_writer.h"
#include "sweep_fixture.h"

TEST(onepass_equals_simulation_for_an_l1d_alone)
{
    compare_methods("[l1d]\nline = 64\nlatency = 3\n[memory]\nlatency = 50\n[sweep]\n"
                    "l1d.size = 1K..32K x2\nl1d.assoc = 1 2 3 4 8 full\n",
                    "gen:random:n=40000,footprint=64K,writes=30,size=8", 1);
}

/* Deep sets: logs of several words of live bits (up to 1024 slots). */
TEST(onepass_equals_simulation_for_highly_associative_sets)
{
    compare_methods("[l1d]\nline = 64\n[sweep]\nl1d.size = 64K 256K\n"
                    "l1d.assoc = 24 128 256 512\n",
                    "gen:random:n=60000,footprint=512K,writes=30", 1);
    compare_methods("[l1d]\nline = 32\nwrite_back = no\n[sweep]\nl1d.size = 16K 64K\n"
                    "l1d.assoc = 64 128 full\n",
                    "gen:matmul:dim=40,tile=8", 1);
}

TEST(onepass_equals_simulation_with_flush_3c_and_unaligned_accesses)
{
    compare_methods("[system]\nmiss_classes = yes\nflush_at_end = yes\n"
                    "[l1d]\nline = 32\n[sweep]\nl1d.size = 512 1K 2K 8K\nl1d.assoc = 1 2 full\n"
                    "l1d.latency = 2 5\n",
                    "gen:stream:n=30000,stride=24,size=16,footprint=20K,writes=20", 1);
}

/* Small strides: most requests are to the line of the one before (not
 * taken by the stacks), reads and writes mixed, so that a write comes both
 * after a write and after only reads. */
TEST(onepass_equals_simulation_when_requests_repeat_their_line)
{
    compare_methods("[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                    "l1d.size = 1K..16K x2\nl1d.assoc = 1 2 4 16 full\n",
                    "gen:stream:n=40000,stride=8,size=8,footprint=24K,writes=30", 1);
    compare_methods("[l1d]\nline = 32\nwrite_back = no\n[sweep]\nl1d.size = 1K 4K\n"
                    "l1d.assoc = 2 8 full\n",
                    "gen:stream:n=30000,stride=4,size=4,footprint=8K,writes=50", 1);
}

/* A few lines in turn: a request is often its set's newest block where
 * there are many sets and not where there are few (the finer set stacks
 * skip it), and writes among reads leave a block dirty in some caches and
 * not others. */
TEST(onepass_equals_simulation_when_few_lines_take_turns)
{
    compare_methods("[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                    "l1d.size = 128 512 2K 8K\nl1d.assoc = 1 2 4 8 full\n",
                    "gen:random:n=40000,footprint=1K,writes=40", 1);
    compare_methods("[l1d]\nline = 64\n[sweep]\nl1d.size = 256 1K 4K\n"
                    "l1d.assoc = 1 2 4 full\n",
                    "gen:chase:n=30000,footprint=2K,node=64", 1);
    /* set counts that are not powers of two (no level: they take every
     * request) beside ones that are */
    compare_methods("[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                    "l1d.size = 768 1536 3K 6K\nl1d.assoc = 1 2 3 4 12 full\n",
                    "gen:random:n=40000,footprint=4K,writes=40", 1);
    compare_methods("[l1d]\nline = 64\n[sweep]\nl1d.size = 1536 3K\nl1d.assoc = 1 2 4\n",
                    "gen:random:n=30000,footprint=4K,writes=40", 1);
    /* logs (more than 8 ways) */
    compare_methods("[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                    "l1d.size = 2K 4K 8K\nl1d.assoc = 1 4 16 32 full\n",
                    "gen:random:n=40000,footprint=3K,writes=40", 1);
    /* fully associative caches from one line up: a read at depth 2 leaves
     * its block clean in the one-line cache */
    compare_methods("[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                    "l1d.size = 64 128 256 1K\nl1d.assoc = full\n",
                    "gen:random:n=40000,footprint=512,writes=30", 1);
}

TEST(onepass_equals_simulation_for_an_l2_under_fixed_l1s)
{
    compare_methods("[l1i]\nsize = 1K\nassoc = 2\nline = 32\n"
                    "[l1d]\nsize = 2K\nassoc = 2\nline = 32\nwrite_back = no\n"
                    "[l2]\nline = 64\n[sweep]\nl2.size = 4K..64K x4\nl2.assoc = 1 4 16 full\n",
                    "gen:chase:n=30000,footprint=96K,node=64", 3);
    compare_methods("[l1d]\nsize = 1K\nassoc = 4\nline = 64\n"
                    "[l2]\nline = 64\nwrite_back = no\n[sweep]\nl2.size = 2K 4K 8K\n"
                    "l2.assoc = 2 8\n",
                    "gen:random:n=20000,footprint=16K,writes=50", 2);
}

/* A drmemtrace trace of every record kind the analysis may see: fetches
 * (the tapped level's or memory's), instructions without a fetch, software
 * prefetches, and loads and stores of 1 to 16 bytes at any offset, some
 * crossing a line, some to the line before. The tapped level takes runs of
 * a batch at once (hier.c, run_tap_batch) and leaves it the accesses it
 * cannot take; the figures and totals equal simulation's. */
TEST(onepass_equals_simulation_for_every_drmemtrace_record_kind)
{
    uint64_t x = 12345, pc = 0x400000, last = 0x10000;
    const char *path = dw_path("kinds.trace");
    dw_buf b;

    dw_init(&b, 12);
    dw_header(&b, 7, DW_FT_X86_64, 7, 0);
    for (int i = 0; i < 60000; i++) {
        unsigned r, size;
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        r = (unsigned)(x >> 33);
        size = 1 + (r >> 8) % 16;
        switch (r % 10) {
        case 0:
            dw_rec(&b, DW_NO_FETCH, 3, pc);
            break;
        case 1:
            dw_rec(&b, DW_MAYBE_FETCH, 3, pc);  /* the same pc: no fetch */
            break;
        case 2:
            dw_rec(&b, DW_PREFETCHT0, 1, 0x10000 + (r >> 4) % 12288);
            break;
        case 3:
        case 4:
            pc += 1 + (r >> 12) % 15;
            dw_rec(&b, DW_INSTR, 1 + (r >> 16) % 15, pc);
            break;
        case 5:         /* the line of the access before */
            dw_rec(&b, r & 0x100 ? DW_WRITE : DW_READ, size, last);
            break;
        default:
            last = 0x10000 + (r >> 4) % 12288;
            dw_rec(&b, r & 0x300 ? DW_READ : DW_WRITE, size, last);
            break;
        }
    }
    dw_end(&b, 7);
    dw_file(path, b.p, b.n);
    dw_free(&b);
    compare_methods("[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                    "l1d.size = 1K..16K x2\nl1d.assoc = 1 2 4 16 full\n", path, 1);
    /* no first level above: fetches go to the tapped level too */
    compare_methods("[l2]\nline = 32\n[sweep]\nl2.size = 1K 4K 16K\nl2.assoc = 1 8 full\n",
                    path, 1);
    dw_cleanup();
}

/* A trace whose access `bad` (of 3000) is of kind `kind` without an
 * address, the others loads and instructions without a fetch. */
static const char *masked_trace(const char *name, int kind, uint32_t bad)
{
    static char path[512];
    ct_trace_writer *tw = NULL;
    ct_writer w = {harness_file_write, NULL, 0};
    ct_batch b;
    ct_error err = {0};

    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    w.ctx = fopen(path, "wb");
    CHECK(w.ctx != NULL);
    if (!w.ctx)
        return NULL;
    CHECK(ct_batch_init(&b, 3000) == CT_OK);
    CHECK(ct_trace_writer_open(&tw, "ctr-raw", &w, &err) == CT_OK);
    for (uint32_t i = 0; i < 3000; i++)
        b.acc[b.n++] = (ct_access){.vaddr = 0x1000 + 40 * (i % 300), .size = 4, .time = i,
                                   .kind = (uint8_t)(i == bad ? kind
                                                     : i % 3 ? CT_LOAD : CT_NOFETCH),
                                   .flags = i == bad ? CT_F_NOADDR : 0};
    CHECK(ct_trace_writer_put(tw, &b, &err) == CT_OK);
    CHECK(ct_trace_writer_finish(tw, &err) == CT_OK);
    ct_batch_free(&b);
    fclose(w.ctx);
    return path;
}

/* An access without an address stops the sweep, in one pass as in
 * simulation, whatever its kind. */
TEST(an_access_without_an_address_stops_both_methods)
{
    static got g;
    static const int kinds[] = {CT_LOAD, CT_STORE, CT_IFETCH, CT_NOFETCH};
    ct_sweep *sw = load_ok("masked.ini", "[l1d]\nline = 64\n[sweep]\nl1d.size = 1K 4K\n"
                                         "l1d.assoc = 1 full\n");
    for (size_t k = 0; sw && k < sizeof kinds / sizeof *kinds; k++) {
        const char *path = masked_trace("masked.ctr", kinds[k], 2000);
        for (int no_onepass = 0; path && no_onepass < 2; no_onepass++) {
            ct_sweep_opts o;
            ct_error err = {0};
            memset(&o, 0, sizeof o);
            o.threads = 2;
            o.no_onepass = no_onepass;
            o.result = collect;
            o.result_ctx = &g;
            memset(&g, 0, sizeof g);
            CHECK(ct_sweep_run(sw, &path, 1, &o, &err) != CT_OK);
            CHECK_STR_CONTAINS(err.msg, "has no address");
        }
    }
    ct_sweep_free(sw);
}

/* A trace with cache maintenance cannot be analysed in one pass: its
 * points are simulated instead, with the same figures. */
TEST(cache_operations_fall_back_to_simulation)
{
    static got a, b;
    ct_sweep *sw = NULL;
    ct_error err = {0};
    char din[64 * 1024] = "", path[600];
    size_t used = 0;
    FILE *f;

    for (int i = 0; i < 3000; i++)
        used += (size_t)snprintf(din + used, sizeof din - used, "%d %x\n", i % 7 == 0,
                                 (unsigned)((i * 2654435761u) % 32768));
    used += (size_t)snprintf(din + used, sizeof din - used, "4 0\n");
    for (int i = 0; i < 500; i++)
        used += (size_t)snprintf(din + used, sizeof din - used, "0 %x\n", i * 64);
    snprintf(path, sizeof path, "%s", write_file("ops.din", din));
    f = fopen(path, "r");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    if (ct_sweep_load(&sw, write_file("ops.ini", "[l1d]\nline = 64\n[sweep]\n"
                                                 "l1d.size = 1K 4K\nl1d.assoc = 1 full\n"), &err)) {
        CHECK(0);
        return;
    }
    CHECK(run(sw, path, 0, 2, &a) == CT_OK);
    CHECK(run(sw, path, 1, 2, &b) == CT_OK);
    CHECK_EQ_U64(a.n, 4);
    for (size_t p = 0; p < a.n; p++) {
        CHECK(a.method[p] == CT_SWEEP_SIMULATED);
        CHECK(memcmp(&a.stats[p][0], &b.stats[p][0], sizeof a.stats[p][0]) == 0);
        CHECK(a.stats[p][0].writebacks > 0);
    }
    ct_sweep_free(sw);
}

/* LRU inclusion: misses never grow with associativity at a fixed set count,
 * nor with size when fully associative. */
TEST(lru_misses_obey_the_inclusion_property)
{
    static got g;
    ct_sweep *sw = NULL;
    ct_error err = {0};
    size_t checked = 0;

    if (ct_sweep_load(&sw, write_file("incl.ini",
                          "[l1d]\nline = 64\n[sweep]\nl1d.size = 1K..64K x2\n"
                          "l1d.assoc = 1 2 4 8 16 full\n"), &err) != CT_OK) {
        CHECK(0);
        return;
    }
    CHECK(run(sw, "gen:random:n=50000,footprint=128K,writes=25", 0, 2, &g) == CT_OK);
    for (size_t p = 0; p < g.n; p++)
        for (size_t q = 0; q < g.n; q++) {
            const ct_level_info *a = &g.info[p][0], *b = &g.info[q][0];
            uint64_t ma = ct_level_total(&g.stats[p][0]).misses;
            uint64_t mb = ct_level_total(&g.stats[q][0]).misses;
            if (a->sets == b->sets && a->assoc < b->assoc) {
                CHECK(mb <= ma);
                checked++;
            }
            if (a->sets == 1 && b->sets == 1 && a->size < b->size) {
                CHECK(mb <= ma);
                checked++;
            }
        }
    CHECK(checked > 50);
    ct_sweep_free(sw);
}



/* How onepass_direct runs the analysis; 0 keeps a default. */
typedef struct direct_opts {
    uint32_t clock_limit;   /* requests numbered before the times are renumbered */
    uint32_t level_window;  /* requests per trial of the levels */
    unsigned helpers;       /* helper threads (0: none) */
    uint32_t fold_classes;  /* classes per fold */
    double sample;          /* sampling rate (0: exact) */
    uint64_t seed;          /* which sample */
    int plain;              /* no shortcuts (ct_onepass_set_shortcuts) */
    int interval;           /* an interval ends after every batch of 4096 accesses */
} direct_opts;

/* Run the one-pass analysis of every point of sw over a trace directly.
 * Results go to g. */
static int onepass_direct(const ct_sweep *sw, const char *trace, direct_opts o, got *g)
{
    const ct_config *cfg = ct_sweep_point_config(sw, 0);
    ct_op_point pts[64];
    ct_onepass *op = NULL;
    ct_trace *t = NULL;
    ct_trace_opts to;
    ct_batch b;
    ct_error err = {0};
    const char *paths[1] = {trace};
    size_t n = ct_sweep_npoints(sw);
    int rc, got_n;

    memset(g, 0, sizeof *g);
    for (size_t i = 0; i < n && i < 64; i++) {
        char b1[64], b2[64], b3[64];
        const ct_config *c = ct_sweep_point_config(sw, i);
        uint64_t size = strtoull(ct_config_get(c, "l1d", "size", b1, sizeof b1), NULL, 10);
        uint64_t ways = strtoull(ct_config_get(c, "l1d", "assoc", b2, sizeof b2), NULL, 10);
        uint64_t line = strtoull(ct_config_get(c, "l1d", "line", b3, sizeof b3), NULL, 10);
        pts[i].sets = size / line / ways;
        pts[i].ways = (uint32_t)ways;
        pts[i].latency = 3;
    }
    memset(&to, 0, sizeof to);
    to.cfg = cfg;
    if (ct_batch_init(&b, 4096) != CT_OK)
        return -1;
    rc = ct_onepass_create(&op, cfg, "l1d", pts, n, o.sample > 0 ? o.sample : 1.0, o.seed,
                           o.helpers, &err);
    if (rc == CT_OK)
        rc = ct_trace_open(&t, paths, 1, &to, &err);
    if (rc == CT_OK && o.clock_limit)
        ct_onepass_set_clock_limit(op, o.clock_limit);
    if (rc == CT_OK && o.level_window)
        ct_onepass_set_level_window(op, o.level_window);
    if (rc == CT_OK && o.fold_classes)
        ct_onepass_set_fold_classes(op, o.fold_classes);
    if (rc == CT_OK && o.plain)
        ct_onepass_set_shortcuts(op, 0);
    while (rc == CT_OK && (got_n = ct_trace_next(t, &b, &err)) > 0) {
        rc = ct_onepass_run(op, &b, &err);
        if (o.interval)
            ct_onepass_interval(op);
    }
    if (rc == CT_OK)
        rc = ct_onepass_finish(op, &err);
    if (rc == CT_OK)
        g->folded = ct_onepass_folded(op);
    if (rc == CT_OK)
        g->chains = ct_onepass_chains(op);
    for (size_t i = 0; rc == CT_OK && i < n; i++) {
        double re[4];
        ct_onepass_result(op, i, g->info[i], g->stats[i], &g->tot[i], g->iv[i], re);
        g->err[i] = re[0];
        g->n++;
    }
    if (rc != CT_OK)
        fprintf(stderr, "  one-pass: %s\n", err.msg);
    ct_trace_close(t);
    ct_onepass_free(op);
    ct_batch_free(&b);
    return rc;
}

/* The sweep the direct one-pass runs below share: sizes 1K to 64K, from
 * direct-mapped to fully associative, flushed at the end. */
#define DIRECT_SWEEP "[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n" \
                     "l1d.size = 1K..64K x4\nl1d.assoc = 1 2 8 16 full\n"

/* Every point of b has a's figures (and every point of a was there). */
static void same_figures(const ct_sweep *sw, const got *a, const got *b)
{
    CHECK_EQ_U64(a->n, ct_sweep_npoints(sw));
    CHECK_EQ_U64(b->n, a->n);
    for (size_t p = 0; p < a->n; p++) {
        CHECK(memcmp(&a->stats[p][0], &b->stats[p][0], sizeof a->stats[p][0]) == 0);
        CHECK(memcmp(&a->tot[p], &b->tot[p], sizeof a->tot[p]) == 0);
        CHECK(memcmp(&a->iv[p][0], &b->iv[p][0], sizeof a->iv[p][0]) == 0);
        CHECK(a->err[p] == b->err[p]);
    }
}

/* A point without sets or ways is refused, not analysed. */
TEST(onepass_refuses_a_point_without_sets_or_ways)
{
    ct_sweep *sw = load_ok("nosets.ini", DIRECT_SWEEP);
    ct_op_point p[2] = {{.sets = 16, .ways = 2, .latency = 3}, {.sets = 0, .ways = 4}};
    ct_onepass *op = NULL;
    ct_error err = {0};

    CHECK(sw != NULL);
    if (!sw)
        return;
    CHECK(ct_onepass_create(&op, ct_sweep_point_config(sw, 0), "l1d", p, 2, 1.0, 0, 0, &err) ==
          CT_E_USAGE);
    CHECK(op == NULL);
    CHECK(strstr(err.msg, "point 1") != NULL);
    p[1].sets = 8;
    p[1].ways = 0;
    CHECK(ct_onepass_create(&op, ct_sweep_point_config(sw, 0), "l1d", p, 2, 1.0, 0, 0, &err) ==
          CT_E_USAGE);
    p[1].ways = 4;
    CHECK(ct_onepass_create(&op, ct_sweep_point_config(sw, 0), "l1d", p, 2, 1.0, 0, 0, &err) ==
          CT_OK);
    ct_onepass_free(op);
    ct_sweep_free(sw);
}

/* The one-pass analysis of sw over trace with its default settings (into
 * a) and two others (b, c): every figure the same. */
static void same_three_ways(const ct_sweep *sw, const char *trace, direct_opts ob, direct_opts oc,
                            got *a, got *b, got *c)
{
    CHECK(onepass_direct(sw, trace, (direct_opts){0}, a) == CT_OK);
    CHECK(onepass_direct(sw, trace, ob, b) == CT_OK);
    CHECK(onepass_direct(sw, trace, oc, c) == CT_OK);
    same_figures(sw, a, b);
    same_figures(sw, a, c);
}

/* The next of a xorshift sequence (the traces made here). */
static uint64_t next_x(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* A new trace file `name` in the temporary directory (its path in path). */
static FILE *trace_file(const char *name, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", tmpdir, name);
    return fopen(path, "w");
}

/* A din trace: one read, then a read and a write of each of 30000 random
 * lines among 2048. Returns its path (NULL when it cannot be written). */
static const char *rw_trace(void)
{
    static char path[512];
    FILE *f = trace_file("rw.din", path, sizeof path);
    uint64_t x = 0x2545f4914f6cdd1dull;

    if (!f)
        return NULL;
    fprintf(f, "0 40000\n");
    for (int i = 0; i < 30000; i++) {
        next_x(&x);
        fprintf(f, "0 %llx\n1 %llx\n", (unsigned long long)(x % 2048 * 64),
                (unsigned long long)(x % 2048 * 64));
    }
    fclose(f);
    return path;
}

/* Times are 32-bit; when they run out every time is replaced by its rank.
 * With a limit of a few thousand requests the renumbering happens hundreds
 * of times, and every figure must stay the same. */
TEST(renumbering_times_changes_no_figure)
{
    static got a, b;
    ct_sweep *sw = load_ok("renum.ini", DIRECT_SWEEP);
    const char *trace = "gen:random:n=60000,footprint=96K,writes=30,size=8";

    CHECK(sw != NULL);
    if (!sw)
        return;
    CHECK(onepass_direct(sw, trace, (direct_opts){0}, &a) == CT_OK);
    /* 1536 lines in the footprint */
    CHECK(onepass_direct(sw, trace, (direct_opts){.clock_limit = 4000, .helpers = 1}, &b)
          == CT_OK);
    same_figures(sw, &a, &b);
    for (size_t p = 0; p < a.n; p++)
        CHECK(ct_level_total(&a.stats[p][0]).misses > 0);
    /* a read and then a write of each line (the write is taken: its block
     * was not dirty), one request off the batches' bounds, so that times
     * are renumbered between the two: the fully-associative stack, packed
     * then, finds the write's block in its newest slot */
    trace = rw_trace();
    CHECK(trace != NULL);
    if (trace) {
        CHECK(onepass_direct(sw, trace, (direct_opts){0}, &a) == CT_OK);
        CHECK(onepass_direct(sw, trace, (direct_opts){.clock_limit = 3000}, &b) == CT_OK);
        same_figures(sw, &a, &b);
    }
    ct_sweep_free(sw);
}

/* Levels that skip too few stacks go off for a while and are tried again
 * (onepass.c, "Levels"). With windows of a few hundred requests they go on
 * and off hundreds of times over a trace that is at times a few lines and
 * at times many; every figure must stay the same, also with times
 * renumbered in between. */
/* A din trace in phases of 3000 requests: 8 lines in turn, then random
 * over 192 K. Returns its path (NULL when it cannot be written). */
static const char *phases_trace(void)
{
    static char path[512];
    FILE *f = trace_file("phases.din", path, sizeof path);
    uint64_t x = 88172645463325252ull;

    if (!f)
        return NULL;
    for (int i = 0; i < 48000; i++) {
        next_x(&x);
        fprintf(f, "%d %llx\n", (int)(x % 3 == 0),
                (unsigned long long)((i / 3000) % 2 ? x % 196608 : (x % 8) * 4160));
    }
    fclose(f);
    return path;
}

TEST(switching_levels_on_and_off_changes_no_figure)
{
    static got a, b, c;
    ct_sweep *sw;
    const char *trace = phases_trace();

    CHECK(trace != NULL);
    if (!trace)
        return;
    sw = load_ok("phases.ini", DIRECT_SWEEP);
    CHECK(sw != NULL);
    if (!sw)
        return;
    same_three_ways(sw, trace, (direct_opts){.level_window = 300},
                    (direct_opts){.clock_limit = 5000, .level_window = 70, .helpers = 1}, &a, &b,
                    &c);
    for (size_t p = 0; p < a.n; p++)
        CHECK(a.stats[p][0].writebacks > 0);
    ct_sweep_free(sw);
    /* the 3C split takes the levels too: skipped requests are hits */
    compare_methods("[system]\nflush_at_end = yes\nmiss_classes = yes\n[l1d]\nline = 64\n"
                    "[sweep]\nl1d.size = 1K..64K x4\nl1d.assoc = 1 2 8 16 full\n", trace, 1);
}

/* One request of a turns trace: din, or Tarmac with 8-byte lines (reads of
 * 4 or 8 bytes, writes of 4 bytes or of the whole line: three classes). */
static void turn_request(FILE *f, int tarmac, int write, uint64_t line, uint64_t x)
{
    if (!tarmac) {
        fprintf(f, "%d %llx\n", write, (unsigned long long)(line * 64 + x % 8 * 8));
        return;
    }
    fprintf(f, "1 clk cpu0 M%c%d %08llx 00000000\n", write ? 'W' : 'R', x % 2 ? 8 : 4,
            (unsigned long long)(line * 8));
}

/* A trace of two lines taking turns (onepass.c, "Pairs"): runs of 1 to 40
 * requests, the two lines' indices differing from bit `lo` up (0 to 15,
 * so that they share sets up to a different set count each time); reads
 * and writes mixed, runs that only read or mostly write, a line requested
 * twice in a row now and then, and a few random requests between runs.
 * Returns its path (NULL when it cannot be written). */
static const char *turns_trace(const char *name, int runs, int tarmac)
{
    static char path[512];
    FILE *f = trace_file(name, path, sizeof path);
    uint64_t x = 0x9e3779b97f4a7c15ull;

    if (!f)
        return NULL;
    for (int r = 0; r < runs; r++) {
        uint64_t line[2], len, wpct;
        next_x(&x);
        line[0] = x % 512;
        line[1] = (line[0] ^ (((x >> 20) % 7 + 1) << ((x >> 24) % 16))) % 65536;
        len = 1 + (x >> 32) % 40;
        wpct = (x >> 40) % 4 == 0 ? 0 : (x >> 40) % 4 == 1 ? 80 : 30;
        for (uint64_t i = 0; i < len; i++) {
            const uint64_t ln = line[i & 1];
            next_x(&x);
            turn_request(f, tarmac, x % 100 < wpct, ln, x >> 8);
            if ((x >> 16) % 16 == 0)   /* the same line again */
                turn_request(f, tarmac, (x >> 12) % 2, ln, x >> 20);
        }
        for (uint64_t i = 0; i < (x >> 48) % 3; i++)
            turn_request(f, tarmac, 0, (x >> (8 * i)) % 4096, 0);
    }
    fclose(f);
    return path;
}

/* A din trace of runs that fold with only reads after a write: line q is
 * written at the run's second request, p and q then take turns reading
 * (folded), q is written again at once (its set's newest at every set
 * count: the levels take the write only where the fold left q not dirty
 * from 1), and a third line of the same sets follows, so that the one-way
 * caches of those sets evict q. Returns its path (NULL when it cannot be
 * written). */
static const char *read_folds_trace(void)
{
    static char path[512];
    FILE *f = trace_file("readfolds.din", path, sizeof path);
    uint64_t x = 0x853c49e6748fea9bull;

    if (!f)
        return NULL;
    for (int r = 0; r < 2000; r++) {
        const uint64_t p = next_x(&x) % 256, q = p ^ (4u << (x >> 20) % 6);
        fprintf(f, "0 %llx\n1 %llx\n", (unsigned long long)(p * 64), (unsigned long long)(q * 64));
        for (int i = 0; i < 8; i++)
            fprintf(f, "0 %llx\n", (unsigned long long)((i % 2 ? q : p) * 64));
        fprintf(f, "1 %llx\n0 %llx\n", (unsigned long long)(q * 64),
                (unsigned long long)((p ^ 1024) * 64));
    }
    fclose(f);
    return path;
}

/* Pairs of requests to two lines taking turns are folded into one entry;
 * every figure must equal simulation's, write-back or write-through,
 * with direct-mapped points (whose stacks no fold may touch) and without,
 * with the levels going on and off, times renumbered and helper threads. */
TEST(folding_pairs_of_two_lines_taking_turns_changes_no_figure)
{
    static got a, b, c;
    const char *trace = turns_trace("turns.din", 1500, 0);
    ct_sweep *sw;

    CHECK(trace != NULL);
    if (!trace)
        return;
    compare_methods("[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                    "l1d.size = 128 512 2K 8K 32K\nl1d.assoc = 2 4 8 16 32 full\n", trace, 1);
    compare_methods("[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                    "l1d.size = 256 1K 4K 16K\nl1d.assoc = 1 2 4 16 full\n", trace, 1);
    compare_methods("[l1d]\nline = 64\nwrite_back = no\n[sweep]\n"
                    "l1d.size = 128 1K 8K\nl1d.assoc = 2 8 full\n", trace, 1);
    /* one-line fully-associative caches: a read at depth 2 leaves its
     * block clean there, and a stack of one line takes no fold */
    compare_methods("[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                    "l1d.size = 64 128 1K\nl1d.assoc = full\n", trace, 1);
    compare_methods("[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                    "l1d.size = 64 1K 4K\nl1d.assoc = full 4 8\nzip = l1d.size l1d.assoc\n",
                    trace, 1);
    /* the 3C split: folds, the levels and the repeats count no capacity
     * miss, and the set stacks run on a helper after the fully-associative
     * one; with a one-line cache (which would count a fold's requests as
     * capacity misses) there is no fold */
    compare_methods("[system]\nflush_at_end = yes\nmiss_classes = yes\n[l1d]\nline = 64\n"
                    "[sweep]\nl1d.size = 128 512 2K 8K\nl1d.assoc = 1 2 4 16 full\n", trace, 1);
    compare_methods("[system]\nmiss_classes = yes\n[l1d]\nline = 64\n[sweep]\n"
                    "l1d.size = 64 128 1K\nl1d.assoc = 1 2 full\n", trace, 1);
    /* set counts that are not powers of two (6 to 96 here): the two lines
     * share a set where they are equal modulo the set count, direct-mapped
     * ones included (no fold then) */
    compare_methods("[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                    "l1d.size = 768 1536 3K 6K 8K\nl1d.assoc = 1 2 4 full\n", trace, 1);
    compare_methods("[l1d]\nline = 64\n[sweep]\nl1d.size = 1536 6K\nl1d.assoc = 2 4 8\n",
                    trace, 1);
    sw = load_ok("turns3.ini", "[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                 "l1d.size = 768 1536 6K 8K\nl1d.assoc = 1 2 4 full\n");
    CHECK(sw != NULL);
    if (sw) {
        CHECK(onepass_direct(sw, trace, (direct_opts){0}, &a) == CT_OK);
        CHECK(a.folded > 4000);
        ct_sweep_free(sw);
    }
    sw = load_ok("turns.ini", "[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                 "l1d.size = 512..32K x4\nl1d.assoc = 2 4 16 full\n");
    CHECK(sw != NULL);
    if (!sw)
        return;
    same_three_ways(sw, trace, (direct_opts){.level_window = 70},
                    (direct_opts){.clock_limit = 3000, .level_window = 50, .helpers = 2}, &a, &b,
                    &c);
    CHECK(a.folded > 4000);     /* of about 31000 requests */
    CHECK(b.folded > 4000);
    ct_sweep_free(sw);
    trace = read_folds_trace();
    CHECK(trace != NULL);
    if (trace)
        compare_methods("[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n"
                        "l1d.size = 256 1K 4K 16K\nl1d.assoc = 1 2 4 16 full\n", trace, 1);
    /* three classes (8-byte lines: 4- and 8-byte reads, 4-byte writes and
     * writes of the whole line), and folds of at most two, so that a pair
     * of a new class starts the next fold */
    trace = turns_trace("turns.tarmac", 1500, 1);
    CHECK(trace != NULL);
    if (!trace)
        return;
    compare_methods("[system]\nflush_at_end = yes\n[l1d]\nline = 8\n[sweep]\n"
                    "l1d.size = 64 256 1K 4K\nl1d.assoc = 1 2 4 8 full\n", trace, 1);
    sw = load_ok("turns8.ini", "[system]\nflush_at_end = yes\n[l1d]\nline = 8\n[sweep]\n"
                 "l1d.size = 64..4K x4\nl1d.assoc = 1 2 4 full\n");
    CHECK(sw != NULL);
    if (!sw)
        return;
    same_three_ways(sw, trace, (direct_opts){.fold_classes = 2},
                    (direct_opts){.fold_classes = 2, .level_window = 50, .helpers = 1}, &a, &b,
                    &c);
    CHECK(b.folded > 4000);
    ct_sweep_free(sw);
}

/* Set counts of one odd factor m (m x 2^k) nest as the powers of two do
 * (onepass.c, "Levels"): each such family is a chain of levels of its own.
 * Here five families, 4 to 128 sets, 6 to 48, 10 to 80, 14 to 112 and 18
 * to 144: four chains, the last family's stacks take every request.
 * Every figure must equal simulation's, with requests at depth 1 in some
 * chains and not others, pairs folded, the levels going on and off,
 * times renumbered and a helper thread. */
#define CHAINS_SWEEP "[system]\nflush_at_end = yes\n[l1d]\nline = 64\n[sweep]\n" \
                     "l1d.size = 1K 1536 2560 3584 4608 8K 3K 5K 7K 9K\n" \
                     "l1d.assoc = 1 2 4 full\n"
TEST(levels_in_chains_of_set_counts_change_no_figure)
{
    static got a, b, c;
    const char *phases = phases_trace();
    const char *turns = turns_trace("cturns.din", 800, 0);
    ct_sweep *sw = load_ok("chains.ini", CHAINS_SWEEP);

    CHECK(sw != NULL && phases != NULL && turns != NULL);
    if (!sw || !phases || !turns) {
        ct_sweep_free(sw);
        return;
    }
    compare_methods(CHAINS_SWEEP, phases, 1);
    compare_methods(CHAINS_SWEEP, turns, 1);
    compare_methods("[l1d]\nline = 64\nwrite_back = no\n[sweep]\n"
                    "l1d.size = 1536 3K 6K 2560 5K\nl1d.assoc = 1 2 8\n", phases, 1);
    same_three_ways(sw, phases, (direct_opts){.level_window = 300},
                    (direct_opts){.clock_limit = 5000, .level_window = 70, .helpers = 1}, &a, &b,
                    &c);
    CHECK_EQ_U64(a.chains, 4);
    CHECK(onepass_direct(sw, turns, (direct_opts){0}, &a) == CT_OK);
    CHECK(a.folded > 2000);
    ct_sweep_free(sw);
}

/* With two or three helper threads sharing the stacks, times renumbered
 * every few thousand requests and an interval after every batch, each
 * figure equals that of one thread, with and without the 3C split, on
 * traces of phases, of pairs and of reads then writes (each of fewer than
 * 4000 lines: the times must outnumber them). */
TEST(helper_threads_change_no_figure)
{
    static got a, b;
    const char *sweeps[2] = {DIRECT_SWEEP, "[system]\nflush_at_end = yes\nmiss_classes = yes\n"
                             "[l1d]\nline = 64\n[sweep]\nl1d.size = 1K..64K x4\n"
                             "l1d.assoc = 1 2 8 16 full\n"};
    const char *traces[3] = {phases_trace(), turns_trace("pturns.din", 1500, 0), rw_trace()};
    const direct_opts helped[3] = {
        {.clock_limit = 4000, .helpers = 2, .interval = 1},
        {.clock_limit = 6000, .level_window = 70, .helpers = 3, .interval = 1},
        {.clock_limit = 5000, .helpers = 1, .interval = 1}};

    for (int w = 0; w < 2; w++) {
        ct_sweep *sw = load_ok(w ? "helped3c.ini" : "helped.ini", sweeps[w]);
        CHECK(sw != NULL);
        for (int t = 0; sw && t < 3; t++) {
            CHECK(traces[t] != NULL);
            if (!traces[t])
                continue;
            CHECK(onepass_direct(sw, traces[t], (direct_opts){.interval = 1}, &a) == CT_OK);
            for (int k = 0; k < 3; k++) {
                direct_opts o = helped[k];
                o.level_window = w ? o.level_window : 0;
                CHECK(onepass_direct(sw, traces[t], o, &b) == CT_OK);
                same_figures(sw, &a, &b);
            }
        }
        ct_sweep_free(sw);
    }
}

/* A sampled pass takes the shortcuts of an exact one (onepass.c: repeats,
 * levels, pairs, the linear fully-associative stack) for the requests its
 * stacks follow: every figure, estimate, standard error and interval must
 * be that of the same sample taken one request at a time through every
 * stack that follows it. Sweeps where the sample covers the big caches
 * (at 0.25 the set counts of 256 and up, the fully-associative caches of
 * 1024 lines and up) and where it covers all but the small ones (0.5). */
TEST(sampled_shortcuts_change_no_figure)
{
    static got a, b;
    const char *traces[3] = {turns_trace("sturns.din", 1500, 0), phases_trace(), rw_trace()};
    const double rates[2] = {0.25, 0.5};
    ct_sweep *sw = load_ok("sampled.ini", DIRECT_SWEEP);
    uint64_t folded = 0;
    int sampled = 0;

    CHECK(sw != NULL);
    if (!sw)
        return;
    for (int t = 0; t < 3; t++) {
        CHECK(traces[t] != NULL);
        for (int r = 0; traces[t] && r < 2; r++) {
            const direct_opts fast = {.sample = rates[r], .seed = 7 + (uint64_t)t,
                                      .level_window = 300, .helpers = (unsigned)r,
                                      .interval = 1};
            direct_opts plain = fast;
            plain.plain = 1;
            plain.helpers = 0;
            CHECK(onepass_direct(sw, traces[t], fast, &a) == CT_OK);
            CHECK(onepass_direct(sw, traces[t], plain, &b) == CT_OK);
            same_figures(sw, &a, &b);
            CHECK_EQ_U64(b.folded, 0);
            folded += a.folded;
            for (size_t p = 0; p < a.n; p++)
                sampled += a.err[p] > 0;
        }
    }
    CHECK(folded > 1000);   /* the pairs of blocks no sampled stack follows */
    CHECK(sampled > 12);    /* points estimated, with an error */
    ct_sweep_free(sw);
}

int main(void)
{
    if (fixture_start() != 0)
        return 1;
    RUN(onepass_equals_simulation_for_an_l1d_alone);
    RUN(onepass_equals_simulation_for_highly_associative_sets);
    RUN(onepass_equals_simulation_with_flush_3c_and_unaligned_accesses);
    RUN(onepass_equals_simulation_when_requests_repeat_their_line);
    RUN(onepass_equals_simulation_when_few_lines_take_turns);
    RUN(onepass_equals_simulation_for_an_l2_under_fixed_l1s);
    RUN(onepass_equals_simulation_for_every_drmemtrace_record_kind);
    RUN(an_access_without_an_address_stops_both_methods);
    RUN(cache_operations_fall_back_to_simulation);
    RUN(lru_misses_obey_the_inclusion_property);
    RUN(onepass_refuses_a_point_without_sets_or_ways);
    RUN(renumbering_times_changes_no_figure);
    RUN(switching_levels_on_and_off_changes_no_figure);
    RUN(folding_pairs_of_two_lines_taking_turns_changes_no_figure);
    RUN(levels_in_chains_of_set_counts_change_no_figure);
    RUN(helper_threads_change_no_figure);
    RUN(sampled_shortcuts_change_no_figure);
    return fixture_done();
}
