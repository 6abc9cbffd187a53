/*
 * test_tt6.c - the Amber TT6/TT6E frontend and writer: every class-table row,
 * the whole opcode space, escapes, PC reconstruction, the TT6E differences,
 * dialect options, threads, malformed input, and round trips through the
 * writer. Traces are assembled here (tt6_asm.h) and written to temporary
 * files; expectations come from the test's own table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cachet/cachet.h"
#include "harness.h"
#include "tt6_asm.h"

/* ---- decoding a trace into arrays ---------------------------------------- */

typedef struct decoded {
    ct_access *acc;
    size_t n, cap;
    ct_marker *mk;     /* index = global access index */
    size_t nmk, mkcap;
    uint64_t records, bytes, threads, malformed, warnings;
    uint32_t streams;
    int rc;
    ct_error err;
} decoded;

static void dec_free(decoded *d)
{
    free(d->acc);
    free(d->mk);
    memset(d, 0, sizeof *d);
}

static char tmpdir[256];

static void make_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/cachet-tt6-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir))
        abort();
}

/* Write bytes to tmpdir/name; returns the path (static buffer per call slot). */
static const char *put_file(const char *name, const void *p, size_t n)
{
    static char paths[8][512];
    static int slot;
    char *path = paths[slot++ % 8];
    FILE *f;

    snprintf(path, 512, "%s/%s", tmpdir, name);
    f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
        abort();
    return path;
}

/* Decode paths with format and "-s" settings (NULL-terminated), in batches of
 * batch_cap accesses. */
static void decode_paths(const char *const *paths, size_t npaths, const char *format,
                         const char *const *sets, uint32_t batch_cap, decoded *d)
{
    ct_config *cfg = NULL;
    ct_trace *t = NULL;
    ct_trace_opts o = {0};
    ct_batch b = {0};
    int rc;

    memset(d, 0, sizeof *d);
    if (ct_config_new_default(&cfg, &d->err) != CT_OK)
        abort();
    for (size_t i = 0; sets && sets[i]; i++)
        if (ct_config_set(cfg, sets[i], &d->err) != CT_OK) {
            fprintf(stderr, "setting %s: %s\n", sets[i], d->err.msg);
            abort();
        }
    o.format = format;
    o.cfg = cfg;
    rc = ct_trace_open(&t, paths, npaths, &o, &d->err);
    if (rc == CT_OK && ct_batch_init(&b, batch_cap) != CT_OK)
        abort();
    while (rc == CT_OK && (rc = ct_trace_next(t, &b, &d->err)) > 0) {
        size_t base = d->n;
        for (uint32_t i = 0; i < b.nmk; i++) {
            if (d->nmk == d->mkcap) {
                d->mkcap = d->mkcap ? 2 * d->mkcap : 64;
                d->mk = realloc(d->mk, d->mkcap * sizeof *d->mk);
            }
            d->mk[d->nmk] = b.mk[i];
            d->mk[d->nmk++].index = (uint32_t)(base + b.mk[i].index);
        }
        if (d->n + b.n > d->cap) {
            while (d->n + b.n > d->cap)
                d->cap = d->cap ? 2 * d->cap : 1024;
            d->acc = realloc(d->acc, d->cap * sizeof *d->acc);
        }
        if (b.n)
            memcpy(d->acc + d->n, b.acc, b.n * sizeof *b.acc);
        d->n += b.n;
        rc = CT_OK;
    }
    d->rc = rc;
    if (t) {
        const ct_trace_info *ti = ct_trace_get_info(t);
        d->records = ti->records;
        d->bytes = ti->bytes;
        d->threads = ti->threads;
        d->malformed = ti->malformed;
        d->streams = ti->streams;
        for (uint32_t i = 0; i < ti->nwarnings; i++)
            d->warnings += ti->warnings[i].count;
    }
    ct_batch_free(&b);
    ct_trace_close(t);
    ct_config_free(cfg);
}

static void decode_buf(const tt6_buf *tb, const char *format, const char *const *sets,
                       decoded *d)
{
    const char *path = put_file("t.tt6", tb->p, tb->n);
    decode_paths(&path, 1, format, sets, 1u << 12, d);
}

/* ---- expectations ----------------------------------------------------------- */

#define INIT_PC 0x10000u
#define FAR_PC 0x00804000u
#define EA 0x12345677u      /* odd, so that masks show */
#define LINE 64u            /* the default configuration's L1D line */

typedef struct want {
    int kind;               /* -1: no data access */
    uint64_t addr;
    uint32_t size;
    int op;
    int excl;
} want;

/* The data access the test table says an instruction makes. */
static want expect(const asm_op *o, uint32_t word, uint32_t ea, uint32_t extra, int tt6e,
                   uint32_t line)
{
    want w = {-1, 0, 0, 0, 0};
    int cls = o->cls == AC_DCBX ? (tt6e ? AC_MEMORY : AC_COMPUTE) : o->cls;

    if (cls != AC_MEMORY && cls != AC_EXTENDED)
        return w;
    w.kind = o->kind;
    w.addr = ea & ~(uint32_t)(o->align - 1);
    w.op = o->op;
    w.excl = o->excl;
    switch (o->size) {
    case AS_MULTIPLE: w.size = 4 * (32 - ((word >> 21) & 31)); break;
    case AS_NB: w.size = ((word >> 11) & 31) ? ((word >> 11) & 31) : 32; break;
    case AS_XER:
        w.size = extra & 0x7f;
        if (!w.size)
            w.kind = -1;
        break;
    case AS_STREAM: /* with [tt6] dst = first */
        w.size = 16 * (((extra >> 24) & 31) ? ((extra >> 24) & 31) : 32);
        if ((word >> 25) & 1)
            w.op |= CT_PF_NT;
        break;
    case AS_LINE:
        w.size = line;
        w.addr = ea & ~(line - 1);
        break;
    default: w.size = (uint32_t)o->size;
    }
    return w;
}

static int record_words(const asm_op *o, int tt6e)
{
    switch (o->cls) {
    case AC_FLOW:
    case AC_MEMORY: return 2;
    case AC_EXTENDED: return 3;
    case AC_DCBX: return tt6e ? 2 : 1;
    default: return 1;
    }
}

/* Append one instruction record for o (flows go to `next`). */
static void put_insn(tt6_buf *tb, const asm_op *o, uint32_t word, uint32_t ea, uint32_t extra,
                     uint32_t next, int tt6e)
{
    int words = record_words(o, tt6e);
    tb_word(tb, word);
    if (words >= 2)
        tb_word(tb, o->cls == AC_FLOW ? next : ea);
    if (words == 3)
        tb_word(tb, extra);
}

static int same_access(const ct_access *a, int kind, uint64_t addr, uint32_t size)
{
    return a->kind == kind && a->vaddr == addr && a->size == size;
}

/* Register fields that give sizes worth checking. */
static uint32_t sample_word(const asm_op *o)
{
    if (o->size == AS_MULTIPLE)
        return asm_enc(o, 29, 1, 0);      /* 12 bytes */
    if (o->size == AS_NB)
        return asm_enc(o, 3, 4, 7);       /* 7 bytes */
    if (o->form == AF_DS)
        return asm_enc(o, 3, 4, 0x7ff8);
    return asm_enc(o, 3, 4, 5);
}

/* ---- every row of the class tables ------------------------------------------ */

/* Each table row as the only instruction between two canaries: the fetches,
 * the data access and the canary after it (framing) must match the table. */
