/*
 * pool.h - synthesized partitions' storage kept for the next synthesis.
 * A prover worker gives a partition's a, b, c, assignments and density
 * bitmaps to the pool once the backend has consumed them, instead of
 * freeing them; the next synthesis takes an entry with room for its
 * circuit and writes into pages that are already faulted in
 * (cs_synthesize_prover_into), where fresh memory costs the kernel a page
 * fault, a zeroed page and huge-page compaction per partition.
 *
 * The pool's entries stay charged to the memory budget (their storage
 * bytes at capacity), so the budget and GetStatus keep counting them. They
 * go back: to the budget's evictor first, before idle SRS (pool_evict);
 * when the pool is full (the oldest entry); and when a circuit finds no
 * entry with room (the entries too small for it are freed, never grown).
 */
#ifndef CUZK_ENGINE_POOL_H
#define CUZK_ENGINE_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "budget.h"
#include "cuzk/r1cs.h"

typedef struct pool_entry {
    cs_prover storage;
    uint64_t bytes; /* charged to the budget */
} pool_entry;

typedef struct prover_pool {
    pthread_mutex_t lock;
    budget *budget;
    pool_entry *entries; /* oldest first */
    size_t n, max;
    uint64_t bytes; /* sum of the entries' bytes */
} prover_pool;

/* A pool of at most max entries (0: it keeps none). */
int pool_init(prover_pool *p, budget *b, size_t max, cuzk_err *err);
/* Frees every entry and releases its bytes. */
void pool_destroy(prover_pool *p);
/*
 * For a circuit of size (cs_capacity, as engine_circuits.size): moves the
 * smallest entry with room into *out and returns its bytes, which stay
 * reserved and are now the caller's. witness: the circuit takes the
 * witness-only path, and only witness storage (no a, b, c) fits it; else
 * only the prover backend's. With none that fits, *out is left empty, the
 * entries that do not fit are freed (their bytes released) and 0 is
 * returned.
 */
uint64_t pool_take(prover_pool *p, const cs_capacity *size, bool witness, cs_prover *out);
/*
 * Gives *s's storage to the pool (*s is left empty), trimmed to the
 * circuit it holds. avail is what the caller holds reserved for it: the
 * entry keeps its storage bytes from
 * avail, or from a further reservation that must fit at once; when it
 * cannot, the storage is freed. Returns the part of avail the caller still
 * has to release.
 */
uint64_t pool_put(prover_pool *p, cs_prover *s, uint64_t avail);
/* The budget's evictor: frees the oldest entries until need bytes are
 * released; returns the bytes freed. */
uint64_t pool_evict(void *pool, uint64_t need);
typedef struct pool_stats {
    uint64_t bytes; /* held now */
    size_t entries;
} pool_stats;

pool_stats pool_get_stats(prover_pool *p);

#endif
