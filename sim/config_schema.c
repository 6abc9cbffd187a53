/*
 * config_schema.c - every configuration key cachet accepts, in one table.
 *
 * The parser (config.c), `cachet config --keys` and configs/README.md all
 * come from these rows. A row names its section, key, type, the field it
 * fills, its range, its default and one line of help with the unit.
 */
#include <stddef.h>

#include "../frontends/frontend.h"
#include "config_internal.h"
#include "policy.h"
#include "tlb.h"
#include "uncached.h"
#include "timing.h"
#include "window.h"

enum { S_SYSTEM, S_L1I, S_L1D, S_L2, S_L3, S_ITLB, S_DTLB, S_STLB, S_WALKCACHE, S_WALK,
       S_MEMORY, S_TRACE, S_TT6 };

const ct_schema_section ct_schema_sections[] = {
    [S_SYSTEM] = {"system", 0, "cores, seed, indexing, statistics"},
    [S_L1I] = {"l1i", 1, "per-core level-1 instruction cache"},
    [S_L1D] = {"l1d", 1, "per-core level-1 data cache"},
    [S_L2] = {"l2", 1, "level-2 unified cache (shared or private)"},
    [S_L3] = {"l3", 1, "level-3 unified cache (shared or private)"},
    [S_ITLB] = {"itlb", 1, "per-core instruction TLB (rules in sim/tlb.c)"},
    [S_DTLB] = {"dtlb", 1, "per-core data TLB"},
    [S_STLB] = {"stlb", 1, "per-core unified second-level TLB (Fast Models S1TLB)"},
    [S_WALKCACHE] = {"walkcache", 1, "per-core cache of table descriptors for the walker"},
    [S_WALK] = {"walk", 1, "the page-table walker and its tables (rules in sim/walk.c)"},
    [S_MEMORY] = {"memory", 0, "main memory"},
    [S_TRACE] = {"trace", 0, "how traces are read and scheduled onto cores"},
    [S_TT6] = {"tt6", 1, "Amber TT6 and TT6E PowerPC traces: choices the format leaves open "
                         "(absent: every default)"},
};
const size_t ct_schema_nsections = sizeof ct_schema_sections / sizeof ct_schema_sections[0];

static const char *const indexing_names[] = {"physical", "virtual", NULL};
static const char *const inclusion_names[] = {"non-inclusive", "inclusive", "exclusive", NULL};
static const char *const schedule_names[] = {"auto", "threads", "cpus", "single", NULL};
static const char *const interleave_names[] = {"auto", "timestamp", "quantum", NULL};
static const char *const compat_names[] = {"none", "drcachesim", NULL};
static const char *const coherence_names[] = {"none", "msi", "mesi", NULL};
static const char *const timing_names[] = {"blocking", "overlap", NULL};
static const char *const tt6_dst_names[] = {"off", "first", "stream", NULL};
static const char *const port_names[] = {"l1d", "l2", "l3", "memory", NULL};
static const char *const tables_names[] = {"auto", "trace", "synthetic", NULL};
static const char *const events_names[] = {"processor", "system", NULL};
static const char *const nofetch_names[] = {"nofetch", NULL}; /* CT_WRITE_NOFETCH */

#define F(field) offsetof(struct ct_config, field), sizeof(((struct ct_config *)0)->field)
#define CF(lv, field) F(cache[lv].field)

/* The rows every cache section has, with the per-level defaults of size,
 * associativity, latency, sharing and event vocabulary. */
