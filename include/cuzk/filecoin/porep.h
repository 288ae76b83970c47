/*
 * porep.h - Filecoin's registered seal proofs (StackedDRG PoRep) and their
 * parameters, as filecoin-proofs-api's registry.rs and filecoin-proofs'
 * constants.rs define them: sector size, nodes, layers, partitions,
 * challenges per partition, tree-R/C arities (base-sub-top), the API
 * version that selects the graph's parent ordering, and the porep_id.
 *
 * Registered proof ids (REGISTERED_PROOF_IDS): V1 0..4, V1_1 5..9,
 * V1_1 SyntheticPoRep 10..14, V1_2 NonInteractivePoRep 15..19, each group
 * in the order 2KiB, 8MiB, 512MiB, 32GiB, 64GiB. porep_id = the id as u64
 * little-endian in bytes 0..8, the nonce (always 0) in bytes 8..16, zeros.
 */
#ifndef CUZK_FILECOIN_POREP_H
#define CUZK_FILECOIN_POREP_H

#include <stdint.h>

#include "cuzk/err.h"

#define FC_NODE_BYTES     32 /* one node: a 254-bit field element, 32 bytes LE */
#define FC_POREP_ID_BYTES 32

/* storage-proofs-core ApiVersion: V1_0_0 has the legacy parent ordering
 * (predecessor last, expander parents truncated to u32 before dividing). */
enum fc_api_version { FC_API_V1_0 = 0, FC_API_V1_1 = 1, FC_API_V1_2 = 2 };

enum fc_porep_kind { FC_POREP_V1 = 0, FC_POREP_V1_1, FC_POREP_SYNTHETIC, FC_POREP_NI };

typedef struct fc_porep_config {
    uint64_t id;          /* registered proof id, 0..19 */
    const char *name;     /* "StackedDrg2KiBV1_1", as Lotus and the C1 JSON spell it */
    int kind;             /* enum fc_porep_kind */
    int api_version;      /* enum fc_api_version */
    uint64_t sector_size; /* bytes */
    uint64_t nodes;       /* sector_size / 32 */
    unsigned layers;      /* 2 below 32GiB, 11 from it */
    unsigned partitions;  /* interactive 1 / 10; NI 13 / 126 */
    unsigned challenges;  /* per partition: 2 below 32GiB, 18 from it */
    unsigned base_arity, sub_arity, top_arity; /* tree-R and tree-C shape, 0 = absent */
} fc_porep_config;

/* The config of a registered proof id; NULL for an unknown id. */
const fc_porep_config *fc_porep_config_get(uint64_t id);
/* The config for a sector size and kind; NULL if there is none (err says so). */
const fc_porep_config *fc_porep_config_find(uint64_t sector_size, int kind, cuzk_err *err);
/* Parses "V1", "V1_1", "Synthetic", "NI" (or the full registered proof name
 * without its size, case-insensitive) into a kind. */
int fc_porep_kind_parse(const char *s, int *kind, cuzk_err *err);

/* porep_id of a registered proof id. */
void fc_porep_id(uint8_t out[FC_POREP_ID_BYTES], uint64_t id);

/* Progress of a long operation: stage ("parents", "layer 1", ...), done
 * out of total units. Callers pass NULL for none. */
typedef void (*fc_progress_fn)(void *ctx, const char *stage, uint64_t done, uint64_t total);

#endif
