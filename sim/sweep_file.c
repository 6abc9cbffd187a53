/*
 * sweep_file.c - sweep files and their points.
 *
 * Rules (the file format is described in cachet/sweep.h)
 *  - Parsing is strict: unknown top-level keys, unknown sections or keys,
 *    values that do not parse for their key, empty or reversed ranges,
 *    zipped keys of different lengths and duplicate keys are errors of the
 *    whole file. A point whose combination the configuration rules reject
 *    is skipped and listed, never an error.
 *  - Values are applied to a copy of the base all at once
 *    (ct_config_set_many), so keys that are only valid together work.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cachet/cachet.h"
#include "cachet/sweep.h"
#include "config_internal.h"
#include "sweep_internal.h"

#define MAX_VALUES 100000
#define MAX_POINTS 65536     /* a run builds a configuration (~10 KiB) per point */

/* ---- small helpers ------------------------------------------------------------ */

static char *trim(char *s)
{
    char *e;
    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* Append a copy of s to the array *v of *n strings. The array grows by
 * doubling: its room is the smallest power of two >= *n. */
static int push_str(char ***v, size_t *n, const char *s)
{
    char **nv = *v;
    if ((*n & (*n - 1)) == 0) { /* full (or empty) */
        nv = realloc(*v, (*n ? *n * 2 : 1) * sizeof *nv);
        if (!nv)
            return -1;
        *v = nv;
    }
    nv[*n] = strdup(s);
    if (!nv[*n])
        return -1;
    (*n)++;
    return 0;
}

static void free_strs(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

const char *ct_sweep_path(const ct_sweep *sw) { return sw->path; }
size_t ct_sweep_nparams(const ct_sweep *sw) { return sw->nparams; }
const char *ct_sweep_param(const ct_sweep *sw, size_t j) { return sw->param[j]; }
size_t ct_sweep_npoints(const ct_sweep *sw) { return sw->npoints; }
/* Point i's configuration: the base with the point's values set, as the
 * load checked them. */
int ct_sweep_point_build(ct_sweep *sw, size_t i, ct_error *err)
{
    const char *secs[64], *keys[64], *vals[64];
    ct_config *c = NULL;
    int rc;

    for (size_t j = 0; j < sw->nparams; j++) {
        secs[j] = sw->keys[j].sec;
        keys[j] = sw->keys[j].key;
        vals[j] = sw->keys[j].vals[sw->choice[i * sw->nparams + j]];
    }
    if ((rc = ct_config_clone(&c, sw->base, err)) != CT_OK)
        return rc;
    rc = ct_config_set_many(c, sw->path, sw->nparams, secs, keys, vals, err);
    if (rc) {
        ct_config_free(c);
        return rc;
    }
    sw->cfg[i] = c;
    return CT_OK;
}

const ct_config *ct_sweep_point_config(const ct_sweep *sw, size_t i)
{
    ct_sweep *built = (ct_sweep *)sw;   /* the cache of built points */
    ct_error e = {0};
    if (!sw->cfg[i] && ct_sweep_point_build(built, i, &e) != CT_OK)
        return NULL;
    return sw->cfg[i];
}
void ct_sweep_point_release(ct_sweep *sw, size_t i)
{
    ct_config_free(sw->cfg[i]);
    sw->cfg[i] = NULL;
}

const char *ct_sweep_point_value(const ct_sweep *sw, size_t i, size_t j)
{
    return sw->value[i * sw->nparams + j];
}
size_t ct_sweep_nskipped(const ct_sweep *sw) { return sw->nskipped; }
const char *ct_sweep_skipped(const ct_sweep *sw, size_t k) { return sw->skipped[k]; }
uint64_t ct_sweep_hash(const ct_sweep *sw) { return sw->hash; }

const char *ct_sweep_method_name(int method)
{
    switch (method) {
    case CT_SWEEP_SIMULATED: return "simulated";
    case CT_SWEEP_ONEPASS: return "one-pass";
    case CT_SWEEP_SAMPLED: return "sampled";
    default: return "?";
    }
}

/* A duration for the progress line. */
static void put_duration(char *buf, size_t n, double s)
{
    if (s < 100)
        snprintf(buf, n, "%.0f s", s);
    else if (s < 6000)
        snprintf(buf, n, "%.1f min", s / 60);
    else
        snprintf(buf, n, "%.1f h", s / 3600);
}

size_t ct_sweep_progress_format(const ct_sweep_progress *p, char *buf, size_t n)
{
    char line[320], a[32], b[32];
    size_t used;
    double rate = p->pass_seconds > 0 ? (double)p->accesses / p->pass_seconds : 0;
    double share = -1, all = -1;

    used = (size_t)snprintf(line, sizeof line, "trace %zu/%zu  points %zu/%zu done  "
                            "%.1f M accesses/s", p->trace + 1, p->ntraces, p->points_done,
                            p->points_total, rate / 1e6);
    if (p->bytes_total > 0) {
        share = (double)p->bytes / (double)p->bytes_total;
        if (share > 1)
            share = 1;
    }
    if (share >= 0 && p->points_total > 0) {
        all = ((double)p->points_done + (double)p->pass_points * share) /
              (double)p->points_total;
        if (all > 1)
            all = 1;
    }
    if (share >= 0)
        used += (size_t)snprintf(line + used, sizeof line - used, "  %.0f%%", 100 * share);
    if (share > 0 && share < 1 && p->pass_seconds > 0) {
        put_duration(a, sizeof a, p->pass_seconds * (1 - share) / share);
        used += (size_t)snprintf(line + used, sizeof line - used, "  %s left in this trace", a);
    }
    if (all > 0 && all < 1 && p->seconds > 0) {
        put_duration(b, sizeof b, p->seconds * (1 - all) / all);
        if (share > 0 && share < 1 && p->pass_seconds > 0)
            used += (size_t)snprintf(line + used, sizeof line - used, ", %s in all", b);
        else
            used += (size_t)snprintf(line + used, sizeof line - used, "  %s left in all", b);
    }
    if (n > 0)
        snprintf(buf, n, "%s", line);
    return used;
}

void ct_sweep_free(ct_sweep *sw)
{
    if (!sw)
        return;
    for (size_t i = 0; i < sw->npoints; i++)
        ct_config_free(sw->cfg[i]);
    free(sw->cfg);
    free(sw->choice);
    ct_config_free(sw->base);
    for (size_t i = 0; sw->keys && i < sw->nparams; i++)
        free_strs(sw->keys[i].vals, sw->keys[i].nvals);
    free(sw->keys);
    free_strs(sw->value, sw->npoints * sw->nparams);
    free_strs(sw->param, sw->nparams);
    free_strs(sw->skipped, sw->nskipped);
    free(sw);
}

/* ---- parsing ------------------------------------------------------------------------ */

typedef struct parsed {
    char base[PATH_MAX];
    int have_base;
    char **isec, **ikey, **ival;   /* inline settings */
    size_t ni, ni2, ni3;
    dim_key *keys;
    size_t nkeys;
    char zip[1024];
    int have_zip;
} parsed;

static void parsed_free(parsed *p)
{
    free_strs(p->isec, p->ni);
    free_strs(p->ikey, p->ni2);
    free_strs(p->ival, p->ni3);
    for (size_t i = 0; i < p->nkeys; i++)
        free_strs(p->keys[i].vals, p->keys[i].nvals);
    free(p->keys);
}

/* Append the canonical text of one generated number. */
static int push_num(dim_key *k, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    return push_str(&k->vals, &k->nvals, buf);
}

/* Expand one [sweep] value into k->vals. */
static int expand_values(const char *file, dim_key *k, const char *text, ct_error *err)
{
    char buf[1024];
    const char *dots = strstr(text, "..");

    if (dots) { /* A..B xF | A..B +D */
        char a[64], rest[256], *b, *step;
        uint64_t lo, hi, f;
        int geometric;
        if ((size_t)(dots - text) >= sizeof a || strlen(dots + 2) >= sizeof rest)
            return ct_error_set(err, CT_E_CONFIG, "%s: [sweep] %s: range too long", file, k->name);
        memcpy(a, text, (size_t)(dots - text));
        a[dots - text] = '\0';
        snprintf(rest, sizeof rest, "%s", dots + 2);
        b = trim(rest);
        step = b;
        while (*step && !isspace((unsigned char)*step))
            step++;
        if (*step)
            *step++ = '\0';
        step = trim(step);
        if (ct_parse_size(trim(a), &lo) != 0 || ct_parse_size(b, &hi) != 0)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [sweep] %s: \"%s\" is not a range (A..B xF or A..B +D)",
                                file, k->name, text);
        if (!*step || (step[0] != 'x' && step[0] != '+') ||
            ct_parse_size(step + 1, &f) != 0)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [sweep] %s: \"%s\": a range needs a factor (x2) or a "
                                "step (+10) after its bounds", file, k->name, text);
        geometric = step[0] == 'x';
        if (hi < lo)
            return ct_error_set(err, CT_E_CONFIG, "%s: [sweep] %s: \"%s\" is an empty range",
                                file, k->name, text);
        if ((geometric && (f < 2 || lo == 0)) || (!geometric && f == 0))
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [sweep] %s: \"%s\": the %s never reaches the end", file,
                                k->name, text, geometric ? "factor (>= 2, from > 0)" : "step");
        if (!geometric && (hi - lo) / f >= MAX_VALUES) /* known before making them */
            return ct_error_set(err, CT_E_CONFIG, "%s: [sweep] %s: more than %d values", file,
                                k->name, MAX_VALUES);
        for (uint64_t v = lo; v <= hi;) {
            if (k->nvals >= MAX_VALUES)
                return ct_error_set(err, CT_E_CONFIG, "%s: [sweep] %s: more than %d values",
                                    file, k->name, MAX_VALUES);
            if (push_num(k, v) != 0)
                return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", file);
            if (geometric ? v > UINT64_MAX / f : v > UINT64_MAX - f)
                break;
            v = geometric ? v * f : v + f;
        }
    } else {
        char *tok, *save = NULL;
        snprintf(buf, sizeof buf, "%s", text);
        for (tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
            if (k->nvals >= MAX_VALUES)
                return ct_error_set(err, CT_E_CONFIG, "%s: [sweep] %s: more than %d values",
                                    file, k->name, MAX_VALUES);
            if (push_str(&k->vals, &k->nvals, tok) != 0)
                return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", file);
        }
        if (k->nvals == 0)
            return ct_error_set(err, CT_E_CONFIG, "%s: [sweep] %s: no values", file, k->name);
    }
    for (size_t i = 0; i < k->nvals; i++) {
        ct_error e = {0};
        if (ct_config_check_row_value((size_t)k->row, k->vals[i], &e) != CT_OK)
            return ct_error_set(err, CT_E_CONFIG, "%s: [sweep] %s: %s", file, k->name, e.msg);
    }
    return CT_OK;
}

