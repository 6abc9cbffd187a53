/*
 * hier.c - the cache hierarchy: every rule of the model, stated once.
 *
 * Compatibility
 *   With [system] compat = drcachesim the model counts as DynamoRIO's cache
 *   simulator does instead, by the rules at the top of sim/drcachesim.c;
 *   the rules below do not apply then.
 *
 * Shape
 *   Per core an optional L1I and L1D; an optional L2 and L3, each either one
 *   instance shared by all cores or one per core; then memory. A request
 *   that leaves a level goes to the next present level down ("next"): with
 *   no [l1i], instruction fetches start at the L2 (or L3, or memory).
 *   Private caches are not kept coherent (as in DineroIV and drcachesim's
 *   default) unless [system] coherence = msi or mesi: then by the rules at
 *   the top of sim/coherence.c, which serves the pieces of trace accesses
 *   at the first levels (ct_coh_serve) and is told of hardware prefetches
 *   into private levels and of zero / allocate operations.
 *
 * Addresses
 *   A level indexes and tags with the physical address when [system]
 *   indexing = physical and the access carries one (CT_F_PADDR), otherwise
 *   with the virtual address. block = address >> log2(line);
 *   set = block mod sets (a mask when sets is a power of two).
 *
 * Translation
 *   A configuration with a TLB section ([itlb], [dtlb], [stlb]) translates
 *   every access before the caches see it, by the rules of walk.c (the
 *   translation step; the physical address it supplies counts as the
 *   access's own) and tlb.c (the structures). Walk descriptor reads enter
 *   the hierarchy as reads of kind "walk". Such a configuration runs its
 *   own access loop (run_tlb); without a TLB section nothing of this is
 *   there.
 *
 * Line crossing
 *   An access covering [a, a + size) that crosses line boundaries of the
 *   first level it reaches is split into one access per line touched; each
 *   piece is counted, looked up and charged on its own. A request sent down
 *   to a level with a different line size is split the same way there.
 *   An access that would run past the top of the address space (2^64) ends
 *   there: the bytes beyond are dropped.
 *
 * Accesses of size 0
 *   A load, store, fetch or prefetch of size 0 touches one byte at its
 *   address: it is counted, looked up and charged like a 1-byte access.
 *   Traces write size 0 for accesses whose size the tracer could not tell,
 *   not for accesses that did not happen: DynamoRIO's drmemtrace records
 *   the XSAVE family that way (the area written depends on the machine;
 *   DynamoRIO issue #3473) and did so for AArch64 SVE operands (pull
 *   request #6544). The first byte is the part of such an access that is
 *   certain. (compat = drcachesim follows drcachesim instead: nothing at a
 *   line start, one line otherwise, sim/drcachesim.c; the two differ on
 *   drmemtrace.simple_app, whose eight size-0 accesses start lines, and
 *   tests/drmemtrace_l1_reference.py reproduces both.)
 *
 * Reads (ifetch, load, misc, atomic, software prefetch)
 *   Hit: the policy is told. Miss: the line is fetched from the next level
 *   (counted there with the same kind, except that the fetch for a write
 *   - a store, an atomic, a write-back - is a read there, kind "load", as
 *   in DineroIV), a way is chosen (an empty one, else
 *   the policy's victim, which is evicted first), and the line is filled.
 *   An atomic is a read that also writes: it always allocates.
 *
 * Writes (store, atomic, write-back arriving from above)
 *   Hit in a write-back level: the line becomes dirty. Hit in a
 *   write-through level: the bytes are also written to the next level
 *   (counted there as kind "store"). Miss with write_allocate: the line is
 *   filled as for a read, except that a write covering the whole line fills
 *   it without fetching (unless an inclusive level is below: then it is
 *   fetched, so that the inclusive level holds it too); then as a hit. Miss without write_allocate: the
 *   write goes to the next level and nothing is filled here.
 *   write_allocate = nofetch (DineroIV's -walloc f): a write miss allocates
 *   only when it covers the whole line (a fill without a fetch), otherwise
 *   as without write_allocate. write_back = nofetch (DineroIV's -wback f):
 *   write back when no fetch is needed, that is when the written bytes are
 *   valid in the line or the write covers them; a write that stays in a
 *   level has made its line valid first (a hit, or an allocating miss), so
 *   this is write-back (DineroIV 7 also counts alike with -wback f and a).
 *
 * Sub-blocks ([level] subblock = BYTES < line; DineroIV's -sbsize)
 *   A line holds a valid and a dirty bit per sub-block. An access (within
 *   one line) touches the sub-blocks from the one of its first byte to the
 *   one of its last. It misses when the line is absent or one of those
 *   sub-blocks is not valid (a miss of either kind counts as a miss of the
 *   access's kind, as DineroIV's demand misses). A miss fetches exactly
 *   the touched sub-blocks, valid or not (one read below of their bytes:
 *   bytes_from_below), except a write that does not allocate and a write
 *   that covers its sub-blocks whole (no inclusive level below); a line
 *   absent is filled with only those sub-blocks valid. A write that does
 *   not allocate goes below only when its line is absent: when the line is
 *   there, its touched sub-blocks become valid without a fetch (and dirty
 *   in a write-back level), as in DineroIV. write_allocate = nofetch
 *   allocates when the write covers its sub-blocks whole. A write-back
 *   (eviction, clean) writes each run of consecutive valid dirty
 *   sub-blocks as one write of its bytes. Lines filled otherwise (hardware
 *   prefetch, zero / allocate operations) are valid whole. The 3C split
 *   follows the sub-blocks (sim/classify.h); invalidating one line also
 *   forgets, as seen, its first log2(line / subblock) sub-blocks, as
 *   DineroIV 7's d4_invinfcache does. A level with sub-blocks must be
 *   non-inclusive with no exclusive level under it; such a level takes the
 *   general path (serve_sub), and its bits live in arrays allocated only
 *   for it.
 *
 * Evictions and write-backs
 *   A dirty victim is written to the next level as one write of its line,
 *   counted there as kind "writeback" (a miss there allocates without a
 *   fetch when the write covers that level's line). Clean victims vanish,
 *   except towards an exclusive level (below).
 *
 * Inclusion (a property of a level relative to the levels above it)
 *   non-inclusive (default): no constraint.
 *   inclusive: when the level evicts a line, every level above drops its
 *     copies of those bytes (counted as back_invalidations there); dirty
 *     copies above make the victim dirty, so their data is written back.
 *   exclusive: a line lives either above or here. A miss above looks here:
 *     a hit moves the line up (it leaves this level, its dirty state goes
 *     with it); a miss fetches from below without filling here (a line
 *     moving up from an exclusive level below passes through, its dirty
 *     state with it). Every victim of the levels above, clean or dirty, is
 *     filled here (counted as kind "writeback"). Lines enter an exclusive
 *     level only that way: a write sent down from a level above (a
 *     write-through, a write that did not allocate there, a clean's
 *     write-back) that misses here goes on to the next level without
 *     filling, as a write that does not allocate (a write-through L1D
 *     above an exclusive L2 keeps its lines in the L1D alone). An
 *     exclusive level needs the line size of the levels above it.
 *
 * Cache operations
 *   clean: a dirty line is written back to the next level and stays, clean.
 *   invalidate: the line is dropped; dirty data is lost.
 *   clean+invalidate: written back if dirty, then dropped.
 *   Data-side operations act on every level from the core's L1D down to the
 *   last level; instruction-side operations act on the L1I only. Each line
 *   looked at counts as one "cacheop" access (a hit when present). Lines
 *   are taken in address order, except when the range holds more lines
 *   than the level: then the level's resident lines of the range are taken
 *   in set and way order (bounded time for huge ranges).
 *   zero / allocate: the first data level fills the line without fetching
 *   (zero also makes it dirty); levels below are not touched.
 *   CT_OP_BOTH (din label 5) acts on the instruction side from the L1I
 *   down, then on the data side from the L1D down, skipping the levels
 *   already taken (DineroIV's invalidate of the instruction cache and then
 *   of the data cache, each propagated to the caches below). An
 *   invalidate also drops the lines of its range from the level's 3C
 *   shadow, held by the level or not; they stay seen (sim/classify.h).
 *   CT_OP_ALL applies clean / invalidate / clean+invalidate to every line of
 *   every level of every core, top level first; with CT_OP_ISIDE, to every
 *   line of the core's L1I only. The lines of a level
 *   are taken in DineroIV's copy-back order, which decides what the
 *   write-backs evict below: sets from the last to the first, and in a set
 *   from the least recently used line (LRU; FIFO: the oldest fill) to the
 *   most recent; with another policy from the first way to the last.
 *
 * Periodic flush and statistics at intervals
 *   ct_sim_set_interval's callback sees the cumulative statistics after
 *   every N accesses, counted as below, before a flush on the same access.
 *   With [system] flush_every = N, after every N accesses of the trace
 *   (every record handed to the model: cache operations and instruction
 *   records without a fetch count too, as DineroIV's -flushcount counts
 *   every trace record) every level is cleaned, top level first, then
 *   invalidated, as DineroIV's -flushcount does;
 *   no cycles are charged. Invalidating a whole level also forgets its 3C
 *   history (sim/classify.h), as DineroIV's d4invalidate does.
 *
 * Bytes moved (per level, DineroIV's "Bytes From/To Memory" of each cache)
 *   bytes_from_below: a line for every fetch the level makes (a demand
 *   miss that fetches, a hardware prefetch), and the bytes of each fetch
 *   passing through an exclusive level. bytes_to_below: a line for every
 *   write-back and every victim sent to an exclusive level below, and the
 *   bytes of every write the level passes down (a write-through, a write
 *   that does not allocate). With sub-blocks or a fetch policy the bytes
 *   are those of the sub-blocks fetched and of the dirty runs written back
 *   (rule "Sub-blocks"); a fetch policy's prefetches count theirs, as
 *   DineroIV counts them in its Bytes From Memory.
 *
 * End of run
 *   With [system] flush_at_end, ct_sim_finish cleans every level, top level
 *   first, as DineroIV copies everything back when its trace ends: the
 *   write-backs are counted (and reach memory), no cycles are charged.
 *
 * Uncached memory
 *   An access is uncached when the trace marks it Device memory (CT_F_DEVICE:
 *   Tarmac LD/ST lines with a DV, SO or [n]G[n]R[n]E attribute) and [system]
 *   device_uncached = yes (the default), or when its first byte lies in a
 *   range of [system] uncached (sim/uncached.c), the address being the one
 *   the caches are indexed with (physical with indexing = physical when the
 *   access has one). An uncached access bypasses every cache: no level sees
 *   it; a fetch, load or atomic is one memory read, a store one memory write,
 *   whatever its size, costing [memory] latency (with translation, after
 *   the translation, and once per page an access crossing pages touches); a
 *   software prefetch of uncached memory does nothing and costs nothing. It
 *   counts in the access totals and in uncached[kind]. Cache operations
 *   and instructions without a fetch are never uncached. Under compat =
 *   drcachesim nothing is uncached (drcachesim has no such memory).
 *
 * Hardware prefetch
 *   After a demand access (ifetch, load, store, atomic) a level asks its
 *   prefetcher for blocks (what each prefetcher asks for is stated in its
 *   file under sim/prefetch/). Each is looked up here as kind "hwprefetch":
 *   present, a hit and nothing more; absent, a miss, fetched from the next
 *   level (kind "hwprefetch" there) and filled, marked prefetched.
 *   prefetches_issued counts the blocks asked for, hwprefetch misses the
 *   lines filled. A demand access that finds a line still marked
 *   prefetched (in an exclusive level: moves it up) uses it: prefetch_useful
 *   + 1, the mark goes. A marked line that leaves the level otherwise
 *   (replaced, back-invalidated, invalidated by a cache operation, moved up
 *   by a prefetch) counts in prefetch_useless; lines still marked when the
 *   trace ends count in neither. accuracy = useful / hwprefetch misses;
 *   coverage = useful / (useful + demand misses), the demand misses being
 *   those of ifetch, load, store and atomic accesses. In the blocking timing
 *   a prefetch completes before the next access, so none is late; with
 *   timing = overlap a demand access may wait for one (prefetch_late,
 *   sim/timing.c).
 *   DineroIV's fetch policies (always, miss, tagged, load-forward, subblock)
 *   work on sub-blocks instead, by the rules at the top of
 *   sim/prefetch/dinero.c (fetch_policy_prefetch); a level with one takes
 *   the sub-block path (serve_sub, one sub-block per line without the
 *   subblock key), and must be non-inclusive with no exclusive level
 *   under it.
 *
 * Events (only with an event sink installed)
 *   The model reports what happens to its lines in the vocabulary of Tarmac
 *   CACHE lines. A level is a processor cache or a system cache as its
 *   `events` key says (default: L1I, L1D and L2 processor caches, L3 system
 *   caches). A processor cache reports ALLOC when a line is filled
 *   with read data (a fetch from below, a prefetch, a victim arriving at an
 *   exclusive level, an allocate operation; in a write-through level also a
 *   fill by a whole-line write), DIRTY when a clean line becomes dirty (so a
 *   whole-line write fill of a write-back level shows as DIRTY alone),
 *   CLEAN when a maintenance clean writes a dirty line back and keeps it,
 *   and INVAL whenever a line leaves (eviction, invalidation, inclusive
 *   back-invalidation, a move up out of an exclusive level; a dirty line's
 *   write-back is implied). A system cache reports FILL for every fill,
 *   EVICT when a line leaves without a maintenance operation, CLEAN and
 *   INVAL for maintenance; it reports no DIRTY. An event names the line by
 *   its slot, set * assoc + way (Tarmac's LINE id), and by the address the
 *   level indexes with, line-aligned; it is non-secure (_NS) when the line
 *   is, a line taking the security of the access that filled it (secure and
 *   non-secure copies of one address are not told apart). Time and cpu are
 *   those of the trace access being simulated (0 during ct_sim_finish).
 *   With coherence a private level also reports SHARED and UNIQUE, and
 *   INVAL and CLEAN for the lines other cores' accesses take or write back
 *   (rule "Events" in sim/coherence.c).
 *
 * Timing (blocking, in order; [system] timing = overlap starts each access
 * by the rules of sim/timing.c, with the latency charged here)
 *   A demand piece costs the latency of the level that hit ([memory]
 *   latency when none did); a fetch that covers several lines of the next
 *   level costs the largest of their latencies. A write that does not
 *   allocate costs the latency of the level that passed it down.
 *   Write-backs, write-throughs, software and hardware prefetches are
 *   buffered and cost nothing; a cache operation costs the latency of the
 *   first level it reaches. cycles = the sum over demand pieces;
 *   AMAT(kind) = cycles of that kind / accesses of that kind;
 *   CPI = cycles / instructions and MPKI = misses * 1000 / instructions,
 *   instructions being the fetched ones (ifetch accesses) and those
 *   retired without a fetch (nofetch accesses: TT6E's synthetic trap
 *   pair), one each, as `cachet info` counts them, except the no-fetch
 *   records that repeat the previous instruction (CT_F_REPEAT: drmemtrace
 *   INSTR_NO_FETCH, a rep-string iteration after the first), which
 *   drmemtrace's basic_counts does not count as instructions either.
 *   A request's latency is charged to a demand access only when it lies on
 *   that access's fetch path (the `demand` flag): write-backs, write-throughs
 *   and prefetches sent down clear it.
 *   With translation, an access also costs its translation (walk.c): the
 *   latency of each TLB it looks up (its side's L1 TLB; on a miss the
 *   STLB), and on a miss in the last one the walk: [walk] latency, the walk
 *   cache's latency when there is one, and the latency of each descriptor
 *   read (the level that served it, or memory), one after the other. A
 *   page-crossing access adds one translation per page. Software
 *   prefetches still cost nothing. translation_cycles = the part of cycles
 *   spent translating.
 *
 * Memory of the model
 *   Every line of every cache instance takes a tag, a flag byte and a
 *   fingerprint byte (10 bytes; a set of 2 to 7 ways rounds its
 *   fingerprints up to 8 bytes, a direct-mapped cache has none: cache.h),
 *   reserved when the hierarchy is created and committed as lines are
 *   touched (an empty line is stored as zeroes: a large cache on a small
 *   trace takes the memory of the lines the trace fills). A hierarchy
 *   whose lines would need more than the machine's physical memory is
 *   refused (CT_E_CONFIG, naming the level that needs most), rather than
 *   left to end in swapping or the out-of-memory killer once a trace
 *   touches them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hier_internal.h"
#include "policy/opt.h"
#include "timing.h"
#include "window.h"
#include "tlb.h"

static const char *const inclusion_text[] = {"non-inclusive", "inclusive", "exclusive"};
static const char *const level_names[CT_LV_COUNT] = {"l1i", "l1d", "l2", "l3"};

/* ---- events ------------------------------------------------------------- */

