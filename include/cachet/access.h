/*
 * cachet/access.h - the unified access stream.
 *
 * Every frontend turns its format into the same three plain records:
 *
 *   ct_access  one memory access (fetch, load, store, prefetch, cache
 *              operation, atomic read-modify-write) or one instruction that
 *              retired without a fetch;
 *   ct_marker  a side record: thread switch, cpu change, timestamp, sync;
 *   ct_event   a reference event that the trace itself carries (Tarmac CACHE,
 *              TLB, WALKCACHE and TTW lines), for validation.
 *
 * Frontends fill caller-owned ct_batch buffers. Markers and events carry the
 * index of the access they precede, so the hot loop over accesses stays a
 * plain array walk and consumers merge side records only where they occur.
 *
 * Sizes and line crossing: an access covers [addr, addr + size). Frontends
 * never split accesses; the cache hierarchy splits an access that crosses a
 * line boundary into one access per line touched (rule stated once, in
 * sim/hier.c).
 */
#ifndef CACHET_ACCESS_H
#define CACHET_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Access kinds. The first CT_KIND_STREAM kinds appear in traces; the others
 * exist only inside the hierarchy (traffic between levels) and in statistics. */
enum ct_kind {
    CT_IFETCH = 0,   /* instruction fetch of `size` bytes at vaddr */
    CT_LOAD,         /* data read */
    CT_STORE,        /* data write */
    CT_PREFETCH,     /* software prefetch; `op` holds CT_PF_* hints */
    CT_CACHEOP,      /* cache maintenance; `op` holds CT_OP_* */
    CT_ATOMIC,       /* read-modify-write (one access that reads and writes) */
    CT_NOFETCH,      /* an instruction record without a fetch (TT6E's
                        synthetic trap pair; drmemtrace INSTR_NO_FETCH, with
                        CT_F_REPEAT): counted as an access of its own kind,
                        never simulated; an instruction unless CT_F_REPEAT */
    CT_MISC,         /* data access of unknown type (DineroIV's din label 3):
                        simulated as a data read, counted as its own kind,
                        fetched from the next level as "misc" too */
    CT_KIND_STREAM,  /* number of kinds a trace can contain */
    CT_WRITEBACK = CT_KIND_STREAM, /* dirty line written to the next level */
    CT_HWPREFETCH,   /* request made by a hardware prefetcher */
    CT_WALK,         /* page-table walk descriptor read */
    CT_KIND_COUNT
};

/* Cache operations (CT_CACHEOP): the operation in the low nibble, modifiers
 * above it. An operation applies to the line(s) covering [vaddr, vaddr+size)
 * unless CT_OP_ALL is set. A range of 4 GiB or more does not fit `size`: it
 * carries CT_OP_LONG, size 0, and its length in bytes in `pc` (the operation
 * then has no pc of its own, CT_F_NOPC); ct_cacheop_bytes reads either. */
enum ct_cacheop {
    CT_OP_CLEAN = 1,       /* write back if dirty; the line stays, clean */
    CT_OP_INVAL = 2,       /* drop the line; dirty data is lost */
    CT_OP_CLEAN_INVAL = 3, /* write back if dirty, then drop */
    CT_OP_ZERO = 4,        /* allocate without fetching, whole line written (dirty) */
    CT_OP_ALLOC = 5,       /* allocate without fetching, line stays clean */
    CT_OP_MASK = 0x0f,
    CT_OP_ISIDE = 0x10,    /* instruction-side operation (starts at L1I) */
    CT_OP_ALL = 0x20,      /* the whole cache(s), no address (Tarmac "All" scope) */
    CT_OP_LONG = 0x40,     /* a range of 4 GiB or more: its length is in `pc` */
    CT_OP_BOTH = 0x80      /* the instruction side from the L1I down, then the
                              data side from the L1D down (din label 5) */
};

/* Software prefetch hints (CT_PREFETCH): bits of `op`. */
enum ct_prefetch_hint {
    CT_PF_WRITE = 0x01,    /* prefetch for store */
    CT_PF_INSTR = 0x02,    /* prefetch into the instruction side */
    CT_PF_NT = 0x04,       /* non-temporal */
    CT_PF_LEVEL_SHIFT = 4, /* bits 4-5: target level 1-3, 0 = unspecified */
    CT_PF_LEVEL_MASK = 0x30
};

