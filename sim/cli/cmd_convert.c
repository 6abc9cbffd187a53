/*
 * cmd_convert.c - cachet convert: read a trace, write it in another format.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f)
{
    fprintf(f,
            "usage: cachet convert [-f FORMAT] [--lenient] [-c FILE.ini] [-s K=V]...\n"
            "                      [--to FORMAT] -o OUT TRACE...\n\n"
            "Decodes the traces and writes their access stream in another format. The output\n"
            "is written to a temporary name and renamed when complete ('-' for stdout).\n"
            "Without --to the output name chooses: *.ctr and *.ctr.zst ctr (compressed),\n"
            "*.din din, *.tarmac tarmac.\n\n"
            "output formats:\n");
    for (size_t i = 0;; i++) {
        const char *desc, *name = ct_trace_writer_name(i, &desc);
        if (!name)
            break;
        fprintf(f, "  %-10s %s\n", name, desc);
    }
}

/* The output format an output file name implies, or NULL. */
static const char *format_for(const char *path)
{
    static const struct { const char *suffix, *format; } by_suffix[] = {
        {".ctr.zst", "ctr"}, {".ctr", "ctr"}, {".din", "din"}, {".tarmac", "tarmac"},
    };
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof by_suffix / sizeof by_suffix[0]; i++) {
        size_t k = strlen(by_suffix[i].suffix);
        if (n > k && strcmp(path + n - k, by_suffix[i].suffix) == 0)
            return by_suffix[i].format;
    }
    return NULL;
}

/* Read the options into co, *to (the output format, by default from the
 * output's name) and *outpath: -1 to go on, else the exit status. optind is
 * left at the first trace. */
static int parse_args(int argc, char **argv, cli_common *co, const char **to,
                      const char **outpath)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
        {"format", required_argument, NULL, 'f'}, {"lenient", no_argument, NULL, 'L'},
        {"to", required_argument, NULL, 't'},     {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    int c, opt_status;

    optind = 1;
    while ((c = cli_option(argc, argv, "c:s:f:t:o:h", opts, co, help, &opt_status)) !=
           CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_STOP: return opt_status;
        case 't': *to = optarg; break;
        case 'o': *outpath = optarg; break;
        }
    }
    if (!*to && *outpath)
        *to = format_for(*outpath);
    if (!*outpath || optind >= argc) {
        cli_error("convert: needs -o OUT and a trace");
        help(stderr);
        return EXIT_USAGE;
    }
    if (!*to) {
        cli_error("convert: cannot tell the output format from \"%s\": give --to FORMAT",
                  *outpath);
        return EXIT_USAGE;
    }
    {
        const char *outs[] = {*outpath};
        char *cfg_in[] = {(char *)co->config_path};
        if (cli_out_distinct(outs, 1, argv + optind, argc - optind) != 0 ||
            cli_out_distinct(outs, 1, cfg_in, co->config_path ? 1 : 0) != 0)
            return EXIT_USAGE;
    }
    return -1;
}

/* Every record of t through tw, with a progress line; *done counts the
 * accesses read. 0 at the end of the trace, or a negative code (with err
 * set, or CT_E_INTERRUPTED on a signal). */
static int copy_records(ct_trace *t, ct_batch *b, ct_trace_writer *tw, uint64_t *done,
                        ct_error *err)
{
    cli_progress pg = {0};
    int rc;

    cli_progress_start(&pg, 0);
    while ((rc = ct_trace_next(t, b, err)) > 0) {
        const ct_trace_info *ti = ct_trace_get_info(t);
        *done += b->n;
        cli_progress_update(&pg, t, *done);
        if (ct_trace_writer_set_names(tw, ti->structures, ti->nstructures, err) != CT_OK ||
            ct_trace_writer_put(tw, b, err) != CT_OK) {
            rc = err->code;
            break;
        }
        if (cli_interrupted()) {
            rc = CT_E_INTERRUPTED;
            break;
        }
    }
    cli_progress_end(&pg);
    return rc;
}

int cmd_convert(int argc, char **argv)
{
    cli_common co = {0};
    const char *to = NULL, *outpath = NULL;
    int rc, status = EXIT_OK;
    ct_error err = {0};
    ct_config *cfg = NULL;
    ct_trace *t = NULL;
    ct_trace_writer *tw = NULL;
    ct_batch b = {0};
    uint64_t done = 0;
    ct_trace_opts topts = {0};
    cli_out o = {0};
    int out_open = 0;

    if ((status = parse_args(argc, argv, &co, &to, &outpath)) >= 0)
        return status;
    status = EXIT_OK;
    cli_catch_signals(); /* from here on no output file is left half-written */
    if (cli_load_config(&co, &cfg, &err) != CT_OK)
        return cli_fail(&err);
    topts.cfg = cfg;
    if ((rc = cli_open_trace(&t, &b, argv + optind, argc - optind, &topts, &err)) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    if (cli_out_open(&o, outpath, &err) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    out_open = 1;
    if (ct_trace_writer_open(&tw, to, &o.w, &err) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    rc = copy_records(t, &b, tw, &done, &err);
    if (rc == CT_E_INTERRUPTED) {
        cli_error("interrupted: no output written");
        status = 130;
        goto out;
    }
    if (rc == CT_E_UNSUPPORTED && ct_trace_get_info(t)->masked_addresses) {
        char what[48];
        snprintf(what, sizeof what, "written as %s", to);
        status = cli_masked(argc - optind, argv + optind, what);
        goto out;
    }
    if (rc < 0) {
        if (rc == CT_E_IO)
            cli_out_failed(&o, &err); /* the output's name and reason */
        status = cli_fail(&err);
        goto out;
    }
    if (done > 0 && ct_trace_writer_dropped(tw) >= done) { /* an output of nothing */
        char what[64];
        if (ct_trace_get_info(t)->masked_addresses) {
            snprintf(what, sizeof what, "written as %s", to);
            status = cli_masked(argc - optind, argv + optind, what);
        } else {
            char names[1024];
            cli_error("%s: nothing convertible: none of its %llu accesses has a %s form",
                      cli_inputs(names, sizeof names, argc - optind, argv + optind),
                      (unsigned long long)done, to);
            status = EXIT_INPUT;
        }
        goto out;
    }
    if (ct_trace_writer_dropped(tw))
        cli_error("note: %llu accesses have no %s form and were left out",
                  (unsigned long long)ct_trace_writer_dropped(tw), to);
    rc = ct_trace_writer_finish(tw, &err);
    tw = NULL;
    if (rc != CT_OK) {
        if (rc == CT_E_IO)
            cli_out_failed(&o, &err);
        status = cli_fail(&err);
        goto out;
    }
    out_open = 0;
    if (cli_out_commit(&o, &err) != CT_OK)
        status = cli_fail(&err);
out:
    if (tw)
        ct_trace_writer_finish(tw, NULL);
    if (out_open)
        cli_out_abort(&o);
    ct_batch_free(&b);
    ct_trace_close(t);
    ct_config_free(cfg);
    return status;
}
