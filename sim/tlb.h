/*
 * tlb.h - address translation (internal): TLBs and walk caches (rules at
 * the top of tlb.c), the translation step, the walker and its page tables
 * (rules at the top of walk.c). hier.c calls in only when a configuration
 * has a TLB section.
 */
#ifndef CT_TLB_H
#define CT_TLB_H

#include <stdint.h>

#include "cache.h"
#include "cachet/sim.h"
#include "config_internal.h"

struct ct_sim;

/* One mapping: a page in a TLB, a table in a walk cache. */
typedef struct ct_xlat {
    uint64_t vbase;           /* virtual base, aligned to the size */
    uint64_t pbase;           /* physical base (walk cache: the next table) */
    uint8_t size_log2;        /* bytes mapped = 2^size_log2 */
    uint8_t global;           /* matches every ASID */
    uint8_t ns;               /* the physical side is non-secure */
    uint8_t vns;              /* the translation regime is non-secure */
    uint16_t asid, vmid;
} ct_xlat;

enum ct_tlb_entry_flag { CT_TE_GLOBAL = 0x01, CT_TE_NS = 0x02, CT_TE_VNS = 0x04 };

/* One TLB or walk cache: a ct_cache for tags and replacement, and the
 * entries' other fields beside it. */
typedef struct ct_tlb {
    ct_cache c;               /* tag = (va >> size_log2) << 6 | size_log2;
                                 c.memo_idx: the entry hit or filled last,
                                 valid unless c.memo_block == CT_TAG_INVALID */
    uint64_t *pbase;
    uint16_t *asid, *vmid;
    uint64_t sizes;           /* bit k set: an entry of 2^k bytes was filled */
    int type;                 /* CT_EV_TLB or CT_EV_WALKCACHE (its events) */
    int id;                   /* enum ct_tlb_id */
    size_t event_index;       /* `level` of its events: nlevels + position */
    uint32_t latency;
    ct_tlb_stats st;
    ct_tlb_info info;
} ct_tlb;

/* tlb.c */
int ct_tlb_init(ct_tlb *t, const ct_tlb_cfg *k, int id, int core, uint64_t seed);
void ct_tlb_free(ct_tlb *t);
/* The entry translating va for (asid, vmid) in a regime of security vns
 * (1: non-secure), or -1; counts one lookup of `kind` and tells the policy
 * about a hit. */
int64_t ct_tlb_lookup(ct_tlb *t, uint64_t va, uint16_t asid, uint16_t vmid, int vns, int kind);
/* The entry of exactly 2^size_log2 bytes covering va, or -1; counts
 * nothing, tells the policy nothing (walk-cache probes). */
int64_t ct_tlb_find(const ct_tlb *t, uint64_t va, uint32_t size_log2, uint16_t asid,
                    uint16_t vmid, int vns);
void ct_tlb_hit(ct_tlb *t, int64_t idx);
void ct_tlb_get(const ct_tlb *t, int64_t idx, ct_xlat *x);
/* Drop every entry (no events, no statistics). */
void ct_tlb_clear(ct_tlb *t);
/* Fill a mapping the structure does not hold (evicting as needed). */
void ct_tlb_fill(struct ct_sim *s, ct_tlb *t, const ct_xlat *x);

/* [walkcache] levels: the lookup levels listed in text (0, 1, 2, separated
 * by blanks or commas) as bits of *mask (bit L: level L). 0, or -1 with
 * the reason in why. The _check form is the schema's check of the key. */
int ct_walkcache_levels(const char *text, uint32_t *mask, char *why, size_t whyn);
int ct_walkcache_levels_check(const char *text, char *why, size_t whyn);

/* walk.c: the translation state of a model (NULL when it has no TLB). */
typedef struct ct_xlate ct_xlate;

/* Build it; port[core] is the level index descriptor reads start at (-1:
 * memory). Returns CT_OK or CT_E_NOMEM. */
int ct_xlate_create(struct ct_sim *s, const struct ct_config *cfg, const int *port,
                    ct_error *err);
void ct_xlate_free(ct_xlate *x);
void ct_xlate_reset_stats(ct_xlate *x);

/* Translate va of access a: the mapping of its page in *m, the cycles the
 * translation costs returned (rules "Translation step" and "Timing" in
 * walk.c). */
uint64_t ct_translate(struct ct_sim *s, const ct_access *a, uint64_t va, ct_xlat *m);

/* Side records (ct_sim_marker / ct_sim_trace_event). */
void ct_xlate_marker(ct_xlate *x, const ct_marker *mk);
void ct_xlate_event(ct_xlate *x, const ct_event *ev);

size_t ct_xlate_ntlbs(const ct_xlate *x);
ct_tlb *ct_xlate_tlb(ct_xlate *x, size_t i);
const ct_walk_stats *ct_xlate_walk_stats(const ct_xlate *x, uint32_t core);

#endif
