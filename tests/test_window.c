/*
 * test_window.c - ct_sim_set_window and [system] warmup_fraction (the rules
 * at the top of sim/window.c) on streams small enough to follow by hand:
 * thread exits are references, skipped references leave no trace, a
 * warm-up resets every statistic and keeps the cache contents, a warm-up
 * by fraction ends at the reference that fills enough of the last level,
 * and cutting the stream into batches anywhere changes nothing.
 */
#include "cachet/cachet.h"
#include "harness.h"
#include "sim_sets.h"

/* one core, L1D of 2 lines of 64 bytes (one set), L2 of 4 lines */
#define SMALL(compat)                                                                   \
    "system.compat=" compat, "l1d.assoc=2", "l1d.size=128", "l1d.line=64", "l2.assoc=4", \
        "l2.size=256", "l2.line=64"

/* A batch of loads of the given lines, with a thread exit before the
 * accesses listed in exits (-1 ends the list). */
static void fill(ct_batch *b, const uint64_t *lines, uint32_t n, const int *exits)
{
    ct_batch_clear(b);
    for (uint32_t i = 0; i < n; i++) {
        ct_access *a = &b->acc[b->n++];
        memset(a, 0, sizeof *a);
        a->kind = CT_LOAD;
        a->vaddr = lines[i] * 64;
        a->size = 4;
    }
    for (size_t i = 0; exits && exits[i] >= 0; i++) {
        ct_marker *m = &b->mk[b->nmk++];
        memset(m, 0, sizeof *m);
        m->index = (uint32_t)exits[i];
        m->type = CT_MK_THREAD_EXIT;
        m->thread = 7;
    }
}

static const ct_kind_stats *ks(ct_sim *s, size_t level, int kind)
{
    return &ct_sim_level_stats(s, level)->kind[kind];
}

/* References: a0 a1 a2 a3 a4 X a5 a6 ... (X a thread exit). Skip 3, simulate
 * 4: a3 a4 X a5, three loads; later batches are dropped. */
TEST(thread_exits_are_references)
{
    static const uint64_t lines[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const int exits[] = {5, -1};
    ct_batch b = {0};
    ct_window w = {3, 0, 4, 0};
    ct_error err = {0};
    const char *const modes[] = {"none", "drcachesim"};

    CHECK(ct_batch_init(&b, 64) == CT_OK);
    for (int m = 0; m < 2; m++) {
        const char *sets[] = {"system.compat=none", "l1d.assoc=2", "l1d.size=128",
                              "l1d.line=64", NULL};
        ct_sim *s;
        char c[64];
        snprintf(c, sizeof c, "system.compat=%s", modes[m]);
        sets[0] = c;
        s = make(sets);
        CHECK(s != NULL);
        if (!s)
            continue;
        CHECK(ct_sim_set_window(s, &w, &err) == CT_OK);
        fill(&b, lines, 10, exits);
        CHECK(ct_sim_run(s, &b, &err) == CT_OK);
        CHECK_EQ_U64(ks(s, 0, CT_LOAD)->accesses, 3);
        CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 3);
        CHECK_EQ_U64(ct_sim_get_totals(s)->accesses[CT_LOAD], 3);
        CHECK_EQ_U64(ct_sim_window_stats(s)->skipped, 3);
        CHECK_EQ_U64(ct_sim_window_stats(s)->simulated, 4);
        CHECK(ct_sim_window_done(s));
        CHECK(ct_sim_run(s, &b, &err) == CT_OK);   /* dropped */
        CHECK_EQ_U64(ks(s, 0, CT_LOAD)->accesses, 3);
        ct_sim_free(s);
    }
    ct_batch_free(&b);
}

/* Loads of lines 0 1 0 1 2 0 with a warm-up of 2: the two misses of the
 * warm-up are gone from the counters (kept as the warm-up statistics), the
 * lines stayed (0 and 1 hit), 2 misses and replaces 0 (LRU), so 0 misses
 * again. Under compat = drcachesim only line 2's miss is compulsory: line
 * 0 missed during the warm-up. */
