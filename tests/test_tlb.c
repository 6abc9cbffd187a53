/*
 * test_tlb.c - address translation (sim/tlb.c, sim/walk.c): TLB hits and
 * misses per page size, ASIDs and global entries, walk caches, synthetic
 * and traced tables, and the cycles translation adds. Every expectation is
 * worked out by hand in the comment beside it.
 *
 * Shape used throughout unless a test says otherwise: 4K granule, 4 levels
 * (0..3): level L indexes va bits from s(L) = 12 + 9 (3 - L): s(3) = 12,
 * s(2) = 21, s(1) = 30, s(0) = 39.
 */
#include <stdio.h>
#include <string.h>

#include "cachet/cachet.h"
#include "harness.h"

#define MAXEV 1024

typedef struct rec {
    ct_event ev[MAXEV];
    size_t level[MAXEV];
    size_t n;
} rec;

static rec R;

static void sink(void *ctx, const ct_event *ev, size_t level)
{
    rec *r = ctx;
    if (r->n < MAXEV) {
        r->ev[r->n] = *ev;
        r->level[r->n++] = level;
    }
}

static ct_sim *make(const char *const *keys, size_t n)
{
    ct_config *cfg = NULL;
    ct_sim *s = NULL;
    ct_error err = {0};

    ct_config_new_empty(&cfg, &err);
    if (ct_config_set_all(cfg, keys, n, &err) != CT_OK)
        fprintf(stderr, "config: %s\n", err.msg);
    if (ct_sim_create(&s, cfg, &err) != CT_OK)
        fprintf(stderr, "create: %s\n", err.msg);
    ct_config_free(cfg);
    memset(&R, 0, sizeof R);
    if (s)
        ct_sim_set_event_sink(s, sink, &R);
    return s;
}

/* A check that the rest of the test needs: counted as a failure, and the
 * test stops. */
#define REQUIRE(cond)       \
    do {                    \
        CHECK(cond);        \
        if (!(cond))        \
            return;         \
    } while (0)

