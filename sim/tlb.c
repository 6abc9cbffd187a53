/*
 * tlb.c - TLBs and walk caches: every rule of the structures, stated once
 * (the translation step, the walker and the page tables are in walk.c).
 *
 * Shape
 *   Per core an instruction TLB [itlb], a data TLB [dtlb], a unified
 *   second-level TLB [stlb] and a walk cache [walkcache], each optional and
 *   private to its core. Which structures an access looks up, and in which
 *   order, is the translation step's rule (walk.c).
 *
 * Entries
 *   A TLB entry maps one page of whatever size the tables gave it (4K, 16K,
 *   64K, 2M, 32M, 512M, 1G, any power of two): virtual base, size, physical
 *   base and its security, ASID, VMID, a global bit, and the security of
 *   its translation regime (the access's CT_F_NS_REGIME). An entry matches
 *   an address when the address lies in its page, the regime's security and
 *   the VMID are the access's, and the entry is global or has the access's
 *   ASID.
 *
 * Indexing
 *   entries / assoc sets (assoc = full: one set). An entry of 2^k bytes
 *   lives in set (va >> k) mod sets. A lookup probes one set per page size
 *   the structure has ever been filled with, smallest size first, and stops
 *   at the first match; it counts as one lookup (a hit or a miss) whatever
 *   the number of probes.
 *
 * Replacement
 *   The cache policies (sim/policy): an empty way first, else the policy's
 *   victim. A hit tells the policy. A fill follows a miss, so a mapping is
 *   never held twice by one structure. Emptying a structure (walk.c says
 *   when) drops every entry without events.
 *
 * Walk caches
 *   A walk-cache entry maps the virtual region one table descriptor covers
 *   to the table of the next level (its physical base), tagged like a TLB
 *   entry with the walk's ASID and VMID; its size is the region's. Same
 *   arrays, indexing and replacement as a TLB. It holds the table
 *   descriptors of the lookup levels [walkcache] levels lists (all of 0, 1
 *   and 2 by default; level 3 descriptors are pages, never tables), as the
 *   walk caches of Fast Models (WALKCACHE lines) cache some levels and not
 *   others. walk.c looks them up (at a given size, deepest listed level
 *   first) and fills them.
 *
 * Statistics
 *   Per structure and per kind of the access that caused the lookup:
 *   lookups, hits, misses; hits and fills by the size of the entry; fills
 *   and evictions.
 *
 * Events (only with an event sink installed)
 *   FILL when an entry is filled: virtual base and the security of its
 *   regime (CT_EVF_VNS, Tarmac's _NS after the virtual base), size,
 *   physical base and its security, "nG" with the ASID for an entry that is
 *   not global, the VMID when it is not 0. EVICT when a valid entry is replaced to make room
 *   (the same fields without the physical base). TLBs report TLB events,
 *   walk caches WALKCACHE events. The structure is `level` ct_sim_nlevels()
 *   + its index; time and cpu are those of the access being translated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hier_internal.h"
#include "tlb.h"

static const char *const tlb_names[CT_TLB_COUNT] = {"itlb", "dtlb", "stlb", "walkcache"};

int ct_walkcache_levels(const char *text, uint32_t *mask, char *why, size_t whyn)
{
    uint32_t m = 0;

    for (const char *p = text; *p;) {
        const char *w;
        size_t n;
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (!*p)
            break;
        for (w = p; *p && *p != ' ' && *p != '\t' && *p != ','; p++)
            ;
        n = (size_t)(p - w);
        if (n == 1 && w[0] >= '0' && w[0] <= '2') {
            m |= 1u << (w[0] - '0');
        } else if (n == 1 && w[0] == '3') {
            snprintf(why, whyn, "level 3 descriptors are pages or blocks, never tables: list "
                                "levels from 0 1 2");
            return -1;
        } else {
            snprintf(why, whyn, "\"%.*s\" is not a lookup level (0, 1 or 2)", (int)(n > 32 ? 32 : n),
                     w);
            return -1;
        }
    }
    if (!m) {
        snprintf(why, whyn, "no level listed (a walk cache holds levels from 0 1 2; remove "
                            "[walkcache] for none)");
        return -1;
    }
    *mask = m;
    return 0;
}

int ct_walkcache_levels_check(const char *text, char *why, size_t whyn)
{
    uint32_t m;
    return ct_walkcache_levels(text, &m, why, whyn);
}

int ct_tlb_init(ct_tlb *t, const ct_tlb_cfg *k, int id, int core, uint64_t seed)
{
    const ct_policy_ops *pol = ct_policy_at((size_t)k->replacement);

    memset(t, 0, sizeof *t);
    if (ct_cache_init(&t->c, k->entries, k->assoc, 1, pol, seed) != 0)
        return -1;
    t->pbase = calloc(k->entries, sizeof *t->pbase);
    t->asid = calloc(k->entries, sizeof *t->asid);
    t->vmid = calloc(k->entries, sizeof *t->vmid);
    if (!t->pbase || !t->asid || !t->vmid)
        return -1;
    t->id = id;
    t->type = id == CT_TLB_WALKCACHE ? CT_EV_WALKCACHE : CT_EV_TLB;
    t->latency = k->latency;
    t->info.name = tlb_names[id];
    t->info.core = core;
    t->info.entries = k->entries;
    t->info.assoc = k->assoc;
    t->info.sets = t->c.sets;
    t->info.latency = k->latency;
    t->info.replacement = pol->name;
    return 0;
}

void ct_tlb_free(ct_tlb *t)
{
    ct_cache_free(&t->c);
    free(t->pbase);
    free(t->asid);
    free(t->vmid);
}

/* vflag: CT_TE_VNS for a non-secure regime, else 0. */
FORCE_INLINE int matches(const ct_tlb *t, uint64_t idx, uint64_t tag, uint16_t asid,
                         uint16_t vmid, uint8_t vflag)
{
    return ct_cache_tag(&t->c, idx) == tag && t->vmid[idx] == vmid &&
           (t->c.flag[idx] & CT_TE_VNS) == vflag &&
           ((t->c.flag[idx] & CT_TE_GLOBAL) || t->asid[idx] == asid);
}

