/*
 * vixl.c - VIXL AArch64 simulator state traces (text).
 *
 * Lines (ANSI colour sequences ESC '[' [0-9;]* 'm' are removed first; bytes
 * >= 0x80, the UTF-8 lane-drawing characters, are never part of a token;
 * columns in messages count bytes of the line without its colour codes):
 *
 *   instruction  [-| ]0x<16 hex>  <8 hex>\t\t<disassembly>
 *                One 4-byte IFETCH at the address; it becomes the pc of the
 *                accesses on the lines that follow. A leading '-' (signed,
 *                code-relative addresses) negates the address.
 *   state        '#' ...: register values, flags, branches. A state line is
 *                a memory access when it contains an arrow: it must end
 *                with "<- 0x<16 hex>" (load) or "-> 0x<16 hex>" (store).
 *   other        anything else (the simulated program's own output, blank
 *                lines) is skipped and counted as a warning.
 *
 * Accesses. The value literal just before the arrow (after skipping an FP
 * annotation in parentheses) gives the size: 0x<hex digits with '
 * separators> is (digits without ') / 2 bytes, 0b<space separated bits> is
 * bits / 8 bytes. One arrow line is one contiguous access at the address:
 * register loads and stores (w3: 0x03020100 <- ..., x18<31:0>: ... -> ...),
 * the separate line of sign- and zero-extending loads and every lane or
 * structure line of a multi-lane access (╙─ 0x0100 <- ..., one per lane),
 * SVE Z chunks (16 bytes) and P chunks (2 bytes), DC ZVA (one 8-byte store
 * per line). A MOPS copy line "#  : 0x<dst> <- 0x<byte> <- 0x<src>" is a
 * 1-byte LOAD at src followed by a 1-byte STORE at dst. Atomics appear as a
 * load line and a store line and stay two accesses. A register name with a
 * bit range (<msb:lsb>) must agree with the value width.
 *
 * Not accesses: GCS lines ("# gcs0x..[..]: <- 0x...", the guarded control
 * stack lives outside simulated memory): skipped and counted as a warning.
 *
 * pc, time, flags. Data accesses carry the pc of the last instruction line;
 * before the first one (traces made without disassembly) the pc is unknown
 * (CT_F_NOPC, counted as a warning). time is the line number. Accesses of
 * exclusive instructions (ldxr, ldaxr, stxr, stlxr, ... pairs and byte and
 * halfword forms) are flagged CT_F_EXCL. Masked addresses (0x~~~~~~~~~~~~~~~~,
 * as in VIXL's published reference logs) give accesses flagged CT_F_NOADDR
 * (address 0): they are counted but can never be simulated; an access after
 * a masked instruction line also has an unknown pc.
 *
 * P chunk addresses. VIXL prints the predicate chunks of one P register
 * 16 bytes apart although each chunk is 2 bytes. When a chunk line
 * (p<n><16k+15:16k>, k > 0) follows the chunk k-1 line of the same register
 * at exactly +16, its address is taken as the previous chunk's + 2; any
 * other address is taken as printed.
 *
 * Layouts. The layout is decided by the first general, FP or vector
 * register line: the current layout right-aligns register names in 14
 * columns (the colon is at column 17 or later); the layout VIXL used before
 * November 2019 uses 5 columns. In the old layout a load line shows the
 * whole X or V register whatever the access size, so the size of such a
 * load comes from the current instruction's mnemonic when it is a scalar
 * load (ldrb 1, ldrsh 2, ldr w 4, ldp x 8, ldr q 16, ...), else from an FP
 * annotation naming a scalar register "(d4: ...)", else it is the register
 * width and a warning says the size is unknown. Stores print their access
 * size in both layouts.
 *
 * When the trace ends: stores but no loads, or instructions but no memory
 * accesses, give a warning (VIXL logs loads only with register tracing and
 * stores only with write tracing).
 *
 * Malformed lines, reported as FILE:LINE:COL: reason (strict mode stops,
 * lenient mode skips and counts by reason): an instruction-shaped line
 * (0x + 16 address digits) whose encoding or tabs are wrong; an arrow not
 * followed by a 16-digit address at the end of the line; an address that is
 * neither hex nor fully masked; no value before the arrow; value width 0;
 * an odd number of hex digits; a predicate value that is not whole bytes; a
 * value width that disagrees with the bit range; a MOPS line of the wrong
 * shape; more than two arrows. Values whose elements have different widths
 * and single values of sizes other than 1, 2, 4, 8 or 16 bytes are kept,
 * with a warning.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/compiler.h"
#include "frontend.h"

#define STRIP_MAX 65536          /* longest line with colour codes */
#define IFETCH_SIZE 4
#define NAME_FIELD_COLON 16      /* offset of ':' with 14-column names */
#define WARN_KINDS 16

