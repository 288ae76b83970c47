/*
 * engine.h - the proving engine behind cuzk-daemon: jobs in, verified
 * proofs out (reference/cuzk-api.md "Behaviour").
 *
 * A request names a proof kind and carries vanilla proofs. A proof-kind
 * provider (engine_provider.h) turns it into a circuit id and a list of
 * partition circuits with their public inputs; the engine then schedules
 * the partitions by priority, batches requests of one circuit, synthesizes
 * partitions on CPU workers, proves them on the prover backend
 * (engine_backend.h), verifies every partition proof and assembles the
 * job's proof (192 bytes per partition, in partition order). Parameters
 * come from the SRS manager (param files in srs.param_cache), every large
 * allocation from one memory budget.
 *
 * The engine is thread-safe; the gRPC server calls it from one thread per
 * call. Statuses follow the proto: ENGINE_COMPLETED .. ENGINE_TIMEOUT.
 */
#ifndef CUZK_ENGINE_H
#define CUZK_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/config.h"
#include "cuzk/err.h"

/* ProofKind and Priority of the proto, same numbers. */
enum engine_kind {
    ENGINE_KIND_UNSPECIFIED = 0,
    ENGINE_POREP = 1,
    ENGINE_SNAP = 2,
    ENGINE_WINDOW_POST = 3,
    ENGINE_WINNING_POST = 4,
    ENGINE_KINDS = 5
};
enum engine_priority {
    ENGINE_PRIO_UNSPECIFIED = 0,
    ENGINE_PRIO_LOW = 1,
    ENGINE_PRIO_NORMAL = 2,
    ENGINE_PRIO_HIGH = 3,
    ENGINE_PRIO_CRITICAL = 4
};
/* AwaitProofResponse.Status. */
enum engine_status {
    ENGINE_UNKNOWN = 0,
    ENGINE_COMPLETED = 1,
    ENGINE_FAILED = 2,
    ENGINE_CANCELLED = 3,
    ENGINE_TIMEOUT = 4
};

/* Engine-level error codes beyond cuzk_status (mapped to gRPC codes). */
enum engine_error {
    ENGINE_ENOTFOUND = 100, /* unknown job or circuit id */
    ENGINE_EBUSY,           /* SRS in use */
    ENGINE_ESHUTDOWN,       /* the engine no longer accepts work */
};

/* "porep", "snap", "wpost", "winning" (kinds outside the enum: "unknown"). */
const char *engine_kind_name(int kind);

typedef struct engine_bytes {
    const uint8_t *data;
    size_t len;
} engine_bytes;

/* SubmitProofRequest; the engine copies what it keeps. */
typedef struct engine_request {
    const char *request_id; /* "" or NULL: never attaches to another job */
    int kind, priority;
    uint64_t sector_size, registered_proof;
    engine_bytes vanilla_proof;
    const engine_bytes *vanilla_proofs;
    size_t n_vanilla_proofs;
    uint64_t sector_number, miner_id;
    engine_bytes randomness;
    uint32_t partition_index;
    engine_bytes comm_r_old, comm_r_new, comm_d_new;
} engine_request;

#define ENGINE_ID_MAX 64

/* AwaitProofResponse; proof is malloc'd (engine_result_free). */
typedef struct engine_result {
    char job_id[ENGINE_ID_MAX];
    int status;
    uint8_t *proof;
    size_t proof_len;
    char error[512];
    uint64_t queue_ms, srs_ms, synthesis_ms, gpu_ms, total_ms;
} engine_result;

void engine_result_free(engine_result *r);

typedef struct engine engine_t;
typedef struct engine_provider engine_provider;
typedef struct engine_backend engine_backend;

/* Starts the workers. backend NULL: engine_backend_choose(cfg). */
int engine_create(engine_t **out, const cuzk_config *cfg, const engine_backend *backend,
                  cuzk_err *err);
/* Providers are asked in registration order; the first that claims a
 * request serves it. Register before submitting. */
int engine_register_provider(engine_t *e, const engine_provider *p, cuzk_err *err);

/*
 * Queues a request. A request_id of a job queued, running or completed
 * returns that job (a failed or cancelled one is retried as a new job).
 * CUZK_EINVAL for a malformed request (unspecified kind, no vanilla proof),
 * ENGINE_ESHUTDOWN after shutdown began. A request no provider can prove
 * still becomes a job, FAILED with the reason. queue_position counts the
 * queued jobs ahead of this one in the dispatch policy's order (priority,
 * a LOW job aged to NORMAL counted as NORMAL, then age; may be NULL).
 */
int engine_submit(engine_t *e, const engine_request *req, char job_id[ENGINE_ID_MAX],
                  uint32_t *queue_position, cuzk_err *err);

/*
 * Waits for a job: timeout_ms 0 waits forever, otherwise ENGINE_TIMEOUT
 * once it expires. abandon (may be NULL) is polled about every 100 ms; when
 * it returns true the wait ends with ENGINE_UNKNOWN (the caller went away).
 * ENGINE_ENOTFOUND for an unknown or expired job.
 */
