/*
 * cli_csv.c - reading result CSVs back (sweep resume, merge, plot, fits):
 * splitting lines into fields, and keeping the rows of finished
 * (trace, point) pairs in the order one run writes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_csv.h"

int csv_split(const char *line, char *buf, size_t bufn, char **fields, int max)
{
    size_t o = 0;
    int n = 0;
    const char *p = line;

    if (max <= 0)
        return 0;
    fields[n++] = buf;
    while (*p && *p != '\n' && *p != '\r') {
        if (o + 2 >= bufn)
            return -1;
        if (*p == '"') {
            p++;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (o + 2 >= bufn)
                    return -1;
                if (*p == '"')
                    p++;
                buf[o++] = *p++;
            }
            if (*p == '"')
                p++;
            continue;
        }
        if (*p == ',') {
            buf[o++] = '\0';
            if (n == max)
                return -1;
            fields[n++] = buf + o;
            p++;
            continue;
        }
        buf[o++] = *p++;
    }
    buf[o] = '\0';
    return n;
}

int csv_column(char **fields, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(fields[i], name) == 0)
            return i;
    return -1;
}

int blocks_add(blocks *b, size_t trace, size_t point, const char *text, size_t len)
{
    block *nv;
    char *t;

    for (size_t i = 0; i < b->n; i++)
        if (b->v[i].trace == trace && b->v[i].point == point)
            return 1;
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        nv = realloc(b->v, cap * sizeof *nv);
        if (!nv)
            return -1;
        b->v = nv;
        b->cap = cap;
    }
    t = malloc(len + 1);
    if (!t)
        return -1;
    memcpy(t, text, len);
    t[len] = '\0';
    b->v[b->n].trace = trace;
    b->v[b->n].point = point;
    b->v[b->n].text = t;
    b->n++;
    return 0;
}

int blocks_has(const blocks *b, size_t trace, size_t point)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->v[i].trace == trace && b->v[i].point == point)
            return 1;
    return 0;
}

static int cmp_block(const void *x, const void *y)
{
    const block *a = x, *b = y;
    if (a->trace != b->trace)
        return a->trace < b->trace ? -1 : 1;
    if (a->point != b->point)
        return a->point < b->point ? -1 : 1;
    return 0;
}

void blocks_sort(blocks *b)
{
    if (b->n)
        qsort(b->v, b->n, sizeof *b->v, cmp_block);
}

int blocks_write(const blocks *b, ct_writer *w)
{
    for (size_t i = 0; i < b->n && !w->failed; i++)
        if (w->write(w->ctx, b->v[i].text, strlen(b->v[i].text)) != 0)
            w->failed = -1;
    return w->failed;
}

void blocks_free(blocks *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->v[i].text);
    free(b->v);
    memset(b, 0, sizeof *b);
}

/*
 * The text files read back here (result CSVs, journals) hold no NUL byte
 * and no line longer than TEXT_LINE_MAX: reading stops at the first of
 * either, so that a binary file or a device (/dev/zero) is refused after at
 * most a megabyte instead of filling memory.
 */
#define TEXT_LINE_MAX (1u << 20)

char *read_text_file(const char *path, size_t *len, char *why, size_t whyn)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, line = 0;
    int e;

    if (!f) {
        e = errno;
        snprintf(why, whyn, "%s", strerror(e));
        errno = e;
        return NULL;
    }
    for (;;) {
        size_t got;
        const char *nul, *nl;
        if (n + 65536 + 1 > cap) {
            size_t nc = cap ? cap * 2 : 131072;
            char *nb = realloc(buf, nc);
            if (!nb) {
                snprintf(why, whyn, "out of memory");
                goto fail;
            }
            buf = nb;
            cap = nc;
        }
        got = fread(buf + n, 1, 65536, f);
        if ((nul = memchr(buf + n, '\0', got)) != NULL) {
            snprintf(why, whyn, "a NUL byte at byte %zu: not a text file", n + (size_t)(nul - (buf + n)));
            goto fail;
        }
        nl = got ? memrchr(buf + n, '\n', got) : NULL;
        line = nl ? (size_t)(buf + n + got - nl - 1) : line + got;
        if (line > TEXT_LINE_MAX) {
            snprintf(why, whyn, "a line longer than %u bytes before byte %zu: not a text file",
                     TEXT_LINE_MAX, n + got);
            goto fail;
        }
        n += got;
        if (got < 65536)
            break;
    }
    if (ferror(f)) {
        snprintf(why, whyn, "%s", strerror(errno ? errno : EIO));
        goto fail;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
fail:
    free(buf);
    fclose(f);
    errno = EINVAL;
    return NULL;
}