enum layout { LAYOUT_UNKNOWN, LAYOUT_CURRENT, LAYOUT_OLD };

typedef struct vixl {
    ct_stream *s;
    ct_lines lines;
    uint64_t pc;
    uint16_t pc_flags;        /* CT_F_NOPC while the pc is unknown */
    uint16_t insn_flags;      /* CT_F_EXCL for exclusive instructions */
    int have_insn;
    int layout;               /* enum layout */
    int insn_load_size;       /* old layout: load size from the mnemonic, 0 unknown */
    /* predicate chunk address repair (see the top of the file) */
    int p_valid;
    unsigned p_reg, p_lsb;
    uint64_t p_printed, p_real;
    /* totals for the end-of-trace warnings */
    uint64_t insns, loads, stores;
    int finished;
    const char *warned[WARN_KINDS];  /* warnings whose first position is known */
    unsigned nwarned;
    char strip[STRIP_MAX];
} vixl;

/* ---- probing ---------------------------------------------------------------- */

static int is_hex(unsigned char c) { return ct_hex1[c] != 0; }

/* Skip the colour sequences at h[i]; returns the offset after them. */
static size_t skip_sgr(const uint8_t *h, size_t i, size_t n)
{
    while (i + 1 < n && h[i] == 0x1b && h[i + 1] == '[') {
        size_t j = i + 2;
        while (j < n && ((h[j] >= '0' && h[j] <= '9') || h[j] == ';'))
            j++;
        if (j >= n || h[j] != 'm')
            break;
        i = j + 1;
    }
    return i;
}

static int probe_insn(const uint8_t *h, size_t i, size_t n)
{
    if (i < n && (h[i] == '-' || h[i] == ' '))
        i++;
    if (i + 30 > n || h[i] != '0' || h[i + 1] != 'x')
        return 0;
    for (size_t k = 0; k < 16; k++)
        if (!is_hex(h[i + 2 + k]) && h[i + 2 + k] != '~')
            return 0;
    i += 18;
    if (h[i] != ' ' || h[i + 1] != ' ')
        return 0;
    for (size_t k = 0; k < 8; k++)
        if (!is_hex(h[i + 2 + k]))
            return 0;
    return h[i + 10] == '\t' && h[i + 11] == '\t';
}

/* A state line: 2 for the shapes VIXL prints most ("# <name>: ...", lane
 * and DC ZVA lines), 1 for other "# ..." lines, 0 for anything else. */
static int probe_state(const uint8_t *h, size_t i, size_t n)
{
    if (i + 1 == n && h[i] == '#')
        return 1;
    if (i + 1 >= n || h[i] != '#' || h[i + 1] != ' ')
        return 0;
    while (i + 1 < n && h[i + 1] == ' ')
        i++;
    i++;
    if (i >= n)
        return 1;
    if (h[i] >= 0x80 || h[i] == '0')   /* lane drawing, DC ZVA */
        return 2;
    if (!((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= 'A' && h[i] <= 'Z')))
        return 1;
    while (i < n && ((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= 'A' && h[i] <= 'Z') ||
                     (h[i] >= '0' && h[i] <= '9')))
        i++;
    if (i < n && h[i] == '<') {
        while (i < n && h[i] != '>')
            i++;
        i++;
    }
    return i < n && h[i] == ':' ? 2 : 1;
}

