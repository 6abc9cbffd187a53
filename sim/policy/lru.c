/*
 * lru.c - least recently used: the rule. Every hit and fill makes the line
 * the most recently used of its set; the victim is the least recently used
 * line, and while the set has empty ways, the lowest of them (a dropped
 * line becomes empty). This file serves the rule as a policy with a stamp
 * per line from a running clock (0 when empty; the victim is the oldest
 * stamp, the lowest way on a tie), which a cache of more than 16 ways
 * updates inline in the array ct_policy_lru_state hands it, asking only
 * for inval. A cache of up to 16 ways keeps the same order as recency rows
 * (lru.h: the age of each way of a set, 0 for the most recent, the victim
 * the oldest) and creates no state here.
 */
#include "../policy.h"
#include "lru.h"
#include "stamps.h"

#define SPLAT(v) {v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v}
#define CLEAR(w)                                                                         \
    {(w) == 0 ? 0 : 0xff, (w) == 1 ? 0 : 0xff, (w) == 2 ? 0 : 0xff, (w) == 3 ? 0 : 0xff,   \
     (w) == 4 ? 0 : 0xff, (w) == 5 ? 0 : 0xff, (w) == 6 ? 0 : 0xff, (w) == 7 ? 0 : 0xff,   \
     (w) == 8 ? 0 : 0xff, (w) == 9 ? 0 : 0xff, (w) == 10 ? 0 : 0xff, (w) == 11 ? 0 : 0xff, \
     (w) == 12 ? 0 : 0xff, (w) == 13 ? 0 : 0xff, (w) == 14 ? 0 : 0xff, (w) == 15 ? 0 : 0xff}

_Alignas(16) const uint8_t ct_lru_splat[CT_LRU_ROW_WAYS][16] = {
    SPLAT(0), SPLAT(1), SPLAT(2), SPLAT(3), SPLAT(4), SPLAT(5), SPLAT(6), SPLAT(7),
    SPLAT(8), SPLAT(9), SPLAT(10), SPLAT(11), SPLAT(12), SPLAT(13), SPLAT(14), SPLAT(15)};
_Alignas(16) const uint8_t ct_lru_clear[CT_LRU_ROW_WAYS][16] = {
    CLEAR(0), CLEAR(1), CLEAR(2), CLEAR(3), CLEAR(4), CLEAR(5), CLEAR(6), CLEAR(7),
    CLEAR(8), CLEAR(9), CLEAR(10), CLEAR(11), CLEAR(12), CLEAR(13), CLEAR(14), CLEAR(15)};

static void *lru_create(uint64_t sets, uint32_t ways, uint64_t seed)
{
    (void)seed;
    return ct_stamps_create(sets, ways);
}

uint64_t *ct_policy_lru_state(void *st)
{
    ct_stamps *p = st;
    return p->stamp;
}

const ct_policy_ops ct_policy_lru = {
    .name = "lru",
    .help = "least recently used",
    .create = lru_create, .destroy = free,
    .hit = ct_stamps_now, .fill = ct_stamps_now, .inval = ct_stamps_clear,
    .victim = ct_stamps_oldest, .age = ct_stamps_age,
    .rehit_idempotent = 1,
};
