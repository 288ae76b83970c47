/*
 * test_engine_residency.c - the residency policy (src/engine/residency.h)
 * alone and through the SRS manager on development parameters of the test
 * circuit family (sets of different sizes standing in for the kinds):
 * eviction order (draining first, lowest rank, not preloaded, least
 * recently used), pinned sets never evicted and a load that can never fit
 * beside them refused at once naming them, a load that waits for an idle
 * set younger than min_idle (evicted for it instead of the load waiting
 * forever), and a load that waits for running work: the running set is
 * drained (its new partitions wait), evicted once idle, and takes
 * partitions again once the load has its memory. Through the engine:
 * srs.pinned and srs.preload loaded at start and reported so (GetStatus,
 * metrics), a job's priority counted in its set's rank while it runs
 * only, its proof verified independently.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "cuzk/engine_backend.h"
#include "cuzk/engine_log.h"
#include "cuzk/engine_provider.h"
#include "engine/engine_internal.h"
#include "engine_proofs.h"
#include "engine/loader.h"
#include "srs_fixture.h"
#include "testutil.h"

typedef srs_fixture fixture; /* bytes: test-256, test-300, test-400's parameters */

static const char *const ids[3] = {"test-256", "test-300", "test-400"};

static int setup(void **state)
{
    fixture *f = srs_fixture_new("res", NULL);
    if (!f) return -1;
    *state = f;
    /* every set made once (its file written), its size noted, evicted */
    for (int i = 0; i < 3; i++) {
        engine_circuit_info info = srs_fixture_info(ids[i]);
        srs_entry *e;
        cuzk_err err;
        if (srs_acquire(&f->m, &info, engine_test_provider.setup_dev, &e, NULL, &err)) return -1;
        f->bytes[i] = e->bytes;
        srs_release(&f->m, e);
    }
    return srs_evict_idle(&f->m, UINT64_MAX, 0, 0) == f->bytes[0] + f->bytes[1] + f->bytes[2] ? 0
                                                                                              : -1;
}

static int teardown(void **state)
{
    return srs_fixture_free(*state);
}

static srs_entry *entry(fixture *f, int i)
{
    for (size_t k = 0; k < f->m.n; k++)
        if (!strcmp(f->m.entries[k]->info.circuit_id, ids[i])) return f->m.entries[k];
    fail_msg("no entry %s", ids[i]);
    return NULL;
}

static void acquire(fixture *f, int i, srs_entry **e)
{
    engine_circuit_info info = srs_fixture_info(ids[i]);
    cuzk_err err;
    assert_int_equal(srs_acquire(&f->m, &info, NULL, e, NULL, &err), 0);
}

static void demand(fixture *f, int i, int priority)
{
    srs_demand(&f->m, ids[i], priority, +1);
}

/* The pure rules: rank, the victim order, pinned and busy sets kept. */
static void test_policy_order(void **state)
{
    (void)state;
    residency_rules r = {.min_idle_ms = 100, .swap_after_ms = 1000};
    residency_set s[5] = {
        {.loaded = true, .last_used_ms = 10, .demand = {[ENGINE_PRIO_HIGH] = 1}},
        {.loaded = true, .last_used_ms = 50},
        {.loaded = true, .last_used_ms = 40, .preload = true},
        {.loaded = true, .last_used_ms = 5, .pinned = true},
        {.loaded = true, .last_used_ms = 1, .refs = 1},
    };
    assert_int_equal(residency_rank(&s[0]), ENGINE_PRIO_HIGH);
    assert_int_equal(residency_rank(&s[1]), 0);
    const residency_set *v[5] = {&s[0], &s[1], &s[2], &s[3], &s[4]};
    /* rank 0 before HIGH; of rank 0, not preloaded before preloaded */
    assert_int_equal(residency_victim(v, 5, 1000, &r, 0, 0), 1);
    s[1].loaded = false;
    assert_int_equal(residency_victim(v, 5, 1000, &r, 0, 0), 2);
    s[2].loaded = false;
    assert_int_equal(residency_victim(v, 5, 1000, &r, 0, 0), 0);
    s[0].loaded = false;
    assert_int_equal(residency_victim(v, 5, 1000, &r, 0, 0), -1); /* pinned, in use */
    /* min_idle keeps a young idle set, unless it is draining */
    s[1].loaded = true, s[1].last_used_ms = 950;
    assert_int_equal(residency_victim(v, 5, 1000, &r, 0, 0), -1);
    s[1].draining = true;
    assert_int_equal(residency_victim(v, 5, 1000, &r, 0, 0), 1);
    /* ... or unless the reservation asking is of a higher priority than
     * the set's rank: a young set only LOW work wants goes at once for a
     * HIGH partition, not for a LOW or NORMAL one (nor an unranked ask) */
    s[1].draining = false, s[1].demand[ENGINE_PRIO_LOW] = 1;
    assert_int_equal(residency_victim(v, 5, 1000, &r, 0, 0), -1);
    assert_int_equal(residency_victim(v, 5, 1000, &r, ENGINE_PRIO_LOW, 0), -1);
    assert_int_equal(residency_victim(v, 5, 1000, &r, ENGINE_PRIO_HIGH, 0), 1);
    /* ... or of the set's rank once the reservation has waited swap_after
     * (dispatch.h rule 8: partitions of one priority on two sets) */
    assert_int_equal(residency_victim(v, 5, 1000, &r, ENGINE_PRIO_LOW, r.swap_after_ms - 1), -1);
    assert_int_equal(residency_victim(v, 5, 1000, &r, ENGINE_PRIO_LOW, r.swap_after_ms), 1);
    assert_int_equal(residency_victim(v, 5, 1000, &r, 0, r.swap_after_ms), -1);
    assert_true(residency_evictable(&s[1], 1000, &r, ENGINE_PRIO_NORMAL, 0));
    s[1].refs = 1; /* in use: never */
    assert_false(residency_evictable(&s[1], 1000, &r, ENGINE_PRIO_CRITICAL, 0));
    s[1].refs = 0, s[1].pinned = true; /* pinned: never */
    assert_false(residency_evictable(&s[1], 1000, &r, ENGINE_PRIO_CRITICAL, 0));
    s[1].pinned = false, s[1].demand[ENGINE_PRIO_LOW] = 0;
    /* drains: lower ranks at once, an equal rank after swap_after, never
     * a pinned set or a higher rank */
    residency_set d[4] = {
        {.loaded = true, .bytes = 10, .demand = {[ENGINE_PRIO_NORMAL] = 1}}, /* the load */
        {.loaded = true, .bytes = 20, .refs = 2, .demand = {[ENGINE_PRIO_NORMAL] = 1}},
        {.loaded = true, .bytes = 30, .refs = 1, .demand = {[ENGINE_PRIO_HIGH] = 1}},
        {.loaded = true, .bytes = 40, .pinned = true},
    };
    d[0].loaded = false;
    const residency_set *dv[4] = {&d[0], &d[1], &d[2], &d[3]};
    bool drain[4];
    assert_int_equal(residency_plan_room(dv, 4, 0, 15, 0, &r, drain), 0);
    assert_false(drain[1] || drain[2] || drain[3]);
    assert_int_equal(residency_plan_room(dv, 4, 0, 15, 1000, &r, drain), 20);
    assert_true(drain[1]);
    assert_false(drain[2] || drain[3]);
    d[0].demand[ENGINE_PRIO_CRITICAL] = 1;
    assert_int_equal(residency_plan_room(dv, 4, 0, 45, 0, &r, drain), 50);
    assert_true(drain[1] && drain[2]);
    assert_false(drain[3]);
    assert_int_equal(residency_fixed_bytes(dv, 4, 0), 40);
    assert_int_equal(residency_fixed_bytes(dv, 4, 3), 0);
}

