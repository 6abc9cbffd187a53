/*
 * plru.c - tree pseudo-LRU. Each set keeps ways - 1 bits arranged as a
 * binary tree (node 0 the root, children of node n at 2n+1 and 2n+2). A bit
 * of 0 means "the victim is on the left". Touching a way sets every bit on
 * its path to point away from it; the victim is found by following the bits
 * from the root. Needs a power-of-two number of ways, at most 64.
 */
#include <stdlib.h>

#include "../policy.h"

typedef struct plru {
    uint32_t ways;
    uint32_t levels;     /* log2(ways) */
    uint64_t bits[];     /* one tree per set */
} plru;

static const char *plru_check(uint32_t ways)
{
    if (ways > 64 || (ways & (ways - 1)) != 0)
        return "plru needs a power-of-two associativity of at most 64";
    return NULL;
}

static void *plru_create(uint64_t sets, uint32_t ways, uint64_t seed)
{
    plru *p = calloc(1, sizeof *p + sets * sizeof p->bits[0]);

    (void)seed;
    if (p) {
        p->ways = ways;
        while ((1u << p->levels) < ways)
            p->levels++;
    }
    return p;
}

static void plru_destroy(void *st) { free(st); }

static void plru_touch(void *st, uint64_t set, uint32_t way)
{
    plru *p = st;
    uint64_t b = p->bits[set];
    uint32_t node = 0;

    for (uint32_t l = p->levels; l-- > 0;) {
        uint32_t right = (way >> l) & 1;
        /* point away from the way just used */
        if (right)
            b &= ~(1ull << node);
        else
            b |= 1ull << node;
        node = 2 * node + 1 + right;
    }
    p->bits[set] = b;
}

static void plru_inval(void *st, uint64_t set, uint32_t way)
{
    (void)st; (void)set; (void)way;
}

static uint32_t plru_victim(void *st, uint64_t set)
{
    const plru *p = st;
    uint64_t b = p->bits[set];
    uint32_t node = 0, way = 0;

    for (uint32_t l = 0; l < p->levels; l++) {
        uint32_t right = (b >> node) & 1;
        way = (way << 1) | right;
        node = 2 * node + 1 + right;
    }
    return way;
}

const ct_policy_ops ct_policy_plru = {
    .name = "plru",
    .help = "tree pseudo-LRU (power-of-two ways, at most 64)",
    .check = plru_check,
    .create = plru_create, .destroy = plru_destroy,
    .hit = plru_touch, .fill = plru_touch, .inval = plru_inval,
    .victim = plru_victim,
    .rehit_idempotent = 1,
};
