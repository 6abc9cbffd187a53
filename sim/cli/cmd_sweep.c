/*
 * cmd_sweep.c - cachet sweep: every point of a sweep file on every trace.
 *
 * Output (the rule; README.md repeats it): OUT.csv is written once, when
 * every point is finished, to a temporary name and renamed, so it appears
 * only complete. While the sweep runs, every finished (trace, point) is
 * appended to the journal OUT.csv.partial (its rows, then a "#done" line)
 * and flushed (the journal a sweep starts with is made as every output is,
 * cli_out.c: written beside it and renamed over it, so a --resume that
 * fails to write it leaves the old one whole). A sweep stopped by SIGINT or SIGTERM (exit 130), or killed,
 * or failed, leaves OUT.csv as it was (absent, or an earlier complete one)
 * and the journal with the finished points; rerun with --resume, it skips
 * them and ends with the same OUT.csv, and the journal is removed. The
 * journal names what it belongs to (journal_signature) and --resume refuses
 * one that does not match, saying why. Without -o (stdout) there is no
 * journal and an interrupted sweep writes nothing. Power-law fits of miss rate against size go to OUT.fit.csv,
 * except for a shard (--shard K/N): its OUT.csv starts with a line naming
 * the shard, and cachet merge writes the fits of the whole sweep.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef CACHET_HAVE_MPI
#include <mpi.h>
#endif

#include "cli.h"
#include "cli_csv.h"

static void help(FILE *f)
{
    fprintf(f,
            "usage: cachet sweep SWEEP.ini [-j N] [-o OUT.csv] [--resume] [--shard K/N]\n"
            "                    [--interval N] [--sample RATE] [--no-onepass]\n"
            "                    [--skip N] [--warmup N] [-n N] [-q] TRACE...\n"
            "       cachet sweep SWEEP.ini --list | --emit-configs DIR\n\n"
            "Runs every point of the sweep on every trace, decoding each trace once; points\n"
            "that differ only in the size and associativity of the last LRU level before\n"
            "memory are computed in one pass, with the figures of separate runs (said on\n"
            "stderr, and why not when not). Writes one CSV row per trace x point x level\n"
            "(results/README.md) and, with -o, power-law fits to OUT.fit.csv (a shard\n"
            "writes none: cachet merge writes them for the whole sweep).\n\n"
            "  -j, --threads N     worker threads (default: the cores available)\n"
            "  -o, --output FILE   CSV file (default '-': stdout)\n"
            "  -f, --format NAME   force the trace format (default: detected)\n"
            "      --resume        skip the points OUT.csv.partial already holds\n"
            "      --shard K/N     run points K, K+N, K+2N, ... (for Slurm arrays; join the\n"
            "                      shard files with cachet merge)\n"
            "      --interval N    accesses per interval of the miss-rate statistics (1M)\n"
            "      --sample RATE   sampled one-pass (0 < RATE < 1): estimates with a standard\n"
            "                      error (saves time with many sets or large caches only)\n"
            "      --sample-seed N which sample --sample takes (default 0)\n"
            "      --no-onepass    simulate every point on its own\n"
            "      --skip N, --warmup N, -n N  per point, as cachet run: drop the first N\n"
            "                      references, simulate N then reset the statistics,\n"
            "                      simulate N (every point on its own; sim/window.c)\n"
            "      --list          print the points and the skipped combinations\n"
            "      --emit-configs DIR  write each point's resolved configuration as\n"
            "                      DIR/point-N.ini (for `cachet run -c`)\n"
#ifdef CACHET_HAVE_MPI
            "      --mpi           share the points among MPI ranks; rank 0 writes OUT.csv\n"
#endif
            "  -q, --quiet         no notes, progress or fit summary\n");
}

typedef struct sweep_cli {
    ct_sweep *sw;
    const char *const *traces;
    size_t ntraces;
    uint64_t *sizes;
    blocks done;
    FILE *journal;
    const char *journal_path;
    int journal_errno;           /* the journal's first write error, 0 */
    int quiet, tty;
    int progress_shown;
    unsigned shard_k, shard_n;   /* --shard K/N (n 0: none) */
} sweep_cli;

