/*
 * cmd_run.c - cachet run: replay traces through a hierarchy.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f)
{
    fprintf(f,
            "usage: cachet run [-c FILE.ini] [-s section.key=value]... [-f FORMAT] [--lenient]\n"
            "                  [--json FILE|-] [--csv FILE|-] [--events FILE|-] [--quiet]\n"
            "                  TRACE...\n\n"
            "Replays every access of the traces through the hierarchy of the configuration\n"
            "(configs/default.ini keys; built-in default: L1D 32K 8-way + L2 1M 16-way) and\n"
            "prints a per-level table. Several traces are one workload: their streams are\n"
            "interleaved onto the configured cores. TRACE may be a file, a directory, '-' for\n"
            "stdin, or a synthetic workload such as gen:matmul:dim=128.\n\n"
            "  -c, --config FILE   configuration file\n"
            "  -s, --set K=V       override one key (repeatable), e.g. -s l1d.size=64K\n"
            "  -f, --format NAME   force the trace format (default: detected)\n"
            "      --lenient       skip and count malformed records instead of stopping\n"
            "      --json FILE     write results as JSON ('-' for stdout, replaces the table)\n"
            "      --csv FILE      write one CSV row per level ('-' for stdout)\n"
            "      --events FILE   write the model's cache events as Tarmac CACHE lines\n"
            "                      (time and cpu of the causing access; a level is named by\n"
            "                      its tarmac_name key, else core<N>.<level>)\n"
            "  -q, --quiet         no table\n");
}

/* The event log of --events: one Tarmac line per model event. */
typedef struct event_log {
    cli_out out;
    char (*names)[256];
} event_log;

static void log_event(void *ctx, const ct_event *ev, size_t level)
{
    event_log *log = ctx;
    ct_event_write_tarmac(&log->out.w, ev, log->names[level]);
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
}

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
        {"format", required_argument, NULL, 'f'}, {"lenient", no_argument, NULL, 'L'},
        {"json", required_argument, NULL, 'J'},   {"csv", required_argument, NULL, 'C'},
        {"quiet", no_argument, NULL, 'q'},        {"help", no_argument, NULL, 'h'},
        {"events", required_argument, NULL, 'E'}, {NULL, 0, NULL, 0},
    };
    cli_common co = {0};
    const char *json = NULL, *csv = NULL, *events = NULL;
    event_log log = {0};
    int log_open = 0;
    int quiet = 0, c, rc, status = EXIT_OK;
    ct_error err = {0};
    ct_config *cfg = NULL;
    ct_trace *t = NULL;
    ct_sim *s = NULL;
    ct_batch b = {0};
    ct_trace_opts to = {0};
    uint64_t *sizes = NULL;
    double t0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "c:s:f:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'c': co.config_path = optarg; break;
        case 's':
            if (co.nsets == (int)(sizeof co.sets / sizeof co.sets[0])) {
                cli_error("too many -s options");
                return EXIT_USAGE;
            }
            co.sets[co.nsets++] = optarg;
            break;
        case 'f': co.format = optarg; break;
        case 'L': co.lenient = 1; break;
        case 'J': json = optarg; break;
        case 'C': csv = optarg; break;
        case 'E': events = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': help(stdout); return EXIT_OK;
        default: help(stderr); return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        cli_error("run: no trace given");
        help(stderr);
        return EXIT_USAGE;
    }
    if ((rc = cli_load_config(&co, &cfg, &err)) != CT_OK)
        return cli_fail(&err);
    to.cfg = cfg;
    if ((rc = ct_trace_open(&t, (const char *const *)argv + optind, (size_t)(argc - optind),
                            &to, &err)) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    if ((rc = ct_sim_create(&s, cfg, &err)) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    if (ct_batch_init(&b, 1u << 14) != CT_OK) {
        cli_error("out of memory");
        status = EXIT_INPUT;
        goto out;
    }
    if (events) {
        log.names = calloc(ct_sim_nlevels(s) + 1, sizeof *log.names);
        if (!log.names) {
            cli_error("out of memory");
            status = EXIT_INPUT;
            goto out;
        }
        for (size_t i = 0; i < ct_sim_nlevels(s); i++)
            (void)ct_level_tarmac_name(cfg, s, i, log.names[i], sizeof log.names[i]);
        if (cli_out_open(&log.out, events, &err) != CT_OK) {
            status = cli_fail(&err);
            goto out;
        }
        log_open = 1;
        ct_sim_set_event_sink(s, log_event, &log);
    }
    cli_catch_signals();
    t0 = cli_now();
    while ((rc = ct_trace_next(t, &b, &err)) > 0) {
        if (ct_sim_run(s, &b, &err) != CT_OK) {
            rc = err.code;
            break;
        }
        if (cli_interrupted()) {
            cli_error("interrupted: results cover the trace read so far");
            status = 130;
            break;
        }
    }
    if (rc == CT_E_UNSUPPORTED && ct_trace_get_info(t)->masked_addresses) {
        cli_error("%s: the trace masks its memory addresses (as 0x~~~~~~~~~~~~~~~~), so it "
                  "cannot be simulated; `cachet info` counts its accesses by kind",
                  argc - optind == 1 ? argv[optind] : "one of the traces");
        status = EXIT_INPUT;
        goto out;
    }
    if (rc < 0) {
        status = cli_fail(&err);
        report_diagnostics(ct_trace_get_info(t));
        goto out;
    }
    report_diagnostics(ct_trace_get_info(t));
    ct_sim_finish(s);
    if (log_open) {
        log_open = 0;
        ct_sim_set_event_sink(s, NULL, NULL);
        if (cli_out_commit(&log.out, &err) != CT_OK) {
            status = cli_fail(&err);
            goto out;
        }
    }
    {
        size_t n = (size_t)(argc - optind);
        ct_run_meta meta = {0};
        sizes = calloc(n, sizeof *sizes);
        for (size_t i = 0; sizes && i < n; i++)
            sizes[i] = cli_file_size(argv[optind + (int)i]);
        meta.config_path = co.config_path ? co.config_path : "";
        meta.traces = (const char *const *)argv + optind;
        meta.ntraces = n;
        meta.trace_sizes = sizes;
        meta.format = ct_trace_get_info(t)->format;
        meta.seconds = cli_now() - t0;

        if (!quiet && !(json && strcmp(json, "-") == 0) && !(csv && strcmp(csv, "-") == 0)) {
            ct_writer w = cli_stdout_writer();
            ct_report_table(&w, s, cfg, &meta);
        }
        if (json) {
            cli_out o;
            if (cli_out_open(&o, json, &err) != CT_OK) {
                status = cli_fail(&err);
                goto out;
            }
            meta.seconds = 0; /* keep JSON deterministic */
            ct_report_json(&o.w, s, cfg, &meta);
            if (cli_out_commit(&o, &err) != CT_OK) {
                status = cli_fail(&err);
                goto out;
            }
        }
        if (csv) {
            cli_out o;
            if (cli_out_open(&o, csv, &err) != CT_OK) {
                status = cli_fail(&err);
                goto out;
            }
            ct_report_csv(&o.w, s, cfg, &meta, 1);
            if (cli_out_commit(&o, &err) != CT_OK) {
                status = cli_fail(&err);
                goto out;
            }
        }
    }
out:
    if (log_open)
        cli_out_abort(&log.out);
    free(log.names);
    free(sizes);
    ct_batch_free(&b);
    ct_sim_free(s);
    ct_trace_close(t);
    ct_config_free(cfg);
    return status;
}
