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
#include "rng.h"
#include "uncached.h"

#define CT_MAX_LEVELS_ABOVE 2048
#define CT_PF_MAX 64

struct ct_sim;
struct ct_xlate;

/* The last byte of [addr, addr + bytes) (a size of 0 counts as 1): the
 * top of the address space when the range would run past it (rule "Line
 * crossing" in hier.c). */
static inline uint64_t ct_last_byte(uint64_t addr, uint64_t bytes)
{
    const uint64_t n = bytes ? bytes - 1 : 0;
    return addr + n < addr ? UINT64_MAX : addr + n;
}

/* The last byte of the piece of [p, last] that lies in p's line of
 * 2^line_bits bytes. */
static inline uint64_t ct_piece_last(uint64_t p, uint64_t last, uint32_t line_bits)
{
    const uint64_t line_last = p | ((1ull << line_bits) - 1);
    return line_last < last ? line_last : last;
}

/* Serve one access that lies within one line of level li; returns the
 * latency charged for it. */
typedef uint32_t (*ct_serve_fn)(struct ct_sim *s, int li, uint64_t addr, uint32_t bytes,
                                int kind, int write);

struct ct_level;

/* The miss half of serving one line of level L; set is the block's set.
 * Returns the latency. */
typedef uint32_t (*ct_miss_fn)(struct ct_sim *s, struct ct_level *L, uint64_t addr,
                               uint32_t bytes, int kind, int write, uint64_t set);

/* A tapped level hands every request that reaches its lookup to fn instead
 * of simulating it (a sweep's one-pass analysis computes the outcomes for
 * many geometries at once). `charge` is the kind of the trace's access
 * whose cycles the latency of the request adds to, -1 when it is charged
 * to nobody (the rule in hier.c); the level answers with latency 0 and the
 * tap adds the right one per geometry. */
typedef void (*ct_tap_fn)(void *ctx, uint64_t addr, uint32_t bytes, int kind, int write,
                          int charge);

/* A tapped level may also take a batch's accesses itself, when it is the
 * first level of the only core for loads and stores and fetches go to it
 * or to memory (hier.c, run_tap_batch): from acc[i] on, each access as
 * ct_tap_step says, until one it leaves. Returns the index of that access
 * (n: none). */
typedef uint32_t (*ct_tap_run_fn)(void *ctx, const ct_access *acc, uint32_t i, uint32_t n,
                                  uint16_t paddr_flag, unsigned mine, uint64_t *taken,
                                  uint64_t *mem, uint64_t *nofetch);

/* One access of a ct_tap_run_fn's run, by run_lru_tap's rules for a tapped
 * first level of `line` bytes taking the kinds in `mine` (a bit per kind):
 * 1 when the tap takes it (counted in taken; its address in *addr); 0 when
 * it is only counted: a fetch, load or store of another kind (memory's,
 * in mem), an instruction without a fetch (nofetch[0], its repeat in
 * nofetch[1]); -1 when the run ends at it (one that crosses a line, of
 * another kind, on another core, of Device memory or without an address:
 * the model takes or refuses it). */
FORCE_INLINE int ct_tap_step(const ct_access *a, uint16_t paddr_flag, unsigned mine,
                             uint32_t line, uint64_t *taken, uint64_t *mem,
                             uint64_t *nofetch, uint64_t *addr)
{
    const unsigned kind = a->kind;
    /* (CT_F_NOADDR and CT_F_DEVICE are above CT_STORE: one compare for all) */
    if ((kind | (a->flags & (CT_F_NOADDR | CT_F_DEVICE))) > CT_STORE || a->core) {
        if (kind != CT_NOFETCH || (a->flags & CT_F_NOADDR) || a->core)
            return -1;
        nofetch[0]++;
        nofetch[1] += (a->flags & CT_F_REPEAT) != 0;
        return 0;
    }
    if (!(mine >> kind & 1)) {
        mem[kind]++;
        return 0;
    }
    *addr = (a->flags & paddr_flag) ? a->paddr : a->vaddr;
    if ((*addr & (line - 1)) + a->size > line)
        return -1;
    taken[kind]++;
    return 1;
}

/* The lines that accesses entering a level from the trace found last, latest
 * first: hints for finding them again, checked against the tags (hier.c,
 * run_lru). */
typedef struct ct_hint {
    uint64_t block[2];
    uint64_t idx[2];
} ct_hint;

