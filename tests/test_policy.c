/*
 * test_policy.c - every replacement policy, driven directly: the exact
 * victim after each step on one 4-way set, worked out by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "sim/policy.h"
#include "sim/policy/opt.h"
#include "sim/policy/lru.h"

static void *make(const ct_policy_ops *p) { return p->create(1, 4, 7); }

static void fill_all(const ct_policy_ops *p, void *st)
{
    for (uint32_t w = 0; w < 4; w++)
        p->fill(st, 0, w);
}

TEST(lru_victim_is_least_recent)
{
    void *st = make(&ct_policy_lru);
    fill_all(&ct_policy_lru, st);           /* ages: 0 oldest .. 3 newest */
    CHECK_EQ_U64(ct_policy_lru.victim(st, 0), 0);
    ct_policy_lru.hit(st, 0, 0);            /* order now 1,2,3,0 */
    CHECK_EQ_U64(ct_policy_lru.victim(st, 0), 1);
    ct_policy_lru.hit(st, 0, 1);            /* 2,3,0,1 */
    CHECK_EQ_U64(ct_policy_lru.victim(st, 0), 2);
    ct_policy_lru.fill(st, 0, 2);           /* 3,0,1,2 */
    CHECK_EQ_U64(ct_policy_lru.victim(st, 0), 3);
    ct_policy_lru.inval(st, 0, 1);          /* an empty way counts as oldest */
    CHECK_EQ_U64(ct_policy_lru.victim(st, 0), 1);
    ct_policy_lru.destroy(st);
}

TEST(plru_follows_the_tree)
{
    void *st = make(&ct_policy_plru);
    /* after touching 0,1,2,3: root points left (3 was right), the left node
     * points at 0 (1 was touched last there) */
    fill_all(&ct_policy_plru, st);
    CHECK_EQ_U64(ct_policy_plru.victim(st, 0), 0);
    /* touching 0: root points right, the right node points at 2 (3 last) */
    ct_policy_plru.hit(st, 0, 0);
    CHECK_EQ_U64(ct_policy_plru.victim(st, 0), 2);
    /* touching 2: root points left, the left node points at 1 (0 last) */
    ct_policy_plru.hit(st, 0, 2);
    CHECK_EQ_U64(ct_policy_plru.victim(st, 0), 1);
    CHECK(ct_policy_plru.check(6) != NULL);
    CHECK(ct_policy_plru.check(8) == NULL);
    ct_policy_plru.destroy(st);
}

TEST(fifo_ignores_hits)
{
    void *st = make(&ct_policy_fifo);
    fill_all(&ct_policy_fifo, st);
    ct_policy_fifo.hit(st, 0, 0);
    ct_policy_fifo.hit(st, 0, 0);
    CHECK_EQ_U64(ct_policy_fifo.victim(st, 0), 0);
    ct_policy_fifo.fill(st, 0, 0);          /* refilled: now the newest */
    CHECK_EQ_U64(ct_policy_fifo.victim(st, 0), 1);
    ct_policy_fifo.destroy(st);
}

TEST(random_is_seeded_and_uniform)
{
    void *a = ct_policy_random.create(1, 4, 42), *b = ct_policy_random.create(1, 4, 42);
    uint64_t count[4] = {0};
    int same = 1;

    for (int i = 0; i < 20000; i++) {
        uint32_t va = ct_policy_random.victim(a, 0), vb = ct_policy_random.victim(b, 0);
        CHECK(va < 4);
        same &= va == vb;
        count[va]++;
    }
    CHECK(same); /* one seed, one sequence */
    for (int w = 0; w < 4; w++)
        CHECK(count[w] > 4500 && count[w] < 5500);
    ct_policy_random.destroy(a);
    ct_policy_random.destroy(b);
}

