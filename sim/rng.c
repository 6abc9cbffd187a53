/*
 * rng.c - the seeded generator behind every random choice (rng.h).
 */
#include <gsl/gsl_errno.h>

#include "rng.h"

gsl_rng *ct_rng_new(uint64_t seed)
{
    gsl_rng *r;

    gsl_set_error_handler_off();
    r = gsl_rng_alloc(gsl_rng_mt19937);
    if (r)
        gsl_rng_set(r, (unsigned long)seed);
    return r;
}

void ct_libc_random_seed(ct_libc_random *g, uint32_t seed)
{
    int32_t word = (int32_t)(seed ? seed : 1);

    g->r[0] = word;
    for (int i = 1; i < 31; i++) {
        /* 16807 * word mod (2^31 - 1), by Schrage's method as glibc */
        const int32_t hi = word / 127773, lo = word % 127773;
        word = 16807 * lo - 2836 * hi;
        if (word < 0)
            word += 2147483647;
        g->r[i] = word;
    }
    g->f = 3;
    g->b = 0;
    for (int i = 0; i < 310; i++)
        (void)ct_libc_random_next(g);
}

int32_t ct_libc_random_next(ct_libc_random *g)
{
    uint32_t v = (uint32_t)g->r[g->f] + (uint32_t)g->r[g->b];
    g->r[g->f] = (int32_t)v;
    if (++g->f == 31)
        g->f = 0;
    if (++g->b == 31)
        g->b = 0;
    return (int32_t)(v >> 1);
}