/* Rules 5, 7 and 8: of one lower rank, the set whose load began first is
 * freed first, a load under way (reading: abandoned) or a loaded set
 * (drained) alike, so that the sets of one rank take turns; a load still
 * waiting for its memory holds none and is left alone, and so are loads
 * of an equal rank and of pinned sets; a load asked to stop counts
 * towards the room; a load does not take memory while a higher one
 * waits. */
static void test_policy_abandon(void **state)
{
    (void)state;
    residency_rules r = {.min_idle_ms = 100, .swap_after_ms = 1000};
    residency_set g[5] = {
        {.loading = true, .waiting = true, .bytes = 50, .demand = {[ENGINE_PRIO_HIGH] = 1}},
        {.loaded = true,
         .bytes = 30,
         .refs = 1,
         .load_began_ms = 300,
         .demand = {[ENGINE_PRIO_NORMAL] = 1}},
        {.loading = true,
         .reading = true,
         .bytes = 40,
         .load_began_ms = 200,
         .demand = {[ENGINE_PRIO_NORMAL] = 1}},
        {.loading = true, .reading = true, .bytes = 40, .demand = {[ENGINE_PRIO_HIGH] = 1}},
        {.loading = true, .reading = true, .bytes = 40, .pinned = true},
    };
    const residency_set *gv[5] = {&g[0], &g[1], &g[2], &g[3], &g[4]};
    bool pick[5];
    assert_int_equal(residency_plan_room(gv, 5, 0, 35, 0, &r, pick), 40);
    assert_true(pick[2]);
    assert_false(pick[0] || pick[1] || pick[3] || pick[4]);
    assert_int_equal(residency_plan_room(gv, 5, 0, 60, 5000, &r, pick), 70);
    assert_true(pick[1] && pick[2]);
    assert_false(pick[3] || pick[4]);
    /* the loaded set's load began before the read under way: it is
     * drained and the read goes on (the SnapDeals set that came back
     * after a deadline is not the next deadline's first victim) */
    g[1].load_began_ms = 100;
    assert_int_equal(residency_plan_room(gv, 5, 0, 25, 0, &r, pick), 30);
    assert_true(pick[1]);
    assert_false(pick[0] || pick[2] || pick[3] || pick[4]);
    g[1].load_began_ms = 300;
    /* a load of a lower rank still goes first: an idle LOW set before it */
    g[1].demand[ENGINE_PRIO_NORMAL] = 0, g[1].demand[ENGINE_PRIO_LOW] = 1;
    assert_int_equal(residency_plan_room(gv, 5, 0, 25, 0, &r, pick), 30);
    assert_true(pick[1]);
    assert_false(pick[2]);
    /* waiting, not reading: nothing to abandon */
    g[1].loaded = false, g[2].reading = false;
    assert_int_equal(residency_plan_room(gv, 5, 0, 35, 0, &r, pick), 0);
    /* asked to stop already: counted */
    g[2].reading = g[2].abandoning = true;
    assert_int_equal(residency_plan_room(gv, 5, 0, 10, 0, &r, pick), 40);
    assert_true(pick[2]);
    /* rule 8: NORMAL waits while the HIGH load waits; HIGH never does */
    assert_false(residency_may_load(gv, 5, 2));
    assert_true(residency_may_load(gv, 5, 0));
    assert_true(residency_may_load(gv, 5, 3));
    g[0].waiting = false;
    assert_true(residency_may_load(gv, 5, 2));
}

/* Rule 5's turns and rule 4's exception while a set drains: of two NORMAL
 * sets, a HIGH load drains the one whose load began first, counting its
 * partitions' memory as freed with it; while it
 * drains, a HIGH reservation does not evict the other NORMAL set although
 * it is idle for a moment between partitions (it waits for the drained
 * set), unless that set is idle min_idle or of a lower rank; a NORMAL
 * reservation (the drained set's own partitions) is not held back. */
