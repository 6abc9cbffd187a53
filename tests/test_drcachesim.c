/*
 * test_drcachesim.c - compat = drcachesim on tiny hierarchies whose state
 * can be followed by hand: line crossing, size-0 requests, the next-line
 * prefetcher and LRU order, compulsory and child hits, flushes, what the
 * mode refuses, and agreement with the core model's L1 counts.
 */
#include "cachet/cachet.h"
#include "harness.h"
#include "sim_sets.h"

static void acc(ct_sim *s, int kind, uint64_t addr, uint32_t size, uint8_t op)
{
    ct_access a;
    memset(&a, 0, sizeof a);
    a.kind = (uint8_t)kind;
    a.vaddr = addr;
    a.size = size;
    a.op = op;
    ct_sim_access(s, &a);
}

static const ct_kind_stats *ks(ct_sim *s, size_t level, int kind)
{
    return &ct_sim_level_stats(s, level)->kind[kind];
}

/* one core: level 0 = L1D, level 1 = L2 */
#define L1D_L2(l1size, l1assoc)                                                         \
    "system.compat=drcachesim", "l1d.assoc=" l1assoc, "l1d.size=" l1size, "l1d.line=64", \
        "l2.assoc=4", "l2.size=4K", "l2.line=64"

/* A request that would run past 2^64 ends at the top: lines 0x...ff80 and
 * 0x...ffc0, nothing at address 0. */
TEST(a_request_ends_at_the_top_of_the_address_space)
{
    ct_sim *s = make((const char *const[]){L1D_L2("256", "2"), NULL});
    CHECK(s != NULL);
    if (!s)
        return;
    acc(s, CT_LOAD, 0xffffffffffffffa0ull, 0x80, 0);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->accesses, 2);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 2);
    CHECK_EQ_U64(ct_sim_get_totals(s)->mem_reads, 2);
    acc(s, CT_LOAD, 0x0, 4, 0);   /* address 0 was not touched: a miss */
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 3);
    ct_sim_free(s);
}

TEST(line_crossing_requests_are_split_into_pieces)
{
    ct_sim *s = make((const char *const[]){L1D_L2("256", "2"), NULL});
    CHECK(s != NULL);
    if (!s)
        return;
    acc(s, CT_LOAD, 60, 8, 0);   /* bytes 60..67: lines 0 and 1 */
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->accesses, 2);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 2);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->compulsory, 2);
    CHECK_EQ_U64(ks(s, 1, CT_LOAD)->misses, 2);
    CHECK_EQ_U64(ct_sim_get_totals(s)->line_crossings, 1);
    CHECK_EQ_U64(ct_sim_get_totals(s)->mem_reads, 2);
    acc(s, CT_STORE, 64, 4, 0);  /* line 1 is there: a hit, no dirty state */
    CHECK_EQ_U64(ks(s, 0, CT_STORE)->hits, 1);
    CHECK_EQ_U64(ct_sim_level_stats(s, 0)->writebacks, 0);
    ct_sim_free(s);
}

TEST(size_zero_requests_count_only_inside_a_line)
{
    ct_sim *s = make((const char *const[]){L1D_L2("256", "2"), NULL});
    if (!s)
        return;
    acc(s, CT_LOAD, 128, 0, 0);  /* [128, 127]: nothing */
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->accesses, 0);
    acc(s, CT_LOAD, 129, 0, 0);  /* [129, 128]: the line of 128 */
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->accesses, 1);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 1);
    ct_sim_free(s);
}

TEST(nextline_prefetch_follows_the_installed_demand_line)
{
    /* one set of two ways: the order of installs decides the victims */
    ct_sim *s = make((const char *const[]){L1D_L2("128", "2"), "l1d.prefetcher=nextline", NULL});
    if (!s)
        return;
    acc(s, CT_LOAD, 0, 4, 0);    /* miss b0, prefetch b1: {b0, b1} */
    acc(s, CT_LOAD, 128, 4, 0);  /* miss b2 evicts b0, prefetch b3 evicts b1: {b2, b3} */
    acc(s, CT_LOAD, 0, 4, 0);    /* miss b0 evicts b2, prefetch b1 evicts b3: {b0, b1} */
    acc(s, CT_LOAD, 64, 4, 0);   /* b1: hit */
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->accesses, 4);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->hits, 1);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 3);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->compulsory, 2);       /* b0, b2 */
    CHECK_EQ_U64(ks(s, 0, CT_HWPREFETCH)->misses, 3);
    CHECK_EQ_U64(ks(s, 0, CT_HWPREFETCH)->compulsory, 2); /* b1, b3 */
    CHECK_EQ_U64(ks(s, 1, CT_LOAD)->accesses, 3);         /* demand misses only */
    CHECK_EQ_U64(ks(s, 1, CT_HWPREFETCH)->accesses, 3);
    CHECK_EQ_U64(ks(s, 1, CT_HWPREFETCH)->hits, 1);       /* b1 again */
    ct_sim_free(s);
}

