/*
 * backend_cuda.cu - the CUDA prover backend of the engine
 * (engine_backend.h): start is gpu_prove_start (the device part, under the
 * engine's device lock), finish is gpu_prove_finish (B_G2 on the CPU and
 * the assembly), which also logs each partition's timings on one line with
 * the names of reference/groth16.md; GetStatus reads the free device
 * memory through vram_free. Its host threads block on device waits
 * (make_blocking, on each device before its first use).
 *
 * Every CUDA device the runtime lists is reported, in CUDA's order (so
 * CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER apply); the engine picks
 * from them (gpus.devices) and runs a prover per device. The prover keeps
 * its buffers, parameters and staging pools per device (gpu_prove.h), so
 * the devices prove at once. Nothing here touches NCCL or NVLink: each
 * device works alone on its own partitions.
 *
 * A device too small for a proof even with every parameter streamed (its
 * plan says too_small: residency.cu) proves that start on the CPU instead
 * (groth16_prove, the CPU backend's prover), said once per device as a
 * warning naming the memory needed and had, so its jobs are slower, never
 * failed; gpus.device_memory caps the memory the prover plans with, and
 * gpus.stream_chunk_log sets its streamed plans' MSM chunk goal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>

#include "gpu/prove/prove_gpu.cuh"

#include "gpu/util/capi.cuh"

/* Device i's line for GetStatus and its memory; false when CUDA refuses. */
static bool describe(int i, char name[128], uint64_t *vram_total)
{
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) return false;
    snprintf(name, 128, "%s (cuda:%d, sm_%d%d, %d SMs)", p.name, i, p.major, p.minor,
             p.multiProcessorCount);
    *vram_total = p.totalGlobalMem;
    return true;
}

/* Lists the devices without making a context on any (only the devices
 * the engine proves on get one, at their first start). */
static int cuda_devices(size_t *n, char names[][128], uint64_t *vram_total, size_t max)
{
    int count = 0;
    *n = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
        cudaGetLastError();
        return CUZK_EDEVICE;
    }
    for (int i = 0; i < count && (size_t)i < max && i < CU_MAX_DEVICES; i++) {
        if (!describe(i, names[i], &vram_total[i])) {
            cudaGetLastError();
            return CUZK_EDEVICE;
        }
        *n = (size_t)i + 1;
    }
    return CUZK_OK;
}

/* The engine's host threads block on device waits rather than spin
 * (H200, 10 x 32 GiB partitions: 5.15 instead of 6.81 CPU seconds per
 * partition for +0.6% GPU time, docs/performance.md), since synthesis on
 * the same cores bounds the engine's throughput. The flag is per device
 * and taken when its context is made: cudaInitDevice makes it with the
 * flag (cudaSetDevice would make it with the default); should that
 * refuse, the flag is set on the live context, and should CUDA refuse
 * that too, its default stays. */
static void make_blocking(int device)
{
    if (cudaInitDevice(device, cudaDeviceScheduleBlockingSync, cudaInitDeviceFlagsAreValid) ==
        cudaSuccess)
        return;
    cudaGetLastError();
    if (cudaSetDevice(device) != cudaSuccess || gpu_set_blocking_sync(true, NULL))
        cudaGetLastError();
}

/* Before anything else touches a device (a start or a GetStatus), once. */
static std::once_flag device_ready[CU_MAX_DEVICES];

static void use_device(int device)
{
    if (device >= 0 && device < CU_MAX_DEVICES)
        std::call_once(device_ready[device], make_blocking, device);
}

/* A start's handle: the device's pending proofs, or the proofs the CPU
 * made when the device is too small for them. */
struct cuda_handle {
    gpu_prove_pending *gpu;
    groth16_proof *cpu;
    size_t n;
};
static std::once_flag too_small_said[CU_MAX_DEVICES];

/* Whether a start failed because the device is too small (its plan). */
static bool too_small(int device, int rc)
{
    gpu_prove_plan_info p;
    if (rc != CUZK_ENOMEM || device < 0 || device >= CU_MAX_DEVICES) return false;
    gpu_prove_device_plan(device, &p);
    return p.too_small;
}

/* The start's circuits proved on the CPU into h (the device too small). */
static int cpu_instead(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                       cuda_handle *h, const cuzk_err *why, cuzk_err *err)
{
    std::call_once(too_small_said[device], [device, why] {
        engine_log(LOG_WARN, "cuda backend: %s; its partitions are proved on the CPU", why->msg);
    });
    h->cpu = (groth16_proof *)calloc(n ? n : 1, sizeof *h->cpu);
    if (!h->cpu) return cuzk_errf(err, CUZK_ENOMEM, "cuda backend: out of memory");
    h->n = n;
    return groth16_prove(h->cpu, pk, circuits, n, NULL, NULL, err);
}

/* The handle of a start that returned rc (h->gpu set when 0), the CPU's
 * proofs in place of a device too small; *handle set on success. */
static int start_done(int rc, int device, const groth16_params *pk, const cs_prover *circuits,
                      size_t n, cuda_handle *h, void **handle, cuzk_err *err)
{
    if (too_small(device, rc)) {
        cuzk_err why = *err;
        rc = cpu_instead(device, pk, circuits, n, h, &why, err);
    }
    if (rc) {
        free(h->cpu);
        free(h);
        return rc;
    }
    *handle = h;
    return CUZK_OK;
}

static int cuda_start(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                      void **handle, cuzk_err *err)
{
    use_device(device);
    cuda_handle *h = (cuda_handle *)calloc(1, sizeof *h);
    if (!h) return cuzk_errf(err, CUZK_ENOMEM, "cuda backend: out of memory");
    int rc = gpu_prove_start(&h->gpu, device, pk, circuits, n, NULL, err);
    return start_done(rc, device, pk, circuits, n, h, handle, err);
}

