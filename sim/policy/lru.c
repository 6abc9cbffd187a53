/*
 * lru.c - least recently used: every hit and fill stamps the line with a
 * running clock; the victim is the way with the oldest stamp (the lowest
 * way on a tie, which only happens before the set has been filled). The
 * cache updates these stamps itself on its fast path (ct_policy_lru_state).
 */
#include "../policy.h"
#include "stamps.h"

static void *lru_create(uint64_t sets, uint32_t ways, uint64_t seed)
{
    (void)seed;
    return ct_stamps_create(sets, ways);
}

void ct_policy_lru_state(void *st, uint64_t **stamp, uint64_t **clock)
{
    ct_stamps *p = st;
    *stamp = p->stamp;
    *clock = &p->clock;
}

const ct_policy_ops ct_policy_lru = {
    .name = "lru",
    .help = "least recently used",
    .create = lru_create, .destroy = free,
    .hit = ct_stamps_now, .fill = ct_stamps_now, .inval = ct_stamps_clear,
    .victim = ct_stamps_oldest,
    .rehit_idempotent = 1,
};
