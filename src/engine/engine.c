/*
 * engine.c - the engine's jobs (engine.h): submission (idempotent on
 * request_id, the provider's prepare, the batch collector), waiting with a
 * timeout, cancellation, result retention, SRS preload/evict, and the
 * life cycle (create, graceful shutdown, destroy). The workers are in
 * pipeline.c, the reports in status.c; engine_internal.h has the locking
 * story.
 *
 * A timer thread flushes a partial batch at its deadline and drops results
 * older than scheduler.result_ttl (unless someone is waiting on them).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "cuzk/engine_log.h"
#include "dispatch.h"
#include "engine_internal.h"

static uint64_t now_ms(void)
{
    return srs_now_ms();
}

const char *engine_kind_name(int kind)
{
    static const char *const names[ENGINE_KINDS] = {"unspecified", "porep", "snap", "wpost",
                                                    "winning"};
    return kind >= 0 && kind < ENGINE_KINDS ? names[kind] : "unknown";
}

void engine_result_free(engine_result *r)
{
    free(r->proof);
    r->proof = NULL;
    r->proof_len = 0;
}

bool engine_job_cancelled(const job *j)
{
    return __atomic_load_n(&j->cancel, __ATOMIC_ACQUIRE);
}

job *engine_find_job(engine_t *e, const char *id)
{
    for (job *j = e->jobs; j; j = j->next)
        if (!strcmp(j->id, id)) return j;
    return NULL;
}

/* The job a request_id attaches to: a live or completed one. A failed or
 * cancelled job does not hold its id, so a client's retry proves again. */
static job *find_request(engine_t *e, const char *request_id)
{
    if (!request_id || !*request_id) return NULL;
    for (job *j = e->jobs; j; j = j->next)
        if (!strcmp(j->request_id, request_id) &&
            (j->state != JOB_DONE || j->status == ENGINE_COMPLETED))
            return j;
    return NULL;
}

/* The provider's circuits go once no item uses them any more. */
static void release_circuits(job *j)
{
    if (j->items_live || !j->circ.release) return;
    j->circ.release(&j->circ);
    j->circ.release = NULL;
}

void engine_finish_job(engine_t *e, job *j, int status, const char *fmt, ...)
{
    if (j->state == JOB_DONE) return;
    char msg[sizeof j->error]; /* fmt's arguments may point into j->error */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memcpy(j->error, msg, sizeof msg);
    j->state = JOB_DONE;
    j->status = status;
    if (j->demand) srs_demand(&e->srs, j->circuit_id, j->priority, -1);
    j->demand = false;
    j->t_done = now_ms();
    if (status != ENGINE_COMPLETED) {
        __atomic_store_n(&j->cancel, true, __ATOMIC_RELEASE);
        free(j->proof);
        j->proof = NULL;
    }
    int k = j->kind > 0 && j->kind < ENGINE_KINDS ? j->kind : 0;
    if (status == ENGINE_COMPLETED)
        e->completed[k]++;
    else if (status == ENGINE_CANCELLED)
        e->cancelled[k]++;
    else
        e->failed[k]++;
    e->duration_sum[k] += (double)(j->t_done - j->t_submit) / 1e3;
    engine_log(status == ENGINE_COMPLETED ? LOG_INFO : LOG_WARN, "job %s (%s) %s in %llu ms%s%s",
               j->id, engine_kind_name(j->kind),
               status == ENGINE_COMPLETED   ? "completed"
               : status == ENGINE_CANCELLED ? "cancelled"
                                            : "failed",
               (unsigned long long)(j->t_done - j->t_submit), *j->error ? ": " : "", j->error);
    release_circuits(j);
    pthread_cond_broadcast(&e->done_cv);
}

void engine_job_unref(job *j)
{
    j->items_live--;
    if (j->state == JOB_DONE) release_circuits(j);
}

void engine_item_free(engine_t *e, work_item *it)
{
    if (it->srs) srs_release(&e->srs, it->srs); /* taken with it, never synthesized */
    for (size_t i = 0; i < it->n; i++) engine_job_unref(it->jobs[i]);
    free(it);
}

static void job_free(job *j)
{
    if (j->circ.release) j->circ.release(&j->circ);
    free(j->proof);
    free(j);
}

