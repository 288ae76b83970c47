/*
 * pool.c - the partition storage pool (pool.h): an array of entries,
 * oldest first, under a mutex. An entry is trimmed to the circuit it held
 * (cs_prover_trim: the doubling's unused half goes), so its bytes are
 * what it holds. Storage is freed and bytes released outside
 * the lock (freeing 17 GiB of a 32 GiB partition takes a while, and the
 * budget's lock is never taken under the pool's).
 */
#include "pool.h"

#include <stdlib.h>
#include <string.h>

int pool_init(prover_pool *p, budget *b, size_t max, cuzk_err *err)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->lock, NULL);
    p->budget = b;
    p->max = max;
    if (max && !(p->entries = calloc(max, sizeof *p->entries)))
        return cuzk_errf(err, CUZK_ENOMEM, "partition pool: out of memory for %zu entries", max);
    return CUZK_OK;
}

/* Frees the storage of n entries and releases their bytes (no lock held). */
static void drop(prover_pool *p, pool_entry *gone, size_t n)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        cs_prover_free(&gone[i].storage);
        bytes += gone[i].bytes;
    }
    if (bytes) budget_release(p->budget, bytes);
}

/* Removes entry i (lock held), keeping the order. */
static pool_entry remove_at(prover_pool *p, size_t i)
{
    pool_entry e = p->entries[i];
    memmove(p->entries + i, p->entries + i + 1, (p->n - i - 1) * sizeof *p->entries);
    p->n--;
    p->bytes -= e.bytes;
    return e;
}

void pool_destroy(prover_pool *p)
{
    drop(p, p->entries, p->n);
    free(p->entries);
    pthread_mutex_destroy(&p->lock);
    memset(p, 0, sizeof *p);
}

/* Whether entry storage s holds a circuit of size on its path: witness-
 * only storage (assignments and bitmaps, no a, b, c) for the witness-only
 * path, the prover backend's for the other; never one for the other. */
static bool fits(const cs_prover *s, const cs_capacity *size, bool witness)
{
    if (witness)
        return s->cap_constraints == 0 && s->cap_inputs >= size->inputs && s->cap_aux >= size->aux;
    return cs_prover_fits(s, size);
}

/* The storage bytes a circuit of size needs on its path: those of a
 * storage of exactly its capacities (no a, b, c on the witness-only path). */
static uint64_t need_bytes(const cs_capacity *size, bool witness)
{
    cs_prover exact = {.cap_constraints = witness ? 0 : size->constraints + size->inputs,
                       .cap_inputs = size->inputs,
                       .cap_aux = size->aux};
    return cs_prover_storage_bytes(&exact);
}

/* Whether an entry of `bytes` is too large for a circuit that needs
 * `need` (POOL_SLACK). */
static bool too_large(uint64_t bytes, uint64_t need)
{
    return bytes > POOL_SMALL && bytes / POOL_SLACK > need;
}

uint64_t pool_take(prover_pool *p, const cs_capacity *size, bool witness, cs_prover *out)
{
    memset(out, 0, sizeof *out);
    uint64_t need = need_bytes(size, witness);
    pthread_mutex_lock(&p->lock);
    size_t best = p->n;
    for (size_t i = 0; i < p->n; i++)
        if (fits(&p->entries[i].storage, size, witness) && !too_large(p->entries[i].bytes, need) &&
            (best == p->n || p->entries[i].bytes < p->entries[best].bytes))
            best = i;
    if (best < p->n) {
        pool_entry e = remove_at(p, best);
        pthread_mutex_unlock(&p->lock);
        *out = e.storage;
        return e.bytes;
    }
    pool_entry gone[p->n ? p->n : 1];
    size_t n_gone = 0;
    for (size_t i = 0; i < p->n;)
        if (fits(&p->entries[i].storage, size, witness))
            i++; /* too large for this circuit, kept for the larger ones */
        else
            gone[n_gone++] = remove_at(p, i);
    pthread_mutex_unlock(&p->lock);
    drop(p, gone, n_gone);
    return 0;
}

uint64_t pool_put(prover_pool *p, cs_prover *s, uint64_t avail)
{
    if (p->max) cs_prover_trim(s);
    uint64_t bytes = cs_prover_storage_bytes(s);
    uint64_t extra = bytes > avail ? bytes - avail : 0;
    if (!p->max || !bytes || (extra && !budget_try_reserve(p->budget, extra, 0))) {
        cs_prover_free(s);
        return avail;
    }
    uint64_t rest = extra ? 0 : avail - bytes;
    pool_entry gone = {0};
    size_t n_gone = 0;
    bool keep = true;
    pthread_mutex_lock(&p->lock);
    if (p->n == p->max) { /* full: the cheapest to make again goes */
        size_t k = 0;
        for (size_t i = 1; i < p->n; i++)
            if (p->entries[i].bytes < p->entries[k].bytes) k = i;
        keep = bytes >= p->entries[k].bytes;
        if (keep) gone = remove_at(p, k), n_gone = 1;
    }
    if (keep) {
        p->entries[p->n++] = (pool_entry){*s, bytes};
        p->bytes += bytes;
    }
    pthread_mutex_unlock(&p->lock);
    if (!keep) {
        cs_prover_free(s);
        if (extra) budget_release(p->budget, extra);
        return avail;
    }
    memset(s, 0, sizeof *s);
    drop(p, &gone, n_gone);
    return rest;
}

uint64_t pool_evict(void *pool, uint64_t need)
{
    prover_pool *p = pool;
    pthread_mutex_lock(&p->lock);
    size_t n_gone = 0;
    uint64_t freed = 0;
    while (freed < need && n_gone < p->n) freed += p->entries[n_gone++].bytes;
    pool_entry gone[n_gone ? n_gone : 1];
    for (size_t i = 0; i < n_gone; i++) gone[i] = remove_at(p, 0);
    pthread_mutex_unlock(&p->lock);
    drop(p, gone, n_gone);
    return freed;
}

pool_stats pool_get_stats(prover_pool *p)
{
    pthread_mutex_lock(&p->lock);
    pool_stats s = {p->bytes, p->n};
    pthread_mutex_unlock(&p->lock);
    return s;
}
