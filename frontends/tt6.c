/*
 * tt6.c - Amber TT6 and TT6E instruction traces (Apple CHUD, PowerPC).
 *
 * Framing
 *   A trace is a flat run of 32-bit big-endian words: the INITIAL_PC word
 *   (record 0, the address of the first traced instruction, never decoded
 *   as an instruction), then records. A record whose first word has primary
 *   opcode 0 (the top six bits zero) is an escape (below). Any other first
 *   word is an instruction whose class, and so its record length, is looked
 *   up from the primary opcode (w >> 26) and, under primary opcodes 19 and
 *   31 only, the extended opcode ((w >> 1) & 0x3ff):
 *     COMPUTE          1 word:  opcode
 *     FLOW_ALTERING    2 words: opcode, address of the next instruction
 *     MEMORY           2 words: opcode, effective address (EA)
 *     MEMORY_EXTENDED  3 words: opcode, EA, XER (lswx, stswx) or rB (dst, dstst)
 *   The lists are Amber's TT6 class macros, as data in `isa` below; every
 *   instruction not listed, including unknown encodings, is COMPUTE. TT6E
 *   differs in two ways: the DCBX instructions ([tt6] dcbx, by default dcbst
 *   dcbf dcbtst dcbt dcbi dcba dcbz) are MEMORY records instead of COMPUTE,
 *   and a synthetic `b 0x700` / `rfi` pair follows every twi (below). The
 *   bytes do not tell the two apart, so neither format is detected: the user
 *   names one (-f tt6, -f tt6e, [trace] format). A FULL trace, which starts
 *   with the word 0xA1118E17 and holds register state instead of addresses,
 *   is recognised (that is the only thing the probes answer to) and refused.
 *   Having no magic, a TT6 file whose INITIAL_PC happens to read as a
 *   compressed container's magic (0x1f8b08.. gzip, 0x504b0304 zip,
 *   0x04224d18 lz4, 0x1f9d.... unix compress) is taken for one, like every
 *   input, and fails in the decompressor; the message then says to read it
 *   as it is with -s trace.containers=no (trace.c, "Compressed containers").
 *
 * PC reconstruction
 *   The first instruction is at INITIAL_PC. After a FLOW_ALTERING record the
 *   next instruction is at the record's second word (a branch not taken
 *   simply names PC + 4); after any other instruction record it is at
 *   PC + 4 (32-bit arithmetic). Escapes do not move the PC.
 *
 * Accesses, for each instruction record in this order
 *   1. a 4-byte CT_IFETCH at the PC;
 *   2. MEMORY and MEMORY_EXTENDED: one data access with the record's EA,
 *      sized by the tables: fixed sizes, lmw/stmw 4 x (32 - RT) bytes,
 *      lswi/stswi NB bytes (NB = 0 means 32), lswx/stswx XER & 0x7f bytes
 *      from the third word (0 bytes: no access), 58/62 DS forms by their
 *      sub-opcode (ld, ldu 8; lwa 4; std, stdu 8; stq 16; the undefined
 *      sub-opcode 3 as ld or std). Multi-word forms stay one access (the
 *      hierarchy splits at lines). AltiVec element and vector accesses have
 *      their EA aligned down to their size (lvehx 2, lvewx 4, lvx 16, and
 *      the stores alike), as the hardware ignores those bits; lvebx/stvebx
 *      use it as is. Update forms are plain accesses (only RA changes).
 *      lwarx/ldarx and stwcx./stdcx. carry CT_F_EXCL (the store is emitted
 *      whether or not it succeeded: the trace does not say).
 *   3. dst/dstst (AltiVec data-stream touch): CT_PREFETCH (CT_PF_WRITE for
 *      dstst, CT_PF_NT with the T bit) per [tt6] dst: off = no access;
 *      first = the first block; stream = every block. From the control word
 *      (rB, the third word): block size in 16-byte vectors in bits 24-28
 *      (0 means 32), block count in bits 16-23 (0 means 256), signed byte
 *      stride in bits 0-15 (0 means 32768); block i covers
 *      [EA + i x stride, + size) in 32-bit arithmetic.
 *   4. TT6E DCBX records: dcbz CT_OP_ZERO, dcbf CT_OP_CLEAN_INVAL, dcbst
 *      CT_OP_CLEAN, dcbi CT_OP_INVAL, dcba CT_OP_ALLOC, icbi (only when put
 *      in the set) CT_OP_INVAL | CT_OP_ISIDE; dcbt and dcbtst are
 *      CT_PREFETCH (dcbtst with CT_PF_WRITE). Each covers one line at EA
 *      aligned down: the line of the first data-side level configured (L1D,
 *      else L2, else L3; 32 bytes, the G4's line, when there is no cache),
 *      the L1I's line for icbi. In TT6 these instructions carry no address
 *      and are COMPUTE: a fetch and nothing else.
 *   Every access has pc = the instruction's PC and time = the record index
 *   (0-based, INITIAL_PC being record 0). The trace's record count (cachet
 *   info "records") includes INITIAL_PC and the escapes.
 *
 * Escapes
 *   Header: code = (w >> 16) & 0x3ff, count = w & 0xffff payload words.
 *   Codes 0x20-0x3f (thread synchronisation: 0x20 SYNC_SIGNAL, 0x21
 *   SYNC_BROADCAST_SIGNAL, 0x30 SYNC_WAIT, 0x31 SYNC_TRY_WAIT, the rest
 *   reserved) with two payload words become a CT_MK_SYNC marker before the
 *   next access: value = sync-point address, value2 = sync-point count,
 *   aux = code. Codes 0x00-0x05 (segment register, optional data address,
 *   CR value, real branch target, real data address, real address of the
 *   next instruction) are skipped by their count and counted as ignored
 *   kinds, as are sync escapes with fewer than two payload words (extra
 *   payload words of a sync escape are ignored and counted likewise).
 *   Undefined codes (0x06-0x1f, 0x40-0x3ff) are skipped by their count too,
 *   each code counted on its own ("TT6 escape 0x11 (undefined code):
 *   skipped", cachet info's "ignored" lines). The format reference is of
 *   two minds here: its escape section says to skip exactly `count` words
 *   for any code, known or not, while its malformed-input section lists an
 *   undefined code among the signs of lost framing. This decoder follows
 *   the first (as the project's requirements do): the header layout alone
 *   frames the record, and an undefined code says nothing the count does
 *   not. A count that runs past the end of the file is still an error.
 *
 * TT6E trap pair
 *   Amber writes `b 0x00000700` then `rfi` after every twi (primary opcode
 *   3) to simulate the return from the trap. A primary-18 FLOW record whose
 *   next address is 0x700 immediately after a twi, and an rfi (19/50)
 *   immediately after that, are taken as that pair (escapes in between do
 *   not break the adjacency). By default ([tt6] keep_trap_pair = no) they
 *   are not fetched: each becomes a CT_NOFETCH (counted as an instruction,
 *   never simulated) and the PC still follows their next addresses. TT6
 *   has no such pair and no detection.
 *
 * Threads
 *   Amber writes one file per thread. Several files, or a directory (its
 *   files whose names contain ".tt6", in natural order: thread_2 before
 *   thread_10), are read as one stream per file, stream i being thread
 *   i + 1 (the decoder fills it in, and declares one_thread). TT6 has no
 *   timestamps, so the streams are interleaved round robin, [trace]
 *   quantum accesses at a time, and each thread runs on the next core in
 *   order of first appearance ([trace] schedule = threads).
 *   Sync markers are passed on; the interleaving does not enforce the
 *   order they describe.
 *
 * Choices where the public sources are silent
 *   The TT6E class list itself (hence [tt6] dcbx; icbi is left out by
 *   default), the exact words of the trap pair, the dst zero encodings and
 *   the stride's sign (the AltiVec PEM's, not checked on a sample), NB = 0 and
 *   XER & 0x7f for the string forms (the PowerPC definitions), 4 bytes for
 *   eciwx/ecowx, and aligning the AltiVec EAs ourselves (harmless if Amber
 *   already did) are this decoder's choices, not documented Amber facts.
 *
 * Malformed input (always "FILE: offset O (0xO), record R, CLASS: reason")
 *   A trailing partial word (file length not a multiple of 4) is an error;
 *   in lenient mode it is ignored and counted. Everything else stops the
 *   decoder even in lenient mode, because a record's length depends on the
 *   words read and the rest of the file cannot be trusted: a record cut
 *   short by the end of the file ("record truncated: 4 of 8 bytes"), an
 *   escape whose count runs past the end, and a misaligned INITIAL_PC or
 *   flow target ("framing doubtful"). The decoder never resynchronises.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "../sim/compiler.h"
#include "../sim/schema.h"
#include "frontend.h"

#define FULL_MAGIC 0xA1118E17u
#define TRAP_VECTOR 0x700u
#define NO_CACHE_LINE 32u       /* PowerPC G4 line, when no cache is configured */
#define MAX_ACCESS 4096u        /* the largest access: a DCBX line ([l1d] line is at
                                   most 4096); dst blocks 512, lmw 128, strings 127 */
