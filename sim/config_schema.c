/*
 * config_schema.c - every configuration key cachet accepts, in one table.
 *
 * The parser (config.c), `cachet config --keys` and configs/README.md all
 * come from these rows. A row names its section, key, type, the field it
 * fills, its range, its default and one line of help with the unit.
 *
 * The trace readers declare their own keys in their files (schema.h); the
 * block list below gathers the model's rows and theirs into the one schema
 * the configuration reads, in this order.
 */
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "config_internal.h"
#include "policy.h"
#include "tlb.h"
#include "uncached.h"
#include "timing.h"
#include "window.h"

enum { S_SYSTEM, S_L1I, S_L1D, S_L2, S_L3, S_ITLB, S_DTLB, S_STLB, S_WALKCACHE, S_WALK,
       S_MEMORY };

static const ct_schema_section model_sections[] = {
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
};

static const char *const indexing_names[] = {"physical", "virtual", NULL};
static const char *const inclusion_names[] = {"non-inclusive", "inclusive", "exclusive", NULL};
static const char *const compat_names[] = {"none", "drcachesim", NULL};
static const char *const coherence_names[] = {"none", "msi", "mesi", NULL};
static const char *const timing_names[] = {"blocking", "overlap", NULL};
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
     "capacity in bytes (K/M/G suffixes)", NULL},                                                  \
    {sec, "assoc", CT_VT_ASSOC, CF(lv, assoc), 1, 1u << 20, defassoc, NULL, NULL,            \
     "ways per set, or \"full\" for fully associative", NULL},                                      \
    {sec, "line", CT_VT_SIZE, CF(lv, line), 4, 4096, "64", NULL, NULL,                        \
     "line size in bytes, a power of two", NULL},                                                  \
    {sec, "subblock", CT_VT_SIZE, CF(lv, subblock), 0, 4096, "0", NULL, NULL,                 \
     "sub-block size in bytes (valid and dirty bits per sub-block, DineroIV's -sbsize): a "  \
     "power of two dividing the line into at most 32; 0: the line (rule in sim/hier.c)", NULL},   \
    {sec, "replacement", CT_VT_ENUM, CF(lv, replacement), 0, 0, "lru", NULL,                 \
     ct_policy_name_at, "replacement policy", NULL},                                               \
    {sec, "write_back", CT_VT_BOOL, CF(lv, write_back), 0, 2, "yes", nofetch_names, NULL,    \
     "yes: write-back with dirty lines; no: write-through; nofetch: DineroIV's -wback f "   \
     "(as yes: rule in sim/hier.c)", NULL},                                                        \
    {sec, "write_allocate", CT_VT_BOOL, CF(lv, write_allocate), 0, 2, "yes", nofetch_names,  \
     NULL, "allocate a line on a store miss; nofetch: only when the store covers the whole " \
     "line (DineroIV's -walloc f)", NULL},                                                         \
    {sec, "inclusion", CT_VT_ENUM, CF(lv, inclusion), 0, 0, "non-inclusive",                 \
     inclusion_names, NULL,                                                                  \
     "relation to the levels above: inclusive back-invalidates them, exclusive "             \
     "holds their victims", NULL},                                                                 \
    {sec, "shared", CT_VT_BOOL, CF(lv, shared), 0, 1, defshared, NULL, NULL,                     \
     "one instance shared by all cores (L1 levels are always private)", NULL},                     \
    {sec, "latency", CT_VT_UINT, CF(lv, latency), 0, 1000000, deflat, NULL, NULL,                \
     "cycles charged when this level services an access", NULL},                                 \
    {sec, "mshrs", CT_VT_UINT, CF(lv, mshrs), 1, 4096, defmshrs, NULL, NULL,                  \
     "timing = overlap: misses of one core in flight here at once (a shared level gives "   \
     "each core this many; rules in sim/timing.c)", NULL},                                     \
    {sec, "prefetcher", CT_VT_ENUM, CF(lv, prefetcher), 0, 0, "none", NULL,                  \
     ct_prefetch_name_at, "hardware prefetcher", NULL},                                            \
    {sec, "prefetch_degree", CT_VT_UINT, CF(lv, prefetch_degree), 1, 64, "1", NULL, NULL,     \
     "lines requested per prefetch trigger", NULL},                                                \
    {sec, "prefetch_distance", CT_VT_UINT, CF(lv, prefetch_distance), 1, 4096, "1", NULL,    \
     NULL, "stride, stream: how many lines (strides) ahead of the access the requests start; " \
     "always, miss, tagged, load-forward, subblock: how many sub-blocks (DineroIV's -pfdist)", NULL}, \
    {sec, "prefetch_abort", CT_VT_UINT, CF(lv, prefetch_abort), 0, 100, "0", NULL, NULL,      \
     "always, miss, tagged, load-forward, subblock: percent of prefetches dropped "           \
     "(DineroIV's -pfabort; rule in sim/prefetch/dinero.c)", NULL},                                 \
    {sec, "prefetch_table", CT_VT_UINT, CF(lv, prefetch_table), 1, 65536, "64", NULL, NULL,  \
     "stride: entries of the per-pc table; stream: streams tracked", NULL},                       \
    {sec, "prefetch_confidence", CT_VT_UINT, CF(lv, prefetch_confidence), 0, 3, "1", NULL,   \
     NULL, "stride: times a stride must repeat before it prefetches", NULL},                       \
    {sec, "tarmac_name", CT_VT_STRING, CF(lv, tarmac_name), 0, 0, "", NULL, NULL,             \
     "Tarmac CACHE structure id this level is validated against ({cpu}: the core of a "    \
     "private level)", NULL},                                                                      \
    {sec, "events", CT_VT_ENUM, CF(lv, events), 0, 0, defevents, events_names, NULL,         \
     "the Tarmac CACHE events it emits: processor (ALLOC DIRTY CLEAN INVAL) or system "      \
     "(FILL EVICT CLEAN INVAL), as Fast Models tells a core's caches from a system cache", NULL}

