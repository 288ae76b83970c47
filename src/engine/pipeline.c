/*
 * pipeline.c - the per-partition pipeline of the engine.
 *
 *   scheduler queue ──▶ synthesis workers ──▶ GPU queue (bounded, same
 *   order as the scheduler) ──▶
 *   prover workers (N per device; a worker takes the device lock, then the
 *   first item and the queued items of the same circuit after it, up to
 *   pipeline.partitions_per_start, and holds the lock over one
 *   backend->start of them all, in which the backend uploads the next
 *   partition while this one's kernels run) ──▶ finalize in the same worker after
 * the lock: backend->finish, self-verification of every proof (without the engine lock), the
 *   item's SRS reference and memory returned, delivery to the job (its
 *   assembler places the 192 bytes at the partition's slot and completes
 *   the job once every partition is in).
 *
 * Which item goes where next is dispatch.c's policy (dispatch.h states
 * its rules): the order of both queues (priority with aging, then job age,
 * then partition), which items the HIGH+ synthesis workers take, when the
 * GPU queue has room for an item, and whether a start takes more items.
 *
 * A synthesis worker takes the first item it may, acquires the circuit's
 * SRS, reserves the partition's memory in the budget (blocking) and
 * synthesizes the item's circuits, one per job of the batch, in parallel,
 * into storage taken from the partition pool where an entry has room
 * (pool.h; its bytes count towards the reservation). As soon as backend->start returns, the prover
 * gives a/b/c and the assignments to the pool, which keeps their bytes of the reservation, and
 * releases the rest. Cancelled jobs are dropped from an item at each stage boundary; an item left
 * without jobs is freed. With pipeline.enabled = false a synthesis worker waits until the previous
 * item has been proven, so synthesis and proving never overlap.
 *
 * Several devices: each has its own prover workers, all taking from the
 * one GPU queue, so the partitions of a job and the items of a batch
 * spread over the devices as they free up, and a partition (one item) is
 * proved on one device. The queue holds pipeline.max_gpu_queue_depth
 * items per device in service and priority (dispatch.h). A start that
 * fails with CUZK_EDEVICE takes its device out of service (the device failed: a launch, a copy, a
 * lost context; an out-of-memory error fails the job and the device stays): its workers end, and
 * the item, its circuits and memory still with it, goes back to the queue for the other devices.
 * With no device left in service every queued and later partition fails with the devices' errors,
 * and the daemon keeps answering.
 */
#include <malloc.h>
#include <omp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine_log.h"
#include "dispatch.h"
#include "engine_internal.h"

static uint64_t now_ms(void)
{
    return srs_now_ms();
}

/* Bytes one synthesized partition holds until the prover consumed it:
 * its storage (the assignment, and a, b, c: one Fr per constraint, input
 * constraints included, unless it takes the witness-only path), plus
 * what proving it takes on the host (*work): on the CPU backend the
 * prover's three NTT buffers over the domain; on a device backend, whose
 * transforms run on the device, the CPU prep's worst case (the A and B
 * scalars gathered whole when their MSMs do not split), except on the
 * witness-only path, whose jobs the device makes from the witness it
 * holds: 8 bytes a variable stand for what comes back to the host (B_G2's
 * job when its points do not fit on the device) or a CPU prep of sparse
 * tails when the device has no memory free for its jobs. */
static uint64_t partition_bytes(const engine_t *e, const cs_capacity *s, bool witness,
                                uint64_t *work)
{
    uint64_t m = s->constraints + s->inputs, vars = s->inputs + s->aux, domain = 1;
    while (domain < m) domain <<= 1;
    bool device = strcmp(e->backend->name, "cpu") != 0;
    *work = !device   ? 3 * domain * sizeof(fr_t)
            : witness ? vars * sizeof(uint64_t)
                      : 2 * vars * sizeof(fr_t);
    return ((witness ? 0 : 3 * m) + vars) * sizeof(fr_t) + *work;
}

static void label_item(work_item *it)
{
    size_t off = 0;
    it->label[0] = 0;
    for (size_t i = 0; i < it->n && off < sizeof it->label; i++)
        off += (size_t)snprintf(it->label + off, sizeof it->label - off, "%s%s", i ? "+" : "",
                                it->jobs[i]->id);
}

int engine_enqueue_group(engine_t *e, job **jobs, size_t n)
{
    size_t parts = 0;
    int prio = 0;
    uint64_t seq = UINT64_MAX, since = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        if (jobs[i]->circ.n_partitions > parts) parts = jobs[i]->circ.n_partitions;
        if (jobs[i]->priority > prio) prio = jobs[i]->priority;
        if (jobs[i]->seq < seq) seq = jobs[i]->seq;
        if (jobs[i]->t_submit < since) since = jobs[i]->t_submit;
    }
    for (uint32_t p = 0; p < parts; p++) {
        work_item *it = calloc(1, sizeof *it);
        if (!it) return CUZK_ENOMEM;
        it->partition = p;
        it->budget = &e->budget;
        it->patience_ms = e->srs.rules.swap_after_ms;
        for (size_t i = 0; i < n; i++)
            if (jobs[i]->circ.n_partitions > p) {
                it->jobs[it->n++] = jobs[i];
                jobs[i]->items_live++;
            }
        label_item(it);
        it->key = (sched_key){prio, seq, p, since};
        if (sched_push(&e->queue, it->key, it)) {
            engine_item_free(e, it);
            return CUZK_ENOMEM;
        }
    }
    pthread_cond_broadcast(&e->work_cv);
    return CUZK_OK;
}

/* Removes finished or cancelled jobs from an item (lock held), freeing
 * their synthesized circuits; returns how many jobs remain. */
static size_t drop_finished(engine_t *e, work_item *it)
{
    size_t kept = 0;
    for (size_t i = 0; i < it->n; i++) {
        job *j = it->jobs[i];
        if (j->state != JOB_DONE && !engine_job_cancelled(j)) {
            if (it->provers) it->provers[kept] = it->provers[i];
            it->jobs[kept++] = j;
            continue;
        }
        if (it->provers) cs_prover_free(&it->provers[i]);
        if (j->state != JOB_DONE) engine_finish_job(e, j, ENGINE_CANCELLED, "cancelled");
        engine_job_unref(j);
    }
    it->n = kept;
    return kept;
}

