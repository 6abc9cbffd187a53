/*
 * fuzz_trace.c - a libFuzzer target for one trace format (FUZZ_FORMAT, set
 * at build time): the input is decoded from memory in strict and in lenient
 * mode, and every batch decoded is simulated on a small two-core hierarchy.
 * The lenient pass also turns on the format options that are off by default
 * (the Tarmac end-of-trace fetch, the TT6E trap pair), so that their code is
 * fuzzed too (options of other formats are ignored), and adds small TLBs,
 * a walk cache and the page-table walker, which read the trace's TTW lines
 * when it has them. Anything but a clean
 * return (a crash, a sanitizer report, a leak, a hang) is a finding.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cachet/cachet.h"

#ifndef FUZZ_FORMAT
#error "build with -DFUZZ_FORMAT=\"name\""
#endif

static ct_config *make_config(int lenient)
{
    static const char *const kv[] = {
        "system.cores=2",     "l1i.size=1K",      "l1i.assoc=2",    "l1d.size=1K",
        "l1d.assoc=2",        "l2.size=4K",       "l2.assoc=4",     "trace.readahead=no",
        ("trace.format=" FUZZ_FORMAT), "trace.max_errors=1000000",
    };
    static const char *const lenient_kv[] = {
        "trace.lenient=yes", "trace.tarmac_next_fetch=yes", "tt6.keep_trap_pair=yes",
        "itlb.entries=8",    "dtlb.entries=8",              "walkcache.entries=4",
        "walk.tables=auto",  "walk.max_tables=64",
    };
    ct_config *c = NULL;
    ct_error err = {0};
    if (ct_config_new_empty(&c, &err) != CT_OK ||
        ct_config_set_all(c, kv, sizeof kv / sizeof kv[0], &err) != CT_OK ||
        (lenient && ct_config_set_all(c, lenient_kv, sizeof lenient_kv / sizeof lenient_kv[0],
                                      &err) != CT_OK))
        abort(); /* a broken harness, not a finding */
    return c;
}

/* The trace layer lets accesses of up to 1 MiB through, and a few bytes of
 * fuzzed input can hold hundreds of them: each one is 16384 line pieces
 * through the caches, TLBs and walker, which held the ctr target to about
 * 200 inputs a second. The simulator sees at most 256 bytes an access
 * (a cache operation keeps its range), still crossing lines and pages; the
 * decoder's own bound is fuzzed unchanged. */
static void clamp_sizes(ct_batch *b)
{
    for (uint32_t i = 0; i < b->n; i++)
        if (b->acc[i].kind != CT_CACHEOP && b->acc[i].size > 256)
            b->acc[i].size = 256;
}

static void one_pass(const uint8_t *data, size_t size, const ct_config *cfg)
{
    ct_trace *t = NULL;
    ct_sim *s = NULL;
    ct_batch b = {0};
    ct_error err = {0};
    ct_trace_opts o = {0};
    int rc;

    o.cfg = cfg;
    if (ct_trace_open_mem(&t, "fuzz-input", data, size, &o, &err) != CT_OK)
        return;
    if (ct_sim_create(&s, cfg, &err) != CT_OK || ct_batch_init(&b, 256) != CT_OK)
        abort();
    while ((rc = ct_trace_next(t, &b, &err)) > 0) {
        clamp_sizes(&b);
        if (ct_sim_run(s, &b, &err) != CT_OK)
            break;
    }
    (void)ct_trace_get_info(t);
    ct_sim_finish(s);
    ct_batch_free(&b);
    ct_sim_free(s);
    ct_trace_close(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ct_config *strict, *lenient;
    if (!strict) {
        strict = make_config(0);
        lenient = make_config(1);
    }
    one_pass(data, size, strict);
    one_pass(data, size, lenient);
    return 0;
}
