/*
 * ptree.h - native Poseidon Merkle trees for the circuit tests (PoSt,
 * SnapDeals): built over given leaves with a por_shape's per-level
 * arities (base trees contiguous, as merkletree lays compound trees out),
 * and inclusion proofs in the vanilla_merkle layout. Include after
 * testutil.h in one test file.
 */
#ifndef CUZK_TEST_PTREE_H
#define CUZK_TEST_PTREE_H

#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/vanilla.h"
#include "cuzk/gadgets/por.h"
#include "cuzk/poseidon.h"

/* row[0] the leaves, row[levels] the root. */
typedef struct ptree {
    por_shape shape;
    size_t levels;
    fr_t *row[POR_MAX_LEVELS + 1];
} ptree;

static void ptree_build(ptree *t, const por_shape *s, const fr_t *leaves, size_t n)
{
    t->shape = *s;
    t->levels = por_shape_levels(s);
    t->row[0] = malloc(n * sizeof(fr_t));
    assert_non_null(t->row[0]);
    memcpy(t->row[0], leaves, n * sizeof(fr_t));
    for (size_t l = 0; l < t->levels; l++) {
        unsigned a = por_shape_arity(s, l);
        n /= a;
        t->row[l + 1] = malloc(n * sizeof(fr_t));
        assert_non_null(t->row[l + 1]);
        for (size_t p = 0; p < n; p++)
            poseidon_hash(&t->row[l + 1][p], poseidon_std(a), &t->row[l][p * a]);
    }
}

static void ptree_free(ptree *t)
{
    for (size_t l = 0; l <= t->levels; l++) free(t->row[l]);
}

static void ptree_proof(const ptree *t, uint64_t leaf, vanilla_merkle *m)
{
    m->index = leaf;
    fr_to_bytes_le(m->leaf.b, &t->row[0][leaf]);
    fr_to_bytes_le(m->root.b, &t->row[t->levels][0]);
    size_t off = 0;
    for (size_t l = 0; l < t->levels; l++) {
        unsigned a = por_shape_arity(&t->shape, l);
        uint64_t group = leaf / a * a;
        for (unsigned k = 0; k < a; k++)
            if (group + k != leaf) fr_to_bytes_le(m->hashes[off++].b, &t->row[l][group + k]);
        leaf /= a;
    }
}

#endif