/* What happened to a line; emit() names it as the level's kind of cache
 * does (rule "Events" above). */
enum line_change {
    LC_FILL,         /* valid data arrived */
    LC_FILL_NODATA,  /* filled for a whole-line write that follows at once */
    LC_WRITE,        /* a clean line became dirty */
    LC_CLEAN,        /* maintenance wrote a dirty line back; it stays */
    LC_EVICT,        /* replaced to make room */
    LC_INVAL,        /* dropped by a maintenance operation */
    LC_BACKINVAL,    /* dropped because an inclusive level below evicted it */
    LC_MOVE_UP,      /* left an exclusive level for a level above */
    LC_COUNT
};

static const uint8_t change_op[2][LC_COUNT] = {
    /* processor caches */
    {[LC_FILL] = CT_EVOP_ALLOC, [LC_FILL_NODATA] = 0, [LC_WRITE] = CT_EVOP_DIRTY,
     [LC_CLEAN] = CT_EVOP_CLEAN, [LC_EVICT] = CT_EVOP_INVAL, [LC_INVAL] = CT_EVOP_INVAL,
     [LC_BACKINVAL] = CT_EVOP_INVAL, [LC_MOVE_UP] = CT_EVOP_INVAL},
    /* system caches */
    {[LC_FILL] = CT_EVOP_FILL, [LC_FILL_NODATA] = CT_EVOP_FILL, [LC_WRITE] = 0,
     [LC_CLEAN] = CT_EVOP_CLEAN, [LC_EVICT] = CT_EVOP_EVICT, [LC_INVAL] = CT_EVOP_INVAL,
     [LC_BACKINVAL] = CT_EVOP_EVICT, [LC_MOVE_UP] = CT_EVOP_EVICT},
};

static void emit_op(ct_sim *s, size_t li, int op, uint64_t idx, uint64_t block, int ns)
{
    const ct_level *L = &s->lv[li];
    ct_event ev;

    memset(&ev, 0, sizeof ev);
    ev.type = CT_EV_CACHE;
    ev.op = (uint8_t)op;
    ev.line = idx;  /* set * ways + way */
    ev.addr = block << L->c.line_bits;
    if (ns)
        ev.flags |= CT_EVF_NS;
    if (s->cur) {
        ev.time = s->cur->time;
        ev.cpu = s->cur->cpu;
    }
    s->ev_fn(s->ev_ctx, &ev, li);
}

static NOINLINE void emit(ct_sim *s, size_t li, int change, uint64_t idx, uint64_t block,
                          int ns)
{
    const int op = change_op[s->lv[li].system_events][change];
    if (op)
        emit_op(s, li, op, idx, block, ns);
}


#define EMIT(s, li, change, idx, block, ns)                   \
    do {                                                      \
        if (UNLIKELY((s)->ev_fn != NULL))                     \
            emit((s), (li), (change), (idx), (block), (ns));  \
    } while (0)

#define LINE_NS(c, idx) (((c)->flag[idx] & CT_LF_NS) != 0)

void ct_hier_coh_event(ct_sim *s, size_t li, int op, uint64_t idx)
{
    const ct_cache *c = &s->lv[li].c;
    if (s->ev_fn)
        emit_op(s, li, op, idx, ct_cache_tag(c, idx), LINE_NS(c, idx));
}

/* ---- forward declarations ----------------------------------------------- */

static uint32_t request(ct_sim *s, int li, uint64_t addr, uint32_t bytes, int kind, int write);
static void coherent_paths(ct_sim *s);
static void fill_victim(ct_sim *s, int li, uint64_t block, int dirty);

/* A demand kind: the kinds a prefetcher learns from and a prefetch serves. */
static int demand_kind(int kind)
{
    return kind == CT_IFETCH || kind == CT_LOAD || kind == CT_STORE || kind == CT_ATOMIC;
}

/* Line idx of level li leaves without a demand use (rule "Hardware
 * prefetch"). */
static void leaves_unused(ct_level *L, uint64_t idx)
{
    if (UNLIKELY(L->c.flag[idx] & CT_LF_PREFETCHED))
        L->st.prefetch_useless++;
}

/* Write [addr, addr+bytes) to level li (or memory): buffered, no cost. */
static void write_down(ct_sim *s, int li, uint64_t addr, uint32_t bytes, int kind)
{
    int demand = s->demand;
    if (li < 0) {
        s->tot.mem_writes++;
        return;
    }
    s->demand = 0;  /* buffered: its latency is charged to nobody */
    (void)request(s, li, addr, bytes, kind, 1);
    s->demand = demand;
}

void ct_hier_write_back(ct_sim *s, int li, uint64_t addr, uint32_t bytes)
{
    write_down(s, li, addr, bytes, CT_WRITEBACK);
}

/* Drop the line at idx of level li (block, security ns), telling the event
 * sink `change`: an invalidation, a back-invalidation or another core's
 * write. */
static void drop_line(ct_sim *s, size_t li, uint64_t idx, int change, uint64_t block, int ns)
{
    ct_level *L = &s->lv[li];
    ct_cache *c = &L->c;
    leaves_unused(L, idx);
    EMIT(s, li, change, idx, block, ns);
    ct_cache_tag_set(c, idx, CT_TAG_INVALID);
    c->flag[idx] = 0;
    ct_cache_dropped(c, idx / c->ways, idx);
}

void ct_hier_drop_line(ct_sim *s, size_t li, uint64_t idx)
{
    const ct_cache *c = &s->lv[li].c;
    drop_line(s, li, idx, LC_INVAL, ct_cache_tag(c, idx), LINE_NS(c, idx));
}

/* Drop every line of level li inside [addr, addr+bytes); returns 1 when one
 * of them was dirty. Used for back-invalidation. */
static int drop_range(ct_sim *s, uint32_t li, uint64_t addr, uint64_t bytes)
{
    ct_level *L = &s->lv[li];
    ct_cache *c = &L->c;
    uint64_t b0 = addr >> c->line_bits, b1 = (addr + bytes - 1) >> c->line_bits;
    int dirty = 0;

    for (uint64_t b = b0; b <= b1; b++) {
        uint64_t set = ct_cache_set(c, b);
        int64_t idx = ct_cache_find(c, set, b);
        if (idx < 0)
            continue;
        dirty |= c->flag[idx] & CT_LF_DIRTY;
        drop_line(s, li, (uint64_t)idx, LC_BACKINVAL, b, LINE_NS(c, idx));
        L->st.back_invalidations++;
    }
    return dirty != 0;
}

/* Write the dirty data of line idx (holding block) of level L below: one
 * write of the line, or with sub-blocks one write per run of valid dirty
 * sub-blocks (rule "Sub-blocks"). */
static void write_back_line(ct_sim *s, ct_level *L, uint64_t idx, uint64_t block)
{
    const uint64_t base = block << L->c.line_bits;
    uint32_t d;

    if (!L->sb_valid || !(d = L->sb_valid[idx] & L->sb_dirty[idx])) {
        L->st.bytes_to_below += L->line;
        write_down(s, L->next, base, L->line, CT_WRITEBACK);
        return;
    }
    L->sb_dirty[idx] = 0;
    while (d) {
        const uint32_t i = (uint32_t)__builtin_ctz(d);
        uint32_t n = 0;
        while (i + n < 32 && (d >> (i + n) & 1))
            n++;
        d &= ~(uint32_t)(((1ull << n) - 1) << i);
        L->st.bytes_to_below += (uint64_t)n << L->sb_bits;
        write_down(s, L->next, base + ((uint64_t)i << L->sb_bits), n << L->sb_bits,
                   CT_WRITEBACK);
    }
}

/* Remove the valid line at idx of level li to make room, honouring
 * inclusion and writing back dirty data. */
static void evict(ct_sim *s, int li, uint64_t idx)
{
    ct_level *L = &s->lv[li];
    ct_cache *c = &L->c;
    uint64_t block = ct_cache_tag(c, idx);
    int dirty = (c->flag[idx] & CT_LF_DIRTY) != 0;
    const int ns = LINE_NS(c, idx), outer_ns = s->ns;

    L->st.evictions++;
    leaves_unused(L, idx);
    if (L->inclusion == CT_INCL_INCLUSIVE)
        for (uint32_t i = 0; i < L->nabove; i++)
            dirty |= drop_range(s, L->above[i], block << c->line_bits, L->line);
    EMIT(s, (size_t)li, LC_EVICT, idx, block, ns);
    ct_cache_tag_set(c, idx, CT_TAG_INVALID);
    c->flag[idx] = 0;
    s->ns = ns;  /* the victim travels down with its own security */
    if (L->next >= 0 && s->lv[L->next].inclusion == CT_INCL_EXCLUSIVE) {
        if (dirty)
            L->st.writebacks++;
        L->st.bytes_to_below += L->line;
        fill_victim(s, L->next, block, dirty);
    } else if (dirty) {
        L->st.writebacks++;
        write_back_line(s, L, idx, block);
    }
    s->ns = outer_ns;
}

/* Put block into level li (set already known), evicting if needed; returns
 * the line index. `change` is LC_FILL or LC_FILL_NODATA; the line takes the
 * security of the request (s->ns). */
static uint64_t install(ct_sim *s, int li, uint64_t set, uint64_t block, uint8_t flags,
                        int change)
{
    ct_cache *c = &s->lv[li].c;
    uint64_t idx = ct_cache_slot(c, set);

    if (ct_cache_tag(c, idx) != CT_TAG_INVALID)
        evict(s, li, idx);
    if (s->ns)
        flags |= CT_LF_NS;
    ct_cache_put(c, set, idx, block);
    c->flag[idx] = flags;
    ct_cache_filled(c, set, idx);
    if (UNLIKELY(s->lv[li].sb_valid != NULL)) {  /* valid whole (rule "Sub-blocks") */
        s->lv[li].sb_valid[idx] = s->lv[li].sb_full;
        s->lv[li].sb_dirty[idx] = (flags & CT_LF_DIRTY) ? s->lv[li].sb_full : 0;
        s->lv[li].sb_ref[idx] = (flags & CT_LF_PREFETCHED) ? 0 : s->lv[li].sb_full;
    }
    EMIT(s, (size_t)li, change, idx, block, s->ns);
    if (flags & CT_LF_DIRTY)
        EMIT(s, (size_t)li, LC_WRITE, idx, block, s->ns);
    return idx;
}

/* A victim from above arrives at exclusive level li. */
static void fill_victim(ct_sim *s, int li, uint64_t block, int dirty)
{
    ct_level *L = &s->lv[li];
    ct_cache *c = &L->c;
    uint64_t set = ct_cache_set(c, block);
    int64_t idx = ct_cache_find(c, set, block);

    L->st.kind[CT_WRITEBACK].accesses++;
    if (UNLIKELY(L->opt != NULL))
        ct_opt_arrive(L->opt, block);
    if (idx >= 0) {
        ct_cache_touch(c, set, (uint64_t)idx);
    } else {
        L->st.kind[CT_WRITEBACK].misses++;
        idx = (int64_t)install(s, li, set, block, 0, LC_FILL);
    }
    if (dirty && !(c->flag[idx] & CT_LF_DIRTY)) {
        c->flag[idx] |= CT_LF_DIRTY;
        EMIT(s, (size_t)li, LC_WRITE, (uint64_t)idx, block, LINE_NS(c, idx));
    }
}

/* Fetch the line [addr, addr+bytes) for a level above from level li:
 * returns the latency, and sets *dirty when the line leaves an exclusive
 * level dirty. */
static uint32_t fetch(ct_sim *s, int li, uint64_t addr, uint32_t bytes, int kind, int *dirty)
{
    ct_level *L;
    ct_cache *c;
    uint64_t block, set;
    int64_t idx;

    *dirty = 0;
    if (li < 0) {
        s->tot.mem_reads++;
        return s->mem_latency;
    }
    L = &s->lv[li];
    if (L->inclusion != CT_INCL_EXCLUSIVE)
        return request(s, li, addr, bytes, kind, 0);
    /* exclusive: same line size as above (checked at creation) */
    c = &L->c;
    block = addr >> c->line_bits;
    set = ct_cache_set(c, block);
    idx = ct_cache_find(c, set, block);
    L->st.kind[kind].accesses++;
    if (UNLIKELY(L->opt != NULL))
        ct_opt_arrive(L->opt, block);
    if (idx >= 0) {
        *dirty = (c->flag[idx] & CT_LF_DIRTY) != 0;
        if (c->flag[idx] & CT_LF_PREFETCHED) {
            if (demand_kind(kind))
                L->st.prefetch_useful++;
            else
                L->st.prefetch_useless++;
        }
        EMIT(s, (size_t)li, LC_MOVE_UP, (uint64_t)idx, block, LINE_NS(c, idx));
        ct_cache_tag_set(c, idx, CT_TAG_INVALID);
        c->flag[idx] = 0;
        ct_cache_dropped(c, set, (uint64_t)idx);
        return L->latency;
    }
    L->st.kind[kind].misses++;
    if (L->cls)
        (void)ct_classify_access(L->cls, block, 1, 1);
    if (UNLIKELY(s->tm != NULL) && s->demand)
        ct_timing_miss(s->tm, li, block);
    /* a line moving up from an exclusive level further down passes through
     * with its dirty state */
    L->st.bytes_from_below += bytes;
    return fetch(s, L->next, addr, bytes, kind, dirty);
}

