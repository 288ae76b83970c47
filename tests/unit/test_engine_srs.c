/*
 * test_engine_srs.c - the SRS manager (src/engine/srs.h) on development
 * parameters of the test circuit family in a temporary param cache: load
 * on demand (made, then read from the file), reference counts and tiers,
 * EvictSRS refused while in use and exact once idle, the budget charged and
 * refunded to the byte, LRU eviction under pressure honouring min_idle,
 * custom files read checked (a point outside the subgroup refused), and
 * a missing file named in the error; the backend's unload hook sees every
 * parameter set once, still whole, just before it is freed; a circuit's
 * shape recorded on another thread beside its parameters' load, kept and
 * freed with them (and with a load that fails); the backend's hooks,
 * which wait for a device, never run under the manager's lock.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/engine_provider.h"
#include "cuzk/file.h"
#include "cuzk/params.h"
#include "test_points.h"
#include "srs_fixture.h"
#include "testutil.h"

/* The unload hook's record: which parameter sets, in order, and whether
 * each still had its points when the hook ran. */
static const groth16_params *unloaded[8];
static size_t n_unloaded;
static bool unloaded_whole = true;

static void record_unload(const groth16_params *pk)
{
    if (n_unloaded < 8) unloaded[n_unloaded] = pk;
    n_unloaded++;
    unloaded_whole = unloaded_whole && pk->h && pk->n_h > 0;
}

typedef srs_fixture fixture;

static int setup(void **state)
{
    n_unloaded = 0;
    unloaded_whole = true;
    return (*state = srs_fixture_new("srs", record_unload)) ? 0 : -1;
}

static int teardown(void **state)
{
    return srs_fixture_free(*state);
}

static const engine_srs_status *find_status(engine_srs_status *s, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s[i].circuit_id, id)) return &s[i];
    return NULL;
}

static int tier_of(srs_manager *m, const char *id)
{
    engine_srs_status *s;
    size_t n = srs_list(m, &s);
    const engine_srs_status *e = find_status(s, n, id);
    int tier = e ? e->tier : -1;
    free(s);
    return tier;
}

static void test_load_refcount_evict(void **state)
{
    fixture *f = *state;
    engine_circuit_info info = srs_fixture_info("test-256");
    srs_entry *a, *b;
    uint64_t ms;
    cuzk_err err;
    assert_int_equal(srs_acquire(&f->m, &info, engine_test_provider.setup_dev, &a, &ms, &err), 0);
    uint64_t charged = budget_used(&f->b);
    assert_int_equal(charged, a->bytes);
    assert_true(charged > 0);
    assert_int_equal(srs_acquire(&f->m, &info, NULL, &b, &ms, &err), 0);
    assert_ptr_equal(a, b);
    assert_int_equal(a->refs, 2);
    assert_int_equal(tier_of(&f->m, "test-256"), SRS_HOT);
    bool was;
    uint64_t freed;
    assert_int_equal(srs_evict(&f->m, "test-256", &was, &freed, &err), ENGINE_EBUSY);
    assert_non_null(strstr(err.msg, "in use"));
    assert_int_equal(n_unloaded, 0);
    srs_release(&f->m, a);
    srs_release(&f->m, b);
    assert_int_equal(tier_of(&f->m, "test-256"), SRS_WARM);
    assert_int_equal(srs_evict(&f->m, "test-256", &was, &freed, &err), 0);
    assert_true(was);
    assert_int_equal(freed, charged);
    assert_int_equal(budget_used(&f->b), 0);
    assert_int_equal(tier_of(&f->m, "test-256"), SRS_COLD);
    assert_int_equal(n_unloaded, 1);
    assert_ptr_equal(unloaded[0], &a->params);
    assert_true(unloaded_whole);
    /* a second eviction of the cold entry frees nothing and calls nothing */
    assert_int_equal(srs_evict(&f->m, "test-256", &was, &freed, &err), 0);
    assert_false(was);
    assert_int_equal(n_unloaded, 1);
    assert_int_equal(srs_evict(&f->m, "never", &was, &freed, &err), ENGINE_ENOTFOUND);
}

