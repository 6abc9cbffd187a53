/*
 * test_tarmac_oracle.c - the Tarmac decoder against the reference parser's
 * expected output for its catalogue of dialect lines (ARM-software
 * tarmac-trace-utilities tests/parsertest.ref and parsertest-implicit-thumb
 * .ref, read from $CACHET_CORPUS/tarmac/...; skipped, exit status 77, when it
 * is unset).
 *
 * Each catalogue line (with the continuation lines that follow it) is
 * decoded on its own, and compared with the events the reference parser
 * printed for it:
 *   - the instruction fetches: one per InstructionEvent that was not a
 *     failed fetch, at its pc, of width / 8 bytes;
 *   - the bytes read and the bytes written: the union over the
 *     MemoryEvents (the reference splits runs into pieces of at most 8
 *     bytes, cachet keeps one access per run, so bytes are compared);
 *   - the timestamp, for lines that carry one.
 * One deliberate difference: M<rw><size>_I lines (instruction-side bus
 * reads of a Cortex-M0+ trace) are memory events to the reference parser
 * and no access to cachet, whose instruction line gives the fetch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachet/cachet.h"
#include "harness.h"

#define MAXL 16
#define MAXB 512

typedef struct entry {
    char text[1024];
    uint64_t pcs[4], widths[4];
    size_t ninstr;
    uint64_t rbytes[MAXB], wbytes[MAXB];
    size_t nr, nw;
    uint64_t time;
    int has_time;
} entry;

typedef struct group {
    char lines[MAXL][1024];
    size_t nlines;
    entry want;        /* expectations merged over the lines */
} group;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t uniq(uint64_t *v, size_t n)
{
    size_t o = 0;
    qsort(v, n, sizeof *v, cmp_u64);
    for (size_t i = 0; i < n; i++)
        if (o == 0 || v[o - 1] != v[i])
            v[o++] = v[i];
    return o;
}

static uint64_t field(const char *line, const char *key, int base)
{
    const char *p = strstr(line, key);
    return p ? strtoull(p + strlen(key), NULL, base) : 0;
}

static int first_word(const char *s, char *w, size_t n)
{
    size_t k = 0;
    while (*s == ' ' || *s == '\t')
        s++;
    while (*s && *s != ' ' && *s != '\t' && k + 1 < n)
        w[k++] = *s++;
    w[k] = '\0';
    return (int)k;
}

static int all_hex(const char *w)
{
    if (!*w)
        return 0;
    for (; *w; w++)
        if (!strchr("0123456789abcdefABCDEF", *w))
            return 0;
    return 1;
}

/* Decode one group on its own and compare. */
static void check_group(const group *g, const char *label)
{
    char path[] = "/tmp/cachet-test-oracle-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    ct_trace *t = NULL;
    ct_trace_opts o = {0};
    ct_batch b = {0};
    ct_error err = {0};
    const char *paths[1] = {path};
    uint64_t pcs[64], widths[64], rb[MAXB], wb[MAXB], times[64];
    size_t ni = 0, nr = 0, nw = 0, nt = 0;
    entry want = g->want;
    int rc, ok = 1;

    if (!f) {
        CHECK(f != NULL);
        return;
    }
    for (size_t i = 0; i < g->nlines; i++)
        fprintf(f, "%s\n", g->lines[i]);
    fclose(f);
    o.format = "tarmac";
    rc = ct_trace_open(&t, paths, 1, &o, &err);
    ct_batch_init(&b, 256);
    while (rc == CT_OK && (rc = ct_trace_next(t, &b, &err)) > 0) {
        for (uint32_t i = 0; i < b.n; i++) {
            const ct_access *a = &b.acc[i];
            if (nt < 64)
                times[nt++] = a->time;
            if (a->kind == CT_IFETCH && ni < 64) {
                pcs[ni] = a->vaddr;
                widths[ni++] = a->size;
            }
            for (uint32_t k = 0; k < a->size; k++) {
                if ((a->kind == CT_LOAD || a->kind == CT_ATOMIC) && nr < MAXB)
                    rb[nr++] = a->vaddr + k;
                if ((a->kind == CT_STORE || a->kind == CT_ATOMIC) && nw < MAXB)
                    wb[nw++] = a->vaddr + k;
            }
        }
    }
    if (rc < 0) {
        fprintf(stderr, "FAIL %s: %s: %s\n", label, g->lines[0], err.msg);
        ok = 0;
    } else if (ct_trace_get_info(t)->malformed) {
        ok = 0;
    }
    ct_batch_free(&b);
    ct_trace_close(t);
    unlink(path);
    nr = uniq(rb, nr);
    nw = uniq(wb, nw);
    want.nr = uniq(want.rbytes, want.nr);
    want.nw = uniq(want.wbytes, want.nw);
    if (ni != want.ninstr)
        ok = 0;
    for (size_t i = 0; ok && i < ni; i++)
        if (pcs[i] != want.pcs[i] || widths[i] != want.widths[i])
            ok = 0;
    if (nr != want.nr || nw != want.nw || memcmp(rb, want.rbytes, nr * sizeof *rb) ||
        memcmp(wb, want.wbytes, nw * sizeof *wb))
        ok = 0;
    for (size_t i = 0; ok && want.has_time && i < nt; i++)
        if (times[i] != want.time)
            ok = 0;
    if (!ok)
        fprintf(stderr, "FAIL %s: line \"%s\": %zu fetches (want %zu), %zu bytes read (want "
                        "%zu), %zu written (want %zu)\n",
                label, g->lines[0], ni, want.ninstr, nr, want.nr, nw, want.nw);
    CHECK(ok);
}

