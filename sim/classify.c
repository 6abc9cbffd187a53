/*
 * classify.c - compulsory / capacity / conflict split (rules in classify.h).
 *
 * The fully-associative LRU shadow is a doubly-linked recency list of at
 * most `lines` nodes with an open-addressing index (linear probing, deletion
 * by backward shift); the first-touch set is a growable open-addressing set.
 */
#include <stdlib.h>
#include <string.h>

#include "classify.h"

#define EMPTY UINT64_MAX
#define NIL UINT32_MAX

typedef struct node {
    uint64_t block;
    uint32_t prev, next;
} node;

struct ct_classify {
    /* fully-associative LRU */
    node *nodes;
    uint32_t cap, used, head, tail;
    uint64_t *key;     /* index: block per slot, EMPTY when free */
    uint32_t *val;     /* node per slot */
    uint64_t imask;
    /* lines ever seen */
    uint64_t *seen;
    uint64_t smask, scount;
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static uint64_t pow2_at_least(uint64_t n)
{
    uint64_t p = 16;
    while (p < n)
        p <<= 1;
    return p;
}

ct_classify *ct_classify_create(uint64_t lines)
{
    ct_classify *k = calloc(1, sizeof *k);
    uint64_t islots;

    if (!k || lines == 0 || lines > UINT32_MAX / 2)
        goto fail;
    k->cap = (uint32_t)lines;
    k->head = k->tail = NIL;
    k->nodes = malloc(lines * sizeof *k->nodes);
    islots = pow2_at_least(lines * 2);
    k->imask = islots - 1;
    k->key = malloc(islots * sizeof *k->key);
    k->val = malloc(islots * sizeof *k->val);
    k->smask = 1023;
    k->seen = malloc((k->smask + 1) * sizeof *k->seen);
    if (!k->nodes || !k->key || !k->val || !k->seen)
        goto fail;
    memset(k->key, 0xff, islots * sizeof *k->key);
    memset(k->seen, 0xff, (k->smask + 1) * sizeof *k->seen);
    return k;
fail:
    ct_classify_free(k);
    return NULL;
}

void ct_classify_free(ct_classify *k)
{
    if (!k)
        return;
    free(k->nodes);
    free(k->key);
    free(k->val);
    free(k->seen);
    free(k);
}

/* ---- first-touch set ---- */

static int seen_grow(ct_classify *k)
{
    uint64_t nmask = k->smask * 2 + 1;
    uint64_t *n = malloc((nmask + 1) * sizeof *n);

    if (!n)
        return -1;
    memset(n, 0xff, (nmask + 1) * sizeof *n);
    for (uint64_t i = 0; i <= k->smask; i++) {
        uint64_t b = k->seen[i], h;
        if (b == EMPTY)
            continue;
        for (h = mix(b) & nmask; n[h] != EMPTY; h = (h + 1) & nmask)
            ;
        n[h] = b;
    }
    free(k->seen);
    k->seen = n;
    k->smask = nmask;
    return 0;
}

/* 1 when block was not seen before (and is now), 0 when it was, -1 on OOM. */
static int seen_add(ct_classify *k, uint64_t block)
{
    uint64_t h;

    for (h = mix(block) & k->smask; k->seen[h] != EMPTY; h = (h + 1) & k->smask)
        if (k->seen[h] == block)
            return 0;
    k->seen[h] = block;
    if (++k->scount * 2 > k->smask && seen_grow(k) != 0)
        return -1;
    return 1;
}

/* ---- fully-associative LRU ---- */

static uint64_t index_find(const ct_classify *k, uint64_t block)
{
    uint64_t h;
    for (h = mix(block) & k->imask; k->key[h] != EMPTY; h = (h + 1) & k->imask)
        if (k->key[h] == block)
            return h;
    return EMPTY;
}

static void index_put(ct_classify *k, uint64_t block, uint32_t n)
{
    uint64_t h;
    for (h = mix(block) & k->imask; k->key[h] != EMPTY; h = (h + 1) & k->imask)
        ;
    k->key[h] = block;
    k->val[h] = n;
}

static void index_del(ct_classify *k, uint64_t slot)
{
    uint64_t i = slot, j = slot;

    for (;;) {
        j = (j + 1) & k->imask;
        if (k->key[j] == EMPTY)
            break;
        uint64_t home = mix(k->key[j]) & k->imask;
        /* move j back to i unless its home lies cyclically in (i, j] */
        if ((i <= j) ? (home <= i || home > j) : (home <= i && home > j)) {
            k->key[i] = k->key[j];
            k->val[i] = k->val[j];
            i = j;
        }
    }
    k->key[i] = EMPTY;
}

static void list_unlink(ct_classify *k, uint32_t n)
{
    node *x = &k->nodes[n];
    if (x->prev != NIL) k->nodes[x->prev].next = x->next; else k->head = x->next;
    if (x->next != NIL) k->nodes[x->next].prev = x->prev; else k->tail = x->prev;
}

static void list_push_front(ct_classify *k, uint32_t n)
{
    node *x = &k->nodes[n];
    x->prev = NIL;
    x->next = k->head;
    if (k->head != NIL)
        k->nodes[k->head].prev = n;
    k->head = n;
    if (k->tail == NIL)
        k->tail = n;
}

/* 1 when block hits in the fully-associative shadow; updates it either way. */
static int fa_access(ct_classify *k, uint64_t block)
{
    uint64_t slot = index_find(k, block);
    uint32_t n;

    if (slot != EMPTY) {
        n = k->val[slot];
        list_unlink(k, n);
        list_push_front(k, n);
        return 1;
    }
    if (k->used < k->cap) {
        n = k->used++;
    } else {
        n = k->tail;
        list_unlink(k, n);
        index_del(k, index_find(k, k->nodes[n].block));
    }
    k->nodes[n].block = block;
    list_push_front(k, n);
    index_put(k, block, n);
    return 0;
}

int ct_classify_access(ct_classify *k, uint64_t block, int miss)
{
    int first = seen_add(k, block);
    int fa_hit = fa_access(k, block);

    if (first < 0)
        return -1;
    if (!miss)
        return CT_MC_CONFLICT;
    if (first)
        return CT_MC_COMPULSORY;
    return fa_hit ? CT_MC_CONFLICT : CT_MC_CAPACITY;
}
