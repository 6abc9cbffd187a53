/*
 * cmd_bench.c - cachet bench: cachet's own speed, measured the same way
 * every time (the figures in results/BENCHMARKS.md come from here).
 *
 * 1. The workload (default gen:random:n=10M,footprint=256K,writes=25: 10 M
 *    data accesses, each after a 4-byte instruction fetch, so 20 M accesses)
 *    is decoded into memory, then simulated from memory: "in-memory" speed.
 * 2. The same workload is written as a din text file, then read, parsed and
 *    simulated: "din text" speed (end to end, file to statistics).
 * 3. The same workload is written in the cachet trace format, compressed
 *    (.ctr.zst), then decoded only ("ctr parse") and decoded and simulated
 *    ("ctr replay").
 * 4. The workload itself is decoded again without simulating ("source
 *    parse"): with a trace file as the workload (-w trace.tarmac, a VIXL
 *    log, ...) this compares its own format with ctr.
 * Every simulating run must give the same statistics; the command fails
 * otherwise. Parse figures are the decoders' speed: read, decompress,
 * decode, schedule, without the model.
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

static void help(FILE *f)
{
    fprintf(f,
            "usage: cachet bench [-c FILE.ini] [-s K=V]... [-w WORKLOAD] [--dir DIR] [--keep]\n\n"
            "Measures accesses per second from memory, from din text and from the cachet\n"
            "trace format (.ctr.zst) on one core.\n"
            "  -w WORKLOAD   generator (default gen:random:n=10M,footprint=256K,writes=25)\n"
            "  --dir DIR     where the din and ctr files are written (default /tmp)\n"
            "  -r, --repeat N  decode-only runs: best of N (default 3)\n"
            "  --keep        keep the files\n\n"
            "usage: cachet bench --decode [-f FORMAT] [-c FILE.ini] [-s K=V]... [--repeat N]\n"
            "                    TRACE...\n\n"
            "Times decoding only (records and accesses per second of wall-clock time, and\n"
            "records per second of CPU time; batches of 16384 accesses), N times (default 3).\n");
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
        cli_out_abort(&o);
        return rc;
    }
    if ((rc = ct_trace_writer_finish(tw, err)) != CT_OK) {
        cli_out_abort(&o);
        return rc;
    }
    return cli_out_commit(&o, err);
}

/* Decode a file without simulating, `repeat` times; the fastest run's
 * seconds in *best (a shared machine makes single runs noisy). */
