/*
 * cuda_runtime.h - a host-only stand-in for the CUDA runtime, so that the
 * GPU prover's host code (src/gpu/prove: the pipeline's threads, staging
 * pools, parameter cache, buffers and error paths) runs and is checked on
 * machines without a GPU (test_gpu_prove_host).
 *
 * It models host_device_count devices (1 unless a test sets more), each
 * with its own memory and its own failures, and a current device per
 * host thread (cudaSetDevice / cudaGetDevice), as CUDA has. "Device"
 * memory is host memory from malloc, filled with garbage like fresh
 * device memory, limited per device (host_device_limit) so that running
 * out of it can be provoked, and registered with the device it was
 * allocated on: a copy, fill or stand-in kernel given memory of another
 * device than the one it runs on (its stream's, or the current one) fails
 * with cudaErrorInvalidValue, so per-device state mixed up between
 * devices shows. Streams and events belong to the device current when
 * they were made; recording an event of one device on a stream of another
 * fails as in CUDA. A device can be made to fail (host_device_fail): lost
 * at once, or after a number of further calls, from then on every call on
 * it returns its sticky error, as a CUDA context does after a fault.
 * Asynchronous copies can be slowed down (host_dma_delay_us) to make the
 * prover overlap them; copies and fills are memcpy and memset, and every
 * copy is complete when it returns (an event records the host's clock,
 * so the times between events are those of the work between them); the
 * bytes copied each way are counted per device (host_copied). The CUDA keywords of the device
 * headers become plain C++. Included first in every translation unit of
 * the test (-include).
 */
#ifndef CUZK_TESTS_GPUHOST_CUDA_RUNTIME_H
#define CUZK_TESTS_GPUHOST_CUDA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
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
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorDevicesUnavailable = 46,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorHostMemoryAlreadyRegistered = 712,
    cudaErrorHostMemoryNotRegistered = 713,
    cudaErrorLaunchFailure = 719,
} cudaError_t;
typedef enum {
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3
} cudaMemcpyKind;
struct host_stream {
    int device;
    int priority; /* lower is greater, as in CUDA */
};
struct host_event {
    int device;
    double ms;      /* when it was recorded (steady clock): work here is done on return */
    unsigned flags; /* cudaEventCreateWithFlags' */
};
typedef struct host_stream *cudaStream_t;
typedef struct host_event *cudaEvent_t;
#define cudaStreamNonBlocking          1
#define cudaDeviceScheduleBlockingSync 4
#define cudaInitDeviceFlagsAreValid    1
#define cudaEventBlockingSync          1
#define cudaEventDisableTiming         2
#define cudaHostAllocDefault           0
#define cudaHostAllocPortable          1
#define cudaHostAllocMapped            2
#define cudaHostRegisterPortable       1
#define cudaHostRegisterReadOnly       8

struct cudaDeviceProp {
    char name[256];
    int major, minor, multiProcessorCount, l2CacheSize;
    size_t totalGlobalMem;
};

#define HOST_DEVICE_TOTAL ((size_t)1 << 36) /* what each stand-in device reports */
#define HOST_MAX_DEVICES  4
/* Devices the runtime lists (1 .. HOST_MAX_DEVICES). */
extern std::atomic<int> host_device_count;
/* Per device: bytes allocated on it, the most it gives, and its failure:
 * cudaSuccess while it works, else the sticky error every call on it
 * returns once host_device_calls_left reaches 0 (negative: no countdown). */
extern std::atomic<long long> host_device_used[HOST_MAX_DEVICES],
    host_device_limit[HOST_MAX_DEVICES];
extern std::atomic<long long> host_limit_refused[HOST_MAX_DEVICES]; /* over the limit */
extern std::atomic<int> host_device_error[HOST_MAX_DEVICES];
extern std::atomic<long long> host_device_calls_left[HOST_MAX_DEVICES];
/* Counts cudaMalloc calls on a device down to one that is refused for
 * memory (0: none; -1: that one and every later one refused, when
 * host_alloc_refuse_on says so). */
