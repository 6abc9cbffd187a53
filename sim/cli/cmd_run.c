/*
 * cmd_run.c - cachet run: replay traces through a hierarchy.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static void help(FILE *f)
{
    fprintf(f,
            "usage: cachet run [-c FILE.ini] [-s section.key=value]... [-f FORMAT] [--lenient]\n"
            "                  [--compat drcachesim] [--json FILE|-] [--csv FILE|-]\n"
            "                  [--events FILE|-] [--quiet] [--skip N] [--warmup N] [-n N]\n"
            "                  [--interval N] TRACE...\n\n"
            "Replays every access of the traces through the hierarchy of the configuration\n"
            "(configs/default.ini keys; built-in default: L1D 32K 8-way + L2 1M 16-way) and\n"
            "prints a per-level table. Several traces are one workload: their streams are\n"
            "interleaved onto the configured cores. TRACE may be a file, a directory, '-' for\n"
            "stdin, or a synthetic workload such as gen:matmul:dim=128.\n\n"
            "  -c, --config FILE   configuration file\n"
            "  -s, --set K=V       override one key (repeatable), e.g. -s l1d.size=64K\n"
            "  -f, --format NAME   force the trace format (default: detected)\n"
            "      --lenient       skip and count malformed records instead of stopping\n"
            "      --compat NAME   count as another simulator does ([system] compat):\n"
            "                      drcachesim = DynamoRIO's cache simulator; without -c\n"
            "                      the hierarchy is drcachesim's default too (that of\n"
            "                      configs/drcachesim-default.ini: 4 cores, L1I and L1D\n"
            "                      32K 8-way, shared LL 8M 16-way, 64-byte lines,\n"
            "                      next-line prefetch at the L1D); with -c, the file's\n"
            "                      hierarchy, counted by drcachesim's rules\n"
            "      --json FILE     write results as JSON ('-' for stdout, replaces the table)\n"
            "      --csv FILE      write one CSV row per level ('-' for stdout)\n"
            "      --interval N    with --csv: also a row per level after every N trace\n"
            "                      accesses, cumulative counts so far (DineroIV's\n"
            "                      -stat-interval; results/README.md)\n"
            "      --events FILE   write the model's events as Tarmac lines: CACHE, and with\n"
            "                      TLBs also TLB, WALKCACHE and TTW (time and cpu of the\n"
            "                      causing access; a structure is named by its tarmac_name\n"
            "                      key, a walk side by tarmac_walk_name, else\n"
            "                      core<N>.<section>)\n"
            "      --skip N        read and drop the first N references (accesses and\n"
            "                      thread exits) before simulating (drcachesim's -skip_refs)\n"
            "      --warmup N      simulate the next N references, then reset every\n"
            "                      statistic (drcachesim's -warmup_refs; by fraction of the\n"
            "                      last level filled: -s system.warmup_fraction=F)\n"
            "  -n, --max-accesses N  then simulate only N references and stop reading\n"
            "                      (drcachesim's -sim_refs); rules in sim/window.c\n"
            "  -q, --quiet         no table\n");
}

/* The event log of --events: one Tarmac line per model event. Structures
 * are the cache levels, then the translation structures (whose TTW events
 * take the walk side's name). */
typedef struct event_log {
    cli_out out;
    size_t nlevels;
    char (*names)[256];
    char (*walk_names)[256];
} event_log;

static void log_event(void *ctx, const ct_event *ev, size_t level)
{
    event_log *log = ctx;
    const char *name = ev->type == CT_EV_TTW && level >= log->nlevels
                           ? log->walk_names[level - log->nlevels]
                           : log->names[level];
    ct_event_write_tarmac(&log->out.w, ev, name);
}

/* The CSV of --interval: its rows at every interval (ct_sim_set_interval),
 * then the final ones. */
typedef struct interval_log {
    cli_out out;
    const ct_config *cfg;
    ct_run_meta meta;
    int header;           /* the header is still to be written */
} interval_log;