/* The rows every translation structure has. */
#define TLB_ROWS(sec, t, defentries, defassoc, deflat, what)                                   \
    {sec, "entries", CT_VT_UINT, TF(t, entries), 1, 1u << 20, defentries, NULL, NULL,         \
     "entries (each maps one page of any size)", NULL},                                            \
    {sec, "assoc", CT_VT_ASSOC, TF(t, assoc), 1, 1u << 20, defassoc, NULL, NULL,              \
     "ways per set, or \"full\" for fully associative", NULL},                                     \
    {sec, "replacement", CT_VT_ENUM, TF(t, replacement), 0, 0, "lru", NULL,                   \
     ct_policy_name_at, "replacement policy", NULL},                                               \
    {sec, "latency", CT_VT_UINT, TF(t, latency), 0, 1000000, deflat, NULL, NULL,              \
     "cycles charged for every lookup", NULL},                                                     \
    {sec, "tarmac_name", CT_VT_STRING, TF(t, tarmac_name), 0, 0, "", NULL, NULL,              \
     "Tarmac " what " structure id this one is validated against ({cpu}: its core)", NULL}

#define TF(t, field) F(tlb[t].field)

/* The TTW side name, for the TLBs a walk can start from. */
#define WALK_NAME_ROW(sec, t)                                                                 \
    {sec, "tarmac_walk_name", CT_VT_STRING, TF(t, tarmac_walk_name), 0, 0, "", NULL, NULL,  \
     "Tarmac TTW side of the walks its misses start (ITLB, DTLB; {cpu}: its core)", NULL}

