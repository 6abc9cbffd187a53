/*
 * cmd_plot.c - cachet plot: miss-rate curves of a sweep CSV through gnuplot.
 *
 * x is a swept key (the first one with "size" in its name, else the first
 * swept key, or --x), y the miss rate of the level that key belongs to (or
 * --level); one line per series: every other swept value, and the trace
 * when there are several. The output format follows the file name (.svg or
 * .png). Without gnuplot the command says so and fails; --script writes the
 * gnuplot script instead of running it. The picture (and the script) are
 * written to a temporary name and renamed once complete.
 *
 * The picture's rules:
 * - x axis: log2 when every numeric x is positive and the key is a size or
 *   every x is a power of two, else linear. A tic at every x value (every
 *   k-th when there are more than 16), labelled as a size ("4K", "1M") for
 *   a size key, else as the number. A word among the values ("full") is
 *   placed after the largest number (the next power of two on a log2 axis,
 *   one smallest step further on a linear one), in order of first
 *   appearance, and labelled with the word; every line is drawn in x order,
 *   so no curve loops back.
 * - y axis: log10 when the largest miss rate exceeds 20 times the smallest
 *   non-zero one (--log-y and --linear-y force either); a zero miss rate is
 *   left out of a log axis. Both ranges are set from the data (a linear y
 *   from 0), so gnuplot never has an empty range to widen and warn about.
 * - series: colours of the Okabe-Ito palette (distinguishable with the
 *   common colour-vision deficiencies) and a point type each, cycling with
 *   periods 8 and 7, so no two of the first 56 series look alike; with
 *   several traces, a dash pattern per trace.
 * - title: the level, then the traces (base names of at most 40 characters;
 *   after 3, "and N more"). The key is above the plot, or right of it when
 *   there are more than 8 series; a key names the trace (base name of at
 *   most 24 characters) when there are several.
 * - text is printed as is (gnuplot's enhanced text would read "_" in a
 *   trace name as a subscript).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_csv.h"

static void help(FILE *f)
{
    fprintf(f,
            "usage: cachet plot SWEEP.csv [-o FILE.svg|FILE.png] [--x KEY] [--level NAME]\n"
            "                   [--log-y|--linear-y] [--script FILE]\n\n"
            "Draws the miss rate of one level against a swept key, one line per\n"
            "series (the other swept values, and the trace when there are several),\n"
            "with gnuplot (Debian package gnuplot-nox).\n\n"
            "  -o FILE       the picture, .svg or .png (default: SWEEP.svg)\n"
            "  --x KEY       the swept key on the x axis (default: the first size)\n"
            "  --level NAME  the level whose miss rate is drawn (default: KEY's)\n"
            "  --log-y       a logarithmic miss-rate axis (default: when the rates\n"
            "                span more than a factor of 20)\n"
            "  --linear-y    a linear miss-rate axis\n"
            "  --script FILE write the gnuplot script to FILE instead of running it\n");
}

static int have_gnuplot(void)
{
    const char *path = getenv("PATH");
    char buf[4096], *dir, *save = NULL;
    if (!path)
        return 0;
    snprintf(buf, sizeof buf, "%s", path);
    for (dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        char exe[4200];
        snprintf(exe, sizeof exe, "%s/gnuplot", dir);
        if (access(exe, X_OK) == 0)
            return 1;
    }
    return 0;
}

/* s inside a gnuplot single-quoted string (a quote is doubled). */
static void put_quoted(FILE *g, const char *s)
{
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', g);
        fputc(*s, g);
    }
}

enum { MAX_WORDS = 64, TIC_LABELS = 16 };

/* One point: a numeric x (word < 0) or the word-th word among the x values. */
typedef struct ppoint {
    double x, y;
    int word;
} ppoint;

typedef struct pseries {
    char name[512];   /* the trace, then " key=value" for every other swept key */
    char label[512];  /* as the key shows it */
    int trace;        /* index into the traces */
    ppoint *pt;
    size_t n;
} pseries;

