/*
 * test_engine_sched.c - the scheduler's priority heap (src/engine/sched.h)
 * against a sort of the same keys: priority first, then age (FIFO within a
 * priority), then partition; removal by predicate keeps the heap ordered;
 * keys rewritten in place (sched_rekey) are re-ordered; the dispatch
 * policy's aging rule (dispatch.h, rule 2) with numbers, and the order in
 * which synthesized partitions enter the GPU queue (rule 4).
 */
#include <stdlib.h>
#include <string.h>

#include "engine/dispatch.h"
#include "engine/sched.h"
#include "testutil.h"

typedef struct entry {
    sched_key key;
    int id;
} entry;

static int cmp_entries(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (sched_before(&x->key, &y->key)) return -1;
    return sched_before(&y->key, &x->key) ? 1 : 0;
}

static entry *random_entries(cuzk_rng *g, size_t n)
{
    entry *e = malloc(n * sizeof *e);
    for (size_t i = 0; i < n; i++) {
        e[i].key.priority = 1 + (int)(cuzk_rng_u64(g) % 4);
        e[i].key.seq = cuzk_rng_u64(g) % 50;
        e[i].key.partition = (uint32_t)(cuzk_rng_u64(g) % 10);
        e[i].id = (int)i;
    }
    return e;
}

static void test_pop_order_matches_sort(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    size_t n = 2000;
    entry *e = random_entries(&g, n);
    sched_queue q;
    sched_init(&q);
    for (size_t i = 0; i < n; i++) assert_int_equal(sched_push(&q, e[i].key, &e[i]), 0);
    entry *sorted = malloc(n * sizeof *sorted); /* the heap points into e */
    memcpy(sorted, e, n * sizeof *e);
    qsort(sorted, n, sizeof *sorted, cmp_entries);
    for (size_t i = 0; i < n; i++) {
        entry *got = sched_pop(&q);
        assert_non_null(got);
        /* Equal keys may come in any order; the keys must match. */
        assert_int_equal(got->key.priority, sorted[i].key.priority);
        assert_int_equal(got->key.seq, sorted[i].key.seq);
        assert_int_equal(got->key.partition, sorted[i].key.partition);
    }
    assert_null(sched_pop(&q));
    sched_free(&q);
    free(sorted);
    free(e);
}

static void test_critical_overtakes_and_fifo(void **state)
{
    (void)state;
    sched_queue q;
    sched_init(&q);
    int porep[6], winning = 99;
    /* Two PoRep jobs (seq 0, 1), three partitions each, then a CRITICAL job. */
    for (int i = 0; i < 6; i++) {
        porep[i] = i;
        sched_push(&q, (sched_key){2, (uint64_t)(i / 3), (uint32_t)(i % 3), 0}, &porep[i]);
    }
    sched_push(&q, (sched_key){4, 2, 0, 0}, &winning);
    assert_ptr_equal(sched_pop(&q), &winning);
    for (int i = 0; i < 6; i++) assert_ptr_equal(sched_pop(&q), &porep[i]);
    sched_free(&q);
}

static bool drop_odd(void *item, void *ctx)
{
    (*(int *)ctx)++;
    return ((entry *)item)->id % 2;
}

static void test_remove_if(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    size_t n = 500;
    entry *e = random_entries(&g, n);
    sched_queue q;
    sched_init(&q);
    for (size_t i = 0; i < n; i++) sched_push(&q, e[i].key, &e[i]);
    int calls = 0;
    assert_int_equal(sched_remove_if(&q, drop_odd, &calls), n / 2);
    assert_int_equal(calls, n);
    const entry *prev = NULL;
    for (entry *got; (got = sched_pop(&q)); prev = got) {
        assert_int_equal(got->id % 2, 0);
        if (prev) assert_false(sched_before(&got->key, &prev->key));
    }
    sched_free(&q);
    free(e);
}

/* Rule 2: LOW counts as NORMAL once it waited aging_ms, not a
 * millisecond before; nothing else moves, and aging 0 never ages. */
static void test_aging_rule(void **state)
{
    (void)state;
    sched_key low = {.priority = ENGINE_PRIO_LOW, .seq = 1, .since_ms = 1000};
    assert_int_equal(dispatch_priority(&low, 1000, 300), ENGINE_PRIO_LOW);
    assert_int_equal(dispatch_priority(&low, 1299, 300), ENGINE_PRIO_LOW);
    assert_int_equal(dispatch_priority(&low, 1300, 300), ENGINE_PRIO_NORMAL);
    assert_int_equal(dispatch_priority(&low, 1000000, 300), ENGINE_PRIO_NORMAL);
    assert_int_equal(dispatch_priority(&low, 1000000, 0), ENGINE_PRIO_LOW);
    assert_int_equal(dispatch_priority(&low, 999, 300), ENGINE_PRIO_LOW); /* clock before it */
    for (int p = ENGINE_PRIO_NORMAL; p <= ENGINE_PRIO_CRITICAL; p++) {
        sched_key k = {.priority = p, .since_ms = 0};
        assert_int_equal(dispatch_priority(&k, 1000000, 300), p);
    }
}

static bool age_all(sched_key *key, void *item, void *ctx)
{
    (void)item, (void)ctx;
    if (key->priority != ENGINE_PRIO_LOW) return false;
    key->priority = ENGINE_PRIO_NORMAL;
    return true;
}

/* A LOW job (seq 0) behind NORMAL ones (seq 1..3) and a CRITICAL one:
 * once its keys are raised to NORMAL it goes before the younger NORMAL
 * jobs, still after the CRITICAL one. */