#define FAST_FILL 4096          /* keep at least this much buffered for the fast loop */
#define CHUNK_WORDS 2048        /* words classified per pass of the fast loop */
#define TWO_WORDS 128           /* first descriptor of a 2-word fast record */
#define INDEX(w) ((((w) >> 16) & 0xfc00u) | (((w) >> 1) & 0x3ffu))

/* Record classes. */
enum { C_COMPUTE, C_FLOW, C_MEMORY, C_EXTENDED, C_ESCAPE };

static const char *const class_names[] = {"COMPUTE", "FLOW_ALTERING", "MEMORY",
                                          "MEMORY_EXTENDED", "ESCAPE"};

/* Records the fast loop leaves to decode_one(). */
enum {
    SP_NONE = 0,
    SP_ESCAPE,      /* primary opcode 0 */
    SP_MULTIPLE,    /* lmw, stmw: 4 x (32 - RT) bytes */
    SP_STRING_IMM,  /* lswi, stswi: NB bytes, 0 means 32 */
    SP_STRING_XER,  /* lswx, stswx: XER & 0x7f bytes from the third word */
    SP_DS,          /* primary 58 and 62: size from the DS sub-opcode */
    SP_STREAM,      /* dst, dstst */
    SP_TWI          /* TT6E twi when the trap pair is to be detected */
};

/* One row of the class tables: an instruction (or primary opcode) and the
 * access its record describes. */
typedef struct isa_row {
    uint8_t major;
    int16_t minor;     /* extended opcode, -1 when the primary opcode decides */
    uint8_t cls;
    uint8_t kind;      /* data access kind (MEMORY, MEMORY_EXTENDED) */
    uint8_t special;   /* SP_* */
    uint8_t size;      /* bytes, fixed-size forms */
    uint8_t align;     /* the EA is aligned down to this (AltiVec), 0 = as is */
    uint16_t flags;
    const char *name;
} isa_row;

#define FLOW(maj, min, nm) {maj, min, C_FLOW, 0, SP_NONE, 0, 0, 0, nm}
#define MEM(maj, min, k, sz, nm) {maj, min, C_MEMORY, k, SP_NONE, sz, 0, 0, nm}
#define MEMX(maj, min, k, sz, fl, nm) {maj, min, C_MEMORY, k, SP_NONE, sz, 0, fl, nm}
#define VEC(maj, min, k, sz, nm) {maj, min, C_MEMORY, k, SP_NONE, sz, sz, 0, nm}
#define VAR(maj, min, cl, k, sp, nm) {maj, min, cl, k, sp, 0, 0, 0, nm}

