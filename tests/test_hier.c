/*
 * test_hier.c - the rules at the top of sim/hier.c, one tiny hand-checkable
 * case each: exact hits, misses, resident lines, write-backs and cycles.
 */
#include <gsl/gsl_rng.h>

#include "harness.h"
#include "cachet/cachet.h"
#include "sim/hier_internal.h"

/* A configuration from "section.key=value" strings (NULL-terminated). */
static ct_config *cfg_of(const char *const *kv)
{
    ct_config *c = NULL;
    ct_error err = {0};
    if (ct_config_new_empty(&c, &err) != CT_OK) {
        fprintf(stderr, "config: %s\n", err.msg);
        exit(2);
    }
    size_t n = 0;
    while (kv[n])
        n++;
    if (ct_config_set_all(c, kv, n, &err) != CT_OK) {
        fprintf(stderr, "config: %s\n", err.msg);
        exit(2);
    }
    return c;
}

static ct_sim *sim_of(const char *const *kv)
{
    ct_config *c = cfg_of(kv);
    ct_sim *s = NULL;
    ct_error err = {0};
    if (ct_sim_create(&s, c, &err) != CT_OK) {
        fprintf(stderr, "sim: %s\n", err.msg);
        exit(2);
    }
    ct_config_free(c);
    return s;
}

static void acc(ct_sim *s, int kind, uint64_t addr, uint32_t size)
{
    ct_access a = {.vaddr = addr, .size = size, .kind = (uint8_t)kind};
    ct_sim_access(s, &a);
}

static void acc_core(ct_sim *s, int kind, uint64_t addr, uint16_t core)
{
    ct_access a = {.vaddr = addr, .size = 4, .kind = (uint8_t)kind, .core = core};
    ct_sim_access(s, &a);
}

static void op(ct_sim *s, int opcode, uint64_t addr, uint32_t size)
{
    ct_access a = {.vaddr = addr, .size = size, .kind = CT_CACHEOP, .op = (uint8_t)opcode};
    ct_sim_access(s, &a);
}

/* Level index by name and core (-1: shared). */
static size_t lvl(const ct_sim *s, const char *name, int core)
{
    for (size_t i = 0; i < ct_sim_nlevels(s); i++)
        if (!strcmp(ct_sim_level_info(s, i)->name, name) && ct_sim_level_info(s, i)->core == core)
            return i;
    fprintf(stderr, "no level %s core %d\n", name, core);
    exit(2);
}

static int resident(const ct_sim *s, size_t li, uint64_t addr)
{
    const ct_cache *c = &s->lv[li].c;
    uint64_t b = addr >> c->line_bits;
    return ct_cache_find(c, ct_cache_set(c, b), b) >= 0;
}

static int dirty(const ct_sim *s, size_t li, uint64_t addr)
{
    const ct_cache *c = &s->lv[li].c;
    uint64_t b = addr >> c->line_bits;
    int64_t i = ct_cache_find(c, ct_cache_set(c, b), b);
    return i >= 0 && (c->flag[i] & CT_LF_DIRTY);
}

static const ct_kind_stats *ks(const ct_sim *s, size_t li, int kind)
{
    return &ct_sim_level_stats(s, li)->kind[kind];
}

/* L1D: 2 sets x 2 ways x 64 B = 256 B; L2: 4 sets x 4 ways = 1 KiB. */
#define SMALL "l1d.size=256", "l1d.assoc=2", "l1d.line=64", "l1d.latency=4", \
              "l2.size=1K", "l2.assoc=4", "l2.line=64", "l2.latency=10",     \
              "memory.latency=100"

TEST(lru_two_way_keeps_the_recent_pair)
{
    const char *kv[] = {SMALL, NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0);
    /* set 0 holds blocks 0x000, 0x080, 0x100 (block numbers 0, 2, 4) */
    acc(s, CT_LOAD, 0x000, 4);   /* miss */
    acc(s, CT_LOAD, 0x080, 4);   /* miss */
    acc(s, CT_LOAD, 0x000, 4);   /* hit: 0x080 is now LRU */
    acc(s, CT_LOAD, 0x100, 4);   /* miss, evicts 0x080 */
    CHECK(resident(s, l1, 0x000));
    CHECK(!resident(s, l1, 0x080));
    CHECK(resident(s, l1, 0x100));
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->accesses, 4);
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->hits, 1);
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->misses, 3);
    CHECK_EQ_U64(ct_sim_level_stats(s, l1)->evictions, 1);
    /* the other set is untouched */
    acc(s, CT_LOAD, 0x040, 4);
    CHECK(resident(s, l1, 0x000) && resident(s, l1, 0x100) && resident(s, l1, 0x040));
    ct_sim_free(s);
}

TEST(write_back_marks_dirty_and_writes_victims)
{
    const char *kv[] = {SMALL, NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0), l2 = lvl(s, "l2", -1);
    acc(s, CT_STORE, 0x000, 4);  /* miss: fetched from L2 (a read there), dirty */
    CHECK(dirty(s, l1, 0x000));
    CHECK_EQ_U64(ks(s, l2, CT_STORE)->accesses, 0);
    CHECK_EQ_U64(ks(s, l2, CT_LOAD)->accesses, 1);
    acc(s, CT_LOAD, 0x080, 4);
    acc(s, CT_LOAD, 0x100, 4);   /* evicts dirty 0x000 */
    CHECK_EQ_U64(ct_sim_level_stats(s, l1)->writebacks, 1);
    CHECK_EQ_U64(ks(s, l2, CT_WRITEBACK)->accesses, 1);
    CHECK_EQ_U64(ks(s, l2, CT_WRITEBACK)->hits, 1); /* L2 still had the line */
    CHECK(dirty(s, l2, 0x000));
    acc(s, CT_LOAD, 0x180, 4);   /* evicts clean 0x080: no write-back */
    CHECK_EQ_U64(ct_sim_level_stats(s, l1)->writebacks, 1);
    ct_sim_free(s);
}

