/*
 * test_vixl.c - the VIXL state-trace decoder: every access line form on
 * hand-written traces with real addresses (tests/data/vixl), colour codes,
 * the old layout, masked addresses and malformed lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachet/cachet.h"
#include "harness.h"

#define MAXACC 256

typedef struct run {
    ct_access acc[MAXACC];
    uint32_t n;
    int rc;
    ct_error err;
    ct_trace_info info;
} run;

static char tmpdir[64];

static const char *tmp_file(const char *name, const char *text)
{
    static char path[128];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

/* Decode a whole trace into r (rc: 0 or the error). */
static void read_trace(const char *path, const char *format, int lenient, run *r)
{
    ct_trace *t = NULL;
    ct_trace_opts o = {0};
    ct_batch b = {0};
    const char *paths[1] = {path};
    int rc;

    memset(r, 0, sizeof *r);
    o.format = format;
    o.strictness = lenient ? CT_LENIENT : CT_STRICT;
    r->rc = ct_trace_open(&t, paths, 1, &o, &r->err);
    if (r->rc)
        return;
    ct_batch_init(&b, 64);
    while ((rc = ct_trace_next(t, &b, &r->err)) > 0)
        for (uint32_t i = 0; i < b.n && r->n < MAXACC; i++)
            r->acc[r->n++] = b.acc[i];
    r->rc = rc < 0 ? rc : 0;
    r->info = *ct_trace_get_info(t);
    ct_batch_free(&b);
    ct_trace_close(t);
}

static uint64_t warning_count(const run *r, const char *what)
{
    for (uint32_t i = 0; i < r->info.nwarnings; i++)
        if (strstr(r->info.warnings[i].what, what))
            return r->info.warnings[i].count;
    return 0;
}

typedef struct want {
    int kind;
    uint64_t vaddr;
    uint32_t size;
    uint64_t time;
    uint64_t pc;
    uint16_t flags;
} want;

enum { IF = CT_IFETCH, LD = CT_LOAD, ST = CT_STORE, EX = CT_F_EXCL };

