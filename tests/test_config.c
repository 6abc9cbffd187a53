/*
 * test_config.c - the configuration parser against a corpus of good and bad
 * INI files (tests/configs/), plus -s settings, hashing and cloning.
 * Every bad file starts with "; expect: TEXT": loading it must fail with
 * CT_E_CONFIG (or CT_E_IO) and a message containing TEXT and the file name.
 */
#include <dirent.h>
#include <unistd.h>

#include "harness.h"
#include "cachet/cachet.h"
#include "sim/config_internal.h"

static ct_config *load(const char *path)
{
    ct_config *c = NULL;
    ct_error err = {0};
    if (ct_config_load(&c, path, &err) != CT_OK)
        fprintf(stderr, "load %s: %s\n", path, err.msg);
    return c;
}

static const char *get(const ct_config *c, const char *sec, const char *key)
{
    static char buf[64];
    const char *v = ct_config_get(c, sec, key, buf, sizeof buf);
    return v ? v : "(absent)";
}

TEST(bad_files_fail_with_their_reason)
{
    DIR *d = opendir("tests/configs/bad");
    struct dirent *e;
    int files = 0;

    CHECK(d != NULL);
    while (d && (e = readdir(d)) != NULL) {
        char path[512], first[512], *want;
        FILE *f;
        ct_config *c = NULL;
        ct_error err = {0};
        int rc;

        if (!strstr(e->d_name, ".ini"))
            continue;
        snprintf(path, sizeof path, "tests/configs/bad/%s", e->d_name);
        f = fopen(path, "r");
        CHECK(f && fgets(first, sizeof first, f));
        if (f)
            fclose(f);
        first[strcspn(first, "\n")] = '\0';
        want = strstr(first, "expect: ");
        CHECK(want != NULL);
        if (!want)
            continue;
        want += 8;
        rc = ct_config_load(&c, path, &err);
        CHECK(rc == CT_E_CONFIG || rc == CT_E_IO);
        CHECK(c == NULL);
        CHECK_STR_CONTAINS(err.msg, want);
        CHECK_STR_CONTAINS(err.msg, "tests/configs/bad/");
        files++;
    }
    if (d)
        closedir(d);
    CHECK(files >= 20);
}

TEST(good_files_load)
{
    const char *files[] = {"minimal", "empty_sections", "full_assoc", "non_pow2_sets",
                           "include_base", "include_child", "hex_and_case", "translation",
                           "comments"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[256];
        ct_config *c;
        snprintf(path, sizeof path, "tests/configs/good/%s.ini", files[i]);
        c = load(path);
        CHECK(c != NULL);
        ct_config_free(c);
    }
}

TEST(values_are_resolved)
{
    ct_config *c = load("tests/configs/good/include_child.ini");
    CHECK(c != NULL);
    if (!c)
        return;
    CHECK(strcmp(get(c, "l1d", "size"), "65536") == 0);   /* from the base */
    CHECK(strcmp(get(c, "l1d", "assoc"), "8") == 0);      /* the child wins */
    CHECK(strcmp(get(c, "memory", "latency"), "150") == 0);
    CHECK(strcmp(get(c, "l1d", "line"), "64") == 0);      /* default */
    CHECK(ct_config_has_section(c, "l1d"));
    CHECK(!ct_config_has_section(c, "l2"));
    CHECK(ct_config_get(c, "l2", "size", NULL, 0) == NULL);
    ct_config_free(c);

    c = load("tests/configs/good/hex_and_case.ini");
    CHECK(c != NULL);
    if (!c)
        return;
    CHECK(strcmp(get(c, "system", "cores"), "2") == 0);
    CHECK(strcmp(get(c, "system", "seed"), "16") == 0);
    CHECK(strcmp(get(c, "l1d", "write_back"), "no") == 0);
    CHECK(strcmp(get(c, "l1d", "replacement"), "lru") == 0);
    CHECK(strcmp(get(c, "l1d", "size"), "32768") == 0);
    ct_config_free(c);

    c = load("tests/configs/good/full_assoc.ini");
    CHECK(c && strcmp(get(c, "l1d", "assoc"), "64") == 0);
    ct_config_free(c);
}