static const ct_schema_row model_rows[] = {
    {S_SYSTEM, "cores", CT_VT_UINT, F(cores), 1, 1024, "1", NULL, NULL,
     "number of simulated cores", NULL},
    {S_SYSTEM, "seed", CT_VT_UINT, F(seed), 0, UINT64_MAX, "1", NULL, NULL,
     "seed of every random generator (random and brrip policies, synthetic page tables)", NULL},
    {S_SYSTEM, "indexing", CT_VT_ENUM, F(indexing), 0, 0, "physical", indexing_names, NULL,
     "address that indexes and tags the caches; physical falls back to the virtual "
     "address when the trace has none", NULL},
    {S_SYSTEM, "miss_classes", CT_VT_BOOL, F(miss_classes), 0, 1, "no", NULL, NULL,
     "split misses into compulsory, capacity and conflict (3C; slower)", NULL},
    {S_SYSTEM, "flush_at_end", CT_VT_BOOL, F(flush_at_end), 0, 1, "no", NULL, NULL,
     "write back every dirty line when the trace ends, as DineroIV does (counted as "
     "write-backs, not as cycles)", NULL},
    {S_SYSTEM, "flush_every", CT_VT_UINT, F(flush_every), 0, UINT64_MAX, "0", NULL, NULL,
     "after every N trace accesses write back every dirty line and invalidate every level, "
     "as DineroIV's -flushcount N (0: never; rule in sim/hier.c)", NULL},
    {S_SYSTEM, "compat", CT_VT_ENUM, F(compat), 0, 0, "none", compat_names, NULL,
     "count as another simulator does: drcachesim = DynamoRIO's cache simulator (LRU, FIFO "
     "or LFU, no dirty lines, its prefetch and child-hit accounting; rules in "
     "sim/drcachesim.c)", NULL},
    {S_SYSTEM, "coherence", CT_VT_ENUM, F(coherence), 0, 0, "none", coherence_names, NULL,
     "coherence between the cores' private caches: msi or mesi kept at the first shared "
     "level by an exact snoop, with invalidations, downgrades, coherence write-backs and "
     "upgrades counted per level (rules in sim/coherence.c); under compat = drcachesim both "
     "count as drcachesim -coherence (its snoop filter between the L1s and the shared "
     "levels; rules in sim/drcachesim.c)", NULL},
    {S_SYSTEM, "warmup_fraction", CT_VT_STRING, F(warmup_fraction), 0, 0, "0", NULL, NULL,
     "warm up until every last level has had this fraction of its lines filled (0 to 1; "
     "0: no), then reset every statistic, as drcachesim -warmup_fraction; compat = "
     "drcachesim only (rules in sim/window.c)", ct_warmup_fraction_check},
    {S_SYSTEM, "device_uncached", CT_VT_BOOL, F(device_uncached), 0, 1, "yes", NULL, NULL,
     "accesses the trace marks as Device memory (Tarmac LD/ST attributes DV, SO, nGnRnE, "
     "...) bypass the caches (rules in sim/hier.c, \"Uncached memory\")", NULL},
    {S_SYSTEM, "uncached", CT_VT_STRING, F(uncached), 0, 0, "", NULL, NULL,
     "address ranges that bypass the caches: START-END[, START-END...] (inclusive; rules "
     "in sim/uncached.c)", ct_uncached_check},
    {S_SYSTEM, "timing", CT_VT_ENUM, F(timing), 0, 0, "blocking", timing_names, NULL,
     "blocking: every demand access waits for the one before (cycles = the sum of "
     "latencies); overlap: independent misses inside an instruction window overlap, "
     "limited by each level's mshrs (rules in sim/timing.c)", NULL},
    {S_SYSTEM, "window", CT_VT_UINT, F(window), 1, 65536, "128", NULL, NULL,
     "timing = overlap: instructions a core has in flight (an instruction enters when the "
     "one this many places older has retired)", NULL},
    {S_SYSTEM, "base_cpi", CT_VT_STRING, F(base_cpi), 0, 0, "0", NULL, NULL,
     "timing = overlap: cycles each instruction takes besides its memory accesses, a "
     "decimal with at most 3 decimals (0.25: four a cycle; 0: memory time only)",
     ct_timing_base_cpi_check},

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
     "0 1 2 (level 3 holds pages, never tables); a walk re-reads a level left out",
     ct_walkcache_levels_check},

    {S_WALK, "granule", CT_VT_SIZE, F(walk_granule), 4096, 65536, "4K", NULL, NULL,
     "translation granule: 4K, 16K or 64K (the size of a page and of a table)", NULL},
    {S_WALK, "levels", CT_VT_UINT, F(walk_levels), 1, 4, "4", NULL, NULL,
     "lookup levels of a walk, ending at level 3 (4K: 4 levels translate 48 bits); "
     "unset: 4, or 3 with a 64K granule (55 bits; at most 60 may be translated)", NULL},
    {S_WALK, "leaf_level", CT_VT_UINT, F(walk_leaf_level), 1, 3, "3", NULL, NULL,
     "synthetic tables map with blocks at this level (4K granule: 3 = 4K pages, 2 = 2M, "
     "1 = 1G; 16K: 3 = 16K, 2 = 32M; 64K: 3 = 64K, 2 = 512M)", NULL},
    {S_WALK, "cache", CT_VT_ENUM, F(walk_port), 0, 0, "l1d", port_names, NULL,
     "level the descriptor reads go to (the next present level below when absent)", NULL},
    {S_WALK, "latency", CT_VT_UINT, F(walk_latency), 0, 1000000, "0", NULL, NULL,
     "cycles charged per walk besides its descriptor reads", NULL},
    {S_WALK, "tables", CT_VT_ENUM, F(walk_tables), 0, 0, "auto", tables_names, NULL,
     "page tables: the trace's TTW lines, synthetic ones, or auto (synthetic until the "
     "trace shows a TTW line)", NULL},
    {S_WALK, "max_tables", CT_VT_UINT, F(walk_max_tables), 16, 1u << 24, "65536", NULL, NULL,
     "tables the bookkeeping holds (memory is allocated for this many at creation)", NULL},

    {S_MEMORY, "latency", CT_VT_UINT, F(mem_latency), 0, 100000000, "100", NULL, NULL,
     "cycles charged when memory services an access", NULL},

};
const ct_schema_block ct_model_schema = CT_SCHEMA_BLOCK(model_sections, model_rows, 0);

