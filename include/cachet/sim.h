/*
 * cachet/sim.h - the memory-hierarchy model and its statistics.
 *
 * ct_sim_create builds the hierarchy a configuration describes: per core an
 * L1I and an L1D (each optional), an L2 and an L3 (optional, each shared by
 * all cores or private per core), then memory. Every semantic rule (indexing,
 * line crossing, write and allocate policy, inclusion, cache operations,
 * prefetch, timing) is stated once at the top of sim/hier.c.
 *
 * With a TLB section ([itlb], [dtlb], [stlb]) every access is translated
 * first: per core TLBs, a walk cache and a page-table walker whose
 * descriptor reads go through the caches (rules at the top of sim/tlb.c and
 * sim/walk.c). Without one, nothing of this exists and costs nothing.
 *
 * The model owns all its memory from creation on; feeding it accesses
 * allocates nothing. Several models can live in one process and in several
 * threads (no globals).
 */
#ifndef CACHET_SIM_H
#define CACHET_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "cachet/access.h"
#include "cachet/config.h"
#include "cachet/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ct_sim ct_sim;

/* Build the hierarchy. Returns CT_OK, or CT_E_CONFIG / CT_E_NOMEM with err. */
int ct_sim_create(ct_sim **out, const ct_config *cfg, ct_error *err);

void ct_sim_free(ct_sim *s);

/* Feed every access of a batch in order. An access flagged CT_F_NOADDR (a
 * trace that masks its addresses) stops the batch there: returns
 * CT_E_UNSUPPORTED with err filled (the accesses before it were
 * simulated). Otherwise CT_OK. A translating model also takes the batch's
 * side records, each before the access it precedes: CT_MK_ASID and
 * CT_MK_VMID markers, and TTW / TTU events (the trace's page tables). */
int ct_sim_run(ct_sim *s, const ct_batch *b, ct_error *err);

/* Feed one access (the batch path calls the same code). */
void ct_sim_access(ct_sim *s, const ct_access *a);

/* One access, for a program that models its own memory traffic: kind
 * (CT_IFETCH, CT_LOAD, CT_STORE, CT_PREFETCH, CT_ATOMIC or CT_NOFETCH),
 * address and size in bytes, on core 0 without a pc (ct_sim_feed), or with
 * a pc (0: unknown) on a given core (ct_sim_feed_at). Returns CT_OK, or
 * CT_E_USAGE with err for another kind or a core the model does not have.
 * Each call costs a function call and two checks beside the model's own
 * work; a loop over many accesses is faster through a ct_batch and
 * ct_sim_run (the model's loop, inlined). */
int ct_sim_feed(ct_sim *s, int kind, uint64_t addr, uint32_t size, ct_error *err);
int ct_sim_feed_at(ct_sim *s, int kind, uint64_t addr, uint32_t size, uint64_t pc,
                   uint32_t core, ct_error *err);

/* Feed one side record, for callers that feed accesses one by one or in
 * pieces without their side records (ct_sim_run reads a batch's own): in
 * stream order, before the access it precedes. Only a translating model
 * looks at them (markers CT_MK_ASID / CT_MK_VMID; events TTW / TTU). */
void ct_sim_marker(ct_sim *s, const ct_marker *m);
void ct_sim_trace_event(ct_sim *s, const ct_event *ev);

/* The trace has ended: apply the end-of-run rules of the configuration
 * ([system] flush_at_end writes back every dirty line, top level first).
 * Call once, before reading the statistics. */
void ct_sim_finish(ct_sim *s);

/* Zero every counter; cache contents stay (warm-up). */
void ct_sim_reset_stats(ct_sim *s);

/* Which references ct_sim_run simulates, in stream order (drcachesim's
 * -skip_refs, -warmup_refs, -sim_refs; rules at the top of sim/window.c):
 * the first `skip` are dropped, the next `warmup` are simulated and then
 * every statistic is reset, the next `sim` are simulated (UINT64_MAX: all)
 * and the rest dropped. A reference is an access or a thread exit. Set
 * before the first batch; all zero with sim = UINT64_MAX is no window. */
typedef struct ct_window {
    uint64_t skip, warmup, sim;
    uint64_t dropped;   /* references the trace reader dropped already
                           (ct_trace_opts.skip_refs): reported as skipped */
} ct_window;
int ct_sim_set_window(ct_sim *s, const ct_window *w, ct_error *err);