static bool item_cancelled(void *ctx)
{
    const work_item *it = ctx;
    for (size_t i = 0; i < it->n; i++)
        if (!engine_job_cancelled(it->jobs[i])) return false;
    return true;
}

/* A partition's wait for memory (its reservation, its set's shape) ends
 * when its jobs are cancelled, or when it gives way to another reservation
 * (dispatch.h rule 8). Called with the budget's lock held. */
static bool item_wait_over(void *ctx)
{
    work_item *it = ctx;
    if (item_cancelled(it)) return true;
    return it->gave_way = dispatch_gives_way_locked(it->budget, it->key.priority, it->patience_ms);
}

/* Whether the item's synthesis ended (rc) because it gave way, not for
 * its jobs: it goes back to the queue. */
static bool item_gave_way(const work_item *it, int rc)
{
    return rc == CUZK_ECANCELLED && it->gave_way && !item_cancelled((void *)it);
}

/* Moves pooled storage with room for size into the item's provers where
 * the pool has some; took[i] is each one's bytes, the sum is returned. */
static uint64_t take_pooled(engine_t *e, work_item *it, const cs_capacity *size, bool witness,
                            uint64_t took[BATCH_MAX])
{
    uint64_t sum = 0;
    for (size_t i = 0; i < it->n; i++)
        sum += took[i] = pool_take(&e->pool, size, witness, &it->provers[i]);
    return sum;
}

/* The item's reserved bytes set to `bytes`, its set's partition bytes
 * following (residency rule 5). */
static void item_reserved(work_item *it, uint64_t bytes)
{
    srs_partition_bytes(it->srs, (int64_t)bytes - (int64_t)it->reserved);
    it->reserved = bytes;
}

/*
 * The item's memory: pooled storage for its circuits where the pool has
 * some, and the rest of partition_bytes from the budget (pooled storage
 * stands for the storage part only, whatever its bytes; the prover's NTT
 * buffers are always reserved). No item holds memory while it waits for
 * more (two items each holding storage while waiting for the other's
 * could wait forever): when the rest does not fit at once, the storage
 * goes back to the pool, the whole partition is reserved (blocking; the
 * evictor may free pooled storage), and the pool is asked again. A
 * partition that cannot fit beside the parameters the item holds fails at
 * once (a budget too small for the work).
 */
static int reserve_item(engine_t *e, work_item *it, const cs_capacity *size, bool witness,
                        cuzk_err *err)
{
    uint64_t took[BATCH_MAX], ntt, bytes = partition_bytes(e, size, witness, &ntt) * it->n;
    uint64_t storage = bytes - ntt * it->n, pooled = take_pooled(e, it, size, witness, took);
    uint64_t more = ntt * it->n + (storage > pooled ? storage - pooled : 0);
    if (budget_try_reserve(&e->budget, more, it->key.priority)) {
        item_reserved(it, pooled + more);
        return CUZK_OK;
    }
    for (size_t i = 0; i < it->n; i++)
        budget_release(&e->budget, pool_put(&e->pool, &it->provers[i], took[i]));
    /* The item holds its parameters (and shape) while it waits: beside them
     * the partition can never fit, so waiting would be forever. */
    uint64_t held = it->srs ? it->srs->bytes + it->srs->shape_bytes : 0;
    uint64_t room = budget_room(&e->budget);
    if (held + bytes > room)
        return cuzk_errf(err, CUZK_ENOMEM,
                         "%s: its partition (%llu MiB) and the parameters it proves with "
                         "(%llu MiB) together exceed the memory budget (%llu MiB, of which the "
                         "devices hold %llu MiB)",
                         it->label, (unsigned long long)(bytes >> 20),
                         (unsigned long long)(held >> 20),
                         (unsigned long long)(e->budget.total >> 20),
                         (unsigned long long)(budget_held(&e->budget) >> 20));
    int rc = budget_reserve(&e->budget, bytes, it->key.priority, it->srs, item_wait_over, it,
                            it->label, err);
    if (rc) return rc;
    pooled = take_pooled(e, it, size, witness, took);
    uint64_t excess = pooled < storage ? pooled : storage;
    budget_release(&e->budget, excess);
    item_reserved(it, bytes + pooled - excess);
    return CUZK_OK;
}

/* Counts the item's circuits that synthesize into pooled storage. */
static void count_reused(engine_t *e, const work_item *it)
{
    uint64_t k = 0;
    for (size_t i = 0; i < it->n; i++) k += it->provers[i].cap_aux != 0; /* either path's */
    __atomic_add_fetch(&e->reused, k, __ATOMIC_RELAXED);
}

/* The item's circuits on the witness-only path, one after the other (each
 * witness's units in parallel). */
static int synthesize_witnesses(cs_prover *out, const cs_circuit *circuits, size_t n,
                                const cs_shape *shape, const cs_capacity *size, cuzk_err *err)
{
    int rc = CUZK_OK;
    for (size_t i = 0; !rc && i < n; i++)
        if ((rc = cs_synthesize_for_shape(&out[i], circuits[i], shape, size, err)) && n > 1)
            cuzk_err_prefix(err, "circuit %zu: ", i);
    return rc;
}

