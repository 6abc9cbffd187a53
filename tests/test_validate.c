/*
 * test_validate.c - matching model events with a trace's CACHE lines
 * (sim/validate.c) and inferring geometry (sim/infer.c), on traces small
 * enough to check by hand.
 *
 * Model: L1I and L1D of 256 B, 2 ways, 64 B lines: 2 sets, LINE = set * 2 +
 * way; block = address / 64, set = block mod 2.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cachet/cachet.h"
#include "harness.h"

static char trace_path[64];

static void write_trace(const char *text)
{
    int fd;
    snprintf(trace_path, sizeof trace_path, "/tmp/cachet-test-validate-XXXXXX");
    fd = mkstemp(trace_path);
    if (fd >= 0) {
        if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
            fprintf(stderr, "short write\n");
        close(fd);
    }
}

static ct_config *small_config(void)
{
    ct_config *cfg = NULL;
    ct_error err = {0};
    static const char *const keys[] = {
        "l1i.assoc=2", "l1i.size=256", "l1i.tarmac_name=cpu.cpu{cpu}.l1i",
        "l1d.assoc=2", "l1d.size=256", "l1d.tarmac_name=cpu.cpu0.l1d",
    };
    ct_config_new_empty(&cfg, &err);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (ct_config_set(cfg, keys[i], &err) != CT_OK)
            fprintf(stderr, "%s\n", err.msg);
    return cfg;
}

static const ct_vcount *count_of(const ct_validation *v, const char *name, int op)
{
    for (size_t i = 0; i < ct_validation_nstructures(v); i++) {
        const ct_vstructure *s = ct_validation_structure(v, i);
        if (strcmp(s->name, name) == 0)
            return &s->op[op];
    }
    return NULL;
}

static const char hand_trace[] =
    "1 clk cpu0 IT (1) 00001000:000000001000 d503201f O EL1h_n : NOP\n"
    "1 clk cpu0 CACHE cpu.cpu0.l1i LINE 0000 ALLOC 0x000000001000\n"  /* matched */
    "2 clk cpu0 IT (2) 00001040:000000001040 d503201f O EL1h_n : NOP\n"
    "2 clk cpu0 CACHE cpu.cpu0.l1i LINE 0003 ALLOC 0x000000001040\n"  /* model: LINE 2 */
    "3 clk cpu0 IT (3) 00001080:000000001080 d503201f O EL1h_n : NOP\n" /* extra, LINE 1 */
    "4 clk cpu0 IT (4) 00001000:000000001000 d503201f O EL1h_n : NOP\n"
    "4 clk cpu0 MR4 00002000:000000002000 00000000\n"                 /* l1d: cold */
    "5 clk cpu0 IT (5) 00001004:000000001004 d503201f O EL1h_n : NOP\n"
    "5 clk cpu0 CACHE cpu.cpu0.l1i LINE 0002 ALLOC 0x000000003000\n"  /* missing */
    "5 clk cpu0 TLB FILL cpu.cpu0.ITLB 4K 0x00001000:0x0000001000\n";

