/*
 * test_hier_events.c - the cache events the model emits (rules "Events" at
 * the top of sim/hier.c), on tiny geometries where every slot is known.
 *
 * L1I and L1D: 256 B, 2-way, 64 B lines -> 2 sets, LINE = set * 2 + way.
 * L2: 1 KiB, 4-way -> 4 sets, LINE = set * 4 + way.
 * L3 (a system cache unless a test says otherwise): 2 KiB, 4-way -> 8 sets.
 */
#include <string.h>

#include "cachet/cachet.h"
#include "harness.h"

typedef struct rec {
    ct_event ev[64];
    size_t level[64];
    size_t n;
} rec;

static rec R;

static void sink(void *ctx, const ct_event *ev, size_t level)
{
    rec *r = ctx;
    if (r->n < 64) {
        r->ev[r->n] = *ev;
        r->level[r->n++] = level;
    }
}

/* The hierarchy above, with an L3 when with_l3, and one more setting
 * (NULL: none). */
static ct_sim *make_with(int with_l3, const char *extra)
{
    ct_config *cfg = NULL;
    ct_sim *s = NULL;
    ct_error err = {0};
    static const char *const keys[] = {
        "l1i.assoc=2", "l1i.size=256", "l1d.assoc=2", "l1d.size=256", "l2.assoc=4",
        "l2.size=1K", "system.indexing=physical",
    };
    ct_config_new_empty(&cfg, &err);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (ct_config_set(cfg, keys[i], &err) != CT_OK)
            fprintf(stderr, "%s\n", err.msg);
    if (with_l3) {
        ct_config_set(cfg, "l3.assoc=4", &err);
        ct_config_set(cfg, "l3.size=2K", &err);
    }
    if (extra && ct_config_set(cfg, extra, &err) != CT_OK)
        fprintf(stderr, "%s\n", err.msg);
    if (ct_sim_create(&s, cfg, &err) != CT_OK)
        fprintf(stderr, "%s\n", err.msg);
    ct_config_free(cfg);
    memset(&R, 0, sizeof R);
    if (s)
        ct_sim_set_event_sink(s, sink, &R);
    return s;
}

static ct_sim *make(int with_l3) { return make_with(with_l3, NULL); }

static void access_at(ct_sim *s, int kind, uint64_t addr, uint32_t size, uint16_t flags,
                      uint64_t time)
{
    ct_access a;
    ct_batch b;
    ct_error err = {0};
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.kind = (uint8_t)kind;
    a.vaddr = addr;
    a.paddr = addr;
    a.size = size;
    a.flags = (uint16_t)(flags | CT_F_PADDR);
    a.time = time;
    a.cpu = 3;
    b.acc = &a;
    b.n = b.cap = 1;
    ct_sim_run(s, &b, &err);
}

static void cacheop_at(ct_sim *s, int op, uint64_t addr)
{
    ct_access a;
    ct_batch b;
    ct_error err = {0};
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.kind = CT_CACHEOP;
    a.op = (uint8_t)op;
    a.vaddr = a.paddr = addr;
    a.size = 1;
    a.flags = CT_F_PADDR;
    b.acc = &a;
    b.n = b.cap = 1;
    ct_sim_run(s, &b, &err);
}

/* Level indexes: l1i 0, l1d 1, l2 2, l3 3. */
static int has(size_t level, int op, uint64_t line, uint64_t addr)
{
    for (size_t i = 0; i < R.n; i++)
        if (R.level[i] == level && R.ev[i].op == op && R.ev[i].line == line &&
            R.ev[i].addr == addr)
            return 1;
    return 0;
}

TEST(a_read_miss_allocates_in_each_processor_level)
{
    ct_sim *s = make(0);
    access_at(s, CT_LOAD, 0x48, 4, 0, 77);
    CHECK_EQ_U64(R.n, 2);
    CHECK(has(2, CT_EVOP_ALLOC, 1 * 4 + 0, 0x40)); /* L2 set 1 way 0 */
    CHECK(has(1, CT_EVOP_ALLOC, 1 * 2 + 0, 0x40)); /* L1D set 1 way 0 */
    CHECK_EQ_U64(R.ev[0].time, 77);
    CHECK_EQ_U64(R.ev[0].cpu, 3);
    CHECK_EQ_U64(R.ev[0].type, CT_EV_CACHE);
    CHECK(!(R.ev[0].flags & CT_EVF_NS));
    ct_sim_free(s);
}

