/*
 * harness.h - the unit-test harness: CHECK macros that count, and a closing
 * "N passed, N failed" line. A test program returns 1 when anything failed.
 *
 *   TEST(name) { CHECK(x == 1); CHECK_EQ_U64(a, b); }
 *   int main(void) { RUN(name); return harness_done(); }
 *
 * CACHET_TEST=name in the environment runs only the test of that name (a
 * name no RUN gives is a failure, so a misspelt one cannot pass);
 * CACHET_TEST=list prints the names instead of running anything.
 */
#ifndef CT_HARNESS_H
#define CT_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int harness_passed, harness_failed, harness_ran;
static const char *harness_test = "";

#define TEST(name) static void name(void)

/* Whether RUN(name) runs its test (CACHET_TEST, above). */
static inline int harness_selected(const char *name)
{
    const char *only = getenv("CACHET_TEST");
    if (!only || !*only)
        return 1;
    if (strcmp(only, "list") == 0) {
        printf("%s\n", name);
        return 0;
    }
    return strcmp(only, name) == 0;
}

#define RUN(name)                           \
    do {                                    \
        if (harness_selected(#name)) {      \
            harness_test = #name;           \
            harness_ran++;                  \
            name();                         \
        }                                   \
    } while (0)

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (cond) {                                                                     \
            harness_passed++;                                                           \
        } else {                                                                        \
            harness_failed++;                                                           \
            fprintf(stderr, "FAIL %s (%s:%d): %s\n", harness_test, __FILE__, __LINE__,  \
                    #cond);                                                             \
        }                                                                               \
    } while (0)

#define CHECK_EQ_U64(got, want)                                                          \
    do {                                                                                 \
        uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                            \
        if (g_ == w_) {                                                                  \
            harness_passed++;                                                            \
        } else {                                                                         \
            harness_failed++;                                                            \
            fprintf(stderr, "FAIL %s (%s:%d): %s is %" PRIu64 ", want %" PRIu64 "\n",    \
                    harness_test, __FILE__, __LINE__, #got, g_, w_);                     \
        }                                                                                \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                                  \
    do {                                                                                 \
        const char *h_ = (hay), *n_ = (needle);                                          \
        if (h_ && strstr(h_, n_)) {                                                      \
            harness_passed++;                                                            \
        } else {                                                                         \
            harness_failed++;                                                            \
            fprintf(stderr, "FAIL %s (%s:%d): \"%s\" does not contain \"%s\"\n",          \
                    harness_test, __FILE__, __LINE__, h_ ? h_ : "(null)", n_);           \
        }                                                                                \
    } while (0)

/* A ct_writer's write function for a FILE * context (0, or -1 when short). */
static inline int harness_file_write(void *ctx, const char *data, size_t len)
{
    return fwrite(data, 1, len, (FILE *)ctx) == len ? 0 : -1;
}

static inline int harness_done(void)
{
    const char *only = getenv("CACHET_TEST");
    if (only && *only && strcmp(only, "list") != 0 && !harness_ran) {
        fprintf(stderr, "FAIL: no test named \"%s\"\n", only);
        harness_failed++;
    }
    printf("%d passed, %d failed\n", harness_passed, harness_failed);
    return harness_failed ? 1 : 0;
}

#endif
