/*
 * test_paths.c - the access paths specialised for a configuration (the LRU
 * fast path and the lines it remembers, plain levels, the copies for 8 and
 * 16 ways, with and without events; sim/hier.c) give
 * exactly what the general rules give: every counter of every level, the
 * totals and the event stream, on seeded random hierarchies and traces
 * (ct_sim_force_general is the reference).
 */
#include "harness.h"
#include "cachet/cachet.h"
#include "sim/hier_internal.h"

/* xorshift64*: the test's own generator, fixed seed */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}
static uint64_t pick(uint64_t n) { return rnd() % n; }

typedef struct evlog {
    ct_event *ev;
    size_t *lvl;
    size_t n, cap;
} evlog;

static void record(void *ctx, const ct_event *ev, size_t level)
{
    evlog *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->ev = realloc(l->ev, l->cap * sizeof *l->ev);
        l->lvl = realloc(l->lvl, l->cap * sizeof *l->lvl);
        if (!l->ev || !l->lvl)
            exit(2);
    }
    l->ev[l->n] = *ev;
    l->lvl[l->n++] = level;
}

/* A random hierarchy as "section.key=value" settings; most levels LRU,
 * write-back, write-allocate and non-inclusive, as the fast paths need,
 * with everything else mixed in. */
static int random_config(char kv[][64], int shape)
{
    static const char *const secs[] = {"l1i", "l1d", "l2", "l3"};
    static const unsigned ways[] = {1, 2, 4, 8, 8, 8, 16, 16, 16, 12, 32};
    static const unsigned lines[] = {32, 64, 64, 64, 128};
    static const char *const pols[] = {"plru", "fifo", "random", "srrip", "lfu"};
    int n = 0;
    unsigned line = lines[pick(5)];

    snprintf(kv[n++], 64, "system.cores=%u", shape == 0 ? 1 : 1 + (unsigned)pick(2));
    snprintf(kv[n++], 64, "memory.latency=%u", 50 + (unsigned)pick(100));
    for (int l = 0; l < 4; l++) {
        unsigned w = ways[pick(sizeof ways / sizeof ways[0])];
        unsigned sets = 1u << pick(4);
        if ((l == 0 || l >= 2) && pick(4) == 0)
            continue; /* absent: fetches or misses go to the next level down */
        if (pick(3) == 0)
            sets = 3 + (unsigned)pick(3); /* not a power of two */
        if (pick(6) == 0 && shape != 0)
            line = lines[pick(5)];
        snprintf(kv[n++], 64, "%s.size=%u", secs[l], sets * w * line);
        snprintf(kv[n++], 64, "%s.assoc=%u", secs[l], w);
        snprintf(kv[n++], 64, "%s.line=%u", secs[l], line);
        snprintf(kv[n++], 64, "%s.latency=%u", secs[l], 1 + l * 5 + (unsigned)pick(4));
        if (shape == 0)
            continue;   /* every level plain */
        if (pick(8) == 0)
            snprintf(kv[n++], 64, "%s.replacement=%s", secs[l], pols[pick(5)]);
        if (pick(8) == 0)
            snprintf(kv[n++], 64, "%s.write_back=no", secs[l]);
        if (pick(8) == 0)
            snprintf(kv[n++], 64, "%s.write_allocate=no", secs[l]);
        if (l >= 2 && pick(6) == 0)
            snprintf(kv[n++], 64, "%s.inclusion=%s", secs[l], pick(2) ? "inclusive" : "exclusive");
        if (l >= 2 && pick(3) == 0)
            snprintf(kv[n++], 64, "%s.shared=no", secs[l]);
        if (pick(12) == 0)
            snprintf(kv[n++], 64, "%s.prefetcher=nextline", secs[l]);
    }
    if (shape != 0 && pick(8) == 0)
        snprintf(kv[n++], 64, "system.miss_classes=yes");
    return n;
}

static ct_sim *make(char kv[][64], int n, int general, evlog *log)
{
    const char *v[64];
    ct_config *c = NULL;
    ct_sim *s = NULL;
    ct_error err = {0};

    for (int i = 0; i < n; i++)
        v[i] = kv[i];
    if (ct_config_new_empty(&c, &err) != CT_OK || ct_config_set_all(c, v, (size_t)n, &err) != CT_OK) {
        ct_config_free(c);
        return NULL;
    }
    if (ct_sim_create(&s, c, &err) != CT_OK)
        s = NULL;
    ct_config_free(c);
    if (s && general)
        ct_sim_force_general(s);
    if (s && log)
        ct_sim_set_event_sink(s, record, log);
    return s;
}

