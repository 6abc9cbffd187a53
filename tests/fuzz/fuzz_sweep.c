/*
 * fuzz_sweep.c - a libFuzzer target for the sweep-file parser: the input is
 * written to a file and loaded. A sweep that loads has every point's values
 * and configuration read back, its CSV header written, and, when it has at
 * most 16 points of small caches, is run on a short synthetic trace with
 * one worker (this reaches the one-pass grouping and the CSV rows).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachet/cachet.h"
#include "cachet/sweep.h"
#include "fuzz_files.h"

static int discard(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    (void)data;
    (void)len;
    return 0;
}

typedef struct rows {
    ct_writer w;
    const ct_sweep *sw;
} rows;

static int on_result(void *ctx, const ct_sweep_result *r)
{
    rows *o = ctx;
    (void)ct_sweep_csv_rows(&o->w, o->sw, r, "gen:stream:n=2000", 0);
    return 0;
}

/* 1 when every point's caches are small and its cores few. */
static int small(const ct_sweep *sw)
{
    static const char *const levels[] = {"l1i", "l1d", "l2", "l3"};
    char buf[64];
    const char *v;
    for (size_t i = 0; i < ct_sweep_npoints(sw); i++) {
        const ct_config *c = ct_sweep_point_config(sw, i);
        if (!c)
            return 0;
        for (int k = 0; k < 4; k++)
            if ((v = ct_config_get(c, levels[k], "size", buf, sizeof buf)) &&
                strtoull(v, NULL, 10) > (4u << 20))
                return 0;
        if ((v = ct_config_get(c, "system", "cores", buf, sizeof buf)) &&
            strtoull(v, NULL, 10) > 4)
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    ct_sweep *sw = NULL;
    ct_error err = {0};
    ct_writer w = {discard, NULL, 0};

    if (!path[0])
        fuzz_path(path, sizeof path, "sweep.ini");
    fuzz_write(path, data, size);
    if (ct_sweep_load(&sw, path, &err) != CT_OK)
        return 0;
    for (size_t i = 0; i < ct_sweep_npoints(sw); i++)
        for (size_t j = 0; j < ct_sweep_nparams(sw); j++)
            if (!ct_sweep_point_value(sw, i, j) || !ct_sweep_param(sw, j))
                abort();
    for (size_t k = 0; k < ct_sweep_nskipped(sw); k++)
        if (!ct_sweep_skipped(sw, k))
            abort();
    (void)ct_sweep_hash(sw);
    ct_sweep_csv_header(&w, sw);
    if (ct_sweep_npoints(sw) <= 16 && small(sw)) {
        static const char *const traces[] = {"gen:stream:n=2000"};
        ct_sweep_opts o = {0};
        rows out = {{discard, NULL, 0}, sw};
        o.threads = 1;
        o.interval = 500;
        o.result = on_result;
        o.result_ctx = &out;
        (void)ct_sweep_run(sw, traces, 1, &o, &err);
    }
    ct_sweep_free(sw);
    return 0;
}