/* SRS, shape, memory and synthesis of one item (no lock held). */
static int synthesize_item(engine_t *e, work_item *it, cuzk_err *err)
{
    job *j0 = it->jobs[0];
    cs_circuit circuits[BATCH_MAX];
    for (size_t i = 0; i < it->n; i++) circuits[i] = it->jobs[i]->circ.partitions[it->partition];
    srs_shape_req req = {circuits[0], item_cancelled, it}; /* recorded beside a load */
    it->srs_t0 = it->unready_ms ? it->unready_ms : now_ms();
    it->gave_way = false;
    int rc = it->srs ? CUZK_OK /* held since it was found ready (loader.h) */
                     : srs_acquire_shaped(&e->srs, &j0->circ.info, j0->provider->setup_dev,
                                          e->cfg.witness_only ? &req : NULL, &it->srs, NULL, err);
    it->srs_t1 = now_ms();
    if (rc) return cuzk_err_prefix(err, "SRS %s: ", j0->circ.info.circuit_id);
    const cs_shape *shape = NULL;
    if (item_cancelled(it)) return cuzk_errf(err, CUZK_ECANCELLED, "cancelled");
    if (e->cfg.witness_only) {
        cuzk_err why;
        shape = srs_shape(&e->srs, it->srs, circuits[0], item_wait_over, it, NULL, &why);
        it->srs_t1 = now_ms();
        if (why.code == CUZK_ECANCELLED) return cuzk_errf(err, CUZK_ECANCELLED, "cancelled");
    }
    if (!(it->provers = calloc(it->n, sizeof *it->provers)))
        return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    const cs_capacity *charge = j0->circ.charge.constraints ? &j0->circ.charge : &j0->circ.size;
    if ((rc = reserve_item(e, it, charge, shape != NULL, err))) return rc;
    count_reused(e, it);
    it->synth_t0 = it->synth_t1 = now_ms();
    engine_timeline("SYNTH_START", it->label, "partition=%u", it->partition);
    pthread_mutex_lock(&e->lock);
    int threads = dispatch_synthesis_threads(e, it, shape != NULL, omp_get_num_procs(),
                                             (int)engine_synthesis_workers(&e->cfg, e->backend));
    pthread_mutex_unlock(&e->lock);
    if (threads) omp_set_num_threads(threads);
    if (shape)
        rc = synthesize_witnesses(it->provers, circuits, it->n, shape, &j0->circ.size, err);
    else
        rc = cs_synthesize_batch_into(it->provers, circuits, it->n, err);
    it->synth_t1 = now_ms();
    engine_timeline("SYNTH_END", it->label, "partition=%u,ms=%llu", it->partition,
                    (unsigned long long)(it->synth_t1 - it->synth_t0));
    return rc;
}

/* The next item a worker may take (dispatch.h rules 3 and 6), or NULL. */
static work_item *synth_next(engine_t *e, bool priority_only)
{
    dispatch_age(e);
    if (!e->cfg.pipeline_enabled && e->in_pipeline) return NULL;
    return dispatch_synth_next(e, priority_only, loader_ready);
}

static void fail_item(engine_t *e, work_item *it, const cuzk_err *err)
{
    for (size_t i = 0; i < it->n; i++)
        if (it->jobs[i]->state != JOB_DONE)
            engine_finish_job(e, it->jobs[i],
                              err->code == CUZK_ECANCELLED ? ENGINE_CANCELLED : ENGINE_FAILED,
                              "partition %u: %s", it->partition, err->msg);
}

/* Fails an item's jobs when no device is left in service (lock held). */
static void fail_no_device(engine_t *e, work_item *it)
{
    cuzk_err err = {.code = CUZK_EDEVICE};
    size_t off = (size_t)snprintf(err.msg, sizeof err.msg,
                                  "no device left in service (backend %s):", e->backend->name);
    for (size_t i = 0; i < e->n_devices && off < sizeof err.msg; i++)
        off += (size_t)snprintf(err.msg + off, sizeof err.msg - off, " device %d: %.200s;",
                                e->devices[i].ordinal, e->devices[i].error);
    fail_item(e, it, &err);
}

/* Takes the next item with live jobs that a worker (priority_only:
 * dispatch.h's rule 3) may take, marks them running (lock held). */
static work_item *take_item(engine_t *e, bool priority_only)
{
    while (!e->stop) {
        work_item *it = NULL;
        while (!e->stop && !(it = synth_next(e, priority_only))) {
            if (dispatch_held_back(e)) { /* rule 8: looked at again every 100 ms */
                struct timespec ts;
                budget_deadline(&ts, 100);
                pthread_cond_timedwait(&e->work_cv, &e->lock, &ts);
            } else {
                pthread_cond_wait(&e->work_cv, &e->lock);
            }
        }
        if (e->stop) break;
        if (!drop_finished(e, it)) {
            engine_item_free(e, it);
            continue;
        }
        if (!e->in_service) { /* not worth synthesizing */
            fail_no_device(e, it);
            engine_item_free(e, it);
            continue;
        }
        /* its jobs' start: when it first waited for its parameters' load
         * (their srs span, synthesize_item), else now */
        uint64_t t = it->unready_ms ? it->unready_ms : now_ms();
        for (size_t i = 0; i < it->n; i++) {
            job *j = it->jobs[i];
            if (j->state == JOB_QUEUED) j->state = JOB_RUNNING, j->t_start = t;
        }
        e->in_pipeline++;
        dispatch_synth_taken(e, it);
        return it;
    }
    return NULL;
}

/* Returns the item's memory and SRS (no lock held). */
static void release_item_resources(engine_t *e, work_item *it)
{
    if (it->provers)
        for (size_t i = 0; i < it->n; i++) cs_prover_free(&it->provers[i]);
    free(it->provers);
    it->provers = NULL;
    if (it->reserved) budget_release(&e->budget, it->reserved);
    item_reserved(it, 0);
    if (it->srs) srs_release(&e->srs, it->srs);
    it->srs = NULL;
}

/*
 * Lock held on entry and exit. The last item out of an engine with nothing
 * queued hands the heap's free pages back to the system (malloc_trim):
 * glibc keeps freed blocks below its mmap threshold, which grows to 32 MiB
 * as large blocks come and go, in the arenas of the threads that freed
 * them, so a daemon gone idle after a mixed load held a few hundred MiB
 * beyond what it uses (the soak's check of RSS after the load).
 */
static void retire_item(engine_t *e, work_item *it)
{
    pthread_mutex_unlock(&e->lock);
    release_item_resources(e, it);
    pthread_mutex_lock(&e->lock);
    e->in_pipeline--;
    engine_item_free(e, it);
    pthread_cond_broadcast(&e->work_cv);
    if (!e->in_pipeline && !e->queue.n) {
        pthread_mutex_unlock(&e->lock);
        malloc_trim(0);
        pthread_mutex_lock(&e->lock);
    }
}

/* Puts `it` at position `at` of the array queue *q of *n items (room for
 * *cap), grown by doubling as needed (lock held). */