/* 1 when the window's simulated references are done: later batches are
 * dropped, the caller can stop reading. */
int ct_sim_window_done(const ct_sim *s);

/* References dropped, simulated in the warm-up and simulated after it;
 * warmed: the warm-up ended and the statistics were reset. NULL without a
 * window (and without [system] warmup_fraction). */
typedef struct ct_window_stats {
    uint64_t skipped, warmup, simulated;
    int warmed;
} ct_window_stats;
const ct_window_stats *ct_sim_window_stats(const ct_sim *s);

/* Per-kind counters of one level. `cycles` is the latency charged to demand
 * accesses of this kind that this level serviced (hit here). */
typedef struct ct_kind_stats {
    uint64_t accesses;
    uint64_t hits;
    uint64_t misses;
    uint64_t compulsory;  /* misses on the first touch of the line (3C) */
    uint64_t capacity;    /* other misses that also miss in a fully-associative
                             LRU cache of the same size (3C) */
    uint64_t conflict;    /* the remaining misses (3C) */
} ct_kind_stats;

typedef struct ct_level_stats {
    ct_kind_stats kind[CT_KIND_COUNT];
    uint64_t writebacks;         /* dirty lines written to the next level */
    uint64_t evictions;          /* valid lines replaced to make room */
    uint64_t invalidations;      /* lines dropped by cache operations */
    uint64_t back_invalidations; /* lines dropped because an inclusive level
                                    below evicted them */
    uint64_t child_hits;         /* hits in the levels above that never reached
                                    this one (drcachesim's "child hits") */
    uint64_t prefetches_issued;  /* hardware prefetch requests made here */
    uint64_t prefetch_useful;    /* prefetched lines a demand access used */
    uint64_t prefetch_useless;   /* prefetched lines that left unused */
    uint64_t prefetch_late;      /* timing = overlap: prefetches a demand access
                                    waited for (sim/timing.c); 0 in blocking */
    uint64_t bytes_from_below;   /* bytes read from the next level or memory: a
                                    line per fetch (hardware prefetches too) */
    uint64_t bytes_to_below;     /* bytes written to the next level or memory: a
                                    line per write-back or victim sent to an
                                    exclusive level, the bytes of each
                                    write-through or non-allocating write */
    /* Coherence of the core model ([system] coherence = msi or mesi; rules
     * at the top of sim/coherence.c): each event counts once, at the
     * uppermost private level of the core that holds the line. */
    uint64_t coh_invalidations;  /* lines another core's write took from this core */
    uint64_t coh_downgrades;     /* Modified or Exclusive lines another core's read
                                    made Shared */
    uint64_t coh_writebacks;     /* dirty lines written to the point of coherence
                                    because another core read or wrote them */
    uint64_t coh_upgrades;       /* writes of this core to a line it held Shared */
} ct_level_stats;

/* Sum over kinds: total accesses, hits and misses of a level. */
ct_kind_stats ct_level_total(const ct_level_stats *st);

/* write_back and write_allocate = nofetch: DineroIV's nofetch policies (the
 * rules at the top of sim/hier.c). */
#define CT_WRITE_NOFETCH 2

/* Static description of one level. */
typedef struct ct_level_info {
    const char *name;       /* the config section: "l1i", "l1d", "l2", "l3" */
    int core;               /* owning core, or -1 for a shared level */
    uint64_t size;          /* bytes */
    uint32_t assoc;         /* ways */
    uint32_t line;          /* bytes */
    uint64_t sets;
    uint32_t latency;       /* cycles charged when this level services an access */
    const char *replacement;
    int write_back, write_allocate; /* 1 yes, 0 no, CT_WRITE_NOFETCH */
    const char *inclusion;  /* "non-inclusive", "inclusive", "exclusive" */
    int next;               /* index of the next level, -1 for memory */
    const char *prefetcher; /* "none", "nextline", "stride", "stream" */
} ct_level_info;

/* Levels are numbered in creation order: for each core its l1i then l1d,
 * then the l2 level(s), then the l3 level(s). */
size_t ct_sim_nlevels(const ct_sim *s);
const ct_level_info *ct_sim_level_info(const ct_sim *s, size_t i);
const ct_level_stats *ct_sim_level_stats(const ct_sim *s, size_t i);