const char *csv_skip_comments(const char *text)
{
    while (*text == '#') {
        const char *nl = strchr(text, '\n');
        if (!nl)
            return text + strlen(text);
        text = nl + 1;
    }
    return text;
}

void shard_line_write(ct_writer *w, const shard_info *si)
{
    ct_writef(w, "#cachet-shard,%u,%u,%zu,%016llx\n", si->k, si->n, si->points, si->hash);
}

int shard_line_parse(const char *text, shard_info *si)
{
    char end;
    if (sscanf(text, "#cachet-shard,%u,%u,%zu,%16llx%c", &si->k, &si->n, &si->points,
               &si->hash, &end) != 5 || (end != '\n' && end != '\r'))
        return 0;
    return si->n > 0 && si->k < si->n;
}

void fit_path_of(const char *out_path, char *buf, size_t n)
{
    size_t len = strlen(out_path);
    if (len > 4 && strcmp(out_path + len - 4, ".csv") == 0)
        len -= 4;
    snprintf(buf, n, "%.*s.fit.csv", (int)len, out_path);
}

int write_sweep_outputs(const char *text, size_t len, const char *out_path, int fits,
                        FILE *summary, ct_error *err)
{
    cli_out o;
    char fit_path[4200];

    if (cli_out_open(&o, out_path, err) != CT_OK)
        return err->code;
    if (o.w.write(o.w.ctx, text, len) != 0)
        o.w.failed = -1;
    if (cli_out_commit(&o, err) != CT_OK)
        return err->code;
    if (!fits || strcmp(out_path, "-") == 0)
        return CT_OK;
    fit_path_of(out_path, fit_path, sizeof fit_path);
    if (cli_out_open(&o, fit_path, err) != CT_OK)
        return err->code;
    if (write_fits(text, &o.w, summary, err) != CT_OK) {
        cli_out_abort(&o);
        return err->code ? err->code : ct_error_set(err, CT_E_IO, "%s: write error", fit_path);
    }
    return cli_out_commit(&o, err);
}

/* ---- power-law fits of miss rate against size ---- */

typedef struct series {
    char key[1024];
    char trace[512], level[16], core[16];
    double *x, *y;
    size_t n, cap;
} series;

/* One field, quoted when it holds a comma, quote or newline, then sep. */
static void csv_put(ct_writer *w, const char *s, char sep)
{
    if (strpbrk(s, ",\"\n")) {
        ct_writef(w, "\"");
        for (; *s; s++)
            ct_writef(w, *s == '"' ? "\"\"" : "%c", *s);
        ct_writef(w, "\"");
    } else {
        ct_writef(w, "%s", s);
    }
    ct_writef(w, "%c", sep);
}