TEST(srrip_ages_then_evicts_distant)
{
    void *st = make(&ct_policy_srrip);
    fill_all(&ct_policy_srrip, st);         /* RRPV 2,2,2,2 */
    ct_policy_srrip.hit(st, 0, 0);          /* 0,2,2,2 */
    /* no way at 3: all age to 1,3,3,3; way 1 is the first distant one */
    CHECK_EQ_U64(ct_policy_srrip.victim(st, 0), 1);
    ct_policy_srrip.fill(st, 0, 1);         /* 1,2,3,3 */
    CHECK_EQ_U64(ct_policy_srrip.victim(st, 0), 2);
    ct_policy_srrip.hit(st, 0, 2);          /* 1,2,0,3 */
    CHECK_EQ_U64(ct_policy_srrip.victim(st, 0), 3);
    ct_policy_srrip.hit(st, 0, 3);          /* 1,2,0,0 -> ages to 2,3,1,1 */
    CHECK_EQ_U64(ct_policy_srrip.victim(st, 0), 1);
    ct_policy_srrip.destroy(st);
}

TEST(brrip_inserts_distant_mostly)
{
    void *st = ct_policy_brrip.create(1, 2, 3);
    int at_long = 0;

    /* way 0 just hit (RRPV 0), way 1 just filled (3, or 2 one time in 32):
     * either way 1 is distant already, or one ageing pass makes it so
     * (0,2 -> 1,3): the victim is always way 1 */
    for (int i = 0; i < 640; i++) {
        ct_policy_brrip.hit(st, 0, 0);
        ct_policy_brrip.fill(st, 0, 1);
        CHECK_EQ_U64(ct_policy_brrip.victim(st, 0), 1);
    }
    ct_policy_brrip.destroy(st);

    /* way 0 filled (3 or 2), way 1 emptied (3): the victim is way 0 exactly
     * when way 0 was inserted distant, so counting way-1 victims counts the
     * long insertions: about 3200 / 32 = 100 */
    st = ct_policy_brrip.create(1, 2, 11);
    for (int i = 0; i < 3200; i++) {
        ct_policy_brrip.fill(st, 0, 0);
        ct_policy_brrip.inval(st, 0, 1);
        if (ct_policy_brrip.victim(st, 0) == 1)
            at_long++;
    }
    CHECK(at_long > 50 && at_long < 160);
    ct_policy_brrip.destroy(st);
}

TEST(lfu_keeps_frequent_lines)
{
    void *st = make(&ct_policy_lfu);
    fill_all(&ct_policy_lfu, st);           /* counts 1,1,1,1 */
    ct_policy_lfu.hit(st, 0, 0);
    ct_policy_lfu.hit(st, 0, 0);            /* 3,1,1,1 */
    ct_policy_lfu.hit(st, 0, 1);            /* 3,2,1,1 */
    CHECK_EQ_U64(ct_policy_lfu.victim(st, 0), 2);
    ct_policy_lfu.hit(st, 0, 2);            /* 3,2,2,1 */
    CHECK_EQ_U64(ct_policy_lfu.victim(st, 0), 3);
    CHECK(!ct_policy_lfu.rehit_idempotent);
    ct_policy_lfu.destroy(st);
}

TEST(registry_finds_every_policy)
{
    const char *names[] = {"lru", "plru", "fifo", "random", "srrip", "brrip", "lfu"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int idx = ct_policy_find(names[i]);
        CHECK(idx >= 0);
        CHECK(idx >= 0 && strcmp(ct_policy_at((size_t)idx)->name, names[i]) == 0);
    }
    CHECK(ct_policy_find("mru") == -1);
}

/* The way at recency position i of a row of ways ways. */
static uint32_t row_at(const uint64_t *r, uint32_t i, uint32_t ways)
{
    for (uint32_t w = 0; w < ways; w++)
        if ((uint32_t)(r[w / 8] >> (8 * (w % 8)) & 0xff) == i)
            return w;
    return 0xff;
}

