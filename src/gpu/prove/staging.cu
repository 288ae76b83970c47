/*
 * staging.cu - host-to-device copies through a pinned staging pool, and
 * device allocation that makes room by evicting cached parameters.
 *
 * A pool is two pinned chunks allocated once (cudaHostAlloc) and reused
 * for every upload, with a stream of its own (non-blocking, so its copies
 * overlap the kernels on the default stream). Pinning the caller's arrays
 * per proof instead (cudaHostRegister) was measured as a 30% GPU-time
 * regression on a 32 GiB proof (issue 6), so they are copied: chunk k is
 * filled by STAGE_COPY_THREADS host threads while the DMA engine drains
 * chunk 1 - k. Chunk size: 64 MiB keeps the DMA in its asymptotic regime
 * (a few microseconds of setup per transfer) while the pool stays small.
 * Two pools, so that two host threads can upload at once: STAGE_FG for
 * the prover thread (parameters, bitmaps, tails), STAGE_BG for the loader
 * that brings the next circuit's a, b, c in while the device works.
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
static stage_pool pools[2];

int prove_dev_alloc(void **p, size_t bytes, const groth16_params *keep, cuzk_err *err)
{
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
    if (e == cudaErrorMemoryAllocation && prove_srs_drop_g2() > 0) {
        cudaGetLastError(); /* clear the (non-sticky) allocation error */
        e = cudaMalloc(p, bytes ? bytes : 1);
    }
    if (e == cudaErrorMemoryAllocation && prove_srs_evict(keep) > 0) {
        cudaGetLastError();
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

static int stage_init(stage_pool *pool, cuzk_err *err)
{
    if (pool->stream) return CUZK_OK;
    for (int k = 0; k < 2; k++) {
        if (!pool->host[k])
            CU(cudaHostAlloc((void **)&pool->host[k], STAGE_CHUNK, cudaHostAllocDefault), err,
               "staging pool (pinned host memory)");
        if (!pool->done[k])
            CU(cudaEventCreateWithFlags(&pool->done[k], cudaEventDisableTiming), err,
               "staging event");
    }
    CU(cudaStreamCreateWithFlags(&pool->stream, cudaStreamNonBlocking), err, "staging stream");
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
        try {
            th[i] = std::thread([=] { memcpy(dst + o, src + o, len); });
        } catch (...) { /* no thread to spare: this part is copied here */
            memcpy(dst + o, src + o, len);
        }
    }
    for (int i = 0; i < STAGE_COPY_THREADS; i++)
        if (th[i].joinable()) th[i].join();
}

int prove_upload(int which, void *dev, const void *host, size_t bytes, cuzk_err *err)
{
    stage_pool *pool = &pools[which];
    int rc = stage_init(pool, err);
    if (rc) return rc;
    for (size_t off = 0, i = 0; off < bytes; i++) {
        int k = (int)(i & 1);
        size_t len = bytes - off < STAGE_CHUNK ? bytes - off : STAGE_CHUNK;
        CU(cudaEventSynchronize(pool->done[k]), err, "staging wait");
        copy_parallel(pool->host[k], (const char *)host + off, len);
        CU(cudaMemcpyAsync((char *)dev + off, pool->host[k], len, cudaMemcpyHostToDevice,
                           pool->stream),
           err, "staging upload");
        CU(cudaEventRecord(pool->done[k], pool->stream), err, "staging event");
        off += len;
    }
    CU(cudaStreamSynchronize(pool->stream), err, "staging upload");
    return CUZK_OK;
}

int prove_zero(int which, void *dev, size_t bytes, cuzk_err *err)
{
    stage_pool *pool = &pools[which];
    int rc = stage_init(pool, err);
    if (rc) return rc;
    CU(cudaMemsetAsync(dev, 0, bytes, pool->stream), err, "device zero fill");
    CU(cudaStreamSynchronize(pool->stream), err, "device zero fill");
    return CUZK_OK;
}

static double stage_now_ms(void)
{
    return groth16_now_ms();
}

/* GB/s of `bytes` moved by fn(off, len) in STAGE_CHUNK pieces, then
 * done() (the wait for asynchronous copies). */
template <class Fn, class Done> static double stage_rate(size_t bytes, Fn fn, Done done)
{
    double t0 = stage_now_ms();
    for (size_t off = 0; off < bytes; off += STAGE_CHUNK)
        fn(off, bytes - off < STAGE_CHUNK ? bytes - off : STAGE_CHUNK);
    done();
    return bytes / ((stage_now_ms() - t0) * 1e6);
}

/* The four rates of gpu_prove_bench_upload, with host and device buffers
 * of `bytes` ready. */
static int bench_rates(double gbps[4], char *dev, char *src, size_t bytes, cuzk_err *err)
{
    stage_pool *pool = &pools[STAGE_FG];
    int rc = prove_upload(STAGE_FG, dev, src, bytes, err); /* warm-up */
    double t0 = stage_now_ms();
    if (!rc) rc = prove_upload(STAGE_FG, dev, src, bytes, err);
    gbps[0] = bytes / ((stage_now_ms() - t0) * 1e6);
    cudaError_t e = cudaSuccess;
    auto keep = [&e](cudaError_t c) {
        if (e == cudaSuccess) e = c;
    };
    gbps[1] = stage_rate(
        bytes,
        [&](size_t off, size_t len) {
            keep(cudaMemcpyAsync(dev + off, pool->host[0], len, cudaMemcpyHostToDevice,
                                 pool->stream));
        },
        [&] { keep(cudaStreamSynchronize(pool->stream)); });
    CU(e, err, "upload bench");
    gbps[2] = stage_rate(
        bytes, [&](size_t off, size_t len) { copy_parallel(pool->host[0], src + off, len); },
        [] {});
    t0 = stage_now_ms();
    CU(cudaMemcpy(dev, src, bytes, cudaMemcpyHostToDevice), err, "upload bench (pageable)");
    gbps[3] = bytes / ((stage_now_ms() - t0) * 1e6);
    return rc;
}

extern "C" int gpu_prove_bench_upload(size_t bytes, double gbps[4], cuzk_err *err)
{
    char *src = (char *)malloc(bytes ? bytes : 1);
    if (!src) return cuzk_errf(err, CUZK_ENOMEM, "upload bench: %zu bytes of host memory", bytes);
    memset(src, 1, bytes);
    prove_lock();
    void *dev = NULL;
    int rc = prove_dev_alloc(&dev, bytes, NULL, err);
    if (!rc) rc = bench_rates(gbps, (char *)dev, src, bytes, err);
    cudaFree(dev);
    prove_unlock();
    free(src);
    return rc;
}