/* Coherence under compat = drcachesim ([system] coherence; rules in
 * sim/drcachesim.c): its snoop filter's totals, NULL without coherence; and
 * for a snooped level, 1 with the lines other caches' writes invalidated
 * in *n (drcachesim's "Write invalidations"), else 0. */
typedef struct ct_coherence_stats {
    uint64_t writes, invalidations, writebacks;
} ct_coherence_stats;
const ct_coherence_stats *ct_sim_coherence(const ct_sim *s);

/* The core model's coherence protocol ([system] coherence outside compat =
 * drcachesim; sim/coherence.c): 0 none, 1 MSI, 2 MESI. */
int ct_sim_coherent(const ct_sim *s);
int ct_sim_level_write_invalidations(const ct_sim *s, size_t i, uint64_t *n);

/* The statistics of level i when the window's warm-up ended (before the
 * reset); NULL when it did not end. */
const ct_level_stats *ct_sim_level_warmup_stats(const ct_sim *s, size_t i);

/* Whole-run figures. */
typedef struct ct_sim_totals {
    uint64_t instructions;                /* instructions: the fetched ones (ifetch
                                             accesses) and those retired without a fetch
                                             (nofetch accesses) but repeats */
    uint64_t repeats;                     /* nofetch accesses with CT_F_REPEAT: an
                                             instruction executing again, not counted
                                             in instructions */
    uint64_t accesses[CT_KIND_STREAM];    /* stream accesses by kind */
    uint64_t cycles;                      /* sum of demand latencies (timing rule) */
    uint64_t kind_cycles[CT_KIND_STREAM]; /* cycles by kind, for AMAT */
    uint64_t kind_pieces[CT_KIND_STREAM]; /* line pieces by kind (denominator of AMAT) */
    uint64_t mem_reads;                   /* line reads that reached memory */
    uint64_t mem_writes;                  /* line writes that reached memory */
    uint64_t line_crossings;              /* accesses split because they crossed lines */
    uint64_t translation_cycles;          /* the part of cycles spent translating:
                                             TLB lookups and walks */
    uint64_t uncached[CT_KIND_STREAM];    /* accesses that bypassed the caches, by kind
                                             (sim/hier.c, "Uncached memory") */
} ct_sim_totals;

const ct_sim_totals *ct_sim_get_totals(const ct_sim *s);

/* One core's figures: what the accesses of its stream did, by the rules of
 * ct_sim_totals (the whole run's accesses, repeats, kind_cycles and cycles
 * are the sums of the cores'; instructions too). A level's MPKI divides
 * its misses by the instructions of the cores it serves: its own core's for
 * a private level, all cores' for a shared one. */
typedef struct ct_core_totals {
    uint64_t instructions;                /* as ct_sim_totals.instructions */
    uint64_t repeats;
    uint64_t accesses[CT_KIND_STREAM];    /* stream accesses by kind */
    uint64_t cycles;                      /* sum of the core's demand latencies */
    uint64_t kind_cycles[CT_KIND_STREAM]; /* cycles by kind */
} ct_core_totals;

/* Core `core`'s figures; NULL when the model has no such core. */
const ct_core_totals *ct_sim_core_totals(const ct_sim *s, uint32_t core);

/* ---- address translation (rules at the top of sim/tlb.c and sim/walk.c) -- */

/* Static description of one translation structure. */
typedef struct ct_tlb_info {
    const char *name;       /* the config section: "itlb", "dtlb", "stlb", "walkcache" */
    int core;               /* owning core (translation structures are private) */
    uint32_t entries;
    uint32_t assoc;         /* ways */
    uint64_t sets;
    uint32_t latency;       /* cycles per lookup */
    const char *replacement;
} ct_tlb_info;

#define CT_PAGE_LOG2_MAX 64

typedef struct ct_tlb_stats {
    ct_kind_stats kind[CT_KIND_COUNT]; /* lookups by the kind of access that made
                                          them: accesses, hits, misses */
    uint64_t fills;                    /* entries filled */
    uint64_t evictions;                /* valid entries replaced to make room */
    uint64_t hits_by_size[CT_PAGE_LOG2_MAX];  /* hits by log2 of the entry's size
                                                 (walk cache: the region covered) */
    uint64_t fills_by_size[CT_PAGE_LOG2_MAX]; /* fills by log2 of the size */
} ct_tlb_stats;

