/*
 * walk.c - address translation: the translation step of the access path,
 * the page-table walker, and where the page tables come from. Every rule,
 * stated once (the TLB and walk-cache structures are in tlb.c; the timing
 * sums are in hier.c's "Timing" rule).
 *
 * Translation step
 *   A configuration with an [itlb], [dtlb] or [stlb] section translates
 *   every access before it reaches the caches, except instructions that
 *   retired without a fetch and whole-cache operations. Instruction fetches,
 *   instruction-side prefetches and instruction-side cache operations take
 *   the instruction side, everything else the data side. An access looks up
 *   its side's L1 TLB ([itlb] or [dtlb]); on a miss the [stlb], which then
 *   fills the L1 TLB; on a miss there it walks, and the walk fills the STLB
 *   and the L1 TLB. A side without an L1 TLB starts at the STLB. A side with
 *   neither is translated for free: no lookup, no walk, no cost, the page
 *   the tables would give (the access's own physical address, else the
 *   synthetic page of [walk] leaf_level's size). An access that crosses a page
 *   is translated once per page it touches (one lookup each, as
 *   drcachesim's TLB simulator counts); a cache operation is translated at
 *   its first byte.
 *   The caches see ([system] indexing = physical) the access's own physical
 *   address when the trace gives one, else the translation's. With indexing
 *   = virtual they keep the virtual address; translation then feeds the TLB
 *   statistics, the walks' reads and the timing.
 *
 * Address spaces
 *   The ASID and VMID of an access are the last ones CT_MK_ASID and
 *   CT_MK_VMID markers set for its traced cpu (Tarmac: writes of TTBR0_EL1
 *   and VTTBR_EL2), 0 before any. Its regime is non-secure when it carries
 *   CT_F_NS_REGIME (Tarmac: its cpu's security state); the entries its
 *   walks fill are of that regime, and only an access of the same regime
 *   finds them.
 *
 * Table shape (stage 1, AArch64 long descriptors)
 *   Granule 4K, 16K or 64K: g = 12, 14 or 16 bits; each level resolves
 *   g - 3 bits. A walk's levels run from 4 - [walk] levels to 3; level L
 *   indexes the address bits from s(L) = g + (3 - L)(g - 3) up, and one of
 *   its descriptors covers 2^s(L) bytes. The tables translate va_bits = g +
 *   levels (g - 3) bits (4K and 4 levels: 48). A table is one granule of
 *   8-byte descriptors; descriptor address = table base + index x 8.
 *   Descriptors: bits[1:0] = 3 a table (levels below 3) or a page (level
 *   3), 1 a block, anything else invalid; the next table or the output
 *   address in bits [47:g] (a block's or page's from bit s(L) up); NS = bit
 *   5 (non-secure output, from a secure table), nG = bit 11, NSTable = bit
 *   63 (a secure table's next table is non-secure).
 *
 * Walks
 *   The walk cache ([walkcache], tlb.c) is probed for the deepest table it
 *   holds for the address (the level-2 entry first, of the levels it
 *   caches): a hit at level L starts the walk at level L + 1 from that
 *   table, else it starts at the top level. Each level reads one
 *   descriptor: a physical load of 8 bytes (kind "walk") into the core's
 *   [walk] cache level (the next present one below when that level is
 *   absent; memory when none is), in the security of the table. A table
 *   descriptor fills the walk cache (when it caches that level) and goes
 *   on; a block or page ends the walk with the mapping of 2^s(L) bytes; an
 *   invalid one ends it without (a fault: counted; the access then maps as
 *   a traced table with no leaf does, below). One walk at a time per core.
 *
 * Synthetic tables ([walk] tables = synthetic, or auto before the trace has
 *   shown a TTW line)
 *   Physical addresses have 48 bits: data pages lie below 2^47, tables in a
 *   reserved region above. Every ASID has its own tables; address bits from
 *   va_bits up select separate top-level tables. A table is allocated when
 *   a walk first needs it: the n-th table touched (in trace order, from 0)
 *   lies at 2^47 + n x granule. The walk reads every level down to [walk]
 *   leaf_level, whose block (a page at level 3) maps the address. Physical
 *   pages: the access's own physical address when the trace gives one;
 *   otherwise page number = a keyed permutation of the virtual page number
 *   modulo 2^(47 - s(leaf)), keyed by [system] seed, the ASID and the
 *   address bits from 47 up. A permutation: two pages of one address space
 *   below 2^47 never share a physical page, and a page maps to the same one
 *   in every run with that seed, in whatever order pages are touched (no
 *   state is kept). Descriptors: table = next table | 3; page = output |
 *   AF | nG | 3; block = output | AF | nG | 1; NS set for a non-secure
 *   access (synthetic entries are never global).
 *
 * Traced tables ([walk] tables = trace, or auto once a TTW line was seen)
 *   Each TTW line's descriptor (address and its security, value) goes into
 *   a table image; TTU lines update it. Which address a walk served the
 *   trace says only by order: the stage-1 TTW lines of a side (an
 *   instruction-side walk for instruction fetches, any other for data) are
 *   tied to that side's next access from the same cpu, and each teaches
 *   that cpu (each traced cpu learns its own tables: two cpus may run
 *   different tables under one ASID) where the level-L table covering that
 *   access's address lies: descriptor address - index_L(va) x 8, when the
 *   address has that index's offset in a granule (the top level: in a
 *   64-byte aligned table); otherwise the line teaches nothing. A walk
 *   reads the levels whose table it knows:
 *   from the descriptor above it (read from the image), the walk cache, or
 *   what the trace taught; a level whose table the trace never showed is
 *   not read (the reference's walk caches held it, which is why Fast Models
 *   shows walks starting at level 3) and is counted as skipped. A read whose
 *   value the image does not hold gives no next table. When no leaf was
 *   found, the access's own physical address maps a granule-sized page (a
 *   synthetic one when the access has none), not global, with the access's
 *   security. Stage-2 lines go into the image but teach nothing (stage 2
 *   is not modelled). When auto turns to the traced tables, the walk caches
 *   are emptied (they held synthetic tables); the TLBs keep their entries.
 *
 * Bounded memory
 *   The synthetic tables' allocation map and the traced tables taught hold
 *   [walk] max_tables keys each, the image 4 x max_tables descriptors, all
 *   allocated at creation; a key is found within 16 probes of its hash.
 *   When those are all taken: a new synthetic table lies at 2^47 + 2^46 +
 *   (hash of its key mod 2^(46 - g)) x granule (two such tables may
 *   coincide); a traced record replaces the one at its first probe.
 *
 * Events (only with an event sink installed)
 *   One TTW event per descriptor read, in the name of the first TLB of the
 *   access's side (none when the side has no TLB): LPAE, stage 1, the
 *   level, the descriptor address and its security, the value, the result
 *   (TABLE; BLOCK for blocks and pages, as Fast Models prints them; FAULT;
 *   none when the image does not hold the value) and ADDR = the next table
 *   or the output address. The fills of the walk cache and the TLBs follow
 *   (tlb.c).
 *
 * Timing (the sums are hier.c's "Timing" rule)
 *   A lookup costs its structure's latency. A walk costs [walk] latency,
 *   the walk cache's latency when there is one, and the latency of each
 *   descriptor read (the level that served it, or memory), one after the
 *   other.
 */
