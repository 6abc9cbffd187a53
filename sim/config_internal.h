/*
 * config_internal.h - the parsed configuration and its schema (internal).
 *
 * struct ct_config keeps, for every schema row, the text the user gave (or
 * NULL for the default) and the parsed value in a typed field. The text is
 * the truth; the typed fields are re-derived from it after every change, so
 * the model and the frontends read plain struct fields and never parse.
 *
 * Adding a model key: add a field here and one row in config_schema.c (a
 * string with a grammar of its own names its check in the row). A trace
 * reader's key goes in the reader's own block (schema.h). Nothing else.
 */
#ifndef CT_CONFIG_INTERNAL_H
#define CT_CONFIG_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cachet/config.h"
#include "cachet/trace.h"
#include "schema.h"

/* Cache levels a configuration can describe, in hierarchy order. */
enum ct_level_id { CT_LV_L1I, CT_LV_L1D, CT_LV_L2, CT_LV_L3, CT_LV_COUNT };

enum ct_inclusion { CT_INCL_NONINCLUSIVE, CT_INCL_INCLUSIVE, CT_INCL_EXCLUSIVE };
enum ct_level_events { CT_EVENTS_PROCESSOR, CT_EVENTS_SYSTEM };
enum ct_indexing { CT_INDEX_PHYSICAL, CT_INDEX_VIRTUAL };
enum ct_compat { CT_COMPAT_NONE, CT_COMPAT_DRCACHESIM };
enum ct_coherence { CT_COHERENCE_NONE, CT_COHERENCE_MSI, CT_COHERENCE_MESI };
enum ct_timing_mode { CT_TIMING_BLOCKING, CT_TIMING_OVERLAP };

/* Translation structures a configuration can describe, each one per core. */
enum ct_tlb_id { CT_TLB_I, CT_TLB_D, CT_TLB_S, CT_TLB_WALKCACHE, CT_TLB_COUNT };
enum ct_walk_port { CT_PORT_L1D, CT_PORT_L2, CT_PORT_L3, CT_PORT_MEMORY };
enum ct_walk_tables { CT_TABLES_AUTO, CT_TABLES_TRACE, CT_TABLES_SYNTHETIC };

typedef struct ct_cache_cfg {
    uint64_t size;            /* bytes */
    uint32_t assoc;           /* ways; 0 in the text "full" = size / line */
    uint32_t line;            /* bytes, power of two */
    uint32_t subblock;        /* bytes of a sub-block, dividing line; 0: the line */
    int replacement;          /* index into the policy registry */
    int write_back;           /* 1 write-back, 0 write-through */
    int write_allocate;       /* 1 allocate on store miss */
    int inclusion;            /* enum ct_inclusion, relative to the levels above */
    int shared;               /* 1 one instance for all cores */
    uint32_t latency;         /* cycles when this level services an access */
    int prefetcher;           /* index into the prefetcher registry */
    uint32_t prefetch_degree; /* lines per prefetch trigger */
    uint32_t prefetch_distance;   /* lines (strides) ahead where requests start */
    uint32_t prefetch_table;      /* prefetcher table entries */
    uint32_t prefetch_confidence; /* stride repeats before prefetching */
    uint32_t prefetch_abort;      /* fetch policies: percent of prefetches dropped */
    uint32_t mshrs;           /* timing = overlap: misses in flight per core (timing.c) */
    char tarmac_name[128];    /* Tarmac structure id this level is compared with */
    int events;               /* enum ct_level_events: the vocabulary of its events */
} ct_cache_cfg;

typedef struct ct_tlb_cfg {
    uint32_t entries;
    uint32_t assoc;           /* ways; 0 in the text "full" = entries */
    int replacement;          /* index into the policy registry */
    uint32_t latency;         /* cycles per lookup */
    char tarmac_name[128];    /* Tarmac TLB / WALKCACHE structure id */
    char tarmac_walk_name[64];/* Tarmac TTW side of the walks it starts */
} ct_tlb_cfg;

#define CT_CFG_MAX_ROWS 256
#define CT_CFG_MAX_SECTIONS 32
#define CT_CFG_OPTIONS_BYTES 512  /* the trace readers' structs, together */

struct ct_config {
    /* [system] */
    uint32_t cores;
    uint64_t seed;
    int indexing;             /* enum ct_indexing */
    int miss_classes;         /* 1: keep the 3C split (costs speed) */
    int flush_at_end;         /* 1: write back every dirty line when the trace ends */
    uint64_t flush_every;     /* > 0: write back and invalidate everything after every
                                 this many accesses (sim/hier.c, Periodic flush) */
    int compat;               /* enum ct_compat: whose counting rules the model follows */
    int coherence;            /* enum ct_coherence */
    char warmup_fraction[32]; /* decimal in [0, 1]: warm up until the last level is this
                                 full (sim/window.c); "0": no */
    int device_uncached;      /* 1: CT_F_DEVICE accesses bypass the caches */
    char uncached[1024];      /* ranges that bypass the caches (uncached.c) */
    int timing;               /* enum ct_timing_mode (sim/timing.c) */
    uint32_t window;          /* timing = overlap: instructions in flight per core */
    char base_cpi[32];        /* timing = overlap: cycles per instruction besides memory,
                                 a decimal with at most 3 decimals (timing.c) */
    /* cache sections */
    ct_cache_cfg cache[CT_LV_COUNT];
    /* translation sections: [itlb] [dtlb] [stlb] [walkcache] */
    ct_tlb_cfg tlb[CT_TLB_COUNT];
    /* [walk] */
    uint64_t walk_granule;    /* bytes: 4K, 16K or 64K */
    uint32_t walk_levels;     /* lookup levels, 1..4 (the last is level 3) */
    uint32_t walk_leaf_level; /* synthetic tables map blocks or pages here */
    int walk_port;            /* enum ct_walk_port: where descriptor reads go */
    uint32_t walk_latency;    /* cycles per walk besides its reads */
    int walk_tables;          /* enum ct_walk_tables */
    uint64_t walk_max_tables; /* capacity of the table bookkeeping */
    /* [walkcache] besides the TLB rows */
    char walkcache_levels[32];/* lookup levels it caches, checked list (tlb.c) */
    /* [memory] */
    uint32_t mem_latency;
    /* the structs of the trace readers' blocks (schema.h), one after
       another in block order, each at a multiple of 16 bytes */
    _Alignas(16) unsigned char options[CT_CFG_OPTIONS_BYTES];

