/*
 * srs.c - the SRS manager (srs.h). Entries live for the manager's lifetime
 * (a circuit seen once stays listed, COLD once evicted). Loading happens
 * outside the lock with the entry marked `loading`, so other circuits stay
 * available meanwhile and a second user of the same circuit waits for the
 * first load instead of starting its own. The official Filecoin files are
 * trusted local data and read unchecked (encodings and flags only, as
 * bellperson does); custom files (info.check_params) are checked in full the
 * first time their content is seen (the digest cache); the verifying key
 * is prepared once per load for the self-verification of every proof. A
 * load that a witness-only synthesis waits for records the circuit's shape
 * on a thread of its own meanwhile (the load is mostly disk and decoding,
 * the recording the circuit's gadgets), so a cold circuit's first proof
 * waits for the longer of the two instead of their sum. Which sets go
 * when memory is short, and which a waiting load drains, the residency
 * policy decides (residency.h) on a snapshot of the entries taken under
 * the lock; a drained set's new partitions wait in srs_acquire until the
 * load that asked for the drain has its memory. A load the policy
 * abandons (rule 7) sees its `abandon` flag between chunks of its read
 * (the reader's progress function; a simulated load's sleep), frees what
 * it read and its memory, and srs_acquire starts it again, waiting its
 * turn: its callers see one longer load, never an error.
 *
 * Lock order: a device's prover lock, then the engine's lock, then this
 * manager's (a start holds its device while it asks the engine for more
 * partitions; a dispatcher holds the engine while it asks here whether a
 * set is ready). The backend's hooks (unloaded, shape_unloaded) take the
 * device's lock, so they never run under this manager's lock: an entry
 * that goes is marked `releasing` under the lock (no longer loaded; no
 * load starts until it is done), and its parameters and shape are handed
 * to the hooks, freed and given back to the budget after the lock (a
 * `released` record). Called under the lock, they closed a cycle that hung
 * the daemon on the H200: a failed load dropping its shape waited for the
 * device, whose start waited for the engine, whose dispatcher waited here.
 */
#include "srs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cuzk/engine_log.h"
#include "cuzk/params.h"

/* Residency rule 5's default wait before a set of equal rank is drained. */
#define SRS_SWAP_AFTER_MS 120000

uint64_t srs_now_ms(void)
{
    return budget_now_ms(); /* one monotonic clock for the waits and the residency rules */
}

void srs_init(srs_manager *m, budget *b, const char *param_cache, uint64_t min_idle_ms,
              void (*unloaded)(const groth16_params *), const char *setup_backend)
{
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
    pthread_mutex_init(&m->demand_lock, NULL);
    pthread_cond_init(&m->changed, NULL);
    m->budget = b;
    snprintf(m->dir, sizeof m->dir, "%s", param_cache);
    m->unloaded = unloaded;
    snprintf(m->setup_backend, sizeof m->setup_backend, "%s",
             setup_backend && !strcmp(setup_backend, "cuda") ? "auto" : "cpu");
    m->rules.min_idle_ms = min_idle_ms;
    m->rules.swap_after_ms = SRS_SWAP_AFTER_MS;
}

static bool listed(const char (*ids)[CONFIG_ID_MAX], size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ids[i], id)) return true;
    return false;
}

void srs_set_residency(srs_manager *m, const cuzk_config *cfg, uint64_t swap_after_ms)
{
    pthread_mutex_lock(&m->lock);
    memcpy(m->pinned, cfg->pinned, sizeof m->pinned);
    memcpy(m->preload, cfg->preload, sizeof m->preload);
    m->n_pinned = cfg->n_pinned, m->n_preload = cfg->n_preload;
    m->rules.swap_after_ms = swap_after_ms;
    m->rules.keep_rank_ms = cfg->srs_keep_rank_s * 1000;
    for (size_t i = 0; i < m->n; i++) {
        srs_entry *e = m->entries[i];
        e->pinned = listed(m->pinned, m->n_pinned, e->info.circuit_id);
        e->preload = listed(m->preload, m->n_preload, e->info.circuit_id);
    }
    pthread_mutex_unlock(&m->lock);
}

/* A timed rank counted into demand while it lasts. */
static void timed_rank_count(const struct srs_timed_rank *t, uint64_t now,
                             uint32_t demand[RESIDENCY_PRIOS])
{
    if (t->until_ms > now) demand[t->priority]++;
}

/* The policy's snapshot of the entries (lock held): m->view_ptr[i] is
 * entry i's. */
