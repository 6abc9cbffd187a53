/*
 * test_tarmac.c - the Tarmac and Trace Matcher decoders, line kind by line
 * kind, on small hand-written traces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachet/cachet.h"
#include "frontends/tarmac.h"
#include "harness.h"

#define MAXREC 512

typedef struct decoded {
    int rc;
    char err[CT_ERRMSG_MAX];
    char format[32];
    ct_access acc[MAXREC];
    size_t n;
    ct_event ev[MAXREC];
    size_t nev;
    ct_marker mk[MAXREC];
    size_t nmk;
    uint64_t malformed, records;
    char names[16][128];
    uint32_t nnames;
    char warnings[CT_MAX_REASONS][96];
    uint64_t wcount[CT_MAX_REASONS];
    uint32_t nwarnings;
} decoded;

static decoded D;

/* Decode text (format NULL: detect) with optional "k=v" settings. */
static int decode(const char *text, const char *format, const char *set1, const char *set2)
{
    char path[] = "/tmp/cachet-test-tarmac-XXXXXX";
    int fd = mkstemp(path);
    ct_config *cfg = NULL;
    ct_trace *t = NULL;
    ct_trace_opts o = {0};
    ct_batch b = {0};
    ct_error err = {0};
    const char *paths[1] = {path};
    int rc;

    memset(&D, 0, sizeof D);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
        D.rc = -100;
        return D.rc;
    }
    close(fd);
    ct_config_new_default(&cfg, &err);
    if (set1)
        ct_config_set(cfg, set1, &err);
    if (set2)
        ct_config_set(cfg, set2, &err);
    o.cfg = cfg;
    o.format = format;
    rc = ct_trace_open(&t, paths, 1, &o, &err);
    if (rc == CT_OK) {
        ct_batch_init(&b, 64);
        while ((rc = ct_trace_next(t, &b, &err)) > 0) {
            for (uint32_t i = 0; i < b.nmk && D.nmk < MAXREC; i++) {
                D.mk[D.nmk] = b.mk[i];
                D.mk[D.nmk++].index += (uint32_t)D.n;
            }
            for (uint32_t i = 0; i < b.nev && D.nev < MAXREC; i++) {
                D.ev[D.nev] = b.ev[i];
                D.ev[D.nev++].index += (uint32_t)D.n;
            }
            for (uint32_t i = 0; i < b.n && D.n < MAXREC; i++)
                D.acc[D.n++] = b.acc[i];
        }
        {
            const ct_trace_info *ti = ct_trace_get_info(t);
            snprintf(D.format, sizeof D.format, "%s", ti->format);
            D.malformed = ti->malformed;
            D.records = ti->records;
            for (uint32_t i = 0; i < ti->nstructures && i < 16; i++)
                snprintf(D.names[i], sizeof D.names[i], "%s", ti->structures[i]);
            D.nnames = ti->nstructures;
            for (uint32_t i = 0; i < ti->nwarnings; i++) {
                snprintf(D.warnings[i], sizeof D.warnings[i], "%s", ti->warnings[i].what);
                D.wcount[i] = ti->warnings[i].count;
            }
            D.nwarnings = ti->nwarnings;
        }
        ct_batch_free(&b);
        ct_trace_close(t);
    }
    D.rc = rc;
    snprintf(D.err, sizeof D.err, "%s", err.msg);
    ct_config_free(cfg);
    unlink(path);
    return rc;
}

/* Count of warnings whose text contains s. */
static uint64_t warned(const char *s)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < D.nwarnings; i++)
        if (strstr(D.warnings[i], s))
            n += D.wcount[i];
    return n;
}

TEST(fast_models_instruction_gives_a_fetch_with_both_addresses)
{
    decode("1948 clk cpu0 IT (1924) 000112c0:0000152112c0 f9400000 O EL3h_s : LDR x0,[x0,#0]\n",
           NULL, NULL, NULL);
    CHECK(D.rc == 0);
    CHECK(strcmp(D.format, "tarmac") == 0);
    CHECK_EQ_U64(D.n, 1);
    CHECK_EQ_U64(D.acc[0].kind, CT_IFETCH);
    CHECK_EQ_U64(D.acc[0].vaddr, 0x112c0);
    CHECK_EQ_U64(D.acc[0].paddr, 0x152112c0);
    CHECK_EQ_U64(D.acc[0].size, 4);
    CHECK_EQ_U64(D.acc[0].time, 1948);
    CHECK_EQ_U64(D.acc[0].pc, 0x112c0);
    CHECK(D.acc[0].flags & CT_F_PADDR);
    CHECK(!(D.acc[0].flags & CT_F_NS));
}

