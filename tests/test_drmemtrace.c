/*
 * test_drmemtrace.c - the drmemtrace decoder on small traces written by
 * dmt_writer.h: record mapping, widths, versions, containers, zip chunks,
 * directories, physical addresses, and malformed input.
 */
#include <sys/stat.h>

#include "dmt_writer.h"
#include "harness.h"
#include "trace_collect.h"

static const char *const lenient[] = {"trace.lenient=yes", NULL};

/* A version-7 thread with one of every kind of record. */
static void build_sampler(dw_buf *b, unsigned rs)
{
    uint64_t ft = rs == 12 ? DW_FT_X86_64 | DW_FT_ENCODINGS : DW_FT_X86_32 | DW_FT_ENCODINGS;
    dw_init(b, rs);
    dw_header(b, 7, ft, 101, 0);
    dw_marker(b, DWM_PAGE_SIZE, 4096);
    dw_marker(b, DWM_TIMESTAMP, 1000);
    dw_marker(b, DWM_CPU_ID, 3);
    dw_rec(b, DW_ENCODING, 4, 0x11223344);
    dw_rec(b, DW_INSTR, 4, 0x1000);                /* ifetch 0x1000/4 */
    dw_rec(b, DW_READ, 8, 0x8000);                 /* load */
    dw_rec(b, DW_WRITE, 4, 0x9000);                /* store */
    dw_rec(b, DW_CONDITIONAL_JUMP, 3, 0x1004);     /* ifetch */
    dw_rec(b, DW_PREFETCHT0, 1, 0xa000);           /* prefetch, level 1 */
    dw_rec(b, DW_PREFETCH_WRITE_L2_NT, 1, 0xa100); /* write, level 2, nt */
    dw_rec(b, DW_PREFETCH_INSTR, 1, 0xa200);       /* instruction, no level */
    dw_rec(b, DW_NO_FETCH, 3, 0x1004);             /* nofetch */
    dw_rec(b, DW_MAYBE_FETCH, 3, 0x1004);          /* same pc: nofetch */
    dw_rec(b, DW_MAYBE_FETCH, 2, 0x1007);          /* new pc: ifetch */
    dw_rec(b, DW_INSTR, 0, 0x2000);                /* pc only */
    dw_rec(b, DW_READ, 4, 0xb000);                 /* load, pc 0x2000 */
    dw_rec(b, DW_DATA_FLUSH, 0, 0xc000);
    dw_rec(b, DW_DATA_FLUSH_END, 0, 0xc100);       /* cacheop 0xc000/0x100 */
    dw_rec(b, DW_INSTR_FLUSH, 64, 0xd000);         /* cacheop, instruction side */
    dw_marker(b, DWM_BRANCH_TARGET, 0x3000);
    dw_rec(b, DW_TAKEN_JUMP, 2, 0x2000);           /* ifetch */
    dw_marker(b, DWM_KERNEL_EVENT, 0x2002);
    dw_marker(b, DWM_CORE_IDLE, 0);
    dw_marker(b, DWM_CORE_IDLE, 0);
    dw_marker(b, DWM_CORE_IDLE, 0);
    dw_marker(b, 60, 7);                           /* unknown marker type */
    dw_end(b, 101);
}

static void check_sampler(const tc_result *r, const char *what)
{
    static const struct {
        int kind;
        uint64_t addr;
        uint32_t size;
        uint64_t pc;
        uint8_t op;
    } want[] = {
        {CT_IFETCH, 0x1000, 4, 0x1000, 0},
        {CT_LOAD, 0x8000, 8, 0x1000, 0},
        {CT_STORE, 0x9000, 4, 0x1000, 0},
        {CT_IFETCH, 0x1004, 3, 0x1004, 0},
        {CT_PREFETCH, 0xa000, 1, 0x1004, 1 << CT_PF_LEVEL_SHIFT},
        {CT_PREFETCH, 0xa100, 1, 0x1004, CT_PF_WRITE | CT_PF_NT | 2 << CT_PF_LEVEL_SHIFT},
        {CT_PREFETCH, 0xa200, 1, 0x1004, CT_PF_INSTR},
        {CT_NOFETCH, 0x1004, 3, 0x1004, 0},
        {CT_NOFETCH, 0x1004, 3, 0x1004, 0},
        {CT_IFETCH, 0x1007, 2, 0x1007, 0},
        {CT_LOAD, 0xb000, 4, 0x2000, 0},
        {CT_CACHEOP, 0xc000, 0x100, 0x2000, CT_OP_CLEAN_INVAL},
        {CT_CACHEOP, 0xd000, 64, 0x2000, CT_OP_CLEAN_INVAL | CT_OP_ISIDE},
        {CT_IFETCH, 0x2000, 2, 0x2000, 0},
    };
    size_t n = sizeof want / sizeof want[0];

    fprintf(stderr, "  (%s)\n", what);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->n, n);
    for (size_t i = 0; i < n && i < r->n; i++) {
        CHECK_EQ_U64(r->a[i].kind, want[i].kind);
        CHECK_EQ_U64(r->a[i].vaddr, want[i].addr);
        CHECK_EQ_U64(r->a[i].size, want[i].size);
        CHECK_EQ_U64(r->a[i].pc, want[i].pc);
        CHECK_EQ_U64(r->a[i].op, want[i].op);
        CHECK_EQ_U64(r->a[i].thread, 101);
        CHECK_EQ_U64(r->a[i].cpu, 3);
    }
    CHECK_EQ_U64(tc_markers(r, CT_MK_THREAD), 1);
    CHECK_EQ_U64(tc_markers(r, CT_MK_TIMESTAMP), 1);
    CHECK_EQ_U64(tc_markers(r, CT_MK_CPU), 1);
    CHECK_EQ_U64(tc_markers(r, CT_MK_KERNEL), 1);
    CHECK_EQ_U64(tc_markers(r, CT_MK_LINE_SIZE), 1);
    CHECK_EQ_U64(tc_markers(r, CT_MK_PAGE_SIZE), 1);
    CHECK_EQ_U64(tc_markers(r, CT_MK_IDLE), 1);   /* three coalesced */
    CHECK_EQ_U64(tc_markers(r, CT_MK_THREAD_EXIT), 1);
    for (size_t i = 0; i < r->nm; i++) {
        if (r->m[i].type == CT_MK_IDLE)
            CHECK_EQ_U64(r->m[i].value2, 3);
        if (r->m[i].type == CT_MK_TIMESTAMP)
            CHECK_EQ_U64(r->m[i].time, 1000);
    }
    CHECK_EQ_U64(r->info.nwarnings, 1);  /* marker type 60 */
    CHECK_EQ_U64(r->info.malformed, 0);
    CHECK(strcmp(r->info.format, "drmemtrace") == 0);
}