/* Drops expired results (lock held). */
static void reap(engine_t *e)
{
    uint64_t t = now_ms(), ttl = e->cfg.result_ttl_s * 1000;
    for (job **pp = &e->jobs; *pp;) {
        job *j = *pp;
        if (j->state == JOB_DONE && !j->waiters && !j->items_live && t - j->t_done >= ttl) {
            *pp = j->next;
            job_free(j);
        } else
            pp = &j->next;
    }
}

static void flush_batch(engine_t *e)
{
    void *group[BATCH_MAX];
    size_t n = batcher_take(&e->batch, group);
    if (n && engine_enqueue_group(e, (job **)group, n))
        for (size_t i = 0; i < n; i++)
            engine_finish_job(e, group[i], ENGINE_FAILED, "out of memory while queueing");
}

static void *timer_thread(void *arg)
{
    engine_t *e = arg;
    pthread_mutex_lock(&e->lock);
    while (!e->stop) {
        uint64_t t = now_ms(), due = batcher_deadline(&e->batch);
        if (due <= t) flush_batch(e);
        reap(e);
        uint64_t wait = due > t ? due - t : 0;
        struct timespec ts;
        budget_deadline(&ts, wait < 1000 ? (wait ? wait : 1) : 1000);
        pthread_cond_timedwait(&e->timer_cv, &e->lock, &ts);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* Device d's small-circuit lane (dispatch.h rule 7) when the backend has
 * one and gpus.small_lane_max_log asks for it; a device without room for
 * it proves without one (logged: as information when the room is what it
 * lacks, the residency rule that keeps small cards' memory for the big
 * proofs; as a warning for a failure). */
static void setup_lane(engine_t *e, device *d)
{
    if (!e->backend->lane_setup || !e->cfg.small_lane_max_log) return;
    cuzk_err err = {0};
    if (e->backend->lane_setup(d->ordinal, e->cfg.small_lane_max_log, e->cfg.small_lane_params,
                               e->cfg.small_lane_pause_ms, &err)) {
        engine_log(err.code == CUZK_ENOMEM ? LOG_INFO : LOG_WARN,
                   "engine: device %d: no small-circuit lane: %s", d->ordinal, err.msg);
        return;
    }
    d->lane = true;
    engine_log(LOG_INFO, "engine: device %d: small-circuit lane for domains up to 2^%u", d->ordinal,
               e->cfg.small_lane_max_log);
}

/* The host memory the backend holds for the devices now (host_bytes). */
static uint64_t devices_host_bytes(engine_t *e)
{
    uint64_t bytes = 0;
    for (size_t i = 0; e->backend->host_bytes && i < e->n_devices; i++)
        bytes += e->backend->host_bytes(e->devices[i].ordinal);
    return bytes;
}

/* The backend's devices that gpus.devices selects ([]: all), in the
 * backend's order (CUDA's, for the CUDA backend); a listed ordinal the
 * backend does not have is an error. */
static int init_devices(engine_t *e, cuzk_err *err)
{
    char names[ENGINE_MAX_DEVICES][128];
    uint64_t vram[ENGINE_MAX_DEVICES];
    size_t n = 0;
    if (e->backend->devices(&n, names, vram, ENGINE_MAX_DEVICES) || !n)
        return cuzk_errf(err, CUZK_EDEVICE, "backend %s: no device", e->backend->name);
    for (size_t k = 0; k < e->cfg.n_devices; k++)
        if (e->cfg.devices[k] < 0 || (size_t)e->cfg.devices[k] >= n)
            return cuzk_errf(err, CUZK_EINVAL,
                             "gpus.devices: device %d is not one of the %zu device(s) of backend "
                             "%s (ordinals 0 .. %zu)",
                             e->cfg.devices[k], n, e->backend->name, n - 1);
    for (size_t i = 0; i < n; i++) {
        bool wanted = !e->cfg.n_devices;
        for (size_t k = 0; k < e->cfg.n_devices; k++) wanted |= e->cfg.devices[k] == (int)i;
        if (!wanted) continue;
        device *d = &e->devices[e->n_devices++];
        snprintf(d->name, sizeof d->name, "%s", names[i]);
        d->vram_total = vram[i];
        d->ordinal = (int)i;
        pthread_mutex_init(&d->lock, NULL);
        engine_log(LOG_INFO, "engine: device %d: %s", d->ordinal, d->name);
        setup_lane(e, d);
    }
    e->in_service = e->n_devices;
    uint64_t bytes = devices_host_bytes(e);
    if (bytes > e->budget.total)
        return cuzk_errf(err, CUZK_ENOMEM,
                         "%zu device(s) of backend %s: the devices' host memory needs %llu MiB, "
                         "more than the whole budget (%llu MiB)",
                         e->n_devices, e->backend->name, (unsigned long long)(bytes >> 20),
                         (unsigned long long)(e->budget.total >> 20));
    budget_hold(&e->budget, bytes); /* for good: no reservation can have it */
    e->device_host_bytes = bytes;
    return CUZK_OK;
}

void engine_track_device_host(engine_t *e)
{
    if (!e->backend->host_bytes) return;
    pthread_mutex_lock(&e->host_mu);
    uint64_t now = devices_host_bytes(e), had = e->device_host_bytes;
    if (now > had) {
        budget_hold(&e->budget, now - had);
        engine_log(LOG_INFO, "engine: the devices' host memory grew to %.1f MiB (was %.1f)",
                   now / 1048576.0, had / 1048576.0);
    } else if (now < had) {
        budget_unhold(&e->budget, had - now);
    }
    e->device_host_bytes = now;
    pthread_mutex_unlock(&e->host_mu);
}

/* The budget's evictor: pooled partition storage first (refilled by page
 * faults alone), then idle SRS (read back from disk). */
static uint64_t evict_idle(void *ctx, uint64_t need, int priority, uint64_t waited_ms)
{
    engine_t *e = ctx;
    uint64_t freed = pool_evict(&e->pool, need);
    if (freed < need) freed += srs_evict_idle(&e->srs, need - freed, priority, waited_ms);
    return freed;
}

int engine_create(engine_t **out, const cuzk_config *cfg, const engine_backend *backend,
                  cuzk_err *err)
{
    *out = NULL;
    if (cfg->stream_chunk_log && (cfg->stream_chunk_log < 10 || cfg->stream_chunk_log > 27))
        return cuzk_errf(err, CUZK_EINVAL,
                         "gpus.stream_chunk_log = %u: 0 (the default) or 10 .. 27",
                         cfg->stream_chunk_log);
    if (strcmp(cfg->witness_kept, "tight") && strcmp(cfg->witness_kept, "first") &&
        strcmp(cfg->witness_kept, "off"))
        return cuzk_errf(err, CUZK_EINVAL, "gpus.witness_kept = \"%s\": tight, first or off",
                         cfg->witness_kept);
    if (cfg->synthesis_nice > 19)
        return cuzk_errf(err, CUZK_EINVAL, "synthesis.nice = %u: 0 (the default) .. 19",
                         cfg->synthesis_nice);
    engine_t *e = calloc(1, sizeof *e);
    if (!e) return cuzk_errf(err, CUZK_ENOMEM, "engine: out of memory");
    e->cfg = *cfg;
    e->backend = backend ? backend : engine_backend_choose(cfg, err);
    if (!e->backend) {
        free(e);
        *out = NULL;
        return err ? err->code : CUZK_EINVAL;
    }
    if (e->backend->device_memory)
        e->backend->device_memory(cfg->device_memory, cfg->stream_chunk_log,
                                  !strcmp(cfg->witness_kept, "off")     ? ENGINE_KEPT_OFF
                                  : !strcmp(cfg->witness_kept, "first") ? ENGINE_KEPT_FIRST
                                                                        : ENGINE_KEPT_TIGHT);
    pthread_mutex_init(&e->lock, NULL);
    pthread_mutex_init(&e->host_mu, NULL);
    pthread_cond_init(&e->work_cv, NULL);
    pthread_cond_init(&e->gpu_cv, NULL);
    pthread_cond_init(&e->lane_cv, NULL);
    pthread_cond_init(&e->done_cv, NULL);
    pthread_cond_init(&e->timer_cv, NULL);
    sched_init(&e->queue);
    batcher_init(&e->batch, cfg->max_batch_size, cfg->max_batch_wait_ms);
    budget_init(&e->budget, cuzk_config_budget(cfg), evict_idle, e);
    srs_init(&e->srs, &e->budget, cfg->param_cache, cfg->eviction_min_idle_s * 1000,
             e->backend->params_unloaded, e->backend->name);
    e->srs.shape_unloaded = e->backend->shape_unloaded;
    srs_set_residency(&e->srs, cfg, (uint64_t)cfg->srs_swap_after_s * 1000);
    size_t batch = !cfg->reuse_partitions ? 0 : cfg->max_batch_size ? cfg->max_batch_size : 1;
    if (batch > BATCH_MAX) batch = BATCH_MAX;
    int prc =
        pool_init(&e->pool, &e->budget, engine_synthesis_workers(cfg, e->backend) * batch, err);
    e->t_created = now_ms();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    e->id_base = (uint64_t)ts.tv_sec << 20 ^ (uint64_t)ts.tv_nsec;
    *out = e;
    int rc = prc ? prc : init_devices(e, err);
    if (!rc) rc = engine_pipeline_start(e, err);
    if (!rc && pthread_create(&e->timer_thread, NULL, timer_thread, e))
        rc = cuzk_errf(err, CUZK_ENOMEM, "engine: cannot start the timer thread");
    if (rc) {
        e->timer_thread = 0;
        engine_destroy(e);
        *out = NULL;
        return rc;
    }
    engine_log(LOG_INFO,
               "engine: backend %s, %zu device(s), %zu synthesis / %zu prover workers, "
               "budget %llu MiB, batch %u / %llu ms",
               e->backend->name, e->n_devices, e->n_synth, e->n_gpu,
               (unsigned long long)(e->budget.total >> 20), cfg->max_batch_size,
               (unsigned long long)cfg->max_batch_wait_ms);
    return CUZK_OK;
}

int engine_register_provider(engine_t *e, const engine_provider *p, cuzk_err *err)
{
    pthread_mutex_lock(&e->lock);
    int rc = e->n_providers == ENGINE_MAX_PROVIDERS
                 ? cuzk_errf(err, CUZK_EINVAL, "more than %d providers", ENGINE_MAX_PROVIDERS)
                 : CUZK_OK;
    if (!rc) e->providers[e->n_providers++] = p;
    pthread_mutex_unlock(&e->lock);
    return rc;
}

static int validate(const engine_request *req, cuzk_err *err)
{
    if (req->kind <= ENGINE_KIND_UNSPECIFIED || req->kind >= ENGINE_KINDS)
        return cuzk_errf(err, CUZK_EINVAL,
                         "proof_kind %d: expected POREP_SEAL_COMMIT, "
                         "SNAP_DEALS_UPDATE, WINDOW_POST_PARTITION or WINNING_POST",
                         req->kind);
    if (req->priority < 0 || req->priority > ENGINE_PRIO_CRITICAL)
        return cuzk_errf(err, CUZK_EINVAL, "priority %d is not a Priority", req->priority);
    if (!req->vanilla_proof.len && !req->n_vanilla_proofs)
        return cuzk_errf(err, CUZK_EINVAL,
                         "no vanilla proof (vanilla_proof and vanilla_proofs "
                         "are both empty)");
    if (req->request_id && strlen(req->request_id) >= sizeof(((job *)0)->request_id))
        return cuzk_errf(err, CUZK_EINVAL, "request_id longer than 127 bytes");
    return CUZK_OK;
}

/* Curio's priorities when the request leaves it unspecified. */
static int default_priority(int kind)
{
    return kind == ENGINE_WINNING_POST  ? ENGINE_PRIO_CRITICAL
           : kind == ENGINE_WINDOW_POST ? ENGINE_PRIO_HIGH
                                        : ENGINE_PRIO_NORMAL;
}

/* The provider's work, outside the lock: fills j->circ or j->error. */
static void prepare_job(engine_t *e, job *j, const engine_request *req)
{
    for (size_t i = 0; i < e->n_providers && !j->provider; i++)
        if (e->providers[i]->claims(req)) j->provider = e->providers[i];
    if (!j->provider) {
        snprintf(j->error, sizeof j->error,
                 "no %s circuit is available yet in this daemon "
                 "(the Filecoin circuits are not built in); cannot prove %s",
                 engine_kind_name(j->kind), j->request_id[0] ? j->request_id : "this request");
        return;
    }
    cuzk_err err = {0};
    if (j->provider->prepare(req, &j->circ, &err)) {
        snprintf(j->error, sizeof j->error, "%s proof request rejected: %.400s",
                 engine_kind_name(j->kind), err.msg);
        return;
    }
    snprintf(j->circuit_id, sizeof j->circuit_id, "%s", j->circ.info.circuit_id);
    j->n_partitions = j->circ.n_partitions;
    size_t bytes = j->n_partitions * GROTH16_PROOF_BYTES;
    if (!(j->proof = calloc(1, bytes))) snprintf(j->error, sizeof j->error, "out of memory");
}

/* A job's place in the queues now: its effective priority (LOW aged to
 * NORMAL, dispatch.h rule 2), then its age. */
static sched_key job_key(const engine_t *e, const job *j, uint64_t now)
{
    sched_key k = {.priority = j->priority, .seq = j->seq, .since_ms = j->t_submit};
    k.priority = dispatch_priority(&k, now, e->cfg.aging_ms);
    return k;
}

/* The queued jobs the dispatch policy puts before me now. */
static uint32_t queue_position(engine_t *e, const job *me)
{
    uint64_t now = now_ms();
    sched_key mine = job_key(e, me, now);
    uint32_t ahead = 0;
    for (const job *j = e->jobs; j; j = j->next) {
        if (j == me || j->state != JOB_QUEUED) continue;
        sched_key theirs = job_key(e, j, now);
        ahead += sched_before(&theirs, &mine);
    }
    return ahead;
}

/* Into the batcher or straight to the scheduler (lock held). */
static void schedule(engine_t *e, job *j)
{
    bool batchable = j->circ.batchable && e->batch.max_size > 1;
    if (batcher_must_flush_for(&e->batch, j->circ.info.circuit_id, batchable)) flush_batch(e);
    if (!batchable) {
        job *group[1] = {j};
        if (engine_enqueue_group(e, group, 1))
            engine_finish_job(e, j, ENGINE_FAILED, "out of memory while queueing");
        return;
    }
    batcher_add(&e->batch, j, j->circ.info.circuit_id, now_ms());
    if (batcher_full(&e->batch)) flush_batch(e);
    pthread_cond_broadcast(&e->timer_cv);
}

static job *new_job(engine_t *e, const engine_request *req)
{
    job *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    snprintf(j->request_id, sizeof j->request_id, "%s", req->request_id ? req->request_id : "");
    j->kind = req->kind;
    j->priority = req->priority ? req->priority : default_priority(req->kind);
    j->t_submit = now_ms();
    prepare_job(e, j, req);
    return j;
}

int engine_submit(engine_t *e, const engine_request *req, char job_id[ENGINE_ID_MAX],
                  uint32_t *queue_pos, cuzk_err *err)
{
    int rc = validate(req, err);
    if (rc) return rc;
    pthread_mutex_lock(&e->lock);
    job *j = find_request(e, req->request_id);
    pthread_mutex_unlock(&e->lock);
    job *fresh = j ? NULL : new_job(e, req);
    if (!j && !fresh) return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    pthread_mutex_lock(&e->lock);
    if (e->stopping) { /* shutdown began while the provider prepared */
        pthread_mutex_unlock(&e->lock);
        if (fresh) job_free(fresh);
        return cuzk_errf(err, ENGINE_ESHUTDOWN, "the daemon is shutting down");
    }
    if (!j && !(j = find_request(e, req->request_id))) {
        j = fresh, fresh = NULL;
        j->seq = e->next_seq++;
        snprintf(j->id, sizeof j->id, "%012llx-%06llu",
                 (unsigned long long)(e->id_base & 0xffffffffffffull), (unsigned long long)j->seq);
        j->next = e->jobs, e->jobs = j;
        engine_log(LOG_INFO, "job %s: %s request %s, priority %d, circuit %s", j->id,
                   engine_kind_name(j->kind), j->request_id[0] ? j->request_id : "-", j->priority,
                   j->circuit_id[0] ? j->circuit_id : "-");
        if (j->error[0]) {
            engine_finish_job(e, j, ENGINE_FAILED, "%s", j->error);
        } else {
            srs_demand(&e->srs, j->circuit_id, j->priority, +1);
            j->demand = true;
            schedule(e, j);
        }
    }
    snprintf(job_id, ENGINE_ID_MAX, "%s", j->id);
    if (queue_pos) *queue_pos = j->state == JOB_QUEUED ? queue_position(e, j) : 0;
    pthread_mutex_unlock(&e->lock);
    if (fresh) job_free(fresh);
    return CUZK_OK;
}

static void fill_result(const job *j, engine_result *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->job_id, sizeof out->job_id, "%s", j->id);
    out->status = j->status;
    snprintf(out->error, sizeof out->error, "%s", j->error);
    if (j->status == ENGINE_COMPLETED && j->proof) {
        out->proof_len = j->n_partitions * GROTH16_PROOF_BYTES;
        if ((out->proof = malloc(out->proof_len)))
            memcpy(out->proof, j->proof, out->proof_len);
        else
            out->status = ENGINE_FAILED, out->proof_len = 0, strcpy(out->error, "out of memory");
    }
    uint64_t start = j->t_start ? j->t_start : j->t_done;
    out->queue_ms = start - j->t_submit;
    out->srs_ms = span_total(&j->srs, j->t_submit, j->t_done);
    out->synthesis_ms = span_total(&j->synth, j->t_submit, j->t_done);
    out->gpu_ms = span_total(&j->gpu, j->t_submit, j->t_done);
    out->total_ms = j->t_done - j->t_submit;
}

int engine_await(engine_t *e, const char *job_id, uint64_t timeout_ms, engine_result *out,
                 bool (*abandon)(void *ctx), void *ctx, cuzk_err *err)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->lock);
    job *j = engine_find_job(e, job_id);
    if (!j) {
        pthread_mutex_unlock(&e->lock);
        return cuzk_errf(err, ENGINE_ENOTFOUND,
                         "job %s is not known (never submitted, or its "
                         "result expired)",
                         job_id);
    }
    j->waiters++;
    uint64_t deadline = timeout_ms ? now_ms() + timeout_ms : UINT64_MAX;
    while (j->state != JOB_DONE) {
        uint64_t t = now_ms();
        if (t >= deadline || (abandon && abandon(ctx))) break;
        struct timespec ts;
        budget_deadline(&ts, deadline - t < 100 ? deadline - t : 100);
        pthread_cond_timedwait(&e->done_cv, &e->lock, &ts);
    }
    if (j->state == JOB_DONE)
        fill_result(j, out);
    else {
        snprintf(out->job_id, sizeof out->job_id, "%s", j->id);
        out->status = now_ms() >= deadline ? ENGINE_TIMEOUT : ENGINE_UNKNOWN;
        if (out->status == ENGINE_TIMEOUT)
            snprintf(out->error, sizeof out->error, "job %s still %s after %llu ms", j->id,
                     j->state == JOB_QUEUED ? "queued" : "running", (unsigned long long)timeout_ms);
    }
    j->waiters--;
    pthread_mutex_unlock(&e->lock);
    return CUZK_OK;
}

