/*
 * ktrace.cuh - the kernels' time per launch site, for finding the long
 * ones (gpu_ktrace_begin / gpu_ktrace_end, gpu_prove.h).
 *
 * While a trace is on, cu_kstream (yield.cuh) records an event on the
 * launch's stream before each launch, named by the site (file:line) that
 * asked. A launch's time is from its event to the next one on the same
 * stream of the same device: the kernel's own time when the host keeps
 * ahead of the stream (the prover's case), more by the host's gap when
 * the stream ran dry, so an upper bound. A stream's last launch has no
 * end and is not counted. A kernel launched on a stream through a
 * library call (CUB) counts under its site, with whatever else that call
 * launched.
 */
#ifndef CUZK_GPU_UTIL_KTRACE_CUH
#define CUZK_GPU_UTIL_KTRACE_CUH

#include <atomic>

#include <cuda_runtime.h>

extern std::atomic<bool> cu_ktrace_active; /* read before every launch */

/* The launch at file:line is about to go on stream s (a trace is on). */
void cu_ktrace_mark(cudaStream_t s, const char *file, int line);

#endif