TEST(a_warm_up_resets_the_counters_and_keeps_the_lines)
{
    static const uint64_t lines[] = {0, 1, 0, 1, 2, 0};
    ct_batch b = {0};
    ct_window w = {0, 2, UINT64_MAX, 0};
    ct_error err = {0};

    CHECK(ct_batch_init(&b, 64) == CT_OK);
    for (int m = 0; m < 2; m++) {
        ct_sim *s = m ? make((const char *const[]){SMALL("drcachesim"), NULL})
                      : make((const char *const[]){SMALL("none"), NULL});
        CHECK(s != NULL);
        if (!s)
            continue;
        CHECK(ct_sim_set_window(s, &w, &err) == CT_OK);
        fill(&b, lines, 6, NULL);
        CHECK(ct_sim_run(s, &b, &err) == CT_OK);
        CHECK_EQ_U64(ks(s, 0, CT_LOAD)->accesses, 4);
        CHECK_EQ_U64(ks(s, 0, CT_LOAD)->hits, 2);
        CHECK_EQ_U64(ks(s, 0, CT_LOAD)->misses, 2);
        CHECK_EQ_U64(ct_sim_get_totals(s)->accesses[CT_LOAD], 4);
        CHECK(ct_sim_level_warmup_stats(s, 0) != NULL);
        if (ct_sim_level_warmup_stats(s, 0))
            CHECK_EQ_U64(ct_sim_level_warmup_stats(s, 0)->kind[CT_LOAD].misses, 2);
        CHECK(ct_sim_window_stats(s)->warmed);
        CHECK_EQ_U64(ct_sim_window_stats(s)->warmup, 2);
        CHECK_EQ_U64(ct_sim_window_stats(s)->simulated, 4);
        CHECK(!ct_sim_window_done(s));
        if (m)
            CHECK_EQ_U64(ks(s, 0, CT_LOAD)->compulsory, 1);
        ct_sim_free(s);
    }
    ct_batch_free(&b);
}

/* warmup_fraction = 0.5 of an L2 of 4 lines: loads of lines 0 0 1 2 3;
 * the L2 holds 2 lines after the third load, which ends the warm-up: the
 * counters hold the last two loads. With a warm-up of 2 references as well,
 * the references end it first (after the second load). */
TEST(a_warm_up_by_fraction_ends_when_the_last_level_is_that_full)
{
    static const uint64_t lines[] = {0, 0, 1, 2, 3};
    ct_batch b = {0};
    ct_error err = {0};
    ct_sim *s;

    CHECK(ct_batch_init(&b, 64) == CT_OK);
    s = make((const char *const[]){SMALL("drcachesim"), "system.warmup_fraction=0.5", NULL});
    CHECK(s != NULL);
    if (s) {
        fill(&b, lines, 5, NULL);
        CHECK(ct_sim_run(s, &b, &err) == CT_OK);
        CHECK_EQ_U64(ct_sim_window_stats(s)->warmup, 3);
        CHECK_EQ_U64(ks(s, 0, CT_LOAD)->accesses, 2);
        CHECK_EQ_U64(ks(s, 1, CT_LOAD)->misses, 2);
        CHECK_EQ_U64(ct_sim_level_warmup_stats(s, 0)->kind[CT_LOAD].hits, 1);
        ct_sim_free(s);
    }
    s = make((const char *const[]){SMALL("drcachesim"), "system.warmup_fraction=0.5", NULL});
    CHECK(s != NULL);
    if (s) {
        ct_window w = {0, 2, UINT64_MAX, 0};
        CHECK(ct_sim_set_window(s, &w, &err) == CT_OK);
        fill(&b, lines, 5, NULL);
        CHECK(ct_sim_run(s, &b, &err) == CT_OK);
        CHECK_EQ_U64(ct_sim_window_stats(s)->warmup, 2);
        CHECK_EQ_U64(ks(s, 0, CT_LOAD)->accesses, 3);
        ct_sim_free(s);
    }
    ct_batch_free(&b);
}

