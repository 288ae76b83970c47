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
 * when the pool is full (the smallest entry, the oldest of equal ones; a
 * new entry smaller than every one there is not kept: a small entry is
 * the cheapest to make again); and when a circuit finds no
 * entry with room (the entries too small for it are freed, never grown).
 *
 * A circuit never takes an entry more than POOL_SLACK times the storage
 * it needs (entries of at most POOL_SMALL bytes excepted): a Winning PoSt
 * of 370,000 constraints proved beside a PoRep stream would otherwise
 * take a 4 GiB PoRep partition's storage, which the next PoRep synthesis
 * then makes again from fresh pages. It allocates its own instead, and
 * the larger entries stay for the circuits they suit.
 */
#ifndef CUZK_ENGINE_POOL_H
#define CUZK_ENGINE_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "budget.h"
#include "cuzk/r1cs.h"

#define POOL_SLACK 4                    /* an entry at most this many times a circuit's need */
#define POOL_SMALL ((uint64_t)64 << 20) /* entries this small suit any circuit they hold */

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
 * reserved and are now the caller's; an entry too large for it (POOL_SLACK)
 * is not taken. witness: the circuit takes the
 * witness-only path, and only witness storage (no a, b, c) fits it; else
 * only the prover backend's. With none taken, *out is left empty, the
 * entries without room for it are freed (their bytes released; those too
 * large stay) and 0 is returned.
 */
uint64_t pool_take(prover_pool *p, const cs_capacity *size, bool witness, cs_prover *out);
/*
 * Gives *s's storage to the pool (*s is left empty), trimmed to the
 * circuit it holds; a full pool drops its smallest entry for it, or frees
 * *s instead when that is smaller still. avail is what the caller holds reserved for it: the
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
