/*
 * test_engine_multigpu.c - one engine driving several devices, through a
 * test backend of DEVICES devices that proves on the CPU (the CPU
 * backend's start and finish) and counts, per device, the starts and the
 * partitions proved, the starts running at once, and fails on demand: a
 * device error (CUZK_EDEVICE, as a lost GPU) or out of memory
 * (CUZK_ENOMEM). Checked: the partitions of one job spread over every
 * device and run on several at once; gpus.devices selects (an ordinal the
 * backend lacks is an error naming it); a device that fails is taken out
 * of service, its partition proved on another, the job's proof verifying,
 * and later jobs still served; with every device failed, jobs fail with a
 * message naming the devices' errors; out of memory fails the job but
 * leaves the device in service; GetStatus, metrics and the status JSON
 * show each device's state, queue, busy time and partitions; host memory
 * a device's start parks (as the CUDA prover's H step rows) is counted in
 * the budget and the status after that start, and given back when the
 * backend frees it.
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
#include "cuzk/params.h"
#include "engine_proofs.h"
#include "testutil.h"

#define N       1024 /* constraints per partition */
#define DEVICES 3

/* The test backend's state; fail[d]: the status of device d's next start
 * (CUZK_EDEVICE stays, as a broken device does; CUZK_ENOMEM once). */
static struct {
    pthread_mutex_t mu;
    int fail[DEVICES];
    unsigned starts[DEVICES], proved[DEVICES];
    int running, max_running;
    size_t max_n; /* the most circuits one start was given (with those fed) */
    unsigned delay_ms;
    uint64_t park;            /* host bytes a successful start parks, kept (0: none) */
    uint64_t parked[DEVICES]; /* host bytes each device holds so */
    bool fed;                 /* the backend takes a feed (fed_backend) */
    size_t fed_fail_at; /* a fed start refuses its circuit number fed_fail_at (1-based), once */
    unsigned fed_starts, fed_more;
    bool lane;            /* the fed backend with a small-circuit lane (lane_backend) */
    unsigned lane_starts; /* its lane's starts */
    unsigned lane_beside; /* of which while a device start was held */
    /* hold: a start waits (a plain one before proving, a fed one before
     * asking its feed for more) until it turns false, as one whose
     * kernels run. */
    bool hold;
    unsigned held; /* starts waiting now */
    pthread_cond_t released;
    /* Each circuit proved, in order: its circuit (the parameters' H
     * length) and which start proved it. */
    struct {
        size_t n_h;
        unsigned start;
    } log[256];
    size_t n_log;
} fake = {.mu = PTHREAD_MUTEX_INITIALIZER, .released = PTHREAD_COND_INITIALIZER};

static void fake_reset(unsigned delay_ms)
{
    pthread_mutex_lock(&fake.mu);
    memset(fake.fail, 0, sizeof fake.fail);
    memset(fake.starts, 0, sizeof fake.starts);
    memset(fake.proved, 0, sizeof fake.proved);
    fake.running = fake.max_running = 0;
    fake.max_n = 0;
    fake.fed_fail_at = 0;
    fake.fed_starts = fake.fed_more = 0;
    fake.lane_starts = fake.lane_beside = 0;
    fake.hold = false;
    fake.n_log = 0;
    fake.delay_ms = delay_ms;
    fake.park = 0;
    memset(fake.parked, 0, sizeof fake.parked);
    pthread_mutex_unlock(&fake.mu);
}

/* Releases the starts held (hold: false). */
static void fake_release(void)
{
    pthread_mutex_lock(&fake.mu);
    fake.hold = false;
    pthread_cond_broadcast(&fake.released);
    pthread_mutex_unlock(&fake.mu);
}

/* Waits while fake.hold (fake.mu held). */
static void fake_wait_release(void)
{
    fake.held++;
    while (fake.hold) pthread_cond_wait(&fake.released, &fake.mu);
    fake.held--;
}

/* Logs n circuits of pk proved by start number `start` (fake.mu held). */
static void fake_log(const groth16_params *pk, size_t n, unsigned start)
{
    for (size_t i = 0; i < n && fake.n_log < 256; i++)
        fake.log[fake.n_log].n_h = pk->n_h, fake.log[fake.n_log++].start = start;
}

static int fake_devices(size_t *n, char names[][128], uint64_t *vram_total, size_t max)
{
    for (size_t i = 0; i < DEVICES && i < max; i++) {
        snprintf(names[i], 128, "fake:%zu", i);
        vram_total[i] = (uint64_t)1 << 30;
        *n = i + 1;
    }
    return CUZK_OK;
}

