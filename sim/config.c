/*
 * config.c - reading, checking and editing configurations.
 *
 * Rules (the key reference itself is the schema in config_schema.c):
 *  - Every section and key must be in the schema; anything else is an error.
 *  - Files are read by the INI reader of ini.c (its rules are there); each
 *    value is parsed here from its text by its schema row. Sizes take
 *    K, M, G or T, alone or followed by B or iB, all powers of 1024
 *    ("32K" = "32KB" = "32KiB" = 32768; "32Kb" is refused). A string
 *    key with a grammar of its own (a list) is also checked by its row's
 *    check function.
 *  - A top-level `include = FILE` reads FILE first (relative to the including
 *    file); keys of the including file win; include loops are errors.
 *  - A key given twice in one section of one file is an error; section and
 *    key names are compared without case.
 *  - Optional sections (cache levels) exist only when named in the INI or set
 *    with -s; a present section's missing keys take their defaults.
 *  - Geometry: line a power of two, size a multiple of line x assoc, assoc
 *    no larger than the number of lines, the replacement policy able to
 *    handle the associativity, L1 levels private and without an inclusion
 *    policy. It is checked when a file is loaded and after
 *    ct_config_set_all / ct_config_set_many / ct_config_set_list (keys that
 *    are only valid together go in one call). ct_config_set and
 *    ct_config_set_kv check the value alone (type and range), so that keys
 *    can be set one at a time; the geometry is then checked by
 *    ct_config_check, or by ct_sim_create at the latest.
 *  - A cache level or TLB that an assignment ("l3.latency=30") brings into
 *    being must have its size key set too (size for a cache, entries for a
 *    TLB or the walk cache), in any order: otherwise the geometry check
 *    fails saying how to add the structure, instead of creating one of the
 *    default size unnoticed. Sections of files (and ct_config_set_many,
 *    whose keys come from a file) need no size key: a present section's
 *    missing keys take their defaults.
 * Errors read "ORIGIN: [section] key: reason", ORIGIN being the file that
 * set the value, or the assignment itself ("l1d.size=64K", after the
 * caller's prefix: the command line passes "-s ").
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


#include "config_internal.h"
#include "policy.h"

#define MAX_INCLUDE_DEPTH 16

/* Per-configuration origin of each row's text (file or -s option). */
typedef struct origins {
    char *of[CT_CFG_MAX_ROWS];
    int unchecked;   /* keys were set one at a time since the last geometry check */
    unsigned char by_assignment[CT_CFG_MAX_SECTIONS]; /* the section was absent and an
                                                         assignment made it present */
} origins;

static origins *origins_of(const struct ct_config *c);

/* ---- small text helpers ------------------------------------------------ */

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static int streq_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

int ct_parse_size(const char *text, uint64_t *out)
{
    const char *p = text;
    uint64_t v = 0, mul = 1;
    int digits = 0;

    while (isspace((unsigned char)*p))
        p++;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        while (isxdigit((unsigned char)*p)) {
            int d = isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10;
            if (v > (UINT64_MAX >> 4))
                return -1;
            v = v * 16 + (uint64_t)d;
            p++;
            digits++;
        }
    } else {
        while (isdigit((unsigned char)*p)) {
            if (v > (UINT64_MAX - 9) / 10)
                return -1;
            v = v * 10 + (uint64_t)(*p - '0');
            p++;
            digits++;
        }
    }
    if (!digits)
        return -1;
    switch (*p) {
    case 'k': case 'K': mul = 1ull << 10; p++; break;
    case 'm': case 'M': mul = 1ull << 20; p++; break;
    case 'g': case 'G': mul = 1ull << 30; p++; break;
    case 't': case 'T': mul = 1ull << 40; p++; break;
    default: break;
    }
    /* "32KB" and "32KiB" are the same 32 KiB as "32K" (sizes are powers of
     * 1024 however written); a lowercase "b" would read as bits: refused */
    if (mul > 1 && p[0] == 'B')
        p++;
    else if (mul > 1 && p[0] == 'i' && p[1] == 'B')
        p += 2;
    while (isspace((unsigned char)*p))
        p++;
    if (*p)
        return -1;
    if (v && mul > UINT64_MAX / v)
        return -1;
    *out = v * mul;
    return 0;
}

static int parse_uint(const char *text, uint64_t *out)
{
    const char *p = text;
    uint64_t v = 0;
    int digits = 0;

    while (isspace((unsigned char)*p))
        p++;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        return ct_parse_size(text, out) == 0 && !strpbrk(text, "kKmMgGtT") ? 0 : -1;
    while (isdigit((unsigned char)*p)) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
        p++;
        digits++;
    }
    while (isspace((unsigned char)*p))
        p++;
    if (!digits || *p)
        return -1;
    *out = v;
    return 0;
}

void ct_format_size(uint64_t v, char *buf, size_t n)
{
    if (v && v % (1ull << 30) == 0)
        snprintf(buf, n, "%lluG", (unsigned long long)(v >> 30));
    else if (v && v % (1ull << 20) == 0)
        snprintf(buf, n, "%lluM", (unsigned long long)(v >> 20));
    else if (v && v % (1ull << 10) == 0)
        snprintf(buf, n, "%lluK", (unsigned long long)(v >> 10));
    else
        snprintf(buf, n, "%llu", (unsigned long long)v);
}

static int parse_bool(const char *text, int *out)
{
    static const char *const yes[] = {"yes", "true", "on", "1"};
    static const char *const no[] = {"no", "false", "off", "0"};

    for (size_t i = 0; i < 4; i++) {
        if (streq_nocase(text, yes[i])) { *out = 1; return 0; }
        if (streq_nocase(text, no[i])) { *out = 0; return 0; }
    }
    return -1;
}

