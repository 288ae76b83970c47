/*
 * provider_internal.h - what the Filecoin providers (providers.h) share:
 * circuit ids and parameter names by kind, and development parameters for
 * --dev-params (written under the official names in one directory).
 */
#ifndef CUZK_FILECOIN_PROVIDER_INTERNAL_H
#define CUZK_FILECOIN_PROVIDER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cuzk/engine_provider.h"
#include "cuzk/filecoin/param_names.h"

/* info for kind at sector_size (CUZK_EINVAL for a size without parameters). */
int fcp_name_circuit(engine_circuit_info *info, fc_circuit_kind kind, uint64_t sector_size,
                     cuzk_err *err);
/* lookup for one kind: whether circuit_id is kind's, with its info. */
bool fcp_lookup(fc_circuit_kind kind, const char *circuit_id, engine_circuit_info *info);
/* The kind's circuit ids, every sector size, comma-separated (engine_provider's ids). */
void fcp_ids(fc_circuit_kind kind, char *buf, size_t cap);
/* Sector sizes by registered PoSt / update proof id within a group:
 * 2KiB, 8MiB, 512MiB, 32GiB, 64GiB (ids 0..4 for Winning PoSt and for
 * RegisteredUpdateProof). */
#define FCP_SIZES 5
extern const uint64_t fcp_sizes[FCP_SIZES];
/*
 * The sector size of a request (its index in fcp_sizes): sector_size, else
 * registered_proof's (ids 0..4; 0 is also the unset value, so it decides
 * only when sector_size is unset too); both set must agree. what names the
 * proof kind in messages.
 */
int fcp_request_size(const engine_request *req, const char *what, size_t *index, cuzk_err *err);
/* One partition's size for kind at fcp_sizes[index] from the table of
 * known sizes, else counted once on the blank circuit and kept
 * (constraints include the input ones: an upper bound for the engine's
 * reservation). */
int fcp_partition_size(fc_circuit_kind kind, size_t index, cs_capacity *out, cuzk_err *err);
/* The same counted now on the blank circuit (what the table must equal). */
int fcp_partition_count(fc_circuit_kind kind, size_t index, cs_capacity *out, cuzk_err *err);
/* Where development parameters' .vk files go (the param cache). */
void fcp_set_dev_dir(const char *dir);
/* Development parameters for circuit_id of kind written to params_path
 * (groth16_setup_dev_write from FC_DEV_SEED on the blank circuit, on be),
 * the .vk to the dev dir; progress lines on stderr. */
int fcp_setup_dev(fc_circuit_kind kind, const char *circuit_id, const char *params_path,
                  const groth16_setup_backend *be, cuzk_err *err);
/* The providers' blank hook: the blank circuit of any Filecoin circuit
 * id (its kind read from the id); *ctx is malloc'ed: blank_free = free. */
int fcp_blank(const char *circuit_id, cs_circuit *out, void **ctx, cuzk_err *err);

#endif