int engine_await(engine_t *e, const char *job_id, uint64_t timeout_ms, engine_result *out,
                 bool (*abandon)(void *ctx), void *ctx, cuzk_err *err);

/* Cancels a job: queued work is dropped, running work stops at the next
 * partition boundary. ENGINE_ENOTFOUND for an unknown job. */
int engine_cancel(engine_t *e, const char *job_id, bool *was_running, cuzk_err *err);

/* Loads a circuit's parameters now and, on the witness-only path, records
 * its shape from its provider's blank circuit (ENGINE_ENOTFOUND: no
 * provider knows the circuit id); *load_ms: both. */
int engine_preload(engine_t *e, const char *circuit_id, bool *already_loaded, uint64_t *load_ms,
                   cuzk_err *err);
/* engine_preload as a read-ahead, e.g. of a Window PoSt deadline's set
 * before the deadline: from now until hold_ms after the call, the set
 * ranks as if a job of `priority` (1 LOW .. 4 CRITICAL) were queued on
 * it (residency.h rule 3), so its load drains and abandons lower sets and
 * lower loads do not drain it meanwhile. Priority 0: engine_preload. */
int engine_preload_at(engine_t *e, const char *circuit_id, int priority, uint64_t hold_ms,
                      bool *already_loaded, uint64_t *load_ms, cuzk_err *err);
/* Starts loading the config's srs.pinned, then srs.preload circuits in the
 * background, one after the other (engine_preload each; a failure is logged), once the
 * providers are registered; an id no provider knows fails here, naming
 * it. The engine's shutdown waits for a load under way. */
int engine_start_preload(engine_t *e, cuzk_err *err);
/* Frees a circuit's parameters; ENGINE_EBUSY while a job uses them. */
int engine_evict(engine_t *e, const char *circuit_id, bool *was_loaded, uint64_t *freed_bytes,
                 cuzk_err *err);

/* ---- status ---- */

typedef struct engine_srs_status {
    char circuit_id[ENGINE_ID_MAX];
    int tier; /* 0 HOT (in use), 1 WARM (loaded, idle), 2 COLD (on disk) */
    uint64_t size_bytes;
    uint32_t ref_count;
    /* residency (src/engine/residency.h): srs.pinned / srs.preload, being
     * loaded, draining for another set's load, its rank (the highest
     * priority of its jobs, 0 none); loads finished, evictions, seconds
     * spent loading (abandoned reads included), loads abandoned for a
     * higher one and the bytes they had read, all since the daemon started;
     * read_bytes: the parameter file's bytes decoded so far by the load
     * under way (advanced about every GiB; 0 when none reads) */
    bool pinned, preload, loading, draining;
    int rank;
    uint64_t loads, evictions, abandoned, abandoned_bytes, read_bytes;
    double load_seconds;
} engine_srs_status;

typedef struct engine_device_status {
    uint32_t ordinal;
    char name[128];
    uint64_t vram_total, vram_free;
    char current_job[ENGINE_ID_MAX];
    char current_kind[16];
    /* "idle", "busy" (holds a partition) or "failed" (out of service since
     * its prover failed; error says how). */
    char state[16];
    char error[512];
    uint32_t queued;          /* partitions its prover workers hold */
    uint64_t busy_ms;         /* time in the backend's start and finish */
    uint64_t partitions;      /* partitions it proved */
    char plan[384];           /* its memory plan: resident and streamed parameters ("" : none) */
    bool lane;                /* it has a small-circuit lane (dispatch rule 7) */
    uint64_t lane_busy_ms;    /* time in the lane's start and finish */
    uint64_t lane_partitions; /* partitions the lane proved */
} engine_device_status;

typedef struct engine_status_t {
    engine_device_status *devices;
    size_t n_devices;
    engine_srs_status *srs;
    size_t n_srs;
    uint32_t pending[ENGINE_KINDS], in_progress[ENGINE_KINDS];
    uint64_t completed, failed, cancelled, uptime_s;
    uint64_t pinned_bytes, pinned_limit; /* pinned: the devices' host memory (host_bytes) */
    uint64_t budget_total, budget_used;
    /* of budget_used: synthesized partitions' storage kept for reuse;
     * partitions synthesized into a kept storage so far */
    uint64_t pool_bytes, pool_reused;
    uint32_t pool_entries;
    uint32_t gpu_queue_depth, synthesizing;
} engine_status_t;

int engine_status(engine_t *e, engine_status_t *out, cuzk_err *err);
void engine_status_free(engine_status_t *s);
/* Prometheus text exposition (malloc'd). */
char *engine_metrics(engine_t *e);
/* The JSON document of GET /status (malloc'd). */
char *engine_status_json(engine_t *e);

/*
 * Stops accepting work, lets running and queued jobs finish for up to
 * grace_ms, fails the rest ("daemon shutting down"), stops the workers.
 * Waiters are woken with the final statuses.
 */
void engine_shutdown(engine_t *e, uint64_t grace_ms);
/* Shuts down (grace 0) if needed and frees everything. */
void engine_destroy(engine_t *e);

#endif
