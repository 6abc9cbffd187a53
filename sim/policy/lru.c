/*
 * lru.c - least recently used: every hit and fill stamps the line with a
 * running clock; the victim is the way with the oldest stamp (the lowest
 * way on a tie, which only happens before the set has been filled). This
 * defines the order; a cache keeps it itself (sim/cache.h): with at most 8
 * ways as a bit matrix per set, creating no state here; with more, by
 * stamping its lines from a clock of its own in the array
 * ct_policy_lru_state hands it, asking only for inval. hit, fill and
 * victim serve anyone else.
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
    .victim = ct_stamps_oldest,
    .rehit_idempotent = 1,
};