static int queue_insert(work_item ***q, size_t *n, size_t *cap, size_t at, work_item *it)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 8;
        work_item **grown = realloc(*q, c * sizeof *grown);
        if (!grown) return CUZK_ENOMEM;
        *q = grown, *cap = c;
    }
    memmove(*q + at + 1, *q + at, (*n - at) * sizeof **q);
    (*q)[at] = it;
    (*n)++;
    return CUZK_OK;
}

/* Puts an item into the GPU queue in the scheduler's order (lock held):
 * stable, so a CRITICAL partition also overtakes NORMAL ones already
 * synthesized. */
static int gpuq_insert(engine_t *e, work_item *it)
{
    size_t at = dispatch_place(e->gpuq, e->gpuq_n, it);
    int rc = queue_insert(&e->gpuq, &e->gpuq_n, &e->gpuq_cap, at, it);
    if (rc) return rc;
    engine_timeline("GPU_QUEUE", it->label, "partition=%u,depth=%zu", it->partition, e->gpuq_n);
    pthread_cond_broadcast(&e->gpu_cv);
    return CUZK_OK;
}

/* Puts an item into the lanes' queue in rule 1's order (lock held). */
static int laneq_insert(engine_t *e, work_item *it)
{
    size_t at = dispatch_place(e->laneq, e->laneq_n, it);
    int rc = queue_insert(&e->laneq, &e->laneq_n, &e->laneq_cap, at, it);
    if (rc) return rc;
    engine_timeline("LANE_QUEUE", it->label, "partition=%u,depth=%zu", it->partition, e->laneq_n);
    pthread_cond_broadcast(&e->lane_cv);
    return CUZK_OK;
}

/* Queues the item: for a device's lane when dispatch.h's rule 7 says so,
 * at once; else in the GPU queue once there is room and its turn (rule 4).
 * CUZK_EDEVICE when no device is left (lock held). */
static int gpuq_push(engine_t *e, work_item *it)
{
    if (e->in_service && !e->stop && dispatch_lane_takes(e, it)) return laneq_insert(e, it);
    it->room_next = e->room_waiters, e->room_waiters = it;
    while (!e->stop && e->in_service && !dispatch_gpu_turn(e, it))
        pthread_cond_wait(&e->work_cv, &e->lock);
    work_item **at = &e->room_waiters;
    while (*at != it) at = &(*at)->room_next;
    *at = it->room_next;
    if (e->room_waiters) pthread_cond_broadcast(&e->work_cv); /* the next in line may go now */
    if (e->stop) return CUZK_ECANCELLED;
    if (!e->in_service) return CUZK_EDEVICE;
    return gpuq_insert(e, it);
}

typedef struct synth_arg {
    engine_t *e;
    bool priority_only; /* one of pipeline.priority_synthesis */
} synth_arg;

/* Dispatch rule 8: an item that gave way goes back to the scheduler queue
 * at its place, its jobs still running (lock held, its resources
 * released). */
static void requeue_item(engine_t *e, work_item *it)
{
    e->in_pipeline--;
    dispatch_synth_done(e, it);
    engine_log(LOG_INFO, "%s: gave way to a reservation of a higher priority, queued again",
               it->label);
    if (sched_push(&e->queue, it->key, it)) {
        cuzk_err err;
        cuzk_errf(&err, CUZK_ENOMEM, "out of memory queueing it again");
        fail_item(e, it, &err);
        engine_item_free(e, it);
    }
    pthread_cond_broadcast(&e->work_cv);
}