/* Access flags. */
enum ct_access_flag {
    CT_F_PADDR = 0x0001,   /* paddr is valid */
    CT_F_NS = 0x0002,      /* non-secure */
    CT_F_EXCL = 0x0004,    /* exclusive (load/store-exclusive) */
    CT_F_PRIV = 0x0008,    /* privileged */
    CT_F_UNPRIV = 0x0010,  /* unprivileged (Tarmac 'T' attribute) */
    CT_F_NOADDR = 0x0020,  /* address unknown (masked in the trace): never simulate */
    CT_F_NOPC = 0x0040,    /* pc unknown */
    CT_F_NS_REGIME = 0x0080, /* made in a non-secure translation regime (Tarmac: the
                               cpu's security state, the _n of EL1h_n); the TLB
                               entries it fills are non-secure (CT_EVF_VNS).
                               CT_F_NS is the physical address's security */
    CT_F_REPEAT = 0x0100,  /* CT_NOFETCH only: the previous instruction executing
                              again (drmemtrace INSTR_NO_FETCH: an iteration of a
                              rep-string instruction after the first), not an
                              instruction of its own, as DynamoRIO's basic_counts
                              counts "(fetched) instructions" */
    CT_F_DEVICE = 0x0200,  /* Device memory (Tarmac LD/ST attributes): uncached unless
                              [system] device_uncached = no */
    CT_F_DEPENDENT = 0x0400 /* the address came from the data of the core's previous
                              load (gen:chase marks its loads; no trace format tells):
                              timing = overlap issues it after that load completes */
};

/* One access. 48 bytes, plain data, no pointers. */
typedef struct ct_access {
    uint64_t vaddr;   /* virtual (effective) address */
    uint64_t paddr;   /* physical address when flags & CT_F_PADDR */
    uint64_t pc;      /* pc of the instruction that made it */
    uint64_t time;    /* the trace's own timestamp or record index */
    uint32_t size;    /* bytes (0: the trace did not tell, see sim/hier.c; cache
                         ops: range size, 0 with CT_OP_ALL) */
    uint32_t thread;  /* thread id from the trace (0 when unknown) */
    uint16_t cpu;     /* cpu id as traced */
    uint16_t core;    /* simulated core, set by the scheduler */
    uint8_t kind;     /* enum ct_kind */
    uint8_t op;       /* CT_OP_* for cache ops, CT_PF_* for prefetches */
    uint16_t flags;   /* enum ct_access_flag */
} ct_access;

/* The length in bytes of a cache operation's range (CT_OP_LONG: in pc). */
static inline uint64_t ct_cacheop_bytes(const ct_access *a)
{
    return (a->op & CT_OP_LONG) ? a->pc : a->size;
}

/* Side records. */
enum ct_marker_type {
    CT_MK_THREAD = 1,    /* the following accesses belong to `thread` */
    CT_MK_THREAD_EXIT,   /* `thread` ended */
    CT_MK_CPU,           /* the current thread now runs on traced cpu `cpu` */
    CT_MK_TIMESTAMP,     /* trace timestamp `time` (text formats: value2 = the line
                            where it begins) */
    CT_MK_SYNC,          /* synchronisation point: value = address, value2 = count,
                            aux = producer-specific code (TT6 escape 0x20-0x3f) */
    CT_MK_KERNEL,        /* control-flow discontinuity (signal, syscall, exception) */
    CT_MK_LINE_SIZE,     /* the tracer's cache line size (value) */
    CT_MK_PAGE_SIZE,     /* the tracer's page size (value) */
    CT_MK_IDLE,          /* the core was idle (core-sharded traces) */
    CT_MK_ASID,          /* traced cpu `cpu` now runs address space `value` (ASID;
                            Tarmac: a write of TTBR0_EL1) */
    CT_MK_VMID           /* traced cpu `cpu` now runs virtual machine `value` (VMID;
                            Tarmac: a write of VTTBR_EL2) */
};

typedef struct ct_marker {
    uint32_t index;   /* applies before accesses[index] of the same batch */
    uint16_t type;    /* enum ct_marker_type */
    uint16_t cpu;
    uint32_t thread;
    uint32_t aux;
    uint64_t time;
    uint64_t value;
    uint64_t value2;
} ct_marker;

