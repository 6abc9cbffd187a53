/*
 * cmd_bench.c - cachet bench: cachet's own speed, measured the same way
 * every time (the figures in results/BENCHMARKS.md come from here).
 *
 * For each workload (-w, repeatable; default the four below, each about
 * 20 M accesses):
 * 1. The workload is decoded into memory, then simulated from memory:
 *    "in-memory" speed.
 * 2. The same workload is written as a din text file, then read, parsed and
 *    simulated by one thread (no read-ahead thread, whatever the
 *    configuration says): "din text" speed, file to statistics. When the
 *    configuration asks for read-ahead (the default), the same again with
 *    the read-ahead thread: "din text, read-ahead".
 * 3. The same workload is written in the cachet trace format, compressed
 *    (.ctr.zst), then decoded only ("ctr parse") and decoded and simulated
 *    ("ctr replay"), by one thread.
 * 4. The din file and the workload itself are decoded without simulating
 *    ("din parse", "source parse"): with a trace file as the workload
 *    (-w trace.tarmac, a VIXL log, ...) this compares its own format with
 *    ctr.
 * Every timed run is repeated -r times (default 3) and the fastest is
 * kept, in CPU time (CLOCK_PROCESS_CPUTIME_ID: the process's threads, so
 * the one thread of a one-thread run; both threads with read-ahead) and in
 * wall-clock time; rates are accesses per second of each. The hierarchy
 * is created before the clock starts. Every simulating run must give the
 * same statistics; the command fails otherwise. A summary table of
 * in-memory and din-text rates per workload ends the output.
 *
 * With --decode TRACE... it instead times decoding alone (no simulation) of
 * the given traces, in any format (-f to force one), --repeat times, and
 * reports wall-clock and CPU rates.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* The default workloads: about 20 M accesses each (every data access comes
 * with an instruction fetch), from the worst case for the model to the
 * friendliest. */
static const char *const default_workloads[] = {
    "gen:random:n=10M,footprint=256K,writes=25", /* L1D misses 87%, L2 hits */
    "gen:stream:n=10M,footprint=1M,writes=25",   /* sequential 8-byte accesses */
    "gen:matmul:dim=172",                        /* naive i-j-k */
    "gen:matmul:dim=172,tile=43",                /* blocked */
};

#define MAX_WORKLOADS 32