TEST(matched_missing_extra_cold_and_line_ids)
{
    ct_config *cfg = small_config();
    ct_validation *v = NULL;
    ct_error err = {0};
    const char *paths[1];
    const ct_vcount *c;
    ct_vcount t;

    write_trace(hand_trace);
    paths[0] = trace_path;
    CHECK(ct_validate(&v, paths, 1, cfg, NULL, &err) == CT_OK);
    if (!v) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    c = count_of(v, "cpu.cpu0.l1i", CT_EVOP_ALLOC);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_U64(c->reference, 3);
        CHECK_EQ_U64(c->model, 3);
        CHECK_EQ_U64(c->matched, 2);
        CHECK_EQ_U64(c->line_id_agree, 1);
        CHECK_EQ_U64(c->line_id_differ, 1);
        CHECK_EQ_U64(c->missing, 1);
        CHECK_EQ_U64(c->extra, 1);
        CHECK_EQ_U64(c->cold_extra, 0);
    }
    c = count_of(v, "cpu.cpu0.l1d", CT_EVOP_ALLOC);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_U64(c->model, 1);
        CHECK_EQ_U64(c->cold_extra, 1);
        CHECK_EQ_U64(c->extra, 0);
    }
    c = count_of(v, "cpu.cpu0.ITLB", CT_EVOP_FILL);
    CHECK(c != NULL && c->reference == 1);
    t = ct_validation_total(v);
    CHECK_EQ_U64(t.reference, 3); /* the TLB is not a mapped structure */
    CHECK_EQ_U64(t.matched, 2);
    /* 1 / (3 + 1): the pair with another LINE id does not agree */
    CHECK(ct_validation_agreement(v) == 0.25);
    CHECK(!ct_validation_passed(v));
    CHECK_EQ_U64(ct_validation_ndivergences(v), 3);
    if (ct_validation_ndivergences(v) == 3) {
        const ct_divergence *d0 = ct_validation_divergence(v, 0);
        const ct_divergence *d1 = ct_validation_divergence(v, 1);
        const ct_divergence *d2 = ct_validation_divergence(v, 2);
        CHECK_EQ_U64(d0->kind, CT_DIV_LINE_ID);
        CHECK_EQ_U64(d0->addr, 0x1040);
        CHECK_EQ_U64(d0->ref_line, 3);
        CHECK_EQ_U64(d0->model_line, 2);
        CHECK_EQ_U64(d0->src, 4);
        CHECK_EQ_U64(d1->kind, CT_DIV_EXTRA);
        CHECK_EQ_U64(d1->addr, 0x1080);
        CHECK_EQ_U64(d1->model_line, 1);
        CHECK_EQ_U64(d1->time, 3);
        CHECK_EQ_U64(d1->src, 5); /* where time 3 begins */
        CHECK_EQ_U64(d2->kind, CT_DIV_MISSING);
        CHECK_EQ_U64(d2->addr, 0x3000);
        CHECK_EQ_U64(d2->src, 9);
        CHECK_EQ_U64(d2->context_first, 6);
        CHECK_EQ_U64(d2->ncontext, 5); /* lines 6..10: the file ends */
        CHECK_STR_CONTAINS(d2->context[3], "LINE 0002 ALLOC 0x000000003000");
    }
    ct_validation_free(v);
    ct_config_free(cfg);
    unlink(trace_path);
}

/* Validate `text` against small_config() with the default options that
 * `set` changes. */
static ct_validation *run_on(const char *text, void (*set)(ct_validate_opts *))
{
    ct_config *cfg = small_config();
    ct_validation *v = NULL;
    ct_validate_opts o;
    ct_error err = {0};
    const char *paths[1];

    write_trace(text);
    paths[0] = trace_path;
    ct_validate_opts_default(&o);
    set(&o);
    if (ct_validate(&v, paths, 1, cfg, &o, &err) != CT_OK)
        fprintf(stderr, "%s\n", err.msg);
    ct_config_free(cfg);
    unlink(trace_path);
    return v;
}

/* What ct_validate_opts.progress was told. */
typedef struct progress_log {
    uint64_t calls, last, done, size;
    int backwards;   /* accesses went down between two calls */
} progress_log;

static void log_progress(void *ctx, const ct_trace *t, uint64_t accesses)
{
    progress_log *l = ctx;
    l->backwards |= accesses < l->last;
    l->last = accesses;
    l->calls++;
    ct_trace_get_progress(t, &l->done, &l->size);
}

static progress_log plog;
static int plog_default_none;   /* the default options had no callback */

static void with_progress(ct_validate_opts *o)
{
    memset(&plog, 0, sizeof plog);
    plog_default_none = o->progress == NULL;
    o->progress = log_progress;
    o->progress_ctx = &plog;
}

TEST(progress_is_called_with_the_accesses_replayed)
{
    ct_validation *v = run_on(hand_trace, with_progress);

    CHECK(v != NULL);
    CHECK(plog_default_none);
    /* one batch: the five instruction fetches and the load of hand_trace */
    CHECK_EQ_U64(plog.calls, 1);
    CHECK_EQ_U64(plog.last, 6);
    CHECK(!plog.backwards);
    CHECK_EQ_U64(plog.size, sizeof hand_trace - 1);   /* the file's size is known */
    CHECK_EQ_U64(plog.done, plog.size);               /* and all of it was read */
    ct_validation_free(v);
}