/* The INI reader's rules (sim/ini.c), which configurations and sweep files
 * share: comments after a blank, ';' and '#' kept inside a value, quotes. */
TEST(comments_follow_a_blank_and_quotes_keep_text)
{
    ct_config *c = load("tests/configs/good/comments.ini");
    CHECK(c != NULL);
    if (!c)
        return;
    CHECK(strcmp(get(c, "l1d", "size"), "16384") == 0);
    CHECK(strcmp(get(c, "l1d", "assoc"), "4") == 0);
    CHECK(strcmp(get(c, "l1d", "tarmac_name"), "core;l1#d") == 0);
    CHECK(strcmp(get(c, "l2", "size"), "262144") == 0);
    CHECK(strcmp(get(c, "l2", "tarmac_name"), "shared ; l2 # x") == 0);
    CHECK(strcmp(get(c, "l2", "replacement"), "lru") == 0);
    ct_config_free(c);
}

/* Each kind of line, read by ct_ini_next from a small file. */
TEST(ini_reader_yields_sections_keys_and_line_numbers)
{
    char path[64];
    FILE *f;
    ct_ini r;
    ct_error err = {0};

    snprintf(path, sizeof path, "/tmp/cachet-ini-%d.ini", (int)getpid());
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("Top = 1\n\n  [ L1D ]  \nSize=4K;x ; y\nk =\n[a]\nbad line\n", f);
    fclose(f);
    CHECK_EQ_U64(ct_ini_begin(&r, path, &err), CT_OK);
    CHECK_EQ_U64(ct_ini_next(&r, &err), CT_INI_KEY);
    CHECK(strcmp(r.section, "") == 0 && strcmp(r.key, "top") == 0 && strcmp(r.value, "1") == 0);
    CHECK_EQ_U64(r.lineno, 1);
    CHECK_EQ_U64(ct_ini_next(&r, &err), CT_INI_SECTION);
    CHECK(strcmp(r.section, "l1d") == 0);
    CHECK_EQ_U64(r.lineno, 3);
    CHECK_EQ_U64(ct_ini_next(&r, &err), CT_INI_KEY);
    CHECK(strcmp(r.section, "l1d") == 0 && strcmp(r.key, "size") == 0);
    CHECK(strcmp(r.value, "4K;x") == 0);
    CHECK_EQ_U64(ct_ini_next(&r, &err), CT_INI_KEY);
    CHECK(strcmp(r.key, "k") == 0 && strcmp(r.value, "") == 0);
    CHECK_EQ_U64(ct_ini_next(&r, &err), CT_INI_SECTION);
    CHECK((uint64_t)ct_ini_next(&r, &err) == (uint64_t)CT_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, ".ini:7: syntax error: expected key = value");
    ct_ini_end(&r);
    remove(path);
}

TEST(translation_sections_resolve)
{
    ct_config *c = load("tests/configs/good/translation.ini");
    CHECK(c != NULL);
    if (!c)
        return;
    CHECK(strcmp(get(c, "itlb", "entries"), "64") == 0);
    CHECK(strcmp(get(c, "itlb", "replacement"), "plru") == 0);
    CHECK(strcmp(get(c, "itlb", "tarmac_walk_name"), "ITLB") == 0);
    CHECK(strcmp(get(c, "dtlb", "assoc"), "48") == 0);     /* full = entries */
    CHECK(strcmp(get(c, "dtlb", "latency"), "0") == 0);    /* default */
    CHECK(strcmp(get(c, "stlb", "assoc"), "6") == 0);
    CHECK(strcmp(get(c, "stlb", "tarmac_name"), "cpu.cpu{cpu}.S1TLB") == 0);
    CHECK(strcmp(get(c, "walkcache", "assoc"), "8") == 0);
    CHECK(strcmp(get(c, "walk", "granule"), "16384") == 0);
    CHECK(strcmp(get(c, "walk", "cache"), "l2") == 0);
    CHECK(strcmp(get(c, "walk", "tables"), "synthetic") == 0);
    CHECK(strcmp(get(c, "walk", "max_tables"), "1024") == 0);
    ct_config_free(c);

    /* absent translation sections stay absent */
    c = load("tests/configs/good/minimal.ini");
    CHECK(c && !ct_config_has_section(c, "itlb") && !ct_config_has_section(c, "walk"));
    ct_config_free(c);
}

