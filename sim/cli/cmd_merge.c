/*
 * cmd_merge.c - cachet merge: join the CSVs of sweep shards (--shard K/N)
 * into the files one run of the whole sweep writes: OUT.csv (same header,
 * rows in trace order as the shards list them, then point order, then
 * level order) and OUT.fit.csv (the power-law fits of the merged rows).
 *
 * Every input must start with the shard line cachet sweep --shard writes
 * (#cachet-shard,K,N,POINTS,HASH). The set is refused unless the inputs are
 * shards of one sweep (same N, point count, sweep hash and header), every
 * shard 0..N-1 is given exactly once, every row's point belongs to its
 * file's shard, and every trace has every point 0..POINTS-1 exactly once
 * (an interrupted shard lacks some).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_csv.h"

static void help(FILE *f)
{
    fprintf(f, "usage: cachet merge -o OUT.csv SHARD.csv...\n\n"
               "Joins the CSVs of every shard of a sweep (cachet sweep --shard K/N) into the\n"
               "CSV one unsharded run writes, and writes the power-law fits of the whole\n"
               "sweep to OUT.fit.csv (with -o FILE). Refuses an incomplete set of shards.\n");
}

/* The head of a shard's text: its shard line (a shard given once), then a
 * header equal to the first shard's (*header, kept from the first). 0 with
 * *body at the header, or an exit status (the message printed). */
static int read_head(const char *path, const char *first, char *text, char **header,
                     shard_info *si, const char **owner, char **body)
{
    char *nl;

    if (!shard_line_parse(text, si)) {
        cli_error("%s:1: not a shard of a sweep (no #cachet-shard line: cachet sweep "
                  "--shard K/N writes one)", path);
        return EXIT_INPUT;
    }
    if (owner[si->k]) {
        cli_error("%s: shard %u/%u given twice (also %s)", path, si->k, si->n, owner[si->k]);
        return EXIT_INPUT;
    }
    owner[si->k] = path;
    *body = (char *)csv_skip_comments(text);
    nl = strchr(*body, '\n');
    if (!nl) {
        cli_error("%s:%d: not a sweep CSV (no header)", path, 2);
        return EXIT_INPUT;
    }
    if (!*header) {
        *header = strndup(*body, (size_t)(nl - *body + 1));
        if (!*header) {
            cli_error("out of memory");
            return EXIT_INPUT;
        }
    } else if (strncmp(*header, *body, (size_t)(nl - *body + 1)) != 0) {
        cli_error("%s:%d: header differs from %s's: not shards of one sweep", path, 2, first);
        return EXIT_INPUT;
    }
    return 0;
}

/* The number of trace `name` among *traces, added when new; -1 out of
 * memory. */
static long trace_number(char ***traces, size_t *ntraces, const char *name)
{
    size_t t;
    char **nv;

    for (t = 0; t < *ntraces && strcmp((*traces)[t], name) != 0; t++)
        ;
    if (t < *ntraces)
        return (long)t;
    nv = realloc(*traces, (*ntraces + 1) * sizeof *nv);
    if (!nv)
        return -1;
    *traces = nv;
    if (!(nv[*ntraces] = strdup(name)))
        return -1;
    return (long)(*ntraces)++;
}

/* The rows of one (trace, point) block: one per level and core. Add the
 * row's key; 0, or an exit status (the message printed). */
static int add_row_key(char (**keys)[64], size_t *nkeys, const char *path, size_t lineno,
                       char **f, int c_trace, size_t pt, int c_level, int c_core)
{
    char key[64];
    void *nk;

    snprintf(key, sizeof key, "%s,%s", f[c_level], f[c_core]);
    for (size_t i = 0; i < *nkeys; i++)
        if (strcmp((*keys)[i], key) == 0) {
            cli_error("%s:%zu: a second row for trace %s point %zu level %s core %s", path,
                      lineno, f[c_trace], pt, f[c_level], f[c_core]);
            return EXIT_INPUT;
        }
    if (!(nk = realloc(*keys, (*nkeys + 1) * sizeof **keys))) {
        cli_error("out of memory");
        return EXIT_INPUT;
    }
    *keys = nk;
    memcpy((*keys)[(*nkeys)++], key, sizeof key);
    return 0;
}

