/*
 * tarmac.c - Arm Tarmac text traces: the Fast Models syntax, the dialects
 * other producers write (RTL, cycle models, gem5), and the ISP RAS Trace
 * Matcher dialect (format "tracematcher", file tracematcher.c).
 *
 * Lines
 *   [<time>[ ]<unit>] [<cpu>] <kind> ... A line without a timestamp has the
 *   timestamp of the line before (0 at the start). Units are clk ns cs cyc
 *   tic ps us, with or without a space; a fraction (10.356000us) counts
 *   millionths: time = whole * 10^6 + fraction. <cpu> is a word starting
 *   with "cpu" whose digits give the cpu number; a line without one belongs
 *   to the cpu of the last line that named one (cpu 0 before any). Blank
 *   lines and "Tarmac ..." header lines are skipped.
 *
 * Cpus and threads
 *   Every traced cpu is a thread of its own: the accesses of cpu c are
 *   thread c + 1, and a CT_MK_CPU marker (thread c + 1 on cpu c) precedes
 *   the first access of each cpu, so that the cpus schedule (the format's
 *   default) runs each traced cpu on a core of its own (frontends/trace.c).
 *
 * Security state
 *   The mode of an instruction line ("O EL1h_n :", "svc_ns", "EL3h_s")
 *   gives its cpu's security state: a suffix _n or _ns is non-secure, _s
 *   secure; a line without one leaves the state as it was (secure before
 *   any). Every access of a cpu in non-secure state carries CT_F_NS_REGIME:
 *   its translation regime is non-secure, which is what the _NS of a TLB
 *   line's virtual base says. That is not the security of the physical
 *   address (CT_F_NS, its own _NS): secure EL3 code may store to
 *   non-secure memory.
 *
 * What becomes an access
 *   IT, IS, IF (Fast Models, RTL) and ES (cycle models) instruction lines:
 *     one ifetch of opcode digits / 2 bytes (4, 8 or 16 digits) at the
 *     instruction address, with its physical address when shown (_NS:
 *     non-secure). IS and ES CCFAIL instructions were fetched too. The
 *     forms "IT (id) addr[:paddr] opcode", "IT (pc) opcode iset", "IT
 *     (addr:id) addr opcode", "IT addr opcode" and "ES (pc:opcode)" are
 *     read. An ES opcode of hyphens (the fetch failed) and EXC or Reset in
 *     place of the address (exceptions) give no access. The instruction's
 *     address is the pc of the accesses of its cpu that follow.
 *   M<R|W><size>[attr] [X] [(a:b)] <vaddr>[:<paddr>[_NS|_S]] <data> [<data>]:
 *     a load or store of size bytes (1 2 4 8 16); attribute X = exclusive,
 *     T = unprivileged. The aliases R01..R08 / W01..W08, 8-character RTL
 *     tokens (MNW4___D) and the M<rw><size>_<class> form (MR4_D) are memory
 *     too, except when their class letter is I (an instruction-side bus
 *     read: the instruction line gives the fetch) or A (peripheral bus).
 *     The data is not decoded; digits that do not match the size are
 *     warned about. "(ABORTED)" in place of the data and "TRANSFER" (a
 *     coprocessor transfer) in place of the address give no access.
 *   MU<size>_<op> <addr> <data>: one atomic read-modify-write; a single
 *     address is taken as physical, as the Fast Models documentation says.
 *   LD / ST <base> <16 bytes> [S:|NS:<pbase>] [attributes], and the lines
 *     that continue them (their first token starts in the column of the
 *     address of the LD/ST line above; they keep its kind): one load or
 *     store per maximal run of accessed bytes (".." not accessed, hex or
 *     "##" accessed); the leftmost byte is at base + 15. An attribute DV,
 *     SO or a Device type ([Device-]nGnRnE, nGnRE, nGRE, GRE) marks the
 *     line's accesses CT_F_DEVICE (Device memory); other attributes are
 *     ignored.
 *   CACHE MAINTENANCE <side> <operation> <scope> <data>: a cache operation.
 *     Side words Instruction / Data (both: two operations), operation words
 *     Clean / Invalidate (both: clean+invalidate), scope "All" (CT_OP_ALL)
 *     or by address (the data, in the address form: the line holding it).
 *     Set/way operations cannot be expressed: warned about, no access.
 *
 * What becomes a reference event (ct_event, cachet/access.h)
 *   CACHE <id> LINE <hex> <op> 0x<paddr>[_NS];
 *   TLB|WALKCACHE FILL|EVICT <id> <size> 0x<vbase>[_NS] [<el>] [vmid=<n>]
 *     [, nG asid=<n>][:0x<pbase>[_NS]] [memory type and attributes]; the
 *     size (64K, 2M, 4096, 0x1000) must be a power of two;
 *   TTW|TTU <side> <format> <stage>:<level> <addr>[_NS] <descriptor> :
 *     <result> [ATTR=value]...
 *   Structure names (and TTW sides) are interned per trace; a side whose
 *   name starts with I (ITLB) is the instruction side (CT_EVF_ISIDE). Walk
 *   reads are events only, not accesses: a walk model makes its own.
 *
 * What becomes a marker besides timestamps
 *   R TTBR0_EL1 <value>: CT_MK_ASID with the ASID (value bits 63:48);
 *   R VTTBR_EL2 <value>: CT_MK_VMID with the VMID (bits 63:48). The value is
 *   hex (0x allowed), whole or in halves "hi:lo" or groups joined by '_'; one
 *   that does not parse gives no marker.
 *
 * Everything else
 *   R (other register writes), E, EXC, BR, FD, FI, FR, CADI, SIGNAL, P and
 *   INFO_EXCEPTION_REASON lines are known and skipped. Known lines cachet
 *   does not simulate (R DC/IC/TLBI/AT system operations, B bus
 *   transactions, aborted accesses, failed fetches, instruction-side bus
 *   reads, set/way maintenance) and unknown line kinds are counted per kind
 *   (ct_stream_warn). Malformed lines (a field the grammar needs does not
 *   parse) stop the decoder with "FILE:LINE:COL: reason", or are skipped and
 *   counted in lenient mode.
 *
 * Trace Matcher dialect (CT_TARMAC_TM)
 *   The same lines, except: the cpu of an instruction record is a bare
 *   decimal after the unit (its memory records name none and so belong to
 *   the last instruction record's cpu, by the rule above); the bracketed
 *   instruction index is required; memory attribute X means privileged; a
 *   line of a kind Tarmac does not know either is malformed (the format
 *   defines its three record kinds, unlike Tarmac's open-ended producers).
 *
 * Markers and times
 *   `time` of every record is the trace timestamp. A CT_MK_TIMESTAMP marker
 *   (value2 = the line where that timestamp begins) precedes the first
 *   record of each new timestamp, so that several Tarmac files interleave
 *   by time and a record can be traced back to its lines.
 *
 * End-of-trace fetch ([trace] tarmac_next_fetch)
 *   Fast Models fetches an instruction while the one before it runs (its
 *   CACHE lines carry the earlier timestamp). With this key, when the trace
 *   ends the decoder adds the fetch of the instruction that would run next
 *   (ct_tarmac_next_pc), with the last instruction's time and cpu. Its
 *   physical address follows from the last instruction's when both lie in
 *   one 4 KiB page; otherwise, if the trace gives physical addresses,
 *   nothing is added.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/compiler.h"
#include "../sim/schema.h"
#include "tarmac.h"

#define DISASM_MAX 192
#define PC_SLOTS 64
#define PAGE_4K 4096u

typedef struct tarmac {
    ct_stream *s;
    ct_lines lines;
    int dialect;
    int next_fetch;            /* [trace] tarmac_next_fetch */
    uint64_t time;             /* timestamp of the current line */
    int have_time;             /* a line had a timestamp */
    uint16_t cpu;              /* cpu of the last line that named one */
    int mark_pending;          /* a new timestamp waits for its marker */
    uint64_t mark_line;        /* the line where it began */
    long cont_col;             /* column of the last LD/ST address, -1: none */
    int cont_store;            /* kind the continuation lines keep */
    uint64_t pc[PC_SLOTS];     /* last instruction address per cpu */
    int32_t pc_cpu[PC_SLOTS];  /* which cpu a slot holds, -1: none */
    uint8_t pc_ns[PC_SLOTS];   /* that cpu's security state: 1 non-secure */
    uint64_t cpu_marked[65536 / 64]; /* bit c: cpu c's CT_MK_CPU marker was sent */
    struct {                   /* the last instruction (end-of-trace fetch) */
        int valid, skipped;
        uint64_t pc, paddr, time;
        uint32_t size;
        uint16_t cpu, flags;
        char disasm[DISASM_MAX];
        size_t disasm_len;
    } last;
    int ended;
    uint64_t records;          /* lines not yet added to info->records */
} tarmac;