static int vixl_probe(const uint8_t *h, size_t n)
{
    size_t i = 0;
    int lines = 0, insns = 0, regs = 0, other = 0;

    while (i < n && lines < 8) {
        uint8_t l[256];
        int st;
        size_t e = i, k = 0;
        while (e < n && h[e] != '\n')
            e++;
        if (e == n && lines > 0)
            break; /* a cut-off last line proves nothing */
        for (size_t j = skip_sgr(h, i, e); j < e && k < sizeof l; j = skip_sgr(h, j, e))
            l[k++] = h[j++];
        if (probe_insn(l, 0, k))
            insns++;
        else if ((st = probe_state(l, 0, k)) == 0)
            other++;   /* program output, or a damaged line */
        else
            regs += st == 2;
        lines++;
        i = e + 1;
    }
    if (!lines || other * 2 > lines)
        return 0;
    return insns ? 90 - 10 * other : regs ? 75 - 10 * other : 30;
}

/* ---- decoder state ------------------------------------------------------------ */

static int vixl_open(void **st, ct_stream *s, ct_error *err)
{
    vixl *v = calloc(1, sizeof *v);
    if (!v)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", s->path);
    v->s = s;
    v->lines.in = s->in;
    v->lines.s = s;
    v->pc_flags = CT_F_NOPC;
    *st = v;
    return CT_OK;
}

static void vixl_close(void *st) { free(st); }

/* Report a malformed line at 0-based offset col; 0 to skip it (lenient). */
static int bad(vixl *v, size_t col, const char *reason, ct_error *err)
{
    ct_error_set(err, CT_E_FORMAT, "%s:%llu:%zu: %s", v->s->path,
                 (unsigned long long)v->lines.lineno, col + 1, reason);
    return ct_stream_malformed(v->s, err, reason);
}

/* Count a warning; its position is kept the first time only, so it is
 * formatted only then (the reasons are string constants). */
static void warn(vixl *v, const char *what, size_t col)
{
    char where[PATH_MAX + 48];

    for (unsigned i = 0; i < v->nwarned; i++)
        if (v->warned[i] == what) {
            ct_stream_warn(v->s, what, "");
            return;
        }
    if (v->nwarned < WARN_KINDS)
        v->warned[v->nwarned++] = what;
    snprintf(where, sizeof where, "%s:%llu:%zu", v->s->path,
             (unsigned long long)v->lines.lineno, col + 1);
    ct_stream_warn(v->s, what, where);
}

/* The line without colour codes (the line itself when it has none). */
static const char *strip_colour(vixl *v, const char *l, size_t *n)
{
    size_t i = 0, o = 0;

    if (LIKELY(!memchr(l, 0x1b, *n)))
        return l;
    if (*n > STRIP_MAX)
        return NULL;
    while (i < *n) {
        size_t j = skip_sgr((const uint8_t *)l, i, *n);
        if (j != i) {
            i = j;
            continue;
        }
        v->strip[o++] = l[i++];
    }
    *n = o;
    return v->strip;
}

/* ---- instruction lines ------------------------------------------------------- */

static int starts(const char *p, const char *end, const char *word)
{
    size_t k = strlen(word);
    return (size_t)(end - p) >= k && memcmp(p, word, k) == 0;
}

static int ends(const char *p, size_t n, const char *word)
{
    size_t k = strlen(word);
    return n >= k && memcmp(p + n - k, word, k) == 0;
}

