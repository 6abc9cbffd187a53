/*
 * stream.c - sequential stream prefetcher.
 *
 * Rules
 *   A table of `prefetch_table` streams, each holding the last line it saw,
 *   a direction (+1 or -1 once trained, 0 while training), the next line it
 *   may request, and the time of its last use (for replacement).
 *   It hears of demand loads, stores and atomics that miss, and of the first
 *   demand use of a line a prefetch brought (CT_PF_HIT_PREFETCHED); other
 *   hits and instruction fetches do not concern it.
 *   A stream matches line L when |L - last| <= 16 lines (the fixed window)
 *   and, once trained, L does not lie behind it: (L - last) * dir >= 0. Of
 *   the streams that match, the most recently used one takes L:
 *     L = last        nothing changes but its time of use;
 *     training        dir = the sign of L - last, next = L + dir * distance;
 *   then last = L, and every line L + dir * (prefetch_distance + i), i = 0
 *   .. prefetch_degree - 1, not behind `next` is requested; next moves past
 *   the last one requested. So a trained stream requests each line once.
 *   A miss that no stream matches replaces the least recently used stream
 *   (last = L, training); a prefetched line's first use that no stream
 *   matches changes nothing.
 *   With degree 2 and distance 1, misses at lines 100 and 101 train a
 *   stream that requests 102 and 103; the first use of 102 then requests
 *   104, of 103 requests 105, and so on.
 */
#include <stdlib.h>

#include "cachet/access.h"
#include "../policy.h"

enum { STREAM_WINDOW = 16 };

typedef struct stream_entry {
    uint64_t last;   /* last line */
    uint64_t next;   /* next line it may request (trained) */
    uint64_t used;   /* time of last use; 0: never used */
    int dir;         /* +1, -1, 0 training */
} stream_entry;

typedef struct stream_pf {
    ct_prefetch_params p;
    uint64_t clock;
    stream_entry e[];
} stream_pf;

static void *stream_create(const ct_prefetch_params *params)
{
    stream_pf *sp = calloc(1, sizeof *sp + (size_t)params->table * sizeof sp->e[0]);
    if (sp)
        sp->p = *params;
    return sp;
}

static void stream_destroy(void *st) { free(st); }

static int matches(const stream_entry *e, uint64_t line)
{
    const uint64_t d = line >= e->last ? line - e->last : e->last - line;
    if (!e->used || d > STREAM_WINDOW)
        return 0;
    return e->dir == 0 || d == 0 || (e->dir > 0) == (line > e->last);
}

/* line + dir * k, or 0 with *ok cleared when it wraps around */
static uint64_t step(uint64_t line, int dir, uint64_t k, int *ok)
{
    if (dir > 0 ? UINT64_MAX - line < k : line < k) {
        *ok = 0;
        return 0;
    }
    return dir > 0 ? line + k : line - k;
}

static uint32_t stream_observe(void *st, uint64_t block, uint64_t pc, int kind, int seen,
                               uint64_t *out, uint32_t max)
{
    stream_pf *sp = st;
    stream_entry *e = NULL;
    uint32_t n = 0;
    int ok = 1;

    (void)pc;
    if ((kind != CT_LOAD && kind != CT_STORE && kind != CT_ATOMIC) || seen == CT_PF_HIT)
        return 0;
    sp->clock++;
    for (uint32_t i = 0; i < sp->p.table; i++)
        if (matches(&sp->e[i], block) && (!e || sp->e[i].used > e->used))
            e = &sp->e[i];
    if (!e) {
        if (seen != CT_PF_MISS)
            return 0;
        e = &sp->e[0];
        for (uint32_t i = 1; i < sp->p.table; i++)
            if (sp->e[i].used < e->used)
                e = &sp->e[i];
        *e = (stream_entry){.last = block, .used = sp->clock};
        return 0;
    }
    e->used = sp->clock;
    if (block == e->last)
        return 0;
    if (e->dir == 0) {
        e->dir = block > e->last ? 1 : -1;
        e->next = step(block, e->dir, sp->p.distance, &ok);
    }
    e->last = block;
    for (uint32_t i = 0; ok && i < sp->p.degree && n < max; i++) {
        const uint64_t want = step(block, e->dir, (uint64_t)sp->p.distance + i, &ok);
        if (!ok || (e->dir > 0 ? want < e->next : want > e->next))
            continue;
        out[n++] = want;
        e->next = step(want, e->dir, 1, &ok);
    }
    return n;
}

const ct_prefetch_ops ct_prefetch_stream = {
    .name = "stream",
    .help = "sequential streams: prefetch_table streams, prefetch_distance lines ahead",
    .create = stream_create, .destroy = stream_destroy, .observe = stream_observe,
};
