/*
 * staging.cu - host-to-device copies through a pinned staging pool, and
 * device allocation that makes room by evicting cached parameters.
 *
 * A pool is STAGE_SLOTS pinned chunks allocated once (cudaHostAlloc) and
 * reused for every upload, with a stream of its own (non-blocking, so its
 * copies overlap the kernels on the default stream). Pinning the caller's
 * arrays per proof instead (cudaHostRegister) was measured as a 30%
 * GPU-time regression on a 32 GiB proof (issue 6), so they are copied:
 * STAGE_COPY_THREADS host threads (the caller and helpers started per
 * upload) take pieces of STAGE_PIECE bytes in order from a shared counter
 * and copy each into its chunk's slot; whichever thread copies a chunk's
 * last piece hands the chunk to the DMA engine. A slot is refilled once
 * its previous chunk's DMA is done, so up to STAGE_SLOTS chunks are in
 * flight and a thread that the host's scheduler sets aside (synthesis
 * keeps every core busy) holds up one piece, not every thread at a
 * per-chunk barrier. A pool per uploading thread: STAGE_FG for the
 * prover thread (parameters; bitmaps and tails that prep did not stage),
 * STAGE_BG for the loader that brings the next circuit's a, b, c in while
 * the device works, STAGE_PREP for prep's bitmaps and tails; and each
 * device has its own three (a stream and its events belong to one device),
 * picked by the uploading thread's current device, whose copy threads make
 * that device current too.
 *
 * prove_upload_fr uploads field elements the same way, but a copy thread
 * packs each piece it takes (fr_pack.cuh: bits for the zeros and ones,
 * the other values after them) when that takes at most a quarter of the
 * piece, and the chunk's packed pieces go up into the pool's device
 * memory for them and are expanded there on the pool's stream
 * (prove_unpack_fr) into their place; the pieces that do not pack go as
 * they are. A 32 GiB PoRep partition's witness (98.7% zeros and ones)
 * crosses as ~2.3% of its 4.2 GB, and the copy threads write that much
 * into the pinned chunks instead of all of it.
 *
 * prove_upload_fr_kept packs the same way but keeps the pieces on the
 * device as they crossed (wit_view.cuh): the thread that completes a
 * chunk takes the room its pieces need from a shared counter over the
 * caller's buffer and queues each piece there, and once every chunk is
 * up the table of where each piece went follows. When the pieces need
 * more than the buffer the upload stops and says so.
 */
#include <string.h>

#include <atomic>
#include <mutex>
#include <new>
#include <thread>

#include "gpu/prove/fr_pack.cuh"
#include "gpu/prove/prove_gpu.cuh"
#include "gpu/prove/wit_view.cuh"

#define STAGE_CHUNK        ((size_t)32 << 20)
#define STAGE_SLOTS        4
#define STAGE_PIECE        ((size_t)4 << 20)
#define STAGE_COPY_THREADS 8 /* one thread copies about 10 GB/s; PCIe 5 x16 takes ~55 */
/* prove_upload_fr: a piece goes packed when that takes at most a quarter
 * of it (fr_pack_cap), into its place in the pool's device memory for packed
 * pieces (STAGE_SLOTS chunks of STAGE_CHUNK / STAGE_PIECE of them) */
#define STAGE_PACK_MAX (STAGE_PIECE / 4)
#define STAGE_SCRATCH  (STAGE_SLOTS * (STAGE_CHUNK / STAGE_PIECE) * STAGE_PACK_MAX)
static_assert(STAGE_PIECE == sizeof(fr_t) * WIT_PIECE, "a kept piece is a staged piece");

struct stage_pool {
    char *host[STAGE_SLOTS];
    cudaEvent_t done[STAGE_SLOTS];
    cudaStream_t stream;
    std::mutex busy; /* one upload at a time (two preps may overlap) */
    char *scratch;   /* device: the packed pieces (prove_upload_fr; prove_stage_scratch) */
    bool scratch_tried;
};
static stage_pool pools[CU_MAX_SLOTS][STAGE_POOLS];

