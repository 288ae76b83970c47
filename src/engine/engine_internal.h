/*
 * engine_internal.h - the engine's shared state, between engine.c (jobs:
 * submit, await, cancel, retention, shutdown), pipeline.c (the worker
 * threads) and status.c (GetStatus, metrics, the status JSON).
 *
 * One mutex (e->lock) guards jobs, the scheduler queue, the batcher, the
 * GPU queue and the counters; the budget and the SRS manager have their
 * own locks and are never called with e->lock held when they may block
 * (the partition pool too); srs_demand, whose lock is a leaf, is called
 * under it.
 * A job lives in the job list from submission until its result expires
 * (result_ttl after it finished, no waiter, no work item still holding
 * it). A work item is one partition of every job of a batch; it holds a
 * reference (items_live) on each of its jobs.
 */
#ifndef CUZK_ENGINE_INTERNAL_H
#define CUZK_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "batch.h"
#include "budget.h"
#include "cuzk/engine.h"
#include "cuzk/engine_backend.h"
#include "cuzk/engine_provider.h"
#include "loader.h"
#include "pool.h"
#include "sched.h"
#include "span.h"
#include "srs.h"

#define ENGINE_MAX_PROVIDERS 8
#define ENGINE_MAX_DEVICES   16

enum job_state { JOB_QUEUED = 0, JOB_RUNNING = 1, JOB_DONE = 2 };

typedef struct job {
    char id[ENGINE_ID_MAX];
    char request_id[128];
    int kind, priority;
    uint64_t seq;
    const engine_provider *provider;
    engine_circuits circ;           /* valid while circ.release is set */
    char circuit_id[ENGINE_ID_MAX]; /* kept after circ is released */
    size_t n_partitions;
    int state, status; /* status: engine_status once JOB_DONE */
    bool demand;       /* counted in its SRS set's rank (srs_demand) until done */
    bool cancel;       /* read by workers without the lock: __atomic */
    size_t parts_done, items_live;
    uint32_t waiters;
    uint8_t *proof; /* n_partitions * 192 bytes */
    char error[512];
    uint64_t t_submit, t_start, t_done;
    /* Wall-clock spans of its partitions (span.h): waiting for the
     * parameters and the shape, synthesis, on a device (start to finish). */
    span_set srs, synth, gpu;
    struct job *next;
} job;

typedef struct work_item {
    job *jobs[BATCH_MAX];
    size_t n;
    uint32_t partition;
    sched_key key; /* its place in the scheduler and in the GPU queue */
    srs_entry *srs;
    cs_prover *provers; /* n, once synthesized */
    uint64_t reserved;  /* budget bytes held for the provers */
    /* ms: parameters and shape waited for, synthesis; added to the jobs'
     * spans under the lock */
    uint64_t srs_t0, srs_t1, synth_t0, synth_t1;
    uint64_t unready_ms; /* first left queued for its parameters' load (loader.h); 0: never */
    bool alone;          /* proved in a start of its own (a failed start of several, again) */
    bool no_lane;        /* its lane start failed: proved by a device's start */
    /* its waits for memory read the engine's budget (dispatch.h rule 8;
     * patience_ms: srs.swap_after); gave_way: the last one ended for
     * another reservation */
    const budget *budget;
    uint64_t patience_ms;
    bool gave_way;
    struct work_item *room_next; /* engine_t.room_waiters */
    char label[ENGINE_ID_MAX * 2];
} work_item;

/* One device of the backend with its prover workers. A device whose
 * start fails with CUZK_EDEVICE is taken out of service (failed, error):
 * its workers end and the partition goes back to the GPU queue for the
 * other devices. Everything but the lock is read and written under the
 * engine lock. */
typedef struct device {
    char name[128];
    uint64_t vram_total;
    int ordinal;
    pthread_mutex_t lock;            /* held around backend->start only */
    char current_job[ENGINE_ID_MAX]; /* the job of the partition in start */
    int current_kind;
    bool failed;
    char error[512];
    size_t held;              /* partitions its workers hold, start to delivery */
    uint64_t busy_ms, proved; /* time in start and finish; partitions proved */
    bool lane;                /* it has a small-circuit lane (dispatch.h rule 7) */
    uint64_t lane_busy_ms, lane_proved;
} device;

