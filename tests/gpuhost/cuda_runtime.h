/*
 * cuda_runtime.h - a host-only stand-in for the CUDA runtime, so that the
 * GPU prover's host code (src/gpu/prove: the pipeline's threads, staging
 * pools, parameter cache, buffers and error paths) runs and is checked on
 * machines without a GPU (test_gpu_prove_host).
 *
 * "Device" memory is host memory from malloc, filled with garbage like
 * fresh device memory, and limited (host_device_limit) so that running
 * out of it can be provoked; asynchronous copies can be slowed down
 * (host_dma_delay_us) to make the prover overlap them; copies and fills are memcpy and
 * memset, streams and events do nothing (every copy is complete when it
 * returns). The CUDA keywords of the device headers become plain C++.
 * Included first in every translation unit of the test (-include).
 */
#ifndef CUZK_TESTS_GPUHOST_CUDA_RUNTIME_H
#define CUZK_TESTS_GPUHOST_CUDA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The C++ headers the prover uses, read before __noinline__ is defined
 * (libstdc++ spells an attribute with that name). */
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#define __host__
#define __device__
#define __forceinline__ inline
#define __noinline__    __attribute__((noinline))
#define __align__(n)    __attribute__((aligned(n)))

typedef enum {
    cudaSuccess = 0,
    cudaErrorMemoryAllocation = 2,
} cudaError_t;
typedef enum {
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3
} cudaMemcpyKind;
typedef struct host_stream *cudaStream_t;
typedef struct host_event *cudaEvent_t;
#define cudaStreamNonBlocking  1
#define cudaEventDisableTiming 2
#define cudaHostAllocDefault   0

struct cudaDeviceProp {
    char name[256];
    int major, minor, multiProcessorCount, l2CacheSize;
    size_t totalGlobalMem;
};

#define HOST_DEVICE_TOTAL ((size_t)1 << 36) /* what the stand-in reports */
/* Bytes allocated on the stand-in device, and the most it gives. */
extern std::atomic<long long> host_device_used, host_device_limit;
/* Microseconds each asynchronous copy of 64 KiB or more takes at least
 * (a slow link for the bulk transfers; bitmaps and tails stay quick). */
extern std::atomic<int> host_dma_delay_us;

static inline cudaError_t cudaMalloc(void **p, size_t bytes)
{
    *p = NULL;
    if (host_device_used.load() + (long long)bytes > host_device_limit.load())
        return cudaErrorMemoryAllocation;
    size_t *q = (size_t *)malloc(bytes + 16);
    if (!q) return cudaErrorMemoryAllocation;
    host_device_used += (long long)bytes;
    memset(q + 2, 0xa5, bytes);
    q[0] = bytes;
    *p = q + 2;
    return cudaSuccess;
}
static inline cudaError_t cudaFree(void *p)
{
    if (!p) return cudaSuccess;
    size_t *q = (size_t *)p - 2;
    host_device_used -= (long long)q[0];
    free(q);
    return cudaSuccess;
}
static inline cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned)
{
    *p = malloc(bytes);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind)
{
    memcpy(d, s, n);
    return cudaSuccess;
}
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind,
                                          cudaStream_t)
{
    if (host_dma_delay_us.load() && n >= ((size_t)64 << 10))
        std::this_thread::sleep_for(std::chrono::microseconds(host_dma_delay_us.load()));
    memcpy(d, s, n);
    return cudaSuccess;
}
static inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t)
{
    memset(d, v, n);
    return cudaSuccess;
}
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned)
{
    static int one;
    *e = (cudaEvent_t)&one;
    return cudaSuccess;
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned)
{
    static int one;
    *s = (cudaStream_t)&one;
    return cudaSuccess;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t)
{
    return cudaSuccess;
}
static inline cudaError_t cudaEventSynchronize(cudaEvent_t)
{
    return cudaSuccess;
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t)
{
    return cudaSuccess;
}
static inline cudaError_t cudaSetDevice(int)
{
    return cudaSuccess;
}
static inline cudaError_t cudaGetLastError(void)
{
    return cudaSuccess;
}
static inline cudaError_t cudaGetDeviceCount(int *n)
{
    *n = 1;
    return cudaSuccess;
}
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int)
{
    memset(p, 0, sizeof *p);
    strcpy(p->name, "host stand-in");
    p->major = 9;
    p->multiProcessorCount = 1;
    p->totalGlobalMem = HOST_DEVICE_TOTAL;
    return cudaSuccess;
}
static inline cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    long long left = host_device_limit.load() - host_device_used.load();
    *free_bytes = left < (long long)HOST_DEVICE_TOTAL ? (size_t)left : HOST_DEVICE_TOTAL - 1;
    *total = HOST_DEVICE_TOTAL;
    return cudaSuccess;
}
static inline const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaErrorMemoryAllocation ? "out of memory" : "unknown error";
}
static inline const char *cudaGetErrorName(cudaError_t e)
{
    return e == cudaErrorMemoryAllocation ? "cudaErrorMemoryAllocation" : "cudaErrorUnknown";
}

#endif
