/*
 * config_internal.h - the parsed configuration and its schema (internal).
 *
 * struct ct_config keeps, for every schema row, the text the user gave (or
 * NULL for the default) and the parsed value in a typed field. The text is
 * the truth; the typed fields are re-derived from it after every change, so
 * the model and the frontends read plain struct fields and never parse.
 *
 * Adding a key: add a field here, one row in config_schema.c. Nothing else.
 */
#ifndef CT_CONFIG_INTERNAL_H
#define CT_CONFIG_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "cachet/config.h"

/* Cache levels a configuration can describe, in hierarchy order. */
enum ct_level_id { CT_LV_L1I, CT_LV_L1D, CT_LV_L2, CT_LV_L3, CT_LV_COUNT };

enum ct_inclusion { CT_INCL_NONINCLUSIVE, CT_INCL_INCLUSIVE, CT_INCL_EXCLUSIVE };
enum ct_indexing { CT_INDEX_PHYSICAL, CT_INDEX_VIRTUAL };
enum ct_schedule { CT_SCHED_AUTO, CT_SCHED_THREADS, CT_SCHED_CPUS, CT_SCHED_SINGLE };
enum ct_interleave { CT_IL_AUTO, CT_IL_TIMESTAMP, CT_IL_QUANTUM };

typedef struct ct_cache_cfg {
    uint64_t size;            /* bytes */
    uint32_t assoc;           /* ways; 0 in the text "full" = size / line */
    uint32_t line;            /* bytes, power of two */
    int replacement;          /* index into the policy registry */
    int write_back;           /* 1 write-back, 0 write-through */
    int write_allocate;       /* 1 allocate on store miss */
    int inclusion;            /* enum ct_inclusion, relative to the levels above */
    int shared;               /* 1 one instance for all cores */
    uint32_t latency;         /* cycles when this level services an access */
    int prefetcher;           /* index into the prefetcher registry */
    uint32_t prefetch_degree; /* lines per prefetch trigger */
    char tarmac_name[128];    /* Tarmac structure id this level is compared with */
} ct_cache_cfg;

#define CT_CFG_MAX_ROWS 256
#define CT_CFG_MAX_SECTIONS 32

struct ct_config {
    /* [system] */
    uint32_t cores;
    uint64_t seed;
    int indexing;             /* enum ct_indexing */
    int miss_classes;         /* 1: keep the 3C split (costs speed) */
    int flush_at_end;         /* 1: write back every dirty line when the trace ends */
    /* cache sections */
    ct_cache_cfg cache[CT_LV_COUNT];
    /* [memory] */
    uint32_t mem_latency;
    /* [trace] */
    char format[32];          /* "" = detect */
    int lenient;
    uint64_t max_errors;
    int schedule;             /* enum ct_schedule */
    int interleave;           /* enum ct_interleave */
    uint64_t quantum;         /* accesses per turn in quantum interleaving */
    int readahead;            /* decode the next batches in a second thread */
    int tarmac_next_fetch;    /* Tarmac: fetch the next instruction at the end */

    /* bookkeeping */
    char *text[CT_CFG_MAX_ROWS];            /* user text per row, NULL = default */
    unsigned char present[CT_CFG_MAX_SECTIONS]; /* optional sections that exist */
    char path[PATH_MAX];                    /* file it came from, "" built in */
};

enum ct_vtype { CT_VT_UINT, CT_VT_SIZE, CT_VT_BOOL, CT_VT_ENUM, CT_VT_STRING,
                CT_VT_ASSOC };

typedef struct ct_schema_section {
    const char *name;
    int optional;             /* 1: exists only when the INI has it (cache levels) */
    const char *help;
} ct_schema_section;

typedef struct ct_schema_row {
    int section;              /* index into ct_schema_sections */
    const char *key;
    enum ct_vtype type;
    size_t offset;            /* of the typed field in struct ct_config */
    size_t field_size;        /* bytes of that field (strings) */
    uint64_t min, max;        /* numeric range, inclusive */
    const char *def;          /* default text */
    const char *const *names; /* CT_VT_ENUM: NULL-terminated value names */
    const char *(*name_at)(size_t i); /* CT_VT_ENUM from a registry */
    const char *help;
} ct_schema_row;

extern const ct_schema_section ct_schema_sections[];
extern const size_t ct_schema_nsections;
extern const ct_schema_row ct_schema_rows[];
extern const size_t ct_schema_nrows;

/* Section index of a cache level, and the level of a section (-1: none). */
int ct_config_section_of_level(int level);
int ct_config_level_of_section(int section);

/* Whether a cache level is present. */
static inline int ct_config_level_present(const struct ct_config *c, int lv)
{
    return c->present[ct_config_section_of_level(lv)];
}

#endif