static void log_interval(void *ctx, const ct_sim *s)
{
    interval_log *l = ctx;
    ct_report_csv(&l->out.w, s, l->cfg, &l->meta, l->header);
    l->header = 0;
}

/* Tell the user about skipped records and ignored record kinds, once. */
static void report_diagnostics(const ct_trace_info *ti)
{
    for (uint32_t i = 0; i < ti->nreasons; i++)
        cli_error("skipped %llu malformed record%s: %s (first: %s)",
                  (unsigned long long)ti->reasons[i].count, ti->reasons[i].count == 1 ? "" : "s",
                  ti->reasons[i].what, ti->reasons[i].first);
    for (uint32_t i = 0; i < ti->nwarnings; i++)
        cli_error("note: %llu record%s of a kind not simulated: %s (first at %s)",
                  (unsigned long long)ti->warnings[i].count, ti->warnings[i].count == 1 ? "" : "s",
                  ti->warnings[i].what, ti->warnings[i].first);
    if (ti->ignored_files)
        cli_error("note: ignored: %llu %s (first: %s)", (unsigned long long)ti->ignored_files,
                  ti->ignored_files == 1 ? "file that is not a trace" : "files that are not traces",
                  ti->ignored_first);
}

/* Simulate t's batches in s until the trace or s's window ends, with a
 * progress line. 0 at the end; CT_E_INTERRUPTED after SIGINT or SIGTERM
 * (also while the records held no access); else the error, in err. */
static int simulate(ct_sim *s, ct_trace *t, ct_batch *b, int quiet, ct_error *err)
{
    cli_progress pg = {0};
    uint64_t done = 0; /* accesses read, for the progress line */
    int rc = 0;

    cli_progress_start(&pg, quiet);
    while (!ct_sim_window_done(s) && (rc = ct_trace_next(t, b, err)) > 0) {
        done += b->n;
        if (ct_sim_run(s, b, err) != CT_OK) {
            rc = err->code;
            break;
        }
        cli_progress_update(&pg, t, done);
        if (cli_interrupted()) {
            rc = ct_error_set(err, CT_E_INTERRUPTED, "interrupted");
            break;
        }
    }
    cli_progress_end(&pg);
    return rc;
}

/* replacement = opt (rules at the top of sim/policy/opt.c): refuse inputs
 * that cannot be read twice, and run the first pass, which records what
 * arrives at each opt level in files in $TMPDIR (else /tmp), and hand its
 * next uses to s. gen: streams are seeded ([system] seed) and come out the
 * same twice. CT_OK; else err is filled (CT_E_INTERRUPTED on a signal;
 * *masked set when the trace masks its addresses). */
