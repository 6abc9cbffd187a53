/*
 * onepass.c - every size and associativity of one LRU level in one pass.
 *
 * Rules
 *  - Applies to a level L that is LRU, write-allocate, non-inclusive,
 *    without a prefetcher, the last level before memory on every path
 *    through it, in a one-core hierarchy whose line sizes do not shrink on
 *    the way down to L. The levels above L are simulated once (a normal
 *    hierarchy whose L is tapped: hier.c hands L's requests here); every
 *    point of the group shares them. A level with levels below it cannot
 *    be analysed this way: their figures depend on its miss stream, which
 *    differs from point to point.
 *  - LRU has the stack inclusion property: for a fixed set count S, a
 *    request to block X hits in every A-way cache whose A is at least X's
 *    depth in its set's recency stack (the number of distinct blocks of the
 *    set used since X, plus one). One stack per set count serves every
 *    associativity (all-associativity simulation, Hill and Smith 1989); a
 *    fully-associative cache (S = 1) of any number of lines is served by a
 *    Mattson stack of the whole level.
 *  - A stack only tells depths up to D, the largest associativity asked for
 *    its set count (the largest line count for the fully-associative one):
 *    anything deeper is a miss everywhere, so a set keeps at most 2D
 *    blocks and the stacks' memory is about that of the largest caches.
 *    Last-use times come from one table of every line the level has seen
 *    (its size follows the footprint, as the 3C classifier's).
 *  - How a set is kept (depth D above 8): its 4 newest blocks (the front)
 *    are kept in recency order, their times newest first. A request to one
 *    of them is at depth k + 1, k the front times above its own, and the
 *    front moves down one over it. The older blocks are in a log: the set
 *    owns 2D slots filled in time order; a slot holds the last-use time of
 *    one block and a bit says whether it is live. A block that leaves the
 *    front (its oldest, when a block from outside comes in) is appended to
 *    the log: its time is newer than every time there. A request to a
 *    block in the log finds its slot by binary search on the times (they
 *    ascend with the slot); its depth is 5 plus the live slots after it
 *    (popcount); the slot dies and the block goes to the front. When the
 *    slots run out (at most once per D - 4 appends) the live slots are
 *    packed to the start and all but the newest D - 4 dropped: those are
 *    deeper than D, evicted from every cache of the stack. A block older
 *    than the log's first slot was dropped (or never seen): a miss. Between
 *    packs a log may hold more than D - 4 live blocks; a block found deeper
 *    than D is a miss as well. Direct-mapped stacks are one entry per set;
 *    stacks of depth 8 or less keep each set's times in recency order and
 *    move them down (cheaper than a log at that depth). The
 *    fully-associative stack is one log over the whole level, with a
 *    Fenwick tree over the live counts of 64-slot words (the words near
 *    the end are counted directly). Unless it is sampled, it takes every
 *    request and appends one slot for each (its newest block again too),
 *    so the block last used at a time t0 + i since the last pack is in
 *    slot s0 + i, found without a search; the block of the
 *    request before the last one is at depth 2, known without counting
 *    (only the newest slot comes after it, which is live and, as a block
 *    holds one live slot, another block's).
 *  - Requests are gathered 256 at a time; the table of lines and the
 *    fully-associative stack take them in order, then each set stack takes
 *    those it does not skip (Levels, below), in order (stacks are
 *    independent of each other, so the result is that of taking each
 *    request through every stack in turn, with less work per request).
 *    With helper threads, batches of 2048 requests go round a ring of 16
 *    (ring.h): the caller runs the levels above, the table and its share
 *    of the stacks, each helper its own share, every stack still taking its
 *    requests in order. The stacks are dealt to the threads once, by a cost
 *    per kind of stack; which thread runs a stack changes no figure. The
 *    3C split needs each request's fully-associative depth in the set
 *    stacks: the caller runs the fully-associative stack over a batch right
 *    after the table (with the 3C split of a sampled pass, whose replicas
 *    each write depths, there are no helpers). The caller reuses a batch
 *    once every helper is done with it, and waits for them all before
 *    anything reads the counts or the times are renumbered (below).
 *  - A request to the block of the request just before it at L is at depth
 *    1 in every stack and changes none: the order is the same whether its
 *    block's time moves on or not, a read leaves dirty-from as it is
 *    (max(old, 1)), and a write finds it 1 already when a write has been
 *    taken since another block's request. Such requests are counted (a hit
 *    everywhere) and not taken (not with the 3C split of a sampled pass;
 *    a hit is no 3C capacity miss). With sampling they are counted in the
 *    stacks that followed the request before (the same block: the same
 *    stacks, the same replica).
 *  - Pairs (not with the 3C split of a sampled pass, nor with the 3C
 *    split and a cache of one line; the fully-associative stack two
 *    lines deep or more): a run is the requests at L that take turns
 *    between two blocks X and Y. From a run's third request on, requests
 *    are taken in pairs, and a pair is folded (with the pairs next to it,
 *    into one entry of the batch)
 *    instead of taken one by one, when a write in it is to a block
 *    written before in the run (a write-back level). In a stack where X
 *    and Y share a set, each of these requests is at depth 2 (one block,
 *    the other, used since); elsewhere at depth 1. A pair leaves the two
 *    blocks the newest of their sets, in the same order, so their times
 *    do not move (a fold takes no time) and the fully-associative stack
 *    appends no slot. What a fold does in a stack where they share a set:
 *    each request is counted at depth 2; a one-way cache writes back each
 *    request's block that was dirty from 1 (a block's first request in
 *    the fold finds the stack's own value; a later one finds 1 when the
 *    block's request before wrote); each block's dirty-from becomes 1 if
 *    its last request wrote, else 2 if one of its requests in the fold
 *    wrote, else max(old, 2). Elsewhere it counts depth 1 and changes
 *    nothing: a read at depth 1 keeps dirty-from, and a write finds it 1
 *    already (the block was written in the run, and has been at depth 1
 *    there since). With the levels on, a fold skips the stacks from the
 *    first level of each chain whose sets part X and Y. No fold goes where
 *    the two share a set of a direct-mapped stack. With sampling, folds go
 *    to the exact stacks only: a run is made of requests no sampled stack
 *    follows, and a request one follows ends it.
 *  - Levels (not with the 3C split of a sampled pass): set counts S and 2S
 *    nest (a set of 2S sets is half of one of S: block mod 2S tells block
 *    mod S), so a block that is its set's newest at S sets is at 2S too.
 *    The set counts m x 2^k of one odd m form a chain of levels (the
 *    powers of two are m = 1); up to NCHAIN chains, the stacks of others
 *    take every request. For each chain the table pass keeps the block of
 *    each set's last request at every level and finds, by binary search,
 *    the first level at which the request's block is its set's newest
 *    (the last request of its set was its own). The set stacks of that
 *    level and the later ones of the chain skip the request: it is at
 *    depth 1 there. A skipped read leaves dirty-from as it is; a write is
 *    skipped only where the block is dirty-from 1 already: each block
 *    keeps, per chain, the first level from which that holds (the chain's
 *    first after a write; a read at depth above 1 below level l makes it
 *    at least l). With sampling, a sampled stack follows whole sets
 *    (Sampled mode), so a sampled block's set holds there what it holds
 *    in an exact pass: the levels apply to it alike, and its skipped
 *    requests are counted by replica (a sampled stack whose set count is
 *    not a power of two, sampled by a hash of its own, has no level).
 *  - The levels are tried in windows of LEVEL_WINDOW requests: when they
 *    skip fewer than LEVEL_GAIN stacks a request they cost more than they
 *    save and go off (every stack takes every request); LEVEL_RETRY
 *    windows later they go on again knowing no set's newest block. Until
 *    a block has been requested since, it is nobody's newest: its first
 *    request is taken everywhere and sets its dirty level afresh, so what
 *    the levels kept before they went off is never used.
 *  - A stack that skipped a request keeps the block's older time. That
 *    changes no depth: no other block of its set was used in between, so
 *    no time of that set lies between the two. A stack therefore compares
 *    times by order, never for equality: the newest slot of a set is the
 *    block's when its time is at most tx, and the block's slot is the last
 *    one at or before tx.
 *  - Times are 32-bit request numbers. When they would run out, every time
 *    is replaced by its rank among the last uses in the table (stacks
 *    packed first): the order of the times of a set, and of a stored time
 *    and its block's last use, all the analysis looks at, is kept.
 *  - Write-backs (Thompson and Smith 1989): each stack entry keeps the
 *    smallest associativity in which the block is dirty. A write makes it
 *    dirty everywhere (1); a read at depth d leaves it dirty only where it
 *    stayed (max(old, d)). When a block comes back at depth d, every cache
 *    with old <= A < d evicted it dirty; once it is deeper than D (found so
 *    on its next request, dropped by a pack, or at the end), every cache
 *    with old <= A <= D did. At the end the blocks still within depth D
 *    count the evictions that already happened, and with flush_at_end
 *    every cache that still holds them dirty writes them back.
 *  - Evictions = fills (every miss allocates) - lines valid at the end.
 *    Bytes (hier.c's rule): from below, a line per miss that fetches; to
 *    below, a line per write-back (write-back L) or the bytes of every write
 *    (write-through L).
 *  - Cost: a demand request (hier.c's `demand` flag) costs L's latency on a
 *    hit and memory's on a miss, except a miss by a write that covers the
 *    whole line (no fetch: L's latency), added to the cycles of the kind of
 *    the trace's access it serves, as simulation charges them: that is the
 *    request's own kind, except for the fetch a store or an atomic makes,
 *    which is a load at L (hier.c, Reads) charged to the store or atomic.
 *    Misses fetch from memory except
 *    those whole-line writes; write-backs (write-back L) or every write
 *    (write-through L) go to memory.
 *  - 3C (miss_classes): compulsory = first use at L; capacity = a miss that
 *    also misses in the fully-associative stack at the point's line count.
 *    A request the stacks do not take (a repeat, a skip by the levels, a
 *    fold where its two blocks part) is a hit there, and a folded request
 *    at depth 2 is at fully-associative depth 2: a capacity miss only in
 *    a one-line cache, so there are no folds when the sweep has one.
 *  - Cache maintenance operations break the stack model; the sweep engine
 *    simulates the points instead when a trace has any.
 *  - Sampled mode (rate R < 1), with a seed; 8 replicas give the error:
 *     - a stack of S sets with S x R >= 64 follows a hashed R of its sets
 *       (whole sets, so exact for them). With power-of-two set counts the
 *       hash is of the set index at the smallest sampled S, so that every
 *       sampled stack follows the same blocks. The sampled sets are split
 *       by the hash into 8 disjoint replicas; sets are independent caches,
 *       so each replica's miss rate is an independent estimate. Stacks with
 *       fewer sets stay exact.
 *     - the fully-associative caches of lines x R / 8 >= 32 get 8 stacks,
 *       one per replica, each following its own hashed R / 8 of the lines
 *       (disjoint) and comparing depths in its sample with
 *       round(lines x R / 8) (SHARDS, Waldspurger et al. 2015). Each
 *       replica's depths come from its own sample only, so the replicas'
 *       spread includes the error of the depth scaling, not only counting
 *       noise. Smaller ones, which so few sampled lines would bias, share
 *       one exact stack (its slots found by search).
 *    Counts are the sampled ones scaled by the level's exact number of
 *    requests of each class over the sampled number (a ratio estimator:
 *    it absorbs the sample-size fluctuation that SHARDS-adj corrects for);
 *    the error is the standard deviation of the 8 replicas' miss rates
 *    divided by sqrt(8).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hier_internal.h"
#include "ring.h"
#include "sweep_internal.h"

/* Request classes at L: kind x demand x whole-line write (kind * 4 +
 * demand * 2 + full), then two classes of demand loads whose cycles go to
 * another kind: the fetch made for a store, and for an atomic (Cost). */
#define CLS_LOAD_FOR_STORE (CT_KIND_COUNT * 4)
#define CLS_LOAD_FOR_ATOMIC (CT_KIND_COUNT * 4 + 1)
#define NCLASS (CT_KIND_COUNT * 4 + 2)
#define INF UINT32_MAX
#define NREP 8                       /* sampled replicas */
#define MAX_STACKS 64
#define MAX_HELPERS 64
#define EMPTY_KEY UINT64_MAX
#define DM_INF 0xffffu               /* dirty-from "clean everywhere" in 16 bits */
#define CLOCK_LIMIT (UINT32_MAX - 1)
#define NO_LEVEL 0xffu               /* a stack no request skips; a block dirty nowhere */
#define NCHAIN 4                     /* chains of levels (Levels, above) */
#define LEVEL_WINDOW (1u << 16)      /* requests per trial of the levels */
#define LEVEL_GAIN 2                 /* stacks a request must skip on average to keep them */
#define LEVEL_RETRY 16               /* windows off before the levels are tried again */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* ---- the table of lines seen: block -> last use ------------------------------ */