#define CACHE_ROWS(sec, lv, defsize, defassoc, deflat, defshared, defevents, defmshrs)             \
    {sec, "size", CT_VT_SIZE, CF(lv, size), 64, 1ull << 40, defsize, NULL, NULL,             \
     "capacity in bytes (K/M/G suffixes)"},                                                  \
    {sec, "assoc", CT_VT_ASSOC, CF(lv, assoc), 1, 1u << 20, defassoc, NULL, NULL,            \
     "ways per set, or \"full\" for fully associative"},                                      \
    {sec, "line", CT_VT_SIZE, CF(lv, line), 4, 4096, "64", NULL, NULL,                        \
     "line size in bytes, a power of two"},                                                  \
    {sec, "subblock", CT_VT_SIZE, CF(lv, subblock), 0, 4096, "0", NULL, NULL,                 \
     "sub-block size in bytes (valid and dirty bits per sub-block, DineroIV's -sbsize): a "  \
     "power of two dividing the line into at most 32; 0: the line (rule in sim/hier.c)"},   \
    {sec, "replacement", CT_VT_ENUM, CF(lv, replacement), 0, 0, "lru", NULL,                 \
     ct_policy_name_at, "replacement policy"},                                               \
    {sec, "write_back", CT_VT_BOOL, CF(lv, write_back), 0, 2, "yes", nofetch_names, NULL,    \
     "yes: write-back with dirty lines; no: write-through; nofetch: DineroIV's -wback f "   \
     "(as yes: rule in sim/hier.c)"},                                                        \
    {sec, "write_allocate", CT_VT_BOOL, CF(lv, write_allocate), 0, 2, "yes", nofetch_names,  \
     NULL, "allocate a line on a store miss; nofetch: only when the store covers the whole " \
     "line (DineroIV's -walloc f)"},                                                         \
    {sec, "inclusion", CT_VT_ENUM, CF(lv, inclusion), 0, 0, "non-inclusive",                 \
     inclusion_names, NULL,                                                                  \
     "relation to the levels above: inclusive back-invalidates them, exclusive "             \
     "holds their victims"},                                                                 \
    {sec, "shared", CT_VT_BOOL, CF(lv, shared), 0, 1, defshared, NULL, NULL,                     \
     "one instance shared by all cores (L1 levels are always private)"},                     \
    {sec, "latency", CT_VT_UINT, CF(lv, latency), 0, 1000000, deflat, NULL, NULL,                \
     "cycles charged when this level services an access"},                                   \
    {sec, "mshrs", CT_VT_UINT, CF(lv, mshrs), 1, 4096, defmshrs, NULL, NULL,                  \
     "timing = overlap: misses of one core in flight here at once (a shared level gives "   \
     "each core this many; rules in sim/timing.c)"},                                          \
    {sec, "prefetcher", CT_VT_ENUM, CF(lv, prefetcher), 0, 0, "none", NULL,                  \
     ct_prefetch_name_at, "hardware prefetcher"},                                            \
    {sec, "prefetch_degree", CT_VT_UINT, CF(lv, prefetch_degree), 1, 64, "1", NULL, NULL,     \
     "lines requested per prefetch trigger"},                                                \
    {sec, "prefetch_distance", CT_VT_UINT, CF(lv, prefetch_distance), 1, 4096, "1", NULL,    \
     NULL, "stride, stream: how many lines (strides) ahead of the access the requests start; " \
     "always, miss, tagged, load-forward, subblock: how many sub-blocks (DineroIV's -pfdist)"}, \
    {sec, "prefetch_abort", CT_VT_UINT, CF(lv, prefetch_abort), 0, 100, "0", NULL, NULL,      \
     "always, miss, tagged, load-forward, subblock: percent of prefetches dropped "           \
     "(DineroIV's -pfabort; rule in sim/prefetch/dinero.c)"},                                 \
    {sec, "prefetch_table", CT_VT_UINT, CF(lv, prefetch_table), 1, 65536, "64", NULL, NULL,  \
     "stride: entries of the per-pc table; stream: streams tracked"},                       \
    {sec, "prefetch_confidence", CT_VT_UINT, CF(lv, prefetch_confidence), 0, 3, "1", NULL,   \
     NULL, "stride: times a stride must repeat before it prefetches"},                       \
    {sec, "tarmac_name", CT_VT_STRING, CF(lv, tarmac_name), 0, 0, "", NULL, NULL,             \
     "Tarmac CACHE structure id this level is validated against ({cpu}: the core of a "    \
     "private level)"},                                                                      \
    {sec, "events", CT_VT_ENUM, CF(lv, events), 0, 0, defevents, events_names, NULL,         \
     "the Tarmac CACHE events it emits: processor (ALLOC DIRTY CLEAN INVAL) or system "      \
     "(FILL EVICT CLEAN INVAL), as Fast Models tells a core's caches from a system cache"}

/* The rows every translation structure has. */
#define TLB_ROWS(sec, t, defentries, defassoc, deflat, what)                                   \
    {sec, "entries", CT_VT_UINT, TF(t, entries), 1, 1u << 20, defentries, NULL, NULL,         \
     "entries (each maps one page of any size)"},                                            \
    {sec, "assoc", CT_VT_ASSOC, TF(t, assoc), 1, 1u << 20, defassoc, NULL, NULL,              \
     "ways per set, or \"full\" for fully associative"},                                     \
    {sec, "replacement", CT_VT_ENUM, TF(t, replacement), 0, 0, "lru", NULL,                   \
     ct_policy_name_at, "replacement policy"},                                               \
    {sec, "latency", CT_VT_UINT, TF(t, latency), 0, 1000000, deflat, NULL, NULL,              \
     "cycles charged for every lookup"},                                                     \
    {sec, "tarmac_name", CT_VT_STRING, TF(t, tarmac_name), 0, 0, "", NULL, NULL,              \
     "Tarmac " what " structure id this one is validated against ({cpu}: its core)"}