static bool item_is_dead(void *item, void *ctx)
{
    work_item *it = item;
    (void)ctx;
    for (size_t i = 0; i < it->n; i++)
        if (it->jobs[i]->state != JOB_DONE) return false;
    return true;
}

static bool free_dead_item(void *item, void *ctx)
{
    if (!item_is_dead(item, ctx)) return false;
    engine_item_free(ctx, item);
    return true;
}

int engine_cancel(engine_t *e, const char *job_id, bool *was_running, cuzk_err *err)
{
    pthread_mutex_lock(&e->lock);
    job *j = engine_find_job(e, job_id);
    int rc = CUZK_OK;
    *was_running = false;
    if (!j)
        rc = cuzk_errf(err, ENGINE_ENOTFOUND, "job %s is not known", job_id);
    else if (j->state != JOB_DONE) {
        *was_running = j->state == JOB_RUNNING;
        batcher_remove(&e->batch, j);
        engine_finish_job(e, j, ENGINE_CANCELLED, "cancelled by request%s",
                          *was_running ? " (stopped at the next partition boundary)" : "");
        sched_remove_if(&e->queue, free_dead_item, e);
    }
    pthread_mutex_unlock(&e->lock);
    return rc;
}

static const engine_provider *provider_for(engine_t *e, const char *circuit_id,
                                           engine_circuit_info *info)
{
    for (size_t i = 0; i < e->n_providers; i++)
        if (e->providers[i]->lookup && e->providers[i]->lookup(circuit_id, info))
            return e->providers[i];
    return NULL;
}