int prove_dev_alloc(void **p, size_t bytes, const groth16_params *keep, cuzk_err *err)
{
    int dev;
    *p = NULL;
    int rc = cu_slot(&dev, err);
    if (rc) return rc;
    cudaError_t e = cu_malloc(p, bytes ? bytes : 1);
    if (e == cudaErrorMemoryAllocation && prove_srs_drop_g2(dev) > 0) {
        cudaGetLastError(); /* clear the (non-sticky) allocation error */
        e = cu_malloc(p, bytes ? bytes : 1);
    }
    if (e == cudaErrorMemoryAllocation && prove_srs_evict(dev, keep) > 0) {
        cudaGetLastError();
        e = cu_malloc(p, bytes ? bytes : 1);
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        *p = NULL;
        return cuzk_errf(err, e == cudaErrorMemoryAllocation ? CUZK_ENOMEM : CUZK_EDEVICE,
                         "gpu prove: allocation of %zu bytes on device %d: %s", bytes, dev,
                         cudaGetErrorString(e));
    }
    return CUZK_OK;
}

int prove_dev_grow(void **p, size_t *cap, size_t bytes, const groth16_params *keep, cuzk_err *err)
{
    if (*p && *cap >= bytes) return CUZK_OK;
    cu_free(*p);
    *p = NULL;
    *cap = 0;
    int rc = prove_dev_alloc(p, bytes, keep, err);
    if (!rc) *cap = bytes;
    return rc;
}

int prove_dev_grow_free(void **p, size_t *cap, size_t bytes, cuzk_err *err)
{
    if (*p && *cap >= bytes) return CUZK_OK;
    void *d = NULL;
    cudaError_t e = cu_malloc(&d, bytes ? bytes : 1);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* not sticky */
        return cuzk_errf(err, CUZK_ENOMEM, "gpu prove: no %zu bytes free on the device", bytes);
    }
    if (e != cudaSuccess) return cu_fail(e, err, "cudaMalloc", __FILE__, __LINE__);
    cu_free(*p);
    *p = d, *cap = bytes;
    return CUZK_OK;
}

static int stage_init(stage_pool *pool, cuzk_err *err)
{
    if (pool->stream) return CUZK_OK;
    for (int k = 0; k < STAGE_SLOTS; k++) {
        if (!pool->host[k])
            CU(cudaHostAlloc((void **)&pool->host[k], STAGE_CHUNK, cudaHostAllocDefault), err,
               "staging pool (pinned host memory)");
        if (!pool->done[k]) CU(cu_event_new(&pool->done[k], false), err, "staging event");
    }
    CU(cu_stream_new(&pool->stream), err, "staging stream");
    return CUZK_OK;
}

/* memcpy split over STAGE_COPY_THREADS threads: the host-copy rate that
 * gpu_prove_bench_upload reports beside the staged one. */
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

/* One upload of prove_upload: the pieces, the chunks' countdowns, and the
 * first CUDA error; with scratch (prove_upload_fr), each piece's packed
 * bytes (0: it goes as it is). */
struct stage_job {
    stage_pool *pool;
    int device;
    char *dev;
    const char *src;
    size_t bytes, chunks, pieces;
    std::atomic<size_t> next;
    std::atomic<int> *left;    /* pieces of chunk c not yet copied */
    std::atomic<bool> *issued; /* chunk c's DMA is queued */
    std::atomic<int> error;    /* cudaError_t */
    xfer_acct *acct;           /* the caller's account (xfer_stats.cuh) */
    int what;                  /* what the bytes carry there */
    char *scratch;             /* the pool's, for packed pieces; NULL: none packed */
    size_t *packed;            /* by piece */
    char *keep;                /* prove_upload_fr_kept: where the pieces stay (NULL: none) */
    size_t keep_cap;
    std::atomic<size_t> kept; /* bytes of keep taken so far */
    std::atomic<bool> full;   /* a chunk found no room left there */
    uint64_t *at;             /* by piece: its offset in keep (| WIT_AS_IS) */
};

/* The most a piece of len bytes may take packed: a quarter of it. */
static size_t fr_pack_cap(size_t len)
{
    return len / 4;
}

/* The bytes a piece of len bytes at v crosses as: packed, or as it is
 * past fr_pack_cap. */
static size_t fr_piece_bytes(const fr_t *v, size_t len)
{
    size_t packed = fr_pack_size(v, len / sizeof(fr_t));
    return packed <= fr_pack_cap(len) ? packed : len;
}

static size_t stage_len(size_t bytes, size_t off, size_t max)
{
    return bytes - off < max ? bytes - off : max;
}

static void stage_fail(stage_job *j, cudaError_t e)
{
    int none = cudaSuccess;
    if (e != cudaSuccess) j->error.compare_exchange_strong(none, (int)e);
}

/* Chunk c of a prove_upload_fr (in its slot): each run of pieces that go
 * as they are in one copy, each packed piece up into its place in the
 * scratch and expanded there into its destination. */