static int opt_first_pass(ct_sim *s, const ct_config *cfg, const ct_window *win,
                          char *const *paths, int n, const ct_trace_opts *to, int quiet,
                          int *masked, ct_error *err)
{
    const char *dir = getenv("TMPDIR");
    ct_sim *first = NULL;
    ct_trace *t = NULL;
    ct_batch b = {0};
    int rc;

    for (int i = 0; i < n; i++) {
        struct stat st;
        if (strcmp(paths[i], "-") == 0 ||
            (stat(paths[i], &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
            return ct_error_set(err, CT_E_USAGE,
                                "%s: replacement = opt reads the trace twice (a first pass "
                                "finds each line's next use): give a file or a directory, "
                                "not %s",
                                paths[i], strcmp(paths[i], "-") == 0 ? "stdin" : "a pipe or device");
    }
    if (!dir || !dir[0])
        dir = "/tmp";
    if ((rc = ct_sim_create(&first, cfg, err)) != CT_OK ||
        (rc = ct_sim_set_window(first, win, err)) != CT_OK ||
        (rc = ct_sim_opt_record(first, dir, err)) != CT_OK ||
        (rc = cli_open_trace(&t, &b, paths, n, to, err)) != CT_OK)
        goto out;
    rc = simulate(first, t, &b, quiet, err);
    *masked = rc == CT_E_UNSUPPORTED && ct_trace_get_info(t)->masked_addresses;
    if (rc >= 0)
        rc = ct_sim_opt_replay(s, first, dir, err);
out:
    ct_batch_free(&b);
    ct_trace_close(t);
    ct_sim_free(first);
    return rc;
}

/* What the command line asks for besides the common options. */
typedef struct run_args {
    cli_common co;
    const char *json, *csv, *events, *compat;
    uint64_t interval;
    ct_window win;
    int quiet;
} run_args;

/* Read the options into a: -1 to go on, else the exit status (help,
 * usage errors). optind is left at the first trace. */
static int parse_args(int argc, char **argv, run_args *a)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
        {"format", required_argument, NULL, 'f'}, {"lenient", no_argument, NULL, 'L'},
        {"json", required_argument, NULL, 'J'},   {"csv", required_argument, NULL, 'C'},
        {"quiet", no_argument, NULL, 'q'},        {"help", no_argument, NULL, 'h'},
        {"events", required_argument, NULL, 'E'}, {"compat", required_argument, NULL, 'X'},
        {"max-accesses", required_argument, NULL, 'n'},
        {"skip", required_argument, NULL, 'K'},   {"warmup", required_argument, NULL, 'W'},
        {"interval", required_argument, NULL, 'I'},
        {NULL, 0, NULL, 0},
    };
    int opt_status, c;

    memset(a, 0, sizeof *a);
    a->win = (ct_window){0, 0, UINT64_MAX, 0};
    optind = 1;
    while ((c = cli_option(argc, argv, "c:s:f:n:qh", opts, &a->co, help, &opt_status)) !=
           CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_STOP: return opt_status;
        case 'J': a->json = optarg; break;
        case 'C': a->csv = optarg; break;
        case 'E': a->events = optarg; break;
        case 'n':
        case 'K':
        case 'W': {
            static const char *const what[] = {"--max-accesses", "--skip", "--warmup"};
            uint64_t *to = c == 'n' ? &a->win.sim : c == 'K' ? &a->win.skip : &a->win.warmup;
            if (cli_count(optarg, UINT64_MAX, to) != 0) {
                cli_error("run: %s takes a count of references, not \"%s\"",
                          what[c == 'n' ? 0 : c == 'K' ? 1 : 2], optarg);
                return EXIT_USAGE;
            }
            break;
        }
        case 'q': a->quiet = 1; break;
        case 'X': a->compat = optarg; break;
        case 'I':
            if (cli_count(optarg, UINT64_MAX, &a->interval) != 0 || a->interval == 0) {
                cli_error("run: --interval takes a count of accesses above 0, not \"%s\"",
                          optarg);
                return EXIT_USAGE;
            }
            break;
        }
    }
    if (a->interval && !a->csv) {
        cli_error("run: --interval writes its rows to the CSV: give --csv FILE too");
        return EXIT_USAGE;
    }
    if (optind >= argc) {
        cli_error("run: no trace given");
        help(stderr);
        return EXIT_USAGE;
    }
    {
        const char *outs[] = {a->json, a->csv, a->events};
        char *cfg_in[] = {(char *)a->co.config_path};
        if (cli_out_distinct(outs, 3, argv + optind, argc - optind) != 0 ||
            cli_out_distinct(outs, 3, cfg_in, a->co.config_path ? 1 : 0) != 0)
            return EXIT_USAGE;
    }
    return -1;
}

/* The first pass of replacement = opt, before the run: the exit status of
 * a failure (reported), or EXIT_OK. */
static int run_opt_first_pass(ct_sim *s, const ct_config *cfg, run_args *a, char **paths,
                              int n, const ct_trace_opts *to, ct_error *err)
{
    int masked = 0;
    int rc = opt_first_pass(s, cfg, &a->win, paths, n, to, a->quiet, &masked, err);

    if (masked)
        return cli_masked(n, paths, "simulated");
    if (rc == CT_E_INTERRUPTED || (rc != CT_OK && cli_interrupted())) {
        cli_error("interrupted in the first pass of replacement = opt: nothing simulated, "
                  "no output file written");
        return 130;
    }
    return rc != CT_OK ? cli_fail(err) : EXIT_OK;
}

