/*
 * access.c - batches and the names of kinds, operations and markers.
 */
#include <stdlib.h>

#include "cachet/access.h"
#include "cachet/error.h"
#include "compiler.h"

int ct_batch_init(ct_batch *b, uint32_t cap)
{
    uint32_t side = cap / 4 < 64 ? 64 : cap / 4;

    b->n = b->nmk = b->nev = 0;
    b->cap = cap;
    b->mkcap = side;
    b->evcap = side;
    b->acc = malloc((size_t)cap * sizeof *b->acc);
    b->mk = malloc((size_t)side * sizeof *b->mk);
    b->ev = malloc((size_t)side * sizeof *b->ev);
    if (!b->acc || !b->mk || !b->ev) {
        ct_batch_free(b);
        return CT_E_NOMEM;
    }
    return CT_OK;
}

uint64_t ct_batch_walk_refs(const ct_batch *b, uint32_t *ap, uint32_t *mp, uint64_t k)
{
    uint32_t a = *ap, m = *mp;

    while (k > 0) {
        uint32_t x = m, stop;
        while (x < b->nmk && b->mk[x].type != CT_MK_THREAD_EXIT)
            x++;
        stop = x < b->nmk && b->mk[x].index < b->n ? b->mk[x].index : b->n;
        if (stop < a)
            stop = a;
        if (k <= stop - a) {  /* ends on an access */
            a += (uint32_t)k;
            k = 0;
            while (m < b->nmk && b->mk[m].index < a)
                m++;
            break;
        }
        k -= stop - a;
        a = stop;
        if (x == b->nmk) {    /* the batch ends first */
            m = b->nmk;
            break;
        }
        m = x + 1;            /* the exit is a reference */
        k--;
    }
    *ap = a;
    *mp = m;
    return k;
}

void ct_batch_free(ct_batch *b)
{
    if (!b)
        return;
    free(b->acc);
    free(b->mk);
    free(b->ev);
    b->acc = NULL;
    b->mk = NULL;
    b->ev = NULL;
    b->n = b->nmk = b->nev = 0;
    b->cap = b->mkcap = b->evcap = 0;
}

static const char *const kind_names[CT_KIND_COUNT] = {
    [CT_IFETCH] = "ifetch",     [CT_LOAD] = "load",
    [CT_STORE] = "store",       [CT_PREFETCH] = "prefetch",
    [CT_CACHEOP] = "cacheop",   [CT_ATOMIC] = "atomic",
    [CT_NOFETCH] = "nofetch",   [CT_MISC] = "misc",
    [CT_WRITEBACK] = "writeback",
    [CT_HWPREFETCH] = "hwprefetch", [CT_WALK] = "walk",
};

const char *ct_kind_name(int kind)
{
    return kind >= 0 && kind < CT_KIND_COUNT && kind_names[kind] ? kind_names[kind] : "?";
}

const char *ct_cacheop_name(int op)
{
    switch (op & CT_OP_MASK) {
    case CT_OP_CLEAN: return "clean";
    case CT_OP_INVAL: return "invalidate";
    case CT_OP_CLEAN_INVAL: return "clean+invalidate";
    case CT_OP_ZERO: return "zero";
    case CT_OP_ALLOC: return "allocate";
    default: return "?";
    }
}

const char *ct_marker_name(int type)
{
    switch (type) {
    case CT_MK_THREAD: return "thread";
    case CT_MK_THREAD_EXIT: return "thread_exit";
    case CT_MK_CPU: return "cpu";
    case CT_MK_TIMESTAMP: return "timestamp";
    case CT_MK_SYNC: return "sync";
    case CT_MK_KERNEL: return "kernel";
    case CT_MK_LINE_SIZE: return "line_size";
    case CT_MK_PAGE_SIZE: return "page_size";
    case CT_MK_IDLE: return "idle";
    case CT_MK_ASID: return "asid";
    case CT_MK_VMID: return "vmid";
    default: return "?";
    }
}

const char *ct_event_op_name(int op)
{
    static const char *const names[CT_EVOP_COUNT] = {
        [CT_EVOP_ALLOC] = "ALLOC", [CT_EVOP_DIRTY] = "DIRTY",
        [CT_EVOP_CLEAN] = "CLEAN", [CT_EVOP_INVAL] = "INVAL",
        [CT_EVOP_FILL] = "FILL",   [CT_EVOP_EVICT] = "EVICT",
        [CT_EVOP_WALK] = "WALK",   [CT_EVOP_UPDATE] = "UPDATE",
        [CT_EVOP_SHARED] = "SHARED", [CT_EVOP_UNIQUE] = "UNIQUE",
    };
    return op > 0 && op < CT_EVOP_COUNT ? names[op] : "?";
}

const char *ct_event_type_name(int type)
{
    switch (type) {
    case CT_EV_CACHE: return "CACHE";
    case CT_EV_TLB: return "TLB";
    case CT_EV_WALKCACHE: return "WALKCACHE";
    case CT_EV_TTW: return "TTW";
    case CT_EV_TTU: return "TTU";
    default: return "?";
    }
}

const char *ct_regime_name(int regime)
{
    static const char *const names[] = {
        [CT_RG_UNKNOWN] = "", [CT_RG_EL1_N] = "EL1_n", [CT_RG_EL2_N] = "EL2_n",
        [CT_RG_EL1_S] = "EL1_s", [CT_RG_EL3_S] = "EL3_s", [CT_RG_EL2_S] = "EL2_s",
        [CT_RG_EL20_N] = "EL20_n", [CT_RG_EL20_S] = "EL20_s",
    };
    return regime >= 0 && regime < (int)CT_ARRAY_LEN(names) ? names[regime] : "";
}

const char *ct_walk_result_name(int r)
{
    static const char *const names[] = {
        [CT_WR_UNKNOWN] = "", [CT_WR_TABLE] = "TABLE", [CT_WR_BLOCK] = "BLOCK",
        [CT_WR_PAGETABLE] = "PAGETABLE", [CT_WR_SECTION] = "SECTION",
        [CT_WR_SUPERSECTION] = "SUPERSECTION", [CT_WR_LARGEPAGE] = "LARGEPAGE",
        [CT_WR_SMALLPAGE] = "SMALLPAGE", [CT_WR_FAULT] = "FAULT",
        [CT_WR_RESERVED] = "RESERVED", [CT_WR_ABORTED] = "ABORTED",
    };
    return r >= 0 && r < (int)CT_ARRAY_LEN(names) ? names[r] : "";
}