static int on_result(void *ctx, const ct_sweep_result *r)
{
    sweep_cli *c = ctx;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ct_writer w;
    int rc = 0;

    if (!m)
        return -1;
    w = cli_file_writer(m);
    ct_sweep_csv_rows(&w, c->sw, r, c->traces[r->trace], c->sizes[r->trace]);
    fclose(m);
    if (w.failed || blocks_add(&c->done, r->trace, r->point, buf, len) < 0)
        rc = -1;
    if (!rc && c->journal) {
        errno = 0;
        if (fwrite(buf, 1, len, c->journal) != len ||
            fprintf(c->journal, "#done,%zu,%zu\n", r->trace, r->point) < 0 ||
            fflush(c->journal) != 0) {
            c->journal_errno = errno ? errno : EIO;
            rc = -1;
        }
    }
    free(buf);
    return rc;
}

static int is_done(void *ctx, size_t trace, size_t point)
{
    return blocks_has(&((sweep_cli *)ctx)->done, trace, point);
}

static void on_progress(void *ctx, const ct_sweep_progress *p)
{
    sweep_cli *c = ctx;
    char line[256];
    if (c->quiet || !c->tty)
        return;
    ct_sweep_progress_format(p, line, sizeof line);
    fprintf(stderr, "\r%s   ", line);
    c->progress_shown = 1;
}

static void on_plan(void *ctx, const ct_sweep_plan *p)
{
    sweep_cli *c = ctx;
    if (c->quiet)
        return;
    if (c->progress_shown) {
        fputc('\n', stderr);
        c->progress_shown = 0;
    }
    const char *th = p->threads == 1 ? "thread" : "threads";
    if (p->onepass)
        cli_error("sweep: %s: %s (%zu simulated one by one, %zu %s)", c->traces[p->trace],
                  p->note, p->simulated, p->threads, th);
    if (p->why && p->why[0])
        cli_error("sweep: %s: %s (%zu %s)", c->traces[p->trace], p->why, p->threads, th);
    else if (!p->onepass)
        cli_error("sweep: %s: %zu points simulated one by one on %zu %s",
                  c->traces[p->trace], p->simulated, p->threads, th);
}

/*
 * The journal's first lines: what it belongs to, compared line by line by
 * --resume, which refuses a journal that differs and says in what:
 *   #cachet-sweep-journal,2,OPTIONS,SAMPLE,SHARD  the points and options
 *   #sweep-file,HASH,PATH                         the sweep file's text
 *   #trace,I,SIZE,MTIME,HASH,PATH                 each trace (cli_file_identity:
 *                                                 size, modification time, and
 *                                                 a hash of its first and last MiB)
 * A trace rewritten in place, even with the same size, changes its time and
 * most likely its hash: its old rows are not resumed.
 */
