/*
 * seal.h - sealing a small sector (2KiB, 8MiB, 512MiB) end to end in
 * memory, as rust-fil-proofs' seal_pre_commit_phase1/2 do, to produce real
 * inputs for the PoRep circuit: parent table, tree-D and comm_d,
 * replica_id, SDR labels of every layer, column hashes and tree-C
 * (comm_c), the encoding and tree-R-last (comm_r_last), and comm_r =
 * Poseidon2(comm_c, comm_r_last) (proof.rs transform_and_replicate_layers).
 *
 * Everything a vanilla proof needs stays in the struct: tree-D's leaves are
 * the sector data, tree-R-last's leaves the sealed replica, tree-C's leaves
 * the column hashes; labels[(layer - 1) * nodes + i] is node i's label in a
 * layer. Memory is about 9 x the sector size (512MiB: 4.5 GiB).
 */
#ifndef CUZK_FILECOIN_SEAL_H
#define CUZK_FILECOIN_SEAL_H

#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/filecoin/graph.h"
#include "cuzk/filecoin/porep.h"
#include "cuzk/filecoin/tree.h"
#include "cuzk/filecoin/vanilla.h"

typedef struct fc_seal_input {
    const fc_porep_config *cfg; /* 8-0-0 shapes only: 2KiB, 8MiB, 512MiB */
    uint8_t prover_id[32];
    uint64_t sector_id;
    uint8_t ticket[32];
    const uint8_t *data; /* cfg->nodes x 32 bytes, each node a field element (fr32-padded) */
} fc_seal_input;

typedef struct fc_sealed {
    const fc_porep_config *cfg;
    fc_graph graph;
    uint32_t *parents; /* nodes x 14, the parent cache */
    uint8_t porep_id[FC_POREP_ID_BYTES], prover_id[32], ticket[32], replica_id[32];
    uint64_t sector_id;
    uint8_t *labels; /* layers x nodes x 32 */
    fc_tree tree_d, tree_c, tree_r;
    uint8_t comm_d[32], comm_c[32], comm_r_last[32], comm_r[32];
} fc_sealed;

int fc_seal(fc_sealed *s, const fc_seal_input *in, fc_progress_fn progress, void *progress_ctx,
            cuzk_err *err);
void fc_sealed_free(fc_sealed *s);

/* Pseudo-random sector data from a seed (xoshiro256**), each node's top
 * two bits cleared so it is a field element, as fr32 padding guarantees. */
void fc_seal_random_data(uint8_t *data, uint64_t nodes, uint64_t seed);

/*
 * Writes the sealed sector into dir (created if missing), with
 * rust-fil-proofs' cache file names: sc-02-data-tree-d.dat,
 * sc-02-data-layer-N.dat, sc-02-data-tree-c.dat, sc-02-data-tree-r-last.dat
 * (full trees, every row), plus unsealed.dat, sealed.dat and seal.json
 * (registered proof, ids and commitments as hex of their 32 LE bytes).
 */
int fc_sealed_write(const fc_sealed *s, const char *dir, cuzk_err *err);

/*
 * The commit-phase-1 output of a sealed sector (seal_c1.c): every vanilla
 * proof for the challenges of seed (interactive V1, V1_1; synthetic
 * selection) or of comm_r (NI), into a freshly allocated c1 (free with
 * vanilla_c1_free); write it with vanilla_c1_write_file.
 */
int fc_sealed_c1(vanilla_c1 *c1, const fc_sealed *s, const uint8_t seed[32], cuzk_err *err);

#endif
