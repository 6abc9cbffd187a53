/*
 * tt6_asm.h - a small PowerPC assembler and TT6 trace builder for the tests.
 *
 * asm_ops[] is written from the PowerPC opcode tables and Amber's TT6 class
 * lists, independently of the decoder's own table: every instruction a class
 * list names, with its encoding, its record class and the access a decoder
 * must make of it. The tests assemble words from it, build traces with the
 * tt6_buf helpers and compare what cachet decodes with what the table says.
 */
#ifndef CT_TT6_ASM_H
#define CT_TT6_ASM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cachet/access.h"

enum asm_class { AC_COMPUTE, AC_FLOW, AC_MEMORY, AC_EXTENDED, AC_DCBX };

/* Sizes that come from the instruction or the record. */
enum asm_size {
    AS_MULTIPLE = -1, /* lmw, stmw: 4 x (32 - RT) */
    AS_NB = -2,       /* lswi, stswi: NB, 0 = 32 */
    AS_XER = -3,      /* lswx, stswx: XER & 0x7f from the third word */
    AS_STREAM = -4,   /* dst, dstst: blocks from the third word */
    AS_LINE = -5      /* DCBX: one cache line */
};

/* Instruction forms, for the encoder. */
enum asm_form { AF_D, AF_DS, AF_X, AF_XL, AF_I, AF_B, AF_SC };

typedef struct asm_op {
    const char *name;
    unsigned major;
    int xo;          /* extended opcode (X, XL forms), DS sub-opcode, or -1 */
    int form;        /* enum asm_form */
    int cls;         /* enum asm_class */
    int kind;        /* CT_LOAD, CT_STORE, CT_PREFETCH, CT_CACHEOP; -1 none */
    int size;        /* bytes, or enum asm_size */
    unsigned align;  /* the EA is aligned down to this (AltiVec); 1: as is */
    int op;          /* CT_OP_* or CT_PF_* */
    const char *base;/* update forms: the form without update */
    int excl;        /* load-reserve / store-conditional */
} asm_op;

#define A_FLOW(nm, maj, x, f) {nm, maj, x, f, AC_FLOW, -1, 0, 1, 0, NULL, 0}
#define A_LD(nm, maj, sz, base) {nm, maj, -1, AF_D, AC_MEMORY, CT_LOAD, sz, 1, 0, base, 0}
#define A_ST(nm, maj, sz, base) {nm, maj, -1, AF_D, AC_MEMORY, CT_STORE, sz, 1, 0, base, 0}
#define A_LX(nm, x, sz, base) {nm, 31, x, AF_X, AC_MEMORY, CT_LOAD, sz, 1, 0, base, 0}
#define A_SX(nm, x, sz, base) {nm, 31, x, AF_X, AC_MEMORY, CT_STORE, sz, 1, 0, base, 0}
#define A_VL(nm, x, sz) {nm, 31, x, AF_X, AC_MEMORY, CT_LOAD, sz, sz, 0, NULL, 0}
#define A_VS(nm, x, sz) {nm, 31, x, AF_X, AC_MEMORY, CT_STORE, sz, sz, 0, NULL, 0}
#define A_DC(nm, x, k, o) {nm, 31, x, AF_X, AC_DCBX, k, AS_LINE, 1, o, NULL, 0}
#define A_C(nm, maj, x, f) {nm, maj, x, f, AC_COMPUTE, -1, 0, 1, 0, NULL, 0}

