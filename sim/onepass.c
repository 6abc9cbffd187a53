/*
 * onepass.c - every size and associativity of one LRU level in one pass.
 *
 * Rules
 *  - Applies to a level L that is LRU, write-allocate, non-inclusive,
 *    without a prefetcher, the last level before memory on every path
 *    through it, in a one-core hierarchy whose line sizes do not shrink on
 *    the way down to L. The levels above L are simulated once (a normal
 *    hierarchy whose L is tapped: hier.c hands L's requests here); every
 *    point of the group shares them.
 *  - LRU has the stack inclusion property: for a fixed set count S, a
 *    request to block X hits in every A-way cache whose A is at least X's
 *    depth in its set's recency stack (the number of distinct blocks of the
 *    set used since X, plus one). One stack per set count serves every
 *    associativity (all-associativity simulation, Hill and Smith 1989); a
 *    fully-associative cache (S = 1) of any number of lines is served by a
 *    Mattson stack-distance tree (a Fenwick tree over last-use slots).
 *  - Stacks hold the last-use times of the deepest A_max blocks per set
 *    only (A_max: the largest associativity asked for that set count), so
 *    their memory is that of the largest cache. A block whose last use is
 *    older than its set's oldest entry is deeper than A_max: a miss
 *    everywhere. Last-use times come from one table of every line the level
 *    has seen (its size follows the footprint, as the 3C classifier's).
 *  - Write-backs (Thompson and Smith 1989): each stack entry keeps the
 *    smallest associativity in which the block is dirty. A write makes it
 *    dirty everywhere (1); a read at depth d leaves it dirty only where it
 *    stayed (max(old, d)). When a block comes back at depth d, every cache
 *    with old <= A < d evicted it dirty; when it falls off the stack, every
 *    cache with old <= A <= A_max did. At the end the blocks still in a
 *    stack count the evictions that already happened, and with
 *    flush_at_end every cache that still holds them dirty writes them back.
 *  - Evictions = fills (every miss allocates) - lines valid at the end.
 *  - Cost: a demand request (hier.c's `demand` flag) costs L's latency on a
 *    hit and memory's on a miss, except a miss by a write that covers the
 *    whole line (no fetch: L's latency). Misses fetch from memory except
 *    those whole-line writes; write-backs (write-back L) or every write
 *    (write-through L) go to memory.
 *  - 3C (miss_classes): compulsory = first use at L; capacity = a miss that
 *    also misses in the fully-associative stack at the point's line count.
 *  - Cache maintenance operations break the stack model; the sweep engine
 *    simulates the points instead when a trace has any.
 *  - Sampled mode (rate R < 1): set-associative stacks follow a spatially
 *    hashed R of the sets (exact for those sets; a stack with fewer than
 *    64 / R sets is not sampled); the fully-associative
 *    stack follows a hashed R of the lines and compares distances with
 *    lines x R (SHARDS, Waldspurger et al. 2015). Counts are scaled to the
 *    level's exact number of accesses; the error is the spread of the miss
 *    rate over 8 hash-disjoint replicas divided by sqrt(8).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hier_internal.h"
#include "sweep_internal.h"

#define NCLASS (CT_KIND_COUNT * 4)   /* kind x demand x whole-line write */
#define INF UINT32_MAX
#define NREP 8                       /* sampled replicas */
#define EMPTY_KEY UINT64_MAX

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* ---- the table of lines seen: block -> last use, fully-associative slot -- */

typedef struct seen_entry {
    uint64_t block;
    uint64_t time;
    uint32_t fa;
} seen_entry;

typedef struct seen_map {
    seen_entry *e;
    uint64_t mask, used;
} seen_map;

static int seen_init(seen_map *m)
{
    m->mask = 4095;
    m->used = 0;
    m->e = malloc((m->mask + 1) * sizeof *m->e);
    if (!m->e)
        return -1;
    for (uint64_t i = 0; i <= m->mask; i++)
        m->e[i].block = EMPTY_KEY;
    return 0;
}

static seen_entry *seen_find(seen_map *m, uint64_t block)
{
    for (uint64_t h = mix64(block) & m->mask;; h = (h + 1) & m->mask) {
        if (m->e[h].block == block)
            return &m->e[h];
        if (m->e[h].block == EMPTY_KEY)
            return NULL;
    }
}

static int seen_grow(seen_map *m)
{
    uint64_t nmask = m->mask * 2 + 1;
    seen_entry *n = malloc((nmask + 1) * sizeof *n);
    if (!n)
        return -1;
    for (uint64_t i = 0; i <= nmask; i++)
        n[i].block = EMPTY_KEY;
    for (uint64_t i = 0; i <= m->mask; i++) {
        uint64_t h;
        if (m->e[i].block == EMPTY_KEY)
            continue;
        for (h = mix64(m->e[i].block) & nmask; n[h].block != EMPTY_KEY; h = (h + 1) & nmask)
            ;
        n[h] = m->e[i];
    }
    free(m->e);
    m->e = n;
    m->mask = nmask;
    return 0;
}