static void prefetch_after(ct_sim *s, int li, uint64_t block, int kind, int seen);

/* A write reached line idx of level li (hit, or just filled). */
FORCE_INLINE void write_line(ct_sim *s, int li, uint64_t idx, uint64_t addr, uint32_t bytes)
{
    ct_level *L = &s->lv[li];
    if (L->write_back) {
        if (!(L->c.flag[idx] & CT_LF_DIRTY)) {
            L->c.flag[idx] |= CT_LF_DIRTY;
            EMIT(s, (size_t)li, LC_WRITE, idx, ct_cache_tag(&L->c, idx), LINE_NS(&L->c, idx));
        }
    } else {
        L->st.bytes_to_below += bytes;
        write_down(s, L->next, addr, bytes, CT_STORE);
    }
}

/* Whether a write miss of `bytes` within one line allocates in L (rule
 * "Writes"; exclusive levels aside). */
FORCE_INLINE int allocates(const ct_level *L, uint32_t bytes)
{
    return L->write_allocate == 1 || (L->write_allocate == CT_WRITE_NOFETCH && bytes == L->line);
}

/* The miss half of serving one line (both serve functions end here):
 * no-allocate writes go down, everything else fetches (unless a write
 * covers the line) and fills. Returns the latency. */
static NOINLINE uint32_t miss(ct_sim *s, ct_level *L, uint64_t addr, uint32_t bytes, int kind,
                              int write, uint64_t set)
{
    const int li = L->index;
    ct_cache *c = &L->c;
    const uint64_t block = addr >> c->line_bits;
    uint64_t idx;
    uint32_t lat;
    int dirty_in = 0, change = LC_FILL;

    L->st.kind[kind].misses++;
    if (write && kind != CT_ATOMIC &&
        (!allocates(L, bytes) || (L->inclusion == CT_INCL_EXCLUSIVE && !s->demand))) {
        L->st.bytes_to_below += bytes;
        write_down(s, L->next, addr, bytes, kind == CT_WRITEBACK ? CT_WRITEBACK : CT_STORE);
        return L->latency;
    }
    if (write && bytes == L->line && !L->incl_below) {
        lat = L->latency;  /* the write covers the line: no fetch */
        change = L->write_back ? LC_FILL_NODATA : LC_FILL;
    } else {
        L->st.bytes_from_below += L->line;
        if (UNLIKELY(s->tm != NULL) && s->demand)
            ct_timing_miss(s->tm, li, block);
        lat = fetch(s, L->next, block << c->line_bits, L->line, write ? CT_LOAD : kind,
                    &dirty_in);
    }
    /* the slot is chosen after the fetch, which may have changed the set */
    idx = install(s, li, set, block, dirty_in ? CT_LF_DIRTY : 0, change);
    if (write)
        write_line(s, li, idx, addr, bytes);
    if (L->pf)
        prefetch_after(s, li, block, kind, CT_PF_MISS);
    return lat;
}

/* One access within one line of level li, for any policy, with the 3C
 * classifier and the prefetcher when configured. Returns its latency. */
static uint32_t serve_any(ct_sim *s, int li, uint64_t addr, uint32_t bytes, int kind, int write)
{
    ct_level *L = &s->lv[li];
    ct_cache *c = &L->c;
    const uint64_t block = addr >> c->line_bits;
    uint64_t set, idx;
    int64_t found;
    int seen = CT_PF_HIT;

    L->st.kind[kind].accesses++;
    if (UNLIKELY(L->opt != NULL))
        ct_opt_arrive(L->opt, block);
    if (block == c->memo_block && ct_cache_tag(c, c->memo_idx) == block && c->memo_ok &&
        !L->cls && !L->pf) {
        if (write)
            write_line(s, li, c->memo_idx, addr, bytes);
        return L->latency;
    }
    set = ct_cache_set(c, block);
    found = ct_cache_find(c, set, block);
    if (L->cls) {
        const int alloc = !(write && kind != CT_ATOMIC &&
                            (!allocates(L, bytes) ||
                             (L->inclusion == CT_INCL_EXCLUSIVE && !s->demand)));
        const int mc = ct_classify_access(L->cls, block, found < 0, alloc);
        if (found < 0 && mc >= 0) {
            if (mc == CT_MC_COMPULSORY) L->st.kind[kind].compulsory++;
            else if (mc == CT_MC_CAPACITY) L->st.kind[kind].capacity++;
            else L->st.kind[kind].conflict++;
        }
    }
    if (found < 0)
        return miss(s, L, addr, bytes, kind, write, set);
    idx = (uint64_t)found;
    ct_cache_touch(c, set, idx);
    if ((c->flag[idx] & CT_LF_PREFETCHED) && demand_kind(kind)) {
        c->flag[idx] &= (uint8_t)~CT_LF_PREFETCHED;
        L->st.prefetch_useful++;
        seen = CT_PF_HIT_PREFETCHED;
    }
    if (write)
        write_line(s, li, idx, addr, bytes);
    if (L->pf)
        prefetch_after(s, li, block, kind, seen);
    return L->latency;
}

/* The prefetch of the sub-block at addr by level li's fetch policy, which
 * a demand access of kind `below` proposed (rules in sim/prefetch/dinero.c). */
static void fetch_policy_prefetch(ct_sim *s, int li, uint64_t addr, int below)
{
    ct_level *L = &s->lv[li];
    ct_cache *c = &L->c;
    const uint64_t block = addr >> c->line_bits, set = ct_cache_set(c, block);
    const uint32_t mask = 1u << ((addr - (block << c->line_bits)) >> L->sb_bits);
    const uint32_t bytes = 1u << L->sb_bits;
    const int64_t found = ct_cache_find(c, set, block);
    const int miss = found < 0 || !(L->sb_valid[found] & mask);
    int dirty_in = 0, demand = s->demand;
    uint64_t idx;

    L->st.prefetches_issued++;
    L->st.kind[CT_HWPREFETCH].accesses++;
    if (L->cls) {
        const int mc = ct_classify_access_sub(L->cls, block, mask, miss, 1);
        if (miss && mc >= 0) {
            if (mc == CT_MC_COMPULSORY) L->st.kind[CT_HWPREFETCH].compulsory++;
            else if (mc == CT_MC_CAPACITY) L->st.kind[CT_HWPREFETCH].capacity++;
            else L->st.kind[CT_HWPREFETCH].conflict++;
        }
    }
    if (!miss) {
        ct_cache_touch(c, set, (uint64_t)found);
        return;
    }
    L->st.kind[CT_HWPREFETCH].misses++;
    L->st.bytes_from_below += bytes;
    s->demand = 0;  /* prefetches cost nothing */
    (void)fetch(s, L->next, addr, bytes, below, &dirty_in);
    s->demand = demand;
    if (found < 0) {
        idx = install(s, li, set, block, (uint8_t)(CT_LF_PREFETCHED | (dirty_in ? CT_LF_DIRTY : 0)),
                      LC_FILL);
        L->sb_valid[idx] = 0;
        L->sb_dirty[idx] = 0;
    } else {
        idx = (uint64_t)found;
        ct_cache_touch(c, set, idx);
    }
    L->sb_valid[idx] |= mask;
}

/* One access within one line of level li, which has sub-blocks (rule
 * "Sub-blocks") or a fetch policy. Returns its latency. */
static uint32_t serve_sub(ct_sim *s, int li, uint64_t addr, uint32_t bytes, int kind, int write)
{
    ct_level *L = &s->lv[li];
    ct_cache *c = &L->c;
    const uint32_t sbb = L->sb_bits;
    const uint64_t block = addr >> c->line_bits, base = block << c->line_bits;
    const uint64_t sb0 = addr >> sbb, nsb = ((addr + bytes - 1) >> sbb) - sb0 + 1;
    const uint32_t mask = (uint32_t)(((1ull << nsb) - 1) << ((addr - base) >> sbb));
    const int covers = (uint64_t)bytes == nsb << sbb;
    const int atomic = kind == CT_ATOMIC;
    const int walloc = atomic || (write && (L->write_allocate == 1 ||
                                            (L->write_allocate == CT_WRITE_NOFETCH && covers)));
    const uint64_t set = ct_cache_set(c, block);
    const int64_t found = ct_cache_find(c, set, block);
    const int miss = found < 0 || (mask & ~L->sb_valid[found]) != 0;
    uint32_t lat = L->latency;
    int dirty_in = 0, fetched = 0, seen = miss ? CT_PF_MISS : CT_PF_HIT, propose = 0;
    uint64_t idx, target = 0;

    if (L->pf && L->pf->propose) {  /* a fetch policy decides before the access */
        const int pseen = miss ? CT_PF_MISS
                          : (mask & L->sb_ref[found]) ? CT_PF_HIT : CT_PF_HIT_PREFETCHED;
        propose = L->pf->propose(L->pfst, addr, kind, pseen, c->line_bits, sbb, &target);
        if (propose && L->pf_abort &&
            ct_libc_random_next(&s->libc_rand) / 21474836 < (int32_t)L->pf_abort)
            propose = 0;
    }
    L->st.kind[kind].accesses++;
    if (L->cls) {
        const int mc = ct_classify_access_sub(L->cls, block, mask, miss, !write || walloc);
        if (miss && mc >= 0) {
            if (mc == CT_MC_COMPULSORY) L->st.kind[kind].compulsory++;
            else if (mc == CT_MC_CAPACITY) L->st.kind[kind].capacity++;
            else L->st.kind[kind].conflict++;
        }
    }
    if (miss)
        L->st.kind[kind].misses++;
    if (write && !walloc && found < 0) {
        L->st.bytes_to_below += bytes;
        write_down(s, L->next, addr, bytes, kind == CT_WRITEBACK ? CT_WRITEBACK : CT_STORE);
        return L->latency;
    }
    if (miss && (!write || atomic || (walloc && (!covers || L->incl_below)))) {
        L->st.bytes_from_below += nsb << sbb;
        fetched = 1;
        lat = fetch(s, L->next, sb0 << sbb, (uint32_t)(nsb << sbb), write ? CT_LOAD : kind,
                    &dirty_in);
    }
    if (found < 0) {
        /* the slot is chosen after the fetch, which may have changed the set */
        idx = install(s, li, set, block, dirty_in ? CT_LF_DIRTY : 0,
                      fetched || !L->write_back ? LC_FILL : LC_FILL_NODATA);
        L->sb_valid[idx] = 0;
        L->sb_dirty[idx] = 0;
        L->sb_ref[idx] = 0;
    } else {
        idx = (uint64_t)found;
        ct_cache_touch(c, set, idx);
        if ((c->flag[idx] & CT_LF_PREFETCHED) && demand_kind(kind)) {
            c->flag[idx] &= (uint8_t)~CT_LF_PREFETCHED;
            L->st.prefetch_useful++;
            if (!miss)
                seen = CT_PF_HIT_PREFETCHED;
        }
    }
    L->sb_valid[idx] |= mask;
    if (kind != CT_HWPREFETCH)
        L->sb_ref[idx] |= mask;
    if (write) {
        write_line(s, li, idx, addr, bytes);
        if (L->write_back)
            L->sb_dirty[idx] |= mask;
    }
    if (propose)
        fetch_policy_prefetch(s, li, target, kind);
    else if (L->pf && !L->pf->propose)
        prefetch_after(s, li, block, kind, seen);
    return lat;
}

/* ---- LRU levels: the fast path ---------------------------------------------
 *
 * An LRU level without classifier or prefetcher is served by serve_lru: the
 * hit path is a lookup and a stamp; the miss goes to the level's miss
 * function. A level is plain (see choose_paths) when it is also write-back,
 * write-allocate and non-inclusive, has no tap, and the level below it is
 * memory or a plain level with the same line size; its misses take
 * plain_miss, where the general rules above reduce to: fetch the line from
 * below (unless a write covers it), evict the LRU line (a dirty victim is
 * one whole-line write below), fill (last_miss when the level below is
 * memory). A plain level asks the plain level
 * below it directly (serve_below), without looking at the memo: the line a
 * level above misses is rarely the one the level below was told about last.
 * Same counts, cycles and events as the general path (test_paths checks
 * the two against each other).
 *
 * Each function exists as a copy for 8 ways, for 16 ways and for any
 * number of ways (W = 0; the copies for 8 and 16 also need a power-of-two
 * number of sets, which they index with a mask: the level's wsel), and
 * each miss function also for the ways of the level below (WN), for a
 * level below that is the last one (NLAST: its misses are served inline,
 * last_miss_w, not by a call) or not, and with and without events (E; the
 * copies without are chosen while no event sink is installed), chosen per
 * level with the rest. The batch loop (run_lru, run_lru_last) serves
 * first-level accesses itself, finding lines again by hints (the lines the
 * fetches and the data accesses found last), and takes the misses of an
 * 8-way level above a 16-way one inline.
 */

/* Tell an LRU level that line idx of set was used: its recency row or its
 * stamp (W as below). */
FORCE_INLINE void lru_use(ct_cache *c, uint64_t set, uint64_t idx, const uint32_t W)
{
    ct_cache_lru_use(c, set, idx, W);
}

/* The line of block in set of an LRU level, told to LRU as used; -1 on a
 * miss. want is the block's fingerprint (ct_cache_fp8). */
FORCE_INLINE int64_t lru_find(ct_cache *c, uint64_t set, uint64_t block, uint64_t want,
                              const uint32_t W)
{
    const int64_t idx = ct_cache_find_fp(c, set, block, want, W);
    if (idx >= 0) {
        lru_use(c, set, (uint64_t)idx, W);
        ct_cache_memo(c, (uint64_t)idx, block);
    }
    return idx;
}

/* Line idx of an LRU level holds block (the caller checked) and is used
 * again: LRU learns nothing when it is the line it was told about last. */
FORCE_INLINE void lru_reuse(ct_cache *c, uint64_t idx, uint64_t block, const uint32_t W)
{
    if (idx != c->memo_idx) {
        lru_use(c, ct_cache_set_w(c, block, W), idx, W);
        ct_cache_memo(c, idx, block);
    }
}

FORCE_INLINE uint32_t serve_lru_w(ct_sim *s, int li, uint64_t addr, uint32_t bytes, int kind,
                                  int write, const uint32_t W)
{
    ct_level *L = &s->lv[li];
    ct_cache *c = &L->c;
    const uint64_t block = addr >> c->line_bits;
    uint64_t set = 0;
    int64_t idx;

    L->st.kind[kind].accesses++;
    if (block == c->memo_block && ct_cache_tag(c, c->memo_idx) == block) {
        idx = (int64_t)c->memo_idx;  /* the line told last: nothing to tell */
    } else {
        set = ct_cache_set_w(c, block, W);
        idx = lru_find(c, set, block, ct_cache_fp8(block), W);
        if (idx < 0)
            return L->miss(s, L, addr, bytes, kind, write, set);
    }
    if (write)
        write_line(s, li, (uint64_t)idx, addr, bytes);
    return L->latency;
}

