/*
 * cmd_infer.c - cachet infer: cache geometry from the CACHE lines of a
 * Tarmac trace.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f)
{
    fprintf(f,
            "usage: cachet infer [-f FORMAT] [--lenient] [-s K=V]... [--window N] TRACE...\n\n"
            "Reads the CACHE lines of a Tarmac trace and infers, per cache, the line size,\n"
            "the associativity and the smallest set count consistent with the LINE ids and\n"
            "addresses seen (LINE = set * assoc + way). The accesses that caused fills give\n"
            "a lower bound of the line size; by default the trace's end also fetches the\n"
            "instruction that runs next ([trace] tarmac_next_fetch = yes), as Fast Models does.\n"
            "Prints the evidence, then an INI snippet for configs/.\n\n"
            "  -f, --format NAME   force the trace format\n"
            "      --lenient       skip and count malformed lines\n"
            "  -s, --set K=V       override a key (e.g. -s trace.tarmac_next_fetch=no)\n"
            "      --window N      a fill's access may be N timestamps away (default 1)\n");
}

int cmd_infer(int argc, char **argv)
{
    int opt_status;
    static const struct option opts[] = {
        {"set", required_argument, NULL, 's'},   {"format", required_argument, NULL, 'f'},
        {"lenient", no_argument, NULL, 'L'},     {"window", required_argument, NULL, 'W'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
    };
    int c, status = EXIT_OK;
    cli_common co = {0};
    uint64_t window = 1;
    ct_error err = {0};
    ct_config *cfg = NULL;
    ct_inference *inf = NULL;
    ct_validate_opts io;
    ct_writer w = cli_stdout_writer();

    optind = 1;
    co.sets[co.nsets++] = "trace.tarmac_next_fetch=yes";
    while ((c = cli_option(argc, argv, "s:f:h", opts, &co, help, &opt_status)) !=
           CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_STOP: return opt_status;
        case 'W':
            if (cli_count(optarg, UINT64_MAX, &window) != 0) {
                cli_error("infer: --window takes a count of timestamps, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            break;
        }
    }
    if (optind >= argc) {
        cli_error("infer: no trace given");
        help(stderr);
        return EXIT_USAGE;
    }
    if (cli_load_config(&co, &cfg, &err) != CT_OK)
        return cli_fail(&err);
    ct_validate_opts_default(&io);
    io.window = window;
    io.stop = cli_stop_requested;
    cli_catch_signals(); /* a signal stops the reading: nothing printed, exit 130 */
    if (ct_infer(&inf, (const char *const *)argv + optind, (size_t)(argc - optind), cfg, &io,
                 &err) != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    if (ct_inference_nstructures(inf) == 0) {
        char names[1024];
        cli_error("infer: %s: nothing to infer from: the trace has no CACHE lines",
                  cli_inputs(names, sizeof names, argc - optind, argv + optind));
        status = EXIT_INPUT;
        goto out;
    }
    ct_inference_write(&w, inf);
out:
    ct_inference_free(inf);
    ct_config_free(cfg);
    return status;
}