#include <stdlib.h>
#include <string.h>

#include "hier_internal.h"
#include "map.h"
#include "tlb.h"

#define PROBES 16
#define PENDING_MAX 16
#define CPU_IDS 65536
#define DATA_BITS 47
#define TABLE_REGION (1ull << DATA_BITS)
#define OVERFLOW_REGION (TABLE_REGION + (1ull << (DATA_BITS - 1)))
#define OA_MASK ((1ull << 48) - 1)

enum { SIDE_I = 0, SIDE_D = 1 };

/* A fixed-capacity open-addressing map of 64-bit keys. */
typedef struct tmap {
    uint64_t *key;            /* key + 1; 0 = empty */
    uint64_t *val;
    uint64_t mask;            /* capacity - 1 (a power of two) */
} tmap;

/* A stage-1 TTW line waiting for the access it served. */
typedef struct pending {
    uint64_t addr;
    uint16_t cpu;
    uint8_t level, ns;
} pending;

typedef struct xcore {
    ct_tlb *l1[2];            /* per side, NULL: none */
    ct_tlb *l2;
    ct_tlb *wc;
    uint32_t wc_levels;       /* bit L: the walk cache holds level-L descriptors */
    ct_tlb *namer[2];         /* the structure that names a side's walks */
    int port;                 /* level index descriptor reads start at, -1: memory */
    struct {                  /* a side without TLB: its last synthetic page */
        uint64_t vpn, pbase;
        uint32_t sh;
        uint16_t asid;
        int valid;
    } last[2];
    ct_walk_stats st;
} xcore;