/* base = FILE, relative to the sweep file's directory unless absolute. */
static void set_base(parsed *p, const char *path, const char *val)
{
    if (val[0] == '/') {
        snprintf(p->base, sizeof p->base, "%s", val);
    } else {
        const char *slash = strrchr(path, '/');
        if (slash)
            snprintf(p->base, sizeof p->base, "%.*s/%s", (int)(slash - path), path, val);
        else
            snprintf(p->base, sizeof p->base, "%s", val);
    }
    p->have_base = 1;
}

/* A key of [sweep] (section.key = values): a new dimension, its row in the
 * schema and its values checked. */
static int add_key(parsed *p, const char *path, const char *key, const char *val,
                   ct_error *err)
{
    dim_key *nk, *k;
    const char *dot = strchr(key, '.');

    for (size_t i = 0; i < p->nkeys; i++)
        if (strcmp(p->keys[i].name, key) == 0)
            return ct_error_set(err, CT_E_CONFIG, "%s: [sweep] %s: given twice", path, key);
    if (!dot || dot == key || !dot[1] || strlen(key) >= sizeof nk->name)
        return ct_error_set(err, CT_E_CONFIG,
                            "%s: [sweep] %s: expected section.key (e.g. l1d.size)", path, key);
    nk = realloc(p->keys, (p->nkeys + 1) * sizeof *nk);
    if (!nk)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
    p->keys = nk;
    k = &p->keys[p->nkeys++];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", key);
    snprintf(k->sec, sizeof k->sec, "%.*s", (int)(dot - key), key);
    snprintf(k->key, sizeof k->key, "%s", dot + 1);
    for (char *q = k->sec; *q; q++)
        *q = (char)tolower((unsigned char)*q);
    for (char *q = k->key; *q; q++)
        *q = (char)tolower((unsigned char)*q);
    k->row = ct_config_row(k->sec, k->key);
    if (k->row < 0)
        return ct_error_set(err, CT_E_CONFIG, "%s: [sweep] %s: %s", path, key,
                            k->row == CT_CFG_NO_SECTION ? "unknown section" : "unknown key");
    return expand_values(path, k, val, err);
}