TEST(a_prefetch_hit_makes_the_line_most_recent)
{
    /* one set of four ways */
    ct_sim *s = make((const char *const[]){L1D_L2("256", "4"), "l1d.prefetcher=nextline", NULL});
    if (!s)
        return;
    acc(s, CT_LOAD, 64, 4, 0);   /* miss b1, prefetch b2 */
    acc(s, CT_LOAD, 0, 4, 0);    /* miss b0, prefetch b1: a hit, b1 most recent */
    acc(s, CT_LOAD, 192, 4, 0);  /* miss b3 (way 4), prefetch b4 evicts b2, the oldest */
    CHECK_EQ_U64(ks(s, 0, CT_HWPREFETCH)->hits, 1);
    acc(s, CT_LOAD, 64, 4, 0);   /* b1 stayed */
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->hits, 1);
    acc(s, CT_LOAD, 128, 4, 0);  /* b2 went; its prefetch of b3 hits */
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 4);
    CHECK_EQ_U64(ks(s, 0, CT_HWPREFETCH)->hits, 2);
    /* child hits of the L2: every hit above it, prefetch hits included */
    CHECK_EQ_U64(ct_sim_level_stats(s, 1)->child_hits, 3);
    ct_sim_free(s);
}

/* Loads of lines 0 1 0 2 1 0 in one set of two ways: FIFO replaces the line
 * filled first whatever its hits (b0 at b2's fill, then b1 at b0's), so
 * b1's second load hits; LRU would miss it. */
TEST(fifo_replaces_the_line_filled_first)
{
    ct_sim *s = make((const char *const[]){L1D_L2("128", "2"), "l1d.replacement=fifo", NULL});
    static const uint64_t line[] = {0, 1, 0, 2, 1, 0};
    CHECK(s != NULL);
    if (!s)
        return;
    for (size_t i = 0; i < sizeof line / sizeof line[0]; i++)
        acc(s, CT_LOAD, line[i] * 64, 4, 0);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->hits, 2);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 4);
    ct_sim_free(s);
    /* the same loads under LRU: one hit */
    s = make((const char *const[]){L1D_L2("128", "2"), NULL});
    CHECK(s != NULL);
    if (!s)
        return;
    for (size_t i = 0; i < sizeof line / sizeof line[0]; i++)
        acc(s, CT_LOAD, line[i] * 64, 4, 0);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->hits, 1);
    ct_sim_free(s);
}

/* An invalid way is filled first, and that fill is the newest: b0 and b1
 * fill ways 0 and 1; b0 is flushed; b2 takes way 0; b3 then replaces b1
 * (filled before b2), so b2 hits and b1 misses. */
TEST(fifo_fills_an_invalid_way_first_and_counts_it_as_the_newest)
{
    ct_sim *s = make((const char *const[]){L1D_L2("128", "2"), "l1d.replacement=fifo", NULL});
    CHECK(s != NULL);
    if (!s)
        return;
    acc(s, CT_LOAD, 0, 4, 0);
    acc(s, CT_LOAD, 64, 4, 0);
    acc(s, CT_CACHEOP, 0, 4, CT_OP_INVAL);
    acc(s, CT_LOAD, 128, 4, 0);
    acc(s, CT_LOAD, 192, 4, 0);
    acc(s, CT_LOAD, 128, 4, 0);   /* b2: a hit */
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->hits, 1);
    acc(s, CT_LOAD, 64, 4, 0);    /* b1: gone */
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 5);
    ct_sim_free(s);
}

/* LFU in one set of two ways: b0 is used three times, b1 once; b2 replaces
 * b1 (count 1 < 3), then b1 replaces b2 (count 1), and b0 still hits. With
 * equal counts the lower way goes: b3 and b4 into an empty set, then b5
 * replaces b3 (way 0). */