static void test_rekey_reorders(void **state)
{
    (void)state;
    sched_queue q;
    sched_init(&q);
    int low[2] = {0, 1}, normal[3] = {2, 3, 4}, critical = 5;
    for (int i = 0; i < 2; i++)
        sched_push(&q, (sched_key){ENGINE_PRIO_LOW, 0, (uint32_t)i, 0}, &low[i]);
    for (int i = 0; i < 3; i++)
        sched_push(&q, (sched_key){ENGINE_PRIO_NORMAL, (uint64_t)i + 1, 0, 0}, &normal[i]);
    sched_push(&q, (sched_key){ENGINE_PRIO_CRITICAL, 4, 0, 0}, &critical);
    assert_int_equal(sched_first(&q)->priority, ENGINE_PRIO_CRITICAL);
    assert_int_equal(sched_rekey(&q, age_all, NULL), 2);
    int *want[] = {&critical, &low[0], &low[1], &normal[0], &normal[1], &normal[2]};
    for (size_t i = 0; i < 6; i++) assert_ptr_equal(sched_pop(&q), want[i]);
    assert_null(sched_first(&q));
    sched_free(&q);
}

/* Dispatch rule 4's turn: synthesized partitions waiting for room in the
 * GPU queue enter in rule 1's order (the older job's first, a higher
 * priority before both), whichever worker wakes first. */
static void test_gpu_turn(void **state)
{
    (void)state;
    engine_t *e = calloc(1, sizeof *e);
    assert_non_null(e);
    e->cfg.max_gpu_queue_depth = 1;
    e->in_service = 1;
    work_item old = {0}, young = {0}, high = {0};
    old.key = (sched_key){ENGINE_PRIO_NORMAL, 6, 3, 0};
    young.key = (sched_key){ENGINE_PRIO_NORMAL, 7, 0, 0};
    high.key = (sched_key){ENGINE_PRIO_HIGH, 9, 0, 0};
    young.room_next = &old, e->room_waiters = &young; /* the younger linked first */
    assert_false(dispatch_gpu_turn(e, &young));
    assert_true(dispatch_gpu_turn(e, &old));
    work_item *q[1] = {&old}; /* the older one entered */
    e->gpuq = q, e->gpuq_n = 1, e->room_waiters = &young, young.room_next = NULL;
    assert_false(dispatch_gpu_turn(e, &young)); /* no room: one slot, taken */
    high.room_next = &young, e->room_waiters = &high;
    assert_true(dispatch_gpu_turn(e, &high)); /* its priority has a slot */
    e->cfg.max_gpu_queue_depth = 2;
    assert_false(dispatch_gpu_turn(e, &young)); /* room, but the HIGH one first */
    e->room_waiters = &young;
    assert_true(dispatch_gpu_turn(e, &young));
    free(e);
}

/* Dispatch rule 3's team: NORMAL and LOW partitions share the cores
 * among the workers; a HIGH or CRITICAL one among the HIGH and CRITICAL
 * partitions in synthesis (itself counted), so a lone one takes them
 * all; synthesis.threads overrides; the full-synthesis path and a single
 * worker keep OpenMP's default (0). */
static void test_synthesis_team(void **state)
{
    (void)state;
    engine_t *e = calloc(1, sizeof *e);
    assert_non_null(e);
    work_item normal = {0}, low = {0}, high = {0}, crit = {0};
    normal.key = (sched_key){ENGINE_PRIO_NORMAL, 1, 0, 0};
    low.key = (sched_key){ENGINE_PRIO_LOW, 2, 0, 0};
    high.key = (sched_key){ENGINE_PRIO_HIGH, 3, 0, 0};
    crit.key = (sched_key){ENGINE_PRIO_CRITICAL, 4, 0, 0};
    dispatch_synth_taken(e, &normal);
    assert_int_equal(dispatch_synthesis_threads(e, &normal, true, 16, 4), 4);
    dispatch_synth_taken(e, &low);
    assert_int_equal(dispatch_synthesis_threads(e, &low, true, 16, 4), 4);
    dispatch_synth_taken(e, &high); /* a Window PoSt beside the stream: every core */
    assert_int_equal(dispatch_synthesis_threads(e, &high, true, 16, 4), 16);
    dispatch_synth_taken(e, &crit); /* then two priority partitions share them */
    assert_int_equal(dispatch_synthesis_threads(e, &crit, true, 16, 4), 8);
    assert_int_equal(dispatch_synthesis_threads(e, &crit, true, 1, 4), 1); /* at least one */
    assert_int_equal(dispatch_synthesis_threads(e, &normal, true, 2, 4), 1);
    dispatch_synth_done(e, &high);
    assert_int_equal(dispatch_synthesis_threads(e, &crit, true, 16, 4), 16);
    assert_int_equal(dispatch_synthesis_threads(e, &crit, false, 16, 4), 0);  /* full synthesis */
    assert_int_equal(dispatch_synthesis_threads(e, &normal, true, 16, 1), 0); /* one worker */
    e->cfg.synthesis_threads = 3;
    assert_int_equal(dispatch_synthesis_threads(e, &crit, true, 16, 4), 3);
    assert_int_equal(dispatch_synthesis_threads(e, &normal, false, 16, 4), 3);
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pop_order_matches_sort),
        cmocka_unit_test(test_critical_overtakes_and_fifo),
        cmocka_unit_test(test_remove_if),
        cmocka_unit_test(test_aging_rule),
        cmocka_unit_test(test_rekey_reorders),
        cmocka_unit_test(test_gpu_turn),
        cmocka_unit_test(test_synthesis_team),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
