/*
 * test_engine_pipeline.c - the engine end to end through engine.h, without
 * gRPC: the test circuit family on the CPU backend, every returned proof
 * decoded and verified here against the verifying key read back from the
 * param cache and public inputs recomputed independently; idempotent
 * submission, await timeouts, cancellation, priorities, batching, verify
 * failures and shutdown (also with partitions waiting in the GPU queue);
 * partitions synthesized into the storage of earlier
 * ones (the partition pool), their proofs verified all the same, the pool
 * off, and a budget too tight for pooled storage plus the NTT buffers
 * (the storage goes back rather than being held while waiting), and one
 * too small for the parameters with their shape or partition (the job
 * fails rather than wait forever); PreloadSRS
 * recording the circuit's shape with its parameters on the witness-only
 * path, so that the proofs after it record nothing; srs.preload loading
 * its circuits in the background and refusing an unknown one; the
 * result's timings as wall-clock spans within its total when partitions
 * wait for the parameters and synthesize in parallel; synthesis.nice on
 * the ordinary synthesis workers, not on the priority worker, and out of
 * range refused.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "cuzk/engine_log.h"
#include "cuzk/engine_provider.h"
#include "cuzk/params.h"
#include "engine_proofs.h"
#include "testutil.h"

#define N 1024 /* constraints per partition: ~40 ms to prove here */

typedef struct fixture {
    char dir[64];
    engine_t *e;
} fixture;

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void make_record(uint8_t rec[ENGINE_TEST_RECORD_BYTES], uint32_t parts, uint32_t seed,
                        uint32_t bad)
{
    memset(rec, 0, ENGINE_TEST_RECORD_BYTES);
    memcpy(rec, ENGINE_TEST_MAGIC, 8);
    put32(rec + 8, N);
    put32(rec + 12, parts);
    put32(rec + 16, seed);
    put32(rec + 24, bad);
}

static int submit(engine_t *e, int kind, int prio, uint32_t parts, uint32_t seed, const char *rid,
                  char id[ENGINE_ID_MAX])
{
    uint8_t rec[ENGINE_TEST_RECORD_BYTES];
    make_record(rec, parts, seed, 0xffffffffu);
    engine_request r = {
        .request_id = rid, .kind = kind, .priority = prio, .vanilla_proof = {rec, sizeof rec}};
    return engine_submit(e, &r, id, NULL, NULL);
}

/* An engine on a fresh param cache; tweak (may be NULL) edits the config. */
static int start(void **state, void (*tweak)(cuzk_config *))
{
    fixture *f = calloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/cuzk-test-engine.XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    engine_log_set_level("error");
    cuzk_config c;
    cuzk_config_default(&c);
    snprintf(c.param_cache, sizeof c.param_cache, "%s", f->dir);
    c.total_budget = 256 << 20;
    if (tweak) tweak(&c);
    cuzk_err err;
    if (engine_create(&f->e, &c, NULL, &err) ||
        engine_register_provider(f->e, &engine_test_provider, &err))
        return -1;
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return start(state, NULL);
}

static void batch_of_two(cuzk_config *c)
{
    c->max_batch_size = 2;
    c->max_batch_wait_ms = 300;
}

static int setup_batch(void **state)
{
    return start(state, batch_of_two);
}

static void short_lived(cuzk_config *c)
{
    c->result_ttl_s = 1;
    c->pipeline_enabled = false;
}

/* Eight synthesis workers: eight partitions wait for one parameter load
 * at once. */
static void wide(cuzk_config *c)
{
    c->synthesis_concurrency = 8;
}

static int setup_wide(void **state)
{
    return start(state, wide);
}

/* Two ordinary synthesis workers and the priority one, the ordinary ones
 * niced by 7. */
static void niced(cuzk_config *c)
{
    c->synthesis_concurrency = 2;
    c->priority_synthesis = 1;
    c->synthesis_nice = 7;
}

static int setup_niced(void **state)
{
    return start(state, niced);
}

static int setup_short_lived(void **state)
{
    return start(state, short_lived);
}

