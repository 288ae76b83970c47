/*
 * loader.c - background parameter loads (loader.h). Slots live in the
 * engine and are read and written under its lock; a slot's thread runs
 * engine_preload without it and, done, marks the slot and wakes the
 * synthesis workers. Finished threads are joined when their slot is
 * reused and when the engine stops.
 */
#include "loader.h"

#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "cuzk/engine_log.h"
#include "engine_internal.h"

static void *load_thread(void *arg)
{
    loader_slot *s = arg;
    engine_t *e = s->e;
    prctl(PR_SET_NAME, "cuzk-load");
    bool was;
    uint64_t ms = 0;
    cuzk_err err = {0};
    int rc = engine_preload(e, s->circuit_id, &was, &ms, &err);
    if (rc)
        engine_log(LOG_WARN, "load of %s for queued work failed: %s", s->circuit_id, err.msg);
    else
        engine_log(LOG_INFO, "srs %s: loaded for queued work in %.1f s", s->circuit_id,
                   (double)ms / 1e3);
    pthread_mutex_lock(&e->lock);
    s->running = false;
    s->failed = rc != CUZK_OK;
    pthread_cond_broadcast(&e->work_cv);
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

static loader_slot *find(loader *l, const char *id)
{
    for (size_t i = 0; i < LOADER_SLOTS; i++)
        if (l->slots[i].used && !strcmp(l->slots[i].circuit_id, id)) return &l->slots[i];
    return NULL;
}

/* A slot for id: its own, else a free one or one whose thread is done
 * (joined here); NULL when every slot loads. */
static loader_slot *slot_for(loader *l, const char *id)
{
    loader_slot *s = find(l, id);
    if (s) return s;
    for (size_t i = 0; i < LOADER_SLOTS; i++) {
        s = &l->slots[i];
        if (s->used && s->running) continue;
        if (s->used) pthread_join(s->thread, NULL); /* ended: it only took the lock */
        memset(s, 0, sizeof *s);
        snprintf(s->circuit_id, sizeof s->circuit_id, "%s", id);
        return s;
    }
    return NULL;
}

bool loader_ready(engine_t *e, work_item *it)
{
    const char *id = it->jobs[0]->circuit_id;
    loader_slot *s = find(&e->loads, id);
    if ((it->srs = srs_take_ready(&e->srs, id))) {
        if (s) s->failed = false;
        return true;
    }
    if (s && (s->running || s->failed)) return !s->running;
    if (e->stopping || !(s = slot_for(&e->loads, id))) return true;
    if (s->used) pthread_join(s->thread, NULL); /* its earlier load, ended */
    s->e = e, s->used = s->running = true, s->failed = false;
    if (pthread_create(&s->thread, NULL, load_thread, s)) {
        s->used = s->running = false;
        return true;
    }
    /* its jobs run from now: their load is theirs */
    uint64_t now = srs_now_ms();
    for (size_t i = 0; i < it->n; i++)
        if (it->jobs[i]->state == JOB_QUEUED)
            it->jobs[i]->state = JOB_RUNNING, it->jobs[i]->t_start = now;
    return false;
}

void loader_join(engine_t *e)
{
    for (size_t i = 0; i < LOADER_SLOTS; i++) {
        pthread_mutex_lock(&e->lock);
        loader_slot *s = &e->loads.slots[i];
        bool used = s->used;
        pthread_t t = s->thread;
        s->used = false;
        pthread_mutex_unlock(&e->lock);
        if (used) pthread_join(t, NULL);
    }
}