struct engine {
    cuzk_config cfg;
    const engine_backend *backend;
    const engine_provider *providers[ENGINE_MAX_PROVIDERS];
    size_t n_providers;

    pthread_mutex_t lock;
    pthread_cond_t work_cv;  /* scheduler queue non-empty, GPU queue has room */
    pthread_cond_t gpu_cv;   /* GPU queue non-empty */
    pthread_cond_t done_cv;  /* a job changed state */
    pthread_cond_t timer_cv; /* the batch deadline changed */

    job *jobs;
    uint64_t next_seq, id_base;
    sched_queue queue;
    batcher batch;
    work_item **gpuq; /* FIFO of synthesized items */
    size_t gpuq_n, gpuq_cap;
    /* synthesized items waiting for room in the GPU queue (dispatch rule 4:
     * they enter in rule 1's order), linked through room_next */
    work_item *room_waiters;
    work_item **laneq; /* synthesized items for the devices' lanes (dispatch.h rule 7) */
    size_t laneq_n, laneq_cap;
    pthread_cond_t lane_cv; /* lane queue non-empty */
    size_t gpu_idle;        /* prover workers holding their device, waiting for an item */
    size_t synthesizing, proving, in_pipeline;   /* items past the scheduler */
    size_t synth_prio[ENGINE_PRIO_CRITICAL + 1]; /* items in synthesis per priority (dispatch.c) */

    budget budget;
    srs_manager srs;
    prover_pool pool; /* synthesized partitions' storage, for the next ones */
    uint64_t reused;  /* partitions synthesized into pooled storage: __atomic */
    device devices[ENGINE_MAX_DEVICES];
    size_t n_devices, in_service; /* in_service: devices not failed */
    uint64_t device_host_bytes;   /* reserved in the budget for them (host_bytes): host_mu */
    pthread_mutex_t host_mu;

    pthread_t *synth_threads, *gpu_threads, timer_thread, preload_thread; /* 0: none */
    loader loads;                /* parameter loads for queued partitions (loader.h) */
    void *gpu_args, *synth_args; /* pipeline.c's per-thread arguments */
    size_t n_synth, n_gpu;
    pthread_t *lane_threads; /* one per device with a lane (pipeline.c) */
    void *lane_args;
    size_t n_lane;
    bool stopping, stop, destroyed;

    uint64_t t_created;
    uint64_t completed[ENGINE_KINDS], failed[ENGINE_KINDS], cancelled[ENGINE_KINDS];
    double duration_sum[ENGINE_KINDS];
};

/* engine.c */
job *engine_find_job(engine_t *e, const char *id);
/* Finishes a job (lock held): status, message, counters, waiters woken. */
void engine_finish_job(engine_t *e, job *j, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Drops one item's reference on a job; a finished job's circuits go with
 * the last reference (lock held). */
void engine_job_unref(job *j);
/* Drops an item's reference on its jobs and frees it (lock held). */
void engine_item_free(engine_t *e, work_item *it);
bool engine_job_cancelled(const job *j);

/* pipeline.c */
/* Synthesis workers the config gives on this backend. */
size_t engine_synthesis_workers(const cuzk_config *c, const engine_backend *b);
int engine_pipeline_start(engine_t *e, cuzk_err *err);
/* Joins the workers (once stopped) and retires the items the GPU queue
 * still holds. */
void engine_pipeline_join(engine_t *e);
/* Follows the devices' host memory (the backend's host_bytes) after a
 * start: growth is counted in the budget at once (budget_hold: taken from the room), what was
 * given back released. */
void engine_track_device_host(engine_t *e);
/* Turns a group of jobs of one circuit into work items (lock held). */
int engine_enqueue_group(engine_t *e, job **jobs, size_t n);

#endif