static const char *enum_name(const ct_schema_row *r, size_t i)
{
    return r->names ? r->names[i] : r->name_at(i);
}

static void enum_list(const ct_schema_row *r, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; enum_name(r, i); i++)
        used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%s%s",
                                 i ? "|" : "", enum_name(r, i));
}

/* ---- rows and sections -------------------------------------------------- */

/* The schema every block gathers into (config_schema.c). */
static const ct_schema_row *row_at(size_t i) { return &ct_schema_get()->rows[i]; }
static size_t nrows(void) { return ct_schema_get()->nrows; }
static const ct_schema_section *section_at(size_t s) { return &ct_schema_get()->sections[s]; }
static size_t nsections(void) { return ct_schema_get()->nsections; }

static int find_section(const char *name)
{
    for (size_t i = 0; i < nsections(); i++)
        if (streq_nocase(section_at(i)->name, name))
            return (int)i;
    return -1;
}

static int find_row(int section, const char *key)
{
    for (size_t i = 0; i < nrows(); i++)
        if (row_at(i)->section == section && streq_nocase(row_at(i)->key, key))
            return (int)i;
    return -1;
}

static int section_present(const struct ct_config *c, int s)
{
    return !section_at(s)->optional || c->present[s];
}

/* Parse one value into its field (r->field_size bytes). Returns 0, or -1
 * with a reason. */
static int parse_row(void *field, const ct_schema_row *r, const char *text, char *why,
                     size_t whyn)
{
    uint64_t v;
    int b;

    switch (r->type) {
    case CT_VT_UINT:
    case CT_VT_SIZE:
        if ((r->type == CT_VT_SIZE ? ct_parse_size(text, &v) : parse_uint(text, &v)) != 0) {
            snprintf(why, whyn, "\"%s\" is not %s", text,
                     r->type == CT_VT_SIZE ? "a size (e.g. 64K)" : "a whole number");
            return -1;
        }
        if (v < r->min || v > r->max) {
            snprintf(why, whyn, "%s is out of range %llu..%llu", text,
                     (unsigned long long)r->min, (unsigned long long)r->max);
            return -1;
        }
        if (r->field_size == 8)
            *(uint64_t *)field = v;
        else
            *(uint32_t *)field = (uint32_t)v;
        return 0;
    case CT_VT_ASSOC:
        if (streq_nocase(text, "full")) {
            *(uint32_t *)field = 0;
            return 0;
        }
        if (parse_uint(text, &v) != 0 || v < r->min || v > r->max) {
            snprintf(why, whyn, "\"%s\" is not a number of ways (%llu..%llu) or \"full\"",
                     text, (unsigned long long)r->min, (unsigned long long)r->max);
            return -1;
        }
        *(uint32_t *)field = (uint32_t)v;
        return 0;
    case CT_VT_BOOL:
        if (parse_bool(text, &b) != 0) {
            for (size_t i = 0; r->names && r->names[i]; i++)
                if (streq_nocase(r->names[i], text)) {
                    *(int *)field = 2 + (int)i;
                    return 0;
                }
            snprintf(why, whyn, "\"%s\" is not yes or no%s%s", text,
                     r->names ? " or " : "", r->names ? r->names[0] : "");
            return -1;
        }
        *(int *)field = b;
        return 0;
    case CT_VT_ENUM:
        for (size_t i = 0; enum_name(r, i); i++)
            if (streq_nocase(enum_name(r, i), text)) {
                *(int *)field = (int)i;
                return 0;
            }
        {
            char list[256];
            enum_list(r, list, sizeof list);
            snprintf(why, whyn, "\"%s\" is not one of %s", text, list);
        }
        return -1;
    case CT_VT_STRING:
        if (strlen(text) >= r->field_size) {
            snprintf(why, whyn, "value longer than %zu characters", r->field_size - 1);
            return -1;
        }
        if (r->check && r->check(text, why, whyn) != 0)
            return -1;
        memcpy(field, text, strlen(text) + 1);
        return 0;
    }
    snprintf(why, whyn, "internal: unknown type");
    return -1;
}

static const char *row_origin(const struct ct_config *c, size_t i)
{
    const origins *o = origins_of(c);
    if (o && o->of[i])
        return o->of[i];
    return c->path[0] ? c->path : "defaults";
}

static int row_error(const struct ct_config *c, size_t i, ct_error *err, const char *fmt, ...)
{
    char why[384];
    va_list ap;
    const ct_schema_row *r = row_at(i);

    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return ct_error_set(err, CT_E_CONFIG, "%s: [%s] %s: %s", row_origin(c, i),
                        section_at(r->section)->name, r->key, why);
}

static int row_of(int section, const char *key)
{
    int r = find_row(section, key);
    return r < 0 ? 0 : r;
}

/* A geometry error names the key at fault; when that key kept its default,
 * the origin shown is the one of the key the user did set in the section
 * (size, then assoc, then line), which is what made the default wrong. */
static int geometry_error(const struct ct_config *c, int section, const char *key,
                          ct_error *err, const char *fmt, ...)
{
    static const char *const prefer[] = {"size", "assoc", "line"};
    size_t row = (size_t)row_of(section, key);
    const char *origin = NULL;
    char why[384];
    va_list ap;

    if (origins_of(c)->of[row])
        origin = origins_of(c)->of[row];
    for (size_t i = 0; !origin && i < 3; i++)
        origin = origins_of(c)->of[row_of(section, prefer[i])];
    if (!origin)
        origin = row_origin(c, row);
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return ct_error_set(err, CT_E_CONFIG, "%s: [%s] %s: %s", origin,
                        section_at(section)->name, key, why);
}