/* Read one shard file into all; 0 or an exit status (the message printed). */
static int read_shard(const char *path, const char *first, blocks *all,
                      char **header, char ***traces, size_t *ntraces, shard_info *si,
                      const char **owner)
{
    size_t len, lineno = 2;
    char why[160];
    char *text = read_text_file(path, &len, why, sizeof why), *p, *nl, *bstart = NULL, *body;
    int c_point, c_trace, c_level, c_core, c_first_number, nf, status = 0;
    size_t cur_t = 0, cur_p = 0, nkeys = 0;
    char hb[16384], *hf[512], (*keys)[64] = NULL; /* level,core of the block's rows */

    if (!text) {
        cli_error("%s: cannot read: %s", path, why);
        return EXIT_INPUT;
    }
    if ((status = read_head(path, first, text, header, si, owner, &body)) != 0) {
        free(text);
        return status;
    }
    nl = strchr(body, '\n');
    nf = csv_split(body, hb, sizeof hb, hf, 512);
    c_point = csv_column(hf, nf, "point");
    c_trace = csv_column(hf, nf, "trace");
    c_level = csv_column(hf, nf, "level");
    c_core = csv_column(hf, nf, "core");
    c_first_number = csv_column(hf, nf, "accesses");
    if (c_point != 0 || c_trace < 0 || c_level < 0 || c_core < 0 || c_first_number < 0) {
        cli_error("%s:%zu: not a sweep CSV (no point, trace, level, core or accesses column)",
                  path, lineno);
        free(text);
        return EXIT_INPUT;
    }
    for (p = nl + 1; *p && status == 0; p = nl + 1) {
        char buf[16384], *f[512], *end;
        size_t t, pt;
        long tn;
        int n;
        lineno++;
        nl = strchr(p, '\n');
        if (!nl) {
            cli_error("%s:%zu: last line has no newline (truncated file?)", path, lineno);
            status = EXIT_INPUT;
            break;
        }
        n = csv_split(p, buf, sizeof buf, f, 512);
        if (n != nf) {
            cli_error("%s:%zu: %d fields, the header has %d", path, lineno, n, nf);
            status = EXIT_INPUT;
            break;
        }
        pt = strtoull(f[c_point], &end, 10);
        if (*end || !*f[c_point] || pt >= si->points || pt % si->n != si->k) {
            cli_error("%s:%zu: point %s is not one of shard %u/%u's (%zu points)", path,
                      lineno, f[c_point], si->k, si->n, si->points);
            status = EXIT_INPUT;
            break;
        }
        if ((tn = trace_number(traces, ntraces, f[c_trace])) < 0) {
            cli_error("out of memory");
            status = EXIT_INPUT;
            break;
        }
        t = (size_t)tn;
        for (int k = c_first_number; k < n; k++) { /* the figures: empty or finite */
            double v = strtod(f[k], &end);
            if (f[k][0] && (*end || !isfinite(v))) {
                cli_error("%s:%zu: %s \"%s\" is not a finite number", path, lineno, hf[k],
                          f[k]);
                status = EXIT_INPUT;
                break;
            }
        }
        if (status)
            break;
        if (bstart && (t != cur_t || pt != cur_p)) {
            if (blocks_add(all, cur_t, cur_p, bstart, (size_t)(p - bstart)) != 0) {
                cli_error("%s: trace %s point %zu appears twice", path, (*traces)[cur_t],
                          cur_p);
                status = EXIT_INPUT;
                break;
            }
            bstart = NULL;
        }
        if (!bstart) {
            bstart = p;
            cur_t = t;
            cur_p = pt;
            nkeys = 0;
        }
        status = add_row_key(&keys, &nkeys, path, lineno, f, c_trace, pt, c_level, c_core);
    }
    free(keys);
    if (status == 0 && bstart && blocks_add(all, cur_t, cur_p, bstart, strlen(bstart)) != 0) {
        cli_error("%s: trace %s point %zu appears twice", path, (*traces)[cur_t], cur_p);
        status = EXIT_INPUT;
    }
    free(text);
    return status;
}