extern std::atomic<long long> host_alloc_refuse_in[HOST_MAX_DEVICES];
extern std::atomic<bool> host_alloc_refuse_on[HOST_MAX_DEVICES];
/* Calls on the default stream (copies, fills, events, waits; the stand-in
 * kernels count theirs, host_device.cpp) and cudaMalloc / cudaFree calls
 * made, for the tests that the lane's work stays off both. */
extern std::atomic<long long> host_stream0_calls, host_malloc_calls, host_free_calls;
extern std::atomic<long long> host_spin_waits; /* cudaEventSynchronize on a spinning event */
/* The calling thread's current device. */
extern thread_local int host_current_device;
/* Microseconds each asynchronous copy of 64 KiB or more takes at least
 * (a slow link for the bulk transfers; bitmaps and tails stay quick). */
extern std::atomic<int> host_dma_delay_us;

/* Bytes copied by cudaMemcpy and cudaMemcpyAsync per device, [0] host to
 * device, [1] device to host: the runtime's own count, which the tests
 * hold against the prover's (xfer_stats.cuh). */
extern std::atomic<long long> host_copied[HOST_MAX_DEVICES][2];

/* Allocation registry (host_device.cpp): records [p, p + bytes) as memory
 * of device dev; forgets it (false: p was not allocated); the device
 * holding [p, p + bytes) whole, or -1. */
void host_register(const void *p, size_t bytes, int dev);
bool host_unregister(const void *p);
int host_owner(const void *p, size_t bytes);

/* cudaSuccess while device dev works; a failing device's sticky error
 * (every call on it counts down to the failure). */
static inline cudaError_t host_call(int dev)
{
    if (dev < 0 || dev >= host_device_count.load()) return cudaErrorInvalidDevice;
    int e = host_device_error[dev].load();
    if (e == cudaSuccess) return cudaSuccess;
    if (host_device_calls_left[dev].load() > 0 && host_device_calls_left[dev].fetch_sub(1) > 0)
        return cudaSuccess;
    return (cudaError_t)e;
}
/* The same for device memory [p, p + n) used on device dev. */
static inline cudaError_t host_mem_on(int dev, const void *p, size_t n)
{
    cudaError_t e = host_call(dev);
    if (e == cudaSuccess && host_owner(p, n) != dev) return cudaErrorInvalidValue;
    return e;
}

/* The device of stream st (NULL: the default stream of the current one,
 * counted in host_stream0_calls). */
static inline int host_stream_dev(cudaStream_t st)
{
    if (st) return st->device;
    host_stream0_calls++;
    return host_current_device;
}

static inline cudaError_t cudaMalloc(void **p, size_t bytes)
{
    int dev = host_current_device;
    host_malloc_calls++;
    *p = NULL;
    cudaError_t e = host_call(dev);
    if (e != cudaSuccess) return e;
    if (host_device_used[dev].load() + (long long)bytes > host_device_limit[dev].load()) {
        host_limit_refused[dev]++;
        if (getenv("CUZK_TEST_REFUSALS")) /* which allocation: a plan that missed it */
            fprintf(stderr, "stand-in: device %d refused %zu bytes (%lld used of %lld)\n", dev,
                    bytes, host_device_used[dev].load(), host_device_limit[dev].load());
        return cudaErrorMemoryAllocation;
    }
    if (host_alloc_refuse_in[dev].load() < 0) return cudaErrorMemoryAllocation;
    if (host_alloc_refuse_in[dev].load() > 0 && host_alloc_refuse_in[dev].fetch_sub(1) == 1) {
        if (host_alloc_refuse_on[dev].load()) host_alloc_refuse_in[dev] = -1;
        return cudaErrorMemoryAllocation;
    }
    char *q = (char *)malloc(bytes ? bytes : 1);
    if (!q) return cudaErrorMemoryAllocation;
    host_device_used[dev] += (long long)bytes;
    memset(q, 0xa5, bytes);
    host_register(q, bytes, dev);
    *p = q;
    return cudaSuccess;
}
/* A failed device's memory is released too (it went with the context),
 * but the call reports the device's error. */