TEST(instruction_forms_give_address_and_opcode_width)
{
    decode("1 clk IT (1) 00008008 a00a T svc_s : ADR r0,{pc}+0x2c\n"
           "12 clk IS (12) 0000802c 1afb T svc_s : SUBNE r3,r7,r3\n"
           "23 clk IT (23) 0000815c:00000000815c_NS,00000000815e_NS f7ffef76 T hyp_n : BLX x\n"
           "6000000 cs IT (00000000004d6eb8) 54fffea1 O  ---_- :        b.ne	0x4d6e8c\n"
           "3041 cyc IT (00022a7c:00000006) 00022a7c     48f6 T16 LDR      r0,[pc,#984]\n"
           "354ns IT 00000350 490d        LDR      r1,[pc,#52]\n",
           "tarmac", NULL, NULL);
    CHECK(D.rc == 0);
    CHECK_EQ_U64(D.n, 6);
    CHECK_EQ_U64(D.acc[0].vaddr, 0x8008);
    CHECK_EQ_U64(D.acc[0].size, 2);
    CHECK_EQ_U64(D.acc[1].vaddr, 0x802c); /* IS: fetched too */
    CHECK_EQ_U64(D.acc[1].size, 2);
    CHECK_EQ_U64(D.acc[2].vaddr, 0x815c);
    CHECK_EQ_U64(D.acc[2].paddr, 0x815c);
    CHECK(D.acc[2].flags & CT_F_NS);
    CHECK_EQ_U64(D.acc[2].size, 4);
    CHECK_EQ_U64(D.acc[3].vaddr, 0x4d6eb8); /* the bracket held the pc */
    CHECK_EQ_U64(D.acc[3].size, 4);
    CHECK_EQ_U64(D.acc[3].time, 6000000);
    CHECK_EQ_U64(D.acc[4].vaddr, 0x22a7c);
    CHECK_EQ_U64(D.acc[4].size, 2);
    CHECK_EQ_U64(D.acc[5].vaddr, 0x350);
    CHECK_EQ_U64(D.acc[5].time, 354); /* unit fused to the number */
}

TEST(es_lines_fetch_unless_the_fetch_failed)
{
    decode("Tarmac Text Rev 3t\n"
           "      41000 ns  ES  (00000000:e59ff018) A svc:            LDR      pc,{pc}+0x20\n"
           "     800000 ns  ES  (000001a4:03a06a01) A svc:     CCFAIL MOVEQ    r6,#0x1000\n"
           "     307754 tic ES  (0000aaaaabaf59f0:--------) O el0t_ns:\n"
           "      17000 ns  ES  EXC [0x00] Reset\n",
           NULL, NULL, NULL);
    CHECK(D.rc == 0);
    CHECK(strcmp(D.format, "tarmac") == 0);
    CHECK_EQ_U64(D.n, 2);
    CHECK_EQ_U64(D.acc[0].vaddr, 0);
    CHECK_EQ_U64(D.acc[0].time, 41000);
    CHECK_EQ_U64(D.acc[1].vaddr, 0x1a4);
    CHECK(!(D.acc[1].flags & CT_F_PADDR));
    CHECK_EQ_U64(warned("fetch failed"), 1);
}

TEST(memory_lines_give_loads_stores_and_atomics)
{
    decode("1 clk IT (1) 00001000 f9400000 O EL3h_s : LDR\n"
           "1 clk MR8 0000c7c8:00000000c7c8 00000000_0000ca68\n"
           "2 clk MW1 0fffffb8 00\n"
           "3 clk MR4X 00001000 00000001\n"
           "4 clk MR16 400171e0 400f731b40000000 3ff87cc460000000\n"
           "5 clk MW16 000ffae0:0000000ffae0 00000000000000000000000000210f58\n"
           "6 clk MU8_ADD 00002000:000016002000_NS 00000000_00000001\n"
           "7 clk MR4 dfdfdfcf (ABORTED)\n"
           "8 cs R08 0000007f99d14af4 4305000042ea0000\n"
           "9 cs W04 X ffffffbdc3c15c30 010c010b\n"
           "10 ns MNW4___D 2002fa00 efbeefbe\n"
           "11 ns MNR4O__I 00022ae4 f7ffffcb\n"
           "12 ns MNW4____ (00000050:000000a8) 05011000 00000003\n"
           "13 ns MCW4___R (01000250:000000bb) TRANSFER 00000000\n"
           "14 us MR4_D 00000000 00204800\n",
           "tarmac", NULL, NULL);
    CHECK(D.rc == 0);
    CHECK_EQ_U64(D.n, 12);
    CHECK_EQ_U64(D.acc[1].kind, CT_LOAD);
    CHECK_EQ_U64(D.acc[1].size, 8);
    CHECK_EQ_U64(D.acc[1].vaddr, 0xc7c8);
    CHECK(D.acc[1].flags & CT_F_PADDR);
    CHECK_EQ_U64(D.acc[1].pc, 0x1000);
    CHECK_EQ_U64(D.acc[2].kind, CT_STORE);
    CHECK_EQ_U64(D.acc[2].size, 1);
    CHECK(!(D.acc[2].flags & CT_F_PADDR));
    CHECK(D.acc[3].flags & CT_F_EXCL);
    CHECK_EQ_U64(D.acc[4].size, 16);
    CHECK_EQ_U64(D.acc[4].vaddr, 0x400171e0);
    CHECK_EQ_U64(D.acc[5].kind, CT_STORE);
    CHECK_EQ_U64(D.acc[5].size, 16);
    CHECK_EQ_U64(D.acc[6].kind, CT_ATOMIC);
    CHECK_EQ_U64(D.acc[6].paddr, 0x16002000);
    CHECK(D.acc[6].flags & CT_F_NS);
    CHECK_EQ_U64(D.acc[7].kind, CT_LOAD); /* R08 */
    CHECK_EQ_U64(D.acc[7].size, 8);
    CHECK_EQ_U64(D.acc[8].kind, CT_STORE); /* W04 X */
    CHECK_EQ_U64(D.acc[8].vaddr, 0xffffffbdc3c15c30ull);
    CHECK(D.acc[8].flags & CT_F_EXCL);
    CHECK_EQ_U64(D.acc[9].vaddr, 0x2002fa00);
    CHECK_EQ_U64(D.acc[10].vaddr, 0x5011000);
    CHECK_EQ_U64(D.acc[11].kind, CT_LOAD);
    CHECK_EQ_U64(D.acc[11].vaddr, 0);
    CHECK_EQ_U64(warned("aborted"), 1);
    CHECK_EQ_U64(warned("instruction-side"), 1);
    CHECK_EQ_U64(warned("coprocessor"), 1);
}