/* Geometry and cross-key rules of one present cache level. */
static int check_level(struct ct_config *c, int lv, ct_error *err)
{
    int s = ct_config_section_of_level(lv);
    ct_cache_cfg *k = &c->cache[lv];
    uint64_t lines;
    const ct_policy_ops *pol = ct_policy_at((size_t)k->replacement);
    const char *why;

    if (k->line & (k->line - 1))
        return geometry_error(c, s, "line", err, "%u is not a power of two", k->line);
    if (k->size % k->line)
        return geometry_error(c, s, "size", err,
                         "%llu is not a multiple of the %u-byte line",
                         (unsigned long long)k->size, k->line);
    lines = k->size / k->line;
    if (k->assoc == 0)
        k->assoc = lines > UINT32_MAX ? UINT32_MAX : (uint32_t)lines;
    if (k->assoc > lines)
        return geometry_error(c, s, "assoc", err,
                         "%u ways exceed the %llu lines of the cache", k->assoc,
                         (unsigned long long)lines);
    if (lines % k->assoc)
        return geometry_error(c, s, "size", err,
                         "%llu bytes do not divide into %u-way sets of %u-byte lines",
                         (unsigned long long)k->size, k->assoc, k->line);
    if (pol->check && (why = pol->check(k->assoc)) != NULL)
        return geometry_error(c, s, "replacement", err, "%s", why);
    if (k->subblock && ((k->subblock & (k->subblock - 1)) || k->subblock > k->line ||
                        k->line / k->subblock > 32))
        return geometry_error(c, s, "subblock", err,
                              "%u is not a power of two dividing the %u-byte line into at "
                              "most 32 sub-blocks", k->subblock, k->line);
    if (ct_prefetch_at((size_t)k->prefetcher)->propose && k->inclusion != CT_INCL_NONINCLUSIVE)
        return geometry_error(c, s, "prefetcher", err,
                              "%s (a DineroIV fetch policy) needs a non-inclusive level",
                              ct_prefetch_at((size_t)k->prefetcher)->name);
    if (k->subblock && k->subblock < k->line && k->inclusion != CT_INCL_NONINCLUSIVE)
        return geometry_error(c, s, "subblock", err,
                              "sub-blocks need a non-inclusive level (this one is %s)",
                              k->inclusion == CT_INCL_INCLUSIVE ? "inclusive" : "exclusive");
    if (lv <= CT_LV_L1D && k->shared)
        return geometry_error(c, s, "shared", err, "L1 caches are private to a core");
    if (lv <= CT_LV_L1D && k->inclusion != CT_INCL_NONINCLUSIVE)
        return geometry_error(c, s, "inclusion", err,
                         "inclusion describes a level's relation to the levels above it; "
                         "nothing is above an L1");
    return CT_OK;
}

/* Geometry of one present translation structure. */
static int check_tlb(struct ct_config *c, int t, ct_error *err)
{
    int s = ct_config_section_of_tlb(t);
    ct_tlb_cfg *k = &c->tlb[t];
    const ct_policy_ops *pol = ct_policy_at((size_t)k->replacement);
    const char *why;

    if (k->assoc == 0)
        k->assoc = k->entries;
    if (k->assoc > k->entries)
        return geometry_error(c, s, "assoc", err, "%u ways exceed the %u entries", k->assoc,
                              k->entries);
    if (k->entries % k->assoc)
        return geometry_error(c, s, "entries", err, "%u entries do not divide into %u-way sets",
                              k->entries, k->assoc);
    if (pol->check && (why = pol->check(k->assoc)) != NULL)
        return geometry_error(c, s, "replacement", err, "%s", why);
    if (pol == &ct_policy_opt)
        return geometry_error(c, s, "replacement", err,
                              "opt is for cache levels (sim/policy/opt.c), not TLBs");
    return CT_OK;
}

/* " (KEY from ORIGIN)" for each [walk] key of keys[] other than `skip`
 * that the user set, into buf. */
static void walk_notes(const struct ct_config *c, const char *const *keys, size_t n,
                       size_t skip, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < cap; i++) {
        const size_t r = (size_t)row_of(ct_config_walk_section(), keys[i]);
        int k;
        if (r == skip || !origins_of(c)->of[r])
            continue;
        k = snprintf(buf + used, cap - used, " (%s from %s)", keys[i], origins_of(c)->of[r]);
        used += k > 0 ? (size_t)k : 0;
    }
}

/* The walker's shape (rules at the top of sim/walk.c): a granule of 4K, 16K
 * or 64K, at most 60 translated bits, blocks only where the architecture
 * has them. An unset [walk] levels follows the granule: 4 (4K: 48 bits,
 * 16K: 58), 3 for 64K (55 bits; 4 would be 68). A shape error is told at
 * the key the user set (levels, then leaf_level, then granule), names where
 * the others it depends on came from, and says what to set instead. */
