/*
 * small_lane.cu - the small-circuit lane of a device (gpu_lane.h): its
 * size, setup, the test of whether a proof fits it, and its starts.
 *
 * The lane is the GPU prover of prove_gpu.cu run in the lane's slot
 * (lane.cuh): its own lock, stream, buffers and caches, its memory
 * carved out of the reservation made here. Its size is the most a start
 * at 2^max_log takes in resident mode (residency.cu rule 3): three rows
 * of a, b, c and the witness (one buffer: the lane proves one circuit at
 * a time), the NTT tables, the larger of the G1 and G2 MSM workspaces,
 * a gather buffer of G2 tail bases, the split jobs' bitmaps, tails and
 * indexes (two sets) and the device prep's counts, the circuit's shape
 * (at most LANE_SHAPE_PER bytes a constraint), the plan's headroom (1/32)
 * and the parameters. A start whose circuit is larger, or whose
 * parameters exceed that room, is refused (gpu_lane_fits says so
 * first); within the room the plan keeps everything resident. Its
 * staging pools (page-locked host memory, gpu_lane_host_bytes) are made
 * at the setup too.
 */
#include <atomic>

#include "gpu/prove/prove_gpu.cuh"
#include "gpu/prove/residency.cuh"

extern "C" {
#include "cuzk/engine_log.h"
#include "cuzk/gpu_lane.h"
#include "groth16/prove_internal.h"
}

#define LANE_MIN_LOG   10
#define LANE_MAX_LOG   24
#define LANE_SHAPE_PER 64 /* shape bytes a constraint: ~5 a matrix entry, a dozen entries */

/* Each device's lane as set up: written under its slot's lock, read
 * without it (gpu_lane_fits is asked under the engine's lock, and must
 * not wait for a lane start). */
static std::atomic<unsigned> lane_log[CU_MAX_DEVICES];       /* its max_log (0: no lane) */
static std::atomic<size_t> lane_params_room[CU_MAX_DEVICES]; /* bytes of parameters it serves */

/* Device bytes of pk's points (G1: 96 bytes, G2: 192 as the device keeps them). */
static size_t params_bytes(const groth16_params *pk)
{
    return (pk->n_h + pk->n_l + pk->n_a + pk->n_b_g1) * sizeof(prove_g1_aff) +
           pk->n_b_g2 * sizeof(prove_g2_aff);
}

extern "C" size_t gpu_lane_bytes_for(unsigned max_log, size_t params)
{
    size_t n = (size_t)1 << max_log, fr = sizeof(fr_t);
    size_t msm1 = gpu_msm_workspace_for(n, 0), msm2 = gpu_msm_workspace_for(n, 1);
    size_t work = 3 * n * fr + n * fr;            /* a, b, c rows; witness */
    work += gpu_ntt_tables_for(max_log);          /* twiddles and scales */
    work += msm1 > msm2 ? msm1 : msm2;            /* MSM workspace */
    work += n * sizeof(prove_g2_aff);             /* gathered tail bases */
    work += 2 * 3 * (n / 8 + n * (fr + 4) + 512); /* jobs: bitmaps, tails, indexes */
    work += n / 2 + 4096;                         /* device prep's counts */
    work += n * LANE_SHAPE_PER;                   /* the circuit's shape */
    size_t total = work + params;
    return total + total / 16 + ((size_t)64 << 20); /* headroom (1/32) and alignment */
}