struct ct_xlate {
    ct_tlb *tlb;
    size_t ntlb;
    xcore *core;
    uint32_t cores;
    uint32_t g;               /* granule bits */
    uint32_t b;               /* bits per level: g - 3 */
    uint32_t start;           /* top level: 4 - levels */
    uint32_t leaf;            /* synthetic leaf level */
    uint32_t latency;
    int tables;               /* enum ct_walk_tables */
    int traced;               /* walks use the traced image */
    uint64_t seed;
    uint16_t *asid, *vmid;    /* per traced cpu */
    tmap synth;               /* (asid, level, region) -> table number */
    uint64_t ntables;
    tmap taught;              /* (asid, level, region) -> table base | ns */
    tmap image;               /* descriptor address << 1 | ns -> value */
    pending pend[2][PENDING_MAX];
    uint32_t npend[2];
};

/* ---- small helpers --------------------------------------------------------- */

/* SplitMix64's step: the shared mix of x plus its increment. */
static uint64_t mix64(uint64_t x)
{
    return ct_mix64(x + 0x9e3779b97f4a7c15ull);
}

FORCE_INLINE uint32_t shift_of(const ct_xlate *x, uint32_t level)
{
    return x->g + (3 - level) * x->b;
}

FORCE_INLINE uint64_t index_of(const ct_xlate *x, uint32_t level, uint64_t va)
{
    return (va >> shift_of(x, level)) & ((1ull << x->b) - 1);
}

/* The key of the level-`level` table that covers va in address space asid. */
FORCE_INLINE uint64_t table_key(const ct_xlate *x, uint16_t asid, uint32_t level, uint64_t va)
{
    const uint32_t s = shift_of(x, level) + x->b;
    const uint64_t region = s >= 64 ? 0 : va >> s;
    return region << 20 | (uint64_t)asid << 4 | level;
}

/* The key of what traced cpu `cpu`'s walk lines taught about that table
 * (rule "Traced tables": per cpu). */
FORCE_INLINE uint64_t taught_key(const ct_xlate *x, uint16_t cpu, uint16_t asid, uint32_t level,
                                 uint64_t va)
{
    return table_key(x, asid, level, va) ^ mix64((uint64_t)cpu + 0x51ed27ull);
}

static int tmap_init(tmap *m, uint64_t cap)
{
    uint64_t n = 16;
    while (n < cap)
        n <<= 1;
    m->key = calloc(n, sizeof *m->key);
    m->val = calloc(n, sizeof *m->val);
    m->mask = n - 1;
    return m->key && m->val ? 0 : -1;
}

static void tmap_free(tmap *m)
{
    free(m->key);
    free(m->val);
}

/* The slot holding key (*found = 1), or the first free slot within PROBES
 * of its hash (*found = 0), or -1 when they are all taken. */