TEST(ld_st_lines_give_one_access_per_run_of_bytes)
{
    decode("    1234567 cs E DebugEvent_dummy\n"
           "                    LD 000000007ff80fe0 ........ 44444444 ........ 2222..11    "
           "S:007ff80fe0    nGnRnE OSH\n"
           "                    ST 0000000004001b60 02000000 00000000 00000000 00000020    "
           "NS:0004001b60    nGnRnE OSH\n"
           "       3981 tic ES  (000000d8:c878)     T thrd_s:         LDMCS    r0!,{r3-r6}\n"
           "                    LD 00004020  ........ 626d654d 2043424d 4545203e   "
           "S:0000000000004020  NM NSH\n"
           "                       00004010  3e000a73 ........ ........ ........   "
           "S:0000000000004010  NM NSH\n",
           "tarmac", NULL, NULL);
    CHECK(D.rc == 0);
    CHECK_EQ_U64(D.n, 7);
    /* ascending address order within one line */
    CHECK_EQ_U64(D.acc[0].vaddr, 0x7ff80fe0);
    CHECK_EQ_U64(D.acc[0].size, 1);
    CHECK_EQ_U64(D.acc[1].vaddr, 0x7ff80fe2);
    CHECK_EQ_U64(D.acc[1].size, 2);
    CHECK_EQ_U64(D.acc[2].vaddr, 0x7ff80fe8);
    CHECK_EQ_U64(D.acc[2].size, 4);
    CHECK_EQ_U64(D.acc[2].paddr, 0x7ff80fe8);
    CHECK_EQ_U64(D.acc[2].time, 1234567);
    CHECK_EQ_U64(D.acc[3].kind, CT_STORE); /* STP: one 16-byte store */
    CHECK_EQ_U64(D.acc[3].size, 16);
    CHECK(D.acc[3].flags & CT_F_NS);
    CHECK_EQ_U64(D.acc[4].kind, CT_IFETCH);
    CHECK_EQ_U64(D.acc[5].vaddr, 0x4020);
    CHECK_EQ_U64(D.acc[5].size, 12);
    /* the continuation line: an all-decimal address, not a timestamp */
    CHECK_EQ_U64(D.acc[6].kind, CT_LOAD);
    CHECK_EQ_U64(D.acc[6].vaddr, 0x401c);
    CHECK_EQ_U64(D.acc[6].size, 4);
    CHECK_EQ_U64(D.acc[6].time, 3981);
}

TEST(ld_st_device_attributes_mark_device_memory)
{
    decode("                    LD 0000000000001000 ........ ........ ........ 11111111    "
           "S:0000001000    nGnRnE OSH\n"
           "                    LD 0000000000001010 ........ ........ ........ 11111111    "
           "S:0000001010    DV ISH INC\n"
           "                    LD 0000000000001020 ........ ........ ........ 11111111    "
           "S:0000001020    SO ISH INC\n"
           "                    LD 0000000000001030 ........ ........ ........ 11111111    "
           "S:0000001030    Device-nGnRE\n"
           "                    LD 0000000000001040 ........ ........ ........ 11111111    "
           "S:0000001040    NM ISH INC\n"
           "                    ST 0000000000001050 ........ ........ ........ 11111111    "
           "S:0000001050    NM NSH IWTNA OWTNA\n"
           "                    ST 0000000000001060 ........ ........ ........ 11111111\n",
           "tarmac", NULL, NULL);
    CHECK(D.rc == 0);
    CHECK_EQ_U64(D.n, 7);
    for (size_t i = 0; i < 7; i++)
        CHECK_EQ_U64((D.acc[i].flags & CT_F_DEVICE) != 0, i < 4);
}