static int fake_start(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                      void **handle, cuzk_err *err)
{
    pthread_mutex_lock(&fake.mu);
    fake.starts[device]++;
    if (n > fake.max_n) fake.max_n = n;
    int fail = fake.fail[device];
    if (fail == CUZK_ENOMEM) fake.fail[device] = 0;
    if (!fail && ++fake.running > fake.max_running) fake.max_running = fake.running;
    unsigned delay = fake.delay_ms, start = fake.starts[device];
    if (!fail) fake_wait_release();
    pthread_mutex_unlock(&fake.mu);
    if (fail == CUZK_EDEVICE)
        return cuzk_errf(err, fail, "fake device %d: lost (injected)", device);
    if (fail) return cuzk_errf(err, fail, "fake device %d: out of memory (injected)", device);
    usleep(delay * 1000);
    int rc = engine_cpu_backend.start(device, pk, circuits, n, handle, err);
    pthread_mutex_lock(&fake.mu);
    fake.running--;
    fake.proved[device] += rc ? 0 : (unsigned)n; /* partitions: a start may take several */
    if (!rc && fake.park > fake.parked[device]) fake.parked[device] = fake.park;
    if (!rc) fake_log(pk, n, start);
    pthread_mutex_unlock(&fake.mu);
    return rc;
}

static int fake_finish(void *handle, groth16_proof *proofs, size_t n, cuzk_err *err)
{
    return engine_cpu_backend.finish(handle, proofs, n, err);
}

/* As the CUDA prover's pinned staging pools: host memory per device,
 * and what its starts parked. */
static uint64_t fake_host_bytes(int device)
{
    pthread_mutex_lock(&fake.mu);
    uint64_t parked = fake.parked[device];
    pthread_mutex_unlock(&fake.mu);
    return ((uint64_t)(device + 1) << 20) + parked;
}

static const engine_backend fake_backend = {.name = "fake",
                                            .devices = fake_devices,
                                            .start = fake_start,
                                            .finish = fake_finish,
                                            .host_bytes = fake_host_bytes};

/* A fed start's proofs, made as the circuits come (each consumed once
 * proved: its storage may go at once). */
typedef struct fed_handle {
    size_t n;
    groth16_proof proofs[64];
} fed_handle;

/* The start of a backend that takes a feed: proves each circuit on the
 * CPU as it comes, reports it consumed, and asks for more (delay_ms each
 * time, so the queue fills meanwhile) until the feed has none; refuses
 * circuit fed_fail_at once. */
static int fed_start(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                     const engine_feed *feed, void **handle, cuzk_err *err)
{
    fed_handle *h = calloc(1, sizeof *h);
    if (!h) return cuzk_errf(err, CUZK_ENOMEM, "fed: out of memory");
    pthread_mutex_lock(&fake.mu);
    fake.starts[device]++;
    unsigned start = ++fake.fed_starts;
    size_t fail_at = fake.fed_fail_at;
    unsigned delay = fake.delay_ms;
    pthread_mutex_unlock(&fake.mu);
    int rc = CUZK_OK;
    for (size_t m = n; !rc && m;) {
        for (size_t i = 0; !rc && i < m; i++) {
            if (h->n + 1 == fail_at) {
                rc = cuzk_errf(err, CUZK_EINVAL, "fed: circuit %zu refused (injected)", h->n);
                pthread_mutex_lock(&fake.mu);
                fake.fed_fail_at = 0;
                pthread_mutex_unlock(&fake.mu);
                break;
            }
            rc = groth16_prove(&h->proofs[h->n], pk, &circuits[i], 1, NULL, NULL, err);
            if (rc) break;
            pthread_mutex_lock(&fake.mu);
            fake_log(pk, 1, start);
            pthread_mutex_unlock(&fake.mu);
            feed->consumed(feed->ctx, h->n++);
        }
        usleep(delay * 1000);
        pthread_mutex_lock(&fake.mu);
        fake_wait_release();
        pthread_mutex_unlock(&fake.mu);
        if (!rc) m = h->n < 64 ? feed->more(feed->ctx, &circuits, feed->max - h->n) : 0;
        pthread_mutex_lock(&fake.mu);
        fake.fed_more += !rc && m;
        pthread_mutex_unlock(&fake.mu);
    }
    pthread_mutex_lock(&fake.mu);
    if (h->n > fake.max_n) fake.max_n = h->n;
    fake.proved[device] += rc ? 0 : (unsigned)h->n;
    pthread_mutex_unlock(&fake.mu);
    if (rc) {
        free(h);
        return rc;
    }
    *handle = h;
    return CUZK_OK;
}

static int fed_finish(void *handle, groth16_proof *proofs, size_t n, cuzk_err *err)
{
    fed_handle *h = handle;
    int rc = n == h->n ? CUZK_OK : cuzk_errf(err, CUZK_EINVAL, "fed: %zu of %zu", n, h->n);
    if (!rc) memcpy(proofs, h->proofs, n * sizeof *proofs);
    free(h);
    return rc;
}

static size_t no_more(void *ctx, const cs_prover **circuits, size_t room)
{
    (void)ctx, (void)circuits, (void)room;
    return 0;
}

static void no_consumed(void *ctx, size_t i)
{
    (void)ctx, (void)i;
}

/* The same backend's start without a feed (a partition proved alone). */
static int fed_plain(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                     void **handle, cuzk_err *err)
{
    engine_feed none = {NULL, n, no_more, no_consumed};
    return fed_start(device, pk, circuits, n, &none, handle, err);
}

static const engine_backend fed_backend = {.name = "fed",
                                           .devices = fake_devices,
                                           .start = fed_plain,
                                           .finish = fed_finish,
                                           .start_fed = fed_start};