/* Read a .ref file: "--- Tarmac line: X" entries and their events. */
static void run_ref(const char *path, const char *label, size_t min_groups)
{
    FILE *f = fopen(path, "r");
    char buf[4096];
    group g;
    int in_group = 0, prev_ldst = 0;
    size_t ngroups = 0;

    CHECK(f != NULL);
    if (!f)
        return;
    memset(&g, 0, sizeof g);
    while (fgets(buf, sizeof buf, f)) {
        size_t len = strlen(buf);
        while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
        if (strncmp(buf, "--- Tarmac line: ", 17) == 0) {
            const char *text = buf + 17;
            char w[64];
            int cont = 0;
            first_word(text, w, sizeof w);
            cont = in_group && prev_ldst && (text[0] == ' ' || text[0] == '\t') && all_hex(w);
            if (!cont) {
                if (in_group) {
                    check_group(&g, label);
                    ngroups++;
                }
                memset(&g, 0, sizeof g);
                in_group = 1;
                {
                    const char *p = text;
                    while (*p == ' ' || *p == '\t')
                        p++;
                    g.want.has_time = *p >= '0' && *p <= '9';
                }
            }
            if (g.nlines < MAXL) {
                size_t n = strlen(text) < sizeof g.lines[0] - 1 ? strlen(text)
                                                                : sizeof g.lines[0] - 1;
                memcpy(g.lines[g.nlines], text, n);
                g.lines[g.nlines++][n] = '\0';
            }
            prev_ldst = cont || strcmp(w, "LD") == 0 || strcmp(w, "ST") == 0;
            continue;
        }
        if (!in_group)
            continue;
        if (strncmp(buf, "* InstructionEvent", 18) == 0) {
            g.want.time = field(buf, "time=", 10);
            if (strstr(buf, "effect=fetchfail") || g.want.ninstr >= 4)
                continue;
            g.want.pcs[g.want.ninstr] = field(buf, " pc=", 16);
            g.want.widths[g.want.ninstr++] = field(buf, "width=", 10) / 8;
        } else if (strncmp(buf, "* MemoryEvent", 13) == 0) {
            uint64_t addr = field(buf, "addr=", 16), size = field(buf, "size=", 10);
            int read = strstr(buf, "read=true") != NULL;
            char kind[64] = "";
            const char *last = g.lines[g.nlines - 1];
            g.want.time = field(buf, "time=", 10);
            /* the type token of the line: after the timestamp and unit */
            {
                char tmp[1024], *tok, *save = NULL;
                snprintf(tmp, sizeof tmp, "%s", last);
                for (tok = strtok_r(tmp, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
                    if (tok[0] == 'M') {
                        snprintf(kind, sizeof kind, "%s", tok);
                        break;
                    }
            }
            if (strlen(kind) > 2 && kind[strlen(kind) - 2] == '_' && kind[strlen(kind) - 1] == 'I')
                continue; /* the deliberate difference */
            for (uint64_t k = 0; k < size; k++) {
                if (read && g.want.nr < MAXB)
                    g.want.rbytes[g.want.nr++] = addr + k;
                if (!read && g.want.nw < MAXB)
                    g.want.wbytes[g.want.nw++] = addr + k;
            }
        } else if (buf[0] == '*') {
            g.want.time = field(buf, "time=", 10);
        }
    }
    if (in_group) {
        check_group(&g, label);
        ngroups++;
    }
    fclose(f);
    printf("%s: %zu line groups compared\n", label, ngroups);
    CHECK(ngroups >= min_groups);
}

int main(void)
{
    const char *corpus = getenv("CACHET_CORPUS");
    char path[4096];

    if (!corpus || !*corpus) {
        printf("skipped: CACHET_CORPUS is not set (the oracle is the reference parser's "
               "expected output in ../shared/traces/tarmac)\n");
        return 77; /* ctest's SKIP_RETURN_CODE */
    }
    harness_test = "parsertest";
    snprintf(path, sizeof path, "%s/tarmac/tarmac-trace-utilities/tests/parsertest.ref", corpus);
    run_ref(path, "parsertest.ref", 150);
    harness_test = "parsertest-implicit-thumb";
    snprintf(path, sizeof path,
             "%s/tarmac/tarmac-trace-utilities/tests/parsertest-implicit-thumb.ref", corpus);
    run_ref(path, "parsertest-implicit-thumb.ref", 15);
    return harness_done();
}