static int64_t tmap_slot(const tmap *m, uint64_t key, int *found)
{
    const uint64_t h = mix64(key);

    *found = 0;
    for (uint32_t i = 0; i < PROBES; i++) {
        const uint64_t j = (h + i) & m->mask;
        if (m->key[j] == key + 1) {
            *found = 1;
            return (int64_t)j;
        }
        if (m->key[j] == 0)
            return (int64_t)j;
    }
    return -1;
}

static int tmap_get(const tmap *m, uint64_t key, uint64_t *val)
{
    int found;
    const int64_t j = tmap_slot(m, key, &found);
    if (!found)
        return 0;
    *val = m->val[j];
    return 1;
}

/* Store key -> val; when full, replace the record at the first probe. */
static void tmap_put(tmap *m, uint64_t key, uint64_t val)
{
    int found;
    int64_t j = tmap_slot(m, key, &found);
    if (j < 0)
        j = (int64_t)(mix64(key) & m->mask);
    m->key[j] = key + 1;
    m->val[j] = val;
}

/* A keyed permutation of n-bit numbers: each step (add, multiply by an odd
 * number, xor with a right shift) is a bijection modulo 2^n. */
static uint64_t permute(uint64_t v, uint32_t n, uint64_t key)
{
    const uint64_t mask = n >= 64 ? ~0ull : (1ull << n) - 1;

    v &= mask;
    for (uint64_t r = 0; r < 3; r++) {
        const uint64_t k = mix64(key + r);
        v = (v + k) & mask;
        v = (v * (mix64(k) | 1)) & mask;
        if (n > 1)
            v ^= v >> ((n + 1) / 2);
    }
    return v;
}

/* ---- synthetic tables ------------------------------------------------------ */

static uint64_t synth_table(ct_xlate *x, uint16_t asid, uint32_t level, uint64_t va)
{
    const uint64_t key = table_key(x, asid, level, va);
    int found;
    const int64_t j = tmap_slot(&x->synth, key, &found);

    if (found)
        return TABLE_REGION + (x->synth.val[j] << x->g);
    if (j >= 0) {
        x->synth.key[j] = key + 1;
        x->synth.val[j] = x->ntables++;
        return TABLE_REGION + (x->synth.val[j] << x->g);
    }
    return OVERFLOW_REGION +
           ((mix64(key ^ x->seed) & ((1ull << (DATA_BITS - 1 - x->g)) - 1)) << x->g);
}

/* The synthetic physical page of the 2^size_log2-byte page holding va. */
static uint64_t synth_page(const ct_xlate *x, uint16_t asid, uint64_t va, uint32_t size_log2)
{
    const uint32_t n = DATA_BITS - size_log2;
    const uint64_t upper = va >> DATA_BITS;
    const uint64_t key = mix64(x->seed) ^ mix64((uint64_t)asid << 32 | size_log2) ^
                         mix64(upper ^ 0x5bd1e995ull);
    return permute(va >> size_log2, n, key) << size_log2;
}

/* ---- traced tables ------------------------------------------------------------ */

/* The stage-1 TTW lines of `side` from `cpu` served the access at va:
 * learn where their tables lie, then forget them. */
static NOINLINE void learn(ct_xlate *x, int side, uint16_t cpu, uint64_t va, uint16_t asid)
{
    uint32_t keep = 0;

    for (uint32_t i = 0; i < x->npend[side]; i++) {
        const pending *p = &x->pend[side][i];
        uint64_t off, align;
        if (p->cpu != cpu) {
            x->pend[side][keep++] = *p;
            continue;
        }
        if (p->level < x->start || p->level > 3)
            continue;
        off = index_of(x, p->level, va) * 8;
        align = p->level == x->start ? 64 : 1ull << x->g;
        if (p->addr < off || ((p->addr - off) & (align - 1)) != 0)
            continue;
        if (p->level != x->start && (p->addr & ((1ull << x->g) - 1)) != off)
            continue;
        tmap_put(&x->taught, taught_key(x, cpu, asid, p->level, va), (p->addr - off) | p->ns);
    }
    x->npend[side] = keep;
}