/* ---- lexing ---------------------------------------------------------------- */

/* A cursor over one line: [p, e); `line` for columns. */
typedef struct lx {
    const char *p, *e, *line;
} lx;

FORCE_INLINE int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* Word characters of Tarmac tokens: letters, digits, _ . - # */
static const unsigned char wordch[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
    ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
    ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1,
    ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1,
    ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
    ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1,
    ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['_'] = 1, ['.'] = 1,
    ['-'] = 1, ['#'] = 1,
};

FORCE_INLINE int is_word(unsigned char c) { return wordch[c]; }

FORCE_INLINE void skip_ws(lx *x)
{
    /* cycle-model traces indent most lines by 20 blanks: 8 at a time */
    while (x->e - x->p >= 8) {
        uint64_t w;
        memcpy(&w, x->p, 8);
        if (w != 0x2020202020202020ull)
            break;
        x->p += 8;
    }
    while (x->p < x->e && (*x->p == ' ' || *x->p == '\t'))
        x->p++;
}

/* The next word token (after blanks): its start in *w, its length returned
 * (0 when the next character is not a word character or the line ended). */
FORCE_INLINE size_t word(lx *x, const char **w)
{
    const char *s;
    skip_ws(x);
    s = x->p;
    while (x->p < x->e && is_word((unsigned char)*x->p))
        x->p++;
    *w = s;
    return (size_t)(x->p - s);
}

/* Consume the punctuation character c (after blanks); 1 when it was there. */
FORCE_INLINE int punct(lx *x, char c)
{
    skip_ws(x);
    if (x->p < x->e && *x->p == c) {
        x->p++;
        return 1;
    }
    return 0;
}

static int eq(const char *w, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

static int ieq(const char *w, size_t n, const char *lit)
{
    size_t i;
    if (strlen(lit) != n)
        return 0;
    for (i = 0; i < n; i++)
        if ((w[i] | 0x20) != (lit[i] | 0x20))
            return 0;
    return 1;
}

static int istarts(const char *w, size_t n, const char *lit)
{
    size_t k = strlen(lit), i;
    if (n < k)
        return 0;
    for (i = 0; i < k; i++)
        if ((w[i] | 0x20) != (lit[i] | 0x20))
            return 0;
    return 1;
}

/* n hex digits (1..16) at w; 1 with *v, else 0. */
static int hex_word(const char *w, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    if (n == 0 || n > 16)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned h = ct_hex1[(unsigned char)w[i]];
        if (!h)
            return 0;
        x = (x << 4) | (h - 1);
    }
    *v = x;
    return 1;
}

/* Hex with an optional security suffix _NS (sets *ns) or _S, and an
 * optional 0x prefix when allow_0x. */
static int hex_sec(const char *w, size_t n, int allow_0x, uint64_t *v, int *ns)
{
    *ns = 0;
    if (allow_0x && n > 2 && w[0] == '0' && (w[1] | 0x20) == 'x') {
        w += 2;
        n -= 2;
    }
    if (n > 3 && memcmp(w + n - 3, "_NS", 3) == 0) {
        *ns = 1;
        n -= 3;
    } else if (n > 2 && memcmp(w + n - 2, "_S", 2) == 0) {
        n -= 2;
    }
    return hex_word(w, n, v);
}

/* ---- line kinds ---------------------------------------------------------------- */

enum kind {
    K_UNKNOWN, K_INSTR, K_ES, K_REG, K_MEM, K_MEMALIAS, K_LD, K_ST, K_CACHE, K_TLB,
    K_WALKCACHE, K_TTW, K_TTU, K_BUS, K_IGNORE, K_HEADER
};

static int classify(const char *w, size_t n)
{
    switch (w[0]) {
    case 'R':
        if (n == 1)
            return K_REG;
        if (n == 3 && w[1] == '0' && is_digit((unsigned char)w[2]))
            return K_MEMALIAS;
        break;
    case 'I':
        if (n == 2 && (w[1] == 'T' || w[1] == 'S' || w[1] == 'F'))
            return K_INSTR;
        if (eq(w, n, "INFO_EXCEPTION_REASON"))
            return K_IGNORE;
        break;
    case 'M':
        return n >= 2 ? K_MEM : K_UNKNOWN;
    case 'E':
        if (n == 2 && w[1] == 'S')
            return K_ES;
        if (n == 1 || eq(w, n, "EXC"))
            return K_IGNORE;
        break;
    case 'W':
        if (n == 3 && w[1] == '0' && is_digit((unsigned char)w[2]))
            return K_MEMALIAS;
        if (eq(w, n, "WALKCACHE"))
            return K_WALKCACHE;
        break;
    case 'L':
        if (eq(w, n, "LD"))
            return K_LD;
        break;
    case 'S':
        if (eq(w, n, "ST"))
            return K_ST;
        if (eq(w, n, "SIGNAL"))
            return K_IGNORE;
        break;
    case 'C':
        if (eq(w, n, "CACHE"))
            return K_CACHE;
        if (eq(w, n, "CADI"))
            return K_IGNORE;
        break;
    case 'T':
        if (eq(w, n, "TLB"))
            return K_TLB;
        if (eq(w, n, "TTW"))
            return K_TTW;
        if (eq(w, n, "TTU"))
            return K_TTU;
        if (eq(w, n, "Tarmac"))
            return K_HEADER;
        break;
    case 'B':
        if (eq(w, n, "BR"))
            return K_IGNORE;
        if (n >= 3 && (w[1] == 'R' || w[1] == 'W') && is_digit((unsigned char)w[2]))
            return K_BUS;
        break;
    case 'F':
        if (n == 2 && (w[1] == 'D' || w[1] == 'I' || w[1] == 'R'))
            return K_IGNORE;
        break;
    case 'P':
        if (n == 1)
            return K_IGNORE;
        break;
    default:
        break;
    }
    return K_UNKNOWN;
}

static int is_unit(const char *w, size_t n)
{
    return eq(w, n, "clk") || eq(w, n, "ns") || eq(w, n, "ps") || eq(w, n, "cs") ||
           eq(w, n, "cyc") || eq(w, n, "tic") || eq(w, n, "us");
}

/* A leading timestamp: returns 1 and advances x (and the unit after it),
 * 0 when the first token is not one, -1 when it has too many digits. */
static int timestamp(lx *x, uint64_t *out)
{
    const char *p = x->p, *e = x->e;
    uint64_t v = 0, frac = 0;
    int nd = 0, fd = 0, has_frac = 0;

    while (p < e && is_digit((unsigned char)*p)) {
        v = v * 10 + (uint64_t)(*p - '0');
        nd++;
        p++;
    }
    if (nd == 0)
        return 0;
    if (p + 1 < e && *p == '.' && is_digit((unsigned char)p[1])) {
        has_frac = 1;
        for (p++; p < e && is_digit((unsigned char)*p); p++, fd++)
            if (fd < 6)
                frac = frac * 10 + (uint64_t)(*p - '0');
        for (; fd < 6; fd++)
            frac *= 10;
    }
    if (nd > 19 || (has_frac && nd > 13))
        return -1;
    if (p < e && is_word((unsigned char)*p)) {
        /* a unit fused to the number, or not a timestamp at all */
        const char *u = p;
        while (p < e && is_word((unsigned char)*p))
            p++;
        if (!is_unit(u, (size_t)(p - u)))
            return 0;
        x->p = p;
    } else {
        const char *w, *save;
        size_t n;
        x->p = p;
        save = x->p;
        n = word(x, &w);
        if (!(n && is_unit(w, n)))
            x->p = save;
    }
    *out = has_frac ? v * 1000000u + frac : v;
    return 1;
}

/* ---- diagnostics ---------------------------------------------------------------- */

static int bad(tarmac *t, const lx *x, const char *at, const char *reason, ct_error *err)
{
    ct_error_set(err, CT_E_FORMAT, "%s:%llu:%u: %s", t->s->path,
                 (unsigned long long)t->lines.lineno, (unsigned)(at - x->line) + 1, reason);
    return ct_stream_malformed(t->s, err, reason);
}

static void warn(tarmac *t, const char *what)
{
    char where[64 + 512];
    snprintf(where, sizeof where, "%.512s:%llu", t->s->path,
             (unsigned long long)t->lines.lineno);
    ct_stream_warn(t->s, what, where);
}

/* ---- records ---------------------------------------------------------------------- */