/* A random trace over a small footprint, so that everything hits, misses,
 * evicts and writes back; shape 0 only fetches, loads and stores. */
static void random_trace(ct_batch *b, int shape, uint32_t cores)
{
    const uint64_t footprint = 1024 + pick(8192);
    for (uint32_t i = 0; i < b->cap; i++) {
        ct_access *a = &b->acc[i];
        const uint64_t r = pick(100);
        memset(a, 0, sizeof *a);
        a->vaddr = pick(footprint) & ~(uint64_t)(pick(3) ? 7 : 0);
        if (pick(64) == 0)
            a->vaddr |= 0x10000; /* elsewhere */
        a->size = pick(20) ? 1u << pick(4) : 1 + (uint32_t)pick(300);
        a->core = (uint16_t)pick(cores);
        a->time = i;
        a->pc = 0x400000 + 4 * pick(64);
        a->kind = r < 30 ? CT_IFETCH : r < 65 ? CT_LOAD : CT_STORE;
        if (pick(10) == 0)
            a->flags |= CT_F_NS;
        if (shape == 0)
            continue;
        if (r >= 90) {
            static const uint8_t kinds[] = {CT_PREFETCH, CT_CACHEOP, CT_ATOMIC, CT_NOFETCH};
            a->kind = kinds[pick(4)];
            if (a->kind == CT_CACHEOP) {
                a->op = (uint8_t)(1 + pick(5));
                a->size = 1 + (uint32_t)pick(256);
                if (pick(20) == 0)
                    a->op |= CT_OP_ALL;
                if (pick(6) == 0)
                    a->op |= CT_OP_ISIDE;
            }
            if (a->kind == CT_PREFETCH && pick(3) == 0)
                a->op = CT_PF_INSTR;
        }
    }
    b->n = b->cap;
}

static int same(const ct_sim *x, const ct_sim *y)
{
    if (ct_sim_nlevels(x) != ct_sim_nlevels(y))
        return 0;
    for (size_t i = 0; i < ct_sim_nlevels(x); i++)
        if (memcmp(ct_sim_level_stats(x, i), ct_sim_level_stats(y, i), sizeof(ct_level_stats)))
            return 0;
    return memcmp(ct_sim_get_totals(x), ct_sim_get_totals(y), sizeof(ct_sim_totals)) == 0;
}

static int same_events(const evlog *x, const evlog *y)
{
    if (x->n != y->n)
        return 0;
    for (size_t i = 0; i < x->n; i++)
        if (x->lvl[i] != y->lvl[i] || memcmp(&x->ev[i], &y->ev[i], sizeof x->ev[i]))
            return 0;
    return 1;
}

/* n hierarchies of the given shape, each with its own trace, run in batches
 * by both paths (and by ct_sim_access one at a time, for the first). */
static void compare(int shape, int n, int *fast_seen)
{
    ct_batch b = {0};
    if (ct_batch_init(&b, 3000) != CT_OK)
        exit(2);
    for (int k = 0; k < n; k++) {
        char kv[64][64];
        const int nkv = random_config(kv, shape);
        evlog la = {0}, lb = {0};
        ct_sim *fast = make(kv, nkv, 0, NULL), *gen = make(kv, nkv, 1, NULL);
        ct_sim *fast_ev = make(kv, nkv, 0, &la), *gen_ev = make(kv, nkv, 1, &lb);
        ct_error err = {0};
        uint32_t cores;
        int ok;

        if (!fast) { /* a combination the configuration refuses */
            CHECK(!gen);
            ct_sim_free(gen);
            ct_sim_free(fast_ev);
            ct_sim_free(gen_ev);
            k--;
            continue;
        }
        cores = fast->cores;
        for (size_t i = 0; i < fast->nlv; i++)
            *fast_seen += fast->lv[i].plain;
        for (int round = 0; round < 4; round++) {
            random_trace(&b, shape, cores);
            CHECK(ct_sim_run(fast, &b, &err) == CT_OK);
            CHECK(ct_sim_run(gen, &b, &err) == CT_OK);
            CHECK(ct_sim_run(fast_ev, &b, &err) == CT_OK);
            CHECK(ct_sim_run(gen_ev, &b, &err) == CT_OK);
        }
        ct_sim_finish(fast);
        ct_sim_finish(gen);
        ct_sim_finish(fast_ev);
        ct_sim_finish(gen_ev);
        ok = same(fast, gen) && same(fast_ev, gen_ev) && same(fast, fast_ev) &&
             same_events(&la, &lb);
        CHECK(ok);
        if (!ok) {
            fprintf(stderr, "  hierarchy %d of shape %d differs:", k, shape);
            for (int i = 0; i < nkv; i++)
                fprintf(stderr, " %s", kv[i]);
            fprintf(stderr, "\n");
        }
        CHECK(la.n > 0);
        free(la.ev); free(la.lvl); free(lb.ev); free(lb.lvl);
        ct_sim_free(fast);
        ct_sim_free(gen);
        ct_sim_free(fast_ev);
        ct_sim_free(gen_ev);
    }
    ct_batch_free(&b);
}