TEST(lfu_replaces_the_line_used_least_since_its_fill)
{
    ct_sim *s = make((const char *const[]){L1D_L2("128", "2"), "l1d.replacement=lfu", NULL});
    static const uint64_t line[] = {0, 0, 0, 1, 2, 1, 0};
    CHECK(s != NULL);
    if (!s)
        return;
    for (size_t i = 0; i < sizeof line / sizeof line[0]; i++)
        acc(s, CT_LOAD, line[i] * 64, 4, 0);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->hits, 3);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 4);
    ct_sim_free(s);

    s = make((const char *const[]){L1D_L2("128", "2"), "l1d.replacement=lfu", NULL});
    CHECK(s != NULL);
    if (!s)
        return;
    acc(s, CT_LOAD, 3 * 64, 4, 0);
    acc(s, CT_LOAD, 4 * 64, 4, 0);
    acc(s, CT_LOAD, 5 * 64, 4, 0);  /* replaces b3, way 0 */
    acc(s, CT_LOAD, 4 * 64, 4, 0);  /* b4: a hit */
    acc(s, CT_LOAD, 3 * 64, 4, 0);  /* b3: a miss */
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->hits, 1);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 4);
    ct_sim_free(s);
}

static void acc_on(ct_sim *s, uint32_t core, int kind, uint64_t addr)
{
    ct_access a;
    memset(&a, 0, sizeof a);
    a.kind = (uint8_t)kind;
    a.core = core;
    a.vaddr = addr;
    a.size = 4;
    ct_sim_access(s, &a);
}

/* Two cores, each an L1D of one set of two ways, a shared L2, coherence:
 * both read b0; core 1 writes it (core 0's copy goes); core 0 reads it
 * (core 1's dirty copy is written back); core 0 writes it (core 1's copy
 * goes); core 0 reads b1 and b2, which evicts its dirty b0 (a writeback).
 * Two writes, two invalidations, two writebacks. */
TEST(coherence_counts_as_drcachesims_snoop_filter)
{
    ct_sim *s = make((const char *const[]){"system.compat=drcachesim", "system.cores=2",
                                           "system.coherence=msi", "l1d.assoc=2",
                                           "l1d.size=128", "l1d.line=64", "l2.assoc=4",
                                           "l2.size=4K", "l2.line=64", "l2.shared=yes",
                                           NULL});
    const ct_coherence_stats *c;
    uint64_t wi = 99;
    CHECK(s != NULL);
    if (!s)
        return;
    acc_on(s, 0, CT_LOAD, 0);
    acc_on(s, 1, CT_LOAD, 0);
    acc_on(s, 1, CT_STORE, 0);
    acc_on(s, 0, CT_LOAD, 0);     /* a miss: the write took core 0's copy */
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 2);
    acc_on(s, 0, CT_STORE, 0);
    acc_on(s, 0, CT_LOAD, 64);
    acc_on(s, 0, CT_LOAD, 128);   /* evicts b0, dirty */
    c = ct_sim_coherence(s);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_U64(c->writes, 2);
        CHECK_EQ_U64(c->invalidations, 2);
        CHECK_EQ_U64(c->writebacks, 2);
    }
    CHECK(ct_sim_level_write_invalidations(s, 0, &wi));
    CHECK_EQ_U64(wi, 1);
    CHECK(ct_sim_level_write_invalidations(s, 1, &wi));
    CHECK_EQ_U64(wi, 1);
    CHECK(!ct_sim_level_write_invalidations(s, 2, &wi));   /* the L2 is not snooped */
    acc_on(s, 1, CT_LOAD, 0);     /* core 1 lost b0 to core 0's write */
    CHECK_EQ_U64(ks(s, 1, CT_LOAD)->misses, 2);
    ct_sim_free(s);
}