typedef struct pstate {
    pseries *sv;
    size_t ns;
    char words[MAX_WORDS][64];
    int nwords;
    char **traces;
    size_t ntraces;
} pstate;

static const char *const palette[8] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                       "#CC79A7", "#56B4E9", "#000000", "#F0E442"};
static const int point_types[7] = {7, 5, 9, 11, 13, 2, 1};

/* s is a whole number as strtod reads it. */
static int numeric(const char *s, double *v)
{
    char *end;
    if (!*s)
        return 0;
    *v = strtod(s, &end);
    return *end == '\0' && isfinite(*v);
}

static int is_pow2(double v)
{
    return v >= 1 && v <= 9007199254740992.0 && v == floor(v) &&
           (((uint64_t)v) & ((uint64_t)v - 1)) == 0;
}

/* The text of x value v of key (a size for a size key). */
static void x_text(const char *key, double v, char *buf, size_t n)
{
    if (strstr(key, "size") && v >= 0 && v == floor(v) && v < 1.8e19)
        ct_format_size((uint64_t)v, buf, n);
    else
        snprintf(buf, n, "%g", v);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return strncmp(path, "gen:", 4) != 0 && s && s[1] ? s + 1 : path;
}

/* The base name of a trace cut to n - 1 characters, ending in "..." when cut. */
static const char *short_name(const char *path, char *buf, size_t n)
{
    const char *b = base_name(path);
    if (strlen(b) < n)
        return b;
    snprintf(buf, n, "%.*s...", (int)n - 4, b);
    return buf;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_point(const void *a, const void *b)
{
    return cmp_double(&((const ppoint *)a)->x, &((const ppoint *)b)->x);
}

/* Add row f (n fields) to its series; 0, or -1 out of memory or words. */
static int add_row(pstate *ps, char **hf, char **f, int cx, int c_first, int c_trace, int c_rate)
{
    char name[512], label[512];
    size_t used, lused = 0, i, t;
    ppoint p;

    for (t = 0; t < ps->ntraces && strcmp(ps->traces[t], f[c_trace]) != 0; t++)
        ;
    if (t == ps->ntraces) {
        char **nt = realloc(ps->traces, (t + 1) * sizeof *nt);
        if (!nt)
            return -1;
        ps->traces = nt;
        if (!(nt[t] = strdup(f[c_trace])))
            return -1;
        ps->ntraces++;
    }
    used = (size_t)snprintf(name, sizeof name, "%s", f[c_trace]);
    label[0] = '\0';
    for (int k = 1; k < c_first; k++) {
        char v[64];
        double d;
        if (k == cx)
            continue;
        used += (size_t)snprintf(name + used, used < sizeof name ? sizeof name - used : 0,
                                 " %s=%s", hf[k], f[k]);
        if (numeric(f[k], &d))
            x_text(hf[k], d, v, sizeof v);
        else
            snprintf(v, sizeof v, "%s", f[k]);
        lused += (size_t)snprintf(label + lused, lused < sizeof label ? sizeof label - lused : 0,
                                  "%s%s=%s", lused ? " " : "", hf[k], v);
    }
    for (i = 0; i < ps->ns && strcmp(ps->sv[i].name, name) != 0; i++)
        ;
    if (i == ps->ns) {
        pseries *nv = realloc(ps->sv, (ps->ns + 1) * sizeof *nv);
        if (!nv)
            return -1;
        ps->sv = nv;
        memset(&nv[i], 0, sizeof nv[i]);
        snprintf(nv[i].name, sizeof nv[i].name, "%s", name);
        snprintf(nv[i].label, sizeof nv[i].label, "%s", label);
        nv[i].trace = (int)t;
        ps->ns++;
    }
    p.word = -1;
    if (!numeric(f[cx], &p.x)) {
        int w;
        for (w = 0; w < ps->nwords && strcmp(ps->words[w], f[cx]) != 0; w++)
            ;
        if (w == ps->nwords) {
            if (w == MAX_WORDS)
                return -1;
            snprintf(ps->words[w], sizeof ps->words[w], "%s", f[cx]);
            ps->nwords++;
        }
        p.word = w;
        p.x = 0;
    }
    p.y = strtod(f[c_rate], NULL);
    {
        pseries *s = &ps->sv[i];
        ppoint *np = realloc(s->pt, (s->n + 1) * sizeof *np);
        if (!np)
            return -1;
        s->pt = np;
        s->pt[s->n++] = p;
    }
    return 0;
}

/* The axes of a plot: the distinct numeric x values (sorted, then the
 * words placed after them), their scale and the range of the rates. */
typedef struct axes {
    double *xs;          /* nnum numbers, then the nwords words' places */
    size_t nnum, npos;   /* numbers; numbers and words */
    double step;         /* the smallest gap between numbers */
    double ymin, ymax;   /* the smallest rate above zero, the largest */
    int logx, logy;
} axes;

/* Lay out the axes for the series of ps and give each word point its x
 * (the series are sorted by x). 0, or -1 out of memory. */
static int lay_out_axes(pstate *ps, const char *xkey, int logy_opt, axes *ax)
{
    const int size_key = strstr(xkey, "size") != NULL;
    size_t nnum = 0, npos;
    double xmax, *xs;

    memset(ax, 0, sizeof *ax);
    ax->step = 1;
    ax->ymin = INFINITY;
    ax->logx = 1;
    for (size_t i = 0; i < ps->ns; i++)
        nnum += ps->sv[i].n;
    xs = ax->xs = malloc((nnum + (size_t)ps->nwords + 1) * sizeof *xs);
    if (!xs)
        return -1;
    nnum = 0;
    for (size_t i = 0; i < ps->ns; i++)
        for (size_t k = 0; k < ps->sv[i].n; k++) {
            const ppoint *p = &ps->sv[i].pt[k];
            if (p->word < 0)
                xs[nnum++] = p->x;
            if (p->y > 0 && p->y < ax->ymin)
                ax->ymin = p->y;
            if (p->y > ax->ymax)
                ax->ymax = p->y;
        }
    qsort(xs, nnum, sizeof *xs, cmp_double);
    npos = 0;
    for (size_t k = 0; k < nnum; k++)
        if (npos == 0 || xs[k] != xs[npos - 1])
            xs[npos++] = xs[k];
    nnum = npos;
    for (size_t k = 0; k < nnum; k++)
        if (xs[k] <= 0 || (!size_key && !is_pow2(xs[k])))
            ax->logx = 0;
    if (nnum < 2)
        ax->logx = 0;
    xmax = nnum ? xs[nnum - 1] : 0;
    for (size_t k = 1; k < nnum; k++)
        if (k == 1 || xs[k] - xs[k - 1] < ax->step)
            ax->step = xs[k] - xs[k - 1];
    /* the words, after the largest number */
    for (int w = 0; w < ps->nwords; w++)
        xs[npos++] = ax->logx ? xmax * pow(2, w + 1) : nnum ? xmax + ax->step * (w + 1) : w + 1;
    for (size_t i = 0; i < ps->ns; i++) {
        for (size_t k = 0; k < ps->sv[i].n; k++) {
            ppoint *p = &ps->sv[i].pt[k];
            if (p->word >= 0)
                p->x = xs[nnum + (size_t)p->word];
        }
        qsort(ps->sv[i].pt, ps->sv[i].n, sizeof *ps->sv[i].pt, cmp_point);
    }
    ax->logy = logy_opt > 0 || (logy_opt < 0 && ax->ymax > 20 * ax->ymin);
    if (ax->ymin == INFINITY)
        ax->logy = 0; /* no rate above zero: nothing to draw on a log axis */
    ax->nnum = nnum;
    ax->npos = npos;
    return 0;
}

/* The terminal, the title, the labels and the axes' ranges and tics. */
static void write_frame(FILE *g, const pstate *ps, const char *xkey, const char *level,
                        const char *out, int svg, const axes *ax)
{
    const double *xs = ax->xs;
    const size_t nnum = ax->nnum, npos = ax->npos;
    double lo, hi;
    char tb[41];

    if (svg)
        fprintf(g, "set terminal svg size 1000,700\n");
    else /* cairo draws dash patterns and smooth lines; libgd's png does neither */
        fprintf(g, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                   "    set terminal pngcairo size 1000,700\n"
                   "} else {\n"
                   "    set terminal png size 1000,700\n"
                   "}\n");
    fprintf(g, "set termoption noenhanced\nset output '");
    put_quoted(g, out);
    fprintf(g, "'\nset title 'miss rate of ");
    put_quoted(g, level);
    fprintf(g, ": ");
    for (size_t t = 0; t < ps->ntraces && t < 3; t++) {
        fprintf(g, "%s", t ? ", " : "");
        put_quoted(g, short_name(ps->traces[t], tb, sizeof tb));
    }
    if (ps->ntraces > 3)
        fprintf(g, " and %zu more", ps->ntraces - 3);
    fprintf(g, "'\nset xlabel '");
    put_quoted(g, xkey);
    fprintf(g, "'\nset ylabel 'miss rate%s'\nset key outside %s\nset grid\n",
            ax->logy ? " (log scale)" : "",
            ps->ns > 8 ? "right top vertical" : "top center horizontal");
    lo = npos ? xs[0] : 0;
    hi = npos ? xs[npos - 1] : 1;
    if (ax->logx)
        fprintf(g, "set logscale x 2\nset xrange [%.17g:%.17g]\n", lo / 1.25, hi * 1.25);
    else
        fprintf(g, "set xrange [%.17g:%.17g]\n", lo - ax->step / 2, hi + ax->step / 2);
    fprintf(g, "set xtics (");
    for (size_t k = 0; k < npos; k++) {
        char t[64];
        const size_t every = (npos + TIC_LABELS - 1) / TIC_LABELS;
        if (k >= nnum)
            snprintf(t, sizeof t, "%s", ps->words[k - nnum]);
        else if (k % every == 0)
            x_text(xkey, xs[k], t, sizeof t);
        else
            t[0] = '\0';
        fprintf(g, "%s'", k ? ", " : "");
        put_quoted(g, t);
        fprintf(g, "' %.17g", xs[k]);
    }
    fprintf(g, ")\n");
    if (ax->logy)
        fprintf(g, "set logscale y 10\nset format y '%%g'\nset yrange [%.9g:%.9g]\n",
                ax->ymin / 1.5, ax->ymax * 1.5);
    else
        fprintf(g, "set yrange [0:%.9g]\n", ax->ymax > 0 ? ax->ymax * 1.05 : 1);
}

/* The plot command, one line style per series, then each series' points
 * (rates of 0 left out on a log axis). */
static void write_series(FILE *g, const pstate *ps, int logy)
{
    const int multi = ps->ntraces > 1;

    fprintf(g, "plot ");
    for (size_t i = 0; i < ps->ns; i++) {
        const pseries *s = &ps->sv[i];
        char label[1100], lb[25];
        if (!s->label[0] || multi)
            snprintf(label, sizeof label, "%s%s%s",
                     short_name(ps->traces[s->trace], lb, sizeof lb),
                     s->label[0] ? " " : "", s->label);
        else
            snprintf(label, sizeof label, "%s", s->label);
        fprintf(g, "%s'-' using 1:2 with linespoints lw 2 lc rgb '%s' pt %d ps 1.3 dt %d title '",
                i ? ", \\\n     " : "", palette[i % 8], point_types[i % 7],
                multi ? s->trace % 5 + 1 : 1);
        put_quoted(g, label);
        fprintf(g, "'");
    }
    fprintf(g, "\n");
    for (size_t i = 0; i < ps->ns; i++) {
        for (size_t k = 0; k < ps->sv[i].n; k++) {
            const ppoint *p = &ps->sv[i].pt[k];
            if (logy && p->y <= 0)
                continue;
            fprintf(g, "%.17g %.9g\n", p->x, p->y);
        }
        fprintf(g, "e\n");
    }
}

/* Write the script for the series of ps to g: the picture goes to out, an
 * SVG when svg is set, else a PNG (out may be a temporary name). */
static void write_script(FILE *g, pstate *ps, const char *xkey, const char *level,
                         const char *out, int svg, int logy_opt)
{
    axes ax;

    if (lay_out_axes(ps, xkey, logy_opt, &ax) != 0)
        return;
    write_frame(g, ps, xkey, level, out, svg, &ax);
    write_series(g, ps, ax.logy);
    free(ax.xs);
}

/* What the command line asks for. */
typedef struct plot_args {
    const char *out, *xkey, *level, *script;
    int logy;              /* 1 --log-y, 0 --linear-y, -1 chosen by the rates */
    char outbuf[4200];
} plot_args;

/* Read the options into a (the picture's name made from the CSV's when
 * not given): -1 to go on, else the exit status. optind is left at the CSV. */
static int parse_args(int argc, char **argv, plot_args *a)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"x", required_argument, NULL, 'x'},
        {"level", required_argument, NULL, 'L'},  {"script", required_argument, NULL, 'S'},
        {"log-y", no_argument, NULL, 'Y'},        {"linear-y", no_argument, NULL, 'y'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    int c, opt_status;

    memset(a, 0, sizeof *a);
    a->logy = -1;
    optind = 1;
    while ((c = cli_option(argc, argv, "o:h", opts, NULL, help, &opt_status)) !=
           CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_STOP: return opt_status;
        case 'o': a->out = optarg; break;
        case 'x': a->xkey = optarg; break;
        case 'L': a->level = optarg; break;
        case 'S': a->script = optarg; break;
        case 'Y': a->logy = 1; break;
        case 'y': a->logy = 0; break;
        }
    }
    if (optind != argc - 1) {
        cli_error("plot: expected one sweep CSV");
        help(stderr);
        return EXIT_USAGE;
    }
    if (!a->out) {
        const char *in = argv[optind];
        size_t n = strlen(in);
        snprintf(a->outbuf, sizeof a->outbuf, "%.*s.svg",
                 (int)(n > 4 && strcmp(in + n - 4, ".csv") == 0 ? n - 4 : n), in);
        a->out = a->outbuf;
    }
    if (strlen(a->out) < 5 || (strcmp(a->out + strlen(a->out) - 4, ".svg") != 0 &&
                               strcmp(a->out + strlen(a->out) - 4, ".png") != 0)) {
        cli_error("plot: -o %s: the name must end in .svg or .png", a->out);
        return EXIT_USAGE;
    }
    if (!a->script && !have_gnuplot()) {
        cli_error("plot: gnuplot is not installed (Debian package gnuplot-nox); --script FILE "
                  "writes the gnuplot script instead");
        return EXIT_INPUT;
    }
    return -1;
}