static void test_reload_from_file(void **state)
{
    fixture *f = *state;
    engine_circuit_info info = srs_fixture_info("test-300");
    srs_entry *e;
    cuzk_err err;
    assert_int_equal(srs_acquire(&f->m, &info, engine_test_provider.setup_dev, &e, NULL, &err), 0);
    g1_affine_t alpha = e->params.vk.alpha_g1;
    size_t n_h = e->params.n_h;
    srs_release(&f->m, e);
    bool was;
    uint64_t freed;
    assert_int_equal(srs_evict(&f->m, "test-300", &was, &freed, &err), 0);
    /* No setup this time: the file written by the first load must serve. */
    assert_int_equal(srs_acquire(&f->m, &info, NULL, &e, NULL, &err), 0);
    assert_memory_equal(&e->params.vk.alpha_g1, &alpha, sizeof alpha);
    assert_int_equal(e->params.n_h, n_h);
    srs_release(&f->m, e);
}

/* A custom file (the test family's) is read checked: once its H point 0 is
 * moved outside the subgroup, loading it fails naming the point, where an
 * unchecked read (the official files', as bellperson does) accepts it. */
static void test_custom_file_checked(void **state)
{
    fixture *f = *state;
    engine_circuit_info info = srs_fixture_info("test-300");
    assert_true(info.check_params);
    srs_entry *e;
    cuzk_err err;
    assert_int_equal(srs_acquire(&f->m, &info, engine_test_provider.setup_dev, &e, NULL, &err), 0);
    srs_release(&f->m, e);
    bool was;
    uint64_t freed;
    assert_int_equal(srs_evict(&f->m, "test-300", &was, &freed, &err), 0);
    char path[128];
    snprintf(path, sizeof path, "%s/cuzk-test-300-dev.params", f->dir);
    uint8_t *img;
    size_t len;
    params_layout lay;
    assert_int_equal(cuzk_read_file(path, &img, &len, 1 << 26, &err), 0);
    assert_int_equal(params_scan(&lay, img, len, PARAMS_SECTIONS, path, &err), 0);
    cuzk_rng g;
    test_rng(&g);
    g1_affine_t bad;
    off_subgroup_g1(&bad, &g);
    g1_affine_serialize(img + lay.offset[PARAMS_H], &bad);
    assert_int_equal(cuzk_write_file(path, img, len, &err), 0);
    free(img);
    assert_int_equal(srs_acquire(&f->m, &info, NULL, &e, NULL, &err), CUZK_ENOTINSUBGROUP);
    assert_non_null(strstr(err.msg, "cuzk-test-300-dev.params: H point 0"));
    groth16_params unchecked;
    assert_int_equal(groth16_params_read(&unchecked, path, PARAMS_UNCHECKED, &err), 0);
    groth16_params_free(&unchecked);
}

static void test_missing_file(void **state)
{
    fixture *f = *state;
    engine_circuit_info info = srs_fixture_info("test-512");
    srs_entry *e;
    cuzk_err err;
    assert_int_equal(srs_acquire(&f->m, &info, NULL, &e, NULL, &err), CUZK_EIO);
    assert_non_null(strstr(err.msg, "cuzk-test-512-dev.params"));
    assert_int_equal(tier_of(&f->m, "test-512"), SRS_COLD);
}

/* A synthetic circuit that notes which threads synthesize it. */
typedef struct noted_circuit {
    cs_synthetic syn;
    cs_circuit inner;
    pthread_t last;
    int calls;
} noted_circuit;

static int noted_synthesize(cs_t *cs, void *ctx)
{
    noted_circuit *c = ctx;
    __atomic_add_fetch(&c->calls, 1, __ATOMIC_SEQ_CST);
    c->last = pthread_self();
    return c->inner.synthesize(cs, c->inner.ctx);
}

/* A load asked with a shape request records the shape on another thread
 * meanwhile: the entry comes back with it, charged to the budget, and
 * srs_shape and later acquires record nothing more; eviction frees both.
 * None is recorded beside a load that fails at once (no file, or one
 * larger than the budget's room). */