static int teardown(void **state)
{
    fixture *f = *state;
    engine_destroy(f->e);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    int rc = system(cmd);
    free(f);
    return rc;
}

/* Verifies every partition proof of a result independently. */
static void check_proof(fixture *f, const engine_result *r, uint32_t parts, uint32_t seed)
{
    check_test_proofs(f->dir, N, r, parts, seed);
}

/* One job of kind (parts partitions of seed, request id rid or none) to
 * its end, its proofs verified; its job id into id. */
static void prove_one(fixture *f, int kind, uint32_t parts, uint32_t seed, const char *rid,
                      char id[ENGINE_ID_MAX])
{
    assert_int_equal(submit(f->e, kind, 0, parts, seed, rid, id), 0);
    engine_result r;
    assert_int_equal(engine_await(f->e, id, 0, &r, NULL, NULL, NULL), 0);
    check_proof(f, &r, parts, seed);
    engine_result_free(&r);
}

static void test_prove_and_verify(void **state)
{
    fixture *f = *state;
    char id[ENGINE_ID_MAX], again[ENGINE_ID_MAX];
    assert_int_equal(submit(f->e, ENGINE_POREP, 0, 3, 11, "porep-1000-1", id), 0);
    assert_int_equal(submit(f->e, ENGINE_POREP, 0, 3, 11, "porep-1000-1", again), 0);
    assert_string_equal(id, again);
    engine_result r;
    assert_int_equal(engine_await(f->e, id, 0, &r, NULL, NULL, NULL), 0);
    check_proof(f, &r, 3, 11);
    assert_true(r.total_ms >= r.queue_ms);
    engine_result_free(&r);
    cuzk_err err;
    assert_int_equal(engine_await(f->e, "nope", 1, &r, NULL, NULL, &err), ENGINE_ENOTFOUND);
    engine_status_t s;
    assert_int_equal(engine_status(f->e, &s, NULL), 0);
    assert_int_equal(s.completed, 1);
    assert_int_equal(s.n_srs, 1);
    engine_status_free(&s);
}

static void test_timeout_and_cancel(void **state)
{
    fixture *f = *state;
    char running[ENGINE_ID_MAX], queued[ENGINE_ID_MAX];
    assert_int_equal(submit(f->e, ENGINE_POREP, 0, 16, 1, NULL, running), 0);
    assert_int_equal(submit(f->e, ENGINE_POREP, 0, 16, 2, NULL, queued), 0);
    engine_result r;
    assert_int_equal(engine_await(f->e, running, 20, &r, NULL, NULL, NULL), 0);
    assert_int_equal(r.status, ENGINE_TIMEOUT);
    bool was_running;
    assert_int_equal(engine_cancel(f->e, queued, &was_running, NULL), 0);
    assert_false(was_running);
    assert_int_equal(engine_cancel(f->e, running, &was_running, NULL), 0);
    assert_true(was_running);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(engine_await(f->e, i ? running : queued, 0, &r, NULL, NULL, NULL), 0);
        assert_int_equal(r.status, ENGINE_CANCELLED);
        assert_int_equal(r.proof_len, 0);
    }
    /* The partition in flight finishes its stage, then everything returns. */
    engine_status_t s;
    for (int i = 0; i < 500; i++) {
        assert_int_equal(engine_status(f->e, &s, NULL), 0);
        bool idle = !s.in_progress[ENGINE_POREP] && s.budget_used == s.srs[0].size_bytes;
        engine_status_free(&s);
        if (idle) break;
        usleep(20000);
    }
    assert_int_equal(engine_status(f->e, &s, NULL), 0);
    assert_int_equal(s.budget_used, s.srs[0].size_bytes);
    assert_int_equal(s.cancelled, 2);
    engine_status_free(&s);
    assert_int_equal(engine_cancel(f->e, "nope", &was_running, NULL), ENGINE_ENOTFOUND);
}

