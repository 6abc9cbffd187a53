/*
 * test_sweep_file.c - sweep files: what a sweep file may say, the points it
 * expands to and the impossible ones it skips.
 */
#include "sweep_fixture.h"

static int load_fails_with(const char *text, const char *want)
{
    ct_sweep *sw = NULL;
    ct_error err = {0};
    int rc = ct_sweep_load(&sw, write_file("bad.ini", text), &err);
    ct_sweep_free(sw);
    if (rc == CT_OK || !strstr(err.msg, want)) {
        fprintf(stderr, "  load of:\n%s  gave %d \"%s\", want \"%s\"\n", text, rc, err.msg, want);
        return 0;
    }
    return 1;
}

TEST(rejects_bad_files)
{
    CHECK(load_fails_with("[sweep]\nl1d.sise = 1 2\n", "bad.ini: [sweep] l1d.sise: unknown key"));
    CHECK(load_fails_with("[sweep]\nl9.size = 1 2\n", "[sweep] l9.size: unknown section"));
    CHECK(load_fails_with("[sweep]\nl1d.size = 4X 8K\n",
                          "bad.ini: [sweep] l1d.size: \"4X\" is not a size"));
    CHECK(load_fails_with("[sweep]\nl1d.size = 8K..4K x2\n", "is an empty range"));
    CHECK(load_fails_with("[sweep]\nl1d.size = 4K..8K\n", "needs a factor (x2) or a step"));
    CHECK(load_fails_with("[sweep]\nl1d.size = 4K..8K x1\n", "never reaches the end"));
    CHECK(load_fails_with("[sweep]\nl1d.size = 4K 8K\nl1d.assoc = 1 2 4\nzip = l1d.size l1d.assoc\n",
                          "[sweep] zip: l1d.size has 2 values, l1d.assoc has 3"));
    CHECK(load_fails_with("[sweep]\nl1d.size = 4K\nl1d.size = 8K\n", "l1d.size: given twice"));
    CHECK(load_fails_with("[sweep]\nl1d.size 4K\n", "bad.ini:2: syntax error"));
    CHECK(load_fails_with("colour = red\n[sweep]\nl1d.size = 4K\n", "colour: unknown top-level key"));
    CHECK(load_fails_with("[l1d]\nsize = 3000\n[sweep]\nl1d.assoc = 1\n", "bad.ini: [l1d] size:"));
    CHECK(load_fails_with("[l1d]\nline = 64\n", "[sweep]: no keys to vary"));
    CHECK(load_fails_with("base = nothere.ini\n[sweep]\nl1d.size = 4K\n",
                          "bad.ini: base: "));
    CHECK(load_fails_with("base = nothere.ini\n[sweep]\nl1d.size = 4K\n",
                          "/nothere.ini: cannot open: No such file or directory"));
}

TEST(expands_ranges_lists_and_zips_in_product_order)
{
    ct_sweep *sw = NULL;
    ct_error err = {0};
    int rc = ct_sweep_load(&sw, write_file("ok.ini",
                               "[l1d]\nline = 64\n[l2]\nsize = 64K\n[sweep]\n"
                               "l1d.size = 4K..16K x2 ; 4K 8K 16K\n"
                               "l2.latency = 10..40 +10\n"
                               "l1d.assoc = 1 full\n"
                               "l1d.latency = 2 3\nzip = l1d.assoc l1d.latency\n"),
                           &err);
    CHECK(rc == CT_OK);
    if (rc != CT_OK) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    CHECK_EQ_U64(ct_sweep_nparams(sw), 4);
    CHECK_EQ_U64(ct_sweep_npoints(sw), 3 * 4 * 2);
    CHECK_EQ_U64(ct_sweep_nskipped(sw), 0);
    /* the first key varies slowest; zipped keys move together */
    CHECK(strcmp(ct_sweep_point_value(sw, 0, 0), "4096") == 0);
    CHECK(strcmp(ct_sweep_point_value(sw, 0, 1), "10") == 0);
    CHECK(strcmp(ct_sweep_point_value(sw, 1, 2), "full") == 0);
    CHECK(strcmp(ct_sweep_point_value(sw, 1, 3), "3") == 0);
    CHECK(strcmp(ct_sweep_point_value(sw, 2, 1), "20") == 0);
    CHECK(strcmp(ct_sweep_point_value(sw, 23, 0), "16384") == 0);
    CHECK(strcmp(ct_sweep_point_value(sw, 23, 1), "40") == 0);
    {
        char buf[64];
        CHECK(strcmp(ct_config_get(ct_sweep_point_config(sw, 1), "l1d", "assoc", buf, 64),
                     "64") == 0);
    }
    ct_sweep_free(sw);
}