TEST(plain_hierarchies_match_the_general_rules)
{
    int plain = 0;
    compare(0, 60, &plain);
    CHECK(plain > 60); /* the fast path was taken */
}

TEST(mixed_hierarchies_match_the_general_rules)
{
    int plain = 0;
    compare(1, 200, &plain);
    CHECK(plain > 0);
}

/* One access at a time (ct_sim_access) and in batches agree too. */
TEST(single_accesses_match_batches)
{
    for (int k = 0; k < 20; k++) {
        char kv[64][64];
        const int nkv = random_config(kv, k & 1);
        ct_sim *x = make(kv, nkv, 0, NULL), *y = make(kv, nkv, 0, NULL);
        ct_batch b = {0};
        ct_error err = {0};
        if (!x) {
            ct_sim_free(y);
            k--;
            continue;
        }
        if (ct_batch_init(&b, 5000) != CT_OK)
            exit(2);
        random_trace(&b, k & 1, x->cores);
        CHECK(ct_sim_run(x, &b, &err) == CT_OK);
        for (uint32_t i = 0; i < b.n; i++)
            ct_sim_access(y, &b.acc[i]);
        CHECK(same(x, y));
        ct_batch_free(&b);
        ct_sim_free(x);
        ct_sim_free(y);
    }
}

/* A fetch loop over a few lines, data that takes turns between two arrays
 * and a third random one, with stores, and now and then an invalidation
 * of a hot line or of everything (so the lines the levels remember for
 * fetches and data go stale and their ways are filled again). */
static void turns_trace(ct_batch *b, uint64_t seed_round)
{
    const uint64_t code = 0x400000, arr_a = 0x100000, arr_b = 0x200000, arr_c = 0x300000;
    uint64_t pc = 0, i = 0, k = seed_round * 97;
    for (uint32_t n = 0; n < b->cap; n++) {
        ct_access *a = &b->acc[n];
        const uint64_t r = pick(1000);
        memset(a, 0, sizeof *a);
        a->time = n;
        a->size = 8;
        if (n % 2 == 0) {
            a->kind = CT_IFETCH;
            a->size = 4;
            a->vaddr = code + 4 * (pc++ % (8 + seed_round % 3 * 24));
        } else if (r < 4) {
            a->kind = CT_CACHEOP;
            a->op = pick(2) ? CT_OP_INVAL : CT_OP_CLEAN_INVAL;
            a->vaddr = pick(2) ? code : arr_a + 8 * (i % 512);
            a->size = 64;
            if (r == 0)
                a->op |= CT_OP_ALL;
        } else {
            const uint64_t which = pick(10);
            a->kind = pick(4) ? CT_LOAD : CT_STORE;
            a->vaddr = which < 4   ? arr_a + 8 * (i++ % 512)         /* a row */
                       : which < 8 ? arr_b + 8 * 64 * (k++ % 96)     /* a column */
                                   : arr_c + 8 * pick(4096);         /* anywhere */
            if (pick(50) == 0)
                a->flags |= CT_F_NS;
        }
    }
    b->n = b->cap;
}

/* Hierarchies without an L1I, so fetches and the L1D's misses take turns in
 * the level below it, run through the fast loop (the L1D of 8 ways above 16
 * among them, whose misses the loop takes inline), give what the general
 * rules give, with and without events. */