TEST(cache_tlb_and_walk_lines_become_events)
{
    decode("1951 clk cpu0 IT (1927) 000112cc:0000152112cc d63f0020 O EL3h_s : BLR x1\n"
           "1951 clk cpu0 TTW ITLB LPAE 1:3 000016390010 00000000152204c3 : BLOCK ATTRIDX=0 "
           "NS=0 AP=3 SH=0 AF=1 nG=0 16E=0 PXN=0 XN=0 ADDR=0x0000000015220000\n"
           "1951 clk cpu0 TLB FILL cpu.cpu0.ITLB 64K 0x00020000, nG asid=0:0x0015220000 Normal "
           "NonShareable Inner=WriteBackWriteAllocate Outer=WriteBackWriteAllocate xn=0 pxn=0 "
           "ContiguousHint =0\n"
           "1951 clk cpu0 CACHE cpu.cpu0.l1icache LINE 0182 ALLOC 0x000015223040\n"
           "1953 clk cpu1 TLB FILL cpu.cpu0.DTLB 64K 0x06200000, nG asid=0:0x0016000000_NS "
           "Normal\n"
           "1953 clk CACHE Validation_ARMAEMv8AMPCT.cpu.l2_cache LINE 0c40 DIRTY "
           "0x000016393100_NS\n"
           "1960 clk cpu0 TLB EVICT cpu.cpu0.DTLB 4K 0x06200000 EL1_n vmid=3, nG asid=0x2a\n",
           NULL, NULL, NULL);
    CHECK(D.rc == 0);
    CHECK_EQ_U64(D.nev, 6);
    CHECK_EQ_U64(D.ev[0].type, CT_EV_TTW);
    CHECK_EQ_U64(D.ev[0].op, CT_EVOP_WALK);
    CHECK_EQ_U64(D.ev[0].stage, 1);
    CHECK_EQ_U64(D.ev[0].level, 3);
    CHECK_EQ_U64(D.ev[0].addr, 0x16390010);
    CHECK_EQ_U64(D.ev[0].value, 0x152204c3);
    CHECK_EQ_U64(D.ev[0].size, 8);
    CHECK_EQ_U64(D.ev[0].result, CT_WR_BLOCK);
    CHECK_EQ_U64(D.ev[0].line, 0x15220000);
    CHECK(strcmp(D.names[D.ev[0].structure], "ITLB") == 0);
    CHECK_EQ_U64(D.ev[1].type, CT_EV_TLB);
    CHECK_EQ_U64(D.ev[1].op, CT_EVOP_FILL);
    CHECK_EQ_U64(D.ev[1].size, 65536);
    CHECK_EQ_U64(D.ev[1].addr, 0x20000);
    CHECK_EQ_U64(D.ev[1].value, 0x15220000);
    CHECK_EQ_U64(D.ev[1].flags, CT_EVF_NG | CT_EVF_PADDR);
    CHECK(strcmp(D.names[D.ev[1].structure], "cpu.cpu0.ITLB") == 0);
    CHECK_EQ_U64(D.ev[2].type, CT_EV_CACHE);
    CHECK_EQ_U64(D.ev[2].op, CT_EVOP_ALLOC);
    CHECK_EQ_U64(D.ev[2].line, 0x182);
    CHECK_EQ_U64(D.ev[2].addr, 0x15223040);
    CHECK_EQ_U64(D.ev[2].time, 1951);
    CHECK_EQ_U64(D.ev[2].src, 4);
    CHECK_EQ_U64(D.ev[2].index, 1); /* after the fetch of line 1 */
    CHECK_EQ_U64(D.ev[3].cpu, 1);
    CHECK(D.ev[3].flags & CT_EVF_NS);
    CHECK_EQ_U64(D.ev[4].cpu, 1); /* no cpu token: the last one named */
    CHECK_EQ_U64(D.ev[4].op, CT_EVOP_DIRTY);
    CHECK(D.ev[4].flags & CT_EVF_NS);
    CHECK_EQ_U64(D.ev[5].op, CT_EVOP_EVICT);
    CHECK_EQ_U64(D.ev[5].size, 4096);
    CHECK_EQ_U64(D.ev[5].regime, CT_RG_EL1_N);
    CHECK_EQ_U64(D.ev[5].vmid, 3);
    CHECK_EQ_U64(D.ev[5].asid, 0x2a);
    CHECK_EQ_U64(D.ev[5].flags, CT_EVF_NG | CT_EVF_VMID);
    CHECK_EQ_U64(D.nnames, 5); /* ITLB, cpu.cpu0.ITLB, l1icache, DTLB, l2_cache */
    CHECK(D.ev[0].flags & CT_EVF_ISIDE); /* the ITLB side walked */
}

