/*
 * coherence.c - coherence between the cores' private caches in the core
 * model: [system] coherence = msi | mesi (none, the default: nothing of
 * this exists). Under compat = drcachesim the same key selects
 * drcachesim's counting instead (sim/drcachesim.c); nothing here applies
 * then.
 *
 * Domains
 *   A core's private levels (its L1I and L1D, and its L2 and L3 unless they
 *   are shared) form its domain. The first shared level below them on the
 *   core's path (memory when there is none) is the core's point of
 *   coherence: data moves between domains through it (there are no
 *   cache-to-cache transfers). The protocol is an exact snoop: the holders
 *   of a line are found by looking the line up in every other domain's
 *   private levels (an exact sharer mask, computed rather than stored).
 *
 * States (of a line in a domain, from the copies its levels hold)
 *   I  no private level of the core holds the line;
 *   M  a copy is dirty;
 *   E  MESI only: no copy is dirty and the copies are owned (CT_LF_OWN: the
 *      domain was the only holder when it got the line, or wrote it);
 *   S  otherwise (under MSI, every line held clean).
 *   A line M or E in one domain is held by no other. When a domain's dirty
 *   data leaves it (an eviction's write-back, a clean) while a copy stays,
 *   the line is E under MESI, S under MSI. Copies a domain takes from its
 *   own levels take the domain's state.
 *
 * Rules, for each line piece of a trace access as it enters the core's
 * first level (ct_coh_serve), before the level serves it:
 *   Read (ifetch, load, misc, software prefetch, a walk's descriptor read),
 *     line I in the reader's domain: every other domain holding the line M
 *     writes it back (a coherence write-back: one write of the line, kind
 *     "writeback", to that domain's point of coherence, or a memory write)
 *     and every one holding it M or E makes it S (a downgrade). Then the
 *     access is served as usual; under MESI the line fills E when no other
 *     domain holds it, S otherwise; under MSI, S. An instruction fetch (or
 *     a hardware prefetch into an L1I) fills S under both: it asks for a
 *     shared copy, as processors fetch code.
 *     Line S, E or M in the reader's domain: nothing.
 *   Write (store, atomic), line M or E in the writer's domain: nothing (E
 *     becomes M silently, by the write). Line S: an upgrade, then as for I.
 *     Line I: every other domain holding the line writes it back when M (a
 *     coherence write-back) and drops every copy (an invalidation). Then
 *     the write is served as usual: the line is M in the writer's domain
 *     after it, or stays I there when no private level allocates it.
 *   Zero and allocate cache operations at a private first level: a write
 *     of each line they fill (no upgrade latency: a cache operation costs
 *     the latency of the first level, rule "Timing" in hier.c).
 *   Hardware prefetch into a private level: a read of the prefetched line
 *     by the level's core, before its fetch.
 *
 * Counting (per level, ct_level_stats coh_*): each event counts once, at
 * the uppermost private level of the domain it happens to that holds the
 * line, in the order L1D, L1I, L2, L3 (a coherence write-back: the
 * uppermost holding it dirty): invalidations (received), downgrades,
 * coherence write-backs, upgrades (at the writer). A coherence write-back
 * is not one of the level's `writebacks` (those go to the next level) nor
 * in its bytes_to_below.
 *
 * Timing
 *   An upgrade costs the latency of the writer's point of coherence
 *   ([memory] latency when none), added to the write's. Invalidations,
 *   downgrades and coherence write-backs cost nothing (write-backs are
 *   buffered, as every write-back is). A read of a line Modified elsewhere
 *   costs what its miss costs: the data comes through the point of
 *   coherence after the write-back.
 *
 * Events (with an event sink; rule "Events" in hier.c), on the copies a
 *   rule changes: INVAL for each copy dropped; CLEAN for each dirty copy
 *   whose data a coherence write-back took, then SHARED for each copy of a
 *   domain that was M or E; UNIQUE for each copy of the writer's domain at
 *   an upgrade, and for each copy of a line filled E.
 *
 * Interplay, and what creation refuses (CT_E_CONFIG)
 *   - Private levels must be write-back, not exclusive, without sub-blocks
 *     or a DineroIV fetch policy, and of one line size (refused otherwise).
 *   - Inclusive levels back-invalidate as usual (copies leave a domain
 *     without a protocol event); an exclusive shared level takes the
 *     coherence write-backs as any write from above.
 *   - Cache operations other than zero and allocate act on the issuing
 *     core's path only, as without coherence (no broadcast).
 *   - Uncached accesses bypass every cache and take no part.
 *   - miss_classes (a coherence miss is none of the three Cs),
 *     replacement = opt (its next uses do not see other cores' writes) and
 *     timing = overlap (its misses in flight do not see invalidations) are
 *     refused. The one-pass sweep refuses coherence: such sweeps run point
 *     by point.
 *   - With one core there is nothing to keep coherent: the counts stay 0.
 *   - The batch loop is run_any (hier.c): coherence never takes the LRU
 *     fast path, and coherence = none never reaches this file.
 */