FORCE_INLINE void mark_time(tarmac *t, ct_batch *b)
{
    if (t->mark_pending) {
        ct_marker *m = &b->mk[b->nmk++];
        memset(m, 0, sizeof *m);
        m->index = b->n;
        m->type = CT_MK_TIMESTAMP;
        m->cpu = t->cpu;
        m->time = t->time;
        m->value = t->time;
        m->value2 = t->mark_line;
        m->aux = t->s->index;
        t->mark_pending = 0;
    }
}

/* The first access of a cpu: thread cpu + 1 runs on that cpu (rule "Cpus
 * and threads"). */
static NOINLINE void mark_cpu(tarmac *t, ct_batch *b)
{
    ct_marker *m = &b->mk[b->nmk++];
    memset(m, 0, sizeof *m);
    m->index = b->n;
    m->type = CT_MK_CPU;
    m->cpu = t->cpu;
    m->thread = (uint32_t)t->cpu + 1;
    m->time = t->time;
    m->aux = t->s->index;
    t->cpu_marked[t->cpu >> 6] |= 1ull << (t->cpu & 63);
}

FORCE_INLINE ct_access *put(tarmac *t, ct_batch *b, int kind, uint64_t vaddr, uint64_t paddr,
                            uint32_t size, uint16_t flags)
{
    const unsigned slot = t->cpu % PC_SLOTS;
    const int known = t->pc_cpu[slot] == (int32_t)t->cpu;
    ct_access *a;

    mark_time(t, b);
    if (UNLIKELY(!((t->cpu_marked[t->cpu >> 6] >> (t->cpu & 63)) & 1)))
        mark_cpu(t, b);
    a = &b->acc[b->n++];
    a->vaddr = vaddr;
    a->paddr = paddr;
    a->pc = kind == CT_IFETCH ? vaddr : known ? t->pc[slot] : 0;
    if (kind != CT_IFETCH && !known) {
        flags |= CT_F_NOPC;
        warn(t, "access with no instruction line before it (pc unknown)");
    }
    if (known && t->pc_ns[slot])
        flags |= CT_F_NS_REGIME;
    a->time = t->time;
    a->size = size;
    a->thread = (uint32_t)t->cpu + 1;
    a->cpu = t->cpu;
    a->core = 0;
    a->kind = (uint8_t)kind;
    a->op = 0;
    a->flags = flags;
    return a;
}

static ct_event *put_event(tarmac *t, ct_batch *b, int type, int op)
{
    ct_event *ev;
    mark_time(t, b);
    ev = &b->ev[b->nev++];
    memset(ev, 0, sizeof *ev);
    ev->index = b->n;
    ev->cpu = t->cpu;
    ev->type = (uint8_t)type;
    ev->op = (uint8_t)op;
    ev->stream = t->s->index;
    ev->time = t->time;
    ev->src = t->lines.lineno;
    return ev;
}

/* Intern a structure name; a full table is a hard error. */
static int structure(tarmac *t, const char *w, size_t n, uint16_t *id, ct_error *err)
{
    *id = ct_stream_structure(t->s, w, n);
    if (*id == UINT16_MAX)
        return ct_error_set(err, CT_E_LIMIT, "%s:%llu: too many structure names (or out of memory)",
                            t->s->path, (unsigned long long)t->lines.lineno);
    return CT_OK;
}

/* ---- instructions --------------------------------------------------------------- */

static int is_iset(const char *w, size_t n)
{
    return (n == 1 && (w[0] == 'A' || w[0] == 'T' || w[0] == 'X' || w[0] == 'O')) ||
           eq(w, n, "T16") || eq(w, n, "T32");
}

/* Opcodes are 16-bit (T16), 32-bit or 64-bit values: 4, 8 or 16 digits. */
static int opcode_width(size_t digits)
{
    return digits == 4 || digits == 8 || digits == 16;
}

/* Remember the last instruction for the end-of-trace fetch. The
 * disassembly is the text after the first ':' that follows the opcode. */
static void remember(tarmac *t, const lx *rest, uint64_t pc, uint64_t pa, uint16_t flags,
                     uint32_t size, int skipped)
{
    const char *c = memchr(rest->p, ':', (size_t)(rest->e - rest->p));
    size_t n;

    t->last.valid = 1;
    t->last.skipped = skipped;
    t->last.pc = pc;
    t->last.paddr = pa;
    t->last.flags = flags;
    t->last.size = size;
    t->last.time = t->time;
    t->last.cpu = t->cpu;
    t->last.disasm_len = 0;
    if (!c)
        return;
    n = (size_t)(rest->e - c - 1);
    if (n > sizeof t->last.disasm)
        n = sizeof t->last.disasm;
    memcpy(t->last.disasm, c + 1, n);
    t->last.disasm_len = n;
}

/* The fetch of an instruction; `secure` is its security state (1
 * non-secure, 0 secure, -1 the line does not say: as before). */
static void fetch(tarmac *t, ct_batch *b, uint64_t pc, uint64_t pa, uint16_t flags,
                  uint32_t size, int secure)
{
    const unsigned slot = t->cpu % PC_SLOTS;
    if (t->pc_cpu[slot] != (int32_t)t->cpu)
        t->pc_ns[slot] = 0;
    if (secure >= 0)
        t->pc_ns[slot] = (uint8_t)secure;
    t->pc[slot] = pc;
    t->pc_cpu[slot] = t->cpu;
    (void)put(t, b, CT_IFETCH, pc, pa, size, flags);
}

/* The security state an instruction line's mode gives (rule "Security
 * state"): the next two words after the opcode are the instruction set and
 * the mode. 1 non-secure, 0 secure, -1 not given. Once per instruction
 * line, so it looks only at the end of each word. */
static int mode_security(const lx *x)
{
    const char *p = x->p, *e = x->e;
    for (int k = 0; k < 2; k++) {
        const char *w;
        size_t n;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        for (w = p; p < e && is_word((unsigned char)*p); p++)
            ;
        n = (size_t)(p - w);
        if (n == 0)
            break;
        if (n >= 3 && w[n - 2] == '_') {
            const char c = (char)(w[n - 1] | 0x20);
            if (c == 'n' || c == 's')
                return c == 'n';
        } else if (n >= 4 && w[n - 3] == '_' && (w[n - 2] | 0x20) == 'n' &&
                   (w[n - 1] | 0x20) == 's') {
            return 1;
        }
    }
    return -1;
}

/* The address after an instruction token: "(" [addr ":"] value ")" was
 * read; parse IT/IS/IF. */
static int instr_fm(tarmac *t, lx *x, int skipped, ct_batch *b, ct_error *err)
{
    const char *w, *bw = NULL, *w2, *w3, *save;
    size_t n, bn = 0, n2, n3;
    uint64_t pc = 0, pa = 0, op, v;
    uint16_t flags = 0;
    int ns = 0;

    save = x->p;
    n = word(x, &w);
    if (eq(w, n, "EXC") || eq(w, n, "Reset"))
        return CT_OK; /* an exception reported on an instruction line */
    x->p = save;
    if (punct(x, '(')) {
        bn = word(x, &bw);
        if (!bn)
            return bad(t, x, x->p, "expected a number after '('", err);
        if (punct(x, ':')) { /* (addr:index) */
            bn = word(x, &w);
            if (!bn)
                return bad(t, x, x->p, "expected a number after ':'", err);
        }
        if (!punct(x, ')'))
            return bad(t, x, x->p, "expected ')' after the bracketed value", err);
    } else if (t->dialect == CT_TARMAC_TM) {
        return bad(t, x, x->p, "expected '(' before the instruction index", err);
    }
    n2 = word(x, &w2);
    if (!hex_word(w2, n2, &v))
        return bad(t, x, w2, "expected a hex instruction address or opcode", err);
    if (punct(x, ':')) {
        n = word(x, &w);
        if (!hex_sec(w, n, 0, &pa, &ns))
            return bad(t, x, w, "expected a hex physical address after ':'", err);
        flags = (uint16_t)(CT_F_PADDR | (ns ? CT_F_NS : 0));
        if (punct(x, ',')) {
            uint64_t pa2;
            int ns2;
            n = word(x, &w);
            if (!hex_sec(w, n, 0, &pa2, &ns2))
                return bad(t, x, w, "expected a hex physical address after ','", err);
        }
    }
    save = x->p;
    n3 = word(x, &w3);
    if (n3 && is_iset(w3, n3) && bn) {
        /* "(pc) opcode iset": the bracket held the address */
        if (!hex_word(bw, bn, &pc))
            return bad(t, x, bw, "expected a hex instruction address in brackets", err);
        w3 = w2;
        n3 = n2;
        x->p = save;
    } else {
        pc = v;
    }
    if (!opcode_width(n3) || !hex_word(w3, n3, &op))
        return bad(t, x, w3, "expected a hex opcode of 4, 8 or 16 digits", err);
    fetch(t, b, pc, pa, flags, (uint32_t)n3 / 2, mode_security(x));
    if (t->next_fetch)
        remember(t, x, pc, pa, flags, (uint32_t)n3 / 2, skipped);
    return CT_OK;
}