static void every_row(int tt6e)
{
    static const char *const sets[] = {"tt6.dst=first", NULL};
    const uint32_t extra_xer = 0x2000008b, extra_dst = 0x03020040; /* XER: 11 bytes */
    const uint32_t canary = asm_word("lwz", 9, 1, 8);

    for (size_t i = 0; i < ASM_NOPS; i++) {
        const asm_op *o = &asm_ops[i];
        tt6_buf tb = {0};
        decoded d;
        uint32_t word = sample_word(o);
        uint32_t extra = o->size == AS_XER ? extra_xer : extra_dst;
        uint32_t next = o->cls == AC_FLOW ? FAR_PC : INIT_PC + 4;
        want w = expect(o, word, EA, extra, tt6e, LINE);
        size_t k = 0;
        int ok;

        tb_word(&tb, INIT_PC);
        put_insn(&tb, o, word, EA, extra, next, tt6e);
        tb_word(&tb, canary);
        tb_word(&tb, 0xcafe0000u);
        decode_buf(&tb, tt6e ? "tt6e" : "tt6", sets, &d);
        ok = d.rc == 0 && d.n >= 3 && same_access(&d.acc[k++], CT_IFETCH, INIT_PC, 4);
        if (ok && w.kind >= 0) {
            const ct_access *a = &d.acc[k++];
            ok = same_access(a, w.kind, w.addr, w.size) && a->op == w.op &&
                 !!(a->flags & CT_F_EXCL) == w.excl && a->pc == INIT_PC;
        }
        ok = ok && d.n == k + 2 && same_access(&d.acc[k], CT_IFETCH, next, 4) &&
             same_access(&d.acc[k + 1], CT_LOAD, 0xcafe0000u, 4);
        if (!ok)
            fprintf(stderr, "%s: row %s decoded wrongly (rc %d, %zu accesses) %s\n",
                    tt6e ? "tt6e" : "tt6", o->name, d.rc, d.n, d.err.msg);
        CHECK(ok);
        CHECK_EQ_U64(d.records, 3);
        dec_free(&d);
        tb_free(&tb);
    }
}

TEST(every_class_row_decodes_to_its_class_and_size_tt6) { every_row(0); }
TEST(every_class_row_decodes_to_its_class_and_size_tt6e) { every_row(1); }

/* ---- the whole opcode space --------------------------------------------------- */

static const asm_op *row_for(unsigned major, unsigned minor)
{
    for (size_t i = 0; i < ASM_NOPS; i++) {
        const asm_op *o = &asm_ops[i];
        if (o->major != major)
            continue;
        if (major == 19 || major == 31) {
            if (o->xo == (int)minor)
                return o;
        } else if (o->form != AF_DS || o->xo == 0) {
            return o;
        }
    }
    return NULL;
}

/* Every primary opcode, and every extended opcode under 19 and 31, in one
 * trace: one misclassified word would shift everything after it. */
static void opcode_space(int tt6e)
{
    static const char *const sets[] = {"tt6.dst=first", NULL};
    static const asm_op compute = A_C("?", 0, -1, AF_D);
    tt6_buf tb = {0};
    decoded d;
    want *wants = calloc(70000, sizeof *wants);
    size_t nw = 0, k = 0, bad = 0;
    uint32_t pc = INIT_PC;

    tb_word(&tb, INIT_PC);
    for (unsigned major = 1; major < 64; major++) {
        unsigned nminor = (major == 19 || major == 31) ? 1024 : 1;
        for (unsigned minor = 0; minor < nminor; minor++) {
            const asm_op *o = row_for(major, minor);
            uint32_t word = major << 26 | minor << 1 | 3u << 21 | 4u << 16;
            uint32_t ea = 0x40000000u + (uint32_t)nw * 16, extra = 0x01010005;
            if (!o)
                o = &compute;
            put_insn(&tb, o, word, ea, extra, pc + 4, tt6e);
            wants[nw] = expect(o, word, ea, extra, tt6e, LINE);
            wants[nw].addr |= (uint64_t)pc << 32; /* pc of the fetch, for the check */
            nw++;
            pc += 4;
        }
    }
    decode_buf(&tb, tt6e ? "tt6e" : "tt6", sets, &d);
    CHECK_EQ_U64(d.rc, 0);
    for (size_t i = 0; i < nw && !bad; i++) {
        uint32_t ipc = (uint32_t)(wants[i].addr >> 32);
        if (k >= d.n || !same_access(&d.acc[k], CT_IFETCH, ipc, 4)) {
            fprintf(stderr, "opcode space (%s): fetch %zu at 0x%x wrong\n",
                    tt6e ? "tt6e" : "tt6", i, ipc);
            bad++;
            break;
        }
        k++;
        if (wants[i].kind >= 0) {
            if (k >= d.n || !same_access(&d.acc[k], wants[i].kind, (uint32_t)wants[i].addr,
                                         wants[i].size)) {
                fprintf(stderr, "opcode space (%s): data of instruction %zu wrong\n",
                        tt6e ? "tt6e" : "tt6", i);
                bad++;
            }
            k++;
        }
    }
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(k, d.n);
    CHECK_EQ_U64(d.records, nw + 1);
    free(wants);
    dec_free(&d);
    tb_free(&tb);
}

TEST(opcode_space_keeps_framing_tt6) { opcode_space(0); }
TEST(opcode_space_keeps_framing_tt6e) { opcode_space(1); }

/* ---- forms -------------------------------------------------------------------- */

/* Each update form makes the access of the form without update. */
TEST(update_forms_access_like_their_base_forms)
{
    size_t pairs = 0;
    for (size_t i = 0; i < ASM_NOPS; i++) {
        const asm_op *o = &asm_ops[i], *base;
        tt6_buf tb = {0};
        decoded d;
        if (!o->base)
            continue;
        base = asm_find(o->base);
        tb_word(&tb, INIT_PC);
        put_insn(&tb, o, sample_word(o), EA, 0, 0, 0);
        put_insn(&tb, base, sample_word(base), EA, 0, 0, 0);
        decode_buf(&tb, "tt6", NULL, &d);
        CHECK(d.rc == 0 && d.n == 4);
        if (d.n == 4) {
            CHECK(d.acc[1].kind == d.acc[3].kind && d.acc[1].size == d.acc[3].size &&
                  d.acc[1].vaddr == d.acc[3].vaddr && d.acc[1].vaddr == EA);
            CHECK(same_access(&d.acc[2], CT_IFETCH, INIT_PC + 4, 4));
        }
        pairs++;
        dec_free(&d);
        tb_free(&tb);
    }
    CHECK_EQ_U64(pairs, 27); /* 13 D and DS forms, 14 X forms */
}

/* 58 and 62 are MEMORY whatever the sub-opcode; the size follows it. */
TEST(ds_forms_sized_by_sub_opcode)
{
    static const struct { unsigned major, sub, kind, size; } v[] = {
        {58, 0, CT_LOAD, 8}, {58, 1, CT_LOAD, 8}, {58, 2, CT_LOAD, 4}, {58, 3, CT_LOAD, 8},
        {62, 0, CT_STORE, 8}, {62, 1, CT_STORE, 8}, {62, 2, CT_STORE, 16}, {62, 3, CT_STORE, 8}};
    tt6_buf tb = {0};
    decoded d;

    tb_word(&tb, INIT_PC);
    for (size_t i = 0; i < 8; i++) {
        tb_word(&tb, v[i].major << 26 | 3u << 21 | 1u << 16 | 0x0100u | v[i].sub);
        tb_word(&tb, 0x2000u + 8 * (uint32_t)i + 3); /* EA low bits kept */
    }
    decode_buf(&tb, "tt6", NULL, &d);
    CHECK_EQ_U64(d.n, 16);
    for (size_t i = 0; i < 8 && d.n == 16; i++) {
        CHECK(same_access(&d.acc[2 * i], CT_IFETCH, INIT_PC + 4 * i, 4));
        CHECK(same_access(&d.acc[2 * i + 1], (int)v[i].kind, 0x2000u + 8 * i + 3, v[i].size));
    }
    dec_free(&d);
    tb_free(&tb);
}

