/*
 * backend_cuda.cu - the CUDA prover backend of the engine
 * (engine_backend.h): start is gpu_prove_start (the device part, under the
 * engine's device lock), finish is gpu_prove_finish (B_G2 on the CPU and
 * the assembly), which also logs each partition's timings on one line with
 * the names of reference/groth16.md; GetStatus reads the free device
 * memory through vram_free. Its host threads block on device waits
 * (gpu_set_blocking_sync).
 *
 * One device is reported: the kernels' working memory (MSM workspace, NTT
 * twiddles) and the parameter cache live on one device per process, so
 * the engine's per-device parallelism would need them per device first.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu/prove/prove_gpu.cuh"

#undef FP_ZERO
#define FP_ZERO cuzk_fp_zero_unused
extern "C" {
#include "cuzk/engine_backend.h"
#include "cuzk/engine_log.h"
}
#undef FP_ZERO

static int cuda_devices(size_t *n, char names[][128], uint64_t *vram_total, size_t max)
{
    int count = 0;
    cudaDeviceProp p;
    *n = 0;
    /* The engine's host threads block on device waits rather than spin
     * (H200, 10 x 32 GiB partitions: 5.15 instead of 6.81 CPU seconds per
     * partition for +0.6% GPU time, docs/performance.md), since synthesis
     * on the same cores bounds the engine's throughput. Should CUDA refuse,
     * its default stays. */
    if (gpu_set_blocking_sync(true, NULL)) cudaGetLastError();
    if (max < 1 || cudaGetDeviceCount(&count) != cudaSuccess || count < 1 ||
        cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        cudaGetLastError();
        return CUZK_EDEVICE;
    }
    snprintf(names[0], 128, "%s (cuda:0, sm_%d%d, %d SMs)", p.name, p.major, p.minor,
             p.multiProcessorCount);
    vram_total[0] = p.totalGlobalMem;
    *n = 1;
    return CUZK_OK;
}

static int cuda_start(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                      void **handle, cuzk_err *err)
{
    return gpu_prove_start((gpu_prove_pending **)handle, device, pk, circuits, n, NULL, err);
}

static int cuda_finish(void *handle, groth16_proof *proofs, size_t n, cuzk_err *err)
{
    groth16_timings *t = (groth16_timings *)calloc(n ? n : 1, sizeof *t);
    if (!t) {
        gpu_prove_discard((gpu_prove_pending *)handle);
        return cuzk_errf(err, CUZK_ENOMEM, "cuda backend: out of memory");
    }
    int rc = gpu_prove_finish((gpu_prove_pending *)handle, proofs, t, err);
    for (size_t i = 0; !rc && i < n; i++) {
        char line[320];
        gpu_prove_format_timings(line, sizeof line, &t[i]);
        engine_log(LOG_INFO, "gpu prove: circuit %zu/%zu: %s", i + 1, n, line);
    }
    free(t);
    return rc;
}

static int cuda_vram_free(int device, uint64_t *free_bytes)
{
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

extern "C" const engine_backend engine_cuda_backend = {
    "cuda", cuda_devices, cuda_start, cuda_finish, cuda_vram_free, cuda_params_unloaded};