/* The entry of block, inserted (time 0) when absent; NULL when out of memory. */
static seen_entry *seen_get(seen_map *m, uint64_t block)
{
    uint64_t h;
    for (h = mix64(block) & m->mask; m->e[h].block != EMPTY_KEY; h = (h + 1) & m->mask)
        if (m->e[h].block == block)
            return &m->e[h];
    if ((m->used + 1) * 4 > m->mask * 3) {  /* load factor 3/4 */
        if (seen_grow(m) != 0)
            return NULL;
        return seen_get(m, block);
    }
    m->used++;
    m->e[h].block = block;
    m->e[h].time = 0;
    m->e[h].fa = 0;
    return &m->e[h];
}

/* ---- one stack structure: one set count ---------------------------------- */

typedef struct stack {
    uint64_t sets;
    int fa;                 /* 1: Mattson tree (sets == 1) */
    int pow2;
    uint32_t depth;         /* A_max (lists) or the largest line count (fa) */
    uint32_t ncap;
    uint32_t *cap;          /* sorted capacities in ways (fa: lines, scaled when sampled) */
    uint64_t *cap_lines;    /* lines of each capacity (unscaled), for 3C */
    uint32_t *lt;           /* lt[d] = number of capacities below d, d = 0..depth+1 */
    uint64_t *hist;         /* [NCLASS][ncap+1]: requests by number of capacities missed */
    uint64_t *caphist;      /* [NCLASS][ncap+1]: 3C capacity misses, same indexing */
    int64_t *wb;            /* [ncap+1] difference array of write-backs */
    int64_t *flush;         /* [ncap+1] difference array of end-of-run write-backs */
    uint64_t *resident;     /* [ncap] valid lines at the end */
    double rate;            /* sampling rate (1 exact) */
    uint64_t threshold;     /* sampled when hash & 0xffffff < threshold */
    uint64_t *rep_acc;      /* [NREP] sampled requests per replica */
    uint64_t *rep_hist;     /* [NREP][ncap+1] */
    /* per-set lists (fa == 0) */
    uint64_t *t;            /* sets x (2 + depth): header, oldest, packed entries */
    /* Mattson tree (fa == 1) */
    uint32_t W, next, live, oldest;
    uint64_t *st;           /* slot -> last-use time (0: dead) */
    uint32_t *sdm;          /* slot -> dirty-from line count */
    uint64_t *sblk;         /* slot -> block */
    int32_t *bit;           /* Fenwick tree of live slots, 1-based */
} stack;

static void stack_free(stack *s)
{
    free(s->cap);
    free(s->cap_lines);
    free(s->lt);
    free(s->hist);
    free(s->caphist);
    free(s->wb);
    free(s->flush);
    free(s->resident);
    free(s->rep_acc);
    free(s->rep_hist);
    free(s->t);
    free(s->st);
    free(s->sdm);
    free(s->sblk);
    free(s->bit);
}

FORCE_INLINE void wb_range(stack *s, int64_t *diff, uint32_t lo, uint32_t hi)
{
    if (lo == INF || lo > hi)
        return;
    if (hi > s->depth)
        hi = s->depth;
    if (lo > hi)
        return;
    diff[s->lt[lo]]++;
    diff[s->lt[hi + 1]]--;
}

static void bit_add(stack *s, uint32_t slot, int32_t v)
{
    for (uint32_t i = slot + 1; i <= s->W; i += i & (0u - i))
        s->bit[i] += v;
}

static uint32_t bit_prefix(const stack *s, uint32_t slot)
{
    int32_t sum = 0;
    for (uint32_t i = slot + 1; i > 0; i -= i & (0u - i))
        sum += s->bit[i];
    return (uint32_t)sum;
}

/* ---- the analysis ----------------------------------------------------------- */

#define OP_QUEUE 8

typedef struct op_req {
    uint64_t block;
    int cls, write;
} op_req;

typedef struct op_pt {
    ct_op_point p;
    uint32_t stack;         /* index into stacks */
    uint32_t cap;           /* capacity index in that stack */
    ct_ivstat *iv;          /* per level */
} op_pt;

struct ct_onepass {
    ct_sim *sim;            /* the hierarchy with L tapped */
    size_t li;              /* L's level index */
    uint32_t line, line_bits;
    int write_back, classes, flush;
    uint32_t mem_latency;
    seen_map seen;
    uint64_t clock;
    stack *stk;
    uint32_t nstk;
    int fa;                 /* index of the fully-associative stack, -1 none */
    uint64_t acc[NCLASS];   /* every request at L by class */
    uint64_t sacc[NCLASS];  /* requests the stacks saw (sampled mode: fewer) */
    uint64_t comp[NCLASS];  /* first uses */
    uint64_t writes;        /* write requests at L */
    op_pt *pt;
    size_t npt;
    double rate;
    int oom;
    op_req q[OP_QUEUE];     /* requests not processed yet */
    uint32_t qh, qn;
};