TEST(settings_apply_together_or_not_at_all)
{
    ct_config *c = NULL;
    ct_error err = {0};
    const char *both[] = {"l1d.size=256", "l1d.assoc=2"};
    const char *half_bad[] = {"l1d.size=512", "l1d.assoc=3"};
    uint64_t h;

    CHECK(ct_config_new_default(&c, &err) == CT_OK);
    h = ct_config_hash(c);
    /* alone, size=256 is impossible with the default 8 ways */
    CHECK(ct_config_set_all(c, both, 1, &err) == CT_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, "l1d.size=256: [l1d] assoc: 8 ways exceed the 4 lines");
    CHECK(strstr(err.msg, "-s ") == NULL); /* the library knows no command line */
    CHECK(ct_config_hash(c) == h); /* unchanged */
    CHECK(ct_config_set_list(c, "-s ", both, 1, &err) == CT_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, "-s l1d.size=256: [l1d] assoc: 8 ways exceed the 4 lines");
    CHECK(ct_config_set_all(c, both, 2, &err) == CT_OK);
    CHECK(strcmp(get(c, "l1d", "size"), "256") == 0);
    CHECK(ct_config_hash(c) != h);
    h = ct_config_hash(c);
    CHECK(ct_config_set_all(c, half_bad, 2, &err) == CT_E_CONFIG);
    CHECK(strcmp(get(c, "l1d", "size"), "256") == 0); /* rolled back */
    CHECK(ct_config_hash(c) == h);
    CHECK(ct_config_set(c, "l1d.sise=1K", &err) == CT_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, "[l1d] sise: unknown key");
    CHECK(ct_config_set(c, "l1dsize=1K", &err) == CT_E_USAGE);
    {   /* a key of an absent level alone makes no level of the default size */
        const char *lat[] = {"l3.latency=30", "l3.size=4M"};
        CHECK(ct_config_set_list(c, "-s ", lat, 1, &err) == CT_E_CONFIG);
        CHECK_STR_CONTAINS(err.msg, "-s l3.latency=30: [l3] latency: this configuration has no "
                                    "[l3]; add it by setting its size too (l3.size=...)");
        CHECK(!ct_config_has_section(c, "l3"));
        CHECK(ct_config_set_list(c, "-s ", lat, 2, &err) == CT_OK);
        CHECK(ct_config_has_section(c, "l3"));
        CHECK(ct_config_remove_section(c, "l3", &err) == CT_OK);
    }
    CHECK(ct_config_set(c, "l3.size=4M", &err) == CT_OK); /* creates the section */
    CHECK(ct_config_has_section(c, "l3"));
    CHECK(ct_config_remove_section(c, "l3", &err) == CT_OK);
    CHECK(!ct_config_has_section(c, "l3"));
    ct_config_free(c);
}

/* ct_config_set checks a value alone; the geometry waits for
 * ct_config_check or ct_sim_create, so keys go in one at a time. */