static void help(FILE *f)
{
    fprintf(f,
            "usage: cachet bench [-c FILE.ini] [-s K=V]... [-w WORKLOAD]... [-r N] [--dir DIR]\n"
            "                    [--keep]\n\n"
            "Measures accesses per second from memory, from din text and from the cachet\n"
            "trace format (.ctr.zst), by one thread, best of N runs in CPU and wall-clock\n"
            "time, for each workload.\n"
            "  -w WORKLOAD   a generator or a trace; repeat for several (default:\n"
            "                gen:random:n=10M,footprint=256K,writes=25,\n"
            "                gen:stream:n=10M,footprint=1M,writes=25, gen:matmul:dim=172,\n"
            "                gen:matmul:dim=172,tile=43)\n"
            "  -r, --repeat N  runs of each measurement; the fastest counts (default 3)\n"
            "  --dir DIR     where the din and ctr files are written (default /tmp)\n"
            "  --keep        keep the files\n\n"
            "usage: cachet bench --decode [-f FORMAT] [-c FILE.ini] [-s K=V]... [--repeat N]\n"
            "                    TRACE...\n\n"
            "Times decoding only (records and accesses per second of wall-clock time, and\n"
            "records per second of CPU time; batches of 16384 accesses), N times (default 3).\n");
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --decode: read the traces N times, report each run. */
static int decode_only(const cli_common *co, char **paths, int npaths, int repeat)
{
    ct_error err = {0};
    ct_config *cfg = NULL;
    ct_batch b = {0};
    int status = EXIT_OK;

    if (cli_load_config(co, &cfg, &err) != CT_OK)
        return cli_fail(&err);
    if (ct_batch_init(&b, 1u << 14) != CT_OK) {
        ct_config_free(cfg);
        cli_error("out of memory");
        return EXIT_INPUT;
    }
    printf("cachet %s bench --decode  %d trace%s, first %s\n", ct_version(), npaths,
           npaths == 1 ? "" : "s", paths[0]);
    for (int run = 1; run <= repeat && status == EXIT_OK; run++) {
        ct_trace *t = NULL;
        ct_trace_opts to = {0};
        uint64_t acc = 0;
        double t0 = cli_now(), dt, cpu;
        clock_t c0 = clock();
        int rc;

        to.cfg = cfg;
        if (ct_trace_open(&t, (const char *const *)paths, (size_t)npaths, &to, &err) != CT_OK) {
            status = cli_fail(&err);
            break;
        }
        while ((rc = ct_trace_next(t, &b, &err)) > 0)
            acc += b.n;
        dt = cli_now() - t0;
        cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
        if (rc < 0) {
            status = cli_fail(&err);
        } else {
            const ct_trace_info *ti = ct_trace_get_info(t);
            printf("run %d  format %s  %llu records  %llu accesses  %llu bytes  %.3f s  "
                   "%.1f M records/s  %.1f M accesses/s  %.1f MB/s  (cpu %.3f s: %.1f M "
                   "records/s)\n", run, ti->format, (unsigned long long)ti->records,
                   (unsigned long long)acc, (unsigned long long)ti->bytes, dt,
                   ti->records / dt / 1e6, acc / dt / 1e6, ti->bytes / dt / 1e6, cpu,
                   cpu > 0 ? ti->records / cpu / 1e6 : 0.0);
        }
        ct_trace_close(t);
    }
    ct_batch_free(&b);
    ct_config_free(cfg);
    return status;
}

typedef struct chunk {
    ct_batch b;
    struct chunk *next;
} chunk;

/* One measurement: the fastest of the runs, in CPU and wall-clock time. */
typedef struct timing {
    uint64_t n;        /* accesses */
    double cpu, wall;  /* seconds, best of the runs */
    int runs;
} timing;

static void timing_add(timing *t, uint64_t n, double cpu, double wall)
{
    t->n = n;
    if (t->runs == 0 || cpu < t->cpu)
        t->cpu = cpu;
    if (t->runs == 0 || wall < t->wall)
        t->wall = wall;
    t->runs++;
}

static double rate(const timing *t, double secs)
{
    return secs > 0 ? t->n / secs / 1e6 : 0.0;
}

static void print_timing(const char *what, const timing *t, const char *note)
{
    printf("  %-22s %llu accesses  cpu %.3f s  %6.1f M/s   wall %.3f s  %6.1f M/s  %s\n", what,
           (unsigned long long)t->n, t->cpu, rate(t, t->cpu), t->wall, rate(t, t->wall), note);
}

/* Read path (decode, and simulate with s unless s is NULL). */
static int sim_from(ct_sim *s, const char *path, const ct_config *cfg, uint64_t *n,
                    ct_error *err)
{
    ct_trace *t = NULL;
    ct_trace_opts to = {0};
    ct_batch b = {0};
    const char *paths[1] = {path};
    int rc;

    to.cfg = cfg;
    *n = 0;
    if ((rc = ct_trace_open(&t, paths, 1, &to, err)) != CT_OK)
        return rc;
    if (ct_batch_init(&b, 1u << 14) != CT_OK) {
        ct_trace_close(t);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    while ((rc = ct_trace_next(t, &b, err)) > 0) {
        *n += b.n;
        if (s && (rc = ct_sim_run(s, &b, err)) != CT_OK)
            break;
    }
    ct_batch_free(&b);
    ct_trace_close(t);
    return rc < 0 ? rc : CT_OK;
}

static int write_as(const chunk *head, const char *format, const char *path, ct_error *err)
{
    cli_out o;
    ct_trace_writer *tw = NULL;
    int rc;

    if ((rc = cli_out_open(&o, path, err)) != CT_OK)
        return rc;
    if ((rc = ct_trace_writer_open(&tw, format, &o.w, err)) != CT_OK) {
        cli_out_abort(&o);
        return rc;
    }
    for (const chunk *ch = head; ch && rc == CT_OK; ch = ch->next)
        rc = ct_trace_writer_put(tw, &ch->b, err);
    if (rc != CT_OK) {
        ct_trace_writer_finish(tw, NULL);
        if (rc == CT_E_IO)
            cli_out_failed(&o, err);
        cli_out_abort(&o);
        return rc;
    }
    if ((rc = ct_trace_writer_finish(tw, err)) != CT_OK) {
        if (rc == CT_E_IO)
            cli_out_failed(&o, err);
        cli_out_abort(&o);
        return rc;
    }
    return cli_out_commit(&o, err);
}

static int same_stats(const ct_sim *a, const ct_sim *b)
{
    if (ct_sim_nlevels(a) != ct_sim_nlevels(b))
        return 0;
    for (size_t i = 0; i < ct_sim_nlevels(a); i++)
        if (memcmp(ct_sim_level_stats(a, i), ct_sim_level_stats(b, i), sizeof(ct_level_stats)))
            return 0;
    return ct_sim_get_totals(a)->cycles == ct_sim_get_totals(b)->cycles;
}

/* What one workload measured. */
typedef struct result {
    const char *workload;
    uint64_t n;
    timing mem, din, din_ra, din_parse, ctr_parse, ctr, src;
} result;

/* Run path `repeat` times into t: simulated (the statistics compared with
 * ref, or kept as the reference when *ref is NULL) unless simulate is 0. */
static int measure(const char *path, const ct_config *cfg, int simulate, int repeat,
                   timing *t, ct_sim **ref, const char *what, ct_error *err)
{
    for (int r = 0; r < repeat; r++) {
        ct_sim *s = NULL;
        uint64_t n = 0;
        double c0, w0;
        int rc;

        if (simulate && (rc = ct_sim_create(&s, cfg, err)) != CT_OK)
            return rc;
        c0 = cpu_now();
        w0 = cli_now();
        rc = sim_from(s, path, cfg, &n, err);
        if (rc == CT_OK)
            timing_add(t, n, cpu_now() - c0, cli_now() - w0);
        if (rc == CT_OK && s && *ref && !same_stats(*ref, s))
            rc = ct_error_set(err, CT_E_INTERNAL, "bench: the %s run and the in-memory run "
                              "disagree", what);
        if (s && !*ref && rc == CT_OK)
            *ref = s;
        else
            ct_sim_free(s);
        if (rc != CT_OK)
            return rc;
    }
    return CT_OK;
}

static void free_chunks(chunk *head)
{
    while (head) {
        chunk *nx = head->next;
        ct_batch_free(&head->b);
        free(head);
        head = nx;
    }
}

/* Everything for one workload; the figures in *res. */
static int bench_one(const char *workload, const ct_config *cfg, const ct_config *cfg1,
                     int readahead, const char *dir, int keep, int repeat, result *res,
                     ct_error *err)
{
    chunk *head = NULL, **tail = &head;
    ct_sim *ref = NULL;
    char dinpath[4096], ctrpath[4096];
    int rc;

    memset(res, 0, sizeof *res);
    res->workload = workload;
    snprintf(dinpath, sizeof dinpath, "%s/cachet-bench-%ld.din", dir, (long)getpid());
    snprintf(ctrpath, sizeof ctrpath, "%s/cachet-bench-%ld.ctr.zst", dir, (long)getpid());

    /* decode the workload into memory */
    {
        ct_trace *t = NULL;
        ct_trace_opts to = {0};
        const char *paths[1] = {workload};
        to.cfg = cfg1;
        if ((rc = ct_trace_open(&t, paths, 1, &to, err)) != CT_OK)
            return rc;
        for (;;) {
            chunk *ch = calloc(1, sizeof *ch);
            if (!ch || ct_batch_init(&ch->b, 1u << 16) != CT_OK) {
                free(ch);
                ct_trace_close(t);
                free_chunks(head);
                return ct_error_set(err, CT_E_NOMEM, "out of memory");
            }
            *tail = ch;
            tail = &ch->next;
            rc = ct_trace_next(t, &ch->b, err);
            if (rc <= 0)
                break;
        }
        ct_trace_close(t);
        if (rc < 0) {
            free_chunks(head);
            return rc;
        }
    }
    /* write it as din and as ctr */
    if ((rc = write_as(head, "din", dinpath, err)) != CT_OK ||
        (rc = write_as(head, "ctr", ctrpath, err)) != CT_OK)
        goto out;

    /* in-memory: the batches as decoded */
    for (int r = 0; r < repeat; r++) {
        ct_sim *s = NULL;
        uint64_t n = 0;
        double c0, w0;
        if ((rc = ct_sim_create(&s, cfg1, err)) != CT_OK)
            goto out;
        c0 = cpu_now();
        w0 = cli_now();
        for (chunk *ch = head; ch && rc == CT_OK; ch = ch->next) {
            n += ch->b.n;
            rc = ct_sim_run(s, &ch->b, err);
        }
        timing_add(&res->mem, n, cpu_now() - c0, cli_now() - w0);
        if (rc == CT_OK && ref && !same_stats(ref, s))
            rc = ct_error_set(err, CT_E_INTERNAL, "bench: two in-memory runs disagree");
        if (!ref && rc == CT_OK)
            ref = s;
        else
            ct_sim_free(s);
        if (rc != CT_OK)
            goto out;
    }
    res->n = res->mem.n;

    if ((rc = measure(dinpath, cfg1, 1, repeat, &res->din, &ref, "din text", err)) != CT_OK ||
        (readahead &&
         (rc = measure(dinpath, cfg, 1, repeat, &res->din_ra, &ref, "din text (read-ahead)",
                       err)) != CT_OK) ||
        (rc = measure(dinpath, cfg1, 0, repeat, &res->din_parse, &ref, "", err)) != CT_OK ||
        (rc = measure(ctrpath, cfg1, 0, repeat, &res->ctr_parse, &ref, "", err)) != CT_OK ||
        (rc = measure(ctrpath, cfg1, 1, repeat, &res->ctr, &ref, "ctr", err)) != CT_OK ||
        (rc = measure(workload, cfg1, 0, repeat, &res->src, &ref, "", err)) != CT_OK)
        goto out;
    if (res->din.n != res->n || res->ctr.n != res->n || res->din_parse.n != res->n ||
        res->ctr_parse.n != res->n || res->src.n != res->n) {
        rc = ct_error_set(err, CT_E_INTERNAL, "bench: the runs saw different numbers of "
                          "accesses");
        goto out;
    }

    printf("workload %s\n", workload);
    printf("  din file %s (%llu bytes), ctr file %s (%llu bytes)\n", dinpath,
           (unsigned long long)cli_file_size(dinpath), ctrpath,
           (unsigned long long)cli_file_size(ctrpath));
    print_timing("in-memory", &res->mem, "(simulate only)");
    print_timing("din text", &res->din, "(read, parse, simulate; one thread)");
    if (readahead)
        print_timing("din text, read-ahead", &res->din_ra,
                     "(the same, decoding in a second thread; cpu of both)");
    print_timing("din parse", &res->din_parse, "(decode only)");
    print_timing("ctr parse", &res->ctr_parse, "(decode only)");
    print_timing("ctr replay", &res->ctr, "(read, decode, simulate; one thread)");
    print_timing("source parse", &res->src, "(the workload decoded again)");
    printf("  ctr parse / din parse %.2fx, ctr parse / source parse %.2fx (cpu)\n",
           res->din_parse.cpu / res->ctr_parse.cpu, res->src.cpu / res->ctr_parse.cpu);
out:
    if (!keep) {
        unlink(dinpath);
        unlink(ctrpath);
    }
    free_chunks(head);
    ct_sim_free(ref);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    int opt_status;
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
        {"workload", required_argument, NULL, 'w'}, {"dir", required_argument, NULL, 'd'},
        {"keep", no_argument, NULL, 'k'},         {"repeat", required_argument, NULL, 'r'},
        {"decode", no_argument, NULL, 'D'},       {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cli_common co = {0};
    const char *workloads[MAX_WORKLOADS], *dir = "/tmp";
    result res[MAX_WORKLOADS];
    int nwork = 0, keep = 0, decode = 0, repeat = 3, c, status = EXIT_OK, readahead, done = 0;
    ct_error err = {0};
    ct_config *cfg = NULL, *cfg1 = NULL;
    char buf[64];
    const char *ra;

    optind = 1;
    while ((c = cli_option(argc, argv, "c:s:w:r:f:h", opts, &co, help, &opt_status)) !=
           CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_STOP: return opt_status;
        case 'w':
            if (nwork == MAX_WORKLOADS) {
                cli_error("bench: at most %d workloads", MAX_WORKLOADS);
                return EXIT_USAGE;
            }
            workloads[nwork++] = optarg;
            break;
        case 'd': dir = optarg; break;
        case 'k': keep = 1; break;
        case 'D': decode = 1; break;
        case 'r':
            repeat = atoi(optarg);
            if (repeat < 1 || repeat > 100) {
                cli_error("bench: --repeat takes 1..100");
                return EXIT_USAGE;
            }
            break;
        }
    }
    if (decode) {
        if (optind >= argc) {
            cli_error("bench: --decode needs a trace");
            return EXIT_USAGE;
        }
        return decode_only(&co, argv + optind, argc - optind, repeat);
    }
    if (co.format) {
        cli_error("bench: -f goes with --decode");
        return EXIT_USAGE;
    }
    if (optind < argc) {
        cli_error("bench: workloads are given with -w (%s)", argv[optind]);
        return EXIT_USAGE;
    }
    if (nwork == 0)
        for (size_t i = 0; i < sizeof default_workloads / sizeof default_workloads[0]; i++)
            workloads[nwork++] = default_workloads[i];
    /* cfg as given; cfg1 the same without the read-ahead thread */
    if (cli_load_config(&co, &cfg, &err) != CT_OK ||
        ct_config_clone(&cfg1, cfg, &err) != CT_OK ||
        ct_config_set(cfg1, "trace.readahead=no", &err) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    ra = ct_config_get(cfg, "trace", "readahead", buf, sizeof buf);
    readahead = ra && strcmp(ra, "yes") == 0;

    printf("cachet %s bench  config %s  best of %d run%s  (M/s: million accesses per second "
           "of CPU time and of wall-clock time)\n", ct_version(),
           co.config_path ? co.config_path : "(built-in)", repeat, repeat == 1 ? "" : "s");
    for (int w = 0; w < nwork; w++) {
        if (bench_one(workloads[w], cfg, cfg1, readahead, dir, keep, repeat, &res[w], &err) !=
            CT_OK) {
            status = cli_fail(&err);
            break;
        }
        done++;
        fflush(stdout);
    }
    if (done > 0) {
        printf("summary: M accesses/s, one thread, best of %d (cpu / wall)\n", repeat);
        printf("  %-44s %10s  %17s  %17s\n", "workload", "accesses", "in-memory",
               "din text");
        for (int w = 0; w < done; w++)
            printf("  %-44s %10llu  %7.1f / %7.1f  %7.1f / %7.1f\n", res[w].workload,
                   (unsigned long long)res[w].n, rate(&res[w].mem, res[w].mem.cpu),
                   rate(&res[w].mem, res[w].mem.wall), rate(&res[w].din, res[w].din.cpu),
                   rate(&res[w].din, res[w].din.wall));
    }
out:
    ct_config_free(cfg);
    ct_config_free(cfg1);
    return status;
}
