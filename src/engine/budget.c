/*
 * budget.c - the memory budget (budget.h): a counter under a mutex and a
 * condition variable signalled by every release and by every waiter that
 * leaves; the waiters in a list, each asking whether one before it would
 * fit (goes_now). A waiter re-checks about every 100 ms so a cancellation
 * is noticed without a release.
 */
#include "budget.h"

#include <time.h>

void budget_init(budget *b, uint64_t total, budget_evictor evict, void *ctx)
{
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->freed, NULL);
    b->total = total;
    b->used = b->peak = b->held = 0;
    b->waiting = 0;
    b->waiters = NULL;
    b->tickets = 0;
    b->closed = false;
    b->evict = evict;
    b->evict_ctx = ctx;
}

void budget_destroy(budget *b)
{
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->freed);
}

/* The waiter of the thread waiting in budget_reserve (budget_waiter_self). */
static _Thread_local const budget_waiter *self;

const budget_waiter *budget_waiter_self(void)
{
    return self;
}

uint64_t budget_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void budget_deadline(struct timespec *ts, uint64_t wait_ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += (time_t)(wait_ms / 1000);
    ts->tv_nsec += (long)(wait_ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) ts->tv_sec++, ts->tv_nsec -= 1000000000L;
}

/* Whether a reservation of bytes at priority, arrived as ticket
 * (UINT64_MAX: a newcomer, not waiting), may take memory now: it fits
 * and no waiter before it fits (lock held). */
static bool goes_now(const budget *b, uint64_t bytes, int priority, uint64_t ticket)
{
    if (!budget_fits_locked(b, bytes)) return false;
    for (const budget_waiter *w = b->waiters; w; w = w->next)
        if (w->ticket != ticket &&
            (w->priority > priority || (w->priority == priority && w->ticket < ticket)) &&
            budget_fits_locked(b, w->bytes))
            return false;
    return true;
}

static void unlink_waiter(budget *b, const budget_waiter *me)
{
    budget_waiter **at = &b->waiters;
    while (*at != me) at = &(*at)->next;
    *at = me->next;
    pthread_cond_broadcast(&b->freed); /* the waiters after it may go now */
}

static void take(budget *b, uint64_t bytes)
{
    b->used += bytes;
    if (b->used > b->peak) b->peak = b->used;
}

/* Waits up to 100 ms for a release. */
static void wait_a_little(budget *b)
{
    struct timespec ts;
    budget_deadline(&ts, 100);
    b->waiting++;
    pthread_cond_timedwait(&b->freed, &b->lock, &ts);
    b->waiting--;
}

/* The error of a reservation larger than the room (lock held). */
static int too_big(const budget *b, uint64_t bytes, const char *what, cuzk_err *err)
{
    if (!b->held)
        return cuzk_errf(err, CUZK_ENOMEM,
                         "%s needs %llu MiB, more than the whole budget (%llu MiB)", what,
                         (unsigned long long)(bytes >> 20), (unsigned long long)(b->total >> 20));
    return cuzk_errf(err, CUZK_ENOMEM,
                     "%s needs %llu MiB, more than the budget's room (%llu MiB: %llu less the "
                     "devices' %llu MiB)",
                     what, (unsigned long long)(bytes >> 20),
                     (unsigned long long)(budget_room_locked(b) >> 20),
                     (unsigned long long)(b->total >> 20), (unsigned long long)(b->held >> 20));
}