typedef struct seen_entry {
    uint64_t block;
    uint32_t time;          /* last use (0: never) */
    uint8_t dirty1[NCHAIN]; /* per chain, the first level (index) from which on it is dirty in
                               every cache (dirty-from 1); NO_LEVEL: none */
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

/* The entry of block (hash: mix64(block)), inserted (time 0) when absent;
 * NULL when out of memory. */
/* The slot of block in the table, or the empty slot where it would go. */
FORCE_INLINE uint64_t seen_slot(const seen_map *m, uint64_t block, uint64_t hash)
{
    uint64_t h = hash & m->mask;
    while (m->e[h].block != EMPTY_KEY && m->e[h].block != block)
        h = (h + 1) & m->mask;
    return h;
}

static seen_entry *seen_get(seen_map *m, uint64_t block, uint64_t hash)
{
    const uint64_t h = seen_slot(m, block, hash);
    if (m->e[h].block == block)
        return &m->e[h];
    if ((m->used + 1) * 4 > m->mask * 3) {  /* load factor 3/4 */
        if (seen_grow(m) != 0)
            return NULL;
        return seen_get(m, block, hash);
    }
    m->used++;
    m->e[h].block = block;
    m->e[h].time = 0;
    memset(m->e[h].dirty1, NO_LEVEL, sizeof m->e[h].dirty1);
    return &m->e[h];
}

/* The entry of a block seen (NULL: none). */
static seen_entry *seen_find(const seen_map *m, uint64_t block)
{
    const uint64_t h = seen_slot(m, block, mix64(block));
    return m->e[h].block == block ? &m->e[h] : NULL;
}

/* ---- one stack structure: one set count ---------------------------------- */

enum { ST_DM, ST_MRU, ST_LIST, ST_FA };

#define MRU_MAX 8               /* stacks this shallow keep each set in recency order */
#define FA_MIN_SAMPLED 32       /* sampled lines a sampled fully-associative cache needs */

#define FRONT 4                 /* a list set's newest blocks, kept in recency order */

/* The head of a set's record (ST_LIST). The record: this head, the live
 * bits of the 2D slots, their times, then (write-back levels) their
 * dirty-from values. */
typedef struct list_head {
    uint32_t next;          /* first unused slot */
    uint32_t pad;
    uint32_t front[FRONT];  /* the times of the set's FRONT newest blocks, newest
                               first (0: empty); the slots hold the older ones */
    uint16_t fdm[FRONT];    /* their dirty-from values (write-back levels) */
} list_head;

typedef struct stack {
    int kind;               /* ST_DM, ST_MRU, ST_LIST or ST_FA */
    uint64_t sets;
    uint64_t smask;         /* sets - 1 (power-of-two set counts) */
    int pow2;
    uint32_t depth;         /* D: A_max (sets) or the largest line count (fa, scaled) */
    uint32_t ncap;
    uint32_t *cap;          /* sorted capacities in ways (fa: lines, scaled when sampled) */
    uint64_t *cap_lines;    /* lines of each capacity (unscaled), for 3C */
    uint32_t *lt;           /* lt[d] = number of capacities below d, d = 0..depth+1 */
    uint32_t *ltc;          /* lt[d] * NCLASS: the row of hist */
    uint64_t *hist;         /* [ncap+1][NCLASS]: requests by number of capacities missed */
    uint64_t *caphist;      /* [ncap+1][NCLASS]: 3C capacity misses, same indexing */
    int64_t *wb;            /* [ncap+1] difference array of write-backs */
    int64_t *flush;         /* [ncap+1] difference array of end-of-run write-backs */
    uint64_t *resident;     /* [ncap] valid lines at the end */
    int dirt;               /* keeps dirty-from values (write-back level) */
    /* sampling */
    int sampled;            /* follows a sample of the requests */
    double rate;            /* the fraction it follows (1: all) */
    uint64_t salt;          /* set stacks whose set count is not a power of two */
    uint64_t *rep_acc;      /* [NREP] requests per replica (sampled set stacks) */
    uint64_t *rep_hist;     /* [NREP][ncap+1] */
    /* ST_DM: one entry per set, time << 16 | dirty-from (0: empty) (= rec) */
    uint64_t *dm1;
    /* ST_MRU: per set D times, newest first (0: empty), then D dirty-from
     * values (write-back levels); ST_LIST: see list_head */
    uint8_t *rec;           /* sets x rec_bytes */
    size_t rec_bytes, off_time, off_dm;
    uint32_t nslot, mw;     /* 2D slots, mw 64-bit words of live bits */
    /* ST_FA */
    uint32_t W, nw, next, live;
    int same_word;          /* a request killed a slot in the word it appends to */
    uint32_t *st;           /* slot -> last-use time */
    uint32_t *sdm;          /* slot -> dirty-from line count */
    uint64_t *fbits;        /* live bits of the slots */
    int32_t *fen;           /* Fenwick tree over the live counts of the words, 1-based */
    uint32_t lvl;           /* its level (index), NO_LEVEL: takes every request */
    uint32_t chain;         /* the chain of its level */
    /* ST_FA taking every request (not sampled, no 3C): each request
     * appends one slot, so since the last pack time t0 + i is in slot s0 + i */
    int linear;
    uint32_t t0, s0;        /* t0 0: nothing appended since */
} stack;

#define HIST(h, b, cls) ((h)[(size_t)(b) * NCLASS + (size_t)(cls)])

/* The set of block in stack s. */
FORCE_INLINE uint64_t set_of(const stack *s, uint64_t block)
{
    return LIKELY(s->pow2) ? block & s->smask : block % s->sets;
}

static void stack_free(stack *s)
{
    free(s->cap);
    free(s->cap_lines);
    free(s->lt);
    free(s->ltc);
    free(s->hist);
    free(s->caphist);
    free(s->wb);
    free(s->flush);
    free(s->resident);
    free(s->rep_acc);
    free(s->rep_hist);
    free(s->rec);
    free(s->st);
    free(s->sdm);
    free(s->fbits);
    free(s->fen);
}

/* Write-backs of the caches (capacities) with lo <= A <= min(hi, D) ways
 * (none when lo is INF). A block clean everywhere (INF) returns at once:
 * where data is only read, as most of it is in real programs, a predictor
 * learns that branch, and the request does not wait on the last one's
 * store to entry 0. The rest goes without branches: whether a dirty block
 * is written back depends on the trace's writes, which no predictor
 * guesses. */
FORCE_INLINE void wb_add(int64_t *diff, const uint32_t *lt, uint32_t D, uint32_t lo,
                         uint32_t hi)
{
    if (lo == INF)
        return;
    const uint32_t h = hi > D ? D : hi;
    const uint32_t v = lo <= h;
    const uint32_t keep = 0u - v;      /* all ones when counted: index 0 (+0) when not */
    const int64_t one = (int64_t)v;
    diff[lt[lo & keep]] += one;
    diff[lt[(h + 1) & keep]] -= one;
}

static inline uint32_t dm_of16(uint32_t v) { return v == DM_INF ? INF : v; }
static inline uint16_t dm_pack16(uint32_t dm) { return dm == INF ? DM_INF : (uint16_t)dm; }

/* A block's dirty-from after a request: 1 after a write, else `kept`.
 * Without a branch: writes come in no pattern a predictor learns. */
FORCE_INLINE uint32_t dirty_after(int write, uint32_t kept)
{
    const uint32_t w = (uint32_t)(write != 0);
    return (kept & (w - 1u)) | w;
}

/* Set bits above bit `pos` of a bit set of nw words. */
FORCE_INLINE uint32_t bits_above(const uint64_t *w, uint32_t nw, uint32_t pos)
{
    uint32_t k = pos >> 6;
    uint32_t c = (uint32_t)__builtin_popcountll(w[k] & ~((2ull << (pos & 63)) - 1));
    for (k++; k < nw; k++)
        c += (uint32_t)__builtin_popcountll(w[k]);
    return c;
}

/* Set the low n bits of a bit set (the others are clear). */
static void bits_low(uint64_t *w, uint32_t n)
{
    for (uint32_t k = 0; k * 64 < n; k++)
        w[k] = n - k * 64 >= 64 ? UINT64_MAX : (1ull << (n - k * 64)) - 1;
}

/* The end-of-run accounting of one block still in a stack at depth d
 * (newest first), dirty from dm. */
static void end_entry(stack *s, int flush, uint32_t dm, uint32_t d)
{
    if (d > s->depth) {            /* evicted already */
        wb_add(s->wb, s->lt, s->depth, dm, s->depth);
        return;
    }
    wb_add(s->wb, s->lt, s->depth, dm, d - 1);
    if (flush)
        wb_add(s->flush, s->lt, s->depth, dm > d ? dm : d, s->depth);
}

/* ---- per-set lists ------------------------------------------------------------ */

/* The slot stamped t among slots [0, n) (times ascend with the slot). */
FORCE_INLINE uint32_t slot_of(const uint32_t *tm, uint32_t n, uint32_t t)
{
    const uint32_t *b = tm;
    while (n > 1) {
        uint32_t half = n >> 1;
        b = b[half] <= t ? b + half : b;
        n -= half;
    }
    return (uint32_t)(b - tm);
}

/* Pack the live slots of one set to the start, in order, dropping all but
 * the newest D - FRONT (deeper than D: evicted). Returns the first free
 * slot. */
CT_CLONES_POPCNT static uint32_t list_pack(stack *s, uint8_t *R)
{
    list_head *h = (list_head *)R;
    uint64_t *bits = (uint64_t *)(R + sizeof *h);
    uint32_t *tm = (uint32_t *)(R + s->off_time);
    uint16_t *dm = s->dirt ? (uint16_t *)(R + s->off_dm) : NULL;
    const uint32_t *lt = s->lt;
    int64_t *wb = s->wb;
    uint32_t live = 0, drop, j = 0, dirty = 0;

    for (uint32_t k = 0; k < s->mw; k++)
        live += (uint32_t)__builtin_popcountll(bits[k]);
    drop = live > s->depth - FRONT ? live - (s->depth - FRONT) : 0;
    for (uint32_t k = 0; k < s->mw; k++) {
        uint64_t w = bits[k];
        const uint32_t base = k * 64;
        bits[k] = 0;
        /* the oldest live slots go: evicted from every cache of the stack */
        for (; drop && w; drop--, w &= w - 1)
            if (dm) {           /* without a branch on whether it is dirty */
                const uint32_t v = dm[base + (uint32_t)__builtin_ctzll(w)];
                const uint32_t is = v != DM_INF;
                wb[lt[v & (0u - is)]] += is;
                dirty += is;
            }
        if (!w)
            continue;
        if ((w & (w + (w & (0 - w)))) == 0) {   /* one run of live slots */
            const uint32_t from = base + (uint32_t)__builtin_ctzll(w);
            const uint32_t len = (uint32_t)__builtin_popcountll(w);
            memmove(tm + j, tm + from, len * sizeof *tm);
            if (dm)
                memmove(dm + j, dm + from, len * sizeof *dm);
            j += len;
            continue;
        }
        for (; w; w &= w - 1) {
            const uint32_t p = base + (uint32_t)__builtin_ctzll(w);
            tm[j] = tm[p];
            if (dm)
                dm[j] = dm[p];
            j++;
        }
    }
    wb[lt[s->depth + 1]] -= dirty;
    bits_low(bits, j);
    h->next = j;
    return j;
}

_Static_assert(FRONT == 4 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "front_push shifts the front as one little-endian 128-bit word");

/* Move a list set's front entries 0..k - 1 down one (entry k leaves) and
 * put the block of time t, dirty from dm, first. Without branches on k: a
 * front of FRONT = 4 entries is shifted as one 128-bit word (its dirty-from
 * values as one 64-bit word) and merged under a mask of the entries that
 * move. */
FORCE_INLINE void front_push(list_head *h, uint32_t k, uint32_t t, uint16_t dm, const int dirt)
{
    unsigned __int128 f, m;
    memcpy(&f, h->front, sizeof f);
    m = ~(unsigned __int128)0 >> (32 * (FRONT - 1 - k));  /* entries 0..k */
    f = ((f << 32) & m) | (f & ~m) | t;
    memcpy(h->front, &f, sizeof f);
    if (dirt) {
        uint64_t g, n = UINT64_MAX >> (16 * (FRONT - 1 - k));
        memcpy(&g, h->fdm, sizeof g);
        g = ((g << 16) & n) | (g & ~n) | dm;
        memcpy(h->fdm, &g, sizeof g);
    }
}

/* Depth (1-based; D + 1 = deeper than the stack) of the block last used at
 * tx (0: never) in one set's list, which it then heads at time now. `dirt`
 * (a constant where inlined) says whether dirty-from values are kept. */
FORCE_INLINE uint32_t list_access(stack *s, uint8_t *R, uint32_t tx, uint32_t now, int write,
                                  const int dirt)
{
    const uint32_t D = s->depth;
    list_head *h = (list_head *)R;
    uint32_t *F = h->front;
    uint16_t *fdm = h->fdm;
    uint64_t *bits = (uint64_t *)(R + sizeof *h);
    uint32_t *tm = (uint32_t *)(R + s->off_time);
    uint16_t *dm = (uint16_t *)(R + s->off_dm);
    uint32_t next = h->next, d = D + 1, ndm = INF;

    if (tx != 0 && tx >= F[FRONT - 1]) {
        /* in the front (F[FRONT - 1] = 0: the set has fewer blocks, all there) */
        uint32_t k = 0;
        for (uint32_t j = 0; j < FRONT - 1; j++)
            k += F[j] > tx;                         /* newer: above it */
        d = k + 1;
        if (dirt) {
            const uint32_t dmk = dm_of16(fdm[k]);
            wb_add(s->wb, s->lt, D, dmk, d - 1);
            ndm = dirty_after(write, dmk > d ? dmk : d);
        }
        if (k == 1) {           /* two blocks taking turns, the commonest case */
            F[1] = F[0];
            F[0] = now;
            if (dirt) {
                fdm[1] = fdm[0];
                fdm[0] = dm_pack16(ndm);
            }
        } else {
            front_push(h, k, now, dm_pack16(ndm), dirt);
        }
        return d;
    }
    if (tx != 0 && next != 0 && tx >= tm[0]) {      /* in the log */
        uint32_t p;
        if (next >= 4 && tm[next - 4] <= tx)    /* recent: look from the end */
            for (p = next - 1; tm[p] > tx; p--)
                ;
        else if (next >= 20 && tm[next - 20] <= tx)  /* among the last 20 */
            p = next - 20 + slot_of(tm + next - 20, 16, tx);
        else
            p = slot_of(tm, next, tx);
        const uint32_t above = bits_above(bits, s->mw, p) + FRONT;
        bits[p >> 6] &= ~(1ull << (p & 63));
        d = above < D ? above + 1 : D + 1;     /* D + 1: fell off the stack since */
        if (dirt) {
            const uint32_t dmk = dm_of16(dm[p]);
            const uint32_t keep = d > D ? INF : dmk > d ? dmk : d;
            wb_add(s->wb, s->lt, D, dmk, d - 1);
            ndm = dirty_after(write, keep);
        }
    } else if (dirt) {
        ndm = dirty_after(write, INF);
    }
    if (F[FRONT - 1] != 0) {                    /* the front's oldest goes to the log */
        if (UNLIKELY(next == s->nslot))
            next = list_pack(s, R);
        tm[next] = F[FRONT - 1];
        if (dirt)
            dm[next] = fdm[FRONT - 1];
        bits[next >> 6] |= 1ull << (next & 63);
        h->next = next + 1;
    }
    front_push(h, FRONT - 1, now, dm_pack16(ndm), dirt);   /* every entry moves */
    return d;
}

/* The same for a direct-mapped stack: its one entry per set. */
FORCE_INLINE uint32_t dm1_access(stack *s, uint64_t *E, uint32_t tx, uint32_t now, int write)
{
    if (tx != 0 && *E != 0 && (uint32_t)(*E >> 16) <= tx) {
        uint32_t dmk = dm_of16((uint32_t)(*E & 0xffff));
        *E = (uint64_t)now << 16 | (write ? 1 : dm_pack16(dmk > 1 ? dmk : 1));
        return 1;
    }
    if (*E != 0)
        wb_add(s->wb, s->lt, 1, dm_of16((uint32_t)(*E & 0xffff)), 1);
    *E = (uint64_t)now << 16 | (write ? 1 : DM_INF);
    return 2;
}

/* The same for a shallow stack (D <= MRU_MAX): the set's times in recency
 * order (empty entries 0), moved down on each request. */
FORCE_INLINE uint32_t mru_access(stack *s, uint8_t *R, uint32_t tx, uint32_t now, int write,
                                 const int dirt)
{
    const uint32_t D = s->depth;
    uint32_t *E = (uint32_t *)R;
    uint16_t *dm = (uint16_t *)(R + 4 * (size_t)D);
    uint32_t k, d, ndm = INF;

    if (dirt && write)
        ndm = 1;
    if (tx != 0 && tx >= E[D - 1]) {            /* in the set (E[D - 1] = 0: not full) */
        for (k = 0; E[k] > tx; k++)
            ;
        d = k + 1;
        if (dirt) {
            uint32_t dmk = dm_of16(dm[k]);
            wb_add(s->wb, s->lt, D, dmk, d - 1);
            ndm = dirty_after(write, dmk > d ? dmk : d);
        }
    } else {
        d = D + 1;
        k = D - 1;
        if (dirt && E[k] != 0)
            wb_add(s->wb, s->lt, D, dm_of16(dm[k]), D);
    }
    for (uint32_t j = k; j > 0; j--) {
        E[j] = E[j - 1];
        if (dirt)
            dm[j] = dm[j - 1];
    }
    E[0] = now;
    if (dirt)
        dm[0] = dm_pack16(ndm);
    return d;
}

/* ---- the fully-associative stack -------------------------------------------- */

static void fen_add(stack *s, uint32_t word, int32_t v)
{
    for (uint32_t i = word + 1; i <= s->nw; i += i & (0u - i))
        s->fen[i] += v;
}

/* Live slots in words 0..word. */
FORCE_INLINE uint32_t fen_prefix(const stack *s, uint32_t word)
{
    int32_t sum = 0;
    for (uint32_t i = word + 1; i > 0; i -= i & (0u - i))
        sum += s->fen[i];
    return (uint32_t)sum;
}

static void fen_build(stack *s)
{
    memset(s->fen, 0, ((size_t)s->nw + 1) * sizeof *s->fen);
    for (uint32_t i = 1; i <= s->nw; i++) {
        uint32_t j = i + (i & (0u - i));
        s->fen[i] += __builtin_popcountll(s->fbits[i - 1]);
        if (j <= s->nw)
            s->fen[j] += s->fen[i];
    }
}

/* ---- the analysis ----------------------------------------------------------- */

#define BATCH 256                /* requests gathered before the stacks run over them */
#define BATCH_HELPED 2048        /* the same with helper threads (fewer hand-overs) */
#define RING 16                  /* batches in flight with helper threads */
#define FRONT_WEIGHT 8.0         /* the caller's own work per request: levels above, table */
#define FA_WEIGHT 9.0            /* a fully-associative stack (64-deep set stack: 4) */

#define FOLD_CLS 0xffu             /* cls of an entry that is a fold (Pairs, above) */
#define MAX_FOLDS (BATCH_HELPED / 2) /* folds per batch */
#define FOLD_MAX_N (1u << 30)       /* requests per fold */
#define FOLD_NCLS 4                 /* classes per fold */

/* Pairs of requests folded into one entry: every one at depth 2 in the
 * stacks where the two blocks share a set, at depth 1 elsewhere. A pair
 * that would make the fold too long or of too many classes starts the
 * next one. */
typedef struct foldrec {
    uint64_t q;             /* the newest block (the entry's block is the other, p) */
    uint32_t n;             /* requests */
    uint32_t nwb;           /* requests whose block was dirty from 1: one-way write-backs */
    uint32_t cnt[FOLD_NCLS];    /* requests of each class of cls */
    uint8_t cls[FOLD_NCLS];
    uint8_t ncls;
    uint8_t dm_p, dm_q;     /* the blocks' dirty-from afterwards: FOLD_DM_* */
    uint8_t lstar[NCHAIN];  /* per chain, the first level whose sets part the two blocks
                               (the chain's end: none) */
} foldrec;

#define NO_SLOT 0xffu
/* A fold's dirty-from for a block afterwards: 1 or 2, or (0) max(old, 2) */
enum { FOLD_DM_MAX2 = 0, FOLD_DM_1 = 1, FOLD_DM_2 = 2 };
enum { ALT_W = 1, ALT_LW = 2 };
enum { HELD = 1, HELD_OK = 2, HELD_NWB = 4, HELD_W = 8 };
enum { PEND_ANY = 1, PEND_LAST = 2 };

/* Requests gathered (struct of arrays). */
typedef struct reqbuf {
    uint32_t n;
    uint32_t nfold;
    foldrec fold[MAX_FOLDS];
    uint64_t block[BATCH_HELPED], hash[BATCH_HELPED], want[BATCH_HELPED];
    uint32_t tx[BATCH_HELPED], now[BATCH_HELPED], dfa[BATCH_HELPED];
    uint8_t cls[BATCH_HELPED], write[BATCH_HELPED], rep[BATCH_HELPED];
    uint8_t skip[NCHAIN][BATCH_HELPED]; /* per chain, the set stacks of this level (index)
                                           on skip it */
} reqbuf;

typedef struct op_pt {
    ct_op_point p;
    uint32_t stack;         /* first stack of its group */
    uint32_t nstack;        /* stacks in the group: NREP sampled fa replicas, else 1 */
    uint32_t cap;           /* capacity index in those stacks */
    ct_ivstat *iv;          /* per level */
} op_pt;

struct ct_onepass {
    ct_sim *sim;            /* the hierarchy with L tapped */
    size_t li;              /* L's level index */
    uint32_t line, line_bits;
    int write_back, classes, flush;
    uint32_t mem_latency;
    seen_map seen;
    uint32_t clock, clock_limit;
    stack *stk;
    uint32_t nstk;
    int fa;                 /* index of the first fully-associative stack, -1 none */
    uint32_t nfa;           /* fully-associative stacks: 1, or when sampled an exact one
                               (small caches) and/or NREP replicas */
    uint32_t dm_lo;         /* stacks come fa first, then the set stacks */
    int quick;              /* repeats, levels and pairs may be used (not with the
                               3C split of a sampled pass; tests: not after
                               ct_onepass_set_shortcuts(op, 0)) */
    int fa_first;           /* 3C: the caller runs the fully-associative stack over a
                               batch before the helpers see it */
    uint64_t acc[NCLASS];   /* every request at L by class */
    uint64_t comp[NCLASS];  /* first uses */
    uint64_t writes;        /* write requests at L */
    uint64_t write_bytes;   /* their bytes (a write-through L writes them below) */
    uint64_t repeats[NCLASS];   /* requests to the block of the one before, not taken
                                   (counted in the stacks that follow every request) */
    /* sampled mode: the stacks that followed the last request taken, its
     * replica, and the repeats not yet counted in the sampled stacks among
     * them (settle counts them, with the helpers idle) */
    uint64_t last_want;
    uint32_t last_rep;
    uint64_t srep[MAX_STACKS][NCLASS];  /* per sampled stack and class */
    uint64_t srep_r[MAX_STACKS][NREP];  /* per sampled set stack and replica */
    /* levels: the set counts of the set stacks, in chains of one odd factor
     * each, fewest sets first */
    uint32_t nlvl;
    uint32_t nchain;
    uint32_t ch_lo[NCHAIN], ch_hi[NCHAIN];  /* each chain's levels */
    int ch_pow2;            /* the chain of the powers of two (-1: none) */
    uint64_t lvl_mask[MAX_STACKS];      /* sets - 1 (the power-of-two chain) */
    uint64_t lvl_sets[MAX_STACKS];
    uint64_t *lvl_last[MAX_STACKS];     /* per set: the block of its last request */
    uint64_t skipped[MAX_STACKS + 1][NCLASS];   /* requests by the level they skip from */
    uint64_t sskip[MAX_STACKS + 1][NREP][NCLASS];  /* sampled mode: the sampled ones, by
                                                      replica (settle counts them) */
    int lvl_on;             /* levels kept and used (else every stack takes everything) */
    uint32_t lvl_window;    /* requests per trial of the levels (LEVEL_WINDOW) */
    uint64_t lvl_seen;      /* requests in the current window */
    uint64_t lvl_gain;      /* stacks skipped by them */
    uint32_t lvl_idle;      /* windows since the levels were switched off */
    /* pairs (Pairs, above) */
    int folding;            /* pairs may be folded */
    uint32_t fold_ncls;     /* classes per fold (FOLD_NCLS) */
    uint32_t fold_zmax;     /* two blocks whose low fold_zmax bits are equal share a
                               set in a power-of-two stack too shallow for a fold
                               (direct-mapped): one compare for all of those */
    uint32_t nshallow;      /* such stacks whose set count is not a power of two */
    uint32_t shallow[MAX_STACKS];   /* their indices */
    uint64_t alt[2];        /* the last two blocks taken, alt[1] the newest */
    uint32_t alt_fl;        /* per block: ALT_W (a write to it in the run), ALT_LW (its
                               last request wrote), for alt[0]; << 2 for alt[1] */
    uint32_t alt_pos;       /* requests in the run (the two blocks taking turns), up to 3 */
    uint8_t alt_lstar[NCHAIN];  /* per chain, the run's first level whose sets part the
                                   two blocks */
    int alt_fold;           /* the run's pairs may be folded (no too shallow stack shares) */
    uint32_t held;          /* a request to alt[1] waiting for its pair's second:
                               HELD | HELD_OK (it may be folded) | HELD_NWB (its block
                               was dirty from 1) | HELD_W (it writes) | class << 8 */
    foldrec pend;           /* pairs folded and not yet in a batch (pend.n: requests) */
    uint8_t fslot[NCLASS];  /* each class's place in pend (NO_SLOT: none) */
    uint32_t pend_w;        /* per block of the pairs, p then (<< 2) q: PEND_ANY (one of
                               its requests wrote), PEND_LAST (its last one did) */
    uint64_t pend_p;        /* the first block of the pairs folded */
    uint64_t folded;        /* requests folded */
    uint64_t last_block;    /* the block of the last request taken */
    int last_dirty;         /* the last request taken was a write: its block is dirty
                               everywhere until another block's request is taken */
    op_pt *pt;
    size_t npt;
    /* sampling */
    int sampled;
    double rate;
    uint64_t thr24;         /* a hash h samples when (h & 0xffffff) < thr24 */
    uint64_t seed_set, seed_fa;
    uint64_t exact;         /* stacks that follow every request */
    uint64_t pow2_sampled;  /* sampled set stacks with a power-of-two set count */
    uint64_t other_sampled; /* sampled set stacks with another set count */
    uint64_t s0_mask;       /* set index bits of the smallest sampled power of two */
    int oom;
    /* the requests gathered: a ring of batches (one without helpers) */
    reqbuf *rb;
    uint32_t nrb, batch;    /* batches in the ring, requests per batch */
    reqbuf *cur;            /* the batch being filled */
    uint64_t filling;       /* its sequence number */
    /* helper threads: each runs its own set stacks over every batch */
    uint32_t nhelp;
    pthread_t *th;
    uint32_t *owner;        /* stack -> thread that runs it (0: the caller) */
    ct_ring *ring;          /* the batches: this thread produces, helper h
                               consumes as h - 1 (ring.h) */
    struct helper_arg *arg;
};

typedef struct helper_arg {
    ct_onepass *o;
    uint32_t id;            /* 1.. */
} helper_arg;

/* The class of a request of `kind` at L whose latency goes to the cycles of
 * kind `charge` (-1: nobody's); full: a write of the whole line. */
static int cls_of(int kind, int charge, int full)
{
    if (charge < 0)
        return kind * 4 + full;
    if (kind == CT_LOAD && charge == CT_STORE)
        return CLS_LOAD_FOR_STORE;
    if (kind == CT_LOAD && charge == CT_ATOMIC)
        return CLS_LOAD_FOR_ATOMIC;
    return kind * 4 + 2 + full;
}

/* What class c counts: the kind at L, the kind charged (-1: none), a
 * whole-line write. */
static void cls_split(int c, int *kind, int *charge, int *full)
{
    if (c >= CT_KIND_COUNT * 4) {
        *kind = CT_LOAD;
        *charge = c == CLS_LOAD_FOR_STORE ? CT_STORE : CT_ATOMIC;
        *full = 0;
        return;
    }
    *kind = c / 4;
    *charge = (c >> 1) & 1 ? c / 4 : -1;
    *full = c & 1;
}

/* Pack the live slots of the fully-associative stack to the front, dropping
 * all but the newest D. */
CT_CLONES_POPCNT static void fa_pack(stack *s)
{
    uint32_t p = 0, drop = s->live > s->depth ? s->live - s->depth : 0;
    for (uint32_t k = 0; k < s->nw; k++) {
        uint64_t w = s->fbits[k];
        s->fbits[k] = 0;
        for (; w; w &= w - 1) {
            uint32_t i = k * 64 + (uint32_t)__builtin_ctzll(w);
            if (drop) {
                drop--;
                wb_add(s->wb, s->lt, s->depth, s->sdm[i], s->depth);
                continue;
            }
            s->st[p] = s->st[i];
            s->sdm[p] = s->sdm[i];
            p++;
        }
    }
    bits_low(s->fbits, p);
    fen_build(s);
    s->live = p;
    s->next = p;
    s->t0 = 0;       /* the next append starts the linear run again */
}

/* The fully-associative stack: the list of one set of every line, with a
 * Fenwick tree over its words for the count of live slots after a slot. */
FORCE_INLINE uint32_t fa_access(stack *s, uint32_t tx, uint32_t now, int write)
{
    const uint32_t D = s->depth, next = s->next;
    uint32_t d = D + 1, ndm = write ? 1 : INF, slot;

    if (s->linear && s->t0 && tx >= s->t0 && s->s0 + (tx - s->t0) == next - 2 &&
        next != s->W && D >= 2) {
        /* the block before the last request's (two blocks taking turns): one
         * live block after it, the last request's (the newest slot is live,
         * and a block holds one live slot) */
        const uint32_t from = next - 2, wf = from >> 6, wn = next >> 6;
        const uint32_t dmk = s->sdm[from];
        wb_add(s->wb, s->lt, D, dmk, 1);
        s->fbits[wf] &= ~(1ull << (from & 63));
        s->fbits[wn] |= 1ull << (next & 63);
        if (wf != wn) {
            fen_add(s, wf, -1);
            fen_add(s, wn, 1);
        }
        s->st[next] = now;
        s->sdm[next] = dirty_after(write, dmk > 2 ? dmk : 2);
        s->next = next + 1;
        return 2;
    }

    if (!s->linear && tx != 0 && next != 0 && s->st[next - 1] == tx) {
        /* the newest block again: depth 1, its slot keeps its place (a
         * linear stack moves it to the end, as any other) */
        s->st[next - 1] = now;
        if (!write)
            ndm = s->sdm[next - 1];             /* max(old, 1) */
        s->sdm[next - 1] = ndm;
        return 1;
    }
    if (tx != 0 && next != 0 && tx >= s->st[0]) {      /* in the log */
        uint32_t w, above, dmk;
        const uint32_t last = (next - 1) >> 6;       /* the word being filled */
        if (s->t0 && tx >= s->t0)                   /* appended since the last pack */
            slot = s->s0 + (tx - s->t0);
        else if (next >= 4 && s->st[next - 4] <= tx) /* recent: look from the end */
            for (slot = next - 1; s->st[slot] != tx; slot--)
                ;
        else
            slot = slot_of(s->st, s->t0 ? s->s0 : next, tx);
        w = slot >> 6;
        above = (uint32_t)__builtin_popcountll(s->fbits[w] & ~((2ull << (slot & 63)) - 1));
        if (last - w <= 4)                           /* recent: count the words */
            for (uint32_t k = w + 1; k <= last; k++)
                above += (uint32_t)__builtin_popcountll(s->fbits[k]);
        else
            above += s->live - fen_prefix(s, w);
        dmk = s->sdm[slot];
        s->fbits[w] &= ~(1ull << (slot & 63));
        if (w != (next == s->W ? UINT32_MAX : next >> 6))
            fen_add(s, w, -1);                       /* else the append puts it back */
        else
            s->same_word = 1;
        s->live--;
        if (above < D) {
            d = above + 1;
            wb_add(s->wb, s->lt, D, dmk, d - 1);
            ndm = dirty_after(write, dmk > d ? dmk : d);
        } else {
            wb_add(s->wb, s->lt, D, dmk, D);
        }
    }
    if (UNLIKELY(s->next == s->W))
        fa_pack(s);
    slot = s->next++;
    if (s->linear && !s->t0) {
        s->t0 = now;
        s->s0 = slot;
    }
    s->st[slot] = now;
    s->sdm[slot] = ndm;
    s->fbits[slot >> 6] |= 1ull << (slot & 63);
    if (!s->same_word)
        fen_add(s, slot >> 6, 1);
    s->same_word = 0;
    s->live++;
    return d;
}

/* Count a request of class cls at depth d in stack s (general path). */
static void count(stack *s, int cls, uint32_t d, int first, uint32_t dfa, int classes,
                  uint32_t rep)
{
    uint32_t b = s->lt[d];
    HIST(s->hist, b, cls)++;
    if (s->rep_acc) {
        s->rep_acc[rep]++;
        s->rep_hist[(size_t)rep * (s->ncap + 1) + b]++;
    }
    if (classes && !first) {
        /* capacity misses where the fully-associative stack of the point's
         * line count also misses */
        uint32_t bf = 0;
        while (bf < s->ncap && s->cap_lines[bf] < dfa)
            bf++;
        HIST(s->caphist, b < bf ? b : bf, cls)++;
    }
}

/* Sampled mode: the stacks that follow a request to block; *rep gets the
 * replica of the power-of-two set stacks. */
static uint64_t sample_want(const ct_onepass *o, uint64_t block, uint32_t *rep)
{
    uint64_t want = o->exact, h;

    *rep = 0;
    if (o->pow2_sampled) {
        h = mix64((block & o->s0_mask) ^ o->seed_set);
        if ((h & 0xffffff) < o->thr24) {
            want |= o->pow2_sampled;
            *rep = (uint32_t)(h >> 24) % NREP;
        }
    }
    for (uint64_t w = o->other_sampled; w; w &= w - 1) {
        const stack *s = &o->stk[__builtin_ctzll(w)];
        h = mix64((block % s->sets) ^ s->salt);
        if ((h & 0xffffff) < o->thr24)
            want |= w & (0 - w);
    }
    if (o->fa >= 0 && o->stk[o->fa + o->nfa - 1].sampled) {
        h = mix64(block ^ o->seed_fa);
        if ((h & 0xffffff) < o->thr24)
            want |= 1ull << (o->fa + o->nfa - NREP + (int)((h >> 24) % NREP));
    }
    return want;
}

/* The replica of a request to block in a sampled set stack. */
static uint32_t rep_of(const stack *s, uint64_t block, uint32_t rep)
{
    return s->sampled && !s->pow2 ? (uint32_t)(mix64(block % s->sets ^ s->salt) >> 24) % NREP
                                  : rep;
}

static void renumber(ct_onepass *o);

/* The set of block at level l of a chain (p2: the power-of-two one). */
FORCE_INLINE uint64_t lvl_set(const ct_onepass *o, uint32_t l, uint64_t block, int p2)
{
    return p2 ? block & o->lvl_mask[l] : block % o->lvl_sets[l];
}

/* The levels of request i (block) in chain c (p2: the power-of-two one, a
 * constant where inlined): the first level (index) at which it is its
 * set's newest block, so at depth 1 in that stack and every later one of
 * the chain. The set stacks of that level on skip it (q->skip), a write
 * only where its block is dirty everywhere already. Returns the number of
 * stacks it skips. */
FORCE_INLINE uint32_t chain_pass(ct_onepass *o, seen_entry *e, reqbuf *q, uint32_t i,
                                 uint32_t c, uint32_t c0, uint32_t c1, const int p2, int wb)
{
    uint64_t *const *const last = o->lvl_last;
    const uint64_t block = q->block[i];
    uint32_t lo = c0, hi = c1, from;

    while (lo < hi) {           /* newest at a level: newest at every later one */
        const uint32_t mid = (lo + hi) / 2;
        if (last[mid][lvl_set(o, mid, block, p2)] == block)
            hi = mid;
        else
            lo = mid + 1;
    }
    for (uint32_t l = c0; l < lo; l++)  /* it is the newest there now */
        last[l][lvl_set(o, l, block, p2)] = block;
    from = lo;
    if (wb) {
        /* dirty-from stays 1 where the request is at depth 1 (a read) */
        const uint32_t d1 = e->dirty1[c];
        const int write = q->write[i];
        if (write && d1 > from)
            from = d1 < c1 ? d1 : c1;
        e->dirty1[c] = write ? (uint8_t)c0 : (uint8_t)(d1 > lo ? d1 : lo);
    }
    q->skip[c][i] = (uint8_t)from;
    if (from == c1)
        return 0;
    o->skipped[from][q->cls[i]]++;
    return c1 - from;
}

/* Request i skips no stack. */
static void skips_none(const ct_onepass *o, reqbuf *q, uint32_t i)
{
    for (uint32_t c = 0; c < o->nchain; c++)
        q->skip[c][i] = (uint8_t)o->ch_hi[c];
}

/* No set's newest block is known at any level. */
static void levels_forget(ct_onepass *o)
{
    for (uint32_t l = 0; l < o->nlvl; l++)
        for (uint64_t set = 0; set < o->lvl_sets[l]; set++)
            o->lvl_last[l][set] = EMPTY_KEY;
}

/* At the end of a window: levels that skip too few stacks cost more than
 * they save, and go off; after LEVEL_RETRY windows they are tried again,
 * knowing no set's newest block (a request is then taken where it could
 * have been skipped, never the reverse). */
static void levels_trial(ct_onepass *o)
{
    if (o->lvl_on && o->lvl_gain < (uint64_t)LEVEL_GAIN * o->lvl_seen) {
        o->lvl_on = 0;
        o->lvl_idle = 0;
    } else if (!o->lvl_on && o->quick && ++o->lvl_idle >= LEVEL_RETRY) {
        levels_forget(o);
        o->lvl_on = 1;
    }
    o->lvl_seen = 0;
    o->lvl_gain = 0;
}

/* The table pass over a fold: its blocks keep their times. With the
 * levels on, it skips the stacks of the first level whose sets part its
 * two blocks and the later ones, counted there at depth 1 (there it
 * changes nothing), and its blocks' dirty levels follow its last
 * requests. (Where the levels do not know a block as its set's newest,
 * after they were off, its next request is taken everywhere and sets its
 * dirty level afresh.) */
static NOINLINE void fold_table(ct_onepass *o, reqbuf *q, uint32_t i)
{
    const foldrec *f = &q->fold[q->tx[i]];
    const uint64_t blk[2] = {q->block[i], f->q};
    const uint8_t code[2] = {f->dm_p, f->dm_q};

    if (!o->lvl_on) {
        skips_none(o, q, i);
        return;
    }
    for (uint32_t c = 0; c < o->nchain; c++) {
        const uint32_t l = f->lstar[c];
        q->skip[c][i] = (uint8_t)l;
        if (l == o->ch_hi[c])
            continue;
        for (uint32_t k = 0; k < f->ncls; k++)
            o->skipped[l][f->cls[k]] += f->cnt[k];
        o->lvl_gain += (uint64_t)(o->ch_hi[c] - l) * f->n;
    }
    for (int b = 0; o->write_back && b < 2; b++) {
        seen_entry *e = seen_find(&o->seen, blk[b]);   /* seen: taken in the run */
        for (uint32_t c = 0; e && c < o->nchain; c++) {
            const uint8_t l = f->lstar[c];
            e->dirty1[c] = code[b] == FOLD_DM_1   ? (uint8_t)o->ch_lo[c]
                           : code[b] == FOLD_DM_2 ? l
                                                  : (e->dirty1[c] > l ? e->dirty1[c] : l);
        }
    }
}

/* The table pass over a batch: the requests' last-use times and their new
 * times. */
static void table_pass(ct_onepass *o, reqbuf *q)
{
    const uint32_t n = q->n, nchain = o->nchain;
    const int wb = o->write_back, sampled = o->sampled;
    /* the power-of-two chain (0, when there is one) by masks */
    const uint32_t c_p2 = o->ch_pow2 == 0, p2_hi = o->ch_hi[0];

    for (uint32_t i = 0; i < n; i++) {
        seen_entry *e;
        if (i + 8 < n)
            PREFETCH_R(&o->seen.e[q->hash[i + 8] & o->seen.mask]);
        if (UNLIKELY(q->cls[i] == FOLD_CLS)) {
            fold_table(o, q, i);
            continue;
        }
        e = seen_get(&o->seen, q->block[i], q->hash[i]);
        if (UNLIKELY(!e)) {
            o->oom = 1;
            return;
        }
        q->tx[i] = e->time;
        if (e->time == 0)
            o->comp[q->cls[i]]++;
        e->time = q->now[i] = ++o->clock;
        q->dfa[i] = INF;
        if (o->lvl_on) {
            uint32_t gain = c_p2 ? chain_pass(o, e, q, i, 0, 0, p2_hi, 1, wb) : 0;
            for (uint32_t c = c_p2; c < nchain; c++)
                gain += chain_pass(o, e, q, i, c, o->ch_lo[c], o->ch_hi[c], 0, wb);
            o->lvl_gain += gain;
            if (UNLIKELY(sampled) && c_p2 && (q->want[i] & o->pow2_sampled) &&
                q->skip[0][i] < p2_hi)
                o->sskip[q->skip[0][i]][q->rep[i]][q->cls[i]]++;
        } else {
            skips_none(o, q, i);    /* every stack takes it */
        }
    }
    if (o->nlvl && (o->lvl_seen += n) >= o->lvl_window)
        levels_trial(o);
}

/* The requests of a batch that a stack takes (their indices, in order). */
_Static_assert(BATCH_HELPED <= 65536 && BATCH <= BATCH_HELPED, "takes holds 16-bit indices");
typedef struct takes {
    uint32_t n;
    uint16_t i[BATCH_HELPED];
} takes;

/* Keep the requests of t (from `from`, or t itself) that the set stacks of
 * level lvl take: the others are their set's newest block there (depth 1).
 * Without branches: which requests a stack skips follows no pattern. */
static void takes_level(takes *t, const takes *from, const reqbuf *q, uint32_t chain,
                        uint32_t lvl)
{
    const uint8_t *const skip = q->skip[chain];
    uint32_t m = 0;
    for (uint32_t j = 0; j < from->n; j++) {
        const uint16_t i = from->i[j];
        t->i[m] = i;
        m += skip[i] > lvl;
    }
    t->n = m;
}

/* A fold f of blocks p and f->q in one stack (R: p's set, set stacks).
 * Where the two share a set every request is at depth 2: a one-way cache
 * writes back each one whose block was dirty from 1 (for each block's
 * first request, this stack's own value; after, whether its last request
 * wrote), and the two blocks' dirty-from values follow their last
 * requests. Elsewhere all are at depth 1 and change nothing (a write only
 * to a block dirty from 1 there). */
static NOINLINE void fold_apply(stack *s, const foldrec *f, uint64_t p, uint8_t *R, int kind,
                                int dirt)
{
    uint32_t row;

    if (kind != ST_FA && set_of(s, p) != set_of(s, f->q)) {
        row = s->ltc[1];
    } else {
        row = s->ltc[2];
        if (dirt) {
            /* the values of p and q: fa slots next - 2 and next - 1; the
             * front's (or a shallow set's) entries 1 and 0 */
            uint32_t dm[2], nwb = f->nwb;
            const uint8_t code[2] = {f->dm_p, f->dm_q};
            uint16_t *d16 = NULL;
            if (kind == ST_FA) {
                dm[0] = s->sdm[s->next - 2];
                dm[1] = s->sdm[s->next - 1];
            } else {
                d16 = kind == ST_MRU ? (uint16_t *)(R + 4 * (size_t)s->depth)
                                     : ((list_head *)R)->fdm;
                dm[0] = dm_of16(d16[1]);
                dm[1] = dm_of16(d16[0]);
            }
            for (int b = 0; b < 2; b++) {
                nwb += dm[b] <= 1;
                dm[b] = code[b] != FOLD_DM_MAX2 ? code[b] : dm[b] > 2 ? dm[b] : 2;
            }
            s->wb[s->lt[1]] += nwb;
            s->wb[s->lt[2]] -= nwb;
            if (kind == ST_FA) {
                s->sdm[s->next - 2] = dm[0];
                s->sdm[s->next - 1] = dm[1];
            } else {
                d16[1] = dm_pack16(dm[0]);
                d16[0] = dm_pack16(dm[1]);
            }
        }
    }
    for (uint32_t k = 0; k < f->ncls; k++)
        s->hist[row + f->cls[k]] += f->cnt[k];
}

/* One stack (number k) over the requests t of a batch. `kind`, `dirt` (the
 * level is write-back) and `general` (a sampled stack, or the 3C split) are
 * constants where inlined. A fully-associative stack leaves its depths in
 * q->dfa for the 3C split (it runs first then). */
FORCE_INLINE void stack_pass(ct_onepass *o, reqbuf *q, uint32_t k, const takes *t,
                             const int kind, const int dirt, const int general)
{
    stack *s = &o->stk[k];
    uint8_t *const rec = s->rec;
    const size_t stride = s->rec_bytes;
    const uint16_t *const take = t->i;
    const uint32_t m = t->n;
    uint64_t *const hist = s->hist;
    const uint32_t *const ltc = s->ltc;
    uint8_t *rp[BATCH_HELPED];

    for (uint32_t j = 0; kind != ST_FA && j < m; j++) {
        const uint64_t block = q->block[take[j]];
        rp[j] = rec + set_of(s, block) * stride;
    }
    for (uint32_t j = 0; j < m; j++) {
        const uint32_t i = take[j];
        const int write = dirt && q->write[i] && (!general || o->write_back);
        const uint32_t cls = q->cls[i];
        uint32_t d;
        if (kind != ST_FA && j + 8 < m)
            PREFETCH_R(rp[j + 8]);
        if (UNLIKELY(cls == FOLD_CLS)) {
            fold_apply(s, &q->fold[q->tx[i]], q->block[i], kind != ST_FA ? rp[j] : NULL, kind,
                       dirt);
            continue;
        }
        if (kind == ST_FA) {
            d = fa_access(s, q->tx[i], q->now[i], write);
            if (general && o->classes)  /* the 3C split reads it (no helpers then) */
                q->dfa[i] = d;
        }
        else if (kind == ST_DM)
            d = dm1_access(s, (uint64_t *)rp[j], q->tx[i], q->now[i], write);
        else if (kind == ST_MRU)
            d = mru_access(s, rp[j], q->tx[i], q->now[i], write, dirt);
        else
            d = list_access(s, rp[j], q->tx[i], q->now[i], write, dirt);
        if (general)
            count(s, (int)cls, d, q->tx[i] == 0, q->dfa[i], o->classes,
                  rep_of(s, q->block[i], q->rep[i]));
        else
            hist[ltc[d] + cls]++;
    }
}

#define STACK_PASS(name, kind, dirt, general) \
    CT_CLONES_POPCNT static void name(ct_onepass *o, reqbuf *q, uint32_t k, const takes *t) \
    { stack_pass(o, q, k, t, kind, dirt, general); }
STACK_PASS(pass_fa_wb, ST_FA, 1, 0)
STACK_PASS(pass_fa_wt, ST_FA, 0, 0)
STACK_PASS(pass_fa_any_wb, ST_FA, 1, 1)
STACK_PASS(pass_fa_any_wt, ST_FA, 0, 1)
STACK_PASS(pass_dm_wb, ST_DM, 1, 0)
STACK_PASS(pass_dm_wt, ST_DM, 0, 0)
STACK_PASS(pass_dm_any, ST_DM, 1, 1)
STACK_PASS(pass_mru_wb, ST_MRU, 1, 0)
STACK_PASS(pass_mru_wt, ST_MRU, 0, 0)
STACK_PASS(pass_mru_any_wb, ST_MRU, 1, 1)
STACK_PASS(pass_mru_any_wt, ST_MRU, 0, 1)
STACK_PASS(pass_list_wb, ST_LIST, 1, 0)
STACK_PASS(pass_list_wt, ST_LIST, 0, 0)
STACK_PASS(pass_list_any_wb, ST_LIST, 1, 1)
STACK_PASS(pass_list_any_wt, ST_LIST, 0, 1)

/* The stacks of thread `who` over a batch (fully-associative ones first),
 * or (fa: 1) only its fully-associative ones, or (fa: 0) only its set
 * stacks. The set stacks come fewest sets first, so their levels ascend:
 * each level's requests are picked from those of the level before (a level
 * below the last one picked starts again from the whole batch). */
enum { RUN_SETS = 0, RUN_FA = 1, RUN_ALL = 2 };
static void run_stacks(ct_onepass *o, reqbuf *q, uint32_t who, int fa)
{
    const int wb = o->write_back;
    takes all, lv, sel;
    uint32_t lv_of = NO_LEVEL;      /* the level lv holds the requests of (NO_LEVEL: none) */
    uint32_t lv_chain = 0;          /* its chain */

    all.n = q->n;
    for (uint32_t i = 0; i < q->n; i++)
        all.i[i] = (uint16_t)i;
    for (uint32_t k = 0; k < o->nstk; k++) {
        const stack *s = &o->stk[k];
        const takes *t = &all;
        /* the general path: the 3C split, or a sampled stack (it takes the
         * requests it follows); an exact stack of a sampled pass takes
         * what a stack of an exact pass takes */
        const int general = o->classes || s->sampled;
        if (o->owner[k] != who || (fa != RUN_ALL && (s->kind == ST_FA) != fa))
            continue;
        if (general) {
            uint32_t m = 0;
            if (s->lvl == NO_LEVEL) {
                for (uint32_t i = 0; i < q->n; i++) {
                    sel.i[m] = (uint16_t)i;
                    m += (uint32_t)(q->want[i] >> k & 1);
                }
            } else {
                for (uint32_t i = 0; i < q->n; i++) {
                    sel.i[m] = (uint16_t)i;
                    m += (uint32_t)(q->want[i] >> k & 1) & (q->skip[s->chain][i] > s->lvl);
                }
            }
            sel.n = m;
            t = &sel;
        } else if (s->lvl != NO_LEVEL) {
            if (lv_of == NO_LEVEL || s->chain != lv_chain || s->lvl < lv_of)
                takes_level(&lv, &all, q, s->chain, s->lvl);
            else if (s->lvl > lv_of)
                takes_level(&lv, &lv, q, s->chain, s->lvl);
            lv_of = s->lvl;
            lv_chain = s->chain;
            t = &lv;
        }
        switch (s->kind) {
        case ST_FA:
            if (general)
                wb ? pass_fa_any_wb(o, q, k, t) : pass_fa_any_wt(o, q, k, t);
            else
                wb ? pass_fa_wb(o, q, k, t) : pass_fa_wt(o, q, k, t);
            break;
        case ST_DM:
            /* dirty-from values of direct-mapped entries need no array */
            if (general)
                pass_dm_any(o, q, k, t);
            else if (wb)
                pass_dm_wb(o, q, k, t);
            else
                pass_dm_wt(o, q, k, t);
            break;
        case ST_MRU:
            if (general)
                wb ? pass_mru_any_wb(o, q, k, t) : pass_mru_any_wt(o, q, k, t);
            else
                wb ? pass_mru_wb(o, q, k, t) : pass_mru_wt(o, q, k, t);
            break;
        default:
            if (general)
                wb ? pass_list_any_wb(o, q, k, t) : pass_list_any_wt(o, q, k, t);
            else
                wb ? pass_list_wb(o, q, k, t) : pass_list_wt(o, q, k, t);
            break;
        }
    }
}

/* Wait until every helper has run every batch handed to it. */
static void wait_helpers(ct_onepass *o)
{
    if (o->nhelp)
        (void)ct_ring_drain(o->ring);
}

/* The table's work on batch q: the times renumbered when they would run
 * out (every stack idle first: each has run every batch before this one),
 * the table pass, and the depths the 3C split reads (the fully-associative
 * stack, before any set stack sees the batch). Out of memory, the batch is
 * emptied. */
static void table_work(ct_onepass *o, reqbuf *q)
{
    if (UNLIKELY(o->clock >= o->clock_limit - q->n)) {
        wait_helpers(o);
        renumber(o);
    }
    if (!o->oom)
        table_pass(o, q);
    if (o->oom) {
        q->n = 0;
        return;
    }
    if (o->fa_first)
        run_stacks(o, q, 0, RUN_FA);
}

/* A helper: its own stacks over every batch, in order, until stopped. */
static void *helper_main(void *arg)
{
    const helper_arg *h = arg;
    ct_onepass *o = h->o;
    uint64_t seq;

    while (ct_ring_acquire(o->ring, h->id - 1, &seq) == CT_OK) {
        run_stacks(o, &o->rb[seq % o->nrb], h->id, o->fa_first ? RUN_SETS : RUN_ALL);
        ct_ring_release(o->ring, h->id - 1);
    }
    return NULL;
}

/* The batch being filled is full (or the trace ends): the table's work on
 * it here, then it goes to the helpers and this thread runs its own
 * stacks over it. The next batch is one every thread is done with. */
static void flush_batch(ct_onepass *o)
{
    reqbuf *q = o->cur;
    if (q->n == 0)
        return;
    table_work(o, q);
    if (q->n == 0)
        return;
    if (o->nhelp)
        ct_ring_publish(o->ring);
    run_stacks(o, q, 0, o->fa_first ? RUN_SETS : RUN_ALL);
    o->filling++;
    o->cur = &o->rb[o->filling % o->nrb];
    if (o->nhelp) {
        uint64_t seq;
        (void)ct_ring_claim(o->ring, &seq); /* the helpers are done with it */
    }
    o->cur->n = 0;
    o->cur->nfold = 0;
}

/* Put one request into the batch being filled: the stacks that follow it
 * (want) and its sampled replica (rep). */
FORCE_INLINE void put(ct_onepass *o, uint64_t block, uint32_t cls, int write, uint64_t want,
                      uint32_t rep)
{
    reqbuf *q = o->cur;
    const uint32_t i = q->n;
    q->block[i] = block;
    q->hash[i] = mix64(block);
    q->want[i] = want;
    q->cls[i] = (uint8_t)cls;
    q->write[i] = (uint8_t)write;
    q->rep[i] = (uint8_t)rep;
    if (i < 8)
        PREFETCH_R(&o->seen.e[q->hash[i] & o->seen.mask]);
    if (++q->n == o->batch)
        flush_batch(o);
}

/* The same for a request only the exact stacks follow (every stack,
 * without sampling). */
FORCE_INLINE void push(ct_onepass *o, uint64_t block, uint32_t cls, int write)
{
    put(o, block, cls, write, o->exact, 0);
}

/* A block's FOLD_DM_* from its PEND_* bits. */
static inline uint8_t fold_dm(uint32_t w)
{
    return w & PEND_LAST ? FOLD_DM_1 : w & PEND_ANY ? FOLD_DM_2 : FOLD_DM_MAX2;
}

/* Put the pairs folded so far into the batch being filled, as one entry
 * (its tx: the index of its fold). */
static void fold_flush(ct_onepass *o)
{
    foldrec *f = &o->pend;
    reqbuf *q;
    if (f->n == 0)
        return;
    if (o->cur->nfold == MAX_FOLDS)
        flush_batch(o);
    q = o->cur;
    f->dm_p = fold_dm(o->pend_w);
    f->dm_q = fold_dm(o->pend_w >> 2);
    memcpy(f->lstar, o->alt_lstar, sizeof f->lstar);
    o->folded += f->n;
    q->fold[q->nfold] = *f;
    q->tx[q->n] = q->nfold++;
    for (uint32_t k = 0; k < f->ncls; k++)
        o->fslot[f->cls[k]] = NO_SLOT;
    memset(f, 0, sizeof *f);
    o->pend_w = 0;
    push(o, o->pend_p, FOLD_CLS, 0);
}

/* The pairs folded and a request held go into the batch, in order. */
FORCE_INLINE void release(ct_onepass *o)
{
    if (LIKELY(!o->held && o->pend.n == 0))
        return;
    fold_flush(o);
    if (o->held) {
        push(o, o->alt[1], o->held >> 8, (o->held & HELD_W) != 0);
        o->held = 0;
    }
}

/* Everything gathered has gone through every stack, and the repeats and
 * level skips of sampled blocks are counted in the sampled stacks that
 * follow them (at depth 1: no capacity missed). */
static void settle(ct_onepass *o)
{
    if (o->folding)
        release(o);
    flush_batch(o);
    wait_helpers(o);
    for (uint32_t k = 0; o->sampled && k < o->nstk; k++) {
        stack *s = &o->stk[k];
        for (int c = 0; c < NCLASS; c++) {
            HIST(s->hist, 0, c) += o->srep[k][c];
            o->srep[k][c] = 0;
        }
        for (uint32_t r = 0; s->rep_acc && r < NREP; r++) {
            s->rep_acc[r] += o->srep_r[k][r];
            s->rep_hist[(size_t)r * (s->ncap + 1)] += o->srep_r[k][r];
            o->srep_r[k][r] = 0;
        }
        for (uint32_t l = o->ch_lo[s->chain]; s->sampled && s->lvl != NO_LEVEL && l <= s->lvl;
             l++)
            for (uint32_t r = 0; r < NREP; r++)
                for (int c = 0; c < NCLASS; c++) {
                    const uint64_t n = o->sskip[l][r][c];
                    HIST(s->hist, 0, c) += n;
                    s->rep_acc[r] += n;
                    s->rep_hist[(size_t)r * (s->ncap + 1)] += n;
                }
    }
    if (o->sampled)
        memset(o->sskip, 0, sizeof o->sskip);
}

/* Whether the pending fold, of at most `most` classes, has room for a pair
 * of classes a and b (o->fslot: each class's place in it, NO_SLOT: none). */
static inline int fold_room(const ct_onepass *o, uint32_t a, uint32_t b, uint32_t most)
{
    const uint32_t need = (o->fslot[a] == NO_SLOT) + (b != a && o->fslot[b] == NO_SLOT);
    return o->pend.ncls + need <= most;
}

/* Count one request of class c in the pending fold (which has room for it). */
static inline void fold_count(ct_onepass *o, uint32_t c)
{
    foldrec *f = &o->pend;
    uint32_t k = o->fslot[c];
    if (k == NO_SLOT) {
        k = f->ncls++;
        o->fslot[c] = (uint8_t)k;
        f->cls[k] = (uint8_t)c;
        f->cnt[k] = 0;
    }
    f->cnt[k]++;
}

/* A request taken when pairs may be folded (Pairs, above). */
FORCE_INLINE void pairs(ct_onepass *o, uint64_t block, uint32_t cls, int write)
{
    const uint32_t fl = o->alt_fl, w = (uint32_t)(write != 0);
    uint32_t ok, nwb, h;

    if (block != o->alt[0]) {
        release(o);
        push(o, block, cls, write);
        if (block == o->alt[1]) {       /* a write to the last block again */
            o->alt[0] = EMPTY_KEY;
            o->alt_pos = 1;
        } else {                        /* a new run: the last block, then this one */
            o->alt[0] = o->alt[1];
            o->alt[1] = block;
            o->alt_pos = o->alt_pos ? 2 : 1;
        }
        o->alt_fl = (fl >> 3 & 1) * (ALT_W | ALT_LW) | w * (ALT_W | ALT_LW) << 2;
        return;
    }
    /* the run goes on: its third request or a later one */
    if (o->alt_pos < 3 && ++o->alt_pos == 3) {
        for (uint32_t c = 0; c < o->nchain; c++) {
            const int p2 = (int)c == o->ch_pow2;
            uint32_t x = o->ch_lo[c];
            while (x < o->ch_hi[c] &&
                   lvl_set(o, x, o->alt[0], p2) == lvl_set(o, x, o->alt[1], p2))
                x++;
            o->alt_lstar[c] = (uint8_t)x;
        }
        o->alt_fold = (uint32_t)__builtin_ctzll(o->alt[0] ^ o->alt[1]) < o->fold_zmax;
        for (uint32_t k = 0; k < o->nshallow; k++) {
            const stack *s = &o->stk[o->shallow[k]];
            o->alt_fold &= set_of(s, o->alt[0]) != set_of(s, o->alt[1]);
        }
    }
    ok = !w || (fl & ALT_W) || !o->write_back;
    nwb = fl >> 1 & 1;
    h = o->held;
    if (h) {                            /* the second of a pair */
        if ((h & HELD_OK) && ok) {
            foldrec *f = &o->pend;
            const uint32_t hw = (h & HELD_W) != 0, hc = h >> 8;
            if (f->n >= FOLD_MAX_N || !fold_room(o, hc, cls, o->fold_ncls))
                fold_flush(o);          /* this pair starts the next fold */
            if (f->n == 0) {            /* the first pair: each stack its own */
                o->pend_p = o->alt[1];
                f->q = block;
            } else {
                f->nwb += ((h & HELD_NWB) != 0) + nwb;
            }
            o->pend_w = (o->pend_w & (PEND_ANY | PEND_ANY << 2)) |
                        hw * (PEND_ANY | PEND_LAST) | w * (PEND_ANY | PEND_LAST) << 2;
            fold_count(o, hc);
            fold_count(o, cls);
            f->n += 2;
            o->held = 0;
        } else {
            release(o);
            push(o, block, cls, write);
        }
    } else if (o->alt_fold) {           /* the first of a pair */
        o->held = HELD | ok * HELD_OK | nwb * HELD_NWB | w * HELD_W | cls << 8;
    } else {
        fold_flush(o);
        push(o, block, cls, write);
    }
    /* this block's flags, then it becomes alt[1] */
    {
        const uint32_t mine = (fl & ALT_W) | w * (ALT_W | ALT_LW);
        o->alt_fl = mine << 2 | (fl >> 2 & 3);
    }
    o->alt[0] = o->alt[1];
    o->alt[1] = block;
}

/* Sampled mode: a request to the block of the one before (Rules: depth 1
 * everywhere, nothing changes) in the stacks that followed that one. The
 * exact stacks count it at the end, the sampled ones when settled. */
static NOINLINE void sampled_repeat(ct_onepass *o, uint64_t block, uint32_t cls)
{
    o->repeats[cls]++;
    for (uint64_t w = o->last_want & ~o->exact; w; w &= w - 1) {
        const uint32_t k = (uint32_t)__builtin_ctzll(w);
        const stack *s = &o->stk[k];
        o->srep[k][cls]++;
        if (s->rep_acc)
            o->srep_r[k][rep_of(s, block, o->last_rep)]++;
    }
}

/* Sampled mode: a request that a sampled stack follows is not folded (folds
 * go to the exact stacks only). It ends the run: what was held or folded
 * goes into the batch before it, and the next request starts a new run. */
static void pair_break(ct_onepass *o)
{
    release(o);
    o->alt[0] = o->alt[1] = EMPTY_KEY;
    o->alt_pos = 0;
    o->alt_fl = 0;
}

FORCE_INLINE void tap_one(ct_onepass *o, uint64_t addr, uint32_t bytes, int kind, int write,
                          int charge)
{
    const uint64_t block = addr >> o->line_bits;
    const int cls = cls_of(kind, charge, write && bytes == o->line);
    uint64_t want = o->exact;
    uint32_t rep = 0;

    o->acc[cls]++;
    if (write) {
        o->writes++;
        o->write_bytes += bytes;
    }
    if (block == o->last_block && o->quick && (!write || o->last_dirty || !o->write_back)) {
        if (UNLIKELY(o->sampled))
            sampled_repeat(o, block, (uint32_t)cls);
        else
            o->repeats[cls]++;  /* depth 1 everywhere; nothing changes */
        return;
    }
    o->last_dirty = write;      /* a repeat write not taken above is taken here */
    o->last_block = block;
    if (UNLIKELY(o->sampled)) {
        want = sample_want(o, block, &rep);
        o->last_want = want;
        o->last_rep = rep;
        if (o->folding) {
            if (want == o->exact) {     /* only the exact stacks follow it */
                pairs(o, block, (uint32_t)cls, write);
                return;
            }
            pair_break(o);
        }
        if (want)
            put(o, block, (uint32_t)cls, write, want, rep);
        return;
    }
    if (o->folding) {
        pairs(o, block, (uint32_t)cls, write);
        return;
    }
    put(o, block, (uint32_t)cls, write, want, rep);
}

static void tap(void *ctx, uint64_t addr, uint32_t bytes, int kind, int write, int charge)
{
    tap_one(ctx, addr, bytes, kind, write, charge);
}

/* The tap over a run of a batch (ct_tap_run_fn). */
static uint32_t tap_run(void *ctx, const ct_access *acc, uint32_t i, uint32_t n,
                        uint16_t paddr_flag, unsigned mine, uint64_t *taken, uint64_t *mem,
                        uint64_t *nofetch)
{
    ct_onepass *o = ctx;
    const uint32_t line = o->line;

    for (; i < n; i++) {
        const ct_access *a = &acc[i];
        uint64_t addr;
        const int take = ct_tap_step(a, paddr_flag, mine, line, taken, mem, nofetch, &addr);
        if (take < 0)
            break;
        if (take)
            tap_one(o, addr, a->size ? a->size : 1, a->kind, a->kind >> 1, a->kind);
    }
    return i;
}

/* ---- running out of times ------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The rank (1-based) of t among the sorted times v[0..n). */
static uint32_t rank_of(const uint32_t *v, uint32_t n, uint32_t t)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo + 1;
}

