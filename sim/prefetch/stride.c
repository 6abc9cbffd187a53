/*
 * stride.c - per-instruction stride prefetcher (after ChampSim's ip_stride).
 *
 * Rules
 *   A fully associative table of `prefetch_table` entries, each holding the
 *   pc it belongs to, the last line that pc touched, a stride in lines
 *   (signed) and a confidence of 0 to 3.
 *   Every demand load, store and atomic trains it, hit or miss; instruction
 *   fetches do not. An access whose pc owns no entry takes the least
 *   recently used entry (pc, its line, stride 0, confidence 0) and requests
 *   nothing. Otherwise its entry becomes the most recently used and, with
 *   d = line - last line:
 *     d = 0          nothing changes and nothing is requested (same line);
 *     d = stride     confidence + 1, at most 3;
 *     otherwise      stride = d, confidence = 0;
 *   then last line = line, and when confidence >= `prefetch_confidence` the
 *   lines line + stride * (prefetch_distance + i), i = 0 .. prefetch_degree
 *   - 1, are requested (those that would wrap around the address space are
 *   left out).
 *   With the defaults (confidence 1, distance 1, degree 1) a pc walking the
 *   lines A, A+s, A+2s, ... requests A+3s at its third access and from then
 *   on the line one stride ahead of each access.
 */
#include <stdlib.h>

#include "cachet/access.h"
#include "../map.h"
#include "../policy.h"

typedef struct stride_entry {
    uint64_t pc;
    uint64_t last;    /* last line */
    int64_t stride;   /* lines */
    uint64_t used;    /* time of last use; 0: free */
    uint32_t conf;    /* 0..3 */
} stride_entry;

typedef struct stride_pf {
    ct_prefetch_params p;
    ct_map where;     /* pc -> entry index */
    uint64_t clock;
    stride_entry e[];
} stride_pf;

static void stride_destroy(void *st)
{
    stride_pf *sp = st;
    if (sp)
        ct_map_free(&sp->where);
    free(sp);
}

static void *stride_create(const ct_prefetch_params *params)
{
    stride_pf *sp = calloc(1, sizeof *sp + (size_t)params->table * sizeof sp->e[0]);
    if (!sp)
        return NULL;
    sp->p = *params;
    if (ct_map_reserve(&sp->where, params->table) != 0) {  /* no allocation while running */
        stride_destroy(sp);
        return NULL;
    }
    return sp;
}

/* The entry of pc, or a new one in place of the least recently used. */
static stride_entry *entry_of(stride_pf *sp, uint64_t pc, int *fresh)
{
    const uint64_t *at = ct_map_find(&sp->where, pc);
    stride_entry *e;
    int added;

    *fresh = at == NULL;
    if (at) {
        e = &sp->e[*at];
    } else {
        e = &sp->e[0];
        for (uint32_t i = 1; i < sp->p.table && e->used; i++)
            if (sp->e[i].used < e->used)
                e = &sp->e[i];
        if (e->used)
            (void)ct_map_del(&sp->where, e->pc);
        *ct_map_put(&sp->where, pc, &added) = (uint64_t)(e - sp->e);  /* room reserved */
    }
    e->used = ++sp->clock;
    return e;
}

static uint32_t stride_observe(void *st, uint64_t block, uint64_t pc, int kind, int seen,
                               uint64_t *out, uint32_t max)
{
    stride_pf *sp = st;
    stride_entry *e;
    uint32_t n = 0;
    int fresh;

    (void)seen;
    if (kind != CT_LOAD && kind != CT_STORE && kind != CT_ATOMIC)
        return 0;
    e = entry_of(sp, pc, &fresh);
    if (fresh) {
        *e = (stride_entry){.pc = pc, .last = block, .used = e->used};
        return 0;
    }
    if (block == e->last)
        return 0;
    if ((int64_t)(block - e->last) == e->stride) {
        if (e->conf < 3)
            e->conf++;
    } else {
        e->stride = (int64_t)(block - e->last);
        e->conf = 0;
    }
    e->last = block;
    if (e->conf < sp->p.confidence)
        return 0;
    for (uint32_t i = 0; i < sp->p.degree && n < max; i++) {
        const uint64_t ahead = (uint64_t)sp->p.distance + i;
        const uint64_t step = (uint64_t)(e->stride < 0 ? -e->stride : e->stride);
        if (step > UINT64_MAX / ahead)
            break;
        if (e->stride < 0 ? block < step * ahead : UINT64_MAX - block < step * ahead)
            break;  /* would wrap around the address space */
        out[n++] = e->stride < 0 ? block - step * ahead : block + step * ahead;
    }
    return n;
}

const ct_prefetch_ops ct_prefetch_stride = {
    .name = "stride",
    .help = "per-pc stride detection: prefetch_table entries, prefetch_confidence repeats",
    .create = stride_create, .destroy = stride_destroy, .observe = stride_observe,
};
