/*
 * test_engine_batch.c - the batch collector's flush rules
 * (src/engine/batch.h): full, deadline from the first request, another
 * circuit or a non-batchable request flushes first, cancel removes.
 */
#include "engine/batch.h"
#include "testutil.h"

static void test_full_and_deadline(void **state)
{
    (void)state;
    batcher b;
    int jobs[3];
    void *out[BATCH_MAX];
    batcher_init(&b, 2, 500);
    assert_int_equal(batcher_deadline(&b), UINT64_MAX);
    batcher_add(&b, &jobs[0], "porep-32g", 1000);
    assert_false(batcher_full(&b));
    assert_int_equal(batcher_deadline(&b), 1500);
    assert_false(batcher_must_flush_for(&b, "porep-32g", true));
    batcher_add(&b, &jobs[1], "porep-32g", 1200);
    assert_true(batcher_full(&b));
    assert_int_equal(batcher_deadline(&b), 1500); /* from the first request */
    assert_int_equal(batcher_take(&b, out), 2);
    assert_ptr_equal(out[0], &jobs[0]);
    assert_ptr_equal(out[1], &jobs[1]);
    assert_int_equal(batcher_deadline(&b), UINT64_MAX);
    batcher_add(&b, &jobs[2], "porep-32g", 2000);
    assert_int_equal(batcher_deadline(&b), 2500);
}

static void test_flush_rules(void **state)
{
    (void)state;
    batcher b;
    int job;
    batcher_init(&b, 4, 10000);
    assert_false(batcher_must_flush_for(&b, "snap-32g", true)); /* nothing pending */
    assert_false(batcher_must_flush_for(&b, "winning-32g", false));
    batcher_add(&b, &job, "porep-32g", 0);
    assert_true(batcher_must_flush_for(&b, "snap-32g", true));     /* another circuit */
    assert_true(batcher_must_flush_for(&b, "winning-32g", false)); /* not batchable */
    assert_true(batcher_must_flush_for(&b, "porep-32g", false));
    assert_false(batcher_must_flush_for(&b, "porep-32g", true));
}

static void test_remove_and_clamp(void **state)
{
    (void)state;
    batcher b;
    int jobs[3];
    void *out[BATCH_MAX];
    batcher_init(&b, 1000, 1);
    assert_int_equal(b.max_size, BATCH_MAX);
    batcher_init(&b, 0, 1);
    assert_int_equal(b.max_size, 1);
    batcher_init(&b, 3, 1);
    for (int i = 0; i < 3; i++) batcher_add(&b, &jobs[i], "c", 0);
    assert_true(batcher_remove(&b, &jobs[1]));
    assert_false(batcher_remove(&b, &jobs[1]));
    assert_int_equal(batcher_take(&b, out), 2);
    assert_ptr_equal(out[0], &jobs[0]);
    assert_ptr_equal(out[1], &jobs[2]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_and_deadline),
        cmocka_unit_test(test_flush_rules),
        cmocka_unit_test(test_remove_and_clamp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
