/*
 * trace_collect.h - read a whole trace into arrays for tests: every access
 * and marker in stream order, the final status, the error and the info.
 */
#ifndef CT_TRACE_COLLECT_H
#define CT_TRACE_COLLECT_H

#include <stdlib.h>
#include <string.h>

#include "cachet/cachet.h"

#define TC_MAX 8192

typedef struct tc_result {
    ct_access a[TC_MAX];
    size_t n;
    ct_marker m[TC_MAX];
    size_t nm;
    int rc;                 /* 0 or the negative code that stopped reading */
    ct_error err;
    ct_trace_info info;
} tc_result;

/* Read paths with the given -s style settings (NULL-terminated, may be
 * NULL). The result is static storage, overwritten by the next call. */
static tc_result *tc_read(const char *const *paths, size_t npaths, const char *const *sets)
{
    static tc_result r;
    ct_config *cfg = NULL;
    ct_trace *t = NULL;
    ct_trace_opts to;
    ct_batch b;
    int rc;

    memset(&r, 0, sizeof r);
    memset(&to, 0, sizeof to);
    memset(&b, 0, sizeof b);
    if ((rc = ct_config_new_default(&cfg, &r.err)) != CT_OK)
        goto out;
    for (size_t i = 0; sets && sets[i]; i++)
        if ((rc = ct_config_set(cfg, sets[i], &r.err)) != CT_OK)
            goto out;
    to.cfg = cfg;
    if ((rc = ct_trace_open(&t, paths, npaths, &to, &r.err)) != CT_OK)
        goto out;
    if ((rc = ct_batch_init(&b, 256)) != CT_OK)
        goto out;
    while ((rc = ct_trace_next(t, &b, &r.err)) > 0) {
        for (uint32_t i = 0, mi = 0; i <= b.n; i++) {
            for (; mi < b.nmk && b.mk[mi].index <= i; mi++)
                if (r.nm < TC_MAX) {
                    r.m[r.nm] = b.mk[mi];
                    r.m[r.nm].index = (uint32_t)r.n;
                    r.nm++;
                }
            if (i < b.n && r.n < TC_MAX)
                r.a[r.n++] = b.acc[i];
        }
    }
out:
    r.rc = rc < 0 ? rc : 0;
    if (t)
        r.info = *ct_trace_get_info(t);
    ct_batch_free(&b);
    ct_trace_close(t);
    ct_config_free(cfg);
    return &r;
}

static tc_result *tc_read1(const char *path, const char *const *sets)
{
    const char *paths[1] = {path};
    return tc_read(paths, 1, sets);
}

/* Number of markers of a type. */
static inline size_t tc_markers(const tc_result *r, int type)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nm; i++)
        n += r->m[i].type == type;
    return n;
}

#endif
