/*
 * classify.c - compulsory / capacity / conflict split (rules in classify.h).
 *
 * The fully-associative LRU or FIFO shadow is a doubly-linked list of at
 * most `lines` nodes (most recently used, or filled, first) with an index
 * from block to node; with another policy the nodes are the ways of the
 * policy's one set. The first-touch set is a map with no values. Both maps
 * are sim/map.h's.
 */
#include <stdlib.h>

#include "classify.h"
#include "map.h"
#include "policy.h"

#define NIL UINT32_MAX

typedef struct node {
    uint64_t block;
    uint32_t prev, next;
    uint32_t valid;           /* sub-blocks held (bit 0 alone without sub-blocks) */
} node;

struct ct_classify {
    int fifo;                 /* FIFO list: a hit does not move its node */
    uint64_t seed;            /* the policy's, for a reset */
    const ct_policy_ops *pol; /* other policies: the plug-in, one set */
    void *pst;
    /* fully-associative shadow */
    node *nodes;
    uint32_t cap, used, head, tail;
    uint32_t *freed, nfreed;  /* nodes dropped by ct_classify_forget, taken
                                 first by the next fills (allocated then) */
    ct_map index;      /* block -> its node */
    ct_map seen;       /* lines ever seen (no values) */
};

ct_classify *ct_classify_create(uint64_t lines, const ct_policy_ops *pol, uint64_t seed)
{
    ct_classify *k = calloc(1, sizeof *k);

    if (!k || lines == 0 || lines > UINT32_MAX / 2)
        goto fail;
    k->cap = (uint32_t)lines;
    k->seed = seed;
    k->head = k->tail = NIL;
    k->nodes = malloc(lines * sizeof *k->nodes);
    /* the index never grows: it holds at most `lines` blocks */
    if (!k->nodes || ct_map_reserve(&k->index, lines) != 0 || ct_map_reserve(&k->seen, 768) != 0)
        goto fail;
    if (pol == &ct_policy_fifo) {
        k->fifo = 1;
    } else if (pol && pol != &ct_policy_lru && (!pol->check || !pol->check((uint32_t)lines))) {
        k->pol = pol;
        k->pst = pol->create(1, (uint32_t)lines, seed);
        if (!k->pst)
            goto fail;
    }
    return k;
fail:
    ct_classify_free(k);
    return NULL;
}

void ct_classify_free(ct_classify *k)
{
    if (!k)
        return;
    if (k->pst)
        k->pol->destroy(k->pst);
    free(k->nodes);
    free(k->freed);
    ct_map_free(&k->index);
    ct_map_free(&k->seen);
    free(k);
}

int ct_classify_reset(ct_classify *k)
{
    k->used = 0;
    k->nfreed = 0;
    k->head = k->tail = NIL;
    ct_map_clear(&k->index);
    ct_map_clear(&k->seen);
    if (k->pst) {
        k->pol->destroy(k->pst);
        k->pst = k->pol->create(1, k->cap, k->seed);
        if (!k->pst) {
            k->pol = NULL;   /* LRU from here on rather than no state */
            return -1;
        }
    }
    return 0;
}

/* ---- fully-associative LRU ---- */

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

/* 1 when the sub-blocks `mask` of block hit in the fully-associative
 * shadow. When the block is there the policy learns of the use and the
 * sub-blocks become valid; a block miss fills when alloc is set. */
static int fa_access(ct_classify *k, uint64_t block, uint32_t mask, int alloc)
{
    const uint64_t *slot = ct_map_find(&k->index, block);
    uint32_t n;
    int added, hit;

    if (slot) {
        n = (uint32_t)*slot;
        if (k->pol) {
            k->pol->hit(k->pst, 0, n);
        } else if (!k->fifo) {
            list_unlink(k, n);
            list_push_front(k, n);
        }
        hit = (k->nodes[n].valid & mask) == mask;
        k->nodes[n].valid |= mask;
        return hit;
    }
    if (!alloc)
        return 0;
    if (k->nfreed) {
        n = k->freed[--k->nfreed];
    } else if (k->used < k->cap) {
        n = k->used++;
    } else {
        n = k->pol ? k->pol->victim(k->pst, 0) : k->tail;
        if (!k->pol)
            list_unlink(k, n);
        ct_map_del(&k->index, k->nodes[n].block);
    }
    k->nodes[n].block = block;
    k->nodes[n].valid = mask;
    if (k->pol)
        k->pol->fill(k->pst, 0, n);
    else
        list_push_front(k, n);
    /* room reserved at creation for every node: no allocation here */
    *ct_map_put(&k->index, block, &added) = n;
    return 0;
}

/* Drop node n, which holds block. */
static int drop_node(ct_classify *k, uint32_t n, uint64_t block)
{
    if (!k->freed && !(k->freed = malloc(k->cap * sizeof *k->freed)))
        return -1;
    ct_map_del(&k->index, block);
    if (k->pol)
        k->pol->inval(k->pst, 0, n);
    else
        list_unlink(k, n);
    k->freed[k->nfreed++] = n;
    return 0;
}

int ct_classify_forget(ct_classify *k, uint64_t b0, uint64_t b1, uint32_t unseen)
{
    if (b1 - b0 < k->cap) {
        for (uint64_t b = b0;; b++) {
            const uint64_t *slot = ct_map_find(&k->index, b);
            uint64_t *seen;
            if (slot && drop_node(k, (uint32_t)*slot, b) != 0)
                return -1;
            if (unseen && (seen = (uint64_t *)ct_map_find(&k->seen, b)) != NULL)
                *seen &= ~(uint64_t)unseen;
            if (b == b1)
                break;
        }
        return 0;
    }
    /* a range wider than the shadow: look at its nodes instead */
    for (uint32_t n = 0; n < k->used; n++) {
        const uint64_t b = k->nodes[n].block;
        const uint64_t *slot;
        if (b < b0 || b > b1 || !(slot = ct_map_find(&k->index, b)) || *slot != n)
            continue;
        if (drop_node(k, n, b) != 0)
            return -1;
    }
    return 0;
}

int ct_classify_access_sub(ct_classify *k, uint64_t block, uint32_t mask, int miss, int alloc)
{
    int first;
    int fa_hit;
    uint64_t *seen = ct_map_put(&k->seen, block, &first);

    fa_hit = fa_access(k, block, mask, alloc);
    if (!seen)
        return -1;
    if (first)
        *seen = 0;
    first = (*seen & mask) != mask;  /* a sub-block never accessed before */
    *seen |= mask;
    if (!miss || fa_hit)
        return CT_MC_CONFLICT;
    return first ? CT_MC_COMPULSORY : CT_MC_CAPACITY;
}

int ct_classify_access(ct_classify *k, uint64_t block, int miss, int alloc)
{
    return ct_classify_access_sub(k, block, 1, miss, alloc);
}