static const residency_set *const *snapshot(srs_manager *m)
{
    for (size_t i = 0; i < m->n; i++) {
        const srs_entry *e = m->entries[i];
        residency_set *v = &m->view[i];
        v->loaded = e->loaded, v->loading = e->loading;
        v->pinned = e->pinned, v->preload = e->preload, v->draining = e->draining;
        v->waiting = e->waiting, v->reading = e->reading, v->abandoning = e->abandon;
        v->refs = e->refs;
        memset(v->demand, 0, sizeof v->demand);
        v->bytes = e->loaded ? e->bytes : e->want_bytes;
        v->last_used_ms = e->last_used_ms, v->load_began_ms = e->load_began_ms;
        v->part_bytes = __atomic_load_n(&e->part_bytes, __ATOMIC_RELAXED);
        m->view_ptr[i] = v;
    }
    uint64_t now = srs_now_ms();
    pthread_mutex_lock(&m->demand_lock);
    for (size_t k = 0; k < m->n_demand; k++)
        for (size_t i = 0; i < m->n; i++) {
            const struct srs_demand_row *row = &m->demand[k];
            if (strcmp(row->circuit_id, m->entries[i]->info.circuit_id)) continue;
            memcpy(m->view[i].demand, row->n, sizeof m->view[i].demand);
            timed_rank_count(&row->hold, now, m->view[i].demand);
            timed_rank_count(&row->ended, now, m->view[i].demand);
        }
    pthread_mutex_unlock(&m->demand_lock);
    return m->view_ptr;
}

/* What an entry gave up under the lock, freed after it (released_free): its
 * parameters (params: the entry, marked releasing) and its shape. */
typedef struct released {
    srs_entry *params;
    uint64_t params_bytes;
    cs_shape *shape;
    uint64_t shape_bytes;
} released;

/* Detaches e's shape into *r (and forgets a failed recording), lock held;
 * returns the bytes it held. */
static uint64_t drop_shape(srs_entry *e, released *r)
{
    uint64_t bytes = e->shape_bytes;
    r->shape = e->shape, r->shape_bytes = bytes;
    e->shape = NULL, e->shape_bytes = 0, e->shape_failed = false;
    return bytes;
}

/* Unloads e into *r (its parameters and shape, freed by released()), lock
 * held; returns the bytes they held. */
static uint64_t unload(srs_entry *e, released *r)
{
    r->params = e, r->params_bytes = e->bytes;
    e->loaded = false, e->releasing = true;
    e->evictions++;
    return e->bytes + drop_shape(e, r);
}

/* Frees what r holds, the lock not held: the backend's hooks, the memory,
 * the budget; an entry's `releasing` ends (its waiters told). */
static void released_free(srs_manager *m, released *r)
{
    if (r->shape) {
        if (m->shape_unloaded) m->shape_unloaded(r->shape);
        cs_shape_free(r->shape);
    }
    budget_release(m->budget, r->shape_bytes);
    srs_entry *e = r->params;
    if (e) {
        if (m->unloaded) m->unloaded(&e->params);
        groth16_params_free(&e->params);
        groth16_pvk_free(&e->pvk);
        budget_release(m->budget, r->params_bytes);
        pthread_mutex_lock(&m->lock);
        e->releasing = false;
        pthread_cond_broadcast(&m->changed);
        pthread_mutex_unlock(&m->lock);
    }
    memset(r, 0, sizeof *r);
}

static size_t index_of(const srs_manager *m, const srs_entry *e);

/* e's rank now (residency rule 3): the priority its memory waits at. */
static int rank_of(srs_manager *m, srs_entry *e)
{
    pthread_mutex_lock(&m->lock);
    int rank = residency_rank(snapshot(m)[index_of(m, e)]);
    pthread_mutex_unlock(&m->lock);
    return rank;
}

/* Whether a shape of `bytes` can ever fit beside its own parameters and
 * the pinned sets of other circuits (a wait for it could otherwise last
 * forever: its parameters, being loaded, cannot be evicted for it);
 * CUZK_ENOMEM naming the sizes when not. */
static int shape_can_fit(srs_manager *m, srs_entry *e, uint64_t bytes, cuzk_err *why)
{
    pthread_mutex_lock(&m->lock);
    uint64_t own = e->loaded ? e->bytes : e->want_bytes;
    uint64_t pinned = residency_fixed_bytes(snapshot(m), m->n, index_of(m, e));
    pthread_mutex_unlock(&m->lock);
    uint64_t room = budget_room(m->budget);
    if (bytes + own + pinned <= room) return CUZK_OK;
    return cuzk_errf(why, CUZK_ENOMEM,
                     "%s: its shape (%llu MiB) can never fit beside its parameters (%llu MiB) "
                     "and the pinned sets (%llu MiB) in the budget's room (%llu MiB)",
                     e->info.circuit_id, (unsigned long long)(bytes >> 20),
                     (unsigned long long)(own >> 20), (unsigned long long)(pinned >> 20),
                     (unsigned long long)(room >> 20));
}

/* A shape's wait for memory: it ends when the caller's cancelled() turns
 * true, or when the shape can never fit beside its own circuit's
 * parameters, which stay charged while the shape waits (those of the load
 * it is recorded beside, or the loaded ones its user holds): waiting then
 * would wait forever. */
