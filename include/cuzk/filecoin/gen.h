/*
 * gen.h - real vanilla proofs, made as rust-fil-proofs makes them, for
 * tests and benchmarks: the test sector of a seed (sealed with seal.h),
 * Fallback PoSt sector proofs (Winning and Window) over a sector's
 * tree-R-last, and the SnapDeals update of a sector (new data encoded into
 * the replica) with every partition's proof.
 *
 * Sectors come from a seed (fc_seal_test_sector) or from a directory
 * cuzk-seal wrote (fc_replica_read); sealing itself is seal.h's (8-0-0
 * shapes: 2KiB, 8MiB, 512MiB), and PoRep's C1 is seal.h's fc_sealed_c1.
 * PoRep C1s of any size, 32GiB and 64GiB too, come from sparse
 * committed-capacity sectors (fc_sparse_c1): only the challenged nodes
 * and their parents are computed, everything else is pseudo-random; so do
 * PoSt sector proofs (fc_sparse_post_sectors: only the challenged paths).
 * SnapDeals updates of any size come from structured test sectors
 * (fc_sparse_update: periodic old replica and new data, whose trees have
 * few distinct nodes).
 * Trees here are fc_ptree: Poseidon trees of any por_shape (8-ary base
 * levels, optional sub and top levels, so the circuit tests' shapes work
 * too), with the base trees over contiguous leaf ranges as merkletree
 * lays compound trees out, and their inclusion proofs in the
 * vanilla_merkle layout the circuits read. tree.h's fc_tree stays the
 * store of sealing (single trees, raw bytes); these keep field elements,
 * which the encoding and the proofs work in.
 *
 * What is derived where (rust-fil-proofs):
 * - PoSt challenges: post_leaf_challenge of (randomness, sector id,
 *   challenge index), the index being sector_index x challenges + n for
 *   FC_API_V1_0 / V1_1 and n for V1_2 (fallback::generate_leaf_challenges;
 *   Winning PoSt is one sector at index 0 with 66 challenges);
 * - SnapDeals (storage-proofs-update vanilla.rs): comm_d_new = tree-D over
 *   the new data (SHA-256 binary; tree-R's shape for the Poseidon variant),
 *   comm_r_old = Poseidon-2(comm_c, root of tree-R-old), phi =
 *   update_phi(comm_d_new, comm_r_old), replica_new[i] = replica_old[i] +
 *   data_new[i] x update_rho(phi, i >> (challenge_bits - h)), comm_r_new =
 *   Poseidon-2(comm_c, root of tree-R-new); partition k proves
 *   update_challenges(comm_r_new, k) in the three trees and carries its
 *   apex leaves (row challenge_bits - partition_bits - apex_bits of tree-D).
 */
#ifndef CUZK_FILECOIN_GEN_H
#define CUZK_FILECOIN_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/filecoin/post_circuit.h"
#include "cuzk/filecoin/seal.h"
#include "cuzk/filecoin/update_circuit.h"
#include "cuzk/fr.h"
#include "cuzk/gadgets/por.h"

/* ---- Poseidon trees of any tree-R shape (gen_tree.c) ---- */

typedef struct fc_ptree {
    por_shape shape;
    size_t levels;                 /* por_shape_levels(&shape) */
    fr_t *row[POR_MAX_LEVELS + 1]; /* row[0] the leaves, row[levels] the root */
} fc_ptree;

/* Builds the tree over n leaves (n = the product of the shape's arities);
 * progress (may be NULL) counts hashed nodes under the stage's name. */
int fc_ptree_build(fc_ptree *t, const por_shape *s, const fr_t *leaves, uint64_t n,
                   const char *stage, fc_progress_fn progress, void *progress_ctx, cuzk_err *err);
void fc_ptree_free(fc_ptree *t);
const fr_t *fc_ptree_root(const fc_ptree *t);
/* The inclusion proof of a leaf into m (m->hashes sized for the shape). */
void fc_ptree_proof(const fc_ptree *t, uint64_t leaf, vanilla_merkle *m);
/* Leaves from 32-byte little-endian nodes (CUZK_ENONCANONICAL names the node). */
int fc_nodes_to_fr(fr_t *out, const uint8_t *nodes, uint64_t n, const char *what, cuzk_err *err);

/* ---- Fallback PoSt (gen_post.c) ---- */