/* lswi/stswi NB = 0 is 32 bytes; lswx/stswx XER & 0x7f bytes, none for 0
 * (the record still has 3 words); lmw/stmw 4 x (32 - RT) bytes. */
TEST(string_and_multiple_sizes)
{
    tt6_buf tb = {0};
    decoded d;

    tb_word(&tb, INIT_PC);
    tb_word(&tb, asm_word("lswi", 3, 4, 0));   tb_word(&tb, 0x1000);
    tb_word(&tb, asm_word("stswi", 3, 4, 0));  tb_word(&tb, 0x1100);
    tb_word(&tb, asm_word("lswi", 3, 4, 31));  tb_word(&tb, 0x1200);
    tb_word(&tb, asm_word("lswx", 3, 4, 5));   tb_word(&tb, 0x1300); tb_word(&tb, 0);
    tb_word(&tb, asm_word("stswx", 3, 4, 5));  tb_word(&tb, 0x1400); tb_word(&tb, 0xffffff80u);
    tb_word(&tb, asm_word("lswx", 3, 4, 5));   tb_word(&tb, 0x1500); tb_word(&tb, 0x2000007fu);
    tb_word(&tb, asm_word("stswx", 3, 4, 5));  tb_word(&tb, 0x1600); tb_word(&tb, 0x81);
    tb_word(&tb, asm_word("lmw", 0, 1, 8));    tb_word(&tb, 0x1700);
    tb_word(&tb, asm_word("lmw", 31, 1, 8));   tb_word(&tb, 0x1800);
    tb_word(&tb, asm_word("stmw", 20, 1, 8));  tb_word(&tb, 0x1900);
    decode_buf(&tb, "tt6", NULL, &d);
    CHECK_EQ_U64(d.rc, 0);
    CHECK_EQ_U64(d.n, 18);
    if (d.n == 18) {
        CHECK(same_access(&d.acc[1], CT_LOAD, 0x1000, 32));
        CHECK(same_access(&d.acc[3], CT_STORE, 0x1100, 32));
        CHECK(same_access(&d.acc[5], CT_LOAD, 0x1200, 31));
        CHECK(same_access(&d.acc[6], CT_IFETCH, INIT_PC + 12, 4));  /* lswx XER 0 */
        CHECK(same_access(&d.acc[7], CT_IFETCH, INIT_PC + 16, 4));  /* stswx count 0 */
        CHECK(same_access(&d.acc[8], CT_IFETCH, INIT_PC + 20, 4));
        CHECK(same_access(&d.acc[9], CT_LOAD, 0x1500, 127));
        CHECK(same_access(&d.acc[11], CT_STORE, 0x1600, 1));
        CHECK(same_access(&d.acc[13], CT_LOAD, 0x1700, 128));
        CHECK(same_access(&d.acc[15], CT_LOAD, 0x1800, 4));
        CHECK(same_access(&d.acc[17], CT_STORE, 0x1900, 48));
    }
    dec_free(&d);
    tb_free(&tb);
}

TEST(altivec_ea_aligned_down)
{
    static const struct { const char *name; uint32_t ea, want; unsigned size; } v[] = {
        {"lvebx", 0x200f, 0x200f, 1}, {"lvehx", 0x200f, 0x200e, 2}, {"lvewx", 0x200f, 0x200c, 4},
        {"lvx", 0x200f, 0x2000, 16}, {"lvxl", 0x201b, 0x2010, 16}, {"stvebx", 0x2003, 0x2003, 1},
        {"stvehx", 0x2003, 0x2002, 2}, {"stvewx", 0x2003, 0x2000, 4}, {"stvx", 0x2031, 0x2030, 16},
        {"stvxl", 0x203f, 0x2030, 16}};
    tt6_buf tb = {0};
    decoded d;

    tb_word(&tb, INIT_PC);
    for (size_t i = 0; i < 10; i++) {
        tb_word(&tb, asm_word(v[i].name, 2, 3, 4));
        tb_word(&tb, v[i].ea);
    }
    decode_buf(&tb, "tt6", NULL, &d);
    CHECK_EQ_U64(d.n, 20);
    for (size_t i = 0; i < 10 && d.n == 20; i++)
        CHECK(d.acc[2 * i + 1].vaddr == v[i].want && d.acc[2 * i + 1].size == v[i].size);
    dec_free(&d);
    tb_free(&tb);
}

/* ---- the TT6 / TT6E difference -------------------------------------------------- */

TEST(dcbx_is_compute_in_tt6_and_cacheop_in_tt6e)
{
    tt6_buf t6 = {0}, t6e = {0};
    decoded d;

    /* the same program in both dialects: dcbz, dcbf, lwz */
    tb_word(&t6, INIT_PC);
    tb_word(&t6, asm_word("dcbz", 0, 3, 4));
    tb_word(&t6, asm_word("dcbf", 0, 3, 4));
    tb_word(&t6, asm_word("lwz", 9, 1, 8)); tb_word(&t6, 0x5000);
    tb_word(&t6e, INIT_PC);
    tb_word(&t6e, asm_word("dcbz", 0, 3, 4)); tb_word(&t6e, 0x3010);
    tb_word(&t6e, asm_word("dcbf", 0, 3, 4)); tb_word(&t6e, 0x30c8);
    tb_word(&t6e, asm_word("lwz", 9, 1, 8)); tb_word(&t6e, 0x5000);

    decode_buf(&t6, "tt6", NULL, &d);
    CHECK_EQ_U64(d.n, 4);
    CHECK(d.n == 4 && d.acc[0].kind == CT_IFETCH && d.acc[1].kind == CT_IFETCH &&
          same_access(&d.acc[3], CT_LOAD, 0x5000, 4));
    dec_free(&d);

    decode_buf(&t6e, "tt6e", NULL, &d);
    CHECK_EQ_U64(d.n, 6);
    if (d.n == 6) {
        CHECK(same_access(&d.acc[1], CT_CACHEOP, 0x3000, LINE) && d.acc[1].op == CT_OP_ZERO);
        CHECK(same_access(&d.acc[3], CT_CACHEOP, 0x30c0, LINE) &&
              d.acc[3].op == CT_OP_CLEAN_INVAL);
        CHECK(same_access(&d.acc[5], CT_LOAD, 0x5000, 4));
    }
    dec_free(&d);

    /* TT6E bytes read as TT6 lose their framing: the EA 0x3010 is taken for an
     * escape header, code 0 with 0x3010 payload words, past the end */
    decode_buf(&t6e, "tt6", NULL, &d);
    CHECK(d.rc == CT_E_FORMAT);
    CHECK_STR_CONTAINS(d.err.msg, "runs past the end");
    dec_free(&d);
    tb_free(&t6);
    tb_free(&t6e);
}