static void test_priority(void **state)
{
    fixture *f = *state;
    char a[ENGINE_ID_MAX], b[ENGINE_ID_MAX], w[ENGINE_ID_MAX];
    assert_int_equal(submit(f->e, ENGINE_POREP, 0, 8, 1, NULL, a), 0);
    assert_int_equal(submit(f->e, ENGINE_POREP, 0, 8, 2, NULL, b), 0);
    assert_int_equal(submit(f->e, ENGINE_WINNING_POST, 0, 1, 3, NULL, w), 0); /* CRITICAL */
    engine_result r;
    assert_int_equal(engine_await(f->e, w, 0, &r, NULL, NULL, NULL), 0);
    check_proof(f, &r, 1, 3);
    engine_result_free(&r);
    assert_int_equal(engine_await(f->e, b, 1, &r, NULL, NULL, NULL), 0);
    assert_int_equal(r.status, ENGINE_TIMEOUT); /* the younger PoRep is still queued */
    for (int i = 0; i < 2; i++) {
        assert_int_equal(engine_await(f->e, i ? b : a, 0, &r, NULL, NULL, NULL), 0);
        check_proof(f, &r, 8, i ? 2 : 1);
        engine_result_free(&r);
    }
}

static void test_failures(void **state)
{
    fixture *f = *state;
    char id[ENGINE_ID_MAX];
    uint8_t rec[ENGINE_TEST_RECORD_BYTES];
    make_record(rec, 3, 5, 2);
    engine_request req = {.kind = ENGINE_SNAP, .vanilla_proof = {rec, sizeof rec}};
    assert_int_equal(engine_submit(f->e, &req, id, NULL, NULL), 0);
    engine_result r;
    assert_int_equal(engine_await(f->e, id, 0, &r, NULL, NULL, NULL), 0);
    assert_int_equal(r.status, ENGINE_FAILED);
    assert_non_null(strstr(r.error, "partition 2: self-verification failed"));
    char retry[ENGINE_ID_MAX];
    req.request_id = "snap-1000-7"; /* a failed request's retry is a new job */
    assert_int_equal(engine_submit(f->e, &req, id, NULL, NULL), 0);
    assert_int_equal(engine_await(f->e, id, 0, &r, NULL, NULL, NULL), 0);
    assert_int_equal(engine_submit(f->e, &req, retry, NULL, NULL), 0);
    assert_string_not_equal(id, retry);
    assert_int_equal(engine_await(f->e, retry, 0, &r, NULL, NULL, NULL), 0);
    assert_int_equal(r.status, ENGINE_FAILED);
    req.request_id = NULL;
    req.vanilla_proof = (engine_bytes){(const uint8_t *)"{\"SectorNum\":1}", 15};
    req.kind = ENGINE_POREP;
    assert_int_equal(engine_submit(f->e, &req, id, NULL, NULL), 0);
    assert_int_equal(engine_await(f->e, id, 0, &r, NULL, NULL, NULL), 0);
    assert_int_equal(r.status, ENGINE_FAILED);
    assert_non_null(strstr(r.error, "no porep circuit is available"));
    cuzk_err err;
    req.kind = ENGINE_KIND_UNSPECIFIED;
    assert_int_equal(engine_submit(f->e, &req, id, NULL, &err), CUZK_EINVAL);
    req.kind = ENGINE_POREP;
    req.vanilla_proof.len = 0;
    assert_int_equal(engine_submit(f->e, &req, id, NULL, &err), CUZK_EINVAL);
}

static void test_batch(void **state)
{
    fixture *f = *state;
    char a[ENGINE_ID_MAX], b[ENGINE_ID_MAX], c[ENGINE_ID_MAX];
    assert_int_equal(submit(f->e, ENGINE_POREP, 0, 2, 1, NULL, a), 0);
    assert_int_equal(submit(f->e, ENGINE_POREP, 0, 2, 9, NULL, b), 0); /* full: flushed */
    assert_int_equal(submit(f->e, ENGINE_POREP, 0, 1, 5, NULL, c), 0); /* alone: waits */
    engine_result r;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(engine_await(f->e,
                                      i == 0   ? a
                                      : i == 1 ? b
                                               : c,
                                      0, &r, NULL, NULL, NULL),
                         0);
        check_proof(f, &r, i == 2 ? 1 : 2, i == 0 ? 1 : i == 1 ? 9 : 5);
        if (i == 2) assert_true(r.queue_ms >= 290);
        engine_result_free(&r);
    }
}