typedef struct shape_wait {
    srs_manager *m;
    srs_entry *e;
    uint64_t bytes;
    bool (*cancelled)(void *);
    void *ctx;
    uint64_t params; /* set when it can never fit */
} shape_wait;

/* Called with the budget's lock held: reads the entry without m->lock
 * (which is taken before the budget's elsewhere). */
static bool shape_wait_over(void *arg)
{
    shape_wait *w = arg;
    if (w->cancelled && w->cancelled(w->ctx)) return true;
    uint64_t params = __atomic_load_n(&w->e->loaded, __ATOMIC_RELAXED)
                          ? __atomic_load_n(&w->e->bytes, __ATOMIC_RELAXED)
                          : __atomic_load_n(&w->e->want_bytes, __ATOMIC_RELAXED);
    if (params + w->bytes <= budget_room_locked(w->m->budget)) return false;
    w->params = params;
    return true;
}

const cs_shape *srs_shape(srs_manager *m, srs_entry *e, cs_circuit circuit,
                          bool (*cancelled)(void *), void *ctx, uint64_t *ms, cuzk_err *why)
{
    uint64_t t0 = srs_now_ms();
    why->code = 0, why->msg[0] = 0;
    pthread_mutex_lock(&e->shape_lock);
    if (!e->shape && !e->shape_failed) {
        cs_shape *s = NULL;
        engine_log(LOG_INFO, "srs %s: recording the circuit's shape", e->info.circuit_id);
        int rc = cs_shape_record(&s, circuit, why);
        uint64_t bytes = rc ? 0 : cs_shape_bytes(s);
        int rank = rank_of(m, e);
        if (!rc) rc = shape_can_fit(m, e, bytes, why);
        if (!rc && !budget_try_reserve(m->budget, bytes, rank)) {
            shape_wait w = {m, e, bytes, cancelled, ctx, 0};
            rc = budget_reserve(m->budget, bytes, rank, e, shape_wait_over, &w, e->info.circuit_id,
                                why);
            if (rc && w.params)
                rc = cuzk_errf(why, CUZK_ENOMEM,
                               "its shape (%llu MiB) and parameters (%llu MiB) together exceed "
                               "the memory budget (%llu MiB)",
                               (unsigned long long)(bytes >> 20),
                               (unsigned long long)(w.params >> 20),
                               (unsigned long long)(m->budget->total >> 20));
        }
        if (rc) {
            cs_shape_free(s);
            /* a cancelled wait says nothing about the circuit: asked again */
            e->shape_failed = rc != CUZK_ECANCELLED;
            engine_log(LOG_WARN, "srs %s: no recorded shape, proving through full synthesis: %s",
                       e->info.circuit_id, why->msg);
        } else {
            pthread_mutex_lock(&m->lock);
            e->shape = s, e->shape_bytes = bytes;
            pthread_mutex_unlock(&m->lock);
            engine_log(LOG_INFO,
                       "srs %s: shape of %zu constraints recorded in %.1f s, %.2f GiB kept",
                       e->info.circuit_id, cs_shape_num_constraints(s),
                       (double)(srs_now_ms() - t0) / 1e3, (double)bytes / (1 << 30));
        }
    }
    const cs_shape *s = e->shape;
    pthread_mutex_unlock(&e->shape_lock);
    if (ms) *ms = srs_now_ms() - t0;
    return s;
}

void srs_destroy(srs_manager *m)
{
    for (size_t i = 0; i < m->n; i++) {
        released r = {0};
        if (m->entries[i]->loaded) unload(m->entries[i], &r);
        released_free(m, &r);
        pthread_mutex_destroy(&m->entries[i]->shape_lock);
        free(m->entries[i]);
    }
    free(m->entries);
    free(m->view), free(m->view_ptr), free(m->drain), free(m->demand);
    pthread_mutex_destroy(&m->lock);
    pthread_mutex_destroy(&m->demand_lock);
    pthread_cond_destroy(&m->changed);
}

static srs_entry *find(srs_manager *m, const char *id)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->entries[i]->info.circuit_id, id)) return m->entries[i];
    return NULL;
}

static srs_entry *find_or_add(srs_manager *m, const engine_circuit_info *info)
{
    srs_entry *e = find(m, info->circuit_id);
    if (e) return e;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 8;
        srs_entry **grown = realloc(m->entries, cap * sizeof *grown);
        if (grown) m->entries = grown;
        residency_set *view = realloc(m->view, cap * sizeof *view);
        if (view) m->view = view;
        const residency_set **ptr = realloc(m->view_ptr, cap * sizeof *ptr);
        if (ptr) m->view_ptr = ptr;
        bool *drain = realloc(m->drain, cap * sizeof *drain);
        if (drain) m->drain = drain;
        if (!grown || !view || !ptr || !drain) return NULL;
        m->cap = cap;
    }
    if (!(e = calloc(1, sizeof *e))) return NULL;
    e->info = *info;
    e->pinned = listed(m->pinned, m->n_pinned, info->circuit_id);
    e->preload = listed(m->preload, m->n_preload, info->circuit_id);
    pthread_mutex_init(&e->shape_lock, NULL);
    return m->entries[m->n++] = e;
}

