/*
 * cmd_validate.c - cachet validate: the model's cache, TLB and walk events
 * against the CACHE, TLB, WALKCACHE and TTW lines of a Tarmac trace.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f)
{
    fprintf(f,
            "usage: cachet validate -c FILE.ini [-s K=V]... [-f FORMAT] [--lenient]\n"
            "                       [--json FILE|-] [--window N] [--max-diffs N]\n"
            "                       [--context N] [--min-agreement X] [--ignore-line-ids]\n"
            "                       [--warm-until TIME | --cold] TRACE...\n\n"
            "Replays the trace's accesses through the hierarchy of the configuration and\n"
            "matches the model's events with the trace's own CACHE, TLB, WALKCACHE and TTW\n"
            "lines, per structure and operation. A cache level, TLB or walk cache takes part\n"
            "when its tarmac_name key names a Tarmac structure (e.g. tarmac_name =\n"
            "cpu.cpu0.l1dcache; {cpu} stands for the core of a private one); a TLB's walks\n"
            "take part when its tarmac_walk_name names a TTW side (ITLB, DTLB). The trace's\n"
            "TTW lines are also the page tables the model walks.\n\n"
            "Two events agree when structure, operation, address and detail (LINE id,\n"
            "physical base, descriptor value) are the same, at most --window timestamps\n"
            "apart. Prints per structure and operation the reference and model counts, how\n"
            "many agree, how many paired with another LINE id (a divergence), missing\n"
            "(reference only), extra (model only), cold-start extras and the agreement\n"
            "(agreeing / (reference + extra)); then the agreement of the whole run, what the\n"
            "cold-start allowance set aside, the verdict, and the first divergences (other\n"
            "LINE ids first) with the trace lines around them.\n\n"
            "Cold start: a trace excerpt starts with warm caches, the model with cold ones.\n"
            "By default the model's first fill of a line or entry, or first read of a\n"
            "descriptor, in a set where the reference has shown no event yet (and the\n"
            "DIRTY, CLEAN, INVAL or EVICT that follow from it) is set aside and counted;\n"
            "--warm-until TIME compares only events from trace time TIME on instead, and\n"
            "--cold (a trace that starts at reset) sets nothing aside.\n\n"
            "  -c, --config FILE     configuration (required)\n"
            "  -s, --set K=V         override one key (repeatable)\n"
            "  -f, --format NAME     force the trace format\n"
            "      --lenient         skip and count malformed lines\n"
            "      --json FILE       write the report as JSON ('-' for stdout, replaces the text)\n"
            "      --window N        events may be N trace timestamps apart (default 1)\n"
            "      --max-diffs N     divergences listed (default 10)\n"
            "      --context N       trace lines shown either side of one (default 3)\n"
            "      --min-agreement X agreement needed for success, 0..1 (default 1)\n"
            "      --ignore-line-ids a pair with another LINE id, physical base or\n"
            "                        descriptor agrees (counted, not a divergence)\n"
            "      --warm-until TIME events before trace time TIME are not compared\n"
            "      --cold            no cold-start allowance: every extra counts\n\n"
            "Exit status: 0 agreement reached, 3 not reached, 2 bad input or nothing to\n"
            "compare, 1 usage error.\n");
}

/* ct_validate_opts.progress: the progress line run and convert draw. */
static void on_progress(void *ctx, const ct_trace *t, uint64_t accesses)
{
    cli_progress_update(ctx, t, accesses);
}

/* Read the options into co, vo and *json: -1 to go on, else the exit
 * status (help, usage errors). optind is left at the first trace. */