void ct_xlate_event(ct_xlate *x, const ct_event *ev)
{
    int side;
    pending *p;

    if ((ev->type != CT_EV_TTW && ev->type != CT_EV_TTU) || x->tables == CT_TABLES_SYNTHETIC ||
        ev->result == CT_WR_ABORTED)
        return;
    tmap_put(&x->image, ev->addr << 1 | ((ev->flags & CT_EVF_NS) != 0), ev->value);
    if (ev->type != CT_EV_TTW || ev->stage != 1 || (ev->flags & CT_EVF_VMSA))
        return;
    if (!x->traced) {
        /* the walk caches held synthetic tables */
        for (uint32_t c = 0; c < x->cores; c++)
            if (x->core[c].wc)
                ct_tlb_clear(x->core[c].wc);
        x->traced = 1;
    }
    side = (ev->flags & CT_EVF_ISIDE) ? SIDE_I : SIDE_D;
    if (x->npend[side] == PENDING_MAX) {
        memmove(&x->pend[side][0], &x->pend[side][1], (PENDING_MAX - 1) * sizeof(pending));
        x->npend[side]--;
    }
    p = &x->pend[side][x->npend[side]++];
    p->addr = ev->addr;
    p->cpu = ev->cpu;
    p->level = ev->level;
    p->ns = (ev->flags & CT_EVF_NS) != 0;
}

void ct_xlate_marker(ct_xlate *x, const ct_marker *mk)
{
    if (mk->type == CT_MK_ASID)
        x->asid[mk->cpu] = (uint16_t)mk->value;
    else if (mk->type == CT_MK_VMID)
        x->vmid[mk->cpu] = (uint16_t)mk->value;
}

/* ---- the walker --------------------------------------------------------------- */

static NOINLINE void emit_walk(ct_sim *s, const ct_tlb *namer, const ct_access *a, int side,
                               uint32_t level, uint64_t addr, int ns, uint64_t value,
                               int result, uint64_t out)
{
    ct_event ev;

    memset(&ev, 0, sizeof ev);
    ev.type = CT_EV_TTW;
    ev.op = CT_EVOP_WALK;
    ev.stage = 1;
    ev.level = (uint8_t)level;
    ev.result = (uint8_t)result;
    ev.addr = addr;
    ev.value = value;
    ev.size = 8;
    ev.line = out;
    ev.flags = (uint16_t)((ns ? CT_EVF_NS : 0) | (side == SIDE_I ? CT_EVF_ISIDE : 0) |
                          (result == CT_WR_FAULT ? CT_EVF_ABORT : 0));
    ev.time = a->time;
    ev.cpu = a->cpu;
    s->ev_fn(s->ev_ctx, &ev, namer->event_index);
}

/* The walk cache's deepest table for va among the levels it holds,
 * counted as a lookup of kind: 1 with the table's base, security and the
 * level it serves in *base, *tns and *level, or 0 on a miss. */
static int walk_cache_lookup(const ct_xlate *x, xcore *c, int kind, uint64_t va, uint16_t asid,
                             uint16_t vmid, int vns, uint64_t *base, int *tns, uint32_t *level)
{
    ct_tlb *wc = c->wc;
    int64_t idx = -1;
    uint32_t l;

    wc->st.kind[kind].accesses++;
    for (l = 3; l-- > x->start;)
        if (((c->wc_levels >> l) & 1) &&
            (idx = ct_tlb_find(wc, va, shift_of(x, l), asid, vmid, vns)) >= 0)
            break;
    if (idx < 0) {
        wc->st.kind[kind].misses++;
        return 0;
    }
    ct_tlb_hit(wc, idx);
    wc->st.kind[kind].hits++;
    wc->st.hits_by_size[shift_of(x, l)]++;
    *base = wc->pbase[idx];
    *tns = (wc->c.flag[idx] & CT_TE_NS) != 0;
    *level = l + 1;
    return 1;
}

