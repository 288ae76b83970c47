/*
 * dispatch.c - the dispatch policy of dispatch.h (its rules are stated
 * there). Aging rewrites a partition's key where it waits (the scheduler's
 * heap is re-ordered, the GPU queue's sorted array re-sorted), so every
 * other rule reads one priority; the partitions in synthesis are counted
 * per priority, for rule 5's "waits anywhere".
 */
#include "dispatch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cuzk/engine_log.h"

#define PRIO_LEVELS (ENGINE_PRIO_CRITICAL + 1)

static int clamp_priority(int p)
{
    return p < 0 ? 0 : p >= PRIO_LEVELS ? PRIO_LEVELS - 1 : p;
}

int dispatch_priority(const sched_key *key, uint64_t now, uint64_t aging_ms)
{
    if (key->priority >= ENGINE_PRIO_NORMAL || !aging_ms) return key->priority;
    return now >= key->since_ms && now - key->since_ms >= aging_ms ? ENGINE_PRIO_NORMAL
                                                                   : key->priority;
}

typedef struct age_ctx {
    uint64_t now, aging_ms;
} age_ctx;

/* sched_rekey's update: the heap's copy of the key and the item's own. */
static bool age_key(sched_key *key, void *item, void *ctx)
{
    const age_ctx *a = ctx;
    int p = dispatch_priority(key, a->now, a->aging_ms);
    if (p == key->priority) return false;
    key->priority = p;
    ((work_item *)item)->key.priority = p;
    return true;
}

/* Insertion sort of the GPU queue (short, and nearly sorted: only the
 * aged partitions move), stable. */
static void sort_gpuq(engine_t *e)
{
    for (size_t i = 1; i < e->gpuq_n; i++) {
        work_item *it = e->gpuq[i];
        size_t at = i;
        while (at > 0 && sched_before(&it->key, &e->gpuq[at - 1]->key)) {
            e->gpuq[at] = e->gpuq[at - 1];
            at--;
        }
        e->gpuq[at] = it;
    }
}

void dispatch_age(engine_t *e)
{
    age_ctx a = {srs_now_ms(), e->cfg.aging_ms};
    if (!a.aging_ms) return;
    sched_rekey(&e->queue, age_key, &a);
    size_t changed = 0;
    for (size_t i = 0; i < e->gpuq_n; i++) changed += age_key(&e->gpuq[i]->key, e->gpuq[i], &a);
    if (changed) sort_gpuq(e);
}

/* Rule 8: whether w has waited for memory past the patience (srs.swap_after)
 * of its priority's equals (the budget's lock held). */
static bool overdue(const budget *b, const budget_waiter *w, uint64_t now, uint64_t patience_ms)
{
    return now - w->since_ms >= patience_ms && !budget_fits_locked(b, w->bytes);
}

bool dispatch_gives_way_locked(const budget *b, int priority, uint64_t patience_ms)
{
    const budget_waiter *me = budget_waiter_self();
    uint64_t now = budget_now_ms();
    for (const budget_waiter *w = b->waiters; w; w = w->next) {
        if (w == me) continue;
        if (w->priority > priority) return true;
        if (me && w->priority == priority && w->tag != me->tag && w->ticket < me->ticket &&
            overdue(b, w, now, patience_ms))
            return true;
    }
    return false;
}

/* Rule 8's line: partitions of a priority below floor are held back, and
 * of floor itself when equal_too (a reservation of it is overdue). */
typedef struct hold_line {
    int floor;
    bool equal_too;
} hold_line;

static hold_line hold_line_now(engine_t *e)
{
    budget *b = &e->budget;
    hold_line line = {-1, false};
    uint64_t now = budget_now_ms(), patience = e->srs.rules.swap_after_ms;
    pthread_mutex_lock(&b->lock);
    for (const budget_waiter *w = b->waiters; w; w = w->next) {
        bool late = overdue(b, w, now, patience);
        if (w->priority > line.floor)
            line.floor = w->priority, line.equal_too = late;
        else if (w->priority == line.floor && late)
            line.equal_too = true;
    }
    pthread_mutex_unlock(&b->lock);
    return line;
}

static bool held_back(const hold_line *line, int priority)
{
    return priority < line->floor || (line->equal_too && priority == line->floor);
}

/* Rule 6's walk in rule 1's order; the items passed over go back into
 * the queue (whose storage they just left: the pushes cannot fail). */