static const asm_op asm_ops[] = {
    /* FLOW_ALTERING */
    A_FLOW("b", 18, -1, AF_I), A_FLOW("bc", 16, -1, AF_B), A_FLOW("sc", 17, -1, AF_SC),
    A_FLOW("bclr", 19, 16, AF_XL), A_FLOW("bcctr", 19, 528, AF_XL),
    A_FLOW("rfi", 19, 50, AF_XL), A_FLOW("rfid", 19, 18, AF_XL),

    /* MEMORY, D form */
    A_LD("lwz", 32, 4, NULL), A_LD("lwzu", 33, 4, "lwz"), A_LD("lbz", 34, 1, NULL),
    A_LD("lbzu", 35, 1, "lbz"), A_ST("stw", 36, 4, NULL), A_ST("stwu", 37, 4, "stw"),
    A_ST("stb", 38, 1, NULL), A_ST("stbu", 39, 1, "stb"), A_LD("lhz", 40, 2, NULL),
    A_LD("lhzu", 41, 2, "lhz"), A_LD("lha", 42, 2, NULL), A_LD("lhau", 43, 2, "lha"),
    A_ST("sth", 44, 2, NULL), A_ST("sthu", 45, 2, "sth"),
    A_LD("lmw", 46, AS_MULTIPLE, NULL), A_ST("stmw", 47, AS_MULTIPLE, NULL),
    A_LD("lfs", 48, 4, NULL), A_LD("lfsu", 49, 4, "lfs"), A_LD("lfd", 50, 8, NULL),
    A_LD("lfdu", 51, 8, "lfd"), A_ST("stfs", 52, 4, NULL), A_ST("stfsu", 53, 4, "stfs"),
    A_ST("stfd", 54, 8, NULL), A_ST("stfdu", 55, 8, "stfd"),

    /* MEMORY, DS form (PPC64) */
    {"ld", 58, 0, AF_DS, AC_MEMORY, CT_LOAD, 8, 1, 0, NULL, 0},
    {"ldu", 58, 1, AF_DS, AC_MEMORY, CT_LOAD, 8, 1, 0, "ld", 0},
    {"lwa", 58, 2, AF_DS, AC_MEMORY, CT_LOAD, 4, 1, 0, NULL, 0},
    {"std", 62, 0, AF_DS, AC_MEMORY, CT_STORE, 8, 1, 0, NULL, 0},
    {"stdu", 62, 1, AF_DS, AC_MEMORY, CT_STORE, 8, 1, 0, "std", 0},
    {"stq", 62, 2, AF_DS, AC_MEMORY, CT_STORE, 16, 1, 0, NULL, 0},

    /* MEMORY, X form */
    {"lwarx", 31, 20, AF_X, AC_MEMORY, CT_LOAD, 4, 1, 0, NULL, 1},
    A_LX("ldx", 21, 8, NULL), A_LX("lwzx", 23, 4, NULL), A_LX("ldux", 53, 8, "ldx"),
    A_LX("lwzux", 55, 4, "lwzx"),
    {"ldarx", 31, 84, AF_X, AC_MEMORY, CT_LOAD, 8, 1, 0, NULL, 1},
    A_LX("lbzx", 87, 1, NULL), A_LX("lbzux", 119, 1, "lbzx"), A_SX("stdx", 149, 8, NULL),
    {"stwcx.", 31, 150, AF_X, AC_MEMORY, CT_STORE, 4, 1, 0, NULL, 1},
    A_SX("stwx", 151, 4, NULL), A_SX("stdux", 181, 8, "stdx"), A_SX("stwux", 183, 4, "stwx"),
    {"stdcx.", 31, 214, AF_X, AC_MEMORY, CT_STORE, 8, 1, 0, NULL, 1},
    A_SX("stbx", 215, 1, NULL), A_SX("stbux", 247, 1, "stbx"), A_LX("lhzx", 279, 2, NULL),
    A_LX("eciwx", 310, 4, NULL), A_LX("lhzux", 311, 2, "lhzx"), A_LX("lwax", 341, 4, NULL),
    A_LX("lhax", 343, 2, NULL), A_LX("lwaux", 373, 4, "lwax"), A_LX("lhaux", 375, 2, "lhax"),
    A_SX("sthx", 407, 2, NULL), A_SX("ecowx", 438, 4, NULL), A_SX("sthux", 439, 2, "sthx"),
    A_LX("lwbrx", 534, 4, NULL), A_LX("lfsx", 535, 4, NULL), A_LX("lfsux", 567, 4, "lfsx"),
    A_LX("lswi", 597, AS_NB, NULL), A_LX("lfdx", 599, 8, NULL), A_LX("lfdux", 631, 8, "lfdx"),
    A_SX("stwbrx", 662, 4, NULL), A_SX("stfsx", 663, 4, NULL), A_SX("stfsux", 695, 4, "stfsx"),
    A_SX("stswi", 725, AS_NB, NULL), A_SX("stfdx", 727, 8, NULL),
    A_SX("stfdux", 759, 8, "stfdx"), A_LX("lhbrx", 790, 2, NULL), A_SX("sthbrx", 918, 2, NULL),
    A_SX("stfiwx", 983, 4, NULL),
    /* AltiVec */
    A_LX("lvebx", 7, 1, NULL), A_VL("lvehx", 39, 2), A_VL("lvewx", 71, 4),
    A_VL("lvx", 103, 16), A_VL("lvxl", 359, 16), A_SX("stvebx", 135, 1, NULL),
    A_VS("stvehx", 167, 2), A_VS("stvewx", 199, 4), A_VS("stvx", 231, 16),
    A_VS("stvxl", 487, 16),

    /* MEMORY_EXTENDED */
    {"lswx", 31, 533, AF_X, AC_EXTENDED, CT_LOAD, AS_XER, 1, 0, NULL, 0},
    {"stswx", 31, 661, AF_X, AC_EXTENDED, CT_STORE, AS_XER, 1, 0, NULL, 0},
    {"dst", 31, 342, AF_X, AC_EXTENDED, CT_PREFETCH, AS_STREAM, 1, 0, NULL, 0},
    {"dstst", 31, 374, AF_X, AC_EXTENDED, CT_PREFETCH, AS_STREAM, 1, CT_PF_WRITE, NULL, 0},

    /* DCBX: COMPUTE in TT6, MEMORY in TT6E (default set) */
    A_DC("dcbst", 54, CT_CACHEOP, CT_OP_CLEAN), A_DC("dcbf", 86, CT_CACHEOP, CT_OP_CLEAN_INVAL),
    A_DC("dcbtst", 246, CT_PREFETCH, CT_PF_WRITE), A_DC("dcbt", 278, CT_PREFETCH, 0),
    A_DC("dcbi", 470, CT_CACHEOP, CT_OP_INVAL), A_DC("dcba", 758, CT_CACHEOP, CT_OP_ALLOC),
    A_DC("dcbz", 1014, CT_CACHEOP, CT_OP_ZERO),

    /* COMPUTE, including cache, stream and barrier instructions not listed */
    A_C("addi", 14, -1, AF_D), A_C("add", 31, 266, AF_X), A_C("twi", 3, -1, AF_D),
    A_C("tw", 31, 4, AF_X), A_C("tdi", 2, -1, AF_D), A_C("td", 31, 68, AF_X),
    A_C("isync", 19, 150, AF_XL), A_C("sync", 31, 598, AF_X), A_C("eieio", 31, 854, AF_X),
    A_C("tlbie", 31, 306, AF_X), A_C("tlbsync", 31, 566, AF_X), A_C("dss", 31, 822, AF_X),
    A_C("lvsl", 31, 6, AF_X), A_C("lvsr", 31, 38, AF_X), A_C("icbi", 31, 982, AF_X),
    A_C("mfspr", 31, 339, AF_X), A_C("ldbrx", 31, 532, AF_X), A_C("stdbrx", 31, 660, AF_X),
    A_C("lq", 56, -1, AF_D), A_C("ori", 24, -1, AF_D), A_C("rlwinm", 21, -1, AF_D),
    A_C("crand", 19, 257, AF_XL), A_C("mcrf", 19, 0, AF_XL),
};