/* What the descriptor `value` read at `level` is: a table (its address in
 * *out), a block or page (its output address in *out), or a fault. */
static int descriptor_kind(const ct_xlate *x, uint32_t level, uint64_t value, uint64_t *out)
{
    if ((value & 3) == 3 && level < 3) {
        *out = value & OA_MASK & ~((1ull << x->g) - 1);
        return CT_WR_TABLE;
    }
    if ((value & 3) == 3 || ((value & 3) == 1 && level < 3)) {
        *out = value & OA_MASK & ~((1ull << shift_of(x, level)) - 1);
        return CT_WR_BLOCK;
    }
    return CT_WR_FAULT;
}

/* Walk the tables for va; returns the cycles and the mapping in *m. */
static uint64_t walk(ct_sim *s, ct_xlate *x, xcore *c, const ct_access *a, uint64_t va,
                     int side, uint16_t asid, uint16_t vmid, int vns, ct_xlat *m)
{
    const int kind = a->kind, synthetic = !x->traced;
    const int access_ns = (a->flags & CT_F_NS) != 0;
    uint64_t cost = x->latency, base = 0;
    uint32_t level = x->start;
    int have_base = 0, tns = access_ns, leaf = 0;

    c->st.walks++;
    if (c->wc) {
        cost += c->wc->latency;
        have_base = walk_cache_lookup(x, c, kind, va, asid, vmid, vns, &base, &tns, &level);
    }
    if (synthetic && !have_base) {
        base = synth_table(x, asid, x->start, va);
        have_base = 1;
    }
    m->asid = asid;
    m->vmid = vmid;
    m->vns = (uint8_t)vns;
    for (; level <= 3; level++) {
        const uint32_t sh = shift_of(x, level);
        uint64_t addr, value = 0, out = 0;
        int known = 1, result;

        if (!have_base) {
            uint64_t v;
            if (!tmap_get(&x->taught, taught_key(x, a->cpu, asid, level, va), &v)) {
                c->st.skipped_levels++;
                continue;
            }
            base = v & ~1ull;
            tns = (int)(v & 1);
        }
        addr = base + index_of(x, level, va) * 8;
        if (synthetic) {
            if (level < x->leaf) {
                out = synth_table(x, asid, level + 1, va);
                value = out | 3;
            } else {
                out = (a->flags & CT_F_PADDR) ? a->paddr & ~((1ull << sh) - 1)
                                              : synth_page(x, asid, va, sh);
                value = out | 0x400 | 0x800 | (access_ns ? 0x20 : 0) | (level == 3 ? 3 : 1);
            }
        } else {
            known = tmap_get(&x->image, addr << 1 | (uint64_t)tns, &value);
        }
        cost += ct_hier_walk_read(s, c->port, addr, tns);
        c->st.reads++;
        c->st.reads_by_level[level]++;
        result = known ? descriptor_kind(x, level, value, &out) : CT_WR_UNKNOWN;
        if (UNLIKELY(s->ev_fn != NULL) && c->namer[side])
            emit_walk(s, c->namer[side], a, side, level, addr, tns, value, result, out);
        if (result == CT_WR_TABLE) {
            base = out;
            if (!tns && (value >> 63))
                tns = 1;
            if (c->wc && ((c->wc_levels >> level) & 1)) {
                ct_xlat e;
                e.size_log2 = (uint8_t)sh;
                e.vbase = va & ~((1ull << sh) - 1);
                e.pbase = base;
                e.global = 0;
                e.ns = (uint8_t)tns;
                e.vns = (uint8_t)vns;
                e.asid = asid;
                e.vmid = vmid;
                ct_tlb_fill(s, c->wc, &e);
            }
            continue;
        }
        if (result == CT_WR_BLOCK) {
            m->size_log2 = (uint8_t)sh;
            m->vbase = va & ~((1ull << sh) - 1);
            m->pbase = out;
            m->global = !(value & 0x800);
            m->ns = (uint8_t)(tns || (value & 0x20));
            leaf = 1;
            break;
        }
        if (result == CT_WR_FAULT) {
            c->st.faults++;
            break;
        }
        have_base = 0; /* the value is unknown: so is the next table */
    }
    if (!leaf) {
        m->size_log2 = (uint8_t)x->g;
        m->vbase = va & ~((1ull << x->g) - 1);
        m->pbase = (a->flags & CT_F_PADDR) ? a->paddr & ~((1ull << x->g) - 1)
                                           : synth_page(x, asid, va, x->g);
        m->global = 0;
        m->ns = (uint8_t)access_ns;
    }
    c->st.cycles += cost;
    return cost;
}