TEST(dcbx_set_and_line_size_are_configurable)
{
    static const char *const sets[] = {"tt6.dcbx=dcbz, icbi", "l1d.line=128", "l1i.size=32K",
                                       "l1i.line=32", NULL};
    tt6_buf tb = {0};
    decoded d;
    ct_config *cfg = NULL;
    ct_error err = {0};

    tb_word(&tb, INIT_PC);
    tb_word(&tb, asm_word("icbi", 0, 3, 4)); tb_word(&tb, 0x7777);
    tb_word(&tb, asm_word("dcbf", 0, 3, 4));                       /* not in the set: 1 word */
    tb_word(&tb, asm_word("dcbz", 0, 3, 4)); tb_word(&tb, 0x9999);
    decode_buf(&tb, "tt6e", sets, &d);
    CHECK_EQ_U64(d.rc, 0);
    CHECK_EQ_U64(d.n, 5);
    if (d.n == 5) {
        CHECK(same_access(&d.acc[1], CT_CACHEOP, 0x7760, 32) &&
              d.acc[1].op == (CT_OP_INVAL | CT_OP_ISIDE));
        CHECK(same_access(&d.acc[2], CT_IFETCH, INIT_PC + 4, 4));
        CHECK(same_access(&d.acc[4], CT_CACHEOP, 0x9980, 128) && d.acc[4].op == CT_OP_ZERO);
    }
    dec_free(&d);

    /* no cache at all: the G4's 32-byte line */
    {
        tt6_buf t2 = {0};
        tb_word(&t2, INIT_PC);
        tb_word(&t2, asm_word("dcbt", 0, 3, 4)); tb_word(&t2, 0x1234);
        tb_word(&t2, asm_word("dcbtst", 0, 3, 4)); tb_word(&t2, 0x1264);
        if (ct_config_new_empty(&cfg, &err) != CT_OK)
            abort();
        {
            const char *path = put_file("nocache.tt6", t2.p, t2.n);
            ct_trace *t = NULL;
            ct_trace_opts o = {.format = "tt6e", .cfg = cfg};
            ct_batch b = {0};
            CHECK(ct_trace_open(&t, &path, 1, &o, &err) == CT_OK);
            CHECK(ct_batch_init(&b, 64) == CT_OK);
            CHECK(t && ct_trace_next(t, &b, &err) == 1);
            CHECK(b.n == 4 && same_access(&b.acc[1], CT_PREFETCH, 0x1220, 32) &&
                  b.acc[1].op == 0 && same_access(&b.acc[3], CT_PREFETCH, 0x1260, 32) &&
                  b.acc[3].op == CT_PF_WRITE);
            ct_batch_free(&b);
            ct_trace_close(t);
        }
        ct_config_free(cfg);
        tb_free(&t2);
    }
    tb_free(&tb);
}

TEST(config_checks_the_dcbx_list)
{
    ct_config *cfg = NULL;
    ct_error err = {0};
    char buf[256];

    CHECK(ct_config_new_default(&cfg, &err) == CT_OK);
    CHECK(ct_config_set(cfg, "tt6.dcbx=dcbz,dcbq", &err) == CT_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, "[tt6] dcbx");
    CHECK_STR_CONTAINS(err.msg, "\"dcbq\" is not a DCBX instruction");
    CHECK(ct_config_set(cfg, "tt6.dcbx=none", &err) == CT_OK);
    CHECK(ct_config_set(cfg, "tt6.dst=sometimes", &err) == CT_E_CONFIG);
    CHECK(ct_config_set(cfg, "tt6.keep_trap_pair=yes", &err) == CT_OK);
    CHECK(strcmp(ct_config_get(cfg, "tt6", "dst", buf, sizeof buf), "stream") == 0);
    ct_config_free(cfg);
}

/* ---- escapes ---------------------------------------------------------------------- */

TEST(escapes_are_skipped_by_count_and_sync_becomes_a_marker)
{
    tt6_buf tb = {0};
    decoded d;

    tb_word(&tb, INIT_PC);
    tb_escape(&tb, 0x00, 16);                      /* segment registers */
    for (unsigned i = 0; i < 16; i++)
        tb_word(&tb, asm_word("lwz", 1, 2, 3));    /* payload that looks like code */
    tb_word(&tb, asm_word("add", 3, 4, 5));
    tb_escape(&tb, 0x20, 2); tb_word(&tb, 0xa000); tb_word(&tb, 7);   /* SYNC_SIGNAL */
    tb_escape(&tb, 0x05, 1); tb_word(&tb, 0x12345678);
    tb_escape(&tb, 0x01, 0);
    tb_word(&tb, asm_word("stw", 3, 1, 0)); tb_word(&tb, 0xb000);
    tb_escape(&tb, 0x31, 2); tb_word(&tb, 0xa000); tb_word(&tb, 8);   /* SYNC_TRY_WAIT */
    tb_escape(&tb, 0x30, 3); tb_word(&tb, 0xa004); tb_word(&tb, 9); tb_word(&tb, 0);
    tb_escape(&tb, 0x21, 1); tb_word(&tb, 0xa008);                    /* too short */
    decode_buf(&tb, "tt6", NULL, &d);
    CHECK_EQ_U64(d.rc, 0);
    CHECK_EQ_U64(d.n, 3);
    if (d.n == 3) {
        CHECK(same_access(&d.acc[0], CT_IFETCH, INIT_PC, 4));
        CHECK(same_access(&d.acc[1], CT_IFETCH, INIT_PC + 4, 4)); /* escapes keep the PC */
        CHECK(same_access(&d.acc[2], CT_STORE, 0xb000, 4));
    }
    CHECK_EQ_U64(d.nmk, 3);
    if (d.nmk == 3) {
        CHECK(d.mk[0].type == CT_MK_SYNC && d.mk[0].aux == 0x20 && d.mk[0].value == 0xa000 &&
              d.mk[0].value2 == 7 && d.mk[0].index == 1 && d.mk[0].thread == 1);
        CHECK(d.mk[1].aux == 0x31 && d.mk[1].value2 == 8 && d.mk[1].index == 3);
        CHECK(d.mk[2].aux == 0x30 && d.mk[2].value == 0xa004 && d.mk[2].value2 == 9);
    }
    CHECK_EQ_U64(d.records, 10);      /* INITIAL_PC, 2 instructions, 7 escapes */
    CHECK_EQ_U64(d.warnings, 5);      /* 0x00, 0x05, 0x01, a long and a short sync */
    dec_free(&d);
    tb_free(&tb);
}

/* ---- PC reconstruction --------------------------------------------------------------- */

TEST(pc_follows_flow_records)
{
    tt6_buf tb = {0};
    decoded d;
    static const uint32_t want[] = {INIT_PC, INIT_PC + 4, INIT_PC + 8, 0x20000, 0x20004,
                                    0x30000, 0x30004, 0x700, 0x40000, 0x40004, 0x0};

    tb_word(&tb, INIT_PC);
    tb_word(&tb, asm_word("bc", 4, 0, 0x40)); tb_word(&tb, INIT_PC + 4); /* not taken */
    tb_word(&tb, asm_word("addi", 3, 3, 1));
    tb_word(&tb, asm_word("b", 0, 0, 0x0fff8)); tb_word(&tb, 0x20000);   /* taken */
    tb_word(&tb, asm_word("ori", 0, 0, 0));
    tb_word(&tb, asm_word("bcctr", 20, 0, 0)); tb_word(&tb, 0x30000);
    tb_escape(&tb, 0x03, 1); tb_word(&tb, 0x30000);
    tb_word(&tb, asm_word("ori", 0, 0, 0));
    tb_word(&tb, asm_word("sc", 0, 0, 0)); tb_word(&tb, 0x700);
    tb_word(&tb, asm_word("rfid", 0, 0, 0)); tb_word(&tb, 0x40000);
    tb_word(&tb, asm_word("bclr", 20, 0, 0)); tb_word(&tb, 0x40004);
    tb_word(&tb, asm_word("b", 0, 0, 0)); tb_word(&tb, 0);               /* acid's b 0 */
    tb_word(&tb, asm_word("ori", 0, 0, 0));
    decode_buf(&tb, "tt6", NULL, &d);
    CHECK_EQ_U64(d.rc, 0);
    CHECK_EQ_U64(d.n, 11);
    for (size_t i = 0; i < 11 && d.n == 11; i++)
        CHECK(same_access(&d.acc[i], CT_IFETCH, want[i], 4) && d.acc[i].pc == want[i] &&
              d.acc[i].thread == 1 && d.acc[i].core == 0);
    CHECK_EQ_U64(d.threads, 1);
    dec_free(&d);
    tb_free(&tb);
}