int64_t ct_tlb_find(const ct_tlb *t, uint64_t va, uint32_t size_log2, uint16_t asid,
                    uint16_t vmid, int vns)
{
    const uint64_t vpn = va >> size_log2, tag = vpn << 6 | size_log2;
    const uint64_t base = ct_cache_set(&t->c, vpn) * t->c.ways;
    const uint8_t vflag = vns ? CT_TE_VNS : 0;

    for (uint32_t w = 0; w < t->c.ways; w++)
        if (matches(t, base + w, tag, asid, vmid, vflag))
            return (int64_t)(base + w);
    return -1;
}

void ct_tlb_hit(ct_tlb *t, int64_t idx)
{
    ct_cache_touch(&t->c, (uint64_t)idx / t->c.ways, (uint64_t)idx);
    t->c.memo_idx = (uint64_t)idx;
    t->c.memo_block = 0;
}

int64_t ct_tlb_lookup(ct_tlb *t, uint64_t va, uint16_t asid, uint16_t vmid, int vns, int kind)
{
    ct_kind_stats *k = &t->st.kind[kind];
    const uint8_t vflag = vns ? CT_TE_VNS : 0;

    k->accesses++;
    /* the entry that hit last, first: most lookups repeat it */
    if (t->c.memo_block != CT_TAG_INVALID) {
        const uint64_t idx = t->c.memo_idx, tag = ct_cache_tag(&t->c, idx);
        const uint32_t lg = (uint32_t)(tag & 63);
        if (tag != CT_TAG_INVALID && matches(t, idx, (va >> lg) << 6 | lg, asid, vmid, vflag)) {
            if (!t->c.memo_ok)
                ct_cache_touch(&t->c, idx / t->c.ways, idx);
            k->hits++;
            t->st.hits_by_size[lg]++;
            return (int64_t)idx;
        }
    }
    for (uint64_t m = t->sizes; m; m &= m - 1) {
        const uint32_t lg = (uint32_t)__builtin_ctzll(m);
        const int64_t idx = ct_tlb_find(t, va, lg, asid, vmid, vns);
        if (idx >= 0) {
            ct_tlb_hit(t, idx);
            k->hits++;
            t->st.hits_by_size[lg]++;
            return idx;
        }
    }
    k->misses++;
    return -1;
}

