/*
 * sdr.h - the native (out-of-circuit) computations of StackedDRG sealing
 * that feed the PoRep circuit, as rust-fil-proofs does them:
 *
 * - replica_id = SHA256(prover_id || sector_id u64 BE || ticket || comm_d
 *   || porep_id) with byte 31 &= 0x3f (stacked/vanilla/params.rs
 *   generate_replica_id, fr32 bytes_into_fr_repr_safe);
 * - prover_id from a miner actor id (Lotus: the id address payload, an
 *   unsigned LEB128 varint, zero-padded to 32 bytes);
 * - challenges (stacked/vanilla/challenges.rs): interactive challenge j =
 *   k * C + i is SHA256(replica_id || seed || j u32 LE) read as a 256-bit
 *   little-endian integer, mod (nodes - 1), plus 1; non-interactive uses
 *   SHA256("filecoin.io|PoRep|1|NonInteractive|1" || replica_id || comm_r
 *   || j u32 LE) the same way; synthetic PoRep selects among ChaCha20
 *   synthetic challenges (below);
 * - SDR labels (create_label/single.rs): label(layer, v) = SHA256(
 *   replica_id || layer u32 BE || v u64 BE || 20 zero bytes || 37 parent
 *   labels) with byte 31 &= 0x3f. Layer 1 hashes its 6 DRG parents six
 *   times then the first again; later layers hash the 14 parents (DRG from
 *   this layer, expander from the previous one) twice then the first 9.
 *   Node 0 hashes only the first 64 bytes. Labels are computed node after
 *   node, layer after layer (each depends on the previous node);
 * - encoding: replica node = data node + last-layer label in Fr;
 * - column hash: Poseidon (arity = layers: 2 or 11) over a node's labels.
 *
 * Nodes and labels are 32-byte little-endian field elements, stored
 * contiguously (node i at offset 32 i), one layer after another.
 */
#ifndef CUZK_FILECOIN_SDR_H
#define CUZK_FILECOIN_SDR_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/filecoin/graph.h"

void fc_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                   const uint8_t ticket[32], const uint8_t comm_d[32],
                   const uint8_t porep_id[FC_POREP_ID_BYTES]);
void fc_prover_id_from_miner(uint8_t out[32], uint64_t miner_id);

/* Challenges of partition k: out[0..per_partition). nodes >= 2. */
void fc_challenges_interactive(uint64_t *out, unsigned per_partition, unsigned k, uint64_t nodes,
                               const uint8_t replica_id[32], const uint8_t seed[32]);
void fc_challenges_ni(uint64_t *out, unsigned per_partition, unsigned k, uint64_t nodes,
                      const uint8_t replica_id[32], const uint8_t comm_r[32]);

/*
 * Synthetic PoRep (challenges.rs, mod synthetic): synthetic challenge i is
 * bytes [32 i, 32 i + 32) of ChaCha20 (nonce "synth-porep\0") keyed by
 * BLAKE2b-256 keyed "filecoin.io|PoRep|1|Synthetic|1|Generation" over
 * replica_id || comm_r, reduced as the interactive ones. Partition k's
 * porep challenges are the synthetic challenges at the indexes read as u32
 * LE from a second stream (key tag "...|Selection", over replica_id ||
 * seed) at offset 4 k C, mod the synthetic count (num_synth; 0 = the
 * default min(nodes, 2^18)).
 */
#define FC_SYNTH_CHALLENGES (1ULL << 18)
uint64_t fc_synth_challenge(const uint8_t replica_id[32], const uint8_t comm_r[32], uint64_t nodes,
                            uint64_t i);
void fc_challenges_synthetic(uint64_t *out, unsigned per_partition, unsigned k, uint64_t nodes,
                             uint64_t num_synth, const uint8_t replica_id[32],
                             const uint8_t comm_r[32], const uint8_t seed[32]);

/*
 * The label of `node` in `layer` (1-based): cur holds this layer's labels
 * of nodes < node, prev the previous layer (ignored for layer 1); parents
 * are the node's 14 cache entries.
 */
void fc_label_node(uint8_t out[32], const uint8_t replica_id[32], unsigned layer, uint64_t node,
                   const uint32_t parents[FC_DEGREE], const uint8_t *cur, const uint8_t *prev);

/* The 37 parent labels a label hashes, in order (LabelingProof.parents of
 * a vanilla proof): layer 1 repeats the 6 DRG parents, later layers the 14. */
void fc_label_parents(uint8_t out[FC_LABEL_PARENTS * FC_NODE_BYTES], unsigned layer,
                      const uint32_t parents[FC_DEGREE], const uint8_t *cur, const uint8_t *prev);

/* Fills entries [degree, 37) of out, whose first degree (6 in layer 1, 14
 * later) hold the node's parent labels, by repeating those cyclically. */
void fc_label_parents_repeat(uint8_t out[FC_LABEL_PARENTS * FC_NODE_BYTES], unsigned layer);

/* The label of `node` in `layer` from the 37 parent labels it hashes (as
 * fc_label_parents lays them out): what a verifier recomputes from a
 * labeling proof. Node 0 hashes none of them. */
void fc_label_from_parents(uint8_t out[32], const uint8_t replica_id[32], unsigned layer,
                           uint64_t node, const uint8_t parents[FC_LABEL_PARENTS * FC_NODE_BYTES]);

/*
 * All layers: labels[(layer - 1) * nodes * 32 ..] for layer 1..layers, with
 * the parent table from fc_parent_cache_build. Progress per layer
 * ("layer N").
 */
int fc_sdr_labels(const fc_graph *g, const uint32_t *parents, const uint8_t replica_id[32],
                  unsigned layers, uint8_t *labels, fc_progress_fn progress, void *progress_ctx,
                  cuzk_err *err);

/* replica[i] = data[i] + key[i] in Fr, for n nodes; fails on a
 * non-canonical data node (err names it). */
int fc_encode(uint8_t *replica, const uint8_t *data, const uint8_t *key, uint64_t n, cuzk_err *err);

/* Poseidon over node's labels in every layer (arity = layers, 2 or 11). */
void fc_column_hash(uint8_t out[32], const uint8_t *labels, uint64_t nodes, unsigned layers,
                    uint64_t node);

#endif