TEST(every_record_kind_maps_to_its_access)
{
    dw_buf b;
    build_sampler(&b, 12);
    dw_file(dw_path("sampler.trace"), b.p, b.n);
    check_sampler(tc_read1(dw_path("sampler.trace"), NULL), "12-byte records");
    CHECK_EQ_U64(tc_read1(dw_path("sampler.trace"), NULL)->info.records, b.n / 12);
    dw_free(&b);
}

TEST(eight_byte_records_are_detected)
{
    dw_buf b;
    build_sampler(&b, 8);
    dw_file(dw_path("sampler32.trace"), b.p, b.n);
    check_sampler(tc_read1(dw_path("sampler32.trace"), NULL), "8-byte records");
    dw_free(&b);
}

TEST(every_container_gives_the_same_stream)
{
    dw_buf b;
    const dw_buf *members[1];
    const char *names[1] = {"chunk.0000"};
    build_sampler(&b, 12);
    members[0] = &b;
    dw_gzip(dw_path("c.trace.gz"), b.p, b.n);
    dw_zstd(dw_path("c.trace.zst"), b.p, b.n);
    dw_lz4(dw_path("c.trace.lz4"), b.p, b.n);
    dw_snappy(dw_path("c.sz"), b.p, b.n, 100);  /* several snappy chunks */
    dw_zip(dw_path("c.trace.zip"), 1, names, members);
    check_sampler(tc_read1(dw_path("c.trace.gz"), NULL), "gzip");
    check_sampler(tc_read1(dw_path("c.trace.zst"), NULL), "zstd");
    check_sampler(tc_read1(dw_path("c.trace.lz4"), NULL), "lz4");
    check_sampler(tc_read1(dw_path("c.sz"), NULL), "snappy framed");
    check_sampler(tc_read1(dw_path("c.trace.zip"), NULL), "zip");
    dw_free(&b);
}

TEST(bundles_expand_at_consecutive_pcs)
{
    dw_buf b;
    tc_result *r;
    dw_init(&b, 12);
    dw_header(&b, 7, DW_FT_X86_64, 7, 0);
    dw_rec(&b, DW_INSTR, 2, 0x100);
    dw_bytes(&b, (const uint8_t[]){DW_BUNDLE, 0, 3, 0, 1, 4, 2, 0, 0, 0, 0, 0}, 12);
    dw_end(&b, 7);
    dw_file(dw_path("bundle.trace"), b.p, b.n);
    r = tc_read1(dw_path("bundle.trace"), NULL);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->n, 4);
    CHECK_EQ_U64(r->a[1].vaddr, 0x102);
    CHECK_EQ_U64(r->a[1].size, 1);
    CHECK_EQ_U64(r->a[2].vaddr, 0x103);
    CHECK_EQ_U64(r->a[2].size, 4);
    CHECK_EQ_U64(r->a[3].vaddr, 0x107);
    CHECK_EQ_U64(r->a[3].size, 2);
    dw_free(&b);
}

/* A flush range of 4 GiB or more becomes one CT_OP_LONG operation with its
 * length in pc; one byte shorter keeps the length in size. */
TEST(a_flush_range_over_4_gib_keeps_its_length)
{
    dw_buf b;
    tc_result *r;
    dw_init(&b, 12);
    dw_header(&b, 7, DW_FT_X86_64, 7, 0);
    dw_rec(&b, DW_INSTR, 2, 0x100);
    dw_rec(&b, DW_DATA_FLUSH, 0, 0x40);
    dw_rec(&b, DW_DATA_FLUSH_END, 0, 0x200000040ull);
    dw_rec(&b, DW_INSTR_FLUSH, 0, 0x1000);
    dw_rec(&b, DW_INSTR_FLUSH_END, 0, 0x100000fffull);
    dw_end(&b, 7);
    dw_file(dw_path("longflush.trace"), b.p, b.n);
    r = tc_read1(dw_path("longflush.trace"), NULL);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->n, 3);
    if (r->n == 3) {
        CHECK_EQ_U64(r->a[1].kind, CT_CACHEOP);
        CHECK_EQ_U64(r->a[1].vaddr, 0x40);
        CHECK_EQ_U64(r->a[1].op, CT_OP_CLEAN_INVAL | CT_OP_LONG);
        CHECK_EQ_U64(r->a[1].size, 0);
        CHECK_EQ_U64(ct_cacheop_bytes(&r->a[1]), 0x200000000ull);
        CHECK(r->a[1].flags & CT_F_NOPC);
        CHECK_EQ_U64(r->a[2].op, CT_OP_CLEAN_INVAL | CT_OP_ISIDE);
        CHECK_EQ_U64(r->a[2].size, 0xffffffffull);
        CHECK_EQ_U64(ct_cacheop_bytes(&r->a[2]), 0xffffffffull);
    }
    dw_free(&b);
}