FORCE_INLINE uint32_t last_miss_w(ct_sim *s, ct_level *L, uint64_t addr, uint32_t bytes,
                                  int kind, int write, uint64_t set, uint64_t want,
                                  const uint32_t W, const int E);

/* A whole-line request (a fetch, or a write-back when write is set) from a
 * plain level to the plain level N below it, which has WN ways; want is
 * the block's fingerprint. NLAST: N is the last level (memory below it),
 * whose misses are served here inline. E: an event sink is installed. */
FORCE_INLINE uint32_t serve_below(ct_sim *s, ct_level *N, uint64_t block, uint64_t want,
                                  int kind, int write, const uint32_t WN, const int NLAST,
                                  const int E)
{
    ct_cache *c = &N->c;
    const uint64_t set = ct_cache_set_w(c, block, WN);
    const int64_t idx = lru_find(c, set, block, want, WN);

    N->st.kind[kind].accesses++;
    if (idx < 0) {
        if (NLAST)
            return last_miss_w(s, N, block << c->line_bits, N->line, kind, write, set, want,
                               WN, E);
        return N->miss(s, N, block << c->line_bits, N->line, kind, write, set);
    }
    if (write && !(c->flag[idx] & CT_LF_DIRTY)) {
        c->flag[idx] |= CT_LF_DIRTY;
        if (E)
            emit(s, (size_t)N->index, LC_WRITE, (uint64_t)idx, block, LINE_NS(c, idx));
    }
    return N->latency;
}

/* The parts of a plain miss of level L (plain_miss_w, last_miss_w). The
 * start: count the miss; whether the line must be fetched (not when a
 * write covers it). */
FORCE_INLINE int miss_start(ct_level *L, uint32_t bytes, int kind, int write, int *change)
{
    L->st.kind[kind].misses++;
    if (write && bytes == L->line) {
        *change = LC_FILL_NODATA;
        return 0;
    }
    L->st.bytes_from_below += L->line;
    return 1;
}

/* The victim's line in set, evicted (counted, reported); its block and
 * flags in *victim and *vflag when it is dirty and must be written below
 * (which the caller does), else *vflag is 0. */
FORCE_INLINE uint64_t miss_evict(ct_sim *s, ct_level *L, uint64_t set, uint64_t *victim,
                                 uint8_t *vflag, const uint32_t W, const int E)
{
    ct_cache *c = &L->c;
    const uint64_t idx = ct_cache_lru_victim(c, set, W);

    *vflag = 0;
    if (ct_cache_tag(c, idx) != CT_TAG_INVALID) {
        const uint8_t f = c->flag[idx];
        *victim = ct_cache_tag(c, idx);
        L->st.evictions++;
        if (E)
            emit(s, (size_t)L->index, LC_EVICT, idx, *victim, (f & CT_LF_NS) != 0);
        if (f & CT_LF_DIRTY) {
            L->st.writebacks++;
            L->st.bytes_to_below += L->line;
            *vflag = f;
        }
    }
    return idx;
}

/* Line idx of set now holds block (ns: its security; write: dirty). */
FORCE_INLINE void miss_fill(ct_sim *s, ct_level *L, uint64_t set, uint64_t idx, uint64_t block,
                            uint64_t want, int write, int ns, int change, const uint32_t W,
                            const int E)
{
    ct_cache *c = &L->c;
    ct_cache_put_fp(c, set, idx, block, want, W);
    c->flag[idx] = (uint8_t)((ns ? CT_LF_NS : 0) | (write ? CT_LF_DIRTY : 0));
    ct_cache_lru_fill(c, set, idx, W);
    ct_cache_memo(c, idx, block);
    if (E) {
        emit(s, (size_t)L->index, change, idx, block, ns);
        if (write)
            emit(s, (size_t)L->index, LC_WRITE, idx, block, ns);
    }
}

/* The miss of a plain level L above the plain level L->below, which has WN
 * ways (NLAST: and is the last level). want is the fingerprint of the
 * block of addr (the same in the level below: a plain level has the line
 * size of the plain level below it). E: an event sink is installed (the
 * copies without are chosen only when none is). The rules: fetch the line
 * from below (unless a write covers it), evict the LRU line (a dirty
 * victim is one whole-line write below, with its own security), fill. */
FORCE_INLINE uint32_t plain_miss_w(ct_sim *s, ct_level *L, uint64_t addr, uint32_t bytes,
                                   int kind, int write, uint64_t set, uint64_t want,
                                   const uint32_t W, const uint32_t WN, const int NLAST,
                                   const int E)
{
    const uint64_t block = addr >> L->c.line_bits;
    ct_level *const N = L->below;
    const int ns = s->ns;
    int change = LC_FILL;
    uint64_t idx, victim = 0;
    uint8_t vflag;
    uint32_t lat = L->latency;

    if (miss_start(L, bytes, kind, write, &change))
        lat = serve_below(s, N, block, want, write ? CT_LOAD : kind, 0, WN, NLAST, E);
    idx = miss_evict(s, L, set, &victim, &vflag, W, E);
    if (vflag) {
        s->ns = (vflag & CT_LF_NS) != 0;
        (void)serve_below(s, N, victim, ct_cache_fp8(victim), CT_WRITEBACK, 1, WN, NLAST, E);
        s->ns = ns;
    }
    miss_fill(s, L, set, idx, block, want, write, ns, change, W, E);
    return lat;
}

/* The miss of a plain level L with memory below it: plain_miss_w's rules,
 * memory serving the fetch and the write-back. */
FORCE_INLINE uint32_t last_miss_w(ct_sim *s, ct_level *L, uint64_t addr, uint32_t bytes,
                                  int kind, int write, uint64_t set, uint64_t want,
                                  const uint32_t W, const int E)
{
    int change = LC_FILL;
    uint64_t idx, victim;
    uint8_t vflag;
    uint32_t lat = L->latency;

    if (miss_start(L, bytes, kind, write, &change)) {
        s->tot.mem_reads++;
        lat = s->mem_latency;
    }
    idx = miss_evict(s, L, set, &victim, &vflag, W, E);
    if (vflag)
        s->tot.mem_writes++;
    miss_fill(s, L, set, idx, addr >> L->c.line_bits, want, write, s->ns, change, W, E);
    return lat;
}

#define SERVE_COPY(W)                                                                        \
    static uint32_t serve_lru_##W(ct_sim *s, int li, uint64_t addr, uint32_t bytes, int kind, \
                                  int write)                                                 \
    {                                                                                        \
        return serve_lru_w(s, li, addr, bytes, kind, write, W);                              \
    }
#define MISS_COPY(W, WN, NLAST, SUFFIX)                                                     \
    static NOINLINE uint32_t plain_miss_##W##_##WN##SUFFIX(                                  \
        ct_sim *s, ct_level *L, uint64_t addr, uint32_t bytes, int kind, int write,          \
        uint64_t set)                                                                        \
    {                                                                                        \
        return plain_miss_w(s, L, addr, bytes, kind, write, set,                             \
                            ct_cache_fp8(addr >> L->c.line_bits), W, WN, NLAST, 0);          \
    }                                                                                        \
    static NOINLINE uint32_t plain_miss_ev_##W##_##WN##SUFFIX(                               \
        ct_sim *s, ct_level *L, uint64_t addr, uint32_t bytes, int kind, int write,          \
        uint64_t set)                                                                        \
    {                                                                                        \
        return plain_miss_w(s, L, addr, bytes, kind, write, set,                             \
                            ct_cache_fp8(addr >> L->c.line_bits), W, WN, NLAST, 1);          \
    }
#define MISS_COPIES(W)               \
    MISS_COPY(W, 8, 0, )             \
    MISS_COPY(W, 16, 0, )            \
    MISS_COPY(W, 0, 0, )             \
    MISS_COPY(W, 8, 1, _last)        \
    MISS_COPY(W, 16, 1, _last)       \
    MISS_COPY(W, 0, 1, _last)        \
    static NOINLINE uint32_t last_miss_##W(ct_sim *s, ct_level *L, uint64_t addr,             \
                                           uint32_t bytes, int kind, int write, uint64_t set) \
    {                                                                                        \
        return last_miss_w(s, L, addr, bytes, kind, write, set,                              \
                           ct_cache_fp8(addr >> L->c.line_bits), W, 0);                      \
    }                                                                                        \
    static NOINLINE uint32_t last_miss_ev_##W(ct_sim *s, ct_level *L, uint64_t addr,          \
                                              uint32_t bytes, int kind, int write,           \
                                              uint64_t set)                                  \
    {                                                                                        \
        return last_miss_w(s, L, addr, bytes, kind, write, set,                              \
                           ct_cache_fp8(addr >> L->c.line_bits), W, 1);                      \
    }
SERVE_COPY(8)
SERVE_COPY(16)
SERVE_COPY(0)
MISS_COPIES(8)
MISS_COPIES(16)
MISS_COPIES(0)

/* The plain miss function of a level of W ways (a wsel value) above N
 * (NULL: memory), with events when ev is set. */
static ct_miss_fn plain_miss_for(uint32_t ways, const ct_level *N, int ev)
{
    /* [ev][ways][below: 8, 16, any, the last level of 8, 16, any, memory] */
    static const ct_miss_fn fns[2][3][7] = {
        {{plain_miss_8_8, plain_miss_8_16, plain_miss_8_0, plain_miss_8_8_last,
          plain_miss_8_16_last, plain_miss_8_0_last, last_miss_8},
         {plain_miss_16_8, plain_miss_16_16, plain_miss_16_0, plain_miss_16_8_last,
          plain_miss_16_16_last, plain_miss_16_0_last, last_miss_16},
         {plain_miss_0_8, plain_miss_0_16, plain_miss_0_0, plain_miss_0_8_last,
          plain_miss_0_16_last, plain_miss_0_0_last, last_miss_0}},
        {{plain_miss_ev_8_8, plain_miss_ev_8_16, plain_miss_ev_8_0, plain_miss_ev_8_8_last,
          plain_miss_ev_8_16_last, plain_miss_ev_8_0_last, last_miss_ev_8},
         {plain_miss_ev_16_8, plain_miss_ev_16_16, plain_miss_ev_16_0, plain_miss_ev_16_8_last,
          plain_miss_ev_16_16_last, plain_miss_ev_16_0_last, last_miss_ev_16},
         {plain_miss_ev_0_8, plain_miss_ev_0_16, plain_miss_ev_0_0, plain_miss_ev_0_8_last,
          plain_miss_ev_0_16_last, plain_miss_ev_0_0_last, last_miss_ev_0}},
    };
    const int i = ways == 8 ? 0 : ways == 16 ? 1 : 2;
    const int j = !N ? 6 : (N->below ? 0 : 3) + (N->wsel == 8 ? 0 : N->wsel == 16 ? 1 : 2);
    return fns[ev != 0][i][j];
}

/* A tapped level: every request goes to the tap (a sweep's one-pass
 * analysis), which charges the latencies itself. */
static uint32_t serve_tap(ct_sim *s, int li, uint64_t addr, uint32_t bytes, int kind, int write)
{
    ct_level *L = &s->lv[li];
    L->st.kind[kind].accesses++;
    L->tap(L->tap_ctx, addr, bytes, kind, write,
           !s->demand ? -1 : s->cur ? (int)s->cur->kind : kind);
    return 0;
}

/* [addr, addr+bytes) at level li, split at li's line boundaries; returns
 * the largest latency of the pieces. */
static uint32_t request(ct_sim *s, int li, uint64_t addr, uint32_t bytes, int kind, int write)
{
    const uint32_t lb = s->lv[li].c.line_bits;
    const ct_serve_fn serve = s->lv[li].serve;
    const uint64_t last = ct_last_byte(addr, bytes);
    uint32_t worst = 0;

    if (LIKELY(((addr ^ last) >> lb) == 0))
        return serve(s, li, addr, (uint32_t)(last - addr + 1), kind, write);
    for (;;) {
        const uint64_t pl = ct_piece_last(addr, last, lb);
        const uint32_t lat = serve(s, li, addr, (uint32_t)(pl - addr + 1), kind, write);
        if (lat > worst)
            worst = lat;
        if (pl == last)
            return worst;
        addr = pl + 1;
    }
}

static void prefetch_after(ct_sim *s, int li, uint64_t block, int kind, int seen)
{
    ct_level *L = &s->lv[li];
    uint64_t want[CT_PF_MAX];
    uint32_t n;
    int demand = s->demand;

    if (!demand_kind(kind))
        return;
    s->demand = 0;  /* prefetches cost nothing */
    n = L->pf->observe(L->pfst, block, s->cur ? s->cur->pc : 0, kind, seen, want, CT_PF_MAX);
    for (uint32_t i = 0; i < n; i++) {
        ct_cache *c = &L->c;
        uint64_t b = want[i], set = ct_cache_set(c, b);
        uint32_t lat;
        int dirty_in;

        L->st.prefetches_issued++;
        L->st.kind[CT_HWPREFETCH].accesses++;
        if (ct_cache_find(c, set, b) >= 0) {
            continue;
        }
        L->st.kind[CT_HWPREFETCH].misses++;
        L->st.bytes_from_below += L->line;
        if (UNLIKELY(s->coh != NULL) && L->info.core >= 0) {
            const int own = ct_coh_prefetch(s, li, b);
            (void)fetch(s, L->next, b << c->line_bits, L->line, CT_HWPREFETCH, &dirty_in);
            (void)install(s, li, set, b,
                          (uint8_t)(CT_LF_PREFETCHED | (dirty_in ? CT_LF_DIRTY : 0)), LC_FILL);
            ct_coh_filled(s, li, b, own);
            continue;
        }
        lat = fetch(s, L->next, b << c->line_bits, L->line, CT_HWPREFETCH, &dirty_in);
        if (UNLIKELY(s->tm != NULL))
            ct_timing_prefetch(s->tm, li, b, lat);
        (void)install(s, li, set, b, (uint8_t)(CT_LF_PREFETCHED | (dirty_in ? CT_LF_DIRTY : 0)),
                      LC_FILL);
    }
    s->demand = demand;
}

/* ---- cache operations ----------------------------------------------------- */

