/*
 * drcachesim.c - [system] compat = drcachesim: the hierarchy counts the way
 * DynamoRIO's cache simulator (drcachesim's cache_simulator_t,
 * caching_device_t, cache_lru_t, prefetcher_t, cache_stats_t) counts, so
 * that its reports can be reproduced number for number. Chosen once, when
 * the model is created; hier.c's own rules do not apply.
 *
 * What is modelled
 *   The levels of the configuration (each core's L1I and L1D, then L2/L3,
 *   the last one being drcachesim's LL), LRU, FIFO or LFU replacement per
 *   level (drcachesim's -replace_policy; see Replacement below), one line
 *   size for
 *   all levels, non-inclusive levels, no coherence, and a next-line
 *   prefetcher (degree 1) on any level that has one. Creation refuses
 *   anything else. Write policy, allocation policy and latencies do not
 *   exist in drcachesim: there are no dirty lines, every miss allocates,
 *   nothing is timed (cycles stay 0). The model emits no cache events
 *   (cachet run --events writes none).
 *
 * Which level an access starts at
 *   Instruction fetches and the plain instruction prefetch
 *   (CT_PF_INSTR without a target level, drmemtrace's PREFETCH_INSTR) go to
 *   the core's L1I; loads, stores, atomics (as stores) and every other
 *   software prefetch, the levelled instruction prefetches included, go to
 *   its L1D. No-fetch instruction records are counted as such (accesses of
 *   kind nofetch, and instructions as hier.c counts them: a repeat is not
 *   one), never simulated.
 *
 * Requests and line crossing
 *   A request for [addr, addr + size) is split at line boundaries; each
 *   piece is looked up on its own, in address order. A request of size 0
 *   covers nothing when addr starts a line and one byte otherwise
 *   (drcachesim computes the last byte as addr + size - 1). A request that
 *   would run past the top of the address space ends there, as in hier.c.
 *   Hit: counted, the line is used (Replacement). Miss: counted; the
 *   way is chosen (the first invalid way, else the policy's victim);
 *   the piece itself (its address and size, same kind) is requested from
 *   the next level; the block is installed (a fill, Replacement);
 *   then, when the level has a prefetcher and the missing access was not a
 *   prefetch, the same piece shifted by one line is requested from this
 *   level as a hardware prefetch (a normal request: it may hit, it goes
 *   down on a miss, it triggers no prefetch itself).
 *
 * Replacement (one number per line, its stamp; the victim is the valid
 * way with the smallest stamp, the lowest way on a tie, after the first
 * invalid way, as drcachesim's caching_device_t picks an invalid way first)
 *   lru:  a hit or a fill sets the stamp to the next tick of one clock:
 *         the least recently used line goes (cache_lru_t's counters give
 *         the same order).
 *   fifo: a fill sets the stamp to the next tick; a hit changes nothing:
 *         the line filled longest ago goes (policy_fifo_t moves the way
 *         it fills to the back of its set's queue, invalid ways included).
 *   lfu:  a fill sets the count to 1, every hit (a prefetch's included)
 *         adds 1: the line used least often since its fill goes, the
 *         lowest way on a tie (policy_lfu_t: the count is reset when the
 *         way is chosen, then the access adds 1).
 *   Invalidations leave the number alone: an invalid way is filled first
 *   whatever its number, and the fill sets it. (drcachesim's flush passes
 *   a block index where the policies take a set index; with FIFO and LRU
 *   that changes nothing filled, with LFU it may clear the count of a way
 *   in another set. That slip is not modelled: a flush leaves LFU counts
 *   of valid lines as they are.)
 *
 * Counting (per level, by kind)
 *   Hits and misses of ifetch, load and store are drcachesim's "Hits" and
 *   "Misses"; software (prefetch) and hardware (hwprefetch) prefetches are
 *   its "Prefetch hits/misses". A miss on a line that never missed at this
 *   level before is also a compulsory miss (drcachesim's "Compulsory
 *   misses", prefetch misses included). Child hits of a level are the hits,
 *   of every kind, of all the levels above it. A piece that misses at the
 *   last level is one memory read.
 *
 * Coherence ([system] coherence = msi or mesi: drcachesim's -coherence,
 * its snoop_filter_t; both values count the same)
 *   The snooped caches are every core's private first levels (its L1I and
 *   L1D; a kind without one starts at a shared level, which is not
 *   snooped); the levels below them must be shared (one each), as in drcachesim's
 *   default hierarchy, where the snoop filter sits between the L1s and the
 *   LL. A line's sharers are the snooped caches that hold it; at most one
 *   holds it dirty (its line flag).
 *   A snoop by cache C of line B, with a write or not:
 *     - when another cache holds B dirty, that is one writeback (the
 *       filter's "Writebacks") and its copy is clean from then on;
 *     - a write is one of the filter's "Total writes"; every other cache
 *       holding B loses it: one "Invalidations" of the filter and one
 *       write invalidation of that level (its loaded count drops by one);
 *     - after a write C's copy is the dirty one.
 *   Snoops happen: on every miss of a snooped cache, after the request to
 *   the level below, before the line is installed (a write when the piece
 *   is a store, an atomic included; prefetches and fetches are not); and
 *   on every store hit. The line a snooped cache replaces is an eviction
 *   the filter sees: one writeback when it was dirty.
 *   The filter's totals are not reset by a warm-up (drcachesim resets the
 *   caches' statistics only); the write invalidations are.
 *   (drcachesim's flush does not tell its filter: a flushed cache stays a
 *   sharer there, and a later write counts an invalidation for it. Here a
 *   flushed line is simply gone, so counts can differ after a flush of a
 *   shared line; the corpus traces have no flushes.)
 *
 * Loaded lines (for [system] warmup_fraction, sim/window.c)
 *   A level's loaded count goes up by one when a fill takes an invalid way
 *   and down by one when coherence invalidates a line; a flush leaves it
 *   alone (drcachesim's caching_device_t::loaded_blocks_, which its flush
 *   does not touch). The fraction is that count over the level's lines.
 *
 * Flushes (cache operations)
 *   Every cache operation acts as drcachesim's flush: the lines of the range
 *   are invalidated at the first level (L1I for instruction-side
 *   operations, else L1D) and at every level below it; each level counts
 *   one access of kind cacheop per operation (drcachesim's "Flushes"). (A
 *   range larger than a level is applied by looking at each of its lines:
 *   same result, bounded time.)
 *   CT_OP_BOTH (din label 5) flushes from the L1I, then from the L1D (a
 *   level below both counts two flushes). CT_OP_ALL invalidates every
 *   level of every core.
 */
