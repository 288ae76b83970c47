/*
 * lane.cuh - the calling thread's CUDA stream, and the small-circuit lane
 * it may be working for.
 *
 * Every kernel launch, copy and wait of the GPU prover path (src/gpu/ntt,
 * src/gpu/msm, src/gpu/prove) goes on cu_stream(): the stream the calling
 * thread set with cu_context_set (a thread that set none: the default
 * stream 0, the big prover's behaviour); a kernel launch takes it
 * through cu_kstream (yield.cuh: the big prover's pause for a lane
 * proof). A synchronous copy is cu_copy_wait: an asynchronous copy on
 * that stream and a wait for that stream alone, so it never waits for
 * another stream's kernels.
 *
 * The small-circuit lane (gpu_lane.h) is a second set of everything the
 * prover keeps on a device (buffers, parameter cache, staging pools, NTT
 * tables, MSM workspace, prover lock): a thread working for the lane of
 * device d has cu_slot() == CU_MAX_DEVICES + d, where the big prover has
 * d, and per-device state is kept in arrays of CU_MAX_SLOTS indexed by
 * it. Its stream is non-blocking with the device's greatest priority,
 * and its device memory comes from one reservation made when the lane is
 * set up (cu_malloc / cu_free carve it: lane.cu), so the lane never
 * calls cudaMalloc or cudaFree, which would wait for the whole device.
 * Helper threads of a start take their starter's context (cu_context).
 */
#ifndef CUZK_GPU_UTIL_LANE_CUH
#define CUZK_GPU_UTIL_LANE_CUH

#include "gpu/util/device.cuh"

#define CU_MAX_SLOTS (2 * CU_MAX_DEVICES) /* per-device state: big prover, then lanes */

/* What a thread works for: its stream and whether that is a lane's. */
struct cu_ctx {
    cudaStream_t stream;
    bool lane;
    int dev; /* the slot's device (cu_slot_enter); -1 for a thread that entered none */
};
/* The calling thread's context (lane.cu). */
cu_ctx cu_context(void);
void cu_context_set(cu_ctx c);

static inline cudaStream_t cu_stream(void)
{
    return cu_context().stream;
}

/* *slot = the index of the calling thread's per-device state: its device,
 * plus CU_MAX_DEVICES when it works for that device's lane. */
static inline int cu_slot(int *slot, cuzk_err *err)
{
    int rc = cu_device(slot, err);
    if (!rc && cu_context().lane) *slot += CU_MAX_DEVICES;
    return rc;
}

/* Makes slot's device current and the calling thread work for it: the
 * big prover's context for a device's own slot (stream 0), the lane's for
 * a lane's slot. */
cudaError_t cu_slot_enter(int slot);

/* A stream for a copy engine or helper of the calling thread's slot:
 * non-blocking, with the greatest priority when it works for a lane. */
cudaError_t cu_stream_new(cudaStream_t *st);

/* An event a host thread may wait on (cudaEventSynchronize): made with
 * cudaEventBlockingSync, so the wait sleeps as the device's stream waits
 * do (cudaDeviceScheduleBlockingSync, backend_cuda.cu); without it CUDA
 * spins the waiting thread's core for as long as it waits, whatever the
 * device's flag. `timing`: read by cudaEventElapsedTime. */
static inline cudaError_t cu_event_new(cudaEvent_t *e, bool timing)
{
    return cudaEventCreateWithFlags(e,
                                    cudaEventBlockingSync | (timing ? 0 : cudaEventDisableTiming));
}

/* Device memory for the calling thread's slot: cudaMalloc / cudaFree for
 * the big prover, the lane's reservation for a lane (an exhausted
 * reservation is cudaErrorMemoryAllocation, as a full device). */
cudaError_t cu_malloc(void **p, size_t bytes);
cudaError_t cu_free(void *p);
/* The big prover's blocks alive on device dev (cu_malloc'ed, not yet
 * cu_free'd): "N blocks, X MiB: S MiB xK, ..." into out, the sizes that
 * hold the most first (CU_MEM_LIVE_ROWS of them); returns their bytes. */
#define CU_MEM_LIVE_ROWS 12
size_t cu_mem_live_format(int dev, char *out, size_t len);

/* Device dev's lane (lane.cu): its stream and a reservation of `bytes`
 * (made once; CUZK_ENOMEM naming the device when it has no room), given
 * back by cu_lane_teardown (no lane thread may be running). */
int cu_lane_setup(int dev, size_t bytes, cuzk_err *err);
void cu_lane_teardown(int dev);
/* Whether device dev's lane is set up; its stream and reservation. */
bool cu_lane_ready(int dev, cudaStream_t *st, size_t *bytes);
/* Bytes of dev's lane reservation handed out now. */
size_t cu_lane_used(int dev);

/* Waits for the work queued on the calling thread's stream, before
 * results are copied back: a synchronous cudaMemcpy that itself waits for
 * long kernels holds up other host threads' CUDA calls meanwhile (the
 * loader's uploads of the next circuit, on a stream of their own). */
#define CU_WAIT(err, what) CU(cudaStreamSynchronize(cu_stream()), err, what)

/* A copy on cu_stream() that returns once it (and the stream's earlier
 * work) is done. */
#define CU_COPY(dst, src, bytes, kind, err, what)                                                  \
    do {                                                                                           \
        CU(cudaMemcpyAsync((dst), (src), (bytes), (kind), cu_stream()), err, what);                \
        CU(cudaStreamSynchronize(cu_stream()), err, what);                                         \
    } while (0)

#endif