/* Translation structures are numbered per core in the order itlb, dtlb,
 * stlb, walkcache (absent ones skipped). 0 of them without translation. */
size_t ct_sim_ntlbs(const ct_sim *s);
const ct_tlb_info *ct_sim_tlb_info(const ct_sim *s, size_t i);
const ct_tlb_stats *ct_sim_tlb_stats(const ct_sim *s, size_t i);

/* One core's page-table walks. */
typedef struct ct_walk_stats {
    uint64_t walks;           /* misses in the last TLB of a side */
    uint64_t reads;           /* descriptor reads */
    uint64_t reads_by_level[4];
    uint64_t skipped_levels;  /* traced tables: levels the trace never showed */
    uint64_t faults;          /* walks that ended at an invalid descriptor */
    uint64_t cycles;          /* cycles charged to walks (reads included) */
} ct_walk_stats;

/* NULL when the model does not translate or core is out of range. */
const ct_walk_stats *ct_sim_walk_stats(const ct_sim *s, uint32_t core);

/* Events the model emits in the Tarmac vocabulary: ct_event with type
 * CT_EV_CACHE; op ALLOC/DIRTY/CLEAN/INVAL for processor caches and
 * FILL/EVICT/CLEAN/INVAL for system caches (each level's `events` key says
 * which it is: by default L1I, L1D and L2 are processor caches, L3 a
 * system cache); line = set * assoc
 * + way; addr = the line address the level indexes with (physical when
 * [system] indexing = physical and the trace gives one); CT_EVF_NS when the
 * line is non-secure. `level` is the level index (ct_sim_level_info); time
 * and cpu come from the causing access. The rules are at the top of
 * sim/hier.c. The event is valid during the call only.
 *
 * A translating model also emits TLB and WALKCACHE events (FILL, EVICT)
 * and one TTW event per descriptor read, in the fields cachet/access.h
 * describes; their `level` is ct_sim_nlevels() + the translation
 * structure's index (for TTW: the first TLB of the side that walked). */
typedef void (*ct_event_fn)(void *ctx, const ct_event *ev, size_t level);

/* Install (fn != NULL) or remove the event sink. With no sink the model does
 * no event work at all. */
void ct_sim_set_event_sink(ct_sim *s, ct_event_fn fn, void *ctx);

/* Statistics at intervals (DineroIV's -stat-interval): with n > 0 and fn,
 * ct_sim_run calls fn(ctx, s) after every n accesses it takes (counted as
 * [system] flush_every counts them, and before a periodic flush that falls
 * on the same access); the statistics fn sees are cumulative, as DineroIV
 * prints them, and the end of the run (ct_sim_finish) is not in them.
 * n = 0 or fn = NULL removes it; nothing is done per access without it. */
typedef void (*ct_interval_fn)(void *ctx, const ct_sim *s);
void ct_sim_set_interval(ct_sim *s, uint64_t n, ct_interval_fn fn, void *ctx);

/* replacement = opt (rules at the top of sim/policy/opt.c) needs two passes
 * over the same trace with the same window: the first, in a model of the
 * same configuration, records what arrives at each opt level; the second
 * simulates with the next uses computed from it. ct_sim_run refuses a
 * model with an opt level until ct_sim_opt_replay has given it its next
 * uses (CT_E_USAGE). The files live in directory dir (unlinked at once:
 * nothing is left behind however the process ends); they take 8 bytes per
 * arrival at each opt level.
 *
 * ct_sim_opt_levels: the number of opt levels (0: one pass suffices).
 * ct_sim_opt_record: make first a first-pass model. CT_OK, or CT_E_IO.
 * ct_sim_opt_replay: after the first pass (first's statistics are not used
 *   and its files are consumed), give s the next uses. CT_OK, CT_E_IO or
 *   CT_E_NOMEM (the backward pass holds one map entry per distinct line).
 * ct_sim_opt_check: after the second pass, CT_OK when it took exactly the
 *   arrivals of the first (CT_E_INTERNAL otherwise: the trace changed). */
size_t ct_sim_opt_levels(const ct_sim *s);
int ct_sim_opt_record(ct_sim *first, const char *dir, ct_error *err);
int ct_sim_opt_replay(ct_sim *s, ct_sim *first, const char *dir, ct_error *err);
int ct_sim_opt_check(const ct_sim *s, ct_error *err);

#ifdef __cplusplus
}
#endif
#endif