static void test_policy_turns(void **state)
{
    (void)state;
    residency_rules r = {.min_idle_ms = 100, .swap_after_ms = 1000};
    residency_set t[3] = {
        {.loading = true, .waiting = true, .bytes = 50, .demand = {[ENGINE_PRIO_HIGH] = 1}},
        {.loaded = true,
         .bytes = 40,
         .refs = 3,
         .load_began_ms = 10,
         .last_used_ms = 990,
         .demand = {[ENGINE_PRIO_NORMAL] = 2}}, /* "PoRep": loaded first, busy */
        {.loaded = true,
         .bytes = 30,
         .refs = 0,
         .load_began_ms = 500,
         .last_used_ms = 980,
         .demand = {[ENGINE_PRIO_NORMAL] = 1}}, /* "SnapDeals": came back last */
    };
    const residency_set *tv[3] = {&t[0], &t[1], &t[2]};
    bool pick[3];
    assert_int_equal(residency_plan_room(tv, 3, 0, 35, 0, &r, pick), 40);
    assert_true(pick[1]);
    assert_false(pick[0] || pick[2]);
    /* before the drain, rule 4 alone takes the idle one of the two */
    assert_int_equal(residency_victim(tv, 3, 1000, &r, ENGINE_PRIO_HIGH, 0), 2);
    t[1].draining = true;
    assert_int_equal(residency_victim(tv, 3, 1000, &r, ENGINE_PRIO_HIGH, 0), -1);
    assert_int_equal(residency_victim(tv, 3, 1000, &r, ENGINE_PRIO_NORMAL, 1000), 2);
    assert_int_equal(residency_victim(tv, 3, 1080, &r, ENGINE_PRIO_HIGH, 0), 2); /* idle 100 */
    t[2].demand[ENGINE_PRIO_NORMAL] = 0, t[2].demand[ENGINE_PRIO_LOW] = 1;
    assert_int_equal(residency_victim(tv, 3, 1000, &r, ENGINE_PRIO_HIGH, 0), 2); /* lower */
    t[2].demand[ENGINE_PRIO_LOW] = 0, t[2].demand[ENGINE_PRIO_NORMAL] = 1;
    t[1].refs = 0; /* its partitions over: the drained set goes */
    assert_int_equal(residency_victim(tv, 3, 1000, &r, ENGINE_PRIO_HIGH, 0), 1);
    /* a drained set frees its partitions' memory too: the loaded set
     * (began first) with 20 bytes of partitions covers a shortfall of 45,
     * and the read under way beside it goes on */
    t[1].draining = false, t[1].refs = 3, t[1].part_bytes = 20;
    t[2].loaded = false, t[2].loading = t[2].reading = true, t[2].bytes = 40;
    assert_int_equal(residency_plan_room(tv, 3, 0, 45, 0, &r, pick), 60);
    assert_true(pick[1]);
    assert_false(pick[0] || pick[2]);
    t[1].part_bytes = 0; /* without them it takes the read as well */
    assert_int_equal(residency_plan_room(tv, 3, 0, 45, 0, &r, pick), 80);
    assert_true(pick[1] && pick[2]);
}

/* Under pressure: lowest rank first, then least recently used; a set
 * whose queued work is HIGH goes last although it is the least recent. */
static void test_eviction_order(void **state)
{
    fixture *f = *state;
    srs_entry *e[3];
    for (int i = 0; i < 3; i++) acquire(f, i, &e[i]);
    srs_release(&f->m, e[2]); /* least recently used, HIGH work queued */
    usleep(2000);
    srs_release(&f->m, e[1]); /* LOW work queued */
    usleep(2000);
    srs_release(&f->m, e[0]); /* most recent, nothing queued */
    demand(f, 2, ENGINE_PRIO_HIGH);
    demand(f, 1, ENGINE_PRIO_LOW);
    for (int k = 0; k < 3; k++) { /* test-256, then test-300, then test-400 */
        assert_int_equal(srs_evict_idle(&f->m, 1, 0, 0), f->bytes[k]);
        for (int j = 0; j < 3; j++) assert_int_equal(entry(f, j)->loaded, j > k);
    }
    assert_int_equal(budget_used(&f->b), 0);
    /* of two sets of one rank, the least recently used first */
    acquire(f, 0, &e[0]), acquire(f, 1, &e[1]);
    srs_release(&f->m, e[0]);
    usleep(2000);
    srs_release(&f->m, e[1]);
    srs_demand(&f->m, ids[1], ENGINE_PRIO_LOW, -1);
    assert_int_equal(srs_evict_idle(&f->m, 1, 0, 0), f->bytes[0]);
    assert_true(entry(f, 1)->loaded);
    assert_int_equal(entry(f, 0)->evictions, 3);
    assert_int_equal(entry(f, 0)->loads, 3);
}

/* Rule 4's exception: sets used a moment ago (min_idle not over) stay for
 * an unranked ask, and go for a reservation of a higher priority than
 * their rank, lowest rank first; a set of the asking priority stays. */
static void test_higher_reservation_evicts_young(void **state)
{
    fixture *f = *state;
    f->m.rules.min_idle_ms = 60000;
    srs_entry *e[3];
    for (int i = 0; i < 3; i++) acquire(f, i, &e[i]);
    for (int i = 0; i < 3; i++) srs_release(&f->m, e[i]);
    demand(f, 1, ENGINE_PRIO_LOW);
    demand(f, 2, ENGINE_PRIO_HIGH);
    assert_int_equal(srs_evict_idle(&f->m, UINT64_MAX, 0, 0), 0);
    assert_int_equal(srs_evict_idle(&f->m, UINT64_MAX, ENGINE_PRIO_LOW, 0), f->bytes[0]);
    assert_int_equal(srs_evict_idle(&f->m, UINT64_MAX, ENGINE_PRIO_HIGH, 0), f->bytes[1]);
    assert_true(entry(f, 2)->loaded);
    assert_int_equal(srs_evict_idle(&f->m, UINT64_MAX, ENGINE_PRIO_CRITICAL, 0), f->bytes[2]);
    assert_int_equal(budget_used(&f->b), 0);
}

/* Rule 3's keep_rank: a set whose last job has just ended keeps that
 * job's rank for srs.keep_rank, so a reservation of a priority no higher
 * does not evict it at once (the instant between two requests of a
 * stream); once keep_rank is over its rank is 0 and it goes at once. */