#include <stdlib.h>
#include <string.h>

#include "hier_internal.h"
#include "map.h"

/* Per level: LRU stamps (the last use of each line; drcachesim's counters
 * give the same order) and the lines that ever missed. */
/* Where each level looks first: the line that last held a block with the
 * same low bits (a hint, checked against the tag: only speed depends on it). */
#define HINTS 512

enum { DCS_LRU, DCS_FIFO, DCS_LFU };

typedef struct dcs_level {
    uint64_t hint[HINTS];           /* line index by block % HINTS */
    uint64_t *tagx;                 /* the level's tags as stored (~block, cache.h) */
    uint64_t *stamp;                /* sets * ways */
    ct_kind_stats *kind;            /* the level's counters by kind */
    uint64_t sets, set_mask;
    int set_pow2;
    uint32_t ways;
    int pol;                        /* DCS_LRU, DCS_FIFO or DCS_LFU */
    int li;                         /* its index in ct_sim's levels */
    uint64_t loaded;                /* fills of an invalid way, less coherence invalidations */
    int snooped;                    /* a first level under coherence */
    uint64_t write_inval;           /* its lines invalidated by other caches' writes */
    ct_map seen;                    /* lines that ever missed here (no values) */
} dcs_level;

struct ct_dcs {
    dcs_level *lv;
    size_t nlv;
    uint64_t clock;
    int nomem;       /* a seen set could not grow: compulsory counts are low */
    int all_lru;     /* every level is LRU and there is no coherence: the batch loop takes
                        the plain hit path */
    int *snooped;    /* the snooped levels (coherence), nsnooped of them */
    size_t nsnooped;
    ct_coherence_stats coh;
    dcs_level **route; /* per core and kind (ifetch, load, store): first level, or NULL */
    uint64_t line;   /* the line size of every level */
    uint32_t line_bits;
};