TEST(skips_and_lists_impossible_points)
{
    ct_sweep *sw = load_ok("skip.ini",
                           "[l1d]\nline = 64\n[sweep]\nl1d.size = 4K 8K\nl1d.assoc = 64 128\n");
    CHECK(sw != NULL);
    if (!sw)
        return;
    CHECK_EQ_U64(ct_sweep_npoints(sw), 3);
    CHECK_EQ_U64(ct_sweep_nskipped(sw), 1);
    CHECK_STR_CONTAINS(ct_sweep_skipped(sw, 0),
                       "l1d.size=4K l1d.assoc=128: [l1d] assoc: 128 ways exceed the 64 lines");
    ct_sweep_free(sw);
}

/* Points are checked on one scratch configuration and built on first use:
 * a point after a skipped one is built as the base with its own values, and
 * its configuration is the one ct_config_set_many gives. */
TEST(points_after_a_skipped_one_are_the_base_with_their_values)
{
    const char *secs[] = {"l1d", "l1d"}, *keys[] = {"size", "assoc"},
               *vals[] = {"4K", "full"};
    ct_sweep *sw = load_ok("scratch.ini", "[l1d]\nline = 64\nlatency = 7\n[sweep]\n"
                                          "l1d.size = 8K 4K\nl1d.assoc = 128 full\n");
    ct_config *base = NULL, *want = NULL;
    ct_error err = {0};
    char buf[64];
    CHECK(sw != NULL);
    if (!sw)
        return;
    /* 8K/128, 8K/full, 4K/128 (skipped: 64 lines), 4K/full */
    CHECK_EQ_U64(ct_sweep_npoints(sw), 3);
    CHECK_EQ_U64(ct_sweep_nskipped(sw), 1);
    CHECK(strcmp(ct_sweep_point_value(sw, 2, 0), "4096") == 0);
    CHECK(strcmp(ct_sweep_point_value(sw, 2, 1), "full") == 0);
    CHECK(ct_config_load(&base, write_file("scratch-base.ini", "[l1d]\nline = 64\nlatency = 7\n"),
                         &err) == CT_OK);
    CHECK(base && ct_config_clone(&want, base, &err) == CT_OK);
    CHECK(want && ct_config_set_many(want, "x", 2, secs, keys, vals, &err) == CT_OK);
    if (want && ct_sweep_point_config(sw, 2)) {
        CHECK_EQ_U64(ct_config_hash(ct_sweep_point_config(sw, 2)), ct_config_hash(want));
        CHECK(strcmp(ct_config_get(ct_sweep_point_config(sw, 2), "l1d", "assoc", buf, 64),
                     "64") == 0);
        CHECK(strcmp(ct_config_get(ct_sweep_point_config(sw, 0), "l1d", "assoc", buf, 64),
                     "128") == 0);
    } else {
        CHECK(!"point 2 or the wanted configuration was not built");
    }
    ct_config_free(want);
    ct_config_free(base);
    ct_sweep_free(sw);
}

/* --emit-configs frees each point once written; a point used again is
 * built again, the same. */
TEST(a_released_point_is_built_again_the_same)
{
    ct_sweep *sw = load_ok("release.ini", "[l1d]\nline = 64\n[sweep]\n"
                                          "l1d.size = 8K 16K\nl1d.assoc = 2 4\n");
    const ct_config *c;
    uint64_t h = 0;
    char buf[64];
    CHECK(sw != NULL);
    if (!sw)
        return;
    CHECK(strcmp(ct_sweep_point_value(sw, 3, 0), "16384") == 0);
    CHECK(strcmp(ct_sweep_point_value(sw, 3, 1), "4") == 0);
    c = ct_sweep_point_config(sw, 3);
    CHECK(c != NULL);
    if (c)
        h = ct_config_hash(c);
    ct_sweep_point_release(sw, 3);
    ct_sweep_point_release(sw, 3);   /* nothing left to free */
    ct_sweep_point_release(sw, 1);   /* never built */
    c = ct_sweep_point_config(sw, 3);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_U64(ct_config_hash(c), h);
        CHECK(strcmp(ct_config_get(c, "l1d", "assoc", buf, sizeof buf), "4") == 0);
    }
    ct_sweep_free(sw);
}

int main(void)
{
    if (fixture_start() != 0)
        return 1;
    RUN(rejects_bad_files);
    RUN(expands_ranges_lists_and_zips_in_product_order);
    RUN(skips_and_lists_impossible_points);
    RUN(points_after_a_skipped_one_are_the_base_with_their_values);
    RUN(a_released_point_is_built_again_the_same);
    return fixture_done();
}