/* tests/data/vixl/forms.log, access by access (line numbers as times). */
static const want forms[] = {
    {IF, 0x400000, 4, 5, 0x400000, 0},  {LD, 0x10000, 4, 6, 0x400000, 0},  /* ldr w */
    {IF, 0x400004, 4, 7, 0x400004, 0},  {LD, 0x10001, 1, 9, 0x400004, 0},  /* ldrsb: ╙─ line */
    {IF, 0x400008, 4, 10, 0x400008, 0}, {LD, 0x10000, 8, 11, 0x400008, 0}, /* ldp */
    {LD, 0x10008, 8, 12, 0x400008, 0},
    {IF, 0x40000c, 4, 13, 0x40000c, 0}, {ST, 0x10004, 4, 14, 0x40000c, 0}, /* str w: x2<31:0> */
    {IF, 0x400010, 4, 15, 0x400010, 0}, {LD, 0x10000, 4, 16, 0x400010, 0}, /* ldr s: FP note */
    {IF, 0x400014, 4, 17, 0x400014, 0}, {LD, 0x20000, 8, 19, 0x400014, 0}, /* ld1 lanes */
    {LD, 0x20008, 8, 20, 0x400014, 0},
    {IF, 0x400018, 4, 21, 0x400018, 0}, {ST, 0x20000, 4, 24, 0x400018, 0}, /* st2 structs */
    {ST, 0x20004, 4, 25, 0x400018, 0},  {ST, 0x20008, 4, 26, 0x400018, 0},
    {ST, 0x2000c, 4, 27, 0x400018, 0},
    {IF, 0x40001c, 4, 28, 0x40001c, 0}, {LD, 0x20000, 16, 29, 0x40001c, 0}, /* ldr z */
    {LD, 0x20010, 16, 30, 0x40001c, 0},
    {IF, 0x400020, 4, 31, 0x400020, 0}, {LD, 0x20000, 2, 32, 0x400020, 0}, /* ldr p */
    {LD, 0x20002, 2, 33, 0x400020, 0},  /* printed +16, taken as +2 */
    {IF, 0x400024, 4, 34, 0x400024, 0}, {ST, 0x20040, 8, 35, 0x400024, 0}, /* dc zva */
    {ST, 0x20048, 8, 36, 0x400024, 0},  {ST, 0x20050, 8, 37, 0x400024, 0},
    {ST, 0x20058, 8, 38, 0x400024, 0},  {ST, 0x20060, 8, 39, 0x400024, 0},
    {ST, 0x20068, 8, 40, 0x400024, 0},  {ST, 0x20070, 8, 41, 0x400024, 0},
    {ST, 0x20078, 8, 42, 0x400024, 0},
    {IF, 0x400028, 4, 43, 0x400028, 0}, {LD, 0x20000, 1, 44, 0x400028, 0}, /* cpyfm */
    {ST, 0x10010, 1, 44, 0x400028, 0},  {LD, 0x20001, 1, 45, 0x400028, 0},
    {ST, 0x10011, 1, 45, 0x400028, 0},
    {IF, 0x40002c, 4, 47, 0x40002c, 0}, {LD, 0x10000, 4, 48, 0x40002c, EX}, /* ldaxr */
    {IF, 0x400030, 4, 49, 0x400030, 0}, {ST, 0x10000, 4, 50, 0x400030, EX}, /* stlxr */
    {IF, 0x400034, 4, 52, 0x400034, 0}, {LD, 0x10000, 4, 53, 0x400034, 0}, /* ldadd */
    {ST, 0x10000, 4, 54, 0x400034, 0},
    {IF, 0x400038, 4, 56, 0x400038, 0}, /* gcspushm: the GCS line is not memory */
    {IF, 0x40003c, 4, 58, 0x40003c, 0},
};

static void check_stream(const run *r, const want *w, uint32_t n)
{
    CHECK_EQ_U64(r->n, n);
    for (uint32_t i = 0; i < n && i < r->n; i++) {
        const ct_access *a = &r->acc[i];
        if (a->kind != w[i].kind || a->vaddr != w[i].vaddr || a->size != w[i].size ||
            a->time != w[i].time || a->pc != w[i].pc || a->flags != w[i].flags) {
            fprintf(stderr, "access %u: kind %d vaddr %#llx size %u time %llu pc %#llx flags %#x\n",
                    i, a->kind, (unsigned long long)a->vaddr, a->size,
                    (unsigned long long)a->time, (unsigned long long)a->pc, a->flags);
            CHECK(!"access differs from the expected one");
        }
    }
}

TEST(every_access_form_decodes_to_the_documented_access)
{
    static run r;
    read_trace("tests/data/vixl/forms.log", NULL, 0, &r);
    CHECK_EQ_U64(r.rc, 0);
    CHECK(r.info.format && strcmp(r.info.format, "vixl") == 0);
    check_stream(&r, forms, sizeof forms / sizeof forms[0]);
    CHECK_EQ_U64(warning_count(&r, "GCS lines"), 1);
    CHECK_EQ_U64(warning_count(&r, "not VIXL trace output"), 1);
    CHECK_EQ_U64(r.info.malformed, 0);
    CHECK_EQ_U64(r.info.masked_addresses, 0);
}

TEST(colour_codes_do_not_change_the_stream)
{
    static run plain, colour;
    read_trace("tests/data/vixl/forms.log", NULL, 0, &plain);
    read_trace("tests/data/vixl/colour.log", NULL, 0, &colour);
    CHECK_EQ_U64(colour.rc, 0);
    CHECK(colour.info.format && strcmp(colour.info.format, "vixl") == 0);
    CHECK_EQ_U64(colour.n, 11); /* colour.log is lines 1-16 of forms.log */
    for (uint32_t i = 0; i < colour.n; i++)
        CHECK(memcmp(&colour.acc[i], &plain.acc[i], sizeof(ct_access)) == 0);
}

