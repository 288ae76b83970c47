/*
 * test_engine_budget.c - the memory budget (src/engine/budget.h): exact
 * accounting, immediate failure beyond the total, blocking until a release,
 * the evictor asked before waiting, cancellation and close; the
 * non-blocking budget_try_reserve.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "engine/budget.h"
#include "testutil.h"

typedef struct waiter {
    budget *b;
    uint64_t bytes;
    int rc;
    int done;
    bool cancel;
} waiter;

static bool waiter_cancelled(void *ctx)
{
    return __atomic_load_n(&((waiter *)ctx)->cancel, __ATOMIC_ACQUIRE);
}

static void *reserve_thread(void *arg)
{
    waiter *w = arg;
    w->rc = budget_reserve(w->b, w->bytes, waiter_cancelled, w, "test", NULL);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static bool always(void *ctx)
{
    (void)ctx;
    return true;
}

/* Reserves only if it fits now (a reservation cancelled before it waits). */
static bool try_reserve(budget *b, uint64_t bytes)
{
    return budget_reserve(b, bytes, always, NULL, "try", NULL) == 0;
}

static void test_accounting(void **state)
{
    (void)state;
    budget b;
    cuzk_err err;
    budget_init(&b, 1000, NULL, NULL);
    assert_int_equal(budget_reserve(&b, 600, NULL, NULL, "a", &err), 0);
    assert_true(try_reserve(&b, 400));
    assert_false(try_reserve(&b, 1));
    assert_int_equal(budget_used(&b), 1000);
    budget_release(&b, 400);
    assert_int_equal(budget_used(&b), 600);
    assert_int_equal(budget_reserve(&b, 1001, NULL, NULL, "huge", &err), CUZK_ENOMEM);
    assert_non_null(strstr(err.msg, "huge"));
    assert_int_equal(b.peak, 1000);
    budget_destroy(&b);
}

static void test_blocks_until_release(void **state)
{
    (void)state;
    budget b;
    budget_init(&b, 100, NULL, NULL);
    assert_true(try_reserve(&b, 80));
    waiter w = {&b, 50, -1, 0, false};
    pthread_t t;
    pthread_create(&t, NULL, reserve_thread, &w);
    usleep(150 * 1000);
    assert_int_equal(__atomic_load_n(&w.done, __ATOMIC_ACQUIRE), 0);
    budget_release(&b, 80);
    pthread_join(t, NULL);
    assert_int_equal(w.rc, 0);
    assert_int_equal(budget_used(&b), 50);
    budget_destroy(&b);
}

typedef struct evictor_state {
    budget *b;
    uint64_t held, asked;
} evictor_state;

static uint64_t evict(void *ctx, uint64_t need)
{
    evictor_state *s = ctx;
    s->asked = need;
    uint64_t freed = s->held;
    if (freed) budget_release(s->b, freed);
    s->held = 0;
    return freed;
}

static void test_evictor_first(void **state)
{
    (void)state;
    budget b;
    evictor_state s = {&b, 70, 0};
    budget_init(&b, 100, evict, &s);
    assert_true(try_reserve(&b, 70)); /* the evictable 70 */
    /* budget_try_reserve neither evicts nor waits */
    assert_true(budget_try_reserve(&b, 30));
    assert_false(budget_try_reserve(&b, 1));
    assert_int_equal(s.asked, 0);
    budget_release(&b, 30);
    assert_int_equal(budget_reserve(&b, 60, NULL, NULL, "x", NULL), 0);
    assert_int_equal(s.asked, 30); /* 70 + 60 - 100 */
    assert_int_equal(budget_used(&b), 60);
    budget_destroy(&b);
}

static void test_cancel_and_close(void **state)
{
    (void)state;
    budget b;
    budget_init(&b, 100, NULL, NULL);
    assert_true(try_reserve(&b, 100));
    waiter w = {&b, 10, -1, 0, false};
    pthread_t t;
    pthread_create(&t, NULL, reserve_thread, &w);
    usleep(50 * 1000);
    __atomic_store_n(&w.cancel, true, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    assert_int_equal(w.rc, CUZK_ECANCELLED);
    waiter w2 = {&b, 10, -1, 0, false};
    pthread_create(&t, NULL, reserve_thread, &w2);
    usleep(50 * 1000);
    budget_close(&b);
    pthread_join(t, NULL);
    assert_int_equal(w2.rc, CUZK_ECANCELLED);
    budget_release(&b, 50);
    assert_false(budget_try_reserve(&b, 10)); /* closed */
    assert_int_equal(budget_used(&b), 50);
    budget_destroy(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accounting),
        cmocka_unit_test(test_blocks_until_release),
        cmocka_unit_test(test_evictor_first),
        cmocka_unit_test(test_cancel_and_close),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