TEST(walk_sides_and_address_space_registers)
{
    decode("1 clk cpu0 TTW DTLB LPAE 1:2 000016390010 0000000016400003 : TABLE\n"
           "1 clk cpu0 R TTBR0_EL1 002a0000:80001000\n"
           "2 clk cpu1 R ttbr0_el1 0x0007000080002000\n"
           "2 clk cpu1 R VTTBR_EL2 00030000_00000000\n"
           "3 clk cpu1 R TTBR0_EL1 zz\n"
           "3 clk cpu1 R TTBR1_EL1 0001000000000000\n"
           "3 clk cpu1 IT (1) 00001000 d503201f O EL1h_n : NOP\n",
           "tarmac", NULL, NULL);
    CHECK(D.rc == 0);
    CHECK(!(D.ev[0].flags & CT_EVF_ISIDE));
    CHECK_EQ_U64(D.ev[0].level, 2);
    CHECK_EQ_U64(D.ev[0].result, CT_WR_TABLE);
    /* markers: timestamp 1, ASID 0x2a (cpu 0), timestamp 2, ASID 7 and VMID 3
     * (cpu 1), timestamp 3, cpu 1's first access; the value that does not
     * parse and TTBR1 give none */
    CHECK_EQ_U64(D.nmk, 7);
    CHECK_EQ_U64(D.mk[1].type, CT_MK_ASID);
    CHECK_EQ_U64(D.mk[1].value, 0x2a);
    CHECK_EQ_U64(D.mk[1].cpu, 0);
    CHECK_EQ_U64(D.mk[3].type, CT_MK_ASID);
    CHECK_EQ_U64(D.mk[3].value, 7);
    CHECK_EQ_U64(D.mk[3].cpu, 1);
    CHECK_EQ_U64(D.mk[4].type, CT_MK_VMID);
    CHECK_EQ_U64(D.mk[4].value, 3);
    CHECK_EQ_U64(D.mk[5].type, CT_MK_TIMESTAMP);
    CHECK_EQ_U64(D.mk[5].index, 0);
    CHECK_EQ_U64(D.mk[6].type, CT_MK_CPU);
    CHECK_EQ_U64(D.mk[6].cpu, 1);
}

TEST(cache_maintenance_becomes_cache_operations)
{
    decode("0 ps CACHE MAINTENANCE Instruction and Data cache Invalidate All to PoU 00000000\n"
           "1 ps CACHE MAINTENANCE Data cache Clean and Invalidate by MVA to PoC "
           "00008040:000010008040_NS 4K Normal\n"
           "2 ps CACHE MAINTENANCE Data cache Clean by Set/Way 00000040\n",
           "tarmac", NULL, NULL);
    CHECK(D.rc == 0);
    CHECK_EQ_U64(D.n, 3);
    CHECK_EQ_U64(D.acc[0].kind, CT_CACHEOP);
    CHECK_EQ_U64(D.acc[0].op, CT_OP_INVAL | CT_OP_ALL);
    CHECK_EQ_U64(D.acc[1].op, CT_OP_INVAL | CT_OP_ALL | CT_OP_ISIDE);
    CHECK_EQ_U64(D.acc[2].op, CT_OP_CLEAN_INVAL);
    CHECK_EQ_U64(D.acc[2].vaddr, 0x8040);
    CHECK_EQ_U64(D.acc[2].paddr, 0x10008040);
    CHECK(D.acc[2].flags & CT_F_NS);
    CHECK_EQ_U64(warned("set/way"), 1);
}

TEST(timestamps_cpus_and_markers)
{
    decode("10 clk cpu0 IT (1) 00001000 d503201f O EL1h_n : NOP\n"
           "10 clk cpu0 R X0 0000000000000000\n"
           "11 clk cpu2 IT (2) 00002000 d503201f O EL1h_n : NOP\n"
           "   MR4 00003000 00000000\n"
           "12.5 ns IT (3) 00004000 d503201f O EL1h_n : NOP\n",
           "tarmac", NULL, NULL);
    CHECK(D.rc == 0);
    CHECK_EQ_U64(D.n, 4);
    CHECK_EQ_U64(D.acc[1].cpu, 2);
    CHECK_EQ_U64(D.acc[2].cpu, 2);       /* no cpu: the last one named */
    CHECK_EQ_U64(D.acc[2].time, 11);     /* no timestamp: the last one */
    CHECK_EQ_U64(D.acc[2].pc, 0x2000);   /* that cpu's last instruction */
    CHECK_EQ_U64(D.acc[3].time, 12500000);
    /* each cpu is a thread: cpu + 1 */
    CHECK_EQ_U64(D.acc[0].thread, 1);
    CHECK_EQ_U64(D.acc[1].thread, 3);
    CHECK_EQ_U64(D.acc[3].thread, 3);
    /* timestamp 10, cpu 0's first access, timestamp 11, cpu 2's first
     * access, timestamp 12.5 */
    CHECK_EQ_U64(D.nmk, 5);
    CHECK_EQ_U64(D.mk[0].type, CT_MK_TIMESTAMP);
    CHECK_EQ_U64(D.mk[0].time, 10);
    CHECK_EQ_U64(D.mk[0].value2, 1);
    CHECK_EQ_U64(D.mk[1].type, CT_MK_CPU);
    CHECK_EQ_U64(D.mk[1].cpu, 0);
    CHECK_EQ_U64(D.mk[1].thread, 1);
    CHECK_EQ_U64(D.mk[1].index, 0);
    CHECK_EQ_U64(D.mk[2].time, 11);
    CHECK_EQ_U64(D.mk[2].value2, 3);
    CHECK_EQ_U64(D.mk[2].index, 1);
    CHECK_EQ_U64(D.mk[3].type, CT_MK_CPU);
    CHECK_EQ_U64(D.mk[3].cpu, 2);
    CHECK_EQ_U64(D.mk[3].thread, 3);
    CHECK_EQ_U64(D.mk[3].index, 1);
    CHECK_EQ_U64(D.mk[4].value2, 5);
}