static int check_walk(struct ct_config *c, ct_error *err)
{
    static const char *const keys[] = {"granule", "levels", "leaf_level"};
    const int s = ct_config_walk_section();
    const size_t rg = (size_t)row_of(s, "granule"), rl = (size_t)row_of(s, "levels"),
                 rf = (size_t)row_of(s, "leaf_level");
    const origins *o = origins_of(c);
    const uint64_t g = c->walk_granule;
    const uint32_t gb = g == 4096 ? 12 : g == 16384 ? 14 : 16, min_leaf = g == 4096 ? 1 : 2;
    char notes[2 * PATH_MAX + 128];

    if (g != 4096 && g != 16384 && g != 65536)
        return row_error(c, rg, err, "%llu is not 4K, 16K or 64K", (unsigned long long)g);
    if (!c->text[rl])
        c->walk_levels = g == 65536 ? 3 : 4;
    if (gb + c->walk_levels * (gb - 3) > 60) {
        walk_notes(c, keys, 2, rl, notes, sizeof notes);
        return ct_error_set(err, CT_E_CONFIG,
                            "%s: [walk] levels: %u levels of a %lluK granule%s translate %u "
                            "bits, more than 60: set [walk] levels to %u or fewer",
                            row_origin(c, rl), c->walk_levels, (unsigned long long)(g >> 10),
                            notes, gb + c->walk_levels * (gb - 3), (60 - gb) / (gb - 3));
    }
    if (c->walk_leaf_level < 4 - c->walk_levels || c->walk_leaf_level < min_leaf) {
        const uint32_t lo = 4 - c->walk_levels > min_leaf ? 4 - c->walk_levels : min_leaf;
        const size_t blame = o->of[rf] ? rf : o->of[rl] ? rl : rg;
        walk_notes(c, keys, 3, blame, notes, sizeof notes);
        return ct_error_set(err, CT_E_CONFIG,
                            "%s: [walk] leaf_level: a %lluK granule with %u levels has no "
                            "blocks at level %u (levels %u..3)%s: set [walk] leaf_level to one "
                            "of %u..3",
                            row_origin(c, blame), (unsigned long long)(g >> 10), c->walk_levels,
                            c->walk_leaf_level, lo, notes, lo);
    }
    return CT_OK;
}

/* Derive row i's typed field from its text (or its default). */
static int parse_text(struct ct_config *c, size_t i, ct_error *err)
{
    const ct_schema_row *r = row_at(i);
    char why[384];
    if (parse_row((char *)c + r->offset, r, c->text[i] ? c->text[i] : r->def, why,
                  sizeof why) != 0)
        return row_error(c, i, err, "%s", why);
    return CT_OK;
}

/* The geometry checks; they also fill in derived fields. */
static int check_all(struct ct_config *c, ct_error *err)
{
    for (int lv = 0; lv < CT_LV_COUNT; lv++)
        if (ct_config_level_present(c, lv)) {
            int rc = check_level(c, lv, err);
            if (rc)
                return rc;
        }
    for (int t = 0; t < CT_TLB_COUNT; t++)
        if (ct_config_tlb_present(c, t)) {
            int rc = check_tlb(c, t, err);
            if (rc)
                return rc;
        }
    return check_walk(c, err);
}

/* Re-derive every typed field from the texts, then check geometry. */
static int resolve(struct ct_config *c, ct_error *err)
{
    for (size_t i = 0; i < nrows(); i++) {
        int rc = parse_text(c, i, err);
        if (rc)
            return rc;
    }
    return check_all(c, err);
}

/* ---- object lifetime ---------------------------------------------------- */

/* The origins table lives right after struct ct_config in one allocation. */
typedef struct config_block {
    struct ct_config cfg;
    origins org;
} config_block;

static origins *origins_of(const struct ct_config *c)
{
    return &((config_block *)(void *)c)->org;
}

static struct ct_config *config_alloc(void)
{
    config_block *b = calloc(1, sizeof *b);
    return b ? &b->cfg : NULL;
}

void ct_config_free(ct_config *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < nrows(); i++) {
        free(c->text[i]);
        free(origins_of(c)->of[i]);
    }
    free((config_block *)(void *)c);
}

int ct_config_new_empty(ct_config **out, ct_error *err)
{
    struct ct_config *c = config_alloc();
    int rc;

    *out = NULL;
    if (!c)
        return ct_error_set(err, CT_E_NOMEM, "configuration: out of memory");
    if (ct_schema_get()->fault) {
        ct_config_free(c);
        return ct_error_set(err, CT_E_INTERNAL, "%s", ct_schema_get()->fault);
    }
    rc = resolve(c, err);
    if (rc) {
        ct_config_free(c);
        return rc;
    }
    *out = c;
    return CT_OK;
}

int ct_config_new_default(ct_config **out, ct_error *err)
{
    int rc = ct_config_new_empty(out, err);
    if (rc)
        return rc;
    (*out)->present[ct_config_section_of_level(CT_LV_L1D)] = 1;
    (*out)->present[ct_config_section_of_level(CT_LV_L2)] = 1;
    rc = resolve(*out, err);
    if (rc) {
        ct_config_free(*out);
        *out = NULL;
    }
    return rc;
}

static int store_text(struct ct_config *c, size_t row, const char *value, const char *origin)
{
    char *t = dup_str(value), *o = dup_str(origin);
    if (!t || !o) {
        free(t);
        free(o);
        return CT_E_NOMEM;
    }
    free(c->text[row]);
    free(origins_of(c)->of[row]);
    c->text[row] = t;
    origins_of(c)->of[row] = o;
    return CT_OK;
}

int ct_config_clone(ct_config **out, const ct_config *src, ct_error *err)
{
    struct ct_config *c = config_alloc();

    *out = NULL;
    if (!c)
        return ct_error_set(err, CT_E_NOMEM, "configuration: out of memory");
    memcpy(c, src, sizeof *c);
    origins_of(c)->unchecked = origins_of(src)->unchecked;
    memcpy(origins_of(c)->by_assignment, origins_of(src)->by_assignment,
           sizeof origins_of(c)->by_assignment);
    for (size_t i = 0; i < nrows(); i++) {
        c->text[i] = NULL;
        if (src->text[i] && store_text(c, i, src->text[i], row_origin(src, i)) != CT_OK) {
            ct_config_free(c);
            return ct_error_set(err, CT_E_NOMEM, "configuration: out of memory");
        }
    }
    *out = c;
    return CT_OK;
}

/* ---- loading files ------------------------------------------------------ */

/* The keys a file has given so far, as "section:key" in lower case, with the
 * line that gave each. */
typedef struct seen_keys {
    char **name;
    unsigned *line;
    size_t n, cap;
} seen_keys;

static void seen_free(seen_keys *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->name[i]);
    free(k->name);
    free(k->line);
}