/* ENGINE_ENOTFOUND naming circuit_id and the circuit ids there are. */
static int unknown_circuit(engine_t *e, const char *circuit_id, cuzk_err *err)
{
    char ids[384] = "";
    for (size_t i = 0, off = 0; i < e->n_providers && off + 3 < sizeof ids; i++) {
        if (!e->providers[i]->ids) continue;
        if (off) off += (size_t)snprintf(ids + off, sizeof ids - off, ", ");
        e->providers[i]->ids(ids + off, sizeof ids - off);
        off += strlen(ids + off);
    }
    return cuzk_errf(err, ENGINE_ENOTFOUND,
                     "no circuit '%s' in this daemon (circuit ids: %s; cuzk-daemon "
                     "--list-circuits shows them by proof kind and sector size)",
                     circuit_id, ids[0] ? ids : "none; the Filecoin circuits are not built in");
}

int engine_preload(engine_t *e, const char *circuit_id, bool *already_loaded, uint64_t *load_ms,
                   cuzk_err *err)
{
    engine_circuit_info info;
    const engine_provider *p = provider_for(e, circuit_id, &info);
    if (!p) return unknown_circuit(e, circuit_id, err);
    *already_loaded = srs_is_loaded(&e->srs, circuit_id);
    /* on the witness-only path, the circuit's shape too (beside the load) */
    cs_circuit blank = {NULL, NULL};
    void *ctx = NULL;
    cuzk_err why;
    bool shaped = e->cfg.witness_only && p->blank && !p->blank(circuit_id, &blank, &ctx, &why);
    if (e->cfg.witness_only && p->blank && !shaped)
        engine_log(LOG_WARN, "preload %s: no blank circuit, the first proof records the shape: %s",
                   circuit_id, why.msg);
    srs_shape_req req = {blank, NULL, NULL};
    srs_entry *entry;
    uint64_t t0 = srs_now_ms();
    int rc =
        srs_acquire_shaped(&e->srs, &info, p->setup_dev, shaped ? &req : NULL, &entry, NULL, err);
    if (!rc && shaped) srs_shape(&e->srs, entry, blank, NULL, NULL, NULL, &why); /* loaded before */
    if (shaped) p->blank_free(ctx);
    if (load_ms) *load_ms = srs_now_ms() - t0;
    if (rc) return cuzk_err_prefix(err, "preload %s: ", circuit_id);
    srs_release(&e->srs, entry);
    return CUZK_OK;
}

