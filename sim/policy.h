/*
 * policy.h - replacement policies and hardware prefetchers as plug-ins
 * (internal).
 *
 * A replacement policy is a const struct of functions plus a name, one file
 * each under sim/policy/, one line in sim/policy/registry.c. The cache owns
 * the tag array and picks an invalid way itself when a set has one; the
 * policy is asked for a victim only when every way of the set is valid.
 * sim/policy/fifo.c is the smallest policy and the template for a new one.
 *
 * Prefetchers follow the same pattern under sim/prefetch/ (none.c is the
 * template).
 */
#ifndef CT_POLICY_H
#define CT_POLICY_H

#include <stddef.h>
#include <stdint.h>

typedef struct ct_policy_ops {
    const char *name;
    const char *help;
    /* Non-NULL: a reason why `ways` does not suit this policy. */
    const char *(*check)(uint32_t ways);
    /* State for the whole cache (sets x ways); NULL on allocation failure. */
    void *(*create)(uint64_t sets, uint32_t ways, uint64_t seed);
    void (*destroy)(void *st);
    void (*hit)(void *st, uint64_t set, uint32_t way);    /* line used again */
    void (*fill)(void *st, uint64_t set, uint32_t way);   /* line inserted */
    void (*inval)(void *st, uint64_t set, uint32_t way);  /* line dropped */
    uint32_t (*victim)(void *st, uint64_t set);           /* every way valid */
    /* Optional: the line's place in the policy's order, larger for a line
     * more recently used (LRU) or filled (FIFO); NULL: the way number. */
    uint64_t (*age)(void *st, uint64_t set, uint32_t way);
    /* 1 when a hit on the line hit last time changes nothing (lets the cache
     * skip the policy for repeated hits on one line). */
    int rehit_idempotent;
    /* 1 when a hit on a line just filled still changes the state (RRIP: a
     * fill predicts a distant re-reference, a hit promotes): a fill then
     * does not make the line the one told about last. */
    int hit_after_fill;
} ct_policy_ops;

extern const ct_policy_ops ct_policy_lru, ct_policy_plru, ct_policy_fifo,
    ct_policy_random, ct_policy_srrip, ct_policy_brrip, ct_policy_lfu, ct_policy_opt;

/* The LRU state, for the cache's inlined LRU path: the stamp array
 * (set-major, 0 for an empty line). */
uint64_t *ct_policy_lru_state(void *st);

/* Registry: policy i (NULL past the end), and lookup by name (-1: unknown). */
const ct_policy_ops *ct_policy_at(size_t i);
int ct_policy_find(const char *name);
const char *ct_policy_name_at(size_t i);

/* A prefetcher's settings: the level's prefetch_* keys. */
typedef struct ct_prefetch_params {
    uint32_t degree;      /* lines requested per trigger */
    uint32_t distance;    /* lines ahead of the access where the requests start */
    uint32_t table;       /* entries of the prefetcher's table */
    uint32_t confidence;  /* stride: repeats of a stride before it prefetches */
} ct_prefetch_params;

/* What a demand access found at the level, as observe() is told. */
enum ct_prefetch_seen {
    CT_PF_MISS = 0,        /* the line was absent */
    CT_PF_HIT = 1,         /* present, brought by a demand access or used before */
    CT_PF_HIT_PREFETCHED   /* present, brought by a prefetch and not used before */
};

typedef struct ct_prefetch_ops {
    const char *name;
    const char *help;
    void *(*create)(const ct_prefetch_params *p);
    void (*destroy)(void *st);
    /* After a demand access of `kind` to `block` at the level (`seen`: enum
     * ct_prefetch_seen), write up to `max` block numbers to prefetch into
     * out[]; return how many. */
    uint32_t (*observe)(void *st, uint64_t block, uint64_t pc, int kind,
                        int seen, uint64_t *out, uint32_t max);
    /* DineroIV's fetch policies (sim/prefetch/dinero.c) have this as well,
     * and the level calls it instead of observe: before a demand access of
     * `kind` at byte addr is served (`seen` for the sub-blocks it touches;
     * lines of 2^line_bits bytes, sub-blocks of 2^sb_bits), return 1 with
     * the byte address of the sub-block to prefetch in *out, or 0. NULL
     * for the block prefetchers. */
    int (*propose)(void *st, uint64_t addr, int kind, int seen, uint32_t line_bits,
                   uint32_t sb_bits, uint64_t *out);
} ct_prefetch_ops;

extern const ct_prefetch_ops ct_prefetch_none, ct_prefetch_nextline, ct_prefetch_stride,
    ct_prefetch_stream, ct_prefetch_always, ct_prefetch_miss, ct_prefetch_tagged,
    ct_prefetch_loadforw, ct_prefetch_subblock;

const ct_prefetch_ops *ct_prefetch_at(size_t i);
const char *ct_prefetch_name_at(size_t i);

#endif