typedef struct ct_level {
    ct_cache c;
    ct_hint hint[2];            /* for instruction fetches, for data accesses */
    ct_serve_fn serve;          /* chosen for the level's policy and tap (choose_paths) */
    ct_serve_fn serve_inner;    /* coherence: the serve function serve_coh wraps */
    ct_miss_fn miss;            /* chosen with it: the plain miss path or the general one */
    int plain;                  /* misses take the plain path (hier.c, choose_paths) */
    uint32_t wsel;              /* 8 or 16: its paths are the copies for that many ways
                                   (and a power-of-two number of sets); 0: for any */
    int miss_inline;            /* run_lru serves its misses inline: 1 the plain miss of
                                   8 ways above 16, 2 the same above the last level */
    int index;                  /* position in ct_sim.lv */
    int next;                   /* index of the next level, -1: memory */
    struct ct_level *below;     /* the next level, NULL: memory */
    int lv;                     /* enum ct_level_id */
    int inclusion;              /* enum ct_inclusion (relative to the levels above) */
    int write_back;
    int write_allocate;
    uint32_t latency;
    uint32_t line;              /* bytes */
    int incl_below;             /* an inclusive level is on the path below */
    uint32_t nabove;            /* levels whose path down passes through this one */
    uint32_t *above;
    const ct_prefetch_ops *pf;  /* NULL when the prefetcher is "none" */
    void *pfst;
    ct_classify *cls;           /* NULL unless [system] miss_classes */
    struct ct_opt *opt;         /* replacement = opt: the policy state, else NULL */
    ct_tap_fn tap;              /* non-NULL: requests go to tap, not the tags */
    ct_tap_run_fn tap_run;      /* NULL, or the tap over a run of a batch */
    void *tap_ctx;
    ct_level_stats st;
    ct_level_info info;
    char name[8];
    int system_events;          /* 1: emits system-cache events (rule "Events") */
    uint32_t *sb_valid, *sb_dirty; /* per line: valid and dirty sub-blocks; NULL
                                      without sub-blocks (hier.c, "Sub-blocks") */
    uint32_t *sb_ref;           /* per line: sub-blocks a demand access used since the
                                   fill (DineroIV's referenced bits), with sb_valid */
    uint32_t pf_abort;          /* fetch policies: percent of proposals dropped */
    uint32_t sb_bits, sb_full;  /* log2 of the sub-block bytes; the mask of a line's */
} ct_level;

/* Where the accesses of one core enter the hierarchy, by kind (ifetch,
 * load, store; the fourth entries are padding), and what run_lru has
 * served of them in the batch so far and not yet counted (hier.c). */
typedef struct ct_route {
    struct ct_level *L[4];      /* the first level, NULL: memory */
    struct ct_hint *H[4];       /* what L remembers for them (loads and stores share it) */
    uint64_t n[4];              /* accesses served */
    uint64_t cycles[4];         /* their cycles */
    uint64_t mem[4];            /* accesses that went to memory (run_lru_tap) */
} ct_route;

struct ct_sim {
    int (*run)(struct ct_sim *s, const ct_batch *b, ct_error *err); /* chosen at creation */
    ct_route *route;            /* per core */
    uint16_t paddr_flag;        /* CT_F_PADDR when indexing is physical, else 0 */
    ct_level *lv;
    size_t nlv;
    uint32_t cores;
    int *first_i;               /* per core: level taking instruction fetches, -1: memory */
    ct_libc_random libc_rand;   /* the fetch policies' prefetch_abort draws */
    int *first_d;               /* per core: level taking data accesses, -1: memory */
    uint32_t mem_latency;
    int use_paddr;              /* [system] indexing = physical */
    int flush_at_end;           /* [system] flush_at_end */
    uint64_t flush_every;       /* [system] flush_every (0: off) */
    uint64_t since_flush;       /* accesses run since the last periodic flush */
    uint64_t interval;          /* ct_sim_set_interval (0: off) */
    uint64_t since_interval;    /* accesses run since the last interval */
    ct_interval_fn iv_fn;
    void *iv_ctx;
    ct_batch part;              /* flush_every, interval: the side records of a part of a
                                   batch */
    int general;                /* ct_sim_force_general: no specialised paths */
    uint32_t nopt;              /* levels with replacement = opt (opt_pass.c) */
    uint16_t uncached_flags;    /* CT_F_DEVICE with [system] device_uncached, else 0 */
    size_t nuncached;           /* [system] uncached: ranges, sorted */
    ct_range uncached[CT_UNCACHED_MAX];
    ct_sim_totals tot;          /* accesses, repeats, kind_cycles, cycles and
                                   instructions are the sums of core_tot's,
                                   made by refresh (hier.c) */
    ct_core_totals *core_tot;   /* per core: its stream's counters */
    const ct_access *cur;       /* access being simulated (for events) */
    int ns;                     /* security of the request in flight (line fills) */

    int demand;                 /* 1 while the request being served charges its
                                   latency to a demand access */
    ct_event_fn ev_fn;
    void *ev_ctx;
    struct ct_dcs *dcs;         /* non-NULL: drcachesim's counting rules (drcachesim.c) */
    struct ct_window_state *win; /* non-NULL: skip, warm-up, simulated count (window.c) */
    struct ct_xlate *xl;        /* address translation (tlb.h), NULL: none */
    struct ct_timing *tm;       /* timing = overlap (timing.c), NULL: blocking */
    struct ct_coh *coh;         /* coherence of the core model (coherence.c), NULL: none */
    int coh_busy;               /* ct_coh_serve is serving a trace access's piece */
};