static int cls_of(int kind, int demand, int full) { return kind * 4 + demand * 2 + full; }

/* Per-set lists are packed for locality: set s owns rec[s * (depth + 2)]:
 * a header (head | count << 32), a copy of the oldest entry (so that a
 * request deeper than the list is seen from the first cache line), then
 * `depth` entries, each last-use time << 16 | dirty-from (0xffff: clean
 * everywhere), newest first from head, as a ring. A direct-mapped list is
 * its one entry (0: empty). */
#define DM_INF 0xffffu
#define ENT(t, dm) ((t) << 16 | (dm))
#define REC_WORDS(s) ((s)->depth == 1 ? 1 : (size_t)(s)->depth + 2)

static inline uint32_t dm_of(uint64_t e)
{
    uint32_t v = (uint32_t)(e & 0xffff);
    return v == DM_INF ? INF : v;
}

static inline uint64_t dm_pack(uint32_t dm) { return dm == INF ? DM_INF : dm; }

/* Depth (1-based; depth+1 = deeper than the stack) of block in a per-set
 * list, updating the list. */
FORCE_INLINE uint32_t list_access(stack *s, uint64_t set, uint64_t tx, uint64_t now,
                                  int write)
{
    const uint32_t D = s->depth;
    uint64_t *R, *T;
    uint32_t h, c, d;
#define SLOT(k) (h + (k) >= D ? h + (k) - D : h + (k))

    if (D == 1) {
        uint64_t *E = s->t + set;
        if (tx != 0 && *E != 0 && (*E >> 16) == tx) {
            uint32_t dmk = dm_of(*E);
            *E = ENT(now, write ? 1 : dm_pack(dmk > 1 ? dmk : 1));
            return 1;
        }
        if (*E != 0)
            wb_range(s, s->wb, dm_of(*E), 1);
        *E = ENT(now, write ? 1 : DM_INF);
        return 2;
    }
    R = s->t + set * REC_WORDS(s);
    T = R + 2;
    h = (uint32_t)R[0];
    c = (uint32_t)(R[0] >> 32);

    if (tx == 0 || c == 0 || tx < (R[1] >> 16)) {
        d = D + 1;
        if (c == D) {
            uint32_t old = SLOT(D - 1);
            wb_range(s, s->wb, dm_of(R[1]), D);
            h = old;
            T[h] = ENT(now, write ? 1 : DM_INF);
            R[1] = T[SLOT(D - 1)];
        } else {
            h = h == 0 ? D - 1 : h - 1;
            c++;
            T[h] = ENT(now, write ? 1 : DM_INF);
            if (c == 1)
                R[1] = T[h];
        }
    } else {
        uint32_t base = 0, n = c, k, dmk, ndm;
        /* branch-free search for the entry stamped tx (times descend) */
        while (n > 1) {
            uint32_t half = n / 2;
            base = (T[SLOT(base + half)] >> 16) > tx ? base + half : base;
            n -= half;
        }
        k = base + ((T[SLOT(base)] >> 16) > tx);
        d = k + 1;
        dmk = dm_of(T[SLOT(k)]);
        wb_range(s, s->wb, dmk, d - 1);
        ndm = write ? 1 : (dmk > d ? dmk : d);
        if (k <= (c - 1) / 2) {       /* move the newer entries down one */
            for (uint32_t j = k; j > 0; j--)
                T[SLOT(j)] = T[SLOT(j - 1)];
        } else {                      /* move the older ones up, new head */
            for (uint32_t j = k; j + 1 < c; j++)
                T[SLOT(j)] = T[SLOT(j + 1)];
            h = h == 0 ? D - 1 : h - 1;
        }
        T[SLOT(0)] = ENT(now, dm_pack(ndm));
        if (k == c - 1)
            R[1] = T[SLOT(c - 1)];
    }
#undef SLOT
    R[0] = (uint64_t)h | (uint64_t)c << 32;
    return d;
}

static void fa_compact(ct_onepass *o, stack *s)
{
    uint32_t p = 0;
    for (uint32_t i = 0; i < s->next; i++) {
        if (!s->st[i])
            continue;
        s->st[p] = s->st[i];
        s->sdm[p] = s->sdm[i];
        s->sblk[p] = s->sblk[i];
        seen_find(&o->seen, s->sblk[p])->fa = p;
        p++;
    }
    for (uint32_t i = p; i < s->W; i++)
        s->st[i] = 0;
    memset(s->bit, 0, (s->W + 1) * sizeof *s->bit);
    for (uint32_t i = 0; i < p; i++)
        bit_add(s, i, 1);
    s->oldest = 0;
    s->next = p;
}

static void fa_drop(stack *s, uint32_t slot)
{
    bit_add(s, slot, -1);
    s->st[slot] = 0;
    s->live--;
    while (s->oldest < s->next && !s->st[s->oldest])
        s->oldest++;
}

