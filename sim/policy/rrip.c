/*
 * rrip.c - re-reference interval prediction (Jaleel et al., ISCA 2010) with
 * 2-bit predictions (RRPV 0..3):
 *   hit: RRPV = 0 (hit priority);
 *   victim: the lowest way with RRPV 3; if none, every RRPV of the set is
 *           incremented and the search repeats;
 *   fill: SRRIP inserts at RRPV 2 ("long"); BRRIP inserts at 3 ("distant")
 *         except one fill in 32, chosen by a GSL generator seeded from
 *         [system] seed, which inserts at 2.
 */
#include <stdlib.h>

#include "../policy.h"
#include "../rng.h"

#define RRPV_MAX 3
#define BRRIP_LONG_ONE_IN 32

typedef struct rrip {
    uint32_t ways;
    int bimodal;
    gsl_rng *rng;
    uint8_t rrpv[];
} rrip;

static void *rrip_make(uint64_t sets, uint32_t ways, uint64_t seed, int bimodal)
{
    rrip *p = calloc(1, sizeof *p + sets * ways);

    if (!p)
        return NULL;
    p->ways = ways;
    p->bimodal = bimodal;
    for (uint64_t i = 0; i < sets * ways; i++)
        p->rrpv[i] = RRPV_MAX;
    if (bimodal) {
        p->rng = ct_rng_new(seed);
        if (!p->rng) {
            free(p);
            return NULL;
        }
    }
    return p;
}

static void *srrip_create(uint64_t sets, uint32_t ways, uint64_t seed)
{
    return rrip_make(sets, ways, seed, 0);
}

static void *brrip_create(uint64_t sets, uint32_t ways, uint64_t seed)
{
    return rrip_make(sets, ways, seed, 1);
}

static void rrip_destroy(void *st)
{
    rrip *p = st;
    if (p && p->rng)
        gsl_rng_free(p->rng);
    free(p);
}

static void rrip_hit(void *st, uint64_t set, uint32_t way)
{
    rrip *p = st;
    p->rrpv[set * p->ways + way] = 0;
}

static void rrip_fill(void *st, uint64_t set, uint32_t way)
{
    rrip *p = st;
    uint8_t v = RRPV_MAX - 1;

    if (p->bimodal && gsl_rng_uniform_int(p->rng, BRRIP_LONG_ONE_IN) != 0)
        v = RRPV_MAX;
    p->rrpv[set * p->ways + way] = v;
}

static void rrip_inval(void *st, uint64_t set, uint32_t way)
{
    rrip *p = st;
    p->rrpv[set * p->ways + way] = RRPV_MAX;
}

static uint32_t rrip_victim(void *st, uint64_t set)
{
    rrip *p = st;
    uint8_t *r = &p->rrpv[set * p->ways];

    for (;;) {
        for (uint32_t w = 0; w < p->ways; w++)
            if (r[w] >= RRPV_MAX)
                return w;
        for (uint32_t w = 0; w < p->ways; w++)
            r[w]++;
    }
}

const ct_policy_ops ct_policy_srrip = {
    .name = "srrip",
    .help = "static RRIP, 2-bit, insert at 2",
    .create = srrip_create, .destroy = rrip_destroy,
    .hit = rrip_hit, .fill = rrip_fill, .inval = rrip_inval,
    .victim = rrip_victim,
    .rehit_idempotent = 1,
    .hit_after_fill = 1,
};

const ct_policy_ops ct_policy_brrip = {
    .name = "brrip",
    .help = "bimodal RRIP, 2-bit, insert at 3 except 1 in 32 at 2",
    .create = brrip_create, .destroy = rrip_destroy,
    .hit = rrip_hit, .fill = rrip_fill, .inval = rrip_inval,
    .victim = rrip_victim,
    .rehit_idempotent = 1,
    .hit_after_fill = 1,
};