/* Every traced cpu is a thread of its own, announced by a CPU marker, so
 * that the cpus schedule gives each one a core: with 2 cores, cpu1's
 * accesses run on core 1 (with 1 core, everything on core 0). */
TEST(each_cpu_runs_on_a_core_of_its_own)
{
    static const char *const text =
        "1 clk cpu0 IT (1) 00001000 d503201f O EL1h_n : NOP\n"
        "2 clk cpu1 IT (1) 00001000 f9400000 O EL1h_n : LDR x0,[x1]\n"
        "2 clk cpu1 MR8 00002000 00000000_00000000\n"
        "3 clk cpu0 MW4 00003000 00000000\n"
        "4 clk cpu1 IT (2) 00001004 d503201f O EL1h_n : NOP\n";
    for (int cores = 1; cores <= 2; cores++) {
        decode(text, "tarmac", cores == 2 ? "system.cores=2" : NULL, NULL);
        CHECK(D.rc == 0);
        CHECK_EQ_U64(D.n, 5);
        for (size_t i = 0; i < D.n && i < 5; i++) {
            CHECK_EQ_U64(D.acc[i].thread, D.acc[i].cpu + 1u);
            CHECK_EQ_U64(D.acc[i].core, cores == 2 ? D.acc[i].cpu : 0);
        }
        CHECK_EQ_U64(D.acc[2].cpu, 1);
        CHECK_EQ_U64(D.acc[3].cpu, 0);
    }
}

/* The mode of an instruction line sets its cpu's security state: _n (or
 * _ns) non-secure, _s secure, nothing: as before. Every access of a cpu in
 * non-secure state carries CT_F_NS_REGIME, whatever its physical
 * address's security (CT_F_NS). */
TEST(the_mode_gives_the_security_of_the_regime)
{
    decode("1 clk cpu0 IT (1) 00001000:000020001000_NS f9400000 O EL1h_n : LDR x0,[x1]\n"
           "1 clk cpu0 MR8 00002000:000020002000_NS 00000000_00000000\n"
           "2 clk cpu0 IT (2) 00001004:000000001004 f9000000 O EL3h_s : STR x0,[x1]\n"
           "2 clk cpu0 MW8 00003000:000020003000_NS 00000000_00000000\n"
           "3 clk cpu1 IT (3) 00004000 d503201f A svc_ns : NOP\n"
           "4 clk cpu1 IT 00004004 d503201f\n"
           "4 clk cpu1 MR4 00005000 00000000\n"
           "5 clk cpu2 MR4 00006000 00000000\n",
           "tarmac", NULL, NULL);
    CHECK(D.rc == 0);
    CHECK_EQ_U64(D.n, 8);
    CHECK(D.acc[0].flags & CT_F_NS_REGIME);
    CHECK(D.acc[1].flags & CT_F_NS_REGIME);
    CHECK(!(D.acc[2].flags & CT_F_NS_REGIME));
    CHECK(!(D.acc[3].flags & CT_F_NS_REGIME)); /* secure EL3 ... */
    CHECK(D.acc[3].flags & CT_F_NS);           /* ... storing to non-secure memory */
    CHECK(D.acc[4].flags & CT_F_NS_REGIME);    /* AArch32 svc_ns */
    CHECK(D.acc[5].flags & CT_F_NS_REGIME);    /* no mode: the state stays */
    CHECK(D.acc[6].flags & CT_F_NS_REGIME);
    CHECK(!(D.acc[7].flags & CT_F_NS_REGIME)); /* a cpu never seen: secure */
}

/* A TLB or WALKCACHE region size must be a power of two. */
TEST(tlb_region_sizes_are_powers_of_two)
{
    decode("1 clk cpu0 TLB FILL cpu.cpu0.DTLB 65K 0x00010000, nG asid=0:0x0015220000\n",
           "tarmac", NULL, NULL);
    CHECK(D.rc == CT_E_FORMAT);
    CHECK_STR_CONTAINS(D.err, ":1:35: the size of the mapped region is not a power of two");
    decode("1 clk cpu0 WALKCACHE EVICT cpu.cpu0.WALK 0x3000 0x00010000\n", "tarmac", NULL,
           NULL);
    CHECK(D.rc == CT_E_FORMAT);
    CHECK_STR_CONTAINS(D.err, "not a power of two");
    decode("1 clk cpu0 TLB FILL cpu.cpu0.DTLB 0 0x00010000\n", "tarmac", NULL, NULL);
    CHECK(D.rc == CT_E_FORMAT);
    decode("1 clk cpu0 TLB FILL cpu.cpu0.DTLB 64K 0x00010000\n"
           "2 clk cpu0 TLB EVICT cpu.cpu0.DTLB 0x1000 0x00010000\n"
           "3 clk cpu0 TLB EVICT cpu.cpu0.DTLB 1G 0x40000000\n",
           "tarmac", NULL, NULL);
    CHECK(D.rc == 0);
    CHECK_EQ_U64(D.nev, 3);
    CHECK_EQ_U64(D.ev[1].size, 4096);
    CHECK_EQ_U64(D.ev[2].size, 1ull << 30);
}