/* --events: the log of the model's events, named as Tarmac names the
 * structures; the sink is set on s. */
static int open_event_log(event_log *log, ct_sim *s, const ct_config *cfg, const char *path,
                          ct_error *err)
{
    const size_t nlv = ct_sim_nlevels(s), ntlb = ct_sim_ntlbs(s);

    log->nlevels = nlv;
    log->names = calloc(nlv + ntlb + 1, sizeof *log->names);
    log->walk_names = calloc(ntlb + 1, sizeof *log->walk_names);
    if (!log->names || !log->walk_names)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    for (size_t i = 0; i < nlv; i++)
        (void)ct_level_tarmac_name(cfg, s, i, log->names[i], sizeof log->names[i]);
    for (size_t i = 0; i < ntlb; i++) {
        (void)ct_tlb_tarmac_name(cfg, s, i, 0, log->names[nlv + i], sizeof log->names[0]);
        (void)ct_tlb_tarmac_name(cfg, s, i, 1, log->walk_names[i], sizeof log->walk_names[0]);
    }
    if (cli_out_open(&log->out, path, err) != CT_OK)
        return err->code;
    ct_sim_set_event_sink(s, log_event, log);
    return CT_OK;
}

/* --interval: the CSV rows of every interval, the sink set on s. */
static int open_interval_log(interval_log *ivl, ct_sim *s, const ct_config *cfg,
                             const ct_run_meta *meta, uint64_t *sizes, const run_args *a,
                             ct_error *err)
{
    ivl->cfg = cfg;
    ivl->header = 1;
    ivl->meta = *meta;
    ivl->meta.trace_sizes = sizes;
    if (cli_out_open(&ivl->out, a->csv, err) != CT_OK)
        return err->code;
    ct_sim_set_interval(s, a->interval, log_interval, ivl);
    return CT_OK;
}

/* A run stopped by a signal: its results go to the terminal only. The exit
 * status. */
static int report_interrupted(ct_sim *s, const ct_config *cfg, const ct_run_meta *meta,
                              int quiet)
{
    cli_error("interrupted: the figures cover the trace read so far; no output file "
              "written");
    if (!quiet) {
        ct_writer w = cli_stdout_writer();
        ct_sim_finish(s);
        ct_report_table(&w, s, cfg, meta);
    }
    return 130;
}

/* The results of a finished run: the table on stdout (unless quiet or an
 * output is stdout), the JSON, the CSV (after the interval rows when
 * --interval wrote some: *ivl_open is then cleared). */
static int write_reports(ct_sim *s, const ct_config *cfg, ct_run_meta *meta, const run_args *a,
                         interval_log *ivl, int *ivl_open, ct_error *err)
{
    cli_out o;

    if (!a->quiet && !(a->json && strcmp(a->json, "-") == 0) &&
        !(a->csv && strcmp(a->csv, "-") == 0)) {
        ct_writer w = cli_stdout_writer();
        ct_report_table(&w, s, cfg, meta);
    }
    if (a->json) {
        if (cli_out_open(&o, a->json, err) != CT_OK)
            return err->code;
        meta->seconds = 0; /* keep JSON deterministic */
        ct_report_json(&o.w, s, cfg, meta);
        if (cli_out_commit(&o, err) != CT_OK)
            return err->code;
    }
    if (a->csv && *ivl_open) {  /* after the rows of the intervals */
        ct_report_csv(&ivl->out.w, s, cfg, meta, ivl->header);
        *ivl_open = 0;
        if (cli_out_commit(&ivl->out, err) != CT_OK)
            return err->code;
    } else if (a->csv) {
        if (cli_out_open(&o, a->csv, err) != CT_OK)
            return err->code;
        ct_report_csv(&o.w, s, cfg, meta, 1);
        if (cli_out_commit(&o, err) != CT_OK)
            return err->code;
    }
    return CT_OK;
}

