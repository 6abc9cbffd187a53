/*
 * cmd_info.c - cachet info: decode traces and count what they hold.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f)
{
    fprintf(f,
            "usage: cachet info [-f FORMAT] [-c FILE.ini] [-s K=V]... [--lenient] [--json]\n"
            "                   TRACE...\n\n"
            "Decodes the traces without simulating and reports the detected format and the\n"
            "counts: records (native: lines, entries, words), instructions (one per\n"
            "instruction record: the fetched ones, accesses of kind ifetch, and those\n"
            "retired without a fetch, kind nofetch, such as TT6E's trap pair; a drmemtrace\n"
            "no-fetch record repeats the instruction before it and is a nofetch access but\n"
            "no instruction, as basic_counts counts \"(fetched) instructions\"), accesses by\n"
            "kind, load and store bytes, threads, markers, reference events, malformed\n"
            "records by reason.\n\n"
            "  -f, --format NAME   force the trace format\n"
            "      --lenient       skip and count malformed records instead of stopping\n"
            "      --json          one JSON object on stdout\n"
            "  -c, -s              configuration (format options, cores for scheduling)\n\n"
            "formats:\n");
    for (size_t i = 0;; i++) {
        const char *desc, *name = ct_format_name(i, &desc);
        if (!name)
            break;
        fprintf(f, "  %-10s %s\n", name, desc);
    }
}

typedef struct counts {
    uint64_t kind[CT_KIND_STREAM];
    uint64_t bytes[CT_KIND_STREAM];   /* by kind */
    uint64_t load_bytes, store_bytes, atomic_bytes;
    uint64_t markers, events, noaddr;
    uint64_t repeats;                 /* nofetch records of CT_F_REPEAT: no instructions */
} counts;

static void reasons_json(ct_writer *w, const ct_reason *r, uint32_t n)
{
    ct_writef(w, "[");
    for (uint32_t i = 0; i < n; i++) {
        ct_writef(w, "%s{\"what\": ", i ? ", " : "");
        ct_write_json_string(w, r[i].what);
        ct_writef(w, ", \"count\": %llu, \"first\": ", (unsigned long long)r[i].count);
        ct_write_json_string(w, r[i].first);
        ct_writef(w, "}");
    }
    ct_writef(w, "]");
}

/* The counts as JSON (info --json). */
static void write_json(ct_writer *w, const counts *n, const ct_trace_info *ti,
                       char *const *traces, int ntraces)
{
    ct_writef(w, "{\n  \"traces\": [");
    for (int i = 0; i < ntraces; i++) {
        ct_writef(w, "%s", i > 0 ? ", " : "");
        ct_write_json_string(w, traces[i]);
    }
    ct_writef(w, "],\n  \"format\": ");
    ct_write_json_string(w, ti->format);
    ct_writef(w, ",\n  \"streams\": %u,\n  \"records\": %llu,\n  \"bytes\": %llu,\n"
                  "  \"instructions\": %llu,\n  \"accesses\": {",
              ti->streams, (unsigned long long)ti->records, (unsigned long long)ti->bytes,
              (unsigned long long)(n->kind[CT_IFETCH] + n->kind[CT_NOFETCH] - n->repeats));
    for (int k = 0; k < CT_KIND_STREAM; k++)
        ct_writef(w, "%s\"%s\": %llu", k ? ", " : "", ct_kind_name(k),
                  (unsigned long long)n->kind[k]);
    ct_writef(w, "},\n  \"load_bytes\": %llu,\n  \"store_bytes\": %llu,\n"
                  "  \"atomic_bytes\": %llu,\n  \"threads\": %llu,\n  \"markers\": %llu,\n"
                  "  \"events\": %llu,\n  \"masked_addresses\": %llu,\n  \"malformed\": %llu,\n"
                  "  \"malformed_reasons\": ",
              (unsigned long long)n->load_bytes, (unsigned long long)n->store_bytes,
              (unsigned long long)n->atomic_bytes, (unsigned long long)ti->threads,
              (unsigned long long)n->markers, (unsigned long long)n->events,
              (unsigned long long)n->noaddr, (unsigned long long)ti->malformed);
    reasons_json(w, ti->reasons, ti->nreasons);
    ct_writef(w, ",\n  \"ignored\": ");
    reasons_json(w, ti->warnings, ti->nwarnings);
    ct_writef(w, ",\n  \"ignored_files\": %llu", (unsigned long long)ti->ignored_files);
    ct_writef(w, "\n}\n");
}

