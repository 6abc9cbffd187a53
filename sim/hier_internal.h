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

struct ct_sim;

/* Serve one access that lies within one line of level li; returns the
 * latency charged for it. */
typedef uint32_t (*ct_serve_fn)(struct ct_sim *s, int li, uint64_t addr, uint32_t bytes,
                                int kind, int write);

typedef struct ct_level {
    ct_cache c;
    ct_serve_fn serve;          /* chosen at creation for this level's policy */
    int index;                  /* position in ct_sim.lv */
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
    ct_level_stats st;
    ct_level_info info;
    char name[8];
} ct_level;

struct ct_sim {
    int (*run)(struct ct_sim *s, const ct_batch *b, ct_error *err); /* chosen at creation */
    struct ct_level **route;    /* per core and kind (ifetch, load, store): first level */
    uint16_t paddr_flag;        /* CT_F_PADDR when indexing is physical, else 0 */
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
    int ns;                     /* security of the request in flight (line fills) */
    ct_event_fn ev_fn;
    void *ev_ctx;
};

#endif