/* Amber's TT6 class macros. Sizes: the PowerPC operand sizes. */
static const isa_row isa[] = {
    /* FLOW_ALTERING: branches, rfi, rfid, sc */
    FLOW(16, -1, "bc"), FLOW(17, -1, "sc"), FLOW(18, -1, "b"),
    FLOW(19, 16, "bclr"), FLOW(19, 18, "rfid"), FLOW(19, 50, "rfi"), FLOW(19, 528, "bcctr"),

    /* MEMORY, D and DS forms */
    MEM(32, -1, CT_LOAD, 4, "lwz"), MEM(33, -1, CT_LOAD, 4, "lwzu"),
    MEM(34, -1, CT_LOAD, 1, "lbz"), MEM(35, -1, CT_LOAD, 1, "lbzu"),
    MEM(36, -1, CT_STORE, 4, "stw"), MEM(37, -1, CT_STORE, 4, "stwu"),
    MEM(38, -1, CT_STORE, 1, "stb"), MEM(39, -1, CT_STORE, 1, "stbu"),
    MEM(40, -1, CT_LOAD, 2, "lhz"), MEM(41, -1, CT_LOAD, 2, "lhzu"),
    MEM(42, -1, CT_LOAD, 2, "lha"), MEM(43, -1, CT_LOAD, 2, "lhau"),
    MEM(44, -1, CT_STORE, 2, "sth"), MEM(45, -1, CT_STORE, 2, "sthu"),
    VAR(46, -1, C_MEMORY, CT_LOAD, SP_MULTIPLE, "lmw"),
    VAR(47, -1, C_MEMORY, CT_STORE, SP_MULTIPLE, "stmw"),
    MEM(48, -1, CT_LOAD, 4, "lfs"), MEM(49, -1, CT_LOAD, 4, "lfsu"),
    MEM(50, -1, CT_LOAD, 8, "lfd"), MEM(51, -1, CT_LOAD, 8, "lfdu"),
    MEM(52, -1, CT_STORE, 4, "stfs"), MEM(53, -1, CT_STORE, 4, "stfsu"),
    MEM(54, -1, CT_STORE, 8, "stfd"), MEM(55, -1, CT_STORE, 8, "stfdu"),
    VAR(58, -1, C_MEMORY, CT_LOAD, SP_DS, "ld/ldu/lwa"),
    VAR(62, -1, C_MEMORY, CT_STORE, SP_DS, "std/stdu/stq"),

    /* MEMORY, X forms under primary opcode 31 */
    MEMX(31, 20, CT_LOAD, 4, CT_F_EXCL, "lwarx"), MEM(31, 21, CT_LOAD, 8, "ldx"),
    MEM(31, 23, CT_LOAD, 4, "lwzx"), MEM(31, 53, CT_LOAD, 8, "ldux"),
    MEM(31, 55, CT_LOAD, 4, "lwzux"), MEMX(31, 84, CT_LOAD, 8, CT_F_EXCL, "ldarx"),
    MEM(31, 87, CT_LOAD, 1, "lbzx"), MEM(31, 119, CT_LOAD, 1, "lbzux"),
    MEM(31, 149, CT_STORE, 8, "stdx"), MEMX(31, 150, CT_STORE, 4, CT_F_EXCL, "stwcx."),
    MEM(31, 151, CT_STORE, 4, "stwx"), MEM(31, 181, CT_STORE, 8, "stdux"),
    MEM(31, 183, CT_STORE, 4, "stwux"), MEMX(31, 214, CT_STORE, 8, CT_F_EXCL, "stdcx."),
    MEM(31, 215, CT_STORE, 1, "stbx"), MEM(31, 247, CT_STORE, 1, "stbux"),
    MEM(31, 279, CT_LOAD, 2, "lhzx"), MEM(31, 310, CT_LOAD, 4, "eciwx"),
    MEM(31, 311, CT_LOAD, 2, "lhzux"), MEM(31, 341, CT_LOAD, 4, "lwax"),
    MEM(31, 343, CT_LOAD, 2, "lhax"), MEM(31, 373, CT_LOAD, 4, "lwaux"),
    MEM(31, 375, CT_LOAD, 2, "lhaux"), MEM(31, 407, CT_STORE, 2, "sthx"),
    MEM(31, 438, CT_STORE, 4, "ecowx"), MEM(31, 439, CT_STORE, 2, "sthux"),
    MEM(31, 534, CT_LOAD, 4, "lwbrx"), MEM(31, 535, CT_LOAD, 4, "lfsx"),
    MEM(31, 567, CT_LOAD, 4, "lfsux"), VAR(31, 597, C_MEMORY, CT_LOAD, SP_STRING_IMM, "lswi"),
    MEM(31, 599, CT_LOAD, 8, "lfdx"), MEM(31, 631, CT_LOAD, 8, "lfdux"),
    MEM(31, 662, CT_STORE, 4, "stwbrx"), MEM(31, 663, CT_STORE, 4, "stfsx"),
    MEM(31, 695, CT_STORE, 4, "stfsux"), VAR(31, 725, C_MEMORY, CT_STORE, SP_STRING_IMM, "stswi"),
    MEM(31, 727, CT_STORE, 8, "stfdx"), MEM(31, 759, CT_STORE, 8, "stfdux"),
    MEM(31, 790, CT_LOAD, 2, "lhbrx"), MEM(31, 918, CT_STORE, 2, "sthbrx"),
    MEM(31, 983, CT_STORE, 4, "stfiwx"),
    /* AltiVec element and vector loads and stores */
    MEM(31, 7, CT_LOAD, 1, "lvebx"), VEC(31, 39, CT_LOAD, 2, "lvehx"),
    VEC(31, 71, CT_LOAD, 4, "lvewx"), VEC(31, 103, CT_LOAD, 16, "lvx"),
    VEC(31, 359, CT_LOAD, 16, "lvxl"), MEM(31, 135, CT_STORE, 1, "stvebx"),
    VEC(31, 167, CT_STORE, 2, "stvehx"), VEC(31, 199, CT_STORE, 4, "stvewx"),
    VEC(31, 231, CT_STORE, 16, "stvx"), VEC(31, 487, CT_STORE, 16, "stvxl"),

    /* MEMORY_EXTENDED */
    VAR(31, 533, C_EXTENDED, CT_LOAD, SP_STRING_XER, "lswx"),
    VAR(31, 661, C_EXTENDED, CT_STORE, SP_STRING_XER, "stswx"),
    VAR(31, 342, C_EXTENDED, CT_PREFETCH, SP_STREAM, "dst"),
    VAR(31, 374, C_EXTENDED, CT_PREFETCH, SP_STREAM, "dstst"),
};

_Static_assert(sizeof isa / sizeof isa[0] + 8 <= 256 - TWO_WORDS, "descriptor numbers");

/* The TT6E DCBX candidates: MEMORY records in TT6E when in [tt6] dcbx. */
typedef struct dcbx_row {
    const char *name;
    uint16_t minor;   /* under primary opcode 31 */
    uint8_t kind, op;
    int iside;        /* sized by the instruction-side line */
} dcbx_row;

