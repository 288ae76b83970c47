/*
 * lane.cu - the calling thread's stream and lane (lane.cuh), and each
 * device's lane: its stream and its reserved device memory.
 *
 * A lane's memory is one cudaMalloc made when the lane is set up
 * (cu_lane_setup); cu_malloc in the lane's threads carves blocks out of
 * it first fit (offsets rounded to 256 bytes, as cudaMalloc's), cu_free
 * gives them back and merges free neighbours. Nothing here calls
 * cudaMalloc or cudaFree after the setup, so the lane never waits for
 * the device (they synchronize it) and never finds it full: a lane that
 * cannot place a block lacks room in its own reservation, which the
 * prover treats as a full device (its parameter cache is evicted and the
 * allocation tried again).
 *
 * The big prover's blocks (cudaMalloc'ed) are listed while they live, so
 * that a start out of memory under a plan that fit can say what the
 * prover held (cu_mem_live_format): a plan that did not count one of its
 * own allocations, told apart from another process's.
 */
#include <stdio.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "gpu/util/lane.cuh"

static thread_local cu_ctx cu_cur = {0, false, -1};

cu_ctx cu_context(void)
{
    return cu_cur;
}

void cu_context_set(cu_ctx c)
{
    cu_cur = c;
}

/* One device's lane: its stream and reservation (base, bytes), the free
 * blocks (offset -> bytes) and those handed out (address -> bytes). */
struct lane_dev {
    std::mutex mu;
    cudaStream_t stream;
    char *base;
    size_t bytes;
    std::map<size_t, size_t> free_at;
    std::map<char *, size_t> used;
};
static lane_dev lanes[CU_MAX_DEVICES];

cudaError_t cu_stream_new(cudaStream_t *st)
{
    int lo = 0, hi = 0;
    if (!cu_context().lane) return cudaStreamCreateWithFlags(st, cudaStreamNonBlocking);
    cudaError_t e = cudaDeviceGetStreamPriorityRange(&lo, &hi);
    return e != cudaSuccess ? e : cudaStreamCreateWithPriority(st, cudaStreamNonBlocking, hi);
}

cudaError_t cu_slot_enter(int slot)
{
    if (slot < 0 || slot >= CU_MAX_SLOTS) return cudaErrorInvalidDevice;
    int dev = slot % CU_MAX_DEVICES;
    cu_ctx c = {0, slot >= CU_MAX_DEVICES, dev};
    if (c.lane) {
        std::lock_guard<std::mutex> hold(lanes[dev].mu);
        c.stream = lanes[dev].stream;
    }
    cu_context_set(c);
    return cudaSetDevice(dev);
}

static lane_dev *lane_of_caller(void)
{
    int dev;
    if (!cu_context().lane || cu_device(&dev, NULL)) return NULL;
    return &lanes[dev];
}

/* The big prover's live blocks: address -> (device, bytes). */
static std::mutex live_mu;
static std::unordered_map<void *, std::pair<int, size_t>> live;

cudaError_t cu_malloc(void **p, size_t bytes)
{
    if (!cu_context().lane) {
        int dev = -1;
        cudaError_t e = cudaMalloc(p, bytes);
        if (e == cudaSuccess && *p && cudaGetDevice(&dev) == cudaSuccess) {
            std::lock_guard<std::mutex> hold(live_mu);
            live[*p] = {dev, bytes};
        }
        return e;
    }
    lane_dev *l = lane_of_caller();
    *p = NULL;
    if (!l) return cudaErrorInvalidDevice;
    size_t want = cu_align256(bytes ? bytes : 1);
    std::lock_guard<std::mutex> hold(l->mu);
    for (auto it = l->free_at.begin(); it != l->free_at.end(); ++it) {
        if (it->second < want) continue;
        size_t at = it->first, left = it->second - want;
        l->free_at.erase(it);
        if (left) l->free_at[at + want] = left;
        *p = l->base + at;
        l->used[l->base + at] = want;
        return cudaSuccess;
    }
    return cudaErrorMemoryAllocation;
}

