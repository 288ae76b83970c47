/*
 * srs.h - the SRS manager: Groth16 parameters by circuit id, loaded on
 * demand from <param_cache>/<param_name>.params (the official file names,
 * so official files are used when present), charged to the memory budget,
 * reference counted while jobs use them, and evicted least recently used
 * and evicted as the residency policy (residency.h) says: which sets stay
 * (pinned, preloaded), which go first, what a load that does not fit waits
 * for (drained sets take no new partitions, lower loads are abandoned). Tiers as GetStatus reports
 * them: HOT in use, WARM loaded and idle, COLD known but not in memory.
 */
#ifndef CUZK_ENGINE_SRS_H
#define CUZK_ENGINE_SRS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "budget.h"
#include "cuzk/config.h"
#include "cuzk/engine.h"
#include "cuzk/engine_provider.h"
#include "cuzk/groth16.h"
#include "cuzk/r1cs.h"
#include "residency.h"

enum srs_tier { SRS_HOT = 0, SRS_WARM = 1, SRS_COLD = 2 };

typedef struct srs_entry {
    engine_circuit_info info;
    groth16_params params;
    groth16_pvk pvk;
    uint64_t bytes; /* charged to the budget while loaded */
    uint32_t refs;
    /* releasing: unloaded, its parameters and shape being freed outside the
     * lock (srs.c's rule on the backend's hooks); no load starts meanwhile */
    bool loaded, loading, releasing;
    uint64_t last_used_ms;
    /* The circuit's recorded shape for the witness-only path (srs_shape),
     * recorded by the first synthesis that asks, charged to the budget and
     * freed with the parameters; shape_failed: recording failed or did not
     * fit the budget, so the circuit takes the prover backend's path until
     * the parameters are loaded again. shape_lock serializes recording. */
    cs_shape *shape;
    uint64_t shape_bytes;
    bool shape_failed;
    pthread_mutex_t shape_lock;
    /* residency (residency.h): the operator's lists, the jobs on it by
     * priority, a drain asked by a waiting load (drain_for), the load
     * waiting for its memory (waiting, since, of want_bytes) */
    bool pinned, preload, draining, waiting;
    struct srs_entry *drain_for;
    uint64_t want_bytes, wait_since_ms;
    /* its load has its memory and reads (reading); asked to stop for a
     * higher load (abandon, rule 7: read by the reader without the lock);
     * read_done: the file's bytes decoded so far by the read under way
     * (written by the reader without the lock, 0 when none) */
    bool reading, abandon;
    uint64_t read_done;
    uint64_t load_began_ms; /* the last read's start (residency rule 5) */
    /* the budget's bytes its partitions hold (srs_partition_bytes; read
     * and written without the lock) */
    uint64_t part_bytes;
    /* loads finished, evictions, time loading (abandoned reads included);
     * loads abandoned and the bytes they had read */
    uint64_t loads, evictions, load_ms, abandoned, abandoned_bytes;
} srs_entry;

typedef struct srs_manager {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    srs_entry **entries;
    size_t n, cap;
    budget *budget;
    char dir[512];
    void (*unloaded)(const groth16_params *); /* may be NULL */
    void (*shape_unloaded)(const cs_shape *); /* may be NULL */
    char setup_backend[16];                   /* development setups: "auto" or "cpu" */
    residency_rules rules;
    char pinned[CONFIG_MAX_PRELOAD][CONFIG_ID_MAX], preload[CONFIG_MAX_PRELOAD][CONFIG_ID_MAX];
    size_t n_pinned, n_preload;
    /* the policy's snapshot of the entries (cap of them), under the lock */
    residency_set *view;
    const residency_set **view_ptr;
    bool *drain;
    /* jobs queued or running per circuit and priority (srs_demand), under
     * demand_lock alone: a leaf lock, taken under the engine's lock */
    pthread_mutex_t demand_lock;
    struct srs_demand_row {
        char circuit_id[ENGINE_ID_MAX];
        uint32_t n[RESIDENCY_PRIOS];
        /* a rank the set counts as one more job of until a time: a
         * read-ahead's (srs_hold), the last ended job's (rule 3,
         * srs.keep_rank) */
        struct srs_timed_rank {
            int priority;
            uint64_t until_ms;
        } hold, ended;
    } * demand;
    size_t n_demand, cap_demand;
} srs_manager;

/* unloaded (may be NULL) is called with each parameter set just before it
 * is freed (eviction, LRU under pressure, destroy): the backend's
 * params_unloaded, so that a device copy goes with the host one. It and
 * shape_unloaded are never called with the manager's lock held (they take
 * the device's lock; srs.c says why).
 * setup_backend is the prover backend's name: with "cuda", development
 * setups run on the device when one is usable for them (else on the CPU:
 * the same bytes), with anything else on the CPU. */
