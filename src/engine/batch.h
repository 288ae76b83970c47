/*
 * batch.h - the batch collector (cuzk's flush rules): batchable requests
 * (PoRep, Snap) of one circuit accumulate up to max_size; the group is
 * flushed when full, max_wait_ms after its first request, when a request
 * of another circuit or a non-batchable request arrives (the caller takes
 * the group first), and at shutdown. Pure bookkeeping, no threads: the
 * engine calls it under its lock and sleeps until batcher_deadline.
 */
#ifndef CUZK_ENGINE_BATCH_H
#define CUZK_ENGINE_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/engine.h"

#define BATCH_MAX 64

typedef struct batcher {
    size_t max_size;
    uint64_t max_wait_ms;
    void *jobs[BATCH_MAX];
    size_t n;
    char circuit_id[ENGINE_ID_MAX];
    uint64_t first_ms;
} batcher;

/* max_size is clamped to 1..BATCH_MAX. */
void batcher_init(batcher *b, size_t max_size, uint64_t max_wait_ms);
/* Whether a request of circuit_id (batchable or not) must first flush the
 * pending group. */
bool batcher_must_flush_for(const batcher *b, const char *circuit_id, bool batchable);
/* Adds a job of circuit_id (the caller flushed first when told to). */
void batcher_add(batcher *b, void *job, const char *circuit_id, uint64_t now_ms);
bool batcher_full(const batcher *b);
/* When the pending group must go (UINT64_MAX: nothing pending). */
uint64_t batcher_deadline(const batcher *b);
/* Moves the pending group to out (BATCH_MAX entries); returns its size. */
size_t batcher_take(batcher *b, void **out);
/* Removes one job from the pending group (a cancel); true if it was there. */
bool batcher_remove(batcher *b, void *job);

#endif
