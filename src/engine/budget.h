/*
 * budget.h - the engine's one byte account. Every large allocation of the
 * engine (SRS, synthesized partitions) reserves its bytes first. A
 * reservation that does not fit asks the evictor (the SRS manager drops
 * idle parameters) and then blocks until releases make room; one larger
 * than the whole budget fails at once instead of waiting forever.
 *
 * Waiters go in priority order: a reservation (waiting, or a newcomer)
 * takes memory only while no waiter before it, of a higher priority or of
 * the same priority and waiting longer, would fit in what is free. So
 * when memory frees, the highest-priority waiter it is enough for has it
 * first; a waiter that does not fit yet holds no one back (it cannot
 * block the releases it waits for: its memory comes from the evictor and
 * the residency policy's drains, srs.h).
 *
 * Memory held for good outside the work (the devices' pinned host
 * memory, budget_hold) is part of the use and no evictor frees it: what a
 * reservation can ever have is the room, the total less that (budget_room),
 * and one larger than the room fails at once too (measured against the
 * total, the soak's tight budget on the H200 left loads and partitions
 * waiting for ever for memory the devices held).
 */
#ifndef CUZK_ENGINE_BUDGET_H
#define CUZK_ENGINE_BUDGET_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "cuzk/err.h"

/* Frees up to `need` bytes of idle memory for a reservation of
 * `priority` that has waited waited_ms (it releases them through
 * budget_release); returns the bytes it freed. Called without the budget
 * lock held. */
typedef uint64_t (*budget_evictor)(void *ctx, uint64_t need, int priority, uint64_t waited_ms);

/* A reservation waiting (on its thread's stack, linked under the lock). */
typedef struct budget_waiter {
    uint64_t bytes, ticket; /* ticket: its arrival, older lower */
    uint64_t since_ms;      /* budget_now_ms when it began to wait */
    int priority;
    const void *tag; /* what the memory is for (a parameter set), or NULL */
    struct budget_waiter *next;
} budget_waiter;

typedef struct budget {
    pthread_mutex_t lock;
    pthread_cond_t freed;
    uint64_t total, used, peak;
    uint64_t held; /* of used: held for good outside the work (budget_hold) */
    uint32_t waiting;
    budget_waiter *waiters;
    uint64_t tickets;
    bool closed; /* reservations fail: the engine is stopping */
    budget_evictor evict;
    void *evict_ctx;
} budget;

void budget_init(budget *b, uint64_t total, budget_evictor evict, void *ctx);
void budget_destroy(budget *b);
/* Blocks until bytes fit and no waiter before it (priority: higher
 * first, the engine's job priorities) fits (CUZK_ENOMEM when they never
 * can, CUZK_ECANCELLED once closed or when cancelled(ctx) turns true;
 * cancelled may be NULL). tag: what the memory is for (its waiter's). */
int budget_reserve(budget *b, uint64_t bytes, int priority, const void *tag,
                   bool (*cancelled)(void *), void *ctx, const char *what, cuzk_err *err);
/* The calling thread's own waiter while it waits in budget_reserve (for
 * its cancelled(), which runs on that thread), else NULL. */
const budget_waiter *budget_waiter_self(void);
/* The engine's two clocks (the budget is its lowest module): milliseconds
 * of CLOCK_MONOTONIC (the waiters' since_ms, the SRS manager's times), and
 * ts = CLOCK_REALTIME now + wait_ms, the deadline pthread_cond_timedwait
 * takes. */
uint64_t budget_now_ms(void);
void budget_deadline(struct timespec *ts, uint64_t wait_ms);
/* Whether bytes fit in what is free now (lock held). */
static inline bool budget_fits_locked(const budget *b, uint64_t bytes)
{
    return b->used + bytes <= b->total;
}
/* Reserves bytes only if they fit now and no waiter of the same or a
 * higher priority fits (no eviction, no wait). */
bool budget_try_reserve(budget *b, uint64_t bytes, int priority);
void budget_release(budget *b, uint64_t bytes);
/* Memory held for good outside the work (a backend's host memory for its
 * devices) grows by bytes: counted at once, past the total if it must (no
 * wait, no eviction; later reservations wait until use is under the total
 * again), and taken from the room. budget_unhold gives bytes of it back. */
void budget_hold(budget *b, uint64_t bytes);
void budget_unhold(budget *b, uint64_t bytes);
/* What a reservation can ever have: the total less what is held. */
uint64_t budget_room(budget *b);
/* What is held (budget_hold). */
uint64_t budget_held(budget *b);
/* budget_room, for a caller that holds the budget's lock (a cancelled()
 * of budget_reserve). */
static inline uint64_t budget_room_locked(const budget *b)
{
    return b->total > b->held ? b->total - b->held : 0;
}
/* The highest priority of a reservation waiting for memory; -1 when none
 * waits. */
int budget_waiting_priority(budget *b);
/* Wakes every waiter and makes further reservations fail. */
void budget_close(budget *b);
uint64_t budget_used(budget *b);
/* The highest use so far. */
uint64_t budget_peak(budget *b);

#endif