/* Note key (of [section], "" outside any) given on lineno; a key given
 * before in the same section is an error (which of the two would count is
 * not obvious to the reader of the file). */
static int seen_key(seen_keys *k, const char *path, unsigned lineno, const char *section,
                    const char *key, size_t keylen, ct_error *err)
{
    char name[4096 + 128];
    int n = snprintf(name, sizeof name, "%s:%.*s", section, (int)keylen, key);

    for (char *p = name; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->name[i], name) == 0) {
            const char *bare = name + strlen(section) + 1;
            if (section[0])
                return ct_error_set(err, CT_E_CONFIG, "%s:%u: [%s] %s: given twice (first on "
                                    "line %u)", path, lineno, section, bare, k->line[i]);
            return ct_error_set(err, CT_E_CONFIG, "%s:%u: %s: given twice (first on line %u)",
                                path, lineno, bare, k->line[i]);
        }
    if (k->n == k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 32;
        char **nn = realloc(k->name, cap * sizeof *nn);
        unsigned *nl = nn ? realloc(k->line, cap * sizeof *nl) : NULL;
        if (nn)
            k->name = nn;
        if (!nn || !nl)
            return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
        k->line = nl;
        k->cap = cap;
    }
    if (n < 0 || !(k->name[k->n] = dup_str(name)))
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
    k->line[k->n++] = lineno;
    return CT_OK;
}

/* The first reading of a file: its syntax, no key given twice in one
 * section, and the file it includes (inc, "" for none). */
static int check_file(const char *path, char *inc, size_t incn, ct_error *err)
{
    ct_ini r;
    seen_keys keys = {0};
    int rc = ct_ini_begin(&r, path, err);

    inc[0] = '\0';
    while (rc == CT_OK && (rc = ct_ini_next(&r, err)) > 0) {
        if (rc == CT_INI_KEY) {
            rc = seen_key(&keys, path, r.lineno, r.section, r.key, strlen(r.key), err);
            if (rc == CT_OK && !r.section[0] && strcmp(r.key, "include") == 0)
                snprintf(inc, incn, "%s", r.value);
        } else {
            rc = CT_OK;
        }
    }
    ct_ini_end(&r);
    seen_free(&keys);
    return rc;
}

static void dir_of(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, n, ".");
    else
        snprintf(out, n, "%.*s", (int)(slash - path), path);
}

typedef struct load_stack {
    const char *real[MAX_INCLUDE_DEPTH];
    const char *given[MAX_INCLUDE_DEPTH];   /* the paths as named, for messages */
    int depth;
    int loop;                               /* the error is an include loop (named whole) */
} load_stack;

/* The second reading of a file, checked by check_file: every section and
 * key must be in the schema; the values are stored as text. */
static int apply_file(struct ct_config *c, const char *path, ct_error *err)
{
    ct_ini r;
    int rc = ct_ini_begin(&r, path, err), s = -1, row;

    while (rc == CT_OK && (rc = ct_ini_next(&r, err)) > 0) {
        if (rc == CT_INI_SECTION) {
            s = find_section(r.section);
            if (s < 0) {
                rc = ct_error_set(err, CT_E_CONFIG, "%s: [%s]: unknown section", path,
                                  r.section);
            } else {
                c->present[s] = 1;
                rc = CT_OK;
            }
            continue;
        }
        if (!r.section[0]) { /* a top-level key */
            rc = strcmp(r.key, "include") == 0
                     ? CT_OK
                     : ct_error_set(err, CT_E_CONFIG, "%s: %s: unknown top-level key (only "
                                    "include is allowed outside a section)", path, r.key);
            continue;
        }
        row = find_row(s, r.key);
        if (row < 0)
            rc = ct_error_set(err, CT_E_CONFIG, "%s: [%s] %s: unknown key", path, r.section,
                              r.key);
        else if (store_text(c, (size_t)row, r.value, path) != CT_OK)
            rc = ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
        else
            rc = CT_OK;
    }
    ct_ini_end(&r);
    return rc;
}

static int load_into(struct ct_config *c, const char *path, load_stack *stk, ct_error *err)
{
    char real[PATH_MAX], inc[PATH_MAX];
    int rc = CT_OK;

    if (!realpath(path, real))
        return ct_error_set(err, CT_E_IO, "%s: cannot open: %s", path, strerror(errno));
    for (int i = 0; i < stk->depth; i++)
        if (strcmp(stk->real[i], real) == 0) {
            /* name the files of the loop: "a.ini -> b.ini -> a.ini" */
            char chain[CT_ERRMSG_MAX];
            size_t used = 0;
            chain[0] = '\0';
            for (int k = i; k < stk->depth && used < sizeof chain; k++)
                used += (size_t)snprintf(chain + used, sizeof chain - used, "%s -> ",
                                         stk->given[k]);
            stk->loop = 1;
            return ct_error_set(err, CT_E_CONFIG, "%s: include loop: %s%s", stk->given[i],
                                chain, path);
        }
    if (stk->depth >= MAX_INCLUDE_DEPTH)
        return ct_error_set(err, CT_E_CONFIG, "%s: includes nested deeper than %d", path,
                            MAX_INCLUDE_DEPTH);
    rc = check_file(path, inc, sizeof inc, err);
    if (rc)
        return rc;
    stk->given[stk->depth] = path;
    stk->real[stk->depth++] = real;

    /* The include first, so that this file's keys win. */
    if (inc[0]) {
        char dir[PATH_MAX], incpath[PATH_MAX * 2];
        dir_of(path, dir, sizeof dir);
        if (inc[0] == '/')
            snprintf(incpath, sizeof incpath, "%s", inc);
        else
            snprintf(incpath, sizeof incpath, "%s/%s", dir, inc);
        rc = load_into(c, incpath, stk, err);
        if (rc) {
            if (rc == CT_E_IO)
                ct_error_set(err, CT_E_CONFIG, "%s: include %s: cannot open", path, inc);
            else if (!stk->loop)
                ct_error_prefix(err, "%s: include", path); /* say where it came from */
            stk->depth--;
            return err->code;
        }
    }
    rc = apply_file(c, path, err);
    stk->depth--;
    return rc;
}