TEST(old_layout_load_sizes_come_from_the_mnemonic)
{
    static run r;
    static const uint32_t sizes[] = {4, 1, 4, 4, 4, 2, 4, 8, 4, 8, 4, 16, 4, 1, 4, 4, 4, 8};
    read_trace("tests/data/vixl/old-layout.log", NULL, 0, &r);
    CHECK_EQ_U64(r.rc, 0);
    CHECK_EQ_U64(r.n, 18);
    for (uint32_t i = 0; i < 18 && i < r.n; i++)
        CHECK_EQ_U64(r.acc[i].size, sizes[i]);
    CHECK_EQ_U64(r.acc[13].kind, CT_STORE);  /* strb: w3<7:0> */
    CHECK_EQ_U64(r.acc[17].flags, CT_F_EXCL); /* ldxr */
    /* only ld1 (a vector structure load) has no known size */
    CHECK_EQ_U64(warning_count(&r, "load size unknown"), 1);
}

TEST(old_layout_without_disassembly_uses_fp_names_or_warns)
{
    static run r;
    read_trace("tests/data/vixl/old-layout-nodisasm.log", NULL, 0, &r);
    CHECK_EQ_U64(r.rc, 0);
    CHECK_EQ_U64(r.n, 4);
    CHECK_EQ_U64(r.acc[0].size, 8);  /* x3: whole register, size unknown */
    CHECK_EQ_U64(r.acc[1].size, 4);  /* (s1: ...) */
    CHECK_EQ_U64(r.acc[2].size, 8);  /* (d2: ...) */
    CHECK_EQ_U64(r.acc[3].size, 1);  /* store w3<7:0> */
    CHECK_EQ_U64(r.acc[2].vaddr, 0x10008);
    CHECK_EQ_U64(r.acc[0].flags, CT_F_NOPC);
    CHECK_EQ_U64(warning_count(&r, "load size unknown"), 1);
    CHECK_EQ_U64(warning_count(&r, "before any instruction line"), 4);
}

TEST(masked_addresses_are_counted_and_refused_by_the_model)
{
    static run r;
    const char *p = tmp_file("masked.log",
        "#             x0: 0x~~~~~~~~~~~~~~~~\n"
        "0x~~~~~~~~~~~~~~~~  b9400002\t\tldr w2, [x0]\n"
        "#             w2:         0x00000007 <- 0x~~~~~~~~~~~~~~~~\n"
        "#             x2: 0x~~~~~~~~~~~~~~~~ <- 0x~~~~~~~~~~~~~~~~\n"
        "#       x2<31:0>:         0x00000007 -> 0x~~~~~~~~~~~~~~~~\n");
    ct_config *cfg = NULL;
    ct_sim *s = NULL;
    ct_batch b = {0};
    ct_error err = {0};

    read_trace(p, NULL, 0, &r);
    CHECK_EQ_U64(r.rc, 0);
    CHECK_EQ_U64(r.n, 4);
    CHECK_EQ_U64(r.acc[0].flags, CT_F_NOADDR | CT_F_NOPC);
    CHECK_EQ_U64(r.acc[1].flags, CT_F_NOADDR | CT_F_NOPC);
    CHECK_EQ_U64(r.acc[1].size, 4);
    CHECK_EQ_U64(r.acc[2].size, 8);   /* a masked value still has 16 digits */
    CHECK_EQ_U64(r.acc[3].kind, CT_STORE);
    CHECK_EQ_U64(r.acc[3].vaddr, 0);
    CHECK(r.info.masked_addresses);

    CHECK_EQ_U64(ct_config_new_default(&cfg, &err), CT_OK);
    CHECK_EQ_U64(ct_sim_create(&s, cfg, &err), CT_OK);
    ct_batch_init(&b, 64);
    b.acc[0] = r.acc[1];
    b.n = 1;
    CHECK_EQ_U64(ct_sim_run(s, &b, &err), (uint64_t)(int64_t)CT_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "no address");
    ct_batch_free(&b);
    ct_sim_free(s);
    ct_config_free(cfg);
}

