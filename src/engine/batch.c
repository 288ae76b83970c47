/*
 * batch.c - the batch collector of batch.h.
 */
#include "batch.h"

#include <stdio.h>
#include <string.h>

void batcher_init(batcher *b, size_t max_size, uint64_t max_wait_ms)
{
    memset(b, 0, sizeof *b);
    b->max_size = max_size < 1 ? 1 : max_size > BATCH_MAX ? BATCH_MAX : max_size;
    b->max_wait_ms = max_wait_ms;
}

bool batcher_must_flush_for(const batcher *b, const char *circuit_id, bool batchable)
{
    return b->n && (!batchable || strcmp(b->circuit_id, circuit_id));
}

void batcher_add(batcher *b, void *job, const char *circuit_id, uint64_t now_ms)
{
    if (!b->n) {
        snprintf(b->circuit_id, sizeof b->circuit_id, "%s", circuit_id);
        b->first_ms = now_ms;
    }
    b->jobs[b->n++] = job;
}

bool batcher_full(const batcher *b)
{
    return b->n >= b->max_size;
}

uint64_t batcher_deadline(const batcher *b)
{
    return b->n ? b->first_ms + b->max_wait_ms : UINT64_MAX;
}

size_t batcher_take(batcher *b, void **out)
{
    size_t n = b->n;
    memcpy(out, b->jobs, n * sizeof *out);
    b->n = 0;
    b->circuit_id[0] = 0;
    return n;
}

bool batcher_remove(batcher *b, void *job)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->jobs[i] == job) {
            memmove(&b->jobs[i], &b->jobs[i + 1], (b->n - i - 1) * sizeof *b->jobs);
            b->n--;
            return true;
        }
    return false;
}