TEST(fetches_and_data_taking_turns_match_the_general_rules)
{
    static const char *const shapes[][6] = {
        {"l1d.size=4096", "l1d.assoc=8", "l2.size=16384", "l2.assoc=16", NULL},
        {"l1d.size=2048", "l1d.assoc=8", "l2.size=8192", "l2.assoc=16", "l3.size=65536"},
        {"l1d.size=4096", "l1d.assoc=16", "l2.size=16384", "l2.assoc=8", NULL},
        {"l1d.size=3072", "l1d.assoc=8", "l2.size=24576", "l2.assoc=16", NULL}, /* 6 sets */
        {"l1d.size=4096", "l1d.assoc=4", "l2.size=12288", "l2.assoc=12", NULL},
        {"l1d.size=4096", "l1d.assoc=8", NULL},       /* memory below */
        {"l2.size=16384", "l2.assoc=16", NULL},       /* no L1 at all */
    };
    ct_batch b = {0};
    int inline_path = 0;
    if (ct_batch_init(&b, 4000) != CT_OK)
        exit(2);
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        char kv[16][64];
        int n = 0;
        evlog la = {0}, lb = {0};
        ct_sim *fast, *gen;
        ct_error err = {0};
        snprintf(kv[n++], 64, "system.cores=1");
        for (int i = 0; i < 6 && shapes[k][i]; i++)
            snprintf(kv[n++], 64, "%s", shapes[k][i]);
        fast = make(kv, n, 0, NULL);
        gen = make(kv, n, 1, NULL);
        CHECK(fast != NULL && gen != NULL);
        if (!fast || !gen) {
            ct_sim_free(fast);
            ct_sim_free(gen);
            continue;
        }
        CHECK(fast->run != gen->run); /* the fast loop, not the general one */
        for (size_t i = 0; i < fast->nlv; i++)
            inline_path += fast->lv[i].plain && fast->lv[i].wsel == 8 && fast->lv[i].below &&
                           fast->lv[i].below->wsel == 16;
        for (int round = 0; round < 6; round++) {
            if (round == 2) { /* events from here on, in both */
                ct_sim_set_event_sink(fast, record, &la);
                ct_sim_set_event_sink(gen, record, &lb);
            }
            if (round == 5) {
                ct_sim_set_event_sink(fast, NULL, NULL);
                ct_sim_set_event_sink(gen, NULL, NULL);
            }
            turns_trace(&b, (uint64_t)round + k);
            CHECK(ct_sim_run(fast, &b, &err) == CT_OK);
            CHECK(ct_sim_run(gen, &b, &err) == CT_OK);
        }
        CHECK(same(fast, gen));
        CHECK(la.n > 0 && same_events(&la, &lb));
        if (!same(fast, gen) || !same_events(&la, &lb))
            fprintf(stderr, "  shape %zu differs\n", k);
        free(la.ev); free(la.lvl); free(lb.ev); free(lb.lvl);
        ct_sim_free(fast);
        ct_sim_free(gen);
    }
    CHECK(inline_path == 2); /* shapes 0 and 1 */
    ct_batch_free(&b);
}

/* An access the model refuses stops a batch at the same place in both
 * loops, the accesses before it counted. */
TEST(a_refused_access_stops_both_loops_alike)
{
    char kv[5][64] = {"l1d.size=4096", "l1d.assoc=8", "l2.size=16384", "l2.assoc=16",
                      "system.cores=1"};
    ct_sim *fast = make(kv, 5, 0, NULL), *gen = make(kv, 5, 1, NULL);
    ct_batch b = {0};
    ct_error ef = {0}, eg = {0};
    if (!fast || !gen || ct_batch_init(&b, 2000) != CT_OK)
        exit(2);
    turns_trace(&b, 1);
    b.acc[1501].flags |= CT_F_NOADDR;
    CHECK(ct_sim_run(fast, &b, &ef) == CT_E_UNSUPPORTED);
    CHECK(ct_sim_run(gen, &b, &eg) == CT_E_UNSUPPORTED);
    CHECK(same(fast, gen));
    CHECK(ct_sim_get_totals(fast)->accesses[CT_IFETCH] == 751); /* 0, 2, ..., 1500 */
    ct_batch_free(&b);
    ct_sim_free(fast);
    ct_sim_free(gen);
}

/* LRU as sim/policy/lru.c defines it, kept the plain way: a stamp per
 * line from a running clock, 0 when empty; the victim is the lowest empty
 * way, else the smallest stamp. */
typedef struct ref_lru {
    uint64_t *tag, *stamp, clock, sets;
    uint32_t ways;
} ref_lru;

