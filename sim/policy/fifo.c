/*
 * fifo.c - first in, first out: the victim is the way filled longest ago.
 * Hits change nothing. The smallest policy, and the template for new ones.
 */
#include "../policy.h"
#include "stamps.h"

static void *fifo_create(uint64_t sets, uint32_t ways, uint64_t seed)
{
    (void)seed;
    return ct_stamps_create(sets, ways);
}

static void fifo_hit(void *st, uint64_t set, uint32_t way)
{
    (void)st; (void)set; (void)way;
}

const ct_policy_ops ct_policy_fifo = {
    .name = "fifo",
    .help = "first in, first out",
    .create = fifo_create, .destroy = free,
    .hit = fifo_hit, .fill = ct_stamps_now, .inval = ct_stamps_clear,
    .victim = ct_stamps_oldest, .age = ct_stamps_age,
    .rehit_idempotent = 1,
};