TEST(keys_set_one_at_a_time)
{
    ct_config *c = NULL;
    ct_sim *s = NULL;
    ct_error err = {0};

    CHECK(ct_config_new_default(&c, &err) == CT_OK);
    CHECK(ct_config_set(c, "l1d.size=64", &err) == CT_OK);   /* 1 line, 8 ways: not yet */
    CHECK(ct_config_set(c, "l1d.assoc=9x", &err) == CT_E_CONFIG); /* a bad value is at once */
    CHECK_STR_CONTAINS(err.msg, "l1d.assoc=9x: [l1d] assoc:");
    CHECK(ct_config_check(c, &err) == CT_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, "[l1d] assoc: 8 ways exceed the 1 lines");
    CHECK(ct_sim_create(&s, c, &err) == CT_E_CONFIG && s == NULL);
    CHECK(ct_config_set(c, "l1d.assoc=1", &err) == CT_OK);
    CHECK(ct_sim_create(&s, c, &err) == CT_OK && s != NULL);
    CHECK(s && ct_sim_level_info(s, 0)->sets == 1 && ct_sim_level_info(s, 0)->assoc == 1);
    if (s) {   /* one access at a time: a 1-line L1D */
        ct_kind_stats l1;
        CHECK(ct_sim_feed(s, CT_LOAD, 0, 8, &err) == CT_OK);
        CHECK(ct_sim_feed(s, CT_STORE, 8, 8, &err) == CT_OK);      /* same line: hit */
        CHECK(ct_sim_feed_at(s, CT_LOAD, 64, 8, 0x400, 0, &err) == CT_OK); /* evicts it */
        CHECK(ct_sim_feed(s, CT_LOAD, 0, 8, &err) == CT_OK);       /* miss again */
        CHECK(ct_sim_feed(s, CT_CACHEOP, 0, 8, &err) == CT_E_USAGE);
        CHECK_STR_CONTAINS(err.msg, "access kind 4");
        CHECK(ct_sim_feed_at(s, CT_LOAD, 0, 8, 0, 1, &err) == CT_E_USAGE);
        CHECK_STR_CONTAINS(err.msg, "core 1: the model has 1 core");
        l1 = ct_level_total(ct_sim_level_stats(s, 0));
        CHECK_EQ_U64(l1.accesses, 4);
        CHECK_EQ_U64(l1.hits, 1);
        CHECK_EQ_U64(l1.misses, 3);
    }
    ct_sim_free(s);
    CHECK(ct_config_check(c, &err) == CT_OK);
    /* an absent structure needs its size key, set before or after the others */
    CHECK(ct_config_set(c, "itlb.latency=1", &err) == CT_OK);
    CHECK(ct_config_check(c, &err) == CT_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, "itlb.latency=1: [itlb] latency: this configuration has no "
                                "[itlb]; add it by setting its entries too (itlb.entries=...)");
    CHECK(ct_sim_create(&s, c, &err) == CT_E_CONFIG && s == NULL);
    CHECK(ct_config_set(c, "itlb.entries=16", &err) == CT_OK);
    CHECK(ct_config_check(c, &err) == CT_OK);
    CHECK(ct_config_set(c, "l1i.line=32", &err) == CT_OK);
    CHECK(ct_config_set(c, "l1i.size=1K", &err) == CT_OK);
    CHECK(ct_config_check(c, &err) == CT_OK);
    ct_config_free(c);
}

TEST(write_policies_take_nofetch)
{
    ct_config *c = NULL;
    ct_error err = {0};

    CHECK(ct_config_new_default(&c, &err) == CT_OK);
    CHECK(ct_config_set(c, "l1d.write_allocate=nofetch", &err) == CT_OK);
    CHECK(ct_config_set(c, "l1d.write_back=NoFetch", &err) == CT_OK);
    CHECK(strcmp(get(c, "l1d", "write_allocate"), "nofetch") == 0);
    CHECK(strcmp(get(c, "l1d", "write_back"), "nofetch") == 0);
    CHECK(ct_config_set(c, "l1d.write_back=true", &err) == CT_OK);
    CHECK(strcmp(get(c, "l1d", "write_back"), "yes") == 0);
    CHECK(ct_config_set(c, "l1d.write_back=fetch", &err) == CT_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, "\"fetch\" is not yes or no or nofetch");
    CHECK(ct_config_set(c, "system.flush_at_end=nofetch", &err) == CT_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, "\"nofetch\" is not yes or no");
    ct_config_free(c);
}

TEST(clone_is_deep_and_hash_is_stable)
{
    ct_config *a = load("tests/configs/good/include_child.ini"), *b = NULL;
    ct_error err = {0};
    CHECK(a != NULL);
    if (!a)
        return;
    CHECK(ct_config_clone(&b, a, &err) == CT_OK);
    CHECK(ct_config_hash(a) == ct_config_hash(b));
    CHECK(ct_config_set(b, "l1d.assoc=4", &err) == CT_OK);
    CHECK(strcmp(get(a, "l1d", "assoc"), "8") == 0);
    CHECK(ct_config_hash(a) != ct_config_hash(b));
    ct_config_free(a);
    ct_config_free(b);
}

/* Variants parse only the keys they set: a "full" associativity the base
 * resolved to its own line count follows each variant's size, and a
 * variant that fails says what ct_config_set_many says, leaving the next
 * variant whole. */
