/*
 * test_schedule.c - interleaving streams by timestamp and assigning threads
 * to cores (threads, cpus, single), on small drmemtrace files whose
 * timestamps, threads and cpus are chosen by hand.
 */
#include "dmt_writer.h"
#include "harness.h"
#include "trace_collect.h"

/* A per-thread file: for each i, TIMESTAMP ts[i] then one load at
 * tid * 0x1000 + i (the address tells which thread and which step). */
static const char *thread_file(const char *name, uint64_t tid, const uint64_t *ts, int n)
{
    dw_buf b;
    const char *path = dw_path(name);
    dw_init(&b, 12);
    dw_header(&b, 7, DW_FT_X86_64, tid, 0);
    for (int i = 0; i < n; i++) {
        dw_marker(&b, DWM_TIMESTAMP, ts[i]);
        dw_rec(&b, DW_INSTR, 4, 0x100);
        dw_rec(&b, DW_READ, 4, tid * 0x1000 + (uint64_t)i);
    }
    dw_end(&b, tid);
    dw_file(path, b.p, b.n);
    dw_free(&b);
    return path;
}

/* The sequence of load addresses, as a string of "thread.step" pairs. */
static const char *loads(const tc_result *r)
{
    static char s[512];
    size_t used = 0;
    s[0] = '\0';
    for (size_t i = 0; i < r->n && used + 16 < sizeof s; i++)
        if (r->a[i].kind == CT_LOAD)
            used += (size_t)snprintf(s + used, sizeof s - used, "%s%llx.%llx", used ? " " : "",
                                     (unsigned long long)(r->a[i].vaddr >> 12),
                                     (unsigned long long)(r->a[i].vaddr & 0xfff));
    return s;
}

TEST(timestamps_interleave_oldest_first)
{
    const char *p[2];
    tc_result *r;
    p[0] = thread_file("a.trace", 1, (const uint64_t[]){10, 30, 50}, 3);
    p[1] = thread_file("b.trace", 2, (const uint64_t[]){20, 40}, 2);
    r = tc_read(p, 2, NULL);
    CHECK_EQ_U64(r->rc, 0);
    CHECK(strcmp(loads(r), "1.0 2.0 1.1 2.1 1.2") == 0);
    fprintf(stderr, "  order %s\n", loads(r));
}

TEST(the_oldest_first_timestamp_starts_and_ties_go_to_the_lower_stream)
{
    const char *p[2];
    tc_result *r;
    /* b starts older */
    p[0] = thread_file("c.trace", 1, (const uint64_t[]){50, 60}, 2);
    p[1] = thread_file("d.trace", 2, (const uint64_t[]){5, 55}, 2);
    r = tc_read(p, 2, NULL);
    CHECK(strcmp(loads(r), "2.0 1.0 2.1 1.1") == 0);
    /* equal timestamps: stream 0 keeps running, then stream 1 */
    p[0] = thread_file("e.trace", 1, (const uint64_t[]){10, 20}, 2);
    p[1] = thread_file("f.trace", 2, (const uint64_t[]){10, 20}, 2);
    r = tc_read(p, 2, NULL);
    CHECK(strcmp(loads(r), "1.0 2.0 1.1 2.1") == 0);
    fprintf(stderr, "  tie order %s\n", loads(r));
}

TEST(quantum_interleaving_takes_turns)
{
    const char *p[2];
    tc_result *r;
    p[0] = thread_file("g.trace", 1, (const uint64_t[]){10, 30}, 2);
    p[1] = thread_file("h.trace", 2, (const uint64_t[]){20, 40}, 2);
    /* 2 accesses per turn: ifetch + load */
    r = tc_read(p, 2, (const char *const[]){"trace.interleave=quantum", "trace.quantum=2", NULL});
    CHECK(strcmp(loads(r), "1.0 2.0 1.1 2.1") == 0);
    r = tc_read(p, 2, (const char *const[]){"trace.interleave=quantum", "trace.quantum=4", NULL});
    CHECK(strcmp(loads(r), "1.0 1.1 2.0 2.1") == 0);
}