static inline cudaError_t cudaFree(void *p)
{
    if (!p) return cudaSuccess;
    host_free_calls++;
    int dev = host_owner(p, 1);
    if (dev < 0 || !host_unregister(p)) return cudaErrorInvalidValue;
    free(p);
    return host_call(dev);
}
static inline cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned)
{
    *p = malloc(bytes);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaFreeHost(void *p)
{
    free(p);
    return cudaSuccess;
}
/* Mapped host memory: the stand-in's kernels run on the host, so its
 * device address is the host one. */
static inline cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned)
{
    *d = h;
    return h ? cudaSuccess : cudaErrorInvalidValue;
}
/* Page-locked host ranges (cudaHostRegister), process-wide as in CUDA:
 * registering a range twice fails; host_pin_calls counts registrations
 * made, host_pin_fail makes them fail (memory that cannot be pinned). */
extern std::atomic<long long> host_pin_calls, host_pins_live;
extern std::atomic<bool> host_pin_fail;
bool host_pin_add(const void *p);
bool host_pin_remove(const void *p);
static inline cudaError_t cudaHostRegister(void *p, size_t bytes, unsigned)
{
    if (!p || !bytes) return cudaErrorInvalidValue;
    if (host_pin_fail.load()) return cudaErrorInvalidValue;
    if (!host_pin_add(p)) return cudaErrorHostMemoryAlreadyRegistered;
    host_pin_calls++;
    return cudaSuccess;
}
static inline cudaError_t cudaHostUnregister(void *p)
{
    return host_pin_remove(p) ? cudaSuccess : cudaErrorHostMemoryNotRegistered;
}
/* Synchronous copies: one side on the current device. */
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind kind)
{
    int dev = host_stream_dev(NULL);
    cudaError_t e =
        kind == cudaMemcpyDeviceToHost ? host_mem_on(dev, s, n) : host_mem_on(dev, d, n);
    if (e == cudaSuccess && kind == cudaMemcpyDeviceToDevice) e = host_mem_on(dev, s, n);
    if (e != cudaSuccess) return e;
    if (kind != cudaMemcpyDeviceToDevice) host_copied[dev][kind == cudaMemcpyDeviceToHost] += n;
    memcpy(d, s, n);
    return cudaSuccess;
}
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind kind,
                                          cudaStream_t st)
{
    int dev = host_stream_dev(st);
    cudaError_t e =
        kind == cudaMemcpyDeviceToHost ? host_mem_on(dev, s, n) : host_mem_on(dev, d, n);
    if (e != cudaSuccess) return e;
    if (host_dma_delay_us.load() && n >= ((size_t)64 << 10))
        std::this_thread::sleep_for(std::chrono::microseconds(host_dma_delay_us.load()));
    if (kind != cudaMemcpyDeviceToDevice) host_copied[dev][kind == cudaMemcpyDeviceToHost] += n;
    memcpy(d, s, n);
    return cudaSuccess;
}
static inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st)
{
    cudaError_t e = host_mem_on(host_stream_dev(st), d, n);
    if (e != cudaSuccess) return e;
    memset(d, v, n);
    return cudaSuccess;
}
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags)
{
    cudaError_t r = host_call(host_current_device);
    if (r != cudaSuccess) return r;
    *e = new host_event{host_current_device, 0, flags};
    return cudaSuccess;
}
static inline cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    return cudaEventCreateWithFlags(e, 0);
}
/* ms from a to b, both recorded (as in CUDA, whatever their streams). */
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    if (a->device != b->device) return cudaErrorInvalidResourceHandle;
    cudaError_t e = host_call(a->device);
    if (e == cudaSuccess) *ms = (float)(b->ms - a->ms);
    return e;
}
static inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    delete e;
    return cudaSuccess;
}
static inline cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    delete s;
    return cudaSuccess;
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned)
{
    cudaError_t r = host_call(host_current_device);
    if (r != cudaSuccess) return r;
    *s = new host_stream{host_current_device, 0};
    return cudaSuccess;
}
/* Priorities 0 (least) .. -5 (greatest), as an H200 reports. */
static inline cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
    *least = 0, *greatest = -5;
    return host_call(host_current_device);
}
static inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned, int priority)
{
    cudaError_t r = host_call(host_current_device);
    if (r != cudaSuccess) return r;
    if (priority < -5 || priority > 0) return cudaErrorInvalidValue;
    *s = new host_stream{host_current_device, priority};
    return cudaSuccess;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t st)
{
    int dev = host_stream_dev(st);
    if (ev->device != dev) return cudaErrorInvalidResourceHandle;
    ev->ms = std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now().time_since_epoch())
                 .count();
    return host_call(dev);
}
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t st, cudaEvent_t ev, unsigned)
{
    int dev = host_stream_dev(st);
    if (ev->device != dev) return cudaErrorInvalidResourceHandle;
    return host_call(dev);
}
/* A wait on an event made without cudaEventBlockingSync spins a core in
 * CUDA: counted in host_spin_waits. */