/* Register width in bytes from an operand's first letter (0 unknown). */
static int reg_width(char c)
{
    switch (c) {
    case 'w': case 's': return 4;
    case 'x': case 'd': return 8;
    case 'b': return 1;
    case 'h': return 2;
    case 'q': return 16;
    default: return 0;
    }
}

/* Access size of a scalar load or atomic from its mnemonic and first
 * operand, 0 when it is not one (vector structure loads, stores). */
static int scalar_load_size(const char *m, size_t mn, const char *op, size_t on)
{
    int is_load = mn >= 3 && m[0] == 'l' && m[1] == 'd' && !(m[2] >= '0' && m[2] <= '9');
    int is_rmw = (mn >= 3 && memcmp(m, "swp", 3) == 0) || (mn >= 3 && memcmp(m, "cas", 3) == 0);

    if (!is_load && !is_rmw)
        return 0;
    if ((mn >= 4 && memcmp(m, "ldff", 4) == 0) || (mn >= 4 && memcmp(m, "ldnf", 4) == 0) ||
        (mn == 3 && memcmp(m, "ldg", 3) == 0) || (mn == 4 && memcmp(m, "ldgm", 4) == 0))
        return 0;
    if ((mn == 5 && (memcmp(m, "ldraa", 5) == 0 || memcmp(m, "ldrab", 5) == 0)))
        return 8;
    if (ends(m, mn, "sw"))
        return 4;
    if (ends(m, mn, "sb"))
        return 1;
    if (ends(m, mn, "sh"))
        return 2;
    if (m[mn - 1] == 'b')
        return 1;
    if (m[mn - 1] == 'h')
        return 2;
    return on ? reg_width(op[0]) : 0;
}

static int is_exclusive(const char *m, size_t mn)
{
    const char *end = m + mn;
    return starts(m, end, "ldx") || starts(m, end, "ldax") || starts(m, end, "stx") ||
           starts(m, end, "stlx");
}

/* Note what the old layout needs from the disassembly: mnemonic, first operand. */
static void note_disasm(vixl *v, const char *d, const char *end)
{
    const char *m, *op;
    size_t mn, on;

    while (d < end && (*d == ' ' || *d == '\t'))
        d++;
    m = d;
    while (d < end && *d != ' ' && *d != '\t')
        d++;
    mn = (size_t)(d - m);
    while (d < end && (*d == ' ' || *d == '\t'))
        d++;
    if (d < end && *d == '{')
        d++;
    op = d;
    while (d < end && *d != ',' && *d != ' ' && *d != '}')
        d++;
    on = (size_t)(d - op);
    v->insn_flags = mn && is_exclusive(m, mn) ? CT_F_EXCL : 0;
    v->insn_load_size = mn ? scalar_load_size(m, mn, op, on) : 0;
}

/* 16 address digits at p: 1 hex (value in *a), 2 masked, 0 neither. */
static int addr16(const char *p, uint64_t *a)
{
    uint64_t x = 0;
    int tilde = 0;
    for (int k = 0; k < 16; k++) {
        unsigned h = ct_hex1[(unsigned char)p[k]];
        if (h)
            x = (x << 4) | (h - 1);
        else if (p[k] == '~')
            tilde++;
        else
            return 0;
    }
    if (tilde == 0) {
        *a = x;
        return 1;
    }
    return tilde == 16 ? 2 : 0;
}

/* A malformed instruction line: the code from bad(), or 2 (skipped). */
static int skipped(int rc) { return rc < 0 ? rc : 2; }

/* Returns 1 when l is an instruction line, 2 when it was a malformed one
 * (skipped in lenient mode), 0 when it is not one, or a negative code. */