TEST(write_through_forwards_every_store)
{
    const char *kv[] = {SMALL, "l1d.write_back=no", NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0), l2 = lvl(s, "l2", -1);
    acc(s, CT_STORE, 0x000, 4);  /* miss: fill (load at L2) + write-through (store at L2) */
    acc(s, CT_STORE, 0x004, 4);  /* hit: write-through */
    CHECK(!dirty(s, l1, 0x000));
    CHECK_EQ_U64(ks(s, l1, CT_STORE)->hits, 1);
    CHECK_EQ_U64(ks(s, l2, CT_STORE)->accesses, 2);
    CHECK_EQ_U64(ks(s, l2, CT_LOAD)->accesses, 1);
    CHECK(dirty(s, l2, 0x000));
    acc(s, CT_LOAD, 0x080, 4);
    acc(s, CT_LOAD, 0x100, 4);   /* evicts 0x000: clean, no write-back */
    CHECK_EQ_U64(ct_sim_level_stats(s, l1)->writebacks, 0);
    ct_sim_free(s);
}

TEST(no_write_allocate_bypasses)
{
    const char *kv[] = {SMALL, "l1d.write_allocate=no", NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0), l2 = lvl(s, "l2", -1);
    acc(s, CT_STORE, 0x000, 4);
    CHECK(!resident(s, l1, 0x000));
    CHECK(resident(s, l2, 0x000) && dirty(s, l2, 0x000));
    CHECK_EQ_U64(ks(s, l1, CT_STORE)->misses, 1);
    CHECK_EQ_U64(ct_sim_get_totals(s)->cycles, 4); /* buffered: L1 latency */
    ct_sim_free(s);
}

TEST(full_line_store_needs_no_fetch)
{
    const char *kv[] = {SMALL, NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0), l2 = lvl(s, "l2", -1);
    acc(s, CT_STORE, 0x040, 64);
    CHECK(dirty(s, l1, 0x040));
    CHECK_EQ_U64(ct_level_total(ct_sim_level_stats(s, l2)).accesses, 0);
    CHECK_EQ_U64(ct_sim_get_totals(s)->cycles, 4);
    ct_sim_free(s);
}

TEST(line_crossing_access_is_split)
{
    const char *kv[] = {SMALL, NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0);
    acc(s, CT_LOAD, 0x03c, 8);   /* bytes 0x3c..0x43: lines 0x00 and 0x40 */
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->accesses, 2);
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->misses, 2);
    CHECK_EQ_U64(ct_sim_get_totals(s)->line_crossings, 1);
    CHECK_EQ_U64(ct_sim_get_totals(s)->accesses[CT_LOAD], 1);
    CHECK_EQ_U64(ct_sim_get_totals(s)->cycles, 200); /* two pieces from memory */
    CHECK(resident(s, l1, 0x000) && resident(s, l1, 0x040));
    ct_sim_free(s);
}

/* 0x80 bytes from 0x...ffa0 would run past 2^64: the access ends at the
 * last byte of the address space, so it touches the lines 0x...ff80 and
 * 0x...ffc0 only, and the bytes beyond are dropped. */
TEST(an_access_ends_at_the_top_of_the_address_space)
{
    const char *kv[] = {SMALL, NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0);
    acc(s, CT_LOAD, 0xffffffffffffffa0ull, 0x80);
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->accesses, 2);
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->misses, 2);
    CHECK_EQ_U64(ct_sim_get_totals(s)->line_crossings, 1);
    CHECK_EQ_U64(ct_sim_get_totals(s)->cycles, 200);
    CHECK(resident(s, l1, 0xffffffffffffff80ull) && resident(s, l1, 0xffffffffffffffc0ull));
    CHECK(!resident(s, l1, 0x0));
    acc(s, CT_STORE, 0xfffffffffffffff0ull, 64);   /* within the last line: one hit */
    CHECK_EQ_U64(ks(s, l1, CT_STORE)->accesses, 1);
    CHECK_EQ_U64(ks(s, l1, CT_STORE)->hits, 1);
    op(s, CT_OP_INVAL, 0xffffffffffffff80ull, 0x100); /* both lines, nothing at 0 */
    CHECK(!resident(s, l1, 0xffffffffffffff80ull) && !resident(s, l1, 0xffffffffffffffc0ull));
    CHECK_EQ_U64(ks(s, l1, CT_CACHEOP)->accesses, 2);
    ct_sim_free(s);
}

TEST(timing_charges_the_servicing_level)
{
    const char *kv[] = {SMALL, NULL};
    ct_sim *s = sim_of(kv);
    acc(s, CT_LOAD, 0x000, 4);   /* memory: 100 */
    acc(s, CT_LOAD, 0x000, 4);   /* L1: 4 */
    acc(s, CT_LOAD, 0x080, 4);   /* memory: 100 */
    acc(s, CT_LOAD, 0x100, 4);   /* memory: 100; evicts 0x000 from L1 */
    acc(s, CT_LOAD, 0x000, 4);   /* L2: 10 */
    acc(s, CT_PREFETCH, 0x200, 4); /* free */
    CHECK_EQ_U64(ct_sim_get_totals(s)->cycles, 100 + 4 + 100 + 100 + 10);
    CHECK_EQ_U64(ct_sim_get_totals(s)->kind_cycles[CT_LOAD], 314);
    CHECK_EQ_U64(ct_sim_get_totals(s)->kind_cycles[CT_PREFETCH], 0);
    CHECK_EQ_U64(ct_sim_get_totals(s)->mem_reads, 4);
    ct_sim_free(s);
}

TEST(instructions_are_the_fetched_and_the_unfetched_ones)
{
    const char *kv[] = {"l1i.size=256", "l1i.assoc=2", "l1i.latency=1", NULL};
    ct_sim *s = sim_of(kv);
    acc(s, CT_IFETCH, 0x1000, 4);
    acc(s, CT_IFETCH, 0x1004, 4);
    acc(s, CT_NOFETCH, 0x1004, 4);
    CHECK_EQ_U64(ct_sim_get_totals(s)->instructions, 3);
    CHECK_EQ_U64(ct_sim_get_totals(s)->accesses[CT_NOFETCH], 1);
    {
        /* a repeat of the instruction before (drmemtrace's no-fetch record):
         * a nofetch access, no instruction */
        ct_access a = {.vaddr = 0x1004, .size = 4, .kind = CT_NOFETCH, .flags = CT_F_REPEAT};
        ct_sim_access(s, &a);
        CHECK_EQ_U64(ct_sim_get_totals(s)->instructions, 3);
        CHECK_EQ_U64(ct_sim_get_totals(s)->repeats, 1);
        CHECK_EQ_U64(ct_sim_get_totals(s)->accesses[CT_NOFETCH], 2);
    }
    CHECK_EQ_U64(ks(s, lvl(s, "l1i", 0), CT_IFETCH)->accesses, 2);
    CHECK_EQ_U64(ct_sim_get_totals(s)->cycles, 100 + 1);
    ct_sim_free(s);
}