/* [sweep] zip = "a b, c d": each group's keys, of equal value counts, vary
 * together (k->zip is the group's number, from 1). */
static int parse_zip(parsed *p, const char *path, ct_error *err)
{
    char buf[1024], *grp, *gsave = NULL;
    int g = 0;

    snprintf(buf, sizeof buf, "%s", p->zip);
    for (grp = strtok_r(buf, ",", &gsave); grp; grp = strtok_r(NULL, ",", &gsave)) {
        char *tok, *save = NULL;
        size_t len = 0, members = 0;
        const char *first = NULL;
        g++;
        for (tok = strtok_r(grp, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
            dim_key *k = NULL;
            for (size_t i = 0; i < p->nkeys; i++)
                if (strcmp(p->keys[i].name, tok) == 0)
                    k = &p->keys[i];
            if (!k)
                return ct_error_set(err, CT_E_CONFIG,
                                    "%s: [sweep] zip: %s is not a key of [sweep]", path, tok);
            if (k->zip)
                return ct_error_set(err, CT_E_CONFIG, "%s: [sweep] zip: %s is zipped twice",
                                    path, tok);
            if (members && k->nvals != len)
                return ct_error_set(err, CT_E_CONFIG,
                                    "%s: [sweep] zip: %s has %zu values, %s has %zu", path,
                                    first, len, tok, k->nvals);
            if (!members) {
                len = k->nvals;
                first = k->name;
            }
            k->zip = g;
            members++;
        }
        if (members < 2)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [sweep] zip: a group needs two keys or more", path);
    }
    return CT_OK;
}

static int parse_file(const char *path, parsed *p, ct_error *err)
{
    ct_ini r;
    const char *section = r.section;
    int rc = ct_ini_begin(&r, path, err);

    while (rc == CT_OK && (rc = ct_ini_next(&r, err)) > 0) {
        char *key = r.key, *val = r.value;
        const int kind = rc;
        rc = CT_OK;
        if (kind == CT_INI_SECTION) {
            if (strcmp(section, "sweep") != 0 && ct_config_row(section, "") == CT_CFG_NO_SECTION) {
                rc = ct_error_set(err, CT_E_CONFIG, "%s: [%s]: unknown section", path, section);
                break;
            }
            continue;
        }
        if (!section[0]) {
            if (strcmp(key, "base") != 0) {
                rc = ct_error_set(err, CT_E_CONFIG,
                                  "%s: %s: unknown top-level key (only base is allowed outside "
                                  "a section)", path, key);
                break;
            }
            if (p->have_base) {
                rc = ct_error_set(err, CT_E_CONFIG, "%s: base: given twice", path);
                break;
            }
            set_base(p, path, val);
            continue;
        }
        if (strcmp(section, "sweep") != 0) {
            if (push_str(&p->isec, &p->ni, section) || push_str(&p->ikey, &p->ni2, key) ||
                push_str(&p->ival, &p->ni3, val))
                rc = ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
            continue;
        }
        if (strcmp(key, "zip") == 0) {
            if (p->have_zip) {
                rc = ct_error_set(err, CT_E_CONFIG,
                                  "%s: [sweep] zip: given twice (separate groups with ',')",
                                  path);
                break;
            }
            snprintf(p->zip, sizeof p->zip, "%s", val);
            p->have_zip = 1;
            continue;
        }
        rc = add_key(p, path, key, val, err);
    }
    ct_ini_end(&r);
    if (rc == CT_OK && p->nkeys == 0)
        rc = ct_error_set(err, CT_E_CONFIG, "%s: [sweep]: no keys to vary", path);
    if (rc == CT_OK && p->have_zip)
        rc = parse_zip(p, path, err);
    return rc;
}

/* Strip "ORIGIN: " from a configuration error, keeping "[section] key: reason". */
static const char *reason_of(const char *msg)
{
    const char *b = strstr(msg, ": [");
    return b ? b + 2 : msg;
}

/* The base configuration: the file named by base (an unreadable one is a
 * configuration error of the sweep), else the default one (an empty one
 * when the sweep file has sections of its own), then those sections' keys. */
static int load_base(const parsed *p, const char *path, ct_config **base, ct_error *err)
{
    int rc;

    if (p->have_base) {
        if ((rc = ct_config_load(base, p->base, err)) != CT_OK) {
            if (rc == CT_E_IO) {
                ct_error_prefix(err, "%s: base", path);
                rc = err->code = CT_E_CONFIG;
            }
            return rc;
        }
    } else if (p->ni) {
        rc = ct_config_new_empty(base, err);
    } else {
        rc = ct_config_new_default(base, err);
    }
    if (rc)
        return rc;
    if (p->ni)
        return ct_config_set_many(*base, path, p->ni, (const char *const *)p->isec,
                                  (const char *const *)p->ikey, (const char *const *)p->ival,
                                  err);
    return CT_OK;
}

/* The dimensions: each lone key, and each zip group at its first key
 * (dim_first); *total is the number of combinations. */
static int find_dimensions(const parsed *p, const char *path, size_t *dim_first, size_t *ndims,
                           size_t *total, ct_error *err)
{
    for (size_t i = 0; i < p->nkeys; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            if (p->keys[i].zip && p->keys[j].zip == p->keys[i].zip)
                seen = 1;
        if (seen)
            continue;
        dim_first[(*ndims)++] = i;
        if (*total > MAX_POINTS / p->keys[i].nvals)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [sweep] %s: its %zu values make more than %d points", path,
                                p->keys[i].name, p->keys[i].nvals, MAX_POINTS);
        *total *= p->keys[i].nvals;
    }
    return CT_OK;
}

