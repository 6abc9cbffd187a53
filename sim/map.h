/*
 * map.h - the one hash map of 64-bit keys to 64-bit values, and the one mix
 * function (internal: used by the models, the analyses and the frontends).
 *
 * Rules
 *   - Open addressing, linear probing, one array of {key, value} slots whose
 *     count is a power of two; a slot is free when its key is CT_MAP_EMPTY.
 *     The key CT_MAP_EMPTY itself is a valid key: it is held aside, outside
 *     the array.
 *   - A slot's home is ct_mix64(key) & (slots - 1). The array doubles before
 *     an insertion would fill more than 3/4 of it (the first array has 16
 *     slots); it never shrinks. Deleting shifts the following slots of the
 *     run back, so no tombstones are left.
 *   - A zeroed ct_map is an empty map. Pointers to values stay valid until
 *     the next insertion or deletion.
 *   - Out of memory, an insertion fails (NULL) and the map is unchanged.
 *
 * Which keys a map holds never depends on the order of the slots, so the
 * figures computed with it do not depend on the mix function; the mix is
 * still fixed (and pinned by tests/test_map.c) because sampling in the
 * analyses draws from it.
 */
#ifndef CT_MAP_H
#define CT_MAP_H

#include <stdint.h>

#include "compiler.h"

#define CT_MAP_EMPTY UINT64_MAX

/* The mix of 64 bits: the finaliser of SplitMix64 (a bijection; every input
 * bit changes every output bit with probability near 1/2). */
static inline uint64_t ct_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

typedef struct ct_map_slot {
    uint64_t key;             /* CT_MAP_EMPTY: a free slot */
    uint64_t val;
} ct_map_slot;

typedef struct ct_map {
    ct_map_slot *slot;        /* mask + 1 slots, NULL before the first insertion */
    uint64_t mask;            /* slots - 1 */
    uint64_t used;            /* keys in slot[] */
    uint64_t empty_val;       /* the value of the key CT_MAP_EMPTY, when has_empty */
    int has_empty;
} ct_map;

/* Frees the slots; the map is empty again (m may be NULL). */
void ct_map_free(ct_map *m);

/* Removes every key, keeping the slots (no allocation). */
void ct_map_clear(ct_map *m);
/* Makes room for n keys in all without growing. 0, or -1 out of memory. */
int ct_map_reserve(ct_map *m, uint64_t n);

/* Removes key; 1 when it was there, else 0. */
int ct_map_del(ct_map *m, uint64_t key);

/* Doubles the array (the slow half of ct_map_put). 0, or -1 out of memory. */
int ct_map_grow(ct_map *m);

/* The number of keys held. */
static inline uint64_t ct_map_count(const ct_map *m)
{
    return m->used + (m->has_empty != 0);
}

/* The value of key (hash: ct_mix64(key)), or NULL when absent. */
FORCE_INLINE uint64_t *ct_map_find_hashed(const ct_map *m, uint64_t key, uint64_t hash)
{
    uint64_t h;

    if (UNLIKELY(key == CT_MAP_EMPTY))
        return m->has_empty ? (uint64_t *)&m->empty_val : NULL;
    if (UNLIKELY(!m->slot))
        return NULL;
    for (h = hash & m->mask; m->slot[h].key != CT_MAP_EMPTY; h = (h + 1) & m->mask)
        if (m->slot[h].key == key)
            return &m->slot[h].val;
    return NULL;
}

FORCE_INLINE uint64_t *ct_map_find(const ct_map *m, uint64_t key)
{
    return ct_map_find_hashed(m, key, ct_mix64(key));
}

/* The value of key (hash: ct_mix64(key)), inserted with value 0 when absent
 * (then *added = 1, else 0); NULL out of memory. */
FORCE_INLINE uint64_t *ct_map_put_hashed(ct_map *m, uint64_t key, uint64_t hash, int *added)
{
    uint64_t h;

    *added = 0;
    if (UNLIKELY(key == CT_MAP_EMPTY)) {
        if (!m->has_empty) {
            m->has_empty = 1;
            m->empty_val = 0;
            *added = 1;
        }
        return &m->empty_val;
    }
    for (;;) {
        if (LIKELY(m->slot)) {
            for (h = hash & m->mask; m->slot[h].key != CT_MAP_EMPTY; h = (h + 1) & m->mask)
                if (m->slot[h].key == key)
                    return &m->slot[h].val;
            if (LIKELY((m->used + 1) * 4 <= (m->mask + 1) * 3))
                break;
        }
        if (ct_map_grow(m) != 0)
            return NULL;
    }
    m->slot[h].key = key;
    m->slot[h].val = 0;
    m->used++;
    *added = 1;
    return &m->slot[h].val;
}

FORCE_INLINE uint64_t *ct_map_put(ct_map *m, uint64_t key, int *added)
{
    return ct_map_put_hashed(m, key, ct_mix64(key), added);
}

/* Starts loading the home slot of a key of this hash into the cache. */
FORCE_INLINE void ct_map_prefetch(const ct_map *m, uint64_t hash)
{
    if (m->slot)
        PREFETCH_R(&m->slot[hash & m->mask]);
}

#endif