static void test_keeps_rank(void **state)
{
    fixture *f = *state;
    f->m.rules.min_idle_ms = 60000, f->m.rules.keep_rank_ms = 300;
    srs_entry *e[2];
    for (int i = 0; i < 2; i++) acquire(f, i, &e[i]);
    for (int i = 0; i < 2; i++) srs_release(&f->m, e[i]);
    demand(f, 1, ENGINE_PRIO_NORMAL);
    srs_demand(&f->m, ids[1], ENGINE_PRIO_NORMAL, -1); /* its job ended */
    assert_int_equal(srs_evict_idle(&f->m, UINT64_MAX, ENGINE_PRIO_NORMAL, 0), f->bytes[0]);
    assert_true(entry(f, 1)->loaded);
    assert_int_equal(srs_evict_idle(&f->m, UINT64_MAX, ENGINE_PRIO_HIGH, 0), f->bytes[1]);
    acquire(f, 1, &e[1]), srs_release(&f->m, e[1]);
    demand(f, 1, ENGINE_PRIO_NORMAL);
    srs_demand(&f->m, ids[1], ENGINE_PRIO_NORMAL, -1);
    assert_int_equal(srs_evict_idle(&f->m, UINT64_MAX, ENGINE_PRIO_NORMAL, 0), 0);
    usleep(350 * 1000);
    assert_int_equal(srs_evict_idle(&f->m, UINT64_MAX, ENGINE_PRIO_NORMAL, 0), f->bytes[1]);
    assert_int_equal(budget_used(&f->b), 0);
}

/* A pinned set stays under any pressure; a set that fits beside it loads
 * (evicting the others), one that can never fit fails at once naming it. */
static void test_pinned(void **state)
{
    fixture *f = *state;
    cuzk_config c;
    cuzk_config_default(&c);
    strcpy(c.pinned[0], ids[1]);
    c.n_pinned = 1;
    srs_set_residency(&f->m, &c, 1000);
    srs_entry *p, *e;
    acquire(f, 1, &p);
    srs_release(&f->m, p);
    assert_true(p->pinned);
    assert_int_equal(srs_evict_idle(&f->m, UINT64_MAX, 0, 0), 0);
    assert_true(p->loaded);
    /* room for the pinned set and the largest of the others, not both */
    f->b.total = f->bytes[1] + f->bytes[2];
    acquire(f, 0, &e);
    srs_release(&f->m, e);
    acquire(f, 2, &e); /* evicts test-256, keeps the pinned set */
    srs_release(&f->m, e);
    assert_false(entry(f, 0)->loaded);
    assert_true(p->loaded);
    assert_int_equal(budget_used(&f->b), f->bytes[1] + f->bytes[2]);
    srs_evict_idle(&f->m, UINT64_MAX, 0, 0);
    f->b.total = f->bytes[1] + f->bytes[2] - 1;
    engine_circuit_info info = srs_fixture_info(ids[2]);
    cuzk_err err;
    assert_int_equal(srs_acquire(&f->m, &info, NULL, &e, NULL, &err), CUZK_ENOMEM);
    assert_non_null(strstr(err.msg, "test-400: its parameters"));
    assert_non_null(strstr(err.msg, "can never fit"));
    assert_non_null(strstr(err.msg, "srs.pinned: test-300"));
    assert_true(p->loaded);
    assert_int_equal(p->evictions, 1); /* setup's only */
}

/* A thread acquiring one set, holding it until told to release. */
typedef struct user {
    fixture *f;
    int set;
    srs_entry *e;
    int rc;
    bool done, release; /* __atomic */
    pthread_t t;
} user;

static void *user_thread(void *arg)
{
    user *u = arg;
    engine_circuit_info info = srs_fixture_info(ids[u->set]);
    cuzk_err err;
    u->rc = srs_acquire(&u->f->m, &info, NULL, &u->e, NULL, &err);
    __atomic_store_n(&u->done, true, __ATOMIC_RELEASE);
    while (!u->rc && !__atomic_load_n(&u->release, __ATOMIC_ACQUIRE)) usleep(1000);
    if (!u->rc) srs_release(&u->f->m, u->e);
    return NULL;
}

static void start(user *u, fixture *f, int set)
{
    *u = (user){.f = f, .set = set};
    assert_int_equal(pthread_create(&u->t, NULL, user_thread, u), 0);
}

/* Whether u's acquire returned within ms. */
static bool done_within(user *u, int ms)
{
    for (int i = 0; i < ms && !__atomic_load_n(&u->done, __ATOMIC_ACQUIRE); i++) usleep(1000);
    return __atomic_load_n(&u->done, __ATOMIC_ACQUIRE);
}

static void finish(user *u)
{
    __atomic_store_n(&u->release, true, __ATOMIC_RELEASE);
    pthread_join(u->t, NULL);
}

/* The memory a load needs is held by an idle set younger than min_idle:
 * the load drains it (evicted at once) instead of waiting out min_idle. */
static void test_waits_for_idle_set(void **state)
{
    fixture *f = *state;
    f->b.total = f->bytes[2] + f->bytes[1] / 2; /* one set at a time */
    f->m.rules.min_idle_ms = 3600 * 1000;
    srs_entry *e;
    acquire(f, 1, &e);
    srs_release(&f->m, e);
    demand(f, 2, ENGINE_PRIO_NORMAL);
    user u;
    start(&u, f, 2);
    bool done = done_within(&u, 10000);
    if (!done) budget_close(&f->b); /* wakes it to fail */
    finish(&u);
    assert_true(done);
    assert_int_equal(u.rc, 0);
    assert_false(entry(f, 1)->loaded);
    assert_int_equal(entry(f, 1)->evictions, 2);
}

/* The memory a HIGH load needs is held by a NORMAL set with a partition
 * running: the set is drained (a new partition of it waits), evicted once
 * the running one ends, and its waiting partition goes on once the HIGH
 * load has its memory (loading again when the HIGH set is idle). */
