/*
 * nextline.c - next-line prefetcher: every demand miss of a load or store
 * asks for the `prefetch_degree` lines that follow the missing one.
 * Instruction fetches and hits trigger nothing.
 */
#include <stdlib.h>

#include "cachet/access.h"
#include "../policy.h"

typedef struct nextline {
    uint32_t degree;
} nextline;

static void *nl_create(const ct_prefetch_params *params)
{
    nextline *p = malloc(sizeof *p);
    if (p)
        p->degree = params->degree ? params->degree : 1;
    return p;
}

static void nl_destroy(void *st) { free(st); }

static uint32_t nl_observe(void *st, uint64_t block, uint64_t pc, int kind,
                           int seen, uint64_t *out, uint32_t max)
{
    const nextline *p = st;
    uint32_t n = 0;

    (void)pc;
    if (seen != CT_PF_MISS || (kind != CT_LOAD && kind != CT_STORE && kind != CT_ATOMIC))
        return 0;
    while (n < p->degree && n < max) {
        out[n] = block + 1 + n;
        n++;
    }
    return n;
}

const ct_prefetch_ops ct_prefetch_nextline = {
    .name = "nextline",
    .help = "on a data miss, prefetch the next prefetch_degree lines",
    .create = nl_create, .destroy = nl_destroy, .observe = nl_observe,
};