static const dcbx_row dcbx[] = {
    {"dcbst", 54, CT_CACHEOP, CT_OP_CLEAN, 0},
    {"dcbf", 86, CT_CACHEOP, CT_OP_CLEAN_INVAL, 0},
    {"dcbtst", 246, CT_PREFETCH, CT_PF_WRITE, 0},
    {"dcbt", 278, CT_PREFETCH, 0, 0},
    {"dcbi", 470, CT_CACHEOP, CT_OP_INVAL, 0},
    {"dcba", 758, CT_CACHEOP, CT_OP_ALLOC, 0},
    {"dcbz", 1014, CT_CACHEOP, CT_OP_ZERO, 0},
    {"icbi", 982, CT_CACHEOP, CT_OP_INVAL | CT_OP_ISIDE, 1},
};

/* The last 16 bytes of a ct_access (size to flags), precomputed per
 * descriptor so that the fast loop copies them with one store. */
#define TAIL_AT offsetof(ct_access, size)
#define TAIL_BYTES (sizeof(ct_access) - TAIL_AT)
_Static_assert(sizeof(ct_access) - offsetof(ct_access, size) == 16, "ct_access tail");

/* What a table slot decodes to, prepared once per stream. 64 bytes, so that
 * the fast loop indexes descriptors with a shift. */
typedef struct desc {
    uint8_t tail[TAIL_BYTES]; /* the data access's size, kind, op, flags */
    uint64_t stop;      /* the fast loop leaves a record to decode_one() when
                           (word 2 | 1 << 32) & stop: 1 << 32 for special
                           records, 3 for flow records (misaligned target) */
    uint32_t amask;     /* EA mask */
    uint32_t size;      /* data bytes (fixed forms) */
    uint32_t flowmask;  /* ~0: the next PC is word 2; 0: PC + 4 */
    uint8_t bytes;      /* record length */
    uint8_t ndata;      /* 1 when a fixed-size data access follows the fetch */
    uint8_t kind, op;
    uint16_t flags;
    uint8_t special;    /* SP_* */
    uint8_t cls;
    const char *name;
    uint8_t unused[8];
} desc;

_Static_assert(sizeof(desc) == 64, "desc size");

enum { TRAP_NONE, TRAP_AFTER_TWI, TRAP_AFTER_B };

typedef struct tt6 {
    ct_stream *s;
    uint32_t thread;      /* of every access: the stream number + 1 */
    int dst_mode;         /* enum tt6_dst */
    uint32_t pc;          /* address of the next instruction */
    uint64_t rec;         /* index of the next record */
    uint64_t counted_rec; /* records already added to info */
    uint64_t counted_off; /* bytes already added to info */
    int trap;             /* TRAP_* (TT6E pair detection) */
    int done;
    /* dst/dstst blocks still to emit */
    uint32_t st_left, st_addr, st_size, st_stride, st_pc;
    uint8_t st_op;
    uint64_t st_time;
    uint32_t nshort, nlong;     /* descriptors used below and from TWO_WORDS */
    desc desc[256];
    uint8_t ent[CHUNK_WORDS];   /* fast loop: the table entry of each word */
    uint8_t tab[65536];   /* INDEX(word) -> desc */
} tt6;

/* ---- helpers ---------------------------------------------------------- */

static inline uint32_t be32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap32(v);
#elif !defined(__BYTE_ORDER__)
    v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
#endif
    return v;
}