/* Apply clean / invalidate / clean+invalidate to line idx of level li. */
static void maintain_line(ct_sim *s, int li, uint64_t idx, int op)
{
    ct_level *L = &s->lv[li];
    ct_cache *c = &L->c;
    uint64_t block = ct_cache_tag(c, idx);
    const int ns = LINE_NS(c, idx), outer_ns = s->ns;

    if ((op == CT_OP_CLEAN || op == CT_OP_CLEAN_INVAL) && (c->flag[idx] & CT_LF_DIRTY)) {
        c->flag[idx] &= (uint8_t)~CT_LF_DIRTY;
        L->st.writebacks++;
        if (op == CT_OP_CLEAN)
            EMIT(s, (size_t)li, LC_CLEAN, idx, block, ns);
        s->ns = ns;
        write_back_line(s, L, idx, block);
        s->ns = outer_ns;
    }
    if (op == CT_OP_INVAL || op == CT_OP_CLEAN_INVAL) {
        drop_line(s, (size_t)li, idx, LC_INVAL, block, ns);
        L->st.invalidations++;
    }
}

static void cacheop_range(ct_sim *s, int li, uint64_t addr, uint64_t bytes, int op)
{
    ct_level *L = &s->lv[li];
    ct_cache *c = &L->c;
    uint64_t b0 = addr >> c->line_bits, b1 = ct_last_byte(addr, bytes) >> c->line_bits;

    /* the lines of the range leave the 3C shadow, held by the level or not */
    if (L->cls && (op == CT_OP_INVAL || op == CT_OP_CLEAN_INVAL))
        (void)ct_classify_forget(L->cls, b0, b1,  /* out of memory: they stay */
                                 L->sb_valid ? (1u << (c->line_bits - L->sb_bits)) - 1 : 0);
    if (UNLIKELY(L->opt != NULL) && op != CT_OP_CLEAN && b1 - b0 >= c->sets * c->ways)
        ct_opt_kill(L->opt, b0, b1);
    if (b1 - b0 >= c->sets * c->ways) {
        /* more lines in the range than in the level: visit the level's lines */
        uint64_t found = 0;
        for (uint64_t idx = 0; idx < c->sets * c->ways; idx++)
            if (ct_cache_tag(c, idx) != CT_TAG_INVALID && ct_cache_tag(c, idx) >= b0 &&
                ct_cache_tag(c, idx) <= b1) {
                found++;
                maintain_line(s, li, idx, op);
            }
        L->st.kind[CT_CACHEOP].accesses += b1 - b0 + 1;
        L->st.kind[CT_CACHEOP].misses += b1 - b0 + 1 - found;
        return;
    }
    for (uint64_t b = b0; b <= b1; b++) {
        int64_t idx = ct_cache_find(c, ct_cache_set(c, b), b);
        L->st.kind[CT_CACHEOP].accesses++;
        if (UNLIKELY(L->opt != NULL) && op != CT_OP_CLEAN)
            ct_opt_kill(L->opt, b, b);
        if (idx < 0) {
            L->st.kind[CT_CACHEOP].misses++;
            continue;
        }
        maintain_line(s, li, (uint64_t)idx, op);
    }
}

typedef struct aged_line {
    uint64_t age, idx, block;
} aged_line;

static int by_age(const void *a, const void *b)
{
    const aged_line *x = a, *y = b;
    if (x->age != y->age)
        return x->age < y->age ? -1 : 1;
    return x->idx < y->idx ? 1 : x->idx > y->idx ? -1 : 0;
}

/* Apply op to every line of level li in DineroIV's copy-back order (rule
 * "Cache operations"); lines are taken in way order when there is no
 * memory for the sort. */
static void maintain_level(ct_sim *s, int li, int op)
{
    ct_cache *c = &s->lv[li].c;
    aged_line *v = malloc(c->ways * sizeof *v);

    for (uint64_t set = c->sets; set-- > 0;) {
        const uint64_t base = set * c->ways;
        uint32_t n = 0;
        if (!v) {
            for (uint64_t idx = base; idx < base + c->ways; idx++)
                if (ct_cache_tag(c, idx) != CT_TAG_INVALID)
                    maintain_line(s, li, idx, op);
            continue;
        }
        for (uint64_t idx = base; idx < base + c->ways; idx++)
            if (ct_cache_tag(c, idx) != CT_TAG_INVALID)
                v[n++] = (aged_line){ct_cache_age(c, set, idx), idx, ct_cache_tag(c, idx)};
        if (n > 1)
            qsort(v, n, sizeof *v, by_age);
        for (uint32_t i = 0; i < n; i++)  /* still there (back-invalidation) */
            if (ct_cache_tag(c, v[i].idx) == v[i].block)
                maintain_line(s, li, v[i].idx, op);
    }
    free(v);
    if (s->lv[li].cls && (op == CT_OP_INVAL || op == CT_OP_CLEAN_INVAL))
        (void)ct_classify_reset(s->lv[li].cls);  /* out of memory: LRU's shadow */
}

static void cacheop_all(ct_sim *s, int op)
{
    /* levels are stored top-down, so dirty data moves down before the
     * levels below are cleaned */
    for (size_t li = 0; li < s->nlv; li++)
        maintain_level(s, (int)li, op);
}

/* A periodic flush (rule "Periodic flush"). */
static NOINLINE void flush_periodic(ct_sim *s)
{
    const ct_access *cur = s->cur;
    s->cur = NULL;
    cacheop_all(s, CT_OP_CLEAN);
    cacheop_all(s, CT_OP_INVAL);
    s->cur = cur;
}

static uint32_t cacheop(ct_sim *s, const ct_access *a, uint64_t addr)
{
    int op = a->op & CT_OP_MASK;
    int li = (a->op & CT_OP_ISIDE) ? s->first_i[a->core] : s->first_d[a->core];
    uint32_t lat = li >= 0 ? s->lv[li].latency : s->mem_latency;

    if (a->op & CT_OP_ALL) {
        if (op != CT_OP_CLEAN && op != CT_OP_INVAL && op != CT_OP_CLEAN_INVAL)
            return lat;
        if (!(a->op & CT_OP_ISIDE)) {
            cacheop_all(s, op);
        } else if (li >= 0 && s->lv[li].lv == CT_LV_L1I) {
            maintain_level(s, li, op);
        }
        return lat;
    }
    if (a->op & CT_OP_BOTH) {
        const int i0 = s->first_i[a->core];
        if (op != CT_OP_CLEAN && op != CT_OP_INVAL && op != CT_OP_CLEAN_INVAL)
            return lat;
        for (int i = i0; i >= 0; i = s->lv[i].next)
            cacheop_range(s, i, addr, ct_cacheop_bytes(a), op);
        for (; li >= 0; li = s->lv[li].next) {
            int taken = 0;
            for (int i = i0; i >= 0 && !taken; i = s->lv[i].next)
                taken = i == li;
            if (!taken)
                cacheop_range(s, li, addr, ct_cacheop_bytes(a), op);
        }
        return lat;
    }
    if (li < 0)
        return lat;
    if (op == CT_OP_ZERO || op == CT_OP_ALLOC) {
        ct_level *L = &s->lv[li];
        ct_cache *c = &L->c;
        uint64_t b0 = addr >> c->line_bits, b1 = ct_last_byte(addr, a->size) >> c->line_bits;
        for (uint64_t b = b0; b <= b1; b++) {
            uint64_t set = ct_cache_set(c, b);
            int64_t idx = ct_cache_find(c, set, b);
            L->st.kind[CT_CACHEOP].accesses++;
            if (UNLIKELY(L->opt != NULL))
                ct_opt_arrive(L->opt, b);
            if (UNLIKELY(s->coh != NULL) && L->info.core >= 0) {
                ct_coh_claim(s, li, b);  /* may have dropped lines of the set */
                idx = ct_cache_find(c, set, b);
            }
            if (idx >= 0) {
                ct_cache_touch(c, set, (uint64_t)idx);
            } else {
                L->st.kind[CT_CACHEOP].misses++;
                idx = (int64_t)install(s, li, set, b, 0,
                                       op == CT_OP_ZERO && L->write_back ? LC_FILL_NODATA
                                                                         : LC_FILL);
            }
            if (op == CT_OP_ZERO && L->write_back && !(c->flag[idx] & CT_LF_DIRTY)) {
                c->flag[idx] |= CT_LF_DIRTY;
                EMIT(s, (size_t)li, LC_WRITE, (uint64_t)idx, b, LINE_NS(c, idx));
            }
            if (UNLIKELY(s->coh != NULL) && L->info.core >= 0)
                ct_coh_filled(s, li, b, 1);
        }
        return lat;
    }
    if (op != CT_OP_CLEAN && op != CT_OP_INVAL && op != CT_OP_CLEAN_INVAL)
        return lat;
    if (a->op & CT_OP_ISIDE) {
        cacheop_range(s, li, addr, ct_cacheop_bytes(a), op);
        return lat;
    }
    for (; li >= 0; li = s->lv[li].next)
        cacheop_range(s, li, addr, ct_cacheop_bytes(a), op);
    return lat;
}

/* ---- the access entry point ----------------------------------------------- */

/* An access of uncached memory (rule "Uncached memory"), counted. */
FORCE_INLINE int uncached(ct_sim *s, const ct_access *a, uint64_t addr)
{
    if (LIKELY(!(a->flags & s->uncached_flags) &&
               (!s->nuncached || !ct_uncached_has(s->uncached, s->nuncached, addr))))
        return 0;
    s->tot.uncached[a->kind]++;
    return 1;
}

/* One access from the trace. The common case (a fetch, load or store within
 * one line) goes straight to the first level's serve function. */
FORCE_INLINE void access_one(ct_sim *s, const ct_access *a)
{
    const int kind = a->kind;
    const uint64_t addr = (s->use_paddr && (a->flags & CT_F_PADDR)) ? a->paddr : a->vaddr;
    const uint64_t last = ct_last_byte(addr, a->size);
    const uint32_t bytes = (uint32_t)(last - addr + 1);
    ct_core_totals *const ct = &s->core_tot[a->core];
    uint64_t cost;
    int li;

    s->cur = a;
    s->ns = (a->flags & CT_F_NS) != 0;
    s->demand = kind != CT_PREFETCH;
    ct->accesses[kind]++;
    if (UNLIKELY(kind >= CT_PREFETCH)) {
        if (kind == CT_NOFETCH) {
            ct->repeats += (a->flags & CT_F_REPEAT) != 0;
            return;
        }
        if (kind == CT_CACHEOP) {
            cost = cacheop(s, a, addr);
            ct->kind_cycles[kind] += cost;
            return;
        }
    }
    if (kind == CT_IFETCH) {
        li = s->first_i[a->core];
    } else {
        li = (kind == CT_PREFETCH && (a->op & CT_PF_INSTR)) ? s->first_i[a->core]
                                                            : s->first_d[a->core];
    }
    if (UNLIKELY(uncached(s, a, addr))) {
        if (kind == CT_PREFETCH)
            return;
        li = -1;
    }
    {
        const int write = kind == CT_STORE || kind == CT_ATOMIC;
        if (UNLIKELY(li < 0)) {
            if (write) s->tot.mem_writes++; else s->tot.mem_reads++;
            cost = s->mem_latency;
        } else {
            const ct_level *L = &s->lv[li];
            const uint32_t lb = L->c.line_bits;
            if (LIKELY(((addr ^ last) >> lb) == 0)) {
                cost = L->serve(s, li, addr, bytes, kind, write);
            } else {
                uint64_t p = addr, pl;
                cost = 0;
                s->tot.line_crossings++;
                do {
                    pl = ct_piece_last(p, last, lb);
                    cost += L->serve(s, li, p, (uint32_t)(pl - p + 1), kind, write);
                    p = pl + 1;
                } while (pl != last);
            }
        }
        if (kind == CT_PREFETCH)
            cost = 0;
    }
    ct->kind_cycles[kind] += cost;
}

/* ---- translation (rule "Translation"; walk.c) ------------------------------ */

uint32_t ct_hier_walk_read(ct_sim *s, int li, uint64_t pa, int ns)
{
    const int outer = s->ns;
    uint32_t lat;

    if (li < 0) {
        s->tot.mem_reads++;
        return s->mem_latency;
    }
    s->ns = ns;
    lat = request(s, li, pa, 8, CT_WALK, 0);
    s->ns = outer;
    return lat;
}

/* An access that crosses a page: one piece per page, each translated (the
 * first already is, in *m), each split at the first level's lines as
 * access_one splits; counted once. Returns the translation cycles of the
 * later pieces. */
static NOINLINE uint64_t access_pages(ct_sim *s, const ct_access *a, ct_xlat *m)
{
    const int kind = a->kind;
    int li = (kind == CT_IFETCH || (kind == CT_PREFETCH && (a->op & CT_PF_INSTR)))
                 ? s->first_i[a->core]
                 : s->first_d[a->core];
    const int write = kind == CT_STORE || kind == CT_ATOMIC;
    const uint64_t va = a->vaddr, last = ct_last_byte(va, a->size);
    const uint64_t pa0 = (a->flags & CT_F_PADDR)
                             ? a->paddr
                             : m->pbase | (va & ((1ull << m->size_log2) - 1));
    uint64_t p = va, cost = 0, xc = 0;
    int nothing = 0;

    s->core_tot[a->core].accesses[kind]++;
    s->tot.line_crossings++;
    if (UNLIKELY(uncached(s, a, s->use_paddr ? pa0 : va))) {
        nothing = kind == CT_PREFETCH;
        li = -1;
    }
    for (;;) {
        const uint64_t page_last = m->vbase + ((1ull << m->size_log2) - 1);
        const uint64_t piece_last = page_last >= p && page_last < last ? page_last : last;
        const uint64_t pa = (p == va && (a->flags & CT_F_PADDR))
                                ? a->paddr
                                : m->pbase | (p & ((1ull << m->size_log2) - 1));
        s->ns = (a->flags & CT_F_NS) != 0;
        if (nothing) {
        } else if (li < 0) {
            if (write) s->tot.mem_writes++; else s->tot.mem_reads++;
            cost += s->mem_latency;
        } else {
            /* the lines of the piece, each charged (rule "Timing") */
            const ct_level *L = &s->lv[li];
            const uint32_t lb = L->c.line_bits;
            uint64_t q = s->use_paddr ? pa : p, ql;
            const uint64_t qlast = ct_last_byte(q, piece_last - p + 1);
            do {
                ql = ct_piece_last(q, qlast, lb);
                cost += L->serve(s, li, q, (uint32_t)(ql - q + 1), kind, write);
                q = ql + 1;
            } while (ql != qlast);
        }
        if (piece_last == last)
            break;
        p = piece_last + 1;
        s->cur = a;
        xc += ct_translate(s, a, p, m);
    }
    if (kind == CT_PREFETCH)
        cost = 0;
    s->core_tot[a->core].kind_cycles[kind] += cost;
    return xc;
}

/* One access of a translating model: translate, then as access_one with
 * the physical address; add the translation's cost. */