#include <stdlib.h>
#include <string.h>

#include "hier_internal.h"

#define DOM_MAX 4  /* private levels of a core: L1D, L1I, L2, L3 */

enum { ST_I, ST_S, ST_E, ST_M };

struct ct_coh {
    int proto;                  /* CT_COHERENCE_MSI or CT_COHERENCE_MESI */
    uint32_t cores;
    uint32_t line_bits;         /* of every private level */
    uint32_t *npriv;            /* per core: its private levels */
    int (*priv)[DOM_MAX];       /* per core: their indices, L1D, L1I, L2, L3 */
    int *point;                 /* per core: its point of coherence, -1: memory */
    uint32_t *point_lat;        /* per core: the point's latency */
};

/* A line in one domain: the copy at each private level (-1: none), the
 * state, the uppermost level holding it and the uppermost holding it dirty
 * (indices into priv, -1: none). */
typedef struct dom {
    int64_t idx[DOM_MAX];
    int state;
    int top, top_dirty;
} dom;

static void look(const ct_sim *s, const struct ct_coh *h, uint32_t core, uint64_t block,
                 dom *d)
{
    int own = 0;

    d->top = d->top_dirty = -1;
    for (uint32_t j = 0; j < h->npriv[core]; j++) {
        const ct_cache *c = &s->lv[h->priv[core][j]].c;
        const int64_t idx = ct_cache_find(c, ct_cache_set(c, block), block);
        d->idx[j] = idx;
        if (idx < 0)
            continue;
        if (d->top < 0)
            d->top = (int)j;
        if ((c->flag[idx] & CT_LF_DIRTY) && d->top_dirty < 0)
            d->top_dirty = (int)j;
        own |= (c->flag[idx] & CT_LF_OWN) != 0;
    }
    d->state = d->top < 0          ? ST_I
               : d->top_dirty >= 0 ? ST_M
               : own && h->proto == CT_COHERENCE_MESI ? ST_E
                                                      : ST_S;
}

/* Write the line back to core's point of coherence with the security of
 * the copy it came from (ns). */
static void write_back(ct_sim *s, const struct ct_coh *h, uint32_t core, uint64_t block, int ns)
{
    const int outer_ns = s->ns;
    s->ns = ns;
    ct_hier_write_back(s, h->point[core], block << h->line_bits, 1u << h->line_bits);
    s->ns = outer_ns;
}

/* Another core's read of a line that domain `core` holds M or E: the
 * copies become S, dirty data is written back (rule "Read"). */