static void test_shutdown_fails_the_rest(void **state)
{
    fixture *f = *state;
    char ids[3][ENGINE_ID_MAX];
    for (int i = 0; i < 3; i++)
        assert_int_equal(submit(f->e, ENGINE_POREP, 0, 16, 1, NULL, ids[i]), 0);
    engine_shutdown(f->e, 0);
    engine_result r;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(engine_await(f->e, ids[i], 0, &r, NULL, NULL, NULL), 0);
        assert_int_equal(r.status, ENGINE_FAILED);
        assert_non_null(strstr(r.error, "shut down"));
    }
    assert_int_equal(submit(f->e, ENGINE_POREP, 0, 1, 1, NULL, ids[0]), ENGINE_ESHUTDOWN);
}

typedef struct shutdown_arg {
    engine_t *e;
    volatile int done;
} shutdown_arg;

static void *shutdown_thread(void *arg)
{
    shutdown_arg *a = arg;
    engine_shutdown(a->e, 0);
    a->done = 1;
    return NULL;
}

/* A shutdown whose grace ends while synthesized partitions wait in the GPU
 * queue returns, and fails their jobs (the soak's SIGTERM drain once hung
 * here: the prover workers, seeing a queue they could no longer take from,
 * spun instead of ending). */
static void test_shutdown_with_gpu_queue(void **state)
{
    fixture *f = *state;
    char ids[2][ENGINE_ID_MAX];
    for (int i = 0; i < 2; i++)
        assert_int_equal(submit(f->e, ENGINE_POREP, 0, 16, (uint32_t)i + 1, NULL, ids[i]), 0);
    uint32_t depth = 0;
    for (int t = 0; t < 6000 && depth == 0; t++) {
        engine_status_t s;
        assert_int_equal(engine_status(f->e, &s, NULL), 0);
        depth = s.gpu_queue_depth;
        engine_status_free(&s);
        if (!depth) usleep(10 * 1000);
    }
    assert_true(depth > 0);
    shutdown_arg a = {f->e, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, shutdown_thread, &a), 0);
    for (int t = 0; t < 3000 && !a.done; t++) usleep(10 * 1000);
    if (!a.done) {
        /* Its workers still run: the engine cannot be torn down. */
        fprintf(stderr, "engine_shutdown did not return within 30 s with a GPU queue\n");
        _exit(1);
    }
    pthread_join(th, NULL);
    engine_result r;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(engine_await(f->e, ids[i], 0, &r, NULL, NULL, NULL), 0);
        assert_int_equal(r.status, ENGINE_FAILED);
        assert_non_null(strstr(r.error, "shut down"));
        engine_result_free(&r);
    }
}

/* Without pipelining, and results dropped after result_ttl. */
static void test_serial_and_expiry(void **state)
{
    fixture *f = *state;
    char id[ENGINE_ID_MAX];
    prove_one(f, ENGINE_WINDOW_POST, 4, 21, "wpost-1", id);
    engine_result r;
    /* One partition at a time: partitions 1 .. 3 were synthesized into the
     * storage partition 0 left, which stays reserved in the budget. */
    engine_status_t s;
    assert_int_equal(engine_status(f->e, &s, NULL), 0);
    assert_int_equal(s.pool_entries, 1);
    assert_int_equal(s.pool_reused, 3);
    /* a test-1024 partition's witness (the witness-only path: no a, b,
     * c): 7 words, 2 inputs with ONE, 838 aux (provider_test.c), and its
     * density bitmaps */
    assert_int_equal(s.pool_bytes, (2 + 838) * sizeof(fr_t) + (2 * 14 + 1) * sizeof(uint64_t));
    assert_int_equal(s.n_srs, 1);
    assert_int_equal(s.budget_used, s.srs[0].size_bytes + s.pool_bytes);
    engine_status_free(&s);
    usleep(2300 * 1000); /* ttl 1 s + the timer's 1 s period */
    cuzk_err err;
    assert_int_equal(engine_await(f->e, id, 1, &r, NULL, NULL, &err), ENGINE_ENOTFOUND);
    char again[ENGINE_ID_MAX];
    assert_int_equal(submit(f->e, ENGINE_WINDOW_POST, 0, 1, 21, "wpost-1", again), 0);
    assert_string_not_equal(id, again); /* the request id is free again */
    assert_int_equal(engine_await(f->e, again, 0, &r, NULL, NULL, NULL), 0);
    check_proof(f, &r, 1, 21);
    engine_result_free(&r);
}

