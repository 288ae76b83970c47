/*
 * sched.h - the scheduler's queue: a binary heap of work items ordered by
 * priority (CRITICAL first), then job age (FIFO within a priority: the
 * submission sequence number), then partition index (lowest first). So a
 * Winning PoSt partition overtakes every queued PoRep partition, and an
 * older job's partitions go before a younger one's of the same priority.
 * Keys may change in place (sched_rekey: aging raises a priority).
 * Not thread-safe: the engine's lock guards it.
 */
#ifndef CUZK_ENGINE_SCHED_H
#define CUZK_ENGINE_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sched_key {
    int priority;       /* higher first */
    uint64_t seq;       /* lower (older) first */
    uint32_t partition; /* lower first */
    uint64_t since_ms;  /* the job's submission: what aging (dispatch.h) counts from */
} sched_key;

typedef struct sched_entry {
    sched_key key;
    void *item;
} sched_entry;

typedef struct sched_queue {
    sched_entry *heap;
    size_t n, cap;
} sched_queue;

void sched_init(sched_queue *q);
void sched_free(sched_queue *q);
/* Returns CUZK_ENOMEM when the heap cannot grow. */
int sched_push(sched_queue *q, sched_key key, void *item);
/* The first item, or NULL when empty. */
void *sched_pop(sched_queue *q);
/* Removes every item for which drop(item, ctx) is true, calling it once per
 * item; returns how many were removed. */
size_t sched_remove_if(sched_queue *q, bool (*drop)(void *item, void *ctx), void *ctx);
/* The first item's key, or NULL when empty. */
const sched_key *sched_first(const sched_queue *q);
/* Lets update(key, item, ctx) rewrite each item's key (it returns whether
 * it did), then restores the heap order; returns how many changed. */
size_t sched_rekey(sched_queue *q, bool (*update)(sched_key *key, void *item, void *ctx),
                   void *ctx);
/* True when a goes before b. */
bool sched_before(const sched_key *a, const sched_key *b);

#endif
