/*
 * uncached.h - memory the caches never hold: the ranges of [system]
 * uncached (rules at the top of uncached.c).
 */
#ifndef CT_UNCACHED_H
#define CT_UNCACHED_H

#include <stddef.h>
#include <stdint.h>

#define CT_UNCACHED_MAX 64

typedef struct ct_range {
    uint64_t first, last;  /* inclusive */
} ct_range;

/* Parse "START-END[, START-END...]" into out[] (at most CT_UNCACHED_MAX,
 * sorted by start, overlaps merged): 0, or -1 with a reason. */
int ct_uncached_parse(const char *text, ct_range *out, size_t *n, char *why, size_t whyn);
/* The schema's check of the [system] uncached text. */
int ct_uncached_check(const char *text, char *why, size_t whyn);
/* 1 when addr lies in one of the n sorted ranges. */
int ct_uncached_has(const ct_range *r, size_t n, uint64_t addr);

#endif