/* The counts as a table. */
static void write_table(ct_writer *w, const counts *n, const ct_trace_info *ti)
{
    ct_writef(w, "format        %s (%u stream%s)\n", ti->format, ti->streams,
              ti->streams == 1 ? "" : "s");
    ct_writef(w, "records       %llu\n", (unsigned long long)ti->records);
    ct_writef(w, "instructions  %llu\n",
              (unsigned long long)(n->kind[CT_IFETCH] + n->kind[CT_NOFETCH] - n->repeats));
    for (int k = 0; k < CT_KIND_STREAM; k++)
        ct_writef(w, "%-13s %llu\n", ct_kind_name(k), (unsigned long long)n->kind[k]);
    ct_writef(w, "load bytes    %llu\nstore bytes   %llu\nthreads       %llu\n"
                  "markers       %llu\nevents        %llu\nmalformed     %llu\n",
              (unsigned long long)n->load_bytes, (unsigned long long)n->store_bytes,
              (unsigned long long)ti->threads, (unsigned long long)n->markers,
              (unsigned long long)n->events, (unsigned long long)ti->malformed);
    if (n->noaddr)
        ct_writef(w, "masked        %llu accesses without an address (cannot be simulated)\n",
                  (unsigned long long)n->noaddr);
    for (uint32_t i = 0; i < ti->nreasons; i++)
        ct_writef(w, "  malformed: %llu x %s (first: %s)\n",
                  (unsigned long long)ti->reasons[i].count, ti->reasons[i].what,
                  ti->reasons[i].first);
    for (uint32_t i = 0; i < ti->nwarnings; i++)
        ct_writef(w, "  ignored: %llu x %s (first at %s)\n",
                  (unsigned long long)ti->warnings[i].count, ti->warnings[i].what,
                  ti->warnings[i].first);
    if (ti->ignored_files)
        ct_writef(w, "  ignored: %llu %s (first: %s)\n", (unsigned long long)ti->ignored_files,
                  ti->ignored_files == 1 ? "file that is not a trace"
                                         : "files that are not traces",
                  ti->ignored_first);
}

int cmd_info(int argc, char **argv)
{
    int opt_status;
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
        {"format", required_argument, NULL, 'f'}, {"lenient", no_argument, NULL, 'L'},
        {"json", no_argument, NULL, 'J'},         {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cli_common co = {0};
    int json = 0, c, rc, status = EXIT_OK;
    ct_error err = {0};
    ct_config *cfg = NULL;
    ct_trace *t = NULL;
    ct_batch b = {0};
    ct_trace_opts to = {0};
    counts n;
    const ct_trace_info *ti;
    ct_writer w = cli_stdout_writer();

    memset(&n, 0, sizeof n);
    optind = 1;
    while ((c = cli_option(argc, argv, "c:s:f:h", opts, &co, help, &opt_status)) !=
           CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_STOP: return opt_status;
        case 'J': json = 1; break;
        }
    }
    if (optind >= argc) {
        cli_error("info: no trace given");
        help(stderr);
        return EXIT_USAGE;
    }
    if ((rc = cli_load_config(&co, &cfg, &err)) != CT_OK)
        return cli_fail(&err);
    to.cfg = cfg;
    cli_catch_signals(); /* a signal stops the reading: nothing printed, exit 130 */
    if ((rc = cli_open_trace(&t, &b, argv + optind, argc - optind, &to, &err)) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    while ((rc = ct_trace_next(t, &b, &err)) > 0) {
        /* no branch on the kind: traces mix kinds unpredictably */
        for (uint32_t i = 0; i < b.n; i++) {
            const ct_access *a = &b.acc[i];
            n.kind[a->kind]++;
            n.bytes[a->kind] += a->size;
            n.noaddr += (a->flags & CT_F_NOADDR) != 0;
            n.repeats += (a->flags & CT_F_REPEAT) != 0;
        }
        n.markers += b.nmk;
        n.events += b.nev;
    }
    n.load_bytes = n.bytes[CT_LOAD];
    n.store_bytes = n.bytes[CT_STORE];
    n.atomic_bytes = n.bytes[CT_ATOMIC];
    if (rc < 0) {
        status = cli_fail(&err);
        goto out;
    }
    ti = ct_trace_get_info(t);
    if (json)
        write_json(&w, &n, ti, argv + optind, argc - optind);
    else
        write_table(&w, &n, ti);
out:
    ct_batch_free(&b);
    ct_trace_close(t);
    ct_config_free(cfg);
    return status;
}