int cmd_run(int argc, char **argv)
{
    run_args a;
    event_log log = {0};
    interval_log ivl = {0};
    int log_open = 0, ivl_open = 0;
    int rc, status = EXIT_OK, stopped;
    ct_error err = {0};
    ct_config *cfg = NULL;
    ct_trace *t = NULL;
    ct_sim *s = NULL;
    ct_batch b = {0};
    ct_trace_opts to = {0};
    uint64_t *sizes = NULL;
    ct_run_meta meta = {0};
    size_t n;
    double t0;

    if ((status = parse_args(argc, argv, &a)) >= 0)
        return status;
    status = EXIT_OK;
    n = (size_t)(argc - optind);
    cli_catch_signals(); /* from here on no output file is left half-written */
    a.co.drcachesim = a.compat && strcmp(a.compat, "drcachesim") == 0 && !a.co.config_path;
    if ((rc = cli_load_config(&a.co, &cfg, &err)) != CT_OK)
        return cli_fail(&err);
    if (a.compat && (rc = ct_config_set_kv(cfg, "system", "compat", a.compat, &err)) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    to.cfg = cfg;
    to.skip_refs = a.win.skip;   /* dropped before scheduling, as drcachesim does */
    a.win.dropped = a.win.skip;
    a.win.skip = 0;
    if ((rc = ct_sim_create(&s, cfg, &err)) != CT_OK ||
        (rc = ct_sim_set_window(s, &a.win, &err)) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    if (ct_sim_opt_levels(s) > 0 &&
        (status = run_opt_first_pass(s, cfg, &a, argv + optind, argc - optind, &to, &err)) !=
            EXIT_OK)
        goto out;
    if ((rc = cli_open_trace(&t, &b, argv + optind, argc - optind, &to, &err)) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    if (a.events) {
        if ((rc = open_event_log(&log, s, cfg, a.events, &err)) != CT_OK) {
            status = rc == CT_E_NOMEM ? (cli_error("out of memory"), EXIT_INPUT)
                                      : cli_fail(&err);
            goto out;
        }
        log_open = 1;
    }
    sizes = calloc(n, sizeof *sizes);
    for (size_t i = 0; sizes && i < n; i++)
        sizes[i] = cli_file_size(argv[optind + (int)i]);
    meta.config_path = a.co.config_path ? a.co.config_path : "";
    meta.traces = (const char *const *)argv + optind;
    meta.ntraces = n;
    meta.format = ct_trace_get_info(t)->format;
    if (a.interval) {
        if (open_interval_log(&ivl, s, cfg, &meta, sizes, &a, &err) != CT_OK) {
            status = cli_fail(&err);
            goto out;
        }
        ivl_open = 1;
    }
    t0 = cli_now();
    rc = simulate(s, t, &b, a.quiet, &err);
    stopped = rc == CT_E_INTERRUPTED;
    if (rc == CT_E_UNSUPPORTED && ct_trace_get_info(t)->masked_addresses) {
        status = cli_masked(argc - optind, argv + optind, "simulated");
        goto out;
    }
    if (rc < 0 && !stopped) {
        status = cli_fail(&err);
        report_diagnostics(ct_trace_get_info(t));
        goto out;
    }
    report_diagnostics(ct_trace_get_info(t));
    if (stopped) {
        status = report_interrupted(s, cfg, &meta, a.quiet);
        goto out;
    }
    if (ct_sim_opt_check(s, &err) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    ct_sim_finish(s);
    if (log_open) {
        log_open = 0;
        ct_sim_set_event_sink(s, NULL, NULL);
        if (cli_out_commit(&log.out, &err) != CT_OK) {
            status = cli_fail(&err);
            goto out;
        }
    }
    meta.trace_sizes = sizes;
    meta.seconds = cli_now() - t0;
    if (write_reports(s, cfg, &meta, &a, &ivl, &ivl_open, &err) != CT_OK)
        status = cli_fail(&err);
out:
    if (log_open)
        cli_out_abort(&log.out);
    if (ivl_open)
        cli_out_abort(&ivl.out);
    free(log.names);
    free(log.walk_names);
    free(sizes);
    ct_batch_free(&b);
    ct_sim_free(s);
    ct_trace_close(t);
    ct_config_free(cfg);
    return status;
}