TEST(predicate_chunks_printed_two_bytes_apart_stay_as_printed)
{
    static run r;
    const char *p = tmp_file("pchunk.log",
        "0x0000000000400020  85800021\t\tldr p1, [x1]\n"
        "#       p1<15:0>: 0b 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 1 <- 0x0000000000020000\n"
        "#      p1<31:16>: 0b 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 1 <- 0x0000000000020002\n"
        "#      p1<47:32>: 0b 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 1 <- 0x0000000000020004\n");
    read_trace(p, NULL, 0, &r);
    CHECK_EQ_U64(r.rc, 0);
    CHECK_EQ_U64(r.n, 4);
    CHECK_EQ_U64(r.acc[2].vaddr, 0x20002);
    CHECK_EQ_U64(r.acc[3].vaddr, 0x20004);
    CHECK_EQ_U64(r.acc[3].size, 2);
}

TEST(stores_without_loads_are_reported)
{
    static run r;
    const char *p = tmp_file("stores.log",
        "#       x2<31:0>:         0x00000007 -> 0x0000000000010000\n"
        "#       x2<15:0>:             0x0007 -> 0x0000000000010004\n");
    read_trace(p, NULL, 0, &r);
    CHECK_EQ_U64(r.rc, 0);
    CHECK_EQ_U64(r.n, 2);
    CHECK_EQ_U64(r.acc[1].size, 2);
    CHECK_EQ_U64(warning_count(&r, "stores but no loads"), 1);
}

typedef struct bad_case {
    const char *line;
    const char *where;   /* ":LINE:COL: " */
    const char *reason;
} bad_case;

static const bad_case bad_cases[] = {
    {"0x0000000000400000  b940000\t\tldr w2, [x0]\n", ":2:28: ",
     "expected 8 hex digits of encoding"},
    {"0x0000000000400000 b9400002\t\tldr w2, [x0]\n", ":2:19: ", "expected two spaces"},
    {"0x0000000000400000  b9400002\tldr w2, [x0]\n", ":2:29: ", "expected two tabs"},
    {"0x00000000004000~0  b9400002\t\tldr w2, [x0]\n", ":2:3: ",
     "neither hex nor fully masked"},
    {"#             w2:         0x00000007 <- 0x10000\n", ":2:38: ",
     "arrow without 16-digit address"},
    {"#             w2:         0x00000007 <- 0x0000000000010000 trailing\n", ":2:38: ",
     "arrow without 16-digit address"},
    {"#             w2:         0x0000007 <- 0x0000000000010000\n", ":2:27: ",
     "odd number of hex digits in value"},
    {"#             w2:         0x <- 0x0000000000010000\n", ":2:27: ", "value width 0"},
    {"#             w2:         nothing <- 0x0000000000010000\n", ":2:35: ",
     "no value before the arrow"},
    {"#             w2:         0x00000007 <- 0x000000000001000g\n", ":2:43: ",
     "neither 16 hex digits nor fully masked"},
    {"#             w2:         0x00000007 <- 0x00000000000~0000\n", ":2:43: ",
     "neither 16 hex digits nor fully masked"},
    {"#       p1<15:0>: 0b 0 1 <- 0x0000000000020000\n", ":2:19: ",
     "not a whole number of bytes"},
    {"#       x2<31:0>:             0x0007 -> 0x0000000000010004\n", ":2:31: ",
     "does not match the register bit range"},
    {"#               : 0x0000000000010010 <- 0x2 <- 0x0000000000020000\n", ":2:38: ",
     "copy line: expected"},
    {"#   0x01 -> 0x02 -> 0x03 -> 0x0000000000010000\n", ":2:10: ", "more than two arrows"},
};