TEST(variants_equal_set_many_on_a_copy)
{
    const char *base_keys[] = {"l1d.size=8K", "l1d.line=64", "l1d.assoc=full"};
    const char *sec[] = {"l1d"}, *key[] = {"size"};
    const char *sizes[] = {"4K", "100", "16K"}, *ways[] = {"64", NULL, "256"};
    ct_config *base = NULL;
    ct_config_variants v = {0};
    ct_error err = {0};
    const size_t row = (size_t)ct_config_row("L1D", "Size");
    CHECK(ct_config_row("l1d", "size") >= 0 && ct_config_row("l1d", "sise") == CT_CFG_NO_KEY &&
          ct_config_row("l2x", "size") == CT_CFG_NO_SECTION);
    CHECK(ct_config_new_default(&base, &err) == CT_OK);
    CHECK(base && ct_config_set_all(base, base_keys, 3, &err) == CT_OK);
    CHECK(base && strcmp(get(base, "l1d", "assoc"), "128") == 0);
    if (!base || ct_config_variants_init(&v, base, &err) != CT_OK) {
        CHECK(!"no variants");
        ct_config_free(base);
        return;
    }
    for (int i = 0; i < 3; i++) {
        ct_config *want = NULL;
        ct_error e1 = {0}, e2 = {0};
        int r1, r2;
        CHECK(ct_config_clone(&want, base, &err) == CT_OK);
        if (!want)
            break;
        r1 = ct_config_set_many(want, "s.ini", 1, sec, key, &sizes[i], &e1);
        r2 = ct_config_variants_set(&v, "s.ini", 1, &row, &sizes[i], &e2);
        CHECK(r1 == r2);
        CHECK(strcmp(e1.msg, e2.msg) == 0);
        if (ways[i]) {
            CHECK(r2 == CT_OK);
            CHECK(strcmp(get(v.c, "l1d", "assoc"), ways[i]) == 0);
            CHECK(ct_config_hash(v.c) == ct_config_hash(want));
        } else {
            CHECK(r2 == CT_E_CONFIG);
            CHECK_STR_CONTAINS(e2.msg, "s.ini: [l1d] size: 100 is not a multiple");
        }
        ct_config_free(want);
    }
    ct_config_variants_free(&v);
    ct_config_free(base);
}

TEST(sizes_parse_strictly)
{
    uint64_t v = 0;
    CHECK(ct_parse_size("64K", &v) == 0 && v == 65536);
    CHECK(ct_parse_size("1m", &v) == 0 && v == 1048576);
    CHECK(ct_parse_size("2G", &v) == 0 && v == 2147483648ull);
    CHECK(ct_parse_size("0x40", &v) == 0 && v == 64);
    CHECK(ct_parse_size("042", &v) == 0 && v == 42); /* decimal, never octal */
    CHECK(ct_parse_size("64kb", &v) != 0); /* kilobits? refused */
    CHECK(ct_parse_size("32KB", &v) == 0 && v == 32768);
    CHECK(ct_parse_size("32KiB", &v) == 0 && v == 32768);
    CHECK(ct_parse_size("8MiB", &v) == 0 && v == 8388608);
    CHECK(ct_parse_size("1GB", &v) == 0 && v == 1073741824ull);
    CHECK(ct_parse_size("32Ki", &v) != 0);
    CHECK(ct_parse_size("32B", &v) != 0);   /* a B needs a multiplier before it */
    CHECK(ct_parse_size("32KBB", &v) != 0);
    CHECK(ct_parse_size("K", &v) != 0);
    CHECK(ct_parse_size("", &v) != 0);
    CHECK(ct_parse_size("99999999999999999999", &v) != 0);
    CHECK(ct_parse_size("16777216T", &v) != 0); /* overflows 64 bits */
}

TEST(sizes_format_as_they_parse)
{
    char b[32];
    ct_format_size(65536, b, sizeof b);
    CHECK(strcmp(b, "64K") == 0);
    ct_format_size(3ull << 20, b, sizeof b);
    CHECK(strcmp(b, "3M") == 0);
    ct_format_size(64ull << 30, b, sizeof b);
    CHECK(strcmp(b, "64G") == 0);
    ct_format_size(1536, b, sizeof b); /* 1.5 K: no exact suffix */
    CHECK(strcmp(b, "1536") == 0);
    ct_format_size(0, b, sizeof b);
    CHECK(strcmp(b, "0") == 0);
    ct_format_size(1ull << 20, b, 3); /* cut to the buffer, terminated */
    CHECK(strcmp(b, "1M") == 0);
}

