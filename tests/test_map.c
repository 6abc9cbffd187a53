/*
 * test_map.c - the hash map of 64-bit keys (sim/map.h): what it holds after
 * insertions and deletions, against a plain list, across growth; the key
 * CT_MAP_EMPTY held aside; when the array doubles; the mix function.
 */
#include "harness.h"
#include "sim/map.h"

TEST(mix_is_splitmix64s_finaliser)
{
    CHECK_EQ_U64(ct_mix64(0), 0);
    CHECK_EQ_U64(ct_mix64(1), 0x5692161d100b05e5ull);
    /* SplitMix64 seeded with 0 first returns mix(0x9e3779b97f4a7c15) */
    CHECK_EQ_U64(ct_mix64(0x9e3779b97f4a7c15ull), 0xe220a8397b1dcdafull);
}

TEST(zeroed_map_is_empty)
{
    ct_map m = {0};
    CHECK(ct_map_find(&m, 0) == NULL);
    CHECK(ct_map_find(&m, CT_MAP_EMPTY) == NULL);
    CHECK_EQ_U64(ct_map_count(&m), 0);
    CHECK_EQ_U64(ct_map_del(&m, 5), 0);
    ct_map_free(&m);
    ct_map_free(NULL);
}

TEST(clear_keeps_the_slots_and_drops_every_key)
{
    ct_map m = {0};
    int added;
    ct_map_slot *slots;
    for (uint64_t k = 0; k < 40; k++)
        *ct_map_put(&m, k * 7, &added) = k;
    *ct_map_put(&m, CT_MAP_EMPTY, &added) = 1;
    slots = m.slot;
    ct_map_clear(&m);
    CHECK(m.slot == slots);
    CHECK_EQ_U64(ct_map_count(&m), 0);
    CHECK(ct_map_find(&m, 7) == NULL);
    CHECK(ct_map_find(&m, CT_MAP_EMPTY) == NULL);
    *ct_map_put(&m, 7, &added) = 3;
    CHECK(added);
    CHECK_EQ_U64(*ct_map_find(&m, 7), 3);
    ct_map_free(&m);
}

TEST(put_then_find_returns_the_same_value)
{
    ct_map m = {0};
    int added;
    uint64_t *v = ct_map_put(&m, 42, &added);
    CHECK(v != NULL && added == 1 && *v == 0);
    *v = 7;
    v = ct_map_put(&m, 42, &added);
    CHECK(v != NULL && added == 0 && *v == 7);
    CHECK(ct_map_find(&m, 42) != NULL && *ct_map_find(&m, 42) == 7);
    CHECK(ct_map_find(&m, 43) == NULL);
    CHECK_EQ_U64(ct_map_count(&m), 1);
    ct_map_free(&m);
}

TEST(the_empty_key_and_zero_are_keys)
{
    ct_map m = {0};
    int added;
    *ct_map_put(&m, CT_MAP_EMPTY, &added) = 1;
    CHECK(added == 1);
    *ct_map_put(&m, 0, &added) = 2;
    CHECK(added == 1);
    CHECK_EQ_U64(*ct_map_find(&m, CT_MAP_EMPTY), 1);
    CHECK_EQ_U64(*ct_map_find(&m, 0), 2);
    CHECK_EQ_U64(ct_map_count(&m), 2);
    CHECK_EQ_U64(m.used, 1); /* only 0 is in the array */
    CHECK_EQ_U64(ct_map_del(&m, CT_MAP_EMPTY), 1);
    CHECK(ct_map_find(&m, CT_MAP_EMPTY) == NULL);
    CHECK_EQ_U64(ct_map_count(&m), 1);
    ct_map_free(&m);
}

TEST(array_doubles_past_three_quarters)
{
    ct_map m = {0};
    int added;
    for (uint64_t k = 1; k <= 12; k++)
        ct_map_put(&m, k, &added);
    CHECK_EQ_U64(m.mask + 1, 16); /* 12 of 16 */
    ct_map_put(&m, 13, &added);
    CHECK_EQ_U64(m.mask + 1, 32);
    ct_map_put(&m, 13, &added); /* present: no growth */
    CHECK_EQ_U64(m.mask + 1, 32);
    ct_map_free(&m);
    CHECK_EQ_U64(ct_map_reserve(&m, 24), 0);
    CHECK_EQ_U64(m.mask + 1, 32);
    CHECK_EQ_U64(ct_map_reserve(&m, 25), 0);
    CHECK_EQ_U64(m.mask + 1, 64);
    ct_map_free(&m);
}

/* Random insertions and deletions (fixed seed) on a small key range, so
 * that runs collide and wrap, checked against a plain array. */
TEST(agrees_with_a_plain_array)
{
    enum { KEYS = 600, STEPS = 200000 };
    static uint64_t want[KEYS];
    static int has[KEYS];
    ct_map m = {0};
    uint64_t x = 12345, bad = 0, count = 0;

    for (int s = 0; s < STEPS; s++) {
        uint64_t k, key;
        int added;
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        k = (x >> 33) % KEYS;
        key = k * 0x100000000ull; /* keys alike in their low bits */
        if ((x >> 20) % 3 == 0) {
            if ((uint64_t)ct_map_del(&m, key) != (uint64_t)has[k])
                bad++;
            count -= has[k];
            has[k] = 0;
        } else {
            uint64_t *v = ct_map_put(&m, key, &added);
            if (!v || added != !has[k] || (has[k] && *v != want[k]))
                bad++;
            count += !has[k];
            has[k] = 1;
            want[k] = x;
            if (v)
                *v = x;
        }
    }
    for (uint64_t k = 0; k < KEYS; k++) {
        const uint64_t *v = ct_map_find(&m, k * 0x100000000ull);
        if (has[k] ? !v || *v != want[k] : v != NULL)
            bad++;
    }
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(ct_map_count(&m), count);
    ct_map_free(&m);
}

int main(void)
{
    RUN(mix_is_splitmix64s_finaliser);
    RUN(zeroed_map_is_empty);
    RUN(clear_keeps_the_slots_and_drops_every_key);
    RUN(put_then_find_returns_the_same_value);
    RUN(the_empty_key_and_zero_are_keys);
    RUN(array_doubles_past_three_quarters);
    RUN(agrees_with_a_plain_array);
    return harness_done();
}
