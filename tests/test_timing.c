/*
 * test_timing.c - the rules at the top of sim/timing.c ([system] timing =
 * overlap), one tiny hand-checkable case each: cycles of a few accesses to
 * a 1 KiB direct-mapped L1D (latency 2) in front of memory (latency 100).
 */
#include <gsl/gsl_rng.h>

#include "harness.h"
#include "sim_sets.h"

#define TINY "system.timing=overlap", "l1d.size=1K", "l1d.assoc=1", "l1d.line=64", \
             "l1d.latency=2", "memory.latency=100"

static void load(ct_sim *s, uint64_t addr, uint16_t flags)
{
    ct_access a = {.vaddr = addr, .size = 8, .kind = CT_LOAD, .flags = flags};
    ct_sim_access(s, &a);
}

static uint64_t cycles(const ct_sim *s) { return ct_sim_get_totals(s)->cycles; }

/* The tiny model with up to three more settings (NULL ends them), checked. */
static ct_sim *tiny(const char *a, const char *b, const char *c)
{
    const char *sets[] = {TINY, a, b, c, NULL};
    ct_sim *s = make(sets);
    CHECK(s != NULL);
    return s;
}

/* Two loads to two lines, each missing to memory; a data-only trace makes
 * each load an instruction of its own. */
static uint64_t two_misses(const char *window, const char *mshrs, const char *cpi)
{
    ct_sim *s = tiny(window, mshrs, cpi);
    uint64_t c;
    if (!s)
        return 0;
    load(s, 0x0, 0);
    load(s, 0x1000, 0);
    c = cycles(s);
    ct_sim_free(s);
    return c;
}

TEST(two_independent_misses_overlap)
{
    /* both issue at 0 and complete at 100 */
    CHECK_EQ_U64(two_misses("system.window=8", "l1d.mshrs=2", "system.base_cpi=0"), 100);
    /* the second is dispatched one cycle later: 1 + 100 */
    CHECK_EQ_U64(two_misses("system.window=8", "l1d.mshrs=2", "system.base_cpi=1"), 101);
    CHECK_EQ_U64(two_misses("system.window=8", "l1d.mshrs=2", "system.base_cpi=0.5"), 101);
}

TEST(a_full_mshr_file_stalls_until_the_first_release)
{
    /* one entry: the second miss issues at 100, completes at 200 */
    CHECK_EQ_U64(two_misses("system.window=8", "l1d.mshrs=1", "system.base_cpi=0"), 200);
}

TEST(a_window_of_one_runs_in_order)
{
    /* the second instruction enters when the first has retired, at 100 */
    CHECK_EQ_U64(two_misses("system.window=1", "l1d.mshrs=2", "system.base_cpi=0"), 200);
    /* window 2: the second load is inside the first's window */
    CHECK_EQ_U64(two_misses("system.window=2", "l1d.mshrs=2", "system.base_cpi=0"), 100);
}

TEST(a_hit_on_a_line_still_in_flight_waits_for_its_fill)
{
    ct_sim *s = tiny("system.window=8", NULL, NULL);
    if (!s)
        return;
    load(s, 0x0, 0);  /* miss: 0 to 100 */
    load(s, 0x8, 0);  /* a hit at 0 (2 cycles) that merges: completes at 100 */
    CHECK_EQ_U64(cycles(s), 100);
    /* AMAT is blocking's: (100 + 2) / 2 */
    CHECK_EQ_U64(ct_sim_get_totals(s)->kind_cycles[CT_LOAD], 102);
    load(s, 0x10, 0); /* at 0 too (base_cpi 0), also merged */
    CHECK_EQ_U64(cycles(s), 100);
    ct_sim_free(s);
}

TEST(a_dependent_load_waits_for_the_load_before)
{
    ct_sim *s = tiny("system.window=8", NULL, NULL);
    if (!s)
        return;
    load(s, 0x0, 0);
    load(s, 0x1000, CT_F_DEPENDENT);  /* issues at 100 */
    CHECK_EQ_U64(cycles(s), 200);
    load(s, 0x2000, 0);               /* independent: 0 to 100, inside the window */
    CHECK_EQ_U64(cycles(s), 200);
    load(s, 0x3000, CT_F_DEPENDENT);  /* after the load before it: 100 to 200 */
    CHECK_EQ_U64(cycles(s), 200);
    load(s, 0x40, CT_F_DEPENDENT);    /* 200 to 300 */
    CHECK_EQ_U64(cycles(s), 300);
    ct_sim_free(s);
}

