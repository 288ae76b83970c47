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
 * waits for the longer of the two instead of their sum.
 */
#include "srs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cuzk/engine_log.h"
#include "cuzk/params.h"

uint64_t srs_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void srs_init(srs_manager *m, budget *b, const char *param_cache, uint64_t min_idle_ms,
              void (*unloaded)(const groth16_params *), const char *setup_backend)
{
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->changed, NULL);
    m->budget = b;
    snprintf(m->dir, sizeof m->dir, "%s", param_cache);
    m->min_idle_ms = min_idle_ms;
    m->unloaded = unloaded;
    snprintf(m->setup_backend, sizeof m->setup_backend, "%s",
             setup_backend && !strcmp(setup_backend, "cuda") ? "auto" : "cpu");
}

/* Frees e's shape (and forgets a failed recording); returns the bytes
 * released to the budget. */
static uint64_t drop_shape(srs_manager *m, srs_entry *e)
{
    uint64_t bytes = e->shape_bytes;
    if (e->shape) {
        if (m->shape_unloaded) m->shape_unloaded(e->shape);
        cs_shape_free(e->shape);
    }
    e->shape = NULL, e->shape_bytes = 0, e->shape_failed = false;
    budget_release(m->budget, bytes);
    return bytes;
}

/* Frees e's parameters and shape; returns the bytes released. */
static uint64_t unload(srs_manager *m, srs_entry *e)
{
    if (m->unloaded) m->unloaded(&e->params);
    groth16_params_free(&e->params);
    groth16_pvk_free(&e->pvk);
    budget_release(m->budget, e->bytes);
    e->loaded = false;
    return e->bytes + drop_shape(m, e);
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
        if (!rc && !budget_try_reserve(m->budget, bytes))
            rc = budget_reserve(m->budget, bytes, cancelled, ctx, e->info.circuit_id, why);
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
        if (m->entries[i]->loaded) unload(m, m->entries[i]);
        pthread_mutex_destroy(&m->entries[i]->shape_lock);
        free(m->entries[i]);
    }
    free(m->entries);
    pthread_mutex_destroy(&m->lock);
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
        if (!grown) return NULL;
        m->entries = grown, m->cap = cap;
    }
    if (!(e = calloc(1, sizeof *e))) return NULL;
    e->info = *info;
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

/* The load's progress line, at most one per LOAD_LOG_MS (and the last). */
#define LOAD_LOG_MS 5000
typedef struct load_progress {
    const char *circuit_id;
    uint64_t t0, last;
} load_progress;

static void load_log(void *ctx, uint64_t done, uint64_t total)
{
    load_progress *lp = ctx;
    uint64_t t = srs_now_ms();
    if (done < total && t - lp->last < LOAD_LOG_MS) return;
    lp->last = t;
    double s = (double)(t - lp->t0) / 1e3;
    engine_log(LOG_INFO, "srs %s: read %.1f of %.1f GiB in %.1f s (%.2f GB/s)", lp->circuit_id,
               (double)done / (1 << 30), (double)total / (1 << 30), s,
               s > 0 ? (double)done / s / 1e9 : 0.0);
}

static void params_path(const srs_manager *m, const srs_entry *e, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s.params", m->dir, e->info.param_name);
}

/* Whether load() can succeed as far as the file goes: it exists, or
 * setup_dev makes it. */
static bool loadable(const srs_manager *m, const srs_entry *e, engine_setup_dev_fn setup_dev)
{
    char path[1024];
    struct stat st;
    params_path(m, e, path, sizeof path);
    return setup_dev || stat(path, &st) == 0;
}

/* Reads or makes the parameters (no lock held: the entry is `loading`, so
 * only this thread touches its params); charges *bytes to the budget. */