/* ES (pc:opcode) iset mode: [CCFAIL] disassembly */
static int instr_es(tarmac *t, lx *x, ct_batch *b, ct_error *err)
{
    const char *w, *save, *c;
    size_t n, nop;
    uint64_t pc, op;
    int failed = 0, ccfail = 0;

    save = x->p;
    n = word(x, &w);
    if (eq(w, n, "EXC") || eq(w, n, "Reset"))
        return CT_OK;
    x->p = save;
    if (!punct(x, '('))
        return bad(t, x, x->p, "expected '(' before the instruction address", err);
    n = word(x, &w);
    if (!hex_word(w, n, &pc))
        return bad(t, x, w, "expected a hex instruction address", err);
    if (!punct(x, ':'))
        return bad(t, x, x->p, "expected ':' between the address and the opcode", err);
    nop = word(x, &w);
    if (nop && w[0] == '-') {
        for (size_t i = 0; i < nop; i++)
            if (w[i] != '-')
                return bad(t, x, w, "expected a hex opcode", err);
        failed = 1;
    } else if (!opcode_width(nop) || !hex_word(w, nop, &op)) {
        return bad(t, x, w, "expected a hex opcode of 4, 8 or 16 digits", err);
    }
    if (!punct(x, ')'))
        return bad(t, x, x->p, "expected ')' after the opcode", err);
    if (failed) {
        warn(t, "instruction whose fetch failed (opcode ----): no access");
        return CT_OK;
    }
    c = memchr(x->p, ':', (size_t)(x->e - x->p));
    if (c) {
        lx y = {c + 1, x->e, x->line};
        n = word(&y, &w);
        ccfail = eq(w, n, "CCFAIL");
    }
    fetch(t, b, pc, 0, 0, (uint32_t)nop / 2, mode_security(x));
    if (t->next_fetch) {
        remember(t, x, pc, 0, 0, (uint32_t)nop / 2, ccfail);
        if (ccfail && t->last.disasm_len) { /* drop the CCFAIL word */
            lx y = {t->last.disasm, t->last.disasm + t->last.disasm_len, t->last.disasm};
            (void)word(&y, &w);
            t->last.disasm_len = (size_t)(y.e - y.p);
            memmove(t->last.disasm, y.p, t->last.disasm_len);
        }
    }
    return CT_OK;
}

/* ---- memory ------------------------------------------------------------------------ */

/* Data tokens: hex digits, '_' separators, x/X unknown digits, '-'. */
static int data_token(const char *w, size_t n, size_t *digits)
{
    size_t d = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)w[i];
        if (c == '_')
            continue;
        if (!ct_hex1[c] && c != 'x' && c != 'X' && c != '-')
            return 0;
        d++;
    }
    *digits = d;
    return n > 0;
}

/* M..., R01..W08: the type token w[0..n) was read. */
static int mem(tarmac *t, lx *x, const char *w, size_t n, int alias, ct_batch *b,
               ct_error *err)
{
    const char *tok = w, *save;
    size_t i = alias ? 0 : 1, dig;
    int rw = -1, atomic = 0, nondata = 0, ns = 0;
    uint32_t size = 0;
    uint16_t flags = 0;
    uint64_t va, pa = 0;
    int has_pa = 0;

    if (!alias && n > 1 && w[1] == 'U') {
        atomic = 1;
        i = 2;
    }
    if (n == 8 && memchr(w, '_', n)) {
        /* RTL form: direction, size, and a class letter in position 8 */
        for (; i < n; i++) {
            if (rw < 0 && (w[i] == 'R' || w[i] == 'W'))
                rw = w[i] == 'W';
            else if (!size && is_digit((unsigned char)w[i]))
                while (i < n && is_digit((unsigned char)w[i]))
                    size = size * 10 + (uint32_t)(w[i++] - '0');
        }
        nondata = w[7] == 'I' || w[7] == 'A';
    } else {
        for (; i < n; i++) {
            char c = w[i];
            if (!atomic && rw < 0 && (c == 'R' || c == 'W')) {
                rw = c == 'W';
            } else if (!size && is_digit((unsigned char)c)) {
                while (i < n && is_digit((unsigned char)w[i]) && size < 1000)
                    size = size * 10 + (uint32_t)(w[i++] - '0');
                i--;
            } else if (c == '_') {
                /* MU<size>_<op>, or M<rw><size>_<class> */
                if (!atomic && n - i == 2)
                    nondata = w[i + 1] == 'I' || w[i + 1] == 'A';
                break;
            } else if (size && c == 'X') {
                flags |= t->dialect == CT_TARMAC_TM ? CT_F_PRIV : CT_F_EXCL;
            } else if (size && c == 'T') {
                flags |= CT_F_UNPRIV;
            } else if (size && c == 'L') {
                /* locked (SWP): a plain access here */
            } else if (!size && c >= 'A' && c <= 'Z') {
                /* a producer's prefix letters before the size (MNR4): ignored */
            } else {
                return bad(t, x, w + i, "unrecognised letter in the memory access type", err);
            }
        }
    }
    if (!atomic && rw < 0)
        return bad(t, x, tok, "memory access type without R or W", err);
    if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16)
        return bad(t, x, tok, "memory access size not in {1,2,4,8,16}", err);
    save = x->p;
    n = word(x, &w);
    if (eq(w, n, "X"))
        flags |= t->dialect == CT_TARMAC_TM ? CT_F_PRIV : CT_F_EXCL;
    else
        x->p = save;
    if (punct(x, '(')) { /* (instruction address:serial) of some RTL */
        const char *c = memchr(x->p, ')', (size_t)(x->e - x->p));
        if (!c)
            return bad(t, x, x->p, "expected ')'", err);
        x->p = c + 1;
    }
    n = word(x, &w);
    if (eq(w, n, "TRANSFER")) {
        warn(t, "coprocessor transfer (M line with TRANSFER): no access");
        return CT_OK;
    }
    if (!hex_word(w, n, &va))
        return bad(t, x, w, "expected a hex memory address", err);
    if (punct(x, ':')) {
        n = word(x, &w);
        if (!hex_sec(w, n, 0, &pa, &ns))
            return bad(t, x, w, "expected a hex physical address after ':'", err);
        has_pa = 1;
    }
    if (punct(x, '(')) {
        n = word(x, &w);
        if (eq(w, n, "ABORTED") && punct(x, ')')) {
            warn(t, "aborted memory access: no access");
            return CT_OK;
        }
        return bad(t, x, w, "unrecognised keyword in brackets", err);
    }
    n = word(x, &w);
    if (!data_token(w, n, &dig))
        return bad(t, x, w, "expected the data (hex) after the address", err);
    if (dig < size * 2) { /* a 16-byte access may give its data in two words */
        size_t d2;
        const char *w2;
        save = x->p;
        n = word(x, &w2);
        if (data_token(w2, n, &d2))
            dig += d2;
        else
            x->p = save;
    }
    if (nondata) {
        warn(t, "instruction-side or peripheral bus read (M line of class I or A): no access");
        return CT_OK;
    }
    if (dig != size * 2)
        warn(t, "memory data digits do not match the access size (access kept)");
    if (atomic && !has_pa) { /* MU gives the physical address */
        pa = va;
        has_pa = 1;
    }
    if (has_pa)
        flags |= (uint16_t)(CT_F_PADDR | (ns ? CT_F_NS : 0));
    (void)put(t, b, atomic ? CT_ATOMIC : rw ? CT_STORE : CT_LOAD, va, pa, size, flags);
    return CT_OK;
}

/* A memory-attribute word of an LD/ST line that says Device memory: DV,
 * SO (strongly ordered) or a Device type (nGnRnE, nGnRE, nGRE, GRE, with or
 * without "Device-"). */
static int device_attr(const char *w, size_t n)
{
    static const char *const types[] = {"nGnRnE", "nGnRE", "nGRE", "GRE"};

    if (n > 7 && memcmp(w, "Device-", 7) == 0) {
        w += 7;
        n -= 7;
    }
    if (eq(w, n, "DV") || eq(w, n, "SO"))
        return 1;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (eq(w, n, types[i]))
            return 1;
    return 0;
}

