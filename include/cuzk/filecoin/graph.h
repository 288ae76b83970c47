/*
 * graph.h - the StackedDRG parent graph of Filecoin's PoRep, exactly as
 * storage-proofs-core drgraph.rs (BucketGraph) and storage-proofs-porep
 * stacked/vanilla/graph.rs (StackedBucketGraph) compute it.
 *
 * Each node has FC_BASE_DEGREE = 6 DRG parents in its own layer and
 * FC_EXP_DEGREE = 8 expander parents in the previous layer:
 * - DRG (bucket sampling): node v >= 2 seeds ChaCha8 with the first 28
 *   bytes of SHA256("Filecoin_DRSample" || porep_id) followed by v as u32
 *   LE, and draws 5 parents from the metagraph of v * 5 nodes (bucket,
 *   then distance); the 6th is the predecessor v - 1 (first parent from
 *   V1_1 on, last in V1). Nodes 0 and 1 have parents [0; 6].
 * - Expander: parent i of v is feistel_permute(8 * nodes, 8 v + i) / 8,
 *   a 3-round Feistel network over blake2b keyed by the first three u64 LE
 *   words of SHA256("Filecoin_Feistel" || porep_id) (V1 truncates the
 *   permuted index to u32 before dividing: the "pathology" of 32/64GiB).
 *
 * The parent cache is rust-fil-proofs' layout: per node 14 u32 little-
 * endian (6 DRG then 8 expander parents), nodes in order.
 */
#ifndef CUZK_FILECOIN_GRAPH_H
#define CUZK_FILECOIN_GRAPH_H

#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/filecoin/porep.h"

#define FC_BASE_DEGREE   6
#define FC_EXP_DEGREE    8
#define FC_DEGREE        14 /* FC_BASE_DEGREE + FC_EXP_DEGREE */
#define FC_LABEL_PARENTS 37 /* parents hashed per label: 6 x 6 + 1, or 14 + 14 + 9 */

typedef struct fc_graph {
    uint64_t nodes;
    int api_version;          /* enum fc_api_version */
    uint8_t drg_seed[28];     /* SHA256("Filecoin_DRSample" || porep_id)[0..28] */
    uint64_t feistel_keys[4]; /* SHA256("Filecoin_Feistel" || porep_id) as 4 u64 LE */
    uint64_t feistel_left_mask, feistel_right_mask, feistel_half_bits;
} fc_graph;

/* nodes must be a power of two from 2 to 2^31. */
int fc_graph_init(fc_graph *g, uint64_t nodes, const uint8_t porep_id[FC_POREP_ID_BYTES],
                  int api_version, cuzk_err *err);
/* The graph of a registered proof. */
int fc_graph_for(fc_graph *g, const fc_porep_config *cfg, cuzk_err *err);

void fc_graph_base_parents(const fc_graph *g, uint32_t node, uint32_t out[FC_BASE_DEGREE]);
void fc_graph_exp_parents(const fc_graph *g, uint32_t node, uint32_t out[FC_EXP_DEGREE]);
/* Both, in cache order (6 DRG then 8 expander). */
void fc_graph_parents(const fc_graph *g, uint32_t node, uint32_t out[FC_DEGREE]);

/* storage-proofs-core feistel::permute over [0, n) with the graph's keys
 * (exposed for tests). */
uint64_t fc_feistel_permute(const fc_graph *g, uint64_t n, uint64_t index);

/*
 * The whole parent table, nodes x 14 u32 in host order (little-endian on
 * every platform cuzk targets), built in parallel. *out is malloc'ed.
 */
int fc_parent_cache_build(const fc_graph *g, uint32_t **out, fc_progress_fn progress,
                          void *progress_ctx, cuzk_err *err);
/* SHA-256 of a table in its file layout: the check against parent_cache.json. */
void fc_parent_cache_digest(uint8_t out[32], const uint32_t *cache, uint64_t nodes);
/* Writes the table to path in the file layout (14 u32 LE per node). */
int fc_parent_cache_write(const char *path, const uint32_t *cache, uint64_t nodes, cuzk_err *err);

/*
 * Generates and writes the table chunk by chunk (bounded memory, any size),
 * returning its SHA-256 in digest.
 */
int fc_parent_cache_stream(const fc_graph *g, const char *path, uint8_t digest[32],
                           fc_progress_fn progress, void *progress_ctx, cuzk_err *err);
/* The parent_cache.json digest (hex) of a registered V1 / V1_1 graph of
 * that many nodes and porep_id; NULL when the manifest has none. */
const char *fc_parent_cache_known_digest(uint64_t nodes, const uint8_t porep_id[FC_POREP_ID_BYTES]);

#endif
