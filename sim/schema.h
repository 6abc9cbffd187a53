/*
 * schema.h - configuration keys as rows, declared where they are read
 * (internal).
 *
 * The model's keys are declared in sim/config_schema.c; a trace reader's
 * keys (the [trace] section of frontends/trace.c, Tarmac's keys, [tt6])
 * are declared in the reader's own file, as a block of rows that fill an
 * options struct the reader owns. The configuration (sim/config.c) gathers
 * every block into one schema, in the order of the block list in
 * config_schema.c: that order is the order of `cachet config --keys`,
 * configs/README.md and the configuration hash. A reader gets its struct
 * back with ct_config_options; it never sees struct ct_config.
 *
 * This header knows neither side: it has the row type, the block type, and
 * the few calls a reader makes.
 */
#ifndef CT_SCHEMA_H
#define CT_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

struct ct_config;

enum ct_vtype { CT_VT_UINT, CT_VT_SIZE, CT_VT_BOOL, CT_VT_ENUM, CT_VT_STRING,
                CT_VT_ASSOC };

typedef struct ct_schema_section {
    const char *name;
    int optional;             /* 1: exists only when the INI has it (cache levels; [tt6],
                                 whose keys take their defaults when it is absent) */
    const char *help;         /* NULL: a section an earlier block declares */
} ct_schema_section;

typedef struct ct_schema_row {
    int section;              /* index into its block's sections */
    const char *key;
    enum ct_vtype type;
    size_t offset;            /* of the typed field in the block's struct */
    size_t field_size;        /* bytes of that field (strings) */
    uint64_t min, max;        /* numeric range, inclusive */
    const char *def;          /* default text */
    const char *const *names; /* CT_VT_ENUM: NULL-terminated value names;
                                 CT_VT_BOOL: further values after yes (1) and
                                 no (0), numbered 2, 3, ... */
    const char *(*name_at)(size_t i); /* CT_VT_ENUM from a registry */
    const char *help;
    /* CT_VT_STRING with a grammar of its own (a list): 0 when text is valid,
     * else -1 with the reason in why. NULL: any text that fits. */
    int (*check)(const char *text, char *why, size_t whyn);
} ct_schema_row;

/* Rows that fill one struct. A section named by an earlier block is the
 * same section (its rows follow that block's). */
typedef struct ct_schema_block {
    const ct_schema_section *sections;
    size_t nsections;
    const ct_schema_row *rows;
    size_t nrows;
    size_t size;              /* bytes of the struct the rows fill (its alignment is
                                 at most 16); 0: struct ct_config itself (the model) */
} ct_schema_block;

/* A block of the arrays `sections` and `rows` filling a struct of `size`
 * bytes. */
#define CT_SCHEMA_BLOCK(sections, rows, size)                                                  \
    {(sections), sizeof(sections) / sizeof((sections)[0]), (rows),                             \
     sizeof(rows) / sizeof((rows)[0]), (size)}

/* The blocks, one per file that reads keys (list in config_schema.c). */
extern const ct_schema_block ct_model_schema, ct_trace_schema, ct_tarmac_schema,
    ct_tt6_schema;

/* The struct block b fills in configuration c (b is one of the blocks above,
 * not the model's). */
const void *ct_config_options(const struct ct_config *c, const ct_schema_block *b);

/* What a trace reader needs of the model: the number of cores, and the
 * line a cache operation covers (instruction side: the L1I when present,
 * else as the data side; data side: the first data level present; 0: no
 * cache level). */
uint32_t ct_config_cores(const struct ct_config *c);
uint32_t ct_config_op_line(const struct ct_config *c, int iside);

#endif