TEST(missing_l1i_sends_fetches_to_l2)
{
    const char *kv[] = {SMALL, NULL};
    ct_sim *s = sim_of(kv);
    acc(s, CT_IFETCH, 0x1000, 4);
    CHECK_EQ_U64(ks(s, lvl(s, "l2", -1), CT_IFETCH)->accesses, 1);
    CHECK_EQ_U64(ks(s, lvl(s, "l1d", 0), CT_IFETCH)->accesses, 0);
    ct_sim_free(s);
}

TEST(inclusive_level_back_invalidates)
{
    /* L2 of 2 lines (1 set x 2 ways): the third line evicts one that the
     * L1 (2 sets x 2 ways) still holds */
    const char *kv[] = {"l1d.size=256", "l1d.assoc=2", "l2.size=128", "l2.assoc=2",
                        "l2.inclusion=inclusive", NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0), l2 = lvl(s, "l2", -1);
    acc(s, CT_STORE, 0x000, 4);
    acc(s, CT_LOAD, 0x040, 4);
    acc(s, CT_LOAD, 0x080, 4);   /* L2 evicts 0x000 (LRU), L1 must drop it */
    CHECK(!resident(s, l2, 0x000));
    CHECK(!resident(s, l1, 0x000));
    CHECK_EQ_U64(ct_sim_level_stats(s, l1)->back_invalidations, 1);
    /* the dirty L1 copy made the victim dirty: written to memory */
    CHECK_EQ_U64(ct_sim_level_stats(s, l2)->writebacks, 1);
    CHECK_EQ_U64(ct_sim_get_totals(s)->mem_writes, 1);
    ct_sim_free(s);
}

TEST(exclusive_level_holds_victims_only)
{
    const char *kv[] = {"l1d.size=128", "l1d.assoc=2", "l2.size=1K", "l2.assoc=4",
                        "l2.inclusion=exclusive", NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0), l2 = lvl(s, "l2", -1);
    acc(s, CT_LOAD, 0x000, 4);   /* from memory into L1 only */
    CHECK(resident(s, l1, 0x000) && !resident(s, l2, 0x000));
    acc(s, CT_STORE, 0x040, 4);
    acc(s, CT_LOAD, 0x080, 4);   /* L1 (1 set, 2 ways) evicts 0x000 into L2 */
    CHECK(!resident(s, l1, 0x000) && resident(s, l2, 0x000));
    CHECK_EQ_U64(ks(s, l2, CT_WRITEBACK)->accesses, 1);
    acc(s, CT_LOAD, 0x000, 4);   /* hit in L2: moves up, evicts dirty 0x040 down */
    CHECK(resident(s, l1, 0x000) && !resident(s, l2, 0x000));
    CHECK(resident(s, l2, 0x040) && dirty(s, l2, 0x040));
    CHECK_EQ_U64(ks(s, l2, CT_LOAD)->hits, 1);
    CHECK_EQ_U64(ct_sim_get_totals(s)->mem_reads, 3);
    ct_sim_free(s);
}

TEST(exclusive_needs_same_line_size)
{
    const char *kv[] = {"l1d.size=256", "l1d.assoc=2", "l1d.line=32", "l2.size=1K",
                        "l2.inclusion=exclusive", NULL};
    ct_config *c = cfg_of(kv);
    ct_sim *s = NULL;
    ct_error err = {0};
    CHECK(ct_sim_create(&s, c, &err) == CT_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, "exclusive");
    ct_config_free(c);
}

TEST(cache_operations)
{
    const char *kv[] = {SMALL, NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0), l2 = lvl(s, "l2", -1);

    acc(s, CT_STORE, 0x000, 4);
    op(s, CT_OP_CLEAN, 0x000, 4);           /* L1 writes back to L2, L2 to memory */
    CHECK_EQ_U64(ks(s, l1, CT_CACHEOP)->hits, 1);
    CHECK_EQ_U64(ks(s, l2, CT_CACHEOP)->hits, 1);
    op(s, CT_OP_CLEAN, 0x800, 4);           /* nowhere: a miss at both levels */
    CHECK_EQ_U64(ks(s, l1, CT_CACHEOP)->misses, 1);
    CHECK_EQ_U64(ks(s, l1, CT_CACHEOP)->hits, 1);
    CHECK(resident(s, l1, 0x000) && !dirty(s, l1, 0x000));
    CHECK_EQ_U64(ct_sim_level_stats(s, l1)->writebacks, 1);
    CHECK_EQ_U64(ct_sim_level_stats(s, l2)->writebacks, 1);
    CHECK_EQ_U64(ct_sim_get_totals(s)->mem_writes, 1);

    acc(s, CT_STORE, 0x000, 4);
    op(s, CT_OP_INVAL, 0x000, 4);           /* dropped everywhere, data lost */
    CHECK(!resident(s, l1, 0x000) && !resident(s, l2, 0x000));
    CHECK_EQ_U64(ct_sim_level_stats(s, l1)->writebacks, 1);
    CHECK_EQ_U64(ct_sim_level_stats(s, l1)->invalidations, 1);

    acc(s, CT_STORE, 0x040, 4);
    op(s, CT_OP_CLEAN_INVAL, 0x040, 4);
    CHECK(!resident(s, l1, 0x040));
    CHECK_EQ_U64(ct_sim_level_stats(s, l1)->writebacks, 2);

    op(s, CT_OP_ZERO, 0x080, 64);           /* allocated dirty, nothing fetched */
    CHECK(dirty(s, l1, 0x080) && !resident(s, l2, 0x080));
    op(s, CT_OP_ALLOC, 0x0c0, 64);
    CHECK(resident(s, l1, 0x0c0) && !dirty(s, l1, 0x0c0));

    op(s, CT_OP_CLEAN | CT_OP_ALL, 0, 0);   /* copy back everything, keep lines */
    CHECK(resident(s, l1, 0x080) && !dirty(s, l1, 0x080));
    op(s, CT_OP_INVAL | CT_OP_ALL, 0, 0);
    CHECK(!resident(s, l1, 0x080) && !resident(s, l1, 0x0c0));
    ct_sim_free(s);
}

/* A range of 4 GiB or more (CT_OP_LONG, its length in pc): every line
 * inside it is cleaned and dropped at every level, none outside. */