static uint32_t fa_access(ct_onepass *o, stack *s, seen_entry *e, uint64_t block, uint64_t tx,
                          uint64_t now, int write)
{
    const uint32_t D = s->depth;
    uint32_t d, ndm, slot;

    if (tx != 0 && s->live > 0 && tx >= s->st[s->oldest]) {
        uint32_t dmk;
        slot = e->fa;
        d = s->live - bit_prefix(s, slot) + 1;
        dmk = s->sdm[slot];
        wb_range(s, s->wb, dmk, d - 1);
        ndm = write ? 1 : (dmk > d ? dmk : d);
        fa_drop(s, slot);
    } else {
        d = D + 1;
        ndm = write ? 1 : INF;
        if (s->live == D) {
            wb_range(s, s->wb, s->sdm[s->oldest], D);
            fa_drop(s, s->oldest);
        }
    }
    if (s->next == s->W)
        fa_compact(o, s);
    slot = s->next++;
    s->st[slot] = now;
    s->sdm[slot] = ndm;
    s->sblk[slot] = block;
    bit_add(s, slot, 1);
    if (s->live++ == 0)
        s->oldest = slot;
    e->fa = slot;
    return d;
}

/* Whether a sampled stack follows this request; *rep gets its replica. */
static int stack_samples(const stack *s, uint64_t block, uint32_t *rep)
{
    uint64_t h = s->fa ? mix64(block ^ 0x5bd1e995ull)
                       : mix64((s->pow2 ? block & (s->sets - 1) : block % s->sets) ^
                               (s->sets * 0x9e3779b97f4a7c15ull));
    *rep = (uint32_t)(h >> 24) & (NREP - 1);
    return (h & 0xffffff) < s->threshold;
}

FORCE_INLINE void count(stack *s, int cls, uint32_t d, int first, uint32_t dfa, int classes,
                        uint32_t rep)
{
    uint32_t b = s->lt[d];
    s->hist[(size_t)cls * (s->ncap + 1) + b]++;
    if (s->rate < 1.0) {
        s->rep_acc[rep]++;
        s->rep_hist[(size_t)rep * (s->ncap + 1) + b]++;
    }
    if (classes && !first) {
        /* capacity misses where the fully-associative stack of the point's
         * line count also misses */
        uint32_t bf = 0;
        while (bf < s->ncap && s->cap_lines[bf] < dfa)
            bf++;
        s->caphist[(size_t)cls * (s->ncap + 1) + (b < bf ? b : bf)]++;
    }
}

/* One request at L, through every stack. */
static void process(ct_onepass *o, uint64_t block, int cls, int write)
{
    uint32_t rep[64], want = 0, dfa = INF;
    seen_entry *e;
    uint64_t tx, now;
    int first;

    if (UNLIKELY(o->rate < 1.0)) {
        for (uint32_t i = 0; i < o->nstk; i++)
            if (stack_samples(&o->stk[i], block, &rep[i]))
                want |= 1u << i;
        if (!want)
            return;
    } else {
        want = UINT32_MAX;
        memset(rep, 0, sizeof rep[0] * o->nstk);
    }
    e = seen_get(&o->seen, block);
    if (UNLIKELY(!e)) {
        o->oom = 1;
        return;
    }
    tx = e->time;
    first = tx == 0;
    now = ++o->clock;
    o->sacc[cls]++;
    if (first)
        o->comp[cls]++;
    if (o->fa >= 0 && (want >> o->fa & 1)) {
        stack *s = &o->stk[o->fa];
        dfa = fa_access(o, s, e, block, tx, now, write && o->write_back);
        count(s, cls, dfa, first, dfa, o->classes, rep[o->fa]);
    }
    for (uint32_t i = 0; i < o->nstk; i++) {
        stack *s = &o->stk[i];
        uint64_t set;
        uint32_t d;
        if ((int)i == o->fa || !(want >> i & 1))
            continue;
        set = s->pow2 ? block & (s->sets - 1) : block % s->sets;
        d = list_access(s, set, tx, now, write && o->write_back);
        count(s, cls, d, first, dfa, o->classes, rep[i]);
    }
    e->time = now;
}

/* Requests wait in a short queue so that the memory they will touch is
 * prefetched while earlier ones are processed; the order is unchanged. */
static void drain(ct_onepass *o)
{
    while (o->qn > 0) {
        const op_req *r = &o->q[o->qh];
        process(o, r->block, r->cls, r->write);
        o->qh = (o->qh + 1) % OP_QUEUE;
        o->qn--;
    }
}