void ct_tlb_clear(ct_tlb *t)
{
    for (uint64_t idx = 0; idx < t->c.sets * t->c.ways; idx++) {
        if (ct_cache_tag(&t->c, idx) == CT_TAG_INVALID)
            continue;
        ct_cache_tag_set(&t->c, idx, CT_TAG_INVALID);
        t->c.flag[idx] = 0;
        ct_cache_dropped(&t->c, idx / t->c.ways, idx);
    }
    t->c.memo_block = CT_TAG_INVALID;
    t->sizes = 0;
}

void ct_tlb_get(const ct_tlb *t, int64_t idx, ct_xlat *x)
{
    const uint64_t tag = ct_cache_tag(&t->c, idx);

    x->size_log2 = (uint8_t)(tag & 63);
    x->vbase = (tag >> 6) << x->size_log2;
    x->pbase = t->pbase[idx];
    x->global = (t->c.flag[idx] & CT_TE_GLOBAL) != 0;
    x->ns = (t->c.flag[idx] & CT_TE_NS) != 0;
    x->vns = (t->c.flag[idx] & CT_TE_VNS) != 0;
    x->asid = t->asid[idx];
    x->vmid = t->vmid[idx];
}

static NOINLINE void emit(struct ct_sim *s, const ct_tlb *t, int op, const ct_xlat *x)
{
    ct_event ev;

    memset(&ev, 0, sizeof ev);
    ev.type = (uint8_t)t->type;
    ev.op = (uint8_t)op;
    ev.size = 1ull << x->size_log2;
    ev.addr = x->vbase;
    if (x->vns)
        ev.flags |= CT_EVF_VNS;
    if (op == CT_EVOP_FILL) {
        ev.value = x->pbase;
        ev.flags |= CT_EVF_PADDR | (x->ns ? CT_EVF_NS : 0);
    }
    if (!x->global) {
        ev.flags |= CT_EVF_NG;
        ev.asid = x->asid;
    }
    if (x->vmid) {
        ev.flags |= CT_EVF_VMID;
        ev.vmid = x->vmid;
    }
    if (s->cur) {
        ev.time = s->cur->time;
        ev.cpu = s->cur->cpu;
    }
    s->ev_fn(s->ev_ctx, &ev, t->event_index);
}

void ct_tlb_fill(struct ct_sim *s, ct_tlb *t, const ct_xlat *x)
{
    const uint64_t vpn = x->vbase >> x->size_log2, set = ct_cache_set(&t->c, vpn);
    const uint64_t idx = ct_cache_slot(&t->c, set);

    if (ct_cache_tag(&t->c, idx) != CT_TAG_INVALID) {
        t->st.evictions++;
        if (UNLIKELY(s->ev_fn != NULL)) {
            ct_xlat old;
            ct_tlb_get(t, (int64_t)idx, &old);
            emit(s, t, CT_EVOP_EVICT, &old);
        }
    }
    ct_cache_put(&t->c, set, idx, vpn << 6 | x->size_log2);
    t->c.flag[idx] = (uint8_t)((x->global ? CT_TE_GLOBAL : 0) | (x->ns ? CT_TE_NS : 0) |
                               (x->vns ? CT_TE_VNS : 0));
    t->pbase[idx] = x->pbase;
    t->asid[idx] = x->asid;
    t->vmid[idx] = x->vmid;
    ct_cache_filled(&t->c, set, idx);
    t->c.memo_idx = idx;
    t->c.memo_block = t->c.memo_fill ? 0 : CT_TAG_INVALID;
    t->sizes |= 1ull << x->size_log2;
    t->st.fills++;
    t->st.fills_by_size[x->size_log2]++;
    if (UNLIKELY(s->ev_fn != NULL))
        emit(s, t, CT_EVOP_FILL, x);
}