int ct_config_load(ct_config **out, const char *path, ct_error *err)
{
    struct ct_config *c = config_alloc();
    load_stack stk = {.depth = 0};
    int rc;

    *out = NULL;
    if (!c)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", path);
    snprintf(c->path, sizeof c->path, "%s", path);
    rc = load_into(c, path, &stk, err);
    if (!rc)
        rc = resolve(c, err);
    if (rc) {
        ct_config_free(c);
        return rc;
    }
    *out = c;
    return CT_OK;
}

/* ---- editing ------------------------------------------------------------ */

/* Store one key's text without checking the whole configuration. The
 * origin names where the value came from in later errors; NULL means the
 * assignment itself after `prefix` ("-s l1d.size=64K" from the command
 * line, "l1d.size=64K" from a program). */
static int set_text(struct ct_config *c, const char *section, const char *key, const char *value,
                    const char *origin, const char *prefix, ct_error *err)
{
    char cli[1600];
    int s = find_section(section), r;

    if (!origin) {
        snprintf(cli, sizeof cli, "%s%s.%s=%s", prefix ? prefix : "", section, key, value);
        origin = cli;
        if (s >= 0 && !c->present[s])
            origins_of(c)->by_assignment[s] = 1;
    }
    if (s < 0)
        return ct_error_set(err, CT_E_CONFIG, "%s: [%s]: unknown section", origin, section);
    r = find_row(s, key);
    if (r < 0)
        return ct_error_set(err, CT_E_CONFIG, "%s: [%s] %s: unknown key", origin, section, key);
    if (store_text(c, (size_t)r, value, origin) != CT_OK)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", origin);
    c->present[s] = 1;
    return CT_OK;
}

/* Split "section.key=value" into its parts (in buf). */
static int split_assignment(const char *assignment, const char *prefix, char *buf, size_t n,
                            char **sec, char **key, char **val, ct_error *err)
{
    char *dot, *eq;

    if (snprintf(buf, n, "%s", assignment) >= (int)n)
        return ct_error_set(err, CT_E_USAGE, "%s%.40s...: setting too long", prefix,
                            assignment);
    eq = strchr(buf, '=');
    dot = strchr(buf, '.');
    if (!eq || !dot || dot > eq || dot == buf || dot + 1 == eq)
        return ct_error_set(err, CT_E_USAGE,
                            "%s%s: expected section.key=value (e.g. l1d.size=64K)", prefix,
                            assignment);
    *dot = '\0';
    *eq = '\0';
    *sec = buf;
    *key = dot + 1;
    *val = eq + 1;
    return CT_OK;
}

/* Exchange the contents of two configurations (with their origins). */
static void swap_configs(struct ct_config *a, struct ct_config *b)
{
    config_block tmp;
    memcpy(&tmp, a, sizeof tmp);
    memcpy(a, b, sizeof tmp);
    memcpy(b, &tmp, sizeof tmp);
}

/* The key that brings an absent structure into being ("size", "entries"),
 * NULL for sections that need none. */
static const char *creating_key(int s)
{
    if (ct_config_level_of_section(s) >= 0)
        return "size";
    for (int t = 0; t < CT_TLB_COUNT; t++)
        if (ct_config_section_of_tlb(t) == s)
            return "entries";
    return NULL;
}

/* Rule "absent structures" at the top: every section an assignment made
 * present has its creating key set. */
static int check_created(const struct ct_config *work, ct_error *err)
{
    for (size_t i = 0; i < nrows(); i++) {
        const int s = row_at(i)->section;
        const char *ck = creating_key(s);
        const char *name = section_at(s)->name;
        if (!ck || !origins_of(work)->by_assignment[s] || !work->present[s] ||
            !work->text[i] || work->text[row_of(s, ck)])
            continue;
        return ct_error_set(err, CT_E_CONFIG,
                            "%s: [%s] %s: this configuration has no [%s]; add it by setting its "
                            "%s too (%s.%s=...) or with an [%s] section in the file",
                            row_origin(work, i), name, row_at(i)->key, name, ck, name, ck,
                            name);
    }
    return CT_OK;
}

/*
 * Every change goes through here: the keys are set on a copy, the copy is
 * checked once (geometry too unless `values_only`), and only a valid copy
 * replaces the configuration. Keys come either as "section.key=value"
 * assignments (their origin: prefix + assignment) or as three parallel
 * arrays.
 */
static int apply(struct ct_config *c, size_t n, const char *const *assignments,
                 const char *const *sections, const char *const *keys,
                 const char *const *values, const char *origin, const char *prefix,
                 int values_only, ct_error *err)
{
    struct ct_config *work = NULL;
    char buf[512], *sec = NULL, *key = NULL, *val = NULL;
    int rc = ct_config_clone(&work, c, err);

    for (size_t i = 0; rc == CT_OK && i < n; i++) {
        if (assignments) {
            rc = split_assignment(assignments[i], prefix, buf, sizeof buf, &sec, &key, &val,
                                  err);
            if (rc == CT_OK)
                rc = set_text(work, sec, key, val, origin, prefix, err);
        } else {
            rc = set_text(work, sections[i], keys[i], values[i], origin, prefix, err);
        }
    }
    if (rc == CT_OK && values_only) {
        for (size_t i = 0; rc == CT_OK && i < nrows(); i++)
            rc = parse_text(work, i, err);
        origins_of(work)->unchecked = 1;
    } else if (rc == CT_OK && (rc = check_created(work, err)) == CT_OK) {
        rc = resolve(work, err);
        origins_of(work)->unchecked = 0;
    }
    if (rc == CT_OK)
        swap_configs(c, work);   /* the old contents are freed with `work` */
    ct_config_free(work);
    return rc;
}