int engine_preload_at(engine_t *e, const char *circuit_id, int priority, uint64_t hold_ms,
                      bool *already_loaded, uint64_t *load_ms, cuzk_err *err)
{
    if (priority < ENGINE_PRIO_UNSPECIFIED || priority > ENGINE_PRIO_CRITICAL)
        return cuzk_errf(err, CUZK_EINVAL, "preload %s: priority %d is not 0..4", circuit_id,
                         priority);
    engine_circuit_info info;
    if (!provider_for(e, circuit_id, &info)) return unknown_circuit(e, circuit_id, err);
    if (priority) srs_hold(&e->srs, circuit_id, priority, srs_now_ms() + hold_ms);
    return engine_preload(e, circuit_id, already_loaded, load_ms, err);
}

/* The i-th circuit to load at start: srs.pinned's, then srs.preload's;
 * *key: the list's name. */
static const char *start_id(const engine_t *e, size_t i, const char **key)
{
    *key = i < e->cfg.n_pinned ? "srs.pinned" : "srs.preload";
    return i < e->cfg.n_pinned ? e->cfg.pinned[i] : e->cfg.preload[i - e->cfg.n_pinned];
}

/* srs.pinned's then srs.preload's circuits one after the other, until the
 * engine stops. */
static void *preload_thread(void *arg)
{
    engine_t *e = arg;
    prctl(PR_SET_NAME, "cuzk-preload");
    for (size_t i = 0; i < e->cfg.n_pinned + e->cfg.n_preload; i++) {
        pthread_mutex_lock(&e->lock);
        bool stop = e->stopping || e->stop;
        pthread_mutex_unlock(&e->lock);
        if (stop) break;
        const char *key, *id = start_id(e, i, &key);
        bool loaded;
        uint64_t ms = 0;
        cuzk_err err = {0};
        if (engine_preload(e, id, &loaded, &ms, &err))
            engine_log(LOG_WARN, "%s: %s", key, err.msg);
        else
            engine_log(LOG_INFO, "%s %s: %s in %.1f s", key, id,
                       loaded ? "already loaded" : "loaded", (double)ms / 1e3);
    }
    return NULL;
}

