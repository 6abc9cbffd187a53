/*
 * uncached.c - the address ranges of [system] uncached.
 *
 * Rules
 *   `uncached = START-END[, START-END ...]`: up to 64 ranges of addresses,
 *   each from START to END inclusive (decimal or 0x hex; sizes such as 64K
 *   are not taken: these are addresses), separated by commas or blanks; an
 *   empty value means none. END must not be below START. Ranges may overlap
 *   or touch (they are merged). An address belongs to the ranges when
 *   START <= address <= END for one of them.
 *   What an uncached access does in the model is stated in sim/hier.c
 *   ("Uncached memory").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uncached.h"

static int cmp_first(const void *a, const void *b)
{
    const ct_range *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* One address at *p: 0 and *p past it, or -1. */
static int number(const char **p, uint64_t *v)
{
    char *end;
    unsigned long long x;

    if (**p < '0' || **p > '9')
        return -1;
    errno = 0;
    x = strtoull(*p, &end, 0);
    if (errno || end == *p)
        return -1;
    *v = x;
    *p = end;
    return 0;
}

int ct_uncached_parse(const char *text, ct_range *out, size_t *n, char *why, size_t whyn)
{
    const char *p = text;
    size_t k = 0, m = 0;

    for (;;) {
        ct_range r;
        const char *at;
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (!*p)
            break;
        at = p;
        if (number(&p, &r.first) != 0 || *p != '-') {
            snprintf(why, whyn, "\"%.40s\" is not a range START-END (e.g. 0x1000-0x1fff)", at);
            return -1;
        }
        p++;
        if (number(&p, &r.last) != 0 || (*p && *p != ' ' && *p != '\t' && *p != ',')) {
            snprintf(why, whyn, "\"%.40s\" is not a range START-END (e.g. 0x1000-0x1fff)", at);
            return -1;
        }
        if (r.last < r.first) {
            snprintf(why, whyn, "range %.*s ends before it starts", (int)(p - at), at);
            return -1;
        }
        if (k == CT_UNCACHED_MAX) {
            snprintf(why, whyn, "more than %d ranges", CT_UNCACHED_MAX);
            return -1;
        }
        out[k++] = r;
    }
    qsort(out, k, sizeof *out, cmp_first);
    for (size_t i = 0; i < k; i++) {  /* merge overlapping or touching ranges */
        if (m && (out[i].first <= out[m - 1].last || out[i].first - 1 == out[m - 1].last)) {
            if (out[i].last > out[m - 1].last)
                out[m - 1].last = out[i].last;
        } else {
            out[m++] = out[i];
        }
    }
    *n = m;
    return 0;
}

int ct_uncached_check(const char *text, char *why, size_t whyn)
{
    ct_range r[CT_UNCACHED_MAX];
    size_t n;
    return ct_uncached_parse(text, r, &n, why, whyn);
}

int ct_uncached_has(const ct_range *r, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;  /* the last range starting at or below addr */
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (r[mid].first <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && addr <= r[lo - 1].last;
}