static void downgrade(ct_sim *s, const struct ct_coh *h, uint32_t core, uint64_t block,
                      const dom *d)
{
    int ns = 0;

    s->lv[h->priv[core][d->top]].st.coh_downgrades++;
    for (uint32_t j = 0; j < h->npriv[core]; j++) {
        const int li = h->priv[core][j];
        ct_cache *c = &s->lv[li].c;
        const int64_t idx = d->idx[j];
        if (idx < 0)
            continue;
        if (c->flag[idx] & CT_LF_DIRTY) {
            if ((int)j == d->top_dirty)
                ns = (c->flag[idx] & CT_LF_NS) != 0;
            ct_hier_coh_event(s, (size_t)li, CT_EVOP_CLEAN, (uint64_t)idx);
        }
        c->flag[idx] &= (uint8_t)~(CT_LF_DIRTY | CT_LF_OWN);
        ct_hier_coh_event(s, (size_t)li, CT_EVOP_SHARED, (uint64_t)idx);
    }
    if (d->top_dirty >= 0) {
        s->lv[h->priv[core][d->top_dirty]].st.coh_writebacks++;
        write_back(s, h, core, block, ns);  /* last: it may evict below */
    }
}

/* Another core's write: domain `core` drops its copies, dirty data written
 * back first (rule "Write"). */
static void invalidate(ct_sim *s, const struct ct_coh *h, uint32_t core, uint64_t block,
                       const dom *d)
{
    int ns = 0;

    s->lv[h->priv[core][d->top]].st.coh_invalidations++;
    for (uint32_t j = 0; j < h->npriv[core]; j++) {
        const int li = h->priv[core][j];
        if (d->idx[j] < 0)
            continue;
        if ((int)j == d->top_dirty)
            ns = (s->lv[li].c.flag[d->idx[j]] & CT_LF_NS) != 0;
        ct_hier_drop_line(s, (size_t)li, (uint64_t)d->idx[j]);
    }
    if (d->top_dirty >= 0) {
        s->lv[h->priv[core][d->top_dirty]].st.coh_writebacks++;
        write_back(s, h, core, block, ns);
    }
}

/* A read of a line the reader's domain does not hold: the other domains
 * are snooped. Returns 2 when none holds it and the protocol is MESI (the
 * line fills E), else 0. */
static int snoop_read(ct_sim *s, const struct ct_coh *h, uint32_t core, uint64_t block)
{
    int held = 0;

    for (uint32_t o = 0; o < h->cores; o++) {
        dom d;
        if (o == core)
            continue;
        look(s, h, o, block, &d);
        if (d.state == ST_I)
            continue;
        held = 1;
        if (d.state == ST_M || d.state == ST_E)
            downgrade(s, h, o, block, &d);
    }
    return !held && h->proto == CT_COHERENCE_MESI ? 2 : 0;
}

/* The rules before a piece of a trace access of `core` is served. Returns
 * what the domain is to own after it: 0 nothing (S or I), 1 the line (E or
 * M), 2 the line, filled E; adds an upgrade's latency to *extra. */
static int before(ct_sim *s, const struct ct_coh *h, uint32_t core, uint64_t block, int write,
                  uint32_t *extra)
{
    dom d;

    look(s, h, core, block, &d);
    if (d.state == ST_M || d.state == ST_E)
        return 1;
    if (!write)
        return d.state == ST_S ? 0 : snoop_read(s, h, core, block);
    if (d.state == ST_S) {
        s->lv[h->priv[core][d.top]].st.coh_upgrades++;
        *extra += h->point_lat[core];
        for (uint32_t j = 0; j < h->npriv[core]; j++) {
            const int li = h->priv[core][j];
            if (d.idx[j] < 0)
                continue;
            if (h->proto == CT_COHERENCE_MESI)
                s->lv[li].c.flag[d.idx[j]] |= CT_LF_OWN;
            ct_hier_coh_event(s, (size_t)li, CT_EVOP_UNIQUE, (uint64_t)d.idx[j]);
        }
    }
    for (uint32_t o = 0; o < h->cores; o++) {
        dom od;
        if (o == core)
            continue;
        look(s, h, o, block, &od);
        if (od.state != ST_I)
            invalidate(s, h, o, block, &od);
    }
    return 1;
}