/* ---- TT6E synthetic trap pair ---------------------------------------------------------- */

static void trap_program(tt6_buf *tb, uint32_t vector)
{
    tb_word(tb, INIT_PC);
    tb_word(tb, asm_word("twi", 31, 0, 0));                            /* 0x10000 */
    tb_word(tb, asm_word("b", 0, 0, 0) | 2); tb_word(tb, vector);      /* synthetic b */
    tb_escape(tb, 0x02, 1); tb_word(tb, 0);                            /* in between */
    tb_word(tb, asm_word("rfi", 0, 0, 0)); tb_word(tb, INIT_PC + 4);  /* synthetic rfi */
    tb_word(tb, asm_word("lwz", 3, 1, 0)); tb_word(tb, 0x6000);
}

TEST(tt6e_trap_pair_is_not_fetched_unless_kept)
{
    static const char *const keep[] = {"tt6.keep_trap_pair=yes", NULL};
    tt6_buf tb = {0};
    decoded d;

    trap_program(&tb, 0x700);
    decode_buf(&tb, "tt6e", NULL, &d);
    CHECK_EQ_U64(d.n, 5);
    if (d.n == 5) {
        CHECK(same_access(&d.acc[0], CT_IFETCH, INIT_PC, 4));
        CHECK(same_access(&d.acc[1], CT_NOFETCH, INIT_PC + 4, 4));
        CHECK(same_access(&d.acc[2], CT_NOFETCH, 0x700, 4));
        CHECK(same_access(&d.acc[3], CT_IFETCH, INIT_PC + 4, 4));
        CHECK(same_access(&d.acc[4], CT_LOAD, 0x6000, 4));
    }
    dec_free(&d);

    decode_buf(&tb, "tt6e", keep, &d);
    CHECK(d.n == 5 && same_access(&d.acc[1], CT_IFETCH, INIT_PC + 4, 4) &&
          same_access(&d.acc[2], CT_IFETCH, 0x700, 4));
    dec_free(&d);

    decode_buf(&tb, "tt6", NULL, &d); /* TT6: no such pair, nothing detected */
    CHECK(d.n == 5 && d.acc[1].kind == CT_IFETCH && d.acc[2].kind == CT_IFETCH);
    dec_free(&d);
    tb_free(&tb);

    trap_program(&tb, 0x800); /* not the program-interrupt vector: real code */
    decode_buf(&tb, "tt6e", NULL, &d);
    CHECK(d.n == 5 && d.acc[1].kind == CT_IFETCH && d.acc[2].kind == CT_IFETCH &&
          d.acc[2].vaddr == 0x800);
    dec_free(&d);
    tb_free(&tb);
}

/* ---- dst / dstst -------------------------------------------------------------------------- */

TEST(dst_streams_follow_the_mode)
{
    static const char *const off[] = {"tt6.dst=off", NULL};
    static const char *const first[] = {"tt6.dst=first", NULL};
    tt6_buf tb = {0};
    decoded d;
    /* dstt: 2 vectors x 3 blocks, stride -64; dstst: 0 vectors (32), 0
     * blocks (256), stride 0 (32768) */
    tb_word(&tb, INIT_PC);
    tb_word(&tb, asm_word("dst", 1 << 4, 3, 4)); tb_word(&tb, 0x8000); tb_word(&tb, 0x0203ffc0);
    tb_word(&tb, asm_word("dstst", 0, 3, 4)); tb_word(&tb, 0xff00); tb_word(&tb, 0x00000000);
    tb_word(&tb, asm_word("ori", 0, 0, 0));

    decode_buf(&tb, "tt6", NULL, &d); /* default: stream */
    CHECK_EQ_U64(d.n, 3 + 3 + 256);
    if (d.n == 262) {
        CHECK(same_access(&d.acc[1], CT_PREFETCH, 0x8000, 32) && d.acc[1].op == CT_PF_NT);
        CHECK(same_access(&d.acc[2], CT_PREFETCH, 0x7fc0, 32));
        CHECK(same_access(&d.acc[3], CT_PREFETCH, 0x7f80, 32));
        CHECK(same_access(&d.acc[4], CT_IFETCH, INIT_PC + 4, 4));
        CHECK(same_access(&d.acc[5], CT_PREFETCH, 0xff00, 512) && d.acc[5].op == CT_PF_WRITE);
        CHECK(same_access(&d.acc[6], CT_PREFETCH, 0xff00 + 32768, 512));
        CHECK(same_access(&d.acc[260], CT_PREFETCH, (0xff00 + 255u * 32768) & 0xffffffffu, 512));
        CHECK(same_access(&d.acc[261], CT_IFETCH, INIT_PC + 8, 4));
    }
    dec_free(&d);
    decode_buf(&tb, "tt6", first, &d);
    CHECK(d.n == 5 && same_access(&d.acc[1], CT_PREFETCH, 0x8000, 32) &&
          same_access(&d.acc[3], CT_PREFETCH, 0xff00, 512));
    dec_free(&d);
    decode_buf(&tb, "tt6", off, &d);
    CHECK(d.n == 3 && d.acc[1].kind == CT_IFETCH && d.acc[2].vaddr == INIT_PC + 8);
    dec_free(&d);

    /* a stream longer than a batch continues in the next one */
    {
        const char *path = put_file("dst.tt6", tb.p, tb.n);
        decode_paths(&path, 1, "tt6", NULL, 64, &d);
        CHECK_EQ_U64(d.n, 262);
        CHECK(d.n == 262 && same_access(&d.acc[200], CT_PREFETCH, 0xff00u + 195u * 32768, 512));
        dec_free(&d);
    }
    tb_free(&tb);
}

/* ---- large input: buffer refills inside records and escapes ---------------------------- */