/* Every block, in the order of the keys: the model's, then the trace
 * layer's [trace], Tarmac's [trace] key, [tt6]. */
static const ct_schema_block *const blocks[] = {&ct_model_schema, &ct_trace_schema,
                                                &ct_tarmac_schema, &ct_tt6_schema};
#define NBLOCKS (sizeof blocks / sizeof blocks[0])

static ct_schema schema;
static size_t block_at[NBLOCKS];  /* offset of each block's struct in struct ct_config */
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;

/* The global index of a block's section: the earlier one of that name, or
 * a new one. */
static int gather_section(const ct_schema_section *sec)
{
    for (size_t i = 0; i < schema.nsections; i++)
        if (strcmp(schema.sections[i].name, sec->name) == 0)
            return (int)i;
    if (schema.nsections == CT_CFG_MAX_SECTIONS || !sec->help)
        return -1;
    schema.sections[schema.nsections] = *sec;
    return (int)schema.nsections++;
}

static void gather(void)
{
    size_t used = 0;

    for (size_t b = 0; b < NBLOCKS && !schema.fault; b++) {
        const ct_schema_block *k = blocks[b];
        int at[CT_CFG_MAX_SECTIONS];
        size_t base = 0;

        if (k->size) {
            used = (used + 15) & ~(size_t)15;
            if (used + k->size > CT_CFG_OPTIONS_BYTES) {
                schema.fault = "internal: the trace readers' options exceed "
                               "CT_CFG_OPTIONS_BYTES";
                break;
            }
            base = offsetof(struct ct_config, options) + used;
            used += k->size;
        }
        block_at[b] = base;
        for (size_t i = 0; i < k->nsections && i < CT_CFG_MAX_SECTIONS; i++)
            if ((at[i] = gather_section(&k->sections[i])) < 0)
                schema.fault = "internal: too many sections, or one without help";
        for (size_t i = 0; i < k->nrows && !schema.fault; i++) {
            ct_schema_row r = k->rows[i];
            if (schema.nrows == CT_CFG_MAX_ROWS) {
                schema.fault = "internal: more rows than CT_CFG_MAX_ROWS";
                break;
            }
            r.section = at[r.section];
            r.offset += base;
            schema.rows[schema.nrows++] = r;
        }
    }
}

const ct_schema *ct_schema_get(void)
{
    pthread_once(&schema_once, gather);
    return &schema;
}

const void *ct_config_options(const struct ct_config *c, const ct_schema_block *b)
{
    ct_schema_get();
    for (size_t i = 0; i < NBLOCKS; i++)
        if (blocks[i] == b)
            return (const char *)c + block_at[i];
    return NULL;
}

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