TEST(a_demand_reaching_a_prefetch_in_flight_counts_it_late)
{
    ct_sim *s = tiny("system.window=8", "l1d.prefetcher=nextline", NULL);
    const ct_level_stats *st;
    if (!s)
        return;
    load(s, 0x0, 0);   /* miss 0 to 100; prefetch of 0x40 sent at 0, arrives at 100 */
    load(s, 0x40, 0);  /* a hit on the prefetched line at 0: waits until 100 */
    st = ct_sim_level_stats(s, 0);
    CHECK_EQ_U64(st->prefetch_useful, 1);
    CHECK_EQ_U64(st->prefetch_late, 1);
    CHECK_EQ_U64(cycles(s), 100);
    ct_sim_free(s);
    {
        /* in order the prefetch has arrived when the demand comes: not late */
        s = tiny("system.window=1", "l1d.prefetcher=nextline", NULL);
        if (!s)
            return;
        load(s, 0x0, 0);
        load(s, 0x1080, 0);  /* 100 to 200 (its prefetch, of 0x10c0, takes another set) */
        load(s, 0x40, 0);    /* 200: 0x40 arrived at 100 */
        CHECK_EQ_U64(ct_sim_level_stats(s, 0)->prefetch_late, 0);
        CHECK_EQ_U64(cycles(s), 202);
        ct_sim_free(s);
    }
}

TEST(instructions_without_memory_take_base_cpi)
{
    ct_sim *s = tiny("system.base_cpi=0.5", NULL, NULL);
    ct_access a = {.kind = CT_NOFETCH, .flags = CT_F_NOPC};
    if (!s)
        return;
    for (int i = 0; i < 3; i++)
        ct_sim_access(s, &a);
    CHECK_EQ_U64(cycles(s), 2);  /* 1.5 rounded up */
    a.flags |= CT_F_REPEAT;      /* a repeat executes again: 2.0 */
    ct_sim_access(s, &a);
    CHECK_EQ_U64(cycles(s), 2);
    CHECK_EQ_U64(ct_sim_get_totals(s)->instructions, 3);
    a.flags &= (uint16_t)~CT_F_REPEAT;
    ct_sim_reset_stats(s);
    CHECK_EQ_U64(cycles(s), 0);
    ct_sim_access(s, &a);
    CHECK_EQ_U64(cycles(s), 1);  /* 2.5 - 2.0 */
    ct_sim_access(s, &a);
    CHECK_EQ_U64(cycles(s), 1);  /* 3.0 - 2.0 */
    ct_sim_access(s, &a);
    CHECK_EQ_U64(cycles(s), 2);  /* 3.5 - 2.0, rounded up */
    ct_sim_free(s);
}

TEST(an_instruction_runs_its_accesses_in_order)
{
    ct_sim *s = tiny("l1i.size=1K", "l1i.assoc=1", "l1i.latency=1");
    ct_access f = {.vaddr = 0x100000, .size = 4, .kind = CT_IFETCH};
    if (!s)
        return;
    ct_sim_access(s, &f);  /* fetch misses: 0 to 100 */
    load(s, 0x0, 0);       /* its load: 100 to 200 */
    load(s, 0x1000, 0);    /* its second load: 200 to 300 */
    f.vaddr += 4;
    ct_sim_access(s, &f);  /* the next instruction, dispatched at 0: its fetch hits
                              the line in flight, 0 to 100 */
    load(s, 0x2000, 0);    /* 100 to 200 */
    CHECK_EQ_U64(cycles(s), 300);
    ct_sim_free(s);
}

/* Two cores behind one shared L2 of one MSHR: each core has its own entry
 * there, so their misses do not wait for each other; each core's cycles are
 * its own clock's, the run's their sum. */
TEST(each_core_has_its_own_mshrs_at_a_shared_level)
{
    const char *sets[] = {"system.timing=overlap", "system.cores=2", "l2.size=4K",
                          "l2.shared=yes", "l2.mshrs=1", "memory.latency=100", NULL};
    ct_sim *s = make(sets);
    ct_access a = {.vaddr = 0x0, .size = 8, .kind = CT_LOAD};
    CHECK(s != NULL);
    if (!s)
        return;
    ct_sim_access(s, &a);      /* core 0: 0 to 100 */
    a.vaddr = 0x1000;
    a.core = 1;
    ct_sim_access(s, &a);      /* core 1: 0 to 100 */
    a.vaddr = 0x2000;
    ct_sim_access(s, &a);      /* core 1: its one entry is busy until 100: 100 to 200 */
    CHECK_EQ_U64(ct_sim_core_totals(s, 0)->cycles, 100);
    CHECK_EQ_U64(ct_sim_core_totals(s, 1)->cycles, 200);
    CHECK_EQ_U64(cycles(s), 300);
    ct_sim_free(s);
}