#define MAKE(...)                                                        \
    make((const char *const[]){__VA_ARGS__},                             \
         sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/* One batch: optional side records first, then one access. */
typedef struct one {
    ct_access a;
    ct_marker mk[2];
    ct_event ev[4];
    ct_batch b;
} one;

static void one_init(one *o, int kind, uint64_t va, uint32_t size)
{
    memset(o, 0, sizeof *o);
    o->a.kind = (uint8_t)kind;
    o->a.vaddr = va;
    o->a.size = size;
    o->b.acc = &o->a;
    o->b.n = o->b.cap = 1;
    o->b.mk = o->mk;
    o->b.mkcap = 2;
    o->b.ev = o->ev;
    o->b.evcap = 4;
}

static void run_one(ct_sim *s, one *o)
{
    ct_error err = {0};
    CHECK(ct_sim_run(s, &o->b, &err) == CT_OK);
}

static void load(ct_sim *s, uint64_t va)
{
    one o;
    one_init(&o, CT_LOAD, va, 8);
    run_one(s, &o);
}

/* A stage-1 LPAE walk line of the trace, before the access of o. */
static void add_ttw(one *o, int iside, unsigned level, uint64_t addr, uint64_t value)
{
    ct_event *ev = &o->ev[o->b.nev++];
    memset(ev, 0, sizeof *ev);
    ev->type = CT_EV_TTW;
    ev->op = CT_EVOP_WALK;
    ev->stage = 1;
    ev->level = (uint8_t)level;
    ev->addr = addr;
    ev->value = value;
    ev->size = 8;
    ev->cpu = o->a.cpu;
    ev->flags = iside ? CT_EVF_ISIDE : 0;
}

static void add_asid(one *o, uint16_t asid)
{
    ct_marker *m = &o->mk[o->b.nmk++];
    memset(m, 0, sizeof *m);
    m->type = CT_MK_ASID;
    m->cpu = o->a.cpu;
    m->value = asid;
}

static const ct_tlb_stats *tlb_stats(const ct_sim *s, const char *name)
{
    for (size_t i = 0; i < ct_sim_ntlbs(s); i++)
        if (strcmp(ct_sim_tlb_info(s, i)->name, name) == 0)
            return ct_sim_tlb_stats(s, i);
    return NULL;
}

static uint64_t lookups(const ct_tlb_stats *st, int kind, int what)
{
    return what == 0 ? st->kind[kind].accesses : what == 1 ? st->kind[kind].hits
                                                           : st->kind[kind].misses;
}

/* The recorded events of one type and operation, in order: *i from 0. */
static const ct_event *next_event(int type, int op, size_t *i)
{
    for (; *i < R.n; (*i)++)
        if (R.ev[*i].type == type && R.ev[*i].op == op)
            return &R.ev[(*i)++];
    return NULL;
}

static size_t count_events(int type, int op)
{
    size_t n = 0;
    for (size_t i = 0; i < R.n; i++)
        n += R.ev[i].type == type && R.ev[i].op == op;
    return n;
}

/* ---- TLBs -------------------------------------------------------------------- */

/* Synthetic tables map with pages or blocks of one size; four loads: the
 * first misses, two more in the same page hit, the fourth (the next page)
 * misses. Every walk reads levels start..leaf. */
TEST(pages_of_every_size_hit_and_miss)
{
    static const struct {
        const char *granule, *levels, *leaf;
        unsigned size_log2, reads_per_walk;
    } cases[] = {
        {"4K", "4", "3", 12, 4},  {"4K", "4", "2", 21, 3},  {"4K", "4", "1", 30, 2},
        {"16K", "4", "3", 14, 4}, {"16K", "4", "2", 25, 3}, {"64K", "3", "3", 16, 3},
        {"64K", "3", "2", 29, 2}, {"4K", "3", "3", 12, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char g[32], l[32], f[32];
        ct_sim *s;
        const ct_tlb_stats *st;
        const uint64_t size = 1ull << cases[i].size_log2, base = 1ull << 30;
        snprintf(g, sizeof g, "walk.granule=%s", cases[i].granule);
        snprintf(l, sizeof l, "walk.levels=%s", cases[i].levels);
        snprintf(f, sizeof f, "walk.leaf_level=%s", cases[i].leaf);
        s = MAKE("dtlb.entries=4", g, l, f);
        REQUIRE(s != NULL);
        load(s, base + 0x10);
        load(s, base + 0x18);
        load(s, base + size - 8);
        load(s, base + size);
        st = tlb_stats(s, "dtlb");
        CHECK_EQ_U64(lookups(st, CT_LOAD, 0), 4);
        CHECK_EQ_U64(lookups(st, CT_LOAD, 1), 2);
        CHECK_EQ_U64(lookups(st, CT_LOAD, 2), 2);
        CHECK_EQ_U64(st->hits_by_size[cases[i].size_log2], 2);
        CHECK_EQ_U64(st->fills_by_size[cases[i].size_log2], 2);
        CHECK_EQ_U64(ct_sim_walk_stats(s, 0)->walks, 2);
        CHECK_EQ_U64(ct_sim_walk_stats(s, 0)->reads, 2 * cases[i].reads_per_walk);
        {
            size_t k = 0;
            const ct_event *f1 = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
            const ct_event *f2 = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
            CHECK(f1 && f1->addr == base && f1->size == size);
            CHECK(f2 && f2->addr == base + size && f2->size == size);
            /* physical bases are aligned to the page and differ */
            CHECK(f1 && f2 && f1->value % size == 0 && f2->value % size == 0 &&
                  f1->value != f2->value);
        }
        ct_sim_free(s);
    }
}

/* With walk.granule = 64K and no walk.levels, a walk has 3 levels (1..3:
 * 16 + 3 x 13 = 55 bits), not the 4 of the other granules: one walk reads
 * levels 1, 2 and 3 and maps a 64K page. */
TEST(a_64k_granule_alone_walks_three_levels)
{
    ct_sim *s = MAKE("dtlb.entries=4", "walk.granule=64K");
    const ct_walk_stats *w;
    size_t k = 0;
    const ct_event *f;
    REQUIRE(s != NULL);
    load(s, 0x12345678);
    w = ct_sim_walk_stats(s, 0);
    CHECK_EQ_U64(w->reads, 3);
    CHECK_EQ_U64(w->reads_by_level[0], 0);
    CHECK_EQ_U64(w->reads_by_level[1], 1);
    CHECK_EQ_U64(w->reads_by_level[3], 1);
    f = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
    CHECK(f && f->size == 65536 && f->addr == 0x12340000);
    ct_sim_free(s);
}

/* A 2-entry fully associative LRU DTLB: A B A C evicts B (the least
 * recently used); then B misses again and evicts A. */
TEST(a_full_tlb_evicts_by_its_policy)
{
    ct_sim *s = MAKE("dtlb.entries=2", "walk.levels=4");
    const ct_event *e;
    size_t k = 0;
    REQUIRE(s != NULL);
    load(s, 0xA000);
    load(s, 0xB000);
    load(s, 0xA008);
    load(s, 0xC000);
    load(s, 0xB000);
    CHECK_EQ_U64(tlb_stats(s, "dtlb")->evictions, 2);
    CHECK_EQ_U64(tlb_stats(s, "dtlb")->kind[CT_LOAD].hits, 1);
    e = next_event(CT_EV_TLB, CT_EVOP_EVICT, &k);
    CHECK(e && e->addr == 0xB000 && e->size == 4096 && !(e->flags & CT_EVF_PADDR));
    e = next_event(CT_EV_TLB, CT_EVOP_EVICT, &k);
    CHECK(e && e->addr == 0xA000);
    ct_sim_free(s);
}

/* A miss in the DTLB that hits in the STLB fills the DTLB and does not
 * walk. */
TEST(the_stlb_fills_the_l1_tlb)
{
    ct_sim *s = MAKE("dtlb.entries=1", "stlb.entries=8", "stlb.assoc=2");
    const ct_tlb_stats *d, *l2;
    REQUIRE(s != NULL);
    load(s, 0x1000); /* walk 1: fills stlb and dtlb */
    load(s, 0x2000); /* walk 2: dtlb evicts 0x1000 */
    load(s, 0x1000); /* dtlb miss, stlb hit */
    d = tlb_stats(s, "dtlb");
    l2 = tlb_stats(s, "stlb");
    CHECK_EQ_U64(d->kind[CT_LOAD].misses, 3);
    CHECK_EQ_U64(l2->kind[CT_LOAD].accesses, 3);
    CHECK_EQ_U64(l2->kind[CT_LOAD].hits, 1);
    CHECK_EQ_U64(ct_sim_walk_stats(s, 0)->walks, 2);
    CHECK_EQ_U64(d->fills, 3);
    CHECK_EQ_U64(l2->fills, 2);
    ct_sim_free(s);
}

/* Instruction fetches use the ITLB, loads the DTLB. */
TEST(sides_use_their_own_tlb)
{
    ct_sim *s = MAKE("itlb.entries=4", "dtlb.entries=4");
    one o;
    REQUIRE(s != NULL);
    one_init(&o, CT_IFETCH, 0x1000, 4);
    run_one(s, &o);
    load(s, 0x1000);
    CHECK_EQ_U64(tlb_stats(s, "itlb")->kind[CT_IFETCH].misses, 1);
    CHECK_EQ_U64(tlb_stats(s, "dtlb")->kind[CT_LOAD].misses, 1);
    CHECK_EQ_U64(ct_sim_walk_stats(s, 0)->walks, 2);
    ct_sim_free(s);
}

/* With no TLB for the instruction side, a fetch is translated for free: no
 * walk, no cycles beyond memory's 100, and the physical page a data walk
 * finds for the same address: the load, after its walk (4 reads from
 * memory), misses the L1D and hits the line the fetch brought to the L2
 * (12). */
TEST(a_side_without_tlb_translates_for_free)
{
    ct_sim *s = MAKE("l1d.size=1K", "l1d.assoc=2", "l2.size=4K", "l2.assoc=4",
                     "dtlb.entries=4", "walk.cache=memory");
    one o;
    REQUIRE(s != NULL);
    one_init(&o, CT_IFETCH, 0x7040, 4);
    run_one(s, &o);
    CHECK_EQ_U64(ct_sim_walk_stats(s, 0)->walks, 0);
    CHECK_EQ_U64(ct_sim_get_totals(s)->cycles, 100);
    CHECK_EQ_U64(ct_sim_get_totals(s)->translation_cycles, 0);
    load(s, 0x7040);
    CHECK_EQ_U64(ct_sim_walk_stats(s, 0)->walks, 1);
    CHECK_EQ_U64(ct_sim_level_stats(s, 1)->kind[CT_LOAD].hits, 1); /* the L2 */
    CHECK_EQ_U64(ct_sim_get_totals(s)->cycles, 100 + 400 + 12);
    ct_sim_free(s);
}

/* 0x2000 bytes from 0x...eff8 would run past 2^64: the access ends at the
 * top, so it covers the last 8 bytes of page 0x...e000 and all of page
 * 0x...f000: two lookups, and 1 + 64 pieces at the L1D (64-byte lines). */
TEST(a_translated_access_ends_at_the_top_of_the_address_space)
{
    ct_sim *s = MAKE("l1d.size=1K", "l1d.assoc=2", "dtlb.entries=4", "walk.cache=memory");
    one o;
    REQUIRE(s != NULL);
    one_init(&o, CT_LOAD, 0xffffffffffffeff8ull, 0x2000);
    run_one(s, &o);
    CHECK_EQ_U64(tlb_stats(s, "dtlb")->kind[CT_LOAD].accesses, 2);
    CHECK_EQ_U64(ct_sim_get_totals(s)->accesses[CT_LOAD], 1);
    CHECK_EQ_U64(ct_sim_level_stats(s, 0)->kind[CT_LOAD].accesses, 65);
    ct_sim_free(s);
}

/* An 8-byte load at 0x1ffc touches two pages: two lookups, one access.
 * Cycles: two walks of 4 reads from memory (800), and each page's piece
 * misses the L1D to memory (200). */
TEST(a_page_crossing_access_translates_each_page)
{
    ct_sim *s = MAKE("l1d.size=1K", "l1d.assoc=2", "dtlb.entries=4", "walk.cache=memory");
    const ct_sim_totals *t;
    REQUIRE(s != NULL);
    load(s, 0x1ffc);
    CHECK_EQ_U64(tlb_stats(s, "dtlb")->kind[CT_LOAD].accesses, 2);
    CHECK_EQ_U64(tlb_stats(s, "dtlb")->kind[CT_LOAD].misses, 2);
    t = ct_sim_get_totals(s);
    CHECK_EQ_U64(t->accesses[CT_LOAD], 1);
    CHECK_EQ_U64(t->line_crossings, 1);
    CHECK_EQ_U64(t->cycles, 1000);
    CHECK_EQ_U64(t->translation_cycles, 800);
    CHECK_EQ_U64(ct_sim_level_stats(s, 0)->kind[CT_LOAD].accesses, 2);
    ct_sim_free(s);
}

/* ---- address spaces ---------------------------------------------------------- */

/* ASID 1 and ASID 2 map va 0x1000 to different pages through different
 * tables; each finds its own entry again. */
TEST(asids_keep_entries_and_tables_apart)
{
    ct_sim *s = MAKE("dtlb.entries=8");
    one o;
    const ct_tlb_stats *st;
    const ct_event *f1, *f2, *w1, *w2;
    size_t k = 0, j = 0;
    REQUIRE(s != NULL);
    for (int round = 0; round < 2; round++)
        for (uint16_t asid = 1; asid <= 2; asid++) {
            one_init(&o, CT_LOAD, 0x1000, 8);
            add_asid(&o, asid);
            run_one(s, &o);
        }
    st = tlb_stats(s, "dtlb");
    CHECK_EQ_U64(st->kind[CT_LOAD].misses, 2);
    CHECK_EQ_U64(st->kind[CT_LOAD].hits, 2);
    f1 = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
    f2 = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
    CHECK(f1 && (f1->flags & CT_EVF_NG) && f1->asid == 1);
    CHECK(f2 && (f2->flags & CT_EVF_NG) && f2->asid == 2);
    CHECK(f1 && f2 && f1->value != f2->value);
    w1 = next_event(CT_EV_TTW, CT_EVOP_WALK, &j); /* the first walk's level 0 */
    while (j < R.n && !(R.ev[j].type == CT_EV_TTW && R.ev[j].level == 0))
        j++;
    w2 = next_event(CT_EV_TTW, CT_EVOP_WALK, &j);
    CHECK(w1 && w2 && w1->level == 0 && w2->level == 0 && w1->addr != w2->addr);
    ct_sim_free(s);
}

/* Traced tables: a leaf without nG is global and serves every ASID; with
 * nG it serves only the ASID that walked. Level-3 TTW lines at table
 * 0x80000 teach where the table of the next access lies. */
TEST(global_entries_match_every_asid)
{
    for (int ng = 0; ng < 2; ng++) {
        ct_sim *s = MAKE("dtlb.entries=8", "walk.tables=trace");
        one o;
        const uint64_t va = 0x40003010; /* level-3 index 3: descriptor at +0x18 */
        REQUIRE(s != NULL);
        one_init(&o, CT_LOAD, va, 8);
        add_asid(&o, 5);
        add_ttw(&o, 0, 3, 0x80018, 0x9000000ull | 0x403 | (ng ? 0x800 : 0));
        run_one(s, &o);
        one_init(&o, CT_LOAD, va, 8);
        add_asid(&o, 6);
        run_one(s, &o);
        CHECK_EQ_U64(tlb_stats(s, "dtlb")->kind[CT_LOAD].hits, ng ? 0 : 1);
        {
            size_t k = 0;
            const ct_event *f = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
            CHECK(f && f->value == 0x9000000 && !(f->flags & CT_EVF_NG) == !ng);
        }
        ct_sim_free(s);
    }
}

/* The ASID is the traced cpu's: a marker for cpu 1 leaves cpu 0's alone. */
TEST(asid_markers_belong_to_their_cpu)
{
    ct_sim *s = MAKE("dtlb.entries=8");
    ct_marker m;
    ct_access a;
    REQUIRE(s != NULL);
    memset(&m, 0, sizeof m);
    memset(&a, 0, sizeof a);
    a.kind = CT_LOAD;
    a.vaddr = 0x1000;
    a.size = 4;
    ct_sim_access(s, &a); /* cpu 0, ASID 0: miss */
    m.type = CT_MK_ASID;
    m.cpu = 1;
    m.value = 9;
    ct_sim_marker(s, &m);
    ct_sim_access(s, &a); /* still ASID 0: hit */
    a.cpu = 1;
    ct_sim_access(s, &a); /* cpu 1, ASID 9: miss */
    CHECK_EQ_U64(tlb_stats(s, "dtlb")->kind[CT_LOAD].hits, 1);
    CHECK_EQ_U64(tlb_stats(s, "dtlb")->kind[CT_LOAD].misses, 2);
    ct_sim_free(s);
}

static void add_vmid(one *o, uint16_t vmid)
{
    ct_marker *m = &o->mk[o->b.nmk++];
    memset(m, 0, sizeof *m);
    m->type = CT_MK_VMID;
    m->cpu = o->a.cpu;
    m->value = vmid;
}

/* VMIDs (Tarmac: writes of VTTBR_EL2) keep entries apart as ASIDs do, even
 * global ones: VMID 1 fills, VMID 2 misses and fills its own entry (with
 * vmid=2 in the event), VMID 1 and 2 then both hit; a VMID 0 access misses
 * (no VMID in its event). */
TEST(vmids_keep_entries_apart)
{
    ct_sim *s = MAKE("dtlb.entries=8", "walk.tables=trace");
    const uint16_t vmids[] = {1, 2, 1, 2, 0};
    const ct_tlb_stats *st;
    size_t k = 0;
    const ct_event *f;
    one o;
    REQUIRE(s != NULL);
    for (size_t i = 0; i < sizeof vmids / sizeof vmids[0]; i++) {
        one_init(&o, CT_LOAD, 0x40003010, 8);
        add_vmid(&o, vmids[i]);
        /* a global page (no nG): only the VMID tells the entries apart */
        add_ttw(&o, 0, 3, 0x80018, 0x9000000ull | 0x403);
        run_one(s, &o);
    }
    st = tlb_stats(s, "dtlb");
    CHECK_EQ_U64(st->kind[CT_LOAD].misses, 3);
    CHECK_EQ_U64(st->kind[CT_LOAD].hits, 2);
    f = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
    CHECK(f && (f->flags & CT_EVF_VMID) && f->vmid == 1 && !(f->flags & CT_EVF_NG));
    f = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
    CHECK(f && (f->flags & CT_EVF_VMID) && f->vmid == 2);
    f = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
    CHECK(f && !(f->flags & CT_EVF_VMID));
    ct_sim_free(s);
}

/* An access of a non-secure regime (CT_F_NS_REGIME) fills an entry whose
 * events carry CT_EVF_VNS (Tarmac's _NS after the virtual base); a secure
 * access to the same address does not find it and fills its own, without
 * the flag; each regime then hits its own entry. */
TEST(non_secure_regimes_have_their_own_entries)
{
    ct_sim *s = MAKE("dtlb.entries=8", "walkcache.entries=4");
    static const uint16_t flags[] = {CT_F_NS_REGIME, 0, CT_F_NS_REGIME, 0};
    const ct_event *f;
    size_t k = 0;
    one o;
    REQUIRE(s != NULL);
    for (size_t i = 0; i < 4; i++) {
        one_init(&o, CT_LOAD, 0x7000, 8);
        o.a.flags = flags[i];
        run_one(s, &o);
    }
    CHECK_EQ_U64(tlb_stats(s, "dtlb")->kind[CT_LOAD].misses, 2);
    CHECK_EQ_U64(tlb_stats(s, "dtlb")->kind[CT_LOAD].hits, 2);
    f = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
    CHECK(f && f->addr == 0x7000 && (f->flags & CT_EVF_VNS));
    f = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
    CHECK(f && f->addr == 0x7000 && !(f->flags & CT_EVF_VNS));
    /* the walk cache's entries too: the first walk's three, non-secure */
    k = 0;
    f = next_event(CT_EV_WALKCACHE, CT_EVOP_FILL, &k);
    CHECK(f && (f->flags & CT_EVF_VNS));
    /* the second walk found none of them: a whole walk again */
    CHECK_EQ_U64(ct_sim_walk_stats(s, 0)->reads, 8);
    ct_sim_free(s);
}

/* ---- replacement ------------------------------------------------------------- */

/* A 2-entry fully associative DTLB under A B A C A: LRU keeps A (C evicts
 * B, the least recently used): 2 hits; FIFO evicts A (the first in) for C,
 * so the last A misses: 1 hit. */
TEST(tlb_replacement_follows_the_policy)
{
    static const char *const policies[] = {"dtlb.replacement=lru", "dtlb.replacement=fifo"};
    static const uint64_t pages[] = {0xA000, 0xB000, 0xA000, 0xC000, 0xA000};
    for (int p = 0; p < 2; p++) {
        ct_sim *s = MAKE("dtlb.entries=2", "dtlb.assoc=full", policies[p]);
        const ct_event *e;
        size_t k = 0;
        REQUIRE(s != NULL);
        for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++)
            load(s, pages[i]);
        CHECK_EQ_U64(tlb_stats(s, "dtlb")->kind[CT_LOAD].hits, p == 0 ? 2 : 1);
        CHECK_EQ_U64(tlb_stats(s, "dtlb")->evictions, p == 0 ? 1 : 2);
        e = next_event(CT_EV_TLB, CT_EVOP_EVICT, &k);
        CHECK(e && e->addr == (p == 0 ? 0xB000u : 0xA000u));
        ct_sim_free(s);
    }
}

/* Each traced cpu learns its own tables from its own walk lines, even under
 * one ASID: cpu 0's level-3 table for va 0x40003010 is at 0x80000, cpu 1's
 * at 0xA0000 (both ASID 0, each on its own core). cpu 0's next page in that
 * table (index 4) is read from its own table, 0x80020, not cpu 1's. */
TEST(walk_lines_teach_their_own_cpu)
{
    ct_sim *s = MAKE("system.cores=2", "dtlb.entries=8", "walk.tables=trace");
    const ct_event *w, *last = NULL;
    size_t k = 0;
    one o;
    REQUIRE(s != NULL);
    for (uint16_t cpu = 0; cpu < 2; cpu++) {
        one_init(&o, CT_LOAD, 0x40003010, 8);
        o.a.cpu = o.a.core = cpu;
        add_ttw(&o, 0, 3, cpu ? 0xA0018 : 0x80018, (cpu ? 0xB000000ull : 0x9000000ull) | 0x403);
        run_one(s, &o);
    }
    one_init(&o, CT_LOAD, 0x40004010, 8);
    run_one(s, &o);
    while ((w = next_event(CT_EV_TTW, CT_EVOP_WALK, &k)) != NULL)
        last = w;
    CHECK(last && last->cpu == 0 && last->level == 3 && last->addr == 0x80020);
    ct_sim_free(s);
}

/* ---- walks ------------------------------------------------------------------- */

/* With a 1-entry DTLB every new page walks. 0x1000: reads levels 0-3 and
 * fills the walk cache with the level 0, 1 and 2 tables; 0x2000 (same 2M):
 * the level-2 entry hits, one read; 0x40000000 (another 1G, same 512G): the
 * level-0 entry hits, three reads. */
TEST(walk_cache_hits_shorten_walks)
{
    for (int wc = 0; wc < 2; wc++) {
        ct_sim *s = wc ? MAKE("dtlb.entries=1", "walkcache.entries=16")
                       : MAKE("dtlb.entries=1");
        const ct_walk_stats *w;
        REQUIRE(s != NULL);
        load(s, 0x1000);
        load(s, 0x2000);
        load(s, 0x40000000);
        w = ct_sim_walk_stats(s, 0);
        CHECK_EQ_U64(w->walks, 3);
        if (wc) {
            const ct_tlb_stats *st = tlb_stats(s, "walkcache");
            CHECK_EQ_U64(w->reads, 4 + 1 + 3);
            CHECK_EQ_U64(w->reads_by_level[0], 1);
            CHECK_EQ_U64(w->reads_by_level[1], 2);
            CHECK_EQ_U64(w->reads_by_level[2], 2);
            CHECK_EQ_U64(w->reads_by_level[3], 3);
            CHECK_EQ_U64(st->kind[CT_LOAD].hits, 2);
            CHECK_EQ_U64(st->kind[CT_LOAD].misses, 1);
            CHECK_EQ_U64(st->hits_by_size[21], 1); /* a level-2 entry: 2M */
            CHECK_EQ_U64(st->hits_by_size[39], 1); /* a level-0 entry: 512G */
            CHECK_EQ_U64(count_events(CT_EV_WALKCACHE, CT_EVOP_FILL), 3 + 0 + 2);
        } else {
            CHECK_EQ_U64(w->reads, 12);
        }
        CHECK_EQ_U64(count_events(CT_EV_TTW, CT_EVOP_WALK), w->reads);
        ct_sim_free(s);
    }
}

/* [walkcache] levels chooses the levels cached; the loads of
 * walk_cache_hits_shorten_walks (0x1000, 0x2000 in the same 2M, 0x40000000
 * in the same 512G), with a 1-entry DTLB:
 *   levels 0 1: the first walk fills the level-0 and level-1 entries only;
 *     0x2000 finds the level-1 entry and reads levels 2 and 3 (2 reads, not
 *     the 1 of a level-2 entry); 0x40000000 finds the level-0 entry (3);
 *   levels 2: one entry per walk; 0x2000 hits it (1 read); 0x40000000 has
 *     no level-0 entry to find and walks all 4 levels. */
TEST(walk_cache_levels_choose_what_is_cached)
{
    static const struct {
        const char *levels;
        uint64_t reads, fills, hits;
    } cases[] = {
        {"walkcache.levels=0 1 2", 4 + 1 + 3, 3 + 0 + 2, 2},
        {"walkcache.levels=0,1", 4 + 2 + 3, 2 + 0 + 1, 2},
        {"walkcache.levels=2", 4 + 1 + 4, 1 + 0 + 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ct_sim *s = MAKE("dtlb.entries=1", "walkcache.entries=16", cases[i].levels);
        REQUIRE(s != NULL);
        load(s, 0x1000);
        load(s, 0x2000);
        load(s, 0x40000000);
        CHECK_EQ_U64(ct_sim_walk_stats(s, 0)->reads, cases[i].reads);
        CHECK_EQ_U64(count_events(CT_EV_WALKCACHE, CT_EVOP_FILL), cases[i].fills);
        CHECK_EQ_U64(tlb_stats(s, "walkcache")->kind[CT_LOAD].hits, cases[i].hits);
        ct_sim_free(s);
    }
    {
        ct_config *cfg = NULL;
        ct_error err = {0};
        ct_config_new_empty(&cfg, &err);
        CHECK(ct_config_set(cfg, "walkcache.levels=1 3", &err) == CT_E_CONFIG);
        CHECK_STR_CONTAINS(err.msg, "level 3 descriptors are pages or blocks, never tables");
        CHECK(ct_config_set(cfg, "walkcache.levels=,", &err) == CT_E_CONFIG);
        CHECK_STR_CONTAINS(err.msg, "no level listed");
        ct_config_free(cfg);
    }
}

/* Synthetic descriptors: tables at 2^47 + n x 4K in first-touch order, each
 * read the table's entry for the address, values as walk.c says. */
TEST(synthetic_walks_read_first_touch_tables)
{
    ct_sim *s = MAKE("dtlb.entries=4");
    const uint64_t va = 0x8040201000ull; /* indexes 1 at every level */
    const uint64_t t0 = 1ull << 47;
    size_t k = 0;
    REQUIRE(s != NULL);
    load(s, va);
    for (unsigned level = 0; level < 4; level++) {
        const ct_event *e = next_event(CT_EV_TTW, CT_EVOP_WALK, &k);
        CHECK(e && e->level == level && e->addr == t0 + level * 4096 + 8);
        if (e && level < 3) {
            CHECK_EQ_U64(e->value, (t0 + (level + 1) * 4096) | 3);
            CHECK_EQ_U64(e->result, CT_WR_TABLE);
        } else if (e) {
            CHECK_EQ_U64(e->value & 0xfff, 0xc03); /* nG, AF, page */
            CHECK_EQ_U64(e->result, CT_WR_BLOCK);
        }
    }
    /* the reads went through the L1D-less hierarchy to memory: kind walk */
    CHECK_EQ_U64(ct_sim_get_totals(s)->mem_reads, 4 + 1);
    ct_sim_free(s);
}

/* The same seed gives the same walks and pages in every run, whatever the
 * order pages are touched in; another seed other pages, the same tables. */
TEST(synthetic_tables_are_identical_across_runs_with_one_seed)
{
    enum { PAGES = 64 };
    uint64_t pa[3][PAGES], table[3];
    static rec first;
    int distinct = 1;

    for (int run = 0; run < 3; run++) {
        ct_sim *s = run == 2 ? MAKE("dtlb.entries=128", "system.seed=8")
                             : MAKE("dtlb.entries=128", "system.seed=7");
        size_t k = 0;
        REQUIRE(s != NULL);
        for (int i = 0; i < PAGES; i++) {
            const int p = run == 1 ? PAGES - 1 - i : i; /* run 1 in reverse */
            load(s, 0x10000000ull + (uint64_t)p * 0x3000);
        }
        for (int i = 0; i < PAGES; i++) {
            const ct_event *f = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
            const int p = run == 1 ? PAGES - 1 - i : i;
            pa[run][p] = f ? f->value : 0;
        }
        k = 0;
        table[run] = next_event(CT_EV_TTW, CT_EVOP_WALK, &k)->addr;
        if (run == 0)
            first = R;
        if (run == 0) {
            /* a second run, same order: every event the same */
            ct_sim *s2 = MAKE("dtlb.entries=128", "system.seed=7");
            REQUIRE(s2 != NULL);
            for (int i = 0; i < PAGES; i++)
                load(s2, 0x10000000ull + (uint64_t)i * 0x3000);
            CHECK_EQ_U64(R.n, first.n);
            CHECK(memcmp(R.ev, first.ev, first.n * sizeof R.ev[0]) == 0);
            ct_sim_free(s2);
        }
        ct_sim_free(s);
    }
    for (int i = 0; i < PAGES; i++) {
        CHECK_EQ_U64(pa[1][i], pa[0][i]);
        for (int j = 0; j < i; j++)
            if (pa[0][i] == pa[0][j])
                distinct = 0;
    }
    CHECK(distinct);
    CHECK(memcmp(pa[2], pa[0], sizeof pa[0]) != 0);
    CHECK_EQ_U64(table[2], table[0]);
    CHECK(pa[0][0] < (1ull << 47)); /* data pages below the table region */
}

/* Without a physical address in the trace, the synthetic page indexes a
 * physically indexed cache; with indexing = virtual the cache keeps the
 * virtual address. */
TEST(synthetic_physical_addresses_index_the_caches)
{
    for (int virt = 0; virt < 2; virt++) {
        ct_sim *s = MAKE("l1d.size=1K", "l1d.assoc=2", "dtlb.entries=4", "walk.cache=memory",
                         virt ? "system.indexing=virtual" : "system.indexing=physical");
        size_t k = 0;
        const ct_event *f, *c;
        REQUIRE(s != NULL);
        load(s, 0x1040);
        f = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
        k = 0;
        c = next_event(CT_EV_CACHE, CT_EVOP_ALLOC, &k);
        CHECK(f && c && f->addr == 0x1000);
        CHECK(f && c && c->addr == (virt ? 0x1040 : f->value + 0x40));
        ct_sim_free(s);
    }
}

/* The trace's own physical address maps the page. */
TEST(the_traces_physical_address_wins)
{
    ct_sim *s = MAKE("l1d.size=1K", "l1d.assoc=2", "dtlb.entries=4");
    one o;
    size_t k = 0;
    const ct_event *f;
    REQUIRE(s != NULL);
    one_init(&o, CT_LOAD, 0x1640, 8);
    o.a.paddr = 0x12345640;
    o.a.flags = CT_F_PADDR;
    run_one(s, &o);
    f = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
    CHECK(f && f->addr == 0x1000 && f->value == 0x12345000);
    {
        /* the L1D (level 0) filled the line of the trace's address */
        int found = 0;
        for (size_t i = 0; i < R.n; i++)
            found |= R.ev[i].type == CT_EV_CACHE && R.ev[i].op == CT_EVOP_ALLOC &&
                     R.level[i] == 0 && R.ev[i].addr == 0x12345640;
        CHECK(found);
    }
    ct_sim_free(s);
}

/* Traced tables: the TTW lines of a side teach where the tables of that
 * side's next access lie; the walk reads only those levels. A 2M block at
 * level 2 and a 4K page at level 3 share a 2-set DTLB. */
TEST(traced_tables_teach_and_mix_page_sizes)
{
    ct_sim *s = MAKE("dtlb.entries=4", "dtlb.assoc=2", "walk.tables=trace");
    one o;
    const ct_walk_stats *w;
    const ct_tlb_stats *st;
    const uint64_t va1 = 0x40200123; /* level-2 index 1: table 0x10000, +8 */
    const uint64_t va2 = 0x40405010; /* level-2 index 2, level-3 index 5 */
    size_t k = 0;
    const ct_event *f;
    REQUIRE(s != NULL);
    one_init(&o, CT_LOAD, va1, 4);
    add_ttw(&o, 0, 2, 0x10008, 0x80000000ull | 0x401); /* a 2M block */
    run_one(s, &o);
    w = ct_sim_walk_stats(s, 0);
    CHECK_EQ_U64(w->reads, 1);
    CHECK_EQ_U64(w->skipped_levels, 2);
    load(s, va1 + 0x1000); /* same 2M: hit */
    one_init(&o, CT_LOAD, va2, 4);
    add_ttw(&o, 0, 3, 0x20028, 0x90000000ull | 0x403); /* a 4K page */
    run_one(s, &o);
    /* level 2 read from the taught table (value unknown), then level 3 */
    CHECK_EQ_U64(w->reads, 3);
    CHECK_EQ_U64(w->reads_by_level[2], 2);
    CHECK_EQ_U64(w->reads_by_level[3], 1);
    load(s, va2 + 8);  /* the 4K entry */
    load(s, va1 + 16); /* the 2M entry, probed after the 4K size */
    st = tlb_stats(s, "dtlb");
    CHECK_EQ_U64(st->kind[CT_LOAD].accesses, 5);
    CHECK_EQ_U64(st->hits_by_size[21], 2);
    CHECK_EQ_U64(st->hits_by_size[12], 1);
    f = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
    CHECK(f && f->addr == 0x40200000 && f->size == 2u << 20 && f->value == 0x80000000 &&
          !(f->flags & CT_EVF_NG));
    f = next_event(CT_EV_TLB, CT_EVOP_FILL, &k);
    CHECK(f && f->addr == 0x40405000 && f->size == 4096 && f->value == 0x90000000);
    k = 0;
    f = next_event(CT_EV_TTW, CT_EVOP_WALK, &k);
    CHECK(f && f->addr == 0x10008 && f->result == CT_WR_BLOCK && f->line == 0x80000000);
    f = next_event(CT_EV_TTW, CT_EVOP_WALK, &k);
    CHECK(f && f->addr == 0x10010 && f->result == CT_WR_UNKNOWN);
    f = next_event(CT_EV_TTW, CT_EVOP_WALK, &k);
    CHECK(f && f->addr == 0x20028 && f->value == (0x90000000ull | 0x403));
    ct_sim_free(s);
}

/* A walk line whose address has another index's offset teaches nothing; a
 * data-side line waits for a data access (an instruction fetch passes). */
TEST(walk_lines_teach_only_their_own_side_and_index)
{
    ct_sim *s = MAKE("itlb.entries=4", "dtlb.entries=4", "walk.tables=trace");
    one o;
    const ct_walk_stats *w;
    REQUIRE(s != NULL);
    one_init(&o, CT_IFETCH, 0x5000, 4);
    add_ttw(&o, 0, 3, 0x30028, 0x7000403); /* data side, index 5 */
    run_one(s, &o);
    w = ct_sim_walk_stats(s, 0);
    CHECK_EQ_U64(w->reads, 0); /* the fetch's walk knows no table */
    load(s, 0x5000);           /* the data access it belongs to */
    CHECK_EQ_U64(w->reads, 1);
    one_init(&o, CT_LOAD, 0x40006000, 4); /* index 6, line says 5 */
    add_ttw(&o, 0, 3, 0x40028, 0x8000403);
    run_one(s, &o);
    CHECK_EQ_U64(w->reads, 1);
    ct_sim_free(s);
}

/* ---- timing ------------------------------------------------------------------ */

/* L1D 4, L2 12, memory 100; DTLB 1, STLB 5, walk 10, walk cache 2.
 *   load 0x1000: 1 + 5 + walk (10 + 2 + 4 reads from memory x 100) + the
 *                load from memory 100 = 518, of which 418 translation;
 *   load 0x1008: 1 + an L1D hit 4 = 5;
 *   load 0x2000: 1 + 5 + walk (10 + 2 + one level-3 read, in the line the
 *                first walk's level-3 read brought: 4) + 100 = 122, of
 *                which 22 translation. */
TEST(translation_latencies_add_to_the_timing)
{
    ct_sim *s = MAKE("l1d.size=32K", "l2.size=1M", "dtlb.entries=4", "dtlb.latency=1",
                     "stlb.entries=16", "stlb.latency=5", "walkcache.entries=8",
                     "walkcache.latency=2", "walk.latency=10");
    const ct_sim_totals *t;
    REQUIRE(s != NULL);
    load(s, 0x1000);
    t = ct_sim_get_totals(s);
    CHECK_EQ_U64(t->cycles, 518);
    CHECK_EQ_U64(t->translation_cycles, 418);
    load(s, 0x1008);
    t = ct_sim_get_totals(s);
    CHECK_EQ_U64(t->cycles, 523);
    load(s, 0x2000);
    t = ct_sim_get_totals(s);
    CHECK_EQ_U64(t->kind_cycles[CT_LOAD], 645);
    CHECK_EQ_U64(t->cycles, 645);
    CHECK_EQ_U64(t->translation_cycles, 441);
    CHECK_EQ_U64(ct_sim_walk_stats(s, 0)->cycles, 412 + 16);
    /* the descriptor reads are kind "walk" at the L1D: 5, 4 of them misses */
    CHECK_EQ_U64(ct_sim_level_stats(s, 0)->kind[CT_WALK].accesses, 5);
    CHECK_EQ_U64(ct_sim_level_stats(s, 0)->kind[CT_WALK].misses, 4);
    ct_sim_reset_stats(s);
    CHECK_EQ_U64(ct_sim_walk_stats(s, 0)->walks, 0);
    CHECK_EQ_U64(tlb_stats(s, "dtlb")->kind[CT_LOAD].accesses, 0);
    ct_sim_free(s);
}

/* Without a TLB section there is no translation at all. */
TEST(no_tlb_no_translation)
{
    ct_sim *s = MAKE("l1d.size=1K", "l1d.assoc=2");
    REQUIRE(s != NULL);
    load(s, 0x1000);
    CHECK_EQ_U64(ct_sim_ntlbs(s), 0);
    CHECK(ct_sim_walk_stats(s, 0) == NULL);
    CHECK(ct_sim_tlb_info(s, 0) == NULL);
    CHECK_EQ_U64(ct_sim_get_totals(s)->translation_cycles, 0);
    CHECK_EQ_U64(ct_sim_get_totals(s)->cycles, 100);
    ct_sim_free(s);
}

/* Structures are numbered per core: itlb, dtlb, stlb, walkcache; events
 * name them by nlevels + index. */
TEST(structures_are_numbered_per_core)
{
    ct_sim *s = MAKE("system.cores=2", "l1d.size=1K", "l1d.assoc=2", "itlb.entries=4",
                     "stlb.entries=8", "stlb.assoc=2");
    one o;
    REQUIRE(s != NULL);
    CHECK_EQ_U64(ct_sim_ntlbs(s), 4);
    CHECK(strcmp(ct_sim_tlb_info(s, 1)->name, "stlb") == 0);
    CHECK_EQ_U64(ct_sim_tlb_info(s, 2)->core, 1);
    CHECK_EQ_U64(ct_sim_tlb_info(s, 1)->sets, 4);
    one_init(&o, CT_LOAD, 0x1000, 4);
    o.a.core = 1;
    run_one(s, &o);
    /* core 1's data side has no L1 TLB: the STLB (index 3) names its walks */
    for (size_t i = 0; i < R.n; i++)
        if (R.ev[i].type != CT_EV_CACHE)
            CHECK_EQ_U64(R.level[i], ct_sim_nlevels(s) + 3);
    CHECK(count_events(CT_EV_TTW, CT_EVOP_WALK) == 4);
    ct_sim_free(s);
}

int main(void)
{
    RUN(pages_of_every_size_hit_and_miss);
    RUN(a_full_tlb_evicts_by_its_policy);
    RUN(a_64k_granule_alone_walks_three_levels);
    RUN(the_stlb_fills_the_l1_tlb);
    RUN(sides_use_their_own_tlb);
    RUN(a_side_without_tlb_translates_for_free);
    RUN(a_page_crossing_access_translates_each_page);
    RUN(a_translated_access_ends_at_the_top_of_the_address_space);
    RUN(asids_keep_entries_and_tables_apart);
    RUN(global_entries_match_every_asid);
    RUN(asid_markers_belong_to_their_cpu);
    RUN(vmids_keep_entries_apart);
    RUN(non_secure_regimes_have_their_own_entries);
    RUN(tlb_replacement_follows_the_policy);
    RUN(walk_lines_teach_their_own_cpu);
    RUN(walk_cache_hits_shorten_walks);
    RUN(walk_cache_levels_choose_what_is_cached);
    RUN(synthetic_walks_read_first_touch_tables);
    RUN(synthetic_tables_are_identical_across_runs_with_one_seed);
    RUN(synthetic_physical_addresses_index_the_caches);
    RUN(the_traces_physical_address_wins);
    RUN(traced_tables_teach_and_mix_page_sizes);
    RUN(walk_lines_teach_only_their_own_side_and_index);
    RUN(translation_latencies_add_to_the_timing);
    RUN(no_tlb_no_translation);
    RUN(structures_are_numbered_per_core);
    return harness_done();
}