static int cuda_start_fed(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                          const engine_feed *feed, void **handle, cuzk_err *err)
{
    use_device(device);
    gpu_prove_feed f = {feed->ctx, feed->max, feed->more, feed->consumed};
    cuda_handle *h = (cuda_handle *)calloc(1, sizeof *h);
    if (!h) return cuzk_errf(err, CUZK_ENOMEM, "cuda backend: out of memory");
    int rc = gpu_prove_start_fed(&h->gpu, device, pk, circuits, n, &f, err);
    return start_done(rc, device, pk, circuits, n, h, handle, err);
}

/* The GPU start's proofs: B_G2 and assembly, each partition's timings
 * logged. */
static int gpu_finish(gpu_prove_pending *p, groth16_proof *proofs, size_t n, cuzk_err *err)
{
    if (gpu_prove_count(p) != n) {
        size_t have = gpu_prove_count(p);
        gpu_prove_discard(p);
        return cuzk_errf(err, CUZK_EINVAL, "cuda backend: %zu proofs asked of a start of %zu", n,
                         have);
    }
    groth16_timings *t = (groth16_timings *)calloc(n ? n : 1, sizeof *t);
    if (!t) {
        gpu_prove_discard(p);
        return cuzk_errf(err, CUZK_ENOMEM, "cuda backend: out of memory");
    }
    int rc = gpu_prove_finish(p, proofs, t, err);
    for (size_t i = 0; !rc && i < n; i++) {
        char line[768];
        gpu_prove_format_timings(line, sizeof line, &t[i]);
        engine_log(LOG_INFO, "gpu prove: circuit %zu/%zu: %s", i + 1, n, line);
    }
    free(t);
    return rc;
}

static int cuda_finish(void *handle, groth16_proof *proofs, size_t n, cuzk_err *err)
{
    cuda_handle *h = (cuda_handle *)handle;
    int rc = CUZK_OK;
    if (h->gpu)
        rc = gpu_finish(h->gpu, proofs, n, err);
    else if (h->n != n)
        rc = cuzk_errf(err, CUZK_EINVAL, "cuda backend: %zu proofs asked of a start of %zu", n,
                       h->n);
    else
        memcpy(proofs, h->cpu, n * sizeof *proofs);
    free(h->cpu);
    free(h);
    return rc;
}

static int cuda_vram_free(int device, uint64_t *free_bytes)
{
    use_device(device);
    size_t f, total;
    if (cudaSetDevice(device) != cudaSuccess || cudaMemGetInfo(&f, &total) != cudaSuccess) {
        cudaGetLastError();
        return CUZK_EDEVICE;
    }
    *free_bytes = f;
    return CUZK_OK;
}

/* The engine evicted pk: its device copy goes too (else it stayed until
 * device memory ran short). */
static void cuda_params_unloaded(const groth16_params *pk)
{
    gpu_prove_params_free(pk);
}

/* The staging pools' pinned memory, per device (384 MiB), twice with its
 * small-circuit lane (whose pools are its own), and the rows its H step
 * parks now (a plan with one row on the device: 8 GiB at 32 GiB). */
static uint64_t cuda_host_bytes(int device)
{
    return gpu_prove_pinned_bytes_per_device() * (gpu_lane_reserved(device) ? 2 : 1) +
           gpu_prove_parked_host_bytes(device);
}

/* The device's small-circuit lane (gpu_lane.h). */
static int cuda_lane_setup(int device, unsigned max_log, uint64_t params_bytes, unsigned pause_ms,
                           cuzk_err *err)
{
    use_device(device);
    gpu_lane_set_pause(pause_ms);
    return gpu_lane_setup(device, max_log, (size_t)params_bytes, err);
}

static void cuda_lane_release(int device)
{
    gpu_lane_release(device);
}

static int cuda_lane_start(int device, const groth16_params *pk, const cs_prover *circuits,
                           size_t n, void **handle, cuzk_err *err)
{
    cuda_handle *h = (cuda_handle *)calloc(1, sizeof *h);
    if (!h) return cuzk_errf(err, CUZK_ENOMEM, "cuda backend: out of memory");
    int rc = gpu_lane_start(&h->gpu, device, pk, circuits, n, NULL, err);
    if (rc) {
        free(h);
        return rc;
    }
    *handle = h;
    return CUZK_OK;
}

static void cuda_device_memory(uint64_t bytes, uint32_t chunk_log, int witness_kept)
{
    gpu_prove_set_device_memory((size_t)bytes);
    gpu_prove_set_chunk_goal(chunk_log ? (size_t)1 << chunk_log : 0);
    gpu_prove_set_witness_kept(witness_kept == ENGINE_KEPT_OFF     ? GPU_KEPT_OFF
                               : witness_kept == ENGINE_KEPT_FIRST ? GPU_KEPT_FIRST
                                                                   : GPU_KEPT_TIGHT);
}

/* The plan of the device's last start (gpu_prove_device_plan). */
static void cuda_plan(int device, char *out, size_t len)
{
    gpu_prove_plan_info p;
    gpu_prove_device_plan(device, &p);
    if (p.made)
        gpu_prove_format_plan(out, len, &p);
    else if (len)
        out[0] = 0;
}

extern "C" const engine_backend engine_cuda_backend = {
    "cuda",         cuda_devices,         cuda_start,       cuda_finish,
    cuda_vram_free, cuda_params_unloaded, cuda_host_bytes,  gpu_shape_forget,
    cuda_start_fed, cuda_device_memory,   cuda_plan,        cuda_lane_setup,
    gpu_lane_fits,  cuda_lane_start,      cuda_lane_release};
