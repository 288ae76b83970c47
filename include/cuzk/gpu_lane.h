/*
 * gpu_lane.h - the small-circuit lane of a CUDA device (src/gpu/prove/
 * small_lane.cu): a second prover beside the device's big one, for
 * circuits of at most 2^max_log constraints (a Winning PoSt: 370,590 at
 * 32 GiB, domain 2^19), so that such a proof never waits for the big
 * prover's running start.
 *
 * It has a stream of its own, non-blocking and of the device's greatest
 * priority (the device schedules its kernels' blocks before those of the
 * big prover's kernels as SMs free up), its own lock (not the device's
 * prover lock: it proves while a big start holds that), and its own
 * working memory, parameter cache, staging pools, NTT tables and MSM
 * workspace, all carved out of one reservation made by gpu_lane_setup
 * (gpu_lane_bytes_for: sized for the largest domain and the parameters it
 * serves), so that a lane proof never calls cudaMalloc / cudaFree (which
 * wait for the whole device) and never fails for lack of device memory.
 * The big starts plan around the reservation (residency.cu rule 7).
 * While a lane proof runs, the big prover launches no kernel on its
 * device, for a bounded time (gpu_lane_set_pause, src/gpu/util/yield.cu),
 * so that the kernels it queued run out and the lane's get the SMs.
 * Which jobs use the lane is the engine's dispatch policy (dispatch.h).
 * Proofs are those of gpu_prove_start, byte for byte.
 */
#ifndef CUZK_GPU_LANE_H
#define CUZK_GPU_LANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/gpu_prove.h"
#include "cuzk/groth16.h"
#include "cuzk/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device bytes a lane for domains up to 2^max_log reserves, with room
 * for `params_bytes` of cached parameters (their G1 and G2 points). */
size_t gpu_lane_bytes_for(unsigned max_log, size_t params_bytes);
/* The reservation such a lane makes on a device whose big starts could
 * use `budget` bytes without it: gpu_lane_bytes_for, or 0 when that is
 * more than residency.cu rule 7's share (1/8) of the budget, and then the
 * device has no lane (arithmetic only: cuzk-bench plan, gpu_lane_setup). */
size_t gpu_lane_bytes_on(size_t budget, unsigned max_log, size_t params_bytes);
/* Sets up device `device`'s lane (once; again: no change): CUZK_ENOMEM
 * naming the device when it has no room for the reservation, CUZK_EINVAL
 * for a max_log outside 10 .. 24. */
int gpu_lane_setup(int device, unsigned max_log, size_t params_bytes, cuzk_err *err);
/* Whether device `device` has a lane and a proof of c under pk fits it
 * (its domain at most 2^max_log, pk's points within its room). */
bool gpu_lane_fits(int device, const groth16_params *pk, const cs_prover *c);
/* gpu_prove_start on the lane (finished by gpu_prove_finish):
 * CUZK_EINVAL when the device has no lane or the circuits do not fit. */
int gpu_lane_start(gpu_prove_pending **out, int device, const groth16_params *pk,
                   const cs_prover *circuits, size_t n, const fr_t *rs, cuzk_err *err);
/* The big prover's pause for a lane proof on its device (src/gpu/util/
 * yield.cu's rules): while one runs, the big prover launches no kernel,
 * for at most pause_ms (every device; GPU_LANE_PAUSE_MS by default,
 * gpus.small_lane_pause_ms's; 0: no pause). */
#define GPU_LANE_PAUSE_MS 250
void gpu_lane_set_pause(unsigned pause_ms);
/* Device `device`'s pauses so far: how many, their total ms, and how many
 * ended at pause_ms instead of with the lane proof. */
void gpu_lane_pauses(int device, uint64_t *count, double *ms, uint64_t *cut);
/* The lane's reservation in bytes (0: none), and what its state holds of it. */
size_t gpu_lane_reserved(int device);
size_t gpu_lane_used(int device);
/* The residency plan of the lane's last start (residency.cu rule 7). */
void gpu_lane_plan(int device, gpu_prove_plan_info *out);
/* Frees device `device`'s lane (no lane start may be running); returns
 * the bytes its state still held in the reservation then (0; more is
 * state left pointing into the freed reservation: a bug, logged). */
size_t gpu_lane_release(int device);

#ifdef __cplusplus
}
#endif

#endif