static void stage_issue_packed(stage_job *j, size_t c, size_t slot)
{
    const size_t per = STAGE_CHUNK / STAGE_PIECE, at = c * STAGE_CHUNK;
    stage_pool *pool = j->pool;
    size_t first = c * per, end = first + per < j->pieces ? first + per : j->pieces, run = first;
    for (size_t i = first; i <= end; i++) {
        if (i < end && !j->packed[i]) continue;
        if (run < i) { /* pieces run .. i - 1 as they are */
            size_t lo = (run - first) * STAGE_PIECE;
            size_t len = stage_len(j->bytes, at + lo, (i - run) * STAGE_PIECE);
            stage_fail(j, xfer_copy_async(j->dev + at + lo, pool->host[slot] + lo, len, j->what,
                                          pool->stream, j->acct));
        }
        run = i + 1;
        if (i == end) break;
        size_t lo = (i - first) * STAGE_PIECE, len = stage_len(j->bytes, at + lo, STAGE_PIECE);
        char *d = j->scratch + (slot * per + (i - first)) * STAGE_PACK_MAX;
        stage_fail(j, xfer_copy_async(d, pool->host[slot] + lo, j->packed[i], j->what, pool->stream,
                                      j->acct));
        if (prove_unpack_fr((fr_t *)(j->dev + at + lo), d, len / sizeof(fr_t), pool->stream, NULL))
            stage_fail(j, cudaErrorLaunchFailure);
    }
}

/* The bytes piece i of an upload with packed pieces crosses as: packed,
 * or as it is. */
static size_t piece_crossing(const stage_job *j, size_t i)
{
    return j->packed[i] ? j->packed[i] : stage_len(j->bytes, i * STAGE_PIECE, STAGE_PIECE);
}

/* Chunk c of a prove_upload_fr_kept (in its slot): its pieces' room
 * taken from keep and each piece queued into it, packed or as it is; none
 * when keep has no room left (full). */
static void stage_issue_kept(stage_job *j, size_t c, size_t slot)
{
    const size_t per = STAGE_CHUNK / STAGE_PIECE;
    size_t first = c * per, end = first + per < j->pieces ? first + per : j->pieces, total = 0;
    for (size_t i = first; i < end; i++) total += piece_crossing(j, i);
    size_t off = j->kept.fetch_add(total);
    if (off > j->keep_cap || total > j->keep_cap - off) {
        j->full = true;
        return;
    }
    for (size_t i = first; i < end; i++) {
        size_t lo = (i - first) * STAGE_PIECE, len = piece_crossing(j, i);
        j->at[i] = off | (j->packed[i] ? 0 : WIT_AS_IS);
        stage_fail(j, xfer_copy_async(j->keep + off, j->pool->host[slot] + lo, len, j->what,
                                      j->pool->stream, j->acct));
        off += len;
    }
}

/* A copying thread: pieces in order until none is left or a call failed. */
static void stage_worker(stage_job *j)
{
    const size_t per = STAGE_CHUNK / STAGE_PIECE;
    stage_fail(j, cudaSetDevice(j->device));
    for (;;) {
        size_t i = j->next.fetch_add(1);
        if (i >= j->pieces || j->error.load() != cudaSuccess || j->full.load()) return;
        size_t c = i / per, slot = c % STAGE_SLOTS, at = c * STAGE_CHUNK;
        size_t off = (i % per) * STAGE_PIECE;
        if (c >= STAGE_SLOTS) { /* the slot's previous chunk must be on the device */
            while (!j->issued[c - STAGE_SLOTS].load(std::memory_order_acquire)) {
                if (j->error.load() != cudaSuccess || j->full.load()) return;
                std::this_thread::yield();
            }
            stage_fail(j, cudaEventSynchronize(j->pool->done[slot]));
        }
        size_t len = stage_len(j->bytes, at + off, STAGE_PIECE);
        char *h = j->pool->host[slot] + off;
        bool pack = j->scratch || j->keep;
        if (pack)
            j->packed[i] =
                fr_pack(h, fr_pack_cap(len), (const fr_t *)(j->src + at + off), len / sizeof(fr_t));
        if (!pack || !j->packed[i]) memcpy(h, j->src + at + off, len);
        if (j->left[c].fetch_sub(1) != 1) continue;
        stage_pool *pool = j->pool;
        if (j->keep)
            stage_issue_kept(j, c, slot);
        else if (j->scratch)
            stage_issue_packed(j, c, slot);
        else
            stage_fail(j, xfer_copy_async(j->dev + at, pool->host[slot],
                                          stage_len(j->bytes, at, STAGE_CHUNK), j->what,
                                          pool->stream, j->acct));
        stage_fail(j, cudaEventRecord(pool->done[slot], pool->stream));
        j->issued[c].store(true, std::memory_order_release);
    }
}