extern "C" int gpu_lane_setup(int device, unsigned max_log, size_t params, cuzk_err *err)
{
    if (device < 0 || device >= CU_MAX_DEVICES)
        return cuzk_errf(err, CUZK_EINVAL, "gpu lane: device %d (0 .. %d allowed)", device,
                         CU_MAX_DEVICES - 1);
    if (max_log < LANE_MIN_LOG || max_log > LANE_MAX_LOG)
        return cuzk_errf(err, CUZK_EINVAL, "gpu lane: domain 2^%u (2^%d .. 2^%d allowed)", max_log,
                         LANE_MIN_LOG, LANE_MAX_LOG);
    int slot = device + CU_MAX_DEVICES;
    prove_lock(slot);
    int rc = CUZK_OK;
    cu_ctx ctx = cu_context();
    if (!lane_log[device]) {
        size_t bytes = gpu_lane_bytes_for(max_log, params);
        rc = prove_plan_lane_room(device, bytes, err); /* residency rule 7's share */
        if (!rc) rc = cu_lane_setup(device, bytes, err);
        if (!rc && cu_slot_enter(slot) != cudaSuccess)
            rc = cuzk_errf(err, CUZK_EDEVICE, "gpu lane: device %d: cudaSetDevice", device);
        if (!rc) rc = prove_stage_warm(err); /* its staging pools, made now */
        if (!rc) lane_log[device] = max_log, lane_params_room[device] = params;
        if (rc) cu_lane_teardown(device);
    }
    cu_context_set(ctx);
    prove_unlock(slot);
    return rc;
}

/* Whether pk and a circuit of domain 2^lg fit device's lane. */
static bool fits(int device, const groth16_params *pk, unsigned lg)
{
    unsigned max = lane_log[device].load();
    return max && lg <= max && params_bytes(pk) <= lane_params_room[device].load();
}

extern "C" bool gpu_lane_fits(int device, const groth16_params *pk, const cs_prover *c)
{
    unsigned lg;
    if (device < 0 || device >= CU_MAX_DEVICES || groth16_h_domain(&lg, pk, c, NULL)) return false;
    return fits(device, pk, lg);
}

extern "C" int gpu_lane_start(gpu_prove_pending **out, int device, const groth16_params *pk,
                              const cs_prover *circuits, size_t n, const fr_t *rs, cuzk_err *err)
{
    *out = NULL;
    for (size_t i = 0; i < n; i++)
        if (!gpu_lane_fits(device, pk, &circuits[i]))
            return cuzk_errf(
                err, CUZK_EINVAL,
                "gpu lane: device %d has no lane that circuit %zu fits (domain at "
                "most 2^%u, parameters at most %zu bytes)",
                device, i, device >= 0 && device < CU_MAX_DEVICES ? lane_log[device].load() : 0,
                device >= 0 && device < CU_MAX_DEVICES ? lane_params_room[device].load() : 0);
    return prove_start_lane(out, device, pk, circuits, n, rs, err);
}

extern "C" void gpu_lane_set_pause(unsigned pause_ms)
{
    cu_yield_set_pause(pause_ms);
}

extern "C" void gpu_lane_pauses(int device, uint64_t *count, double *ms, uint64_t *cut)
{
    cu_yield_counts(device, count, ms, cut);
}

extern "C" size_t gpu_lane_reserved(int device)
{
    size_t b = 0;
    return cu_lane_ready(device, NULL, &b) ? b : 0;
}

extern "C" size_t gpu_lane_used(int device)
{
    return cu_lane_used(device);
}

extern "C" size_t gpu_lane_release(int device)
{
    if (device < 0 || device >= CU_MAX_DEVICES) return 0;
    int slot = device + CU_MAX_DEVICES;
    cu_ctx ctx = cu_context();
    prove_lock(slot);
    bool had = lane_log[device].exchange(0) != 0; /* fits no more from here */
    prove_release_slot(slot);
    if (had && cu_slot_enter(slot) == cudaSuccess) { /* the rest of its slot */
        gpu_msm_workspace_trim(0);
        gpu_ntt_tables_free();
        prove_batch_add_release();
    }
    size_t left = cu_lane_used(device);
    if (left)
        engine_log(LOG_ERROR, "gpu lane: device %d: %zu bytes still held at its release", device,
                   left);
    cu_lane_teardown(device);
    lane_params_room[device] = 0;
    prove_unlock(slot);
    cu_context_set(ctx);
    return left;
}