/*
 * Events in the Tarmac vocabulary. A trace carries reference events (Tarmac
 * CACHE, TLB, WALKCACHE, TTW and TTU lines); a model emits its own through
 * the same record (cachet/sim.h), so that the two can be matched one by one.
 * Which fields mean something depends on `type`:
 *
 *   CACHE      line = LINE id, addr = physical line address; CT_EVF_NS.
 *   TLB,       size = bytes the entry maps, addr = virtual base, value =
 *   WALKCACHE  physical base (FILL only, CT_EVF_PADDR), regime, asid
 *              (CT_EVF_NG), vmid (CT_EVF_VMID); CT_EVF_NS for a non-secure
 *              physical base, CT_EVF_VNS for a non-secure virtual base.
 *   TTW, TTU   structure = the side that walked (ITLB, DTLB), addr = physical
 *              descriptor address, value = descriptor, size = descriptor
 *              bytes, stage and level, result, line = output address (ADDR=)
 *              when the result names one; CT_EVF_NS for a non-secure
 *              descriptor address, CT_EVF_ISIDE for an instruction-side walk.
 */
enum ct_event_type {
    CT_EV_CACHE = 1,  /* CACHE <id> LINE <n> <op> <paddr> */
    CT_EV_TLB,        /* TLB FILL|EVICT <id> <size> <regime>[:<paddr>] */
    CT_EV_WALKCACHE,  /* WALKCACHE FILL|EVICT ... */
    CT_EV_TTW,        /* TTW <side> <format> <stage>:<level> <desc addr> <value> */
    CT_EV_TTU         /* TTU (table update) */
};

enum ct_event_op {
    CT_EVOP_ALLOC = 1, /* processor cache: line filled with read data */
    CT_EVOP_DIRTY,     /* processor cache: line holds new write data */
    CT_EVOP_CLEAN,     /* dirty data written back, the line stays */
    CT_EVOP_INVAL,     /* processor cache: line dropped; system cache: dropped
                          by a maintenance operation */
    CT_EVOP_FILL,      /* system cache / TLB / walk cache fill */
    CT_EVOP_EVICT,     /* system cache / TLB / walk cache eviction */
    CT_EVOP_WALK,      /* TTW: descriptor read */
    CT_EVOP_UPDATE,    /* TTU: descriptor written */
    CT_EVOP_SHARED,    /* coherence: the line became Shared (another core read it) */
    CT_EVOP_UNIQUE,    /* coherence: the core became the line's only holder with the
                          right to write it (an Exclusive fill, an upgrade) */
    CT_EVOP_COUNT
};

enum ct_event_flag {
    CT_EVF_NS = 0x0001,     /* the (physical) address is non-secure (_NS) */
    CT_EVF_NG = 0x0002,     /* TLB: not-global entry, asid valid */
    CT_EVF_ABORT = 0x0004,  /* TTW: the walk read aborted or faulted */
    CT_EVF_VNS = 0x0008,    /* TLB: the virtual base is non-secure (_NS) */
    CT_EVF_VMID = 0x0010,   /* TLB: vmid valid */
    CT_EVF_PADDR = 0x0020,  /* TLB: value holds the physical base */
    CT_EVF_VMSA = 0x0040,   /* TTW/TTU: short-descriptor (VMSA) format, else LPAE */
    CT_EVF_ISIDE = 0x0080   /* TTW/TTU: the instruction side walked (ITLB) */
};

/* Translation regimes of TLB entries (the Tarmac <el> field). */
enum ct_regime {
    CT_RG_UNKNOWN = 0,     /* not given */
    CT_RG_EL1_N,           /* non-secure EL1&0 */
    CT_RG_EL2_N,           /* non-secure EL2 */
    CT_RG_EL1_S,           /* secure EL1&0 */
    CT_RG_EL3_S,           /* secure EL3 */
    CT_RG_EL2_S,           /* secure EL2 */
    CT_RG_EL20_N,          /* non-secure EL2&0 */
    CT_RG_EL20_S           /* secure EL2&0 */
};

