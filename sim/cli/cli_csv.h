/*
 * cli_csv.h - reading result CSVs back and assembling sweep outputs.
 */
#ifndef CT_CLI_CSV_H
#define CT_CLI_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "cachet/cachet.h"

/* Split one CSV line (quotes honoured) into fields stored in buf. Returns
 * the number of fields, or -1 when buf or max is too small. */
int csv_split(const char *line, char *buf, size_t bufn, char **fields, int max);

/* Index of the column called name, or -1. */
int csv_column(char **fields, int n, const char *name);

/* The rows of finished (trace, point) pairs. */
typedef struct block {
    size_t trace, point;
    char *text;             /* the rows, each ending with a newline */
} block;

typedef struct blocks {
    block *v;
    size_t n, cap;
} blocks;

/* 0 added, 1 already present (kept), -1 out of memory. */
int blocks_add(blocks *b, size_t trace, size_t point, const char *text, size_t len);
int blocks_has(const blocks *b, size_t trace, size_t point);
void blocks_sort(blocks *b);                 /* trace, then point */
int blocks_write(const blocks *b, ct_writer *w);
void blocks_free(blocks *b);

/* A whole file, NUL-terminated; NULL when it cannot be read. */
char *read_text_file(const char *path, size_t *len);

/* Power-law fits of miss_rate against size for every series of a sweep CSV
 * (same trace, level, core and swept values but the level's size); CSV to
 * out, one line per fit to summary (may be NULL). */
int write_fits(const char *csv_text, ct_writer *out, FILE *summary, ct_error *err);

#endif