static int insn_line(vixl *v, const char *l, size_t n, ct_batch *b, ct_error *err)
{
    size_t i = 0;
    int neg = 0, kind;
    uint64_t pc = 0;

    if (n > 0 && (l[0] == '-' || l[0] == ' ')) {
        neg = l[0] == '-';
        i = 1;
    }
    if (n < i + 18 || l[i] != '0' || l[i + 1] != 'x')
        return 0;
    kind = addr16(l + i + 2, &pc);
    if (!kind) {
        for (size_t k = 0; k < 16; k++)
            if (!is_hex((unsigned char)l[i + 2 + k]) && l[i + 2 + k] != '~')
                return 0; /* not 16 address characters: not an instruction line */
        return skipped(bad(v, i + 2, "instruction address is neither hex nor fully masked", err));
    }
    i += 18;
    if (n < i + 2 || l[i] != ' ' || l[i + 1] != ' ')
        return skipped(bad(v, i, "instruction line: expected two spaces after the address", err));
    i += 2;
    for (size_t k = 0; k < 8; k++)
        if (i + k >= n || !is_hex((unsigned char)l[i + k]))
            return skipped(bad(v, i + k, "instruction line: expected 8 hex digits of encoding",
                               err));
    i += 8;
    if (n < i + 2 || l[i] != '\t' || l[i + 1] != '\t')
        return skipped(bad(v, i, "instruction line: expected two tabs before the disassembly",
                           err));
    i += 2;
    if (neg)
        pc = 0 - pc;
    note_disasm(v, l + i, l + n);
    v->have_insn = 1;
    v->p_valid = 0;
    v->insns++;
    v->pc = kind == 1 ? pc : 0;
    v->pc_flags = kind == 1 ? 0 : CT_F_NOPC;
    if (kind == 2)
        v->s->info->masked_addresses = 1;
    b->acc[b->n++] = (ct_access){
        .vaddr = v->pc, .pc = v->pc, .time = v->lines.lineno, .size = IFETCH_SIZE,
        .kind = CT_IFETCH,
        .flags = (uint16_t)(kind == 1 ? 0 : CT_F_NOADDR | CT_F_NOPC)};
    return 1;
}

/* ---- state lines -------------------------------------------------------------- */

static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

typedef struct reg_name {
    size_t start, len;        /* the name without bit range */
    int has_range;
    unsigned msb, lsb;
    size_t colon;             /* offset of the ':' after it */
} reg_name;

/* "# <spaces><name>[<msb:lsb>]:" at the start of a state line. */
static int parse_name(const char *l, size_t n, reg_name *r)
{
    size_t i = 1;
    memset(r, 0, sizeof *r);
    while (i < n && l[i] == ' ')
        i++;
    if (i >= n || !is_alpha(l[i]))
        return 0;
    r->start = i;
    while (i < n && (is_alpha(l[i]) || is_digit(l[i])))
        i++;
    r->len = i - r->start;
    if (i < n && l[i] == '<') {
        unsigned msb = 0, lsb = 0;
        size_t d = ++i;
        while (i < n && is_digit(l[i]) && i - d < 6)
            msb = msb * 10 + (unsigned)(l[i++] - '0');
        if (i == d || i >= n || l[i] != ':')
            return 0;
        d = ++i;
        while (i < n && is_digit(l[i]) && i - d < 6)
            lsb = lsb * 10 + (unsigned)(l[i++] - '0');
        if (i == d || i >= n || l[i] != '>' || lsb > msb)
            return 0;
        i++;
        r->has_range = 1;
        r->msb = msb;
        r->lsb = lsb;
    }
    if (i >= n || l[i] != ':')
        return 0;
    r->colon = i;
    return 1;
}

/* A general, FP or vector register (the names the layout is judged by). */
static int layout_register(const char *p, size_t len)
{
    if ((len == 2 && (memcmp(p, "lr", 2) == 0 || memcmp(p, "sp", 2) == 0)) ||
        (len == 3 && memcmp(p, "wsp", 3) == 0))
        return 1;
    if (len < 2 || !strchr("xwvqdshbz", p[0]))
        return 0;
    for (size_t k = 1; k < len; k++)
        if (!is_digit(p[k]))
            return 0;
    return 1;
}

