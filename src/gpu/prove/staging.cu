/*
 * staging.cu - host-to-device copies through a pinned staging pool, and
 * device allocation that makes room by evicting cached parameters.
 *
 * The pool is two pinned chunks allocated once (cudaHostAlloc) and reused
 * for every upload: a, b, c, the tail scalars and indexes of each proof,
 * and the parameters on their first use. Pinning the caller's arrays per
 * proof instead (cudaHostRegister) was measured as a 30% GPU-time
 * regression on a 32 GiB proof (issue 6), so they are copied: chunk k is
 * filled by STAGE_COPY_THREADS host threads while the DMA engine drains
 * chunk 1 - k on the pool's own stream. Chunk size: 64 MiB keeps the DMA
 * in its asymptotic regime (a few microseconds of setup per transfer)
 * while the pool stays small.
 */
#include <string.h>

#include <thread>

#include "gpu/prove/prove_gpu.cuh"

#define STAGE_CHUNK        ((size_t)64 << 20)
#define STAGE_COPY_THREADS 8 /* one thread copies about 10 GB/s; PCIe 5 x16 takes ~55 */

struct stage_pool {
    char *host[2];
    cudaEvent_t done[2];
    cudaStream_t stream;
};
static stage_pool pool;

int prove_dev_alloc(void **p, size_t bytes, const groth16_params *keep, cuzk_err *err)
{
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
    if (e == cudaErrorMemoryAllocation && prove_srs_evict(keep) > 0) {
        cudaGetLastError(); /* clear the sticky-free allocation error */
        e = cudaMalloc(p, bytes ? bytes : 1);
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        *p = NULL;
        return cuzk_errf(err, CUZK_EDEVICE, "gpu prove: device allocation of %zu bytes: %s", bytes,
                         cudaGetErrorString(e));
    }
    return CUZK_OK;
}

int prove_dev_grow(void **p, size_t *cap, size_t bytes, const groth16_params *keep, cuzk_err *err)
{
    if (*p && *cap >= bytes) return CUZK_OK;
    cudaFree(*p);
    *p = NULL;
    *cap = 0;
    int rc = prove_dev_alloc(p, bytes, keep, err);
    if (!rc) *cap = bytes;
    return rc;
}

static int stage_init(cuzk_err *err)
{
    if (pool.stream) return CUZK_OK;
    for (int k = 0; k < 2; k++) {
        CU(cudaHostAlloc((void **)&pool.host[k], STAGE_CHUNK, cudaHostAllocDefault), err,
           "staging pool (pinned host memory)");
        CU(cudaEventCreateWithFlags(&pool.done[k], cudaEventDisableTiming), err, "staging event");
    }
    CU(cudaStreamCreateWithFlags(&pool.stream, cudaStreamNonBlocking), err, "staging stream");
    return CUZK_OK;
}

/* memcpy split over STAGE_COPY_THREADS threads for large copies. */
static void copy_parallel(char *dst, const char *src, size_t bytes)
{
    if (bytes < ((size_t)4 << 20)) {
        memcpy(dst, src, bytes);
        return;
    }
    std::thread th[STAGE_COPY_THREADS];
    size_t per = (bytes + STAGE_COPY_THREADS - 1) / STAGE_COPY_THREADS;
    for (int i = 0; i < STAGE_COPY_THREADS; i++) {
        size_t o = i * per, len = o < bytes ? (bytes - o < per ? bytes - o : per) : 0;
        th[i] = std::thread([=] { memcpy(dst + o, src + o, len); });
    }
    for (int i = 0; i < STAGE_COPY_THREADS; i++) th[i].join();
}

int prove_upload(void *dev, const void *host, size_t bytes, cuzk_err *err)
{
    int rc = stage_init(err);
    if (rc) return rc;
    for (size_t off = 0, i = 0; off < bytes; i++) {
        int k = (int)(i & 1);
        size_t len = bytes - off < STAGE_CHUNK ? bytes - off : STAGE_CHUNK;
        CU(cudaEventSynchronize(pool.done[k]), err, "staging wait");
        copy_parallel(pool.host[k], (const char *)host + off, len);
        CU(cudaMemcpyAsync((char *)dev + off, pool.host[k], len, cudaMemcpyHostToDevice,
                           pool.stream),
           err, "staging upload");
        CU(cudaEventRecord(pool.done[k], pool.stream), err, "staging event");
        off += len;
    }
    CU(cudaStreamSynchronize(pool.stream), err, "staging upload");
    return CUZK_OK;
}
