/*
 * budget.c - the memory budget (budget.h): a counter under a mutex and a
 * condition variable signalled by every release. A waiter re-checks about
 * every 100 ms so a cancellation is noticed without a release.
 */
#include "budget.h"

#include <time.h>

void budget_init(budget *b, uint64_t total, budget_evictor evict, void *ctx)
{
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->freed, NULL);
    b->total = total;
    b->used = b->peak = 0;
    b->waiting = 0;
    b->closed = false;
    b->evict = evict;
    b->evict_ctx = ctx;
}

void budget_destroy(budget *b)
{
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->freed);
}

static bool fits(const budget *b, uint64_t bytes)
{
    return b->used + bytes <= b->total;
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
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100 * 1000000L;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    b->waiting++;
    pthread_cond_timedwait(&b->freed, &b->lock, &ts);
    b->waiting--;
}

int budget_reserve(budget *b, uint64_t bytes, bool (*cancelled)(void *), void *ctx,
                   const char *what, cuzk_err *err)
{
    if (bytes > b->total)
        return cuzk_errf(err, CUZK_ENOMEM,
                         "%s needs %llu MiB, more than the whole budget (%llu MiB)", what,
                         (unsigned long long)(bytes >> 20), (unsigned long long)(b->total >> 20));
    pthread_mutex_lock(&b->lock);
    while (!b->closed && !fits(b, bytes)) {
        if (cancelled && cancelled(ctx)) break;
        uint64_t need = b->used + bytes - b->total;
        pthread_mutex_unlock(&b->lock);
        uint64_t freed = b->evict ? b->evict(b->evict_ctx, need) : 0;
        pthread_mutex_lock(&b->lock);
        if (!freed && !fits(b, bytes)) wait_a_little(b);
    }
    int rc = CUZK_OK;
    if (b->closed || !fits(b, bytes))
        rc = cuzk_errf(err, CUZK_ECANCELLED, "%s: cancelled while waiting for memory", what);
    else
        take(b, bytes);
    pthread_mutex_unlock(&b->lock);
    return rc;
}

bool budget_try_reserve(budget *b, uint64_t bytes)
{
    pthread_mutex_lock(&b->lock);
    bool ok = !b->closed && fits(b, bytes);
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
