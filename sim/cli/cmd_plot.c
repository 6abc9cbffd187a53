/*
 * cmd_plot.c - cachet plot: miss-rate curves of a sweep CSV through gnuplot.
 *
 * x is a swept size key (the first one ending in ".size", else the first
 * swept key), y the miss rate of the level that key belongs to (or --level);
 * one line per series: every other swept value, and the trace when there
 * are several. The output format follows the file name (.svg or .png).
 * Without gnuplot the command says so and fails; --script writes the
 * gnuplot script instead of running it. The picture (and the script) are
 * written to a temporary name and renamed once complete.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_csv.h"

static void help(FILE *f)
{
    fprintf(f,
            "usage: cachet plot OUT.csv [-o FILE.svg|FILE.png] [--x KEY] [--level NAME]\n"
            "                   [--script FILE]\n\n"
            "Draws miss rate against a swept key, one line per series, with gnuplot\n"
            "(Debian package gnuplot-nox). Default output: OUT.svg.\n");
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

typedef struct pseries {
    char name[512];
    double *x, *y;
    size_t n;
} pseries;

int cmd_plot(int argc, char **argv)
{
    int opt_status;
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"x", required_argument, NULL, 'x'},
        {"level", required_argument, NULL, 'L'},  {"script", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *xkey = NULL, *level = NULL, *script = NULL;
    char outbuf[4200], lvbuf[64], hb[16384], *hf[512];
    char *text, *p, *nl;
    const char *body;
    size_t len;
    int c, nh, cx = -1, c_level, c_rate, c_trace, c_first, multi_trace = 0, status = EXIT_OK;
    pseries *sv = NULL;
    size_t ns = 0;
    char first_trace[1024] = "";
    cli_out so, po;
    FILE *g;

    optind = 1;
    while ((c = cli_option(argc, argv, "o:h", opts, NULL, help, &opt_status)) !=
           CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_STOP: return opt_status;
        case 'o': out = optarg; break;
        case 'x': xkey = optarg; break;
        case 'L': level = optarg; break;
        case 'S': script = optarg; break;
        }
    }
    if (optind != argc - 1) {
        cli_error("plot: expected one sweep CSV");
        help(stderr);
        return EXIT_USAGE;
    }
    if (!out) {
        const char *in = argv[optind];
        size_t n = strlen(in);
        snprintf(outbuf, sizeof outbuf, "%.*s.svg",
                 (int)(n > 4 && strcmp(in + n - 4, ".csv") == 0 ? n - 4 : n), in);
        out = outbuf;
    }
    if (strlen(out) < 5 || (strcmp(out + strlen(out) - 4, ".svg") != 0 &&
                            strcmp(out + strlen(out) - 4, ".png") != 0)) {
        cli_error("plot: -o %s: the name must end in .svg or .png", out);
        return EXIT_USAGE;
    }
    if (!script && !have_gnuplot()) {
        cli_error("plot: gnuplot is not installed (Debian package gnuplot-nox); --script FILE "
                  "writes the gnuplot script instead");
        return EXIT_INPUT;
    }
    text = read_text_file(argv[optind], &len);
    if (!text) {
        cli_error("%s: cannot read", argv[optind]);
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
        if (xkey ? strcmp(hf[i], xkey) == 0 : (cx < 0 && strstr(hf[i], ".size") != NULL))
            cx = i;
    }
    if (cx < 0 && !xkey)
        cx = 1;
    if (cx < 0) {
        cli_error("plot: --x %s: not a swept key of %s", xkey, argv[optind]);
        free(text);
        return EXIT_USAGE;
    }
    if (!level) {
        snprintf(lvbuf, sizeof lvbuf, "%.*s", (int)strcspn(hf[cx], "."), hf[cx]);
        level = lvbuf;
    }
    for (p = strchr(body, '\n'); p && p[1]; p = nl) {
        char buf[16384], *f[512], name[512];
        size_t used = 0, i;
        int n;
        p++;
        nl = strchr(p, '\n');
        if (!nl)
            break;
        n = csv_split(p, buf, sizeof buf, f, 512);
        if (n != nh || strcmp(f[c_level], level) != 0)
            continue;
        if (!first_trace[0])
            snprintf(first_trace, sizeof first_trace, "%s", f[c_trace]);
        else if (strcmp(first_trace, f[c_trace]) != 0)
            multi_trace = 1;
        name[0] = '\0';
        used += (size_t)snprintf(name, sizeof name, "%s", f[c_trace]);
        for (int k = 1; k < c_first; k++)
            if (k != cx)
                used += (size_t)snprintf(name + used, used < sizeof name ? sizeof name - used : 0,
                                         " %s=%s", hf[k], f[k]);
        for (i = 0; i < ns && strcmp(sv[i].name, name) != 0; i++)
            ;
        if (i == ns) {
            pseries *nv = realloc(sv, (ns + 1) * sizeof *nv);
            if (!nv)
                break;
            sv = nv;
            memset(&sv[ns], 0, sizeof sv[ns]);
            snprintf(sv[ns].name, sizeof sv[ns].name, "%s", name);
            ns++;
        }
        {
            double *nx = realloc(sv[i].x, (sv[i].n + 1) * sizeof *nx);
            double *ny = nx ? realloc(sv[i].y, (sv[i].n + 1) * sizeof *ny) : NULL;
            if (nx)
                sv[i].x = nx;
            if (!nx || !ny)
                break;
            sv[i].y = ny;
            sv[i].x[sv[i].n] = strtod(f[cx], NULL);
            sv[i].y[sv[i].n] = strtod(f[c_rate], NULL);
            sv[i].n++;
        }
    }
    if (ns == 0) {
        cli_error("plot: %s has no rows for level %s", argv[optind], level);
        free(text);
        return EXIT_INPUT;
    }
    /* The script, and gnuplot's picture, follow the rules of every output of
     * cachet (cli_out.c): gnuplot writes the picture to the temporary file
     * made for it, renamed when gnuplot succeeds. */
    if (script) {
        ct_error err = {0};
        if (cli_out_open(&so, script, &err) != CT_OK) {
            status = cli_fail(&err);
            goto out;
        }
        g = so.f;
    } else {
        ct_error err = {0};
        if (cli_out_open(&po, out, &err) != CT_OK) {
            status = cli_fail(&err);
            goto out;
        }
        g = popen("gnuplot", "w");
        if (!g) {
            cli_error("plot: cannot start gnuplot");
            cli_out_abort(&po);
            status = EXIT_INPUT;
            goto out;
        }
    }
    fprintf(g, "set terminal %s size 900,600\nset output '",
            strcmp(out + strlen(out) - 4, ".svg") == 0 ? "svg" : "png");
    put_quoted(g, script || po.direct ? out : po.tmp);
    fprintf(g, "'\n");
    fprintf(g, "set title 'miss rate of %s'\nset xlabel '%s'\nset ylabel 'miss rate'\n"
               "set key outside right\nset grid\n", level, hf[cx]);
    if (strstr(hf[cx], "size"))
        fprintf(g, "set logscale x 2\n");
    fprintf(g, "plot ");
    for (size_t i = 0; i < ns; i++) {
        const char *label = sv[i].name;
        if (!multi_trace && strchr(label, ' '))
            label = strchr(label, ' ') + 1;
        fprintf(g, "%s'-' using 1:2 with linespoints title '", i ? ", " : "");
        put_quoted(g, label);
        fprintf(g, "'");
    }
    fprintf(g, "\n");
    for (size_t i = 0; i < ns; i++) {
        for (size_t k = 0; k < sv[i].n; k++)
            fprintf(g, "%.17g %.9g\n", sv[i].x[k], sv[i].y[k]);
        fprintf(g, "e\n");
    }
    if (script) {
        ct_error err = {0};
        if (cli_out_commit(&so, &err) != CT_OK)
            status = cli_fail(&err);
    } else if (pclose(g) != 0) {
        cli_error("plot: gnuplot failed");
        cli_out_abort(&po);
        status = EXIT_INPUT;
    } else {
        ct_error err = {0};
        if (cli_out_commit(&po, &err) != CT_OK)
            status = cli_fail(&err);
        else
            printf("%s\n", out);
    }
out:
    for (size_t i = 0; i < ns; i++) {
        free(sv[i].x);
        free(sv[i].y);
    }
    free(sv);
    free(text);
    return status;
}