int engine_start_preload(engine_t *e, cuzk_err *err)
{
    engine_circuit_info info;
    size_t n = e->cfg.n_pinned + e->cfg.n_preload;
    for (size_t i = 0; i < n; i++) {
        const char *key, *id = start_id(e, i, &key);
        if (!provider_for(e, id, &info)) {
            unknown_circuit(e, id, err);
            return cuzk_err_prefix(err, "%s: ", key);
        }
    }
    if (!n || e->preload_thread) return CUZK_OK;
    if (pthread_create(&e->preload_thread, NULL, preload_thread, e)) {
        e->preload_thread = 0;
        return cuzk_errf(err, CUZK_ENOMEM, "srs.preload: cannot start a thread");
    }
    return CUZK_OK;
}

int engine_evict(engine_t *e, const char *circuit_id, bool *was_loaded, uint64_t *freed_bytes,
                 cuzk_err *err)
{
    int rc = srs_evict(&e->srs, circuit_id, was_loaded, freed_bytes, err);
    if (rc == ENGINE_ENOTFOUND) {
        engine_circuit_info info;
        if (provider_for(e, circuit_id, &info)) return CUZK_OK; /* known, never loaded */
    }
    return rc;
}

static bool all_done(engine_t *e)
{
    for (job *j = e->jobs; j; j = j->next)
        if (j->state != JOB_DONE) return false;
    return true;
}