/* ---- the translation step --------------------------------------------------------- */

uint64_t ct_translate(ct_sim *s, const ct_access *a, uint64_t va, ct_xlat *m)
{
    ct_xlate *x = s->xl;
    xcore *c = &x->core[a->core];
    const int kind = a->kind;
    const int side = (kind == CT_IFETCH || (kind == CT_PREFETCH && (a->op & CT_PF_INSTR)) ||
                      (kind == CT_CACHEOP && (a->op & CT_OP_ISIDE)))
                         ? SIDE_I
                         : SIDE_D;
    const uint16_t asid = x->asid[a->cpu], vmid = x->vmid[a->cpu];
    const int vns = (a->flags & CT_F_NS_REGIME) != 0;
    ct_tlb *l1 = c->l1[side];
    uint64_t cost = 0;
    int64_t idx;

    if (UNLIKELY(x->npend[side] != 0))
        learn(x, side, a->cpu, va, asid);
    if (UNLIKELY(!l1 && !c->l2)) {
        const uint32_t sh = x->traced ? x->g : shift_of(x, x->leaf);
        m->size_log2 = (uint8_t)sh;
        m->vbase = va & ~((1ull << sh) - 1);
        if (a->flags & CT_F_PADDR) {
            m->pbase = a->paddr & ~((1ull << sh) - 1);
        } else {
            /* the permutation is a pure function: remember the last page */
            if (!c->last[side].valid || c->last[side].vpn != va >> sh ||
                c->last[side].sh != sh || c->last[side].asid != asid) {
                c->last[side].vpn = va >> sh;
                c->last[side].sh = sh;
                c->last[side].asid = asid;
                c->last[side].pbase = synth_page(x, asid, va, sh);
                c->last[side].valid = 1;
            }
            m->pbase = c->last[side].pbase;
        }
        m->global = 0;
        m->ns = (a->flags & CT_F_NS) != 0;
        m->vns = (uint8_t)vns;
        m->asid = asid;
        m->vmid = vmid;
        return 0;
    }
    if (l1) {
        cost += l1->latency;
        if ((idx = ct_tlb_lookup(l1, va, asid, vmid, vns, kind)) >= 0) {
            ct_tlb_get(l1, idx, m);
            return cost;
        }
    }
    if (c->l2) {
        cost += c->l2->latency;
        if ((idx = ct_tlb_lookup(c->l2, va, asid, vmid, vns, kind)) >= 0) {
            ct_tlb_get(c->l2, idx, m);
            if (l1)
                ct_tlb_fill(s, l1, m);
            return cost;
        }
    }
    cost += walk(s, x, c, a, va, side, asid, vmid, vns, m);
    if (c->l2)
        ct_tlb_fill(s, c->l2, m);
    if (l1)
        ct_tlb_fill(s, l1, m);
    return cost;
}

/* ---- creation and statistics --------------------------------------------------------- */

