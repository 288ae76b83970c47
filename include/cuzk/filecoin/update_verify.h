/*
 * update_verify.h - the native check of a SnapDeals (Empty Sector Update)
 * vanilla proof, every partition: everything the update circuit
 * (update_circuit.h) will enforce on the partition proofs, checked
 * natively, so that a request no proof can be made from is refused
 * before synthesis with the fault named.
 *
 * Per partition k: comm_r_old = Poseidon-2(comm_c, the tree-R-old root),
 * comm_r_new likewise with the tree-R-new root, and (but for the Poseidon
 * variant) the apex leaves hash, as a binary SHA-256 tree and up challenge
 * 0's tree-D path above them, to comm_d_new. Per challenge i: its node is
 * update_challenges(comm_r_new, k)[i] in all three paths; the tree-R-old
 * and tree-R-new paths hash to those roots, the tree-D-new path to
 * comm_d_new through the apex leaf the challenge selects; and the new
 * replica leaf is old + new data
 * x rho(phi, the node's high h bits), phi = Poseidon(comm_d_new,
 * comm_r_old).
 */
#ifndef CUZK_FILECOIN_UPDATE_VERIFY_H
#define CUZK_FILECOIN_UPDATE_VERIFY_H

#include <stddef.h>

#include "cuzk/err.h"
#include "cuzk/filecoin/update_circuit.h"

/*
 * CUZK_OK when parts[0..n) (parts[k] partition k) hold for pub's h and
 * commitments (pub->k is not read); CUZK_EVERIFY naming the first failure
 * in (partition, challenge) order, e.g. "update partition 3, challenge 7
 * (node 123456): the tree-R-new path does not hash to the root in
 * comm_r_new"; CUZK_EINVAL for the wrong number of partitions, proofs of
 * another shape, an h not the shape's or a commitment not below r.
 * Partitions and challenges are checked in parallel (OpenMP), every one
 * in full; the message does not depend on the thread count.
 */
int fc_update_verify(const update_shape *s, const update_public *pub,
                     const vanilla_update_partition *parts, size_t n, cuzk_err *err);

#endif