int ct_config_set_all(ct_config *c, const char *const *assignments, size_t n, ct_error *err)
{
    return apply(c, n, assignments, NULL, NULL, NULL, NULL, "", 0, err);
}

int ct_config_set_list(ct_config *c, const char *prefix, const char *const *assignments, size_t n,
                       ct_error *err)
{
    return apply(c, n, assignments, NULL, NULL, NULL, NULL, prefix ? prefix : "", 0, err);
}

int ct_config_set_many(ct_config *c, const char *origin, size_t n, const char *const *sections,
                       const char *const *keys, const char *const *values, ct_error *err)
{
    return apply(c, n, NULL, sections, keys, values, origin, "", 0, err);
}

int ct_config_check(ct_config *c, ct_error *err)
{
    struct ct_config *work = NULL;
    int rc;

    if (!origins_of(c)->unchecked)
        return CT_OK;
    if ((rc = ct_config_clone(&work, c, err)) != CT_OK)
        return rc;
    if ((rc = check_created(work, err)) == CT_OK && (rc = resolve(work, err)) == CT_OK) {
        origins_of(work)->unchecked = 0;
        swap_configs(c, work);
    }
    ct_config_free(work);
    return rc;
}

int ct_config_checked(const ct_config *c, ct_config **tmp, const ct_config **use, ct_error *err)
{
    int rc;

    *tmp = NULL;
    *use = c;
    if (!origins_of(c)->unchecked)
        return CT_OK;
    if ((rc = ct_config_clone(tmp, c, err)) != CT_OK)
        return rc;
    if ((rc = ct_config_check(*tmp, err)) != CT_OK) {
        ct_config_free(*tmp);
        *tmp = NULL;
        return rc;
    }
    *use = *tmp;
    return CT_OK;
}

int ct_config_variants_init(ct_config_variants *v, const ct_config *base, ct_error *err)
{
    int rc = ct_config_clone(&v->c, base, err);
    for (size_t i = 0; rc == CT_OK && i < nrows(); i++)
        rc = parse_text(v->c, i, err);
    if (rc) {
        ct_config_free(v->c);
        v->c = NULL;
        return rc;
    }
    memcpy(v->parsed, v->c, sizeof v->parsed);
    if ((rc = check_all(v->c, err)) != CT_OK)
        ct_config_variants_free(v);
    return rc;
}

int ct_config_variants_set(ct_config_variants *v, const char *origin, size_t n,
                           const size_t *rows, const char *const *values, ct_error *err)
{
    size_t order[CT_CFG_MAX_ROWS];
    int rc;

    if (n > CT_CFG_MAX_ROWS)
        return ct_error_set(err, CT_E_CONFIG, "%s: more than %d keys", origin, CT_CFG_MAX_ROWS);
    for (size_t i = 0; i < n; i++) {
        size_t j;
        if (store_text(v->c, rows[i], values[i], origin) != CT_OK)
            return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", origin);
        v->c->present[row_at(rows[i])->section] = 1;
        order[i] = rows[i];
        for (j = i; j > 0 && order[j - 1] > order[j]; j--) {  /* schema order */
            size_t t = order[j - 1];
            order[j - 1] = order[j];
            order[j] = t;
        }
    }
    /* the other rows parse as they did in the base, whose parse succeeded */
    memcpy(v->c, v->parsed, sizeof v->parsed);
    for (size_t i = 0; i < n; i++)
        if ((rc = parse_text(v->c, order[i], err)) != CT_OK)
            return rc;
    return check_all(v->c, err);
}

void ct_config_variants_free(ct_config_variants *v)
{
    ct_config_free(v->c);
    v->c = NULL;
}

int ct_config_set_kv(ct_config *c, const char *section, const char *key, const char *value,
                     ct_error *err)
{
    return apply(c, 1, NULL, &section, &key, &value, NULL, "", 1, err);
}

int ct_config_set(ct_config *c, const char *assignment, ct_error *err)
{
    return apply(c, 1, &assignment, NULL, NULL, NULL, NULL, "", 1, err);
}

int ct_config_row(const char *section, const char *key)
{
    int s = find_section(section), r;

    if (s < 0)
        return CT_CFG_NO_SECTION;
    r = find_row(s, key);
    return r < 0 ? CT_CFG_NO_KEY : r;
}

int ct_config_check_row_value(size_t row, const char *value, ct_error *err)
{
    const ct_schema_row *r = row_at(row);
    union {
        uint64_t align;
        char bytes[256];    /* room for the largest field */
    } field;
    char why[384];

    if (r->field_size > sizeof field.bytes)
        return ct_error_set(err, CT_E_CONFIG, "internal: field too large");
    if (parse_row(field.bytes, r, value, why, sizeof why) != 0)
        return ct_error_set(err, CT_E_CONFIG, "%s", why);
    return CT_OK;
}

int ct_config_check_value(const char *section, const char *key, const char *value,
                          ct_error *err)
{
    int r = ct_config_row(section, key);
    ct_error e = {0};

    if (r == CT_CFG_NO_SECTION)
        return ct_error_set(err, CT_E_CONFIG, "[%s]: unknown section", section);
    if (r == CT_CFG_NO_KEY)
        return ct_error_set(err, CT_E_CONFIG, "[%s] %s: unknown key", section, key);
    if (ct_config_check_row_value((size_t)r, value, &e) != CT_OK)
        return ct_error_set(err, e.code, "[%s] %s: %s",
                            section_at(row_at(r)->section)->name,
                            row_at(r)->key, e.msg);
    return CT_OK;
}