static void tap(void *ctx, uint64_t addr, uint32_t bytes, int kind, int write, int demand)
{
    ct_onepass *o = ctx;
    const uint64_t block = addr >> o->line_bits;
    const int cls = cls_of(kind, demand, write && bytes == o->line);
    op_req *r;

    o->acc[cls]++;
    if (write)
        o->writes++;
    PREFETCH_R(&o->seen.e[mix64(block) & o->seen.mask]);
    for (uint32_t i = 0; i < o->nstk; i++) {
        const stack *s = &o->stk[i];
        if (!s->fa) {
            uint64_t set = s->pow2 ? block & (s->sets - 1) : block % s->sets;
            PREFETCH_R(s->t + set * REC_WORDS(s));
        }
    }
    if (o->qn == OP_QUEUE) {
        const op_req *old = &o->q[o->qh];
        process(o, old->block, old->cls, old->write);
        o->qh = (o->qh + 1) % OP_QUEUE;
        o->qn--;
    }
    r = &o->q[(o->qh + o->qn) % OP_QUEUE];
    r->block = block;
    r->cls = cls;
    r->write = write;
    o->qn++;
}

/* ---- eligibility ------------------------------------------------------------- */

static int level_of(const char *section)
{
    static const char *const names[CT_LV_COUNT] = {"l1i", "l1d", "l2", "l3"};
    for (int lv = 0; lv < CT_LV_COUNT; lv++)
        if (strcmp(names[lv], section) == 0)
            return lv;
    return -1;
}

const char *ct_onepass_unsuitable(const ct_config *cfg, const char *section)
{
    int lv = level_of(section);
    const ct_cache_cfg *k;

    if (lv < 0 || !ct_config_level_present(cfg, lv))
        return "not a present cache level";
    k = &cfg->cache[lv];
    if (cfg->cores != 1)
        return "more than one core";
    if (ct_policy_at((size_t)k->replacement) != &ct_policy_lru)
        return "replacement is not lru";
    if (ct_prefetch_at((size_t)k->prefetcher) != &ct_prefetch_none)
        return "the level has a prefetcher";
    if (!k->write_allocate)
        return "the level does not allocate on writes";
    if (k->inclusion != CT_INCL_NONINCLUSIVE)
        return "the level is inclusive or exclusive";
    if (k->assoc >= DM_INF && k->assoc != k->size / k->line)
        return "more than 65534 ways in a set-associative level";
    /* nothing below L on its paths */
    if (lv <= CT_LV_L1D && (ct_config_level_present(cfg, CT_LV_L2) ||
                            ct_config_level_present(cfg, CT_LV_L3)))
        return "a level below it depends on it";
    if (lv == CT_LV_L2 && ct_config_level_present(cfg, CT_LV_L3))
        return "a level below it depends on it";
    /* line sizes do not shrink on the way down to L */
    for (int a = CT_LV_L1I; a < lv; a++) {
        int b;
        if (!ct_config_level_present(cfg, a) || (a == CT_LV_L1I && lv == CT_LV_L1D))
            continue;
        for (b = a <= CT_LV_L1D ? CT_LV_L2 : a + 1; b <= lv; b++)
            if (ct_config_level_present(cfg, b))
                break;
        if (b > lv || cfg->cache[b].line < cfg->cache[a].line)
            return "line sizes shrink on the way down";
    }
    return NULL;
}

/* ---- creation ------------------------------------------------------------------ */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int stack_setup(stack *s, uint64_t sets, int fa, const uint32_t *caps, size_t n,
                       double rate, int need_fa_lines_only)
{
    uint32_t *c = malloc(n * sizeof *c);
    size_t m = 0;

    (void)need_fa_lines_only;
    if (!c)
        return -1;
    memcpy(c, caps, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_u32);
    for (size_t i = 0; i < n; i++)
        if (m == 0 || c[m - 1] != c[i])
            c[m++] = c[i];
    s->sets = sets;
    s->fa = fa;
    s->pow2 = (sets & (sets - 1)) == 0;
    if (!fa && (double)sets * rate < 64)
        rate = 1.0;  /* too few sets to sample: this stack stays exact */
    s->rate = rate;
    s->threshold = (uint64_t)(rate * 16777216.0);
    if (rate >= 1.0)
        s->threshold = 1ull << 24;
    s->ncap = (uint32_t)m;
    s->cap = c;
    s->cap_lines = malloc(m * sizeof *s->cap_lines);
    if (!s->cap_lines)
        return -1;
    for (size_t i = 0; i < m; i++)
        s->cap_lines[i] = (uint64_t)c[i] * (fa ? 1 : sets);
    if (fa && rate < 1.0) /* SHARDS: distances in the sample shrink by the rate */
        for (size_t i = 0; i < m; i++) {
            uint32_t v = (uint32_t)floor((double)c[i] * rate);
            c[i] = v ? v : 1;
        }
    s->depth = c[m - 1];
    s->lt = malloc(((size_t)s->depth + 2) * sizeof *s->lt);
    s->hist = calloc((size_t)NCLASS * (m + 1), sizeof *s->hist);
    s->caphist = calloc((size_t)NCLASS * (m + 1), sizeof *s->caphist);
    s->wb = calloc(m + 1, sizeof *s->wb);
    s->flush = calloc(m + 1, sizeof *s->flush);
    s->resident = calloc(m, sizeof *s->resident);
    s->rep_acc = calloc(NREP, sizeof *s->rep_acc);
    s->rep_hist = calloc((size_t)NREP * (m + 1), sizeof *s->rep_hist);
    if (!s->lt || !s->hist || !s->caphist || !s->wb || !s->flush || !s->resident ||
        !s->rep_acc || !s->rep_hist)
        return -1;
    for (uint32_t d = 0, b = 0; d <= s->depth + 1; d++) {
        while (b < m && c[b] < d)
            b++;
        s->lt[d] = b;
    }
    if (fa) {
        s->W = 2 * (s->depth + 1);
        s->st = calloc(s->W, sizeof *s->st);
        s->sdm = calloc(s->W, sizeof *s->sdm);
        s->sblk = calloc(s->W, sizeof *s->sblk);
        s->bit = calloc((size_t)s->W + 1, sizeof *s->bit);
        if (!s->st || !s->sdm || !s->sblk || !s->bit)
            return -1;
    } else {
        if (s->depth >= DM_INF)
            return -2;
        s->t = calloc(sets * REC_WORDS(s), sizeof *s->t);
        if (!s->t)
            return -1;
    }
    return 0;
}