int write_fits(const char *csv_text, ct_writer *out, FILE *summary, ct_error *err)
{
    char hdr_buf[16384], *hdr[512], buf[16384], *f[512];
    const char *p = csv_skip_comments(csv_text), *nl;
    int nh, c_trace, c_level, c_core, c_size, c_rate, c_first_run;
    series *sv = NULL;
    size_t ns = 0;
    int rc = CT_OK;

    nl = strchr(p, '\n');
    if (!nl)
        return CT_OK;
    nh = csv_split(p, hdr_buf, sizeof hdr_buf, hdr, 512);
    c_trace = csv_column(hdr, nh, "trace");
    c_level = csv_column(hdr, nh, "level");
    c_core = csv_column(hdr, nh, "core");
    c_size = csv_column(hdr, nh, "size");
    c_rate = csv_column(hdr, nh, "miss_rate");
    c_first_run = csv_column(hdr, nh, "cachet_version");
    if (c_trace < 0 || c_level < 0 || c_core < 0 || c_size < 0 || c_rate < 0 || c_first_run < 1)
        return ct_error_set(err, CT_E_FORMAT, "not a sweep CSV (columns missing)");
    for (p = nl + 1; *p; p = nl + 1) {
        int n;
        char key[1024], sizekey[64];
        size_t used = 0, i;
        series *s = NULL;
        nl = strchr(p, '\n');
        if (!nl)
            nl = p + strlen(p) - 1;
        if (*p == '#' || *p == '\n')
            continue;
        n = csv_split(p, buf, sizeof buf, f, 512);
        if (n != nh)
            continue;
        snprintf(sizekey, sizeof sizekey, "%s.size", f[c_level]);
        key[0] = '\0';
        for (int c = 1; c < c_first_run; c++)
            if (strcmp(hdr[c], sizekey) != 0)
                used += (size_t)snprintf(key + used, used < sizeof key ? sizeof key - used : 0,
                                         "%s%s=%s", used ? " " : "", hdr[c], f[c]);
        for (i = 0; i < ns; i++)
            if (strcmp(sv[i].key, key) == 0 && strcmp(sv[i].trace, f[c_trace]) == 0 &&
                strcmp(sv[i].level, f[c_level]) == 0 && strcmp(sv[i].core, f[c_core]) == 0)
                s = &sv[i];
        if (!s) {
            series *nv = realloc(sv, (ns + 1) * sizeof *nv);
            if (!nv) {
                rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
                goto out;
            }
            sv = nv;
            s = &sv[ns++];
            memset(s, 0, sizeof *s);
            snprintf(s->key, sizeof s->key, "%s", key);
            snprintf(s->trace, sizeof s->trace, "%s", f[c_trace]);
            snprintf(s->level, sizeof s->level, "%s", f[c_level]);
            snprintf(s->core, sizeof s->core, "%s", f[c_core]);
        }
        if (s->n == s->cap) {
            size_t cap = s->cap ? s->cap * 2 : 16;
            double *nx = realloc(s->x, cap * sizeof *nx), *ny;
            if (!nx) {
                rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
                goto out;
            }
            s->x = nx;
            ny = realloc(s->y, cap * sizeof *ny);
            if (!ny) {
                rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
                goto out;
            }
            s->y = ny;
            s->cap = cap;
        }
        s->x[s->n] = strtod(f[c_size], NULL);
        s->y[s->n] = strtod(f[c_rate], NULL);
        s->n++;
    }
    ct_writef(out, "trace,level,core,series,points,a,b,r2\n");
    for (size_t i = 0; i < ns; i++) {
        ct_powerlaw pl;
        ct_error e = {0};
        int distinct = 0;
        for (size_t k = 0; k < sv[i].n; k++) {
            size_t m;
            for (m = 0; m < k && sv[i].x[m] != sv[i].x[k]; m++)
                ;
            if (m == k)
                distinct++;
        }
        if (distinct < 3 || ct_powerlaw_fit(sv[i].x, sv[i].y, sv[i].n, &pl, &e) != CT_OK)
            continue;
        csv_put(out, sv[i].trace, ',');
        csv_put(out, sv[i].level, ',');
        csv_put(out, sv[i].core, ',');
        csv_put(out, sv[i].key, ',');
        ct_writef(out, "%zu,%.6g,%.6f,%.6f\n", pl.n, pl.a, pl.b, pl.r2);
        if (summary)
            fprintf(summary, "fit  %s [%s] %s: miss_rate = %.4g * size^%.4f  (R^2 %.4f, %zu "
                             "points)\n", sv[i].trace, sv[i].level,
                    sv[i].key[0] ? sv[i].key : "-", pl.a, pl.b, pl.r2, pl.n);
    }
out:
    for (size_t i = 0; i < ns; i++) {
        free(sv[i].x);
        free(sv[i].y);
    }
    free(sv);
    return rc ? rc : out->failed;
}