/* Development parameters written to path, on the manager's backend (the
 * device's buffers only for the time of the setup). */
static int make_dev(srs_manager *m, srs_entry *e, const char *path, engine_setup_dev_fn setup_dev,
                    cuzk_err *err)
{
    groth16_setup_backend be;
    int rc = groth16_setup_backend_choose(&be, m->setup_backend, err);
    if (!rc) {
        rc = setup_dev(e->info.circuit_id, path, &be, err);
        groth16_setup_backend_release(&be);
    }
    return rc;
}

/* Whether e's load is asked to stop (residency rule 7): read without the
 * lock, between chunks. */
static bool abandon_asked(const srs_entry *e)
{
    return __atomic_load_n(&e->abandon, __ATOMIC_RELAXED);
}

/* The load's progress: a line at most every LOAD_LOG_MS (and the last),
 * the bytes read so far, and rule 7's check after each window. */
#define LOAD_LOG_MS 5000
typedef struct load_progress {
    srs_entry *e;
    uint64_t t0, last, done;
} load_progress;

/* The progress of a read: logged every LOAD_LOG_MS; the entry's read_done
 * advanced only once rule 7's check has passed, so a reader of the status
 * who sees the whole file read knows this read will not be abandoned. */
static bool load_log(void *ctx, uint64_t done, uint64_t total)
{
    load_progress *lp = ctx;
    uint64_t t = srs_now_ms();
    lp->done = done;
    if (done == total || t - lp->last >= LOAD_LOG_MS) {
        lp->last = t;
        double s = (double)(t - lp->t0) / 1e3;
        engine_log(LOG_INFO, "srs %s: read %.1f of %.1f GiB in %.1f s (%.2f GB/s)",
                   lp->e->info.circuit_id, (double)done / (1 << 30), (double)total / (1 << 30), s,
                   s > 0 ? (double)done / s / 1e9 : 0.0);
    }
    bool go = !abandon_asked(lp->e);
    if (go) __atomic_store_n(&lp->e->read_done, done, __ATOMIC_RELAXED);
    return go;
}

static size_t index_of(const srs_manager *m, const srs_entry *e)
{
    size_t i = 0;
    while (m->entries[i] != e) i++;
    return i;
}

/* Rule 6's error: the pinned sets of other circuits named (lock held). */
static int never_fits(srs_manager *m, const srs_entry *e, uint64_t bytes, uint64_t fixed,
                      cuzk_err *err)
{
    char names[256] = "";
    for (size_t i = 0, off = 0; i < m->n && off < sizeof names; i++) {
        const srs_entry *p = m->entries[i];
        if (p != e && p->pinned && (p->loaded || p->loading))
            off += (size_t)snprintf(names + off, sizeof names - off, "%s%s", off ? ", " : "",
                                    p->info.circuit_id);
    }
    return cuzk_errf(err, CUZK_ENOMEM,
                     "circuit %s: its parameters (%llu MiB) can never fit: the memory budget's "
                     "room is %llu MiB and the pinned sets of other circuits (srs.pinned: %s) "
                     "hold %llu MiB",
                     e->info.circuit_id, (unsigned long long)(bytes >> 20),
                     (unsigned long long)(budget_room(m->budget) >> 20), names,
                     (unsigned long long)(fixed >> 20));
}

/* A load's wait for memory ends when the shape recorded beside it holds
 * bytes the parameters cannot fit beside (then the shape goes). */
typedef struct load_wait {
    srs_manager *m;
    srs_entry *e;
    uint64_t bytes;
} load_wait;

/* Called with the budget's lock held: reads the entry without m->lock
 * (which is taken before the budget's elsewhere). */
static bool load_wait_over(void *arg)
{
    load_wait *w = arg;
    uint64_t shape = __atomic_load_n(&w->e->shape_bytes, __ATOMIC_RELAXED);
    return shape && w->bytes + shape > budget_room_locked(w->m->budget);
}

/* Drops the shape recorded beside a load that its parameters cannot fit
 * beside (the recording is over: shape_bytes is set). */
static void drop_shape_beside(srs_manager *m, srs_entry *e, uint64_t bytes)
{
    released r = {0};
    pthread_mutex_lock(&e->shape_lock);
    pthread_mutex_lock(&m->lock);
    engine_log(LOG_WARN,
               "srs %s: its shape (%llu MiB) dropped: its parameters (%llu MiB) do not fit "
               "beside it in the memory budget (%llu MiB); proving through full synthesis",
               e->info.circuit_id, (unsigned long long)(e->shape_bytes >> 20),
               (unsigned long long)(bytes >> 20), (unsigned long long)(m->budget->total >> 20));
    drop_shape(e, &r);
    e->shape_failed = true;
    pthread_mutex_unlock(&m->lock);
    pthread_mutex_unlock(&e->shape_lock);
    released_free(m, &r);
}