/* LD / ST diagram (or a continuation): x is before the base address. */
static int ldst(tarmac *t, lx *x, int store, ct_batch *b, ct_error *err)
{
    const char *w, *save;
    size_t n;
    uint64_t base, pbase = 0;
    unsigned mask = 0, nb = 0;
    int has_pa = 0, ns = 0;
    uint16_t device = 0;
    long col;

    skip_ws(x);
    col = (long)(x->p - x->line);
    n = word(x, &w);
    if (!hex_word(w, n, &base))
        return bad(t, x, w, "expected the hex base address of the LD/ST window", err);
    while (nb < 16) {
        n = word(x, &w);
        if (n == 0) {
            char why[64];
            snprintf(why, sizeof why, "LD/ST line has %u bytes, expected 16", nb);
            return bad(t, x, x->p, nb ? why : "LD/ST line without data bytes", err);
        }
        if (n & 1)
            return bad(t, x, w, "LD/ST data word with an odd number of digits", err);
        for (size_t i = 0; i < n; i += 2, nb++) {
            char c0 = w[i], c1 = w[i + 1];
            if (nb >= 16)
                return bad(t, x, w + i, "LD/ST line has more than 16 bytes", err);
            if (c0 == '.' && c1 == '.')
                continue;
            if (!((c0 == '#' && c1 == '#') ||
                  (ct_hex1[(unsigned char)c0] && ct_hex1[(unsigned char)c1])))
                return bad(t, x, w + i, "LD/ST byte is neither '..', '##' nor hex", err);
            mask |= 1u << (15 - nb);
        }
    }
    save = x->p;
    n = word(x, &w);
    if ((eq(w, n, "S") || eq(w, n, "NS")) && punct(x, ':')) {
        ns = n == 2;
        n = word(x, &w);
        if (!hex_word(w, n, &pbase))
            return bad(t, x, w, "expected a hex physical address after ':'", err);
        has_pa = 1;
    } else if (hex_word(w, n, &pbase)) {
        has_pa = 1;
    } else {
        x->p = save;
    }
    while ((n = word(x, &w)) != 0)  /* memory attributes */
        if (device_attr(w, n))
            device = CT_F_DEVICE;
    t->cont_col = col;
    t->cont_store = store;
    for (unsigned i = 0; i < 16;) {
        unsigned j;
        if (!(mask & (1u << i))) {
            i++;
            continue;
        }
        for (j = i; j < 16 && (mask & (1u << j)); j++)
            ;
        (void)put(t, b, store ? CT_STORE : CT_LOAD, base + i, has_pa ? pbase + i : 0, j - i,
                  (uint16_t)((has_pa ? CT_F_PADDR | (ns ? CT_F_NS : 0) : 0) | device));
        i = j;
    }
    return CT_OK;
}

/* ---- CACHE ------------------------------------------------------------------------- */

/* CACHE MAINTENANCE <side> <operation> <scope> <data> [<pagesize> <memtype>] */
static int maintenance(tarmac *t, lx *x, ct_batch *b, ct_error *err)
{
    int iside = 0, dside = 0, clean = 0, inval = 0, all = 0, setway = 0, ns = 0;
    int have = 0, has_pa = 0;
    uint64_t va = 0, pa = 0;
    int op;

    while (x->p < x->e) {
        const char *w, *c;
        size_t n;
        skip_ws(x);
        w = x->p;
        while (x->p < x->e && *x->p != ' ' && *x->p != '\t')
            x->p++;
        n = (size_t)(x->p - w);
        if (!n)
            break;
        if (ieq(w, n, "instruction")) iside = 1;
        else if (ieq(w, n, "data")) dside = 1;
        else if (ieq(w, n, "clean")) clean = 1;
        else if (ieq(w, n, "invalidate") || ieq(w, n, "invalidation")) inval = 1;
        else if (ieq(w, n, "all")) all = 1;
        else if (ieq(w, n, "set/way") || ieq(w, n, "setway") || ieq(w, n, "set") ||
                 ieq(w, n, "way"))
            setway = 1;
        else if ((c = memchr(w, ':', n)) != NULL) {
            if (hex_word(w, (size_t)(c - w), &va) &&
                hex_sec(c + 1, (size_t)(w + n - c - 1), 0, &pa, &ns)) {
                have = has_pa = 1;
                break;
            }
        } else if (hex_word(w, n, &va)) {
            have = 1;
            break;
        }
    }
    if (!have)
        return bad(t, x, x->p, "CACHE MAINTENANCE line without its data", err);
    if (!clean && !inval) {
        warn(t, "cache maintenance with an operation other than clean or invalidate: no access");
        return CT_OK;
    }
    if (setway) {
        warn(t, "cache maintenance by set/way: not simulated");
        return CT_OK;
    }
    op = clean && inval ? CT_OP_CLEAN_INVAL : clean ? CT_OP_CLEAN : CT_OP_INVAL;
    if (!iside && !dside)
        dside = 1;
    for (int side = 0; side < 2; side++) {
        ct_access *a;
        if (!(side ? iside : dside))
            continue;
        a = put(t, b, CT_CACHEOP, all ? 0 : va, all ? 0 : pa, all ? 0 : 1,
                (uint16_t)(!all && has_pa ? CT_F_PADDR | (ns ? CT_F_NS : 0) : 0));
        a->op = (uint8_t)(op | (all ? CT_OP_ALL : 0) | (side ? CT_OP_ISIDE : 0));
    }
    return CT_OK;
}

static int cache(tarmac *t, lx *x, ct_batch *b, ct_error *err)
{
    const char *w, *id;
    size_t n, idn;
    uint64_t line, addr;
    int op, ns, rc;
    uint16_t sid;
    ct_event *ev;

    idn = word(x, &id);
    if (eq(id, idn, "MAINTENANCE"))
        return maintenance(t, x, b, err);
    if (!idn)
        return bad(t, x, id, "expected a cache name after CACHE", err);
    n = word(x, &w);
    if (!eq(w, n, "LINE"))
        return bad(t, x, w, "expected LINE after the cache name", err);
    n = word(x, &w);
    if (!hex_word(w, n, &line))
        return bad(t, x, w, "expected a hex LINE number", err);
    n = word(x, &w);
    if (eq(w, n, "ALLOC")) op = CT_EVOP_ALLOC;
    else if (eq(w, n, "DIRTY")) op = CT_EVOP_DIRTY;
    else if (eq(w, n, "CLEAN")) op = CT_EVOP_CLEAN;
    else if (eq(w, n, "INVAL")) op = CT_EVOP_INVAL;
    else if (eq(w, n, "FILL")) op = CT_EVOP_FILL;
    else if (eq(w, n, "EVICT")) op = CT_EVOP_EVICT;
    else
        return bad(t, x, w, "unknown cache line operation (ALLOC DIRTY CLEAN INVAL FILL EVICT)",
                   err);
    n = word(x, &w);
    if (!hex_sec(w, n, 1, &addr, &ns))
        return bad(t, x, w, "expected the physical line address (0x...)", err);
    if ((rc = structure(t, id, idn, &sid, err)) != CT_OK)
        return rc;
    ev = put_event(t, b, CT_EV_CACHE, op);
    ev->structure = sid;
    ev->line = line;
    ev->addr = addr;
    if (ns)
        ev->flags |= CT_EVF_NS;
    return CT_OK;
}

/* ---- TLB, WALKCACHE, TTW, TTU ---------------------------------------------------- */

/* "64K", "2M", "4096", "0x1000" */
static int region_size(const char *w, size_t n, uint64_t *out)
{
    uint64_t v = 0, mul = 1;
    size_t i;
    if (n > 2 && w[0] == '0' && (w[1] | 0x20) == 'x')
        return hex_word(w + 2, n - 2, out);
    if (n && (w[n - 1] == 'K' || w[n - 1] == 'k')) mul = 1ull << 10;
    else if (n && (w[n - 1] == 'M' || w[n - 1] == 'm')) mul = 1ull << 20;
    else if (n && (w[n - 1] == 'G' || w[n - 1] == 'g')) mul = 1ull << 30;
    else if (n && (w[n - 1] == 'T' || w[n - 1] == 't')) mul = 1ull << 40;
    if (mul > 1)
        n--;
    if (n == 0 || n > 12)
        return 0;
    for (i = 0; i < n; i++) {
        if (!is_digit((unsigned char)w[i]))
            return 0;
        v = v * 10 + (uint64_t)(w[i] - '0');
    }
    *out = v * mul;
    return 1;
}