work_item *dispatch_synth_next(engine_t *e, bool priority_only,
                               bool (*ready)(engine_t *e, work_item *it))
{
    work_item **skipped = malloc((e->queue.n ? e->queue.n : 1) * sizeof *skipped), *found = NULL;
    if (!skipped) { /* rule 6 waived: the worker meets the load itself */
        const sched_key *first = sched_first(&e->queue);
        bool may = first && (!priority_only || first->priority >= ENGINE_PRIO_HIGH);
        return may ? sched_pop(&e->queue) : NULL;
    }
    size_t n = 0;
    uint64_t now = srs_now_ms();
    const char *unready = NULL; /* the circuit last found not ready: a job's partitions follow */
    hold_line line = hold_line_now(e); /* rule 8 */
    for (const sched_key *first; !found && (first = sched_first(&e->queue));) {
        if (priority_only && first->priority < ENGINE_PRIO_HIGH) break;
        if (held_back(&line, first->priority)) break;
        work_item *it = sched_pop(&e->queue);
        const char *id = it->jobs[0]->circuit_id;
        if ((!unready || strcmp(unready, id)) && ready(e, it)) {
            found = it;
        } else {
            unready = id;
            if (!it->unready_ms) it->unready_ms = now;
            skipped[n++] = it;
        }
    }
    for (size_t i = 0; i < n; i++) sched_push(&e->queue, skipped[i]->key, skipped[i]);
    free(skipped);
    return found;
}

bool dispatch_held_back(engine_t *e)
{
    const sched_key *first = sched_first(&e->queue);
    if (!first) return false;
    hold_line line = hold_line_now(e);
    return held_back(&line, first->priority);
}

void dispatch_synth_taken(engine_t *e, const work_item *it)
{
    e->synth_prio[clamp_priority(it->key.priority)]++;
}

void dispatch_synth_done(engine_t *e, const work_item *it)
{
    e->synth_prio[clamp_priority(it->key.priority)]--;
}

int dispatch_synthesis_threads(const engine_t *e, const work_item *it, bool shaped, int cores,
                               int workers)
{
    if (e->cfg.synthesis_threads) return (int)e->cfg.synthesis_threads;
    if (!shaped || workers <= 1) return 0;
    size_t share = (size_t)workers;
    if (clamp_priority(it->key.priority) >= ENGINE_PRIO_HIGH) {
        share = 0;
        for (int p = ENGINE_PRIO_HIGH; p <= ENGINE_PRIO_CRITICAL; p++) share += e->synth_prio[p];
        if (share == 0) share = 1;
    }
    int threads = cores / (int)share;
    return threads < 1 ? 1 : threads;
}

bool dispatch_gpu_room(const engine_t *e, const work_item *it)
{
    uint32_t depth = e->cfg.max_gpu_queue_depth ? e->cfg.max_gpu_queue_depth : 1;
    size_t same_or_higher = 0;
    for (size_t i = 0; i < e->gpuq_n; i++)
        same_or_higher += e->gpuq[i]->key.priority >= it->key.priority;
    return same_or_higher < depth * e->in_service;
}

bool dispatch_gpu_turn(const engine_t *e, const work_item *it)
{
    if (!dispatch_gpu_room(e, it)) return false;
    for (const work_item *w = e->room_waiters; w; w = w->room_next)
        if (w != it && sched_before(&w->key, &it->key)) return false;
    return true;
}

size_t dispatch_place(work_item *const *q, size_t n, const work_item *it)
{
    size_t at = n;
    while (at > 0 && sched_before(&it->key, &q[at - 1]->key)) at--;
    return at;
}

/* The highest priority of the partitions waiting before a device: in the
 * scheduler queue (its first) and in synthesis (the GPU queue's first is
 * the one asked about). */
static int highest_waiting(const engine_t *e)
{
    const sched_key *first = sched_first(&e->queue);
    int p = first ? first->priority : 0;
    for (int q = PRIO_LEVELS - 1; q > p; q--)
        if (e->synth_prio[q]) return q;
    return p;
}

bool dispatch_start_takes(const engine_t *e, const work_item *next)
{
    return highest_waiting(e) <= next->key.priority;
}

bool dispatch_lane_takes(const engine_t *e, const work_item *it)
{
    if (!e->backend->lane_fits || it->no_lane || !it->provers || !it->srs) return false;
    if (it->key.priority < ENGINE_PRIO_HIGH) return false;
    for (size_t i = 0; i < e->n_devices; i++) {
        const device *d = &e->devices[i];
        if (d->lane && !d->failed &&
            e->backend->lane_fits(d->ordinal, &it->srs->params, &it->provers[0]))
            return true;
    }
    return false;
}

void dispatch_synthesis_nice(const engine_t *e, bool priority_only)
{
    if (priority_only || !e->cfg.synthesis_nice) return;
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int now = getpriority(PRIO_PROCESS, tid); /* -1 is a nice value too: errno says */
    int want = now + (int)e->cfg.synthesis_nice;
    if (want > 19) want = 19;
    if (errno || setpriority(PRIO_PROCESS, tid, want))
        engine_log(LOG_WARN, "synthesis.nice: thread %ld stays at its nice: %s", (long)tid,
                   strerror(errno));
}
