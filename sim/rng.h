/*
 * rng.h - the seeded generator behind every random choice (internal):
 * GSL's mt19937 with GSL's abort handler switched off, so that a failure
 * comes back as NULL instead of ending the process.
 */
#ifndef CT_RNG_H
#define CT_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

/* A generator seeded with seed, or NULL when out of memory. */
gsl_rng *ct_rng_new(uint64_t seed);

#endif