TEST(coherence_needs_private_first_levels_above_shared_ones)
{
    static const char *const bad[][3] = {
        {"system.compat=none", "l1d.write_back=no",
         "[l1d] write_back = no: coherence keeps write-back private levels only"},
        {"system.compat=drcachesim", "l2.shared=no", "a private level below the first"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ct_config *cfg = NULL;
        ct_sim *s = NULL;
        ct_error err = {0};
        const char *sets[] = {"system.cores=2", "system.coherence=mesi", "l1i.size=1K", "l1d.size=1K",
                              "l2.size=4K", bad[i][0], bad[i][1]};
        CHECK(ct_config_new_empty(&cfg, &err) == CT_OK);
        for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
            CHECK(ct_config_set(cfg, sets[k], &err) == CT_OK);
        CHECK_EQ_U64(ct_sim_create(&s, cfg, &err), (uint64_t)CT_E_CONFIG);
        CHECK_STR_CONTAINS(err.msg, bad[i][2]);
        ct_sim_free(s);
        ct_config_free(cfg);
    }
}

TEST(flushes_invalidate_every_level_below)
{
    ct_sim *s = make((const char *const[]){L1D_L2("256", "2"), NULL});
    if (!s)
        return;
    acc(s, CT_LOAD, 0, 4, 0);
    acc(s, CT_CACHEOP, 0, 64, CT_OP_CLEAN_INVAL);
    acc(s, CT_LOAD, 0, 4, 0);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 2);
    CHECK_EQ_U64(ks(s, 1, CT_LOAD)->misses, 2);
    CHECK_EQ_U64(ks(s, 1, CT_LOAD)->compulsory, 1);
    CHECK_EQ_U64(ks(s, 0, CT_CACHEOP)->accesses, 1);
    CHECK_EQ_U64(ks(s, 1, CT_CACHEOP)->accesses, 1);
    CHECK_EQ_U64(ct_sim_level_stats(s, 0)->invalidations, 1);
    /* a range far larger than the caches drops what lies inside it only */
    acc(s, CT_LOAD, 0x10040, 4, 0);  /* set 1, which line 0 does not use */
    acc(s, CT_LOAD, 0x20040, 4, 0);
    acc(s, CT_CACHEOP, 0x10000, 0xf0000000u, CT_OP_CLEAN_INVAL);
    CHECK_EQ_U64(ct_sim_level_stats(s, 0)->invalidations, 3);
    acc(s, CT_LOAD, 0, 4, 0);        /* line 0 is below the range: kept */
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->hits, 1);
    ct_sim_free(s);
}

/* A range of 4 GiB or more (CT_OP_LONG, its length in pc) is flushed whole
 * and counts as one flush per level. */
TEST(a_flush_over_4_gib_drops_every_line_inside_it)
{
    ct_sim *s = make((const char *const[]){L1D_L2("256", "2"), NULL});
    ct_access a = {.kind = CT_CACHEOP, .vaddr = 0x40, .pc = 0x200000000ull,
                   .op = CT_OP_CLEAN_INVAL | CT_OP_LONG, .flags = CT_F_NOPC};
    if (!s)
        return;
    acc(s, CT_LOAD, 0x140000040ull, 4, 0);  /* 5 GiB: inside */
    acc(s, CT_LOAD, 0x200000040ull, 4, 0);  /* 8 GiB + 0x40: the range's end, kept */
    ct_sim_access(s, &a);
    CHECK_EQ_U64(ct_sim_level_stats(s, 0)->invalidations, 1);
    CHECK_EQ_U64(ct_sim_level_stats(s, 1)->invalidations, 1);
    CHECK_EQ_U64(ks(s, 0, CT_CACHEOP)->accesses, 1);
    acc(s, CT_LOAD, 0x140000040ull, 4, 0);
    acc(s, CT_LOAD, 0x200000040ull, 4, 0);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 3);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->hits, 1);
    ct_sim_free(s);
}

TEST(only_the_unlevelled_instruction_prefetch_goes_to_the_l1i)
{
    ct_sim *s = make((const char *const[]){"system.compat=drcachesim", "l1i.assoc=4",
                                           "l1i.size=256", "l1d.assoc=4", "l1d.size=256",
                                           "l2.size=4K", NULL});
    if (!s)
        return;
    /* levels: 0 = L1I, 1 = L1D, 2 = L2 */
    acc(s, CT_PREFETCH, 0x1000, 1, CT_PF_INSTR);
    acc(s, CT_PREFETCH, 0x2000, 1, CT_PF_INSTR | 1 << CT_PF_LEVEL_SHIFT);
    acc(s, CT_NOFETCH, 0x3000, 4, 0);
    CHECK_EQ_U64(ks(s, 0, CT_PREFETCH)->accesses, 1);
    CHECK_EQ_U64(ks(s, 1, CT_PREFETCH)->accesses, 1);
    CHECK_EQ_U64(ct_sim_get_totals(s)->instructions, 1);  /* the no-fetch one, not prefetches */
    CHECK_EQ_U64(ct_sim_get_totals(s)->accesses[CT_NOFETCH], 1);
    {
        ct_access a;   /* a repeat (drmemtrace's no-fetch record): no instruction */
        memset(&a, 0, sizeof a);
        a.kind = CT_NOFETCH;
        a.vaddr = 0x3000;
        a.size = 4;
        a.flags = CT_F_REPEAT;
        ct_sim_access(s, &a);
        CHECK_EQ_U64(ct_sim_get_totals(s)->instructions, 1);
        CHECK_EQ_U64(ct_sim_get_totals(s)->accesses[CT_NOFETCH], 2);
    }
    ct_sim_free(s);
}