TEST(legacy_version_1_with_markers_before_the_thread)
{
    dw_buf b;
    tc_result *r;
    dw_init(&b, 12);
    dw_rec(&b, DW_HEADER, 0, 1);
    dw_marker(&b, DWM_TIMESTAMP, 77);   /* before THREAD: belongs to thread 9 */
    dw_rec(&b, DW_THREAD, 8, 9);
    dw_rec(&b, DW_PID, 8, 1);
    dw_rec(&b, DW_INSTR, 4, 0x400);
    dw_rec(&b, DW_WRITE, 8, 0x500);
    dw_end(&b, 9);
    dw_file(dw_path("v1.trace"), b.p, b.n);
    r = tc_read1(dw_path("v1.trace"), NULL);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->n, 2);
    CHECK_EQ_U64(r->m[0].type, CT_MK_TIMESTAMP);
    CHECK_EQ_U64(r->m[0].thread, 9);
    CHECK_EQ_U64(r->a[1].kind, CT_STORE);
    CHECK_EQ_U64(r->a[1].thread, 9);
    dw_free(&b);
}

TEST(interleaved_threads_switch_and_keep_their_cpu)
{
    dw_buf b;
    tc_result *r;
    dw_init(&b, 12);
    dw_header(&b, 1, 0, 1, 0);
    dw_marker(&b, DWM_CPU_ID, 5);
    dw_rec(&b, DW_INSTR, 4, 0x10);
    dw_rec(&b, DW_THREAD, 8, 2);
    dw_rec(&b, DW_PID, 8, 1);
    dw_marker(&b, DWM_CPU_ID, 6);
    dw_rec(&b, DW_INSTR, 4, 0x20);
    dw_rec(&b, DW_THREAD, 8, 1);
    dw_rec(&b, DW_INSTR, 4, 0x14);
    dw_rec(&b, DW_THREAD, 8, 1);        /* a repeat changes nothing */
    dw_rec(&b, DW_READ, 4, 0x99);
    dw_rec(&b, DW_FOOTER, 0, 0);
    dw_file(dw_path("inter.trace"), b.p, b.n);
    r = tc_read1(dw_path("inter.trace"), (const char *const[]){"trace.schedule=single", NULL});
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->n, 4);
    CHECK_EQ_U64(r->a[0].thread, 1);
    CHECK_EQ_U64(r->a[0].cpu, 5);
    CHECK_EQ_U64(r->a[1].thread, 2);
    CHECK_EQ_U64(r->a[1].cpu, 6);
    CHECK_EQ_U64(r->a[2].thread, 1);
    CHECK_EQ_U64(r->a[2].cpu, 5);
    CHECK_EQ_U64(r->a[3].pc, 0x14);
    CHECK_EQ_U64(tc_markers(r, CT_MK_THREAD), 3);
    CHECK_EQ_U64(r->info.threads, 2);
    dw_free(&b);
}

/* Three chunks of a chunked trace, as raw2trace writes them. */
static void build_chunks(dw_buf c[3])
{
    for (int i = 0; i < 3; i++)
        dw_init(&c[i], 12);
    dw_header(&c[0], 7, DW_FT_X86_64, 5, 2);
    dw_marker(&c[0], DWM_TIMESTAMP, 500);
    dw_marker(&c[0], DWM_CPU_ID, 1);
    dw_rec(&c[0], DW_INSTR, 4, 0x100);
    dw_rec(&c[0], DW_INSTR, 4, 0x104);
    dw_marker(&c[0], DWM_CHUNK_FOOTER, 0);
    for (int i = 1; i < 3; i++) {
        dw_marker(&c[i], DWM_RECORD_ORDINAL, 10 * (uint64_t)i);
        dw_marker(&c[i], DWM_TIMESTAMP, 500);   /* duplicates of the last ones */
        dw_marker(&c[i], DWM_CPU_ID, 1);
        dw_rec(&c[i], DW_INSTR, 4, 0x100 + 0x100 * (uint64_t)i);
        dw_rec(&c[i], DW_INSTR, 4, 0x104 + 0x100 * (uint64_t)i);
    }
    dw_marker(&c[1], DWM_CHUNK_FOOTER, 1);
    dw_marker(&c[2], DWM_TIMESTAMP, 900);       /* a new one */
    dw_end(&c[2], 5);
}

TEST(zip_chunks_in_archive_order_without_duplicates)
{
    dw_buf c[3];
    const dw_buf *m[3] = {&c[0], &c[1], &c[2]};
    /* names out of order on purpose: the archive order decides */
    const char *names[3] = {"chunk.00000000", "chunk.00000002", "chunk.00000001"};
    const char *names4[3] = {"chunk.0000", "chunk.0001", "chunk.0002"};
    tc_result *r;

    build_chunks(c);
    dw_zip(dw_path("chunks8.trace.zip"), 3, names, m);
    dw_zip(dw_path("chunks4.trace.zip"), 3, names4, m);
    for (int k = 0; k < 2; k++) {
        r = tc_read1(dw_path(k ? "chunks4.trace.zip" : "chunks8.trace.zip"), NULL);
        CHECK_EQ_U64(r->rc, 0);
        CHECK_EQ_U64(r->n, 6);
        for (size_t i = 0; i < 6 && i < r->n; i++)
            CHECK_EQ_U64(r->a[i].vaddr, 0x100 + 0x100 * (i / 2) + 4 * (i % 2));
        CHECK_EQ_U64(tc_markers(r, CT_MK_TIMESTAMP), 2);  /* 500 and 900 */
        CHECK_EQ_U64(tc_markers(r, CT_MK_CPU), 1);
        CHECK_EQ_U64(r->info.malformed, 0);
    }
    for (int i = 0; i < 3; i++)
        dw_free(&c[i]);
}

TEST(physical_address_markers_translate_pages)
{
    dw_buf b;
    tc_result *r;
    dw_init(&b, 12);
    dw_header(&b, 7, DW_FT_X86_64, 3, 0);
    dw_marker(&b, DWM_PAGE_SIZE, 4096);
    dw_marker(&b, DWM_PHYSICAL_ADDRESS, 0x55000);
    dw_marker(&b, DWM_VIRTUAL_ADDRESS, 0x7000);
    dw_rec(&b, DW_INSTR, 4, 0x7ff0);
    dw_rec(&b, DW_READ, 8, 0x7010);
    dw_rec(&b, DW_READ, 8, 0x9010);     /* page never mapped */
    dw_end(&b, 3);
    dw_file(dw_path("phys.trace"), b.p, b.n);
    r = tc_read1(dw_path("phys.trace"), NULL);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->n, 3);
    CHECK(r->a[0].flags & CT_F_PADDR);
    CHECK_EQ_U64(r->a[0].paddr, 0x55ff0);
    CHECK_EQ_U64(r->a[1].paddr, 0x55010);
    CHECK(!(r->a[2].flags & CT_F_PADDR));
    dw_free(&b);
}

