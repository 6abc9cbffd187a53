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

/* A whole text file, NUL-terminated; NULL when it cannot be read or is not
 * text (the reason in why, errno ENOENT when it does not exist). */
char *read_text_file(const char *path, size_t *len, char *why, size_t whyn);

/* The first line of text that is not a comment ('#'). */
const char *csv_skip_comments(const char *text);

/* A shard's sweep CSV starts with one comment line naming its shard:
 *   #cachet-shard,K,N,POINTS,HASH
 * (shard K of N, POINTS points in the whole sweep, HASH the sweep's hash
 * in 16 hex digits), so that cachet merge can tell a complete set. */
typedef struct shard_info {
    unsigned k, n;
    size_t points;
    unsigned long long hash;
} shard_info;

/* Write the shard line (with its newline) to w. */
void shard_line_write(ct_writer *w, const shard_info *si);

/* 1 and *si when text starts with a shard line, else 0. */
int shard_line_parse(const char *text, shard_info *si);

/* OUT.fit.csv for OUT.csv: the name without ".csv", then ".fit.csv". */
void fit_path_of(const char *out_path, char *buf, size_t n);

/* Write a sweep CSV (text, len bytes) to out_path ("-": stdout) and, when
 * fits is set and out_path is a file, the power-law fits of its rows to
 * OUT.fit.csv (one line per fit to summary, which may be NULL). Each file
 * is written to a temporary name and renamed. */
int write_sweep_outputs(const char *text, size_t len, const char *out_path, int fits,
                        FILE *summary, ct_error *err);

/* Power-law fits of miss_rate against size for every series of a sweep CSV
 * (same trace, level, core and swept values but the level's size); CSV to
 * out, one line per fit to summary (may be NULL). */
int write_fits(const char *csv_text, ct_writer *out, FILE *summary, ct_error *err);

#endif