/* asid= / vmid= values: 0x hex, plain digits decimal, else hex. */
static int small_number(const char *w, size_t n, uint16_t *out)
{
    uint64_t v = 0;
    int dec = 1;
    if (n > 2 && w[0] == '0' && (w[1] | 0x20) == 'x') {
        if (!hex_word(w + 2, n - 2, &v))
            return 0;
    } else {
        for (size_t i = 0; i < n; i++)
            if (!is_digit((unsigned char)w[i]))
                dec = 0;
        if (dec) {
            if (n == 0 || n > 5)
                return 0;
            for (size_t i = 0; i < n; i++)
                v = v * 10 + (uint64_t)(w[i] - '0');
        } else if (!hex_word(w, n, &v)) {
            return 0;
        }
    }
    if (v > UINT16_MAX)
        return 0;
    *out = (uint16_t)v;
    return 1;
}

static int regime_of(const char *w, size_t n)
{
    static const struct { const char *name; int rg; } rgs[] = {
        {"EL1_n", CT_RG_EL1_N}, {"EL2_n", CT_RG_EL2_N}, {"EL1_s", CT_RG_EL1_S},
        {"EL3_s", CT_RG_EL3_S}, {"EL2_s", CT_RG_EL2_S}, {"EL20_n", CT_RG_EL20_N},
        {"EL20_s", CT_RG_EL20_S},
    };
    for (size_t i = 0; i < CT_ARRAY_LEN(rgs); i++)
        if (ieq(w, n, rgs[i].name))
            return rgs[i].rg;
    return CT_RG_UNKNOWN;
}

static int tlb(tarmac *t, lx *x, int type, ct_batch *b, ct_error *err)
{
    const char *w, *id;
    size_t n, idn;
    int op, ns, rc, flags = 0, regime = CT_RG_UNKNOWN;
    uint64_t size, vbase, pbase = 0;
    uint16_t sid, asid = 0, vmid = 0;
    ct_event *ev;

    n = word(x, &w);
    if (eq(w, n, "FILL")) op = CT_EVOP_FILL;
    else if (eq(w, n, "EVICT")) op = CT_EVOP_EVICT;
    else return bad(t, x, w, "expected FILL or EVICT", err);
    idn = word(x, &id);
    if (!idn)
        return bad(t, x, id, "expected the TLB name", err);
    n = word(x, &w);
    if (!region_size(w, n, &size))
        return bad(t, x, w, "expected the size of the mapped region (e.g. 64K)", err);
    if (size == 0 || (size & (size - 1)) != 0)
        return bad(t, x, w, "the size of the mapped region is not a power of two", err);
    n = word(x, &w);
    if (!hex_sec(w, n, 1, &vbase, &ns))
        return bad(t, x, w, "expected the virtual base address (0x...)", err);
    if (ns)
        flags |= CT_EVF_VNS;
    for (;;) {
        const char *v;
        size_t vn;
        skip_ws(x);
        if (x->p >= x->e || *x->p == ':')
            break;
        if (*x->p == ',') {
            x->p++;
            continue;
        }
        n = word(x, &w);
        if (!n)
            return bad(t, x, x->p, "unrecognised token in the virtual regime", err);
        if (eq(w, n, "nG")) {
            flags |= CT_EVF_NG;
        } else if ((eq(w, n, "asid") || eq(w, n, "vmid")) && x->p < x->e && *x->p == '=') {
            uint16_t val;
            x->p++;
            vn = word(x, &v);
            if (!small_number(v, vn, &val))
                return bad(t, x, v, "expected a 16-bit number after '='", err);
            if (w[0] == 'a') {
                asid = val;
            } else {
                vmid = val;
                flags |= CT_EVF_VMID;
            }
        } else if (regime_of(w, n) != CT_RG_UNKNOWN) {
            regime = regime_of(w, n);
        } else {
            break; /* the memory type of an entry without a physical base */
        }
    }
    if (punct(x, ':')) {
        n = word(x, &w);
        if (!hex_sec(w, n, 1, &pbase, &ns))
            return bad(t, x, w, "expected the physical base address (0x...) after ':'", err);
        flags |= CT_EVF_PADDR | (ns ? CT_EVF_NS : 0);
    }
    if ((rc = structure(t, id, idn, &sid, err)) != CT_OK)
        return rc;
    ev = put_event(t, b, type, op);
    ev->structure = sid;
    ev->flags = (uint16_t)flags;
    ev->regime = (uint8_t)regime;
    ev->asid = asid;
    ev->vmid = vmid;
    ev->size = size;
    ev->addr = vbase;
    ev->value = pbase;
    return CT_OK;
}

static int walk(tarmac *t, lx *x, int type, ct_batch *b, ct_error *err)
{
    static const struct { const char *name; int r; } results[] = {
        {"TABLE", CT_WR_TABLE}, {"BLOCK", CT_WR_BLOCK}, {"PAGETABLE", CT_WR_PAGETABLE},
        {"SECTION", CT_WR_SECTION}, {"SUPERSECTION", CT_WR_SUPERSECTION},
        {"LARGEPAGE", CT_WR_LARGEPAGE}, {"SMALLPAGE", CT_WR_SMALLPAGE},
        {"FAULT", CT_WR_FAULT}, {"RESERVED", CT_WR_RESERVED}, {"ABORTED", CT_WR_ABORTED},
    };
    const char *w, *side;
    size_t n, sn, dn;
    uint64_t stage, level, addr, desc, out = 0;
    int ns, out_ns, rc, vmsa, result = CT_WR_UNKNOWN;
    uint16_t sid;
    ct_event *ev;

    sn = word(x, &side);
    if (!sn)
        return bad(t, x, side, "expected the side (ITLB, DTLB) of the walk", err);
    n = word(x, &w);
    if (!n)
        return bad(t, x, w, "expected the descriptor format (LPAE, VMSA)", err);
    vmsa = eq(w, n, "VMSA");
    n = word(x, &w);
    if (!hex_word(w, n, &stage) || stage > 3 || !punct(x, ':'))
        return bad(t, x, w, "expected <stage>:<level>", err);
    n = word(x, &w);
    if (!hex_word(w, n, &level) || level > 3)
        return bad(t, x, w, "expected the lookup level after ':'", err);
    n = word(x, &w);
    if (!hex_sec(w, n, 1, &addr, &ns))
        return bad(t, x, w, "expected the hex descriptor address", err);
    dn = word(x, &w);
    if (!hex_word(w, dn, &desc))
        return bad(t, x, w, "expected the hex descriptor", err);
    if (punct(x, ':')) {
        n = word(x, &w);
        for (size_t i = 0; i < CT_ARRAY_LEN(results); i++)
            if (eq(w, n, results[i].name))
                result = results[i].r;
        for (;;) { /* ATTR=value pairs: keep ADDR= */
            const char *v;
            size_t vn;
            n = word(x, &w);
            if (!n) {
                if (x->p < x->e && *x->p != ' ' && *x->p != '\t') {
                    x->p++;
                    continue;
                }
                break;
            }
            if (eq(w, n, "ADDR") && x->p < x->e && *x->p == '=') {
                x->p++;
                vn = word(x, &v);
                if (!hex_sec(v, vn, 1, &out, &out_ns))
                    return bad(t, x, v, "expected a hex address after ADDR=", err);
            }
        }
    }
    if ((rc = structure(t, side, sn, &sid, err)) != CT_OK)
        return rc;
    ev = put_event(t, b, type, type == CT_EV_TTW ? CT_EVOP_WALK : CT_EVOP_UPDATE);
    ev->structure = sid;
    ev->stage = (uint8_t)stage;
    ev->level = (uint8_t)level;
    ev->result = (uint8_t)result;
    ev->addr = addr;
    ev->value = desc;
    ev->size = (dn + 1) / 2;
    ev->line = out;
    if (ns)
        ev->flags |= CT_EVF_NS;
    if (result == CT_WR_ABORTED || result == CT_WR_FAULT)
        ev->flags |= CT_EVF_ABORT;
    if (vmsa)
        ev->flags |= CT_EVF_VMSA;
    if (side[0] == 'I' || side[0] == 'i')
        ev->flags |= CT_EVF_ISIDE;
    return CT_OK;
}

/* ---- address spaces ------------------------------------------------------------------ */

/* A register value: hex digits (0x allowed), maybe in two halves "hi:lo"
 * or groups joined by '_'. 1 with *v, else 0. */