/* Write the script (--script), or have gnuplot draw the picture. The script,
 * and gnuplot's picture, follow the rules of every output of cachet
 * (cli_out.c): gnuplot writes the picture to the temporary file made for
 * it, renamed when gnuplot succeeds. The exit status. */
static int draw(pstate *ps, const plot_args *a, const char *xkey, const char *level)
{
    const char *out = a->out;
    ct_error err = {0};
    cli_out so, po;
    FILE *g;

    if (a->script) {
        if (cli_out_open(&so, a->script, &err) != CT_OK)
            return cli_fail(&err);
        g = so.f;
    } else {
        if (cli_out_open(&po, out, &err) != CT_OK)
            return cli_fail(&err);
        g = popen("gnuplot", "w");
        if (!g) {
            cli_error("plot: cannot start gnuplot");
            cli_out_abort(&po);
            return EXIT_INPUT;
        }
    }
    write_script(g, ps, xkey, level, a->script || po.direct ? out : po.tmp,
                 strcmp(out + strlen(out) - 4, ".svg") == 0, a->logy);
    if (a->script)
        return cli_out_commit(&so, &err) != CT_OK ? cli_fail(&err) : EXIT_OK;
    if (pclose(g) != 0) {
        cli_error("plot: gnuplot failed");
        cli_out_abort(&po);
        return EXIT_INPUT;
    }
    if (cli_out_commit(&po, &err) != CT_OK)
        return cli_fail(&err);
    printf("%s\n", out);
    return EXIT_OK;
}