void engine_shutdown(engine_t *e, uint64_t grace_ms)
{
    pthread_mutex_lock(&e->lock);
    if (e->stop) {
        pthread_mutex_unlock(&e->lock);
        return;
    }
    e->stopping = true;
    flush_batch(e);
    uint64_t deadline = now_ms() + grace_ms;
    while (!all_done(e) && now_ms() < deadline) {
        struct timespec ts;
        budget_deadline(&ts, 100);
        pthread_cond_timedwait(&e->done_cv, &e->lock, &ts);
    }
    for (job *j = e->jobs; j; j = j->next)
        if (j->state != JOB_DONE)
            engine_finish_job(e, j, ENGINE_FAILED, "the daemon shut down before this job finished");
    sched_remove_if(&e->queue, free_dead_item, e);
    e->stop = true;
    pthread_cond_broadcast(&e->work_cv);
    pthread_cond_broadcast(&e->gpu_cv);
    pthread_cond_broadcast(&e->lane_cv);
    pthread_cond_broadcast(&e->timer_cv);
    pthread_mutex_unlock(&e->lock);
    budget_close(&e->budget);
    if (e->preload_thread) pthread_join(e->preload_thread, NULL); /* after its load, if any */
    e->preload_thread = 0;
    loader_join(e);
    engine_pipeline_join(e);
    if (e->timer_thread) pthread_join(e->timer_thread, NULL);
    e->timer_thread = 0;
}