/* Insert block into the level's lines seen; 1 when it was not there. */
static int seen_add(struct ct_dcs *d, ct_map *seen, uint64_t block)
{
    int added;
    if (!ct_map_put(seen, block, &added)) {
        d->nomem = 1;
        return 0;
    }
    return added;
}

static void request(ct_sim *s, int li, uint64_t addr, uint32_t size, int kind);

/* The rules of Coherence: a snoop of block by snooped level li. */
static NOINLINE void snoop(ct_sim *s, int li, uint64_t block, int write)
{
    struct ct_dcs *d = s->dcs;
    if (write)
        d->coh.writes++;
    for (size_t i = 0; i < d->nsnooped; i++) {
        const int lj = d->snooped[i];
        ct_cache *c = &s->lv[lj].c;
        int64_t idx;
        if (lj == li || (idx = ct_cache_find(c, ct_cache_set(c, block), block)) < 0)
            continue;
        if (c->flag[idx]) {
            d->coh.writebacks++;
            c->flag[idx] = 0;
        }
        if (write) {
            ct_cache_tag_set(c, idx, CT_TAG_INVALID);
            d->coh.invalidations++;
            d->lv[lj].write_inval++;
            d->lv[lj].loaded--;
        }
    }
}

/* A store hit on line idx of snooped level D. */
static NOINLINE void snoop_store_hit(ct_sim *s, dcs_level *D, uint64_t idx)
{
    snoop(s, D->li, ~D->tagx[idx], 1);
    s->lv[D->li].c.flag[idx] = 1;
}

/* The way to fill in set: the first invalid one, else the smallest stamp
 * (the lowest way on a tie: LFU counts tie, LRU and FIFO ticks never do). */
static uint64_t victim(const ct_cache *c, const uint64_t *stamp, uint64_t set)
{
    uint64_t base = set * c->ways, best = base;
    for (uint64_t i = base; i < base + c->ways; i++) {
        if (ct_cache_tag(c, i) == CT_TAG_INVALID)
            return i;
        if (stamp[i] < stamp[best])
            best = i;
    }
    return best;
}

/* The miss of one piece at level li, whose access is counted: count the
 * miss, fill a way of `set`, ask the next level, prefetch the next line. */
static NOINLINE void piece_miss(ct_sim *s, int li, uint64_t addr, uint32_t size, int kind,
                                uint64_t set)
{
    ct_level *L = &s->lv[li];
    ct_cache *c = &L->c;
    dcs_level *D = &s->dcs->lv[li];
    uint64_t block = addr >> c->line_bits;
    ct_kind_stats *k = &L->st.kind[kind];
    uint64_t idx;

    k->misses++;
    if (seen_add(s->dcs, &D->seen, block))
        k->compulsory++;
    idx = victim(c, D->stamp, set);
    if (L->next >= 0)
        request(s, L->next, addr, size, kind);
    else
        s->tot.mem_reads++;
    if (D->snooped) {
        snoop(s, li, block, kind == CT_STORE);
        if (ct_cache_tag(c, idx) != CT_TAG_INVALID && c->flag[idx])
            s->dcs->coh.writebacks++;   /* the filter sees a dirty line go */
    }
    if (ct_cache_tag(c, idx) != CT_TAG_INVALID)
        L->st.evictions++;
    else
        D->loaded++;
    ct_cache_put(c, set, idx, block);
    c->flag[idx] = D->snooped && kind == CT_STORE;
    D->stamp[idx] = D->pol == DCS_LFU ? 1 : ++s->dcs->clock;
    D->hint[block % HINTS] = idx;
    if (L->pf && kind != CT_PREFETCH && kind != CT_HWPREFETCH) {
        L->st.prefetches_issued++;
        request(s, li, addr + L->line, size, CT_HWPREFETCH);
    }
}