typedef struct value {
    size_t start;             /* offset of "0x" / "0b" */
    uint32_t bytes;
    int binary;
    uint32_t bits;            /* binary: bit count; hex: digits * 4 */
    int mixed;                /* elements of different widths */
    int elements;
    int scalar_fp;            /* old layout: size named by an FP annotation */
} value;

static int hexish(char c) { return is_hex((unsigned char)c) || c == '\'' || c == '~'; }

/*
 * The value literal ending before offset e (the space before an arrow).
 * Returns NULL and fills val, or the reason for a malformed line with *col
 * moved to the literal when there is one.
 */
static const char *parse_value(const char *l, size_t lo, size_t e, value *val, size_t *col)
{
    size_t s, ann_open = 0;
    int have_ann = 0;

    memset(val, 0, sizeof *val);
    while (e > lo && l[e - 1] == ' ')
        e--;
    if (e > lo && l[e - 1] == ')') {
        size_t k = e - 1;
        while (k > lo && l[k] != '(')
            k--;
        if (l[k] != '(')
            return "unbalanced ')' before the arrow";
        ann_open = k;
        have_ann = 1;
        e = k;
        while (e > lo && l[e - 1] == ' ')
            e--;
    }
    s = e;
    while (s > lo && hexish(l[s - 1]))
        s--;
    if (s >= lo + 2 && l[s - 2] == '0' && l[s - 1] == 'x') {
        uint32_t digits = 0, el = 0, first = 0;
        *col = s - 2;
        val->elements = 1;
        for (size_t k = s; k < e; k++) {
            if (l[k] == '\'') {
                if (val->elements == 1)
                    first = el;
                else if (el != first)
                    val->mixed = 1;
                val->elements++;
                el = 0;
            } else {
                digits++;
                el++;
            }
        }
        if (val->elements > 1 && el != first)
            val->mixed = 1;
        if (digits == 0)
            return "value width 0";
        if (digits & 1)
            return "odd number of hex digits in value";
        val->start = s - 2;
        val->bytes = digits / 2;
        val->bits = digits * 4;
    } else {
        uint32_t bits = 0;
        s = e;
        while (s > lo && (l[s - 1] == '0' || l[s - 1] == '1' || l[s - 1] == ' '))
            s--;
        if (!(s >= lo + 2 && l[s - 2] == '0' && l[s - 1] == 'b'))
            return "no value before the arrow";
        *col = s - 2;
        for (size_t k = s; k < e; k++)
            bits += l[k] != ' ';
        if (bits == 0)
            return "value width 0";
        if (bits % 8)
            return "predicate value is not a whole number of bytes";
        val->start = s - 2;
        val->binary = 1;
        val->bits = bits;
        val->bytes = bits / 8;
        val->elements = 1;
    }
    if (have_ann) {
        /* "(d4: ...)", "(s4: ...)", "(h4: ...)" name a scalar FP register */
        const char *a = l + ann_open + 1;
        size_t k = 1;
        if (strchr("dsh", a[0]) && is_digit(a[1])) {
            while (is_digit(a[k]))
                k++;
            if (a[k] == ':')
                val->scalar_fp = a[0] == 'd' ? 8 : a[0] == 's' ? 4 : 2;
        }
    }
    return NULL;
}

static void emit(vixl *v, ct_batch *b, int kind, uint64_t addr, int masked, uint32_t size)
{
    ct_access *a = &b->acc[b->n++];
    uint16_t flags = v->pc_flags | v->insn_flags;

    if (masked)
        flags |= CT_F_NOADDR;
    *a = (ct_access){.vaddr = masked ? 0 : addr, .pc = v->pc, .time = v->lines.lineno,
                     .size = size, .kind = (uint8_t)kind, .flags = flags};
    if (kind == CT_LOAD)
        v->loads++;
    else
        v->stores++;
    if (masked)
        v->s->info->masked_addresses = 1;
    if (!v->have_insn)
        warn(v, "memory accesses before any instruction line (a trace without "
                "disassembly): pc unknown", 0);
}