static void test_waits_for_running_work(void **state)
{
    fixture *f = *state;
    f->b.total = f->bytes[2] + f->bytes[1] / 2;
    demand(f, 1, ENGINE_PRIO_NORMAL);
    demand(f, 2, ENGINE_PRIO_HIGH);
    srs_entry *running;
    acquire(f, 1, &running);
    user high, next;
    start(&high, f, 2);
    assert_false(done_within(&high, 300)); /* the running partition holds the memory */
    assert_true(entry(f, 1)->draining);
    start(&next, f, 1);
    assert_false(done_within(&next, 300)); /* drained: no new partition starts */
    srs_release(&f->m, running);
    assert_true(done_within(&high, 10000));
    assert_int_equal(high.rc, 0);
    assert_false(entry(f, 1)->draining);
    assert_false(done_within(&next, 300)); /* the HIGH set in use holds the memory */
    finish(&high);
    assert_true(done_within(&next, 10000));
    assert_int_equal(next.rc, 0);
    finish(&next);
    assert_int_equal(entry(f, 1)->loads, 3);
    assert_int_equal(entry(f, 2)->evictions, 2);
}

/* Rule 3's read-ahead: a set held at HIGH with no job on it loads as a
 * HIGH load (it drains a NORMAL set whose partition runs); loaded and
 * idle, a NORMAL load cannot drain it while the hold lasts, and does once
 * the hold is over. */
static void test_read_ahead_hold(void **state)
{
    fixture *f = *state;
    f->b.total = f->bytes[2] + f->bytes[1] / 2;
    f->m.rules.min_idle_ms = 3600 * 1000; /* idle sets go by drains only */
    demand(f, 1, ENGINE_PRIO_NORMAL);
    srs_entry *running;
    acquire(f, 1, &running);
    srs_hold(&f->m, ids[2], ENGINE_PRIO_HIGH, srs_now_ms() + 60000);
    user ahead, normal;
    start(&ahead, f, 2);
    assert_false(done_within(&ahead, 300));
    assert_true(entry(f, 1)->draining);
    srs_release(&f->m, running);
    assert_true(done_within(&ahead, 10000));
    assert_int_equal(ahead.rc, 0);
    finish(&ahead); /* test-400 idle, held */
    start(&normal, f, 1);
    assert_false(done_within(&normal, 500));
    assert_true(entry(f, 2)->loaded);
    srs_hold(&f->m, ids[2], ENGINE_PRIO_HIGH, 0); /* the hold is over */
    assert_true(done_within(&normal, 10000));
    assert_int_equal(normal.rc, 0);
    finish(&normal);
    assert_false(entry(f, 2)->loaded);
}

static const engine_srs_status *status_of(const engine_status_t *s, const char *id)
{
    for (size_t i = 0; i < s->n_srs; i++)
        if (!strcmp(s->srs[i].circuit_id, id)) return &s->srs[i];
    return NULL;
}

/* Whether id is in memory now. */
static bool loaded(engine_t *e, const char *id)
{
    engine_status_t s;
    assert_int_equal(engine_status(e, &s, NULL), 0);
    const engine_srs_status *r = status_of(&s, id);
    bool in = r && r->tier != 2 && !r->loading;
    engine_status_free(&s);
    return in;
}

/* An engine of 256 MiB on the CPU with ids[preload] in srs.preload and
 * ids[pinned] (-1: none) in srs.pinned, both loaded and released by the
 * preload thread. */
static engine_t *listed_engine(fixture *f, int preload, int pinned)
{
    engine_log_set_level("error");
    cuzk_config c;
    cuzk_config_default(&c);
    snprintf(c.param_cache, sizeof c.param_cache, "%s", f->dir);
    c.total_budget = 256 << 20;
    if (pinned >= 0) strcpy(c.pinned[0], ids[pinned]), c.n_pinned = 1;
    strcpy(c.preload[0], ids[preload]), c.n_preload = 1;
    engine_t *e;
    cuzk_err err;
    assert_int_equal(engine_create(&e, &c, NULL, &err), 0);
    assert_int_equal(engine_register_provider(e, &engine_test_provider, &err), 0);
    assert_int_equal(engine_start_preload(e, &err), 0);
    int other = pinned >= 0 ? pinned : preload;
    for (int i = 0; i < 30000 && !(loaded(e, ids[preload]) && loaded(e, ids[other])); i++)
        usleep(1000);
    assert_true(loaded(e, ids[preload]) && loaded(e, ids[other]));
    /* a set is loaded before the preload thread lets go of it (it records
     * the shape and frees the blank circuit first): wait for that too */
    pthread_join(e->preload_thread, NULL);
    e->preload_thread = 0;
    return e;
}

static void test_engine_start_lists(void **state)
{
    fixture *f = *state;
    engine_t *e = listed_engine(f, 0, 1);
    cuzk_err err;
    /* a job at HIGH on another set: its proof verifies; its rank is HIGH
     * while it runs and for srs.keep_rank after (rule 3) */
    uint8_t rec[ENGINE_TEST_RECORD_BYTES] = "CUZKTEST";
    const uint32_t n = 400, parts = 2, seed = 7;
    for (int i = 0; i < 4; i++)
        rec[8 + i] = (uint8_t)(n >> 8 * i), rec[12 + i] = (uint8_t)(parts >> 8 * i),
                rec[16 + i] = (uint8_t)(seed >> 8 * i), rec[24 + i] = 0xff;
    engine_request req = {
        .kind = ENGINE_POREP, .priority = ENGINE_PRIO_HIGH, .vanilla_proof = {rec, sizeof rec}};
    char id[ENGINE_ID_MAX];
    engine_result r;
    assert_int_equal(engine_submit(e, &req, id, NULL, &err), 0);
    assert_int_equal(engine_await(e, id, 60000, &r, NULL, NULL, NULL), 0);
    check_test_proofs(f->dir, n, &r, parts, seed);
    engine_result_free(&r);
    engine_status_t s;
    assert_int_equal(engine_status(e, &s, NULL), 0);
    const engine_srs_status *pin = status_of(&s, ids[1]), *pre = status_of(&s, ids[0]),
                            *job = status_of(&s, ids[2]);
    assert_true(pin && pre && job);
    assert_true(pin->pinned && !pin->preload);
    assert_true(pre->preload && !pre->pinned);
    assert_false(job->pinned || job->preload);
    assert_int_equal(pin->loads, 1);
    assert_int_equal(pre->loads, 1);
    assert_int_equal(job->loads, 1);
    assert_int_equal(job->rank, ENGINE_PRIO_HIGH); /* rule 3: its ended job's, srs.keep_rank */
    assert_int_equal(pin->evictions + pre->evictions + job->evictions, 0);
    engine_status_free(&s);
    test_text_has(engine_metrics(e), "cuzk_srs_pinned{circuit=\"test-300\"} 1",
                  "cuzk_srs_loads_total{circuit=\"test-400\"} 1");
    /* a read-ahead: its priority checked, its circuit known, then loaded */
    bool was;
    uint64_t ms;
    assert_int_equal(engine_preload_at(e, ids[2], 9, 1000, &was, &ms, &err), CUZK_EINVAL);
    assert_non_null(strstr(err.msg, "priority 9 is not 0..4"));
    assert_int_not_equal(engine_preload_at(e, "nope-1", ENGINE_PRIO_HIGH, 1000, &was, &ms, &err),
                         0);
    assert_int_equal(engine_preload_at(e, ids[2], ENGINE_PRIO_HIGH, 1000, &was, &ms, &err), 0);
    assert_true(was);
    engine_destroy(e);
}

