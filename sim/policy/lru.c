/*
 * lru.c - least recently used: the rule. Every hit and fill makes the line
 * the most recently used of its set; the victim is the least recently used
 * line, and while the set has empty ways, the lowest of them (a dropped
 * line becomes empty). This file serves the rule as a policy with a stamp
 * per line from a running clock (0 when empty; the victim is the oldest
 * stamp, the lowest way on a tie), which a cache of more than 16 ways
 * updates inline in the array ct_policy_lru_state hands it, asking only
 * for inval. A cache of up to 16 ways keeps the same order as recency rows
 * (lru.h: the ways of a set from the most recent to the least, the victim
 * the last) and creates no state here.
 */
#include "../policy.h"
#include "stamps.h"

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
