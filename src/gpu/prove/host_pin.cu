/*
 * host_pin.cu - page-locks the host copy of parameter arrays that are
 * streamed to a device, once per array and process (prove_pin).
 *
 * A streamed array's chunks go to the device by DMA straight from its
 * host copy, which needs the pages locked (cudaHostRegister). Locking is
 * process-wide, and the same parameters may stream to several devices,
 * so the registry counts the holders of each array (the parameter cache
 * entries of the devices, srs_cache.cu) and unlocks it when the last one
 * lets go (the entry freed or evicted: gpu_prove_params_free). Locking
 * 40 GiB costs seconds, which is why it is done when an entry is made and
 * never per proof. Memory that cannot be locked (a read-only mapping
 * without CUDA's read-only registration, a locked-memory limit) is
 * reported as not pinned; the stream then stages its chunks through the
 * pinned staging pool (staging.cu), at a cost of host CPU and link rate
 * the operator is told of once an array (a warning naming the limit).
 */
#include <map>
#include <mutex>

#include "gpu/prove/prove_gpu.cuh"

extern "C" {
#include "cuzk/engine_log.h"
}

struct pin_entry {
    size_t bytes;
    unsigned holders;
};
static std::mutex pin_mu;
static std::map<const void *, pin_entry> pins;

bool prove_pin(const void *p, size_t bytes, const char *what)
{
    if (!p || !bytes) return false;
    std::lock_guard<std::mutex> g(pin_mu);
    auto it = pins.find(p);
    if (it != pins.end() && it->second.bytes == bytes) {
        it->second.holders++;
        return true;
    }
    if (it != pins.end()) return false; /* another range at p: stays staged */
    cudaError_t e = cudaHostRegister((void *)p, bytes, cudaHostRegisterPortable);
    if (e != cudaSuccess) {
        cudaGetLastError();
        e = cudaHostRegister((void *)p, bytes, cudaHostRegisterPortable | cudaHostRegisterReadOnly);
    }
    if (e != cudaSuccess) {
        bool gib = bytes >= ((size_t)1 << 30);
        engine_log(LOG_WARN,
                   "gpu prove: cannot page-lock %.1f %s of %s in host memory (%s): "
                   "their chunks are copied through the staging buffers instead, which costs "
                   "host CPU and link rate; raise the locked-memory limit (the systemd unit's "
                   "LimitMEMLOCK=infinity, ulimit -l unlimited)",
                   (double)bytes / (gib ? 1 << 30 : 1 << 20), gib ? "GiB" : "MiB", what,
                   cudaGetErrorString(e));
        cudaGetLastError(); /* not sticky: the chunks are staged instead */
        return false;
    }
    pins[p] = {bytes, 1};
    return true;
}

void prove_unpin(const void *p)
{
    std::lock_guard<std::mutex> g(pin_mu);
    auto it = pins.find(p);
    if (it == pins.end() || --it->second.holders > 0) return;
    if (cudaHostUnregister((void *)p) != cudaSuccess) cudaGetLastError();
    pins.erase(it);
}