static void no_reuse(cuzk_config *c)
{
    c->pipeline_enabled = false;
    c->reuse_partitions = false;
}

static int setup_no_reuse(void **state)
{
    return start(state, no_reuse);
}

/* memory.reuse_partitions = false: every partition's storage is freed. */
static void test_no_reuse(void **state)
{
    fixture *f = *state;
    char id[ENGINE_ID_MAX];
    prove_one(f, ENGINE_POREP, 2, 31, NULL, id);
    engine_status_t s;
    assert_int_equal(engine_status(f->e, &s, NULL), 0);
    assert_int_equal(s.pool_entries, 0);
    assert_int_equal(s.pool_reused, 0);
    assert_int_equal(s.pool_bytes, 0);
    assert_int_equal(s.n_srs, 1);
    assert_int_equal(s.budget_used, s.srs[0].size_bytes);
    engine_status_free(&s);
}

/* An engine of the test family on f's param cache with config c. */
static engine_t *engine_on(fixture *f, cuzk_config *c)
{
    engine_t *e;
    snprintf(c->param_cache, sizeof c->param_cache, "%s", f->dir);
    assert_int_equal(engine_create(&e, c, NULL, NULL), 0);
    assert_int_equal(engine_register_provider(e, &engine_test_provider, NULL), 0);
    return e;
}

/* A new engine (witness_only as given) in f->e that has preloaded
 * test-1024; the size of its SRS entry. */
static uint64_t preloaded(fixture *f, bool witness_only)
{
    engine_destroy(f->e);
    cuzk_config c;
    cuzk_config_default(&c);
    c.witness_only = witness_only;
    f->e = engine_on(f, &c);
    bool loaded;
    uint64_t ms;
    assert_int_equal(engine_preload(f->e, "test-1024", &loaded, &ms, NULL), 0);
    engine_status_t s;
    assert_int_equal(engine_status(f->e, &s, NULL), 0);
    assert_int_equal(s.n_srs, 1);
    uint64_t size = s.srs[0].size_bytes;
    engine_status_free(&s);
    return size;
}

/*
 * A budget of the SRS and exactly one partition's reservation: the
 * second partition cannot add the NTT buffers to the pooled storage it
 * takes (an entry holds its bitmaps too, past the estimate), so it gives
 * the storage back and reserves the whole partition, which evicts the
 * entry, rather than wait forever holding it; the job completes.
 */
static void test_tight_budget(void **state)
{
    fixture *f = *state;
    /* the parameters as a later engine reads them from the cache */
    bool loaded;
    uint64_t ms;
    assert_int_equal(engine_preload(f->e, "test-1024", &loaded, &ms, NULL), 0);
    uint64_t srs = preloaded(f, false); /* no shape */
    engine_destroy(f->e);
    cuzk_config c;
    cuzk_config_default(&c);
    c.witness_only = false; /* the prover backend's storage, a, b, c included */
    engine_status_t s;
    /* test-1024: 841 constraints with the inputs, 838 aux, domain 1024 */
    uint64_t partition = (3 * 841 + 2 + 838) * sizeof(fr_t) + 3 * 1024 * sizeof(fr_t);
    c.total_budget = srs + partition;
    c.pipeline_enabled = false;
    f->e = engine_on(f, &c);
    char id[ENGINE_ID_MAX];
    engine_result r;
    assert_int_equal(submit(f->e, ENGINE_POREP, 0, 2, 43, NULL, id), 0);
    assert_int_equal(engine_await(f->e, id, 20000, &r, NULL, NULL, NULL), 0);
    check_proof(f, &r, 2, 43);
    engine_result_free(&r);
    assert_int_equal(engine_status(f->e, &s, NULL), 0);
    assert_int_equal(s.pool_reused, 0);
    assert_int_equal(s.pool_entries, 1);
    assert_int_equal(s.budget_used, srs + s.pool_bytes);
    engine_status_free(&s);
}