/* Results of one translation-table lookup (the Tarmac TTW <result>). */
enum ct_walk_result {
    CT_WR_UNKNOWN = 0,
    CT_WR_TABLE,           /* LPAE pointer to the next level */
    CT_WR_BLOCK,           /* LPAE block or page descriptor */
    CT_WR_PAGETABLE,       /* VMSA pointer to the next level */
    CT_WR_SECTION,         /* VMSA region descriptors */
    CT_WR_SUPERSECTION,
    CT_WR_LARGEPAGE,
    CT_WR_SMALLPAGE,
    CT_WR_FAULT,           /* the descriptor is not valid at this stage and level */
    CT_WR_RESERVED,
    CT_WR_ABORTED          /* the read aborted: no data */
};

typedef struct ct_event {
    uint32_t index;     /* position in the access stream (before accesses[index]) */
    uint16_t cpu;       /* cpu as traced */
    uint8_t type;       /* enum ct_event_type */
    uint8_t op;         /* enum ct_event_op */
    uint16_t structure; /* index into ct_trace_info.structures (reference events) */
    uint16_t flags;     /* enum ct_event_flag */
    uint8_t stage;      /* TTW/TTU: translation stage, 1 or 2 */
    uint8_t level;      /* TTW/TTU: lookup level, 0..3 */
    uint8_t regime;     /* TLB/WALKCACHE: enum ct_regime */
    uint8_t result;     /* TTW/TTU: enum ct_walk_result */
    uint16_t asid;      /* TLB/WALKCACHE with CT_EVF_NG */
    uint16_t vmid;      /* TLB/WALKCACHE with CT_EVF_VMID */
    uint32_t stream;    /* input stream that carried it (0-based) */
    uint64_t time;      /* trace timestamp */
    uint64_t line;      /* CACHE: LINE id; TTW/TTU: output address or 0 */
    uint64_t addr;      /* see the table above */
    uint64_t value;
    uint64_t size;
    uint64_t src;       /* text line that carried it (1-based), 0 when none */
} ct_event;

/*
 * A caller-owned batch. ct_batch_init allocates the three arrays once; frontends
 * append until one array is full (or the input ends), and consumers walk them.
 * Nothing here grows: memory is bounded by the capacities chosen at init.
 */
typedef struct ct_batch {
    ct_access *acc;  uint32_t n, cap;
    ct_marker *mk;   uint32_t nmk, mkcap;
    ct_event *ev;    uint32_t nev, evcap;
} ct_batch;

/* Allocate a batch with room for `cap` accesses and cap/4 (at least 64) side
 * records of each type. Returns CT_OK or CT_E_NOMEM. */
int ct_batch_init(ct_batch *b, uint32_t cap);

/* Free the arrays (b may be NULL or never initialised with zeroes). */
void ct_batch_free(ct_batch *b);

/* References (drcachesim's non-marker records): the accesses and the
 * CT_MK_THREAD_EXIT markers of a batch, in stream order (a marker precedes
 * the access its index names). From access *a and marker *m (every marker
 * before *m has an index <= *a), walk k references: *a and *m end just
 * after the last one, past every side record before it and before no side
 * record after it. Returns the references left of k when the batch ends
 * first (then *a = n and *m = nmk). */
uint64_t ct_batch_walk_refs(const ct_batch *b, uint32_t *a, uint32_t *m, uint64_t k);

/* Empty the batch without freeing. */
static inline void ct_batch_clear(ct_batch *b) { b->n = b->nmk = b->nev = 0; }

/* Room left: frontends stop filling when any array has fewer than `need`
 * slots (the largest number one input record can produce). */
static inline int ct_batch_room(const ct_batch *b, uint32_t need)
{
    return b->n + need <= b->cap && b->nmk + need <= b->mkcap &&
           b->nev + need <= b->evcap;
}

/* Names for kinds, cache ops, markers and event ops ("load", "clean", ...).
 * Unknown values give "?". */
const char *ct_kind_name(int kind);
const char *ct_cacheop_name(int op);
const char *ct_marker_name(int type);
const char *ct_event_op_name(int op);
const char *ct_event_type_name(int type);  /* "CACHE", "TLB", ... */
const char *ct_regime_name(int regime);    /* "EL1_n", ... ("" when unknown) */
const char *ct_walk_result_name(int r);    /* "TABLE", ... ("" when unknown) */

#ifdef __cplusplus
}
#endif
#endif