static ct_validation *hand_run(void (*set)(ct_validate_opts *)) { return run_on(hand_trace, set); }

static void defaults(ct_validate_opts *o) { (void)o; }
static void one_diff(ct_validate_opts *o) { o->max_diffs = 1; }
static void ignore_ids(ct_validate_opts *o) { o->ignore_line_ids = 1; }
static void cold(ct_validate_opts *o) { o->cold_start = CT_COLD_NONE; }
static void warm_until_3(ct_validate_opts *o)
{
    o->cold_start = CT_COLD_WARM_UNTIL;
    o->warm_until = 3;
}

TEST(ignoring_line_ids_makes_the_other_line_id_agree)
{
    ct_validation *v = hand_run(ignore_ids);
    const ct_vcount *c = v ? count_of(v, "cpu.cpu0.l1i", CT_EVOP_ALLOC) : NULL;
    CHECK(c != NULL);
    if (!c) {
        ct_validation_free(v);
        return;
    }
    CHECK_EQ_U64(c->line_id_differ, 1); /* still counted */
    CHECK_EQ_U64(ct_vcount_agreeing(c, 1), 2);
    CHECK(ct_validation_agreement(v) == 0.5); /* 2 / (3 + 1) */
    /* not a divergence: the extra at 3 and the missing line at 5 are listed */
    CHECK_EQ_U64(ct_validation_ndivergences(v), 2);
    CHECK_EQ_U64(ct_validation_divergence(v, 0)->kind, CT_DIV_EXTRA);
    CHECK_EQ_U64(ct_validation_divergence(v, 1)->kind, CT_DIV_MISSING);
    ct_validation_free(v);
}

TEST(cold_counts_the_first_touches_as_extras)
{
    ct_validation *v = hand_run(cold);
    const ct_vcount *c = v ? count_of(v, "cpu.cpu0.l1d", CT_EVOP_ALLOC) : NULL;
    CHECK(c != NULL);
    if (!c) {
        ct_validation_free(v);
        return;
    }
    CHECK_EQ_U64(c->cold_extra, 0);
    CHECK_EQ_U64(c->extra, 1); /* the load at 4 */
    CHECK(ct_validation_agreement(v) == 0.2); /* 1 / (3 + 2) */
    CHECK_EQ_U64(ct_validation_total(v).cold_extra, 0);
    ct_validation_free(v);
}

TEST(warm_until_sets_earlier_events_aside_and_counts_later_extras)
{
    ct_validation *v = hand_run(warm_until_3);
    const ct_vcount *c = v ? count_of(v, "cpu.cpu0.l1i", CT_EVOP_ALLOC) : NULL;
    ct_vcount t;
    CHECK(c != NULL);
    if (!c) {
        ct_validation_free(v);
        return;
    }
    /* the fills at 1 and 2, both sides, are not compared */
    CHECK_EQ_U64(c->warmup_reference, 2);
    CHECK_EQ_U64(c->warmup_model, 2);
    CHECK_EQ_U64(c->reference, 1); /* 0x3000 at 5: missing */
    CHECK_EQ_U64(c->model, 1);     /* 0x1080 at 3: extra */
    CHECK_EQ_U64(c->missing, 1);
    CHECK_EQ_U64(c->extra, 1);
    t = ct_validation_total(v);
    CHECK_EQ_U64(t.cold_extra, 0);
    CHECK_EQ_U64(t.extra, 2); /* the L1D fill at 4 is no cold-start extra now */
    CHECK(ct_validation_agreement(v) == 0.0);
    ct_validation_free(v);
}