/* A hit on line idx of D: its stamp as Replacement says. `any` is a
 * constant: 0 when every level is LRU. */
FORCE_INLINE uint64_t used(dcs_level *D, uint64_t idx, uint64_t clock, const int any)
{
    if (!any || D->pol == DCS_LRU)
        D->stamp[idx] = ++clock;
    else if (D->pol == DCS_LFU)
        D->stamp[idx]++;
    return clock;
}

/* One piece (inside one line) at level D: counted, then a hit (the line is
 * used) or piece_miss. Returns the clock. */
FORCE_INLINE uint64_t piece_at(ct_sim *s, dcs_level *D, uint64_t addr, uint32_t size, int kind,
                               uint32_t line_bits, uint64_t clock, const int any)
{
    const uint64_t block = addr >> line_bits;
    ct_kind_stats *k = &D->kind[kind];
    const uint64_t hinted = D->hint[block % HINTS];
    const uint64_t *t;
    uint64_t set;

    k->accesses++;
    if (D->tagx[hinted] == ~block) {
        k->hits++;
        if (any && kind == CT_STORE && D->snooped)
            snoop_store_hit(s, D, hinted);
        return used(D, hinted, clock, any);
    }
    set = D->set_pow2 ? block & D->set_mask : block % D->sets;
    t = &D->tagx[set * D->ways];
    for (uint32_t w = 0; w < D->ways; w++)
        if (t[w] == ~block) {
            const uint64_t idx = set * D->ways + w;
            k->hits++;
            D->hint[block % HINTS] = idx;
            if (any && kind == CT_STORE && D->snooped)
                snoop_store_hit(s, D, idx);
            return used(D, idx, clock, any);
        }
    s->dcs->clock = clock;
    piece_miss(s, D->li, addr, size, kind, set);
    return s->dcs->clock;
}

static void piece(ct_sim *s, int li, uint64_t addr, uint32_t size, int kind)
{
    s->dcs->clock = piece_at(s, &s->dcs->lv[li], addr, size, kind, s->dcs->line_bits,
                             s->dcs->clock, 1);
}

static void request(ct_sim *s, int li, uint64_t addr, uint32_t size, int kind)
{
    const uint32_t lb = s->lv[li].c.line_bits;
    const uint64_t last = size ? ct_last_byte(addr, size) : addr - 1;
    uint64_t tag = addr >> lb, final_tag = last >> lb;

    if (LIKELY(tag == final_tag)) {
        piece(s, li, addr, size, kind);
        return;
    }
    if (size == 0)
        return;  /* [addr, addr - 1] at a line start: nothing */
    for (;;) {
        const uint64_t pl = ct_piece_last(addr, last, lb);
        piece(s, li, addr, (uint32_t)(pl - addr + 1), kind);
        if (pl == last)
            return;
        addr = pl + 1;
    }
}

/* Invalidate the lines of [addr, addr+size) at li and every level below. */
static void flush(ct_sim *s, int li, uint64_t addr, uint64_t size)
{
    for (; li >= 0; li = s->lv[li].next) {
        ct_level *L = &s->lv[li];
        ct_cache *c = &L->c;
        uint64_t b0 = addr >> c->line_bits, b1 = ct_last_byte(addr, size) >> c->line_bits;
        L->st.kind[CT_CACHEOP].accesses++;
        if (b1 - b0 >= c->sets * c->ways) {
            /* a range larger than the cache: look at every line instead */
            for (uint64_t idx = 0; idx < c->sets * c->ways; idx++)
                if (ct_cache_tag(c, idx) != CT_TAG_INVALID && ct_cache_tag(c, idx) >= b0 &&
                    ct_cache_tag(c, idx) <= b1) {
                    ct_cache_tag_set(c, idx, CT_TAG_INVALID);
                    c->flag[idx] = 0;
                    L->st.invalidations++;
                }
            continue;
        }
        for (uint64_t b = b0; b <= b1; b++) {
            uint64_t set = ct_cache_set(c, b);
            int64_t idx = ct_cache_find(c, set, b);
            if (idx < 0)
                continue;
            ct_cache_tag_set(c, idx, CT_TAG_INVALID);
            c->flag[idx] = 0;
            L->st.invalidations++;
        }
    }
}

