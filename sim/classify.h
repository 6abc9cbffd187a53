/*
 * classify.h - the 3C miss classification of one level (internal), as
 * DineroIV 7 defines it (its ref.c, d4ref and d4infcache):
 *
 * A shadow fully-associative cache with the level's number of lines and
 * the level's replacement policy sees every access the level classifies,
 * hit or miss, and fills as the level does: an access that would not
 * allocate in the level (a write without write-allocate) and misses the
 * shadow leaves it unchanged; if it hits the shadow, the policy is told of
 * the hit. Then a miss of the level is
 *   conflict:   when the shadow hits;
 *   compulsory: else when the line was never accessed at this level before;
 *   capacity:   else.
 * With sub-blocks (ct_classify_access_sub) the shadow holds a valid bit
 * per sub-block and the set of lines seen a bit per sub-block, as
 * DineroIV's fully-associative stack and infinite cache do.
 * Policies: LRU and FIFO are the shadow's own lists (exact, any number of
 * lines); the other policies run as plug-ins on one set of `lines` ways
 * (random draws from the level's seed), except PLRU beyond what its tree
 * allows (a power of two up to 64 ways), which takes LRU. The set of lines
 * seen grows with the footprint of the trace, not with its length.
 * Invalidating the whole level forgets both (ct_classify_reset), as
 * DineroIV's d4invalidate empties the shadow and the infinite cache: a
 * line's next miss is compulsory again. Invalidating one line drops it
 * from the shadow only (ct_classify_forget), whether or not the level
 * holds it: its place is the first taken
 * by the next fill, and the line stays seen, so its next miss is a
 * capacity miss (DineroIV 7's one-block d4invalidate moves the block to
 * the bottom of the fully-associative stack as invalid and, without
 * sub-blocks, clears nothing in its infinite cache).
 */
#ifndef CT_CLASSIFY_H
#define CT_CLASSIFY_H

#include <stdint.h>

enum ct_miss_class { CT_MC_COMPULSORY, CT_MC_CAPACITY, CT_MC_CONFLICT };

typedef struct ct_classify ct_classify;

struct ct_policy_ops;

/* A classifier for a level of `lines` lines with replacement policy pol
 * (seeded with seed when it draws); NULL when out of memory. */
ct_classify *ct_classify_create(uint64_t lines, const struct ct_policy_ops *pol, uint64_t seed);
void ct_classify_free(ct_classify *k);

/* Forget every line: the shadow is empty and no line was ever seen. 0, or
 * -1 out of memory (a drawing policy's state is made anew). */
int ct_classify_reset(ct_classify *k);

/* Drop the blocks b0..b1 from the shadow (those that are there), and with
 * a range no wider than the shadow forget the sub-blocks `unseen` of each
 * as seen (0 with whole lines; see sim/hier.c, "Sub-blocks"); 0, or -1 out
 * of memory. */
int ct_classify_forget(ct_classify *k, uint64_t b0, uint64_t b1, uint32_t unseen);

/* Record one access to block, a miss of the level when miss is set; alloc
 * is 0 when a miss of this access would not fill the level (a write
 * without write-allocate). Returns the enum ct_miss_class of a miss (the
 * value is meaningless when miss is 0), or -1 when out of memory. */
int ct_classify_access(ct_classify *k, uint64_t block, int miss, int alloc);

/* ct_classify_access for a level with sub-blocks: the access touches the
 * sub-blocks `mask` of block (bit i: sub-block i). It hits the shadow when
 * the block is there with every sub-block of mask valid; when the block is
 * there (or fills) the sub-blocks of mask become valid. A miss is
 * compulsory when a sub-block of mask was never accessed before at this
 * level (DineroIV's d4infcache). ct_classify_access is this with mask 1. */
int ct_classify_access_sub(ct_classify *k, uint64_t block, uint32_t mask, int miss, int alloc);

#endif
