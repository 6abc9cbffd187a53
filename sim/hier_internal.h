/*
 * hier_internal.h - the hierarchy's private state (internal; the rules are
 * at the top of hier.c).
 */
#ifndef CT_HIER_INTERNAL_H
#define CT_HIER_INTERNAL_H

#include <stdint.h>

#include "cachet/sim.h"
#include "cache.h"
#include "classify.h"
#include "config_internal.h"
#include "policy.h"

#define CT_MAX_LEVELS_ABOVE 2048
#define CT_PF_MAX 64

/* A tapped level hands every request that reaches its lookup to fn instead
 * of simulating it (a sweep's one-pass analysis computes the outcomes for
 * many geometries at once). `demand` is 1 when the latency of the request
 * is charged to a demand access (the rule in hier.c); the level answers
 * with latency 0 and the tap adds the right one per geometry. */
typedef void (*ct_tap_fn)(void *ctx, uint64_t addr, uint32_t bytes, int kind, int write,
                          int demand);

typedef struct ct_level {
    ct_cache c;
    int next;                   /* index of the next level, -1: memory */
    int lv;                     /* enum ct_level_id */
    int inclusion;              /* enum ct_inclusion (relative to the levels above) */
    int write_back;
    int write_allocate;
    uint32_t latency;
    uint32_t line;              /* bytes */
    uint32_t nabove;            /* levels whose path down passes through this one */
    uint32_t *above;
    const ct_prefetch_ops *pf;  /* NULL when the prefetcher is "none" */
    void *pfst;
    ct_classify *cls;           /* NULL unless [system] miss_classes */
    ct_tap_fn tap;              /* non-NULL: requests go to tap, not the tags */
    void *tap_ctx;
    ct_level_stats st;
    ct_level_info info;
    char name[8];
} ct_level;

struct ct_sim {
    ct_level *lv;
    size_t nlv;
    uint32_t cores;
    int *first_i;               /* per core: level taking instruction fetches, -1: memory */
    int *first_d;               /* per core: level taking data accesses, -1: memory */
    uint32_t mem_latency;
    int use_paddr;              /* [system] indexing = physical */
    int flush_at_end;           /* [system] flush_at_end */
    ct_sim_totals tot;
    const ct_access *cur;       /* access being simulated (for events) */
    int demand;                 /* 1 while the request being served charges its
                                   latency to a demand access */
    ct_event_fn ev_fn;
    void *ev_ctx;
};

/* Tap level li (fn NULL removes the tap). */
void ct_sim_tap(ct_sim *s, size_t li, ct_tap_fn fn, void *ctx);

#endif