/* Dispatch rule 6: a partition found ready holds its set from that very
 * check (loader_ready), so an eviction for a higher reservation between
 * the check and its worker cannot take the set away. Before, the check
 * took no reference: the soak's tight budget evicted a LOW Window PoSt's
 * set there, its workers waited in srs_acquire for the set's load, and
 * the NORMAL job queued behind them found no worker for 5 minutes. Once
 * released, the same eviction frees the set (so the check can fail). */
static void test_found_ready_is_held(void **state)
{
    fixture *f = *state;
    engine_t *e = listed_engine(f, 0, -1);
    job j = {0};
    snprintf(j.circuit_id, sizeof j.circuit_id, "%s", ids[0]);
    work_item it = {.jobs = {&j}, .n = 1};
    pthread_mutex_lock(&e->lock);
    bool ready = loader_ready(e, &it);
    pthread_mutex_unlock(&e->lock);
    assert_true(ready);
    assert_non_null(it.srs);
    assert_int_equal(srs_evict_idle(&e->srs, UINT64_MAX, ENGINE_PRIO_CRITICAL, 0), 0);
    assert_true(loaded(e, ids[0]));
    srs_release(&e->srs, it.srs);
    /* its parameters and the shape recorded beside their load */
    assert_true(srs_evict_idle(&e->srs, UINT64_MAX, ENGINE_PRIO_CRITICAL, 0) >= f->bytes[0]);
    assert_false(loaded(e, ids[0]));
    engine_destroy(e);
}

/* A backend that proves on the CPU, each start held while `held_on`
 * (as a partition whose kernels run); `holding` counts the starts held. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool held_on;
    unsigned holding;
} hold = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0};

static int held_start(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                      void **handle, cuzk_err *err)
{
    pthread_mutex_lock(&hold.mu);
    hold.holding++;
    while (hold.held_on) pthread_cond_wait(&hold.cv, &hold.mu);
    hold.holding--;
    pthread_mutex_unlock(&hold.mu);
    return engine_cpu_backend.start(device, pk, circuits, n, handle, err);
}

static void hold_set(bool on)
{
    pthread_mutex_lock(&hold.mu);
    hold.held_on = on;
    pthread_cond_broadcast(&hold.cv);
    pthread_mutex_unlock(&hold.mu);
}

static unsigned holding(void)
{
    pthread_mutex_lock(&hold.mu);
    unsigned n = hold.holding;
    pthread_mutex_unlock(&hold.mu);
    return n;
}

static int one_device(size_t *n, char names[][128], uint64_t *vram_total, size_t max)
{
    return engine_cpu_backend.devices(n, names, vram_total, max);
}

static int held_finish(void *handle, groth16_proof *proofs, size_t n, cuzk_err *err)
{
    return engine_cpu_backend.finish(handle, proofs, n, err);
}

static const engine_backend held_backend = {
    .name = "held", .devices = one_device, .start = held_start, .finish = held_finish};

static int submit_test(engine_t *e, uint32_t n, uint32_t parts, uint32_t seed, int priority,
                       char id[ENGINE_ID_MAX])
{
    uint8_t rec[ENGINE_TEST_RECORD_BYTES] = "CUZKTEST";
    for (int i = 0; i < 4; i++)
        rec[8 + i] = (uint8_t)(n >> 8 * i), rec[12 + i] = (uint8_t)(parts >> 8 * i),
                rec[16 + i] = (uint8_t)(seed >> 8 * i), rec[24 + i] = 0xff;
    engine_request req = {.kind =
                              priority == ENGINE_PRIO_CRITICAL ? ENGINE_WINNING_POST : ENGINE_POREP,
                          .priority = priority,
                          .vanilla_proof = {rec, sizeof rec}};
    return engine_submit(e, &req, id, NULL, NULL);
}

static uint32_t gpu_queue(engine_t *e)
{
    engine_status_t s;
    assert_int_equal(engine_status(e, &s, NULL), 0);
    uint32_t d = s.gpu_queue_depth;
    engine_status_free(&s);
    return d;
}

static void await_test(engine_t *e, const char *dir, const char *id, uint32_t n, uint32_t parts,
                       uint32_t seed)
{
    engine_result r;
    assert_int_equal(engine_await(e, id, 60000, &r, NULL, NULL, NULL), 0);
    if (r.status != ENGINE_COMPLETED) fail_msg("job %s: %s", id, r.error);
    check_test_proofs(dir, n, &r, parts, seed);
    engine_result_free(&r);
}

/* Every job done: no set counts memory of partitions (rule 5's
 * part_bytes went up and down with each item's reservation). */
static void no_partition_bytes(engine_t *e)
{
    pthread_mutex_lock(&e->srs.lock);
    for (size_t i = 0; i < e->srs.n; i++)
        assert_int_equal(__atomic_load_n(&e->srs.entries[i]->part_bytes, __ATOMIC_RELAXED), 0);
    pthread_mutex_unlock(&e->srs.lock);
}

/* Dispatch rule 6: a HIGH job whose set must load, and whose load waits
 * for the memory a running NORMAL partition holds, takes no synthesis
 * worker meanwhile: a CRITICAL job of a resident (pinned) set sent then
 * is synthesized at once (it reaches the GPU queue while the NORMAL start
 * is held); before the rule, the HIGH job's partitions held both
 * workers inside srs_acquire until the load, and the CRITICAL one waited
 * for it. Then all three complete and verify. */