/* The lane of lane_backend: circuits under N constraints (the CRITICAL
 * jobs' of N_CRIT), proved on the CPU at once, whatever the device's
 * start is doing (held or not), counted. */
static int lane_setup(int device, unsigned max_log, uint64_t params_bytes, unsigned pause_ms,
                      cuzk_err *err)
{
    (void)device, (void)max_log, (void)params_bytes, (void)pause_ms, (void)err;
    return CUZK_OK;
}

static bool lane_fits(int device, const groth16_params *pk, const cs_prover *c)
{
    (void)device, (void)pk;
    return c->num_constraints < N;
}

static int lane_start(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                      void **handle, cuzk_err *err)
{
    (void)device;
    fed_handle *h = calloc(1, sizeof *h);
    if (!h) return cuzk_errf(err, CUZK_ENOMEM, "lane: out of memory");
    pthread_mutex_lock(&fake.mu);
    fake.lane_starts++;
    fake.lane_beside += fake.held > 0;
    pthread_mutex_unlock(&fake.mu);
    int rc = n <= 64 ? groth16_prove(h->proofs, pk, circuits, n, NULL, NULL, err)
                     : cuzk_errf(err, CUZK_EINVAL, "lane: %zu circuits", n);
    if (rc) {
        free(h);
        return rc;
    }
    h->n = n;
    *handle = h;
    return CUZK_OK;
}

static void lane_release(int device)
{
    (void)device;
}

static const engine_backend lane_backend = {.name = "lane",
                                            .devices = fake_devices,
                                            .start = fed_plain,
                                            .finish = fed_finish,
                                            .start_fed = fed_start,
                                            .lane_setup = lane_setup,
                                            .lane_fits = lane_fits,
                                            .lane_start = lane_start,
                                            .lane_release = lane_release};

typedef struct fixture {
    char dir[64];
    engine_t *e;
} fixture;

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A job of `parts` partitions of the test circuit of n constraints. */
/* A test-family job; *pos (may be NULL): its queue position. */
static int submit_at(engine_t *e, uint32_t n, uint32_t parts, uint32_t seed, int priority,
                     char id[ENGINE_ID_MAX], uint32_t *pos)
{
    uint8_t rec[ENGINE_TEST_RECORD_BYTES] = {0};
    memcpy(rec, ENGINE_TEST_MAGIC, 8);
    put32(rec + 8, n);
    put32(rec + 12, parts);
    put32(rec + 16, seed);
    put32(rec + 24, 0xffffffffu);
    engine_request r = {.kind =
                            priority == ENGINE_PRIO_CRITICAL ? ENGINE_WINNING_POST : ENGINE_POREP,
                        .priority = priority,
                        .vanilla_proof = {rec, sizeof rec}};
    return engine_submit(e, &r, id, pos, NULL);
}

static int submit_as(engine_t *e, uint32_t n, uint32_t parts, uint32_t seed, int priority,
                     char id[ENGINE_ID_MAX])
{
    return submit_at(e, n, parts, seed, priority, id, NULL);
}

static int submit(engine_t *e, uint32_t parts, uint32_t seed, char id[ENGINE_ID_MAX])
{
    return submit_as(e, N, parts, seed, ENGINE_PRIO_NORMAL, id);
}

static uint32_t per_start;                /* pipeline.partitions_per_start; 0: the default */
static void (*configure)(cuzk_config *c); /* a test's own settings (NULL: none) */

/* An engine on the test backend and a fresh param cache; devices: the
 * gpus.devices list (n of them, 0: all); budget 0: 256 MiB. */