/* Residency rule 8: waits until no load of a higher rank waits for memory
 * (rechecked every 100 ms: ranks change without a signal); returns e's
 * rank then, the priority its memory waits at. */
static int wait_turn(srs_manager *m, srs_entry *e)
{
    pthread_mutex_lock(&m->lock);
    const residency_set *const *view;
    while (!residency_may_load(view = snapshot(m), m->n, index_of(m, e))) {
        struct timespec ts;
        budget_deadline(&ts, 100);
        pthread_cond_timedwait(&m->changed, &m->lock, &ts);
    }
    int rank = residency_rank(view[index_of(m, e)]);
    pthread_mutex_unlock(&m->lock);
    return rank;
}

/* The load's memory (residency rules 5 to 8): fails at once when it can
 * never fit, else waits its turn (rule 8) and then while the evictor
 * (srs_evict_idle) frees idle sets, drains others and abandons lower
 * loads for it; the drains end once it has its memory, and it is
 * `reading` from then on. Memory had while a higher load started waiting
 * goes back, and the load waits its turn again. A shape recorded beside
 * the load that the parameters cannot fit beside is dropped (the circuit
 * proves through full synthesis until its next load), since the load
 * would otherwise wait for bytes its own entry holds. */
static int reserve_for_load(srs_manager *m, srs_entry *e, uint64_t bytes, cuzk_err *err)
{
    pthread_mutex_lock(&m->lock);
    uint64_t fixed = residency_fixed_bytes(snapshot(m), m->n, index_of(m, e));
    uint64_t room = budget_room(m->budget);
    if (fixed && bytes > room - (fixed < room ? fixed : room)) {
        int rc = never_fits(m, e, bytes, fixed, err);
        pthread_mutex_unlock(&m->lock);
        return rc;
    }
    e->want_bytes = bytes, e->waiting = true, e->wait_since_ms = srs_now_ms();
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
    load_wait w = {m, e, bytes};
    int rc;
    for (;;) {
        int rank = wait_turn(m, e);
        rc = budget_reserve(m->budget, bytes, rank, e, load_wait_over, &w, e->info.circuit_id, err);
        if (rc == CUZK_ECANCELLED && load_wait_over(&w)) {
            drop_shape_beside(m, e, bytes);
            continue;
        }
        pthread_mutex_lock(&m->lock);
        if (rc || residency_may_load(snapshot(m), m->n, index_of(m, e))) break; /* lock held */
        pthread_mutex_unlock(&m->lock);
        budget_release(m->budget, bytes);
    }
    e->waiting = false, e->reading = rc == CUZK_OK;
    if (e->reading) e->load_began_ms = srs_now_ms();
    for (size_t i = 0; i < m->n; i++)
        if (m->entries[i]->drain_for == e) {
            m->entries[i]->draining = false, m->entries[i]->drain_for = NULL;
            engine_log(LOG_INFO, "srs %s: drain for %s over, taking partitions again",
                       m->entries[i]->info.circuit_id, e->info.circuit_id);
        }
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
    return rc;
}

static void params_path(const srs_manager *m, const srs_entry *e, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s.params", m->dir, e->info.param_name);
}

/* The bytes a load of e's file (st) charges to the budget. */
static uint64_t load_bytes(const srs_entry *e, const struct stat *st)
{
    return e->info.sim_bytes ? e->info.sim_bytes : (uint64_t)st->st_size;
}

/* Whether load() can succeed as far as is known before it starts: the
 * file exists and its bytes fit in the budget's room, or setup_dev makes
 * it. (A load that can never fit fails at once; the 512MiB SnapDeals shape
 * recorded beside each such load took 10 s, for every partition of every
 * job, in the H200 soak's tight epoch.) */
static bool loadable(const srs_manager *m, const srs_entry *e, engine_setup_dev_fn setup_dev)
{
    char path[1024];
    struct stat st;
    params_path(m, e, path, sizeof path);
    if (stat(path, &st) != 0) return setup_dev != NULL;
    return load_bytes(e, &st) <= budget_room(m->budget);
}

/* A simulated kind's load (engine_circuit_info.sim_load_ms): the rest of
 * its modeled read time, from t0, slept in chunks of at most 10 ms, each
 * followed by rule 7's check. Returns false when the load was abandoned
 * (*done: the share of its bytes read by then), true when it ended. */
static bool sim_read_time(const srs_entry *e, uint64_t bytes, uint64_t t0, uint64_t *done)
{
    uint64_t total = e->info.sim_load_ms, elapsed;
    while ((elapsed = srs_now_ms() - t0) < total) {
        if (abandon_asked(e)) {
            *done = (uint64_t)((double)bytes * (double)elapsed / (double)total);
            return false;
        }
        uint64_t ms = total - elapsed < 10 ? total - elapsed : 10;
        struct timespec ts = {0, (long)ms * 1000000L};
        while (nanosleep(&ts, &ts)) continue;
    }
    return true;
}