/* Combination n (mixed radix, the first dimension slowest) checked on the
 * scratch variant: a point with its values as resolved, or a skipped
 * combination with the reason. CT_OK, or CT_E_NOMEM. */
static int add_point(ct_sweep *sw, const parsed *p, ct_config_variants *scratch, size_t n,
                     const size_t *dim_first, size_t ndims, size_t *idx, const char *path,
                     ct_error *err)
{
    const char *secs[64], *keys[64], *vals[64];
    size_t rem = n, rows[64];
    ct_error e = {0};

    for (size_t d = ndims; d-- > 0;) {
        size_t nv = p->keys[dim_first[d]].nvals;
        size_t v = rem % nv;
        rem /= nv;
        for (size_t i = 0; i < p->nkeys; i++)
            if (i == dim_first[d] ||
                (p->keys[i].zip && p->keys[i].zip == p->keys[dim_first[d]].zip))
                idx[i] = v;
    }
    for (size_t i = 0; i < p->nkeys; i++) {
        secs[i] = p->keys[i].sec;
        keys[i] = p->keys[i].key;
        vals[i] = p->keys[i].vals[idx[i]];
        rows[i] = (size_t)p->keys[i].row;
    }
    if (ct_config_variants_set(scratch, path, p->nkeys, rows, vals, &e) != CT_OK) {
        char msg[1024];
        size_t used = 0;
        if (e.code == CT_E_NOMEM)
            return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
        for (size_t i = 0; i < p->nkeys; i++)
            used += (size_t)snprintf(msg + used, used < sizeof msg ? sizeof msg - used : 0,
                                     "%s%s=%s", i ? " " : "", sw->param[i], vals[i]);
        if (used < sizeof msg)
            snprintf(msg + used, sizeof msg - used, ": %s", reason_of(e.msg));
        if (push_str(&sw->skipped, &sw->nskipped, msg) != 0)
            return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
        return CT_OK;
    }
    for (size_t i = 0; i < p->nkeys; i++) {
        char buf[64];
        const char *v = ct_config_get(scratch->c, secs[i], keys[i], buf, sizeof buf);
        if (strcasecmp(vals[i], "full") == 0)
            v = "full";  /* the resolved way count is in the assoc column */
        sw->choice[sw->npoints * p->nkeys + i] = (uint32_t)idx[i];
        sw->value[sw->npoints * p->nkeys + i] = strdup(v ? v : "");
        if (!sw->value[sw->npoints * p->nkeys + i])
            return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
    }
    sw->hash = (sw->hash ^ ct_config_hash(scratch->c)) * 0x100000001b3ull;
    sw->npoints++;
    return CT_OK;
}