static void flush_all(ct_sim *s)
{
    for (size_t li = 0; li < s->nlv; li++) {
        ct_cache *c = &s->lv[li].c;
        s->lv[li].st.kind[CT_CACHEOP].accesses++;
        for (uint64_t idx = 0; idx < c->sets * c->ways; idx++)
            if (ct_cache_tag(c, idx) != CT_TAG_INVALID) {
                ct_cache_tag_set(c, idx, CT_TAG_INVALID);
                s->lv[li].st.invalidations++;
            }
    }
}

/* Any access, by the rules above. */
static void dcs_access(ct_sim *s, const ct_access *a)
{
    const int kind = a->kind;
    const uint64_t addr = (s->use_paddr && (a->flags & CT_F_PADDR)) ? a->paddr : a->vaddr;
    int li;

    s->core_tot[a->core].accesses[kind]++;
    switch (kind) {
    case CT_NOFETCH:
        s->core_tot[a->core].repeats += (a->flags & CT_F_REPEAT) != 0;
        return;
    case CT_IFETCH:
        li = s->first_i[a->core];
        break;
    case CT_PREFETCH:
        li = ((a->op & CT_PF_INSTR) && !(a->op & CT_PF_LEVEL_MASK)) ? s->first_i[a->core]
                                                                    : s->first_d[a->core];
        break;
    case CT_CACHEOP:
        if (a->op & CT_OP_ALL) {
            flush_all(s);
        } else if (a->op & CT_OP_BOTH) {
            flush(s, s->first_i[a->core], addr, ct_cacheop_bytes(a));
            flush(s, s->first_d[a->core], addr, ct_cacheop_bytes(a));
        } else
            flush(s, (a->op & CT_OP_ISIDE) ? s->first_i[a->core] : s->first_d[a->core], addr,
                  ct_cacheop_bytes(a));
        return;
    default:
        li = s->first_d[a->core];
        break;
    }
    if (li < 0)
        return;
    if (a->size > 1 && ((addr ^ (addr + a->size - 1)) >> s->lv[li].c.line_bits) != 0)
        s->tot.line_crossings++;
    request(s, li, addr, a->size,
            kind == CT_ATOMIC ? CT_STORE : kind == CT_MISC ? CT_LOAD : kind);
}

double ct_dcs_loaded_fraction(const ct_sim *s)
{
    double least = 1;
    for (size_t li = 0; s->dcs && li < s->nlv; li++)
        if (s->lv[li].next < 0) {
            const ct_cache *c = &s->lv[li].c;
            double f = (double)s->dcs->lv[li].loaded / (double)(c->sets * c->ways);
            if (f < least)
                least = f;
        }
    return least;
}

void ct_dcs_access(ct_sim *s, const ct_access *a)
{
    dcs_access(s, a);
}

static NOINLINE int dcs_refuse(const ct_sim *s, const ct_access *a, ct_error *err)
{
    if (a->flags & CT_F_NOADDR)
        return ct_error_set(err, CT_E_UNSUPPORTED,
                            "access at trace time %llu has no address (the trace masks its "
                            "addresses): it cannot be simulated", (unsigned long long)a->time);
    return ct_error_set(err, CT_E_INTERNAL, "access of kind %u on core %u of %u", a->kind,
                        a->core, s->cores);
}

/* Any access ct_dcs_run does not take inline: refused ones end the batch
 * (a negative code), the rest take dcs_access() (the clock is the
 * state's). */
static NOINLINE int dcs_slow(ct_sim *s, const ct_access *a, ct_error *err)
{
    if ((a->flags & CT_F_NOADDR) || a->core >= s->cores || a->kind >= CT_KIND_STREAM)
        return dcs_refuse(s, a, err);
    dcs_access(s, a);
    return CT_OK;
}

/*
 * A batch. Fetches, loads and stores that stay inside one line take the
 * inlined path (the first level's hinted line, then its set); everything
 * else, and every miss, takes the general code. Same rules, same numbers
 * as dcs_access() on each access.
 */