/* Random accesses of two cores (fetches, loads, stores, atomics, no-fetch
 * records, software prefetches, a few line crossings) through private L1s
 * and L2s and a shared L3: with window 1 and base_cpi 0 every core's
 * cycles are blocking's, whatever the mshrs. */
TEST(window_one_is_blocking)
{
    const char *common[] = {"system.cores=2", "l1i.size=1K", "l1d.size=2K", "l2.size=8K",
                            "l2.shared=no", "l3.size=32K", "l1d.write_back=no",
                            "l1d.write_allocate=no", NULL};
    const char *sets[3][16];
    ct_sim *s[3];
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    static const int kinds[] = {CT_IFETCH, CT_LOAD, CT_STORE, CT_ATOMIC, CT_NOFETCH,
                                CT_PREFETCH, CT_LOAD, CT_IFETCH};

    gsl_rng_set(r, 7);
    for (int v = 0; v < 3; v++) {
        int n = 0;
        for (int i = 0; common[i]; i++)
            sets[v][n++] = common[i];
        if (v) {
            sets[v][n++] = "system.timing=overlap";
            sets[v][n++] = "system.window=1";
            sets[v][n++] = v == 1 ? "l2.mshrs=1" : "l1d.mshrs=64";
        }
        sets[v][n] = NULL;
        s[v] = make(sets[v]);
        CHECK(s[v] != NULL);
        if (!s[v])
            return;
    }
    for (int i = 0; i < 20000; i++) {
        ct_access a = {.vaddr = gsl_rng_uniform_int(r, 1u << 16),
                       .size = 1u << gsl_rng_uniform_int(r, 4),
                       .kind = (uint8_t)kinds[gsl_rng_uniform_int(r, 8)],
                       .core = (uint16_t)gsl_rng_uniform_int(r, 2)};
        for (int v = 0; v < 3; v++)
            ct_sim_access(s[v], &a);
    }
    for (int v = 1; v < 3; v++) {
        for (uint32_t c = 0; c < 2; c++)
            CHECK_EQ_U64(ct_sim_core_totals(s[v], c)->cycles,
                         ct_sim_core_totals(s[0], c)->cycles);
        CHECK_EQ_U64(ct_sim_get_totals(s[v])->cycles, ct_sim_get_totals(s[0])->cycles);
    }
    CHECK(ct_sim_get_totals(s[0])->cycles > 100000);
    for (int v = 0; v < 3; v++)
        ct_sim_free(s[v]);
    gsl_rng_free(r);
}

TEST(what_overlap_does_not_model_is_refused)
{
    const char *dcs[] = {"system.timing=overlap", "system.compat=drcachesim", NULL};
    const char *tlb[] = {"system.timing=overlap", "dtlb.entries=16", NULL};
    const char *sub[] = {"system.timing=overlap", "l1d.size=1K", "l1d.subblock=16", NULL};
    ct_config *cfg = NULL;
    ct_error err = {0};
    CHECK(make(dcs) == NULL);
    CHECK(make(tlb) == NULL);
    CHECK(make(sub) == NULL);
    CHECK(ct_config_new_empty(&cfg, &err) == CT_OK);
    CHECK(ct_config_set(cfg, "system.base_cpi=0.25", &err) == CT_OK);
    CHECK(ct_config_set(cfg, "system.base_cpi=0.2505", &err) != CT_OK);
    CHECK(strstr(err.msg, "at most 3 decimals") != NULL);
    CHECK(ct_config_set(cfg, "system.base_cpi=1.", &err) != CT_OK);
    CHECK(ct_config_set(cfg, "system.base_cpi=-1", &err) != CT_OK);
    CHECK(ct_config_set(cfg, "system.base_cpi=1001", &err) != CT_OK);
    CHECK(ct_config_set(cfg, "system.window=0", &err) != CT_OK);
    CHECK(ct_config_set(cfg, "l2.mshrs=0", &err) != CT_OK);
    ct_config_free(cfg);
}

int main(void)
{
    RUN(two_independent_misses_overlap);
    RUN(a_full_mshr_file_stalls_until_the_first_release);
    RUN(a_window_of_one_runs_in_order);
    RUN(a_hit_on_a_line_still_in_flight_waits_for_its_fill);
    RUN(a_dependent_load_waits_for_the_load_before);
    RUN(a_demand_reaching_a_prefetch_in_flight_counts_it_late);
    RUN(instructions_without_memory_take_base_cpi);
    RUN(an_instruction_runs_its_accesses_in_order);
    RUN(each_core_has_its_own_mshrs_at_a_shared_level);
    RUN(window_one_is_blocking);
    RUN(what_overlap_does_not_model_is_refused);
    return harness_done();
}