TEST(writes_dirty_a_line_once)
{
    ct_sim *s = make(0);
    access_at(s, CT_LOAD, 0x40, 4, 0, 1);
    R.n = 0;
    access_at(s, CT_STORE, 0x44, 4, 0, 2);
    access_at(s, CT_STORE, 0x48, 4, 0, 3);
    CHECK_EQ_U64(R.n, 1);
    CHECK(has(1, CT_EVOP_DIRTY, 2, 0x40));
    ct_sim_free(s);
}

TEST(a_whole_line_write_fill_shows_as_dirty_alone)
{
    ct_sim *s = make(0);
    access_at(s, CT_STORE, 0x80, 64, 0, 1);
    CHECK_EQ_U64(R.n, 1);
    CHECK(has(1, CT_EVOP_DIRTY, 0, 0x80)); /* block 2: set 0, way 0 */
    ct_sim_free(s);
}

TEST(evictions_drop_with_inval_and_write_back_dirty_data)
{
    ct_sim *s = make(0);
    access_at(s, CT_STORE, 0x40, 4, 0, 1);  /* block 1, set 1, way 0, dirty */
    access_at(s, CT_LOAD, 0xc0, 4, 0, 2);   /* block 3, set 1, way 1 */
    R.n = 0;
    access_at(s, CT_LOAD, 0x140, 4, 0, 3);  /* block 5 evicts block 1 (LRU) */
    CHECK(has(1, CT_EVOP_INVAL, 2, 0x40));
    CHECK(has(2, CT_EVOP_DIRTY, 1 * 4 + 0, 0x40)); /* the write-back dirties L2 */
    CHECK(has(2, CT_EVOP_ALLOC, 1 * 4 + 1, 0x140)); /* block 3 went to L2 set 3 */
    CHECK(has(1, CT_EVOP_ALLOC, 2, 0x140));         /* into the freed way 0 */
    CHECK_EQ_U64(R.n, 4);
    ct_sim_free(s);
}

TEST(system_caches_fill_and_evict)
{
    ct_sim *s = make(1);
    access_at(s, CT_STORE, 0x40, 64, 0, 1); /* whole line: L1D only */
    CHECK_EQ_U64(R.n, 1);
    R.n = 0;
    access_at(s, CT_LOAD, 0x1000, 4, 0, 2); /* block 64: L3 set 0 */
    CHECK(has(3, CT_EVOP_FILL, 0, 0x1000));
    CHECK(has(2, CT_EVOP_ALLOC, 0, 0x1000));
    /* fill L3 set 0 until block 64 leaves it */
    for (uint64_t k = 1; k <= 4; k++)
        access_at(s, CT_LOAD, 0x1000 + k * 8 * 64, 4, 0, 2 + k);
    CHECK(has(3, CT_EVOP_EVICT, 0, 0x1000));
    for (size_t i = 0; i < R.n; i++)
        CHECK(!(R.level[i] == 3 && (R.ev[i].op == CT_EVOP_ALLOC || R.ev[i].op == CT_EVOP_DIRTY ||
                                    R.ev[i].op == CT_EVOP_INVAL)));
    ct_sim_free(s);
}

/* A level's `events` key chooses its vocabulary: an L2 made a system cache
 * fills and evicts (FILL, EVICT; no ALLOC, no DIRTY), an L3 made a
 * processor cache allocates (ALLOC). */