static int reg_value(lx *x, uint64_t *v)
{
    const char *w;
    size_t n = word(x, &w);
    uint64_t acc = 0, part;
    size_t digits = 0;

    if (n > 2 && w[0] == '0' && (w[1] | 0x20) == 'x') {
        w += 2;
        n -= 2;
    }
    for (;;) {
        size_t i = 0;
        while (i < n) {
            size_t j = i;
            while (j < n && w[j] != '_')
                j++;
            if (!hex_word(w + i, j - i, &part) || (digits += j - i) > 16)
                return 0;
            acc = j - i >= 16 ? part : (acc << (4 * (j - i))) | part;
            i = j + 1;
        }
        if (x->p < x->e && *x->p == ':') {
            x->p++;
            n = word(x, &w);
            continue;
        }
        break;
    }
    *v = acc;
    return digits > 0;
}

/* "R TTBR0_EL1 <value>": the cpu's ASID (bits 63:48) changes; "R
 * VTTBR_EL2 <value>": its VMID does. A marker each; a value that does not
 * parse changes nothing. */
static void translation_base(tarmac *t, lx *x, const char *r, size_t rn, ct_batch *b)
{
    const int vm = ieq(r, rn, "VTTBR_EL2");
    uint64_t v;
    ct_marker *m;

    if ((!vm && !ieq(r, rn, "TTBR0_EL1")) || !reg_value(x, &v))
        return;
    mark_time(t, b);
    m = &b->mk[b->nmk++];
    memset(m, 0, sizeof *m);
    m->index = b->n;
    m->type = vm ? CT_MK_VMID : CT_MK_ASID;
    m->cpu = t->cpu;
    m->time = t->time;
    m->value = v >> 48;
    m->aux = t->s->index;
}

/* ---- one line ----------------------------------------------------------------------- */

static int parse_line(tarmac *t, const char *line, size_t len, ct_batch *b, ct_error *err)
{
    lx x = {line, line + len, line};
    const char *w;
    size_t n;
    uint64_t ts;
    int rc;

    skip_ws(&x);
    if (x.p == x.e)
        return CT_OK;
    t->records++;
    if (t->cont_col >= 0 && x.p - line == t->cont_col)
        return ldst(t, &x, t->cont_store, b, err);
    t->cont_col = -1;
    if (is_digit((unsigned char)*x.p)) {
        rc = timestamp(&x, &ts);
        if (rc < 0)
            return bad(t, &x, x.p, "timestamp too large", err);
        if (rc && (!t->have_time || ts != t->time)) {
            t->have_time = 1;
            t->time = ts;
            t->mark_pending = 1;
            t->mark_line = t->lines.lineno;
        }
        if (t->dialect == CT_TARMAC_TM) {
            const char *save = x.p;
            n = word(&x, &w);
            if (n && n <= 5 && is_digit((unsigned char)w[0])) {
                uint32_t c = 0;
                for (size_t i = 0; i < n; i++) {
                    if (!is_digit((unsigned char)w[i]))
                        return bad(t, &x, w, "expected a decimal cpu number", err);
                    c = c * 10 + (uint32_t)(w[i] - '0');
                }
                if (c > UINT16_MAX)
                    return bad(t, &x, w, "cpu number too large", err);
                t->cpu = (uint16_t)c;
            } else {
                x.p = save;
            }
        }
    }
    n = word(&x, &w);
    if (n > 3 && w[0] == 'c' && w[1] == 'p' && w[2] == 'u') {
        uint32_t c = 0;
        for (size_t i = 3; i < n && is_digit((unsigned char)w[i]) && c <= UINT16_MAX; i++)
            c = c * 10 + (uint32_t)(w[i] - '0');
        t->cpu = (uint16_t)(c > UINT16_MAX ? UINT16_MAX : c);
        n = word(&x, &w);
    }
    if (!n)
        return bad(t, &x, x.p, x.p == x.e ? "expected a line kind after the timestamp"
                                          : "unrecognised token", err);
    switch (classify(w, n)) {
    case K_REG: {
        const char *r;
        size_t rn = word(&x, &r);
        if (eq(r, rn, "DC") || eq(r, rn, "IC") || eq(r, rn, "TLBI") || eq(r, rn, "AT")) {
            char what[64];
            snprintf(what, sizeof what, "system operation 'R %.*s': not simulated", (int)rn, r);
            warn(t, what);
        } else if (rn && (r[0] == 'T' || r[0] == 't' || r[0] == 'V' || r[0] == 'v')) {
            translation_base(t, &x, r, rn, b);
        }
        return CT_OK;
    }
    case K_INSTR:
        return instr_fm(t, &x, w[1] == 'S', b, err);
    case K_ES:
        return instr_es(t, &x, b, err);
    case K_MEM:
        return mem(t, &x, w, n, 0, b, err);
    case K_MEMALIAS:
        return mem(t, &x, w, n, 1, b, err);
    case K_LD:
    case K_ST:
        return ldst(t, &x, w[0] == 'S', b, err);
    case K_CACHE:
        return cache(t, &x, b, err);
    case K_TLB:
        return tlb(t, &x, CT_EV_TLB, b, err);
    case K_WALKCACHE:
        return tlb(t, &x, CT_EV_WALKCACHE, b, err);
    case K_TTW:
        return walk(t, &x, CT_EV_TTW, b, err);
    case K_TTU:
        return walk(t, &x, CT_EV_TTU, b, err);
    case K_BUS:
        warn(t, "memory bus transaction (B line, below the caches): not simulated");
        return CT_OK;
    case K_IGNORE:
    case K_HEADER:
        return CT_OK;
    default: {
        char what[96];
        if (t->dialect == CT_TARMAC_TM)
            return bad(t, &x, w, "unknown record kind (Trace Matcher has IT/IS, M and R)",
                       err);
        snprintf(what, sizeof what, "unknown line kind '%.*s'", (int)(n > 40 ? 40 : n), w);
        warn(t, what);
        return CT_OK;
    }
    }
}

/* ---- the end-of-trace fetch --------------------------------------------------------- */

static int is_cond(const char *c)
{
    static const char *const conds[] = {"EQ", "NE", "CS", "HS", "CC", "LO", "MI", "PL", "VS",
                                        "VC", "HI", "LS", "GE", "LT", "GT", "LE", "AL", "NV"};
    for (size_t i = 0; i < CT_ARRAY_LEN(conds); i++)
        if (ieq(c, 2, conds[i]))
            return 1;
    return 0;
}

/* B, BL, BLX, B.cond, Bcond, BLcond (width suffix already removed). */
static int is_direct_branch(const char *m, size_t n)
{
    if (ieq(m, n, "B") || ieq(m, n, "BL") || ieq(m, n, "BLX"))
        return 1;
    if ((m[0] | 0x20) != 'b')
        return 0;
    if (n == 4 && m[1] == '.' && is_cond(m + 2))
        return 1;
    if (n == 3 && is_cond(m + 1))
        return 1;
    if (n == 4 && (m[1] | 0x20) == 'l' && is_cond(m + 2))
        return 1;
    return 0;
}

static int changes_flow(const char *m, size_t n)
{
    static const char *const prefixes[] = {"BR", "BLR", "BX", "RET", "ERET", "SVC", "HVC",
                                           "SMC", "HLT", "UDF", "WFI", "WFE", "RFE", "DCPS",
                                           "DRPS", "SWI", "BKPT", "CBZ", "CBNZ", "TBZ",
                                           "TBNZ"};
    for (size_t i = 0; i < CT_ARRAY_LEN(prefixes); i++)
        if (istarts(m, n, prefixes[i]))
            return 1;
    return ieq(m, n, "TBB") || ieq(m, n, "TBH");
}

/* The branch target in the operands: "; 0x<target>" (Fast Models), then
 * "{pc}+/-<offset>", then a first operand "[#]0x<target>". */
static int branch_target(const char *p, const char *e, uint64_t pc, uint64_t *out)
{
    const char *semi = NULL, *q;
    for (q = p; q < e; q++)
        if (*q == ';')
            semi = q;
    if (semi) {
        for (q = semi + 1; q < e && (*q == ' ' || *q == '\t'); q++)
            ;
        if (q + 2 < e && q[0] == '0' && (q[1] | 0x20) == 'x') {
            const char *h = q + 2;
            while (q + 2 < e && ct_hex1[(unsigned char)q[2]])
                q++;
            if (hex_word(h, (size_t)(q + 2 - h), out))
                return 1;
        }
    }
    for (q = p; q + 5 < e; q++) {
        if (memcmp(q, "{pc}", 4) == 0 && (q[4] == '+' || q[4] == '-')) {
            const char *h = q + 5, *s;
            uint64_t off = 0;
            if (h + 2 < e && h[0] == '0' && (h[1] | 0x20) == 'x') {
                for (s = h + 2; s < e && ct_hex1[(unsigned char)*s]; s++)
                    ;
                if (!hex_word(h + 2, (size_t)(s - h - 2), &off))
                    return 0;
            } else {
                for (s = h; s < e && is_digit((unsigned char)*s); s++)
                    off = off * 10 + (uint64_t)(*s - '0');
                if (s == h)
                    return 0;
            }
            *out = q[4] == '+' ? pc + off : pc - off;
            return 1;
        }
    }
    for (q = p; q < e && (*q == ' ' || *q == '\t' || *q == '#'); q++)
        ;
    if (q + 2 < e && q[0] == '0' && (q[1] | 0x20) == 'x') {
        const char *h = q + 2, *s;
        for (s = h; s < e && ct_hex1[(unsigned char)*s]; s++)
            ;
        return hex_word(h, (size_t)(s - h), out);
    }
    return 0;
}

