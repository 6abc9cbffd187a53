/*
 * drcachesim.c - [system] compat = drcachesim: the hierarchy counts the way
 * DynamoRIO's cache simulator (drcachesim's cache_simulator_t,
 * caching_device_t, cache_lru_t, prefetcher_t, cache_stats_t) counts, so
 * that its reports can be reproduced number for number. Chosen once, when
 * the model is created; hier.c's own rules do not apply.
 *
 * What is modelled
 *   The levels of the configuration (each core's L1I and L1D, then L2/L3,
 *   the last one being drcachesim's LL), LRU replacement (kept here as a
 *   last-use stamp per line: the order drcachesim's per-set counters give,
 *   invalid ways being filled first, lowest way first), one line size for
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
 *   kind nofetch, and instructions as hier.c counts them), never simulated.
 *
 * Requests and line crossing
 *   A request for [addr, addr + size) is split at line boundaries; each
 *   piece is looked up on its own, in address order. A request of size 0
 *   covers nothing when addr starts a line and one byte otherwise
 *   (drcachesim computes the last byte as addr + size - 1). A request that
 *   would run past the top of the address space ends there, as in hier.c.
 *   Hit: counted, the line becomes most recently used. Miss: counted; the
 *   way is chosen (the first invalid way, else the least recently used);
 *   the piece itself (its address and size, same kind) is requested from
 *   the next level; the block is installed and becomes most recently used;
 *   then, when the level has a prefetcher and the missing access was not a
 *   prefetch, the same piece shifted by one line is requested from this
 *   level as a hardware prefetch (a normal request: it may hit, it goes
 *   down on a miss, it triggers no prefetch itself).
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
 * Flushes (cache operations)
 *   Every cache operation acts as drcachesim's flush: the lines of the range
 *   are invalidated at the first level (L1I for instruction-side
 *   operations, else L1D) and at every level below it; each level counts
 *   one access of kind cacheop per operation (drcachesim's "Flushes"). (A
 *   range larger than a level is applied by looking at each of its lines:
 *   same result, bounded time.)
 *   CT_OP_ALL invalidates every level of every core.
 */
#include <stdlib.h>
#include <string.h>

#include "hier_internal.h"

/* Lines that ever missed at one level: a growable open-addressing set. It
 * grows with the footprint of the trace, not with its length. */
typedef struct seen_set {
    uint64_t *key;   /* block + 1, 0 = empty */
    uint64_t mask, used;
} seen_set;

/* Per level: LRU stamps (the last use of each line; drcachesim's counters
 * give the same order) and the lines that ever missed. */
typedef struct dcs_level {
    uint64_t *stamp;   /* sets * ways */
    seen_set seen;
    uint64_t memo_block, memo_idx;  /* the line touched last */
} dcs_level;

struct ct_dcs {
    dcs_level *lv;
    size_t nlv;
    uint64_t clock;
    int nomem;       /* a seen set could not grow: compulsory counts are low */
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    return x ^ (x >> 33);
}

static int seen_grow(seen_set *s)
{
    uint64_t slots = s->key ? (s->mask + 1) * 2 : 4096;
    uint64_t *key = calloc(slots, sizeof *key);
    if (!key)
        return -1;
    for (uint64_t i = 0; s->key && i <= s->mask; i++)
        if (s->key[i]) {
            uint64_t j = mix(s->key[i]) & (slots - 1);
            while (key[j])
                j = (j + 1) & (slots - 1);
            key[j] = s->key[i];
        }
    free(s->key);
    s->key = key;
    s->mask = slots - 1;
    return 0;
}

/* Insert block; 1 when it was not there. */
static int seen_add(struct ct_dcs *d, seen_set *s, uint64_t block)
{
    uint64_t k = block + 1, i;
    if ((s->used + 1) * 2 > s->mask + 1 && seen_grow(s) != 0) {
        d->nomem = 1;
        return 0;
    }
    for (i = mix(k) & s->mask; s->key[i]; i = (i + 1) & s->mask)
        if (s->key[i] == k)
            return 0;
    s->key[i] = k;
    s->used++;
    return 1;
}

static void request(ct_sim *s, int li, uint64_t addr, uint32_t size, int kind);

/* The way to fill in set: the first invalid one, else the least recently
 * used (the lowest way on a tie, which cannot happen once all are used). */
static uint64_t victim(const ct_cache *c, const uint64_t *stamp, uint64_t set)
{
    uint64_t base = set * c->ways, best = base;
    for (uint64_t i = base; i < base + c->ways; i++) {
        if (c->tag[i] == CT_TAG_INVALID)
            return i;
        if (stamp[i] < stamp[best])
            best = i;
    }
    return best;
}

