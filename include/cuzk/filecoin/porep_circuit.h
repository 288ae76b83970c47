/*
 * porep_circuit.h - the StackedDRG PoRep circuit of one partition
 * (storage-proofs-porep stacked/circuit: proof.rs, params.rs, column.rs,
 * column_proof.rs, create_label.rs, hash.rs), allocation for allocation
 * and constraint for constraint, so that the official Groth16 parameters
 * fit it; and its public inputs computed natively, as
 * StackedCompound::generate_public_inputs does.
 *
 * A circuit is built either from a commit-phase-1 output (vanilla_c1: the
 * values of one partition's proofs) or from a shape alone (no values: for
 * setup, counting and recording). The shape is the sector's: nodes, SDR
 * layers, challenges per partition, the binary SHA-256 tree-D and the
 * Poseidon tree-R / tree-C (base arity, optional sub and top levels).
 *
 * Public inputs (after ONE): replica_id, comm_d, comm_r, then per
 * challenge 18: the tree-D path index (the challenge), the tree-C path
 * indexes of the 6 DRG and 8 expander parents, the challenge as a u64,
 * the tree-R and the tree-C path indexes (the challenge twice). Each path
 * index is one input while the tree has at most 254 leaves' bits, which
 * every Filecoin shape satisfies.
 */
#ifndef CUZK_FILECOIN_POREP_CIRCUIT_H
#define CUZK_FILECOIN_POREP_CIRCUIT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/filecoin/porep.h"
#include "cuzk/filecoin/vanilla.h"
#include "cuzk/fr.h"
#include "cuzk/gadgets/por.h"
#include "cuzk/r1cs.h"

/* Public inputs per challenge: 1 (tree-D) + 6 + 8 (parents' tree-C) + 1
 * (challenge) + 1 (tree-R) + 1 (tree-C). */
#define POREP_INPUTS_PER_CHALLENGE 18
/* replica_id, comm_d, comm_r. */
#define POREP_INPUTS_FIXED 3

typedef struct porep_shape {
    uint64_t nodes;
    unsigned layers;     /* SDR layers = column hash arity (2 or 11) */
    unsigned challenges; /* per partition */
    por_shape tree_d;    /* binary SHA-256, log2(nodes) levels */
    por_shape tree_r;    /* Poseidon tree-R and tree-C */
} porep_shape;

/* The shape of a Filecoin sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB). */
int porep_shape_for_size(porep_shape *s, uint64_t sector_size, cuzk_err *err);
/*
 * Any shape (rust-fil-proofs' test shapes): nodes a power of two, layers 2
 * or 11, tree-R/C arities powers of two with nodes = base_arity^k x sub x
 * top (0 for an absent level).
 */
int porep_shape_make(porep_shape *s, uint64_t nodes, unsigned layers, unsigned challenges,
                     unsigned base_arity, unsigned sub_arity, unsigned top_arity, cuzk_err *err);
/* Public inputs of one partition, ONE excluded: 3 + 18 x challenges. */
size_t porep_num_public_inputs(const porep_shape *s);

/* A circuit of one partition: c1 == NULL builds it without values. */
typedef struct porep_circuit {
    porep_shape shape;
    const vanilla_c1 *c1; /* must outlive the circuit's use */
    size_t partition;
} porep_circuit;

/* The circuit of partition k of c1 (the shape is c1's). */
int porep_circuit_init(porep_circuit *pc, const vanilla_c1 *c1, size_t partition, cuzk_err *err);
/* The blank circuit of a shape (blank_circuit: every value missing). */
void porep_circuit_blank(porep_circuit *pc, const porep_shape *s);
/* The cs_circuit reading *pc (which must outlive its use). */
cs_circuit porep_circuit_get(porep_circuit *pc);

/* What generate_public_inputs reads: the registered proof and the
 * commitments, all as their 32 little-endian bytes. */
typedef struct porep_public {
    const fc_porep_config *cfg;
    uint8_t replica_id[32], comm_d[32], comm_r[32], seed[32];
} porep_public;

/* The same from a C1 output. */
int porep_public_from_c1(porep_public *pub, const vanilla_c1 *c1, cuzk_err *err);
/*
 * out[0 .. porep_num_public_inputs) for partition k: the challenges of the
 * proof's kind (interactive from seed, synthetic, non-interactive from
 * comm_r), the graph's parents of each, and the commitments.
 */
int porep_public_inputs(fr_t *out, const porep_public *pub, size_t partition, cuzk_err *err);

#endif