/* Whether the instruction writes pc: pc as the first operand, or pc in the
 * register list of POP / LDM. */
static int writes_pc(const char *m, size_t mn, const char *p, const char *e)
{
    const char *q;
    if (istarts(m, mn, "POP") || istarts(m, mn, "LDM")) {
        for (q = p; q + 1 < e; q++)
            if ((q[0] | 0x20) == 'p' && (q[1] | 0x20) == 'c' &&
                (q == p || !is_word((unsigned char)q[-1])) &&
                (q + 2 >= e || !is_word((unsigned char)q[2])))
                return 1;
        return 0;
    }
    for (q = p; q < e && (*q == ' ' || *q == '\t'); q++)
        ;
    return q + 1 < e && (q[0] | 0x20) == 'p' && (q[1] | 0x20) == 'c' &&
           (q + 2 >= e || q[2] == ',' || q[2] == ' ' || q[2] == '\t');
}

int ct_tarmac_next_pc(const char *disasm, size_t len, uint64_t pc, uint32_t size, int skipped,
                      uint64_t *next)
{
    lx x = {disasm, disasm + len, disasm};
    const char *m;
    size_t mn;

    skip_ws(&x);
    m = x.p;
    while (x.p < x.e && *x.p != ' ' && *x.p != '\t')
        x.p++;
    mn = (size_t)(x.p - m);
    if (mn == 0)
        return 0;
    if (skipped) {
        *next = pc + size;
        return 1;
    }
    if (mn > 2 && m[mn - 2] == '.' && ((m[mn - 1] | 0x20) == 'w' || (m[mn - 1] | 0x20) == 'n'))
        mn -= 2;
    if (is_direct_branch(m, mn))
        return branch_target(x.p, x.e, pc, next);
    if (changes_flow(m, mn) || writes_pc(m, mn, x.p, x.e))
        return 0;
    *next = pc + size;
    return 1;
}

/* Add the fetch of the instruction after the last one (trace end). */
static void next_fetch(tarmac *t, ct_batch *b)
{
    uint64_t next, pa = 0;
    uint16_t flags = 0;

    if (!t->last.valid ||
        !ct_tarmac_next_pc(t->last.disasm, t->last.disasm_len, t->last.pc, t->last.size,
                           t->last.skipped, &next))
        return;
    if (t->last.flags & CT_F_PADDR) {
        if ((next ^ t->last.pc) & ~(uint64_t)(PAGE_4K - 1))
            return; /* another page: its physical address is unknown */
        pa = (t->last.paddr & ~(uint64_t)(PAGE_4K - 1)) | (next & (PAGE_4K - 1));
        flags = t->last.flags;
    }
    t->time = t->last.time;
    t->cpu = t->last.cpu;
    fetch(t, b, next, pa, flags, t->last.size, -1);
}

/* ---- the format plug-in interface ------------------------------------------------- */

/* What the Tarmac keys set. */
typedef struct tarmac_options {
    int next_fetch;           /* [trace] tarmac_next_fetch */
} tarmac_options;

static const ct_schema_section tarmac_sections[] = {
    {"trace", 0, NULL},       /* declared by the trace layer (trace.c) */
};

static const ct_schema_row tarmac_rows[] = {
    {0, "tarmac_next_fetch", CT_VT_BOOL, offsetof(tarmac_options, next_fetch), sizeof(int), 0,
     1, "no", NULL, NULL,
     "Tarmac: when a trace ends, also fetch the instruction that runs next (the target "
     "of a direct branch, else the next in sequence), as Fast Models fetches it during "
     "the last traced instruction", NULL},
};

const ct_schema_block ct_tarmac_schema =
    CT_SCHEMA_BLOCK(tarmac_sections, tarmac_rows, sizeof(tarmac_options));

int ct_tarmac_open(void **st, ct_stream *s, int dialect, ct_error *err)
{
    tarmac *t = calloc(1, sizeof *t);
    if (!t)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", s->path);
    t->s = s;
    t->lines.in = s->in;
    t->lines.s = s;
    t->dialect = dialect;
    t->next_fetch = ((const tarmac_options *)ct_config_options(s->cfg, &ct_tarmac_schema))
                        ->next_fetch;
    t->cont_col = -1;
    for (unsigned i = 0; i < PC_SLOTS; i++)
        t->pc_cpu[i] = -1;
    *st = t;
    return CT_OK;
}

void ct_tarmac_close(void *st) { free(st); }

int ct_tarmac_next(void *st, ct_batch *b, ct_error *err)
{
    tarmac *t = st;
    const uint64_t start = ct_bytes_offset(t->s->in);
    int rc = 1;

    if (t->ended)
        return 0;
    while (ct_batch_room(b, CT_TARMAC_MAX_PER_LINE) &&
           ct_bytes_offset(t->s->in) - start < CT_DECODE_SLICE) {
        const char *line;
        size_t len;
        int got = ct_lines_next(&t->lines, &line, &len, err);
        if (got < 0) {
            rc = got;
            break;
        }
        if (got == 0) {
            if (t->next_fetch)
                next_fetch(t, b);
            t->ended = 1;
            rc = 0;
            break;
        }
        if ((got = parse_line(t, line, len, b, err)) < 0) {
            rc = got;
            break;
        }
    }
    t->s->info->records += t->records;
    t->s->info->bytes = ct_bytes_offset(t->s->in);
    t->records = 0;
    return rc;
}

void ct_tarmac_probe_count(const uint8_t *head, size_t n, int dialect, unsigned *known,
                           unsigned *unknown)
{
    const char *p = (const char *)head, *end = (const char *)head + n;

    *known = *unknown = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        lx x;
        const char *w;
        size_t wn;
        uint64_t ts;
        int numeric_cpu = 0, k;

        if (!nl)
            break;
        x.p = p;
        x.e = nl > p && nl[-1] == '\r' ? nl - 1 : nl;
        x.line = p;
        p = nl + 1;
        skip_ws(&x);
        if (x.p == x.e || *x.p == '#')
            continue;
        if (is_digit((unsigned char)*x.p) && timestamp(&x, &ts) > 0) {
            const char *save = x.p;
            wn = word(&x, &w);
            if (wn && wn <= 5 && is_digit((unsigned char)w[0]))
                numeric_cpu = 1;
            else
                x.p = save;
        }
        wn = word(&x, &w);
        if (wn > 3 && memcmp(w, "cpu", 3) == 0)
            wn = word(&x, &w);
        k = wn ? classify(w, wn) : K_UNKNOWN;
        if (dialect == CT_TARMAC_TM) {
            if (numeric_cpu && k == K_INSTR && punct(&x, '('))
                (*known)++;
            else if (k == K_UNKNOWN)
                (*unknown)++;
        } else if (k == K_UNKNOWN || numeric_cpu) {
            (*unknown)++;
        } else {
            (*known)++;
        }
    }
}

static int tarmac_probe(const uint8_t *h, size_t n)
{
    unsigned known, unknown;
    ct_tarmac_probe_count(h, n, CT_TARMAC_ARM, &known, &unknown);
    if (known == 0 || unknown > known)
        return 0;
    return known >= 2 ? 80 : 50;
}

static int tarmac_open(void **st, ct_stream *s, ct_error *err)
{
    return ct_tarmac_open(st, s, CT_TARMAC_ARM, err);
}

const ct_format_ops ct_format_tarmac = {
    .name = "tarmac",
    .desc = "Arm Tarmac text (Fast Models, RTL, cycle models, gem5); CACHE, TLB and TTW "
            "lines as events",
    .max_per_record = CT_TARMAC_MAX_PER_LINE,
    .default_schedule = CT_SCHED_CPUS,
    .probe = tarmac_probe,
    .open = tarmac_open, .next = ct_tarmac_next, .close = ct_tarmac_close,
};