void engine_destroy(engine_t *e)
{
    if (!e) return;
    engine_shutdown(e, 0);
    pthread_mutex_lock(&e->lock);
    for (size_t i = 0; i < e->gpuq_n; i++) engine_item_free(e, e->gpuq[i]);
    for (size_t i = 0; i < e->laneq_n; i++) engine_item_free(e, e->laneq[i]);
    while (e->jobs) {
        job *j = e->jobs;
        e->jobs = j->next;
        job_free(j);
    }
    pthread_mutex_unlock(&e->lock);
    free(e->gpuq);
    free(e->laneq);
    sched_free(&e->queue);
    pool_destroy(&e->pool);
    srs_destroy(&e->srs);
    budget_release(&e->budget, e->device_host_bytes);
    budget_destroy(&e->budget);
    for (size_t i = 0; i < e->n_devices; i++) {
        if (e->devices[i].lane && e->backend->lane_release)
            e->backend->lane_release(e->devices[i].ordinal);
        pthread_mutex_destroy(&e->devices[i].lock);
    }
    pthread_mutex_destroy(&e->lock);
    pthread_mutex_destroy(&e->host_mu);
    pthread_cond_destroy(&e->work_cv);
    pthread_cond_destroy(&e->gpu_cv);
    pthread_cond_destroy(&e->lane_cv);
    pthread_cond_destroy(&e->done_cv);
    pthread_cond_destroy(&e->timer_cv);
    free(e);
}