static void access_translated(ct_sim *s, const ct_access *a)
{
    const int kind = a->kind;
    const uint64_t last = ct_last_byte(a->vaddr, a->size);
    uint64_t xc;
    ct_xlat m;

    if (kind == CT_NOFETCH || (kind == CT_CACHEOP && (a->op & CT_OP_ALL))) {
        access_one(s, a);
        return;
    }
    s->cur = a;
    xc = ct_translate(s, a, a->vaddr, &m);
    if (LIKELY(((last ^ a->vaddr) >> m.size_log2) == 0 || kind == CT_CACHEOP)) {
        ct_access t = *a;
        if (!(t.flags & CT_F_PADDR)) {
            t.paddr = m.pbase | (a->vaddr & ((1ull << m.size_log2) - 1));
            t.flags |= CT_F_PADDR;
        }
        access_one(s, &t);
        s->cur = a;
    } else {
        xc += access_pages(s, a, &m);
    }
    if (kind != CT_PREFETCH) {
        s->core_tot[a->core].kind_cycles[kind] += xc;
        s->tot.translation_cycles += xc;
    }
}

/* timing = overlap: one access as access_one serves it, then placed in its
 * core's time with the latency it was charged (sim/timing.c). */
static void access_timed(ct_sim *s, const ct_access *a)
{
    const uint64_t before = s->core_tot[a->core].kind_cycles[a->kind];
    access_one(s, a);
    ct_timing_access(s->tm, a, s->core_tot[a->core].kind_cycles[a->kind] - before);
}

void ct_sim_access(ct_sim *s, const ct_access *a)
{
    assert(a->kind < CT_KIND_STREAM && a->core < s->cores);
    if (UNLIKELY(s->dcs != NULL))
        ct_dcs_access(s, a);
    else if (UNLIKELY(s->tm != NULL))
        access_timed(s, a);
    else if (s->xl)
        access_translated(s, a);
    else
        access_one(s, a);
    s->cur = NULL;
}

int ct_sim_feed_at(ct_sim *s, int kind, uint64_t addr, uint32_t size, uint64_t pc,
                   uint32_t core, ct_error *err)
{
    ct_access a = {0};

    if (kind < 0 || kind >= CT_KIND_STREAM || kind == CT_CACHEOP)
        return ct_error_set(err, CT_E_USAGE,
                            "access kind %d: not one of ifetch, load, store, prefetch, "
                            "atomic, nofetch, misc (cache operations go through "
                            "ct_sim_access)",
                            kind);
    if (core >= s->cores)
        return ct_error_set(err, CT_E_USAGE, "core %u: the model has %u core%s", core,
                            s->cores, s->cores == 1 ? "" : "s");
    a.vaddr = addr;
    a.pc = pc;
    a.size = size;
    a.cpu = (uint16_t)core;
    a.core = (uint16_t)core;
    a.kind = (uint8_t)kind;
    a.flags = pc ? 0 : CT_F_NOPC;
    ct_sim_access(s, &a);
    return CT_OK;
}

int ct_sim_feed(ct_sim *s, int kind, uint64_t addr, uint32_t size, ct_error *err)
{
    return ct_sim_feed_at(s, kind, addr, size, 0, 0, err);
}

void ct_sim_marker(ct_sim *s, const ct_marker *m)
{
    if (s->xl)
        ct_xlate_marker(s->xl, m);
}

void ct_sim_trace_event(ct_sim *s, const ct_event *ev)
{
    if (s->xl)
        ct_xlate_event(s->xl, ev);
}

/* A batch stops at an access the model cannot take. */
static NOINLINE int refuse(ct_sim *s, const ct_access *a, ct_error *err)
{
    s->cur = NULL;
    if (a->flags & CT_F_NOADDR)
        return ct_error_set(err, CT_E_UNSUPPORTED,
                            "access at trace time %llu has no address (the trace masks its "
                            "addresses): it cannot be simulated", (unsigned long long)a->time);
    if (a->kind >= CT_KIND_STREAM)
        return ct_error_set(err, CT_E_INTERNAL, "access of unknown kind %u", a->kind);
    return ct_error_set(err, CT_E_INTERNAL, "access scheduled on core %u of %u", a->core,
                        s->cores);
}

_Static_assert((int)CT_F_NOADDR > (int)CT_STORE && (int)CT_F_DEVICE > (int)CT_STORE,
               "run_lru tests kind, CT_F_NOADDR and CT_F_DEVICE together");
_Static_assert(CT_IFETCH == 0 && CT_LOAD == 1 && CT_STORE == 2,
               "run_lru: a store is kind >> 1");

#define REFUSED(s, a) \
    UNLIKELY(((a)->flags & CT_F_NOADDR) || (a)->core >= (s)->cores || (a)->kind >= CT_KIND_STREAM)

/* Every access of the batch by access_one, or by access_timed when TIMED
 * (the two wrappers below pass the constant). */
FORCE_INLINE int run_each(ct_sim *s, const ct_batch *b, ct_error *err, const int TIMED)
{
    for (const ct_access *a = b->acc, *end = b->acc + b->n; a < end; a++) {
        if (REFUSED(s, a))
            return refuse(s, a, err);
        if (TIMED)
            access_timed(s, a);
        else
            access_one(s, a);
    }
    s->cur = NULL;
    return CT_OK;
}

/* Any configuration. */
static int run_any(ct_sim *s, const ct_batch *b, ct_error *err)
{
    return run_each(s, b, err, 0);
}

/* timing = overlap. */
static int run_overlap(ct_sim *s, const ct_batch *b, ct_error *err)
{
    return run_each(s, b, err, 1);
}

/* Count what the batch loop served and did not count yet (ct_route). */
FORCE_INLINE void count_routes(ct_sim *s, const int taps)
{
    for (uint32_t core = 0; core < s->cores; core++)
        for (int k = 0; k < 3; k++) {
            ct_route *R = &s->route[core];
            ct_core_totals *ct = &s->core_tot[core];
            if (R->n[k]) {
                ct->accesses[k] += R->n[k];
                ct->kind_cycles[k] += R->cycles[k];
                R->L[k]->st.kind[k].accesses += R->n[k];
                R->n[k] = R->cycles[k] = 0;
            }
            if (taps && R->mem[k]) {
                ct->accesses[k] += R->mem[k];
                ct->kind_cycles[k] += R->mem[k] * s->mem_latency;
                if (k == CT_STORE)
                    s->tot.mem_writes += R->mem[k];
                else
                    s->tot.mem_reads += R->mem[k];
                R->mem[k] = 0;
            }
        }
}

/* Every first level (each core's L1I and L1D, or whatever level takes
 * their accesses) is an LRU level without classifier or prefetcher: the
 * fetches, loads and stores that stay within one line are served here,
 * hit path inlined; everything else takes access_one. Same rules, same
 * numbers as run_any; the accesses and cycles of those served here are
 * summed per core and kind, and counted when the batch ends.
 *
 * A level remembers the last two lines that fetches found in it and the
 * last two that data accesses found (ct_hint): a unified L2 without an
 * L1I, whose fetches take turns with the misses of the L1D, finds the
 * fetched line again without a search, and so does an L1D whose accesses
 * take turns between two arrays.
 *
 * With `taps` (a constant), a first level may be tapped: its requests
 * within one line go to the tap here (serve_tap, no cycles), and those
 * that go straight to memory are counted here too (as access_one counts
 * them), summed per core and kind like the rest.
 *
 * The misses of a first level of 8 ways above a plain level of 16 are
 * served inline (miss_inline, choose_paths): with NLAST (a constant) those
 * of a level above the last level, the last level's misses inline too
 * (run_lru_last), else those of a level above a level with levels below
 * it (run_lru). The others call the level's miss function. */
FORCE_INLINE int run_first(ct_sim *s, const ct_batch *b, ct_error *err, const int taps,
                           const int NLAST)
{
    ct_route *const route = s->route;
    const uint16_t paddr_flag = s->paddr_flag;
    const uint32_t cores = s->cores;
    int rc = CT_OK;

    for (const ct_access *a = b->acc, *end = b->acc + b->n; a < end; a++) {
        const unsigned kind = a->kind, core = a->core;
        uint64_t block;
        int64_t idx;
        ct_route *R;
        ct_hint *H;
        ct_level *L;
        ct_cache *c;

        /* (CT_F_NOADDR and CT_F_DEVICE are above CT_STORE: one compare for all) */
        if (UNLIKELY((kind | (a->flags & (CT_F_NOADDR | CT_F_DEVICE))) > CT_STORE ||
                     core >= cores)) {
            if (REFUSED(s, a)) {
                rc = refuse(s, a, err);
                break;
            }
            access_one(s, a);
            continue;
        }
        R = &route[core];
        L = R->L[kind];
        H = R->H[kind];
        if (UNLIKELY(!L)) {
            if (taps) {
                R->mem[kind]++;
                continue;
            }
            access_one(s, a);
            continue;
        }
        c = &L->c;
        {
            /* (the address is read again where it is needed, not kept) */
            const uint64_t addr = (a->flags & paddr_flag) ? a->paddr : a->vaddr;
            if (UNLIKELY((addr & (L->line - 1)) + a->size > L->line)) {
                access_one(s, a); /* crosses a line */
                continue;
            }
            if (taps && L->tap) {
                R->n[kind]++;
                L->tap(L->tap_ctx, addr, a->size ? a->size : 1, (int)kind, (int)(kind >> 1),
                       (int)kind);
                continue;
            }
            block = addr >> c->line_bits;
        }
        R->n[kind]++;
        if (block == H->block[0] && ct_cache_tag(c, H->idx[0]) == block) {
            idx = (int64_t)H->idx[0];
            if ((uint64_t)idx == c->memo_idx)
                goto hit; /* the line told last: nothing to tell */
        } else if (block == H->block[1] && ct_cache_tag(c, H->idx[1]) == block) {
            idx = (int64_t)H->idx[1];
            H->block[1] = H->block[0];
            H->idx[1] = H->idx[0];
            H->block[0] = block;
            H->idx[0] = (uint64_t)idx;
        } else {
            const uint64_t want = ct_cache_fp8(block);
            uint64_t set;
            if (L->wsel == 8) {
                set = ct_cache_set_w(c, block, 8);
                idx = lru_find(c, set, block, want, 8);
            } else if (L->wsel == 16) {
                set = ct_cache_set_w(c, block, 16);
                idx = lru_find(c, set, block, want, 16);
            } else {
                set = ct_cache_set(c, block);
                idx = lru_find(c, set, block, want, 0);
            }
            H->block[1] = H->block[0];
            H->idx[1] = H->idx[0];
            H->block[0] = block;
            if (idx < 0) {
                const uint64_t addr = (a->flags & paddr_flag) ? a->paddr : a->vaddr;
                const uint32_t bytes = a->size ? a->size : 1;
                /* (the store flag as kind >> 1, not a compare: gcc kept a
                 * compare's result as a byte on the stack and read it back
                 * as an int, which stalls) */
                const int write = (int)(kind >> 1);
                s->cur = a;
                s->ns = (a->flags & CT_F_NS) != 0;
                s->demand = 1;  /* a tap below reads it (access_one may have left 0) */
                if (L->miss_inline == 1 + NLAST)
                    R->cycles[kind] += plain_miss_w(s, L, addr, bytes, (int)kind, write, set,
                                                    want, 8, 16, NLAST, 0);
                else
                    R->cycles[kind] += L->miss(s, L, addr, bytes, (int)kind, write, set);
                H->idx[0] = c->memo_idx; /* the line filled, if any */
                continue;
            }
            H->idx[0] = (uint64_t)idx;
            goto hit;
        }
        /* found by a hint: tell LRU */
        if (L->wsel == 8)
            lru_reuse(c, (uint64_t)idx, block, 8);
        else if (L->wsel == 16)
            lru_reuse(c, (uint64_t)idx, block, 16);
        else
            lru_reuse(c, (uint64_t)idx, block, 0);
    hit:
        if (kind == CT_STORE) {
            const uint64_t addr = (a->flags & paddr_flag) ? a->paddr : a->vaddr;
            s->cur = a;
            s->ns = (a->flags & CT_F_NS) != 0; /* a write-through level writes below */
            write_line(s, L->index, (uint64_t)idx, addr, a->size ? a->size : 1);
        }
        R->cycles[kind] += L->latency;
    }
    count_routes(s, taps);
    s->cur = NULL;
    return rc;
}

static int run_lru(ct_sim *s, const ct_batch *b, ct_error *err)
{
    return run_first(s, b, err, 0, 0);
}

static int run_lru_last(ct_sim *s, const ct_batch *b, ct_error *err)
{
    return run_first(s, b, err, 0, 1);
}

static int run_lru_tap(ct_sim *s, const ct_batch *b, ct_error *err)
{
    return run_first(s, b, err, 1, 0);
}

/* One core whose loads and stores go to a tapped level with a batch tap
 * (ct_tap_run_fn), and whose fetches go to it or to memory: the tap takes
 * the batch's accesses itself, run after run; an access it leaves (one
 * that crosses a line, or that the model refuses) takes access_one, as in
 * run_lru_tap. Same numbers as run_lru_tap. */
static int run_tap_batch(ct_sim *s, const ct_batch *b, ct_error *err)
{
    ct_route *R = &s->route[0];
    ct_level *L = R->L[CT_LOAD];
    const unsigned mine = 1u << CT_LOAD | 1u << CT_STORE | (R->L[CT_IFETCH] != NULL);
    uint64_t nofetch[2] = {0, 0};
    uint32_t i = 0;
    int rc = CT_OK;

    while ((i = L->tap_run(L->tap_ctx, b->acc, i, b->n, s->paddr_flag, mine, R->n, R->mem,
                           nofetch)) < b->n) {
        const ct_access *a = &b->acc[i++];
        if (REFUSED(s, a)) {
            rc = refuse(s, a, err);
            break;
        }
        access_one(s, a);
    }
    s->core_tot[0].accesses[CT_NOFETCH] += nofetch[0]; /* (one core) */
    s->core_tot[0].repeats += nofetch[1];
    count_routes(s, 1);
    s->cur = NULL;
    return rc;
}

/* A translating configuration: every access is translated first, and the
 * side records the translation needs (address-space markers, the trace's
 * walk lines) are taken before the access they precede. */
static int run_tlb(ct_sim *s, const ct_batch *b, ct_error *err)
{
    uint32_t mi = 0, ei = 0;

    for (uint32_t i = 0; i < b->n; i++) {
        const ct_access *a = &b->acc[i];
        while (mi < b->nmk && b->mk[mi].index <= i)
            ct_xlate_marker(s->xl, &b->mk[mi++]);
        while (ei < b->nev && b->ev[ei].index <= i)
            ct_xlate_event(s->xl, &b->ev[ei++]);
        if (REFUSED(s, a))
            return refuse(s, a, err);
        access_translated(s, a);
    }
    while (mi < b->nmk)
        ct_xlate_marker(s->xl, &b->mk[mi++]);
    while (ei < b->nev)
        ct_xlate_event(s->xl, &b->ev[ei++]);
    s->cur = NULL;
    return CT_OK;
}

static int run_part(ct_sim *s, const ct_batch *b, ct_error *err)
{
    if (UNLIKELY(s->win != NULL))
        return ct_window_run(s, b, err);
    return s->run(s, b, err);
}