static void *synthesis_worker(void *arg)
{
    engine_t *e = ((synth_arg *)arg)->e;
    bool priority_only = ((synth_arg *)arg)->priority_only;
    prctl(PR_SET_NAME, "cuzk-synth");          /* its OpenMP team's threads take the name too */
    dispatch_synthesis_nice(e, priority_only); /* and its nice (rule 3) */
    pthread_mutex_lock(&e->lock);
    work_item *it;
    while ((it = take_item(e, priority_only))) {
        e->synthesizing++;
        pthread_mutex_unlock(&e->lock);
        cuzk_err err = {0};
        int rc = synthesize_item(e, it, &err);
        bool gave_way = item_gave_way(it, rc);
        if (gave_way) release_item_resources(e, it);
        pthread_mutex_lock(&e->lock);
        e->synthesizing--;
        if (gave_way) {
            requeue_item(e, it);
            continue;
        }
        for (size_t i = 0; i < it->n; i++) {
            span_add(&it->jobs[i]->srs, it->srs_t0, it->srs_t1);
            span_add(&it->jobs[i]->synth, it->synth_t0, it->synth_t1);
        }
        if (rc) fail_item(e, it, &err);
        if (rc || !drop_finished(e, it)) {
            dispatch_synth_done(e, it);
            retire_item(e, it);
            continue;
        }
        rc = gpuq_push(e, it);
        dispatch_synth_done(e, it);
        if (rc == CUZK_EDEVICE) fail_no_device(e, it);
        if (rc) retire_item(e, it);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* Removes and returns the GPU queue's first item (lock held, queue not
 * empty). */
static work_item *gpuq_pop(engine_t *e)
{
    work_item *it = e->gpuq[0];
    memmove(e->gpuq, e->gpuq + 1, --e->gpuq_n * sizeof *e->gpuq);
    return it;
}

/* Fails and retires an item that could not be queued again (lock held). */
static void fail_requeue(engine_t *e, work_item *it)
{
    cuzk_err err = {.code = CUZK_ENOMEM};
    snprintf(err.msg, sizeof err.msg, "out of memory while requeueing");
    fail_item(e, it, &err);
    retire_item(e, it);
}

/* Takes device d out of service after its start failed with err (lock
 * held): its workers end once they see it, and when it was the last one,
 * every item in the GPU queue fails. */
static void take_out_of_service(engine_t *e, device *d, const cuzk_err *err)
{
    if (d->failed) return;
    d->failed = true;
    snprintf(d->error, sizeof d->error, "%s", err->msg);
    e->in_service--;
    engine_log(LOG_ERROR, "device %d (%s) taken out of service, %zu of %zu left: %s", d->ordinal,
               d->name, e->in_service, e->n_devices, err->msg);
    pthread_cond_broadcast(&e->gpu_cv);
    pthread_cond_broadcast(&e->work_cv);
    while (!e->in_service && e->gpuq_n) {
        work_item *it = gpuq_pop(e);
        fail_no_device(e, it);
        retire_item(e, it);
    }
}

/* The items a prover worker gives its device in one start: queued
 * partitions of one circuit (pipeline.partitions_per_start), taken when it
 * starts and, on a backend with start_fed, while it proves, so that the
 * backend loads the next one while this one's kernels run. Such a backend
 * reports each circuit consumed, and an item whose circuits all are gives
 * its storage back at once: the first n_released items, in order. */
#define CHAIN_MAX 16
typedef struct chain {
    engine_t *e;
    device *d;
    work_item *it[CHAIN_MAX];
    size_t first[CHAIN_MAX];    /* each item's first circuit in the start */
    uint64_t joined[CHAIN_MAX]; /* ms: when each item joined (its device time from there) */
    size_t n, circuits, max, n_released;
    work_item *dead[CHAIN_MAX]; /* fed items found without live jobs: retired after */
    size_t n_dead;
} chain;

/* Appends item it to the chain (engine lock held). */
static void chain_add(chain *c, work_item *it)
{
    c->first[c->n] = c->circuits;
    c->joined[c->n] = now_ms();
    c->it[c->n++] = it;
    c->circuits += it->n;
}

/* Whether the queue's first item may join the chain now (lock held): the
 * same circuit's parameters, room left, none proved alone, one queued
 * item left for each other device waiting idle, and nothing of higher
 * priority waiting (dispatch.h's rule 5). */
static bool chain_takes(const engine_t *e, const chain *c, size_t room)
{
    if (!e->gpuq_n || c->n >= c->max || e->stop) return false;
    const work_item *it = e->gpuq[0];
    if (it->alone) return c->n == 0;
    if (c->n == 0) return true;
    return !c->it[0]->alone && it->srs == c->it[0]->srs && it->n <= room &&
           e->gpuq_n > e->gpu_idle && dispatch_start_takes(e, it);
}

/* Moves the first live item of the GPU queue into c, and after it the next
 * ones chain_takes allows, up to BATCH_MAX circuits (lock held). Items
 * whose jobs are all gone are retired on the way. */
static void take_chain(engine_t *e, chain *c)
{
    while (chain_takes(e, c, BATCH_MAX - c->circuits)) {
        work_item *it = gpuq_pop(e);
        if (!drop_finished(e, it)) {
            retire_item(e, it);
            continue;
        }
        chain_add(c, it);
    }
}

/* The feed's more(): the next queued item chain_takes allows, its
 * circuits for the running start (0: none). Retiring an item takes locks
 * the start must not meet, so items found dead wait in c->dead. */
static size_t chain_more(void *ctx, const cs_prover **circuits, size_t room)
{
    chain *c = ctx;
    engine_t *e = c->e;
    work_item *it = NULL;
    pthread_mutex_lock(&e->lock);
    dispatch_age(e);
    while (!it && c->n_dead < CHAIN_MAX && chain_takes(e, c, room)) {
        it = gpuq_pop(e);
        if (!drop_finished(e, it)) c->dead[c->n_dead++] = it, it = NULL;
    }
    if (it) {
        chain_add(c, it);
        e->proving++;
        c->d->held++;
        engine_timeline("GPU_START", it->label, "partition=%u,device=%d", it->partition,
                        c->d->ordinal);
    }
    pthread_cond_broadcast(&e->work_cv);
    pthread_mutex_unlock(&e->lock);
    if (!it) return 0;
    *circuits = it->provers;
    return it->n;
}

/* Gives the item's storage to the pool and its other bytes back. */
static void release_storage(engine_t *e, work_item *it)
{
    uint64_t unused = it->reserved;
    for (size_t i = 0; i < it->n; i++) unused = pool_put(&e->pool, &it->provers[i], unused);
    budget_release(&e->budget, unused);
    item_reserved(it, 0);
}

/* The feed's consumed(): the items whose circuits are all done give their
 * storage back (the start proves in order). */
static void chain_consumed(void *ctx, size_t i)
{
    chain *c = ctx;
    for (;;) {
        pthread_mutex_lock(&c->e->lock); /* chain_more may be appending */
        size_t k = c->n_released;
        bool done = k < c->n && c->first[k] + c->it[k]->n <= i + 1;
        pthread_mutex_unlock(&c->e->lock);
        if (!done) return;
        release_storage(c->e, c->it[k]);
        c->n_released++;
    }
}

/* backend start of the chain's circuits under the device lock (held on
 * entry, released here), fed from the queue where the backend takes it
 * (feed), then a/b/c and memory go back. A start that fails with
 * CUZK_EDEVICE takes the device out of service before its lock goes (so
 * none of its workers starts another item on it) and leaves a/b/c and
 * memory with the items not yet released (*device_failed), to be proved on
 * another device; so does any failed start of several items, which are
 * then proved each in a start of its own (a bad partition fails only its
 * own jobs).
 * *busy_ms: time in start and finish. */
static int prove_chain(engine_t *e, device *d, chain *c, bool feed, groth16_proof *proofs,
                       uint64_t *busy_ms, bool *device_failed, cuzk_err *err)
{
    void *handle = NULL;
    uint64_t t0 = now_ms();
    pthread_mutex_lock(&e->lock); /* GetStatus reads the device's job under it */
    snprintf(d->current_job, sizeof d->current_job, "%s", c->it[0]->jobs[0]->id);
    d->current_kind = c->it[0]->jobs[0]->kind;
    pthread_mutex_unlock(&e->lock);
    cs_prover one[BATCH_MAX], *circuits = c->n == 1 ? c->it[0]->provers : one;
    for (size_t k = 0, at = 0; k < c->n; k++) {
        work_item *it = c->it[k];
        if (c->n > 1) memcpy(one + at, it->provers, it->n * sizeof *one), at += it->n;
        engine_timeline("GPU_START", it->label, "partition=%u,device=%d", it->partition,
                        d->ordinal);
    }
    if (e->cfg.gpu_threads) omp_set_num_threads((int)e->cfg.gpu_threads);
    const groth16_params *pk = &c->it[0]->srs->params;
    int rc;
    if (feed) {
        engine_feed f = {c, BATCH_MAX, chain_more, chain_consumed};
        rc = e->backend->start_fed(d->ordinal, pk, circuits, c->circuits, &f, &handle, err);
    } else {
        rc = e->backend->start(d->ordinal, pk, circuits, c->circuits, &handle, err);
    }
    *device_failed = rc == CUZK_EDEVICE;
    pthread_mutex_lock(&e->lock);
    d->current_job[0] = 0;
    if (*device_failed) take_out_of_service(e, d, err);
    pthread_mutex_unlock(&e->lock);
    *busy_ms = now_ms() - t0;
    pthread_mutex_unlock(&d->lock);
    if (*device_failed || (rc && c->n > 1)) return rc;
    for (size_t k = c->n_released; k < c->n; k++) release_storage(e, c->it[k]);
    c->n_released = c->n;
    uint64_t t1 = now_ms();
    if (!rc) rc = e->backend->finish(handle, proofs, c->circuits, err);
    *busy_ms += now_ms() - t1;
    engine_track_device_host(e); /* a plan that parks rows grew it */
    for (size_t k = 0; k < c->n; k++)
        engine_timeline("GPU_END", c->it[k]->label, "partition=%u,device=%d", c->it[k]->partition,
                        d->ordinal);
    return rc;
}

/* An item whose storage went back before its start failed: synthesized
 * again, and then proved in a start of its own (lock held). */
static void resynthesize_item(engine_t *e, work_item *it)
{
    it->alone = true;
    if (!drop_finished(e, it)) {
        retire_item(e, it);
        return;
    }
    pthread_mutex_unlock(&e->lock);
    release_item_resources(e, it);
    pthread_mutex_lock(&e->lock);
    engine_log(LOG_WARN, "partition %u of %s: synthesized again", it->partition, it->label);
    e->in_pipeline--;
    if (sched_push(&e->queue, it->key, it)) {
        e->in_pipeline++;
        fail_requeue(e, it);
        return;
    }
    pthread_cond_broadcast(&e->work_cv);
}

/* Self-verification of job i's partition proof (no lock: the item's
 * reference keeps the job's circuits and inputs, its SRS entry the
 * verifying key). A cancelled job's proof is not checked. */
static int verify_partition(const work_item *it, size_t i, const groth16_proof *proof,
                            cuzk_err *err)
{
    const job *j = it->jobs[i];
    if (__atomic_load_n(&j->cancel, __ATOMIC_ACQUIRE)) return CUZK_OK;
    const engine_circuits *c = &j->circ;
    return groth16_verify(&it->srs->pvk, proof, c->inputs + (size_t)it->partition * c->n_inputs,
                          c->n_inputs, err);
}

/* Delivery of job i's verified (vrc 0) or refused partition proof, proved
 * on its device from t0 to t1 (ms; lock held). */
static void deliver(engine_t *e, work_item *it, size_t i, const groth16_proof *proof, int vrc,
                    const cuzk_err *verr, uint64_t t0, uint64_t t1)
{
    job *j = it->jobs[i];
    span_add(&j->gpu, t0, t1);
    if (j->state == JOB_DONE) return;
    if (vrc) {
        engine_finish_job(e, j, ENGINE_FAILED, "partition %u: self-verification failed: %s",
                          it->partition, verr->msg);
        return;
    }
    groth16_proof_encode(j->proof + (size_t)it->partition * GROTH16_PROOF_BYTES, proof);
    if (++j->parts_done == j->circ.n_partitions)
        engine_finish_job(e, j, ENGINE_COMPLETED, "%s", "");
}

/* An item whose start failed, its storage still with it: back to the GPU
 * queue (after a device failure, for the devices left:
 * take_out_of_service failed it when none is), unless its jobs are gone
 * meanwhile (lock held). `how` says which for the log. */
static void retry_item(engine_t *e, work_item *it, const char *how)
{
    engine_log(LOG_WARN, "partition %u of %s: %s", it->partition, it->label, how);
    if (!drop_finished(e, it))
        retire_item(e, it);
    else if (!e->in_service)
        fail_no_device(e, it), retire_item(e, it);
    else if (gpuq_insert(e, it))
        fail_requeue(e, it);
}

/* The proofs are verified outside the engine lock, and each item's SRS
 * reference and memory go back before any of its jobs can complete: a
 * client told a job is done finds the SRS idle (EvictSRS succeeds) and
 * the budget refunded. A failed start of several items, or on a device
 * that failed, fails none of them: those whose storage is gone are
 * synthesized again, the others go back to the GPU queue, for another
 * device or (any other failure) to be proved each in a start of its own,
 * where a bad partition fails only its own jobs. */
static void finalize_chain(engine_t *e, device *d, chain *c)
{
    groth16_proof proofs[BATCH_MAX];
    cuzk_err err = {0}, verr[BATCH_MAX];
    int vrc[BATCH_MAX] = {0};
    uint64_t gpu_ms = 0;
    bool device_failed, feed = e->backend->start_fed != NULL && !c->it[0]->alone;
    int rc = prove_chain(e, d, c, feed, proofs, &gpu_ms, &device_failed, &err);
    uint64_t t1 = now_ms();
    pthread_mutex_lock(&e->lock);
    for (size_t k = 0; k < c->n_dead; k++) retire_item(e, c->dead[k]);
    c->n_dead = 0;
    if (rc && (device_failed || c->n > 1)) {
        if (!device_failed)
            engine_log(LOG_WARN,
                       "a start of %zu partitions failed (%s): each proved again in a start of "
                       "its own",
                       c->n, err.msg);
        d->busy_ms += gpu_ms;
        d->held -= c->n;
        for (size_t k = 0; k < c->n; k++) {
            c->it[k]->alone |= !device_failed; /* a start of its own next time */
            if (k < c->n_released)
                resynthesize_item(e, c->it[k]);
            else
                retry_item(e, c->it[k],
                           device_failed ? "retried on another device" : "proved again alone");
        }
        pthread_mutex_unlock(&e->lock);
        return;
    }
    pthread_mutex_unlock(&e->lock);
    for (size_t k = 0, at = 0; k < c->n; k++) {
        work_item *it = c->it[k];
        for (size_t i = 0; !rc && i < it->n; i++, at++)
            vrc[at] = verify_partition(it, i, &proofs[at], &verr[at]);
        release_item_resources(e, it);
    }
    pthread_mutex_lock(&e->lock);
    d->busy_ms += gpu_ms;
    d->held -= c->n;
    d->proved += rc ? 0 : c->n;
    for (size_t k = 0, at = 0; k < c->n; k++) {
        work_item *it = c->it[k];
        if (rc)
            fail_item(e, it, &err);
        else
            for (size_t i = 0; i < it->n; i++, at++)
                deliver(e, it, i, &proofs[at], vrc[at], &verr[at], c->joined[k], t1);
        retire_item(e, it);
    }
    pthread_mutex_unlock(&e->lock);
}

typedef struct prover_arg {
    engine_t *e;
    device *d;
} prover_arg;

#define LANE_NOTE_MS 20 /* a lane item's storage release longer than this is logged */

/* A partition of the lanes' queue proved on device d's lane (no lock
 * held): start and finish there (never d->lock), its storage back once
 * the start returns, then verified and delivered as finalize_chain does.
 * A failed lane start puts it in the GPU queue for a device's start
 * (dispatch.h rule 7; the device out of service first when it failed). */
static void finalize_lane(engine_t *e, device *d, work_item *it)
{
    groth16_proof proofs[BATCH_MAX];
    cuzk_err err = {0}, verr[BATCH_MAX];
    int vrc[BATCH_MAX] = {0};
    void *handle = NULL;
    engine_timeline("LANE_START", it->label, "partition=%u,device=%d", it->partition, d->ordinal);
    uint64_t t0 = now_ms();
    int rc =
        e->backend->lane_start(d->ordinal, &it->srs->params, it->provers, it->n, &handle, &err);
    bool started = rc == CUZK_OK;
    if (started) {
        uint64_t r0 = now_ms(), took;
        release_storage(e, it); /* a full pool may free an entry here (pool.h) */
        if ((took = now_ms() - r0) > LANE_NOTE_MS)
            engine_log(LOG_INFO, "%s: its storage went back to the pool in %llu ms", it->label,
                       (unsigned long long)took);
        rc = e->backend->finish(handle, proofs, it->n, &err);
    }
    uint64_t t1 = now_ms();
    engine_timeline("LANE_END", it->label, "partition=%u,device=%d", it->partition, d->ordinal);
    pthread_mutex_lock(&e->lock);
    d->lane_busy_ms += t1 - t0;
    if (rc && !started) {
        if (rc == CUZK_EDEVICE) take_out_of_service(e, d, &err);
        it->no_lane = true;
        retry_item(e, it, "its lane start failed: proved by a device's start");
        pthread_mutex_unlock(&e->lock);
        return;
    }
    pthread_mutex_unlock(&e->lock);
    for (size_t i = 0; !rc && i < it->n; i++)
        vrc[i] = verify_partition(it, i, &proofs[i], &verr[i]);
    release_item_resources(e, it);
    pthread_mutex_lock(&e->lock);
    d->lane_proved += rc ? 0 : it->n;
    if (rc)
        fail_item(e, it, &err);
    else
        for (size_t i = 0; i < it->n; i++) deliver(e, it, i, &proofs[i], vrc[i], &verr[i], t0, t1);
    retire_item(e, it);
    pthread_mutex_unlock(&e->lock);
}

/* Proves the lanes' queue on device d's lane, one partition at a time,
 * until the engine stops or d is taken out of service. */
static void *lane_worker(void *arg)
{
    engine_t *e = ((prover_arg *)arg)->e;
    device *d = ((prover_arg *)arg)->d;
    prctl(PR_SET_NAME, "cuzk-lane");
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->stop && !d->failed && !e->laneq_n) pthread_cond_wait(&e->lane_cv, &e->lock);
        if (e->stop || d->failed) break;
        work_item *it = e->laneq[0];
        memmove(e->laneq, e->laneq + 1, --e->laneq_n * sizeof *e->laneq);
        if (!drop_finished(e, it)) {
            retire_item(e, it);
            continue;
        }
        e->proving++;
        pthread_mutex_unlock(&e->lock);
        finalize_lane(e, d, it);
        pthread_mutex_lock(&e->lock);
        e->proving--;
    }
    /* the last lane gone: what its queue holds goes to the devices' starts */
    bool last = true;
    for (size_t i = 0; i < e->n_devices; i++)
        last &= &e->devices[i] == d || !e->devices[i].lane || e->devices[i].failed;
    while (last && !e->stop && e->laneq_n) {
        work_item *it = e->laneq[--e->laneq_n];
        it->no_lane = true;
        retry_item(e, it, "no lane left: proved by a device's start");
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* Proves chains of items on device d until the engine stops or d is taken
 * out of service. */
static void *prover_worker(void *arg)
{
    engine_t *e = ((prover_arg *)arg)->e;
    device *d = ((prover_arg *)arg)->d;
    prctl(PR_SET_NAME, "cuzk-prover"); /* and the backend's helper threads it starts */
    for (;;) {
        /* The device first, then the items: the best item is chosen when
         * the device is free, not when this worker became idle. */
        pthread_mutex_lock(&d->lock);
        pthread_mutex_lock(&e->lock);
        e->gpu_idle++;
        while (!e->stop && !d->failed && !e->gpuq_n) pthread_cond_wait(&e->gpu_cv, &e->lock);
        e->gpu_idle--;
        /* Once stopped, nothing is taken (chain_takes): the items left in
         * the queue, whose jobs engine_shutdown failed, are retired by
         * engine_pipeline_join, and the worker ends rather than spin on
         * them. */
        bool any = e->gpuq_n && !d->failed && !e->stop;
        chain c = {.e = e, .d = d, .n = 0};
        c.max = e->cfg.partitions_per_start ? e->cfg.partitions_per_start : 1;
        if (c.max > CHAIN_MAX) c.max = CHAIN_MAX;
        if (any) dispatch_age(e), take_chain(e, &c);
        pthread_cond_broadcast(&e->work_cv);
        e->proving += c.n;
        d->held += c.n;
        pthread_mutex_unlock(&e->lock);
        if (!c.n) {
            pthread_mutex_unlock(&d->lock);
            if (!any) return NULL;
            continue;
        }
        finalize_chain(e, d, &c);
        pthread_mutex_lock(&e->lock);
        e->proving -= c.n;
        pthread_mutex_unlock(&e->lock);
    }
}

/* pipeline.synthesis_concurrency 0 (the default) is auto: 4 workers when
 * the backend drives a GPU, whose prover outpaces one synthesis (512MiB
 * PoRep on an H200: 166 proofs/min with 4, 161 with 2, 120 with 1;
 * docs/performance.md), 1 on the CPU backend, where synthesis and proving
 * share the cores. Each worker's partition is reserved from the memory
 * budget before it is synthesized, so more workers never overcommit. */
#define SYNTH_WORKERS_GPU 4

size_t engine_synthesis_workers(const cuzk_config *c, const engine_backend *b)
{
    size_t n = c->synthesis_concurrency;
    if (n == 0) n = strcmp(b->name, "cuda") == 0 ? SYNTH_WORKERS_GPU : 1;
    if (c->max_parallel_synthesis && n > c->max_parallel_synthesis) n = c->max_parallel_synthesis;
    return c->pipeline_enabled ? n : 1;
}

/* The synthesis workers: engine_synthesis_workers' that take any
 * partition, then pipeline.priority_synthesis that take only HIGH and
 * CRITICAL ones (dispatch.h's rule 3; none when the pipeline is off). */
static size_t start_synthesis(engine_t *e, size_t *want)
{
    size_t any = engine_synthesis_workers(&e->cfg, e->backend);
    *want = any + (e->cfg.pipeline_enabled ? e->cfg.priority_synthesis : 0);
    synth_arg *args = calloc(*want, sizeof *args);
    e->synth_threads = calloc(*want, sizeof(pthread_t));
    e->synth_args = args;
    if (!args || !e->synth_threads) return 0;
    size_t started = 0;
    for (; started < *want; started++) {
        args[started] = (synth_arg){e, started >= any};
        if (pthread_create(&e->synth_threads[started], NULL, synthesis_worker, &args[started]))
            break;
    }
    return started;
}

/* One lane worker per device with a lane (dispatch.h rule 7); their
 * arguments follow the prover workers' in e->gpu_args. */
static int start_lanes(engine_t *e, cuzk_err *err)
{
    size_t want = 0;
    for (size_t i = 0; i < e->n_devices; i++) want += e->devices[i].lane;
    if (!want) return CUZK_OK;
    e->lane_threads = calloc(want, sizeof(pthread_t));
    prover_arg *args = calloc(want, sizeof *args);
    if (!e->lane_threads || !args) {
        free(args);
        return cuzk_errf(err, CUZK_ENOMEM, "engine: out of memory");
    }
    e->lane_args = args;
    for (size_t i = 0; i < e->n_devices && e->n_lane < want; i++) {
        if (!e->devices[i].lane) continue;
        args[e->n_lane] = (prover_arg){e, &e->devices[i]};
        if (pthread_create(&e->lane_threads[e->n_lane], NULL, lane_worker, &args[e->n_lane]))
            return cuzk_errf(err, CUZK_ENOMEM, "engine: cannot start lane threads");
        e->n_lane++;
    }
    return CUZK_OK;
}

int engine_pipeline_start(engine_t *e, cuzk_err *err)
{
    uint32_t per_device = e->cfg.gpu_workers_per_device ? e->cfg.gpu_workers_per_device : 1;
    size_t want_synth;
    e->n_synth = start_synthesis(e, &want_synth);
    e->n_gpu = e->n_devices * per_device;
    e->gpu_threads = calloc(e->n_gpu, sizeof(pthread_t));
    prover_arg *args = calloc(e->n_gpu, sizeof *args);
    e->gpu_args = args;
    if (!e->synth_threads || !e->synth_args || !e->gpu_threads || !args) {
        e->n_gpu = 0;
        return cuzk_errf(err, CUZK_ENOMEM, "engine: out of memory");
    }
    size_t started_gpu = 0;
    for (; started_gpu < e->n_gpu; started_gpu++) {
        args[started_gpu] = (prover_arg){e, &e->devices[started_gpu % e->n_devices]};
        if (pthread_create(&e->gpu_threads[started_gpu], NULL, prover_worker, &args[started_gpu]))
            break;
    }
    e->n_gpu = started_gpu;
    if (e->n_synth < want_synth || started_gpu < e->n_devices * per_device)
        return cuzk_errf(err, CUZK_ENOMEM, "engine: cannot start worker threads");
    return start_lanes(e, err);
}

void engine_pipeline_join(engine_t *e)
{
    for (size_t i = 0; i < e->n_synth; i++) pthread_join(e->synth_threads[i], NULL);
    for (size_t i = 0; i < e->n_gpu; i++) pthread_join(e->gpu_threads[i], NULL);
    for (size_t i = 0; i < e->n_lane; i++) pthread_join(e->lane_threads[i], NULL);
    free(e->lane_threads);
    free(e->lane_args);
    e->lane_threads = NULL, e->lane_args = NULL, e->n_lane = 0;
    free(e->synth_threads);
    free(e->gpu_threads);
    free(e->gpu_args);
    free(e->synth_args);
    e->synth_threads = e->gpu_threads = NULL;
    e->gpu_args = e->synth_args = NULL;
    e->n_synth = e->n_gpu = 0;
    /* The partitions a stopped prover left queued: their storage, memory
     * and SRS go back (their jobs were failed by engine_shutdown). */
    pthread_mutex_lock(&e->lock);
    while (e->gpuq_n) retire_item(e, gpuq_pop(e));
    while (e->laneq_n) retire_item(e, e->laneq[--e->laneq_n]);
    pthread_mutex_unlock(&e->lock);
}