/* prove_upload_fr_kept's place: cap bytes for the pieces; what they took
 * and whether they fit (out). */
struct stage_keep {
    size_t cap, used;
    bool fits;
};

/* prove_upload, with fr prove_upload_fr's packed pieces, and with keep
 * too prove_upload_fr_kept's: the table at dev, the pieces after it. */
static int stage_upload(int which, int what, void *dev, const void *host, size_t bytes, bool fr,
                        stage_keep *keep, cuzk_err *err)
{
    int device, slot;
    int rc = cu_device(&device, err);
    if (!rc) rc = cu_slot(&slot, err);
    if (rc) return rc;
    stage_pool *pool = &pools[slot][which];
    std::lock_guard<std::mutex> hold(pool->busy);
    rc = stage_init(pool, err);
    if (rc || bytes == 0) return rc;
    stage_job j;
    j.pool = pool, j.device = device;
    j.dev = (char *)dev, j.src = (const char *)host, j.bytes = bytes;
    j.chunks = (bytes + STAGE_CHUNK - 1) / STAGE_CHUNK;
    j.pieces = (j.chunks - 1) * (STAGE_CHUNK / STAGE_PIECE) +
               (stage_len(bytes, (j.chunks - 1) * STAGE_CHUNK, STAGE_CHUNK) + STAGE_PIECE - 1) /
                   STAGE_PIECE;
    j.next = 0;
    j.error = cudaSuccess;
    j.acct = xfer_bound(), j.what = what;
    j.left = new (std::nothrow) std::atomic<int>[j.chunks];
    j.issued = new (std::nothrow) std::atomic<bool>[j.chunks];
    j.scratch = fr && !keep ? pool->scratch : NULL;
    j.keep = keep ? (char *)dev + wit_table_bytes(bytes / sizeof(fr_t)) : NULL;
    j.keep_cap = keep ? keep->cap : 0;
    j.kept = 0, j.full = false;
    j.at = keep ? new (std::nothrow) uint64_t[j.pieces] : NULL;
    j.packed = j.scratch || keep ? new (std::nothrow) size_t[j.pieces] : NULL;
    if (!j.packed) j.scratch = NULL; /* as they are */
    if (!j.left || !j.issued || (keep && (!j.at || !j.packed))) {
        delete[] j.left;
        delete[] j.issued;
        delete[] j.packed;
        delete[] j.at;
        return cuzk_errf(err, CUZK_ENOMEM, "staging: %zu chunks", j.chunks);
    }
    for (size_t c = 0; c < j.chunks; c++) {
        size_t len = stage_len(bytes, c * STAGE_CHUNK, STAGE_CHUNK);
        j.left[c] = (int)((len + STAGE_PIECE - 1) / STAGE_PIECE);
        j.issued[c] = false;
    }
    /* helpers only where there is more than one piece to share */
    size_t helpers = j.pieces > STAGE_COPY_THREADS ? STAGE_COPY_THREADS - 1 : j.pieces - 1;
    std::thread th[STAGE_COPY_THREADS];
    for (size_t t = 0; t < helpers; t++) {
        try {
            /* each helper's CPU counted for the caller's account */
            th[t] = std::thread([&j] {
                double t0 = xfer_thread_cpu_ms();
                stage_worker(&j);
                xfer_cpu(j.acct, xfer_thread_cpu_ms() - t0);
            });
        } catch (...) { /* fewer helpers: the others take their pieces */
            break;
        }
    }
    stage_worker(&j);
    for (size_t t = 0; t < helpers; t++)
        if (th[t].joinable()) th[t].join();
    delete[] j.left;
    delete[] j.issued;
    delete[] j.packed;
    if (keep) keep->fits = !j.full.load(), keep->used = j.kept.load();
    if (keep && keep->fits && j.error.load() == cudaSuccess) /* where each piece went */
        stage_fail(&j, xfer_copy_async(dev, j.at, j.pieces * sizeof(uint64_t), what, pool->stream,
                                       j.acct));
    /* every queued DMA finishes before its source slots (and the table) are reused */
    cudaError_t e = cudaStreamSynchronize(pool->stream);
    delete[] j.at;
    CU(j.error.load() != cudaSuccess ? (cudaError_t)j.error.load() : e, err, "staging upload");
    return CUZK_OK;
}

