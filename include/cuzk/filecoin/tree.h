/*
 * tree.h - the Merkle trees of a sealed sector, built natively: tree-D (a
 * binary SHA-256 tree over the data, filecoin-hashers Sha256Function: node
 * = SHA256(left || right) with byte 31 &= 0x3f) and tree-C / tree-R-last
 * (Poseidon trees of arity 8, node = Poseidon over the 8 children, neptune
 * Standard constants). Leaves are the nodes themselves (merkletree's leaf
 * hash is the identity).
 *
 * Storage is merkletree's DiskStore layout, which is also the layout of
 * Filecoin's tree cache files: every row, leaves first, root last, 32 bytes
 * per node, each row's nodes in order. Only single trees (shape 8-0-0, or
 * binary) are built: the sector sizes sealed here (2KiB..512MiB) need no
 * sub or top levels.
 */
#ifndef CUZK_FILECOIN_TREE_H
#define CUZK_FILECOIN_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/filecoin/porep.h"

#define FC_TREE_MAX_ROWS 40

enum fc_tree_hash { FC_TREE_SHA256 = 0, FC_TREE_POSEIDON = 1 };

typedef struct fc_tree {
    int hash;       /* enum fc_tree_hash */
    unsigned arity; /* children per node */
    unsigned rows;  /* leaves row included; root row last */
    uint64_t leaves;
    uint64_t row_start[FC_TREE_MAX_ROWS]; /* index of each row's first node */
    uint64_t len;                         /* all nodes */
    uint8_t *nodes;                       /* len x 32 bytes */
} fc_tree;

/*
 * Builds a tree over n leaves (32 bytes each, copied). n must be a power of
 * arity; SHA-256 trees are binary, Poseidon trees take arity 2, 4, 8 or 16.
 * Progress ("tree-d", or the name given) counts hashed nodes.
 */
int fc_tree_build(fc_tree *t, int hash, unsigned arity, const uint8_t *leaves, uint64_t n,
                  const char *stage, fc_progress_fn progress, void *progress_ctx, cuzk_err *err);
void fc_tree_free(fc_tree *t);

const uint8_t *fc_tree_root(const fc_tree *t);
const uint8_t *fc_tree_node(const fc_tree *t, unsigned row, uint64_t i);

/*
 * The inclusion path of a leaf: for each row below the root (rows - 1),
 * positions[r] = the node's index among its arity siblings, and
 * siblings + r * (arity - 1) * 32 holds the other arity - 1 children in
 * order. Either output may be NULL.
 */
void fc_tree_path(const fc_tree *t, uint64_t leaf, uint8_t *siblings, uint32_t *positions);
/* One node from its arity children (32 bytes each): SHA-256 with byte 31
 * &= 0x3f (trim_to_fr32), or Poseidon of the children as field elements
 * (they must be canonical). For the odd node; whole rows go through
 * fc_tree_build. */
void fc_tree_hash_node(uint8_t out[32], int hash, const uint8_t *children, unsigned arity);
/* n Poseidon nodes at once on the calling thread (poseidon_hash_batch's
 * lanes): node j from children[j * arity ..], canonical, arity <= 16. */
void fc_tree_hash_nodes(uint8_t *out, const uint8_t *children, unsigned arity, size_t n);
/* The root a leaf and such a path hash to (levels = rows - 1); 0, or
 * CUZK_ENOMEM when OpenSSL cannot provide SHA-256. */
int fc_tree_root_from_path(uint8_t root[32], int hash, unsigned arity, const uint8_t leaf[32],
                           const uint8_t *siblings, const uint32_t *positions, unsigned levels);

/* Writes all rows to path (the DiskStore layout). */
int fc_tree_write(const fc_tree *t, const char *path, cuzk_err *err);

#endif
