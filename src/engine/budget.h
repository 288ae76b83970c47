/*
 * budget.h - the engine's one byte account. Every large allocation of the
 * engine (SRS, synthesized partitions) reserves its bytes first. A
 * reservation that does not fit asks the evictor (the SRS manager drops
 * idle parameters) and then blocks until releases make room; one larger
 * than the whole budget fails at once instead of waiting forever.
 */
#ifndef CUZK_ENGINE_BUDGET_H
#define CUZK_ENGINE_BUDGET_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cuzk/err.h"

/* Frees up to `need` bytes of idle memory (it releases them through
 * budget_release); returns the bytes it freed. Called without the budget
 * lock held. */
typedef uint64_t (*budget_evictor)(void *ctx, uint64_t need);

typedef struct budget {
    pthread_mutex_t lock;
    pthread_cond_t freed;
    uint64_t total, used, peak;
    uint32_t waiting;
    bool closed; /* reservations fail: the engine is stopping */
    budget_evictor evict;
    void *evict_ctx;
} budget;

void budget_init(budget *b, uint64_t total, budget_evictor evict, void *ctx);
void budget_destroy(budget *b);
/* Blocks until bytes fit (CUZK_ENOMEM when they never can, CUZK_ECANCELLED
 * once closed or when cancelled(ctx) turns true; cancelled may be NULL). */
int budget_reserve(budget *b, uint64_t bytes, bool (*cancelled)(void *), void *ctx,
                   const char *what, cuzk_err *err);
/* Reserves bytes only if they fit now (no eviction, no wait). */
bool budget_try_reserve(budget *b, uint64_t bytes);
void budget_release(budget *b, uint64_t bytes);
/* Wakes every waiter and makes further reservations fail. */
void budget_close(budget *b);
uint64_t budget_used(budget *b);
/* The highest use so far. */
uint64_t budget_peak(budget *b);

#endif