/* A fresh engine on f whose budget holds the parameters (srs bytes) and
 * 4 KiB: a PoRep request (seed) must fail at once naming the budget, not
 * wait forever for memory its own parameters hold. */
static void budget_too_small_fails(fixture *f, uint64_t srs, uint32_t seed)
{
    cuzk_config c;
    cuzk_config_default(&c);
    c.total_budget = srs + 4096;
    f->e = engine_on(f, &c);
    char id[ENGINE_ID_MAX];
    engine_result r;
    assert_int_equal(submit(f->e, ENGINE_POREP, 0, 1, seed, NULL, id), 0);
    assert_int_equal(engine_await(f->e, id, 30000, &r, NULL, NULL, NULL), 0);
    assert_int_equal(r.status, ENGINE_FAILED);
    assert_non_null(strstr(r.error, "exceed the memory budget"));
    engine_result_free(&r);
}

/*
 * A budget that holds the parameters with a few bytes to spare (the soak's
 * too small budget): the witness-only path's shape, recorded beside the
 * load, cannot fit beside the parameters, nor can the partition, and the
 * job holds the parameters while it waits for either; it fails at once
 * naming the budget instead of waiting forever (the soak's request that
 * waited 13 minutes in such an epoch).
 */
static void test_budget_too_small(void **state)
{
    fixture *f = *state;
    bool loaded;
    uint64_t ms;
    assert_int_equal(engine_preload(f->e, "test-1024", &loaded, &ms, NULL), 0);
    uint64_t srs = preloaded(f, false); /* the parameters alone */
    engine_destroy(f->e);
    budget_too_small_fails(f, srs, 44);
}

/* PreloadSRS on the witness-only path records the circuit's shape from
 * the provider's blank circuit with its parameters (the SRS entry's size
 * is both, and the shape equals a partition's: the proofs that follow
 * verify and record nothing more); on the prover backend's path the
 * parameters alone. */
static void test_preload_shape(void **state)
{
    fixture *f = *state;
    uint64_t size[2];
    for (int witness = 0; witness < 2; witness++) {
        size[witness] = preloaded(f, witness);
        engine_status_t s;
        char id[ENGINE_ID_MAX];
        engine_result r;
        assert_int_equal(submit(f->e, ENGINE_POREP, 0, 2, 44, NULL, id), 0);
        assert_int_equal(engine_await(f->e, id, 20000, &r, NULL, NULL, NULL), 0);
        check_proof(f, &r, 2, 44);
        engine_result_free(&r);
        assert_int_equal(engine_status(f->e, &s, NULL), 0);
        assert_int_equal(s.srs[0].size_bytes, size[witness]);
        engine_status_free(&s);
    }
    /* the shape of test-1024: about five bytes an entry, so well over a KB */
    assert_true(size[1] > size[0] + 1024);
}

/* srs.preload: the engine loads the listed circuit in the background
 * once started (parameters and shape: the SRS entry grows past the
 * parameters alone, which an explicit preload without the shape shows);
 * an id no provider knows stops the start, naming it and the ids there are. */
static void test_preload_config(void **state)
{
    fixture *f = *state;
    uint64_t params = preloaded(f, false);
    engine_destroy(f->e);
    cuzk_config c;
    cuzk_config_default(&c);
    c.n_preload = 1;
    strcpy(c.preload[0], "test-1024");
    f->e = engine_on(f, &c);
    cuzk_err err = {0};
    assert_int_equal(engine_start_preload(f->e, &err), 0);
    engine_status_t s;
    uint64_t size = 0;
    for (int i = 0; i < 2000 && size <= params; i++) { /* up to 20 s */
        assert_int_equal(engine_status(f->e, &s, NULL), 0);
        size = s.n_srs ? s.srs[0].size_bytes : 0;
        engine_status_free(&s);
        if (size <= params) usleep(10000);
    }
    assert_true(size > params);
    engine_destroy(f->e);

    strcpy(c.preload[0], "test-nope");
    f->e = engine_on(f, &c);
    assert_int_equal(engine_start_preload(f->e, &err), ENGINE_ENOTFOUND);
    assert_non_null(strstr(err.msg, "srs.preload: no circuit 'test-nope'"));
    assert_non_null(strstr(err.msg, "circuit ids: test-N (N constraints, 129..1048576)"));
}