/* "0x<dst> <- 0x<byte> <- 0x<src>": a one-byte copy (MOPS cpy*). */
static int mops_line(vixl *v, const char *l, size_t n, size_t a1, ct_batch *b, ct_error *err)
{
    uint64_t dst = 0, src = 0;
    int kd, ks;
    size_t k = a1;

    /* l[a1..a1+2) is the first arrow; the second ends at n - 19 */
    if (a1 < 19 || l[a1 - 1] != ' ' || l[a1 - 19] != '0' || l[a1 - 18] != 'x' ||
        memcmp(l + a1, "<- 0x", 5) != 0 || memcmp(l + n - 22, " <- 0x", 6) != 0)
        return bad(v, a1, "copy line: expected 0xDST <- 0xBYTE <- 0xSRC", err);
    kd = addr16(l + a1 - 17, &dst);
    ks = addr16(l + n - 16, &src);
    k = a1 + 5;
    while (k < n - 22 && is_hex((unsigned char)l[k]))
        k++;
    if (!kd || !ks || k != n - 22 || k - (a1 + 5) != 2)
        return bad(v, a1, "copy line: expected 0xDST <- 0xBYTE <- 0xSRC", err);
    emit(v, b, CT_LOAD, src, ks == 2, 1);
    emit(v, b, CT_STORE, dst, kd == 2, 1);
    return 1;
}

static uint32_t old_load_size(vixl *v, const value *val, size_t col)
{
    if (v->insn_load_size)
        return (uint32_t)v->insn_load_size;
    if (val->scalar_fp)
        return (uint32_t)val->scalar_fp;
    warn(v, "load size unknown (the pre-2019 VIXL layout prints the whole register): "
            "register width used", col);
    return val->bytes;
}

/* Repair the address of predicate chunk k > 0 (see the top of the file). */
static uint64_t p_chunk_addr(vixl *v, const char *l, const reg_name *r, uint64_t addr)
{
    unsigned reg = 0;
    uint64_t real = addr;

    if (r->len < 2 || l[r->start] != 'p' || r->msb - r->lsb != 15 || r->lsb % 16)
        return addr;
    for (size_t k = r->start + 1; k < r->start + r->len; k++)
        reg = reg * 10 + (unsigned)(l[k] - '0');
    if (r->lsb > 0 && v->p_valid && v->p_reg == reg && v->p_lsb + 16 == r->lsb &&
        addr == v->p_printed + 16)
        real = v->p_real + 2;
    v->p_valid = 1;
    v->p_reg = reg;
    v->p_lsb = r->lsb;
    v->p_printed = addr;
    v->p_real = real;
    return real;
}

