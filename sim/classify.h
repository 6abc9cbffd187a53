/*
 * classify.h - the 3C miss classification of one level (internal).
 *
 * compulsory: the first access to the line at this level;
 * capacity:   any other miss that would also miss in a fully-associative
 *             LRU cache with the same number of lines;
 * conflict:   the remaining misses (the fully-associative cache would hit).
 * The shadow fully-associative cache sees every access the level sees, hit
 * or miss. The set of lines seen grows with the footprint of the trace, not
 * with its length.
 */
#ifndef CT_CLASSIFY_H
#define CT_CLASSIFY_H

#include <stdint.h>

enum ct_miss_class { CT_MC_COMPULSORY, CT_MC_CAPACITY, CT_MC_CONFLICT };

typedef struct ct_classify ct_classify;

ct_classify *ct_classify_create(uint64_t lines);
void ct_classify_free(ct_classify *k);

/* Record one access to block; returns the enum ct_miss_class of a miss
 * (the value is meaningless when miss is 0), or -1 when out of memory. */
int ct_classify_access(ct_classify *k, uint64_t block, int miss);

#endif
