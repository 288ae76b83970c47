/*
 * path_roots.h - the Poseidon roots of many Merkle paths at once, for the
 * native checks of PoRep (tree-C, tree-R), PoSt and SnapDeals (tree-R)
 * vanilla proofs (internal to src/filecoin; path_roots.c says how).
 */
#ifndef CUZK_PATH_ROOTS_H
#define CUZK_PATH_ROOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin/vanilla.h"

/* One path to hash: in m, leaf, tree; out root, ok. */
typedef struct path_job {
    const vanilla_merkle *m;  /* the path: its index and siblings */
    const vanilla_node *leaf; /* the value hashed up it (m->leaf, or a column's hash) */
    unsigned tree;            /* which of the memo's trees it is in (0 without one) */
    vanilla_node root;        /* the root it hashes to, when ok */
    bool ok;                  /* false: the leaf or a sibling is not a field element */
} path_job;

/* A thread's memo of the upper levels of `trees` trees of one geometry. */
typedef struct path_memo path_memo;

/*
 * A memo for trees of geometry t over `leaves` leaves, remembering the
 * levels that have at most max_nodes nodes (the paths of one tree meet
 * there); NULL when out of memory (then path_roots runs without one).
 */
path_memo *path_memo_new(const vanilla_tree *t, uint64_t leaves, unsigned trees, size_t max_nodes);
void path_memo_free(path_memo *m);

/* The roots of jobs[0..n), all of geometry t, through memo (may be NULL). */
void path_roots(path_job *jobs, size_t n, const vanilla_tree *t, path_memo *memo);

#endif