TEST(large_trace_crosses_buffer_refills_and_paths_agree)
{
    tt6_buf tb = {0};
    decoded d;
    uint64_t want_n = 0, want_sum = 0, got_sum = 0, marks = 0;
    uint32_t pc = INIT_PC, x = 12345;

    tb_word(&tb, INIT_PC);
    for (unsigned i = 0; tb.n < (3u << 20); i++) {
        x = x * 1103515245u + 12345u; /* fixed-seed LCG */
        switch ((x >> 16) % 7) {
        case 0: case 1: case 2:
            tb_word(&tb, asm_word("add", 3, 4, 5));
            want_n += 1; want_sum += pc; pc += 4;
            break;
        case 3:
            tb_word(&tb, asm_word("lwz", 3, 4, 8)); tb_word(&tb, x & ~3u);
            want_n += 2; want_sum += (uint64_t)pc + (x & ~3u); pc += 4;
            break;
        case 4:
            tb_word(&tb, asm_word("b", 0, 0, 0)); tb_word(&tb, x & 0xfffffffcu);
            want_n += 1; want_sum += pc; pc = x & 0xfffffffcu;
            break;
        case 5:
            tb_word(&tb, asm_word("lswx", 3, 4, 5)); tb_word(&tb, x); tb_word(&tb, x >> 8);
            want_n += 1 + ((x >> 8) & 0x7f ? 1 : 0);
            want_sum += (uint64_t)pc + ((x >> 8) & 0x7f ? x : 0); pc += 4;
            break;
        default: { /* an escape of up to 4095 words, or a sync */
            unsigned count = (x >> 4) & 0xfff;
            if (x & 1) {
                tb_escape(&tb, 0x30, 2); tb_word(&tb, x); tb_word(&tb, i);
                marks++;
            } else {
                tb_escape(&tb, 0x00, count);
                for (unsigned k = 0; k < count; k++)
                    tb_word(&tb, 0x04000000u + k);
            }
        }
        }
    }
    decode_buf(&tb, "tt6", NULL, &d);
    CHECK_EQ_U64(d.rc, 0);
    CHECK_EQ_U64(d.n, want_n);
    for (size_t i = 0; i < d.n; i++)
        got_sum += d.acc[i].vaddr;
    CHECK_EQ_U64(got_sum, want_sum);
    CHECK_EQ_U64(d.nmk, marks);
    CHECK_EQ_U64(d.bytes, tb.n);

    /* batches of 3 accesses leave every record to the general decoder (the
     * fast loop needs room for 4): both paths must agree on every field */
    {
        const char *path = put_file("large.tt6", tb.p, tb.n);
        decoded slow;
        size_t diff = 0;
        decode_paths(&path, 1, "tt6", NULL, 3, &slow);
        CHECK_EQ_U64(slow.rc, 0);
        CHECK_EQ_U64(slow.n, d.n);
        for (size_t i = 0; i < d.n && i < slow.n; i++)
            diff += memcmp(&d.acc[i], &slow.acc[i], sizeof d.acc[i]) != 0;
        CHECK_EQ_U64(diff, 0);
        CHECK_EQ_U64(slow.nmk, d.nmk);
        for (size_t i = 0; i < d.nmk && i < slow.nmk; i++)
            diff += memcmp(&d.mk[i], &slow.mk[i], sizeof d.mk[i]) != 0;
        CHECK_EQ_U64(diff, 0);
        dec_free(&slow);
    }
    dec_free(&d);
    tb_free(&tb);
}

/* ---- malformed input ----------------------------------------------------------------------- */

static void expect_error(const tt6_buf *tb, const char *format, int code, const char *const *need)
{
    decoded d;
    decode_buf(tb, format, NULL, &d);
    CHECK_EQ_U64((uint64_t)-d.rc, (uint64_t)-code);
    for (size_t i = 0; need[i]; i++)
        CHECK_STR_CONTAINS(d.err.msg, need[i]);
    dec_free(&d);
}

TEST(malformed_input_is_reported_with_position)
{
    tt6_buf tb = {0};

    /* length not a multiple of 4 */
    tb_word(&tb, INIT_PC);
    tb_word(&tb, asm_word("add", 3, 4, 5));
    tb_bytes(&tb, "\x7c\x00", 2);
    {
        static const char *const need[] = {"t.tt6: offset 8 (0x8), record 2", "partial word",
                                           "not a multiple of 4: 2 trailing bytes", NULL};
        expect_error(&tb, "tt6", CT_E_FORMAT, need);
    }
    {
        static const char *const sets[] = {"trace.lenient=yes", NULL};
        decoded d;
        decode_buf(&tb, "tt6", sets, &d);
        CHECK(d.rc == 0 && d.n == 1 && d.malformed == 1);
        dec_free(&d);
    }
    tb_free(&tb);

    /* a MEMORY record cut short */
    tb_word(&tb, INIT_PC);
    tb_word(&tb, asm_word("add", 3, 4, 5));
    tb_word(&tb, asm_word("stfd", 1, 1, 8));
    {
        static const char *const need[] = {"offset 8 (0x8), record 2, MEMORY stfd",
                                           "record truncated: 4 of 8 bytes", NULL};
        expect_error(&tb, "tt6", CT_E_FORMAT, need);
    }
    tb_bytes(&tb, "\x00\x00", 2); /* now 6 of 8 */
    {
        static const char *const need[] = {"record truncated: 6 of 8 bytes", NULL};
        expect_error(&tb, "tt6", CT_E_FORMAT, need);
    }
    tb_free(&tb);

    /* a MEMORY_EXTENDED record cut short */
    tb_word(&tb, INIT_PC);
    tb_word(&tb, asm_word("lswx", 3, 4, 5)); tb_word(&tb, 0x100);
    {
        static const char *const need[] = {"offset 4 (0x4), record 1, MEMORY_EXTENDED lswx",
                                           "record truncated: 8 of 12 bytes", NULL};
        expect_error(&tb, "tt6", CT_E_FORMAT, need);
    }
    tb_free(&tb);

    /* an escape count past the end */
    tb_word(&tb, INIT_PC);
    tb_word(&tb, asm_word("add", 3, 4, 5));
    tb_escape(&tb, 0x04, 3); tb_word(&tb, 1); tb_word(&tb, 2);
    {
        static const char *const need[] = {"offset 8 (0x8), record 2, ESCAPE 0x04",
                                           "escape count 3 runs past the end", NULL};
        expect_error(&tb, "tt6", CT_E_FORMAT, need);
    }
    tb_free(&tb);

    /* a misaligned flow target, even in lenient mode */
    tb_word(&tb, INIT_PC);
    tb_word(&tb, asm_word("lwz", 3, 4, 5)); tb_word(&tb, 0x1000);
    tb_word(&tb, asm_word("bclr", 20, 0, 0)); tb_word(&tb, 0x2002);
    {
        static const char *const need[] = {"offset 12 (0xc), record 2, FLOW_ALTERING bclr",
                                           "0x00002002 is not 4-byte aligned: framing doubtful",
                                           NULL};
        static const char *const sets[] = {"trace.lenient=yes", NULL};
        decoded d;
        expect_error(&tb, "tt6", CT_E_FORMAT, need);
        decode_buf(&tb, "tt6", sets, &d);
        CHECK(d.rc == CT_E_FORMAT);
        dec_free(&d);
    }
    tb_free(&tb);

    /* escape codes Amber does not define are skipped by their count (not
     * errors), even when their payload would read as instructions, and a
     * code above the sync range is no sync point; a count past the end is
     * still an error */
    tb_word(&tb, INIT_PC);
    tb_escape(&tb, 0x11, 2); tb_word(&tb, asm_word("lwz", 3, 4, 5)); tb_word(&tb, 0x1000);
    tb_escape(&tb, 0x3a5, 2); tb_word(&tb, 0x5000); tb_word(&tb, 7);
    tb_word(&tb, asm_word("add", 3, 4, 5));
    {
        decoded d;
        decode_buf(&tb, "tt6", NULL, &d);
        CHECK_EQ_U64(d.rc, 0);
        CHECK_EQ_U64(d.n, 1);
        if (d.n == 1)
            CHECK(same_access(&d.acc[0], CT_IFETCH, INIT_PC, 4));
        CHECK_EQ_U64(d.nmk, 0);
        CHECK_EQ_U64(d.records, 4);
        CHECK_EQ_U64(d.warnings, 2);
        dec_free(&d);
    }
    tb_escape(&tb, 0x11, 3); tb_word(&tb, 0);
    {
        static const char *const need[] = {"offset 32 (0x20), record 4, ESCAPE 0x11",
                                           "escape count 3 runs past the end", NULL};
        expect_error(&tb, "tt6", CT_E_FORMAT, need);
    }
    tb_free(&tb);

    /* a misaligned INITIAL_PC */
    tb_word(&tb, 0x10002);
    {
        static const char *const need[] = {"offset 0 (0x0), record 0, INITIAL_PC",
                                           "0x00010002 is not 4-byte aligned", NULL};
        expect_error(&tb, "tt6e", CT_E_FORMAT, need);
    }
    tb_free(&tb);

    /* an empty file */
    {
        static const char *const need[] = {"empty file", NULL};
        decoded d;
        const char *path = put_file("empty.tt6", "", 0);
        decode_paths(&path, 1, "tt6", NULL, 64, &d);
        CHECK(d.rc == CT_E_FORMAT);
        CHECK_STR_CONTAINS(d.err.msg, need[0]);
        dec_free(&d);
    }
}