TEST(unknown_kinds_are_counted_and_malformed_lines_reported)
{
    decode("1 clk FOO bar\n2 clk FOO baz\n3 clk R DC CISW 00000000:00000000\n"
           "4 clk CADI E simulation_stopped\n",
           "tarmac", NULL, NULL);
    CHECK(D.rc == 0);
    CHECK_EQ_U64(warned("unknown line kind 'FOO'"), 2);
    CHECK_EQ_U64(warned("'R DC'"), 1);
    CHECK_EQ_U64(D.nwarnings, 2);

    decode("1 clk IT (1) 00001000 d503201f O EL1h_n : NOP\n2 clk MR3 00001000 000000\n",
           "tarmac", NULL, NULL);
    CHECK(D.rc == CT_E_FORMAT);
    CHECK_STR_CONTAINS(D.err, ":2:7: memory access size not in {1,2,4,8,16}");

    decode("1 clk LD 00001000 ........ ........ 11\n", "tarmac", NULL, NULL);
    CHECK(D.rc == CT_E_FORMAT);
    CHECK_STR_CONTAINS(D.err, "LD/ST line has 9 bytes, expected 16");

    decode("1 clk IT (1) 00001000 d503201f O EL1h_n : NOP\n2 clk MW4 zz 00000000\n"
           "3 clk CACHE l1 LINE 12 SPLAT 0x40\n4 clk MW4 00002000 00000000\n",
           "tarmac", "trace.lenient=yes", NULL);
    CHECK(D.rc == 0);
    CHECK_EQ_U64(D.malformed, 2);
    CHECK_EQ_U64(D.n, 2);
    CHECK_EQ_U64(D.acc[1].vaddr, 0x2000);
}

TEST(next_pc_from_the_disassembly)
{
    uint64_t next = 0;
    CHECK(ct_tarmac_next_pc(" B {pc}-0x2c ; 0x23038", 22, 0x23064, 4, 0, &next) == 1);
    CHECK_EQ_U64(next, 0x23038);
    CHECK(ct_tarmac_next_pc(" BL       {pc}+0x4778 ; 0xc778", 30, 0x8000, 4, 0, &next) == 1);
    CHECK_EQ_U64(next, 0xc778);
    CHECK(ct_tarmac_next_pc("B.NE {pc}-0xc", 13, 0xc7ec, 4, 0, &next) == 1);
    CHECK_EQ_U64(next, 0xc7e0);
    CHECK(ct_tarmac_next_pc("b.ne	0x4d6e8c", 13, 0x4d6eb8, 4, 0, &next) == 1);
    CHECK_EQ_U64(next, 0x4d6e8c);
    CHECK(ct_tarmac_next_pc("B.NE {pc}-0xc", 13, 0xc7ec, 4, 1, &next) == 1); /* failed */
    CHECK_EQ_U64(next, 0xc7f0);
    CHECK(ct_tarmac_next_pc(" ADR x0,{pc}+0x284 ; 0x11540", 28, 0x112bc, 4, 0, &next) == 1);
    CHECK_EQ_U64(next, 0x112c0);
    CHECK(ct_tarmac_next_pc("BIC r0,r0,#1", 12, 0x100, 2, 0, &next) == 1);
    CHECK_EQ_U64(next, 0x102);
    next = 7;
    CHECK(ct_tarmac_next_pc(" BLR x1", 7, 0x112cc, 4, 0, &next) == 0);
    CHECK(ct_tarmac_next_pc("RET", 3, 0x1000, 4, 0, &next) == 0);
    CHECK(ct_tarmac_next_pc("CBZ x0,{pc}+8", 13, 0x1000, 4, 0, &next) == 0);
    CHECK(ct_tarmac_next_pc("POP {r4-r10,pc}", 15, 0x96ea, 4, 0, &next) == 0);
    CHECK(ct_tarmac_next_pc("LDR pc,{pc}+0x20 ; 0x20", 23, 0x0, 4, 0, &next) == 0);
    CHECK(ct_tarmac_next_pc("BLX r3", 6, 0x1000, 2, 0, &next) == 0);
    CHECK(ct_tarmac_next_pc("SVC #0", 6, 0x1000, 4, 0, &next) == 0);
    CHECK_EQ_U64(next, 7);
}