/* The end of a read (takes the lock): no longer reading; an abandoned one
 * (rule 7) counted with the bytes it had read. */
static void read_over(srs_manager *m, srs_entry *e, bool abandoned, uint64_t done)
{
    pthread_mutex_lock(&m->lock);
    e->reading = false;
    __atomic_store_n(&e->read_done, 0, __ATOMIC_RELAXED);
    if (abandoned) {
        e->abandoned++, e->abandoned_bytes += done;
        engine_log(LOG_INFO, "srs %s: load abandoned after %.2f of %.2f GiB read; waiting again",
                   e->info.circuit_id, (double)done / (1 << 30), (double)e->want_bytes / (1 << 30));
    }
    pthread_mutex_unlock(&m->lock);
}

/* Reads or makes the parameters (no lock held: the entry is `loading`, so
 * only this thread touches its params); charges *bytes to the budget;
 * *read_ms: the time reading them, after their memory was had.
 * *abandoned: the read was abandoned (rule 7: CUZK_ECANCELLED, nothing
 * kept, its memory released). */
static int load(srs_manager *m, srs_entry *e, engine_setup_dev_fn setup_dev, uint64_t *bytes,
                uint64_t *read_ms, bool *abandoned, cuzk_err *err)
{
    *abandoned = false;
    char path[1024];
    params_path(m, e, path, sizeof path);
    struct stat st;
    int rc;
    if (stat(path, &st) != 0) {
        if (!setup_dev)
            return cuzk_errf(err, CUZK_EIO, "circuit %s: parameter file %s not found",
                             e->info.circuit_id, path);
        if ((rc = make_dev(m, e, path, setup_dev, err))) return rc;
        if (stat(path, &st) != 0)
            return cuzk_errf(err, CUZK_EIO, "circuit %s: the development setup left no %s",
                             e->info.circuit_id, path);
    }
    *bytes = load_bytes(e, &st);
    if ((rc = reserve_for_load(m, e, *bytes, err))) return rc;
    uint64_t t0 = srs_now_ms();
    load_progress lp = {e, srs_now_ms(), srs_now_ms(), 0};
    rc = groth16_params_read_progress(&e->params, path,
                                      e->info.check_params ? PARAMS_CACHED : PARAMS_UNCHECKED,
                                      load_log, &lp, err);
    *abandoned = rc == CUZK_ECANCELLED && abandon_asked(e);
    if (!rc) rc = groth16_prepare_vk(&e->pvk, &e->params.vk, err);
    if (!rc && e->info.sim_load_ms && !sim_read_time(e, *bytes, t0, &lp.done)) {
        *abandoned = true;
        rc = cuzk_errf(err, CUZK_ECANCELLED, "circuit %s: load abandoned", e->info.circuit_id);
        groth16_pvk_free(&e->pvk);
    }
    if (rc) {
        groth16_params_free(&e->params);
        budget_release(m->budget, *bytes);
    }
    read_over(m, e, *abandoned, lp.done);
    *read_ms = srs_now_ms() - t0;
    return rc;
}

/* A shape recorded on a thread of its own beside a load (srs_acquire_shaped). */
typedef struct shape_beside {
    srs_manager *m;
    srs_entry *e;
    const srs_shape_req *req;
} shape_beside;

static void *shape_beside_thread(void *arg)
{
    shape_beside *b = arg;
    cuzk_err why;
    srs_shape(b->m, b->e, b->req->circuit, b->req->cancelled, b->req->ctx, NULL, &why);
    return NULL;
}

int srs_acquire(srs_manager *m, const engine_circuit_info *info, engine_setup_dev_fn setup_dev,
                srs_entry **out, uint64_t *load_ms, cuzk_err *err)
{
    return srs_acquire_shaped(m, info, setup_dev, NULL, out, load_ms, err);
}