FORCE_INLINE int dcs_run(ct_sim *s, const ct_batch *b, ct_error *err, const int any)
{
    struct ct_dcs *const dc = s->dcs;
    dcs_level *const *const route = dc->route;
    const uint32_t cores = s->cores, line_bits = dc->line_bits;
    const uint16_t paddr_flag = s->use_paddr ? CT_F_PADDR : 0;
    const uint64_t lmask = dc->line - 1;
    uint64_t clock = dc->clock;
    int rc = CT_OK;

    for (const ct_access *a = b->acc, *end = b->acc + b->n; a < end; a++) {
        const unsigned kind = a->kind, core = a->core;
        const uint32_t size = a->size;
        uint64_t addr = a->vaddr;
        dcs_level *D;

        if (UNLIKELY(a->flags & (paddr_flag | CT_F_NOADDR))) {
            if (a->flags & CT_F_NOADDR)
                goto slow;
            addr = a->paddr;
        }
        /* fetches, loads and stores inside one line (size 0 inside a line
         * included; size 0 at a line start covers nothing) */
        if (UNLIKELY(core >= cores || kind > CT_STORE || (addr & lmask) + size - 1 > lmask)) {
            if (kind == CT_NOFETCH && core < cores) {
                /* counted, never simulated */
                s->core_tot[core].accesses[CT_NOFETCH]++;
                s->core_tot[core].repeats += (a->flags & CT_F_REPEAT) != 0;
                continue;
            }
            goto slow;
        }
        D = route[core * 3 + kind];
        if (UNLIKELY(!D))
            goto slow;
        s->core_tot[core].accesses[kind]++;
        clock = piece_at(s, D, addr, size, (int)kind, line_bits, clock, any);
        continue;
    slow:
        dc->clock = clock;
        rc = dcs_slow(s, a, err);
        clock = dc->clock;
        if (rc != CT_OK)
            break;
    }
    dc->clock = clock;
    return rc;
}

static NOINLINE int dcs_run_any(ct_sim *s, const ct_batch *b, ct_error *err)
{
    return dcs_run(s, b, err, 1);
}

int ct_dcs_run(ct_sim *s, const ct_batch *b, ct_error *err)
{
    if (UNLIKELY(!s->dcs->all_lru))
        return dcs_run_any(s, b, err);
    return dcs_run(s, b, err, 0);
}