int ct_config_remove_section(ct_config *c, const char *section, ct_error *err)
{
    int s = find_section(section);

    if (s < 0)
        return ct_error_set(err, CT_E_CONFIG, "[%s]: unknown section", section);
    if (!section_at(s)->optional)
        return ct_error_set(err, CT_E_CONFIG, "[%s]: this section cannot be removed", section);
    c->present[s] = 0;
    origins_of(c)->by_assignment[s] = 0;
    for (size_t i = 0; i < nrows(); i++)
        if (row_at(i)->section == s) {
            free(c->text[i]);
            free(origins_of(c)->of[i]);
            c->text[i] = NULL;
            origins_of(c)->of[i] = NULL;
        }
    return resolve(c, err);
}

/* ---- reading back ------------------------------------------------------- */

/* Canonical text of a row's parsed value. */
static const char *row_text(const struct ct_config *c, size_t i, char *buf, size_t n)
{
    const ct_schema_row *r = row_at(i);
    const char *field = (const char *)c + r->offset;

    switch (r->type) {
    case CT_VT_UINT:
    case CT_VT_SIZE:
    case CT_VT_ASSOC:
        snprintf(buf, n, "%llu", (unsigned long long)(r->field_size == 8
                                                          ? *(const uint64_t *)field
                                                          : *(const uint32_t *)field));
        return buf;
    case CT_VT_BOOL:
        if (*(const int *)field >= 2)
            return r->names[*(const int *)field - 2];
        return *(const int *)field ? "yes" : "no";
    case CT_VT_ENUM:
        return enum_name(r, (size_t) * (const int *)field);
    case CT_VT_STRING:
        return field;
    }
    return "";
}

int ct_config_visit(const ct_config *c, ct_config_visit_fn fn, void *ctx)
{
    char buf[64];
    for (size_t i = 0; i < nrows(); i++) {
        const ct_schema_row *r = row_at(i);
        int rc;
        if (!section_present(c, r->section))
            continue;
        rc = fn(ctx, section_at(r->section)->name, r->key, row_text(c, i, buf, sizeof buf));
        if (rc)
            return rc;
    }
    return 0;
}

const char *ct_config_get(const ct_config *c, const char *section, const char *key,
                          char *buf, size_t n)
{
    int s = find_section(section), r;

    if (s < 0 || !section_present(c, s) || (r = find_row(s, key)) < 0)
        return NULL;
    return row_text(c, (size_t)r, buf, n);
}

int ct_config_has_section(const ct_config *c, const char *section)
{
    int s = find_section(section);
    return s >= 0 && section_present(c, s);
}

const char *ct_config_path(const ct_config *c) { return c->path; }

uint32_t ct_config_cores(const struct ct_config *c) { return c->cores; }

uint32_t ct_config_op_line(const struct ct_config *c, int iside)
{
    static const int data_levels[] = {CT_LV_L1D, CT_LV_L2, CT_LV_L3};
    if (iside && ct_config_level_present(c, CT_LV_L1I))
        return c->cache[CT_LV_L1I].line;
    for (size_t i = 0; i < sizeof data_levels / sizeof data_levels[0]; i++)
        if (ct_config_level_present(c, data_levels[i]))
            return c->cache[data_levels[i]].line;
    return 0;
}

typedef struct hash_ctx { uint64_t h; } hash_ctx;

static void fnv(hash_ctx *hc, const char *s)
{
    for (; *s; s++) {
        hc->h ^= (unsigned char)*s;
        hc->h *= 0x100000001b3ull;
    }
}

static int hash_visit(void *ctx, const char *section, const char *key, const char *value)
{
    hash_ctx *hc = ctx;
    fnv(hc, section);
    fnv(hc, ".");
    fnv(hc, key);
    fnv(hc, "=");
    fnv(hc, value);
    fnv(hc, "\n");
    return 0;
}

uint64_t ct_config_hash(const ct_config *c)
{
    hash_ctx hc = {0xcbf29ce484222325ull};
    ct_config_visit(c, hash_visit, &hc);
    return hc.h;
}

/* ---- documentation ------------------------------------------------------ */

int ct_config_schema_row(size_t i, ct_config_key_doc *doc)
{
    static const char *const type_names[] = {
        [CT_VT_UINT] = "uint", [CT_VT_SIZE] = "size", [CT_VT_BOOL] = "bool",
        [CT_VT_ENUM] = "enum", [CT_VT_STRING] = "string", [CT_VT_ASSOC] = "ways",
    };
    const ct_schema_row *r;

    if (i >= nrows())
        return 0;
    r = row_at(i);
    switch (r->type) {
    case CT_VT_ENUM: enum_list(r, doc->range, sizeof doc->range); break;
    case CT_VT_BOOL:
        snprintf(doc->range, sizeof doc->range, "yes|no");
        for (size_t k = 0; r->names && r->names[k]; k++)
            snprintf(doc->range + strlen(doc->range), sizeof doc->range - strlen(doc->range),
                     "|%s", r->names[k]);
        break;
    case CT_VT_STRING: doc->range[0] = '\0'; break;
    case CT_VT_ASSOC:
        snprintf(doc->range, sizeof doc->range, "%llu..%llu|full", (unsigned long long)r->min,
                 (unsigned long long)r->max);
        break;
    default:
        snprintf(doc->range, sizeof doc->range, "%llu..%llu", (unsigned long long)r->min,
                 (unsigned long long)r->max);
    }
    doc->section = section_at(r->section)->name;
    doc->key = r->key;
    doc->type = type_names[r->type];
    doc->def = r->def;
    doc->help = r->help;
    return 1;
}