TEST(a_range_over_4_gib_is_maintained_whole)
{
    const char *kv[] = {SMALL, NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0), l2 = lvl(s, "l2", -1);
    ct_access a = {.kind = CT_CACHEOP, .vaddr = 0x40, .pc = 0x200000000ull,
                   .op = CT_OP_CLEAN_INVAL | CT_OP_LONG, .flags = CT_F_NOPC};
    acc(s, CT_LOAD, 0x000, 4);              /* below the range */
    acc(s, CT_STORE, 0x140000040ull, 4);    /* 5 GiB: inside, dirty */
    acc(s, CT_LOAD, 0x200000000ull, 4);     /* 8 GiB: the range's last line */
    acc(s, CT_LOAD, 0x200000040ull, 4);     /* the range's end: outside */
    ct_sim_access(s, &a);
    CHECK(resident(s, l1, 0x000) && resident(s, l2, 0x000));
    CHECK(!resident(s, l1, 0x140000040ull) && !resident(s, l2, 0x140000040ull));
    CHECK(!resident(s, l2, 0x200000000ull));
    CHECK(resident(s, l2, 0x200000040ull));
    CHECK_EQ_U64(ct_sim_get_totals(s)->mem_writes, 1);
    /* looked at: every line of the range, counted as one per line */
    CHECK_EQ_U64(ks(s, l1, CT_CACHEOP)->accesses, 0x200000000ull / 64);
    ct_sim_free(s);
}

TEST(flush_at_end_writes_back_dirty_lines)
{
    const char *kv[] = {SMALL, "system.flush_at_end=yes", NULL};
    ct_sim *s = sim_of(kv);
    acc(s, CT_STORE, 0x000, 4);
    acc(s, CT_STORE, 0x040, 4);
    CHECK_EQ_U64(ct_sim_level_stats(s, lvl(s, "l1d", 0))->writebacks, 0);
    ct_sim_finish(s);
    CHECK_EQ_U64(ct_sim_level_stats(s, lvl(s, "l1d", 0))->writebacks, 2);
    CHECK_EQ_U64(ct_sim_level_stats(s, lvl(s, "l2", -1))->writebacks, 2);
    ct_sim_free(s);
}

TEST(nextline_prefetcher_fetches_the_following_line)
{
    const char *kv[] = {SMALL, "l1d.prefetcher=nextline", NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0);
    acc(s, CT_LOAD, 0x000, 4);               /* miss: prefetch 0x040 */
    CHECK(resident(s, l1, 0x040));
    CHECK_EQ_U64(ks(s, l1, CT_HWPREFETCH)->misses, 1);
    acc(s, CT_LOAD, 0x040, 4);               /* hit, no new prefetch */
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->hits, 1);
    CHECK_EQ_U64(ct_sim_level_stats(s, l1)->prefetches_issued, 1);
    CHECK_EQ_U64(ct_sim_get_totals(s)->cycles, 100 + 4); /* prefetches are free */
    ct_sim_free(s);
}

static void load_pc(ct_sim *s, uint64_t pc, uint64_t addr)
{
    ct_access a = {.vaddr = addr, .pc = pc, .size = 4, .kind = CT_LOAD};
    ct_sim_access(s, &a);
}

#define PF_L1 "l1d.size=4K", "l1d.assoc=4", "l1d.line=64", "l1d.latency=4", \
              "l2.size=64K", "l2.assoc=4", "l2.line=64", "l2.latency=10", "memory.latency=100"

TEST(stride_prefetcher_requests_after_a_stride_repeats)
{
    const char *kv[] = {PF_L1, "l1d.prefetcher=stride", NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0);
    const ct_level_stats *st = ct_sim_level_stats(s, l1);
    load_pc(s, 0x400, 0 * 64);    /* new entry */
    load_pc(s, 0x400, 3 * 64);    /* stride 3, confidence 0 */
    CHECK_EQ_U64(st->prefetches_issued, 0);
    load_pc(s, 0x400, 6 * 64);    /* stride again: confidence 1, request line 9 */
    CHECK_EQ_U64(st->prefetches_issued, 1);
    CHECK(resident(s, l1, 9 * 64) && !resident(s, l1, 12 * 64));
    load_pc(s, 0x404, 40 * 64);   /* another pc: its own entry, nothing */
    load_pc(s, 0x400, 9 * 64);    /* hit on the prefetched line: useful; request 12 */
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->hits, 1);
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->misses, 4);
    CHECK_EQ_U64(st->prefetch_useful, 1);
    CHECK_EQ_U64(st->prefetches_issued, 2);
    CHECK(resident(s, l1, 12 * 64));
    load_pc(s, 0x404, 38 * 64);   /* downwards: stride -2 */
    load_pc(s, 0x404, 36 * 64);   /* again: request 34 */
    CHECK(resident(s, l1, 34 * 64));
    CHECK_EQ_U64(st->prefetches_issued, 3);
    CHECK_EQ_U64(ks(s, l1, CT_HWPREFETCH)->misses, 3);
    CHECK_EQ_U64(st->prefetch_useless, 0);
    ct_sim_free(s);
}

TEST(stride_prefetcher_table_is_replaced_least_recently_used)
{
    /* one entry: two pcs taking turns evict each other and never train;
     * distance 2, degree 2, confidence 0: a pc alone requests two strides
     * ahead, two lines, as soon as it has a stride */
    const char *kv[] = {PF_L1, "l1d.prefetcher=stride", "l1d.prefetch_table=1", NULL};
    const char *kv2[] = {PF_L1, "l1d.prefetcher=stride", "l1d.prefetch_confidence=0",
                         "l1d.prefetch_distance=2", "l1d.prefetch_degree=2", NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0);
    for (uint64_t i = 0; i < 8; i++) {
        load_pc(s, 0x400, i * 64);
        load_pc(s, 0x500, (20 + i) * 64);
    }
    CHECK_EQ_U64(ct_sim_level_stats(s, l1)->prefetches_issued, 0);
    ct_sim_free(s);
    s = sim_of(kv2);
    load_pc(s, 0x400, 10 * 64);
    load_pc(s, 0x400, 11 * 64);   /* stride 1, confidence 0: lines 13 and 14 */
    CHECK(!resident(s, l1, 12 * 64) && resident(s, l1, 13 * 64) && resident(s, l1, 14 * 64));
    CHECK_EQ_U64(ct_sim_level_stats(s, l1)->prefetches_issued, 2);
    ct_sim_free(s);
}

