/*
 * por.h - Merkle inclusion (proof of retrievability) circuits of
 * storage-proofs-core (gadgets/por.rs), constraint for constraint: the
 * PoRCircuit used by StackedDRG and Fallback PoSt, and
 * por_no_challenge_input used by the empty-sector-update circuits.
 *
 * A tree has a base arity, and optionally one sub level and one top level
 * with their own arities (Filecoin's 8-0-0, 8-8-0, 8-8-2 shapes): the
 * path is `base_levels` base levels, then the sub level, then the top
 * level. Every arity is a power of two; a level's position is log2(arity)
 * bits of the challenge, least significant first, base levels first.
 *
 * One level of PoRCircuit (SubPath::synthesize) allocates the position
 * bits (AllocatedBit), then the arity - 1 siblings, inserts the current
 * node among them (select.h num_insert) and hashes the result. For
 * Poseidon, arity 8: 3 + 22 + 505 = 530 constraints.
 *
 * The node hash is a callback, so the same walk serves Poseidon trees
 * (por_poseidon_hasher) and SHA-256 trees (por_sha256_hasher).
 */
#ifndef CUZK_GADGETS_POR_H
#define CUZK_GADGETS_POR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/gadgets/boolean.h"
#include "cuzk/gadgets/num.h"
#include "cuzk/r1cs.h"

/* Longest path supported (levels, and challenge bits). */
#define POR_MAX_LEVELS 64
#define POR_MAX_ARITY  16

typedef struct por_shape {
    unsigned base_arity, sub_arity, top_arity; /* sub/top 0 when absent (top needs sub) */
    size_t base_levels;
} por_shape;

/* Levels and challenge bits of a path; 0 when the shape is invalid. */
size_t por_shape_levels(const por_shape *s);
size_t por_shape_bits(const por_shape *s);
/* The arity of level i (0..levels). */
unsigned por_shape_arity(const por_shape *s, size_t level);

/* hash_multi_leaf_circuit: the node over children[0..arity); height as
 * rust-fil-proofs passes it (Poseidon ignores it). */
typedef struct por_hasher {
    num_var (*hash)(cs_t *cs, void *ctx, const num_var *children, unsigned arity, size_t height);
    void *ctx;
} por_hasher;

/* Poseidon (neptune's legacy circuit, Standard constants); fails the cs on
 * an unsupported arity. */
por_hasher por_poseidon_hasher(void);
/*
 * SHA-256 (filecoin-hashers Sha256Function::hash_multi_leaf_circuit): each
 * child to 255 bits (to_bits_le) padded to 32 little-endian bytes, the
 * SHA-256 of their concatenation, its first 254 bits read little-endian
 * packed into a number (the digest with byte 31 & 0x3f). Tree-D levels.
 */
por_hasher por_sha256_hasher(void);

/* One path element: the position of the current node among its level's
 * children and the arity - 1 siblings' values (NULL when the backend does
 * not read values, e.g. for setup or counting). */
typedef struct por_level {
    uint32_t index;
    const fr_t *siblings;
} por_level;

/* storage-proofs-core's Root: an allocated number, or a value allocated
 * when needed (value may be NULL when values are not needed). */
typedef struct por_root {
    bool allocated;
    num_var num;
    const fr_t *value;
} por_root;

/*
 * PoRCircuit::synthesize: leaf, the path (por_shape_levels(s) levels),
 * pack_into_inputs of all position bits (one public input per 254 bits),
 * root allocated, computed root * ONE = root, and root made a public input
 * unless private_root. Returns 0 or the cs status (CUZK_EINVAL for a bad
 * shape).
 */
int por_circuit(cs_t *cs, const por_hasher *h, const por_shape *s, const por_root *leaf,
                const por_level *path, const por_root *root, bool private_root);

/*
 * Poseidon paths' traces computed ahead: for n paths of shape s (leaf
 * value leaves[i], levels paths[i]) that the calling thread's next
 * por_circuit calls with the Poseidon hasher will walk in this order, every
 * level's hash traced in the IFMA lanes (poseidon_trace_lanes: batches of
 * eight hashes of one arity from any paths and levels whose node below is
 * known) and queued for its poseidon_gadget_hash (poseidon_gadget_ahead):
 * the same values, a 32 GiB Window PoSt witness in 2.7x less CPU. False,
 * nothing queued, where it would not pay (no lanes, fewer
 * than two paths), without values, or out of memory. por_ahead_end after
 * the circuits (always safe) says how many traces no hash took (0 when
 * the circuits asked for exactly these, in this order).
 */
typedef struct por_ahead {
    void *mem;
} por_ahead;
bool por_ahead_paths(por_ahead *pa, const por_shape *s, const fr_t *const *leaves,
                     const por_level *const *paths, size_t n);
size_t por_ahead_end(por_ahead *pa);

/*
 * por_no_challenge_input: the path over given challenge bits
 * (por_shape_bits(s), least significant first, allocated), leaf, siblings
 * (levels x (arity - 1) allocated numbers, level after level) and root,
 * ending with computed root * ONE = root. Returns 0 or the cs status.
 */
int por_no_challenge_input(cs_t *cs, const por_hasher *h, const por_shape *s,
                           const bool_var *challenge_bits, const num_var *leaf,
                           const num_var *siblings, const num_var *root);

#endif