static size_t find_level(const ct_sim *sim, const char *section)
{
    for (size_t i = 0; i < ct_sim_nlevels(sim); i++)
        if (strcmp(ct_sim_level_info(sim, i)->name, section) == 0)
            return i;
    return SIZE_MAX;
}

int ct_onepass_create(ct_onepass **out, const ct_config *cfg, const char *section,
                      const ct_op_point *points, size_t n, double sample, ct_error *err)
{
    ct_onepass *o = calloc(1, sizeof *o);
    uint64_t max_lines = 0;
    int lv = level_of(section);
    int rc;

    *out = NULL;
    if (!o)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    o->fa = -1;
    o->rate = sample > 0 && sample < 1 ? sample : 1.0;
    if ((rc = ct_sim_create(&o->sim, cfg, err)) != CT_OK)
        goto fail;
    o->li = find_level(o->sim, section);
    if (o->li == SIZE_MAX || lv < 0) {
        rc = ct_error_set(err, CT_E_INTERNAL, "one-pass: no level [%s]", section);
        goto fail;
    }
    ct_sim_tap(o->sim, o->li, tap, o);
    o->line = cfg->cache[lv].line;
    while ((1u << o->line_bits) < o->line)
        o->line_bits++;
    o->write_back = cfg->cache[lv].write_back;
    o->classes = cfg->miss_classes;
    o->flush = cfg->flush_at_end;
    o->mem_latency = cfg->mem_latency;
    if (seen_init(&o->seen) != 0)
        goto oom;
    o->pt = calloc(n, sizeof *o->pt);
    if (!o->pt)
        goto oom;
    o->npt = n;
    for (size_t i = 0; i < n; i++) {
        uint64_t lines = points[i].sets * points[i].ways;
        o->pt[i].p = points[i];
        if (lines > max_lines)
            max_lines = lines;
    }
    /* one stack per distinct set count; the fully-associative one also
     * serves the 3C split */
    o->stk = calloc(n + 1, sizeof *o->stk);
    if (!o->stk)
        goto oom;
    {
        uint32_t *caps = malloc((n + 1) * sizeof *caps);
        uint8_t *done = calloc(n, 1);
        int need_fa = o->classes;
        if (!caps || !done) {
            free(caps);
            free(done);
            goto oom;
        }
        for (size_t i = 0; i < n; i++)
            if (points[i].sets == 1)
                need_fa = 1;
        if (need_fa) {
            size_t m = 0;
            for (size_t i = 0; i < n; i++)
                if (points[i].sets == 1) {
                    caps[m++] = points[i].ways;
                    done[i] = 1;
                }
            if (o->classes && max_lines > 0)
                caps[m++] = (uint32_t)max_lines;
            o->fa = 0;
            if (stack_setup(&o->stk[0], 1, 1, caps, m, o->rate, 0) != 0) {
                free(caps);
                free(done);
                o->nstk = 1;
                goto oom;
            }
            o->nstk = 1;
        }
        for (size_t i = 0; i < n; i++) {
            size_t m = 0;
            if (done[i])
                continue;
            for (size_t j = i; j < n; j++)
                if (!done[j] && points[j].sets == points[i].sets) {
                    caps[m++] = points[j].ways;
                    done[j] = 1;
                }
            if (stack_setup(&o->stk[o->nstk++], points[i].sets, 0, caps, m, o->rate, 0) != 0) {
                free(caps);
                free(done);
                goto oom;
            }
        }
        free(caps);
        free(done);
        if (o->nstk > 32) {
            rc = ct_error_set(err, CT_E_INTERNAL, "one-pass: more than 32 set counts");
            goto fail;
        }
    }
    for (size_t i = 0; i < n; i++) {
        op_pt *p = &o->pt[i];
        for (uint32_t k = 0; k < o->nstk; k++) {
            stack *s = &o->stk[k];
            if ((s->fa ? 1 : s->sets) != p->p.sets)
                continue;
            for (uint32_t c = 0; c < s->ncap; c++)
                if (s->cap_lines[c] == p->p.sets * p->p.ways) {
                    p->stack = k;
                    p->cap = c;
                }
        }
        p->iv = calloc(ct_sim_nlevels(o->sim), sizeof *p->iv);
        if (!p->iv)
            goto oom;
        for (size_t l = 0; l < ct_sim_nlevels(o->sim); l++)
            if (ct_ivstat_init(&p->iv[l]) != 0)
                goto oom;
    }
    *out = o;
    return CT_OK;
oom:
    rc = ct_error_set(err, CT_E_NOMEM, "one-pass analysis: out of memory");
fail:
    ct_onepass_free(o);
    return rc;
}