int ct_sweep_load(ct_sweep **out, const char *path, ct_error *err)
{
    parsed p;
    ct_sweep *sw = calloc(1, sizeof *sw);
    ct_config *base = NULL;
    ct_config_variants scratch = {0};
    size_t ndims = 0, *dim_first = NULL, *idx = NULL, total = 1;
    int rc;

    *out = NULL;
    memset(&p, 0, sizeof p);
    if (!sw)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
    snprintf(sw->path, sizeof sw->path, "%s", path);
    if ((rc = parse_file(path, &p, err)) != CT_OK)
        goto out;
    if ((rc = load_base(&p, path, &base, err)) != CT_OK)
        goto out;

    /* dimensions: each lone key, and each zip group at its first key */
    dim_first = calloc(p.nkeys, sizeof *dim_first);
    idx = calloc(p.nkeys, sizeof *idx);
    if (!dim_first || !idx) {
        rc = ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
        goto out;
    }
    if ((rc = find_dimensions(&p, path, dim_first, &ndims, &total, err)) != CT_OK)
        goto out;
    for (size_t i = 0; i < p.nkeys; i++) {
        char name[128];
        snprintf(name, sizeof name, "%s.%s", p.keys[i].sec, p.keys[i].key);
        if (push_str(&sw->param, &sw->nparams, name) != 0) {
            rc = ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
            goto out;
        }
    }
    if (p.nkeys > 64) {
        rc = ct_error_set(err, CT_E_CONFIG, "%s: [sweep]: more than 64 keys", path);
        goto out;
    }
    sw->cfg = calloc(total, sizeof *sw->cfg);
    sw->choice = calloc(total * p.nkeys, sizeof *sw->choice);
    sw->value = calloc(total * p.nkeys, sizeof *sw->value);
    if (!sw->cfg || !sw->choice || !sw->value) {
        rc = ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
        goto out;
    }
    /* the hash: keys, then every point's configuration */
    sw->hash = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < sw->nparams; i++)
        for (const char *q = sw->param[i]; *q; q++)
            sw->hash = (sw->hash ^ (unsigned char)*q) * 0x100000001b3ull;
    /* Each combination is checked on one scratch copy of the base: every
     * point sets the same keys over the last point's. Points are built when
     * used. */
    if ((rc = ct_config_variants_init(&scratch, base, err)) != CT_OK)
        goto out;
    for (size_t n = 0; n < total; n++)
        if ((rc = add_point(sw, &p, &scratch, n, dim_first, ndims, idx, path, err)) != CT_OK)
            goto out;
    if (sw->npoints == 0) {
        rc = ct_error_set(err, CT_E_CONFIG, "%s: [sweep]: every combination is impossible "
                          "(the first: %s)", path, sw->nskipped ? sw->skipped[0] : "?");
        goto out;
    }
    sw->keys = p.keys;      /* build_point reads the values as written */
    p.keys = NULL;
    p.nkeys = 0;
    sw->base = base;
    base = NULL;
out:
    free(dim_first);
    free(idx);
    parsed_free(&p);
    ct_config_variants_free(&scratch);
    ct_config_free(base);
    if (rc) {
        ct_sweep_free(sw);
        return rc;
    }
    *out = sw;
    return CT_OK;
}