int srs_acquire_shaped(srs_manager *m, const engine_circuit_info *info,
                       engine_setup_dev_fn setup_dev, const srs_shape_req *req, srs_entry **out,
                       uint64_t *load_ms, cuzk_err *err)
{
    uint64_t t0 = srs_now_ms();
    pthread_mutex_lock(&m->lock);
    srs_entry *e = find_or_add(m, info);
    if (!e) {
        pthread_mutex_unlock(&m->lock);
        return cuzk_errf(err, CUZK_ENOMEM, "SRS manager: out of memory");
    }
    int rc = CUZK_OK;
    released r = {0}; /* a failed load's shape */
    for (;;) {
        while (e->loading || e->draining || e->releasing) pthread_cond_wait(&m->changed, &m->lock);
        if (e->loaded) break;
        e->loading = true;
        /* no one else reads or records e's shape while it loads; none is
         * recorded for a load that fails at once (no file: a 32 GiB shape
         * takes minutes and gigabytes) */
        shape_beside b = {m, e, req};
        pthread_t t;
        bool beside = req && !e->shape && !e->shape_failed && loadable(m, e, setup_dev) &&
                      pthread_create(&t, NULL, shape_beside_thread, &b) == 0;
        pthread_mutex_unlock(&m->lock);
        released_free(m, &r);
        uint64_t bytes = 0, read_ms = 0;
        bool abandoned;
        rc = load(m, e, setup_dev, &bytes, &read_ms, &abandoned, err);
        if (beside) pthread_join(t, NULL);
        pthread_mutex_lock(&m->lock);
        if (rc) drop_shape(e, &r); /* a shape lives only with loaded parameters */
        if (!rc) e->bytes = bytes, e->loads++;
        e->load_ms += read_ms;
        e->loading = false;
        __atomic_store_n(&e->abandon, false, __ATOMIC_RELAXED);
        e->loaded = rc == CUZK_OK;
        pthread_cond_broadcast(&m->changed);
        if (!abandoned) break;
        rc = CUZK_OK; /* rule 7: its users wait again, as for a load under way */
    }
    if (!rc) e->refs++, *out = e;
    e->last_used_ms = srs_now_ms();
    pthread_mutex_unlock(&m->lock);
    released_free(m, &r);
    if (load_ms) *load_ms = srs_now_ms() - t0;
    return rc;
}

void srs_partition_bytes(srs_entry *e, int64_t delta)
{
    if (e) __atomic_add_fetch(&e->part_bytes, (uint64_t)delta, __ATOMIC_RELAXED);
}

void srs_release(srs_manager *m, srs_entry *e)
{
    pthread_mutex_lock(&m->lock);
    e->refs--;
    e->last_used_ms = srs_now_ms();
    pthread_mutex_unlock(&m->lock);
}

int srs_evict(srs_manager *m, const char *circuit_id, bool *was_loaded, uint64_t *freed,
              cuzk_err *err)
{
    released r = {0};
    pthread_mutex_lock(&m->lock);
    srs_entry *e = find(m, circuit_id);
    int rc = CUZK_OK;
    *was_loaded = false, *freed = 0;
    if (!e)
        rc = cuzk_errf(err, ENGINE_ENOTFOUND, "circuit %s has never been loaded", circuit_id);
    else if (e->refs || e->loading)
        rc = cuzk_errf(err, ENGINE_EBUSY, "circuit %s is in use by %u job(s)", circuit_id, e->refs);
    else if (e->loaded) {
        *was_loaded = true;
        *freed = unload(e, &r);
    }
    pthread_mutex_unlock(&m->lock);
    released_free(m, &r);
    return rc;
}

/* The waiting load that drains go to (lock held): the highest rank, then
 * the longest waiting; NULL when none waits. */
static srs_entry *first_waiting(srs_manager *m)
{
    srs_entry *w = NULL;
    for (size_t i = 0; i < m->n; i++) {
        srs_entry *e = m->entries[i];
        if (!e->waiting) continue;
        int r = residency_rank(&m->view[i]), rw = w ? residency_rank(&m->view[index_of(m, w)]) : -1;
        if (r > rw || (r == rw && e->wait_since_ms < w->wait_since_ms)) w = e;
    }
    return w;
}

/* Rules 5 and 7: drains, or abandons the loads of, for the first waiting
 * load what its memory needs beyond what is free (lock held). */
static void plan_drains(srs_manager *m, uint64_t now)
{
    const residency_set *const *view = snapshot(m);
    srs_entry *w = first_waiting(m);
    if (!w) return;
    uint64_t used = budget_used(m->budget), total = m->budget->total;
    uint64_t free_now = used < total ? total - used : 0;
    if (w->want_bytes <= free_now) return;
    residency_plan_room(view, m->n, index_of(m, w), w->want_bytes - free_now,
                        now - w->wait_since_ms, &m->rules, m->drain);
    for (size_t i = 0; i < m->n; i++) {
        srs_entry *e = m->entries[i];
        if (!m->drain[i] || e->draining || e->abandon) continue;
        if (e->reading) {
            __atomic_store_n(&e->abandon, true, __ATOMIC_RELAXED);
            engine_log(LOG_INFO, "srs %s: abandoning its load (%.2f GiB) for the load of %s",
                       e->info.circuit_id, (double)e->want_bytes / (1 << 30), w->info.circuit_id);
            continue;
        }
        e->draining = true, e->drain_for = w;
        engine_log(LOG_INFO,
                   "srs %s: draining (%u partition(s) running on %.2f GiB, %.2f GiB) for the load "
                   "of %s",
                   e->info.circuit_id, e->refs,
                   (double)__atomic_load_n(&e->part_bytes, __ATOMIC_RELAXED) / (1 << 30),
                   (double)e->bytes / (1 << 30), w->info.circuit_id);
    }
}