TEST(full_traces_are_recognised_and_refused)
{
    tt6_buf tb = {0};
    decoded d;
    static const char *const need[] = {"record 0, INITIAL_PC", "magic 0xA1118E17",
                                       "FULL format is not supported", NULL};

    tb_word(&tb, 0xA1118E17u);
    for (int i = 0; i < 251; i++)
        tb_word(&tb, 0);
    expect_error(&tb, "tt6", CT_E_UNSUPPORTED, need);
    decode_buf(&tb, NULL, NULL, &d); /* not forced: the magic is still recognised */
    CHECK(d.rc == CT_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(d.err.msg, "FULL format is not supported");
    dec_free(&d);
    tb_free(&tb);
}

/* ---- threads ------------------------------------------------------------------------------- */

TEST(files_and_directories_are_threads)
{
    static const char *const sets[] = {"trace.quantum=2", "system.cores=2", NULL};
    tt6_buf a = {0}, b = {0};
    decoded d;
    char dir[512], path[600];

    tb_word(&a, 0x1000);
    for (int i = 0; i < 3; i++)
        tb_word(&a, asm_word("add", 3, 4, 5));
    tb_word(&b, 0x2000);
    tb_word(&b, asm_word("lwz", 3, 4, 5)); tb_word(&b, 0x9000);
    tb_escape(&b, 0x20, 2); tb_word(&b, 0xa000); tb_word(&b, 1);
    tb_word(&b, asm_word("add", 3, 4, 5));
    {
        const char *paths[2];
        paths[0] = put_file("a.tt6", a.p, a.n);
        paths[1] = put_file("b.tt6", b.p, b.n);
        decode_paths(paths, 2, "tt6", sets, 64, &d);
    }
    CHECK_EQ_U64(d.rc, 0);
    CHECK_EQ_U64(d.streams, 2);
    CHECK_EQ_U64(d.threads, 2);
    CHECK_EQ_U64(d.n, 6);
    if (d.n == 6) { /* round robin, 2 accesses a turn */
        CHECK(d.acc[0].vaddr == 0x1000 && d.acc[0].thread == 1 && d.acc[0].core == 0);
        CHECK(d.acc[1].vaddr == 0x1004 && d.acc[1].thread == 1);
        CHECK(d.acc[2].vaddr == 0x2000 && d.acc[2].thread == 2 && d.acc[2].core == 1);
        CHECK(d.acc[3].vaddr == 0x9000 && d.acc[3].thread == 2);
        CHECK(d.acc[4].vaddr == 0x1008 && d.acc[4].thread == 1);
        CHECK(d.acc[5].vaddr == 0x2004 && d.acc[5].thread == 2);
    }
    CHECK(d.nmk == 1 && d.mk[0].thread == 2 && d.mk[0].index == 5);
    dec_free(&d);

    /* a directory: *.tt6* files in natural order, others ignored */
    snprintf(dir, sizeof dir, "%s/threads", tmpdir);
    CHECK(mkdir(dir, 0700) == 0);
    snprintf(path, sizeof path, "threads/thread_10.tt6");
    put_file(path, a.p, a.n);
    snprintf(path, sizeof path, "threads/thread_2.tt6");
    put_file(path, b.p, b.n);
    put_file("threads/README", "not a trace", 11);
    {
        const char *paths[1] = {dir};
        decode_paths(paths, 1, "tt6", sets, 64, &d);
    }
    CHECK_EQ_U64(d.rc, 0);
    CHECK_EQ_U64(d.streams, 2);
    CHECK(d.n == 6 && d.acc[0].vaddr == 0x2000 && d.acc[2].vaddr == 0x1000);
    dec_free(&d);
    tb_free(&a);
    tb_free(&b);
}

/* ---- the writer ------------------------------------------------------------------------------ */

typedef struct membuf {
    tt6_buf b;
} membuf;

static int mem_write(void *ctx, const char *data, size_t len)
{
    tb_bytes(&((membuf *)ctx)->b, data, len);
    return 0;
}

/* Write the batch in `format`, return the bytes. */
static void write_batch(const ct_batch *in, const char *format, tt6_buf *out, uint64_t *dropped)
{
    membuf m = {{0}};
    ct_writer w = {mem_write, &m, 0};
    ct_trace_writer *tw = NULL;
    ct_error err = {0};

    CHECK(ct_trace_writer_open(&tw, format, &w, &err) == CT_OK);
    CHECK(ct_trace_writer_put(tw, in, &err) == CT_OK);
    *dropped = ct_trace_writer_dropped(tw);
    CHECK(ct_trace_writer_finish(tw, &err) == CT_OK);
    *out = m.b;
}

static void add(ct_batch *b, int kind, uint64_t addr, uint32_t size, int op, int flags)
{
    b->acc[b->n++] = (ct_access){.vaddr = addr, .size = size, .kind = (uint8_t)kind,
                                 .op = (uint8_t)op, .flags = (uint16_t)flags};
}

TEST(writer_round_trips_loads_stores_and_flow)
{
    static const uint32_t sizes[] = {1, 2, 4, 8, 16, 12, 128, 3, 32, 33, 127};
    static const char *const first[] = {"tt6.dst=first", NULL};
    ct_batch b = {0};
    tt6_buf out = {0}, again = {0};
    uint64_t dropped = 0, n_in;
    decoded d;
    uint32_t pc = 0x1000;

    CHECK(ct_batch_init(&b, 1024) == CT_OK);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        add(&b, CT_IFETCH, pc, 4, 0, 0); pc += 4;
        add(&b, CT_LOAD, 0x20000 + 0x100 * i, sizes[i], 0, 0);
        add(&b, CT_IFETCH, pc, 4, 0, 0); pc += 4;
        add(&b, CT_STORE, 0x30000 + 0x100 * i, sizes[i], 0, 0);
    }
    add(&b, CT_IFETCH, pc, 4, 0, 0);                          /* nop, then a jump */
    add(&b, CT_IFETCH, 0x9000, 4, 0, 0);
    add(&b, CT_LOAD, 0x4000, 4, 0, CT_F_EXCL);                /* lwarx */
    add(&b, CT_IFETCH, 0x9004, 4, 0, 0);
    add(&b, CT_STORE, 0x4000, 8, 0, CT_F_EXCL);               /* stdcx. */
    add(&b, CT_IFETCH, 0x0100, 4, 0, 0);                      /* a jump after a store */
    add(&b, CT_IFETCH, 0x0104, 4, 0, 0);
    add(&b, CT_PREFETCH, 0x5010, 40, CT_PF_NT, 0);            /* TT6: dstt, 3 vectors */
    n_in = b.n;
    b.mk[b.nmk++] = (ct_marker){.index = 2, .type = CT_MK_SYNC, .aux = 0x20, .value = 0xabc,
                                .value2 = 3};
    write_batch(&b, "tt6", &out, &dropped);
    CHECK_EQ_U64(dropped, 0);
    decode_buf(&out, "tt6", first, &d);
    CHECK_EQ_U64(d.rc, 0);
    CHECK_EQ_U64(d.n, n_in + 1);       /* plus the b inserted after stdcx. */
    for (size_t i = 0, k = 0; i < n_in && k < d.n; i++, k++) {
        const ct_access *a = &b.acc[i], *g = &d.acc[k];
        if (a->kind == CT_IFETCH && a->vaddr == 0x0100) {
            CHECK(same_access(g, CT_IFETCH, 0x9008, 4)); /* the inserted b */
            g = &d.acc[++k];
        }
        if (a->kind == CT_PREFETCH)
            CHECK(same_access(g, CT_PREFETCH, 0x5010, 48) && g->op == CT_PF_NT);
        else
            CHECK(same_access(g, a->kind, a->vaddr, a->size) && g->flags == a->flags);
    }
    CHECK(d.nmk == 1 && d.mk[0].index == 2 && d.mk[0].value == 0xabc && d.mk[0].value2 == 3);
    dec_free(&d);

    /* tt6 -> tt6 again: the same bytes */
    {
        const char *path = put_file("once.tt6", out.p, out.n);
        ct_trace *t = NULL;
        ct_trace_opts o = {.format = "tt6"};
        ct_batch rb = {0};
        ct_error err = {0};
        CHECK(ct_trace_open(&t, &path, 1, &o, &err) == CT_OK);
        CHECK(ct_batch_init(&rb, 4096) == CT_OK);
        CHECK(t && ct_trace_next(t, &rb, &err) == 1);
        write_batch(&rb, "tt6", &again, &dropped);
        CHECK(again.n == out.n && memcmp(again.p, out.p, out.n) == 0);
        ct_batch_free(&rb);
        ct_trace_close(t);
    }
    tb_free(&out);
    tb_free(&again);
    ct_batch_free(&b);
}