/* One interleaved file: thread switches, cpu markers and thread exits. */
static const char *mixed_file(void)
{
    dw_buf b;
    const char *path = dw_path("mixed.trace");
    dw_init(&b, 12);
    dw_header(&b, 7, DW_FT_X86_64, 1, 0);
    dw_marker(&b, DWM_CPU_ID, 8);
    dw_rec(&b, DW_READ, 4, 0x1000);            /* t1 */
    dw_rec(&b, DW_THREAD, 8, 2);
    dw_marker(&b, DWM_CPU_ID, 2);
    dw_rec(&b, DW_READ, 4, 0x2000);            /* t2 */
    dw_rec(&b, DW_THREAD, 8, 3);
    dw_rec(&b, DW_READ, 4, 0x3000);            /* t3: no cpu marker */
    dw_rec(&b, DW_THREAD_EXIT, 8, 2);          /* t2 leaves */
    dw_rec(&b, DW_THREAD, 8, 4);
    dw_marker(&b, DWM_CPU_ID, 8);
    dw_rec(&b, DW_READ, 4, 0x4000);            /* t4 */
    dw_rec(&b, DW_THREAD, 8, 1);
    dw_marker(&b, DWM_CPU_ID, 5);
    dw_rec(&b, DW_READ, 4, 0x1001);            /* t1 again, on a new cpu */
    dw_rec(&b, DW_FOOTER, 0, 0);
    dw_file(path, b.p, b.n);
    dw_free(&b);
    return path;
}

static const char *cores(const tc_result *r)
{
    static char s[64];
    size_t i;
    for (i = 0; i < r->n && i < sizeof s - 1; i++)
        s[i] = (char)('0' + r->a[i].core);
    s[i] = '\0';
    return s;
}

TEST(threads_go_to_the_core_with_fewest_live_threads)
{
    tc_result *r = tc_read1(mixed_file(), (const char *const[]){"system.cores=2",
                                                                 "trace.schedule=threads", NULL});
    /* t1 -> 0, t2 -> 1, t3 -> 0 (tie, lowest), t2 exits, t4 -> 1 (one live
     * thread there, two on core 0), t1 stays on 0 */
    CHECK_EQ_U64(r->rc, 0);
    CHECK(strcmp(cores(r), "01010") == 0);
    fprintf(stderr, "  threads: %s\n", cores(r));
}

TEST(cpus_map_round_robin_and_move_their_threads)
{
    tc_result *r = tc_read1(mixed_file(), (const char *const[]){"system.cores=2",
                                                                 "trace.schedule=cpus", NULL});
    /* cpu 8 -> core 0 (t1), cpu 2 -> core 1 (t2); t3 has no cpu: core with
     * fewest threads: tie -> 0; t4 on cpu 8 -> 0; t1 moves to cpu 5, the
     * third cpu -> core 0 (both cores hold one cpu: lowest) */
    CHECK_EQ_U64(r->rc, 0);
    CHECK(strcmp(cores(r), "01000") == 0);
    fprintf(stderr, "  cpus: %s\n", cores(r));
    r = tc_read1(mixed_file(), (const char *const[]){"system.cores=3", "trace.schedule=cpus",
                                                     NULL});
    /* with 3 cores cpu 5 gets core 2; t3 goes to the emptiest core (2) */
    CHECK(strcmp(cores(r), "01202") == 0);
    fprintf(stderr, "  cpus on 3 cores: %s\n", cores(r));
}

TEST(single_runs_everything_on_core_0)
{
    tc_result *r = tc_read1(mixed_file(), (const char *const[]){"system.cores=4",
                                                                 "trace.schedule=single", NULL});
    CHECK(strcmp(cores(r), "00000") == 0);
    CHECK_EQ_U64(r->info.threads, 4);
}

int main(void)
{
    RUN(timestamps_interleave_oldest_first);
    RUN(the_oldest_first_timestamp_starts_and_ties_go_to_the_lower_stream);
    RUN(quantum_interleaving_takes_turns);
    RUN(threads_go_to_the_core_with_fewest_live_threads);
    RUN(cpus_map_round_robin_and_move_their_threads);
    RUN(single_runs_everything_on_core_0);
    dw_cleanup();
    return harness_done();
}
