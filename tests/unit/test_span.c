/*
 * test_span.c - span.h, the union of a job's intervals in one phase:
 * known cases (overlap, touch, nested, reversed, clipping, a full set
 * joining its nearest pair), then random intervals against a
 * millisecond-by-millisecond oracle: exact while at most SPAN_MAX
 * disjoint intervals have been needed, and after that never short of the
 * union nor past the first start and last end.
 */
#include <stdbool.h>
#include <string.h>

#include "engine/span.h"
#include "testutil.h"

#define ALL 0, UINT64_MAX

static void test_known(void **state)
{
    (void)state;
    span_set s = {0};
    span_add(&s, 10, 20);
    span_add(&s, 15, 30); /* overlaps */
    assert_int_equal(span_total(&s, ALL), 20);
    span_add(&s, 30, 40); /* touches */
    assert_int_equal(s.n, 1);
    span_add(&s, 12, 18); /* nested */
    span_add(&s, 50, 50); /* empty */
    span_add(&s, 60, 55); /* reversed */
    assert_int_equal(span_total(&s, ALL), 30);
    span_add(&s, 0, 5);
    span_add(&s, 100, 110);
    assert_int_equal(s.n, 3);
    assert_int_equal(span_total(&s, ALL), 45);
    span_add(&s, 3, 105); /* swallows all three */
    assert_int_equal(s.n, 1);
    assert_int_equal(span_total(&s, ALL), 110);
    assert_int_equal(span_total(&s, 50, 70), 20); /* clipped */
    assert_int_equal(span_total(&s, 200, 300), 0);
}

/* A full set joins the pair with the smallest gap: [10k, 10k+5) for k <
 * 16 with the gap after interval 7 made the smallest. */
static void test_full(void **state)
{
    (void)state;
    span_set s = {0};
    for (uint64_t k = 0; k < SPAN_MAX; k++) span_add(&s, 10 * k, 10 * k + (k == 7 ? 8 : 5));
    assert_int_equal(s.n, SPAN_MAX);
    assert_int_equal(span_total(&s, ALL), 5 * SPAN_MAX + 3);
    span_add(&s, 1000, 1001);
    assert_int_equal(s.n, SPAN_MAX);
    assert_int_equal(s.start[7], 70);
    assert_int_equal(s.end[7], 85); /* 70..78 and 80..85 across the gap of 2 */
    assert_int_equal(span_total(&s, ALL), 5 * SPAN_MAX + 5 + 1);
}

#define RANGE 600

static uint64_t oracle(const bool *on)
{
    uint64_t n = 0;
    for (int i = 0; i < RANGE; i++) n += on[i];
    return n;
}

static size_t runs(const bool *on)
{
    size_t n = 0;
    for (int i = 0; i < RANGE; i++) n += on[i] && (i == 0 || !on[i - 1]);
    return n;
}

static void test_random(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int round = 0; round < 2000; round++) {
        span_set s = {0};
        bool on[RANGE] = {0};
        uint64_t lo = RANGE, hi = 0;
        bool exact = true; /* no join yet: the oracle never needed more than SPAN_MAX runs */
        int n = 1 + (int)(cuzk_rng_u64(&g) % 40);
        for (int k = 0; k < n; k++) {
            uint64_t a = cuzk_rng_u64(&g) % RANGE, len = cuzk_rng_u64(&g) % 40;
            uint64_t b = a + len > RANGE ? RANGE : a + len;
            span_add(&s, a, b);
            for (uint64_t i = a; i < b; i++) on[i] = true;
            if (b > a && a < lo) lo = a;
            if (b > a && b > hi) hi = b;
            uint64_t got = span_total(&s, ALL), want = oracle(on);
            exact = exact && runs(on) <= SPAN_MAX;
            if (exact)
                assert_int_equal(got, want);
            else
                assert_true(got >= want && got <= hi - lo);
            for (size_t i = 0; i + 1 < s.n; i++) assert_true(s.end[i] < s.start[i + 1]);
        }
        uint64_t from = cuzk_rng_u64(&g) % RANGE, to = from + cuzk_rng_u64(&g) % RANGE;
        if (exact) {
            uint64_t want = 0;
            for (uint64_t i = from; i < to && i < RANGE; i++) want += on[i];
            assert_int_equal(span_total(&s, from, to), want);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