static int load(srs_manager *m, srs_entry *e, engine_setup_dev_fn setup_dev, uint64_t *bytes,
                cuzk_err *err)
{
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
    *bytes = (uint64_t)st.st_size;
    rc = budget_reserve(m->budget, *bytes, NULL, NULL, e->info.circuit_id, err);
    if (rc) return rc;
    load_progress lp = {e->info.circuit_id, srs_now_ms(), srs_now_ms()};
    rc = groth16_params_read_progress(&e->params, path,
                                      e->info.check_params ? PARAMS_CACHED : PARAMS_UNCHECKED,
                                      load_log, &lp, err);
    if (rc) {
        budget_release(m->budget, *bytes);
        return rc;
    }
    rc = groth16_prepare_vk(&e->pvk, &e->params.vk, err);
    if (rc) {
        groth16_params_free(&e->params);
        budget_release(m->budget, *bytes);
    }
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
    while (e->loading) pthread_cond_wait(&m->changed, &m->lock);
    int rc = CUZK_OK;
    if (!e->loaded) {
        e->loading = true;
        /* no one else reads or records e's shape while it loads; none is
         * recorded for a load that fails at once (no file: a 32 GiB shape
         * takes minutes and gigabytes) */
        shape_beside b = {m, e, req};
        pthread_t t;
        bool beside = req && !e->shape && !e->shape_failed && loadable(m, e, setup_dev) &&
                      pthread_create(&t, NULL, shape_beside_thread, &b) == 0;
        pthread_mutex_unlock(&m->lock);
        uint64_t bytes = 0;
        rc = load(m, e, setup_dev, &bytes, err);
        if (beside) pthread_join(t, NULL);
        pthread_mutex_lock(&m->lock);
        if (rc) drop_shape(m, e); /* a shape lives only with loaded parameters */
        if (!rc) e->bytes = bytes;
        e->loading = false;
        e->loaded = rc == CUZK_OK;
        pthread_cond_broadcast(&m->changed);
    }
    if (!rc) e->refs++, *out = e;
    e->last_used_ms = srs_now_ms();
    pthread_mutex_unlock(&m->lock);
    if (load_ms) *load_ms = srs_now_ms() - t0;
    return rc;
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
        *freed = unload(m, e);
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}

uint64_t srs_evict_idle(void *manager, uint64_t need)
{
    srs_manager *m = manager;
    uint64_t freed = 0, now = srs_now_ms();
    pthread_mutex_lock(&m->lock);
    while (freed < need) {
        srs_entry *lru = NULL;
        for (size_t i = 0; i < m->n; i++) {
            srs_entry *e = m->entries[i];
            if (!e->loaded || e->refs || now - e->last_used_ms < m->min_idle_ms) continue;
            if (!lru || e->last_used_ms < lru->last_used_ms) lru = e;
        }
        if (!lru) break;
        freed += unload(m, lru);
    }
    pthread_mutex_unlock(&m->lock);
    return freed;
}

bool srs_is_loaded(srs_manager *m, const char *circuit_id)
{
    pthread_mutex_lock(&m->lock);
    srs_entry *e = find(m, circuit_id);
    bool loaded = e && e->loaded;
    pthread_mutex_unlock(&m->lock);
    return loaded;
}

size_t srs_list(srs_manager *m, engine_srs_status **out)
{
    pthread_mutex_lock(&m->lock);
    size_t n = m->n;
    *out = calloc(n ? n : 1, sizeof **out);
    for (size_t i = 0; *out && i < n; i++) {
        const srs_entry *e = m->entries[i];
        engine_srs_status *s = &(*out)[i];
        snprintf(s->circuit_id, sizeof s->circuit_id, "%s", e->info.circuit_id);
        s->tier = e->refs ? SRS_HOT : e->loaded ? SRS_WARM : SRS_COLD;
        s->size_bytes = e->bytes + e->shape_bytes; /* its recorded shape included */
        s->ref_count = e->refs;
    }
    pthread_mutex_unlock(&m->lock);
    return *out ? n : 0;
}