int ct_xlate_create(ct_sim *s, const struct ct_config *cfg, const int *port, ct_error *err)
{
    ct_xlate *x = calloc(1, sizeof *x);
    size_t per_core = 0;
    uint32_t wc_levels = 0;
    char why[128];

    if (!x)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    s->xl = x;
    for (int t = 0; t < CT_TLB_COUNT; t++)
        per_core += ct_config_tlb_present(cfg, t) != 0;
    x->cores = cfg->cores;
    x->g = cfg->walk_granule == 4096 ? 12 : cfg->walk_granule == 16384 ? 14 : 16;
    x->b = x->g - 3;
    x->start = 4 - cfg->walk_levels;
    x->leaf = cfg->walk_leaf_level;
    x->latency = cfg->walk_latency;
    x->tables = cfg->walk_tables;
    x->traced = x->tables == CT_TABLES_TRACE;
    x->seed = cfg->seed;
    x->tlb = calloc(per_core * cfg->cores, sizeof *x->tlb);
    if (ct_walkcache_levels(cfg->walkcache_levels, &wc_levels, why, sizeof why) != 0)
        return ct_error_set(err, CT_E_CONFIG, "[walkcache] levels: %s", why);
    x->core = calloc(cfg->cores, sizeof *x->core);
    x->asid = calloc(CPU_IDS, sizeof *x->asid);
    x->vmid = calloc(CPU_IDS, sizeof *x->vmid);
    if (!x->tlb || !x->core || !x->asid || !x->vmid ||
        (x->tables != CT_TABLES_TRACE && tmap_init(&x->synth, cfg->walk_max_tables) != 0) ||
        (x->tables != CT_TABLES_SYNTHETIC &&
         (tmap_init(&x->taught, cfg->walk_max_tables) != 0 ||
          tmap_init(&x->image, 4 * cfg->walk_max_tables) != 0)))
        return ct_error_set(err, CT_E_NOMEM, "address translation: out of memory");
    for (uint32_t core = 0; core < cfg->cores; core++) {
        xcore *c = &x->core[core];
        ct_tlb *mine[CT_TLB_COUNT] = {NULL};
        for (int t = 0; t < CT_TLB_COUNT; t++) {
            ct_tlb *tl;
            if (!ct_config_tlb_present(cfg, t))
                continue;
            tl = &x->tlb[x->ntlb];
            if (ct_tlb_init(tl, &cfg->tlb[t], t, (int)core, cfg->seed + 7919 * (x->ntlb + 1)) != 0) {
                x->ntlb++;
                return ct_error_set(err, CT_E_NOMEM, "address translation: out of memory");
            }
            tl->event_index = s->nlv + x->ntlb;
            x->ntlb++;
            mine[t] = tl;
        }
        c->l1[SIDE_I] = mine[CT_TLB_I];
        c->l1[SIDE_D] = mine[CT_TLB_D];
        c->l2 = mine[CT_TLB_S];
        c->wc = mine[CT_TLB_WALKCACHE];
        c->wc_levels = wc_levels;
        for (int side = 0; side < 2; side++)
            c->namer[side] = c->l1[side] ? c->l1[side] : c->l2;
        c->port = port[core];
    }
    return CT_OK;
}

void ct_xlate_free(ct_xlate *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->ntlb; i++)
        ct_tlb_free(&x->tlb[i]);
    free(x->tlb);
    free(x->core);
    free(x->asid);
    free(x->vmid);
    tmap_free(&x->synth);
    tmap_free(&x->taught);
    tmap_free(&x->image);
    free(x);
}

void ct_xlate_reset_stats(ct_xlate *x)
{
    for (size_t i = 0; i < x->ntlb; i++)
        memset(&x->tlb[i].st, 0, sizeof x->tlb[i].st);
    for (uint32_t c = 0; c < x->cores; c++)
        memset(&x->core[c].st, 0, sizeof x->core[c].st);
}

size_t ct_xlate_ntlbs(const ct_xlate *x) { return x ? x->ntlb : 0; }

ct_tlb *ct_xlate_tlb(ct_xlate *x, size_t i) { return x && i < x->ntlb ? &x->tlb[i] : NULL; }

const ct_walk_stats *ct_xlate_walk_stats(const ct_xlate *x, uint32_t core)
{
    return x && core < x->cores ? &x->core[core].st : NULL;
}
