/*
 * timing.h - [system] timing = overlap: the core clocks that place each
 * access in time (internal; the rules are at the top of sim/timing.c).
 */
#ifndef CACHET_TIMING_H
#define CACHET_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "cachet/access.h"
#include "cachet/error.h"

struct ct_sim;
struct ct_config;
struct ct_timing;

/* 0 when text is a decimal from 0 to 1000 with at most 3 decimals (its
 * value in thousandths of a cycle in *milli when milli is not NULL), else
 * -1 with the reason in why. */
int ct_timing_base_cpi_parse(const char *text, uint64_t *milli, char *why, size_t whyn);
int ct_timing_base_cpi_check(const char *text, char *why, size_t whyn);

/* The clocks of s's cores for cfg (cfg->timing = overlap): CT_OK with *out
 * set, CT_E_CONFIG for what overlap does not model, CT_E_NOMEM. Free with
 * ct_timing_free (NULL accepted). */
int ct_timing_create(struct ct_timing **out, struct ct_sim *s, const struct ct_config *cfg,
                     ct_error *err);
void ct_timing_free(struct ct_timing *t);

/* Told by the hierarchy while it serves one access: a demand request of
 * the access missed at level li and fetches block (of li's lines) from
 * below; a hardware prefetch of level li fetches block, which arrives
 * `latency` cycles after it is sent. */
void ct_timing_miss(struct ct_timing *t, int li, uint64_t block);
void ct_timing_prefetch(struct ct_timing *t, int li, uint64_t block, uint32_t latency);

/* Place access a, which the hierarchy has just served for `cost` cycles
 * (the latency blocking charges it), in its core's time. */
void ct_timing_access(struct ct_timing *t, const ct_access *a, uint64_t cost);

/* Core `core`'s cycles since creation or the last ct_timing_reset. */
uint64_t ct_timing_cycles(const struct ct_timing *t, uint32_t core);
void ct_timing_reset(struct ct_timing *t);

#endif
