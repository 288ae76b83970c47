/*
 * yield.cuh - which of a device's two provers runs its kernels first: the
 * big prover yields its device's SMs to a lane proof (yield.cu states the
 * rules).
 *
 * The lane's stream has the device's greatest priority, so its blocks go
 * first as SMs free up; but the big prover's kernels keep the SMs busy
 * with blocks of their own (a batch addition's one wave holds every SM
 * for 50-60 ms at 2^27), so each of the lane's hundred-odd kernels
 * waited for some, and a Winning PoSt took up to 0.7 s beside a PoRep
 * start on the H200 (issue 24). Here the big prover stops launching
 * while a lane proof runs, for a bounded time, and its resumable kernels
 * (the MSM's bucket sweep) leave the blocks they have not started.
 */
#ifndef CUZK_GPU_UTIL_YIELD_CUH
#define CUZK_GPU_UTIL_YIELD_CUH

#include <stdint.h>

#include "gpu/util/ktrace.cuh"
#include "gpu/util/lane.cuh"

extern "C" {
#include "cuzk/gpu_lane.h" /* GPU_LANE_PAUSE_MS: rule 3's bound by default */
}

/* Rule 1: device dev's lane proof asked (take) and its start returned
 * (give); calls pair, and may nest (lane proofs queued on the lane's lock). */
void cu_yield_take(int dev);
void cu_yield_give(int dev);
/* Rule 5's flag for the calling thread's kernels: the device address of
 * its device's bail flag (1 while a lane proof holds the yield and the
 * pause is not 0), NULL for a lane's thread, a thread of no device, a
 * device without a lane, a pause of 0, or where page-locked memory was
 * refused (then nothing bails). */
const int *cu_yield_bail(void);
/* Rule 3's bound in ms for every device (0: the big prover never waits). */
void cu_yield_set_pause(unsigned ms);
/* Rule 2's wait for the calling thread (none for a lane's thread, a thread
 * of no device, or while no lane proof runs on its device). */
void cu_yield_wait(void);
/* Rule 2's waits, in total (gpu_lane_pauses, for the lane bench): how
 * many waits and their ms, how many were cut short by rule 3. */
void cu_yield_counts(int dev, uint64_t *waits, double *wait_ms, uint64_t *cut);

/* The stream for a kernel of the calling thread: cu_stream(), after
 * rule 2's wait, the launch marked there for a trace that is on
 * (ktrace.cuh). Every kernel launch of the prover path takes its stream
 * here (copies and waits take cu_stream(): they hold no SM). */
static inline cudaStream_t cu_kstream_at(const char *file, int line)
{
    cu_yield_wait();
    cudaStream_t s = cu_stream();
    if (cu_ktrace_active.load(std::memory_order_relaxed)) cu_ktrace_mark(s, file, line);
    return s;
}
#define cu_kstream() cu_kstream_at(__FILE__, __LINE__)

#endif