static void test_shape_beside_load(void **state)
{
    fixture *f = *state;
    noted_circuit nc;
    memset(&nc, 0, sizeof nc);
    nc.syn = (cs_synthetic){300, 7};
    nc.inner = cs_synthetic_circuit(&nc.syn);
    srs_shape_req req = {{noted_synthesize, &nc}, NULL, NULL};
    engine_circuit_info info = srs_fixture_info("test-256");
    srs_entry *e, *e2;
    cuzk_err err, why;
    assert_int_equal(
        srs_acquire_shaped(&f->m, &info, engine_test_provider.setup_dev, &req, &e, NULL, &err), 0);
    int calls = nc.calls;
    uint64_t file = e->bytes; /* the parameter file's */
    assert_true(calls > 0);
    assert_false(pthread_equal(nc.last, pthread_self()));
    assert_non_null(e->shape);
    cs_shape *ref;
    assert_int_equal(cs_shape_record(&ref, nc.inner, &err), 0);
    uint8_t fp[2][32];
    cs_shape_fingerprint(ref, fp[0]);
    cs_shape_fingerprint(e->shape, fp[1]);
    assert_memory_equal(fp[0], fp[1], 32);
    cs_shape_free(ref);
    assert_int_equal(budget_used(&f->b), e->bytes + e->shape_bytes);
    assert_true(e->shape_bytes > 0);
    assert_ptr_equal(srs_shape(&f->m, e, req.circuit, NULL, NULL, NULL, &why), e->shape);
    assert_int_equal(srs_acquire_shaped(&f->m, &info, NULL, &req, &e2, NULL, &err), 0);
    assert_int_equal(nc.calls, calls);
    srs_release(&f->m, e);
    srs_release(&f->m, e2);
    bool was;
    uint64_t freed;
    assert_int_equal(srs_evict(&f->m, "test-256", &was, &freed, &err), 0);
    assert_int_equal(budget_used(&f->b), 0);
    assert_null(e->shape);

    engine_circuit_info missing = srs_fixture_info("test-512");
    calls = nc.calls;
    assert_int_equal(srs_acquire_shaped(&f->m, &missing, NULL, &req, &e, NULL, &err), CUZK_EIO);
    /* no file and no way to make it: the load fails at once, so no shape is
     * recorded beside it (a 32 GiB shape takes minutes and gigabytes) */
    assert_int_equal(nc.calls, calls);
    assert_int_equal(budget_used(&f->b), 0);
    engine_srs_status *st;
    size_t n = srs_list(&f->m, &st);
    const engine_srs_status *s512 = find_status(st, n, "test-512");
    assert_non_null(s512);
    assert_int_equal(s512->size_bytes, 0);
    free(st);
    /* nor beside a load whose file is larger than the budget's room */
    f->b.total = file - 1;
    assert_int_equal(srs_acquire_shaped(&f->m, &info, NULL, &req, &e, NULL, &err), CUZK_ENOMEM);
    assert_int_equal(nc.calls, calls);
    assert_int_equal(budget_used(&f->b), 0);
}

/* A load with an uncancellable shape request (a preload's) whose shape
 * can never fit beside its parameters: the shape is given up at once (the
 * circuit proves through full synthesis) instead of waiting forever with
 * the parameters' memory held, and the load completes. */
static void test_shape_never_fits(void **state)
{
    fixture *f = *state;
    cs_synthetic syn = {256, 0};
    srs_shape_req req = {cs_synthetic_circuit(&syn), NULL, NULL};
    engine_circuit_info info = srs_fixture_info("test-256");
    srs_entry *e;
    cuzk_err err, why;
    assert_int_equal(
        srs_acquire_shaped(&f->m, &info, engine_test_provider.setup_dev, &req, &e, NULL, &err), 0);
    uint64_t params = e->bytes, shape = e->shape_bytes;
    assert_true(shape > 0);
    srs_release(&f->m, e);
    bool was;
    uint64_t freed;
    assert_int_equal(srs_evict(&f->m, "test-256", &was, &freed, &err), 0);
    f->b.total = params + shape - 1;
    assert_int_equal(srs_acquire_shaped(&f->m, &info, NULL, &req, &e, NULL, &err), 0);
    assert_null(e->shape);
    assert_true(e->shape_failed);
    assert_null(srs_shape(&f->m, e, req.circuit, NULL, NULL, NULL, &why));
    assert_int_equal(budget_used(&f->b), params);
    srs_release(&f->m, e);
}