static void test_load_takes_no_worker(void **state)
{
    fixture *f = *state;
    engine_log_set_level("error");
    uint64_t smaller = f->bytes[1] < f->bytes[2] ? f->bytes[1] : f->bytes[2];
    cuzk_config c;
    cuzk_config_default(&c);
    snprintf(c.param_cache, sizeof c.param_cache, "%s", f->dir);
    /* test-256 pinned beside test-300 or test-400, not both */
    c.total_budget =
        f->bytes[0] + (f->bytes[1] > f->bytes[2] ? f->bytes[1] : f->bytes[2]) + smaller / 2;
    strcpy(c.pinned[0], ids[0]), c.n_pinned = 1;
    c.synthesis_concurrency = 1; /* and the one HIGH+ worker */
    engine_t *e;
    cuzk_err err;
    assert_int_equal(engine_create(&e, &c, &held_backend, &err), 0);
    assert_int_equal(engine_register_provider(e, &engine_test_provider, &err), 0);
    assert_int_equal(engine_start_preload(e, &err), 0);
    for (int i = 0; i < 30000 && !loaded(e, ids[0]); i++) usleep(1000);
    assert_true(loaded(e, ids[0]));
    hold_set(true);
    char normal[ENGINE_ID_MAX], high[ENGINE_ID_MAX], crit[ENGINE_ID_MAX];
    assert_int_equal(submit_test(e, 300, 1, 11, ENGINE_PRIO_NORMAL, normal), 0);
    for (int i = 0; i < 30000 && !holding(); i++) usleep(1000);
    assert_true(holding());
    assert_int_equal(submit_test(e, 400, 2, 21, ENGINE_PRIO_HIGH, high), 0);
    usleep(300 * 1000); /* its load waits for the held partition's memory */
    assert_false(loaded(e, ids[2]));
    assert_int_equal(submit_test(e, 256, 1, 31, ENGINE_PRIO_CRITICAL, crit), 0);
    bool queued = false;
    for (int i = 0; i < 30000 && !(queued = gpu_queue(e) == 1); i++) usleep(1000);
    hold_set(false);
    if (!queued) fail_msg("the CRITICAL partition was not synthesized while a load waited");
    await_test(e, f->dir, crit, 256, 1, 31);
    await_test(e, f->dir, normal, 300, 1, 11);
    await_test(e, f->dir, high, 400, 2, 21);
    engine_destroy(e);
}

/* The test provider, test-300's load taking SLOW_LOAD_MS (as a simulated
 * kind's: engine_circuit_info.sim_load_ms) once its memory is had. */
#define SLOW_LOAD_MS 2000
static void slow_300(engine_circuit_info *info)
{
    if (!strcmp(info->circuit_id, ids[1])) info->sim_load_ms = SLOW_LOAD_MS;
}

static bool slow_lookup(const char *circuit_id, engine_circuit_info *info)
{
    if (!engine_test_provider.lookup(circuit_id, info)) return false;
    slow_300(info);
    return true;
}

static int slow_prepare(const engine_request *req, engine_circuits *out, cuzk_err *err)
{
    int rc = engine_test_provider.prepare(req, out, err);
    if (!rc) slow_300(&out->info);
    return rc;
}

static const engine_srs_status *status_row(engine_t *e, engine_status_t *s, const char *id)
{
    assert_int_equal(engine_status(e, s, NULL), 0);
    const engine_srs_status *r = status_of(s, id);
    assert_non_null(r);
    return r;
}

/* Residency rule 7 through the engine: memory fits test-300 or test-400,
 * not both; a NORMAL job's load of test-300 is under way when a HIGH job
 * on test-400 comes. The HIGH load starts at once (the NORMAL load is
 * abandoned) and its proof is done before test-300 has ever finished
 * loading; before the rule, it waited for that load to end (and then
 * drained test-300). The NORMAL job is not failed: its load starts again
 * and it completes after. GetStatus and the metrics count the abandoned
 * load and its bytes. */
static void test_high_load_abandons_normal_load(void **state)
{
    fixture *f = *state;
    engine_log_set_level("error");
    engine_provider slow = engine_test_provider;
    slow.name = "slow-test", slow.lookup = slow_lookup, slow.prepare = slow_prepare;
    uint64_t larger = f->bytes[1] > f->bytes[2] ? f->bytes[1] : f->bytes[2];
    uint64_t smaller = f->bytes[1] < f->bytes[2] ? f->bytes[1] : f->bytes[2];
    cuzk_config c;
    cuzk_config_default(&c);
    snprintf(c.param_cache, sizeof c.param_cache, "%s", f->dir);
    c.total_budget = larger + smaller - 1; /* one set and the partitions */
    engine_t *e;
    cuzk_err err;
    assert_int_equal(engine_create(&e, &c, NULL, &err), 0);
    assert_int_equal(engine_register_provider(e, &slow, &err), 0);
    char normal[ENGINE_ID_MAX], high[ENGINE_ID_MAX];
    assert_int_equal(submit_test(e, 300, 2, 41, ENGINE_PRIO_NORMAL, normal), 0);
    engine_status_t s;
    bool reading = false;
    for (int i = 0; i < 30000 && !reading; i++) {
        assert_int_equal(engine_status(e, &s, NULL), 0);
        const engine_srs_status *r = status_of(&s, ids[1]); /* NULL until it is first seen */
        /* the whole file decoded and rule 7's last check of the read
         * passed: its modeled read time (the sleep) is under way */
        reading = r && r->loading && r->read_bytes == f->bytes[1];
        engine_status_free(&s);
        if (!reading) usleep(1000);
    }
    assert_true(reading);
    assert_int_equal(submit_test(e, 400, 2, 42, ENGINE_PRIO_HIGH, high), 0);
    await_test(e, f->dir, high, 400, 2, 42);
    const engine_srs_status *r = status_row(e, &s, ids[1]);
    assert_int_equal(r->loads, 0); /* the HIGH proof came first */
    assert_int_equal(r->abandoned, 1);
    assert_true(r->abandoned_bytes > 0 && r->abandoned_bytes < f->bytes[1]);
    engine_status_free(&s);
    await_test(e, f->dir, normal, 300, 2, 41);
    no_partition_bytes(e);
    r = status_row(e, &s, ids[1]);
    assert_int_equal(r->loads, 1);
    assert_int_equal(r->abandoned, 1);
    assert_int_equal(r->read_bytes, 0); /* no read under way */
    engine_status_free(&s);
    test_text_has(engine_metrics(e), "cuzk_srs_loads_abandoned_total{circuit=\"test-300\"} 1",
                  "cuzk_srs_loads_abandoned_total{circuit=\"test-400\"} 0");
    test_text_has(engine_metrics(e), "cuzk_srs_read_bytes{circuit=\"test-300\"} 0",
                  "cuzk_srs_read_bytes{circuit=\"test-400\"} 0");
    engine_destroy(e);
}