static void ref_use(ref_lru *r, uint64_t block)
{
    const uint64_t set = block % r->sets, base = set * r->ways;
    uint64_t v = base;
    for (uint32_t w = 0; w < r->ways; w++)
        if (r->tag[base + w] == block) {
            r->stamp[base + w] = ++r->clock;
            return;
        }
    for (uint32_t w = 0; w < r->ways; w++)
        if (r->stamp[base + w] < r->stamp[v])
            v = base + w;
    r->tag[v] = block;
    r->stamp[v] = ++r->clock;
}

static void ref_drop(ref_lru *r, uint64_t block)
{
    const uint64_t base = block % r->sets * r->ways;
    for (uint32_t w = 0; w < r->ways; w++)
        if (r->tag[base + w] == block) {
            r->tag[base + w] = CT_TAG_INVALID;
            r->stamp[base + w] = 0;
        }
}

/* The cache's LRU (a recency order per set up to 16 ways, stamps beyond)
 * fills exactly the way the plain model fills, access after access, with
 * invalidations and allocations in between. */
TEST(lru_fills_the_ways_a_reference_model_fills)
{
    static const unsigned ways[] = {1, 2, 3, 4, 7, 8, 12, 15, 16, 17, 32};
    static const unsigned sets[] = {1, 2, 3, 4};
    int checked = 0, ok = 1;
    for (size_t wi = 0; wi < sizeof ways / sizeof ways[0]; wi++)
        for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++) {
            char kv[3][64];
            ct_sim *s;
            ref_lru r;
            const ct_cache *c;
            const uint64_t lines = (uint64_t)ways[wi] * sets[si];
            snprintf(kv[0], 64, "l1d.size=%llu", (unsigned long long)lines * 64);
            snprintf(kv[1], 64, "l1d.assoc=%u", ways[wi]);
            snprintf(kv[2], 64, "l1d.line=64");
            s = make(kv, 3, 0, NULL);
            if (!s) {
                CHECK(s != NULL);
                continue;
            }
            c = &s->lv[0].c;
            r.sets = sets[si];
            r.ways = ways[wi];
            r.clock = 0;
            r.tag = malloc(lines * sizeof *r.tag);
            r.stamp = calloc(lines, sizeof *r.stamp);
            for (uint64_t i = 0; i < lines; i++)
                r.tag[i] = CT_TAG_INVALID;
            for (int i = 0; i < 4000 && ok; i++) {
                const uint64_t block = pick(lines * 2 + 3), q = pick(20);
                ct_access a = {.vaddr = block * 64 + pick(60), .size = 4, .kind = CT_LOAD};
                if (q == 0) {          /* invalidate one line */
                    a.kind = CT_CACHEOP;
                    a.op = pick(2) ? CT_OP_INVAL : CT_OP_CLEAN_INVAL;
                    ref_drop(&r, block);
                } else if (q == 1) {   /* allocate one line */
                    a.kind = CT_CACHEOP;
                    a.op = CT_OP_ALLOC;
                    ref_use(&r, block);
                } else if (q == 2 && pick(10) == 0) { /* everything */
                    a.kind = CT_CACHEOP;
                    a.op = CT_OP_INVAL | CT_OP_ALL;
                    for (uint64_t j = 0; j < lines; j++) {
                        r.tag[j] = CT_TAG_INVALID;
                        r.stamp[j] = 0;
                    }
                } else {
                    a.kind = pick(3) ? CT_LOAD : CT_STORE;
                    ref_use(&r, block);
                }
                ct_sim_access(s, &a);
                int same = 1;
                for (uint64_t j = 0; j < lines; j++)
                    same &= ct_cache_tag(c, j) == r.tag[j];
                if (!same) {
                    fprintf(stderr, "  %u ways, %u sets: differs after access %d\n", ways[wi],
                            sets[si], i);
                    ok = 0;
                }
                checked++;
            }
            free(r.tag);
            free(r.stamp);
            ct_sim_free(s);
        }
    CHECK(ok);
    CHECK(checked > 40000);
}

int main(void)
{
    RUN(plain_hierarchies_match_the_general_rules);
    RUN(mixed_hierarchies_match_the_general_rules);
    RUN(single_accesses_match_batches);
    RUN(fetches_and_data_taking_turns_match_the_general_rules);
    RUN(a_refused_access_stops_both_loops_alike);
    RUN(lru_fills_the_ways_a_reference_model_fills);
    return harness_done();
}