/* After the piece: under MESI the copies of a line the domain owns are
 * marked owned (a copy of a line filled E reported UNIQUE). */
static void after(ct_sim *s, const struct ct_coh *h, uint32_t core, uint64_t block, int own)
{
    dom d;

    if (!own || h->proto != CT_COHERENCE_MESI)
        return;
    look(s, h, core, block, &d);
    for (uint32_t j = 0; j < h->npriv[core]; j++) {
        const int li = h->priv[core][j];
        ct_cache *c = &s->lv[li].c;
        if (d.idx[j] < 0 || (c->flag[d.idx[j]] & CT_LF_OWN))
            continue;
        c->flag[d.idx[j]] |= CT_LF_OWN;
        if (own == 2)
            ct_hier_coh_event(s, (size_t)li, CT_EVOP_UNIQUE, (uint64_t)d.idx[j]);
    }
}

uint32_t ct_coh_serve(ct_sim *s, int li, uint64_t addr, uint32_t bytes, int kind, int write)
{
    ct_level *L = &s->lv[li];
    const struct ct_coh *h = s->coh;
    const uint32_t core = (uint32_t)L->info.core;
    const uint64_t block = addr >> h->line_bits;
    uint32_t lat, extra = 0;
    int own;

    /* a request from a level above (a fetch, a write-back), a hardware
     * prefetch: not a piece of a trace access */
    if (s->coh_busy || kind == CT_WRITEBACK || kind == CT_HWPREFETCH)
        return L->serve_inner(s, li, addr, bytes, kind, write);
    s->coh_busy = 1;
    {
        /* the line in the level itself: a read has nothing to do, nor a
         * write of a line M (dirty here) or E (owned here: the copies of
         * an owned line are all owned) */
        const ct_cache *c = &L->c;
        const int64_t idx = block == c->memo_block && ct_cache_tag(c, c->memo_idx) == block
                                ? (int64_t)c->memo_idx
                                : ct_cache_find(c, ct_cache_set(c, block), block);
        const uint8_t mine =
            h->proto == CT_COHERENCE_MESI ? CT_LF_DIRTY | CT_LF_OWN : CT_LF_DIRTY;
        if (idx >= 0 && (!write || (c->flag[idx] & mine))) {
            lat = L->serve_inner(s, li, addr, bytes, kind, write);
            s->coh_busy = 0;
            return lat;
        }
    }
    own = before(s, h, core, block, write, &extra);
    if (own == 2 && kind == CT_IFETCH)
        own = 0;  /* instruction fetches ask for a shared copy */
    lat = L->serve_inner(s, li, addr, bytes, kind, write);
    after(s, h, core, block, own);
    s->coh_busy = 0;
    return lat + extra;
}

int ct_coh_prefetch(ct_sim *s, int li, uint64_t block)
{
    const struct ct_coh *h = s->coh;
    const uint32_t core = (uint32_t)s->lv[li].info.core;
    dom d;

    look(s, h, core, block, &d);
    if (d.state != ST_I)
        return d.state == ST_M || d.state == ST_E;
    return snoop_read(s, h, core, block) && s->lv[li].lv != CT_LV_L1I ? 2 : 0;
}

void ct_coh_filled(ct_sim *s, int li, uint64_t block, int own)
{
    after(s, s->coh, (uint32_t)s->lv[li].info.core, block, own);
}

void ct_coh_claim(ct_sim *s, int li, uint64_t block)
{
    uint32_t extra = 0;
    (void)before(s, s->coh, (uint32_t)s->lv[li].info.core, block, 1, &extra);
}