TEST(other_line_ids_are_listed_first)
{
    static const char text[] =
        "1 clk cpu0 IT (1) 00001000:000000001000 d503201f O EL1h_n : NOP\n"
        "1 clk cpu0 CACHE cpu.cpu0.l1i LINE 0000 ALLOC 0x000000001000\n"
        "1 clk cpu0 CACHE cpu.cpu0.l1i LINE 0001 ALLOC 0x000000003000\n" /* missing */
        "2 clk cpu0 IT (2) 00001040:000000001040 d503201f O EL1h_n : NOP\n"
        "2 clk cpu0 CACHE cpu.cpu0.l1i LINE 0003 ALLOC 0x000000001040\n"; /* LINE 2 */
    ct_validation *v = run_on(text, defaults);

    CHECK(v && ct_validation_ndivergences(v) == 2);
    if (v && ct_validation_ndivergences(v) == 2) {
        CHECK_EQ_U64(ct_validation_divergence(v, 0)->kind, CT_DIV_LINE_ID);
        CHECK_EQ_U64(ct_validation_divergence(v, 0)->time, 2);
        CHECK_EQ_U64(ct_validation_divergence(v, 1)->kind, CT_DIV_MISSING);
        CHECK_EQ_U64(ct_validation_divergence(v, 1)->time, 1);
    }
    ct_validation_free(v);
    v = run_on(text, one_diff); /* the one kept is the other LINE id, though later */
    CHECK(v && ct_validation_ndivergences(v) == 1 &&
          ct_validation_divergence(v, 0)->kind == CT_DIV_LINE_ID);
    ct_validation_free(v);
}

/* Cold start is the model's first touch of a line in a set the reference
 * has not shown yet, and what follows from it; a refill is not. The
 * reference shows nothing of L1D set 0 (blocks 0x80, 0x82, 0x84: lines A,
 * B, C), as if its events had been dropped; in the model (LRU):
 *   1 load A:  ALLOC A, way 0           first touch: cold
 *   2 load B:  ALLOC B, way 1           cold
 *   3 load C:  INVAL A, ALLOC C, way 0  A and C were first touches: cold
 *   4 load A:  INVAL B (cold), ALLOC A, way 1: a refill, so an extra (the
 *              set is warm in the model by then)
 *   5 store C: DIRTY C                  C's fill was a first touch: cold
 *   6 store A: DIRTY A                  A's fill was a refill: an extra */
TEST(a_refill_in_a_set_the_reference_never_showed_is_reported)
{
    ct_config *cfg = small_config();
    ct_validation *v = NULL;
    ct_error err = {0};
    const char *paths[1];
    const ct_vcount *c;

    write_trace("1 clk cpu0 MR4 00002000:000000002000 00000000\n"
                "2 clk cpu0 MR4 00002080:000000002080 00000000\n"
                "3 clk cpu0 MR4 00002100:000000002100 00000000\n"
                "4 clk cpu0 MR4 00002000:000000002000 00000000\n"
                "5 clk cpu0 MW4 00002100:000000002100 00000000\n"
                "6 clk cpu0 MW4 00002000:000000002000 00000000\n"
                "7 clk cpu0 CACHE cpu.cpu0.l1d LINE 0003 ALLOC 0x000000009040\n");
    paths[0] = trace_path;
    CHECK(ct_validate(&v, paths, 1, cfg, NULL, &err) == CT_OK);
    if (!v) {
        fprintf(stderr, "%s\n", err.msg);
        ct_config_free(cfg);
        return;
    }
    c = count_of(v, "cpu.cpu0.l1d", CT_EVOP_ALLOC);
    CHECK(c && c->model == 4 && c->cold_extra == 3 && c->extra == 1);
    c = count_of(v, "cpu.cpu0.l1d", CT_EVOP_INVAL);
    CHECK(c && c->model == 2 && c->cold_extra == 2 && c->extra == 0);
    c = count_of(v, "cpu.cpu0.l1d", CT_EVOP_DIRTY);
    CHECK(c && c->model == 2 && c->cold_extra == 1 && c->extra == 1);
    CHECK_EQ_U64(ct_validation_ndivergences(v), 3); /* the 2 extras, the missing line */
    if (ct_validation_ndivergences(v) == 3) {
        const ct_divergence *d = ct_validation_divergence(v, 0);
        CHECK(d->kind == CT_DIV_EXTRA && d->op == CT_EVOP_ALLOC && d->addr == 0x2000 &&
              d->time == 4 && d->model_line == 1);
        d = ct_validation_divergence(v, 1);
        CHECK(d->kind == CT_DIV_EXTRA && d->op == CT_EVOP_DIRTY && d->addr == 0x2000 &&
              d->time == 6);
    }
    ct_validation_free(v);
    ct_config_free(cfg);
    unlink(trace_path);
}

