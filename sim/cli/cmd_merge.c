/*
 * cmd_merge.c - cachet merge: join the CSVs of sweep shards (--shard K/N)
 * into the file one run of the whole sweep writes: same header, rows in
 * trace order (as the shards list them), then point order, then level
 * order. Shards must have the same header; a (trace, point) found in two
 * files is an error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_csv.h"

static void help(FILE *f)
{
    fprintf(f, "usage: cachet merge -o OUT.csv SHARD.csv...\n\n"
               "Joins sweep shard CSVs into one CSV identical to an unsharded run's.\n");
}

int cmd_merge(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out_path = "-";
    char *header = NULL, **traces = NULL;
    size_t ntraces = 0;
    blocks all = {0};
    int c, status = EXIT_OK;
    ct_error err = {0};

    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out_path = optarg; break;
        case 'h': help(stdout); return EXIT_OK;
        default: help(stderr); return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        cli_error("merge: no input given");
        return EXIT_USAGE;
    }
    for (int a = optind; a < argc && status == EXIT_OK; a++) {
        size_t len, lineno = 1;
        char *text = read_text_file(argv[a], &len), *p, *nl, *bstart = NULL;
        int c_point = -1, c_trace = -1, nf;
        size_t cur_t = 0, cur_p = 0;
        char hb[16384], *hf[512];

        if (!text) {
            cli_error("%s: cannot read", argv[a]);
            status = EXIT_INPUT;
            break;
        }
        nl = strchr(text, '\n');
        if (!nl) {
            cli_error("%s: not a sweep CSV (no header)", argv[a]);
            free(text);
            status = EXIT_INPUT;
            break;
        }
        if (!header) {
            header = strndup(text, (size_t)(nl - text + 1));
        } else if (strncmp(header, text, (size_t)(nl - text + 1)) != 0) {
            cli_error("%s:1: header differs from %s's: not shards of one sweep", argv[a],
                      argv[optind]);
            free(text);
            status = EXIT_INPUT;
            break;
        }
        nf = csv_split(text, hb, sizeof hb, hf, 512);
        c_point = csv_column(hf, nf, "point");
        c_trace = csv_column(hf, nf, "trace");
        if (c_point != 0 || c_trace < 0) {
            cli_error("%s:1: not a sweep CSV (no point or trace column)", argv[a]);
            free(text);
            status = EXIT_INPUT;
            break;
        }
        for (p = nl + 1; *p && status == EXIT_OK; p = nl + 1) {
            char buf[16384], *f[512];
            size_t t, pt;
            int n;
            lineno++;
            nl = strchr(p, '\n');
            if (!nl) {
                cli_error("%s:%zu: last line has no newline (truncated file?)", argv[a], lineno);
                status = EXIT_INPUT;
                break;
            }
            n = csv_split(p, buf, sizeof buf, f, 512);
            if (n != nf) {
                cli_error("%s:%zu: %d fields, the header has %d", argv[a], lineno, n, nf);
                status = EXIT_INPUT;
                break;
            }
            pt = strtoull(f[c_point], NULL, 10);
            for (t = 0; t < ntraces && strcmp(traces[t], f[c_trace]) != 0; t++)
                ;
            if (t == ntraces) {
                char **nv = realloc(traces, (ntraces + 1) * sizeof *nv);
                if (!nv || !(nv[ntraces] = strdup(f[c_trace]))) {
                    cli_error("out of memory");
                    status = EXIT_INPUT;
                    break;
                }
                traces = nv;
                ntraces++;
            }
            if (bstart && (t != cur_t || pt != cur_p)) {
                if (blocks_add(&all, cur_t, cur_p, bstart, (size_t)(p - bstart)) != 0) {
                    cli_error("%s: trace %s point %zu appears in more than one shard", argv[a],
                              traces[cur_t], cur_p);
                    status = EXIT_INPUT;
                    break;
                }
                bstart = NULL;
            }
            if (!bstart) {
                bstart = p;
                cur_t = t;
                cur_p = pt;
            }
        }
        if (status == EXIT_OK && bstart &&
            blocks_add(&all, cur_t, cur_p, bstart, strlen(bstart)) != 0) {
            cli_error("%s: trace %s point %zu appears in more than one shard", argv[a],
                      traces[cur_t], cur_p);
            status = EXIT_INPUT;
        }
        free(text);
    }
    if (status == EXIT_OK) {
        cli_out o;
        blocks_sort(&all);
        if (cli_out_open(&o, out_path, &err) != CT_OK) {
            status = cli_fail(&err);
        } else {
            if (o.w.write(o.w.ctx, header, strlen(header)) != 0)
                o.w.failed = -1;
            blocks_write(&all, &o.w);
            if (cli_out_commit(&o, &err) != CT_OK)
                status = cli_fail(&err);
        }
    }
    for (size_t t = 0; t < ntraces; t++)
        free(traces[t]);
    free(traces);
    free(header);
    blocks_free(&all);
    return status;
}