/* Timings that add up: a job of 8 partitions on a fresh param cache,
 * whose 8 synthesis workers all wait for the one development setup and
 * load of its parameters, then synthesize side by side: each timing is
 * a wall-clock span of the job's life, at most its total (summed over
 * the partitions, the parameter wait alone came to about 8 times the
 * setup, several times the total); queue and parameter wait do not
 * overlap, the parameter wait is most of the time before synthesis. */
static void test_timings(void **state)
{
    fixture *f = *state;
    char id[ENGINE_ID_MAX];
    engine_result r;
    assert_int_equal(submit(f->e, ENGINE_POREP, 0, 8, 45, NULL, id), 0);
    assert_int_equal(engine_await(f->e, id, 0, &r, NULL, NULL, NULL), 0);
    check_proof(f, &r, 8, 45);
    print_message("total %llu ms: queue %llu, srs %llu, synthesis %llu, gpu %llu\n",
                  (unsigned long long)r.total_ms, (unsigned long long)r.queue_ms,
                  (unsigned long long)r.srs_ms, (unsigned long long)r.synthesis_ms,
                  (unsigned long long)r.gpu_ms);
    assert_true(r.srs_ms > 0 && r.gpu_ms > 0); /* synthesis: about a millisecond */
    assert_true(r.queue_ms <= r.total_ms);
    assert_true(r.srs_ms <= r.total_ms);
    assert_true(r.synthesis_ms <= r.total_ms);
    assert_true(r.gpu_ms <= r.total_ms);
    assert_true(r.queue_ms + r.srs_ms <= r.total_ms);
    engine_result_free(&r);
}

/* A job whose partition 1 has a witness that fails constraint 130: on
 * the witness-only path (the default) the evaluation of the recorded
 * shape names the constraint before anything is proved; on the prover
 * backend's path the proof is made and fails its self-verification.
 * Either way the job fails naming the partition, and the next job of the
 * same circuit is proved and verified. */
static void test_unsatisfied(void **state)
{
    fixture *f = *state;
    for (int witness = 1; witness >= 0; witness--) {
        if (!witness) {
            engine_destroy(f->e);
            cuzk_config c;
            cuzk_config_default(&c);
            c.witness_only = false;
            f->e = engine_on(f, &c);
        }
        char id[ENGINE_ID_MAX];
        uint8_t rec[ENGINE_TEST_RECORD_BYTES];
        make_record(rec, 3, 9, 0xffffffffu);
        put32(rec + 28, 2); /* partition 1 */
        engine_request req = {.kind = ENGINE_POREP, .vanilla_proof = {rec, sizeof rec}};
        assert_int_equal(engine_submit(f->e, &req, id, NULL, NULL), 0);
        engine_result r;
        assert_int_equal(engine_await(f->e, id, 0, &r, NULL, NULL, NULL), 0);
        assert_int_equal(r.status, ENGINE_FAILED);
        const char *want = witness ? "partition 1: constraint 130 is not satisfied"
                                   : "partition 1: self-verification failed";
        if (!strstr(r.error, want)) fail_msg("error '%s' lacks '%s'", r.error, want);
        engine_result_free(&r);
        assert_int_equal(submit(f->e, ENGINE_POREP, 0, 3, 9, NULL, id), 0);
        assert_int_equal(engine_await(f->e, id, 0, &r, NULL, NULL, NULL), 0);
        check_proof(f, &r, 3, 9);
        engine_result_free(&r);
    }
}

