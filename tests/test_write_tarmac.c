/*
 * test_write_tarmac.c - the Tarmac writer: the exact lines written for
 * each kind of access, the splitting of odd sizes, what is dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "cachet/cachet.h"
#include "harness.h"

static char out[8192];
static size_t nout;

static int mem_write(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    if (nout + len >= sizeof out)
        return -1;
    memcpy(out + nout, data, len);
    nout += len;
    out[nout] = '\0';
    return 0;
}

TEST(each_kind_is_written_as_documented)
{
    static const ct_access acc[] = {
        {.kind = CT_IFETCH, .vaddr = 0x400000, .pc = 0x400000, .size = 4, .time = 1},
        {.kind = CT_LOAD, .vaddr = 0x10000, .size = 4, .time = 2, .cpu = 1,
         .paddr = 0x80010000, .flags = CT_F_PADDR | CT_F_NS},
        {.kind = CT_STORE, .vaddr = 0x10008, .size = 8, .time = 3, .flags = CT_F_EXCL},
        {.kind = CT_ATOMIC, .vaddr = 0x10010, .size = 2, .time = 4},
        {.kind = CT_STORE, .vaddr = 0x20000, .size = 12, .time = 5, .paddr = 0x1020000,
         .flags = CT_F_PADDR},
        {.kind = CT_LOAD, .vaddr = 0x20001, .size = 3, .time = 6, .flags = CT_F_UNPRIV},
        {.kind = CT_LOAD, .vaddr = 0x123456789a0, .size = 16, .time = 7},
        {.kind = CT_IFETCH, .vaddr = 0x8000, .size = 2, .time = 8},
        {.kind = CT_IFETCH, .vaddr = 0x8002, .size = 3, .time = 9},       /* dropped */
        {.kind = CT_PREFETCH, .vaddr = 0x30000, .size = 64, .time = 10},  /* dropped */
        {.kind = CT_CACHEOP, .op = CT_OP_CLEAN, .vaddr = 0x30000, .size = 64}, /* dropped */
        {.kind = CT_LOAD, .size = 4, .flags = CT_F_NOADDR | CT_F_NOPC},  /* dropped */
        {.kind = CT_NOFETCH, .vaddr = 0x8004, .size = 4},                 /* dropped */
    };
    static const char want[] =
        "1 clk cpu0 IT (0) 00400000 00000000 O : (fetch)\n"
        "2 clk cpu1 MR4 00010000:000080010000_NS xxxxxxxx\n"
        "3 clk cpu0 MW8X 00010008 xxxxxxxx_xxxxxxxx\n"
        "4 clk cpu0 MR2 00010010 xxxx\n"
        "4 clk cpu0 MW2 00010010 xxxx\n"
        "5 clk cpu0 MW8 00020000:000001020000 xxxxxxxx_xxxxxxxx\n"
        "5 clk cpu0 MW4 00020008:000001020008 xxxxxxxx\n"
        "6 clk cpu0 MR2T 00020001 xxxx\n"
        "6 clk cpu0 MR1T 00020003 xx\n"
        "7 clk cpu0 MR16 123456789a0 xxxxxxxxxxxxxxxx xxxxxxxxxxxxxxxx\n"
        "8 clk cpu0 IT (1) 00008000 0000 T : (fetch)\n";
    ct_writer w = {mem_write, NULL, 0};
    ct_trace_writer *tw = NULL;
    ct_batch b = {0};
    ct_error err = {0};

    CHECK_EQ_U64(ct_trace_writer_open(&tw, "tarmac", &w, &err), CT_OK);
    CHECK_EQ_U64(ct_batch_init(&b, 64), CT_OK);
    memcpy(b.acc, acc, sizeof acc);
    b.n = sizeof acc / sizeof acc[0];
    CHECK_EQ_U64(ct_trace_writer_put(tw, &b, &err), CT_OK);
    CHECK_EQ_U64(ct_trace_writer_dropped(tw), 5);
    CHECK_EQ_U64(ct_trace_writer_finish(tw, &err), CT_OK);
    CHECK(strcmp(out, want) == 0);
    if (strcmp(out, want) != 0)
        fprintf(stderr, "got:\n%s", out);
    ct_batch_free(&b);
}

TEST(write_errors_are_reported)
{
    ct_writer w = {mem_write, NULL, 0};
    ct_trace_writer *tw = NULL;
    ct_batch b = {0};
    ct_error err = {0};
    int rc = CT_OK;

    nout = 0;
    CHECK_EQ_U64(ct_trace_writer_open(&tw, "tarmac", &w, &err), CT_OK);
    ct_batch_init(&b, 1000);
    for (uint32_t i = 0; i < 1000; i++)
        b.acc[i] = (ct_access){.kind = CT_LOAD, .vaddr = 0x1000 + 8 * i, .size = 8, .time = i};
    b.n = 1000;
    /* 1000 lines do not fit in the 8 KiB sink */
    for (int k = 0; k < 3 && rc == CT_OK; k++)
        rc = ct_trace_writer_put(tw, &b, &err);
    if (rc == CT_OK)
        rc = ct_trace_writer_finish(tw, &err);
    else
        ct_trace_writer_finish(tw, NULL);
    CHECK_EQ_U64(rc, (uint64_t)(int64_t)CT_E_IO);
    CHECK_STR_CONTAINS(err.msg, "write error");
    ct_batch_free(&b);
}

int main(void)
{
    RUN(each_kind_is_written_as_documented);
    RUN(write_errors_are_reported);
    return harness_done();
}
