/*
 * random.c - random replacement: the victim is a way drawn uniformly by a
 * GSL generator (mt19937) seeded from [system] seed, so runs repeat exactly:
 * one generator per cache, seeded with the seed the cache is created with
 * (sim/hier.c gives level i, in creation order, [system] seed + i), and
 * one draw, gsl_rng_uniform_int(r, ways), per victim. The cache asks for a
 * victim only when every way of the set holds a line.
 */
#include <stdlib.h>

#include "../policy.h"
#include "../rng.h"

typedef struct rnd {
    uint32_t ways;
    gsl_rng *rng;
} rnd;

static void *rnd_create(uint64_t sets, uint32_t ways, uint64_t seed)
{
    rnd *p = calloc(1, sizeof *p);

    (void)sets;
    if (!p)
        return NULL;
    p->ways = ways;
    p->rng = ct_rng_new(seed);
    if (!p->rng) {
        free(p);
        return NULL;
    }
    return p;
}

static void rnd_destroy(void *st)
{
    rnd *p = st;
    if (p)
        gsl_rng_free(p->rng);
    free(p);
}

static void rnd_nop(void *st, uint64_t set, uint32_t way)
{
    (void)st; (void)set; (void)way;
}

static uint32_t rnd_victim(void *st, uint64_t set)
{
    rnd *p = st;
    (void)set;
    return (uint32_t)gsl_rng_uniform_int(p->rng, p->ways);
}

const ct_policy_ops ct_policy_random = {
    .name = "random",
    .help = "uniformly random victim (GSL mt19937, seeded by [system] seed)",
    .create = rnd_create, .destroy = rnd_destroy,
    .hit = rnd_nop, .fill = rnd_nop, .inval = rnd_nop,
    .victim = rnd_victim,
    .rehit_idempotent = 1,
};