/*
 * The same too small budget on a fresh param cache: the shape, recorded
 * beside the development setup (which takes longer), has its bytes before
 * the parameters ask for theirs, which then cannot fit beside it; the
 * shape is dropped, the parameters load, and the job fails on its
 * partition instead of the load waiting forever.
 */
static void test_budget_too_small_fresh(void **state)
{
    fixture *f = *state;
    bool loaded;
    uint64_t ms;
    assert_int_equal(engine_preload(f->e, "test-1024", &loaded, &ms, NULL), 0);
    uint64_t srs = preloaded(f, false);
    engine_destroy(f->e);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -f %s/*", f->dir);
    assert_int_equal(system(cmd), 0);
    budget_too_small_fails(f, srs, 45);
}

/* The nice of each of this process's threads named cuzk-synth, counted
 * into at[n + 20] (n: -20 .. 19); returns how many there are. */
static int synth_nices(int at[40])
{
    memset(at, 0, 40 * sizeof *at);
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int count = 0;
    struct dirent *t;
    while ((t = readdir(d))) {
        if (t->d_name[0] == '.') continue;
        char path[300], name[32] = {0};
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", t->d_name);
        FILE *fp = fopen(path, "r");
        if (!fp) continue; /* the thread has ended */
        bool synth = fgets(name, sizeof name, fp) && !strcmp(name, "cuzk-synth\n");
        fclose(fp);
        if (!synth) continue;
        errno = 0;
        int nice = getpriority(PRIO_PROCESS, (id_t)atoi(t->d_name));
        if (errno) continue; /* the thread has ended */
        assert_true(nice >= -20 && nice <= 19);
        at[nice + 20]++;
        count++;
    }
    closedir(d);
    return count;
}

/* synthesis.nice = 7: the two ordinary workers run 7 above the daemon's
 * nice (at most 19), the priority worker at it, and so they stay through
 * a NORMAL job (any thread an ordinary worker starts, as an OpenMP team,
 * takes its nice from it: Linux copies a thread's nice to the threads it
 * creates; the test family's synthesis starts none); 20 is refused at
 * engine_create. */
static void test_synthesis_nice(void **state)
{
    fixture *f = *state;
    int base = getpriority(PRIO_PROCESS, 0), want = base + 7 > 19 ? 19 : base + 7;
    int at[40], n = 0;
    for (int i = 0; i < 100 && (n = synth_nices(at)) < 3; i++) usleep(10000);
    assert_int_equal(n, 3);
    assert_int_equal(at[want + 20], 2);
    assert_int_equal(at[base + 20], 1);
    char id[ENGINE_ID_MAX];
    prove_one(f, ENGINE_POREP, 4, 5, NULL, id);
    n = synth_nices(at); /* the workers and the team threads they started */
    assert_int_equal(at[base + 20], 1);
    assert_int_equal(at[want + 20], n - 1);
    cuzk_config c;
    cuzk_config_default(&c);
    c.synthesis_nice = 20;
    engine_t *e = NULL;
    cuzk_err err = {0};
    assert_int_not_equal(engine_create(&e, &c, NULL, &err), 0);
    assert_non_null(strstr(err.msg, "synthesis.nice = 20"));
    assert_null(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_prove_and_verify, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_and_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_priority, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch, setup_batch, teardown),
        cmocka_unit_test_setup_teardown(test_shutdown_fails_the_rest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shutdown_with_gpu_queue, setup, teardown),
        cmocka_unit_test_setup_teardown(test_serial_and_expiry, setup_short_lived, teardown),
        cmocka_unit_test_setup_teardown(test_no_reuse, setup_no_reuse, teardown),
        cmocka_unit_test_setup_teardown(test_tight_budget, setup, teardown),
        cmocka_unit_test_setup_teardown(test_budget_too_small, setup, teardown),
        cmocka_unit_test_setup_teardown(test_budget_too_small_fresh, setup, teardown),
        cmocka_unit_test_setup_teardown(test_preload_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_preload_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsatisfied, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timings, setup_wide, teardown),
        cmocka_unit_test_setup_teardown(test_synthesis_nice, setup_niced, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
