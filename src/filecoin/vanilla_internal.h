/*
 * vanilla_internal.h - what the vanilla proof sources share: proof-block
 * allocation, path geometry helpers, the streaming base64 codec and the
 * Merkle-path checks used by the JSON and bincode readers alike.
 */
#ifndef CUZK_VANILLA_INTERNAL_H
#define CUZK_VANILLA_INTERNAL_H

#include "cuzk/filecoin/vanilla.h"

/* Sibling offset of level l in a path's hashes. */
unsigned vanilla_level_offset(const vanilla_tree *t, unsigned level);
/* Weight of level l's index in the leaf position: product of the arities below it. */
uint64_t vanilla_level_weight(const vanilla_tree *t, unsigned level);
/* The ProofData variant a tree's proofs use: 0 Single, 1 Sub, 2 Top. */
int vanilla_tree_variant(const vanilla_tree *t);
extern const char *const vanilla_variant_names[3];

/* comm_r = Poseidon-2(comm_c, comm_r_last) (filecoin-hashers hash2, neptune arity 2). */
void vanilla_comm_r(vanilla_node *comm_r, const vanilla_node *comm_c,
                    const vanilla_node *comm_r_last);
bool vanilla_comm_r_matches(const vanilla_node *comm_r, const vanilla_node *comm_c,
                            const vanilla_node *comm_r_last);

/* Nodes one challenge's proof of a C1 holds. */
size_t vanilla_porep_nodes_per_challenge(const vanilla_c1 *c1);
/* Appends one zeroed, wired partition block to c1 (c1->partitions grows). */
int vanilla_c1_add_partition(vanilla_c1 *c1, cuzk_err *err);
/* Sets shape and trees of c1 for a sector shape (no allocation). */
void vanilla_c1_set_shape(vanilla_c1 *c1, const vanilla_shape *s);

/* Streaming base64 (standard alphabet, padded, canonical as Rust's STANDARD engine). */
typedef struct vanilla_b64dec {
    uint32_t acc;   /* bits of the current quantum */
    unsigned nq;    /* characters in it */
    unsigned npad;  /* '=' seen */
    uint64_t chars; /* characters consumed */
} vanilla_b64dec;

/* Decodes n characters into out (room for 3 * (n / 4 + 1) bytes); returns the
 * bytes written, or -1 with err set (the message names the character offset). */
long vanilla_b64_decode(vanilla_b64dec *d, const char *in, size_t n, uint8_t *out, cuzk_err *err);
/* Checks the input ended on a quantum boundary. */
int vanilla_b64_finish(const vanilla_b64dec *d, cuzk_err *err);
/* Encodes whole 3-byte groups of in (n % 3 == 0 unless last); returns chars written. */
size_t vanilla_b64_encode(const uint8_t *in, size_t n, char *out);

#endif