void ct_onepass_free(ct_onepass *o)
{
    if (!o)
        return;
    for (uint32_t i = 0; i < o->nstk; i++)
        stack_free(&o->stk[i]);
    free(o->stk);
    for (size_t i = 0; i < o->npt; i++) {
        if (!o->pt[i].iv)
            continue;
        for (size_t l = 0; o->sim && l < ct_sim_nlevels(o->sim); l++)
            ct_ivstat_free(&o->pt[i].iv[l]);
        free(o->pt[i].iv);
    }
    free(o->pt);
    free(o->seen.e);
    ct_sim_free(o->sim);
    free(o);
}

/* ---- running ---------------------------------------------------------------------- */

int ct_onepass_run(ct_onepass *o, const ct_batch *b, ct_error *err)
{
    int rc = ct_sim_run(o->sim, b, err);
    if (rc == CT_OK && o->oom)
        rc = ct_error_set(err, CT_E_NOMEM, "one-pass analysis: out of memory");
    return rc;
}

/* Misses (sampled requests) of capacity c over the classes. */
static uint64_t stack_misses(const stack *s, uint32_t c, int cls)
{
    uint64_t m = 0;
    for (uint32_t b = c + 1; b <= s->ncap; b++)
        m += s->hist[(size_t)cls * (s->ncap + 1) + b];
    return m;
}

/* Estimated misses of point p by class (exact when not sampled). */
static double est_misses(const ct_onepass *o, const op_pt *p, int cls)
{
    const stack *s = &o->stk[p->stack];
    uint64_t m = stack_misses(s, p->cap, cls);
    uint64_t seen = 0;
    if (s->rate >= 1.0)
        return (double)m;
    for (uint32_t b = 0; b <= s->ncap; b++)
        seen += s->hist[(size_t)cls * (s->ncap + 1) + b];
    return seen ? (double)m * (double)o->acc[cls] / (double)seen : 0.0;
}

void ct_onepass_interval(ct_onepass *o)
{
    drain(o);
    for (size_t i = 0; i < o->npt; i++) {
        op_pt *p = &o->pt[i];
        for (size_t l = 0; l < ct_sim_nlevels(o->sim); l++) {
            ct_kind_stats t = ct_level_total(ct_sim_level_stats(o->sim, l));
            if (l == o->li) {
                double m = 0;
                for (int c = 0; c < NCLASS; c++)
                    m += est_misses(o, p, c);
                t.misses = (uint64_t)llround(m);
            }
            ct_ivstat_mark(&p->iv[l], t.accesses, t.misses);
        }
    }
}

int ct_onepass_finish(ct_onepass *o, ct_error *err)
{
    ct_sim_finish(o->sim);  /* the levels above flush into L first */
    drain(o);
    for (uint32_t k = 0; k < o->nstk; k++) {
        stack *s = &o->stk[k];
        if (s->fa) {
            uint32_t d = 0;
            for (uint32_t i = s->next; i-- > 0;) {
                if (!s->st[i])
                    continue;
                d++;
                wb_range(s, s->wb, s->sdm[i], d - 1);
                if (o->flush)
                    wb_range(s, s->flush, s->sdm[i] > d ? s->sdm[i] : d, s->depth);
            }
            for (uint32_t c = 0; c < s->ncap; c++)
                s->resident[c] = s->live < s->cap[c] ? s->live : s->cap[c];
            continue;
        }
        for (uint64_t set = 0; set < s->sets; set++) {
            const uint32_t D = s->depth;
            const uint64_t *R = s->t + set * REC_WORDS(s);
            const uint32_t h = D == 1 ? 0 : (uint32_t)R[0];
            const uint32_t cnt = D == 1 ? R[0] != 0 : (uint32_t)(R[0] >> 32);
            for (uint32_t k2 = 0; k2 < cnt; k2++) {
                uint32_t slot = h + k2 >= D ? h + k2 - D : h + k2, d = k2 + 1;
                uint32_t dm = dm_of(D == 1 ? R[0] : R[2 + slot]);
                wb_range(s, s->wb, dm, d - 1);
                if (o->flush)
                    wb_range(s, s->flush, dm > d ? dm : d, D);
            }
            for (uint32_t c = 0; c < s->ncap; c++)
                s->resident[c] += cnt < s->cap[c] ? cnt : s->cap[c];
        }
    }
    if (o->oom)
        return ct_error_set(err, CT_E_NOMEM, "one-pass analysis: out of memory");
    return CT_OK;
}


