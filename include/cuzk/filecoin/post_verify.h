/*
 * post_verify.h - the native check of Fallback PoSt vanilla proofs
 * (Winning and Window): everything the PoSt circuit (post_circuit.h) will
 * enforce on the sector proofs of a request, checked natively so that a
 * request no proof can be made from is refused before synthesis with the
 * fault named, instead of after proving and a failed self-verification.
 *
 * Per sector: the count of inclusion proofs (66 Winning, 10 Window), the
 * tree-R geometry of the sector size, comm_c and comm_r_last field
 * elements and comm_r = Poseidon-2(comm_c, comm_r_last). Per challenge:
 * the opened leaf is the one post_leaf_challenge derives from the
 * randomness, the sector id and the challenge index (Winning: n; Window
 * V1 / FC_API_V1_1: sector index x 10 + n over the whole proving set;
 * V1_2: n), the proof names comm_r_last as its root, and the leaf and its
 * path hash (Poseidon of each level's arity) to comm_r_last.
 */
#ifndef CUZK_FILECOIN_POST_VERIFY_H
#define CUZK_FILECOIN_POST_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/filecoin/post_circuit.h"
#include "cuzk/filecoin/vanilla.h"

/* What a PoSt request says besides its sector proofs. */
typedef struct fc_post_request {
    int kind;                  /* enum vanilla_post_kind */
    const post_shape *shape;   /* post_shape_for_size(kind, sector size) */
    int api_version;           /* enum fc_api_version: Window PoSt's challenge indexing */
    const uint8_t *randomness; /* 32 bytes */
    uint64_t first_sector;     /* Window PoSt: sectors[0]'s index in the proving set */
} fc_post_request;

/*
 * CUZK_OK when the circuit's constraints hold for every one of the n
 * sector proofs; CUZK_EVERIFY naming the first failure in (sector,
 * challenge) order, sectors numbered from 0 in `sectors`, e.g. "PoSt
 * sector 7 (id 1234), challenge 3 (leaf 56789): the tree-R path does not
 * hash to comm_r_last"; CUZK_EINVAL for a bad request (kind, no sectors,
 * Winning PoSt with more than one). Sectors and their challenges are
 * checked in parallel (OpenMP), each in full, none after a failure already
 * found; the message does not depend on the thread count.
 */
int fc_post_vanilla_verify(const fc_post_request *q, const vanilla_post_sector *sectors, size_t n,
                           cuzk_err *err);

#endif