static int parse_best(const char *path, const ct_config *cfg, int repeat, uint64_t *n,
                      double *best, ct_error *err)
{
    *best = 0;
    for (int r = 0; r < repeat; r++) {
        double t0 = cli_now(), dt;
        int rc = sim_from(NULL, path, cfg, n, err);
        if (rc != CT_OK)
            return rc;
        dt = cli_now() - t0;
        if (r == 0 || dt < *best)
            *best = dt;
    }
    return CT_OK;
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

int cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
        {"workload", required_argument, NULL, 'w'}, {"dir", required_argument, NULL, 'd'},
        {"keep", no_argument, NULL, 'k'},         {"repeat", required_argument, NULL, 'r'},
        {"decode", no_argument, NULL, 'D'},       {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cli_common co = {0};
    const char *workload = "gen:random:n=10M,footprint=256K,writes=25", *dir = "/tmp";
    int keep = 0, decode = 0, repeat = 3, c, rc, status = EXIT_OK;
    ct_error err = {0};
    ct_config *cfg = NULL;
    ct_sim *s1 = NULL, *s2 = NULL, *s3 = NULL;
    chunk *head = NULL, **tail = &head;
    char dinpath[4096], ctrpath[4096];
    uint64_t n_mem = 0, n_din = 0, n_parse = 0, n_ctr = 0, n_ctrparse = 0, n_src = 0;
    double t0, t_mem, t_din, t_parse, t_ctr, t_ctrparse, t_src;

    optind = 1;
    while ((c = getopt_long(argc, argv, "c:s:w:r:f:h", opts, NULL)) != -1) {
        int taken = cli_common_option(&co, c, optarg);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken)
            continue;
        switch (c) {
        case 'w': workload = optarg; break;
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
        case 'h': help(stdout); return EXIT_OK;
        default: help(stderr); return EXIT_USAGE;
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
    if (cli_load_config(&co, &cfg, &err) != CT_OK)
        return cli_fail(&err);
    snprintf(dinpath, sizeof dinpath, "%s/cachet-bench-%ld.din", dir, (long)getpid());
    snprintf(ctrpath, sizeof ctrpath, "%s/cachet-bench-%ld.ctr.zst", dir, (long)getpid());

    /* decode the workload into memory */
    {
        ct_trace *t = NULL;
        ct_trace_opts to = {0};
        const char *paths[1] = {workload};
        to.cfg = cfg;
        if ((rc = ct_trace_open(&t, paths, 1, &to, &err)) != CT_OK) {
            status = cli_fail(&err);
            goto out;
        }
        for (;;) {
            chunk *ch = calloc(1, sizeof *ch);
            if (!ch || ct_batch_init(&ch->b, 1u << 16) != CT_OK) {
                free(ch);
                ct_trace_close(t);
                cli_error("out of memory");
                status = EXIT_INPUT;
                goto out;
            }
            *tail = ch;
            tail = &ch->next;
            rc = ct_trace_next(t, &ch->b, &err);
            if (rc <= 0)
                break;
        }
        ct_trace_close(t);
        if (rc < 0) {
            status = cli_fail(&err);
            goto out;
        }
    }
    /* write it as din and as ctr */
    if (write_as(head, "din", dinpath, &err) != CT_OK ||
        write_as(head, "ctr", ctrpath, &err) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }

    if (ct_sim_create(&s1, cfg, &err) != CT_OK || ct_sim_create(&s2, cfg, &err) != CT_OK ||
        ct_sim_create(&s3, cfg, &err) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    t0 = cli_now();
    for (chunk *ch = head; ch; ch = ch->next) {
        n_mem += ch->b.n;
        ct_sim_run(s1, &ch->b, &err);
    }
    t_mem = cli_now() - t0;

    if (parse_best(dinpath, cfg, repeat, &n_parse, &t_parse, &err) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }

    t0 = cli_now();
    if (sim_from(s2, dinpath, cfg, &n_din, &err) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    t_din = cli_now() - t0;

    if (parse_best(ctrpath, cfg, repeat, &n_ctrparse, &t_ctrparse, &err) != CT_OK ||
        parse_best(workload, cfg, repeat, &n_src, &t_src, &err) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }

    t0 = cli_now();
    if (sim_from(s3, ctrpath, cfg, &n_ctr, &err) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    t_ctr = cli_now() - t0;

    printf("cachet %s bench  config %s  workload %s\n", ct_version(),
           co.config_path ? co.config_path : "(built-in)", workload);
    printf("din file    %s (%llu bytes)\n", dinpath, (unsigned long long)cli_file_size(dinpath));
    printf("in-memory   %llu accesses  %.3f s  %.1f M accesses/s\n", (unsigned long long)n_mem,
           t_mem, n_mem / t_mem / 1e6);
    printf("din parse   %llu accesses  %.3f s  %.1f M accesses/s (decode only, best of %d)\n",
           (unsigned long long)n_parse, t_parse, n_parse / t_parse / 1e6, repeat);
    printf("din text    %llu accesses  %.3f s  %.1f M accesses/s (read, parse, simulate)\n",
           (unsigned long long)n_din, t_din, n_din / t_din / 1e6);
    printf("ctr file    %s (%llu bytes)\n", ctrpath, (unsigned long long)cli_file_size(ctrpath));
    printf("ctr parse   %llu accesses  %.3f s  %.1f M accesses/s (decode only, best of %d; "
           "%.2fx din parse, %.2fx source parse)\n",
           (unsigned long long)n_ctrparse, t_ctrparse, n_ctrparse / t_ctrparse / 1e6, repeat,
           t_parse / t_ctrparse, t_src / t_ctrparse);
    printf("ctr replay  %llu accesses  %.3f s  %.1f M accesses/s (read, decode, simulate)\n",
           (unsigned long long)n_ctr, t_ctr, n_ctr / t_ctr / 1e6);
    printf("source parse %llu accesses  %.3f s  %.1f M accesses/s (the workload decoded again, "
           "best of %d)\n",
           (unsigned long long)n_src, t_src, n_src / t_src / 1e6, repeat);
    if (n_mem != n_din || !same_stats(s1, s2)) {
        cli_error("bench: the din run and the in-memory run disagree");
        status = EXIT_INPUT;
    }
    if (n_mem != n_ctr || n_ctrparse != n_ctr || n_src != n_mem || !same_stats(s1, s3)) {
        cli_error("bench: the ctr run and the in-memory run disagree");
        status = EXIT_INPUT;
    }
out:
    if (!keep) {
        unlink(dinpath);
        unlink(ctrpath);
    }
    while (head) {
        chunk *nx = head->next;
        ct_batch_free(&head->b);
        free(head);
        head = nx;
    }
    ct_sim_free(s1);
    ct_sim_free(s2);
    ct_sim_free(s3);
    ct_config_free(cfg);
    return status;
}