TEST(stream_prefetcher_follows_a_trained_stream)
{
    const char *kv[] = {PF_L1, "l1d.prefetcher=stream", "l1d.prefetch_degree=2", NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0);
    const ct_level_stats *st = ct_sim_level_stats(s, l1);
    acc(s, CT_LOAD, 100 * 64, 4);   /* miss: a new stream, training */
    acc(s, CT_LOAD, 101 * 64, 4);   /* miss in its window: upwards, lines 102 and 103 */
    CHECK_EQ_U64(st->prefetches_issued, 2);
    CHECK(resident(s, l1, 102 * 64) && resident(s, l1, 103 * 64));
    acc(s, CT_LOAD, 102 * 64, 4);   /* first use: request 104 (103 was) */
    CHECK_EQ_U64(st->prefetches_issued, 3);
    acc(s, CT_LOAD, 102 * 64, 4);   /* used before: nothing */
    acc(s, CT_LOAD, 103 * 64, 4);   /* first use: 105 */
    CHECK_EQ_U64(st->prefetches_issued, 4);
    CHECK(resident(s, l1, 105 * 64) && !resident(s, l1, 106 * 64));
    CHECK_EQ_U64(st->prefetch_useful, 2);
    acc(s, CT_LOAD, 500 * 64, 4);   /* far away: another stream, nothing */
    acc(s, CT_LOAD, 90 * 64, 4);    /* behind the stream, outside its window: a third */
    CHECK_EQ_U64(st->prefetches_issued, 4);
    acc(s, CT_LOAD, 89 * 64, 4);    /* trains the third downwards: 88 and 87 */
    CHECK(resident(s, l1, 88 * 64) && resident(s, l1, 87 * 64));
    CHECK_EQ_U64(st->prefetches_issued, 6);
    ct_sim_free(s);
}

TEST(prefetched_lines_that_leave_unused_are_useless)
{
    /* SMALL: 2 sets of 2 ways; nextline requests the line after each miss */
    const char *kv[] = {SMALL, "l1d.prefetcher=nextline", NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0);
    const ct_level_stats *st = ct_sim_level_stats(s, l1);
    acc(s, CT_LOAD, 0 * 64, 4);     /* miss; line 1 prefetched into set 1 */
    acc(s, CT_LOAD, 3 * 64, 4);     /* miss in set 1 (lines 1, 3); line 4 into set 0 (0, 4) */
    acc(s, CT_LOAD, 5 * 64, 4);     /* miss: set 1 drops line 1 unused; line 6 drops line 0 */
    CHECK_EQ_U64(st->prefetch_useless, 1);
    CHECK_EQ_U64(st->prefetch_useful, 0);
    acc(s, CT_LOAD, 4 * 64, 4);     /* hit on line 4: useful */
    CHECK_EQ_U64(st->prefetch_useful, 1);
    op(s, CT_OP_INVAL | CT_OP_ALL, 0, 0);  /* line 6 leaves unused; 4 was used */
    CHECK_EQ_U64(st->prefetch_useless, 2);
    ct_sim_free(s);
}

static void acc_flags(ct_sim *s, int kind, uint64_t addr, uint16_t flags)
{
    ct_access a = {.vaddr = addr, .size = 8, .kind = (uint8_t)kind, .flags = flags};
    ct_sim_access(s, &a);
}

TEST(uncached_ranges_and_device_memory_bypass_the_caches)
{
    const char *kv[] = {SMALL, "system.uncached=0x1000-0x1fff, 0x8000-0x8000", NULL};
    const char *kv_no[] = {SMALL, "system.device_uncached=no", NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0), l2 = lvl(s, "l2", -1);
    const ct_sim_totals *t = ct_sim_get_totals(s);
    acc(s, CT_LOAD, 0x1000, 8);        /* uncached: one memory read, 100 cycles */
    acc(s, CT_STORE, 0x1ff8, 8);       /* uncached: one memory write */
    acc(s, CT_LOAD, 0x8000, 64);       /* the one-byte range: the first byte decides */
    acc(s, CT_PREFETCH, 0x1100, 8);    /* a software prefetch of uncached memory: nothing */
    CHECK_EQ_U64(ct_level_total(ct_sim_level_stats(s, l1)).accesses, 0);
    CHECK_EQ_U64(ct_level_total(ct_sim_level_stats(s, l2)).accesses, 0);
    CHECK_EQ_U64(t->mem_reads, 2);
    CHECK_EQ_U64(t->mem_writes, 1);
    CHECK_EQ_U64(t->uncached[CT_LOAD], 2);
    CHECK_EQ_U64(t->uncached[CT_STORE], 1);
    CHECK_EQ_U64(t->uncached[CT_PREFETCH], 1);
    CHECK_EQ_U64(t->accesses[CT_PREFETCH], 1);
    CHECK_EQ_U64(t->cycles, 300);
    acc(s, CT_LOAD, 0x2000, 8);        /* outside: cached (misses to memory) */
    acc(s, CT_LOAD, 0x7ff8, 8);
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->misses, 2);
    acc_flags(s, CT_LOAD, 0x4000, CT_F_DEVICE);  /* Device memory: uncached */
    CHECK(!resident(s, l1, 0x4000));
    CHECK_EQ_U64(t->uncached[CT_LOAD], 3);
    ct_sim_free(s);
    s = sim_of(kv_no);                 /* device_uncached = no: cached like the rest */
    acc_flags(s, CT_LOAD, 0x4000, CT_F_DEVICE);
    CHECK(resident(s, lvl(s, "l1d", 0), 0x4000));
    CHECK_EQ_U64(ct_sim_get_totals(s)->uncached[CT_LOAD], 0);
    ct_sim_free(s);
}

TEST(uncached_device_accesses_leave_the_fast_path)
{
    /* the LRU fast path and the general path agree on Device memory */
    const char *kv[] = {SMALL, NULL};
    ct_sim *fast = sim_of(kv), *slow = sim_of(kv);
    ct_batch b = {0};
    ct_access acc_[6] = {
        {.vaddr = 0x000, .size = 8, .kind = CT_LOAD},
        {.vaddr = 0x040, .size = 8, .kind = CT_LOAD, .flags = CT_F_DEVICE},
        {.vaddr = 0x040, .size = 8, .kind = CT_STORE, .flags = CT_F_DEVICE},
        {.vaddr = 0x000, .size = 8, .kind = CT_STORE},
        {.vaddr = 0x080, .size = 4, .kind = CT_IFETCH, .flags = CT_F_DEVICE},
        {.vaddr = 0x040, .size = 8, .kind = CT_LOAD},
    };
    ct_error err = {0};
    b.acc = acc_;
    b.n = 6;
    ct_sim_force_general(slow);
    CHECK(ct_sim_run(fast, &b, &err) == CT_OK && ct_sim_run(slow, &b, &err) == CT_OK);
    CHECK(memcmp(ct_sim_get_totals(fast), ct_sim_get_totals(slow), sizeof(ct_sim_totals)) == 0);
    CHECK_EQ_U64(ct_sim_get_totals(fast)->uncached[CT_LOAD], 1);
    CHECK_EQ_U64(ct_sim_get_totals(fast)->uncached[CT_STORE], 1);
    CHECK_EQ_U64(ct_sim_get_totals(fast)->uncached[CT_IFETCH], 1);
    CHECK_EQ_U64(ct_sim_get_totals(fast)->mem_writes, 1);
    ct_sim_free(fast);
    ct_sim_free(slow);
}