TEST(directories_skip_side_files_and_accept_dir_trace)
{
    dw_buf a, b;
    tc_result *r;
    char dir[600];

    dw_init(&a, 12);
    dw_header(&a, 7, DW_FT_X86_64, 1, 0);
    dw_rec(&a, DW_INSTR, 4, 0x10);
    dw_end(&a, 1);
    dw_init(&b, 12);
    dw_header(&b, 7, DW_FT_X86_64, 2, 0);
    dw_rec(&b, DW_INSTR, 4, 0x20);
    dw_rec(&b, DW_READ, 4, 0x30);
    dw_end(&b, 2);
    snprintf(dir, sizeof dir, "%s", dw_path("app.123.dir"));
    mkdir(dir, 0700);
    mkdir(dw_path("app.123.dir/trace"), 0700);
    mkdir(dw_path("app.123.dir/trace/aux"), 0700);
    dw_file(dw_path("app.123.dir/trace/t.1.trace"), a.p, a.n);
    dw_gzip(dw_path("app.123.dir/trace/t.2.trace.gz"), b.p, b.n);
    dw_file(dw_path("app.123.dir/trace/cpu_schedule.bin.zip"), "PK junk", 7);
    dw_file(dw_path("app.123.dir/trace/serial_schedule.bin.gz"), "junk", 4);
    dw_file(dw_path("app.123.dir/trace/funclist.log"), "0,1,0x10,f\n", 11);
    dw_file(dw_path("app.123.dir/trace/modules.log"), "junk", 4);
    r = tc_read1(dir, NULL);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->info.streams, 2);
    CHECK_EQ_U64(r->n, 3);
    CHECK_EQ_U64(r->info.threads, 2);
    r = tc_read1(dw_path("app.123.dir/trace"), NULL);
    CHECK_EQ_U64(r->info.streams, 2);

    /* a multi-window trace: one window at a time */
    mkdir(dw_path("win.dir"), 0700);
    mkdir(dw_path("win.dir/window.0000"), 0700);
    mkdir(dw_path("win.dir/window.0001"), 0700);
    dw_file(dw_path("win.dir/window.0000/t.1.trace"), a.p, a.n);
    r = tc_read1(dw_path("win.dir"), (const char *const[]){"trace.format=drmemtrace", NULL});
    CHECK_EQ_U64(r->rc, CT_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(r->err.msg, "a multi-window trace (2 window.NNNN directories)");
    r = tc_read1(dw_path("win.dir/window.0000"), NULL);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->n, 1);

    /* a directory holding only raw files */
    mkdir(dw_path("raw.dir"), 0700);
    mkdir(dw_path("raw.dir/raw"), 0700);
    dw_file(dw_path("raw.dir/raw/t.1.raw.lz4"), "x", 1);
    r = tc_read1(dw_path("raw.dir"), (const char *const[]){"trace.format=drmemtrace", NULL});
    CHECK_EQ_U64(r->rc, CT_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(r->err.msg, "raw2trace");
    dw_free(&a);
    dw_free(&b);
}