TEST(the_window_decides_what_is_close_enough)
{
    ct_config *cfg = small_config();
    ct_validation *v = NULL;
    ct_validate_opts o;
    ct_error err = {0};
    const char *paths[1];
    const ct_vcount *c;

    /* the reference allocates one tick before the fetch, as Fast Models does */
    write_trace("1 clk cpu0 IT (1) 00001000:000000001000 d503201f O EL1h_n : NOP\n"
                "1 clk cpu0 CACHE cpu.cpu0.l1i LINE 0000 ALLOC 0x000000001000\n"
                "1 clk cpu0 CACHE cpu.cpu0.l1i LINE 0002 ALLOC 0x000000001040\n"
                "2 clk cpu0 IT (2) 00001040:000000001040 d503201f O EL1h_n : NOP\n"
                "3 clk cpu0 IT (3) 00001044:000000001044 d503201f O EL1h_n : NOP\n");
    paths[0] = trace_path;
    ct_validate_opts_default(&o);
    CHECK(ct_validate(&v, paths, 1, cfg, &o, &err) == CT_OK);
    c = v ? count_of(v, "cpu.cpu0.l1i", CT_EVOP_ALLOC) : NULL;
    CHECK(c && c->matched == 2 && c->missing == 0 && c->extra == 0);
    CHECK(v && ct_validation_agreement(v) == 1.0);
    ct_validation_free(v);
    o.window = 0;
    CHECK(ct_validate(&v, paths, 1, cfg, &o, &err) == CT_OK);
    c = v ? count_of(v, "cpu.cpu0.l1i", CT_EVOP_ALLOC) : NULL;
    CHECK(c && c->matched == 1 && c->missing == 1 && c->extra == 1);
    ct_validation_free(v);
    ct_config_free(cfg);
    unlink(trace_path);
}

TEST(two_levels_may_not_share_a_name)
{
    ct_config *cfg = small_config();
    ct_validation *v = NULL;
    ct_error err = {0};
    const char *paths[1];
    ct_config_set(cfg, "l1d.tarmac_name=cpu.cpu0.l1i", &err);
    write_trace("1 clk cpu0 IT (1) 00001000 d503201f O EL1h_n : NOP\n");
    paths[0] = trace_path;
    CHECK(ct_validate(&v, paths, 1, cfg, NULL, &err) == CT_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, "two levels have the tarmac_name \"cpu.cpu0.l1i\"");
    CHECK(v == NULL);
    ct_config_free(cfg);
    unlink(trace_path);
}

typedef struct strbuf {
    char b[512];
    size_t n;
} strbuf;

static int to_buf(void *ctx, const char *data, size_t len)
{
    strbuf *s = ctx;
    if (s->n + len >= sizeof s->b)
        return -1;
    memcpy(s->b + s->n, data, len);
    s->n += len;
    s->b[s->n] = '\0';
    return 0;
}