TEST(three_c_classification)
{
    /* direct-mapped, 2 lines: 0x000 and 0x080 conflict in set 0 */
    const char *kv[] = {"l1d.size=128", "l1d.assoc=1", "system.miss_classes=yes", NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0);
    acc(s, CT_LOAD, 0x000, 4);   /* compulsory */
    acc(s, CT_LOAD, 0x080, 4);   /* compulsory */
    acc(s, CT_LOAD, 0x000, 4);   /* conflict: a 2-line FA LRU cache holds both */
    acc(s, CT_LOAD, 0x040, 4);   /* compulsory */
    acc(s, CT_LOAD, 0x100, 4);   /* compulsory (FA now evicts 0x080) */
    acc(s, CT_LOAD, 0x080, 4);   /* capacity: FA holds 0x040,0x100 only */
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->compulsory, 4);
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->conflict, 1);
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->capacity, 1);
    CHECK_EQ_U64(ks(s, l1, CT_LOAD)->misses, 6);
    ct_sim_free(s);
}

TEST(private_l1_shared_l2_across_cores)
{
    const char *kv[] = {"system.cores=2", SMALL, NULL};
    ct_sim *s = sim_of(kv);
    acc_core(s, CT_LOAD, 0x000, 0);
    acc_core(s, CT_LOAD, 0x000, 1);   /* own L1 misses, shared L2 hits */
    CHECK_EQ_U64(ks(s, lvl(s, "l1d", 1), CT_LOAD)->misses, 1);
    CHECK_EQ_U64(ks(s, lvl(s, "l2", -1), CT_LOAD)->hits, 1);
    CHECK_EQ_U64(ct_sim_nlevels(s), 3);
    /* child hits of the L2: hits in both L1s */
    acc_core(s, CT_LOAD, 0x000, 1);
    CHECK_EQ_U64(ct_sim_level_stats(s, lvl(s, "l2", -1))->child_hits, 1);
    ct_sim_free(s);
}

TEST(private_l2_per_core)
{
    const char *kv[] = {"system.cores=2", SMALL, "l2.shared=no", NULL};
    ct_sim *s = sim_of(kv);
    acc_core(s, CT_LOAD, 0x000, 0);
    acc_core(s, CT_LOAD, 0x000, 1);
    CHECK_EQ_U64(ct_sim_nlevels(s), 4);
    CHECK_EQ_U64(ks(s, lvl(s, "l2", 1), CT_LOAD)->misses, 1);
    ct_sim_free(s);
}

TEST(physical_indexing_uses_the_physical_address)
{
    const char *kv[] = {SMALL, NULL};
    ct_sim *s = sim_of(kv);
    ct_access a = {.vaddr = 0x5000, .paddr = 0x40, .size = 4, .kind = CT_LOAD,
                   .flags = CT_F_PADDR};
    ct_sim_access(s, &a);
    CHECK(resident(s, lvl(s, "l1d", 0), 0x40));
    ct_sim_free(s);
    {
        const char *kv2[] = {SMALL, "system.indexing=virtual", NULL};
        s = sim_of(kv2);
        ct_sim_access(s, &a);
        CHECK(resident(s, lvl(s, "l1d", 0), 0x5000));
        ct_sim_free(s);
    }
}

TEST(non_power_of_two_sets_use_modulo)
{
    /* 3 sets x 1 way: blocks 0 and 3 share set 0, block 1 does not */
    const char *kv[] = {"l1d.size=192", "l1d.assoc=1", NULL};
    ct_sim *s = sim_of(kv);
    size_t l1 = lvl(s, "l1d", 0);
    CHECK_EQ_U64(ct_sim_level_info(s, l1)->sets, 3);
    acc(s, CT_LOAD, 0x000, 4);
    acc(s, CT_LOAD, 0x040, 4);
    acc(s, CT_LOAD, 0x0c0, 4);   /* block 3 -> set 0, evicts block 0 */
    CHECK(!resident(s, l1, 0x000) && resident(s, l1, 0x040) && resident(s, l1, 0x0c0));
    ct_sim_free(s);
}

TEST(atomic_always_allocates_and_dirties)
{
    const char *kv[] = {SMALL, "l1d.write_allocate=no", NULL};
    ct_sim *s = sim_of(kv);
    acc(s, CT_ATOMIC, 0x000, 8);
    CHECK(dirty(s, lvl(s, "l1d", 0), 0x000));
    ct_sim_free(s);
}

TEST(masked_addresses_are_refused)
{
    const char *kv[] = {SMALL, NULL};
    ct_sim *s = sim_of(kv);
    ct_batch b = {0};
    ct_error err = {0};
    CHECK(ct_batch_init(&b, 4) == CT_OK);
    b.acc[0] = (ct_access){.kind = CT_LOAD, .size = 4, .flags = CT_F_NOADDR};
    b.n = 1;
    CHECK(ct_sim_run(s, &b, &err) == CT_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "no address");
    CHECK_EQ_U64(ct_sim_get_totals(s)->accesses[CT_LOAD], 0);
    ct_batch_free(&b);
    ct_sim_free(s);
}

typedef struct ev_rec {
    int n;
    ct_event ev[8];
    size_t level[8];
} ev_rec;

static void record_event(void *ctx, const ct_event *ev, size_t level)
{
    ev_rec *r = ctx;
    if (r->n < 8) {
        r->ev[r->n] = *ev;
        r->level[r->n] = level;
    }
    r->n++;
}