TEST(directories_are_read_by_content_not_by_name)
{
    dw_buf a, b;
    tc_result *r;

    dw_init(&a, 12);
    dw_header(&a, 7, DW_FT_X86_64, 11, 0);
    dw_rec(&a, DW_INSTR, 4, 0x10);
    dw_end(&a, 11);
    dw_init(&b, 12);
    dw_header(&b, 7, DW_FT_X86_64, 12, 0);
    dw_rec(&b, DW_INSTR, 4, 0x20);
    dw_rec(&b, DW_WRITE, 4, 0x30);
    dw_end(&b, 12);
    mkdir(dw_path("named.dir"), 0700);
    /* per-thread traces under names no rule knows */
    dw_gzip(dw_path("named.dir/app.11.memtrace.gz"), a.p, a.n);
    dw_file(dw_path("named.dir/thread-12.bin"), b.p, b.n);
    /* files that are not traces, and DynamoRIO's side files */
    dw_file(dw_path("named.dir/README.txt"), "how this was traced\n", 20);
    dw_gzip(dw_path("named.dir/notes.gz"), "not a trace either", 18);
    dw_file(dw_path("named.dir/empty"), "", 0);
    dw_file(dw_path("named.dir/funclist.log"), "0,1,0x10,f\n", 11);
    dw_file(dw_path("named.dir/cpu_schedule.bin.zip"), "PK junk", 7);
    r = tc_read1(dw_path("named.dir"), NULL);
    CHECK_EQ_U64(r->rc, 0);
    CHECK(r->info.format && strcmp(r->info.format, "drmemtrace") == 0);
    CHECK_EQ_U64(r->info.streams, 2);
    CHECK_EQ_U64(r->n, 3);
    CHECK_EQ_U64(r->info.threads, 2);
    CHECK_EQ_U64(r->info.ignored_files, 3);   /* README.txt, notes.gz, empty */
    CHECK_STR_CONTAINS(r->info.ignored_first, "named.dir/");

    /* only files that are not traces: an error that says so */
    mkdir(dw_path("none.dir"), 0700);
    dw_file(dw_path("none.dir/README.txt"), "nothing here\n", 13);
    r = tc_read1(dw_path("none.dir"), (const char *const[]){"trace.format=drmemtrace", NULL});
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "none.dir: directory holds no drmemtrace trace files (1 file "
                                   "that is not a trace, e.g. ");

    /* a raw file, whatever its name, is refused with the hint */
    mkdir(dw_path("rawname.dir"), 0700);
    dw_file(dw_path("rawname.dir/t.1.trace"), a.p, a.n);
    dw_file(dw_path("rawname.dir/thread2"), "\x40\x0c\x00\x00\x00\x00\x08\xc4\0\0\0\0\0\0\0\0",
            16);
    r = tc_read1(dw_path("rawname.dir"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(r->err.msg, "rawname.dir/thread2: raw drmemtrace file");
    dw_free(&a);
    dw_free(&b);
}

/* ---- malformed input ---- */

/* A good prefix: header (records 0..6) and two accesses (7 and 8). */
static void good_prefix(dw_buf *b)
{
    dw_init(b, 12);
    dw_header(b, 7, DW_FT_X86_64, 1, 0);
    dw_rec(b, DW_INSTR, 4, 0x10);
    dw_rec(b, DW_READ, 4, 0x20);
}

TEST(truncated_record_names_file_offset_and_index)
{
    dw_buf b;
    tc_result *r;
    good_prefix(&b);
    dw_bytes(&b, "\x0a\x00\x04\x00\x10", 5);   /* 5 of 12 bytes */
    dw_file(dw_path("trunc.trace"), b.p, b.n);
    r = tc_read1(dw_path("trunc.trace"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "trunc.trace: byte 108, record 9: truncated record: 5 of 12 bytes");
    r = tc_read1(dw_path("trunc.trace"), lenient);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->n, 2);
    CHECK_EQ_U64(r->info.malformed, 1);
    dw_free(&b);
}

TEST(unknown_type_stops_or_is_skipped)
{
    dw_buf b;
    tc_result *r;
    good_prefix(&b);
    dw_rec(&b, 77, 0, 0);
    dw_rec(&b, DW_WRITE, 4, 0x40);
    dw_end(&b, 1);
    dw_file(dw_path("unknown.trace"), b.p, b.n);
    r = tc_read1(dw_path("unknown.trace"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "unknown.trace: byte 108, record 9: unknown record type 77");
    r = tc_read1(dw_path("unknown.trace"), lenient);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->n, 3);
    CHECK_EQ_U64(r->a[2].kind, CT_STORE);
    CHECK_EQ_U64(r->info.malformed, 1);
    CHECK_STR_CONTAINS(r->info.reasons[0].what, "unknown record type");
    dw_free(&b);
}

TEST(header_faults_always_stop)
{
    dw_buf b;
    tc_result *r;

    dw_init(&b, 12);
    dw_header(&b, 8, DW_FT_X86_64, 1, 0);      /* newer than version 7 */
    dw_file(dw_path("v8.trace"), b.p, b.n);
    r = tc_read1(dw_path("v8.trace"), lenient);
    CHECK_EQ_U64(r->rc, CT_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(r->err.msg, "v8.trace: byte 0, record 0: unsupported trace version 8");
    dw_free(&b);

    dw_init(&b, 12);
    dw_header(&b, 7, DW_FT_X86_64 | DW_FT_TEMPLATES, 1, 0);
    dw_file(dw_path("tmpl.trace"), b.p, b.n);
    r = tc_read1(dw_path("tmpl.trace"), lenient);
    CHECK_EQ_U64(r->rc, CT_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(r->err.msg, "record 2: file type 0x4040: a library of kernel");
    dw_free(&b);

    dw_init(&b, 12);
    dw_header(&b, 7, DW_FT_X86_32, 1, 0);       /* 32-bit, yet 12-byte records */
    dw_file(dw_path("width.trace"), b.p, b.n);
    r = tc_read1(dw_path("width.trace"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "32-bit architecture but the records are 12 bytes wide");
    dw_free(&b);

    dw_init(&b, 12);
    dw_rec(&b, DW_HEADER, 0, 7);
    dw_rec(&b, DW_THREAD, 8, 1);
    dw_rec(&b, DW_READ, 4, 0x10);               /* before PID */
    dw_file(dw_path("nopid.trace"), b.p, b.n);
    r = tc_read1(dw_path("nopid.trace"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "record 2: record type 0 before the thread's PID record");
    dw_free(&b);

    /* a raw file: an offline_entry_t header (extended type 6, header 4, version 8) */
    dw_file(dw_path("t.raw"), "\x40\x0c\x00\x00\x00\x00\x08\xc4\0\0\0\0\0\0\0\0", 16);
    r = tc_read1(dw_path("t.raw"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(r->err.msg, "t.raw: raw drmemtrace file");
    CHECK_STR_CONTAINS(r->err.msg, "run raw2trace");
}

TEST(encoding_must_match_the_instruction)
{
    dw_buf b;
    tc_result *r;
    good_prefix(&b);
    dw_rec(&b, DW_ENCODING, 3, 0xabcdef);
    dw_rec(&b, DW_INSTR, 4, 0x50);
    dw_end(&b, 1);
    dw_file(dw_path("enc.trace"), b.p, b.n);
    r = tc_read1(dw_path("enc.trace"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "byte 120, record 10: encoding of 3 bytes for an instruction of 4 bytes");
    r = tc_read1(dw_path("enc.trace"), lenient);
    CHECK_EQ_U64(r->n, 3);   /* the instruction itself is kept */
    CHECK_EQ_U64(r->info.malformed, 1);
    dw_free(&b);
}

TEST(zip_member_faults_name_the_member_and_resync_leniently)
{
    dw_buf c[3], junk;
    const dw_buf *m[3] = {&c[0], &c[1], &c[2]};
    const char *names[3] = {"chunk.0000", "chunk.0001", "chunk.0002"};
    const char *bad_names[3] = {"chunk.0000", "notes.txt", "chunk.0002"};
    tc_result *r;

    build_chunks(c);
    /* a member that is not a chunk */
    dw_zip(dw_path("badname.zip"), 3, bad_names, m);
    r = tc_read1(dw_path("badname.zip"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "badname.zip:notes.txt: byte 0, record 0 (record 12 of the "
                                   "file): zip member is not a trace chunk");
    r = tc_read1(dw_path("badname.zip"), lenient);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->n, 4);       /* chunks 0 and 2 */
    CHECK_EQ_U64(r->info.malformed, 1);

    /* a chunk cut inside a record: skip to the next chunk */
    dw_bytes(&c[1], "\x01\x00\x04", 3);
    dw_zip(dw_path("cut.zip"), 3, names, m);
    r = tc_read1(dw_path("cut.zip"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "cut.zip:chunk.0001: byte 72, record 6 (record 18 of the "
                                   "file): truncated record: 3 of 12 bytes at the end of the member");
    r = tc_read1(dw_path("cut.zip"), lenient);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->n, 6);
    CHECK_EQ_U64(r->info.malformed, 1);

    /* a chunk without its footer */
    c[1].n -= 3 + 12;
    dw_zip(dw_path("nofooter.zip"), 3, names, m);
    r = tc_read1(dw_path("nofooter.zip"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "nofooter.zip:chunk.0001: byte 60, record 5");
    CHECK_STR_CONTAINS(r->err.msg, "without a CHUNK_FOOTER or FOOTER record (truncated chunk)");
    r = tc_read1(dw_path("nofooter.zip"), lenient);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->n, 6);
    CHECK_EQ_U64(r->info.malformed, 1);

    /* a member holding something else than trace records */
    dw_init(&junk, 12);
    dw_bytes(&junk, "this is not a trace at all!!!!!!!!!!", 36);
    m[1] = &junk;
    dw_zip(dw_path("junk.zip"), 3, names, m);
    r = tc_read1(dw_path("junk.zip"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "junk.zip:chunk.0001: byte 0, record 0");
    CHECK_STR_CONTAINS(r->err.msg, "unknown record type");
    for (int i = 0; i < 3; i++)
        dw_free(&c[i]);
    dw_free(&junk);
}

/* A trace of n body records after the header (7 records), the thread exit
 * and the footer: loads and fetches at distinct addresses. */
static void build_long(dw_buf *b, int n)
{
    dw_init(b, 12);
    dw_header(b, 7, DW_FT_X86_64, 1, 0);
    for (int i = 0; i < n; i++)
        dw_rec(b, i % 2 ? DW_READ : DW_INSTR, 4, 0x1000 + 7 * (uint64_t)i * (uint64_t)i);
    dw_end(b, 1);
}

/* A file of two compressed pieces: data[0..cut) and data[cut..n), each
 * compressed by `pack` on its own; then byte `at` of the second piece is
 * set to `x`. */
static void two_pieces(const char *path, const uint8_t *data, size_t n, size_t cut,
                       void (*pack)(const char *, const void *, size_t), size_t at, uint8_t x)
{
    size_t n1, n2;
    uint8_t *p1, *p2, *all;
    pack(dw_path("piece1"), data, cut);
    pack(dw_path("piece2"), data + cut, n - cut);
    p1 = dw_slurp(dw_path("piece1"), &n1);
    p2 = dw_slurp(dw_path("piece2"), &n2);
    p2[at] = x;
    all = malloc(n1 + n2);
    if (!all)
        abort();
    memcpy(all, p1, n1);
    memcpy(all + n1, p2, n2);
    dw_file(path, all, n1 + n2);
    free(p1);
    free(p2);
    free(all);
}

static void gzip_file(const char *path, const void *data, size_t n) { dw_gzip(path, data, n); }
static void zstd_file(const char *path, const void *data, size_t n) { dw_zstd(path, data, n); }
static void lz4_file(const char *path, const void *data, size_t n) { dw_lz4(path, data, n); }

TEST(a_damaged_stream_names_the_record_it_cuts)
{
    dw_buf b;
    tc_result *r;
    const size_t cut = 12 * 600;   /* the fault starts at record 600 */
    /* the whole file decompresses in one read: none of it is decoded */
    const char *const want = "the trace is read up to byte 0, record 0; the damage shows at "
                             "byte 7200, in record 600";

    build_long(&b, 2000);
    /* gzip: a second member whose first block has the reserved type 3 */
    two_pieces(dw_path("two.gz"), b.p, b.n, cut, gzip_file, 10, 0x07);
    r = tc_read1(dw_path("two.gz"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "two.gz: compressed byte ");
    CHECK_STR_CONTAINS(r->err.msg, "corrupt gzip data: invalid block type");
    CHECK_STR_CONTAINS(r->err.msg, want);
    CHECK_EQ_U64(r->info.records, 0);

    /* zstd and lz4: a second frame with a damaged magic number */
    two_pieces(dw_path("two.zst"), b.p, b.n, cut, zstd_file, 0, 0x00);
    r = tc_read1(dw_path("two.zst"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "two.zst: compressed byte ");
    CHECK_STR_CONTAINS(r->err.msg, want);
    two_pieces(dw_path("two.lz4"), b.p, b.n, cut, lz4_file, 0, 0x00);
    r = tc_read1(dw_path("two.lz4"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "two.lz4: compressed byte ");
    CHECK_STR_CONTAINS(r->err.msg, want);

    /* snappy: chunks of 1200 bytes; the CRC of the seventh is wrong */
    dw_snappy(dw_path("crc.sz"), b.p, b.n, 1200);
    {
        size_t n, at = 10;
        uint8_t *z = dw_slurp(dw_path("crc.sz"), &n);
        for (int k = 0; k < 6; k++)
            at += 4 + (size_t)(z[at + 1] | z[at + 2] << 8 | z[at + 3] << 16);
        z[at + 4] ^= 0x01;
        dw_file(dw_path("crc.sz"), z, n);
        free(z);
    }
    r = tc_read1(dw_path("crc.sz"), lenient);  /* lenient changes nothing here */
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "crc.sz: compressed byte ");
    CHECK_STR_CONTAINS(r->err.msg, "snappy chunk CRC mismatch");
    CHECK_STR_CONTAINS(r->err.msg, want);
    dw_free(&b);
}

/* Three chunks of 101, 100 and 102 records (the first with the header). */
static void build_big_chunks(dw_buf c[3])
{
    for (int i = 0; i < 3; i++)
        dw_init(&c[i], 12);
    dw_header(&c[0], 7, DW_FT_X86_64, 5, 50);
    for (int i = 0; i < 3; i++) {
        int n = i == 0 ? 93 : i == 1 ? 99 : 100;
        for (int k = 0; k < n; k++)
            dw_rec(&c[i], k % 2 ? DW_WRITE : DW_INSTR, 4,
                   0x10000 * (uint64_t)(i + 1) + 8 * (uint64_t)k);
    }
    dw_marker(&c[0], DWM_CHUNK_FOOTER, 0);
    dw_marker(&c[1], DWM_CHUNK_FOOTER, 1);
    dw_end(&c[2], 5);
}

TEST(lenient_reading_skips_a_zip_member_that_fails_its_checks)
{
    dw_buf c[3];
    const dw_buf *m[3] = {&c[0], &c[1], &c[2]};
    const char *names[3] = {"chunk.0000", "chunk.0001", "chunk.0002"};
    const int stored[3] = {0, 1, 0};
    tc_result *r;
    size_t n;
    uint8_t *z;
    uint64_t all;

    build_big_chunks(c);
    all = (93 + 99 + 100);   /* accesses of the three chunks */

    /* chunk.0001 stored, one address byte changed: the CRC differs */
    dw_zip_stored(dw_path("crc.zip"), 3, names, m, stored);
    z = dw_slurp(dw_path("crc.zip"), &n);
    z[dw_zip_data_at(z, 1) + 12 * 5 + 8] ^= 0x40;
    dw_file(dw_path("crc.zip"), z, n);
    free(z);
    r = tc_read1(dw_path("crc.zip"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "crc.zip:chunk.0001: uncompressed byte 1200: corrupt member: "
                                   "CRC error");
    CHECK_STR_CONTAINS(r->err.msg, "the member is read up to byte 0, record 0 (record 101 of "
                                   "the file); the damage shows at byte 1200, in record 100");
    r = tc_read1(dw_path("crc.zip"), lenient);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->info.malformed, 1);
    CHECK_STR_CONTAINS(r->info.reasons[0].what, "zip member CRC mismatch");
    CHECK_EQ_U64(r->n, all - 99);   /* the member is skipped */
    CHECK_EQ_U64(r->a[93].vaddr, 0x30000);
    CHECK_EQ_U64(r->a[r->n - 1].vaddr, 0x30000 + 8 * 99);

    /* chunk.0001 deflated, its first block of the reserved type 3 */
    dw_zip(dw_path("inflate.zip"), 3, names, m);
    z = dw_slurp(dw_path("inflate.zip"), &n);
    z[dw_zip_data_at(z, 1)] = 0x07;
    dw_file(dw_path("inflate.zip"), z, n);
    free(z);
    r = tc_read1(dw_path("inflate.zip"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "inflate.zip:chunk.0001: uncompressed byte 0: corrupt member: ");
    CHECK_STR_CONTAINS(r->err.msg, "the member is read up to byte 0, record 0 (record 101 of "
                                   "the file)");
    r = tc_read1(dw_path("inflate.zip"), lenient);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->info.malformed, 1);
    CHECK_STR_CONTAINS(r->info.reasons[0].what, "zip member does not inflate");
    CHECK_EQ_U64(r->n, all - 99);   /* chunk.0001 skipped */
    CHECK_EQ_U64(r->a[93].vaddr, 0x30000);
    CHECK_EQ_U64(r->a[r->n - 1].vaddr, 0x30000 + 8 * 99);
    for (int i = 0; i < 3; i++)
        dw_free(&c[i]);
}

TEST(a_trace_without_its_footer_is_truncated)
{
    static const char *const names[5] = {"nf.trace", "nf.trace.gz", "nf.trace.zst",
                                         "nf.trace.lz4", "nf.sz"};
    dw_buf b, c[3];
    const dw_buf *m[2] = {&c[0], &c[1]};
    const char *chunks[2] = {"chunk.0000", "chunk.0001"};
    tc_result *r;
    char want[96];

    /* cut at a record boundary: the thread exit is there, the footer not */
    build_long(&b, 40);
    b.n -= 12;
    dw_file(dw_path(names[0]), b.p, b.n);
    dw_gzip(dw_path(names[1]), b.p, b.n);
    dw_zstd(dw_path(names[2]), b.p, b.n);
    dw_lz4(dw_path(names[3]), b.p, b.n);
    dw_snappy(dw_path(names[4]), b.p, b.n, 100);
    snprintf(want, sizeof want, "byte %zu, record %zu: truncated: no footer", b.n, b.n / 12);
    for (int i = 0; i < 5; i++) {
        fprintf(stderr, "  (%s)\n", names[i]);
        r = tc_read1(dw_path(names[i]), NULL);
        CHECK_EQ_U64(r->rc, CT_E_FORMAT);
        CHECK_STR_CONTAINS(r->err.msg, names[i]);
        CHECK_STR_CONTAINS(r->err.msg, want);
        r = tc_read1(dw_path(names[i]), lenient);
        CHECK_EQ_U64(r->rc, 0);
        CHECK_EQ_U64(r->n, 40);    /* every access is there */
        CHECK_EQ_U64(r->info.malformed, 1);
        CHECK_STR_CONTAINS(r->info.reasons[0].what, "trace without its FOOTER (truncated)");
    }
    dw_free(&b);

    /* a chunked trace whose last chunk ends with CHUNK_FOOTER: chunks are missing */
    build_big_chunks(c);
    dw_zip(dw_path("nf.zip"), 2, chunks, m);
    r = tc_read1(dw_path("nf.zip"), NULL);
    CHECK_EQ_U64(r->rc, CT_E_FORMAT);
    CHECK_STR_CONTAINS(r->err.msg, "nf.zip: byte 2412, record 201: truncated: no footer");
    r = tc_read1(dw_path("nf.zip"), lenient);
    CHECK_EQ_U64(r->rc, 0);
    CHECK_EQ_U64(r->info.malformed, 1);
    for (int i = 0; i < 3; i++)
        dw_free(&c[i]);
}

TEST(an_unknown_version_is_refused_by_number)
{
    static const uint64_t versions[4] = {0, 8, 1000, (uint64_t)1 << 40};
    for (int i = 0; i < 4; i++) {
        dw_buf b;
        tc_result *r;
        char name[32], want[80];
        dw_init(&b, 12);
        dw_header(&b, 7, DW_FT_X86_64, 1, 0);
        for (int k = 0; k < 8; k++)         /* the HEADER's version */
            b.p[4 + k] = (uint8_t)(versions[i] >> (8 * k));
        dw_end(&b, 1);
        snprintf(name, sizeof name, "v%d.trace", i);
        dw_file(dw_path(name), b.p, b.n);
        r = tc_read1(dw_path(name), NULL);
        snprintf(want, sizeof want, "byte 0, record 0: unsupported trace version %llu",
                 (unsigned long long)versions[i]);
        CHECK_EQ_U64(r->rc, CT_E_UNSUPPORTED);
        CHECK_STR_CONTAINS(r->err.msg, want);
        CHECK(strstr(r->err.msg, "not a drmemtrace trace") == NULL);
        dw_free(&b);
    }
    /* 8-byte records: version 0 */
    {
        dw_buf b;
        tc_result *r;
        dw_init(&b, 8);
        dw_header(&b, 7, DW_FT_X86_32, 1, 0);
        memset(b.p + 4, 0, 4);
        dw_end(&b, 1);
        dw_file(dw_path("v0-32.trace"), b.p, b.n);
        r = tc_read1(dw_path("v0-32.trace"), NULL);
        CHECK_EQ_U64(r->rc, CT_E_UNSUPPORTED);
        CHECK_STR_CONTAINS(r->err.msg, "unsupported trace version 0");
        dw_free(&b);
    }
}

static void flip(const char *path, long at)
{
    FILE *f = fopen(path, "r+b");
    int ch;
    if (!f)
        abort();
    fseek(f, at, SEEK_SET);
    ch = fgetc(f);
    fseek(f, at, SEEK_SET);
    fputc(ch ^ 0x5a, f);
    fclose(f);
}

TEST(corrupt_compressed_streams_are_errors)
{
    dw_buf b;
    const dw_buf *m[1];
    const char *names[1] = {"chunk.0000"};
    tc_result *r;
    struct stat sb;

    dw_init(&b, 12);
    dw_header(&b, 7, DW_FT_X86_64, 1, 0);
    for (int i = 0; i < 2000; i++)
        dw_rec(&b, i % 2 ? DW_READ : DW_INSTR, 4, 0x1000 + 7 * (uint64_t)i * (uint64_t)i);
    dw_end(&b, 1);
    m[0] = &b;

    dw_gzip(dw_path("bad.gz"), b.p, b.n);
    stat(dw_path("bad.gz"), &sb);
    flip(dw_path("bad.gz"), sb.st_size / 2);
    r = tc_read1(dw_path("bad.gz"), lenient);
    CHECK(r->rc < 0);
    CHECK_STR_CONTAINS(r->err.msg, "bad.gz: compressed byte");

    dw_snappy(dw_path("bad.sz"), b.p, b.n, 4096);
    stat(dw_path("bad.sz"), &sb);
    flip(dw_path("bad.sz"), sb.st_size / 2);
    r = tc_read1(dw_path("bad.sz"), NULL);
    CHECK(r->rc < 0);
    CHECK_STR_CONTAINS(r->err.msg, "bad.sz: compressed byte");

    dw_lz4(dw_path("cut.lz4"), b.p, b.n);
    stat(dw_path("cut.lz4"), &sb);
    if (truncate(dw_path("cut.lz4"), sb.st_size - 20) != 0)
        abort();
    r = tc_read1(dw_path("cut.lz4"), NULL);
    CHECK(r->rc < 0);
    CHECK_STR_CONTAINS(r->err.msg, "cut.lz4: compressed byte");

    dw_zip(dw_path("bad.zip"), 1, names, m);
    stat(dw_path("bad.zip"), &sb);
    flip(dw_path("bad.zip"), sb.st_size / 3);
    r = tc_read1(dw_path("bad.zip"), NULL);
    CHECK(r->rc < 0);
    CHECK_STR_CONTAINS(r->err.msg, "bad.zip:chunk.0000: uncompressed byte ");
    /* lenient too: the only member holds the header, nothing can be read */
    r = tc_read1(dw_path("bad.zip"), lenient);
    CHECK(r->rc < 0);
    CHECK_STR_CONTAINS(r->err.msg, "bad.zip:chunk.0000: uncompressed byte ");
    dw_free(&b);
}

int main(void)
{
    RUN(every_record_kind_maps_to_its_access);
    RUN(eight_byte_records_are_detected);
    RUN(every_container_gives_the_same_stream);
    RUN(bundles_expand_at_consecutive_pcs);
    RUN(a_flush_range_over_4_gib_keeps_its_length);
    RUN(legacy_version_1_with_markers_before_the_thread);
    RUN(interleaved_threads_switch_and_keep_their_cpu);
    RUN(zip_chunks_in_archive_order_without_duplicates);
    RUN(physical_address_markers_translate_pages);
    RUN(directories_skip_side_files_and_accept_dir_trace);
    RUN(directories_are_read_by_content_not_by_name);
    RUN(truncated_record_names_file_offset_and_index);
    RUN(unknown_type_stops_or_is_skipped);
    RUN(header_faults_always_stop);
    RUN(encoding_must_match_the_instruction);
    RUN(zip_member_faults_name_the_member_and_resync_leniently);
    RUN(corrupt_compressed_streams_are_errors);
    RUN(a_damaged_stream_names_the_record_it_cuts);
    RUN(lenient_reading_skips_a_zip_member_that_fails_its_checks);
    RUN(a_trace_without_its_footer_is_truncated);
    RUN(an_unknown_version_is_refused_by_number);
    dw_cleanup();
    return harness_done();
}