cudaError_t cu_free(void *p)
{
    if (!cu_context().lane || !p) {
        if (p) {
            std::lock_guard<std::mutex> hold(live_mu);
            live.erase(p);
        }
        return cudaFree(p);
    }
    lane_dev *l = lane_of_caller();
    if (!l) return cudaErrorInvalidDevice;
    std::lock_guard<std::mutex> hold(l->mu);
    auto u = l->used.find((char *)p);
    if (u == l->used.end()) return cudaErrorInvalidValue;
    size_t at = (size_t)((char *)p - l->base), len = u->second;
    l->used.erase(u);
    auto next = l->free_at.lower_bound(at);
    if (next != l->free_at.end() && next->first == at + len)
        len += next->second, next = l->free_at.erase(next);
    if (next != l->free_at.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == at) {
            prev->second += len;
            return cudaSuccess;
        }
    }
    l->free_at[at] = len;
    return cudaSuccess;
}

int cu_lane_setup(int dev, size_t bytes, cuzk_err *err)
{
    if (dev < 0 || dev >= CU_MAX_DEVICES)
        return cuzk_errf(err, CUZK_EINVAL, "gpu lane: device %d (at most %d)", dev, CU_MAX_DEVICES);
    lane_dev *l = &lanes[dev];
    std::lock_guard<std::mutex> hold(l->mu);
    if (l->base) return CUZK_OK;
    CU(cudaSetDevice(dev), err, "cudaSetDevice");
    int lo = 0, hi = 0;
    CU(cudaDeviceGetStreamPriorityRange(&lo, &hi), err, "lane stream priorities");
    if (!l->stream)
        CU(cudaStreamCreateWithPriority(&l->stream, cudaStreamNonBlocking, hi), err, "lane stream");
    void *base = NULL;
    cudaError_t e = cudaMalloc(&base, bytes ? bytes : 1);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        return cuzk_errf(err, CUZK_ENOMEM,
                         "gpu lane: device %d has no %zu bytes free for the small-circuit lane",
                         dev, bytes);
    }
    CU(e, err, "lane reservation");
    l->base = (char *)base, l->bytes = bytes;
    l->free_at.clear(), l->used.clear();
    l->free_at[0] = bytes;
    return CUZK_OK;
}

void cu_lane_teardown(int dev)
{
    if (dev < 0 || dev >= CU_MAX_DEVICES) return;
    lane_dev *l = &lanes[dev];
    std::lock_guard<std::mutex> hold(l->mu);
    if (!l->base) return;
    if (cudaSetDevice(dev) == cudaSuccess) cudaFree(l->base);
    cudaGetLastError();
    l->base = NULL, l->bytes = 0;
    l->free_at.clear(), l->used.clear();
}

bool cu_lane_ready(int dev, cudaStream_t *st, size_t *bytes)
{
    if (dev < 0 || dev >= CU_MAX_DEVICES) return false;
    lane_dev *l = &lanes[dev];
    std::lock_guard<std::mutex> hold(l->mu);
    if (st) *st = l->stream;
    if (bytes) *bytes = l->bytes;
    return l->base != NULL;
}

size_t cu_lane_used(int dev)
{
    if (dev < 0 || dev >= CU_MAX_DEVICES) return 0;
    lane_dev *l = &lanes[dev];
    std::lock_guard<std::mutex> hold(l->mu);
    size_t u = 0;
    for (auto &b : l->used) u += b.second;
    return u;
}

size_t cu_mem_live_format(int dev, char *out, size_t len)
{
    std::map<size_t, size_t> by_size; /* bytes -> blocks of that size */
    size_t total = 0, blocks = 0;
    {
        std::lock_guard<std::mutex> hold(live_mu);
        for (const auto &b : live)
            if (b.second.first == dev)
                by_size[b.second.second]++, total += b.second.second, blocks++;
    }
    std::vector<std::pair<size_t, size_t>> rows(by_size.begin(), by_size.end());
    std::sort(rows.begin(), rows.end(),
              [](const auto &a, const auto &b) { return a.first * a.second > b.first * b.second; });
    size_t at = 0;
    auto put = [&](int n) {
        at += n > 0 ? (size_t)n : 0, at = at < len ? at : (len ? len - 1 : 0);
    };
    if (len) out[0] = 0;
    put(snprintf(out, len, "%zu blocks, %.1f MiB", blocks, (double)total / (1 << 20)));
    for (size_t i = 0; i < rows.size() && i < CU_MEM_LIVE_ROWS; i++)
        put(snprintf(out + at, len - at, "%s%.1f MiB x%zu", i ? ", " : ": ",
                     (double)rows[i].first / (1 << 20), rows[i].second));
    if (rows.size() > CU_MEM_LIVE_ROWS) put(snprintf(out + at, len - at, ", ..."));
    return total;
}