TEST(events_report_set_way_line_ids)
{
    const char *kv[] = {SMALL, NULL};
    ct_sim *s = sim_of(kv);
    ev_rec r = {0};

    ct_sim_set_event_sink(s, record_event, &r);
    acc(s, CT_STORE, 0x040, 4);  /* block 1: L2 set 1 way 0, L1 set 1 way 0 */
    CHECK_EQ_U64(r.n, 3);
    /* the fetch fills the L2 first, then the L1 line is filled and dirtied */
    CHECK_EQ_U64(r.ev[0].op, CT_EVOP_ALLOC);
    CHECK_EQ_U64(r.level[0], lvl(s, "l2", -1));
    CHECK_EQ_U64(r.ev[0].line, 1 * 4 + 0);
    CHECK_EQ_U64(r.ev[1].op, CT_EVOP_ALLOC);
    CHECK_EQ_U64(r.level[1], lvl(s, "l1d", 0));
    CHECK_EQ_U64(r.ev[1].line, 1 * 2 + 0);
    CHECK_EQ_U64(r.ev[1].addr, 0x040);
    CHECK_EQ_U64(r.ev[2].op, CT_EVOP_DIRTY);
    ct_sim_set_event_sink(s, NULL, NULL);
    acc(s, CT_LOAD, 0x0c0, 4);
    CHECK_EQ_U64(r.n, 3);        /* no sink, no events */
    ct_sim_free(s);
}

/* One set of four ways; blocks A..F at 64-byte lines. After each access of
 * A B C D A E B F the resident set is compared with the hand-worked one. */
static void check_residents(const char *policy, const char *const want[8])
{
    char rep[64];
    const char *kv[] = {"l1d.size=256", "l1d.assoc=4", "l1d.line=64", rep, NULL};
    const char *seq = "ABCDAEBF";
    ct_sim *s;
    size_t l1;

    snprintf(rep, sizeof rep, "l1d.replacement=%s", policy);
    s = sim_of(kv);
    l1 = lvl(s, "l1d", 0);
    for (int i = 0; i < 8; i++) {
        char got[8] = "";
        size_t n = 0;
        acc(s, CT_LOAD, (uint64_t)(seq[i] - 'A') * 64, 4);
        for (char b = 'A'; b <= 'F'; b++)
            if (resident(s, l1, (uint64_t)(b - 'A') * 64))
                got[n++] = b;
        got[n] = '\0';
        if (strcmp(got, want[i]) != 0)
            fprintf(stderr, "%s after access %d (%c): resident %s, want %s\n", policy, i + 1,
                    seq[i], got, want[i]);
        CHECK(strcmp(got, want[i]) == 0);
    }
    ct_sim_free(s);
}

TEST(policies_evict_the_expected_line_in_the_model)
{
    /* LRU: E evicts B, B evicts C, F evicts D */
    static const char *const lru[8] = {"A", "AB", "ABC", "ABCD", "ABCD", "ACDE", "ABDE", "ABEF"};
    /* FIFO: the hit on A changes nothing: E evicts A, F evicts B */
    static const char *const fifo[8] = {"A", "AB", "ABC", "ABCD", "ABCD", "BCDE", "BCDE", "CDEF"};
    /* LFU: A counts 2; E takes B's way (lowest of the 1s), B takes E's, F takes B's */
    static const char *const lfu[8] = {"A", "AB", "ABC", "ABCD", "ABCD", "ACDE", "ABCD", "ACDF"};
    /* tree PLRU: E replaces C (way 2), F replaces D (way 3) */
    static const char *const plru[8] = {"A", "AB", "ABC", "ABCD", "ABCD", "ABDE", "ABDE", "ABEF"};
    /* SRRIP: E ages the set and takes B's way; B takes C's; F takes D's */
    static const char *const srrip[8] = {"A", "AB", "ABC", "ABCD", "ABCD", "ACDE", "ABDE", "ABEF"};
    check_residents("lru", lru);
    check_residents("fifo", fifo);
    check_residents("lfu", lfu);
    check_residents("plru", plru);
    check_residents("srrip", srrip);
}

/* Random replacement on one 4-way set: the ways fill in order, then each
 * miss evicts the way GSL's mt19937 draws (gsl_rng_uniform_int(r, 4)), the
 * generator seeded with [system] seed plus the level's index (0 here: the
 * only level). The expected ways come from a generator of the test's own,
 * and the set is compared after every access. */
TEST(random_replacement_evicts_the_drawn_way)
{
    const char *kv[] = {"l1d.size=256", "l1d.assoc=4", "l1d.line=64", "l1d.replacement=random",
                        "system.seed=20240611", NULL};
    ct_sim *s = sim_of(kv);
    const ct_cache *c = &s->lv[lvl(s, "l1d", 0)].c;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    uint64_t want[4] = {CT_TAG_INVALID, CT_TAG_INVALID, CT_TAG_INVALID, CT_TAG_INVALID};
    uint64_t x = 1;
    int draws = 0, hits = 0, ok = 1;

    gsl_rng_set(r, 20240611);
    for (int i = 0; i < 300 && ok; i++) {
        uint64_t block;
        int way = -1;
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        block = (x >> 33) % 7;  /* seven blocks, one set */
        for (int w = 0; w < 4; w++)
            if (want[w] == block)
                way = w;
        if (way >= 0) {
            hits++;
        } else {
            for (int w = 3; w >= 0; w--)
                if (want[w] == CT_TAG_INVALID)
                    way = w;
            if (way < 0) {
                way = (int)gsl_rng_uniform_int(r, 4);
                draws++;
            }
            want[way] = block;
        }
        acc(s, (x >> 20) & 1 ? CT_STORE : CT_LOAD, block * 64 + ((x >> 8) & 60), 4);
        for (int w = 0; w < 4; w++)
            if (ct_cache_tag(c, w) != want[w]) {
                fprintf(stderr, "  access %d (block %llu): way %d holds %llu, want %llu\n", i,
                        (unsigned long long)block, w, (unsigned long long)ct_cache_tag(c, w),
                        (unsigned long long)want[w]);
                ok = 0;
            }
    }
    CHECK(ok);
    CHECK(draws > 100 && hits > 50);
    CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses + ks(s, 0, CT_STORE)->misses, (uint64_t)draws + 4);
    gsl_rng_free(r);
    ct_sim_free(s);
}