static int start_budget(fixture *f, const int *devices, size_t n, uint64_t budget, cuzk_err *err)
{
    strcpy(f->dir, "/tmp/cuzk-test-multigpu.XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    engine_log_set_level(getenv("LOGLVL") ? getenv("LOGLVL") : "error");
    cuzk_config c;
    cuzk_config_default(&c);
    snprintf(c.param_cache, sizeof c.param_cache, "%s", f->dir);
    c.total_budget = budget ? budget : 256 << 20;
    c.synthesis_concurrency = 2;
    if (per_start) c.partitions_per_start = per_start;
    if (n) memcpy(c.devices, devices, n * sizeof *devices);
    c.n_devices = n;
    if (configure) configure(&c);
    const engine_backend *b = fake.lane ? &lane_backend : fake.fed ? &fed_backend : &fake_backend;
    int rc = engine_create(&f->e, &c, b, err);
    if (!rc) rc = engine_register_provider(f->e, &engine_test_provider, err);
    return rc;
}

static int start(fixture *f, const int *devices, size_t n, cuzk_err *err)
{
    return start_budget(f, devices, n, 0, err);
}

static void stop(fixture *f)
{
    engine_destroy(f->e);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    assert_int_equal(system(cmd), 0);
}

/* Proves a job of `parts` partitions and checks every partition proof
 * here, against the verifying key read back from the param cache. */
static void prove_and_check(fixture *f, uint32_t parts, uint32_t seed)
{
    char id[ENGINE_ID_MAX];
    engine_result r;
    assert_int_equal(submit(f->e, parts, seed, id), 0);
    assert_int_equal(engine_await(f->e, id, 0, &r, NULL, NULL, NULL), 0);
    if (r.status != ENGINE_COMPLETED) fail_msg("job failed: %s", r.error);
    check_test_proofs(f->dir, N, &r, parts, seed);
    engine_result_free(&r);
}

/* Six partitions on three devices: every device proves some, several at
 * once (a start takes 150 ms more, and a device's second worker waits for
 * its lock, so the others take the next partitions); the status shows
 * each device's partitions and busy time, idle once the job is done. */
static void test_spread(void **state)
{
    (void)state;
    fixture f;
    fake_reset(150);
    assert_int_equal(start(&f, NULL, 0, NULL), 0);
    prove_and_check(&f, 6, 31);
    unsigned total = 0;
    for (int d = 0; d < DEVICES; d++) {
        if (fake.proved[d] < 1) fail_msg("device %d proved no partition", d);
        total += fake.proved[d];
    }
    assert_int_equal(total, 6);
    if (fake.max_running < 2) fail_msg("the devices never proved at once");
    engine_status_t s;
    assert_int_equal(engine_status(f.e, &s, NULL), 0);
    assert_int_equal(s.n_devices, DEVICES);
    uint64_t parts = 0;
    for (size_t i = 0; i < s.n_devices; i++) {
        assert_int_equal(s.devices[i].ordinal, i);
        assert_string_equal(s.devices[i].state, "idle");
        assert_int_equal(s.devices[i].queued, 0);
        assert_int_equal(s.devices[i].partitions, fake.proved[i]);
        if (s.devices[i].busy_ms < 150 * fake.starts[i])
            fail_msg("device %zu: %llu ms busy for %llu partitions", i,
                     (unsigned long long)s.devices[i].busy_ms,
                     (unsigned long long)s.devices[i].partitions);
        parts += s.devices[i].partitions;
    }
    assert_int_equal(parts, 6);
    engine_status_free(&s);
    char *m = engine_metrics(f.e), want[96];
    assert_non_null(m);
    for (int d = 0; d < DEVICES; d++) {
        snprintf(want, sizeof want, "cuzk_gpu_partitions_total{device=\"%d\"} %u\n", d,
                 fake.proved[d]);
        assert_non_null(strstr(m, want));
        snprintf(want, sizeof want, "cuzk_gpu_up{device=\"%d\"} 1\n", d);
        assert_non_null(strstr(m, want));
    }
    free(m);
    stop(&f);
}

/* Device 2 alone, whose starts park 5 MiB of host memory: after its
 * first proof the status and the budget count its 3 MiB of pools and the
 * 5 MiB parked; once the backend gives the park back, the next start's
 * end releases it from the budget. */
static void test_host_memory_follows(void **state)
{
    (void)state;
    fixture f;
    fake_reset(0);
    fake.park = 5 << 20;
    int two[] = {2};
    assert_int_equal(start(&f, two, 1, NULL), 0);
    engine_status_t s;
    assert_int_equal(engine_status(f.e, &s, NULL), 0);
    assert_int_equal(s.pinned_bytes, 3 << 20);
    uint64_t used0 = s.budget_used;
    engine_status_free(&s);
    prove_and_check(&f, 2, 43);
    assert_int_equal(engine_status(f.e, &s, NULL), 0);
    assert_int_equal(s.pinned_bytes, 8 << 20);
    assert_true(s.budget_used >= used0 + (5 << 20));
    uint64_t used1 = s.budget_used;
    engine_status_free(&s);
    pthread_mutex_lock(&fake.mu);
    fake.park = 0, fake.parked[2] = 0; /* the backend released it */
    pthread_mutex_unlock(&fake.mu);
    prove_and_check(&f, 1, 44);
    assert_int_equal(engine_status(f.e, &s, NULL), 0);
    assert_int_equal(s.pinned_bytes, 3 << 20);
    assert_true(s.budget_used + (5 << 20) <= used1);
    engine_status_free(&s);
    stop(&f);
}

/* gpus.devices = [2] drives device 2 alone, its host memory (3 MiB) in
 * the budget; [0, 5] names a device the backend lacks: an error that says
 * so; a budget without room for the devices' host memory (1 + 2 + 3 MiB)
 * is one too. */
static void test_select(void **state)
{
    (void)state;
    fixture f;
    fake_reset(0);
    int two[] = {2};
    assert_int_equal(start(&f, two, 1, NULL), 0);
    prove_and_check(&f, 3, 41);
    assert_int_equal(fake.proved[2], 3);
    assert_int_equal(fake.starts[0] + fake.starts[1], 0);
    engine_status_t s;
    assert_int_equal(engine_status(f.e, &s, NULL), 0);
    assert_int_equal(s.n_devices, 1);
    assert_int_equal(s.devices[0].ordinal, 2);
    assert_string_equal(s.devices[0].name, "fake:2");
    assert_int_equal(s.pinned_bytes, 3 << 20);
    engine_status_free(&s);
    stop(&f);
    int bad[] = {0, 5};
    cuzk_err err = {0};
    assert_int_equal(start(&f, bad, 2, &err), CUZK_EINVAL);
    assert_null(f.e);
    assert_non_null(strstr(err.msg, "device 5"));
    assert_non_null(strstr(err.msg, "3 device(s)"));
    assert_int_equal(rmdir(f.dir), 0);
    assert_int_equal(start_budget(&f, NULL, 0, 5 << 20, &err), CUZK_ENOMEM);
    assert_null(f.e);
    assert_non_null(strstr(err.msg, "3 device(s) of backend fake: the devices' host memory"));
    assert_int_equal(rmdir(f.dir), 0);
}

/* Device 1 is lost: its one start fails, it is taken out of service, and
 * that partition is proved on device 0 or 2, the job's proof verifying;
 * the next job is served by the other two without asking device 1 again.
 * GetStatus, the metrics and the status JSON show it failed, and why. */
static void test_failover(void **state)
{
    (void)state;
    fixture f;
    fake_reset(40);
    fake.fail[1] = CUZK_EDEVICE;
    assert_int_equal(start(&f, NULL, 0, NULL), 0);
    prove_and_check(&f, 6, 51);
    assert_int_equal(fake.starts[1], 1);
    assert_int_equal(fake.proved[1], 0);
    assert_int_equal(fake.proved[0] + fake.proved[2], 6);
    prove_and_check(&f, 4, 61);
    assert_int_equal(fake.starts[1], 1);
    assert_int_equal(fake.proved[0] + fake.proved[2], 10);
    engine_status_t s;
    assert_int_equal(engine_status(f.e, &s, NULL), 0);
    assert_string_equal(s.devices[1].state, "failed");
    assert_non_null(strstr(s.devices[1].error, "fake device 1: lost"));
    assert_string_equal(s.devices[0].state, "idle");
    assert_int_equal(s.devices[1].partitions, 0);
    assert_int_equal(s.devices[0].partitions + s.devices[2].partitions, 10);
    assert_int_equal(s.completed, 2);
    engine_status_free(&s);
    test_text_has(engine_metrics(f.e), "cuzk_gpu_up{device=\"1\"} 0\n",
                  "cuzk_gpu_up{device=\"2\"} 1\n");
    test_text_has(engine_status_json(f.e), "\"ordinal\":1,\"name\":\"fake:1\",\"state\":\"failed\"",
                  "\"error\":\"fake device 1: lost (injected)\"");
    stop(&f);
}

/* Both devices lost: the job fails naming them, a later one too, and the
 * engine still answers and shuts down. */
static void test_all_fail(void **state)
{
    (void)state;
    fixture f;
    fake_reset(0);
    fake.fail[0] = fake.fail[2] = CUZK_EDEVICE;
    int both[] = {0, 2};
    assert_int_equal(start(&f, both, 2, NULL), 0);
    for (int k = 0; k < 2; k++) {
        char id[ENGINE_ID_MAX];
        engine_result r;
        assert_int_equal(submit(f.e, 3, 71 + k, id), 0);
        assert_int_equal(engine_await(f.e, id, 0, &r, NULL, NULL, NULL), 0);
        assert_int_equal(r.status, ENGINE_FAILED);
        assert_non_null(strstr(r.error, "no device left in service"));
        assert_non_null(strstr(r.error, "device 0: fake device 0: lost"));
        assert_non_null(strstr(r.error, "device 2: fake device 2: lost"));
        engine_result_free(&r);
    }
    assert_int_equal(fake.starts[1], 0);
    engine_status_t s;
    assert_int_equal(engine_status(f.e, &s, NULL), 0);
    assert_string_equal(s.devices[0].state, "failed");
    assert_string_equal(s.devices[1].state, "failed");
    assert_int_equal(s.failed, 2);
    engine_status_free(&s);
    stop(&f);
}

/* Out of memory on the device fails that job and nothing else: the device
 * stays in service and proves the next job. */
static void test_out_of_memory_keeps_device(void **state)
{
    (void)state;
    fixture f;
    fake_reset(0);
    fake.fail[0] = CUZK_ENOMEM;
    int zero[] = {0};
    assert_int_equal(start(&f, zero, 1, NULL), 0);
    char id[ENGINE_ID_MAX];
    engine_result r;
    assert_int_equal(submit(f.e, 1, 81, id), 0);
    assert_int_equal(engine_await(f.e, id, 0, &r, NULL, NULL, NULL), 0);
    assert_int_equal(r.status, ENGINE_FAILED);
    assert_non_null(strstr(r.error, "out of memory"));
    engine_result_free(&r);
    prove_and_check(&f, 2, 91);
    engine_status_t s;
    assert_int_equal(engine_status(f.e, &s, NULL), 0);
    assert_string_equal(s.devices[0].state, "idle");
    assert_string_equal(s.devices[0].error, "");
    engine_status_free(&s);
    stop(&f);
}

/* One device slower than synthesis: a start takes the queued partitions
 * of the circuit with it (pipeline.partitions_per_start, 2 by default),
 * every proof verifying; with 1, a start proves one partition. */
static void test_chain(void **state)
{
    (void)state;
    const int dev0[1] = {0};
    for (uint32_t k = 2; k >= 1; k--) {
        fixture f;
        fake_reset(100);
        per_start = k;
        assert_int_equal(start(&f, dev0, 1, NULL), 0);
        prove_and_check(&f, 8, 71);
        assert_int_equal(fake.proved[0], 8);
        if (fake.max_n != k) fail_msg("partitions_per_start %u: a start of %zu", k, fake.max_n);
        if (k == 2 && fake.starts[0] > 7) fail_msg("%u starts for 8 partitions", fake.starts[0]);
        stop(&f);
    }
    per_start = 0;
}

/* A backend that takes a feed: one start proves many partitions as they
 * are synthesized (more than were queued when it began), every proof
 * verifying; a fed start that fails after some circuits were consumed
 * (their storage gone) has those synthesized again and the rest proved
 * one by one, and every job still completes. */
static void test_fed(void **state)
{
    (void)state;
    const int dev0[1] = {0};
    fixture f;
    fake_reset(60);
    fake.fed = true;
    assert_int_equal(start(&f, dev0, 1, NULL), 0);
    prove_and_check(&f, 8, 81);
    if (fake.fed_more < 1 || fake.max_n < 3)
        fail_msg("fed: %u starts took %u feeds, at most %zu circuits", fake.fed_starts,
                 fake.fed_more, fake.max_n);
    fake.fed_fail_at = 3; /* two consumed, then a refusal */
    unsigned starts = fake.fed_starts;
    prove_and_check(&f, 8, 82);
    if (fake.fed_starts <= starts) fail_msg("fed: no start after the refusal");
    stop(&f);
    fake.fed = false;
}

#define N_CRIT 256 /* constraints of the CRITICAL job's circuit: other parameters */

/* Polls GetStatus until the GPU queue holds `depth` partitions; false
 * after 20 s. */
static bool gpu_queue_reaches(engine_t *e, uint32_t depth)
{
    for (int k = 0; k < 2000; k++) {
        engine_status_t s;
        assert_int_equal(engine_status(e, &s, NULL), 0);
        uint32_t d = s.gpu_queue_depth;
        engine_status_free(&s);
        if (d == depth) return true;
        usleep(10000);
    }
    return false;
}

/* Waits until a start is held with its first circuits proved; returns
 * how many it proved (each one the start began with). */
static size_t wait_held_start(void)
{
    for (int k = 0; k < 2000; k++) {
        pthread_mutex_lock(&fake.mu);
        size_t n = fake.n_log;
        unsigned held = fake.held;
        pthread_mutex_unlock(&fake.mu);
        if (held) return n;
        usleep(10000);
    }
    fail_msg("no start began");
    return 0;
}

static void submit_low_jobs(engine_t *e, char ids[3][ENGINE_ID_MAX])
{
    for (uint32_t k = 0; k < 3; k++)
        assert_int_equal(submit_as(e, N, 8, 100 + 8 * k, ENGINE_PRIO_LOW, ids[k]), 0);
}

static void await_checked(fixture *f, const char *id, uint32_t n, uint32_t parts, uint32_t seed)
{
    engine_result r;
    assert_int_equal(engine_await(f->e, id, 0, &r, NULL, NULL, NULL), 0);
    if (r.status != ENGINE_COMPLETED) fail_msg("job %s failed: %s", id, r.error);
    check_test_proofs(f->dir, n, &r, parts, seed);
    engine_result_free(&r);
}

/* The index in the log of the first circuit not of the LOW jobs' circuit. */
static size_t first_critical(void)
{
    for (size_t i = 0; i < fake.n_log; i++)
        if (fake.log[i].n_h != fake.log[0].n_h) return i;
    fail_msg("the CRITICAL partition was never proved");
    return 0;
}

static void depth_two(cuzk_config *c)
{
    c->max_gpu_queue_depth = 2;
}

/* Three LOW jobs of 8 partitions fill the GPU queue (2 slots) while the
 * device's fed start is held after the partitions it began with, as if
 * their kernels ran: a CRITICAL job sent then is synthesized (the HIGH+
 * worker) and enters the full queue, and once the start goes on it takes
 * no more LOW partitions: the CRITICAL partition is the next proved;
 * every proof verifies. */
static void test_critical_next(void **state)
{
    (void)state;
    const int dev0[1] = {0};
    fixture f;
    fake_reset(0);
    fake.fed = true;
    fake.hold = true;
    configure = depth_two;
    assert_int_equal(start(&f, dev0, 1, NULL), 0);
    char low[3][ENGINE_ID_MAX], crit[ENGINE_ID_MAX];
    submit_low_jobs(f.e, low);
    size_t before = wait_held_start();
    assert_true(gpu_queue_reaches(f.e, 2));
    assert_int_equal(submit_as(f.e, N_CRIT, 1, 7, ENGINE_PRIO_CRITICAL, crit), 0);
    if (!gpu_queue_reaches(f.e, 3)) {
        fake_release();
        fail_msg("the CRITICAL partition waited for a GPU queue slot held by LOW ones");
    }
    fake_release();
    await_checked(&f, crit, N_CRIT, 1, 7);
    for (uint32_t k = 0; k < 3; k++) await_checked(&f, low[k], N, 8, 100 + 8 * k);
    size_t at = first_critical();
    if (at != before)
        fail_msg("the CRITICAL partition came after %zu LOW ones, %zu of them taken after it "
                 "was sent",
                 at, at - before);
    stop(&f);
    configure = NULL;
    fake.fed = false;
}

/* Polls job id until it completes (its proofs checked); false if it has
 * not after 20 s. */
static bool completes(fixture *f, const char *id, uint32_t n, uint32_t parts, uint32_t seed)
{
    for (int k = 0; k < 2000; k++) {
        engine_result r;
        assert_int_equal(engine_await(f->e, id, 1, &r, NULL, NULL, NULL), 0);
        bool done = r.status == ENGINE_COMPLETED;
        if (done) check_test_proofs(f->dir, n, &r, parts, seed);
        engine_result_free(&r);
        if (done) return true;
        usleep(10000);
    }
    return false;
}

/* dispatch.h's rule 7 on a backend with a small-circuit lane: three LOW
 * jobs of 8 partitions fill the GPU queue while the device's fed start is
 * held, as if its kernels ran; a CRITICAL job of a small circuit sent then
 * completes while the start is still held (its proof by the lane, no LOW
 * partition proved meanwhile), without waiting for a GPU queue slot or
 * the start, and the metrics count it on the device's lane; a NORMAL
 * job of the same circuit does not take the lane; every proof verifies. */
static void test_lane_beside_start(void **state)
{
    (void)state;
    const int dev0[1] = {0};
    fixture f;
    fake_reset(0);
    fake.fed = fake.lane = true;
    fake.hold = true;
    configure = depth_two;
    assert_int_equal(start(&f, dev0, 1, NULL), 0);
    char low[3][ENGINE_ID_MAX], crit[ENGINE_ID_MAX], normal[ENGINE_ID_MAX];
    submit_low_jobs(f.e, low);
    size_t before = wait_held_start();
    assert_true(gpu_queue_reaches(f.e, 2));
    assert_int_equal(submit_as(f.e, N_CRIT, 1, 11, ENGINE_PRIO_CRITICAL, crit), 0);
    bool done = completes(&f, crit, N_CRIT, 1, 11);
    pthread_mutex_lock(&fake.mu);
    size_t proved = fake.n_log;
    unsigned held = fake.held, beside = fake.lane_beside;
    pthread_mutex_unlock(&fake.mu);
    fake_release();
    if (!done) fail_msg("the CRITICAL job waited for the held start (no lane)");
    assert_true(held > 0 && beside == 1);
    test_text_has(engine_metrics(f.e), "cuzk_gpu_lane_partitions_total{device=\"0\"} 1\n",
                  "cuzk_lane_queue_depth 0\n");
    /* GetStatus and /status say the device has a lane and what it proved */
    engine_status_t st;
    assert_int_equal(engine_status(f.e, &st, NULL), 0);
    assert_true(st.n_devices == 1 && st.devices[0].lane);
    assert_int_equal(st.devices[0].lane_partitions, 1);
    engine_status_free(&st);
    test_text_has(engine_status_json(f.e),
                  "\"lane\":true,\"lane_busy_ms\":", "\"lane_partitions\":1,");
    if (proved != before)
        fail_msg("%zu LOW partitions proved before the CRITICAL one", proved - before);
    assert_int_equal(submit_as(f.e, N_CRIT, 1, 13, ENGINE_PRIO_NORMAL, normal), 0);
    await_checked(&f, normal, N_CRIT, 1, 13);
    for (uint32_t k = 0; k < 3; k++) await_checked(&f, low[k], N, 8, 100 + 8 * k);
    assert_int_equal(fake.lane_starts, 1);
    stop(&f);
    configure = NULL;
    fake.fed = fake.lane = false;
}

static void no_priority_worker(cuzk_config *c)
{
    c->max_gpu_queue_depth = 2;
    c->priority_synthesis = 0;
}

/* As above without the HIGH+ synthesis worker, so the CRITICAL job waits
 * in the scheduler queue while the two workers wait for GPU queue room
 * with LOW partitions: a start being fed takes no more LOW partitions
 * while it waits, so every start before the CRITICAL one (after the
 * held one) proves one. */
static void test_feed_stops(void **state)
{
    (void)state;
    const int dev0[1] = {0};
    fixture f;
    fake_reset(20);
    fake.fed = true;
    fake.hold = true;
    configure = no_priority_worker;
    assert_int_equal(start(&f, dev0, 1, NULL), 0);
    char low[3][ENGINE_ID_MAX], crit[ENGINE_ID_MAX];
    submit_low_jobs(f.e, low);
    size_t before = wait_held_start();
    assert_true(gpu_queue_reaches(f.e, 2));
    usleep(200000); /* the workers synthesize their next LOW partitions and wait for room */
    assert_int_equal(submit_as(f.e, N_CRIT, 1, 9, ENGINE_PRIO_CRITICAL, crit), 0);
    fake_release();
    await_checked(&f, crit, N_CRIT, 1, 9);
    for (uint32_t k = 0; k < 3; k++) await_checked(&f, low[k], N, 8, 100 + 8 * k);
    size_t at = first_critical();
    for (size_t i = before; i < at; i++)
        if (fake.log[i].start == fake.log[i - 1].start)
            fail_msg("a start took LOW partitions %zu and %zu while a CRITICAL one waited", i - 1,
                     i);
    stop(&f);
    configure = NULL;
    fake.fed = false;
}

static void fast_aging(cuzk_config *c)
{
    c->aging_ms = 300;
}

/* A LOW job under a steady stream of NORMAL ones (six of four partitions
 * always outstanding, more than the pipeline holds, so the scheduler
 * queue never runs out of NORMAL work): with pipeline.aging_ms 300 it
 * counts as NORMAL after 300 ms and, older than the NORMAL jobs sent
 * after it, completes while the stream goes on. */
static void test_low_ages(void **state)
{
    (void)state;
    const int dev0[1] = {0};
    fixture f;
    fake_reset(5);
    configure = fast_aging;
    assert_int_equal(start(&f, dev0, 1, NULL), 0);
    enum { OUT = 6, STREAM = 80 };
    char normal[OUT][ENGINE_ID_MAX], low[ENGINE_ID_MAX];
    for (uint32_t k = 0; k < OUT; k++) assert_int_equal(submit(f.e, 4, 200 + k, normal[k]), 0);
    assert_int_equal(submit_as(f.e, N, 2, 300, ENGINE_PRIO_LOW, low), 0);
    int low_done_at = -1;
    for (uint32_t k = 0; k < STREAM && low_done_at < 0; k++) {
        engine_result r;
        assert_int_equal(engine_await(f.e, normal[k % OUT], 0, &r, NULL, NULL, NULL), 0);
        assert_int_equal(r.status, ENGINE_COMPLETED);
        engine_result_free(&r);
        assert_int_equal(submit(f.e, 4, 200 + OUT + k, normal[k % OUT]), 0);
        assert_int_equal(engine_await(f.e, low, 1, &r, NULL, NULL, NULL), 0);
        if (r.status == ENGINE_COMPLETED) low_done_at = (int)k;
        engine_result_free(&r);
    }
    if (low_done_at < 0) fail_msg("the LOW job waited through %d NORMAL jobs", STREAM);
    await_checked(&f, low, N, 2, 300);
    for (uint32_t k = 0; k < OUT; k++) {
        engine_result r;
        assert_int_equal(engine_await(f.e, normal[k], 0, &r, NULL, NULL, NULL), 0);
        assert_int_equal(r.status, ENGINE_COMPLETED);
        engine_result_free(&r);
    }
    stop(&f);
    configure = NULL;
}

/* The queue position SubmitProof answers follows the aging rule: a LOW
 * job is behind a NORMAL one sent after it until it has waited
 * pipeline.aging_ms, then ahead of every NORMAL job sent later (the
 * device held, so the queued jobs stay queued). */
static void test_queue_position_ages(void **state)
{
    (void)state;
    const int dev0[1] = {0};
    fixture f;
    fake_reset(0);
    fake.hold = true;
    configure = fast_aging;
    assert_int_equal(start(&f, dev0, 1, NULL), 0);
    char normal[3][ENGINE_ID_MAX], low[ENGINE_ID_MAX], n1[ENGINE_ID_MAX], n2[ENGINE_ID_MAX];
    for (uint32_t k = 0; k < 3; k++) assert_int_equal(submit(f.e, 8, 400 + 8 * k, normal[k]), 0);
    wait_held_start();
    usleep(200000); /* the workers hold what they took and wait for room */
    uint32_t p_low, p1, p2;
    assert_int_equal(submit_at(f.e, N, 2, 500, ENGINE_PRIO_LOW, low, &p_low), 0);
    assert_int_equal(submit_at(f.e, N, 2, 510, ENGINE_PRIO_NORMAL, n1, &p1), 0);
    assert_int_equal(p1, p_low); /* the LOW job is not ahead of it yet */
    usleep(400000);              /* > aging_ms */
    assert_int_equal(submit_at(f.e, N, 2, 520, ENGINE_PRIO_NORMAL, n2, &p2), 0);
    fake_release();
    if (p2 != p1 + 2) fail_msg("queue position %u after aging, expected %u", p2, p1 + 2);
    for (uint32_t k = 0; k < 3; k++) await_checked(&f, normal[k], N, 8, 400 + 8 * k);
    await_checked(&f, low, N, 2, 500);
    await_checked(&f, n1, N, 2, 510);
    await_checked(&f, n2, N, 2, 520);
    stop(&f);
    configure = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_host_memory_follows),
        cmocka_unit_test(test_failover),
        cmocka_unit_test(test_all_fail),
        cmocka_unit_test(test_out_of_memory_keeps_device),
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_fed),
        cmocka_unit_test(test_critical_next),
        cmocka_unit_test(test_feed_stops),
        cmocka_unit_test(test_lane_beside_start),
        cmocka_unit_test(test_low_ages),
        cmocka_unit_test(test_queue_position_ages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