TEST(model_events_print_as_tarmac_lines_the_decoder_reads_back)
{
    strbuf sb = {{0}, 0};
    ct_writer w = {to_buf, &sb, 0};
    ct_event ev;
    ct_trace *t = NULL;
    ct_batch b = {0};
    ct_error err = {0};
    const char *paths[1];

    memset(&ev, 0, sizeof ev);
    ev.type = CT_EV_CACHE;
    ev.op = CT_EVOP_DIRTY;
    ev.time = 1953;
    ev.cpu = 2;
    ev.line = 0x188;
    ev.addr = 0x16393100;
    ev.flags = CT_EVF_NS;
    ct_event_write_tarmac(&w, &ev, "cpu.cpu2.l1dcache");
    CHECK(strcmp(sb.b, "1953 clk cpu2 CACHE cpu.cpu2.l1dcache LINE 0188 DIRTY "
                       "0x000016393100_NS\n") == 0);
    write_trace(sb.b);
    paths[0] = trace_path;
    CHECK(ct_trace_open(&t, paths, 1, NULL, &err) == CT_OK);
    ct_batch_init(&b, 64);
    CHECK(t && ct_trace_next(t, &b, &err) == 1);
    CHECK_EQ_U64(b.nev, 1);
    if (b.nev == 1) {
        CHECK_EQ_U64(b.ev[0].op, CT_EVOP_DIRTY);
        CHECK_EQ_U64(b.ev[0].time, 1953);
        CHECK_EQ_U64(b.ev[0].cpu, 2);
        CHECK_EQ_U64(b.ev[0].line, 0x188);
        CHECK_EQ_U64(b.ev[0].addr, 0x16393100);
        CHECK_EQ_U64(b.ev[0].flags, CT_EVF_NS);
    }
    ct_batch_free(&b);
    ct_trace_close(t);
    unlink(trace_path);
}

TEST(tlb_and_walk_events_round_trip_through_tarmac_text)
{
    strbuf sb = {{0}, 0};
    ct_writer w = {to_buf, &sb, 0};
    ct_event in[2], *out;
    ct_trace *t = NULL;
    ct_batch b = {0};
    ct_error err = {0};
    const char *paths[1];

    memset(in, 0, sizeof in);
    in[0].type = CT_EV_TLB;
    in[0].op = CT_EVOP_FILL;
    in[0].time = 1953;
    in[0].size = 2u << 20;
    in[0].addr = 0x6200000;
    in[0].value = 0x16000000;
    in[0].regime = CT_RG_EL1_N;
    in[0].vmid = 5;
    in[0].asid = 42;
    in[0].flags = CT_EVF_NG | CT_EVF_VMID | CT_EVF_PADDR | CT_EVF_NS;
    in[1].type = CT_EV_TTW;
    in[1].op = CT_EVOP_WALK;
    in[1].time = 1953;
    in[1].stage = 1;
    in[1].level = 2;
    in[1].addr = 0x16393100;
    in[1].value = 0x16000463;
    in[1].size = 8;
    in[1].result = CT_WR_TABLE;
    in[1].line = 0x16394000;
    ct_event_write_tarmac(&w, &in[0], "cpu.cpu0.DTLB");
    ct_event_write_tarmac(&w, &in[1], "DTLB");
    write_trace(sb.b);
    paths[0] = trace_path;
    CHECK(ct_trace_open(&t, paths, 1, NULL, &err) == CT_OK);
    ct_batch_init(&b, 64);
    CHECK(t && ct_trace_next(t, &b, &err) == 1);
    CHECK_EQ_U64(b.nev, 2);
    out = b.ev;
    if (b.nev == 2) {
        CHECK_EQ_U64(out[0].type, CT_EV_TLB);
        CHECK_EQ_U64(out[0].size, 2u << 20);
        CHECK_EQ_U64(out[0].addr, 0x6200000);
        CHECK_EQ_U64(out[0].value, 0x16000000);
        CHECK_EQ_U64(out[0].regime, CT_RG_EL1_N);
        CHECK_EQ_U64(out[0].vmid, 5);
        CHECK_EQ_U64(out[0].asid, 42);
        CHECK_EQ_U64(out[0].flags, in[0].flags);
        CHECK_EQ_U64(out[1].type, CT_EV_TTW);
        CHECK_EQ_U64(out[1].stage, 1);
        CHECK_EQ_U64(out[1].level, 2);
        CHECK_EQ_U64(out[1].addr, 0x16393100);
        CHECK_EQ_U64(out[1].value, 0x16000463);
        CHECK_EQ_U64(out[1].size, 8);
        CHECK_EQ_U64(out[1].result, CT_WR_TABLE);
        CHECK_EQ_U64(out[1].line, 0x16394000);
    }
    if (t && b.nev == 2) {
        const ct_trace_info *ti = ct_trace_get_info(t);
        CHECK(ti->nstructures == 2 && strcmp(ti->structures[out[0].structure], "cpu.cpu0.DTLB") == 0);
    }
    ct_batch_free(&b);
    ct_trace_close(t);
    unlink(trace_path);
}