TEST(the_events_key_makes_a_level_a_system_or_processor_cache)
{
    ct_sim *s = make_with(0, "l2.events=system");
    CHECK(s != NULL);
    if (!s)
        return;
    access_at(s, CT_LOAD, 0x40, 4, 0, 1);   /* block 1: L1D set 1, L2 set 1 */
    CHECK(has(1, CT_EVOP_ALLOC, 2, 0x40));
    CHECK(has(2, CT_EVOP_FILL, 4, 0x40));
    /* blocks 5, 9, 13, 17 share L2 set 1: block 1 leaves it */
    for (uint64_t k = 1; k <= 4; k++)
        access_at(s, CT_LOAD, 0x40 + k * 4 * 64, 4, 0, 1 + k);
    CHECK(has(2, CT_EVOP_EVICT, 4, 0x40));
    access_at(s, CT_STORE, 0x40 + 4 * 4 * 64, 4, 0, 9); /* dirties the L1D line only */
    for (size_t i = 0; i < R.n; i++)
        CHECK(!(R.level[i] == 2 && (R.ev[i].op == CT_EVOP_ALLOC || R.ev[i].op == CT_EVOP_INVAL ||
                                    R.ev[i].op == CT_EVOP_DIRTY)));
    ct_sim_free(s);

    s = make_with(1, "l3.events=processor");
    CHECK(s != NULL);
    if (!s)
        return;
    access_at(s, CT_LOAD, 0x1000, 4, 0, 1);
    CHECK(has(3, CT_EVOP_ALLOC, 0, 0x1000));
    CHECK(!has(3, CT_EVOP_FILL, 0, 0x1000));
    ct_sim_free(s);
}

TEST(lines_keep_the_security_of_the_access_that_filled_them)
{
    ct_sim *s = make(0);
    access_at(s, CT_LOAD, 0x40, 4, CT_F_NS, 1);
    CHECK_EQ_U64(R.n, 2);
    CHECK(R.ev[0].flags & CT_EVF_NS);
    CHECK(R.ev[1].flags & CT_EVF_NS);
    access_at(s, CT_LOAD, 0xc0, 4, 0, 2);
    R.n = 0;
    access_at(s, CT_LOAD, 0x140, 4, 0, 3); /* a secure access evicts the NS line */
    CHECK(has(1, CT_EVOP_INVAL, 2, 0x40));
    for (size_t i = 0; i < R.n; i++) {
        if (R.ev[i].op == CT_EVOP_INVAL)
            CHECK(R.ev[i].flags & CT_EVF_NS);
        else
            CHECK(!(R.ev[i].flags & CT_EVF_NS));
    }
    ct_sim_free(s);
}

TEST(maintenance_cleans_and_invalidates)
{
    ct_sim *s = make(0);
    access_at(s, CT_STORE, 0x40, 4, 0, 1);
    R.n = 0;
    cacheop_at(s, CT_OP_CLEAN, 0x40);
    CHECK(has(1, CT_EVOP_CLEAN, 2, 0x40));
    CHECK(has(2, CT_EVOP_DIRTY, 4, 0x40)); /* written back into L2 */
    R.n = 0;
    cacheop_at(s, CT_OP_INVAL, 0x40);
    CHECK(has(1, CT_EVOP_INVAL, 2, 0x40));
    CHECK(has(2, CT_EVOP_INVAL, 4, 0x40));
    CHECK_EQ_U64(R.n, 2);
    ct_sim_free(s);
}

TEST(instruction_side_invalidate_all_drops_only_the_l1i)
{
    ct_sim *s = make(0);
    access_at(s, CT_IFETCH, 0x0, 4, 0, 1);
    access_at(s, CT_LOAD, 0x40, 4, 0, 2);
    R.n = 0;
    cacheop_at(s, CT_OP_INVAL | CT_OP_ALL | CT_OP_ISIDE, 0);
    CHECK_EQ_U64(R.n, 1);
    CHECK(has(0, CT_EVOP_INVAL, 0, 0x0));
    R.n = 0;
    cacheop_at(s, CT_OP_INVAL | CT_OP_ALL, 0);
    CHECK(has(1, CT_EVOP_INVAL, 2, 0x40));
    CHECK(has(2, CT_EVOP_INVAL, 0, 0x0));
    CHECK(has(2, CT_EVOP_INVAL, 4, 0x40));
    CHECK_EQ_U64(R.n, 3);
    ct_sim_free(s);
}

int main(void)
{
    RUN(a_read_miss_allocates_in_each_processor_level);
    RUN(writes_dirty_a_line_once);
    RUN(a_whole_line_write_fill_shows_as_dirty_alone);
    RUN(evictions_drop_with_inval_and_write_back_dirty_data);
    RUN(system_caches_fill_and_evict);
    RUN(the_events_key_makes_a_level_a_system_or_processor_cache);
    RUN(lines_keep_the_security_of_the_access_that_filled_them);
    RUN(maintenance_cleans_and_invalidates);
    RUN(instruction_side_invalidate_all_drops_only_the_l1i);
    return harness_done();
}