TEST(lru_rows_move_to_front)
{
    /* 4 ways in one word: a zeroed row is a fresh set, victims 0, 1, 2, 3 */
    uint64_t r[2] = {0, 0};
    CHECK_EQ_U64(ct_lru_row_victim(r, 4), 0);
    CHECK_EQ_U64(r[0], 0x7f7f7f7f00010203ull);  /* 3 2 1 0: ages 3 2 1 0, padding */
    ct_lru_row_use(r, 0, 4);                     /* 0 3 2 1 */
    CHECK_EQ_U64(ct_lru_row_victim(r, 4), 1);
    ct_lru_row_use(r, 1, 4);                     /* 1 0 3 2 */
    ct_lru_row_use(r, 2, 4);                     /* 2 1 0 3 */
    ct_lru_row_use(r, 3, 4);                     /* 3 2 1 0 */
    ct_lru_row_use(r, 0, 4);                     /* 0 3 2 1: the oldest moves up */
    CHECK_EQ_U64(ct_lru_row_pos(r, 2, 4), 2);
    CHECK_EQ_U64(ct_lru_row_victim(r, 4), 1);
    ct_lru_row_use(r, 1, 4);                     /* 1 0 3 2 */
    CHECK_EQ_U64(ct_lru_row_victim(r, 4), 2);
    /* ways 1 and 3 dropped (one at a time): 0 and 2 keep their order,
     * then the empty ways, the lowest last */
    ct_lru_row_drop(r, 4, 3, 0x7);               /* 1 0 2 3 */
    CHECK_EQ_U64(ct_lru_row_victim(r, 4), 3);
    ct_lru_row_drop(r, 4, 1, 0x5);               /* 0 2 3 1 */
    CHECK_EQ_U64(row_at(r, 0, 4), 0);
    CHECK_EQ_U64(row_at(r, 1, 4), 2);
    CHECK_EQ_U64(ct_lru_row_victim(r, 4), 1);
    ct_lru_row_use(r, 1, 4);                     /* 1 0 2 3 */
    CHECK_EQ_U64(ct_lru_row_victim(r, 4), 3);

    /* 16 ways in two words: a use ages the younger ways of both words */
    r[0] = r[1] = 0;
    CHECK_EQ_U64(ct_lru_row_victim(r, 16), 0);  /* 15 14 .. 0 */
    CHECK_EQ_U64(ct_lru_row_pos(r, 5, 16), 10);
    ct_lru_row_use(r, 5, 16);                    /* 5 15 14 .. 6 4 3 2 1 0 */
    CHECK_EQ_U64(row_at(r, 0, 16), 5);
    CHECK_EQ_U64(row_at(r, 8, 16), 8);
    CHECK_EQ_U64(row_at(r, 10, 16), 6);
    CHECK_EQ_U64(row_at(r, 11, 16), 4);
    CHECK_EQ_U64(ct_lru_row_victim(r, 16), 0);
    ct_lru_row_use(r, 0, 16);                    /* 0 5 15 .. 6 4 3 2 1 */
    CHECK_EQ_U64(ct_lru_row_victim(r, 16), 1);
    CHECK_EQ_U64(row_at(r, 15, 16), 1);
    ct_lru_row_use(r, 9, 16);                    /* 9 0 5 15 .. 10 8 7 6 4 3 2 1 */
    CHECK_EQ_U64(row_at(r, 8, 16), 10);
    CHECK_EQ_U64(row_at(r, 9, 16), 8);
    CHECK_EQ_U64(ct_lru_row_pos(r, 9, 16), 0);
    CHECK_EQ_U64(ct_lru_row_pos(r, 1, 16), 15);
}

/* The row of a set against a plain array moved by hand, and the portable
 * code against the one the build uses, over 20000 random uses of 1 to 16
 * ways (fills of the victim, also through ct_lru_row_fill, and hits). */
TEST(lru_rows_match_an_array)
{
    uint64_t x = 12345;
    int ok = 1;
    for (uint32_t ways = 1; ways <= CT_LRU_ROW_WAYS && ok; ways++) {
        uint64_t r[2] = {0, 0}, q[2], f[2];
        uint8_t ref[CT_LRU_ROW_WAYS];
        for (uint32_t i = 0; i < ways; i++)
            ref[i] = (uint8_t)(ways - 1 - i);
        for (int n = 0; n < 20000 && ok; n++) {
            uint32_t way, p = 0;
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            way = (x >> 33) % 3 == 0 ? ct_lru_row_victim(r, ways) : (uint32_t)(x >> 40) % ways;
            if (n == 0)
                (void)ct_lru_row_victim(r, ways);
            while (ref[p] != way)
                p++;
            memmove(ref + 1, ref, p);
            ref[0] = (uint8_t)way;
            q[0] = r[0];
            q[1] = r[1];
            f[0] = r[0];
            f[1] = r[1];
            ct_lru_row_fill(f, way, ways);  /* right when way was the oldest */
            ct_lru_row_use(r, way, ways);
            ct_lru_row_use_scalar(q, way, ways);
            for (uint32_t i = 0; i < ways; i++)
                ok &= row_at(r, i, ways) == ref[i];
            ok &= q[0] == r[0] && (ways <= 8 || q[1] == r[1]);
            if (p == ways - 1)
                ok &= f[0] == r[0] && (ways <= 8 || f[1] == r[1]);
            ok &= ct_lru_row_oldest_scalar(r, ways) == ct_lru_row_victim(r, ways);
            ok &= row_at(r, ways - 1, ways) == ct_lru_row_victim(r, ways);
        }
        if (!ok)
            fprintf(stderr, "  %u ways: rows differ\n", ways);
    }
    CHECK(ok);
}