TEST(names_of_levels)
{
    ct_config *cfg = small_config();
    ct_sim *s = NULL;
    ct_error err = {0};
    char name[64];
    ct_config_set(cfg, "system.cores=2", &err);
    ct_config_set(cfg, "l2.size=1K", &err);
    CHECK(ct_sim_create(&s, cfg, &err) == CT_OK);
    /* levels: core0 l1i, core1 l1i, core0 l1d, core1 l1d, shared l2 */
    CHECK(ct_level_tarmac_name(cfg, s, 1, name, sizeof name) == 1);
    CHECK(strcmp(name, "cpu.cpu1.l1i") == 0);
    CHECK(ct_level_tarmac_name(cfg, s, 4, name, sizeof name) == 0);
    CHECK(strcmp(name, "l2") == 0);
    ct_sim_free(s);
    ct_config_free(cfg);
}

TEST(inference_reads_line_size_ways_and_sets)
{
    ct_inference *inf = NULL;
    ct_error err = {0};
    const char *paths[1];
    const ct_infer_structure *p;

    /* 128-byte lines, 4 ways, LINE = set * 4 + way; sets 0x3, 0x12 and 0x7 at
     * ways 0, 1, 3: at least 32 sets (0x12 >= 16) */
    write_trace("1 clk IT (1) 00000000:000000040180 d503201f O EL1h_n : NOP\n"
                "1 clk CACHE cl LINE 000c ALLOC 0x000000040180\n"
                "2 clk IT (2) 00000000:000000050940 d503201f O EL1h_n : NOP\n"
                "2 clk CACHE cl LINE 0049 ALLOC 0x000000050900\n"
                "3 clk IT (3) 00000000:000000000380 d503201f O EL1h_n : NOP\n"
                "3 clk CACHE cl LINE 001f ALLOC 0x000000000380\n");
    paths[0] = trace_path;
    CHECK(ct_infer(&inf, paths, 1, NULL, NULL, &err) == CT_OK);
    CHECK(inf && ct_inference_nstructures(inf) == 1);
    p = inf ? ct_inference_structure(inf, 0) : NULL;
    if (p) {
        CHECK_EQ_U64(p->events, 3);
        CHECK_EQ_U64(p->line_max, 128);   /* 0x380 = 7 * 128 */
        CHECK_EQ_U64(p->line_min, 128);   /* the fetch at 0x50940 is 0x40 into its line */
        CHECK_EQ_U64(p->line, 128);
        CHECK(p->ncand >= 1);
        CHECK_EQ_U64(p->cand[0].assoc, 4);
        CHECK_EQ_U64(p->cand[0].sets_min, 32);
        CHECK_EQ_U64(p->ways_seen, 4);
    }
    ct_inference_free(inf);
    unlink(trace_path);
}

int main(void)
{
    RUN(matched_missing_extra_cold_and_line_ids);
    RUN(progress_is_called_with_the_accesses_replayed);
    RUN(ignoring_line_ids_makes_the_other_line_id_agree);
    RUN(cold_counts_the_first_touches_as_extras);
    RUN(warm_until_sets_earlier_events_aside_and_counts_later_extras);
    RUN(other_line_ids_are_listed_first);
    RUN(a_refill_in_a_set_the_reference_never_showed_is_reported);
    RUN(the_window_decides_what_is_close_enough);
    RUN(two_levels_may_not_share_a_name);
    RUN(model_events_print_as_tarmac_lines_the_decoder_reads_back);
    RUN(tlb_and_walk_events_round_trip_through_tarmac_text);
    RUN(names_of_levels);
    RUN(inference_reads_line_size_ways_and_sets);
    return harness_done();
}