TEST(schema_documents_every_key)
{
    ct_config_key_doc d;
    size_t n = 0;
    while (ct_config_schema_row(n, &d)) {
        CHECK(d.section && d.key && d.type && d.def && d.help && d.help[0]);
        n++;
    }
    CHECK(n > 40);
}

/* The trace readers' blocks join the model's: one [trace] section whose
 * keys follow the trace layer's then Tarmac's block, [tt6] last, each
 * block's struct inside the configuration. */
TEST(reader_blocks_gather_into_one_schema)
{
    const ct_schema *s = ct_schema_get();
    ct_config *c = NULL;
    ct_error err = {0};
    size_t trace_sections = 0, next_fetch = 0, containers = 0;

    CHECK(s->fault == NULL);
    for (size_t i = 0; i < s->nsections; i++)
        trace_sections += strcmp(s->sections[i].name, "trace") == 0;
    CHECK(trace_sections == 1);
    for (size_t i = 0; i < s->nrows; i++) {
        if (strcmp(s->rows[i].key, "tarmac_next_fetch") == 0)
            next_fetch = i;
        if (strcmp(s->rows[i].key, "containers") == 0)
            containers = i;
    }
    CHECK(containers > 0 && next_fetch == containers + 1);
    CHECK(strcmp(s->sections[s->rows[s->nrows - 1].section].name, "tt6") == 0);
    CHECK(ct_config_new_default(&c, &err) == CT_OK);
    CHECK(ct_config_set(c, "trace.tarmac_next_fetch=yes", &err) == CT_OK);
    CHECK(*(const int *)ct_config_options(c, &ct_tarmac_schema) == 1);
    CHECK((const char *)ct_config_options(c, &ct_tt6_schema) >= (const char *)c->options);
    CHECK((const char *)ct_config_options(c, &ct_tt6_schema) + ct_tt6_schema.size <=
          (const char *)c->options + sizeof c->options);
    ct_config_free(c);
}

/* The line a cache operation covers: the L1I on the instruction side, else
 * the first data level; 0 without caches. */
TEST(cache_operation_line_follows_the_levels)
{
    ct_config *c = NULL;
    ct_error err = {0};
    const char *geo[] = {"l2.line=128", "l1i.size=32K", "l1i.line=32"};

    CHECK(ct_config_new_empty(&c, &err) == CT_OK);
    CHECK(ct_config_op_line(c, 0) == 0 && ct_config_op_line(c, 1) == 0);
    CHECK(ct_config_set(c, "l2.size=1M", &err) == CT_OK);
    CHECK(ct_config_set_all(c, geo, 1, &err) == CT_OK);
    CHECK(ct_config_op_line(c, 0) == 128 && ct_config_op_line(c, 1) == 128);
    CHECK(ct_config_set_all(c, geo + 1, 2, &err) == CT_OK);
    CHECK(ct_config_op_line(c, 0) == 128 && ct_config_op_line(c, 1) == 32);
    ct_config_free(c);
}

int main(void)
{
    RUN(bad_files_fail_with_their_reason);
    RUN(good_files_load);
    RUN(comments_follow_a_blank_and_quotes_keep_text);
    RUN(ini_reader_yields_sections_keys_and_line_numbers);
    RUN(translation_sections_resolve);
    RUN(values_are_resolved);
    RUN(settings_apply_together_or_not_at_all);
    RUN(keys_set_one_at_a_time);
    RUN(write_policies_take_nofetch);
    RUN(clone_is_deep_and_hash_is_stable);
    RUN(variants_equal_set_many_on_a_copy);
    RUN(sizes_parse_strictly);
    RUN(sizes_format_as_they_parse);
    RUN(schema_documents_every_key);
    RUN(reader_blocks_gather_into_one_schema);
    RUN(cache_operation_line_follows_the_levels);
    return harness_done();
}