TEST(the_end_of_trace_fetch_follows_the_last_branch)
{
    static const char trace[] =
        "1953 clk cpu0 IT (1929) 00023060:000015223060 f9000100 O EL3h_s : STR x0,[x8,#0]\n"
        "1954 clk cpu0 IT (1930) 00023064:000015223064 17fffff5 O EL3h_s : B {pc}-0x2c ; "
        "0x23038\n"
        "1954 clk cpu0 R X0 0000000000000000\n";
    decode(trace, NULL, NULL, NULL);
    CHECK_EQ_U64(D.n, 2); /* off by default */
    decode(trace, NULL, "trace.tarmac_next_fetch=yes", NULL);
    CHECK_EQ_U64(D.n, 3);
    CHECK_EQ_U64(D.acc[2].kind, CT_IFETCH);
    CHECK_EQ_U64(D.acc[2].vaddr, 0x23038);
    CHECK_EQ_U64(D.acc[2].paddr, 0x15223038); /* same 4 KiB page */
    CHECK_EQ_U64(D.acc[2].time, 1954);
    decode("1 clk cpu0 IT (1) 00023ffc:000015223ffc 14000001 O EL3h_s : B {pc}+4 ; 0x24000\n",
           NULL, "trace.tarmac_next_fetch=yes", NULL);
    CHECK_EQ_U64(D.n, 1); /* another page: no physical address, no fetch */
}

TEST(trace_matcher_dialect)
{
    decode("1 clk 0 IT (1) 00000004 3c080001 A svc : lui t0,0x1\n"
           "10 clk MR8 00103fc4 0010400000000000\n"
           "14 clk R r8 00000000\n"
           "15 clk 3 IT (15) 0000000000000008 3c080001 A svc_ns : lui t0,0x1\n"
           "15 clk MW4X 00103fc8 00000001\n",
           NULL, NULL, NULL);
    CHECK(D.rc == 0);
    CHECK(strcmp(D.format, "tracematcher") == 0);
    CHECK_EQ_U64(D.n, 4);
    CHECK_EQ_U64(D.acc[0].kind, CT_IFETCH);
    CHECK_EQ_U64(D.acc[0].vaddr, 4);
    CHECK_EQ_U64(D.acc[0].size, 4);
    CHECK_EQ_U64(D.acc[1].kind, CT_LOAD);
    CHECK_EQ_U64(D.acc[1].vaddr, 0x103fc4);
    CHECK_EQ_U64(D.acc[1].size, 8);
    CHECK_EQ_U64(D.acc[1].pc, 4);
    CHECK_EQ_U64(D.acc[2].cpu, 3);
    CHECK_EQ_U64(D.acc[3].cpu, 3);       /* memory records: the last instruction's cpu */
    CHECK(D.acc[3].flags & CT_F_PRIV);   /* X means privileged here */
    CHECK(!(D.acc[3].flags & CT_F_EXCL));
    decode("1 clk 0 IT 00000004 3c080001 A svc : lui t0,0x1\n", "tracematcher", NULL, NULL);
    CHECK(D.rc == CT_E_FORMAT);
    CHECK_STR_CONTAINS(D.err, "expected '(' before the instruction index");
}

TEST(probes_claim_their_own_text_only)
{
    unsigned known, unknown;
    static const char din[] = "2 0\n0 1000\n1 2000\n2 4\n";
    static const char fm[] = "0 clk R cpsr 000003cd\n1 clk IT (1) 00008000 fa000000 A svc_s : B\n";
    ct_tarmac_probe_count((const uint8_t *)din, sizeof din - 1, CT_TARMAC_ARM, &known, &unknown);
    CHECK_EQ_U64(known, 0);
    ct_tarmac_probe_count((const uint8_t *)fm, sizeof fm - 1, CT_TARMAC_ARM, &known, &unknown);
    CHECK_EQ_U64(known, 2);
    ct_tarmac_probe_count((const uint8_t *)fm, sizeof fm - 1, CT_TARMAC_TM, &known, &unknown);
    CHECK_EQ_U64(known, 0);
    decode(din, NULL, NULL, NULL);
    CHECK(strcmp(D.format, "din") == 0);
}

int main(void)
{
    RUN(fast_models_instruction_gives_a_fetch_with_both_addresses);
    RUN(instruction_forms_give_address_and_opcode_width);
    RUN(es_lines_fetch_unless_the_fetch_failed);
    RUN(memory_lines_give_loads_stores_and_atomics);
    RUN(ld_st_lines_give_one_access_per_run_of_bytes);
    RUN(ld_st_device_attributes_mark_device_memory);
    RUN(cache_tlb_and_walk_lines_become_events);
    RUN(walk_sides_and_address_space_registers);
    RUN(cache_maintenance_becomes_cache_operations);
    RUN(timestamps_cpus_and_markers);
    RUN(each_cpu_runs_on_a_core_of_its_own);
    RUN(the_mode_gives_the_security_of_the_regime);
    RUN(tlb_region_sizes_are_powers_of_two);
    RUN(unknown_kinds_are_counted_and_malformed_lines_reported);
    RUN(next_pc_from_the_disassembly);
    RUN(the_end_of_trace_fetch_follows_the_last_branch);
    RUN(trace_matcher_dialect);
    RUN(probes_claim_their_own_text_only);
    return harness_done();
}