/* drcachesim.c: check the hierarchy s was built with against what drcachesim
 * models and attach its state (CT_OK or CT_E_CONFIG); run accesses by its
 * rules; free the state. */
int ct_dcs_attach(ct_sim *s, const struct ct_config *cfg, ct_error *err);
void ct_dcs_access(ct_sim *s, const ct_access *a);
int ct_dcs_run(ct_sim *s, const ct_batch *b, ct_error *err);
/* The smallest fraction of its lines any last level has had filled
 * (drcachesim's loaded-block count over its blocks). */
double ct_dcs_loaded_fraction(const ct_sim *s);
/* Coherence (drcachesim.c): the filter's totals (NULL without coherence),
 * a snooped level's write invalidations (0: the level is not snooped), and
 * the reset of the latter with every other statistic. */
const ct_coherence_stats *ct_dcs_coherence(const ct_sim *s);
int ct_dcs_level_write_invalidations(const ct_sim *s, size_t li, uint64_t *n);
void ct_dcs_reset_stats(ct_sim *s);

/* coherence.c: check the hierarchy s was built with against what the
 * protocol of cfg's [system] coherence keeps and attach its state (CT_OK or
 * CT_E_CONFIG; nothing with coherence = none); whether level li takes trace
 * accesses through ct_coh_serve; serve one piece of a trace access at the
 * first level li by the protocol's rules around li's own serve function;
 * before a hardware prefetch of block into private level li, the snoop of
 * a read (returns whether the line is to be the core's alone); after a fill
 * of block into private level li, the core's ownership of it when `own`; a
 * cache operation's write of a whole line (zero, allocate) at private level
 * li, before its fill; the protocol (0 none, 1 MSI, 2 MESI); free the
 * state. */
int ct_coh_attach(ct_sim *s, const struct ct_config *cfg, ct_error *err);
int ct_coh_entry(const ct_sim *s, size_t li);
uint32_t ct_coh_serve(ct_sim *s, int li, uint64_t addr, uint32_t bytes, int kind, int write);
int ct_coh_prefetch(ct_sim *s, int li, uint64_t block);
void ct_coh_filled(ct_sim *s, int li, uint64_t block, int own);
void ct_coh_claim(ct_sim *s, int li, uint64_t block);
int ct_coh_protocol(const struct ct_coh *c);
void ct_coh_free(struct ct_coh *c);

/* hier.c, for coherence.c: report a coherence change (op, enum
 * ct_event_op) of line idx of level li when an event sink is installed;
 * drop line idx of level li (reported as INVAL; a hardware prefetch not yet
 * used counts as useless); write a dirty line's bytes [addr, addr + bytes)
 * to level li (-1: memory) as a buffered write-back that costs nothing. */
void ct_hier_coh_event(ct_sim *s, size_t li, int op, uint64_t idx);
void ct_hier_drop_line(ct_sim *s, size_t li, uint64_t idx);
void ct_hier_write_back(ct_sim *s, int li, uint64_t addr, uint32_t bytes);

/* window.c: a batch through the window; a warm-up by fraction (> 0);
 * freeing the window's state. */
int ct_window_run(ct_sim *s, const ct_batch *b, ct_error *err);
int ct_window_fraction(ct_sim *s, double fraction, ct_error *err);
void ct_window_free(struct ct_window_state *w);
void ct_dcs_free(struct ct_dcs *d);

/* Serve every access by the general rules (run_any, serve_any, miss)
 * instead of the paths specialised for the configuration: the reference
 * that test_paths compares them with. */
void ct_sim_force_general(ct_sim *s);

/* opt_pass.c: refuse an opt level whose stream the first pass cannot
 * record exactly (rule "Exactness" of sim/policy/opt.c) and find the opt
 * levels; before a batch, refuse a model whose opt levels have no pass
 * attached; after it, report a failed file operation. */
int ct_opt_attach(ct_sim *s, const struct ct_config *cfg, ct_error *err);
int ct_opt_ready(const ct_sim *s, ct_error *err);
int ct_opt_status(const ct_sim *s, ct_error *err);

/* Tap level li (fn NULL removes the tap); run, if not NULL, takes runs of
 * a batch at once where it can (ct_tap_run_fn). */
void ct_sim_tap(ct_sim *s, size_t li, ct_tap_fn fn, ct_tap_run_fn run, void *ctx);

/* A page-table walk's descriptor read: 8 bytes at physical address pa,
 * kind CT_WALK, from level li down (li < 0: memory), with security ns.
 * Returns the latency (hier.c). */
uint32_t ct_hier_walk_read(struct ct_sim *s, int li, uint64_t pa, int ns);

/* The memory a hierarchy of cfg allocates, as an estimate from above: its
 * tags, flags and fingerprints (ct_cache_bytes), 8 bytes a line of policy
 * state, 64 a line of miss classification when on, 64 KiB besides. The
 * sweep bounds the hierarchies one pass holds with it (sweep.c). */
uint64_t ct_sim_bytes_estimate(const ct_config *cfg);

#endif