/* One piece (inside one line) at level li. */
static void piece(ct_sim *s, int li, uint64_t addr, uint32_t size, int kind)
{
    ct_level *L = &s->lv[li];
    ct_cache *c = &L->c;
    dcs_level *D = &s->dcs->lv[li];
    uint64_t block = addr >> c->line_bits;
    ct_kind_stats *k = &L->st.kind[kind];
    uint64_t set, idx;
    int64_t found;

    k->accesses++;
    if (block == D->memo_block && c->tag[D->memo_idx] == block) {
        k->hits++;
        D->stamp[D->memo_idx] = ++s->dcs->clock;
        return;
    }
    set = ct_cache_set(c, block);
    found = ct_cache_find(c, set, block);
    if (found >= 0) {
        k->hits++;
        D->stamp[found] = ++s->dcs->clock;
        D->memo_block = block;
        D->memo_idx = (uint64_t)found;
        return;
    }
    k->misses++;
    if (seen_add(s->dcs, &D->seen, block))
        k->compulsory++;
    idx = victim(c, D->stamp, set);
    if (L->next >= 0)
        request(s, L->next, addr, size, kind);
    else
        s->tot.mem_reads++;
    if (c->tag[idx] != CT_TAG_INVALID)
        L->st.evictions++;
    ct_cache_put(c, set, idx, block);
    c->flag[idx] = 0;
    D->stamp[idx] = ++s->dcs->clock;
    D->memo_block = block;
    D->memo_idx = idx;
    if (L->pf && kind != CT_PREFETCH && kind != CT_HWPREFETCH) {
        L->st.prefetches_issued++;
        request(s, li, addr + L->line, size, CT_HWPREFETCH);
    }
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
                if (c->tag[idx] != CT_TAG_INVALID && c->tag[idx] >= b0 && c->tag[idx] <= b1) {
                    c->tag[idx] = CT_TAG_INVALID;
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
            c->tag[idx] = CT_TAG_INVALID;
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
            if (c->tag[idx] != CT_TAG_INVALID) {
                c->tag[idx] = CT_TAG_INVALID;
                s->lv[li].st.invalidations++;
            }
    }
}

FORCE_INLINE void dcs_access(ct_sim *s, const ct_access *a)
{
    const int kind = a->kind;
    const uint64_t addr = (s->use_paddr && (a->flags & CT_F_PADDR)) ? a->paddr : a->vaddr;
    int li;

    s->cur = a;
    s->tot.accesses[kind]++;
    switch (kind) {
    case CT_NOFETCH:
        return;
    case CT_IFETCH:
        li = s->first_i[a->core];
        break;
    case CT_PREFETCH:
        li = ((a->op & CT_PF_INSTR) && !(a->op & CT_PF_LEVEL_MASK)) ? s->first_i[a->core]
                                                                    : s->first_d[a->core];
        break;
    case CT_CACHEOP:
        if (a->op & CT_OP_ALL)
            flush_all(s);
        else
            flush(s, (a->op & CT_OP_ISIDE) ? s->first_i[a->core] : s->first_d[a->core], addr,
                  a->size);
        return;
    default:
        li = s->first_d[a->core];
        break;
    }
    if (li < 0)
        return;
    if (LIKELY(a->size != 0 &&
               ((addr ^ (addr + a->size - 1)) >> s->lv[li].c.line_bits) == 0)) {
        ct_level *L = &s->lv[li];
        dcs_level *D = &s->dcs->lv[li];
        const uint64_t block = addr >> L->c.line_bits;
        if (block == D->memo_block && L->c.tag[D->memo_idx] == block) {
            /* the line touched last at this level: a hit (piece() would agree) */
            ct_kind_stats *k = &L->st.kind[kind == CT_ATOMIC ? CT_STORE : kind];
            k->accesses++;
            k->hits++;
            D->stamp[D->memo_idx] = ++s->dcs->clock;
            return;
        }
        piece(s, li, addr, a->size, kind == CT_ATOMIC ? CT_STORE : kind);
        return;
    }
    if (a->size > 1)
        s->tot.line_crossings++;
    request(s, li, addr, a->size, kind == CT_ATOMIC ? CT_STORE : kind);
}

void ct_dcs_access(ct_sim *s, const ct_access *a)
{
    dcs_access(s, a);
}

int ct_dcs_run(ct_sim *s, const ct_batch *b, ct_error *err)
{
    for (const ct_access *a = b->acc, *end = b->acc + b->n; a < end; a++) {
        if (UNLIKELY((a->flags & CT_F_NOADDR) || a->core >= s->cores ||
                     a->kind >= CT_KIND_STREAM)) {
            s->cur = NULL;
            if (a->flags & CT_F_NOADDR)
                return ct_error_set(err, CT_E_UNSUPPORTED,
                                    "access at trace time %llu has no address (the trace "
                                    "masks its addresses): it cannot be simulated",
                                    (unsigned long long)a->time);
            return ct_error_set(err, CT_E_INTERNAL, "access of kind %u on core %u of %u",
                                a->kind, a->core, s->cores);
        }
        dcs_access(s, a);
    }
    s->cur = NULL;
    return CT_OK;
}

int ct_dcs_attach(ct_sim *s, const struct ct_config *cfg, ct_error *err)
{
    const char *where = cfg->path[0] ? cfg->path : "configuration";
    struct ct_dcs *d;
    uint32_t line = 0;

    for (size_t li = 0; li < s->nlv; li++) {
        const ct_level *L = &s->lv[li];
        const ct_cache_cfg *k = &cfg->cache[L->lv];
        if (L->c.pol != &ct_policy_lru)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [%s] replacement: compat = drcachesim models lru only, "
                                "not %s", where, L->name, L->c.pol->name);
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
    for (size_t li = 0; li < s->nlv; li++) {
        const ct_cache *c = &s->lv[li].c;
        d->lv[li].stamp = calloc(c->sets * c->ways, sizeof *d->lv[li].stamp);
        d->lv[li].memo_block = CT_TAG_INVALID;
        if (!d->lv[li].stamp || seen_grow(&d->lv[li].seen) != 0) {
            ct_dcs_free(d);
            return ct_error_set(err, CT_E_NOMEM, "out of memory");
        }
    }
    s->dcs = d;
    return CT_OK;
}

void ct_dcs_free(struct ct_dcs *d)
{
    if (!d)
        return;
    for (size_t li = 0; li < d->nlv; li++) {
        free(d->lv[li].stamp);
        free(d->lv[li].seen.key);
    }
    free(d->lv);
    free(d);
}
