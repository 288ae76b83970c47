/*
 * sched.c - the priority heap of sched.h (array heap, sift up and down).
 * Removal by predicate compacts the array and re-heapifies bottom-up, O(n),
 * which is what a cancel costs; so does rewriting keys (sched_rekey).
 */
#include "sched.h"

#include <stdlib.h>

#include "cuzk/err.h"

void sched_init(sched_queue *q)
{
    q->heap = NULL;
    q->n = q->cap = 0;
}

void sched_free(sched_queue *q)
{
    free(q->heap);
    sched_init(q);
}

bool sched_before(const sched_key *a, const sched_key *b)
{
    if (a->priority != b->priority) return a->priority > b->priority;
    if (a->seq != b->seq) return a->seq < b->seq;
    return a->partition < b->partition;
}

static void swap(sched_entry *a, sched_entry *b)
{
    sched_entry t = *a;
    *a = *b;
    *b = t;
}

static void sift_up(sched_queue *q, size_t i)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!sched_before(&q->heap[i].key, &q->heap[parent].key)) break;
        swap(&q->heap[i], &q->heap[parent]);
        i = parent;
    }
}

static void sift_down(sched_queue *q, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < q->n && sched_before(&q->heap[l].key, &q->heap[best].key)) best = l;
        if (r < q->n && sched_before(&q->heap[r].key, &q->heap[best].key)) best = r;
        if (best == i) return;
        swap(&q->heap[i], &q->heap[best]);
        i = best;
    }
}

int sched_push(sched_queue *q, sched_key key, void *item)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 64;
        sched_entry *grown = realloc(q->heap, cap * sizeof *grown);
        if (!grown) return CUZK_ENOMEM;
        q->heap = grown, q->cap = cap;
    }
    q->heap[q->n] = (sched_entry){key, item};
    sift_up(q, q->n++);
    return CUZK_OK;
}

void *sched_pop(sched_queue *q)
{
    if (!q->n) return NULL;
    void *item = q->heap[0].item;
    q->heap[0] = q->heap[--q->n];
    sift_down(q, 0);
    return item;
}

size_t sched_remove_if(sched_queue *q, bool (*drop)(void *item, void *ctx), void *ctx)
{
    size_t kept = 0, n = q->n;
    for (size_t i = 0; i < n; i++)
        if (!drop(q->heap[i].item, ctx)) q->heap[kept++] = q->heap[i];
    q->n = kept;
    for (size_t i = kept / 2; i-- > 0;) sift_down(q, i);
    return n - kept;
}

const sched_key *sched_first(const sched_queue *q)
{
    return q->n ? &q->heap[0].key : NULL;
}

size_t sched_rekey(sched_queue *q, bool (*update)(sched_key *key, void *item, void *ctx), void *ctx)
{
    size_t changed = 0;
    for (size_t i = 0; i < q->n; i++) changed += update(&q->heap[i].key, q->heap[i].item, ctx);
    if (changed)
        for (size_t i = q->n / 2; i-- > 0;) sift_down(q, i);
    return changed;
}
