/*
 * vanilla_verify.h - the native check of a PoRep commit-phase-1 output:
 * everything the StackedDRG circuit (porep_circuit.h) will enforce on the
 * C1's values, checked natively so that a C1 no proof can be made from is
 * refused before synthesis with the fault named, instead of after minutes
 * of proving and a failed self-verification.
 *
 * Per challenge: the challenge indexes derived as the public inputs derive
 * them (from replica_id and the seed, the synthetic selection, or comm_r
 * for NI), the graph's parents of each challenge, every tree-D, tree-C and
 * tree-R-last opening against comm_d, comm_c and comm_r_last, every label
 * against its parents' labels, the encoding of the last label with the
 * data into the replica leaf; and comm_r = Poseidon(comm_c, comm_r_last).
 */
#ifndef CUZK_FILECOIN_VANILLA_VERIFY_H
#define CUZK_FILECOIN_VANILLA_VERIFY_H

#include "cuzk/err.h"
#include "cuzk/filecoin/vanilla.h"

/*
 * CUZK_OK when the circuit's constraints hold for every partition of c1;
 * CUZK_EVERIFY naming the first failure in (partition, challenge) order,
 * e.g. "C1 partition 3, challenge 7 (node 123456): the layer 5 label does
 * not match its parents"; another code for a C1 of the wrong shape or out
 * of memory. Challenges are checked in parallel (OpenMP), each in full.
 */
int fc_porep_c1_verify(const vanilla_c1 *c1, cuzk_err *err);

#endif