static int state_line(vixl *v, const char *l, size_t n, ct_batch *b, ct_error *err)
{
    reg_name r;
    int named = parse_name(l, n, &r);
    size_t arrows = 0, first = 0, last = 0, i, col;
    const char *why;
    value val;
    uint64_t addr = 0;
    int kind, am;
    uint32_t size;

    if (named && v->layout == LAYOUT_UNKNOWN && layout_register(l + r.start, r.len))
        v->layout = r.colon >= NAME_FIELD_COLON ? LAYOUT_CURRENT : LAYOUT_OLD;
    for (i = 1; i + 1 < n; i++)
        if ((l[i] == '<' && l[i + 1] == '-') || (l[i] == '-' && l[i + 1] == '>')) {
            if (!arrows++)
                first = i;
            last = i;
            i++;
        }
    if (!arrows)
        return 0;
    {   /* GCS push/pop lines are not memory */
        size_t k = 1;
        while (k < n && l[k] == ' ')
            k++;
        if (n - k >= 3 && memcmp(l + k, "gcs", 3) == 0) {
            warn(v, "GCS lines (guarded control stack push/pop, not memory accesses)", k);
            return 0;
        }
    }
    while (n > 0 && l[n - 1] == ' ')
        n--;
    if (n < 22 || last != n - 21 || l[n - 22] != ' ' || l[n - 19] != ' ' ||
        l[n - 18] != '0' || l[n - 17] != 'x')
        return bad(v, last, "arrow without 16-digit address", err);
    am = addr16(l + n - 16, &addr);
    if (!am)
        return bad(v, n - 16, "address is neither 16 hex digits nor fully masked (~)", err);
    if (arrows == 2)
        return mops_line(v, l, n, first, b, err);
    if (arrows > 2)
        return bad(v, first, "more than two arrows", err);
    kind = l[last] == '<' ? CT_LOAD : CT_STORE;
    col = last;
    why = parse_value(l, 1, last - 1, &val, &col);
    if (why)
        return bad(v, col, why, err);
    if (named && r.has_range && r.msb - r.lsb + 1 != val.bits)
        return bad(v, val.start, "value width does not match the register bit range", err);
    size = val.bytes;
    if (v->layout == LAYOUT_OLD && kind == CT_LOAD && named && !r.has_range && !val.binary)
        size = old_load_size(v, &val, val.start);
    if (val.mixed)
        warn(v, "access value elements of different widths (size kept)", val.start);
    else if (val.elements == 1 && size != 1 && size != 2 && size != 4 && size != 8 &&
             size != 16)
        warn(v, "access size not 1, 2, 4, 8 or 16 bytes (kept)", val.start);
    if (named && r.has_range && val.binary && am == 1)
        addr = p_chunk_addr(v, l, &r, addr);
    emit(v, b, kind, addr, am == 2, size);
    return 1;
}

/* ---- the decoder ------------------------------------------------------------- */

static void end_warnings(vixl *v)
{
    if (v->stores && !v->loads)
        warn(v, "stores but no loads (VIXL logs loads only with register tracing, "
                "--trace-regs/--trace-vregs)", 0);
    if (v->insns && !v->loads && !v->stores)
        warn(v, "instructions but no memory accesses (VIXL logs them only with "
                "register and write tracing)", 0);
}

static int vixl_next(void *st, ct_batch *b, ct_error *err)
{
    vixl *v = st;
    const uint64_t start = ct_bytes_offset(v->s->in);

    if (v->finished)
        return 0;
    while (b->n + 2 <= b->cap && ct_bytes_offset(v->s->in) - start < CT_DECODE_SLICE) {
        const char *l;
        size_t n;
        int rc = ct_lines_next(&v->lines, &l, &n, err);

        if (rc < 0)
            return rc;
        if (rc == 0) {
            v->finished = 1;
            end_warnings(v);
            return 0;
        }
        v->s->info->records++;
        l = strip_colour(v, l, &n);
        if (!l) {
            rc = bad(v, STRIP_MAX, "line with colour codes longer than 64 KiB", err);
            if (rc < 0)
                return rc;
            continue;
        }
        if (n > 0 && l[0] == '#')
            rc = state_line(v, l, n, b, err);
        else
            rc = insn_line(v, l, n, b, err);
        if (rc < 0)
            return rc;
        if (rc == 0 && !(n > 0 && l[0] == '#'))
            warn(v, n ? "lines that are not VIXL trace output (the simulated program's "
                        "own output?)"
                      : "blank lines", 0);
    }
    return 1;
}

const ct_format_ops ct_format_vixl = {
    .name = "vixl",
    .desc = "VIXL AArch64 simulator state trace (--trace-all and friends, colour or plain)",
    .max_per_record = 2,
    .default_schedule = CT_SCHED_THREADS,
    .probe = vixl_probe,
    .open = vixl_open, .next = vixl_next, .close = vixl_close,
};