/* Accesses before the next periodic flush or interval (UINT64_MAX: none). */
static uint64_t room_left(const ct_sim *s)
{
    uint64_t room = UINT64_MAX;
    if (s->flush_every)
        room = s->flush_every - s->since_flush;
    if (s->interval && s->interval - s->since_interval < room)
        room = s->interval - s->since_interval;
    return room;
}

/* The batch in parts that end where a periodic flush or an interval falls:
 * each part is b's accesses [i, i + n) with the side records before them
 * (and those after the last access with the last part), their indices made
 * relative. */
static NOINLINE int run_parts(ct_sim *s, const ct_batch *b, ct_error *err)
{
    ct_batch *p = &s->part;
    uint32_t i = 0, mi = 0, ei = 0;

    if (p->mkcap < b->nmk || p->evcap < b->nev) {
        ct_marker *mk = realloc(p->mk, (b->nmk ? b->nmk : 1) * sizeof *mk);
        ct_event *ev;
        if (mk)
            p->mk = mk;
        ev = realloc(p->ev, (b->nev ? b->nev : 1) * sizeof *ev);
        if (ev)
            p->ev = ev;
        if (!mk || !ev)
            return ct_error_set(err, CT_E_NOMEM, "out of memory");
        p->mkcap = b->nmk;
        p->evcap = b->nev;
    }
    do {
        const uint64_t room = room_left(s);
        const uint32_t n = b->n - i < room ? b->n - i : (uint32_t)room;
        const uint32_t end = i + n == b->n ? UINT32_MAX : i + n; /* side records below end */
        int rc;

        p->acc = b->acc + i;
        p->n = n;
        for (p->nmk = 0; mi < b->nmk && b->mk[mi].index < end; mi++, p->nmk++) {
            p->mk[p->nmk] = b->mk[mi];
            p->mk[p->nmk].index -= i;
        }
        for (p->nev = 0; ei < b->nev && b->ev[ei].index < end; ei++, p->nev++) {
            p->ev[p->nev] = b->ev[ei];
            p->ev[p->nev].index -= i;
        }
        if ((rc = run_part(s, p, err)) != CT_OK)
            return rc;
        i += n;
        if (s->interval && (s->since_interval += n) == s->interval) {
            s->since_interval = 0;
            s->iv_fn(s->iv_ctx, s);
        }
        if (s->flush_every && (s->since_flush += n) == s->flush_every) {
            flush_periodic(s);
            s->since_flush = 0;
        }
    } while (i < b->n);
    return CT_OK;
}

/* A model with opt levels: refused without its next uses; a failed file
 * operation of theirs ends the run (sim/opt_pass.c). */
static NOINLINE int run_opt(ct_sim *s, const ct_batch *b, ct_error *err)
{
    int rc = ct_opt_ready(s, err);
    if (rc == CT_OK)
        rc = (s->flush_every | s->interval) != 0 ? run_parts(s, b, err) : run_part(s, b, err);
    return rc == CT_OK ? ct_opt_status(s, err) : rc;
}

int ct_sim_run(ct_sim *s, const ct_batch *b, ct_error *err)
{
    if (UNLIKELY((s->flush_every | s->interval | s->nopt) != 0))
        return s->nopt ? run_opt(s, b, err) : run_parts(s, b, err);
    return run_part(s, b, err);
}

void ct_sim_set_interval(ct_sim *s, uint64_t n, ct_interval_fn fn, void *ctx)
{
    s->interval = fn ? n : 0;
    s->since_interval = 0;
    s->iv_fn = fn;
    s->iv_ctx = ctx;
}

/* ---- creation ------------------------------------------------------------- */

/* With coherence, the first levels serve the pieces of trace accesses
 * through ct_coh_serve around the serve function chosen for them, and the
 * batch loop is run_any (run_tlb with translation), which calls them. */
static void coherent_paths(ct_sim *s)
{
    if (!s->coh)
        return;
    for (size_t i = 0; i < s->nlv; i++) {
        ct_level *L = &s->lv[i];
        L->serve_inner = L->serve;
        if (ct_coh_entry(s, i))
            L->serve = ct_coh_serve;
    }
    if (s->run != ct_dcs_run && s->run != run_tlb)
        s->run = run_any;
}

/* Choose every level's serve and miss functions and the batch loop, once
 * (again when a tap or an event sink comes or goes): the access path never
 * tests the configuration. A level is plain (plain_miss) when it is LRU,
 * write-back, write-allocate and non-inclusive, has no classifier,
 * prefetcher or tap, and the level below it is memory or a plain level
 * with the same line size. A tapped level takes every request through serve_tap; the
 * batch loop is run_lru's when every first level is LRU or tapped (run_lru_tap when
 * any level is tapped, run_tap_batch when the tap takes runs of a batch itself). */
static void choose_paths(ct_sim *s)
{
    int tapped = 0, all_lru = 1, last_inline = 0;

    if (s->general) {
        for (size_t i = 0; i < s->nlv; i++) {
            s->lv[i].serve = s->lv[i].tap ? serve_tap : s->lv[i].sb_valid ? serve_sub : serve_any;
            s->lv[i].miss = miss;
            s->lv[i].plain = 0;
        }
        s->run = s->tm ? run_overlap : s->dcs ? ct_dcs_run : s->xl ? run_tlb : run_any;
        coherent_paths(s);
        return;
    }

    /* levels are stored top-down: decide from the bottom up */
    for (size_t i = s->nlv; i-- > 0;) {
        ct_level *L = &s->lv[i];
        const ct_level *N = L->next >= 0 ? &s->lv[L->next] : NULL;
        const int lru = (L->c.lru_row || L->c.lru_stamp) && !L->cls && !L->pf && !L->sb_valid;
        const int plain = lru && !L->tap && L->write_back && L->write_allocate == 1 &&
                          L->inclusion == CT_INCL_NONINCLUSIVE &&
                          (!N || (N->plain && N->line == L->line));
        const uint32_t ways = L->c.ways;
        L->wsel = (ways == 8 || ways == 16) && L->c.set_pow2 ? ways : 0;
        L->serve = L->tap          ? serve_tap
                   : L->sb_valid   ? serve_sub
                   : !lru          ? serve_any
                   : L->wsel == 8  ? serve_lru_8
                   : L->wsel == 16 ? serve_lru_16
                                   : serve_lru_0;
        L->miss = plain ? plain_miss_for(L->wsel, N, s->ev_fn != NULL) : miss;
        /* run_lru takes the misses of an 8-way level above a 16-way one
         * inline (2: the 16-way level is the last, its misses inline too) */
        L->miss_inline = !plain || L->wsel != 8 || !N || N->wsel != 16 || s->ev_fn ? 0
                         : N->below ? 1 : 2;
        last_inline |= L->miss_inline == 2;
        L->plain = plain;
        tapped |= L->tap != NULL;
    }
    for (uint32_t k = 0; k < s->cores * 3; k++) {
        const ct_level *F = s->route[k / 3].L[k % 3];
        if (F && F->serve != serve_lru_8 && F->serve != serve_lru_16 &&
            F->serve != serve_lru_0 && F->serve != serve_tap)
            all_lru = 0;
    }
    s->run = s->dcs ? ct_dcs_run : s->xl ? run_tlb : !all_lru ? run_any
             : tapped ? run_lru_tap : last_inline ? run_lru_last : run_lru;
    if (s->run == run_lru_tap && s->cores == 1) {
        const ct_route *R = &s->route[0];
        const ct_level *L = R->L[CT_LOAD];
        if (L && L->tap_run && R->L[CT_STORE] == L &&
            (!R->L[CT_IFETCH] || R->L[CT_IFETCH] == L))
            s->run = run_tap_batch;
    }
    coherent_paths(s);
}

void ct_sim_force_general(ct_sim *s)
{
    s->general = 1;
    choose_paths(s);
}

static int add_level(ct_sim *s, const struct ct_config *cfg, int lv, int core, ct_error *err)
{
    const ct_cache_cfg *k = &cfg->cache[lv];
    ct_level *L = &s->lv[s->nlv];
    const ct_prefetch_ops *pf = ct_prefetch_at((size_t)k->prefetcher);

    memset(L, 0, sizeof *L);
    L->index = (int)s->nlv;
    /* level i's policy draws from a generator seeded with [system] seed + i */
    if (ct_cache_init(&L->c, k->size, k->assoc, k->line,
                      ct_policy_at((size_t)k->replacement),
                      cfg->seed + (uint64_t)s->nlv) != 0)
        return ct_error_set(err, CT_E_NOMEM, "[%s]: cannot allocate %llu bytes of tags",
                            level_names[lv],
                            (unsigned long long)ct_cache_bytes(k->size, k->assoc, k->line));
    L->next = -1;
    L->lv = lv;
    L->system_events = k->events == CT_EVENTS_SYSTEM;
    L->inclusion = k->inclusion;
    L->write_back = k->write_back;
    L->write_allocate = k->write_allocate;
    L->latency = k->latency;
    L->line = k->line;
    if (pf && pf != &ct_prefetch_none) {
        const ct_prefetch_params pp = {.degree = k->prefetch_degree,
                                       .distance = k->prefetch_distance,
                                       .table = k->prefetch_table,
                                       .confidence = k->prefetch_confidence};
        L->pf = pf;
        L->pfst = pf->create(&pp);
        if (!L->pfst)
            return ct_error_set(err, CT_E_NOMEM, "[%s]: out of memory", level_names[lv]);
    }
    /* sub-blocks (rule "Sub-blocks"); a fetch policy (sim/prefetch/dinero.c)
     * works on them too: one per line without them */
    if ((k->subblock && k->subblock < k->line) || (pf && pf->propose)) {
        const uint64_t lines = L->c.sets * L->c.ways;
        const uint32_t sub = k->subblock && k->subblock < k->line ? k->subblock : k->line;
        L->sb_bits = (uint32_t)__builtin_ctz(sub);
        L->sb_full = (uint32_t)((1ull << (k->line / sub)) - 1);
        L->sb_valid = calloc(lines, sizeof *L->sb_valid);
        L->sb_dirty = calloc(lines, sizeof *L->sb_dirty);
        L->sb_ref = calloc(lines, sizeof *L->sb_ref);
        L->pf_abort = k->prefetch_abort;
        if (!L->sb_valid || !L->sb_dirty || !L->sb_ref)
            return ct_error_set(err, CT_E_NOMEM, "[%s]: out of memory", level_names[lv]);
    }
    if (cfg->miss_classes) {
        L->cls = ct_classify_create(k->size / k->line, ct_policy_at((size_t)k->replacement),
                                    cfg->seed + (uint64_t)s->nlv);
        if (!L->cls)
            return ct_error_set(err, CT_E_NOMEM, "[%s]: out of memory", level_names[lv]);
    }
    snprintf(L->name, sizeof L->name, "%s", level_names[lv]);
    L->info.name = L->name;
    L->info.core = core;
    L->info.size = k->size;
    L->info.assoc = k->assoc;
    L->info.line = k->line;
    L->info.sets = L->c.sets;
    L->info.latency = k->latency;
    L->info.replacement = ct_policy_at((size_t)k->replacement)->name;
    L->info.prefetcher = ct_prefetch_name_at((size_t)k->prefetcher);
    L->info.write_back = k->write_back;
    L->info.write_allocate = k->write_allocate;
    L->info.inclusion = inclusion_text[k->inclusion];
    L->info.next = -1;
    s->nlv++;
    return CT_OK;
}

uint64_t ct_sim_bytes_estimate(const ct_config *cfg)
{
    uint64_t total = 64u << 10;

    for (int lv = 0; lv < CT_LV_COUNT; lv++) {
        const ct_cache_cfg *k = &cfg->cache[lv];
        uint64_t n = lv >= CT_LV_L2 && k->shared ? 1 : cfg->cores, lines;
        if (!ct_config_level_present(cfg, lv) || !k->line)
            continue;
        if ((lines = k->size / k->line) == 0)
            continue;
        total += n * (ct_cache_bytes(k->size, k->assoc ? k->assoc : (uint32_t)lines, k->line) +
                      lines * 8 + (cfg->miss_classes ? lines * 64 : 0));
    }
    return total;
}

/* Refuse a hierarchy whose tags would not fit in physical memory. */
static int check_size(const ct_config *cfg, ct_error *err)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t phys = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    uint64_t total = 0, most = 0;
    int most_lv = 0;

    for (int lv = 0; lv < CT_LV_COUNT; lv++) {
        const ct_cache_cfg *k = &cfg->cache[lv];
        uint64_t n = lv >= CT_LV_L2 && k->shared ? 1 : cfg->cores;
        /* at most 2^40 / 4 * 13 * 1024 */
        uint64_t bytes = ct_cache_bytes(k->size, k->assoc, k->line) * n;
        if (!ct_config_level_present(cfg, lv))
            continue;
        total += bytes;
        if (bytes > most) {
            most = bytes;
            most_lv = lv;
        }
    }
    if (phys && total > phys)
        return ct_error_set(err, CT_E_CONFIG,
                            "%s%s[%s]: the caches need %llu MiB of tags (%llu for %s), more "
                            "than the %llu MiB of memory of this machine", cfg->path,
                            cfg->path[0] ? ": " : "", level_names[most_lv],
                            (unsigned long long)(total >> 20), (unsigned long long)(most >> 20),
                            level_names[most_lv], (unsigned long long)(phys >> 20));
    return CT_OK;
}

/* The levels top-down (per core L1I, L1D; then L2s; then L3s), each core's
 * path through them (next pointers, first levels, routes); idx receives
 * the level index per level id and core (-1: none). */
static int build_levels(ct_sim *s, const ct_config *cfg, int idx[][1024], ct_error *err)
{
    int rc;

    for (int lv = 0; lv < CT_LV_COUNT; lv++)
        for (uint32_t core = 0; core < cfg->cores; core++)
            idx[lv][core] = -1;
    for (int lv = 0; lv < CT_LV_COUNT; lv++) {
        if (!ct_config_level_present(cfg, lv))
            continue;
        if (lv >= CT_LV_L2 && cfg->cache[lv].shared) {
            if ((rc = add_level(s, cfg, lv, -1, err)) != CT_OK)
                return rc;
            for (uint32_t core = 0; core < cfg->cores; core++)
                idx[lv][core] = (int)s->nlv - 1;
        } else {
            for (uint32_t core = 0; core < cfg->cores; core++) {
                if ((rc = add_level(s, cfg, lv, (int)core, err)) != CT_OK)
                    return rc;
                idx[lv][core] = (int)s->nlv - 1;
            }
        }
    }

    /* next pointers, routing, and the levels above each level */
    for (uint32_t core = 0; core < cfg->cores; core++) {
        int below_l1 = idx[CT_LV_L2][core] >= 0 ? idx[CT_LV_L2][core] : idx[CT_LV_L3][core];
        int below_l2 = idx[CT_LV_L3][core];
        if (idx[CT_LV_L1I][core] >= 0)
            s->lv[idx[CT_LV_L1I][core]].next = below_l1;
        if (idx[CT_LV_L1D][core] >= 0)
            s->lv[idx[CT_LV_L1D][core]].next = below_l1;
        if (idx[CT_LV_L2][core] >= 0)
            s->lv[idx[CT_LV_L2][core]].next = below_l2;
        s->first_i[core] = idx[CT_LV_L1I][core] >= 0 ? idx[CT_LV_L1I][core] : below_l1;
        s->first_d[core] = idx[CT_LV_L1D][core] >= 0 ? idx[CT_LV_L1D][core] : below_l1;
    }
    s->route = calloc(cfg->cores, sizeof *s->route);
    s->core_tot = calloc(cfg->cores, sizeof *s->core_tot);
    if (!s->route || !s->core_tot)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    for (uint32_t core = 0; core < cfg->cores; core++) {
        const int first[3] = {s->first_i[core], s->first_d[core], s->first_d[core]};
        for (int k = 0; k < 3; k++) {
            s->route[core].L[k] = first[k] >= 0 ? &s->lv[first[k]] : NULL;
            s->route[core].H[k] = first[k] >= 0 ? &s->lv[first[k]].hint[k != 0] : NULL;
        }
    }
    return CT_OK;
}

