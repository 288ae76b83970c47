/*
 * test_engine_budget.c - the memory budget (src/engine/budget.h): exact
 * accounting, immediate failure beyond the total, blocking until a release,
 * the evictor asked before waiting, cancellation and close; the
 * non-blocking budget_try_reserve; budget_hold counting memory held for
 * good past the total, later reservations waiting until use is under it
 * again, and what is held out of every reservation's room; waiters served in priority order (a
 * HIGH waiter has the memory before LOW ones that waited longer, equal
 * priorities in arrival order, a newcomer never ahead of a waiter that
 * fits, a waiter that does not fit holding no one back); and which waiter
 * gives way to which (dispatch.h rule 8, dispatch_gives_way_locked).
 */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/budget.h"
#include "engine/dispatch.h"
#include "testutil.h"

typedef struct waiter {
    budget *b;
    uint64_t bytes;
    int rc;
    int done;
    bool cancel;
    int priority;
    const void *tag;      /* what it is for */
    bool rule8;           /* its wait also ends when it gives way (dispatch.h rule 8) */
    uint64_t patience_ms; /* rule 8's srs.swap_after */
} waiter;

static bool waiter_cancelled(void *ctx)
{
    waiter *w = ctx;
    if (__atomic_load_n(&w->cancel, __ATOMIC_ACQUIRE)) return true;
    return w->rule8 && dispatch_gives_way_locked(w->b, w->priority, w->patience_ms);
}

static void *reserve_thread(void *arg)
{
    waiter *w = arg;
    w->rc = budget_reserve(w->b, w->bytes, w->priority, w->tag, waiter_cancelled, w, "test", NULL);
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
    return budget_reserve(b, bytes, 0, NULL, always, NULL, "try", NULL) == 0;
}

