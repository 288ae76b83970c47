/*
 * host_budget.h - the stand-in devices' number, memory budgets, failures
 * and link speed (host_device.cpp), from C.
 */
#ifndef CUZK_TESTS_GPUHOST_HOST_BUDGET_H
#define CUZK_TESTS_GPUHOST_HOST_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Lets the calling thread's current stand-in device give `more` bytes
 * beyond what it holds now (the main thread's is device 0). */
void host_budget_allow(long long more);
/* Makes dev the calling thread's current device (cudaSetDevice). */
void host_use_device(int dev);
/* The runtime lists n stand-in devices (1 .. 4), all working again. */
void host_devices(int n);
/* Device dev fails after `after_calls` more calls on it (0: now): lost
 * (cudaErrorDevicesUnavailable) or a faulted context
 * (cudaErrorLaunchFailure); every later call on it fails the same way. */
void host_device_fail(int dev, long long after_calls, bool lost);
/* The k-th cudaMalloc on device dev from now (1, 2, ...) is refused for
 * memory, once; 0: none. host_alloc_refuse_pending: how many calls are
 * still to come before it (0: it happened, or none was set). */
void host_alloc_refuse(int dev, long long k);
/* The same, and every cudaMalloc on dev after the k-th refused too, until
 * host_alloc_refuse(dev, 0). */
void host_alloc_refuse_from(int dev, long long k);
long long host_alloc_refuse_pending(int dev);
/* Bytes allocated on device dev. */
long long host_device_bytes(int dev);
/* cudaMalloc calls on device dev refused so far for going past its memory
 * (host_budget_allow's limit), not by host_alloc_refuse. */
long long host_limit_refusals(int dev);
/* Device bytes of the staging pools' scratch of slot dev (staging.cu),
 * which a start makes before it plans, outside its plan. */
size_t host_stage_scratch(int dev);
/* Stand-in device memory of the current device (host-addressable), NULL
 * when its budget is spent; freed by host_device_free. */
void *host_device_alloc(size_t bytes);
void host_device_free(void *p);
/* Makes every asynchronous copy of 64 KiB or more take at least `us`
 * microseconds. */
void host_dma_delay(int us);
/* prove_upload of `bytes` pseudo-random bytes (seeded) into stand-in
 * device memory, with the link slowed by delay_us: 0 when they arrive
 * intact, else the first wrong offset + 1 (or -1 for a failed call). */
long long host_upload_check(size_t bytes, unsigned seed, int delay_us);
/* prove_upload_fr of n elements, pieces from `dense` on dense (as they
 * are), the others mostly zeros and ones (packed): 0 when intact and
 * counted as packed (host_device.cpp's upload_fr_check). */
long long host_upload_fr_check(size_t n, size_t dense, unsigned seed, int delay_us);
/* prove_upload_fr_kept of the same elements, read back through wit_get,
 * and into a byte too little room (host_device.cpp's upload_kept_check;
 * 0: all well). */
long long host_upload_kept_check(size_t n, size_t dense, unsigned seed, int delay_us);
/* Two threads upload different bytes through one pool at once (as two
 * circuits' preps may): the same result for either. */
long long host_upload_pair_check(size_t bytes, int delay_us);

/* Bytes the stand-in runtime copied on device dev so far (cudaMemcpy and
 * cudaMemcpyAsync), to the host or to the device. */
long long host_copied_bytes(int dev, bool to_host);

/* Host ranges page-locked so far (cudaHostRegister calls that worked),
 * those locked now, and whether registering fails (memory that cannot
 * be locked). */
long long host_pin_count(void);
long long host_pins_held(void);
void host_pin_refuse(bool refuse);

/* Counters from host_calls_reset on: calls on the default stream (copies,
 * fills, events, waits, stand-in kernels launched by a thread whose
 * cu_stream() is 0), and cudaMalloc + cudaFree calls. */
void host_calls_reset(void);
long long host_stream0_count(void);
long long host_malloc_count(void);
/* Host waits (cudaEventSynchronize) on events that spin in CUDA: made
 * without cudaEventBlockingSync (lane.cuh cu_event_new). */
long long host_spin_wait_count(void);

/* How many device preps (prep_launch_scatter) have run. */
long long host_prep_scatters(void);

#ifdef __cplusplus
}
#endif

#endif
