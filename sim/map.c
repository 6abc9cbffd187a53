/*
 * map.c - growing and deleting in the hash map of 64-bit keys (rules in
 * map.h; lookups and insertions are inline there).
 */
#include <stdlib.h>

#include "map.h"

#define MIN_SLOTS 16

void ct_map_free(ct_map *m)
{
    if (!m)
        return;
    free(m->slot);
    m->slot = NULL;
    m->mask = 0;
    m->used = 0;
    m->has_empty = 0;
}

void ct_map_clear(ct_map *m)
{
    for (uint64_t i = 0; m->slot && i <= m->mask; i++)
        m->slot[i].key = CT_MAP_EMPTY;
    m->used = 0;
    m->has_empty = 0;
}

/* Moves every key into an array of `slots` slots. */
static int rehash(ct_map *m, uint64_t slots)
{
    ct_map_slot *n = malloc(slots * sizeof *n);

    if (!n)
        return -1;
    for (uint64_t i = 0; i < slots; i++)
        n[i].key = CT_MAP_EMPTY;
    for (uint64_t i = 0; m->slot && i <= m->mask; i++) {
        uint64_t h;
        if (m->slot[i].key == CT_MAP_EMPTY)
            continue;
        for (h = ct_mix64(m->slot[i].key) & (slots - 1); n[h].key != CT_MAP_EMPTY;
             h = (h + 1) & (slots - 1))
            ;
        n[h] = m->slot[i];
    }
    free(m->slot);
    m->slot = n;
    m->mask = slots - 1;
    return 0;
}

int ct_map_grow(ct_map *m)
{
    return rehash(m, m->slot ? (m->mask + 1) * 2 : MIN_SLOTS);
}

int ct_map_reserve(ct_map *m, uint64_t n)
{
    uint64_t slots = m->slot ? m->mask + 1 : MIN_SLOTS;

    while (n * 4 > slots * 3) {
        if (slots > UINT64_MAX / 2 / sizeof(ct_map_slot))
            return -1;
        slots *= 2;
    }
    if (m->slot && slots == m->mask + 1)
        return 0;
    return rehash(m, slots);
}

int ct_map_del(ct_map *m, uint64_t key)
{
    uint64_t i, j;

    if (key == CT_MAP_EMPTY) {
        int had = m->has_empty;
        m->has_empty = 0;
        return had;
    }
    if (!m->slot)
        return 0;
    for (i = ct_mix64(key) & m->mask; m->slot[i].key != key; i = (i + 1) & m->mask)
        if (m->slot[i].key == CT_MAP_EMPTY)
            return 0;
    /* shift back each later key of the run whose home is not in (i, j] */
    for (j = i;;) {
        uint64_t home;
        j = (j + 1) & m->mask;
        if (m->slot[j].key == CT_MAP_EMPTY)
            break;
        home = ct_mix64(m->slot[j].key) & m->mask;
        if ((i <= j) ? (home <= i || home > j) : (home <= i && home > j)) {
            m->slot[i] = m->slot[j];
            i = j;
        }
    }
    m->slot[i].key = CT_MAP_EMPTY;
    m->used--;
    return 1;
}