int ct_coh_entry(const ct_sim *s, size_t li)
{
    const int core = s->lv[li].info.core;
    return s->coh && core >= 0 &&
           ((int)li == s->first_i[core] || (int)li == s->first_d[core]);
}

int ct_coh_protocol(const struct ct_coh *h)
{
    return !h ? 0 : h->proto == CT_COHERENCE_MSI ? 1 : 2;
}

void ct_coh_free(struct ct_coh *h)
{
    if (!h)
        return;
    free(h->npriv);
    free(h->priv);
    free(h->point);
    free(h->point_lat);
    free(h);
}

int ct_coh_attach(ct_sim *s, const ct_config *cfg, ct_error *err)
{
    static const int order[DOM_MAX] = {CT_LV_L1D, CT_LV_L1I, CT_LV_L2, CT_LV_L3};
    const char *path = cfg->path[0] ? cfg->path : "configuration";
    const ct_level *first = NULL;
    struct ct_coh *h;

    if (cfg->coherence == CT_COHERENCE_NONE)
        return CT_OK;
    if (cfg->miss_classes)
        return ct_error_set(err, CT_E_CONFIG,
                            "%s: [system] coherence: not with miss_classes = yes (a miss "
                            "after another core's write is none of the three Cs)", path);
    if (cfg->timing == CT_TIMING_OVERLAP)
        return ct_error_set(err, CT_E_CONFIG,
                            "%s: [system] coherence: not with timing = overlap (its misses in "
                            "flight do not see other cores' invalidations)", path);
    if (s->nopt)
        return ct_error_set(err, CT_E_CONFIG,
                            "%s: [system] coherence: not with replacement = opt (its next uses "
                            "do not see the lines other cores' writes take)", path);
    for (size_t li = 0; li < s->nlv; li++) {
        const ct_level *L = &s->lv[li];
        const char *why = NULL;
        if (L->info.core < 0)
            continue;
        if (!L->write_back)
            why = "write_back = no: coherence keeps write-back private levels only";
        else if (L->inclusion == CT_INCL_EXCLUSIVE)
            why = "inclusion = exclusive: a private level cannot be exclusive under coherence";
        else if (L->sb_valid)
            why = "sub-blocks or a DineroIV fetch policy: not under coherence";
        if (why)
            return ct_error_set(err, CT_E_CONFIG, "%s: [%s] %s ([system] coherence = %s)", path,
                                L->name, why,
                                cfg->coherence == CT_COHERENCE_MSI ? "msi" : "mesi");
        if (!first) {
            first = L;
        } else if (L->line != first->line) {
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [system] coherence: the private levels need one line "
                                "size; [%s] has %u bytes, [%s] %u",
                                path, first->name, first->line, L->name, L->line);
        }
    }
    h = calloc(1, sizeof *h);
    if (!h)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    s->coh = h;
    h->proto = cfg->coherence;
    h->cores = s->cores;
    h->line_bits = first ? first->c.line_bits : 6;
    h->npriv = calloc(s->cores, sizeof *h->npriv);
    h->priv = calloc(s->cores, sizeof *h->priv);
    h->point = calloc(s->cores, sizeof *h->point);
    h->point_lat = calloc(s->cores, sizeof *h->point_lat);
    if (!h->npriv || !h->priv || !h->point || !h->point_lat)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    for (uint32_t core = 0; core < s->cores; core++) {
        int p = s->first_d[core] >= 0 ? s->first_d[core] : s->first_i[core];
        for (int k = 0; k < DOM_MAX; k++)
            for (size_t li = 0; li < s->nlv; li++)
                if (s->lv[li].info.core == (int)core && s->lv[li].lv == order[k])
                    h->priv[core][h->npriv[core]++] = (int)li;
        while (p >= 0 && s->lv[p].info.core >= 0)
            p = s->lv[p].next;
        h->point[core] = p;
        h->point_lat[core] = p >= 0 ? s->lv[p].latency : s->mem_latency;
    }
    return CT_OK;
}
