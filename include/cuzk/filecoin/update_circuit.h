/*
 * update_circuit.h - the Empty Sector Update (SnapDeals) circuit of one
 * partition (storage-proofs-update circuit.rs and gadgets.rs:
 * EmptySectorUpdateCircuit), allocation for allocation and constraint for
 * constraint, and its public inputs as circuit::PublicInputs::new builds
 * them.
 *
 * Public inputs (after ONE): k_and_h_select = k | h_select <<
 * partition_bits (h_select = 2^i for h = hs[i]), comm_r_old, comm_d_new,
 * comm_r_new. The circuit splits k_and_h_select into bits, checks
 * comm_r_{old,new} = Poseidon-2(comm_c, root_r_{old,new}), rebuilds the
 * partition's apex tree (SHA-256) from its apex leaves and proves it under
 * comm_d_new, derives the challenges' bits from Poseidon(comm_r_new,
 * digest index) with the HashType::Custom(Arbitrary(1)) constants, and
 * per challenge computes rho = Poseidon(phi, high bits of the challenge),
 * phi = Poseidon(comm_d_new, comm_r_old), label_r_new = label_r_old +
 * label_d_new x rho, and proves the leaves in tree-R-old, tree-R-new and
 * tree-D-new (up to the apex leaf selected by the challenge).
 *
 * Shapes are storage-proofs-update constants.rs' for every allowed sector
 * size: 1KiB..32KiB (test sizes), 8MiB, 16MiB, 512MiB, 32GiB, 64GiB; the
 * EmptySectorUpdate-Poseidon variant has its own shapes (below).
 */
#ifndef CUZK_FILECOIN_UPDATE_CIRCUIT_H
#define CUZK_FILECOIN_UPDATE_CIRCUIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/filecoin/vanilla.h"
#include "cuzk/fr.h"
#include "cuzk/gadgets/por.h"
#include "cuzk/r1cs.h"

/* constants.rs hs(): six allowed h values per sector size. */
#define UPDATE_HS 6
/* k_and_h_select, comm_r_old, comm_d_new, comm_r_new. */
#define UPDATE_PUBLIC_INPUTS 4

typedef struct update_shape {
    uint64_t nodes;          /* sector_nodes */
    unsigned challenge_bits; /* log2(nodes) */
    unsigned challenges;     /* per partition: 10 up to 16MiB, 86 above */
    unsigned partitions;     /* 1, 2, 4 or 16 */
    unsigned partition_bits; /* log2(partitions) */
    unsigned apex_leafs;     /* 8 up to 8KiB, 128 above */
    unsigned apex_bits;      /* log2(apex_leafs) */
    unsigned hs[UPDATE_HS];  /* [1; 6] up to 32KiB, else 7..12 */
    por_shape tree_r;        /* Poseidon 8-ary, validate_tree_r_shape's sub / top */
    bool poseidon;           /* the EmptySectorUpdate-Poseidon variant */
} update_shape;

/* PublicParams::from_sector_size; CUZK_EINVAL for a size not allowed. */
int update_shape_for_size(update_shape *s, uint64_t sector_size, cuzk_err *err);
/*
 * PublicParams::from_sector_size_poseidon (storage-proofs-update
 * poseidon/circuit.rs): one partition of challenge_count x partition_count
 * challenges over the whole sector, no apex tree, tree-D-new a Poseidon
 * tree of tree-R's shape proven up to comm_d_new; the first public input
 * is h_select alone. Its vanilla proofs take tree_d with tree-R's geometry
 * and no apex leaves.
 */
int update_shape_for_size_poseidon(update_shape *s, uint64_t sector_size, cuzk_err *err);

/* What the public inputs are built from (vanilla PublicInputs). */
typedef struct update_public {
    uint64_t k; /* partition index */
    unsigned h; /* high bits taken from each challenge: one of hs */
    vanilla_node comm_r_old, comm_d_new, comm_r_new;
} update_public;

/* PublicInputs::new(..).to_vec(): the UPDATE_PUBLIC_INPUTS field elements. */
int update_public_inputs(fr_t out[UPDATE_PUBLIC_INPUTS], const update_shape *s,
                         const update_public *pub, cuzk_err *err);

/* One partition's circuit; vanilla == NULL builds it without values. */
typedef struct update_circuit {
    update_shape shape;
    const vanilla_update_partition *vanilla; /* must outlive the circuit's use */
    fr_t inputs[UPDATE_PUBLIC_INPUTS];
} update_circuit;

/* Checks the partition proof against the shape (counts, path geometry, the
 * shared partition path, canonical values) and the public inputs. */
int update_circuit_init(update_circuit *uc, const update_shape *s,
                        const vanilla_update_partition *vanilla, const update_public *pub,
                        cuzk_err *err);
void update_circuit_blank(update_circuit *uc, const update_shape *s);
cs_circuit update_circuit_get(update_circuit *uc);

/* vanilla.rs phi = Poseidon-gen-randomness(comm_d_new, comm_r_old), rho =
 * Poseidon-gen-randomness(phi, high); natively, for encoding and checks. */
void update_phi(fr_t *phi, const fr_t *comm_d_new, const fr_t *comm_r_old);
void update_rho(fr_t *rho, const fr_t *phi, uint64_t high);
/* challenges.rs Challenges::new: the s->challenges challenges of partition
 * k, into out. */
void update_challenges(uint32_t *out, const update_shape *s, const fr_t *comm_r_new, uint64_t k);

#endif
