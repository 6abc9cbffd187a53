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

/* The sequence of the C library's random() after srandom(seed), as glibc
 * makes it (its default additive generator: 31 words, separation 3), so
 * that a rule written against DineroIV's use of random() draws the same
 * numbers (sim/prefetch/dinero.c). Plain data; no allocation. */
typedef struct ct_libc_random {
    int32_t r[31];
    int f, b;                 /* front and rear positions in r */
} ct_libc_random;

void ct_libc_random_seed(ct_libc_random *g, uint32_t seed);
int32_t ct_libc_random_next(ct_libc_random *g);   /* 0 .. 2^31 - 1 */

#endif