TEST(warmup_fraction_is_checked)
{
    static const char *const bad[][3] = {
        {"system.compat=drcachesim", "system.warmup_fraction=1.5", "from 0 to 1"},
        {"system.compat=drcachesim", "system.warmup_fraction=x", "from 0 to 1"},
        {"system.compat=none", "system.warmup_fraction=0.5", "needs compat = drcachesim"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ct_config *cfg = NULL;
        ct_sim *s = NULL;
        ct_error err = {0};
        int rc;
        CHECK(ct_config_new_empty(&cfg, &err) == CT_OK);
        CHECK(ct_config_set(cfg, bad[i][0], &err) == CT_OK);
        rc = ct_config_set(cfg, bad[i][1], &err);
        if (rc == CT_OK)
            rc = ct_sim_create(&s, cfg, &err);
        CHECK(rc != CT_OK);
        CHECK_STR_CONTAINS(err.msg, bad[i][2]);
        ct_sim_free(s);
        ct_config_free(cfg);
    }
}

/* One stream of 4000 loads with thread exits, fed as one batch and cut
 * into batches of every size from 1 to 9: the same counters for windows
 * whose edges fall everywhere. */
TEST(batch_edges_change_nothing)
{
    enum { N = 4000 };
    static uint64_t lines[N];
    static int exits[N / 50 + 1];
    ct_batch whole = {0}, part = {0};
    ct_error err = {0};
    uint64_t x = 12345;
    size_t ne = 0;

    for (uint32_t i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        lines[i] = (x >> 33) % 9;
        if (i % 50 == 7)
            exits[ne++] = (int)i;
    }
    exits[ne] = -1;
    CHECK(ct_batch_init(&whole, N) == CT_OK);
    CHECK(ct_batch_init(&part, 64) == CT_OK);
    fill(&whole, lines, N, exits);
    for (int m = 0; m < 2; m++)
        for (int wi = 0; wi < 4; wi++) {
            static const ct_window ws[] = {
                {0, 0, 1000, 0}, {17, 0, UINT64_MAX, 0}, {5, 333, 1200, 0}, {0, 1999, 7, 0}};
            ct_sim *ref = m ? make((const char *const[]){SMALL("drcachesim"), NULL})
                            : make((const char *const[]){SMALL("none"), NULL});
            CHECK(ref != NULL);
            if (!ref)
                continue;
            CHECK(ct_sim_set_window(ref, &ws[wi], &err) == CT_OK);
            CHECK(ct_sim_run(ref, &whole, &err) == CT_OK);
            for (uint32_t cut = 1; cut <= 9; cut++) {
                ct_sim *s = m ? make((const char *const[]){SMALL("drcachesim"), NULL})
                              : make((const char *const[]){SMALL("none"), NULL});
                uint32_t mi = 0;
                CHECK(s != NULL);
                if (!s)
                    continue;
                CHECK(ct_sim_set_window(s, &ws[wi], &err) == CT_OK);
                for (uint32_t a = 0; a < N; a += cut) {
                    uint32_t n = a + cut <= N ? cut : N - a;
                    ct_batch_clear(&part);
                    memcpy(part.acc, whole.acc + a, n * sizeof *part.acc);
                    part.n = n;
                    while (mi < whole.nmk && whole.mk[mi].index < a + n) {
                        part.mk[part.nmk] = whole.mk[mi++];
                        part.mk[part.nmk++].index -= a;
                    }
                    CHECK(ct_sim_run(s, &part, &err) == CT_OK);
                }
                for (size_t li = 0; li < 2; li++) {
                    CHECK_EQ_U64(ks(s, li, CT_LOAD)->accesses, ks(ref, li, CT_LOAD)->accesses);
                    CHECK_EQ_U64(ks(s, li, CT_LOAD)->misses, ks(ref, li, CT_LOAD)->misses);
                }
                CHECK_EQ_U64(ct_sim_window_stats(s)->simulated,
                             ct_sim_window_stats(ref)->simulated);
                CHECK_EQ_U64(ct_sim_window_stats(s)->warmup, ct_sim_window_stats(ref)->warmup);
                ct_sim_free(s);
            }
            ct_sim_free(ref);
        }
    ct_batch_free(&whole);
    ct_batch_free(&part);
}

int main(void)
{
    RUN(thread_exits_are_references);
    RUN(a_warm_up_resets_the_counters_and_keeps_the_lines);
    RUN(a_warm_up_by_fraction_ends_when_the_last_level_is_that_full);
    RUN(warmup_fraction_is_checked);
    RUN(batch_edges_change_nothing);
    return harness_done();
}