TEST(writer_tt6e_cache_operations_and_drops)
{
    ct_batch b = {0};
    tt6_buf out = {0};
    uint64_t dropped = 0;
    decoded d;

    CHECK(ct_batch_init(&b, 256) == CT_OK);
    add(&b, CT_IFETCH, 0x1000, 4, 0, 0); add(&b, CT_CACHEOP, 0x2044, 64, CT_OP_ZERO, 0);
    add(&b, CT_IFETCH, 0x1004, 4, 0, 0); add(&b, CT_CACHEOP, 0x2084, 64, CT_OP_CLEAN, 0);
    add(&b, CT_IFETCH, 0x1008, 4, 0, 0); add(&b, CT_CACHEOP, 0x20c4, 64, CT_OP_CLEAN_INVAL, 0);
    add(&b, CT_IFETCH, 0x100c, 4, 0, 0); add(&b, CT_CACHEOP, 0x2104, 64, CT_OP_INVAL, 0);
    add(&b, CT_IFETCH, 0x1010, 4, 0, 0); add(&b, CT_CACHEOP, 0x2144, 64, CT_OP_ALLOC, 0);
    add(&b, CT_IFETCH, 0x1014, 4, 0, 0); add(&b, CT_PREFETCH, 0x2184, 8, CT_PF_WRITE, 0);
    /* dropped: atomic, whole-cache op, i-side op, second data access, odd fetch, >4 GiB */
    add(&b, CT_IFETCH, 0x1018, 4, 0, 0); add(&b, CT_ATOMIC, 0x3000, 4, 0, 0);
    add(&b, CT_IFETCH, 0x101c, 4, 0, 0); add(&b, CT_CACHEOP, 0, 0, CT_OP_CLEAN | CT_OP_ALL, 0);
    add(&b, CT_IFETCH, 0x1020, 4, 0, 0); add(&b, CT_CACHEOP, 0x3000, 4, CT_OP_INVAL | CT_OP_ISIDE, 0);
    add(&b, CT_IFETCH, 0x1024, 4, 0, 0); add(&b, CT_LOAD, 0x3000, 4, 0, 0);
    add(&b, CT_LOAD, 0x3004, 4, 0, 0);
    add(&b, CT_IFETCH, 0x1029, 4, 0, 0); add(&b, CT_LOAD, 0x3008, 4, 0, 0);
    add(&b, CT_IFETCH, 0x102c, 4, 0, 0); add(&b, CT_LOAD, 0x100000000ull, 4, 0, 0);
    write_batch(&b, "tt6e", &out, &dropped);
    CHECK_EQ_U64(dropped, 7);
    decode_buf(&out, "tt6e", NULL, &d);
    CHECK_EQ_U64(d.rc, 0);
    CHECK_EQ_U64(d.n, 19);
    if (d.n == 19) {
        CHECK(same_access(&d.acc[1], CT_CACHEOP, 0x2040, LINE) && d.acc[1].op == CT_OP_ZERO);
        CHECK(d.acc[3].op == CT_OP_CLEAN && d.acc[5].op == CT_OP_CLEAN_INVAL &&
              d.acc[7].op == CT_OP_INVAL && d.acc[9].op == CT_OP_ALLOC);
        CHECK(same_access(&d.acc[11], CT_PREFETCH, 0x2180, LINE) && d.acc[11].op == CT_PF_WRITE);
        CHECK(same_access(&d.acc[15], CT_IFETCH, 0x1024, 4));
        CHECK(same_access(&d.acc[16], CT_LOAD, 0x3000, 4));
        CHECK(same_access(&d.acc[17], CT_IFETCH, 0x1028, 4)); /* b inserted after the lwz */
        CHECK(same_access(&d.acc[18], CT_IFETCH, 0x102c, 4));
    }
    dec_free(&d);
    tb_free(&out);

    /* TT6 has no addressed cache operations */
    b.n = 0;
    add(&b, CT_IFETCH, 0x1000, 4, 0, 0); add(&b, CT_CACHEOP, 0x2044, 64, CT_OP_ZERO, 0);
    write_batch(&b, "tt6", &out, &dropped);
    CHECK_EQ_U64(dropped, 1);
    CHECK_EQ_U64(out.n, 8);
    tb_free(&out);

    /* nothing but a sync marker: INITIAL_PC 0 and the escape */
    b.n = 0;
    b.mk[0] = (ct_marker){.type = CT_MK_SYNC, .aux = 0x21, .value = 5, .value2 = 6};
    b.nmk = 1;
    write_batch(&b, "tt6", &out, &dropped);
    CHECK_EQ_U64(out.n, 16);
    decode_buf(&out, "tt6", NULL, &d);
    CHECK(d.rc == 0 && d.n == 0 && d.nmk == 1 && d.mk[0].aux == 0x21);
    dec_free(&d);
    tb_free(&out);
    ct_batch_free(&b);
}

static void remove_tree(const char *dir)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
    make_tmpdir();
    RUN(every_class_row_decodes_to_its_class_and_size_tt6);
    RUN(every_class_row_decodes_to_its_class_and_size_tt6e);
    RUN(opcode_space_keeps_framing_tt6);
    RUN(opcode_space_keeps_framing_tt6e);
    RUN(update_forms_access_like_their_base_forms);
    RUN(ds_forms_sized_by_sub_opcode);
    RUN(string_and_multiple_sizes);
    RUN(altivec_ea_aligned_down);
    RUN(dcbx_is_compute_in_tt6_and_cacheop_in_tt6e);
    RUN(dcbx_set_and_line_size_are_configurable);
    RUN(config_checks_the_dcbx_list);
    RUN(escapes_are_skipped_by_count_and_sync_becomes_a_marker);
    RUN(pc_follows_flow_records);
    RUN(tt6e_trap_pair_is_not_fetched_unless_kept);
    RUN(dst_streams_follow_the_mode);
    RUN(large_trace_crosses_buffer_refills_and_paths_agree);
    RUN(malformed_input_is_reported_with_position);
    RUN(full_traces_are_recognised_and_refused);
    RUN(files_and_directories_are_threads);
    RUN(writer_round_trips_loads_stores_and_flow);
    RUN(writer_tt6e_cache_operations_and_drops);
    remove_tree(tmpdir);
    return harness_done();
}