TEST(malformed_lines_stop_strict_mode_with_line_column_and_reason)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        static run r;
        char text[512], want[128];
        const char *p;
        snprintf(text, sizeof text, "0x0000000000400000  b9400002\t\tldr w2, [x0]\n%s",
                 bad_cases[i].line);
        p = tmp_file("bad.log", text);
        read_trace(p, "vixl", 0, &r);
        CHECK_EQ_U64(r.rc, (uint64_t)(int64_t)CT_E_FORMAT);
        snprintf(want, sizeof want, "bad.log%s", bad_cases[i].where);
        CHECK_STR_CONTAINS(r.err.msg, want);
        CHECK_STR_CONTAINS(r.err.msg, bad_cases[i].reason);
    }
}

TEST(lenient_mode_skips_malformed_lines_and_counts_them_by_reason)
{
    static run r;
    const char *p = tmp_file("lenient.log",
        "0x0000000000400000  b9400002\t\tldr w2, [x0]\n"
        "#             w2:         0x0000007 <- 0x0000000000010000\n"
        "#             w2:         0x00000007 <- 0x0000000000010000\n"
        "0x0000000000400004  b940000\t\tldr w2, [x0]\n"
        "#             w3:         0x000007 <- 0x0000000000010004\n"
        "#             w4:         0x00000007 -> 0x1\n");
    read_trace(p, NULL, 1, &r);
    CHECK_EQ_U64(r.rc, 0);
    CHECK_EQ_U64(r.n, 3); /* the good ifetch and load, and the load of line 5 */
    CHECK_EQ_U64(r.acc[1].time, 3);
    CHECK_EQ_U64(r.acc[2].size, 3);
    CHECK_EQ_U64(r.info.malformed, 3);
    CHECK_EQ_U64(r.info.nreasons, 3);
    CHECK_STR_CONTAINS(r.info.reasons[0].what, "odd number of hex digits");
    CHECK_STR_CONTAINS(r.info.reasons[0].first, "lenient.log:2:");
    CHECK_EQ_U64(warning_count(&r, "size not 1, 2, 4, 8 or 16"), 1);
}

TEST(probe_tells_vixl_from_din)
{
    static run r;
    const char *p = tmp_file("plain.din", "2 400000\n0 10000\n1 10004\n");
    read_trace(p, NULL, 0, &r);
    CHECK(r.info.format && strcmp(r.info.format, "din") == 0);
    p = tmp_file("disasm-only.log",
                 "0x0000000000400000  b9400002\t\tldr w2, [x0]\n"
                 "0x0000000000400004  b9400003\t\tldr w3, [x0]\n");
    read_trace(p, NULL, 0, &r);
    CHECK(r.info.format && strcmp(r.info.format, "vixl") == 0);
    CHECK_EQ_U64(r.n, 2);
    CHECK_EQ_U64(warning_count(&r, "instructions but no memory accesses"), 1);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cachet-test-vixl-XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    RUN(every_access_form_decodes_to_the_documented_access);
    RUN(colour_codes_do_not_change_the_stream);
    RUN(old_layout_load_sizes_come_from_the_mnemonic);
    RUN(old_layout_without_disassembly_uses_fp_names_or_warns);
    RUN(masked_addresses_are_counted_and_refused_by_the_model);
    RUN(predicate_chunks_printed_two_bytes_apart_stay_as_printed);
    RUN(stores_without_loads_are_reported);
    RUN(malformed_lines_stop_strict_mode_with_line_column_and_reason);
    RUN(lenient_mode_skips_malformed_lines_and_counts_them_by_reason);
    RUN(probe_tells_vixl_from_din);
    {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmpdir);
    }
    return harness_done();
}