static char *journal_signature(const sweep_cli *c, const char *sweep_path, uint64_t interval,
                               double sample, uint64_t seed, const char *shard)
{
    uint64_t h = ct_sweep_hash(c->sw) ^ (interval * 0x9e3779b97f4a7c15ull);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    cli_identity id;

    if (!m)
        return NULL;
    h = (h ^ seed) * 0x100000001b3ull;
    fprintf(m, "#cachet-sweep-journal,2,%016llx,%g,%s\n", (unsigned long long)h, sample,
            shard ? shard : "all");
    cli_file_identity(sweep_path, &id);
    fprintf(m, "#sweep-file,%016llx,%s\n", (unsigned long long)id.hash, sweep_path);
    for (size_t t = 0; t < c->ntraces; t++) {
        cli_file_identity(c->traces[t], &id);
        fprintf(m, "#trace,%zu,%llu,%llu,%016llx,%s\n", t, (unsigned long long)id.size,
                (unsigned long long)id.mtime, (unsigned long long)id.hash, c->traces[t]);
    }
    if (fclose(m) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Why journal text `have` (its signature lines) does not belong to `want`. */
static int journal_mismatch(const char *path, const char *have, const char *want, ct_error *err)
{
    const char *why = "it was written by a different sweep (other points, traces or options)";
    char what[600] = "";

    while (*have == *want && *want) { /* to the first line that differs */
        const char *nl = strchr(want, '\n');
        size_t n = (size_t)(nl - want) + 1;
        if (strncmp(have, want, n) != 0)
            break;
        have += n;
        want += n;
    }
    if (strncmp(want, "#sweep-file,", 12) == 0 && strncmp(have, "#sweep-file,", 12) == 0) {
        why = "the sweep file changed since it was written";
    } else if (strncmp(want, "#trace,", 7) == 0 && strncmp(have, "#trace,", 7) == 0) {
        unsigned long long hs, hm, ws, wm;
        size_t ht, wt;
        int pos = 0;
        if (sscanf(have, "#trace,%zu,%llu,%llu,%*x,%n", &ht, &hs, &hm, &pos) == 3 && pos &&
            sscanf(want, "#trace,%zu,%llu,%llu,", &wt, &ws, &wm) == 3) {
            const char *name = strchr(want + 7, ',');
            for (int k = 0; k < 3 && name; k++)
                name = strchr(name + 1, ',');
            snprintf(what, sizeof what, "trace %.*s ", name ? (int)strcspn(name + 1, "\n") : 0,
                     name ? name + 1 : "");
            why = hs != ws ? "changed size since it was written"
                  : hm != wm ? "was modified since it was written (its modification time "
                               "differs)"
                             : "changed since it was written (its first or last megabyte "
                               "differs)";
        } else {
            why = "it was written for other traces";
        }
    } else if (strncmp(want, "#trace,", 7) == 0 || strncmp(have, "#trace,", 7) == 0) {
        why = "it was written for other traces";
    }
    return ct_error_set(err, CT_E_USAGE,
                        "%s: not resumed: %s%s; remove it, or run without --resume to start "
                        "again", path, what, why);
}

/* Read the finished blocks of a journal; 0 when there is none. */
static int journal_load(sweep_cli *c, const char *path, const char *sig, ct_error *err)
{
    size_t len;
    char why[160];
    char *text = read_text_file(path, &len, why, sizeof why), *p, *start;
    size_t nsig = strlen(sig);
    int loaded = 0;

    if (!text)
        return errno == ENOENT ? 0 : ct_error_set(err, CT_E_IO, "%s: cannot read: %s", path,
                                                  why);
    if (strncmp(text, sig, nsig) != 0) {
        journal_mismatch(path, text, sig, err);
        free(text);
        return err->code;
    }
    p = text + nsig;                 /* after the signature */
    p = strchr(p, '\n');             /* header */
    if (!p) {
        free(text);
        return 0;
    }
    start = ++p;
    while (*p) {
        char *nl = strchr(p, '\n');
        size_t t, pt;
        if (!nl)
            break;  /* a torn last line */
        if (sscanf(p, "#done,%zu,%zu", &t, &pt) == 2) {
            if (t < c->ntraces && pt < ct_sweep_npoints(c->sw) &&
                blocks_add(&c->done, t, pt, start, (size_t)(p - start)) == 0)
                loaded++;
            start = nl + 1;
        }
        p = nl + 1;
    }
    free(text);
    return loaded;
}

/* OUT.csv (a shard's starts with its shard line) and, unless fits is 0 or
 * this is a shard, OUT.fit.csv. */
static int write_outputs(sweep_cli *c, const char *out_path, int fits, ct_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m;
    ct_writer mw = {0};
    int rc;

    blocks_sort(&c->done);
    m = open_memstream(&text, &len);
    if (!m)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    mw = cli_file_writer(m);
    if (c->shard_n) {
        shard_info si = {c->shard_k, c->shard_n, ct_sweep_npoints(c->sw),
                         (unsigned long long)ct_sweep_hash(c->sw)};
        shard_line_write(&mw, &si);
    }
    ct_sweep_csv_header(&mw, c->sw);
    blocks_write(&c->done, &mw);
    fclose(m);
    rc = write_sweep_outputs(text, len, out_path, fits && !c->shard_n,
                             c->quiet ? NULL : stdout, err);
    free(text);
    return rc;
}

typedef struct ini_out {
    FILE *f;
    const char *section;
} ini_out;

static int ini_visit(void *ctx, const char *section, const char *key, const char *value)
{
    ini_out *v = ctx;
    if (!v->section || strcmp(v->section, section) != 0) {
        fprintf(v->f, "[%s]\n", section);
        v->section = section;
    }
    fprintf(v->f, "%s = %s\n", key, value);
    return 0;
}

/* Each point's configuration is freed once written: memory does not grow
 * with the number of points. */
static int emit_configs(ct_sweep *sw, const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        cli_error("%s: cannot create: %s", dir, strerror(errno));
        return EXIT_INPUT;
    }
    for (size_t i = 0; i < ct_sweep_npoints(sw); i++) {
        char path[4200];
        ini_out v = {NULL, NULL};
        cli_out o;
        ct_error err = {0};
        const ct_config *cfg = ct_sweep_point_config(sw, i);
        if (!cfg) {
            cli_error("%s: out of memory", ct_sweep_path(sw));
            return EXIT_INPUT;
        }
        snprintf(path, sizeof path, "%s/point-%zu.ini", dir, i);
        if (cli_out_open(&o, path, &err) != CT_OK) /* a temporary name, renamed */
            return cli_fail(&err);
        v.f = o.f;
        fprintf(v.f, "; point %zu of %s\n", i, ct_sweep_path(sw));
        ct_config_visit(cfg, ini_visit, &v);
        ct_sweep_point_release(sw, i);
        if (cli_out_commit(&o, &err) != CT_OK)
            return cli_fail(&err);
    }
    return EXIT_OK;
}

#ifdef CACHET_HAVE_MPI
/* Gather every rank's blocks on rank 0. */
static int mpi_gather(sweep_cli *c, int rank, int size)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    int mylen, *lens = NULL, *offs = NULL, total = 0;
    char *all = NULL;

    if (!m)
        return -1;
    for (size_t i = 0; i < c->done.n; i++)
        fprintf(m, "#block,%zu,%zu,%zu\n%s", c->done.v[i].trace, c->done.v[i].point,
                strlen(c->done.v[i].text), c->done.v[i].text);
    fclose(m);
    mylen = (int)len;
    if (rank == 0) {
        lens = calloc((size_t)size, sizeof *lens);
        offs = calloc((size_t)size, sizeof *offs);
    }
    MPI_Gather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            offs[r] = total;
            total += lens[r];
        }
        all = malloc((size_t)total + 1);
    }
    MPI_Gatherv(text, mylen, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, MPI_COMM_WORLD);
    free(text);
    if (rank == 0) {
        char *p = all, *end = all + total;
        blocks_free(&c->done);
        while (p < end) {
            size_t t, pt, n;
            char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl || sscanf(p, "#block,%zu,%zu,%zu", &t, &pt, &n) != 3)
                break;
            blocks_add(&c->done, t, pt, nl + 1, n);
            p = nl + 1 + n;
        }
        free(all);
        free(lens);
        free(offs);
    }
    return 0;
}
#endif