TEST(random_policies_repeat_with_their_seed)
{
    const char *policies[] = {"random", "brrip"};
    for (int p = 0; p < 2; p++) {
        uint64_t misses[2];
        for (int run = 0; run < 2; run++) {
            char rep[64];
            const char *kv[] = {"l1d.size=256", "l1d.assoc=4", rep, "system.seed=5", NULL};
            ct_sim *s;
            snprintf(rep, sizeof rep, "l1d.replacement=%s", policies[p]);
            s = sim_of(kv);
            for (int i = 0; i < 2000; i++)
                acc(s, CT_LOAD, (uint64_t)((i * 7919) % 13) * 64, 4);
            misses[run] = ks(s, lvl(s, "l1d", 0), CT_LOAD)->misses;
            CHECK(misses[run] > 0 && misses[run] < 2000);
            ct_sim_free(s);
        }
        CHECK_EQ_U64(misses[0], misses[1]);
    }
}

/* A line touched by a cache operation becomes the most recent, so the line
 * the previous access used must be stamped again when it is used next (the
 * memo of the line touched last may not skip it). */
TEST(lru_order_follows_cache_operations)
{
    const char *pols[] = {"lru", "plru"};
    for (int p = 0; p < 2; p++) {
        char rep[40];
        const char *kv[] = {"l1d.size=128", "l1d.assoc=2", "l1d.line=64", rep, NULL};
        ct_sim *s;
        size_t l1;
        snprintf(rep, sizeof rep, "l1d.replacement=%s", pols[p]);
        s = sim_of(kv);
        l1 = lvl(s, "l1d", 0);
        acc(s, CT_LOAD, 0x000, 4);      /* A */
        acc(s, CT_LOAD, 0x040, 4);      /* B */
        acc(s, CT_LOAD, 0x000, 4);      /* A again: B is the oldest */
        op(s, CT_OP_ZERO, 0x040, 64);   /* B hit by DC ZVA: A is the oldest */
        acc(s, CT_LOAD, 0x000, 4);      /* A used: B is the oldest again */
        acc(s, CT_LOAD, 0x080, 4);      /* C takes B's way */
        CHECK(resident(s, l1, 0x000));
        CHECK(!resident(s, l1, 0x040));
        CHECK(resident(s, l1, 0x080));
        ct_sim_free(s);
    }
}

/* replacement = opt looks at invalidations ahead (sim/policy/opt.c, "Next
 * use"). One set of 2 ways; loads of A (0xc0), B (0x0), C (0x200); an
 * invalidation of A, by a one-line operation or by one of three lines
 * (more than the level holds); loads of A and B. Not looking at the
 * invalidation, C would replace B (A's next load, 4, comes before B's, 5),
 * the invalidation would drop A and both would miss: 5 misses, as LRU. A
 * line invalidated before its next use is never used again: C replaces A,
 * A misses once more, B hits: 4 misses. */
static void opt_inval_trace(ct_sim *s, uint32_t inval_bytes)
{
    acc(s, CT_LOAD, 0xc0, 4);
    acc(s, CT_LOAD, 0x0, 4);
    acc(s, CT_LOAD, 0x200, 4);
    op(s, CT_OP_INVAL, 0xc0, inval_bytes);
    acc(s, CT_LOAD, 0xc0, 4);
    acc(s, CT_LOAD, 0x0, 4);
}

TEST(opt_looks_at_invalidations_ahead)
{
    const char *kv[] = {"l1d.size=128", "l1d.assoc=2", "l1d.line=64", "l1d.replacement=opt",
                        NULL};
    const char *lru[] = {"l1d.size=128", "l1d.assoc=2", "l1d.line=64", NULL};
    const char *dir = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
    ct_sim *l = sim_of(lru);

    opt_inval_trace(l, 64);
    CHECK_EQ_U64(ks(l, lvl(l, "l1d", 0), CT_LOAD)->misses, 5);
    ct_sim_free(l);
    for (uint32_t bytes = 64; bytes <= 192; bytes += 128) {
        ct_sim *first = sim_of(kv), *s = sim_of(kv);
        ct_error err = {0};
        CHECK(ct_sim_opt_record(first, dir, &err) == CT_OK);
        opt_inval_trace(first, bytes);
        CHECK(ct_sim_opt_replay(s, first, dir, &err) == CT_OK);
        ct_sim_free(first);
        opt_inval_trace(s, bytes);
        CHECK(ct_sim_opt_check(s, &err) == CT_OK);
        CHECK_EQ_U64(ks(s, lvl(s, "l1d", 0), CT_LOAD)->misses, 4);
        CHECK_EQ_U64(ks(s, lvl(s, "l1d", 0), CT_LOAD)->hits, 1);
        ct_sim_free(s);
    }
}

int main(void)
{
    RUN(lru_two_way_keeps_the_recent_pair);
    RUN(opt_looks_at_invalidations_ahead);
    RUN(lru_order_follows_cache_operations);
    RUN(policies_evict_the_expected_line_in_the_model);
    RUN(random_replacement_evicts_the_drawn_way);
    RUN(random_policies_repeat_with_their_seed);
    RUN(write_back_marks_dirty_and_writes_victims);
    RUN(write_through_forwards_every_store);
    RUN(no_write_allocate_bypasses);
    RUN(full_line_store_needs_no_fetch);
    RUN(line_crossing_access_is_split);
    RUN(an_access_ends_at_the_top_of_the_address_space);
    RUN(timing_charges_the_servicing_level);
    RUN(instructions_are_the_fetched_and_the_unfetched_ones);
    RUN(missing_l1i_sends_fetches_to_l2);
    RUN(inclusive_level_back_invalidates);
    RUN(exclusive_level_holds_victims_only);
    RUN(exclusive_needs_same_line_size);
    RUN(cache_operations);
    RUN(a_range_over_4_gib_is_maintained_whole);
    RUN(flush_at_end_writes_back_dirty_lines);
    RUN(nextline_prefetcher_fetches_the_following_line);
    RUN(stride_prefetcher_requests_after_a_stride_repeats);
    RUN(stride_prefetcher_table_is_replaced_least_recently_used);
    RUN(stream_prefetcher_follows_a_trained_stream);
    RUN(prefetched_lines_that_leave_unused_are_useless);
    RUN(uncached_ranges_and_device_memory_bypass_the_caches);
    RUN(uncached_device_accesses_leave_the_fast_path);
    RUN(three_c_classification);
    RUN(private_l1_shared_l2_across_cores);
    RUN(private_l2_per_core);
    RUN(physical_indexing_uses_the_physical_address);
    RUN(non_power_of_two_sets_use_modulo);
    RUN(atomic_always_allocates_and_dirties);
    RUN(masked_addresses_are_refused);
    RUN(events_report_set_way_line_ids);
    return harness_done();
}