/* Replace every time by its rank among the last-use times of the table:
 * once the stacks are packed, every time they hold is at most the last use
 * of its block with no other time of its set in between (see "Levels"), and
 * a time's rank is that of the first last use at or after it. */
static void renumber(ct_onepass *o)
{
    uint32_t *v, n = 0;

    if (o->seen.used >= o->clock_limit - 1) {
        o->oom = 1;  /* more lines than times: cannot happen in memory */
        return;
    }
    v = malloc((o->seen.used + 1) * sizeof *v);
    if (!v) {
        o->oom = 1;
        return;
    }
    for (uint64_t i = 0; i <= o->seen.mask; i++)
        if (o->seen.e[i].block != EMPTY_KEY && o->seen.e[i].time)
            v[n++] = o->seen.e[i].time;
    qsort(v, n, sizeof *v, cmp_u32);
    for (uint64_t i = 0; i <= o->seen.mask; i++)
        if (o->seen.e[i].block != EMPTY_KEY && o->seen.e[i].time)
            o->seen.e[i].time = rank_of(v, n, o->seen.e[i].time);
    for (uint32_t k = 0; k < o->nstk; k++) {
        stack *s = &o->stk[k];
        if (s->kind == ST_DM) {
            for (uint64_t set = 0; set < s->sets; set++) {
                uint64_t *E = &s->dm1[set];
                if (*E)
                    *E = (uint64_t)rank_of(v, n, (uint32_t)(*E >> 16)) << 16 | (*E & 0xffff);
            }
        } else if (s->kind == ST_MRU) {
            for (uint64_t set = 0; set < s->sets; set++) {
                uint32_t *E = (uint32_t *)(s->rec + set * s->rec_bytes);
                for (uint32_t i = 0; i < s->depth && E[i]; i++)
                    E[i] = rank_of(v, n, E[i]);
            }
        } else if (s->kind == ST_LIST) {
            for (uint64_t set = 0; set < s->sets; set++) {
                uint8_t *R = s->rec + set * s->rec_bytes;
                uint32_t *tm = (uint32_t *)(R + s->off_time);
                uint32_t *F = ((list_head *)R)->front;
                uint32_t used = list_pack(s, R);
                for (uint32_t i = 0; i < used; i++)
                    tm[i] = rank_of(v, n, tm[i]);
                for (uint32_t i = 0; i < FRONT && F[i]; i++)
                    F[i] = rank_of(v, n, F[i]);
            }
        } else {
            fa_pack(s);
            for (uint32_t i = 0; i < s->next; i++)
                s->st[i] = rank_of(v, n, s->st[i]);
        }
    }
    o->clock = n;
    free(v);
}