TEST(configurations_it_does_not_model_are_refused)
{
    static const char *const bad[][2] = {
        {"l1d.replacement=plru", "models lru, fifo and lfu, not plru"},
        {"l2.inclusion=inclusive", "non-inclusive levels only"},
        {"l1d.prefetch_degree=2", "prefetch_degree 1 only"},
        {"l2.line=128", "one line size for every level"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ct_config *cfg = NULL;
        ct_sim *s = NULL;
        ct_error err = {0};
        const char *sets[] = {L1D_L2("256", "2"), "l1d.prefetcher=nextline", bad[i][0]};
        CHECK(ct_config_new_empty(&cfg, &err) == CT_OK);
        for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
            CHECK(ct_config_set(cfg, sets[k], &err) == CT_OK);
        CHECK_EQ_U64(ct_sim_create(&s, cfg, &err), (uint64_t)CT_E_CONFIG);
        CHECK_STR_CONTAINS(err.msg, bad[i][1]);
        ct_sim_free(s);
        ct_config_free(cfg);
    }
}

/* Without a prefetcher and without size-0 requests, the L1 counts of one
 * core are the core model's (which follows DineroIV): both split at lines,
 * allocate on every miss and replace LRU. */
TEST(l1_counts_agree_with_the_core_model)
{
    const char *const common[] = {"l1i.assoc=2", "l1i.size=1K", "l1d.assoc=4", "l1d.size=1K",
                                  "l2.assoc=8", "l2.size=4K", NULL};
    const char *sets[2][16];
    ct_sim *s[2];
    uint64_t x = 12345;
    size_t n = 0;

    for (int m = 0; m < 2; m++) {
        size_t k = 0;
        for (; common[k]; k++)
            sets[m][k] = common[k];
        sets[m][k++] = m ? "system.compat=drcachesim" : "system.compat=none";
        sets[m][k] = NULL;
        s[m] = make(sets[m]);
    }
    if (!s[0] || !s[1])
        return;
    for (int i = 0; i < 200000; i++) {
        uint64_t r;
        int kind;
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        r = x >> 16;
        kind = (int)(r % 3);
        for (int m = 0; m < 2; m++)
            acc(s[m], kind == 0 ? CT_IFETCH : kind == 1 ? CT_LOAD : CT_STORE,
                (r >> 8) % 16384, 1 + (uint32_t)((r >> 40) % 16), 0);
        n++;
    }
    for (size_t lv = 0; lv < 2; lv++)
        for (int k = CT_IFETCH; k <= CT_STORE; k++) {
            CHECK_EQ_U64(ks(s[1], lv, k)->hits, ks(s[0], lv, k)->hits);
            CHECK_EQ_U64(ks(s[1], lv, k)->misses, ks(s[0], lv, k)->misses);
        }
    CHECK(ks(s[0], 1, CT_LOAD)->misses > 1000);  /* the stream does exercise the caches */
    CHECK(n == 200000);
    ct_sim_free(s[0]);
    ct_sim_free(s[1]);
}

int main(void)
{
    RUN(line_crossing_requests_are_split_into_pieces);
    RUN(a_request_ends_at_the_top_of_the_address_space);
    RUN(size_zero_requests_count_only_inside_a_line);
    RUN(nextline_prefetch_follows_the_installed_demand_line);
    RUN(a_prefetch_hit_makes_the_line_most_recent);
    RUN(fifo_replaces_the_line_filled_first);
    RUN(fifo_fills_an_invalid_way_first_and_counts_it_as_the_newest);
    RUN(lfu_replaces_the_line_used_least_since_its_fill);
    RUN(coherence_counts_as_drcachesims_snoop_filter);
    RUN(coherence_needs_private_first_levels_above_shared_ones);
    RUN(flushes_invalidate_every_level_below);
    RUN(a_flush_over_4_gib_drops_every_line_inside_it);
    RUN(only_the_unlevelled_instruction_prefetch_goes_to_the_l1i);
    RUN(configurations_it_does_not_model_are_refused);
    RUN(l1_counts_agree_with_the_core_model);
    return harness_done();
}