size_t ct_onepass_nlevels(const ct_onepass *o) { return ct_sim_nlevels(o->sim); }

static uint64_t diff_at(const int64_t *diff, uint32_t c)
{
    int64_t v = 0;
    for (uint32_t i = 0; i <= c; i++)
        v += diff[i];
    return v > 0 ? (uint64_t)v : 0;
}

void ct_onepass_result(ct_onepass *o, size_t k, ct_level_info *info, ct_level_stats *stats,
                       ct_sim_totals *tot, ct_interval_stats *iv, double *rate_err)
{
    const op_pt *p = &o->pt[k];
    const stack *s = &o->stk[p->stack];
    const size_t nl = ct_sim_nlevels(o->sim);
    ct_level_stats *L = &stats[o->li];
    ct_level_info *I = &info[o->li];
    const ct_level_info *base = ct_sim_level_info(o->sim, o->li);
    double scale = 1.0;
    uint64_t misses_all = 0, wb, fl, sampled = 0, total = 0;

    for (size_t l = 0; l < nl; l++) {
        info[l] = *ct_sim_level_info(o->sim, l);
        stats[l] = *ct_sim_level_stats(o->sim, l);
        ct_ivstat_get(&p->iv[l], &iv[l]);
        rate_err[l] = 0;
    }
    *tot = *ct_sim_get_totals(o->sim);
    I->sets = p->p.sets;
    I->assoc = p->p.ways;
    I->size = p->p.sets * p->p.ways * (uint64_t)base->line;
    I->latency = p->p.latency;

    for (int c = 0; c < NCLASS; c++) {
        const int kind = c / 4, demand = (c >> 1) & 1, full = c & 1;
        uint64_t acc = o->acc[c], miss, hit, capm = 0;
        if (!acc)
            continue;
        miss = (uint64_t)llround(est_misses(o, p, c));
        if (miss > acc)
            miss = acc;
        hit = acc - miss;
        L->kind[kind].misses += miss;
        misses_all += miss;
        if (o->classes) {
            for (uint32_t b = p->cap + 1; b <= s->ncap; b++)
                capm += s->caphist[(size_t)c * (s->ncap + 1) + b];
            L->kind[kind].compulsory += o->comp[c];
            L->kind[kind].capacity += capm;
            L->kind[kind].conflict += miss - o->comp[c] - capm;
        }
        if (demand) {
            uint64_t cyc = hit * p->p.latency +
                           miss * (full ? p->p.latency : o->mem_latency);
            tot->cycles += cyc;
            tot->kind_cycles[kind] += cyc;
        }
        if (!full)
            tot->mem_reads += miss;
    }
    /* hits follow from accesses (counted by the tapped level) and misses */
    for (int k = 0; k < CT_KIND_COUNT; k++)
        L->kind[k].hits = L->kind[k].accesses - L->kind[k].misses;
    for (int c = 0; c < NCLASS; c++) {
        total += o->acc[c];
        for (uint32_t b = 0; b <= s->ncap; b++)
            sampled += s->hist[(size_t)c * (s->ncap + 1) + b];
    }
    if (s->rate < 1.0 && sampled)
        scale = (double)total / (double)sampled;
    wb = (uint64_t)llround((double)diff_at(s->wb, p->cap) * scale);
    fl = (uint64_t)llround((double)diff_at(s->flush, p->cap) * scale);
    if (o->write_back) {
        L->writebacks = wb + fl;
        tot->mem_writes += wb + fl;
    } else {
        tot->mem_writes += o->writes;
    }
    {
        uint64_t res = (uint64_t)llround((double)s->resident[p->cap] *
                                         (s->rate < 1.0 && !s->fa ? 1.0 / s->rate : 1.0));
        if (s->fa && s->rate < 1.0)
            res = p->p.ways; /* a sampled fully-associative cache is full */
        L->evictions = misses_all > res ? misses_all - res : 0;
    }
    if (s->rate < 1.0) {
        /* spread of the miss rate over the replicas */
        double r[NREP], mean = 0, var = 0;
        int n = 0;
        for (int g = 0; g < NREP; g++) {
            uint64_t m = 0;
            if (!s->rep_acc[g])
                continue;
            for (uint32_t b = p->cap + 1; b <= s->ncap; b++)
                m += s->rep_hist[(size_t)g * (s->ncap + 1) + b];
            r[n++] = (double)m / (double)s->rep_acc[g];
        }
        for (int i = 0; i < n; i++)
            mean += r[i] / n;
        for (int i = 0; i < n; i++)
            var += (r[i] - mean) * (r[i] - mean);
        rate_err[o->li] = n > 1 ? sqrt(var / (n - 1)) / sqrt((double)n) : 0.0;
    }
}