/* What the command line asks for. */
typedef struct sweep_args {
    ct_sweep_opts so;
    ct_window win;
    const char *out_path, *shard, *emit;
    int resume, list, use_mpi, quiet;
} sweep_args;

/* Read the options into a: -1 to go on, else the exit status (help,
 * usage errors). optind is left at the sweep file. */
static int parse_args(int argc, char **argv, sweep_args *a)
{
    static const struct option opts[] = {
        {"threads", required_argument, NULL, 'j'}, {"output", required_argument, NULL, 'o'},
        {"resume", no_argument, NULL, 'R'},        {"shard", required_argument, NULL, 'S'},
        {"interval", required_argument, NULL, 'I'}, {"sample", required_argument, NULL, 'P'},
        {"no-onepass", no_argument, NULL, 'N'},    {"list", no_argument, NULL, 'l'},
        {"sample-seed", required_argument, NULL, 'D'},
        {"emit-configs", required_argument, NULL, 'E'}, {"mpi", no_argument, NULL, 'M'},
        {"quiet", no_argument, NULL, 'q'},         {"help", no_argument, NULL, 'h'},
        {"skip", required_argument, NULL, 'K'},    {"warmup", required_argument, NULL, 'W'},
        {"max-accesses", required_argument, NULL, 'n'},
        {"format", required_argument, NULL, 'f'},
        {NULL, 0, NULL, 0},
    };
    ct_sweep_opts *so = &a->so;
    int c;

    memset(a, 0, sizeof *a);
    a->win = (ct_window){0, 0, UINT64_MAX, 0};
    a->out_path = "-";
    optind = 1;
    while ((c = getopt_long(argc, argv, "j:o:n:f:qh", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'n':
        case 'K':
        case 'W': {
            static const char *const what[] = {"-n", "--skip", "--warmup"};
            uint64_t *to = c == 'n' ? &a->win.sim : c == 'K' ? &a->win.skip : &a->win.warmup;
            if (!optarg[0] || optarg[0] == '-' || (*to = strtoull(optarg, &end, 10), *end)) {
                cli_error("sweep: %s takes a count of references, not \"%s\"",
                          what[c == 'n' ? 0 : c == 'K' ? 1 : 2], optarg);
                return EXIT_USAGE;
            }
            so->window = &a->win;
            break;
        }
        case 'j':
            so->threads = (unsigned)strtoul(optarg, &end, 10);
            if (*end || !so->threads || so->threads > 1024) {
                cli_error("sweep: -j %s: expected a number of threads (1..1024)", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'o': a->out_path = optarg; break;
        case 'f': so->format = optarg; break;
        case 'R': a->resume = 1; break;
        case 'S':
            if (sscanf(optarg, "%u/%u", &so->shard_k, &so->shard_n) != 2 || !so->shard_n ||
                so->shard_k >= so->shard_n) {
                cli_error("sweep: --shard %s: expected K/N with 0 <= K < N", optarg);
                return EXIT_USAGE;
            }
            a->shard = optarg;
            break;
        case 'I': {
            uint64_t v;
            if (ct_parse_size(optarg, &v) != 0 || v == 0) {
                cli_error("sweep: --interval %s: expected a number of accesses", optarg);
                return EXIT_USAGE;
            }
            so->interval = v;
            break;
        }
        case 'P':
            so->sample = strtod(optarg, &end);
            if (*end || !(so->sample > 0 && so->sample < 1)) {
                cli_error("sweep: --sample %s: expected a rate between 0 and 1", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'D':
            so->sample_seed = strtoull(optarg, &end, 0);
            if (*end || !*optarg) {
                cli_error("sweep: --sample-seed %s: expected a number", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'N': so->no_onepass = 1; break;
        case 'l': a->list = 1; break;
        case 'E': a->emit = optarg; break;
        case 'M': a->use_mpi = 1; break;
        case 'q': a->quiet = 1; break;
        case 'h': help(stdout); return EXIT_OK;
        default: help(stderr); return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        cli_error("sweep: no sweep file given");
        help(stderr);
        return EXIT_USAGE;
    }
#ifndef CACHET_HAVE_MPI
    if (a->use_mpi) {
        cli_error("sweep: --mpi: this cachet was built without MPI (configure with "
                  "-DCACHET_MPI=ON)");
        return EXIT_USAGE;
    }
#endif
    if (a->resume && strcmp(a->out_path, "-") == 0) {
        cli_error("sweep: --resume needs -o FILE");
        return EXIT_USAGE;
    }
    if (a->use_mpi && (a->resume || a->shard)) {
        cli_error("sweep: --mpi shares the points itself: no --resume or --shard with it");
        return EXIT_USAGE;
    }
    return -1;
}

/* --list: the points and the skipped combinations. */
static void list_points(const ct_sweep *sw)
{
    printf("point");
    for (size_t j = 0; j < ct_sweep_nparams(sw); j++)
        printf("  %s", ct_sweep_param(sw, j));
    printf("\n");
    for (size_t i = 0; i < ct_sweep_npoints(sw); i++) {
        printf("%zu", i);
        for (size_t j = 0; j < ct_sweep_nparams(sw); j++)
            printf("  %s", ct_sweep_point_value(sw, i, j));
        printf("\n");
    }
    for (size_t k = 0; k < ct_sweep_nskipped(sw); k++)
        printf("skipped  %s\n", ct_sweep_skipped(sw, k));
}

/* Start the journal OUT.csv.partial (journal_path) for a sweep to a file:
 * its signature, the points a --resume finds done in it, then the file
 * rewritten with what it keeps. EXIT_OK, or the exit status after an error
 * was reported. */
static int open_journal(sweep_cli *sc, const sweep_args *a, const char *sweep_path,
                        char *journal_path, size_t n, char **sig)
{
    const ct_sweep_opts *so = &a->so;
    const ct_window *win = &a->win;
    ct_error err = {0};
    cli_out jout;
    int loaded = 0;

    *sig = journal_signature(sc, sweep_path, so->interval ? so->interval : 1000000,
                             so->sample,
                             so->sample_seed ^
                                 (so->window ? (win->skip * 0x9e3779b97f4a7c15ull) ^
                                                   (win->warmup * 0xc2b2ae3d27d4eb4full) ^
                                                   (win->sim * 0x165667b19e3779f9ull)
                                             : 0),
                             a->shard);
    if (!*sig) {
        cli_error("out of memory");
        return EXIT_INPUT;
    }
    snprintf(journal_path, n, "%s.partial", a->out_path);
    if (a->resume) {
        loaded = journal_load(sc, journal_path, *sig, &err);
        if (loaded < 0)
            return cli_fail(&err);
        if (!sc->quiet)
            cli_error("sweep: resuming: %d finished (trace, point) pair%s in %s", loaded,
                      loaded == 1 ? "" : "s", journal_path);
    }
    /* the journal with what it keeps: written beside it and renamed over
     * it as every output is (cli_out.c), then appended to in place */
    if (cli_out_open(&jout, journal_path, &err) != CT_OK)
        return cli_fail(&err);
    sc->journal = jout.f;
    fputs(*sig, sc->journal);
    {
        ct_writer jw = cli_file_writer(sc->journal);
        ct_sweep_csv_header(&jw, sc->sw);
    }
    for (size_t i = 0; i < sc->done.n; i++)
        fprintf(sc->journal, "%s#done,%zu,%zu\n", sc->done.v[i].text, sc->done.v[i].trace,
                sc->done.v[i].point);
    if (cli_out_publish(&jout, &err) != CT_OK) {
        cli_out_abort(&jout);
        sc->journal = NULL;
        return cli_fail(&err);
    }
    return EXIT_OK;
}

/* After ct_sweep_run returned rc: an interrupted sweep keeps its journal, a
 * failed one reports why, a finished one writes OUT.csv (and its fits) and
 * drops the journal. The exit status. */
static int finish(sweep_cli *sc, int rc, ct_error *err, const char *out_path,
                  const char *journal_path)
{
    if (rc == CT_E_INTERRUPTED) { /* OUT.csv is not written: the journal keeps the points */
        if (sc->journal) {
            fclose(sc->journal);
            sc->journal = NULL;
            cli_error("interrupted: %zu finished (trace, point) pair%s kept in %s; run again "
                      "with --resume to finish (%s is written only when complete)", sc->done.n,
                      sc->done.n == 1 ? "" : "s", journal_path, out_path);
        } else {
            cli_error("interrupted: nothing written (%zu finished (trace, point) pair%s "
                      "dropped: with -o FILE a journal keeps them for --resume)", sc->done.n,
                      sc->done.n == 1 ? "" : "s");
        }
        return 130;
    }
    if (rc != CT_OK) {
        int status;
        if (sc->journal_errno) /* the journal's write failed, not the sweep */
            ct_error_set(err, CT_E_IO, "%s: write error: %s", journal_path,
                         strerror(sc->journal_errno));
        status = cli_fail(err);
        if (sc->journal) {
            fclose(sc->journal);
            sc->journal = NULL;
            if (sc->done.n == 0)
                unlink(journal_path);
        }
        return status;
    }
    if (sc->journal) {
        fclose(sc->journal);
        sc->journal = NULL;
    }
    if (write_outputs(sc, out_path, 1, err) != CT_OK)
        return cli_fail(err);
    if (journal_path[0])
        unlink(journal_path);
    return EXIT_OK;
}

int cmd_sweep(int argc, char **argv)
{
    sweep_args a;
    ct_sweep_opts *so = &a.so;
    int rc, status = EXIT_OK;
    ct_error err = {0};
    sweep_cli sc;
    char journal_path[4200] = "", *sig = NULL;
    int rank = 0, nranks = 1;

    memset(&sc, 0, sizeof sc);
    if ((status = parse_args(argc, argv, &a)) >= 0)
        return status;
    status = EXIT_OK;
    sc.quiet = a.quiet;
    if ((rc = ct_sweep_load(&sc.sw, argv[optind], &err)) != CT_OK)
        return cli_fail(&err);
    if (a.list) {
        list_points(sc.sw);
        ct_sweep_free(sc.sw);
        return EXIT_OK;
    }
    if (a.emit) {
        status = emit_configs(sc.sw, a.emit);
        ct_sweep_free(sc.sw);
        return status;
    }
    if (optind + 1 >= argc) {
        cli_error("sweep: no trace given");
        ct_sweep_free(sc.sw);
        return EXIT_USAGE;
    }
    if (cli_out_distinct((const char *[]){a.out_path}, 1, argv + optind, argc - optind) != 0) {
        ct_sweep_free(sc.sw);
        return EXIT_USAGE;
    }
#ifdef CACHET_HAVE_MPI
    if (a.use_mpi) {
        MPI_Init(NULL, NULL);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &nranks);
        so->shard_k = (uint32_t)rank;
        so->shard_n = (uint32_t)nranks;
        if (rank != 0)
            sc.quiet = 1;
    }
#endif
    if (a.shard) {
        sc.shard_k = so->shard_k;
        sc.shard_n = so->shard_n;
    }
    sc.traces = (const char *const *)argv + optind + 1;
    sc.ntraces = (size_t)(argc - optind - 1);
    sc.sizes = calloc(sc.ntraces, sizeof *sc.sizes);
    if (!sc.sizes) {
        cli_error("out of memory");
        ct_sweep_free(sc.sw);
        return EXIT_INPUT;
    }
    for (size_t t = 0; t < sc.ntraces; t++)
        sc.sizes[t] = cli_file_size(sc.traces[t]);
    sc.tty = isatty(2);
    if (!sc.quiet && ct_sweep_nskipped(sc.sw)) {
        cli_error("sweep: %zu impossible combination%s skipped:", ct_sweep_nskipped(sc.sw),
                  ct_sweep_nskipped(sc.sw) == 1 ? "" : "s");
        for (size_t k = 0; k < ct_sweep_nskipped(sc.sw); k++)
            fprintf(stderr, "  %s\n", ct_sweep_skipped(sc.sw, k));
    }
    if (strcmp(a.out_path, "-") != 0 && !a.use_mpi &&
        (status = open_journal(&sc, &a, argv[optind], journal_path, sizeof journal_path,
                               &sig)) != EXIT_OK)
        goto out;
    so->done = is_done;
    so->done_ctx = &sc;
    so->stop = cli_stop_requested;
    so->result = on_result;
    so->result_ctx = &sc;
    so->progress = on_progress;
    so->progress_ctx = &sc;
    so->plan = on_plan;
    so->plan_ctx = &sc;
    cli_catch_signals();
    rc = ct_sweep_run(sc.sw, sc.traces, sc.ntraces, so, &err);
    if (sc.progress_shown)
        fputc('\n', stderr);
#ifdef CACHET_HAVE_MPI
    if (a.use_mpi) {
        int bad = rc != CT_OK, anybad = 0;
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (rc != CT_OK)
            status = cli_fail(&err);
        else if (anybad)
            status = EXIT_INPUT;
        if (!anybad) {
            mpi_gather(&sc, rank, nranks);
            if (rank == 0 && write_outputs(&sc, a.out_path, 1, &err) != CT_OK)
                status = cli_fail(&err);
        }
        MPI_Finalize();
        goto out;
    }
#endif
    status = finish(&sc, rc, &err, a.out_path, journal_path);
out:
    (void)rank;
    (void)nranks;
    if (sc.journal)
        fclose(sc.journal);
    free(sig);
    blocks_free(&sc.done);
    free(sc.sizes);
    ct_sweep_free(sc.sw);
    return status;
}