int ct_dcs_attach(ct_sim *s, const struct ct_config *cfg, ct_error *err)
{
    const char *where = cfg->path[0] ? cfg->path : "configuration";
    struct ct_dcs *d;
    uint32_t line = 0;

    if (cfg->flush_every)
        return ct_error_set(err, CT_E_CONFIG,
                            "%s: [system] flush_every: compat = drcachesim has no periodic "
                            "flush", where);
    for (size_t li = 0; li < s->nlv; li++) {
        const ct_level *L = &s->lv[li];
        const ct_cache_cfg *k = &cfg->cache[L->lv];
        if (L->sb_valid)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [%s] subblock: compat = drcachesim has no sub-blocks",
                                where, L->name);
        if (L->c.pol != &ct_policy_lru && L->c.pol != &ct_policy_fifo &&
            L->c.pol != &ct_policy_lfu)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [%s] replacement: compat = drcachesim models lru, fifo "
                                "and lfu, not %s", where, L->name, L->c.pol->name);
        if (L->inclusion != CT_INCL_NONINCLUSIVE)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [%s] inclusion: compat = drcachesim models "
                                "non-inclusive levels only", where, L->name);
        if (L->pf && (L->pf != &ct_prefetch_nextline || k->prefetch_degree != 1))
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [%s] prefetcher: compat = drcachesim models nextline with "
                                "prefetch_degree 1 only", where, L->name);
        if (line && L->line != line)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [%s] line: compat = drcachesim needs one line size for "
                                "every level (%u, not %u)", where, L->name, line, L->line);
        line = L->line;
    }
    d = calloc(1, sizeof *d);
    if (!d || !(d->lv = calloc(s->nlv ? s->nlv : 1, sizeof *d->lv))) {
        free(d);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    d->nlv = s->nlv;
    d->all_lru = cfg->coherence == CT_COHERENCE_NONE;
    d->route = malloc((size_t)s->cores * 3 * sizeof *d->route);
    if (!d->route) {
        ct_dcs_free(d);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    for (uint32_t c = 0; c < s->cores; c++) {
        d->route[c * 3 + CT_IFETCH] = s->first_i[c] >= 0 ? &d->lv[s->first_i[c]] : NULL;
        d->route[c * 3 + CT_LOAD] = s->first_d[c] >= 0 ? &d->lv[s->first_d[c]] : NULL;
        d->route[c * 3 + CT_STORE] = d->route[c * 3 + CT_LOAD];
    }
    for (size_t li = 0; li < s->nlv; li++) {
        const ct_cache *c = &s->lv[li].c;
        d->lv[li].stamp = calloc(c->sets * c->ways, sizeof *d->lv[li].stamp);
        d->lv[li].tagx = c->tagx;
        d->lv[li].kind = s->lv[li].st.kind;
        d->lv[li].sets = c->sets;
        d->lv[li].set_mask = c->set_mask;
        d->lv[li].set_pow2 = c->set_pow2;
        d->lv[li].ways = c->ways;
        d->lv[li].li = (int)li;
        d->lv[li].pol = c->pol == &ct_policy_fifo  ? DCS_FIFO
                        : c->pol == &ct_policy_lfu ? DCS_LFU
                                                   : DCS_LRU;
        d->all_lru &= d->lv[li].pol == DCS_LRU;
        d->line = s->lv[li].line;
        d->line_bits = c->line_bits;
        if (!d->lv[li].stamp || ct_map_reserve(&d->lv[li].seen, 2048) != 0) {
            ct_dcs_free(d);
            return ct_error_set(err, CT_E_NOMEM, "out of memory");
        }
    }
    if (cfg->coherence != CT_COHERENCE_NONE) {
        d->snooped = calloc(s->nlv ? s->nlv : 1, sizeof *d->snooped);
        if (!d->snooped) {
            ct_dcs_free(d);
            return ct_error_set(err, CT_E_NOMEM, "out of memory");
        }
        for (size_t li = 0; li < s->nlv; li++) {
            const ct_level *L = &s->lv[li];
            int first = 0;
            for (uint32_t c = 0; c < s->cores; c++)
                first |= s->first_i[c] == (int)li || s->first_d[c] == (int)li;
            if (L->info.core >= 0 && (!first || L->next < 0)) {
                ct_dcs_free(d);
                return ct_error_set(err, CT_E_CONFIG,
                                    "%s: [system] coherence: compat = drcachesim models "
                                    "coherence between private first levels above shared "
                                    "levels only ([%s] is %s)", where, L->name,
                                    first ? "a private level with nothing below"
                                          : "a private level below the first");
            }
            if (first && L->info.core >= 0) {
                d->lv[li].snooped = 1;
                d->snooped[d->nsnooped++] = (int)li;
            }
        }
    }
    s->dcs = d;
    return CT_OK;
}

const ct_coherence_stats *ct_dcs_coherence(const ct_sim *s)
{
    return s->dcs && s->dcs->snooped ? &s->dcs->coh : NULL;
}

int ct_dcs_level_write_invalidations(const ct_sim *s, size_t li, uint64_t *n)
{
    if (!s->dcs || li >= s->nlv || !s->dcs->lv[li].snooped)
        return 0;
    *n = s->dcs->lv[li].write_inval;
    return 1;
}

void ct_dcs_reset_stats(ct_sim *s)
{
    for (size_t li = 0; s->dcs && li < s->nlv; li++)
        s->dcs->lv[li].write_inval = 0;
}

void ct_dcs_free(struct ct_dcs *d)
{
    if (!d)
        return;
    for (size_t li = 0; li < d->nlv; li++) {
        free(d->lv[li].stamp);
        ct_map_free(&d->lv[li].seen);
    }
    free(d->lv);
    free(d->snooped);
    free(d->route);
    free(d);
}
