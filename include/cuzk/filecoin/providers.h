/*
 * providers.h - the Filecoin proof kinds as engine providers
 * (engine_provider.h): cuzk-daemon registers them so that SubmitProof
 * requests of Curio's kinds become partition circuits, public inputs, a
 * circuit id (param_names.h: porep-2k .. porep-64g) and the official
 * parameter file name.
 *
 * PoRep (POREP_SEAL_COMMIT): vanilla_proof is the commit-phase-1 output,
 * the c1.json wrapper or the bare SealCommitPhase1Output JSON, of any
 * sector size and registered seal proof (interactive, synthetic or
 * non-interactive: the circuit is the same). The request's sector_size and
 * registered_proof, when set (non-zero), must match the C1's; a mismatch
 * fails the job with a message naming both. registered_proof 0 is
 * StackedDrg2KiBV1 but also the proto's unset value, so 0 is not checked.
 *
 * Winning PoSt (WINNING_POST): as Curio sends it, one bincode
 * FallbackPoStSectorProof in vanilla_proofs (or vanilla_proof), the
 * 32-byte randomness, registered_proof StackedDrgWinning<size>V1 (0..4)
 * and / or sector_size; one partition, circuit ids winning-2k ..
 * winning-64g.
 *
 * Window PoSt (WINDOW_POST_PARTITION): one partition per request
 * (partition_index), one bincode FallbackPoStSectorProof per sector of it
 * in vanilla_proofs, the randomness, registered_proof
 * StackedDrgWindow<size>V1 (5..9) or V1_1 (10..14); circuit ids wpost-2k
 * .. wpost-64g.
 *
 * SnapDeals (SNAP_DEALS_UPDATE): one bincode PartitionProof per partition
 * in vanilla_proofs, comm_r_old / comm_r_new / comm_d_new (32 bytes
 * each), registered_proof StackedDrg<size>V1 update proof (0..4) and / or
 * sector_size; circuit ids snap-2k .. snap-64g.
 *
 * Parameters come from srs.param_cache under the official names. Only
 * when the daemon is started with --dev-params does a missing file get
 * DEVELOPMENT parameters instead (groth16_setup_dev_write from FC_DEV_SEED,
 * on the GPU when the engine proves there: not a trusted setup, never for
 * production), written under the official .params and .vk names as `cuzk
 * setup --kind` does, so either tool's files serve
 * the other and official files in the same directory always win.
 */
#ifndef CUZK_FILECOIN_PROVIDERS_H
#define CUZK_FILECOIN_PROVIDERS_H

#include "cuzk/engine_provider.h"

/* `cuzk setup`'s default --seed, so that the daemon and the toolbox make
 * identical development files. */
#define FC_DEV_SEED 1

/*
 * The PoRep provider. dev_params_dir NULL: parameter files must exist.
 * Otherwise development parameters are made for missing files, with the
 * .vk written to dev_params_dir (which must be srs.param_cache, where the
 * engine writes the .params). One directory per process: the last call
 * sets it.
 */
const engine_provider *fc_porep_provider(const char *dev_params_dir);
/* The Winning PoSt provider, dev_params_dir as for fc_porep_provider. */
const engine_provider *fc_winning_post_provider(const char *dev_params_dir);
/* The Window PoSt provider, dev_params_dir as for fc_porep_provider. */
const engine_provider *fc_window_post_provider(const char *dev_params_dir);
/* The SnapDeals provider, dev_params_dir as for fc_porep_provider. */
const engine_provider *fc_update_provider(const char *dev_params_dir);

#endif
