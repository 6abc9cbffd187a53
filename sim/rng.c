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