void ct_onepass_set_clock_limit(ct_onepass *o, uint32_t limit)
{
    o->clock_limit = limit < 2 ? 2 : limit;
}

void ct_onepass_set_level_window(ct_onepass *o, uint32_t requests)
{
    o->lvl_window = requests ? requests : 1;
}

uint64_t ct_onepass_folded(const ct_onepass *o) { return o->folded; }

unsigned ct_onepass_threads(const ct_onepass *o) { return 1 + o->nhelp; }
unsigned ct_onepass_chains(const ct_onepass *o) { return o->nchain; }

int ct_onepass_point_sampled(const ct_onepass *o, size_t k)
{
    return o->stk[o->pt[k].stack].sampled != 0;
}

size_t ct_onepass_sampled_points(const ct_onepass *o)
{
    size_t n = 0;
    for (size_t i = 0; i < o->npt; i++)
        n += (size_t)ct_onepass_point_sampled(o, i);
    return n;
}

void ct_onepass_set_shortcuts(ct_onepass *o, int on)
{
    if (on)
        return;
    o->quick = 0;
    o->lvl_on = 0;
    o->folding = 0;
    for (uint32_t k = 0; k < o->nstk; k++)
        o->stk[k].linear = 0;
}

void ct_onepass_set_fold_classes(ct_onepass *o, uint32_t n)
{
    o->fold_ncls = n < 2 ? 2 : n > FOLD_NCLS ? FOLD_NCLS : n;
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
    if (cfg->flush_every)
        return "periodic flushes (flush_every)";
    if (cfg->timing == CT_TIMING_OVERLAP)
        return "timing = overlap (its cycles follow each miss's time, not only its count)";
    if (cfg->coherence != CT_COHERENCE_NONE && cfg->compat != CT_COMPAT_DRCACHESIM)
        return "coherence (sim/coherence.c)";
    if (ct_policy_at((size_t)k->replacement) != &ct_policy_lru)
        return "replacement is not lru";
    if (ct_prefetch_at((size_t)k->prefetcher) != &ct_prefetch_none)
        return "the level has a prefetcher";
    if (k->write_allocate != 1)
        return "the level does not allocate on every write miss";
    if (k->inclusion != CT_INCL_NONINCLUSIVE)
        return "the level is inclusive or exclusive";
    if (k->subblock && k->subblock < k->line)
        return "the level has sub-blocks";
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

/* Set up one stack for the capacities caps[0..n) (ways; lines when fa),
 * following `rate` of the requests (1: all). Returns 0, -1 out of memory,
 * -2 too many ways. */
static int stack_setup(stack *s, uint64_t sets, int fa, const uint32_t *caps, size_t n,
                       double rate, int sampled, int dirt)
{
    uint32_t *c = malloc(n * sizeof *c);
    size_t m = 0;

    if (!c)
        return -1;
    memcpy(c, caps, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_u32);
    for (size_t i = 0; i < n; i++)
        if (m == 0 || c[m - 1] != c[i])
            c[m++] = c[i];
    s->sets = sets;
    s->pow2 = (sets & (sets - 1)) == 0;
    s->smask = sets - 1;
    s->sampled = sampled;
    s->rate = sampled ? rate : 1.0;
    s->dirt = dirt;
    s->ncap = (uint32_t)m;
    s->cap = c;
    s->cap_lines = malloc(m * sizeof *s->cap_lines);
    if (!s->cap_lines)
        return -1;
    for (size_t i = 0; i < m; i++)
        s->cap_lines[i] = (uint64_t)c[i] * (fa ? 1 : sets);
    if (fa && sampled) /* SHARDS: distances in the sample shrink by the rate */
        for (size_t i = 0; i < m; i++) {
            double v = floor((double)c[i] * s->rate + 0.5);
            c[i] = v >= 1 ? (uint32_t)v : 1;
        }
    s->depth = c[m - 1];
    s->kind = fa ? ST_FA : s->depth == 1 ? ST_DM : s->depth <= MRU_MAX ? ST_MRU : ST_LIST;
    s->lt = malloc(((size_t)s->depth + 2) * sizeof *s->lt);
    s->ltc = malloc(((size_t)s->depth + 2) * sizeof *s->ltc);
    s->hist = calloc((size_t)NCLASS * (m + 1), sizeof *s->hist);
    s->caphist = calloc((size_t)NCLASS * (m + 1), sizeof *s->caphist);
    s->wb = calloc(m + 1, sizeof *s->wb);
    s->flush = calloc(m + 1, sizeof *s->flush);
    s->resident = calloc(m, sizeof *s->resident);
    if (!s->lt || !s->ltc || !s->hist || !s->caphist || !s->wb || !s->flush || !s->resident)
        return -1;
    if (sampled && !fa) {
        s->rep_acc = calloc(NREP, sizeof *s->rep_acc);
        s->rep_hist = calloc((size_t)NREP * (m + 1), sizeof *s->rep_hist);
        if (!s->rep_acc || !s->rep_hist)
            return -1;
    }
    for (uint32_t d = 0, b = 0; d <= s->depth + 1; d++) {
        while (b < m && c[b] < d)
            b++;
        s->lt[d] = b;
        s->ltc[d] = b * NCLASS;
    }
    if (s->kind == ST_FA) {
        s->W = 2 * (s->depth + 1);
        s->nw = (s->W + 63) / 64;
        s->st = calloc(s->W, sizeof *s->st);
        s->sdm = calloc(s->W, sizeof *s->sdm);
        s->fbits = calloc(s->nw, sizeof *s->fbits);
        s->fen = calloc((size_t)s->nw + 1, sizeof *s->fen);
        if (!s->st || !s->sdm || !s->fbits || !s->fen)
            return -1;
    } else if (s->kind == ST_DM) {
        s->rec_bytes = sizeof *s->dm1;
        s->rec = calloc(sets, sizeof *s->dm1);
        if (!s->rec)
            return -1;
        s->dm1 = (uint64_t *)s->rec;
    } else if (s->kind == ST_MRU) {
        s->rec_bytes = (size_t)s->depth * (dirt ? 6 : 4);
        while (64 % s->rec_bytes)   /* a record never straddles a cache line */
            s->rec_bytes++;
        if (sets > (SIZE_MAX - 64) / s->rec_bytes)
            return -1;
        s->rec = aligned_alloc(64, (sets * s->rec_bytes + 63) & ~(size_t)63);
        if (!s->rec)
            return -1;
        memset(s->rec, 0, sets * s->rec_bytes);
    } else {
        if (s->depth >= DM_INF)
            return -2;
        s->nslot = 2 * s->depth;
        s->mw = (s->nslot + 63) / 64;
        s->off_time = sizeof(list_head) + (size_t)s->mw * 8;
        s->off_dm = s->off_time + (size_t)s->nslot * 4;
        s->rec_bytes = (s->off_dm + (dirt ? (size_t)s->nslot * 2 : 0) + 63) & ~(size_t)63;
        if (sets > SIZE_MAX / s->rec_bytes)
            return -1;
        s->rec = aligned_alloc(64, sets * s->rec_bytes);
        if (!s->rec)
            return -1;
        memset(s->rec, 0, sets * s->rec_bytes);
    }
    return 0;
}

/* The odd factor of a set count. */
static uint64_t odd_part(uint64_t sets) { return sets >> __builtin_ctzll(sets); }

/* The levels (none with the 3C split of a sampled pass): the set counts of
 * the set stacks in chains, each of the counts m x 2^k of one odd m (the
 * powers of two first), fewest sets first; up to NCHAIN chains (the
 * smallest odd factors), the stacks of others take every request. A
 * sampled stack whose set count is not a power of two has no level (its
 * sets are sampled by a hash of its own). Returns 0, or -1 out of memory. */
static int levels_setup(ct_onepass *o)
{
    uint32_t idx[MAX_STACKS], n = 0;

    for (uint32_t k = 0; k < o->nstk; k++)
        o->stk[k].lvl = NO_LEVEL;
    o->lvl_window = LEVEL_WINDOW;
    o->ch_pow2 = -1;
    if (!o->quick)
        return 0;
    for (uint32_t k = 0; k < o->nstk; k++)
        o->stk[k].linear = o->stk[k].kind == ST_FA && !o->stk[k].sampled;
    /* the set stacks that may have a level, by odd factor, then sets */
    for (uint32_t k = o->dm_lo; k < o->nstk; k++) {
        const stack *s = &o->stk[k];
        uint32_t at;
        if (s->kind == ST_FA || (s->sampled && !s->pow2))
            continue;
        for (at = n++; at > 0; at--) {
            const stack *b = &o->stk[idx[at - 1]];
            if (odd_part(b->sets) < odd_part(s->sets) ||
                (odd_part(b->sets) == odd_part(s->sets) && b->sets < s->sets))
                break;
            idx[at] = idx[at - 1];
        }
        idx[at] = k;
    }
    for (uint32_t x = 0; x < n; x++) {
        stack *f = &o->stk[idx[x]];
        const uint32_t c = o->nchain ? o->nchain - 1 : 0;
        if (!o->nchain || odd_part(f->sets) != odd_part(o->lvl_sets[o->ch_lo[c]])) {
            if (o->nchain == NCHAIN)
                break;          /* no chain left: the others take every request */
            o->ch_lo[o->nchain] = o->ch_hi[o->nchain] = o->nlvl;
            if (odd_part(f->sets) == 1)
                o->ch_pow2 = (int)o->nchain;
            o->nchain++;
        }
        f->lvl = o->nlvl;
        f->chain = o->nchain - 1;
        o->lvl_mask[o->nlvl] = f->smask;
        o->lvl_sets[o->nlvl] = f->sets;
        o->lvl_last[o->nlvl] = malloc(f->sets * sizeof *o->lvl_last[0]);
        if (!o->lvl_last[o->nlvl])
            return -1;
        o->ch_hi[f->chain] = ++o->nlvl;
    }
    levels_forget(o);
    o->lvl_on = o->nlvl > 0;
    return 0;
}

/* Pairs are folded when some stack is exact (folds go to those only) and
 * the fully-associative stack is two lines deep or more; not where the two
 * blocks share a set of a direct-mapped stack. With the 3C split, not in a
 * sampled pass, nor when some cache has one line: a request of a fold is
 * at fully-associative depth 2, so only a one-line cache could count it a
 * capacity miss. */
static void pairs_setup(ct_onepass *o)
{
    o->folding = o->quick && o->exact != 0;
    o->fold_ncls = FOLD_NCLS;
    memset(o->fslot, NO_SLOT, sizeof o->fslot);
    o->fold_zmax = 64;
    o->alt[0] = o->alt[1] = EMPTY_KEY;
    for (uint32_t k = 0; k < o->nstk; k++) {
        const stack *s = &o->stk[k];
        if (s->kind == ST_FA && s->depth < 2)
            o->folding = 0;
        else if (o->classes && s->cap_lines[0] < 2)
            o->folding = 0;     /* a fold adds no 3C capacity miss (one-line caches would) */
        else if (s->kind != ST_FA && s->depth < 2 && !s->pow2)
            o->shallow[o->nshallow++] = k;
        else if (s->kind != ST_FA && s->depth < 2 &&
                 (uint32_t)__builtin_ctzll(s->sets) < o->fold_zmax)
            o->fold_zmax = (uint32_t)__builtin_ctzll(s->sets);
    }
}

static size_t find_level(const ct_sim *sim, const char *section)
{
    for (size_t i = 0; i < ct_sim_nlevels(sim); i++)
        if (strcmp(ct_sim_level_info(sim, i)->name, section) == 0)
            return i;
    return SIZE_MAX;
}

/* Deal the stacks to the caller (0) and `helpers` threads, heaviest first
 * onto the least loaded. Weights follow the instruction counts per request
 * of each kind of stack, and the caller starts with FRONT_WEIGHT for the
 * levels above and the table (the two weights of the caller and the
 * fully-associative stack balance the threads' CPU times within about 15 %
 * on a random and a real trace, l1d-size-assoc.ini). With the 3C split the
 * fully-associative stacks are the caller's (it runs them right after the
 * table pass). Which thread runs a stack changes no figure. */
static void deal_stacks(ct_onepass *o, uint32_t helpers)
{
    double load[MAX_HELPERS + 1] = {0};
    uint8_t placed[MAX_STACKS] = {0};

    load[0] = FRONT_WEIGHT;
    for (uint32_t k = 0; k < o->nstk; k++) {
        o->owner[k] = 0;
        placed[k] = o->fa_first && o->stk[k].kind == ST_FA;
    }
    for (;;) {
        uint32_t big = UINT32_MAX, least = 0;
        double wbig = -1;
        for (uint32_t k = 0; k < o->nstk; k++) {
            const stack *s = &o->stk[k];
            /* (s->rate: the share of the requests it follows) */
            const double w = s->rate * (s->kind == ST_FA ? FA_WEIGHT
                                        : s->kind == ST_DM ? 1.5
                                        : 1.0 + log2((double)s->depth + 1) / 2);
            if (!placed[k] && w > wbig) {
                wbig = w;
                big = k;
            }
        }
        if (big == UINT32_MAX)
            break;
        for (uint32_t t = 1; t <= helpers; t++)
            if (load[t] < load[least])
                least = t;
        placed[big] = 1;
        o->owner[big] = least;
        load[least] += wbig;
    }
}

/* Stop the first n helper threads (each runs what it was handed first). */
static void stop_helpers(ct_onepass *o, uint32_t n)
{
    ct_ring_stop(o->ring);
    for (uint32_t t = 0; t < n; t++)
        pthread_join(o->th[t], NULL);
}

/* Start the helper threads (none when it fails: the caller runs every stack). */
static void start_helpers(ct_onepass *o, uint32_t helpers)
{
    helper_arg *args;
    uint32_t started = 0;
    uint64_t seq;

    if (helpers == 0 || o->nstk < 2 || (o->classes && o->sampled))
        return;                  /* 3C, sampled: every fa stack writes depths */
    o->fa_first = o->classes && o->fa >= 0;
    if (helpers > MAX_HELPERS)
        helpers = MAX_HELPERS;
    o->th = calloc(helpers, sizeof *o->th);
    args = calloc(helpers, sizeof *args);
    o->arg = args;
    if (!o->th || !args || ct_ring_create(&o->ring, o->nrb, helpers) != CT_OK)
        return;
    (void)ct_ring_claim(o->ring, &seq); /* the first batch: a free slot */
    o->nhelp = helpers;          /* the helpers read it */
    deal_stacks(o, helpers);
    for (; started < helpers; started++) {
        args[started].o = o;
        args[started].id = started + 1;
        if (pthread_create(&o->th[started], NULL, helper_main, &args[started]) != 0)
            break;
    }
    if (started < helpers) {     /* run alone: stop those started */
        stop_helpers(o, started);
        ct_ring_free(o->ring);
        o->ring = NULL;
        o->nhelp = 0;
        deal_stacks(o, 0);
    }
}

static int no_memory(ct_error *err)
{
    return ct_error_set(err, CT_E_NOMEM, "one-pass analysis: out of memory");
}

/* The fully-associative stack, which also serves the 3C split; when
 * sampled, replicas for the caches of FA_MIN_SAMPLED sampled lines or
 * more, and an exact stack (found by search) for the smaller ones. caps
 * has room for n + 1 capacities. */
static int setup_fa_stacks(ct_onepass *o, const ct_op_point *points, size_t n,
                           uint64_t max_lines, uint32_t *caps, ct_error *err)
{
    size_t m = 0, small = 0;
    const double r = o->rate / NREP;

    for (size_t i = 0; i < n; i++)
        if (points[i].sets == 1)
            caps[m++] = points[i].ways;
    if (o->classes && max_lines > 0)
        caps[m++] = (uint32_t)max_lines;
    if (o->sampled) {  /* the small ones first */
        for (size_t i = 0; i < m; i++)
            if ((double)caps[i] * r < FA_MIN_SAMPLED) {
                uint32_t t = caps[small];
                caps[small++] = caps[i];
                caps[i] = t;
            }
    } else {
        small = m;
    }
    if (m > 0)
        o->fa = 0;
    if (small > 0) {
        stack *s = &o->stk[o->nstk++];
        if (stack_setup(s, 1, 1, caps, small, 1.0, 0, o->write_back) != 0)
            return no_memory(err);
        o->nfa++;
    }
    for (uint32_t k = 0; m > small && k < NREP; k++) {
        if (stack_setup(&o->stk[o->nstk++], 1, 1, caps + small, m - small, r, 1,
                        o->write_back) != 0)
            return no_memory(err);
        o->nfa++;
    }
    return CT_OK;
}

/* One stack per other set count (setc, fewest sets first); a sampled one
 * needs 64 / R sets. */
static int setup_set_stacks(ct_onepass *o, const ct_op_point *points, size_t n,
                            const uint64_t *setc, size_t nsetc, uint32_t *caps, uint64_t seed,
                            ct_error *err)
{
    for (size_t k = 0; k < nsetc; k++) {
        size_t m = 0;
        stack *s = &o->stk[o->nstk];
        int sampled = o->sampled && (double)setc[k] * o->rate >= 64;
        int src;
        for (size_t i = 0; i < n; i++)
            if (points[i].sets == setc[k])
                caps[m++] = points[i].ways;
        src = stack_setup(s, setc[k], 0, caps, m, o->rate, sampled, o->write_back);
        o->nstk++;
        if (src == -2)
            return ct_error_set(err, CT_E_INTERNAL, "one-pass: too many ways");
        if (src != 0)
            return no_memory(err);
        if (sampled && !s->pow2)
            s->salt = mix64(seed ^ (setc[k] * 0x9e3779b97f4a7c15ull));
    }
    return CT_OK;
}

/* The masks of the stacks by kind: exact, sampled with a power-of-two set
 * count (and the fewest sets among those), sampled otherwise. */
static void mark_stacks(ct_onepass *o)
{
    uint64_t s0 = 0;

    for (uint32_t k = 0; k < o->nstk; k++) {
        const stack *s = &o->stk[k];
        if (s->kind == ST_FA)
            continue;
        if (!s->sampled) {
            o->exact |= 1ull << k;
        } else if (s->pow2) {
            o->pow2_sampled |= 1ull << k;
            if (s0 == 0 || s->sets < s0)
                s0 = s->sets;
        } else {
            o->other_sampled |= 1ull << k;
        }
    }
    o->s0_mask = s0 ? s0 - 1 : 0;
    if (o->fa >= 0 && !o->stk[0].sampled)
        o->exact |= 1;
}

/* Each point's stack and capacity in it, and its interval statistics. 0,
 * or -1 out of memory. */
static int bind_points(ct_onepass *o)
{
    for (size_t i = 0; i < o->npt; i++) {
        op_pt *p = &o->pt[i];
        for (uint32_t k = 0; k < o->nstk && !p->nstack; k++) {
            stack *s = &o->stk[k];
            if (s->sets != p->p.sets)
                continue;
            for (uint32_t c = 0; c < s->ncap; c++)
                if (s->cap_lines[c] == p->p.sets * p->p.ways) {
                    p->stack = k;
                    p->cap = c;
                    p->nstack = s->sampled && s->kind == ST_FA ? NREP : 1;
                }
        }
        p->iv = calloc(ct_sim_nlevels(o->sim), sizeof *p->iv);
        if (!p->iv)
            return -1;
        for (size_t l = 0; l < ct_sim_nlevels(o->sim); l++)
            if (ct_ivstat_init(&p->iv[l]) != 0)
                return -1;
    }
    return 0;
}

int ct_onepass_create(ct_onepass **out, const ct_config *cfg, const char *section,
                      const ct_op_point *points, size_t n, double sample, uint64_t seed,
                      unsigned helpers, ct_error *err)
{
    ct_onepass *o;
    uint64_t max_lines = 0, *setc = NULL;
    uint32_t *caps = NULL;
    size_t nsetc = 0;
    int lv = level_of(section);
    int rc;

    *out = NULL;
    for (size_t i = 0; i < n; i++)
        if (points[i].sets == 0 || points[i].ways == 0)
            return ct_error_set(err, CT_E_USAGE, "one-pass: point %zu has no sets or no ways", i);
    o = calloc(1, sizeof *o);
    if (!o)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    o->fa = -1;
    o->last_block = EMPTY_KEY;
    o->clock_limit = CLOCK_LIMIT;
    o->sampled = sample > 0 && sample < 1;
    o->rate = o->sampled ? sample : 1.0;
    o->thr24 = (uint64_t)(o->rate * 16777216.0);
    o->seed_set = mix64(seed ^ 0x243f6a8885a308d3ull);
    o->seed_fa = mix64(seed ^ 0x13198a2e03707344ull);
    if ((rc = ct_sim_create(&o->sim, cfg, err)) != CT_OK)
        goto fail;
    o->li = find_level(o->sim, section);
    if (o->li == SIZE_MAX || lv < 0) {
        rc = ct_error_set(err, CT_E_INTERNAL, "one-pass: no level [%s]", section);
        goto fail;
    }
    ct_sim_tap(o->sim, o->li, tap, tap_run, o);
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
    caps = malloc((n + 1) * sizeof *caps);
    setc = malloc((n + 1) * sizeof *setc);
    o->stk = calloc(MAX_STACKS, sizeof *o->stk);
    if (!o->pt || !caps || !setc || !o->stk)
        goto oom;
    o->npt = n;
    for (size_t i = 0; i < n; i++) {
        uint64_t lines = points[i].sets * points[i].ways;
        size_t k;
        o->pt[i].p = points[i];
        if (lines > max_lines)
            max_lines = lines;
        for (k = 0; k < nsetc && setc[k] != points[i].sets; k++)
            ;
        if (k == nsetc && points[i].sets != 1)
            setc[nsetc++] = points[i].sets;
    }
    /* fewest sets first: the levels then ascend with the stacks (run_stacks) */
    qsort(setc, nsetc, sizeof *setc, cmp_u64);
    if (nsetc + (o->sampled ? NREP : 1) > MAX_STACKS) {
        rc = ct_error_set(err, CT_E_INTERNAL, "one-pass: more than %d set counts",
                          MAX_STACKS - NREP);
        goto fail;
    }
    if ((rc = setup_fa_stacks(o, points, n, max_lines, caps, err)) != CT_OK ||
        (rc = setup_set_stacks(o, points, n, setc, nsetc, caps, seed, err)) != CT_OK)
        goto fail;
    o->dm_lo = o->nfa;
    mark_stacks(o);
    o->quick = !(o->classes && o->sampled);
    if (levels_setup(o) != 0)
        goto oom;
    pairs_setup(o);
    if (bind_points(o) != 0)
        goto oom;
    o->nrb = helpers ? RING : 1;
    o->batch = helpers ? BATCH_HELPED : BATCH;
    o->rb = calloc(o->nrb, sizeof *o->rb);
    o->owner = calloc(o->nstk + 1, sizeof *o->owner);
    if (!o->rb || !o->owner)
        goto oom;
    o->cur = &o->rb[0];
    start_helpers(o, helpers);
    free(caps);
    free(setc);
    *out = o;
    return CT_OK;
oom:
    rc = ct_error_set(err, CT_E_NOMEM, "one-pass analysis: out of memory");
fail:
    free(caps);
    free(setc);
    ct_onepass_free(o);
    return rc;
}

void ct_onepass_free(ct_onepass *o)
{
    if (!o)
        return;
    if (o->nhelp)
        stop_helpers(o, o->nhelp);
    ct_ring_free(o->ring);
    free(o->th);
    free(o->arg);
    free(o->rb);
    free(o->owner);
    for (uint32_t i = 0; o->stk && i < o->nstk; i++)
        stack_free(&o->stk[i]);
    free(o->stk);
    for (size_t i = 0; o->pt && i < o->npt; i++) {
        if (!o->pt[i].iv)
            continue;
        for (size_t l = 0; o->sim && l < ct_sim_nlevels(o->sim); l++)
            ct_ivstat_free(&o->pt[i].iv[l]);
        free(o->pt[i].iv);
    }
    free(o->pt);
    for (uint32_t l = 0; l < o->nlvl; l++)
        free(o->lvl_last[l]);
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

/* Misses (requests it saw) of capacity c of one stack, for class cls. */
static uint64_t stack_misses(const stack *s, uint32_t c, int cls)
{
    uint64_t m = 0;
    for (uint32_t b = c + 1; b <= s->ncap; b++)
        m += HIST(s->hist, b, cls);
    return m;
}

static uint64_t stack_seen(const stack *s, int cls)
{
    uint64_t n = 0;
    for (uint32_t b = 0; b <= s->ncap; b++)
        n += HIST(s->hist, b, cls);
    return n;
}

/* Estimated misses of point p by class (exact when not sampled). */
static double est_misses(const ct_onepass *o, const op_pt *p, int cls)
{
    uint64_t m = 0, seen = 0;
    for (uint32_t k = p->stack; k < p->stack + p->nstack; k++) {
        m += stack_misses(&o->stk[k], p->cap, cls);
        seen += stack_seen(&o->stk[k], cls);
    }
    if (!o->stk[p->stack].sampled)
        return (double)m;
    return seen ? (double)m * (double)o->acc[cls] / (double)seen : 0.0;
}

void ct_onepass_interval(ct_onepass *o)
{
    settle(o);
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
    settle(o);
    for (uint32_t k = 0; k < o->nstk; k++) {
        stack *s = &o->stk[k];
        for (int c = 0; c < NCLASS; c++) {
            if (o->exact >> k & 1)  /* depth 1: no capacity missed */
                HIST(s->hist, 0, c) += o->repeats[c];
            for (uint32_t l = o->ch_lo[s->chain];
                 !s->sampled && s->lvl != NO_LEVEL && l <= s->lvl; l++)
                HIST(s->hist, 0, c) += o->skipped[l][c];
        }
        if (s->kind == ST_FA) {
            uint32_t d = 0;
            for (uint32_t w = s->nw; w-- > 0;)
                for (uint64_t bits = s->fbits[w]; bits;) {
                    uint32_t b = 63 - (uint32_t)__builtin_clzll(bits);
                    end_entry(s, o->flush, s->sdm[w * 64 + b], ++d);
                    bits &= ~(1ull << b);
                }
            for (uint32_t c = 0; c < s->ncap; c++)
                s->resident[c] = s->live < s->cap[c] ? s->live : s->cap[c];
            continue;
        }
        for (uint64_t set = 0; set < s->sets; set++) {
            uint32_t live = 0;
            if (s->kind == ST_DM) {
                if (s->dm1[set]) {
                    end_entry(s, o->flush, dm_of16((uint32_t)(s->dm1[set] & 0xffff)), 1);
                    live = 1;
                }
            } else if (s->kind == ST_MRU) {
                const uint8_t *R = s->rec + set * s->rec_bytes;
                const uint32_t *E = (const uint32_t *)R;
                const uint16_t *dm = (const uint16_t *)(R + 4 * (size_t)s->depth);
                for (; live < s->depth && E[live]; live++)
                    end_entry(s, o->flush, s->dirt ? dm_of16(dm[live]) : INF, live + 1);
            } else {
                const uint8_t *R = s->rec + set * s->rec_bytes;
                const list_head *h = (const list_head *)R;
                const uint64_t *bits = (const uint64_t *)(R + sizeof(list_head));
                const uint16_t *dm = (const uint16_t *)(R + s->off_dm);
                for (; live < FRONT && h->front[live]; live++)
                    end_entry(s, o->flush, s->dirt ? dm_of16(h->fdm[live]) : INF, live + 1);
                for (uint32_t w = s->mw; w-- > 0;)
                    for (uint64_t x = bits[w]; x;) {
                        uint32_t b = 63 - (uint32_t)__builtin_clzll(x);
                        end_entry(s, o->flush, s->dirt ? dm_of16(dm[w * 64 + b]) : INF, ++live);
                        x &= ~(1ull << b);
                    }
            }
            for (uint32_t c = 0; c < s->ncap; c++)
                s->resident[c] += live < s->cap[c] ? live : s->cap[c];
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

/* Standard error of the miss rate of point p from its replicas. */
static double replica_error(const ct_onepass *o, const op_pt *p)
{
    const stack *s = &o->stk[p->stack];
    double r[NREP], mean = 0, var = 0;
    int n = 0;

    for (uint32_t g = 0; g < NREP; g++) {
        uint64_t m = 0, acc = 0;
        if (s->kind == ST_FA) {
            const stack *f = &o->stk[p->stack + g];
            if (g >= p->nstack)
                break;
            for (int c = 0; c < NCLASS; c++) {
                m += stack_misses(f, p->cap, c);
                acc += stack_seen(f, c);
            }
        } else {
            acc = s->rep_acc[g];
            for (uint32_t b = p->cap + 1; b <= s->ncap; b++)
                m += s->rep_hist[(size_t)g * (s->ncap + 1) + b];
        }
        if (acc)
            r[n++] = (double)m / (double)acc;
    }
    for (int i = 0; i < n; i++)
        mean += r[i] / n;
    for (int i = 0; i < n; i++)
        var += (r[i] - mean) * (r[i] - mean);
    return n > 1 ? sqrt(var / (n - 1)) / sqrt((double)n) : 0.0;
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
    uint64_t misses_all = 0, wb = 0, fl = 0, sampled = 0, total = 0;

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
        int kind, charge, full;
        uint64_t acc = o->acc[c], miss, hit, capm = 0;
        cls_split(c, &kind, &charge, &full);
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
                capm += HIST(s->caphist, b, c);
            L->kind[kind].compulsory += o->comp[c];
            L->kind[kind].capacity += capm;
            L->kind[kind].conflict += miss - o->comp[c] - capm;
        }
        if (charge >= 0) {
            uint64_t cyc = hit * p->p.latency +
                           miss * (full ? p->p.latency : o->mem_latency);
            tot->cycles += cyc;
            tot->kind_cycles[charge] += cyc;
        }
        if (!full) {
            tot->mem_reads += miss;
            L->bytes_from_below += miss * o->line;
        }
    }
    /* hits follow from accesses (counted by the tapped level) and misses */
    for (int kd = 0; kd < CT_KIND_COUNT; kd++)
        L->kind[kd].hits = L->kind[kd].accesses - L->kind[kd].misses;
    for (int c = 0; c < NCLASS; c++)
        total += o->acc[c];
    for (uint32_t g = p->stack; g < p->stack + p->nstack; g++) {
        const stack *f = &o->stk[g];
        for (int c = 0; c < NCLASS; c++)
            sampled += stack_seen(f, c);
        wb += diff_at(f->wb, p->cap);
        fl += diff_at(f->flush, p->cap);
    }
    if (s->sampled && sampled)
        scale = (double)total / (double)sampled;
    wb = (uint64_t)llround((double)wb * scale);
    fl = (uint64_t)llround((double)fl * scale);
    if (o->write_back) {
        L->writebacks = wb + fl;
        L->bytes_to_below += (wb + fl) * o->line;
        tot->mem_writes += wb + fl;
    } else {
        L->bytes_to_below += o->write_bytes;
        tot->mem_writes += o->writes;
    }
    {
        uint64_t res = s->resident[p->cap];
        if (s->sampled)  /* a sampled fully-associative cache is full */
            res = s->kind == ST_FA ? p->p.ways : (uint64_t)llround((double)res / s->rate);
        L->evictions = misses_all > res ? misses_all - res : 0;
    }
    if (s->sampled)
        rate_err[o->li] = replica_error(o, p);
}
