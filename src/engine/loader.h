/*
 * loader.h - parameter loads off the synthesis workers (dispatch.h rule
 * 6). A synthesis worker takes only a partition whose parameter set is
 * ready (loaded, not loading, not draining: srs_take_ready), so a worker never
 * sits in a load, or in the wait for the memory a load needs, while other
 * partitions could be synthesized: a Winning PoSt is not held up by a
 * Window PoSt's 61 GB read, nor a resident set's stream by another set's
 * wait for room. For a partition whose set is not ready, loader_ready
 * starts the set's load on a thread of its own (its jobs then count as
 * running) (engine_preload: the
 * parameters and, on the witness-only path, the circuit's shape from the
 * provider's blank circuit beside them), one load per set at a time, and
 * the workers are woken when it ends. A load that failed lets its set's
 * partitions through, so that their worker's srs_acquire fails their jobs
 * with the error (no file, a set that can never fit) instead of leaving
 * them queued; so does a set whose load finds no free slot. A load
 * abandoned for a higher one (residency.h rule 7) does not end its slot:
 * srs_acquire starts it again, and its partitions keep waiting.
 */
#ifndef CUZK_ENGINE_LOADER_H
#define CUZK_ENGINE_LOADER_H

#include <pthread.h>
#include <stdbool.h>

#include "cuzk/engine.h"

#define LOADER_SLOTS 16 /* sets loading at once */

typedef struct loader_slot {
    char circuit_id[ENGINE_ID_MAX];
    pthread_t thread;
    bool used;    /* thread started, not joined yet */
    bool running; /* its load is under way */
    bool failed;  /* its last load failed */
    struct engine *e;
} loader_slot;

typedef struct loader {
    loader_slot slots[LOADER_SLOTS];
} loader;

struct work_item;
/* Whether a synthesis worker may take it now (engine lock held); starts
 * its set's load when not. When its set is ready, it->srs holds it (a
 * reference taken with the check: srs_take_ready), so no eviction can come
 * between the check and the worker; a partition let through otherwise
 * (its load failed, no free slot) has none and meets srs_acquire. */
bool loader_ready(struct engine *e, struct work_item *it);
/* Waits for the loads under way (no lock held; the engine is stopping). */
void loader_join(struct engine *e);

#endif