/* The translation structures, their walks reading from the first present
 * level at or below [walk] cache on each core. */
static int attach_translation(ct_sim *s, const ct_config *cfg, int idx[][1024], ct_error *err)
{
    int *port = malloc(cfg->cores * sizeof *port);
    int rc;

    if (!port)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    for (uint32_t core = 0; core < cfg->cores; core++) {
        const int from = cfg->walk_port == CT_PORT_L1D  ? CT_LV_L1D
                         : cfg->walk_port == CT_PORT_L2 ? CT_LV_L2
                         : cfg->walk_port == CT_PORT_L3 ? CT_LV_L3
                                                        : CT_LV_COUNT;
        port[core] = -1;
        for (int lv = from; lv < CT_LV_COUNT && port[core] < 0; lv++)
            port[core] = idx[lv][core];
    }
    rc = ct_xlate_create(s, cfg, port, err);
    free(port);
    return rc;
}

/* Each level's neighbours (below, the levels above it) and the rules that
 * depend on them: sub-blocks above an exclusive level, an exclusive level's
 * line. */
static int link_levels(ct_sim *s, const ct_config *cfg, ct_error *err)
{
    const char *where = cfg->path[0] ? cfg->path : "configuration";

    for (size_t li = 0; li < s->nlv; li++) {
        ct_level *L = &s->lv[li];
        L->info.next = L->next;
        L->below = L->next >= 0 ? &s->lv[L->next] : NULL;
        L->above = malloc(s->nlv * sizeof *L->above);
        if (!L->above)
            return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    for (size_t a = 0; a < s->nlv; a++)
        for (int b = s->lv[a].next; b >= 0; b = s->lv[b].next) {
            s->lv[b].above[s->lv[b].nabove++] = (uint32_t)a;
            if (s->lv[b].inclusion == CT_INCL_INCLUSIVE)
                s->lv[a].incl_below = 1;
        }
    for (size_t li = 0; li < s->nlv; li++) {
        ct_level *L = &s->lv[li];
        if (L->sb_valid && L->next >= 0 && s->lv[L->next].inclusion == CT_INCL_EXCLUSIVE)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [%s] subblock: a level with sub-blocks or a DineroIV fetch "
                                "policy cannot be above an exclusive level ([%s])",
                                where, L->name, s->lv[L->next].name);
        if (L->inclusion != CT_INCL_EXCLUSIVE)
            continue;
        for (uint32_t i = 0; i < L->nabove; i++)
            if (s->lv[L->above[i]].next == (int)li && s->lv[L->above[i]].line != L->line)
                return ct_error_set(err, CT_E_CONFIG,
                                    "%s: [%s] inclusion: an exclusive level needs the %u-byte "
                                    "line of [%s] above it, not %u",
                                    where, L->name, s->lv[L->above[i]].line,
                                    s->lv[L->above[i]].name, L->line);
    }
    return CT_OK;
}

/* Whose counting rules the model follows ([system] compat, coherence) and
 * the warm-up window, which only drcachesim's rules have. */
static int attach_counting(ct_sim *s, const ct_config *cfg, ct_error *err)
{
    const char *where = cfg->path[0] ? cfg->path : "configuration";
    double f = 0;
    char why[128];
    int rc;

    if (cfg->compat == CT_COMPAT_DRCACHESIM) {
        if (s->xl)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [system] compat: drcachesim counting models caches only; "
                                "remove the TLB and walk sections, or run the TLBs without "
                                "compat", where);
        if ((rc = ct_dcs_attach(s, cfg, err)) != CT_OK)
            return rc;
    } else if ((rc = ct_coh_attach(s, cfg, err)) != CT_OK) {
        return rc;
    }
    if (ct_warmup_fraction_parse(cfg->warmup_fraction, &f, why, sizeof why) != 0)
        return ct_error_set(err, CT_E_CONFIG, "%s: [system] warmup_fraction: %s", where, why);
    if (f > 0 && !s->dcs)
        return ct_error_set(err, CT_E_CONFIG,
                            "%s: [system] warmup_fraction: needs compat = drcachesim (the "
                            "fraction is drcachesim's count of loaded lines)", where);
    return ct_window_fraction(s, f, err);
}

static int sim_create(ct_sim **out, const ct_config *cfg, ct_error *err)
{
    ct_sim *s = calloc(1, sizeof *s);
    int idx[CT_LV_COUNT][1024];   /* level index per level id and core */
    size_t maxlv;
    int rc = CT_OK;

    *out = NULL;
    if (!s)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    ct_libc_random_seed(&s->libc_rand, 1);  /* as a program that never calls srandom */
    if ((rc = check_size(cfg, err)) != CT_OK) {
        free(s);
        return rc;
    }
    s->cores = cfg->cores;
    s->mem_latency = cfg->mem_latency;
    s->use_paddr = cfg->indexing == CT_INDEX_PHYSICAL;
    s->flush_at_end = cfg->flush_at_end;
    s->uncached_flags =
        cfg->device_uncached && cfg->compat != CT_COMPAT_DRCACHESIM ? CT_F_DEVICE : 0;
    if (cfg->compat != CT_COMPAT_DRCACHESIM) {
        char why[256];
        if (ct_uncached_parse(cfg->uncached, s->uncached, &s->nuncached, why, sizeof why) != 0) {
            free(s);
            return ct_error_set(err, CT_E_CONFIG, "[system] uncached: %s", why);
        }
        s->general |= s->nuncached > 0;  /* the ranges are looked up on the general path */
    }
    s->flush_every = cfg->flush_every;
    maxlv = (size_t)CT_LV_COUNT * cfg->cores;
    s->lv = calloc(maxlv, sizeof *s->lv);
    s->first_i = malloc(cfg->cores * sizeof *s->first_i);
    s->first_d = malloc(cfg->cores * sizeof *s->first_d);
    if (!s->lv || !s->first_i || !s->first_d) {
        rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
        goto fail;
    }
    if ((rc = build_levels(s, cfg, idx, err)) != CT_OK)
        goto fail;
    s->paddr_flag = s->use_paddr ? CT_F_PADDR : 0;
    if (ct_config_translates(cfg) && (rc = attach_translation(s, cfg, idx, err)) != CT_OK)
        goto fail;
    if ((rc = link_levels(s, cfg, err)) != CT_OK ||
        (rc = ct_opt_attach(s, cfg, err)) != CT_OK ||
        (rc = attach_counting(s, cfg, err)) != CT_OK)
        goto fail;
    if (cfg->timing == CT_TIMING_OVERLAP) {
        if ((rc = ct_timing_create(&s->tm, s, cfg, err)) != CT_OK)
            goto fail;
        s->general = 1;  /* every miss on the general path, which tells timing.c */
    }
    choose_paths(s);
    *out = s;
    return CT_OK;
fail:
    ct_sim_free(s);
    return rc;
}

/* A configuration whose keys were set one at a time is checked here, on a
 * copy (the model keeps nothing of it). */
int ct_sim_create(ct_sim **out, const ct_config *cfg, ct_error *err)
{
    ct_config *tmp = NULL;
    const ct_config *use = NULL;
    int rc;

    *out = NULL;
    if ((rc = ct_config_checked(cfg, &tmp, &use, err)) != CT_OK)
        return rc;
    rc = sim_create(out, use, err);
    ct_config_free(tmp);
    return rc;
}

void ct_sim_free(ct_sim *s)
{
    if (!s)
        return;
    for (size_t li = 0; li < s->nlv; li++) {
        ct_level *L = &s->lv[li];
        ct_cache_free(&L->c);
        if (L->pf)
            L->pf->destroy(L->pfst);
        ct_classify_free(L->cls);
        free(L->sb_valid);
        free(L->sb_dirty);
        free(L->sb_ref);
        free(L->above);
    }
    ct_dcs_free(s->dcs);
    ct_coh_free(s->coh);
    ct_window_free(s->win);
    ct_xlate_free(s->xl);
    ct_timing_free(s->tm);
    free(s->part.mk);
    free(s->part.ev);
    free(s->lv);
    free(s->first_i);
    free(s->first_d);
    free(s->route);
    free(s->core_tot);
    free(s);
}

void ct_sim_finish(ct_sim *s)
{
    s->cur = NULL;
    s->ns = 0;
    if (s->flush_at_end && !s->dcs)
        cacheop_all(s, CT_OP_CLEAN);
}

/* ---- statistics ------------------------------------------------------------ */

void ct_sim_reset_stats(ct_sim *s)
{
    for (size_t li = 0; li < s->nlv; li++)
        memset(&s->lv[li].st, 0, sizeof s->lv[li].st);
    memset(&s->tot, 0, sizeof s->tot);
    memset(s->core_tot, 0, s->cores * sizeof *s->core_tot);
    if (s->xl)
        ct_xlate_reset_stats(s->xl);
    if (s->dcs)
        ct_dcs_reset_stats(s);
    if (s->tm)
        ct_timing_reset(s->tm);
}

ct_kind_stats ct_level_total(const ct_level_stats *st)
{
    ct_kind_stats t;
    memset(&t, 0, sizeof t);
    for (int k = 0; k < CT_KIND_COUNT; k++) {
        t.accesses += st->kind[k].accesses;
        t.hits += st->kind[k].hits;
        t.misses += st->kind[k].misses;
        t.compulsory += st->kind[k].compulsory;
        t.capacity += st->kind[k].capacity;
        t.conflict += st->kind[k].conflict;
    }
    return t;
}

size_t ct_sim_nlevels(const ct_sim *s) { return s->nlv; }

const ct_coherence_stats *ct_sim_coherence(const ct_sim *s) { return ct_dcs_coherence(s); }

int ct_sim_coherent(const ct_sim *s) { return ct_coh_protocol(s->coh); }

int ct_sim_level_write_invalidations(const ct_sim *s, size_t i, uint64_t *n)
{
    return ct_dcs_level_write_invalidations(s, i, n);
}

const ct_level_info *ct_sim_level_info(const ct_sim *s, size_t i)
{
    return i < s->nlv ? &s->lv[i].info : NULL;
}

/* Counters the access path does not keep because they follow from others:
 * hits = accesses - misses per kind, child hits = the hits of the levels
 * above, cycles = the sum over kinds. Refreshed whenever statistics are
 * read (the model is not const underneath the const view). */
static void refresh(const ct_sim *cs)
{
    ct_sim *s = (ct_sim *)cs;
    for (size_t i = 0; i < s->nlv; i++)
        for (int k = 0; k < CT_KIND_COUNT; k++)
            s->lv[i].st.kind[k].hits = s->lv[i].st.kind[k].accesses - s->lv[i].st.kind[k].misses;
    for (size_t i = 0; i < s->nlv; i++) {
        ct_level *L = &s->lv[i];
        L->st.child_hits = 0;
        for (uint32_t a = 0; a < L->nabove; a++)
            L->st.child_hits += ct_level_total(&s->lv[L->above[a]].st).hits;
    }
    memset(s->tot.accesses, 0, sizeof s->tot.accesses);
    memset(s->tot.kind_cycles, 0, sizeof s->tot.kind_cycles);
    s->tot.repeats = s->tot.cycles = s->tot.instructions = 0;
    for (uint32_t c = 0; c < s->cores; c++) {
        ct_core_totals *ct = &s->core_tot[c];
        ct->cycles = 0;
        for (int k = 0; k < CT_KIND_STREAM; k++) {
            ct->cycles += ct->kind_cycles[k];
            s->tot.accesses[k] += ct->accesses[k];
            s->tot.kind_cycles[k] += ct->kind_cycles[k];
        }
        if (s->tm)
            ct->cycles = ct_timing_cycles(s->tm, c);
        ct->instructions = ct->accesses[CT_IFETCH] + ct->accesses[CT_NOFETCH] - ct->repeats;
        s->tot.repeats += ct->repeats;
        s->tot.cycles += ct->cycles;
        s->tot.instructions += ct->instructions;
    }
}

const ct_level_stats *ct_sim_level_stats(const ct_sim *s, size_t i)
{
    if (i >= s->nlv)
        return NULL;
    refresh(s);
    return &s->lv[i].st;
}

const ct_sim_totals *ct_sim_get_totals(const ct_sim *s)
{
    refresh(s);
    return &s->tot;
}

const ct_core_totals *ct_sim_core_totals(const ct_sim *s, uint32_t core)
{
    if (core >= s->cores)
        return NULL;
    refresh(s);
    return &s->core_tot[core];
}


void ct_sim_tap(ct_sim *s, size_t li, ct_tap_fn fn, ct_tap_run_fn run, void *ctx)
{
    ct_level *L = &s->lv[li];
    L->tap = fn;
    L->tap_run = fn ? run : NULL;
    L->tap_ctx = ctx;
    choose_paths(s);
}

size_t ct_sim_ntlbs(const ct_sim *s) { return ct_xlate_ntlbs(s->xl); }

const ct_tlb_info *ct_sim_tlb_info(const ct_sim *s, size_t i)
{
    const ct_tlb *t = ct_xlate_tlb(s->xl, i);
    return t ? &t->info : NULL;
}

const ct_tlb_stats *ct_sim_tlb_stats(const ct_sim *s, size_t i)
{
    const ct_tlb *t = ct_xlate_tlb(s->xl, i);
    return t ? &t->st : NULL;
}

const ct_walk_stats *ct_sim_walk_stats(const ct_sim *s, uint32_t core)
{
    return ct_xlate_walk_stats(s->xl, core);
}

void ct_sim_set_event_sink(ct_sim *s, ct_event_fn fn, void *ctx)
{
    s->ev_fn = fn;
    s->ev_ctx = ctx;
    choose_paths(s); /* the plain paths have copies with and without events */
}