int cmd_merge(int argc, char **argv)
{
    int opt_status;
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out_path = "-";
    char *header = NULL, **traces = NULL;
    const char **owner = NULL;
    size_t ntraces = 0;
    blocks all = {0};
    shard_info set = {0, 0, 0, 0};
    int c, status = EXIT_OK;
    ct_error err = {0};

    optind = 1;
    while ((c = cli_option(argc, argv, "o:h", opts, NULL, help, &opt_status)) !=
           CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_STOP: return opt_status;
        case 'o': out_path = optarg; break;
        }
    }
    if (optind >= argc) {
        cli_error("merge: no input given");
        return EXIT_USAGE;
    }
    if (cli_out_distinct((const char *[]){out_path}, 1, argv + optind, argc - optind) != 0)
        return EXIT_USAGE;
    cli_catch_signals(); /* a signal stops the merge: nothing written, exit 130 */
    for (int a = optind; a < argc && status == EXIT_OK && !cli_interrupted(); a++) {
        shard_info si;
        size_t len;
        char why[160];
        char *head = read_text_file(argv[a], &len, why, sizeof why);
        /* the shard line first: the set's size and identity */
        if (!head) {
            cli_error("%s: cannot read: %s", argv[a], why);
            status = EXIT_INPUT;
            break;
        }
        if (!shard_line_parse(head, &si)) {
            cli_error("%s:1: not a shard of a sweep (no #cachet-shard line: cachet sweep "
                      "--shard K/N writes one)", argv[a]);
            free(head);
            status = EXIT_INPUT;
            break;
        }
        free(head);
        if (a == optind) {
            set = si;
            owner = calloc(si.n, sizeof *owner);
            if (!owner) {
                cli_error("out of memory");
                status = EXIT_INPUT;
                break;
            }
        } else if (si.n != set.n || si.points != set.points || si.hash != set.hash) {
            cli_error("%s: shard %u/%u of a sweep of %zu points (hash %016llx), but %s is "
                      "shard %u/%u of one of %zu points (hash %016llx): not shards of one sweep",
                      argv[a], si.k, si.n, si.points, si.hash, argv[optind], set.k, set.n,
                      set.points, set.hash);
            status = EXIT_INPUT;
            break;
        }
        status = read_shard(argv[a], argv[optind], &all, &header, &traces, &ntraces, &si, owner);
    }
    /* the set is complete: every shard, every (trace, point) */
    for (unsigned k = 0; status == EXIT_OK && k < set.n; k++)
        if (!owner[k]) {
            cli_error("merge: shard %u/%u is missing (%zu points in the sweep)", k, set.n,
                      set.points);
            status = EXIT_INPUT;
        }
    if (status == EXIT_OK) {
        /* sorted by trace then point, block i must be (i / points, i % points) */
        blocks_sort(&all);
        for (size_t i = 0; i < ntraces * set.points; i++) {
            const size_t t = i / set.points, p = i % set.points;
            if (i < all.n && all.v[i].trace == t && all.v[i].point == p)
                continue;
            cli_error("merge: trace %s has no rows for point %zu (shard %zu/%u, %s, is "
                      "incomplete: interrupted?)", traces[t], p, p % set.n, set.n,
                      owner[p % set.n]);
            status = EXIT_INPUT;
            break;
        }
    }
    if (cli_interrupted()) {
        cli_error("merge: interrupted: %s not written", out_path ? out_path : "the output");
        status = 130;
    }
    if (status == EXIT_OK) {
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        ct_writer w;
        if (!m) {
            cli_error("out of memory");
            status = EXIT_INPUT;
        } else {
            w = cli_file_writer(m);
            if (w.write(w.ctx, header, strlen(header)) != 0)
                w.failed = -1;
            blocks_write(&all, &w);
            fclose(m);
            if (write_sweep_outputs(text, len, out_path, 1, NULL, &err) != CT_OK)
                status = cli_fail(&err);
        }
        free(text);
    }
    for (size_t t = 0; t < ntraces; t++)
        free(traces[t]);
    free(traces);
    free(owner);
    free(header);
    blocks_free(&all);
    return status;
}