static void test_lru_under_pressure(void **state)
{
    fixture *f = *state;
    srs_entry *e[3];
    const char *ids[3] = {"test-256", "test-300", "test-400"};
    cuzk_err err;
    for (int i = 0; i < 3; i++) {
        engine_circuit_info info = srs_fixture_info(ids[i]);
        assert_int_equal(
            srs_acquire(&f->m, &info, engine_test_provider.setup_dev, &e[i], NULL, &err), 0);
        usleep(2000);
    }
    srs_release(&f->m, e[1]); /* released first: least recently used */
    usleep(2000);
    srs_release(&f->m, e[0]);
    /* e[2] is in use and never evicted; LRU order frees e[1] then e[0]. */
    uint64_t freed = srs_evict_idle(&f->m, 1, 0, 0);
    assert_int_equal(freed, e[1]->bytes);
    assert_int_equal(tier_of(&f->m, ids[1]), SRS_COLD);
    assert_int_equal(tier_of(&f->m, ids[0]), SRS_WARM);
    freed = srs_evict_idle(&f->m, UINT64_MAX, 0, 0);
    assert_int_equal(freed, e[0]->bytes);
    assert_int_equal(tier_of(&f->m, ids[2]), SRS_HOT);
    assert_int_equal(budget_used(&f->b), e[2]->bytes);
    assert_int_equal(n_unloaded, 2);
    assert_ptr_equal(unloaded[0], &e[1]->params);
    assert_ptr_equal(unloaded[1], &e[0]->params);
    assert_true(unloaded_whole);
    /* Entries idle for less than min_idle stay. */
    srs_release(&f->m, e[2]);
    f->m.rules.min_idle_ms = 60000;
    assert_int_equal(srs_evict_idle(&f->m, UINT64_MAX, 0, 0), 0);
}

/* The backend's hooks take the device's lock (the CUDA backend's
 * prove_each_device), which a start holds while it asks the engine for
 * more partitions, whose dispatcher holds the engine's lock while it asks
 * this manager (srs_take_ready): so a hook waiting for the device must not hold
 * the manager's lock. Here the test holds a stand-in device lock while an
 * eviction's hooks, then a failed load's shape hook, wait for it:
 * srs_take_ready must answer meanwhile (with the hooks called under the lock it
 * waited for ever: the hang of the soak on the H200), and an acquire of
 * the entry being released waits for its release, then loads anew. */
static pthread_mutex_t dev_mu = PTHREAD_MUTEX_INITIALIZER;
static int in_hooks;

static void hook_waits_for_device(void)
{
    __atomic_add_fetch(&in_hooks, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&dev_mu);
    pthread_mutex_unlock(&dev_mu);
}

static void device_params_hook(const groth16_params *pk)
{
    record_unload(pk);
    hook_waits_for_device();
}

static void device_shape_hook(const cs_shape *s)
{
    (void)s;
    hook_waits_for_device();
}

/* Whether in_hooks reaches n within 5 s. */
static bool hooks_reach(int n)
{
    for (int i = 0; i < 500 && __atomic_load_n(&in_hooks, __ATOMIC_SEQ_CST) < n; i++) usleep(10000);
    return __atomic_load_n(&in_hooks, __ATOMIC_SEQ_CST) >= n;
}

typedef struct srs_call {
    srs_manager *m;
    const engine_circuit_info *info;
    const srs_shape_req *req;
    srs_entry *e;
    int rc;
    bool ready, done;
} srs_call;

static void *ready_thread(void *arg)
{
    srs_call *c = arg;
    srs_entry *e = srs_take_ready(c->m, c->info->circuit_id);
    c->ready = e != NULL;
    if (e) srs_release(c->m, e);
    __atomic_store_n(&c->done, true, __ATOMIC_SEQ_CST);
    return NULL;
}

static void *evict_thread(void *arg)
{
    srs_call *c = arg;
    bool was;
    uint64_t freed;
    cuzk_err err;
    c->rc = srs_evict(c->m, c->info->circuit_id, &was, &freed, &err);
    c->ready = was;
    __atomic_store_n(&c->done, true, __ATOMIC_SEQ_CST);
    return NULL;
}