static inline cudaError_t cudaEventSynchronize(cudaEvent_t ev)
{
    if (!(ev->flags & cudaEventBlockingSync)) host_spin_waits++;
    return host_call(ev->device);
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t st)
{
    return host_call(host_stream_dev(st));
}
static inline cudaError_t cudaSetDevice(int dev)
{
    if (dev < 0 || dev >= host_device_count.load()) return cudaErrorInvalidDevice;
    host_current_device = dev;
    return cudaSuccess;
}
static inline cudaError_t cudaInitDevice(int dev, unsigned, unsigned)
{
    if (dev < 0 || dev >= host_device_count.load()) return cudaErrorInvalidDevice;
    return cudaSuccess;
}
static inline cudaError_t cudaGetDevice(int *dev)
{
    *dev = host_current_device;
    return cudaSuccess;
}
/* A failed device's sticky error stays; nothing else is pending here. */
static inline cudaError_t cudaGetLastError(void)
{
    int dev = host_current_device;
    return host_device_calls_left[dev].load() > 0 ? cudaSuccess
                                                  : (cudaError_t)host_device_error[dev].load();
}
static inline cudaError_t cudaGetDeviceCount(int *n)
{
    *n = host_device_count.load();
    return cudaSuccess;
}
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev)
{
    if (dev < 0 || dev >= host_device_count.load()) return cudaErrorInvalidDevice;
    memset(p, 0, sizeof *p);
    strcpy(p->name, "host stand-in");
    p->major = 9;
    p->multiProcessorCount = 1;
    p->totalGlobalMem = HOST_DEVICE_TOTAL;
    return cudaSuccess;
}
static inline cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    int dev = host_current_device;
    cudaError_t e = host_call(dev);
    if (e != cudaSuccess) return e;
    long long left = host_device_limit[dev].load() - host_device_used[dev].load();
    *free_bytes = left < (long long)HOST_DEVICE_TOTAL ? (size_t)left : HOST_DEVICE_TOTAL - 1;
    *total = HOST_DEVICE_TOTAL;
    return cudaSuccess;
}
static inline const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaErrorMemoryAllocation:
        return "out of memory";
    case cudaErrorInvalidValue:
        return "invalid argument";
    case cudaErrorDevicesUnavailable:
        return "CUDA-capable device(s) is/are busy or unavailable";
    case cudaErrorInvalidDevice:
        return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle:
        return "invalid resource handle";
    case cudaErrorLaunchFailure:
        return "unspecified launch failure";
    default:
        return "unknown error";
    }
}
static inline const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaErrorMemoryAllocation:
        return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidValue:
        return "cudaErrorInvalidValue";
    case cudaErrorDevicesUnavailable:
        return "cudaErrorDevicesUnavailable";
    case cudaErrorInvalidDevice:
        return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle:
        return "cudaErrorInvalidResourceHandle";
    case cudaErrorLaunchFailure:
        return "cudaErrorLaunchFailure";
    default:
        return "cudaErrorUnknown";
    }
}

#endif
