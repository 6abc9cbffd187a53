/*
 * lru.c - least recently used: every hit and fill stamps the line with a
 * running clock; the victim is the way with the oldest stamp (the lowest
 * way on a tie, which only happens before the set has been filled). A cache
 * with this policy stamps its lines itself, from a clock of its own, and
 * asks only for inval (ct_policy_lru_state hands it the stamps); hit, fill
 * and victim serve anyone else.
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