/* An engine with test-300 and test-400 loaded (their shapes too), a
 * budget of `total`, two synthesis workers besides the HIGH one, srs.swap_after
 * 1 s; *used: the budget's use then. test-300 ranks NORMAL for hold_ms (a
 * read-ahead: residency.h rule 3). */
static engine_t *two_sets(fixture *f, uint64_t total, uint64_t hold_ms, uint64_t *used)
{
    cuzk_config c;
    cuzk_config_default(&c);
    snprintf(c.param_cache, sizeof c.param_cache, "%s", f->dir);
    c.total_budget = total;
    c.srs_swap_after_s = 1;
    c.synthesis_concurrency = 2;
    engine_t *e;
    cuzk_err err;
    bool was;
    uint64_t ms;
    assert_int_equal(engine_create(&e, &c, NULL, &err), 0);
    assert_int_equal(engine_register_provider(e, &engine_test_provider, &err), 0);
    assert_int_equal(engine_preload_at(e, ids[2], 0, 0, &was, &ms, &err), 0);
    assert_int_equal(
        engine_preload_at(e, ids[1], hold_ms ? ENGINE_PRIO_NORMAL : 0, hold_ms, &was, &ms, &err),
        0);
    *used = budget_used(&e->budget);
    return e;
}

/* Dispatch rule 8's case: memory fits both sets (test-300 ranked NORMAL
 * by a read-ahead of hold_ms) and no partition beside them. A test-400
 * partition of `prio` waits for memory holding its set, then a NORMAL
 * test-300 one, holding the other: before the rule they waited for each
 * other for ever. The one that must not give way (`winner`: 0 the first,
 * 1 the second) completes within 15 s, then the other, whose set is loaded
 * again; every proof verifies. Seeds seed (a test-300 partition's memory,
 * measured alone: test-400's is larger), seed + 1 and seed + 2. */
static void two_waiting(fixture *f, int prio, uint64_t hold_ms, int winner, uint32_t seed)
{
    engine_log_set_level("error");
    uint64_t used;
    engine_t *e = two_sets(f, 256 << 20, 0, &used);
    char id[2][ENGINE_ID_MAX];
    assert_int_equal(submit_test(e, 300, 1, seed, ENGINE_PRIO_NORMAL, id[0]), 0);
    await_test(e, f->dir, id[0], 300, 1, seed);
    uint64_t part = budget_peak(&e->budget) - used;
    engine_destroy(e);
    assert_true(part > 0);
    e = two_sets(f, used + part - 1, hold_ms, &used);
    uint32_t n[2] = {400, 300}, seeds[2] = {seed + 1, seed + 2};
    assert_int_equal(submit_test(e, 400, 1, seeds[0], prio, id[0]), 0);
    int waiting = -1;
    for (int i = 0; i < 2000 && (waiting = budget_waiting_priority(&e->budget)) < 0; i++)
        usleep(1000);
    assert_int_equal(waiting, prio);
    assert_int_equal(submit_test(e, 300, 1, seeds[1], ENGINE_PRIO_NORMAL, id[1]), 0);
    engine_result r;
    assert_int_equal(engine_await(e, id[winner], 15000, &r, NULL, NULL, NULL), 0);
    if (r.status != ENGINE_COMPLETED)
        fail_msg("job %s: status %d %s", id[winner], r.status, r.error);
    check_test_proofs(f->dir, n[winner], &r, 1, seeds[winner]);
    engine_result_free(&r);
    await_test(e, f->dir, id[1 - winner], n[1 - winner], 1, seeds[1 - winner]);
    no_partition_bytes(e); /* the partition that gave way included */
    engine_destroy(e);
}

/* Rule 8, a lower partition: the LOW test-400 one gives way (its set
 * released, evicted for the NORMAL one, it is queued again), the NORMAL
 * one completes first. */
static void test_lower_partition_gives_way(void **state)
{
    two_waiting(*state, ENGINE_PRIO_LOW, 3000, 1, 51);
}

/* Rule 8 of one priority: both NORMAL, and test-300's rank is NORMAL too,
 * so rule 4 alone kept its set from the first reservation. Once the first
 * has waited srs.swap_after (1 s here), the second gives way, its set is
 * evicted for the first, which completes first. */
static void test_equal_partition_gives_way(void **state)
{
    two_waiting(*state, ENGINE_PRIO_NORMAL, 5000, 0, 54);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_order),
        cmocka_unit_test(test_policy_abandon),
        cmocka_unit_test(test_policy_turns),
        cmocka_unit_test_setup_teardown(test_eviction_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_higher_reservation_evicts_young, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keeps_rank, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pinned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_waits_for_idle_set, setup, teardown),
        cmocka_unit_test_setup_teardown(test_found_ready_is_held, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lower_partition_gives_way, setup, teardown),
        cmocka_unit_test_setup_teardown(test_equal_partition_gives_way, setup, teardown),
        cmocka_unit_test_setup_teardown(test_waits_for_running_work, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_ahead_hold, setup, teardown),
        cmocka_unit_test_setup_teardown(test_engine_start_lists, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_takes_no_worker, setup, teardown),
        cmocka_unit_test_setup_teardown(test_high_load_abandons_normal_load, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
