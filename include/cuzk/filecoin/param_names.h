/*
 * param_names.h - Filecoin's official Groth16 parameter file names and
 * cuzk's circuit ids.
 *
 * The official files (v28, the ones Lotus / Curio fetch into
 * /var/tmp/filecoin-proof-parameters) are named
 * v28-<circuit>-merkletree-poseidon_hasher-<arities>[-sha256_hasher]-<hash>
 * with .params and .vk extensions. cuzk's development setups write their
 * files under the same names, so the official files dropped into the same
 * directory are used instead, unchanged. Circuit ids are the ones Curio's
 * cuzk uses (porep-32g, wpost-32g, winning-32g, snap-32g, ...) extended to
 * the small sizes (porep-2k, porep-8m, porep-512m, ...).
 */
#ifndef CUZK_FILECOIN_PARAM_NAMES_H
#define CUZK_FILECOIN_PARAM_NAMES_H

#include <stddef.h>
#include <stdint.h>

typedef enum fc_circuit_kind {
    FC_CIRCUIT_POREP = 0,
    FC_CIRCUIT_WINNING_POST,
    FC_CIRCUIT_WINDOW_POST,
    FC_CIRCUIT_UPDATE, /* SnapDeals: empty sector update */
    FC_CIRCUIT_KINDS
} fc_circuit_kind;

/* The official file name without extension, or NULL for a size Filecoin
 * has no parameters for (2KiB, 8MiB, 512MiB, 32GiB, 64GiB). */
const char *fc_param_name(fc_circuit_kind kind, uint64_t sector_size);

/* "porep-32g", "winning-2k", ...; NULL for an unknown size. */
const char *fc_circuit_id(fc_circuit_kind kind, uint64_t sector_size);

/* The i-th sector size with parameters (ascending: 2KiB, 8MiB, 512MiB,
 * 32GiB, 64GiB), 0 past the last. */
uint64_t fc_sector_size_at(size_t i);

/* The kind and sector size of a circuit id; 0 on success, -1 if unknown. */
int fc_circuit_parse(const char *id, fc_circuit_kind *kind, uint64_t *sector_size);

#endif