/* "FILE: offset O (0xO), record R, WHAT: reason" */
static int fail(const tt6 *d, int code, uint64_t off, uint64_t rec, const char *what,
                ct_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

static int fail(const tt6 *d, int code, uint64_t off, uint64_t rec, const char *what,
                ct_error *err, const char *fmt, ...)
{
    char why[384];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return ct_error_set(err, code, "%s: offset %llu (0x%llx), record %llu, %s: %s",
                        d->s->path, (unsigned long long)off, (unsigned long long)off,
                        (unsigned long long)rec, what, why);
}

static const char *escape_name(unsigned code)
{
    static const char *const low[] = {
        "segment register", "optional data address for next instruction",
        "condition register value", "real address of branch target for next instruction",
        "real data address for next instruction", "real address of next instruction"};
    if (code <= 5)
        return low[code];
    switch (code) {
    case 0x20: return "SYNC_SIGNAL";
    case 0x21: return "SYNC_BROADCAST_SIGNAL";
    case 0x30: return "SYNC_WAIT";
    case 0x31: return "SYNC_TRY_WAIT";
    default: return code >= 0x20 && code <= 0x3f ? "reserved synchronisation code" : NULL;
    }
}

static int dcbx_find(const char *name, size_t len)
{
    for (size_t i = 0; i < CT_ARRAY_LEN(dcbx); i++)
        if (strlen(dcbx[i].name) == len && strncmp(dcbx[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

/* Parse a DCBX list ("dcbz,dcbf icbi", or "none" / empty) into a bit per
 * dcbx[] row. Returns 0, or -1 with the reason in why. */
static int dcbx_parse(const char *text, unsigned *mask, char *why, size_t whyn)
{
    const char *p = text;

    *mask = 0;
    if (strcmp(text, "none") == 0)
        return 0;
    while (*p) {
        const char *q;
        int i;
        while (*p == ',' || *p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        q = p;
        while (*q && *q != ',' && *q != ' ' && *q != '\t')
            q++;
        i = dcbx_find(p, (size_t)(q - p));
        if (i < 0) {
            char list[160] = "";
            for (size_t k = 0; k < CT_ARRAY_LEN(dcbx); k++) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", k ? " " : "", dcbx[k].name);
            }
            snprintf(why, whyn, "\"%.*s\" is not a DCBX instruction (%s, or none)",
                     (int)(q - p), p, list);
            return -1;
        }
        *mask |= 1u << i;
        p = q;
    }
    return 0;
}

static int dcbx_check(const char *text, char *why, size_t whyn)
{
    unsigned mask;
    return dcbx_parse(text, &mask, why, whyn);
}

/* ---- the [tt6] keys ----------------------------------------------------- */

enum tt6_dst { DST_OFF, DST_FIRST, DST_STREAM };

/* What the [tt6] keys set (the schema rows below fill it). */
typedef struct tt6_options {
    int dst;                  /* enum tt6_dst */
    char dcbx[128];           /* TT6E instructions with an address, checked list */
    int keep_trap_pair;       /* 1: fetch TT6E's synthetic b 0x700 / rfi */
} tt6_options;

static const char *const dst_names[] = {"off", "first", "stream", NULL};

static const ct_schema_section tt6_sections[] = {
    {"tt6", 1, "Amber TT6 and TT6E PowerPC traces: choices the format leaves open "
               "(absent: every default)"},
};

#define F(field) offsetof(tt6_options, field), sizeof(((tt6_options *)0)->field)

static const ct_schema_row tt6_rows[] = {
    {0, "dst", CT_VT_ENUM, F(dst), 0, 0, "stream", dst_names, NULL,
     "AltiVec dst/dstst data-stream touches: no access, a software prefetch of the first "
     "block, or one software prefetch per block of the stream the control word describes",
     NULL},
    {0, "dcbx", CT_VT_STRING, F(dcbx), 0, 0, "dcbst,dcbf,dcbtst,dcbt,dcbi,dcba,dcbz",
     NULL, NULL,
     "TT6E only: the instructions whose records carry an effective address (2 words), "
     "comma-separated from dcbst dcbf dcbtst dcbt dcbi dcba dcbz icbi, or none; the others "
     "are 1-word records. A wrong set misframes the trace", dcbx_check},
    {0, "keep_trap_pair", CT_VT_BOOL, F(keep_trap_pair), 0, 1, "no", NULL, NULL,
     "TT6E only: fetch the synthetic b 0x700 / rfi pair written after every twi (no: they "
     "count as instructions without a fetch)", NULL},
};

#undef F

const ct_schema_block ct_tt6_schema =
    CT_SCHEMA_BLOCK(tt6_sections, tt6_rows, sizeof(tt6_options));

/* The line a cache operation covers: the model's (ct_config_op_line), or a
 * G4's without a cache. */
static uint32_t line_of(const struct ct_config *c, int iside)
{
    uint32_t line = ct_config_op_line(c, iside);
    return line ? line : NO_CACHE_LINE;
}

/* ---- tables ------------------------------------------------------------ */

static void set_tail(uint8_t *tail, uint32_t size, int kind, int op, int flags, uint32_t thread)
{
    ct_access a = {.size = size, .thread = thread, .kind = (uint8_t)kind, .op = (uint8_t)op,
                   .flags = (uint16_t)flags};
    memcpy(tail, (const uint8_t *)&a + TAIL_AT, TAIL_BYTES);
}

/* Descriptors of 2-word records the fast loop handles get numbers from
 * TWO_WORDS up, all others below, so that a table entry tells its record's
 * length without a further lookup. */
static uint8_t add_desc(tt6 *d, desc x)
{
    uint32_t *next = (x.bytes == 8 && !x.special) ? &d->nlong : &d->nshort;
    set_tail(x.tail, x.size, x.kind, x.op, x.flags, d->thread);
    x.stop = x.special ? 1ull << 32 : x.cls == C_FLOW ? 3 : 0;
    d->desc[*next] = x;
    return (uint8_t)(*next)++;
}

static void place(tt6 *d, unsigned major, int minor, uint8_t idx)
{
    if (minor < 0)
        memset(d->tab + (major << 10), idx, 1024);
    else
        d->tab[(major << 10) | (unsigned)minor] = idx;
}

static void build_tables(tt6 *d, int tt6e, unsigned dcbx_mask, int keep_pair)
{
    const struct ct_config *c = d->s->cfg;

    d->nshort = 0;
    d->nlong = TWO_WORDS;
    add_desc(d, (desc){.amask = 0, .bytes = 4, .cls = C_COMPUTE, .name = "COMPUTE"});
    memset(d->tab, 0, sizeof d->tab);
    place(d, 0, -1, add_desc(d, (desc){.bytes = 4, .special = SP_ESCAPE, .cls = C_ESCAPE,
                                       .name = "ESCAPE"}));
    for (size_t i = 0; i < CT_ARRAY_LEN(isa); i++) {
        const isa_row *r = &isa[i];
        desc x = {.amask = r->align ? ~(uint32_t)(r->align - 1) : ~0u,
                  .size = r->size,
                  .bytes = r->cls == C_EXTENDED ? 12 : 8,
                  .kind = r->kind,
                  .flags = r->flags,
                  .special = r->special,
                  .cls = r->cls,
                  .name = r->name};
        if (r->cls == C_FLOW) {
            x.flowmask = ~0u;
        } else {
            x.ndata = r->special == SP_NONE;
        }
        place(d, r->major, r->minor, add_desc(d, x));
    }
    if (tt6e) {
        for (size_t i = 0; i < CT_ARRAY_LEN(dcbx); i++) {
            uint32_t line = line_of(c, dcbx[i].iside);
            assert(line <= MAX_ACCESS); /* the schema bounds lines */
            if (!(dcbx_mask & (1u << i)))
                continue;
            place(d, 31, dcbx[i].minor,
                  add_desc(d, (desc){.amask = ~(line - 1), .size = line, .bytes = 8, .ndata = 1,
                                     .kind = dcbx[i].kind, .op = dcbx[i].op, .cls = C_MEMORY,
                                     .name = dcbx[i].name}));
        }
        if (!keep_pair)
            place(d, 3, -1, add_desc(d, (desc){.bytes = 4, .special = SP_TWI, .cls = C_COMPUTE,
                                               .name = "twi"}));
    }
}

/* ---- decoding ---------------------------------------------------------- */

static void count_progress(tt6 *d)
{
    uint64_t off = ct_bytes_offset(d->s->in);
    d->s->info->records += d->rec - d->counted_rec;
    d->s->info->bytes += off - d->counted_off;
    d->counted_rec = d->rec;
    d->counted_off = off;
}

static inline int room(const ct_batch *b)
{
    return b->n + 2 <= b->cap && b->nmk + 1 <= b->mkcap;
}

#ifdef __SSE2__
typedef __m128i tail_t;
#else
typedef struct { uint8_t b[TAIL_BYTES]; } tail_t;
#endif

/* The fetch and the data access of a fast record at a (the data slot is
 * written even when the record has none: the caller counts k->ndata). */
FORCE_INLINE void emit_fast(ct_access *a, const desc *k, uint32_t pc, uint64_t rec, uint32_t w2,
                            tail_t ftail)
{
#ifdef __SSE2__
    const __m128i pct = _mm_set_epi64x((long long)rec, (long long)pc);
    _mm_storeu_si128((__m128i *)(void *)&a[0].vaddr, _mm_cvtsi32_si128((int)pc));
    _mm_storeu_si128((__m128i *)(void *)&a[0].pc, pct);
    _mm_storeu_si128((__m128i *)(void *)&a[0].size, ftail);
    _mm_storeu_si128((__m128i *)(void *)&a[1].vaddr, _mm_cvtsi32_si128((int)(w2 & k->amask)));
    _mm_storeu_si128((__m128i *)(void *)&a[1].pc, pct);
    _mm_storeu_si128((__m128i *)(void *)&a[1].size,
                     _mm_loadu_si128((const __m128i *)(const void *)k->tail));
#else
    a[0].vaddr = pc;
    a[0].paddr = 0;
    a[0].pc = pc;
    a[0].time = rec;
    memcpy((uint8_t *)&a[0] + TAIL_AT, ftail.b, TAIL_BYTES);
    a[1].vaddr = w2 & k->amask;
    a[1].paddr = 0;
    a[1].pc = pc;
    a[1].time = rec;
    memcpy((uint8_t *)&a[1] + TAIL_AT, k->tail, TAIL_BYTES);
#endif
}

/* The table entry of each of n words at p. With SSE2 (a little-endian
 * host) the indices of four words are computed at once from the words as
 * loaded, without swapping bytes: for bytes b0..b3 of a word (b0 the most
 * significant) loaded as v = b0 | b1 << 8 | b2 << 16 | b3 << 24, the major
 * opcode b0 >> 2 lands at bits 10-15 as (v & 0xfc) << 8, and the extended
 * opcode (b3 >> 1) | (b2 & 7) << 7 as v >> 25 | (v >> 9) & 0x380. */
static void classify(const uint8_t *tab, const uint8_t *p, uint8_t *ent, size_t n)
{
    size_t i = 0;
#ifdef __SSE2__
    const __m128i m_major = _mm_set1_epi32(0xfc), m_minor = _mm_set1_epi32(0x380);
    for (; i + 4 <= n; i += 4) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 4 * i));
        const __m128i x = _mm_or_si128(
            _mm_or_si128(_mm_slli_epi32(_mm_and_si128(v, m_major), 8), _mm_srli_epi32(v, 25)),
            _mm_and_si128(_mm_srli_epi32(v, 9), m_minor));
        /* each index fits the low 16 bits of its lane */
        ent[i] = tab[_mm_extract_epi16(x, 0)];
        ent[i + 1] = tab[_mm_extract_epi16(x, 2)];
        ent[i + 2] = tab[_mm_extract_epi16(x, 4)];
        ent[i + 3] = tab[_mm_extract_epi16(x, 6)];
    }
#endif
    for (; i < n; i++)
        ent[i] = tab[INDEX(be32(p + 4 * i))];
}

/*
 * The common records (no escape, no variable size), as many as fit, in two
 * passes over a chunk of words: first every word's table entry (independent
 * lookups), then a walk from record to record that only adds record
 * lengths, so that no table lookup sits on the loop-carried chain.
 */
static void run_fast(tt6 *d, ct_batch *b)
{
    ct_bytes *in = d->s->in;
    const uint8_t *const tab = d->tab;
    const desc *const ds = d->desc;
    uint8_t *const ent = d->ent;
    ct_access *const acc = b->acc;
    uint32_t n = b->n, pc = d->pc;
    uint64_t rec = d->rec;
    uint8_t fetch_tail[TAIL_BYTES];
    tail_t ftail;

    set_tail(fetch_tail, 4, CT_IFETCH, 0, 0, d->thread);
    memcpy(&ftail, fetch_tail, TAIL_BYTES);
    for (;;) {
        const uint8_t *const p0 = ct_bytes_ptr(in);
        /* a record takes at least a word and gives at most 2 accesses: with
         * no more words than half the room left, the batch cannot fill up */
        size_t nw = ct_bytes_avail(in) / 4, j = 0, fit = (size_t)(b->cap - n) / 2;
        if (nw > CHUNK_WORDS)
            nw = CHUNK_WORDS;
        if (nw > fit)
            nw = fit;
        if (nw < 2)
            break;
        classify(tab, p0, ent, nw);
        /* j + 1 < nw: both words of a 2-word record are in the chunk */
        while (j + 1 < nw) {
            const unsigned e = ent[j];
            const desc *k = &ds[e];
            const uint32_t w2 = be32(p0 + 4 * j + 4); /* EA or next PC; garbage for COMPUTE */
            if (UNLIKELY(((uint64_t)w2 | 1ull << 32) & k->stop))
                break; /* escapes, variable sizes, bad flow targets: decode_one() */
            emit_fast(acc + n, k, pc, rec, w2, ftail);
            n += 1u + k->ndata;
            pc = ((pc + 4) & ~k->flowmask) | (w2 & k->flowmask);
            j += 1 + e / TWO_WORDS;
            rec++;
        }
        ct_bytes_skip(in, 4 * j);
        if (j + 1 < nw || ct_bytes_avail(in) < 8)
            break; /* stopped early, or the buffer is nearly used up */
    }
    b->n = n;
    d->pc = pc;
    d->rec = rec;
}

static void put(const tt6 *d, ct_batch *b, uint32_t addr, uint32_t size, int kind, int op,
                int flags, uint32_t pc, uint64_t time)
{
    b->acc[b->n++] = (ct_access){.vaddr = addr, .pc = pc, .time = time, .size = size,
                                 .thread = d->thread, .kind = (uint8_t)kind,
                                 .op = (uint8_t)op, .flags = (uint16_t)flags};
}

/* Emit the pending dst/dstst blocks that fit. */
static void run_stream(tt6 *d, ct_batch *b)
{
    while (d->st_left && b->n < b->cap) {
        put(d, b, d->st_addr, d->st_size, CT_PREFETCH, d->st_op, 0, d->st_pc, d->st_time);
        d->st_addr += d->st_stride;
        d->st_left--;
    }
}

static int escape(tt6 *d, ct_batch *b, uint32_t w, size_t avail, ct_error *err)
{
    ct_bytes *in = d->s->in;
    const uint64_t off = ct_bytes_offset(in);
    const unsigned code = (w >> 16) & 0x3ff, count = w & 0xffff;
    const char *name = escape_name(code);
    const size_t need = 4 + 4 * (size_t)count;
    char what[64], where[96];
    ssize_t got;

    snprintf(what, sizeof what, "ESCAPE 0x%02x", code);
    if (avail < need) {
        got = ct_bytes_fill(in, need, err);
        if (got < 0)
            return (int)got;
        if ((size_t)got < need)
            return fail(d, CT_E_FORMAT, off, d->rec, what, err,
                        "escape count %u runs past the end of the file (%zu payload bytes "
                        "follow, %zu needed)", count, (size_t)got - 4, need - 4);
    }
    snprintf(where, sizeof where, "offset %llu, record %llu", (unsigned long long)off,
             (unsigned long long)d->rec);
    if (code >= 0x20 && code <= 0x3f) {
        const uint8_t *p = ct_bytes_ptr(in);
        if (count >= 2) {
            b->mk[b->nmk++] = (ct_marker){.index = b->n, .type = CT_MK_SYNC,
                                          .thread = d->thread, .aux = code,
                                          .time = d->rec, .value = be32(p + 4),
                                          .value2 = be32(p + 8)};
            if (count > 2)
                ct_stream_warn(d->s, "TT6 sync escape: payload words after the second ignored",
                               where);
        } else {
            ct_stream_warn(d->s, "TT6 sync escape with fewer than 2 payload words: skipped",
                           where);
        }
    } else {
        char kind[96];
        snprintf(kind, sizeof kind, "TT6 escape 0x%02x (%s): skipped", code,
                 name ? name : "undefined code");
        ct_stream_warn(d->s, kind, where);
    }
    ct_bytes_skip(in, need);
    d->rec++;
    return 1;
}

/*
 * Decode one record of any kind (the fast loop's leftovers, escapes,
 * variable sizes, the end of the input). Returns 1 when a record was
 * consumed, 0 at the end, or a negative code.
 */
static int decode_one(tt6 *d, ct_batch *b, ct_error *err)
{
    ct_bytes *in = d->s->in;
    ssize_t got = ct_bytes_fill(in, 12, err);
    size_t avail;
    const uint8_t *p;
    uint64_t off;
    uint32_t w, w2 = 0, w3 = 0, pc = d->pc, size;
    const desc *k;
    char what[48];
    int fetch_kind = CT_IFETCH;

    if (got < 0)
        return (int)got;
    avail = (size_t)got;
    if (avail == 0)
        return 0;
    p = ct_bytes_ptr(in);
    off = ct_bytes_offset(in);
    if (avail < 4) {
        int rc;
        fail(d, CT_E_FORMAT, off, d->rec, "partial word", err,
             "file length is not a multiple of 4: %zu trailing byte%s", avail,
             avail == 1 ? "" : "s");
        rc = ct_stream_malformed(d->s, err, "file length not a multiple of 4");
        if (rc)
            return rc;
        ct_bytes_skip(in, avail);
        return 0;
    }
    w = be32(p);
    k = &d->desc[d->tab[INDEX(w)]];
    if (k->special == SP_ESCAPE)
        return escape(d, b, w, avail, err);
    snprintf(what, sizeof what, "%s%s%s", class_names[k->cls], k->cls == C_COMPUTE ? "" : " ",
             k->cls == C_COMPUTE ? "" : k->name);
    if (avail < k->bytes)
        return fail(d, CT_E_FORMAT, off, d->rec, what, err,
                    "record truncated: %zu of %u bytes", avail, (unsigned)k->bytes);
    if (k->bytes >= 8)
        w2 = be32(p + 4);
    if (k->bytes >= 12)
        w3 = be32(p + 8);
    if (k->cls == C_FLOW && (w2 & 3))
        return fail(d, CT_E_FORMAT, off, d->rec, what, err,
                    "next address 0x%08x is not 4-byte aligned: framing doubtful", w2);

    /* TT6E: the synthetic b 0x700 / rfi pair after a twi */
    if (d->trap == TRAP_AFTER_TWI) {
        d->trap = TRAP_NONE;
        if ((w >> 26) == 18 && w2 == TRAP_VECTOR) {
            fetch_kind = CT_NOFETCH;
            d->trap = TRAP_AFTER_B;
        }
    } else if (d->trap == TRAP_AFTER_B) {
        d->trap = TRAP_NONE;
        if ((w >> 26) == 19 && ((w >> 1) & 0x3ff) == 50)
            fetch_kind = CT_NOFETCH;
    }
    if (k->special == SP_TWI)
        d->trap = TRAP_AFTER_TWI;

    put(d, b, pc, 4, fetch_kind, 0, 0, pc, d->rec);
    switch (k->special) {
    case SP_NONE:
        if (k->ndata)
            put(d, b, w2 & k->amask, k->size, k->kind, k->op, k->flags, pc, d->rec);
        break;
    case SP_MULTIPLE:
        put(d, b, w2, 4 * (32 - ((w >> 21) & 31)), k->kind, 0, 0, pc, d->rec);
        break;
    case SP_STRING_IMM:
        size = (w >> 11) & 31;
        put(d, b, w2, size ? size : 32, k->kind, 0, 0, pc, d->rec);
        break;
    case SP_STRING_XER:
        if ((size = w3 & 0x7f) != 0)
            put(d, b, w2, size, k->kind, 0, 0, pc, d->rec);
        break;
    case SP_DS: {
        static const uint8_t load[4] = {8, 8, 4, 8}, store[4] = {8, 8, 16, 8};
        put(d, b, w2, (k->kind == CT_LOAD ? load : store)[w & 3], k->kind, 0, 0, pc, d->rec);
        break;
    }
    case SP_STREAM:
        if (d->dst_mode != DST_OFF) {
            uint32_t vecs = (w3 >> 24) & 31, blocks = (w3 >> 16) & 0xff;
            int32_t stride = (int16_t)(w3 & 0xffff);
            d->st_size = 16 * (vecs ? vecs : 32);
            d->st_left = d->dst_mode == DST_FIRST ? 1 : (blocks ? blocks : 256);
            d->st_stride = stride ? (uint32_t)stride : 32768u;
            d->st_addr = w2;
            d->st_op = (uint8_t)((((w >> 1) & 0x3ff) == 374 ? CT_PF_WRITE : 0) |
                                 ((w >> 25) & 1 ? CT_PF_NT : 0));
            d->st_pc = pc;
            d->st_time = d->rec;
        }
        break;
    default:
        break;
    }
    d->pc = (k->cls == C_FLOW) ? w2 : pc + 4;
    ct_bytes_skip(in, k->bytes);
    d->rec++;
    return 1;
}

static int tt6_next(void *st, ct_batch *b, ct_error *err)
{
    tt6 *d = st;
    ct_bytes *in = d->s->in;
    const uint64_t start = ct_bytes_offset(in);
    int rc = 1;

    if (d->done)
        return 0;
    while (ct_bytes_offset(in) - start < CT_DECODE_SLICE) {
        if (d->st_left) {
            run_stream(d, b);
            if (d->st_left)
                break;
        }
        if (!room(b))
            break;
        if (ct_bytes_avail(in) < FAST_FILL && !in->eof) {
            ssize_t got = ct_bytes_fill(in, FAST_FILL, err);
            if (got < 0) {
                rc = (int)got;
                break;
            }
        }
        if (d->trap == TRAP_NONE) {
            run_fast(d, b);
            if (!room(b))
                break;
        }
        rc = decode_one(d, b, err);
        if (rc <= 0) {
            if (rc == 0)
                d->done = 1;
            break;
        }
    }
    count_progress(d);
    return rc < 0 ? rc : (d->done ? 0 : 1);
}

/* ---- open / close ------------------------------------------------------- */

static int open_dialect(void **st, ct_stream *s, int tt6e, ct_error *err)
{
    const tt6_options *o = ct_config_options(s->cfg, &ct_tt6_schema);
    tt6 *d = calloc(1, sizeof *d);
    unsigned mask = 0;
    char why[256];
    ssize_t got;
    uint32_t w;

    if (!d)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", s->path);
    d->s = s;
    d->thread = s->index + 1;
    d->dst_mode = o->dst;
    if (dcbx_parse(o->dcbx, &mask, why, sizeof why) != 0) {
        free(d);
        return ct_error_set(err, CT_E_CONFIG, "[tt6] dcbx: %s", why);
    }
    build_tables(d, tt6e, mask, o->keep_trap_pair);

    /* INITIAL_PC */
    got = ct_bytes_fill(s->in, 4, err);
    if (got < 0) {
        free(d);
        return (int)got;
    }
    if (got < 4) {
        int rc = got == 0 ? ct_error_set(err, CT_E_FORMAT, "%s: empty file: no INITIAL_PC word",
                                         s->path)
                          : fail(d, CT_E_FORMAT, 0, 0, "INITIAL_PC", err,
                                 "record truncated: %zd of 4 bytes", got);
        free(d);
        return rc;
    }
    w = be32(ct_bytes_ptr(s->in));
    if (w == FULL_MAGIC || (w & 3)) {
        int rc = w == FULL_MAGIC
                     ? fail(d, CT_E_UNSUPPORTED, 0, 0, "INITIAL_PC", err,
                            "magic 0xA1118E17: an Amber FULL trace (register state, no "
                            "addresses); the FULL format is not supported, only TT6 and TT6E")
                     : fail(d, CT_E_FORMAT, 0, 0, "INITIAL_PC", err,
                            "0x%08x is not 4-byte aligned: not a TT6 trace, or framing doubtful",
                            w);
        free(d);
        return rc;
    }
    d->pc = w;
    d->rec = 1;
    s->sizes_bounded = MAX_ACCESS <= CT_MAX_ACCESS_BYTES;
    ct_bytes_skip(s->in, 4);
    count_progress(d);
    *st = d;
    return CT_OK;
}

static int tt6_open(void **st, ct_stream *s, ct_error *err) { return open_dialect(st, s, 0, err); }
static int tt6e_open(void **st, ct_stream *s, ct_error *err) { return open_dialect(st, s, 1, err); }

static void tt6_close(void *st) { free(st); }

/* TT6 and TT6E have no magic: only a FULL trace's magic is claimed, so that
 * open() can refuse it by name instead of "unknown format". */
static int tt6_probe(const uint8_t *h, size_t n)
{
    return n >= 4 && be32(h) == FULL_MAGIC ? 100 : 0;
}

/* ---- directories ----------------------------------------------------------- */

static int by_version(const void *a, const void *b)
{
    return strverscmp(*(char *const *)a, *(char *const *)b);
}

static int tt6_list_dir(const char *dir, int (*fn)(void *ctx, const char *path, int trace),
                        void *ctx, ct_error *err)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    char **names = NULL, path[PATH_MAX];
    size_t n = 0, cap = 0;
    int rc = CT_OK;

    if (!dp)
        return ct_error_set(err, CT_E_IO, "%s: cannot open directory: %s", dir, strerror(errno));
    while (rc == CT_OK && (e = readdir(dp)) != NULL) {
        struct stat sb;
        if (e->d_name[0] == '.' || !strstr(e->d_name, ".tt6"))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 16;
            char **v = realloc(names, nc * sizeof *v);
            if (!v) {
                rc = ct_error_set(err, CT_E_NOMEM, "%s: out of memory", dir);
                break;
            }
            names = v;
            cap = nc;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = ct_error_set(err, CT_E_NOMEM, "%s: out of memory", dir);
            break;
        }
        n++;
    }
    closedir(dp);
    if (rc == CT_OK && n)
        qsort(names, n, sizeof *names, by_version);
    for (size_t i = 0; i < n; i++) {
        if (rc == CT_OK) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            rc = fn(ctx, path, 1);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

const ct_format_ops ct_format_tt6 = {
    .name = "tt6",
    .desc = "Amber TT6 PowerPC instruction traces (binary; name it with -f tt6, options in [tt6])",
    .max_per_record = 2,
    .default_schedule = CT_SCHED_THREADS,
    .probe = tt6_probe,
    .list_dir = tt6_list_dir,
    .one_thread = 1,
    .no_magic = 1,
    .open = tt6_open, .next = tt6_next, .close = tt6_close,
};

const ct_format_ops ct_format_tt6e = {
    .name = "tt6e",
    .desc = "Amber TT6E PowerPC instruction traces (TT6 plus DCBX addresses and the twi pair)",
    .max_per_record = 2,
    .default_schedule = CT_SCHED_THREADS,
    .probe = tt6_probe,
    .list_dir = tt6_list_dir,
    .one_thread = 1,
    .no_magic = 1,
    .open = tt6e_open, .next = tt6_next, .close = tt6_close,
};