#define TF(t, field) F(tlb[t].field)

/* The TTW side name, for the TLBs a walk can start from. */
#define WALK_NAME_ROW(sec, t)                                                                 \
    {sec, "tarmac_walk_name", CT_VT_STRING, TF(t, tarmac_walk_name), 0, 0, "", NULL, NULL,  \
     "Tarmac TTW side of the walks its misses start (ITLB, DTLB; {cpu}: its core)"}

const ct_schema_row ct_schema_rows[] = {
    {S_SYSTEM, "cores", CT_VT_UINT, F(cores), 1, 1024, "1", NULL, NULL,
     "number of simulated cores"},
    {S_SYSTEM, "seed", CT_VT_UINT, F(seed), 0, UINT64_MAX, "1", NULL, NULL,
     "seed of every random generator (random and brrip policies, synthetic page tables)"},
    {S_SYSTEM, "indexing", CT_VT_ENUM, F(indexing), 0, 0, "physical", indexing_names, NULL,
     "address that indexes and tags the caches; physical falls back to the virtual "
     "address when the trace has none"},
    {S_SYSTEM, "miss_classes", CT_VT_BOOL, F(miss_classes), 0, 1, "no", NULL, NULL,
     "split misses into compulsory, capacity and conflict (3C; slower)"},
    {S_SYSTEM, "flush_at_end", CT_VT_BOOL, F(flush_at_end), 0, 1, "no", NULL, NULL,
     "write back every dirty line when the trace ends, as DineroIV does (counted as "
     "write-backs, not as cycles)"},
    {S_SYSTEM, "flush_every", CT_VT_UINT, F(flush_every), 0, UINT64_MAX, "0", NULL, NULL,
     "after every N trace accesses write back every dirty line and invalidate every level, "
     "as DineroIV's -flushcount N (0: never; rule in sim/hier.c)"},
    {S_SYSTEM, "compat", CT_VT_ENUM, F(compat), 0, 0, "none", compat_names, NULL,
     "count as another simulator does: drcachesim = DynamoRIO's cache simulator (LRU, FIFO "
     "or LFU, no dirty lines, its prefetch and child-hit accounting; rules in "
     "sim/drcachesim.c)"},
    {S_SYSTEM, "coherence", CT_VT_ENUM, F(coherence), 0, 0, "none", coherence_names, NULL,
     "coherence between the cores' private caches; compat = drcachesim only, where msi and "
     "mesi both count as drcachesim -coherence (its snoop filter between the L1s and the "
     "shared levels; rules in sim/drcachesim.c)"},
    {S_SYSTEM, "warmup_fraction", CT_VT_STRING, F(warmup_fraction), 0, 0, "0", NULL, NULL,
     "warm up until every last level has had this fraction of its lines filled (0 to 1; "
     "0: no), then reset every statistic, as drcachesim -warmup_fraction; compat = "
     "drcachesim only (rules in sim/window.c)"},
    {S_SYSTEM, "device_uncached", CT_VT_BOOL, F(device_uncached), 0, 1, "yes", NULL, NULL,
     "accesses the trace marks as Device memory (Tarmac LD/ST attributes DV, SO, nGnRnE, "
     "...) bypass the caches (rules in sim/hier.c, \"Uncached memory\")"},
    {S_SYSTEM, "uncached", CT_VT_STRING, F(uncached), 0, 0, "", NULL, NULL,
     "address ranges that bypass the caches: START-END[, START-END...] (inclusive; rules "
     "in sim/uncached.c)"},
    {S_SYSTEM, "timing", CT_VT_ENUM, F(timing), 0, 0, "blocking", timing_names, NULL,
     "blocking: every demand access waits for the one before (cycles = the sum of "
     "latencies); overlap: independent misses inside an instruction window overlap, "
     "limited by each level's mshrs (rules in sim/timing.c)"},
    {S_SYSTEM, "window", CT_VT_UINT, F(window), 1, 65536, "128", NULL, NULL,
     "timing = overlap: instructions a core has in flight (an instruction enters when the "
     "one this many places older has retired)"},
    {S_SYSTEM, "base_cpi", CT_VT_STRING, F(base_cpi), 0, 0, "0", NULL, NULL,
     "timing = overlap: cycles each instruction takes besides its memory accesses, a "
     "decimal with at most 3 decimals (0.25: four a cycle; 0: memory time only)"},

    CACHE_ROWS(S_L1I, CT_LV_L1I, "32K", "8", "1", "no", "processor", "8"),
    CACHE_ROWS(S_L1D, CT_LV_L1D, "32K", "8", "4", "no", "processor", "16"),
    CACHE_ROWS(S_L2, CT_LV_L2, "1M", "16", "12", "yes", "processor", "32"),
    CACHE_ROWS(S_L3, CT_LV_L3, "8M", "16", "40", "yes", "system", "32"),

    TLB_ROWS(S_ITLB, CT_TLB_I, "32", "full", "0", "TLB"),
    WALK_NAME_ROW(S_ITLB, CT_TLB_I),
    TLB_ROWS(S_DTLB, CT_TLB_D, "32", "full", "0", "TLB"),
    WALK_NAME_ROW(S_DTLB, CT_TLB_D),
    TLB_ROWS(S_STLB, CT_TLB_S, "1024", "4", "8", "TLB"),
    WALK_NAME_ROW(S_STLB, CT_TLB_S),
    TLB_ROWS(S_WALKCACHE, CT_TLB_WALKCACHE, "16", "full", "0", "WALKCACHE"),
    {S_WALKCACHE, "levels", CT_VT_STRING, F(walkcache_levels), 0, 0, "0 1 2", NULL, NULL,
     "lookup levels whose table descriptors it holds, separated by blanks or commas, from "
     "0 1 2 (level 3 holds pages, never tables); a walk re-reads a level left out"},

    {S_WALK, "granule", CT_VT_SIZE, F(walk_granule), 4096, 65536, "4K", NULL, NULL,
     "translation granule: 4K, 16K or 64K (the size of a page and of a table)"},
    {S_WALK, "levels", CT_VT_UINT, F(walk_levels), 1, 4, "4", NULL, NULL,
     "lookup levels of a walk, ending at level 3 (4K: 4 levels translate 48 bits); "
     "unset: 4, or 3 with a 64K granule (55 bits; at most 60 may be translated)"},
    {S_WALK, "leaf_level", CT_VT_UINT, F(walk_leaf_level), 1, 3, "3", NULL, NULL,
     "synthetic tables map with blocks at this level (4K granule: 3 = 4K pages, 2 = 2M, "
     "1 = 1G; 16K: 3 = 16K, 2 = 32M; 64K: 3 = 64K, 2 = 512M)"},
    {S_WALK, "cache", CT_VT_ENUM, F(walk_port), 0, 0, "l1d", port_names, NULL,
     "level the descriptor reads go to (the next present level below when absent)"},
    {S_WALK, "latency", CT_VT_UINT, F(walk_latency), 0, 1000000, "0", NULL, NULL,
     "cycles charged per walk besides its descriptor reads"},
    {S_WALK, "tables", CT_VT_ENUM, F(walk_tables), 0, 0, "auto", tables_names, NULL,
     "page tables: the trace's TTW lines, synthetic ones, or auto (synthetic until the "
     "trace shows a TTW line)"},
    {S_WALK, "max_tables", CT_VT_UINT, F(walk_max_tables), 16, 1u << 24, "65536", NULL, NULL,
     "tables the bookkeeping holds (memory is allocated for this many at creation)"},

    {S_MEMORY, "latency", CT_VT_UINT, F(mem_latency), 0, 100000000, "100", NULL, NULL,
     "cycles charged when memory services an access"},

    {S_TRACE, "format", CT_VT_STRING, F(format), 0, 0, "", NULL, NULL,
     "force a trace format by name (empty: detect by content)"},
    {S_TRACE, "lenient", CT_VT_BOOL, F(lenient), 0, 1, "no", NULL, NULL,
     "skip and count malformed records instead of stopping"},
    {S_TRACE, "max_errors", CT_VT_UINT, F(max_errors), 1, UINT64_MAX, "100", NULL, NULL,
     "lenient mode gives up after this many malformed records"},
    {S_TRACE, "schedule", CT_VT_ENUM, F(schedule), 0, 0, "auto", schedule_names, NULL,
     "which simulated core runs each access. threads: a thread takes the core with the "
     "fewest live threads when it first appears (round-robin in order of appearance; a "
     "thread exit frees its place), as drcachesim -no_core_sharded; cpus: each traced cpu "
     "takes a core in order of first appearance and a thread runs on the core of the cpu "
     "it was last seen on (threads without a cpu as in threads), as drcachesim "
     "-cpu_scheduling; single: everything on core 0; auto: the format's choice (threads "
     "for drmemtrace, din, ctr, vixl and TT6; cpus for Tarmac and Trace Matcher)"},
    {S_TRACE, "interleave", CT_VT_ENUM, F(interleave), 0, 0, "auto", interleave_names, NULL,
     "the order in which several streams (per-thread files, several traces) take turns. "
     "timestamp: the stream with the oldest pending timestamp runs until its next "
     "timestamp marker, as drcachesim replays an offline trace in its serial order; "
     "quantum: streams take turns in input order, quantum accesses each; auto: timestamp "
     "when the first stream has a timestamp marker (drmemtrace traces do), else quantum"},
    {S_TRACE, "quantum", CT_VT_UINT, F(quantum), 1, UINT64_MAX, "1000", NULL, NULL,
     "accesses per turn when streams are interleaved by quantum"},
    {S_TRACE, "readahead", CT_VT_BOOL, F(readahead), 0, 1, "yes", NULL, NULL,
     "decode the next batches in a second thread while the current one is simulated "
     "(stopped after 32 batches when the caller spent that time waiting for it)"},
    {S_TRACE, "containers", CT_VT_BOOL, F(containers), 0, 1, "yes", NULL, NULL,
     "read compressed inputs (gzip, zstd, unix compress, zip, snappy, lz4), found by their "
     "magic bytes; no: read every input as it is (an uncompressed tt6 trace whose first "
     "word happens to look like a compressed header)"},
    {S_TRACE, "tarmac_next_fetch", CT_VT_BOOL, F(tarmac_next_fetch), 0, 1, "no", NULL, NULL,
     "Tarmac: when a trace ends, also fetch the instruction that runs next (the target "
     "of a direct branch, else the next in sequence), as Fast Models fetches it during "
     "the last traced instruction"},

    {S_TT6, "dst", CT_VT_ENUM, F(tt6_dst), 0, 0, "stream", tt6_dst_names, NULL,
     "AltiVec dst/dstst data-stream touches: no access, a software prefetch of the first "
     "block, or one software prefetch per block of the stream the control word describes"},
    {S_TT6, "dcbx", CT_VT_STRING, F(tt6_dcbx), 0, 0, "dcbst,dcbf,dcbtst,dcbt,dcbi,dcba,dcbz",
     NULL, NULL,
     "TT6E only: the instructions whose records carry an effective address (2 words), "
     "comma-separated from dcbst dcbf dcbtst dcbt dcbi dcba dcbz icbi, or none; the others "
     "are 1-word records. A wrong set misframes the trace"},
    {S_TT6, "keep_trap_pair", CT_VT_BOOL, F(tt6_keep_trap_pair), 0, 1, "no", NULL, NULL,
     "TT6E only: fetch the synthetic b 0x700 / rfi pair written after every twi (no: they "
     "count as instructions without a fetch)"},
};
const size_t ct_schema_nrows = sizeof ct_schema_rows / sizeof ct_schema_rows[0];

const ct_schema_check ct_schema_checks[] = {
    {S_TT6, "dcbx", ct_tt6_dcbx_check},
    {S_WALKCACHE, "levels", ct_walkcache_levels_check},
    {S_SYSTEM, "warmup_fraction", ct_warmup_fraction_check},
    {S_SYSTEM, "uncached", ct_uncached_check},
    {S_SYSTEM, "base_cpi", ct_timing_base_cpi_check},
};
const size_t ct_schema_nchecks = sizeof ct_schema_checks / sizeof ct_schema_checks[0];

static const int level_section[CT_LV_COUNT] = {S_L1I, S_L1D, S_L2, S_L3};

int ct_config_section_of_level(int level) { return level_section[level]; }

static const int tlb_section[CT_TLB_COUNT] = {S_ITLB, S_DTLB, S_STLB, S_WALKCACHE};

int ct_config_section_of_tlb(int tlb) { return tlb_section[tlb]; }

int ct_config_walk_section(void) { return S_WALK; }

int ct_config_level_of_section(int section)
{
    for (int lv = 0; lv < CT_LV_COUNT; lv++)
        if (level_section[lv] == section)
            return lv;
    return -1;
}
