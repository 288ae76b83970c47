/*
 * lanes.h - Poseidon eight hashes at a time in the lanes of AVX-512 IFMA
 * (hash_lanes.c; internal to src/poseidon). constants.c builds and frees
 * the tables with the constants; hash.c's poseidon_hash_batch calls
 * poseidon_lanes_hash when poseidon_lanes_on() says the CPU has them.
 */
#ifndef CUZK_POSEIDON_LANES_H
#define CUZK_POSEIDON_LANES_H

#include <stdbool.h>
#include <stddef.h>

#include "cuzk/poseidon.h"

/* c->lanes from c's preprocessed constants (NULL where the lanes are not
 * compiled in); CUZK_ENOMEM when memory runs out. */
int poseidon_lanes_build(poseidon_constants *c);
void poseidon_lanes_free(poseidon_constants *c);

/* Whether poseidon_hash_batch uses the lanes now (the CPU has AVX-512 F
 * and IFMA, and poseidon_use_lanes did not turn them off). */
bool poseidon_lanes_on(void);

/* out[i] = Poseidon(in[i * arity ..]) for i < n <= POSEIDON_LANES, as
 * poseidon_hash computes it. Only while poseidon_lanes_on(). */
void poseidon_lanes_hash(fr_t *out, const poseidon_constants *c, const fr_t *in, size_t n);
/* The traces of n <= POSEIDON_LANES hashes, hash k's at out[k]. Only
 * while poseidon_lanes_on(). */
void poseidon_lanes_trace(fr_t *const *out, const poseidon_constants *c, const fr_t *in, size_t n);

#endif
