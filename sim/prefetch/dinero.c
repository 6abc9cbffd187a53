/*
 * dinero.c - DineroIV's fetch policies as prefetchers of a level:
 * prefetcher = always | miss | tagged | load-forward | subblock (DineroIV's
 * -fetch a, m, t, l, s; its d, demand fetch only, is "none").
 *
 * Rules (DineroIV 7's d4prefetch_* and d4ref):
 *  - A policy looks at every demand load and instruction fetch reaching the
 *    level, from the trace or from the level above (a fetch made for a
 *    store miss is a load below, so it counts); stores, misc accesses,
 *    atomics and prefetches trigger nothing.
 *  - The candidate is the sub-block holding the byte `prefetch_distance`
 *    sub-blocks (DineroIV's -pfdist; the line when the level has no
 *    sub-blocks) after the access's first byte. Note the unit: the
 *    nextline, stride and stream prefetchers count prefetch_distance in
 *    lines. always proposes it after every access; miss only after a miss
 *    (of the line or of a touched sub-block); tagged after a miss or the
 *    first demand access to a sub-block a prefetch brought (its
 *    "referenced" bit is clear); load-forward like always, but nothing
 *    when the candidate lies in another line; subblock like always, but a
 *    candidate in another line wraps around to the same offset of the
 *    access's own line.
 *  - prefetch_abort = P (percent, DineroIV's -pfabort): a candidate is
 *    dropped when the next number r of the C library's random() sequence
 *    (glibc's additive generator, seeded 1: sim/rng.c's ct_libc_random_next, one
 *    sequence for the whole model, drawn in the order the levels propose)
 *    has r / (2^31 - 1) / 100 < P, computed in integers as DineroIV does:
 *    r / 21474836 < P. No number is drawn when P is 0.
 *  - The prefetch itself is an access of kind hwprefetch to the one
 *    sub-block, made at the level after the demand access is done (its
 *    fetch, write-through and write-back included): it counts as a
 *    hwprefetch access (DineroIV's prefetch fetches) and, when the line or
 *    the sub-block is absent, a hwprefetch miss (prefetch misses, with
 *    their 3C class); a hit only tells the replacement policy. A miss
 *    fetches the sub-block from the next level as a read of the triggering
 *    kind (load or ifetch: DineroIV drops the prefetch attribute below),
 *    fills it marked prefetched, not referenced, and costs nothing.
 * The rules of the access live in sim/hier.c ("Hardware prefetch"); this
 * file only proposes.
 */
#include <stdlib.h>

#include "cachet/access.h"
#include "../policy.h"

enum { P_ALWAYS, P_MISS, P_TAGGED, P_LOADFORW, P_SUBBLOCK };

typedef struct fetch_policy {
    int kind;             /* P_* */
    uint32_t distance;    /* sub-blocks ahead */
} fetch_policy;

static void *fp_create(int kind, const ct_prefetch_params *params)
{
    fetch_policy *p = malloc(sizeof *p);
    if (p) {
        p->kind = kind;
        p->distance = params->distance;
    }
    return p;
}

static void *always_create(const ct_prefetch_params *p) { return fp_create(P_ALWAYS, p); }
static void *miss_create(const ct_prefetch_params *p) { return fp_create(P_MISS, p); }
static void *tagged_create(const ct_prefetch_params *p) { return fp_create(P_TAGGED, p); }
static void *loadforw_create(const ct_prefetch_params *p) { return fp_create(P_LOADFORW, p); }
static void *subblock_create(const ct_prefetch_params *p) { return fp_create(P_SUBBLOCK, p); }

static void fp_destroy(void *st) { free(st); }

/* Not a block prefetcher: the level calls propose instead. */
static uint32_t fp_observe(void *st, uint64_t block, uint64_t pc, int kind,
                           int seen, uint64_t *out, uint32_t max)
{
    (void)st; (void)block; (void)pc; (void)kind; (void)seen; (void)out; (void)max;
    return 0;
}

static int fp_propose(void *st, uint64_t addr, int kind, int seen, uint32_t line_bits,
                      uint32_t sb_bits, uint64_t *out)
{
    const fetch_policy *p = st;
    uint64_t a;

    if (kind != CT_LOAD && kind != CT_IFETCH)
        return 0;
    if ((p->kind == P_MISS && seen != CT_PF_MISS) || (p->kind == P_TAGGED && seen == CT_PF_HIT))
        return 0;
    a = (addr + ((uint64_t)p->distance << sb_bits)) & ~((1ull << sb_bits) - 1);
    if ((a >> line_bits) != (addr >> line_bits)) {
        if (p->kind == P_LOADFORW)
            return 0;
        if (p->kind == P_SUBBLOCK)
            a -= 1ull << line_bits;
    }
    *out = a;
    return 1;
}

#define FETCH_POLICY(var, nm, make, text)                                                   \
    const ct_prefetch_ops var = {                                                          \
        .name = nm, .help = text, .create = make, .destroy = fp_destroy,                   \
        .observe = fp_observe, .propose = fp_propose,                                      \
    }

FETCH_POLICY(ct_prefetch_always, "always", always_create,
             "DineroIV -fetch a: the sub-block prefetch_distance sub-blocks ahead, after every "
             "demand read");
FETCH_POLICY(ct_prefetch_miss, "miss", miss_create,
             "DineroIV -fetch m: as always, after a demand read miss only");
FETCH_POLICY(ct_prefetch_tagged, "tagged", tagged_create,
             "DineroIV -fetch t: as always, after a miss or a first use of a prefetched "
             "sub-block");
FETCH_POLICY(ct_prefetch_loadforw, "load-forward", loadforw_create,
             "DineroIV -fetch l: as always, never into the next line");
FETCH_POLICY(ct_prefetch_subblock, "subblock", subblock_create,
             "DineroIV -fetch s: as always, wrapping around within the line");
