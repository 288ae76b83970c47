/*
 * check.cuh - CUDA error handling for the host side of src/gpu.
 *
 * Every CUDA call goes through CU(call, err, "what"): on failure it fills
 * the caller's cuzk_err with CUZK_EDEVICE (CUZK_ENOMEM when the device is
 * out of memory, which leaves it working), the operation and the CUDA
 * message, and returns that status from the enclosing function. The
 * engine takes a device whose prover fails with CUZK_EDEVICE out of
 * service. Kernel
 * launches are followed by CU_LAUNCH(err, "kernel"), which reads
 * cudaGetLastError. Nothing here aborts.
 */
#ifndef CUZK_GPU_UTIL_CHECK_CUH
#define CUZK_GPU_UTIL_CHECK_CUH

#include <cuda_runtime.h>

#include "gpu/util/capi.cuh"

static inline int cu_fail(cudaError_t e, cuzk_err *err, const char *what, const char *file,
                          int line)
{
    int code = e == cudaErrorMemoryAllocation ? CUZK_ENOMEM : CUZK_EDEVICE;
    return cuzk_errf(err, code, "gpu: %s failed: %s (%s) at %s:%d", what, cudaGetErrorString(e),
                     cudaGetErrorName(e), file, line);
}

#define CU(call, err, what)                                                                        \
    do {                                                                                           \
        cudaError_t cu_e_ = (call);                                                                \
        if (cu_e_ != cudaSuccess) return cu_fail(cu_e_, (err), (what), __FILE__, __LINE__);        \
    } while (0)

#define CU_LAUNCH(err, what) CU(cudaGetLastError(), err, what)

/* Blocks of `threads` covering n items. */
static inline unsigned cu_blocks(size_t n, unsigned threads)
{
    return (unsigned)((n + threads - 1) / threads);
}

/* x rounded up to a multiple of 256 bytes: the offset of the next array
 * carved out of one device allocation. */
static inline size_t cu_align256(size_t x)
{
    return (x + 255) & ~(size_t)255;
}

#endif