int cmd_plot(int argc, char **argv)
{
    plot_args a;
    const char *level;
    char lvbuf[64], hb[16384], *hf[512];
    char *text, *p, *nl;
    const char *body;
    size_t len;
    char why[160];
    int nh, cx = -1, c_level, c_rate, c_trace, c_first, status = EXIT_OK;
    pstate ps;

    memset(&ps, 0, sizeof ps);
    if ((status = parse_args(argc, argv, &a)) >= 0)
        return status;
    status = EXIT_OK;
    text = read_text_file(argv[optind], &len, why, sizeof why);
    if (!text) {
        cli_error("%s: cannot read: %s", argv[optind], why);
        return EXIT_INPUT;
    }
    body = csv_skip_comments(text);
    nh = csv_split(body, hb, sizeof hb, hf, 512);
    c_level = csv_column(hf, nh, "level");
    c_rate = csv_column(hf, nh, "miss_rate");
    c_trace = csv_column(hf, nh, "trace");
    c_first = csv_column(hf, nh, "cachet_version");
    if (nh < 2 || c_level < 0 || c_rate < 0 || c_trace < 0 || c_first < 2 ||
        strcmp(hf[0], "point") != 0) {
        cli_error("%s: not a sweep CSV", argv[optind]);
        free(text);
        return EXIT_INPUT;
    }
    for (int i = 1; i < c_first; i++) {
        if (a.xkey ? strcmp(hf[i], a.xkey) == 0 : (cx < 0 && strstr(hf[i], ".size") != NULL))
            cx = i;
    }
    if (cx < 0 && !a.xkey)
        cx = 1;
    if (cx < 0) {
        cli_error("plot: --x %s: not a swept key of %s", a.xkey, argv[optind]);
        free(text);
        return EXIT_USAGE;
    }
    level = a.level;
    if (!level) {
        snprintf(lvbuf, sizeof lvbuf, "%.*s", (int)strcspn(hf[cx], "."), hf[cx]);
        level = lvbuf;
    }
    for (p = strchr(body, '\n'); p && p[1]; p = nl) {
        char buf[16384], *f[512];
        int n;
        p++;
        nl = strchr(p, '\n');
        if (!nl)
            break;
        n = csv_split(p, buf, sizeof buf, f, 512);
        if (n != nh || strcmp(f[c_level], level) != 0)
            continue;
        if (add_row(&ps, hf, f, cx, c_first, c_trace, c_rate) != 0) {
            cli_error("plot: %s: %s", argv[optind],
                      ps.nwords == MAX_WORDS ? "more than 64 words among the x values"
                                             : "out of memory");
            status = EXIT_INPUT;
            goto out;
        }
    }
    if (ps.ns == 0) {
        cli_error("plot: %s has no rows for level %s", argv[optind], level);
        status = EXIT_INPUT;
        goto out;
    }
    status = draw(&ps, &a, hf[cx], level);
out:
    for (size_t i = 0; i < ps.ns; i++)
        free(ps.sv[i].pt);
    free(ps.sv);
    for (size_t t = 0; t < ps.ntraces; t++)
        free(ps.traces[t]);
    free(ps.traces);
    free(text);
    return status;
}