static void *acquire_thread(void *arg)
{
    srs_call *c = arg;
    cuzk_err err;
    c->rc = srs_acquire_shaped(c->m, c->info, NULL, c->req, &c->e, NULL, &err);
    __atomic_store_n(&c->done, true, __ATOMIC_SEQ_CST);
    return NULL;
}

/* srs_take_ready(id) on another thread while the device is held: whether it
 * answered within 5 s (if not, the device is let go so that it can end,
 * and *held says so). */
static bool ready_answers(srs_manager *m, const engine_circuit_info *info, bool *held)
{
    srs_call c = {m, info, NULL, NULL, 0, false, false};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, ready_thread, &c), 0);
    for (int i = 0; i < 500 && !__atomic_load_n(&c.done, __ATOMIC_SEQ_CST); i++) usleep(10000);
    bool answered = __atomic_load_n(&c.done, __ATOMIC_SEQ_CST);
    if (!answered) pthread_mutex_unlock(&dev_mu), *held = false;
    pthread_join(t, NULL);
    return answered && !c.ready;
}

static void test_hooks_outside_lock(void **state)
{
    fixture *f = *state;
    f->m.unloaded = device_params_hook;
    f->m.shape_unloaded = device_shape_hook;
    __atomic_store_n(&in_hooks, 0, __ATOMIC_SEQ_CST);
    cs_synthetic syn = {256, 3};
    srs_shape_req req = {cs_synthetic_circuit(&syn), NULL, NULL};
    engine_circuit_info info = srs_fixture_info("test-256");
    srs_entry *e;
    cuzk_err err;
    assert_int_equal(
        srs_acquire_shaped(&f->m, &info, engine_test_provider.setup_dev, &req, &e, NULL, &err), 0);
    assert_non_null(e->shape);
    srs_release(&f->m, e);

    /* An eviction whose hooks wait for the device. */
    bool held = true;
    pthread_mutex_lock(&dev_mu);
    srs_call ev = {&f->m, &info, NULL, NULL, -1, false, false};
    srs_call acq = {&f->m, &info, &req, NULL, -1, false, false};
    pthread_t te, ta;
    assert_int_equal(pthread_create(&te, NULL, evict_thread, &ev), 0);
    assert_true(hooks_reach(1));
    bool answered = ready_answers(&f->m, &info, &held);
    assert_int_equal(pthread_create(&ta, NULL, acquire_thread, &acq), 0);
    usleep(200000);
    bool acquired_early = __atomic_load_n(&acq.done, __ATOMIC_SEQ_CST);
    if (held) pthread_mutex_unlock(&dev_mu);
    pthread_join(te, NULL);
    pthread_join(ta, NULL);
    assert_true(answered);
    assert_false(acquired_early);
    assert_int_equal(ev.rc, 0);
    assert_true(ev.ready);
    assert_int_equal(acq.rc, 0);
    assert_ptr_equal(acq.e, e);
    assert_true(e->loaded);
    assert_int_equal(n_unloaded, 1);
    assert_int_equal(__atomic_load_n(&in_hooks, __ATOMIC_SEQ_CST), 2); /* params and shape */
    srs_release(&f->m, e);

    /* A load that fails (a file that is not parameters) drops the shape
     * recorded beside it; its hook waits for the device. */
    engine_circuit_info bad = srs_fixture_info("test-512");
    char path[128];
    snprintf(path, sizeof path, "%s/cuzk-test-512-dev.params", f->dir);
    assert_int_equal(cuzk_write_file(path, (const uint8_t *)"not parameters", 14, &err), 0);
    held = true;
    pthread_mutex_lock(&dev_mu);
    srs_call fail = {&f->m, &bad, &req, NULL, 0, false, false};
    assert_int_equal(pthread_create(&ta, NULL, acquire_thread, &fail), 0);
    assert_true(hooks_reach(3));
    answered = ready_answers(&f->m, &bad, &held);
    if (held) pthread_mutex_unlock(&dev_mu);
    pthread_join(ta, NULL);
    assert_true(answered);
    assert_int_not_equal(fail.rc, 0);
    assert_int_equal(budget_used(&f->b), e->bytes + e->shape_bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_load_refcount_evict, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reload_from_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_custom_file_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lru_under_pressure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shape_beside_load, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shape_never_fits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hooks_outside_lock, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
