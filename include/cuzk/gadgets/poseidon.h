/*
 * poseidon.h (gadgets) - neptune v11's legacy Poseidon circuit
 * (circuit.rs poseidon_hash, the one Filecoin's circuits and parameters
 * use), allocation for allocation and constraint for constraint.
 *
 * The state is kept as neptune's Elt: either an allocated number or a
 * linear combination with its value. The domain tag's first S-box is a
 * constant; each other S-box allocates its input if it is a combination
 * (lc * ONE = x), then x^2, x^4 and x^5 + key (with the first round's key
 * added inside the squaring: (x + k)^2, x^4 * (x + k) + k'); the matrix
 * products (dense, pre-sparse, sparse, with neptune's compressed constants
 * and sparse matrices) only build combinations. The output element is
 * allocated at the end. Costs 3 (t RF + RP - 1) + t RF + RP - arity
 * constraints: 311 / 377 / 505 / 598 for arity 2 / 4 / 8 / 11 (Standard).
 *
 * Each constraint follows exactly one allocation (its result). Values are
 * computed only when the backend reads them (cs_needs_values).
 */
#ifndef CUZK_GADGETS_POSEIDON_H
#define CUZK_GADGETS_POSEIDON_H

#include "cuzk/gadgets/num.h"
#include "cuzk/poseidon.h"
#include "cuzk/r1cs.h"

/*
 * The hash of preimage[0..c->arity) (HashType::MerkleTree), allocated.
 * Replays the circuit recorded once per (arity, strength) from the walk
 * below (the coefficients do not depend on the values) with the values of
 * a traced native hash: the same R1CS, several times faster. Constants
 * with a custom domain tag are walked instead. On failure
 * (out of memory) the cs is failed (cs_status) and the result meaningless.
 */
num_var poseidon_gadget_hash(cs_t *cs, const poseidon_constants *c, const num_var *preimage);

/* A trace computed ahead for a later poseidon_gadget_hash on the same
 * thread: its constants, preimage (arity values) and poseidon_trace. */
typedef struct poseidon_ahead {
    const poseidon_constants *c;
    const fr_t *preimage, *trace;
} poseidon_ahead;

/* The calling thread's next n hashes' traces, a[0] first (n 0: none):
 * the k-th hash from now takes a[k] when its constants and preimage are
 * that hash's, and is traced as usual otherwise (the same values either
 * way). a must outlive its use: poseidon_gadget_ahead(NULL, 0) before it
 * goes. */
void poseidon_gadget_ahead(const poseidon_ahead *a, size_t n);
/* How many of them no hash has taken yet. */
size_t poseidon_gadget_ahead_left(void);

/* The same by walking neptune's code: Elt combinations built and merged
 * term by term. The reference the replay is recorded from (and tested
 * against). */
num_var poseidon_gadget_hash_walk(cs_t *cs, const poseidon_constants *c, const num_var *preimage);

/* Constraints (= allocations) poseidon_gadget_hash adds for these constants. */
size_t poseidon_gadget_constraints(const poseidon_constants *c);

/*
 * filecoin-hashers' hash_md_circuit: elements[0], then per chunk of up to
 * 35 elements the Poseidon-36 circuit over (acc, chunk), missing positions
 * filled with newly allocated zeros (no constraint). n >= 2.
 */
num_var poseidon_gadget_hash_md(cs_t *cs, const num_var *elements, size_t n);

#endif