/* A sector as its PoSt prover holds it. */
typedef struct fc_post_replica {
    uint64_t sector_id;
    vanilla_node comm_c;
    const fc_ptree *tree_r; /* tree-R-last over the replica */
} fc_post_replica;

/*
 * The FallbackPoStSectorProof of one sector (comm_r = Poseidon-2(comm_c,
 * comm_r_last)), into a freshly allocated *out: Winning PoSt's 66
 * inclusion proofs (kind VANILLA_POST_WINNING), or Window PoSt's
 * s->challenges for the sector at sector_index of the whole proving set.
 * s gives the node count and tree shape (post_shape_for_size or a test
 * shape); api_version is enum fc_api_version.
 */
int fc_gen_post_sector(vanilla_post_sector *out, int kind, const post_shape *s, int api_version,
                       const uint8_t randomness[32], const fc_post_replica *r,
                       uint64_t sector_index, cuzk_err *err);

/* ---- SnapDeals (gen_update.c) ---- */

typedef struct fc_update {
    update_shape shape;
    unsigned h; /* one of shape.hs */
    vanilla_node comm_c, comm_r_old, comm_d_new, comm_r_new;
    fr_t *replica_new; /* shape.nodes encoded nodes */
    size_t n_partitions;
    vanilla_update_partition *parts; /* parts[k]: partition k's proof */
} fc_update;

/*
 * Encodes data_new into replica_old (shape.nodes field elements each) and
 * proves every partition, reporting progress per tree, the encoding and
 * the partitions (progress may be NULL). Free with fc_update_free.
 */
int fc_gen_update(fc_update *u, const update_shape *s, unsigned h, const fr_t *replica_old,
                  const vanilla_node *comm_c, const fr_t *data_new, fc_progress_fn progress,
                  void *progress_ctx, cuzk_err *err);
void fc_update_free(fc_update *u);
/* Partition k's public values (update_public) of an update. */
update_public fc_update_public(const fc_update *u, uint64_t k);
/* An empty, shaped partition proof for any update_shape (Filecoin's sizes
 * as vanilla_update_alloc lays them out; free with vanilla_update_free). */
int fc_update_partition_alloc(vanilla_update_partition *p, const update_shape *s, cuzk_err *err);

/* ---- sparse SnapDeals updates (gen_sparse_update.c) ---- */

/*
 * The update, with every partition's proof, of a structured test sector
 * of any size (32GiB and 64GiB too) in under a CPU-second (TEST DATA:
 * no sealed sector behind it): old replica and new data pseudo-random from
 * the seed with a period P (P = min(64, 2^(challenge_bits - h)) nodes),
 * comm_c pseudo-random, every tree the true tree over its leaves, only
 * each level's few distinct nodes computed. u->replica_new stays NULL;
 * everything else is exactly fc_gen_update's over fc_sparse_update_sector's
 * sector. Why not pseudo-random wherever unopened: gen_sparse_update.c.
 */
int fc_sparse_update(fc_update *u, const update_shape *s, unsigned h, uint64_t seed, cuzk_err *err);
/* That sector whole: s->nodes old replica and new data nodes, and comm_c. */
int fc_sparse_update_sector(fr_t *replica_old, fr_t *data_new, vanilla_node *comm_c,
                            const update_shape *s, unsigned h, uint64_t seed, cuzk_err *err);

/* ---- test sectors (gen_sector.c) ---- */

/* The sector cuzk-seal seal and cuzk-bench gen-vanilla make from a seed. */
typedef struct fc_test_sector {
    const fc_porep_config *cfg; /* sealed: 8-0-0 shapes (2KiB, 8MiB, 512MiB); sparse: any */
    uint64_t seed, sector_id, miner;
    const char *data_path; /* the unsealed fr32 sector, or NULL: random from seed */
    bool cc;               /* committed capacity: all-zero data (no data_path) */
} fc_test_sector;

/* Its prover id (the miner's, LEB128), ticket and interactive PoRep seed. */
void fc_test_sector_ids(const fc_test_sector *t, uint8_t prover_id[32], uint8_t ticket[32],
                        uint8_t seed[32]);
/* Seals it with those ids. */
int fc_seal_test_sector(fc_sealed *s, const fc_test_sector *t, fc_progress_fn progress,
                        void *progress_ctx, cuzk_err *err);
