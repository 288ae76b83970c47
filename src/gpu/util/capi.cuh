/*
 * capi.cuh - the C headers of cuzk as seen from CUDA C++ sources.
 *
 * nvcc brings CUDA's math declarations into every translation unit, and
 * with them a global FP_ZERO (a fpclassify result) that clashes with the
 * constant FP_ZERO of fp.h. The CUDA sources use neither, so fp.h's is
 * renamed while the headers are read (the declaration names no symbol).
 * Every CUDA source reads the C headers through this one file.
 */
#ifndef CUZK_GPU_UTIL_CAPI_CUH
#define CUZK_GPU_UTIL_CAPI_CUH

#undef FP_ZERO
#define FP_ZERO cuzk_fp_zero_unused
extern "C" {
#include "cuzk/engine_backend.h"
#include "cuzk/engine_log.h"
#include "cuzk/err.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_lane.h"
#include "cuzk/gpu_prove.h"
#include "cuzk/groth16.h"
#include "groth16/prove_internal.h"
}
#undef FP_ZERO

#endif