int budget_reserve(budget *b, uint64_t bytes, int priority, const void *tag,
                   bool (*cancelled)(void *), void *ctx, const char *what, cuzk_err *err)
{
    pthread_mutex_lock(&b->lock);
    if (bytes > budget_room_locked(b)) {
        int rc = too_big(b, bytes, what, err);
        pthread_mutex_unlock(&b->lock);
        return rc;
    }
    budget_waiter me = {bytes, b->tickets++, budget_now_ms(), priority, tag, b->waiters};
    b->waiters = &me;
    self = &me;
    /* the room may shrink while it waits (the devices' memory grew) */
    while (!b->closed && bytes <= budget_room_locked(b) &&
           !goes_now(b, bytes, priority, me.ticket)) {
        if (cancelled && cancelled(ctx)) break;
        uint64_t freed = 0;
        if (!budget_fits_locked(b, bytes)) {
            uint64_t need = b->used + bytes - b->total;
            pthread_mutex_unlock(&b->lock);
            uint64_t waited = budget_now_ms() - me.since_ms;
            freed = b->evict ? b->evict(b->evict_ctx, need, priority, waited) : 0;
            pthread_mutex_lock(&b->lock);
        }
        if (!freed && !goes_now(b, bytes, priority, me.ticket)) wait_a_little(b);
    }
    int rc = CUZK_OK;
    if (!b->closed && bytes > budget_room_locked(b))
        rc = too_big(b, bytes, what, err);
    else if (b->closed || !goes_now(b, bytes, priority, me.ticket))
        rc = cuzk_errf(err, CUZK_ECANCELLED, "%s: cancelled while waiting for memory", what);
    else
        take(b, bytes);
    unlink_waiter(b, &me);
    self = NULL;
    pthread_mutex_unlock(&b->lock);
    return rc;
}

int budget_waiting_priority(budget *b)
{
    int p = -1;
    pthread_mutex_lock(&b->lock);
    for (const budget_waiter *w = b->waiters; w; w = w->next)
        if (w->priority > p) p = w->priority;
    pthread_mutex_unlock(&b->lock);
    return p;
}

bool budget_try_reserve(budget *b, uint64_t bytes, int priority)
{
    pthread_mutex_lock(&b->lock);
    /* after every waiter of its priority: it arrived last */
    bool ok = !b->closed && goes_now(b, bytes, priority, UINT64_MAX);
    if (ok) take(b, bytes);
    pthread_mutex_unlock(&b->lock);
    return ok;
}

void budget_release(budget *b, uint64_t bytes)
{
    pthread_mutex_lock(&b->lock);
    b->used = bytes > b->used ? 0 : b->used - bytes;
    pthread_cond_broadcast(&b->freed);
    pthread_mutex_unlock(&b->lock);
}

void budget_hold(budget *b, uint64_t bytes)
{
    pthread_mutex_lock(&b->lock);
    take(b, bytes);
    b->held += bytes;
    pthread_mutex_unlock(&b->lock);
}

void budget_unhold(budget *b, uint64_t bytes)
{
    pthread_mutex_lock(&b->lock);
    bytes = bytes < b->held ? bytes : b->held;
    b->held -= bytes;
    b->used = bytes > b->used ? 0 : b->used - bytes;
    pthread_cond_broadcast(&b->freed);
    pthread_mutex_unlock(&b->lock);
}

uint64_t budget_room(budget *b)
{
    pthread_mutex_lock(&b->lock);
    uint64_t r = budget_room_locked(b);
    pthread_mutex_unlock(&b->lock);
    return r;
}

uint64_t budget_held(budget *b)
{
    pthread_mutex_lock(&b->lock);
    uint64_t h = b->held;
    pthread_mutex_unlock(&b->lock);
    return h;
}

void budget_close(budget *b)
{
    pthread_mutex_lock(&b->lock);
    b->closed = true;
    pthread_cond_broadcast(&b->freed);
    pthread_mutex_unlock(&b->lock);
}

uint64_t budget_peak(budget *b)
{
    pthread_mutex_lock(&b->lock);
    uint64_t p = b->peak;
    pthread_mutex_unlock(&b->lock);
    return p;
}

uint64_t budget_used(budget *b)
{
    pthread_mutex_lock(&b->lock);
    uint64_t u = b->used;
    pthread_mutex_unlock(&b->lock);
    return u;
}