static void test_accounting(void **state)
{
    (void)state;
    budget b;
    cuzk_err err;
    budget_init(&b, 1000, NULL, NULL);
    assert_int_equal(budget_reserve(&b, 600, 0, NULL, NULL, NULL, "a", &err), 0);
    assert_true(try_reserve(&b, 400));
    assert_false(try_reserve(&b, 1));
    assert_int_equal(budget_used(&b), 1000);
    budget_release(&b, 400);
    assert_int_equal(budget_used(&b), 600);
    assert_int_equal(budget_reserve(&b, 1001, 0, NULL, NULL, NULL, "huge", &err), CUZK_ENOMEM);
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
    waiter w = {&b, 50, -1, 0, false, 0, NULL, false, 0};
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

/* budget_hold: memory held for good outside the work (the devices' host
 * memory) counted at once, past the total; a reservation then waits until
 * the use is back under it. What is held is out of the room: a
 * reservation larger than the room fails at once naming it, and so does a
 * waiter once the held memory grows past what it could ever have (both
 * waited for ever before: the soak's tight budget on the H200);
 * budget_unhold gives it back. */
static void test_hold_past_total(void **state)
{
    (void)state;
    const uint64_t M = 1 << 20;
    budget b;
    budget_init(&b, 100 * M, NULL, NULL);
    assert_true(try_reserve(&b, 80 * M));
    budget_hold(&b, 50 * M);
    assert_int_equal(budget_used(&b), 130 * M);
    assert_int_equal(b.peak, 130 * M);
    assert_int_equal(budget_room(&b), 50 * M);
    assert_int_equal(budget_held(&b), 50 * M);
    assert_false(budget_try_reserve(&b, 1, 0));
    waiter w = {&b, 10 * M, -1, 0, false, 0, NULL, false, 0};
    pthread_t t;
    pthread_create(&t, NULL, reserve_thread, &w);
    usleep(150 * 1000);
    assert_int_equal(__atomic_load_n(&w.done, __ATOMIC_ACQUIRE), 0);
    budget_release(&b, 30 * M); /* 100: still no room for 10 */
    usleep(150 * 1000);
    assert_int_equal(__atomic_load_n(&w.done, __ATOMIC_ACQUIRE), 0);
    budget_release(&b, 50 * M); /* 50 */
    pthread_join(t, NULL);
    assert_int_equal(w.rc, 0);
    assert_int_equal(budget_used(&b), 60 * M);

    cuzk_err err;
    assert_int_equal(budget_reserve(&b, 51 * M, 0, NULL, NULL, NULL, "big", &err), CUZK_ENOMEM);
    assert_non_null(strstr(err.msg, "big needs 51 MiB, more than the budget's room (50 MiB"));
    assert_true(try_reserve(&b, 30 * M)); /* 90 */
    waiter w2 = {&b, 40 * M, -1, 0, false, 0, NULL, false, 0};
    pthread_create(&t, NULL, reserve_thread, &w2);
    usleep(150 * 1000);
    assert_int_equal(__atomic_load_n(&w2.done, __ATOMIC_ACQUIRE), 0);
    budget_hold(&b, 20 * M); /* room 30: never enough for 40 */
    pthread_join(t, NULL);
    assert_int_equal(w2.rc, CUZK_ENOMEM);
    budget_unhold(&b, 70 * M);
    assert_int_equal(budget_held(&b), 0);
    assert_int_equal(budget_room(&b), 100 * M);
    assert_int_equal(budget_used(&b), 40 * M);
    budget_destroy(&b);
}

typedef struct evictor_state {
    budget *b;
    uint64_t held, asked;
} evictor_state;

static uint64_t evict(void *ctx, uint64_t need, int priority, uint64_t waited_ms)
{
    (void)priority, (void)waited_ms;
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
    assert_true(budget_try_reserve(&b, 30, 0));
    assert_false(budget_try_reserve(&b, 1, 0));
    assert_int_equal(s.asked, 0);
    budget_release(&b, 30);
    assert_int_equal(budget_reserve(&b, 60, 0, NULL, NULL, NULL, "x", NULL), 0);
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
    waiter w = {&b, 10, -1, 0, false, 0, NULL, false, 0};
    pthread_t t;
    pthread_create(&t, NULL, reserve_thread, &w);
    usleep(50 * 1000);
    __atomic_store_n(&w.cancel, true, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    assert_int_equal(w.rc, CUZK_ECANCELLED);
    waiter w2 = {&b, 10, -1, 0, false, 0, NULL, false, 0};
    pthread_create(&t, NULL, reserve_thread, &w2);
    usleep(50 * 1000);
    budget_close(&b);
    pthread_join(t, NULL);
    assert_int_equal(w2.rc, CUZK_ECANCELLED);
    budget_release(&b, 50);
    assert_false(budget_try_reserve(&b, 10, 0)); /* closed */
    assert_int_equal(budget_used(&b), 50);
    budget_destroy(&b);
}

static bool done(waiter *w)
{
    return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

/* Waits up to 5 s for n of the waiters to be linked in the budget. */
static void until_waiting(budget *b, uint32_t n)
{
    for (int i = 0; i < 5000; i++) {
        pthread_mutex_lock(&b->lock);
        uint32_t k = 0;
        for (const budget_waiter *w = b->waiters; w; w = w->next) k++;
        pthread_mutex_unlock(&b->lock);
        if (k >= n) return;
        usleep(1000);
    }
    fail_msg("%u waiters expected", n);
}

/* Memory that frees goes to the highest-priority waiter it is enough for:
 * a HIGH waiter that came last has it before four LOW ones (each round;
 * unordered, the LOW ones would win four times in five), then the LOW
 * ones in the order they came. */
static void test_priority_order(void **state)
{
    (void)state;
    budget b;
    budget_init(&b, 100, NULL, NULL);
    for (int round = 0; round < 3; round++) {
        assert_true(budget_try_reserve(&b, 100, 0));
        waiter w[5];
        pthread_t t[5];
        for (int i = 0; i < 5; i++) {
            w[i] = (waiter){&b, 60, -1, 0, false, i == 4 ? 3 : 1, NULL, false, 0};
            pthread_create(&t[i], NULL, reserve_thread, &w[i]);
            until_waiting(&b, (uint32_t)i + 1); /* arrival order: w[0] first */
        }
        budget_release(&b, 100);
        for (int i = 0; i < 300 && !done(&w[4]); i++) usleep(1000);
        usleep(50 * 1000); /* a LOW one that went would be done by now too */
        assert_true(done(&w[4]));
        for (int i = 0; i < 4; i++) assert_false(done(&w[i]));
        for (int i = 0; i < 4; i++) { /* then the LOW ones, oldest first */
            budget_release(&b, 60);
            for (int k = 0; k < 3000 && !done(&w[i]); k++) usleep(1000);
            assert_true(done(&w[i]));
            for (int j = i + 1; j < 4; j++) assert_false(done(&w[j]));
        }
        for (int i = 0; i < 5; i++) pthread_join(t[i], NULL), assert_int_equal(w[i].rc, 0);
        budget_release(&b, 60);
        assert_int_equal(budget_used(&b), 0);
    }
    budget_destroy(&b);
}

/* A newcomer waits behind a waiter of its priority or higher that fits,
 * not behind one that does not fit yet. */
static void test_newcomer_and_big_waiter(void **state)
{
    (void)state;
    budget b;
    budget_init(&b, 100, NULL, NULL);
    assert_true(budget_try_reserve(&b, 90, 0));
    waiter big = {&b, 80, -1, 0, false, 3, NULL, false, 0};
    pthread_t t;
    pthread_create(&t, NULL, reserve_thread, &big);
    until_waiting(&b, 1);
    assert_true(budget_try_reserve(&b, 10, 1));  /* the HIGH 80 does not fit: no one held */
    budget_release(&b, 80);                      /* 80 free: the HIGH waiter's */
    assert_false(budget_try_reserve(&b, 10, 2)); /* a NORMAL newcomer waits */
    pthread_join(t, NULL);
    assert_int_equal(big.rc, 0);
    assert_int_equal(budget_used(&b), 100);
    budget_release(&b, 100);
    budget_destroy(&b);
}

static uint64_t ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)(t.tv_sec - t0->tv_sec) * 1000 + (uint64_t)(t.tv_nsec / 1000000) -
           (uint64_t)(t0->tv_nsec / 1000000);
}

static void until_done(waiter *w, uint64_t ms)
{
    for (uint64_t i = 0; i < ms && !done(w); i++) usleep(1000);
}

/* Dispatch rule 8's choice (dispatch_gives_way_locked, asked by a
 * partition's wait for memory): of one priority a waiter gives way only to
 * an older waiter for another set (tag) once that has waited the patience
 * without fitting, never to one for its own set or to a younger one; to
 * a higher waiter at once; never to a lower one. */
static void test_gives_way(void **state)
{
    (void)state;
    budget b;
    budget_init(&b, 100, NULL, NULL);
    assert_true(budget_try_reserve(&b, 90, 0));
    int set_a, set_b;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    waiter old = {&b, 50, -1, 0, false, 2, &set_a, false, 0};
    waiter same = {&b, 20, -1, 0, false, 2, &set_a, true, 300};
    waiter other = {&b, 20, -1, 0, false, 2, &set_b, true, 300};
    waiter low = {&b, 20, -1, 0, false, 1, &set_b, true, 300};
    waiter high = {&b, 20, -1, 0, false, 3, &set_b, true, 0};
    pthread_t t[5];
    waiter *w[5] = {&old, &same, &other, &low, &high};
    for (int i = 0; i < 3; i++) {
        pthread_create(&t[i], NULL, reserve_thread, w[i]);
        until_waiting(&b, (uint32_t)i + 1);
    }
    usleep(100 * 1000);
    assert_false(done(&other)); /* the old one has not waited 300 ms yet */
    until_done(&other, 3000);
    assert_true(done(&other));
    assert_int_equal(other.rc, CUZK_ECANCELLED);
    assert_true(ms_since(&t0) >= 300);
    usleep(100 * 1000);
    assert_false(done(&same));                         /* waits for the set it is for: never */
    pthread_create(&t[3], NULL, reserve_thread, &low); /* below waiters: at once */
    until_done(&low, 3000);
    assert_int_equal(low.rc, CUZK_ECANCELLED);
    pthread_create(&t[4], NULL, reserve_thread, &high);
    until_done(&same, 3000); /* a higher one waits: the NORMAL ones give way at once */
    assert_int_equal(same.rc, CUZK_ECANCELLED);
    usleep(100 * 1000);
    assert_false(done(&high)); /* nothing above it */
    assert_false(done(&old));  /* not a partition's wait: never gives way */
    budget_release(&b, 90);    /* the HIGH one first, then the old one */
    until_done(&high, 3000), until_done(&old, 3000);
    assert_int_equal(high.rc, 0);
    assert_int_equal(old.rc, 0);
    for (int i = 0; i < 5; i++) pthread_join(t[i], NULL);
    assert_int_equal(budget_used(&b), 70);
    budget_release(&b, 70);
    budget_destroy(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accounting),
        cmocka_unit_test(test_blocks_until_release),
        cmocka_unit_test(test_hold_past_total),
        cmocka_unit_test(test_evictor_first),
        cmocka_unit_test(test_cancel_and_close),
        cmocka_unit_test(test_priority_order),
        cmocka_unit_test(test_newcomer_and_big_waiter),
        cmocka_unit_test(test_gives_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