void srs_init(srs_manager *m, budget *b, const char *param_cache, uint64_t min_idle_ms,
              void (*unloaded)(const groth16_params *), const char *setup_backend);
/*
 * The recorded shape of e's circuit (e acquired by the caller), recorded
 * from `circuit` (any partition of it: the recorder reads no values) on
 * first use and charged to the budget (waiting for room like a partition;
 * cancelled / ctx as budget_reserve). NULL when it cannot be had (the
 * recording failed, or e's circuit failed before): the caller takes the
 * prover backend's path, and *why says what happened the first time (an
 * empty message otherwise). *ms: time spent recording or waiting for it.
 */
const cs_shape *srs_shape(srs_manager *m, srs_entry *e, cs_circuit circuit,
                          bool (*cancelled)(void *), void *ctx, uint64_t *ms, cuzk_err *why);
void srs_destroy(srs_manager *m);
/* The operator's residency lists (srs.pinned, srs.preload); swap_after_ms:
 * the residency rule 5 wait before a set of equal rank is drained. */
void srs_set_residency(srs_manager *m, const cuzk_config *cfg, uint64_t swap_after_ms);
/* A job of the given priority on the circuit queued (delta +1) or
 * finished (-1): the set's rank (residency.h rule 3). Takes only a leaf
 * lock of its own, so the engine calls it under its lock. */
void srs_demand(srs_manager *m, const char *circuit_id, int priority, int delta);

/* A read-ahead (residency.h rule 3): until until_ms the circuit's set
 * ranks as if a job of `priority` were queued on it (0, or a time past:
 * no hold). A leaf lock, like srs_demand. */
void srs_hold(srs_manager *m, const char *circuit_id, int priority, uint64_t until_ms);

/* The parameters of info's circuit, loaded if needed (setup_dev may be NULL:
 * then the file must exist; else it writes the missing file, on the
 * manager's setup backend, and the file is read). *load_ms: time spent
 * loading or waiting for another thread's load. Pair with srs_release. */
int srs_acquire(srs_manager *m, const engine_circuit_info *info, engine_setup_dev_fn setup_dev,
                srs_entry **out, uint64_t *load_ms, cuzk_err *err);
/* A shape to record while the parameters load (srs_shape's arguments). */
typedef struct srs_shape_req {
    cs_circuit circuit;
    bool (*cancelled)(void *);
    void *ctx;
} srs_shape_req;
/* srs_acquire that, when this call loads the parameters and req is not
 * NULL, records the circuit's shape (srs_shape) on a thread of its own
 * beside the load, so that a later srs_shape finds it; a shape recorded
 * beside a load that fails is freed with it. */
int srs_acquire_shaped(srs_manager *m, const engine_circuit_info *info,
                       engine_setup_dev_fn setup_dev, const srs_shape_req *req, srs_entry **out,
                       uint64_t *load_ms, cuzk_err *err);
void srs_release(srs_manager *m, srs_entry *e);
/* The budget bytes a partition of e holds changed by delta (added when
 * reserved, subtracted when given back or to the pool): residency rule 5
 * counts them as freed with a drained set. */
void srs_partition_bytes(srs_entry *e, int64_t delta);
/* Frees an idle circuit's parameters: ENGINE_EBUSY while in use,
 * ENGINE_ENOTFOUND for a circuit never seen. */
int srs_evict(srs_manager *m, const char *circuit_id, bool *was_loaded, uint64_t *freed,
              cuzk_err *err);
/* The budget's evictor: frees idle entries in the residency policy's order
 * until need bytes are freed, then asks drains for a waiting load; returns
 * the bytes freed. */
uint64_t srs_evict_idle(void *manager, uint64_t need, int priority, uint64_t waited_ms);
/* Whether the circuit is loaded now. */
bool srs_is_loaded(srs_manager *m, const char *circuit_id);
/* The circuit's parameters with a reference taken (pair with srs_release)
 * when a partition would find them at once: loaded, not loading, not
 * draining; else NULL. The check and the reference are one step under the
 * manager's lock, so a set found ready cannot be evicted before its user
 * has it (a leaf lock: called under the engine's). */
srs_entry *srs_take_ready(srs_manager *m, const char *circuit_id);
/* A snapshot for GetStatus (malloc'd array). */
size_t srs_list(srs_manager *m, engine_srs_status **out);
/* Milliseconds on CLOCK_MONOTONIC (shared by the engine). */
uint64_t srs_now_ms(void);

#endif