int prove_upload(int which, int what, void *dev, const void *host, size_t bytes, cuzk_err *err)
{
    return stage_upload(which, what, dev, host, bytes, false, NULL, err);
}

int prove_upload_fr(int which, int what, fr_t *dev, const fr_t *host, size_t n, cuzk_err *err)
{
    return stage_upload(which, what, dev, host, n * sizeof(fr_t), true, NULL, err);
}

int prove_upload_fr_kept(int which, int what, void *dev, size_t cap, const fr_t *host, size_t n,
                         size_t *used, bool *fits, cuzk_err *err)
{
    stage_keep keep = {cap, 0, true};
    int rc = n ? stage_upload(which, what, dev, host, n * sizeof(fr_t), true, &keep, err) : CUZK_OK;
    *used = keep.used, *fits = keep.fits;
    return rc;
}

size_t prove_upload_fr_bytes(const fr_t *host, size_t n)
{
    size_t bytes = n * sizeof(fr_t), sum = 0;
    for (size_t at = 0; at < bytes; at += STAGE_PIECE)
        sum += fr_piece_bytes(host + at / sizeof(fr_t), stage_len(bytes, at, STAGE_PIECE));
    return sum;
}

void prove_stage_scratch(int which)
{
    int slot;
    if (cu_slot(&slot, NULL) || slot >= CU_MAX_DEVICES) return; /* a lane packs nothing */
    stage_pool *pool = &pools[slot][which];
    std::lock_guard<std::mutex> hold(pool->busy);
    if (pool->scratch_tried) return;
    pool->scratch_tried = true;
    if (cu_malloc((void **)&pool->scratch, STAGE_SCRATCH) != cudaSuccess) {
        cudaGetLastError(); /* not sticky: the uploads go as they are */
        pool->scratch = NULL;
    }
}

void prove_stage_release(int slot)
{
    for (int k = 0; k < STAGE_POOLS; k++) {
        stage_pool *pool = &pools[slot][k];
        std::lock_guard<std::mutex> hold(pool->busy);
        cu_free(pool->scratch);
        pool->scratch = NULL;
        pool->scratch_tried = false;
    }
}

size_t prove_stage_scratch_bytes(int slot)
{
    size_t b = 0;
    for (int k = 0; k < STAGE_POOLS; k++) {
        std::lock_guard<std::mutex> hold(pools[slot][k].busy);
        b += pools[slot][k].scratch ? STAGE_SCRATCH : 0;
    }
    return b;
}

int prove_stage_warm(cuzk_err *err)
{
    int slot;
    int rc = cu_slot(&slot, err);
    for (int k = 0; !rc && k < STAGE_POOLS; k++) {
        std::lock_guard<std::mutex> hold(pools[slot][k].busy);
        rc = stage_init(&pools[slot][k], err);
    }
    return rc;
}

int prove_zero(int which, void *dev, size_t bytes, cuzk_err *err)
{
    int device;
    int rc = cu_slot(&device, err);
    if (rc) return rc;
    stage_pool *pool = &pools[device][which];
    std::lock_guard<std::mutex> hold(pool->busy);
    rc = stage_init(pool, err);
    if (rc) return rc;
    CU(cudaMemsetAsync(dev, 0, bytes, pool->stream), err, "device zero fill");
    CU(cudaStreamSynchronize(pool->stream), err, "device zero fill");
    return CUZK_OK;
}

extern "C" size_t gpu_prove_pinned_bytes_per_device(void)
{
    return (size_t)STAGE_POOLS * STAGE_SLOTS * STAGE_CHUNK;
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
static int bench_rates(int device, double gbps[4], char *dev, char *src, size_t bytes,
                       cuzk_err *err)
{
    stage_pool *pool = &pools[device][STAGE_FG];
    int rc = prove_upload(STAGE_FG, GROTH16_XFER_INPUT, dev, src, bytes, err); /* warm-up */
    double t0 = stage_now_ms();
    if (!rc) rc = prove_upload(STAGE_FG, GROTH16_XFER_INPUT, dev, src, bytes, err);
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
    int device;
    int rc = cu_slot(&device, err);
    if (rc) {
        free(src);
        return rc;
    }
    prove_lock(device);
    void *dev = NULL;
    rc = prove_dev_alloc(&dev, bytes, NULL, err);
    if (!rc) rc = bench_rates(device, gbps, (char *)dev, src, bytes, err);
    cu_free(dev);
    prove_unlock(device);
    free(src);
    return rc;
}