/* Its commit-phase-1 output, the interactive seed drawn from the seed. */
int fc_test_sector_c1(vanilla_c1 *c1, const fc_sealed *s, uint64_t seed, cuzk_err *err);
/* A canonical 32-byte value (top two bits clear) drawn from seed ^ tag. */
void fc_test_bytes(uint8_t out[32], uint64_t seed, uint64_t tag);

/* ---- sparse committed-capacity sectors (gen_sparse.c) ---- */

/*
 * The commit-phase-1 output of t's sector as a committed-capacity sector
 * (t->cc implied, no data_path) of any size, 32GiB and 64GiB included,
 * computing only what the challenges open (TEST DATA: no sector behind
 * it). comm_d (the all-zero tree's root), replica_id and the interactive
 * challenges are exactly those of sealing that sector (fc_seal_test_sector
 * with cc); each challenged node's label in every layer follows the SDR
 * rule from its parents' labels; every other label, and every tree-C /
 * tree-R-last node off the opened paths, is a pseudo-random function of
 * (seed, replica_id), so the proofs hash to their roots and comm_r =
 * Poseidon-2(comm_c, comm_r_last): a C1 that proves and verifies as a
 * sealed sector's. Memory and time grow with the challenges (32GiB: 180),
 * not the sector. Interactive kinds only (V1, V1_1): Synthetic and NI
 * challenges derive from comm_r, which commits to every node, and are
 * refused (CUZK_EUNSUPPORTED).
 */
int fc_sparse_c1(vanilla_c1 *c1, const fc_test_sector *t, cuzk_err *err);

/* ---- sparse committed-capacity sectors for PoSt (gen_sparse_post.c) ---- */

/* A set of sparse sectors' PoSt proofs: sector i has seed + i, id sector_id + i. */
typedef struct fc_sparse_post {
    int kind;                  /* enum vanilla_post_kind */
    const post_shape *shape;   /* post_shape_for_size's (a Filecoin sector size) */
    int api_version;           /* enum fc_api_version, as fc_gen_post_sector */
    const uint8_t *randomness; /* 32 bytes */
    uint64_t seed, sector_id;
    uint64_t first_sector; /* Window PoSt V1: sector 0's index in the proving set */
} fc_sparse_post;

/*
 * The FallbackPoStSectorProofs of n sparse committed-capacity sectors
 * (Winning PoSt: n = 1) of any size, 32GiB and 64GiB included (TEST DATA:
 * no sector behind them): the challenged leaves are those of a sealed
 * sector with the same id under the same randomness (fc_gen_post_sector's
 * indexing); tree-R-last is computed only along their paths, every other
 * node and every leaf pseudo-random from (sector id, seed), so the paths
 * hash to comm_r_last and comm_r = Poseidon-2(comm_c, comm_r_last): proofs
 * that prove and verify as a sealed sector's. About 90 Poseidon hashes a
 * Window PoSt sector; sectors in parallel (OpenMP). Free each out[i] with
 * vanilla_post_sector_free.
 */
int fc_sparse_post_sectors(vanilla_post_sector *out, size_t n, const fc_sparse_post *g,
                           cuzk_err *err);

/* ---- sealed replicas, as PoSt and SnapDeals provers hold them (gen_replica.c) ---- */

typedef struct fc_replica {
    uint64_t sector_id, sector_size;
    vanilla_node comm_c, comm_r;
    fr_t *nodes;     /* sector_size / 32 replica nodes: tree-R-last's leaves */
    fc_ptree tree_r; /* tree-R-last over them (post_shape_for_size's shape) */
} fc_replica;

/* From a sealed sector in memory (progress: building tree-R-last; may be NULL). */
int fc_replica_from_sealed(fc_replica *r, const fc_sealed *s, fc_progress_fn progress,
                           void *progress_ctx, cuzk_err *err);
/*
 * From a directory fc_sealed_write wrote (cuzk-seal seal -o DIR): the
 * sector id, comm_c and comm_r of seal.json, the nodes of sealed.dat.
 * Either way comm_r must be Poseidon-2(comm_c, tree-R-last's root).
 */
int fc_replica_read(fc_replica *r, const char *dir, fc_progress_fn progress, void *progress_ctx,
                    cuzk_err *err);
void fc_replica_free(fc_replica *r);
/* The PoSt generator's view of it (pointing into r). */
fc_post_replica fc_replica_post(const fc_replica *r);

/* A progress bar on stderr (an fc_progress_fn): one line per stage. */
void fc_progress_bar(void *ctx, const char *stage, uint64_t done, uint64_t total);

#endif