#define ASM_NOPS (sizeof asm_ops / sizeof asm_ops[0])

static inline const asm_op *asm_find(const char *name)
{
    for (size_t i = 0; i < ASM_NOPS; i++)
        if (strcmp(asm_ops[i].name, name) == 0)
            return &asm_ops[i];
    return NULL;
}

/* Encode with register fields rt (RT/RS/VD/TO/BO), ra, and rb (RB, NB, or
 * the low 16 bits of D for D forms; the branch offset for I/B forms). */
static inline uint32_t asm_enc(const asm_op *o, unsigned rt, unsigned ra, unsigned rb)
{
    uint32_t w = (uint32_t)o->major << 26;
    switch (o->form) {
    case AF_D: return w | (rt & 31) << 21 | (ra & 31) << 16 | (rb & 0xffff);
    case AF_DS: return w | (rt & 31) << 21 | (ra & 31) << 16 | (rb & 0xfffc) | (unsigned)o->xo;
    case AF_X:
    case AF_XL:
        return w | (rt & 31) << 21 | (ra & 31) << 16 | (rb & 31) << 11 | (unsigned)o->xo << 1;
    case AF_I: return w | (rb & 0x03fffffc);
    case AF_B: return w | (rt & 31) << 21 | (ra & 31) << 16 | (rb & 0xfffc);
    case AF_SC: return w | 2;
    }
    return w;
}

/* Assemble by name (aborts the test program on a typo). */
static inline uint32_t asm_word(const char *name, unsigned rt, unsigned ra, unsigned rb)
{
    const asm_op *o = asm_find(name);
    if (!o)
        abort();
    return asm_enc(o, rt, ra, rb);
}

/* ---- traces: big-endian words in a growing buffer ---- */

typedef struct tt6_buf {
    uint8_t *p;
    size_t n, cap;
} tt6_buf;

static inline void tb_bytes(tt6_buf *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p)
            abort();
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static inline void tb_word(tt6_buf *b, uint32_t w)
{
    uint8_t be[4] = {(uint8_t)(w >> 24), (uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w};
    tb_bytes(b, be, 4);
}

/* An escape header: code, count of payload words. */
static inline void tb_escape(tt6_buf *b, unsigned code, unsigned count)
{
    tb_word(b, (code & 0x3ff) << 16 | (count & 0xffff));
}

static inline void tb_free(tt6_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

#endif