static int parse_args(int argc, char **argv, cli_common *co, ct_validate_opts *vo,
                      const char **json)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'},   {"set", required_argument, NULL, 's'},
        {"format", required_argument, NULL, 'f'},   {"lenient", no_argument, NULL, 'L'},
        {"json", required_argument, NULL, 'J'},     {"window", required_argument, NULL, 'W'},
        {"max-diffs", required_argument, NULL, 'D'}, {"context", required_argument, NULL, 'X'},
        {"min-agreement", required_argument, NULL, 'A'}, {"help", no_argument, NULL, 'h'},
        {"ignore-line-ids", no_argument, NULL, 'I'}, {"warm-until", required_argument, NULL, 'U'},
        {"cold", no_argument, NULL, 'C'},
        {NULL, 0, NULL, 0},
    };
    int c, opt_status;
    uint64_t n;
    char *end;

    optind = 1;
    while ((c = cli_option(argc, argv, "c:s:f:h", opts, co, help, &opt_status)) !=
           CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_STOP: return opt_status;
        case 'J': *json = optarg; break;
        case 'W':
            if (cli_count(optarg, UINT64_MAX, &vo->window) != 0) {
                cli_error("validate: --window takes a count of timestamps, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'D':
        case 'X':
            if (cli_count(optarg, 100000, &n) != 0) {
                cli_error("validate: --%s takes a number 0..100000, not \"%s\"",
                          c == 'D' ? "max-diffs" : "context", optarg);
                return EXIT_USAGE;
            }
            if (c == 'D')
                vo->max_diffs = (uint32_t)n;
            else
                vo->context = (uint32_t)n;
            break;
        case 'A':
            vo->min_agreement = strtod(optarg, &end);
            if (*end || end == optarg || !(vo->min_agreement >= 0 && vo->min_agreement <= 1)) {
                cli_error("validate: --min-agreement takes a number 0..1, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'I': vo->ignore_line_ids = 1; break;
        case 'U':
            if (cli_count(optarg, UINT64_MAX, &vo->warm_until) != 0) {
                cli_error("validate: --warm-until takes a trace time, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            if (vo->cold_start == CT_COLD_NONE) {
                cli_error("validate: --warm-until and --cold exclude each other");
                return EXIT_USAGE;
            }
            vo->cold_start = CT_COLD_WARM_UNTIL;
            break;
        case 'C':
            if (vo->cold_start == CT_COLD_WARM_UNTIL) {
                cli_error("validate: --warm-until and --cold exclude each other");
                return EXIT_USAGE;
            }
            vo->cold_start = CT_COLD_NONE;
            break;
        }
    }
    if (!co->config_path) {
        cli_error("validate: needs a configuration (-c FILE.ini) whose levels and TLBs name "
                  "their Tarmac structures with tarmac_name");
        return EXIT_USAGE;
    }
    if (optind >= argc) {
        cli_error("validate: no trace given");
        help(stderr);
        return EXIT_USAGE;
    }
    if (cli_out_distinct((const char *[]){*json}, 1, argv + optind, argc - optind) != 0)
        return EXIT_USAGE;
    return -1;
}

/* A trace with no reference event to compare: say why, and which
 * structures it does have lines of. */
static void explain_nothing_to_compare(const ct_validation *v, const ct_vcount *tot,
                                       uint64_t warm_until, int ntraces, char **traces)
{
    char names[1024];

    cli_inputs(names, sizeof names, ntraces, traces);
    if (tot->warmup_reference)
        cli_error("validate: %s: nothing to compare: the %llu reference events of the named "
                  "structures are all before --warm-until %llu", names,
                  (unsigned long long)tot->warmup_reference, (unsigned long long)warm_until);
    else
        cli_error("validate: %s: nothing to compare: the trace has no CACHE, TLB, WALKCACHE "
                  "or TTW lines of a structure that a tarmac_name or tarmac_walk_name names",
                  names);
    for (size_t i = 0; i < ct_validation_nstructures(v); i++) {
        const ct_vstructure *s = ct_validation_structure(v, i);
        if (s->level < 0 && s->tlb < 0)
            cli_error("note: the trace has %s lines of \"%s\"", ct_event_type_name(s->type),
                      s->name);
    }
}

int cmd_validate(int argc, char **argv)
{
    cli_common co = {0};
    ct_validate_opts vo;
    const char *json = NULL;
    int status, rc;
    ct_error err = {0};
    ct_config *cfg = NULL;
    ct_validation *v = NULL;
    ct_vcount tot;
    cli_progress pg = {0};

    ct_validate_opts_default(&vo);
    if ((status = parse_args(argc, argv, &co, &vo, &json)) >= 0)
        return status;
    if (cli_load_config(&co, &cfg, &err) != CT_OK)
        return cli_fail(&err);
    vo.progress = on_progress;
    vo.progress_ctx = &pg;
    vo.stop = cli_stop_requested;
    cli_catch_signals(); /* a signal stops the replay: no verdict, nothing written, exit 130 */
    cli_progress_start(&pg, 0);
    rc = ct_validate(&v, (const char *const *)argv + optind, (size_t)(argc - optind), cfg, &vo,
                     &err);
    cli_progress_end(&pg);
    if (rc != CT_OK) {
        status = cli_fail(&err);
        goto out;
    }
    tot = ct_validation_total(v);
    if (tot.reference == 0) {
        explain_nothing_to_compare(v, &tot, vo.warm_until, argc - optind, argv + optind);
        status = EXIT_INPUT;
        goto out;
    }
    if (json) {
        cli_out o;
        if (cli_out_open(&o, json, &err) != CT_OK) {
            status = cli_fail(&err);
            goto out;
        }
        ct_validation_write_json(&o.w, v, (const char *const *)argv + optind,
                                 (size_t)(argc - optind), co.config_path);
        if (cli_out_commit(&o, &err) != CT_OK) {
            status = cli_fail(&err);
            goto out;
        }
    }
    if (!json || strcmp(json, "-") != 0) {
        ct_writer w = cli_stdout_writer();
        ct_validation_write_text(&w, v);
    }
    {
        const ct_trace_info *ti = ct_validation_trace_info(v);
        for (uint32_t i = 0; i < ti->nreasons; i++)
            cli_error("skipped %llu malformed line%s: %s (first: %s)",
                      (unsigned long long)ti->reasons[i].count,
                      ti->reasons[i].count == 1 ? "" : "s", ti->reasons[i].what,
                      ti->reasons[i].first);
    }
    status = ct_validation_passed(v) ? EXIT_OK : EXIT_MISMATCH;
out:
    ct_validation_free(v);
    ct_config_free(cfg);
    return status;
}