uint64_t srs_evict_idle(void *manager, uint64_t need, int priority, uint64_t waited_ms)
{
    srs_manager *m = manager;
    uint64_t freed = 0, now = srs_now_ms();
    for (;;) { /* a victim at a time, freed after the lock */
        pthread_mutex_lock(&m->lock);
        long v = freed < need
                     ? residency_victim(snapshot(m), m->n, now, &m->rules, priority, waited_ms)
                     : -1;
        if (v < 0) {
            if (freed < need) plan_drains(m, now);
            pthread_mutex_unlock(&m->lock);
            return freed;
        }
        engine_log(LOG_INFO, "srs %s: evicted for memory (%.2f GiB)",
                   m->entries[v]->info.circuit_id, (double)m->entries[v]->bytes / (1 << 30));
        released r = {0};
        freed += unload(m->entries[v], &r);
        pthread_mutex_unlock(&m->lock);
        released_free(m, &r);
    }
}

/* The circuit's row of the demand table, added if new (demand_lock
 * held); NULL when out of memory. */
static struct srs_demand_row *demand_row(srs_manager *m, const char *circuit_id)
{
    for (size_t k = 0; k < m->n_demand; k++)
        if (!strcmp(m->demand[k].circuit_id, circuit_id)) return &m->demand[k];
    if (m->n_demand == m->cap_demand) {
        size_t cap = m->cap_demand ? 2 * m->cap_demand : 8;
        struct srs_demand_row *grown = realloc(m->demand, cap * sizeof *grown);
        if (!grown) return NULL;
        m->demand = grown, m->cap_demand = cap;
    }
    struct srs_demand_row *r = &m->demand[m->n_demand++];
    memset(r, 0, sizeof *r);
    snprintf(r->circuit_id, sizeof r->circuit_id, "%s", circuit_id);
    return r;
}

void srs_demand(srs_manager *m, const char *circuit_id, int priority, int delta)
{
    if (priority < 0 || priority >= RESIDENCY_PRIOS) return;
    pthread_mutex_lock(&m->demand_lock);
    struct srs_demand_row *r = demand_row(m, circuit_id);
    if (r && delta > 0) r->n[priority]++;
    if (r && delta < 0 && r->n[priority]) {
        r->n[priority]--;
        /* rule 3: the set keeps the ended job's rank for srs.keep_rank */
        r->ended = (struct srs_timed_rank){priority, srs_now_ms() + m->rules.keep_rank_ms};
    }
    pthread_mutex_unlock(&m->demand_lock);
}

void srs_hold(srs_manager *m, const char *circuit_id, int priority, uint64_t until_ms)
{
    if (priority < 0 || priority >= RESIDENCY_PRIOS) return;
    pthread_mutex_lock(&m->demand_lock);
    struct srs_demand_row *r = demand_row(m, circuit_id);
    if (r) r->hold = (struct srs_timed_rank){priority, priority ? until_ms : 0};
    pthread_mutex_unlock(&m->demand_lock);
}

bool srs_is_loaded(srs_manager *m, const char *circuit_id)
{
    pthread_mutex_lock(&m->lock);
    srs_entry *e = find(m, circuit_id);
    bool loaded = e && e->loaded;
    pthread_mutex_unlock(&m->lock);
    return loaded;
}

srs_entry *srs_take_ready(srs_manager *m, const char *circuit_id)
{
    pthread_mutex_lock(&m->lock);
    srs_entry *e = find(m, circuit_id);
    bool ready = e && e->loaded && !e->loading && !e->draining;
    if (ready) e->refs++, e->last_used_ms = srs_now_ms();
    pthread_mutex_unlock(&m->lock);
    return ready ? e : NULL;
}

size_t srs_list(srs_manager *m, engine_srs_status **out)
{
    pthread_mutex_lock(&m->lock);
    snapshot(m);
    size_t n = m->n;
    *out = calloc(n ? n : 1, sizeof **out);
    for (size_t i = 0; *out && i < n; i++) {
        const srs_entry *e = m->entries[i];
        engine_srs_status *s = &(*out)[i];
        snprintf(s->circuit_id, sizeof s->circuit_id, "%s", e->info.circuit_id);
        s->tier = e->refs ? SRS_HOT : e->loaded ? SRS_WARM : SRS_COLD;
        s->size_bytes = e->bytes + e->shape_bytes; /* its recorded shape included */
        s->ref_count = e->refs;
        s->pinned = e->pinned, s->preload = e->preload;
        s->loading = e->loading, s->draining = e->draining;
        s->rank = residency_rank(&m->view[i]);
        s->loads = e->loads, s->evictions = e->evictions;
        s->abandoned = e->abandoned, s->abandoned_bytes = e->abandoned_bytes;
        s->read_bytes = __atomic_load_n(&e->read_done, __ATOMIC_RELAXED);
        s->load_seconds = (double)e->load_ms / 1e3;
    }
    pthread_mutex_unlock(&m->lock);
    return *out ? n : 0;
}