    /* bookkeeping */
    char *text[CT_CFG_MAX_ROWS];            /* user text per row, NULL = default */
    unsigned char present[CT_CFG_MAX_SECTIONS]; /* optional sections that exist */
    char path[PATH_MAX];                    /* file it came from, "" built in */
};

/* Every block of schema.h gathered into one table (built on first use):
 * sections by name, rows in block order with `section` an index into
 * sections and `offset` one into struct ct_config. */
typedef struct ct_schema {
    ct_schema_section sections[CT_CFG_MAX_SECTIONS];
    size_t nsections;
    ct_schema_row rows[CT_CFG_MAX_ROWS];
    size_t nrows;
    const char *fault;        /* the blocks do not fit (a build error, reported by
                                 every configuration's creation); NULL: none */
} ct_schema;

const ct_schema *ct_schema_get(void);

/* Reading INI files (configurations, sweep files) line by line; the rules
 * are at the top of sim/ini.c. ct_ini_begin opens path (not a directory):
 * CT_OK, or CT_E_IO with err set. ct_ini_next reads on to the next section
 * header (CT_INI_SECTION: section set) or key (CT_INI_KEY: key, value and
 * section set; they stay valid until the next call), or the end
 * (CT_INI_DONE); a negative error code with err set ("PATH:LINE: reason")
 * on a syntax error, a line too long or holding a NUL, or a read error.
 * ct_ini_end closes the file. */
#define CT_INI_LINE_MAX 4096
enum { CT_INI_DONE = 0, CT_INI_SECTION = 1, CT_INI_KEY = 2 };
typedef struct ct_ini {
    FILE *f;
    const char *path;
    unsigned lineno;            /* of the line last read */
    char section[128];          /* the current section, lower case; "" before the first */
    char *key, *value;          /* CT_INI_KEY: the key (lower case) and its value */
    char line[CT_INI_LINE_MAX];
} ct_ini;
int ct_ini_begin(ct_ini *r, const char *path, ct_error *err);
int ct_ini_next(ct_ini *r, ct_error *err);
void ct_ini_end(ct_ini *r);

/* Many variants of one base, each setting the same keys (a sweep checking
 * its points). The base's rows are parsed once; a variant parses only the
 * keys it sets, in schema order, then runs the geometry checks, so its
 * outcome, error and resolved fields are those of ct_config_set_many on a
 * copy of the base. After a success `c` is the variant; after a failure its
 * resolved fields are unspecified until the next success. */
typedef struct ct_config_variants {
    struct ct_config *c;       /* the base with the last variant's keys */
    /* the base's fields as parsed, before the geometry checks fill in
     * what they derive (a "full" associativity, a default walk depth) */
    unsigned char parsed[offsetof(struct ct_config, text)];
} ct_config_variants;

int ct_config_variants_init(ct_config_variants *v, const ct_config *base, ct_error *err);
/* Set n keys, given by their rows (ct_config_row), then resolve. */
int ct_config_variants_set(ct_config_variants *v, const char *origin, size_t n,
                           const size_t *rows, const char *const *values, ct_error *err);
void ct_config_variants_free(ct_config_variants *v);

/* The configuration to build a model from: c itself when its geometry
 * was checked after the last change, else a checked copy in *tmp (free it
 * after use). Fails with the geometry error. */
int ct_config_checked(const ct_config *c, ct_config **tmp, const ct_config **use, ct_error *err);

/* The schema row of [section] key (names compare without case), or
 * CT_CFG_NO_SECTION when the section is unknown, CT_CFG_NO_KEY when the key is. */
enum { CT_CFG_NO_SECTION = -1, CT_CFG_NO_KEY = -2 };
int ct_config_row(const char *section, const char *key);
/* Check VALUE for a row that ct_config_row found: CT_E_CONFIG with the reason
 * alone as the message (no section or key). */
int ct_config_check_row_value(size_t row, const char *value, ct_error *err);

/* Section index of a cache level, and the level of a section (-1: none). */
int ct_config_section_of_level(int level);
int ct_config_level_of_section(int section);

/* Section index of a translation structure, and of [walk]. */
int ct_config_section_of_tlb(int tlb);
int ct_config_walk_section(void);

/* Whether a cache level is present. */
static inline int ct_config_level_present(const struct ct_config *c, int lv)
{
    return c->present[ct_config_section_of_level(lv)];
}

/* Whether a translation structure is present; whether any TLB is (the
 * walk cache alone translates nothing). */
static inline int ct_config_tlb_present(const struct ct_config *c, int tlb)
{
    return c->present[ct_config_section_of_tlb(tlb)];
}

static inline int ct_config_translates(const struct ct_config *c)
{
    return ct_config_tlb_present(c, CT_TLB_I) || ct_config_tlb_present(c, CT_TLB_D) ||
           ct_config_tlb_present(c, CT_TLB_S);
}

#endif