TEST(opt_evicts_the_furthest_next_use)
{
    ct_opt *o = make(&ct_policy_opt);
    const uint64_t next[4] = {5, CT_OPT_NEVER, 3, 9};
    for (uint32_t w = 0; w < 4; w++) {
        o->cur = next[w];                   /* the arrival that fills way w */
        ct_policy_opt.fill(o, 0, w);
    }
    CHECK_EQ_U64(ct_policy_opt.victim(o, 0), 1);  /* never used again */
    o->cur = 7;
    ct_policy_opt.hit(o, 0, 1);             /* next uses 5, 7, 3, 9 */
    CHECK_EQ_U64(ct_policy_opt.victim(o, 0), 3);
    o->cur = 9;
    ct_policy_opt.hit(o, 0, 0);             /* 9, 7, 3, 9: the lowest way of a tie */
    CHECK_EQ_U64(ct_policy_opt.victim(o, 0), 0);
    ct_policy_opt.destroy(o);
}

/* The next uses of a recorded stream, read back in step: A B A C B gives
 * 2, 4, never, never, never; a stream of three blocks in turn over several
 * chunks gives i + 3 to all but the last three. */
TEST(opt_next_uses_from_the_backward_pass)
{
    const char *dir = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
    const uint64_t blocks[5] = {10, 11, 10, 12, 11};
    const uint64_t want[5] = {2, 4, CT_OPT_NEVER, CT_OPT_NEVER, CT_OPT_NEVER};
    const uint64_t n = 3 * (uint64_t)CT_OPT_CHUNK + 5;
    ct_opt *rec = make(&ct_policy_opt), *sim = make(&ct_policy_opt);
    int ok = 1;

    CHECK(ct_opt_record(rec, dir) == 0);
    for (int i = 0; i < 5; i++)
        ct_opt_arrive(rec, blocks[i]);
    CHECK(ct_opt_replay(sim, rec, dir) == 0);
    for (int i = 0; i < 5; i++) {
        ct_opt_arrive(sim, blocks[i]);
        CHECK_EQ_U64(sim->cur, want[i]);
    }
    CHECK(!sim->failed);
    ct_opt_arrive(sim, 10);                 /* one more than the first pass saw */
    CHECK(sim->failed);
    CHECK(strstr(sim->msg, "more arrivals than the first") != NULL);

    CHECK(ct_opt_record(rec, dir) == 0);
    for (uint64_t i = 0; i < n; i++)
        ct_opt_arrive(rec, i % 3);
    CHECK(ct_opt_replay(sim, rec, dir) == 0);
    for (uint64_t i = 0; i < n; i++) {
        ct_opt_arrive(sim, i % 3);
        ok &= sim->cur == (i + 3 < n ? i + 3 : CT_OPT_NEVER);
    }
    CHECK(ok);
    CHECK_EQ_U64(ct_opt_position(sim), n);
    ct_policy_opt.destroy(rec);
    ct_policy_opt.destroy(sim);
}

int main(void)
{
    RUN(lru_victim_is_least_recent);
    RUN(lru_rows_move_to_front);
    RUN(lru_rows_match_an_array);
    RUN(plru_follows_the_tree);
    RUN(fifo_ignores_hits);
    RUN(random_is_seeded_and_uniform);
    RUN(srrip_ages_then_evicts_distant);
    RUN(brrip_inserts_distant_mostly);
    RUN(lfu_keeps_frequent_lines);
    RUN(registry_finds_every_policy);
    RUN(opt_evicts_the_furthest_next_use);
    RUN(opt_next_uses_from_the_backward_pass);
    return harness_done();
}
